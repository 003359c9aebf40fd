"""Planning: one run of the per-sample function with its sample fields concrete and every
tensor missing (no torch here).

`Planner` is a shadowing mirx extension. Every call of a host function (a function-typed
parameter given from Python: an `indirect` call whose callee is that parameter's value) is
substituted: recorded as a `HostCall` node of the sample's residual, its result a `Missing`
placeholder (an opaque object: `unknown` passes it through BAML unchanged). A shadow is
non-None where a value is, or may hold, a missing value or a host function (a container, an
instance, a closure over one); a scalar's shadow is always None, since a scalar derived from a
missing value would have been computed by an operation that inspects it, and every such
operation — a branch, a comparison, arithmetic, a template string, a type test, a map key, a
native that reads its operands' values (includes, index_of, sort, deep_copy, string.from,
printing, …) — raises `PackError`, located, when an operand holds a missing value. Natives
that only move values (push, map, filter, slice, get, …) pass them on.
"""
from __future__ import annotations

from .. import mirx

_SCALARS = (int, float, str, bool, type(None))


class PackError(Exception):
    """BAML code inspected a value that is missing while planning (a tensor, or anything a
    host function returned), or the program cannot be packed; the message says where."""


class HostFn:
    """A host function (a function-typed parameter): its name and its planning proxy."""
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"host function `{self.name}`"


class HostCall:
    """One host call of a residual: `k` its index, `host` the host function's name, `args`
    the host-side arguments (`Missing` where a previous call's result goes), `where` the call's
    location (None when a native called it, e.g. `xs.map(f)`)."""
    __slots__ = ("k", "host", "args", "where")

    def __init__(self, k: int, host: str, args: tuple, where):
        self.k, self.host, self.args, self.where = k, host, args, where

    def describe(self) -> str:
        at = f" at {self.where}" if self.where else ""
        return f"the result of host call `{self.host}(…)`{at}"

    def __repr__(self) -> str:
        return f"HostCall({self.k}, {self.host}, {self.args!r})"


class Missing:
    """The placeholder of a host call's result while planning."""
    __slots__ = ("node",)

    def __init__(self, node: HostCall):
        self.node = node

    def __repr__(self) -> str:
        return f"<missing: {self.node.describe()}>"

    # a backstop for natives that inspect values without a snippet seeing them
    def _inspect(self, *_):
        raise PackError(f"a native inspected a missing value: {self.node.describe()}")

    __eq__ = __lt__ = __le__ = __gt__ = __ge__ = __bool__ = __len__ = __iter__ = _inspect
    __str__ = __format__ = __int__ = __float__ = __index__ = _inspect
    __hash__ = None  # type: ignore[assignment]  # a map key: unhashable, as the shadow's error says


def find_missing(v, seen=None):
    """The first missing value `v` is or holds (lists, maps, instances, tuples), else None."""
    t = type(v)
    if t is Missing:
        return v
    if t in _SCALARS:
        return None
    if seen is None:
        seen = set()
    if id(v) in seen:
        return None
    seen.add(id(v))
    if isinstance(v, (list, tuple)):
        items = v
    elif isinstance(v, dict):
        items = [*v.keys(), *v.values()]
    else:
        slots = [s for c in t.__mro__ for s in getattr(c, "__slots__", ()) if isinstance(s, str)]
        items = [getattr(v, s, None) for s in slots if not s.startswith("__")]
    for x in items:
        m = find_missing(x, seen)
        if m is not None:
            return m
    return None


def shadow_of(value, fallback):
    """A destination's shadow from its value: a missing value's own call, None for a scalar,
    else (a container, an instance, a closure) the operand shadow it came from."""
    t = type(value)
    if t is Missing:
        return value.node
    if t in _SCALARS or getattr(value, "enum", None) is not None:
        return None
    return fallback


class Site:
    """Compile-time data of a node: what it does to a missing value and where it is."""
    __slots__ = ("what", "where", "check", "key")

    def __init__(self, what: str, where, check=None, key=None):
        self.what, self.where, self.check, self.key = what, where, check, key


