"""MIR: a control-flow graph per function, in the shape of BAML's own MIR.

Locals: _0 is the return place, _1.._arity the parameters, then user locals and temporaries.
A block holds assignments and ends in one terminator. Calls are terminators (they can unwind).
Every block records the catch handler that covers it (`unwind`): errors raised anywhere in the
block — a `throw`, a failed call, or a VM panic — go to that handler with the error in the
handler's error local.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..source import Span
from .typetest import show


# ── places and operands ──

@dataclass(frozen=True, slots=True)
class Local:
    index: int


@dataclass(frozen=True, slots=True)
class FieldPlace:
    """A field of a class instance: `base.name` (always a declared field; a method read as a
    value is the rvalue `BoundMethod`)."""
    base: "Operand"
    name: str


@dataclass(frozen=True, slots=True)
class CellPlace:
    """The content of a closure cell: `*base` (a captured local lives in a cell)."""
    base: "Operand"


@dataclass(frozen=True, slots=True)
class IndexPlace:
    base: "Operand"
    index: "Operand"
    kind: str = ""  # 'array' / 'map' / 'map_key' when the base's static type is known (lower._coll_kind)


Place = Local | FieldPlace | IndexPlace | CellPlace


@dataclass(frozen=True, slots=True)
class Copy:
    place: Local
    # the static type at this read when narrower than the local's (`a` inside `a != null`)
    ty: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Const:
    # compile-time forms only (bex makes the run-time values): int, float, str, bool, None,
    # bytes, FnRef, VariantConst, BigIntConst, TypeArg or OMITTED
    value: object


@dataclass(frozen=True, slots=True)
class FnRef:
    """A function as a value: a user function by fqn, or a builtin by qualified name."""
    fqn: str
    builtin: bool = False


@dataclass(frozen=True, slots=True)
class VariantConst:
    """An enum variant: `enum` is the enum's fqn."""
    enum: str
    name: str

    def __repr__(self) -> str:  # as the run-time variant prints (`assay dis`)
        return f"{self.enum.rsplit('.', 1)[-1]}.{self.name}"


@dataclass(frozen=True, slots=True)
class BigIntConst:
    value: int

    def __repr__(self) -> str:
        return f"{self.value}n"


@dataclass(frozen=True, slots=True)
class TypeArg:
    """A type argument a generic builtin receives at run time (`baml.json.decode<User>`): its
    test (mir/typetest.py, unions kept whole) and, per class or enum test reachable from it,
    what decoding needs: ('fields', ((name, alias, skip, test), ...)) with the class's type
    arguments substituted, or ('variants', ((name, alias, skip), ...))."""
    root: tuple
    defs: tuple  # ((test, entry), ...)

    def __repr__(self) -> str:
        return f"type {show(self.root)}"


class _Omitted:
    def __repr__(self) -> str:
        return "omitted"


OMITTED = _Omitted()  # an omitted argument: the callee fills in its default


Operand = Copy | Const


# ── rvalues ──

@dataclass(slots=True)
class Use:
    op: Operand


@dataclass(slots=True)
class BinaryOp:
    op: str  # + - * / % & | ^ << >> == != < <= > >=
    left: Operand
    right: Operand
    kind: str = ""  # 'int' / 'float' / 'string' when both operands statically have that type
    # the real engine names the operands of an overflow in reverse for `local op call()` in a
    # function with branches (an artefact of its stack carry); reproduced for identical messages
    swap_msg: bool = False


@dataclass(slots=True)
class UnaryOp:
    op: str  # '-' '~' '!' ('!' includes the truthiness coercion)
    operand: Operand


@dataclass(slots=True)
class Truthy:
    operand: Operand


@dataclass(slots=True)
class ArrayAgg:
    items: list[Operand]
    elem: tuple | None = None  # the recorded element type (a typetest), where items cannot tell


@dataclass(slots=True)
class Concat:
    """String concatenation of string operands (backtick templates)."""
    parts: list[Operand]


@dataclass(slots=True)
class MapAgg:
    entries: list[tuple[Operand, Operand]]
    elem: tuple | None = None  # the recorded (key, value) types (typetests), where entries cannot tell


@dataclass(slots=True)
class ClassAgg:
    fqn: str
    fields: list[Operand]  # in declaration order


@dataclass(slots=True)
class Load:
    """Read a field, an element or a cell's content: `copy _1.x`, `copy _1[_2]`, `copy *_1`."""
    place: FieldPlace | IndexPlace | CellPlace


