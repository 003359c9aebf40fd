"""The checker's calls: user and generic functions, stdlib functions, reflection, argument checks."""
from __future__ import annotations

from ...syntax import ast, rxsyntax
from .. import stdsigs
from .. import types as T
from .. import interfaces
from .. import reflect as sreflect
from ..program import ClassDef, FunctionDef, target_matches
from ..stdnames import STDLIB_MEMBER_NAMES, STDLIB_TYPE_NAMES
from ..types import (AnyFnT, Arr, BOOL, ClassT, EnumT, FLOAT, FuncT, INT, IfaceT, Lit, MapT, NEVER,
                     NULL, STRING, TOP, TVar, UNKNOWN, Union, VOID, assignable, show, widen)
from .members import _ITER_METHODS
from .common import (ANY_CLASS, BoundFuncT, FnRefT, LambdaT, NativeFuncT, OpenResultT,
                     _ENGINE_MEMBERS, _EVERY_TYPE_METHODS, _STD_TYPES, _binds, _bound_callback,
                     _branch_hole, _callback_throws, _chain_null, _empty_hole, _free_generics,
                     _holds_container, _is_global, _iterable_item, _may_be_null, _mentions,
                     _same_error, _shape_binds, _source, _std_param_names, _std_throws,
                     _sure_scrutinee, _typed_sig, _void_is_null)


# container methods whose use leaves an empty literal's element type open (E0155)
_UNPINNING_METHODS = frozenset("length join reverse keys values has to_string to_json hash".split())


REFLECT_TYPE = sreflect.TYPE  # a `reflect.Type` value
_CALL_ANY_ERRORS = (T.StdT("class", "reflect.InvalidArgumentError"), T.StdT("class", "reflect.errors.CompilationError"))
# stdlib packages whose functions sema/stdsigs.py lists whole (with those it declares but Assay
# does not run): a call of another lower-case name there is unresolved (E0003)
_LISTED_PACKAGES = {"yaml": (), "toml": (), "hash": (), "crypto": (), "json": (),
                    "csv": ("open", "read", "write", "writer", "create")}
# every item of `baml.regex` (BAML's ns_regex/regex.baml): any other name there is unresolved
_REGEX_NAMES = frozenset("Regex Match Group Error ErrorKind new _compile escape _replace "
                         "_replace_literal_with _replace_pattern_with _literal_match _index_of_from".split())


def _unknown_client_item(path: list[str]) -> bool:
    """`openai.NoSuch.new`, `ai.clients.Fallback.new`: no such item in a client package (a class
    modelled whole has no other statics; an unmodelled one, `openai.DecisionsClient`, may)."""
    if path[0] not in stdsigs.CLIENT_PACKAGES and path[:2] != ["ai", "clients"] or len(path) < 3:
        return False
    return ".".join(path[:-1]) in stdsigs.STD_CLASSES or path[-2] not in STDLIB_TYPE_NAMES


_CONTAINER_MEMBERS = _ENGINE_MEMBERS["array"] | _ENGINE_MEMBERS["map"] | _EVERY_TYPE_METHODS
_JSON_STD = frozenset(("baml.json.parse", "baml.json.from", "baml.json.field"))


def _std_prim_ret(sig: str) -> T.Type | None:
    """The result of a non-generic stdlib function returning a primitive (`int.max_value()`
    is an `int`, not its value's literal type); None otherwise."""
    if sig.startswith("<"):
        return None
    ret = sig.rsplit("->", 1)[1].split(" throws ")[0].strip()
    return {"int": INT, "float": FLOAT, "string": STRING, "bool": BOOL}.get(ret)


def _fixed_by(ret: T.Type, expected: T.Type) -> frozenset:
    """The type parameter a `-> T` call's expected type fixes (`let x: int[] = id([])`)."""
    return frozenset({ret.name}) if isinstance(ret, TVar) and _sure_scrutinee(expected) \
        and not T.has_tvar(expected) else frozenset()


def _call_env(fd: FunctionDef, params, e: ast.Call, env: dict) -> dict:
    """The type arguments of a call to a generic function, for what it throws: the explicit
    ones, and those a positional argument binds directly (`g(1)` for `g<T>(x: T)`)."""
    if not interfaces.call_generics(fd):
        return env
    out = dict(env)
    for (name, pt, _), a in zip(params, e.args):
        if a.name is None and isinstance(pt, TVar) and pt.name not in out and a.value.ty is not None:
            out[pt.name] = widen(a.value.ty)
    for name, pt, _ in params:  # `f: (T) -> U throws E`: E is what the function passed for f throws
        if isinstance(pt, FuncT) and isinstance(pt.throws, TVar) and pt.throws.name not in out:
            out[("via", pt.throws.name)] = name
    return out


def _arg_type(e: ast.Expr) -> T.Type:
    """An argument's type as a type parameter takes it: a literal type only from a literal."""
    t = getattr(e, "ty", None) or UNKNOWN
    lit = any(isinstance(m, Lit) for m in T.members(t))
    return UNKNOWN if lit and not isinstance(e, (ast.IntLit, ast.StrLit, ast.BoolLit)) else t


_LEAVES = (ast.IntLit, ast.StrLit, ast.BoolLit, ast.FloatLit, ast.NullLit, ast.Name)


def _literal_tree(v) -> bool:
    """Array and map literals (string keys) of scalar literals and variables, or one of those."""
    if isinstance(v, ast.ArrayLit):
        return all(map(_literal_tree, v.items))
    if isinstance(v, ast.MapLit):
        return all(isinstance(k, ast.StrLit) and _literal_tree(x) for k, x in v.entries)
    return isinstance(v, _LEAVES)


def _tree_type(v, leaf_type) -> T.Type | None:
    """A literal tree's type as a type parameter takes it (`[[1]]`: `int[][]`); None when its
    elements differ (or it is empty)."""
    if isinstance(v, (ast.ArrayLit, ast.MapLit)):
        items = v.items if isinstance(v, ast.ArrayLit) else [x for _, x in v.entries]
        ts = [_tree_type(x, leaf_type) for x in items]
        if not ts or any(t is None for t in ts) or any(not T.same(t, ts[0]) for t in ts):
            return None
        return Arr(ts[0]) if isinstance(v, ast.ArrayLit) else MapT(STRING, ts[0])
    t = leaf_type(v)
    return widen(t) if _sure_scrutinee(t) or t is NULL else None


def _iter_made(e: ast.Call, path: list) -> T.Type:
    """`baml.iter.Range.new(…)`, `Repeat.new(v)`, `ArrayIterator.new(xs)`, `flatten(it)`: the
    iterator they make."""
    first = T.base(widen(getattr(e.args[0].value, "ty", None) or UNKNOWN)) if e.args else UNKNOWN
    if path == ["baml", "iter", "Range", "new"]:
        return T.IterT(INT, "Range")
    if path == ["baml", "iter", "Repeat", "new"]:
        return T.iter_of(first, "Repeat")
    if path == ["baml", "iter", "ArrayIterator", "new"] and isinstance(first, Arr):
        return T.iter_of(first.elem, "ArrayIterator")
    if path == ["baml", "iter", "flatten"] and isinstance(first, T.IterT):
        return T.iter_of(_iterable_item(first.item))
    return UNKNOWN


def _tvar_arg(name: str, e: ast.Call, params) -> T.Type:
    """The caller's own type parameter a positional argument passes for a parameter `x: T`
    (`mx(a, a)` with `a: U` inside `g<U>`), else unknown."""
    for a, (_, pt, _) in zip(e.args, params):
        if a.name is None and isinstance(pt, TVar) and pt.name == name and isinstance(a.value.ty, TVar):
            return a.value.ty
    return UNKNOWN


def _show_te(te) -> str:
    """A type expression as written (a bound in a message)."""
    return ".".join(te.path) if isinstance(te, ast.TName) else "?"


def _iface_arg(name: str, e: ast.Call, params) -> "T.Type | None":
    """An interface type a positional argument gives type parameter `name` (`g(x)` with `x: I`
    for `g<T>(x: T)`, `xs: I[]` for `T[]`): no concrete type to dispatch on."""
    for a, (_, pt, _) in zip(e.args, params):
        at = widen(a.value.ty or UNKNOWN) if a.name is None else UNKNOWN
        if isinstance(pt, Arr) and isinstance(at, Arr):
            pt, at = pt.elem, at.elem
        if pt == TVar(name) and isinstance(at, IfaceT):
            return at
    return None


def _only_empties(name: str, ps, args) -> bool:
    """Every argument for a parameter mentioning type parameter `name` is an empty literal."""
    given = [a.value for (_, pt, _), a in zip(ps, args) if a.name is None and _mentions(pt, name)]
    return bool(given) and all(_empty_hole(v) is not None for v in given)


def _fixes_at_once(v) -> bool:
    """An argument that binds an invariant parameter's type variable at once: a typed value, or
    a literal of several container literals, which must join (`[[1], [2]]`; scalar items are
    seen one by one against the expected type)."""
    items = v.items if isinstance(v, ast.ArrayLit) else [x for _, x in v.entries] if isinstance(v, ast.MapLit) else None
    if items is None:
        return True
    return len(items) > 1 and any(isinstance(x, (ast.ArrayLit, ast.MapLit)) for x in items)


