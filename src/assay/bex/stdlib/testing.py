"""`testing`: testsets and their runners, as 0.23.0's `testing` package runs them.

A testset's body runs when it is collected: the parser turns each `test`/`testset` in it into
`testing.$register_test[_set](name, () -> void { body }, runner)`, which records the body with
the collector of the testset being expanded (the engine's `TestCollector`). `expand` then
expands every testset and `run_node` runs the tree as the engine's `TestRegistry` does: a
leaf through its `TestRunner` (a function `(TestReportThunk) -> TestReportThunk`: `Retry`,
`Quorum`, or a user's), a testset's children, as `TestSetChild` values, through its
`TestSetRunner` (`(TestSetChild[]) -> TestSetReport`: `PassRate`, `Sequential`, `FailFast`, a
user's; none: all of them), a testset that fails to expand (or whose runner throws) as the
engine's error report. `leaves` flattens the root report as `run_filtered` does. Ids are
`set::child` (the engine prefixes `root[.ns]::`).
"""
from __future__ import annotations

import re
import weakref

from .. import errctx
from ..ops import BUILTIN_CLASSES, panic
from ..values import BamlRaise, ClassInfo, typed_list, typed_map
from ._registry import function

# the report classes runners pass around (the engine's testing/types.baml); a `TestRunner` is
# a function `(TestReportThunk) -> TestReportThunk`, a `TestSetRunner` `(TestSetChild[]) ->
# TestSetReport`: the built-in ones are Python closures, a user's a BAML function
for _fqn, _fields in {"testing.RunReport": "outcome duration_ms message", "testing.TestReport": "outcome runs",
                      "testing.TestSetReport": "outcome passed failed total failed_names results result_names",
                      "testing.TestSetChild": "name run is_container"}.items():
    BUILTIN_CLASSES[_fqn] = ClassInfo(_fqn, _fqn.rpartition(".")[2], _fields.split())
del _fqn, _fields
_RUN, _TEST, _SET, _CHILD = (BUILTIN_CLASSES[f"testing.{c}"].new
                             for c in ("RunReport", "TestReport", "TestSetReport", "TestSetChild"))
_SET_CLASS = BUILTIN_CLASSES["testing.TestSetReport"].py


# the function types of what the runners build (the engine's lambdas), as reflection shows them
_NEVER = ("prim", "never")
_REPORT_D, _SET_D = ("class", "testing.TestReport", ()), ("class", "testing.TestSetReport", ())
_THUNK_D = ("fn", (), _REPORT_D, _NEVER)
_TEST_RUNNER_D = ("fn", (("run_once", _THUNK_D, False),), _THUNK_D, _NEVER)
_SET_RUNNER_D = ("fn", (("children", ("array", ("class", "testing.TestSetChild", ())), False),), _SET_D, _NEVER)
_CHILD_THUNK_D = ("fn", (), ("union", (_REPORT_D, _SET_D)), _NEVER)


# the element types the report arrays record (`reflect.Type.of_value(report.failed_names)` is a
# `string[]` when empty too), as the engine's declared fields give them
_STR, _INT, _RUN_T = ("string",), ("int",), ("class", "testing.RunReport")
_CHILD_T = ("union", (("class", "testing.TestReport"), ("class", "testing.TestSetReport")))


def _strs(xs) -> list:
    return typed_list(xs, _STR)


def _child_reports(xs) -> list:
    return typed_list(xs, _CHILD_T)


def _runs(xs) -> list:
    return typed_list(xs, _RUN_T)


def _typed(fn, sig: tuple, captures: int = 0):
    """`fn` with the signature reflection reads (`reflect.Type.of_value(testing.Sequential())`)
    and the captures the engine's lambda has (rendered `<closure captures=1>`)."""
    fn.baml_sig, fn.baml_captures = sig, captures
    return fn


class InvalidTestName(Exception):
    """A name holding the reserved separator `::`: the engine stops the whole run."""


