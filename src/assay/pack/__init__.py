"""assay.pack — packing: a per-sample BAML function evaluated with its tensors missing, the
residual host calls of many samples run as one batched PyTorch computation (docs/packing.md).

    plan = pack.plan(prog, "CenterRectangle", samples, host={"crop": crop, …})
    losses = plan.run()                   # per-sample results, autograd intact; plan.stats
    step = pack.traceable(prog, "Fn", host, modules=[model])   # for torch.compile(fullgraph=True)

A consumer built on mirx and sym's conventions alone; needs PyTorch (`pip install 'assay[torch]'`).
"""
from __future__ import annotations

try:
    import torch  # noqa: F401
except ImportError as e:  # pragma: no cover — exercised by a subprocess test
    raise ImportError("assay.pack needs PyTorch: pip install 'assay[torch]' (torch>=2.14,<2.15)") from e

from .plan import Host, Plan, plan
from .planner import Missing, PackError
from .traceable import traceable

__all__ = ["plan", "Plan", "Host", "PackError", "Missing", "traceable"]
