"""BAML operator semantics on run-time values (see values.py for the value model).

Plain functions, called by the VM for the generic (not statically specialised) cases:

    add sub mul div mod neg          checked 63-bit ints, IEEE floats, string + string
    shl shr bit_and bit_or bit_xor bit_not
    eq ne                            structural `==` (baml.ops.equals_equals), cycle-safe
    lt le gt ge cmp                  total order (floats: NaN greatest)
    truthy                           condition coercion
    panic / throw_error              raise builtin baml.panics.* / baml.errors.* instances

Python's `bool` is a subclass of `int`: every int path tests `type(x) is int`.
"""
from __future__ import annotations

import math
from functools import partial
from types import MethodType
from typing import NoReturn

from . import values
from .values import INT_MAX, INT_MIN, BamlRaise, BigInt, ClassInfo, Instance, RType, RView, TypedList, TypedMap, Variant, bigint_cap

_NoneType = type(None)
_INF = math.inf
_NAN = math.nan

# ----------------------------------------------------------------------------- builtin classes

_PANICS = {
    "DivisionByZero": ["dividend"],
    "IndexOutOfBounds": ["index", "length"],
    "InvalidFieldAccess": ["field_index", "field_count"],
    "MapKeyNotFound": ["key"],
    "StackOverflow": ["message"],
    "AssertionFailed": ["message"],
    "Unreachable": ["message"],
    "Cancelled": ["message"],
    "UserPanic": ["message"],
    "Exit": ["code"],
    "AllocFailure": ["message"],
    "HostUnavailable": ["resource", "message"],
    "NegativeBitShift": ["message"],
    "SdkPanic": ["message"],
    "HostContractViolation": ["message", "class_name", "language"],
    "IntegerOverflow": ["message"],
}
_ERRORS = {
    "InvalidArgument": ["message"],
    "ParseError": ["message"],
    "Io": ["message"],
    "Timeout": ["message", "duration", "timeout_type"],
    "Unsupported": ["message"],
    "AccessError": ["message"],
    "RenderPrompt": ["message"],
    "LlmClient": ["message"],
    "HostCallable": ["message", "class_name", "language", "traceback"],
    "GenericSdkError": ["message"],
    "CompilationError": ["message"],
    "TypeMismatch": ["message"],
}

BUILTIN_CLASSES: dict[str, ClassInfo] = {}
for _ns, _table in (("baml.panics", _PANICS), ("baml.errors", _ERRORS)):
    for _name, _fields in _table.items():
        BUILTIN_CLASSES[f"{_ns}.{_name}"] = ClassInfo(f"{_ns}.{_name}", _name, _fields)
del _ns, _table, _name, _fields


def make_builtin(class_name: str, **fields) -> Instance:
    """An instance of a builtin error/panic class; missing fields are null."""
    info = BUILTIN_CLASSES[class_name]
    obj = info.py.__new__(info.py)
    for f in info.fields:
        setattr(obj, "f_" + f, fields.get(f))
    return obj


def panic(class_name: str, **fields) -> NoReturn:
    """Raise a VM panic. `class_name` is `baml.panics.X` (the prefix may be omitted)."""
    if "." not in class_name:
        class_name = "baml.panics." + class_name
    raise BamlRaise(make_builtin(class_name, **fields), panic=True)


values.ALLOC_PANIC = lambda message: panic("baml.panics.AllocFailure", message=message)


def throw_error(class_name: str, **fields) -> NoReturn:
    """Throw a stdlib error. `class_name` is `baml.errors.X` (the prefix may be omitted)."""
    if "." not in class_name:
        class_name = "baml.errors." + class_name
    raise BamlRaise(make_builtin(class_name, **fields), panic=False)


def _overflow(msg: str) -> NoReturn:
    panic("baml.panics.IntegerOverflow", message=msg)


def _bad(op: str, a, b=None):
    """An operator on values it is not built in for: a class's `baml.ops` method, else an
    internal error (the checker admits only what the engine does)."""
    m = getattr(a, "m_" + _OP_METHOD.get(op, ""), None) if isinstance(a, Instance) else None
    if m is not None:
        return m() if op == "unary -" else m(b)
    raise TypeError(f"cannot apply {op} to {type(a).__name__} and {type(b).__name__}")


_OP_METHOD = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem", "unary -": "neg"}

