"""`baml.errors.Context`: what `catch (e, ctx)` binds — the caught error, the BAML frames it
passed through, and its cause: the context of the error that was being handled (in a catch
arm or a defer's unwind pad) when it was thrown, as Python's `__context__`.

Handlers track what they handle only in programs that read contexts (the lowerer emits
`$handling_enter` / `$handling_exit` then): a frame's list of the contexts its handler bodies
are handling, indexed by the handlers' lexical depth. An error's cause is fixed when it is
first caught: the innermost frame of the stack it was thrown from that was handling one.
Rethrowing (no arm matched, a defer's pad) raises the same Python exception: its cause and
frames go on with it."""
from __future__ import annotations

import sys
from collections import deque

from . import ops, values
from .values import BamlRaise, BigInt, ClassInfo, Instance, TypedList, TypedMap, Variant
from .stdlib._registry import function
from .stdlib.render import TO_STRING_OVERRIDES, quote, render, render_float

CONTEXT = "baml.errors.Context"
STACK_TRACE = "baml.errors.StackTrace"
STACK_FRAME = "baml.errors.StackFrame"
ops.BUILTIN_CLASSES.setdefault(CONTEXT, ClassInfo(CONTEXT, "Context", ["error", "stack_trace", "cause", "_frames"]))
ops.BUILTIN_CLASSES.setdefault(STACK_TRACE, ClassInfo(STACK_TRACE, "StackTrace", ["frames"]))
ops.BUILTIN_CLASSES.setdefault(STACK_FRAME, ClassInfo(STACK_FRAME, "StackFrame", ["file", "line", "function_name"]))
_CTX = ops.BUILTIN_CLASSES[CONTEXT].py

SEPARATOR = "\n\nDuring handling of the above error, another error occurred:\n\n"
MAX_DEPTH = 32  # containers nested deeper render as `…` (the engine's budgets)
MAX_NODES = 256

_handling: dict = {}  # frame → contexts its handler bodies handle, by lexical depth
_caught: deque = deque(maxlen=64)  # recently caught errors (rethrow raises the same one)


def caught(e: BamlRaise) -> None:
    """A handler caught `e`: fix its cause (once) and remember it for a rethrow."""
    if not e.seen:
        e.seen = True
        if _handling:
            e.cause = _find_cause(e)
    _caught.append(e)


def _find_cause(e: BamlRaise):
    frames = []
    tb = e.__traceback__
    while tb is not None:
        frames.append(tb.tb_frame)
        tb = tb.tb_next
    found = None
    for f in reversed(frames):
        st = _handling.get(f)
        if st:
            found = st[-1]
            break
    if found is None and frames:
        f = frames[0].f_back
        while f is not None and found is None:
            st = _handling.get(f)
            found = st[-1] if st else None
            f = f.f_back
    for f in frames[1:]:  # unwound: those frames are gone
        _handling.pop(f, None)
    return found


def rethrown(v) -> BamlRaise:
    """The error a rethrow of `v` raises: the caught one itself where it is known."""
    for e in reversed(_caught):
        if e.value is v:
            return e
    return BamlRaise(v, isinstance(v, Instance) and v._class.fqn.startswith("baml.panics."))


def context_of(frames_of, v):
    """The context of the caught error whose value is `v` (`frames_of(e)`: its BAML frames)."""
    for e in reversed(_caught):
        if e.value is v:
            return make_context(v, e.cause, frames_of(e))
    return make_context(v, None, [])


def make_context(error, cause, frames) -> Instance:
    """`frames`: (function, file, line) of each BAML frame the error passed, outermost first."""
    trace = ops.make_builtin(STACK_TRACE, frames=[
        ops.make_builtin(STACK_FRAME, file=file, line=line, function_name=fqn) for fqn, file, line in frames])
    return ops.make_builtin(CONTEXT, error=error, stack_trace=trace, cause=cause, _frames=frames)


def handling_enter(depth: int, ctx) -> None:
    """A handler body at lexical `depth` of the calling frame starts handling `ctx`."""
    st = _handling.setdefault(sys._getframe(1), [])
    del st[depth:]
    st.append(ctx)


def handling_exit(depth: int) -> None:
    f = sys._getframe(1)
    st = _handling.get(f)
    if st is not None:
        del st[depth:]
        if not st:
            del _handling[f]


# ── the context's methods ──

def _root_cause(self):
    c = self
    while c.f_cause is not None:
        c = c.f_cause
    return c


def _to_string(self) -> str:
    chain = []
    c = self
    while c is not None:
        chain.append(c)
        c = c.f_cause
    return SEPARATOR.join(_one(c) for c in reversed(chain))


def _traceback(frames) -> list[str]:
    return ["Traceback (most recent call last):"] + [
        f'  File "{file}", line {line}, in {fqn}' for fqn, file, line in frames or ()]


def _one(c) -> str:
    lines = _traceback(c.f__frames)
    err = c.f_error
    lines.append(err if type(err) is str else structural(err))
    return "\n".join(lines)


