"""The functions a program offers as commands and tools: names, parameters, schemas, hints,
and the call itself (arguments validated against the input schema, a time limit, errors as
data). Shared by the generated CLI (assay.ingot.cli) and the MCP server (assay.ingot.mcp)."""
from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field

from .. import mirx
from .effects import effects
from .schema import Invalid, SchemaBuilder, Unsupported, help_of, nullable, validate

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
PURE_HINTS = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
DEFAULT_HINTS = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": False, "openWorldHint": True}
DEFAULT_TIMEOUT = 60.0


class CallFailed(Exception):
    """A call that did not return: `error` is {"type", "message", "fields"}; `kind` is
    'arguments', 'panic', 'throw', 'timeout', 'cancelled' or 'error'."""

    def __init__(self, kind: str, error: dict):
        super().__init__(f"{error['type']}: {error['message']}")
        self.kind = kind
        self.error = error


def kebab(name: str) -> str:
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", name)
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1-\2", s)
    return s.replace("_", "-").lower()


@dataclass
class Param:
    name: str
    type: object  # mirx TypeView
    schema: dict
    required: bool  # no default and not nullable
    has_default: bool
    help: str | None
    ingot: object

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")


@dataclass
class Entry:
    """One top-level function as a command / tool."""
    fn: object  # mirx FunctionView
    ingot: dict
    params: list[Param]
    input_schema: dict
    output_schema: dict
    wrapped: bool  # the result is {"result": value}
    help: str | None
    effects: list[str] = field(default_factory=list)

    @property
    def fqn(self) -> str:
        return self.fn.fqn

    @property
    def qualified(self) -> str:
        return self.fn.fqn.removeprefix("user.")

    @property
    def cli_name(self) -> str | None:
        """None: hidden from the CLI (`cli: false`)."""
        c = self.ingot.get("cli")
        if c is False:
            return None
        if isinstance(c, dict) and isinstance(c.get("name"), str):
            return c["name"]
        ns = self.fn.namespace
        return (".".join(kebab(p) for p in ns.split(".")) + "." if ns else "") + kebab(self.fn.name)

    @property
    def mcp(self) -> dict | None:
        m = self.ingot.get("mcp")
        if m is None or m is False:
            return None
        return m if isinstance(m, dict) else {}

    @property
    def tool_name(self) -> str:
        m = self.mcp or {}
        return m["name"] if isinstance(m.get("name"), str) else self.qualified

    @property
    def title(self) -> str | None:
        m = self.mcp or {}
        return m.get("title") if isinstance(m.get("title"), str) else None

    def hints(self) -> tuple[dict, dict]:
        """(hints, where each came from: 'given' | 'inferred' | 'default')."""
        given = self.mcp or {}
        inferred = PURE_HINTS if not self.effects else None
        out, how = {}, {}
        for h in HINTS:
            if isinstance(given.get(h), bool):
                out[h], how[h] = given[h], "given"
            elif inferred is not None:
                out[h], how[h] = inferred[h], "inferred"
            else:
                out[h], how[h] = DEFAULT_HINTS[h], "default"
        return out, how

    # ── calling ──

    def arguments(self, given: dict) -> dict:
        """Checked arguments: validated against the input schema; an omitted nullable
        parameter without a default is null; an omitted parameter with a default is left out."""
        if not isinstance(given, dict):
            raise CallFailed("arguments", _err("ArgumentError", "arguments must be a JSON object"))
        known = {p.name for p in self.params}
        for k in given:
            if k not in known:
                raise CallFailed("arguments", _err("ArgumentError", f"unknown argument `{k}`", k))
        out = {}
        defs = self.input_schema.get("$defs", {})
        for p in self.params:
            if p.name in given:
                try:
                    out[p.name] = validate(given[p.name], p.schema, defs, p.name)
                except Invalid as e:
                    raise CallFailed("arguments", _err("ArgumentError", str(e), e.where)) from None
            elif p.required:
                raise CallFailed("arguments", _err("ArgumentError", f"missing argument `{p.name}`", p.name))
            elif not p.has_default:
                out[p.name] = None
        return out

    def call(self, given: dict, timeout: float | None = DEFAULT_TIMEOUT, limit: "Limit | None" = None):
        """Run the function on this thread; its result as JSON data (wrapped as {"result": …}
        when `wrap`). Raises CallFailed."""
        args = self.arguments(given)
        prog = self.fn.program
        limit = limit if limit is not None else Limit(timeout)
        try:
            with limit:
                result, error = prog.run(self.fqn, args)
        except limit.stopped as e:  # noqa: F841 — the time limit, or a cancellation
            kind = "cancelled" if limit.cancelled else "timeout"
            msg = (f"{self.qualified} was cancelled" if limit.cancelled
                   else f"{self.qualified} did not finish within {limit.seconds:g} s")
            raise CallFailed(kind, _err("Timeout" if kind == "timeout" else "Cancelled", msg)) from None
        except Exception as e:  # noqa: BLE001 — LLM client errors, compile errors of a lazily lowered function
            if limit.expired:  # the interruption surfaced as another exception
                raise CallFailed("timeout", _err("Timeout", f"{self.qualified} did not finish within "
                                                            f"{limit.seconds:g} s")) from None
            if isinstance(e, ValueError):  # the bridge's ArgumentError
                raise CallFailed("arguments", _err("ArgumentError", str(e))) from None
            raise CallFailed("error", _err(type(e).__name__, str(e))) from None
        if error is not None:
            kind = "panic" if isinstance(error, mirx.BamlPanic) else "throw"
            cls = getattr(error, "class_name", None) or "BamlError"
            msg = error.error.get("message", str(error))
            fields = plain(getattr(error, "fields", {}) or {})
            raise CallFailed(kind, {"type": cls, "message": msg, "fields": fields})
        value = plain(result)
        return {"result": value} if self.wrapped else value


