"""Lowering `reflect`: `reflect.Type.of<T>()` becomes a descriptor constant (sema/reflect.py)
made a type value by the native `$type_of`; `reflect.Type.of_value(v)` the native
`$type_of_value`. Any other `reflect.*` name is a located "not supported yet".

Type arguments at run time: a generic free function that reifies its type parameters (its
body, lambdas included, asks `reflect.Type.of<…T…>()`, or calls such a function) takes one
hidden trailing parameter `$targs`, the descriptors of its type arguments in declaration
order. A direct call passes them (written, or inferred from the arguments' static types), made
from the caller's own `$targs` where they mention the caller's type parameters. A call that
passes none (through a function value, or from the host) leaves them unknown."""
from __future__ import annotations

from ..sema import reflect as R
from ..sema.reflect import walk
from ..sema import types as T
from ..syntax import ast

TARGS = "$targs"  # the hidden parameter's name
# the pure static constructors, each a native `$<name>` (bex/stdlib/reflect.py)
CONSTRUCTORS = {"reflect.Map.new": ("key", "value"), "reflect.Union.new": ("types",),
                "reflect.Literal.new": ("value",), "reflect.Enum.get_value": ("value",),
                "reflect.Package.compile": ("files", "packages"), "reflect.Session.new": ("packages",)}
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


def mentions(te, names: set) -> bool:
    return any(isinstance(n, ast.TName) and len(n.path) == 1 and n.path[0] in names for n in walk(te))


class Reifying:
    """Which generic free functions take `$targs` (memoised; a cycle counts as not)."""

    def __init__(self, index):
        self.index = index
        self._memo: dict[int, bool] = {}

    def __call__(self, fdef) -> bool:
        k = id(fdef)
        if k not in self._memo:
            self._memo[k] = False  # while busy: a recursive call adds nothing
            self._memo[k] = self._reifies(fdef)
        return self._memo[k]

    def _reifies(self, fdef) -> bool:
        d = fdef.decl
        if fdef.owner is not None or not d.generics or d.body is None:
            return False
        names = {g.name for g in d.generics}
        for n in walk(d.body):
            if not isinstance(n, ast.Call):
                continue
            path = call_path_of(n)
            if path == ["reflect", "Type", "of"] and any(mentions(ta, names) for ta in n.type_args):
                return True
            if path is not None and path[0] != "reflect":
                item = self.index.lookup(fdef.namespace, path)
                if type(item).__name__ == "FunctionDef" and item is not fdef and self(item):
                    return True
        return False


def infer_targs(generics: list[str], params: list[T.Type], args: list) -> dict:
    """Type arguments a call binds through its positional arguments' static types."""
    env: dict = {}
    for pt, a in zip(params, args):
        at = getattr(a, "ty", None)
        if at is not None:
            _bind(pt, T.widen(at), env, set(generics))
    return env


def _bind(pt, at, env: dict, names: set) -> None:
    if isinstance(pt, T.TVar):
        if pt.name in names and pt.name not in env and at is not T.UNKNOWN and at is not T.NEVER:
            env[pt.name] = at
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


def unsupported_type(t: T.Type, te) -> bool:
    """A type reflection cannot describe yet: one the resolver leaves (partly) unknown though
    the program did not write `unknown` (stdlib interfaces, `json`, media types)."""
    return _unknown_in(t) and not any(isinstance(n, ast.TName) and n.path == ["unknown"] for n in walk(te))


def _unknown_in(t) -> bool:
    if t is T.UNKNOWN:
        return True
    if isinstance(t, T.Arr):
        return _unknown_in(t.elem)
    if isinstance(t, T.MapT):
        return _unknown_in(t.key) or _unknown_in(t.val)
    if isinstance(t, T.Union):
        return any(_unknown_in(m) for m in t.members)
    if isinstance(t, (T.ClassT, T.IfaceT)):
        return any(_unknown_in(a) for a in t.args)
    if isinstance(t, T.FuncT):
        return (_unknown_in(t.ret) or any(_unknown_in(p) for _, p, _ in t.params)
                or (t.throws is not None and _unknown_in(t.throws)))
    return False


def describe_written(te, resolver, index, ns, generics, tparams: tuple) -> tuple:
    """The descriptor of type expression `te` (in namespace `ns`) as written: a union named
    by an alias stays one member of an enclosing union (`Id?` has members `Id` and `null`, as
    the engine lists them; rendering and equality flatten it)."""
    return _written(te, _Ctx(resolver, index, tparams), ns, generics)[0]


class _Ctx:
    def __init__(self, resolver, index, tparams):
        self.resolver, self.index, self.tparams = resolver, index, tparams


def _written(te, cx: _Ctx, ns, generics) -> tuple[tuple, bool]:
    """(descriptor, whether it is an alias's union)."""
    if isinstance(te, (ast.TOptional, ast.TUnion)):
        parts = ([_written(te.inner, cx, ns, generics), (R.NULL, False)] if isinstance(te, ast.TOptional)
                 else [_written(m, cx, ns, generics) for m in te.members])
        if any(alias for _, alias in parts):
            return _keep(parts), False
    item = cx.index.lookup(ns, te.path) if isinstance(te, ast.TName) and not te.args else None
    if type(item).__name__ == "AliasDef" and isinstance(item.type, (ast.TUnion, ast.TOptional, ast.TName)):
        d, _ = _written(item.type, cx, item.namespace, frozenset())
        return d, d[0] == "union"
    return R.describe(cx.resolver.resolve(te, ns, generics), cx.tparams), False


def _keep(members: list) -> tuple:
    """A written union: members flattened, except an alias's union, duplicates dropped."""
    out, seen = [], set()
    for d, alias in members:
        for x in ((d,) if alias or d[0] != "union" else d[1]):
            k = R.key(x)
            if k not in seen:
                seen.add(k)
                out.append(x)
    return out[0] if len(out) == 1 else ("union", tuple(out))
