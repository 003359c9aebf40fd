"""Static types. Immutable, hashable, cheap. `UNKNOWN` is the checker's "don't know": it is
assignable both ways and silences every error that involves it."""
from __future__ import annotations

from . import stdsigs


class Type:
    __slots__ = ()

    def __repr__(self) -> str:
        return show(self)

    def join_same(self, o: "Type") -> "Type":
        """This type joined with an equal one (`union`): itself, unless it carries more than
        its identity (an iterator's errors, a future's spawned bodies)."""
        return self


class Prim(Type):
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


INT = Prim("int")
FLOAT = Prim("float")
STRING = Prim("string")
BOOL = Prim("bool")
NULL = Prim("null")
VOID = Prim("void")
NEVER = Prim("never")
UNKNOWN = Prim("unknown")
# a declared `unknown` (the checker's own, above, is don't-know): every value is one, and one is
# none of the other types until tested
TOP = Prim("unknown")
BIGINT = Prim("bigint")
HASHER = Prim("baml.Hasher")  # what `x.hash(state)` takes: a `baml.hash.Hasher`
BYTES = Prim("uint8array")
PRIMS = {p.name: p for p in (INT, FLOAT, STRING, BOOL, NULL, VOID, NEVER, UNKNOWN, BIGINT, BYTES)}


class Lit(Type):
    """Literal type `1`, `"a"`, `true`; base is INT, STRING or BOOL."""
    __slots__ = ("value", "base")

    def __init__(self, value, base: Prim):
        self.value = value
        self.base = base

    def __eq__(self, o):
        return isinstance(o, Lit) and o.base is self.base and o.value == self.value

    def __hash__(self):
        return hash((self.base.name, self.value))


class Arr(Type):
    __slots__ = ("elem",)

    def __init__(self, elem: Type):
        self.elem = elem

    def __eq__(self, o):
        return isinstance(o, Arr) and o.elem == self.elem

    def __hash__(self):
        return hash(("arr", self.elem))


class MapT(Type):
    __slots__ = ("key", "val")

    def __init__(self, key: Type, val: Type):
        self.key = key
        self.val = val

    def __eq__(self, o):
        return isinstance(o, MapT) and o.key == self.key and o.val == self.val

    def __hash__(self):
        return hash(("map", self.key, self.val))


class Union(Type):
    """Flattened, deduplicated, at least two members (build with `union`)."""
    __slots__ = ("members",)

    def __init__(self, members: tuple):
        self.members = members

    def __eq__(self, o):
        return isinstance(o, Union) and set(o.members) == set(self.members)

    def __hash__(self):
        return hash(frozenset(self.members))


class HiddenUnion(Union):
    """A union whose nullability the engine's interpolation check does not see: one a type
    alias names (`type O = int?`; `${v}` with `v: O` is accepted), and the result of a generic
    function whose type arguments are inferred (`${first(xs)}` for `first<T>(xs: T[]) -> T?`:
    the engine checks it while its type is still an inference variable)."""
    __slots__ = ()


class ClassT(Type):
    __slots__ = ("cls", "args")

    def __init__(self, cls, args: tuple = ()):
        self.cls = cls  # sema.program.ClassDef
        self.args = args

    def __eq__(self, o):
        return isinstance(o, ClassT) and o.cls is self.cls and o.args == self.args

    def __hash__(self):
        return hash((id(self.cls), self.args))


class IfaceT(Type):
    """A value of any type implementing interface `iface` (sema.program.InterfaceDef)."""
    __slots__ = ("iface", "args", "names")

    def __init__(self, iface, args: tuple = (), names: tuple = ()):
        self.iface = iface
        self.args = args
        self.names = names  # per argument: the associated type it binds (`Item = int`), or None

    def positional(self) -> tuple:
        """The interface's type arguments, without associated-type bindings."""
        if not any(n is not None for n in self.names):
            return self.args
        return tuple(a for a, n in zip(self.args, self.names) if n is None)

    def __eq__(self, o):
        return isinstance(o, IfaceT) and o.iface is self.iface and o.args == self.args

    def __hash__(self):
        return hash(("iface", id(self.iface), self.args))


class EnumT(Type):
    """An enum, or one of its variants as a literal type when `variant` is set."""
    __slots__ = ("enum", "variant")

    def __init__(self, enum, variant: str | None = None):
        self.enum = enum  # sema.program.EnumDef
        self.variant = variant

    def __eq__(self, o):
        return isinstance(o, EnumT) and o.enum is self.enum and o.variant == self.variant

    def __hash__(self):
        return hash((id(self.enum), self.variant))


