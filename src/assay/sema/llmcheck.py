"""Checks of LLM functions and `client` declarations (BAML 0.23.0), mixed into the checker.

An LLM function's body is `Block([], LlmCall)`: its value has the declared return type. What the
engine checks and Assay reproduces: the `client:` value is a Selector ("provider/model" strings are
validated by the parser; names must resolve; numbers, booleans and null are mismatched types), the
prompt template's expressions type-check with `ctx.output_format()` and `role(name)` bound, a bare
`ctx.output_format` must be called, and a declared `throws` narrower than what an LLM call may throw
(stdlib errors) is E0096."""
from __future__ import annotations

from ..syntax import ast
from . import types as T
from .program import FunctionDef

SELECTOR = "ai.clients.Selector"
# what an LLM call may throw, in the engine's words (E0096 on a narrower declared `throws`)
LLM_THROWS = "baml.errors.InvalidArgument"


class LlmChecks:
    """Checker methods for the LLM nodes (the checker dispatches on `x_<node class>`)."""

    def x_LlmCall(self, e, expected):
        fd: FunctionDef | None = getattr(self, "llm_fn", None)
        if fd is None or fd.decl.llm is None:
            return T.UNKNOWN
        body = fd.decl.llm
        self.llm_client(body.client, fd)
        if body.tools is not None:
            self.llm_loose(body.tools)
        if isinstance(body.prompt, ast.Template):
            self.scopes.append({"ctx": self.llm_var("ctx"), "role": self.llm_var("role")})
            self.llm_bare_ctx(body.prompt.parts)
            self.expr(body.prompt, T.UNKNOWN)
            self.scopes.pop()
        d = fd.decl
        if d.throws is not None:
            thrown = self.resolve(d.throws, report=False)
            if all(m is not T.UNKNOWN and not (isinstance(m, T.Prim) and m.name == "unknown")
                   for m in T.members(thrown)):
                self.err(body.span, "E0096", f"declared throws is `{T.show(thrown)}`, but this function "
                         f"may also throw `{LLM_THROWS}`")
        return self.fn.ret if self.fn is not None else T.UNKNOWN

    def llm_var(self, name: str):
        v = self.var_class(name, T.UNKNOWN)
        v.used = True
        return v

    def x_LlmOutputFormat(self, e, expected):
        return T.STRING

    def x_LlmRole(self, e, expected):
        self.expr(e.name, T.STRING)
        return T.STRING

    def llm_bare_ctx(self, parts) -> None:
        for p in parts:
            if isinstance(p, ast.Field) and p.name == "output_format" and isinstance(p.obj, ast.Name) \
                    and p.obj.name == "ctx":
                self.err(p.span, "E0001", "`output_format` must be called; use `output_format()`")
            elif isinstance(p, ast.TIf):
                for _, ps in p.branches:
                    self.llm_bare_ctx(ps)
                self.llm_bare_ctx(p.else_parts or [])
            elif isinstance(p, (ast.TFor, ast.TForC)):
                self.llm_bare_ctx(p.parts)

    def llm_client(self, c, fd: FunctionDef) -> None:
        if c is None or isinstance(c, ast.StrLit):
            return
        if isinstance(c, (ast.IntLit, ast.FloatLit, ast.BoolLit, ast.NullLit)):
            t = self.expr(c, T.UNKNOWN)
            self.err(c.span, "E0001", "mismatched types", f"expected `{SELECTOR}`, found `{T.show(t)}`")
            return
        if isinstance(c, ast.Name):
            if self.lookup_var(c.name) is not None:
                self.expr(c, T.UNKNOWN)
                return
            decl = client_decl(self.index, fd.namespace, c.name)
            if decl is not None:
                v = decl.value
                if isinstance(v, (ast.IntLit, ast.FloatLit, ast.BoolLit)):
                    t = T.widen(self.expr(v, T.UNKNOWN))
                    self.err(c.span, "E0001", "mismatched types", f"expected `{SELECTOR}`, found `{T.show(t)}`")
                return
            self.expr(c, T.UNKNOWN)  # a user item, a package root, or E0003 unresolved name
            return
        self.llm_loose(c)

    def llm_loose(self, e) -> None:
        """An expression over the engine's `ai` packages (unknown to Assay): only a call of a bare
        name that is nothing at all is reported (E0003)."""
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Name):
            name = e.func.name
            if self.lookup_var(name) is None and self.index.items_in(self.ns).get(name) is None \
                    and client_decl(self.index, self.ns, name) is None and name not in _ROOTS:
                self.err(e.func.span, "E0003", f"unresolved name: `{name}`")

_ROOTS = frozenset("ai openai anthropic google vertex bedrock ollama openrouter typesafeai env baml".split())


def client_decl(index, namespace, name: str):
    for f in index.files:
        if (f.source.namespace or None) == namespace:
            for c in getattr(f, "clients", ()):
                if c.name == name:
                    return c
    return None