class Collector:
    """The tests and testsets one testset body (or the top level) registers."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.tests: list[tuple[str, object, object]] = []  # (id, body, runner)
        self.sets: list[tuple[str, object, object]] = []

    def add(self, name: str, body, runner, is_set: bool) -> None:
        if "::" in name:
            kind = "testset" if is_set else "test"
            raise InvalidTestName(f"{kind} name may not contain reserved separator `::`: {name}")
        full = f"{self.prefix}::{name}" if self.prefix else name
        entries = self.sets if is_set else self.tests
        dup = re.compile(re.escape(full) + r"(#\d+)?")  # a repeated name gets `#2`, `#3`, …
        count = sum(1 for e in entries if dup.fullmatch(e[0]))
        entries.append((f"{full}#{count + 1}" if count else full, body, runner))


_COLLECTING: list[Collector] = []  # innermost last: the testset whose body is running


def collect(prefix: str, body, run_body) -> tuple[Collector, dict | None]:
    """Run a testset's body, gathering what it registers (and the error it stopped with)."""
    c = Collector(prefix)
    _COLLECTING.append(c)
    try:
        return c, run_body(body, prefix)
    finally:
        _COLLECTING.pop()


class TopLevel:
    """The run of one top-level test or testset: its registration (the body of its test
    function) runs it at once, within the same call, and leaves the report here."""

    def __init__(self, run_body, describe, selected=None):
        self.run_body, self.describe, self.selected = run_body, describe, selected  # describe(BamlRaise)
        self.report = None  # the root's TestSetReport
        self.names: list[str] = []  # the selected leaf ids (the engine's `selected_names`)
        self.errors: dict[int, tuple] = {}  # id(RunReport or TestSetReport) → (it, its error document)
        self.busy = False


_TOP: list[TopLevel] = []


def run_top(top: TopLevel, call):
    """`call()` runs the top-level registration, which runs the test or testset into `top`."""
    _TOP.append(top)
    try:
        call()
    finally:
        _TOP.pop()
    return top.report


def _register(name, body, runner, is_set: bool):
    if _COLLECTING:
        _COLLECTING[-1].add(name, body, runner, is_set)
        return
    if not _TOP:  # called as a plain function (`reflect.Package.tests()`): a test's body runs once
        if not is_set:
            body()
        return
    top = _TOP[-1]  # a top-level declaration: register it alone, and run it
    if top.busy:  # a testset in a test's body, run after collection: nothing collects it
        return
    top.busy = True
    c = Collector("")
    c.add(name, body, runner, is_set)
    root = expand(c, "", None, top.run_body)
    top.names = selected_names(root, top.selected)
    top.report = run_node(root, top)


@function("testing.$register_test")
def register_test(name, body, runner):
    _register(name, body, runner, False)


@function("testing.$register_test_set")
def register_test_set(name, body, runner):
    _register(name, body, runner, True)


# ── the built-in runners (the engine's testing/runners.baml) ──


@function("testing.Retry")
def retry(max_attempts):
    if max_attempts <= 0:
        panic("baml.panics.UserPanic", message="testing.Retry requires max_attempts > 0")

    def runner(run_once):
        def run():
            runs, passed = [], False
            for _ in range(max_attempts):
                report = run_once()
                runs += report.f_runs
                if report.f_outcome == "pass":
                    passed = True
                    break
            return _TEST("pass" if passed else "fail", _runs(runs))
        return _typed(run, _THUNK_D, 2)  # run_once, max_attempts
    return _typed(runner, _TEST_RUNNER_D, 1)


@function("testing.Quorum")
def quorum(n, m):
    if n <= 0:
        panic("baml.panics.UserPanic", message="testing.Quorum requires n > 0")
    if m < 0 or m > n:
        panic("baml.panics.UserPanic", message="testing.Quorum requires 0 <= m <= n")

    def runner(run_once):
        def run():
            runs, passes = [], 0
            for _ in range(n):  # every run happens, even once m passes are in hand
                report = run_once()
                runs += report.f_runs
                passes += report.f_outcome == "pass"
            return _TEST("pass" if passes >= m else "fail", _runs(runs))
        return _typed(run, _THUNK_D, 3)  # run_once, n, m
    return _typed(runner, _TEST_RUNNER_D, 2)


@function("testing.PassRate")
def pass_rate(threshold):
    if threshold < 0.0 or threshold > 1.0:
        panic("baml.panics.UserPanic", message="testing.PassRate requires 0.0 <= threshold <= 1.0")

    def runner(children):
        r = run_children(children)
        ok = r.f_total == 0 or r.f_passed / r.f_total >= threshold
        r.f_outcome = "pass" if ok else "fail"
        return r
    return _typed(runner, _SET_RUNNER_D, 1)


