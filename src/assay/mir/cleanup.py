"""MIR cleanup after lowering: thread jumps through empty blocks, merge straight-line chains,
drop unreachable blocks and renumber. Pure CFG surgery; statements are never changed."""
from __future__ import annotations

from . import ir


def successors(t) -> list[int]:
    if isinstance(t, ir.Goto):
        return [t.target]
    if isinstance(t, ir.Branch):
        return [t.then, t.else_]
    if isinstance(t, ir.Call):
        return [t.target]
    if isinstance(t, ir.ThrowIfPanic):
        return [t.otherwise]
    return []


def _retarget(t, f) -> None:
    if isinstance(t, ir.Goto):
        t.target = f(t.target)
    elif isinstance(t, ir.Branch):
        t.then, t.else_ = f(t.then), f(t.else_)
    elif isinstance(t, (ir.Call,)):
        t.target = f(t.target)
    elif isinstance(t, ir.ThrowIfPanic):
        t.otherwise = f(t.otherwise)


def cleanup(fn: ir.MirFunction) -> None:
    _thread_and_prune(fn)
    _fold_temps(fn)


def _operands(fn: ir.MirFunction):
    """Every operand read anywhere in the function (statements, places, terminators)."""
    for b in fn.blocks:
        for s in b.statements:
            yield from ir.node_operands(s)
        if not isinstance(b.terminator, ir.Return):  # _0 is never folded
            yield from ir.node_operands(b.terminator)


def _fold_temps(fn: ir.MirFunction) -> None:
    """`_t = rvalue; _x = copy _t` → `_x = rvalue` when the temporary _t is read only there."""
    uses: dict[int, int] = {}
    for o in _operands(fn):
        if isinstance(o, ir.Copy):
            uses[o.place.index] = uses.get(o.place.index, 0) + 1
    for b in fn.blocks:
        out: list[ir.Assign] = []
        for s in b.statements:
            prev = out[-1] if out else None
            if (prev is not None and isinstance(s.value, ir.Use)
                    and isinstance(s.value.op, ir.Copy) and isinstance(prev.dest, ir.Local)
                    and prev.dest.index == s.value.op.place.index
                    and fn.locals[prev.dest.index].name is None and not fn.locals[prev.dest.index].is_cell
                    and uses.get(prev.dest.index) == 1 and prev.dest.index != 0
                    and (not isinstance(s.dest, ir.Local) or not fn.locals[s.dest.index].is_cell)
                    and _reads_before(s.dest, prev.dest.index)):
                out[-1] = ir.Assign(s.dest, prev.value, prev.span)
                continue
            out.append(s)
        b.statements = out


def _reads_before(dest, temp: int) -> bool:
    """A field/element/cell destination is evaluated after its value in emitted code: the
    merged statement is the same only if the destination does not read the temporary."""
    return all(not (isinstance(o, ir.Copy) and o.place.index == temp) for o in ir.place_operands(dest))


def _thread_and_prune(fn: ir.MirFunction) -> None:
    blocks = fn.blocks

    def final(b: int) -> int:
        seen = set()
        while (not blocks[b].statements and isinstance(blocks[b].terminator, ir.Goto)
               and b not in seen and b != 0):
            seen.add(b)
            b = blocks[b].terminator.target
        return b

    for b in blocks:
        _retarget(b.terminator, final)
    # merge b → c when b ends in `goto c`, c has no other predecessor and the same handler
    preds: dict[int, int] = {}
    for b in reachable(fn):
        for s in successors(blocks[b].terminator):
            preds[s] = preds.get(s, 0) + 1
    handlers = {blocks[b].unwind[0] for b in range(len(blocks)) if blocks[b].unwind}
    for b in reachable(fn):
        blk = blocks[b]
        while isinstance(blk.terminator, ir.Goto):
            c = blk.terminator.target
            nxt = blocks[c]
            if c == b or c == 0 or preds.get(c) != 1 or c in handlers or nxt.unwind != blk.unwind:
                break
            blk.statements += nxt.statements
            blk.terminator, blk.term_span = nxt.terminator, nxt.term_span
            nxt.statements, nxt.terminator = [], ir.Unreachable()
            preds[c] = 0
    keep = sorted(reachable(fn))
    new_id = {old: i for i, old in enumerate(keep)}
    fn.blocks = [blocks[i] for i in keep]
    for i, b in enumerate(fn.blocks):
        b.id = i
        _retarget(b.terminator, new_id.__getitem__)
        if b.unwind is not None:
            b.unwind = (new_id[b.unwind[0]], b.unwind[1])


def reachable(fn: ir.MirFunction) -> set[int]:
    """Blocks reachable from the entry, following edges and catch handlers."""
    seen = {0}
    work = [0]
    while work:
        b = fn.blocks[work.pop()]
        nxt = successors(b.terminator) + ([b.unwind[0]] if b.unwind else [])
        for s in nxt:
            if s not in seen:
                seen.add(s)
                work.append(s)
    return seen
