"""baml.json between typed BAML values and `json`: `decode<T>`, `to<T>` (T drives a shape check,
not a coercion), `from` and `stringify` (the value's run-time type drives), `field`, `path<T>`,
`path_or<T>`. Messages and error paths are the engine's (`.field`, `[0]`, `["key"]`).

A class's `baml.ToJson` override (`m_to_json`) replaces its structural rendering at any depth;
its result is used as it is (no naming, no `omit_nulls`). A class's `baml.FromJson` override
(`m_from_json`) builds it from the json where T names the class (not as a union member: the
engine tries members structurally); what it throws passes through unchanged."""
from __future__ import annotations

import re

from ...mir.typetest import show
from ..futures import Future
from .iters import Iter
from ..ops import BUILTIN_CLASSES, make_builtin
from ..typeargs import TypeArg
from ..values import JSON_ENTRY, JSON_TEST, BamlRaise, BigInt, ClassInfo, Instance, Variant, json_value
from ._registry import EVERY_VALUE, NAMING, function, method
from .jsonlib import _PLAIN, _quote, _write, parse

for _name, _fields in (("DecodeError", ["message", "path"]), ("PathError", ["message", "selector"])):
    BUILTIN_CLASSES[f"baml.json.{_name}"] = ClassInfo(f"baml.json.{_name}", _name, _fields)

DECLARED, ALIASED = NAMING.variants["Declared"], NAMING.variants["Aliased"]
_INT_RANGE = "expected integer in the BAML int range [-2^62, 2^62 - 1]"
_NO_FORM = {"uint8array", "function"}
_BIGINT_TEXT = re.compile(r"[+-]?[0-9]+\Z")


def _display(fqn: str) -> str:
    """A user type as the engine names it in messages (`p.User`)."""
    return fqn[5:] if fqn.startswith("user.") else fqn


def _show(t: tuple) -> str:
    if t[0] in ("class", "enum"):
        return _display(show(t))
    if t[0] == "array":
        return _show(t[1]) + "[]"
    return show(t)


class _Misfit(Exception):
    def __init__(self, message: str, path: str):
        self.message, self.path = message, path


