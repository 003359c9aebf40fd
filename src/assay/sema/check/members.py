"""The checker's member access: fields, methods of user, stdlib and builtin types, iterator methods."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...source import SourceFile, Span
from ...syntax import ast
from ...syntax.parser import parse_type
from .. import stdsigs
from .. import types as T
from .. import interfaces
from .. import reflect as sreflect
from ..program import FunctionDef, InterfaceDef
from ..stdnames import STDLIB_MEMBER_NAMES
from ..types import (Arr, BOOL, ClassT, EnumT, FLOAT, FuncT, INT, IfaceT, Lit, MapT, NEVER, NULL,
                     STRING, TVar, UNKNOWN, Union, VOID, assignable, show, widen)
from .common import (ANY_CLASS, FnRefT, FutureT, LambdaT, NativeFuncT, _DONE, _ENGINE_MEMBERS,
                     _ENV_REF, _ENV_REF_METHODS, _EVERY_TYPE_METHODS, _KIND_OF, _OP_IFACES,
                     _OP_METHOD_OF, _callback_throws, _chain_null, _free_generics, _is_time,
                     _iterable_item, _may_be_null, _open_param, _parse_std_type, _plan_member,
                     _source, _std_throws, _sure_scrutinee, _typed_sig)

if TYPE_CHECKING:
    from .checker import Checker


# every type's `hash` is baml.Hash's: it feeds a hasher (which no value of a known type is)
_HASH_FN = FuncT((("hasher", T.HASHER, False),), NULL, NEVER)
# `reflect.AnyClass`'s own methods: a class instance has them only through that interface
_ANY_CLASS_ONLY = frozenset("list_fields get_field find_field has_field attributes name type".split())
_ARITH_METHODS = ("add", "sub", "mul", "div", "rem")
_BIT_METHODS = ("bit_and", "bit_or", "bit_xor", "shl", "shr")
_AMBIGUOUS_OPS = {
    "int": {**dict.fromkeys(_ARITH_METHODS, ("int", "float", "bigint")),
            **dict.fromkeys(_BIT_METHODS, ("int", "bigint"))},
    "float": dict.fromkeys(_ARITH_METHODS, ("float", "int")),
    "bigint": {**dict.fromkeys(_ARITH_METHODS, ("bigint", "int")), **dict.fromkeys(_BIT_METHODS, ("int", "bigint"))},
}


def _elem_lacks(elem: T.Type, name: str) -> bool:
    """Array methods only some element types have in the engine's stdlib."""
    if name == "sum":
        return elem is not INT and elem is not FLOAT
    if name in ("mean", "median"):
        return elem is not FLOAT
    if name == "sort":
        return isinstance(elem, (Union, MapT, Arr, EnumT)) or _is_time(elem)  # no `Compare`
    return False


_NATIVE_PARSED: dict = {}  # sig text -> (TFunc, generics, defaulted parameters) | None
# a defaulted parameter of a method signature (`time: T? = null`): its default is the native's own
_DEFAULT = re.compile(r"\s*=\s*(?:\"[^\"]*\"|[^,)]+)")
_DEFAULTED = re.compile(r"(\w+):[^,=]*=")


def _native_sig(kind: str, name: str, checker: "Checker"):
    """Parse a stdlib method's declared signature (sema/stdsigs.py) into a FuncT over the type
    variables T U K V Self …; None when unknown."""
    decl = stdsigs.METHODS.get(kind, {}).get(name)
    if decl is None:
        return None
    parsed = _NATIVE_PARSED.get(decl, False)
    if parsed is False:
        sig = decl.strip()
        gens = {"T", "U", "K", "V", "E", "Self"}
        if sig.startswith("<"):
            j = sig.index(">")
            gens |= {g.strip().split()[0] for g in sig[1:j].split(",") if g.strip()}
            sig = sig[j + 1:].strip()
        defaulted = frozenset(m.group(1) for m in _DEFAULTED.finditer(sig))
        te, diags = parse_type(SourceFile("<stdlib>", _DEFAULT.sub("", sig)))
        parsed = (te, gens, defaulted) if te is not None and not diags and isinstance(te, ast.TFunc) else None
        _NATIVE_PARSED[decl] = parsed
    if parsed is None:
        return None
    te, gens, defaulted = parsed
    save = (checker.ns, checker.generics, checker.diags)
    checker.ns, checker.generics, checker.diags = None, gens, []
    try:
        t = checker.resolve_std(te)
    finally:
        checker.ns, checker.generics, checker.diags = save
    if not isinstance(t, FuncT):
        return None
    # a parameter whose type refers to stdlib types (baml.*) is UNKNOWN; keep the shape
    return FuncT(tuple((n, p, n in defaulted) for n, p, _ in t.params), t.ret, None)


# stdlib functions whose signatures name `json`: their arguments are checked, they return it
# stdlib namespaces and classes: names of no value (`let x = baml.json` is unresolved)
_STD_NON_VALUES = frozenset({k.rsplit(".", n)[0] for k in stdsigs.FUNCTIONS for n in range(1, k.count(".") + 1)}
                            | set(stdsigs.STD_CLASSES) | set(stdsigs.STD_ENUM_VARIANTS)) - set(stdsigs.FUNCTIONS)


_METHOD_SIGS: dict = {}


