"""JSON Schema for BAML types (docs/ingot.md has the table), and the validator that the
generated CLI and the MCP server both run on arguments before a call.

The mapping, by type: int → integer within 63-bit bounds; bigint → integer (unbounded);
float → number, or a non-finite float in assay.jsonvalue's encoding ({"$float": "NaN"});
string → string; bool → boolean; null / void → null; a literal → const;
a union of literals → enum; T | null → anyOf [T, null]; other unions → anyOf; T[] → array;
map<K, V> → object with additionalProperties V (enum / literal keys as propertyNames);
a class → {"$ref": "#/$defs/NAME"} with the object schema (properties, required: the fields
that are not nullable, additionalProperties false) in $defs (recursive classes work); an enum →
string enum; typevars and unknown → {} (anything). Function types have no schema (Unsupported)."""
from __future__ import annotations

import json
import math

from .. import jsonvalue

INT_MIN = -(1 << 62)
INT_MAX = (1 << 62) - 1


def float_schema() -> dict:
    """A float: a JSON number, or a non-finite float in the project's encoding
    (assay.jsonvalue: {"$float": "NaN" | "Infinity" | "-Infinity"})."""
    return {"anyOf": [{"type": "number"}, {
        "type": "object", "properties": {jsonvalue.FLOAT_TAG: {"enum": ["NaN", "Infinity", "-Infinity"]}},
        "required": [jsonvalue.FLOAT_TAG], "additionalProperties": False}]}


def _nonfinite(value, schema: dict):
    """The float that `value` encodes when `schema` is float_schema()'s tagged form, else None."""
    if (isinstance(value, dict) and len(value) == 1 and schema.get("required") == [jsonvalue.FLOAT_TAG]
            and isinstance(value.get(jsonvalue.FLOAT_TAG), str)):
        return _SPECIAL.get(value[jsonvalue.FLOAT_TAG])
    return None


_SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


class Unsupported(Exception):
    """A type with no JSON form (functions, bytes)."""


def def_name(qualified: str) -> str:
    return qualified.removeprefix("user.")


class SchemaBuilder:
    """Schemas of one program's types; `defs` collects the classes they reference."""

    def __init__(self):
        self.defs: dict[str, dict] = {}

    def of(self, t) -> dict:
        if t is None:
            return {}
        k = t.kind
        if k == "int":
            return {"type": "integer", "minimum": INT_MIN, "maximum": INT_MAX}
        if k == "bigint":
            return {"type": "integer"}
        if k == "float":
            return float_schema()
        if k == "string":
            return {"type": "string"}
        if k == "bool":
            return {"type": "boolean"}
        if k in ("null", "void"):
            return {"type": "null"}
        if k == "never":
            return {"not": {}}
        if k in ("unknown", "typevar", "interface", "json"):  # json: any JSON value
            return {}
        if k == "literal":
            v = t.literal
            jt = {bool: "boolean", int: "integer", float: "number", str: "string"}.get(type(v))
            return {"type": jt, "const": v} if jt else {"const": v}
        if k == "array":
            return {"type": "array", "items": self.of(t.element)}
        if k == "map":
            out = {"type": "object", "additionalProperties": self.of(t.value)}
            keys = self.of(t.key)
            if "enum" in keys or "const" in keys:
                out["propertyNames"] = keys
            return out
        if k == "union":
            members = t.members
            if members and all(m.kind == "literal" for m in members):
                return {"enum": [m.literal for m in members]}
            nonnull = [m for m in members if m.kind != "null"]
            schemas = [self.of(m) for m in nonnull]
            if len(nonnull) < len(members):
                schemas.append({"type": "null"})
            return {"anyOf": schemas}
        if k == "enum":
            if t.literal is not None:  # one variant's type
                return {"type": "string", "const": t.literal}
            out = {"type": "string", "enum": [v.name for v in t.variants]}
            desc = type_description(t)
            if desc:
                out["description"] = desc
            return out
        if k == "class":
            name = def_name(t.qualified_name or t.name)
            if name not in self.defs and t.fields:
                self.defs[name] = {}  # placeholder: recursion stops here
                props, required = {}, []
                for f in t.fields:
                    s = dict(self.of(f.type))
                    desc = help_of(f.meta) or f.description
                    if desc:
                        s["description"] = desc
                    props[f.name] = s
                    if not nullable(f.type):
                        required.append(f.name)
                d = {"type": "object", "title": t.name.rsplit(".", 1)[-1], "properties": props,
                     "required": required, "additionalProperties": False}
                desc = type_description(t)
                if desc:
                    d["description"] = desc
                self.defs[name] = d
            elif not t.fields and name not in self.defs:
                return {"type": "object"}  # a stdlib class: any object
            return {"$ref": f"#/$defs/{name}"}
        raise Unsupported(f"type `{t.name}` has no JSON form")


