"""The Python bridge: load a BAML program and call its functions with Python values.

BAML classes appear as pydantic models (`prog.types.Point`), enums as `enum.Enum`; dicts are
accepted wherever a class is expected. A Python callable passed for a function-typed parameter
is callable from BAML; its exceptions become `baml.errors.HostCallable`."""
from __future__ import annotations

import enum
import traceback

import sys

from .bex import ops
from .bex.values import OMITTED, BamlRaise, BigInt, Instance, Variant
from .bex.vm import baml_traceback
from .bex.llmcall import LlmCallError, NoLlmClient
from .compiler import Program, compile_sources, describe_error, discover
from .llm.handler import LlmHandler
from .mir import typetest
from .source import CompileError, SourceFile
from .syntax import ingot as _ingot


class BamlException(Exception):
    """Base of errors raised out of BAML code."""

    def __init__(self, error: dict):
        self.error = error
        self.class_name = error["type"] if error["type"] != "BamlError" else None
        self.fields = error.get("fields", {})
        self.baml_traceback = error.get("traceback", [])  # [(function, file, line)], outermost first
        self.value = error.get("value", None) if self.class_name is None else to_plain_fields(self.fields)
        super().__init__(f"{error['type']}: {error['message']}")


class BamlPanic(BamlException):
    """A VM panic (`baml.panics.*`)."""


class BamlError(BamlException):
    """An uncaught `throw` (user values or `baml.errors.*`)."""


class ArgumentError(ValueError):
    """Arguments that do not fit the function's parameter types."""


def to_plain_fields(fields: dict) -> dict:
    return {k: to_plain(v) for k, v in fields.items()}


def to_plain(v):
    """JSON-like plain data: instances → dicts of fields, enum values → variant names."""
    if isinstance(v, Instance):
        return {f: to_plain(getattr(v, "f_" + f)) for f in v._class.fields}
    if _is_model(v):
        return {k: to_plain(x) for k, x in v.__dict__.items()}
    if isinstance(v, Variant):
        return v.name
    if isinstance(v, enum.Enum):
        return v.name
    if isinstance(v, list):
        return [to_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: to_plain(x) for k, x in v.items()}
    return v


def _is_model(v) -> bool:
    """A pydantic model instance? (pydantic is imported only once a model is made.)"""
    pd = sys.modules.get("pydantic")
    return pd is not None and isinstance(v, pd.BaseModel)


class _Types:
    """`prog.types.Point` (a pydantic model, made on first use) and `prog.types.Color` (an Enum)."""

    def __init__(self, prog: "BamlProgram"):
        self._prog = prog

    def __getattr__(self, name: str):
        prog = self._prog
        for fqn, c in prog._p.index.classes.items():
            if c.name == name:
                return prog._model(fqn)
        for fqn, en in prog._enums.items():
            if en.__name__ == name:
                return en
        raise AttributeError(name)


