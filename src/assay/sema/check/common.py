"""What several of the checker's modules share: constants, checker-only types and helpers."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...source import SourceFile, Span
from ...syntax import ast
from ...syntax.parser import parse_type
from .. import stdsigs
from .. import types as T
from .. import reflect as sreflect
from ..types import (AnyFnT, Arr, BOOL, ClassT, EnumT, FLOAT, FuncT, INT, IfaceT, Lit, MapT, NEVER,
                     NULL, STRING, TVar, UNKNOWN, Union, VOID, assignable)

if TYPE_CHECKING:
    from .checker import Checker


_BUILTIN_KIND_TYPES = (T.Prim, Lit, Arr, MapT)


_ENV_REF = T.StdT("class", "baml.env.Ref")
# methods of the interfaces every type implements (ToString, ToJson, Equals, Hash, Concrete)
_EVERY_TYPE_METHODS = frozenset("to_string to_json eq neq hash".split())  # no `type`: AnyClass's only


class Var:
    __slots__ = ("name", "ty", "declared", "precise", "used", "unpinned", "assign_ty", "literals",
                 "link", "origin", "branch_hole", "infer_call", "lambda_bound",
                 "open_params", "open_items", "push_call", "pending_infer")

    def __init__(self, name, ty, precise=True, assign_ty=None):
        self.name = name
        self.ty = ty
        self.precise = precise
        self.used = False
        self.unpinned = None
        self.link = None  # `let b = a` over an unpinned `a`: pinning b pins a
        self.assign_ty = ty if assign_ty is None else assign_ty
        self.literals = []  # the container literals it was given (see Checker.escape)
        self.origin = None  # `let y = x`: x's declared type, for the tests of y
        self.branch_hole = False  # unpinned by an empty literal as an `if`/`match` branch
        self.infer_call = None  # `let y = id(1)`: the engine infers T from y's writes too
        self.lambda_bound = None  # `let ys = xs.map((d) -> { … })`: calls.py _lambda_bound
        self.open_params = None  # `let g = (d) -> …`: d's span until a use types g (else E0002)
        self.open_items = ()  # `let gs = [(d) -> …]`: the lambdas `gs[0](1)` checks again
        self.push_call = None  # `let a = first(first([[1]]))`: calls.py pushed_late
        self.pending_infer = None  # `let a = first([])`: [call span, T] until a use expects a type
        # (shared with `let c = a`; emptied when fixed)


class _Fn:
    """Per-function (or lambda) context."""
    __slots__ = ("ret", "throws", "loop", "catch", "callbacks", "captured", "defer")

    def __init__(self, ret, throws, callbacks=frozenset(), captured=frozenset()):
        self.ret = ret
        self.throws = throws
        self.loop = 0
        self.catch = 0
        self.callbacks = callbacks  # parameters whose function type leaves `throws` open
        self.captured = captured  # names read or written in a lambda (never narrowed by a write)
        self.defer = None  # inside a `defer` body: the loop depth at it (none leaves it but `throw`)


class FutureT(T.StdT):
    """`spawn { … }`'s future, with the type of the value `await` gives (unknown when unsure)
    and the spawned bodies it may be (their Lambdas; None where modifiers wrap one): what
    `await` may throw."""
    __slots__ = ("value", "bodies", "throws")

    def __init__(self, value: T.Type, bodies: "tuple | None" = None, throws: "T.Type | None" = None):
        super().__init__("class", "baml.future.Future")
        self.value = value
        self.bodies = bodies
        self.throws = throws  # a written `Future<T, E>`'s E

    def join_same(self, o: T.Type) -> T.Type:
        """Futures from either branch: `await` throws what any of their bodies does."""
        if not isinstance(o, FutureT) or (o.bodies == self.bodies and o.value == self.value):
            return self
        bodies = self.bodies + tuple(b for b in o.bodies if b not in self.bodies) \
            if self.bodies is not None and o.bodies is not None else None
        throws = T.union(self.throws, o.throws) if self.throws is not None and o.throws is not None else None
        return FutureT(T.union(self.value, o.value), bodies, throws)


class LambdaT(FuncT):
    """A lambda's type; `node` is the lambda (its `throws` effect is inferred from it)."""
    __slots__ = ("node",)


