"""The native registry: METHODS (receiver kind -> name -> Native) and FUNCTIONS
(qualified free/static function name -> Native)."""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Callable

from ...sema import stdsigs
from ..values import BigInt, EnumInfo, Instance, TypedList, TypedMap, Variant


@dataclass(slots=True)
class Native:
    name: str  # method name, or the qualified function name
    fn: Callable  # methods: fn(receiver, *args); functions: fn(*args)
    sig: str  # its declaration in assay.sema.stdsigs, e.g. "(start: int, end: int) -> string"
    type_params: int = 0  # leading arguments that are its type arguments (ir.TypeArg → TypeArg)


KINDS = ("int", "float", "string", "bool", "null", "array", "map", "uint8array", "bigint",
         "regex")  # regex: a `baml.regex.Regex` (bex/stdlib/regexlib.py)
METHODS: dict[str, dict[str, Native]] = {k: {} for k in KINDS}
FUNCTIONS: dict[str, Native] = {}

# The `baml.ops.Ordering` enum (comparators and `cmp` return its variants).
ORDERING = EnumInfo("baml.ops.Ordering", "Ordering", ["Less", "Equal", "Greater"])
LESS = ORDERING.variants["Less"]
EQUAL = ORDERING.variants["Equal"]
GREATER = ORDERING.variants["Greater"]
ORDER_VARIANTS = (LESS, EQUAL, GREATER)  # index by cmp()+1
# `baml.json.Naming`: which names fields and variants go by in JSON
NAMING = EnumInfo("baml.json.Naming", "Naming", ["Declared", "Aliased"])
STD_ENUMS = {e.fqn: e for e in (ORDERING, NAMING)}  # the stdlib enums a program may name
# methods an instance or an enum value has without declaring them (`baml.ToString`'s and
# `baml.ToJson`'s default bodies): name → native taking the receiver
EVERY_VALUE: dict = {}


def method(kinds: str, name: str | None = None):
    """Register `fn(receiver, *args)` as the method `name` (default: fn's name) of each receiver
    kind in `kinds` (space-separated), as sema declares it."""

    def deco(fn):
        n = name or fn.__name__.rstrip("_")
        for k in kinds.split():
            METHODS[k][n] = Native(n, fn, _declared(stdsigs.METHODS.get(k, {}), n, f"method {k}.{n}"))
        return fn

    return deco


def function(qualname: str, *aliases: str):
    """Register `fn(*args)` as the free/static function `qualname` (and aliases), as sema
    declares it."""

    def deco(fn):
        for q in (qualname, *aliases):
            sig = _declared(stdsigs.FUNCTIONS, q, f"function {q}")
            FUNCTIONS[q] = Native(q, fn, sig, _type_params(sig) if q in stdsigs.TYPE_ARG_FUNCTIONS else 0)
        return fn

    return deco


def _type_params(sig: str) -> int:
    """How many type parameters a signature declares (`<T>(…)` → 1)."""
    return len(sig[1:sig.index(">")].split(",")) if sig.startswith("<") else 0


def _declared(sigs: dict, name: str, what: str) -> str:
    sig = sigs.get(name)
    if sig is None:
        raise LookupError(f"native {what} is not declared in assay.sema.stdsigs")
    return sig


_KIND_OF = {
    int: "int",
    float: "float",
    str: "string",
    bool: "bool",
    type(None): "null",
    list: "array",
    TypedList: "array",
    dict: "map",
    TypedMap: "map",
    Variant: "variant",
    bytearray: "uint8array",
    BigInt: "bigint",
}


def kind_of(v) -> str:
    """Receiver kind of a run-time value: one of KINDS, or 'instance', 'variant',
    'uint8array', 'function'."""
    k = _KIND_OF.get(type(v))
    if k is not None:
        return k
    if isinstance(v, Instance):
        return "instance"
    return "function"


def native_param_names(native) -> list[str]:
    """A native's Python parameter names: its type arguments' first, then BAML's (named
    arguments bind by them)."""
    try:
        return list(inspect.signature(native.fn).parameters)
    except (TypeError, ValueError):
        return []


def native_value_params(native) -> list[str]:
    """The parameters a BAML call passes values for (without the type arguments)."""
    return native_param_names(native)[getattr(native, "type_params", 0):]