class BamlProgram:
    def __init__(self, program: Program):
        self._p = program
        self.types = _Types(self)
        self._models: dict[str, type] = {}
        self._enums: dict[str, type] = {}
        for fqn, e in program.runtime.enums.items():
            if fqn.startswith("user."):
                self._enums[fqn] = enum.Enum(e.name, {v: v for v in e.variants})
                self._enums[fqn]._meta = _ingot.enum_meta(self._ingot, fqn, list(e.variants))

    def _model(self, fqn: str) -> type:
        model = self._models.get(fqn)
        if model is None:
            import pydantic  # the field's choice for typed records; imported when first needed
            c = self._p.index.classes[fqn]
            model = pydantic.create_model(c.name, __config__=pydantic.ConfigDict(arbitrary_types_allowed=True),
                                          **{f: (object, None) for f in self._p.runtime.classes[fqn].fields})
            model._meta = _ingot.class_meta(self._ingot, fqn, list(self._p.runtime.classes[fqn].fields))
            self._models[fqn] = model
        return model

    @property
    def diagnostics(self):
        return self._p.diagnostics

    @property
    def _ingot(self) -> dict:
        return getattr(self._p.index, "ingot", {})

    @property
    def _meta(self):
        """`@@ingot` file-level annotations, merged over the files in sorted path order (`.ingot`)."""
        return _ingot.program_meta(self._ingot)

    @property
    def runtime(self):
        return self._p.runtime

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            self._p.resolve(name)
        except KeyError:
            raise AttributeError(name) from None
        return lambda *a, **k: self.call(name, *a, **k)

    def function(self, name: str):
        return self._p.resolve(name)

    def call(self, name: str, /, *args, **kwargs):
        fdef = self._p.resolve(name)
        values = self.bind(fdef, args, kwargs)
        try:
            result = self._p.call_fqn(fdef.fqn, values)
        except BamlRaise as e:
            err = describe_error(e.value, e.panic)
            err["traceback"] = baml_traceback(self._p.runtime, e)
            raise (BamlPanic if e.panic else BamlError)(err) from None
        return self.to_python(result)

    def bind(self, fdef, args, kwargs) -> list:
        params = fdef.decl.params
        if len(args) > len(params):
            raise ArgumentError(f"{fdef.name} takes {len(params)} arguments, {len(args)} given")
        out = []
        for i, p in enumerate(params):
            if i < len(args):
                v = args[i]
            elif p.name in kwargs:
                v = kwargs.pop(p.name)
            elif p.default is not None:
                out.append(self._omit())
                continue
            else:
                raise ArgumentError(f"missing argument `{p.name}` of {fdef.name}")
            t = self._test(fdef, p.type)
            out.append(self.from_python(v, t, p.name))
        if kwargs:
            raise ArgumentError(f"unknown argument `{next(iter(kwargs))}` of {fdef.name}")
        return out

    def _omit(self):
        return OMITTED

    def _test(self, fdef, texpr):
        if texpr is None:
            return ("any",)
        generics = {g.name for g in fdef.decl.generics}
        return self._p.type_test(fdef.namespace, texpr, generics)

    # ── conversions ──

    def from_python(self, v, t: tuple, where: str):
        """A Python value as the BAML value of type test `t` (ArgumentError if it does not fit)."""
        k = t[0]
        rt = self._p.runtime
        if k == "union":
            for m in t[1]:
                try:
                    return self.from_python(v, m, where)
                except ArgumentError:
                    continue
            raise ArgumentError(f"argument `{where}`: {v!r} does not fit {typetest.show(t)}")
        if k == "any":
            return self._guess(v)
        if k == "float" and type(v) is int and not isinstance(v, bool):
            return float(v)
        if k == "bigint" and isinstance(v, int) and not isinstance(v, bool):
            return BigInt(v)
        if k == "int" and type(v) is int:
            if not ops.INT_MIN <= v <= ops.INT_MAX:
                raise ArgumentError(f"argument `{where}`: {v} does not fit in a 63-bit int")
            return v
        if k in ("float", "string", "bool", "null"):
            py = {"float": float, "string": str, "bool": bool, "null": type(None)}[k]
            if type(v) is py:
                return v
        elif k == "lit":
            if type(v) is type(t[1]) and v == t[1]:
                return v
            if type(t[1]) not in (int, bool) and isinstance(t[1], int) and type(v) in (int, BigInt) and v == t[1]:
                return BigInt(v)  # a bigint literal type (`3n`)
        elif k == "array" and isinstance(v, (list, tuple)):
            return [self.from_python(x, t[1], where) for x in v]
        elif k == "map" and isinstance(v, dict):
            return {self.from_python(a, t[1], where): self.from_python(b, t[2], where) for a, b in v.items()}
        elif k == "class":
            info = rt.classes[t[1]]
            if isinstance(v, Instance) and v._class is info:
                return v
            if _is_model(v):
                v = dict(v.__dict__)
            if isinstance(v, dict):
                cdef = self._p.index.classes.get(t[1])
                vals = []
                for f in (cdef.fields if cdef else []):
                    ft = self._test_in(cdef, f.type)
                    if f.name in v:
                        vals.append(self.from_python(v[f.name], ft, f"{where}.{f.name}"))
                    elif ft == ("null",) or (ft[0] == "union" and ("null",) in ft[1]):
                        vals.append(None)
                    else:
                        raise ArgumentError(f"argument `{where}`: missing field `{f.name}`")
                extra = set(v) - {f.name for f in (cdef.fields if cdef else [])}
                if extra:
                    raise ArgumentError(f"argument `{where}`: unknown field `{sorted(extra)[0]}`")
                return info.py(*vals)
        elif k in ("enum", "variant"):
            e = rt.enums[t[1]]
            name = v.name if isinstance(v, (enum.Enum, Variant)) else v
            if isinstance(name, str) and name in e.variants and (k == "enum" or name == t[2]):
                return e.variants[name]
        elif k == "function" and callable(v):
            return host_callable(v)
        raise ArgumentError(f"argument `{where}`: {v!r} does not fit {typetest.show(t)}")

    def _test_in(self, cdef, texpr):
        generics = {g.name for g in cdef.decl.generics}
        return self._p.type_test(cdef.namespace, texpr, generics)

    def _guess(self, v):
        if _is_model(v):
            for fqn, m in list(self._models.items()):
                if type(v) is m:
                    return self.from_python(v, ("class", fqn), "value")
        if isinstance(v, enum.Enum):
            for fqn, en in self._enums.items():
                if type(v) is en:
                    return self._p.runtime.enums[fqn].variants[v.name]
        if isinstance(v, (list, tuple)):
            return [self._guess(x) for x in v]
        if isinstance(v, dict):
            return {k: self._guess(x) for k, x in v.items()}
        if callable(v) and not isinstance(v, type) and not isinstance(v, Instance):
            return self.host(v)
        return v  # any other Python object passes through unchanged (an opaque value)

    def to_python(self, v):
        t = type(v)
        if t is int or t is str or t is float or t is bool or v is None:
            return v
        return self._to_python(v)

    def _to_python(self, v):
        if type(v) is BigInt:
            return int(v)  # a bigint reaches the host as a plain int, as from the engine
        if isinstance(v, Instance):
            fields = {f: self.to_python(getattr(v, "f_" + f)) for f in v._class.fields}
            if v._class.fqn in self._p.index.classes:
                return self._model(v._class.fqn)(**fields)
            return fields
        if isinstance(v, Variant):
            en = self._enums.get(v.enum.fqn)
            return en[v.name] if en is not None else v.name
        if isinstance(v, list):
            return [self.to_python(x) for x in v]
        if isinstance(v, dict):
            return {k: self.to_python(x) for k, x in v.items()}
        return v

    def set_llm(self, client) -> "BamlProgram":
        """Answer the program's LLM functions with `client(function_name, prompt, json_schema)`
        (sync, or async: an awaitable result is awaited), returning a value of the function's
        return type (converted and checked as arguments are; a misfit raises LlmCallError).
        `prompt` is the rendered prompt (a str; `.messages` lists its chat messages). A
        `assay.llm.client.Replay` replays recorded answers. None removes the client (an LLM call
        then raises NoLlmClient, naming the function)."""
        self._p.runtime.llm = None if client is None else LlmHandler(self._p, client, self.from_python, to_plain)
        return self

    def run_tests(self, pattern: str | None = None, fail_fast: bool = False):
        return self._p.run_tests(pattern, fail_fast)


