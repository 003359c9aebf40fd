"""The checker's expressions: literals, names, class literals, containers, `if`/block/lambda/spawn/await expressions."""
from __future__ import annotations

from ...source import Span
from ...syntax import ast
from .. import stdsigs
from .. import types as T
from .. import interfaces
from ..program import ClassDef, EnumDef, FunctionDef
from ..resolve import BUILTIN_TYPE_ROOTS, OPAQUE_TYPES, PRIM_TYPES, carrier_path, misplaced_std
from ..stdnames import (STDLIB_MEMBER_NAMES, STDLIB_TYPE_NAMES, STD_ERROR_ALIASES,
                        STD_ERROR_NONCLASSES, misplaced_error)
from ..types import (AnyFnT, Arr, BOOL, ClassT, EnumT, FLOAT, FuncT, INT, IfaceT, Lit, MapT, NEVER,
                     NULL, STRING, TOP, TVar, UNKNOWN, Union, VOID, assignable, show, widen)
from .common import (BoundFuncT, FnRefT, FutureT, LambdaT, MODIFIER, Var, _DONE, _ENV_REF,
                     _ENV_REF_METHODS, _EVERY_TYPE_METHODS, _Fn, _STD_TYPES, _binds,
                     _block_diverges, _chain_null, _empty_hole, _fresh_literal, _holds_container,
                     _is_global, _is_unknown, _loose, _mark_narrowing, _may_be_null, _occurs,
                     _opaque, _plan_member, _pushable, _records, _sure_scrutinee, _value_tails)


# names usable as values without a user definition (packages, builtin type statics)
BUILTIN_VALUE_ROOTS = frozenset("""
baml assert log reflect testing ai llm env int float string bool bigint uint8array
image audio video pdf null true false openai anthropic google aws typesafeai vercel claude_code
""".split())
# the whole of the small stdlib packages (0.23.0's assert.baml, log.baml)
_PACKAGE_MEMBERS = {
    "assert": frozenset("equal is_true not_null approx_equal contains is_type".split()),
    "log": frozenset("info debug warn error".split()),
}
# builtin types whose statics are reached by name (`int.parse`): a member no stdlib function has
# is surely unresolved
_CARRIERS = frozenset("int float string bool bigint".split())
# each carrier's own statics (0.23.0's stdlib): another carrier's static is unresolved on it
_CARRIER_STATICS = {
    "int": frozenset("parse random max_value min_value".split()),
    "float": frozenset("parse random pi e golden_ratio nan inf max_finite min_finite epsilon".split()),
    "bigint": frozenset("parse random".split()),
    "bool": frozenset(["random"]),
    "string": frozenset("from from_utf8 from_code_points".split()),
}
_ANY_CARRIER_STATIC = frozenset().union(*_CARRIER_STATICS.values())
# `baml.<x>` that do not exist in 0.23.0 (the carriers are `int.parse`, not `baml.int.parse`)
_NOT_IN_BAML = frozenset("int float string bool bigint uint8array math log unstable deep_equals".split())
# what every class declares through the stdlib's blanket impls (stdsigs.STD_CLASS_MEMBERS: the rest)
_EVERY_CLASS_MEMBERS = frozenset("eq neq to_json from_json to_string type".split())


def _hole_span(p: ast.Expr) -> Span:
    """An interpolated expression's span from its hole's `{` (where the engine reports)."""
    sp = p.span
    text = sp.file.text
    i = sp.start - 1
    while i > 0 and text[i] in " \t\n":
        i -= 1
    return Span(sp.file, i, sp.end) if i >= 0 and text[i] == "{" else sp


JSON_ARR, JSON_MAP = T.Arr(T.JSON), T.MapT(STRING, T.JSON)  # what json literals build


def _expected_class(ct: ClassT, expected: T.Type) -> ClassT:
    """A generic class literal written without type arguments (`Box { value: 1 }`) takes the
    expected type's (`Box<int?>`), as the engine infers them: its instance records those."""
    ms = [m for m in T.members(expected) if isinstance(m, ClassT) and m.cls is ct.cls and m.args]
    if len(ms) == 1 and not any(a is UNKNOWN for a in ms[0].args):
        return ms[0]
    return ct


def _sole(t: T.Type, kind) -> T.Type:
    """The one container type of `kind` (Arr, MapT) a union names (`json[]?`), else `t`."""
    if not isinstance(t, Union):
        return t
    ms = [m for m in t.members if isinstance(m, kind)]
    return ms[0] if len(ms) == 1 else t


_JOIN_RANK = {INT: 0, T.BIGINT: 1, FLOAT: 2, STRING: 3, BOOL: 4, NULL: 9}


def _join_key(t: T.Type) -> tuple:
    if isinstance(t, Arr):
        return (7, _join_key(t.elem))
    if isinstance(t, MapT):
        return (8, _join_key(t.key), _join_key(t.val))
    if isinstance(t, ClassT):  # classes by name, then enums and their variants by name
        return (5, t.cls.fqn)
    if isinstance(t, EnumT):
        return (6, t.enum.fqn, t.variant or "")
    return (_JOIN_RANK.get(t, 10),)


def _joined(ts: list) -> T.Type:
    """The element type inferred from a literal's items, its members in the engine's order (int,
    bigint, float, string, bool, classes, enums, arrays, maps, null: `["a", 1]` is
    `(int | string)[]`; classes and enums each by name: `[E.B, E.A]` is `(E.A | E.B)[]`)."""
    u = T.union(*(T.widen_scalar(t) for t in ts))
    return T.union(*sorted(u.members, key=_join_key)) if isinstance(u, Union) else u


def _leaf_values(e) -> list:
    """The expressions an `if` / `match` / block value may be, through nested ones."""
    subs = _value_tails(e)
    if subs is None or any(s is None for s in subs):
        return [e]
    return [x for s in subs for x in _leaf_values(s)]


def _te_mentions(te, name: str) -> bool:
    """Does a written type mention the name (a type parameter)?"""
    if isinstance(te, ast.TName):
        return te.path == [name] or any(_te_mentions(a, name) for a in te.args)
    return any(_te_mentions(x, name) for x in vars(te).values() if isinstance(x, ast.TypeExpr)) or any(
        _te_mentions(y, name) for x in vars(te).values() if isinstance(x, list) for y in x
        if isinstance(y, ast.TypeExpr))


def _hollow(e) -> bool:
    """A literal made only of empties (`[]`, `[[], []]`, `{"k": {}}`): its type is unknown."""
    return _empty_hole(e) is not None


def _shaped(e, t: T.Type) -> bool:
    """Can hollow literal `e` be of container type `t`?"""
    if isinstance(e, ast.ArrayLit):
        return isinstance(t, Arr) and all(_shaped(x, t.elem) for x in e.items)
    return isinstance(t, MapT) and all(
        (isinstance(k, ast.StrLit) and t.key is STRING or isinstance(k, ast.IntLit) and t.key is INT)
        and _shaped(v, t.val) for k, v in e.entries)


def _expected_instance(ct: ClassT, expected: T.Type) -> ClassT:
    """A generic class literal written without type arguments, where one instance of its class
    is expected (`Box<int>`, `Box<int>?`): that instance's arguments; else as it stands."""
    same = [m for m in T.members(T.base(expected)) if isinstance(m, ClassT) and m.cls is ct.cls]
    if len(same) == 1 and not T.has_unknown(same[0]) and all(a is UNKNOWN for a in ct.args):
        return same[0]
    return ct


def _returns(b) -> bool:
    """Does a `return` of this body (not of a nested lambda) occur in it?"""
    return _occurs(b, ast.Return, ast.Lambda)


