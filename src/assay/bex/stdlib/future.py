"""`baml.future`: a future's state and cancellation, and the combinator `all` (bex/futures.py
runs the spawned blocks)."""
from __future__ import annotations

from .. import futures, ops
from ..futures import Future
from ..values import BamlRaise, ClassInfo, EnumInfo
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


# `spawn with …`'s modifiers: instances of the stdlib's classes, a token's and a limit's state
# in their `_handle` (bex/futures.py)
for _fqn, _fields in (("baml.spawn.CancelToken", ["_handle"]), ("baml.spawn.Limit", ["_handle"]),
                      (futures.ROOT, [])):
    ops.BUILTIN_CLASSES.setdefault(_fqn, ClassInfo(_fqn, _fqn.rpartition(".")[2], _fields))
_TOKEN = ops.BUILTIN_CLASSES["baml.spawn.CancelToken"]
_LIMIT = ops.BUILTIN_CLASSES["baml.spawn.Limit"]
_TOKEN.py.m_cancel = lambda self: self.f__handle.cancel()
_TOKEN.py.m_is_cancelled = lambda self: self.f__handle.cancelled
_LIMIT.py.m_capacity = lambda self: self.f__handle.capacity
_LIMIT.py.m_active_count = lambda self: min(self.f__handle.capacity, self.f__handle.unsettled())
_LIMIT.py.m_queued_count = lambda self: max(0, self.f__handle.unsettled() - self.f__handle.capacity)


@function("baml.spawn.CancelToken.new")
def cancel_token_new():
    return _TOKEN.new(futures.CancelToken())


@function("baml.spawn.CancelToken.any")
def cancel_token_any(tokens):
    out = futures.CancelToken()
    for t in tokens:
        t = t.f__handle
        if t.cancelled:
            out.cancelled = True
        t.derived.append(out)
    return _TOKEN.new(out)


@function("baml.spawn.Limit.new")
def limit_new(capacity):
    if capacity <= 0:
        ops.throw_error("InvalidArgument", message=f"baml.spawn.Limit.new: capacity must be positive, got {capacity}")
    return _LIMIT.new(futures.Limit(capacity))


@function("baml.spawn.Root.new")
def root_new():
    return ops.BUILTIN_CLASSES[futures.ROOT].new()


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
