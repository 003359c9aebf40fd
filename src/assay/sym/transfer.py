"""Transfer functions: for each MIR operation, how the shadow of its result follows from the
shadows of its operands (SymCC's handler table, chosen per node at compile time — the
function object is the node's compile-time data, called from the compiled snippet).

Every function gets the run's `PathState` first. A value's shadow is an `Expr`, a container
shadow, or None (concrete). An operation without a model concretises: its symbolic operands
are pinned to their run-time values by a recorded assumption (`PathState.concretize`).
docs/sym.md has the table of what is modelled.
"""
from __future__ import annotations

from .expr import (INT_MAX, INT_MIN, Expr, SymArray, SymMap, SymObject, SymOptional, SymUnion, app, const, mk,
                   realize,
                   lift, not_)

_ARITH = {"+", "-", "*", "/", "%"}
_CMP = {"<", "<=", ">", ">=", "==", "!="}


def _unwrap(z, value=None):
    """The shadow of the value itself: an optional's inner one, a union's current member's."""
    if isinstance(z, SymUnion):
        return z.member(value)
    return z.value if isinstance(z, SymOptional) else z


# ── operators ──

def binary(op: str):
    sort = "int" if op in _ARITH else "bool" if op in _CMP else None

    def transfer(st, a, za, b, zb):
        if sort is not None and type(a) is int and type(b) is int:  # the hot case: no folding
            ea = za if type(za) is Expr else mk("const", (a,), "int") if za is None else lift(a, za)
            eb = zb if type(zb) is Expr else mk("const", (b,), "int") if zb is None else lift(b, zb)
            if ea is not None and eb is not None:
                return mk(op, (ea, eb), sort) if za is None or zb is None or ea.op != "const" \
                    else app(op, sort, ea, eb)
        if op in ("==", "!=") and (a is None or b is None):
            return _null_test(op, a, za, b, zb)
        ea, eb = lift(a, za), lift(b, zb)
        ta, tb = type(a), type(b)
        if ea is not None and eb is not None and "bigint" in (ea.sort, eb.sort) \
                and {ea.sort, eb.sort} <= {"int", "bigint"}:  # bigint with bigint or int: unbounded
            if op in _ARITH:
                return app(op, "bigint", ea, eb)
            if op in _CMP:
                return app(op, "bool", ea, eb)
        if ea is None or eb is None or ta is not tb or ta is float:
            return st.concretize(op, ((a, za), (b, zb)))
        if ta is int and op in _ARITH:
            return app(op, "int", ea, eb)
        if op in _CMP and ta in (int, bool) or (op in ("==", "!=") and ea.sort == eb.sort):
            return app(op, "bool", ea, eb)
        if ta is str and op == "+":
            return app("str.++", "string", ea, eb)
        if ta is str and op in _CMP:
            return _str_compare(op, ea, eb)
        if ta is int and op in ("<<", ">>") and 0 <= b < 63:
            return _shift(st, op, ea, b, zb)
        return st.concretize(op, ((a, za), (b, zb)))
    return transfer


def _shift(st, op: str, ea: Expr, b: int, zb) -> Expr:
    """`a >> b` is floor division by 2^b; `a << b` multiplies and wraps to 63 bits (BAML's
    shl). A symbolic count is pinned to its value (the solver keeps it fixed)."""
    if zb is not None:
        st.concretize(op + " count", ((b, zb),))
    k = const(1 << b)
    if op == ">>":
        return app("fdiv", "int", ea, k)
    wrapped = app("fmod", "int", app("+", "int", app("*", "int", ea, k), const(1 << 62)), const(1 << 63))
    return app("-", "int", wrapped, const(1 << 62))


def _str_compare(op: str, ea: Expr, eb: Expr) -> Expr:
    if op in ("<", "<="):
        return app("str." + op, "bool", ea, eb)
    if op in (">", ">="):
        return app("str." + op[0].replace(">", "<") + op[1:], "bool", eb, ea)
    return app(op, "bool", ea, eb)


