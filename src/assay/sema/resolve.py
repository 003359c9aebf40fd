"""The one type resolver: a type expression, as written in a namespace, to a static type of
`types.py`. The checker, lowering (run-time type tests are compiled from its result by
`mir/typetest.py`), the bridge's argument conversion and mirx views all go through it.

A type alias resolves in its own namespace (`type Q = P | null` in `ns_a` means `a.P`, wherever
`root.a.Q` is written). `std` names the stdlib types a caller models (`baml.panics.Panic`,
`baml.errors.*`, `baml.ops.Ordering`); the checker passes none, so they stay unknown to it."""
from __future__ import annotations

from ..syntax import ast
from . import stdsigs, types as T
from .program import AliasDef, ClassDef, EnumDef, FunctionDef, InterfaceDef, ProgramIndex
from .stdnames import STDLIB_TYPE_NAMES, misplaced_error

BUILTIN_TYPE_ROOTS = frozenset("baml reflect testing ai llm env log assert openai anthropic google aws typesafeai vercel "
                               "claude_code".split())
PRIM_TYPES = {"int": T.INT, "float": T.FLOAT, "string": T.STRING, "bool": T.BOOL, "null": T.NULL,
              "void": T.VOID, "never": T.NEVER, "unknown": T.UNKNOWN, "bigint": T.BIGINT,
              "uint8array": T.BYTES}
OPAQUE_TYPES = frozenset("image audio video pdf".split())
# `baml.Int.max_value()`: the stdlib's names of the builtin carriers reach their statics
BAML_CARRIER_ALIASES = {"Int": "int", "Float": "float", "String": "string", "Bool": "bool"}


def carrier_path(path: list[str]) -> list[str]:
    """path with a leading `baml.Int` (`Float`, `String`, `Bool`) read as its carrier (`int`)."""
    if len(path) > 2 and path[0] == "baml" and path[1] in BAML_CARRIER_ALIASES:
        return [BAML_CARRIER_ALIASES[path[1]]] + path[2:]
    return path


