"""The checker's declarations: interfaces, impl blocks (user and stdlib interfaces), spawn modifiers, attributes, map-key types."""
from __future__ import annotations

from ...source import Span
from ...syntax import ast
from .. import stdifaces
from .. import types as T
from .. import interfaces
from ..program import FunctionDef, InterfaceDef
from ..types import NEVER, UNKNOWN, AnyFnT, FuncT, TVar, Union, assignable, show
from .common import MODIFIER, _loose


# the attributes the engine accepts, by declaration (in its order, for its messages)
_ATTRIBUTES = {
    "a class field": ("@description", "@alias", "@skip", "@stream.done", "@stream.must_exist"),
    "a class": ("@@description", "@@alias", "@@stream.done"),
    "an enum variant": ("@description", "@alias", "@skip"),
    "an enum": ("@@description", "@@alias"),
    "a function": (),
    "an interface": (),
}
_ATTRIBUTE_PLACES = ("a class field", "an enum variant", "a class", "an enum")  # the engine's order


def _same_types(got, want) -> bool:
    """Types resolved from two signatures are the same (None: not the shape wanted); what the
    checker does not know passes."""
    return got is not None and len(got) == len(want) and all(
        a == b or T.has_unknown(a) or T.has_unknown(b) for a, b in zip(got, want))


def _names_same_std(mine, want) -> bool:
    """A declared parameter of a stdlib type the checker does not model (`state:
    baml.hash.Hasher`, unknown to it) is matched by name: `state: int` does not conform."""
    if not (isinstance(want, ast.TName) and want.path[0] in ("baml", "ai")):
        return True
    return isinstance(mine, ast.TName) and mine.path == want.path


def _hole(te) -> "ast.TName | None":
    """The inference hole `_` a written `throws` type holds (`_`, `_ | int`), if any."""
    if isinstance(te, ast.TName):
        return te if te.path == ["_"] else None
    if isinstance(te, ast.TUnion):
        return next((h for h in map(_hole, te.members) if h is not None), None)
    return None