class FuncT(Type):
    """params: tuple of (name | None, type, has_default)."""
    __slots__ = ("params", "ret", "throws")

    def __init__(self, params: tuple, ret: Type, throws: Type | None = None):
        self.params = params
        self.ret = ret
        self.throws = throws

    def __eq__(self, o):
        return (isinstance(o, FuncT) and o.params == self.params and o.ret == self.ret
                and o.throws == self.throws)

    def __hash__(self):
        return hash(("fn", self.params, self.ret))


class AnyFnT(Type):
    """`reflect.AnyFunction<Returns = R, Throws = E>`: any function value whose result is an R
    and whose throws are within E (parameters erased); both `unknown` (TOP) when not written."""
    __slots__ = ("ret", "throws")

    def __init__(self, ret: Type, throws: Type):
        self.ret = ret
        self.throws = throws

    def __eq__(self, o):
        return isinstance(o, AnyFnT) and o.ret == self.ret and o.throws == self.throws

    def __hash__(self):
        return hash(("anyfn", self.ret, self.throws))


class JsonT(Type):
    """`json` (the stdlib's `baml.json.json`): the recursive alias `null | bool | int | bigint |
    float | string | json[] | map<string, json>`, one type to the checker (the engine names it,
    `j + 1` is an error about `baml.json.json`); `members` expands it where a test narrows."""
    __slots__ = ()

    def __reduce__(self):
        return "JSON"  # one object: copies and pickles are it (tests use `is JSON`)


JSON = JsonT()


class TVar(Type):
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __eq__(self, o):
        return isinstance(o, TVar) and o.name == self.name

    def __hash__(self):
        return hash(("tv", self.name))


class StdT(Type):
    """A stdlib type sema knows only by name (`baml.panics.*`, `baml.errors.*`,
    `baml.ops.Ordering` and its variants). kind: class, panic (any panic), enum, variant."""
    __slots__ = ("kind", "name", "variant")

    def __init__(self, kind: str, name: str, variant: str | None = None):
        self.kind = kind
        self.name = name
        self.variant = variant

    def __eq__(self, o):
        return isinstance(o, StdT) and (o.kind, o.name, o.variant) == (self.kind, self.name, self.variant)

    def __hash__(self):
        return hash(("std", self.kind, self.name, self.variant))


CLIENT = StdT("iface", "ai.Client")  # the interface every LLM client class implements


class PlanT(StdT):
    """`baml.spawn.Plan<T, E>` (a spawn's plan, `spawn with` modifiers): its value and error
    types. Assignable as any plan (StdT); the checker's `fits` compares the value types."""
    __slots__ = ("value", "error")

    def __init__(self, value: Type, error: Type):
        super().__init__("class", "baml.spawn.Plan")
        self.value = value
        self.error = error


class IterT(Type):
    """A `baml.iter` iterator of `item`s: cls names the stdlib class it is (`Range`, `Repeat`,
    `Peekable`, `ArrayIterator`) or `Iterator` (an adapter, known only by the interface).
    `err`: what advancing it may throw (its `Error`), as the effect sites it comes from (the
    callbacks its adapters were given, a declared `Error`): not part of its identity, since
    what a callback throws is solved only after the bodies are checked (sema/effects.py)."""
    __slots__ = ("item", "cls", "err", "split")

    def __init__(self, item: Type, cls: str = "Iterator", err: tuple = (), split: tuple = ()):
        self.item = item
        self.cls = cls
        self.err = err
        self.split = split  # joined from iterators of these errs (the engine's union of them)

    def __eq__(self, o):
        return isinstance(o, IterT) and o.item == self.item and o.cls == self.cls

    def __hash__(self):
        return hash(("iter", self.item, self.cls))

    def join_same(self, o: "IterT") -> "IterT":
        """Two iterators of one item joined advance with both one's errors; which errs it came
        from is kept, since the engine's join of different `Error`s is a union of two iterator
        types (sema/effects.py compares them once the callbacks are solved)."""
        if o.err == self.err:
            return self
        groups = (self.split or (self.err,)) + (o.split or (o.err,))
        return IterT(self.item, self.cls, self.err + tuple(s for s in o.err if s not in self.err), groups)