class Resolver:
    """`resolve(te, ns, generics, err)`; `err(span, code, message)` receives what is surely
    wrong (None: resolve quietly). Aliases are resolved once, cycles read as unknown."""

    def __init__(self, index: ProgramIndex, std: dict | None = None, top: bool = False, iters: bool = False):
        self.index = index
        self.std = std or {}
        self.top = top  # `unknown` as written is T.TOP (the checker's reading of user code)
        self.iters = iters  # `baml.iter.Iterator<Item = X>` is T.IterT (the checker's; lowering: unknown)
        self._aliases: dict[int, T.Type] = {}
        self.assoc: dict[str, T.Type] = {}  # `Self.Item` as an implementation binds it (conformance)
        self._busy: set[int] = set()

    def alias(self, ad: AliasDef, err=None) -> T.Type:
        k = id(ad)
        t = self._aliases.get(k)
        if t is not None:
            return t
        if k in self._busy:
            return T.UNKNOWN
        self._busy.add(k)
        t = self.resolve(ad.type, ad.namespace, frozenset(), err)  # its own namespace
        self._busy.discard(k)
        if type(t) is T.Union:
            t = T.HiddenUnion(t.members)
        self._aliases[k] = t
        return t

    def resolve(self, te, ns, generics=frozenset(), err=None) -> T.Type:
        if te is None:
            return T.UNKNOWN
        if isinstance(te, ast.TName):
            return self._name(te, ns, generics, err)
        if isinstance(te, ast.TArray):
            return T.Arr(self.resolve(te.elem, ns, generics, err))
        if isinstance(te, ast.TOptional):
            return T.optional(self.resolve(te.inner, ns, generics, err))
        if isinstance(te, ast.TUnion):
            return T.union(*(self.resolve(m, ns, generics, err) for m in te.members))
        if isinstance(te, ast.TLiteral):
            return _literal(te.value)
        if isinstance(te, ast.TFunc):
            ps = tuple((n, self.resolve(p, ns, generics, err), False) for n, p in te.params)
            throws = self.resolve(te.throws, ns, generics, err) if te.throws is not None else None
            return T.FuncT(ps, self.resolve(te.ret, ns, generics, err), throws)
        return T.UNKNOWN

    def _name(self, te: ast.TName, ns, generics, err) -> T.Type:
        path = te.path
        args = [self.resolve(a, ns, generics, err) for a in te.args]
        if len(path) == 1:
            return self._bare(te, ns, generics, args, err)
        if self.iters and path == ["baml", "iter", "Iterator"] and te.names[:1] == ["Item"] and \
                set(te.names) <= {"Item", "Error"}:
            return T.iter_of(args[0], err=_error_pin(te, args))
        if self.iters and path == ["baml", "iter", "Range"] and not te.args:
            return T.IterT(T.INT, "Range")  # its fields `i`, `max`, `step` are read as the state's
        if self.iters and path == ["baml", "iter", "Iterable"]:
            return self.iterable(te, args, err)
        if path == ["reflect", "AnyFunction"] and (self.iters or "reflect.AnyFunction" in self.std):
            return self.any_function(te, args, err)
        head = path[0]
        if head == "Self" and len(path) == 2 and path[1] in self.assoc:
            return self.assoc[path[1]]
        if head == "root" or head in self.index.items_in(ns) or head in self.index.packages:
            item, k = self.index.resolve_prefix(ns, path)
            if item is not None:
                if k == len(path):
                    return self.item_type(item, args, err, te)
                if isinstance(item, EnumDef) and k == len(path) - 1 and path[k] in item.variants:
                    return T.EnumT(item, path[k])
                if err and isinstance(item, (EnumDef, ClassDef)):  # `E.Missing`, `E.A.b`, `P.x`
                    err(te.span, "E0002", f"unresolved type: {'.'.join(path)}")
                return T.UNKNOWN
            if head == "root" and err:
                err(te.span, "E0002", f"unresolved type: {'.'.join(path)}")
            return T.UNKNOWN
        if path == ["baml", "json", "json"]:
            return T.JSON
        if path == ["baml", "spawn", "Plan"]:
            args = [self.resolve(a, ns, generics, err) for a in te.args]
            return T.PlanT(*args) if len(args) == 2 else T.PlanT(T.UNKNOWN, T.UNKNOWN)
        std = self.std.get(".".join(path))
        if path == ["baml", "future", "Future"] and err and len(te.args) != 2:  # `Future<T, E>`
            err(te.span, "E0171", f"type `baml.future.Future` expects 2 type argument(s), got {len(te.args)}")
        if callable(std):  # a written `Future<T, E>`: what `await` gives and throws
            args = [self.resolve(a, ns, generics, err) for a in te.args]
            return std(*args) if len(args) == 2 else T.UNKNOWN
        if std is not None:
            return std
        if path[:2] == ["baml", "regex"] and self.std and err:  # a namespace the resolver models whole
            err(te.span, "E0002", f"unresolved type: {'.'.join(path)}")
            return T.UNKNOWN
        if head in self.index.namespaces and err and head != "reflect":  # `reflect`: the stdlib's
            p = ".".join(path)
            err(te.span, "E0002", f"unresolved type: {p}. Did you mean `root.{p}`?")
        elif err and (head in stdsigs.CLIENT_PACKAGES or head == "testing") and (
                path[-1] not in STDLIB_TYPE_NAMES or head == "testing" and len(path) > 2):
            err(te.span, "E0002", f"unresolved type: {'.'.join(path)}")  # `openai.NoSuchClient`
        elif err and (misplaced_std(path) or misplaced_error(path)):
            err(te.span, "E0002", f"unresolved type: {'.'.join(path)}")  # `baml.hash.Hash` is `baml.Hash`
        elif err and head == "baml" and len(path) > 1 and not STDLIB_TYPE_NAMES.intersection(path[-2:]):
            err(te.span, "E0002", f"unresolved type: {'.'.join(path)}")  # no stdlib type of that name
        elif err and head not in BUILTIN_TYPE_ROOTS and head not in generics and head != "Self":
            err(te.span, "E0002", f"unresolved type: {'.'.join(path)}")  # `iter.Done`: no package `iter`
        return T.UNKNOWN

    def iterable(self, te: ast.TName, args: list, err) -> T.Type:
        """`baml.iter.Iterable<Item = X>` (an existential: Item must be written)."""
        pins = dict(zip(te.names, args)) if len(te.names) == len(args) else {}
        if getattr(te, "bound", False):  # a bound is the interface itself (not modelled)
            return T.UNKNOWN
        if "Item" not in pins or not set(pins) <= {"Item", "Error"}:
            if err and not args:
                err(te.span, "E0001", "interface-existential type `baml.iter.Iterable` must specify "
                    "its associated type(s) `Item`")
            return T.UNKNOWN
        item = pins["Item"]  # `Iterable<Item = T>` keeps T: a call binds it from what it is given
        err = _error_pin(te, args)
        return T.IterT(item, "Iterable", err) if isinstance(item, T.TVar) else T.iter_of(item, "Iterable", err)

    def any_function(self, te: ast.TName, args: list, err) -> T.Type:
        """`reflect.AnyFunction<Returns = R, Throws = E>`; a pin not written is `unknown`."""
        names = te.names if len(te.names) == len(args) else [None] * len(args)
        bad = next((n for n in names if n not in ("Returns", "Throws")), False)
        if bad is not False:
            if err and bad is None:
                err(te.span, "E0001", f"type `AnyFunction` expects 0 type argument(s), got {names.count(None)}")
            elif err:
                err(te.span, "E0002", f"unresolved type: {bad}. Did you mean one of these: `Returns`, `Throws`?")
            return T.UNKNOWN
        top = T.TOP if self.top else T.UNKNOWN
        pins = dict(zip(names, args))
        return T.AnyFnT(pins.get("Returns", top), pins.get("Throws", top))

    def _bare(self, te: ast.TName, ns, generics, args, err) -> T.Type:
        n = te.path[0]
        if n in generics:
            return T.TVar(n)
        item = self.index.items_in(ns).get(n)
        if item is not None:
            return self.item_type(item, args, err, te)
        want = 0 if n in PRIM_TYPES or n == "json" else 2 if n == "map" else None
        if err and want is not None and any(getattr(te, "names", None) or ()):
            err(te.span, "E0171", f"builtin type `{n}` does not accept associated-type bindings")
        elif err and want is not None and len(te.args) != want:
            err(te.span, "E0171", f"type `{n}` expects {want} type argument(s), got {len(te.args)}")
        p = PRIM_TYPES.get(n)
        if p is not None:
            return T.TOP if p is T.UNKNOWN and self.top else p
        if n == "json":
            return T.JSON
        if n in ("Map", "Array") and self.top:
            pass  # no such type in user code (the engine's E0002 below): `map<K, V>`, `T[]`
        elif n in ("map", "Map"):
            if len(args) == 2 and err and self.top and not self.hashable(args[0]):
                err(te.span, "E0067", f"map keys must implement `baml.Hash`; got `{T.show(args[0])}`")
            return T.MapT(args[0], args[1]) if len(args) == 2 else T.MapT(T.UNKNOWN, T.UNKNOWN)
        elif n == "Array":
            return T.Arr(args[0]) if len(args) == 1 else T.Arr(T.UNKNOWN)
        if n in OPAQUE_TYPES or n in BUILTIN_TYPE_ROOTS and not self.top or n == "Self":
            return T.UNKNOWN  # (a package name alone, `baml`, is no type in user code)
        if err and not getattr(te, "placed", False):  # (a misplaced `_`: the checker's E0147)
            err(te.span, "E0002", f"unresolved type: {n}")
        return T.UNKNOWN

    def hashable(self, t: T.Type, seen: frozenset = frozenset()) -> bool:
        """Whether a map may be keyed by `t` (`baml.Hash`): not by a declared `unknown`, a
        function or a `reflect.Type`, nor by containers or classes holding one (a class by its
        fields, its type arguments substituted; one with its own `Equals` only with its own
        `Hash`). What the checker does not know passes."""
        if t is T.TOP or isinstance(t, (T.FuncT, T.AnyFnT)):
            return False
        if isinstance(t, T.StdT):
            return not t.name.startswith("reflect.")
        if isinstance(t, T.Arr):
            return self.hashable(t.elem, seen)
        if isinstance(t, T.MapT):
            return self.hashable(t.key, seen) and self.hashable(t.val, seen)
        if isinstance(t, T.Union):
            return all(self.hashable(m, seen) for m in t.members)
        if isinstance(t, T.ClassT) and id(t.cls) not in seen:
            own = {i.std for i in t.cls.impls}
            if "baml.Hash" in own:
                return True
            if "baml.ops.Equals" in own:
                return False  # a custom `eq` needs its own `Hash`
            env = {g.name: a for g, a in zip(t.cls.decl.generics, t.args)}
            gens = frozenset(env)
            inner = seen | {id(t.cls)}
            return all(self.hashable(T.subst(self.resolve(f.type, t.cls.namespace, gens), env) if env
                                     else self.resolve(f.type, t.cls.namespace, gens), inner)
                       for f in t.cls.fields)
        return True

    def item_type(self, item, args, err=None, te=None) -> T.Type:
        if isinstance(item, ClassDef):
            if err and te is not None and len(args) != len(item.decl.generics):
                err(te.span, "E0001", f"type `{item.name}` expects {len(item.decl.generics)} "
                    f"type argument(s), got {len(args)}")
            if item.decl.generics and len(args) != len(item.decl.generics):
                args = [T.UNKNOWN] * len(item.decl.generics)
            return T.ClassT(item, tuple(args))
        if isinstance(item, EnumDef):
            return T.EnumT(item)
        if isinstance(item, InterfaceDef):
            if err and te is not None:
                _check_iface_args(item, te, len(args), err)
            names = tuple(te.names) if te is not None and len(te.names) == len(args) else ()
            return T.IfaceT(item, tuple(args), names)
        if isinstance(item, AliasDef):
            return self.alias(item)
        if err and te is not None and isinstance(item, FunctionDef):  # a function (or global) is no type
            err(te.span, "E0002", f"unresolved type: {'.'.join(te.path)}")
        return T.UNKNOWN


