"""No cost without extensions, structurally (no timing; the timed comparison with the foundation
is benchmarks/nocost.py): a plain run's generated Python never mentions an instrumentation hook,
a run with extensions gets its own code space whose code does, and that run leaves the plain
space's functions — the objects a plain call executes — untouched."""
from __future__ import annotations

import pytest

from assay import mirx
from assay.coverage.collect import Coverage

HOOKS = ("_E0", "_S0", "RUN.frame", ".at(", "on_branch", "on_call", "on_return", "on_raise")

PROGRAMS = {
    "branches": ("""
function Classify(n: int) -> string {
  if (n < 0) { "neg" } else if (n == 0) { "zero" } else { "pos" }
}
function Pick(x: int?) -> int { x ?? 7 }
function Main(n: int) -> int {
  let s = 0;
  for (let i = -n; i < n; i += 1) {
    if (Classify(i) == "pos" && i % 2 == 0) { s += Pick(i); } else { s += Pick(null); }
  }
  s
}
""", "Main", {"n": 6}, 10 * 7 + 2 + 4),
    "classes_and_lambdas": ("""
class Point {
  x int
  y int
  function sum(self) -> int { self.x + self.y }
  function shift(self, d: int) -> void { self.x += d; self.y += d; }
}
enum Shape { Circle Square }
function Area(s: Shape, k: int) -> int {
  match (s) { Shape.Circle => 3 * k * k, Shape.Square => k * k }
}
function Main(n: int) -> int {
  let p = Point { x: 1, y: 2 };
  let total = 0;
  let add = (k: int) -> int { total += k; total };
  for (let i = 0; i < n; i += 1) {
    p.shift(1);
    add(p.sum());
    add(Area(Shape.Circle, i) + Area(Shape.Square, i));
  }
  total
}
""", "Main", {"n": 4}, None),
    "errors": ("""
function Safe(a: int, b: int) -> int {
  (a / b) catch (e) {
    baml.panics.DivisionByZero => -1
  }
}
function Main(n: int) -> int {
  let s = 0;
  let i = 0;
  while (i < n) { s += Safe(10, i); i += 1; }
  s
}
""", "Main", {"n": 4}, -1 + 10 + 5 + 3),
}


class Everything(mirx.Extension):
    """Overrides every run-time hook, so every hook kind is generated."""

    name = "everything"

    def __init__(self):
        self.events = 0

    def instrument(self, fn, node, pcs):
        return node.kind

    def at(self, fn, pc, data):
        self.events += 1

    def on_branch(self, fn, data, taken):
        self.events += 1

    def on_call(self, fn, args):
        self.events += 1

    def on_return(self, fn, value):
        self.events += 1

    def on_raise(self, fn, error):
        self.events += 1


def plain_functions(rt) -> dict:
    """fqn → the function object the plain space runs, for every function generated in it."""
    space = rt.plain
    return {fqn: f for fqn, f in space.functions().items()
            if hasattr(f, "baml_source")}


def space_sources(space) -> dict:
    return {fqn: f.baml_source for fqn, f in space.functions().items()
            if hasattr(f, "baml_source")}


@pytest.mark.parametrize("key", sorted(PROGRAMS))
@pytest.mark.parametrize("ext_type", [Coverage, Everything])
def test_plain_code_is_untouched_by_extensions(key, ext_type):
    text, fn, args, expected = PROGRAMS[key]
    prog = mirx.compile(text, f"{key}.baml")
    rt = prog._p.runtime
    value = prog.call(fn, args)
    if expected is not None:
        assert value == expected

    # the plain run: generated, and no instrumentation anywhere in its code
    before = plain_functions(rt)
    assert len(before) >= 2
    plain_src = space_sources(rt.plain)
    for fqn, src in plain_src.items():
        assert not [h for h in HOOKS if h in src], (fqn, src)
    methods = {(c, m): getattr(rt.classes[c].py, "m_" + m) for c, ms in rt.method_fqns.items() for m in ms}

    # an instrumented run: same answer, its own code space, instrumented code
    ext = ext_type()
    assert prog.call(fn, args, extensions=[ext]) == value
    space = rt.space((ext,))
    assert space is not rt.plain and space.env is not rt.plain.env
    inst_src = space_sources(space)
    # a capturing lambda's closures are made in place in the plain space (inside its maker's
    # source, checked above): its own function is generated there only if something calls it
    in_place = {fqn for fqn, f in rt.plain.functions().items() if type(f).__name__ == "_LazyLambda"}
    assert set(inst_src) == set(plain_src) | in_place
    for fqn, src in inst_src.items():
        assert src != plain_src.get(fqn), fqn
        # Coverage's snippet is a compiled-in counter; the others' default snippets call `at`
        assert ("_S0[" in src) if ext_type is Coverage else ("_E0.at(" in src), fqn
    joined = "\n".join(inst_src.values())
    wanted = () if ext_type is Coverage else HOOKS
    for h in wanted:
        assert h in joined, h
    if ext_type is Coverage:  # only what an extension asks for is generated: here, no calls
        assert not [h for h in ("_E0.", "on_call", "on_return", "on_raise") if h in joined]
        hits = sum(ext.hits.values())
    else:
        hits = ext.events
    assert hits > 0

    # the plain space is as it was: same function objects, same sources, same method bindings
    after = plain_functions(rt)
    assert after.keys() == before.keys()
    assert all(after[k] is before[k] for k in before)
    assert space_sources(rt.plain) == plain_src
    assert {(c, m): getattr(rt.classes[c].py, "m_" + m) for c, ms in rt.method_fqns.items() for m in ms} == methods

    # and a plain call after the instrumented one runs the plain code: the extension hears nothing
    assert prog.call(fn, args) == value
    assert (sum(ext.hits.values()) if ext_type is Coverage else ext.events) == hits
    assert all(plain_functions(rt)[k] is before[k] for k in before)


def test_plain_generated_after_an_instrumented_run_is_still_plain():
    """Extensions first, plain second: the plain space is generated fresh, with no hooks."""
    text, fn, args, expected = PROGRAMS["branches"]
    prog = mirx.compile(text, "first.baml")
    rt = prog._p.runtime
    cov = Coverage()
    assert prog.call(fn, args, extensions=[cov]) == expected
    assert not plain_functions(rt)  # the instrumented run generated nothing in the plain space
    assert prog.call(fn, args) == expected
    srcs = space_sources(rt.plain)
    assert srcs and not [f for f, s in srcs.items() if any(h in s for h in HOOKS)]
    assert rt.source("user.Main") == srcs["user.Main"]
