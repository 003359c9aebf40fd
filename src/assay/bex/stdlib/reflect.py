"""`reflect`: run-time type values. A `reflect.Type` is an `RType` (a descriptor of
sema/reflect.py and the program's Reflector); its kind views (`reflect.Class`, `reflect.Array`,
…, what `kind()`/`as_class()`/`array()` return) are `RView`s. Both are immutable, compare by
the type they describe (a union as the set of its members) and render as it is written.

Receiver kinds: "type" (`RType`) and "typeview" (`RView`)."""
from __future__ import annotations

import ast
import re

from ...sema import reflect as R
from .. import ops
from ..values import OMITTED, BigInt, Instance, RType, RView, TypedList, TypedMap, Variant
from . import randomlib
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
for _q in ("reflect.errors.NotFound", "reflect.errors.TypeMismatch"):
    ops.BUILTIN_CLASSES.setdefault(_q, ops.ClassInfo(_q, _q.rpartition(".")[2], ["message"]))
# `reflect.class.Field`'s methods: its metadata, and its value (null for a descriptor of the
# type alone, `Class.fields()`: no owner)
_FIELD = ops.BUILTIN_CLASSES["reflect.class.Field"].py
_FIELD.m_metadata = lambda self: self.f_meta
_FIELD.m_value = lambda self: None if self.f__owner is None else getattr(self.f__owner, "f_" + self.f_name, None)


# ── values → descriptors ──

_PRIM_OF = {int: "int", float: "float", str: "string", bool: "bool", type(None): "null",
            BigInt: "bigint", bytearray: "uint8array"}


def describe_value(v, refl=None) -> tuple:
    """The concrete run-time type of `v` (never a literal type). Arrays and maps record no
    element type where their literal needs none (values.TypedList): theirs is the union of their
    elements' types (`unknown` if empty; an empty map's keys `string`, as `{}` is inferred)."""
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
    if t is dict:  # an empty one: a `{}` literal, whose keys the engine infers as string
        keys = _elements([ops.unkey(k) for k in v], refl) if v else ("prim", "string")
        return ("map", keys, _elements(list(v.values()), refl))
    if t is Variant:
        return ("enum", v.enum.fqn)
    if isinstance(v, Instance):
        targs = getattr(v, "_targs", None)
        args = tuple(from_test(a) for a in _parse_targs(targs)) if targs else ()
        if refl is not None and refl.classes.get(v._class.fqn) is not v._class:
            return ("class", v._class.fqn, args, v._class.name)  # another program's class
        return ("class", v._class.fqn, args)
    std = _STD_VALUES.get(t)
    if std is not None:  # a stdlib object the VM keeps as a Python one (a random generator)
        return ("class", std, ())
    if t is RType:
        return ("reflect", "Type")
    if t is RView:
        return ("reflect", v.kind)
    if refl is not None and callable(v):
        return refl.function_desc(v)
    return R.UNKNOWN


_STD_VALUES = {c: "baml.random." + c.__name__ for c in (randomlib.SystemRandom, randomlib.Xoshiro256PlusPlus,
                                                        randomlib.ChaCha20)}
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
    if k in ("int", "float", "string", "bool", "null", "bigint", "never", "uint8array", "unknown"):
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
    if k == "json":
        return R.JSON
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


def bind_type(targs, k: int, t) -> tuple:
    """`let type N = t;`: `$targs` with slot k (N's) holding type value t's descriptor."""
    own = targs if type(targs) is tuple else ()
    own = (own + (R.UNKNOWN,) * k)[:k]
    return own + (t.desc if type(t) is RType else R.UNKNOWN,)


def method_targs(recv, own, n: int) -> tuple:
    """A generic class's method's `$targs`: its receiver's recorded type arguments (unknown
    where it recorded none), then its own."""
    rec = getattr(recv, "_targs", None)
    cls = tuple(from_test(a) for a in _parse_targs(rec)) if rec else ()
    cls = (cls + (R.UNKNOWN,) * n)[:n]
    return cls + (own if type(own) is tuple else ())


