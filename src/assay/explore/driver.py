"""The exploration driver: generational search (SAGE) over the path records of concolic runs.

Each execution's path is walked from the position its input was generated for; every
(prefix, flipped decision) is solved at most once (the branch trie: `tried`), on the slice of
constraints that share vars with the flip (sym's independence), with a per-query time-out.
Every case is a replayed execution: nothing is reported that did not run.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import NamedTuple

from .. import mirx, sym
from ..coverage.collect import Coverage
from ..sym.inputs import default
from .generics import instantiate, param_types

UNSYNTHESIZABLE = ("function", "unknown", "typevar", "interface", "json")


@dataclass
class Stats:
    executions: int = 0
    execute_seconds: float = 0.0
    build_seconds: float = 0.0
    solver_queries: int = 0
    solver_seconds: float = 0.0
    cache_hits: int = 0
    unknown: int = 0
    limits: int = 0  # executions stopped by a per-execution limit
    concretized: int = 0

    def as_dict(self) -> dict:
        return {k: round(v, 6) if isinstance(v, float) else v for k, v in self.__dict__.items()
                if k != "concretized"}


@dataclass
class Case:
    args: dict
    outcome: dict  # {"ok": value} | {"error": {"type", "message", "fields"}}
    bug: bool
    key: tuple = field(repr=False, default=())
    llm: dict = field(default_factory=dict)  # the LLM answers the execution used


def unsynthesizable(view: mirx.ProgramView, fv) -> str | None:
    """Why a function's parameters cannot be generated (None: they can), a generic function's
    at its type parameters' instantiation."""
    inst = instantiate(view, fv)
    if inst.reason is not None:
        return inst.reason
    for name, t in param_types(fv, inst).items():
        if t is None or _contains(t, UNSYNTHESIZABLE):
            return f"parameter {name!r} of type {t.name if t else '?'} cannot be synthesised"
    return None


def _contains(t, kinds, depth: int = 0) -> bool:
    if t.kind in kinds:
        return True
    if depth > 4:
        return False
    parts = [t.element, t.key, t.value] + t.members + [f.type for f in t.fields]
    return any(p is not None and _contains(p, kinds, depth + 1) for p in parts)


def explore(view: mirx.ProgramView, fn: str, budget: float = 30.0, seed: int = 0,
            max_len: int = 8, max_depth: int = 3, query_ms: int = 2000, progress=None) -> dict:
    """Explore one function; the result is the JSON shape of `assay explore --json`.
    `progress(function, paths, branches hit, bugs, seconds)` is called after each execution."""
    fv = view.function(fn)
    reason = unsynthesizable(view, fv)
    if reason is not None:
        return {"function": fv.fqn.removeprefix("user."), "verdict": "skipped", "reason": reason}
    search = Search(view, fn, max_len=max_len, query_ms=query_ms, max_depth=max_depth)
    deadline = search.start + budget
    generation = [Item(search.initial(seed), 0)]
    while generation and not search.out_of_time:
        # a generation's executions back to back, then its flips: executing stays warm
        traces = []
        for item in generation:
            if time.monotonic() > deadline:
                search.out_of_time = True
                break
            traces.append((item, search.run(item, deadline)))
            if progress is not None:
                progress(search.name, search.paths, sum(1 for k in search.cov.hits if k[0] == "branch"),
                         sum(c.bug for c in search.cases.values()), time.monotonic() - search.start)
        generation = [new for item, trace in traces for new in search.expand(trace, item, deadline)]
    return search.report()


class Item(NamedTuple):
    """A queued input: the arguments, the first path position still to flip, and the answers
    of LLM functions (per function, in call order)."""
    args: dict
    bound: int
    llm: dict = {}


