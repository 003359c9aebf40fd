"""Range facts for the plain code generator: an interval analysis of one function's bytecode.

For each `bin_op_int` `+ - *` it finds the interval the exact (unbounded) result lies in on
every execution; where that interval is inside BAML's 63-bit range the generated code needs no
overflow check, and where one side is, a one-sided check. For `/` and `%` it finds whether the
dividend is never negative and the divisor always positive (Python's `//` and `%` are then
BAML's truncating ones). Example: a loop counter `i += 1` guarded by `i < n`, n an int, is at
most MAX - 1 before the increment, so the increment cannot overflow.

Only values the bytecode proves to be ints are tracked: int constants and `bin_op_int` results
(`bin_op_int` is chosen only when the checker typed both operands int), and a local compared by
`bin_op_int` is an int on both edges of the branch. Everything else is unknown. Loops are
handled by iterating to a fixpoint, widening a bound to the range's end once a block's entry has
changed a few times. Functions with an exception table are not analysed (no facts).

The facts are the plain variant's business only: the MIR keeps its overflow panic sites, and
the instrumented variant (bex/instrument.py) checks every operation.
"""
from __future__ import annotations

MIN, MAX = -(1 << 62), (1 << 62) - 1
FULL = (MIN, MAX)
WIDEN_AFTER = 3
NARROW = 1  # descending steps after the fixpoint
CMP = {"<", "<=", ">", ">=", "==", "!="}
NEG = {"<": ">=", ">=": "<", "<=": ">", ">": "<=", "==": "!=", "!=": "=="}
FLIP = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}


class Facts:
    """`exact[pc]`: the interval of the exact result of the `+ - *` at pc; `fast`: the pcs of
    `/` and `%` whose dividend is >= 0 and divisor > 0."""

    def __init__(self):
        self.exact: dict[int, tuple[int, int]] = {}
        self.fast: set[int] = set()


class _Unknown(Exception):
    pass


def analyze(fn, blocks: dict, arity, assume: dict | None = None) -> Facts:
    """`blocks`: pygen's basic blocks (start → Block with .end and .succ); `arity(fqn)`: the
    number of fields of a class (what `alloc_instance` pops); `assume`: local → (lo, hi), what
    the locals hold on entry (parameters the caller tests before running the code)."""
    facts = Facts()
    if fn.exc_table:
        return facts
    try:
        entry = _fixpoint(fn, blocks, arity, {k: ("i", lo, hi) for k, (lo, hi) in (assume or {}).items()})
        for start, env in entry.items():
            _block(fn, blocks[start], dict(env), arity, facts)
    except _Unknown:
        return Facts()
    return facts


def _retreating_targets(fn, blocks) -> dict:
    """Targets of the edges a depth-first search finds going back to a block on its stack
    (every cycle has one, so widening there ends every loop's iteration), each with the locals
    stored in its loop: only those are widened there (a loop-invariant outer counter keeps the
    bound its own loop's test gave it)."""
    back, on, done, stack = [], {0}, set(), [(0, iter(blocks[0].succ))]
    while stack:
        b, it = stack[-1]
        for s in it:
            if s in on:
                back.append((b, s))
            elif s not in done:
                on.add(s)
                stack.append((s, iter(blocks[s].succ)))
                break
        else:
            stack.pop()
            on.discard(b)
            done.add(b)
    preds: dict[int, list[int]] = {}
    for b in done:
        for s in blocks[b].succ:
            preds.setdefault(s, []).append(b)
    out: dict[int, set] = {}
    for u, h in back:
        loop, work = {h}, [u]
        while work:
            n = work.pop()
            if n not in loop:
                loop.add(n)
                work.extend(preds.get(n, ()))
        stored = out.setdefault(h, set())
        for n in loop:
            stored.update(arg for op, arg in fn.code[blocks[n].start:blocks[n].end] if op == "store_var")
    return out


def _fixpoint(fn, blocks, arity, initial: dict) -> dict:
    heads = _retreating_targets(fn, blocks)
    entry: dict[int, dict] = {0: initial}
    visits: dict[int, int] = {}
    work = [0]
    budget = 100 * len(blocks) + 1000  # a safety net: no facts rather than a long analysis
    widened = False
    while work:
        budget -= 1
        if budget < 0:
            raise _Unknown("no fixpoint")
        start = work.pop()
        for succ, env in _block(fn, blocks[start], dict(entry[start]), arity, None):
            old = entry.get(succ)
            if old is None:
                new = env
            else:
                new = _join(old, env)
                visits[succ] = visits.get(succ, 0) + 1
                if succ in heads and visits[succ] > WIDEN_AFTER:
                    new = _widen(old, new, heads[succ])
                    widened = True
                if new == old:
                    continue
            entry[succ] = new
            if succ not in work:
                work.append(succ)
    for _ in range(NARROW if widened else 0):
        entry = _narrow(fn, blocks, arity, initial, entry)
    return entry


