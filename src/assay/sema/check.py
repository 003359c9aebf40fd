"""A conservative single-pass type checker.

It never rejects a program the real engine accepts: whatever it cannot type is `UNKNOWN`, which
silences every check downstream. Where it is sure, it reports the engine's code at the engine's
primary location. It also annotates `expr.ty` on every expression it could type.
"""
from __future__ import annotations

import dataclasses
import re

from ..source import Diagnostic, SourceFile, Span
from ..syntax import ast, rxsyntax
from ..syntax.parser import parse_type
from . import stdifaces, stdsigs
from .effects import ALL, MAYBE, Effects
from . import types as T
from .llmcheck import LlmChecks
from . import bindings, interfaces
from . import reflect as sreflect
from .program import AliasDef, ClassDef, EnumDef, FunctionDef, InterfaceDef, ProgramIndex, target_matches
from .resolve import BUILTIN_TYPE_ROOTS, OPAQUE_TYPES, PRIM_TYPES, Resolver, carrier_path
from .stdnames import STDLIB_MEMBER_NAMES, STDLIB_TYPE_NAMES
from .types import (BOOL, FLOAT, INT, NEVER, NULL, STRING, TOP, UNKNOWN, VOID, AnyFnT, Arr, ClassT, EnumT,
                    FuncT, IfaceT, Lit, MapT, TVar, Union, assignable, show, widen)

# names usable as values without a user definition (packages, builtin type statics)
BUILTIN_VALUE_ROOTS = frozenset("""
baml assert log reflect testing ai llm env int float string bool bigint uint8array
image audio video pdf null true false openai anthropic google aws typesafeai vercel claude_code
""".split())
# the whole of the small stdlib packages (0.23.0's assert.baml, log.baml)
_PACKAGE_MEMBERS = {
    "assert": frozenset("equal is_true not_null approx_equal contains is_type".split()),
    "log": frozenset("info debug warn error".split()),
}
# builtin types whose statics are reached by name (`int.parse`): a member no stdlib function has
# is surely unresolved
_CARRIERS = frozenset("int float string bool bigint".split())
# each carrier's own statics (0.23.0's stdlib): another carrier's static is unresolved on it
_CARRIER_STATICS = {
    "int": frozenset("parse random max_value min_value".split()),
    "float": frozenset("parse random pi e golden_ratio nan inf max_finite min_finite epsilon".split()),
    "bigint": frozenset("parse random".split()),
    "bool": frozenset(["random"]),
    "string": frozenset("from from_utf8 from_code_points".split()),
}
_ANY_CARRIER_STATIC = frozenset().union(*_CARRIER_STATICS.values())
# `baml.<x>` that do not exist in 0.23.0 (the carriers are `int.parse`, not `baml.int.parse`)
_NOT_IN_BAML = frozenset("int float string bool bigint uint8array math log unstable deep_equals".split())

# the attributes the engine accepts, by declaration (in its order, for its messages)
_ATTRIBUTES = {
    "a class field": ("@description", "@alias", "@skip", "@stream.done", "@stream.must_exist"),
    "a class": ("@@description", "@@alias", "@@stream.done"),
    "an enum variant": ("@description", "@alias", "@skip"),
    "an enum": ("@@description", "@@alias"),
}
_ARITH = {"+", "-", "*", "/", "%"}
_BITS = {"&", "|", "^", "<<", ">>"}
_ORDER = {"<", "<=", ">", ">="}
_BUILTIN_KIND_TYPES = (T.Prim, Lit, Arr, MapT)


_ENV_REF = T.StdT("class", "baml.env.Ref")
# every type's `hash` is baml.Hash's: it feeds a hasher (which no value of a known type is)
_HASH_FN = FuncT((("hasher", T.HASHER, False),), NULL, NEVER)
_SHORT = ("&&", "||", "??")
# container methods whose use leaves an empty literal's element type open (E0155)
_UNPINNING_METHODS = frozenset("length join reverse keys values has to_string to_json hash".split())  # operators with their own control flow
# methods of the interfaces every type implements (ToString, ToJson, Equals, Hash, Concrete)
_EVERY_TYPE_METHODS = frozenset("to_string to_json eq neq hash type".split())
# `reflect.AnyClass`'s own methods: a class instance has them only through that interface
# what every class declares through the stdlib's blanket impls (stdsigs.STD_CLASS_MEMBERS: the rest)
_EVERY_CLASS_MEMBERS = frozenset("eq neq to_json from_json to_string type".split())
_ANY_CLASS_ONLY = frozenset("list_fields get_field find_field has_field attributes".split())


class Var:
    __slots__ = ("name", "ty", "declared", "precise", "used", "unpinned", "assign_ty", "literals",
                 "link", "origin", "branch_hole", "infer_call")

    def __init__(self, name, ty, precise=True, assign_ty=None):
        self.name = name
        self.ty = ty
        self.precise = precise
        self.used = False
        self.unpinned = None
        self.link = None  # `let b = a` over an unpinned `a`: pinning b pins a
        self.assign_ty = ty if assign_ty is None else assign_ty
        self.literals = []  # the container literals it was given (see Checker.escape)
        self.origin = None  # `let y = x`: x's declared type, for the tests of y
        self.branch_hole = False  # unpinned by an empty literal as an `if`/`match` branch
        self.infer_call = None  # `let y = id(1)`: the engine infers T from y's writes too


class _Fn:
    """Per-function (or lambda) context."""
    __slots__ = ("ret", "throws", "loop", "catch", "callbacks", "captured", "defer")

    def __init__(self, ret, throws, callbacks=frozenset(), captured=frozenset()):
        self.ret = ret
        self.throws = throws
        self.loop = 0
        self.catch = 0
        self.callbacks = callbacks  # parameters whose function type leaves `throws` open
        self.captured = captured  # names read or written in a lambda (never narrowed by a write)
        self.defer = None  # inside a `defer` body: the loop depth at it (none leaves it but `throw`)


def check(index: ProgramIndex) -> list[Diagnostic]:
    c = Checker(index)
    c.diags += interfaces.link(index, c.types)
    # and the default methods those blocks' interfaces give (`e.turn_left()` on an enum)
    c.impl_names |= {n for impl in index.builtin_impls if impl.iface is not None
                     for i in impl.iface.ancestors() for n, d in i.methods.items() if d.decl.body is not None}
    c.run()
    index.effects = c.effects  # what each body may throw (reflected function signatures)
    return c.diags


