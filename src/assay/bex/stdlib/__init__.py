"""The BAML standard library as Python natives over the run-time value model.

    METHODS[kind][name] -> Native     kind: 'int' 'float' 'string' 'bool' 'null' 'array' 'map'
    FUNCTIONS[qualname] -> Native     'int.parse', 'string.from', 'Array.filled', 'assert.equal', ...
    Native(name, fn, sig, type_params) methods: fn(receiver, *args); functions: fn(*args);
                                      parameter names are BAML's (named arguments bind by them);
                                      sig is sema's declaration (assay.sema.stdsigs); a function
                                      with type_params n takes its n type arguments first
                                      (typeargs.TypeArg)
    kind_of(v)                        receiver kind of a run-time value
    render(v)                         string.from / `${v}` rendering
    ORDERING                          the baml.ops.Ordering enum (LESS, EQUAL, GREATER variants)
    STD_ENUMS                         every stdlib enum a program may name, by fqn

Hooks the VM fills for user classes with explicit interface implementations:
ops.EQ_OVERRIDES (baml.ops.Equals), ops.CMP_OVERRIDES (baml.ops.Compare),
render.TO_STRING_OVERRIDES (baml.ToString) — each ClassInfo -> Python callable.
"""
from ._registry import (  # noqa: F401
    EQUAL, FUNCTIONS, GREATER, KINDS, LESS, METHODS, ORDER_VARIANTS, ORDERING, STD_ENUMS, Native,
    function, kind_of, method, native_param_names, native_value_params,
)
from . import containers, core, io, numbers, strings, uint8array  # noqa: F401,E402  (registration)
from . import future, hashing, iters, jsonlib, jsontyped, jsonschema, randomlib, reflect, regexlib  # noqa: F401,E402  (registration)
from . import cryptolib, csvfmt, timelib, tomlfmt, yamllib  # noqa: F401,E402  (registration: data formats)
from . import testing  # noqa: F401,E402  (registration: testsets and runners)
from . import clients  # noqa: F401,E402  (registration: LLM client values)
from .render import TO_STRING_OVERRIDES, quote, render, render_float, rust_float  # noqa: F401,E402

__all__ = ["METHODS", "FUNCTIONS", "Native", "kind_of", "render", "ORDERING", "LESS", "EQUAL",
           "GREATER", "TO_STRING_OVERRIDES"]
