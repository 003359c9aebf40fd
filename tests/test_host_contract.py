"""A host callable returning a value of the wrong type: Assay's error agrees with the real
engine's (class, message, fields), caught inside BAML (tests/programs/ns_hostret) and escaping
to Python. The engine is asked at test time."""
from __future__ import annotations

import pytest

import assay


class Opaque:
    pass


# (BAML function, what the host callable returns)
CASES = [
    ("Int", "s"), ("Int", 1.5), ("Int", None), ("Int", True), ("Int", [1]), ("Int", {"a": 1}),
    ("Int", 1 << 70), ("Int", b"x"), ("Int", (1,)), ("Int", 7), ("Int", Opaque()), ("Int", {1, 2}),
    ("Int", lambda x: x),
    ("Str", 3), ("Str", "fine"), ("Flt", 1), ("Flt", 2.5), ("Flt", "x"),
    ("Opt", "s"), ("Opt", None), ("Opt", 4),
    ("Cls", {"a": 1}), ("Cls", 5),
    ("Enm", "A"), ("Enm", 3),
    ("Arr", [1, "x"]), ("Arr", [1, 2.5]), ("Arr", 3), ("Map", {"a": "b"}), ("Map", {"a": 1}),
    ("Lit", "c"), ("Lit", "a"),
]


def _engine(engine, fn, value):
    import baml_bridge as bb
    try:
        return bb.call_function_sync(engine.rt, f"hostret.{fn}", {"f": lambda x: value}).result()
    except Exception as e:  # noqa: BLE001 — compared as text
        return f"{type(e).__name__}: {e}"


def _assay(prog, fn, value):
    try:
        return prog.call(f"hostret.{fn}", lambda x: value)
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"


@pytest.mark.parametrize("fn,value", CASES, ids=[f"{fn}-{type(v).__name__}{i}" for i, (fn, v) in enumerate(CASES)])
def test_wrong_host_result_caught_in_baml_agrees(engine, assay_programs, fn, value):
    want = _engine(engine, fn, value)
    assert isinstance(want, str) and want.startswith(("HCV ", "HC ", "ok")), want  # the engine ran it
    assert _assay(assay_programs.get(), fn, value) == want


def test_wrong_host_result_escaping_to_python(assay_programs):
    """Uncaught, it reaches Python as the panic with the engine's fields (the engine's own
    Python bridge cannot name this class: it reports a missing typemap entry instead)."""
    prog = assay_programs.get()
    with pytest.raises(assay.BamlPanic) as e:
        prog.call("hostret.Plain", lambda x: "not an int", 1)
    assert e.value.class_name == "baml.panics.HostContractViolation"
    assert e.value.fields == {
        "message": "host callable returned a value of the wrong type: host callable returned a value of type "
                   "`string` that does not match the declared return type `int` (expected int)",
        "class_name": None, "language": None}
