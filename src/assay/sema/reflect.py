"""`reflect.Type` descriptors: a BAML type as plain, hashable data, so MIR can hold one as a
constant, bex can build one from a run-time value, and both render and compare them as the
engine does (baml_bridge 0.23.0: `reflect.Type.of<T>()`, `reflect.Type.of_value(v)`).

A descriptor is a tuple:
  ('prim', name)            int float string bool null bigint uint8array unknown never
  ('lit', value)            1, "a", true          ('blit', int)   a bigint literal: 1n
  ('class', fqn, args)      a user class (`user.p.Box`) or a stdlib class (`baml.errors.X`);
                            another program's (`reflect.Session`) adds the name it renders as
  ('enum', fqn) ('variant', fqn, name) ('iface', fqn, args)
  ('array', elem) ('map', key, value) ('union', members)   members in written order
  ('fn', ((name, desc, optional), ...), ret, throws)
  ('tvar', k)               the k-th type parameter of the enclosing generic function
  ('reflect', name)         a value of `reflect.Type` or of one of its kind views
  ('json',)                 `json` (`baml.json.json`): equal to the union it is made of

`Reflector` answers the questions that need the program: `implements`, a class's fields, an
enum's variants, the static type behind a descriptor.
"""
from __future__ import annotations

import json

from ..source import SourceFile
from ..syntax import ast
from ..syntax.parser import parse_type
from . import stdsigs
from .interfaces import DISPATCH
from . import types as T
from .program import ClassDef, EnumDef, ProgramIndex

UNKNOWN = ("prim", "unknown")
NULL = ("prim", "null")
JSON = ("json",)
# `json` as the union it is made of (`null | bool | … | json[] | map<string, json>`)
JSON_UNION = ("union", tuple(("prim", p) for p in ("null", "bool", "int", "bigint", "float", "string"))
              + (("array", JSON), ("map", ("prim", "string"), JSON)))
NEVER = ("prim", "never")
_RNG_CLASSES = frozenset(f"baml.random.{c}" for c in ("SystemRandom", "Xoshiro256PlusPlus", "ChaCha20"))
RUST_TYPE = ("prim", "$rust_type")  # the engine's opaque native slot (`HostCallable._handle`)
_PRIM_NAMES = {"void": "null"}


def describe(t: T.Type, tparams: tuple = ()) -> tuple:
    """The descriptor of static type `t`; a type variable named in `tparams` (the enclosing
    function's type parameters) becomes ('tvar', k), any other unknown part `unknown`."""
    if isinstance(t, T.Prim):
        return ("prim", _PRIM_NAMES.get(t.name, t.name))
    if isinstance(t, T.Lit):
        return ("blit", int(t.value)) if t.base is T.BIGINT else ("lit", t.value)
    if isinstance(t, T.TVar):
        return ("tvar", tparams.index(t.name)) if t.name in tparams else UNKNOWN
    if isinstance(t, T.Arr):
        return ("array", describe(t.elem, tparams))
    if isinstance(t, T.MapT):
        return ("map", describe(t.key, tparams), describe(t.val, tparams))
    if isinstance(t, T.Union):
        return ("union", tuple(describe(m, tparams) for m in t.members))
    if isinstance(t, T.ClassT):
        return ("class", t.cls.fqn, tuple(describe(a, tparams) for a in t.args))
    if isinstance(t, T.IfaceT):
        return ("iface", t.iface.fqn, tuple(describe(a, tparams) for a in t.args))
    if isinstance(t, T.EnumT):
        return ("variant", t.enum.fqn, t.variant) if t.variant else ("enum", t.enum.fqn)
    if isinstance(t, T.FuncT):
        ps = tuple((n, describe(p, tparams), bool(d)) for n, p, d in t.params)
        throws = describe(t.throws, tparams) if t.throws is not None else ("prim", "never")
        return ("fn", ps, describe(t.ret, tparams), throws)
    if t is T.JSON:
        return JSON
    if isinstance(t, T.StdT) and t.kind == "reflect":
        return ("reflect", t.name.rpartition(".")[2])
    if isinstance(t, T.StdT) and t.kind == "class":
        return ("class", t.name, ())
    if isinstance(t, T.StdT) and t.kind == "enum":
        return ("enum", t.name)
    if isinstance(t, T.StdT) and t.kind == "variant":
        return ("variant", t.name, t.variant)
    if isinstance(t, T.StdT) and t.kind == "iface":
        return ("iface", t.name, ())
    if isinstance(t, T.StdT) and t.kind == "stdiface" and t.name in STD_IFACES:  # `baml.random.Rng`
        return std_iface(t.name, [], [])
    return UNKNOWN


_ORDER_RANK = {"int": 0, "bigint": 1, "float": 2, "string": 3, "bool": 4, "null": 9}


def engine_order(t: T.Type) -> T.Type:
    """Type `t` with each union's members in the order the engine records a container's
    element type in (its checker's join: int, bigint, float, string, bool, classes, enums,
    arrays, maps, null, functions; literals by value): `let x: (string | int)[] = []`
    reflects as `(int | string)[]`. Compile time only: the VM records the result as is."""
    if isinstance(t, T.Union):
        return T.Union(tuple(sorted((engine_order(m) for m in t.members), key=_order_key)))
    if isinstance(t, T.Arr):
        return T.Arr(engine_order(t.elem))
    if isinstance(t, T.MapT):
        return T.MapT(engine_order(t.key), engine_order(t.val))
    return t


