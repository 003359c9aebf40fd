"""assay explore on its dev suite (benchmarks/explore): every case it reports replays on the
real engine to the outcome it reported, no infeasible outcome is ever reported, it reaches
the labelled outcomes, its emitted tests pass under `assay test` with the same branch counts,
and it stops within its budget."""
from __future__ import annotations

import copy
import enum
import gc
import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import difflib_baml as dl
import assay
from assay import explore, jsonvalue, mirx

DEV = Path(__file__).resolve().parents[1] / "benchmarks" / "explore"
LABELS = {k: v for k, v in json.loads((DEV / "labels.json").read_text()).items() if not k.startswith("_")}
BUDGET = 3.0


@pytest.fixture(scope="module")
def reports():
    view = mirx.view(assay.load(str(DEV)))
    return view, {fn: explore.run(view, fn, budget=BUDGET) for fn in LABELS}


def outcome_label(case: dict) -> str:
    o = case["outcome"]
    return f"ok:{o['ok']}" if "ok" in o else "panic:" + o["error"]["type"].rsplit(".", 1)[-1]


def test_reaches_the_labelled_outcomes_and_never_an_infeasible_one(reports):
    _, found = reports
    reached = total = 0
    for fn, label in LABELS.items():
        got = {outcome_label(c) for c in found[fn]["cases"]}
        assert not got & set(label.get("never", ())), (fn, got)
        assert got <= set(label["reachable"]), (fn, got - set(label["reachable"]))
        reached += len(got & set(label["reachable"]))
        total += len(label["reachable"])
    assert reached / total >= 0.9, f"{reached}/{total} labelled outcomes"


def engine_args(view, fn: str, args: dict) -> dict:
    """A case's arguments for the engine's Python API, which takes an enum value as a member of
    a Python enum its type map names (as generated SDKs pass them), never as a str: a variant
    name in an enum parameter, and every EnumValue ({"$enum": …}), become such members."""
    out = copy.deepcopy(args)
    for p in view.function(fn).params:
        v = out.get(p.name)
        if isinstance(v, jsonvalue.EnumValue):
            out[p.name] = _engine_member(view, v.enum, str(v))
        elif p.type is not None and p.type.kind == "enum" and isinstance(v, str):
            out[p.name] = _engine_member(view, p.type.qualified_name.removeprefix("user."), v)
    return out


_ENGINE_ENUMS: dict = {}


def _engine_member(view, name: str, variant: str):
    cls = _ENGINE_ENUMS.get(name)
    if cls is None:
        from baml_bridge.typemap import get_type_map

        t = next(e for e in view.enums() if e.qualified_name.removeprefix("user.") == name)
        qual = "XdevEnum_" + name.replace(".", "_")
        cls = _ENGINE_ENUMS[name] = enum.Enum(qual, {v.name: v.name for v in t.variants}, type=str,
                                              module=__name__, qualname=qual)
        get_type_map()._reverse[(__name__, qual)] = "xdev." + name  # the dev suite's namespace there
    return cls[variant]


def test_every_case_replays_on_the_real_engine(reports, engine):
    view, found = reports
    for fn, label in LABELS.items():
        if label.get("engine") is False:
            continue
        for case in found[fn]["cases"]:
            real = engine.call("xdev." + fn, engine_args(view, fn, case["args"]))
            o = case["outcome"]
            if "ok" in o:
                assert (real.kind, real.value) == ("ok", o["ok"]), (fn, case, real.show())
            else:
                assert (real.kind, real.class_name) == ("panic", o["error"]["type"]), (fn, case, real.show())
            assert case["bug"] == (real.kind == "panic")


def test_llm_cases_replay_on_assay_with_their_recorded_answers(reports):
    """Programs around LLM functions: each case's answers, given to a concrete run as the LLM
    client, reach the outcome explore reported (no model is ever asked)."""
    view, found = reports
    for fn in ("LlmTriage", "LlmReply"):
        assert found[fn]["cases"] and all(c["llm"] for c in found[fn]["cases"])
        for case in found[fn]["cases"]:
            answers = {name: list(a) for name, a in case["llm"].items()}
            prog = assay.load(str(DEV), llm=lambda name, prompt, schema: answers[name].pop(0))
            try:
                got = {"ok": prog.call(fn, **copy.deepcopy(case["args"]))}
            except assay.BamlPanic as e:
                got = {"error": e.class_name}
            want = case["outcome"]
            assert got == ({"ok": want["ok"]} if "ok" in want else {"error": want["error"]["type"]}), (fn, case)
            assert all(not a for a in answers.values())  # every recorded answer was used


