"""`reflect`: run-time type values. A `reflect.Type` is an `RType` (a descriptor of
sema/reflect.py and the program's Reflector); its kind views (`reflect.Class`, `reflect.Array`,
…, what `kind()`/`as_class()`/`array()` return) are `RView`s. Both are immutable, compare by
the type they describe (a union as the set of its members) and render as it is written.

Receiver kinds: "type" (`RType`) and "typeview" (`RView`)."""
from __future__ import annotations

import ast

from ...sema import reflect as R
from .. import ops
from ..values import OMITTED, BigInt, Instance, RType, RView, TypedList, TypedMap, Variant
from ._registry import _KIND_OF, FUNCTIONS, METHODS, method


METHODS.setdefault("type", {})
METHODS.setdefault("typeview", {})
_KIND_OF[RType] = "type"
_KIND_OF[RView] = "typeview"

for _q, _f in (("reflect.errors.CompilationError", ["message", "diagnostics"]),
               ("reflect.errors.InvalidArgument", ["message"])):
    ops.BUILTIN_CLASSES.setdefault(_q, ops.ClassInfo(_q, _q.rpartition(".")[2], _f))
for _n, _f in (("Field", ["name", "type", "meta", "_owner"]), ("Value", ["name", "meta"]),
               ("Parameter", ["name", "type", "optional"])):
    _q = {"Field": "reflect.class.Field", "Value": "reflect.enum.Value",
          "Parameter": "reflect.function.Parameter"}[_n]
    ops.BUILTIN_CLASSES.setdefault(_q, ops.ClassInfo(_q, _n, _f))
ops.BUILTIN_CLASSES.setdefault("reflect.Meta", ops.ClassInfo(
    "reflect.Meta", "Meta", ["alias", "description", "docstring", "other", "skip"]))
# `reflect.class.Field`'s methods: its metadata, and its value — null, as every descriptor
# Assay makes describes the type only (`Class.fields()`: no owner)
_FIELD = ops.BUILTIN_CLASSES["reflect.class.Field"].py
_FIELD.m_metadata = lambda self: self.f_meta
_FIELD.m_value = lambda self: None


# ── values → descriptors ──

_PRIM_OF = {int: "int", float: "float", str: "string", bool: "bool", type(None): "null",
            BigInt: "bigint", bytearray: "uint8array"}


def describe_value(v, refl=None) -> tuple:
    """The concrete run-time type of `v` (never a literal type). Arrays and maps record no
    element type where their literal needs none (values.TypedList): theirs is the union of their
    elements' types (`unknown` if empty)."""
    t = type(v)
    p = _PRIM_OF.get(t)
    if p is not None:
        return ("prim", p)
    if t is TypedList:  # the element type it was built with
        return ("array", from_test(v.elem))
    if t is TypedMap:
        return ("map", from_test(v.elem[0]), from_test(v.elem[1]))
    if t is list:
        return ("array", _elements(v, refl))
    if t is dict:
        return ("map", _elements([ops.unkey(k) for k in v], refl), _elements(list(v.values()), refl))
    if t is Variant:
        return ("enum", v.enum.fqn)
    if isinstance(v, Instance):
        targs = getattr(v, "_targs", None)
        args = tuple(from_test(a) for a in _parse_targs(targs)) if targs else ()
        if refl is not None and refl.classes.get(v._class.fqn) is not v._class:
            return ("class", v._class.fqn, args, v._class.name)  # another program's class
        return ("class", v._class.fqn, args)
    if t is RType:
        return ("reflect", "Type")
    if t is RView:
        return ("reflect", v.kind)
    if refl is not None and callable(v):
        return refl.function_desc(v)
    return R.UNKNOWN


_TARGS: dict[str, tuple] = {}


def _parse_targs(targs: str) -> tuple:
    got = _TARGS.get(targs)
    if got is None:
        got = _TARGS[targs] = ast.literal_eval(targs)
    return got


def _elements(xs: list, refl) -> tuple:
    return R.union([describe_value(x, refl) for x in xs]) if xs else R.UNKNOWN


