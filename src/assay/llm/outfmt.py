"""What `ctx.output_format()` renders for a return type (as baml_bridge 0.23.0 renders it), and
the return type's JSON Schema (what an LLM client callable receives)."""
from __future__ import annotations

import json

from ..sema import types as T


class OutputFormatError(Exception):
    """A type that is no data (null, unknown, functions, type parameters): no schema renders it."""


def _attr(attrs, name: str, level: int = 1):
    for a in attrs:
        if a.name == name and a.level == level and a.args and hasattr(a.args[0], "value"):
            return a.args[0].value
    return None


def _has(attrs, name: str) -> bool:
    return any(a.name == name for a in attrs)


def _class_desc(cd) -> str | None:
    d = _attr(cd.decl.attrs, "description", 2)
    return d if d is not None else cd.decl.doc


class _Fmt:
    def __init__(self, field_type):
        self.field_type = field_type  # (ClassT, field) → T.Type
        self.hoisted: list = []      # EnumT / ClassT definitions, in first-use order
        self.names: set[str] = set()
        self.rec: dict[str, bool] = {}

    def fields(self, ct: T.ClassT):
        return [(f, self.field_type(ct, f)) for f in ct.cls.fields if not _has(f.attrs, "skip")]

    def recursive(self, ct: T.ClassT) -> bool:
        fqn = ct.cls.fqn
        if fqn not in self.rec:
            self.rec[fqn] = False
            seen, todo = set(), [t for _, t in self.fields(ct)]
            while todo:
                t = todo.pop()
                for c in _classes_in(t):
                    if c.cls.fqn == fqn:
                        self.rec[fqn] = True
                        todo = []
                        break
                    if c.cls.fqn not in seen:
                        seen.add(c.cls.fqn)
                        todo += [ft for _, ft in self.fields(c)]
        return self.rec[fqn]

    def hoist(self, t) -> str:
        name = _shown(t.enum if isinstance(t, T.EnumT) else t.cls)
        key = ("enum:" if isinstance(t, T.EnumT) else "class:") + name
        if key not in self.names:
            self.names.add(key)
            self.hoisted.append(t)
        return name

    def enum_def(self, et: T.EnumT) -> str:
        lines = [_shown(et.enum), "----"]
        for v in et.enum.decl.variants:
            if _has(v.attrs, "skip"):
                continue
            alias = _attr(v.attrs, "alias")
            desc = _attr(v.attrs, "description")
            lines.append(f"- {alias if alias is not None else v.name}" + (f": {desc}" if desc is not None else ""))
        return "\n".join(lines)

    def obj(self, ct: T.ClassT, ind: int) -> str:
        pad = "  " * (ind + 1)
        out = ["{\n"]
        desc = _class_desc(ct.cls)
        if desc:
            out.append("".join(f"{pad}/// {line}\n" for line in desc.split("\n")) + "\n")
        for f, ft in self.fields(ct):
            fdesc = _attr(f.attrs, "description")
            if fdesc is not None:
                out.append("".join(f"{pad}/// {line}\n" for line in fdesc.split("\n")))
            alias = _attr(f.attrs, "alias")
            out.append(f"{pad}{alias if alias is not None else f.name}: {self.render(ft, ind + 1)},\n")
        out.append("  " * ind + "}")
        return "".join(out)

    def render(self, t, ind: int = 0) -> str:
        if isinstance(t, T.Prim):
            if t.name in ("int", "float", "string", "bool", "bigint", "null"):
                return t.name
            raise OutputFormatError(t.name)
        if isinstance(t, T.Lit):
            return json.dumps(t.value) if t.base is T.STRING else ("true" if t.value is True else
                                                                  "false" if t.value is False else str(t.value))
        if isinstance(t, T.EnumT):
            return self.hoist(T.EnumT(t.enum))
        if isinstance(t, T.ClassT):
            return self.hoist(t) if self.recursive(t) else self.obj(t, ind)
        if isinstance(t, T.Arr):
            if isinstance(t.elem, (T.Prim, T.Lit)):
                return f"{self.render(t.elem, ind)}[]"
            return f"[\n{'  ' * (ind + 1)}{self.render(t.elem, ind + 1)}\n{'  ' * ind}]"
        if isinstance(t, T.MapT):
            k = t.key
            key = _shown(k.enum) if isinstance(k, T.EnumT) else self.render(k, ind)
            if isinstance(k, T.EnumT):
                self.hoist(T.EnumT(k.enum))
            return '{ "<' + key + '>": ' + self.render(t.val, ind) + " }"
        if isinstance(t, T.Union):
            return " or ".join(self.render(m, ind) for m in t.members)
        raise OutputFormatError(T.show(t))


def _shown(item) -> str:
    """A class's or enum's name as the engine shows it: qualified by its namespace."""
    return f"{item.namespace}.{item.name}" if item.namespace else item.name


def _classes_in(t):
    if isinstance(t, T.ClassT):
        yield t
    elif isinstance(t, T.Arr):
        yield from _classes_in(t.elem)
    elif isinstance(t, T.MapT):
        yield from _classes_in(t.val)
    elif isinstance(t, T.Union):
        for m in t.members:
            yield from _classes_in(m)