@function("testing.Sequential")
def sequential():
    return _typed(lambda children: run_children(children), _SET_RUNNER_D)  # Assay runs one at a time anyway


@function("testing.FailFast")
def fail_fast():
    return _typed(lambda children: run_children(children, stop_at_failure=True), _SET_RUNNER_D)


# ── the run ──


def run_children(children, stop_at_failure: bool = False):
    """Run the children in order into their aggregate (the engine's `_aggregate_reports`)."""
    named = []
    for child in children:
        report = child.f_run()
        named.append((child.f_name, report))
        if stop_at_failure and report.f_outcome != "pass":
            break
    return aggregate(named)


def aggregate(named: list):
    """(name, report) pairs into a TestSetReport: "error" if one errored, else "pass" iff all
    passed; a failing testset child contributes its own failed names."""
    passed = failed = 0
    error = False
    failed_names = []
    for name, r in named:
        if r.f_outcome == "pass":
            passed += 1
            continue
        failed += 1
        inner = r.f_failed_names if isinstance(r, _SET_CLASS) else None
        failed_names += inner if inner else [name]
        error = error or r.f_outcome == "error"
    outcome = "error" if error else "pass" if failed == 0 else "fail"
    return _SET(outcome, passed, failed, len(named), _strs(failed_names), _child_reports([r for _, r in named]),
                _strs([n for n, _ in named]))


class Node:
    """An expanded testset: what its body registered (its testsets expanded too), or the
    error its body stopped with."""
    __slots__ = ("name", "runner", "tests", "sets", "error")

    def __init__(self, name: str, runner, tests: list, sets: list, error: dict | None):
        self.name, self.runner, self.tests, self.sets, self.error = name, runner, tests, sets, error


def expand(c: Collector, name: str, runner, run_body, error=None) -> Node:
    """The tree under what `c` collected, every testset in it expanded (as the engine's run
    does first, to know the ids it selects from)."""
    sets = []
    if error is None:
        for n, b, r in c.sets:
            sub, err = collect(n, b, run_body)
            sets.append(expand(sub, n, r, run_body, err))
    return Node(name, runner, c.tests, sets, error)


def _failed_to_expand(node: Node) -> str:
    return f"{node.name}::(failed to expand)"


def selected_names(node: Node, selected) -> list[str]:
    """The selected leaf ids under an expanded testset, in the engine's order (its tests, then
    its testsets'); a testset that failed to expand counts as one leaf."""
    if node.error is not None:
        names = [_failed_to_expand(node)]
    else:
        names = [t[0] for t in node.tests]
        for sub in node.sets:
            names += selected_names(sub, selected)
    return names if selected is None else [n for n in names if selected(n)]


def run_node(node: Node, top: TopLevel):
    """Run an expanded testset: its selected tests, then its testsets holding a selected leaf
    (the engine's order), as TestSetChild values through its runner (none: all in order)."""
    every = top.selected is None  # unfiltered, every testset is a child (an empty one too)
    children = []
    for name, tbody, trunner in node.tests:
        if every or name in top.names:
            children.append(_CHILD(name, lambda n=name, b=tbody, r=trunner: run_leaf(n, b, r, top), False))
    for sub in node.sets:
        prefix = sub.name + "::"
        if every or any(n.startswith(prefix) for n in top.names):
            children.append(_CHILD(sub.name, lambda n=sub: run_set(n, top), True))
    if node.runner is None:
        return run_children(children)
    return node.runner(children)


def run_set(node: Node, top: TopLevel):
    """A testset child's run: a testset that fails to expand, or whose runner throws, is the
    engine's error report (one failed child, no results)."""
    try:
        if node.error is not None:
            raise _Expansion(node.error)
        return run_node(node, top)
    except (BamlRaise, _Expansion) as e:
        r = _SET("error", 0, 1, 1, _strs([f"{node.name}::(testset error)"]), _child_reports([]), _strs([]))
        top.errors[id(r)] = (r, e.doc if isinstance(e, _Expansion) else top.describe(e))
        return r


class _Expansion(Exception):
    def __init__(self, doc):
        self.doc = doc