class OpenResultT(FuncT):
    """A generic call's function-typed result whose parameters hold the call's own type
    parameters (`adder<T>(a: T) -> (T) -> T`): the engine keeps T open into the result's calls
    and its expected type, so a conflicting argument is E0002 at the generic call. `site`: that
    call; `tvars`: each parameter's type parameter (or None); `ret_var`: the result's; `binds`:
    what the call's arguments gave them."""
    __slots__ = ("site", "tvars", "ret_var", "binds")


class FnRefT(FuncT):
    """A named function used as a value; `fd` is the function."""
    __slots__ = ("fd", "through_iface")  # through_iface: typed at an interface value's arguments


class BoundFuncT(FuncT):
    """A callback type whose result is a type argument the expected result of the call bound
    (`map`'s `U` where a `string[]` is expected): a lambda's body is inferred, then compared
    with it as a whole (E0001 at the body), not checked branch by branch."""
    __slots__ = ()


class NativeFuncT(FuncT):
    """A stdlib method's type (its defaults are unknown: only excess arguments are errors);
    `open` keeps the method's own type parameters (`map<U>`), which the type leaves unknown;
    `strict`: its declared signature is exact (missing arguments are errors too); `through`:
    it throws what its callbacks throw (`map<U, E>(f: (T) -> U throws E) -> U[] throws E`)."""
    __slots__ = ("open", "strict", "generic", "through")

    def __init__(self, params, ret, throws=None):
        super().__init__(params, ret, throws)
        self.open = None
        self.strict = False
        self.generic = False  # declared with type parameters (`filter<E>`, `map<U, E>`)
        self.through = False


ANY_CLASS = T.StdT("anyclass", "reflect.AnyClass")  # a class instance, known by that interface
_KIND_OF = {Arr: "array", MapT: "map", INT: "int", FLOAT: "float", STRING: "string",
            BOOL: "bool", NULL: "null", T.BIGINT: "bigint", T.BYTES: "uint8array",
            **{T.StdT("class", c): k for c, k in stdsigs.STD_CLASS_KINDS.items()}}
_STRICT_KINDS = frozenset(stdsigs.STD_CLASS_KINDS.values())
MODIFIER = "baml.spawn.Modifier"  # what `spawn with` takes


# `baml.env.Ref`'s methods, each a read of the environment variable it names
_ENV_REF_METHODS = {"get": NativeFuncT((), T.union(STRING, NULL), NEVER),
                    "get_or_panic": NativeFuncT((), STRING, NEVER),
                    "or": NativeFuncT((("fallback", STRING, False),), STRING, NEVER)}
_OP_METHOD_OF = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem"}


def _is_time(t: T.Type) -> bool:
    return isinstance(t, T.StdT) and t.name.startswith("baml.time.")


def _fresh_literal(e, lookup) -> bool:
    """Is `e`'s literal type written in `e` itself (`"a"`, `-1`, `1 << 63`, an `if` or `match`
    of such, a variable a literal was just written to)? A `let` widens only those, as the
    engine does: a value of a declared literal type (`r.status`, such a parameter, a call)
    keeps it."""
    if isinstance(e, ast.Name):
        v = lookup(e.name)
        return v is None or not any(isinstance(m, Lit) for m in T.members(v.ty))
    if isinstance(e, ast.Unary):
        return _fresh_literal(e.operand, lookup)
    if isinstance(e, ast.Binary):
        return _fresh_literal(e.left, lookup) and _fresh_literal(e.right, lookup)
    if isinstance(e, ast.BlockExpr):
        return e.block.tail is None or _fresh_literal(e.block.tail, lookup)
    if isinstance(e, ast.If):
        return all(_fresh_literal(b.tail, lookup) for b in (e.then, e.else_) if b is not None and b.tail is not None)
    if isinstance(e, ast.Match):
        return all(_fresh_literal(a.body, lookup) for a in e.arms)
    return not isinstance(e, (ast.Field, ast.Call, ast.Index))


