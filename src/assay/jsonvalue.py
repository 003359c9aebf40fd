"""BAML values as strict JSON: the one encoding of the CLI (`--json`, `--args`), explore and
MCP.

JSON has no NaN or infinities. A non-finite float is the object `{"$float": "NaN"}`
(`"Infinity"`, `"-Infinity"`), wherever it is (nested in arrays, maps, classes, a panic's
fields). JSON has no byte strings either: a uint8array (Python `bytes`, as the engine's Python
API takes and returns it) is `{"$bytes": "<base64>"}`. An enum value is its variant's name
(`"Red"`), or, where a string would fit as well (`Color | string`), `{"$enum": "Color.Red"}`
(read as an `EnumValue`: a str that names its enum, which no string parameter accepts). A map
whose only key is `"$float"`, `"$bytes"`, `"$enum"` or `"$map"` is written
`{"$map": [[key, value]]}` so that it never reads back as one of them. Everything else is plain JSON. `loads` is the inverse:
it rejects the non-standard `NaN`/`Infinity` tokens with a message naming the encoding, and a
document nested too deeply with a clear error instead of a RecursionError. No Assay imports."""
from __future__ import annotations

import base64
import binascii
import json
import math

FLOAT_TAG = "$float"
BYTES_TAG = "$bytes"
ENUM_TAG = "$enum"
MAP_TAG = "$map"
_TAGS = (FLOAT_TAG, BYTES_TAG, ENUM_TAG, MAP_TAG)


class EnumValue(str):
    """A variant name that says its enum (`EnumValue("Red", "Color")`): as an argument it is
    that enum's member, never a string (Assay's binding takes a str subclass for no string
    parameter); JSON `{"$enum": "Color.Red"}`."""

    enum: str

    def __new__(cls, variant: str, enum: str):
        self = super().__new__(cls, variant)
        self.enum = enum
        return self

    def __repr__(self) -> str:
        return f"EnumValue({str(self)!r}, {self.enum!r})"

    def __reduce__(self):  # keeps its enum through pickling (explore's worker processes)
        return EnumValue, (str(self), self.enum)
_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class JsonValueError(ValueError):
    """Text that is not strict JSON in this encoding (`lineno`/`colno`: 1-based, 0 if unknown)."""

    def __init__(self, message: str, lineno: int = 0, colno: int = 0):
        super().__init__(message)
        self.msg, self.lineno, self.colno = message, lineno, colno


def float_name(x: float) -> str:
    return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


def encode(v):
    """JSON-ready data (dicts, lists, str, int, float, bool, None) → the same with non-finite
    floats and ambiguous maps tagged. Iterative: depth costs no recursion."""
    root = [v]
    todo = [(root, 0)]
    while todo:
        holder, key = todo.pop()
        x = holder[key]
        if type(x) is float:
            if not math.isfinite(x):
                holder[key] = {FLOAT_TAG: float_name(x)}
        elif isinstance(x, (bytes, bytearray)):
            holder[key] = {BYTES_TAG: base64.b64encode(bytes(x)).decode("ascii")}
        elif type(x) is EnumValue:
            holder[key] = {ENUM_TAG: f"{x.enum}.{x}"}
        elif isinstance(x, dict):
            out = dict(x)
            if len(out) == 1 and next(iter(out)) in _TAGS:
                (k, val), = out.items()
                pair = [k, val]
                holder[key] = {MAP_TAG: [pair]}
                todo.append((pair, 1))
            else:
                holder[key] = out
                todo.extend((out, k) for k in out)
        elif isinstance(x, (list, tuple)):
            out = list(x)
            holder[key] = out
            todo.extend((out, i) for i in range(len(out)))
    return root[0]


def _hook(d: dict):
    if len(d) == 1:
        (k, v), = d.items()
        if k == FLOAT_TAG and isinstance(v, str) and v in _SPECIAL:
            return _SPECIAL[v]
        if k == ENUM_TAG and isinstance(v, str) and "." in v:
            enum, _, variant = v.rpartition(".")
            return EnumValue(variant, enum)
        if k == BYTES_TAG and isinstance(v, str):
            try:
                return base64.b64decode(v, validate=True)
            except (binascii.Error, ValueError):
                raise JsonValueError(f'{{"{BYTES_TAG}": …}} holds base64 text; got {v[:40]!r}') from None
        if k == MAP_TAG and isinstance(v, list) and all(
                isinstance(p, list) and len(p) == 2 and isinstance(p[0], str) for p in v):
            return {p[0]: p[1] for p in v}
    return d


def _no_constant(name: str):
    raise JsonValueError(f"{name} is not JSON; write a non-finite float as "
                         f'{{"{FLOAT_TAG}": "{"NaN" if name == "NaN" else name}"}}')


def loads(text: str):
    """Strict JSON → Python data, tags decoded (JsonValueError for anything else)."""
    try:
        return json.loads(text, object_hook=_hook, parse_constant=_no_constant)
    except JsonValueError:
        raise
    except json.JSONDecodeError as e:
        raise JsonValueError(f"invalid JSON: {e.msg}", e.lineno, e.colno) from None
    except RecursionError:
        raise JsonValueError("JSON nested too deeply") from None


def dumps(doc, *, indent: int | None = 2) -> str:
    """Python data → strict JSON text (non-finite floats tagged; never NaN tokens)."""
    return json.dumps(encode(doc), indent=indent, ensure_ascii=False, allow_nan=False)


def display(v, limit: int = 80) -> str:
    """A value as BAML writes it in a message: `true`, `null`, `"a"`, `[1, 2.5]`, `NaN`
    (never Python's `True`, `None`, `'a'`); shortened to about `limit` characters."""
    def plain(x):
        if type(x) is float and not math.isfinite(x):
            return _Raw(float_name(x))
        if isinstance(x, (list, tuple)):
            return [plain(y) for y in x]
        if isinstance(x, dict):
            return {str(k) if not isinstance(k, str) else k: plain(y) for k, y in x.items()}
        if x is None or isinstance(x, (bool, int, float, str)):
            return x
        name = getattr(x, "__qualname__", None) if callable(x) else None
        return _Raw(f"<function {name}>" if name else f"<{type(x).__name__}>")

    try:
        text = json.dumps(plain(v), ensure_ascii=False).replace('"\\u0000RAW:', "").replace('\\u0000"', "")
    except (RecursionError, ValueError):
        text = f"<{type(v).__name__}>"
    return text if len(text) <= limit else text[:limit - 1] + "…"


class _Raw(str):
    """Text shown as is (no quotes) by `display`."""

    def __new__(cls, text: str):
        return super().__new__(cls, f"\x00RAW:{text}\x00")
