"""BAML's abstract syntax tree. Every node carries a `span`; sugar that the parser can remove
early (parenthesised expressions, `else if` chains) is already gone. Later layers annotate nodes
in place only through the `ty` slot of expressions (filled by sema)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ..source import Span


# ───────────────────────────── types ─────────────────────────────

@dataclass(eq=False)
class TName:
    """`int`, `Foo`, `baml.panics.IndexOutOfBounds`, `map<string, int>`, `Box<T>`."""
    span: Span
    path: list[str]
    args: list["TypeExpr"] = field(default_factory=list)
    names: list = field(default_factory=list)  # per argument: its associated type's name (`Item = int`) or None


@dataclass(eq=False)
class TArray:
    span: Span
    elem: "TypeExpr"


@dataclass(eq=False)
class TOptional:
    span: Span
    inner: "TypeExpr"


@dataclass(eq=False)
class TUnion:
    span: Span
    members: list["TypeExpr"]


class BigLit(int):
    """A `bigint` literal's value where a literal type or pattern holds it (`-> 3n`, `3n =>`),
    so that it stays distinct from the int `3`."""
    __slots__ = ()

    def __repr__(self):
        return f"{int(self)}n"


@dataclass(eq=False)
class TLiteral:
    """Literal type: `1`, `-1`, `"a"`, `true`, `null` (value None)."""
    span: Span
    value: object


@dataclass(eq=False)
class TFunc:
    """`(int, x: string) -> bool throws never`."""
    span: Span
    params: list[tuple[str | None, "TypeExpr"]]
    ret: "TypeExpr"
    throws: "TypeExpr | None"


TypeExpr = Union[TName, TArray, TOptional, TUnion, TLiteral, TFunc]


# ───────────────────────────── patterns ─────────────────────────────

@dataclass(eq=False)
class PWild:
    span: Span


@dataclass(eq=False)
class PLit:
    """Literal pattern: int, string, bool or null (value None). Negative ints included."""
    span: Span
    value: object


@dataclass(eq=False)
class PBind:
    """`let n`, `let n: int` (also the shorthand `y` inside a class pattern)."""
    span: Span
    name: str
    type: "TypeExpr | None" = None


@dataclass(eq=False)
class PType:
    """A bare type or enum variant: `int`, `MyClass`, `Color.Red`, `baml.panics.X`, `string?`."""
    span: Span
    type: TypeExpr


@dataclass(eq=False)
class POr:
    span: Span
    alts: list["Pattern"]


@dataclass(eq=False)
class PClass:
    """`Point { x: 0, y }`; a field with pattern None binds the field to its own name."""
    span: Span
    type: TName
    fields: list[tuple[str, "Pattern | None"]]


@dataclass(eq=False)
class PArray:
    """`[a, b, ..let rest, z]`: items before and after the rest; rest_index None = no rest.
    rest_name None with a rest = `..` (anonymous)."""
    span: Span
    items: list["Pattern"]
    rest_index: int | None = None
    rest_name: str | None = None
    # the rest's full sub-pattern when it is more than `..let name` / `..` / `.._`
    # (e.g. `..let r: let s` → PAnd); rest_name is then the first binding's name if any
    rest_pattern: "Pattern | None" = None


@dataclass(eq=False)
class PAnd:
    """`p1: p2` — every sub-pattern must match (binding chains `let r: let s`, typed
    sub-patterns `[..let x]: int[]`)."""
    span: Span
    pats: list["Pattern"]


Pattern = Union[PWild, PLit, PBind, PType, POr, PClass, PArray, PAnd]


# ───────────────────────────── expressions ─────────────────────────────

@dataclass(eq=False)
class Expr:
    span: Span

    ty = None  # static type, filled in by sema (None = not known)


@dataclass(eq=False)
class IntLit(Expr):
    value: int


@dataclass(eq=False)
class FloatLit(Expr):
    value: float


@dataclass(eq=False)
class StrLit(Expr):
    value: str


@dataclass(eq=False)
class BoolLit(Expr):
    value: bool


@dataclass(eq=False)
class NullLit(Expr):
    pass


@dataclass(eq=False)
class BigIntLit(Expr):
    """`123n` (type `bigint`)."""
    value: int


@dataclass(eq=False)
class BytesLit(Expr):
    """Byte string `b"…"` (type `uint8array`), escapes (`\\xHH`, `\\n`, …) decoded."""
    value: bytes


@dataclass(eq=False)
class TFor:
    """`${for (let x in xs)} … ${endfor}` inside a backtick template."""
    span: Span
    pattern: Pattern
    iterable: Expr
    parts: list["TemplatePart"]


@dataclass(eq=False)
class TIf:
    """`${if (c)} … ${else if (d)} … ${else} … ${endif}`: branches are (cond, parts)."""
    span: Span
    branches: list[tuple[Expr, list["TemplatePart"]]]
    else_parts: list["TemplatePart"] | None


@dataclass(eq=False)
class TForC:
    """`${for (let i = 0; i < n; i += 1)} … ${endfor}` (C-style header) inside a template."""
    span: Span
    init: "Stmt | None"
    cond: "Expr | None"
    update: "Stmt | None"
    parts: list["TemplatePart"]


# str = literal text (escapes decoded, dedent applied); Expr = `${expr}` / `${ {block} }`;
# Let = `${ let x = … }` (binds for the rest of the template, renders nothing).
TemplatePart = Union[str, Expr, TFor, TIf, "Let"]


@dataclass(eq=False)
class Template(Expr):
    parts: list[TemplatePart]
    tagged: bool = False  # a tagged template's body: its value is a `baml.TaggedString`


@dataclass(eq=False)
class Name(Expr):
    name: str

    declared = None  # a variable's declared type (sema), where `ty` is not trusted after writes


@dataclass(eq=False)
class ArrayLit(Expr):
    items: list[Expr]


@dataclass(eq=False)
class MapLit(Expr):
    entries: list[tuple[Expr, Expr]]


@dataclass(eq=False)
class ClassLit(Expr):
    """`Point { x: 1, ...p }`, `Box<int> { value: 1 }`, `ns.Point { … }`. An entry with
    name None is a spread (`...expr`)."""
    type: TName
    entries: list[tuple[str | None, Expr]]


@dataclass(eq=False)
class Field(Expr):
    """`obj.name`, or `obj?.name` when optional."""
    obj: Expr
    name: str
    optional: bool = False


@dataclass(eq=False)
class Upcast(Expr):
    """`e.as<I>`: `e` seen as interface `I` (its methods dispatch through I's implementation)."""
    obj: Expr
    type: "TypeExpr | None"


@dataclass(eq=False)
class Index(Expr):
    obj: Expr
    index: Expr
    optional: bool = False


@dataclass(eq=False)
class Arg:
    span: Span
    name: str | None
    value: Expr


@dataclass(eq=False)
class Call(Expr):
    """`f(x)`, `o.m(x, b = 2)`, `f<int>(x)`, `o?.m(x)` (optional)."""
    func: Expr
    args: list[Arg]
    type_args: list[TypeExpr] = field(default_factory=list)
    optional: bool = False


@dataclass(eq=False)
class Unary(Expr):
    op: str  # '!' '-' '~'
    operand: Expr


@dataclass(eq=False)
class Binary(Expr):
    """Arithmetic, comparison, bitwise, and the short-circuit `&&` `||` `??`."""
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False)
class Is(Expr):
    expr: Expr
    pattern: Pattern