def _thrown_classes() -> set:
    """The stdlib error classes its signatures declare they throw (`baml.json.DecodeError`):
    types a `throws` clause or a catch arm names, though the checker models no fields of theirs."""
    sigs = [*stdsigs.FUNCTIONS.values(), *(s for ms in stdsigs.METHODS.values() for s in ms.values()),
            *(s for ms in stdsigs.STD_CLASS_METHODS.values() for s in ms.values() if isinstance(s, str))]
    return {n.strip() for s in sigs if " throws " in s for n in s.rpartition(" throws ")[2].split("|")
            if re.fullmatch(r"\w+(\.\w+)+", n.strip())}


# the error classes `ai.errors.InvokeError` names beside `ai.errors.Failure` (stdsigs.STD_ALIASES)
_INVOKE_ERRORS = ("baml.errors.Timeout", "baml.errors.UnknownError", "reflect.errors.CompilationError")
# the stdlib types the checker models (sema/stdsigs.py), as the resolver names them
_STD_TYPES = {**{c: T.StdT("class", c) for c in _thrown_classes()},
              **{c: T.StdT("class", c) for c in _INVOKE_ERRORS},
              **{c: T.StdT("class", c) for c in stdsigs.STD_CLASSES},
              **{n: T.StdT("enum", n) for n in stdsigs.STD_ENUM_VARIANTS},
              **{n: T.StdT("iface", n) for n in stdsigs.STD_IFACES},
              **{f"{n}.{v}": T.StdT("variant", n, v) for n, vs in stdsigs.STD_ENUM_VARIANTS.items() for v in vs}}
# The operator interfaces' methods that a builtin type implements for several right-hand types
# (`int` is `Add<int>`, `Add<float>` and `Add<bigint>`): a direct call is ambiguous (E0121), in
# the engine's order of the impls.
_OP_IFACES = {"add": "Add", "sub": "Subtract", "mul": "Multiply", "div": "Divide", "rem": "Remainder",
              "bit_and": "BitAnd", "bit_or": "BitOr", "bit_xor": "BitXor", "shl": "ShiftLeft",
              "shr": "ShiftRight"}

# members of builtin types the engine has beyond the signatures in stdsigs (operator
# interfaces, statics reachable through a value, private helpers): any other is E0007
_ENGINE_MEMBERS = {k: frozenset(v.split()) | frozenset(stdsigs.METHODS.get(k, ())) for k, v in {
    "int": "_random_in_range add bit_and bit_or bit_xor div from_json hash max_value min_value "
           "mul neg parse random rem shl shr sub to_json",
    "float": "_unit_from_draw add div e epsilon from_json golden_ratio hash inf max_finite "
             "min_finite mul nan neg parse pi random rem sub to_json",
    "string": "_as_string _replace_all_literal _replace_literal add from from_code_points "
              "from_json from_utf8 hash iter to_json",
    "bool": "from_json hash random to_json",
    "null": "from_json hash to_json",
    "bigint": "add bit_and bit_or bit_xor div from_json hash mul parse random rem shl shr sub to_json",
    "array": "filled from_json generate hash index to_json",
    "map": "from_json hash to_json",
}.items()}


_TYPED_SIGS: dict = {}


def _typed_sig(path: str, checker: "Checker") -> tuple[list[str], list, T.Type]:
    """(type parameters, params as check_args takes them, return type) of a generic stdlib
    function (sema/stdsigs.py); a stdlib type named in it (`baml.json.Naming`) is unknown."""
    got = _TYPED_SIGS.get(path)
    if got is None:
        sig = stdsigs.FUNCTIONS[path]
        gens = [g.strip() for g in sig[1:sig.index(">")].split(",")] if sig.startswith("<") else []
        ret_text = sig[sig.rindex("->") + 2:].split(" throws ")[0].strip()
        texts = [(n, _param_type_text(sig, n), d) for n, d in _std_param_names(path)]
        save = (checker.ns, checker.generics, checker.diags)
        checker.ns, checker.generics, checker.diags = None, set(gens), []
        try:
            params = [(n, checker.resolve_std(_parse_std_type(t)), d) for n, t, d in texts]
            ret = checker.resolve_std(_parse_std_type(ret_text))
        finally:
            checker.ns, checker.generics, checker.diags = save
        got = _TYPED_SIGS[path] = (gens, params, ret)
    return got


