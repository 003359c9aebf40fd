"""The Python bridge: load a BAML program and call its functions with Python values.

BAML classes appear as typed pydantic models (`prog.types.Point`; see `pymodels`), enums as `enum.Enum`; dicts are
accepted wherever a class is expected. A Python callable passed for a function-typed parameter
is callable from BAML; its exceptions become `baml.errors.HostCallable`."""
from __future__ import annotations

import enum
import functools
import types
import threading
import traceback

import sys

from . import jsonvalue, pymodels
from .bex import ops
from .bex.stack import TimeLimit, time_limit
from .bex.values import (INT_MAX, INT_MIN, JSON_ENTRY, JSON_TEST, OMITTED, BamlRaise, BigInt, Instance, Variant,
                          json_list, json_map, typed_list, typed_map)
from .bex.pygen import CLOSURE_NAME
from .bex.vm import Stub, baml_traceback, call_n, is_baml_function, run_deep
from .bex.llmcall import LlmCallError, NoLlmClient
from .compiler import Program, SourceError, compile_sources, describe_error, discover
from .llm.handler import LlmHandler
from .mir import typetest
from .bex.stdlib import reflect as reflect_std
from .sema import stdsigs
from .sema.reflect import UNKNOWN, describe
from .sema.types import show as show_type, strip_null
from .source import CompileError, SourceFile
from .syntax import ingot as _ingot


class BamlException(Exception):
    """Base of errors raised out of BAML code."""

    def __init__(self, error: dict):
        self.error = error
        self.class_name = error["type"] if error["type"] != "BamlError" else None
        self.fields = error.get("fields", {})
        self._traceback = error.get("traceback")
        self.value = error.get("value", None) if self.class_name is None else to_plain_fields(self.fields)
        super().__init__(f"{error['type']}: {error['message']}")


    @property
    def baml_traceback(self) -> list:
        """[(function, file, line)], outermost first (computed when first asked for)."""
        if self._traceback is None:
            raised, rt = getattr(self, "raised", None), getattr(self, "_rt", None)
            self._traceback = baml_traceback(rt, raised) if raised is not None and rt is not None else []
            self.error["traceback"] = self._traceback
        return self._traceback


class BamlPanic(BamlException):
    """A VM panic (`baml.panics.*`)."""


class BamlError(BamlException):
    """An uncaught `throw` (user values or `baml.errors.*`)."""


class ArgumentError(ValueError):
    """Arguments that do not fit the function's parameter types."""


class MissingArgument(ArgumentError, BamlError):
    """A parameter without a default given no argument (optional ones too), or an argument no
    parameter takes: the engine's `baml.errors.InvalidArgument` (`Invalid argument: b`,
    `Invalid argument: extra arguments: z`), still an ArgumentError whose text names the function."""

    def __init__(self, text: str, engine_message: str):
        BamlError.__init__(self, {"type": "baml.errors.InvalidArgument", "message": engine_message,
                                  "fields": {"message": engine_message}})
        self.text = text

    def __str__(self) -> str:
        return self.text


def to_plain_fields(fields: dict) -> dict:
    return {k: to_plain(v) for k, v in fields.items()}


def to_plain(v):
    """JSON-like plain data: instances → dicts of fields, enum values → variant names."""
    if isinstance(v, Instance):
        return {f: to_plain(getattr(v, "f_" + f)) for f in v._class.fields}
    if type(v) is BigInt:
        return int(v)
    if _is_model(v):
        return {k: to_plain(x) for k, x in v.__dict__.items()}
    if isinstance(v, Variant):
        return v.name
    if isinstance(v, enum.Enum):
        return v.name
    if isinstance(v, list):
        return [to_plain(x) for x in v]
    if isinstance(v, dict):
        return {host_key(k, to_plain): to_plain(x) for k, x in v.items()}
    return v


def host_key(k, convert):
    """A BAML map key as a Python dict key: strings and ints as themselves; other keys
    (ops.MapKey) converted by `convert`, arrays as tuples and maps as tuples of pairs (Python
    keys must be hashable), instances as tuples of (field, value) pairs. Python merges keys
    BAML keeps apart (`1`, `true`, `1.0`): the last one wins."""
    if type(k) is str or type(k) is int:
        return k
    v = _hashable(convert(ops.unkey(k)))
    try:
        hash(v)
    except TypeError:  # a class instance (a pydantic model): its fields, as pairs
        v = _hashable(to_plain(ops.unkey(k)))
    return v


