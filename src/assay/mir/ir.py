"""MIR: a control-flow graph per function, in the shape of BAML's own MIR.

Locals: _0 is the return place, _1.._arity the parameters, then user locals and temporaries.
A block holds assignments and ends in one terminator. Calls are terminators (they can unwind).
Every block records the catch handler that covers it (`unwind`): errors raised anywhere in the
block — a `throw`, a failed call, or a VM panic — go to that handler with the error in the
handler's error local.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..source import Span


# ── places and operands ──

@dataclass(frozen=True, slots=True)
class Local:
    index: int


@dataclass(frozen=True, slots=True)
class FieldPlace:
    base: "Operand"
    name: str


@dataclass(frozen=True, slots=True)
class IndexPlace:
    base: "Operand"
    index: "Operand"
    kind: str = ""  # 'array' / 'map' when the base's static type is known


Place = Local | FieldPlace | IndexPlace


@dataclass(frozen=True, slots=True)
class Copy:
    place: Local
    # the static type at this read when narrower than the local's (`a` inside `a != null`)
    ty: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Const:
    # compile-time forms only (bex makes the run-time values): int, float, str, bool, None,
    # bytes, FnRef, VariantConst, BigIntConst or OMITTED
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


@dataclass(slots=True)
class Concat:
    """String concatenation of string operands (backtick templates)."""
    parts: list[Operand]


@dataclass(slots=True)
class MapAgg:
    entries: list[tuple[Operand, Operand]]


@dataclass(slots=True)
class ClassAgg:
    fqn: str
    fields: list[Operand]  # in declaration order


@dataclass(slots=True)
class Load:
    """Read a field or an element: `copy _1.x`, `copy _1[_2]`."""
    place: FieldPlace | IndexPlace


@dataclass(slots=True)
class IsType:
    operand: Operand
    ty: object  # a runtime type test (assay.mir.typetest.TypeTest)


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


Rvalue = Use | BinaryOp | UnaryOp | Truthy | ArrayAgg | Concat | MapAgg | ClassAgg | Load | IsType | MakeClosure | MakeCell | Len


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
    function value)."""
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

def place_operands(p):
    """The operands a place reads: `base` of a field, `base` and `index` of an element."""
    if isinstance(p, FieldPlace):
        return [p.base]
    if isinstance(p, IndexPlace):
        return [p.base, p.index]
    return []


def rvalue_operands(v) -> list:
    if isinstance(v, Use):
        return [v.op]
    if isinstance(v, BinaryOp):
        return [v.left, v.right]
    if isinstance(v, (UnaryOp, Truthy, IsType, MakeCell, Len)):
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