def _method_sig(sig: str, checker: "Checker") -> tuple[list[str], list, T.Type]:
    """(type parameters, params as check_args takes them, return type) of a stdlib method's
    signature text (sema/stdsigs.STD_CLASS_METHODS)."""
    got = _METHOD_SIGS.get(sig)
    if got is None:
        gens = [g.strip() for g in sig[1:sig.index(">")].split(",")] if sig.startswith("<") else []
        body = sig[sig.index(">") + 1:] if gens else sig
        ps = body[body.index("(") + 1:body.index(")")]
        ret_text = body[body.rindex("->") + 2:].split(" throws ")[0].strip()
        save = (checker.ns, checker.generics, checker.diags)
        checker.ns, checker.generics, checker.diags = None, set(gens), []
        try:
            params = [(n.strip(), checker.resolve_std(_parse_std_type(t.strip())), False)
                      for n, _, t in (p.partition(":") for p in ps.split(",") if p.strip())]
            ret = checker.resolve_std(_parse_std_type(ret_text))
        finally:
            checker.ns, checker.generics, checker.diags = save
        got = _METHOD_SIGS[sig] = (gens, params, ret)
    return got


def _declares(it: IfaceT, name: str) -> bool:
    """Does interface type `it` (or one it requires) declare a field or method `name`?"""
    return any(i.field(name) is not None or name in i.methods for i in it.iface.ancestors())


def _self_param(iface: InterfaceDef, name: str) -> bool:
    """Does interface method `name` take a `Self` (besides its receiver: `same(self, o: Self)`)?"""
    m = next((i.methods[name] for i in iface.ancestors() if name in i.methods), None)
    return m is not None and any(p.type is not None and _mentions_self(p.type) for p in m.decl.params)


def _mentions_self(te) -> bool:
    if isinstance(te, ast.TName):
        return te.path == ["Self"] or any(_mentions_self(a) for a in te.args)
    if isinstance(te, ast.TArray):
        return _mentions_self(te.elem)
    if isinstance(te, ast.TOptional):
        return _mentions_self(te.inner)
    if isinstance(te, ast.TUnion):
        return any(_mentions_self(m) for m in te.members)
    if isinstance(te, ast.TFunc):
        return any(_mentions_self(p) for _, p in te.params) or _mentions_self(te.ret)
    return False


def _no_common_iface(index, u: Union, name: str) -> bool:
    """`x.name` on a union of user classes and enums (and null): no interface that declares
    `name` is implemented by every member (a method of each member's own is not enough); False
    where unsure (a generic class, a builtin member, a stdlib interface's method)."""
    common = None
    for m in u.members:
        if m is NULL:
            return True
        if isinstance(m, ClassT) and not m.cls.decl.generics:
            impls = m.cls.impls
        elif isinstance(m, EnumT) and m.variant is None:
            impls = [i for i in getattr(index, "builtin_impls", ()) if i.target == m]
        else:
            return False
        if any(i.std is not None and i.method(name) is not None for i in impls):
            return False
        have = {a.fqn for i in impls if i.iface is not None for a in i.iface.ancestors()
                if name in a.methods or a.field(name) is not None}
        common = have if common is None else common & have
    return not common


# `baml.iter.Iterator`'s methods (ns_iter/iter.baml), by the arguments they take
_ITER_METHODS = {"next": "", "iter": "", "peekable": "", "collect": "", "count": "",
                 "map": "fn", "filter": "pred", "filter_map": "fn", "flat_map": "fn", "step_by": "n",
                 "chain": "other", "take": "n", "skip": "n", "take_while": "pred", "skip_while": "pred",
                 "reduce": "reduce", "for_each": "fn", "some": "pred", "every": "pred", "find": "pred"}
# the methods that advance an iterator: they throw its `Error` (the adapters are lazy)
_ITER_DRIVERS = frozenset(("next", "peek", "collect", "count", "reduce", "for_each", "some", "every", "find"))
# the public fields of the iterator classes that have state of their own
_ITER_FIELDS = {"Range": {"i": INT, "max": INT, "step": INT}, "Repeat": {"value": "item", "count": INT},
                "ArrayIterator": {"arr": "items", "idx": INT}}


def _iter_errs(t) -> tuple:
    """What advancing an iterable value may throw, as effect sites (an unknown value: unknown)."""
    t = T.base(t) if t is not None else None
    if t is None or isinstance(t, Arr) or t is STRING:
        return ()
    return t.err if isinstance(t, T.IterT) else (("type", UNKNOWN),)


def _callback_result(e: ast.Call) -> T.Type:
    """The result type of the callback passed first, where the checker surely knows it."""
    at = getattr(e.args[0].value, "ty", None) if e.args else None
    if isinstance(at, FuncT) and (_sure_scrutinee(at.ret) or isinstance(at.ret, T.IterT)):
        return widen(at.ret)
    return UNKNOWN


def _accumulator(e: ast.Call) -> T.Type:
    """`reduce(fn, initial)`'s accumulator type A where fn declares no result: its first
    parameter's declared type, else the initial value's (widened), where surely known."""
    at = getattr(e.args[0].value, "ty", None) if e.args else None
    a = at.params[0][1] if isinstance(at, FuncT) and at.params else UNKNOWN
    if a is UNKNOWN and len(e.args) > 1:
        a = widen(getattr(e.args[1].value, "ty", None) or UNKNOWN)
    return a if _sure_scrutinee(a) else UNKNOWN


def _value_targs(ft: FuncT, e: ast.Call) -> dict:
    """A stdlib method's type parameters that a plain argument gives (`reduce`'s `initial: A`)."""
    env: dict = {}
    for (_, pt, _), a in zip(ft.params, e.args):
        at = getattr(a.value, "ty", None)
        if a.name is None and isinstance(pt, TVar) and at is not None and not isinstance(at, LambdaT):
            at = widen(at)
            if _sure_scrutinee(at) and not T.has_unknown(at):
                env.setdefault(pt.name, at)
    return env