@dataclass(eq=False)
class If(Expr):
    """`if c { } else …`; `else if` chains nest an If inside a Block's tail."""
    cond: Expr
    then: "Block"
    else_: "Block | None" = None


@dataclass(eq=False)
class IfLet(Expr):
    pattern: Pattern
    value: Expr
    then: "Block"
    else_: "Block | None" = None


@dataclass(eq=False)
class MatchArm:
    span: Span
    pattern: Pattern
    guard: Expr | None
    body: Expr


@dataclass(eq=False)
class Match(Expr):
    scrutinee: Expr
    arms: list[MatchArm]


@dataclass(eq=False)
class Catch(Expr):
    """Postfix `expr catch (e) { arms }` or `catch (e, ctx)` (ctx: the error's
    `baml.errors.Context`); kind is 'catch', 'catch_all' or 'catch_all_panics'.
    Chained clauses nest: the inner Catch is this one's `expr`."""
    expr: Expr
    binding: str
    arms: list[MatchArm]
    kind: str = "catch"
    ctx: str | None = None


@dataclass(eq=False)
class Param:
    span: Span
    name: str
    type: TypeExpr | None
    default: Expr | None = None


@dataclass(eq=False)
class Lambda(Expr):
    params: list[Param]
    ret: TypeExpr | None
    throws: TypeExpr | None
    body: "Block"
    throws_hole: object = False  # `throws _` (its TypeExpr): inferred, its thrown literals widened


@dataclass(eq=False)
class BlockExpr(Expr):
    block: "Block"


@dataclass(eq=False)
class Diverge(Expr):
    """`return e`, `throw e`, `break`, `continue` where an expression stands (a match or catch
    arm, an operand, an argument): runs the statement; its type is `never`."""
    stmt: "Stmt"


