"""mirx — the MIR extension interface: a small, stable, compiler-owned API over the resolved
program, and the protocol by which an extension attaches data to the bytecode the compiler
emits and observes the runs that ask for it. Consumers (coverage, symbolic execution, CLI/MCP
generation, packing) import this module and never the compiler's internals.

    prog = mirx.load("project/")                 # or mirx.compile(text)
    for fn in prog.functions():                  # FunctionView: fqn, params, types, blocks…
        for block in fn.blocks: …                # BlockView → StatementView / TerminatorView
    prog.call("ns.Fn", {"x": 1}, extensions=[MyExtension()])

See docs/mirx.md for what is guaranteed stable (VERSION 2.x), the snippet API and worked examples.
"""
from __future__ import annotations

import dataclasses

from ..api import BamlError, BamlPanic, BamlProgram
try:  # the bridge's interruption mechanism: `with time_limit(s):` stops the call on this thread
    from ..api import TimeLimit, time_limit
except ImportError:  # pragma: no cover — a bridge without it (consumers then run unlimited)
    TimeLimit = time_limit = None
from ..bex.values import BamlRaise, BigInt, Variant
from ..bex import stack
from ..bex.stack import TimeLimit, time_limit
from ..compiler import compile_sources, describe_error, discover
from ..extension import Abort, Code, Extension, Run
from ..mir import ir, typetest
from ..sema import interfaces
from ..sema import types as T
from ..source import CompileError as _CE
from ..source import SourceFile
from .views import (BlockView, CallTargetView, FieldView, GenericView, LocalView, OperandView, ParamView,
                    PlaceView, RvalueView, SourceSpan, StatementView, TerminatorView, TypeView,
                    CheckView, EventView,
                    VariantView, operand_view, place_view, rvalue_view, source_span)

VERSION = "2.0"

__all__ = ["VERSION", "Extension", "BamlPanic", "BamlError", "BigInt", "TimeLimit", "time_limit", "Code", "Run", "Abort", "CheckView", "EventView", "ProgramView", "FunctionView", "FileView", "load", "compile", "compile_files",
           "TypeView", "FieldView", "VariantView", "ParamView", "GenericView", "LocalView", "BlockView",
           "StatementView", "TerminatorView", "OperandView", "PlaceView", "RvalueView",
           "CallTargetView", "SourceSpan", "RunError", "CompileError", "TimeLimit", "time_limit"]


class RunError(Exception):
    """A run ended in a BAML panic or an uncaught throw: `error` is Assay's error shape
    {"type", "message", "fields"}."""

    def __init__(self, error: dict):
        super().__init__(f"{error['type']}: {error['message']}")
        self.error = error


def _callees(rt, fqn: str) -> list[str]:
    """`fqn` and the user functions reachable from it through direct calls (lambdas are
    generated with the function that holds them)."""
    out, todo = [], [fqn]
    while todo:
        f = todo.pop()
        if f in out:
            continue
        out.append(f)
        for mir in rt.lower(f):
            for b in mir.blocks:
                c = getattr(b.terminator, "callee", None)
                if c is not None and c.kind in ("fn", "llm") and c.name not in out:
                    todo.append(c.name)
    return out


class FileView:
    def __init__(self, path: str, namespace: str | None, meta: dict):
        self.path = path
        self.namespace = namespace
        self.meta = meta

    def __repr__(self) -> str:
        return f"FileView({self.path!r})"


