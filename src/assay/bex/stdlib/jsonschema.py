"""`baml.json.schema(t, naming)`: the JSON Schema of a `reflect.Type`, as the engine writes it.

The root type is inline; every class beneath it is a `$ref` into `$defs` (keyed by its rendered
name, each added once its own schema is complete), and a class that reaches itself is also a
definition. Enums are inline (`enum` of their JSON names; the documentation of the enum and
one `- name: text` line per documented variant in `description`). `T | null` of a schema with
one `type` becomes `"type": [t, "null"]`; other unions are `anyOf`, members with no JSON form
left out. What no schema describes is `baml.errors.Unsupported`."""
from __future__ import annotations

from ...sema import reflect as R
from ..ops import throw_error
from ..values import RType
from ._registry import function
from .jsontyped import ALIASED, DECLARED

_INT = {"type": "integer", "minimum": -(1 << 62), "maximum": (1 << 62) - 1}
_PRIMS = {"float": {"type": "number"}, "string": {"type": "string"}, "bool": {"type": "boolean"},
          "null": {"type": "null"}, "bigint": {"type": "string", "pattern": "^-?(0|[1-9][0-9]*)$"}}
_LIT_TYPES = {bool: "boolean", int: "integer", str: "string"}
_MEDIA = ("image", "audio", "pdf", "video")


class _Unsupported(Exception):
    pass


def _no_form(d: tuple) -> bool:
    """A type none of whose values has a JSON form (a union keeps its other members)."""
    return d == ("prim", "uint8array") or d[0] == "fn"


def _admits_null(d: tuple) -> bool:
    return d == R.NULL or d == ("json",) or (d[0] == "union" and any(_admits_null(m) for m in d[1]))


def _text(parts, sep: str) -> str:
    return sep.join(p for p in parts if p)


