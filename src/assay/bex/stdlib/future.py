"""`baml.future`: a future's state and cancellation, and the combinator `all` (bex/futures.py
runs the spawned blocks)."""
from __future__ import annotations

from .. import futures, ops
from ..futures import Future
from ..values import BamlRaise, EnumInfo
from ._registry import _KIND_OF, METHODS, STD_ENUMS, function, method

STATE = EnumInfo("baml.future.State", "State", ["Pending", "Ready", "Error", "Cancelled"])
STD_ENUMS[STATE.fqn] = STATE

METHODS.setdefault("future", {})
_KIND_OF[Future] = "future"


@method("future")
def cancel(self):
    return futures.cancel(self)


@method("future")
def is_settled(self):
    return self.done


@method("future")
def is_cancelled(self):
    return self.cancelled


@method("future")
def is_result(self):
    return self.done and self.error is None


@method("future")
def is_error(self):
    return self.done and self.error is not None and not self.cancelled


@method("future")
def state(self):
    name = ("Pending" if not self.done else "Cancelled" if self.cancelled
            else "Error" if self.error is not None else "Ready")
    return STATE.variants[name]


# `spawn with …`'s modifiers (bex/futures.py)
METHODS.setdefault("cancel_token", {})
METHODS.setdefault("limit", {})
_KIND_OF[futures.CancelToken] = "cancel_token"
_KIND_OF[futures.Limit] = "limit"


@function("baml.spawn.CancelToken.new")
def cancel_token_new():
    return futures.CancelToken()


@function("baml.spawn.CancelToken.any")
def cancel_token_any(tokens):
    out = futures.CancelToken()
    for t in tokens:
        if t.cancelled:
            out.cancelled = True
        t.derived.append(out)
    return out


@method("cancel_token", "cancel")
def token_cancel(self):
    return self.cancel()


@method("cancel_token", "is_cancelled")
def token_is_cancelled(self):
    return self.cancelled


@function("baml.spawn.Limit.new")
def limit_new(capacity):
    if capacity <= 0:
        ops.throw_error("InvalidArgument", message=f"baml.spawn.Limit.new: capacity must be positive, got {capacity}")
    return futures.Limit(capacity)


@function("baml.spawn.Root.new")
def root_new():
    return futures.Root()


@method("limit")
def capacity(self):
    return self.capacity


@method("limit")
def active_count(self):
    return min(self.capacity, self.unsettled())


@method("limit")
def queued_count(self):
    return max(0, self.unsettled() - self.capacity)


@function("baml.future.all")
def all_(futures_):
    """Every value in input order; the first typed error (in input order) cancels the rest and
    is rethrown; a panic passes through."""
    def run():
        out = []
        for f in futures_:
            try:
                out.append(futures.await_(f))
            except BamlRaise as e:
                if not e.panic:
                    for g in futures_:
                        futures.cancel(g)
                raise
        return out
    return futures.spawn(run)
