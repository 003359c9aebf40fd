"""assay.sym — the symbolic layer, built on mirx alone: concolic runs of BAML functions.

    trace = sym.run(program, "Fn", {"x": 3}, symbolic="all")
    trace.result, trace.error            # exactly what the plain run gives
    for r in trace.path: r.site, r.kind, r.taken, r.condition
    trace.smt2()                         # the path condition as SMT-LIB
    trace.flip(k)                        # arguments taking path[:k] and the other side of path[k]

While BEX runs the function concretely, the extension (tracer.py) keeps an expression (expr.py)
beside every value derived from a symbolic parameter and records each branch and explicit
panic site whose condition is symbolic. z3 is used only when asked (solver.py).
"""
from __future__ import annotations

from .. import gcpause, mirx
from . import solver
from .expr import (Expr, SymArray, SymMap, SymObject, SymOptional, app, const, lift, new_scope, not_,
                   realize, var)
from .expr import register_sort
from .inputs import Inputs, rebuild
from .tracer import Limit, PathState, Record, Tracer

register_sort(mirx.BigInt, "bigint")

__all__ = ["run", "Runner", "Trace", "Record", "Expr", "SymArray", "SymMap", "SymObject", "SymOptional",
           "app", "const", "var", "not_", "lift", "Tracer", "PathState", "Limit"]


class Trace:
    """One concolic run: the plain run's `result` and `error` (both None when a `limit` stopped
    it), the `path` records, the expression of the result (`output`, None when concrete),
    `concretized` (operation → count of concretisations) and the `assumptions` those pinned.
    Records and the output are made on first use (a run only collects raw tuples)."""

    def __init__(self, fn, args: dict, params, inputs: Inputs, result, error, state, output):
        self.function, self.args, self._params, self._inputs = fn, args, params, inputs
        self.result, self.error = result, error
        self._raw_path = state.path if state else []
        self._pins: list = state.pins if state else []
        self.concretized: dict = state.concretized if state else {}
        self._output = output
        self.status = None  # of the last flip: "sat", "unsat" or "unknown"
        self._llm_used = state.llm_used if state else []
        self.flipped_llm: dict | None = None  # the LLM answers of the last flip
        self.limit = None  # the sym.Limit or mirx.TimeLimit that stopped the run, if one did

    @property
    def path(self) -> list[Record]:
        made = self.__dict__.get("_path")
        if made is None:
            made = self.__dict__["_path"] = [Record(*r) for r in self._raw_path]
        return made

    @property
    def output(self):
        out = self._output
        if type(out) is tuple:
            out = self._output = realize(out)
        return out if isinstance(out, (Expr, SymArray, SymMap, SymObject, SymOptional)) else None

    @property
    def llm(self) -> dict:
        """The LLM answers this run used, per function in call order."""
        out: dict = {}
        for fn, _, _, host in self._llm_used:
            out.setdefault(fn, []).append(host)
        return out

    @property
    def assumptions(self) -> list[Expr]:
        """The pins of concretised values (`e == value`), in the order they were made."""
        return [e for _, e in self._pins]

    def constraints(self, upto: int | None = None) -> list[Expr]:
        """The path condition of the first `upto` records (all by default), with the pins
        made before record `upto` — they hold wherever that record is reached again."""
        n = len(self.path) if upto is None else upto
        return [r.constraint for r in self.path[:n]] + [e for at, e in self._pins if at <= n]

    def smt2(self) -> str:
        return solver.smt2(self.constraints(), self._inputs.domains if self._inputs else {})

    def flip(self, k: int, timeout_ms: int = 5000) -> dict | None:
        """Arguments whose run follows path[:k] and takes the other side of path[k]
        (None when no such input exists or the solver gives up: `status` says which)."""
        target = not_(self.path[k].constraint)
        # only the constraints sharing vars with the target matter; the other vars keep
        # their values, so the rest of the prefix still holds
        conditions = solver.related(target, self.constraints(k)) + [target]
        self.status, model = solver.solve(conditions, self._inputs.domains, timeout_ms)
        if model is None:
            return None
        self.flipped_llm = {}
        for fn, var_name, t, host in self._llm_used:
            self.flipped_llm.setdefault(fn, []).append(rebuild(var_name, host, t, model))
        return {name: rebuild(name, self.args.get(name), t, model) if symbolic else self.args.get(name)
                for name, t, symbolic in self._params if name in self.args}

    def __repr__(self) -> str:
        return f"Trace({self.function}, {len(self.path)} records, error={self.error!r})"