def test_report_shape_and_verdicts(reports):
    _, found = reports
    r = found["TriangleKind"]
    assert r["verdict"] == "exhausted" and r["bugs"] == 1
    assert set(r) >= {"function", "verdict", "paths", "coverage", "cases", "bugs", "stats"}
    assert set(r["stats"]) >= {"executions", "execute_seconds", "build_seconds", "solver_queries",
                               "solver_seconds", "cache_hits", "unknown"}
    assert r["coverage"]["branches_covered"] == r["coverage"]["branches_total"] > 0
    assert found["Shift"]["verdict"] in ("exhausted", "incomplete")  # a pinned shift count
    assert found["SquareMod"]["verdict"] != "exhausted" or found["SquareMod"]["stats"]["unknown"] == 0


def test_emitted_tests_pass_with_the_same_branch_counts(reports, tmp_path):
    view, found = reports
    project = tmp_path / "proj"
    project.mkdir()
    for f in DEV.glob("*.baml"):
        (project / f.name).write_text(f.read_text())
    fns = ["TriangleKind", "DivByIndex", "RectKind", "OptionalSign", "ArrayMax", "MapGet"]
    (project / "explored_tests.baml").write_text(explore.emit_tests(view, [found[f] for f in fns]))
    r = subprocess.run([sys.executable, "-m", "assay.cli.main", "test", str(project), "--json",
                        "--coverage-json", str(tmp_path / "cov.json")], capture_output=True, text=True, timeout=300)
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and doc["failed"] == 0, r.stdout[-2000:]
    assert doc["passed"] == sum(len(found[f]["cases"]) for f in fns)
    cov = json.loads((tmp_path / "cov.json").read_text())
    functions = {f["name"]: f for file in cov["files"].values() for f in file.get("functions", {}).values()}
    for fn in fns:
        summary = functions[fn]["summary"]
        assert (summary["branches_hit"], summary["branches"]) == \
            (found[fn]["coverage"]["branches_covered"], found[fn]["coverage"]["branches_total"]), fn


NEVER_DONE = """
function Forever(n: int) -> int {
  let i = 0;
  while (i < n) { i += 1; }
  i
}
"""


def test_stops_within_its_budget(tmp_path):
    view = mirx.compile(NEVER_DONE)
    gc.collect()  # late in a full run the heap is large: its collection is no part of the budget
    t0 = time.monotonic()
    r = explore.run(view, "Forever", budget=1.0)
    # the budget bounds the search; setting it up and writing the report come on top (2 s of
    # slack: a loaded 2-core CI machine took 3 s in all)
    assert time.monotonic() - t0 <= 1.0 * 1.1 + 2.0
    assert r["verdict"] == "budget" and r["stats"]["executions"] > 10


def test_cli_exit_codes_json_and_emit(tmp_path):
    src = DEV / "control.baml"
    run = lambda *a: subprocess.run([sys.executable, "-m", "assay.cli.main", "explore", *a],  # noqa: E731
                                    capture_output=True, text=True, timeout=120)
    ok = run(str(src), "Nested", "--budget", "2", "--json")
    doc = json.loads(ok.stdout)
    assert ok.returncode == 0 and doc["function"] == "Nested" and doc["bugs"] == 0
    bug = run(str(src), "Overflow", "--budget", "2")
    assert bug.returncode == 1 and "BUG baml.panics.IntegerOverflow" in bug.stdout
    out = tmp_path / "t.baml"
    out.write_text("keep me")
    refused = run(str(src), "Nested", "--budget", "1", "--emit-tests", str(out))
    assert refused.returncode == 2 and out.read_text() == "keep me" and "--force" in refused.stderr
    forced = run(str(src), "Nested", "--budget", "1", "--emit-tests", str(out), "--force")
    assert forced.returncode == 0 and 'test "Nested #0' in out.read_text()
    every = json.loads(run(str(src), "--budget", "1", "--json").stdout)
    assert {f["function"] for f in every["functions"]} >= {"Nested", "LoopSum", "Infeasible"}
    assert run(str(src), "Nope").returncode == 2