def from_test(t: tuple) -> tuple:
    """A descriptor from a run-time type test (mir/typetest.py), as generic instances record
    their type arguments."""
    k = t[0]
    if k in ("int", "float", "string", "bool", "null", "bigint", "never"):
        return ("prim", k)
    if k == "lit":
        return ("lit", t[1])
    if k == "class":
        return ("class", t[1], tuple(from_test(a) for a in t[2]) if len(t) > 2 else ())
    if k in ("enum", "variant"):
        return t
    if k == "array":
        return ("array", from_test(t[1]))
    if k == "map":
        return ("map", from_test(t[1]), from_test(t[2]))
    if k == "union":
        return R.union([from_test(m) for m in t[1]])
    return R.UNKNOWN


def type_of(refl, desc: tuple, targs) -> RType:
    """`reflect.Type.of<T>()`: T's descriptor, the caller's type arguments substituted; one
    value per type (the engine's `LoadType` gives the same object: `includes` finds it)."""
    if R.has_tvar(desc):
        desc = R.subst(desc, targs if type(targs) is tuple else None)
    k = repr(desc)  # as written (`int | string` renders apart from `string | int`)
    t = refl.interned.get(k)
    if t is None:
        t = refl.interned[k] = RType(desc, refl)
    return t


def bind_targs(descs: tuple, targs) -> tuple:
    """The type arguments a call passes to a reifying generic function (`$targs`)."""
    own = targs if type(targs) is tuple else None
    return tuple(R.subst(d, own) if R.has_tvar(d) else d for d in descs)


def method_targs(recv, own, n: int) -> tuple:
    """A generic class's method's `$targs`: its receiver's recorded type arguments (unknown
    where it recorded none), then its own."""
    rec = getattr(recv, "_targs", None)
    cls = tuple(from_test(a) for a in _parse_targs(rec)) if rec else ()
    cls = (cls + (R.UNKNOWN,) * n)[:n]
    return cls + (own if type(own) is tuple else ())


def host_targs(params: list, values: list, n: int, refl) -> tuple:
    """The type arguments a host call's values show for parameter descriptors `params` (over
    ('tvar', k)): each the union of what the values bound it to; unknown where a null or an
    empty container is all there is (the engine's internal `$rust_type`); None where no
    parameter's type names it."""
    seen: dict[int, list] = {}
    named: set = set()
    for p, v in zip(params, values):
        if v is not OMITTED:
            named |= {k for k in range(n) if _names(p, k)}
            _unify(p, describe_value(v, refl), seen)
    return tuple(R.union(seen[k]) if k in seen else R.UNKNOWN if k in named else None for k in range(n))


def _names(d, k: int) -> bool:
    if type(d) is not tuple:
        return False
    return d == ("tvar", k) or any(_names(x, k) for x in d)


def _unify(p: tuple, d: tuple, seen: dict) -> None:
    k = p[0]
    if d == R.UNKNOWN or d == R.NULL:
        return
    if k == "tvar":
        seen.setdefault(p[1], []).append(d)
    elif k == "array" and d[0] == "array":
        _unify(p[1], d[1], seen)
    elif k == "map" and d[0] == "map":
        _unify(p[1], d[1], seen)
        _unify(p[2], d[2], seen)
    elif k == "union":  # `T?`: a value that is not null binds T
        rest = [m for m in p[1] if m != R.NULL]
        if len(rest) == 1:
            _unify(rest[0], d, seen)
    elif k == "class" and d[0] == "class" and d[1] == p[1] and len(d[2]) == len(p[2]):
        for pa, da in zip(p[2], d[2]):
            _unify(pa, da, seen)


def of_value(refl, v) -> RType:
    return RType(describe_value(v, refl), refl)


# ── reflect.Type ──

def _view(t: RType, kind: str | None = None) -> RView:
    return RView(kind or R.kind_view(t.desc), t)


def _as(kind: str):
    def as_kind(self: RType):
        return RView(kind, self) if R.kind_view(self.desc) == kind else None
    return as_kind


for _kind in ("Class", "Enum", "Union", "Literal", "Array", "Map", "Interface", "Primitive", "Function"):
    method("type", "as_" + _kind.lower())(_as(_kind))


def _type(x) -> RType:
    """A TypeView argument's `reflect.Type` (a kind view passes the type it wraps)."""
    return x.ty if type(x) is RView else x


@method("type")
def to_string(self: RType) -> str:
    return R.render(self.desc, self.refl.names)


