"""A conservative single-pass type checker.

It never rejects a program the real engine accepts: whatever it cannot type is `UNKNOWN`, which
silences every check downstream. Where it is sure, it reports the engine's code at the engine's
primary location. It also annotates `expr.ty` on every expression it could type.

The checker is one class, `Checker`, assembled from a mixin per concern (sibling modules);
helpers live beside their users, shared ones in `common`."""
from __future__ import annotations

from ...source import Diagnostic, Span
from ...syntax import ast
from .. import stdifaces, stdsigs
from ..effects import Effects
from .. import types as T
from ..llmcheck import LlmChecks
from .. import bindings, interfaces
from .. import reflect as sreflect
from ..program import AliasDef, ClassDef, EnumDef, FunctionDef, InterfaceDef, ProgramIndex
from ..resolve import Resolver
from ..types import (AnyFnT, Arr, BOOL, ClassT, EnumT, FLOAT, FuncT, INT, Lit, MapT, NEVER, NULL,
                     STRING, TOP, TVar, UNKNOWN, Union, VOID, assignable, show, widen)
from .common import (ANY_CLASS, FnRefT, FutureT, LambdaT, NativeFuncT, Var, _DONE, _ENV_REF, _Fn,
                     _STD_TYPES, _block_diverges, _branch_hole, _diverges, _empty_hole,
                     _fresh_literal, _holds_container, _is_global, _is_unknown, _loose,
                     _mark_narrowing, _mentions, _opaque, _overlaps, _parse_std_type, _records,
                     _same_error, _sure_scrutinee, _value_tails, is_cleanup_shape)
from .items import ItemChecks
from .exprs import ExprChecks
from .members import MemberChecks
from .calls import CallChecks
from .operators import OperatorChecks
from .patterns import PatternChecks


def check(index: ProgramIndex) -> list[Diagnostic]:
    c = Checker(index)
    c.diags += interfaces.link(index, c.types)
    # and the default methods those blocks' interfaces give (`e.turn_left()` on an enum)
    c.impl_names |= {n for impl in index.builtin_impls if impl.iface is not None
                     for i in impl.iface.ancestors() for n, d in i.methods.items() if d.decl.body is not None}
    c.run()
    index.effects = c.effects  # what each body may throw (reflected function signatures)
    return c.diags


_RNG = T.StdT("stdiface", "baml.random.Rng")  # the interface the generators implement (methods: stdsigs)


def _callback_root(te) -> bool:
    """A parameter's own function type, or its optional: a callback whose `throws` may be
    left out (the engine infers it per call)."""
    if isinstance(te, ast.TOptional):
        te = te.inner
    elif isinstance(te, ast.TUnion) and len(te.members) == 2:
        rest = [m for m in te.members if not (isinstance(m, ast.TLiteral) and m.value is None)
                and not (isinstance(m, ast.TName) and m.path == ["null"])]
        te = rest[0] if len(rest) == 1 else None
    return isinstance(te, ast.TFunc)


def _holes(te):
    """The inference holes `_` written anywhere in a type expression."""
    todo = [te] if te is not None else []
    while todo:
        t = todo.pop()
        if isinstance(t, ast.TName):
            if t.path == ["_"]:
                yield t
            todo += [a[-1] if isinstance(a, tuple) else a for a in t.args]
        elif isinstance(t, ast.TFunc):
            todo += [p for _, p in t.params] + [t.ret] + ([t.throws] if t.throws is not None else [])
        elif isinstance(t, ast.TOptional):
            todo.append(t.inner)
        elif isinstance(t, ast.TUnion):
            todo += t.members
        elif isinstance(t, ast.TArray):
            todo.append(t.elem)


def _nested_fn_holes(te, value) -> list:
    """Where a `let`'s written type holds a function type with a hole in its `throws` that a
    `null`, `[]` or `{}` value leaves unconstrained (`(() -> int throws _)? = null`): the
    engine's E0147, at that function type (at a type argument's whole type: `map<…>`)."""
    if te is None or not (isinstance(value, ast.NullLit) or isinstance(value, (ast.ArrayLit, ast.MapLit))
                          and not getattr(value, "items", None) and not getattr(value, "entries", None)):
        return []
    out, todo = [], [(te, True, None)]
    while todo:
        t, direct, held = todo.pop()
        if isinstance(t, ast.TFunc):
            if not direct and t.throws is not None and any(True for _ in _holes(t.throws)):
                out.append(held or t.span)
            todo += [(p, direct, held) for _, p in t.params] + [(t.ret, direct, held)]
        elif isinstance(t, ast.TOptional):
            todo.append((t.inner, False, held))
        elif isinstance(t, ast.TUnion):
            todo += [(m, False, held) for m in t.members]
        elif isinstance(t, ast.TArray):
            todo.append((t.elem, False, held))
        elif isinstance(t, ast.TName):
            todo += [(a[-1] if isinstance(a, tuple) else a, False, held or t.span) for a in t.args]
    return out[:1]


def _fn_types_without_throws(te, root_ok: bool = False):
    """The function types in a type expression that lack a `throws` clause."""
    todo = [(te, root_ok)]
    while todo:
        t, ok = todo.pop()
        if isinstance(t, ast.TFunc):
            if t.throws is None and not ok:
                yield t
            todo += [(p, False) for _, p in t.params] + [(t.ret, False)]
        elif isinstance(t, ast.TOptional):
            todo.append((t.inner, ok))
        elif isinstance(t, ast.TUnion):
            todo += [(m, ok) for m in t.members]
        elif isinstance(t, ast.TArray):
            todo.append((t.elem, False))
        elif isinstance(t, ast.TName):
            todo += [(a[-1] if isinstance(a, tuple) else a, False) for a in t.args]


_ESCAPED = object()  # in Var.literals: the variable's value reached an opaque place


def _values_of(e) -> list:
    """The expressions whose value an `if` / block / match / catch expression may take."""
    if isinstance(e, ast.If):
        return [b.tail for b in (e.then, e.else_) if b is not None and b.tail is not None]
    if isinstance(e, ast.BlockExpr):
        return [e.block.tail] if e.block.tail is not None else []
    if isinstance(e, ast.Match):
        return [a.body for a in e.arms]
    if isinstance(e, ast.Catch):
        return [e.expr] + [a.body for a in e.arms]
    return []


# the members of the stdlib interfaces a type parameter may be bounded by (BAML's baml.ops,
# baml.Hash, baml.ToString, baml.ToJson declarations)
_STD_IFACE_MEMBERS = {
    "baml.ops.Equals": "eq neq", "baml.ops.Compare": "cmp lt le gt ge max min clamp eq neq",
    "baml.Hash": "hash", "baml.ToString": "to_string", "baml.ToJson": "to_json",
    "baml.ops.Add": "add", "baml.ops.Subtract": "sub", "baml.ops.Multiply": "mul",
    "baml.ops.Divide": "div", "baml.ops.Remainder": "rem", "baml.ops.Negate": "neg"}


def _std_bound_members(bounds) -> set | None:
    """What a type parameter bounded only by stdlib interfaces has (None: another bound, whose
    members the checker reads elsewhere or not at all)."""
    out = set()
    for b in bounds:
        names = _STD_IFACE_MEMBERS.get(".".join(b.path)) if isinstance(b, ast.TName) else None
        if names is None:
            return None
        out.update(names.split())
    return out


class _Hole:
    """An empty `[]` / `{}`'s element type, open until unified with a type (holes unified
    with each other stay open together)."""
    __slots__ = ("span", "group", "open")

    def __init__(self, span: Span):
        self.span, self.group, self.open = span, [self], True

    def close(self):
        for h in self.group:
            h.open = False

    def join(self, other: "_Hole"):
        if other.group is not self.group:
            self.group.extend(other.group)
            for h in other.group:
                h.group = self.group


_SCALAR_LITS = (ast.IntLit, ast.FloatLit, ast.StrLit, ast.BoolLit, ast.NullLit)


def _lit_shape(e, holes: list):
    """The type the engine infers for literal `e`, as far as holes go: ("var", hole),
    ("arr", t), ("map", t), ("union", ts), "scalar", or "any" (an expression of a known type)."""
    if isinstance(e, ast.ArrayLit):
        if not e.items:
            holes.append(_Hole(e.span))
            return ("arr", ("var", holes[-1]))
        t = _lit_shape(e.items[0], holes)
        for x in e.items[1:]:  # an array's items unify: `[[1], []]` fixes the empty one
            t = _unify(t, _lit_shape(x, holes))
        return ("arr", t)
    if isinstance(e, ast.MapLit):
        if not e.entries:
            holes.append(_Hole(e.span))
            return ("map", ("var", holes[-1]))
        return ("map", ("union", [_lit_shape(v, holes) for _, v in e.entries]))  # a map's values do not
    return "scalar" if isinstance(e, _SCALAR_LITS) else "any"