_CTX.m_root_cause = _root_cause
_CTX.m_to_string = _to_string
ops.BUILTIN_CLASSES[STACK_TRACE].py.m_to_string = lambda self: "\n".join(
    _traceback((f.f_function_name, f.f_file, f.f_line) for f in self.f_frames))


def structural(v) -> str:
    """An error value as the engine renders it in a context: classes by their full name and
    fields (never a `baml.ToString` override), cycles and what is past the budgets as `…`."""
    out: list[str] = []
    _Struct(out).value(v, 0, ())
    return "".join(out)


class _Struct:
    def __init__(self, out: list[str]):
        self.out = out
        self.nodes = 0

    def value(self, v, depth: int, stack: tuple) -> None:
        self.nodes += 1
        t = type(v)
        w = self.out.append
        if t is str:
            w(quote(v))
        elif t is bool:
            w("true" if v else "false")
        elif t is int or t is BigInt:
            w(str(int(v)))
        elif t is float:
            w(render_float(v))
        elif v is None:
            w("null")
        elif t is Variant:
            w(f"{v.enum.fqn}.{v.name}")
        elif any(x is v for x in stack):
            w("…")
        elif t is list or t is TypedList:
            self.items("[", "]", [(None, x) for x in v], depth, stack + (v,))
        elif t is dict or t is TypedMap:
            self.items("{", "}", [(quote(str(ops.unkey(k))) + ": ", x) for k, x in v.items()], depth, stack + (v,))
        elif isinstance(v, Instance):
            info = v._class
            fields = [(f + ": ", getattr(v, "f_" + f, None)) for f in info.fields]
            if not fields:
                w(info.fqn)
            else:
                w(info.fqn + " ")
                self.items("{ ", " }", fields, depth, stack + (v,), "{ … }")
        else:
            w(render(v))

    def items(self, open_: str, close: str, items: list, depth: int, stack: tuple, elided=None) -> None:
        w = self.out.append
        if depth >= MAX_DEPTH:
            w(elided or open_ + "…" + close)
            return
        w(open_)
        for i, (label, x) in enumerate(items):
            if self.nodes >= MAX_NODES:  # each container cut short ends in `…`
                w(", …" if i else "…")
                break
            if i:
                w(", ")
            if label:
                w(label)
                if open_ == "{":  # a map's key is a node too
                    self.nodes += 1
            self.value(x, depth + 1, stack)
        w(close)


# ── baml.errors.UnknownError: the universal wrapper of errors of no known class ──

UNKNOWN_ERROR = "baml.errors.UnknownError"
ops.BUILTIN_CLASSES.setdefault(UNKNOWN_ERROR, ClassInfo(UNKNOWN_ERROR, "UnknownError", ["data", "message"]))
_UNKNOWN = ops.BUILTIN_CLASSES[UNKNOWN_ERROR]
TO_STRING_OVERRIDES[_UNKNOWN] = lambda self: "UnknownError: " + "".join(
    m + ": " for m in self.f_message or ()) + render(self.f_data)
MAX_ADOPTED = 64


@function("baml.errors.UnknownError.from")
def unknown_from(T, data):
    return _unknown(T, data, None)


@function("baml.errors.UnknownError.with_message")
def unknown_with_message(T, data, message):
    return _unknown(T, data, message)


def _unknown(T, data, message):
    """A `T` as itself; an UnknownError wrapping a `T` as that `T`; another UnknownError as
    itself (`message` appended); anything else wrapped. The result, thrown, carries on the
    context `data` was caught with."""
    if T.test(data):
        out = data
    elif type(data) is _UNKNOWN.py and T.test(data.f_data):
        out = data.f_data
    elif type(data) is _UNKNOWN.py:
        if message is not None:
            data.f_message = list(data.f_message or ()) + [message]
        out = data
    else:
        out = _UNKNOWN.new(data, [] if message is None else [message])
    _preserve_context(data, out)
    return out


def _preserve_context(source, target) -> None:
    for e in reversed(_caught):
        if e.value is source:
            if len(values.ADOPTED) >= MAX_ADOPTED:
                values.ADOPTED.pop(next(iter(values.ADOPTED)))
            values.ADOPTED[id(target)] = (target, e)  # (the pair keeps `target`'s id its own)
            return


def baml_traceback(rt, exc: BaseException) -> list[tuple[str, str, int]]:
    """The BAML frames an error passed through, outermost first: (fqn, file, line); `rt` is
    the vm.Runtime whose generated code it passed through."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        info = rt.trace_lines.get(tb.tb_frame.f_code)
        if tb.tb_next is not None and tb.tb_next.tb_frame is tb.tb_frame:
            info = None  # rethrown where it was caught: the frame's first entry says where
        if info is not None:
            fqn, file, lines = info
            # generated functions carry extension wrappers (try:) — map through the line table
            py_line = tb.tb_lineno - tb.tb_frame.f_code.co_firstlineno
            line = lines[py_line] if 0 <= py_line < len(lines) else 0
            frames.append((fqn, file, line))
        tb = tb.tb_next
    return frames