def _known_fn(t: T.Type) -> bool:
    """A function type every part of which is known (`adder<int>(1)` is an `(int) -> int`)."""
    return isinstance(t, FuncT) and not any(T.has_unknown(p) or T.has_tvar(p) for _, p, _ in t.params) \
        and not T.has_unknown(t.ret) and not T.has_tvar(t.ret)


def _lambda_bound(params, ret: T.Type, e: ast.Call, env: dict):
    """(result template, type parameter, lambda) where an untyped lambda's body alone bound a
    type parameter of the call's result (`xs.map((d) -> { d.n })`): a `let` of the call keeps
    it open until a use expects a type (the engine then reports the lambda's body)."""
    for (_, pt, _), a in zip(params, e.args):
        lam = a.value
        if (a.name is None and isinstance(pt, FuncT) and isinstance(pt.ret, TVar) and pt.ret.name in env
                and isinstance(lam, ast.Lambda) and lam.ret is None and _mentions(ret, pt.ret.name)
                and isinstance(lam.ty, FuncT) and _sure_scrutinee(lam.ty.ret)):
            return (ret, pt.ret.name, lam)
    return None


def _inferred_outside_callbacks(ret: T.Type, params, args) -> bool:
    """Is the result `T` or `T | …` with each such T bound by a parameter outside a function
    type (`first<T>(xs: T[]) -> T?`, not `apply<T, U>(x: T, f: (T) -> U) -> U`) and left an
    inference variable: the engine solves T at once where an invariant parameter type holds
    it (`T[]`, `map<K, T>`, `Box<T>`) and the argument's type is already known, not built by
    a literal (`first(xs)` with `xs: int[]` is `int?` to it, `first([3])` is not yet)."""
    tops = [m for m in T.members(ret) if isinstance(m, TVar)]
    if not tops or not all(any(_mentions(pt, v.name) and not isinstance(pt, FuncT) for _, pt, _ in params)
                           for v in tops):
        return False
    named = {a.name: a.value for a in args if a.name is not None}
    given = [(pt, named.get(n) if i >= len(args) or args[i].name is not None else args[i].value)
             for i, (n, pt, _) in enumerate(params)]
    return not any(isinstance(pt, (Arr, MapT, ClassT)) and _mentions(pt, v.name)
                   and a is not None and not isinstance(a, (ast.ArrayLit, ast.MapLit, ast.ClassLit))
                   for pt, a in given for v in tops)