def _null_test(op: str, a, za, b, zb):
    z = za if b is None else zb
    is_null = z.is_null if isinstance(z, SymOptional) else z.is_kind("null") if isinstance(z, SymUnion) else None
    if is_null is None:
        return None
    return is_null if op == "==" else not_(is_null)


def unary(op: str):
    def transfer(st, a, za):
        e = lift(a, za)
        if e is None:
            return st.concretize(op, ((a, za),))
        if op == "!" and e.sort == "bool":
            return not_(e)
        if op == "-" and type(a) is int:
            return app("neg", "int", e)
        return st.concretize(op, ((a, za),))
    return transfer


def truthy(st, a, za):
    e = lift(a, za)
    if e is not None and e.sort == "bool":
        return e
    if e is not None and e.sort in ("string", "uint8array"):  # non-empty
        return app("!=", "bool", app("str.len", "int", e), const(0))
    return st.concretize("truthy", ((a, za),))


def length(st, a, za):
    z = _unwrap(za, a)
    if isinstance(z, SymArray):
        return z.length
    if isinstance(z, Expr) and z.sort in ("string", "uint8array"):
        return app("str.len", "int", z)
    return None


_TEST_KIND = {"int": "int", "string": "string", "bool": "bool", "null": "null", "array": "array", "map": "map"}


def is_type(test: tuple):
    def transfer(st, a, za):
        if isinstance(za, SymUnion):
            kind = _TEST_KIND.get(test[0]) or (f"{test[0]}:{test[1]}" if test[0] in ("enum", "class") else None)
            if test[0] == "variant":
                tag, e = za.is_kind("enum:" + test[1]), lift(a, za)
                if tag is not None and e is not None and e.sort.startswith("enum:"):
                    return app("and", "bool", tag, app("==", "bool", e, const(_variant_index(a, test[2]), e.sort)))
                return tag
            return za.is_kind(kind) if kind else None
        if isinstance(za, SymOptional):
            if test[0] == "null":
                return za.is_null
            if test[0] in ("int", "string", "bool", "float", "array", "map", "class", "enum"):
                return not_(za.is_null)
        e = lift(a, za)
        if test[0] == "variant" and e is not None and e.sort.startswith("enum:"):
            return app("==", "bool", e, const(_variant_index(a, test[2]), e.sort))
        return None
    return transfer


def _variant_index(v, name: str) -> int:
    return v.enum.variants[name].index


# ── aggregates and places ──

def array(st, shadows: tuple):
    return SymArray(const(len(shadows)), list(shadows))


def instance(names: tuple):
    def transfer(st, shadows: tuple):
        return SymObject(dict(zip(names, shadows)))
    return transfer


def map_(st, values: tuple, shadows: tuple):
    keys = values[0::2]
    if any(z is not None for z in shadows[0::2]):
        st.concretize("map key", tuple(zip(keys, shadows[0::2])))
    return SymMap(dict(zip(keys, shadows[1::2])))


def concat(st, values: tuple, shadows: tuple):
    parts = [lift(v, z) for v, z in zip(values, shadows)]
    if any(p is None or p.sort != "string" for p in parts):  # a byte string renders decoded
        return st.concretize("concat", tuple(zip(values, shadows)))
    out = parts[0]
    for p in parts[1:]:
        out = app("str.++", "string", out, p)
    return out


def load_field(name: str):
    def transfer(st, obj, zo):
        z = _unwrap(zo, obj)
        return z.fields.get(name) if isinstance(z, SymObject) else None
    return transfer


def store_field(name: str):
    def transfer(st, obj, zo, zv):
        z = _unwrap(zo, obj)
        if not isinstance(z, SymObject):
            if zv is None:
                return zo
            z = SymObject({})
        z.fields[name] = zv
        return z
    return transfer


