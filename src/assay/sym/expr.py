"""Symbolic expressions: a hash-consed DAG of Assay's own (never z3 terms: a solver term is
built only when a query is sent, see solver.py).

An `Expr` is `(op, args, sort)`; equal expressions made in one scope (one run) are the same
object, so shadows compare and hash by identity and shared subterms are shared. Sorts: "int" (BAML's 63-bit int: the
overflow checks on the path keep every value in range, so the solver may use mathematical
integers), "bigint" (unbounded), "bool", "string", "uint8array" (a byte string: constants are
`bytes`), and "enum:<fqn>" (a variant's index). Leaves are `var` (an input,
args = (name,)) and `const` (args = (value,)). Containers are not expressions but shadow
objects holding expressions: `SymArray`, `SymMap`, `SymObject`, `SymOptional`, `SymUnion`.
"""
from __future__ import annotations

INT_MIN, INT_MAX = -(1 << 62), (1 << 62) - 1


_TABLE: dict = {}  # the intern table of the current scope (see new_scope)


class Expr:
    __slots__ = ("op", "args", "sort", "__weakref__")

    def __new__(cls, op: str, args: tuple, sort: str):
        return mk(op, args, sort)

    def __repr__(self) -> str:
        if self.op == "var":
            return self.args[0]
        if self.op == "const":
            return repr(self.args[0])
        return f"({self.op} {' '.join(map(repr, self.args))})"

    # identity is equality (hash-consed); keep Python's default __eq__/__hash__

    def vars(self) -> set:
        out, todo, seen = set(), [self], set()
        while todo:
            e = todo.pop()
            if id(e) in seen:
                continue
            seen.add(id(e))
            if e.op == "var":
                out.add(e)
            todo.extend(a for a in e.args if isinstance(a, Expr))
        return out


def mk(op: str, args: tuple, sort: str, _get=_TABLE.get, _new=object.__new__) -> Expr:
    """The interned expression (op, args, sort): the hot constructor transfer code calls."""
    key = (op, args, sort)
    e = _get(key)
    if e is None:
        e = _new(Expr)
        e.op = op
        e.args = args
        e.sort = sort
        _TABLE[key] = e
    return e


def new_scope() -> None:
    """Start a fresh intern table (sym.run does, per run): equal expressions built in one
    scope are one object; the table never outgrows one run (no leak over thousands)."""
    _TABLE.clear()
    if len(_REALIZED) > 1_000_000:  # kept across scopes (traces realize later), but bounded
        _REALIZED.clear()


def var(name: str, sort: str) -> Expr:
    return Expr("var", (name,), sort)


_SORT_OF = {bool: "bool", int: "int", str: "string", bytes: "uint8array"}


def register_sort(py_type: type, sort: str) -> None:
    """A run-time type whose values are constants of `sort` (bigint: sym/__init__ registers
    mirx.BigInt, an int of its own type)."""
    _SORT_OF[py_type] = sort


def const(value, sort: str | None = None) -> Expr:
    return Expr("const", (value,), sort or _SORT_OF[type(value)])


def app(op: str, sort: str, *args: Expr) -> Expr:
    """An operation; folded when every argument is a constant."""
    for a in args:
        if a.op != "const":
            break
    else:
        if op in _FOLD:
            return const(_FOLD[op](*(a.args[0] for a in args)), sort)
    if op == "not" and args[0].op == "not":
        return args[0].args[0]
    return Expr(op, args, sort)


def _tdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_FOLD = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": lambda a, b: _tdiv(a, b) if b else 0, "%": lambda a, b: a - b * _tdiv(a, b) if b else 0,
    "neg": lambda a: -a, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b, "not": lambda a: not a, "and": lambda a, b: a and b,
    "or": lambda a, b: a or b, "str.++": lambda a, b: a + b, "str.len": len,
    "ite": lambda c, a, b: a if c else b, "fdiv": lambda a, b: a // b, "fmod": lambda a, b: a % b,
    "bytes.at": lambda b, k: b[k], "bytes.sub": lambda b, i, n: b[i:i + max(n, 0)],
    "bytes.store": lambda b, k, v: b[:k] + bytes([v & 0xFF]) + b[k + 1:],
    "as_bytes": lambda s: s.encode("ascii"),
}


# ── raw shadows: the hot form ──
# Compiled snippets for int operations on statically typed ints build plain tuples
# `(op, a, b)` (a, b: expressions, raw tuples, or the concrete int) instead of calling
# transfer code; `realize` turns them into interned expressions when something needs one.

