"""The symbolic extension: per MIR node, the snippet compiled in — for int operations on
statically typed ints a raw shadow tuple and an inline check record, for everything else a call
of the node's transfer function (chosen at compile time, its sidecar data); at run time a
`PathState` per run collects the path records, the concretisations and the LLM answers."""
from __future__ import annotations

from .. import mirx
from . import transfer as T
from ..extension import Abort
from .expr import INT_MAX, INT_MIN, RAW_SORT, Expr, SymArray, app, lift, not_, realize
from .inputs import default


class Record:
    """One symbolic decision on the path: a branch (`kind` "branch", `taken` its direction)
    or an explicit panic site (`kind` the panic class, `taken` True when it panicked);
    `condition` is the branch condition / the panic's failing condition (a hot check may
    hand over a recipe `(build, *args)` instead: it is built on first use)."""

    __slots__ = ("site", "kind", "taken", "_condition")

    def __init__(self, site: str, kind: str, taken: bool, condition):
        self.site, self.kind, self.taken, self._condition = site, kind, taken, condition

    @property
    def condition(self) -> Expr:
        c = self._condition
        if type(c) is tuple:  # a recipe (build, *args) or a raw shadow (op, a, b)
            c = self._condition = c[0](*c[1:]) if callable(c[0]) else realize(c)
        return c

    @property
    def constraint(self) -> Expr:
        """What the run's inputs satisfied here."""
        return self.condition if self.taken else not_(self.condition)

    def __repr__(self) -> str:
        return f"Record({self.site!r}, {self.kind!r}, {self.taken}, {self.condition!r})"


# natives that allocate by an int argument (its index): a solved size near 2^62 must end the
# run with a recorded limit, not exhaust memory
SIZE_ARGUMENT = {"Array.filled": 0, "baml.Array.filled": 0, "string.repeat": 1}


class Limit(Abort):
    """A per-execution limit was reached (`kind`: "records" or "size"); the run stops."""

    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind} limit: {detail}")
        self.kind = kind


class LlmSite:
    """Compile-time data of an LLM function call: the function (as the host names it), its
    return type and the program view that converts answers."""
    __slots__ = ("name", "type", "view")

    def __init__(self, name: str, type_, view):
        self.name, self.type, self.view = name, type_, view


class PathState:
    """A run's symbolic state: its path, its concretisations, the shadows of closure cells,
    its limits (path records, allocation sizes) and the LLM answers it supplied."""

    __slots__ = ("path", "pins", "cells", "concretized", "max_records", "max_size", "inputs",
                 "llm_given", "llm_used")

    def __init__(self, max_records: int = 100_000, max_size: int = 1_000_000, inputs=None,
                 llm_given: dict | None = None):
        self.max_records, self.max_size = max_records, max_size
        self.inputs, self.llm_given = inputs, llm_given or {}
        self.llm_used: list = []  # (function, var name, type, host answer) in call order
        self.path: list[tuple] = []  # (site, kind, taken, condition)
        self.pins: list[tuple[int, Expr]] = []  # (records before it, pin) per concretisation
        self.concretized: dict[str, int] = {}  # operation → how often
        self.cells: dict[int, tuple] = {}  # id(cell) → (cell, shadow of its content)

    # records are kept as plain tuples while the run is hot; Trace.path makes them Records
    def branch(self, site: str, taken: bool, cond) -> None:
        if type(cond) is tuple or (type(cond) is Expr and cond.op != "const"):
            path = self.path
            path.append((site, "branch", taken, cond))
            if len(path) > self.max_records:
                raise Limit("records", f"more than {self.max_records} symbolic decisions")

    def record(self, site: str, panic: str, failed: bool, cond) -> None:
        path = self.path
        path.append((site, panic, failed, cond))
        if len(path) > self.max_records:
            raise Limit("records", f"more than {self.max_records} symbolic decisions")

    def llm_answer(self, site: LlmSite) -> tuple:
        """The next answer of an LLM function: the one given for this call (else a default of
        its return type), as a fresh symbolic input — the call itself never runs."""
        i = sum(1 for used in self.llm_used if used[0] == site.name)
        given = self.llm_given.get(site.name, ())
        host = given[i] if i < len(given) else default(site.type)
        value = site.view.to_runtime(host, site.type, f"answer of {site.name}")
        name = f"{site.name}#{i}"
        self.llm_used.append((site.name, name, site.type, host))
        return value, self.inputs.shadow(name, value, site.type)

    def bound_size(self, n) -> None:
        if type(n) is int and n > self.max_size:
            raise Limit("size", f"an allocation of {n} elements")

    def concretize(self, what: str, operands) -> None:
        """An operation without a model: its result is concrete; every symbolic operand is
        pinned to its value so the path condition stays exact."""
        pinned = False
        for value, z in operands:
            e = lift(value, z) if not isinstance(z, SymArray) else None
            if isinstance(z, SymArray):
                e, value = z.length, len(value)
            if isinstance(e, Expr) and e.op != "const":
                self.pins.append((len(self.path), app("==", "bool", e, lift(value, None) or e)))
                pinned = True
        if pinned:
            self.concretized[what] = self.concretized.get(what, 0) + 1
        return None

    def cell_load(self, cell):
        hit = self.cells.get(id(cell))
        return hit[1] if hit is not None and hit[0] is cell else None

    def cell_store(self, cell, shadow) -> None:
        self.cells[id(cell)] = (cell, shadow)


