"""Read-only views of a resolved program: program → functions → blocks → statements and
terminators → operands, places and spans; and type views for every type of the language.

Views are thin wrappers built on demand; they never expose compiler objects. Each program,
function, parameter, type, field and variant view has a `meta` dict that lives as long as the
program (consumers such as the @ingot issue fill it)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..bex.values import from_const
from ..mir import ir
from ..mir.typetest import show
from ..sema import interfaces
from ..sema import types as T

if TYPE_CHECKING:
    from . import FunctionView, ProgramView

# ───────────────────────────── spans ─────────────────────────────


@dataclass(frozen=True)
class SourceSpan:
    """A source range: 1-based lines and columns, end inclusive of its last character's line."""
    file: str
    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


def source_span(span) -> SourceSpan | None:
    if span is None:
        return None
    line, col = span.file.line_col(span.start)
    end_line, end_col = span.file.line_col(max(span.start, span.end - 1))
    return SourceSpan(span.file.path, line, col, end_line, end_col + 1)


# ───────────────────────────── types ─────────────────────────────


@dataclass(frozen=True)
class FieldView:
    name: str
    type: "TypeView"
    meta: dict
    span: SourceSpan | None
    description: str | None = None  # its `@description("…")`


@dataclass(frozen=True)
class VariantView:
    name: str
    index: int
    meta: dict
    description: str | None = None  # its `@description("…")`


class TypeView:
    """One static type. `kind` is one of: int float string bool null void never unknown bigint
    uint8array json literal array map union class enum function typevar interface."""

    __slots__ = ("_t", "_program")

    def __init__(self, t, program: "ProgramView"):
        self._t = t
        self._program = program

    @property
    def kind(self) -> str:
        t = self._t
        if isinstance(t, T.Prim):
            return t.name
        if isinstance(t, T.StdT):  # a stdlib class, panic or enum
            return "enum" if t.kind in ("enum", "variant") else "class"
        if t is T.JSON:
            return "json"
        return {T.Lit: "literal", T.Arr: "array", T.MapT: "map", T.Union: "union", T.HiddenUnion: "union",
                T.ClassT: "class", T.EnumT: "enum", T.FuncT: "function", T.TVar: "typevar",
                T.IfaceT: "interface"}[T.Union if isinstance(t, T.Union) else type(t)]  # an alias's too

    @property
    def name(self) -> str:
        """The type as BAML writes it: `int`, `map<string, int[]>`, `user.Point`, `(int) -> bool`."""
        return T.show(self._t)

    @property
    def literal(self):
        """The value of a literal type (`1`, `"a"`, `true`); for an enum variant type, its name."""
        t = self._t
        if isinstance(t, T.EnumT):
            return t.variant
        return t.value if isinstance(t, T.Lit) else None

    @property
    def base(self) -> "TypeView | None":
        return self._wrap(self._t.base) if isinstance(self._t, T.Lit) else None

    @property
    def element(self) -> "TypeView | None":
        return self._wrap(self._t.elem) if isinstance(self._t, T.Arr) else None

    @property
    def key(self) -> "TypeView | None":
        return self._wrap(self._t.key) if isinstance(self._t, T.MapT) else None

    @property
    def value(self) -> "TypeView | None":
        return self._wrap(self._t.val) if isinstance(self._t, T.MapT) else None

    @property
    def members(self) -> list["TypeView"]:
        """A union's members; the types `json` is made of (`null`, …, `json[]`, `map<string, json>`)."""
        t = self._t
        return [self._wrap(m) for m in (t.members if isinstance(t, T.Union) else T.JSON_MEMBERS if t is T.JSON else ())]

    @property
    def qualified_name(self) -> str | None:
        t = self._t
        if isinstance(t, T.ClassT):
            return t.cls.fqn
        if isinstance(t, T.IfaceT):
            return t.iface.fqn
        if isinstance(t, T.EnumT):
            return t.enum.fqn
        if isinstance(t, T.StdT):
            return t.name
        if t is T.JSON:
            return "baml.json.json"
        return None

    @property
    def type_args(self) -> list["TypeView"]:
        return [self._wrap(a) for a in self._t.args] if isinstance(self._t, (T.ClassT, T.IfaceT)) else []

    @property
    def implementors(self) -> list["TypeView"]:
        """An interface's implementing types (classes and builtin types), in source order."""
        t = self._t
        if not isinstance(t, T.IfaceT):
            return []
        return [self._wrap(i.target) for i in t.iface.impls if i.target is not None]

    @property
    def fields(self) -> list[FieldView]:
        t = self._t
        if not isinstance(t, T.ClassT):
            return []
        return [FieldView(f.name, self._program._field_type(t.cls, f),
                          self._program._meta(("field", t.cls.fqn, f.name)), source_span(f.span),
                          description(getattr(f, "attrs", ())))
                for f in t.cls.fields]

    @property
    def variants(self) -> list[VariantView]:
        t = self._t
        if not isinstance(t, T.EnumT):
            return []
        attrs = {v.name: v.attrs for v in getattr(t.enum.decl, "variants", ())}
        return [VariantView(v, i, self._program._meta(("variant", t.enum.fqn, v)), description(attrs.get(v, ())))
                for i, v in enumerate(t.enum.variants)]

    @property
    def description(self) -> str | None:
        """A class's or enum's `@@description("…")`."""
        t = self._t
        decl = t.cls.decl if isinstance(t, T.ClassT) else t.enum.decl if isinstance(t, T.EnumT) else None
        return description(decl.attrs) if decl is not None else None

    @property
    def params(self) -> list[tuple[str | None, "TypeView"]]:
        t = self._t
        return [(n, self._wrap(pt)) for n, pt, _ in t.params] if isinstance(t, T.FuncT) else []

    @property
    def returns(self) -> "TypeView | None":
        return self._wrap(self._t.ret) if isinstance(self._t, T.FuncT) else None

    @property
    def throws(self) -> "TypeView | None":
        t = self._t
        return self._wrap(t.throws) if isinstance(t, T.FuncT) and t.throws is not None else None

    @property
    def meta(self) -> dict:
        q = self.qualified_name
        return self._program._meta(("type", q or self.name))

    def _wrap(self, t) -> "TypeView":
        return TypeView(t, self._program)

    def closed(self) -> "TypeView":
        """This type with every interface replaced by the union of its implementing types."""
        return self._wrap(interfaces.closed(self._t))

    def substitute(self, env: dict) -> "TypeView":
        """This type with its type variables replaced ({name: TypeView}; others: unknown)."""
        return self._wrap(T.subst(self._t, {k: v._t for k, v in env.items()}))

    def __eq__(self, other) -> bool:
        return isinstance(other, TypeView) and other._t == self._t

    def __hash__(self) -> int:
        return hash(self._t)

    def __repr__(self) -> str:
        return f"TypeView({self.name})"