# what every class and enum has from `baml.ops` (Equals, Hash, ToString, ToJson): reached from
# the type, `P.to_string(p)`, or from an enum variant, `Color.Red.eq(a, b)` (self typed by it)
_UNBOUND = {"to_string": ((), STRING), "to_json": ((), UNKNOWN), "eq": (("other",), BOOL),
            "neq": (("other",), BOOL), "hash": (("hasher",), NULL)}


def _unbound_builtin(item, rest: list[str]) -> FuncT | None:
    """`P.to_string` / `E.V.eq`: the method as a function whose first parameter is self."""
    if isinstance(item, EnumDef):
        self_t = EnumT(item, rest[0]) if len(rest) == 2 and rest[0] in item.variants else EnumT(item)
    elif isinstance(item, ClassDef) and not item.decl.generics:
        self_t = ClassT(item)
    else:
        return None
    name = rest[-1]
    if len(rest) != (2 if self_t.__class__ is EnumT and self_t.variant else 1) or name not in _UNBOUND \
            or name in getattr(item, "methods", {}):
        return None
    extra, ret = _UNBOUND[name]
    params = (("self", self_t, False),) + tuple(
        (p, T.Prim("baml.Hasher") if p == "hasher" else self_t, False) for p in extra)
    return FuncT(params, ret, NEVER)


# what checking one function sets: kept around checking a global's initializer on demand
_FN_STATE = ("ns", "generics", "bounds", "std_bounds", "fn", "scopes", "facts", "unpinned", "llm_fn", "cur_fd",
             "fn_name", "assigned_log", "loose", "soft", "path_root", "no_expected")