def _unify(a, b):
    if a == "any" or b == "any":
        _close(a)
        _close(b)
        return "any"
    if a[0] == "var" and b[0] == "var":
        a[1].join(b[1])
        return a
    if a[0] == "var" or b[0] == "var":
        var, other = (a, b) if a[0] == "var" else (b, a)
        var[1].close()
        return other
    if a[0] == "union" or b[0] == "union":
        ts = list(a[1]) if a[0] == "union" else [a]
        for t in (b[1] if b[0] == "union" else [b]):
            k = next((i for i, u in enumerate(ts) if u[0] == t[0] and u[0] in ("arr", "map")), None)
            if k is None:
                ts.append(t)
            else:
                ts[k] = _unify(ts[k], t)
        return ("union", ts)
    if a[0] == b[0] and a[0] in ("arr", "map"):
        return (a[0], _unify(a[1], b[1]))
    return a if a == b else ("union", [a, b])


def _close(t):
    """Every hole in `t` is fixed (it met an expression of a known type)."""
    if t in ("any", "scalar"):
        return
    if t[0] == "var":
        t[1].close()
    elif t[0] == "union":
        for u in t[1]:
            _close(u)
    else:
        _close(t[1])


def _lambdas_in(e) -> list:
    """The lambdas a value may be: itself, an item of a literal, a branch's, a lambda's result
    (`(d: int) -> { (e) -> { e } }`); their untyped parameters wait for a use (open_lambda)."""
    if isinstance(e, ast.Lambda):
        tail = e.body.tail
        return [e] + (_lambdas_in(tail) if tail is not None else [])
    if isinstance(e, ast.ArrayLit):
        return [x for it in e.items for x in _lambdas_in(it)]
    if isinstance(e, ast.MapLit):
        return [x for _, it in e.entries for x in _lambdas_in(it)]
    tails = _value_tails(e)
    return [x for t in tails if t is not None for x in _lambdas_in(t)] if tails is not None else []


def _whole_holes(e) -> list:
    """The first empty literal of each value made only of empties `e` may end in (through `if`
    branches with an `else`, match arms and blocks)."""
    if isinstance(e, (ast.ArrayLit, ast.MapLit)):
        hole = _empty_hole(e)
        return [hole] if hole is not None else []
    tails = _value_tails(e)
    return [h for t in tails if t is not None for h in _whole_holes(t)] if tails is not None else []


def _open_holes(e) -> list:
    """The empty `[]` / `{}` of literal `e` whose element type nothing in it fixes (`[1, []]`,
    `{"a": [1], "b": []}`, `[[], []]`): the engine needs a type annotation for each."""
    holes: list = []
    if isinstance(e, (ast.ArrayLit, ast.MapLit)):
        _lit_shape(e, holes)
    return [h.span for h in holes if h.open]


# methods a class may define only in an `implements` block of their interface
_INTERFACE_ONLY = {"to_string": ("E0140", "baml.ToString"), "to_json": ("E0142", "baml.ToJson"),
                   "from_json": ("E0143", "baml.FromJson")}