def _hashable(v):
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple((k, _hashable(x)) for k, x in v.items())
    if isinstance(v, bytearray):
        return bytes(v)
    return v


def _is_model(v) -> bool:
    """A pydantic model instance? (pydantic is imported only once a model is made.)"""
    pd = sys.modules.get("pydantic")
    return pd is not None and isinstance(v, pd.BaseModel)


_MODEL_LOCK = threading.RLock()  # models are made once, whole, even under concurrent first use


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
        self._entries: dict[str, _Entry] = {}
        self._by_fqn: dict[str, _Entry] = {}
        for fqn, e in program.runtime.enums.items():
            if fqn.startswith("user."):
                self._enums[fqn] = enum.Enum(e.name, {v: v for v in e.variants})
                self._enums[fqn]._meta = _ingot.enum_meta(self._ingot, fqn, list(e.variants))

    def _model(self, fqn: str) -> type:
        """The pydantic model of user class `fqn`, typed from the BAML field types (made on first
        use, together with the classes its fields reach that have no model yet)."""
        model = self._models.get(fqn)
        if model is None:
            with _MODEL_LOCK:
                model = self._models.get(fqn)
                if model is None:
                    pymodels.build(self, fqn)
                    model = self._models[fqn]
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
            entry = self._entry(name)
        except KeyError:
            raise AttributeError(name) from None
        fn = self.__dict__[name] = entry.call  # later `prog.Fn` finds it without __getattr__
        return fn

    def function(self, name: str):
        """The function handle (`prog.function("ns.Fn")` is `prog.Fn`): callable, with `_meta`."""
        return self._entry(name).call

    def call(self, name: str, /, *args, **kwargs):
        entry = self._entries.get(name)
        if entry is None:
            entry = self._entry(name)
        return entry.call(*args, **kwargs)

    def _entry(self, name: str) -> "_Entry":
        entry = self._entries.get(name)
        if entry is None:
            fdef = self._p.resolve(name)
            entry = self._entries[name] = self._by_fqn.get(fdef.fqn) or _Entry(self, fdef)  # one handle per function
        return entry

    def _run(self, fn, values: list):
        """Run a BAML function value from Python (on this thread) and convert its result."""
        try:
            result = run_deep(fn, values)
        except BamlRaise as e:
            raise self._error(e) from None
        return self.result(result)

    def result(self, v):
        """A call's result for the host: one nested too deeply to convert (a 100k-long linked
        list) is baml.panics.StackOverflow, not Python's RecursionError."""
        try:
            return self._to_python(v)
        except RecursionError:
            over = ops.make_builtin("baml.panics.StackOverflow",
                                    message="stack overflow: the result is nested too deeply to convert to Python")
            raise self._error(BamlRaise(over, True)) from None

    def _error(self, e: BamlRaise) -> "BamlException":
        exc = (BamlPanic if e.panic else BamlError)(describe_error(e.value, e.panic))
        # the thrown value and its fields reach the host as results do (bigints as ints,
        # instances as models, enum values as the host's members), as from the engine
        exc.fields = {k: self.to_python(v) for k, v in exc.fields.items()}
        if exc.class_name is None:
            exc.value = self.to_python(exc.value)
        exc.raised = e
        exc._rt = self._p.runtime  # the BAML traceback is computed when asked for
        return exc

    def bind(self, fdef, args, kwargs) -> list:
        if fdef.fqn not in self._by_fqn:
            _Entry(self, fdef)
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
            else:  # an optional parameter too: the engine requires every argument without a default
                raise MissingArgument(f"missing argument `{p.name}` of {fdef.name}", f"Invalid argument: {p.name}")
            entry = self._by_fqn.get(fdef.fqn)
            conv = entry.pconvs[i] if entry is not None else None
            out.append(conv(v) if conv is not None else self.from_python(v, self._test(fdef, p.type), p.name))
        if kwargs:
            raise MissingArgument(f"unknown argument `{next(iter(kwargs))}` of {fdef.name}",
                                  f"Invalid argument: extra arguments: {', '.join(kwargs)}")
        if fdef.owner is None and self._p.lowering.reifying(fdef):
            out.append(self._host_targs(fdef, out))
        return out

    def _host_targs(self, fdef, values: list) -> tuple:
        """A generic function's type arguments from the host's argument values (`$targs`), as
        the engine infers them: each type parameter the union of the values' run-time types
        where a parameter's type names it; one no value shows is a TypeError (the engine's)."""
        gens = tuple(g.name for g in fdef.decl.generics)
        resolve = self._p.lowering.types.resolve
        descs = [describe(resolve(p.type, fdef.namespace, frozenset(gens)), gens) for p in fdef.decl.params]
        got = reflect_std.host_targs(descs, values, len(gens), self._p.runtime.reflection)
        for g, d in zip(gens, got):
            if d is None:
                raise TypeError(f"`{fdef.name}` is a generic BAML function, and BAML could not infer a type "
                                f"for its type parameter `{g}` from the call arguments. Python callers must "
                                f"specify it explicitly as a subscript — e.g. `{fdef.name}[int](...)`.")
        return got

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
            # the engine decides by the value's kind: a str is the string member, never an enum
            # variant of the same name (`Color | string`; `{"$enum": …}` chooses the variant)
            members = sorted(t[1], key=lambda m: m[0] != "string") if type(v) is str else t[1]
            if type(v) is int:  # an int is the int member (out of its range: refused), then bigint, then float
                if any(_int_rank(m) == 0 for m in members) and not ops.INT_MIN <= v <= ops.INT_MAX:
                    raise ArgumentError(f"argument `{where}`: {v} does not fit in a 63-bit int")
                members = sorted(members, key=_int_rank)
            elif type(v) in (list, dict):  # a container member its ints fit as ints first (`float[] | int[]`)
                members = sorted(members, key=lambda m: not _exact(v, m))
            for m in members:
                try:
                    return self.from_python(v, m, where)
                except ArgumentError:
                    continue
            raise ArgumentError(f"argument `{where}`: {jsonvalue.display(v)} does not fit {typetest.show(t)}")
        if k in ("any", "unknown", "anyclass", "anyfunction"):  # (the interfaces: checked in BAML)
            return self._unknown_arg(v, k == "unknown")
        if k == "json":
            return self._json(v, where)
        if k == "float" and type(v) is int and not isinstance(v, bool):
            return float(v)
        if k == "bigint" and isinstance(v, int) and not isinstance(v, bool):
            return BigInt(v)
        if k == "uint8array" and type(v) in (bytes, bytearray):
            return bytearray(v) if type(v) is bytes else v
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
            if type(t[1]) not in (int, bool) and isinstance(t[1], int) and type(v) in (int, BigInt) \
                    and int(v) == int(t[1]):
                return BigInt(v)  # a bigint literal type (`3n`)
        elif k == "array" and isinstance(v, (list, tuple)):
            if t[1] == JSON_TEST:  # `json[]`, as the engine records it
                return self._json(list(v), where)
            items = [self.from_python(x, t[1], where) for x in v]
            return typed_list(items, t[1]) if not items or _untold_by_items(t[1]) else items
        elif k == "map" and isinstance(v, dict):
            if (t[1], t[2]) == JSON_ENTRY:
                return self._json(v, where)
            m = {ops.mkey(self.from_python(a, t[1], where)): self.from_python(b, t[2], where) for a, b in v.items()}
            return typed_map(m, (t[1], t[2])) if not m or _untold_by_items(t[1]) or _untold_by_items(t[2]) else m
        elif k == "class":
            info = rt.classes[t[1]]
            if isinstance(v, Instance) and v._class is info:
                return v
            if _is_model(v):
                v = dict(v.__dict__)
            if isinstance(v, dict) and t[1] not in self._p.index.classes and t[1].startswith("baml.") \
                    and not any(f.startswith("_") for f in info.fields):  # `baml.csv.ReaderOptions`, …
                extra = set(v) - set(info.fields)
                if extra:
                    raise ArgumentError(f"argument `{where}`: unknown field `{sorted(extra)[0]}`")
                return info.py(*(self._guess(v[f]) if f in v else None for f in info.fields))
            fields = typetest.STD_FIELDS.get(t[1])
            if fields is None and t[1] in stdsigs.DATA_CLASSES:  # a client or report, as a dict of its fields
                fields = tuple((n, rt.reflection.program.field_type(t[1], ft))
                               for n, ft in stdsigs.STD_CLASSES[t[1]].items())
            if isinstance(v, dict) and fields is not None:  # `baml.time.Duration` as `{"_nanoseconds": 5}`
                return self._std_instance(info, fields, v, where)
            if isinstance(v, dict):
                cdef = self._p.index.classes.get(t[1])
                vals = []
                targs = dict(zip((g.name for g in cdef.decl.generics), t[2])) if cdef and len(t) > 2 else None
                for f in (cdef.fields if cdef else []):
                    ft = self._test_in(cdef, f.type, targs)
                    if f.name in v:
                        vals.append(self.from_python(v[f.name], ft, f"{where}.{f.name}"))
                    elif ft in (("null",), JSON_TEST) or (ft[0] == "union" and (
                            ("null",) in ft[1] or JSON_TEST in ft[1])):  # a missing json is null
                        vals.append(None)
                    else:
                        raise ArgumentError(f"argument `{where}`: missing field `{f.name}`")
                extra = set(v) - {f.name for f in (cdef.fields if cdef else [])}
                if extra:
                    raise ArgumentError(f"argument `{where}`: unknown field `{sorted(extra)[0]}`")
                inst = info.py(*vals)
                if len(t) > 2:  # a generic class's instance records its type arguments (`Box<int?>`)
                    inst._targs = repr(t[2])
                return inst
        elif k in ("enum", "variant"):
            e = rt.enums[t[1]]
            name = v.name if isinstance(v, (enum.Enum, Variant)) else v
            if isinstance(name, str) and name in e.variants and (k == "enum" or name == t[2]):
                return e.variants[name]
        elif k == "function" and callable(v):
            return self.host(v, sig=t[1])
        raise ArgumentError(f"argument `{where}`: {jsonvalue.display(v)} does not fit {typetest.show(t)}")

    def _std_instance(self, info, fields: tuple, v: dict, where: str):
        """A stdlib class from a dict of its fields, each converted as its type says."""
        extra = set(v) - {n for n, _ in fields}
        if extra:
            raise ArgumentError(f"argument `{where}`: unknown field `{sorted(extra)[0]}`")
        vals = []
        for name, ft in fields:
            if name not in v and typetest.of(ft) == typetest.of(strip_null(ft)):  # not optional
                raise ArgumentError(f"argument `{where}`: missing field `{name}`")
            vals.append(self.from_python(v.get(name), typetest.of(ft), f"{where}.{name}"))
        return info.new(*vals)

    def _json(self, v, where: str):
        """A JSON-shaped Python value as `json`: arrays `json[]`, objects `map<string, json>`."""
        t = type(v)
        if t is list or t is tuple:
            out = json_list()
            out.extend(self._json(x, where) for x in v)
            return out
        if t is dict and all(type(k) is str for k in v):
            m = json_map()
            for k, x in v.items():
                m[k] = self._json(x, where)
            return m
        if t is int:
            return self.from_python(v, ("int",), where)
        if t in (float, str, bool, type(None)):
            return v
        raise ArgumentError(f"argument `{where}`: {jsonvalue.display(v)} does not fit baml.json.json")

    def _test_in(self, cdef, texpr, targs: dict | None = None):
        """A field's test; a generic class's at the type arguments `targs` (`Box<int>`'s `value`: int)."""
        generics = {g.name for g in cdef.decl.generics}
        return self._p.type_test(cdef.namespace, texpr, generics, targs)

    def _unknown_arg(self, v, declared: bool = False):
        """A value passed where `unknown` is declared: a host callable (a Python function,
        method or partial) has no function type there to take, and the engine's bridge refuses
        it; another callable object passes through as an opaque value (docs/deviations.md)."""
        if isinstance(v, _HOST_FUNCTIONS) and getattr(v, "baml_function", None) is None \
                and getattr(v, "host_f", None) is None and not is_baml_function(self._p.runtime, v):
            raise TypeError("host callable cannot be passed where the declared type is `unknown`; "
                            "expected a function type or `$rust_type`")
        return self._guess(v, declared)

    def _guess(self, v, declared: bool = False):
        """A host value as BAML's, its type told by its Python type; where `unknown` is
        declared (`declared`), its arrays and maps record the engine's decoding of one."""
        if _is_model(v):
            for fqn, m in list(self._models.items()):
                if isinstance(v, m):  # also a parametrized generic model (`Box[int]`)
                    return self.from_python(v, ("class", fqn), "value")
        if isinstance(v, enum.Enum):
            for fqn, en in self._enums.items():
                if type(v) is en:
                    return self._p.runtime.enums[fqn].variants[v.name]
        if isinstance(v, (list, tuple)):
            items = [self._guess(x, declared) for x in v]
            return typed_list(items, typetest.HOST_SCALARS) if declared else items
        if isinstance(v, dict):
            m = {ops.mkey(self._guess(k)): self._guess(x, declared) for k, x in v.items()}
            return (typed_map(m, (("string",), typetest.HOST_SCALARS))
                    if declared and all(type(k) is str for k in v) else m)
        if type(v) is bytes:  # a uint8array is mutable: the VM's is a bytearray
            return bytearray(v)
        if callable(v) and not isinstance(v, type) and not isinstance(v, Instance):
            return self.host(v)
        if type(v) is int and not ops.INT_MIN <= v <= ops.INT_MAX:  # no BAML int holds it
            raise ArgumentError(f"argument: {v} does not fit in a 63-bit int")
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
            model = self._models.get(v._class.fqn)
            if model is None:
                if v._class.fqn not in self._p.index.classes:
                    return fields
                model = self._model(v._class.fqn)
            return pymodels.construct(model, fields)  # the VM's values are valid: no validation
        if isinstance(v, Variant):
            en = self._enums.get(v.enum.fqn)
            return en[v.name] if en is not None else v.name
        if isinstance(v, list):
            return [self.to_python(x) for x in v]
        if isinstance(v, dict):  # keys are strings, enum values (as the host's enum members), …
            return {host_key(k, self.to_python): self.to_python(x) for k, x in v.items()}
        if type(v) is bytearray:  # a uint8array, as the engine's Python API returns it
            return bytes(v)
        if callable(v):
            host = getattr(v, "host_f", None)
            if host is not None:
                return host  # a Python callable that went through BAML comes back as itself
            if isinstance(v, Stub):  # a function not called yet: compiled now, to be handed out
                v = v.space.compile(v.fqn)
            if is_baml_function(self._p.runtime, v):
                return self._baml_callable(v)
        return v

    def _baml_callable(self, fn):
        """A BAML function value as a Python callable (arguments guessed, result converted)."""
        code = getattr(fn, "__code__", None)
        # a closure made in place takes its captures as trailing parameters: no more arguments
        arity = code.co_argcount - len(fn.__defaults__ or ()) if code is not None and code.co_name == CLOSURE_NAME else -1

        def call(*args):
            if arity >= 0 and len(args) != arity:
                raise TypeError(f"the BAML function takes {arity} arguments ({len(args)} given)")
            return self._run(fn, [self._guess(a) for a in args])
        call.baml_function = fn
        return call

    # ── host callables ──

    def host(self, f, fty=None, sig=None):
        """A Python callable as a BAML function value: it receives what `prog.call` returns
        (plain values, pydantic models, enum members); with the declared function type `fty`,
        its result is checked against the return type (baml.panics.HostContractViolation);
        its exceptions become baml.errors.HostCallable. It has the declared function type
        (`fty`, or the descriptor `sig` where it sits inside a typed value), as the engine's
        bridge gives it, for `is` and `reflect.Type.of_value`."""
        inner = getattr(f, "baml_function", None)
        if inner is not None:
            return inner  # a BAML function that went out to Python comes back as itself
        if getattr(f, "host_f", None) is not None or is_baml_function(self._p.runtime, f):
            return f
        ret = shown = None
        if fty is not None:
            ret = typetest.of(fty.ret)
            shown = show_type(fty.ret, qualified=True)
            arity = len(fty.params)
            sig = describe(fty)
            if fty.throws is None:  # a parameter's function type without `throws`: unknown
                sig = sig[:3] + (UNKNOWN,)
        else:
            arity = -1
        h = _make_host(self, f, arity, ret, shown)
        if sig is not None:
            h.baml_sig = sig  # its signature to `is` and reflection: the declared type's
        return h

    def _check_return(self, r, t: tuple, shown: str):
        """A host callable's result `r` as the BAML value of its declared return type (test `t`,
        shown as `shown`), checked by the engine's rules: the value's shape must be the type's —
        no int for a float, no map for a class, no string for an enum — else the engine's
        baml.panics.HostContractViolation; a value the engine's bridge cannot encode at all (an
        opaque object outside `unknown`) is its baml.errors.HostCallable TypeError."""
        if _fits_shape(r, t):
            try:
                return self.from_python(r, t, "return value")
            except ArgumentError:
                pass
        odd = _unencodable(r)
        if odd is not None:
            message = f"Cannot encode argument '<host-callable result>' of type {odd} into baml_inbound.proto"
            raise _host_error(TypeError(message), traceback_text=None)
        info = ops.BUILTIN_CLASSES["baml.panics.HostContractViolation"]
        fields = {"message": f"host callable returned a value of the wrong type: host callable returned a value "
                            f"of type `{_kind(r)}` that does not match the declared return type `{shown}` "
                            f"(expected {shown})",
                  "class_name": None, "language": None}
        raise BamlRaise(info.py(*(fields[n] for n in info.fields)), True) from None

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
        """Run the program's `test` blocks and the tests of its testsets (ids `set::…::test`):
        a TestOutcome (file, name, passed, error, tolerated) each. `tolerated`: failed, but
        inside a testset whose runner passed all the same (`testing.PassRate`)."""
        return self._p.run_tests(pattern, fail_fast)