class PlanState:
    """One planning run: the residual's host calls, the host functions by identity, the
    shadows of closure cells."""
    __slots__ = ("calls", "hosts", "cells", "native_site")

    def __init__(self, hosts: dict):
        self.calls: list[HostCall] = []
        self.hosts = hosts  # id(run-time value of a host parameter) -> HostFn
        self.cells: dict = {}
        self.native_site = None

    # ── host calls ──
    def record(self, host: str, args: tuple, where) -> Missing:
        node = HostCall(len(self.calls), host, args, where)
        self.calls.append(node)
        return Missing(node)

    def host_call(self, site: Site, callee, args: tuple, to_host):
        hf = self.hosts.get(id(callee))
        if hf is None:
            return None  # a BAML function value: it runs
        m = self.record(hf.name, tuple(to_host(a) for a in args), site.where)
        return m, m.node

    # ── inspections ──
    def fail(self, site: Site, values: tuple, shadows: tuple) -> None:
        """Raise if any operand (one whose shadow is set, or any with `check` "all") holds a
        missing value; the operation inspects its operands' values."""
        for v, z in zip(values, shadows):
            if z is not None or type(v) is Missing:
                m = find_missing(v)
                if m is not None:
                    raise PackError(f"{site.where}: cannot {site.what} a value derived from a missing tensor "
                                    f"({m.node.describe()}): while packing, BAML control flow runs on the "
                                    f"samples' concrete fields only; tensors are PyTorch's (host functions)")

    def keys(self, site: Site, values: tuple, shadows: tuple, positions) -> None:
        self.fail(site, tuple(values[i] for i in positions if i < len(values)),
                  tuple(shadows[i] for i in positions if i < len(shadows)))

    def first(self, shadows: tuple):
        for z in shadows:
            if z is not None:
                return z
        return None

    def adopt(self, v):
        """A parameter's shadow at entry when the caller gave none (a callee entered by a
        native, e.g. `xs.map((t) => …)`): from its value."""
        t = type(v)
        if t is Missing:
            return v.node
        if t in _SCALARS:
            return None
        m = find_missing(v)
        return m.node if m is not None else None

    def cell_load(self, cell):
        hit = self.cells.get(id(cell))
        return hit[1] if hit is not None and hit[0] is cell else None

    def cell_store(self, cell, shadow) -> None:
        self.cells[id(cell)] = (cell, shadow)


# natives that move values without reading them (a callback reads its own arguments, and its
# parameters get their shadows at entry); for map methods, the key operands are read
PASS = {
    "array." + m for m in ("at", "clear", "concat", "every", "filter", "filter_map", "find", "find_index",
                           "find_last", "find_last_index", "flat_map", "for_each", "insert", "iter",
                           "length", "map", "pop", "push", "reduce", "remove_at", "reverse", "shift",
                           "slice", "some", "sort_by", "sort_by_key", "splice", "unshift")
} | {"map." + m for m in ("clear", "keys", "length", "values")} | {
    "iter." + m for m in ("chain", "collect", "count", "every", "filter", "filter_map", "find", "flat_map",
                          "for_each", "iter", "map", "next", "peek", "peekable", "reduce", "skip",
                          "skip_while", "some", "step_by", "take", "take_while")
} | {"Array.filled", "Array.generate", "baml.Array.filled", "baml.Array.generate", "baml.iter.ArrayIterator.new",
     "baml.iter.Range.new", "baml.iter.Repeat.new", "baml.iter.flatten"}
KEYED = {"map." + m for m in ("delete", "get", "get_or_insert", "has", "index", "set")}
_RECEIVER_KINDS = {list: "array", dict: "map", str: "string", int: "int", float: "float", bool: "bool"}


def _tuple(fmt: str, n: int, start: int = 0) -> str:
    return "(" + "".join(fmt.format(i) + ", " for i in range(start, n)) + ")"


_OPS = "{{ops[{0}]}}"
_SH = "{{shadows[{0}]}}"


