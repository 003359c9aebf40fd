"""The mirx protocol: what an extension implements (below bex, importable without the compiler).

An extension has a compile half and a run half. The compile half sees each MIR node of a
function (`instrument` → compile-time data, `snippet` → Python code); the VM compiles the code
into an *instrumented variant* of the function, inline, beside the concrete values (SymCC's
"compile, don't interpret"). The run half is whatever that code calls, plus the run lifecycle.
The plain variant never contains any of it. docs/mirx.md is the full contract.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Code:
    """What an extension compiles in at one node; each part is Python source with placeholders
    (docs/mirx.md §4). `before` runs before the node's instructions, `after` once its
    destination holds the result (on a branch: first thing on each edge, with `{taken}`).
    `substitute` (calls only) is an expression evaluated before the call: None lets the call
    run; otherwise it must be a `(value, shadow)` pair that replaces the call's result."""
    before: str = ""
    after: str = ""
    substitute: str = ""


class Abort(BaseException):
    """Raised by extension code to stop a run (a budget ran out). Not an Exception: no BAML
    `catch`, no VM handler and no `except Exception` turns it into a panic."""


class Extension:
    """Subclass and override what you need; every method is optional.

    Code space: every run attaching extensions of the same types and `config()` shares one
    copy of the generated code, so compile-half results may depend only on the type and its
    config, never on a particular object; per-run data lives in the state `on_run_start`
    returns, which generated code reaches as `{state}`.
    """

    name = "extension"
    # True: a shadow slot beside every local (`{shadow}`, `{shadows[i]}`), passed through
    # calls and returns, with the concreteness guard generated around each snippet
    shadow = False

    def config(self):
        """A hashable: objects of one type with equal config share a code space."""
        return ()

    # ── compile half ──
    def instrument(self, fn, node, pcs: range):
        """Compile-time data for a node (its sidecar entry), or None."""
        return None

    def snippet(self, fn, node, data) -> "Code | str | None":
        """The code compiled in at `node` (a str is `Code(after=...)` for statements, calls
        and branches, `Code(before=...)` for the rest). Default: calls to the mirx 1 hooks
        below that the subclass overrides."""
        overridden = _overridden(type(self))
        k = node.kind
        if k == "entry" and "on_call" in overridden:
            return Code(before="{ext}.on_call({fn}, {params})")
        if k == "return" and "on_return" in overridden:
            return Code(before="{ext}.on_return({fn}, {result})")
        if k == "raise" and "on_raise" in overridden:
            return Code(before="{ext}.on_raise({fn}, {error})")
        if k == "branch" and "on_branch" in overridden:
            return Code(after="{ext}.on_branch({fn}, {data}, {taken})")
        if data is not None and "at" in overridden and k not in ("entry", "raise"):
            return Code(before="{ext}.at({fn}, {pc}, {data})")
        return None

    # ── run half ──
    def on_run_start(self, run: "Run"):
        """Called before a run; returns the run's state (`{state}` in snippets)."""
        return None

    def on_run_end(self, run: "Run", state) -> None:
        """Called after a run, also when it panicked or was aborted."""

    # mirx 1 hooks, kept as conveniences (each is a default snippet calling it)
    def at(self, fn: str, pc: int, data) -> None:
        pass

    def on_branch(self, fn: str, data, taken: bool) -> None:
        pass

    def on_call(self, fn: str, args: tuple) -> None:
        pass

    def on_return(self, fn: str, value) -> None:
        pass

    def on_raise(self, fn: str, error) -> None:
        pass


_HOOKS = ("at", "on_branch", "on_call", "on_return", "on_raise")


def _overridden(cls) -> frozenset:
    return frozenset(h for h in _HOOKS if getattr(cls, h) is not getattr(Extension, h))


class Run:
    """One run of a function, as one of its extensions sees it: `fqn`, `args` (run-time
    values), `counter_key(i)` (what `{counter}` slot i was made for). A shadowing extension
    sets `shadows` in on_run_start (one per parameter) and reads `result_shadow` in on_run_end."""

    def __init__(self, fqn: str, args, counters: list):
        self.fqn = fqn
        self.args = args
        self._counters = counters
        self.shadows: tuple | None = None
        self.result_shadow = None

    def counter_key(self, i: int):
        return self._counters[i]
