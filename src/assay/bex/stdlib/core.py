"""Methods every value has (to_string, eq/neq, the Compare family), baml.deep_copy,
baml.sys.panic, baml.ops.equals_equals, assert.*."""
from __future__ import annotations

import math
import re

from .. import ops
from ...mir import typetest
from ..ops import eq, lt, panic
from ..values import BigInt, Instance, TypedList, TypedMap, typed_list, typed_map
from ._registry import EVERY_VALUE, ORDER_VARIANTS, function, method
from .render import _nested, quote, render, render_float

_ALL = "int float string bool null array map bigint"
_ORDERED = "int float string bool bigint"

method(_ALL, "to_string")(render)
EVERY_VALUE["to_string"] = render
method(_ALL, "eq")(eq)
method(_ALL, "neq")(ops.ne)


@method(_ORDERED)
def cmp(self, other):
    return ORDER_VARIANTS[ops.cmp(self, other) + 1]


method(_ORDERED, "lt")(lt)
method(_ORDERED, "le")(ops.le)
method(_ORDERED, "gt")(ops.gt)
method(_ORDERED, "ge")(ops.ge)


@method(_ORDERED, "max")
def max_(self, other):
    return other if lt(self, other) else self


@method(_ORDERED, "min")
def min_(self, other):
    return other if lt(other, self) else self


@method(_ORDERED)
def clamp(self, min, max):  # noqa: A002
    return max_(min_(self, max), min)


function("baml.ops.equals_equals")(eq)


@function("baml.deep_copy")
def deep_copy(value):
    """Recursive copy of arrays, maps and instances; sharing and cycles survive."""
    t = type(value)
    if t in _CONTAINERS or isinstance(value, Instance):
        return _copy(value, {})
    return value


_CONTAINERS = (list, dict, TypedList, TypedMap)


def _copy(v, memo: dict):
    t = type(v)
    if t is list or t is TypedList:
        r = memo.get(id(v))
        if r is None:
            r = memo[id(v)] = [] if t is list else typed_list([], v.elem)
            r.extend(_copy(x, memo) for x in v)
        return r
    if t is dict or t is TypedMap:
        r = memo.get(id(v))
        if r is None:
            r = memo[id(v)] = {} if t is dict else typed_map({}, v.elem)
            for k, x in v.items():
                r[k if type(k) is not ops.MapKey else ops.MapKey(_copy(k.v, memo))] = _copy(x, memo)
        return r
    if isinstance(v, Instance):
        r = memo.get(id(v))
        if r is None:
            r = memo[id(v)] = t.__new__(t)
            for s in t.__slots__:
                try:
                    setattr(r, s, _copy(getattr(v, s), memo))
                except AttributeError:
                    pass
        return r
    if t is bytearray:
        r = memo.get(id(v))
        if r is None:
            r = memo[id(v)] = bytearray(v)
        return r
    return v


@function("baml.sys.collect_garbage")
def collect_garbage():
    return None  # (Python's collector runs on its own; nothing a program can observe)


@function("baml.sys.panic")
def sys_panic(message):
    panic("baml.panics.UserPanic", message=message)


# ----------------------------------------------------------------------------- assert


def _fail(message: str):
    panic("baml.panics.AssertionFailed", message=message)


def _show(v) -> str:
    return '"' + v + '"' if type(v) is str else render(v)


@function("assert.equal")
def assert_equal(actual, expected):
    if not eq(actual, expected):
        _fail(f"assertion failed: left = {_show(actual)}, right = {_show(expected)}")


@function("assert.is_true")
def assert_is_true(condition):
    if not condition:
        _fail("assertion failed: expected true")


@function("assert.not_null")
def assert_not_null(value):
    if value is None:
        _fail("assertion failed: expected non-null value")


@function("assert.approx_equal")
def assert_approx_equal(actual, expected, eps):
    if eps < 0.0 or eps != eps:
        _fail("assertion failed: epsilon must be a non-negative number")
    delta = abs(actual - expected)
    if delta != delta or delta > eps:
        _fail(f'assertion failed: |left - right| = "{render_float(delta)}", eps = "{render_float(eps)}", '
              f'left = "{render_float(actual)}", right = "{render_float(expected)}"')