def iter_of(item: Type, cls: str = "Iterator", err: tuple = ()) -> Type:
    """An iterator type, or unknown where its item is not known (the checker stays silent)."""
    return UNKNOWN if has_unknown(item) or has_tvar(item) or item is NEVER else IterT(widen(item), cls, err)


# ───────────────────────────── helpers ─────────────────────────────

def lit_int(v: int) -> Lit:
    return Lit(v, INT)


def lit_str(v: str) -> Lit:
    return Lit(v, STRING)


def lit_bool(v: bool) -> Lit:
    return Lit(v, BOOL)


def union(*ts: Type) -> Type:
    out: list[Type] = []
    for t in ts:
        ms = t.members if isinstance(t, Union) else (t,)
        for m in ms:
            if m is UNKNOWN:
                return UNKNOWN
            if m is NEVER:
                continue
            if m in out:
                i = out.index(m)
                out[i] = out[i].join_same(m)
                continue
            out.append(m)
    if TOP in out:
        return TOP
    if not out:
        return NEVER
    if NULL in out and JSON in out:  # `json` holds null: a join with null is json (`json?` is not: optional)
        out.remove(NULL)
    if len(out) > 1:
        out = _whole_enums(out)
    if len(out) > 1:
        bases = {m for m in out if isinstance(m, Prim)}
        enums = {m.enum for m in out if isinstance(m, EnumT) and m.variant is None}
        if bases or enums:
            out = [m for m in out if not ((isinstance(m, Lit) and m.base in bases) or
                                          (isinstance(m, EnumT) and m.variant is not None
                                           and m.enum in enums))]
    if len(out) == 1:
        return out[0]
    return Union(tuple(out))


def _whole_enums(out: list) -> list:
    """Every variant of an enum together is the enum (`E.A | E.B` is `E` when E has just A, B)."""
    seen: dict = {}
    for m in out:
        if isinstance(m, EnumT) and m.variant is not None:
            seen.setdefault(m.enum, set()).add(m.variant)
    whole = {en for en, vs in seen.items() if vs >= set(en.variants)}
    if not whole:
        return out
    res: list = []
    for m in out:
        m = EnumT(m.enum) if isinstance(m, EnumT) and m.enum in whole else m
        if m not in res:
            res.append(m)
    return res


# what `json` is made of (a test of a json value narrows to these)
JSON_MEMBERS = (NULL, BOOL, INT, BIGINT, FLOAT, STRING, Arr(JSON), MapT(STRING, JSON))


def has_json(t: Type) -> bool:
    """Is `json` itself one of t's members (`json`, `json?`, `json | P`)?"""
    return t is JSON or (isinstance(t, Union) and JSON in t.members)


def optional(t: Type) -> Type:
    if t is JSON:  # written `json?`: the engine keeps it nullable (interpolating it is E0001)
        return Union((JSON, NULL))
    return union(t, NULL)


def members(t: Type) -> tuple:
    """t's alternatives: a union's members, `json` as the types it is made of."""
    if isinstance(t, Union):
        if JSON not in t.members:
            return t.members
        return tuple(dict.fromkeys(x for m in t.members for x in members(m)))
    return JSON_MEMBERS if t is JSON else (t,)


def widen(t: Type) -> Type:
    """Literal types widen when bound to a variable."""
    if isinstance(t, Lit):
        return t.base
    if isinstance(t, EnumT) and t.variant is not None:
        return EnumT(t.enum)
    if isinstance(t, Union):
        return _hidden_as(t, union(*(widen(m) for m in t.members)))
    return t


def _hidden_as(t: Union, r: Type) -> Type:
    return HiddenUnion(r.members) if isinstance(t, HiddenUnion) and isinstance(r, Union) else r


def widen_scalar(t: Type) -> Type:
    """What a `let`, an array or map literal and an `if` keep of a literal type: the engine
    widens `1`, `"a"`, `true` to their primitive but keeps an enum variant (`E.A`)."""
    if isinstance(t, Lit):
        return t.base
    if isinstance(t, Union):
        return _hidden_as(t, union(*(widen_scalar(m) for m in t.members)))
    return t


def base(t: Type) -> Type:
    """A literal's primitive (also for a union of literals of one primitive)."""
    if isinstance(t, Lit):
        return t.base
    if isinstance(t, Union) and all(isinstance(m, Lit) for m in t.members):
        bs = {m.base for m in t.members}
        if len(bs) == 1:
            return bs.pop()
    return t


