"""Symbolic inputs: the shadow of each parameter, built from its declared type (mirx
TypeView) and its run-time value; and the other way, new arguments from a solver model."""
from __future__ import annotations

from ..jsonvalue import EnumValue
from .expr import SymArray, SymMap, SymObject, SymOptional, SymUnion, _kind_of, mk, var


class Inputs:
    """The shadows of a run's symbolic parameters and the domains of their vars."""

    def __init__(self, max_len: int, max_depth: int = 3):
        self.max_len, self.max_depth = max_len, max_depth
        self.domains: dict[str, tuple[int, int]] = {}  # var → (lo, hi): enum tags, lengths

    def shadow(self, name: str, value, t):
        """The shadow of `value` of static type `t` (None where nothing is symbolic)."""
        if t is None:
            return None
        k = t.kind
        if k in ("int", "bool", "string"):  # the hot case: the interned var itself
            return mk("var", (name,), k) if type(value) in (int, bool, str) or value is None else None
        if k == "bigint":
            self.domains[name] = (None, None)  # unbounded
            return var(name, "bigint")
        if k == "uint8array":  # a byte string: symbolic length (up to max_len) and contents
            if value is not None and not isinstance(value, (bytes, bytearray)):
                return None
            self.domains[name] = (0, self.max_len)
            return var(name, "uint8array")
        if k == "enum":
            self.domains[name] = (0, len(t.variants) - 1)
            return var(name, "enum:" + t.qualified_name)
        if k == "union":
            return self._optional(name, value, t)
        if k == "array":
            self.domains[name + ".len"] = (0, self.max_len)
            items = value if isinstance(value, list) else []
            return SymArray(var(name + ".len", "int"),
                            [self.shadow(f"{name}[{i}]", x, t.element) for i, x in enumerate(items)])
        if k == "map" and isinstance(value, dict):
            return SymMap({key: self.shadow(f"{name}[{key!r}]", x, t.value) for key, x in value.items()})
        if k == "class" and value is not None:
            if _depth(name) >= self.max_depth:  # recursive classes: deeper levels stay concrete
                return None
            return SymObject({f.name: self.shadow(f"{name}.{f.name}", getattr(value, "f_" + f.name, None), f.type)
                              for f in t.fields})
        return None

    def _optional(self, name: str, value, t):
        """`T?` (is_null beside T's shadow) and unions of literals (`"a" | "b"`: one var whose
        domain is the literals)."""
        rest = [m for m in t.members if m.kind != "null"]
        literals = _literal_values(rest)
        if literals is not None:
            self.domains[name] = frozenset(literals)
            inner = var(name, {bool: "bool", int: "int", str: "string"}[type(literals[0])])
        elif len(rest) == 1:
            inner = self.shadow(name, value, rest[0]) if rest[0].kind in _SCALARS \
                else (self.shadow(name, value, rest[0]) if value is not None else None)
        else:
            return self._union(name, value, t)
        if len(rest) == len(t.members):
            return inner
        return SymOptional(var(name + ".null", "bool"), inner)


    def _union(self, name: str, value, t):
        """Any other union: a tag var choosing the member, a shadow per member (scalars are
        vars of their own; structured members are symbolic only when the value is one)."""
        kinds = tuple(member_kind(m) for m in t.members)
        if len(set(kinds)) != len(kinds):
            return None
        self.domains[name + ".tag"] = (0, len(kinds) - 1)
        here = _kind_of(value)
        members = tuple(self.shadow(f"{name}.{j}", value if k == here else None, m)
                        if m.kind in _SCALARS or k == here else None
                        for j, (k, m) in enumerate(zip(kinds, t.members)))
        return SymUnion(var(name + ".tag", "int"), kinds, members)


_SCALARS = ("int", "bool", "string", "enum", "uint8array")  # a var of their own even where absent


def _depth(name: str) -> int:
    """How many fields and elements deep an input var's name is (`p.next.next` is 2)."""
    return name.count(".") + name.count("[")


def member_kind(t) -> str:
    """A union member's run-time kind (as SymUnion names it)."""
    if t.kind in ("enum", "class"):
        return f"{t.kind}:{t.qualified_name}"
    return t.kind