def _check_iface_args(item: InterfaceDef, te: ast.TName, n: int, err) -> None:
    """`Conv` for `interface Conv<T>` (E0001: its type arguments are required, in a bound too);
    `Src` for an interface with `type Item` (E0001: an existential names every associated type
    without a default; a bound need not); `Src<Elem = int>` (E0002: no such associated type)."""
    names = list(te.names) if len(te.names) == n else [None] * n
    given, want = names.count(None), len(item.decl.generics)
    if given != want:
        err(te.span, "E0001", f"type `{item.name}` expects {want} type argument(s), got {given}")
    declared = [a[0] for a in item.decl.assoc]
    missing = [a[0] for a in item.decl.assoc if a[2] is None and a[0] not in names]
    if missing and given == want and not getattr(te, "bound", False):
        err(te.span, "E0001", f"interface-existential type `{item.name}` must specify its associated "
            f"type(s) {', '.join(f'`{m}`' for m in missing)}")
    for name in names:
        if name is not None and name not in declared:
            err(te.span, "E0002", f"unresolved type: {name}")


def mark_bounds(index) -> None:
    """Flag every generic bound's type (`T extends Src`): a bound names an interface without
    its associated types."""
    decls = [f.decl for f in index.functions.values()] + [c.decl for c in index.classes.values()] + \
        [i.decl for i in index.interfaces.values()] + [i.decl for i in index.impls]
    for d in decls:
        for g in getattr(d, "generics", ()):
            for b in g.bounds:
                b.bound = True