def host_callable(f):
    """Wrap a Python callable so that its exceptions become baml.errors.HostCallable."""
    if getattr(f, "baml_params", None) is not None or isinstance(f, _Host):
        return f
    return _Host(f)


class _Host:
    __slots__ = ("f",)

    def __init__(self, f):
        self.f = f

    def __call__(self, *args):
        try:
            return self.f(*args)
        except BamlRaise:
            raise
        except Exception as e:  # noqa: BLE001 — the host's error, handed to BAML
            info = ops.BUILTIN_CLASSES["baml.errors.HostCallable"]
            fields = {"message": f"{type(e).__name__}: {e}", "class_name": type(e).__name__,
                      "language": "python", "traceback": "".join(traceback.format_exception(e))}
            raise BamlRaise(info.py(*(fields[f] for f in info.fields))) from None


def load(path: str, llm=None) -> BamlProgram:
    """`llm`: the LLM client of the program's LLM functions (see BamlProgram.set_llm)."""
    return BamlProgram(compile_sources(discover(path))).set_llm(llm)


def compile(source: str, path: str = "main.baml", llm=None) -> BamlProgram:  # noqa: A001 — the API's name
    return BamlProgram(compile_sources([SourceFile(path, source, None)])).set_llm(llm)


__all__ = ["load", "compile", "to_plain", "BamlPanic", "BamlError", "BamlException", "ArgumentError",
           "CompileError", "BamlProgram", "LlmCallError", "NoLlmClient"]