@dataclass(slots=True)
class BoundMethod:
    """A method read as a value (`p.area` where `area` is no field): the method bound to
    `operand`, dispatched on its run-time class."""
    operand: Operand
    name: str


@dataclass(slots=True)
class IsType:
    operand: Operand
    ty: object  # a runtime type test (assay.mir.typetest.TypeTest)


@dataclass(slots=True)
class IsOmitted:
    """Was this parameter's argument omitted (so the body fills in its default)?"""
    operand: Operand


@dataclass(slots=True)
class MakeClosure:
    fqn: str  # the lambda's function
    captures: list[Local]  # cells


@dataclass(slots=True)
class MakeCell:
    operand: Operand


@dataclass(slots=True)
class Len:
    operand: Operand


Rvalue = (Use | BinaryOp | UnaryOp | Truthy | ArrayAgg | Concat | MapAgg | ClassAgg | Load | BoundMethod | IsType
          | IsOmitted | MakeClosure | MakeCell | Len)


# ── statements and terminators ──

class Panic:
    """The panic classes an explicit check guards."""
    OVERFLOW = "baml.panics.IntegerOverflow"
    DIVISION_BY_ZERO = "baml.panics.DivisionByZero"
    INDEX = "baml.panics.IndexOutOfBounds"
    KEY = "baml.panics.MapKeyNotFound"
    SHIFT = "baml.panics.NegativeBitShift"


@dataclass(slots=True)
class Check:
    """An explicit panic site (rustc's `Assert`): the statement after it panics with `panic`
    exactly when the check fails on these operands. `op` is the guarded operation (`+`, `neg`,
    `/`, `[]`, `<<` …); operands are the operation's (container and index for `[]`). Plain code
    compiles a check to nothing: the operation itself raises; instrumented code sees it."""
    panic: str
    op: str
    operands: list[Operand]
    span: Span | None = None

@dataclass(slots=True)
class Assign:
    dest: Place
    value: Rvalue
    span: Span | None = None


@dataclass(slots=True)
class Goto:
    target: int


@dataclass(slots=True)
class Branch:
    cond: Operand  # strict bool
    then: int
    else_: int
    # the construct it comes from: 'if', 'while', 'for', 'match', 'guard', 'catch', '??', '&&',
    # '||', '?.', 'is', 'if let', 'while let', 'let else', 'default'
    origin: str = ""


@dataclass(slots=True)
class Return:
    pass


@dataclass(slots=True)
class Callee:
    """kind: 'fn' (user function fqn), 'native' (stdlib function name), 'method' (dispatch on
    the first argument's run-time value by method name), 'indirect' (first operand is the
    function value), 'llm' (an LLM function's body: name is that function's fqn, the arguments
    its parameters; the runtime asks the configured LLM client)."""
    kind: str
    name: str = ""


@dataclass(slots=True)
class Call:
    callee: Callee
    args: list[Operand]
    kwargs: list[tuple[str, Operand]]  # only for 'method'/'indirect' calls resolved at run time
    dest: Local | None
    target: int


@dataclass(slots=True)
class Throw:
    value: Operand


@dataclass(slots=True)
class Rethrow:
    """Re-raise a caught error unchanged (keeps its panic/throw nature)."""
    value: Operand


@dataclass(slots=True)
class ThrowIfPanic:
    value: Operand
    otherwise: int


@dataclass(slots=True)
class Unreachable:
    pass


Terminator = Goto | Branch | Return | Call | Throw | Rethrow | ThrowIfPanic | Unreachable


@dataclass(slots=True)
class Block:
    id: int
    statements: list[Assign | Check] = field(default_factory=list)
    terminator: Terminator | None = None
    span: Span | None = None
    term_span: Span | None = None
    unwind: tuple[int, int] | None = None  # (handler block, error local)


@dataclass(slots=True)
class LocalDecl:
    name: str | None
    ty: object = None
    span: Span | None = None
    is_cell: bool = False


@dataclass
class MirFunction:
    fqn: str
    params: list[str]
    has_default: list[bool]  # an omitted argument arrives as OMIT and the body fills it in
    locals: list[LocalDecl]
    blocks: list[Block]
    span: Span | None = None
    n_captures: int = 0  # lambdas: the first n_captures parameters are captured cells
    is_lambda: bool = False
    ret_ty: object = None
    throws_ty: object = None
    param_tys: list[object] = field(default_factory=list)