class Tracer(mirx.Extension):
    """Attach to a run (`sym.run` does): the parameters' shadows are made from their types
    and run-time values as the run starts."""

    name = "sym"
    shadow = True

    def __init__(self, params: list, inputs, limits: dict | None = None, llm: dict | None = None):
        """`params`: (name, TypeView, symbolic?) per parameter; `inputs` makes the shadows;
        `limits`: PathState's max_records / max_size; `llm`: answers per LLM function."""
        self.params, self.inputs, self.limits, self.llm = params, inputs, limits or {}, llm
        self.state: PathState | None = None
        self.result_shadow = None

    # ── compile half ──
    def instrument(self, fn, node, pcs):
        return _handler(fn, node)

    def snippet(self, fn, node, data):
        return _snippet(node, data)

    # ── run half ──
    def on_run_start(self, run):
        shadow = self.inputs.shadow
        run.shadows = tuple([shadow(name, value, t) if symbolic else None
                             for (name, t, symbolic), value in zip(self.params, run.args)])
        return PathState(**self.limits, inputs=self.inputs, llm_given=self.llm)

    def on_run_end(self, run, state) -> None:
        self.state, self.result_shadow = state, run.result_shadow


def _handler(fn, node):
    """The transfer function of a node (its compile-time data); a store's is the pair
    (transfer of its value, transfer of the store)."""
    k = node.kind
    if k == "check":
        inline = _inline_check(node)  # the snippet computes the flag; the data builds the condition
        if inline is not None:
            return T.overflow_condition if inline == "arith" else T.check_condition
        return T.check(node.panic, node.op)
    if k == "call" and node.call.kind == "llm":
        return LlmSite(node.call.name.removeprefix("user."), node.call.function.return_type, fn.program)
    if k == "call" and node.call.kind == "builtin":
        return T.native(node.call.name)
    if k == "call" and node.call.kind == "method":
        return T.method(node.call.name)
    if k != "assign":
        return None
    place = node.place
    value = _rvalue_handler(fn, node.rvalue)
    if place.kind == "field":
        return value, T.store_field(place.field)
    if place.kind == "index":
        return value, T.store_index
    return value


def _rvalue_handler(fn, rv):
    r = rv.kind
    if r == "binary":
        return T.binary(rv.op)
    if r == "unary":
        return T.unary(rv.op)
    if r == "load":
        p = rv.place
        return T.load_field(p.field) if p.kind == "field" else T.load_index if p.kind == "index" else None
    if r == "class":
        return T.instance(tuple(_class_fields(fn, rv.target)))
    if r == "is_type":
        return T.is_type(rv.test)
    return {"truthy": T.truthy, "len": T.length, "array": T.array, "map": T.map_,
            "concat": T.concat}.get(r)