def _literal(v) -> T.Type:
    if v is None:
        return T.NULL
    if isinstance(v, bool):
        return T.lit_bool(v)
    if isinstance(v, ast.BigLit):
        return T.Lit(v, T.BIGINT)
    if isinstance(v, int):
        return T.lit_int(v)
    if isinstance(v, str):
        return T.lit_str(v)
    return T.UNKNOWN


# where the stdlib's common interfaces live: the same name under another `baml.…` path is no type
_STD_IFACE_HOME = {
    **{n: (f"baml.{n}",) for n in ("Hash", "ToString", "ToJson", "FromJson", "Concrete", "Summable", "Sortable")},
    **{n: (f"baml.ops.{n}",) for n in ("Equals", "Compare", "Add", "Subtract", "Multiply", "Divide", "Remainder",
                                       "Negate", "BitAnd", "BitOr", "BitXor", "ShiftLeft", "ShiftRight")},
    **{n: (f"baml.iter.{n}",) for n in ("Iterable", "Iterator")},
    "Hasher": ("baml.hash.Hasher", "baml.crypto.Hasher"), "InvokeError": ("ai.errors.InvokeError",)}


def _error_pin(te: ast.TName, args: list) -> tuple:
    """An iterator type's written `Error = E`, as the effect site of advancing it (none: never)."""
    pins = dict(zip(te.names, args)) if len(te.names) == len(args) else {}
    return (("type", pins["Error"]),) if "Error" in pins else ()


def misplaced_std(path: list) -> bool:
    """`baml.hash.Hash`, `baml.Equals`: a stdlib interface's name under a path it does not live at."""
    return path[0] == "baml" and ".".join(path) not in _STD_IFACE_HOME.get(path[-1], (".".join(path),))