def load_index(st, c, zc, i, zi):
    z = _unwrap(zc, c)
    if isinstance(c, list):
        if zi is None:
            return z.items[i] if isinstance(z, SymArray) and -len(c) <= i < len(c) else None
        return _select(st, c, z, i, zi)
    if isinstance(c, dict):
        if zi is not None:
            st.concretize("map key", ((i, zi),))
        return z.items.get(i) if isinstance(z, SymMap) else None
    if type(c) is bytearray and type(i) is int and -len(c) <= i < len(c):
        eb, ei = lift(c, z), lift(i, zi)
        return app("bytes.at", "int", eb, _from_end(ei, app("str.len", "int", eb)))
    return st.concretize("index", ((c, zc), (i, zi)))


def _from_end(ei: Expr, n: Expr) -> Expr:
    """An index as a position: negative ones count from the end (length n)."""
    if ei.op == "const":
        return ei if ei.args[0] >= 0 else app("+", "int", n, ei)
    return app("ite", "int", app("<", "bool", ei, const(0)), app("+", "int", ei, n), ei)


def _select(st, c: list, z, i: int, zi):
    """`c[i]` with a symbolic index: an if-then-else over the concrete elements."""
    ei = lift(i, zi)
    n = z.length if isinstance(z, SymArray) else const(len(c))
    k = app("ite", "int", app("<", "bool", ei, const(0)), app("+", "int", ei, n), ei)
    items = [lift(x, z.items[j] if isinstance(z, SymArray) else None) for j, x in enumerate(c)]
    if not items or any(e is None for e in items) or len({e.sort for e in items}) > 1:
        st.concretize("index", ((i, zi),))
        return z.items[i] if isinstance(z, SymArray) and -len(c) <= i < len(c) else None
    out = items[-1]
    for j in range(len(items) - 2, -1, -1):
        out = app("ite", items[j].sort, app("==", "bool", k, const(j)), items[j], out)
    return out


def store_index(st, c, zc, i, zi, zv):
    z = _unwrap(zc, c)
    if zi is not None:
        st.concretize("index", ((i, zi),))
    if type(c) is bytearray:  # the shadow before the store (the VM stores after the snippet)
        if zc is None and zv is None:
            return None
        eb, ev = lift(c, z), lift(c[i] if zv is None else None, zv)
        if ev is None or ev.sort != "int":
            ev = const(0)  # never: a byte store's value is an int
        return app("bytes.store", "uint8array", eb, _from_end(const(i), app("str.len", "int", eb)), ev)
    if isinstance(c, list):
        if not isinstance(z, SymArray):
            if zv is None:
                return zc
            z = SymArray(const(len(c)), [None] * len(c))
        z.items[i] = zv
        return z
    if not isinstance(z, SymMap):
        if zv is None:
            return zc
        z = SymMap({})
    z.items[i] = zv
    return z


# ── explicit panic sites ──

def check(panic: str, op: str):
    """The failing condition of a check, recorded when it is symbolic."""
    if panic.endswith("IntegerOverflow") and op in ("+", "-", "*"):
        return _arith_check(panic, op)

    def transfer(st, site, values: tuple, shadows: tuple):
        cond, failed = _failing(panic, op, values, shadows)
        if cond is not None and cond.op != "const":
            st.record(site, panic, failed, cond)
    return transfer


_PY_OP = {"+": int.__add__, "-": int.__sub__, "*": int.__mul__}


def _arith_check(panic: str, op: str):
    """`a op b` overflows: the hot check (every symbolic + - *), its condition built lazily."""
    py = _PY_OP[op]

    def transfer(st, site, values: tuple, shadows: tuple):
        a, b = values
        if type(a) is not int or type(b) is not int:
            return
        za, zb = shadows
        ea = za if type(za) is Expr else lift(a, za)
        eb = zb if type(zb) is Expr else lift(b, zb)
        if ea is None or eb is None:
            return
        r = py(a, b)
        st.record(site, panic, not INT_MIN <= r <= INT_MAX, (overflow_condition, op, ea, eb))
    return transfer


