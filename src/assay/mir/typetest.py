"""Run-time type tests (`is`, typed patterns, catch arms, host arguments): the compiled form of
a static type (sema/types.py) as the one resolver (sema/resolve.py) produced it.

A test is a small tuple, hashable and printable:
  ('any',) ('never',) ('int',) ('float',) ('string',) ('bool',) ('null',)
  ('unknown',) (a declared `unknown` as an element type or type argument: `unknown[]` is its own
  recorded type, not every array's; at the top a declared `unknown` takes any value: ('any',))
  ('function', signature) (a descriptor of sema/reflect.py: a function value whose own is within it)
  ('lit', value) ('class', fqn) ('class', fqn, (arg, ...)) ('enum', fqn) ('variant', enum_fqn, name)
  ('array', elem) ('map', key, value) ('union', (t, ...)) ('panic',) (any baml.panics.*)
  ('arrays', (elem, ...), k) ('maps', ((key, value), ...), k): a container built as the k-th of
  the container types of the value's static type (see `against`)
"""
from __future__ import annotations

from ..sema import reflect as R
from ..sema import stdsigs
from ..sema import types as T

_PRIMS = {"int": ("int",), "float": ("float",), "string": ("string",), "bool": ("bool",),
          "null": ("null",), "void": ("null",), "never": ("never",), "bigint": ("bigint",),
          "uint8array": ("uint8array",)}
# what the engine records for an array or map a host passes where `unknown` is declared
# (whatever its items: `[[1]]` too is a `(int | … | null)[]`)
HOST_SCALARS = ("union", (("int",), ("float",), ("string",), ("bool",), ("uint8array",), ("null",)))


def of(t: T.Type, inner: bool = False, env: dict | None = None) -> tuple:
    """The run-time test of static type `t`; type variables and unknowns test as ('any',), but
    a declared `unknown` inside a container or class type (`inner`) as ('unknown',): the engine
    records it there, and containers are invariant (an `int[]` is no `unknown[]`). `env`: tests
    of type variables (a generic class's fields at its instance's type arguments)."""
    if isinstance(t, T.Prim):
        return ("unknown",) if inner and t is T.TOP else _PRIMS.get(t.name, ("any",))
    if isinstance(t, T.Lit):
        return ("lit", t.value)
    if isinstance(t, T.Union):
        return _union([of(m, inner, env) for m in t.members])
    if isinstance(t, T.Arr):
        return ("array", of(t.elem, True, env))
    if isinstance(t, T.MapT):
        return ("map", of(t.key, True, env), of(t.val, True, env))
    if isinstance(t, T.ClassT):
        # a generic class's type arguments, as recorded in its instances (`Box<string>`)
        return ("class", t.cls.fqn, tuple(of(a, True, env) for a in t.args)) if t.args else ("class", t.cls.fqn)
    if isinstance(t, T.TVar) and env and t.name in env:
        return env[t.name]
    if isinstance(t, T.EnumT):
        return ("variant", t.enum.fqn, t.variant) if t.variant else ("enum", t.enum.fqn)
    if isinstance(t, T.FuncT):  # a function value's signature within this one (R.fn_within)
        return ("function", R.describe(t, _tvar_names(t)))
    if isinstance(t, T.IfaceT):  # any implementing type (at these type arguments)
        impls = [i for i in t.iface.impls_at(t.positional()) if i.target is not None]
        return _union([of(i.target) for i in impls]) if impls else ("never",)
    if isinstance(t, T.AnyFnT):  # a function value whose result (and throws) are within the pins
        pins = tuple(R.describe(p) if p not in (T.TOP, T.UNKNOWN) else R.UNKNOWN for p in (t.ret, t.throws))
        return ("anyfunction", "reflect.AnyFunction") + (pins if pins != (R.UNKNOWN, R.UNKNOWN) else ())
    if isinstance(t, T.StdT):
        return _std(t)
    if t is T.JSON:
        return ("json",)
    return ("any",)


