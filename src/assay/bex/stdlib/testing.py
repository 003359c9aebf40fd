"""`testing`: testsets and their runners, as 0.23.0's `testing` package runs them.

A testset's body runs when it is collected: the parser turns each `test`/`testset` in it into
`testing.$register_test[_set](name, () -> void { body }, runner)`, which records the body with
the collector of the testset being expanded (the engine's `TestCollector`). `expand` then
expands every testset and `run_node` runs the tree as the engine's `TestRegistry` does: a
leaf through its `TestRunner`
(`Retry`, `Quorum`), a testset's children through its `TestSetRunner` (`PassRate`,
`Sequential`, `FailFast`; none: all of them), a testset that fails to expand as one failed
leaf `<set>::(failed to expand)`. Ids are `set::child` (the engine prefixes `root[.ns]::`).
"""
from __future__ import annotations

import re

from ..ops import BUILTIN_CLASSES, make_builtin, panic
from ..values import ClassInfo
from ._registry import function

for _fqn in ("testing.TestRunner", "testing.TestSetRunner"):
    BUILTIN_CLASSES[_fqn] = ClassInfo(_fqn, _fqn.rpartition(".")[2], ["_handle"])
del _fqn


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

    def __init__(self, run_body, selected=None):
        self.run_body, self.selected = run_body, selected
        self.report: SetReport | None = None
        self.busy = False


_TOP: list[TopLevel] = []


def run_top(top: TopLevel, call) -> SetReport | None:
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
    top.report = run_node(expand(c, "", None, top.run_body), top.run_body, top.selected)


@function("testing.$register_test")
def register_test(name, body, runner):
    _register(name, body, runner, False)


@function("testing.$register_test_set")
def register_test_set(name, body, runner):
    _register(name, body, runner, True)


# ── runners: a TestRunner wraps a leaf's run (→ (passed, errors of its runs)); a TestSetRunner
#    runs a testset's children (thunks → child reports) into its report ──


def _test_runner(fn):
    return make_builtin("testing.TestRunner", _handle=fn)


def _set_runner(fn):
    return make_builtin("testing.TestSetRunner", _handle=fn)


@function("testing.Retry")
def retry(max_attempts):
    if max_attempts <= 0:
        panic("baml.panics.UserPanic", message="testing.Retry requires max_attempts > 0")

    def run(run_once):
        errors = []
        for _ in range(max_attempts):
            ok, errs = run_once()
            errors += errs
            if ok:
                return True, errors
        return False, errors
    return _test_runner(run)


@function("testing.Quorum")
def quorum(n, m):
    if n <= 0:
        panic("baml.panics.UserPanic", message="testing.Quorum requires n > 0")
    if m < 0 or m > n:
        panic("baml.panics.UserPanic", message="testing.Quorum requires 0 <= m <= n")

    def run(run_once):
        errors, passes = [], 0
        for _ in range(n):  # every run happens, even once m passes are in hand
            ok, errs = run_once()
            errors += errs
            passes += ok
        return passes >= m, errors
    return _test_runner(run)


@function("testing.PassRate")
def pass_rate(threshold):
    if threshold < 0.0 or threshold > 1.0:
        panic("baml.panics.UserPanic", message="testing.PassRate requires 0.0 <= threshold <= 1.0")

    def run(children):
        report = run_children(children)
        ok = report.total == 0 or report.passed / report.total >= threshold
        report.outcome = "pass" if ok else "fail"
        return report
    return _set_runner(run)


@function("testing.Sequential")
def sequential():
    return _set_runner(run_children)  # Assay runs children one at a time anyway


@function("testing.FailFast")
def fail_fast():
    return _set_runner(lambda children: run_children(children, stop_at_failure=True))


# ── the run ──


class Leaf:
    """A leaf's report: outcome "pass" | "fail"; errors: its failing runs' error documents."""
    __slots__ = ("outcome", "errors")

    def __init__(self, ok: bool, errors: list):
        self.outcome = "pass" if ok else "fail"
        self.errors = errors


class SetReport:
    """A testset's report (the engine's TestSetReport): children counted, not leaves."""
    __slots__ = ("outcome", "passed", "total", "results")

    def __init__(self, outcome: str, passed: int, results: list):
        self.outcome, self.passed, self.total, self.results = outcome, passed, len(results), results


def run_children(children, stop_at_failure: bool = False) -> SetReport:
    """Run (name, thunk) children in order; the aggregate: "error" if one errored, else
    "pass" iff all passed."""
    results = []
    for name, thunk in children:
        report = thunk()
        results.append((name, report))
        if stop_at_failure and report.outcome != "pass":
            break
    outcomes = [r.outcome for _, r in results]
    outcome = "error" if "error" in outcomes else "pass" if all(o == "pass" for o in outcomes) else "fail"
    return SetReport(outcome, outcomes.count("pass"), results)


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


def has_selected(node: Node, selected) -> bool:
    """Does the testset hold a selected leaf (its expansion failure counting as one)?"""
    if node.error is not None:
        return selected(_failed_to_expand(node))
    return any(selected(t[0]) for t in node.tests) or any(has_selected(n, selected) for n in node.sets)


def run_node(node: Node, run_body, selected=None) -> SetReport:
    """Run an expanded testset: its selected tests, then its testsets holding a selected leaf
    (the engine's order), through its runner. `run_body(body, id)`: None when the body ran
    through, else the error document; `selected(id)`: whether a leaf runs (None: all)."""
    if node.error is not None:  # a testset that fails to expand: one failed leaf, outcome "error"
        return SetReport("error", 0, [(_failed_to_expand(node), Leaf(False, [node.error]))])
    children = []
    for name, tbody, trunner in node.tests:
        if selected is None or selected(name):
            children.append((name, lambda n=name, b=tbody, r=trunner: run_leaf(n, b, r, run_body)))
    for sub in node.sets:
        if selected is None or has_selected(sub, selected):
            children.append((sub.name, lambda n=sub: run_node(n, run_body, selected)))
    if node.runner is None:
        return run_children(children)
    return node.runner.f__handle(children)


def run_leaf(name: str, body, runner, run_body) -> Leaf:
    def run_once():
        error = run_body(body, name)
        return error is None, [] if error is None else [error]
    ok, errors = run_once() if runner is None else runner.f__handle(run_once)
    return Leaf(ok, errors)


def leaves(report: SetReport, tolerated: bool = False):
    """(id, passed, tolerated, error) of every leaf run, in order: a failing leaf is tolerated
    when a testset around it passed all the same (a `PassRate`)."""
    tolerated = tolerated or report.outcome == "pass"
    for name, r in report.results:
        if isinstance(r, SetReport):
            yield from leaves(r, tolerated)
        elif r.outcome == "pass":
            yield name, True, False, None
        else:
            yield name, False, tolerated, r.errors[-1] if r.errors else None
