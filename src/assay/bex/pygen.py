"""The VM's execution engine: turns one function's BEX bytecode into a Python function.

Each bytecode basic block is translated by simulating the operand stack: loads of locals and
constants stay symbolic, every other instruction becomes one Python statement, so
`load_var 1; load_const 1; bin_op_int +; store_var 1` becomes `s0 = v1 + 1` plus the 63-bit
range check. Blocks reached from a single place are inlined there (nested `if`/`else`). In the
plain variant the whole function is then structured (`structured`): loops become `while True`
with `continue`/`break`, blocks reached from several places follow the code of their
dominator, and range facts (bex/ranges.py) drop overflow checks that cannot fire. Where that
has no spelling (irreducible flow, a branch out of two loops, an exception table) and in the
instrumented variant, the rest become cases of a `pc` dispatch loop (a case whose chain jumps
back to itself is a `while True` loop). The exception table becomes a `try` around the loop
that routes errors to the handler block of the region `pc` is in.

Every opcode has one handler method `op_<name>`. The hook points (`prologue`, `before`,
`branch_edge`) emit nothing here; the instrumented variant of mirx extensions
(bex/instrument.py) fills them in, so a plain run executes exactly the code generated here.
"""
from __future__ import annotations

from bisect import bisect_right
import math
import re

from ..mir.ir import OMITTED, FnRef, TypeArg
from .bytecode import BexFunction
from ..sema.types import BOOL, INT, STRING, Arr
from .ranges import MAX, MIN, Facts, analyze
from .stdlib import native_param_names
from .values import from_const

ENDS_BLOCK = {"jump", "return", "throw", "rethrow", "unreachable"}
BRANCHES = {"jump", "pop_jump_if_false"}


def mangle(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name) + "_" + format(abs(hash(name)) % 65536, "x")


class Block:
    __slots__ = ("start", "end", "preds", "succ", "region")

    def __init__(self, start, end):
        self.start, self.end = start, end
        self.preds = 0
        self.succ: list[int] = []
        self.region = None


def split_blocks(fn: BexFunction) -> dict[int, Block]:
    code = fn.code
    leaders = {0}
    for pc, (op, arg) in enumerate(code):
        if op in BRANCHES:
            leaders.add(arg)
        if op in ENDS_BLOCK or op == "pop_jump_if_false":
            leaders.add(pc + 1)
    for e in fn.exc_table:
        leaders.update((e.start, e.end, e.handler))
    starts = sorted(x for x in leaders if x < len(code))
    blocks = {}
    for i, s in enumerate(starts):
        blocks[s] = Block(s, starts[i + 1] if i + 1 < len(starts) else len(code))
    for b in blocks.values():
        op, arg = code[b.end - 1]
        if op == "jump":
            b.succ = [arg]
        elif op == "pop_jump_if_false":
            b.succ = [b.end, arg]
        elif op not in ENDS_BLOCK and b.end < len(code):
            b.succ = [b.end]
        for s in b.succ:
            blocks[s].preds += 1
        for e in fn.exc_table:
            if e.start <= b.start < e.end:
                b.region = e
                break
    for e in fn.exc_table:
        blocks[e.handler].preds += 2  # entered from the except clause: always a dispatch case
    return blocks