class CallChecks:
    """Checker methods for calls (mixed into `Checker`)."""

    def x_Call(self, e, expected):
        if e.type_args:
            self.written_holes(e.type_args, e.span)
        r = self.call_type(e, expected)
        return T.optional(r) if ast.chain_end(e) and r is not UNKNOWN and _chain_null(e) else r

    def call_type(self, e, expected):
        unexpected = self.no_expected is e  # nothing expects a type of the result (E0002)
        if getattr(e, "tagged", False):
            self.tag_check(e)
        f = e.func
        if not e.type_args and isinstance(f, ast.Field) and isinstance(f.obj, ast.Name) \
                and getattr(f.obj, "type_args", None) and self.lookup_var(f.obj.name) is None \
                and isinstance(self.index.lookup(self.ns, [f.obj.name]), ClassDef):
            e.type_args = f.obj.type_args  # `Box<int>.make(1)` is `Box.make<int>(1)` to the engine
        for ta in e.type_args:
            self.resolve(ta)
            self.require_throws(ta)
        f = e.func
        fd = None
        env: dict = {}
        ft = UNKNOWN
        if isinstance(f, ast.Name) and self.lookup_var(f.name) is None:
            item = self.index.items_in(self.ns).get(f.name)
            if isinstance(item, FunctionDef) and not _is_global(item):
                fd = item
            else:
                ft = self.expr(f, UNKNOWN)
        elif isinstance(f, ast.Field) and self.default_method(f) is not None:
            fd = f.direct = self.default_method(f)  # `default.m()`: the interface's own body
        elif isinstance(f, ast.Field):
            path = self.item_path(f)
            members = stdsigs.STD_CLASS_MEMBERS.get(".".join(path[:-1])) if path is not None else None
            if members is not None and e.args and e.args[0].name is None and path[-1] in members \
                    and ".".join(path) not in stdsigs.FUNCTIONS and not path[-1].startswith("_") \
                    and path[-1] not in stdsigs.CLOCK_READERS:  # `ZonedDateTime.now_in(tz)`: a static
                # `baml.time.PlainDate.year(d)`: a stdlib method called through its class, `d.year()`
                cls = _STD_TYPES.get(".".join(path[:-1]))
                recv = self.soft_expr(e.args[0].value) if cls is not None else UNKNOWN
                if cls is None or recv is UNKNOWN or assignable(recv, cls):
                    call = ast.Call(e.span, ast.Field(f.span, e.args[0].value, path[-1]), e.args[1:], e.type_args)
                    e.as_method = call  # lowering lowers the method call the checker typed
                    return self.expr(call, expected)
                mt = self.member_of(ast.Field(f.span, e.args[0].value, path[-1]), cls, path[-1], True)
                if isinstance(mt, FuncT) and len(e.args) - 1 < sum(1 for _, _, d in mt.params if not d):
                    self.err(e.span, "E0005", f"expected {len(mt.params) + 1} argument(s), got {len(e.args)}")
                self.mismatch(e.args[0].value.span, cls, recv)  # the receiver passed first is no `cls`
                self.args_unknown(e)
                return UNKNOWN
            if path is not None:
                kind, val = self.resolve_path_expr(f, path)
                if kind == "fn":
                    fd = val
                    self.uninferable_class_args(e, f, fd, expected is not UNKNOWN)
                elif kind == "type" and isinstance(val, FuncT):  # `P.to_string(p)`
                    ft = val
                    e.unbound_method = path[-1]
                elif kind == "global":  # `root.ns.F(x)`: a global holding a function
                    ft = val
                elif kind == "type" and isinstance(val, EnumT) and val.variant is not None:
                    self.err(f.span, "E0006", f"`{'.'.join(path)}` is not a function and cannot be called")
                    self.args_unknown(e)  # `E.A()`
                    return UNKNOWN
                elif kind == "error":
                    self.args_unknown(e)
                    return UNKNOWN
                elif path[0] == "reflect" and kind == "unknown" and "reflect" not in self.index.items_in(self.ns):
                    return self.reflect_call(e, path, expected)
                else:
                    self.std_defaults(e, ".".join(path))
                    if path == ["baml", "regex", "new"]:
                        self.regex_literal(e)
                    std = stdsigs.FUNCTIONS.get(".".join(path))
                    if std is not None:
                        self.effects.sites[id(e)] = ("type", _std_throws(std))
                    elif _unknown_client_item(path):
                        self.err(f.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                    if ".".join(path) in stdsigs.TYPE_ARG_FUNCTIONS or ".".join(path) in stdsigs.CHECKED_FUNCTIONS:
                        return self.typed_std_call(e, ".".join(path), expected)
                    if std is not None and ".".join(path) in _JSON_STD:
                        _, params, r = _typed_sig(".".join(path), self)
                        self.check_args(e, params, {})
                        return r
                    if path[:2] in (["baml", "regex"], ["baml", "time"]) and std is not None:
                        return self.std_call(e, ".".join(path))
                    if path[:2] == ["baml", "time"] and path[-1] not in stdsigs.CLOCK_READERS:
                        self.err(f.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                    if path[:2] == ["baml", "regex"] and path[2] not in _REGEX_NAMES:
                        self.err(f.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                    elif len(path) == 3 and path[0] == "baml" and path[1] in _LISTED_PACKAGES and std is None \
                            and path[2][:1].islower() and path[2] not in _LISTED_PACKAGES[path[1]]:
                        self.err(f.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                    if std is not None:
                        r = _std_prim_ret(std)
                        # `int.parse(1)`, `float.pi(1)`, `log.info()`: arguments and arity as declared;
                        # a type parameter the expected result fixes takes any argument
                        gens, params, ret = _typed_sig(".".join(path), self)
                        self.check_args(e, params, {g: UNKNOWN for g in gens if expected is not UNKNOWN
                                                    and _mentions(ret, g)}, exact=True)
                        if _callback_throws(std):  # `baml.Array.generate(n, f)` throws what f throws
                            self.effects.sites[id(e)] = self.through(e)
                        if path == ["baml", "iter", "flatten"] and e.args and self.not_iterator(e.args[0].value.ty):
                            self.err(e.span, "E0002", "cannot infer type parameter `E3`")  # its `Error`s
                            return UNKNOWN
                        if path[:2] == ["baml", "iter"]:
                            return _iter_made(e, path)
                        if path == ["baml", "spawn", "Plan", "new"] and e.args and \
                                isinstance(T.base(e.args[0].value.ty or UNKNOWN), FuncT):
                            return self.plan_of(e.args[0].value, T.base(e.args[0].value.ty), expected)
                        return r or (UNKNOWN if T.has_unknown(ret) or T.has_tvar(ret) else ret)
            else:
                ot = self.receiver(f)
                rt = ot
                if f.optional or e.optional:
                    e.null_link = _may_be_null(ot)
                    rt = T.strip_null(ot)
                tb = T.base(rt)
                if isinstance(tb, ClassT) and tb.cls.methods.get(f.name) is None and tb.cls.field(f.name) is None and (
                        f.name in _ITER_METHODS or f.name not in _EVERY_TYPE_METHODS and f.name not in self.impl_names
                        and tb.cls.impls and all((i.std or "").startswith("baml.iter.") for i in tb.cls.impls)):
                    tb = self.as_iterator(tb) or tb  # a user iterator's adapters (`Fib {…}.take(3)`; no `sum`)
                if isinstance(tb, T.IterT) and f.name not in _EVERY_TYPE_METHODS:
                    if tb.split:  # E0007 once solved, where the joined iterators' errors differ
                        self.effects.iter_splits.append((tb.split, e.span, f.name, tb.item))
                    return self.iter_method_call(e, f, tb)
                if tb == ANY_CLASS and (f.name in stdsigs.ANY_CLASS_METHODS or f.name not in _EVERY_TYPE_METHODS):
                    return self.any_class_call(e, f, expected)
                if isinstance(tb, T.PlanT) and f.name == "wrap" and len(e.args) == 1:
                    return self.plan_wrap(e.args[0].value, tb, expected)
                if isinstance(tb, T.StdT) and stdsigs.STD_CLASS_METHODS.get(tb.name, {}).get(f.name) is not None:
                    return self.std_method_call(e, f.name, stdsigs.STD_CLASS_METHODS[tb.name][f.name], expected)
                if isinstance(tb, ClassT) and tb.cls.methods.get(f.name) is not None and not _free_generics(
                        tb.cls.methods[f.name].impl):  # (else member_of: E0007)
                    fd = tb.cls.methods[f.name]
                    if not fd.decl.has_self:
                        self.member_of(f, rt, f.name, call=True)  # E0001: no `self`
                        self.args_unknown(e)
                        return UNKNOWN
                    env = self.class_env(tb)
                else:
                    ft = self.member_of(e if isinstance(T.base(rt), Union) else f, rt, f.name, call=True)
                    if ft is UNKNOWN:
                        self.args_unknown(e)
                        return UNKNOWN
                    if getattr(f, "dispatch", None) is not None and not f.dispatch[1].startswith("field:"):
                        fd = f.dispatch[0].methods[f.name]
                    elif getattr(f, "direct", None) is not None:
                        fd = f.direct
                    if isinstance(tb, IfaceT) and tb.args and fd is not None and fd.owner is tb.iface:
                        env = dict(zip((g.name for g in tb.iface.decl.generics), tb.args))  # `Sh<string>`'s E
                    if isinstance(ft, NativeFuncT):
                        self.effects.sites[id(e)] = ("type", ft.throws or NEVER)
                        self.check_args(e, self.pushed_params(ft, expected), {}, native=not ft.strict,
                                        rigid=True, exact=ft.strict)
                        if ft.through:  # `xs.map(f)` throws what f throws
                            self.effects.sites[id(e)] = self.through(e)
                        if tb == sreflect.PACKAGE and f.name in ("get_global", "find_global") \
                                and not e.type_args and unexpected:
                            self.err(e.span, "E0002", "cannot infer type parameter `T`")  # `<T>(name)`
                        r = ft.ret
                        if f.name == "iter" and (isinstance(tb, Arr) or tb is STRING):  # `Iterable`'s
                            return T.iter_of(tb.elem if isinstance(tb, Arr) else STRING)  # (string: code points)
                        if ft.open is not None and T.has_tvar(ft.open.ret):
                            targs = self.native_targs(ft.open, e)
                            r = T.subst(ft.open.ret, targs)
                            if not _sure_scrutinee(expected):
                                e.lambda_bound = _lambda_bound(ft.open.params, ft.open.ret, e, targs)
                        return r
        else:
            if isinstance(f, ast.Lambda):
                f.open_site = True  # `((x) -> { x.length() })("a")`: x's members are unknown
            root = f
            while isinstance(root, (ast.Call, ast.Index, ast.Field)):
                root = root.func if isinstance(root, ast.Call) else root.obj
            if isinstance(root, ast.Name) and (v := self.lookup_var(root.name)) is not None:
                left = None
                if isinstance(f, ast.Index) and f.obj is root and v.open_params is not None and v.open_items:
                    e.first_items = v.open_items  # `gs[0]("a")`: each item at the arguments' types
                if root is f and v.open_params is not None:  # (`let h = g`: h holds g's lambda)
                    e.first_call = v  # its arguments give the open parameters their types
                    lam = v.ty.node if isinstance(v.ty, LambdaT) else None
                    rest = getattr(lam, "param_vars", [])[len(e.args):]  # defaulted, left out: `g()`
                    left = [p for p in v.open_params if any(p[2] is pv for pv in rest)] or None
                if not (isinstance(f, ast.Call) and f.func is root and v.open_params is not None):
                    self.typed_lambda(v)  # `g(1)`, `g(1)(2)`, `gs[0](1)` type `let g = (d) -> …`'s parameters
                    v.open_params = left  # (`g(1)(2)`: the inner call `g(1)` types them)
            ft = self.expr(f, UNKNOWN)
            if e.optional:  # `f?.(x)`
                r, whole = _source(f), _source(e)
                self.needless_chain(e, ft, r, f"`{r}{whole[len(r) + 2:]}`", f"`{whole}`")
        if fd is not None and not isinstance(ft, NativeFuncT):
            gens = interfaces.call_generics(fd)
            if gens and not e.type_args:
                self.uninferable(e, fd, with_ret=self.no_expected is not e)
            if e.type_args and len(e.type_args) != len(gens) and (fd.owner is None or len(gens) > len(fd.decl.generics)):
                self.err(e.span, "E0005", f"function `{fd.decl.name}` expects "
                         f"{len(gens)} type argument(s), got {len(e.type_args)}")
            if gens and not e.type_args and expected is not UNKNOWN:
                e.expected_ty = expected  # type arguments the result binds, for lowering (`$targs`)
            if gens and e.type_args:
                env = dict(env)
                for g, ta in zip(gens, e.type_args):
                    env[g.name] = self.resolve(ta, report=False)
            ps, ret = self.sig(fd, explicit_self=isinstance(f, ast.Field) and getattr(f, "direct", None) is None
                               and self.item_path(f) is not None)
            if getattr(ft, "through_iface", False):  # `c.conv()` on a `Conv<int>`: at its arguments
                ps, ret = ft.params, ft.ret
            infer = bool(gens) and not e.type_args and T.has_tvar(ret)
            if infer and isinstance(ret, TVar) and ret.name not in env and _sure_scrutinee(expected) \
                    and self.pushes_into(e, ps, ret.name):
                env = {**env, ret.name: expected}  # `first(first([[1]]))`: the inner call is checked against it
            if gens and not e.type_args:
                self.only_empties(e, fd, gens, ps, ret)
            literal = self.literal_targs(e, ps, ret, {g.name for g in gens}, expected) if \
                gens and not e.type_args and not env else None
            if literal is not None:
                return self.literal_call(e, fd, ps, ret, literal, _fixed_by(ret, expected))
            whole: frozenset = frozenset()
            if infer and _shape_binds(ret) and _sure_scrutinee(expected):
                got = _binds([(ret, expected)])  # `-> T[]`: T from the expected type
                whole = frozenset(got) - set(env)
                env = {**got, **env}
            self.check_args(e, ps, env, whole=whole, fixed=_fixed_by(ret, expected) if infer else frozenset(),
                            user=True)
            if fd.decl.generics and not e.type_args:
                self.conflicting_args(e, ps, env)
                self.rigid_args(e, ps, env)
            if infer:  # the rest from the arguments: `id(1)` is `1`, `wrap(1)` an `int[]`
                direct = isinstance(ret, TVar)
                pairs = [(pt, _arg_type(a.value) if direct else widen(a.value.ty or UNKNOWN))
                         for (_, pt, _), a in zip(ps, e.args) if a.name is None]
                # the plain arguments first; a callback's result binds only what they leave
                env = {**_binds([p for p in pairs if isinstance(p[0], FuncT)]),
                       **_binds([p for p in pairs if not isinstance(p[0], FuncT)]), **env}
            self.effects.sites[id(e)] = ("fn", fd, _call_env(fd, ps, e, env), self.passed(e, ps))
            if getattr(ft, "through_iface", False) and ft.throws is not None and not T.has_tvar(ft.throws):
                self.effects.sites[id(e)] = ("type", ft.throws)  # `Self.Error` as the value binds it
            self.check_bounds(e, fd, ps, env)
            if infer and not whole:
                e.lambda_bound = _lambda_bound(ps, ret, e, env)
            if infer and getattr(e, "plain_let", False) and expected is UNKNOWN:
                e.pending_infer = next((g.name for g in gens if g.name not in env and _mentions(ret, g.name)
                                        and _only_empties(g.name, ps, e.args)), None)  # `mk([])`
            if T.has_tvar(ret):
                hidden = infer and fd.owner is None and _inferred_outside_callbacks(ret, ps, e.args)
                open_ret, ret = ret, T.subst(ret, env)
                if T.has_unknown(ret) and not _known_fn(ret):
                    return UNKNOWN
                if hidden and isinstance(ret, Union):
                    ret = T.HiddenUnion(ret.members)
                if infer and isinstance(open_ret, FuncT) and type(ret) is FuncT:
                    return self.open_result(e, open_ret, ret, env, expected)
            return ret
        tb = T.base(ft)
        if isinstance(tb, FuncT):
            self.effects.sites[id(e)] = self.value_callee(f, tb)
            named = all(n is not None for n, _, _ in tb.params)
            if isinstance(tb, OpenResultT):  # its open parameters take any argument, then must agree
                params = tuple((n, UNKNOWN if tv else pt, d) for (n, pt, d), tv in zip(tb.params, tb.tvars))
                self.check_args(e, params, {}, allow_named=named, user=True)
                if self.open_conflicts(e, tb, expected):
                    return UNKNOWN
            else:
                self.check_args(e, tb.params, {}, allow_named=named, user=True)
            for lam in getattr(e, "first_items", ()):
                if len(lam.params) == len(e.args) and all(a.name is None and a.value.ty is not None for a in e.args):
                    self.relambda(lam, tuple((p.name, self.resolve(p.type) if p.type is not None else
                                              widen(a.value.ty), p.default is not None)
                                             for p, a in zip(lam.params, e.args)))
            self.returned_lambda(e, f, tb)
            v = getattr(e, "first_call", None)
            if v is not None and isinstance(v.ty, LambdaT) and len(e.args) == len(tb.params):
                # `let id = (x) -> { x }; id(1)`: x is an `int` from here on (`id("s")`: E0001)
                ps = tuple((n, widen(a.value.ty) if pt is UNKNOWN and a.name is None and a.value.ty is not None
                            and _sure_scrutinee(widen(a.value.ty)) else pt, d)
                           for (n, pt, d), a in zip(tb.params, e.args))
                t = LambdaT(ps, tb.ret, tb.throws)
                t.node = v.ty.node
                if ps != tb.params and isinstance(t.node, ast.Lambda):
                    r = self.relambda(t.node, ps)  # its body at those types (`g("a")`: E0004 in `d + 1`)
                    if tb.ret is UNKNOWN and r is not UNKNOWN:  # `(d) -> { d }`: g(1) is an int
                        t = LambdaT(ps, r, tb.throws)
                        t.node = v.ty.node
                v.ty = t
                return t.ret if not T.has_tvar(t.ret) else UNKNOWN
            return tb.ret if not T.has_tvar(tb.ret) else UNKNOWN
        if tb in (INT, FLOAT, STRING, BOOL, NULL, T.TOP) or isinstance(tb, (Arr, MapT, ClassT, EnumT, IfaceT, AnyFnT)):
            self.err(e.span, "E0006", f"`{show(widen(ft))}` is not a function and cannot be called")
        if isinstance(f, ast.Name) and self.lookup_var(f.name) is None and fd is None and \
                self.index.items_in(self.ns).get(f.name) is None:
            for a in e.args:  # an unresolved callee (E0003) types none of its arguments
                self.soft_expr(a.value)
            return UNKNOWN
        self.args_unknown(e)
        return UNKNOWN

    def typed_std_call(self, e: ast.Call, path: str, expected: T.Type) -> T.Type:
        """A stdlib function whose native receives its type arguments: check their count, infer
        missing ones (from the expected type, else from the arguments they type), record them on
        the call for lowering (`std_targs`), check the arguments; its type is the return type."""
        gens, params, ret = _typed_sig(path, self)
        env = self.written_targs(e, gens, path.rsplit(".", 1)[-1])
        if env is None:
            return UNKNOWN
        for g in gens:
            if g not in env and ret == TVar(g) and expected is not UNKNOWN and not T.has_tvar(expected):
                env[g] = expected
        self.check_args(e, params, env)
        for a, (_, pt, _) in zip(e.args, params):  # a positional argument typed by a parameter (T or T[])
            at = getattr(a.value, "ty", None) if a.name is None else None
            if at is not None and isinstance(pt, T.Arr) and isinstance(widen(at), T.Arr):
                pt, at = pt.elem, widen(at).elem
            if at is not None and isinstance(pt, TVar) and pt.name not in env:
                env[pt.name] = widen(at)
        if any(g not in env for g in gens):
            if getattr(e, "plain_let", False):  # `let x = f(…)`: nothing to infer from
                missing = next(g for g in gens if g not in env)
                self.err(e.span, "E0002", f"cannot infer type parameter `{missing}`")
            return UNKNOWN
        e.std_targs = [env[g] for g in gens]
        r = T.subst(ret, env)
        exact = path.startswith("testing.")  # a runner constructor's function type is exact
        return UNKNOWN if T.has_unknown(r) and not exact else r

    def receiver(self, f: ast.Field) -> T.Type:
        """A method call's receiver; an empty literal there, or a name bound to one, whose
        element type the method does not fix is E0155."""
        o = self.path_root = self.no_expected = f.obj
        v = self.lookup_var(o.name) if isinstance(o, ast.Name) else None
        if v is not None and v.branch_hole and not v.used:
            self.pin(v)  # `let a = if (c) { [] } else { … }`: no method fixes its type
            self.err(f.span, "E0155", "type annotations needed: the type of this value must be "
                     f"known before accessing `{f.name}`")
        if f.name not in _UNPINNING_METHODS:
            if f.name in _CONTAINER_MEMBERS:
                return self.expr(o, UNKNOWN)
            return self.soft_expr(o)  # no container has it: E0155 at the member (member_of)
        hole = _empty_hole(o)
        if hole is not None:
            self.err(hole, "E0155", "type annotations needed")
        elif isinstance(o, (ast.If, ast.Match)) and _branch_hole(o) is not None:
            # `(if (c) { [] } else { [1] }).length()`: each branch is typed alone
            self.err(getattr(o, "paren_span", o.span), "E0155", "type annotations needed: the type of "
                     f"this value must be known before accessing `{f.name}`")
        elif isinstance(o, ast.BlockExpr):
            self.untyped_holes(o)  # `({ [] }).length()`
        else:
            self.untyped_holes(o, inner=True)  # `[1, []].length()`
        return self.soft_expr(o)

    def literal_targs(self, e: ast.Call, ps, ret, tvars: set, expected) -> dict | None:
        """Type arguments of a call of a generic `-> T` (or `-> int`) function whose arguments are literals
        (or variables), as the engine infers them: each literal leaf for a `T` (a container
        literal only while T has none: one after it is checked against it, E0001 inside) is
        seen in turn; T is the one type seen, else the expected type when it takes them all,
        else (nothing expected) their one widened type; otherwise T conflicts (None: E0002).
        None when an argument is of another form (the general inference decides)."""
        if (T.has_tvar(ret) and not isinstance(ret, TVar)) or any(a.name is not None for a in e.args) \
                or len(e.args) > len(ps):
            return None
        pairs = [(pt, a.value) for (_, pt, _), a in zip(ps, e.args) if T.has_tvar(pt)]
        if not pairs or not all(_literal_tree(v) for _, v in pairs):
            return None
        seen: dict = {}  # type parameter -> the types seen for it, in order
        for pt, v in pairs:
            if not self.observe(pt, v, seen, tvars):
                return None
        sure = expected is not UNKNOWN and _sure_scrutinee(expected) and not T.has_tvar(expected)
        env: dict = {}
        holes = seen.pop("$holes", {})
        for n, hole in holes.items():
            if n not in seen and not (sure and isinstance(ret, TVar) and n == ret.name):
                env["$hole"] = hole
        for n, ts in seen.items():
            if not (sure and isinstance(ret, TVar) and n == ret.name):  # nothing expects T:
                ts = [T.widen_scalar(t) for t in ts]  # a literal leaf is its type (`[1]`: `int`)
            cover = next((c for c in ts if all(assignable(t, c) for t in ts)), None)
            if cover is not None:  # one seen takes the others (`1` and an `int?`)
                env[n] = cover
            elif sure and isinstance(ret, TVar) and n == ret.name:
                env[n] = expected if all(assignable(t, expected) for t in ts) else False
            else:
                ws = [T.widen_scalar(t) for t in ts]
                env[n] = next((c for c in ws if all(assignable(t, c) for t in ws)), None)
        return env

    def observe(self, pt, v, seen: dict, tvars: set) -> bool:
        """The types literal tree `v` shows the type parameters of `pt` (see literal_targs).
        False: a form not followed."""
        if isinstance(pt, TVar) and pt.name in tvars:
            if isinstance(v, (ast.ArrayLit, ast.MapLit)):
                if pt.name not in seen:
                    lt = _tree_type(v, self.literal_leaf)
                    hole = _empty_hole(v) if lt is None else None
                    if lt is None and hole is None:
                        return False
                    if hole is not None:  # `id([])`: the literal's element type is open
                        seen.setdefault("$holes", {}).setdefault(pt.name, hole)
                        return True
                    seen[pt.name] = [lt]
                return True  # checked against the binding with the arguments (E0001 inside)
            t = self.literal_leaf(v)
            if not _sure_scrutinee(t) and t is not NULL:
                return False
            seen.setdefault(pt.name, []).append(t)
            return True
        if isinstance(pt, Arr) and isinstance(v, ast.ArrayLit):
            return all(self.observe(pt.elem, x, seen, tvars) for x in v.items)
        if isinstance(pt, MapT) and isinstance(v, ast.MapLit) and not T.has_tvar(pt.key):
            return all(self.observe(pt.val, x, seen, tvars) for _, x in v.entries)
        if isinstance(v, ast.Name):
            t = self.literal_leaf(v)
            if not _sure_scrutinee(t):
                return False
            for n, bt in _binds([(pt, widen(t))]).items():
                seen.setdefault(n, []).append(bt)
            return True
        return False

    def literal_leaf(self, v) -> T.Type:
        """The type of a scalar literal or a variable (read without checking it), or UNKNOWN."""
        if isinstance(v, ast.Name):
            var = self.lookup_var(v.name)
            return self.var_type(var) if var is not None and var.unpinned is None else UNKNOWN
        return {ast.IntLit: lambda: T.lit_int(v.value), ast.StrLit: lambda: T.lit_str(v.value),
                ast.BoolLit: lambda: T.lit_bool(v.value), ast.FloatLit: lambda: FLOAT,
                ast.NullLit: lambda: NULL}[type(v)]()

    def literal_call(self, e: ast.Call, fd: FunctionDef, ps, ret, env: dict, fixed=frozenset()) -> T.Type:
        """A generic call typed by literal_targs' type arguments."""
        hole = env.pop("$hole", None)
        if hole is not None and getattr(e, "plain_let", False):
            self.err(hole, "E0155", "type annotations needed")
            self.check_args(e, ps, {})
            self.effects.sites[id(e)] = ("fn", fd, _call_env(fd, ps, e, {}), self.passed(e, ps))
            return UNKNOWN
        bad = next((n for n, t in env.items() if t is None or t is False), None)
        if bad is not None:  # False: the types seen are not the expected type's
            self.err(e.span, "E0002", f"cannot infer type parameter `{bad}`" + (
                ": its arguments give it conflicting types; write the type argument or annotate "
                "the expected type" if env[bad] is None else ""))
            self.check_args(e, ps, {})
            self.effects.sites[id(e)] = ("fn", fd, _call_env(fd, ps, e, {}), self.passed(e, ps))
            return UNKNOWN
        missing = next((n for n in (g.name for g in interfaces.call_generics(fd)) if n not in env
                        and _mentions(ret, n)), None)
        if missing is not None and getattr(e, "plain_let", False):  # `let a = first([])`: unless a
            e.pending_infer = missing  # use of `a` expects a type (checker.py let, finish_fn)
        # arguments are checked (and literals record their types) at the widened type arguments:
        # `["a"]` for `xs: T[]` is a `string[]` (the result keeps the types inferred)
        self.check_args(e, ps, {n: T.widen_scalar(t) for n, t in env.items()}, fixed=fixed, user=True)
        self.effects.sites[id(e)] = ("fn", fd, _call_env(fd, ps, e, env), self.passed(e, ps))
        self.check_bounds(e, fd, ps, env)
        if not T.has_tvar(ret):
            return ret
        hidden = fd.owner is None and _inferred_outside_callbacks(ret, ps, e.args)
        ret = T.subst(ret, env)
        if T.has_unknown(ret) or T.has_tvar(ret):
            return UNKNOWN
        return T.HiddenUnion(ret.members) if hidden and isinstance(ret, Union) else ret  # as call_type's

    def uninferable(self, e: ast.Call, fd: FunctionDef, with_ret: bool = False) -> None:
        """E0002: a type parameter no parameter mentions, with no expected result to fix it
        (`with_ret`: there is one, but the result's type does not mention it either)."""
        ps, ret = self.sig(fd)
        for g in interfaces.call_generics(fd):
            if not any(_mentions(p[1], g.name) for p in ps) and not (with_ret and _mentions(ret, g.name)):
                self.err(e.span, "E0002", f"cannot infer type parameter `{g.name}`")
                return

    def only_empties(self, e: ast.Call, fd: FunctionDef, gens, ps, ret: T.Type) -> None:
        """E0002: a type parameter the result does not mention, whose every argument is an
        empty literal (`top([])` for `top<T>(xs: T[]) -> int`): nothing gives it a type."""
        given = {p.name: p.default for p in fd.decl.params if p.default is not None}  # `xs: T[] = []`
        given.update({p[0]: a.value for p, a in zip(ps, e.args) if a.name is None})
        given.update({a.name: a.value for a in e.args if a.name is not None})
        for g in gens:
            args = [given.get(p[0]) for p in ps if _mentions(p[1], g.name)]
            if args and not _mentions(ret, g.name) and all(
                    isinstance(a, (ast.ArrayLit, ast.MapLit)) and not (
                        a.items if isinstance(a, ast.ArrayLit) else a.entries) for a in args):
                self.err(e.span, "E0002", f"cannot infer type parameter `{g.name}`")
                return

    def reflect_call(self, e: ast.Call, path: list[str], expected: T.Type = UNKNOWN) -> T.Type:
        """`reflect.Type.of<T>()` and `reflect.Type.of_value(v)` are `reflect.Type` values;
        other `reflect` statics stay unknown (lowering reports them as not supported yet)."""
        for a in e.args:  # `of_value` sees the element types a container was built with
            self.escape(a.value)
            self.uninferable_lambda(a.value)
        if ".".join(path) in ("reflect.call_any", "reflect.signature") and e.args:
            return self.any_function_call(e, path[1], expected)
        self.args_unknown(e)
        if ".".join(path) in sreflect.STATICS:
            return sreflect.STATICS[".".join(path)]
        if ".".join(path) == "reflect.Class.get_field":  # T as written, else the expected type
            e.std_targs = [self.resolve(e.type_args[0]) if e.type_args else expected]
            return e.std_targs[0]
        if path[:2] != ["reflect", "Type"] or len(path) != 3:
            return UNKNOWN
        name = path[2]
        if name == "of":
            if not e.type_args:
                self.err(e.span, "E0002", "cannot infer type parameter `T`")
            elif len(e.type_args) != 1:
                self.err(e.span, "E0005", f"function `of` expects 1 type argument(s), got {len(e.type_args)}")
            elif e.args:
                self.err(e.span, "E0005", f"expected 0 argument(s), got {len(e.args)}")
            return REFLECT_TYPE
        if name == "of_value":
            if len(e.args) != 1:
                self.err(e.span, "E0005", f"expected 1 argument(s), got {len(e.args)}")
            return REFLECT_TYPE
        if name not in STDLIB_MEMBER_NAMES:
            self.err(e.func.span, "E0003", f"unresolved name: `{name}`")
        return UNKNOWN

    def any_function_call(self, e: ast.Call, name: str, expected: T.Type) -> T.Type:
        """`reflect.call_any(f, args)` / `reflect.signature(f)`: f is a `reflect.AnyFunction`
        (a generic function there is specialized by the pins); call_any's result is f's
        `Returns`: its declared result, or a pin, inferred from the expected type for a
        generic function."""
        f = e.args[0].value
        top = AnyFnT(TOP, TOP)
        want = AnyFnT(expected, TOP) if name == "call_any" and expected is not UNKNOWN and \
            self.generic_fn_name(f) else top
        ft = self.expect(f, want)
        for a in e.args[1:]:
            self.expr(a.value, UNKNOWN)
        if name == "signature":
            return sreflect.STATICS["reflect.signature"]
        ft = T.base(ft)
        th = ft.throws if isinstance(ft, (FuncT, AnyFnT)) else None
        if th is not None and th not in (TOP, UNKNOWN) and not T.has_tvar(th):  # E, or how it was called
            self.effects.sites[id(e)] = ("type", T.union(th, *_CALL_ANY_ERRORS))
        r = ft.ret if isinstance(ft, (FuncT, AnyFnT)) else UNKNOWN
        return UNKNOWN if r is UNKNOWN or T.has_tvar(r) else _void_is_null(r)

    def generic_fn_name(self, e) -> bool:
        """`e` names a generic function without type arguments (`id`, not `id<int>`)."""
        if not isinstance(e, ast.Name) or getattr(e, "type_args", None) or self.lookup_var(e.name):
            return False
        fd = self.index.items_in(self.ns).get(e.name)
        return isinstance(fd, FunctionDef) and bool(interfaces.call_generics(fd)) and not _is_global(fd)

    def std_defaults(self, e: ast.Call, path: str) -> None:
        """A stdlib function's defaulted parameters must be passed by name (E0005)."""
        names = _std_param_names(path)
        for i, a in enumerate(e.args):
            if a.name is not None:
                break
            if i < len(names) and names[i][1]:
                self.err(a.value.span, "E0005", f"defaulted parameter `{names[i][0]}` must be "
                         "passed by name")

    def regex_literal(self, e: ast.Call) -> None:
        """`baml.regex.new("…")`: a quoted pattern is compiled now, its rejection a diagnostic
        (E0174) at the literal, as the engine words it (a backtick or computed pattern waits
        for run time)."""
        pattern = next((a.value for i, a in enumerate(e.args) if a.name == "pattern" or (
            a.name is None and i == 0)), None)
        fancy = next((a.value for i, a in enumerate(e.args) if a.name == "backtracking" or (
            a.name is None and i == 1)), None)
        if not (isinstance(pattern, ast.StrLit) and pattern.span.file.text[pattern.span.start] == '"'):
            return
        if fancy is not None and not isinstance(fancy, ast.BoolLit):
            return
        bad = rxsyntax.check(pattern.value, fancy is not None and fancy.value)
        if bad is None:
            return
        kind, x = bad
        at = f" at character {x.start}" if x.start is not None else ""
        what = {"Unsupported": "unsupported regex construct", "TooLarge": "regex pattern is too large"}.get(
            kind, "invalid regex pattern")
        self.err(pattern.span, "E0174", f"{what}{at}: {x.message}")

    def satisfies(self, t: T.Type, bound: IfaceT) -> bool:
        """Does `t` meet the bound `T extends I`? A type parameter meets it through its own."""
        if isinstance(t, TVar):
            return any(isinstance(b, IfaceT) and bound.iface in b.iface.ancestors()
                       for b in self.bounds.get(t.name, ())) or t.name not in self.bounds
        return bound.iface.implemented_by(t)

    def default_method(self, f: ast.Field) -> FunctionDef | None:
        """`default.m` inside a method of an `implements` block: the interface's default `m`."""
        impl = getattr(getattr(self, "llm_fn", None), "impl", None)
        if not (isinstance(f.obj, ast.Name) and f.obj.name == "default" and impl is not None
                and impl.iface is not None and self.lookup_var("default") is None):
            return None
        return next((m for i in impl.iface.ancestors() for n, m in i.methods.items()
                     if n == f.name and m.decl.body is not None), None)

    def check_bounds(self, e: ast.Call, fd: FunctionDef, params, env: dict) -> None:
        """Arguments for a type parameter `T extends I` must implement I."""
        gens = interfaces.call_generics(fd)
        bounded = {g.name: g.bounds for g in gens if g.bounds}
        if not bounded:
            return
        # the type arguments: written (`total<Bag>(…)`), else bound by the arguments (`T[]` too)
        targs = {g.name: self.resolve(ta, report=False) for g, ta in zip(gens, e.type_args)} \
            if e.type_args else _binds([(pt, widen(a.value.ty or UNKNOWN)) for a, (_, pt, _)
                                        in zip(e.args, params) if a.name is None])
        for name, bounds in bounded.items():
            at = env.get(name) or targs.get(name) or (None if e.type_args else _iface_arg(name, e, params))
            at = UNKNOWN if at is None else at  # env: also from the expected type
            if isinstance(at, Union) and targs.get(name) is not None and not isinstance(targs[name], Union):
                at = targs[name]  # `max_of(1.5, -2.0)` where a union is expected: the arguments' float
            concrete = any(_show_te(b) in ("baml.Concrete", "Concrete") for b in bounds)  # (`int?` is none)
            if isinstance(at, IfaceT) or (isinstance(at, Union) and (NULL not in at.members or concrete)
                                          and _sure_scrutinee(at)):
                self.err(e.span, "E0001", f"type argument `{show(at)}` is not concrete; a type parameter "
                         f"bounded by `{'` & `'.join(_show_te(b) for b in bounds)}` requires a concrete type that "
                         "implements it (a union, an interface, `unknown` or `never` has no single runtime type "
                         "to dispatch on)")
                return
            for b in bounds:
                bt = self.types.resolve(b, fd.namespace, interfaces.generics_of(fd))
                if isinstance(bt, IfaceT) and _sure_scrutinee(at) and not self.satisfies(at, bt):
                    self.err(e.span, "E0001", f"type `{show(at)}` does not implement interface `{show(bt)}`")
                    return
                if _show_te(b) == "baml.iter.Iterable" and "Item" in b.names and _sure_scrutinee(at):
                    item = self.types.resolve(b.args[b.names.index("Item")], fd.namespace, interfaces.generics_of(fd))
                    if _sure_scrutinee(item) and not assignable(at, T.iter_of(item, "Iterable")):
                        self.err(e.span, "E0006", f"cannot iterate over type `{show(at)}`")  # `I extends Iterable<Item = int>`
                        return
                ct = widen(at) if at is not UNKNOWN else _tvar_arg(name, e, params)
                if _show_te(b) == "baml.ops.Compare" and self.not_ordered(ct):
                    self.err(e.span, "E0001", f"type `{show(ct)}` does not implement interface "
                             "`baml.ops.Compare`")
                    return

    def not_ordered(self, t: T.Type) -> bool:
        """Is t sure not to implement `baml.ops.Compare` (a class without the block, an array, a
        map, null; a builtin type's `implements … for` block may give one)?"""
        if isinstance(t, ClassT):
            return not any(i.std == "baml.ops.Compare" for i in t.cls.impls)
        if isinstance(t, TVar):  # `T` unbounded, or bounded by stdlib interfaces without it
            sb = self.std_bounds.get(t.name)
            return t.name in self.generics and (t.name in self.unbounded_generics() or (
                sb is not None and "cmp" not in sb))
        if isinstance(t, (Arr, MapT, EnumT)) or t is NULL:
            return not any(i.std == "baml.ops.Compare" and target_matches(t, i.target)
                           for i in self.index.builtin_impls)
        return False

    def plan_wrap(self, a: ast.Expr, tb: T.PlanT, expected: T.Type) -> T.Type:
        """`plan.wrap(w)`: a plan of what the wrapper returns. Its `Error` is what the wrapper
        throws, and a wrapper's parameter takes the plan's body exactly: where the expected
        plan or the body fixes them, another is E0001 at the wrapper (what it throws by
        inference, once the bodies are solved)."""
        body = FuncT((("body", FuncT((), tb.value, tb.error), False),), UNKNOWN, None)
        w = self.expr(a, body)
        if not isinstance(w, FuncT):
            return T.PlanT(UNKNOWN, UNKNOWN)
        p = w.params[0][1] if len(w.params) == 1 else None
        if isinstance(a, ast.Lambda) and a.params and a.params[0].type is not None and \
                isinstance(p, FuncT) and p.throws is not None and not _same_error(p.throws, tb.error):
            self.mismatch(a.span, body, w)  # `(b: () -> int throws never) -> …` for a fallible body
            return T.PlanT(w.ret, UNKNOWN)
        return self.plan_of(a, w, expected)

    def not_iterator(self, t) -> bool:
        """Surely no `baml.iter.Iterator` (`flatten([[1]])`: an array is only Iterable)."""
        tb = T.base(widen(t or UNKNOWN))
        return isinstance(tb, (Arr, MapT)) or tb in (INT, STRING, FLOAT, BOOL, NULL) or \
            isinstance(tb, T.IterT) and tb.cls == "Iterable"

    def plan_of(self, a: ast.Expr, w: FuncT, expected: T.Type) -> T.Type:
        """The plan whose body `w` is (`Plan.new(f)`, `plan.wrap(f)`): its `Error` is what `w`
        throws; where the expected plan fixes it, `w` must throw exactly that (E0001 at `w`)."""
        want = T.base(expected).error if isinstance(T.base(expected), T.PlanT) else UNKNOWN
        if w.throws is not None and not _same_error(w.throws, want):
            self.mismatch(a.span, FuncT(w.params, UNKNOWN, want), w)
            return T.PlanT(w.ret, UNKNOWN)  # (reported once)
        if w.throws is None and isinstance(w, LambdaT) and want is NEVER:
            self.effects.coerced.append((id(w.node), want, a.span, FuncT(w.params, UNKNOWN, want), w))
        return T.PlanT(w.ret, w.throws if w.throws is not None else UNKNOWN)

    def value_callee(self, f, ft: FuncT) -> tuple:
        """What a call through a function value calls, for `throws` effects."""
        if isinstance(ft, LambdaT):
            return ("lambda", ft.node)
        if isinstance(ft, FnRefT):  # through an interface: its throws as the value binds them
            if getattr(ft, "through_iface", False) and ft.throws is not None and not T.has_tvar(ft.throws):
                return ("type", ft.throws)
            return ("fn", ft.fd)
        if ft.throws is not None:
            return ("type", ft.throws)
        if (isinstance(f, ast.Name) and f.name in self.fn.callbacks
                and self.lookup_var(f.name) is self.scopes[0].get(f.name)):
            return ("callback", f.name)
        return ("type", UNKNOWN)

    def through(self, e: ast.Call) -> tuple:
        """The site of a stdlib call that throws what its callbacks throw: what each function
        passed to it calls (an argument of unknown type may throw anything)."""
        out = []
        for a in e.args:
            t = T.base(a.value.ty or UNKNOWN)
            if isinstance(t, FuncT):
                out.append(self.value_callee(a.value, t))
            elif t is UNKNOWN:
                out.append(("type", UNKNOWN))
        return ("through", tuple(out))

    def generic_result(self, e) -> bool:
        """`e` calls a generic function declared `-> T`, its type arguments inferred."""
        if not isinstance(e, ast.Call) or e.type_args or not isinstance(e.func, ast.Name) or \
                self.lookup_var(e.func.name) is not None:
            return False
        fd = self.index.items_in(self.ns).get(e.func.name)
        r = fd.decl.ret if isinstance(fd, FunctionDef) else None
        return isinstance(r, ast.TName) and len(r.path) == 1 and not r.args and \
            r.path[0] in {g.name for g in fd.decl.generics}

    def pushed_late(self, e: ast.Call, expected: T.Type) -> bool:
        """`let a = first(first([[1]])); a` where a `string` is expected: the first such use
        pushes the type into the inner call as the direct call would (E0001 at it); True when
        it did not fit."""
        fd = self.index.items_in(self.ns).get(e.func.name) if isinstance(e.func, ast.Name) else None
        if not isinstance(fd, FunctionDef):
            return False
        ps, ret = self.sig(fd)
        if not isinstance(ret, TVar) or not self.pushes_into(e, ps, ret.name):
            return False
        for (_, pt, _), a in zip(ps, e.args):
            items = a.value.items if isinstance(pt, Arr) and isinstance(a.value, ast.ArrayLit) else [a.value]
            want = expected if isinstance(pt, Arr) and isinstance(a.value, ast.ArrayLit) else T.subst(pt, {ret.name: expected})
            for c in items:
                if a.name is None and self.open_generic_call(c):
                    if self.pushed_late(c, want):
                        return True
                    if c.ty is not None and not self.fits(c.ty, want):
                        self.mismatch(c.span, want, c.ty)
                        return True
        return False

    def pushes_into(self, e: ast.Call, ps, name: str) -> bool:
        """Does a `-> T` call where a type is expected take T from it, because an argument for
        T (or an item of a literal for `T[]`) is itself a generic `-> U` call whose U no
        argument fixes at once? The engine then checks that inner call against the expected
        type (E0001 at it: `first(first([[1]]))`, `id(id(n))`)."""
        for (_, pt, _), a in zip(ps, e.args):
            if a.name is not None:
                continue
            if pt == TVar(name) or isinstance(pt, Arr) and pt.elem == TVar(name) and isinstance(a.value, ast.Call):
                cands = [a.value]
            elif isinstance(pt, Arr) and pt.elem == TVar(name) and isinstance(a.value, ast.ArrayLit):
                cands = a.value.items
            else:
                continue
            if any(self.open_generic_call(c) for c in cands):
                return True
        return False

    def open_generic_call(self, c) -> bool:
        """A call of a generic `-> U` function of the program whose U no argument fixes at once
        (see _fixes_at_once: a typed value for an invariant `U[]`, `map<K, U>`, `Box<U>`)."""
        if not (isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and not c.type_args
                and self.lookup_var(c.func.name) is None):
            return False
        fd = self.index.items_in(self.ns).get(c.func.name)
        if not isinstance(fd, FunctionDef) or _is_global(fd) or not interfaces.call_generics(fd):
            return False
        ps, ret = self.sig(fd)
        if not isinstance(ret, TVar):
            return False
        return not any(a.name is None and _shape_binds(pt) and _mentions(pt, ret.name) and _fixes_at_once(a.value)
                       for (_, pt, _), a in zip(ps, c.args))

    def pushed_params(self, ft: NativeFuncT, expected: T.Type) -> tuple:
        """A generic stdlib method's parameters with its own type parameters that the expected
        result binds through a container (`map<U>(…) -> U[]` where a `string[]` is expected: U
        is `string`, so a lambda's body is compared with it); a bare `-> U` binds nothing (the
        engine infers it from the arguments)."""
        op = ft.open
        if op is None or not _shape_binds(op.ret):
            return ft.params
        if isinstance(op.ret, Arr) and isinstance(op.ret.elem, TVar) and expected == Arr(TOP):
            got = {op.ret.elem.name: TOP}  # `-> unknown[]`: any body
        elif _sure_scrutinee(expected):
            got = _binds([(op.ret, expected)])
        else:
            return ft.params
        if not got:
            return ft.params
        return tuple((n, _bound_callback(p, got), d) if T.has_tvar(p) else (n, q, d)
                     for (n, p, d), (_, q, _) in zip(op.params, ft.params))

    def returned_lambda(self, e: ast.Call, f, tb: FuncT) -> None:
        """`g(1)("a")` of `let g = (d) -> { (e) -> { d + e } }`: g's body again at d's type from
        `g(1)` with the lambda it returns at `("a")`'s (the engine: E0004 in `d + e`); also
        through `let h = g(1); h("a")`."""
        if isinstance(f, ast.Name) and (h := self.lookup_var(f.name)) is not None:
            f = h.push_call
        v = getattr(f, "first_call", None) if isinstance(f, ast.Call) else None
        inner = getattr(tb, "node", None)
        if v is None or not isinstance(v.ty, LambdaT) or not isinstance(v.ty.node, ast.Lambda) \
                or not isinstance(inner, ast.Lambda) or len(inner.params) != len(e.args) \
                or v.ty.node.body.tail is not inner or all(p.type is not None for p in inner.params):
            return
        if any(a.name is not None or a.value.ty is None for a in e.args):
            return
        ps = tuple((p.name, self.resolve(p.type) if p.type is not None else widen(a.value.ty), p.default is not None)
                   for p, a in zip(inner.params, e.args))
        self.relambda(v.ty.node, v.ty.params, FuncT(ps, T.TOP, None))  # (TOP: any body fits)

    def open_result(self, e: ast.Call, open_ret: FuncT, ret: FuncT, env: dict, expected: T.Type) -> T.Type:
        """`adder(1)` of `adder<T>(a: T) -> (T) -> T`: a function whose T stays open (see
        OpenResultT); an expected function type's parameters must agree with T (E0002 here)."""
        tvars = tuple(pt.name if isinstance(pt, TVar) and pt.name in env else None for _, pt, _ in open_ret.params)
        if not any(tvars):  # (`wrap<T>(a: T) -> () -> T`: T is fixed, `wrap(1)()` an int)
            return ret
        rv = open_ret.ret.name if isinstance(open_ret.ret, TVar) and open_ret.ret.name in tvars else None
        r = OpenResultT(ret.params, ret.ret, ret.throws)
        r.site, r.tvars, r.ret_var, r.binds = e, tvars, rv, env
        want = T.base(expected)
        if isinstance(want, FuncT) and len(want.params) == len(r.params):
            room = want.ret if rv is not None and _sure_scrutinee(want.ret) else None
            for tv, (_, pt, _) in zip(tvars, want.params):  # `let h: (string) -> string = adder(1)`
                if tv is not None and _sure_scrutinee(pt) and self.open_clash(pt, env[tv], room if tv == rv else None):
                    self.open_conflict(r, tv, pt)
                    return UNKNOWN
            if room is not None and any(tv == rv and not assignable(pt, env[tv])
                                        for tv, (_, pt, _) in zip(tvars, want.params)):
                return T.subst(open_ret, {**env, rv: room})  # T is the expected result (`int | string`)
        return r

    def open_conflicts(self, e: ast.Call, ft: OpenResultT, expected: T.Type) -> bool:
        """A call of an OpenResultT: an argument that does not fit its type parameter's type, or
        an expected result that type does not fit, is E0002 at the generic call."""
        room = expected if ft.ret_var is not None and _sure_scrutinee(expected) else None
        for tv, a in zip(ft.tvars, e.args):
            at = a.value.ty or UNKNOWN
            if tv is not None and a.name is None and at is not NULL and _sure_scrutinee(at) \
                    and self.open_clash(at, ft.binds[tv], room if tv == ft.ret_var else None):
                self.open_conflict(ft, tv, at)
                return True
        if ft.ret_var is not None and _sure_scrutinee(expected) and not assignable(ft.binds[ft.ret_var], expected):
            self.err(ft.site.span, "E0002", f"cannot infer type parameter `{ft.ret_var}`")
            return True
        return False

    @staticmethod
    def open_clash(at: T.Type, bound: T.Type, room: T.Type | None) -> bool:
        """Does `at` not fit T's `bound`, nor an expected result (`room`) that holds both
        (`adder(1)("a")` as an `int | string`: T is that)?"""
        return not assignable(at, bound) and not (room is not None and assignable(at, room)
                                                  and assignable(bound, room))

    def open_conflict(self, ft: OpenResultT, tv: str, at: T.Type) -> None:
        self.err(ft.site.span, "E0002", f"cannot infer type parameter `{tv}`: its arguments give it the "
                 f"conflicting types `{show(ft.binds[tv])}` and `{show(T.widen_scalar(at))}`; write the "
                 "type argument or annotate the expected type")

    def conflicting_args(self, e: ast.Call, params, fixed: dict) -> None:
        """E0002: the first argument for a parameter `x: T` (or an item of a literal for `xs:
        T[]`) fixes T (a literal widened, an enum variant kept); a later one must fit it. `fixed`:
        type parameters the expected type already gives, which the arguments need only fit."""
        first: dict = {}
        for (_, pt, _), a in zip(params, e.args):
            if a.name is not None:
                continue
            v = a.value
            if isinstance(pt, T.Arr) and isinstance(pt.elem, TVar) and isinstance(v, ast.ArrayLit):
                given = [(pt.elem, x) for x in v.items]  # `xs: T[]` given `[…]`: each item binds T
            elif isinstance(pt, MapT) and isinstance(pt.val, TVar) and isinstance(v, ast.MapLit):
                given = [(pt.val, x) for _, x in v.entries]
            elif isinstance(pt, TVar) and not isinstance(v, (ast.ArrayLit, ast.MapLit)):
                given = [(pt, v)]
            elif isinstance(pt, FuncT) and isinstance(pt.ret, TVar) and isinstance(v, ast.Lambda) and v.ret is None:
                given = [(pt.ret, v)]  # `(T) -> T` given a lambda: its body's type binds T
            else:
                continue
            for tv, x in given:
                if tv.name in fixed:
                    continue
                at = x.ty or UNKNOWN
                if isinstance(x, ast.Lambda):
                    at = at.ret if isinstance(at, FuncT) else UNKNOWN
                if not (_sure_scrutinee(at) or at is NULL):
                    return
                bound = first.setdefault(tv.name, T.widen_scalar(at))
                if not assignable(at, bound):
                    self.err(e.span, "E0002", f"cannot infer type parameter `{tv.name}`: its arguments give it "
                             f"the conflicting types `{show(bound)}` and `{show(T.widen_scalar(at))}`; write "
                             "the type argument or annotate the expected type")
                    return

    def rigid_args(self, e: ast.Call, params, fixed: dict) -> None:
        """E0001: a callee's type parameter an earlier array argument binds to this body's own
        `T` (`h(xs, 1)` for `h<U>(xs: U[], x: U)` given `xs: T[]`) takes no other type after it."""
        first: dict = {}
        for (_, pt, _), a in zip(params, e.args):
            if a.name is not None:
                return
            at = a.value.ty or UNKNOWN
            if isinstance(pt, TVar) and pt.name not in fixed:
                tv = first.get(pt.name)
                if tv is not None and not self.fits(at, tv):
                    self.mismatch(a.value.span, tv, at)
                    return
            if isinstance(pt, Arr) and isinstance(pt.elem, TVar) and isinstance(at, Arr) and isinstance(
                    at.elem, TVar) and at.elem.name in self.generics:  # an array's item type is exact
                first.setdefault(pt.elem.name, at.elem)

    def passed(self, e: ast.Call, params) -> dict:
        """Parameter name → what the function value passed for it calls (for what a function's
        callbacks throw at this call)."""
        out = {}
        for i, a in enumerate(e.args):
            name = a.name if a.name is not None else (params[i][0] if i < len(params) else None)
            t = T.base(a.value.ty or UNKNOWN)
            if name is not None:
                out[name] = self.value_callee(a.value, t) if isinstance(t, FuncT) else ("type", UNKNOWN)
        return out

    def user_params(self, e: ast.Call) -> bool:
        """Does `e` call a function of this program by name (its parameters all required)?"""
        f = e.func
        return isinstance(f, ast.Name) and self.lookup_var(f.name) is None and isinstance(
            self.index.items_in(self.ns).get(f.name), FunctionDef)

    def args_unknown(self, e) -> None:
        for a in e.args:
            self.expr(a.value, UNKNOWN)

    def check_args(self, e: ast.Call, params, env, allow_named=True, native=False, exact=False,
                   whole: frozenset = frozenset(), rigid=False, fixed: frozenset = frozenset(),
                   user=False) -> None:
        """`exact`: every parameter without a default is required, whatever its type. `user`: a
        function of the program (or a function value): a container literal for a parameter
        records the parameter's type (the callee may keep it; a builtin's does not). `whole`:
        type parameters bound by the expected result; a container literal for a parameter that
        is one of them is typed alone, then checked whole (`wrap([1])` as a `string[][]`:
        `int[]` is no `string[]`). `rigid`: a stdlib method's parameters, whose type variables
        are the receiver's (`xs: T[]`). `fixed`: type parameters the expected result types (an
        empty `[]` for one needs no annotation: `let x: int[] = id([])`)."""
        names = {p[0]: i for i, p in enumerate(params) if p[0] is not None}
        seen: dict = {}  # type parameters the positional arguments so far bind (a callback's parameters take them)
        got = [False] * len(params)
        npos = 0
        bad = False
        unknown_named = []
        named_seen = out_of_order = False
        for a in e.args:
            if a.name is None and named_seen:
                out_of_order = True
                self.err(a.value.span, "E0005", "positional arguments cannot appear after named arguments")
                self.expr(a.value, UNKNOWN)
                continue
            named_seen = named_seen or a.name is not None
            if a.name is None:
                if npos < len(params):
                    pname, pt, defaulted = params[npos]
                    if defaulted:
                        self.err(a.value.span, "E0005", f"defaulted parameter `{pname}` must be "
                                 "passed by name")
                    got[npos] = True
                    if T.has_tvar(pt) or user and _holds_container(pt):  # the callee's: it records
                        self.escape(a.value)
                        if isinstance(pt, TVar) and pt.name not in env and pt.name not in fixed:
                            # `string.from([])`, `id([])`, `h(if (c) { [] } else { [] }, [1])`: each
                            # branch is typed alone, so another argument for T fixes no hole
                            self.untyped_holes(a.value, inner=True)
                    # (a callback's `throws E` too, where E is given: `app<never>(f)`)
                    want = _bound_callback(pt, env, whole) if T.has_tvar(pt) or isinstance(pt, FuncT) and env else pt
                    if user and isinstance(pt, FuncT) and isinstance(want, FuncT) and seen:
                        # `mm(xs, (d) -> …)`: d is xs's T; the engine then checks the body
                        # against no result the expected type did not bind
                        want = type(want)(T.subst(FuncT(pt.params, NULL), {**seen, **env}).params,
                                          want.ret if isinstance(want, BoundFuncT) or want.ret in (NULL, VOID)
                                          else UNKNOWN, want.throws)  # (a `void` callback's body is checked)
                    if isinstance(pt, TVar) and pt.name in whole and isinstance(a.value, (ast.ArrayLit, ast.MapLit)):
                        at = self.expr(a.value, UNKNOWN)
                        if not assignable(at, want):
                            self.mismatch(a.value.span, want, at)
                        npos += 1
                        continue
                    save, self.callee_tvars = self.callee_tvars, self.callee_tvars or T.has_tvar(want)
                    t = self.expect(a.value, want)
                    self.callee_tvars = save
                    if user and T.has_tvar(pt) and not isinstance(pt, FuncT):
                        seen = {**_binds([(pt, widen(t))]), **seen}
                    if rigid and isinstance(pt, TVar) and pt.name in self.generics and not self.fits(t, pt):
                        # a stdlib method's parameter typed by the receiver's type parameter
                        # (`xs: T[]`) is this body's own, rigid: `xs.push(1)` is no `T`
                        self.mismatch(a.value.span, pt, t)
                else:
                    bad = True
                    self.expr(a.value, UNKNOWN)
                npos += 1
            else:
                i = names.get(a.name)
                if i is not None and got[i]:
                    self.err(a.value.span, "E0005", f"duplicate named argument `{a.name}`")
                if i is None or not allow_named:
                    unknown_named.append(a.name)
                    self.expr(a.value, UNKNOWN)
                else:
                    got[i] = True
                    pt = params[i][1]
                    if T.has_tvar(pt) or user and _holds_container(pt):
                        self.escape(a.value)
                    want = T.subst(pt, env) if T.has_tvar(pt) else pt
                    save, self.callee_tvars = self.callee_tvars, self.callee_tvars or T.has_tvar(want)
                    self.expect(a.value, want)
                    self.callee_tvars = save
        nargs = len(e.args)
        if out_of_order:  # the misplaced positional arguments count for no parameter
            for m in [p[0] for p, g in zip(params, got) if not g and not p[2]]:
                self.err(e.span, "E0005", f"missing required argument `{m}`")
            return
        bad = bad or nargs > len(params)  # a named argument again (`f(1, a = 2)` of `f(a)`)
        if native:
            if bad and not any(a.name is not None for a in e.args):
                self.err(e.span, "E0005", f"expected {len(params)} argument(s), got {nargs}")
            return
        if bad:
            self.err(e.span, "E0005", f"expected {len(params)} argument(s), got {nargs}")
            for n in unknown_named:
                self.err(e.span, "E0005", f"unknown named argument `{n}`")
            return
        missing = [p[0] for p, g in zip(params, got)  # an optional parameter too (`a: int?`)
                   if not g and not p[2] and (exact or (not T.has_tvar(p[1]) and p[1] is not UNKNOWN
                                                        and (not assignable(NULL, p[1]) or self.user_params(e))))]
        if missing:
            if not any(a.name is not None for a in e.args):
                self.err(e.span, "E0005", f"expected {len(params)} argument(s), got {nargs}")
            else:
                for m in missing:
                    self.err(e.span, "E0005", f"missing required argument `{m}`")
        for n in unknown_named:
            self.err(e.span, "E0005", f"unknown named argument `{n}`")

