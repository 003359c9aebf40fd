"""int and float methods and statics."""
from __future__ import annotations

import ctypes
import ctypes.util
import math
from fractions import Fraction
import re
import sys

from ..ops import fdiv, panic, throw_error
from ..values import INT_MAX, INT_MIN
from ._registry import function, method
from .render import quote, rust_float  # quote: Rust's `{:?}` of the text in messages

_INF = math.inf
_NAN = math.nan
_M64 = (1 << 64) - 1

# ----------------------------------------------------------------------------- int


@method("int")
def abs_(self):
    if self == INT_MIN:
        panic("baml.panics.IntegerOverflow", message=f"abs({self}) overflows int")
    return -self if self < 0 else self


@method("int")
def isqrt(self):
    if self < 0:
        throw_error("baml.errors.InvalidArgument",
                    message=f"int.isqrt: negative input ({self}) has no integer square root")
    return math.isqrt(self)


@method("int")
def pow_(self, exp):
    if exp < 0:
        return 0
    if exp == 0:
        return 1
    if self in (0, 1):
        return self
    if self == -1:
        return -1 if exp & 1 else 1
    if exp > 64:
        return INT_MIN if (self < 0 and exp & 1) else INT_MAX
    r = self ** exp
    if r > INT_MAX:
        return INT_MAX
    if r < INT_MIN:
        return INT_MIN
    return r


@method("int")
def ilog(self, base):
    if self <= 0:
        throw_error("baml.errors.InvalidArgument",
                    message=f"int.ilog: undefined for non-positive input (self = {self})")
    if base < 2:
        throw_error("baml.errors.InvalidArgument", message=f"int.ilog: base must be >= 2, got {base}")
    n = 0
    p = base
    while p <= self:
        p *= base
        n += 1
    return n


@method("int")
def leading_zeros(self):
    return 64 - (self & _M64).bit_length()


@method("int")
def leading_ones(self):
    return 64 - (~self & _M64).bit_length()


@method("int")
def trailing_zeros(self):
    u = self & _M64
    return 64 if not u else (u & -u).bit_length() - 1


@method("int")
def trailing_ones(self):
    u = ~self & _M64
    return 64 if not u else (u & -u).bit_length() - 1


@method("int")
def count_zeros(self):
    return 64 - (self & _M64).bit_count()


@method("int")
def count_ones(self):
    return (self & _M64).bit_count()


_INT_RE = re.compile(r"[+-]?[0-9]+\Z")


@function("int.parse")
def int_parse(text):
    if _INT_RE.match(text) is None or not text.isascii():
        why = "cannot parse integer from empty string" if text == "" else "invalid digit found in string"
        throw_error("baml.errors.ParseError", message=f'int.parse: cannot parse {quote(text)} as int: {why}')
    v = int(text)
    if not INT_MIN <= v <= INT_MAX:
        if v > 9223372036854775807:
            why = "number too large to fit in target type"
        elif v < -9223372036854775808:
            why = "number too small to fit in target type"
        else:
            throw_error("baml.errors.ParseError",
                        message=f'int.parse: {quote(text)} is outside the representable BAML int range '
                                f"[{INT_MIN}, {INT_MAX}]")
        throw_error("baml.errors.ParseError", message=f'int.parse: cannot parse {quote(text)} as int: {why}')
    return v


@function("int.max_value")
def int_max_value():
    return INT_MAX


@function("int.min_value")
def int_min_value():
    return INT_MIN


# ----------------------------------------------------------------------------- float


def _libm():
    try:
        name = ctypes.util.find_library("m") or ("libm.so.6" if sys.platform.startswith("linux") else None)
        lib = ctypes.CDLL(name)
        fns = {}
        for n in ("hypot", "log1p", "cbrt", "log10", "atan2", "pow"):
            f = getattr(lib, n)
            f.restype = ctypes.c_double
            f.argtypes = [ctypes.c_double] * (2 if n in ("hypot", "atan2", "pow") else 1)
            fns[n] = f
        return fns
    except Exception:  # pragma: no cover - platform without a loadable libm
        return None


_LIBM = _libm()


def _powf(x: float, y: float) -> float:
    """IEEE/C `pow` (Rust `powf`), never raising."""
    try:
        return math.pow(x, y)
    except (OverflowError, ValueError):
        if _LIBM is not None:
            return _LIBM["pow"](x, y)
        raise


def _ln(x: float) -> float:
    if x > 0:
        return math.log(x) if x != _INF else _INF
    if x == 0:
        return -_INF
    return _NAN


def _hypot(x, y):
    return _LIBM["hypot"](x, y) if _LIBM is not None else math.hypot(x, y)


def _log1p(x):
    if _LIBM is not None:
        return _LIBM["log1p"](x)
    try:
        return math.log1p(x)
    except ValueError:
        return -_INF if x == -1 else _NAN


@method("float")
def is_nan(self):
    return self != self


@method("float")
def is_infinite(self):
    return self == _INF or self == -_INF


@method("float")
def is_finite(self):
    return math.isfinite(self)


@method("float", "abs")
def fabs(self):
    return math.fabs(self)


@method("float")
def signum(self):
    # total, as the engine's binding: NaN (of either sign) is +1.0, a zero keeps its sign
    return 1.0 if self != self else math.copysign(1.0, self)


@method("float")
def floor(self):
    if not math.isfinite(self):
        return self
    return math.copysign(float(math.floor(self)), self)


@method("float")
def ceil(self):
    if not math.isfinite(self):
        return self
    return math.copysign(float(math.ceil(self)), self)


@method("float")
def trunc(self):
    if not math.isfinite(self):
        return self
    return math.copysign(float(math.trunc(self)), self)