def _order_key(t: T.Type) -> tuple:
    if isinstance(t, T.Lit):  # `1 | 2 | "a"`: by kind, then value
        return (_ORDER_RANK.get(t.base.name, 10), 0, str(type(t.value)), t.value)
    if isinstance(t, T.Prim):
        return (_ORDER_RANK.get(t.name, 10), 1)
    if isinstance(t, T.ClassT):
        return (5, t.cls.fqn)
    if isinstance(t, T.EnumT):
        return (6, t.enum.fqn, t.variant or "")
    if isinstance(t, T.Arr):
        return (7, _order_key(t.elem))
    if isinstance(t, T.MapT):
        return (8, _order_key(t.key), _order_key(t.val))
    return (10,)


def describe_written(te, resolver, index, ns, generics, tparams: tuple) -> tuple:
    """The descriptor of type expression `te` (in namespace `ns`) as written: a union named
    by an alias stays one member of an enclosing union (`Id?` has members `Id` and `null`, as
    the engine lists them; rendering and equality flatten it)."""
    return _written(te, _Ctx(resolver, index, tparams), ns, generics)[0]


class _Ctx:
    def __init__(self, resolver, index, tparams):
        self.resolver, self.index, self.tparams = resolver, index, tparams


def _written(te, cx: _Ctx, ns, generics) -> tuple[tuple, bool]:
    """(descriptor, whether it is an alias's union)."""
    if isinstance(te, (ast.TOptional, ast.TUnion)):
        parts = ([_written(te.inner, cx, ns, generics), (NULL, False)] if isinstance(te, ast.TOptional)
                 else [_written(m, cx, ns, generics) for m in te.members])
        if any(alias or _has_std(d) for d, alias in parts):
            return _keep(parts), False
    if isinstance(te, ast.TArray):
        return ("array", _written(te.elem, cx, ns, generics)[0]), False
    if isinstance(te, ast.TName) and te.path == ["map"] and len(te.args) == 2:
        return ("map", *(_written(a, cx, ns, generics)[0] for a in te.args)), False
    std = _std_written(te, cx, ns, generics) if isinstance(te, ast.TName) else None
    if std is not None:
        return std, False
    item = cx.index.lookup(ns, te.path) if isinstance(te, ast.TName) and not te.args else None
    if type(item).__name__ == "AliasDef" and isinstance(item.type, (ast.TUnion, ast.TOptional, ast.TName)):
        d, _ = _written(item.type, cx, item.namespace, frozenset())
        return d, d[0] == "union"
    return describe(cx.resolver.resolve(te, ns, generics), cx.tparams), False


_MEDIA = ("image", "audio", "pdf", "video")


def _has_std(d) -> bool:
    """Does a descriptor hold a stdlib type the resolver would leave unknown?"""
    if type(d) is not tuple or not d:
        return False
    return d[0] in ("json", "stdiface") or d in (("prim", m) for m in _MEDIA) or any(_has_std(x) for x in d)


def _std_written(te: ast.TName, cx: _Ctx, ns, generics) -> tuple | None:
    """A stdlib type the resolver leaves unknown: a media type, `json`, a stdlib interface."""
    name = ".".join(te.path)
    if cx.index.lookup(ns, te.path) is not None:
        return None
    if name in _MEDIA and not te.args:
        return ("prim", name)
    if name in ("json", "baml.json.json") and not te.args:
        return ("json",)
    if name in STD_IFACES:
        args = [cx.resolver.resolve(a, ns, generics) for a in te.args]
        return std_iface(name, args, te.names or [None] * len(args))
    return None


def _keep(members: list) -> tuple:
    """A written union: members flattened, except an alias's union, duplicates dropped."""
    out, seen = [], set()
    for d, alias in members:
        for x in ((d,) if alias or d[0] != "union" else d[1]):
            k = key(x)
            if k not in seen:
                seen.add(k)
                out.append(x)
    return out[0] if len(out) == 1 else ("union", tuple(out))


def has_unknown(d) -> bool:
    return d == UNKNOWN or (type(d) is tuple and any(type(x) is tuple and has_unknown(x) for x in d))


def has_tvar(d) -> bool:
    """Does a descriptor (or any tuple inside one) mention a type parameter?"""
    if type(d) is not tuple:
        return False
    return (len(d) == 2 and d[0] == "tvar") or any(has_tvar(x) for x in d)


def subst(d: tuple, targs: tuple | None) -> tuple:
    """Replace ('tvar', k) by the k-th type argument (unknown when not passed)."""
    k = d[0]
    if k == "tvar":
        return targs[d[1]] if targs is not None and d[1] < len(targs) else UNKNOWN
    if k == "array":
        return ("array", subst(d[1], targs))
    if k == "map":
        return ("map", subst(d[1], targs), subst(d[2], targs))
    if k == "union":
        return union([subst(m, targs) for m in d[1]])
    if k in ("class", "iface"):
        return (k, d[1], tuple(subst(a, targs) for a in d[2]))
    if k == "fn":
        ps = tuple((n, subst(p, targs), o) for n, p, o in d[1])
        return ("fn", ps, subst(d[2], targs), subst(d[3], targs))
    return d


