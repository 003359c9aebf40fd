"""`spawn { … }` and `await f` (baml.future) on one thread. The engine runs spawned blocks
concurrently, in an order that varies from run to run; Assay fixes one of its orders: a block
does not start at `spawn`, and awaiting a future runs the blocks spawned until then, in spawn
order, up to the awaited one. A block's error is thrown by `await`."""
from __future__ import annotations

import threading
from functools import partial

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


class CancelToken:
    """The handle of a `baml.spawn.CancelToken` (stdlib/future.py): once cancelled, the futures
    spawned with it that have not run never run (awaiting one panics `Cancelled`), nor does one
    spawned with it later; a token made by `any` of others is cancelled with the first of them."""
    __slots__ = ("cancelled", "futures", "derived")
    BAML_TEXT = "<rust_data>"

    def __init__(self):
        self.cancelled = False
        self.futures: list[Future] = []
        self.derived: list[CancelToken] = []

    def cancel(self) -> int:
        if self.cancelled:
            return 0
        self.cancelled = True
        for f in self.futures:
            cancel(f)
        self.futures = []
        for t in self.derived:
            t.cancel()
        return 1


class Limit:
    """The handle of a `baml.spawn.Limit`: at most `capacity` of its tasks at a time. Tasks here
    run one by one when awaited, so the counts are the engine's before it runs them: the first
    `capacity` unsettled ones hold a slot, the rest wait."""
    __slots__ = ("capacity", "futures")
    BAML_TEXT = "<rust_data>"

    def __init__(self, capacity: int):
        self.capacity = capacity
        self.futures: list[Future] = []

    def unsettled(self) -> int:
        self.futures = [f for f in self.futures if not f.done]
        return len(self.futures)


ROOT = "baml.spawn.Root"  # the task outlives its spawner's cancellation (none cancels it here)


def start(plan) -> Future:
    """`__spawn(plan)`: the task of a `baml.spawn.Plan` (stdlib/future.py) once its modifiers
    have applied: its body, waiting on its limits, cancelled by its tokens (`root`: nothing
    here cancels a spawner, so nothing to do)."""
    f = Future(plan.f_body)
    tokens = [t.f__handle for t in plan.f_cancel_tokens]
    for lim in plan.f_limits:
        if f not in lim.f__handle.futures:  # a limit listed twice takes one slot
            lim.f__handle.futures.append(f)
    if any(t.cancelled for t in tokens):
        f.fn = partial(_never_starts, f)  # pending until the queue reaches it, as the engine's
    else:
        for t in tokens:
            t.futures.append(f)
    _queue().append(f)
    return f


def _never_starts(f: Future):
    """A task spawned with a cancelled token: it settles `Cancelled` without running."""
    f.cancelled = True
    raise BamlRaise(make_builtin("baml.panics.Cancelled", message="operation cancelled"), panic=True)


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
