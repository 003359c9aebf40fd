"""LLM client values (0.23.0's `openai.*`, `anthropic.Client`, `google.*`, `aws.BedrockClient`,
`typesafeai.Client`, `vercel.AiGatewayImageClient`, `claude_code.ClaudeCodeClient`,
`ai.clients.Retry`/`RoundRobin`/`Fallback`): plain data a `client` declaration or any code builds,
declared in sema/stdsigs.py. Their constructors are pure (no environment is read: `env.NAME` is a
`baml.env.Ref` kept as written); what would send or render a request belongs to the LLM layer
and is not run here."""
from __future__ import annotations

import json

from ...sema import stdsigs
from ..ops import BUILTIN_CLASSES, make_builtin
from ..values import JSON_ENTRY, OMITTED, BamlRaise, ClassInfo, typed_list, typed_map
from ._registry import function

for _fqn in stdsigs.CLIENT_DATA_CLASSES:
    BUILTIN_CLASSES.setdefault(_fqn, ClassInfo(_fqn, _fqn.rpartition(".")[2], list(stdsigs.STD_CLASSES[_fqn])))
BUILTIN_CLASSES.setdefault("baml.env.Ref", ClassInfo("baml.env.Ref", "Ref", ["name"]))
BUILTIN_CLASSES.setdefault("ai.errors.InvalidRequest", ClassInfo(
    "ai.errors.InvalidRequest", "InvalidRequest", ["provider", "status_code", "detail", "raw_body"]))


def _default(text: str | None) -> str:
    """A declared default as Python source: a JSON literal, or `env.NAME` (a new reference
    each time, as the engine evaluates the default per call)."""
    if text is not None and text.startswith("env."):
        return f"Ref({text[4:]!r})"
    return repr(None if text is None else json.loads(text))


def _constructor(fqn: str):
    """`X.new(…)`: each field its argument, or the declared default."""
    params = stdsigs.CLIENT_NEW[fqn]
    env = {"make": BUILTIN_CLASSES[fqn].py, "OMITTED": OMITTED, "Ref": BUILTIN_CLASSES["baml.env.Ref"].py}
    # a Python function whose parameters are BAML's (named arguments bind by them)
    exec(f"def new({', '.join(p + '=OMITTED' for p, _, _ in params)}):\n"
         f"    return make({', '.join(f'{_default(d)} if {p} is OMITTED else {p}' for p, _, d in params)})", env)
    return env["new"]


for _fqn in stdsigs.CLIENT_NEW:
    function(f"{_fqn}.new")(_constructor(_fqn))


def default_retry_judgment(failure) -> bool:
    """`Retry`'s default `retry_if`: every typed failure that passed the safety gate."""
    return True


@function("ai.clients.Retry.new")
def _retry_new(inner, max_attempts=OMITTED, retry_if=OMITTED, backoff=OMITTED):
    backoff = None if backoff is OMITTED else backoff
    retry_if = None if retry_if is OMITTED else retry_if
    return BUILTIN_CLASSES["ai.clients.Retry"].py(
        inner, 3 if max_attempts is OMITTED else max_attempts, retry_if or default_retry_judgment,
        backoff if backoff is not None else BUILTIN_CLASSES["ai.clients.Backoff"].py(250, 2, 10000))


@function("claude_code.ClaudeCodeClient.new")
def _claude_code_new(model=OMITTED, executable=OMITTED, cwd=OMITTED, timeout_ms=OMITTED, permission_mode=OMITTED,
                     harness_tools=OMITTED, mcp_servers=OMITTED, capture_wire=OMITTED):
    """Its fields are not in its parameters' order (`executable` first)."""
    def given(v, default):
        return default if v is OMITTED else v
    servers = given(mcp_servers, None)  # `mcp_servers ?? {}`
    return BUILTIN_CLASSES["claude_code.ClaudeCodeClient"].py(
        given(executable, "claude"), given(model, "haiku"), given(cwd, None), given(timeout_ms, 240000),
        given(permission_mode, "default"), given(harness_tools, typed_list([], ("string",))),
        typed_map({}, JSON_ENTRY) if servers is None else servers, given(capture_wire, True))


@function("ai.clients.RoundRobin.new")
def _round_robin_new(members):
    if not members:
        raise BamlRaise(make_builtin("ai.errors.InvalidRequest", provider="roundrobin", status_code=None,
                                     detail="RoundRobin needs at least one member", raw_body=None), panic=False)
    return BUILTIN_CLASSES["ai.clients.RoundRobin"].py(members, 0)


def _thinking(kind: str, budget):
    return BUILTIN_CLASSES["anthropic.ThinkingConfig"].py(kind, budget)


function("anthropic.ThinkingConfig.enabled")(lambda budget_tokens: _thinking("enabled", budget_tokens))
function("anthropic.ThinkingConfig.disabled")(lambda: _thinking("disabled", None))


def _choice(kind: str, name=None, parallel=OMITTED):
    return BUILTIN_CLASSES["anthropic.ToolChoice"].py(kind, name, None if parallel is OMITTED else parallel)


@function("anthropic.ToolChoice.auto")
def _auto(disable_parallel_tool_use=OMITTED):
    return _choice("auto", None, disable_parallel_tool_use)


@function("anthropic.ToolChoice.any")
def _any(disable_parallel_tool_use=OMITTED):
    return _choice("any", None, disable_parallel_tool_use)


@function("anthropic.ToolChoice.tool")
def _tool(name, disable_parallel_tool_use=OMITTED):
    return _choice("tool", name, disable_parallel_tool_use)


function("anthropic.ToolChoice.none")(lambda: _choice("none", None, None))


# ── `ai.Client`'s pure methods (`m_<name>` on the instance classes, as the VM calls methods) ──

def _provider_methods(fqn: str, provider: str) -> None:
    py = BUILTIN_CLASSES[fqn].py
    py.m_provider = lambda self: provider
    py.m_requested_model = lambda self: self.f_model


for _fqn, _provider in stdsigs.CLIENT_PROVIDERS.items():
    _provider_methods(_fqn, _provider)


def _first(self, name: str, empty: str):
    """A Fallback or RoundRobin answers as the member its next call goes to (RoundRobin:
    `counter` modulo the members; Fallback: the first), or its own name when it has none."""
    members = self.f_members
    if not members:
        return empty
    i = self.f_counter % len(members) if hasattr(self, "f_counter") else 0
    return getattr(members[i], "m_" + name)()


_RETRY = BUILTIN_CLASSES["ai.clients.Retry"].py
_RETRY.m_provider = lambda self: self.f_inner.m_provider()
_RETRY.m_requested_model = lambda self: self.f_inner.m_requested_model()
for _cls, _empty in (("ai.clients.RoundRobin", "round-robin"), ("ai.clients.Fallback", "fallback")):
    _py = BUILTIN_CLASSES[_cls].py
    _py.m_provider = lambda self, e=_empty: _first(self, "provider", e)
    _py.m_requested_model = lambda self, e=_empty: _first(self, "requested_model", e)