class _Decoder:
    """`to<T>`: walks a json value along T's test, building T's values."""

    def __init__(self, ta: TypeArg, aliased: bool):
        self.ta, self.aliased = ta, aliased

    def key(self, name: str, alias, skip) -> str | None:
        """The JSON name of a field or variant under the naming (None: it has none)."""
        if not self.aliased:
            return name
        return None if skip else (alias or name)

    def walk(self, t: tuple, v, path: str):
        k = t[0]
        tv = _PLAIN.get(type(v), type(v))
        if k == "any":
            return v
        if k == "json":
            return json_value(v)
        if k == "int":
            if tv is int:
                return v
            raise _Misfit(_INT_RANGE if tv in (float, BigInt) else "expected integer", path)
        if k == "float":
            if tv in (int, float, BigInt):
                return float(v)
            raise _Misfit("expected number", path)
        if k == "bigint":
            if tv in (int, BigInt):
                return BigInt(v)
            if tv is str and _BIGINT_TEXT.match(v):
                return BigInt(int(v))
            raise _Misfit("expected integral JSON number or numeric string", path)
        if k in ("string", "bool", "null"):
            if tv is {"string": str, "bool": bool, "null": type(None)}[k]:
                return v
            raise _Misfit("expected " + {"string": "string", "bool": "boolean", "null": "null"}[k], path)
        if k == "lit":
            lit = t[1]
            if tv is type(lit) and v == lit:
                return v
            raise _Misfit("literal int mismatch" if type(lit) is int else "literal mismatch", path)
        if k == "array":
            if not isinstance(v, list):
                raise _Misfit("expected JSON array", path)
            items = [self.walk(t[1], x, f"{path}[{i}]") for i, x in enumerate(v)]
            return json_value(items) if t[1] == JSON_TEST else items  # `json[]` records it
        if k == "map":
            return self.map(t, v, path)
        if k == "class":
            own = getattr(self.ta.classes[t[1]].py, "m_from_json", None)
            return own(v) if own is not None else self.instance(t, v, path)
        if k in ("enum", "variant"):
            own = ENUM_FROM_JSON.get(self.ta.enums[t[1]]) if k == "enum" else None
            return own(v) if own is not None else self.variant(t, v, path)
        if k == "union":
            return self.union(t[1], v, path)
        if k == "uint8array":
            raise _Misfit("uint8array requires explicit encoding (use from_base64() or from_hex())", path)
        raise _Misfit(f"`{_show(t)}` has no JSON form", path)

    def map(self, t: tuple, v, path: str) -> dict:
        if not isinstance(v, dict):
            raise _Misfit("expected JSON object", path)
        kt = t[1]
        keys = kt[1] if kt[0] == "union" else (kt,)
        if not all(m[0] == "string" or (m[0] == "lit" and type(m[1]) is str) for m in keys):
            raise _Misfit("JSON requires maps with string keys", path)
        if kt[0] != "string":
            allowed = {m[1] for m in keys if m[0] == "lit"}
            if ("string",) not in keys and any(a not in allowed for a in v):
                raise _Misfit("map key does not match declared key type", path)
        out = {a: self.walk(t[2], b, f"{path}[{_quote(a)}]") for a, b in v.items()}
        return json_value(out) if (kt, t[2]) == JSON_ENTRY else out  # `map<string, json>` records it

    def instance(self, t: tuple, v, path: str, each: bool = False) -> Instance:
        """A class from a JSON object: every required field must be present (checked first,
        unless `each`: as a union member, field by field), extra keys are ignored."""
        own = getattr(self.ta.classes[t[1]].py, "json_decode", None)  # a stdlib class's FromJson
        if own is not None:
            try:
                return own(v)
            except BamlRaise as e:
                raise _Misfit(e.value.f_message, path) from None
        if not isinstance(v, dict):
            raise _Misfit(f"expected JSON object for class `{_display(t[1])}`", path)
        fields = self.ta.fields(t)
        for name, alias, skip, ft in fields:
            key = self.key(name, alias, skip)
            if key is not None and key not in v and not _admits_null(ft):
                raise _Misfit(f"missing required field `{key}`", path)
            if each and key in v:
                self.walk(ft, v[key], f"{path}.{key}")
        values = []
        for name, alias, skip, ft in fields:
            key = self.key(name, alias, skip)
            if key is None:
                values.append(self.empty(ft, path, ()))
            else:
                values.append(self.walk(ft, v[key], f"{path}.{key}") if key in v else None)
        obj = self.ta.classes[t[1]].new(*values)
        if len(t) > 2:
            obj._targs = repr(t[2])  # as `$with_targs` records a generic instance's
        return obj

    def variant(self, t: tuple, v, path: str) -> Variant:
        info = self.ta.enums[t[1]]
        rows = self.ta.variants(("enum", t[1])) or tuple((n, *info.json_names.get(n, (None, False)))
                                                         for n in info.variants)
        if t[0] == "variant":  # one variant's type: its JSON name, nothing else
            key = next((self.key(*row) for row in rows if row[0] == t[2]), t[2])
            if type(v) is str and v == key:
                return info.variants[t[2]]
            raise _Misfit(f"expected enum variant `{key}`", path)
        if type(v) is not str:
            raise _Misfit("expected enum variant string", path)
        for name, alias, skip in rows:
            if self.key(name, alias, skip) == v:
                return info.variants[name]
        raise _Misfit(f"unknown variant `{v}` for enum `{_display(t[1])}`", path)

    def union(self, members: tuple, v, path: str):
        formless = [m for m in members if m[0] in _NO_FORM]
        cands = [m for m in members if m[0] not in _NO_FORM and not (m == ("null",) and v is not None)]
        misfits: list[_Misfit | None] = [None] * len(cands)
        for i in sorted(range(len(cands)), key=lambda i: (self.rank(cands[i], v), i)):
            try:
                if cands[i][0] == "class" and len(cands) > 1:  # fields one by one, in order
                    return self.instance(cands[i], v, path, each=True)
                if cands[i][0] == "enum" and len(cands) > 1:  # by name: a FromJson override is not asked
                    return self.variant(cands[i], v, path)
                return self.walk(cands[i], v, path)
            except _Misfit as e:
                misfits[i] = e
        if len(cands) == 1:
            e = misfits[0]
            notes = "".join(f" (`{_show(m)}` is not possible here: it has no JSON form)" for m in formless)
            raise _Misfit(e.message + notes, e.path)
        parts = []
        for m, e in zip(cands, misfits):
            rel = e.path[len(path):]
            parts.append(f"`{_show(m)}`: {e.message}" + (f" at `{rel}`" if rel else ""))
        raise _Misfit("no union member matched: " + "; ".join(parts), path)

    def rank(self, m: tuple, v) -> int:
        """How specific a union member is for this value (lower is tried first)."""
        k = m[0]
        if k in ("any", "json") or (k == "map" and m[2] == ("any",)):
            return 1 << 30
        tv = _PLAIN.get(type(v), type(v))
        if tv is dict:
            if k == "class":
                names = {self.key(n, a, s) for n, a, s, _ in self.ta.fields(m)}
                return -sum(1 for key in v if key in names)
            return -len(v) if k == "map" else 0
        if tv in (int, BigInt, float):
            return {"lit": 0, "int": 1, "bigint": 2, "float": 3}.get(k, 4)
        if tv is str:
            return {"lit": 0, "enum": 1, "variant": 1}.get(k, 2)
        return 0 if k == "lit" else 1

    def empty(self, t: tuple, path: str, seen: tuple):
        """A `@skip` field's value under `Naming.Aliased`: its type's empty value."""
        k = t[0]
        if _admits_null(t):
            return None
        simple = {"int": 0, "float": 0.0, "string": "", "bool": False, "bigint": BigInt(0)}
        if k in simple:
            return simple[k]
        if k == "lit":
            return t[1]
        if k == "array":
            return []
        if k == "map":
            return {}
        if k in ("enum", "variant"):
            info = self.ta.enums[t[1]]
            return info.variants[t[2]] if k == "variant" else next(iter(info.variants.values()))
        if k == "union":
            return self.empty(t[1][0], path, seen)
        if k == "class" and t not in seen:
            obj = self.ta.classes[t[1]].new(*(self.empty(ft, path, seen + (t,)) for _, _, _, ft in self.ta.fields(t)))
            if len(t) > 2:
                obj._targs = repr(t[2])
            return obj
        raise _Misfit(f"`{_show(t)}` has no empty value for a `@skip` field", path)


