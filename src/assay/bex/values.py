"""BEX run-time values, as the VM and the natives share them.

BAML value      Python value
--------------  ---------------------------------------------------------------
null            None
bool            bool
int             int (always within [INT_MIN, INT_MAX]: 63-bit two's complement)
float           float
string          str
map<K, V>       dict, or TypedMap likewise (both insertion ordered, as BAML maps are)
T[]             list, or TypedList where a test may need the element type the array was
                built with (an empty `string[]`, an `(int|string)[]` of ints)
class instance  an instance of the Python class generated for the BAML class
                (a subclass of Instance, with __slots__ = the field names)
enum variant    a Variant (one object per variant per program)
omitted arg     OMITTED (the callee fills in the parameter's default)
function        any Python callable (compiled functions, closures, bound methods,
                host callables)

A BAML `throw` and a VM panic both travel as the Python exception BamlRaise; a panic's value
is an Instance of a builtin class named `baml.panics.*`.
"""
from __future__ import annotations

from ..mir import ir
from ..sema import reflect as R

INT_MIN = -(1 << 62)
INT_MAX = (1 << 62) - 1


class ClassInfo:
    """A BAML class at run time: fully qualified name (`user.Point`, `user.ns.Point`,
    `baml.panics.DivisionByZero`), display name, field names in declaration order, and the
    generated Python class `py` whose instances are the BAML instances."""

    __slots__ = ("fqn", "name", "fields", "py", "methods", "json_names", "number")

    def __init__(self, fqn: str, name: str, fields: list[str]):
        self.fqn = fqn
        self.name = name
        self.number: int | None = None  # the engine's type number, which `hash` writes (Runtime sets it)
        self.fields = list(fields)
        self.methods: dict[str, object] = {}
        self.json_names: dict[str, tuple] = {}  # field → (@alias or None, @skip), where given
        self.py = _make_instance_class(self)

    def new(self, *values):
        obj = self.py.__new__(self.py)
        for f, v in zip(self.fields, values):
            setattr(obj, _py_field(f), v)
        return obj

    def __repr__(self) -> str:
        return f"<class {self.fqn}>"


class Instance:
    """Base of every generated instance class. `_class` is the ClassInfo; `_targs` (unset
    unless recorded) the type arguments of a generic class's instance as built, the repr of their
    run-time tests (mir/typetest.py): `Box<string> { … }` is not a `Box<int>`."""

    __slots__ = ("_targs", "_cleaned")  # _cleaned: the `cleanup` method has run (mir/lower.py)
    _class: ClassInfo

    def __repr__(self) -> str:  # for debugging only; BAML rendering lives in the stdlib
        inner = ", ".join(f"{f}: {getattr(self, _py_field(f), None)!r}" for f in self._class.fields)
        return f"{self._class.name} {{ {inner} }}"


def _make_instance_class(info: ClassInfo) -> type:
    slots = tuple(_py_field(f) for f in info.fields)
    ns: dict = {}
    # positional constructor, fields in declaration order: `C(x, y)` is how the VM allocates
    args = ", ".join(slots)
    body = "".join(f"\n    self.{s} = {s}" for s in slots) or "\n    pass"
    exec(f"def __init__(self, {args}):{body}" if slots else f"def __init__(self):{body}", ns)
    return type("I_" + info.fqn.replace(".", "_"), (Instance,),
                {"__slots__": slots, "_class": info, "__init__": ns["__init__"]})


def _py_field(name: str) -> str:
    """Python attribute name of a BAML field (BAML fields may clash with Python keywords or
    with Instance's own names, so every field is prefixed)."""
    return "f_" + name


class EnumInfo:
    __slots__ = ("fqn", "name", "variants", "json_names", "number")

    def __init__(self, fqn: str, name: str, variant_names: list[str]):
        self.fqn = fqn
        self.name = name
        self.number: int | None = None  # as ClassInfo's
        self.json_names: dict[str, tuple] = {}  # variant → (@alias or None, @skip), where given
        self.variants = {v: Variant(self, v, i) for i, v in enumerate(variant_names)}

    def __repr__(self) -> str:
        return f"<enum {self.fqn}>"


class Variant:
    __slots__ = ("enum", "name", "index")

    def __init__(self, enum: EnumInfo, name: str, index: int):
        self.enum = enum
        self.name = name
        self.index = index

    def __repr__(self) -> str:
        return f"{self.enum.name}.{self.name}"


class BamlRaise(Exception):
    """A BAML error in flight: `value` is the thrown BAML value; `panic` is True for VM
    panics (whose value is a `baml.panics.*` instance)."""

    def __init__(self, value, panic: bool = False):
        super().__init__(value)
        self.value = value
        self.panic = panic
        self.seen = False  # caught once: its cause is fixed (bex.errctx)
        self.cause = None  # the baml.errors.Context being handled when it was thrown
        if ADOPTED and id(value) in ADOPTED:
            self._adopt(ADOPTED.pop(id(value))[1])

    def _adopt(self, source: "BamlRaise") -> None:
        """Thrown with the context of `source` (UnknownError's `_preserve_context`): its frames
        and its cause, as if `source` went on."""
        self.__traceback__ = source.__traceback__
        self.seen, self.cause = source.seen, source.cause


