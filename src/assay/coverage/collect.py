"""Measuring BAML coverage with a mirx extension.

Compile half: every MIR statement and terminator that produced instructions is a probe for its
source line; every conditional terminator (`branch`) is a pair of branch edges named by the
construct it comes from. Run half: one snippet per probe and edge, a counter increment compiled
inline (`{state}[{counter}] += 1`, no call); each run's counts merge into the collector.
The universe (what *could* be hit) comes from the same compile half run over every function,
so executable lines and branches are exactly the probes — nothing guessed from the text."""
from __future__ import annotations

from collections import Counter, defaultdict

from .. import mirx
from .data import CoverageData

# edge labels per construct: a branch's then-edge / else-edge
_EDGES = {"??": ("null", "not null"), "?.": ("null", "not null"), "default": ("omitted", "given")}
_PATTERNS = {"match", "catch", "is", "if let", "while let", "let else"}


def edge_names(origin: str) -> tuple[str, str]:
    if origin in _EDGES:
        return _EDGES[origin]
    if origin in _PATTERNS:
        return ("matched", "not matched")
    return ("true", "false")


class Coverage(mirx.Extension):
    """Attach to runs (`extensions=[cov]`); then `cov.data(program)` gives CoverageData."""

    name = "coverage"

    def __init__(self) -> None:
        self._probed: set = set()  # (fn, block, file, line) that already has a probe
        self.hits: Counter = Counter()  # ("at", data) / ("branch", data, taken) → hits

    # ── compile half ──
    def instrument(self, fn: mirx.FunctionView, node, pcs: range):
        span = node.span
        if span is None or node.kind in ("check", "entry", "raise"):
            return None
        if node.kind == "branch" and node.origin != "default":
            return (span.file, span.line, span.column, node.origin or "if")
        # a block runs as a whole: one line probe per line and block is enough
        key = (fn.fqn, node.block, span.file, span.line)
        if key in self._probed:
            return None
        self._probed.add(key)
        return (span.file, span.line)

    def snippet(self, fn, node, data):
        if data is None:
            return None
        if node.kind == "branch":  # on each edge: the counter's key names the edge
            return mirx.Code(after="{state}[{counter}] += 1")
        return mirx.Code(before="{state}[{counter}] += 1")

    # ── run half ──
    def on_run_start(self, run):
        return defaultdict(int)

    def on_run_end(self, run, state) -> None:
        for slot, n in state.items():
            self.hits[run.counter_key(slot)] += n

    # ── results ──
    def data(self, program: mirx.ProgramView, include_tests: bool = False) -> CoverageData:
        """Everything measurable in `program` (every function, hit or not) with the hits of
        the runs this collector was attached to. Test blocks count as code only if asked."""
        line_hits: Counter = Counter()  # (file, line) → hits
        edge_hits: Counter = Counter()  # (file, line, col, origin, taken) → hits
        for key, n in self.hits.items():
            if key[0] == "at":
                line_hits[key[1][0], key[1][1]] += n
            elif len(key[1]) == 4:
                edge_hits[key[1] + (key[2],)] += n
        out = CoverageData()
        for fn in _all_functions(program, include_tests):
            try:
                table = program.sidecar(fn, self)
            except mirx.CompileError:
                continue  # a function Assay cannot compile has no probes
            lines = [d[1] for d in table.values()]
            path = fn.span.file if fn.span else None
            if path is None or not lines:
                continue
            if fn.kind != "lambda":
                out.add_function(path, fn.fqn, fn.span.line, fn.span.end_line, _display(fn))
            for d in table.values():
                out.add_line(d[0], d[1], line_hits.get((d[0], d[1]), 0))
                if len(d) == 4:
                    for taken, edge in zip((True, False), edge_names(d[3])):
                        out.add_branch(d[0], (d[1], d[2], d[3], edge), edge_hits.get(d + (taken,), 0))
        return out


def _all_functions(program: mirx.ProgramView, include_tests: bool):
    todo = list(program.functions(include_tests=include_tests))
    seen = set()
    while todo:
        fn = todo.pop()
        if fn.fqn in seen:
            continue
        seen.add(fn.fqn)
        try:
            todo.extend(fn.lambdas)
        except mirx.CompileError:
            continue
        yield fn


def _display(fn: mirx.FunctionView) -> str:
    return fn.fqn.removeprefix("user.") if fn.kind != "test" else f"test {fn.name!r}"