def strip_null(t: Type) -> Type:
    if has_json(t):  # `json` less null: what it is made of, less null
        return union(*(m for m in members(t) if m is not NULL))
    if isinstance(t, Union):
        return union(*(m for m in t.members if m is not NULL))
    return NEVER if t is NULL else t


def has_tvar(t: Type) -> bool:
    if isinstance(t, TVar):
        return True
    if isinstance(t, Arr):
        return has_tvar(t.elem)
    if isinstance(t, MapT):
        return has_tvar(t.key) or has_tvar(t.val)
    if isinstance(t, Union):
        return any(has_tvar(m) for m in t.members)
    if isinstance(t, (ClassT, IfaceT)):
        return any(has_tvar(a) for a in t.args)
    if isinstance(t, FuncT):
        return has_tvar(t.ret) or any(has_tvar(p[1]) for p in t.params)
    if isinstance(t, AnyFnT):
        return has_tvar(t.ret) or has_tvar(t.throws)
    if isinstance(t, IterT):
        return has_tvar(t.item)
    return False


def has_unknown(t: Type) -> bool:
    if t is UNKNOWN or t is TOP:  # a declared `unknown` tells no more of its values
        return True
    if isinstance(t, Arr):
        return has_unknown(t.elem)
    if isinstance(t, MapT):
        return has_unknown(t.key) or has_unknown(t.val)
    if isinstance(t, Union):
        return any(has_unknown(m) for m in t.members)
    if isinstance(t, ClassT):
        return any(has_unknown(a) for a in t.args)
    if isinstance(t, FuncT):
        return True
    if isinstance(t, AnyFnT):  # its declared `unknown`s accept any function: precise
        return t.ret is UNKNOWN or t.throws is UNKNOWN
    return False


def _subst_throws(t, env: dict):
    """A function type's `throws` at type arguments that bind all it names (`throws E` with
    E given); one naming a parameter not given keeps it (what a call passes binds it later)."""
    if t is None or not isinstance(t, (TVar, Union)) or not all(
            m.name in env for m in members(t) if isinstance(m, TVar)):
        return t
    return subst(t, env)


def subst(t: Type, env: dict) -> Type:
    """Replace type variables; unbound ones become UNKNOWN."""
    if isinstance(t, TVar):
        return env.get(t.name, UNKNOWN)
    if isinstance(t, Arr):
        return Arr(subst(t.elem, env))
    if isinstance(t, MapT):
        return MapT(subst(t.key, env), subst(t.val, env))
    if isinstance(t, Union):
        return union(*(subst(m, env) for m in t.members))
    if isinstance(t, ClassT) and t.args:
        return ClassT(t.cls, tuple(subst(a, env) for a in t.args))
    if isinstance(t, IfaceT) and t.args:
        return IfaceT(t.iface, tuple(subst(a, env) for a in t.args), t.names)
    if isinstance(t, FuncT):
        return FuncT(tuple((n, subst(p, env), d) for n, p, d in t.params), subst(t.ret, env),
                     _subst_throws(t.throws, env))
    if isinstance(t, AnyFnT):
        return AnyFnT(subst(t.ret, env), subst(t.throws, env))
    if isinstance(t, IterT) and has_tvar(t.item):
        return iter_of(subst(t.item, env), t.cls, t.err)
    return t


def _is(t: Type, p: Prim) -> bool:
    return t is p or (isinstance(t, Lit) and t.base is p)


def is_int(t) -> bool:
    return t is not None and _is(t, INT)


def is_float(t) -> bool:
    return t is FLOAT


def is_string(t) -> bool:
    return t is not None and _is(t, STRING)


def is_bool(t) -> bool:
    return t is not None and _is(t, BOOL)