@dataclass(eq=False)
class Spawn(Expr):
    """`spawn { … }`: a future of the block, which runs as a lambda of no parameters (`fn`);
    `spawn with m1, m2 { … }`: the modifiers it starts with (cancel tokens, limits, `Root`)."""
    fn: Lambda
    modifiers: list = field(default_factory=list)


@dataclass(eq=False)
class Await(Expr):
    """`await e`: the value of future `e` (its error, thrown)."""
    value: Expr


# ───────────────────────────── statements ─────────────────────────────

@dataclass(eq=False)
class Stmt:
    span: Span


@dataclass(eq=False)
class Let(Stmt):
    """`let p: T = e;`, `const …`, let-else `let P = e else { … };`; with `type_binding`,
    `let type N = e;`: type name N stands for the type value `e` (a `reflect.Type`) for the
    rest of the block (the pattern binds N)."""
    pattern: Pattern
    type: TypeExpr | None
    value: Expr
    else_block: "Block | None" = None
    is_const: bool = False
    type_binding: bool = False


@dataclass(eq=False)
class Assign(Stmt):
    """`target = value` or compound `target op= value` (op is '+', '-', '<<', …)."""
    target: Expr
    op: str | None
    value: Expr


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(eq=False)
class While(Stmt):
    cond: Expr
    body: "Block"


@dataclass(eq=False)
class WhileLet(Stmt):
    pattern: Pattern
    value: Expr
    body: "Block"


@dataclass(eq=False)
class ForIn(Stmt):
    pattern: Pattern
    iterable: Expr
    body: "Block"


@dataclass(eq=False)
class ForC(Stmt):
    init: Stmt | None
    cond: Expr | None
    update: Stmt | None
    body: "Block"


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Continue(Stmt):
    pass


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False)
class Throw(Stmt):
    value: Expr


@dataclass(eq=False)
class Defer(Stmt):
    body: "Block"


@dataclass(eq=False)
class Block:
    """`{ stmts; tail }`: tail is the block's value (None = the block is void/null)."""
    span: Span
    stmts: list[Stmt]
    tail: Expr | None


# ───────────────────────────── items ─────────────────────────────

@dataclass(eq=False)
class Attribute:
    """`@alias("x")` (level 1) or `@@description("…")` (level 2)."""
    span: Span
    name: str
    args: list[Expr]
    level: int = 1


@dataclass(eq=False)
class Generic:
    span: Span
    name: str
    bounds: list[TypeExpr] = field(default_factory=list)


@dataclass(eq=False)
class Function:
    """A free function, or a method when declared inside a class (`has_self` when its first
    parameter is `self`, which is not listed in `params`)."""
    span: Span
    name: str
    name_span: Span
    generics: list[Generic]
    params: list[Param]
    ret: TypeExpr | None
    throws: TypeExpr | None
    body: Block | None
    attrs: list[Attribute] = field(default_factory=list)
    has_self: bool = False
    doc: str | None = None
    llm: "LlmBody | None" = None  # an LLM function (`client: … prompt: …`); body is then
    #                              Block([], LlmCall) so that every pass sees an ordinary body
    tagged_string: bool = False  # marked `//baml:tagged_string`: a tagged template's tag


@dataclass(eq=False)
class LlmBody:
    """The `{ client: … prompt: … tools: … }` body of an LLM function (BAML 0.23.0)."""
    span: Span                 # `{` … `}`
    client: Expr | None        # a "provider/model" string, a `client` name, or any Selector
    prompt: Expr               # StrLit (rendered with jinja2 when it holds `{{`/`{%`) or Template
    tools: Expr | None = None  # accepted and checked as an expression, ignored when run


@dataclass(eq=False)
class LlmCall(Expr):
    """The value of an LLM function's body: ask the configured LLM client (lowered to a call
    with callee kind "llm" whose arguments are the function's parameters)."""


@dataclass(eq=False)
class LlmOutputFormat(Expr):
    """`ctx.output_format()` inside an LLM prompt template."""


@dataclass(eq=False)
class LlmRole(Expr):
    """`role("user")` inside an LLM prompt template: starts a chat message."""
    name: Expr


@dataclass(eq=False)
class ClientDecl:
    """`client Name = <expr>;` (a client value; the engine's `ai.Client`/Selector)."""
    span: Span
    name: str
    name_span: Span
    value: Expr


@dataclass(eq=False)
class ClassField:
    span: Span
    name: str
    type: TypeExpr
    attrs: list[Attribute] = field(default_factory=list)
    doc: str | None = None


