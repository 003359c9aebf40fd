"""The conservative checker: everything the real engine accepts checks clean; selected errors
are caught with the engine's code and location; `expr.ty` is filled in; speed."""
from __future__ import annotations

import glob
import os

import pytest

from assay.compiler import analyze
from assay.sema import types as T
from assay.sema.check import check
from assay.sema.program import build_index
from assay.source import SourceFile
from assay.syntax.parser import parse_file

HERE = os.path.dirname(__file__)
ROOT = os.path.dirname(HERE)
SHARED = os.path.join(os.path.dirname(ROOT), "shared")


def compile_files(files):
    """Parse, index and check as every entry point does (@ingot annotations stripped first)."""
    return analyze([SourceFile(path, text, ns) for path, ns, text in files])


def diags_of(text: str):
    return [(d.code, *d.span.line_col) for d in compile_files([("main.baml", None, text)])[1]]


def codes(text: str):
    return [c for c, _, _ in diags_of(text)]


def _project(root):
    files = []
    for p in sorted(glob.glob(os.path.join(root, "ns_*", "*.baml"))):
        files.append((os.path.relpath(p, root), os.path.basename(os.path.dirname(p))[3:],
                      open(p).read()))
    return files


CORPORA = [d for d in (os.path.join(SHARED, "corpus"), os.path.join(SHARED, "corpus-mutants"))
           if os.path.isdir(d)]


@pytest.mark.parametrize("path", [p for d in CORPORA for p in sorted(glob.glob(os.path.join(d, "ns_*", "*.baml")))],
                         ids=lambda p: "/".join(p.split("/")[-3:]))
def test_corpus_checks_clean(path):
    # each corpus file is compiled by the engine as one main.baml
    _, diags = compile_files([("main.baml", None, open(path).read())])
    assert [d.render(excerpt=False) for d in diags] == []


def test_programs_check_clean():
    files = _project(os.path.join(HERE, "programs"))
    if not files:
        pytest.skip("no tests/programs yet")
    _, diags = compile_files(files)
    assert [d.render(excerpt=False) for d in diags] == []


def test_examples_check_clean():
    for root in glob.glob(os.path.join(ROOT, "examples", "*")):
        files = [(os.path.relpath(p, root), None if os.path.dirname(os.path.relpath(p, root)) == ""
                  else os.path.basename(os.path.dirname(p)).removeprefix("ns_"), open(p).read())
                 for p in sorted(glob.glob(os.path.join(root, "**", "*.baml"), recursive=True))]
        if files:
            _, diags = compile_files(files)
            assert [d.render(excerpt=False) for d in diags] == [], root


ACCEPTED = [
    # narrowing
    "function f(x: int?) -> int { if (x == null) { return 0; } x + 1 }",
    "function f(x: int?) -> int { if (x != null) { x * 2 } else { 0 } }",
    "function f(x: int?) -> bool { x != null && x > 2 }",
    "function f(x: int?) -> bool { x == null || x > 2 }",
    "function f(x: int | string) -> int { if (x is int) { x + 1 } else { 0 } }",
    "function f(x: int | string) -> int { match (x) { int => x + 1, string => 0 } }",
    "function f(x: int?) -> int { let y: int? = x; y = 5; y + 1 }",
    "function f(x: int?) -> int { x ?? 3 }",
    "function f(x: int?) -> int { if let v: int = x { v } else { -1 } }",
    # literals widen; enum literal locals
    "function f() -> int { let x = 1; x = 2; x }",
    "enum C { R G B }\nfunction f() -> int { let c = C.R; match (c) { C.R => 1 } }",
    "function f() -> int[] { let a = []; a.push(1); a }",
    "function f() -> map<string, int> { let m: map<string, int> = {}; m[\"a\"] = 1; m }",
    # mixed arithmetic, strings, truthiness
    "function f() -> float { 1 + 2.5 }",
    "function f() -> bool { if (1) { true } else { \"\" == \"x\" } }",
    "function f(s: string) -> string { s + `${1}` + s.to_upper_case() }",
    # generics, lambdas, methods
    "function id<T>(x: T) -> T { x }\nfunction f() -> int { id(5) }",
    "class B<T> { v T\n function get(self) -> T { self.v } }\nfunction f() -> int { B<int> { v: 1 }.get() }",
    "function f() -> int { let g = (x: int) -> int { x * 2 }; g(3) }",
    "function f(xs: int[]) -> int[] { xs.map((x) -> int { x + 1 }).filter((x: int) -> bool { x > 1 }) }",
    "class P { x int\n function mk() -> P { P { x: 1 } } }\nfunction f() -> int { P.mk().x }",
    "class P { x int\n y string? }\nfunction f() -> P { P { x: 1 } }",
    "class P { x int\n y int }\nfunction f(p: P) -> P { P { ...p, y: 2 } }",
    # control flow values
    "function f(b: bool) -> int { if (b) { return 1; } else { return 2; } }",
    "function f() -> int { while (true) { return 1; } }",
    "function f() -> int { throw \"x\" }",
    "function f(x: int) -> int { match (x) { 1 => 1, _ => 2 } }",
    "function f(b: bool) -> int { match (b) { true => 1, false => 0 } }",
    "function f() -> void { let x = 1; }",
    "function f() -> int { for (let i = 0; i < 3; i += 1) { if (i == 1) { break; } } 1 }",
    "function f() -> string { let s = \"\"; for (let c in \"abc\") { s += c; } s }",
    "function f() -> int { let x = [1, 2] catch (e) { _ => [3] }; 1 }",
]