class _Schema:
    def __init__(self, refl, root: tuple, aliased: bool):
        self.refl, self.root, self.aliased = refl, root, aliased
        self.defs: dict = {}
        self.def_names: dict = {}  # class fqn → its key in `$defs`
        self.busy: set = set()
        self.root_used = False

    def show(self, d: tuple) -> str:
        return R.render(d, self.refl.names)

    def def_name(self, d: tuple) -> str:
        """A class's key in `$defs`: its shown name, `_2`, `_3`… after it for another class
        shown alike (run-time classes of one name)."""
        name = self.def_names.get(d[1])
        if name is None:
            base = name = self.show(d)
            taken = set(self.def_names.values())
            i = 2
            while name in taken:
                name, i = f"{base}_{i}", i + 1
            self.def_names[d[1]] = name
        return name

    def node(self, d: tuple) -> dict:
        k = d[0]
        if k == "prim":
            return self.prim(d)
        if k == "lit":
            return {"type": _LIT_TYPES[type(d[1])], "const": d[1]}
        if k == "blit":
            return {"type": "string", "const": str(d[1])}
        if k == "variant":
            return {"type": "string", "const": self.variant_names(("enum", d[1]), d[2])[0]}
        if k == "array":
            if d[1] == R.NEVER:
                return {"type": "array", "maxItems": 0}
            return {"type": "array", "items": self.node(d[1])}
        if k == "map":
            return self.map(d)
        if k == "enum":
            return self.enum(d)
        if k == "class":
            return self.ref(d)
        if k == "union":
            return self.union(d)
        if k == "json":
            return self.json()
        if k == "fn":
            raise _Unsupported(f"no value of `{self.show(d)}` has a JSON form: `{self.show(d)}` has no JSON form")
        if k in ("iface", "stdiface"):
            raise _Unsupported(f"interface type `{self.show(d)}` admits values of types not known here, which no "
                               "schema describes")
        raise _Unsupported(f"`{self.show(d)}` has no JSON Schema")

    def prim(self, d: tuple) -> dict:
        name = d[1]
        if name == "int":
            return dict(_INT)
        if name in _PRIMS:
            return dict(_PRIMS[name])
        if name in _MEDIA:  # the tagged form media take in JSON
            return {"type": "object", "properties": {
                "kind": {"type": "string", "const": name}, "source": {"type": "string", "enum": ["url", "base64"]},
                "value": {"type": "string"}, "mime": {"type": ["string", "null"]}, "name": {"type": "string"}},
                "required": ["kind", "source", "value", "mime"]}
        if name == "unknown":
            raise _Unsupported("`unknown` admits every value, which no schema describes")
        if name == "never":
            raise _Unsupported("`never` has no values")
        raise _Unsupported(f"no value of `{name}` has a JSON form: `{name}` has no JSON form")

    def map(self, d: tuple) -> dict:
        key = d[1]
        keys = key[1] if key[0] == "union" else (key,)
        if not all(m == ("prim", "string") or (m[0] == "lit" and type(m[1]) is str) for m in keys):
            raise _Unsupported(f"map key type `{self.show(key)}` has no JSON object key form; a key type "
                               "must be `string` or string literals")
        out = {"type": "object", "additionalProperties": self.node(d[2])}
        if ("prim", "string") not in keys:
            out["propertyNames"] = {"enum": [m[1] for m in keys]}
        return out

    def union(self, d: tuple) -> dict:
        members = [m for m in d[1] if not _no_form(m) and m != R.NULL]  # null goes last
        members += [R.NULL] if R.NULL in d[1] else []
        if not members:
            raise _Unsupported(f"no value of `{self.show(d)}` has a JSON form")
        nodes = [self.node(m) for m in members]
        if len(nodes) == 1:
            return nodes[0]
        if len(nodes) == 2 and members[1] == R.NULL:
            other = nodes[0]
            if type(other.get("type")) is str and "const" not in other:  # `int?`: one node
                out = {"type": [other["type"], "null"], **{a: b for a, b in other.items() if a != "type"}}
                if "enum" in out:
                    out["enum"] = out["enum"] + [None]
                return out
        return {"anyOf": nodes}

    def json(self) -> dict:
        """`baml.json.json`: a definition of its own (it contains itself)."""
        name = "baml.json.json"
        if name not in self.defs:
            ref = {"$ref": f"#/$defs/{name}"}
            self.defs[name] = {"anyOf": [{"type": "boolean"}, dict(_INT), dict(_PRIMS["bigint"]), {"type": "number"},
                                         {"type": "string"}, {"type": "array", "items": ref},
                                         {"type": "object", "additionalProperties": ref}, {"type": "null"}]}
        return {"$ref": f"#/$defs/{name}"}

    # ── enums ──

    def variant_names(self, d: tuple, only: str | None = None) -> list:
        """The JSON names of an enum's variants under the naming (a `@skip` one has none)."""
        out = []
        for name, m in self.refl.enum_variants(d):
            if only is not None and name != only:
                continue
            if self.aliased and m["skip"]:
                continue
            out.append(m["alias"] if self.aliased and m["alias"] else name)
        return out or [only]

    def enum(self, d: tuple) -> dict:
        out = {"type": "string", "enum": self.variant_names(d)}
        lines = []
        for name, m in self.refl.enum_variants(d):
            text = _text((m["description"], m["docstring"]), " ")
            if text and not (self.aliased and m["skip"]):
                lines.append(f"- {m['alias'] if self.aliased and m['alias'] else name}: {text}")
        own = self.refl.decl_meta(d)
        text = _text((_text((own["description"], own["docstring"]), "\n"), "\n".join(lines)), "\n\n")
        if text:
            out["description"] = text
        return out

    # ── classes ──

    def ref(self, d: tuple) -> dict:
        if d[2]:
            raise _Unsupported(f"generic class instance `{self.show(d)}` is not supported yet")
        name = self.def_name(d)
        if d == self.root:
            self.root_used = True
        elif name not in self.defs and d not in self.busy:
            self.busy.add(d)
            self.defs[name] = self.body(d)
            self.busy.discard(d)
        return {"$ref": f"#/$defs/{name}"}

    def body(self, d: tuple) -> dict:
        if d[2]:
            raise _Unsupported(f"generic class instance `{self.show(d)}` is not supported yet")
        props, required = {}, []
        for name, fd, m in self.refl.class_fields(d):
            if self.aliased and m["skip"]:
                if not _admits_null(fd) and _no_empty(fd):
                    raise _Unsupported(f"no value of `{self.show(d)}` has a JSON form: field `{self.show(d)}.{name}` "
                                       "is `@skip`, so JSON leaves it out, and its type has no empty value to hold")
                continue
            key = m["alias"] if self.aliased and m["alias"] else name
            node = self.node(fd)
            text = _text((m["description"], m["docstring"]), "\n")
            if text:
                node = {**node, "description": text}
            props[key] = node
            if not _admits_null(fd):
                required.append(key)
        out = {"type": "object", "properties": props, "required": required}
        own = self.refl.decl_meta(d)
        text = _text((own["description"], own["docstring"]), "\n")
        if text:
            out["description"] = text
        return out


def _no_empty(d: tuple) -> bool:
    """A `@skip` field's type with no empty value (media, a function)."""
    return d[0] == "fn" or (d[0] == "prim" and d[1] not in ("int", "float", "string", "bool", "bigint", "null"))


@function("baml.json.schema")
def schema(t, naming=DECLARED):
    desc = t.ty.desc if not isinstance(t, RType) else t.desc
    refl = t.ty.refl if not isinstance(t, RType) else t.refl
    s = _Schema(refl, desc, naming is ALIASED)
    try:
        out = s.body(desc) if desc[0] == "class" else s.node(desc)
    except _Unsupported as e:
        throw_error("baml.errors.Unsupported", message="json_schema: " + str(e))
    if s.root_used:
        s.defs[s.def_name(desc)] = out
    if s.defs:
        out = {**out, "$defs": s.defs}
    return out