def union(members: list) -> tuple:
    """The union of descriptors as written: flattened, duplicates (by `key`) dropped."""
    out, seen = [], set()
    for m in members:
        for x in (m[1] if m[0] == "union" else (m,)):
            if x == UNKNOWN:
                return UNKNOWN
            kx = key(x)
            if kx not in seen and x != ("prim", "never"):
                seen.add(kx)
                out.append(x)
    if not out:
        return ("prim", "never")
    return out[0] if len(out) == 1 else ("union", tuple(out))


def key(d: tuple):
    """What equality compares: a union is the set of its members."""
    k = d[0]
    if k == "union":  # an alias's union inside another counts by its members
        ms = frozenset(x for m in d[1] for x in (key(m)[1] if m[0] == "union" else (key(m),)))
        return JSON if ms == _JSON_KEYS else ("union", ms)
    if k == "array":
        return ("array", key(d[1]))
    if k == "map":
        return ("map", key(d[1]), key(d[2]))
    if k in ("class", "iface"):
        return (k, d[1], tuple(key(a) for a in d[2]), *d[3:])
    if k == "fn":
        return ("fn", tuple(key(p) for _, p, _ in d[1]), key(d[2]), key(d[3]))
    if k == "lit":
        return ("lit", type(d[1]).__name__, d[1])
    return d


_JSON_KEYS: frozenset = frozenset()
_JSON_KEYS = key(JSON_UNION)[1]


def within(a: tuple, b: tuple, implements) -> bool:
    """Run-time `is` of a function's signature: is every value of descriptor `a` a `b`?
    Strict where the checker is conservative (`unknown` holds only `unknown`); a type
    parameter the value's function left open (('tvar', k)) fits anything.
    `implements(a, iface)`: the program's interface links."""
    if b == UNKNOWN or a[0] == "tvar" or b[0] == "tvar" or a == ("prim", "never") or key(a) == key(b):
        return True
    if a == JSON or b == JSON:  # json as what it is made of
        return within(JSON_UNION if a == JSON else a, JSON_UNION if b == JSON else b, implements)
    if a[0] == "union":
        return all(within(m, b, implements) for m in a[1])
    if b[0] == "union":
        return any(within(a, m, implements) for m in b[1])
    if b[0] == "iface":
        return implements(a, b)
    k = b[0]
    if k == "prim":
        return (a[0] == "lit" and _lit_prim(a[1]) == b[1]) or (a[0] == "blit" and b[1] == "bigint")
    if k == "enum":
        return a[0] == "variant" and a[1] == b[1]
    if k == "array":  # containers and type arguments are invariant
        return a[0] == k and _same(a[1], b[1], implements)
    if k == "map":
        return a[0] == k and _same(a[1], b[1], implements) and _same(a[2], b[2], implements)
    if k == "class":
        return (a[0] == k and a[1] == b[1] and len(a[2]) == len(b[2])
                and all(_same(x, y, implements) for x, y in zip(a[2], b[2])))
    if k == "fn":
        return a[0] == "fn" and fn_within(a, b, implements)
    return False


def _same(a: tuple, b: tuple, implements) -> bool:
    return within(a, b, implements) and within(b, a, implements)


def fn_within(v: tuple, t: tuple, implements) -> bool:
    """A function value of signature `v` is a `t`: its required parameters, as many as `t`'s,
    each taking `t`'s (defaulted ones are not counted: `(x: int, y: int = 1)` is a
    `(int) -> int`, not a `(int, int) -> int`, as the engine checks), its result and what it
    throws within `t`'s."""
    need = [p for _, p, opt in v[1] if not opt]
    if len(need) != len(t[1]):
        return False
    # what it throws where sema's effects cannot tell (unknown) fits
    return (all(within(tp, vp, implements) for vp, (_, tp, _) in zip(need, t[1]))
            and within(v[2], t[2], implements) and (v[3] == UNKNOWN or within(v[3], t[3], implements)))


def _lit_prim(v) -> str:
    return "bool" if type(v) is bool else "int" if type(v) is int else "float" if type(v) is float else "string"


def display(fqn: str) -> str:
    """A declaration's name as the engine renders it: namespace-qualified, no `user.` root."""
    return fqn[5:] if fqn.startswith("user.") else fqn


def render(d: tuple, names: dict | None = None) -> str:
    """A descriptor as BAML writes the type; `names`: declarations shown under another name
    (a session's classes, a mounted package's), by fqn."""
    k = d[0]
    if k == "prim":
        return d[1]
    if k == "blit":
        return f"{d[1]}n"
    if k == "lit":
        v = d[1]
        if type(v) is bool:
            return "true" if v else "false"
        return json.dumps(v, ensure_ascii=False) if type(v) is str else str(v)
    if k in ("class", "iface"):
        args = d[2]
        return (d[3] if len(d) > 3 else _shown(d[1], names)) + ("<" + ", ".join(render(a, names) for a in args) + ">" if args else "")
    if k == "enum":
        return _shown(d[1], names)
    if k == "variant":
        return _shown(d[1], names) + "." + d[2]
    if k == "array":
        inner = render(d[1], names)
        return (f"({inner})" if d[1][0] in ("union", "fn") else inner) + "[]"
    if k == "map":
        return f"map<{render(d[1], names)}, {render(d[2], names)}>"
    if k == "union":
        return " | ".join(f"({render(m, names)})" if m[0] == "fn" else render(m, names) for m in d[1])
    if k == "fn":
        ps = ", ".join(render(p, names) for _, p, _ in d[1])
        ret = render(d[2], names)  # a function result in parentheses (its `throws` is its own)
        return f"({ps}) -> {f'({ret})' if d[2][0] == 'fn' else ret} throws {render(d[3], names)}"
    if k == "reflect":
        return "reflect." + d[1]
    if k == "stdiface":  # `baml.iter.Iterable<Error = never, Item = int>`
        parts = [render(a, names) for a in d[2]] + [f"{n} = {render(a, names)}" for n, a in d[3]]
        return d[1] + (f"<{', '.join(parts)}>" if parts else "")
    if k == "json":
        return "baml.json.json"
    if k == "tparam":  # a generic class's declaration (`to_baml`)
        return d[1]
    return "unknown"


