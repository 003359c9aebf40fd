"""baml.yaml: `parse` and `decode<T>`, as the engine reads YAML (libyaml's events, through
serde_yaml's value model, then checked against `baml.json.json`).

Three phases, each with the engine's words: libyaml's syntax errors (PyYAML's C binding is the
same libyaml, so its problems and marks are the engine's); serde_yaml's building of a value
(scalar resolution, core tags, duplicate keys, 128 levels, integers beyond 64 bits), whose
errors carry the node's path and place; and the engine's conversion to json (string keys,
63-bit ints, finite floats, no custom tags), whose errors carry neither."""
from __future__ import annotations

import re

import yaml

from ..ops import BUILTIN_CLASSES, make_builtin
from ..values import INT_MAX, INT_MIN, BamlRaise, ClassInfo, json_value
from ._registry import function
from .jsontyped import _to
from .render import quote, rust_float

BUILTIN_CLASSES["baml.yaml.ParseError"] = ClassInfo("baml.yaml.ParseError", "ParseError", ["message"])

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml where PyYAML was built with it
_CORE = "tag:yaml.org,2002:"
_DEPTH = 128  # serde_yaml's recursion limit
_FLOAT = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|(?i:inf|infinity|nan))\Z")
_RADIX = {"0x": 16, "0o": 8, "0b": 2}
_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}
_U64, _U128 = 1 << 64, 1 << 128


class _Fail(Exception):
    pass


class _Tagged:
    """A node with a custom tag (`!foo x`): serde_yaml keeps it, the engine rejects it."""


def _error(message: str):
    return BamlRaise(make_builtin("baml.yaml.ParseError", message=message))


def _mark(m) -> str:
    return f"line {m.line + 1} column {m.column + 1}"


def _libyaml_message(e: yaml.MarkedYAMLError) -> str:
    """unsafe-libyaml's Display: problem, its place, then the context and its place if apart."""
    out = e.problem or ""
    pm, cm = e.problem_mark, e.context_mark
    if pm is not None and (pm.line or pm.column):
        out += f" at {_mark(pm)}"
    if e.context:
        out += f", {e.context}"
        if cm is not None and (cm.line or cm.column) and (pm is None or (cm.line, cm.column) != (pm.line, pm.column)):
            out += f" at {_mark(cm)}"
    return out


# ── scalars (serde_yaml's de.rs) ──

def _radix_int(text: str, radix: int) -> int | None:
    """Rust's from_str_radix: an optional sign, then digits of the radix (no `_`)."""
    body = text[1:] if text[:1] in "+-" else text
    if not body or any(c not in _DIGITS[radix] for c in body):
        return None
    return int(text, radix)


def _leading_zero(s: str) -> bool:
    s = s[1:] if s[:1] in "+-" else s
    return len(s) > 1 and s[0] == "0" and s[1:].isascii() and s[1:].isdigit()


def _unsigned(s: str) -> int | None:
    body = s[1:] if s.startswith("+") else s
    if s.startswith("+") and body[:1] in ("+", "-"):
        return None
    for prefix, radix in _RADIX.items():
        if body.startswith(prefix):
            rest = body[2:]
            if rest[:1] not in ("+", "-"):
                n = _radix_int(rest, radix)
                if n is not None:
                    return n
    if body[:1] in ("+", "-") or _leading_zero(s):
        return None
    return _radix_int(body, 10)


def _negative(s: str) -> int | None:
    for prefix, radix in _RADIX.items():
        if s.startswith("-" + prefix):
            n = _radix_int("-" + s[3:], radix)
            if n is not None:
                return n
    if _leading_zero(s) or not s.startswith("-"):
        return None
    return _radix_int(s, 10)


def _int(s: str) -> int | None:
    """serde_yaml's visit_int: an integer within 128 bits (u128 or i128), else None."""
    n = _unsigned(s)
    if n is not None and n < _U128:
        return n
    n = _negative(s)
    return n if n is not None and n >= -(_U128 >> 1) else None