# stdlib operator interface → (Python operator method, BAML method): how a class implementing
# it takes part in the operators the VM spells as Python's (generic `+`, `<`, sorting …)
OPERATOR_METHODS = {
    "baml.ops.Add": (("__add__", "add"),), "baml.ops.Subtract": (("__sub__", "sub"),),
    "baml.ops.Multiply": (("__mul__", "mul"),), "baml.ops.Divide": (("__truediv__", "div"),),
    "baml.ops.Remainder": (("__mod__", "rem"),), "baml.ops.Negate": (("__neg__", "neg"),),
    "baml.ops.BitAnd": (("__and__", "bit_and"),), "baml.ops.BitOr": (("__or__", "bit_or"),),
    "baml.ops.BitXor": (("__xor__", "bit_xor"),), "baml.ops.ShiftLeft": (("__lshift__", "shl"),),
    "baml.ops.ShiftRight": (("__rshift__", "shr"),),
    "baml.ops.Compare": (("__lt__", "cmp"), ("__le__", "cmp"), ("__gt__", "cmp"), ("__ge__", "cmp")),
}
_ORDERINGS = {"__lt__": ("Less",), "__le__": ("Less", "Equal"), "__gt__": ("Greater",),
              "__ge__": ("Greater", "Equal")}


def _by_cmp(*names: str):
    return lambda a, b: a.m_cmp(b).name in names


def _max(a, b):
    return b if a.m_cmp(b).name == "Less" else a


def _min(a, b):
    return b if a.m_cmp(b).name == "Greater" else a


# `baml.ops.Compare`'s default methods (its stdlib body), for a class that implements `cmp` and
# not them: each through the instance's own `cmp` (ties keep the receiver)
COMPARE_DEFAULTS = {"lt": _by_cmp("Less"), "le": _by_cmp("Less", "Equal"), "gt": _by_cmp("Greater"),
                    "ge": _by_cmp("Greater", "Equal"), "max": _max, "min": _min,
                    "clamp": lambda a, lo, hi: a.m_min(hi).m_max(lo)}


def operator_method(dunder: str, method: str):
    """The Python operator method `dunder` of a class whose BAML method `method` implements
    it (`<` and its kin through `cmp`)."""
    attr = "m_" + method
    if method == "cmp":
        want = _ORDERINGS[dunder]
        return lambda a, b: getattr(a, attr)(b).name in want
    if method == "neg":
        return lambda a: getattr(a, attr)()
    return lambda a, b: getattr(a, attr)(b)


# ----------------------------------------------------------------------------- arithmetic


def add(a, b):
    ta = type(a)
    tb = type(b)
    if ta is int and tb is int:
        r = a + b
        if INT_MIN <= r <= INT_MAX:
            return r
        _overflow(f"{a} + {b} overflows int")
    if ta is str and tb is str:
        return a + b
    if (ta is float or ta is int) and (tb is float or tb is int):
        return float(a) + float(b)
    if _bigints(ta, tb):
        return BigInt(int(a) + int(b))
    return _bad("+", a, b)


def sub(a, b):
    ta = type(a)
    tb = type(b)
    if ta is int and tb is int:
        r = a - b
        if INT_MIN <= r <= INT_MAX:
            return r
        _overflow(f"{a} - {b} overflows int")
    if (ta is float or ta is int) and (tb is float or tb is int):
        return float(a) - float(b)
    if _bigints(ta, tb):
        return BigInt(int(a) - int(b))
    return _bad("-", a, b)


def mul(a, b):
    ta = type(a)
    tb = type(b)
    if ta is int and tb is int:
        r = a * b
        if INT_MIN <= r <= INT_MAX:
            return r
        _overflow(f"{a} * {b} overflows int")
    if (ta is float or ta is int) and (tb is float or tb is int):
        return float(a) * float(b)
    if _bigints(ta, tb):
        return BigInt(a) * b  # BigInt's own `*` checks the size cap
    return _bad("*", a, b)


def fdiv(a: float, b: float) -> float:
    """IEEE float division."""
    if b:
        return a / b
    if a != a or not a:
        return _NAN
    return math.copysign(_INF, a) * math.copysign(1.0, b)


def fmod(a: float, b: float) -> float:
    """IEEE remainder with the sign of the dividend (Rust `%` on f64)."""
    if b != b or a != a or not b or a in (_INF, -_INF):
        return _NAN
    return math.fmod(a, b)


def _bigints(ta, tb) -> bool:
    """bigint op bigint, bigint op int, int op bigint: computed as bigint."""
    return (ta is BigInt and (tb is BigInt or tb is int)) or (tb is BigInt and ta is int)


def div(a, b):
    ta = type(a)
    tb = type(b)
    if ta is int and tb is int:
        if not b:
            panic("baml.panics.DivisionByZero", dividend=a)
        if b == -1:
            if a == INT_MIN:
                _overflow(f"{a} / {b} overflows int")
            return -a
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q
    if (ta is float or ta is int) and (tb is float or tb is int):
        return fdiv(float(a), float(b))
    if _bigints(ta, tb):
        if not b:
            panic("baml.panics.DivisionByZero", dividend=a)
        q = abs(int(a)) // abs(int(b))
        return BigInt(q if (a < 0) == (b < 0) else -q)
    return _bad("/", a, b)