def _param_type_text(sig: str, name: str) -> str:
    """The type text of parameter `name` in a signature (up to its default or the next one)."""
    at = sig.find(f"({name}:")
    at = at if at >= 0 else sig.index(f", {name}:") + 1
    rest = sig[at + len(name) + 2:]
    depth = 0
    for i, ch in enumerate(rest):
        depth += ch in "(<["
        depth -= ch in ")]" or (ch == ">" and rest[i - 1] != "-")  # `->` closes nothing
        if depth < 0 or (depth == 0 and ch in ",="):
            return rest[:i].strip()
    return rest.strip()


def _parse_std_type(text: str):
    te, diags = parse_type(SourceFile("<stdlib>", text))
    return te if te is not None and not diags else None


_STD_PARAMS: dict = {}


def _std_param_names(path: str) -> list[tuple[str, bool]]:
    """(name, has a default) of each parameter of a stdlib function (sema/stdsigs.py)."""
    got = _STD_PARAMS.get(path)
    if got is None:
        sig = stdsigs.FUNCTIONS.get(path, "")
        got = [(n, d) for n, _, d in sreflect.split_params(sig[sig.index("("):])[0]] if sig else []
        _STD_PARAMS[path] = got
    return got


_STD_THROWS: dict = {}


def _callback_throws(sig: str) -> bool:
    """Does a stdlib signature throw just what its callbacks do (`map<U, E>(f: (T) -> U
    throws E) -> U[] throws E`)?"""
    head, found, th = sig.rpartition(" throws ")
    return bool(found) and all(re.search(rf"throws {re.escape(n.strip())}\b", head)
                               for n in th.split("|"))


def _std_throws(sig: str) -> T.Type:
    """What a stdlib signature declares it throws (a stdlib type known by name)."""
    t = _STD_THROWS.get(sig)
    if t is None:
        _, found, th = sig.rpartition(" throws ")
        th = th if found else ""
        names = [n.strip() for n in th.split("|")] if th else []
        t = (UNKNOWN if any("." not in n for n in names)  # a type variable: per call
             else T.union(*(T.StdT("class", n) for n in names)))
        _STD_THROWS[sig] = t
    return t


def _is_unknown(te) -> bool:
    return isinstance(te, ast.TName) and te.path == ["unknown"] and not te.args


def _void_is_null(t: T.Type) -> T.Type:
    return NULL if t is VOID else t  # a void call's value is null to the engine's operators


def _diverges(s) -> bool:
    """Does this statement surely leave its block, as the engine's missing-value check sees
    it: `return`/`throw`/`break`/`continue`, an if/else, block or match whose every way out
    does, or `while (true)` without a `break` of its own (a call returning `never` does not)."""
    if isinstance(s, (ast.Return, ast.Throw, ast.Break, ast.Continue)):
        return True
    if isinstance(s, ast.While):
        return isinstance(s.cond, ast.BoolLit) and s.cond.value and not _breaks(s.body)
    return isinstance(s, ast.ExprStmt) and _diverges_expr(s.expr)


def _diverges_expr(e) -> bool:
    if isinstance(e, ast.Diverge):
        return True
    if isinstance(e, ast.BlockExpr):
        return _block_diverges(e.block)
    if isinstance(e, ast.If):
        return e.else_ is not None and _block_diverges(e.then) and _block_diverges(e.else_)
    if isinstance(e, ast.Match):
        return bool(e.arms) and all(_diverges_expr(a.body) for a in e.arms)
    return False


def _block_diverges(b: ast.Block) -> bool:
    return any(map(_diverges, b.stmts)) or (b.tail is not None and _diverges_expr(b.tail))


_LOOPS = (ast.While, ast.WhileLet, ast.ForIn, ast.ForC, ast.Lambda)


def _breaks(node) -> bool:
    """Does a `break` of this loop body (not of a nested loop or lambda) occur in it?"""
    return _occurs(node, ast.Break, _LOOPS)


def _occurs(node, kind, inside) -> bool:
    """Does a node of `kind` occur in `node`, outside nested nodes of kind(s) `inside`?"""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, kind):
            return True
        if isinstance(n, (list, tuple)):
            todo.extend(n)
        elif hasattr(n, "__dataclass_fields__") and not isinstance(n, inside) and \
                type(n).__module__ == ast.__name__:
            todo.extend(v for k, v in vars(n).items() if k not in ("span", "ty"))
    return False