_SCALARS = {"int": T.INT, "bigint": T.BIGINT, "string": T.STRING}
# the stdlib classes whose fields are all scalars (optional or not): their fields' types
STD_FIELDS = {c: tuple((n, T.union(_SCALARS[ft[:-1]], T.NULL) if ft.endswith("?") else _SCALARS[ft])
                        for n, ft in fs.items())
               for c, fs in stdsigs.STD_CLASSES.items() if all(ft.rstrip("?") in _SCALARS for ft in fs.values())}


def _tvar_names(t: T.Type) -> tuple:
    """The type variables `t` mentions: described as ('tvar', k), which any type fits."""
    out: list = []
    todo = [t]
    while todo:
        x = todo.pop()
        if isinstance(x, T.TVar):
            out.append(x.name)
        elif isinstance(x, T.FuncT):
            todo += [p for _, p, _ in x.params] + [x.ret] + ([x.throws] if x.throws is not None else [])
        elif isinstance(x, T.Union):
            todo += list(x.members)
        elif isinstance(x, T.Arr):
            todo.append(x.elem)
        elif isinstance(x, T.MapT):
            todo += [x.key, x.val]
        elif isinstance(x, (T.ClassT, T.IfaceT)):
            todo += list(x.args)
    return tuple(dict.fromkeys(out))


def against(t: T.Type, static: "T.Type | None") -> tuple:
    """The run-time test of `t` on a value of static type `static` (None: unknown).

    A BAML array or map records the element types it was built with, and containers are
    invariant: `string[]` is not `int[]` even when empty, `int[]` is not `(int|string)[]`. So
    where the static type has one array type, `is X[]` is decided here; where it has several,
    the value's recorded type is the first of them its elements fit (as the engine decodes a
    host value); where it is opaque (a type variable, unknown), the elements decide."""
    if static is None or T.has_tvar(static) or T.has_unknown(static) or any(
            isinstance(m, (T.IfaceT, T.TVar)) or m is T.UNKNOWN for m in T.members(static)):
        return of(t)
    return _union([_against(m, static) for m in T.members(t)])


def _against(t: T.Type, static: T.Type) -> tuple:
    kind = T.Arr if isinstance(t, T.Arr) else T.MapT if isinstance(t, T.MapT) else None
    if kind is None:
        return of(t)
    built = [m for m in T.members(static) if isinstance(m, kind)]
    if t not in built:
        return ("never",)
    if len(built) == 1:
        return ("array", ("any",)) if kind is T.Arr else ("map", ("any",), ("any",))
    if kind is T.Arr:
        return ("arrays", tuple(of(m.elem) for m in built), built.index(t))
    return ("maps", tuple((of(m.key), of(m.val)) for m in built), built.index(t))


def _std(t: T.StdT) -> tuple:
    if t.kind == "panic":
        return ("panic",)
    if t.kind == "variant":
        return ("variant", t.name, t.variant)
    return (t.kind, t.name)


def _union(members: list[tuple]) -> tuple:
    flat: list[tuple] = []
    seen: set[str] = set()  # by repr: `("lit", True) == ("lit", 1)` in Python
    for m in members:
        for x in (m[1] if m[0] == "union" else (m,)):
            if repr(x) not in seen:
                seen.add(repr(x))
                flat.append(x)
    if ("any",) in flat:
        return ("any",)
    return flat[0] if len(flat) == 1 else ("union", tuple(flat))


def key(t: tuple):
    """`t` with union members as a set: two tests with equal keys accept the same values."""
    k = t[0]
    if k == "union":
        return ("union", frozenset(key(m) for m in t[1]))
    if k == "array":
        return ("array", key(t[1]))
    if k == "map":
        return ("map", key(t[1]), key(t[2]))
    if k == "class" and len(t) > 2:
        return ("class", t[1], tuple(key(a) for a in t[2]))
    if k == "lit":  # `true` is not `1`, though Python's `==` says so
        return ("lit", type(t[1]).__name__, t[1])
    return t