def _admits_null(t: tuple) -> bool:
    return t[0] in ("null", "any", "json") or (t[0] == "union" and any(_admits_null(m) for m in t[1]))


def _decode_error(e: _Misfit):
    return BamlRaise(make_builtin("baml.json.DecodeError", message=e.message, path=e.path))


def _to(ta: TypeArg, j, naming):
    try:
        return _Decoder(ta, naming is ALIASED).walk(ta.root, j, "")
    except _Misfit as e:
        raise _decode_error(e) from None


@function("baml.json.decode")
def decode(T, s, naming=DECLARED):
    return _to(T, parse(s), naming)


@function("baml.json.to")
def to(T, j, naming=DECLARED):
    return _to(T, j, naming)


# ── from: a value's run-time type → json ──

ENUM_TO_JSON: dict = {}  # EnumInfo → its `baml.ToJson` override (set by the compiler)
ENUM_FROM_JSON: dict = {}  # EnumInfo → its `baml.FromJson` override (set by the compiler)


class _Unencodable(Exception):
    def __init__(self, message: str, path: str, reason: str):
        self.message, self.path, self.reason = message, path, reason


def _from(v, path: str, aliased: bool, omit_nulls: bool, busy: set, finite: bool = False):
    """`from`'s walk; `finite` (stringify): a NaN or infinite float is an error here, where the
    path still names class fields as `.field`."""
    t = _PLAIN.get(type(v), type(v))
    if t is float and finite and (v != v or v in (float("inf"), float("-inf"))):
        name = "NaN" if v != v else ("inf" if v > 0 else "-inf")  # Rust's Display of f64
        raise _Unencodable(f"{name} has no JSON form: a JSON number is finite", path, "non_finite")
    if v is None or t in (bool, int, float, str, BigInt):
        return v
    if t is Variant:
        own = ENUM_TO_JSON.get(v.enum)
        if own is not None:
            return own(v)
        alias, skip = v.enum.json_names.get(v.name, (None, False))
        if aliased and skip:
            raise _Unencodable(f"enum variant `{v.enum.fqn}.{v.name}` is `@skip`, so JSON has no name for it",
                               path, "enum")
        return alias if aliased and alias else v.name
    if t is bytearray:
        raise _Unencodable("uint8array requires explicit encoding (use to_base64() or to_hex())", path, "uint8array")
    if t is Future:
        raise _Unencodable("a future has no JSON form", path, "future")
    if t is Iter and v.show is not None:  # the engine writes an iterator's struct (`{"arr": …, "idx": 0}`)
        return {f: _from(x, f"{path}.{f}", aliased, omit_nulls, busy, finite) for f, x in v.show()[1]}
    if t is not list and t is not dict and not isinstance(v, Instance):
        if callable(v):
            raise _Unencodable("a function has no JSON form", path, "function")
        if getattr(t, "BAML_TEXT", None) is not None:  # a runtime-owned value (a regex's handle)
            raise _Unencodable("value has no json representation", path, "unserializable")
        raise _Unencodable("a value of this kind has no JSON form", path, "unserializable")
    if id(v) in busy:
        raise _Unencodable("value contains itself, so it has no JSON form", path, "cycle")
    busy.add(id(v))
    try:
        if t is list:
            return [_from(x, f"{path}[{i}]", aliased, omit_nulls, busy, finite) for i, x in enumerate(v)]
        if t is dict:
            keys = getattr(v, "elem", None)  # a map built with enum keys has no JSON form, empty too
            if not all(type(k) is str for k in v) or keys is not None and keys[0][0] in ("enum", "variant"):
                raise _Unencodable("JSON requires maps with string keys", path, "map_key")
            return {k: _from(x, f"{path}[{_quote(k)}]", aliased, omit_nulls, busy, finite) for k, x in v.items()}
        return _from_instance(v, path, aliased, omit_nulls, busy, finite)
    finally:
        busy.discard(id(v))