class Checker(LlmChecks):
    var_class = Var
    def __init__(self, index: ProgramIndex):
        self.index = index
        self.diags: list[Diagnostic] = []
        self._said: set = set()  # (where, code, message): an expression checked twice says it once
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
        for idef in idx.interfaces.values():
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

    def check_interface(self, idef: InterfaceDef) -> None:
        for d in idef.decl.methods:  # duplicates too (`methods` keeps one per name)
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
            if name in ("@stream.done", "@@stream.done") and name not in valid:
                self.err(Span(a.span.file, a.span.start, a.span.start + len(name)), "E0016",
                         f"attribute `{name}` is not valid on {where}; allowed: `@stream.done` "
                         "on a class field, `@@stream.done` on a class")
            elif name not in valid:
                self.err(Span(a.span.file, a.span.start, a.span.start + len(name)), "E0015",
                         f"unknown attribute `{name}`; valid on {where}: "
                         + ", ".join(f"`{v}`" for v in valid))

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
            if not v.used:
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
            t = self.expr(s.expr, UNKNOWN)
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
            it = self.soft_expr(s.iterable) if v is not None and v.branch_hole else \
                self.expr(s.iterable, UNKNOWN)
            elem = self.iter_elem(it, s.iterable)
            self.for_pattern(s.pattern, elem)
            self.scopes.append({})
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

    def iterable_item(self, ct: ClassT) -> T.Type:
        """The `type Item` a class's `implements baml.iter.Iterable` block binds (what a
        for-in over it yields), at the class's type arguments; unknown without one."""
        impl = next((i for i in ct.cls.impls if i.std == "baml.iter.Iterable" and "Item" in i.decl.assoc), None)
        if impl is None:
            return UNKNOWN
        item = self.class_assoc(ct, impl, "Item")
        return UNKNOWN if T.has_unknown(item) or T.has_tvar(item) else item

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
                if self.generic_result(s.value):
                    v.infer_call = s.value
        else:
            pat.let_span = s.span  # the engine reports a class pattern's fields from the `let`
            self.pattern(pat, ann if ann is not None else t, refutable_ok=True)

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

    def open_holes(self, e) -> None:
        """E0155 at each empty literal in `e` whose element type nothing fixes, where `e`'s
        own type is all there is to go by (an interpolation, a bare type parameter)."""
        for span in _open_holes(e):
            self.err(span, "E0155", "type annotations needed")

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

    # ───────────────────────── patterns ─────────────────────────
    def pattern(self, p, t: T.Type, refutable_ok: bool = True) -> None:
        if isinstance(p, ast.PLit) and isinstance(p.value, float):
            self.err(p.span, "E0010", "invalid syntax", "float literal patterns are not allowed")
        elif isinstance(p, ast.PBind):
            ty = self.resolve(p.type) if p.type is not None else T.widen_scalar(t)
            self.declare(p.name, ty, getattr(p, "let_at", p.span))
        elif isinstance(p, ast.PType):
            self.require_throws(p.type)
            self.pattern_type(p.type)
        elif isinstance(p, ast.POr):
            self.or_pattern(p, t)
        elif isinstance(p, ast.PClass):
            ls = getattr(p, "let_span", None)
            te = p.type if ls is None else dataclasses.replace(p.type, span=ls)
            ct = self.pattern_type(te)
            if (isinstance(ct, EnumT) and ct.variant is not None or len(te.path) == 1 and
                    te.path[0] not in self.index.items_in(self.ns) and te.path[0] not in self.generics
                    and ct is not UNKNOWN):  # `E.A { }`, `int { }`: the path names no class
                self.err(te.span, "E0002", f"unresolved type: {'.'.join(te.path)}")
            for name, sub in p.fields:
                if isinstance(ct, ClassT) and ct.cls.field(name) is None:
                    self.err(getattr(p, "let_span", p.span), "E0007",
                             f"class `{ct.cls.name}` has no field `{name}`")
                ft = self.field_type(ct, name) if isinstance(ct, ClassT) else self.std_field(ct, name)
                if sub is not None and ft is not UNKNOWN and (not isinstance(ct, ClassT) or ct.cls.field(name)):
                    self.pattern_fits(sub, ft)  # `P { n: "s" }` where `n` is an int
                if sub is None:
                    self.declare(name, ft)
                else:
                    self.pattern(sub, ft)
        elif isinstance(p, ast.PArray):
            tb = T.base(t)
            elem = tb.elem if isinstance(tb, Arr) else UNKNOWN
            for it in p.items:
                self.pattern(it, elem)
            rt = Arr(elem) if elem is not UNKNOWN else UNKNOWN
            rp = getattr(p, "rest_pattern", None)
            if rp is not None:
                self.pattern(rp, rt)
            elif p.rest_name:
                self.declare(p.rest_name, rt)
        elif isinstance(p, getattr(ast, "PAnd", ())):
            for q in p.pats:
                self.pattern(q, t)

    def or_pattern(self, p: ast.POr, t: T.Type) -> None:
        """Every alternative binds the same names, each of one type in all of them."""
        names = [set(bindings.pattern_names(a)) for a in p.alts]
        odd = set.union(*names) - set.intersection(*names)
        if odd:
            self.err(getattr(p, "let_span", p.span), "E0094", "or-pattern alternatives must bind the same names. "
                     f"Inconsistent across branches: {', '.join(sorted(odd))}")
        seen: dict = {}
        for a in p.alts:
            self.pattern(a, t)
            for n in names[0] - odd:
                v = self.scopes[-1].get(n)
                if v is None or v.ty is UNKNOWN:
                    continue
                first = seen.setdefault(n, v.ty)
                if not odd and T.show(first) != T.show(v.ty):
                    self.err(getattr(p, "let_span", p.span), "E0001", f"or-pattern binding `{n}` has conflicting types: "
                             f"{T.show(first)} and {T.show(v.ty)}")
                    odd = {n}

    def pattern_type(self, te) -> T.Type:
        if isinstance(te, ast.TName) and len(te.path) == 2 and te.path[0] != "root":
            item = self.index.items_in(self.ns).get(te.path[0])
            if isinstance(item, EnumDef):
                if te.path[1] in item.variants:
                    return EnumT(item, te.path[1])
                self.err(te.span, "E0002", f"unresolved type: {'.'.join(te.path)}")
                return UNKNOWN
        return self.resolve(te)

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
        return t

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
            return T.has_unknown(t.value) or T.has_unknown(dst.value) or (
                self.fits(t.value, dst.value) and self.fits(dst.value, t.value))
        return assignable(t, dst)

    def rigid_var(self, e, tv: TVar) -> bool:
        """`e` names a variable declared of this body's own unbounded type parameter."""
        v = self.lookup_var(e.name) if isinstance(e, ast.Name) else None
        return (v is not None and v.ty == tv and tv.name in self.generics
                and not self.bounds.get(tv.name))

    def untyped_empty(self, e: ast.Expr) -> None:
        """E0155 at the empty `[]` / `{}` a value made only of empties ends in (through `if`
        branches, blocks and match arms) where nothing can type it: an operand of `==` or
        `is`, a template hole, an item of a literal whose other items are no container."""
        if isinstance(e, (ast.ArrayLit, ast.MapLit)):
            hole = _empty_hole(e)
            if hole is not None:
                self.err(hole, "E0155", "type annotations needed")
        elif isinstance(e, ast.If) and e.else_ is not None:
            for bl in (e.then, e.else_):
                if bl.tail is not None:
                    self.untyped_empty(bl.tail)
        elif isinstance(e, ast.BlockExpr) and e.block.tail is not None:
            self.untyped_empty(e.block.tail)

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

    def expr(self, e: ast.Expr, expected: T.Type) -> T.Type:
        m = getattr(self, "x_" + type(e).__name__, None)
        t = m(e, expected) if m is not None else UNKNOWN
        if t is not UNKNOWN:
            e.ty = t
        return t

    def x_IntLit(self, e, x):
        return T.lit_int(e.value)

    def x_FloatLit(self, e, x):
        return FLOAT

    def x_BigIntLit(self, e, x):
        return Lit(ast.BigLit(e.value), T.BIGINT)

    def x_BytesLit(self, e, x):
        return T.BYTES

    def x_StrLit(self, e, x):
        return T.lit_str(e.value)

    def x_BoolLit(self, e, x):
        return T.lit_bool(e.value)

    def x_NullLit(self, e, x):
        return NULL

    def x_Template(self, e, x):
        self.scopes.append({})
        self.template_parts(e.parts)
        self.scopes.pop()
        return _STD_TYPES["baml.TaggedString"] if e.tagged else STRING

    def tag_check(self, e: ast.Call) -> None:
        """A tagged template's tag: a function marked `//baml:tagged_string` whose first
        parameter is `body: (...) -> baml.TaggedString` (E0001 at the tag, as the engine)."""
        f = e.func
        path, x = [], f
        while isinstance(x, ast.Field):
            path.insert(0, x.name)
            x = x.obj
        fd = None
        if isinstance(x, ast.Name) and self.lookup_var(x.name) is None:
            fd = self.index.lookup(self.ns, [x.name, *path])
        if not isinstance(fd, FunctionDef):
            return  # unresolved (E0003) or a value: the call reports it
        name = ([x.name] + path)[-1]
        if not fd.decl.tagged_string:
            self.err(f.span, "E0001", f"`{name}` is not a tagged-string function — only functions marked "
                     "`//baml:tagged_string` can be used as a tagged-template tag")
            return
        ps = fd.decl.params
        first = ps[0].type if ps else None
        if not (ps and ps[0].name == "body" and isinstance(first, ast.TFunc)
                and isinstance(first.ret, ast.TName) and first.ret.path == ["baml", "TaggedString"]):
            self.err(f.span, "E0001", f"the first parameter of tagged-string function `{name}` must be "
                     "`body: (...) -> baml.TaggedString`")

    def template_parts(self, parts) -> None:
        for p in parts:
            if isinstance(p, str):
                continue
            if isinstance(p, ast.Let):
                self.let(p)
            elif isinstance(p, ast.TFor):
                it = self.expr(p.iterable, UNKNOWN)
                elem = self.iter_elem(it, p.iterable)
                self.scopes.append({})
                self.pattern(p.pattern, elem)
                self.template_parts(p.parts)
                self.scopes.pop()
            elif isinstance(p, getattr(ast, "TForC", ())):
                self.scopes.append({})
                if p.init is not None:
                    self.stmt(p.init)
                if p.cond is not None:
                    self.expr(p.cond, UNKNOWN)
                if p.update is not None:
                    self.fn.loop += 1
                    self.stmt(p.update)
                    self.fn.loop -= 1
                self.template_parts(p.parts)
                self.scopes.pop()
            elif isinstance(p, ast.TIf):
                for cond, ps in p.branches:
                    self.expr(cond, UNKNOWN)
                    self.template_parts(ps)
                if p.else_parts is not None:
                    self.template_parts(p.else_parts)
            elif isinstance(p, ast.Expr):
                self.open_holes(p)
                self.untyped_empty(p)
                t = self.soft_expr(p)
                if (t is NULL or t is VOID) and not (isinstance(p, ast.BlockExpr) and p.block.tail is None):
                    self.err(_hole_span(p), "E0001", "cannot interpolate a value of type `null`; "
                             "to run the expression without rendering it, end it with `;`")
                elif (isinstance(t, Union) and not isinstance(t, T.HiddenUnion) and NULL in t.members
                      and self.sure_type(widen(t))):
                    self.err(_hole_span(p), "E0001", f"cannot interpolate a value of type "
                             f"`{show(t)}` — it may be null; coalesce with `?? \"…\"` or unwrap it first")

    def x_Name(self, e, x):
        v = self.lookup_var(e.name)
        if v is not None:
            if self.soft is not e and not T.has_json(x):  # json tells no element type (E0155)
                self.pin(v)
            e.declared = v.ty
            return self.var_type(v)
        item = self.index.items_in(self.ns).get(e.name)
        if item is not None:
            if isinstance(item, FunctionDef) and _is_global(item):
                return self.global_type(item, e)
            if isinstance(item, FunctionDef):
                env = self.specialized(e, item)
                if env is None and interfaces.call_generics(item):
                    env = self.pinned_targs(e, item, x)
                t = self.fn_type(item, env)
                self.throws_within(e, t, x)
                return t
            if self.path_root is not e:  # a class, enum, interface or alias is no value
                self.err(e.span, "E0003", f"unresolved name: `{e.name}`")
            return UNKNOWN
        if e.name == "root" or e.name in BUILTIN_VALUE_ROOTS and self.path_root is e:
            return UNKNOWN
        self.err(e.span, "E0003", f"unresolved name: `{e.name}`")  # a package is no value
        return UNKNOWN

    def uninferable_class_args(self, at, f: ast.Field, fd: FunctionDef, expected: bool = False) -> None:
        """E0002: `Box.of(4)`, a static method of a generic class whose parameters do not
        mention the class's type parameter (nothing fixes it; with an `expected` type, its
        result may: `let xs: int[] = Box.make(1)` with `make(…) -> T[]`)."""
        cls = fd.owner
        if not isinstance(cls, ClassDef) or fd.decl.has_self or not cls.decl.generics or \
                getattr(f.obj, "type_args", None) or getattr(at, "type_args", None):
            return  # written: `Box<int>.of(4)`, `Box.of<int>(4)` (the class's first)
        ps, ret = self.sig(fd)
        fixing = [pt for _, pt, _ in ps] + ([ret] if expected else [])
        for g in cls.decl.generics:
            if not any(T.subst(t, {g.name: NULL}) != t for t in fixing):
                self.err(at.span, "E0002", f"cannot infer type parameter `{g.name}`")
                return

    def global_type(self, fd: FunctionDef, ref) -> T.Type:
        """A global's type: as declared, else its initializer's (checked on first need, in
        dependency order; E0181 for a global whose initializer needs its own value)."""
        done = self.global_types.get(fd)
        if done is not None:
            return done
        chain = self.global_chain
        if any(g is fd for g, _ in chain):
            start = next(i for i, (g, _) in enumerate(chain) if g is fd)
            names = [g.name for g, _ in chain[start:]] + [fd.name]
            self.err(chain[start][1], "E0181", f"initialization cycle: global `{fd.name}` needs its own "
                     f"value to be initialized ({' → '.join(f'`{n}`' for n in names)})")
            self.global_types[fd] = UNKNOWN
            return UNKNOWN
        if chain:
            chain[-1] = (chain[-1][0], ref.span)  # the read that needs fd first
        saved = {k: getattr(self, k) for k in _FN_STATE if hasattr(self, k)}
        chain.append((fd, None))
        self.check_function(fd)
        chain.pop()
        self.__dict__.update(saved)
        d = fd.decl
        hole = _empty_hole(d.body.tail) if d.ret is None else None
        if hole is not None:  # `const A = []`: nothing else could fix its element type
            self.err(hole, "E0155", "type annotations needed")
        t = self.resolve(d.ret, report=False) if d.ret is not None else (d.body.tail.ty or UNKNOWN)  # unwidened: `const M = E.A` is `E.A`
        return self.global_types.setdefault(fd, t)

    def specialized(self, e, fd: FunctionDef, env: dict | None = None) -> dict | None:
        """`id<int>` / `v.m<int>` as a value: its type parameters bound to the type arguments
        (E0005 when their number differs)."""
        targs = getattr(e, "type_args", None)
        if not targs:
            return env
        for ta in targs:
            self.require_throws(ta)
        ts = [self.resolve(ta) for ta in targs]
        gens = interfaces.call_generics(fd)
        if len(ts) != len(gens):
            self.err(e.span, "E0005", f"function `{fd.decl.name}` expects {len(gens)} type "
                     f"argument(s), got {len(ts)}")
            return env
        out = dict(env or {})
        out.update({g.name: t for g, t in zip(gens, ts)})
        return out

    def pinned_targs(self, e: ast.Name, fd: FunctionDef, expected: T.Type) -> dict | None:
        """A generic function coerced to a function type or `reflect.AnyFunction<Returns = R>`:
        the engine specializes it there, its type arguments bound by the parameters and result
        (`spec_targs`, for lowering); an `AnyFunction` that cannot bind them all is E0001."""
        want = [m for m in T.members(expected) if isinstance(m, (FuncT, AnyFnT))]
        if len(want) != 1:
            return None
        want = want[0]
        gens = [g.name for g in interfaces.call_generics(fd)]
        ps, ret = self.sig(fd)
        pairs = [(ret, want.ret)] if want.ret is not TOP else []
        if isinstance(want, FuncT):
            pairs += [(p[1], w[1]) for p, w in zip(ps, want.params)]
        env = _binds(pairs)
        if all(g in env for g in gens):
            e.spec_targs = [env[g] for g in gens]
            return env
        if isinstance(want, AnyFnT) or not T.has_tvar(want) and all(  # a function type written whole
                _sure_scrutinee(t) for t in [want.ret] + [p[1] for p in want.params]):
            self.err(e.span, "E0001", f"cannot determine every type argument for generic function "
                     f"`{fd.decl.name}` from the expected function type. Specialize it explicitly, "
                     f"for example `{fd.decl.name}<{', '.join('int' for _ in gens)}>`")
        return None

    def fn_type(self, fd: FunctionDef, env=None, explicit_self=False) -> T.Type:
        """A function's type; a method named by its path (`I.m`) takes its receiver first."""
        ps, ret = self.sig(fd, explicit_self)
        t = FuncT(ps, ret, self.declared_throws(fd))
        if T.has_tvar(t):
            t = T.subst(t, env or {})
        t = FnRefT(t.params, t.ret, t.throws)
        t.fd = fd
        return t

    def x_ArrayLit(self, e, expected):
        arrs = [m for m in T.members(expected) if isinstance(m, Arr) and m != JSON_ARR]
        if T.has_json(expected) and len(arrs) == 1 and _hollow(e) and _shaped(e, arrs[0]):
            expected = arrs[0]  # `let x: json | int[] = []` is an int[]
        elif T.has_json(expected) and arrs:  # `json | int[]`: inferred, then checked
            ts = self.items_inferred(e.items)
            t = Arr(_joined(ts) if ts else UNKNOWN)
            if not assignable(t, expected):
                self.mismatch(e.span, expected, t)
            return t
        if T.has_json(expected):
            expected = JSON_ARR
        exp = T.base(_sole(expected, Arr))
        if isinstance(exp, Arr) and exp.elem is T.JSON:
            e.records = True  # built as `json[]`, as the engine records it
        if isinstance(exp, Arr):
            if T.has_tvar(exp.elem) and not self.callee_tvars:  # not a callee's type parameter
                e.reify_elem = True  # a `T[]`: it records T's type argument (mir/lower.py)
            for it in e.items:
                self.expect(it, exp.elem)
            return exp if exp.elem is not UNKNOWN or not e.items else Arr(
                T.union(*(T.widen_scalar(it.ty or UNKNOWN) for it in e.items)))
        its = [m for m in T.members(expected) if isinstance(m, T.IterT) and m.cls == "Iterable"]
        if isinstance(expected, Union) and len(its) == 1 and not arrs:  # `Iterable<Item = X> | null`
            ts = self.items_inferred(e.items)
            if not all(assignable(t, its[0].item) for t in ts):
                self.mismatch(e.span, expected, Arr(_joined(ts)))
            return Arr(its[0].item)
        if isinstance(expected, Union):
            for it in e.items:
                self.expr(it, UNKNOWN)
            return UNKNOWN
        ts = self.items_inferred(e.items)
        if expected is not UNKNOWN and not isinstance(expected, TVar):
            t = Arr(_joined(ts) if ts else UNKNOWN)
            if not assignable(t, expected):
                self.mismatch(e.span, expected, t)
        if not ts:
            return Arr(UNKNOWN)
        return Arr(_joined(ts))

    def items_inferred(self, items) -> list:
        """The item types of an array literal that expects no element type, as the engine
        infers them: empty literals (`[]`, `[[]]`, `{}`) take the others' type where that is
        one container type they fit (`[[1], []]` is `int[][]`), and come after them."""
        full = [self.expr(it, UNKNOWN) for it in items if not _hollow(it)]
        one = T.union(*(T.widen_scalar(t) for t in full))
        rest = []
        for it in filter(_hollow, items):
            if _shaped(it, one):
                _records(it)  # its (empty) elements cannot tell the type it was given
            elif full and not (it.items if isinstance(it, ast.ArrayLit) else it.entries):
                self.untyped_empty(it)  # `[1, []]`, `[[1], [], ["a"]]`: no one container type to take
            rest.append(self.expr(it, one if _shaped(it, one) else UNKNOWN))
        return full + rest

    def x_MapLit(self, e, expected):
        checked = T.has_json(expected) and any(  # `json | map<string, int>`: inferred, checked
            isinstance(m, MapT) and m != JSON_MAP for m in T.members(expected))
        if T.has_json(expected) and not checked:
            expected = JSON_MAP
        exp = T.base(_sole(expected, MapT))
        if isinstance(exp, MapT) and (exp.val is T.JSON or isinstance(T.base(exp.key), EnumT)):
            e.records = True  # built as `map<string, json>`, as the engine records it; enum keys:
            # an empty one has no JSON form either (`baml.json.from` reads its key type)
        if isinstance(exp, MapT):
            for k, v in e.entries:
                self.expect(k, exp.key)
                self.expect(v, exp.val)
            self.hashable_key(e, exp.key)
            return exp
        ks = [self.expr(k, UNKNOWN) for k, _ in e.entries]
        vs = [self.expr(v, UNKNOWN) for _, v in e.entries]
        if not ks:
            t = MapT(UNKNOWN, UNKNOWN)
        else:
            t = MapT(T.union(*(widen(k) for k in ks)), _joined(vs))
            self.hashable_key(e, t.key)
        if (expected is not UNKNOWN and (checked or not isinstance(expected, (TVar, Union)))
                and not assignable(t, expected)):
            self.mismatch(e.span, expected, t)
        return t

    def first_key(self, tgt: ast.Index) -> None:
        """`let m = {}; m[k] = v`: the first write keys the empty literal (E0067 there)."""
        v = self.lookup_var(tgt.obj.name)
        kt = widen(tgt.index.ty or UNKNOWN)
        if v is not None and v.unpinned is not None and kt is not UNKNOWN and not self.types.hashable(kt):
            self.err(v.unpinned, "E0067", f"map keys must implement `baml.Hash`; got `{T.show(kt)}`")

    def hashable_key(self, e: ast.MapLit, key: T.Type) -> None:
        """E0067 at a map literal keyed by a type without `baml.Hash` (the engine reports the
        literal as well as the type that declared it)."""
        if key is not UNKNOWN and not self.types.hashable(key):
            self.err(e.span, "E0067", f"map keys must implement `baml.Hash`; got `{T.show(key)}`")

    def x_ClassLit(self, e, expected):
        ct = bare = self.resolve(e.type, report=False)
        if isinstance(ct, T.PlanT):  # `baml.spawn.Plan { ...plan, root: true }`
            for name, val in e.entries:
                self.expr(val, _plan_member(ct, name) if name is not None else UNKNOWN)
            return ct
        if isinstance(ct, T.StdT) and ct.name in stdsigs.STD_CLASSES:
            return self.std_class_lit(e, ct)
        if ct == _DONE and not e.entries:  # `baml.iter.Done {}`: what `next()` ends with
            return _DONE
        if ct is UNKNOWN:
            self.class_path_error(e.type, e.span)
        elif isinstance(ct, IfaceT):  # an interface has no literal: the engine finds no class of that name
            p = ".".join(e.type.path)
            self.err(e.span, "E0002", f"unresolved type: {p}. Did you mean `root.{p}`?")
        if isinstance(ct, ClassT) and ct.cls.decl.generics and not e.type.args:
            ct = _expected_class(ct, expected)
        for name, val in e.entries:
            if name is None and isinstance(ct, ClassT):
                self.expect(val, ct)  # `...p`: a value of the literal's own class
            elif name is None or not isinstance(ct, ClassT):
                self.expr(val, UNKNOWN)
        if not isinstance(ct, ClassT):
            return UNKNOWN
        if ct.cls.decl.generics and not e.type.args:  # `let b: Box<int> = Box { }`: the
            ct = _expected_instance(ct, expected)    # expected type gives the type arguments
        cls = ct.cls
        env = self.class_env(ct)
        has_spread = False
        given = set()
        for name, val in e.entries:
            if name is None:
                has_spread = True
                continue
            given.add(name)
            f = cls.field(name)
            if f is None:
                text = e.span.file.text
                i = text.rfind(name, e.span.start, val.span.start)
                sp = Span(e.span.file, i, i + len(name)) if i >= 0 else val.span
                self.err(sp, "E0007", f"class `{cls.name}` has no field `{name}`")
                self.expr(val, UNKNOWN)
                continue
            ft = self.field_type(ct, name, env)
            if _holds_container(ft):
                self.escape(val)  # a field's literal records the field's type
            self.expect(val, ft)
        if not has_spread:
            for f in cls.fields:
                if f.name not in given:
                    ft = self.field_type(ct, f.name, env)
                    if (ft is not UNKNOWN and not T.has_tvar(ft) and not T.has_unknown(ft)
                            and not assignable(NULL, ft)):
                        self.err(e.span, "E0001", f"class `{cls.name}` is missing required "
                                 f"field: `{f.name}`")
                        break
        if cls.decl.generics and not e.type.args and not has_spread and ct is bare:  # none expected
            return self.inferred_class(ct, e)
        return ct

    def inferred_class(self, ct: ClassT, e) -> ClassT:
        """`Box { v: 5 }`: a type argument is the widened type of the field declared as it
        (`v T`), as lowering records it (mir/lower.py `_type_args`); unbound, Box stays open."""
        given = {n: v for n, v in e.entries if n is not None}
        args = []
        for g in ct.cls.decl.generics:
            f = next((f for f in ct.cls.fields if isinstance(f.type, ast.TName) and f.type.path == [g.name]
                      and not f.type.args), None)
            vt = widen(given[f.name].ty) if f is not None and f.name in given and given[f.name].ty else UNKNOWN
            if vt is UNKNOWN or T.has_tvar(vt) or T.has_unknown(vt) or not _sure_scrutinee(vt):
                return ct
            args.append(vt)
        return ClassT(ct.cls, tuple(args))

    def class_path_error(self, te: ast.TName, span: Span) -> None:
        """Report an unresolved class-literal type at the literal (the engine's location)."""
        path = te.path
        if len(path) == 1:
            n = path[0]
            if (n in self.generics or n in PRIM_TYPES or n in self.index.items_in(self.ns)
                    or n in OPAQUE_TYPES or n in BUILTIN_TYPE_ROOTS or n in ("map", "Map", "Array", "json")):
                return
            self.err(span, "E0002", f"unresolved type: {n}")
            return
        head = path[0]
        if head == "root" and self.index.lookup(self.ns, path) is None:
            self.err(span, "E0002", f"unresolved type: {'.'.join(path)}")
        elif (head in self.index.namespaces and head not in self.index.items_in(self.ns) and head != "reflect"
              and head not in self.index.packages):
            p = ".".join(path)
            self.err(span, "E0002", f"unresolved type: {p}. Did you mean `root.{p}`?")

    def class_env(self, ct: ClassT) -> dict:
        gs = ct.cls.decl.generics
        if not gs:
            return {}
        return {g.name: (a if a is not None else UNKNOWN) for g, a in zip(gs, ct.args)}

    def field_type(self, ct: ClassT, name: str, env=None) -> T.Type:
        f = ct.cls.field(name)
        if f is None:
            return UNKNOWN
        save = (self.ns, self.generics)
        self.ns = ct.cls.namespace
        self.generics = {g.name for g in ct.cls.decl.generics}
        t = self.resolve(f.type, report=False)
        self.ns, self.generics = save
        if T.has_tvar(t):
            t = T.subst(t, env if env is not None else self.class_env(ct))
        return t

    # paths like `root.a.f`, `E.V`, `P.make` (a Field chain whose root is not a local)
    def item_path(self, e) -> list[str] | None:
        parts = []
        while isinstance(e, ast.Field):
            if e.optional:
                return None
            parts.append(e.name)
            e = e.obj
        if not isinstance(e, ast.Name) or self.lookup_var(e.name) is not None:
            return None
        g = self.index.items_in(self.ns).get(e.name)
        if isinstance(g, FunctionDef) and _is_global(g):
            return None  # `NAMES.push(…)`: a global's value
        if e.name == "env" and g is None and len(parts) >= 2 and (
                parts[-2] in _ENV_REF_METHODS or parts[-2] == "name"):
            return None  # `env.HOME.get()`, `env.HOME.name`: a `baml.env.Ref` value's members
        parts.append(e.name)
        parts.reverse()
        return carrier_path(parts)

    def resolve_path_expr(self, e: ast.Field, path: list[str]):
        """(kind, value): kind 'fn' (FunctionDef), 'type' (T.Type), 'unknown', 'error'."""
        head = path[0]
        idx = self.index
        if head == "root" or head in idx.items_in(self.ns) or head in idx.packages:
            item, k = idx.resolve_prefix(self.ns, path)
            if item is None:
                self.err(e.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                return "error", None
            if k == len(path):
                if isinstance(item, FunctionDef) and _is_global(item):
                    return "global", self.global_type(item, e)
                if isinstance(item, FunctionDef):
                    return "fn", item
                return "unknown", None
            unbound = _unbound_builtin(item, path[k:])
            if unbound is not None:
                return "type", unbound
            if isinstance(item, EnumDef) and k == len(path) - 2 and path[k] in item.variants:
                self.err(e.span, "E0003", f"unresolved name: `{path[k]}`")  # `E.V.foo`
                return "error", None
            if isinstance(item, EnumDef) and k == len(path) - 1:
                if path[k] in item.variants:
                    return "type", EnumT(item, path[k])
                self.err(e.span, "E0003", f"unresolved name: `{path[k]}`")
                return "error", None
            if isinstance(item, ClassDef) and k == len(path) - 1 and path[k] not in item.methods \
                    and path[k] not in _EVERY_TYPE_METHODS:  # `P.field`: no value (the engine's E0003)
                self.err(e.span, "E0003", f"unresolved name: `{path[k]}`")
                return "error", None
            return "unknown", None
        if head in idx.namespaces and head != "reflect":  # `reflect.…` is the stdlib package
            p = ".".join(path)
            self.err(e.span, "E0003", f"unresolved name: `{p}`. Did you mean `root.{p}`?")
            return "error", None
        if head == "env" and len(path) == 2 and head not in idx.items_in(self.ns):
            return "type", _ENV_REF  # `env.NAME`: a reference the runtime resolves, no string
        if head == "env" and len(path) == 3 and head not in idx.items_in(self.ns) and \
                path[2] not in _EVERY_TYPE_METHODS:
            self.err(e.span, "E0007", f"type `baml.env.Ref` has no member `{path[2]}`")
            return "error", None
        members = stdsigs.STD_CLASS_MEMBERS.get(".".join(path[:-1]))
        if members is not None and path[-1] not in members and path[-1] not in _EVERY_CLASS_MEMBERS:
            self.err(e.span, "E0003", f"unresolved name: `{path[-1]}`")  # `baml.regex.Regex.new`
            return "error", None
        if head in BUILTIN_VALUE_ROOTS and not (
                (head in _CARRIERS and (path[1] not in STDLIB_MEMBER_NAMES or (
                    path[1] in _ANY_CARRIER_STATIC and path[1] not in _CARRIER_STATICS[head]
                    and path[1] not in stdsigs.METHODS.get(head, ()))))
                or (head == "baml" and path[1] in _NOT_IN_BAML)):
            if len(path) == 2 and path[1] not in _PACKAGE_MEMBERS.get(head, (path[1],)):
                self.err(e.span, "E0003", f"unresolved name: `{'.'.join(path)}`")  # `assert.equals`
                return "error", None
            if head in ("baml", "reflect") and path[-1] not in STDLIB_MEMBER_NAMES and \
                    not STDLIB_TYPE_NAMES.intersection(path[-2:]):
                # no stdlib package declares anything of that name (`reflect.type_of`)
                self.err(e.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                return "error", None
            return "unknown", None
        self.err(e.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
        return "error", None

    def x_Field(self, e, x):
        impl = getattr(getattr(self, "llm_fn", None), "impl", None)
        if (impl is not None and impl.iface is not None and isinstance(e.obj, ast.Name) and e.obj.name == "default"
                and self.lookup_var("default") is None):
            for i in impl.iface.ancestors():  # `default.f`: the interface's field f of self
                f = i.field(e.name)
                if f is not None:
                    e.default_field = impl.field_name(e.name)
                    return self.iface_field_type(i, f)
        path = self.item_path(e)
        if path is not None:
            kind, val = self.resolve_path_expr(e, path)
            if kind == "fn":
                self.uninferable_class_args(e, e, val)
                return self.fn_type(val, self.specialized(e, val), explicit_self=True)
            if kind == "type":
                if isinstance(val, FuncT):
                    e.unbound_method = path[-1]
                return val
            if kind == "unknown" and len(path) == 4 and ".".join(path[:3]) in stdsigs.STD_ENUM_VARIANTS:
                return self.std_variant(e, path)
            if kind == "unknown" and ".".join(path) in _STD_NON_VALUES:  # `baml.regex`, `baml.regex.Regex`
                self.err(e.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                return UNKNOWN
            if kind == "global":
                return val
            return UNKNOWN
        self.path_root = e.obj
        ot = self.expr(e.obj, UNKNOWN)
        t = self.member(e, ot, e.name, e.optional, call=False)
        if isinstance(t, NativeFuncT) and isinstance(T.base(ot), (Arr, MapT)):
            self.escape(e.obj)  # `xs.push` as a value: its signature shows xs's element type
        return t

    def member(self, e, ot: T.Type, name: str, optional: bool, call: bool):
        """Type of `ot.name` (a method's FuncT for methods)."""
        if optional:
            if not call and not (isinstance(e.obj, ast.Field) and e.obj.optional):  # `c?.e?.n` is fine
                r = _source(e.obj)
                self.needless_chain(e, ot, r, f"`{r}.{name}`", f"`{r}?.{name}`")
            e.null_link = _may_be_null(ot)
            ot = T.strip_null(ot)
        t = self.member_of(e, ot, name, call)
        if ast.chain_end(e) and t is not UNKNOWN and _chain_null(e):
            t = T.optional(t)
        return t

    def needless_chain(self, e, ot: T.Type, recv: str, plain: str, chained: str) -> None:
        """E0004: a `?.` whose receiver cannot be null (the engine rejects it)."""
        if ot is not UNKNOWN and (_sure_scrutinee(ot) or isinstance(ot, FuncT)) and \
                all(m is not NULL for m in T.members(ot)):
            self.err(e.span, "E0004", f"did you mean {plain}? {chained} is unnecessary, because "
                     f"`{recv}` cannot be null")

    def erased_self(self, e, ot: T.Type, name: str) -> bool:
        """E0001: `eq` / `neq` take a second `Self`, which a union receiver does not fix."""
        if name in ("eq", "neq") and isinstance(ot, Union) and _sure_scrutinee(ot):
            self.err(e.span, "E0001", f"method `{name}` on interface `baml.ops.Equals` uses "
                     "`Self` in more than one parameter, or nested in a parameter, so it requires"
                     " a concrete `Self`, not an erased one (an interface-existential or union)")
            return True
        return False

    def member_of(self, e, ot: T.Type, name: str, call: bool):
        if isinstance(ot, Union) and all(isinstance(m, Lit) for m in ot.members) and \
                name not in _EVERY_TYPE_METHODS:  # `1 | 2` is a union, not an int: no `abs`
            self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`: its members "
                     f"implement no common interface that declares `{name}`")
            return UNKNOWN
        tb = T.base(ot)
        if isinstance(tb, T.IterT) and name not in _EVERY_TYPE_METHODS:
            return self.iter_field(e, tb, name)
        if tb == ANY_CLASS and name not in stdsigs.ANY_CLASS_METHODS and name not in _EVERY_TYPE_METHODS:
            self.err(e.span, "E0007", f"type `reflect.AnyClass` has no member `{name}`")  # fields: `get<T>`
            return UNKNOWN
        if (isinstance(tb, Union) and name not in _EVERY_TYPE_METHODS and self.sure_type(widen(tb))
                and not any(self.may_compare(widen(m)) for m in tb.members)):
            self.err(e.span, "E0007", f"type `{show(widen(ot))}` has no member `{name}`: its "
                     f"members implement no common interface that declares `{name}`")
            return UNKNOWN
        if call and self.erased_self(e, ot, name):
            return UNKNOWN
        if tb is T.JSON and name not in _EVERY_TYPE_METHODS:
            self.err(e.span, "E0007", f"type `{show(tb)}` has no member `{name}`: its members "
                     f"implement no common interface that declares `{name}`")
            return UNKNOWN
        if (call and name == "hash" and name not in self.impl_names and _sure_scrutinee(ot)
                and not isinstance(T.base(ot), ClassT)):
            return _HASH_FN
        if isinstance(tb, EnumT) and call and name in ("eq", "neq") and name not in self.impl_names:
            return NativeFuncT((("other", tb, False),), BOOL, NEVER)  # Equals' `other: Self`
        if isinstance(tb, TVar) and not self.bounds.get(tb.name) and tb.name in self.generics and \
                name not in ("to_string", "eq", "neq", "to_json"):
            self.err(e.span, "E0007", f"type `{tb.name}` has no member `{name}`")  # an unbounded `T`
            return UNKNOWN
        if isinstance(tb, TVar) and name not in (self.std_bounds.get(tb.name) or {name}) and \
                name not in _EVERY_TYPE_METHODS and name not in self.impl_names:
            self.err(e.span, "E0007", f"type `{tb.name}` has no member `{name}`")  # `T extends baml.ops.Compare`
            return UNKNOWN
        if isinstance(tb, TVar):
            if self.rigid_var(getattr(e, "obj", None), tb) and name not in _EVERY_TYPE_METHODS \
                    and name not in self.impl_names:
                self.err(e.span, "E0007", f"type `{tb.name}` has no member `{name}`")
                return UNKNOWN
            ifaces = [b for b in self.bounds.get(tb.name, ()) if isinstance(b, IfaceT)]
            # `T extends A & B`: the member comes from the conjunct that declares it
            tb = next((b for b in ifaces if _declares(b, name)), ifaces[0] if ifaces else tb)
        if isinstance(tb, IfaceT):
            return self.iface_member(e, tb, name)
        if isinstance(tb, T.PlanT):
            return _plan_member(tb, name)
        if sreflect.is_reflect(tb):
            return self.reflect_member(e, tb, name)
        if isinstance(tb, T.StdT) and (tb.name in stdsigs.STD_CLASSES or tb == T.CLIENT):
            return self.std_member(e, tb, name)
        if isinstance(tb, ClassT):
            cls = tb.cls
            if cls.field(name) is not None:
                return self.field_type(tb, name)
            m = cls.methods.get(name)
            if m is not None and m.impl is not None and _free_generics(m.impl):
                self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")
                return UNKNOWN  # `implements<T> I<T> for C`: called through an `I<…>` value only
            if m is not None and not m.decl.has_self:
                self.err(e.span, "E0001", f"method `{name}` has no `self` receiver, so it cannot "
                         f"be called on a value — qualify the type instead: `{cls.name}.{name}(...)`")
                return UNKNOWN
            if m is not None:
                return self.fn_type(m, self.specialized(e, m, self.class_env(tb)))
            ifaces = interfaces.ambiguous(cls, name)
            if ifaces:
                return self.ambiguous(e, show(ot), name, ifaces)
            if call and name == "hash" and name not in self.impl_names and _sure_scrutinee(tb):
                return _HASH_FN
            if call and name in ("eq", "neq") and name not in self.impl_names and (
                    len(tb.args) == len(cls.decl.generics) and _sure_scrutinee(tb)):
                return NativeFuncT((("other", tb, False),), BOOL, NEVER)  # Equals' `other: Self`
            if (not cls.impls and name not in _EVERY_TYPE_METHODS) or ((
                    name not in STDLIB_MEMBER_NAMES or name in _ANY_CLASS_ONLY) and name not in self.impl_names):
                self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")
            return UNKNOWN
        if isinstance(tb, EnumT) and tb.variant is not None and name not in _EVERY_TYPE_METHODS:
            self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")  # a variant's type: no impls
            return UNKNOWN
        if isinstance(tb, EnumT) and name in self.impl_names:
            ms = interfaces.builtin_methods(self.index, tb, name)
            if len(ms) == 1:
                e.direct = ms[0]  # `level.describe()`: its `implements … for Level` block's method
                return self.fn_type(ms[0])
        if (isinstance(tb, (EnumT, FuncT)) or tb in (_ENV_REF, T.TOP) or (tb is NEVER and isinstance(
                getattr(e, "obj", None), ast.Name))) and name not in _EVERY_TYPE_METHODS \
                and name not in self.impl_names:
            self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")
            return UNKNOWN
        if isinstance(tb, (T.Prim, Arr, MapT)) and tb not in (UNKNOWN, NEVER, VOID):
            if isinstance(tb, Arr) and ((_elem_lacks(tb.elem, name) and self.sure_type(tb.elem)
                                         and not T.has_tvar(tb.elem))
                                        or (name == "sort" and self.not_ordered(tb.elem))):
                self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")
                return UNKNOWN
            nf = self.native_method(tb, name)
            if nf is not None:
                return nf
            kind = _KIND_OF.get(type(tb)) or _KIND_OF.get(tb)
            rhs = _AMBIGUOUS_OPS.get(kind, {}).get(name)
            if rhs:
                iface = _OP_IFACES[name]
                return self.ambiguous(e, show(ot), name, [f"baml.ops.{iface}<{r}>" for r in rhs])
            ms = interfaces.builtin_methods(self.index, tb, name)
            if len(ms) > 1:
                return self.ambiguous(e, show(ot), name, [m.impl.iface.name if m.impl.iface else m.impl.std
                                                         for m in ms])
            if ms:
                e.direct = ms[0]  # `x.m()` on a builtin type: its `implements … for` block's method
                return self.fn_type(ms[0])
            kind = _KIND_OF.get(type(tb)) or _KIND_OF.get(tb)
            if isinstance(tb, (Arr, MapT)) and T.has_unknown(tb):
                v = self.lookup_var(e.obj.name) if isinstance(getattr(e, "obj", None), ast.Name) else None
                if v is not None and v.unpinned is not None and not v.used:
                    self.err(e.span, "E0155", "type annotations needed: the type of this value must "
                             f"be known before accessing `{name}`")
                return UNKNOWN
            known = (_ENGINE_MEMBERS[kind] | _EVERY_TYPE_METHODS) if kind in _ENGINE_MEMBERS \
                else STDLIB_MEMBER_NAMES
            if name not in known and (name not in self.impl_names or (  # no block for this type has it
                    isinstance(tb, T.Prim) and self.sure_type(tb))):
                self.err(e.span, "E0007", f"type `{show(ot)}` has no member `{name}`")
            return UNKNOWN
        return UNKNOWN

    def reflect_member(self, e, tb: T.Type, name: str) -> T.Type:
        """A method of `reflect.Type` or of a kind view, or one all views of a union of them
        have (sema/reflect.py MEMBERS)."""
        found = sreflect.member(tb, name)
        if found is False:
            why = ": its members implement no common interface that declares `" + name + "`" \
                if isinstance(tb, Union) else ""
            self.err(e.span, "E0007", f"type `{show(tb)}` has no member `{name}`{why}")
            return UNKNOWN
        ret = found or UNKNOWN
        params = tuple((p, UNKNOWN, False) for p in sreflect.PARAMS.get(name, ()))
        return NativeFuncT(params, ret, NEVER)

    def ambiguous(self, e, owner: str, name: str, ifaces: list[str]) -> T.Type:
        self.err(e.span, "E0121", f"method `{name}` on class `{owner}` is declared by multiple "
                 f"interfaces: {', '.join(f'`{i}`' for i in ifaces)}; unqualified calls will be ambiguous")
        return UNKNOWN

    def iface_member(self, e, it: IfaceT, name: str) -> T.Type:
        """`x.name` on an interface value: a field or method of the interface or of one it
        requires; the call or read dispatches on x's run-time type (`e.dispatch`)."""
        for i in it.iface.ancestors():
            f = i.field(name)
            if f is not None:
                e.dispatch = (i, "field:" + name, it.args if i is it.iface else ())
                return self.iface_field_type(i, f)
            m = i.methods.get(name)
            if m is not None:
                e.dispatch = (i, name, it.args if i is it.iface else ())
                return self.fn_type(m)
        self.err(e.span, "E0007", f"type `{show(it)}` has no member `{name}`")
        return UNKNOWN

    def std_variant(self, e, path: list[str]) -> T.Type:
        """`baml.regex.ErrorKind.Syntax`: a variant of a stdlib enum the checker models."""
        enum = ".".join(path[:3])
        if path[3] in stdsigs.STD_ENUM_VARIANTS[enum]:
            return T.StdT("variant", enum, path[3])
        self.err(e.span, "E0003", f"unresolved name: `{path[3]}`")
        return UNKNOWN

    def std_member(self, e, tb: T.StdT, name: str) -> T.Type:
        """A field or method of a stdlib class the checker models (sema/stdsigs.STD_CLASSES)."""
        if tb == _ENV_REF and name in _ENV_REF_METHODS:  # they read the environment: not run
            return _ENV_REF_METHODS[name]
        if tb == T.CLIENT or tb.name in stdsigs.CLIENT_CLASSES:  # `ai.Client`'s methods
            if name in stdsigs.CLIENT_METHODS:
                return NativeFuncT((), STRING, NEVER)
            if name in stdsigs.CLIENT_SENDS:
                return UNKNOWN  # lowering: not supported (it renders or sends a request)
        field = stdsigs.STD_CLASSES.get(tb.name, {}).get(name)
        if field is not None:
            return self.resolve(_parse_std_type(field), report=False)
        methods = stdsigs.STD_CLASS_METHODS.get(tb.name, {})
        if name in methods or "*" in methods:
            return UNKNOWN  # a method value (a call is std_method_call's)
        rhs = [r for (op, c, r) in stdsigs.TIME_OPS if c == tb.name and _OP_METHOD_OF[op] == name]
        if len(rhs) > 1:  # `Multiply<int>` and `Multiply<bigint>`, `Subtract<Duration>` and `<Self>`
            return self.ambiguous(e, tb.name, name, [f"baml.ops.{_OP_IFACES[name]}<{r}>" for r in rhs])
        nf = self.native_method(tb, name)
        if nf is not None:
            return nf
        rt = sreflect.DATA_METHODS.get(tb.name, {}).get(name)
        if rt is not None:
            return NativeFuncT((), rt, NEVER) if rt is not UNKNOWN else UNKNOWN
        if name not in _EVERY_TYPE_METHODS and not (_is_time(tb) and name in stdsigs.CLOCK_READERS):
            self.err(e.span, "E0007", f"type `{tb.name}` has no member `{name}`")
        return UNKNOWN

    def std_field(self, ct: T.Type, name: str) -> T.Type:
        """A field of a stdlib class the checker models (unknown for others)."""
        ft = stdsigs.STD_CLASSES.get(ct.name, {}).get(name) if isinstance(ct, T.StdT) else None
        return self.resolve(_parse_std_type(ft), report=False) if ft is not None else UNKNOWN

    def std_class_lit(self, e, ct: T.StdT) -> T.Type:
        """`baml.regex.Match { … }`: its fields typed; a class holding runtime state (`Regex`'s
        `_handle`) is built only by its own functions (E0173)."""
        fields = stdsigs.STD_CLASSES[ct.name]
        if ct.name in stdsigs.STD_HANDLE_CLASSES:
            self.err(e.span, "E0173", f"class `{ct.name}` cannot be built with a class literal: its "
                     "field `_handle` holds state that only the class's own functions create")
        given = set()
        for name, val in e.entries:
            ft = fields.get(name) if name is not None else None
            given.add(name)
            if ft is None and name is not None:
                i = e.span.file.text.rfind(name, e.span.start, val.span.start)
                self.err(Span(e.span.file, i, i + len(name)) if i >= 0 else val.span, "E0007",
                         f"class `{ct.name}` has no field `{name}`")
            if name is None:
                self.expect(val, ct)  # `...base`: a value of the literal's own class
            elif ft is None:
                self.expr(val, UNKNOWN)
            else:
                self.expect(val, self.resolve(_parse_std_type(ft), report=False))
        if None not in given and ct.name not in stdsigs.STD_CLASS_KINDS and ct.name not in stdsigs.STD_CLASS_METHODS:
            missing = [f for f, ft in fields.items() if f not in given
                       and not assignable(NULL, self.resolve(_parse_std_type(ft), report=False))]
            if missing:
                self.err(e.span, "E0001", f"class `{ct.name}` is missing required fields: "
                         + ", ".join(f"`{f}`" for f in missing))
        return ct

    def std_method_call(self, e: ast.Call, name: str, sig: str, expected: T.Type) -> T.Type:
        """A method of a stdlib class typed by its signature (sema/stdsigs.STD_CLASS_METHODS):
        a type parameter missing from the call is the expected type's (`let a: int =
        rec.get("age")` reads an `int`, and is an `int?`), recorded for lowering (`std_targs`)."""
        gens, params, ret = _method_sig(sig, self)
        env = self.written_targs(e, gens, name)
        if env is None:
            return UNKNOWN
        core = T.strip_null(ret) if isinstance(ret, Union) else ret
        if isinstance(core, TVar) and core.name not in env and _sure_scrutinee(expected) \
                and not T.has_tvar(expected):
            env[core.name] = T.strip_null(expected) if core is not ret else expected
        missing = next((g for g in gens if g not in env), None)
        if missing is not None and getattr(e, "plain_let", False):
            self.err(e.span, "E0002", f"cannot infer type parameter `{missing}`")
        if gens:
            e.std_targs = [env.get(g, UNKNOWN) for g in gens]
        self.check_args(e, params, env)
        self.effects.sites[id(e)] = ("type", _std_throws(sig))
        ret = T.subst(ret, env) if T.has_tvar(ret) else ret
        return UNKNOWN if T.has_tvar(ret) or T.has_unknown(ret) else ret

    def any_class_call(self, e: ast.Call, f: ast.Field, expected: T.Type) -> T.Type:
        """A method of `reflect.AnyClass` (stdsigs.ANY_CLASS_METHODS), typed by its declaration;
        `get<T>`/`find<T>` keep their written type argument for lowering (a checked read)."""
        got = stdsigs.ANY_CLASS_METHODS.get(f.name)
        if got is None:
            self.err(f.span, "E0007", f"type `reflect.AnyClass` has no member `{f.name}`")
            self.args_unknown(e)
            return UNKNOWN
        sig, throws = got
        r = self.std_method_call(e, f.name, sig, expected)
        e.std_targs = None
        self.effects.sites[id(e)] = ("type", UNKNOWN if throws else NEVER)
        return r

    def written_targs(self, e: ast.Call, gens, name: str) -> dict | None:
        """The type arguments written on a stdlib call (None: a wrong count, E0005)."""
        if e.type_args and len(e.type_args) != len(gens):
            self.err(e.span, "E0005", f"function `{name}` expects {len(gens)} type argument(s), got "
                     f"{len(e.type_args)}")
            self.args_unknown(e)
            return None
        return {g: self.resolve(ta, report=False) for g, ta in zip(gens, e.type_args)}

    def std_call(self, e: ast.Call, path: str) -> T.Type:
        """A call of a (non-generic) stdlib function whose types the checker models."""
        _, params, ret = _typed_sig(path, self)
        self.check_args(e, params, {})
        return ret

    def iface_field_type(self, i: InterfaceDef, f) -> T.Type:
        save = (self.ns, self.generics)
        self.ns, self.generics = i.namespace, {g.name for g in i.decl.generics}
        t = self.resolve(f.type, report=False)
        self.ns, self.generics = save
        return t

    def native_method(self, tb: T.Type, name: str):
        kind = _KIND_OF.get(type(tb)) or _KIND_OF.get(tb)
        if kind is None:
            return None
        key = (kind, name)
        raw = self._native_cache.get(key, False)
        if raw is False:
            raw = _native_sig(kind, name, self)
            self._native_cache[key] = raw
        if raw is None:
            return None
        env = {"Self": tb}
        if isinstance(tb, Arr):
            env["T"] = tb.elem
        elif isinstance(tb, MapT):
            env["K"], env["V"] = tb.key, tb.val
        ps = tuple((n, T.subst(p, env), d) for n, p, d in raw.params)
        t = NativeFuncT(ps, T.subst(raw.ret, env), _std_throws(stdsigs.METHODS[kind][name]))
        t.strict = True  # its signature is exact: arity checked as declared
        t.through = _callback_throws(stdsigs.METHODS[kind][name])
        env = {**{v: TVar(v) for v in ("U", "R", "A", "B")}, **env}  # the method's own
        t.open = FuncT(tuple((n, T.subst(p, env), d) for n, p, d in raw.params), T.subst(raw.ret, env))
        t.generic = stdsigs.METHODS[kind][name].lstrip().startswith("<")
        return t

    def iter_field(self, e, it: T.IterT, name: str) -> T.Type:
        """A field of `Range` / `Repeat` (their state is public); any other member is E0007."""
        t = _ITER_FIELDS.get(it.cls, {}).get(name)
        if t is None:
            if name not in _ITER_METHODS and not (name == "peek" and it.cls == "Peekable") or \
                    it.cls == "Iterable" and name != "iter":  # an Iterable's one method
                self.err(e.span, "E0007", f"type `{show(it)}` has no member `{name}`")
            return UNKNOWN
        return it.item if t == "item" else Arr(it.item) if t == "items" else t

    def iter_method_call(self, e: ast.Call, f: ast.Field, it: T.IterT) -> T.Type:
        """A method of `baml.iter.Iterator` (ns_iter/iter.baml) on an iterator of `it.item`s: its
        arguments checked against the item type, its result the adapter's item or the terminal's."""
        name, item = f.name, it.item
        if name in _ITER_FIELDS.get(it.cls, {}):  # `repeat.count()`: the field, not the method
            self.err(e.span, "E0006", f"`{show(self.iter_field(f, it, name))}` is not a function and "
                     "cannot be called")
            self.args_unknown(e)
            return UNKNOWN
        shape = _ITER_METHODS.get(name, "" if name == "peek" and it.cls == "Peekable" else None)
        if it.cls == "Iterable" and name != "iter":
            shape = None  # `Iterable` declares `iter()` only
        if shape is None:
            self.err(f.span, "E0007", f"type `{show(it)}` has no member `{name}`")
            self.args_unknown(e)
            return UNKNOWN
        fn = lambda ret, *ps: FuncT(tuple((None, p, False) for p in ps), ret)  # noqa: E731
        params = {"pred": (("predicate", fn(BOOL, item), False),), "fn": (("fn", fn(UNKNOWN, item), False),),
                  "n": (("n", INT, False),), "other": (("other", T.iter_of(item, "Iterable"), False),), "": (),
                  "reduce": (("fn", fn(UNKNOWN, UNKNOWN, item), False), ("initial", UNKNOWN, False))}[
            shape.partition(":")[0]]
        self.check_args(e, params, {}, exact=True)
        r = _callback_result(e) if params and isinstance(params[0][1], FuncT) else UNKNOWN
        if name == "reduce" and r is UNKNOWN:
            r = _accumulator(e)
        return {"next": T.union(item, _DONE), "peek": T.union(item, _DONE), "collect": Arr(item),
                "count": INT, "some": BOOL, "every": BOOL, "for_each": VOID, "find": T.optional(item),
                "reduce": r, "peekable": T.IterT(item, "Peekable"),
                "map": T.iter_of(r), "filter_map": T.iter_of(T.strip_null(r)) if r is not UNKNOWN else UNKNOWN,
                "flat_map": T.iter_of(_iterable_item(r))}.get(name, T.IterT(item))

    def native_targs(self, ft: FuncT, e: ast.Call) -> dict:
        """The type arguments of a generic stdlib method call: the plain arguments' first (the
        engine infers `reduce`'s `A` from `initial`), then the callbacks' declared results,
        a lambda whose result does not fit being a mismatch (E0001 at the lambda)."""
        given, made = _value_targs(ft, e), _lambda_results(ft, e)
        for (_, pt, _), a in zip(ft.params, e.args):
            if isinstance(pt, FuncT) and isinstance(a.value, ast.Lambda):  # `(a: float, …)` where A is int
                for (_, want, _), lp in zip(pt.params, a.value.params):
                    if isinstance(want, TVar) and want.name in given and lp.type is not None:
                        lt = self.resolve(lp.type, report=False)
                        if _sure_scrutinee(lt) and not assignable(given[want.name], lt):
                            self.err(a.value.span, "E0001", "mismatched types", f"expected a callback taking "
                                     f"`{show(given[want.name])}`, found `{show(lt)}`")
                            break
            if (isinstance(pt, FuncT) and isinstance(pt.ret, TVar) and pt.ret.name in given
                    and pt.ret.name in made and isinstance(a.value, ast.Lambda)
                    and not assignable(made[pt.ret.name], given[pt.ret.name])):
                self.err(a.value.span, "E0001", "mismatched types",
                         f"expected a callback returning `{show(given[pt.ret.name])}`, found "
                         f"`{show(made[pt.ret.name])}`")
        return {**made, **given}

    def x_Upcast(self, e, x):
        self.path_root = e.obj
        ot = self.expr(e.obj, UNKNOWN)
        t = self.resolve(e.type) if e.type is not None else UNKNOWN
        if not isinstance(t, (IfaceT, T.IterT)):  # `baml.iter.Iterable`/`Iterator` are interfaces
            if t is not UNKNOWN:
                self.err(e.span, "E0001", f"`.as<{show(t)}>` needs an interface type")
            return UNKNOWN
        if not assignable(ot, t):
            self.mismatch(e.span, t, ot)
        return t

    def x_Index(self, e, x):
        self.path_root = e.obj
        ot = self.expr(e.obj, UNKNOWN)
        it = self.expr(e.index, UNKNOWN)
        if e.optional:
            e.null_link = _may_be_null(ot)
            ot = T.strip_null(ot)
        tb = T.base(ot)
        r = UNKNOWN
        if isinstance(tb, (Arr, MapT)):
            r, key = (tb.elem, INT) if isinstance(tb, Arr) else (tb.val, tb.key)
            if not assignable(it, key):
                self.mismatch(e.index.span, key, it)
        elif tb is T.BYTES:
            r = INT
            if not assignable(it, INT):
                self.mismatch(e.index.span, INT, it)
        elif tb in (STRING, INT, FLOAT, BOOL, NULL, T.BIGINT, T.JSON, _ENV_REF, T.TOP) or isinstance(
                tb, (T.IterT, AnyFnT)) or (isinstance(tb, (ClassT, EnumT, Union)) and self.sure_type(tb)
                and not self.may_compare(widen(tb))):
            self.err(e.span, "E0008", f"cannot index into type `{show(widen(ot))}`")
        if ast.chain_end(e) and r is not UNKNOWN and _chain_null(e):
            r = T.optional(r)
        return r

    def x_Call(self, e, expected):
        r = self.call_type(e, expected)
        return T.optional(r) if ast.chain_end(e) and r is not UNKNOWN and _chain_null(e) else r

    def call_type(self, e, expected):
        unexpected = self.no_expected is e  # nothing expects a type of the result (E0002)
        if getattr(e, "tagged", False):
            self.tag_check(e)
        f = e.func
        if not e.type_args and isinstance(f, ast.Field) and isinstance(f.obj, ast.Name) \
                and getattr(f.obj, "type_args", None) and self.lookup_var(f.obj.name) is None \
                and isinstance(self.index.lookup(self.ns, [f.obj.name]), ClassDef):
            e.type_args = f.obj.type_args  # `Box<int>.make(1)` is `Box.make<int>(1)` to the engine
        for ta in e.type_args:
            self.resolve(ta)
            self.require_throws(ta)
        f = e.func
        fd = None
        env: dict = {}
        ft = UNKNOWN
        if isinstance(f, ast.Name) and self.lookup_var(f.name) is None:
            item = self.index.items_in(self.ns).get(f.name)
            if isinstance(item, FunctionDef) and not _is_global(item):
                fd = item
            else:
                ft = self.expr(f, UNKNOWN)
        elif isinstance(f, ast.Field) and self.default_method(f) is not None:
            fd = f.direct = self.default_method(f)  # `default.m()`: the interface's own body
        elif isinstance(f, ast.Field):
            path = self.item_path(f)
            members = stdsigs.STD_CLASS_MEMBERS.get(".".join(path[:-1])) if path is not None else None
            if members is not None and e.args and e.args[0].name is None and path[-1] in members \
                    and ".".join(path) not in stdsigs.FUNCTIONS and not path[-1].startswith("_") \
                    and path[-1] not in stdsigs.CLOCK_READERS:  # `ZonedDateTime.now_in(tz)`: a static
                # `baml.time.PlainDate.year(d)`: a stdlib method called through its class, `d.year()`
                cls = _STD_TYPES.get(".".join(path[:-1]))
                recv = self.soft_expr(e.args[0].value) if cls is not None else UNKNOWN
                if cls is None or recv is UNKNOWN or assignable(recv, cls):
                    call = ast.Call(e.span, ast.Field(f.span, e.args[0].value, path[-1]), e.args[1:], e.type_args)
                    e.as_method = call  # lowering lowers the method call the checker typed
                    return self.expr(call, expected)
                mt = self.member_of(ast.Field(f.span, e.args[0].value, path[-1]), cls, path[-1], True)
                if isinstance(mt, FuncT) and len(e.args) - 1 < sum(1 for _, _, d in mt.params if not d):
                    self.err(e.span, "E0005", f"expected {len(mt.params) + 1} argument(s), got {len(e.args)}")
                self.mismatch(e.args[0].value.span, cls, recv)  # the receiver passed first is no `cls`
                self.args_unknown(e)
                return UNKNOWN
            if path is not None:
                kind, val = self.resolve_path_expr(f, path)
                if kind == "fn":
                    fd = val
                    self.uninferable_class_args(e, f, fd, expected is not UNKNOWN)
                elif kind == "type" and isinstance(val, FuncT):  # `P.to_string(p)`
                    ft = val
                    e.unbound_method = path[-1]
                elif kind == "global":  # `root.ns.F(x)`: a global holding a function
                    ft = val
                elif kind == "type" and isinstance(val, EnumT) and val.variant is not None:
                    self.err(f.span, "E0006", f"`{'.'.join(path)}` is not a function and cannot be called")
                    self.args_unknown(e)  # `E.A()`
                    return UNKNOWN
                elif kind == "error":
                    self.args_unknown(e)
                    return UNKNOWN
                elif path[0] == "reflect" and kind == "unknown" and "reflect" not in self.index.items_in(self.ns):
                    return self.reflect_call(e, path, expected)
                else:
                    self.std_defaults(e, ".".join(path))
                    if path == ["baml", "regex", "new"]:
                        self.regex_literal(e)
                    std = stdsigs.FUNCTIONS.get(".".join(path))
                    if std is not None:
                        self.effects.sites[id(e)] = ("type", _std_throws(std))
                    elif _unknown_client_item(path):
                        self.err(f.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                    if ".".join(path) in stdsigs.TYPE_ARG_FUNCTIONS or ".".join(path) in stdsigs.CHECKED_FUNCTIONS:
                        return self.typed_std_call(e, ".".join(path), expected)
                    if std is not None and ".".join(path) in _JSON_STD:
                        _, params, r = _typed_sig(".".join(path), self)
                        self.check_args(e, params, {})
                        return r
                    if path[:2] in (["baml", "regex"], ["baml", "time"]) and std is not None:
                        return self.std_call(e, ".".join(path))
                    if path[:2] == ["baml", "time"] and path[-1] not in stdsigs.CLOCK_READERS:
                        self.err(f.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                    if path[:2] == ["baml", "regex"] and path[2] not in _REGEX_NAMES:
                        self.err(f.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                    elif len(path) == 3 and path[0] == "baml" and path[1] in _LISTED_PACKAGES and std is None \
                            and path[2][:1].islower() and path[2] not in _LISTED_PACKAGES[path[1]]:
                        self.err(f.span, "E0003", f"unresolved name: `{'.'.join(path)}`")
                    if std is not None:
                        r = _std_prim_ret(std)
                        # `int.parse(1)`, `float.pi(1)`, `log.info()`: arguments and arity as declared;
                        # a type parameter the expected result fixes takes any argument
                        gens, params, ret = _typed_sig(".".join(path), self)
                        self.check_args(e, params, {g: UNKNOWN for g in gens if expected is not UNKNOWN
                                                    and _mentions(ret, g)}, exact=True)
                        if _callback_throws(std):  # `baml.Array.generate(n, f)` throws what f throws
                            self.effects.sites[id(e)] = self.through(e)
                        if path[:2] == ["baml", "iter"]:
                            return _iter_made(e, path)
                        return r or (UNKNOWN if T.has_unknown(ret) or T.has_tvar(ret) else ret)
            else:
                ot = self.receiver(f)
                rt = ot
                if f.optional or e.optional:
                    e.null_link = _may_be_null(ot)
                    rt = T.strip_null(ot)
                tb = T.base(rt)
                if isinstance(tb, T.IterT) and f.name not in _EVERY_TYPE_METHODS:
                    return self.iter_method_call(e, f, tb)
                if tb == ANY_CLASS and (f.name in stdsigs.ANY_CLASS_METHODS or f.name not in _EVERY_TYPE_METHODS):
                    return self.any_class_call(e, f, expected)
                if isinstance(tb, T.PlanT) and f.name == "wrap" and len(e.args) == 1:
                    body = FuncT((("body", FuncT((), tb.value, tb.error), False),), UNKNOWN, None)
                    w = self.expr(e.args[0].value, body)  # a plan of what the wrapper returns
                    return T.PlanT(w.ret, UNKNOWN) if isinstance(w, FuncT) else T.PlanT(UNKNOWN, UNKNOWN)
                if isinstance(tb, T.StdT) and stdsigs.STD_CLASS_METHODS.get(tb.name, {}).get(f.name) is not None:
                    return self.std_method_call(e, f.name, stdsigs.STD_CLASS_METHODS[tb.name][f.name], expected)
                if isinstance(tb, ClassT) and tb.cls.methods.get(f.name) is not None and not _free_generics(
                        tb.cls.methods[f.name].impl):  # (else member_of: E0007)
                    fd = tb.cls.methods[f.name]
                    if not fd.decl.has_self:
                        self.member_of(f, rt, f.name, call=True)  # E0001: no `self`
                        self.args_unknown(e)
                        return UNKNOWN
                    env = self.class_env(tb)
                else:
                    ft = self.member_of(e if isinstance(T.base(rt), Union) else f, rt, f.name, call=True)
                    if ft is UNKNOWN:
                        self.args_unknown(e)
                        return UNKNOWN
                    if getattr(f, "dispatch", None) is not None and not f.dispatch[1].startswith("field:"):
                        fd = f.dispatch[0].methods[f.name]
                    elif getattr(f, "direct", None) is not None:
                        fd = f.direct
                    if isinstance(ft, NativeFuncT):
                        self.effects.sites[id(e)] = ("type", ft.throws or NEVER)
                        self.check_args(e, ft.params, {}, native=not ft.strict, rigid=True, exact=ft.strict)
                        if ft.through:  # `xs.map(f)` throws what f throws
                            self.effects.sites[id(e)] = self.through(e)
                        if tb == sreflect.PACKAGE and f.name in ("get_global", "find_global") \
                                and not e.type_args and unexpected:
                            self.err(e.span, "E0002", "cannot infer type parameter `T`")  # `<T>(name)`
                        r = ft.ret
                        if f.name == "iter" and (isinstance(tb, Arr) or tb is STRING):  # `Iterable`'s
                            return T.iter_of(tb.elem if isinstance(tb, Arr) else STRING)  # (string: code points)
                        if ft.open is not None and T.has_tvar(ft.open.ret):
                            r = T.subst(ft.open.ret, self.native_targs(ft.open, e))
                        return r
        else:
            ft = self.expr(f, UNKNOWN)
            if e.optional:  # `f?.(x)`
                r, whole = _source(f), _source(e)
                self.needless_chain(e, ft, r, f"`{r}{whole[len(r) + 2:]}`", f"`{whole}`")
        if fd is not None and not isinstance(ft, NativeFuncT):
            gens = interfaces.call_generics(fd)
            if gens and not e.type_args:
                self.uninferable(e, fd, with_ret=self.no_expected is not e)
            if e.type_args and len(e.type_args) != len(gens) and (fd.owner is None or len(gens) > len(fd.decl.generics)):
                self.err(e.span, "E0005", f"function `{fd.decl.name}` expects "
                         f"{len(gens)} type argument(s), got {len(e.type_args)}")
            if gens and not e.type_args and expected is not UNKNOWN:
                e.expected_ty = expected  # type arguments the result binds, for lowering (`$targs`)
            if gens and e.type_args:
                env = dict(env)
                for g, ta in zip(gens, e.type_args):
                    env[g.name] = self.resolve(ta, report=False)
            ps, ret = self.sig(fd, explicit_self=isinstance(f, ast.Field) and getattr(f, "direct", None) is None
                               and self.item_path(f) is not None)
            infer = bool(gens) and not e.type_args and T.has_tvar(ret)
            if gens and not e.type_args:
                self.only_empties(e, fd, gens, ps, ret)
            literal = self.literal_targs(e, ps, ret, {g.name for g in gens}, expected) if \
                gens and not e.type_args and not env else None
            if literal is not None:
                return self.literal_call(e, fd, ps, ret, literal, _fixed_by(ret, expected))
            whole: frozenset = frozenset()
            if infer and isinstance(ret, (Arr, MapT)) and _sure_scrutinee(expected):
                got = _binds([(ret, expected)])  # `-> T[]`: T from the expected type
                whole = frozenset(got) - set(env)
                env = {**got, **env}
            self.check_args(e, ps, env, whole=whole, fixed=_fixed_by(ret, expected) if infer else frozenset(),
                            user=True)
            if fd.decl.generics and not e.type_args:
                self.conflicting_args(e, ps, env)
                self.rigid_args(e, ps, env)
            if infer:  # the rest from the arguments: `id(1)` is `1`, `wrap(1)` an `int[]`
                direct = isinstance(ret, TVar)
                env = {**_binds([(pt, _arg_type(a.value) if direct else widen(a.value.ty or UNKNOWN))
                                 for (_, pt, _), a in zip(ps, e.args) if a.name is None]), **env}
            self.effects.sites[id(e)] = ("fn", fd, _call_env(fd, ps, e, env), self.passed(e, ps))
            self.check_bounds(e, fd, ps, env)
            if T.has_tvar(ret):
                hidden = infer and fd.owner is None and _inferred_outside_callbacks(ret, ps, e.args)
                ret = T.subst(ret, env)
                if T.has_unknown(ret):
                    return UNKNOWN
                if hidden and isinstance(ret, Union):
                    ret = T.HiddenUnion(ret.members)
            return ret
        tb = T.base(ft)
        if isinstance(tb, FuncT):
            self.effects.sites[id(e)] = self.value_callee(f, tb)
            named = all(n is not None for n, _, _ in tb.params)
            self.check_args(e, tb.params, {}, allow_named=named, user=True)
            return tb.ret if not T.has_tvar(tb.ret) else UNKNOWN
        if tb in (INT, FLOAT, STRING, BOOL, NULL, T.TOP) or isinstance(tb, (Arr, MapT, ClassT, EnumT, IfaceT, AnyFnT)):
            self.err(e.span, "E0006", f"`{show(widen(ft))}` is not a function and cannot be called")
        if isinstance(f, ast.Name) and self.lookup_var(f.name) is None and fd is None and \
                self.index.items_in(self.ns).get(f.name) is None:
            for a in e.args:  # an unresolved callee (E0003) types none of its arguments
                self.soft_expr(a.value)
            return UNKNOWN
        self.args_unknown(e)
        return UNKNOWN

    def typed_std_call(self, e: ast.Call, path: str, expected: T.Type) -> T.Type:
        """A stdlib function whose native receives its type arguments: check their count, infer
        missing ones (from the expected type, else from the arguments they type), record them on
        the call for lowering (`std_targs`), check the arguments; its type is the return type."""
        gens, params, ret = _typed_sig(path, self)
        env = self.written_targs(e, gens, path.rsplit(".", 1)[-1])
        if env is None:
            return UNKNOWN
        for g in gens:
            if g not in env and ret == TVar(g) and expected is not UNKNOWN and not T.has_tvar(expected):
                env[g] = expected
        self.check_args(e, params, env)
        for a, (_, pt, _) in zip(e.args, params):  # a positional argument typed by a parameter (T or T[])
            at = getattr(a.value, "ty", None) if a.name is None else None
            if at is not None and isinstance(pt, T.Arr) and isinstance(widen(at), T.Arr):
                pt, at = pt.elem, widen(at).elem
            if at is not None and isinstance(pt, TVar) and pt.name not in env:
                env[pt.name] = widen(at)
        if any(g not in env for g in gens):
            if getattr(e, "plain_let", False):  # `let x = f(…)`: nothing to infer from
                missing = next(g for g in gens if g not in env)
                self.err(e.span, "E0002", f"cannot infer type parameter `{missing}`")
            return UNKNOWN
        e.std_targs = [env[g] for g in gens]
        r = T.subst(ret, env)
        exact = path.startswith("testing.")  # a runner constructor's function type is exact
        return UNKNOWN if T.has_unknown(r) and not exact else r

    def receiver(self, f: ast.Field) -> T.Type:
        """A method call's receiver; an empty literal there, or a name bound to one, whose
        element type the method does not fix is E0155."""
        o = self.path_root = self.no_expected = f.obj
        v = self.lookup_var(o.name) if isinstance(o, ast.Name) else None
        if v is not None and v.branch_hole and not v.used:
            self.pin(v)  # `let a = if (c) { [] } else { … }`: no method fixes its type
            self.err(f.span, "E0155", "type annotations needed: the type of this value must be "
                     f"known before accessing `{f.name}`")
        if f.name not in _UNPINNING_METHODS:
            if f.name in _CONTAINER_MEMBERS:
                return self.expr(o, UNKNOWN)
            return self.soft_expr(o)  # no container has it: E0155 at the member (member_of)
        hole = _empty_hole(o)
        if hole is not None:
            self.err(hole, "E0155", "type annotations needed")
        else:
            self.open_holes(o)  # `[1, []].length()`
        return self.soft_expr(o)

    def literal_targs(self, e: ast.Call, ps, ret, tvars: set, expected) -> dict | None:
        """Type arguments of a call of a generic `-> T` (or `-> int`) function whose arguments are literals
        (or variables), as the engine infers them: each literal leaf for a `T` (a container
        literal only while T has none: one after it is checked against it, E0001 inside) is
        seen in turn; T is the one type seen, else the expected type when it takes them all,
        else (nothing expected) their one widened type; otherwise T conflicts (None: E0002).
        None when an argument is of another form (the general inference decides)."""
        if (T.has_tvar(ret) and not isinstance(ret, TVar)) or any(a.name is not None for a in e.args) \
                or len(e.args) > len(ps):
            return None
        pairs = [(pt, a.value) for (_, pt, _), a in zip(ps, e.args) if T.has_tvar(pt)]
        if not pairs or not all(_literal_tree(v) for _, v in pairs):
            return None
        seen: dict = {}  # type parameter -> the types seen for it, in order
        for pt, v in pairs:
            if not self.observe(pt, v, seen, tvars):
                return None
        sure = expected is not UNKNOWN and _sure_scrutinee(expected) and not T.has_tvar(expected)
        env: dict = {}
        holes = seen.pop("$holes", {})
        for n, hole in holes.items():
            if n not in seen and not (sure and isinstance(ret, TVar) and n == ret.name):
                env["$hole"] = hole
        for n, ts in seen.items():
            if not (sure and isinstance(ret, TVar) and n == ret.name):  # nothing expects T:
                ts = [T.widen_scalar(t) for t in ts]  # a literal leaf is its type (`[1]`: `int`)
            cover = next((c for c in ts if all(assignable(t, c) for t in ts)), None)
            if cover is not None:  # one seen takes the others (`1` and an `int?`)
                env[n] = cover
            elif sure and isinstance(ret, TVar) and n == ret.name:
                env[n] = expected if all(assignable(t, expected) for t in ts) else False
            else:
                ws = [T.widen_scalar(t) for t in ts]
                env[n] = next((c for c in ws if all(assignable(t, c) for t in ws)), None)
        return env

    def observe(self, pt, v, seen: dict, tvars: set) -> bool:
        """The types literal tree `v` shows the type parameters of `pt` (see literal_targs).
        False: a form not followed."""
        if isinstance(pt, TVar) and pt.name in tvars:
            if isinstance(v, (ast.ArrayLit, ast.MapLit)):
                if pt.name not in seen:
                    lt = _tree_type(v, self.literal_leaf)
                    hole = _empty_hole(v) if lt is None else None
                    if lt is None and hole is None:
                        return False
                    if hole is not None:  # `id([])`: the literal's element type is open
                        seen.setdefault("$holes", {}).setdefault(pt.name, hole)
                        return True
                    seen[pt.name] = [lt]
                return True  # checked against the binding with the arguments (E0001 inside)
            t = self.literal_leaf(v)
            if not _sure_scrutinee(t) and t is not NULL:
                return False
            seen.setdefault(pt.name, []).append(t)
            return True
        if isinstance(pt, Arr) and isinstance(v, ast.ArrayLit):
            return all(self.observe(pt.elem, x, seen, tvars) for x in v.items)
        if isinstance(pt, MapT) and isinstance(v, ast.MapLit) and not T.has_tvar(pt.key):
            return all(self.observe(pt.val, x, seen, tvars) for _, x in v.entries)
        if isinstance(v, ast.Name):
            t = self.literal_leaf(v)
            if not _sure_scrutinee(t):
                return False
            for n, bt in _binds([(pt, widen(t))]).items():
                seen.setdefault(n, []).append(bt)
            return True
        return False

    def literal_leaf(self, v) -> T.Type:
        """The type of a scalar literal or a variable (read without checking it), or UNKNOWN."""
        if isinstance(v, ast.Name):
            var = self.lookup_var(v.name)
            return self.var_type(var) if var is not None and var.unpinned is None else UNKNOWN
        return {ast.IntLit: lambda: T.lit_int(v.value), ast.StrLit: lambda: T.lit_str(v.value),
                ast.BoolLit: lambda: T.lit_bool(v.value), ast.FloatLit: lambda: FLOAT,
                ast.NullLit: lambda: NULL}[type(v)]()

    def literal_call(self, e: ast.Call, fd: FunctionDef, ps, ret, env: dict, fixed=frozenset()) -> T.Type:
        """A generic call typed by literal_targs' type arguments."""
        hole = env.pop("$hole", None)
        if hole is not None and getattr(e, "plain_let", False):
            self.err(hole, "E0155", "type annotations needed")
            self.check_args(e, ps, {})
            self.effects.sites[id(e)] = ("fn", fd, _call_env(fd, ps, e, {}), self.passed(e, ps))
            return UNKNOWN
        bad = next((n for n, t in env.items() if t is None or t is False), None)
        if bad is not None:  # False: the types seen are not the expected type's
            self.err(e.span, "E0002", f"cannot infer type parameter `{bad}`" + (
                ": its arguments give it conflicting types; write the type argument or annotate "
                "the expected type" if env[bad] is None else ""))
            self.check_args(e, ps, {})
            self.effects.sites[id(e)] = ("fn", fd, _call_env(fd, ps, e, {}), self.passed(e, ps))
            return UNKNOWN
        missing = next((n for n in (g.name for g in interfaces.call_generics(fd)) if n not in env
                        and _mentions(ret, n)), None)
        if missing is not None and getattr(e, "plain_let", False):
            self.err(e.span, "E0002", f"cannot infer type parameter `{missing}`")  # `first([])`
        # arguments are checked (and literals record their types) at the widened type arguments:
        # `["a"]` for `xs: T[]` is a `string[]` (the result keeps the types inferred)
        self.check_args(e, ps, {n: T.widen_scalar(t) for n, t in env.items()}, fixed=fixed, user=True)
        self.effects.sites[id(e)] = ("fn", fd, _call_env(fd, ps, e, env), self.passed(e, ps))
        self.check_bounds(e, fd, ps, env)
        if not T.has_tvar(ret):
            return ret
        hidden = fd.owner is None and _inferred_outside_callbacks(ret, ps, e.args)
        ret = T.subst(ret, env)
        if T.has_unknown(ret) or T.has_tvar(ret):
            return UNKNOWN
        return T.HiddenUnion(ret.members) if hidden and isinstance(ret, Union) else ret  # as call_type's

    def uninferable(self, e: ast.Call, fd: FunctionDef, with_ret: bool = False) -> None:
        """E0002: a type parameter no parameter mentions, with no expected result to fix it
        (`with_ret`: there is one, but the result's type does not mention it either)."""
        ps, ret = self.sig(fd)
        for g in interfaces.call_generics(fd):
            if not any(_mentions(p[1], g.name) for p in ps) and not (with_ret and _mentions(ret, g.name)):
                self.err(e.span, "E0002", f"cannot infer type parameter `{g.name}`")
                return

    def only_empties(self, e: ast.Call, fd: FunctionDef, gens, ps, ret: T.Type) -> None:
        """E0002: a type parameter the result does not mention, whose every argument is an
        empty literal (`top([])` for `top<T>(xs: T[]) -> int`): nothing gives it a type."""
        given = {p.name: p.default for p in fd.decl.params if p.default is not None}  # `xs: T[] = []`
        given.update({p[0]: a.value for p, a in zip(ps, e.args) if a.name is None})
        given.update({a.name: a.value for a in e.args if a.name is not None})
        for g in gens:
            args = [given.get(p[0]) for p in ps if _mentions(p[1], g.name)]
            if args and not _mentions(ret, g.name) and all(
                    isinstance(a, (ast.ArrayLit, ast.MapLit)) and not (
                        a.items if isinstance(a, ast.ArrayLit) else a.entries) for a in args):
                self.err(e.span, "E0002", f"cannot infer type parameter `{g.name}`")
                return

    def reflect_call(self, e: ast.Call, path: list[str], expected: T.Type = UNKNOWN) -> T.Type:
        """`reflect.Type.of<T>()` and `reflect.Type.of_value(v)` are `reflect.Type` values;
        other `reflect` statics stay unknown (lowering reports them as not supported yet)."""
        for a in e.args:  # `of_value` sees the element types a container was built with
            self.escape(a.value)
            self.uninferable_lambda(a.value)
        if ".".join(path) in ("reflect.call_any", "reflect.signature") and e.args:
            return self.any_function_call(e, path[1], expected)
        self.args_unknown(e)
        if ".".join(path) in sreflect.STATICS:
            return sreflect.STATICS[".".join(path)]
        if ".".join(path) == "reflect.Class.get_field":  # T as written, else the expected type
            e.std_targs = [self.resolve(e.type_args[0]) if e.type_args else expected]
            return e.std_targs[0]
        if path[:2] != ["reflect", "Type"] or len(path) != 3:
            return UNKNOWN
        name = path[2]
        if name == "of":
            if not e.type_args:
                self.err(e.span, "E0002", "cannot infer type parameter `T`")
            elif len(e.type_args) != 1:
                self.err(e.span, "E0005", f"function `of` expects 1 type argument(s), got {len(e.type_args)}")
            elif e.args:
                self.err(e.span, "E0005", f"expected 0 argument(s), got {len(e.args)}")
            return REFLECT_TYPE
        if name == "of_value":
            if len(e.args) != 1:
                self.err(e.span, "E0005", f"expected 1 argument(s), got {len(e.args)}")
            return REFLECT_TYPE
        if name not in STDLIB_MEMBER_NAMES:
            self.err(e.func.span, "E0003", f"unresolved name: `{name}`")
        return UNKNOWN

    def any_function_call(self, e: ast.Call, name: str, expected: T.Type) -> T.Type:
        """`reflect.call_any(f, args)` / `reflect.signature(f)`: f is a `reflect.AnyFunction`
        (a generic function there is specialized by the pins); call_any's result is f's
        `Returns`: its declared result, or a pin, inferred from the expected type for a
        generic function."""
        f = e.args[0].value
        top = AnyFnT(TOP, TOP)
        want = AnyFnT(expected, TOP) if name == "call_any" and expected is not UNKNOWN and \
            self.generic_fn_name(f) else top
        ft = self.expect(f, want)
        for a in e.args[1:]:
            self.expr(a.value, UNKNOWN)
        if name == "signature":
            return sreflect.STATICS["reflect.signature"]
        ft = T.base(ft)
        th = ft.throws if isinstance(ft, (FuncT, AnyFnT)) else None
        if th is not None and th not in (TOP, UNKNOWN) and not T.has_tvar(th):  # E, or how it was called
            self.effects.sites[id(e)] = ("type", T.union(th, *_CALL_ANY_ERRORS))
        r = ft.ret if isinstance(ft, (FuncT, AnyFnT)) else UNKNOWN
        return UNKNOWN if r is UNKNOWN or T.has_tvar(r) else _void_is_null(r)

    def generic_fn_name(self, e) -> bool:
        """`e` names a generic function without type arguments (`id`, not `id<int>`)."""
        if not isinstance(e, ast.Name) or getattr(e, "type_args", None) or self.lookup_var(e.name):
            return False
        fd = self.index.items_in(self.ns).get(e.name)
        return isinstance(fd, FunctionDef) and bool(interfaces.call_generics(fd)) and not _is_global(fd)

    def std_defaults(self, e: ast.Call, path: str) -> None:
        """A stdlib function's defaulted parameters must be passed by name (E0005)."""
        names = _std_param_names(path)
        for i, a in enumerate(e.args):
            if a.name is not None:
                break
            if i < len(names) and names[i][1]:
                self.err(a.value.span, "E0005", f"defaulted parameter `{names[i][0]}` must be "
                         "passed by name")

    def regex_literal(self, e: ast.Call) -> None:
        """`baml.regex.new("…")`: a quoted pattern is compiled now, its rejection a diagnostic
        (E0174) at the literal, as the engine words it (a backtick or computed pattern waits
        for run time)."""
        pattern = next((a.value for i, a in enumerate(e.args) if a.name == "pattern" or (
            a.name is None and i == 0)), None)
        fancy = next((a.value for i, a in enumerate(e.args) if a.name == "backtracking" or (
            a.name is None and i == 1)), None)
        if not (isinstance(pattern, ast.StrLit) and pattern.span.file.text[pattern.span.start] == '"'):
            return
        if fancy is not None and not isinstance(fancy, ast.BoolLit):
            return
        bad = rxsyntax.check(pattern.value, fancy is not None and fancy.value)
        if bad is None:
            return
        kind, x = bad
        at = f" at character {x.start}" if x.start is not None else ""
        what = {"Unsupported": "unsupported regex construct", "TooLarge": "regex pattern is too large"}.get(
            kind, "invalid regex pattern")
        self.err(pattern.span, "E0174", f"{what}{at}: {x.message}")

    def satisfies(self, t: T.Type, bound: IfaceT) -> bool:
        """Does `t` meet the bound `T extends I`? A type parameter meets it through its own."""
        if isinstance(t, TVar):
            return any(isinstance(b, IfaceT) and bound.iface in b.iface.ancestors()
                       for b in self.bounds.get(t.name, ())) or t.name not in self.bounds
        return bound.iface.implemented_by(t)

    def default_method(self, f: ast.Field) -> FunctionDef | None:
        """`default.m` inside a method of an `implements` block: the interface's default `m`."""
        impl = getattr(getattr(self, "llm_fn", None), "impl", None)
        if not (isinstance(f.obj, ast.Name) and f.obj.name == "default" and impl is not None
                and impl.iface is not None and self.lookup_var("default") is None):
            return None
        return next((m for i in impl.iface.ancestors() for n, m in i.methods.items()
                     if n == f.name and m.decl.body is not None), None)

    def check_bounds(self, e: ast.Call, fd: FunctionDef, params, env: dict) -> None:
        """Arguments for a type parameter `T extends I` must implement I."""
        gens = interfaces.call_generics(fd)
        bounded = {g.name: g.bounds for g in gens if g.bounds}
        if not bounded:
            return
        # the type arguments: written (`total<Bag>(…)`), else bound by the arguments (`T[]` too)
        targs = {g.name: self.resolve(ta, report=False) for g, ta in zip(gens, e.type_args)} \
            if e.type_args else _binds([(pt, widen(a.value.ty or UNKNOWN)) for a, (_, pt, _)
                                        in zip(e.args, params) if a.name is None])
        for name, bounds in bounded.items():
            at = env.get(name) or targs.get(name) or (None if e.type_args else _iface_arg(name, e, params))
            at = UNKNOWN if at is None else at  # env: also from the expected type
            if isinstance(at, Union) and targs.get(name) is not None and not isinstance(targs[name], Union):
                at = targs[name]  # `max_of(1.5, -2.0)` where a union is expected: the arguments' float
            if isinstance(at, IfaceT) or (isinstance(at, Union) and NULL not in at.members and _sure_scrutinee(at)):
                self.err(e.span, "E0001", f"type argument `{show(at)}` is not concrete; a type parameter "
                         f"bounded by `{'` & `'.join(_show_te(b) for b in bounds)}` requires a concrete type that "
                         "implements it (a union, an interface, `unknown` or `never` has no single runtime type "
                         "to dispatch on)")
                return
            for b in bounds:
                bt = self.types.resolve(b, fd.namespace, interfaces.generics_of(fd))
                if isinstance(bt, IfaceT) and _sure_scrutinee(at) and not self.satisfies(at, bt):
                    self.err(e.span, "E0001", f"type `{show(at)}` does not implement interface `{show(bt)}`")
                    return
                ct = widen(at) if at is not UNKNOWN else _tvar_arg(name, e, params)
                if _show_te(b) == "baml.ops.Compare" and self.not_ordered(ct):
                    self.err(e.span, "E0001", f"type `{show(ct)}` does not implement interface "
                             "`baml.ops.Compare`")
                    return

    def not_ordered(self, t: T.Type) -> bool:
        """Is t sure not to implement `baml.ops.Compare` (a class without the block, an array, a
        map, null; a builtin type's `implements … for` block may give one)?"""
        if isinstance(t, ClassT):
            return not any(i.std == "baml.ops.Compare" for i in t.cls.impls)
        if isinstance(t, TVar):  # `T` unbounded, or bounded by stdlib interfaces without it
            sb = self.std_bounds.get(t.name)
            return t.name in self.generics and (t.name in self.unbounded_generics() or (
                sb is not None and "cmp" not in sb))
        if isinstance(t, (Arr, MapT, EnumT)) or t is NULL:
            return not any(i.std == "baml.ops.Compare" and target_matches(t, i.target)
                           for i in self.index.builtin_impls)
        return False

    def value_callee(self, f, ft: FuncT) -> tuple:
        """What a call through a function value calls, for `throws` effects."""
        if isinstance(ft, LambdaT):
            return ("lambda", ft.node)
        if isinstance(ft, FnRefT):
            return ("fn", ft.fd)
        if ft.throws is not None:
            return ("type", ft.throws)
        if (isinstance(f, ast.Name) and f.name in self.fn.callbacks
                and self.lookup_var(f.name) is self.scopes[0].get(f.name)):
            return ("callback", f.name)
        return ("type", UNKNOWN)

    def through(self, e: ast.Call) -> tuple:
        """The site of a stdlib call that throws what its callbacks throw: what each function
        passed to it calls (an argument of unknown type may throw anything)."""
        out = []
        for a in e.args:
            t = T.base(a.value.ty or UNKNOWN)
            if isinstance(t, FuncT):
                out.append(self.value_callee(a.value, t))
            elif t is UNKNOWN:
                out.append(("type", UNKNOWN))
        return ("through", tuple(out))

    def generic_result(self, e) -> bool:
        """`e` calls a generic function declared `-> T`, its type arguments inferred."""
        if not isinstance(e, ast.Call) or e.type_args or not isinstance(e.func, ast.Name) or \
                self.lookup_var(e.func.name) is not None:
            return False
        fd = self.index.items_in(self.ns).get(e.func.name)
        r = fd.decl.ret if isinstance(fd, FunctionDef) else None
        return isinstance(r, ast.TName) and len(r.path) == 1 and not r.args and \
            r.path[0] in {g.name for g in fd.decl.generics}

    def conflicting_args(self, e: ast.Call, params, fixed: dict) -> None:
        """E0002: the first argument for a parameter `x: T` (or an item of a literal for `xs:
        T[]`) fixes T (a literal widened, an enum variant kept); a later one must fit it. `fixed`:
        type parameters the expected type already gives, which the arguments need only fit."""
        first: dict = {}
        for (_, pt, _), a in zip(params, e.args):
            if a.name is not None:
                continue
            v = a.value
            if isinstance(pt, T.Arr) and isinstance(pt.elem, TVar) and isinstance(v, ast.ArrayLit):
                given = [(pt.elem, x) for x in v.items]  # `xs: T[]` given `[…]`: each item binds T
            elif isinstance(pt, MapT) and isinstance(pt.val, TVar) and isinstance(v, ast.MapLit):
                given = [(pt.val, x) for _, x in v.entries]
            elif isinstance(pt, TVar) and not isinstance(v, (ast.ArrayLit, ast.MapLit)):
                given = [(pt, v)]
            else:
                continue
            for tv, x in given:
                if tv.name in fixed:
                    continue
                at = x.ty or UNKNOWN
                if not (_sure_scrutinee(at) or at is NULL):
                    return
                bound = first.setdefault(tv.name, T.widen_scalar(at))
                if not assignable(at, bound):
                    self.err(e.span, "E0002", f"cannot infer type parameter `{tv.name}`: its arguments give it "
                             f"the conflicting types `{show(bound)}` and `{show(T.widen_scalar(at))}`; write "
                             "the type argument or annotate the expected type")
                    return

    def rigid_args(self, e: ast.Call, params, fixed: dict) -> None:
        """E0001: a callee's type parameter an earlier array argument binds to this body's own
        `T` (`h(xs, 1)` for `h<U>(xs: U[], x: U)` given `xs: T[]`) takes no other type after it."""
        first: dict = {}
        for (_, pt, _), a in zip(params, e.args):
            if a.name is not None:
                return
            at = a.value.ty or UNKNOWN
            if isinstance(pt, TVar) and pt.name not in fixed:
                tv = first.get(pt.name)
                if tv is not None and not self.fits(at, tv):
                    self.mismatch(a.value.span, tv, at)
                    return
            if isinstance(pt, Arr) and isinstance(pt.elem, TVar) and isinstance(at, Arr) and isinstance(
                    at.elem, TVar) and at.elem.name in self.generics:  # an array's item type is exact
                first.setdefault(pt.elem.name, at.elem)

    def passed(self, e: ast.Call, params) -> dict:
        """Parameter name → what the function value passed for it calls (for what a function's
        callbacks throw at this call)."""
        out = {}
        for i, a in enumerate(e.args):
            name = a.name if a.name is not None else (params[i][0] if i < len(params) else None)
            t = T.base(a.value.ty or UNKNOWN)
            if name is not None:
                out[name] = self.value_callee(a.value, t) if isinstance(t, FuncT) else ("type", UNKNOWN)
        return out

    def user_params(self, e: ast.Call) -> bool:
        """Does `e` call a function of this program by name (its parameters all required)?"""
        f = e.func
        return isinstance(f, ast.Name) and self.lookup_var(f.name) is None and isinstance(
            self.index.items_in(self.ns).get(f.name), FunctionDef)

    def args_unknown(self, e) -> None:
        for a in e.args:
            self.expr(a.value, UNKNOWN)

    def check_args(self, e: ast.Call, params, env, allow_named=True, native=False, exact=False,
                   whole: frozenset = frozenset(), rigid=False, fixed: frozenset = frozenset(),
                   user=False) -> None:
        """`exact`: every parameter without a default is required, whatever its type. `user`: a
        function of the program (or a function value): a container literal for a parameter
        records the parameter's type (the callee may keep it; a builtin's does not). `whole`:
        type parameters bound by the expected result; a container literal for a parameter that
        is one of them is typed alone, then checked whole (`wrap([1])` as a `string[][]`:
        `int[]` is no `string[]`). `rigid`: a stdlib method's parameters, whose type variables
        are the receiver's (`xs: T[]`). `fixed`: type parameters the expected result types (an
        empty `[]` for one needs no annotation: `let x: int[] = id([])`)."""
        names = {p[0]: i for i, p in enumerate(params) if p[0] is not None}
        got = [False] * len(params)
        npos = 0
        bad = False
        unknown_named = []
        named_seen = out_of_order = False
        for a in e.args:
            if a.name is None and named_seen:
                out_of_order = True
                self.err(a.value.span, "E0005", "positional arguments cannot appear after named arguments")
                self.expr(a.value, UNKNOWN)
                continue
            named_seen = named_seen or a.name is not None
            if a.name is None:
                if npos < len(params):
                    pname, pt, defaulted = params[npos]
                    if defaulted:
                        self.err(a.value.span, "E0005", f"defaulted parameter `{pname}` must be "
                                 "passed by name")
                    got[npos] = True
                    if T.has_tvar(pt) or user and _holds_container(pt):  # the callee's: it records
                        self.escape(a.value)
                        if isinstance(pt, TVar) and pt.name not in env and pt.name not in fixed:
                            self.open_holes(a.value)  # `string.from([])`: nothing fixes T
                    want = T.subst(pt, env) if T.has_tvar(pt) else pt
                    if isinstance(pt, TVar) and pt.name not in env and pt.name not in fixed and not any(
                            j != npos and _mentions(q, pt.name) for j, (_, q, _) in enumerate(params)):
                        self.untyped_empty(a.value)  # `id([])`: nothing else binds the callee's T
                    if isinstance(pt, TVar) and pt.name in whole and isinstance(a.value, (ast.ArrayLit, ast.MapLit)):
                        at = self.expr(a.value, UNKNOWN)
                        if not assignable(at, want):
                            self.mismatch(a.value.span, want, at)
                        npos += 1
                        continue
                    save, self.callee_tvars = self.callee_tvars, self.callee_tvars or T.has_tvar(want)
                    t = self.expect(a.value, want)
                    self.callee_tvars = save
                    if rigid and isinstance(pt, TVar) and pt.name in self.generics and not self.fits(t, pt):
                        # a stdlib method's parameter typed by the receiver's type parameter
                        # (`xs: T[]`) is this body's own, rigid: `xs.push(1)` is no `T`
                        self.mismatch(a.value.span, pt, t)
                else:
                    bad = True
                    self.expr(a.value, UNKNOWN)
                npos += 1
            else:
                i = names.get(a.name)
                if i is not None and got[i]:
                    self.err(a.value.span, "E0005", f"duplicate named argument `{a.name}`")
                if i is None or not allow_named:
                    unknown_named.append(a.name)
                    self.expr(a.value, UNKNOWN)
                else:
                    got[i] = True
                    pt = params[i][1]
                    if T.has_tvar(pt) or user and _holds_container(pt):
                        self.escape(a.value)
                    want = T.subst(pt, env) if T.has_tvar(pt) else pt
                    save, self.callee_tvars = self.callee_tvars, self.callee_tvars or T.has_tvar(want)
                    self.expect(a.value, want)
                    self.callee_tvars = save
        nargs = len(e.args)
        if out_of_order:  # the misplaced positional arguments count for no parameter
            for m in [p[0] for p, g in zip(params, got) if not g and not p[2]]:
                self.err(e.span, "E0005", f"missing required argument `{m}`")
            return
        bad = bad or nargs > len(params)  # a named argument again (`f(1, a = 2)` of `f(a)`)
        if native:
            if bad and not any(a.name is not None for a in e.args):
                self.err(e.span, "E0005", f"expected {len(params)} argument(s), got {nargs}")
            return
        if bad:
            self.err(e.span, "E0005", f"expected {len(params)} argument(s), got {nargs}")
            for n in unknown_named:
                self.err(e.span, "E0005", f"unknown named argument `{n}`")
            return
        missing = [p[0] for p, g in zip(params, got)  # an optional parameter too (`a: int?`)
                   if not g and not p[2] and (exact or (not T.has_tvar(p[1]) and p[1] is not UNKNOWN
                                                        and (not assignable(NULL, p[1]) or self.user_params(e))))]
        if missing:
            if not any(a.name is not None for a in e.args):
                self.err(e.span, "E0005", f"expected {len(params)} argument(s), got {nargs}")
            else:
                for m in missing:
                    self.err(e.span, "E0005", f"missing required argument `{m}`")
        for n in unknown_named:
            self.err(e.span, "E0005", f"unknown named argument `{n}`")

    def x_Unary(self, e, x):
        t = self.expr(e.operand, UNKNOWN)
        if e.op == "!":
            return UNKNOWN if isinstance(t, Lit) else BOOL
        tb = T.base(t)
        if e.op == "-":
            if isinstance(t, Lit) and t.base is INT:
                return T.lit_int(-t.value)
            if isinstance(t, Lit) and t.base is T.BIGINT:
                return Lit(ast.BigLit(-t.value), T.BIGINT)
            if tb in (INT, FLOAT, T.BIGINT) or tb == _DURATION:
                return tb
            if isinstance(tb, ClassT):  # its `baml.ops.Negate` block's `type Output`
                impl = next((i for i in tb.cls.impls if i.std == "baml.ops.Negate"), None)
                if impl is None:
                    self.err(e.operand.span, "E0004", f"operator `-` cannot be applied to `{show(widen(t))}`")
                    return UNKNOWN
                out = self.class_assoc(tb, impl, "Output")
                return UNKNOWN if T.has_unknown(out) or T.has_tvar(out) else out
            if _is_time(tb) or tb in (BOOL, STRING, NULL, T.JSON, _ENV_REF, T.TOP) or isinstance(
                    tb, (Arr, MapT, FutureT)) or self.non_numeric(tb):
                self.err(e.operand.span, "E0004",
                         f"operator `-` cannot be applied to `{show(widen(t))}`")
            elif isinstance(tb, Union) and self.sure_type(tb):
                return widen(tb)  # `int | float`
            return UNKNOWN
        if e.op == "~":
            if isinstance(t, Lit) and t.base is INT:  # folded, as the engine does (`let x: -1 = ~0`)
                return T.lit_int(~t.value)
            if tb in (INT, FLOAT, T.BIGINT):
                return tb
            if tb in (BOOL, STRING, NULL, T.JSON, T.TOP) or isinstance(tb, (Arr, MapT)) or self.non_numeric(tb):
                # sic: the engine names the operator `-` here
                self.err(e.operand.span, "E0004", f"operator `-` cannot be applied to `{show(widen(t))}`")
            return UNKNOWN
        return UNKNOWN

    def x_Binary(self, e, expected):
        op = e.op
        if op in ("&&", "||") and type(e.left) is ast.Binary and e.left.op in ("&&", "||"):
            return self.logic_chain(e)
        if op in ("&&", "||"):
            lt = self.expr(e.left, UNKNOWN)
            pos, neg = self.cond_facts(e.left)
            saved = dict(self.facts)
            self.facts.update(pos if op == "&&" else neg)
            rt = self.expr(e.right, UNKNOWN)
            self.facts = saved
            # literal operands fold (`let t: true = 1 != 2 && true`), left open as `!` leaves them
            return UNKNOWN if all(isinstance(x, Lit) and x.base is BOOL or x is UNKNOWN for x in (lt, rt)) else BOOL
        if op != "??" and type(e.left) is ast.Binary and e.left.op not in _SHORT:
            return self.binary_chain(e)
        if op == "??" and type(e.right) is ast.Binary and e.right.op == "??":
            return self.coalesce_chain(e)
        if op == "??":
            if getattr(e, "plain_let", False) and isinstance(e.left, ast.Call):
                e.left.plain_let = True  # `let a = rec.get("a") ?? 0`: nothing expects the call's type
            lt = self.coalesced(e.left)
            rt = self.expr(e.right, T.JSON if T.has_json(expected) else UNKNOWN)  # `j ?? [1]`
            if lt is UNKNOWN or rt is UNKNOWN:
                return UNKNOWN
            return T.union(T.strip_null(lt), rt)
        lt = self.soft_expr(e.left)
        rt = self.soft_expr(e.right)
        return self.binop_type(op, lt, rt, e)

    def logic_chain(self, e) -> T.Type:
        """A left-associative chain of `&&` / `||` in a loop, as `x_Binary` would check it
        level by level (each right side under the facts its left side gives)."""
        spine = [e]
        x = e.left
        while type(x) is ast.Binary and x.op in ("&&", "||"):
            spine.append(x)
            x = x.left
        self.expr(x, UNKNOWN)
        pos, neg = self.cond_facts(x)  # the facts of the left side of each level in turn
        for node in reversed(spine):
            saved = dict(self.facts)
            self.facts.update(pos if node.op == "&&" else neg)
            self.expr(node.right, UNKNOWN)
            self.facts = saved
            if node is not e:
                node.ty = BOOL
            p2, n2 = self.cond_facts(node.right)
            if node.op == "&&":
                pos, neg = {**pos, **p2}, {}
            else:
                pos, neg = {}, {**neg, **n2}
        return BOOL

    def coalesce_chain(self, e) -> T.Type:
        """`a ?? b ?? c` (= a ?? (b ?? c)) along its right spine in a loop."""
        spine = [e]
        x = e.right
        while type(x) is ast.Binary and x.op == "??":
            spine.append(x)
            x = x.right
        lefts = [self.coalesced(node.left) for node in spine]
        rt = self.expr(x, UNKNOWN)
        for node, lt in reversed(list(zip(spine, lefts))):
            rt = UNKNOWN if lt is UNKNOWN or rt is UNKNOWN else T.union(T.strip_null(lt), rt)
            if node is not e and rt is not UNKNOWN:
                node.ty = rt
        return rt

    def coalesced(self, left) -> T.Type:
        """The left of `??`: a variable's type here, else the type its test narrows from."""
        t = self.expr(left, UNKNOWN)
        v = self.lookup_var(left.name) if t is UNKNOWN and isinstance(left, ast.Name) else None
        return self.tested_type(v) if v is not None else NULL if t is VOID else t  # a void call's value is null

    def binary_chain(self, e) -> T.Type:
        """A left-associative chain of operators (`x + x - x * 2 …`) in a loop, not by
        recursion: each level typed as `expr` would, left operand first."""
        spine = [e]
        x = e.left
        while type(x) is ast.Binary and x.op not in _SHORT:
            spine.append(x)
            x = x.left
        lt = self.soft_expr(x)
        for node in reversed(spine):
            rt = self.soft_expr(node.right)
            lt = self.binop_type(node.op, lt, rt, node)
            if node is not e and lt is not UNKNOWN:
                node.ty = lt
        return lt

    def binop_type(self, op: str, lt: T.Type, rt: T.Type, e) -> T.Type:
        if op in ("==", "!=") and isinstance(e, ast.Binary):
            self.untyped_empty(e.left)  # `xs == []`: the other side does not type the `[]`
            self.untyped_empty(e.right)
        if op in ("==", "!="):
            eq = _literal_equal(lt, rt, e)
            return BOOL if eq is None else T.lit_bool(eq == (op == "=="))  # folded: `1 == 1` is `true`
        if op not in _SHORT and self.never_operand(e, lt, rt):
            if op not in _ORDER and self.bound_never(e):
                return UNKNOWN  # `let x = return 1; x + 1`: the engine lets a never binding compute
            self.err(e.span, "E0004", f"operator `{op}` cannot be applied to `{show(lt)}` and "
                     f"`{show(rt)}`")
            return UNKNOWN
        if lt is UNKNOWN or rt is UNKNOWN or isinstance(lt, TVar) or isinstance(rt, TVar):
            if op in _ORDER:
                self.check_order(op, lt, rt, e)
                return BOOL
            return self.check_operands(op, lt, rt, e) if op in _ARITH or op in _BITS else UNKNOWN
        lb, rb = T.base(lt), T.base(rt)
        if T.BIGINT in (lb, rb) and isinstance(lt, Lit) and isinstance(rt, Lit):
            folded = _fold_literals(op, lt, rt)
            if folded is not None:
                return folded
        ls, rs = _simple(lb), _simple(rb)
        if op in _ARITH and (_is_time(lb) or _is_time(rb)):
            return self.time_operator(op, lt, rt, e)
        if op in _ORDER:
            if isinstance(lt, Lit) and isinstance(rt, Lit) and lb is rb and lb in (INT, STRING):
                return _fold_literals(op, lt, rt) or BOOL
            self.check_order(op, lt, rt, e)
            return BOOL
        if op in _ARITH:
            if lb in (INT, FLOAT) and rb in (INT, FLOAT):
                if lb is INT and rb is INT:
                    if isinstance(lt, Lit) and isinstance(rt, Lit):
                        return _fold(op, lt.value, rt.value)
                    return INT
                return FLOAT
            if op == "+" and lb is STRING and rb is STRING:
                if isinstance(lt, Lit) and isinstance(rt, Lit):
                    return T.lit_str(lt.value + rt.value)
                return STRING
            if isinstance(lb, ClassT):
                return self.class_operator(op, lb, rt, e)
            if isinstance(rb, ClassT) and isinstance(lb, T.Prim) and self.sure_type(lb) and not any(
                    i.std == f"baml.ops.{_OP_IFACES[_OP_METHOD_OF[op]]}" and target_matches(lb, i.target)
                    for i in self.index.builtin_impls):  # `1 + m`: the left operand's blocks decide
                self.err(e.span, "E0004", f"operator `{op}` cannot be applied to `{show(lt)}` and `{show(rt)}`")
                return UNKNOWN
            return self.check_operands(op, lt, rt, e)
        if op in _BITS:
            if lb is INT and rb is INT:
                if isinstance(lt, Lit) and isinstance(rt, Lit):
                    return _fold_bits(op, lt.value, rt.value)
                return INT
            return self.check_operands(op, lt, rt, e)
        return UNKNOWN

    def class_operator(self, op: str, ct: ClassT, rt: T.Type, e) -> T.Type:
        """`a + b` with `a` a user class: the class's `baml.ops.Add<R>` blocks (one per
        right-hand type) chosen per member of b's type, typed as their `type Output`; E0004
        where a member has no block (`m + 1` with only `Add<M>`)."""
        if not self.sure_type(widen(rt)):
            return UNKNOWN
        std = f"baml.ops.{_OP_IFACES[_OP_METHOD_OF[op]]}"
        impls = [i for i in ct.cls.impls if i.std == std]
        env = {"Self": ct, **{g.name: a for g, a in zip(ct.cls.decl.generics, ct.args)}}
        save = (self.ns, self.generics)
        self.generics = {g.name for g in ct.cls.decl.generics}
        try:  # each block's right-hand type and Output, in the class's namespace and generics
            sigs = []
            for i in impls:
                self.ns = i.namespace
                args, te = i.decl.interface.args, i.decl.assoc.get("Output")
                sigs.append((T.subst(self.resolve(args[0], report=False), env) if args else UNKNOWN,
                             T.subst(self.resolve(te, report=False), env) if te is not None else UNKNOWN))
        finally:
            self.ns, self.generics = save
        out = []
        for m in T.members(rt):
            sig = next((s for s in sigs if s[0] is UNKNOWN or assignable(m, s[0])), None)
            if sig is None:
                self.err(e.span, "E0004", f"operator `{op}` cannot be applied to `{show(ct)}` and `{show(rt)}`")
                return UNKNOWN
            out.append(sig[1])  # unknown without `type Output` (E0001 at the block)
        return UNKNOWN if any(T.has_unknown(t) or T.has_tvar(t) for t in out) else T.union(*out)

    def time_operator(self, op: str, lt: T.Type, rt: T.Type, e) -> T.Type:
        """`baml.time`'s operators (`Instant - Instant` is a `Duration` …), E0004 for any other."""
        names = [b.name if isinstance(b, T.StdT) else _KIND_OF.get(b) for b in (T.base(lt), T.base(rt))]
        r = stdsigs.TIME_OPS.get((op, *names))
        if r is not None:
            return T.StdT("class", r)
        if not (self.sure_type(widen(lt)) and self.sure_type(widen(rt))):
            return UNKNOWN
        self.err(e.span, "E0004", f"operator `{op}` cannot be applied to `{show(lt)}` and `{show(rt)}`")
        return UNKNOWN

    def check_operands(self, op: str, lt: T.Type, rt: T.Type, e) -> T.Type:
        """An arithmetic or bitwise operator over operands the checker knows: the result type
        (per member of union operands), or E0004 where the engine has no such operator."""
        lt, rt = _void_is_null(lt), _void_is_null(rt)
        fns = [isinstance(widen(t), (FuncT, FutureT)) for t in (lt, rt)]  # nor has a future (`await` it)
        if any(fns) and all(f or self.sure_type(widen(t)) for f, t in zip(fns, (lt, rt))):
            self.err(e.span, "E0004", f"operator `{op}` cannot be applied to `{show(lt)}` and "
                     f"`{show(rt)}`")  # no function type has arithmetic
            return UNKNOWN
        if not (self.sure_type(widen(lt)) and self.sure_type(widen(rt))):
            return UNKNOWN
        out = []
        for ml in T.members(lt):
            for mr in T.members(rt):
                r = _operator_result(op, T.base(ml), T.base(mr))
                if r is None:
                    if self.may_compare(widen(ml)) or self.may_compare(widen(mr)):
                        return UNKNOWN  # an `implements` may supply the operator
                    self.err(e.span, "E0004", f"operator `{op}` cannot be applied to "
                             f"`{show(lt)}` and `{show(rt)}`")
                    return UNKNOWN
                out.append(r)
        return T.union(*out)

    def check_order(self, op: str, lt: T.Type, rt: T.Type, e) -> None:
        """E0004 for `<` `<=` `>` `>=`: both operands of one type, a type that implements
        `Compare` (int, float, string, bool, bigint, or a bounded type parameter)."""
        lt, rt = _void_is_null(lt), _void_is_null(rt)
        wl, wr = widen(lt), widen(rt)
        if isinstance(wl, FuncT) and isinstance(wr, FuncT) and not isinstance(wl, NativeFuncT):
            self.err(e.span, "E0004", f"`{show(wl)}` does not implement `Compare`, so it cannot "
                     f"be ordered with `{op}`")  # no function type does
            return
        if not (self.sure_type(wl) and self.sure_type(wr)):
            return
        if any(isinstance(t, Union) and all(isinstance(m, Lit) for m in t.members) for t in (lt, rt)):
            wl = lt if isinstance(lt, Union) else rt  # `1 | 2` is a union, which has no `Compare`
        if wl != wr:
            self.err(e.span, "E0004", f"cannot order `{show(lt)}` and `{show(rt)}` with `{op}`: "
                     "ordering requires both operands to have the same type")
        elif wl not in (INT, FLOAT, STRING, BOOL, T.BIGINT) and not self.may_compare(wl):
            self.err(e.span, "E0004", f"`{show(wl)}` does not implement `Compare`, so it cannot "
                     f"be ordered with `{op}`")

    def never_operand(self, e, lt: T.Type, rt: T.Type) -> bool:
        """An operand that is a variable of type `never` (a scrutinee every earlier arm
        matched), the other one known."""
        sides = [(getattr(e, "left", None), lt, rt), (getattr(e, "right", None), rt, lt)]
        return any(isinstance(x, ast.Name) and t is NEVER and (o is NEVER or self.sure_type(widen(o)))
                   for x, t, o in sides)

    def bound_never(self, e) -> bool:
        """Is an operand a variable bound to a diverging value (declared `never`), rather than a
        scrutinee every earlier arm matched?"""
        for x in (getattr(e, "left", None), getattr(e, "right", None)):
            v = self.lookup_var(x.name) if isinstance(x, ast.Name) else None
            if v is not None and v.ty is NEVER:
                return True
        return False

    def non_numeric(self, t: T.Type) -> bool:
        """A union (exactly known) with a member that is no number: no `-x` / `~x`."""
        return isinstance(t, Union) and self.sure_type(t) and any(
            widen(m) not in (INT, FLOAT, T.BIGINT) for m in t.members)

    def sure_type(self, t: T.Type) -> bool:
        """A type the checker knows exactly (no unknown part, no stdlib or function type)."""
        if isinstance(t, T.Prim):
            return t not in (UNKNOWN, NEVER, VOID)
        if isinstance(t, Lit) or t is T.JSON:
            return True
        if isinstance(t, Arr):
            return self.sure_type(t.elem)
        if isinstance(t, MapT):
            return self.sure_type(t.key) and self.sure_type(t.val)
        if isinstance(t, Union):
            return all(map(self.sure_type, t.members))
        if isinstance(t, ClassT):
            return all(map(self.sure_type, t.args))
        if isinstance(t, T.StdT):
            return t.name in stdsigs.STD_CLASSES or t in (_ENV_REF, _DONE, ANY_CLASS)
        return isinstance(t, (EnumT, TVar))

    def may_compare(self, t: T.Type) -> bool:
        """Could an `implements` (or a bound) give this type `Compare`?"""
        if isinstance(t, TVar):
            return t.name not in self.unbounded_generics()
        decl = t.cls.decl if isinstance(t, ClassT) else t.enum.decl if isinstance(t, EnumT) else None
        if decl is not None and getattr(decl, "impls", None):
            return True
        return any(getattr(f, "impls", None) for f in self.index.files) and decl is None

    def unbounded_generics(self) -> set[str]:
        fd = self.cur_fd
        gs = list(fd.decl.generics) if fd is not None else []
        if fd is not None and fd.owner is not None:
            gs += fd.owner.decl.generics
        return {g.name for g in gs if not g.bounds}

    def cond_facts(self, c) -> tuple[dict, dict]:
        """Narrowing facts (when true, when false) of a condition."""
        if isinstance(c, ast.Unary) and c.op == "!":
            p, n = self.cond_facts(c.operand)
            return n, p
        if isinstance(c, ast.Binary):
            if c.op in ("==", "!="):
                name = None
                if isinstance(c.left, ast.Name) and isinstance(c.right, ast.NullLit):
                    name = c.left.name
                elif isinstance(c.right, ast.Name) and isinstance(c.left, ast.NullLit):
                    name = c.right.name
                if name is not None:
                    v = self.lookup_var(name)
                    if v is not None:
                        t = self.tested_type(v)
                        isnull = {v: NULL}
                        notnull = {v: T.strip_null(t)} if t is not UNKNOWN else {}
                        return (isnull, notnull) if c.op == "==" else (notnull, isnull)
                return {}, {}
            if c.op in ("&&", "||"):  # along the left spine in a loop: chains may be long
                spine = [c]
                x = c.left
                while type(x) is ast.Binary and x.op in ("&&", "||"):
                    spine.append(x)
                    x = x.left
                pos, neg = self.cond_facts(x)
                saved = self.facts
                for node in reversed(spine):
                    # the right operand is tested where the left one held (`&&`) or failed
                    self.facts = {**saved, **(pos if node.op == "&&" else neg)}
                    try:
                        p2, n2 = self.cond_facts(node.right)
                    finally:
                        self.facts = saved
                    if node.op == "&&":
                        pos, neg = {**pos, **p2}, {}
                    else:
                        pos, neg = {}, {**neg, **n2}
                return pos, neg
        if isinstance(c, ast.Name):  # `if (x)`: a truthy value is not null (a falsy one may be `0`)
            v = self.lookup_var(c.name)
            t = self.tested_type(v) if v is not None else UNKNOWN
            if isinstance(t, Union) and NULL in t.members:
                return {v: T.strip_null(t)}, {}
            return {}, {}
        if isinstance(c, ast.Is) and isinstance(c.expr, ast.Name):
            v = self.lookup_var(c.expr.name)
            if v is not None:
                p = c.pattern
                if isinstance(p, ast.PLit) and p.value is None:
                    t = v.ty
                    return {v: NULL}, ({v: T.strip_null(t)} if t is not UNKNOWN else {})
                if isinstance(p, ast.PType) and isinstance(p.type, (ast.TName, ast.TArray)):
                    rt = self.resolve(p.type, report=False)
                    if rt is NULL:
                        return {v: NULL}, {v: T.strip_null(v.ty)}
                    if (isinstance(rt, (T.Prim, ClassT)) and rt is not UNKNOWN or isinstance(
                            rt, (Arr, MapT)) and rt in T.members(self.tested_type(v))):  # `json[]` of json
                        return {v: rt}, self.not_is(v, rt)
                if isinstance(p, ast.PType) and _variant_like(p.type):
                    return {}, {}  # `x is E.A` narrows x neither way
                if isinstance(p, ast.PType) and isinstance(p.type, (ast.TOptional, ast.TUnion)):
                    got = self.is_union(v, self.resolve(p.type, report=False))  # `v is string?`
                    if got is not None:
                        return got
                if isinstance(self.tested_type(v), Union) or self.tested_type(v) is T.JSON:
                    return {v: UNKNOWN}, {v: UNKNOWN}  # a test not modeled: trust neither branch
        return {}, {}

    def is_union(self, v: Var, rt: T.Type):
        """Facts of `v is A | B` over a union of plain members, or None."""
        t = self.tested_type(v)
        want = T.members(rt)
        if not _sure_scrutinee(t) or not all(isinstance(m, (T.Prim, ClassT, Lit)) and m is not UNKNOWN
                                             and not (isinstance(m, ClassT) and m.args) for m in want):
            return None
        hit = lambda m: m in want or (isinstance(m, Lit) and m.base in want)  # noqa: E731
        ms = T.members(t)
        yes, no = [m for m in ms if hit(m)], [m for m in ms if not hit(m)]
        if any(isinstance(m, (ClassT, IfaceT)) and not hit(m) for m in ms) and any(
                isinstance(m, ClassT) for m in want):
            return None  # classes: leave subtler cases to the general rule
        return ({v: T.union(*yes)} if yes else {}), ({v: T.union(*no)} if no else {})

    def tested_type(self, v: Var) -> T.Type:
        """What a test of `v` narrows from: its type here, else its declared type, else (for
        `let y = x` over an untested `x`) the type of x it was bound from."""
        t = self.var_type(v)
        if t is UNKNOWN:
            t = v.ty
        return v.origin if t is UNKNOWN and v.origin is not None else t

    def not_is(self, v: Var, rt: T.Type) -> dict:
        """Where `v is rt` is false: v's union less the members that are surely `rt`."""
        t = self.tested_type(v)
        ms = T.members(t)  # `json`: the types it is made of
        if len(ms) < 2 or not _sure_scrutinee(t) or (
                isinstance(rt, ClassT) and (rt.args or rt.cls.decl.generics)):
            return {}
        rest = [m for m in ms if not (m == rt or (isinstance(m, Lit) and m.base is rt))]
        return {v: T.union(*rest)} if len(rest) < len(ms) else {}

    def x_Is(self, e, x):
        self.untyped_empty(e.expr)  # `[] is int[]`: nothing types the `[]`
        t = self.expr(e.expr, UNKNOWN)
        # a test that narrows (an `if`/`while` condition) is checked as a match arm; elsewhere
        # the engine lets any type be tested (`return x is float` of an `int | string`)
        if t == _ENV_REF or (getattr(e, "narrows", False) and (
                isinstance(t, Union) and _sure_scrutinee(t) or t is T.JSON) and (
                isinstance(e.pattern, ast.PType) and not _variant_like(e.pattern.type)
                or isinstance(e.pattern, ast.PLit) and e.pattern.value is None)):
            rt = self.resolve(e.pattern.type, report=False) if isinstance(e.pattern, ast.PType) else NULL
            if not isinstance(rt, (Arr, MapT)) or getattr(e, "narrows", False):
                self.pattern_fits(e.pattern, t)  # `x is null` where x is never null: E0001
            elif not any(m is T.JSON or _overlaps(m, rt) for m in T.members(t)):  # `x is int[]`, no array
                self.err(e.pattern.span, "E0001", "mismatched types", f"expected `{show(t)}`, found `{show(rt)}`")
        self.scopes.append({})
        self.pattern(e.pattern, UNKNOWN)
        self.scopes.pop()
        return BOOL

    def x_If(self, e, expected):
        _mark_narrowing(e.cond)
        self.expr(e.cond, UNKNOWN)
        pos, neg = self.cond_facts(e.cond)
        saved = dict(self.facts)
        mark = len(self.assigned_log)
        self.facts.update(pos)
        valued = getattr(e, "plain_let", False)
        if valued and e.else_ is not None and not e.else_.stmts and isinstance(e.else_.tail, ast.If):
            e.else_.tail.plain_let = True  # `let x = if … else if …`
        # `let x = if (c) { … }`: without `else` its value is null, so the branch's must be too
        saved_exact = set(self.exact)
        tt = self.block(e.then, NULL if valued and e.else_ is None else expected)
        after_then = (self.facts, self.exact)
        self.facts, self.exact = dict(saved), set(saved_exact)
        if e.else_ is None:
            if expected not in (UNKNOWN, NULL, VOID):
                self.err(e.span, "E0029", "missing value",
                         f"expected `{show(expected)}`, but an `if` without `else` evaluates "
                         "to `null`; add an `else` branch")
            if tt is NEVER:
                self.facts.update(neg)
            self.join_branches([(after_then, tt), (({**saved, **neg}, saved_exact), NULL)], mark)
            return NULL if tt is not UNKNOWN else UNKNOWN
        self.facts.update(neg)
        et = self.block(e.else_, expected)
        after_else = (self.facts, self.exact)
        self.facts, self.exact = dict(saved), set(saved_exact)
        if tt is NEVER and et is not NEVER:
            self.facts.update(neg)
        elif et is NEVER and tt is not NEVER:
            self.facts.update(pos)
        self.join_branches([(after_then, tt), (after_else, et)], mark)
        if expected is not UNKNOWN:
            return NEVER if (tt is NEVER and et is NEVER) else T.union(tt, et)
        return self.joined_literals([(tt, e.then.tail), (et, e.else_.tail)])

    def joined_literals(self, branches: list, wide=T.widen_scalar) -> T.Type:
        """Branch types joined as the engine joins them: a declared literal type is kept
        (`r.status`), a literal written in a branch widens unless the kept ones hold it
        (`if (c) { r.status } else { "fail" }` stays `"pass" | "fail"`)."""
        fresh = lambda x: x is None or _fresh_literal(x, self.lookup_var)  # noqa: E731
        kept = [t for t, x in branches if not fresh(x)]
        if not kept:
            return T.union(*(wide(t) for t, _ in branches))
        held = T.union(*kept)
        return T.union(held, *(wide(t) for t, x in branches if fresh(x) and not assignable(t, held)))

    def join_branches(self, paths: list, mark: int) -> None:
        """After branches: a variable written in one holds, on each path that goes on, what
        that path leaves it (what was written, what a test narrowed it to, else its declared
        type); after them, the join of those (the engine's: `5 | "a"`, a written `1` and a
        tested `int`: an `int`)."""
        live = [st for st, t in paths if t is not NEVER]
        for v in dict.fromkeys(self.assigned_log[mark:]):
            if not live:
                break
            ts = [facts.get(v, self.declared(v)) for facts, _ in live]
            exact = all(v in ex for _, ex in live)
            self.facts[v] = UNKNOWN if UNKNOWN in ts else T.union(*ts)
            (self.exact.add if exact else self.exact.discard)(v)
            (self.loose.discard if exact else self.loose.add)(v)

    def x_IfLet(self, e, expected):
        vt = self.expr(e.value, UNKNOWN)
        saved, saved_exact = dict(self.facts), set(self.exact)
        mark = len(self.assigned_log)
        self.scopes.append({})
        self.pattern_fits(e.pattern, vt)  # `if let v: string = x` on an `int?`: E0001
        self.pattern(e.pattern, vt)
        # `let x = if let … { … }`: without `else` its value is null, so the branch's must be too
        valued = getattr(e, "plain_let", False) and e.else_ is None
        tt = self.block(e.then, NULL if valued else expected)
        self.scopes.pop()
        after_then = (self.facts, self.exact)
        self.facts, self.exact = dict(saved), set(saved_exact)
        if e.else_ is None:
            if expected not in (UNKNOWN, NULL, VOID):
                self.err(e.span, "E0029", "missing value",
                         f"expected `{show(expected)}`, but an `if` without `else` evaluates "
                         "to `null`; add an `else` branch")
            self.join_branches([(after_then, tt), ((saved, saved_exact), NULL)], mark)
            return UNKNOWN
        et = self.block(e.else_, expected)
        after_else = (self.facts, self.exact)
        self.facts, self.exact = dict(saved), set(saved_exact)
        self.join_branches([(after_then, tt), (after_else, et)], mark)
        return T.union(widen(tt), widen(et))

    def x_BlockExpr(self, e, expected):
        return self.block(e.block, expected)

    def x_Diverge(self, e, expected):
        self.stmt(e.stmt)
        return NEVER

    def x_Spawn(self, e, expected):
        # the value type through the user modifiers: a `Modifier<int, E>` takes an `int` plan
        # (the first such fixes the body's), and each gives its `Output` (default: what it took)
        cur = need = None  # None: the body's own
        for m in e.modifiers:
            t = self.expr(m, UNKNOWN)
            impl = next((i for i in t.cls.impls if i.std == MODIFIER), None) if isinstance(t, ClassT) else None
            if T.base(t) in (INT, FLOAT, STRING, BOOL, NULL) or t is T.TOP or \
                    isinstance(t, (T.Arr, T.MapT, ClassT)) and impl is None:
                self.err(m.span, "E0001", f"type `{show(t)}` does not implement interface "
                         f"`{MODIFIER}`")  # (a token, a limit or `Root` does)
            if impl is None:
                continue
            took, out = self.modifier_value(impl)
            if took is not None:
                need = took if cur is None and need is None else need
                cur = took
            if out is not None:
                cur = out
        self.x_Lambda(e.fn, UNKNOWN)
        v = widen(getattr(e.fn, "value_ty", UNKNOWN))
        sure = v is NULL or (self.sure_type(v) and not _returns(e.fn.body))
        if need is not None and sure and not assignable(v, need):
            self.mismatch(e.fn.body.span, need, v)  # (the engine: at the block)
        return FutureT(cur if cur is not None else v if sure else UNKNOWN)

    def modifier_value(self, impl) -> tuple:
        """A `baml.spawn.Modifier` implementation's value types: the one it takes (its first
        type argument where that is a type, not its own parameter) and its `Output` (UNKNOWN
        where that mentions a parameter); None for either where it does not say."""
        save = (self.ns, self.generics)
        self.ns, self.generics = impl.namespace, {g.name for g in impl.decl.generics}
        try:
            args = [a for a in impl.decl.interface.args if getattr(a, "binds", None) is None]
            took = self.resolve(args[0], report=False) if args else UNKNOWN
            out = self.resolve(impl.decl.assoc["Output"], report=False) if "Output" in impl.decl.assoc else None
        finally:
            self.ns, self.generics = save
        took = None if T.has_tvar(took) or T.has_unknown(took) else took
        return took, (UNKNOWN if out is not None and T.has_tvar(out) else out)

    def x_Await(self, e, expected):
        t = self.expr(e.value, UNKNOWN)
        if t is not NULL and _sure_scrutinee(t):  # futures are unknown here: this is none
            self.err(e.span, "E0001", "mismatched types", f"expected `baml.future.Future<unknown, "
                     f"unknown>`, found `{show(t)}`")
        return t.value if isinstance(t, FutureT) else UNKNOWN

    def x_Lambda(self, e, expected):
        exp = T.base(expected)
        self.duplicate_params(e.params, self.fn_name)
        for p in e.params:
            self.require_throws(p.type)
        self.require_throws(e.ret, ret=True)
        ps = []
        scope = {}
        for i, p in enumerate(e.params):
            if p.type is not None:
                pt = self.resolve(p.type)
            elif isinstance(exp, FuncT) and i < len(exp.params):
                pt = exp.params[i][1]
            else:
                pt = UNKNOWN
            ps.append((p.name, pt, p.default is not None))
            if p.name == "root":
                self.err(p.span, "E0176", "`root` is the path to this package and cannot name a "
                         "binding, an item, or a type parameter")
            scope[p.name] = Var(p.name, pt)
        ret = self.resolve(e.ret) if e.ret is not None else UNKNOWN
        throws = _loose(self.resolve(e.throws)) if e.throws is not None else None
        if throws is None and isinstance(exp, FuncT) and exp.throws is not None and \
                (exp.throws is NEVER or _sure_scrutinee(exp.throws)):
            throws = exp.throws  # a lambda where `(…) -> R throws E` is expected may throw only E
        if throws is not None:
            self.effects.declared[id(e)] = throws
            if _is_unknown(e.throws):
                self.effects.declared_unknown[id(e)] = e.body.span
        outer = self.fn
        saved_facts = self.facts
        self.facts = {}
        self.fn = _Fn(ret, throws, outer.callbacks, outer.captured)
        # variables of the enclosing function may change between calls: no facts apply
        self.scopes.append(scope)
        bt = self.body(e.body, ret)
        e.value_ty = bt if bt is not None else UNKNOWN  # what a `spawn` of it resolves to
        self.scopes.pop()
        self.fn = outer
        self.facts = saved_facts
        if e.ret is None and bt is not None and not T.has_tvar(bt):
            ret = T.widen_scalar(bt)  # an unwritten result is its body's (`xs.map((d) -> { d.n })`)
        t = LambdaT(tuple(ps), ret if not T.has_tvar(ret) else UNKNOWN, throws)
        t.node = e
        need = sum(1 for p in e.params if p.default is None)
        if isinstance(exp, FuncT) and not need <= len(exp.params) <= len(e.params):
            self.err(e.span, "E0005", f"expected {len(exp.params)} argument(s), got {len(e.params)}")
            return UNKNOWN  # one error: not also the mismatch of its type
        self.throws_within(e, t, expected)
        return t

    def x_Match(self, e, expected):
        st = self.expr(e.scrutinee, UNKNOWN)
        precise = self.is_precise(e.scrutinee)
        dead = self.covered_arms(st, e.arms) if precise or isinstance(
            e.scrutinee, (ast.Binary, ast.IntLit, ast.StrLit, ast.BoolLit)) else set()
        before, saved_exact = dict(self.facts), set(self.exact)
        saved = dict(before)
        mark = len(self.assigned_log)
        catch_all = False
        ts = []
        paths = []
        sv = self.lookup_var(e.scrutinee.name) if isinstance(e.scrutinee, ast.Name) else None
        if sv is not None:
            saved[sv] = UNKNOWN  # the engine narrows the scrutinee inside each arm
            tested = self.tested_type(sv)
        rest = list(T.members(st)) if _sure_scrutinee(st) and isinstance(st, Union) else None  # not yet matched
        for i, arm in enumerate(e.arms):
            if sv is not None:
                self.facts[sv] = self.arm_narrows(arm.pattern, tested)
                if any(("all", j) in dead for j in range(i + 1)):
                    self.facts[sv] = NEVER  # the engine's type of a scrutinee all matched before
            self.pattern_fits(arm.pattern, st if isinstance(  # literal types Assay folds: no
                e.scrutinee, (ast.Name, ast.IntLit, ast.StrLit, ast.BoolLit)) else T.widen_scalar(st))
            if catch_all or i in dead:
                self.err(arm.body.span, "E0063", "unreachable arm")
            self.scopes.append({})
            bare = isinstance(arm.pattern, ast.PBind) and arm.pattern.type is None
            self.pattern(arm.pattern, T.union(*rest) if bare and rest else st)  # `null => …, let n`
            if rest is not None and arm.guard is None:
                got = NULL if isinstance(arm.pattern, ast.PLit) and arm.pattern.value is None else \
                    self.arm_narrows(arm.pattern, st)
                rest = [m for m in rest if m not in T.members(got)] if got is not UNKNOWN else rest
            if arm.guard is not None:
                self.expr(arm.guard, UNKNOWN)
            ts.append(self.arm_body(arm.body, expected))
            self.scopes.pop()
            paths.append(((self.facts, self.exact), ts[-1]))
            self.facts, self.exact = dict(saved), set(saved_exact)
            if arm.guard is None and _irrefutable(arm.pattern) and catch_all is False:
                catch_all = True
        if catch_all is False and precise and isinstance(st, Arr) and _arrays_left(e.arms):
            self.err(e.span, "E0062", f"non-exhaustive match on type {show(st)}; some lengths "
                     "are not matched")
        elif catch_all is False and precise and st is not UNKNOWN:
            missing = self.missing_cases(st, e.arms)
            if missing:
                self.err(e.span, "E0062", f"non-exhaustive match on type {show(st)}; missing: "
                         + ", ".join(missing))
        self.facts = dict(before)  # the scrutinee as it was: the engine keeps no arm's narrowing
        self.join_branches(paths, mark)
        if expected is not UNKNOWN:
            return T.union(*ts) if ts else NEVER
        return self.joined_literals(list(zip(ts, (a.body for a in e.arms))), widen) if ts else NEVER

    def arm_narrows(self, p, st: T.Type | None) -> T.Type:
        """The scrutinee's type inside an arm of type patterns (`int`, `P`, `int | string`):
        the members of `st` they match; unknown for any other arm."""
        alts = p.alts if isinstance(p, ast.POr) else [p]
        anything = st is None  # a caught value: the pattern's type itself
        if len(alts) > 1 and not anything and _sure_scrutinee(st) and all(  # `1 | 2 =>`: that literal union
                isinstance(a, ast.PLit) and type(a.value) in (int, str) for a in alts):
            lits = [T.lit_int(a.value) if type(a.value) is int else T.lit_str(a.value) for a in alts]
            if all(m.base in T.members(st) for m in lits):
                return T.union(*lits)
        if not (anything or _sure_scrutinee(st)) or not all(
                isinstance(a, ast.PType) and not _variant_like(a.type) for a in alts):
            return UNKNOWN
        out = []
        for a in alts:
            rt = self.resolve(a.type, report=False)
            part = isinstance(rt, (Arr, MapT)) and not anything and rt in T.members(st)  # `json[]` of json
            # a caught stdlib class (`baml.panics.UserPanic => e.message`), alone: the engine
            # does not narrow a caught value to a union of them
            part = part or anything and len(alts) == 1 and isinstance(rt, T.StdT) and rt.name in stdsigs.STD_CLASSES
            if not part and not isinstance(rt, (T.Prim, ClassT)) or rt is UNKNOWN or (
                    isinstance(rt, ClassT) and (rt.args or rt.cls.decl.generics)):
                return UNKNOWN
            out += [rt] if anything else [
                m for m in T.members(st) if m == rt or (isinstance(m, Lit) and m.base is rt)]
        return T.union(*out) if out else UNKNOWN

    def pattern_fits(self, p, st: T.Type) -> None:
        """E0001: a match pattern that no value of the scrutinee's type can match. `int |
        string` is one union type (it fits when any member may match); an or-pattern of
        literals or variants fits when each alternative may match."""
        if isinstance(p, ast.PBind) and p.type is not None:  # `let n: int` on a string
            bt = self.resolve(p.type, report=False)
            if _sure_scrutinee(bt) and _sure_scrutinee(st) and not any(
                    T.assignable(m, bt) or T.assignable(bt, m) for m in T.members(st)):
                self.err(p.type.span, "E0001", "mismatched types", f"expected `{show(st)}`, found `{show(bt)}`")
            return
        alts = p.alts if isinstance(p, ast.POr) else [p]
        if isinstance(p, ast.PClass) and _sure_scrutinee(st):
            ct = self.resolve(p.type, report=False)
            if isinstance(ct, ClassT) and not ct.cls.decl.generics:
                for name, sub in p.fields:
                    if sub is not None and ct.cls.field(name) is not None:
                        self.pattern_fits(sub, self.field_type(ct, name))
            return
        if isinstance(p, ast.PArray) and _sure_scrutinee(st):
            arrs = [m for m in T.members(st) if isinstance(m, Arr)]
            if not arrs:
                self.err(p.span, "E0001", "mismatched types",
                         f"expected `{show(st)}`, found an array pattern")
            elif len(arrs) == 1:
                for it in p.items:
                    self.pattern_fits(it, arrs[0].elem)
            return
        ts = [self.alt_type(a) for a in alts]
        if any(t is None for t in ts) or not _sure_scrutinee(st):
            return
        ms = T.members(st)
        fits = [any(T.assignable(t, m) or T.assignable(m, t) for m in ms) for t in ts]
        one_type = all(isinstance(a, ast.PType) and not _variant_like(a.type) for a in alts)
        if not (any(fits) if one_type else all(fits)):
            self.err(p.span, "E0001", "mismatched types",
                     f"expected `{show(st)}`, found `{show(T.union(*ts))}`")

    def alt_type(self, p) -> T.Type | None:
        """The type a literal or type pattern matches; None when not read here."""
        if isinstance(p, ast.PLit):
            v = p.value
            return NULL if v is None else T.lit_bool(v) if type(v) is bool else \
                T.lit_int(v) if type(v) is int else T.lit_str(v) if type(v) is str else \
                Lit(v, T.BIGINT) if type(v) is ast.BigLit else None
        if not isinstance(p, ast.PType):
            return None
        t = self.pattern_type_quiet(p.type) if _variant_like(p.type) else \
            self.resolve(p.type, report=False)
        return None if not _sure_scrutinee(t) else t

    def covered_arms(self, st: T.Type, arms) -> set[int]:
        """The arms whose every alternative matches only values the arms before them (without
        a guard) already match: E0063, as the engine (up to the first arm not understood)."""
        ms = T.members(st)
        left: list = []  # per member: remaining atoms (a set), or [covered, literals seen]
        for m in ms:
            if m is BOOL:
                left.append({True, False})
            elif isinstance(m, EnumT):
                left.append(set(m.enum.variants) if m.variant is None else {m.variant})
            elif m is NULL:
                left.append({None})
            elif isinstance(m, Lit):
                left.append({m.value})
            elif m in (INT, STRING, FLOAT, T.BIGINT) or isinstance(m, (ClassT, Arr, MapT)):
                left.append([False, set()])
            else:
                return set()
        dead = set()
        for i, arm in enumerate(arms):
            if all(_is_covered(lf, ALL) for lf in left):
                dead.add(("all", i))  # every value is matched before this arm
            p = arm.pattern
            effects = [self.pattern_covers(a, ms) for a in (p.alts if isinstance(p, ast.POr) else [p])]
            if any(ef is None for ef in effects):
                break
            if arm.guard is None and all(ef and all(_is_covered(left[j], a) for j, a in ef)
                                         for ef in effects):
                dead.add(i)
            if arm.guard is None:
                for ef in effects:
                    for j, a in ef:
                        _cover(left[j], a)
        return dead

    def pattern_covers(self, p, ms) -> list | None:
        """What one pattern alternative matches of each scrutinee member: [(member index,
        ALL | an atom | ("lit", v) | "part")]; None when not understood."""
        if _irrefutable(p):
            return [(j, ALL) for j in range(len(ms))]
        if isinstance(p, ast.PLit):
            v = p.value
            out = []
            for j, m in enumerate(ms):
                if (m is BOOL and isinstance(v, bool)) or (m is NULL and v is None) or (
                        isinstance(m, Lit) and m.value == v and type(m.value) is type(v)):
                    out.append((j, v))
                elif (m is INT and type(v) is int) or (m is STRING and isinstance(v, str)):
                    out.append((j, ("lit", v)))
            return out
        if isinstance(p, ast.PArray):  # `[..]` matches every array; `[_, _]` those of length 2
            full = not p.items and p.rest_index is not None and p.rest_pattern is None
            lengths = p.rest_pattern is None and all(
                isinstance(i, ast.PWild) or (isinstance(i, ast.PBind) and i.type is None) for i in p.items)
            a = ALL if full else ("len" if p.rest_index is None else "len+", len(p.items)) if lengths else "part"
            return [(j, a) for j, m in enumerate(ms) if isinstance(m, Arr)]
        if isinstance(p, ast.PClass):
            part = not all(sp is None or _irrefutable(sp) for _, sp in p.fields)
            te = p.type
        elif isinstance(p, (ast.PType, ast.PBind)):
            part, te = False, p.type
        else:
            return None
        t = self.pattern_type_quiet(te) if _variant_like(te) else self.resolve(te, report=False)
        if t is UNKNOWN or isinstance(t, Lit) or T.has_tvar(t):
            return None
        out = []
        for j, m in enumerate(ms):
            if isinstance(t, EnumT) and t.variant is not None:
                if isinstance(m, EnumT) and m.enum is t.enum and m.variant in (None, t.variant):
                    out.append((j, t.variant))
            elif assignable(m, t):
                out.append((j, "part" if part else ALL))
            elif assignable(t, m) or isinstance(t, IfaceT):
                return None  # matches part of this member's values
        return out

    def arm_catches(self, arm) -> object:
        """What a catch arm catches: ALL, a type, or MAYBE (a pattern not read here)."""
        p = arm.pattern
        if _irrefutable(p):
            return ALL
        te = p.type if isinstance(p, (ast.PType, ast.PBind)) else None
        t = self.pattern_type_quiet(te) if _variant_like(te) else self.resolve(te, report=False)
        return MAYBE if te is None or t is UNKNOWN else t

    def panics_covered(self, e: ast.Catch) -> None:
        """E0062: `catch_all_panics` arms must catch every panic class (`_`, a binding or
        `baml.panics.Panic` does)."""
        left = set(stdsigs.PANIC_CLASSES)
        for arm in e.arms:
            if arm.guard is not None:
                continue
            for p in arm.pattern.alts if isinstance(arm.pattern, ast.POr) else [arm.pattern]:
                te = p.type if isinstance(p, (ast.PType, ast.PBind)) else None
                name = ".".join(te.path) if isinstance(te, ast.TName) and not te.args else None
                if _irrefutable(p) or name == "baml.panics.Panic":
                    return
                left.discard(name)
        if left:
            self.err(e.span, "E0062", f"non-exhaustive catch_all_panics; missing: {', '.join(sorted(left))}")

    def arm_body(self, body, expected):
        if isinstance(body, (ast.BlockExpr, ast.If, ast.IfLet, ast.Match)):
            return self.expr(body, expected)
        t = self.expr(body, expected)
        if expected is not UNKNOWN and not self.fits(t, expected):
            self.mismatch(body.span, expected, t)
        return t

    def is_precise(self, e) -> bool:
        if isinstance(e, ast.Name):
            v = self.lookup_var(e.name)
            return (v is not None and (v.precise or v in self.exact) and v not in self.loose
                    and self.facts.get(v, NULL) is not UNKNOWN)
        return isinstance(e, (ast.Field, ast.Call)) and not getattr(e, "optional", False)

    def missing_cases(self, st: T.Type, arms) -> list[str]:
        """Uncovered parts of `st`, or [] when covered or unsure."""
        pats = []
        partial = [a.type.path for arm in arms if arm.guard is None for a in (
            arm.pattern.alts if isinstance(arm.pattern, ast.POr) else [arm.pattern])
            if isinstance(a, ast.PClass) and not all(sp is None or _irrefutable(sp) for _, sp in a.fields)]
        for arm in arms:
            if arm.guard is not None:
                continue
            p = arm.pattern
            alts = p.alts if isinstance(p, ast.POr) else [p]
            for a in alts:
                if isinstance(a, ast.PLit):
                    pats.append(("lit", a.value))
                elif isinstance(a, ast.PType):
                    t = self.resolve(a.type, report=False) if not _variant_like(a.type) else \
                        self.pattern_type_quiet(a.type)
                    if t is UNKNOWN:
                        return []
                    pats.append(("type", t))
                elif isinstance(a, ast.PBind) and a.type is not None:
                    t = self.resolve(a.type, report=False)
                    if t is UNKNOWN:
                        return []
                    pats.append(("type", t))
                elif isinstance(a, ast.PClass):
                    if not all(sp is None or _irrefutable(sp) for _, sp in a.fields):
                        if partial.count(a.type.path) == 1:
                            continue  # the one pattern of its class that tests fields: not all
                        return []  # several: exhaustiveness across their fields is not tracked
                    t = self.resolve(a.type, report=False)
                    if t is UNKNOWN:
                        return []
                    pats.append(("type", t))
                else:
                    return []
        missing = []
        for m in T.members(st):
            r = self.uncovered(m, pats)
            if r is None:
                return []
            missing.extend(r)
        if missing and not isinstance(st, Union) and st in (INT, STRING, FLOAT, T.JSON):
            return ["_"]
        return missing

    def pattern_type_quiet(self, te) -> T.Type:
        item = self.index.items_in(self.ns).get(te.path[0])
        if isinstance(item, EnumDef) and te.path[1] in item.variants:
            return EnumT(item, te.path[1])
        return UNKNOWN

    def uncovered(self, m: T.Type, pats) -> list[str] | None:
        if T.has_tvar(m):  # `T`, `T[]`: only a pattern of that very type covers it
            if any(kind == "type" and v == m for kind, v in pats):
                return []
            return ["[..]"] if isinstance(m, Arr) else ["_"]
        for kind, v in pats:
            if kind == "type" and not isinstance(v, Lit) and assignable(m, v) and not (
                    isinstance(v, EnumT) and v.variant is not None and
                    not (isinstance(m, EnumT) and m.variant == v.variant)) and not (
                    isinstance(v, T.StdT) and v.kind == "variant" and m != v):
                return []
        if isinstance(m, T.StdT) and m.kind == "enum" and m.name in stdsigs.STD_ENUM_VARIANTS:
            seen = {v.variant for k, v in pats if k == "type" and isinstance(v, T.StdT) and v.name == m.name}
            return [f"{m.name}.{x}" for x in stdsigs.STD_ENUM_VARIANTS[m.name] if x not in seen]
        if m is BOOL:
            seen = {v for k, v in pats if k == "lit" and isinstance(v, bool)}
            seen |= {v.value for k, v in pats if k == "type" and isinstance(v, Lit)
                     and v.base is BOOL}
            return [s for s, b in (("true", True), ("false", False)) if b not in seen]
        if m is NULL:
            return [] if any(k == "lit" and v is None for k, v in pats) else ["null"]
        if m is T.TOP:
            return ["_"]
        if isinstance(m, EnumT):
            if m.variant is not None:
                return None
            seen = {v.variant for k, v in pats if k == "type" and isinstance(v, EnumT)
                    and v.enum is m.enum}
            return [f"{m.enum.name}.{x}" for x in m.enum.variants if x not in seen]
        if isinstance(m, Lit):
            if any(k == "lit" and v == m.value and type(v) is type(m.value) for k, v in pats):
                return []
            return [show(m)] if m.base in (INT, STRING) else None
        if m in (INT, STRING, FLOAT, T.BIGINT) or isinstance(m, (Arr, MapT)):
            return [show(m)]
        if isinstance(m, ClassT):
            return [show(m)]
        if isinstance(m, IfaceT):  # open: any type may implement it later
            return [show(m) + " {}"]
        return None

    def x_Catch(self, e, expected):
        # `let d = f() catch (e) { _ => {} }`: the engine holds a valueless arm block to f()'s
        # type wherever the value is used (not as a statement of its own)
        held = expected is UNKNOWN and (self.no_expected is not e or getattr(e, "plain_let", False))
        self.fn.catch += 1
        ts = [self.expect(e.expr, expected) if expected not in (NULL, VOID) else
              self.expr(e.expr, expected)]
        self.fn.catch -= 1
        self.effects.catches[id(e)] = [self.arm_catches(arm) for arm in e.arms]
        if e.kind != "catch":
            self.effects.catch_alls.append(e)
        if e.kind == "catch_all_panics":
            self.panics_covered(e)
        if e.ctx is not None:  # handlers then track the error being handled (causes)
            self.index.error_contexts = True
        if e.binding == "root" and getattr(e, "binding_at", None) is not None:
            self.err(e.binding_at, "E0176", "`root` is the path to this package and cannot name a "
                     "binding, an item, or a type parameter")
        for arm in e.arms:
            # the binding is what the arm's type pattern catches (`string => e`), else unknown
            bt = self.arm_narrows(arm.pattern, None)
            if bt is UNKNOWN and e.kind == "catch_all_panics":  # any panic: one of the panic classes
                bt = _ANY_PANIC
            self.scopes.append({e.binding: Var(e.binding, bt)})
            if e.ctx is not None:
                self.scopes[-1][e.ctx] = Var(e.ctx, UNKNOWN)
            self.pattern(arm.pattern, UNKNOWN)
            if arm.guard is not None:
                self.expr(arm.guard, UNKNOWN)
            ts.append(self.arm_body(arm.body, expected))
            body = arm.body
            if (held and isinstance(body, ast.BlockExpr) and body.block.tail is None
                    and ts[0] not in (UNKNOWN, NULL, VOID, NEVER) and not any(map(_diverges, body.block.stmts))):
                self.missing_value(body.block, ts[0])
            self.scopes.pop()
        if UNKNOWN in ts:
            return UNKNOWN
        return T.union(*ts) if expected is not UNKNOWN else T.union(*map(widen, ts))


class FutureT(T.StdT):
    """`spawn { … }`'s future, with the type of the value `await` gives (unknown when unsure)."""
    __slots__ = ("value",)

    def __init__(self, value: T.Type):
        super().__init__("class", "baml.future.Future")
        self.value = value


class LambdaT(FuncT):
    """A lambda's type; `node` is the lambda (its `throws` effect is inferred from it)."""
    __slots__ = ("node",)


class FnRefT(FuncT):
    """A named function used as a value; `fd` is the function."""
    __slots__ = ("fd",)


class NativeFuncT(FuncT):
    """A stdlib method's type (its defaults are unknown: only excess arguments are errors);
    `open` keeps the method's own type parameters (`map<U>`), which the type leaves unknown;
    `strict`: its declared signature is exact (missing arguments are errors too); `through`:
    it throws what its callbacks throw (`map<U, E>(f: (T) -> U throws E) -> U[] throws E`)."""
    __slots__ = ("open", "strict", "generic", "through")

    def __init__(self, params, ret, throws=None):
        super().__init__(params, ret, throws)
        self.open = None
        self.strict = False
        self.generic = False  # declared with type parameters (`filter<E>`, `map<U, E>`)
        self.through = False


REFLECT_TYPE = sreflect.TYPE  # a `reflect.Type` value
ANY_CLASS = T.StdT("anyclass", "reflect.AnyClass")  # a class instance, known by that interface
_CALL_ANY_ERRORS = (T.StdT("class", "reflect.InvalidArgumentError"), T.StdT("class", "reflect.errors.CompilationError"))
_RNG = T.StdT("stdiface", "baml.random.Rng")  # the interface the generators implement (methods: stdsigs)
_ANY_PANIC = T.union(*(T.StdT("class", c) for c in sorted(stdsigs.PANIC_CLASSES)))  # `baml.panics.Panic`
_KIND_OF = {Arr: "array", MapT: "map", INT: "int", FLOAT: "float", STRING: "string",
            BOOL: "bool", NULL: "null", T.BIGINT: "bigint", T.BYTES: "uint8array",
            **{T.StdT("class", c): k for c, k in stdsigs.STD_CLASS_KINDS.items()}}
_STRICT_KINDS = frozenset(stdsigs.STD_CLASS_KINDS.values())
# stdlib packages whose functions sema/stdsigs.py lists whole (with those it declares but Assay
# does not run): a call of another lower-case name there is unresolved (E0003)
_LISTED_PACKAGES = {"yaml": (), "toml": (), "hash": (), "crypto": (), "json": (),
                    "csv": ("open", "read", "write", "writer", "create")}
# every item of `baml.regex` (BAML's ns_regex/regex.baml): any other name there is unresolved
_REGEX_NAMES = frozenset("Regex Match Group Error ErrorKind new _compile escape _replace "
                         "_replace_literal_with _replace_pattern_with _literal_match _index_of_from".split())
_DURATION = T.StdT("class", "baml.time.Duration")
MODIFIER = "baml.spawn.Modifier"  # what `spawn with` takes


def _same_types(got, want) -> bool:
    """Types resolved from two signatures are the same (None: not the shape wanted); what the
    checker does not know passes."""
    return got is not None and len(got) == len(want) and all(
        a == b or T.has_unknown(a) or T.has_unknown(b) for a, b in zip(got, want))


# `baml.env.Ref`'s methods, each a read of the environment variable it names
_ENV_REF_METHODS = {"get": NativeFuncT((), T.union(STRING, NULL), NEVER),
                    "get_or_panic": NativeFuncT((), STRING, NEVER),
                    "or": NativeFuncT((("fallback", STRING, False),), STRING, NEVER)}
_OP_METHOD_OF = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "rem"}


def _unknown_client_item(path: list[str]) -> bool:
    """`openai.NoSuch.new`, `ai.clients.Fallback.new`: no such item in a client package (a class
    modelled whole has no other statics; an unmodelled one, `openai.DecisionsClient`, may)."""
    if path[0] not in stdsigs.CLIENT_PACKAGES and path[:2] != ["ai", "clients"] or len(path) < 3:
        return False
    return ".".join(path[:-1]) in stdsigs.STD_CLASSES or path[-2] not in STDLIB_TYPE_NAMES


def _is_time(t: T.Type) -> bool:
    return isinstance(t, T.StdT) and t.name.startswith("baml.time.")


def _fresh_literal(e, lookup) -> bool:
    """Is `e`'s literal type written in `e` itself (`"a"`, `-1`, `1 << 63`, an `if` or `match`
    of such, a variable a literal was just written to)? A `let` widens only those, as the
    engine does: a value of a declared literal type (`r.status`, such a parameter, a call)
    keeps it."""
    if isinstance(e, ast.Name):
        v = lookup(e.name)
        return v is None or not any(isinstance(m, Lit) for m in T.members(v.ty))
    if isinstance(e, ast.Unary):
        return _fresh_literal(e.operand, lookup)
    if isinstance(e, ast.Binary):
        return _fresh_literal(e.left, lookup) and _fresh_literal(e.right, lookup)
    if isinstance(e, ast.BlockExpr):
        return e.block.tail is None or _fresh_literal(e.block.tail, lookup)
    if isinstance(e, ast.If):
        return all(_fresh_literal(b.tail, lookup) for b in (e.then, e.else_) if b is not None and b.tail is not None)
    if isinstance(e, ast.Match):
        return all(_fresh_literal(a.body, lookup) for a in e.arms)
    return not isinstance(e, (ast.Field, ast.Call, ast.Index))


def _thrown_classes() -> set:
    """The stdlib error classes its signatures declare they throw (`baml.json.DecodeError`):
    types a `throws` clause or a catch arm names, though the checker models no fields of theirs."""
    sigs = [*stdsigs.FUNCTIONS.values(), *(s for ms in stdsigs.METHODS.values() for s in ms.values()),
            *(s for ms in stdsigs.STD_CLASS_METHODS.values() for s in ms.values() if isinstance(s, str))]
    return {n.strip() for s in sigs if " throws " in s for n in s.rpartition(" throws ")[2].split("|")
            if re.fullmatch(r"\w+(\.\w+)+", n.strip())}


# the stdlib types the checker models (sema/stdsigs.py), as the resolver names them
_STD_TYPES = {**{c: T.StdT("class", c) for c in _thrown_classes()},
              **{c: T.StdT("class", c) for c in stdsigs.STD_CLASSES},
              **{n: T.StdT("enum", n) for n in stdsigs.STD_ENUM_VARIANTS},
              **{n: T.StdT("iface", n) for n in stdsigs.STD_IFACES},
              **{f"{n}.{v}": T.StdT("variant", n, v) for n, vs in stdsigs.STD_ENUM_VARIANTS.items() for v in vs}}
# The operator interfaces' methods that a builtin type implements for several right-hand types
# (`int` is `Add<int>`, `Add<float>` and `Add<bigint>`): a direct call is ambiguous (E0121), in
# the engine's order of the impls.
_OP_IFACES = {"add": "Add", "sub": "Subtract", "mul": "Multiply", "div": "Divide", "rem": "Remainder",
              "bit_and": "BitAnd", "bit_or": "BitOr", "bit_xor": "BitXor", "shl": "ShiftLeft",
              "shr": "ShiftRight"}
_ARITH_METHODS = ("add", "sub", "mul", "div", "rem")
_BIT_METHODS = ("bit_and", "bit_or", "bit_xor", "shl", "shr")
_AMBIGUOUS_OPS = {
    "int": {**dict.fromkeys(_ARITH_METHODS, ("int", "float", "bigint")),
            **dict.fromkeys(_BIT_METHODS, ("int", "bigint"))},
    "float": dict.fromkeys(_ARITH_METHODS, ("float", "int")),
    "bigint": {**dict.fromkeys(_ARITH_METHODS, ("bigint", "int")), **dict.fromkeys(_BIT_METHODS, ("int", "bigint"))},
}

# members of builtin types the engine has beyond the signatures in stdsigs (operator
# interfaces, statics reachable through a value, private helpers): any other is E0007
_ENGINE_MEMBERS = {k: frozenset(v.split()) | frozenset(stdsigs.METHODS.get(k, ())) for k, v in {
    "int": "_random_in_range add bit_and bit_or bit_xor div from_json hash max_value min_value "
           "mul neg parse random rem shl shr sub to_json",
    "float": "_unit_from_draw add div e epsilon from_json golden_ratio hash inf max_finite "
             "min_finite mul nan neg parse pi random rem sub to_json",
    "string": "_as_string _replace_all_literal _replace_literal add from from_code_points "
              "from_json from_utf8 hash iter to_json",
    "bool": "from_json hash random to_json",
    "null": "from_json hash to_json",
    "bigint": "add bit_and bit_or bit_xor div from_json hash mul parse random rem shl shr sub to_json",
    "array": "filled from_json generate hash index to_json",
    "map": "from_json hash to_json",
}.items()}


_CONTAINER_MEMBERS = _ENGINE_MEMBERS["array"] | _ENGINE_MEMBERS["map"] | _EVERY_TYPE_METHODS


def _elem_lacks(elem: T.Type, name: str) -> bool:
    """Array methods only some element types have in the engine's stdlib."""
    if name == "sum":
        return elem is not INT and elem is not FLOAT
    if name in ("mean", "median"):
        return elem is not FLOAT
    if name == "sort":
        return isinstance(elem, (Union, MapT, Arr, EnumT)) or _is_time(elem)  # no `Compare`
    return False


_NATIVE_PARSED: dict = {}  # sig text -> (TFunc, generics, defaulted parameters) | None
# a defaulted parameter of a method signature (`time: T? = null`): its default is the native's own
_DEFAULT = re.compile(r"\s*=\s*(?:\"[^\"]*\"|[^,)]+)")
_DEFAULTED = re.compile(r"(\w+):[^,=]*=")


def _native_sig(kind: str, name: str, checker: "Checker"):
    """Parse a stdlib method's declared signature (sema/stdsigs.py) into a FuncT over the type
    variables T U K V Self …; None when unknown."""
    decl = stdsigs.METHODS.get(kind, {}).get(name)
    if decl is None:
        return None
    parsed = _NATIVE_PARSED.get(decl, False)
    if parsed is False:
        sig = decl.strip()
        gens = {"T", "U", "K", "V", "E", "Self"}
        if sig.startswith("<"):
            j = sig.index(">")
            gens |= {g.strip().split()[0] for g in sig[1:j].split(",") if g.strip()}
            sig = sig[j + 1:].strip()
        defaulted = frozenset(m.group(1) for m in _DEFAULTED.finditer(sig))
        te, diags = parse_type(SourceFile("<stdlib>", _DEFAULT.sub("", sig)))
        parsed = (te, gens, defaulted) if te is not None and not diags and isinstance(te, ast.TFunc) else None
        _NATIVE_PARSED[decl] = parsed
    if parsed is None:
        return None
    te, gens, defaulted = parsed
    save = (checker.ns, checker.generics, checker.diags)
    checker.ns, checker.generics, checker.diags = None, gens, []
    try:
        t = checker.resolve_std(te)
    finally:
        checker.ns, checker.generics, checker.diags = save
    if not isinstance(t, FuncT):
        return None
    # a parameter whose type refers to stdlib types (baml.*) is UNKNOWN; keep the shape
    return FuncT(tuple((n, p, n in defaulted) for n, p, _ in t.params), t.ret, None)


_TYPED_SIGS: dict = {}
# stdlib functions whose signatures name `json`: their arguments are checked, they return it
# stdlib namespaces and classes: names of no value (`let x = baml.json` is unresolved)
_STD_NON_VALUES = frozenset({k.rsplit(".", n)[0] for k in stdsigs.FUNCTIONS for n in range(1, k.count(".") + 1)}
                            | set(stdsigs.STD_CLASSES) | set(stdsigs.STD_ENUM_VARIANTS)) - set(stdsigs.FUNCTIONS)
_JSON_STD = frozenset(("baml.json.parse", "baml.json.from", "baml.json.field"))


def _typed_sig(path: str, checker: "Checker") -> tuple[list[str], list, T.Type]:
    """(type parameters, params as check_args takes them, return type) of a generic stdlib
    function (sema/stdsigs.py); a stdlib type named in it (`baml.json.Naming`) is unknown."""
    got = _TYPED_SIGS.get(path)
    if got is None:
        sig = stdsigs.FUNCTIONS[path]
        gens = [g.strip() for g in sig[1:sig.index(">")].split(",")] if sig.startswith("<") else []
        ret_text = sig[sig.rindex("->") + 2:].split(" throws ")[0].strip()
        texts = [(n, _param_type_text(sig, n), d) for n, d in _std_param_names(path)]
        save = (checker.ns, checker.generics, checker.diags)
        checker.ns, checker.generics, checker.diags = None, set(gens), []
        try:
            params = [(n, checker.resolve_std(_parse_std_type(t)), d) for n, t, d in texts]
            ret = checker.resolve_std(_parse_std_type(ret_text))
        finally:
            checker.ns, checker.generics, checker.diags = save
        got = _TYPED_SIGS[path] = (gens, params, ret)
    return got


_METHOD_SIGS: dict = {}


def _method_sig(sig: str, checker: "Checker") -> tuple[list[str], list, T.Type]:
    """(type parameters, params as check_args takes them, return type) of a stdlib method's
    signature text (sema/stdsigs.STD_CLASS_METHODS)."""
    got = _METHOD_SIGS.get(sig)
    if got is None:
        gens = [g.strip() for g in sig[1:sig.index(">")].split(",")] if sig.startswith("<") else []
        body = sig[sig.index(">") + 1:] if gens else sig
        ps = body[body.index("(") + 1:body.index(")")]
        ret_text = body[body.rindex("->") + 2:].split(" throws ")[0].strip()
        save = (checker.ns, checker.generics, checker.diags)
        checker.ns, checker.generics, checker.diags = None, set(gens), []
        try:
            params = [(n.strip(), checker.resolve_std(_parse_std_type(t.strip())), False)
                      for n, _, t in (p.partition(":") for p in ps.split(",") if p.strip())]
            ret = checker.resolve_std(_parse_std_type(ret_text))
        finally:
            checker.ns, checker.generics, checker.diags = save
        got = _METHOD_SIGS[sig] = (gens, params, ret)
    return got


def _param_type_text(sig: str, name: str) -> str:
    """The type text of parameter `name` in a signature (up to its default or the next one)."""
    at = sig.find(f"({name}:")
    at = at if at >= 0 else sig.index(f", {name}:") + 1
    rest = sig[at + len(name) + 2:]
    depth = 0
    for i, ch in enumerate(rest):
        depth += ch in "(<["
        depth -= ch in ")]" or (ch == ">" and rest[i - 1] != "-")  # `->` closes nothing
        if depth < 0 or (depth == 0 and ch in ",="):
            return rest[:i].strip()
    return rest.strip()


def _parse_std_type(text: str):
    te, diags = parse_type(SourceFile("<stdlib>", text))
    return te if te is not None and not diags else None


def _std_prim_ret(sig: str) -> T.Type | None:
    """The result of a non-generic stdlib function returning a primitive (`int.max_value()`
    is an `int`, not its value's literal type); None otherwise."""
    if sig.startswith("<"):
        return None
    ret = sig.rsplit("->", 1)[1].split(" throws ")[0].strip()
    return {"int": INT, "float": FLOAT, "string": STRING, "bool": BOOL}.get(ret)


_STD_PARAMS: dict = {}


def _std_param_names(path: str) -> list[tuple[str, bool]]:
    """(name, has a default) of each parameter of a stdlib function (sema/stdsigs.py)."""
    got = _STD_PARAMS.get(path)
    if got is None:
        sig = stdsigs.FUNCTIONS.get(path, "")
        got = [(n, d) for n, _, d in sreflect.split_params(sig[sig.index("("):])[0]] if sig else []
        _STD_PARAMS[path] = got
    return got


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


def _hole_span(p: ast.Expr) -> Span:
    """An interpolated expression's span from its hole's `{` (where the engine reports)."""
    sp = p.span
    text = sp.file.text
    i = sp.start - 1
    while i > 0 and text[i] in " \t\n":
        i -= 1
    return Span(sp.file, i, sp.end) if i >= 0 and text[i] == "{" else sp


_STD_THROWS: dict = {}


def _callback_throws(sig: str) -> bool:
    """Does a stdlib signature throw just what its callbacks do (`map<U, E>(f: (T) -> U
    throws E) -> U[] throws E`)?"""
    head, found, th = sig.rpartition(" throws ")
    return bool(found) and all(re.search(rf"throws {re.escape(n.strip())}\b", head)
                               for n in th.split("|"))


def _std_throws(sig: str) -> T.Type:
    """What a stdlib signature declares it throws (a stdlib type known by name)."""
    t = _STD_THROWS.get(sig)
    if t is None:
        _, found, th = sig.rpartition(" throws ")
        th = th if found else ""
        names = [n.strip() for n in th.split("|")] if th else []
        t = (UNKNOWN if any("." not in n for n in names)  # a type variable: per call
             else T.union(*(T.StdT("class", n) for n in names)))
        _STD_THROWS[sig] = t
    return t


def _is_unknown(te) -> bool:
    return isinstance(te, ast.TName) and te.path == ["unknown"] and not te.args


def _fixed_by(ret: T.Type, expected: T.Type) -> frozenset:
    """The type parameter a `-> T` call's expected type fixes (`let x: int[] = id([])`)."""
    return frozenset({ret.name}) if isinstance(ret, TVar) and _sure_scrutinee(expected) \
        and not T.has_tvar(expected) else frozenset()


def _call_env(fd: FunctionDef, params, e: ast.Call, env: dict) -> dict:
    """The type arguments of a call to a generic function, for what it throws: the explicit
    ones, and those a positional argument binds directly (`g(1)` for `g<T>(x: T)`)."""
    if not interfaces.call_generics(fd):
        return env
    out = dict(env)
    for (name, pt, _), a in zip(params, e.args):
        if a.name is None and isinstance(pt, TVar) and pt.name not in out and a.value.ty is not None:
            out[pt.name] = widen(a.value.ty)
    for name, pt, _ in params:  # `f: (T) -> U throws E`: E is what the function passed for f throws
        if isinstance(pt, FuncT) and isinstance(pt.throws, TVar) and pt.throws.name not in out:
            out[("via", pt.throws.name)] = name
    return out


def _void_is_null(t: T.Type) -> T.Type:
    return NULL if t is VOID else t  # a void call's value is null to the engine's operators


def _operator_result(op: str, a: T.Type, b: T.Type) -> T.Type | None:
    """The result of `a op b` for builtin operand types (None: no such operator)."""
    if T.BIGINT in (a, b) and a in (T.BIGINT, INT) and b in (T.BIGINT, INT):
        return T.BIGINT
    if op in _BITS:
        return INT if a is INT and b is INT else None
    if a in (INT, FLOAT) and b in (INT, FLOAT):
        return INT if a is INT and b is INT else FLOAT
    return STRING if op == "+" and a is STRING and b is STRING else None


def _fold_literals(op, lt: Lit, rt: Lit) -> "T.Type | None":
    """The literal type of an operator over two literals the engine folds: bigint arithmetic
    and comparisons; None where it does not fold."""
    a, b = lt.value, rt.value
    if op in _ORDER:
        if (lt.base is T.BIGINT) != (rt.base is T.BIGINT) or lt.base is not rt.base and T.BIGINT not in (lt.base, rt.base):
            return None
        r = {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]
        return T.lit_bool(r)
    if lt.base is not T.BIGINT or rt.base is not T.BIGINT:  # `2n + 3` is not folded
        return None
    a, b = int(a), int(b)
    if op in ("/", "%"):
        if b == 0:
            return None
        q = abs(a) // abs(b)
        r = (q if (a >= 0) == (b >= 0) else -q) if op == "/" else (abs(a) % abs(b)) * (1 if a >= 0 else -1)
    elif op in ("<<", ">>"):
        if b < 0 or b > 4096:
            return None
        r = a << b if op == "<<" else a >> b
    elif op in ("+", "-", "*", "&", "|", "^"):
        r = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}[op]
    else:
        return None
    return Lit(ast.BigLit(r), T.BIGINT)


def _fold_bits(op, a: int, b: int) -> T.Type:
    """`&`, `|`, `^`, `<<`, `>>` of two int literals as the engine folds them (`<<` wraps to 63
    bits, counts of 63 and more give 0 / the sign); a negative count does not fold."""
    if op in ("&", "|", "^"):
        return T.lit_int({"&": a & b, "|": a | b, "^": a ^ b}[op])
    if b < 0:
        return INT
    if op == "<<":
        r = (a << b) & ((1 << 63) - 1) if b < 63 else 0
        return T.lit_int(r - (1 << 63) if r >= 1 << 62 else r)
    return T.lit_int(a >> b if b < 63 else (-1 if a < 0 else 0))


def _fold(op, a, b) -> T.Type:
    try:
        if op == "+":
            r = a + b
        elif op == "-":
            r = a - b
        elif op == "*":
            r = a * b
        elif op == "/":
            if b == 0:
                return INT
            q = abs(a) // abs(b)
            r = q if (a >= 0) == (b >= 0) else -q
        else:
            if b == 0:
                return INT
            r = abs(a) % abs(b)
            r = r if a >= 0 else -r
    except Exception:
        return INT
    if -(1 << 62) <= r < (1 << 62):
        return T.lit_int(r)
    return INT


def _simple(t: T.Type) -> bool:
    """A primitive (or literal), or an optional one: the operand types whose operator
    errors are sure."""
    ms = T.members(t)
    if len(ms) > 2 or (len(ms) == 2 and NULL not in ms):
        return False
    for m in ms:
        if T.base(m) not in (INT, FLOAT, STRING, BOOL, NULL):
            return False
    return True


def _diverges(s) -> bool:
    """Does this statement surely leave its block, as the engine's missing-value check sees
    it: `return`/`throw`/`break`/`continue`, an if/else, block or match whose every way out
    does, or `while (true)` without a `break` of its own (a call returning `never` does not)."""
    if isinstance(s, (ast.Return, ast.Throw, ast.Break, ast.Continue)):
        return True
    if isinstance(s, ast.While):
        return isinstance(s.cond, ast.BoolLit) and s.cond.value and not _breaks(s.body)
    return isinstance(s, ast.ExprStmt) and _diverges_expr(s.expr)


def _diverges_expr(e) -> bool:
    if isinstance(e, ast.Diverge):
        return True
    if isinstance(e, ast.BlockExpr):
        return _block_diverges(e.block)
    if isinstance(e, ast.If):
        return e.else_ is not None and _block_diverges(e.then) and _block_diverges(e.else_)
    if isinstance(e, ast.Match):
        return bool(e.arms) and all(_diverges_expr(a.body) for a in e.arms)
    return False


def _block_diverges(b: ast.Block) -> bool:
    return any(map(_diverges, b.stmts)) or (b.tail is not None and _diverges_expr(b.tail))


_LOOPS = (ast.While, ast.WhileLet, ast.ForIn, ast.ForC, ast.Lambda)


def _breaks(node) -> bool:
    """Does a `break` of this loop body (not of a nested loop or lambda) occur in it?"""
    return _occurs(node, ast.Break, _LOOPS)


def _occurs(node, kind, inside) -> bool:
    """Does a node of `kind` occur in `node`, outside nested nodes of kind(s) `inside`?"""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, kind):
            return True
        if isinstance(n, (list, tuple)):
            todo.extend(n)
        elif hasattr(n, "__dataclass_fields__") and not isinstance(n, inside) and \
                type(n).__module__ == ast.__name__:
            todo.extend(v for k, v in vars(n).items() if k not in ("span", "ty"))
    return False