class ProgramView:
    """A compiled program, as consumers see it."""

    def __init__(self, program):
        self._p = program
        self._metas: dict = program.__dict__.setdefault("mirx_meta", {})
        for key, payload in getattr(program.index, "ingot", {}).items():  # @ingot annotations
            self._metas.setdefault(key, {})["ingot"] = payload
        self._functions: dict[str, FunctionView] = {}
        program.runtime.views = self  # what extensions' compile half is shown

    # ── metadata ──
    @property
    def meta(self) -> dict:
        return self._meta(("program",))

    def _meta(self, key) -> dict:
        return self._metas.setdefault(key, {})

    @property
    def files(self) -> list[FileView]:
        return [FileView(f.source.path, f.source.namespace, self._meta(("file", f.source.path)))
                for f in self._p.index.files]

    def source_text(self, path: str) -> str | None:
        for f in self._p.index.files:
            if f.source.path == path:
                return f.source.text
        return None

    # ── functions ──
    def functions(self, include_tests: bool = True) -> list["FunctionView"]:
        """Every user function and method (and `test` blocks), in source order; a `const`
        global's initializer is no function of the program's."""
        out = [self.function(fqn) for fqn, fd in self._p.index.functions.items()
               if not getattr(fd.decl, "is_global", False)]
        if include_tests:
            out += [self.function(key) for key in self._p.tests]
        return out

    def function(self, name: str) -> "FunctionView":
        """By fqn (`user.ns.Fn`, `user.P.m`, a lambda's fqn, `test:N`) or as the host writes
        it (`ns.Fn`)."""
        fv = self._functions.get(name)
        if fv is not None:
            return fv
        idx = self._p.index
        if name in idx.functions or name in self._p.tests or ".<lambda" in name or interfaces.DISPATCH in name:
            fqn = name
        else:
            fqn = self._p.resolve(name).fqn
        fv = self._functions.get(fqn)
        if fv is None:
            fv = self._functions[fqn] = FunctionView(self, fqn)
        self._functions[name] = fv
        return fv

    def classes(self) -> list[TypeView]:
        return [TypeView(T.ClassT(c), self) for c in self._p.index.classes.values()]

    def primitive(self, name: str) -> TypeView:
        """A primitive type by name: int float string bool null bigint uint8array unknown."""
        return TypeView(T.PRIMS[name], self)

    def enums(self) -> list[TypeView]:
        return [TypeView(T.EnumT(e), self) for e in self._p.index.enums.values()]

    # ── running ──
    def call(self, name: str, args: dict | None = None, extensions=()):
        """Call a function with BAML-compatible Python values (as `assay.load(...).call`)."""
        api = self._api()
        fdef = self._p.resolve(name)
        values = api.bind(fdef, (), dict(args or {}))
        try:
            return api.to_python(self._p.runtime.call(fdef.fqn, values, tuple(extensions)))
        except BamlRaise as e:
            raise RunError(describe_error(e.value, e.panic)) from None

    def run(self, name: str, args: dict | None = None, extensions=()):
        """Call a function and return `(result, error)`: the error (a `BamlPanic` or
        `BamlError`, with its BAML traceback) instead of raising it; result None then."""
        api = self._api()
        if not extensions:  # the API's own entry: converters made once per function
            entry = api._entries.get(name) or api._entry(name)
            names = entry.names
            positional = args is not None and len(args) == len(names) and all(n in args for n in names)
            try:
                if positional:
                    return entry.call(*[args[n] for n in names]), None
                return entry.call(**(args or {})), None
            except (BamlPanic, BamlError) as e:
                return None, e
        fdef = self._p.resolve(name)
        values = api.bind(fdef, (), dict(args or {}))
        try:
            return api.to_python(self._p.runtime.call(fdef.fqn, values, tuple(extensions))), None
        except BamlRaise as e:
            return None, api._error(e)

    def prepare(self, name: str, extensions=()) -> None:
        """Generate the code of a function and of every user function it calls (directly or
        not) for runs with these extensions now (else each first call does), and measure this
        thread's stack: to time compilation apart from execution."""
        rt = self._p.runtime
        space = rt.space(tuple(extensions))
        for fqn in _callees(rt, self._p.resolve(name).fqn):
            space.compile(fqn)
        self._api()._entry(name)  # the argument converters, made once per function
        stack.room()  # the first measurement on a thread reads the process's memory map

    def runner(self, name: str, extensions=()):
        """`run(name, args, extensions)` prepared once: `runner(args) -> (result, error)`.
        Resolving the function, generating its code (and its callees'), its argument
        converters and the code space are done here, not per call — for a caller that runs
        one function thousands of times with the same extension objects (explore)."""
        exts = tuple(extensions)
        self.prepare(name, exts)
        api = self._api()
        entry = api._entry(name)
        fdef, fqn, names, convs = entry.fdef, entry.fqn, entry.names, entry.convs
        space = self._p.runtime.space(exts)

        def run(args: dict):
            if convs is not None and len(args) == len(names) and all(n in args for n in names):
                values = [c(args[n]) for c, n in zip(convs, names)]
            else:
                values = api.bind(fdef, (), dict(args))
            try:
                return api.to_python(space.run(fqn, values, exts)), None
            except BamlRaise as e:
                return None, api._error(e)
        return run

    def to_runtime(self, value, type: TypeView, where: str = "value"):
        """A host value (as `call` takes arguments) as the run-time value of `type` — what an
        extension supplies when it substitutes a call. ValueError when it does not fit."""
        return self._api().from_python(value, typetest.of(type._t), where)

    def to_host(self, value):
        """A run-time value as `call` returns it (models, enum members, plain values)."""
        return self._api().to_python(value)

    def sidecar(self, fn: "FunctionView", extension: Extension) -> dict:
        """The extension's compile-time data for a function ({site id: data}), computed now
        if no run has needed it yet — e.g. to know every place an extension instruments."""
        mir = fn.mir
        rt = self._p.runtime
        nodes, events = rt.nodes(mir)
        parts = rt.compile_half(mir, extension, nodes, events)
        return {n.view.site: data for n, (data, _) in zip(nodes + list(events.values()), parts)
                if data is not None}

    def spaces(self) -> int:
        """How many code spaces the program has (the plain one, one per extension set)."""
        return self._p.runtime.spaces()

    def run_tests(self, pattern: str | None = None, extensions=()):
        """Run `test` blocks; yields records (file, name, passed, error)."""
        return self._p.iter_tests(pattern, extensions=tuple(extensions))

    def _api(self):
        if not hasattr(self, "_api_obj"):
            self._api_obj = BamlProgram(self._p)
        return self._api_obj

    # ── types ──
    def _type(self, texpr, namespace, generics=()):
        if texpr is None:
            return None
        return TypeView(self._p.lowering.types.resolve(texpr, namespace, frozenset(generics)), self)

    def _field_type(self, cls, field) -> TypeView:
        return self._type(field.type, cls.namespace, [g.name for g in cls.decl.generics])

    def _const_type(self, value) -> TypeView | None:
        if isinstance(value, bool):
            return TypeView(T.BOOL, self)
        prim = {int: T.INT, float: T.FLOAT, str: T.STRING, type(None): T.NULL}.get(type(value))
        if prim is not None:
            return TypeView(prim, self)
        if isinstance(value, Variant):
            e = self._p.index.enums.get(value.enum.fqn)
            return TypeView(T.EnumT(e, value.name), self) if e else None
        if isinstance(value, ir.FnRef) and value.fqn in self._p.index.functions:
            return self.function(value.fqn).type
        return None


