"""Interfaces: linking every `implements` block to its interface and its implementing type,
and the method tables that follow (verified against baml_bridge 0.23.0).

- A class's methods are its own, then those of its `implements` blocks, then the default
  methods of the interfaces it implements (and of those they require); a name two blocks
  define is reachable only through the interface (`x.as<I>.m()`), not directly.
- A builtin type (`implements I for int`, `implement<T> I for T[]`) gets methods the same way.
- A call through an interface-typed value dispatches on the run-time type to the implementation
  of that interface (mir builds one dispatcher per interface method: `dispatcher_fqn`).
- Stdlib interfaces (`baml.ops.Add`, `baml.ToString`, `baml.iter.Iterable`, …) have no
  declaration here: their blocks only add methods, which the VM hooks into operators,
  rendering, sorting and `for`-in.
"""
from __future__ import annotations

from ..source import Diagnostic, Span
from ..syntax import ast
from . import types as T
from .stdnames import STDLIB_TYPE_NAMES
from .program import ClassDef, FunctionDef, ImplDef, InterfaceDef, ProgramIndex, target_matches
from .resolve import mark_bounds, misplaced_std

DISPATCH = "$dispatch"  # suffix of a dispatcher's fqn: `user.Shape.area$dispatch`


def dispatcher_fqn(iface: InterfaceDef, name: str, args: tuple = ()) -> str:
    """The function that dispatches `name` (a method or an interface field, `field:NAME`) of
    `iface` (with type arguments `args`, when known: `Slot<int>` and `Slot<string>` are
    implemented apart) on its receiver's run-time type."""
    k = iface.variant(args)
    return f"{iface.fqn}.{name}{DISPATCH}" + (str(k) if k else "")


# stdlib interfaces a user interface may require (no type arguments, no associated types)
_STD_REQUIRABLE = frozenset(("baml.ops.Equals", "baml.ops.Compare", "baml.Hash", "baml.ToString"))


def link(index: ProgramIndex, resolver) -> list[Diagnostic]:
    diags: list[Diagnostic] = []
    mark_bounds(index)
    for idef in index.interfaces.values():
        for te in idef.decl.requires:
            r = _interface(index, idef.namespace, te)
            if isinstance(r, InterfaceDef):
                idef.requires.append(r)
            elif _show_path(te) in _STD_REQUIRABLE and not te.args:
                idef.std_requires.append(_show_path(te))
            else:
                diags.append(Diagnostic(te.span, "E0002", f"unresolved type: {_show_path(te)}"))
    for impl in list(index.impls):
        _link_impl(index, resolver, impl, diags)
    _overlapping(index, diags)
    _expand_blankets(index, resolver)
    for impl in index.impls:
        _check_complete(impl, index, diags)
        if impl.std == "baml.iter.Iterator" and impl.cls is not None and not any(
                i.std == "baml.iter.Iterable" for i in impl.cls.impls):
            diags.append(Diagnostic(impl.decl.interface.span, "E0125", "implementing `baml.iter.Iterator` "
                                    "also requires implementing `baml.iter.Iterable`"))
        if impl.iface is not None and impl.cls is not None:
            for req in (r for i in impl.iface.ancestors() for r in i.std_requires):
                if req == "baml.ops.Compare" and not any(i.std == req for i in impl.cls.impls):
                    # (every class has `Equals`, `Hash` and `ToString` of its own)
                    diags.append(Diagnostic(impl.decl.interface.span, "E0125", f"implementing "
                                            f"`{impl.iface.name}` also requires implementing `{req}`"))
                    break
    for cd in index.classes.values():
        _class_methods(cd)
    index.builtin_impls = [i for i in index.impls if i.cls is None and i.target is not None]
    return diags


def _overlapping(index: ProgramIndex, diags: list) -> None:
    """E0132: one type implementing one interface (at the same type arguments) twice, reported
    at the later block."""
    seen: dict = {}
    for impl in index.impls:
        if impl.iface is None or impl.target is None:
            continue
        key = (id(impl.iface), impl.args, impl.cls.fqn if impl.cls is not None else impl.target)
        first = seen.setdefault(key, impl)
        if first is not impl:
            later = max((first, impl), key=lambda i: (i.file is impl.file, i.decl.interface.span.start))
            at = later.decl.interface.span if later.cls is not None else later.decl.span  # a builtin's: the block
            diags.append(Diagnostic(at, "E0132", "overlapping interface implementations for the same "
                                    "receiver/interface"))