def _sure_scrutinee(t: T.Type) -> bool:
    """A type whose every member the checker knows well enough to tell a pattern misses it."""
    return all(m == _ENV_REF or (
        isinstance(m, (T.Prim, Lit, ClassT, EnumT, Arr, MapT)) and m is not UNKNOWN
        and not T.has_unknown(m) and not T.has_tvar(m) and not _opaque(m)) for m in T.members(t))


def _irrefutable(p) -> bool:
    return isinstance(p, ast.PWild) or (isinstance(p, ast.PBind) and p.type is None)


def _variant_like(te) -> bool:
    return isinstance(te, ast.TName) and len(te.path) == 2 and te.path[0] != "root"


JSON_ARR, JSON_MAP = T.Arr(T.JSON), T.MapT(STRING, T.JSON)  # what json literals build
_ESCAPED = object()  # in Var.literals: the variable's value reached an opaque place


def _expected_class(ct: ClassT, expected: T.Type) -> ClassT:
    """A generic class literal written without type arguments (`Box { value: 1 }`) takes the
    expected type's (`Box<int?>`), as the engine infers them: its instance records those."""
    ms = [m for m in T.members(expected) if isinstance(m, ClassT) and m.cls is ct.cls and m.args]
    if len(ms) == 1 and not any(a is UNKNOWN for a in ms[0].args):
        return ms[0]
    return ct


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


