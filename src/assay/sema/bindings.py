"""Which enclosing bindings a piece of code reads or writes, its own bindings (`let`, parameters,
patterns) resolved away: the engine's flow facts hinge on them. A variable a lambda mentions is
never narrowed; one a loop body writes holds its declared type at the loop's head."""
from __future__ import annotations

from ..syntax import ast

_SKIP = ("span", "ty")


def pattern_names(p) -> list[str]:
    """The names a pattern binds."""
    out, todo = [], [p]
    while todo:
        p = todo.pop()
        if isinstance(p, ast.PBind):
            out.append(p.name)
        elif isinstance(p, ast.POr):
            todo.extend(p.alts[:1])  # every alternative binds the same names
        elif isinstance(p, ast.PAnd):
            todo.extend(p.pats)
        elif isinstance(p, ast.PClass):
            for name, sub in p.fields:
                if sub is None:
                    out.append(name)
                else:
                    todo.append(sub)
        elif isinstance(p, ast.PArray):
            todo.extend(p.items)
            if p.rest_name:
                out.append(p.rest_name)
            if p.rest_pattern is not None:
                todo.append(p.rest_pattern)
    return out


class Scan:
    """Free reads and writes of the nodes scanned, with the names a lambda inside mentions."""

    def __init__(self):
        self.reads: set[str] = set()
        self.writes: set[str] = set()
        self.captured: set[str] = set()

    def node(self, n, bound: frozenset) -> None:
        while type(n) is ast.Binary:  # along the spine in a loop: chains may be long (`??` leans right)
            if type(n.left) is ast.Binary:
                self.node(n.right, bound)
                n = n.left
            else:
                self.node(n.left, bound)
                n = n.right
        if isinstance(n, ast.Name):
            if n.name not in bound:
                self.reads.add(n.name)
        elif isinstance(n, ast.Block):
            self.block(n.stmts, n.tail, bound)
        elif isinstance(n, ast.Lambda):
            inner = Scan()
            inner.block(n.body.stmts, n.body.tail, frozenset(p.name for p in n.params))
            for p in n.params:
                if p.default is not None:
                    self.node(p.default, bound)
            self.captured |= inner.reads | inner.writes | inner.captured  # of whichever scope
            self.reads |= inner.reads - bound
            self.writes |= inner.writes - bound
        elif isinstance(n, ast.Assign):
            if isinstance(n.target, ast.Name):
                if n.target.name not in bound:
                    self.writes.add(n.target.name)
            else:
                self.node(n.target, bound)
            self.node(n.value, bound)
        elif isinstance(n, ast.Let):
            self.node(n.value, bound)
            if n.else_block is not None:
                self.node(n.else_block, bound)
        elif isinstance(n, (ast.ForIn, ast.WhileLet, ast.IfLet)):
            self.node(n.iterable if isinstance(n, ast.ForIn) else n.value, bound)
            inner = bound | frozenset(pattern_names(n.pattern))
            self.node(n.then if isinstance(n, ast.IfLet) else n.body, inner)
            if isinstance(n, ast.IfLet) and n.else_ is not None:
                self.node(n.else_, bound)
        elif isinstance(n, ast.ForC):
            inner = bound
            if n.init is not None:
                self.node(n.init, bound)
                if isinstance(n.init, ast.Let):
                    inner = bound | frozenset(pattern_names(n.init.pattern))
            for part in (n.cond, n.update, n.body):
                if part is not None:
                    self.node(part, inner)
        elif isinstance(n, (ast.TFor, ast.TForC)):
            inner = bound
            if isinstance(n, ast.TFor):
                self.node(n.iterable, bound)
                inner = bound | frozenset(pattern_names(n.pattern))
            elif n.init is not None:
                self.node(n.init, bound)
                if isinstance(n.init, ast.Let):
                    inner = bound | frozenset(pattern_names(n.init.pattern))
            for part in ((n.cond, n.update) if isinstance(n, ast.TForC) else ()) + (n.parts,):
                if part is not None:
                    self.node(part, inner)
        elif isinstance(n, ast.MatchArm):
            inner = bound | frozenset(pattern_names(n.pattern))
            if n.guard is not None:
                self.node(n.guard, inner)
            self.node(n.body, inner)
        elif isinstance(n, ast.Catch):
            self.node(n.expr, bound)
            inner = bound | {n.binding} | ({n.ctx} if n.ctx else set())
            for arm in n.arms:
                self.node(arm, inner)
        elif isinstance(n, (list, tuple)):
            for x in n:
                self.node(x, bound)
        elif hasattr(n, "__dataclass_fields__") and type(n).__module__ == ast.__name__:
            for k, v in vars(n).items():
                if k not in _SKIP:
                    self.node(v, bound)

    def block(self, stmts, tail, bound: frozenset) -> None:
        for s in stmts:
            self.node(s, bound)
            if isinstance(s, ast.Let):  # binds for the statements after it
                bound = bound | frozenset(pattern_names(s.pattern))
        if tail is not None:
            self.node(tail, bound)


def captured(body: ast.Block | None) -> frozenset:
    """The names of enclosing bindings a lambda (or `spawn`) in `body` mentions."""
    s = Scan()
    if body is not None:
        s.node(body, frozenset())
    return frozenset(s.captured)


def written(body) -> set[str]:
    """The names of enclosing bindings `body` assigns (in a lambda inside too)."""
    s = Scan()
    s.node(body, frozenset())
    return s.writes