def run_leaf(name: str, body, runner, top: TopLevel):
    """A test child's run: its body once (a RunReport), or through its runner; a runner that
    throws fails the test (the engine's "test runner middleware failed")."""
    def base_run():
        error = top.run_body(body, name)
        run = _RUN("pass" if error is None else "fail", 0, None if error is None else error.get("message"))
        if error is not None:
            top.errors[id(run)] = (run, error)
        return _TEST(run.f_outcome, _runs([run]))
    if runner is None:
        return base_run()
    try:
        return runner(_typed(base_run, _THUNK_D, 2))()
    except BamlRaise as e:
        doc = top.describe(e)
        run = _RUN("fail", 0, "test runner middleware failed: " + str(doc.get("message")))
        top.errors[id(run)] = (run, doc)
        return _TEST("fail", _runs([run]))


# ── the flat report (the engine's `_flatten_with_tolerated`): every leaf passed, failed or
#    tolerated (failed inside a testset whose runner passed all the same) ──


def leaves(top: TopLevel):
    """(id, passed, tolerated, error) of every leaf identified, as the engine's flat report
    names them: from the reports' `result_names` where they account for the counts, else by
    matching the selected ids against the failed names (a user runner's own report)."""
    report = top.report
    tol = report.f_outcome == "pass"
    counts = _count(report.f_results, tol) if report.f_results else (
        (report.f_passed, 0, report.f_failed) if tol else (report.f_passed, report.f_failed, 0))
    out: list = []
    _identities(report, tol, top, out)
    got = tuple(sum(1 for o in out if o[1] == k) for k in ("pass", "fail", "tolerated"))
    if got != counts:
        if len(top.names) != sum(counts):
            return  # a runner ran part of the selection without naming it: no identities
        hard, every = report.f_failed_names, []
        _all_failed(report, every)
        failed = {"type": "testing.TestSetReport", "message": "named failed by its testset's report",
                  "fields": {}}
        out = [(n, "fail" if _matches(n, hard) else "tolerated", failed) if _matches(n, every)
               else (n, "pass", None) for n in top.names]
    for name, status, error in out:
        yield name, status == "pass", status == "tolerated", error


def _count(results, tol: bool) -> tuple:
    p = f = t = 0
    for r in results:
        if not isinstance(r, _SET_CLASS):
            d = (1, 0, 0) if r.f_outcome == "pass" else (0, 0, 1) if tol else (0, 1, 0)
        else:
            ft = tol or r.f_outcome == "pass"
            d = _count(r.f_results, ft) if r.f_results else (
                (r.f_passed, 0, r.f_failed) if ft else (r.f_passed, r.f_failed, 0))
        p, f, t = p + d[0], f + d[1], t + d[2]
    return p, f, t


def _identities(report, tol: bool, top: TopLevel, out: list) -> None:
    names = report.f_result_names
    if names is None:
        return
    for name, r in zip(names, report.f_results):
        if not isinstance(r, _SET_CLASS):
            status = "pass" if r.f_outcome == "pass" else "tolerated" if tol else "fail"
            out.append((name, status, _leaf_error(r, top)))
            continue
        ft = tol or r.f_outcome == "pass"
        if r.f_results:
            _identities(r, ft, top, out)
        elif r.f_failed > 0:
            sentinel = name + "::(failed to expand)"
            ident = sentinel if sentinel in top.names else (
                r.f_failed_names[0] if r.f_failed_names else name + "::(testset error)")
            err = top.errors.get(id(r), (None, None))[1]
            out.append((ident, "tolerated" if ft else "fail", err))


def _leaf_error(r, top: TopLevel):
    """A failing leaf's error document: its last failing run's (or one made of its message)."""
    if r.f_outcome == "pass":
        return None
    for run in reversed(r.f_runs):
        if id(run) in top.errors:
            return top.errors[id(run)][1]
        if run.f_outcome != "pass":
            return {"type": "testing.RunReport", "message": run.f_message or "", "fields": {}}
    return {"type": "testing.TestReport", "message": f"outcome {r.f_outcome}", "fields": {}}


def _all_failed(report, out: list) -> None:
    for n in report.f_failed_names:
        if n not in out:
            out.append(n)
    for r in report.f_results:
        if isinstance(r, _SET_CLASS):
            _all_failed(r, out)


def _matches(name: str, failed: list) -> bool:
    if name in failed:
        return True
    suffix = "::(failed to expand)"
    if name.endswith(suffix):
        prefix = name[:-len(suffix)] + "::"
        return any(f.startswith(prefix) for f in failed)
    return False