def _records(e) -> None:
    """A container literal, and the literals nested in it, record their element types."""
    if isinstance(e, ast.ArrayLit):
        e.records = True
        for x in e.items:
            _records(x)
    elif isinstance(e, ast.MapLit):
        e.records = True
        for _, x in e.entries:
            _records(x)
    elif isinstance(e, ast.Call):
        e.records = True  # `xs.map(f)`: a new array records its type (mir/lower.py `_fresh_container`)


def _sole(t: T.Type, kind) -> T.Type:
    """The one container type of `kind` (Arr, MapT) a union names (`json[]?`), else `t`."""
    if not isinstance(t, Union):
        return t
    ms = [m for m in t.members if isinstance(m, kind)]
    return ms[0] if len(ms) == 1 else t


_JOIN_RANK = {INT: 0, T.BIGINT: 1, FLOAT: 2, STRING: 3, BOOL: 4, NULL: 9}


def _join_key(t: T.Type) -> tuple:
    if isinstance(t, Arr):
        return (7, _join_key(t.elem))
    if isinstance(t, MapT):
        return (8, _join_key(t.key), _join_key(t.val))
    return (5,) if isinstance(t, ClassT) else (6,) if isinstance(t, EnumT) else (_JOIN_RANK.get(t, 10),)


def _joined(ts: list) -> T.Type:
    """The element type inferred from a literal's items, its members in the engine's order (int,
    bigint, float, string, bool, classes, enums, arrays, maps, null: `["a", 1]` is
    `(int | string)[]`)."""
    u = T.union(*(T.widen_scalar(t) for t in ts))
    return T.union(*sorted(u.members, key=_join_key)) if isinstance(u, Union) else u