def iface_targs(refl, recv, iface: str, own, n: int) -> tuple:
    """A generic interface's default method's `$targs`: the interface's type arguments as the
    receiver's class binds them in its `implements` block (at the receiver's recorded type
    arguments; unknown where none is known), then the method's own."""
    cls = getattr(recv, "_class", None)
    args = refl.program.iface_args(cls.fqn, iface) if cls is not None and refl.program is not None else None
    if args is None:
        got = (R.UNKNOWN,) * n
    else:
        rec = getattr(recv, "_targs", None)
        known = tuple(from_test(a) for a in _parse_targs(rec)) if rec else ()
        got = tuple(R.subst(a, known + (R.UNKNOWN,) * 16) if R.has_tvar(a) else a for a in args)
    return (got + (R.UNKNOWN,) * n)[:n] + (own if type(own) is tuple else ())


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
            for n, d, m in refl.class_fields(self.ty.desc)]


@method("typeview")
def metadata(self: RView):
    return _meta(self.ty.refl.decl_meta(self.ty.desc))


@method("typeview")
def values(self: RView) -> list:
    return [ops.make_builtin("reflect.enum.Value", name=n, meta=_meta(m))
            for n, m in self.ty.refl.enum_variants(self.ty.desc)]


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


# ── function values: `reflect.signature`, `reflect.call_any` ──

for _q, _f in (("reflect.Signature", ["name", "args", "opts", "returns", "errors", "docstring"]),
               ("reflect.Arg", ["name", "type"]),
               ("reflect.InvalidArgumentError", ["argument", "expected", "got"])):
    ops.BUILTIN_CLASSES.setdefault(_q, ops.ClassInfo(_q, _q.rpartition(".")[2], _f))


def _fn_desc(refl, f) -> tuple:
    """A function value's signature at the type arguments it shows (`gen<int>`)."""
    d = refl.function_desc(f, tvars=True) if callable(f) else R.UNKNOWN
    if d[0] != "fn":  # a builtin function or a host callable: Assay keeps no signature for it
        raise TypeError("reflect: the signature of a builtin function or host callable is not supported yet")
    return R.subst(R.subst(d, refl.targs_of(f)), None) if R.has_tvar(d) else d


def signature(refl, f):
    """The function value's signature: required parameters in `args`, defaulted ones in `opts`
    (a bound method's without `self`); its declared name and doc comment (null for a lambda)."""
    d = _fn_desc(refl, f)
    args, opts = [], {}
    for i, (name, pd, optional) in enumerate(d[1]):
        arg = ops.make_builtin("reflect.Arg", name=name or f"$arg{i}", type=RType(pd, refl))
        if optional:
            opts[arg.f_name] = arg
        else:
            args.append(arg)
    name, doc = refl.declared(f)
    return ops.make_builtin("reflect.Signature", name=name, args=args, opts=opts, returns=RType(d[2], refl),
                            errors=RType(d[3], refl), docstring=doc)


def _bad_argument(refl, name: str, expected: tuple, got: tuple):
    ops.throw_error("reflect.InvalidArgumentError", argument=name, expected=RType(expected, refl),
                    got=RType(got, refl))


def call_any(refl, f, args: dict):
    """Calls `f` with its arguments by name, each checked against its parameter's type first
    (`reflect.InvalidArgumentError`); an absent defaulted parameter takes its default."""
    d = _fn_desc(refl, f)
    params = {name or f"$arg{i}": (i, pd, optional) for i, (name, pd, optional) in enumerate(d[1])}
    given = {ops.unkey(k): v for k, v in args.items()}
    full = [OMITTED] * len(params)
    for key, (i, pd, optional) in params.items():
        if key not in given:
            if not optional:
                _bad_argument(refl, key, pd, R.NEVER)
            continue
        v = given[key]
        if not refl.fits(v, pd):
            _bad_argument(refl, key, pd, describe_value(v, refl))
        full[i] = v
    for key, v in given.items():  # parameters first, then the keys that name none
        if key not in params:
            _bad_argument(refl, key, d, describe_value(v, refl))
    while full and full[-1] is OMITTED:
        full.pop()
    return f(*full)


