"""From expressions to solver terms (z3), only when a query is sent. z3 is imported lazily:
`import assay.sym` stays cheap. Integers are mathematical with every input var bounded to
BAML's 63 bits (the path's overflow checks bound every intermediate); `/` and `%` truncate."""
from __future__ import annotations

from .expr import INT_MIN, INT_MAX, Expr


def z3mod():
    import z3  # heavy optional dependency: loaded on the first query
    return z3


class Encoder:
    """Translates expressions to z3 terms (memoised), collecting the domain of each var."""

    def __init__(self, domains: dict | None = None):
        self.z3 = z3mod()
        self.memo: dict[int, object] = {}
        self.vars: dict[str, object] = {}
        self.domain: list = []
        self.domains = domains or {}  # var name → (lo, hi) for enum tags and lengths
        self.byte_vars: set[str] = set()  # vars of sort uint8array (their models are bytes)

    def __call__(self, e: Expr):
        t = self.memo.get(id(e))
        if t is None:
            t = self.memo[id(e)] = self._term(e)
        return t

    def _term(self, e: Expr):
        z3 = self.z3
        if e.op == "var":
            return self._var(e)
        if e.op == "const":
            v = e.args[0]
            if e.sort == "bool":
                return z3.BoolVal(v)
            if e.sort == "string":
                return z3.StringVal(v)
            if e.sort == "uint8array":
                return _bytes_val(z3, v)
            return z3.IntVal(int(v))  # a bigint's str() has its `n`
        a = [self(x) for x in e.args]
        return _OPS[e.op](z3, *a)

    def _var(self, e: Expr):
        """A var's term and its domain: ints within 63 bits or a (lo, hi) range, printable
        ASCII strings, or a set of values (unions of literals)."""
        name, z3 = e.args[0], self.z3
        if name in self.vars:
            return self.vars[name]
        domain = self.domains.get(name)
        if e.sort == "bool":
            t = z3.Bool(name)
        elif e.sort == "string":  # printable ASCII, so every model is a plain literal
            t = z3.String(name)
            self.domain.append(z3.InRe(t, z3.Star(z3.Range(" ", "~"))))
        elif e.sort == "uint8array":  # a sequence of characters 0..255, one per byte
            t = z3.String(name)
            self.byte_vars.add(name)
            self.domain.append(z3.InRe(t, z3.Star(z3.Range(chr(0), chr(255)))))
            if isinstance(domain, tuple):  # its length, bounded by max_len
                self.domain.append(z3.Length(t) <= domain[1])
        else:
            t = z3.Int(name)
            lo, hi = domain if isinstance(domain, tuple) else (INT_MIN, INT_MAX)
            if lo is not None:  # (None, None): a bigint, unbounded
                self.domain.append(z3.And(t >= lo, t <= hi))
        if isinstance(domain, frozenset):
            self.domain.append(z3.Or(*[t == self(Expr("const", (v,), e.sort)) for v in domain]))
        self.vars[name] = t
        return t


def _bytes_val(z3, b: bytes):
    """A byte string as z3 characters 0..255 (never through StringVal, which reads escapes)."""
    if not b:
        return z3.StringVal("")
    units = [z3.StrFromCode(z3.IntVal(x)) for x in b]
    return units[0] if len(units) == 1 else z3.Concat(*units)


def _byte_store(z3, b, k, v):
    """`b` with the byte at position k (in range) replaced by v modulo 256."""
    return z3.Concat(z3.SubString(b, 0, k), z3.StrFromCode(v % 256), z3.SubString(b, k + 1, z3.Length(b) - k - 1))


def _tdiv(z3, a, b):
    q = z3.If(a >= 0, z3.If(b > 0, a / b, -(a / -b)), z3.If(b > 0, -((-a) / b), (-a) / (-b)))
    return q


_OPS = {
    "+": lambda z3, a, b: a + b, "-": lambda z3, a, b: a - b, "*": lambda z3, a, b: a * b,
    "/": _tdiv, "%": lambda z3, a, b: a - b * _tdiv(z3, a, b), "neg": lambda z3, a: -a,
    "fdiv": lambda z3, a, b: a / b, "fmod": lambda z3, a, b: a % b,  # floor (b > 0 here)
    "<": lambda z3, a, b: a < b, "<=": lambda z3, a, b: a <= b, ">": lambda z3, a, b: a > b,
    ">=": lambda z3, a, b: a >= b, "==": lambda z3, a, b: a == b, "!=": lambda z3, a, b: a != b,
    "not": lambda z3, a: z3.Not(a), "and": lambda z3, a, b: z3.And(a, b),
    "or": lambda z3, a, b: z3.Or(a, b), "ite": lambda z3, c, a, b: z3.If(c, a, b),
    "str.++": lambda z3, a, b: z3.Concat(a, b), "str.len": lambda z3, a: z3.Length(a),
    "str.<": lambda z3, a, b: a < b, "str.<=": lambda z3, a, b: a <= b,
    "str.contains": lambda z3, a, b: z3.Contains(a, b),
    "str.prefixof": lambda z3, a, b: z3.PrefixOf(a, b), "str.suffixof": lambda z3, a, b: z3.SuffixOf(a, b),
    "bytes.at": lambda z3, b, k: z3.StrToCode(z3.SubString(b, k, 1)), "bytes.store": _byte_store,
    "bytes.sub": lambda z3, b, i, n: z3.SubString(b, i, n),
    "as_bytes": lambda z3, s: s,  # an ASCII string's characters are its UTF-8 bytes
}


def solve(conditions: list, domains: dict, timeout_ms: int = 5000) -> tuple[str, dict | None]:
    """("sat", {var name: value}) for the conjunction, or ("unsat" | "unknown", None)."""
    enc = Encoder(domains)
    z3 = enc.z3
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    for c in conditions:
        s.add(enc(c))
    s.add(*enc.domain)
    status = s.check()
    if status != z3.sat:
        return ("unsat" if status == z3.unsat else "unknown"), None
    m = s.model()
    out = {}
    for name, t in enc.vars.items():
        v = m.eval(t, model_completion=True)
        if name in enc.byte_vars:  # character by character: as_string() escapes some of them
            n = m.eval(z3.Length(t), model_completion=True).as_long()
            out[name] = bytes(m.eval(z3.StrToCode(z3.SubString(t, i, 1)), model_completion=True).as_long()
                              for i in range(n))
            continue
        out[name] = (v.as_long() if z3.is_int_value(v) else z3.is_true(v) if z3.is_bool(v)
                     else v.as_string())
    return "sat", out


def smt2(conditions: list, domains: dict) -> str:
    """The conjunction as an SMT-LIB script."""
    enc = Encoder(domains)
    z3 = enc.z3
    s = z3.Solver()
    for c in conditions:
        s.add(enc(c))
    s.add(*enc.domain)
    return s.to_smt2()


def related(target: Expr, conditions: list) -> list:
    """The conditions that share a var with `target`, transitively (constraint independence:
    the others cannot change whether the target is satisfiable)."""
    groups = [(c, {v.args[0] for v in c.vars()}) for c in conditions]
    want = {v.args[0] for v in target.vars()}
    chosen: list = []
    changed = True
    while changed:
        changed = False
        for i, (c, vs) in enumerate(groups):
            if c is not None and vs & want:
                want |= vs
                chosen.append(c)
                groups[i] = (None, vs)
                changed = True
    return chosen