RAW_SORT = {"+": "int", "-": "int", "*": "int", "/": "int", "%": "int",
            "<": "bool", "<=": "bool", ">": "bool", ">=": "bool", "==": "bool", "!=": "bool"}


_REALIZED: dict = {}  # id(raw tuple) → (the tuple, its expression): shared raw subterms once


def realize(x):
    """The expression of a raw shadow (None for None)."""
    t = type(x)
    if t is Expr or x is None:
        return x
    if t is tuple:
        done = _REALIZED.get(id(x))
        if done is not None and done[0] is x:
            return done[1]
        e = app(x[0], RAW_SORT[x[0]], realize(x[1]), realize(x[2]))
        _REALIZED[id(x)] = (x, e)
        return e
    if t is SymOptional:
        return realize(x.value)
    if t is SymUnion:
        return realize(x.members[x.kinds.index("int")]) if "int" in x.kinds else None
    if t is bytearray:  # mutable: its constant is the bytes it holds now
        return Expr("const", (bytes(x),), "uint8array")
    sort = _SORT_OF.get(t)
    return Expr("const", (x,), sort) if sort is not None else None


def lift(value, shadow) -> Expr | None:
    """The expression of a value: its shadow, else the value as a constant (None for values
    that have no expression form, e.g. floats)."""
    if type(shadow) is Expr:
        return shadow
    if type(shadow) is tuple:
        return realize(shadow)
    if type(shadow) is SymOptional:
        return shadow.value if value is not None else None
    if type(shadow) is SymUnion:
        member = shadow.member(value)
        return member if type(member) is Expr else lift(value, None)
    sort = _SORT_OF.get(type(value))
    if sort is not None:
        return Expr("const", (value,), sort)
    if type(value) is bytearray:  # a uint8array: the bytes it holds now
        return Expr("const", (bytes(value),), "uint8array")
    enum = getattr(value, "enum", None)  # an enum variant: its index
    if enum is not None:
        return const(value.index, "enum:" + enum.fqn)
    return None


def not_(e: Expr) -> Expr:
    return app("not", "bool", e)


# ── container shadows ──

class SymArray:
    """An array's shadow: a symbolic length and one shadow (or None) per concrete element."""
    __slots__ = ("length", "items")

    def __init__(self, length: Expr, items: list):
        self.length, self.items = length, items

    def __repr__(self) -> str:
        return f"SymArray({self.length!r}, {self.items!r})"


class SymMap:
    """A map's shadow: concrete keys, a shadow (or None) per value."""
    __slots__ = ("items",)

    def __init__(self, items: dict):
        self.items = items


class SymObject:
    """A class instance's shadow: a shadow (or None) per field."""
    __slots__ = ("fields",)

    def __init__(self, fields: dict):
        self.fields = fields


class SymOptional:
    """`T?`: whether the value is null (a bool expression) and the shadow of the value."""
    __slots__ = ("is_null", "value")

    def __init__(self, is_null: Expr, value):
        self.is_null, self.value = is_null, value


class SymUnion:
    """A union input (`int | string | null`): which member the value is (`tag`, an int
    expression indexing `kinds`), and a shadow per member (None: that member is concrete).
    `kinds` are the members' run-time kinds: "int", "string", "bool", "null", "enum:<fqn>",
    "class:<fqn>", "array", "map"."""
    __slots__ = ("tag", "kinds", "members")

    def __init__(self, tag: Expr, kinds: tuple, members: tuple):
        self.tag, self.kinds, self.members = tag, kinds, members

    def member(self, value):
        """The shadow of the member `value` (a run-time value) belongs to."""
        k = _kind_of(value)
        return self.members[self.kinds.index(k)] if k in self.kinds else None

    def is_kind(self, kind: str) -> Expr | None:
        return app("==", "bool", self.tag, const(self.kinds.index(kind))) if kind in self.kinds else None


def _kind_of(value) -> str:
    if value is None:
        return "null"
    sort = _SORT_OF.get(type(value))
    if sort is not None:
        return sort
    enum = getattr(value, "enum", None)
    if enum is not None:
        return "enum:" + enum.fqn
    cls = getattr(value, "_class", None)
    if cls is not None:
        return "class:" + cls.fqn
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "map"
    return "uint8array" if type(value) is bytearray else "other"
