"""MIR text form, modelled on BAML's own MIR pretty-printer:

    fn user.f(x) {
        // Locals: _0: return, _1: x, _2, …
        bb0: {
            _2 = copy _1 + const 1_i64;
            goto -> bb1;
        }
    }
"""
from __future__ import annotations

from . import ir
from .typetest import show


def const(v) -> str:
    if isinstance(v, ir.FnRef):
        return f"fn {v.fqn}"
    if isinstance(v, bool):
        return f"const {'true' if v else 'false'}"
    if v is None:
        return "const null"
    if type(v) is int:
        return f"const {v}_i64"
    if type(v) is float:
        return f"const {v!r}_f64"
    if isinstance(v, str):
        return "const " + '"' + v.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
    if isinstance(v, ir.VariantConst):
        return f"const {v.enum}.{v.name}"
    return f"const {v!r}"


def operand(o) -> str:
    return const(o.value) if isinstance(o, ir.Const) else f"copy _{o.place.index}"


def place(p) -> str:
    if isinstance(p, ir.Local):
        return f"_{p.index}"
    if isinstance(p, ir.CellPlace):
        return f"(*{operand(p.base)})"
    if isinstance(p, ir.FieldPlace):
        return f"({operand(p.base)}).{p.name}"
    return f"({operand(p.base)})[{operand(p.index)}]"


def rvalue(v) -> str:
    if isinstance(v, ir.Use):
        return operand(v.op)
    if isinstance(v, ir.BinaryOp):
        suffix = ("_int" if v.kind == "int" else "") + ("/swap_msg" if v.swap_msg else "")
        return f"{operand(v.left)} {v.op}{suffix} {operand(v.right)}"
    if isinstance(v, ir.UnaryOp):
        return f"{v.op}{operand(v.operand)}"
    if isinstance(v, ir.Truthy):
        return f"truthy({operand(v.operand)})"
    if isinstance(v, ir.ArrayAgg):
        return "[" + ", ".join(operand(x) for x in v.items) + "]"
    if isinstance(v, ir.Concat):
        return "concat(" + ", ".join(operand(x) for x in v.parts) + ")"
    if isinstance(v, ir.MapAgg):
        return "{" + ", ".join(f"{operand(k)}: {operand(x)}" for k, x in v.entries) + "}"
    if isinstance(v, ir.ClassAgg):
        return f"{v.fqn} {{ " + ", ".join(operand(x) for x in v.fields) + " }"
    if isinstance(v, ir.Load):
        return "copy " + place(v.place)
    if isinstance(v, ir.BoundMethod):
        return f"copy ({operand(v.operand)}).$method:{v.name}"
    if isinstance(v, ir.IsType):
        return f"is_type({operand(v.operand)}, {show(v.ty)})"
    if isinstance(v, ir.IsOmitted):
        return f"is_type({operand(v.operand)}, omitted)"
    if isinstance(v, ir.MakeClosure):
        return f"make_closure {v.fqn}(" + ", ".join(f"_{c.index}" for c in v.captures) + ")"
    if isinstance(v, ir.MakeCell):
        return f"fresh_cell({operand(v.operand)})"
    if isinstance(v, ir.Len):
        return f"len({operand(v.operand)})"
    raise AssertionError(v)


def terminator(t) -> str:
    if isinstance(t, ir.Goto):
        return f"goto -> bb{t.target}"
    if isinstance(t, ir.Branch):
        return f"branch {operand(t.cond)} -> [true: bb{t.then}, false: bb{t.else_}]"
    if isinstance(t, ir.Return):
        return "return"
    if isinstance(t, ir.Call):
        c = t.callee
        args = [operand(a) for a in t.args] + [f"{k} = {operand(a)}" for k, a in t.kwargs]
        if c.kind == "fn":
            head = c.name
        elif c.kind == "native":
            head = f"builtin {c.name}"
        elif c.kind == "method":
            head = f"method .{c.name}"
        elif c.kind == "llm":
            head = f"llm {c.name}"
        else:
            head = "indirect"
        dest = f"_{t.dest.index} = " if t.dest is not None else ""
        return f"{dest}call {head}({', '.join(args)}) -> bb{t.target}"
    if isinstance(t, ir.Throw):
        return f"throw {operand(t.value)}"
    if isinstance(t, ir.Rethrow):
        return f"rethrow {operand(t.value)}"
    if isinstance(t, ir.ThrowIfPanic):
        return f"throw_if_panic {operand(t.value)} -> bb{t.otherwise}"
    return "unreachable"


def check(c: ir.Check) -> str:
    return f"check {c.panic.rsplit('.', 1)[-1]}({c.op}, {', '.join(operand(o) for o in c.operands)})"


def format_function(fn: ir.MirFunction) -> str:
    params = ", ".join(fn.params)
    out = [f"fn {fn.fqn}({params}) {{"]
    names = []
    for i, l in enumerate(fn.locals):
        label = f"_{i}"
        if i == 0:
            label += ": return"
        elif l.name:
            label += f": {l.name}"
        if l.is_cell:
            label += " (cell)"
        names.append(label)
    out.append("    // Locals: " + ", ".join(names))
    for b in fn.blocks:
        if b.terminator is None:
            continue
        unwind = f"  // unwind -> bb{b.unwind[0]} (error in _{b.unwind[1]})" if b.unwind else ""
        out.append(f"    bb{b.id}: {{{unwind}")
        for s in b.statements:
            out.append(f"        {check(s) if isinstance(s, ir.Check) else place(s.dest) + ' = ' + rvalue(s.value)};")
        out.append(f"        {terminator(b.terminator)};")
        out.append("    }")
    out.append("}")
    return "\n".join(out)