class FunctionView:
    """One function: a free function, a method, a `test` block or a lambda."""

    def __init__(self, program: ProgramView, fqn: str):
        self.program = program
        self.fqn = fqn
        p = program._p
        self._fdef = p.index.functions.get(fqn)
        self._test = p.tests.get(fqn)
        self._mir = None

    @property
    def kind(self) -> str:
        if self._test is not None:
            return "test"
        if self._fdef is None:
            return "lambda"
        return "method" if self._fdef.owner is not None else "function"

    @property
    def name(self) -> str:
        if self._test is not None:
            return self._test.name
        return self._fdef.name if self._fdef is not None else self.fqn.rsplit(".", 1)[-1]

    @property
    def namespace(self) -> str | None:
        if self._test is not None:
            return self._test.namespace
        return self._fdef.namespace if self._fdef is not None else None

    @property
    def meta(self) -> dict:
        return self.program._meta(("function", self.fqn))

    @property
    def doc(self) -> str | None:
        """Its `///` doc comment."""
        return self._fdef.decl.doc if self._fdef is not None else None

    @property
    def span(self) -> SourceSpan | None:
        if self._test is not None:
            return source_span(self._test.decl.span)
        if self._fdef is not None:
            return source_span(self._fdef.decl.span)
        return source_span(self.mir.span)

    @property
    def owner(self) -> TypeView | None:
        if self._fdef is None or self._fdef.owner is None:
            return None
        return TypeView(interfaces.self_type(self._fdef.owner), self.program)

    def _generics(self):
        d = self._fdef.decl
        g = [x.name for x in d.generics]
        if self._fdef.owner is not None:
            g += [x.name for x in self._fdef.owner.decl.generics]
        return g

    @property
    def generics(self) -> list[GenericView]:
        """The function's own type parameters and their bounds (a method's class's are its
        owner's)."""
        if self._fdef is None:
            return []
        out = []
        for g in self._fdef.decl.generics:
            bounds = tuple(self.program._type(b, self.namespace, self._generics()) for b in g.bounds)
            written = tuple(".".join(b.path) if getattr(b, "path", None) else t.name for b, t in zip(g.bounds, bounds))
            out.append(GenericView(g.name, bounds, written))
        return out

    @property
    def params(self) -> list[ParamView]:
        made = self.__dict__.get("_params")  # views are immutable: made once
        if made is None:
            made = self.__dict__["_params"] = tuple(self._make_params())
        return list(made)

    def _make_params(self):
        if self._fdef is None:
            mir = self.mir
            return [ParamView(n, None, False, self.program._meta(("param", self.fqn, n)))
                    for n in mir.params[mir.n_captures:]]
        d = self._fdef.decl
        return [ParamView(p.name, self.program._type(p.type, self.namespace, self._generics()),
                          p.default is not None, self.program._meta(("param", self.fqn, p.name)))
                for p in d.params]

    @property
    def has_self(self) -> bool:
        return self._fdef is not None and self._fdef.decl.has_self

    @property
    def return_type(self) -> TypeView | None:
        if self._fdef is None:
            return None
        return self.program._type(self._fdef.decl.ret, self.namespace, self._generics())

    @property
    def throws_type(self) -> TypeView | None:
        if self._fdef is None:
            return None
        return self.program._type(self._fdef.decl.throws, self.namespace, self._generics())

    @property
    def type(self) -> TypeView | None:
        """The function's type `(params) -> ret throws e`."""
        if self._fdef is None:
            return None
        ps = tuple((p.name, p.type._t if p.type else T.UNKNOWN, p.has_default) for p in self.params)
        ret = self.return_type._t if self.return_type else T.UNKNOWN
        throws = self.throws_type._t if self.throws_type else None
        return TypeView(T.FuncT(ps, ret, throws), self.program)

    # ── MIR ──
    @property
    def mir(self):
        if self._mir is None:
            rt = self.program._p.runtime
            try:
                rt.lower(self.fqn.split(".<lambda")[0])
            except _CE as e:
                raise CompileError(e.diagnostics) from None
            self._mir = rt.mir[self.fqn]
        return self._mir

    @property
    def locals(self) -> list[LocalView]:
        return [LocalView(i, l.name, TypeView(l.ty, self.program) if l.ty is not None else None)
                for i, l in enumerate(self.mir.locals)]

    @property
    def blocks(self) -> list[BlockView]:
        mir = self.mir
        return [BlockView(b.id, tuple(self._node_view(b, s) for s in b.statements),
                          self._node_view(b, b.terminator), b.unwind[0] if b.unwind else None)
                for b in mir.blocks]

    @property
    def lambdas(self) -> list["FunctionView"]:
        self.mir
        prefix = self.fqn + ".<lambda"
        return [self.program.function(k) for k in self.program._p.runtime.mir if k.startswith(prefix)]

    def node_view(self, block, node):
        """The view of one MIR statement, check or terminator of `block`."""
        locs, prog = self.mir.locals, self.program
        site = self._site(block, node)
        if isinstance(node, ir.Check):
            return CheckView("check", node.panic, node.op,
                             tuple(operand_view(o, locs, prog) for o in node.operands),
                             source_span(node.span), block.id, site)
        if isinstance(node, ir.Assign):
            dest = node.dest.index if isinstance(node.dest, ir.Local) else None
            return StatementView("assign", place_view(node.dest, locs, prog),
                                 rvalue_view(node.value, locs, prog), source_span(node.span), block.id,
                                 site, dest, tuple(operand_view(o, locs, prog) for o in ir.node_operands(node)))
        return dataclasses.replace(self._terminator_view(node, source_span(block.term_span), locs),
                                   block=block.id, site=site)

    _node_view = node_view

    def event_view(self, kind: str) -> EventView:
        """The function-level events an extension may compile code into: 'entry', 'raise'."""
        return EventView(kind, self.span, f"{self.fqn}@{kind}")

    def _site(self, block, node) -> str:
        """A stable id: the function, the node's source position and kind (numbered when
        several nodes share both) — not the order in which lowering made blocks."""
        sites = self.__dict__.get("_sites")
        if sites is None:
            sites = self.__dict__["_sites"] = {}
            seen: dict = {}
            for b in self.mir.blocks:
                for i, n in enumerate(list(b.statements) + [b.terminator]):
                    span = n.span if isinstance(n, (ir.Assign, ir.Check)) else b.term_span
                    where = "%d:%d" % span.line_col if span is not None else f"bb{b.id}.{i}"
                    key = f"{self.fqn}@{where}/{_node_kind(n)}"
                    seen[key] = seen.get(key, 0) + 1
                    sites[id(n)] = key if seen[key] == 1 else f"{key}#{seen[key]}"
        return sites[id(node)]

    def _terminator_view(self, t, span, locs) -> TerminatorView:
        prog = self.program
        ops = lambda xs: tuple(operand_view(x, locs, prog) for x in xs)  # noqa: E731
        if isinstance(t, ir.Goto):
            return TerminatorView("goto", (t.target,), (), None, None, span)
        if isinstance(t, ir.Branch):
            return TerminatorView("branch", (t.then, t.else_), ops([t.cond]), None, t.origin or None, span)
        if isinstance(t, ir.Return):
            return TerminatorView("return", (), ops([ir.Copy(ir.Local(0))]), None, None, span)
        if isinstance(t, ir.Call):
            args = ops(t.args) + ops(a for _, a in t.kwargs)
            return TerminatorView("call", (t.target,), args, self._call_target(t, locs), None, span,
                                  dest=t.dest.index if t.dest is not None else None,
                                  kwnames=tuple(k for k, _ in t.kwargs))
        if isinstance(t, (ir.Throw, ir.Rethrow)):
            return TerminatorView("throw" if isinstance(t, ir.Throw) else "rethrow", (), ops([t.value]),
                                  None, None, span)
        if isinstance(t, ir.ThrowIfPanic):
            return TerminatorView("throw_if_panic", (t.otherwise,), ops([t.value]), None, None, span)
        return TerminatorView("unreachable", (), (), None, None, span)

    def _call_target(self, t, locs) -> CallTargetView:
        c, prog = t.callee, self.program
        if c.kind == "fn":
            fv = prog.function(c.name)
            return CallTargetView("function", c.name, fv, fv.type)
        if c.kind == "native":
            return CallTargetView("builtin", c.name.removeprefix("method:"), None, None)
        if c.kind == "method":
            return CallTargetView("method", c.name, None, None)
        if c.kind == "llm":  # an LLM function's body: `name` is that function (substitutable)
            fv = prog.function(c.name)
            return CallTargetView("llm", c.name, fv, fv.type)
        callee = operand_view(t.args[0], locs, prog)
        return CallTargetView("indirect", None, None, callee.type)

    def __repr__(self) -> str:
        return f"FunctionView({self.fqn})"


