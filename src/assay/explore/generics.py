"""Generic functions at their declared bounds: before arguments are synthesised, each type
parameter of the function becomes one concrete type (docs/explore.md, "Generic functions").

- `<T extends C>` with C a class, enum or other concrete type: T := C (a value of C satisfies
  the bound, and BAML has no subclasses). The engine (0.23.0) accepts interface bounds only
  (E0145), and so does Assay's checker: only a view built past it has such bounds.
- builtin interfaces (`baml.ops.Compare`, `baml.ops.Equals`, `baml.Hash`, `baml.ToString`, or
  several with `&`): T := the first of int, string, bool, float implementing every bound.
- a user interface: T := its first implementing type (a class or a builtin type; the others
  are a choice not explored).
- no bound (`unknown`): T := int.

Where T could have been more than one type, only that one is explored: the verdict is then at
most `incomplete` (`choices` says which type parameters were such a choice)."""
from __future__ import annotations

from typing import NamedTuple

from .. import mirx

# the builtin interfaces and, in the order explore prefers them, the types that implement them
# (as the engine runs them: a call with these argument types type-checks and runs)
BUILTIN_INTERFACES = {
    "baml.ops.Compare": ("int", "string", "bool", "float"),
    "baml.ops.Equals": ("int", "string", "bool", "float"),
    "baml.Hash": ("int", "string", "bool", "float"),
    "baml.ToString": ("int", "string", "bool", "float"),
}
UNBOUNDED = "int"


class Instantiation(NamedTuple):
    types: dict  # type parameter → TypeView
    choices: tuple  # the type parameters that had other possible types (not explored)
    reason: str | None  # why no instantiation exists (the function is skipped), else None


def instantiate(view: mirx.ProgramView, fv: mirx.FunctionView) -> Instantiation:
    types, choices = {}, []
    for g in fv.generics:
        candidates = _candidates(view, g)
        if not candidates:
            names = " & ".join(g.bound_names)
            return Instantiation({}, (), f"type parameter {g.name} extends {names}: no type known to implement it")
        types[g.name] = candidates[0]
        if len(candidates) > 1 or not g.bounds:
            choices.append(g.name)
    return Instantiation(types, tuple(choices), None)


def _candidates(view: mirx.ProgramView, g) -> list:
    """The types T may be, in the order explore prefers them."""
    if not g.bounds:
        return [view.primitive(UNBOUNDED)]
    out = None
    for name, bound in zip(g.bound_names, g.bounds):
        kinds = _implementers(view, name, bound)
        out = kinds if out is None else [k for k in out if k in kinds]
    return out or []


def _implementers(view: mirx.ProgramView, name: str, bound) -> list:
    """The types implementing one bound: a builtin interface's, a user interface's implementing
    types, or a concrete type itself."""
    if name in BUILTIN_INTERFACES:
        return [view.primitive(k) for k in BUILTIN_INTERFACES[name]]
    if bound.kind == "interface":
        return bound.implementors
    if bound.kind in ("unknown", "typevar"):  # an interface Assay cannot resolve
        return []
    return [bound]


def param_types(fv: mirx.FunctionView, inst: Instantiation) -> dict:
    """Each parameter's type, the type parameters replaced by their instantiation and each
    interface by the union of its implementing types."""
    return {p.name: (p.type.substitute(inst.types) if inst.types else p.type).closed()
            if p.type is not None else None for p in fv.params}