# ── `to_baml`: BAML source for a type value ──

@method("type")
def to_baml(self: RType) -> str:
    """The declarations the type reaches, as the engine lists them: the enums, then the classes
    (each where first reached, before what its fields reach: a generic class as declared, its
    type parameters by name, then its type arguments); then the type itself: a class's or enum's
    declaration, else `type RuntimeType = …`."""
    enums: list = []
    classes: list = []
    names = self.refl.names
    _declarations(self.refl, self.desc, classes, set(), names, enums=enums, texts={})
    if self.desc[0] not in ("class", "enum"):
        classes.append(f"type RuntimeType = {_baml_type(self.desc, names)}")
    return "\n\n".join(enums + classes)


method("typeview", "to_baml")(lambda self: to_baml(self.ty))


def _declarations(refl, d: tuple, out: list, seen: set, names, only=None, enums=None, texts=None) -> None:
    """The declarations `d` reaches into `out` (`enums`: the enums' apart; `only`: which fqns
    to declare; `texts`: each shown name's declaration, where two run-time ones of a name must
    be one declaration)."""
    k = d[0]
    if k in ("array", "union", "map", "fn"):
        parts = d[1] if k == "union" else (*(p for _, p, _ in d[1]), d[2]) if k == "fn" else d[1:]
        for x in parts:
            _declarations(refl, x, out, seen, names, only, enums, texts)
    elif k in ("class", "enum", "variant") and d[1] not in seen:
        seen.add(d[1])
        if k == "class":
            rows = refl.class_fields(d, declared=True)
            body = [_baml_row(f"{n} {_baml_type(fd, names)}", m) for n, fd, m in rows]
        else:
            body = [_baml_row(n, m) for n, m in refl.enum_variants(("enum", d[1]))]
        if only is None or only(d[1]):
            own = refl.decl_meta(("class" if k == "class" else "enum", d[1]))
            tail = [f"  @@{a}({_quote(own[a])})" for a in ("alias", "description") if own[a] is not None]
            name = R.render(("enum", d[1]), names)
            text = (_doc(own["docstring"], "") + f"{'class' if k == 'class' else 'enum'} {name} {{\n"
                    + "".join(b + "\n" for b in body + tail) + "}")
            if texts is None or texts.setdefault(name, text) is text:
                (out if k == "class" or enums is None else enums).append(text)
            elif texts[name] != text:
                _hir_error(f"type `{name}` has non-equivalent definitions in the same LLM render context", "E0162")
        if k == "class":
            for _, fd, _ in rows:
                _declarations(refl, fd, out, seen, names, only, enums, texts)
    if k == "class":
        for a in d[2]:
            _declarations(refl, a, out, seen, names, only, enums, texts)


def _baml_row(head: str, m: dict) -> str:
    attrs = "".join(f" @{a}({_quote(m[a])})" for a in ("alias", "description") if m[a] is not None)
    return _doc(m["docstring"], "  ") + "  " + head + attrs


def _doc(text, indent: str) -> str:
    return "".join(f"{indent}/// {line}\n" for line in text.split("\n")) if text else ""


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _baml_type(d: tuple, names) -> str:
    """A type as BAML source writes it (`X?` for a union of one type and null)."""
    if d[0] == "union" and R.NULL in d[1] and len(d[1]) == 2 and "tparam" not in (d[1][0][0], d[1][1][0]):
        other = d[1][0] if d[1][1] == R.NULL else d[1][1]
        inner = _baml_type(other, names)
        return f"({inner})?" if other[0] in ("fn", "union") else inner + "?"
    if d[0] == "array":
        inner = _baml_type(d[1], names)
        return f"({inner})[]" if d[1][0] in ("fn", "union") else inner + "[]"
    if d[0] == "map":
        return f"map<{_baml_type(d[1], names)}, {_baml_type(d[2], names)}>"
    if d[0] == "union":
        return " | ".join(_baml_type(m, names) for m in d[1])
    return R.render(d, names)


