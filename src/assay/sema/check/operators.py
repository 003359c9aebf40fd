"""The checker's operators: unary and binary operators, chains, operator interfaces, ordering."""
from __future__ import annotations

from ...syntax import ast
from .. import stdsigs
from .. import types as T
from ..program import target_matches
from ..types import (Arr, BOOL, ClassT, EnumT, FLOAT, FuncT, INT, Lit, MapT, NEVER, NULL, STRING,
                     TVar, UNKNOWN, Union, VOID, assignable, show, widen)
from .common import (ANY_CLASS, FutureT, NativeFuncT, _DONE, _ENV_REF, _KIND_OF, _OP_IFACES,
                     _OP_METHOD_OF, _is_time, _void_is_null)


_ARITH = {"+", "-", "*", "/", "%"}
_BITS = {"&", "|", "^", "<<", ">>"}
_ORDER = {"<", "<=", ">", ">="}
_SHORT = ("&&", "||", "??")  # operators with their own control flow
_DURATION = T.StdT("class", "baml.time.Duration")


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


class OperatorChecks:
    """Checker methods for operators (mixed into `Checker`)."""

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
        if isinstance(left, ast.Name) and (lv := self.lookup_var(left.name)) is not None:
            if lv.pending_infer:
                lv.pending_infer.clear()  # `let a = first([]); a ?? 1`: the right side types it
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
            self.untyped_holes(e.left)  # `xs == []`: the other side does not type the `[]`
            self.untyped_holes(e.right)
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
        if self.rechecking:
            return  # the engine orders a parameter its first call types as it stood (`x < 1`: any x)
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