def run(program, fn: str, args: dict | None = None, symbolic="all", max_len: int = 8,
        extensions=(), limits: dict | None = None, llm: dict | None = None, max_depth: int = 3) -> Trace:
    """Run `fn` with `args`, tracking the parameters named in `symbolic` ("all" for every
    one). `program` is an `assay.load()` program or a mirx view. With nothing symbolic the
    run is plain (no instrumented code at all). `extensions` ride along (e.g. coverage).
    `max_len` bounds generated lengths, `max_depth` the nesting of symbolic class values.
    `limits` (max_records, max_size): reaching one raises `sym.Limit` (a `mirx.Abort`).
    `llm`: answers per LLM function ({"ns.Fn": [answer, …]} in call order; missing ones are
    defaults of the return type): every LLM call is substituted, its answer a symbolic input."""
    view = program if isinstance(program, mirx.ProgramView) else mirx.view(program)
    args = dict(args or {})
    if not symbolic and llm is None:  # nothing symbolic: the plain run, nothing else
        result, error = view.run(fn, args, extensions=extensions)
        return Trace(fn, args, (), None, result, error, None, None)
    fv = view.function(fn)
    params = [(p.name, p.type, symbolic == "all" or p.name in symbolic) for p in fv.params]
    if not any(s for _, _, s in params) and llm is None:
        result, error = view.run(fn, args, extensions=extensions)
        return Trace(fn, args, params, Inputs(max_len, max_depth), result, error, None, None)
    return Runner(view, fn, symbolic, max_len, extensions, limits, max_depth)(args, llm or {})


class Runner:
    """Concolic runs of one function, prepared once (`sym.run` is one run of a new Runner):
    `runner(args, llm)` → Trace. Its code, callees, argument converters and tracer are made
    here, so a run pays only for itself (explore runs one function thousands of times)."""

    def __init__(self, program, fn: str, symbolic="all", max_len: int = 8, extensions=(),
                 limits: dict | None = None, max_depth: int = 3, types: dict | None = None):
        """`types`: parameter → TypeView, for parameters whose type is not the declared one (a
        generic function's, instantiated): arguments are converted to it, shadows made of it."""
        view = program if isinstance(program, mirx.ProgramView) else mirx.view(program)
        self.fn, self.max_len, self.max_depth, self.view = fn, max_len, max_depth, view
        self.types = types or {}
        self.params = [(p.name, self.types.get(p.name, p.type), symbolic == "all" or p.name in symbolic)
                       for p in view.function(fn).params]
        self.tracer = Tracer(self.params, None, limits, {})
        self._call = view.runner(fn, [self.tracer, *extensions])
        self._bytes = any(t is not None and _has_bytes(t) for _, t, _ in self.params)

    def __call__(self, args: dict, llm: dict | None = None) -> Trace:
        # the expressions and records a run makes are acyclic: reference counting frees them,
        # and the cyclic GC would only re-scan the growing path again and again (2-3x)
        with gcpause.paused():
            return self._run(args, llm)

    def _run(self, args: dict, llm: dict | None) -> Trace:
        inputs = Inputs(self.max_len, self.max_depth)
        tracer = self.tracer
        tracer.inputs, tracer.llm, tracer.state, tracer.result_shadow = inputs, llm or {}, None, None
        new_scope()
        try:
            result, error = self._call(self._runtime_args(args))
        except (Limit, mirx.TimeLimit) as stop:  # the path so far is still good for flips
            trace = Trace(self.fn, args, self.params, inputs, None, None, tracer.state, None)
            trace.limit = stop
            return trace
        return Trace(self.fn, args, self.params, inputs, result, error, tracer.state, tracer.result_shadow)

    def _runtime_args(self, args: dict) -> dict:
        """Arguments as the run takes them: bytes as bytearrays; instantiated parameters
        converted to their type (a class's fields as an instance, an enum's name as its variant)."""
        if self._bytes:
            args = _as_runtime_bytes(args)
        if self.types:
            args = {k: self.view.to_runtime(v, self.types[k], k) if k in self.types else v for k, v in args.items()}
        return args


def _has_bytes(t, depth: int = 0) -> bool:
    """Does a parameter type hold a uint8array anywhere (to a few levels)?"""
    if t.kind == "uint8array":
        return True
    parts = [t.element, t.key, t.value] + t.members + [f.type for f in t.fields]
    return depth < 4 and any(p is not None and _has_bytes(p, depth + 1) for p in parts)


def _as_runtime_bytes(v):
    """Arguments with each byte string as the VM holds a uint8array (a bytearray): hosts and
    the engine's Python API pass `bytes`."""
    if isinstance(v, bytes):
        return bytearray(v)
    if isinstance(v, dict):
        return {k: _as_runtime_bytes(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_as_runtime_bytes(x) for x in v]
    return v
