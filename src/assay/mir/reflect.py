"""Lowering `reflect`: `reflect.Type.of<T>()` becomes a descriptor constant (sema/reflect.py)
made a type value by the native `$type_of`; `reflect.Type.of_value(v)` the native
`$type_of_value`. Any other `reflect.*` name is a located "not supported yet".

Type arguments at run time: a generic function that reifies its type parameters (`Reifying`)
takes one hidden trailing parameter `$targs`, the descriptors of its type arguments in
declaration order. A direct call passes them (written, or inferred from the arguments' static
types), made from the caller's own `$targs` where they mention the caller's type parameters;
a specialized function value (`id<int>`) carries them. A call that passes none (through an
unspecialized function value, from the host) leaves them unknown. A method of a generic class
reads its class's from its receiver: in its body `$targs` is the class's type arguments, then
its own (its hidden parameter `$own_targs`). A lambda whose signature mentions a type parameter
carries its maker's `$targs` (`$fn_targs`): `reflect.signature`, `call_any` and function-type
tests see it at them."""
from __future__ import annotations

from ..sema import reflect as R
from ..sema.reflect import describe_written, walk  # noqa: F401  (describe_written: lowering's)
from ..sema import stdsigs
from ..sema import types as T
from ..sema.interfaces import call_generics
from ..syntax import ast

TARGS = "$targs"  # the hidden parameter's name
OWN_TARGS = "$own_targs"  # a generic class's method's own
# the pure static constructors, each a native `$<name>` (bex/stdlib/reflect.py)
CONSTRUCTORS = {"reflect.Map.new": ("key", "value"), "reflect.Union.new": ("types",),
                "reflect.Literal.new": ("value",), "reflect.Enum.get_value": ("value",),
                "reflect.Package.compile": ("files", "packages"), "reflect.Session.new": ("packages",),
                "reflect.Package.current": (), "reflect.Class.builder": ("name",), "reflect.signature": ("f",), "reflect.call_any": ("f", "args"),
                "reflect.Class.new": ("name", "fields", "implementations"), "reflect.Enum.new": ("name", "values"),
                "reflect.Enum.value": ("name", "alias", "description", "docstring", "other")}
# `reflect.AnyClass.get<T>`/`find<T>` and `reflect.class.Field.value<T>`: reads checked against T
TYPED_READS = frozenset(("get", "find", "value"))


def call_path_of(e: ast.Call) -> list[str] | None:
    """`a.b.c(…)` as ['a', 'b', 'c'] (None when the callee is no dotted name)."""
    parts, f = [], e.func
    while isinstance(f, ast.Field) and not f.optional:
        parts.append(f.name)
        f = f.obj
    if not isinstance(f, ast.Name):
        return None
    parts.append(f.name)
    return parts[::-1]


class Reifying:
    """Which generic functions need their type arguments at run time (memoised; a cycle
    counts as not): those whose body, lambdas included, reifies a type parameter (`x is T`, a
    typed pattern on T, `decode<T>`, `reflect.Type.of<T>()`, `Box<T> { … }`, `f<T>(…)`, a
    lambda typed by T) or calls such a function. `__call__`: takes the hidden `$targs` (its own type parameters);
    `reads`: needs `$targs` in its body (a method of a generic class: also its class's, from
    the receiver)."""

    def __init__(self, index):
        self.index = index
        self._memo: dict[int, tuple[bool, bool]] = {}

    def __call__(self, fdef) -> bool:
        return self._scan(fdef)[0]

    def reads(self, fdef) -> bool:
        own, cls = self._scan(fdef)
        return own or cls

    def _scan(self, fdef) -> tuple[bool, bool]:
        k = id(fdef)
        if k not in self._memo:
            self._memo[k] = (False, False)  # while busy: a recursive call adds nothing
            self._memo[k] = self._reifies(fdef)
        return self._memo[k]

    def _reifies(self, fdef) -> tuple[bool, bool]:
        d = fdef.decl
        owner = class_generics(fdef)
        gens = call_generics(fdef)
        if (not gens and not owner) or d.body is None:
            return False, False
        own, cls = {g.name for g in gens}, set(owner)
        got: set = set()
        for n in walk(d.body):
            got |= reified_names(n, own | cls)
            if isinstance(n, ast.Call) and self._calls_reifying(fdef, n):
                got |= own | cls
            if own <= got and cls <= got:
                break
        return bool(own & got), bool(cls & got)

    def _calls_reifying(self, fdef, n: ast.Call) -> bool:
        path = call_path_of(n)
        if path is None or path[0] == "reflect":
            return False
        item = self.index.lookup(fdef.namespace, path)
        return type(item).__name__ == "FunctionDef" and item is not fdef and self(item)


def class_generics(fdef) -> tuple:
    """The type parameters of a method's generic class (its receiver carries them), or of the
    generic interface whose default method it is (the receiver's class's impl binds them)."""
    o = fdef.owner
    if o is None or type(o).__name__ not in ("ClassDef", "InterfaceDef") or not fdef.decl.has_self:
        return ()
    return tuple(g.name for g in o.decl.generics)