_HOST_FUNCTIONS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, functools.partial)


def host_callable(f):
    """Wrap a Python callable (untyped, arguments unconverted) so that its exceptions become
    baml.errors.HostCallable. Prefer BamlProgram.host."""
    if getattr(f, "baml_params", None) is not None or getattr(f, "host_f", None) is not None:
        return f
    return _make_host(None, f, -1, None)


def _host_error(e: BaseException, traceback_text: str | None = ""):
    """A host callable's exception as the BAML error it becomes (`traceback_text` "": the
    exception's own)."""
    if isinstance(e, BamlPanic) and e.class_name == "baml.panics.StackOverflow":
        return e.raised  # a nested call ran out of stack: the whole call stack overflows
    info = ops.BUILTIN_CLASSES["baml.errors.HostCallable"]
    if traceback_text == "":
        traceback_text = "".join(traceback.format_exception(e))
    fields = {"message": f"{type(e).__name__}: {e}", "class_name": type(e).__name__,
              "language": "python", "traceback": traceback_text}
    return BamlRaise(info.py(*(fields[f] for f in info.fields)))


_SCALARS = {type(None): "null", bool: "bool", float: "float", str: "string", bytes: "uint8array",
            bytearray: "uint8array", BigInt: "bigint"}
_SHAPES = {"null": (type(None),), "bool": (bool,), "float": (float,), "string": (str,)}