def _shown(fqn: str, names: dict | None) -> str:
    return (names or {}).get(fqn) or display(fqn)


# the kind view (`reflect.Class`, …) each descriptor kind answers `kind()` with
KIND_VIEWS = {"prim": "Primitive", "lit": "Literal", "blit": "Literal", "variant": "Literal",
              "class": "Class", "enum": "Enum", "iface": "Interface", "array": "Array", "map": "Map",
              "union": "Union", "fn": "Function", "reflect": "Class", "json": "Primitive",
              "stdiface": "Interface"}

# the stdlib interfaces `reflect.Type.of` describes: fqn → (number of type parameters, their
# associated types with the default of each, None where it has none)
STD_IFACES = {**{f: (0, {}) for f in ("baml.ops.Equals", "baml.ops.Compare", "baml.Hash", "baml.ToString",
                                     "baml.ToJson", "baml.FromJson")},
              **{f: (0, {"Item": None, "Error": ("prim", "never")}) for f in ("baml.iter.Iterable", "baml.iter.Iterator")},
              **{f"baml.ops.{f}": (1, {"Output": None}) for f in ("Add", "Subtract", "Multiply", "Divide", "Remainder")},
              "baml.ops.Negate": (0, {"Output": None}), "baml.random.Rng": (0, {})}
def std_iface(fqn: str, args: list, names: list, bound: dict | None = None) -> tuple:
    """The descriptor of stdlib interface `fqn` at static type arguments `args` (each named by
    `names`: an associated type, or None for a type parameter) and associated types `bound`;
    an associated type not given takes its default."""
    spec = STD_IFACES[fqn][1]
    assoc = dict(spec)
    assoc.update({n: describe(a) for n, a in (bound or {}).items()})
    pos = []
    for n, a in zip(names, args):
        if n is None:
            pos.append(describe(a))
        else:
            assoc[n] = describe(a)
    return ("stdiface", fqn, tuple(pos), tuple(sorted((n, d if d is not None else UNKNOWN) for n, d in assoc.items())))


# the builtin implementations of `baml.ops` arithmetic: (self, rhs) → Output
_ARITH = {("int", "int"): "int", ("int", "float"): "float", ("float", "float"): "float",
          ("float", "int"): "float", ("bigint", "bigint"): "bigint", ("int", "bigint"): "bigint",
          ("bigint", "int"): "bigint"}
_EVERY_TYPE = ("baml.ops.Equals", "baml.ToString", "baml.ToJson", "baml.FromJson")  # implicit implementations
_COMPARABLE = {("prim", p) for p in ("int", "float", "string", "bool", "bigint")}


# Static types of reflection values (the checker's; the stdlib is otherwise unknown to it)
TYPE = T.StdT("reflect", "reflect.Type")
KINDS = ("Class", "Enum", "Union", "Literal", "Array", "Map", "Interface", "Primitive", "Function")


def view(kind: str) -> T.StdT:
    return T.StdT("reflect", f"reflect.{kind}")


KIND = T.Union(tuple(view(k) for k in sorted(KINDS)))  # `reflect.TypeKind`, as the engine lists it

PACKAGE_T = T.StdT("reflect", "reflect.Package")
# every method the engine's `reflect.Type` and each kind view has, with the static type of what
# it returns (None: the engine has it, Assay does not yet — lowering says so, located)
_COMMON = {"to_string": T.STRING, "as_type": TYPE, "kind": KIND, "array": view("Array"),
           "optional": view("Union"), "implements": T.BOOL, "implemented_by": T.BOOL,
           "to_baml": T.STRING, "meta": T.UNKNOWN}