def _blanket_bounds(index: ProgramIndex, resolver, impl: ImplDef) -> list | None:
    """`implements<T extends A & B> I for T`: the interfaces bounding T (None: not blanket)."""
    t = impl.target
    if not isinstance(t, T.TVar):
        return None
    g = next((g for g in impl.decl.generics if g.name == t.name), None)
    bounds = [resolver.resolve(b, impl.namespace) for b in g.bounds] if g is not None else []
    return [b.iface for b in bounds if isinstance(b, T.IfaceT)]


def _expand_blankets(index: ProgramIndex, resolver) -> None:
    """A blanket implementation applies to every type implementing its bounds: one implementation
    per such type, sharing the blanket's methods (compiled once, `self` typed by the bounds);
    blankets over blankets settle after a few rounds."""
    blankets = [(i, _blanket_bounds(index, resolver, i)) for i in index.impls]
    blankets = [(i, b) for i, b in blankets if b is not None]
    for impl, _ in blankets:
        index.impls.remove(impl)
        if impl.iface is not None:
            impl.iface.impls.remove(impl)
    for _ in range(4):
        added = False
        for impl, bounds in blankets:
            for target in _implementing_types(bounds):
                if impl.iface is None or any(o.target == target for o in impl.iface.impls):
                    continue
                cls = target.cls if isinstance(target, T.ClassT) else None
                copy = ImplDef(impl.decl, impl.namespace, impl.file, iface=impl.iface, cls=cls, target=target,
                               args=impl.args, methods=impl.methods)
                impl.iface.impls.append(copy)
                index.impls.append(copy)
                if cls is not None:
                    cls.impls.append(copy)
                added = True
        if not added:
            break


def _implementing_types(bounds: list[InterfaceDef]) -> list:
    if not bounds:
        return []
    out = [i.target for i in bounds[0].impls if i.target is not None]
    return [t for t in out if all(b.implemented_by(t) for b in bounds[1:])]


def _show_path(te) -> str:
    return ".".join(te.path) if isinstance(te, ast.TName) else "?"


def _interface(index: ProgramIndex, ns, te):
    """An InterfaceDef, a stdlib interface's dotted name, or None."""
    if not isinstance(te, ast.TName):
        return None
    item = index.lookup(ns, te.path)
    if isinstance(item, InterfaceDef):
        return item
    if te.path[0] == "baml" and te.path[-1] in STDLIB_TYPE_NAMES and not misplaced_std(te.path):
        return ".".join(te.path)
    if te.path == ["ai", "Client"]:  # a user LLM client (its methods' contracts are not checked)
        return "ai.Client"
    return None


# stdlib interfaces: their number of type arguments and the associated types an implementation
# binds (`implements baml.ops.Add<Money> { type Output = Money; … }`)
_STD_SHAPE = {"baml.iter.Iterable": (0, ("Item",)), "baml.iter.Iterator": (0, ("Item",)),
              **{f"baml.ops.{n}": (1, ("Output",)) for n in (
                  "Add", "Subtract", "Multiply", "Divide", "Remainder", "BitAnd", "BitOr", "BitXor",
                  "ShiftLeft", "ShiftRight")},
              "baml.spawn.Modifier": (2, ())}  # `Output`, `Error`, `ApplyError` have defaults