# a value → (the value, the caught error whose context its next throw takes over)
ADOPTED: dict = {}


class BigInt(int):
    """A BAML `bigint`: an arbitrary-precision int of its own run-time type (`1n == 1` is false).
    Arithmetic with bigints or ints gives bigints; BAML's truncating `/` and `%` live in ops."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{int(self)}n"


def _bigint_op(name: str):
    base = getattr(int, name)

    def op(self, other):
        if type(other) is not int and type(other) is not BigInt:
            return NotImplemented
        return BigInt(base(self, other))

    op.__name__ = name
    return op


BIGINT_BITS = 1 << 28  # the engine's bigint workspace cap, in bits
ALLOC_PANIC = None  # raises baml.panics.AllocFailure with a message (installed by ops)


def bigint_cap(what: str, bits: int) -> None:
    """AllocFailure where a bigint result would need more than the cap's bits (the engine
    predicts the size before computing)."""
    if bits > BIGINT_BITS:
        ALLOC_PANIC(f"{what} would require ~{bits} bits (limit: {BIGINT_BITS})")


def _bigint_mul(self, other):
    if type(other) is not int and type(other) is not BigInt:
        return NotImplemented
    bigint_cap("bigint mul: result of bigint multiplication", self.bit_length() + other.bit_length())
    return BigInt(int.__mul__(self, other))


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__and__",
              "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lshift__", "__rshift__"):
    setattr(BigInt, _name, _bigint_op(_name))
BigInt.__mul__ = BigInt.__rmul__ = _bigint_mul
BigInt.__neg__ = lambda self: BigInt(-int(self))
BigInt.__invert__ = lambda self: BigInt(~int(self))
BigInt.__abs__ = lambda self: BigInt(abs(int(self)))
del _name


class TypedList(list):
    """An array that records the element type it was built with (`elem`: its run-time test,
    mir/typetest.py), for `is` tests and `reflect.Type.of_value`: an empty `string[]` is not an
    `int[]`. Built by the array literals the checker sees reach a place whose type does not
    tell it (Checker.escape); everything else of the VM treats it as the list it is."""

    __slots__ = ("elem",)


def typed_list(items: list, elem) -> TypedList:
    out = TypedList(items)
    out.elem = elem
    return out


class TypedMap(dict):
    """A map that records the (key, value) types it was built with, as TypedList."""

    __slots__ = ("elem",)


def typed_map(entries: dict, elem) -> TypedMap:
    out = TypedMap(entries)
    out.elem = elem
    return out


JSON_TEST = ("json",)  # the run-time test of `json` (mir/typetest.py)
JSON_ENTRY = (("string",), JSON_TEST)  # what a `map<string, json>` records


def json_list() -> TypedList:
    """An empty `json[]`, as the engine records arrays built as json (parsed, from the host)."""
    out = TypedList()
    out.elem = JSON_TEST
    return out


def json_map() -> TypedMap:
    out = TypedMap()
    out.elem = JSON_ENTRY
    return out


def json_value(v):
    """A host's JSON-shaped value as a BAML `json`: its arrays `json[]`, its objects
    `map<string, json>` (copied unless already so built; anything else as it is)."""
    t = type(v)
    if (t is TypedList or t is TypedMap) and v.elem in (JSON_TEST, JSON_ENTRY):
        return v
    if t is list or t is TypedList or t is tuple:
        out = json_list()
        out.extend(json_value(x) for x in v)
        return out
    if t is dict or t is TypedMap:
        m = json_map()
        for k, x in v.items():
            m[k] = json_value(x)
        return m
    return v


class _Omitted:
    def __repr__(self) -> str:
        return "omitted"


OMITTED = _Omitted()


def from_const(v, enums: dict):
    """The run-time value of a MIR constant (MIR holds compile-time forms only); `enums` maps
    an enum's fqn to its EnumInfo."""
    t = type(v)
    if t is ir.VariantConst:
        return enums[v.enum].variants[v.name]
    if t is ir.BigIntConst:
        return BigInt(v.value)
    return OMITTED if v is ir.OMITTED else v


# `reflect.Type` values (bex/stdlib/reflect.py has their methods)
class RType:
    __slots__ = ("desc", "refl", "_key")

    def __init__(self, desc: tuple, refl):
        self.desc = desc
        self.refl = refl
        self._key = R.key(desc)

    def __eq__(self, o):
        return type(o) is RType and o._key == self._key

    def __hash__(self):
        return hash(self._key)

    def __repr__(self) -> str:
        return R.render(self.desc, self.refl.names)


class RView:
    """A kind view (`reflect.<kind>`) of a type value."""
    __slots__ = ("kind", "ty")

    def __init__(self, kind: str, ty: RType):
        self.kind = kind
        self.ty = ty

    def __eq__(self, o):
        return type(o) is RView and o.kind == self.kind and o.ty == self.ty

    def __hash__(self):
        return hash((self.kind, self.ty))

    def __repr__(self) -> str:
        return R.render(self.ty.desc, self.ty.refl.names)