@method("type")
def as_type(self: RType) -> RType:
    return self


@method("type")
def kind(self: RType) -> RView:
    return _view(self)


@method("type")
def array(self: RType) -> RView:
    return RView("Array", RType(("array", self.desc), self.refl))


@method("type")
def optional(self: RType) -> RView:
    return RView("Union", RType(R.union([self.desc, R.NULL]), self.refl))


@method("type")
def implements(self: RType, other) -> bool:
    return self.refl.implements(self.desc, _type(other).desc)


@method("type")
def implemented_by(self: RType, other) -> bool:
    o = _type(other)
    return o.refl.implements(o.desc, self.desc)


# ── the kind views: TypeView's defaults, then each kind's own ──

for _name in ("to_string", "kind", "array", "optional", "implements", "implemented_by"):
    method("typeview", _name)((lambda f: lambda self, *a: f(self.ty, *a))(METHODS["type"][_name].fn))


@method("typeview", "as_type")
def view_as_type(self: RView) -> RType:
    return self.ty


@method("typeview")
def name(self: RView) -> str:
    return R.render(self.ty.desc, self.ty.refl.names)


@method("typeview")
def element_type(self: RView) -> RType:
    return RType(self.ty.desc[1], self.ty.refl)


@method("typeview")
def key_type(self: RView) -> RType:
    return RType(self.ty.desc[1], self.ty.refl)


@method("typeview")
def value_type(self: RView) -> RType:
    return RType(self.ty.desc[2], self.ty.refl)


@method("typeview")
def member_types(self: RView) -> list:
    return [RType(m, self.ty.refl) for m in self.ty.desc[1]]


@method("typeview")
def value(self: RView):
    d = self.ty.desc
    if d[0] == "variant":
        return self.ty.refl.variant(d[1], d[2])
    return BigInt(d[1]) if d[0] == "blit" else d[1]


@method("typeview")
def return_type(self: RView) -> RType:
    return RType(self.ty.desc[2], self.ty.refl)


def _meta(m: dict):
    return ops.make_builtin("reflect.Meta", **m)


@method("typeview")
def fields(self: RView) -> list:
    refl = self.ty.refl
    return [ops.make_builtin("reflect.class.Field", name=n, type=RType(d, refl), meta=_meta(m))
            for n, d, m in refl.program.class_fields(self.ty.desc)]


@method("typeview")
def metadata(self: RView):
    return _meta(self.ty.refl.program.decl_meta(self.ty.desc))


@method("typeview")
def values(self: RView) -> list:
    return [ops.make_builtin("reflect.enum.Value", name=n, meta=_meta(m))
            for n, m in self.ty.refl.program.enum_variants(self.ty.desc)]


@method("typeview")
def params(self: RView) -> list:
    refl = self.ty.refl
    return [ops.make_builtin("reflect.function.Parameter", name=n, type=RType(d, refl), optional=o)
            for n, d, o in self.ty.desc[1]]


# ── the pure constructors (`reflect.Map.new` …): natives bound to the program's Reflection ──

def map_new(refl, key, value) -> RView:
    return RView("Map", RType(("map", _type(key).desc, _type(value).desc), refl))


def union_new(refl, types: list) -> RView:
    """`reflect.Union.new`: the members as given (the engine keeps duplicates and nesting)."""
    if not types:
        ops.throw_error("reflect.errors.CompilationError",
                        message="a runtime union must contain at least one member", diagnostics=[])
    return RView("Union", RType(("union", tuple(_type(t).desc for t in types)), refl))


def literal_new(refl, value) -> RView:
    return RView("Literal", RType(("blit", int(value)) if type(value) is BigInt else ("lit", value), refl))


def enum_get_value(refl, value) -> str:
    if type(value) is not Variant:
        got = "any" if value is None else R.render(describe_value(value, refl), refl.names)  # null: the engine's word
        ops.throw_error("reflect.errors.InvalidArgument",
                        message=f"reflect.Enum.get_value expects an enum value, got {got}")
    return value.name


CONSTRUCTORS = {"reflect.Map.new": map_new, "reflect.Union.new": union_new,
                "reflect.Literal.new": literal_new, "reflect.Enum.get_value": enum_get_value}