def _open_param(v: Var) -> bool:
    """Is `v` an untyped parameter of a `let`'s lambda (or one called at once) that nothing has
    typed yet, or a `let y = d` of one? Its members and patterns are not known (E0155)."""
    while v.open_params == [] and v.link is not None:
        v = v.link
    return v.open_params == ()


def _sure_scrutinee(t: T.Type) -> bool:
    """A type whose every member the checker knows well enough to tell a pattern misses it."""
    return all(m == _ENV_REF or (
        isinstance(m, (T.Prim, Lit, ClassT, EnumT, Arr, MapT)) and m is not UNKNOWN
        and not T.has_unknown(m) and not T.has_tvar(m) and not _opaque(m)) for m in T.members(t))


def _records(e) -> None:
    """A container literal, and the literals nested in it, record their element types."""
    if isinstance(e, ast.ArrayLit):
        e.records = True
        for x in e.items:
            _records(x)
    elif isinstance(e, ast.MapLit):
        e.records = True
        for _, x in e.entries:
            _records(x)
    elif isinstance(e, ast.Call):
        e.records = True  # `xs.map(f)`: a new array records its type (mir/lower.py `_fresh_container`)


def _plan_member(t, name: str) -> T.Type:
    """A `baml.spawn.Plan`'s field (its methods: unknown here, but `wrap` where called)."""
    return {"body": FuncT((), t.value, t.error), "name": T.union(STRING, NULL), "limits": Arr(UNKNOWN),
            "cancel_tokens": Arr(UNKNOWN), "root": BOOL}.get(name, UNKNOWN)


def _free_generics(impl) -> bool:
    """An `implements<…> I for C<…>` block with a type parameter its target does not name: the
    engine makes its methods no members of C (a value typed `I<…>` calls them)."""
    target = impl.decl.target if impl is not None else None
    if target is None or not impl.decl.generics:
        return False
    named = {x.path[0] for x in sreflect.walk(target) if isinstance(x, ast.TName) and len(x.path) == 1}
    return any(g.name not in named for g in impl.decl.generics)


def _holds_container(t: T.Type) -> bool:
    """Whether a value of type `t` may be an array or map: a literal given where `t` is declared
    (returned, a field's, an argument's) records it, as the engine's does (Checker.escape)."""
    return any(isinstance(m, (T.Arr, T.MapT)) for m in T.members(t))


def _opaque(t: T.Type) -> bool:
    """Whether a value of type `t` may be an array or map whose element types `t` does not
    tell (see Checker.escape)."""
    ms = T.members(t)
    return (T.has_unknown(t) or T.has_tvar(t) or any(isinstance(m, T.IfaceT) for m in ms)
            or sum(isinstance(m, T.Arr) for m in ms) > 1 or sum(isinstance(m, T.MapT) for m in ms) > 1)


def is_cleanup_shape(d: ast.Function) -> bool:
    """A class's magic finalizer `function cleanup(self) -> void` (`-> null` too; at most
    `throws never`): its body runs once per instance (mir/lower.py)."""
    void = (isinstance(d.ret, ast.TName) and d.ret.path == ["void"] and not d.ret.args) or (
        isinstance(d.ret, ast.TLiteral) and d.ret.value is None)
    return (d.has_self and not d.params and not d.generics and void
            and (d.throws is None or (isinstance(d.throws, ast.TName) and d.throws.path == ["never"])))


def _mentions(t: T.Type, name: str) -> bool:
    if isinstance(t, TVar):
        return t.name == name
    if isinstance(t, Arr):
        return _mentions(t.elem, name)
    if isinstance(t, MapT):
        return _mentions(t.key, name) or _mentions(t.val, name)
    if isinstance(t, Union):
        return any(_mentions(m, name) for m in t.members)
    if isinstance(t, (ClassT, IfaceT)):
        return any(_mentions(a, name) for a in t.args)
    if isinstance(t, FuncT):  # `() -> int throws E`: a callback's `throws` binds E too
        return _mentions(t.ret, name) or any(_mentions(p[1], name) for p in t.params) or (
            t.throws is not None and t.throws is not UNKNOWN and _mentions(t.throws, name))
    if isinstance(t, T.IterT):
        return _mentions(t.item, name)
    if isinstance(t, AnyFnT):
        return _mentions(t.ret, name) or _mentions(t.throws, name)
    return t is UNKNOWN  # not read: may mention it


