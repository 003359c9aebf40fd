"""Generate a large, realistic BAML program (~7,000 lines) for the cold end-to-end benchmark.

    python benchmarks/gen_big.py [MODULES] > big.baml

The program is MODULES copies of an "inventory" module (enums, classes with methods, matches over
enums / literals / class patterns / types, while / for / C-style loops, maps, string templates,
closures, cross-module calls), each varied by its index, plus `Main(n: int) -> int`, which calls
every module's entry point so that every function runs once.
"""
from __future__ import annotations

import sys

MODULES = 23
MAIN_ARG = 12

MODULE = """
// ───────────────────────── module {k} ─────────────────────────

enum Status{k} {{
  Active
  Pending
  Closed
  Archived
}}

enum Priority{k} {{
  Low
  Medium
  High
}}

class Tag{k} {{
  label string
  weight int
}}

class Item{k} {{
  id int
  name string
  price int
  qty int
  tags Tag{k}[]
  status Status{k}
  priority Priority{k}
  note string?

  function value(self) -> int {{
    self.price * self.qty
  }}

  function is_open(self) -> bool {{
    match (self.status) {{
      Status{k}.Active => true,
      Status{k}.Pending => true,
      Status{k}.Closed => false,
      Status{k}.Archived => false,
    }}
  }}
}}

class Inventory{k} {{
  items Item{k}[]
  owner string
  revision int

  function total(self) -> int {{
    let t = 0;
    for (let it in self.items) {{
      t += it.value();
    }}
    t
  }}

  function count_status(self, s: Status{k}) -> int {{
    let c = 0;
    for (let it in self.items) {{
      if (it.status == s) {{
        c += 1;
      }}
    }}
    c
  }}

  function find(self, id: int) -> Item{k}? {{
    for (let it in self.items) {{
      if (it.id == id) {{
        return it;
      }}
    }}
    null
  }}
}}

function status_of_{k}(i: int) -> Status{k} {{
  match (i % 4) {{
    0 => Status{k}.Active,
    1 => Status{k}.Pending,
    2 => Status{k}.Closed,
    _ => Status{k}.Archived,
  }}
}}

function priority_of_{k}(i: int) -> Priority{k} {{
  if (i % {p} == 0) {{
    Priority{k}.High
  }} else if (i % 2 == 0) {{
    Priority{k}.Medium
  }} else {{
    Priority{k}.Low
  }}
}}

function make_tags_{k}(i: int) -> Tag{k}[] {{
  let tags: Tag{k}[] = [];
  let j = 0;
  while (j < i % 3 + 1) {{
    tags.push(Tag{k} {{ label: `t${{(i + j) % {t}}}`, weight: j + {k} % 5 }});
    j += 1;
  }}
  tags
}}

function make_item_{k}(i: int) -> Item{k} {{
  let note: string? = null;
  if (i % 5 == 0) {{
    note = `special ${{i}}`;
  }}
  Item{k} {{
    id: i,
    name: `item-{k}-${{i}}`,
    price: (i * {a} + {b}) % 97,
    qty: i % 7 + 1,
    tags: make_tags_{k}(i),
    status: status_of_{k}(i),
    priority: priority_of_{k}(i),
    note: note,
  }}
}}

function build_inventory_{k}(n: int) -> Inventory{k} {{
  let items: Item{k}[] = [];
  for (let i = 0; i < n; i += 1) {{
    items.push(make_item_{k}(i));
  }}
  Inventory{k} {{ items: items, owner: "owner-{k}", revision: {k} }}
}}

function status_weight_{k}(s: Status{k}) -> int {{
  match (s) {{
    Status{k}.Active => {w1},
    Status{k}.Pending => {w2},
    Status{k}.Closed => 1,
    Status{k}.Archived => 0,
  }}
}}

function priority_bonus_{k}(p: Priority{k}) -> int {{
  match (p) {{
    Priority{k}.High => 10,
    Priority{k}.Medium => 4,
    Priority{k}.Low => 1,
  }}
}}

function score_{k}(inv: Inventory{k}) -> int {{
  let score = 0;
  for (let it in inv.items) {{
    score += status_weight_{k}(it.status) * it.price + priority_bonus_{k}(it.priority);
    if (it.price > 50) {{
      score -= 3;
    }} else if (it.price % 2 == 0) {{
      score += 1;
    }}
  }}
  score
}}

function tag_counts_{k}(inv: Inventory{k}) -> map<string, int> {{
  let m: map<string, int> = {{}};
  for (let it in inv.items) {{
    for (let t in it.tags) {{
      if (m.has(t.label)) {{
        m[t.label] += t.weight;
      }} else {{
        m[t.label] = t.weight;
      }}
    }}
  }}
  m
}}

function describe_{k}(it: Item{k}) -> string {{
  let label = match (it.status) {{
    Status{k}.Active => "active",
    Status{k}.Pending => "pending",
    Status{k}.Closed => "closed",
    Status{k}.Archived => "archived",
  }};
  let extra = it.note ?? "-";
  `${{it.name}} [${{label}}] ${{it.qty}} x ${{it.price}} (${{extra}})`
}}

function classify_{k}(x: int) -> string {{
  match (x % 6) {{
    0 => "zero",
    1 | 2 => "low",
    3 => "mid",
    _ => "high",
  }}
}}

function item_kind_{k}(it: Item{k}) -> int {{
  match (it) {{
    Item{k} {{ status: Status{k}.Active, price }} => price,
    Item{k} {{ qty: 1 }} => -1,
    _ => 0,
  }}
}}

function mixed_{k}(v: int | string | bool) -> int {{
  match (v) {{
    let i: int => i * {c},
    let s: string => s.length(),
    let b: bool => if (b) {{ 1 }} else {{ 0 }},
  }}
}}

function filter_cheap_{k}(inv: Inventory{k}, limit: int) -> Item{k}[] {{
  let out: Item{k}[] = [];
  for (let it in inv.items) {{
    if (it.price < limit && it.is_open()) {{
      out.push(it);
    }}
  }}
  out
}}

function apply_all_{k}(xs: int[], f: (int) -> int throws never) -> int {{
  let t = 0;
  for (let x in xs) {{
    t += f(x);
  }}
  t
}}

function closure_sum_{k}(n: int) -> int {{
  let base = {k};
  let calls = 0;
  let f = (x: int) -> int {{
    calls += 1;
    x * 2 + base
  }};
  let xs: int[] = [];
  for (let i = 0; i < n; i += 1) {{
    xs.push(i);
  }}
  apply_all_{k}(xs, f) + calls
}}

function safe_div_{k}(a: int, b: int) -> int {{
  if (b == 0) {{
    return 0;
  }}
  a / b
}}

function histogram_{k}(inv: Inventory{k}) -> int[] {{
  let buckets = [0, 0, 0, 0, 0];
  for (let it in inv.items) {{
    let b = it.price / 20;
    if (b > 4) {{
      b = 4;
    }}
    buckets[b] += 1;
  }}
  buckets
}}

function report_{k}(inv: Inventory{k}) -> string {{
  let s = `inventory ${{inv.owner}} rev ${{inv.revision}}:`;
  let shown = 0;
  for (let it in inv.items) {{
    if (shown >= 3) {{
      break;
    }}
    if (it.qty < 2) {{
      continue;
    }}
    s += " " + describe_{k}(it);
    shown += 1;
  }}
  s
}}

function collatz_{k}(start: int) -> int {{
  let x = start + {k};
  let steps = 0;
  while (x != 1 && steps < 500) {{
    x = if (x % 2 == 0) {{ x / 2 }} else {{ 3 * x + 1 }};
    steps += 1;
  }}
  steps
}}

function module_{k}(n: int) -> int {{
  let inv = build_inventory_{k}(n);
  let s = score_{k}(inv);
  let tags = tag_counts_{k}(inv);
  let cheap = filter_cheap_{k}(inv, 40);
  let d = describe_{k}(inv.items[0]);
  let c = classify_{k}(n + {k});
  let kinds = 0;
  for (let it in inv.items) {{
    kinds += item_kind_{k}(it);
  }}
  let h = histogram_{k}(inv);
  let found = inv.find(3);
  let f = if (found != null) {{ found.price }} else {{ -1 }};
  let r = report_{k}(inv);
  s + tags.length() + cheap.length() + d.length() + c.length() + inv.total() + kinds + h[0] + h[4] + f
    + closure_sum_{k}(n) + safe_div_{k}(s, 7) + inv.count_status(Status{k}.Pending) + r.length()
    + mixed_{k}(n) + mixed_{k}("abc") + mixed_{k}(true) + collatz_{k}(n){prev}
}}
"""


def module(k: int) -> str:
    prev = f" + safe_div_{k - 1}({k}, 2)" if k > 0 else ""
    return MODULE.format(k=k, p=3 + k % 4, t=4 + k % 5, a=7 + 2 * (k % 13), b=11 + k % 17, c=1 + k % 3,
                         w1=3 + k % 4, w2=2 + k % 3, prev=prev)


def generate(modules: int = MODULES) -> str:
    parts = ["// Generated by benchmarks/gen_big.py — do not edit.\n"]
    parts += [module(k) for k in range(modules)]
    body = "\n".join(f"  t += module_{k}(n);" for k in range(modules))
    parts.append(f"\nfunction Main(n: int) -> int {{\n  let t = 0;\n{body}\n  t\n}}\n")
    return "".join(parts)


if __name__ == "__main__":
    sys.stdout.write(generate(int(sys.argv[1]) if len(sys.argv) > 1 else MODULES))