class FunctionGen:
    def __init__(self, fn: BexFunction, names):
        """`names` names the code space's globals (functions, natives, classes, constants)."""
        self.fn = fn
        self.names = names
        self.code = fn.code
        self.blocks = split_blocks(fn)
        self.out: list[str] = []
        self.ind = 1
        self.stack: list[str] = []
        self.subst: dict[int, str] = {}  # fused temporaries: local → the expression it holds
        self.nested: list[tuple] = []  # closures generated in place: (line index, fqn, line pcs)
        self.fused: set[str] = set()  # expressions of fused temporaries (side-effect free)
        self.has_try = bool(fn.exc_table)
        self.skip = 0
        self.loop = None
        self.loads: dict[int, int] = {}
        for op, arg in fn.code:
            if op == "load_var":
                self.loads[arg] = self.loads.get(arg, 0) + 1
        self.callees = _callee_only(fn.code)
        handlers = {e.handler for e in fn.exc_table}
        # tiny blocks that end the function are duplicated into each predecessor
        # (and small blocks that jump on, e.g. a loop's step), except loop headers
        headers = {s for b in self.blocks.values() for s in b.succ if s <= b.start}
        tiny = {s for s, b in self.blocks.items() if s not in handlers and s not in headers and (
                (b.end - b.start <= 4 and self.code[b.end - 1][0] in ("return", "throw"))
                or (b.end - b.start <= 8 and self.code[b.end - 1][0] == "jump"
                    and (not fn.exc_table or b.region is None)))}
        self.dispatch = {0} | {s for s, b in self.blocks.items() if b.preds != 1 and s not in tiny}
        self.tiny = tiny
        self.promote_deep()
        # range facts drop provably unneeded overflow checks: plain variant only
        self.facts = None
        if self.fuse:  # (no int arithmetic: no fact to find)
            arith = any(op == "bin_op_int" and (arg[0] if isinstance(arg, tuple) else arg) in ARITH for op, arg in fn.code)
            self.facts = analyze(fn, self.blocks, names.runtime.class_arity) if arith else Facts()
        # locals the checker typed exactly int / bool (as it types the operands of bin_op_int):
        # an int literal test on one needs no type test, truthiness of one is itself
        self.int_vars: set[str] = set()
        self.bool_vars: set[str] = set()
        self.str_vars: set[str] = set()  # … and exactly string (map keys as themselves)
        self.list_vars: set[int] = set()  # locals the checker typed as arrays (Python lists)
        rt = getattr(names.runtime, "rt", None)  # the code space's runtime
        mir = getattr(rt, "mir", {}).get(fn.fqn) if self.fuse else None
        if mir is not None and len(mir.locals) == fn.n_locals:
            for i, d in enumerate(mir.locals):
                if 1 <= i <= len(fn.params) and fn.has_default[i - 1]:
                    continue  # OMIT until the body fills it in
                if d.ty == INT:
                    self.int_vars.add(f"v{i}")
                elif d.ty == BOOL:
                    self.bool_vars.add(f"v{i}")
                elif d.ty == STRING:
                    self.str_vars.add(f"v{i}")
                elif isinstance(d.ty, Arr):
                    self.list_vars.add(i)

    def cases(self, pcs: list[int]) -> None:
        """The dispatch loop's `if pc == …` cases; more than FLAT_CASES are split by `pc <`
        (a long `elif` chain is as deep to Python's compiler as it is long)."""
        if len(pcs) > FLAT_CASES:
            mid = len(pcs) // 2
            self.line(f"if pc < {pcs[mid]}:")
            self.ind += 1
            self.cases(pcs[:mid])
            self.ind -= 1
            self.line("else:")
            self.ind += 1
            self.cases(pcs[mid:])
            self.ind -= 1
            return
        first = True
        for s in pcs:
            self.line(f"{'if' if first else 'elif'} pc == {s}:")
            first = False
            self.ind += 1
            self.loop = s if self.loops_to_itself(s) else None
            if self.loop is not None:
                # a loop whose body is this block's chain: its back edge is `continue`
                self.line("while True:")
                self.ind += 1
            self.chain(s, self.blocks[s].region, set())
            self.ind -= 1 + (self.loop is not None)

    def promote_deep(self) -> None:
        """A block nested more than MAX_NEST levels into the chain of its dispatch block is
        made a dispatch block itself, so that generated code (and the generator's recursion)
        stays shallow whatever the CFG's depth (a 5,000-term `a && b && …` or `??` chain)."""
        todo = [(s, 0) for s in self.dispatch]
        depth: dict[int, int] = {}
        while todo:
            s, d = todo.pop()
            for t in self.blocks[s].succ:
                if t in self.dispatch or t in depth:
                    continue
                if d >= MAX_NEST:
                    self.dispatch.add(t)
                    depth[t] = 0
                else:
                    depth[t] = d + 1
                todo.append((t, depth[t]))

    # ── output helpers ──

    def line(self, text: str) -> None:
        self.out.append("    " * self.ind + text)
        self.line_pcs.append(getattr(self, "pc", 0))  # for BAML tracebacks: Python line → pc

    def push(self, expr: str) -> None:
        self.stack.append(expr)

    def pop(self) -> str:
        return self.stack.pop()

    def popn(self, n: int) -> list[str]:
        if n == 0:
            return []
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def slot(self) -> str:
        return f"s{len(self.stack)}"

    def result(self, expr: str) -> None:
        """Materialise a value: straight into the local of a following store_var, else into
        a stack slot. A temporary stored and at once reloaded for its only use by a branch,
        return or store is not materialised at all."""
        nxt = self.code[self.pc + 1] if self.pc + 1 < self.block_end else None
        if nxt == ("store_var", 0) and self.returns_next_at(self.pc + 1):
            self.line(f"return {expr}")
            self.skip = 3
            return
        if (self.fuse and nxt is not None and nxt[0] == "store_var" and self.pc + 3 < self.block_end + 1
                and self.loads.get(nxt[1]) == 1 and self.fn.local_names[nxt[1]] is None
                and self.code[self.pc + 2] == ("load_var", nxt[1])
                and self.code[self.pc + 3][0] in ("pop_jump_if_false", "return", "store_var")):
            self.push(expr)
            self.skip = 2
            return
        if nxt is not None and nxt[0] == "store_var" and self._fusable(nxt[1]):
            self.subst[nxt[1]] = expr  # read once, a few loads later: inline it there
            self.skip = 1
            return
        if nxt is not None and nxt[0] == "store_var":
            self.spill(f"v{nxt[1]}")
            self.line(f"v{nxt[1]} = {expr}")
            self.skip = 1
            return
        s = self.slot()
        self.line(f"{s} = {expr}")
        self.push(s)

    def _fusable(self, t: int) -> bool:
        """(Plain variant.) Is temporary `t`, just computed by a side-effect-free instruction,
        read once, after only loads, by the instruction that consumes it at once? Its value is
        then written into that instruction's expression: the loads between cannot change it,
        and nothing is evaluated between it and its use."""
        if not self.fuse or self.loads.get(t) != 1 or self.fn.local_names[t] is not None:
            return False
        if self.code[self.pc][0] not in PURE_OPS:
            return False
        k = self.pc + 2
        while k < self.block_end and self.code[k][0] in ("load_var", "load_const") and self.code[k] != ("load_var", t):
            k += 1
        if k >= self.block_end or self.code[k] != ("load_var", t):
            return False
        j = k + 1  # loads after it are fine if the consumer takes them all, and `t` with them
        while j < self.block_end and self.code[j][0] in ("load_var", "load_const") and self.code[j] != ("load_var", t):
            j += 1
        return j < self.block_end and j - k <= _takes(*self.code[j])

    def target(self) -> str:
        """Where a multi-line computation puts its value: the following store_var's local
        (skipping it), else a stack slot (pushed)."""
        nxt = self.code[self.pc + 1] if self.pc + 1 < self.block_end else None
        if nxt is not None and nxt[0] == "store_var":
            self.spill(f"v{nxt[1]}")
            self.skip = 1
            return f"v{nxt[1]}"
        s = self.slot()
        self.push(s)
        return s

    def spill(self, var: str) -> None:
        """Before `var` is overwritten, materialise stack entries that still read it."""
        for i, e in enumerate(self.stack):
            if e == var:
                s = f"s{i}"
                self.line(f"{s} = {e}")
                self.stack[i] = s

    # ── whole function ──

    def generate(self, pyname: str, params: list[str] | None = None) -> str:
        """The Python source of the function, named `pyname` (`params`: its parameter list,
        when not the bytecode's own, as for a closure nested in its maker)."""
        fn = self.fn
        if params is None:
            params = []
            for i, name in enumerate(fn.params):
                # Python wants defaults last: a parameter after a defaulted one gets one too (every
                # caller passes it; the host binding rejects a missing one)
                params.append(f"v{i + 1}=OMIT" if any(fn.has_default[:i + 1]) else f"v{i + 1}")
        head = f"def {pyname}({', '.join(params)}):"
        self.out = [head]
        self.line_pcs = [0]
        self.prologue()
        if self.dispatch == {0} and not self.has_try and not self.blocks[0].preds:
            self.chain(0, None, set())  # (straight-line code: no loop, not even one headed by the entry)
        elif self.fuse and not self.has_try and self.versioned():
            pass
        elif self.fuse and not self.has_try and self.structured():
            pass
        else:
            self.line("pc = 0")
            self.line("while True:")
            self.ind += 1
            if self.has_try:
                self.line("try:")
                self.ind += 1
            order = self.dispatch_order()
            self.cases(order if len(order) <= FLAT_CASES else sorted(order))
            if self.has_try:
                self.ind -= 1
                self.line("except Exception as _e:")
                self.ind += 1
                first = True
                for e in fn.exc_table:
                    covered = sorted(s for s, b in self.blocks.items() if b.region is e)
                    self.line(f"{'if' if first else 'elif'} pc in {set(covered)!r}:")
                    first = False
                    self.line(f"    v{e.slot} = error_value(_e); pc = {e.handler}")
                self.line("else: raise")
                self.ind -= 1
        return "\n".join(self.out) + "\n"

    # ── structured control flow (plain variant): loops and merges without `pc` dispatch ──

    def structured(self) -> bool:
        """Generate the whole function as nested `while True` / `if` statements, following the
        dominator tree (Ramsey, "Beyond Relooper", adapted to Python's unlabelled `break` and
        `continue`): a loop header becomes `while True:` with its exit (the loop's *follow*)
        right after it; a block reached from several places (a *merge*) is placed after the
        code of its immediate dominator, which branches to it by falling through or, from
        deeper inside, by `break` out of a one-shot `while True:` wrapper. Returns False (and
        emits nothing) when some branch has no such spelling (irreducible flow, a branch out of
        two loops at once, ...): the caller then generates the `pc` dispatch loop."""
        start, ind = len(self.out), self.ind
        try:
            cfg = self._cfg()
            if cfg.irreducible:
                return False
            self.cfg = cfg
            self._dup: list[int] = []
            self.counting: list[tuple] = []  # counted loops being generated: (header, array loop's first block)
            self.s_tree(0, [], None)
            if len(self.out) - start > 40 * len(self.code) + 200:
                raise _Unstructured("code duplication")
            _check_nesting(self.out[start:])
            return True
        except (_Unstructured, RecursionError):  # (a very deep CFG: the dispatch loop is flat)
            self._truncate(start)
            self.ind, self.stack, self.skip, self.subst = ind, [], 0, {}
            return False

    def _cfg(self) -> "_Cfg":
        if getattr(self, "_cfg_made", None) is None:
            self._cfg_made = _Cfg(self.blocks, self.tiny)
        return self._cfg_made

    def versioned(self) -> bool:
        """Two structured copies of the function: one for int parameters within ±BOUND (range
        facts that assume it drop more overflow checks in loops, `i <= n` loops count with
        `range`), one for any others. Only where that assumption drops a check inside a loop;
        False (nothing emitted) otherwise or when the code has no structured spelling."""
        params = {i + 1: (-BOUND, BOUND) for i in range(len(self.fn.params)) if f"v{i + 1}" in self.int_vars}
        if not params or self.facts is None or not any(s <= b.start for b in self.blocks.values() for s in b.succ):
            return False  # (no int parameter, or no loop)
        cfg = self._cfg()
        if cfg.irreducible or not cfg.body:
            return False
        in_loops = {pc for body in cfg.body.values() for n in body
                    for pc in range(self.blocks[n].start, self.blocks[n].end)}
        if not any(op == "bin_op_int" and (arg[0] if isinstance(arg, tuple) else arg) in ("+", "-", "*") and pc in in_loops
                   and not _unchecked(self.facts.exact.get(pc)) for pc, (op, arg) in enumerate(self.code)):
            return False  # no check left in a loop: nothing to gain
        bounded = analyze(self.fn, self.blocks, self.names.runtime.class_arity, params)
        if not any(pc in in_loops and _unchecked(r) and not _unchecked(self.facts.exact.get(pc))
                   for pc, r in bounded.exact.items()):
            return False
        start, general = len(self.out), self.facts
        self.line("if " + " and ".join(f"{-BOUND} <= v{k} <= {BOUND}" for k in sorted(params)) + ":")
        self.ind += 1
        self.facts = bounded
        ok = self.structured()
        self.facts = general
        self.ind -= 1
        if ok:
            self.line("else:")
            self.ind += 1
            ok = self.structured()
            self.ind -= 1
        if not ok:
            self._truncate(start)
        return ok

    def s_tree(self, x: int, frames: list, fall) -> None:
        """Block `x` and everything it dominates (`fall`: where control goes when the code
        emitted here runs off its end)."""
        cfg = self.cfg
        counted = (self.counted_loop(x) or self.array_loop(x)) if x in cfg.headers else None
        if counted is not None:
            self.s_for(x, counted, frames, fall)
        elif x in cfg.headers:
            follow = cfg.follow.get(x)
            inner = [c for c in cfg.children[x] if c in cfg.merge and c not in cfg.follows]
            self.line("while True:")
            self.ind += 1
            # without a follow, `break` goes where the loop statement itself is followed
            self.s_within(x, inner, frames + [_Frame("loop", x, fall if follow is None else follow)], x)
            self.ind -= 1
            if follow is not None:
                self.s_tree(follow, frames, fall)
        else:
            self.s_within(x, [c for c in cfg.children[x] if c in cfg.merge and c not in cfg.follows], frames, fall)

    def s_for(self, x: int, counted: tuple, frames: list, fall) -> None:
        """A counted loop (`counted_loop`) as `for i in range(i, n, step):`: the header's test
        and the latches' increments are the range's; the header's exit edge is the `else:`
        clause (run when the range ends, not on `break`)."""
        cfg = self.cfg
        follow = cfg.follow.get(x)
        after = fall if follow is None else follow
        inner = [c for c in cfg.children[x] if c in cfg.merge and c not in cfg.follows]
        if counted[0] == "range":
            _, var, bound, step, exit_ = counted
            self.line(f"for v{var} in range(v{var}, {bound}{'' if step == 1 else f', {step}'}):")
            self.counting.append((x, None))
        else:
            _, var, arr, exit_, first = counted
            self.line(f"for v{var} in v{arr}:")
            self.counting.append((x, first))
        self.ind += 1
        body = len(self.out)
        self.s_within(x, inner, frames + [_Frame("loop", x, after)], x)
        if len(self.out) == body:  # an empty body (`for (let _ in xs) {}`)
            self.line("pass")
        self.counting.pop()
        self.ind -= 1
        at = len(self.out)
        self.line("else:")
        self.ind += 1
        self.s_branch(exit_, frames, after)  # outside the loop: a branch to `after` falls out
        self.ind -= 1
        if len(self.out) == at + 1:
            self._drop_line(at)
        if follow is not None:
            self.s_tree(follow, frames, fall)

    def counted_loop(self, h: int):
        """(i, bound, step, exit) when loop `h` is `while (i < n) { …; i += step }` (or `<=`):
        the header is exactly the test of local `i` against a constant or a local `n` the
        loop never stores, every back edge comes from a block ending in `i += step` (a
        positive constant step the range facts prove cannot overflow), the loop stores `i`
        nowhere else, and nothing outside the loop reads `i` (its value after a `range` loop
        differs). None otherwise (plain variant, structured code only)."""
        b, code = self.blocks[h], self.code
        head = code[b.start:b.end]
        if len(head) == 6 and head[3][0] == "store_var" and head[4] == ("load_var", head[3][1]) \
                and self.loads.get(head[3][1]) == 1 and self.fn.local_names[head[3][1]] is None:
            head = head[:3] + head[5:]
        if len(head) != 4 or head[0][0] != "load_var" or head[3][0] != "pop_jump_if_false" \
                or head[2] not in (("bin_op_int", "<"), ("bin_op_int", "<=")):
            return None
        i, (bop, barg) = head[0][1], head[1]
        if bop == "load_var" and barg != i:
            bound = f"v{barg}"
        elif bop == "load_const" and type(barg) is int:
            bound = repr(barg)
        else:
            return None
        if head[2][1] == "<=":
            bound = f"{bound} + 1"
        body = self.cfg.body[h]
        if head[3][1] in body:
            return None
        step, latches = None, set()
        for n in body:
            blk = self.blocks[n]
            if h in blk.succ:
                latches.add(n)
                tail = code[blk.end - 5:blk.end] if blk.end - blk.start >= 5 else []
                if (len(tail) != 5 or tail[0] != ("load_var", i) or tail[1][0] != "load_const"
                        or type(tail[1][1]) is not int or tail[1][1] <= 0 or tail[2] != ("bin_op_int", "+")
                        or tail[3] != ("store_var", i) or tail[4] != ("jump", h) or step not in (None, tail[1][1])):
                    return None
                r = self.facts.exact.get(blk.end - 3) if self.facts is not None else None
                if r is None or r[1] > MAX:
                    return None
                step = tail[1][1]
        stores = [(n, pc) for n in body for pc in range(self.blocks[n].start, self.blocks[n].end)
                  if code[pc][0] == "store_var" and code[pc][1] in (i, barg if bop == "load_var" else None)]
        if step is None or any(code[pc][1] != i or n not in latches or pc != self.blocks[n].end - 2
                               for n, pc in stores):
            return None
        for n, blk in self.blocks.items():
            if n not in body and ("load_var", i) in code[blk.start:blk.end]:
                return None
        return "range", i, bound, step, head[3][1]

    def array_loop(self, h: int):
        """("iter", x, arr, exit, first) when loop `h` is a `for (x in arr)` over an array
        local (lowered as an index `i` tested against `arr.length()` each time round, `x =
        arr[i]; i += 1` first in the body): `for x in arr:` — Python's list iterator is that
        index loop (a back edge is its `continue`) — provided the loop stores neither `arr` nor
        `i` elsewhere and `i` is read nowhere else. None otherwise."""
        b, code = self.blocks[h], self.code
        head = code[b.start:b.end]
        if len(head) != 9 or head[1] != ("len", None) or head[5] != ("bin_op_int", "<") \
                or head[8][0] != "pop_jump_if_false" or head[0][0] != "load_var" or head[3][0] != "load_var":
            return None
        arr, i, t, u = head[0][1], head[3][1], head[2][1], head[6][1]
        if arr not in self.list_vars or (head[2] != ("store_var", t) or head[4] != ("load_var", t) or head[6] != ("store_var", u)
                or head[7] != ("load_var", u) or any(self.loads.get(v) != 1 or self.fn.local_names[v] is not None
                                                     for v in (t, u))):
            return None
        first, exit_ = b.end, head[8][1]
        step = code[first:first + 8]
        if (self.blocks[first].preds != 1 or len(step) != 8 or step[3][0] != "store_var"
                or step != [("load_var", arr), ("load_var", i), ("load_index", "array_in_bounds"), ("store_var", step[3][1]),
                            ("load_var", i), ("load_const", 1), ("bin_op_int", "+"), ("store_var", i)]):
            return None
        x, body = step[3][1], self.cfg.body[h]
        if x in (i, arr) or exit_ in body or self.loads.get(i) != 3 or first + 8 > self.blocks[first].end:
            return None
        for n in body:
            blk = self.blocks[n]
            for pc in range(blk.start, blk.end):
                if code[pc] in (("store_var", arr), ("store_var", i)) and pc != first + 7:
                    return None
        return "iter", x, arr, exit_, first

    def s_within(self, x: int, merges: list, frames: list, fall) -> None:
        if merges:
            y = merges[-1]  # the latest in reverse postorder is placed last, outermost
            fr = _Frame("block", y, None)
            at = len(self.out)
            self.line("while True:")  # dropped again unless a `break` needs it
            self.ind += 1
            self.s_within(x, merges[:-1], frames + [fr], y)
            if fr.wrap:
                self.line("break")
            self.ind -= 1
            if not fr.wrap:
                self._drop_line(at)
                for k in range(at, len(self.out)):
                    self.out[k] = self.out[k][4:]
            self.s_tree(y, frames, fall)
            return
        self.s_block(x, frames, fall)

    def s_block(self, x: int, frames: list, fall) -> None:
        """Block `x`'s statements, then its branch."""
        b = self.blocks[x]
        self.stack, self.subst = [], {}
        self.block_end = b.end
        self.pc = b.start
        end = b.end
        if self.counting and self.counting[-1][0] == x:
            self.s_branch(b.end, frames, fall)  # a counted loop's header: the `for` tests
            return
        for h, first in reversed(self.counting):
            if first == x:
                self.pc = b.start + 8  # an array loop's `x = arr[i]; i += 1`: the `for` does it
                break
            if first is None and h in b.succ and self.code[b.end - 1] == ("jump", h):
                end = b.end - 5  # a latch of a counted loop: the range counts
                break
        while self.pc < end:
            op, arg = self.code[self.pc]
            self.before(self.pc)
            if self.skip:
                self.skip -= 1
            elif op == "jump":
                self.s_branch(arg, frames, fall)
                return
            elif op == "pop_jump_if_false":
                cond, jump_pc = self.pop(), self.pc
                at = len(self.out)
                self.line(f"if {cond}:")
                self.ind += 1
                self.branch_edge(jump_pc, True)
                self.s_branch(b.end, frames, fall)
                if len(self.out) == at + 1:  # nothing to do when true: test the negation
                    self.out[at] = self.out[at].replace(f"if {cond}:", f"if not {_paren(cond)}:", 1)
                    self.branch_edge(jump_pc, False)
                    self.s_branch(arg, frames, fall)
                    if len(self.out) == at + 1:
                        self.line("pass")
                else:
                    self.ind -= 1
                    at = len(self.out)
                    self.line("else:")
                    self.ind += 1
                    self.branch_edge(jump_pc, False)
                    self.s_branch(arg, frames, fall)
                    if len(self.out) == at + 1:
                        self._drop_line(at)
                self.ind -= 1
                return
            else:
                getattr(self, "op_" + op)(arg)
            self.after(self.pc)
            self.pc += 1
        if end < b.end:
            self.s_branch(self.code[b.end - 1][1], frames, fall)
        elif b.succ and self.code[b.end - 1][0] not in ENDS_BLOCK:
            self.s_branch(b.end, frames, fall)

    def s_branch(self, t: int, frames: list, fall) -> None:
        cfg = self.cfg
        if t in cfg.tiny and t not in self._dup:
            self._dup.append(t)  # a small block is repeated at each branch to it
            self.s_block(t, frames, fall)
            self._dup.pop()
            return
        back = t in cfg.headers and any(fr.kind == "loop" and fr.target == t for fr in frames)
        if not back and t not in cfg.merge and t not in cfg.follows:
            self.s_tree(t, frames, fall)  # reached from here only: inline
            return
        if t == fall:
            return
        for fr in reversed(frames):
            if fr.kind == "loop":
                if t == fr.target:
                    self.line("continue")
                    return
                if t == fr.follow:
                    self.line("break")
                    return
                raise _Unstructured("branch out of a loop to a block that does not follow it")
            if t == fr.target:
                if fr.wrap is False:
                    raise _Unstructured("block used both ways")
                fr.wrap = True
                self.line("break")
                return
            if fr.wrap:
                raise _Unstructured("block used both ways")
            fr.wrap = False  # a branch passes through it: it must stay unwrapped
        raise _Unstructured("no enclosing construct")

    def _drop_line(self, k: int) -> None:
        del self.out[k], self.line_pcs[k]
        self.nested = [(i - (i > k), f, pcs) for i, f, pcs in self.nested]

    def _truncate(self, start: int) -> None:
        """Drop the lines from `start` on (a structured attempt given up)."""
        del self.out[start:], self.line_pcs[start:]
        self.nested = [r for r in self.nested if r[0] < start]

    def loops_to_itself(self, d: int) -> bool:
        """Does the chain generated for dispatch block `d` jump back to `d`?"""
        seen, work = {d}, [d]
        while work:
            for s in self.blocks[work.pop()].succ:
                if s == d:
                    return True
                if s not in self.dispatch and s not in seen:
                    seen.add(s)
                    work.append(s)
        return False

    def dispatch_order(self) -> list[int]:
        """Innermost loops first, so that a hot loop's header is the first `pc` test."""
        loops = [(s, b.end) for b in self.blocks.values() for s in b.succ if s <= b.start]
        # how many [lo, hi) back-edge ranges hold d: those starting at or before d, less
        # those ending at or before it (sorted bounds: many loops × many blocks stays cheap)
        los, his = sorted(lo for lo, _ in loops), sorted(hi for _, hi in loops)
        depth = {d: bisect_right(los, d) - bisect_right(his, d) for d in self.dispatch}
        return sorted(self.dispatch, key=lambda d: (-depth[d], d))

    def chain(self, start: int, region, seen: set) -> None:
        """Emit block `start` and, inline, every successor that only it reaches."""
        b = self.blocks[start]
        if self.has_try and b.region is not region:
            self.line(f"pc = {start}")
        self.stack, self.subst = [], {}
        self.block_end = b.end
        self.pc = b.start
        while self.pc < b.end:
            op, arg = self.code[self.pc]
            self.before(self.pc)
            if self.skip:
                self.skip -= 1
            elif op == "jump":
                self.goto(arg, b.region, seen | {start})
            elif op == "pop_jump_if_false":
                cond = self.pop()
                jump_pc = self.pc
                self.line(f"if {cond}:")
                self.ind += 1
                self.branch_edge(jump_pc, True)
                self.goto(b.end, b.region, seen | {start})
                self.ind -= 1
                self.line("else:")
                self.ind += 1
                self.branch_edge(jump_pc, False)
                self.goto(arg, b.region, seen | {start})
                self.ind -= 1
                return
            else:
                getattr(self, "op_" + op)(arg)
            self.after(self.pc)
            self.pc += 1
        if b.succ and self.code[b.end - 1][0] not in ENDS_BLOCK:
            self.goto(b.end, b.region, seen | {start})

    # extension hook points: the plain generator emits nothing here (assay.bex.instrument does)
    def prologue(self) -> None:
        pass

    def before(self, pc: int) -> None:
        pass

    def after(self, pc: int) -> None:
        pass

    def branch_edge(self, pc: int, taken: bool) -> None:
        pass

    def call_result(self, expr: str) -> None:
        """A call's value (the instrumented variant may substitute the call)."""
        self.result(expr)

    def goto(self, target: int, region, seen: set) -> None:
        if target in self.dispatch or target in seen:
            if target == self.loop:
                if self.has_try:
                    self.line(f"pc = {target}")
                self.line("continue")
            else:
                self.line(f"pc = {target}")
                self.line("break" if self.loop is not None else "continue")
            return
        saved = (self.block_end, self.pc)
        self.chain(target, region, seen)
        self.block_end, self.pc = saved
        self.pc = self.block_end  # the rest of the current block was the jump

    # ── opcode handlers ──

    def op_load_const(self, v) -> None:
        self.push(self.const_expr(v))

    def const_expr(self, v) -> str:
        if v is None or isinstance(v, bool) or (type(v) is int) or isinstance(v, str):
            return repr(v)
        if type(v) is float:
            return repr(v) if math.isfinite(v) else self.names.const(v)
        if isinstance(v, FnRef):
            return self.names.native(v.fqn) if v.builtin else self.names.fn(v.fqn)
        if v is OMITTED:
            return "OMIT"
        if type(v) is TypeArg:  # a builtin's type argument: its run-time form
            return self.names.const(self.names.runtime.type_arg(v))
        return self.names.const(from_const(v, self.names.runtime.enums))

    def op_load_var(self, i) -> None:
        if i in self.subst:
            e = self.subst.pop(i)
            self.fused.add(e)
            for typed in (self.int_vars, self.bool_vars):  # the temporary's static type is the value's
                if f"v{i}" in typed:
                    typed.add(e)
            self.push(e)
        else:
            self.push(f"v{i}")

    def op_store_var(self, i) -> None:
        v = self.pop()
        if self.returns_next(i):
            self.line(f"return {v}")
            return
        if self.fuse and not self.loads.get(i) and (v.isidentifier() or v in ("None", "True", "False")
                                                     or v.lstrip("-").isdigit()):
            return  # a local never read (a match's unit value): nothing to store
        self.spill(f"v{i}")
        self.line(f"v{i} = {v}")

    # the plain variant fuses temporaries away; the instrumented one keeps every MIR local
    fuse = True
    nest = True  # closures generated in place (`nested_closure`; off: vm._closure_maker)
    fuse_returns = True

    def returns_next_at(self, pc: int) -> bool:
        return self.fuse_returns and self.code[pc + 1:pc + 3] == [("load_var", 0), ("return", None)]

    def returns_next(self, i: int) -> bool:
        """`store_var 0; load_var 0; return`: return the value directly (skipping two)."""
        if i == 0 and self.fuse_returns and self.code[self.pc + 1:self.pc + 3] == [("load_var", 0), ("return", None)]:
            self.skip = 2
            return True
        return False

    def op_load_deref(self, _) -> None:
        self.result(f"{self.pop()}[0]")

    def op_store_deref(self, _) -> None:
        v = self.pop()
        c = self.pop()
        self.line(f"{c}[0] = {v}")

    def op_make_cell(self, _) -> None:
        self.result(f"[{self.pop()}]")

    def op_load_field(self, name) -> None:
        self.result(f"{self.pop()}.f_{name}")

    def op_load_method(self, name) -> None:
        self.result(f"bind_method({self.pop()}, {name!r})")  # a bound method value (also of builtins)

    def op_store_field(self, name) -> None:
        v = self.pop()
        o = self.pop()
        self.line(f"{o}.f_{name} = {v}")

    def op_load_index(self, kind) -> None:
        i = self.pop()
        c = self.pop()
        if kind == "array_in_bounds":
            self.result(f"{c}[{i}]")
        elif kind in ("array", "map", "map_key"):
            # Python indexing is BAML's where it succeeds; load_index raises the BAML panic
            t = self.target()
            k = f"mkey({i})" if kind == "map_key" else i
            self.line(f"try: {t} = {c}[{k}]")
            self.line(f"except {'IndexError' if kind == 'array' else 'KeyError'}: {t} = load_index({c}, {i})")
        else:
            self.result(f"load_index({c}, {i})")

    def op_store_index(self, kind) -> None:
        v, i, c = self.pop(), self.pop(), self.pop()
        if kind == "map":
            self.line(f"{c}[{i}] = {v}")
        elif kind == "map_key":
            self.line(f"{c}[mkey({i})] = {v}")
        elif kind == "array":
            # Python's list indexing is BAML's within bounds (negative from the end); outside
            # them, store_index raises the BAML panic
            self.line(f"try: {c}[{i}] = {v}")
            self.line(f"except IndexError: store_index({c}, {i}, {v})")
        else:
            self.line(f"store_index({c}, {i}, {v})")

    def operands(self, op) -> tuple[str, str, str, tuple[str, str]]:
        """Pop a binary op's operands: (op, a, b, operands as an overflow message names them)."""
        b = self.pop()
        a = self.pop()
        if isinstance(op, tuple):  # ('+', 'swap_msg'): the real engine's reversed message
            return op[0], a, b, (b, a)
        return op, a, b, (a, b)

    def checked(self, op: str, a: str, b: str, msg: tuple[str, str], guard: str = "") -> None:
        """`a op b` with the 63-bit range check (`guard`: only when the result is an int),
        computed straight into the next store's local unless that local is an operand (the
        overflow message still needs both). Where the range facts bound the exact result, the
        check is one-sided or not there at all."""
        r = self.facts.exact.get(self.pc) if self.facts is not None and not guard else None
        if r is not None and r[0] >= MIN and r[1] <= MAX:
            self.result(f"({a} {op} {b})")
            return
        s = self.slot()
        old = self._in_place(op, a, b) if self.facts is not None and not self.has_try and not guard else None
        # only a temporary: a named local must keep its old value if the check panics
        if old is not None or (self._next_is_store() and (self.code[self.pc + 1][1] == 0  # _0 is read only by return
                                       or self.fn.local_names[self.code[self.pc + 1][1]] is None)
                and f"v{self.code[self.pc + 1][1]}" not in (a, b)):
            s = f"v{self.code[self.pc + 1][1]}"
            self.spill(s)
            self.skip = 1
            if old is not None:  # the message names the operand's old value, recomputed
                msg = tuple(old if m == s else m for m in msg)
        else:
            self.push(s)
        guard = guard.replace("{s}", s)
        self.line(f"{s} = {a} {op} {b}")
        # a one-digit bound first: CPython specialises int comparisons only for one-digit ints,
        # so a small result (most of them) passes two cheap tests, not a 63-bit one
        test = (f"{s} > {SMALL} and {s} > {MAX}" if r is not None and r[0] >= MIN
                else f"{s} < {-SMALL - 1} and {s} < {MIN}" if r is not None and r[1] <= MAX
                else f"({s} > {SMALL} or {s} < {-SMALL - 1}) and not {MIN} <= {s} <= {MAX}")
        self.line(f"if {guard}{test}: overflow('{op}', {msg[0]}, {msg[1]})")
        if s.startswith("s") and self._next_is_store():
            self.result_var(self.pop())

    def _in_place(self, op: str, a: str, b: str):
        """`v = v + b` / `v = v - b` (b another value): in a function without an exception
        table no code can see `v` after an overflow panic, so the sum goes straight into `v`
        and the panic message's old operand is recomputed from it; returns that expression
        (None: not this shape)."""
        if not self._next_is_store() or op not in ("+", "-") or a == b:
            return None
        v = f"v{self.code[self.pc + 1][1]}"
        if v == a and (b.isidentifier() or b.lstrip("-").isdigit() or (b in self.fused and not re.search(rf"\b{v}\b", b))):
            return f"({v} - {b})" if op == "+" else f"({v} + {b})"  # (a fused b does not read v)
        if v == b and op == "+" and (a.isidentifier() or a.lstrip("-").isdigit()):
            return f"({v} - {a})"
        return None

    def op_bin_op_int(self, op) -> None:
        op, a, b, msg = self.operands(op)
        if op in ("+", "-", "*"):
            self.checked(op, a, b, msg)
        elif op in ("<", "<=", ">", ">=", "==", "!=", "&", "|", "^"):
            self.result(f"({a} {op} {b})")
        elif op in ("/", "%") and self.facts is not None and self.pc in self.facts.fast:
            self.result(f"({a} {'//' if op == '/' else '%'} {b})")  # a >= 0 and b > 0 always
        elif op == "/":
            a, b = self.simple(a, 1), self.simple(b, 2)
            self.result(f"({a} // {b} if {_fast_path(a, b)} else div({a}, {b}))")
        elif op == "%":
            a, b = self.simple(a, 1), self.simple(b, 2)
            self.result(f"({a} % {b} if {_fast_path(a, b)} else mod({a}, {b}))")
        else:
            self.result(f"{BINOPS[op]}({a}, {b})")

    def op_bin_op_float(self, op) -> None:
        op, a, b, _ = self.operands(op)
        if op in ("+", "-", "*"):
            self.result(f"({a} {op} {b})")
        elif op == "/":
            b = self.simple(b, 2)
            self.result(f"({a} / {b} if {b} else fdiv({a}, {b}))")
        elif op == "%":
            self.result(f"fmod({a}, {b})")
        else:
            self.result(f"{BINOPS[op]}({a}, {b})")

    def op_bin_op_string(self, op) -> None:
        op, a, b, _ = self.operands(op)
        if op in ("+", "==", "!=", "<", "<=", ">", ">="):
            self.result(f"{a} {op} {b}" if op == "+" else f"({a} {op} {b})")
        else:
            self.result(f"{BINOPS[op]}({a}, {b})")

    def op_bin_op_bool(self, op) -> None:
        op, a, b, _ = self.operands(op)
        if op in ("==", "!="):
            self.result(f"({a} {op} {b})")
        else:
            self.result(f"{BINOPS[op]}({a}, {b})")

    def simple(self, e: str, k: int) -> str:
        """`e`, or a stack slot holding it when it is an expression that code about to be
        generated would evaluate more than once (a fused temporary): operand `k` of those
        just popped gets the slot `k` above the stack (free, and distinct per operand)."""
        if e.isidentifier() or e.lstrip("-").isdigit():
            return e
        s = f"s{len(self.stack) + k}"
        self.line(f"{s} = {e}")
        return s

    def result_var(self, s: str) -> None:
        """`sN` computed by a checked op goes into the following store_var's local."""
        var = f"v{self.code[self.pc + 1][1]}"
        self.spill(var)
        self.line(f"{var} = {s}")
        self.skip = 1

    def _next_is_store(self) -> bool:
        return self.pc + 1 < self.block_end and self.code[self.pc + 1][0] == "store_var"

    def op_bin_op(self, op) -> None:
        op, a, b, msg = self.operands(op)
        if op in ("+", "-", "*"):
            self.checked(op, a, b, msg, guard="type({s}) is int and ")
        elif op in ("==", "!=") and (b == "None" or a == "None"):
            other = a if b == "None" else b
            self.result(f"({other} {'is' if op == '==' else 'is not'} None)")
        elif op in ("==", "!=") and b.startswith(("'", '"')):
            self.result(f"({a} {op} {b})")
        elif op in ("==", "!=") and b.lstrip("-").isdigit() and a in self.int_vars:
            self.result(f"({a} {op} {b})")
        elif op in ("==", "!=") and b.lstrip("-").isdigit():
            test = f"(type({a}) is int and {a} == {b})"
            self.result(test if op == "==" else f"(not {test})")
        elif op in ("==", "!=") and b in self.names.variants:
            self.result(f"({a} {'is' if op == '==' else 'is not'} {b})")
        else:
            self.result(f"{BINOPS[op]}({a}, {b})")

    def op_unary_op(self, op) -> None:
        a = self.pop()
        if op == "!":
            self.result(f"(not truthy({a}))")
        elif op == "-":
            self.result(f"neg({a})")
        else:  # `~`: Python's on ints; floats and bigints as the engine computes them
            self.result(f"(~{a})" if a in self.int_vars else f"bit_not({a})")

    def op_truthy(self, _) -> None:
        v = self.pop()
        self.result(v if v in self.bool_vars else f"truthy({v})")

    def op_len(self, _) -> None:
        self.result(f"len({self.pop()})")

    def op_alloc_array(self, n) -> None:
        self.result("[" + ", ".join(self.popn(n)) + "]")

    def op_alloc_typed_array(self, arg) -> None:
        # two statements, no call of `typed_list`: an empty one costs half as much (returned
        # and field literals record their types: mir/lower.py `_recorded_elem`)
        n, elem = arg
        items = self.popn(n)
        t = self.target()
        self.line(f"{t} = TypedList(({', '.join(items)},))" if items else f"{t} = TypedList()")
        self.line(f"{t}.elem = {self.names.const(elem)}")

    def op_concat(self, n) -> None:
        parts = self.popn(n)
        self.result(" + ".join(parts) if n <= 3 else "''.join((" + ", ".join(parts) + "))")

    def op_alloc_map(self, n) -> None:
        self.result(self.map_literal(n))

    def op_alloc_typed_map(self, arg) -> None:
        n, elem = arg
        entries = self.map_literal(n)
        t = self.target()
        self.line(f"{t} = TypedMap({entries})" if n else f"{t} = TypedMap()")
        self.line(f"{t}.elem = {self.names.const(elem)}")

    def map_literal(self, n: int) -> str:
        items = self.popn(2 * n)
        return "{" + ", ".join(f"{_map_key(items[2 * i])}: {items[2 * i + 1]}" for i in range(n)) + "}"

    def op_alloc_instance(self, fqn) -> None:
        n = self.names.runtime.class_arity(fqn)
        self.result(f"{self.names.cls(fqn)}({', '.join(self.popn(n))})")

    def op_is_type(self, t) -> None:
        v = self.pop()
        if not v.isidentifier():
            s = self.slot()
            self.line(f"{s} = {v}")
            v = s
        self.result(self.names.runtime.type_test_expr(t, v, self.names))

    def op_make_closure(self, arg) -> None:
        fqn, n = arg
        caps = self.popn(n)
        # each evaluation of a lambda is a new function value, captures or not (`mk() == mk()`
        # is false in BAML): a fresh Python function — but a lambda without captures kept in a
        # local that is only ever called cannot show its identity: the shared global will do
        nxt = self.code[self.pc + 1] if self.pc + 1 < len(self.code) else ("", None)
        if not caps and nxt[0] == "store_var" and nxt[1] in self.callees:
            self.result(self.names.fn(fqn))
            return
        if self.fuse and self.nest and self.nested_closure(fqn, caps):
            return
        # a closure is a Python function (vm._closure_maker): calling it grows no C stack
        self.result(f"{self.names.closure(fqn, n)}({', '.join([self.names.fn(fqn)] + caps)})")

    def nested_closure(self, fqn: str, caps: list[str]) -> bool:
        """(Plain variant.) The closure as a `def` right here, the lambda's own generated code
        with its captured cells as parameter defaults: making it is one MAKE_FUNCTION and calling
        it one Python call (a closure maker costs a call more for each). The captures come
        after the lambda's parameters: BAML calls pass exactly those. `self.nested` records
        where the `def` is, for its code object's line table (vm). False: not possible here."""
        bc = self.names.runtime.rt.bytecode[fqn]
        if any(bc.has_default):
            return False
        gen = FunctionGen(bc, self.names)
        k = len(caps)
        params = [f"v{i + 1}" for i in range(k, len(bc.params))] + [f"v{i + 1}={c}" for i, c in enumerate(caps)]
        lines = gen.generate(CLOSURE_NAME, params).rstrip("\n").split("\n")
        depth = max((len(x) - len(x.lstrip(" "))) // 4 for x in lines)
        if self.ind + depth > MAX_INDENT:
            return False
        at = len(self.out)
        pad = "    " * self.ind
        for text in lines:
            self.out.append(pad + text)
            self.line_pcs.append(self.pc)
        self.nested.append((at, fqn, gen.line_pcs))
        self.nested.extend((at + i, f, pcs) for i, f, pcs in gen.nested)
        self.result(CLOSURE_NAME)
        return True

    def op_call(self, arg) -> None:
        fqn, n = arg
        self.call_result(f"{self.names.fn(fqn)}({', '.join(self.popn(n))})")

    def op_call_native(self, arg) -> None:
        name, n = arg
        args = self.popn(n)
        inline = INLINE_NATIVES.get(name)
        if inline is not None and "OMIT" not in args:
            nxt = self.code[self.pc + 1]
            if name == "method:array.push" and self.fuse and nxt[0] == "store_var" and not self.loads.get(nxt[1]):
                self.line(f"{args[0]}.append({args[1]})")  # the new length is not used
                self.skip = 1
                return
            if name == "method:map.has" and args[1] not in self.str_vars and args[1] not in self.int_vars:
                args = [args[0], _key_expr(args[1])]
            self.call_result(inline.format(*args))
            return
        native = self.names.runtime.natives[name]
        if "OMIT" in args:
            pnames = native_param_names(native)
            # positional up to the first omitted argument, keywords after it
            first = args.index("OMIT")
            pos = args[:first]
            kws = [f"{pname}={a}" for pname, a in zip(pnames[first:], args[first:]) if a != "OMIT"]
            self.call_result(f"{self.names.native(name)}({', '.join(pos + kws)})")
            return
        self.call_result(f"{self.names.native(name)}({', '.join(args)})")

    def op_call_method(self, arg) -> None:
        name, n, kw = arg
        kwvals = self.popn(len(kw))
        args = self.popn(n)
        recv = self.pop()
        kws = [f"{k}={v}" for k, v in zip(kw, kwvals)]
        self.call_result(f"{self.names.method(name)}({', '.join([recv] + args + kws)})")

    def op_call_llm(self, arg) -> None:
        fqn, n = arg  # the code space's `llm` helper renders the prompt and asks the LLM client
        self.call_result(f"llm({fqn!r}, [{', '.join(self.popn(n))}])")

    def op_call_indirect(self, arg) -> None:
        n, kw = arg
        kwvals = self.popn(len(kw))
        args = self.popn(n)
        f = self.pop()
        if kw:
            self.call_result(f"call_kw({f}, ({', '.join(args)}{',' if args else ''}), {dict(zip(kw, [0] * len(kw)))!r}.keys(), ({', '.join(kwvals)},))")
        else:
            self.call_result(f"{f}({', '.join(args)})")

    def op_pop(self, _) -> None:
        self.pop()

    def op_return(self, _) -> None:
        self.line(f"return {self.pop()}")

    def op_throw(self, _) -> None:
        self.line(f"raise BamlRaise({self.pop()})")

    def op_rethrow(self, _) -> None:
        self.line(f"raise rethrow({self.pop()})")

    def op_throw_if_panic(self, _) -> None:
        v = self.pop()
        self.line(f"if is_panic({v}): raise BamlRaise({v}, True)")

    def op_unreachable(self, _) -> None:
        self.line("raise unreachable()")


MAX_NEST = 40  # levels of blocks inlined into one dispatch case (Python allows 100 indents)
FLAT_CASES = 64  # dispatch cases in one `if`/`elif` chain


class _Unstructured(Exception):
    """This function's flow has no structured spelling: use the `pc` dispatch loop."""


MAX_INDENT = 60   # CPython refuses 100 levels of indentation
MAX_LOOPS = 16    # ... and more than 20 statically nested loops


def _check_nesting(lines: list[str]) -> None:
    """Structured code nests as deep as the CFG: leave it to the dispatch loop when Python's
    compiler would refuse it (or come close)."""
    loops: list[int] = []
    for text in lines:
        ind = (len(text) - len(text.lstrip(" "))) // 4
        if ind > MAX_INDENT:
            raise _Unstructured("too deep")
        while loops and loops[-1] >= ind:
            loops.pop()
        if text.endswith("while True:") or text.lstrip().startswith("for "):
            loops.append(ind)
            if len(loops) > MAX_LOOPS:
                raise _Unstructured("too many nested loops")


class _Frame:
    """An enclosing construct of structured code: a `loop` (`continue` goes to `target`, its
    header; `break` to `follow`) or a `block` placed before the merge block `target` (`break`
    goes there when `wrap`: the block is then a one-shot `while True:`)."""
    __slots__ = ("kind", "target", "follow", "wrap")

    def __init__(self, kind, target, follow):
        self.kind, self.target, self.follow, self.wrap = kind, target, follow, None


class _Cfg:
    """Reverse postorder, dominator tree, loops and merge blocks of a function's blocks."""

    def __init__(self, blocks: dict, tiny: set):
        self.irreducible = False
        post, seen, stack = [], {0}, [(0, iter(blocks[0].succ))]
        while stack:
            b, it = stack[-1]
            for s in it:
                if s not in seen:
                    seen.add(s)
                    stack.append((s, iter(blocks[s].succ)))
                    break
            else:
                stack.pop()
                post.append(b)
        rpo = post[::-1]
        num = {b: i for i, b in enumerate(rpo)}
        preds: dict[int, list[int]] = {b: [] for b in rpo}
        for b in rpo:
            for s in blocks[b].succ:
                preds[s].append(b)
        idom = {0: 0}
        changed = True
        while changed:
            changed = False
            for b in rpo[1:]:
                new = None
                for p in preds[b]:
                    if p not in idom:
                        continue
                    if new is None:
                        new = p
                        continue
                    a, c = p, new
                    while a != c:
                        while num[a] > num[c]:
                            a = idom[a]
                        while num[c] > num[a]:
                            c = idom[c]
                    new = a
                if idom.get(b) != new:
                    idom[b] = new
                    changed = True

        def dominates(a, b):
            while b != a:
                if b == 0:
                    return False
                b = idom[b]
            return True
        self.headers: set[int] = set()
        self.body: dict[int, set] = {}
        fwd = {b: 0 for b in rpo}
        for b in rpo:
            for s in blocks[b].succ:
                if num[s] <= num[b]:
                    if not dominates(s, b):
                        self.irreducible = True
                        return
                    self.headers.add(s)
                    body = self.body.setdefault(s, {s})
                    work = [b]
                    while work:
                        n = work.pop()
                        if n not in body:
                            body.add(n)
                            work.extend(preds[n])
                else:
                    fwd[s] += 1
        self.num = num
        self.tiny = tiny
        self.merge = {b for b in rpo if fwd[b] >= 2 and b not in tiny}
        self.children: dict[int, list[int]] = {b: [] for b in rpo}
        for b in rpo[1:]:
            self.children[idom[b]].append(b)  # in reverse postorder
        # each loop's follow, placed right after its `while True:`: the exit dominated by the
        # loop (a block outside it whose immediate dominator is inside) that merges, else the
        # last one; other exits stay inside the loop (they typically return)
        self.follow: dict[int, int] = {}
        for h, body in self.body.items():
            exits = [b for b in rpo if b not in body and b not in tiny and idom[b] in body]
            if exits:
                merging = [b for b in exits if b in self.merge]
                self.follow[h] = merging[-1] if merging else exits[-1]
        self.follows = set(self.follow.values())
        if len(self.follows) < len(self.follow):
            self.irreducible = True  # one block follows two loops: no structured spelling here


ARITH = ("+", "-", "*", "/", "%")  # the int operators range facts are about
SMALL = (1 << 30) - 1  # the largest one-digit int of CPython (30-bit digits)
CLOSURE_NAME = "baml_closure"  # the Python name of a closure generated in place
BOUND = 1 << 31  # the int parameters of a function's bounded copy (`versioned`)


def _unchecked(r) -> bool:
    return r is not None and r[0] >= MIN and r[1] <= MAX


def _paren(cond: str) -> str:
    return cond if cond.isidentifier() or (cond.startswith("(") and cond.endswith(")")
                                           and _balanced(cond[1:-1])) else f"({cond})"


def _balanced(s: str) -> bool:
    depth = 0
    for c in s:
        depth += (c == "(") - (c == ")")
        if depth < 0:
            return False
    return depth == 0


# stdlib methods whose Python spelling is shorter than a call (receiver kind known statically)
INLINE_NATIVES = {
    "method:array.length": "len({0})", "method:string.length": "len({0})",
    "method:map.length": "len({0})", "method:map.has": "({1} in {0})",
    "method:array.push": "({0}.append({1}) or len({0}))",
}

# instructions whose result may be inlined at its one use (no side effects; evaluating twice, as
# a failure path may, gives the same value), and the instructions that use a value at once
PURE_OPS = {"bin_op_int", "bin_op_float", "load_field", "load_deref", "len"}
CONSUMERS = {"bin_op_int": 2, "bin_op": 2, "bin_op_float": 2, "bin_op_string": 2, "bin_op_bool": 2, "load_index": 2,
             "store_var": 1, "pop_jump_if_false": 1, "return": 1, "unary_op": 1, "truthy": 1, "load_field": 1,
             "store_field": 2, "store_index": 3, "len": 1}


def _takes(op: str, arg) -> int:
    """How many stack values instruction `op` consumes at once (0: not a consumer for fusion)."""
    if op in CONSUMERS:
        return CONSUMERS[op]
    if op in ("call", "call_native"):
        return arg[1]
    if op in ("call_method", "call_indirect"):
        return 1 + arg[-2 if op == "call_method" else 0] + len(arg[-1])
    if op in ("alloc_array", "concat"):
        return arg
    if op == "alloc_typed_array":
        return arg[0]
    return 0

BINOPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod", "<<": "shl", ">>": "shr",
          "&": "bit_and", "|": "bit_or", "^": "bit_xor", "==": "eq", "!=": "ne", "<": "lt",
          "<=": "le", ">": "gt", ">=": "ge"}