# ── run-time declarations: `reflect.Class.new`, `reflect.Enum.new`, schema metadata ──

ops.BUILTIN_CLASSES.setdefault("reflect.WithMeta", ops.ClassInfo(
    "reflect.WithMeta", "WithMeta", ["ty", "alias", "description", "docstring", "other"]))
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _compile_error(message: str):
    ops.throw_error("reflect.errors.CompilationError", message=message, diagnostics=[])


def _opt(v):
    return None if v is OMITTED else v


@method("type")
def meta(self: RType, alias=None, description=None, docstring=None, other=None):
    """The type paired with schema metadata (a class field's, in `Class.new`)."""
    return ops.make_builtin("reflect.WithMeta", ty=self, alias=_opt(alias), description=_opt(description),
                            docstring=_opt(docstring), other=_opt(other) or {})


method("typeview", "meta")(lambda self, *a: meta(self.ty, *a))


def _row_meta(m) -> dict:
    """The metadata of a `WithMeta` row or a `reflect.Meta` (none: empty)."""
    if m is None:
        return R.meta([], None)
    return {"alias": m.f_alias, "description": m.f_description, "docstring": m.f_docstring,
            "other": dict(m.f_other), "skip": getattr(m, "f_skip", False)}


def class_new(refl, name, fields, implementations=OMITTED):
    """A closed class made at run time: a declaration of its own (equal only to itself)."""
    if not _NAME.match(name):
        _compile_error(f"invalid class name `{name}`")
    rows = []
    for fname, row in fields.items():
        fname = ops.unkey(fname)
        if not _NAME.match(fname):
            _compile_error(f"invalid field name `{fname}`")
        rows.append((fname, *_row(refl, row)))
    fqn = refl.declare(name, rows)
    _implement(refl, fqn, [] if implementations in (None, OMITTED) else implementations)
    return RView("Class", RType(("class", fqn, ()), refl))


def enum_value(refl, name, alias=OMITTED, description=OMITTED, docstring=OMITTED, other=OMITTED):
    m = {"alias": _opt(alias), "description": _opt(description), "docstring": _opt(docstring),
         "other": _opt(other) or {}, "skip": False}
    return ops.make_builtin("reflect.enum.Value", name=name, meta=_meta(m))


def enum_new(refl, name, values):
    """A fresh enum made at run time (equal only to itself)."""
    if not _NAME.match(name):
        _compile_error(f"invalid enum name `{name}`")
    rows = []
    for v in values:
        row = (v, R.meta([], None)) if type(v) is str else (v.f_name, _row_meta(v.f_meta))
        if not _NAME.match(row[0]):
            _compile_error(f"invalid enum value name `{row[0]}`")
        rows.append(row)
    return RView("Enum", RType(("enum", refl.declare(name, rows)), refl))


# ── `reflect.AnyClass`: what every class instance has (reads by field name) ──

def _class_of(v) -> tuple | None:
    d = describe_value(v, None) if isinstance(v, Instance) else None
    return d if d is not None and d[0] == "class" else None


def _fields(refl, v) -> list:
    d = _class_of(v)
    return refl.class_fields(d) if d is not None else []


def _bound_field(refl, v, name, d, m):
    return ops.make_builtin("reflect.class.Field", name=name, type=RType(d, refl), meta=_meta(m), _owner=v)


def list_fields(refl, v) -> list:
    return [_bound_field(refl, v, *row) for row in _fields(refl, v)]


def find_field(refl, v, name):
    return next((_bound_field(refl, v, *row) for row in _fields(refl, v) if row[0] == name), None)