class ExprChecks:
    """Checker methods for expressions (mixed into `Checker`)."""

    def expr(self, e: ast.Expr, expected: T.Type) -> T.Type:
        m = getattr(self, "x_" + type(e).__name__, None)
        t = m(e, expected) if m is not None else UNKNOWN
        if t is not UNKNOWN:
            e.ty = t
        return t

    def x_IntLit(self, e, x):
        return T.lit_int(e.value)

    def x_FloatLit(self, e, x):
        return FLOAT

    def x_BigIntLit(self, e, x):
        return Lit(ast.BigLit(e.value), T.BIGINT)

    def x_BytesLit(self, e, x):
        return T.BYTES

    def x_StrLit(self, e, x):
        return T.lit_str(e.value)

    def x_BoolLit(self, e, x):
        return T.lit_bool(e.value)

    def x_NullLit(self, e, x):
        return NULL

    def x_Template(self, e, x):
        self.scopes.append({})
        self.template_parts(e.parts)
        self.scopes.pop()
        return _STD_TYPES["baml.TaggedString"] if e.tagged else STRING

    def tag_check(self, e: ast.Call) -> None:
        """A tagged template's tag: a function marked `//baml:tagged_string` whose first
        parameter is `body: (...) -> baml.TaggedString` (E0001 at the tag, as the engine)."""
        f = e.func
        path, x = [], f
        while isinstance(x, ast.Field):
            path.insert(0, x.name)
            x = x.obj
        fd = None
        if isinstance(x, ast.Name) and self.lookup_var(x.name) is None:
            fd = self.index.lookup(self.ns, [x.name, *path])
        if not isinstance(fd, FunctionDef):
            return  # unresolved (E0003) or a value: the call reports it
        name = ([x.name] + path)[-1]
        if not fd.decl.tagged_string:
            self.err(f.span, "E0001", f"`{name}` is not a tagged-string function — only functions marked "
                     "`//baml:tagged_string` can be used as a tagged-template tag")
            return
        ps = fd.decl.params
        first = ps[0].type if ps else None
        if not (ps and ps[0].name == "body" and isinstance(first, ast.TFunc)
                and isinstance(first.ret, ast.TName) and first.ret.path == ["baml", "TaggedString"]):
            self.err(f.span, "E0001", f"the first parameter of tagged-string function `{name}` must be "
                     "`body: (...) -> baml.TaggedString`")

    def template_parts(self, parts) -> None:
        for p in parts:
            if isinstance(p, str):
                continue
            if isinstance(p, ast.Let):
                self.let(p)
            elif isinstance(p, ast.TFor):
                it = self.expr(p.iterable, UNKNOWN)
                elem = self.iter_elem(it, p.iterable)
                self.scopes.append({})
                self.pattern(p.pattern, elem)
                self.template_parts(p.parts)
                self.scopes.pop()
            elif isinstance(p, getattr(ast, "TForC", ())):
                self.scopes.append({})
                if p.init is not None:
                    self.stmt(p.init)
                if p.cond is not None:
                    self.expr(p.cond, UNKNOWN)
                if p.update is not None:
                    self.fn.loop += 1
                    self.stmt(p.update)
                    self.fn.loop -= 1
                self.template_parts(p.parts)
                self.scopes.pop()
            elif isinstance(p, ast.TIf):
                for cond, ps in p.branches:
                    self.expr(cond, UNKNOWN)
                    self.template_parts(ps)
                if p.else_parts is not None:
                    self.template_parts(p.else_parts)
            elif isinstance(p, ast.Expr):
                self.untyped_holes(p, inner=True)
                t = self.soft_expr(p)
                if (t is NULL or t is VOID) and not (isinstance(p, ast.BlockExpr) and p.block.tail is None):
                    self.err(_hole_span(p), "E0001", "cannot interpolate a value of type `null`; "
                             "to run the expression without rendering it, end it with `;`")
                elif (isinstance(t, Union) and not isinstance(t, T.HiddenUnion) and NULL in t.members
                      and self.sure_type(widen(t))):
                    self.err(_hole_span(p), "E0001", f"cannot interpolate a value of type "
                             f"`{show(t)}` — it may be null; coalesce with `?? \"…\"` or unwrap it first")

    def x_Name(self, e, x):
        v = self.lookup_var(e.name)
        if v is not None:
            if self.soft is not e and not T.has_json(x):  # json tells no element type (E0155)
                self.pin(v)
            e.declared = v.ty
            if x is not UNKNOWN and isinstance(v.ty, LambdaT):  # a use where a type is expected
                self.effects.holes.pop(id(v.ty.node), None)  # may give its `throws _` one
            if v.open_params is not None and (_sure_scrutinee(x) or any(isinstance(m, FuncT) for m in T.members(x))):
                self.typed_lambda(v)
                self.placed_lambda(v, x)
            if v.pending_infer and _sure_scrutinee(x):
                v.pending_infer.clear()  # `let a = first([]); a` as an `int` fixes T
            if v.push_call is not None and _sure_scrutinee(x):
                call, v.push_call = v.push_call, None
                if self.pushed_late(call, x):
                    return x
            if v.lambda_bound is not None and _sure_scrutinee(x):
                return self.lambda_fixed(v, x)
            return self.var_type(v)
        item = self.index.items_in(self.ns).get(e.name)
        if item is not None:
            if isinstance(item, FunctionDef) and _is_global(item):
                return self.global_type(item, e)
            if isinstance(item, FunctionDef):
                env = self.specialized(e, item)
                if env is None and interfaces.call_generics(item):
                    env = self.pinned_targs(e, item, x)
                t = self.fn_type(item, env)
                self.throws_within(e, t, x)
                return t
            if self.path_root is not e:  # a class, enum, interface or alias is no value
                self.err(e.span, "E0003", f"unresolved name: `{e.name}`")
            return UNKNOWN
        if e.name == "root" or e.name in BUILTIN_VALUE_ROOTS and self.path_root is e:
            return UNKNOWN
        self.err(e.span, "E0003", f"unresolved name: `{e.name}`")  # a package is no value
        return UNKNOWN

    def lambda_fixed(self, v: Var, expected: T.Type) -> T.Type:
        """The first use of `v` that expects a type fixes the type parameter an untyped lambda's
        body bound (see calls.py _lambda_bound): a body that does not fit is E0001 there."""
        ret, name, lam = v.lambda_bound
        v.lambda_bound = None
        got = _binds([(ret, expected)])
        want, body = got.get(name), lam.ty.ret
        if want is None:
            return self.var_type(v)
        fixed = T.subst(ret, {**got, name: want})
        if self.fits(body, want):
            if not T.has_tvar(fixed) and not T.has_unknown(fixed):
                v.ty = fixed  # `let ys = xs.map((x) -> { x }); ys` as an `int?[]`: U is `int?`
            return self.var_type(v)
        self.mismatch(Span(lam.body.span.file, lam.body.span.start, lam.body.span.start + 1), want, body)
        return T.subst(ret, {**got, name: want}) if not T.has_tvar(T.subst(ret, got)) else expected

    def uninferable_class_args(self, at, f: ast.Field, fd: FunctionDef, expected: bool = False) -> None:
        """E0002: `Box.of(4)`, a static method of a generic class whose parameters do not
        mention the class's type parameter (nothing fixes it; with an `expected` type, its
        result may: `let xs: int[] = Box.make(1)` with `make(…) -> T[]`)."""
        cls = fd.owner
        if not isinstance(cls, ClassDef) or fd.decl.has_self or not cls.decl.generics or \
                getattr(f.obj, "type_args", None) or getattr(at, "type_args", None):
            return  # written: `Box<int>.of(4)`, `Box.of<int>(4)` (the class's first)
        ps, ret = self.sig(fd)
        fixing = [pt for _, pt, _ in ps] + ([ret] if expected else [])
        for g in cls.decl.generics:
            if not any(T.subst(t, {g.name: NULL}) != t for t in fixing):
                self.err(at.span, "E0002", f"cannot infer type parameter `{g.name}`")
                return

    def global_type(self, fd: FunctionDef, ref) -> T.Type:
        """A global's type: as declared, else its initializer's (checked on first need, in
        dependency order; E0181 for a global whose initializer needs its own value)."""
        done = self.global_types.get(fd)
        if done is not None:
            return done
        chain = self.global_chain
        if any(g is fd for g, _ in chain):
            start = next(i for i, (g, _) in enumerate(chain) if g is fd)
            names = [g.name for g, _ in chain[start:]] + [fd.name]
            self.err(chain[start][1], "E0181", f"initialization cycle: global `{fd.name}` needs its own "
                     f"value to be initialized ({' → '.join(f'`{n}`' for n in names)})")
            self.global_types[fd] = UNKNOWN
            return UNKNOWN
        if chain:
            chain[-1] = (chain[-1][0], ref.span)  # the read that needs fd first
        saved = {k: getattr(self, k) for k in _FN_STATE if hasattr(self, k)}
        chain.append((fd, None))
        self.check_function(fd)
        chain.pop()
        self.__dict__.update(saved)
        d = fd.decl
        hole = _empty_hole(d.body.tail) if d.ret is None else None
        if hole is not None:  # `const A = []`: nothing else could fix its element type
            self.err(hole, "E0155", "type annotations needed")
        t = self.resolve(d.ret, report=False) if d.ret is not None else (d.body.tail.ty or UNKNOWN)  # unwidened: `const M = E.A` is `E.A`
        return self.global_types.setdefault(fd, t)

    def specialized(self, e, fd: FunctionDef, env: dict | None = None) -> dict | None:
        """`id<int>` / `v.m<int>` as a value: its type parameters bound to the type arguments
        (E0005 when their number differs)."""
        targs = getattr(e, "type_args", None)
        if not targs:
            return env
        for ta in targs:
            self.require_throws(ta)
        ts = [self.resolve(ta) for ta in targs]
        gens = interfaces.call_generics(fd)
        if len(ts) != len(gens):
            self.err(e.span, "E0005", f"function `{fd.decl.name}` expects {len(gens)} type "
                     f"argument(s), got {len(ts)}")
            return env
        out = dict(env or {})
        out.update({g.name: t for g, t in zip(gens, ts)})
        return out

    def pinned_targs(self, e: ast.Name, fd: FunctionDef, expected: T.Type) -> dict | None:
        """A generic function coerced to a function type or `reflect.AnyFunction<Returns = R>`:
        the engine specializes it there, its type arguments bound by the parameters and result
        (`spec_targs`, for lowering); an `AnyFunction` that cannot bind them all is E0001."""
        want = [m for m in T.members(expected) if isinstance(m, (FuncT, AnyFnT))]
        if len(want) != 1:
            return None
        want = want[0]
        gens = [g.name for g in interfaces.call_generics(fd)]
        ps, ret = self.sig(fd)
        pairs = [(ret, want.ret)] if want.ret is not TOP else []
        if isinstance(want, FuncT):
            pairs += [(p[1], w[1]) for p, w in zip(ps, want.params)]
        env = _binds(pairs)
        if all(g in env for g in gens):
            e.spec_targs = [env[g] for g in gens]
            return env
        if isinstance(want, AnyFnT) or not T.has_tvar(want) and all(  # a function type written whole
                _sure_scrutinee(t) for t in [want.ret] + [p[1] for p in want.params]):
            self.err(e.span, "E0001", f"cannot determine every type argument for generic function "
                     f"`{fd.decl.name}` from the expected function type. Specialize it explicitly, "
                     f"for example `{fd.decl.name}<{', '.join('int' for _ in gens)}>`")
        return None

    def fn_type(self, fd: FunctionDef, env=None, explicit_self=False) -> T.Type:
        """A function's type; a method named by its path (`I.m`) takes its receiver first."""
        ps, ret = self.sig(fd, explicit_self)
        t = FuncT(ps, ret, self.declared_throws(fd))
        if T.has_tvar(t):
            t = T.subst(t, env or {})
        t = FnRefT(t.params, t.ret, t.throws)
        t.fd = fd
        return t

    def x_ArrayLit(self, e, expected):
        arrs = [m for m in T.members(expected) if isinstance(m, Arr) and m != JSON_ARR]
        if not e.items and len(set(map(T.base, arrs))) > 1 and not T.has_json(expected):
            return self.no_pick(e)  # `[]` given `int[] | string[]`: which one?
        if T.has_json(expected) and len(arrs) == 1 and _hollow(e) and _shaped(e, arrs[0]):
            expected = arrs[0]  # `let x: json | int[] = []` is an int[]
        elif T.has_json(expected) and arrs:  # `json | int[]`: inferred, then checked
            ts = self.items_inferred(e.items)
            t = Arr(_joined(ts) if ts else UNKNOWN)
            if not assignable(t, expected):
                self.mismatch(e.span, expected, t)
            return t
        if T.has_json(expected):
            expected = JSON_ARR
        exp = T.base(_sole(expected, Arr))
        if isinstance(exp, Arr) and exp.elem is T.JSON:
            e.records = True  # built as `json[]`, as the engine records it
        if isinstance(exp, Arr):
            if T.has_tvar(exp.elem) and not self.callee_tvars:  # not a callee's type parameter
                e.reify_elem = True  # a `T[]`: it records T's type argument (mir/lower.py)
            for it in e.items:
                self.expect(it, exp.elem)
            return exp if exp.elem is not UNKNOWN or not e.items else Arr(
                T.union(*(T.widen_scalar(it.ty or UNKNOWN) for it in e.items)))
        its = [m for m in T.members(expected) if isinstance(m, T.IterT) and m.cls == "Iterable"]
        if isinstance(expected, Union) and len(its) == 1 and not arrs:  # `Iterable<Item = X> | null`
            ts = self.items_inferred(e.items)
            if not all(assignable(t, its[0].item) for t in ts):
                self.mismatch(e.span, expected, Arr(_joined(ts)))
            return Arr(its[0].item)
        if isinstance(expected, Union) and not _holds_none(expected, MapT):  # (`P?` given `[1]`: checked below)
            for it in e.items:
                self.expr(it, UNKNOWN)
            return UNKNOWN
        if expected is UNKNOWN and len(e.items) > 1 and any(isinstance(it, ast.Lambda) for it in e.items) \
                and all(isinstance(it, (ast.Lambda, ast.Name)) for it in e.items):
            return self.lambda_items(e)
        ts = self.items_inferred(e.items)
        order = [it for it in e.items if not _hollow(it)] + [it for it in e.items if _hollow(it)]
        t = Arr(self.joined_items(list(zip(ts, order))) if ts else UNKNOWN)
        if expected is not UNKNOWN and not isinstance(expected, TVar):
            if not assignable(t, expected):
                self.mismatch(e.span, expected, t)
        if ts and _opaque(t.elem):  # `[a, b]` holding arrays of several types: each records its own
            for it in e.items:
                self.escape(it)
        return t

    def lambda_items(self, e) -> T.Type:
        """`[(d: int) -> …, (e) -> …]`: the first function or lambda with every parameter typed gives the
        others theirs, and the array its element type; with none, nothing types the parameters
        (the engine's E0002 at each, whatever later calls `gs[1](3)` pass)."""
        proto = next((it for it in e.items if not isinstance(it, ast.Lambda)  # (`[inc, (e) -> …]`)
                      or all(p.type is not None for p in it.params)), None)
        if proto is None:
            for it in e.items:
                self.uninferable_lambda(it)
            ts = [self.expr(it, UNKNOWN) for it in e.items]
            return Arr(self.joined_items(list(zip(ts, e.items))))
        pt = self.expr(proto, UNKNOWN)
        if not isinstance(pt, FuncT):
            ts = [pt if it is proto else self.expr(it, UNKNOWN) for it in e.items]
            return Arr(self.joined_items(list(zip(ts, e.items))))
        # the others are checked on their own (`(e) -> { e.length() }`: E0155), then joined with it
        ts = [pt if it is proto else self.expr(it, UNKNOWN) for it in e.items]
        if all(isinstance(t, FuncT) and len(t.params) == len(pt.params) and assignable(t.ret, pt.ret)
               and all(assignable(q, p) for (_, p, _), (_, q, _) in zip(t.params, pt.params)) for t in ts):
            for it in filter(lambda x: isinstance(x, ast.Lambda), e.items):  # the join types their
                # open parameters (`gs[0]("s")`: E0001)
                for p, pv, (_, q, _) in zip(it.params, getattr(it, "param_vars", ()), pt.params):
                    if p.type is None and pv.open_params is not None:
                        pv.ty, pv.open_params = q, None
            return Arr(FuncT(pt.params, pt.ret, pt.throws))  # (the parameters' names are no part of it)
        return Arr(self.joined_items(list(zip(ts, e.items))))

    def joined_items(self, pairs: list) -> T.Type:
        """A literal's items joined as `if` branches are (a declared literal type is kept:
        `[r.status]` is a `("pass" | "fail")[]`; with a literal written among them, all widen),
        members in the engine's order."""
        fresh = any(_fresh_literal(x, self.lookup_var) for _, x in pairs)
        u = T.union(*(T.widen_scalar(t) for t, _ in pairs)) if fresh else self.joined_literals(pairs)
        return T.union(*sorted(u.members, key=_join_key)) if isinstance(u, Union) else u

    def items_inferred(self, items) -> list:
        """The item types of an array literal that expects no element type, as the engine
        infers them: empty literals (`[]`, `[[]]`, `{}`) take the others' type where that is
        one container type they fit (`[[1], []]` is `int[][]`), and come after them."""
        full = [self.expr(it, UNKNOWN) for it in items if not _hollow(it)]
        one = T.union(*(T.widen_scalar(t) for t in full))
        rest = []
        for it in filter(_hollow, items):
            if _shaped(it, one):
                _records(it)  # its (empty) elements cannot tell the type it was given
            elif full and not (it.items if isinstance(it, ast.ArrayLit) else it.entries):
                self.untyped_holes(it)  # `[1, []]`, `[[1], [], ["a"]]`: no one container type to take
            rest.append(self.expr(it, one if _shaped(it, one) else UNKNOWN))
        return full + rest

    def no_pick(self, e) -> T.Type:
        """E0155: an empty literal whose expected type offers several array (map) types."""
        self.err(e.span, "E0155", "type annotations needed: several types could fit this empty literal")
        return UNKNOWN

    def x_MapLit(self, e, expected):
        checked = T.has_json(expected) and any(  # `json | map<string, int>`: inferred, checked
            isinstance(m, MapT) and m != JSON_MAP for m in T.members(expected))
        if not e.entries and not T.has_json(expected) and \
                len({T.base(m) for m in T.members(expected) if isinstance(m, MapT)}) > 1:
            return self.no_pick(e)
        if T.has_json(expected) and not checked:
            expected = JSON_MAP
        exp = T.base(_sole(expected, MapT))
        if isinstance(exp, MapT) and (exp.val is T.JSON or isinstance(T.base(exp.key), EnumT)):
            e.records = True  # built as `map<string, json>`, as the engine records it; enum keys:
            # an empty one has no JSON form either (`baml.json.from` reads its key type)
        if isinstance(exp, MapT):
            for k, v in e.entries:
                self.expect(k, exp.key)
                self.expect(v, exp.val)
            self.hashable_key(e, exp.key)
            return exp
        ks = [self.expr(k, UNKNOWN) for k, _ in e.entries]
        if expected is UNKNOWN and len(e.entries) > 1 and all(isinstance(v, ast.Lambda) for _, v in e.entries):
            for _, v in e.entries:  # `{"a": (d: int) -> …, "b": (e) -> …}`: nothing types e (E0002),
                self.uninferable_lambda(v)  # whatever later calls pass (unlike an array's items)
        vs = [self.expr(v, UNKNOWN) for _, v in e.entries]
        if not ks:
            t = MapT(UNKNOWN, UNKNOWN)
        else:
            t = MapT(self.joined_items([(k, x) for k, (x, _) in zip(ks, e.entries)]),
                     self.joined_items([(v, x) for v, (_, x) in zip(vs, e.entries)]))
            self.hashable_key(e, t.key)
        if (expected is not UNKNOWN and (checked or not isinstance(expected, (TVar, Union)) or _holds_none(expected, Arr))
                and not assignable(t, expected)):
            self.mismatch(e.span, expected, t)  # (`P?` given `{"x": 1}`: no member takes a map)
        return t

    def first_key(self, tgt: ast.Index) -> None:
        """`let m = {}; m[k] = v`: the first write keys the empty literal (E0067 there)."""
        v = self.lookup_var(tgt.obj.name)
        kt = widen(tgt.index.ty or UNKNOWN)
        if v is not None and v.unpinned is not None and kt is not UNKNOWN and not self.types.hashable(kt):
            self.err(v.unpinned, "E0067", f"map keys must implement `baml.Hash`; got `{T.show(kt)}`")

    def hashable_key(self, e: ast.MapLit, key: T.Type) -> None:
        """E0067 at a map literal keyed by a type without `baml.Hash` (the engine reports the
        literal as well as the type that declared it)."""
        if key is not UNKNOWN and not self.types.hashable(key):
            self.err(e.span, "E0067", f"map keys must implement `baml.Hash`; got `{T.show(key)}`")

    def x_ClassLit(self, e, expected):
        if getattr(e.type, "args", None):
            self.written_holes(e.type.args, e.span)
        ct = bare = self.resolve(e.type, report=False)
        if isinstance(ct, T.PlanT):  # `baml.spawn.Plan { ...plan, root: true }`
            spread = UNKNOWN
            for name, val in e.entries:
                t = self.expr(val, _plan_member(ct, name) if name is not None else UNKNOWN)
                if name is None and isinstance(t, T.PlanT):
                    spread = t
            if not e.type.args and isinstance(spread, T.PlanT) and all(n != "body" for n, _ in e.entries):
                return spread  # a plan of the spread plan's types
            return ct
        builds_none = self.std_error_lit(e.type, e.span)  # reported there
        if builds_none:
            ct = UNKNOWN
        elif isinstance(ct, T.StdT) and ct.name in stdsigs.STD_CLASSES:
            return self.std_class_lit(e, ct)
        elif self.std_error_class(e.type, ct) is not None:  # its fields; its type stays unmodelled
            name = self.std_error_class(e.type, ct)
            self.std_class_lit(e, T.StdT("class", name), stdsigs.STD_ERROR_FIELDS[name])
            return UNKNOWN
        if ct == _DONE and not e.entries:  # `baml.iter.Done {}`: what `next()` ends with
            return _DONE
        if getattr(e.type, "path", [])[:2] == ["baml", "iter"] and e.type.path[2:] in (["Repeat"], ["Range"], ["ArrayIterator"]):
            return self.iter_lit(e)
        if ct is UNKNOWN and not builds_none:
            self.class_path_error(e.type, e.span)
        elif isinstance(ct, IfaceT):  # an interface has no literal: the engine finds no class of that name
            p = ".".join(e.type.path)
            self.err(e.span, "E0002", f"unresolved type: {p}. Did you mean `root.{p}`?")
        if isinstance(ct, ClassT) and ct.cls.decl.generics and not e.type.args:
            ct = _expected_class(ct, expected)
        for name, val in e.entries:
            if name is None and isinstance(ct, ClassT):
                self.expect(val, ct)  # `...p`: a value of the literal's own class
            elif name is None or not isinstance(ct, ClassT):
                self.expr(val, UNKNOWN)
        if not isinstance(ct, ClassT):
            return UNKNOWN
        if ct.cls.decl.generics and not e.type.args:  # `let b: Box<int> = Box { }`: the
            ct = _expected_instance(ct, expected)    # expected type gives the type arguments
        cls = ct.cls
        env = self.class_env(ct)
        has_spread = False
        given = set()
        for name, val in e.entries:
            if name is None:
                has_spread = True
                continue
            given.add(name)
            f = cls.field(name)
            if f is None:
                text = e.span.file.text
                i = text.rfind(name, e.span.start, val.span.start)
                sp = Span(e.span.file, i, i + len(name)) if i >= 0 else val.span
                self.err(sp, "E0007", f"class `{cls.name}` has no field `{name}`")
                self.expr(val, UNKNOWN)
                continue
            ft = self.field_type(ct, name, env)
            if _holds_container(ft):
                self.escape(val)  # a field's literal records the field's type
            self.expect(val, ft)
        if not has_spread:
            for f in cls.fields:
                if f.name not in given:
                    ft = self.field_type(ct, f.name, env)
                    if (ft is not UNKNOWN and not T.has_tvar(ft) and not T.has_unknown(ft)
                            and not assignable(NULL, ft)):
                        self.err(e.span, "E0001", f"class `{cls.name}` is missing required "
                                 f"field: `{f.name}`")
                        break
        if cls.decl.generics and not e.type.args and not has_spread and ct is bare:  # none expected
            self.unfixed_class_args(e, cls)
            return self.inferred_class(ct, e)
        return ct

    def unfixed_class_args(self, e, cls) -> None:
        """`Box { v: [] }` with nothing expected: a type parameter only empty literals give is
        E0002 (E0155 at the literal for a field of type `T` itself); a `let` of it waits for a
        use that expects a type (checker.py let)."""
        plain, receiver = getattr(e, "plain_let", False), self.no_expected is e
        if not (plain or receiver):
            return
        given = {n: v for n, v in e.entries if n is not None}
        for g in cls.decl.generics:
            fs = [f for f in cls.fields if _te_mentions(f.type, g.name)]
            vals = [given[f.name] for f in fs if f.name in given]
            if not vals or not all(_empty_hole(v) is not None for v in vals):
                continue
            bare = [given[f.name] for f in fs if f.name in given and isinstance(f.type, ast.TName)
                    and f.type.path == [g.name] and not f.type.args]
            if bare:
                self.untyped_holes(bare[0])  # `v T` given `[]`
            elif plain:
                e.pending_infer = g.name
            else:
                self.err(e.span, "E0002", f"cannot infer type parameter `{g.name}`")
            return

    def iter_lit(self, e) -> T.Type:
        """`baml.iter.Repeat<T> { value: …, count: … }` (or `Range`, `ArrayIterator<T>`): the
        stdlib iterator class built field by field, each field required."""
        kind = e.type.path[2]
        item = INT if kind == "Range" else self.resolve(e.type.args[0]) if e.type.args else UNKNOWN
        fields = {"Repeat": {"value": item, "count": INT}, "Range": {"i": INT, "max": INT, "step": INT},
                  "ArrayIterator": {"arr": Arr(item), "idx": INT}}[kind]
        given = {n for n, _ in e.entries}
        for name, val in e.entries:
            self.expect(val, fields.get(name, UNKNOWN))
        missing = next((n for n in fields if n not in given), None)
        if missing is not None and None not in given:
            self.err(e.span, "E0001", f"class `baml.iter.{kind}` is missing required field: `{missing}`")
        return T.IterT(item, kind) if item is not UNKNOWN else UNKNOWN

    def inferred_class(self, ct: ClassT, e) -> ClassT:
        """`Box { v: 5 }`: a type argument is the widened type of the field declared as it
        (`v T`), as lowering records it (mir/lower.py `_type_args`); unbound, Box stays open."""
        given = {n: v for n, v in e.entries if n is not None}
        args = []
        for g in ct.cls.decl.generics:
            f = next((f for f in ct.cls.fields if isinstance(f.type, ast.TName) and f.type.path == [g.name]
                      and not f.type.args), None)
            vt = widen(given[f.name].ty) if f is not None and f.name in given and given[f.name].ty else UNKNOWN
            if vt is UNKNOWN or T.has_tvar(vt) or T.has_unknown(vt) or not _sure_scrutinee(vt):
                return ct
            args.append(vt)
        return ClassT(ct.cls, tuple(args))

    def class_path_error(self, te: ast.TName, span: Span) -> None:
        """Report an unresolved class-literal type at the literal (the engine's location)."""
        path = te.path
        if len(path) == 1:
            n = path[0]
            if (n in self.generics or n in PRIM_TYPES or n in self.index.items_in(self.ns)
                    or n in OPAQUE_TYPES or n in BUILTIN_TYPE_ROOTS or n in ("map", "Map", "Array", "json")):
                return
            self.err(span, "E0002", f"unresolved type: {n}")
            return
        head = path[0]
        if head == "root" and self.index.lookup(self.ns, path) is None:
            self.err(span, "E0002", f"unresolved type: {'.'.join(path)}")
        elif (head in self.index.namespaces and head not in self.index.items_in(self.ns) and head != "reflect"
              and head not in self.index.packages):
            p = ".".join(path)
            self.err(span, "E0002", f"unresolved type: {p}. Did you mean `root.{p}`?")

    def std_error_class(self, te: ast.TName, ct: T.Type) -> str | None:
        """The stdlib error class a literal's written name builds, where the checker knows its
        fields only (`ai.errors.RateLimited`, `baml.errors.StackFrame`)."""
        if isinstance(ct, T.StdT):
            return ct.name if ct.name in stdsigs.STD_ERROR_FIELDS else None
        path = getattr(te, "path", None)
        if ct is not UNKNOWN or not path or path[0] in self.index.items_in(self.ns) or path[0] in self.index.packages:
            return None
        p = ".".join(path)
        return p if p in stdsigs.STD_ERROR_FIELDS else None

    def std_error_lit(self, te: ast.TName, span: Span) -> bool:
        """Report a class literal of a stdlib error name that builds nothing: an alias
        (`ai.errors.InvokeError`, E0001), the `Failure` interface, an enum or a name its namespace lacks
        (`baml.errors.Failure`, E0002)."""
        path = getattr(te, "path", None)
        if not path or len(path) < 3 or path[0] in self.index.items_in(self.ns) or path[0] in self.index.packages:
            return False  # a user path (`baml` itself may name a user namespace)
        p = ".".join(path)
        if p in STD_ERROR_ALIASES:
            self.err(span, "E0001", f"cannot construct `{path[-1]}`: it is an alias, not a class")
        elif p in STD_ERROR_NONCLASSES or misplaced_error(path) or misplaced_std(path):
            self.err(span, "E0002", f"unresolved type: {p}")
        else:
            return False
        return True

    def class_env(self, ct: ClassT) -> dict:
        gs = ct.cls.decl.generics
        if not gs:
            return {}
        return {g.name: (a if a is not None else UNKNOWN) for g, a in zip(gs, ct.args)}

    def field_type(self, ct: ClassT, name: str, env=None) -> T.Type:
        f = ct.cls.field(name)
        if f is None:
            return UNKNOWN
        save = (self.ns, self.generics)
        self.ns = ct.cls.namespace
        self.generics = {g.name for g in ct.cls.decl.generics}
        t = self.resolve(f.type, report=False)
        self.ns, self.generics = save
        if T.has_tvar(t):
            t = T.subst(t, env if env is not None else self.class_env(ct))
        return t

    # paths like `root.a.f`, `E.V`, `P.make` (a Field chain whose root is not a local)
    def item_path(self, e) -> list[str] | None:
        parts = []
        while isinstance(e, ast.Field):
            if e.optional:
                return None
            parts.append(e.name)
            e = e.obj
        if not isinstance(e, ast.Name) or self.lookup_var(e.name) is not None:
            return None
        g = self.index.items_in(self.ns).get(e.name)
        if isinstance(g, FunctionDef) and _is_global(g):
            return None  # `NAMES.push(…)`: a global's value
        if e.name == "env" and g is None and len(parts) >= 2 and (
                parts[-2] in _ENV_REF_METHODS or parts[-2] == "name"):
            return None  # `env.HOME.get()`, `env.HOME.name`: a `baml.env.Ref` value's members
        parts.append(e.name)
        parts.reverse()
        return carrier_path(parts)

    def resolve_path_expr(self, e: ast.Field, path: list[str]):
        """(kind, value): kind 'fn' (FunctionDef), 'type' (T.Type), 'unknown', 'error'."""
        head = path[0]
        idx = self.index
        if head == "root" or head in idx.items_in(self.ns) or head in idx.packages:
            item, k = idx.resolve_prefix(self.ns, path)
            if item is None:
                self.err(e.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                return "error", None
            if k == len(path):
                if isinstance(item, FunctionDef) and _is_global(item):
                    return "global", self.global_type(item, e)
                if isinstance(item, FunctionDef):
                    return "fn", item
                return "unknown", None
            unbound = _unbound_builtin(item, path[k:])
            if unbound is not None:
                return "type", unbound
            if isinstance(item, EnumDef) and k == len(path) - 2 and path[k] in item.variants:
                self.err(e.span, "E0003", f"unresolved name: `{path[k]}`")  # `E.V.foo`
                return "error", None
            if isinstance(item, EnumDef) and k == len(path) - 1:
                if path[k] in item.variants:
                    return "type", EnumT(item, path[k])
                self.err(e.span, "E0003", f"unresolved name: `{path[k]}`")
                return "error", None
            if isinstance(item, ClassDef) and k == len(path) - 1 and path[k] not in item.methods \
                    and path[k] not in _EVERY_TYPE_METHODS:  # `P.field`: no value (the engine's E0003)
                self.err(e.span, "E0003", f"unresolved name: `{path[k]}`")
                return "error", None
            return "unknown", None
        if head in idx.namespaces and head != "reflect":  # `reflect.…` is the stdlib package
            p = ".".join(path)
            self.err(e.span, "E0003", f"unresolved name: `{p}`. Did you mean `root.{p}`?")
            return "error", None
        if head == "env" and len(path) == 2 and head not in idx.items_in(self.ns):
            return "type", _ENV_REF  # `env.NAME`: a reference the runtime resolves, no string
        if head == "env" and len(path) == 3 and head not in idx.items_in(self.ns) and \
                path[2] not in _EVERY_TYPE_METHODS:
            self.err(e.span, "E0007", f"type `baml.env.Ref` has no member `{path[2]}`")
            return "error", None
        members = stdsigs.STD_CLASS_MEMBERS.get(".".join(path[:-1]))
        if members is not None and path[-1] not in members and path[-1] not in _EVERY_CLASS_MEMBERS:
            self.err(e.span, "E0003", f"unresolved name: `{path[-1]}`")  # `baml.regex.Regex.new`
            return "error", None
        if head in BUILTIN_VALUE_ROOTS and not (
                (head in _CARRIERS and (path[1] not in STDLIB_MEMBER_NAMES or (
                    path[1] in _ANY_CARRIER_STATIC and path[1] not in _CARRIER_STATICS[head]
                    and path[1] not in stdsigs.METHODS.get(head, ()))))
                or (head == "baml" and path[1] in _NOT_IN_BAML)):
            if len(path) == 2 and path[1] not in _PACKAGE_MEMBERS.get(head, (path[1],)):
                self.err(e.span, "E0003", f"unresolved name: `{'.'.join(path)}`")  # `assert.equals`
                return "error", None
            if path[:2] == ["reflect", "TypeKind"] and len(path) == 3:  # a union alias: no members
                self.err(e.span, "E0003", f"unresolved name: `{path[2]}`")
                return "error", None
            if head in ("baml", "reflect") and (path[-1] not in STDLIB_MEMBER_NAMES and
                    not STDLIB_TYPE_NAMES.intersection(path[-2:]) or len(path) >= 3 and
                    path[-2][:1].isupper() and path[-2] not in STDLIB_TYPE_NAMES):
                # no stdlib package declares anything of that name (`reflect.type_of`)
                self.err(e.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                return "error", None
            return "unknown", None
        self.err(e.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
        return "error", None

    def x_Upcast(self, e, x):
        self.path_root = e.obj
        ot = self.expr(e.obj, UNKNOWN)
        t = self.resolve(e.type) if e.type is not None else UNKNOWN
        if not isinstance(t, (IfaceT, T.IterT)):  # `baml.iter.Iterable`/`Iterator` are interfaces
            if t is not UNKNOWN:
                self.err(e.span, "E0001", f"`.as<{show(t)}>` needs an interface type")
            return UNKNOWN
        if not assignable(ot, t):
            self.mismatch(e.span, t, ot)
        return t

    def x_Index(self, e, x):
        self.path_root = e.obj
        if isinstance(e.obj, (ast.If, ast.Match, ast.BlockExpr)):
            self.untyped_holes(e.obj)  # `(if (c) { [] } else { [] })[0]`: each branch's hole
        ot = self.expr(e.obj, UNKNOWN)
        it = self.expr(e.index, UNKNOWN)
        if e.optional:
            e.null_link = _may_be_null(ot)
            ot = T.strip_null(ot)
        tb = T.base(ot)
        r = UNKNOWN
        if isinstance(tb, (Arr, MapT)):
            r, key = (tb.elem, INT) if isinstance(tb, Arr) else (tb.val, tb.key)
            if not assignable(it, key):
                self.mismatch(e.index.span, key, it)
        elif tb is T.BYTES:
            r = INT
            if not assignable(it, INT):
                self.mismatch(e.index.span, INT, it)
        elif tb in (STRING, INT, FLOAT, BOOL, NULL, T.BIGINT, T.JSON, _ENV_REF, T.TOP) or isinstance(
                tb, (T.IterT, AnyFnT)) or (isinstance(tb, (ClassT, EnumT, Union)) and self.sure_type(tb)
                and not self.may_compare(widen(tb))):
            self.err(e.span, "E0008", f"cannot index into type `{show(widen(ot))}`")
        if ast.chain_end(e) and r is not UNKNOWN and _chain_null(e):
            r = T.optional(r)
        return r

    def x_If(self, e, expected):
        _mark_narrowing(e.cond)
        self.expr(e.cond, UNKNOWN)
        pos, neg = self.cond_facts(e.cond)
        saved = dict(self.facts)
        mark = len(self.assigned_log)
        self.facts.update(pos)
        valued = getattr(e, "plain_let", False)
        if valued and e.else_ is not None and not e.else_.stmts and isinstance(e.else_.tail, ast.If):
            e.else_.tail.plain_let = True  # `let x = if … else if …`
        # `let x = if (c) { … }`: without `else` its value is null, so the branch's must be too
        saved_exact = set(self.exact)
        tt = self.block(e.then, NULL if valued and e.else_ is None else expected)
        after_then = (self.facts, self.exact)
        self.facts, self.exact = dict(saved), set(saved_exact)
        if e.else_ is None:
            self.missing_else(e, expected)
            if tt is NEVER:
                self.facts.update(neg)
            self.join_branches([(after_then, tt), (({**saved, **neg}, saved_exact), NULL)], mark)
            return NULL if tt is not UNKNOWN else UNKNOWN
        self.facts.update(neg)
        et = self.block(e.else_, expected)
        after_else = (self.facts, self.exact)
        self.facts, self.exact = dict(saved), set(saved_exact)
        if tt is NEVER and et is not NEVER:
            self.facts.update(neg)
        elif et is NEVER and tt is not NEVER:
            self.facts.update(pos)
        self.join_branches([(after_then, tt), (after_else, et)], mark)
        if expected is not UNKNOWN:
            return NEVER if (tt is NEVER and et is NEVER) else T.union(tt, et)
        return self.joined_literals([(tt, e.then.tail), (et, e.else_.tail)])

    def missing_else(self, e, expected: T.Type) -> None:
        """An `if` without `else` is null when its condition fails: E0029 where a value is expected."""
        if expected not in (UNKNOWN, NULL, VOID):
            self.err(e.span, "E0029", "missing value",
                     f"expected `{show(expected)}`, but an `if` without `else` evaluates "
                     "to `null`; add an `else` branch")

    def joined_literals(self, branches: list, wide=T.widen_scalar) -> T.Type:
        """Branch types joined as the engine joins them: a declared literal type is kept
        (`r.status`), a literal written in a branch widens unless the kept ones hold it
        (`if (c) { r.status } else { "fail" }` stays `"pass" | "fail"`)."""
        fresh = lambda x: x is None or _fresh_literal(x, self.lookup_var)  # noqa: E731
        kept = [t for t, x in branches if not fresh(x)]
        if not kept:
            return T.union(*(wide(t) for t, _ in branches))
        held = T.union(*kept)
        return T.union(held, *(wide(t) for t, x in branches if fresh(x) and not assignable(t, held)))

    def join_branches(self, paths: list, mark: int) -> None:
        """After branches: a variable written in one holds, on each path that goes on, what
        that path leaves it (what was written, what a test narrowed it to, else its declared
        type); after them, the join of those (the engine's: `5 | "a"`, a written `1` and a
        tested `int`: an `int`)."""
        live = [st for st, t in paths if t is not NEVER]
        for v in dict.fromkeys(self.assigned_log[mark:]):
            if not live:
                break
            ts = [facts.get(v, self.declared(v)) for facts, _ in live]
            exact = all(v in ex for _, ex in live)
            self.facts[v] = UNKNOWN if UNKNOWN in ts else T.union(*ts)
            (self.exact.add if exact else self.exact.discard)(v)
            (self.loose.discard if exact else self.loose.add)(v)

    def x_IfLet(self, e, expected):
        vt = self.expr(e.value, UNKNOWN)
        saved, saved_exact = dict(self.facts), set(self.exact)
        mark = len(self.assigned_log)
        self.scopes.append({})
        self.pattern_fits(e.pattern, vt)  # `if let v: string = x` on an `int?`: E0001
        self.pattern(e.pattern, vt)
        # `let x = if let … { … }`: without `else` its value is null, so the branch's must be too
        valued = getattr(e, "plain_let", False) and e.else_ is None
        tt = self.block(e.then, NULL if valued else expected)
        self.scopes.pop()
        after_then = (self.facts, self.exact)
        self.facts, self.exact = dict(saved), set(saved_exact)
        if e.else_ is None:
            self.missing_else(e, expected)
            self.join_branches([(after_then, tt), ((saved, saved_exact), NULL)], mark)
            return UNKNOWN
        et = self.block(e.else_, expected)
        after_else = (self.facts, self.exact)
        self.facts, self.exact = dict(saved), set(saved_exact)
        self.join_branches([(after_then, tt), (after_else, et)], mark)
        return T.union(widen(tt), widen(et))

    def x_BlockExpr(self, e, expected):
        return self.block(e.block, expected)

    def x_Diverge(self, e, expected):
        self.stmt(e.stmt)
        return NEVER

    def x_Spawn(self, e, expected):
        # the value type through the user modifiers: a `Modifier<int, E>` takes an `int` plan
        # (the first such fixes the body's), and each gives its `Output` (default: what it took)
        cur = need = None  # None: the body's own
        for m in e.modifiers:
            t = self.expr(m, UNKNOWN)
            impl = next((i for i in t.cls.impls if i.std == MODIFIER), None) if isinstance(t, ClassT) else None
            if T.base(t) in (INT, FLOAT, STRING, BOOL, NULL) or t is T.TOP or \
                    isinstance(t, (T.Arr, T.MapT, ClassT)) and impl is None:
                self.err(m.span, "E0001", f"type `{show(t)}` does not implement interface "
                         f"`{MODIFIER}`")  # (a token, a limit or `Root` does)
            if impl is None:
                continue
            took, out = self.modifier_value(impl)
            if took is not None:
                need = took if cur is None and need is None else need
                cur = took
            if out is not None:
                cur = out
        self.x_Lambda(e.fn, UNKNOWN)
        v = widen(getattr(e.fn, "value_ty", UNKNOWN))
        # (a future of a future is kept: its inner body's throws reach the second `await`)
        sure = v is NULL or ((self.sure_type(v) or isinstance(v, FutureT)) and not _returns(e.fn.body))
        if need is not None and sure and not assignable(v, need):
            self.mismatch(e.fn.body.span, need, v)  # (the engine: at the block)
        return FutureT(cur if cur is not None else v if sure else UNKNOWN, None if e.modifiers else (e.fn,))

    def modifier_value(self, impl) -> tuple:
        """A `baml.spawn.Modifier` implementation's value types: the one it takes (its first
        type argument where that is a type, not its own parameter) and its `Output` (UNKNOWN
        where that mentions a parameter); None for either where it does not say."""
        save = (self.ns, self.generics)
        self.ns, self.generics = impl.namespace, {g.name for g in impl.decl.generics}
        try:
            args = [a for a in impl.decl.interface.args if getattr(a, "binds", None) is None]
            took = self.resolve(args[0], report=False) if args else UNKNOWN
            out = self.resolve(impl.decl.assoc["Output"], report=False) if "Output" in impl.decl.assoc else None
        finally:
            self.ns, self.generics = save
        took = None if T.has_tvar(took) or T.has_unknown(took) else took
        return took, (UNKNOWN if out is not None and T.has_tvar(out) else out)

    def x_Await(self, e, expected):
        t = self.expr(e.value, UNKNOWN)
        if t is not NULL and _sure_scrutinee(t):  # futures are unknown here: this is none
            self.err(e.span, "E0001", "mismatched types", f"expected `baml.future.Future<unknown, "
                     f"unknown>`, found `{show(t)}`")
        if isinstance(t, FutureT) and t.bodies is not None:  # it throws what the spawned body does
            self.effects.sites[id(e)] = ("through", tuple(("lambda", b) for b in t.bodies))
        elif isinstance(t, FutureT) and t.throws is not None:  # a written `Future<T, E>`: E
            self.effects.sites[id(e)] = ("type", t.throws)
        return t.value if isinstance(t, FutureT) else UNKNOWN

    def placed_lambda(self, v: Var, x: T.Type) -> None:
        """`k(g)` / `let t: (string) -> int … = g` of `let g = (d) -> { d + 1 }`: the place's
        function type types g's open parameters, and its body is checked at them (E0004)."""
        fns = [m for m in T.members(T.base(x)) if isinstance(m, FuncT)]
        t = v.ty
        if len(fns) != 1 or not isinstance(t, LambdaT) or not isinstance(t.node, ast.Lambda) \
                or len(fns[0].params) != len(t.params):
            return
        ps = tuple((n, q if pt is UNKNOWN and _sure_scrutinee(q) else pt, d)
                   for (n, pt, d), (_, q, _) in zip(t.params, fns[0].params))
        if ps != t.params:
            self.relambda(t.node, ps)

    def relambda(self, e, ps: tuple, ret: T.Type = UNKNOWN) -> T.Type:
        """A let-bound lambda checked again where its first call typed its open parameters
        (the engine infers them from that call, then checks the body at them). Its result
        where the body's value is a variable (`(d) -> { d }` called with an `int`: `int`), else
        UNKNOWN: the engine leaves an operator's output over such a parameter open."""
        self.rechecking = True
        try:
            t = self.x_Lambda(e, FuncT(ps, ret, None))
        finally:
            self.rechecking = False
        tail = e.body.tail
        named = tail is not None and e.ret is None and all(isinstance(x, ast.Name) for x in _leaf_values(tail))
        return t.ret if named and isinstance(t, FuncT) and not T.has_tvar(t.ret) else UNKNOWN

    def x_Lambda(self, e, expected):
        exp = T.base(expected)
        fns = [m for m in T.members(exp) if isinstance(m, FuncT)]
        if isinstance(exp, Union) and len(fns) == 1:
            exp = fns[0]  # `((int) -> string)?`: the function type
        self.duplicate_params(e.params, self.fn_name)
        for p in e.params:
            if getattr(p, "hole_type", None) is not None:
                self.err(p.hole_type.span, "E0147", "the `_` wildcard type can only be inferred in a `let` "
                         "binding or a `throws` clause, not in a parameter type")
        for p in e.params:
            self.require_throws(p.type)
        self.require_throws(e.ret, ret=True)
        ps = []
        scope = {}
        for i, p in enumerate(e.params):
            if p.type is not None:
                pt = self.resolve(p.type)
            elif isinstance(exp, FuncT) and i < len(exp.params):
                pt = exp.params[i][1]
            else:
                pt = UNKNOWN
            ps.append((p.name, pt, p.default is not None))
            if p.name == "root":
                self.err(p.span, "E0176", "`root` is the path to this package and cannot name a "
                         "binding, an item, or a type parameter")
            scope[p.name] = Var(p.name, pt)
            if p.type is None and pt is UNKNOWN:
                # a use expecting a type types it (see open_lambda); () for an untyped `let`'s
                # lambda or one called at once: its members are unknown (see member_of)
                scope[p.name].open_params = () if getattr(e, "open_site", False) else []
        e.param_vars = list(scope.values())
        ret = self.resolve(e.ret) if e.ret is not None else UNKNOWN
        pushed = e.ret is None and isinstance(exp, FuncT) and _pushable(exp.ret)
        if pushed:  # the expected result is the body's (its mismatch is reported inside)
            ret = exp.ret
        synth = pushed and isinstance(exp, BoundFuncT)  # (a type argument: inferred, then compared)
        throws = _loose(self.resolve(e.throws)) if e.throws is not None else None
        if throws is None and isinstance(exp, FuncT) and exp.throws is not None and \
                (exp.throws is NEVER or _sure_scrutinee(exp.throws)):
            throws = exp.throws  # a lambda where `(…) -> R throws E` is expected may throw only E
        if e.throws_hole and throws is None and not isinstance(exp, FuncT):
            self.effects.holes[id(e)] = e.throws_hole.span  # nothing but its body to infer from
        else:
            self.effects.holes.pop(id(e), None)
        if throws is not None:
            self.effects.declared[id(e)] = throws
            if _is_unknown(e.throws):
                self.effects.declared_unknown[id(e)] = e.body.span
        outer = self.fn
        saved_facts = self.facts
        self.facts = {}
        self.fn = _Fn(ret, throws, outer.callbacks, outer.captured)
        # variables of the enclosing function may change between calls: no facts apply
        self.scopes.append(scope)
        bt = self.body(e.body, UNKNOWN if synth else ret)
        if synth and bt is not None and not self.fits(bt, ret) and not _block_diverges(e.body) and not (
                e.body.tail is not None and all(x.ty is not None and self.fits(x.ty, ret)
                                                for x in _leaf_values(e.body.tail))):  # `"a"` / `"b"` branches
            b = e.body.span
            self.mismatch(Span(b.file, b.start, b.start + 1), ret, bt)
        e.value_ty = bt if bt is not None else UNKNOWN  # what a `spawn` of it resolves to
        self.scopes.pop()
        self.fn = outer
        self.facts = saved_facts
        if e.ret is None and bt is not None and not T.has_tvar(bt) and not pushed:
            ret = T.widen_scalar(bt)  # an unwritten result is its body's (`xs.map((d) -> { d.n })`)
        t = LambdaT(tuple(ps), ret if not T.has_tvar(ret) else UNKNOWN, throws)
        t.node = e
        need = sum(1 for p in e.params if p.default is None)
        if isinstance(exp, FuncT) and not need <= len(exp.params) <= len(e.params):
            self.err(e.span, "E0005", f"expected {len(exp.params)} argument(s), got {len(e.params)}")
            return UNKNOWN  # one error: not also the mismatch of its type
        self.throws_within(e, t, expected)
        return t


def _holds_none(t: T.Type, other: type) -> bool:
    """A union none of whose members can hold a map (other: Arr) or array (other: MapT)
    literal's value: classes, enums, primitives, literals, functions and the `other` container
    only (no `json`, `unknown`, type parameter or interface, which may)."""
    return isinstance(t, Union) and all(
        isinstance(m, (T.Lit, other, T.ClassT, T.EnumT, T.FuncT)) or isinstance(m, T.Prim) and m is not UNKNOWN
        or isinstance(m, T.StdT) and m.kind == "class" for m in t.members)
