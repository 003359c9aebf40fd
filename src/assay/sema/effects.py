"""`throws` effects, as the engine infers and checks them.

What a function or lambda may throw is its declared `throws`, or else what its body lets
escape: its `throw` operands and what the functions it calls may throw, less what enclosing
`catch` arms catch. The checker records, while it types a body, what each call calls
(`sites`), what each catch arm catches (`catches`) and each declared `throws` (`declared`);
`report` then summarises every body once, solves the mutual recursion by a fixpoint, and
reports E0096 at each call (and each re-throw of a caught value) that lets a type escape which
the enclosing declaration does not allow. Whatever is not known exactly is UNKNOWN, which
never reports."""
from __future__ import annotations

from ..syntax import ast
from . import types as T
from .types import NEVER, UNKNOWN, assignable, show, widen

_LLM = T.StdT("class", "ai.errors.Failure")  # stands for everything an LLM call may throw
_CALLBACK = T.StdT("class", "callback")  # what a callback without `throws` may throw
ALL = "all"  # an arm that catches everything
MAYBE = "maybe"  # an arm whose pattern the checker does not read (catches anything it might)
_MAX_ROUNDS = 64


class Effects:
    def __init__(self):
        # id(Call) -> ("fn", fd, type arguments) | ("lambda", node) | ("type", T) | ("callback", name)
        self.sites: dict[int, tuple] = {}
        self.catches: dict[int, list] = {}  # id(Catch) -> per arm: ALL, MAYBE or the caught type
        self.declared: dict[int, T.Type] = {}  # id(fd or Lambda) -> its declared `throws`
        self.catch_alls: list = []  # the `catch_all` / `catch_all_panics` nodes (exhaustive)
        self.generics: dict[int, set] = {}  # id(fd) declaring `throws` -> its own type parameters
        self.declared_unknown: dict[int, object] = {}  # id(fd or Lambda) declaring `throws unknown` -> body span
        self._items: dict[int, list] = {}  # id(body owner) -> summary items
        self._values: dict[int, T.Type] = {}
        self._marked = False  # LLM calls and callbacks throw markers, not unknown
        self._active: set[int] = set()  # bodies being read at a call (their callbacks bound)
        # (id(fd or Lambda), throws allowed, span, the function type, its type) for function
        # values without `throws` where a function type or `AnyFunction` pins their throws
        self.coerced: list = []
        # (effect sites, the expected type's, span, expected type, its type): an iterator whose
        # Error is inferred where an `Iterator<…, Error = E>` is expected (compared exactly)
        self.iter_errors: list = []
        # (the errs of the iterators joined, span, member, item): a member of iterators that
        # `if`/`match` branches joined (the engine: of a union of iterator types)
        self.iter_splits: list = []
        # id(Lambda) -> the span of its `throws _` where no function type is expected of it
        self.holes: dict = {}

    # ───────────── summaries ─────────────
    def summarize(self, key: int, body, widen: bool = False) -> None:
        """Items of one body: ("call", callee, filters, span); filters are the ids of the
        enclosing catches of the body, innermost first; a `throw` is a call of a constant
        (span None: the checker reports it), a re-throw of a caught value calls ("caught",
        catch, arm). Lambdas get summaries of their own."""
        items: list = []
        self._items[key] = items
        todo = [(body, (), None)]
        while todo:
            node, filters, bound = todo.pop()
            if isinstance(node, (list, tuple)):
                todo += [(n, filters, bound) for n in node]
                continue
            if type(node).__module__ != ast.__name__ or not hasattr(node, "__dataclass_fields__"):
                continue  # AST nodes only (not sema's annotations on them)
            if isinstance(node, ast.Lambda):
                self.summarize(id(node), node.body, node.throws_hole)
                continue
            if isinstance(node, ast.Catch):
                todo.append((node.expr, (id(node),) + filters, bound))
                todo += [(arm, filters, (node.binding, id(node), i)) for i, arm in enumerate(node.arms)]
                continue
            if isinstance(node, ast.LlmCall):  # what an LLM call throws: llmcheck's
                items.append(("call", ("llm",), filters, None))
            elif isinstance(node, ast.Call):
                site = self.sites.get(id(node), ("type", UNKNOWN))
                items.append(("call", site, filters, node.func.span))
            elif isinstance(node, ast.Await) and id(node) in self.sites:  # a spawned body's throws
                items.append(("call", self.sites[id(node)], filters, node.span))
            elif isinstance(node, ast.Throw):
                v = node.value
                if bound is not None and isinstance(v, ast.Name) and v.name == bound[0]:
                    items.append(("call", ("caught",) + bound[1:], filters, v.span))
                else:
                    t = v.ty or UNKNOWN  # a declared `unknown` value: what it is is not known
                    if widen:  # `throws _` is solved as a `let`'s type is: `throw "x"` is a string
                        t = T.widen(t)
                    items.append(("call", ("type", UNKNOWN if t is T.TOP else t), filters, None))
            todo += [(v, filters, bound) for k, v in vars(node).items() if k not in ("span", "ty")]

    # ───────────── solving ─────────────
    def throws(self, key: int) -> "T.Type | None":
        """What a function or lambda (by id of its FunctionDef or Lambda node) may throw, as
        solved (None: no body of that key)."""
        return self._values.get(key)

    def solve(self) -> None:
        keys = list(self._items)
        vals = self._values
        for k in keys:
            vals[k] = self.declared.get(k, NEVER)
        for _ in range(_MAX_ROUNDS):
            changed = False
            for k in keys:
                if k in self.declared:
                    continue
                v = T.union(*(self.escaping(it) for it in self._items[k]))
                if v != vals[k]:
                    vals[k], changed = v, True
            if not changed:
                return
        for k in keys:  # not settled: unknown
            if k not in self.declared:
                vals[k] = UNKNOWN

    def escaping(self, item, passed: dict | None = None) -> T.Type:
        """What escapes one item; `passed`: a call's arguments for the body's callbacks."""
        _, callee, filters, _ = item
        if passed is not None and callee[0] == "callback":
            callee = passed.get(callee[1], ("type", UNKNOWN))
        elif passed is not None and callee[0] == "through":  # `xs.map(f)`, f a callback
            callee = ("through", tuple(passed.get(c[1], ("type", UNKNOWN)) if c[0] == "callback"
                                       else c for c in callee[1]))
        elif passed is not None and callee[0] == "fn" and len(callee) > 3:  # passed on
            callee = callee[:3] + ({k: passed.get(v[1], ("type", UNKNOWN)) if v[0] == "callback"
                                    else v for k, v in callee[3].items()},)
        t = self.throws_of(callee)
        for c in filters:
            t = self.uncaught(c, t)
        return t

    def throws_of(self, callee) -> T.Type:
        kind = callee[0]
        if kind == "type":
            return callee[1]
        if kind == "through":  # a stdlib call throws what the functions passed to it throw
            return T.union(NEVER, *(self.throws_of(c) for c in callee[1]))
        key = id(callee[1]) if kind == "fn" else None
        if key is not None and len(callee) > 3 and key not in self.declared and self.uses_callbacks(key):
            if key in self._active:
                return NEVER  # a recursive call adds nothing to what the body being read throws
            self._active.add(key)
            try:
                t = T.union(*(self.escaping(it, callee[3]) for it in self._items[key]))
            finally:
                self._active.discard(key)
            return self.at_call(t, callee) if T.has_tvar(t) else t
        if kind in ("fn", "lambda"):  # a method without a body (an interface's): its declaration
            t = self._values.get(id(callee[1]), self.declared.get(id(callee[1]), UNKNOWN))
            if T.has_tvar(t):  # a generic function's: its type arguments at this call
                t = self.at_call(t, callee)
            if kind == "fn" and _CALLBACK in T.members(t):
                return UNKNOWN  # what its callbacks throw: the arguments' at this call
            return t
        if kind == "caught":
            return self.caught(callee[1], callee[2])
        if self._marked:  # known to throw something, though not what (see report)
            return _LLM if kind == "llm" else _CALLBACK
        return UNKNOWN  # an LLM call's errors, or a callback's (per call site in the engine)

    def at_call(self, t: T.Type, callee) -> T.Type:
        """A generic callee's throws at one call: its type arguments, then the type parameters
        a callback parameter's `throws` names, as what the function passed for it throws."""
        env = dict(callee[2]) if len(callee) > 2 else {}
        if len(callee) > 3:
            env.update({k[1]: self.throws_of(callee[3][p]) for k, p in callee[2].items()
                        if isinstance(k, tuple) and p in callee[3]})
        return T.subst(t, env)

    def uses_callbacks(self, key: int) -> bool:
        """Does a body call its callbacks, or pass them on to a call?"""
        return any(it[1][0] == "callback" or (it[1][0] == "fn" and len(it[1]) > 3 and any(
            v[0] == "callback" for v in it[1][3].values())) or (it[1][0] == "through" and any(
            c[0] == "callback" for c in it[1][1])) for it in self._items.get(key, ()))

    def thrown_in(self, catch_id: int) -> T.Type:
        """What the expression part of a catch may throw."""
        out = []
        for items in self._items.values():
            for it in items:
                fs = it[2]
                if catch_id in fs:
                    t = self.throws_of(it[1])
                    for c in fs[:fs.index(catch_id)]:
                        t = self.uncaught(c, t)
                    out.append(t)
        return T.union(*out)

    def uncaught(self, catch_id: int, t: T.Type) -> T.Type:
        if self.catches_all(catch_id):
            return NEVER
        arms = self.catches[catch_id]
        return T.union(*(m for m in T.members(t) if m is not NEVER
                         and not any(assignable(m, a) for a in arms)))

    def catches_all(self, catch_id: int) -> bool:
        arms = self.catches.get(catch_id)
        return arms is None or any(a in (ALL, MAYBE) for a in arms)

    def caught(self, catch_id: int, arm: int) -> T.Type:
        arms = self.catches.get(catch_id) or []
        a = arms[arm] if arm < len(arms) else MAYBE
        if a == MAYBE:
            return UNKNOWN
        t = self.thrown_in(catch_id)
        if t is UNKNOWN:
            return t
        before = [b for b in arms[:arm] if b not in (ALL, MAYBE)]  # what earlier arms took
        return T.union(*(m for m in T.members(t) if (a == ALL or assignable(m, a))
                         and not any(assignable(m, b) for b in before)))

    # ───────────── reporting ─────────────
    def report(self, err) -> None:
        """E0096 at each call or re-throw that lets escape what its body's declaration does
        not allow (direct `throw`s are the checker's own); E0097 for a `throws unknown` where
        what the body throws is known."""
        self.solve()
        self.report_declared(err)
        self.report_catch_alls(err)
        self.report_unknown(err)
        self.report_coerced(err)
        self.report_iter_errors(err)
        self.report_iter_splits(err)
        self.report_holes(err)

    def report_iter_splits(self, err) -> None:
        """E0007: a member of iterators joined from branches whose `Error`s differ, a union
        of iterator types to the engine, which declares no member in common."""
        for groups, span, name, item in self.iter_splits:
            errs = [T.union(NEVER, *(self.throws_of(s) for s in g)) for g in groups]
            if all(map(_known, errs)) and any(not (assignable(a, errs[0]) and assignable(errs[0], a))
                                              for a in errs[1:]):
                shown = " | ".join(f"baml.iter.Iterator<Error = {show(widen(a))}, Item = {show(item)}>"
                                   for a in errs)
                err(span, "E0007", f"type `{shown}` has no member `{name}`: its members implement "
                    f"no common interface that declares `{name}`")

    def report_holes(self, err) -> None:
        """E0147: a lambda's `throws _` that neither its body (it throws nothing) nor an
        expected function type gives a type."""
        for key, span in self.holes.items():
            if self._values.get(key) is NEVER:
                err(span, "E0147", "type inference failed; write the type explicitly")

    def report_iter_errors(self, err) -> None:
        """E0001: an iterator's inferred `Error` is not exactly the declared one."""
        for sites, wanted, span, dst, it in self.iter_errors:
            got = T.union(NEVER, *(self.throws_of(s) for s in sites))
            want = T.union(NEVER, *(self.throws_of(s) for s in wanted))
            if _known(got) and _known(want) and not (assignable(got, want) and assignable(want, got)):
                err(span, "E0001", "mismatched types", f"expected `{show(dst)}`, found `{show(it)}`")

    def report_coerced(self, err) -> None:
        """E0001: a function value passed where its inferred throws are not allowed."""
        for key, want, span, dst, ft in self.coerced:
            got = self.throws(key)
            if got is not None and _known(got) and got is not NEVER and not assignable(got, want):
                src = T.FuncT(ft.params, ft.ret, widen(got))
                err(span, "E0001", "mismatched types", f"expected `{show(dst)}`, found `{show(src)}`")

    def report_catch_alls(self, err) -> None:
        """E0062: a `catch_all` (`catch_all_panics`) must catch all that its expression may throw."""
        for c in self.catch_alls:
            if self.catches_all(id(c)):
                continue
            t = self.thrown_in(id(c))
            left = self.uncaught(id(c), t) if _known(t) else NEVER
            if left is not NEVER:
                err(c.span, "E0062", f"non-exhaustive {c.kind} on type {show(widen(t))}; "
                    f"missing: {show(widen(left))}")

    def report_unknown(self, err) -> None:
        """E0097: what escapes a `throws unknown` body is known; an LLM call's errors and a
        callback's throws count as known here (the engine names them)."""
        pending = [(declared, it) for key, declared in self.declared.items() if _known(declared)
                   for it in self._items.get(key, ()) if it[3] is not None
                   and it[1][0] != "callback" and self.escaping(it) is UNKNOWN]
        values, self._values, self._marked = self._values, {}, True
        try:
            self.solve()
            self._report_unknown(err)
            for declared, it in pending:  # E0096 for what reaches a call only through markers
                t = self.escaping(it)
                extra = [m for m in T.members(t) if m is not NEVER and not assignable(m, declared)]
                if not T.has_unknown(t) and not T.has_tvar(t) and any(
                        m in (_LLM, _CALLBACK) for m in extra):
                    err(it[3], "E0096", f"declared throws is `{show(declared)}`, but this "
                        f"function may also throw `{show(widen(T.union(*extra)))}`")
        finally:
            self._values, self._marked = values, False

    def _report_unknown(self, err) -> None:
        for key, span in self.declared_unknown.items():
            t = T.union(*(self.escaping(it) for it in self._items.get(key, ())))
            if t is NEVER:
                err(span, "E0097", "`throws unknown` is unnecessary: BAML infers thrown types "
                    "automatically, and this function does not throw. Remove the declaration")
            elif t is not UNKNOWN and not T.has_tvar(t) and not T.has_unknown(t):
                err(span, "E0097", f"`throws unknown` is imprecise: this function only throws "
                    f"`{show(widen(t))}`. BAML infers thrown types automatically, so remove the "
                    "declaration")

    def report_declared(self, err) -> None:
        for key, declared in self.declared.items():
            own = self.generics.get(key, ())
            if not _known(declared) and (T.has_unknown(declared) or declared is UNKNOWN or any(
                    isinstance(m, T.TVar) and m.name not in own or not isinstance(m, T.TVar) and T.has_tvar(m)
                    for m in T.members(declared))):
                continue  # (a declared `throws E` of the function's own `E` is rigid: checked)
            for it in self._items.get(key, ()):
                if it[3] is None:
                    continue
                if it[1][0] == "callback":
                    if not any(self.catches_all(c) for c in it[2]) and _known(declared):
                        name = it[1][1]
                        err(it[3], "E0096", f"this body may throw through callback `{name}`, but "
                            f"declared throws is `{show(declared)}`. The callback type does not say "
                            f"what it can throw. If `{name}` is an infallible host callback, "
                            "annotate it with `throws never`")
                    continue
                t = self.escaping(it)
                if t is UNKNOWN or (T.has_tvar(t) and not self.own_tvars(key, it, t)):
                    continue
                extra = [m for m in T.members(t) if m is not NEVER and (
                    m not in T.members(declared) if isinstance(m, T.TVar) else not assignable(m, declared))]
                if extra:
                    err(it[3], "E0096", f"declared throws is `{show(declared)}`, but this function "
                        f"may also throw `{show(widen(T.union(*extra)))}`")


    def own_tvars(self, key: int, it, t: T.Type) -> bool:
        """A call through a function value whose `throws` names only type parameters of the
        body's own function (`f()` for `f: () -> int throws E` in `app<E>`): they are rigid."""
        own = self.generics.get(key, ())
        site = it[1][1][0] if it[1][0] == "through" and len(it[1][1]) == 1 else it[1]
        return site[0] == "type" and all(m.name in own for m in T.members(t) if isinstance(m, T.TVar)) \
            and not any(T.has_tvar(m) and not isinstance(m, T.TVar) for m in T.members(t))


def _known(t: T.Type) -> bool:
    return t is not UNKNOWN and not T.has_tvar(t) and not T.has_unknown(t)