def _literal_values(members) -> list | None:
    """The values of a union of literals of one base type (None otherwise)."""
    if not members or any(m.kind != "literal" for m in members):
        return None
    values = [m.literal for m in members]
    return values if len({type(v) for v in values}) == 1 else None


def rebuild(name: str, value, t, model: dict):
    """`value` (as the host passed it) with the model's values for its vars."""
    if t is None:
        return value
    k = t.kind
    if k in ("int", "bool", "string", "bigint", "uint8array"):
        return model.get(name, value if value is not None else default(t))
    if k == "enum":
        i = model.get(name)
        return t.variants[i].name if i is not None else value
    if k == "union":
        return _rebuild_union(name, value, t, model)
    if k == "array":
        items = list(value or [])
        n = model.get(name + ".len", len(items))
        items = items[:n] + [default(t.element) for _ in range(n - len(items))]
        return [rebuild(f"{name}[{i}]", x, t.element, model) for i, x in enumerate(items)]
    if k == "map" and isinstance(value, dict):
        return {key: rebuild(f"{name}[{key!r}]", x, t.value, model) for key, x in value.items()}
    if k == "class" and value is not None:
        fields = value if isinstance(value, dict) else value.model_dump() if hasattr(value, "model_dump") \
            else dict(value.__dict__)
        return {f.name: rebuild(f"{name}.{f.name}", fields.get(f.name), f.type, model) for f in t.fields}
    return value


def _rebuild_union(name: str, value, t, model: dict):
    rest = [m for m in t.members if m.kind != "null"]
    literals = _literal_values(rest) is not None
    if literals or len(rest) == 1:  # `T?` or literals: an is-null var beside the value's
        if len(rest) != len(t.members) and model.get(name + ".null", value is None):
            return None
        if literals:
            return model.get(name, value if value is not None else rest[0].literal)
        return rebuild(name, value if value is not None else default(rest[0]), rest[0], model)
    here = _member_of(value, t.members)
    j = model.get(name + ".tag", here)  # any other union: the tag picks the member
    if j is None or not 0 <= j < len(t.members):
        return value
    m = t.members[j]
    out = rebuild(f"{name}.{j}", value if _host_fits(value, m) else default(m), m, model)
    if m.kind == "enum" and isinstance(out, str) and any(x.kind == "string" for x in t.members):
        # a variant's name would read as the string member: say which enum it is
        return EnumValue(str(out), m.qualified_name.removeprefix("user."))
    return out


def _member_of(value, members) -> int | None:
    """The union member a host value binds to: a str is the string member where there is one
    (as the engine and `assay run --args` bind it), else the first member it fits."""
    if type(value) is str:
        for i, m in enumerate(members):
            if m.kind == "string":
                return i
    return next((i for i, m in enumerate(members) if _host_fits(value, m)), None)


def _host_fits(value, t) -> bool:
    """Does a host value (as `call` takes it) belong to member type `t`?"""
    k = t.kind
    return {"null": value is None, "int": type(value) is int, "bool": type(value) is bool,
            "float": type(value) is float, "string": type(value) is str,
            "array": isinstance(value, list), "map": isinstance(value, dict) and k == "map",
            "class": isinstance(value, dict) or hasattr(value, "model_dump"),
            "enum": isinstance(value, str) and value in [v.name for v in t.variants],
            "uint8array": isinstance(value, (bytes, bytearray))}.get(k, False)


def default(t):
    """A value of type `t` for positions the model invents (a longer array)."""
    k = t.kind
    if k in ("int", "float", "bool", "string", "bigint", "uint8array"):
        return {"int": 0, "float": 0.0, "bool": False, "string": "", "bigint": 0, "uint8array": b""}[k]
    if k == "enum":
        return t.variants[0].name
    if k == "array":
        return []
    if k == "map":
        return {}
    if k == "class":
        return {f.name: default(f.type) for f in t.fields}
    if k == "union":
        return None if any(m.kind == "null" for m in t.members) else default(t.members[0])
    if k == "literal":
        return t.literal
    return None