HUGE = """
function Huge(n: int) -> int {
  if (n > 4000000000) {
    let xs = baml.Array.filled(n, 0);
    return xs.length();
  }
  0
}

function Spin(x: int) -> int {
  let y = x;
  while (y != 0) { y = y + 1; }
  1
}
"""


def test_sizes_and_paths_from_solved_values_end_in_a_recorded_limit():
    view = mirx.compile(HUGE)
    huge = explore.run(view, "Huge", budget=5.0)
    assert huge["stats"]["limits"] >= 1 and huge["verdict"] == "incomplete"
    assert [c["outcome"] for c in huge["cases"]] == [{"ok": 0}]  # nothing reported that did not run
    t0 = time.monotonic()
    spin = explore.run(view, "Spin", budget=3.0)  # x < 0 counts up through 2^62 records
    assert time.monotonic() - t0 <= 3.0 * 1.1 + 1.0 + 5.0  # one record-limited run may overrun
    assert spin["stats"]["limits"] >= 1 or spin["verdict"] == "budget"


LOOPS = """
function Stuck(x: int) -> int {
  if (x == 7) {
    let i = 0;
    while (true) { i += 1; }
  }
  0
}
"""


def test_an_infinite_loop_in_the_program_cannot_hang_it():
    view = mirx.compile(LOOPS)
    t0 = time.monotonic()
    r = explore.run(view, "Stuck", budget=2.0)
    assert time.monotonic() - t0 <= 2.0 * 1.1 + 1.0
    assert r["verdict"] == "budget" and [c["outcome"] for c in r["cases"]] == [{"ok": 0}]


UNIONS = """
function Describe(v: int | string | null, mode: "a" | "b") -> string {
  if (v == null) { return "nothing"; }
  if (v is int) {
    if (v > 100) { return "big int"; }
    return "int";
  }
  if (v == "hello" && mode == "b") { return "greeting"; }
  "string"
}
"""


def test_unions_and_literal_unions_are_symbolic_inputs():
    r = explore.run(mirx.compile(UNIONS), "Describe", budget=5.0)
    assert r["verdict"] == "exhausted"
    assert {c["outcome"]["ok"] for c in r["cases"]} == {"nothing", "big int", "int", "greeting", "string"}


RECURSIVE = """
class Node {
  value int
  next Node?
}
function Depth(n: Node) -> string {
  let m = n.next;
  if (m == null) { return "one"; }
  let k = m.next;
  if (k == null) { return "two"; }
  if (k.next == null) { return "three"; }
  "many"
}
"""


def test_recursive_classes_are_bounded_by_max_depth():
    view = mirx.compile(RECURSIVE)
    found = {d: {c["outcome"]["ok"] for c in explore.run(view, "Depth", budget=5.0, max_depth=d)["cases"]}
             for d in (1, 2, 3)}
    assert found == {1: {"one", "two"}, 2: {"one", "two", "three"}, 3: {"one", "two", "three", "many"}}


BIGINTS = """
function Big(x: bigint, n: int) -> string {
  let y = x * 1000000000000n;
  if (y > 99999999999999999999999999n) { return "huge"; }
  if (x + n == 7n) { return "seven"; }
  if (x / 3n == 5n) { return "fifteen-ish"; }
  "small"
}
"""


def test_bigints_are_unbounded_symbolic_inputs():
    r = explore.run(mirx.compile(BIGINTS), "Big", budget=5.0)
    assert r["verdict"] == "exhausted"
    assert {c["outcome"]["ok"] for c in r["cases"]} == {"huge", "seven", "fifteen-ish", "small"}
    huge = next(c for c in r["cases"] if c["outcome"]["ok"] == "huge")
    assert huge["args"]["x"] * 10 ** 12 > 99999999999999999999999999  # past 63 bits, as bigints go


BYTES = """
function Magic(b: uint8array) -> string {
  if (b.length() == 0) { return "empty"; }
  if (b == b"\\x89PNG") { return "png"; }
  if (b[0] == 255 && b[-1] == 0) { return "ff..00"; }
  if (b.length() > 6) { return "long"; }
  "other"
}
function Head(b: uint8array, i: int) -> int {
  if (b[i] == 7) { return 1; }
  0
}
function Store(b: uint8array, v: int) -> string {
  b[0] = v;
  if (b == b"A") { return "A"; }
  "no"
}
function Utf(s: string) -> string {
  if (s.to_utf8().slice(-2, 9) == b"yz") { return "yz"; }
  "no"
}
"""