# ── the registry as values (the engine's testing/registry.baml): a program may build a
#    `TestCollector`, register tests and testsets with it, and run them through a
#    `TestRegistry`, as the engine's test driver does with the collector of a project ──

for _fqn, _fields in {"testing.TestRegistration": "name body runner",
                      "testing.TestSetRegistration": "name collector runner",
                      "testing.InvalidTestName": "message",
                      "testing.TestCollector": "prefix tests testsets",
                      "testing.TestRegistry": "collector expansions loading_time_ms",
                      "testing.SerializedTest": "type name",
                      "testing.SerializedTestSet": "name items loadingTimeMs",
                      "testing.FlatTestReport": "outcome passed failed tolerated total passed_names failed_names "
                                                "tolerated_names passed_ms failed_ms tolerated_ms messages"}.items():
    BUILTIN_CLASSES[_fqn] = ClassInfo(_fqn, _fqn.rpartition(".")[2], _fields.split())
del _fqn, _fields
_REG, _SETREG, _BADNAME, _COLL, _REGISTRY, _STEST, _SSET, _FLAT = (BUILTIN_CLASSES[f"testing.{c}"] for c in (
    "TestRegistration", "TestSetRegistration", "InvalidTestName", "TestCollector", "TestRegistry",
    "SerializedTest", "SerializedTestSet", "FlatTestReport"))

RUNTIMES: weakref.WeakSet = weakref.WeakSet()  # the runtimes (vm.Runtime), to name a failing body's frames


def _context_text(e: BamlRaise) -> str:
    """`ctx.to_string()` of an error a test body stopped with: the frames it passed through
    (the body runs on a fresh stack in the engine: none of its callers)."""
    errctx.caught(e)
    codes = set()
    tb = e.__traceback__
    while tb is not None:
        codes.add(tb.tb_frame.f_code)
        tb = tb.tb_next
    frames = []
    for rt in list(RUNTIMES):
        if any(c in rt.trace_lines for c in codes):
            frames = [(rt.frame_name(fqn), rt.frame_files.get(file, file), line)
                      for fqn, file, line in errctx.baml_traceback(rt, e)]
            break
    return errctx.make_context(e.value, e.cause, frames).m_to_string()


def _collector_new(prefix):
    return _COLL.new(prefix, typed_list([], ("class", "testing.TestRegistration")),
                     typed_list([], ("class", "testing.TestSetRegistration")))


def _registry_new(collector):
    return _REGISTRY.new(collector, typed_map({}, (_STR, ("class", "testing.TestRegistry"))), 0)


def _name_count(entries, full: str) -> int:
    """How many registered names count as `full` (itself, or it with a `#n` suffix)."""
    dup = re.compile(re.escape(full) + r"(#\d+)?")
    return sum(1 for r in entries if dup.fullmatch(r.f_name))


def _add(self, name, body, runner, is_set: bool) -> None:
    if "::" in name:
        kind = "testset" if is_set else "test"
        raise BamlRaise(_BADNAME.new(f"{kind} name may not contain reserved separator `::`: {name}"))
    full = name if self.f_prefix == "" else f"{self.f_prefix}::{name}"
    entries = self.f_testsets if is_set else self.f_tests
    count = _name_count(entries, full)
    final = f"{full}#{count + 1}" if count else full
    entries.append((_SETREG if is_set else _REG).new(final, body, runner))


def _add_at(self, owner, name, body, runner, is_set: bool) -> None:
    _add(_COLL.new(owner, self.f_tests, self.f_testsets), name, body, runner, is_set)


def _find(entries, name: str, what: str):
    for r in entries:
        if r.f_name == name:
            return r
    raise BamlRaise(f"{what} not found: {name}")


_C = _COLL.py
_C.m_register_test = lambda self, name, body, runner: _add(self, name, body, runner, False)
_C.m_register_test_set = lambda self, name, body, runner: _add(self, name, body, runner, True)
_C.m_register_test_at = lambda self, owner, name, body, runner: _add_at(self, owner, name, body, runner, False)
_C.m_register_test_set_at = lambda self, owner, name, body, runner: _add_at(self, owner, name, body, runner, True)
_C.m__find_test = lambda self, name: _find(self.f_tests, name, "Test")
_C.m__find_testset = lambda self, name: _find(self.f_testsets, name, "TestSet")


@function("testing.TestCollector.new")
def test_collector_new(prefix):
    return _collector_new(prefix)


