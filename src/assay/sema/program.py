"""The program's item index: every function, class, enum, type alias and test, by fully
qualified name, plus BAML's path-resolution rules (verified against baml_bridge 0.23.0):

- Inside namespace N (None = root), a bare name resolves only to items of N itself
  (a namespace file can NOT see root items unqualified, and root can NOT see `a.g`).
- `root.f` / `root.P` is the absolute path of a root item; `root.a.g` / `root.a.b.g` of an item
  of namespace `a` / `a.b` (nested folders nest namespaces). `a.g` (without `root.`) is an
  error everywhere, even inside namespace `a`; `user.f` is not a path either.
- `P.m` (same namespace) / `root.a.P.m` names a method (static call); `E.V` is an enum variant.
- Items of one namespace share one name space (class `f` + function `f` → E0011). The same name
  in different namespaces is fine.
- `root` cannot name an item/binding/type parameter (E0176). A root-level function named like
  a namespace folder is E0099.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ..source import Diagnostic, Span
from ..syntax import ast
from . import types as T


def _fqn(namespace: str | None, name: str) -> str:
    return f"user.{namespace}.{name}" if namespace else f"user.{name}"


@dataclass(eq=False)
class FunctionDef:
    fqn: str
    name: str
    namespace: str | None
    decl: ast.Function
    owner: "ClassDef | InterfaceDef | ImplDef | None"
    file: ast.File
    impl: "ImplDef | None" = None  # the `implements` block that defines this method

    def __repr__(self) -> str:
        return f"FunctionDef({self.fqn})"


@dataclass(eq=False)
class ClassDef:
    fqn: str
    name: str
    namespace: str | None
    decl: ast.ClassDecl
    fields: list[ast.ClassField]
    methods: dict[str, FunctionDef] = field(default_factory=dict)
    file: ast.File | None = None
    impls: list[ImplDef] = field(default_factory=list)
    iter_item: object = None  # what `for`-in over it yields (the checker's, where known)

    def field(self, name: str) -> ast.ClassField | None:
        for f in self.fields:
            if f.name == name:
                return f
        return None

    def __repr__(self) -> str:
        return f"ClassDef({self.fqn})"


@dataclass(eq=False)
class InterfaceDef:
    """`interface Name { … }`. `methods`: every declared method (owner = this interface; a
    default body is compiled once, with `self` typed as the interface); `requires` and `impls`
    are filled by sema.interfaces.link."""
    fqn: str
    name: str
    namespace: str | None
    decl: ast.InterfaceDecl
    file: ast.File | None = None
    methods: dict[str, FunctionDef] = field(default_factory=dict)
    requires: list["InterfaceDef"] = field(default_factory=list)
    std_requires: list[str] = field(default_factory=list)  # `requires baml.ops.Compare`
    impls: list["ImplDef"] = field(default_factory=list)
    variants: list[tuple] = field(default_factory=lambda: [()])  # type arguments seen, by number

    def variant(self, args: tuple) -> int:
        """The number of this interface at type arguments `args` (0: any)."""
        if not concrete(args):
            return 0
        if args not in self.variants:
            self.variants.append(args)
        return self.variants.index(args)

    def impls_at(self, args: tuple) -> list["ImplDef"]:
        """The implementations that serve this interface at type arguments `args`."""
        if not concrete(args):
            return self.impls
        return [i for i in self.impls if not concrete(i.args) or i.args == args]

    @property
    def fields(self) -> list[ast.ClassField]:
        return self.decl.fields

    def field(self, name: str) -> ast.ClassField | None:
        return next((f for f in self.decl.fields if f.name == name), None)

    def ancestors(self) -> list["InterfaceDef"]:
        """This interface and every interface it requires, transitively, nearest first."""
        out, todo = [], [self]
        while todo:
            i = todo.pop(0)
            if i not in out:
                out.append(i)
                todo.extend(i.requires)
        return out

    def implemented_by(self, t, args: tuple = (), binds: dict | None = None) -> bool:
        """Does a value of static type `t` implement this interface (at type arguments `args`,
        binding associated types as `binds` says, where its block's bindings are known)?"""
        if isinstance(t, T.IfaceT):
            return self in t.iface.ancestors() and (t.iface is not self or not concrete(args)
                                                    or not concrete(t.args) or t.args == args)
        for impl in self.impls_at(args):
            if (isinstance(t, T.ClassT) and impl.cls is t.cls) or (
                    impl.cls is None and impl.target is not None and target_matches(t, impl.target)):
                return not binds or all(impl.assoc_types.get(n) is None or T.same(impl.assoc_types[n], b)
                                        for n, b in binds.items() if concrete((b,)))
        return False

    def __repr__(self) -> str:
        return f"InterfaceDef({self.fqn})"


def concrete(args: tuple) -> bool:
    """Type arguments that select implementations: known, with no type parameter in them."""
    return bool(args) and not any(a is T.UNKNOWN or T.has_tvar(a) or T.has_unknown(a) for a in args)


def target_matches(t, target) -> bool:
    """Is static type `t` the builtin type an `implements … for target` block names?"""
    if isinstance(target, T.Arr):
        return isinstance(t, T.Arr) and (T.has_tvar(target) or T.assignable(t, target))
    if isinstance(target, T.MapT):
        return isinstance(t, T.MapT) and (T.has_tvar(target) or T.assignable(t, target))
    return T.base(t) == target


@dataclass(eq=False)
class ImplDef:
    """One `implements I { … }` block (in a class body) or `implements I for T { … }`:
    `iface` is the InterfaceDef (None for a stdlib interface, named by `std`); `cls` the class
    target (None for builtin targets, whose resolved type is `target`)."""
    decl: ast.ImplBlock
    namespace: str | None
    file: ast.File
    iface: InterfaceDef | None = None
    std: str | None = None
    cls: "ClassDef | None" = None
    target: object = None  # sema.types.Type of the implementing type
    args: tuple = ()  # the interface's type arguments (`implements Slot<int>`)
    methods: dict[str, FunctionDef] = field(default_factory=dict)
    assoc_types: dict = field(default_factory=dict)  # `type Item = int`, resolved (the checker's)

    @property
    def name(self) -> str:
        """The implementing type as BAML writes it (what a diagnostic calls the owner)."""
        return T.show(self.target) if self.target is not None else "?"

    def method(self, name: str) -> "FunctionDef | None":
        """The implementation of `name` for this block's type: its own, else the default."""
        m = self.methods.get(name)
        if m is None and self.iface is not None:
            for i in self.iface.ancestors():
                d = i.methods.get(name)
                if d is not None and d.decl.body is not None:
                    return d
        return m

    def field_name(self, name: str) -> str:
        """The class field behind interface field `name` (`name as other`)."""
        a = self.decl.aliases.get(name)
        return a[0] if a else name


@dataclass(eq=False)
class EnumDef:
    fqn: str
    name: str
    namespace: str | None
    decl: ast.EnumDecl
    variants: list[str]
    file: ast.File | None = None

    def __repr__(self) -> str:
        return f"EnumDef({self.fqn})"


@dataclass(eq=False)
class AliasDef:
    fqn: str
    name: str
    namespace: str | None
    decl: ast.TypeAlias
    type: ast.TypeExpr
    file: ast.File | None = None

    def __repr__(self) -> str:
        return f"AliasDef({self.fqn})"


@dataclass(eq=False)
class TestDef:
    name: str
    namespace: str | None
    file: ast.File
    decl: ast.TestDecl


Item = Union[FunctionDef, ClassDef, EnumDef, AliasDef, InterfaceDef]

_KIND = {FunctionDef: "function", ClassDef: "class", EnumDef: "enum", AliasDef: "type",
         InterfaceDef: "interface"}


class ProgramIndex:
    def __init__(self) -> None:
        self.functions: dict[str, FunctionDef] = {}
        self.classes: dict[str, ClassDef] = {}
        self.enums: dict[str, EnumDef] = {}
        self.aliases: dict[str, AliasDef] = {}
        self.interfaces: dict[str, InterfaceDef] = {}
        self.impls: list[ImplDef] = []  # every implementation block, in source order
        self.tests: list[TestDef] = []
        self.files: list[ast.File] = []
        # namespace (None = root) -> item name -> item (free functions, classes, enums, aliases)
        self.scopes: dict[str | None, dict[str, Item]] = {None: {}}
        self.namespaces: set[str] = set()
        # packages mounted under an alias (`reflect.Session`): `alias.X` names X from anywhere
        self.packages: set[str] = set()
        # some `catch (e, ctx)` reads an error's context: handlers track what they handle
        self.error_contexts = False

    # ── resolution ──
    def items_in(self, namespace: str | None) -> dict[str, Item]:
        return self.scopes.get(namespace, {})

    def resolve_prefix(self, namespace: str | None, path: list[str]) -> tuple[Item | None, int]:
        """Resolve the longest item prefix of `path` as written inside `namespace`. Returns
        (item, number of path segments consumed); a class followed by one of its methods
        consumes that too (→ the method's FunctionDef). (None, 0) when nothing resolves."""
        if not path:
            return None, 0
        if path[0] in self.packages and path[0] not in self.scopes.get(namespace, {}):
            path = ["root", *path]  # a mounted package's item
            item, n = self.resolve_prefix(namespace, path)
            return item, max(n - 1, 0)
        pkg = namespace.split(".")[0] if namespace else None
        if path[0] == "root" and pkg in self.packages and (len(path) < 2 or path[1] != pkg):
            path = ["root", pkg, *path[1:]]  # inside a mounted package, `root` is the package's own
            item, n = self.resolve_prefix(namespace, path)
            return item, max(n - 1, 0)
        if path[0] == "root":
            # root.<ns parts>.<item>: try the longest namespace prefix that exists
            best: tuple[Item | None, int] = (None, 0)
            for k in range(1, len(path)):
                ns = ".".join(path[1:k]) or None
                if ns is not None and ns not in self.namespaces:
                    break
                item = self.scopes.get(ns, {}).get(path[k])
                if item is not None:
                    best = (item, k + 1)
            item, n = best
        else:
            item = self.scopes.get(namespace, {}).get(path[0])
            n = 1 if item is not None else 0
        if item is None:
            return None, 0
        if isinstance(item, (ClassDef, InterfaceDef)) and n < len(path) and path[n] in item.methods:
            return item.methods[path[n]], n + 1
        return item, n

    def lookup(self, namespace: str | None, path: list[str]) -> Item | None:
        """Resolve a complete dotted path (see module doc for the rules); None when the whole
        path is not an item (or method)."""
        item, n = self.resolve_prefix(namespace, path)
        return item if item is not None and n == len(path) else None

    def all_items(self):
        yield from self.functions.values()
        yield from self.classes.values()
        yield from self.enums.values()
        yield from self.aliases.values()
        yield from self.interfaces.values()


def _kind(item: Item) -> str:
    return _KIND[type(item)]


def build_index(files: list[ast.File]) -> tuple[ProgramIndex, list[Diagnostic]]:
    index = ProgramIndex()
    diags: list[Diagnostic] = []
    # the engine processes files in path order (first definition wins)
    files = sorted(files, key=lambda f: f.source.path)
    index.files = files
    for f in files:
        ns = f.source.namespace
        if ns:
            parts = ns.split(".")
            for i in range(1, len(parts) + 1):
                index.namespaces.add(".".join(parts[:i]))
                index.scopes.setdefault(".".join(parts[:i]), {})

    def reserved(name: str, span: Span) -> None:
        if name == "root":
            diags.append(Diagnostic(span, "E0176", "`root` is the path to this package and cannot "
                                    "name a binding, an item, or a type parameter"))

    first: dict = {}  # (namespace, name) → where it was first defined (the duplicate's note)

    def add(ns: str | None, name: str, span: Span, item: Item) -> bool:
        reserved(name, span)
        scope = index.scopes.setdefault(ns, {})
        prev = scope.get(name)
        if prev is not None:
            k1, k2 = _kind(prev), _kind(item)
            msg = (f"duplicate {k2} `{name}`" if k1 == k2
                   else f"name `{name}` defined 2 times as: {k1}, {k2}")
            where = first.get((ns, name))
            notes = [f"first defined as {k1} here: {where.file.path}:{where.line_col[0]}:{where.line_col[1]}"] \
                if where is not None else []
            diags.append(Diagnostic(span, "E0011", msg, notes=notes))
            return False
        scope[name] = item
        first[(ns, name)] = span
        if ns is None and name in index.namespaces and isinstance(item, FunctionDef):
            diags.append(Diagnostic(span, "E0099", f"`{name}` is both a root-level function and "
                                    f"the namespace `ns_{name}/`"))
        return True

    for f in files:
        ns = f.source.namespace or None
        for it in f.items:
            if isinstance(it, ast.Function):
                for g in it.generics:
                    reserved(g.name, g.span)
                fd = FunctionDef(_fqn(ns, it.name), it.name, ns, it, None, f)
                if add(ns, it.name, it.name_span, fd):
                    index.functions[fd.fqn] = fd
            elif isinstance(it, ast.ClassDecl):
                cd = ClassDef(_fqn(ns, it.name), it.name, ns, it, list(it.fields), {}, f)
                seen: dict[str, str] = {}
                for fl in it.fields:
                    if fl.name in seen:
                        diags.append(Diagnostic(_name_span(fl.span, fl.name), "E0012",
                                                f"duplicate field `{it.name}.{fl.name}`"))
                    else:
                        seen[fl.name] = "field"
                for m in it.methods:
                    reserved(m.name, m.name_span)
                    for g in m.generics:
                        reserved(g.name, g.span)
                    if m.name in seen:
                        k = seen[m.name]
                        msg = (f"duplicate method `{it.name}.{m.name}`" if k == "method"
                               else f"name `{it.name}.{m.name}` defined 2 times as: {k}, method")
                        diags.append(Diagnostic(m.name_span, "E0012", msg))
                        continue
                    seen[m.name] = "method"
                    md = FunctionDef(f"{cd.fqn}.{m.name}", m.name, ns, m, cd, f)
                    cd.methods[m.name] = md
                for g in it.generics:
                    reserved(g.name, g.span)
                if add(ns, it.name, it.name_span, cd):
                    index.classes[cd.fqn] = cd
                    for md in cd.methods.values():
                        index.functions[md.fqn] = md
            elif isinstance(it, ast.EnumDecl):
                names: list[str] = []
                for v in it.variants:
                    if v.name in names:
                        diags.append(Diagnostic(_name_span(v.span, v.name), "E0012",
                                                f"duplicate variant `{it.name}.{v.name}`"))
                    else:
                        names.append(v.name)
                ed = EnumDef(_fqn(ns, it.name), it.name, ns, it, names, f)
                if add(ns, it.name, it.name_span, ed):
                    index.enums[ed.fqn] = ed
            elif isinstance(it, ast.TypeAlias):
                ad = AliasDef(_fqn(ns, it.name), it.name, ns, it, it.type, f)
                if add(ns, it.name, it.name_span, ad):
                    index.aliases[ad.fqn] = ad
            elif isinstance(it, ast.InterfaceDecl):
                idef = InterfaceDef(_fqn(ns, it.name), it.name, ns, it, f)
                for g in it.generics:
                    reserved(g.name, g.span)
                for m in it.methods:
                    if m.name in idef.methods:
                        diags.append(Diagnostic(m.name_span, "E0012", f"duplicate method `{it.name}.{m.name}`"))
                        continue
                    idef.methods[m.name] = FunctionDef(f"{idef.fqn}.{m.name}", m.name, ns, m, idef, f)
                if add(ns, it.name, it.name_span, idef):
                    index.interfaces[idef.fqn] = idef
                    for md in idef.methods.values():
                        if md.decl.body is not None:  # a default body: compiled once
                            index.functions[md.fqn] = md
            elif isinstance(it, ast.TestDecl):
                index.tests.append(TestDef(it.name, ns, f, it))
    for f in files:
        ns = f.source.namespace or None
        for it in f.items:
            if isinstance(it, ast.ClassDecl) and index.classes.get(_fqn(ns, it.name)) is not None:
                cd = index.classes[_fqn(ns, it.name)]
                if cd.decl is it:
                    index.impls += [ImplDef(d, ns, f, cls=cd) for d in it.impls]
        index.impls += [ImplDef(d, ns, f) for d in f.impls]
    return index, diags


def _name_span(span: Span, name: str) -> Span:
    """The span of `name` at/after the start of `span` (fields/variants carry no name_span)."""
    text = span.file.text
    i = text.find(name, span.start, max(span.end, span.start + len(name)))
    if i < 0:
        return span
    return Span(span.file, i, i + len(name))
