"""Make implicit panics explicit: before every statement whose operation can panic, a `Check`
naming the panic class and the operation's operands (run last, after cleanup, so no pass
needs to know about checks)."""
from __future__ import annotations

from . import ir

_INT_KINDS = ("int", "")  # '' = static type unknown: the check applies if the run-time values are ints


def add_checks(fn: ir.MirFunction) -> None:
    for b in fn.blocks:
        out: list = []
        for s in b.statements:
            out.extend(ir.Check(panic, op, list(ops), s.span) for panic, op, ops in checks_of(s))
            out.append(s)
        b.statements = out


def checks_of(s: ir.Assign):
    """(panic class, op, operands) of each way the statement can panic."""
    v, P = s.value, ir.Panic
    if isinstance(v, ir.BinaryOp) and v.kind in _INT_KINDS and _may_be_ints(v.left, v.right):
        ab = (v.left, v.right)
        if v.op in ("+", "-", "*"):
            yield P.OVERFLOW, v.op, ab
        elif v.op in ("/", "%"):
            yield P.DIVISION_BY_ZERO, v.op, ab
            if v.op == "/":
                yield P.OVERFLOW, v.op, ab  # INT_MIN / -1
        elif v.op in ("<<", ">>"):
            yield P.SHIFT, v.op, ab
    elif isinstance(v, ir.UnaryOp) and v.op == "-":
        yield P.OVERFLOW, "neg", (v.operand,)
    elif isinstance(v, ir.Load) and isinstance(v.place, ir.IndexPlace):
        yield from _index(v.place)
    if isinstance(s.dest, ir.IndexPlace) and s.dest.kind not in ("map", "map_key"):
        yield P.INDEX, "[]=", (s.dest.base, s.dest.index)


def _may_be_ints(*ops) -> bool:
    """A constant operand that is not an int rules an int operation out (`"a" + x`)."""
    return all(not isinstance(o, ir.Const) or type(o.value) is int for o in ops)


def _index(p: ir.IndexPlace):
    if p.kind == "array_in_bounds":
        return
    if p.kind in ("map", "map_key"):
        yield ir.Panic.KEY, "[]", (p.base, p.index)
    else:  # an array, or unknown until run time (a map there: the check reads as a key check)
        yield ir.Panic.INDEX, "[]", (p.base, p.index)