def _from_instance(v: Instance, path: str, aliased: bool, omit_nulls: bool, busy: set, finite: bool):
    own = getattr(v, "m_to_json", None)  # a user class's ToJson override
    if own is not None:
        return own()
    view = getattr(v, "json_view", None)  # a stdlib class written as another value (its ToJson)
    if view is not None:
        return _from(view(), path, aliased, omit_nulls, busy, finite)
    out = {}
    names = v._class.json_names
    for f in v._class.fields:
        x = getattr(v, "f_" + f)
        alias, skip = names.get(f, (None, False))
        if (aliased and skip) or (omit_nulls and x is None):
            continue
        key = alias if aliased and alias else f
        out[key] = _from(x, f"{path}.{key}", aliased, omit_nulls, busy, finite)
    return out


def _serialization_error(e: _Unencodable):
    return BamlRaise(make_builtin("baml.json.SerializationError", message=e.message, path=e.path, reason=e.reason))


def _to_json(value, naming, omit_nulls, finite: bool = False):
    try:
        return _from(value, "", naming is ALIASED, omit_nulls is True, set(), finite)
    except _Unencodable as e:
        raise _serialization_error(e) from None


@function("baml.json.from")
def from_(value, naming=DECLARED, omit_nulls=False):
    return json_value(_to_json(value, naming, omit_nulls))  # its containers `json[]`, as built


def to_json_default(value):
    """`x.to_json()` where x's type has no override: its structural rendering."""
    return _to_json(value, DECLARED, False)


method("int float string bool null array map uint8array bigint", "to_json")(to_json_default)  # the builtin types (stdsigs)
EVERY_VALUE["to_json"] = to_json_default