def check_condition(kind: str, ea, eb=None) -> Expr:
    """The failing condition of an inlined int check (operands: expressions, raw shadows or
    ints): "zero" (b == 0), "min/-1" (a == INT_MIN and b == -1), "min" (a == INT_MIN)."""
    if kind == "zero":
        return app("==", "bool", realize(eb), const(0))
    a_min = app("==", "bool", realize(ea), const(INT_MIN))
    return a_min if kind == "min" else app("and", "bool", a_min, app("==", "bool", realize(eb), const(-1)))


def overflow_condition(op: str, ea, eb) -> Expr:
    """`ea op eb` leaves the 63-bit range (operands: expressions, raw shadows or ints)."""
    r = app(op, "int", realize(ea), realize(eb))
    return app("or", "bool", app("<", "bool", r, const(INT_MIN)), app(">", "bool", r, const(INT_MAX)))


def _failing(panic: str, op: str, values, shadows):
    kind = panic.rsplit(".", 1)[-1]
    if kind in ("IndexOutOfBounds", "MapKeyNotFound"):
        return _bounds(values, shadows)
    es = [lift(v, z) for v, z in zip(values, shadows)]
    if any(e is None for e in es):
        return None, False
    if kind == "DivisionByZero" and all(e.sort in ("int", "bigint") for e in es):  # bigints too
        return app("==", "bool", es[1], const(0)), values[1] == 0
    if any(type(v) is not int for v in values):  # the 63-bit checks are for ints only
        return None, False
    if kind == "NegativeBitShift":
        return app("<", "bool", es[1], const(0)), values[1] < 0
    if op == "neg":
        return app("==", "bool", es[0], const(INT_MIN)), values[0] == INT_MIN
    if op == "/":
        cond = app("and", "bool", app("==", "bool", es[0], const(INT_MIN)), app("==", "bool", es[1], const(-1)))
        return cond, values[0] == INT_MIN and values[1] == -1
    r = app(op, "int", es[0], es[1])
    cond = app("or", "bool", app("<", "bool", r, const(INT_MIN)), app(">", "bool", r, const(INT_MAX)))
    a, b = values
    conc = a + b if op == "+" else a - b if op == "-" else a * b
    return cond, not INT_MIN <= conc <= INT_MAX


def _bounds(values, shadows):
    (c, i), (zc, zi) = values, shadows
    z = _unwrap(zc, c)
    if isinstance(c, (list, bytearray)) and type(i) is int:
        n = z.length if isinstance(z, SymArray) else \
            app("str.len", "int", z) if isinstance(z, Expr) and z.sort == "uint8array" else const(len(c))
        ei = lift(i, zi)
        cond = app("or", "bool", app("<", "bool", ei, app("neg", "int", n)), app(">=", "bool", ei, n))
        return cond, not -len(c) <= i < len(c)
    if isinstance(c, dict) and zi is not None and isinstance(zi, Expr):
        keys = [const(k) for k in c if type(k) is type(i)]
        cond = const(True)
        for k in keys:
            cond = app("and", "bool", cond, app("!=", "bool", zi, k))
        return cond, i not in c
    return None, False


# ── natives ──

_MUTATING = {"push", "pop", "insert", "remove", "remove_at", "sort", "sort_by", "reverse", "clear",
             "extend", "append", "set", "delete", "shift", "unshift", "swap", "fill", "truncate"}


def native(name: str):
    """A stdlib call: a model where one exists, else concretisation. Returns (result shadow,
    receiver shadow) — a mutating native's receiver is updated or dropped."""
    method = name.rsplit(".", 1)[-1]
    model = _MODELS.get(name)

    def transfer(st, result, values: tuple, shadows: tuple):
        recv = shadows[0] if shadows else None
        if model is not None:
            return model(st, result, values, shadows)
        st.concretize(name, tuple(zip(values, shadows)))
        return None, (None if method in _MUTATING else recv)
    return transfer


_KIND_OF = {list: "array", str: "string", dict: "map", int: "int", float: "float", bool: "bool",
            bytearray: "uint8array"}


