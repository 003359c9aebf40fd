"""Host callables' signatures: a Python callable passed where a BAML function type is declared
has that type, as the engine's bridge gives it (run-time `is` on function types, match arms,
`reflect.Type.of_value`; a parameter's type without `throws` throws `unknown`); passed where
`unknown` is declared it is refused (TypeError). Programs: tests/programs/ns_sigs/host_sigs.baml;
the engine is asked at test time."""
from __future__ import annotations

import pytest


def _engine(engine, fn, args):
    import baml_bridge as bb
    try:
        return bb.call_function_sync(engine.rt, f"sigs.{fn}", args).result()
    except Exception as e:  # noqa: BLE001 — compared as text
        return f"{type(e).__name__}: {e}"


def _assay(prog, fn, args):
    try:
        return prog.call(f"sigs.{fn}", **args)
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"


def _inc(x):
    return x + 1


CASES = [
    ("HsgPlain", lambda: {"f": _inc}),
    ("HsgPlain", lambda: {"f": lambda x: "not checked until called"}),
    ("HsgThrows", lambda: {"f": lambda a, b: True}),
    ("HsgNever", lambda: {"f": lambda x: str(x)}),
    ("HsgOptional", lambda: {"f": lambda x, y=None: x}),
    ("HsgInArray", lambda: {"fs": [_inc, lambda x: x * 2]}),
    ("HsgInUnion", lambda: {"f": _inc}),
    ("HsgInUnion", lambda: {"f": "text"}),
    ("HsgInClass", lambda: {"b": {"f": lambda x: "s", "g": lambda: 3}}),
    ("HsgInClass", lambda: {"b": {"f": lambda x: "s", "g": None}}),
    ("HsgInMap", lambda: {"m": {"a": _inc}}),
    ("HsgMatch", lambda: {"f": _inc}),
    ("HsgUnknown", lambda: {"u": _inc}),
    ("HsgUnknown", lambda: {"u": 5}),
    ("HsgUnknownList", lambda: {"us": [1, "a"]}),
]


@pytest.mark.parametrize("fn,make", CASES, ids=[f"{fn}-{i}" for i, (fn, _) in enumerate(CASES)])
def test_host_callable_signature_agrees(engine, assay_programs, fn, make):
    want = _engine(engine, fn, make())
    assert _assay(assay_programs.get(), fn, make()) == want


def test_host_callable_refused_as_unknown(assay_programs):
    with pytest.raises(TypeError, match="declared type is `unknown`"):
        assay_programs.get().call("sigs.HsgUnknown", _inc)
