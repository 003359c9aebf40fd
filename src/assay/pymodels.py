"""The pydantic models of a program's BAML classes, typed from the BAML field types.

A field's annotation follows its BAML type: `int`/`bigint` → strict int, `float` → strict float
(an int is accepted and becomes a float, as the bridge does), `string` → strict str, `bool` →
strict bool, `null` → None, literals → `Literal[...]`, enums → the program's `enum.Enum`
(members, or the variant name), a variant `Color.Red` → `Literal[Color.Red]`, classes → their
models (forward references resolve recursion), generic classes → generic models
(`Box[int]`), `T[]` → `list[T]`, `map<K, V>` → `dict[K, V]`, unions and optionals →
`Union[...]`, function types → a callable, and `unknown` (and what has no Python form) → `Any`,
which passes any object through uncopied. A field whose type admits `null` defaults to None;
every other field is required. `@description` / `@@description` are the schema's descriptions;
`@alias("name")` is the name the LLM sees (the engine's host boundary still uses the field's own
name): it is the field's `serialization_alias`, so `model_dump(by_alias=True)` gives the LLM's
names while construction, attributes and `model_dump()` use the BAML names.

Results of BAML code are built with `construct` (no validation: the VM's values are valid);
models built by host code (`prog.types.Point(x=1, y=2)`) are validated."""
from __future__ import annotations

import typing

from .llm.outfmt import _attr, _class_desc
from .sema import types as T
from .syntax import ingot

_PRIM = {"int": "BamlInt", "bigint": "BamlInt", "float": "BamlFloat", "string": "BamlStr",
         "bool": "BamlBool", "null": "None", "void": "None", "uint8array": "bytes"}

_BASE_NS: dict | None = None
_BASE = None


def _base_ns() -> dict:
    """The names annotations are written with (pydantic is imported only once a model is made)."""
    global _BASE_NS, _BASE
    if _BASE_NS is None:
        import pydantic
        from pydantic.json_schema import WithJsonSchema

        class BamlModel(pydantic.BaseModel):
            """The base of the models of BAML classes."""
            model_config = pydantic.ConfigDict(arbitrary_types_allowed=True)

            @classmethod
            def model_parametrized_name(cls, params) -> str:
                return f"{cls.__name__}[{', '.join(_param_name(p) for p in params)}]"

        _BASE = BamlModel
        strict = pydantic.Strict()
        _BASE_NS = {
            "BamlInt": typing.Annotated[int, strict], "BamlFloat": typing.Annotated[float, strict],
            "BamlStr": typing.Annotated[str, strict], "BamlBool": typing.Annotated[bool, strict],
            "BamlFn": typing.Annotated[typing.Callable[..., typing.Any], WithJsonSchema({})],
            "Any": typing.Any, "Union": typing.Union, "Literal": typing.Literal,
            "list": list, "dict": dict, "bytes": bytes, "None": None,
        }
    return _BASE_NS