def get_field(refl, v, name):
    got = find_field(refl, v, name)
    if got is None:
        ops.throw_error("reflect.errors.NotFound", message=f"no field named {name} on {_shown(refl, v)}")
    return got


def has_field(refl, v, name) -> bool:
    return any(row[0] == name for row in _fields(refl, v))


def _shown(refl, v) -> str:
    return R.render(describe_value(v, refl), refl.names)


def _read(refl, v, name, want):
    """Field `name` of instance v, checked against descriptor `want` (None: unchecked)."""
    x = getattr(v, "f_" + name)
    if want is not None and not refl.fits(x, want):
        shown = _shown(refl, v)
        ops.throw_error("reflect.errors.TypeMismatch", message=f"field `{shown}.{name}` has type "
                        f"`{_shown(refl, x)}`, expected `{R.render(want, refl.names)}`")
    return x


def any_get(refl, v, name, want=None):
    if not has_field(refl, v, name):
        ops.throw_error("reflect.errors.NotFound", message=f"no field named {name} on {_shown(refl, v)}")
    return _read(refl, v, name, want)


def any_find(refl, v, name, want=None):
    return _read(refl, v, name, want) if has_field(refl, v, name) else None


ANY_CLASS = {"list_fields": list_fields, "find_field": find_field, "get_field": get_field,
             "has_field": has_field, "get": any_get, "find": any_find,
             "name": lambda refl, v: _shown(refl, v), "type": lambda refl, v: of_value(refl, v),
             "attributes": lambda refl, v: _meta(refl.decl_meta(_class_of(v)))}


def typed_read(refl, recv, name: str, want: tuple, targ, *args):
    """`recv.get<T>(…)`, `recv.find<T>(…)`, `field.value<T>()` where recv's static type is not
    known: the instance's own method if it has one (a stdlib handle's, `baml.csv.Record.get<T>`,
    takes T's TypeArg `targ` first), else the reflective read checked against T."""
    if type(recv) is _FIELD and name == "value":
        owner = recv.f__owner
        return None if owner is None else _read(refl, owner, recv.f_name, want)
    own = getattr(recv, "m_" + name, None) if isinstance(recv, Instance) else None
    if own is not None:
        return own(targ, *args) if recv._class.fqn.startswith("baml.") else own(*args)
    if isinstance(recv, Instance) and name in ("get", "find"):
        return ANY_CLASS[name](refl, recv, *args, want)
    raise TypeError(f"{type(recv).__name__} has no method {name}")


def class_get_field(refl, want: tuple, value, name: str):
    """`reflect.Class.get_field<T>(value, name)`: a field of any class instance (a run-time
    class's too), its value checked against T; a failure is the engine's hir-phase
    `reflect.errors.CompilationError`."""
    if not isinstance(value, Instance):
        _hir_error(f"reflect.Class.get_field expected a class instance, got {_value_kind(value)}")
    d = describe_value(value, refl)
    cls = d[3] if len(d) > 3 else R.render(("class", d[1], ()), refl.names)  # without its type arguments
    if name not in value._class.fields:  # its own class's (another program's, a mounted package's)
        _hir_error(f"class `{cls}` has no field `{name}`")
    x = getattr(value, "f_" + name)
    if not refl.fits(x, want):
        _hir_error(f"field `{cls}.{name}` has type `{_shown(refl, x)}`, expected `{R.render(want, refl.names)}`")
    return x


def _value_kind(v) -> str:
    """A value's kind as the engine's natives name it in their errors."""
    if v is None:
        return "any"
    for t, kind in ((bool, "bool"), (BigInt, "bigint"), (int, "int"), (float, "float"), (str, "string"),
                    (bytearray, "uint8array"), (list, "array"), (dict, "map"), (Variant, "enum"),
                    (RType, "type"), (RView, "type")):
        if isinstance(v, t):
            return kind
    return "closure" if callable(v) else type(v).__name__