def test_byte_strings_are_symbolic_inputs_and_replay_through_run_args(tmp_path):
    """uint8array inputs: symbolic length (to --max-len) and contents; equality, indexing from
    either end, a store, slice and to_utf8 are modelled; cases hold `bytes` (as the engine's
    Python API takes them) and run unchanged through `assay run --args` as {"$bytes": base64}."""
    from click.testing import CliRunner

    from assay import jsonvalue
    from assay.cli import main as climain

    view = mirx.compile(BYTES)
    want = {"Magic": {"ok:empty", "ok:png", "ok:ff..00", "ok:long", "ok:other"},
            "Store": {"ok:A", "ok:no", "panic:IndexOutOfBounds"}, "Utf": {"ok:yz", "ok:no"},
            "Head": {"ok:1", "ok:0", "panic:IndexOutOfBounds"}}
    src = tmp_path / "b.baml"
    src.write_text(BYTES)
    for fn, labels in want.items():
        r = explore.run(view, fn, budget=8.0, max_len=7)
        assert r["verdict"] == "exhausted" and {outcome_label(c) for c in r["cases"]} == labels, (fn, r["cases"])
        for case in r["cases"]:
            assert all(len(v) <= 7 for v in case["args"].values() if isinstance(v, bytes))
            out = CliRunner().invoke(climain.cli, ["run", str(src), fn, "--args", jsonvalue.dumps(case["args"]), "--json"])
            doc = jsonvalue.loads(out.stdout)
            got = f"ok:{doc['result']}" if "result" in doc else "panic:" + doc["error"]["type"].rsplit(".", 1)[-1]
            assert got == outcome_label(case), (fn, case, out.stdout)
    magic = explore.run(view, "Magic", budget=8.0)
    png = next(c for c in magic["cases"] if c["outcome"] == {"ok": "png"})
    assert png["args"] == {"b": b"\x89PNG"}
    assert 'Magic(b"\\x89PNG")' in explore.emit_tests(view, [magic])


GENERICS = """
interface Sized { function size(self) -> int throws never }
class Shape { w int h int  implements Sized { function size(self) -> int { self.w + self.h } } }
enum Color { Red Green }
interface Tinted { function green(self) -> bool throws never }
implements Tinted for Color { function green(self) -> bool { self == Color.Green } }
function Area<T extends Sized>(s: T) -> string { if (s.size() > 12) { "big" } else { "small" } }
function Col<T extends Tinted>(c: T) -> string { if (c.green()) { "green" } else { "other" } }
function Mx<T extends baml.ops.Compare>(a: T, b: T) -> T { if (a > b) { a } else { b } }
function First<T>(xs: T[]) -> T { xs[0] }
interface Lonely { function f(self) -> int throws never }
function Odd<T extends Lonely>(x: T) -> int { 1 }
"""


def test_generic_functions_are_explored_at_their_bounds(tmp_path):
    """A type parameter bounded by an interface one class or enum implements is that type (every
    outcome: exhausted); one
    bounded by builtin interfaces, or unbounded, is int — one of several possible types, so at
    most incomplete; an interface no known type implements is a skip with its reason. The
    emitted tests call the function with values of the instantiation and pass."""
    view = mirx.compile(GENERICS)
    runs = {fn: explore.run(view, fn, budget=4.0) for fn in ("Area", "Col", "Mx", "First", "Odd")}
    area, col = runs["Area"], runs["Col"]
    assert area["instantiation"] == {"T": "Shape"} and area["verdict"] == "exhausted"
    assert {outcome_label(c) for c in area["cases"]} == {"ok:big", "ok:small", "panic:IntegerOverflow"}
    assert col["instantiation"] == {"T": "Color"} and {c["outcome"]["ok"] for c in col["cases"]} == {"green", "other"}
    assert runs["Mx"]["instantiation"] == {"T": "int"} and runs["Mx"]["verdict"] == "incomplete"
    assert {outcome_label(c) for c in runs["First"]["cases"]} == {"ok:0", "panic:IndexOutOfBounds"}
    assert runs["Odd"]["verdict"] == "skipped" and "Lonely" in runs["Odd"]["reason"], runs["Odd"]
    project = tmp_path / "proj"
    project.mkdir()
    (project / "main.baml").write_text(GENERICS.replace("function Odd", "function Unused"))
    (project / "explored.baml").write_text(explore.emit_tests(view, [runs[f] for f in ("Area", "Col", "Mx")]))
    r = subprocess.run([sys.executable, "-m", "assay.cli.main", "test", str(project), "--json"],
                       capture_output=True, text=True, timeout=300)
    doc = json.loads(r.stdout)
    assert doc["failed"] == 0 and doc["passed"] == sum(len(runs[f]["cases"]) for f in ("Area", "Col", "Mx")), r.stdout[-2000:]