@function("assert.contains")
def assert_contains(haystack, needle):
    if needle not in haystack:
        _fail("assertion failed: string does not contain expected substring")


@function("assert.is_type")
def assert_is_type(T, actual):
    if not T.test(actual):
        shown = re.sub(r"(?<![\w.])user\.", "", typetest.show(T.root))  # user types as `ns.Name`
        _fail(f'assertion failed: expected type "{shown}", got "{render(actual)}"')
    return actual


__all__ = ["deep_copy", "_nested"]


# bigint: arbitrary precision, so no overflow (and no saturation) anywhere
@method("bigint", "abs")
def bigint_abs(self):
    return abs(self)


@method("bigint", "pow")
def bigint_pow(self, exp):
    base, exp = int(self), int(exp)
    if exp < 0:
        return BigInt(0)
    if abs(base) > 1:  # 0, 1 and -1 to any power stay small
        if exp > 0xFFFFFFFF:
            panic("baml.panics.AllocFailure", message=f"bigint.pow: exponent ({exp}) exceeds memory limits")
        ops.bigint_cap(f"bigint.pow: result of {base}^{exp}", abs(base).bit_length() * exp)
    return BigInt(base ** exp)


@method("bigint", "to_int")
def bigint_to_int(self):
    if not ops.INT_MIN <= self <= ops.INT_MAX:
        ops.throw_error("baml.errors.InvalidArgument",
                        message=f"bigint.to_int: a {abs(int(self)).bit_length()}-bit value is outside "
                                "int's range (int is 63-bit signed)")
    return int(self)


@method("bigint", "isqrt")
def bigint_isqrt(self):
    if self < 0:
        ops.throw_error("baml.errors.InvalidArgument",
                        message=f"bigint.isqrt: negative input ({int(self)}) has no integer square root")
    return BigInt(math.isqrt(self))


@method("bigint", "ilog")
def bigint_ilog(self, base):
    if self <= 0:
        ops.throw_error("baml.errors.InvalidArgument", message=f"bigint.ilog: input ({int(self)}) must be positive")
    if base < 2:
        ops.throw_error("baml.errors.InvalidArgument", message=f"bigint.ilog: base ({int(base)}) must be at least 2")
    n = max(0, (int(self).bit_length() - 1) // int(base).bit_length() - 1)  # a lower bound, then step
    p = int(base) ** (n + 1)
    while p <= self:
        p *= base
        n += 1
    return BigInt(n)


_DECIMAL = re.compile(r"[+-]?[0-9]+\Z")  # ASCII digits only (Python's int() takes any Nd digit)


@function("bigint.parse")
def bigint_parse(s):
    if _DECIMAL.match(s):
        return BigInt(int(s, 10))
    ops.throw_error("baml.errors.ParseError", message=f'bigint.parse: cannot parse {quote(s)} as bigint')


# the operator interfaces' methods a call can name unambiguously (`Negate`, `Add<string>`; the
# others each have several impls per type, an E0121 in the checker)
method("int float bigint", "neg")(ops.neg)


@method("string", "add")
def string_add(self, rhs):
    return self + rhs


# ----------------------------------------------------------------------------- tagged templates
# `` tag`a${x}b` `` passes its tag `body = () -> baml.TaggedString`: the body collects the
# template's literal text and values (lowering's `$tagged_*` natives), literals and values
# alternating, a literal first and last ("" where a value starts or ends the template).

ops.BUILTIN_CLASSES["baml.TaggedString"] = ops.ClassInfo("baml.TaggedString", "TaggedString", ["parts", "values"])


def tagged_new() -> list:
    return [[""], []]  # parts, values


def tagged_text(b: list, text: str) -> None:
    b[0][-1] += text


def tagged_value(b: list, value) -> None:
    b[1].append(value)
    b[0].append("")


def tagged_end(b: list):
    return ops.make_builtin("baml.TaggedString", parts=b[0], values=b[1])
