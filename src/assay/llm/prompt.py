"""Rendering an LLM function's prompt.

A backtick prompt is compiled as a hidden function `<fqn>@prompt` with the LLM function's
parameters (`prompt_block` gives its body): `ctx.output_format()` becomes the rendered output
format (a constant), `role(name)` a marker, so the template renders with BAML's own semantics.
A `"…"` prompt is sent as written, or rendered with jinja2 when it holds `{{`/`{%` (BAML's classic
prompts: the parameters by name, `ctx.output_format`, `_.role("user")`).

The rendered text splits into chat messages at the role markers as the engine's `ai.Prompt` does:
without a marker, one "system" message holding the text unchanged; with markers, the text before
the first one is a "system" message when it is not blank, and every message's content is stripped.
`Prompt` (a str: the engine's `Prompt.text()`, `[role]` headers) carries them as `.messages`."""
from __future__ import annotations

from ..syntax import ast

ROLE_START, ROLE_END = "\x00assay-role:", "\x00"
PROMPT_SUFFIX = "@prompt"


class Prompt(str):
    """The rendered prompt as text (`[role]\\ncontent` blocks joined by blank lines); `.messages`
    is the list of {"role", "content"} it was made of."""
    messages: list

    def __new__(cls, messages: list):
        self = super().__new__(cls, "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages))
        self.messages = messages
        return self


def split_messages(text: str) -> Prompt:
    pieces = text.split(ROLE_START)
    if len(pieces) == 1:
        return Prompt([{"role": "system", "content": text}])
    msgs = []
    if pieces[0].strip():
        msgs.append({"role": "system", "content": pieces[0].strip()})
    for p in pieces[1:]:
        role, _, content = p.partition(ROLE_END)
        msgs.append({"role": role, "content": content.strip()})
    return Prompt(msgs)


def uses_output_format(prompt) -> bool:
    if isinstance(prompt, ast.StrLit):
        return "output_format" in prompt.value
    found = []

    def walk(parts):
        for p in parts:
            if isinstance(p, ast.LlmOutputFormat):
                found.append(p)
            elif isinstance(p, ast.TIf):
                for _, ps in p.branches:
                    walk(ps)
                walk(p.else_parts or [])
            elif isinstance(p, (ast.TFor, ast.TForC)):
                walk(p.parts)
    walk(prompt.parts if isinstance(prompt, ast.Template) else [])
    return bool(found)


def prompt_block(body: ast.LlmBody, output_format: str | None) -> ast.Block:
    """The body of `<fqn>@prompt`: the prompt template with the LLM nodes replaced (a copy: the
    checked AST stays as it is)."""
    def part(p):
        if isinstance(p, ast.LlmOutputFormat):
            return output_format if output_format is not None else ""
        if isinstance(p, ast.LlmRole):
            t = ast.Template(p.span, [ROLE_START, p.name, ROLE_END])
            t.ty = None
            return t
        if isinstance(p, ast.TIf):
            return ast.TIf(p.span, [(c, parts(ps)) for c, ps in p.branches],
                           None if p.else_parts is None else parts(p.else_parts))
        if isinstance(p, ast.TFor):
            return ast.TFor(p.span, p.pattern, p.iterable, parts(p.parts))
        if isinstance(p, ast.TForC):
            return ast.TForC(p.span, p.init, p.cond, p.update, parts(p.parts))
        return p

    def parts(ps):
        return [part(p) for p in ps]

    tpl = body.prompt
    value = ast.Template(tpl.span, parts(tpl.parts)) if isinstance(tpl, ast.Template) else tpl
    value.ty = None
    return ast.Block(body.span, [], value)


# ── jinja2 ("…" prompts holding `{{`/`{%`) ──


class _OutputFormat(str):
    """`ctx.output_format` renders as the text; `ctx.output_format(...)` too (options ignored)."""

    def __call__(self, *args, **kwargs):
        return str(self)


class _Ctx:
    def __init__(self, output_format, fail):
        self._of = output_format
        self._fail = fail

    @property
    def output_format(self):
        if self._of is None:
            self._fail()
        return _OutputFormat(self._of)


class _Underscore:
    @staticmethod
    def role(name, **_):
        return f"{ROLE_START}{name}{ROLE_END}"


_ENV = None


def is_jinja(text: str) -> bool:
    return "{{" in text or "{%" in text


def render_jinja(text: str, params: dict, output_format: str | None, fail) -> str:
    global _ENV
    import jinja2  # the template engine of BAML's classic prompts, loaded for the first one
    if _ENV is None:
        _ENV = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False,
                                  keep_trailing_newline=True)
    ns = dict(params)
    ns["ctx"] = _Ctx(output_format, fail)
    ns["_"] = _Underscore()
    return _ENV.from_string(text).render(ns)