@dataclass(eq=False)
class ClassDecl:
    span: Span
    name: str
    name_span: Span
    generics: list[Generic]
    fields: list[ClassField]
    methods: list[Function]
    attrs: list[Attribute] = field(default_factory=list)
    doc: str | None = None
    # in-body `implements Iface { … }` blocks (their methods are ALSO listed in `methods`)
    impls: list["ImplBlock"] = field(default_factory=list)


@dataclass(eq=False)
class EnumVariant:
    span: Span
    name: str
    attrs: list[Attribute] = field(default_factory=list)
    doc: str | None = None


@dataclass(eq=False)
class EnumDecl:
    span: Span
    name: str
    name_span: Span
    variants: list[EnumVariant]
    attrs: list[Attribute] = field(default_factory=list)
    doc: str | None = None


@dataclass(eq=False)
class TypeAlias:
    span: Span
    name: str
    name_span: Span
    type: TypeExpr


@dataclass(eq=False)
class TestDecl:
    """A top-level `test` or `testset`. A testset (or a test with a runner or a computed name)
    has as body its registration with the collector (`testing.$register_test_set(…)`)."""
    span: Span
    name: str
    body: Block
    is_set: bool = False
    runner: Expr | None = None
    name_expr: Expr | None = None  # a name computed by an expression (name is then "")


@dataclass(eq=False)
class InterfaceDecl:
    """`interface Name<T> requires A, B { field: T  type Item  function m(self) -> R throws E
    [{ default body }] }` (a method without a body must be implemented)."""
    span: Span
    name: str
    name_span: Span
    generics: list[Generic]
    requires: list[TypeExpr]
    fields: list[ClassField]
    methods: list[Function]
    assoc: list[tuple]  # associated types (`type Item`): (name, span, default type or None)
    attrs: list[Attribute] = field(default_factory=list)
    doc: str | None = None


Item = Union[Function, ClassDecl, EnumDecl, TypeAlias, TestDecl, InterfaceDecl]


@dataclass(eq=False)
class ImplBlock:
    """`implements Iface { fns }` inside a class (target None), or top-level
    `implements<T> Iface for Target { fns }` (kept in File.impls, not File.items)."""
    span: Span
    interface: TypeExpr
    target: TypeExpr | None
    generics: list[Generic]
    methods: list[Function]
    aliases: dict = field(default_factory=dict)  # interface field → (class field, span): `host as h`
    assoc: dict = field(default_factory=dict)    # associated type → TypeExpr: `type Item = int`
    assoc_spans: dict = field(default_factory=dict)  # associated type → its name's span


@dataclass(eq=False)
class File:
    """One parsed file. `namespace` is None for the root namespace."""
    source: "object"  # assay.source.SourceFile
    items: list[Item]
    impls: list[ImplBlock] = field(default_factory=list)  # top-level `implements … for …`
    clients: list[ClientDecl] = field(default_factory=list)  # `client Name = …;`


# ── optional chaining: a `?.` link short-circuits the rest of its postfix chain ──
# `c?.n.to_string()` is null when `c` is (the engine's rule); parentheses end a chain.
# The parser marks `chained` (this link or one before it in the chain is `?.`) and
# `chain_inner` (a receiver inside a longer chain, whose null the chain's end gives).

def chain_receiver(e: Expr) -> Expr | None:
    """The receiver a postfix link reads: `o` of `o.f`, `o[i]`, `o.m()`; `f` of `f()`."""
    if isinstance(e, (Field, Index)):
        return e.obj
    if isinstance(e, Call):
        return e.func.obj if isinstance(e.func, Field) and not e.optional else e.func
    return None


def link_optional(e: Expr) -> bool:
    """Does this link itself test its receiver for null (`?.`)?"""
    if isinstance(e, Call):
        return e.optional or (isinstance(e.func, Field) and e.func.optional)
    return getattr(e, "optional", False)


def mark_link(e: Expr) -> Expr:
    """Record `chained` / `chain_inner` for a link the parser just built."""
    if isinstance(e, Call) and isinstance(e.func, Field) and not e.optional:
        e.func.chain_inner = True  # a method call's member is no value of its own
    r = chain_receiver(e)
    inherit = isinstance(r, (Field, Index, Call)) and not getattr(r, "parens", False)
    if inherit:
        r.chain_inner = True
    e.chained = link_optional(e) or (inherit and getattr(r, "chained", False))
    return e


def chain_end(e: Expr) -> bool:
    """Is `e` the end of a chain with a `?.` link, whose value is therefore optional?"""
    return getattr(e, "chained", link_optional(e)) and not getattr(e, "chain_inner", False)