@function("testing.TestRegistry.new")
def test_registry_new(collector):
    return _registry_new(collector)


def _expanded(self, ts):
    """The registry of testset `ts`, its collector run once (and kept)."""
    sub = self.f_expansions.get(ts.f_name)
    if sub is None:
        c = _collector_new(ts.f_name)
        ts.f_collector(c)
        sub = self.f_expansions[ts.f_name] = _registry_new(c)
    return sub


def _serialize(self) -> list:
    items = typed_list([_STEST.new("test", t.f_name) for t in self.f_collector.f_tests],
                       ("union", (("class", "testing.SerializedTest"), ("class", "testing.SerializedTestSet"))))
    for ts in self.f_collector.f_testsets:
        sub = self.f_expansions.get(ts.f_name)
        items.append(_STEST.new("lazyTestSet", ts.f_name) if sub is None
                     else _SSET.new(ts.f_name, _serialize(sub), sub.f_loading_time_ms))
    return items


def _within(self, name: str):
    """The expanded sub-registry whose testset holds `name` (the first, as the engine looks)."""
    for k, sub in self.f_expansions.items():
        if name.startswith(k + "::"):
            return sub
    return None


def _run_test_named(self, name: str):
    for t in self.f_collector.f_tests:
        if t.f_name == name:
            return run_test(t.f_body, t.f_runner)
    sub = _within(self, name)
    if sub is None:
        raise BamlRaise(f"Test not found: {name}")
    return _run_test_named(sub, name)


def _run_testset_named(self, name: str):
    for ts in self.f_collector.f_testsets:
        if ts.f_name == name:
            return _run_set(_children(_expanded(self, ts), None), ts.f_runner)
    sub = _within(self, name)
    if sub is None:
        raise BamlRaise(f"TestSet not found: {name}")
    return _run_testset_named(sub, name)


def _expand_set(self, name: str) -> list:
    for ts in self.f_collector.f_testsets:
        if ts.f_name == name:
            _expanded(self, ts)
            return _serialize(self)
    sub = _within(self, name)
    if sub is None:
        raise BamlRaise(f"TestSet not found for expansion: {name}")
    return _expand_set(sub, name)


def run_test(body, runner):
    """One leaf (the engine's `_run_test`): its body once as a RunReport, through its runner."""
    def base_run():
        try:
            body()
            run = _RUN("pass", 0, None)
        except BamlRaise as e:
            v = e.value
            fqn = v._class.fqn if e.panic and hasattr(v, "_class") else None
            msg = v.f_message if fqn in ("baml.panics.UserPanic", "baml.panics.AssertionFailed") else _context_text(e)
            run = _RUN("fail", 0, msg)
        return _TEST(run.f_outcome, _runs([run]))
    if runner is None:
        return base_run()
    try:
        return runner(_typed(base_run, _THUNK_D, 2))()
    except BamlRaise as e:
        if e.panic:  # the engine's `_ =>` arm catches no panic: it goes on up
            raise
        return _TEST("fail", _runs([_RUN("fail", 0, "test runner middleware failed: " + _context_text(e))]))


def _children(reg, names) -> list:
    """The TestSetChild values of a registry (`names`: only the selected leaves, and the
    testsets holding one)."""
    out = []
    for t in reg.f_collector.f_tests:
        if names is None or t.f_name in names:
            out.append(_CHILD(t.f_name, _typed(lambda b=t.f_body, r=t.f_runner: run_test(b, r), _CHILD_THUNK_D, 3), False))
    for ts in reg.f_collector.f_testsets:
        prefix = ts.f_name + "::"
        if names is None or any(n.startswith(prefix) for n in names):
            out.append(_CHILD(ts.f_name, _typed(lambda ts=ts: _run_child_set(reg, ts, names), _CHILD_THUNK_D,
                                              3 if names is None else 4), True))
    return out


def _run_child_set(reg, ts, names):
    try:
        return _run_set(_children(_expanded(reg, ts), names), ts.f_runner)
    except BamlRaise:  # it failed to expand, or its runner threw: one error, no results
        return _SET("error", 0, 1, 1, _strs([ts.f_name + "::(testset error)"]), _child_reports([]), _strs([]))


def _run_set(children, runner):
    return run_children(children) if runner is None else runner(children)


