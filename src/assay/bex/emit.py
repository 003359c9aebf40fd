"""MIR → BEX bytecode ("stackification"): each MIR block becomes a run of stack instructions
that starts and ends with an empty stack. Extensions see every MIR statement and terminator as
it is lowered, with the instruction range it produced (the hook of the mirx interface)."""
from __future__ import annotations

from ..mir import ir
from ..mir.cleanup import reachable
from .bytecode import BexFunction, ExcEntry


def emit_function(fn: ir.MirFunction, hooks=()) -> BexFunction:
    out = BexFunction(fn.fqn, list(fn.params), list(fn.has_default), len(fn.locals),
                      [l.name for l in fn.locals], n_captures=fn.n_captures,
                      file=fn.span.file.path if fn.span else "")
    code, lines = out.code, out.lines
    order = sorted(reachable(fn))
    start: dict[int, int] = {}
    fixups: list[tuple[int, int]] = []  # (pc, target block)

    line_of: dict[int, int] = {}  # span start → line (many instructions share a span)

    def line(span):
        if span is None:
            return 0
        n = line_of.get(span.start)
        if n is None:
            n = line_of[span.start] = span.line_col[0]
        return n

    def put(op, arg=None, span=None):
        code.append((op, arg))
        lines.append(line(span))

    def load(o: ir.Operand, span=None):
        if isinstance(o, ir.Const):
            put("load_const", o.value, span)
        else:
            put("load_var", o.place.index, span)

    def rvalue(v, span):
        if isinstance(v, ir.Use):
            load(v.op, span)
        elif isinstance(v, ir.BinaryOp):
            load(v.left, span)
            load(v.right, span)
            op = (v.op, "swap_msg") if v.swap_msg else v.op
            put(f"bin_op_{v.kind}" if v.kind else "bin_op", op, span)
        elif isinstance(v, ir.UnaryOp):
            load(v.operand, span)
            put("unary_op", v.op, span)
        elif isinstance(v, ir.Truthy):
            load(v.operand, span)
            put("truthy", None, span)
        elif isinstance(v, ir.ArrayAgg):
            for x in v.items:
                load(x, span)
            if v.elem is None:
                put("alloc_array", len(v.items), span)
            else:
                put("alloc_typed_array", (len(v.items), v.elem), span)
        elif isinstance(v, ir.Concat):
            for x in v.parts:
                load(x, span)
            put("concat", len(v.parts), span)
        elif isinstance(v, ir.MapAgg):
            for k, x in v.entries:
                load(k, span)
                load(x, span)
            if v.elem is None:
                put("alloc_map", len(v.entries), span)
            else:
                put("alloc_typed_map", (len(v.entries), v.elem), span)
        elif isinstance(v, ir.ClassAgg):
            for x in v.fields:
                load(x, span)
            put("alloc_instance", v.fqn, span)
        elif isinstance(v, ir.Load):
            p = v.place
            load(p.base, span)
            if isinstance(p, ir.CellPlace):
                put("load_deref", None, span)
            elif isinstance(p, ir.FieldPlace):
                put("load_field", p.name, span)
            else:
                load(p.index, span)
                put("load_index", p.kind or None, span)
        elif isinstance(v, ir.BoundMethod):
            load(v.operand, span)
            put("load_method", v.name, span)
        elif isinstance(v, ir.IsType):
            load(v.operand, span)
            put("is_type", v.ty, span)
        elif isinstance(v, ir.IsOmitted):
            load(v.operand, span)
            put("is_type", ("omitted",), span)  # the run-time test of an omitted argument
        elif isinstance(v, ir.MakeClosure):
            for c in v.captures:
                put("load_var", c.index, span)
            put("make_closure", (v.fqn, len(v.captures)), span)
        elif isinstance(v, ir.MakeCell):
            load(v.operand, span)
            put("make_cell", None, span)
        elif isinstance(v, ir.Len):
            load(v.operand, span)
            put("len", None, span)
        else:
            raise AssertionError(v)

    def statement(s: ir.Assign):
        d = s.dest
        if isinstance(d, ir.Local):
            rvalue(s.value, s.span)
            put("store_var", d.index, s.span)
        elif isinstance(d, ir.CellPlace):
            load(d.base, s.span)
            rvalue(s.value, s.span)
            put("store_deref", None, s.span)
        elif isinstance(d, ir.FieldPlace):
            load(d.base, s.span)
            rvalue(s.value, s.span)
            put("store_field", d.name, s.span)
        else:
            load(d.base, s.span)
            load(d.index, s.span)
            rvalue(s.value, s.span)
            put("store_index", d.kind or None, s.span)

    def jump(target: int, nxt: int | None, span=None):
        if target != nxt:
            fixups.append((len(code), target))
            put("jump", None, span)

    def terminator(t, span, nxt):
        if isinstance(t, ir.Goto):
            jump(t.target, nxt, span)
        elif isinstance(t, ir.Branch):
            load(t.cond, span)
            out.branch_node[len(code)] = term_start
            fixups.append((len(code), t.else_))
            put("pop_jump_if_false", None, span)
            jump(t.then, nxt, span)
        elif isinstance(t, ir.Return):
            put("load_var", 0, span)
            put("return", None, span)
        elif isinstance(t, ir.Call):
            c = t.callee
            for a in t.args:
                load(a, span)
            for _, a in t.kwargs:
                load(a, span)
            kw = tuple(k for k, _ in t.kwargs)
            if c.kind == "fn":
                put("call", (c.name, len(t.args)), span)
            elif c.kind == "native":
                put("call_native", (c.name, len(t.args)), span)
            elif c.kind == "method":
                put("call_method", (c.name, len(t.args) - 1, kw), span)
            elif c.kind == "llm":
                put("call_llm", (c.name, len(t.args)), span)
            else:
                put("call_indirect", (len(t.args) - 1, kw), span)
            if t.dest is not None:
                put("store_var", t.dest.index, span)
            else:
                put("pop", None, span)
            jump(t.target, nxt, span)
        elif isinstance(t, ir.Throw):
            load(t.value, span)
            put("throw", None, span)
        elif isinstance(t, ir.Rethrow):
            load(t.value, span)
            put("rethrow", None, span)
        elif isinstance(t, ir.ThrowIfPanic):
            load(t.value, span)
            put("throw_if_panic", None, span)
            jump(t.otherwise, nxt, span)
        else:
            put("unreachable", None, span)

    ranges: list[tuple[int, int, tuple[int, int]]] = []
    for i, bid in enumerate(order):
        b = fn.blocks[bid]
        start[bid] = len(code)
        for s in b.statements:
            first = len(code)
            if not isinstance(s, ir.Check):  # a check is no instruction: the operation raises
                statement(s)
            for h in hooks:
                h(fn, b, s, first, len(code))
        first = term_start = len(code)
        terminator(b.terminator, b.term_span, order[i + 1] if i + 1 < len(order) else None)
        for h in hooks:
            h(fn, b, b.terminator, first, len(code))
        if b.unwind is not None:
            ranges.append((start[bid], len(code), b.unwind))
    for pc, target in fixups:
        op, _ = code[pc]
        code[pc] = (op, start[target])
    for s, e, (handler, slot) in ranges:
        if out.exc_table and out.exc_table[-1].end == s and out.exc_table[-1].handler == start[handler] \
                and out.exc_table[-1].slot == slot:
            out.exc_table[-1].end = e
        else:
            out.exc_table.append(ExcEntry(s, e, start[handler], slot))
    return out