META = T.StdT("class", "reflect.Meta")
DIAGNOSTICS = T.Arr(T.StdT("class", "reflect.Diagnostic"))
MEMBERS: dict[str, dict] = {
    "reflect.Type": {**_COMMON, **{f"as_{k.lower()}": T.optional(view(k)) for k in KINDS},
                     "_validate_renderable": None, "_to_string_impl": None, "_implements": None},
    "reflect.Class": {**_COMMON, "fields": T.Arr(T.StdT("class", "reflect.class.Field")), "metadata": META,
                      "name": T.STRING},
    "reflect.Enum": {**_COMMON, "values": T.Arr(T.StdT("class", "reflect.enum.Value")), "metadata": META,
                     "name": T.STRING},
    "reflect.Union": {**_COMMON, "member_types": T.Arr(TYPE)},
    "reflect.Literal": {**_COMMON, "value": T.TOP},
    "reflect.Array": {**_COMMON, "element_type": TYPE},
    "reflect.Map": {**_COMMON, "key_type": TYPE, "value_type": TYPE},
    "reflect.Interface": dict(_COMMON),
    "reflect.Primitive": dict(_COMMON),
    "reflect.Function": {**_COMMON, "params": T.Arr(T.StdT("class", "reflect.function.Parameter")),
                         "return_type": TYPE},
    "reflect.Package": {**{f"{a}_{k.lower()}": (view(k) if a == "get" else T.optional(view(k)))
                           for a in ("get", "find") for k in ("Class", "Enum", "Interface")},
                        **{n: T.MapT(T.STRING, view(k)) for n, k in (("classes", "Class"), ("enums", "Enum"),
                                                                      ("interfaces", "Interface"))},
                        "functions": T.MapT(T.STRING, view("Function")), "get_function": T.UNKNOWN,
                        "find_function": T.UNKNOWN, "with_types": PACKAGE_T,
                        "globals": T.MapT(T.STRING, T.TOP), "get_global": T.UNKNOWN,
                        "find_global": T.UNKNOWN, "tests": T.UNKNOWN, "diagnostics": DIAGNOSTICS},
    "reflect.Session": {"eval": T.UNKNOWN, "diagnostics": DIAGNOSTICS},
}
# methods of `reflect`'s data classes (sema/stdsigs.STD_CLASSES has their fields)
DATA_METHODS = {"reflect.class.Field": {"metadata": META, "value": T.UNKNOWN}}  # unknown: not typed yet
# the parameters of those that take any (all of type unknown to the checker)
PARAMS = {"implements": ("other",), "implemented_by": ("other",), "eval": ("source",),
          "meta": ("alias", "description", "docstring", "other"), "with_types": ("types",),
          **{f"{a}_{k}": ("name",) for a in ("get", "find") for k in ("class", "enum", "interface", "function", "global")}}
PACKAGE = T.StdT("reflect", "reflect.Package")
SESSION = T.StdT("reflect", "reflect.Session")
# what the supported `reflect` statics return (the checker's types)
STATICS = {"reflect.signature": T.StdT("class", "reflect.Signature"), "reflect.Package.compile": PACKAGE, "reflect.Session.new": SESSION, "reflect.Package.current": PACKAGE,
           "reflect.Map.new": view("Map"), "reflect.Union.new": view("Union"),
           "reflect.Literal.new": view("Literal"), "reflect.Enum.get_value": T.STRING,
           "reflect.Class.new": view("Class"), "reflect.Enum.new": view("Enum"), "reflect.Class.extends": view("Class")}


def is_reflect(t: T.Type) -> bool:
    """`reflect.Type`, a kind view, or a union of kind views (what `kind()` returns)."""
    if isinstance(t, T.Union):
        return all(is_reflect(m) for m in t.members)
    return isinstance(t, T.StdT) and t.kind == "reflect"


def member(t: T.Type, name: str):
    """What method `name` of such a type returns: a type, None (the engine has it, Assay does
    not yet), or False (no such method)."""
    got = [MEMBERS.get(m.name, {}).get(name, False) for m in T.members(t)]
    if any(g is False for g in got):
        return False
    return None if any(g is None for g in got) else got[0]


def kind_view(d: tuple) -> str:
    if d == ("reflect", "Type"):
        return "Primitive"  # the engine's builtin `type`; its kind views are classes
    return KIND_VIEWS.get(d[0], "Primitive")


def meta(attrs: list, doc: str | None, level: int = 1) -> dict:
    """Schema metadata (`reflect.Meta`) from attributes: a field's or variant's (`@alias`),
    or a class's or enum's own (level 2: `@@alias`)."""
    out = {"alias": None, "description": None, "docstring": doc, "other": {}, "skip": False}
    for a in attrs:
        if a.level != level:
            continue
        if a.name in ("alias", "description") and a.args and isinstance(a.args[0], ast.StrLit):
            out[a.name] = a.args[0].value
        elif a.name == "skip":
            out["skip"] = True
    return out


_CHILD_FIELDS: dict[type, tuple] = {}


def walk(node):
    """Every AST node under `node` (a work list: deep chains do not recurse)."""
    todo = [node]
    while todo:
        n = todo.pop()
        t = type(n)
        if t is list or t is tuple:
            todo.extend(n)
            continue
        fields = _CHILD_FIELDS.get(t)
        if fields is None:
            if t.__module__ != ast.__name__ or not hasattr(n, "__dataclass_fields__"):
                continue  # AST nodes only (not sema's annotations on them)
            fields = _CHILD_FIELDS[t] = tuple(f for f in n.__dataclass_fields__ if f != "span")
        yield n
        todo.extend(getattr(n, f) for f in fields)