def _err(type_: str, message: str, argument: str | None = None) -> dict:
    return {"type": type_, "message": message, "fields": {"argument": argument} if argument else {}}


def plain(v):
    """A call's result as JSON data: models → objects, enum members → their names."""
    if isinstance(v, enum.Enum):
        return v.name
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k if isinstance(k, str) else str(plain(k)): plain(x) for k, x in v.items()}
    d = getattr(v, "__pydantic_fields__", None)
    if d is not None:
        return {k: plain(getattr(v, k)) for k in d}
    if isinstance(v, (bytes, bytearray)):
        return list(v)
    return v


class Limit:
    """The time limit of one call, on the thread that runs it, through the bridge's
    interruption mechanism (`mirx.time_limit`); `cancel()` (from any thread) stops the call
    the same way (`time_limit.cancel`). Without that mechanism (an older bridge) the call runs
    unlimited and a cancellation only keeps a call from starting."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self._tl = mirx.time_limit(seconds) if mirx.time_limit else None
        self.stopped = mirx.TimeLimit if mirx.TimeLimit is not None else _Never
        self._cancelled = False

    def __enter__(self):
        if self._tl is not None:
            self._tl.__enter__()  # raises TimeLimit if cancelled already
        elif self._cancelled:
            raise self.stopped()
        return self

    def __exit__(self, et, ev, tb):
        if self._tl is not None:
            return self._tl.__exit__(et, ev, tb)
        return False

    @property
    def cancelled(self) -> bool:
        return self._cancelled or bool(self._tl is not None and self._tl.cancelled)

    @property
    def expired(self) -> bool:
        return self.cancelled or bool(self._tl is not None and self._tl.expired)

    def cancel(self) -> None:
        self._cancelled = True
        if self._tl is not None:
            self._tl.cancel()


class _Never(BaseException):
    pass


def entries(prog, include_hidden: bool = True) -> list[Entry]:
    """Every top-level function (namespaced ones included) that can be a command or tool:
    left out are methods, tests, lambdas and functions whose parameters or result hold functions."""
    out = []
    for fn in prog.functions(include_tests=False):
        if fn.kind != "function":
            continue
        e = entry(fn)
        if e is not None:
            out.append(e)
    return out


def entry(fn) -> Entry | None:
    b = SchemaBuilder()
    ingot = fn.meta.get("ingot", {})
    ingot = ingot if isinstance(ingot, dict) else {}
    params = []
    try:
        for p in fn.params:
            s = dict(b.of(p.type))
            pin = p.meta.get("ingot", {})
            h = help_of(p.meta) or _type_help(p.type)
            if h:
                s["description"] = h
            params.append(Param(p.name, p.type, s, not p.has_default and not nullable(p.type),
                                p.has_default, h, pin))
        ret = fn.return_type
        ob = SchemaBuilder()  # the output's own $defs
        out_schema = ob.of(ret) if ret is not None else {}
    except Unsupported:
        return None
    props = {p.name: p.schema for p in params}
    required = [p.name for p in params if p.required]
    inp = {"type": "object", "properties": props, "required": required, "additionalProperties": False}
    if ret is not None and ret.kind == "class" and "$ref" in out_schema:
        name = out_schema["$ref"].rsplit("/", 1)[-1]
        outs, wrapped = dict(ob.defs.get(name) or {"type": "object"}), False
    else:
        outs, wrapped = {"type": "object", "properties": {"result": out_schema}, "required": ["result"]}, True
    if b.defs:
        inp["$defs"] = b.defs
    if ob.defs:
        outs["$defs"] = ob.defs
    help_ = ingot.get("help") if isinstance(ingot.get("help"), str) else fn.doc
    e = Entry(fn, ingot, params, inp, outs, wrapped, help_)
    e.effects = effects(fn)
    return e


def _type_help(t) -> str | None:
    if t is not None and t.kind in ("class", "enum"):
        return help_of(t.meta) or getattr(t, "description", None)
    return None