class Search:
    """One function's exploration: its outcomes, coverage, statistics and branch trie (the
    flips tried). `step` runs one item and returns the items its flips produced; workers of a
    parallel search each hold a Search and their results merge (`merge`)."""

    def __init__(self, view: mirx.ProgramView, fn: str, max_len: int = 8, query_ms: int = 2000,
                 max_depth: int = 3):
        self.max_len, self.query_ms, self.max_depth = max_len, query_ms, max_depth
        self.record(view, fn)
        t0 = time.perf_counter()  # generating the instrumented code is building, not executing
        self.runner = sym.Runner(view, fn, max_len=max_len, extensions=[self.cov], max_depth=max_depth,
                                 types={p.name: self.types[p.name] for p in self.fv.params if self.types[p.name] != p.type})
        with mirx.time_limit(3600):  # the process's watchdog thread starts on the first limit
            pass
        self.stats.build_seconds += time.perf_counter() - t0

    def record(self, view: mirx.ProgramView, fn: str) -> None:
        """The function's record: what its executions found (outcomes, coverage, statistics,
        flips tried)."""
        self.view, self.fn = view, fn
        self.fv = view.function(fn)
        self.inst = instantiate(view, self.fv)  # a generic function's type parameters
        self.types = param_types(self.fv, self.inst)
        self.name = self.fv.fqn.removeprefix("user.")
        self.declared = self.fv.throws_type is not None
        self.cov, self.stats = _RunCoverage(), Stats()
        self.tried: set = set()
        self.cases: dict = {}
        self.start = time.monotonic()
        self.out_of_time = False

    @property
    def paths(self) -> int:
        return len(self.tried) + 1

    def initial(self, seed: int) -> dict:
        return {name: _seed(t) for name, t in self.types.items()}

    def step(self, item: Item, deadline: float) -> list[Item]:
        """Execute an item and solve its new flips: the new items."""
        return self.expand(self.run(item, deadline), item, deadline)

    def run(self, item: Item, deadline: float):
        """Execute an item (stopped at the deadline, also inside a loop: the bridge's time
        limit) and keep its outcome; the trace."""
        with mirx.time_limit(max(0.01, deadline - time.monotonic())):
            trace = _execute(self.runner, item, self.stats)
        if trace.limit is None:  # a run stopped by a limit has no outcome, but a usable path
            edges = self.cov.edges()
            case = _case(trace, item.args, self.declared, edges)
            self.cases.setdefault(case.key, case)
        elif isinstance(trace.limit, mirx.TimeLimit):  # the budget ran out inside the run
            self.out_of_time = True
        else:
            self.stats.limits += 1
        return trace

    def expand(self, trace, item: Item, deadline: float) -> list[Item]:
        """Solve each flip of the trace from the item's bound on, once across the search."""
        sig = [(r.site, r.taken) for r in trace.path]
        out = []
        for k in range(item.bound, len(sig)):
            flip = tuple(sig[:k]) + ((sig[k][0], not sig[k][1]),)
            if flip in self.tried:
                self.stats.cache_hits += 1
                continue
            if time.monotonic() > deadline:
                self.out_of_time = True
                break
            self.tried.add(flip)
            left_ms = int((deadline - time.monotonic()) * 1000)
            new = _solve(trace, k, max(1, min(self.query_ms, left_ms)), self.stats)
            if trace.status == "unknown" and time.monotonic() > deadline:  # cut by the budget
                self.out_of_time = True
                break
            if new is not None:
                out.append(Item(new, k + 1, trace.flipped_llm))
        return out

    def report(self) -> dict:
        totals = _function_totals(self.cov.data(self.view), self.fv)
        s = self.stats
        verdict = "budget" if self.out_of_time else \
            "incomplete" if s.unknown or s.concretized or s.limits or self.inst.choices else "exhausted"
        ordered = sorted(self.cases.values(), key=lambda c: (not c.bug, str(c.key)))
        return {"function": self.name, "verdict": verdict, "paths": self.paths,
                "coverage": {"branches_covered": totals.branches_hit, "branches_total": totals.branches},
                "cases": [{"args": c.args, "llm": c.llm, "outcome": c.outcome, "bug": c.bug} for c in ordered],
                "bugs": sum(c.bug for c in ordered), "stats": s.as_dict(),
                "seconds": round(time.monotonic() - self.start, 3),
                **({"instantiation": {k: t.name for k, t in self.inst.types.items()}} if self.inst.types else {})}


class _RunCoverage(Coverage):
    """Coverage that also keeps its last run's counts: the branch edges that run took (its
    path class) without comparing every count the search has."""

    last = None

    def on_run_end(self, run, state) -> None:
        super().on_run_end(run, state)
        self.last = (run, state)

    def edges(self) -> frozenset:
        run, state = self.last
        keys = (run.counter_key(slot) for slot, n in state.items() if n)
        return frozenset(k for k in keys if k[0] == "branch")


def _function_totals(data, fv):
    """Coverage of the function's own lines (as `assay test --coverage` reports it)."""
    span = fv.span
    return data.file(span.file).totals(span.line, span.end_line)


def _seed(t):
    """The first input: defaults, except that a map gets one entry (the solver changes keys
    only by flipping key checks against the keys present)."""
    if t.kind == "map":
        return {default(t.key): _seed(t.value)}
    if t.kind == "class":
        return {f.name: _seed(f.type) for f in t.fields}
    return default(t)


def _execute(runner, item: Item, stats: Stats):
    t0 = time.perf_counter()
    trace = runner(item.args, item.llm)
    stats.executions += 1
    stats.execute_seconds += time.perf_counter() - t0
    stats.concretized += sum(trace.concretized.values())
    return trace


def _solve(trace, k: int, query_ms: int, stats: Stats) -> dict | None:
    t0 = time.perf_counter()
    new = trace.flip(k, query_ms)
    stats.solver_queries += 1
    stats.solver_seconds += time.perf_counter() - t0
    if trace.status == "unknown":
        stats.unknown += 1
    return new


def _case(trace, args: dict, declared_throws: bool, edges: frozenset) -> Case:
    """The outcome of one execution, and the key that makes outcomes distinct: each error
    class, and each set of branch edges taken (symbolic or not) for a return (its path class)."""
    e = trace.error
    llm = {fn: [_plain(a) for a in answers] for fn, answers in trace.llm.items()}
    if e is None:
        return Case(args, {"ok": _plain(trace.result)}, False, ("ok", edges), llm)
    panic = isinstance(e, mirx.BamlPanic)
    error = {"type": e.error["type"], "message": e.error["message"], "fields": _plain(e.fields)}
    bug = panic or not declared_throws
    return Case(args, {"error": error}, bug, ("error", error["type"], panic), llm)


def _plain(v):
    """A JSON-able form of a result: models as dicts, enum members as their names."""
    if hasattr(v, "model_dump"):
        return {k: _plain(x) for k, x in v.model_dump().items()}
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    if isinstance(v, bytearray):  # a uint8array as the engine's Python API gives it
        return bytes(v)
    name = getattr(v, "name", None)
    if name is not None and type(v).__class__.__name__ == "EnumType":
        return name
    return v