def mod(a, b):
    ta = type(a)
    tb = type(b)
    if ta is int and tb is int:
        if not b:
            panic("baml.panics.DivisionByZero", dividend=a)
        r = abs(a) % abs(b)
        return -r if a < 0 else r
    if (ta is float or ta is int) and (tb is float or tb is int):
        return fmod(float(a), float(b))
    if _bigints(ta, tb):
        if not b:
            panic("baml.panics.DivisionByZero", dividend=a)
        r = abs(int(a)) % abs(int(b))
        return BigInt(-r if a < 0 else r)
    return _bad("%", a, b)


def neg(a):
    ta = type(a)
    if ta is int:
        if a == INT_MIN:
            _overflow(f"-({a}) overflows int")
        return -a
    if ta is float or ta is BigInt:
        return -a
    return _bad("unary -", a)


# ----------------------------------------------------------------------------- bit operations


def _negative_shift(op: str, a, b) -> NoReturn:
    if type(a) is BigInt or type(b) is BigInt:
        panic("baml.panics.NegativeBitShift", message=f"bigint {op}: negative shift count ({int(b)})")
    panic("baml.panics.NegativeBitShift", message=f"bit shift count is negative: {b}")


def shl(a: int, b: int) -> int:
    if b < 0:
        _negative_shift("shl", a, b)
    if type(a) is BigInt:  # arbitrary precision: nothing is shifted out
        if b >= 1 << 64:
            panic("baml.panics.AllocFailure", message=f"bigint shl: shift count ({int(b)}) does not fit in usize")
        bigint_cap(f"bigint shl: result of {int(a)} << {int(b)}", int(a).bit_length() + int(b))
        return BigInt(int(a) << int(b))
    if b >= 63:
        return 0
    return (((a << b) + (1 << 62)) & ((1 << 63) - 1)) - (1 << 62)


def shr(a: int, b: int) -> int:
    if b < 0:
        _negative_shift("shr", a, b)
    if type(a) is BigInt:
        return BigInt(int(a) >> int(b))
    if b >= 63:
        return -1 if a < 0 else 0
    return a >> b


def bit_and(a, b):
    return a & b


def bit_or(a, b):
    return a | b


def bit_xor(a, b):
    return a ^ b


def bit_not(a):
    if type(a) is bool:
        return not a
    if type(a) is float:  # the engine's `~x` on a float: -x - 1
        return -a - 1.0
    return ~a


# ----------------------------------------------------------------------------- equality

# Classes that implement `baml.ops.Equals` explicitly: ClassInfo -> callable(a, b) -> bool.
# The VM registers them; `==` (and everything built on it) then honours the override.
EQ_OVERRIDES: dict = {}

_SIMPLE = {int, str, bool, _NoneType, bytearray, BigInt, RType, RView}  # RType/RView: by the type described
_PLAIN = {list: list, TypedList: list, dict: dict, TypedMap: dict}  # recorded types aside


def eq(a, b) -> bool:
    """BAML `==` (baml.ops.equals_equals): by concrete run-time type, structural for
    containers and instances, identity for enums and functions, cycle-safe."""
    if a is b:
        return True
    ta = type(a)
    if ta is type(b):
        if ta in _SIMPLE:
            return a == b
        if ta is float:
            return a == b or (a != a and b != b)
    elif ta not in _PLAIN or _PLAIN[ta] is not _PLAIN.get(type(b)):  # a TypedList is a list
        return False
    return _eq_deep(a, b, set())


def ne(a, b) -> bool:
    return not eq(a, b)


def _eq_deep(a, b, seen: set) -> bool:
    if a is b:
        return True
    ta = type(a)
    if ta is not type(b):
        if ta not in _PLAIN or _PLAIN[ta] is not _PLAIN.get(type(b)):  # a TypedList is a list
            return False
    elif ta in _SIMPLE:
        return a == b
    elif ta is float:
        return a == b or (a != a and b != b)
    ta = _PLAIN.get(ta, ta)
    if ta is list:
        if len(a) != len(b):
            return False
        key = (id(a), id(b))
        if key in seen:
            return True
        seen.add(key)
        for x, y in zip(a, b):
            if not _eq_deep(x, y, seen):
                return False
        return True
    if ta is dict:
        if len(a) != len(b):
            return False
        key = (id(a), id(b))
        if key in seen:
            return True
        seen.add(key)
        for k, v in a.items():
            if k not in b:
                return False
            if not _eq_deep(v, b[k], seen):
                return False
        return True
    if isinstance(a, Instance):
        info = a._class
        over = EQ_OVERRIDES.get(info)
        if over is not None:
            return bool(over(a, b))
        key = (id(a), id(b))
        if key in seen:
            return True
        seen.add(key)
        for s in ta.__slots__:
            if not _eq_deep(getattr(a, s, None), getattr(b, s, None), seen):
                return False
        return True
    if ta is MethodType:  # a bound method: the same method of the same receiver (identity)
        return a.__func__ is b.__func__ and a.__self__ is b.__self__
    if ta is partial:  # a builtin method bound to its receiver (vm.bind_method): the same
        # receiver object (the engine's boxed floats and strings compare by address; binding
        # a bigint's method copies the bigint, so two bindings never agree;
        # ints and bools are unboxed there: equal values)
        if a.func is not b.func or len(a.args) != 1 or len(b.args) != 1:
            return False
        r, s = a.args[0], b.args[0]
        tr = type(r)
        return (r == s and tr is type(s)) if tr is int or tr is bool else (r is s and tr is not BigInt)
    return False  # variants, functions: identity (already checked)


