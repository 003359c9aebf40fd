"""The stdlib interfaces a user class implements, as signatures: an `implements baml.X { … }`
block's methods conform to them (E0120) and belong to them (E0115), as the engine checks.

Written here as BAML declarations (signatures only, not the stdlib's code) and parsed once by
Assay's own parser; `Self.X` names the block's associated type `X`.
"""
from __future__ import annotations

from functools import lru_cache

from ..source import SourceFile
from ..syntax import ast
from ..syntax.parser import parse_file
from .program import FunctionDef, InterfaceDef

_OPS = {"Add": "add", "Subtract": "sub", "Multiply": "mul", "Divide": "div", "Remainder": "rem",
        "BitAnd": "bit_and", "BitOr": "bit_or", "BitXor": "bit_xor", "ShiftLeft": "shl",
        "ShiftRight": "shr"}

_SOURCE = {
    "baml.ToString": "function to_string(self) -> string throws never;",
    "baml.ToJson": "function to_json(self) -> baml.json.json throws baml.json.SerializationError;",
    "baml.FromJson": "function from_json(j: baml.json.json) -> Self throws baml.json.DecodeError;",
    "baml.Hash": "function hash(self, state: baml.hash.Hasher) -> void throws never;",
    "baml.ops.Equals": """function eq(self, other: Self) -> bool throws never;
        function neq(self, other: Self) -> bool throws never;""",
    "baml.ops.Compare": """function cmp(self, other: Self) -> baml.ops.Ordering throws never;
        function lt(self, other: Self) -> bool throws never;
        function le(self, other: Self) -> bool throws never;
        function gt(self, other: Self) -> bool throws never;
        function ge(self, other: Self) -> bool throws never;
        function max(self, other: Self) -> Self throws never;
        function min(self, other: Self) -> Self throws never;
        function clamp(self, min: Self, max: Self) -> Self throws never;""",
    **{f"baml.ops.{k}": f"function {m}(self, rhs: Rhs) -> Self.Output throws never;"
       for k, m in _OPS.items()},
    "baml.ops.Negate": "function neg(self) -> Self.Output throws never;",
    "baml.iter.Iterable": "function iter(self) -> baml.iter.Iterator<Item = Self.Item, Error = Self.Error> throws never;",
    "baml.iter.Iterator": "function next(self) -> Self.Item | baml.iter.Done throws Self.Error;",
    "baml.hash.Hasher": """function write(self, bytes: uint8array) -> void throws never;
        function finish(self) -> int throws never;""",
    "ai.Client": """function requested_model(self) -> string throws never;
        function provider(self) -> string throws never;
        function render(self, input: ai.ModelTurnInput) -> baml.http.Request throws ai.errors.InvokeError;
        function invoke(self, input: ai.ModelTurnInput) -> ai.ModelTurn throws ai.errors.InvokeError;
        function default_cache_args(self) -> baml.json.json throws never;""",
}
_GENERIC = {f"baml.ops.{k}": "<Rhs>" for k in _OPS}

# the methods an implementation must define (the others have defaults: `eq` compares fields,
# `to_string` renders them, Compare's `lt` … `clamp` go through `cmp`)
_REQUIRED = {"baml.ops.Compare": ("cmp",), "baml.Hash": ("hash",), "baml.ops.Negate": ("neg",),
             "baml.iter.Iterator": ("next",), "baml.iter.Iterable": ("iter",),
             "baml.FromJson": ("from_json",), "baml.hash.Hasher": ("write", "finish"),
             "ai.Client": ("requested_model", "provider", "render", "invoke"),
             **{f"baml.ops.{k}": (m,) for k, m in _OPS.items()}}

# members an implementation may also define (default methods whose signatures are not listed)
_ALSO = {"baml.iter.Iterator": "map filter filter_map flat_map step_by chain peekable take skip "
                               "take_while skip_while collect reduce count for_each some every find"}


@lru_cache(maxsize=None)
def _parsed(name: str) -> InterfaceDef | None:
    body = _SOURCE.get(name)
    if body is None:
        return None
    short = name.rsplit(".", 1)[-1]
    f, _ = parse_file(SourceFile("<stdlib>", f"interface {short}{_GENERIC.get(name, '')} {{ {body} }}"))
    decl = next(d for d in f.items if isinstance(d, ast.InterfaceDecl))
    decl.generics.append(ast.Generic(decl.span, "Self"))  # the implementing type, substituted per block
    idef = InterfaceDef(name, name, None, decl, f)
    idef.methods = {m.name: FunctionDef(f"{name}.{m.name}", m.name, None, m, idef, f) for m in decl.methods}
    return idef


def declared(name: str) -> InterfaceDef | None:
    """Stdlib interface `name` (`baml.ToString`) with its method signatures, or None where
    Assay does not list them."""
    return _parsed(name)


def is_member(name: str, method: str) -> bool:
    """Whether `method` may appear in an `implements name` block (True where unlisted)."""
    idef = _parsed(name)
    return idef is None or method in idef.methods or method in _ALSO.get(name, "").split()


def required(name: str) -> tuple:
    """The methods an `implements name` block must define."""
    return _REQUIRED.get(name, ())