def _fast_path(a: str, b: str) -> str:
    """When Python's floor `//` and `%` equal BAML's truncating ones: a >= 0 and b > 0
    (decided now for literals)."""
    tests = ([] if a.isdigit() else [f"{a} >= 0"]) + ([] if b.isdigit() and int(b) > 0 else [f"{b} > 0"])
    return " and ".join(tests) or "True"


def _map_key(k: str) -> str:
    """A map literal's key: string and int constants are keys as themselves."""
    return k if k.startswith(("'", '"')) or k.lstrip("-").isdigit() else f"mkey({k})"


def _key_expr(k: str) -> str:
    """The dict key of a map key given as a generated expression (strings tested inline)."""
    if k.startswith(("'", '"')) or k.lstrip("-").isdigit():
        return k
    return f"({k} if type({k}) is str else mkey({k}))" if k.isidentifier() else f"mkey({k})"


def _callee_only(code: list) -> set:
    """The locals every read of which is the function of a `call_indirect` (`f(x)`: load f,
    the argument loads, the call), so their values' identity is never observed."""
    out, seen = set(), set()
    for pc, (op, arg) in enumerate(code):
        if op != "load_var" or arg in seen:
            continue
        j = pc + 1
        while j < len(code) and code[j][0] in ("load_var", "load_const"):
            j += 1
        if j < len(code) and code[j][0] == "call_indirect" \
                and code[j][1][0] + len(code[j][1][1]) == j - pc - 1:
            out.add(arg)
        else:
            seen.add(arg)
            out.discard(arg)
    return out