def _hir_error(message: str, code: str = "E0001"):
    """A `reflect.errors.CompilationError` of one located-nowhere diagnostic, its backticked parts
    highlighted (byte offsets in the message, as the engine's)."""
    raw = message.encode()
    marks = [i for i, b in enumerate(raw) if b == 0x60]
    spans = [ops.make_builtin("reflect.DiagnosticHighlight", start=a + 1, end=b, kind="code")
             for a, b in zip(marks[::2], marks[1::2])]
    diag = ops.make_builtin("reflect.Diagnostic", code=code, span=None, message=message, severity="error",
                            phase="hir", headline=message, primary_label=None, message_highlights=spans,
                            annotations=[], related_info=[])
    ops.throw_error("reflect.errors.CompilationError", message=message, diagnostics=[diag])


# ── `reflect.Class.builder` (recursive run-time classes) and `Class.extends<I>` ──

class RBuilder:
    """A `reflect.class.Builder`: a run-time class whose rows grow until `build`."""
    __slots__ = ("refl", "fqn", "rows", "built")

    def __init__(self, refl, fqn: str, rows: list):
        self.refl, self.fqn, self.rows, self.built = refl, fqn, rows, False


class RPending:
    """A `reflect.class.PendingType`: a type naming a builder's class before it is built."""
    __slots__ = ("builder", "desc")

    def __init__(self, builder: RBuilder, desc: tuple):
        self.builder, self.desc = builder, desc


METHODS.setdefault("builder", {})
METHODS.setdefault("pending", {})
_KIND_OF[RBuilder] = "builder"
_KIND_OF[RPending] = "pending"


def class_builder(refl, name):
    if not _NAME.match(name):
        _compile_error(f"invalid class name `{name}`")
    rows: list = []
    return RBuilder(refl, refl.declare(name, rows), rows)


def _row(refl, row) -> tuple:
    """A field row's descriptor and metadata: a type, a kind view, a pending type, or a
    `WithMeta` of one."""
    wm = row if isinstance(row, Instance) and row._class.fqn == "reflect.WithMeta" else None
    t = wm.f_ty if wm is not None else row
    desc = t.desc if type(t) is RPending else _type(t).desc
    return desc, _row_meta(wm)


@method("builder", "field")
def builder_field(self: RBuilder, name, ty):
    if any(r[0] == name for r in self.rows):
        _compile_error(f"duplicate field `{self.refl.runtime_names[self.fqn]}.{name}`")
    if not _NAME.match(name):
        _compile_error(f"invalid field name `{name}`")
    self.rows.append((name, *_row(self.refl, ty)))
    return self


@method("builder")
def fields_from(self: RBuilder, some_class):
    for name, d, m in self.refl.class_fields(_type(some_class).desc):
        if any(r[0] == name for r in self.rows):
            _compile_error(f"duplicate field `{self.refl.runtime_names[self.fqn]}.{name}`")
        self.rows.append((name, d, dict(m)))
    return self


@method("builder", "type")
def builder_type(self: RBuilder) -> RPending:
    return RPending(self, ("class", self.fqn, ()))


@method("builder")
def build(self: RBuilder, implementations=OMITTED) -> RView:
    _implement(self.refl, self.fqn, [] if implementations in (None, OMITTED) else implementations)
    self.built = True
    return RView("Class", RType(("class", self.fqn, ()), self.refl))


@method("pending", "array")
def pending_array(self: RPending) -> RPending:
    return RPending(self.builder, ("array", self.desc))


@method("pending", "optional")
def pending_optional(self: RPending) -> RPending:
    return RPending(self.builder, R.union([self.desc, R.NULL]))


@method("pending")
def union(self: RPending, others) -> RPending:
    return RPending(self.builder, R.union([self.desc] + [o.desc if type(o) is RPending else _type(o).desc
                                                         for o in others]))


@method("pending")
def resolved(self: RPending):
    return RType(self.desc, self.builder.refl) if self.builder.built else None