def _node_kind(n) -> str:
    if isinstance(n, ir.Check):
        return f"check:{n.panic.rsplit('.', 1)[-1]}:{n.op}"
    return type(n).__name__.lower()


class CompileError(Exception):
    """The program has errors; `diagnostics` are rendered `file:line:col: error[CODE]: …`."""

    def __init__(self, diagnostics: list):
        super().__init__("\n".join(d.render(excerpt=False) for d in diagnostics))
        self.diagnostics = [d.render(excerpt=False) for d in diagnostics]


def load(path: str) -> ProgramView:
    """Compile a .baml file or project directory (files under ns_<x>/ form namespace x)."""
    try:
        return view(compile_sources(discover(path)))
    except _CE as e:
        raise CompileError(e.diagnostics) from None


def compile(source: str, path: str = "main.baml") -> ProgramView:  # noqa: A001 — the verb
    try:
        return view(compile_sources([SourceFile(path, source, None)]))
    except _CE as e:
        raise CompileError(e.diagnostics) from None


def compile_files(files) -> ProgramView:
    """Compile source texts as one project: `files` are (path, text, namespace) triples, as
    `view.files` and `view.source_text` give them (how a program travels to another process)."""
    try:
        return view(compile_sources([SourceFile(path, text, namespace) for path, text, namespace in files]))
    except _CE as e:
        raise CompileError(e.diagnostics) from None


def view(program) -> ProgramView:
    """The view of an already compiled program (`assay.load(...)` or a compiler Program)."""
    p = getattr(program, "_p", program)
    if p.mirx_view is None:  # one view per program
        p.mirx_view = ProgramView(p)
    return p.mirx_view