def _hollow(e) -> bool:
    """A literal made only of empties (`[]`, `[[], []]`, `{"k": {}}`): its type is unknown."""
    return _empty_hole(e) is not None


def _shaped(e, t: T.Type) -> bool:
    """Can hollow literal `e` be of container type `t`?"""
    if isinstance(e, ast.ArrayLit):
        return isinstance(t, Arr) and all(_shaped(x, t.elem) for x in e.items)
    return isinstance(t, MapT) and all(
        (isinstance(k, ast.StrLit) and t.key is STRING or isinstance(k, ast.IntLit) and t.key is INT)
        and _shaped(v, t.val) for k, v in e.entries)


def _plan_member(t, name: str) -> T.Type:
    """A `baml.spawn.Plan`'s field (its methods: unknown here, but `wrap` where called)."""
    return {"body": FuncT((), t.value, t.error), "name": T.union(STRING, NULL), "limits": Arr(UNKNOWN),
            "cancel_tokens": Arr(UNKNOWN), "root": BOOL}.get(name, UNKNOWN)


def _free_generics(impl) -> bool:
    """An `implements<…> I for C<…>` block with a type parameter its target does not name: the
    engine makes its methods no members of C (a value typed `I<…>` calls them)."""
    target = impl.decl.target if impl is not None else None
    if target is None or not impl.decl.generics:
        return False
    named = {x.path[0] for x in sreflect.walk(target) if isinstance(x, ast.TName) and len(x.path) == 1}
    return any(g.name not in named for g in impl.decl.generics)