class Reflector:
    """The program's side of reflection: static types behind descriptors, and what they
    implement, declare and enumerate."""

    def __init__(self, index: ProgramIndex, resolver, test_bodies: dict | None = None,
                 names: dict | None = None):
        self.index = index
        self.resolver = resolver
        self.names = names or {}  # fqn → the name a declaration renders as, where not its path
        self.test_bodies = test_bodies or {}  # a test block's function name → its body

    def static(self, d: tuple) -> T.Type:
        k = d[0]
        if k == "prim":
            return T.PRIMS.get(d[1], T.UNKNOWN)
        if k == "json":
            return T.JSON
        if k == "lit":
            v = d[1]
            return T.lit_bool(v) if type(v) is bool else T.lit_int(v) if type(v) is int else T.lit_str(v)
        if k == "blit":
            return T.Lit(ast.BigLit(d[1]), T.BIGINT)
        if k == "array":
            return T.Arr(self.static(d[1]))
        if k == "map":
            return T.MapT(self.static(d[1]), self.static(d[2]))
        if k == "union":
            return T.union(*(self.static(m) for m in d[1]))
        if k == "class":
            cd = self.index.classes.get(d[1])
            return T.ClassT(cd, tuple(self.static(a) for a in d[2])) if cd else T.StdT("class", d[1])
        if k == "iface":
            idef = self.index.interfaces.get(d[1])
            return T.IfaceT(idef, tuple(self.static(a) for a in d[2])) if idef else T.UNKNOWN
        if k in ("enum", "variant"):
            ed = self.index.enums.get(d[1])
            return T.EnumT(ed, d[2] if k == "variant" else None) if ed else T.UNKNOWN
        if k == "fn":
            ps = tuple((n, self.static(p), o) for n, p, o in d[1])
            return T.FuncT(ps, self.static(d[2]), self.static(d[3]))
        return T.UNKNOWN

    def field_type(self, cls, f) -> T.Type:
        """A class field's static type, over the class's own type parameters (a stdlib class's,
        named by its fqn: the type as sema/stdsigs.py writes it)."""
        if isinstance(cls, str):
            return self.resolver.resolve(parse_type(SourceFile("<stdlib>", f))[0], None)
        return self.resolver.resolve(f.type, cls.namespace, frozenset(g.name for g in cls.decl.generics))

    def iface_args(self, cls_fqn: str, iface_fqn: str) -> tuple | None:
        """The type arguments class `cls_fqn`'s `implements` block gives interface `iface_fqn`
        (over the class's type parameters as ('tvar', k)); None: it has no such block."""
        for impl in self.index.impls:
            if impl.cls is not None and impl.cls.fqn == cls_fqn and impl.iface is not None \
                    and impl.iface.fqn == iface_fqn:
                own = tuple(g.name for g in impl.cls.decl.generics)
                written = [a for a in impl.decl.interface.args if getattr(a, "binds", None) is None]
                return tuple(describe(self.resolver.resolve(a, impl.namespace, frozenset(own)), own)
                             for a in written)
        return None

    def implements(self, t: tuple, iface: tuple) -> bool:
        """BAML's `t.implements(iface)`: nominal, at iface's type arguments; an interface (or
        anything not concrete) implements nothing."""
        if iface[0] == "stdiface":
            return self.std_implements(t, iface, set())
        if iface[0] != "iface" or t[0] in ("iface", "union", "tvar") or t == UNKNOWN or len(t) > 3:
            return False
        idef = self.index.interfaces.get(iface[1])
        if idef is None:
            return False
        return idef.implemented_by(self.static(t), tuple(self.static(a) for a in iface[2]))

    def std_implements(self, t: tuple, iface: tuple, seen: set) -> bool:
        """`t.implements(iface)` for a stdlib interface: an explicit implementation at the same
        type arguments, else the builtin ones (`Equals`, `ToString`, `ToJson`: every type; `Hash`:
        data without functions or a custom `Equals`; `Compare`: the ordered primitives;
        `Iterable<Item = X>`: `X[]`; arithmetic as the operators take it)."""
        name = iface[1]
        if t[0] in ("stdiface", "iface") or t == UNKNOWN:
            return name in _EVERY_TYPE and t != UNKNOWN
        own = self._std_impls(t, name)
        if own is not None:
            return own == (iface[2], iface[3])
        if name in _EVERY_TYPE:
            return True
        if name == "baml.random.Rng":  # the stdlib's generators
            return t[0] == "class" and t[1] in _RNG_CLASSES
        if name == "baml.Hash":
            return self._hashable(t, seen)
        if name == "baml.ops.Compare":
            return t in _COMPARABLE
        assoc = dict(iface[3])
        if name == "baml.iter.Iterable":
            return t[0] == "array" and key(t[1]) == key(assoc["Item"]) and assoc["Error"] == ("prim", "never")
        if name == "baml.ops.Negate":
            return t in (("prim", "int"), ("prim", "float"), ("prim", "bigint")) and assoc["Output"] == t
        if len(iface[2]) == 1 and t[0] == "prim" and iface[2][0][0] == "prim":
            out = _ARITH.get((t[1], iface[2][0][1]))
            return out is not None and assoc["Output"] == ("prim", out)
        return False

    def _std_impls(self, t: tuple, name: str):
        """A class's explicit implementation of stdlib interface `name`: (type arguments,
        associated types) as descriptors; None without one."""
        if t[0] != "class":
            return None
        cd = self.index.classes.get(t[1])
        for impl in (cd.impls if cd is not None else ()):
            if impl.std == name:
                te, ns = impl.decl.interface, cd.namespace
                got = std_iface(name, [self.resolver.resolve(a, ns, frozenset()) for a in te.args],
                                te.names or [None] * len(te.args),  # `type Item = int` in the block:
                                {n: self.resolver.resolve(a, ns, frozenset()) for n, a in impl.decl.assoc.items()})
                return got[2:]
        return None

    def _hashable(self, t: tuple, seen: set) -> bool:
        k = t[0]
        if k == "fn":
            return False
        if k in ("array", "map", "union"):
            parts = t[1] if k == "union" else t[1:]
            return all(self._hashable(p, seen) for p in parts)
        if k == "class":
            if t in seen:
                return True
            if self._std_impls(t, "baml.ops.Equals") is not None:
                return False  # a custom `eq` needs its own `Hash`
            seen.add(t)
            return all(self._hashable(fd, seen) for _, fd, _ in self.class_fields(t))
        return True

    def class_fields(self, d: tuple, declared: bool = False) -> list[tuple[str, tuple, dict]]:
        """A class's fields as (name, descriptor of its declared type, schema metadata), the
        class's type arguments substituted (`declared`: its type parameters as ('tparam', name),
        as `to_baml` writes a generic class)."""
        cd = self.index.classes.get(d[1])
        if not isinstance(cd, ClassDef):
            return self.std_class_fields(d[1])
        gens = tuple(g.name for g in cd.decl.generics)
        env = {} if declared else {g: self.static(a) for g, a in zip(gens, d[2])}
        out = []
        for f in cd.fields:
            ft = self.resolver.resolve(f.type, cd.namespace, frozenset(gens))
            d = (subst(describe(ft, gens), tuple(("tparam", g) for g in gens)) if declared and gens
                 else describe(T.subst(ft, env) if env else ft))
            if not env and has_unknown(d):  # `json`, a media type: as written
                written = describe_written(f.type, self.resolver, self.index, cd.namespace, frozenset(gens), ())
                d = written if _has_std(written) else d
            out.append((f.name, d, meta(f.attrs, f.doc)))
        return out

    def std_class_fields(self, fqn: str) -> list:
        """A stdlib class's fields (`baml.time.Instant`'s `_nanoseconds`), its doc comments not
        carried."""
        out = []
        for name, text in (stdsigs.STD_CLASSES.get(fqn) or stdsigs.STD_REFLECT_FIELDS.get(fqn, {})).items():
            if text == RUST_TYPE[1]:  # an engine-internal slot, shown by its placeholder type
                out.append((name, RUST_TYPE, meta([], None)))
                continue
            te, _ = parse_type(SourceFile("<stdlib>", text))
            out.append((name, describe(self.resolver.resolve(te, None, frozenset())), meta([], None)))
        return out

    def interface_fields(self, d: tuple) -> list:
        """The fields `Class.extends<I>` gives a class: each required interface's (in `requires`
        order, depth first) before the requiring one's, each once."""
        out, seen = [], set()

        def visit(idef):
            if idef.fqn in seen:
                return
            seen.add(idef.fqn)
            for r in idef.requires:
                visit(r)
            for f in idef.decl.fields:
                if all(f.name != o[0] for o in out):
                    t = self.resolver.resolve(f.type, idef.namespace, frozenset())
                    out.append((f.name, describe(t), meta(f.attrs, f.doc)))
        idef = self.index.interfaces.get(d[1])
        if idef is not None:
            visit(idef)
        return out

    def interface_closure(self, d: tuple) -> set:
        idef = self.index.interfaces.get(d[1])
        return {i.fqn for i in idef.ancestors()} if idef is not None else set()

    def decl_meta(self, d: tuple) -> dict:
        """A class's or an enum's own metadata (`@@alias`, `@@description`, its doc comment)."""
        item = (self.index.classes if d[0] == "class" else self.index.enums).get(d[1])
        return meta(item.decl.attrs, item.decl.doc, 2) if item is not None else meta([], None)

    def enum_variants(self, d: tuple) -> list[tuple[str, dict]]:
        ed = self.index.enums.get(d[1])
        if not isinstance(ed, EnumDef):
            return []
        return [(v.name, meta(v.attrs, v.doc)) for v in ed.decl.variants]

    def function_desc(self, fqn: str, bound: bool, lambda_ret=None, tvars: bool = False) -> tuple:
        """The signature of function `fqn` (a lambda's as the checker typed it, its return
        type `lambda_ret` when it declares none); what it throws is its declared `throws`, else
        what sema's effects inferred (widened for a named function, as the engine does;
        inferred unions in the engine's order). `tvars`: type parameters as ('tvar', k), k
        over the owner class's then the function's own (a lambda's: its maker's), not unknown."""
        base, _, lam = fqn.partition(".<lambda@")
        base = base.split(DISPATCH)[0]  # an interface's dispatcher: the interface's method
        fdef = self.index.functions.get(base)
        body = fdef.decl.body if fdef is not None else self.test_bodies.get(base)
        if body is None:
            return UNKNOWN
        effects = getattr(self.index, "effects", None)
        if lam:
            node = self._lambda(body, fqn)
            ft = getattr(node, "ty", None)
            if not isinstance(ft, T.FuncT):
                return UNKNOWN
            thrown = effects.throws(id(node)) if effects is not None else None
            ret = ft.ret if node.ret is not None or lambda_ret is None else _sorted(T.widen(lambda_ret))
            if node.ret is not None and fdef is not None and ret is T.UNKNOWN:  # `-> T`: the checker's is unknown
                ret = self.resolver.resolve(node.ret, fdef.namespace, frozenset(_tparams(fdef)))
            return describe(T.FuncT(ft.params, ret, _sorted(thrown) if thrown is not None else T.UNKNOWN),
                            _tparams(fdef) if tvars and fdef is not None else ())
        if fdef is None:
            return UNKNOWN
        d = fdef.decl
        gens = frozenset(g.name for g in d.generics) | frozenset(
            g.name for g in (fdef.owner.decl.generics if fdef.owner is not None else ()))
        ps = tuple((p.name, self.resolver.resolve(p.type, fdef.namespace, gens), p.default is not None)
                   for p in d.params)
        if d.has_self and not bound and type(fdef.owner).__name__ == "ClassDef":  # `Counter.bump`
            own = tuple(T.TVar(g.name) for g in fdef.owner.decl.generics)
            ps = (("self", T.ClassT(fdef.owner, own), False),) + ps
        thrown = (self.resolver.resolve(d.throws, fdef.namespace, gens) if d.throws is not None
                  else effects.throws(id(fdef)) if effects is not None else None)
        if thrown is not None and d.throws is None:
            thrown = _sorted(T.widen(thrown))
        ret = self.resolver.resolve(d.ret, fdef.namespace, gens)
        return describe(T.FuncT(ps, ret, thrown if thrown is not None else T.UNKNOWN),
                        _tparams(fdef) if tvars else ())

    def native_desc(self, kind: str | None, name: str, recv: tuple | None = None, targs: tuple = ()) -> tuple:
        """The run-time signature of a builtin's method `name` of receiver `kind` (`recv` the
        receiver's descriptor) or, kind None, of stdlib function `name` (at type arguments
        `targs`: `string.from<int>`), from its declaration in sema/stdsigs.py: the receiver's
        type variables bound (Self; T of an array; K and V of a map), type parameters not given
        unknown. What it throws is declared only for the `baml.json` functions and the others
        written in BAML in the engine's stdlib (stdsigs.BAML_BODIED); a native's says `throws
        never` at run time, whatever it raises."""
        text = (stdsigs.METHODS.get(kind, {}) if kind else stdsigs.FUNCTIONS).get(name)
        t, gens = _native_type(text, self.resolver) if text else (None, ())
        if t is None:
            return UNKNOWN
        if not (kind is None and (name.startswith("baml.json.") or name in stdsigs.BAML_BODIED)):
            t = T.FuncT(t.params, t.ret, None)
        d = describe(t, (_RECV_VARS if kind else ()) + gens)
        if not has_tvar(d):
            return d
        if kind is None:
            return subst(d, tuple(targs))
        recv = recv or UNKNOWN
        elem = recv[1] if recv[0] == "array" else UNKNOWN
        key, val = recv[1:3] if recv[0] == "map" else (UNKNOWN, UNKNOWN)
        return subst(d, (recv, elem, key, val) + tuple(targs))

    @staticmethod
    def _lambda(body, fqn: str):
        """The lambda a fqn names by its position (`….<lambda@3:9>`, the innermost)."""
        at = fqn.rsplit("<lambda@", 1)[1].split(">")[0]
        line, col = (int(x) for x in at.split(":"))
        for n in walk(body):
            if isinstance(n, ast.Lambda) and n.span.line_col == (line, col):
                return n
        return None


