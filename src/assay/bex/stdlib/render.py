"""`string.from` / backtick-interpolation rendering of run-time values."""
from __future__ import annotations

from ..values import BigInt

import functools
from decimal import Decimal
import types
import regex as _regex
import unicodedata2 as unicodedata  # the engine's Unicode (17.0): stdlib/strings.py

from ..futures import Future
from .iters import _NOTHING as _NO_AHEAD, Iter
from ..ops import unkey
from ..values import Instance, RType, RView, TypedList, TypedMap, Variant

# Classes with an explicit `baml.ToString` implementation: ClassInfo -> callable(obj) -> str.
# The VM registers them; rendering honours them at every depth.
TO_STRING_OVERRIDES: dict = {}


def rust_float(f: float) -> str:
    """Rust's `Display` for f64: shortest round-trip digits, never an exponent,
    no trailing `.0` ("1", "0.1", "1e20" -> "100000000000000000000", NaN, inf, -inf)."""
    r = _ties_up(f, repr(f))
    if "e" not in r:
        if r.endswith(".0"):
            return r[:-2]
        if r == "nan":
            return "NaN"
        return r
    mant, exp = r.split("e")
    neg = mant.startswith("-")
    if neg:
        mant = mant[1:]
    digits = mant.replace(".", "")
    point = (mant.index(".") if "." in mant else len(mant)) + int(exp)
    if point <= 0:
        s = "0." + "0" * (-point) + digits
    elif point >= len(digits):
        s = digits + "0" * (point - len(digits))
    else:
        s = digits[:point] + "." + digits[point:]
    return "-" + s if neg else s


def _ties_up(f: float, r: str) -> str:
    """Python's repr and Rust's Display both print the shortest digits that read back as `f`, and
    the one nearest it; when two are equally near (1e15 + 0.3 is exactly …0.25), repr takes the
    even last digit (…0.2) and Rust's Dragon4 the one away from zero (…0.3)."""
    m = r.find("e")
    i = (m if m >= 0 else len(r)) - 1
    while i >= 0 and r[i] in "0.":
        i -= 1
    if i < 0 or r[i] not in "2468":  # an odd last digit, zero, nan, inf
        return r
    up = r[:i] + chr(ord(r[i]) + 1) + r[i + 1:]
    if float(up) != f:
        return r
    exact = Decimal(f)
    return up if exact - Decimal(r) == Decimal(up) - exact else r


def render_float(f: float) -> str:
    """BAML rendering of a float: Rust Display, `.0` on integral values, NaN, Infinity."""
    if f != f:
        return "NaN"
    if f == _INF:
        return "Infinity"
    if f == -_INF:
        return "-Infinity"
    s = rust_float(f)
    if "." not in s:
        s += ".0"
    return s


_INF = float("inf")

_ESC = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"', "\0": "\\0"}
_UNPRINTABLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Mn", "Me"}
# Rust's escape_debug also escapes Grapheme_Extend (spacing marks such as U+09BE among them) and
# the Hangul fillers
_GRAPHEME_EXTEND = _regex.compile(r"\p{Grapheme_Extend}").match
_FILLERS = frozenset("\u115f\u1160\u3164\uffa0")


def _esc_char(c: str) -> str:
    e = _ESC.get(c)
    if e is not None:
        return e
    cat = unicodedata.category(c)
    if cat in _UNPRINTABLE or (cat == "Zs" and c != " ") or c in _FILLERS or _GRAPHEME_EXTEND(c):
        return "\\u{%x}" % ord(c)
    return c


def quote(s: str) -> str:
    """Rust `{:?}` of a str: the form strings take inside rendered containers."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return '"' + s + '"'
    return '"' + "".join(map(_esc_char, s)) + '"'


def render(v) -> str:
    """string.from(v): strings as themselves, everything else as `_nested` renders it."""
    t = type(v)
    if t is str:
        return v
    if t is int or t is BigInt:
        return str(int(v))
    return _nested(v)


def _nested(v) -> str:
    t = type(v)
    if t is str:
        return quote(v)
    if t is int or t is BigInt:
        return str(int(v))
    if t is float:
        return render_float(v)
    if t is bool:
        return "true" if v else "false"
    if v is None:
        return "null"
    if t is list or t is TypedList:
        return "[" + ", ".join(map(_nested, v)) + "]"
    if t is dict or t is TypedMap:
        return "{" + ", ".join(_nested(unkey(k)) + ": " + _nested(x) for k, x in v.items()) + "}"
    if t is Variant:
        return v.name
    if isinstance(v, Instance):
        info = v._class
        over = TO_STRING_OVERRIDES.get(info)
        if over is not None:
            return over(v)
        if not info.fields:
            return info.name
        parts = [f + ": " + _nested(getattr(v, "f_" + f, None)) for f in info.fields]
        return info.name + " { " + ", ".join(parts) + " }"
    if t is bytearray or t is bytes:
        return v.decode("utf-8", "replace")
    if t is Iter:
        return _iter_text(v)
    if t is RType or t is RView:
        return repr(v)  # a type value renders as the type is written
    opaque = getattr(t, "BAML_TEXT", None)  # a runtime-owned value (`$rust_type`): `<rust_data>`
    if opaque is not None:
        return opaque
    text = getattr(v, "baml_text", None)  # a stdlib object (baml.random's generators)
    if text is not None:
        return text()
    return _function_text(v)


def _iter_text(v) -> str:
    """An iterator as the engine renders its struct (adapters whose state Assay keeps as the
    engine does; others as `<iterator>`)."""
    if v.show is None or v.ahead is not _NO_AHEAD and not getattr(v.show, "shows_ahead", False):
        return "<iterator>"
    name, fields = v.show()
    return name + " { " + ", ".join(f + ": " + _nested(x) for f, x in fields) + " }"


def _function_text(v) -> str:
    """A function value as the engine renders it: a closure with its capture count, a named
    function, a bound method; a future as its value once awaited (the engine numbers pending
    ones, `<pending: future #3>`, and shows a heap value's address, `<ready: 0x7f53…>`)."""
    if type(v) is Future:
        return f"<ready: {_nested(v.value)}>" if v.done and v.error is None else "<pending: future>"
    if isinstance(v, types.MethodType) or isinstance(v, functools.partial):
        return "<bound_method>"
    code = getattr(v, "__code__", None)
    if code is not None and code.co_name == "baml_closure":  # pygen's closures made in place
        return f"<closure captures={len(v.__defaults__ or ())}>"
    if code is not None and code.co_name == "closure" and "f" in code.co_freevars:
        return f"<closure captures={len(code.co_freevars) - 1}>"  # vm._closure_maker: f + captures
    captures = getattr(v, "baml_captures", None)  # a builtin's lambda (`testing.Retry(2)`)
    if captures is not None:
        return f"<closure captures={captures}>"
    if ".<lambda" in getattr(v, "__qualname__", ""):
        return "<closure captures=0>"
    return "<generic_function type_args=0>"
