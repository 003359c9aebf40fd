"""LLM client values (0.23.0's `openai.*`, `anthropic.Client`, `google.*`, `aws.BedrockClient`,
`ai.clients.Retry`/`RoundRobin`/`Fallback`): plain data a `client` declaration or any code builds.
Their constructors are pure (no environment is read: `env.NAME` is a `baml.env.Ref` kept as
written); what would send or render a request belongs to the LLM layer and is not run here."""
from __future__ import annotations

import inspect
import json

from ...sema import stdsigs
from ..ops import BUILTIN_CLASSES
from ..values import BamlRaise, ClassInfo, OMITTED
from ._registry import function
from ..ops import make_builtin

for _fqn, _fields in stdsigs.STD_CLASSES.items():
    if _fqn in stdsigs.CLIENT_NEW or _fqn in stdsigs.CLIENT_CLASSES or _fqn.startswith(("anthropic.", "ai.")):
        BUILTIN_CLASSES.setdefault(_fqn, ClassInfo(_fqn, _fqn.rpartition(".")[2], list(_fields)))
BUILTIN_CLASSES.setdefault("baml.env.Ref", ClassInfo("baml.env.Ref", "Ref", ["name"]))
BUILTIN_CLASSES.setdefault("ai.errors.InvalidRequest", ClassInfo(
    "ai.errors.InvalidRequest", "InvalidRequest", ["provider", "status_code", "detail", "raw_body"]))


def _constructor(fqn: str):
    """`X.new(…)`: each field its argument, or the declared default (a literal)."""
    info = BUILTIN_CLASSES[fqn]
    defaults = [None if d is None else json.loads(d) for _, _, d in stdsigs.CLIENT_NEW[fqn]]
    n = len(defaults)

    def new(*args):
        vals = list(args) + [OMITTED] * (n - len(args))
        return info.py(*[d if v is OMITTED else v for v, d in zip(vals, defaults)])
    new.__signature__ = inspect.Signature([inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                                           for p, _, _ in stdsigs.CLIENT_NEW[fqn]])  # named arguments bind by it
    return new


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
