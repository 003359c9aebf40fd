"""The checker's patterns and narrowing: `is`, conditions' facts, `match` and `catch` arms, exhaustiveness."""
from __future__ import annotations

import dataclasses

from ...syntax import ast
from .. import stdsigs
from ..effects import ALL, MAYBE
from .. import types as T
from .. import bindings
from ..resolve import _literal
from ..program import EnumDef
from ..types import (Arr, BOOL, ClassT, EnumT, FLOAT, INT, IfaceT, Lit, MapT, NEVER, NULL, STRING,
                     UNKNOWN, Union, VOID, assignable, show, widen)
from .common import Var, _ENV_REF, _diverges, _open_param, _overlaps, _sure_scrutinee


_ANY_PANIC = T.union(*(T.StdT("class", c) for c in sorted(stdsigs.PANIC_CLASSES)))  # `baml.panics.Panic`


def _irrefutable(p) -> bool:
    return isinstance(p, ast.PWild) or (isinstance(p, ast.PBind) and p.type is None)


def _variant_like(te) -> bool:
    return isinstance(te, ast.TName) and len(te.path) == 2 and te.path[0] != "root"


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


class PatternChecks:
    """Checker methods for patterns and narrowing (mixed into `Checker`)."""

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
                    if isinstance(rt, (Arr, MapT)) and self.tested_type(v) in (UNKNOWN, T.TOP):
                        return {v: rt}, {}  # `x is int[]` of an `unknown`
                if isinstance(p, ast.PType) and _variant_like(p.type):
                    rt = self.pattern_type_quiet(p.type)
                    if isinstance(rt, EnumT) and rt.variant is not None and any(
                            isinstance(m, EnumT) and m.enum is rt.enum for m in T.members(self.tested_type(v))):
                        return {v: rt}, {}  # `x is E.A`: x is that variant (else: as declared)
                    return {}, {}
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
        self.untyped_holes(e.expr)  # `[] is int[]`: nothing types the `[]`
        t = self.expr(e.expr, UNKNOWN)
        # a test that narrows (an `if`/`while` condition) is checked as a match arm; elsewhere
        # the engine lets any type be tested (`return x is float` of an `int | string`)
        if t == _ENV_REF or (getattr(e, "narrows", False) and (
                isinstance(t, (Union, T.Prim)) and _sure_scrutinee(t) or t is T.JSON) and (
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
        if sv is not None and sv.ty is UNKNOWN and _open_param(sv) and \
                not all(isinstance(a.pattern, ast.PWild) for a in e.arms):
            sv.open_params = None  # `let g = (d) -> { match (d) { 1 => … } }`: d's type is not known yet
            self.err(e.scrutinee.span, "E0155", "type annotations needed")
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
            elif m in (INT, STRING, FLOAT, T.BIGINT) or isinstance(m, (ClassT, Arr, MapT)) or _std_class(m):
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
        """What a catch arm surely catches: ALL, a type (a literal's, an or-pattern's union;
        `never` for a class pattern pinning a field to a literal: it catches only some of the
        class's values), or MAYBE (a pattern not read here)."""
        return self.pattern_catches(arm.pattern)

    def pattern_catches(self, p) -> object:
        if _irrefutable(p):
            return ALL
        if isinstance(p, ast.PLit):
            return _literal(p.value)
        if isinstance(p, ast.POr):
            alts = [self.pattern_catches(a) for a in p.alts]
            return ALL if ALL in alts else MAYBE if MAYBE in alts else T.union(*alts)
        if isinstance(p, ast.PClass):
            fields = [sp for _, sp in p.fields if sp is not None and not _irrefutable(sp)]
            if any(not isinstance(sp, ast.PLit) for sp in fields):
                return MAYBE
            if fields:
                return NEVER
        te = p.type if isinstance(p, (ast.PType, ast.PBind, ast.PClass)) else None
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
        if isinstance(m, ClassT) or _std_class(m):  # `baml.iter.Done` of `next()`'s result
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


def _std_class(m: T.Type) -> bool:
    """A stdlib class as a scrutinee member (`baml.iter.Done`, a panic class)."""
    return isinstance(m, T.StdT) and m.kind == "class" and not isinstance(m, T.PlanT)
