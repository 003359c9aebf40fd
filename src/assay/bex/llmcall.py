"""The run-time side of LLM functions: the `llm(fqn, args)` helper every code space holds.

An LLM function's body is one `call_llm` instruction; its generated code calls `llm(fqn, args)`,
which hands the call to the runtime's LLM handler (`Runtime.llm`, installed by `assay.llm` from a
client callable or a replay file). Without one the call fails with `NoLlmClient`, a host-level
error (not a BAML throw: `catch` cannot swallow it) naming the function."""
from __future__ import annotations


class LlmCallError(Exception):
    """An LLM function could not be answered (no client, a bad answer, a replay run dry)."""

    def __init__(self, function: str, message: str, where: str | None = None):
        self.function = function  # the host name: `F`, `ns.F`, `Cls.m`
        self.where = where        # `file:line:col` of the function, when known
        super().__init__(message)


class NoLlmClient(LlmCallError):
    """An LLM function was called and no LLM client was given."""


def host_name(fqn: str) -> str:
    """`user.ns.F` → `ns.F` (the name `assay run` and replay files use)."""
    return fqn[5:] if fqn.startswith("user.") else fqn


def where(rt, fqn: str) -> str | None:
    mir = rt.mir.get(fqn)
    span = getattr(mir, "span", None)
    if span is None:
        return None
    line, col = span.line_col
    return f"{span.file.path}:{line}:{col}"


def call_llm(rt, fqn: str, args: list):
    handler = rt.llm
    if handler is None:
        name = host_name(fqn)
        at = where(rt, fqn)
        raise NoLlmClient(name, f"no LLM client for LLM function `{name}`"
                          + (f" ({at})" if at else "")
                          + ": give answers with --llm-replay FILE.json, or a client with "
                            "assay.load(path, llm=callable) / prog.set_llm(callable)", at)
    return handler(fqn, args)