class Planner(mirx.Extension):
    """The planning extension (see the module's doc). `hosts`: the names of the host
    parameters of the planned function."""

    name = "pack"
    shadow = True

    def __init__(self, view, fqn: str, host_names):
        self.view, self.fqn = view, fqn
        self.host_names = tuple(host_names)
        self.state: PlanState | None = None
        self.result_shadow = None

    def config(self):
        return ()

    # ── compile half ──
    def instrument(self, fn, node, pcs):
        where = str(node.span) if getattr(node, "span", None) is not None else fn.fqn
        k = node.kind
        if k == "entry":
            return Site("enter", where) if fn.kind == "lambda" else None
        if k == "branch":
            return Site("branch on", where)
        if k == "check":
            return Site(f"compute `{node.op}` on" if node.op not in ("[]", "[]=") else "index with", where)
        if k == "call":
            c = node.call
            if c.kind == "indirect":
                return Site("call", where)
            if c.kind == "llm":
                return Site(f"call LLM function `{c.name}` while packing", where)
            if c.kind in ("builtin", "method"):
                return Site(f"pass to `{c.name}`", where, key=c.name)
            return None
        if k != "assign":
            return None
        rv, place = node.rvalue, node.place
        if place.kind == "index":
            return Site("use as a map key or an index", where)
        what = {"binary": f"apply `{rv.op}` to", "unary": f"apply `{rv.op}` to", "truthy": "test the truth of",
                "concat": "render in a template string", "is_type": "test the type of",
                "map": "use as a map key", "load": "index with"}.get(rv.kind, rv.kind)
        return Site(what, where)

    def snippet(self, fn, node, data):
        k = node.kind
        n = len(getattr(node, "operands", ()))
        ops, shs = _tuple(_OPS, n), _tuple(_SH, n)
        if k == "entry":
            if data is None:
                return None
            m = len(fn.mir.params)
            return "\n".join(f"if {{shadows[{i}]}} is None: {{shadows[{i}]}} = {{state}}.adopt({{ops[{i}]}})"
                             for i in range(m)) or None
        if k == "check" and node.op in ("[]", "[]=") and n > 1:  # the index is read, not the container
            return mirx.Code(before="{state}.fail({data}, ({ops[1]},), ({shadows[1]},))")
        if k in ("branch", "check"):
            return mirx.Code(before="{state}.fail({data}, " + ops + ", " + shs + ")")
        if k == "call":
            c = node.call
            if c.kind == "indirect":
                args = _tuple(_OPS, n, 1)
                return mirx.Code(substitute="{state}.host_call({data}, {ops[0]}, " + args + ", {ext}.to_host)")
            if c.kind == "llm":
                return mirx.Code(substitute="{ext}.llm({data})")
            if c.kind == "builtin":
                return self._native(c.name, node, n, ops, shs)
            if c.kind == "method":  # dispatched at run time: a builtin receiver's native, else user code
                return mirx.Code(before="{ext}.method({state}, {data}, " + ops + ", " + shs + ")",
                                 after="if {shadow} is None: {shadow} = {ext}.carry({dest}, " + shs + ")"
                                 if node.dest is not None else "")
            return None
        if k != "assign":
            return None
        rv, place = node.rvalue, node.place
        if place.kind == "local":
            r = rv.kind
            if r == "use":
                return "{shadow} = {shadows[0]}"
            if r == "cell":
                return "{state}.cell_store({dest}, {shadows[0]})\n{shadow} = {shadows[0]}"
            if r == "load" and rv.place.kind == "cell":
                return "{shadow} = {state}.cell_load({ops[0]})"
            if r == "load" and rv.place.kind == "field":
                return "{shadow} = {ext}.carry({dest}, " + shs + ")"
            if r == "load":  # an element: the index is read
                return "{state}.fail({data}, ({ops[1]},), ({shadows[1]},))\n{shadow} = {ext}.carry({dest}, " + shs + ")"
            if r in ("array", "class", "closure"):
                return "{shadow} = {state}.first(" + shs + ")"
            if r == "map":
                keys = range(0, n, 2)
                return ("{state}.keys({data}, " + ops + ", " + shs + f", {tuple(keys)!r})\n"
                        "{shadow} = {state}.first(" + shs + ")")
            if r == "len":
                return "{shadow} = None"
            return mirx.Code(before="{state}.fail({data}, " + ops + ", " + shs + ")")
        if node.operands[0].kind != "local":
            return None
        # a store (unguarded): an index is read (a map key); the container holds what it stores
        if place.kind == "cell":
            return "{state}.cell_store({ops[0]}, {shadows[" + str(n - 1) + "]})"
        code = "if {shadows[" + str(n - 1) + "]} is not None: {shadows[0]} = {shadows[" + str(n - 1) + "]}"
        if place.kind == "index":
            code = "{state}.fail({data}, ({ops[1]},), ({shadows[1]},))\n" + code
        return code

    def _native(self, name: str, node, n: int, ops: str, shs: str):
        after = "{shadow} = {ext}.carry({dest}, " + shs + ")" if node.dest is not None else ""
        recv = node.operands[0].kind == "local" if n else False
        if name in PASS or name in KEYED:
            if name in ("array.push", "array.insert", "array.unshift", "array.splice") and recv:
                after += ("\n" if after else "") + "if {shadows[0]} is None: {shadows[0]} = {state}.first(" + shs + ")"
            if name in KEYED:
                before = "{state}.keys({data}, " + ops + ", " + shs + ", (1,))"
                if name in ("map.set", "map.get_or_insert") and recv:
                    after += ("\n" if after else "") + "if {shadows[0]} is None: {shadows[0]} = {state}.first(" + shs + ")"
                return mirx.Code(before=before, after=after)
            return mirx.Code(after=after)
        return mirx.Code(before="{state}.fail({data}, " + ops + ", " + shs + ")", after=after)

    # ── run half ──
    def on_run_start(self, run):
        hosts = {}
        shadows = []
        for p, v in zip(self.view.function(run.fqn).params, run.args):
            if p.name in self.host_names:
                hf = HostFn(p.name)
                hosts[id(v)] = hf
                shadows.append(hf)
            else:
                shadows.append(None)
        run.shadows = tuple(shadows)
        self.state = PlanState(hosts)
        return self.state

    def on_run_end(self, run, state) -> None:
        self.result_shadow = run.result_shadow

    # ── helpers the snippets call ──
    def to_host(self, v):
        return v if type(v) in _SCALARS or type(v) is Missing else self.view.to_host(v)

    @staticmethod
    def carry(value, shadows):
        for z in shadows:
            if z is not None:
                return shadow_of(value, z)
        return shadow_of(value, None)

    def method(self, state: PlanState, site: Site, values: tuple, shadows: tuple) -> None:
        v0 = values[0] if values else None
        kind = _RECEIVER_KINDS.get(list if isinstance(v0, list) else dict if isinstance(v0, dict) else type(v0))
        if kind is None:
            return  # a user method: its own code inspects what it reads
        name = f"{kind}.{site.key.rsplit('.', 1)[-1]}"
        if name in KEYED:
            state.keys(site, values, shadows, (1,))
        elif name not in PASS:
            state.fail(site, values, shadows)

    def llm(self, site: Site):
        raise PackError(f"{site.where}: cannot {site.what}")