class Reflection:
    """What type values of one loaded program share: the program's Reflector (sema) and its
    run-time enum variants (a literal type's `value()`)."""

    def __init__(self, program, classes: dict, enums: dict, function_fqn, mir: dict):
        self.program = program
        self.classes = classes  # fqn → ClassInfo: an instance of another program's class is foreign
        self.enums = enums
        self.function_fqn = function_fqn  # a function value → (fqn, bound) | None (bex/vm.py)
        self.mir = mir  # fqn → lowered MirFunction (a lambda's return type as inferred)
        self.compiler = None  # files, mounts, shared runtime, prefix → a program (set by the compiler)
        self.interned: dict = {}  # a descriptor's repr → the RType `reflect.Type.of` gives for it
        self._sigs: dict = {}  # (fqn, bound) → the function's signature, type parameters open
        self._natives: dict | None = None  # a stdlib function's native → its qualified name

    def function_desc(self, v) -> tuple:
        """A BAML function value's signature (a bound method's without `self`)."""
        got = self.function_fqn(v)
        if got is None:
            return self.native_sig(v) or R.UNKNOWN
        own = self._own_sig(got)
        return R.subst(own, self.targs_of(v, open_=False)) if R.has_tvar(own) else own

    def _own_sig(self, got: tuple) -> tuple:
        """The signature of function `got` = (fqn, bound), its type parameters ('tvar', k)."""
        own = self._sigs.get(got)
        if own is None:
            mir = self.mir.get(got[0])
            ret = mir.locals[0].ty if mir is not None else None
            own = self._sigs[got] = self.program.function_desc(got[0], got[1], ret, tvars=True)
        return own

    def fn_is(self, v, sig: tuple) -> bool:
        """Run-time `v is <function type sig>`: v's own signature within it; a value whose
        signature Assay does not know (a host callable passed untyped) fits any."""
        if self.program is None:
            return True
        got = self.function_fqn(v)
        if got is None:
            own = self.native_sig(v)  # known throws: unknown here is the declared type's
            return own is None or (R.fn_within(own, sig, self.implements)
                                   and R.within(own[3], sig[3], self.implements))
        own = self._own_sig(got)
        if own == R.UNKNOWN:
            return True
        if R.has_tvar(own):
            own = R.subst(own, self.targs_of(v))
        return R.fn_within(own, sig, self.implements)

    def native_sig(self, v) -> tuple | None:
        """The signature of a callable that is no BAML function: a builtin's method bound to its
        receiver (`"s".length`), a stdlib function (`baml.json.stringify`), or a host callable
        passed where a function type is declared (it has that type, as the engine's bridge
        gives it); None for any other (a host callable passed untyped)."""
        sig = getattr(v, "baml_sig", None)
        if sig is not None:
            return sig
        bound = getattr(v, "baml_native", None)
        if bound is not None:
            return self.program.native_desc(bound[0], bound[1], describe_value(v.args[0], self))
        at = getattr(v, "baml_native_at", None)  # `string.from<int>`: at its type arguments
        if at is not None:
            return self.program.native_desc(None, at[0], None, at[1])
        if self._natives is None:
            self._natives = {n.fn: q for q, n in FUNCTIONS.items()}
        try:
            name = self._natives.get(v)
        except TypeError:  # an unhashable callable
            return None
        return self.program.native_desc(None, name) if name is not None else None

    def targs_of(self, v, open_: bool = True) -> tuple:
        """The type arguments a function value's signature is at, as far as it shows them:
        a bound method's class's from its receiver, a specialized generic function's
        (`id<int>`) its own; the others left open (('tvar', k)), or unknown (`open_` False)."""
        bound = getattr(v, "__self__", None) or getattr(v, "baml_self", None)
        recv = getattr(bound, "_targs", None) if isinstance(bound, Instance) else None
        known = tuple(from_test(a) for a in _parse_targs(recv)) if recv else ()
        known += getattr(v, "baml_targs", None) or ()
        return known + tuple(("tvar", k) for k in range(len(known), 16)) if open_ else known

    @property
    def names(self) -> dict | None:
        return self.program.names if self.program is not None else None

    def implements(self, t: tuple, iface: tuple) -> bool:
        return self.program.implements(t, iface)

    def variant(self, fqn: str, name: str):
        return self.enums[fqn].variants[name]