def assignable(src: Type, dst: Type) -> bool:
    """False only when a value of type `src` is surely not a `dst` (conservative)."""
    if src is dst or src is UNKNOWN or dst is UNKNOWN or src is NEVER:
        return True
    if dst is TOP:
        return True
    if isinstance(src, TVar) or isinstance(dst, TVar):
        return dst is not JSON  # a type parameter's value may be of any type: not json
    if isinstance(src, Union):
        return all(assignable(m, dst) for m in src.members)
    if isinstance(dst, IfaceT):
        if isinstance(src, IfaceT) and src.iface is dst.iface:  # `Src<Item = int>` is no `Src<Item = string>`
            return dst.iface.implemented_by(src, dst.args)
        binds = {n: a for a, n in zip(dst.args, dst.names) if n is not None}
        return dst.iface.implemented_by(src, dst.positional(), binds)  # a class: by its blocks' type arguments
    if src is JSON and not has_json(dst):  # each type json is made of (`null | … | json[]`)
        return all(assignable(m, dst) for m in JSON_MEMBERS)
    if isinstance(dst, Union):
        return any(assignable(src, m) for m in dst.members)
    if isinstance(dst, IterT) and dst.cls == "Iterable":
        return _iterable(src, dst.item)
    if isinstance(dst, IterT):  # a user class implementing `Iterator` may be one too
        return not isinstance(src, IterT) or src.cls != "Iterable" and same(src.item, dst.item)
    if isinstance(src, IfaceT) or src is TOP:
        return False  # an interface value is not known to be any one type
    if dst is JSON:
        return _json_takes(src)
    if dst is VOID or dst is NULL:
        return src is NULL or src is VOID
    if isinstance(dst, Prim):
        if dst is NEVER:
            return False
        if dst is HASHER:  # a class implementing `baml.hash.Hasher` (DefaultHasher is unknown)
            return isinstance(src, ClassT) and any(i.std == "baml.hash.Hasher" for i in src.cls.impls) or \
                src == StdT("class", "baml.hash.DefaultHasher")
        if isinstance(src, Lit):
            return src.base is dst
        return src is dst
    if isinstance(dst, Lit):
        return src == dst
    if isinstance(dst, Arr):
        return isinstance(src, Arr) and same(src.elem, dst.elem)
    if isinstance(dst, MapT):
        return isinstance(src, MapT) and same(src.key, dst.key) and same(src.val, dst.val)
    if isinstance(dst, ClassT):
        return (isinstance(src, ClassT) and src.cls is dst.cls
                and (not src.args or not dst.args or len(src.args) != len(dst.args)
                     or all(same(a, b) for a, b in zip(src.args, dst.args))))
    if isinstance(dst, EnumT):
        return (isinstance(src, EnumT) and src.enum is dst.enum
                and (dst.variant is None or src.variant == dst.variant))
    if isinstance(dst, FuncT):
        return isinstance(src, FuncT) and fn_assignable(src, dst)
    if isinstance(dst, AnyFnT):  # any function whose result (and declared throws) fit
        return isinstance(src, (FuncT, AnyFnT)) and assignable(src.ret, dst.ret) and (
            src.throws is None or assignable(src.throws, dst.throws))
    if isinstance(dst, StdT) and dst.kind == "stdiface":  # `baml.random.Rng`: its generators, a class implementing it
        return (isinstance(src, StdT) and src.name.rpartition(".")[0] == dst.name.rpartition(".")[0]) or (
            isinstance(src, ClassT) and any(i.std == dst.name for i in src.cls.impls)) or isinstance(src, IfaceT)
    if isinstance(dst, StdT) and dst.kind == "anyclass":  # `reflect.AnyClass`: any class instance
        return isinstance(src, (ClassT, IfaceT)) or isinstance(src, StdT) and src.kind in ("class", "panic", "anyclass")
    if isinstance(dst, StdT) and dst.kind == "iface":  # `ai.Client`: what implements it, no primitive
        if isinstance(src, ClassT):  # a user class implementing it (`implements ai.Client { … }`)
            return any(getattr(i, "std", None) == dst.name for i in src.cls.impls)
        return not isinstance(src, (Prim, Lit, Arr, MapT, EnumT, FuncT)) and (
            not isinstance(src, StdT) or src == dst or src.name in stdsigs.STD_IFACES[dst.name])
    if isinstance(dst, StdT) and dst.kind in ("enum", "class", "reflect"):  # `baml.ops.Ordering`, `env.X`
        return isinstance(src, StdT) and src.name == dst.name
    return True


def _iterable(src: Type, item: Type) -> bool:
    """`src` is a `baml.iter.Iterable<Item = item>`: an iterator, array or string of those
    items, or a class or interface value (which may implement it)."""
    if isinstance(src, IterT):
        return same(src.item, item)
    if isinstance(src, Arr):
        return same(src.elem, item)
    if src is STRING or isinstance(src, Lit) and src.base is STRING:
        return same(STRING, item)
    if isinstance(src, ClassT):  # its implementation's item, where the checker resolved it
        known = getattr(src.cls, "iter_item", None)
        gens = src.cls.decl.generics
        if known is not None and len(src.args) == len(gens):  # `Bag<string>`: its `Item = T` at string
            known = subst(known, {g.name: a for g, a in zip(gens, src.args)}) if gens else known
            if not has_tvar(known) and not has_unknown(known) and not has_tvar(item) and not has_unknown(item):
                return same(known, item)
        return any((i.std or "").startswith("baml.iter.") for i in src.cls.impls)
    return isinstance(src, IfaceT)