def show(t: tuple) -> str:
    k = t[0]
    if k == "json":
        return "baml.json.json"
    if k == "class" and len(t) > 2:
        return f"{t[1]}<{', '.join(show(a) for a in t[2])}>"
    if k in ("class", "enum", "anyclass", "anyfunction"):
        return t[1]
    if k == "variant":
        return f"{t[1]}.{t[2]}"
    if k == "lit":
        v = t[1]
        return '"' + v + '"' if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else repr(v)
    if k == "array":
        return show(t[1]) + "[]"
    if k == "arrays":
        return show(t[1][t[2]]) + "[]"
    if k == "maps":
        return f"map<{show(t[1][t[2]][0])}, {show(t[1][t[2]][1])}>"
    if k == "map":
        return f"map<{show(t[1])}, {show(t[2])}>"
    if k == "union":
        return " | ".join(show(m) for m in t[1])
    return {"any": "unknown", "panic": "baml.panics.Panic"}.get(k, k)


def type_arg(t: T.Type, resolve_field) -> tuple[tuple, tuple]:
    """(root, defs) of a type argument a builtin receives at run time (ir.TypeArg): the test of
    `t` with unions kept whole (`User | json` must still decode a `User`), and the decoding
    facts of every class and enum reachable from it. `resolve_field(cls, field)` is the static
    type of a class's field, over the class's own type parameters."""
    defs: dict[tuple, tuple] = {}

    def form(t: T.Type) -> tuple:
        if isinstance(t, T.Union):
            ms: list[tuple] = []
            for m in t.members:
                f = form(m)
                for x in (f[1] if f[0] == "union" else (f,)):
                    if x not in ms:
                        ms.append(x)
            return ms[0] if len(ms) == 1 else ("union", tuple(ms))
        if isinstance(t, T.Arr):
            return ("array", form(t.elem))
        if isinstance(t, T.MapT):
            return ("map", form(t.key), form(t.val))
        if isinstance(t, T.ClassT):
            test = ("class", t.cls.fqn, tuple(form(a) for a in t.args)) if t.args else ("class", t.cls.fqn)
            if test not in defs:
                defs[test] = ()  # a recursive class reaches itself here
                env = {g.name: a for g, a in zip(t.cls.decl.generics, t.args)}
                defs[test] = ("fields", tuple(
                    (f.name, _attr(f.attrs, "alias"), _has(f.attrs, "skip"),
                     form(T.subst(resolve_field(t.cls, f), env) if env else resolve_field(t.cls, f)))
                    for f in t.cls.fields))
            return test
        if isinstance(t, T.EnumT) and t.variant is None:
            test = ("enum", t.enum.fqn)
            defs[test] = ("variants", tuple((v.name, _attr(v.attrs, "alias"), _has(v.attrs, "skip"))
                                            for v in t.enum.decl.variants))
            return test
        if t == T.BYTES:
            return ("uint8array",)
        test = of(t)
        fields = STD_FIELDS.get(t.name) if isinstance(t, T.StdT) and test[0] == "class" else None
        if fields is None and test[0] == "class" and t.name in stdsigs.DATA_CLASSES and test not in defs:
            defs[test] = ()  # `Retry` reaches `ai.Client`, which may be a `Retry`
            fields = tuple((n, resolve_field(t.name, ft)) for n, ft in stdsigs.STD_CLASSES[t.name].items())
        if fields is not None:  # a stdlib class decoded field by field (`baml.time.Duration`)
            defs[test] = ("fields", tuple((n, None, False, form(ft)) for n, ft in fields))
        return test

    root = form(t)
    return root, tuple(defs.items())


def _attr(attrs, name: str):
    for a in attrs:
        if a.name == name and a.level == 1 and a.args and isinstance(getattr(a.args[0], "value", None), str):
            return a.args[0].value
    return None


def _has(attrs, name: str) -> bool:
    return any(a.name == name and a.level == 1 for a in attrs)