def _empty_hole(e) -> Span | None:
    """The first empty `[]` / `{}` of a literal made only of empties (`[]`, `[[]]`,
    `{"k": []}`): its type cannot be inferred without a use."""
    if isinstance(e, ast.ArrayLit):
        if not e.items:
            return e.span
        holes = [_empty_hole(x) for x in e.items]
        return holes[0] if all(holes) else None
    if isinstance(e, ast.MapLit):
        if not e.entries:
            return e.span
        holes = [_empty_hole(v) for _, v in e.entries]
        return holes[0] if all(holes) else None
    return None


def _mark_narrowing(c) -> None:
    """An `is` test an `if` narrows by: the engine checks its pattern against the tested type
    as a match arm's (`u is (int | string)[]` of an `int[] | string` is E0001 there only)."""
    todo = [c]
    while todo:
        c = todo.pop()
        if isinstance(c, ast.Unary) and c.op == "!":
            todo.append(c.operand)
        elif isinstance(c, ast.Binary) and c.op in ("&&", "||"):
            todo += [c.left, c.right]
        elif isinstance(c, ast.Is):
            c.narrows = True


def _overlaps(a: T.Type, b: T.Type) -> bool:
    """May a value be of both types (`int[]` and `(int | string)[]`: an `int[]` may)?"""
    if isinstance(a, Union) or isinstance(b, Union):
        return any(_overlaps(x, y) for x in T.members(a) for y in T.members(b))
    if isinstance(a, Arr) and isinstance(b, Arr):
        return _overlaps(a.elem, b.elem)
    if isinstance(a, MapT) and isinstance(b, MapT):
        return _overlaps(a.key, b.key) and _overlaps(a.val, b.val)
    return assignable(a, b) or assignable(b, a)


def _bound_callback(p: T.Type, got: dict, by=None) -> T.Type:
    """A parameter's type at bound type arguments; a callback whose result they bind (those
    of `by` only, where given) is a BoundFuncT."""
    t = T.subst(p, got)
    if isinstance(p, FuncT) and isinstance(t, FuncT) and T.has_tvar(p.ret) and not T.has_unknown(t.ret) \
            and (by is None or isinstance(p.ret, TVar) and p.ret.name in by):
        return BoundFuncT(t.params, t.ret, t.throws)
    return t


def _shape_binds(ret: T.Type) -> bool:
    """A generic result whose type parameters an expected type pins (invariantly: `U[]`,
    `map<K, U>`, `Box<U>`), unlike a bare `U` or `U?` (only bounded by it)."""
    return isinstance(ret, (Arr, MapT, ClassT)) and T.has_tvar(ret)


def _pushable(t: T.Type) -> bool:
    """An expected callback result the engine checks an untyped lambda's body against."""
    if isinstance(t, FuncT):  # a lambda returning a lambda: `(a) -> { (b) -> { … } }`
        return all(_pushable(p) for _, p, _ in t.params) and _pushable(t.ret)
    return t is NULL or t is VOID or t is T.JSON or t is T.TOP or _sure_scrutinee(t)


def _value_tails(e) -> list | None:
    """The expressions an `if` with `else`, a `match` or a block expression ends in (None for a
    branch without a value); None for any other expression."""
    if isinstance(e, ast.If) and e.else_ is not None:
        return [b.tail for b in (e.then, e.else_)]
    if isinstance(e, ast.Match):
        return [a.body.tail if isinstance(a.body, ast.Block) else a.body for a in e.arms]
    if isinstance(e, ast.BlockExpr):
        return [e.block.tail]
    return None