def _holds_container(t: T.Type) -> bool:
    """Whether a value of type `t` may be an array or map: a literal given where `t` is declared
    (returned, a field's, an argument's) records it, as the engine's does (Checker.escape)."""
    return any(isinstance(m, (T.Arr, T.MapT)) for m in T.members(t))


def _opaque(t: T.Type) -> bool:
    """Whether a value of type `t` may be an array or map whose element types `t` does not
    tell (see Checker.escape)."""
    ms = T.members(t)
    return (T.has_unknown(t) or T.has_tvar(t) or any(isinstance(m, T.IfaceT) for m in ms)
            or sum(isinstance(m, T.Arr) for m in ms) > 1 or sum(isinstance(m, T.MapT) for m in ms) > 1)


def is_cleanup_shape(d: ast.Function) -> bool:
    """A class's magic finalizer `function cleanup(self) -> void` (`-> null` too; at most
    `throws never`): its body runs once per instance (mir/lower.py)."""
    void = (isinstance(d.ret, ast.TName) and d.ret.path == ["void"] and not d.ret.args) or (
        isinstance(d.ret, ast.TLiteral) and d.ret.value is None)
    return (d.has_self and not d.params and not d.generics and void
            and (d.throws is None or (isinstance(d.throws, ast.TName) and d.throws.path == ["never"])))