def build(prog, fqn: str) -> None:
    """Make the model of class `fqn` and of every class its fields reach that has none yet, then
    resolve their forward references together (`prog._models` gets them only once complete)."""
    import pydantic
    index = prog._p.index.classes
    ns = prog.__dict__.get("_model_ns")
    if ns is None:
        ns = prog._model_ns = dict(_base_ns())
        for i, efqn in enumerate(prog._enums):
            ns[f"BamlE_{i}"] = prog._enums[efqn]
        prog._model_keys = {efqn: f"BamlE_{i}" for i, efqn in enumerate(prog._enums)}
        prog._model_keys.update({cfqn: f"BamlC_{i}" for i, cfqn in enumerate(index)})
    keys = prog._model_keys
    resolve = prog._p.lowering.types.resolve
    todo, batch = [fqn], {}
    while todo:
        cfqn = todo.pop()
        if cfqn in batch or cfqn in prog._models:
            continue
        cdef = index[cfqn]
        gs = [g.name for g in cdef.decl.generics]
        tv = {g: f"BamlTV_{keys[cfqn]}_{g}" for g in gs}
        for g, key in tv.items():
            ns[key] = typing.TypeVar(key)
        fields = {}
        for name in prog._p.runtime.classes[cfqn].fields:
            f = cdef.field(name)
            t = resolve(f.type, cdef.namespace, frozenset(gs)) if f is not None else T.UNKNOWN
            ann = _ann(t, keys, tv, todo)
            kw = {}
            if f is not None:
                desc, alias = _attr(f.attrs, "description"), _attr(f.attrs, "alias")
                if desc is not None:
                    kw["description"] = desc
                if alias is not None:
                    kw["serialization_alias"] = alias
            default = None if _admits_null(t) else ...
            fields[name] = (ann, pydantic.Field(default, **kw) if kw else default)
        base = (_BASE, typing.Generic[tuple(ns[k] for k in tv.values())]) if tv else _BASE
        model = pydantic.create_model(cdef.name, __base__=base,
                                      __doc__=_class_desc(cdef), __module__=__name__, **fields)
        model._meta = _ingot_meta(prog, cfqn)
        ns[keys[cfqn]] = batch[cfqn] = model
    for model in batch.values():
        model.model_rebuild(_types_namespace=ns)
    prog._models.update(batch)


def _ingot_meta(prog, fqn: str):
    return ingot.class_meta(prog._ingot, fqn, list(prog._p.runtime.classes[fqn].fields))


def _param_name(p) -> str:
    """A type argument as a generic model's name shows it (`Box[int]`, not the strictness)."""
    if typing.get_origin(p) is typing.Annotated:
        p = typing.get_args(p)[0]
    return p.__name__ if isinstance(p, type) and typing.get_origin(p) is None else repr(p).replace("typing.", "")


def _admits_null(t) -> bool:
    return t is T.NULL or t is T.JSON or (isinstance(t, T.Union) and any(_admits_null(m) for m in t.members))


def _ann(t, keys: dict, tv: dict, todo: list) -> str:
    """The annotation of BAML type `t`, as source over the program's model namespace."""
    if isinstance(t, T.Prim):
        return _PRIM.get(t.name, "Any")
    if isinstance(t, T.Lit):
        v = t.value
        return f"Literal[{int(v) if t.base is T.BIGINT else v!r}]"
    if isinstance(t, T.EnumT):
        key = keys.get(t.enum.fqn)
        if key is None:
            return "Any"
        return f"Literal[{key}[{t.variant!r}]]" if t.variant is not None else key
    if isinstance(t, T.ClassT):
        key = keys.get(t.cls.fqn)
        if key is None:
            return "Any"
        todo.append(t.cls.fqn)
        if t.args and any(a is not T.UNKNOWN for a in t.args):
            return f"{key}[{', '.join(_ann(a, keys, tv, todo) for a in t.args)}]"
        return key
    if isinstance(t, T.Arr):
        return f"list[{_ann(t.elem, keys, tv, todo)}]"
    if isinstance(t, T.MapT):
        return f"dict[{_ann(t.key, keys, tv, todo)}, {_ann(t.val, keys, tv, todo)}]"
    if isinstance(t, T.Union):
        ms = list(dict.fromkeys(_ann(m, keys, tv, todo) for m in t.members))
        return "Any" if "Any" in ms else ms[0] if len(ms) == 1 else f"Union[{', '.join(ms)}]"
    if isinstance(t, T.FuncT):
        return "BamlFn"
    if isinstance(t, T.TVar):
        return tv.get(t.name, "Any")
    return "Any"  # stdlib types sema knows only by name, and whatever else has no Python form


_set = object.__setattr__


def construct(model: type, fields: dict):
    """An instance of `model` holding `fields` (every field, already valid) without validation
    (what `model_construct` does, for the fields the VM always sets in full)."""
    m = model.__new__(model)
    _set(m, "__dict__", fields)
    _set(m, "__pydantic_fields_set__", set(fields))
    _set(m, "__pydantic_extra__", None)
    _set(m, "__pydantic_private__", None)
    return m
