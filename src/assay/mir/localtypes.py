"""Static types of MIR locals and operands (sema's type objects).

Lowering types what it knows from the checker (parameters, the return place, `let` bindings,
expression results, narrowed reads: `ir.Copy.ty`); `infer_locals` types every remaining local
(temporaries of loops, patterns, calls …) from the statements that define it, so that every
local carries a type (`unknown` when nothing is known)."""
from __future__ import annotations

from ..sema import types as T
from . import ir

_COMPARE = {"==", "!=", "<", "<=", ">", ">="}
_KINDS = {"int": T.INT, "float": T.FLOAT, "string": T.STRING}
_NATIVES = {"$str_int": T.STRING, "string.from": T.STRING, "$bytes": T.BYTES}  # lowering's own


def const_type(v, index) -> T.Type:
    if isinstance(v, bool):
        return T.lit_bool(v)
    if isinstance(v, int):
        return T.lit_int(v)
    if isinstance(v, str):
        return T.lit_str(v)
    if isinstance(v, float):
        return T.FLOAT
    if v is None:
        return T.NULL
    if isinstance(v, ir.VariantConst):
        e = index.enums.get(v.enum)
        return T.EnumT(e, v.name) if e is not None else T.StdT("variant", v.enum, v.name)
    if isinstance(v, ir.BigIntConst):
        return T.BIGINT
    if isinstance(v, bytes):
        return T.BYTES
    return T.UNKNOWN


def operand_type(o, locals_, index) -> T.Type | None:
    """The static type of an operand at its use (None: its local is not typed yet)."""
    if isinstance(o, ir.Const):
        return const_type(o.value, index)
    return o.ty if o.ty is not None else locals_[o.place.index].ty


class _Infer:
    def __init__(self, fn: ir.MirFunction, prog):
        self.fn = fn
        self.prog = prog

    def op(self, o) -> T.Type | None:
        return operand_type(o, self.fn.locals, self.prog.index)

    def rvalue(self, v) -> T.Type | None:
        if isinstance(v, (ir.Use, ir.MakeCell)):
            t = self.op(v.op if isinstance(v, ir.Use) else v.operand)
            return None if t is None else T.widen(t)
        if isinstance(v, ir.BinaryOp):
            return self.binary(v)
        if isinstance(v, ir.UnaryOp):
            return T.BOOL if v.op == "!" else (T.INT if v.op == "~" else self.arith(v.operand, v.operand))
        if isinstance(v, (ir.Truthy, ir.IsType, ir.IsOmitted)):
            return T.BOOL
        if isinstance(v, ir.Len):
            return T.INT
        if isinstance(v, ir.Concat):
            return T.STRING
        if isinstance(v, ir.ArrayAgg):
            return T.Arr(self.joined(v.items))
        if isinstance(v, ir.MapAgg):
            return T.MapT(self.joined([k for k, _ in v.entries]), self.joined([x for _, x in v.entries]))
        if isinstance(v, ir.ClassAgg):
            c = self.prog.index.classes.get(v.fqn)
            return T.ClassT(c, (T.UNKNOWN,) * len(c.decl.generics)) if c else T.UNKNOWN
        if isinstance(v, ir.Load):
            return self.load(v.place)
        return T.UNKNOWN

    def binary(self, v: ir.BinaryOp) -> T.Type | None:
        if v.op in _COMPARE:
            return T.BOOL
        if v.kind in _KINDS:
            return _KINDS[v.kind]
        if v.op in ("&", "|", "^", "<<", ">>"):
            return T.INT
        return self.arith(v.left, v.right)

    def arith(self, a, b) -> T.Type | None:
        ta, tb = self.op(a), self.op(b)
        if ta is None or tb is None:
            return None
        ta, tb = T.base(T.widen(ta)), T.base(T.widen(tb))
        if ta is tb and ta in (T.INT, T.FLOAT, T.STRING, T.BIGINT):
            return ta
        if {ta, tb} == {T.INT, T.FLOAT}:
            return T.FLOAT
        return T.UNKNOWN

    def joined(self, ops) -> T.Type:
        ts = [self.op(o) for o in ops]
        return T.UNKNOWN if not ts or None in ts else T.union(*(T.widen(t) for t in ts))

    def load(self, p) -> T.Type | None:
        base = self.op(p.base)
        if base is None:
            return None
        if isinstance(p, ir.CellPlace):
            return base  # a cell local is typed with its content
        if isinstance(p, ir.FieldPlace):
            return self.field(base, p.name)
        base = T.strip_null(base)
        if isinstance(base, T.Arr):
            return base.elem
        if isinstance(base, T.MapT):
            return base.val
        return T.STRING if T.is_string(base) else T.UNKNOWN

    def field(self, t, name: str) -> T.Type:
        t = T.strip_null(t)
        if not isinstance(t, T.ClassT) or t.cls.field(name) is None:
            return T.UNKNOWN
        gs = [g.name for g in t.cls.decl.generics]
        ft = self.prog.types.resolve(t.cls.field(name).type, t.cls.namespace, frozenset(gs))
        return T.subst(ft, dict(zip(gs, t.args)))

    def call(self, c: ir.Call) -> T.Type | None:
        if c.callee.kind in ("fn", "llm"):
            f = self.prog.index.functions.get(c.callee.name)
            if f is not None and f.decl.ret is not None:
                gs = {g.name for g in f.decl.generics} | (
                    {g.name for g in f.owner.decl.generics} if f.owner else set())
                return T.subst(self.prog.types.resolve(f.decl.ret, f.namespace, frozenset(gs)), {})
        if c.callee.kind == "native":
            if c.callee.name == "$array_slice":
                return self.op(c.args[0])
            return _NATIVES.get(c.callee.name, T.UNKNOWN)
        if c.callee.kind == "indirect" and c.args:
            ft = self.op(c.args[0])
            if isinstance(ft, T.FuncT):
                return ft.ret
        return T.UNKNOWN


def infer_locals(fn: ir.MirFunction, prog) -> None:
    """Type every untyped local by the union of what its definitions assign (a few rounds, for
    definitions that read other untyped locals); what stays unknown is `unknown`."""
    inf = _Infer(fn, prog)
    for _ in range(4):
        defs: dict[int, list] = {}
        for b in fn.blocks:
            for s in b.statements:
                if isinstance(s, ir.Assign) and isinstance(s.dest, ir.Local) and fn.locals[s.dest.index].ty is None:
                    defs.setdefault(s.dest.index, []).append(inf.rvalue(s.value))
            t = b.terminator
            if isinstance(t, ir.Call) and t.dest is not None and fn.locals[t.dest.index].ty is None:
                defs.setdefault(t.dest.index, []).append(inf.call(t))
        changed = False
        for i, ts in defs.items():
            if None not in ts:
                fn.locals[i].ty = T.union(*ts)
                changed = True
        if not changed:
            break
    for loc in fn.locals:
        if loc.ty is None:
            loc.ty = T.UNKNOWN
