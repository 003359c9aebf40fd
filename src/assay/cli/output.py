"""Plain-text and JSON formatting for the CLI: values, errors, diagnostics."""
from __future__ import annotations

import os

import click

from .. import jsonvalue
from ..bex import ops
from ..bex.stdlib import render
from ..bex.values import Instance, Variant


def jsonable(v):
    """A BAML value (raw or plain) as JSON-ready data: classes → objects, enums → variant
    names, maps → objects (keys as strings), NaN/±inf kept (`dumps` writes them as
    {"$float": "NaN"}: assay.jsonvalue), anything else (functions) as a descriptive string."""
    if isinstance(v, Instance):
        return {f: jsonable(getattr(v, "f_" + f)) for f in v._class.fields}
    if isinstance(v, Variant):
        return v.name
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v
    if isinstance(v, (bytes, bytearray)):  # a uint8array: `dumps` writes {"$bytes": base64}
        return bytes(v)
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, dict):
        return {_key(k): jsonable(x) for k, x in v.items()}
    return _describe(v)


def _key(k) -> str:
    """A map key as a JSON object key: a string as itself, an enum variant as its name, any
    other key as BAML renders it (`1`, `true`, `1.0`, `[1, 2]`, `P { x: 1 }`)."""
    k = ops.unkey(k)
    if isinstance(k, str):
        return k
    if isinstance(k, Variant):
        return k.name
    return render(k)


def _describe(v) -> str:
    """A value JSON has no form for (functions, iterators, futures): as BAML renders it."""
    return render(v)


def dumps(doc) -> str:
    """Strict JSON (assay.jsonvalue's encoding of non-finite floats)."""
    return jsonvalue.dumps(doc)


def emit_json(doc) -> None:
    click.echo(dumps(doc))


def error_doc(error: dict) -> dict:
    """The one error shape {"type", "message", "fields"} (plus "diagnostics" for compile
    errors), JSON-safe; internal keys ("panic", "value") dropped."""
    out = {"type": error["type"], "message": str(error.get("message", "")),
           "fields": {k: jsonable(v) for k, v in (error.get("fields") or {}).items()}}
    if "diagnostics" in error:
        out["diagnostics"] = error["diagnostics"]
    return out


def error_text(error: dict, where: str | None = None) -> str:
    """A readable report of an uncaught BAML error: `error: TYPE: message`, then its fields."""
    lines = [f"error: {error['type']}: {error.get('message', '')}"]
    if where:
        lines.append(f"  {where}")
    for name, value in (error.get("fields") or {}).items():
        if name == "message":
            continue
        lines.append(f"  {name} = {jsonvalue.dumps(jsonable(value), indent=None)}")
    return "\n".join(lines)


def styled(word: str, color: str) -> str:
    """PASS/FAIL coloured when stdout is a terminal (click.echo strips styles otherwise) and
    NO_COLOR (no-color.org) is not set."""
    if os.environ.get("NO_COLOR"):
        return word
    return click.style(word, fg=color, bold=True)