@function("baml.json.stringify")
def stringify(value, naming=DECLARED, indent=0, omit_nulls=False):
    unit = _indent_unit(indent)
    out: list[str] = []
    _write(_to_json(value, naming, omit_nulls, finite=True), "", out, unit)
    return "".join(out)


def _indent_unit(indent) -> str:
    """The text of one nesting level ('' for compact), or the engine's `indent` error."""
    if type(indent) is int:
        if indent < 0:
            raise _serialization_error(_Unencodable(f"indent must not be negative, got {indent}", "", "indent"))
        if indent > 10:
            raise _serialization_error(_Unencodable(f"indent must be at most 10 spaces, got {indent}", "", "indent"))
        return " " * indent
    if len(indent) > 10:
        raise _serialization_error(_Unencodable(f"indent must be at most 10 characters, got {len(indent)}", "",
                                                "indent"))
    if any(c not in " \t\n\r" for c in indent):
        raise _serialization_error(_Unencodable(f"indent must hold only spaces, tabs, and line breaks, got "
                                                f"{_quote(indent)}", "", "indent"))
    return indent


@function("baml.json.field")
def field(j, key):
    return j.get(key) if isinstance(j, dict) else None


# ── path: a jq-style selector ──

class _BadPath(Exception):
    pass


def _steps(sel: str) -> list:
    """The selector's steps: str (a field) or int (an index)."""
    if not sel or sel[0] not in ".[":
        raise _BadPath(f"selector must start with '.' or '[' (jq style), got '{sel}'")
    steps: list = []
    i, n = 0, len(sel)
    while i < n:
        c = sel[i]
        if c == ".":
            j = i + 1
            while j < n and sel[j] not in ".[":
                j += 1
            if j > i + 1:
                steps.append(sel[i + 1:j])
            i = j
        elif c == "[":
            i = _bracket(sel, i, steps)
        else:
            raise _BadPath(f"expected '.' or '[' at offset {i}")
    return steps


def _bracket(sel: str, i: int, steps: list) -> int:
    """Reads the `[...]` step at `i`; returns the offset after it."""
    n = len(sel)
    if i + 1 < n and sel[i + 1] in "'\"":
        q, j, key = sel[i + 1], i + 2, []
        while j < n and sel[j] != q:
            if sel[j] == "\\" and j + 1 < n:
                j += 1
            key.append(sel[j])
            j += 1
        if j >= n or j + 1 >= n or sel[j + 1] != "]":
            raise _BadPath("unterminated quoted bracket key")
        steps.append("".join(key))
        return j + 2
    j = sel.find("]", i)
    if j < 0:
        raise _BadPath("unterminated '[' segment")
    tok = sel[i + 1:j]
    if not re.fullmatch(r"-?[0-9]+", tok):
        raise _BadPath(f"bad bracket token '[{tok}]'")
    steps.append(int(tok))
    return j + 1


def _walk(j, steps: list):
    for s in steps:
        if type(s) is int:
            if not isinstance(j, list):
                raise _BadPath(f"index [{s}] on a non-array")
            if not 0 <= s < len(j):
                raise _BadPath(f"index [{s}] out of bounds (length {len(j)})")
            j = j[s]
        else:
            if not isinstance(j, dict):
                raise _BadPath(f"field access '.{s}' on a non-object")
            if s not in j:
                raise _BadPath(f"missing field '{s}'")
            j = j[s]
    return j


def _path_error(message: str, selector: str):
    return BamlRaise(make_builtin("baml.json.PathError", message=message, selector=selector))


@function("baml.json.path")
def path(T, j, selector):
    try:
        leaf = _walk(j, _steps(selector))
    except _BadPath as e:
        raise _path_error(str(e), selector) from None
    try:
        return _Decoder(T, False).walk(T.root, leaf, "")
    except _Misfit:
        raise _path_error("leaf does not coerce to the requested type", selector) from None


@function("baml.json.path_or")
def path_or(T, j, selector, default):
    try:
        return path(T, j, selector)
    except BamlRaise as e:
        if isinstance(e.value, Instance) and e.value._class.fqn == "baml.json.PathError":
            return default
        raise