def _narrow(fn, blocks, arity, initial: dict, entry: dict) -> dict:
    """One descending step from a post-fixpoint, in pc order (Gauss-Seidel: a block's entry is
    recomputed from its earlier predecessors' new entries and its later ones' (back edges')
    current ones), without widening. Every entry stays above the least fixpoint, so the facts
    stay sound; it takes back what widening lost where a later operation bounds the value again:
    `acc` widened to MAX but `acc = (…) % 1000003` on every path round the loop."""
    order = sorted(entry)
    rank = {b: k for k, b in enumerate(order)}
    incoming: dict[int, dict] = {0: dict(initial)}

    def add(succ, e):
        incoming[succ] = e if succ not in incoming else _join(incoming[succ], e)
    for b in order:  # edges back to an earlier block: from the current entries
        if any(rank.get(t, -1) <= rank[b] for t in blocks[b].succ):
            for succ, e in _block(fn, blocks[b], dict(entry[b]), arity, None):
                if rank.get(succ, len(order)) <= rank[b]:
                    add(succ, e)
    out: dict[int, dict] = {}
    for b in order:
        if b not in incoming:
            continue
        out[b] = incoming[b]
        for succ, e in _block(fn, blocks[b], dict(out[b]), arity, None):
            if rank.get(succ, -1) > rank[b]:
                add(succ, e)
    return out


def _join(a: dict, b: dict) -> dict:
    out = {}
    for k, x in a.items():
        y = b.get(k)
        if y is None:
            continue
        if x[0] == "cmp" or y[0] == "cmp":
            if x == y:
                out[k] = x
            continue
        out[k] = ("i", min(x[1], y[1]), max(x[2], y[2]))
    return out


def _widen(old: dict, new: dict, stored: set) -> dict:
    out = {}
    for k, y in new.items():
        x = old.get(k)
        if x is None or y[0] == "cmp" or x[0] == "cmp" or k not in stored:
            out[k] = y
            continue
        # a falling lower bound widens to 0 while it stays >= 0 (signs decide `/` and `%`)
        lo = y[1] if y[1] >= x[1] else 0 if y[1] >= 0 else MIN
        hi = y[2] if y[2] <= x[2] else -1 if y[2] < 0 else MAX
        out[k] = ("i", lo, hi)
    return out


def _iv(v):
    """The interval of a stack entry known to be an int (bin_op_int operand)."""
    return (v[1], v[2]) if v is not None and v[0] == "i" else FULL


