"""The native registry: METHODS (receiver kind -> name -> Native) and FUNCTIONS
(qualified free/static function name -> Native)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..values import BigInt, EnumInfo, Instance, Variant


@dataclass(slots=True)
class Native:
    name: str  # method name, or the qualified function name
    fn: Callable  # methods: fn(receiver, *args); functions: fn(*args)
    sig: str  # BAML signature text without the name, e.g. "(start: int, end: int) -> string"


KINDS = ("int", "float", "string", "bool", "null", "array", "map", "uint8array", "bigint")
METHODS: dict[str, dict[str, Native]] = {k: {} for k in KINDS}
FUNCTIONS: dict[str, Native] = {}

# The `baml.ops.Ordering` enum (comparators and `cmp` return its variants).
ORDERING = EnumInfo("baml.ops.Ordering", "Ordering", ["Less", "Equal", "Greater"])
LESS = ORDERING.variants["Less"]
EQUAL = ORDERING.variants["Equal"]
GREATER = ORDERING.variants["Greater"]
ORDER_VARIANTS = (LESS, EQUAL, GREATER)  # index by cmp()+1


def method(kinds: str, sig: str, name: str | None = None):
    """Register `fn(receiver, *args)` as a method of each receiver kind in `kinds`
    (space-separated)."""

    def deco(fn):
        n = name or fn.__name__.rstrip("_")
        for k in kinds.split():
            METHODS[k][n] = Native(n, fn, sig)
        return fn

    return deco


def function(qualname: str, sig: str, *aliases: str):
    """Register `fn(*args)` as the free/static function `qualname` (and aliases)."""

    def deco(fn):
        for q in (qualname, *aliases):
            FUNCTIONS[q] = Native(q, fn, sig)
        return fn

    return deco


_KIND_OF = {
    int: "int",
    float: "float",
    str: "string",
    bool: "bool",
    type(None): "null",
    list: "array",
    dict: "map",
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