# ----------------------------------------------------------------------------- ordering


def lt(a, b) -> bool:
    ta = type(a)
    if ta is float or type(b) is float:
        if a != a:
            return False
        if b != b:
            return True
    elif ta is Variant:
        return a.index < b.index
    return a < b


def gt(a, b) -> bool:
    return lt(b, a)


def le(a, b) -> bool:
    return not lt(b, a)


def ge(a, b) -> bool:
    return not lt(a, b)


# Classes that implement `baml.ops.Compare` explicitly: ClassInfo -> callable(a, b) -> Variant
# of baml.ops.Ordering (the VM registers them; `sort()` uses them).
CMP_OVERRIDES: dict = {}


def cmp(a, b) -> int:
    """Three-way total-order comparison: -1, 0 or 1."""
    if isinstance(a, Instance):
        over = CMP_OVERRIDES.get(a._class)
        if over is None:
            raise TypeError(f"{a._class.fqn} does not implement baml.ops.Compare")
        name = over(a, b).name
        return -1 if name == "Less" else (1 if name == "Greater" else 0)
    if lt(a, b):
        return -1
    if lt(b, a):
        return 1
    return 0


# ----------------------------------------------------------------------------- map keys


class MapKey:
    """A map key other than a string, an int or an enum variant (which are keys as themselves):
    hashed and compared as BAML compares (`==` by run-time type, structural), so `1`, `true` and
    `1.0` are three keys, equal instances one, and arrays can be keys. The hash is taken when the
    key is stored: mutating a stored key afterwards loses it, as in the engine."""

    __slots__ = ("v", "h")

    def __init__(self, v):
        self.v = v
        self.h = key_hash(v, 0)

    def __hash__(self) -> int:
        return self.h

    def __eq__(self, other) -> bool:
        return type(other) is MapKey and eq(self.v, other.v)

    def __repr__(self) -> str:
        return f"MapKey({self.v!r})"


def mkey(k):
    """The dict key of the BAML map key `k`."""
    t = type(k)
    return k if t is str or t is int or t is Variant else MapKey(k)


def unkey(k):
    """The BAML value of a dict key."""
    return k.v if type(k) is MapKey else k


_NAN_HASH = hash("NaN")


def key_hash(v, depth: int) -> int:
    """A hash consistent with `eq` (equal values hash equal; types apart); shallow past a depth,
    so cyclic values hash too."""
    t = type(v)
    if t is str or t is int or t is _NoneType:
        return hash(v)
    if t is bool:
        return hash((bool, v))
    if t is float:
        return _NAN_HASH if v != v else hash((float, v))
    if t is BigInt:
        return hash((BigInt, int(v)))
    if t is MapKey:
        return v.h
    if depth > 6:
        return hash(t)
    if t is list or t is TypedList:
        return hash((list, *(key_hash(x, depth + 1) for x in v)))
    if t is dict or t is TypedMap:  # order-insensitive, as `==` on maps is
        return hash((dict, frozenset((key_hash(k, depth + 1), key_hash(x, depth + 1)) for k, x in v.items())))
    if t is bytearray:
        return hash((bytearray, bytes(v)))
    if isinstance(v, Instance):
        if v._class in EQ_OVERRIDES:  # a user-defined `==`: only the class is known to agree
            return hash(v._class)
        return hash((v._class, *(key_hash(getattr(v, f, None), depth + 1) for f in t.__slots__)))
    if t is partial:
        return hash((v.func, *map(id, v.args)))
    return hash(v)  # variants, functions: identity; bound methods: function and receiver


# ----------------------------------------------------------------------------- truthiness


def truthy(v) -> bool:
    """Condition coercion: false, null, 0, 0.0, -0.0, "", [], {} are falsy."""
    if v is True:
        return True
    if v is False or v is None:
        return False
    t = type(v)
    if t is int or t is float or t is BigInt:
        return v != 0
    if t is str or t is list or t is dict or t is bytearray or t is bytes or t is TypedList or t is TypedMap:
        return len(v) != 0
    return True
