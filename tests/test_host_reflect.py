"""`reflect.signature` and `reflect.call_any` of host callables (Python callables passed where a
function type is declared), on both engines (the engine asked at test time). Programs:
tests/programs/ns_reflect3/host_reflect.baml."""
from __future__ import annotations

import pytest


def _engine(engine, fn, args):
    import baml_bridge as bb
    try:
        return bb.call_function_sync(engine.rt, f"reflect3.{fn}", args).result()
    except BaseException as e:  # noqa: BLE001 — a panic too; compared as its class and message
        return f"{type(e).__name__}: {getattr(e, 'class_name', '')}"


def _assay(prog, fn, args):
    try:
        return prog.call(f"reflect3.{fn}", **args)
    except BaseException as e:  # noqa: BLE001
        return f"{type(e).__name__}: {getattr(e, 'class_name', '')}"


def _add(x, y):
    return x + len(y)


def _boom(x):
    raise ValueError("no")


CASES = [
    ("HrSig", lambda: {"f": _add}),
    ("HrSigAnon", lambda: {"f": lambda x: x}),
    ("HrSigOpt", lambda: {"f": lambda x, y=None: x}),
    ("HrSigThrows", lambda: {"f": lambda s: True}),
    ("HrSigField", lambda: {"h": {"f": lambda x: "s"}}),
    ("HrCall", lambda: {"f": _add}),
    ("HrCallAnon", lambda: {"f": lambda x: x * 2}),
    ("HrCallBad", lambda: {"f": _add, "args": {"x": "no", "y": "a"}}),
    ("HrCallBad", lambda: {"f": _add, "args": {"x": 1}}),
    ("HrCallBad", lambda: {"f": _add, "args": {"x": 1, "y": "a", "z": 2}}),
    ("HrCallRet", lambda: {"f": lambda x: "fine"}),
    ("HrCallRet", lambda: {"f": lambda x: 5}),
    ("HrCallThrows", lambda: {"f": _boom}),
]


@pytest.mark.parametrize("fn,make", CASES, ids=[f"{fn}-{i}" for i, (fn, _) in enumerate(CASES)])
def test_host_callable_reflection_agrees(engine, assay_programs, fn, make):
    want = _engine(engine, fn, make())
    assert _assay(assay_programs.get(), fn, make()) == want
