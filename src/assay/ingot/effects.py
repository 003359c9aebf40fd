"""What a function may do beyond computing its result, read from the program through mirx.

A function is *pure* (read-only, non-destructive, idempotent, closed-world in MCP's terms) when
nothing it may reach is an effect: an LLM function, a host callable (one can come in only
through a parameter whose type holds functions), or an effectful native (`baml.sys.*`, fs,
http, net, env, time, random, `baml.io.input`). Reach follows direct calls, methods (every user
method of the name), and every function made into a value (lambdas, function references): an
indirect call can reach only functions that became values somewhere in what is reached."""
from __future__ import annotations

from .schema import contains_function

EFFECT_PREFIXES = ("baml.sys.", "sys.", "baml.fs.", "fs.", "baml.http.", "http.", "baml.net.", "net.",
                   "baml.env.", "env.", "baml.time.", "time.", "baml.random.", "random.")
EFFECT_NAMES = frozenset({"baml.io.input", "io.input"})


def effectful_native(name: str) -> bool:
    return name in EFFECT_NAMES or name.startswith(EFFECT_PREFIXES)


def effects(fn) -> list[str]:
    """Why `fn` (a mirx FunctionView) is not pure, as short reasons; [] when it is pure."""
    prog = fn.program
    reasons: list[str] = []
    for p in fn.params:
        if contains_function(p.type):
            reasons.append(f"host callables (parameter `{p.name}`)")
    methods: dict[str, list] = {}
    for f in prog.functions(include_tests=False):
        if f.kind == "method":
            methods.setdefault(f.name, []).append(f)
    seen = {fn.fqn}
    work = [fn]
    while work:
        f = work.pop()
        try:
            blocks = f.blocks
        except Exception as e:  # noqa: BLE001 — what cannot be lowered is not known to be pure
            reasons.append(f"{f.fqn}: cannot be analysed ({type(e).__name__})")
            continue
        found = list(f.lambdas)
        for b in blocks:
            for s in b.statements:
                if s.kind == "assign" and s.rvalue.kind == "closure" and s.rvalue.target:
                    found.append(prog.function(s.rvalue.target))
                found += _functions_named(prog, s.operands)
            t = b.terminator
            if t.kind != "call":
                continue
            found += _functions_named(prog, t.operands)
            c = t.call
            if c.kind == "llm":
                reasons.append(f"LLM function {c.name.removeprefix('user.')}")
            elif c.kind == "function" and c.function is not None:
                found.append(c.function)
            elif c.kind == "builtin" and effectful_native(c.name or ""):
                reasons.append(f"{c.name}")
            elif c.kind == "method":
                found += methods.get((c.name or "").rsplit(".", 1)[-1], [])
        for g in found:
            if g.fqn not in seen:
                seen.add(g.fqn)
                work.append(g)
    return sorted(set(reasons))


def _functions_named(prog, operands) -> list:
    """The user functions that constant operands name (function values passed on)."""
    out = []
    for o in operands:
        ref = getattr(o.value, "fqn", None) if o.kind == "constant" else None
        if isinstance(ref, str) and not getattr(o.value, "builtin", False):
            try:
                out.append(prog.function(ref))
            except KeyError:
                pass
    return out
