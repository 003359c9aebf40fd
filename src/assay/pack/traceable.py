"""`pack.traceable`: a BAML function as a region `torch.compile(fullgraph=True)` traces without
graph breaks: wrapped in `torch.compiler.nonstrict_trace`, dynamo sees one opaque call and AOT
autograd traces the tensor operations the run performs. Tensors captured by closures would
become constants there, so the parameters and buffers of `modules` are lifted into inputs of the
region (`torch.func.functional_call` over a module holding them all): host closures that read
`model.weight` get gradients."""
from __future__ import annotations

import torch

from .. import mirx
from .planner import PackError


class _Guard(mirx.Extension):
    """Refuses what must never run inside a traced region (it runs several times at compile
    time and not at all at run time): LLM functions and printing."""

    name = "pack-guard"
    _PRINT = {"baml.io.print", "baml.io.println", "baml.io.eprint", "baml.io.eprintln"}

    def instrument(self, fn, node, pcs):
        if node.kind == "call" and (node.call.kind == "llm" or node.call.name in self._PRINT):
            what = "an LLM function" if node.call.kind == "llm" else "printing"
            return f"{node.span}: pack.traceable cannot run {what} (`{node.call.name}`): a traced region " \
                   f"runs several times while compiling and never at run time"
        return None

    def snippet(self, fn, node, data):
        return mirx.Code(substitute="{ext}.refuse({data})") if data is not None else None

    @staticmethod
    def refuse(message: str):
        raise PackError(message)


class _Holder(torch.nn.Module):
    def __init__(self, modules):
        super().__init__()
        self.mods = torch.nn.ModuleList(modules)

    def forward(self, run, kwargs):
        return run(kwargs)


def _check_result(v, where: str):
    if isinstance(v, torch.Tensor):
        return v
    if isinstance(v, (list, tuple)):
        return type(v)(_check_result(x, where) for x in v)
    if isinstance(v, dict):
        return {k: _check_result(x, where) for k, x in v.items()}
    raise PackError(f"{where}: pack.traceable returns tensors or lists / maps of tensors, "
                    f"not {type(v).__name__} (a traced region's outputs must be tensors)")


def traceable(program, function: str, host: dict, modules=()):
    """`function` as a callable (keyword arguments, classes as dicts, as `prog.call`) whose
    body `torch.compile` traces as one opaque non-strict region."""
    view = program if isinstance(program, mirx.ProgramView) else mirx.view(program)
    fv = view.function(function)
    holder = _Holder(list(modules))
    names = [n for n, _ in holder.named_parameters()] + [n for n, _ in holder.named_buffers()]
    guard = _Guard()
    host = dict(host)

    def run(kwargs):
        result = view.call(function, {**kwargs, **host}, extensions=[guard])
        return _check_result(result, fv.fqn)

    @torch.compiler.nonstrict_trace
    def region(tensors, kwargs):
        return torch.func.functional_call(holder, dict(zip(names, tensors)), (run, kwargs))

    def call(**kwargs):
        tensors = [p for _, p in holder.named_parameters()] + [b for _, b in holder.named_buffers()]
        return region(tensors, kwargs)

    call.__name__ = fv.name
    return call