# ── selection (the engine's CLI filters: profile and CLI layers of include/exclude
#    selectors over canonical ids) ──


@function("testing._glob_match")
def glob_match(subject: str, pattern: str) -> bool:
    """A selector without `*` is a substring; with one, an anchored glob (`*`: any run)."""
    parts = pattern.split("*")
    if len(parts) == 1:
        return pattern in subject
    first, last = parts[0], parts[-1]
    if not (subject.startswith(first) and subject.endswith(last)):
        return False
    pos, end = len(first), len(subject) - len(last)
    if pos > end:
        return False
    for part in parts[1:-1]:
        if part:
            i = subject.find(part, pos, end)
            if i < 0:
                return False
            pos = i + len(part)
    return True


@function("testing._leaf_selected")
def _selected(name: str, include, exclude) -> bool:
    """Exclusion wins; with includes, only an included id is selected."""
    if any(glob_match(name, p) for p in exclude):
        return False
    return not include or any(glob_match(name, p) for p in include)


@function("testing._subtree_excluded")
def _subtree_excluded(prefix: str, exclude) -> bool:
    """Does an exclusion provably cover every id under testset `prefix`?"""
    under = prefix + "::"
    return any("*" not in p and p in under or p.endswith("*") and glob_match(under, p) for p in exclude)


@function("testing._pattern_may_match_descendant")
def _may_match_below(pattern: str, prefix: str) -> bool:
    """Could an include selector match an id under `prefix` (a glob's literal head fits)?"""
    under, star = prefix + "::", pattern.find("*")
    return star < 0 or under.startswith(pattern[:star]) or pattern[:star].startswith(under)


@function("testing._subtree_may_be_selected")
def _may_hold_selected(prefix: str, include, exclude) -> bool:
    """Whether a testset's subtree can hold a selected leaf (else its body never runs)."""
    if _subtree_excluded(prefix, exclude):
        return False
    return not include or any(_may_match_below(p, prefix) for p in include)


def _select(reg, layers) -> list:
    """The selected leaf ids, expanding only the testsets that may hold one (a testset that
    fails to expand: its `(failed to expand)` sentinel, where selected)."""
    out = _strs([t.f_name for t in reg.f_collector.f_tests if all(_selected(t.f_name, i, x) for i, x in layers)])
    for ts in reg.f_collector.f_testsets:
        if not all(_may_hold_selected(ts.f_name, i, x) for i, x in layers):
            continue
        try:
            out += _select(_expanded(reg, ts), layers)
        except BamlRaise as e:
            if type(e.value) is _BADNAME.py:  # a structural error: the whole selection stops
                raise
            sentinel = ts.f_name + "::(failed to expand)"
            if all(_selected(sentinel, i, x) for i, x in layers):
                out.append(sentinel)
    return out


def _run_filtered(self, profile_include, profile_exclude, cli_include, cli_exclude, max_concurrency, timeout_ms):
    layers = ((profile_include, profile_exclude), (cli_include, cli_exclude))
    names = _select(self, layers)
    unfiltered = not (profile_include or profile_exclude or cli_include or cli_exclude)
    report = _run_set(_children(self, None if unfiltered else names), None)
    return flatten(report, names)


# ── the flat report (the engine's `_flatten_with_tolerated`) ──


def _leaf_counts(results, tol: bool) -> tuple:
    """(passed, failed, tolerated, total) of the leaves under `results`."""
    p = f = t = n = 0
    for r in results:
        if not isinstance(r, _SET_CLASS):
            d = (1, 0, 0, 1) if r.f_outcome == "pass" else (0, 0, 1, 1) if tol else (0, 1, 0, 1)
        else:
            d = _set_counts(r, tol or r.f_outcome == "pass")
        p, f, t, n = p + d[0], f + d[1], t + d[2], n + d[3]
    return p, f, t, n


def _set_counts(r, tol: bool) -> tuple:
    if r.f_results:
        return _leaf_counts(r.f_results, tol)
    return (r.f_passed, 0, r.f_failed, r.f_total) if tol else (r.f_passed, r.f_failed, 0, r.f_total)