def _kind(v) -> str:
    """The engine's name for the kind of a Python value its bridge encodes (in its messages)."""
    k = _SCALARS.get(type(v))
    if k is not None:
        return k
    if isinstance(v, int) and not isinstance(v, bool):
        return "int" if -(1 << 63) <= v < (1 << 63) else "bigint"
    if isinstance(v, enum.Enum) or type(v) is Variant:
        return "variant"
    if isinstance(v, (list, tuple)):
        return "array"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, Instance) or hasattr(type(v), "model_fields"):
        return "instance"
    if callable(v) and not isinstance(v, type):
        return "function" if getattr(v, "baml_function", None) is not None else "host_value"
    return type(v).__name__


def _fits_shape(v, t: tuple) -> bool:
    """The engine's shape rules for a host callable's result (its conversions are stricter
    than those of call arguments): int and float distinct, a class only from an instance (a
    pydantic model), an enum only from an enum member, a bigint only from a bigint."""
    k = t[0]
    if k == "union":
        return any(_fits_shape(v, m) for m in t[1])
    if k in _SHAPES:
        return type(v) in _SHAPES[k]
    if k == "int":
        return type(v) is int
    if k == "bigint":
        return type(v) is BigInt or (type(v) is int and not -(1 << 63) <= v < (1 << 63))
    if k == "array":
        return isinstance(v, (list, tuple)) and all(_fits_shape(x, t[1]) for x in v)
    if k == "map":
        return isinstance(v, dict) and all(_fits_shape(x, t[2]) for x in v.values())
    if k in ("class", "enum", "variant"):
        return not isinstance(v, (dict, str, int, float, list, tuple, type(None)))
    return True