def output_format(t, field_type) -> str:
    """`ctx.output_format()` for return type `t`; `field_type(ClassT, field)` resolves a field's
    type. Raises OutputFormatError for a type that is no data."""
    f = _Fmt(field_type)
    if isinstance(t, T.Prim) and t.name == "string":
        return ""
    if isinstance(t, T.Prim) and t.name in ("int", "float", "bool", "bigint"):
        return f"Answer as a{'n' if t.name == 'int' else ''} {t.name}"
    if isinstance(t, T.Prim) and t.name in ("null", "unknown", "void", "never"):
        raise OutputFormatError(t.name)
    if isinstance(t, T.Lit):
        body = "Answer using this specific value:\n" + f.render(t)
    elif isinstance(t, T.EnumT):
        body = "Answer with any of the categories:\n" + f.enum_def(T.EnumT(t.enum))
    elif isinstance(t, T.ClassT) and f.recursive(t):
        body = "Answer in JSON using this schema: " + f.render(t)
    elif isinstance(t, T.ClassT) or isinstance(t, T.MapT):
        body = "Answer in JSON using this schema:\n" + f.render(t)
    elif isinstance(t, T.Arr):
        body = "Answer with a JSON Array using this schema:\n" + f.render(t)
    elif isinstance(t, T.Union):
        rest = [m for m in t.members if m is not T.NULL]
        text = f.render(t)
        if len(rest) > 1:
            body = "Answer in JSON using any of these schemas:\n" + text
        elif rest and isinstance(rest[0], T.EnumT):
            body = "Answer with any of the categories:\n" + text
        elif rest and isinstance(rest[0], T.Arr):
            body = "Answer with a JSON Array using this schema:\n" + text
        else:
            body = "Answer in JSON using this schema:\n" + text
    else:
        raise OutputFormatError(T.show(t))
    defs, done = [], 0
    while done < len(f.hoisted):  # definitions may hoist more
        h = f.hoisted[done]
        done += 1
        defs.append(f.enum_def(h) if isinstance(h, T.EnumT) else f"{_shown(h.cls)} {f.obj(h, 0)}")
    return "\n\n".join(defs + [body])


def json_schema(t, field_type) -> dict:
    """The JSON Schema of values of type `t` (classes as `$defs`, so recursion is fine); field
    and variant names are the BAML names (what a client's answer must use)."""
    defs: dict = {}

    def go(t):
        if isinstance(t, T.Prim):
            return {"int": {"type": "integer"}, "bigint": {"type": "integer"}, "float": {"type": "number"},
                    "string": {"type": "string"}, "bool": {"type": "boolean"},
                    "null": {"type": "null"}}.get(t.name, {})
        if isinstance(t, T.Lit):
            return {"const": t.value}
        if isinstance(t, T.EnumT):
            if t.variant is not None:
                return {"const": t.variant}
            return {"enum": list(t.enum.variants), "title": t.enum.name}
        if isinstance(t, T.ClassT):
            name = t.cls.name
            if name not in defs:
                defs[name] = {}
                props, req = {}, []
                for f in t.cls.fields:
                    ft = field_type(t, f)
                    s = go(ft)
                    desc = _attr(f.attrs, "description")
                    if desc is not None:
                        s = dict(s, description=desc)
                    props[f.name] = s
                    if T.NULL not in T.members(ft):
                        req.append(f.name)
                d = {"type": "object", "title": name, "properties": props, "required": req,
                     "additionalProperties": False}
                if _class_desc(t.cls):
                    d["description"] = _class_desc(t.cls)
                defs[name] = d
            return {"$ref": f"#/$defs/{name}"}
        if isinstance(t, T.Arr):
            return {"type": "array", "items": go(t.elem)}
        if isinstance(t, T.MapT):
            return {"type": "object", "additionalProperties": go(t.val)}
        if isinstance(t, T.Union):
            return {"anyOf": [go(m) for m in t.members]}
        return {}

    top = go(t)
    if defs:
        top = dict(top, **{"$defs": defs})
    return top


def generics_of(fdef) -> frozenset:
    gs = {g.name for g in fdef.decl.generics}
    if fdef.owner is not None:
        gs |= {g.name for g in fdef.owner.decl.generics}
    return frozenset(gs)


def return_type(resolver, fdef):
    """An LLM function's declared return type (sema), resolved where it is written."""
    return resolver.resolve(fdef.decl.ret, fdef.namespace, generics_of(fdef))


def field_resolver(resolver):
    """(ClassT, field) → the field's type, with the class's type arguments substituted."""
    def field_type(ct, f):
        gs = [g.name for g in ct.cls.decl.generics]
        ft = resolver.resolve(f.type, ct.cls.namespace, frozenset(gs))
        return T.subst(ft, dict(zip(gs, ct.args)))
    return field_type


def for_function(resolver, fdef) -> tuple:
    """(return type, output format text or None, why it cannot render or None)."""
    t = return_type(resolver, fdef)
    try:
        return t, output_format(t, field_resolver(resolver)), None
    except OutputFormatError as e:
        return t, None, f"non-data type `{e}` cannot be rendered as an LLM output schema"