def _expected_instance(ct: ClassT, expected: T.Type) -> ClassT:
    """A generic class literal written without type arguments, where one instance of its class
    is expected (`Box<int>`, `Box<int>?`): that instance's arguments; else as it stands."""
    same = [m for m in T.members(T.base(expected)) if isinstance(m, ClassT) and m.cls is ct.cls]
    if len(same) == 1 and not T.has_unknown(same[0]) and all(a is UNKNOWN for a in ct.args):
        return same[0]
    return ct


def _declares(it: IfaceT, name: str) -> bool:
    """Does interface type `it` (or one it requires) declare a field or method `name`?"""
    return any(i.field(name) is not None or name in i.methods for i in it.iface.ancestors())


def _mentions(t: T.Type, name: str) -> bool:
    if isinstance(t, TVar):
        return t.name == name
    if isinstance(t, Arr):
        return _mentions(t.elem, name)
    if isinstance(t, MapT):
        return _mentions(t.key, name) or _mentions(t.val, name)
    if isinstance(t, Union):
        return any(_mentions(m, name) for m in t.members)
    if isinstance(t, (ClassT, IfaceT)):
        return any(_mentions(a, name) for a in t.args)
    if isinstance(t, FuncT):  # `() -> int throws E`: a callback's `throws` binds E too
        return _mentions(t.ret, name) or any(_mentions(p[1], name) for p in t.params) or (
            t.throws is not None and t.throws is not UNKNOWN and _mentions(t.throws, name))
    if isinstance(t, T.IterT):
        return _mentions(t.item, name)
    if isinstance(t, AnyFnT):
        return _mentions(t.ret, name) or _mentions(t.throws, name)
    return t is UNKNOWN  # not read: may mention it