def _float(s: str) -> float | None:
    """serde_yaml's parse_f64: `.inf`/`.nan` spellings, else Rust's f64 grammar, finite only."""
    body = s[1:] if s.startswith("+") else s
    if s.startswith("+") and body[:1] in ("+", "-"):
        return None
    if body in (".inf", ".Inf", ".INF"):
        return float("inf")
    if s in ("-.inf", "-.Inf", "-.INF"):
        return float("-inf")
    if s in (".nan", ".NaN", ".NAN"):
        return float("nan")
    if not _FLOAT.match(body):
        return None
    x = float(body)
    return x if x - x == 0 else None


def _null(s: str) -> bool:
    return s in ("~", "null", "Null", "NULL")


_NUMBER_START = frozenset("0123456789.")
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}


def _plain(s: str):
    if not s or _null(s):
        return None
    if s in _BOOLS:
        return _BOOLS[s]
    if (s[1:2] if s[0] in "+-" else s[:1]) not in _NUMBER_START:  # words: no number parses
        return s
    n = _int(s)
    if n is not None:
        return n
    if not _leading_zero(s):
        x = _float(s)
        if x is not None:
            return x
    return s


def _tagged_scalar(tag: str, s: str):
    """A scalar's value under its tag, or the reason it fails it (serde_yaml's visit_scalar)."""
    if tag == _CORE + "bool":
        if s in _BOOLS:
            return _BOOLS[s]
        raise _Fail(f'invalid value: string {quote(s)}, expected a boolean')
    if tag == _CORE + "int":
        n = _int(s)
        if n is None:
            raise _Fail(f'invalid value: string {quote(s)}, expected an integer')
        return n
    if tag == _CORE + "float":
        x = _float(s)
        if x is None:
            raise _Fail(f'invalid value: string {quote(s)}, expected a float')
        return x
    if tag == _CORE + "null":
        if _null(s):
            return None
        raise _Fail(f'invalid value: string {quote(s)}, expected null')
    if tag.startswith("!"):
        return _Tagged()
    return s


# ── events → serde_yaml's value ──

class _Map(list):
    """A mapping's (key, value) pairs in order."""


class _Builder:
    """One document's events to serde_yaml's value, its errors with the node's path and place."""

    def __init__(self, events: list, error: str | None):
        self.ev, self.i, self.anchors, self.error, self.jumps = events, 0, {}, error, 0

    def peek(self):
        if self.i >= len(self.ev):  # the loader stopped at a syntax error
            raise _Fail(self.error)
        return self.ev[self.i]

    def fail(self, message: str, path: str, mark):
        where = f" at {_mark(mark)}" if mark.line or mark.column else ""
        raise _Fail(("" if path == "." else f"{path}: ") + message + where)

    def node(self, path: str, depth: int):
        e = self.peek()
        self.i += 1
        if isinstance(e, yaml.AliasEvent):  # replay the anchored node's events
            self.jumps += 1
            if self.jumps > len(self.ev) * 100:  # serde_yaml's guard against alias bombs
                raise _Fail("repetition limit exceeded")
            saved, self.i = self.i, self.anchors[e.anchor]
            v = self.node(path, depth)
            self.i = saved
            return v
        if e.anchor:
            self.anchors[e.anchor] = self.i - 1
        if isinstance(e, yaml.ScalarEvent):
            return self.scalar(e, path)
        if depth == 0:
            raise _Fail(f"recursion limit exceeded at {_mark(e.start_mark)}")
        tagged = e.tag is not None and e.tag.startswith("!")
        if isinstance(e, yaml.SequenceStartEvent):
            out = []
            while not isinstance(self.peek(), yaml.SequenceEndEvent):
                out.append(self.node(f"{path}[{len(out)}]", depth - 1))
            self.i += 1
            return _Tagged() if tagged else out
        pairs, seen = _Map(), set()
        while not isinstance(self.peek(), yaml.MappingEndEvent):
            ke = self.ev[self.i]
            k = self.node("?" if path == "." else f"{path}.?", depth - 1)
            ident = _identity(k)
            if ident in seen:
                self.fail(f"duplicate entry {_dup_words(k)}", path, e.start_mark)
            seen.add(ident)
            name = ke.value if isinstance(ke, yaml.ScalarEvent) else "?"
            pairs.append((k, self.node(name if path == "." else f"{path}.{name}", depth - 1)))
        self.i += 1
        return _Tagged() if tagged else pairs

    def scalar(self, e, path: str):
        try:
            if e.tag is None:
                v = e.value if e.style else _plain(e.value)  # plain: "" (libyaml) or None
            else:
                v = _tagged_scalar(e.tag, e.value)
            if type(v) is int and not -(1 << 63) <= v < _U64:
                raise _Fail(f"invalid type: integer `{v}` as {'u128' if v > 0 else 'i128'}, expected any YAML value")
            return v
        except _Fail as f:
            self.fail(str(f), path, e.start_mark)