_RECV_VARS = ("Self", "T", "K", "V")  # a builtin method's receiver's type variables
_NATIVE_TYPES: dict = {}  # a stdsigs signature's text → its FuncT (None: not one)


def _native_type(text: str, resolver) -> tuple:
    """A stdlib signature (`<U>(f: (T) -> U, n: int = 1) -> U[] throws E`) as (a FuncT over
    its type variables, a defaulted parameter optional, or None; its own type parameters)."""
    if text in _NATIVE_TYPES:
        return _NATIVE_TYPES[text]
    own: tuple = ()
    sig = text.strip()
    if sig.startswith("<"):
        j = sig.index(">")
        own = tuple(g.strip() for g in sig[1:j].split(","))
        sig = sig[j + 1:].strip()
    gens = set(_RECV_VARS) | {"U", "E", "A"} | set(own)
    params, rest = split_params(sig)
    written = ", ".join(f"{n}: {ty}" for n, ty, _ in params)
    te, diags = parse_type(SourceFile("<stdlib>", f"({written}){rest}"))
    t = None
    if te is not None and not diags and isinstance(te, ast.TFunc):
        ft = resolver.resolve(te, None, frozenset(gens))
        if isinstance(ft, T.FuncT):
            t = T.FuncT(tuple((n, p, d) for (n, p, _), (_, _, d) in zip(ft.params, params)), ft.ret, ft.throws)
    _NATIVE_TYPES[text] = (t, own)
    return t, own