_RECEIVER_KINDS = {"array", "string", "map", "int", "float", "bool", "bigint", "uint8array"}


def _class_fields(fn, fqn: str) -> list[str]:
    for c in fn.program.classes():
        if c.qualified_name == fqn:
            return [f.name for f in c.fields]
    return []


def _tuple(fmt: str, n: int) -> str:
    return "(" + "".join(fmt.format(i) + ", " for i in range(n)) + ")"


def _snippet(node, data):
    k = node.kind
    if k == "branch":
        return mirx.Code(after="{state}.branch({site}, {taken}, {shadows[0]})")
    if k == "check" and _decided(node):  # a constant decides it: never a symbolic condition
        return None
    inline = _inline_check(node) if k == "check" and data is not None else None
    if inline is not None:  # a hot check inline: the panicked flag here, the condition a lazy recipe
        a = _raw(node, 0)
        b = _raw(node, 1) if len(node.operands) > 1 else "None"
        za, zb = "{shadows[0]}", "{shadows[1]}" if len(node.operands) > 1 else "None"
        # when: the condition depends on a symbolic operand (else it is a constant: no record)
        when, flag, recipe = {
            "arith": ("", f"not {INT_MIN} <= {{ops[0]}} {node.op} {{ops[1]}} <= {INT_MAX}", f"{node.op!r}, {a}, {b}"),
            "zero": (f"if {zb} is not None: ", "{ops[1]} == 0", f"'zero', None, {b}"),
            "min/-1": (f"if ({za} is not None and ({zb} is not None or {{ops[1]}} == -1)) or "
                       f"({zb} is not None and {{ops[0]}} == {INT_MIN}): ",
                       f"{{ops[0]}} == {INT_MIN} and {{ops[1]}} == -1", f"'min/-1', {a}, {b}"),
            "min": ("", f"{{ops[0]}} == {INT_MIN}", f"'min', {a}"),
        }[inline]
        return mirx.Code(before=when + "{state}.path.append(({site}, " + repr(node.panic) + f", {flag}, "
                         + "({data}, " + recipe + ")))")
    if k == "check" and data is not None:
        n = len(node.operands)
        return mirx.Code(before="{data}({state}, {site}, " + _tuple("{{ops[{0}]}}", n) + ", "
                         + _tuple("{{shadows[{0}]}}", n) + ")")
    if k == "call" and node.call.kind == "llm":  # answers are symbolic inputs: no model is asked
        return mirx.Code(substitute="{state}.llm_answer({data})")
    if k == "call" and data is not None:
        n = len(node.operands)
        method = node.call.name.split(".")[0] in _RECEIVER_KINDS  # a method may update its receiver
        recv = "{shadows[0]}" if method and n and node.operands[0].kind == "local" else "_"
        if node.call.kind == "method":  # the callee's result shadow, else a builtin's model
            recv = "{shadows[0]}" if n and node.operands[0].kind == "local" else "_"
            return mirx.Code(after="if {shadow} is None:\n    {shadow}, " + recv + " = {data}({state}, {dest}, "
                             + _tuple("{{ops[{0}]}}", n) + ", " + _tuple("{{shadows[{0}]}}", n) + ")")
        size = SIZE_ARGUMENT.get(node.call.name)
        return mirx.Code(before=f"{{state}}.bound_size({{ops[{size}]}})" if size is not None and size < n else "",
                         after="{shadow}, " + recv + " = {data}({state}, {dest}, " + _tuple("{{ops[{0}]}}", n)
                         + ", " + _tuple("{{shadows[{0}]}}", n) + ")")
    if k != "assign":
        return None
    return _assign_snippet(node, data)