# ── the one operand walk ──
#
# Every pass that reads or rewrites operands goes through these: `*_operands` list what a node
# reads, `map_*` rebuild a node with each operand replaced by `f(operand)`, in the same order.
# Locals that are not operands (an assignment's or a call's destination local, a catch
# handler's error local) are not visited; a closure's captured cells are, as `Copy(cell)`.

def place_operands(p) -> list:
    """The operands a place reads: `base` of a field or cell, `base` and `index` of an element."""
    if isinstance(p, (FieldPlace, CellPlace)):
        return [p.base]
    if isinstance(p, IndexPlace):
        return [p.base, p.index]
    return []


def rvalue_operands(v) -> list:
    if isinstance(v, Use):
        return [v.op]
    if isinstance(v, BinaryOp):
        return [v.left, v.right]
    if isinstance(v, (UnaryOp, Truthy, IsType, IsOmitted, MakeCell, Len, BoundMethod)):
        return [v.operand]
    if isinstance(v, (ArrayAgg, Concat)):
        return list(v.items if isinstance(v, ArrayAgg) else v.parts)
    if isinstance(v, MapAgg):
        return [o for kv in v.entries for o in kv]
    if isinstance(v, ClassAgg):
        return list(v.fields)
    if isinstance(v, Load):
        return place_operands(v.place)
    if isinstance(v, MakeClosure):
        return [Copy(c) for c in v.captures]
    raise AssertionError(v)


def node_operands(node) -> list:
    """Every operand a statement or terminator reads, in one documented order: a store's
    place operands, then its value's; a call's arguments, then its keyword values."""
    if isinstance(node, Assign):
        return place_operands(node.dest) + rvalue_operands(node.value)
    if isinstance(node, Check):
        return list(node.operands)
    if isinstance(node, Branch):
        return [node.cond]
    if isinstance(node, Call):
        return list(node.args) + [a for _, a in node.kwargs]
    if isinstance(node, Return):
        return [Copy(Local(0))]
    if isinstance(node, (Throw, Rethrow, ThrowIfPanic)):
        return [node.value]
    return []


def map_place(p, f):
    """`p` with each operand `o` it reads replaced by `f(o)` (a local is returned as is)."""
    if isinstance(p, FieldPlace):
        return FieldPlace(f(p.base), p.name)
    if isinstance(p, CellPlace):
        return CellPlace(f(p.base))
    if isinstance(p, IndexPlace):
        return IndexPlace(f(p.base), f(p.index), p.kind)
    return p


def map_rvalue(v, f):
    """A new rvalue: `v` with each operand `o` replaced by `f(o)`; every other field kept."""
    if isinstance(v, Use):
        return Use(f(v.op))
    if isinstance(v, BinaryOp):
        return replace(v, left=f(v.left), right=f(v.right))
    if isinstance(v, (UnaryOp, Truthy, IsType, IsOmitted, MakeCell, Len, BoundMethod)):
        return replace(v, operand=f(v.operand))
    if isinstance(v, ArrayAgg):
        return ArrayAgg([f(o) for o in v.items])
    if isinstance(v, Concat):
        return Concat([f(o) for o in v.parts])
    if isinstance(v, MapAgg):
        return MapAgg([(f(k), f(x)) for k, x in v.entries])
    if isinstance(v, ClassAgg):
        return ClassAgg(v.fqn, [f(o) for o in v.fields])
    if isinstance(v, Load):
        return Load(map_place(v.place, f))
    if isinstance(v, MakeClosure):  # a cell maps to a cell: f returns a Copy of a local
        return MakeClosure(v.fqn, [f(Copy(c)).place for c in v.captures])
    raise AssertionError(v)


def map_operands(node, f):
    """A new statement or terminator: `node` with each operand `o` of `node_operands(node)`
    replaced by `f(o)`, the rest kept (a node that reads no operand, and a return, whose read
    of _0 is implicit, come back as they are)."""
    if isinstance(node, Assign):
        return Assign(map_place(node.dest, f), map_rvalue(node.value, f), node.span)
    if isinstance(node, Check):
        return replace(node, operands=[f(o) for o in node.operands])
    if isinstance(node, Branch):
        return replace(node, cond=f(node.cond))
    if isinstance(node, Call):
        return replace(node, args=[f(a) for a in node.args], kwargs=[(k, f(a)) for k, a in node.kwargs])
    if isinstance(node, (Throw, Rethrow, ThrowIfPanic)):
        return replace(node, value=f(node.value))
    return node
