"""The VM's execution engine: turns one function's BEX bytecode into a Python function.

Each bytecode basic block is translated by simulating the operand stack: loads of locals and
constants stay symbolic, every other instruction becomes one Python statement, so
`load_var 1; load_const 1; bin_op_int +; store_var 1` becomes `s0 = v1 + 1` plus the 63-bit
range check. Blocks reached from a single place are inlined there (nested `if`/`else`); the
rest become cases of a `pc` dispatch loop (a case whose chain jumps back to itself is a
`while True` loop). The exception table becomes a `try` around the loop that routes errors to
the handler block of the region `pc` is in.

Every opcode has one handler method `op_<name>`. The hook points (`prologue`, `before`,
`branch_edge`) emit nothing here; the instrumented variant of mirx extensions
(bex/instrument.py) fills them in, so a plain run executes exactly the code generated here.
"""
from __future__ import annotations

import math

from ..mir.ir import OMITTED, FnRef
from .bytecode import BexFunction
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
        self.has_try = bool(fn.exc_table)
        self.skip = 0
        self.loop = None
        self.loads: dict[int, int] = {}
        for op, arg in fn.code:
            if op == "load_var":
                self.loads[arg] = self.loads.get(arg, 0) + 1
        handlers = {e.handler for e in fn.exc_table}
        # tiny blocks that end the function are duplicated into each predecessor
        # (and small blocks that jump on, e.g. a loop's step), except loop headers
        headers = {s for b in self.blocks.values() for s in b.succ if s <= b.start}
        tiny = {s for s, b in self.blocks.items() if s not in handlers and s not in headers and (
                (b.end - b.start <= 4 and self.code[b.end - 1][0] in ("return", "throw"))
                or (b.end - b.start <= 8 and self.code[b.end - 1][0] == "jump"
                    and (not fn.exc_table or b.region is None)))}
        self.dispatch = {0} | {s for s, b in self.blocks.items() if b.preds != 1 and s not in tiny}

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
        if nxt is not None and nxt[0] == "store_var":
            self.spill(f"v{nxt[1]}")
            self.line(f"v{nxt[1]} = {expr}")
            self.skip = 1
            return
        s = self.slot()
        self.line(f"{s} = {expr}")
        self.push(s)

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

    def generate(self, pyname: str) -> str:
        fn = self.fn
        params = []
        for i, name in enumerate(fn.params):
            params.append(f"v{i + 1}=OMIT" if fn.has_default[i] else f"v{i + 1}")
        head = f"def {pyname}({', '.join(params)}):"
        self.out = [head]
        self.line_pcs = [0]
        self.prologue()
        if self.dispatch == {0} and not self.has_try:
            self.chain(0, None, set())
        else:
            self.line("pc = 0")
            self.line("while True:")
            self.ind += 1
            if self.has_try:
                self.line("try:")
                self.ind += 1
            first = True
            for s in self.dispatch_order():
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
        depth = {d: sum(1 for lo, hi in loops if lo <= d < hi) for d in self.dispatch}
        return sorted(self.dispatch, key=lambda d: (-depth[d], d))

    def chain(self, start: int, region, seen: set) -> None:
        """Emit block `start` and, inline, every successor that only it reaches."""
        b = self.blocks[start]
        if self.has_try and b.region is not region:
            self.line(f"pc = {start}")
        self.stack = []
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
        return self.names.const(from_const(v, self.names.runtime.enums))

    def op_load_var(self, i) -> None:
        self.push(f"v{i}")

    def op_store_var(self, i) -> None:
        v = self.pop()
        if self.returns_next(i):
            self.line(f"return {v}")
            return
        self.spill(f"v{i}")
        self.line(f"v{i} = {v}")

    # the plain variant fuses temporaries away; the instrumented one keeps every MIR local
    fuse = True
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
        self.result(f"{self.pop()}.m_{name}")  # a bound method value

    def op_store_field(self, name) -> None:
        v = self.pop()
        o = self.pop()
        self.line(f"{o}.f_{name} = {v}")

    def op_load_index(self, kind) -> None:
        i = self.pop()
        c = self.pop()
        if kind == "array_in_bounds":
            self.result(f"{c}[{i}]")
        elif kind in ("array", "map"):
            # Python indexing is BAML's where it succeeds; load_index raises the BAML panic
            t = self.target()
            self.line(f"try: {t} = {c}[{i}]")
            self.line(f"except {'IndexError' if kind == 'array' else 'KeyError'}: {t} = load_index({c}, {i})")
        else:
            self.result(f"load_index({c}, {i})")

    def op_store_index(self, kind) -> None:
        v, i, c = self.pop(), self.pop(), self.pop()
        if kind == "map":
            self.line(f"{c}[{i}] = {v}")
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
        overflow message still needs both)."""
        s = self.slot()
        # only a temporary: a named local must keep its old value if the check panics
        if (self._next_is_store() and (self.code[self.pc + 1][1] == 0  # _0 is read only by return
                                       or self.fn.local_names[self.code[self.pc + 1][1]] is None)
                and f"v{self.code[self.pc + 1][1]}" not in (a, b)):
            s = f"v{self.code[self.pc + 1][1]}"
            self.spill(s)
            self.skip = 1
        else:
            self.push(s)
        guard = guard.replace("{s}", s)
        self.line(f"{s} = {a} {op} {b}")
        self.line(f"if {guard}not -4611686018427387904 <= {s} <= 4611686018427387903: "
                  f"overflow('{op}', {msg[0]}, {msg[1]})")
        if s.startswith("s") and self._next_is_store():
            self.result_var(self.pop())

    def op_bin_op_int(self, op) -> None:
        op, a, b, msg = self.operands(op)
        if op in ("+", "-", "*"):
            self.checked(op, a, b, msg)
        elif op in ("<", "<=", ">", ">=", "==", "!=", "&", "|", "^"):
            self.result(f"({a} {op} {b})")
        elif op == "/":
            self.result(f"({a} // {b} if {_fast_path(a, b)} else div({a}, {b}))")
        elif op == "%":
            self.result(f"({a} % {b} if {_fast_path(a, b)} else mod({a}, {b}))")
        else:
            self.result(f"{BINOPS[op]}({a}, {b})")

    def op_bin_op_float(self, op) -> None:
        op, a, b, _ = self.operands(op)
        if op in ("+", "-", "*"):
            self.result(f"{a} {op} {b}")
        elif op == "/":
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
        else:
            self.result(f"(~{a})")

    def op_truthy(self, _) -> None:
        self.result(f"truthy({self.pop()})")

    def op_len(self, _) -> None:
        self.result(f"len({self.pop()})")

    def op_alloc_array(self, n) -> None:
        self.result("[" + ", ".join(self.popn(n)) + "]")

    def op_concat(self, n) -> None:
        parts = self.popn(n)
        self.result(" + ".join(parts) if n <= 3 else "''.join((" + ", ".join(parts) + "))")

    def op_alloc_map(self, n) -> None:
        items = self.popn(2 * n)
        self.result("{" + ", ".join(f"{items[2 * i]}: {items[2 * i + 1]}" for i in range(n)) + "}")

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
        self.result(f"partial({', '.join([self.names.fn(fqn)] + caps)})" if caps else self.names.fn(fqn))

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


# stdlib methods whose Python spelling is shorter than a call (receiver kind known statically)
INLINE_NATIVES = {
    "method:array.length": "len({0})", "method:string.length": "len({0})",
    "method:map.length": "len({0})", "method:map.has": "({1} in {0})",
    "method:array.push": "({0}.append({1}) or len({0}))",
}

BINOPS = {"+": "add", "-": "sub", "*": "mul", "/": "div", "%": "mod", "<<": "shl", ">>": "shr",
          "&": "bit_and", "|": "bit_or", "^": "bit_xor", "==": "eq", "!=": "ne", "<": "lt",
          "<=": "le", ">": "gt", ">=": "ge"}


def _fast_path(a: str, b: str) -> str:
    """When Python's floor `//` and `%` equal BAML's truncating ones: a >= 0 and b > 0
    (decided now for literals)."""
    tests = ([] if a.isdigit() else [f"{a} >= 0"]) + ([] if b.isdigit() and int(b) > 0 else [f"{b} > 0"])
    return " and ".join(tests) or "True"