def _json_takes(src: Type) -> bool:
    if isinstance(src, Lit) or src in (NULL, VOID, BOOL, INT, BIGINT, FLOAT, STRING):
        return True
    if isinstance(src, Arr):
        return same(src.elem, JSON)
    if isinstance(src, MapT):
        return same(src.key, STRING) and same(src.val, JSON)
    return False


def same(a: Type, b: Type) -> bool:
    """Invariant positions (array elements, map keys and values, class type arguments, as the
    engine has them): False only when the two types surely differ."""
    return assignable(a, b) and assignable(b, a)


def fn_assignable(src: "FuncT", dst: "FuncT") -> bool:
    """Function types: as many parameters (a defaulted one may be left out), each taking
    the destination's; the result and the declared throws within the destination's."""
    need = sum(1 for p in src.params if not p[2])
    if not need <= len(dst.params) <= len(src.params):
        return False
    if not all(assignable(d[1], s[1]) and (d[2] or not s[2]) for s, d in zip(src.params, dst.params)):
        return False  # (a defaulted parameter is optional, `d?: int`: it takes no required one)
    if not assignable(src.ret, dst.ret):
        return False
    return (src.throws is None or dst.throws is None or has_tvar(dst.throws)
            or assignable(src.throws, dst.throws))


def show(t: Type, qualified: bool = False) -> str:
    """`t` as BAML writes it (`qualified`: classes and enums by their path below the root
    package, as the engine's run-time messages name them: `ns.P`)."""
    if isinstance(t, Prim):
        return t.name
    if isinstance(t, Lit):
        if t.base is STRING:
            return '"' + t.value.replace('\\', '\\\\').replace('"', '\\"') + '"'
        if t.base is BOOL:
            return "true" if t.value else "false"
        if t.base is BIGINT:
            return f"{int(t.value)}n"
        return str(t.value)
    if isinstance(t, Arr):
        e = show(t.elem, qualified)
        return f"({e})[]" if isinstance(t.elem, (Union, FuncT)) else f"{e}[]"
    if isinstance(t, MapT):
        return f"map<{show(t.key, qualified)}, {show(t.val, qualified)}>"
    if isinstance(t, Union):
        return " | ".join(show(m, qualified) for m in t.members)
    if isinstance(t, (ClassT, IfaceT)):
        item = t.cls if isinstance(t, ClassT) else t.iface
        a = f"<{', '.join(show(x, qualified) for x in t.args)}>" if t.args else ""
        return (_path(item) if qualified else item.name) + a
    if isinstance(t, EnumT):
        name = _path(t.enum) if qualified else t.enum.name
        return f"{name}.{t.variant}" if t.variant else name
    if isinstance(t, FuncT):
        ps = ", ".join((f"{n}{'?' if d else ''}: " if n else "") + show(p, qualified) for n, p, d in t.params)
        th = f" throws {show(t.throws, qualified)}" if t.throws is not None else ""
        return f"({ps}) -> {show(t.ret, qualified)}{th}"
    if isinstance(t, AnyFnT):
        return f"reflect.AnyFunction<Returns = {show(t.ret, qualified)}, Throws = {show(t.throws, qualified)}>"
    if isinstance(t, TVar):
        return t.name
    if t is JSON:
        return "baml.json.json"
    if isinstance(t, StdT):
        return f"{t.name}.{t.variant}" if t.variant else t.name
    if isinstance(t, IterT):
        item = show(t.item, qualified)
        return {"Range": "baml.iter.Range", "Peekable": f"baml.iter.Peekable<{item}, never>",
                "Iterable": f"baml.iter.Iterable<Error = never, Item = {item}>"}.get(
            t.cls, f"baml.iter.{t.cls}<{item}>" if t.cls != "Iterator" else f"Iterator<Item = {item}>")
    return "?"


def _path(item) -> str:
    fqn = item.fqn
    return fqn[len("user."):] if fqn.startswith("user.") else fqn