class ItemChecks:
    """Checker methods for declarations (mixed into `Checker`)."""

    def check_interface(self, idef: InterfaceDef) -> None:
        for d in idef.decl.methods:  # duplicates too (`methods` keeps one per name)
            hole = _hole(d.throws)
            if hole is not None and d.body is not None:  # a default body's `throws _`: none written
                self.err(hole.span, "E0170", f"interface method `{d.name}` on `{idef.name}` must "
                         "declare an explicit `throws` clause")
                continue
            if hole is not None:  # an interface's contract is written out, never inferred
                self.err(hole.span, "E0147", "the `_` wildcard type can only be inferred in a `let` "
                         "binding or a `throws` clause, not in a method signature `throws` clause")
                continue
            if d.throws is None:
                self.err(d.name_span, "E0170", f"interface method `{d.name}` on `{idef.name}` must "
                         "declare an explicit `throws` clause")
            elif d.body is None and idef.methods.get(d.name) is not None:  # what a call through it may throw
                self.effects.declared[id(idef.methods[d.name])] = _loose(self.resolve(d.throws, report=False))
            for p in d.params:
                if p.default is not None:
                    self.err(p.default.span, "E0010", "parameter defaults are not supported in method "
                             f"signature `{d.name}`")

    def check_impl(self, impl) -> None:
        """Each method of an implementation belongs to the interface and has its signature."""
        if impl.iface is None:
            if impl.std == MODIFIER:
                self.check_modifier(impl)
            elif impl.std is not None:
                self.check_std_impl(impl)
            return
        declared = {n: m for i in impl.iface.ancestors() for n, m in reversed(i.methods.items())}
        for name, m in impl.methods.items():
            want = declared.get(name)
            if want is None:
                self.err(m.decl.span, "E0115", f"`{name}` is not a method of interface `{impl.iface.name}`")
            elif not self.conforms(m, want):
                self.err(m.decl.span, "E0120", f"method `{name}` does not conform to interface "
                         f"`{impl.iface.name}`'s declared signature")

    def check_std_impl(self, impl) -> None:
        """The same for a stdlib interface (sema/stdifaces.py): its declared signatures with
        `Self` the implementing type, `Rhs` the block's type argument; a method may return a
        subtype of the declared result (`to_json(self) -> string`)."""
        idef = stdifaces.declared(impl.std)
        self.concrete_output(impl)
        for name in stdifaces.required(impl.std):
            if name not in impl.methods:
                self.err(impl.decl.interface.span, "E0113", f"missing implementation of method `{name}` "
                         f"required by interface `{impl.std}`")
        for name, m in impl.methods.items():
            if not stdifaces.is_member(impl.std, name):
                self.err(m.decl.span, "E0115", f"`{name}` is not a method of interface `{impl.std}`")
                continue
            want = idef.methods.get(name) if idef is not None else None
            if want is None:
                continue
            args = [a for a in impl.decl.interface.args if getattr(a, "binds", None) is None]
            env = {"Self": impl.target or UNKNOWN}
            if args and len(idef.decl.generics) > 1:
                env[idef.decl.generics[0].name] = self.resolve_in(m, args[0])
            (mp, mr), (wp, wr) = self.sig(m), self.bound_sig(want, impl)
            wp = [(n, T.subst(t, env), d) for n, t, d in wp]
            wr = T.subst(wr, env)
            # a parameter may take more than declared (`eq(self, o: P?)`), never less
            takes = lambda a, b: T.has_tvar(a) or T.has_tvar(b) or assignable(b, a)  # noqa: E731
            ok = (len(mp) == len(wp) and m.decl.has_self == want.decl.has_self
                  and (T.has_tvar(mr) or assignable(mr, wr)) and all(takes(a[1], b[1]) for a, b in zip(mp, wp))
                  and all(_names_same_std(a.type, b.type) for a, b, w in zip(m.decl.params, want.decl.params, wp)
                          if w[1] is UNKNOWN))
            if ok and m.decl.throws is not None:
                mt = self.resolve_in(m, m.decl.throws)
                ok = T.has_unknown(mt) or T.has_tvar(mt) or assignable(mt, self.resolve_in(want, want.decl.throws))
            if not ok:
                self.err(m.decl.span, "E0120", f"method `{name}` does not conform to interface "
                         f"`{impl.std}`'s declared signature")

    def concrete_output(self, impl) -> None:
        """An operator block's `type Output` is bound by `baml.Concrete` (E0001 at its name for
        a union, an optional, `unknown`, a function type or a type parameter)."""
        te = impl.decl.assoc.get("Output")
        if te is None or impl.std not in _CONCRETE_OUTPUTS:
            return
        t = self.resolve_in_impl(impl, te)
        if not _concrete(t):
            self.err(impl.decl.assoc_spans.get("Output", te.span), "E0001", f"associated type binding "
                     f"`Output` = `{show(t)}` does not implement bound `baml.Concrete` declared by "
                     f"interface `{impl.std}`")

    def resolve_in_impl(self, impl, te) -> T.Type:
        save = (self.ns, self.generics)
        cls = getattr(impl, "cls", None)
        self.ns = impl.namespace
        self.generics = {g.name for g in cls.decl.generics} if cls is not None else set()
        try:
            return self.resolve(te, report=False)
        finally:
            self.ns, self.generics = save

    def check_modifier(self, impl) -> None:
        """`implements<T, E> baml.spawn.Modifier<T, E> for C`: one method, `apply(self, plan:
        Plan<T, E>) -> Plan<Output, Error> throws ApplyError` (the associated types default to
        T, E and never), E0113 without it, E0115 for any other, E0120 for another signature."""
        for name, m in impl.methods.items():
            if name != "apply":
                self.err(m.decl.span, "E0115", f"`{name}` is not a method of interface `{MODIFIER}`")
        m = impl.methods.get("apply")
        if m is None:
            self.err(impl.decl.interface.span, "E0113", f"missing implementation of method `apply` "
                     f"required by interface `{MODIFIER}`")
            return
        save = (self.ns, self.generics)
        self.ns, self.generics = impl.namespace, interfaces.generics_of(m)
        try:
            args = [self.resolve(a, report=False) for a in impl.decl.interface.args
                    if getattr(a, "binds", None) is None]
            if len(args) != 2:
                return  # (E0001 at the interface already)
            assoc = {n: self.resolve(te, report=False) for n, te in impl.decl.assoc.items()}
            d = m.decl
            plan_of = lambda te: [self.resolve(a, report=False) for a in te.args] \
                if isinstance(te, ast.TName) and te.path == ["baml", "spawn", "Plan"] and len(te.args) == 2 \
                else None  # noqa: E731
            ok = d.has_self and len(d.params) == 1 and d.params[0].type is not None \
                and _same_types(plan_of(d.params[0].type), args) and d.ret is not None \
                and _same_types(plan_of(d.ret), [assoc.get("Output", args[0]), assoc.get("Error", args[1])]) \
                and (d.throws is None or _same_types([self.resolve(d.throws, report=False)],
                                                     [assoc.get("ApplyError", NEVER)]))
        finally:
            self.ns, self.generics = save
        if not ok:
            self.err(m.decl.span, "E0120", f"method `apply` does not conform to interface `{MODIFIER}`'s "
                     "declared signature")

    def conforms(self, m: FunctionDef, want: FunctionDef) -> bool:
        """False only when surely not: another arity or incompatible parameter/return types."""
        (mp, mr), (wp, wr) = self.sig(m), self.sig(want)
        if m.impl is not None and m.impl.decl.assoc and isinstance(want.owner, InterfaceDef):
            wp, wr = self.bound_sig(want, m.impl)
        if len(mp) != len(wp) or m.decl.has_self != want.decl.has_self:
            return False
        ok = lambda a, b: T.has_tvar(a) or T.has_tvar(b) or (assignable(a, b) and assignable(b, a))  # noqa: E731
        if m.decl.throws is not None and want.decl.throws is not None:  # it may throw only what the interface says
            mt, wt = self.resolve_in(m, m.decl.throws), self.resolve_in(want, want.decl.throws)
            if not any(T.has_unknown(x) or T.has_tvar(x) for x in (mt, wt)) and not assignable(mt, wt):
                return False
        return ok(mr, wr) and all(ok(a[1], b[1]) for a, b in zip(mp, wp))

    def resolve_in(self, fd: FunctionDef, te) -> T.Type:
        """Type expression `te` of function `fd`'s signature, in its namespace and generics."""
        save = (self.ns, self.generics)
        owner = getattr(fd.owner, "decl", None)
        self.ns = fd.namespace
        self.generics = {g.name for g in fd.decl.generics} | {g.name for g in getattr(owner, "generics", ())}
        try:
            return self.resolve(te, report=False)
        finally:
            self.ns, self.generics = save

    def bound_sig(self, want: FunctionDef, impl) -> tuple:
        """An interface method's signature with `Self.Item` as the implementation binds it."""
        save = (self.ns, self.generics)
        self.ns, self.generics = impl.namespace, {g.name for g in impl.decl.generics}
        binds = {n: self.resolve(te, report=False) for n, te in impl.decl.assoc.items()}
        self.ns, self.generics = want.namespace, interfaces.generics_of(want)
        self.types.assoc = binds
        try:
            ps = tuple((p.name, self.resolve(p.type, report=False) if p.type is not None else UNKNOWN,
                        p.default is not None) for p in want.decl.params)
            return ps, self.resolve(want.decl.ret, report=False) if want.decl.ret is not None else UNKNOWN
        finally:
            self.types.assoc = {}
            self.ns, self.generics = save

    def attributes(self, attrs, where: str) -> None:
        """E0015 for an attribute the engine does not know on this kind of declaration."""
        valid = _ATTRIBUTES[where]
        seen = set()
        for a in attrs:
            name = "@" * a.level + a.name
            if name in seen and name in valid:
                self.err(a.span, "E0014", f"duplicate attribute `{name}`: only the last takes effect")
            seen.add(name)
            if a.name in ("alias", "description") and (len(a.args) != 1 or isinstance(
                    a.args[0], (ast.IntLit, ast.FloatLit, ast.BoolLit, ast.NullLit))):
                self.err(a.span, "E0037", f"`@{a.name}` expects exactly one string argument")
            elif a.name in ("alias", "description") and isinstance(a.args[0], ast.Name):
                self.err(a.args[0].span, "E0037", f"`@{a.name}` expects a string, not a name")
            allowed = [f"`{v}` on {w}" for w in _ATTRIBUTE_PLACES for v in _ATTRIBUTES[w] if v.lstrip("@") == a.name]
            if name not in valid and allowed:
                self.err(a.span, "E0016", f"attribute `{name}` is not valid on {where}; allowed: "
                         + ", ".join(allowed))
            elif name not in valid:
                self.err(Span(a.span.file, a.span.start, a.span.start + len(name)), "E0015",
                         f"unknown attribute `{name}`; " + (f"valid on {where}: " + ", ".join(
                             f"`{v}`" for v in valid) if valid else f"no attribute is valid on {where}"))

    def hashable_keys(self, tes: list, generics) -> None:
        """E0067: a map keyed by a type parameter without bounds (`map<K, V>` for `f<K, V>`)."""
        free = {g.name for g in generics if not g.bounds}
        todo = [t for t in tes if t is not None]
        while todo:
            te = todo.pop()
            if isinstance(te, ast.TName):
                k = te.args[0] if te.path == ["map"] and len(te.args) == 2 else None
                if isinstance(k, ast.TName) and len(k.path) == 1 and k.path[0] in free and not k.args:
                    self.err(te.span, "E0067", f"map keys must implement `baml.Hash`; got `{k.path[0]}`")
                todo += te.args
            elif isinstance(te, ast.TArray):
                todo.append(te.elem)
            elif isinstance(te, ast.TOptional):
                todo.append(te.inner)
            elif isinstance(te, ast.TUnion):
                todo += te.members

    def duplicate_params(self, params, where: str) -> None:
        """E0012 at a parameter that repeats an earlier one's name (the engine's check)."""
        seen: dict[str, ast.Param] = {}
        for p in params:
            first = seen.setdefault(p.name, p)
            if first is not p:
                sp = first.span
                self.err(Span(p.span.file, p.span.start, p.span.start + len(p.name)), "E0012",
                         f"duplicate parameter `{p.name}` in `{where}`",
                         f"first defined as parameter here: {sp.file.path}:{sp.line_col[0]}:{sp.line_col[1]}")


# the stdlib operator interfaces whose `type Output` extends `baml.Concrete`
_CONCRETE_OUTPUTS = frozenset(f"baml.ops.{n}" for n in (
    "Add Subtract Multiply Divide Remainder Negate BitAnd BitOr BitXor ShiftLeft ShiftRight".split()))


def _concrete(t: T.Type) -> bool:
    """`baml.Concrete`: one named type (a primitive, literal, class, enum, container, null),
    not a union, `unknown`, a function type or a type parameter."""
    return not (isinstance(t, (Union, FuncT, AnyFnT, TVar)) or t is UNKNOWN or t is T.TOP or T.has_json(t))