def _branch_hole(e) -> Span | None:
    """The first branch of an `if` / `match` / `catch` whose value is an empty literal: each branch's
    element type is inferred on its own, so the other branches do not fix it."""
    if isinstance(e, ast.If) and e.else_ is not None:
        blocks = [e.then, e.else_]
    elif isinstance(e, (ast.Match, ast.Catch)):
        blocks = [a.body for a in e.arms]  # a catch arm is typed apart from the guarded value
    else:
        return None
    for b in blocks:
        tail = b.tail if isinstance(b, ast.Block) else b
        if isinstance(tail, ast.BlockExpr):
            tail = tail.block.tail
        hole = _empty_hole(tail) or _branch_hole(tail)
        if hole is not None:
            return hole
    return None


def _binds(pairs: list) -> dict:
    """Type variables bound by matching (parameter type, argument type) pairs structurally;
    one bound two ways stays unbound."""
    out: dict = {}
    bad: set = set()
    todo = list(pairs)
    while todo:
        pt, at = todo.pop()
        if isinstance(pt, TVar):
            if not _sure_scrutinee(at) or out.get(pt.name, at) != at:
                bad.add(pt.name)
            out[pt.name] = at
        elif isinstance(pt, Arr) and isinstance(at, Arr):
            todo.append((pt.elem, at.elem))
        elif isinstance(pt, MapT) and isinstance(at, MapT):
            todo += [(pt.key, at.key), (pt.val, at.val)]
        elif (isinstance(pt, ClassT) and isinstance(at, ClassT) and pt.cls is at.cls
              and len(pt.args) == len(at.args)):
            todo += list(zip(pt.args, at.args))
        elif isinstance(pt, T.IterT) and pt.cls == "Iterable" and _iterable_item(at) is not UNKNOWN:
            todo.append((pt.item, _iterable_item(at)))  # `Iterable<Item = T>` from what it iterates
        elif isinstance(pt, FuncT) and isinstance(at, FuncT) and T.has_tvar(pt.ret) and not T.has_tvar(at.ret):
            todo.append((pt.ret, at.ret))  # a callback's result binds `U` of `(T) -> U`
        elif isinstance(pt, AnyFnT) and isinstance(at, (FuncT, AnyFnT)) and not T.has_tvar(at.ret):
            todo.append((pt.ret, _void_is_null(at.ret)))  # `Returns = T` binds T to the result
    return {k: v for k, v in out.items() if k not in bad}


_DONE = T.StdT("class", "baml.iter.Done")


def _iterable_item(t: T.Type) -> T.Type:
    """What iterating a `flat_map` callback's result yields (unknown where not known)."""
    t = T.base(t)
    return t.elem if isinstance(t, Arr) else t.item if isinstance(t, T.IterT) else STRING if t is STRING else UNKNOWN


def _may_be_null(t: T.Type) -> bool:
    """May a `?.` link's receiver of type t be null? (`unknown` may.)"""
    return t is UNKNOWN or any(m is NULL for m in T.members(t))


def _chain_null(e) -> bool:
    """Is a chain ending at e null where one of its `?.` links finds its receiver null? A link
    whose receiver cannot be null adds no null: the engine types `x?.abs()` on an `int` as `int`
    (a link the checker did not see counts)."""
    while e is not None and getattr(e, "chained", False):
        if ast.link_optional(e) and getattr(e, "null_link", True):
            return True
        e = ast.chain_receiver(e)
    return False


def _source(e: ast.Expr) -> str:
    """An expression's source text, its spacing collapsed (`c ?. n` reads `c?.n`)."""
    text = e.span.file.text[e.span.start:e.span.end]
    return re.sub(r"\s*(\?\.|\.)\s*", r"\1", " ".join(text.split()))


def _loose(t: T.Type) -> T.Type:
    """A declared `throws unknown` bounds nothing: the checker's don't-know."""
    return UNKNOWN if t is T.TOP else t


def _is_global(fd) -> bool:
    """A `const NAME = …` global (kept as the function computing its value)."""
    return getattr(fd.decl, "is_global", False)


def _same_error(a: T.Type, b: T.Type) -> bool:
    """Error types of a plan or an iterator compare exactly (`Error = "x"` is no `Error =
    string`); where either is not known, they are taken to agree."""
    if T.has_unknown(a) or T.has_unknown(b) or T.has_tvar(a) or T.has_tvar(b) or T.TOP in (a, b):
        return True
    return assignable(a, b) and assignable(b, a)