@method("pending", "meta")
def pending_meta(self: RPending, alias=None, description=None, docstring=None, other=None):
    return ops.make_builtin("reflect.WithMeta", ty=self, alias=_opt(alias), description=_opt(description),
                            docstring=_opt(docstring), other=_opt(other) or {})


class RImpl:
    """A `reflect.interface.Implementation`: interface I's fields linked to class fields."""
    __slots__ = ("refl", "iface", "links")

    def __init__(self, refl, iface: tuple, links: dict):
        self.refl, self.iface, self.links = refl, iface, links


METHODS.setdefault("witness", {})
_KIND_OF[RImpl] = "witness"


def implementation(refl, iface: tuple) -> RImpl:
    if iface[0] != "iface":
        _compile_error(f"`{R.render(iface, refl.names)}` is not an interface")
    return RImpl(refl, iface, {})


@method("witness", "field")
def witness_field(self: RImpl, interface_field, class_field=None) -> RImpl:
    """A new witness with `interface_field` linked (to the class field of the same name)."""
    if all(n != interface_field for n, _, _ in self.refl.program.interface_fields(self.iface)):
        _compile_error(f"interface `{R.render(self.iface, self.refl.names)}` has no field `{interface_field}`")
    target = interface_field if class_field in (None, OMITTED) else class_field
    return RImpl(self.refl, self.iface, {**self.links, interface_field: target})


def _implement(refl, fqn: str, witnesses) -> None:
    """A run-time class's `implementations`: each witness complete and well typed."""
    rows = {n: d for n, d, _ in refl.runtime[fqn]}
    own = refl.runtime_impls.setdefault(fqn, set())
    for w in witnesses:
        shown = R.render(w.iface, refl.names)
        for name, d, _ in refl.program.interface_fields(w.iface):
            target = w.links.get(name)
            if target is None:
                _compile_error(f"interface witness for `{shown}` is missing required field `{name}`")
            if target not in rows:
                _compile_error(f"interface field `{shown}.{name}` links to missing class field `{target}`")
            if R.key(rows[target]) != R.key(d):
                _compile_error(f"interface field `{shown}.{name}` requires `{R.render(d, refl.names)}`, but class "
                               f"field `{target}` has `{R.render(rows[target], refl.names)}`")
        own.add(w.iface[1])


def class_extends(refl, iface: tuple, name, fields):
    """A run-time class implementing interface `iface` (and what it requires): their fields
    first (required interfaces' before the requiring one's), then `fields`."""
    if iface[0] != "iface":
        _compile_error(f"`{R.render(iface, refl.names)}` is not an interface")
    rows = [(n, d, m) for n, d, m in refl.program.interface_fields(iface)]
    taken = {r[0] for r in rows}
    view = class_new(refl, name, {})
    for fname, row in fields.items():
        fname = ops.unkey(fname)
        if fname in taken:
            _compile_error(f"field `{fname}` is already declared by an interface of `{name}`")
        rows.append((fname, *_row(refl, row)))
    refl.runtime[view.ty.desc[1]][:] = rows
    refl.runtime_impls[view.ty.desc[1]] = refl.program.interface_closure(iface)
    return view