def _identity(v):
    """A hashable stand-in with serde_yaml Value's equality (1 and 1.0 differ)."""
    if isinstance(v, _Map):
        return ("map", tuple((_identity(k), _identity(x)) for k, x in v))
    if isinstance(v, list):
        return ("seq", tuple(_identity(x) for x in v))
    if isinstance(v, _Tagged):
        return ("tagged", id(v))
    return (type(v).__name__, v)


def _dup_words(k) -> str:
    """serde_yaml's DuplicateKeyError."""
    if k is None:
        return "with null key"
    if isinstance(k, bool):
        return f"with key `{'true' if k else 'false'}`"
    if isinstance(k, int):
        return f"with key {k}"
    if isinstance(k, float):
        return f"with key {rust_float(k)}"
    if isinstance(k, str):
        return f"with key {quote(k)}"
    return "in YAML map"


# ── serde_yaml's value → baml.json.json (the engine's checks: no place, no path) ──

def _to_json(v):
    if isinstance(v, _Tagged):
        raise _Fail("YAML tags are not supported by baml.yaml.parse")
    if isinstance(v, _Map):
        out = {}
        for k, x in v:
            if not isinstance(k, str):
                raise _Fail("YAML mappings must use string keys to fit baml.json.json")
            out[k] = _to_json(x)
        return out
    if isinstance(v, list):
        return [_to_json(x) for x in v]
    if type(v) is int and not INT_MIN <= v <= INT_MAX:
        raise _Fail("YAML integer is outside BAML int range")
    if type(v) is float and v - v != 0:
        raise _Fail("YAML non-finite floats are not supported by baml.yaml.parse")
    return v


def _first_document(s: str):
    """The first document's events as serde_yaml's loader keeps them: up to a syntax error or an
    alias to an unknown anchor (whose message is kept: building meets it when it runs out of
    events), and whether another document follows (even a malformed one)."""
    events, anchors, started, error = [], set(), False, None
    try:
        for e in yaml.parse(s, Loader=_LOADER):
            if isinstance(e, yaml.DocumentStartEvent):
                if started:
                    return events, None, True
                started = True
            elif not isinstance(e, (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentEndEvent)):
                if isinstance(e, yaml.AliasEvent) and e.anchor not in anchors:
                    return events, f"unknown anchor at {_mark(e.start_mark)}", False
                if getattr(e, "anchor", None):
                    anchors.add(e.anchor)
                events.append(e)
    except yaml.MarkedYAMLError as e:
        error = _libyaml_message(e)
    except yaml.reader.ReaderError as e:
        error = e.reason + (f" at position {e.position}" if e.position else "")
    except yaml.YAMLError as e:
        error = str(e)
    return (events if started or error else None), error, False


@function("baml.yaml.parse")
def parse(s):
    try:
        events, error, more = _first_document(s)
        if events is None:
            return None
        value = _Builder(events, error).node(".", _DEPTH) if events else None
        if error:
            raise _Fail(error)
        if more:
            raise _Fail("YAML stream contains multiple documents; baml.yaml.parse accepts exactly one document")
        return json_value(_to_json(value))  # its containers `json[]` / `map<string, json>`
    except _Fail as e:
        raise _error(str(e)) from None


@function("baml.yaml.decode")
def decode(T, s):
    return _to(T, parse(s), None)
