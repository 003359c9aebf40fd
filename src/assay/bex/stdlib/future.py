"""`baml.future`: a future's state and cancellation, and the combinator `all` (bex/futures.py
runs the spawned blocks)."""
from __future__ import annotations

from .. import futures, ops
from ..futures import Future
from ..values import OMITTED, BamlRaise, ClassInfo, EnumInfo
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


PLAN_FIELDS = ["body", "name", "limits", "cancel_tokens", "root"]
# `spawn with …`'s modifiers: instances of the stdlib's classes, a token's and a limit's state
# in their `_handle` (bex/futures.py)
for _fqn, _fields in (("baml.spawn.CancelToken", ["_handle"]), ("baml.spawn.Limit", ["_handle"]),
                      (futures.ROOT, []), ("baml.spawn.Plan", PLAN_FIELDS)):
    ops.BUILTIN_CLASSES.setdefault(_fqn, ClassInfo(_fqn, _fqn.rpartition(".")[2], _fields))
_TOKEN = ops.BUILTIN_CLASSES["baml.spawn.CancelToken"]
_LIMIT = ops.BUILTIN_CLASSES["baml.spawn.Limit"]
_TOKEN.py.m_cancel = lambda self: self.f__handle.cancel()
_TOKEN.py.m_is_cancelled = lambda self: self.f__handle.cancelled
_LIMIT.py.m_capacity = lambda self: self.f__handle.capacity
_LIMIT.py.m_active_count = lambda self: min(self.f__handle.capacity, self.f__handle.unsettled())
_LIMIT.py.m_queued_count = lambda self: max(0, self.f__handle.unsettled() - self.f__handle.capacity)


_PLAN = ops.BUILTIN_CLASSES["baml.spawn.Plan"]


# `spawn with m1, m2 { body }` runs as the engine's `__spawn(Plan.new(body).with(m1).with(m2))`:
# each modifier is evaluated, then applied, before the next (a throw from `apply` is the spawn's,
# the modifiers to its right never evaluated); the plan the last returns starts (futures.start).
@function("baml.spawn.Plan.new")
def plan_new(body, name=None):
    return _PLAN.new(body, None if name is OMITTED else name, [], [], False)


def plan_apply(plan, modifier):
    """`plan.with(modifier)`: `modifier.apply(plan)` (a user class implementing
    `baml.spawn.Modifier`, or a token, a limit, a `Root`)."""
    apply = getattr(modifier, "m_apply", None)
    if apply is None:
        ops.throw_error("InvalidArgument", message="spawn modifier does not implement baml.spawn.Modifier")
    out = apply(plan)
    if type(out) is not _PLAN.py:  # (the engine's checker rejects such an `apply`; Assay's types no `Plan.new`)
        ops.throw_error("InvalidArgument", message="spawn modifier's apply returned no baml.spawn.Plan")
    return out


def _plan_with(plan, **changed):
    """A copy of `plan` (`Plan { ...plan, … }`)."""
    out = _PLAN.new(*(getattr(plan, "f_" + f) for f in PLAN_FIELDS))
    for f, v in changed.items():
        setattr(out, "f_" + f, v)
    return out


def _plan_wrap(plan, wrapper):
    body = plan.f_body
    return _plan_with(plan, body=lambda: wrapper(body))


_PLAN.py.m_wrap = _plan_wrap
_PLAN.py.m_with = plan_apply
_TOKEN.py.m_apply = lambda self, plan: _plan_with(plan, cancel_tokens=plan.f_cancel_tokens + [self])
_LIMIT.py.m_apply = lambda self, plan: _plan_with(plan, limits=plan.f_limits + [self])
ops.BUILTIN_CLASSES[futures.ROOT].py.m_apply = lambda self, plan: _plan_with(plan, root=True)


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
