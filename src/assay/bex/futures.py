"""`spawn { … }` and `await f` (baml.future) on one thread. The engine runs spawned blocks
concurrently, in an order that varies from run to run; Assay fixes one of its orders: a block
does not start at `spawn`, and awaiting a future runs the blocks spawned until then, in spawn
order, up to the awaited one. A block's error is thrown by `await`."""
from __future__ import annotations

import threading

from .ops import make_builtin
from .values import BamlRaise

_pending = threading.local()


class Future:
    __slots__ = ("fn", "done", "value", "error", "cancelled")

    def __init__(self, fn):
        self.fn = fn
        self.done = False
        self.value = None
        self.error: BamlRaise | None = None
        self.cancelled = False

    def run(self) -> None:
        try:
            self.value = self.fn()
        except BamlRaise as e:
            self.error = e
        self.done = True


def _queue() -> list:
    q = getattr(_pending, "q", None)
    if q is None:
        q = _pending.q = []
    return q


def spawn(fn) -> Future:
    f = Future(fn)
    _queue().append(f)
    return f


def await_(f):
    q = _queue()
    while not f.done and q:
        q.pop(0).run()
    if not f.done:  # spawned on another thread's queue: run it here
        f.run()
    if f.error is not None:
        raise f.error
    return f.value


def cancel(f: Future) -> bool:
    """`f.cancel()`: a future not yet settled (here: not yet run) never runs; awaiting it panics
    `baml.panics.Cancelled`. False where it had settled already."""
    if f.done:
        return False
    q = _queue()
    if f in q:
        q.remove(f)
    f.error = BamlRaise(make_builtin("baml.panics.Cancelled", message="operation cancelled"), panic=True)
    f.cancelled = f.done = True
    return True