def help_of(meta: dict) -> str | None:
    ingot = meta.get("ingot") if isinstance(meta, dict) else None
    if isinstance(ingot, dict) and isinstance(ingot.get("help"), str):
        return ingot["help"]
    return None


def type_description(t) -> str | None:
    return help_of(t.meta) or getattr(t, "description", None)


def nullable(t) -> bool:
    if t is None:
        return True
    if t.kind in ("null", "void", "unknown", "typevar", "json"):
        return True
    return t.kind == "union" and any(nullable(m) for m in t.members)


def contains_function(t, seen=None) -> bool:
    """Does a value of type `t` hold functions (a host callable could come in through it)?"""
    if t is None:
        return False
    seen = set() if seen is None else seen
    k = t.kind
    if k == "function":
        return True
    if k == "array":
        return contains_function(t.element, seen)
    if k == "map":
        return contains_function(t.value, seen)
    if k == "union":
        return any(contains_function(m, seen) for m in t.members)
    if k == "class":
        q = t.qualified_name
        if q in seen:
            return False
        seen.add(q)
        return any(contains_function(f.type, seen) for f in t.fields)
    return False


# ── validation (the subset of JSON Schema the builder makes) ──


class Invalid(ValueError):
    def __init__(self, where: str, message: str):
        super().__init__(f"argument `{where}`: {message}")
        self.where = where


_JSON_TYPE = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null",
              list: "array", dict: "object"}


def _show(v) -> str:
    try:
        text = json.dumps(v)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def validate(value, schema: dict, defs: dict, where: str):
    """`value` (JSON data) checked against `schema`; returns it with integral floats given to
    integer schemas as ints and ints given to number schemas as floats. Raises Invalid."""
    if "$ref" in schema:
        return validate(value, defs[schema["$ref"].rsplit("/", 1)[-1]], defs, where)
    if "anyOf" in schema:
        errors = []
        for s in schema["anyOf"]:
            try:
                return validate(value, s, defs, where)
            except Invalid as e:
                errors.append(e)
        deepest = max(errors, key=lambda e: len(e.where)) if errors else None
        if deepest is not None and deepest.where != where:
            raise deepest
        raise Invalid(where, f"{_show(value)} fits none of the allowed types")
    if "not" in schema:
        raise Invalid(where, "no value is allowed here")
    f = _nonfinite(value, schema)
    if f is not None:
        return f
    if "const" in schema and (value != schema["const"] or type(value) is not type(schema["const"])):
        raise Invalid(where, f"expected {_show(schema['const'])}, got {_show(value)}")
    if "enum" in schema and not any(value == e and type(value) is type(e) for e in schema["enum"]):
        raise Invalid(where, f"expected one of {', '.join(_show(e) for e in schema['enum'])}; got {_show(value)}")
    ty = schema.get("type")
    if ty is None:
        return value
    got = _JSON_TYPE.get(type(value))
    if ty == "integer" and got == "number" and value == value and value not in (float("inf"), float("-inf")) \
            and float(value).is_integer():
        value, got = int(value), "integer"
    if ty == "number" and got == "integer":
        value, got = float(value), "number"
    if got != ty:
        raise Invalid(where, f"expected {_A.get(ty, ty)}, got {_show(value)}")
    if ty == "integer":
        lo, hi = schema.get("minimum"), schema.get("maximum")
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise Invalid(where, f"{value} does not fit in a 63-bit int")
    elif ty == "array":
        return [validate(x, schema.get("items", {}), defs, f"{where}[{i}]") for i, x in enumerate(value)]
    elif ty == "object":
        props = schema.get("properties")
        out = {}
        if props is not None:
            for name in schema.get("required", []):
                if name not in value:
                    raise Invalid(f"{where}.{name}", "missing (required)")
            for k, v in value.items():
                if k in props:
                    out[k] = validate(v, props[k], defs, f"{where}.{k}")
                elif schema.get("additionalProperties", True) is False:
                    raise Invalid(f"{where}.{k}", "unknown field")
                else:
                    out[k] = v
            return out
        names = schema.get("propertyNames")
        extra = schema.get("additionalProperties", {})
        for k, v in value.items():
            if names is not None:
                validate(k, names, defs, f"{where} key")
            out[k] = validate(v, extra if isinstance(extra, dict) else {}, defs, f"{where}.{k}")
        return out
    return value


_A = {"integer": "an integer", "number": "a number", "string": "a string", "boolean": "a bool",
      "null": "null", "array": "an array", "object": "an object"}