def _leaf_ids(report, tol: bool, selected: list, out: dict) -> None:
    """Each leaf the reports name, by status: (name, duration) pairs."""
    names = report.f_result_names
    if names is None:
        return
    for name, r in zip(names, report.f_results):
        if not isinstance(r, _SET_CLASS):
            ms = r.f_runs[0].f_duration_ms if r.f_runs else -1
            out["pass" if r.f_outcome == "pass" else "tolerated" if tol else "fail"].append((name, ms))
            continue
        inner = tol or r.f_outcome == "pass"
        if r.f_results:
            _leaf_ids(r, inner, selected, out)
        elif r.f_failed > 0:
            sentinel = name + "::(failed to expand)"
            ident = sentinel if sentinel in selected else (
                r.f_failed_names[0] if r.f_failed_names else name + "::(testset error)")
            out["tolerated" if inner else "fail"].append((ident, -1))


def _messages(results, out: list) -> None:
    for r in results:
        if isinstance(r, _SET_CLASS):
            _messages(r.f_results, out)
            continue
        out += [run.f_message for run in r.f_runs if run.f_outcome != "pass" and run.f_message is not None]


def flatten(report, selected: list):
    """A run's TestSetReport as the FlatTestReport the engine's driver prints: leaf counts,
    the leaves' ids by status (from the reports' names, else matched from the selection),
    every failing run's message."""
    tol = report.f_outcome == "pass"
    counts = _set_counts(report, tol)
    messages: list = []
    _messages(report.f_results, messages)
    ids: dict = {"pass": [], "fail": [], "tolerated": []}
    _leaf_ids(report, tol, selected, ids)
    if tuple(len(ids[k]) for k in ("pass", "fail", "tolerated")) != counts[:3]:
        ids = {"pass": [], "fail": [], "tolerated": []}
        if len(selected) == counts[3]:  # a runner's own report: ids matched from the failed names
            every: list = []
            _all_failed(report, every)
            for n in selected:
                k = ("fail" if _matches(n, report.f_failed_names) else "tolerated") if _matches(n, every) else "pass"
                ids[k].append((n, None))
    named = {k: [n for n, _ in v] for k, v in ids.items()}
    ms = {k: [m for _, m in v if m is not None] for k, v in ids.items()}
    return _FLAT.new(report.f_outcome, *counts[:3], counts[3], *(_strs(named[k]) for k in ("pass", "fail", "tolerated")),
                     *(typed_list(ms[k], _INT) for k in ("pass", "fail", "tolerated")), _strs(messages))


_R = _REGISTRY.py
_R.m_serialize = _serialize
_R.m_run_test = _run_test_named
_R.m_run_testset = _run_testset_named
_R.m_run_all = lambda self: _run_set(_children(self, None), None)
_R.m__run_selected = lambda self, names: _run_set(_children(self, names), None)
_R.m_run_filtered = _run_filtered
_R.m_list_filtered = lambda self, pi, pe, ci, ce: _select(self, ((pi, pe), (ci, ce)))
_R.m_expand_set = _expand_set
_R.m__expand_testset_registry = _expanded


# ── `testing`'s internal functions a program may call as well (the engine does not hide them) ──

function("testing._leaf_selected_layered")(
    lambda name, pi, pe, ci, ce: _selected(name, pi, pe) and _selected(name, ci, ce))
function("testing._select_names_layered")(lambda reg, pi, pe, ci, ce: _select(reg, ((pi, pe), (ci, ce))))
function("testing._select_names")(lambda reg, include, exclude: _select(reg, (([], []), (include, exclude))))
function("testing._collect_leaf_names")(lambda reg: _select(reg, ()))
function("testing._name_in")(lambda name, names: name in names)
function("testing._failure_matches_selected")(lambda selected, failed: _matches(selected, failed))
function("testing._flatten_with_tolerated")(flatten)
function("testing._test_name_count")(_name_count)
function("testing._testset_name_count")(_name_count)
function("testing._default_test_timeout_ms")(lambda: 300000)
function("testing._run_test")(lambda body, runner, timeout_ms: run_test(body, runner))
function("testing._run_children_sequential")(lambda children, fail_fast: run_children(children, fail_fast))


@function("testing._expansion_error_report")
def expansion_error_report(name: str):
    return _SET("error", 0, 1, 1, _strs([name + "::(testset error)"]), _child_reports([]), _strs([]))


@function("testing._collect_all_failed_names")
def collect_all_failed_names(report, out) -> None:
    _all_failed(report, out)


@function("testing._collect_leaf_messages")
def collect_leaf_messages(results, out) -> None:
    _messages(results, out)