def _round(x: float) -> float:
    if not math.isfinite(x):
        return x
    t = float(math.trunc(x))
    if math.fabs(x - t) >= 0.5:
        t += math.copysign(1.0, x)
    return math.copysign(t, x)


method("float", "round")(_round)


@method("float")
def fract(self):
    if not math.isfinite(self):
        return _NAN
    return self - trunc(self)


def _to_int(name: str, v: float) -> int:
    if v != v:
        throw_error("baml.errors.InvalidArgument", message=f"float.{name}: cannot convert NaN to int")
    if v == _INF or v == -_INF or not (-4611686018427387904.0 <= v < 4611686018427387904.0):
        throw_error("baml.errors.InvalidArgument", message=f"float.{name}: {_rust_inf(v)} is out of int range")
    return int(v)


def _rust_inf(v):
    return "inf" if v == _INF else ("-inf" if v == -_INF else rust_float(v))


@method("float")
def ifloor(self):
    return _to_int("ifloor", floor(self))


@method("float")
def iceil(self):
    return _to_int("iceil", ceil(self))


@method("float")
def iround(self):
    return _to_int("iround", _round(self))


@method("float")
def itrunc(self):
    return _to_int("itrunc", trunc(self))


@method("float")
def sqrt(self):
    if self < 0:
        return _NAN
    return math.sqrt(self)


@method("float", "pow")
def fpow(self, exp):
    return _powf(self, exp)


@method("float")
def log(self, base):
    return fdiv(_ln(self), _ln(base))


@method("float")
def exp(self):
    return _powf(math.e, self)


@method("float")
def ln(self):
    return fdiv(_ln(self), _ln(math.e))


@method("float")
def log2(self):
    return fdiv(_ln(self), _ln(2.0))


@method("float")
def log10(self):
    if self > 0:
        return math.log10(self) if self != _INF else _INF
    return -_INF if self == 0 else _NAN


@method("float")
def cbrt(self):
    """Correctly rounded cube root (the engine's libm is correctly rounded here)."""
    if not math.isfinite(self) or not self:
        return self
    y = math.cbrt(self)
    x = Fraction(self)
    for _ in range(4):
        lo = math.nextafter(y, -_INF)
        hi = math.nextafter(y, _INF)
        fy = Fraction(y)
        if ((Fraction(lo) + fy) / 2) ** 3 > x:
            y = lo
        elif ((fy + Fraction(hi)) / 2) ** 3 < x:
            y = hi
        else:
            break
    return y


@method("float")
def hypot(self, other):
    return _hypot(self, other)


def _unary(fn, name):
    def f(self):
        try:
            return fn(self)
        except ValueError:
            return _NAN
        except OverflowError:  # sinh / cosh of a huge argument
            return math.copysign(_INF, self) if name == "sinh" else _INF
    f.__name__ = name
    method("float", name)(f)
    return f


for _n in ("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh"):
    _unary(getattr(math, _n), _n)


@method("float")
def atan2(self, other):
    return math.atan2(self, other)


_LN2 = 0.693147180559945309417232121458176568


@method("float")
def asinh(self):
    # musl/libm asinh (what the engine links)
    x = math.fabs(self)
    if x != x or x == _INF:
        return self
    if x >= 67108864.0:  # 2**26
        r = math.log(x) + _LN2
    elif x >= 2.0:
        r = math.log(2.0 * x + 1.0 / (math.sqrt(x * x + 1.0) + x))
    elif x >= 1.4901161193847656e-08:  # 2**-26
        r = _log1p(x + x * x / (math.sqrt(x * x + 1.0) + 1.0))
    else:
        return self
    return -r if self < 0 else r


@method("float")
def acosh(self):
    # musl/libm acosh
    x = self
    if x != x:
        return x
    if x < 1.0:
        return _NAN
    if x < 2.0:
        return _log1p(x - 1.0 + math.sqrt((x - 1.0) * (x - 1.0) + 2.0 * (x - 1.0)))
    if x < 67108864.0:
        return math.log(2.0 * x - 1.0 / (x + math.sqrt(x * x - 1.0)))
    if x == _INF:
        return x
    return math.log(x) + _LN2


@method("float")
def atanh(self):
    # Rust f64::atanh: 0.5 * ((2.0 * x) / (1.0 - x)).ln_1p()
    return 0.5 * _log1p(fdiv(2.0 * self, 1.0 - self))


@method("float")
def to_radians(self):
    return self * math.pi / 180.0


@method("float")
def to_degrees(self):
    return fdiv(self * 180.0, math.pi)


_FLOAT_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_FLOAT_WORDS = {"inf": _INF, "infinity": _INF, "nan": _NAN}


@function("float.parse")
def float_parse(text):
    if _FLOAT_RE.match(text) is not None and text.isascii():
        return float(text)
    body = text[1:] if text[:1] in ("+", "-") else text
    w = _FLOAT_WORDS.get(body.lower()) if body.isascii() else None
    if w is not None:
        return -w if text[0] == "-" else w
    why = "cannot parse float from empty string" if text == "" else "invalid float literal"
    throw_error("baml.errors.ParseError", message=f'float.parse: cannot parse {quote(text)} as float: {why}')


for _n, _v in (("pi", math.pi), ("e", math.e), ("golden_ratio", (1 + math.sqrt(5)) / 2),
               ("nan", _NAN), ("inf", _INF), ("max_finite", sys.float_info.max),
               ("min_finite", -sys.float_info.max), ("epsilon", sys.float_info.epsilon)):
    function("float." + _n)((lambda v: lambda: v * 1.0)(_v))  # a new float each call, as the engine boxes one