def _unencodable(v) -> str | None:
    """The type name of the first value inside `v` the engine's bridge cannot encode."""
    if type(v) in _SCALARS or isinstance(v, (int, float, str, enum.Enum, Variant, Instance)):
        return None
    if isinstance(v, (list, tuple)):
        return next((n for n in map(_unencodable, v) if n is not None), None)
    if isinstance(v, dict):
        return next((n for n in map(_unencodable, [*v.keys(), *v.values()]) if n is not None), None)
    if (callable(v) and not isinstance(v, type)) or hasattr(type(v), "model_fields"):
        return None
    return type(v).__name__


def _make_host(prog, f, arity: int, ret, shown: str | None = None):
    """The BAML function value of host callable `f` (a plain Python function: BAML's call of
    it and its call of `f` are Python-to-Python calls, which grow no C stack); `ret` is the
    test of its declared return type (None: unchecked), `shown` that type as BAML writes it."""
    conv = prog.to_python if prog is not None else (lambda v: v)
    if ret is not None and ret == ("int",):
        def check(r):
            if type(r) is int and INT_MIN <= r <= INT_MAX:
                return r
            return prog._check_return(r, ret, shown)
    elif ret is not None:
        def check(r):
            return prog._check_return(r, ret, shown)
    else:
        check = prog._guess if prog is not None else (lambda r: r)
    if arity == 1:
        def host(a):
            try:
                r = f(conv(a))
            except BamlRaise:
                raise
            except Exception as e:  # noqa: BLE001 — the host's error, handed to BAML
                raise _host_error(e) from None
            return check(r)
    elif arity == 2:
        def host(a, b):
            try:
                r = f(conv(a), conv(b))
            except BamlRaise:
                raise
            except Exception as e:  # noqa: BLE001
                raise _host_error(e) from None
            return check(r)
    else:
        def host(*args):
            try:
                r = call_n(f, [conv(a) for a in args])
            except BamlRaise:
                raise
            except Exception as e:  # noqa: BLE001
                raise _host_error(e) from None
            return check(r)
    host.host_f = f
    return host