def _arith(op, a, b):
    (alo, ahi), (blo, bhi) = a, b
    if op == "+":
        return alo + blo, ahi + bhi
    if op == "-":
        return alo - bhi, ahi - blo
    ps = (alo * blo, alo * bhi, ahi * blo, ahi * bhi)
    return min(ps), max(ps)


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _block(fn, b, env: dict, arity, facts):
    """Run block `b` abstractly from `env`; return [(successor, env)]. Records facts when
    `facts` is given."""
    code = fn.code
    st: list = []  # entries: ("i", lo, hi, var) | ("cmp", op, a, b) | None

    def pop(n=1):
        if n > len(st):
            raise _Unknown
        for _ in range(n):
            st.pop()

    for pc in range(b.start, b.end):
        op, arg = code[pc]
        if op == "load_const":
            st.append(("i", arg, arg, None) if type(arg) is int else None)
        elif op == "load_var":
            v = env.get(arg)
            st.append(("i", v[1], v[2], arg) if v is not None and v[0] == "i"
                      else v if v is not None else ("u", arg))
        elif op == "store_var":
            v = st.pop()
            for k in [k for k, x in env.items() if x[0] == "cmp" and arg in (x[2][3], x[3][3])]:
                del env[k]  # a comparison of the old value says nothing about the new one
            for k, x in enumerate(st):
                if x is not None and (x[0] == "cmp" and arg in (x[2][3], x[3][3]) or x[0] == "u" and x[1] == arg):
                    st[k] = None
                elif x is not None and x[0] == "i" and x[3] == arg:
                    st[k] = ("i", x[1], x[2], None)
            if v is not None and v[0] == "i":
                env[arg] = ("i", v[1], v[2])
            elif v is not None and v[0] == "cmp":
                env[arg] = v
            else:
                env.pop(arg, None)
        elif op == "bin_op_int":
            o = arg[0] if isinstance(arg, tuple) else arg
            y, x = st.pop(), st.pop()
            ix, iy = _iv(x), _iv(y)
            if o in ("+", "-", "*"):
                lo, hi = _arith(o, ix, iy)
                if facts is not None:
                    facts.exact[pc] = (lo, hi)
                st.append(("i", max(lo, MIN), min(hi, MAX), None))
            elif o in CMP:
                st.append(("cmp", o, _operand(x), _operand(y)))
            elif o in ("/", "%"):
                if facts is not None and ix[0] >= 0 and iy[0] > 0:
                    facts.fast.add(pc)
                if iy[0] > 0 and o == "/":
                    st.append(("i", _tdiv(ix[0], iy[0] if ix[0] < 0 else iy[1]),
                               _tdiv(ix[1], iy[0] if ix[1] >= 0 else iy[1]), None))
                elif iy[0] > 0:
                    m = iy[1] - 1
                    st.append(("i", 0 if ix[0] >= 0 else max(ix[0], -m), 0 if ix[1] <= 0 else min(ix[1], m), None))
                else:
                    st.append(("i", MIN, MAX, None))
            elif o == "&" and ix[0] >= 0 and iy[0] >= 0:
                st.append(("i", 0, min(ix[1], iy[1]), None))
            else:
                st.append(("i", MIN, MAX, None))
        elif op == "jump":
            return [(arg, env)]
        elif op == "pop_jump_if_false":
            c = st.pop()
            t, f = dict(env), env
            if c is not None and c[0] == "cmp":
                # an edge the comparison rules out is not taken (yet: a later, wider entry may)
                return [(s, e) for s, e, ok in ((b.end, t, _refine(t, c[1], c[2], c[3])),
                                                 (arg, f, _refine(f, NEG[c[1]], c[2], c[3]))) if ok]
            return [(b.end, t), (arg, f)]
        elif op in ("return", "throw", "rethrow"):
            return []
        elif op == "unreachable":
            return []
        else:
            n_in = _pops(op, arg, arity)
            pop(n_in)
            if op not in ("store_deref", "store_field", "store_index", "pop", "throw_if_panic"):
                st.append(None)
    return [(s, env) for s in b.succ]


def _operand(v):
    """A comparison operand: (lo, hi, var) — var the local it was read from, or None."""
    if v is not None and v[0] == "i":
        return ("i", v[1], v[2], v[3])
    if v is not None and v[0] == "u":
        return ("i", MIN, MAX, v[1])  # unknown before, an int now (bin_op_int's operand)
    return ("i", MIN, MAX, None)


def _refine(env: dict, op: str, x, y) -> bool:
    """Narrow the locals compared by `x op y` to where it holds; False when it cannot hold."""
    if x[3] is not None and x[3] == y[3]:
        return True  # (a local against itself: its interval says nothing here)
    for (a, b, o) in ((x, y, op), (y, x, FLIP[op])):
        var = a[3]
        if var is None:
            continue
        cur = env.get(var)
        lo, hi = (cur[1], cur[2]) if cur is not None and cur[0] == "i" else FULL
        blo, bhi = b[1], b[2]
        if o == "<":
            hi = min(hi, bhi - 1)
        elif o == "<=":
            hi = min(hi, bhi)
        elif o == ">":
            lo = max(lo, blo + 1)
        elif o == ">=":
            lo = max(lo, blo)
        elif o == "==":
            lo, hi = max(lo, blo), min(hi, bhi)
        elif blo == bhi:  # != a single value
            if lo == blo:
                lo += 1
            elif hi == blo:
                hi -= 1
        if lo > hi:
            return False
        env[var] = ("i", lo, hi)
    return True


def _pops(op: str, arg, arity) -> int:
    if op in ("load_deref", "make_cell", "load_field", "load_method", "unary_op", "truthy", "len",
              "is_type", "pop", "throw_if_panic"):
        return 1
    if op in ("store_deref", "store_field", "load_index", "bin_op", "bin_op_float", "bin_op_string",
              "bin_op_bool"):
        return 2
    if op == "store_index":
        return 3
    if op in ("alloc_array", "concat"):
        return arg
    if op == "alloc_typed_array":
        return arg[0]
    if op == "alloc_map":
        return 2 * arg
    if op == "alloc_typed_map":
        return 2 * arg[0]
    if op == "alloc_instance":
        return arity(arg)
    if op in ("make_closure", "call", "call_native", "call_llm"):
        return arg[1]
    if op == "call_method":
        return 1 + arg[1] + len(arg[2])
    if op == "call_indirect":
        return 1 + arg[0] + len(arg[1])
    raise _Unknown(op)
