"""Host ints outside BAML's 63-bit int where the declared type takes an int (a union with an int
member, `unknown`): the engine's bridge refuses them (TypeError) rather than widening to the
union's bigint or float member; Assay refuses them too (ArgumentError). The ints inside the
range and their union members: tests/programs/ns_hunt14/hostunions.baml (differential)."""
from __future__ import annotations

import pytest

import assay

HUGE = 1 << 62  # one past int's largest


def _engine(engine, fn, args):
    import baml_bridge as bb
    try:
        return ("ok", bb.call_function_sync(engine.rt, f"hunt14.{fn}", args).result())
    except Exception as e:  # noqa: BLE001 — compared by kind
        return ("refused", f"{type(e).__name__}: {e}")


@pytest.mark.parametrize("fn", ["hu_float_int", "hu_bigint_int", "hu_json"])
@pytest.mark.parametrize("v", [HUGE, -HUGE - 1])
def test_out_of_range_int_refused_in_a_union_with_int(engine, assay_programs, fn, v):
    e = _engine(engine, fn, {"v": v})
    assert e[0] == "refused" and "outside the BAML integer range" in e[1]
    with pytest.raises(assay.ArgumentError, match="63-bit int"):
        assay_programs.get().call(f"hunt14.{fn}", v=v)


def test_out_of_range_int_refused_as_unknown(engine, assay_programs):
    assert _engine(engine, "hu_kind", {"v": HUGE})[0] == "refused"
    with pytest.raises(assay.ArgumentError, match="63-bit int"):
        assay_programs.get().call("hunt14.hu_kind", v=HUGE)


def test_out_of_range_int_still_a_bigint_without_an_int_member(engine, assay_programs):
    e = _engine(engine, "hu_bigint_float", {"v": HUGE})
    assert e == ("ok", f"bigint {HUGE}")
    assert assay_programs.get().call("hunt14.hu_bigint_float", v=HUGE) == e[1]