def reified_names(n, names: set) -> set:
    """The type parameters among `names` that AST node `n` needs at run time."""
    tes: list = []
    if isinstance(n, (ast.PType, ast.PClass)) or (isinstance(n, ast.PBind) and n.type is not None):
        tes.append(n.type)
    elif isinstance(n, ast.Call):
        tes += n.type_args
        for t in getattr(n, "std_targs", None) or ():
            if T.has_tvar(t):
                return set(names)  # inferred from a type parameter: which one is not said
    elif isinstance(n, ast.ClassLit):
        tes.append(n.type)
        if not n.type.args:  # `Box { v: x }`, x of type T: the instance records T
            ts = [getattr(v, "ty", None) for _, v in n.entries]
            if any(t is not None and T.has_tvar(t) for t in ts):
                return set(names)
    elif isinstance(n, (ast.Name, ast.Field)):
        tes += getattr(n, "type_args", None) or ()  # `id<T>` as a value
    elif isinstance(n, ast.ArrayLit) and getattr(n, "reify_elem", False):
        return set(names)  # `[]` as a `T[]` records T (which one is not said)
    elif isinstance(n, ast.Lambda) and lambda_reifies(n, names):
        return set(names)  # its signature is at its maker's type arguments (`reflect.signature`)
    return {x.path[0] for te in tes for x in walk(te)
            if isinstance(x, ast.TName) and len(x.path) == 1 and x.path[0] in names}


def lambda_reifies(n: ast.Lambda, names) -> bool:
    """A lambda whose signature (as the checker typed it, or its written `-> R`) mentions one
    of type parameters `names`: its value carries its maker's type arguments."""
    ft = getattr(n, "ty", None)
    return isinstance(ft, T.FuncT) and T.has_tvar(ft) or n.ret is not None and any(
        isinstance(x, ast.TName) and len(x.path) == 1 and x.path[0] in names for x in walk(n.ret))


def infer_targs(generics: list[str], params: list[T.Type], args: list) -> dict:
    """Type arguments a call binds through its positional arguments' static types."""
    env: dict = {}
    for pt, a in zip(params, args):
        at = _arg_type(a, pt)
        if at is not None:
            _bind(pt, T.widen_scalar(at), env, set(generics))
    return env


_BOOL_OPS = frozenset(("==", "!=", "<", "<=", ">", ">=", "&&", "||"))


def _arg_type(a, pt):
    """An argument's type as it binds type parameters: a literal's first item's for `T[]` or
    `map<K, T>` (the checker typed the literal at the parameter's type), a comparison of
    literals (typed by no literal) `bool`."""
    if isinstance(a, ast.ArrayLit) and a.items and isinstance(pt, T.Arr) and isinstance(pt.elem, T.TVar):
        at = getattr(a.items[0], "ty", None)
        return T.Arr(T.widen_scalar(at)) if at is not None else None
    if isinstance(a, ast.MapLit) and a.entries and isinstance(pt, T.MapT) and isinstance(pt.val, T.TVar):
        at = getattr(a.entries[0][1], "ty", None)
        return T.MapT(pt.key, T.widen_scalar(at)) if at is not None else None
    at = getattr(a, "ty", None)
    if at is None and isinstance(a, ast.Binary) and a.op in _BOOL_OPS:
        return T.BOOL
    return at


def bind_expected(ret, expected, env: dict, names: set) -> None:
    """Type arguments a call's expected type binds through the function's return type."""
    _bind(ret, expected, env, names)


def _bind(pt, at, env: dict, names: set) -> None:
    if isinstance(pt, T.TVar):
        if pt.name in names and pt.name not in env and at is not T.UNKNOWN and at is not T.NEVER:
            env[pt.name] = T.widen_scalar(at)  # `["a"]` for `xs: T[]` binds string, as `"a"` for `x: T`
    elif isinstance(pt, T.Arr) and isinstance(at, T.Arr):
        _bind(pt.elem, at.elem, env, names)
    elif isinstance(pt, T.MapT) and isinstance(at, T.MapT):
        _bind(pt.key, at.key, env, names)
        _bind(pt.val, at.val, env, names)
    elif isinstance(pt, (T.ClassT, T.IfaceT)) and type(at) is type(pt) and len(pt.args) == len(at.args):
        for p, a in zip(pt.args, at.args):
            _bind(p, a, env, names)
    elif isinstance(pt, T.Union) and T.NULL in pt.members:
        rest = T.strip_null(pt)
        _bind(rest, T.strip_null(at), env, names)


def unsupported_type(desc: tuple, te) -> bool:
    """A type reflection cannot describe yet: its descriptor is (partly) unknown though the
    program did not write `unknown` (a stdlib type Assay does not describe)."""
    return R.has_unknown(desc) and not any(isinstance(n, ast.TName) and (n.path == ["unknown"] or "unknown" in
                                                                         stdsigs.STD_ALIASES.get(".".join(n.path), ""))
                                           for n in walk(te))  # `testing.TestBody`: `throws unknown`