# ───────────────────────────── MIR views ─────────────────────────────


@dataclass(frozen=True)
class OperandView:
    """A constant (`value`) or a read of a local (`local`), with its static type when known."""
    kind: str  # 'constant' | 'local'
    local: int | None
    value: object
    type: TypeView | None


@dataclass(frozen=True)
class PlaceView:
    """Where a statement writes or reads: a local, `base.field`, `base[index]`, or a cell's
    content (`*base`)."""
    kind: str  # 'local' | 'field' | 'index' | 'cell'
    local: int | None
    base: OperandView | None
    field: str | None
    index: OperandView | None


@dataclass(frozen=True)
class RvalueView:
    """kind: use binary unary truthy array map class concat load is_type closure cell len.
    `op` is the operator of binary/unary; `target` the class / closure function / tested type;
    `test` (is_type) the run-time test as a tuple: ('null',) ('int',) ('class', fqn)
    ('variant', enum_fqn, name) ('array', t) ('union', (t, …)) … (docs/mirx.md)."""
    kind: str
    op: str | None
    operands: tuple
    place: PlaceView | None
    target: str | None
    test: tuple | None = None


@dataclass(frozen=True)
class StatementView:
    """`place = rvalue`. `dest` is the destination local (None for a store into a field,
    element or cell); `operands` every operand the statement reads: a store's place operands,
    then its value's."""
    kind: str  # 'assign'
    place: PlaceView
    rvalue: RvalueView
    span: SourceSpan | None
    block: int = -1  # the id of the block it belongs to
    site: str = ""
    dest: int | None = None
    operands: tuple = ()


@dataclass(frozen=True)
class CheckView:
    """An explicit panic site: the statement after it panics with class `panic` (e.g.
    `baml.panics.DivisionByZero`) exactly when the check fails on `operands`. `op` is the
    guarded operation: `+ - * / %` (operands a, b), `neg` (a), `<< >>` (a, count), `[]` and
    `[]=` (container, index or key)."""
    kind: str  # 'check'
    panic: str
    op: str
    operands: tuple
    span: SourceSpan | None
    block: int = -1
    site: str = ""
    dest = None


@dataclass(frozen=True)
class EventView:
    """A function-level event: 'entry' (parameters bound) or 'raise' (an error leaves)."""
    kind: str
    span: SourceSpan | None
    site: str = ""
    operands = ()
    dest = None