class _Entry:
    """A function as called from Python: its parameters' converters, made once."""

    def __init__(self, prog: BamlProgram, fdef):
        self.prog = prog
        self.fdef = fdef
        self.fqn = fdef.fqn
        self.names = [param.name for param in fdef.decl.params]
        p = prog._p
        self.pconvs = [self._converter(param) for param in fdef.decl.params]  # None: the general path
        convs = [None if param.default is not None else c for param, c in zip(fdef.decl.params, self.pconvs)]
        self.convs = convs if all(c is not None for c in convs) else None
        self.fn = None
        name = fdef.name
        n = len(fdef.decl.params)
        rt = p.runtime
        entry = self

        def call(*args, **kwargs):
            convs = entry.convs
            if kwargs or convs is None or len(args) != n:
                values = prog.bind(fdef, args, kwargs)
            else:
                values = [c(a) for c, a in zip(convs, args)]
            fn = entry.fn
            if fn is None:
                fn = entry.fn = rt.plain.compile(entry.fqn)
            try:
                result = run_deep(fn, values)
            except BamlRaise as e:
                raise prog._error(e) from None
            t = type(result)
            if t is int or t is str or t is float or t is bool or result is None:
                return result
            return prog.result(result)
        call.__qualname__ = call.__name__ = name
        call._meta = _ingot.function_meta(prog._ingot, fdef.fqn, [p.name for p in fdef.decl.params])
        self.call = call
        prog._by_fqn[fdef.fqn] = self  # published whole: another thread may pick it up at once

    def _converter(self, param):
        prog, fdef = self.prog, self.fdef
        if param.type is None:
            return prog._guess
        generics = {g.name for g in fdef.decl.generics}
        try:
            ty = prog._p.lowering.types.resolve(param.type, fdef.namespace, frozenset(generics))
            t = prog._p.type_test(fdef.namespace, param.type, generics)
        except Exception:  # noqa: BLE001 — fall back to the general path
            return None
        where = param.name
        if type(ty).__name__ == "FuncT":
            def conv(v):
                if callable(v):
                    return prog.host(v, ty)
                return prog.from_python(v, t, where)
            return conv
        if t == ("int",):
            def conv(v):
                if type(v) is int and INT_MIN <= v <= INT_MAX:
                    return v
                return prog.from_python(v, t, where)
            return conv
        if t[0] in ("string", "bool", "float", "null"):
            py = {"float": float, "string": str, "bool": bool, "null": type(None)}[t[0]]

            def conv(v):
                return v if type(v) is py else prog.from_python(v, t, where)
            return conv
        if t == ("any",):
            return prog._unknown_arg
        return lambda v: prog.from_python(v, t, where)