def _link_impl(index: ProgramIndex, resolver, impl: ImplDef, diags: list) -> None:
    d = impl.decl
    r = _interface(index, impl.namespace, d.interface)
    if r is None:
        diags.append(Diagnostic(d.interface.span, "E0002", f"unresolved type: {_show_path(d.interface)}"))
        return
    given = sum(1 for a in d.interface.args if getattr(a, "binds", None) is None)
    want, assoc = (len(r.decl.generics), ()) if isinstance(r, InterfaceDef) else _STD_SHAPE.get(r, (None, ()))
    if want is not None and given != want and (given > want or not isinstance(r, InterfaceDef)):
        diags.append(Diagnostic(d.interface.span, "E0001", f"type `{d.interface.path[-1]}` expects "
                                f"{want} type argument(s), got {given}"))
    for name in assoc:
        if name not in d.assoc:
            diags.append(Diagnostic(d.interface.span, "E0001", f"missing associated type binding `{name}` "
                                    f"for interface `{r}` (add `type {name} = …` to the implements block)"))
    if isinstance(r, InterfaceDef):
        for name, _, default in r.decl.assoc:
            if default is None and name not in d.assoc:
                diags.append(Diagnostic(d.interface.span, "E0001", f"missing associated type binding "
                                        f"`{name}` for interface `{r.name}` (add `type {name} = …` to the implements block)"))
        impl.iface = r
        r.impls.append(impl)
        n = len(r.decl.generics)  # the parser keeps `Item = T` bindings after the arguments
        impl.args = tuple(resolver.resolve(a, impl.namespace, frozenset(g.name for g in d.generics))
                          for a in d.interface.args[:n]) if n else ()
    else:
        impl.std = r
    generics = frozenset(g.name for g in d.generics)
    if impl.cls is None:
        t = resolver.resolve(d.target, impl.namespace, generics)
        if isinstance(t, T.ClassT):
            impl.cls = t.cls
        elif t is T.UNKNOWN:
            diags.append(Diagnostic(d.target.span, "E0002", f"unresolved type: {_show_path(d.target)}"))
            return
        elif not _single_concrete(t):
            diags.append(Diagnostic(d.target.span, "E0138", f"cannot implement an interface for {T.show(t)} "
                                    "— the target must be a single concrete type"))
        impl.target = t
    if isinstance(r, InterfaceDef) and r.fields and d.target is not None:
        diags.append(Diagnostic(d.interface.span, "E0126", f"interface `{r.name}` declares fields and can "
                                "only be implemented in the class body, not out-of-body"))
    if impl.cls is not None:
        impl.cls.impls.append(impl)
        impl.target = T.ClassT(impl.cls, tuple(T.TVar(g.name) for g in impl.cls.decl.generics))
        if isinstance(r, InterfaceDef) and d.target is None:
            _class_fields(resolver, impl, r, diags)
    for m in d.methods:
        if m.name in impl.methods:
            diags.append(Diagnostic(m.name_span, "E0012", f"duplicate method `{m.name}`"))
            continue
        impl.methods[m.name] = FunctionDef(_method_fqn(index, impl, m.name), m.name, impl.namespace, m,
                                           impl.cls or impl, impl.file, impl)
        index.functions[impl.methods[m.name].fqn] = impl.methods[m.name]


def _class_fields(resolver, impl: ImplDef, r: InterfaceDef, diags: list) -> None:
    """The class has each field the interface declares (E0124), at exactly its type (E0116)."""
    at = impl.decl.interface.span
    targs = dict(zip((g.name for g in r.decl.generics), impl.args))
    for f in r.fields:
        cf = impl.cls.field(impl.field_name(f.name))
        link = impl.decl.aliases.get(f.name)
        if cf is None and link is not None:  # `name as label`: at `label`
            sp = link[1]
            diags.append(Diagnostic(Span(sp.file, sp.end - len(link[0]), sp.end), "E0129",
                                    f"class `{impl.cls.name}` has no field `{link[0]}` to link for interface `{r.name}`"))
            continue
        if cf is None:
            diags.append(Diagnostic(at, "E0124", f"missing field `{f.name}` required by interface `{r.name}` "
                                    f"(add a class field named `{f.name}` or link one with `{f.name} as <class_field>`)"))
            continue
        ft = T.subst(resolver.resolve(f.type, r.namespace, frozenset(targs)), targs) if targs else \
            resolver.resolve(f.type, r.namespace, frozenset())
        ct = resolver.resolve(cf.type, impl.cls.namespace, frozenset(g.name for g in impl.cls.decl.generics))
        if T.has_tvar(ft) or T.has_tvar(ct) or T.has_unknown(ft) or T.has_unknown(ct):
            continue
        if ft != ct:
            diags.append(Diagnostic(at, "E0116", f"field `{f.name}` has type {T.show(ct)}, but interface "
                                    f"`{r.name}` declares it as {T.show(ft)}"))


def _single_concrete(t) -> bool:
    """May `implements I for t` name t? Not a union (an optional), a literal, a function type, an
    interface or `unknown` (an alias counts as what it names)."""
    if isinstance(t, T.Prim):
        return t.name != "unknown"
    return isinstance(t, (T.Arr, T.MapT, T.ClassT, T.EnumT, T.TVar, T.StdT)) and not (
        isinstance(t, T.EnumT) and t.variant is not None) and not (isinstance(t, T.StdT) and t.kind == "iface")


def _method_fqn(index: ProgramIndex, impl: ImplDef, name: str) -> str:
    iface = impl.iface.name if impl.iface is not None else impl.std.rsplit(".", 1)[-1]
    if impl.cls is not None:
        plain = f"{impl.cls.fqn}.{name}"
        return plain if plain not in index.functions else f"{impl.cls.fqn}.{iface}.{name}"
    k = index.impls.index(impl)
    ns = f"{impl.namespace}." if impl.namespace else ""
    return f"user.{ns}{iface}.impl{k}.{name}"