def split_params(sig: str) -> tuple[list, str]:
    """`(a: int, b: T = x) -> R` as ([(name, type text, has a default)], ` -> R`)."""
    depth, cur, parts, i = 0, "", [], 1
    while i < len(sig):
        ch = sig[i]
        if ch == "-" and sig.startswith("->", i):
            cur += "->"
            i += 2
            continue
        depth += ch in "(<[{"
        depth -= ch in ")>]}"
        if depth < 0 or (ch == "," and depth == 0):
            parts.append(cur)
            cur = ""
            if depth < 0:
                break
        else:
            cur += ch
        i += 1
    out = []
    for part in filter(str.strip, parts):
        name, _, ty = part.partition(":")
        ty, eq, _ = ty.partition(" = ")
        out.append((name.strip(), ty.strip(), bool(eq)))
    return out, sig[i + 1:]


def _tparams(fdef) -> tuple:
    """A function's type parameters: its owner class's, then its own."""
    owner = fdef.owner.decl.generics if fdef.owner is not None and hasattr(fdef.owner.decl, "generics") else ()
    return tuple(g.name for g in owner) + tuple(g.name for g in fdef.decl.generics)


def _sorted(t: T.Type) -> T.Type:
    """An inferred union as the engine lists it: by name."""
    if isinstance(t, T.Union):
        return T.Union(tuple(sorted(t.members, key=lambda m: render(describe(m)))))
    return t