@pytest.mark.parametrize("src", ACCEPTED)
def test_accepts(src):
    assert diags_of(src) == []


REJECTED = [
    ("function f() -> int {\n  break;\n  1\n}", "E0010"),
    ("function f() -> int { let g = () -> int { continue; 1 }; 1 }", "E0010"),
    ("function f() -> int { let x: int = \"a\"; 1 }", "E0001"),
    ("function f(x: int?) -> int { x + 1 }", "E0004"),
    ("function f() -> int { 1 < 2.0 }", "E0004"),
    ("function f(x: string) -> int { match (x) { \"a\" => 1 } }", "E0062"),
    ("function f() -> int { let [a] = [1]; a }", "E0111"),
    ("class P { x int }\nfunction f(p: P) -> int { p.y }", "E0007"),
    ("function f() -> int { root.g() }", "E0003"),
    ("function f() -> Nope { 1 }", "E0002"),
]


@pytest.mark.parametrize("src,code", REJECTED)
def test_rejects(src, code):
    assert code in codes(src)


def test_types_annotated():
    idx, diags = compile_files([("main.baml", None,
                                 "function f(a: int, s: string) -> float { let y = a * 2; let t = s + \"x\"; 1.5 }")])
    assert diags == []
    body = idx.functions["user.f"].decl.body
    y, t = body.stmts
    assert T.is_int(y.value.ty) and T.is_string(t.value.ty) and T.is_float(body.tail.ty)
    assert not T.is_int(T.FLOAT) and not T.is_float(T.INT)
    assert not T.is_int(T.optional(T.INT)) and not T.is_string(T.UNKNOWN)


def test_types_basics():
    assert T.widen(T.lit_int(3)) is T.INT
    assert not T.assignable(T.lit_int(3), T.FLOAT)           # int is not a float
    assert T.assignable(T.NULL, T.optional(T.INT))
    assert T.assignable(T.UNKNOWN, T.INT) and T.assignable(T.INT, T.UNKNOWN)
    assert T.show(T.union(T.INT, T.NULL)) == "int | null"


def test_7000_lines_check_clean():
    # (speed is measured side by side in benchmarks/, not asserted here)
    fn = """function f{i}(a: int, b: string?, xs: int[]) -> int {{
  let total = 0;
  for (let x in xs) {{ if (x > a) {{ total += x * 2; }} else {{ total -= 1; }} }}
  let s = b ?? "none";
  let m = {{"k": total, "j": a}};
  if (b == null) {{ return total; }}
  let t = `${{s}}-${{total}}`;
  match (total % 3) {{ 0 => total + m["k"], 1 => s.length(), _ => t.length() + a }}
}}
"""
    text = "".join(fn.format(i=i) for i in range(700))  # 7000 lines
    f, d = parse_file(SourceFile("main.baml", text))
    assert d == []
    idx, d1 = build_index([f])
    assert d1 + check(idx) == []