def _check_complete(impl: ImplDef, index: ProgramIndex, diags: list) -> None:
    """Every required method implemented; every required interface implemented too."""
    if impl.iface is None or impl.target is None:
        return
    span = impl.decl.interface.span
    for i in impl.iface.ancestors():
        for name, m in i.methods.items():
            if m.decl.body is None and impl.method(name) is None and not _implements_elsewhere(impl, i, name, index):
                diags.append(Diagnostic(span, "E0113", f"missing implementation of method `{name}` "
                                        f"required by interface `{i.name}`"))
    for req in impl.iface.requires:
        if not any(o.iface is req for o in _sibling_impls(impl, index)):
            diags.append(Diagnostic(span, "E0125", f"implementing `{impl.iface.name}` also requires "
                                    f"implementing `{req.name}`"))


def _sibling_impls(impl: ImplDef, index: ProgramIndex) -> list[ImplDef]:
    """Every implementation for the same type as `impl`."""
    if impl.cls is not None:
        return impl.cls.impls
    return [o for o in index.impls if o.cls is None and o.target == impl.target]


def _implements_elsewhere(impl: ImplDef, iface: InterfaceDef, name: str, index: ProgramIndex) -> bool:
    """A required interface's method may be implemented in that interface's own block."""
    return iface is not impl.iface and any(o.iface is iface and o.method(name) is not None
                                           for o in _sibling_impls(impl, index))


def _class_methods(cd: ClassDef) -> None:
    """Add the methods of `cd`'s implementations that a plain `x.m()` reaches: those only one
    block (or default) provides, and not shadowed by the class's own members."""
    found: dict[str, list[FunctionDef]] = {}
    for impl in cd.impls:
        names = set(impl.methods)
        if impl.iface is not None:
            names |= {n for i in impl.iface.ancestors() for n in i.methods}
        for n in names:
            m = impl.method(n)
            if m is not None and m not in found.setdefault(n, []):
                found[n].append(m)
    for n, ms in found.items():
        if n in cd.methods or cd.field(n) is not None:
            continue
        if len(ms) == 1:
            cd.methods[n] = ms[0]


def closed(t: T.Type) -> T.Type:
    """`t` with every interface replaced by the union of its implementing types: what a value
    of it can be at run time (the program is closed: every implementation is known)."""
    if isinstance(t, T.IfaceT):
        return T.union(*(closed(i.target) for i in t.iface.impls_at(t.positional()) if i.target is not None))
    if isinstance(t, T.Arr):
        return T.Arr(closed(t.elem))
    if isinstance(t, T.MapT):
        return T.MapT(t.key, closed(t.val))
    if isinstance(t, T.Union):
        return T.union(*(closed(m) for m in t.members))
    return t


def self_type(owner) -> T.Type:
    """The type of `self` in a method of `owner` (a class, an interface, a builtin impl)."""
    if isinstance(owner, ClassDef):
        return T.ClassT(owner, tuple(T.TVar(g.name) for g in owner.decl.generics))
    if isinstance(owner, InterfaceDef):
        return T.IfaceT(owner, tuple(T.TVar(g.name) for g in owner.decl.generics))
    if isinstance(owner, ImplDef):
        return owner.target or T.UNKNOWN
    return T.UNKNOWN


def call_generics(fd: FunctionDef) -> list:
    """The type parameters a call of `fd` binds (written `f<…>` or inferred): its own, after
    its class's for a static method of a generic class (`Box.pair<int, string>`: Box's T, then
    pair's U, as the engine takes them); a method's class's come from its receiver."""
    o = fd.owner
    if o is not None and type(o).__name__ == "ClassDef" and not fd.decl.has_self:
        return list(o.decl.generics) + list(fd.decl.generics)
    return list(fd.decl.generics)


def generics_of(fd: FunctionDef) -> set[str]:
    """The type parameters in scope in `fd`: its own and its owner's."""
    out = {g.name for g in fd.decl.generics}
    if fd.owner is not None:
        out |= {g.name for g in fd.owner.decl.generics}
    if fd.impl is not None and fd.impl is not fd.owner:  # `implements<T, E> I<T, E> for C`
        out |= {g.name for g in fd.impl.decl.generics}
    return out


def builtin_methods(index: ProgramIndex, t: T.Type, name: str) -> list[FunctionDef]:
    """The methods `name` that `implements I for <builtin type>` blocks give values of type
    `t` (more than one: an ambiguous call, E0121)."""
    out = []
    for impl in getattr(index, "builtin_impls", ()):
        if target_matches(t, impl.target):
            m = impl.method(name)
            if m is not None and m not in out:
                out.append(m)
    return out


def ambiguous(cd: ClassDef, name: str) -> list[str]:
    """The interfaces whose blocks in `cd` each define `name` (when more than one)."""
    out = [i.iface.name if i.iface else i.std for i in cd.impls if i.method(name) is not None]
    return out if len(out) > 1 else []