def _lambda_results(ft: FuncT, e: ast.Call) -> dict:
    """A stdlib method's type parameters that are its callbacks' results (`map<U>(f: (T) ->
    U)`), from lambdas passed with a declared return type."""
    env: dict = {}
    for (_, pt, _), a in zip(ft.params, e.args):
        at = getattr(a.value, "ty", None)
        if (a.name is None and isinstance(pt, FuncT) and isinstance(pt.ret, TVar)
                and isinstance(at, LambdaT) and (_sure_scrutinee(at.ret) or at.ret is T.TOP)):
            env.setdefault(pt.ret.name, at.ret)  # a declared `-> unknown` too: `unknown[]` is its result
    return env


# what `baml.future.Future` declares (sema reads a future's value through `await`)
_FUTURE_MEMBERS = frozenset("cancel is_settled is_cancelled is_result is_error state".split())


class MemberChecks:
    """Checker methods for member access (mixed into `Checker`)."""

    def x_Field(self, e, x):
        impl = getattr(getattr(self, "llm_fn", None), "impl", None)
        if (impl is not None and impl.iface is not None and isinstance(e.obj, ast.Name) and e.obj.name == "default"
                and self.lookup_var("default") is None):
            for i in impl.iface.ancestors():  # `default.f`: the interface's field f of self
                f = i.field(e.name)
                if f is not None:
                    e.default_field = impl.field_name(e.name)
                    return self.iface_field_type(i, f)
        path = self.item_path(e)
        if path is not None:
            kind, val = self.resolve_path_expr(e, path)
            if kind == "fn":
                self.uninferable_class_args(e, e, val)
                return self.fn_type(val, self.specialized(e, val), explicit_self=True)
            if kind == "type":
                if isinstance(val, FuncT):
                    e.unbound_method = path[-1]
                return val
            if kind == "unknown" and len(path) == 4 and ".".join(path[:3]) in stdsigs.STD_ENUM_VARIANTS:
                return self.std_variant(e, path)
            if kind == "unknown" and ".".join(path) in _STD_NON_VALUES:  # `baml.regex`, `baml.regex.Regex`
                self.err(e.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                return UNKNOWN
            if kind == "global":
                return val
            std = stdsigs.FUNCTIONS.get(".".join(path)) if kind == "unknown" else None
            if std is not None and not std.startswith("<") and " throws " in std:
                return self.std_fn_value(".".join(path), std)
            return UNKNOWN
        self.path_root = e.obj
        if isinstance(e.obj, ast.ClassLit):
            self.no_expected = e.obj  # `Box { v: [] }.n`: nothing types Box's T (E0002)
        ot = self.expr(e.obj, UNKNOWN)
        t = self.member(e, ot, e.name, e.optional, call=False)
        if isinstance(t, NativeFuncT) and isinstance(T.base(ot), (Arr, MapT)):
            self.escape(e.obj)  # `xs.push` as a value: its signature shows xs's element type
        return t

    def member(self, e, ot: T.Type, name: str, optional: bool, call: bool):
        """Type of `ot.name` (a method's FuncT for methods)."""
        if optional:
            if not call and not (isinstance(e.obj, ast.Field) and e.obj.optional):  # `c?.e?.n` is fine
                r = _source(e.obj)
                self.needless_chain(e, ot, r, f"`{r}.{name}`", f"`{r}?.{name}`")
            e.null_link = _may_be_null(ot)
            ot = T.strip_null(ot)
        t = self.member_of(e, ot, name, call)
        if ast.chain_end(e) and t is not UNKNOWN and _chain_null(e):
            t = T.optional(t)
        return t

    def needless_chain(self, e, ot: T.Type, recv: str, plain: str, chained: str) -> None:
        """E0004: a `?.` whose receiver cannot be null (the engine rejects it)."""
        if ot is not UNKNOWN and (_sure_scrutinee(ot) or isinstance(ot, FuncT)) and \
                all(m is not NULL for m in T.members(ot)):
            self.err(e.span, "E0004", f"did you mean {plain}? {chained} is unnecessary, because "
                     f"`{recv}` cannot be null")

    def erased_self(self, e, ot: T.Type, name: str) -> bool:
        """E0001: `eq` / `neq` take a second `Self`, which a union receiver does not fix."""
        if name in ("eq", "neq") and isinstance(ot, Union) and _sure_scrutinee(ot):
            self.err(e.span, "E0001", f"method `{name}` on interface `baml.ops.Equals` uses "
                     "`Self` in more than one parameter, or nested in a parameter, so it requires"
                     " a concrete `Self`, not an erased one (an interface-existential or union)")
            return True
        return False

    def member_of(self, e, ot: T.Type, name: str, call: bool):
        o = getattr(e, "obj", None)
        v = self.lookup_var(o.name) if isinstance(o, ast.Name) and ot is UNKNOWN else None
        if v is not None and v.ty is UNKNOWN and _open_param(v):
            # `let g = (d) -> { d.length() }`: d's type is not known yet (its call comes later)
            v.open_params = None  # (no E0002 at it as well)
            self.err(e.span, "E0155", "type annotations needed: the type of this value must be "
                     f"known before accessing `{name}`")
            return UNKNOWN
        if isinstance(ot, Union) and all(isinstance(m, Lit) for m in ot.members) and \
                name not in _EVERY_TYPE_METHODS:  # `1 | 2` is a union, not an int: no `abs`
            self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`: its members "
                     f"implement no common interface that declares `{name}`")
            return UNKNOWN
        tb = T.base(ot)
        if isinstance(tb, T.IterT) and name not in _EVERY_TYPE_METHODS:
            if tb.split:  # E0007 once solved, where the joined iterators' errors differ
                self.effects.iter_splits.append((tb.split, e.span, name, tb.item))
            return self.iter_field(e, tb, name)
        if tb == ANY_CLASS and name not in stdsigs.ANY_CLASS_METHODS and name not in _EVERY_TYPE_METHODS:
            self.err(e.span, "E0007", f"type `reflect.AnyClass` has no member `{name}`")  # fields: `get<T>`
            return UNKNOWN
        if (isinstance(tb, Union) and name not in _EVERY_TYPE_METHODS
                and self.sure_type(widen(tb))
                and (not any(self.may_compare(widen(m)) for m in tb.members)
                     or name not in _EVERY_TYPE_METHODS and _no_common_iface(self.index, tb, name))):
            self.err(e.span, "E0007", f"type `{show(widen(ot))}` has no member `{name}`: its "
                     f"members implement no common interface that declares `{name}`")
            return UNKNOWN
        if call and self.erased_self(e, ot, name):
            return UNKNOWN
        if isinstance(tb, T.StdT) and tb.name == "baml.future.Future" and name not in _FUTURE_MEMBERS \
                and name not in _EVERY_TYPE_METHODS:  # `fut.await()`: awaiting is `await fut`
            if isinstance(tb, FutureT) and tb.throws is None:  # a `spawn`'s future: the engine has not fixed its type yet
                self.err(e.span, "E0155", "type annotations needed: the type of this value must be "
                         f"known before accessing `{name}`")
            else:
                self.err(e.span, "E0007", f"type `{show(tb)}` has no member `{name}`")
            return UNKNOWN
        if tb is T.JSON and name not in _EVERY_TYPE_METHODS:
            self.err(e.span, "E0007", f"type `{show(tb)}` has no member `{name}`: its members "
                     f"implement no common interface that declares `{name}`")
            return UNKNOWN
        if (call and name == "hash" and name not in self.impl_names and _sure_scrutinee(ot)
                and not isinstance(T.base(ot), ClassT)):
            return _HASH_FN
        if isinstance(tb, EnumT) and call and name in ("eq", "neq") and name not in self.impl_names:
            return NativeFuncT((("other", tb, False),), BOOL, NEVER)  # Equals' `other: Self`
        if isinstance(tb, TVar) and not self.bounds.get(tb.name) and tb.name in self.generics and \
                name not in ("to_string", "eq", "neq", "to_json"):
            self.err(e.span, "E0007", f"type `{tb.name}` has no member `{name}`")  # an unbounded `T`
            return UNKNOWN
        if isinstance(tb, TVar) and name not in (self.std_bounds.get(tb.name) or {name}) and \
                name not in _EVERY_TYPE_METHODS and name not in self.impl_names:
            self.err(e.span, "E0007", f"type `{tb.name}` has no member `{name}`")  # `T extends baml.ops.Compare`
            return UNKNOWN
        if isinstance(tb, TVar):
            if self.rigid_var(getattr(e, "obj", None), tb) and name not in _EVERY_TYPE_METHODS \
                    and name not in self.impl_names:
                self.err(e.span, "E0007", f"type `{tb.name}` has no member `{name}`")
                return UNKNOWN
            ifaces = [b for b in self.bounds.get(tb.name, ()) if isinstance(b, IfaceT)]
            # `T extends A & B`: the member comes from the conjunct that declares it
            tb = next((b for b in ifaces if _declares(b, name)), ifaces[0] if ifaces else tb)
        if isinstance(tb, IfaceT):
            recv = getattr(e, "obj", None)  # (a default body's `self` is the concrete Self)
            if isinstance(T.base(ot), IfaceT) and _self_param(tb.iface, name) and not (
                    isinstance(recv, ast.Name) and recv.name == "self"):
                self.err(e.span, "E0001", f"method `{name}` on interface `{tb.iface.name}` uses `Self` in "
                         "more than one parameter, or nested in a parameter, so it requires a concrete "
                         "`Self`, not an erased one (an interface-existential or union)")
                return UNKNOWN
            return self.iface_member(e, tb, name)
        if isinstance(tb, T.PlanT):
            return _plan_member(tb, name)
        if sreflect.is_reflect(tb):
            return self.reflect_member(e, tb, name)
        if isinstance(tb, T.StdT) and (tb.name in stdsigs.STD_CLASSES or tb == T.CLIENT):
            return self.std_member(e, tb, name)
        if isinstance(tb, ClassT):
            cls = tb.cls
            if cls.field(name) is not None:
                return self.field_type(tb, name)
            m = cls.methods.get(name)
            if m is not None and m.impl is not None and _free_generics(m.impl):
                self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")
                return UNKNOWN  # `implements<T> I<T> for C`: called through an `I<…>` value only
            if m is not None and not m.decl.has_self:
                self.err(e.span, "E0001", f"method `{name}` has no `self` receiver, so it cannot "
                         f"be called on a value — qualify the type instead: `{cls.name}.{name}(...)`")
                return UNKNOWN
            if m is not None:
                return self.fn_type(m, self.specialized(e, m, self.class_env(tb)))
            ifaces = interfaces.ambiguous(cls, name)
            if ifaces:
                return self.ambiguous(e, show(ot), name, ifaces)
            if call and name == "hash" and name not in self.impl_names and _sure_scrutinee(tb):
                return _HASH_FN
            if call and name in ("eq", "neq") and name not in self.impl_names and (
                    len(tb.args) == len(cls.decl.generics) and _sure_scrutinee(tb)):
                return NativeFuncT((("other", tb, False),), BOOL, NEVER)  # Equals' `other: Self`
            if (not cls.impls and name not in _EVERY_TYPE_METHODS) or ((
                    name not in STDLIB_MEMBER_NAMES or name in _ANY_CLASS_ONLY) and name not in self.impl_names):
                self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")
            return UNKNOWN
        if isinstance(tb, EnumT) and tb.variant is not None and name not in _EVERY_TYPE_METHODS:
            self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")  # a variant's type: no impls
            return UNKNOWN
        if isinstance(tb, EnumT) and name in self.impl_names:
            ms = interfaces.builtin_methods(self.index, tb, name)
            if len(ms) == 1:
                e.direct = ms[0]  # `level.describe()`: its `implements … for Level` block's method
                return self.fn_type(ms[0])
        if (isinstance(tb, (EnumT, FuncT)) or tb in (_ENV_REF, T.TOP) or (tb is NEVER and isinstance(
                getattr(e, "obj", None), ast.Name))) and name not in _EVERY_TYPE_METHODS \
                and name not in self.impl_names:
            self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")
            return UNKNOWN
        if isinstance(tb, (T.Prim, Arr, MapT)) and tb not in (UNKNOWN, NEVER, VOID):
            if isinstance(tb, Arr) and ((_elem_lacks(tb.elem, name) and self.sure_type(tb.elem)
                                         and not T.has_tvar(tb.elem))
                                        or (name == "sort" and self.not_ordered(tb.elem))):
                self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")
                return UNKNOWN
            nf = self.native_method(tb, name)
            if nf is not None:
                return nf
            kind = _KIND_OF.get(type(tb)) or _KIND_OF.get(tb)
            rhs = _AMBIGUOUS_OPS.get(kind, {}).get(name)
            if rhs:
                iface = _OP_IFACES[name]
                return self.ambiguous(e, show(ot), name, [f"baml.ops.{iface}<{r}>" for r in rhs])
            ms = interfaces.builtin_methods(self.index, tb, name)
            if len(ms) > 1:
                return self.ambiguous(e, show(ot), name, [m.impl.iface.name if m.impl.iface else m.impl.std
                                                         for m in ms])
            if ms:
                e.direct = ms[0]  # `x.m()` on a builtin type: its `implements … for` block's method
                return self.fn_type(ms[0])
            kind = _KIND_OF.get(type(tb)) or _KIND_OF.get(tb)
            if isinstance(tb, (Arr, MapT)) and T.has_unknown(tb):
                v = self.lookup_var(e.obj.name) if isinstance(getattr(e, "obj", None), ast.Name) else None
                if v is not None and v.unpinned is not None and not v.used:
                    self.err(e.span, "E0155", "type annotations needed: the type of this value must "
                             f"be known before accessing `{name}`")
                return UNKNOWN
            known = (_ENGINE_MEMBERS[kind] | _EVERY_TYPE_METHODS) if kind in _ENGINE_MEMBERS \
                else STDLIB_MEMBER_NAMES
            if name not in known and (name not in self.impl_names or (  # no block for this type has it
                    isinstance(tb, T.Prim) and self.sure_type(tb))):
                self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")
            return UNKNOWN
        return UNKNOWN

    def reflect_member(self, e, tb: T.Type, name: str) -> T.Type:
        """A method of `reflect.Type` or of a kind view, or one all views of a union of them
        have (sema/reflect.py MEMBERS)."""
        found = sreflect.member(tb, name)
        if found is False:
            why = ": its members implement no common interface that declares `" + name + "`" \
                if isinstance(tb, Union) else ""
            self.err(e.span, "E0007", f"type `{show(tb)}` has no member `{name}`{why}")
            return UNKNOWN
        ret = found or UNKNOWN
        params = tuple((p, UNKNOWN, False) for p in sreflect.PARAMS.get(name, ()))
        return NativeFuncT(params, ret, NEVER)

    def ambiguous(self, e, owner: str, name: str, ifaces: list[str]) -> T.Type:
        self.err(e.span, "E0121", f"method `{name}` on class `{owner}` is declared by multiple "
                 f"interfaces: {', '.join(f'`{i}`' for i in ifaces)}; unqualified calls will be ambiguous")
        return UNKNOWN

    def iface_member(self, e, it: IfaceT, name: str) -> T.Type:
        """`x.name` on an interface value: a field or method of the interface or of one it
        requires; the call or read dispatches on x's run-time type (`e.dispatch`)."""
        for i in it.iface.ancestors():
            f = i.field(name)
            if f is not None:
                e.dispatch = (i, "field:" + name, it.positional() if i is it.iface else ())
                t = self.iface_field_type(i, f)
                gens, pos = i.decl.generics, it.positional()
                if i is it.iface and gens and len(pos) == len(gens) and not any(a is UNKNOWN for a in pos):
                    t = T.subst(t, {g.name: a for g, a in zip(gens, pos)})  # `Slot<int>.value`: an int
                return t
            m = i.methods.get(name)
            if m is not None:
                e.dispatch = (i, name, it.positional() if i is it.iface else ())
                return self.iface_method_type(m, it) if i is it.iface else self.fn_type(m)
        self.err(e.span, "E0007", f"type `{show(it)}` has no member `{name}`")
        return UNKNOWN

    def iface_method_type(self, m: FunctionDef, it: IfaceT) -> T.Type:
        """An interface method's type through a value of `it`: the interface's type parameters
        as its arguments (`Conv<int>.conv()` is an int), `Self.Item` as it binds it (or the
        associated type's default)."""
        names = it.names if len(it.names) == len(it.args) else (None,) * len(it.args)
        pos = [a for a, n in zip(it.args, names) if n is None]
        gens = it.iface.decl.generics
        env = {g.name: a for g, a in zip(gens, pos)} if len(pos) == len(gens) else {}
        binds = {n: a for a, n in zip(it.args, names) if n is not None}
        if not binds and not it.iface.decl.assoc:
            t = self.fn_type(m, env)
            t.through_iface = bool(env)
            return t
        save = (self.ns, self.generics)
        self.ns, self.generics = m.namespace, interfaces.generics_of(m)
        try:
            for n, _, default in it.iface.decl.assoc:
                if n not in binds and default is not None:
                    binds[n] = self.resolve(default, report=False)
            self.types.assoc = binds  # (not through `sig`, which keeps the unbound signature)
            ps = tuple((p.name, self.resolve(p.type, report=False) if p.type is not None else UNKNOWN,
                        p.default is not None) for p in m.decl.params)
            ret = self.resolve(m.decl.ret, report=False) if m.decl.ret is not None else UNKNOWN
            t = T.subst(FuncT(ps, ret, self.declared_throws(m)), env)
        finally:
            self.types.assoc = {}
            self.ns, self.generics = save
        t = FnRefT(t.params, t.ret, t.throws)
        t.fd = m
        t.through_iface = True  # a call takes this signature, not the method's own (`sig`)
        return t

    def std_variant(self, e, path: list[str]) -> T.Type:
        """`baml.regex.ErrorKind.Syntax`: a variant of a stdlib enum the checker models."""
        enum = ".".join(path[:3])
        if path[3] in stdsigs.STD_ENUM_VARIANTS[enum]:
            return T.StdT("variant", enum, path[3])
        self.err(e.span, "E0003", f"unresolved name: `{path[3]}`")
        return UNKNOWN

    def std_member(self, e, tb: T.StdT, name: str) -> T.Type:
        """A field or method of a stdlib class the checker models (sema/stdsigs.STD_CLASSES)."""
        if tb == _ENV_REF and name in _ENV_REF_METHODS:  # they read the environment: not run
            return _ENV_REF_METHODS[name]
        if tb == T.CLIENT or tb.name in stdsigs.CLIENT_CLASSES:  # `ai.Client`'s methods
            if name in stdsigs.CLIENT_METHODS:
                return NativeFuncT((), STRING, NEVER)
            if name in ("render", "invoke"):  # their result: not modelled; what they throw is
                return NativeFuncT((("input", UNKNOWN, False),), UNKNOWN, self.resolve(
                    _parse_std_type("ai.errors.InvokeError"), report=False))
            if name in stdsigs.CLIENT_SENDS:
                return UNKNOWN  # lowering: not supported (it renders or sends a request)
        field = stdsigs.STD_CLASSES.get(tb.name, {}).get(name)
        if field is not None:
            return self.resolve(_parse_std_type(field), report=False)
        methods = stdsigs.STD_CLASS_METHODS.get(tb.name, {})
        if name in methods or "*" in methods:
            return UNKNOWN  # a method value (a call is std_method_call's)
        rhs = [r for (op, c, r) in stdsigs.TIME_OPS if c == tb.name and _OP_METHOD_OF[op] == name]
        if len(rhs) > 1:  # `Multiply<int>` and `Multiply<bigint>`, `Subtract<Duration>` and `<Self>`
            return self.ambiguous(e, tb.name, name, [f"baml.ops.{_OP_IFACES[name]}<{r}>" for r in rhs])
        nf = self.native_method(tb, name)
        if nf is not None:
            return nf
        rt = sreflect.DATA_METHODS.get(tb.name, {}).get(name)
        if rt is not None:
            return NativeFuncT((), rt, NEVER) if rt is not UNKNOWN else UNKNOWN
        if name not in _EVERY_TYPE_METHODS and not (_is_time(tb) and name in stdsigs.CLOCK_READERS):
            self.err(e.span, "E0007", f"type `{tb.name}` has no member `{name}`")
        return UNKNOWN

    def std_field(self, ct: T.Type, name: str) -> T.Type:
        """A field of a stdlib class the checker models (unknown for others)."""
        ft = stdsigs.STD_CLASSES.get(ct.name, {}).get(name) if isinstance(ct, T.StdT) else None
        return self.resolve(_parse_std_type(ft), report=False) if ft is not None else UNKNOWN

    def std_class_lit(self, e, ct: T.StdT, fields: dict | None = None) -> T.Type:
        """`baml.regex.Match { … }`: its fields typed (`fields`: a stdlib error class's); a class
        holding runtime state (`Regex`'s `_handle`) is built only by its own functions (E0173)."""
        fields = stdsigs.STD_CLASSES[ct.name] if fields is None else fields
        if ct.name in stdsigs.STD_HANDLE_CLASSES:
            self.err(e.span, "E0173", f"class `{ct.name}` cannot be built with a class literal: its "
                     "field `_handle` holds state that only the class's own functions create")
        given = set()
        for name, val in e.entries:
            ft = fields.get(name) if name is not None else None
            given.add(name)
            if ft is None and name is not None:
                i = e.span.file.text.rfind(name, e.span.start, val.span.start)
                self.err(Span(e.span.file, i, i + len(name)) if i >= 0 else val.span, "E0007",
                         f"class `{ct.name}` has no field `{name}`")
            if name is None:
                self.expect(val, ct)  # `...base`: a value of the literal's own class
            elif ft is None:
                self.expr(val, UNKNOWN)
            else:
                self.expect(val, self.resolve(_parse_std_type(ft), report=False))
        if None not in given and ct.name not in stdsigs.STD_CLASS_KINDS and ct.name not in stdsigs.STD_HANDLE_CLASSES:
            missing = [f for f, ft in fields.items() if f not in given
                       and not assignable(NULL, self.resolve(_parse_std_type(ft), report=False))]
            if missing:
                self.err(e.span, "E0001", f"class `{ct.name}` is missing required fields: "
                         + ", ".join(f"`{f}`" for f in missing))
        return ct

    def std_method_call(self, e: ast.Call, name: str, sig: str, expected: T.Type) -> T.Type:
        """A method of a stdlib class typed by its signature (sema/stdsigs.STD_CLASS_METHODS):
        a type parameter missing from the call is the expected type's (`let a: int =
        rec.get("age")` reads an `int`, and is an `int?`), recorded for lowering (`std_targs`)."""
        gens, params, ret = _method_sig(sig, self)
        env = self.written_targs(e, gens, name)
        if env is None:
            return UNKNOWN
        core = T.strip_null(ret) if isinstance(ret, Union) else ret
        if isinstance(core, TVar) and core.name not in env and _sure_scrutinee(expected) \
                and not T.has_tvar(expected):
            env[core.name] = T.strip_null(expected) if core is not ret else expected
        missing = next((g for g in gens if g not in env), None)
        if missing is not None and getattr(e, "plain_let", False):
            self.err(e.span, "E0002", f"cannot infer type parameter `{missing}`")
        if gens:
            e.std_targs = [env.get(g, UNKNOWN) for g in gens]
        self.check_args(e, params, env)
        self.effects.sites[id(e)] = ("type", _std_throws(sig))
        ret = T.subst(ret, env) if T.has_tvar(ret) else ret
        return UNKNOWN if T.has_tvar(ret) or T.has_unknown(ret) else ret

    def any_class_call(self, e: ast.Call, f: ast.Field, expected: T.Type) -> T.Type:
        """A method of `reflect.AnyClass` (stdsigs.ANY_CLASS_METHODS), typed by its declaration;
        `get<T>`/`find<T>` keep their written type argument for lowering (a checked read)."""
        got = stdsigs.ANY_CLASS_METHODS.get(f.name)
        if got is None:
            self.err(f.span, "E0007", f"type `reflect.AnyClass` has no member `{f.name}`")
            self.args_unknown(e)
            return UNKNOWN
        sig, throws = got
        r = self.std_method_call(e, f.name, sig, expected)
        e.std_targs = None
        self.effects.sites[id(e)] = ("type", UNKNOWN if throws else NEVER)
        return r

    def written_targs(self, e: ast.Call, gens, name: str) -> dict | None:
        """The type arguments written on a stdlib call (None: a wrong count, E0005)."""
        if e.type_args and len(e.type_args) != len(gens):
            self.err(e.span, "E0005", f"function `{name}` expects {len(gens)} type argument(s), got "
                     f"{len(e.type_args)}")
            self.args_unknown(e)
            return None
        return {g: self.resolve(ta, report=False) for g, ta in zip(gens, e.type_args)}

    def std_call(self, e: ast.Call, path: str) -> T.Type:
        """A call of a (non-generic) stdlib function whose types the checker models."""
        _, params, ret = _typed_sig(path, self)
        self.check_args(e, params, {})
        return ret

    def iface_field_type(self, i: InterfaceDef, f) -> T.Type:
        save = (self.ns, self.generics)
        self.ns, self.generics = i.namespace, {g.name for g in i.decl.generics}
        t = self.resolve(f.type, report=False)
        self.ns, self.generics = save
        return t

    def native_method(self, tb: T.Type, name: str):
        kind = _KIND_OF.get(type(tb)) or _KIND_OF.get(tb)
        if kind is None:
            return None
        key = (kind, name)
        raw = self._native_cache.get(key, False)
        if raw is False:
            raw = _native_sig(kind, name, self)
            self._native_cache[key] = raw
        if raw is None:
            return None
        env = {"Self": tb}
        if isinstance(tb, Arr):
            env["T"] = tb.elem
        elif isinstance(tb, MapT):
            env["K"], env["V"] = tb.key, tb.val
        ps = tuple((n, T.subst(p, env), d) for n, p, d in raw.params)
        t = NativeFuncT(ps, T.subst(raw.ret, env), _std_throws(stdsigs.METHODS[kind][name]))
        t.strict = True  # its signature is exact: arity checked as declared
        t.through = _callback_throws(stdsigs.METHODS[kind][name])
        env = {**{v: TVar(v) for v in ("U", "R", "A", "B")}, **env}  # the method's own
        t.open = FuncT(tuple((n, T.subst(p, env), d) for n, p, d in raw.params), T.subst(raw.ret, env))
        t.generic = stdsigs.METHODS[kind][name].lstrip().startswith("<")
        return t

    def std_fn_value(self, path: str, sig: str) -> T.Type:
        """A stdlib function as a value (`xs.map(int.parse)`): its declared parameters, result
        and `throws` (unknown where a type in them is not modelled)."""
        _, params, ret = _typed_sig(path, self)
        th = _std_throws(sig)
        if any(T.has_unknown(t) for _, t, _ in params) or T.has_unknown(ret) or T.has_unknown(th) \
                or any(d for _, _, d in params):
            return UNKNOWN
        return NativeFuncT(tuple(params), ret, th)

    def iter_field(self, e, it: T.IterT, name: str) -> T.Type:
        """A field of `Range` / `Repeat` (their state is public); any other member is E0007."""
        t = _ITER_FIELDS.get(it.cls, {}).get(name)
        if t is None:
            if name not in _ITER_METHODS and not (name == "peek" and it.cls == "Peekable") or \
                    it.cls == "Iterable" and name != "iter":  # an Iterable's one method
                self.err(e.span, "E0007", f"type `{show(it)}` has no member `{name}`")
            return UNKNOWN
        e.iter_field = True  # lowering reads the iterator's state
        return it.item if t == "item" else Arr(it.item) if t == "items" else t

    def iter_method_call(self, e: ast.Call, f: ast.Field, it: T.IterT) -> T.Type:
        """A method of `baml.iter.Iterator` (ns_iter/iter.baml) on an iterator of `it.item`s: its
        arguments checked against the item type, its result the adapter's item or the terminal's."""
        name, item = f.name, it.item
        if name in _ITER_FIELDS.get(it.cls, {}):  # `repeat.count()`: the field, not the method
            self.err(e.span, "E0006", f"`{show(self.iter_field(f, it, name))}` is not a function and "
                     "cannot be called")
            self.args_unknown(e)
            return UNKNOWN
        shape = _ITER_METHODS.get(name, "" if name == "peek" and it.cls == "Peekable" else None)
        if it.cls == "Iterable" and name != "iter":
            shape = None  # `Iterable` declares `iter()` only
        if shape is None:
            self.err(f.span, "E0007", f"type `{show(it)}` has no member `{name}`")
            self.args_unknown(e)
            return UNKNOWN
        fn = lambda ret, *ps: FuncT(tuple((None, p, False) for p in ps), ret)  # noqa: E731
        params = {"pred": (("predicate", fn(BOOL, item), False),), "fn": (("fn", fn(UNKNOWN, item), False),),
                  "n": (("n", INT, False),), "other": (("other", T.iter_of(item, "Iterable"), False),), "": (),
                  "reduce": (("fn", fn(UNKNOWN, UNKNOWN, item), False), ("initial", UNKNOWN, False))}[
            shape.partition(":")[0]]
        self.check_args(e, params, {}, exact=True)
        r = _callback_result(e) if params and isinstance(params[0][1], FuncT) else UNKNOWN
        if name == "reduce" and r is UNKNOWN:
            r = _accumulator(e)
        # the chain's `Error`: the source's and each callback's (and chain's other side, flat_map's
        # inner iterables'); the adapters throw nothing, what drives the chain throws all of it
        errs = it.err + (self.through(e)[1][:1] if params and isinstance(params[0][1], FuncT) else ())
        errs += _iter_errs(e.args[0].value.ty if name == "chain" and e.args else r if name == "flat_map" else None)
        self.effects.sites[id(e)] = ("through", errs) if name in _ITER_DRIVERS else ("type", NEVER)
        return {"next": T.union(item, _DONE), "peek": T.union(item, _DONE), "collect": Arr(item),
                "count": INT, "some": BOOL, "every": BOOL, "for_each": VOID, "find": T.optional(item),
                "reduce": r, "peekable": T.IterT(item, "Peekable", errs),
                "map": T.iter_of(r, err=errs),
                "filter_map": T.iter_of(T.strip_null(r), err=errs) if r is not UNKNOWN else UNKNOWN,
                "flat_map": T.iter_of(_iterable_item(r), err=errs)}.get(name, T.IterT(item, err=errs))

    def native_targs(self, ft: FuncT, e: ast.Call) -> dict:
        """The type arguments of a generic stdlib method call: the plain arguments' first (the
        engine infers `reduce`'s `A` from `initial`), then the callbacks' declared results,
        a lambda whose result does not fit being a mismatch (E0001 at the lambda)."""
        given, made = _value_targs(ft, e), _lambda_results(ft, e)
        for (_, pt, _), a in zip(ft.params, e.args):
            if isinstance(pt, FuncT) and isinstance(a.value, ast.Lambda):  # `(a: float, …)` where A is int
                for (_, want, _), lp in zip(pt.params, a.value.params):
                    if isinstance(want, TVar) and want.name in given and lp.type is not None:
                        lt = self.resolve(lp.type, report=False)
                        if _sure_scrutinee(lt) and not assignable(given[want.name], lt):
                            self.err(a.value.span, "E0001", "mismatched types", f"expected a callback taking "
                                     f"`{show(given[want.name])}`, found `{show(lt)}`")
                            break
            if (isinstance(pt, FuncT) and isinstance(pt.ret, TVar) and pt.ret.name in given
                    and pt.ret.name in made and isinstance(a.value, ast.Lambda)
                    and not assignable(made[pt.ret.name], given[pt.ret.name])):
                if a.value.ret is None:  # an untyped lambda's body and `initial` disagree on A
                    self.err(e.span, "E0002", f"cannot infer type parameter `{pt.ret.name}`: its "
                             f"arguments give it the conflicting types `{show(given[pt.ret.name])}` "
                             f"and `{show(made[pt.ret.name])}`")
                    continue
                self.err(a.value.span, "E0001", "mismatched types",
                         f"expected a callback returning `{show(given[pt.ret.name])}`, found "
                         f"`{show(made[pt.ret.name])}`")
        return {**made, **given}