def _int_rank(m: tuple) -> int:
    """Which member of a union a host int goes to first (the engine's choice): int or an int
    literal, then bigint, then float, then the others in their order."""
    k = m[0]
    if k in ("int", "json", "unknown", "any") or k == "lit" and type(m[1]) is int:
        return 0
    if k == "bigint" or k == "lit" and isinstance(m[1], int) and type(m[1]) is not bool:  # `5n`
        return 1
    return 2 if k == "float" else 3


def _exact(v, t: tuple) -> bool:
    """Whether host value `v` fits type test `t` without an int becoming a float (a union's
    container members are tried in that order first); a test it cannot judge here passes."""
    k = t[0]
    if k == "float":
        return type(v) is float
    if k == "int":
        return type(v) is int
    if k == "array":
        return type(v) is list and all(_exact(x, t[1]) for x in v)
    if k == "map":
        return type(v) is dict and all(_exact(x, t[2]) for x in v.values())
    if k == "union":
        return any(_exact(v, m) for m in t[1])
    return True


def _untold_by_items(t: tuple) -> bool:
    """Whether a host array or map of element type test `t` records it, as the engine's do:
    where its items cannot tell it (`int?[]` of ints, `unknown[]`, nested containers, generic
    classes); `int[]` of ints stays a plain list (the VM's fast one), its items decide alike."""
    k = t[0]
    if k == "array":  # `int[][]`: its (plain or, when empty, recorded) items tell it
        return _untold_by_items(t[1])
    if k == "map":
        return _untold_by_items(t[1]) or _untold_by_items(t[2])
    return k not in ("int", "float", "string", "bool", "bigint", "enum", "variant", "lit", "any") and not (
        k == "class" and len(t) == 2)


def load(path: str, llm=None) -> BamlProgram:
    """The program at `path`: a .baml file or a directory of them (`ns_<x>/` folders are
    namespaces). Raises SourceError when `path` is missing, holds no .baml file or a file that
    is not UTF-8 text, and CompileError when the program has errors. `llm`: the LLM client of
    the program's LLM functions (see BamlProgram.set_llm)."""
    return BamlProgram(compile_sources(discover(path))).set_llm(llm)


def compile(source: str, path: str = "main.baml", llm=None) -> BamlProgram:  # noqa: A001 — the API's name
    return BamlProgram(compile_sources([SourceFile(path, source, None)])).set_llm(llm)


__all__ = ["load", "compile", "to_plain", "BamlPanic", "BamlError", "BamlException", "ArgumentError",
           "CompileError", "SourceError", "BamlProgram", "TimeLimit", "time_limit", "LlmCallError", "NoLlmClient"]
