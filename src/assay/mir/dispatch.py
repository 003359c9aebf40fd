"""Interface dispatchers: one MIR function per interface method (and per interface field) that
tests its receiver's run-time type against each implementing type and calls that type's
implementation. Plain MIR (type tests, branches, direct calls): every pass, extension and the
symbolic layer see a dispatch as ordinary code."""
from __future__ import annotations

from ..sema import interfaces
from ..sema import types as T
from . import ir
from . import typetest
from .reflect import TARGS


def dispatcher(index, fqn: str, reifying=None) -> ir.MirFunction:
    """The dispatcher named `fqn` (interfaces.dispatcher_fqn). A generic method's dispatcher
    takes a trailing `$targs` (the method's own type arguments, from the call) and passes it
    on to the implementations that reify them (`reifying`, mir/reflect.py)."""
    stem, _, k = fqn.rpartition(interfaces.DISPATCH)
    base, name = stem.rsplit(".", 1)
    iface = index.interfaces[base]
    impls = iface.impls_at(iface.variants[int(k or 0)])
    if name.startswith("field:"):
        params, has_default = ["self"], [False]
    else:
        decl = iface.methods[name].decl
        params = ["self"] + [p.name for p in decl.params]
        has_default = [False] + [p.default is not None for p in decl.params]
        if decl.generics:
            params.append(TARGS)
            has_default.append(True)
    locals_ = [ir.LocalDecl(None, T.UNKNOWN)] + [ir.LocalDecl(p, T.UNKNOWN) for p in params]
    locals_[1].ty = T.IfaceT(iface)
    blocks: list[ir.Block] = []

    def block() -> ir.Block:
        blocks.append(ir.Block(len(blocks)))
        return blocks[-1]

    def local(ty) -> ir.Local:
        locals_.append(ir.LocalDecl(None, ty))
        return ir.Local(len(locals_) - 1)

    has_targs = int(params[-1] == TARGS)
    this = ir.Copy(ir.Local(1))
    args = [ir.Copy(ir.Local(i + 1)) for i in range(len(params))]
    cur = block()
    for impl in impls:
        if impl.target is None:
            continue
        test, call = local(T.BOOL), block()
        cur.statements.append(ir.Assign(test, ir.IsType(this, typetest.of(impl.target))))
        nxt = block()
        cur.terminator = ir.Branch(ir.Copy(test), call.id, nxt.id, "dispatch")
        ret_b = block()
        ret_b.terminator = ir.Return()
        if name.startswith("field:"):
            call.statements.append(ir.Assign(ir.Local(0), ir.Load(ir.FieldPlace(this, impl.field_name(name[6:])))))
            call.terminator = ir.Goto(ret_b.id)
        else:
            m = impl.method(name)
            passed = args if m is not None and reifying is not None and reifying(m) else args[:len(params) - has_targs]
            call.terminator = ir.Call(ir.Callee("fn", m.fqn), list(passed), [], ir.Local(0), ret_b.id) \
                if m is not None else ir.Unreachable()
        cur = nxt
    cur.terminator = ir.Unreachable()  # the checker admits only implementing types
    return ir.MirFunction(fqn, params, has_default, locals_, blocks, iface.decl.span, 0, False)
