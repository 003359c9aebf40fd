"""Measuring BAML coverage with a mirx extension.

Compile half: every MIR statement and terminator that produced instructions is a probe for its
source line; every conditional terminator (`branch`) is a pair of branch edges named by the
construct it comes from; the `entry` event counts calls. Run half: one snippet per probe and
edge, a counter increment compiled inline (`{state}[{counter}] += 1`, no call); each run's
counts merge into the collector. The universe (what *could* be hit) comes from the same compile
half run over every function, so executable lines and branches are exactly the probes —
nothing guessed from the text.

Counts follow gcov: a line's count is the number of times control *entered* the line — came to
it from another line of the same call (or started the call there) — and an edge's count the
number of times it was taken. The generated function keeps the line it is on in a local
(`_cov_line`, set at entry); a probe counts only when the line changes, so a line holding
several blocks (a one-line `for`, `a && b || c`) counts once per entry however often control
moves between its blocks, and a multi-line loop's header counts its iterations plus one.
Decisions of one construct that share a position (the `||`s of `a || b || c` all start at `a`)
are one decision: their edge counts add up."""
from __future__ import annotations

from collections import Counter, defaultdict

from .. import mirx
from .data import CoverageData

# edge labels per construct: a branch's then-edge / else-edge
_EDGES = {"??": ("null", "not null"), "?.": ("null", "not null"), "default": ("omitted", "given")}
_PATTERNS = {"match", "catch", "is", "if let", "while let", "let else"}

# the snippets: `_cov_line` is the generated function's own local (docs/mirx.md §4 allows
# an extension its own temporaries), one per call frame, so calls and recursion keep theirs
_ENTER = "if _cov_line != {line}:\n    _cov_line = {line}\n    {{state}}[{{counter}}] += 1"
_EDGE = "{state}[{counter}] += 1"
_ENTRY_COUNTED = "_cov_line = 0\n{state}[{counter}] += 1"
_ENTRY = "_cov_line = 0"


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
        # the node the compile half saw last: (function view, block, line); a function's
        # nodes are offered block by block, in order
        self._last: tuple | None = None
        self.hits: Counter = Counter()  # ("at", data) / ("branch", data, taken) → hits

    # ── compile half ──
    def instrument(self, fn: mirx.FunctionView, node, pcs: range):
        span = node.span
        if node.kind == "entry":
            self._last = None
            # lambdas count no calls of their own (reports list named functions)
            return ("call", fn.fqn) if fn.kind != "lambda" and fn.span is not None else None
        if span is None or node.kind in ("check", "raise"):
            return None
        here = (fn, node.block, span.line)
        # within a block, control moves from node to node: a line change is certain, no
        # change needs no probe; the first node of a block may be entered from anywhere
        same = self._last is not None and self._last == here
        self._last = here
        if node.kind == "branch" and node.origin != "default":
            return (span.file, span.line, span.column, node.origin or "if", not same)
        return None if same else (span.file, span.line)

    def snippet(self, fn, node, data):
        if node.kind == "entry":
            return mirx.Code(before=_ENTRY_COUNTED if data is not None else _ENTRY)
        if data is None:
            return None
        if node.kind == "branch":  # on each edge: the counter's key names the edge
            enter = _ENTER.format(line=data[1]) if data[4] else ""
            return mirx.Code(before=enter, after=_EDGE)
        return mirx.Code(before=_ENTER.format(line=data[1]))

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
        line_hits: Counter = Counter()  # (file, line) → entries
        edge_hits: Counter = Counter()  # (file, line, col, origin, taken) → times taken
        calls: Counter = Counter()  # fqn → calls
        for key, n in self.hits.items():
            d = key[1]
            if key[0] == "at":
                if d[0] == "call":
                    calls[d[1]] += n
                else:
                    line_hits[d[0], d[1]] += n
            elif len(d) == 5:
                edge_hits[d[:4] + (key[2],)] += n
        out = CoverageData()
        for fn in _all_functions(program, include_tests):
            try:
                table = program.sidecar(fn, self)
            except mirx.CompileError:
                continue  # a function Assay cannot compile has no probes
            probes = [d for d in table.values() if d[0] != "call"]
            path = fn.span.file if fn.span else None
            if path is None or not probes:
                continue
            if fn.kind != "lambda":
                out.add_function(path, fn.fqn, fn.span.line, fn.span.end_line, _display(fn),
                                 calls.get(fn.fqn, 0))
            for d in probes:
                out.declare_line(d[0], d[1], line_hits.get((d[0], d[1]), 0))
                if len(d) == 5:
                    for taken, edge in zip((True, False), edge_names(d[3])):
                        out.declare_branch(d[0], (d[1], d[2], d[3], edge),
                                           edge_hits.get(d[:4] + (taken,), 0))
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