def _assign_snippet(node, data) -> str | None:
    rv, place = node.rvalue, node.place
    n = len(node.operands)
    if place.kind == "local":
        if rv.kind == "cell":
            return "{state}.cell_store({dest}, {shadows[0]})\n{shadow} = None"
        if rv.kind == "binary" and rv.op in RAW_SORT and _static(rv, "int"):  # the hot form: a tuple
            return f"{{shadow}} = ({rv.op!r}, {_raw(node, 0)}, {_raw(node, 1)})"
        value = _value(rv, "{data}", 0, n)
        return None if value is None else "{shadow} = " + value
    # a store (unguarded): the value's shadow first, then the place's
    first = 1 if place.kind in ("field", "cell") else 2
    if node.operands[0].kind != "local":
        return None
    live = " and ".join(f"{{shadows[{i}]}} is None" for i in range(first, n)) or "True"
    value = _value(rv, "{data}[0]" if place.kind != "cell" else "{data}", first, n) or "None"
    code = f"_zv = None if {live} else {value}\n"
    if place.kind == "cell":
        return code + "{state}.cell_store({ops[0]}, _zv)"
    args = ", ".join(f"{{ops[{i}]}}, {{shadows[{i}]}}" for i in range(first - 1))
    return code + "{shadows[0]} = {data}[1]({state}, " + (args + ", " if args else "") + "{ops[" + \
        str(first - 1) + "]}, {shadows[" + str(first - 1) + "]}, _zv)"


def _value(rv, data: str, first: int, n: int) -> str | None:
    """The expression of an rvalue's shadow, its operands being ops/shadows first..n-1."""
    idx = range(first, n)
    if rv.kind == "use" or (rv.kind == "truthy" and _static(rv, "bool")):  # a bool's truth is itself
        return f"{{shadows[{first}]}}"
    if rv.kind == "load" and rv.place.kind == "cell":
        return f"{{state}}.cell_load({{ops[{first}]}})"
    if data.startswith("{data}") and _no_model(rv):
        return None
    ops = "(" + "".join(f"{{ops[{i}]}}, " for i in idx) + ")"
    shadows = "(" + "".join(f"{{shadows[{i}]}}, " for i in idx) + ")"
    if rv.kind in ("array", "class"):
        return f"{data}({{state}}, {shadows})"
    if rv.kind in ("map", "concat"):
        return f"{data}({{state}}, {ops}, {shadows})"
    args = ", ".join(f"{{ops[{i}]}}, {{shadows[{i}]}}" for i in idx)
    return f"{data}({{state}}, {args})"


def _static(rv, kind: str) -> bool:
    """Is every operand statically of this kind (so the run-time type test can go)?"""
    return bool(rv.operands) and all(o.type is not None and o.type.kind == kind for o in rv.operands)


def _decided(check) -> bool:
    """Checks whose failing condition a constant operand decides: a literal divisor (for
    division by zero, and for INT_MIN / -1 unless it is -1) or shift count."""
    kind, ops = check.panic.rsplit(".", 1)[-1], check.operands
    if len(ops) != 2 or ops[1].kind != "constant" or type(ops[1].value) is not int:
        return False
    if kind in ("DivisionByZero", "NegativeBitShift"):
        return True
    return kind == "IntegerOverflow" and check.op == "/" and ops[1].value != -1


def _inline_check(node) -> str | None:
    """Which inline form an int check on statically typed ints takes (None: the general one)."""
    if not _static(node, "int"):
        return None
    kind = node.panic.rsplit(".", 1)[-1]
    if kind == "IntegerOverflow":
        return {"+": "arith", "-": "arith", "*": "arith", "/": "min/-1", "neg": "min"}.get(node.op)
    return "zero" if kind == "DivisionByZero" else None


def _raw(node, i: int) -> str:
    """Operand i in a raw shadow: its shadow when it has one, else its value."""
    if node.operands[i].kind != "local":
        return f"{{ops[{i}]}}"
    return f"({{shadows[{i}]}} if {{shadows[{i}]}} is not None else {{ops[{i}]}})"


def _no_model(rv) -> bool:
    return rv.kind in ("closure", "cell")