def method(name: str):
    """A method call dispatched at run time: on a builtin receiver, the native's model (or
    concretisation); on an instance, the callee's own result shadow stands."""
    def transfer(st, result, values: tuple, shadows: tuple):
        v0 = values[0] if values else None
        kind = _KIND_OF.get(list if isinstance(v0, list) else dict if isinstance(v0, dict) else type(v0))
        if kind is None:
            return None, shadows[0] if shadows else None
        return native(f"{kind}.{name}")(st, result, values, shadows)
    return transfer


def _push(st, result, values, shadows):
    (arr, _), (za, zv) = values, shadows
    z = _unwrap(za, arr)
    if not isinstance(z, SymArray):
        z = SymArray(const(len(arr) - 1), [None] * (len(arr) - 1))
    z.items.append(zv)
    z.length = app("+", "int", z.length, const(1))
    return z.length, z


def _filled(st, result, values, shadows):
    (n, _), (zn, zv) = values, shadows
    length = lift(n, zn) if isinstance(zn, Expr) else const(len(result))
    return SymArray(length, [zv] * len(result)), None


def _length(st, result, values, shadows):
    return length(st, values[0], shadows[0]), shadows[0]


def _string_pred(op: str, swap: bool = False):
    def model(st, result, values, shadows):
        es = [lift(v, z) for v, z in zip(values, shadows)]
        if len(es) != 2 or any(e is None or e.sort != "string" for e in es):
            st.concretize(op, tuple(zip(values, shadows)))
            return None, shadows[0]
        a, b = (es[1], es[0]) if swap else (es[0], es[1])
        return app(op, "bool", a, b), shadows[0]
    return model


def _bytes_slice(st, result, values, shadows):
    """`b.slice(start, end)`: negatives count from the end, both clamp (start/end pinned when
    symbolic: the solver moves the contents and the length, not the bounds)."""
    (b, start, end), (zb, zs, ze) = values, shadows
    if zs is not None or ze is not None:
        st.concretize("uint8array.slice bounds", ((start, zs), (end, ze)))
    if zb is None:
        return None, None
    eb = lift(b, zb)
    n = app("str.len", "int", eb)
    lo, hi = _clamp(start, n), _clamp(end, n)
    return app("bytes.sub", "uint8array", eb, lo, app("-", "int", app("ite", "int", app("<", "bool", hi, lo), lo, hi), lo)), zb


def _clamp(i: int, n: Expr) -> Expr:
    """A concrete slice bound against a symbolic length n: max(i + n, 0) or min(i, n)."""
    if i < 0:
        k = app("+", "int", n, const(i))
        return app("ite", "int", app("<", "bool", k, const(0)), const(0), k)
    return app("ite", "int", app("<", "bool", n, const(i)), n, const(i))


def _to_utf8(st, result, values, shadows):
    """`s.to_utf8()`: the same characters as bytes, exactly, while the string is ASCII (every
    string input is printable ASCII; a non-ASCII constant in it concretises)."""
    (s,), (zs,) = values, shadows
    e = lift(s, zs)
    if e is None or e.sort != "string" or not _ascii(e):
        st.concretize("string.to_utf8", ((s, zs),))
        return None, zs
    return app("as_bytes", "uint8array", e), zs


def _ascii(e: Expr) -> bool:
    todo, seen = [e], set()
    while todo:
        x = todo.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if x.op == "const" and isinstance(x.args[0], str) and not x.args[0].isascii():
            return False
        if x.op not in ("var", "const", "str.++"):
            return False  # only concatenations of ASCII constants and inputs are known ASCII
        todo.extend(a for a in x.args if isinstance(a, Expr))
    return True


_MODELS = {
    "uint8array.length": _length, "uint8array.slice": _bytes_slice, "string.to_utf8": _to_utf8,
    "array.push": _push, "array.length": _length, "string.length": _length,
    "Array.filled": _filled, "baml.Array.filled": _filled,
    "string.includes": _string_pred("str.contains"), "string.starts_with": _string_pred("str.prefixof", True),
    "string.ends_with": _string_pred("str.suffixof", True),
}