class Checker(LlmChecks, ItemChecks, ExprChecks, MemberChecks, CallChecks, OperatorChecks, PatternChecks):
    var_class = Var

    def __init__(self, index: ProgramIndex):
        self.index = index
        self.diags: list[Diagnostic] = []
        self._said: set = set()  # (where, code, message): an expression checked twice says it once
        self.rechecking = False  # a let-bound lambda's body again at its first call's types (relambda)
        self.ns: str | None = None
        self.fn_name = ""  # the function being checked, as the engine names it in messages
        self.cur_fd: FunctionDef | None = None
        self.effects = Effects()
        self.fn_values: list = []  # (function, function type, span): its inferred throws checked at the end
        self.generics: set[str] = set()
        self.type_bound: set[str] = set()  # the names of `let type N = …` bindings in scope
        self.callee_tvars = False  # checking an argument whose expected type has the callee's type parameters
        self.bounds: dict[str, list[T.Type]] = {}  # type parameter → its `extends` bounds
        self.std_bounds: dict[str, set | None] = {}  # … its members where only stdlib interfaces bound it
        self.scopes: list[dict[str, Var]] = []
        self.facts: dict[Var, T.Type] = {}
        self.assigned_log: list[Var] = []
        self.loose: set[Var] = set()  # variables whose facts stand for a write, not a test
        self.breaks: list[list[dict]] = []  # per loop being checked: the facts at each `break`
        self.exact: set[Var] = set()  # variables whose facts are the value just written
        self.fn: _Fn | None = None
        self.unpinned: list[Var] = []
        self.soft = None  # the Name read where its use fixes no type (E0155)
        self.path_root = None  # the Name a member is read from (a package name is no value alone)
        self.no_expected = None  # the call whose result nothing expects a type of (E0002)
        # the stdlib types it models (others stay unknown), with the enum `cmp` and `sort_by` speak
        std = {**_STD_TYPES, "baml.ops.Ordering": T.StdT("enum", "baml.ops.Ordering"), "baml.iter.Done": _DONE,
               "reflect.Type": sreflect.TYPE, "reflect.TypeKind": sreflect.KIND, "reflect.Package": sreflect.PACKAGE,
               "reflect.Session": sreflect.SESSION, "reflect.AnyClass": ANY_CLASS, "baml.random.Rng": _RNG,
               "baml.future.Future": lambda v, e: FutureT(v, None, e),
               **{f"reflect.{k}": sreflect.view(k) for k in sreflect.KINDS}}
        self.types = Resolver(index, std, top=True, iters=True)
        self.std_types = Resolver(index, std)  # stdlib signatures: their `unknown` is don't-know
        for name, text in stdsigs.STD_ALIASES.items():  # both resolvers share `std`
            std[name] = self.std_types.resolve(_parse_std_type(text), None)
        self._sig_cache: dict[int, tuple] = {}
        self._native_cache: dict = {}
        # methods added by `implements X for T` blocks (may extend builtin types)
        self.global_types: dict[FunctionDef, T.Type] = {}  # `const` globals' types (global_type)
        self.global_chain: list = []  # the globals being checked: (global, its read of the next)
        self.impl_names = {m.name for f in index.files for ib in getattr(f, "impls", ())
                           for m in ib.methods}

    # ───────────────────────── driver ─────────────────────────
    def run(self) -> None:
        idx = self.index
        self.signature_holes()
        for cd in idx.classes.values():
            self.attributes(cd.decl.attrs, "a class")
            for f in cd.fields:
                self.attributes(f.attrs, "a class field")
            self.ns = cd.namespace
            self.generics = {g.name for g in cd.decl.generics}
            for f in cd.fields:
                self.resolve(f.type)
                self.require_throws(f.type)
            self.json_methods(cd.decl)
            for m in cd.methods.values():
                reserved = _INTERFACE_ONLY.get(m.name)
                if reserved is not None and m.impl is None and m.owner is cd:
                    code, iface = reserved
                    self.err(m.decl.name_span, code, f"`{m.name}` cannot be defined as a method on class "
                             f"`{cd.name}`; implement the `{iface}` interface instead")
        for impl in idx.impls:  # a user interface's associated types as each block binds them
            if impl.iface is not None and not impl.decl.generics and (impl.cls is None or not impl.cls.decl.generics):
                self.ns, self.generics = impl.namespace, set()
                binds = {n: self.resolve(te, report=False) for n, te in impl.decl.assoc.items()}
                binds.update({n: self.resolve(d, report=False) for n, _, d in impl.iface.decl.assoc
                              if n not in binds and d is not None})
                impl.assoc_types = {n: b for n, b in binds.items() if _sure_scrutinee(b) and not T.has_tvar(b)}
        for cd in idx.classes.values():  # what a class iterates (types._iterable), at its own parameters
            impl = next((i for i in cd.impls if i.std == "baml.iter.Iterable" and "Item" in i.decl.assoc), None)
            own = ClassT(cd, tuple(T.TVar(g.name) for g in cd.decl.generics))
            item = self.class_assoc(own, impl, "Item") if impl is not None else UNKNOWN
            cd.iter_item = item if item is not UNKNOWN and not T.has_unknown(item) else None
        for idef in idx.interfaces.values():
            self.attributes(idef.decl.attrs, "an interface")
            for d in idef.decl.methods:
                self.attributes(d.attrs, "a function")
            self.ns = idef.namespace
            self.generics = {g.name for g in idef.decl.generics}
            for f in idef.fields:
                self.resolve(f.type)
                self.require_throws(f.type)
            self.check_interface(idef)
        for impl in idx.impls:
            self.check_impl(impl)
        for ed in idx.enums.values():
            self.attributes(ed.decl.attrs, "an enum")
            for v in ed.decl.variants:
                self.attributes(v.attrs, "an enum variant")
        for ad in idx.aliases.values():
            self.ns = ad.namespace
            self.generics = set()
            self.alias_type(ad, report=True)
            self.require_throws(ad.type)
        for fd in idx.functions.values():
            if _is_global(fd):
                self.global_type(fd, None)
        for fd in idx.functions.values():
            if fd.decl.attrs and not isinstance(fd.owner, InterfaceDef):
                self.attributes(fd.decl.attrs, "a function")
            if not _is_global(fd):
                self.check_function(fd)
        self.llm_fn = None
        for td in idx.tests:
            self.ns = td.namespace
            self.generics = set()
            self.fn_name = td.decl.name
            self.cur_fd = None
            self.fn = _Fn(NULL, None, captured=bindings.captured(td.decl.body))
            self.scopes = [{}]
            self.facts = {}
            self.unpinned = []
            self.block(td.decl.body, NULL)  # a test block returns null
            self.finish_fn()
            self.effects.summarize(id(td), td.decl.body)
        self.effects.report(self.err)
        self.inferred_conformance()
        self.inferred_fn_values()

    def inferred_fn_values(self) -> None:
        """E0001: a function without a `throws` clause passed where a function type's `throws`
        does not cover what its body may throw (`apply(risky, 1)` for `throws never`)."""
        for fd, dst, span in self.fn_values:
            got = self.effects.throws(id(fd))
            if got is None or T.has_unknown(got) or T.has_tvar(got) or assignable(got, dst.throws):
                continue
            self.err(span, "E0001", "mismatched types", f"expected `{show(dst)}`, the function "
                     f"may throw `{show(got)}`")

    def inferred_conformance(self) -> None:
        """E0120: an implementation method without a `throws` clause whose body may throw what
        its interface's method does not declare (known once the bodies are solved)."""
        for impl in self.index.impls:
            std = stdifaces.declared(impl.std) if impl.iface is None and impl.std else None
            if impl.iface is None and std is None:
                continue
            declared = std.methods if std is not None else {
                n: m for i in impl.iface.ancestors() for n, m in reversed(i.methods.items())}
            for name, m in impl.methods.items():
                want = declared.get(name)
                if want is None or m.decl.throws is not None or want.decl.throws is None:
                    continue
                got = self.effects.throws(id(m))
                wt = self.resolve_in(want, want.decl.throws) if std is not None else self.effects.declared.get(id(want))
                if std is None and wt is not None and T.has_tvar(wt) and want.owner is impl.iface:
                    args = [a for a in impl.decl.interface.args if getattr(a, "binds", None) is None]
                    wt = T.subst(wt, {g.name: self.resolve_in(m, a) for g, a in zip(impl.iface.decl.generics, args)})
                if got is None or wt is None or any(T.has_unknown(x) or T.has_tvar(x) for x in (got, wt)):
                    continue
                if not assignable(got, wt):
                    self.err(m.decl.span, "E0120", f"method `{name}` does not conform to interface "
                             f"`{impl.iface.name if std is None else impl.std}`'s declared signature")

    def json_methods(self, decl) -> None:
        """`to_json`/`from_json` belong in `implements baml.ToJson`/`baml.FromJson` blocks
        (E0142/E0143): the json natives honour only those."""
        in_blocks = {id(m) for ib in decl.impls for m in ib.methods}
        for m in decl.methods:
            iface = {"to_json": ("E0142", "ToJson"), "from_json": ("E0143", "FromJson")}.get(m.name)
            if iface is not None and id(m) not in in_blocks:
                self.err(m.name_span, iface[0], f"`{m.name}` cannot be defined as a method on class "
                         f"`{decl.name}`; implement the `baml.{iface[1]}` interface instead")

    def err(self, span: Span | None, code: str, msg: str, note: str | None = None) -> None:
        key = (span and (span.file.path, span.start, span.end), code, msg)
        if key not in self._said:
            self._said.add(key)
            self.diags.append(Diagnostic(span, code, msg, notes=[note] if note else []))

    def mismatch(self, span: Span, dst: T.Type, src: T.Type, extra: str = "") -> None:
        if isinstance(dst, T.IterT) and dst.cls == "Iterable":  # the engine asks: can it iterate?
            return self.err(span, "E0006", f"cannot iterate over type `{show(src)}`")
        self.err(span, "E0001", "mismatched types", f"expected `{show(dst)}`, found `{show(src)}`{extra}")

    def check_function(self, fd: FunctionDef) -> None:
        # a reflect.Session submission (bex/stdlib/reflect_session.py) reads its globals as
        # `unknown` meaning don't-know: the checker stays quiet where it cannot see their types
        self.types.top = fd.decl.name != "__session_eval"
        d = fd.decl
        self.ns = fd.namespace
        if d.name == "cleanup" and isinstance(fd.owner, ClassDef) and not is_cleanup_shape(d):
            self.err(d.name_span, "E0144", f"`cleanup` on class `{fd.owner.name}` must have the "
                     "signature `cleanup(self) -> void`; it is a reserved magic finalizer name")
        self.generics = interfaces.generics_of(fd)
        gens = d.generics + list(getattr(fd.owner, "decl", d).generics)
        for g in gens:
            for b in g.bounds:
                b.bound = True  # `K extends baml.iter.Iterable`: a bound needs no associated types
        self.bounds = {g.name: [self.resolve(b) for b in g.bounds] for g in gens if g.bounds}
        self.std_bounds = {g.name: _std_bound_members(g.bounds) for g in gens if g.bounds}
        for g in d.generics:
            for b, bt in zip(g.bounds, self.bounds.get(g.name, ())):
                if isinstance(bt, (T.Prim, Lit, Arr, MapT, Union, ClassT, EnumT, FuncT)) and bt is not UNKNOWN:
                    self.err(b.span, "E0145", f"generic bound `{show(bt)}` is not an interface; "
                             "bounds must be interfaces")
        scope: dict[str, Var] = {}
        if d.has_self and fd.owner is not None:
            scope["self"] = Var("self", interfaces.self_type(fd.owner))
        params = self.sig(fd)[0]
        owner = f"{fd.owner.name}." if fd.owner is not None else ""
        self.fn_name = f"{owner}{d.name}"
        self.duplicate_params(d.params, self.fn_name)
        for p in d.params:
            self.require_throws(p.type, param=True)
        self.require_throws(d.ret, ret=True)
        self.hashable_keys([p.type for p in d.params] + [d.ret], d.generics)
        defaulted = False
        for p, (_, pt, _) in zip(d.params, params):
            if defaulted and p.default is None:
                self.err(p.span, "E0001", f"required parameter `{p.name}` cannot appear after a defaulted parameter")
            defaulted = defaulted or p.default is not None
            if p.name == "root":
                self.err(p.span, "E0176", "`root` is the path to this package and cannot name a "
                         "binding, an item, or a type parameter")
            scope[p.name] = Var(p.name, pt)
        ret = self.resolve(d.ret) if d.ret is not None else UNKNOWN
        throws = _loose(self.resolve(d.throws)) if d.throws is not None else None
        if throws is not None:
            self.effects.declared[id(fd)] = throws
            self.effects.generics[id(fd)] = {g.name for g in d.generics} | set(self.generics)
            if _is_unknown(d.throws) and d.body is not None:
                self.effects.declared_unknown[id(fd)] = d.body.span
        self.fn = _Fn(ret, throws,
                      {p.name for p in d.params if _callback_root(p.type)}, bindings.captured(d.body))
        self.scopes = [scope]
        self.facts = {}
        self.unpinned = []
        for p, (_, pt, _) in zip(d.params, params):
            if p.default is not None:
                if _holds_container(pt):
                    self.escape(p.default)  # the parameter's type, recorded
                self.expect(p.default, pt)
        self.llm_fn = self.cur_fd = fd
        if d.body is not None:
            self.body(d.body, ret)
            self.effects.summarize(id(fd), d.body)
        self.finish_fn()
        self.types.top = True

    def signature_holes(self) -> None:
        """E0147 at a parameter, return, field or alias type holding the hole `_` anywhere
        (`g: () -> int throws _`): only a `let` binding or a `throws` clause infers one. The
        engine reports the whole written type; its holes are marked so that resolving them
        says nothing more."""
        idx = self.index
        where = [(p.type, "a parameter type") for fd in idx.functions.values() for p in fd.decl.params]
        where += [(fd.decl.ret, "a return type") for fd in idx.functions.values()]
        where += [(p.type, "a parameter type") for idef in idx.interfaces.values()
                  for d in idef.decl.methods for p in d.params]
        where += [(f.type, "a class field type") for cd in idx.classes.values() for f in cd.fields]
        where += [(f.type, "a class field type") for idef in idx.interfaces.values() for f in idef.fields]
        where += [(ad.type, "a type alias") for ad in idx.aliases.values()]
        for te, what in where:
            holes = [h for h in _holes(te) if not getattr(h, "placed", False)]
            if holes:
                self.err(getattr(te, "group_span", te.span), "E0147", "the `_` wildcard type can only be "
                         f"inferred in a `let` binding or a `throws` clause, not in {what}")
            for h in holes:
                h.placed = True  # reported: resolving it adds no E0002

    def written_holes(self, tes: list, span) -> None:
        """E0147 at a call or class literal whose written type arguments hold a hole
        (`id<_>(1)`, `Box<_> { … }`): the engine infers none there."""
        holes = [h for te in tes for h in _holes(te) if not getattr(h, "placed", False)]
        if holes:
            self.err(span, "E0147", "type inference failed; write the type explicitly")
        for h in holes:
            h.placed = True

    def require_throws(self, te, param: bool = False, ret: bool = False) -> None:
        """E0151: a function type must say what it throws, except a function parameter's own
        (optional) function type. A return type `(… -> …)` is reported at its parenthesis, as
        the engine reports a return type by its whole text."""
        if te is None:
            return
        for t in _fn_types_without_throws(te, param and _callback_root(te)):
            span = getattr(t, "group_span", t.span) if ret and t is te else t.span
            self.err(span, "E0151", "function type must declare an explicit `throws` clause; "
                     "add `throws never` if calling it cannot throw")

    def finish_fn(self) -> None:
        for v in self.unpinned:
            if v.open_params is not None:
                for span, name, pv in v.open_params:
                    if pv.open_params is None:
                        continue  # its body typed it (`(x) -> int { x }`)
                    self.err(span, "E0002", f"cannot infer type of lambda parameter `{name}` — add a "
                             "type annotation or provide context")
            elif v.pending_infer:
                self.err(v.pending_infer[0], "E0002", f"cannot infer type parameter `{v.pending_infer[1]}`")
            elif v.unpinned is not None and not v.used:
                self.err(v.unpinned, "E0155", "type annotations needed")
        self.unpinned = []

    def body(self, b: ast.Block, ret: T.Type) -> T.Type:
        """A function/lambda body: its value must be the return type."""
        return self.block(b, ret, is_body=True)

    # ───────────────────────── types ─────────────────────────
    def sig(self, fd: FunctionDef, explicit_self: bool = False) -> tuple:
        """(params [(name, type, has_default)], ret) of a function, resolved once; with
        `explicit_self`, a method's receiver is its first parameter."""
        if explicit_self and fd.decl.has_self and fd.owner is not None:
            ps, ret = self.sig(fd)
            return (("self", interfaces.self_type(fd.owner), False),) + ps, ret
        s = self._sig_cache.get(id(fd))
        if s is None:
            save = (self.ns, self.generics)
            self.ns = fd.namespace
            self.generics = interfaces.generics_of(fd)
            ps = tuple((p.name, self.resolve(p.type) if p.type is not None else UNKNOWN,
                        p.default is not None) for p in fd.decl.params)
            ret = self.resolve(fd.decl.ret, report=False) if fd.decl.ret is not None else UNKNOWN
            s = (ps, ret)
            self._sig_cache[id(fd)] = s
            self.ns, self.generics = save
        return s

    def declared_throws(self, fd: FunctionDef) -> T.Type | None:
        """A function's written `throws` (None: inferred from its body, or `throws unknown`)."""
        if fd.decl.throws is None:
            return None
        save = (self.ns, self.generics)
        self.ns, self.generics = fd.namespace, interfaces.generics_of(fd)
        t = _loose(self.resolve(fd.decl.throws, report=False))
        self.ns, self.generics = save
        return None if t is UNKNOWN else t

    def throws_within(self, e, t: FuncT, expected: T.Type) -> None:
        """A function value whose `throws` is inferred where a function type or an
        `AnyFunction` pins what it may throw: checked once the effects are solved (E0001)."""
        want = [m for m in T.members(expected) if isinstance(m, (FuncT, AnyFnT))]
        if len(want) == 1 and t.throws is None and want[0].throws not in (None, TOP, UNKNOWN) \
                and not T.has_tvar(want[0].throws):
            owner = t.fd if isinstance(t, FnRefT) else t.node
            self.effects.coerced.append((id(owner), want[0].throws, e.span, want[0], t))

    def alias_type(self, ad: AliasDef, report: bool = False) -> T.Type:
        return self.types.alias(ad, self.err if report else None)

    def resolve(self, te, report: bool = True) -> T.Type:
        return self.types.resolve(te, self.ns, self.generics, self.err if report else None)

    def resolve_std(self, te) -> T.Type:
        return self.std_types.resolve(te, self.ns, self.generics)

    # ───────────────────────── scopes ─────────────────────────
    def lookup_var(self, name: str) -> Var | None:
        for s in reversed(self.scopes):
            v = s.get(name)
            if v is not None:
                return v
        return None

    def declare(self, name: str, ty: T.Type, span: Span | None = None, precise=True,
                assign_ty=None) -> Var:
        if name == "root" and span is not None:
            self.err(span, "E0176", "`root` is the path to this package and cannot name a "
                     "binding, an item, or a type parameter")
        v = Var(name, ty, precise, assign_ty)
        self.scopes[-1][name] = v
        return v

    def var_type(self, v: Var) -> T.Type:
        if v.name in self.fn.captured:
            return v.ty  # the engine narrows no variable a lambda mentions
        t = self.facts.get(v)
        if t is not None:
            return t
        return v.ty

    def written(self, v: Var) -> None:
        """After a write, a variable holds a value of its declared type (assign narrows it to
        the value written where that is known)."""
        self.facts[v] = self.declared(v)
        self.loose.add(v)  # its type here may be narrower (what was written): not exhaustive
        self.exact.discard(v)

    def declared(self, v: Var) -> T.Type:
        t = v.assign_ty
        return t if not (T.has_unknown(t) or T.has_tvar(t)) else UNKNOWN

    def invalidate(self, since: int) -> None:
        for v in self.assigned_log[since:]:
            self.written(v)

    # ───────────────────────── blocks & statements ─────────────────────────
    def block(self, b: ast.Block, expected: T.Type, is_body: bool = False) -> T.Type:
        self.scopes.append({})
        generics, bound = self.generics, self.type_bound  # `let type N = …` ends with the block
        try:
            diverges = False
            for s in b.stmts:
                if self.stmt(s):
                    diverges = True
            if b.tail is not None:
                tail = b.tail
                if is_body and _holds_container(expected):
                    self.escape(tail)  # a returned literal records its declared type
                if isinstance(tail, (ast.If, ast.IfLet, ast.Match, ast.BlockExpr)):
                    t = self.expr(tail, expected)
                    self.scoped_leak(tail, t, expected, self.generics - generics)
                    return NEVER if diverges else t
                t = self.expr(tail, expected)
                self.scoped_leak(tail, t, expected, self.generics - generics)
                if not self.fits(t, expected) and not diverges:
                    if expected is NULL or expected is VOID:
                        self.mismatch(tail.span, expected, t,
                                      "; end this with `;` to discard the value")
                    else:
                        self.mismatch(Span(b.span.file, b.span.start, b.span.start + 1),
                                      expected, t)
                elif not diverges:
                    self.fn_value_throws(t, expected, Span(b.span.file, b.span.start, b.span.start + 1))
                    self.iter_error_later(t, expected, Span(b.span.file, b.span.start, b.span.start + 1))
                return NEVER if diverges else t
            if expected not in (UNKNOWN, NULL, VOID) and not any(map(_diverges, b.stmts)):
                self.missing_value(b, expected)
            return NEVER if diverges else NULL
        finally:
            self.scopes.pop()
            self.generics, self.type_bound = generics, bound

    def scoped_leak(self, tail, t: T.Type, expected: T.Type, scoped: set) -> None:
        """E0172: a block's value whose type names a type bound by `let type` in the block,
        where the block's context does not take `unknown`."""
        if not scoped or expected is UNKNOWN or expected is T.TOP:
            return
        name = next((n for n in sorted(scoped) if _mentions(t, n) and not _mentions(expected, n)), None)
        if name is not None:
            self.err(tail.span, "E0172", f"scoped type `{name}` cannot leave the block that binds it",
                     f"this has type `{show(t)}`; a value leaves the block only through a type that "
                     f"does not mention `{name}`, such as `unknown`")

    def missing_value(self, b: ast.Block, expected: T.Type) -> None:
        """E0029: a block that should produce a value ends with a statement (the engine's
        wording: a discarded value that would fit, an `if` without `else`, or no value)."""
        last = b.stmts[-1] if b.stmts else None
        e = last.expr if isinstance(last, ast.ExprStmt) else None
        want = f"expected `{show(expected)}`, but "
        if isinstance(e, ast.If) and e.else_ is None:
            self.err(e.span, "E0029", "missing value", want + "an `if` without `else` evaluates "
                     "to `null`; add an `else` branch")
            return
        if e is not None:
            t = e.ty
            fits = (t is None and not isinstance(e, (ast.Call, ast.IfLet))) or (
                t is not None and t not in (NEVER, NULL, VOID) and assignable(t, expected))
            if fits:
                self.err(e.span, "E0029", "missing value", want + "this value is discarded; "
                         "remove the `;` to use it")
                return
        hint = "; write `null` as its final expression to produce it" if assignable(NULL, expected) else ""
        self.err(b.span, "E0029", "missing value", want + "this block ends without a value" + hint)

    def stmt(self, s) -> bool:
        """Check a statement; True when it surely diverges."""
        if isinstance(s, ast.ExprStmt):
            self.no_expected = s.expr
            if isinstance(s.expr, ast.Call):
                s.expr.plain_let = True  # `first([]);`: nothing fixes T either (E0002)
            t = self.expr(s.expr, UNKNOWN)
            if getattr(s.expr, "pending_infer", None) is not None:
                self.err(s.expr.span, "E0002", f"cannot infer type parameter `{s.expr.pending_infer}`")
            return t is NEVER
        if isinstance(s, ast.Let):
            self.let(s)
            return False
        if isinstance(s, ast.Assign):
            self.assign(s)
            return False
        if isinstance(s, ast.Return):
            if self.fn.defer is not None:
                self.err(s.span, "E0141", "`return` cannot leave a `defer` body; only `throw` may "
                         "propagate out of a defer")
            ret = self.fn.ret
            if s.value is not None and _holds_container(ret):
                self.escape(s.value)  # a returned literal records its declared type
            if s.value is not None:
                self.scoped_leak(s.value, self.expect(s.value, ret), ret, self.type_bound)
            elif ret not in (UNKNOWN, VOID, NULL) and (ret is T.TOP or not T.has_unknown(ret)):  # even `int?`
                self.err(s.span, "E0029", "missing value", f"expected a value of type "
                         f"`{show(ret)}`, but a bare `return` returns `null`")
            return True
        if isinstance(s, ast.Throw):
            fn = self.fn
            t = self.expr(s.value, T.JSON if fn.throws is not None and T.has_json(fn.throws) else UNKNOWN)
            if fn.throws is not None and fn.catch == 0 and not assignable(t, fn.throws):
                self.err(s.value.span, "E0096", f"declared throws is `{show(fn.throws)}`, but "
                         f"this function may also throw `{show(widen(t))}`")
            return True
        if isinstance(s, (ast.Break, ast.Continue)):
            kw = "break" if isinstance(s, ast.Break) else "continue"
            if self.fn.loop == 0:
                self.err(s.span, "E0010", f"`{kw}` outside of a loop")
            elif self.fn.loop == self.fn.defer:  # its loop is outside the `defer`
                self.err(s.span, "E0141", f"`{kw}` cannot leave a `defer` body; only `throw` may "
                         "propagate out of a defer")
            elif isinstance(s, ast.Break):
                self.breaks[-1].append(dict(self.facts))
            return True
        if isinstance(s, ast.While):
            head = self.loop_head(s.body)
            _mark_narrowing(s.cond)
            self.expr(s.cond, UNKNOWN)  # at the head: `while (x > 0) { x = null; }` reads an `int?`
            pos, neg = self.cond_facts(s.cond)
            self.loop_exit(head, self.loop_body(s.body, head, pos), neg)
            return False
        if isinstance(s, ast.WhileLet):
            head = self.loop_head(s.body)
            t = self.expr(s.value, UNKNOWN)
            self.scopes.append({})
            self.pattern_fits(s.pattern, t)  # `while let v: string = x` on an `int?`: E0001
            self.pattern(s.pattern, UNKNOWN if t is UNKNOWN else t, refutable_ok=True)
            breaks = self.loop_body(s.body, head)
            self.scopes.pop()
            self.loop_exit(head, breaks)
            return False
        if isinstance(s, ast.ForIn):
            head = self.loop_head(s.body)  # the iterable is read there too (its writes count)
            v = self.lookup_var(s.iterable.name) if isinstance(s.iterable, ast.Name) else None
            if isinstance(s.iterable, (ast.If, ast.Match, ast.BlockExpr)):
                self.untyped_holes(s.iterable)  # `for (let x in (if (c) { [] } else { [] }))`
            it = self.soft_expr(s.iterable) if v is not None and v.branch_hole else \
                self.expr(s.iterable, UNKNOWN)
            elem = self.iter_elem(it, s.iterable)
            self.for_pattern(s.pattern, elem)
            self.scopes.append({})
            if isinstance(s.pattern, ast.PBind) and s.pattern.type is None:  # an element keeps its
                self.declare(s.pattern.name, elem, getattr(s.pattern, "let_at", s.pattern.span))  # type
            else:
                self.pattern(s.pattern, elem, refutable_ok=True)
            breaks = self.loop_body(s.body, head)
            self.scopes.pop()
            self.loop_exit(head, breaks)
            return False
        if isinstance(s, ast.ForC):
            self.scopes.append({})
            if s.init is not None:
                self.stmt(s.init)
            head = self.loop_head(s.body)  # the engine counts no write of the update clause here
            pos, neg = {}, {}
            if s.cond is not None:
                self.expr(s.cond, UNKNOWN)
                pos, neg = self.cond_facts(s.cond)
            breaks = self.loop_body(s.body, head, pos)
            mark = len(self.assigned_log)
            if s.update is not None:
                self.fn.loop += 1
                self.stmt(s.update)
                self.fn.loop -= 1
            self.scopes.pop()
            self.loop_exit(head, breaks, neg)
            self.invalidate(mark)
            return False
        if isinstance(s, ast.Defer):
            saved, self.fn.defer = self.fn.defer, self.fn.loop
            self.block(s.body, UNKNOWN)
            self.fn.defer = saved
            return False
        return False

    def for_pattern(self, p, elem: T.Type) -> None:
        """E0111: a `for` binding that may not match every element (`[a, b]`, `x: string`
        over `int`s); E0001 for a written type no element has."""
        if isinstance(p, ast.PArray) and (p.items or p.rest_index is None):
            self.err(p.span, "E0111", "refutable pattern in for-let binding; refutable patterns "
                     "belong in `match`")
        elif isinstance(p, ast.PBind) and p.type is not None and _sure_scrutinee(elem):
            bt = self.resolve(p.type, report=False)
            if _sure_scrutinee(bt) and not assignable(elem, bt):
                self.err(p.span, "E0111", "refutable pattern in for-let binding; refutable patterns "
                         "belong in `match`")  # at its `let`
                if not _overlaps(elem, bt):
                    self.mismatch(p.type.span, elem, bt)

    def loop_head(self, body: ast.Block) -> dict:
        """The facts at a loop's head: a variable the body writes holds its declared type there
        (the engine joins no iterations: `x = 2` in the body leaves an `int?` `x` an `int?`);
        the others keep what is known of them."""
        for name in bindings.written(body):
            v = self.lookup_var(name)
            if v is None:
                continue
            if T.has_unknown(v.ty) or T.has_tvar(v.ty):
                self.written(v)
            else:
                self.facts[v] = v.ty  # all of it: a `match` on it must cover it
                self.loose.discard(v)
                self.exact.discard(v)
        return dict(self.facts)

    def loop_body(self, body: ast.Block, head: dict, entry: dict | None = None) -> list:
        """Check a loop body from the head's facts (and the condition's, when true); the facts
        at each `break` of it."""
        self.facts = {**head, **(entry or {})}
        self.breaks.append([])
        self.fn.loop += 1
        self.block(body, UNKNOWN)
        self.fn.loop -= 1
        return self.breaks.pop()

    def loop_exit(self, head: dict, breaks: list, neg: dict | None = None) -> None:
        """After a loop: the head's facts where the condition failed, joined with each `break`'s."""
        facts = {**head, **(neg or {})}
        for b in breaks:
            for v, t in facts.items():
                bt = b.get(v, UNKNOWN)
                if bt != t:
                    facts[v] = UNKNOWN if UNKNOWN in (t, bt) else T.union(t, bt)
                    self.loose.add(v)
                    self.exact.discard(v)
        self.facts = facts

    def iter_elem(self, t: T.Type, e: ast.Expr) -> T.Type:
        t0 = T.base(t)
        if isinstance(t0, T.IterT):
            return t0.item
        if isinstance(t0, Arr):
            return t0.elem
        if t0 is STRING:
            return STRING
        if isinstance(t0, Union) and any(m in (NULL, INT, FLOAT, BOOL) for m in t0.members):
            self.err(e.span, "E0006", f"cannot iterate over type `{show(t)}`")  # `int[]?`
            return UNKNOWN
        if isinstance(t0, T.StdT) and t0.name in stdsigs.STD_ITERATES:
            return T.StdT("class", stdsigs.STD_ITERATES[t0.name])
        if isinstance(t0, ClassT):
            item = self.iterable_item(t0)
            if item is not UNKNOWN:
                return item
        if isinstance(t0, MapT) or t0 in (INT, FLOAT, BOOL, NULL, T.BIGINT, T.BYTES, T.JSON, _ENV_REF, T.TOP) or (
                isinstance(t0, ClassT) and not any(
                    i.iface is not None or (i.std or "").startswith("baml.iter.") for i in t0.cls.impls)):
            self.err(e.span, "E0006", f"cannot iterate over type `{show(t)}`")
        return UNKNOWN

    def iterable_item(self, ct: ClassT, std: str = "baml.iter.Iterable") -> T.Type:
        """The `type Item` a class's `implements baml.iter.Iterable` (or `std`) block binds (what
        a for-in over it yields), at the class's type arguments; unknown without one."""
        impl = next((i for i in ct.cls.impls if i.std == std and "Item" in i.decl.assoc), None)
        if impl is None:
            return UNKNOWN
        item = self.class_assoc(ct, impl, "Item")
        return UNKNOWN if T.has_unknown(item) or T.has_tvar(item) else item

    def as_iterator(self, ct: ClassT) -> "T.IterT | None":
        """A class implementing `baml.iter.Iterator` as the iterator its default methods see:
        its `Item`, and its `Error` as what advancing it throws (none where the block binds
        none: `never`); one implementing only `Iterable` as that."""
        impl = next((i for i in ct.cls.impls if i.std == "baml.iter.Iterator"), None)
        if impl is None:  # an `Iterable` alone has `iter()` alone (E0007 for the adapters)
            iterable = any(i.std == "baml.iter.Iterable" for i in ct.cls.impls)
            item = self.iterable_item(ct, "baml.iter.Iterable") if iterable else UNKNOWN
            return T.IterT(item, "Iterable") if item is not UNKNOWN else None
        item, err = self.class_assoc(ct, impl, "Item"), self.class_assoc(ct, impl, "Error")
        it = T.iter_of(item, err=(("type", err),) if "Error" in impl.decl.assoc else ())
        return it if isinstance(it, T.IterT) else None

    def class_assoc(self, ct: ClassT, impl, name: str) -> T.Type:
        """Associated type `name` of a class's stdlib-interface block, at the class's type
        arguments (unknown where the block does not bind it)."""
        te = impl.decl.assoc.get(name)
        if te is None:
            return UNKNOWN
        save = (self.ns, self.generics)
        self.ns, self.generics = impl.namespace, {g.name for g in ct.cls.decl.generics}
        try:
            t = self.resolve(te, report=False)
        finally:
            self.ns, self.generics = save
        return T.subst(t, {"Self": ct, **{g.name: a for g, a in zip(ct.cls.decl.generics, ct.args)}})

    def refutable(self, pat, t: T.Type, top: bool = False) -> bool:
        """Can `pat` fail on a value of type `t` (a `let` takes only patterns that cannot)?
        A class pattern's fields are read at their declared types (`x: int` on an `int` field
        always matches, on `int | string` it may not)."""
        if pat is None or isinstance(pat, ast.PWild):
            return False
        if isinstance(pat, ast.PLit):
            return True
        if isinstance(pat, ast.PArray):
            return bool(pat.items) or pat.rest_index is None
        if top:  # the binding itself and a class pattern on its value: the checker's own reading
            return isinstance(pat, ast.PClass) and isinstance(T.base(t), ClassT) and any(
                self.refutable(sub, self.field_type(T.base(t), name)) for name, sub in pat.fields)
        if isinstance(pat, (ast.PBind, ast.PType)):
            if getattr(pat, "type", None) is None:
                return False
            pt = self.resolve(pat.type, report=False)
            return t is UNKNOWN or pt is UNKNOWN or not assignable(t, pt)
        if isinstance(pat, ast.PClass):
            tb = T.base(t)
            return not isinstance(tb, ClassT) or tb.cls.name != pat.type.path[-1] or any(
                self.refutable(sub, self.field_type(tb, name)) for name, sub in pat.fields)
        if isinstance(pat, ast.PAnd):
            return any(self.refutable(p, t) for p in pat.pats)
        return True

    def let(self, s: ast.Let) -> None:
        if s.type_binding:  # `let type N = t;`: N is a rigid type parameter from here on
            t = self.expr(s.value, UNKNOWN)
            if not (t is UNKNOWN or t is NEVER or isinstance(t, TVar)
                    or isinstance(t, T.StdT) and t.kind == "reflect"):
                self.err(s.value.span, "E0001", "mismatched types",
                         f"expected `reflect.TypeView`, found `{show(t)}`")
            self.generics = self.generics | {s.pattern.name}
            self.type_bound = self.type_bound | {s.pattern.name}
            return
        for span in _nested_fn_holes(getattr(s, "hole_type", None), s.value):
            self.err(span, "E0147", "type inference failed; write the type explicitly")
        ann = self.resolve(s.type) if s.type is not None else None
        self.require_throws(s.type)
        pat = s.pattern
        if ann is None and isinstance(pat, ast.PBind) and pat.type is not None:
            ann = self.resolve(pat.type)
            self.require_throws(pat.type)
        if ann is None and isinstance(pat, ast.PBind):
            self.unspecialized(s.value, pat.name)
        if ann is UNKNOWN or ann is T.TOP:  # (untyped, a later use may give its parameters types)
            self.uninferable_lambda(s.value)
        if ann is not None and s.else_block is not None:
            t = self.expr(s.value, UNKNOWN)  # `let n: int = v else { … }` tests v's type
            if s.type is not None and isinstance(pat, ast.PBind):  # one v never has: E0001
                self.pattern_fits(ast.PBind(pat.span, pat.name, s.type), t)
        elif ann is not None:
            t = self.expect(s.value, ann)
        else:
            s.value.plain_let = True  # a generic stdlib call cannot infer from an expected type
            for lam in _lambdas_in(s.value):
                lam.open_site = True  # its untyped parameters' members are unknown (member_of)
            self.no_expected = s.value
            t = self.soft_expr(s.value) if s.type is None and isinstance(pat, ast.PBind) else \
                self.expr(s.value, UNKNOWN)
        if ann is None and isinstance(s.value, ast.Field) and isinstance(t, NativeFuncT) and t.generic:
            self.err(s.value.span, "E0001", f"generic function `{s.value.name}` needs concrete "
                     "type arguments before it can be stored; annotate the binding's type")
        if s.else_block is not None:
            self.block(s.else_block, UNKNOWN)
            if not _block_diverges(s.else_block):
                self.err(s.else_block.span, "E0113", "`let … else` requires a diverging else block "
                         "(`return`, `throw`, `break`, or `continue`)")
        elif self.refutable(pat, t, top=True):  # a class pattern's at the `let`, as the engine
            self.err(s.span if isinstance(pat, ast.PClass) else pat.span, "E0111", "refutable pattern in let binding; refutable patterns "
                     "belong in `match`")
        if isinstance(pat, ast.PBind):
            if ann is not None:
                self._given(self.declare(pat.name, ann, getattr(pat, "let_at", pat.span)), s.value)
            else:
                w = T.widen_scalar(t) if _fresh_literal(s.value, self.lookup_var) else t
                # assignments are checked against the initial type only when it is complete
                at = w if not (T.has_unknown(w) or T.has_tvar(w)) else UNKNOWN
                precise = not (isinstance(w, EnumT) and w.variant is None) and not isinstance(w, Union)
                v = self.declare(pat.name, w, getattr(pat, "let_at", pat.span), precise=precise, assign_ty=at)
                if w is UNKNOWN and isinstance(s.value, ast.Name):
                    src = self.lookup_var(s.value.name)
                    if src is not None and src not in self.facts:
                        v.origin = src.ty
                self._given(v, s.value)
                self.unpinned_let(v, s.value)
                v.lambda_bound = getattr(s.value, "lambda_bound", None)
                if isinstance(s.value, ast.Name) and (src := self.lookup_var(s.value.name)) is not None \
                        and src.pending_infer:
                    v.pending_infer = src.pending_infer  # `let c = b`: one open T, fixed by a use of either
                self.open_lambda(v, s.value)
                if isinstance(s.value, ast.Call) and not s.value.type_args:
                    v.push_call = s.value
                if isinstance(s.value, (ast.Call, ast.ClassLit)):
                    if getattr(s.value, "pending_infer", None) is not None:
                        v.pending_infer = [s.value.span, s.value.pending_infer]
                        self.unpinned.append(v)
                if isinstance(s.value, ast.Name) and (src := self.lookup_var(s.value.name)) is not None:
                    v.lambda_bound = src.lambda_bound  # `let zs = ys`: the first to meet a type fixes both
                if self.generic_result(s.value):
                    v.infer_call = s.value
        else:
            pat.let_span = s.span  # the engine reports a class pattern's fields from the `let`
            self.pattern(pat, ann if ann is not None else t, refutable_ok=True)
            if ann is None and _named_empty(pat) and (v := self.lookup_var(pat.pats[0].name)) is not None:
                self.unpinned_let(v, s.value)  # `let xs: [] = []` is `xs` and `[]`: as `let xs = []`

    def open_lambda(self, v: Var, val) -> None:
        """`let g = (d) -> …`: an untyped parameter needs a later use that types g (a call,
        a place expecting a function type), else E0002 at it; `let h = g` shares g's."""
        if isinstance(val, (ast.Lambda, ast.ArrayLit, ast.MapLit, ast.If, ast.Match, ast.BlockExpr)):
            ps = [(p.span, p.name, pv) for lam in _lambdas_in(val)
                  for p, pv in zip(lam.params, getattr(lam, "param_vars", ()))
                  if p.type is None and getattr(p, "hole_type", None) is None]  # (`_`: E0147)
            if ps:
                v.open_params = ps
                if isinstance(val, (ast.ArrayLit, ast.MapLit)):
                    v.open_items = [x for x in _lambdas_in(val) if any(  # (not those the items' join typed)
                        p.type is None and pv.open_params is not None for p, pv in zip(x.params, x.param_vars))]
                self.unpinned.append(v)
        elif isinstance(val, ast.Name) and (src := self.lookup_var(val.name)) is not None \
                and src.open_params is not None:
            v.link, v.open_params = src, []  # typing h types g

    def typed_lambda(self, v: Var) -> None:
        while v is not None and v.open_params is not None:
            v.open_params = None
            v = v.link

    def uninferable_lambda(self, e) -> None:
        """E0002: a lambda's parameter without a type where no function type is expected (a
        `let` of type `unknown`, the function `reflect.signature`/`call_any` take)."""
        if isinstance(e, ast.Lambda):
            for p in e.params:
                if p.type is None:
                    self.err(p.span, "E0002", f"cannot infer type of lambda parameter `{p.name}` — "
                             "add a type annotation or provide context")

    def unspecialized(self, val, name: str) -> None:
        """`let g = id` with `id` generic: the engine wants its type arguments (E0001)."""
        path = self.item_path(val) if isinstance(val, ast.Field) and not getattr(val, "type_args", None) else None
        full = ".".join(path or ())
        if stdsigs.FUNCTIONS.get(full, "").startswith("<") and path[-2] != "Array":  # `baml.json.decode`
            self.err(val.span, "E0001", f"generic function `{path[-1]}` needs concrete type arguments "
                     f"before it can be stored in `{name}`. Specialize it explicitly, for example `{full}<int>`")
            return
        if not isinstance(val, ast.Name) or getattr(val, "type_args", None) or self.lookup_var(val.name):
            return
        fd = self.index.items_in(self.ns).get(val.name)
        if isinstance(fd, FunctionDef) and fd.decl.generics:
            self.err(val.span, "E0001", f"generic function `{val.name}` needs concrete type "
                     f"arguments before it can be stored in `{name}`. Specialize it explicitly, "
                     f"for example `{val.name}<int>`")

    def unpinned_let(self, v: Var, val) -> None:
        """E0155: an empty `[]` / `{}` (also inside a literal of empties) bound without a type
        needs a use that fixes its element type; `let b = a` (or `a[i]`) shares a's."""
        hole = _empty_hole(val)
        if hole is None:
            hole = _branch_hole(val)
            v.branch_hole = hole is not None
        if hole is None:
            hole = next(iter(_open_holes(val)), None)
        if hole is not None:
            v.unpinned = hole
            self.unpinned.append(v)
            return
        src = val.obj if isinstance(val, ast.Index) else val
        if isinstance(src, ast.Name):
            a = self.lookup_var(src.name)
            if a is not None and a.unpinned is not None and not a.used:
                v.link = a

    def pin(self, v: Var) -> None:
        while v is not None and not v.used:
            v.used = True
            v = v.link

    def soft_expr(self, e, expected: T.Type = UNKNOWN) -> T.Type:
        """Check `e` where a bare name's use fixes no type (an operand, a hole, a receiver)."""
        if isinstance(e, ast.Name) or (isinstance(e, ast.Index) and isinstance(e.obj, ast.Name)):
            self.soft = e if isinstance(e, ast.Name) else e.obj
        try:
            return self.expr(e, expected)
        finally:
            self.soft = None

    def _given(self, v: Var, value: ast.Expr) -> None:
        """`v` holds `value`: a container literal, or what another variable holds (an alias)."""
        if isinstance(value, (ast.ArrayLit, ast.MapLit, ast.Call)):
            v.literals.append(value)
            if _ESCAPED in v.literals:
                _records(value)
        elif isinstance(value, ast.Name) and (src := self.lookup_var(value.name)) is not None:
            v.literals = src.literals

    def assign(self, s: ast.Assign) -> None:
        tgt = s.target
        if isinstance(tgt, ast.Name):
            v = self.lookup_var(tgt.name)
            g = self.index.items_in(self.ns).get(tgt.name) if v is None else None
            if isinstance(g, FunctionDef) and _is_global(g):
                self.err(tgt.span, "E0179", f"cannot assign to global variable `{tgt.name}` — top-level "
                         "bindings are set once, at startup, and shared by every call, so they cannot "
                         "be reassigned")
            if v is None and isinstance(g, FunctionDef) and not _is_global(g):
                self.not_assignable(s, tgt.name)  # `f = 3` in `f`
                return
            if v is None:
                self.expr(tgt, UNKNOWN)
                self.expr(s.value, UNKNOWN)
                return
            self.pin(v)
            dst = v.assign_ty
            tgt.ty = self.var_type(v)
            if s.op is None and v.infer_call is not None:
                vt = self.expr(s.value, dst)
                if not assignable(vt, dst):  # the engine: no T fits the call and this write
                    self.err(v.infer_call.span, "E0002", "cannot infer type parameter")
                    v.infer_call = None
            elif s.op is None:
                self._given(v, s.value)
                vt = self.expect(s.value, dst)
            else:
                vt = self.expr(s.value, UNKNOWN)
                r = self.binop_type(s.op, self.var_type(v), vt, s.value)
                if not assignable(r, dst):
                    self.mismatch(s.value.span, dst, r)
            self.written(v)
            got = vt if s.op is None else r
            if (dst is not UNKNOWN and got is not UNKNOWN and not T.has_unknown(got) and not T.has_tvar(got)
                    and assignable(got, dst) and v.name not in self.fn.captured):
                self.facts[v] = got  # the engine narrows to what was written (`y = 5`: 5)
                if s.op is None and _sure_scrutinee(vt):
                    self.loose.discard(v)
                    self.exact.add(v)
            self.assigned_log.append(v)
            return
        if isinstance(tgt, ast.Field) and isinstance(tgt.obj, ast.Name) and self.lookup_var(tgt.obj.name) is None:
            item = self.index.items_in(self.ns).get(tgt.obj.name)
            if isinstance(item, EnumDef) and tgt.name in item.variants:
                self.not_assignable(s, f"{tgt.obj.name}.{tgt.name}")  # `E.A = E.B`
                return
        if isinstance(tgt, (ast.Field, ast.Index)):
            dst = self.expr(tgt, UNKNOWN)
            ob = T.base(tgt.obj.ty or UNKNOWN)
            if isinstance(tgt, ast.Field) and not isinstance(ob, ClassT) and not (
                    isinstance(ob, T.StdT) and ob.name in stdsigs.STD_CLASSES):
                dst = UNKNOWN
            if s.op is None:
                if _holds_container(dst):
                    self.escape(s.value)  # stored in a field or an element: it records its type
                self.expect(s.value, dst)
            else:
                vt = self.expr(s.value, UNKNOWN)
                self.binop_type(s.op, dst, vt, s.value)
            if isinstance(tgt, ast.Index) and isinstance(tgt.obj, ast.Name) and isinstance(ob, MapT) \
                    and ob.key is UNKNOWN:
                self.first_key(tgt)
            return
        self.err(tgt.span, "E0010", "invalid assignment target; only a variable, a field, or an "
                 "index can be assigned to")
        self.expr(tgt, UNKNOWN)
        self.expr(s.value, UNKNOWN)

    def not_assignable(self, s: ast.Assign, name: str) -> None:
        """E0010: a function or an enum variant written to."""
        self.err(s.target.span, "E0010", f"invalid assignment target; `{name}` is not a variable, so it "
                 "cannot be assigned to")
        self.expr(s.target, UNKNOWN)
        self.expr(s.value, UNKNOWN)

    # ───────────────────────── expressions ─────────────────────────
    def expect(self, e: ast.Expr, dst: T.Type) -> T.Type:
        if _opaque(dst):
            self.escape(e)
        t = self.expr(e, dst)
        if (not isinstance(e, (ast.If, ast.IfLet, ast.Match, ast.BlockExpr, ast.ArrayLit,
                               ast.MapLit)) and not self.fits(t, dst)):
            self.mismatch(e.span, dst, t)
        else:
            self.fn_value_throws(t, dst, e.span)
            self.iter_error_later(t, dst, e.span)
        return t

    def iter_error_later(self, t: T.Type, dst: T.Type, span: Span) -> None:
        """An iterator whose `Error` is known only once the bodies are solved (a callback's
        inferred throws) where a declared `Iterator<…, Error = E>` is expected: compared then."""
        t, dst = T.base(t), T.base(dst)
        if isinstance(t, T.IterT) and isinstance(dst, T.IterT) and dst.cls == "Iterator" and \
                UNKNOWN in (self.errors_now(t.err), self.errors_now(dst.err)) and t.err != dst.err:
            self.effects.iter_errors.append((t.err, dst.err, span, dst, t))

    def fn_value_throws(self, t: T.Type, dst: T.Type, span: Span) -> None:
        """A function value without a declared `throws` where a function type declares one: its
        inferred throws are checked once the bodies are solved (inferred_fn_values)."""
        if isinstance(t, (FnRefT, LambdaT)) and t.throws is None and isinstance(dst, FuncT) and \
                dst.throws is not None and not T.has_tvar(dst.throws) and not T.has_unknown(dst.throws):
            self.fn_values.append((t.fd if isinstance(t, FnRefT) else t.node, dst, span))

    def fits(self, t: T.Type, dst: T.Type) -> bool:
        """assignable, and inside a generic body its own type parameter `T` is rigid: a value
        of a concrete type (`1`, `T | null`) is no `T`."""
        if isinstance(dst, TVar) and dst.name in self.generics and t is not dst:
            if any((m is not NEVER and _sure_scrutinee(m)) or (
                    isinstance(m, TVar) and m.name in self.generics and m != dst)
                   for m in T.members(t)):
                return False
        if isinstance(dst, T.PlanT) and isinstance(t, T.PlanT):  # `Plan<string, E>` is no `Plan<T, E>`
            return (T.has_unknown(t.value) or T.has_unknown(dst.value) or (
                self.fits(t.value, dst.value) and self.fits(dst.value, t.value))) and \
                _same_error(t.error, dst.error)
        if isinstance(dst, T.IterT) and isinstance(t, T.IterT) and dst.cls == "Iterator" and \
                not _same_error(self.errors_now(t.err), self.errors_now(dst.err)):
            return False  # `Iterator<Item = int, Error = never>` is no `…, Error = string>`
        return assignable(t, dst)

    def errors_now(self, sites: tuple) -> T.Type:
        """What advancing an iterator throws where it is known before the bodies are solved: its
        declared `Error`, the declared `throws` of the functions its adapters were given
        (unknown where one's throws are inferred)."""
        out = []
        for s in sites:
            if s[0] == "type":
                out.append(s[1])
            elif s[0] in ("fn", "lambda") and id(s[1]) in self.effects.declared:
                out.append(self.effects.declared[id(s[1])])
            elif s[0] == "through":
                out.append(self.errors_now(s[1]))
            else:
                return UNKNOWN
        return T.union(NEVER, *out)

    def rigid_var(self, e, tv: TVar) -> bool:
        """`e` names a variable declared of this body's own unbounded type parameter."""
        v = self.lookup_var(e.name) if isinstance(e, ast.Name) else None
        return (v is not None and v.ty == tv and tv.name in self.generics
                and not self.bounds.get(tv.name))

    def untyped_holes(self, e: ast.Expr, inner: bool = False) -> None:
        """E0155 at each empty `[]` / `{}` in `e` that nothing can type: the one a value made
        only of empties ends in, through `if` branches, blocks and match arms (each branch is
        typed alone: an operand of `==` or `is`, a template hole, an argument for a callee's
        bare `T`, an item of a literal whose other items are no container); with `inner`, also
        those of a literal whose other items do not fix them (`[1, []]`, `{"a": [1], "b": []}`),
        where the literal's own type is all there is to go by (an interpolation, a bare type
        parameter, a receiver).""" 
        spans = _open_holes(e) if inner else []
        for span in dict.fromkeys(spans + _whole_holes(e)):
            self.err(span, "E0155", "type annotations needed")

    def escape(self, e: ast.Expr) -> None:
        """`e`'s value reaches a place whose type does not tell its element types (`unknown`, a
        type parameter, several array types): the container literals it was built by record
        theirs at run time (`records`: mir/lower.py); the others need not pay for it."""
        if isinstance(e, (ast.ArrayLit, ast.MapLit, ast.Call)):
            _records(e)
        elif isinstance(e, ast.Name) and (v := self.lookup_var(e.name)) is not None:
            for lit in v.literals:
                _records(lit)
            v.literals.append(_ESCAPED)  # literals it is given later record theirs too
        else:  # `if (c) { a } else { b }`, a block, a match: each value it may be
            for x in _values_of(e):
                self.escape(x)


def _named_empty(pat) -> bool:
    """`let xs: [] = …`: the engine reads a binding and the empty array pattern."""
    return isinstance(pat, ast.PAnd) and len(pat.pats) == 2 and isinstance(pat.pats[0], ast.PBind) and \
        isinstance(pat.pats[1], ast.PArray) and not pat.pats[1].items and pat.pats[1].rest_index is None