def _is_covered(left, a) -> bool:
    """Is `a` (of covered_arms) already matched, given one member's `left`?"""
    if isinstance(left, set):
        return not left if a is ALL else (a not in left if a != "part" else False)
    covered, seen = left
    if isinstance(a, tuple) and a[0] in ("len", "len+"):
        return covered or _lengths_covered(seen, a)
    return covered or (isinstance(a, tuple) and a[1] in seen)


def _lengths_covered(seen: set, a: tuple) -> bool:
    """Do the array patterns seen (`("len", n)` exactly n items, `("len+", n)` at least n) match
    every array `a` matches?"""
    exact = {x[1] for x in seen if isinstance(x, tuple) and x[0] == "len"}
    rest = min((x[1] for x in seen if isinstance(x, tuple) and x[0] == "len+"), default=None)
    if a[0] == "len":
        return a[1] in exact or (rest is not None and rest <= a[1])
    return rest is not None and all(k in exact for k in range(a[1], rest))


def _cover(left, a) -> None:
    if isinstance(left, set):
        if a is ALL:
            left.clear()
        else:
            left.discard(a)
    elif a is ALL:
        left[0] = True
    elif isinstance(a, tuple) and a[0] in ("len", "len+"):
        left[1].add(a)
        left[0] = left[0] or _lengths_covered(left[1], ("len+", 0))  # every length: every array
    elif isinstance(a, tuple):
        left[1].add(a[1])


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


def _empty_hole(e) -> Span | None:
    """The first empty `[]` / `{}` of a literal made only of empties (`[]`, `[[]]`,
    `{"k": []}`): its type cannot be inferred without a use."""
    if isinstance(e, ast.ArrayLit):
        if not e.items:
            return e.span
        holes = [_empty_hole(x) for x in e.items]
        return holes[0] if all(holes) else None
    if isinstance(e, ast.MapLit):
        if not e.entries:
            return e.span
        holes = [_empty_hole(v) for _, v in e.entries]
        return holes[0] if all(holes) else None
    return None


def _mark_narrowing(c) -> None:
    """An `is` test an `if` narrows by: the engine checks its pattern against the tested type
    as a match arm's (`u is (int | string)[]` of an `int[] | string` is E0001 there only)."""
    todo = [c]
    while todo:
        c = todo.pop()
        if isinstance(c, ast.Unary) and c.op == "!":
            todo.append(c.operand)
        elif isinstance(c, ast.Binary) and c.op in ("&&", "||"):
            todo += [c.left, c.right]
        elif isinstance(c, ast.Is):
            c.narrows = True


def _overlaps(a: T.Type, b: T.Type) -> bool:
    """May a value be of both types (`int[]` and `(int | string)[]`: an `int[]` may)?"""
    if isinstance(a, Union) or isinstance(b, Union):
        return any(_overlaps(x, y) for x in T.members(a) for y in T.members(b))
    if isinstance(a, Arr) and isinstance(b, Arr):
        return _overlaps(a.elem, b.elem)
    if isinstance(a, MapT) and isinstance(b, MapT):
        return _overlaps(a.key, b.key) and _overlaps(a.val, b.val)
    return assignable(a, b) or assignable(b, a)


def _literal_equal(lt: T.Type, rt: T.Type, e) -> bool | None:
    """Are two operands of literal types equal (the engine folds `==` of literals), or None."""
    if isinstance(lt, Lit) and isinstance(rt, Lit):
        return lt.base is rt.base and lt.value == rt.value
    if lt is NULL or rt is NULL:
        return None if not (isinstance(lt, Lit) or lt is NULL) or not (isinstance(rt, Lit) or rt is NULL) \
            else lt is rt
    floats = [getattr(e, k, None) for k in ("left", "right")]
    if all(isinstance(x, ast.FloatLit) for x in floats):
        return floats[0].value == floats[1].value
    return None


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


def _open_holes(e) -> list:
    """The empty `[]` / `{}` of literal `e` whose element type nothing in it fixes (`[1, []]`,
    `{"a": [1], "b": []}`, `[[], []]`): the engine needs a type annotation for each."""
    holes: list = []
    if isinstance(e, (ast.ArrayLit, ast.MapLit)):
        _lit_shape(e, holes)
    return [h.span for h in holes if h.open]


def _arg_type(e: ast.Expr) -> T.Type:
    """An argument's type as a type parameter takes it: a literal type only from a literal."""
    t = getattr(e, "ty", None) or UNKNOWN
    lit = any(isinstance(m, Lit) for m in T.members(t))
    return UNKNOWN if lit and not isinstance(e, (ast.IntLit, ast.StrLit, ast.BoolLit)) else t


_LEAVES = (ast.IntLit, ast.StrLit, ast.BoolLit, ast.FloatLit, ast.NullLit, ast.Name)


def _literal_tree(v) -> bool:
    """Array and map literals (string keys) of scalar literals and variables, or one of those."""
    if isinstance(v, ast.ArrayLit):
        return all(map(_literal_tree, v.items))
    if isinstance(v, ast.MapLit):
        return all(isinstance(k, ast.StrLit) and _literal_tree(x) for k, x in v.entries)
    return isinstance(v, _LEAVES)


def _tree_type(v, leaf_type) -> T.Type | None:
    """A literal tree's type as a type parameter takes it (`[[1]]`: `int[][]`); None when its
    elements differ (or it is empty)."""
    if isinstance(v, (ast.ArrayLit, ast.MapLit)):
        items = v.items if isinstance(v, ast.ArrayLit) else [x for _, x in v.entries]
        ts = [_tree_type(x, leaf_type) for x in items]
        if not ts or any(t is None for t in ts) or any(not T.same(t, ts[0]) for t in ts):
            return None
        return Arr(ts[0]) if isinstance(v, ast.ArrayLit) else MapT(STRING, ts[0])
    t = leaf_type(v)
    return widen(t) if _sure_scrutinee(t) or t is NULL else None


def _binds(pairs: list) -> dict:
    """Type variables bound by matching (parameter type, argument type) pairs structurally;
    one bound two ways stays unbound."""
    out: dict = {}
    bad: set = set()
    todo = list(pairs)
    while todo:
        pt, at = todo.pop()
        if isinstance(pt, TVar):
            if not _sure_scrutinee(at) or out.get(pt.name, at) != at:
                bad.add(pt.name)
            out[pt.name] = at
        elif isinstance(pt, Arr) and isinstance(at, Arr):
            todo.append((pt.elem, at.elem))
        elif isinstance(pt, MapT) and isinstance(at, MapT):
            todo += [(pt.key, at.key), (pt.val, at.val)]
        elif (isinstance(pt, ClassT) and isinstance(at, ClassT) and pt.cls is at.cls
              and len(pt.args) == len(at.args)):
            todo += list(zip(pt.args, at.args))
        elif isinstance(pt, T.IterT) and pt.cls == "Iterable" and _iterable_item(at) is not UNKNOWN:
            todo.append((pt.item, _iterable_item(at)))  # `Iterable<Item = T>` from what it iterates
        elif isinstance(pt, AnyFnT) and isinstance(at, (FuncT, AnyFnT)) and not T.has_tvar(at.ret):
            todo.append((pt.ret, _void_is_null(at.ret)))  # `Returns = T` binds T to the result
    return {k: v for k, v in out.items() if k not in bad}


# `baml.iter.Iterator`'s methods (ns_iter/iter.baml), by the arguments they take
_ITER_METHODS = {"next": "", "iter": "", "peekable": "", "collect": "", "count": "",
                 "map": "fn", "filter": "pred", "filter_map": "fn", "flat_map": "fn", "step_by": "n",
                 "chain": "other", "take": "n", "skip": "n", "take_while": "pred", "skip_while": "pred",
                 "reduce": "reduce", "for_each": "fn", "some": "pred", "every": "pred", "find": "pred"}
# the public fields of the iterator classes that have state of their own
_ITER_FIELDS = {"Range": {"i": INT, "max": INT, "step": INT}, "Repeat": {"value": "item", "count": INT},
                "ArrayIterator": {"arr": "items", "idx": INT}}
_DONE = T.StdT("class", "baml.iter.Done")


def _iter_made(e: ast.Call, path: list) -> T.Type:
    """`baml.iter.Range.new(…)`, `Repeat.new(v)`, `ArrayIterator.new(xs)`, `flatten(it)`: the
    iterator they make."""
    first = T.base(widen(getattr(e.args[0].value, "ty", None) or UNKNOWN)) if e.args else UNKNOWN
    if path == ["baml", "iter", "Range", "new"]:
        return T.IterT(INT, "Range")
    if path == ["baml", "iter", "Repeat", "new"]:
        return T.iter_of(first, "Repeat")
    if path == ["baml", "iter", "ArrayIterator", "new"] and isinstance(first, Arr):
        return T.iter_of(first.elem, "ArrayIterator")
    if path == ["baml", "iter", "flatten"] and isinstance(first, T.IterT):
        return T.iter_of(_iterable_item(first.item))
    return UNKNOWN


def _callback_result(e: ast.Call) -> T.Type:
    """The result type of the callback passed first, where the checker surely knows it."""
    at = getattr(e.args[0].value, "ty", None) if e.args else None
    if isinstance(at, FuncT) and (_sure_scrutinee(at.ret) or isinstance(at.ret, T.IterT)):
        return widen(at.ret)
    return UNKNOWN


def _accumulator(e: ast.Call) -> T.Type:
    """`reduce(fn, initial)`'s accumulator type A where fn declares no result: its first
    parameter's declared type, else the initial value's (widened), where surely known."""
    at = getattr(e.args[0].value, "ty", None) if e.args else None
    a = at.params[0][1] if isinstance(at, FuncT) and at.params else UNKNOWN
    if a is UNKNOWN and len(e.args) > 1:
        a = widen(getattr(e.args[1].value, "ty", None) or UNKNOWN)
    return a if _sure_scrutinee(a) else UNKNOWN


def _iterable_item(t: T.Type) -> T.Type:
    """What iterating a `flat_map` callback's result yields (unknown where not known)."""
    t = T.base(t)
    return t.elem if isinstance(t, Arr) else t.item if isinstance(t, T.IterT) else STRING if t is STRING else UNKNOWN


def _value_targs(ft: FuncT, e: ast.Call) -> dict:
    """A stdlib method's type parameters that a plain argument gives (`reduce`'s `initial: A`)."""
    env: dict = {}
    for (_, pt, _), a in zip(ft.params, e.args):
        at = getattr(a.value, "ty", None)
        if a.name is None and isinstance(pt, TVar) and at is not None and not isinstance(at, LambdaT):
            at = widen(at)
            if _sure_scrutinee(at) and not T.has_unknown(at):
                env.setdefault(pt.name, at)
    return env


def _lambda_results(ft: FuncT, e: ast.Call) -> dict:
    """A stdlib method's type parameters that are its callbacks' results (`map<U>(f: (T) ->
    U)`), from lambdas passed with a declared return type."""
    env: dict = {}
    for (_, pt, _), a in zip(ft.params, e.args):
        at = getattr(a.value, "ty", None)
        if (a.name is None and isinstance(pt, FuncT) and isinstance(pt.ret, TVar)
                and isinstance(at, LambdaT) and (_sure_scrutinee(at.ret) or at.ret is T.TOP)):
            env.setdefault(pt.ret.name, at.ret)  # a declared `-> unknown` too: `unknown[]` is its result
    return env


def _branch_hole(e) -> Span | None:
    """The first branch of an `if` / `match` / `catch` whose value is an empty literal: each branch's
    element type is inferred on its own, so the other branches do not fix it."""
    if isinstance(e, ast.If) and e.else_ is not None:
        blocks = [e.then, e.else_]
    elif isinstance(e, (ast.Match, ast.Catch)):
        blocks = [a.body for a in e.arms]  # a catch arm is typed apart from the guarded value
    else:
        return None
    for b in blocks:
        tail = b.tail if isinstance(b, ast.Block) else b
        if isinstance(tail, ast.BlockExpr):
            tail = tail.block.tail
        hole = _empty_hole(tail) or _branch_hole(tail)
        if hole is not None:
            return hole
    return None


def _arrays_left(arms) -> bool:
    """Do array patterns (`[]`, `[_]`, `[_, ..]`) leave some lengths of an array unmatched?
    False when unsure (an arm that is not an array pattern)."""
    exact, rest = set(), None
    for arm in arms:
        alts = arm.pattern.alts if isinstance(arm.pattern, ast.POr) else [arm.pattern]
        for a in alts:
            if not isinstance(a, ast.PArray):
                return False
            if arm.guard is not None or a.rest_pattern is not None or not all(
                    isinstance(i, ast.PWild) or (isinstance(i, ast.PBind) and i.type is None)
                    for i in a.items):
                continue  # matches only some arrays of its lengths
            if a.rest_index is None:
                exact.add(len(a.items))
            else:
                rest = len(a.items) if rest is None else min(rest, len(a.items))
    return rest is None or not all(n in exact for n in range(rest))


def _returns(b) -> bool:
    """Does a `return` of this body (not of a nested lambda) occur in it?"""
    return _occurs(b, ast.Return, ast.Lambda)


def _may_be_null(t: T.Type) -> bool:
    """May a `?.` link's receiver of type t be null? (`unknown` may.)"""
    return t is UNKNOWN or any(m is NULL for m in T.members(t))


def _chain_null(e) -> bool:
    """Is a chain ending at e null where one of its `?.` links finds its receiver null? A link
    whose receiver cannot be null adds no null: the engine types `x?.abs()` on an `int` as `int`
    (a link the checker did not see counts)."""
    while e is not None and getattr(e, "chained", False):
        if ast.link_optional(e) and getattr(e, "null_link", True):
            return True
        e = ast.chain_receiver(e)
    return False


def _source(e: ast.Expr) -> str:
    """An expression's source text, its spacing collapsed (`c ?. n` reads `c?.n`)."""
    text = e.span.file.text[e.span.start:e.span.end]
    return re.sub(r"\s*(\?\.|\.)\s*", r"\1", " ".join(text.split()))


# methods a class may define only in an `implements` block of their interface
_INTERFACE_ONLY = {"to_string": ("E0140", "baml.ToString"), "to_json": ("E0142", "baml.ToJson"),
                   "from_json": ("E0143", "baml.FromJson")}


# what every class and enum has from `baml.ops` (Equals, Hash, ToString, ToJson): reached from
# the type, `P.to_string(p)`, or from an enum variant, `Color.Red.eq(a, b)` (self typed by it)
_UNBOUND = {"to_string": ((), STRING), "to_json": ((), UNKNOWN), "eq": (("other",), BOOL),
            "neq": (("other",), BOOL), "hash": (("hasher",), NULL)}


def _unbound_builtin(item, rest: list[str]) -> FuncT | None:
    """`P.to_string` / `E.V.eq`: the method as a function whose first parameter is self."""
    if isinstance(item, EnumDef):
        self_t = EnumT(item, rest[0]) if len(rest) == 2 and rest[0] in item.variants else EnumT(item)
    elif isinstance(item, ClassDef) and not item.decl.generics:
        self_t = ClassT(item)
    else:
        return None
    name = rest[-1]
    if len(rest) != (2 if self_t.__class__ is EnumT and self_t.variant else 1) or name not in _UNBOUND \
            or name in getattr(item, "methods", {}):
        return None
    extra, ret = _UNBOUND[name]
    params = (("self", self_t, False),) + tuple(
        (p, T.Prim("baml.Hasher") if p == "hasher" else self_t, False) for p in extra)
    return FuncT(params, ret, NEVER)


def _loose(t: T.Type) -> T.Type:
    """A declared `throws unknown` bounds nothing: the checker's don't-know."""
    return UNKNOWN if t is T.TOP else t


def _is_global(fd) -> bool:
    """A `const NAME = …` global (kept as the function computing its value)."""
    return getattr(fd.decl, "is_global", False)


# what checking one function sets: kept around checking a global's initializer on demand
_FN_STATE = ("ns", "generics", "bounds", "std_bounds", "fn", "scopes", "facts", "unpinned", "llm_fn", "cur_fd",
             "fn_name", "assigned_log", "loose", "soft", "path_root", "no_expected")


def _tvar_arg(name: str, e: ast.Call, params) -> T.Type:
    """The caller's own type parameter a positional argument passes for a parameter `x: T`
    (`mx(a, a)` with `a: U` inside `g<U>`), else unknown."""
    for a, (_, pt, _) in zip(e.args, params):
        if a.name is None and isinstance(pt, TVar) and pt.name == name and isinstance(a.value.ty, TVar):
            return a.value.ty
    return UNKNOWN


def _show_te(te) -> str:
    """A type expression as written (a bound in a message)."""
    return ".".join(te.path) if isinstance(te, ast.TName) else "?"


def _iface_arg(name: str, e: ast.Call, params) -> "T.Type | None":
    """An interface type a positional argument gives type parameter `name` (`g(x)` with `x: I`
    for `g<T>(x: T)`, `xs: I[]` for `T[]`): no concrete type to dispatch on."""
    for a, (_, pt, _) in zip(e.args, params):
        at = widen(a.value.ty or UNKNOWN) if a.name is None else UNKNOWN
        if isinstance(pt, Arr) and isinstance(at, Arr):
            pt, at = pt.elem, at.elem
        if pt == TVar(name) and isinstance(at, IfaceT):
            return at
    return None


def _names_same_std(mine, want) -> bool:
    """A declared parameter of a stdlib type the checker does not model (`state:
    baml.hash.Hasher`, unknown to it) is matched by name: `state: int` does not conform."""
    if not (isinstance(want, ast.TName) and want.path[0] == "baml"):
        return True
    return isinstance(mine, ast.TName) and mine.path == want.path


def _inferred_outside_callbacks(ret: T.Type, params, args) -> bool:
    """Is the result `T` or `T | …` with each such T bound by a parameter outside a function
    type (`first<T>(xs: T[]) -> T?`, not `apply<T, U>(x: T, f: (T) -> U) -> U`) and left an
    inference variable: the engine solves T at once where an invariant parameter type holds
    it (`T[]`, `map<K, T>`, `Box<T>`) and the argument's type is already known, not built by
    a literal (`first(xs)` with `xs: int[]` is `int?` to it, `first([3])` is not yet)."""
    tops = [m for m in T.members(ret) if isinstance(m, TVar)]
    if not tops or not all(any(_mentions(pt, v.name) and not isinstance(pt, FuncT) for _, pt, _ in params)
                           for v in tops):
        return False
    named = {a.name: a.value for a in args if a.name is not None}
    given = [(pt, named.get(n) if i >= len(args) or args[i].name is not None else args[i].value)
             for i, (n, pt, _) in enumerate(params)]
    return not any(isinstance(pt, (Arr, MapT, ClassT)) and _mentions(pt, v.name)
                   and a is not None and not isinstance(a, (ast.ArrayLit, ast.MapLit, ast.ClassLit))
                   for pt, a in given for v in tops)