CONSTRUCTORS = {"reflect.signature": signature, "reflect.Class.builder": class_builder, "reflect.call_any": call_any,
                "reflect.Class.new": class_new, "reflect.Enum.new": enum_new, "reflect.Enum.value": enum_value,
                "reflect.Map.new": map_new, "reflect.Union.new": union_new,
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
        self.package = None  # the program itself (`reflect.Package.current`; set by the compiler)
        self.interned: dict = {}  # a descriptor's repr → the RType `reflect.Type.of` gives for it
        self._sigs: dict = {}  # (fqn, bound) → the function's signature, type parameters open
        self.fits = None  # (value, descriptor) → does the value have that type (set by the VM)
        self.runtime: dict = {}  # fqn → rows of a class or enum made at run time (`reflect.Class.new`)
        self.runtime_names: dict = {}  # … and the name it renders as
        self._natives: dict | None = None  # a stdlib function's native → its qualified name
        self.runtime_impls: dict = {}  # … a run-time class's interfaces (`Class.extends<I>`)

    def function_desc(self, v, tvars: bool = False) -> tuple:
        """A BAML function value's signature (a bound method's without `self`)."""
        got = self.function_fqn(v)
        if got is None:
            return self.native_sig(v) or R.UNKNOWN
        own = self._own_sig(got)
        if tvars:  # its type parameters left open
            return own
        return R.subst(own, self.targs_of(v, open_=False)) if R.has_tvar(own) else own

    def declared(self, v) -> tuple:
        """A function value's declared name and doc comment ((None, None) for a lambda)."""
        got = self.function_fqn(v)
        fdef = self.program.index.functions.get(got[0]) if got is not None else None
        if fdef is None:
            return self.native_name(v), None  # a builtin's docs live in the engine's stdlib sources
        return fdef.decl.name, fdef.decl.doc

    def native_name(self, v) -> str | None:
        """A builtin method's or stdlib function's own name (`length`, `stringify`)."""
        bound = getattr(v, "baml_native", None)
        if bound is not None:
            return bound[1]
        at = getattr(v, "baml_native_at", None)
        q = at[0] if at is not None else self._native_fqn(v)
        return q.rpartition(".")[2] if q is not None else None

    def _native_fqn(self, v) -> str | None:
        """The qualified name of the stdlib function whose native `v` is (None: not one)."""
        if self._natives is None:
            self._natives = {n.fn: q for q, n in FUNCTIONS.items()}
        try:
            return self._natives.get(v)
        except TypeError:  # an unhashable callable
            return None

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

    def fn_pinned(self, v, ret: tuple, throws: tuple) -> bool:
        """Run-time `v is reflect.AnyFunction<Returns = ret, Throws = throws>` (unknown: any)."""
        if self.program is None:
            return True
        got = self.function_fqn(v)
        own = self.native_sig(v) if got is None else self._own_sig(got)
        if own is None or own == R.UNKNOWN:
            return True
        if got is not None and R.has_tvar(own):
            own = R.subst(own, self.targs_of(v))
        return (ret == R.UNKNOWN or R.within(own[2], ret, self.implements)) and (
            throws == R.UNKNOWN or own[3] == R.UNKNOWN or R.within(own[3], throws, self.implements))

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
        name = self._native_fqn(v)
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
        own = self.program.names if self.program is not None else None
        return {**(own or {}), **self.runtime_names} if self.runtime_names else own

    def declare(self, name: str, rows: list) -> str:
        """A run-time class's or enum's fqn (a new one each time), its rows kept."""
        fqn = f"reflect.runtime.{len(self.runtime)}.{name}"
        self.runtime[fqn] = rows
        self.runtime_names[fqn] = name
        return fqn

    def implements(self, t: tuple, iface: tuple) -> bool:
        own = self.runtime_impls.get(t[1]) if t[0] == "class" else None
        if own is not None or (t[0] == "class" and t[1] in self.runtime):
            return iface[0] == "iface" and iface[1] in (own or ())
        return self.program.implements(t, iface)

    def class_fields(self, d: tuple, declared: bool = False) -> list:
        got = self.runtime.get(d[1])
        return got if got is not None else self.program.class_fields(d, declared)

    def enum_variants(self, d: tuple) -> list:
        got = self.runtime.get(d[1])
        if got is None and d[1] not in self.program.index.enums and d[1] in self.enums:  # a stdlib enum
            return [(v, R.meta([], None)) for v in self.enums[d[1]].variants]
        return got if got is not None else self.program.enum_variants(d)

    def decl_meta(self, d: tuple) -> dict:
        return R.meta([], None) if d[1] in self.runtime else self.program.decl_meta(d)

    def variant(self, fqn: str, name: str):
        return self.enums[fqn].variants[name]
