"""The handler behind `call_llm`: render the prompt, ask the client, check the answer."""
from __future__ import annotations

from ..bex.llmcall import LlmCallError, host_name, where
from ..sema import types as T
from . import outfmt
from .client import ask
from .prompt import PROMPT_SUFFIX, is_jinja, render_jinja, split_messages, uses_output_format


class _Info:
    __slots__ = ("name", "fdef", "ret", "test", "format", "format_error", "schema")


class LlmHandler:
    """`handler(fqn, args)` for `Runtime.llm`. `convert(value, type_test, where)` turns the
    client's answer into a BAML value of the return type (raising ValueError when it does not
    fit); `plain(value)` turns BAML values into plain Python data (jinja2 prompts)."""

    def __init__(self, program, client, convert, plain):
        self.program = program
        self.client = client
        self.convert = convert
        self.plain = plain
        self._info: dict[str, _Info] = {}

    def info(self, fqn: str) -> _Info:
        i = self._info.get(fqn)
        if i is None:
            p = self.program
            fdef = p.index.functions[fqn]
            i = _Info()
            i.name, i.fdef = host_name(fqn), fdef
            types = p.lowering.types
            i.ret, i.format, i.format_error = outfmt.for_function(types, fdef)
            i.test = p.type_test(fdef.namespace, fdef.decl.ret, outfmt.generics_of(fdef))
            i.schema = outfmt.json_schema(i.ret, outfmt.field_resolver(types))
            self._info[fqn] = i
        return i

    def render(self, fqn: str, args: list):
        i = self.info(fqn)
        body = i.fdef.decl.llm

        def fail():
            raise LlmCallError(i.name, f"the prompt of `{i.name}` uses ctx.output_format: {i.format_error}",
                               where(self.program.runtime, fqn))

        if hasattr(body.prompt, "parts"):
            if i.format_error is not None and uses_output_format(body.prompt):
                fail()
            text = self.program.runtime.plain.compile(fqn + PROMPT_SUFFIX)(*args)
        else:
            text = body.prompt.value
            if is_jinja(text):
                names = (["self"] if i.fdef.decl.has_self else []) + [p.name for p in i.fdef.decl.params]
                params = {n: self.plain(v) for n, v in zip(names, args)}
                try:
                    text = render_jinja(text, params, i.format, fail)
                except LlmCallError:
                    raise
                except Exception as e:  # noqa: BLE001 — a template error, reported with the function
                    raise LlmCallError(i.name, f"the prompt of `{i.name}` does not render: "
                                       f"{type(e).__name__}: {e}", where(self.program.runtime, fqn)) from None
        return split_messages(text)

    def __call__(self, fqn: str, args: list):
        i = self.info(fqn)
        prompt = self.render(fqn, args)
        answer = ask(self.client, i.name, prompt, i.schema)
        try:
            return self.convert(answer, i.test, f"answer of {i.name}")
        except ValueError as e:
            raise LlmCallError(i.name, f"the LLM client's answer for `{i.name}` does not fit its return "
                               f"type {T.show(i.ret)}: {e}", where(self.program.runtime, fqn)) from None