ENUM_OR_STRING = """
enum Tone { Warm Cool }
function First(t: Tone | string) -> string {
  if (t is string) { if (t == "Warm") { return "the word"; } return "a word"; }
  if (t == Tone.Cool) { "cool" } else { "warm" }
}
function Second(t: string | Tone) -> string {
  if (t is string) { if (t == "Warm") { return "the word"; } return "a word"; }
  if (t == Tone.Cool) { "cool" } else { "warm" }
}
"""


def test_an_enum_member_of_a_union_with_string_is_chosen_through_its_tag(tmp_path):
    """`Tone | string` in either order: a str is the string member (as the engine binds it), an
    enum member is written {"$enum": "Tone.Warm"} (an EnumValue), so every outcome is reached
    and each case runs unchanged through `assay run --args`; emitted tests write `Tone.Warm`."""
    from click.testing import CliRunner

    from assay.cli import main as climain

    view = mirx.compile(ENUM_OR_STRING)
    src = tmp_path / "u.baml"
    src.write_text(ENUM_OR_STRING)
    for fn in ("First", "Second"):
        r = explore.run(view, fn, budget=5.0)
        assert {c["outcome"]["ok"] for c in r["cases"]} == {"the word", "a word", "cool", "warm"}, fn
        warm = next(c for c in r["cases"] if c["outcome"]["ok"] == "warm")
        assert warm["args"]["t"] == "Warm" and warm["args"]["t"].enum == "Tone"
        assert jsonvalue.dumps(warm["args"], indent=None) == '{"t": {"$enum": "Tone.Warm"}}'
        for case in r["cases"]:
            out = CliRunner().invoke(climain.cli, ["run", str(src), fn, "--args", jsonvalue.dumps(case["args"])])
            assert json.loads(out.stdout) == case["outcome"]["ok"], (fn, case)
        assert f"{fn}(Tone.Warm)" in explore.emit_tests(view, [r])


INTERFACES = """
interface Shape {
  function area(self) -> int throws never
  function perimeter(self) -> int throws never
}
class Sq {
  s: int
  implements Shape {
    function area(self) -> int { self.s * self.s }
    function perimeter(self) -> int { 4 * self.s }
  }
}
class Rect {
  w: int
  h: int
  implements Shape {
    function area(self) -> int { self.w * self.h }
    function perimeter(self) -> int { 2 * (self.w + self.h) }
  }
}

function Classify(x: Shape) -> string {
  if (x.area() > 100) { return "big" }
  match (x) {
    let q: Sq => if (q.s == 7) { "seven" } else { "square" },
    _ => "rect"
  }
}

function Larger<T extends Shape>(a: T, b: T) -> string {
  if (a.perimeter() > b.perimeter()) { "first" } else { "second" }
}
"""


def test_interface_inputs_are_any_implementing_type(tmp_path):
    """A parameter of interface type is any implementing class (a tag picks it; its fields stay
    symbolic through the dispatcher that calls its method); a type parameter bounded by the
    interface takes its first implementing class. Emitted tests name each case's class."""
    view = mirx.compile(INTERFACES)
    r = explore.run(view, "Classify", budget=8.0)
    assert {"ok:big", "ok:seven", "ok:square", "ok:rect"} <= {outcome_label(c) for c in r["cases"]}
    (tmp_path / "main.baml").write_text(INTERFACES)
    (tmp_path / "explored.baml").write_text(explore.emit_tests(view, [r]))
    run = subprocess.run([sys.executable, "-m", "assay.cli.main", "test", str(tmp_path), "--json"],
                         capture_output=True, text=True, timeout=300)
    doc = json.loads(run.stdout)
    assert doc["failed"] == 0 and doc["passed"] == len(r["cases"]), run.stdout[-2000:]
    larger = explore.run(view, "Larger", budget=5.0)
    assert larger["instantiation"] == {"T": "Sq"}
    assert {"ok:first", "ok:second"} <= {outcome_label(c) for c in larger["cases"]}
