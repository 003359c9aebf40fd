"""Run-time type tests (`is`, typed patterns, catch arms) resolved from type expressions.

A test is a small tuple, hashable and printable:
  ('any',) ('never',) ('int',) ('float',) ('string',) ('bool',) ('null',) ('function',)
  ('lit', value) ('class', fqn) ('enum', fqn) ('variant', enum_fqn, name)
  ('array', elem) ('map', key, value) ('union', (t, ...)) ('panic',) (any baml.panics.*)
"""
from __future__ import annotations

from ..syntax import ast

PRIMS = {"int": ("int",), "float": ("float",), "string": ("string",), "bool": ("bool",),
         "null": ("null",), "unknown": ("any",), "never": ("never",), "void": ("null",),
         "bigint": ("bigint",)}


def resolve(t: ast.TypeExpr, lookup, generics: frozenset = frozenset(), _seen=None) -> tuple:
    """`lookup(path)` resolves a dotted type name to an index item (ClassDef/EnumDef/AliasDef)
    or None. Type parameters and anything unresolvable test as ('any',)."""
    if isinstance(t, ast.TOptional):
        return _union([resolve(t.inner, lookup, generics, _seen), ("null",)])
    if isinstance(t, ast.TUnion):
        return _union([resolve(m, lookup, generics, _seen) for m in t.members])
    if isinstance(t, ast.TArray):
        return ("array", resolve(t.elem, lookup, generics, _seen))
    if isinstance(t, ast.TLiteral):
        return ("null",) if t.value is None else ("lit", t.value)
    if isinstance(t, ast.TFunc):
        return ("function",)
    path = t.path
    if len(path) == 1:
        name = path[0]
        if name in generics:
            return ("any",)
        if name in PRIMS:
            return PRIMS[name]
        if name in ("map", "Map") and len(t.args) == 2:
            return ("map", resolve(t.args[0], lookup, generics, _seen), resolve(t.args[1], lookup, generics, _seen))
        if name in ("Array",) and len(t.args) == 1:
            return ("array", resolve(t.args[0], lookup, generics, _seen))
    item = lookup(path)
    kind = type(item).__name__
    if kind == "ClassDef":
        return ("class", item.fqn)
    if kind == "EnumDef":
        return ("enum", item.fqn)
    if kind == "AliasDef":
        seen = _seen or set()
        if item.fqn in seen:
            return ("any",)
        return resolve(item.type, _alias_lookup(lookup, item), generics, seen | {item.fqn})
    if kind == "Variant":
        return ("variant", item.enum.fqn, item.name)
    if isinstance(item, tuple):  # already a test (builtin classes)
        return item
    return ("any",)


def _alias_lookup(lookup, item):
    return lookup


def _union(members: list[tuple]) -> tuple:
    flat: list[tuple] = []
    for m in members:
        for x in (m[1] if m[0] == "union" else (m,)):
            if x not in flat:
                flat.append(x)
    if ("any",) in flat:
        return ("any",)
    return flat[0] if len(flat) == 1 else ("union", tuple(flat))


def show(t: tuple) -> str:
    k = t[0]
    if k in ("class", "enum"):
        return t[1]
    if k == "variant":
        return f"{t[1]}.{t[2]}"
    if k == "lit":
        return repr(t[1]) if not isinstance(t[1], str) else '"' + t[1] + '"'
    if k == "array":
        return show(t[1]) + "[]"
    if k == "map":
        return f"map<{show(t[1])}, {show(t[2])}>"
    if k == "union":
        return " | ".join(show(m) for m in t[1])
    return {"any": "unknown", "panic": "baml.panics.Panic"}.get(k, k)