@dataclass(frozen=True)
class CallTargetView:
    """kind: 'function' (a user function, `function` is its view), 'builtin' (a stdlib function
    or method), 'method' (dispatched on the receiver's run-time type), 'indirect' (a function
    value; `type` is its static function type when known), 'llm' (the body of an LLM function:
    `name` is its fqn, `function` its view; operands are its parameters; the result comes from
    the LLM client, or from an extension that substitutes the call)."""
    kind: str
    name: str | None
    function: "FunctionView | None"
    type: TypeView | None


@dataclass(frozen=True)
class TerminatorView:
    """kind: goto branch return call throw rethrow throw_if_panic unreachable.
    `targets` are block ids (branch: [then, else]; call: [continuation]); `origin` names the
    construct a branch comes from (if, while, for, match, guard, catch, ??, &&, ||, ?., is, …)."""
    kind: str
    targets: tuple
    operands: tuple
    call: CallTargetView | None
    origin: str | None
    span: SourceSpan | None
    block: int = -1  # the id of the block it ends
    site: str = ""
    dest: int | None = None  # a call's destination local (None: the result is discarded)
    kwnames: tuple = ()  # a call's keyword names: the last len(kwnames) operands are theirs


@dataclass(frozen=True)
class BlockView:
    id: int
    statements: tuple
    terminator: TerminatorView
    handler: int | None  # the catch handler block covering this block


@dataclass(frozen=True)
class LocalView:
    index: int
    name: str | None
    type: TypeView | None


@dataclass(frozen=True)
class ParamView:
    name: str
    type: TypeView
    has_default: bool
    meta: dict


@dataclass(frozen=True)
class GenericView:
    """A type parameter `name` and its declared bounds (`<T extends A & B>`), each as written
    (`bound_names`: "baml.ops.Compare") and resolved (`bounds`; an interface Assay's types do
    not model yet resolves to kind `unknown`, a class or other type to itself)."""
    name: str
    bounds: tuple
    bound_names: tuple


def description(attrs) -> str | None:
    """The text of a `@description("…")` / `@@description("…")` among `attrs`."""
    for a in attrs:
        if a.name == "description" and a.args and isinstance(getattr(a.args[0], "value", None), str):
            return a.args[0].value
    return None


def operand_view(o, locals_, program) -> OperandView:
    if isinstance(o, ir.Const):  # consumers see the run-time value (a Variant, not its MIR form)
        value = from_const(o.value, program._p.runtime.enums)
        return OperandView("constant", None, value, program._const_type(value))
    ty = o.ty if o.ty is not None else locals_[o.place.index].ty  # narrowed at this read
    return OperandView("local", o.place.index, None, TypeView(ty, program) if ty is not None else None)


def place_view(p, locals_, program) -> PlaceView:
    if isinstance(p, ir.Local):
        return PlaceView("local", p.index, None, None, None)
    if isinstance(p, ir.CellPlace):
        return PlaceView("cell", None, operand_view(p.base, locals_, program), None, None)
    if isinstance(p, ir.FieldPlace):
        return PlaceView("field", None, operand_view(p.base, locals_, program), p.name, None)
    return PlaceView("index", None, operand_view(p.base, locals_, program), None,
                     operand_view(p.index, locals_, program))


_RV_KIND = {ir.Use: "use", ir.BinaryOp: "binary", ir.UnaryOp: "unary", ir.Truthy: "truthy",
            ir.ArrayAgg: "array", ir.MapAgg: "map", ir.ClassAgg: "class", ir.Concat: "concat",
            ir.Load: "load", ir.IsType: "is_type", ir.MakeClosure: "closure", ir.MakeCell: "cell",
            ir.Len: "len"}


def rvalue_view(v, locals_, program) -> RvalueView:
    if isinstance(v, ir.BoundMethod):  # seen as the load of a field named as the method
        base = operand_view(v.operand, locals_, program)
        return RvalueView("load", None, (), PlaceView("field", None, base, v.name, None), None)
    if isinstance(v, ir.IsOmitted):  # seen as the run-time type test ('omitted',)
        return RvalueView("is_type", None, (operand_view(v.operand, locals_, program),), None,
                          "omitted", ("omitted",))
    ops = tuple(operand_view(o, locals_, program) for o in ir.rvalue_operands(v)
                if not isinstance(v, ir.Load))
    place = place_view(v.place, locals_, program) if isinstance(v, ir.Load) else None
    target = None
    if isinstance(v, ir.ClassAgg):
        target = v.fqn
    elif isinstance(v, ir.MakeClosure):
        target = v.fqn
    elif isinstance(v, ir.IsType):
        target = show(v.ty)
    op = v.op if isinstance(v, (ir.BinaryOp, ir.UnaryOp)) else None
    test = v.ty if isinstance(v, ir.IsType) else None
    return RvalueView(_RV_KIND[type(v)], op, ops, place, target, test)
