"""Property tests: random well-typed int / float / bool / string expressions, Assay vs the
real engine.

The expression SHAPES are fixed (seeded generator in difflib_baml.hyp_shapes, compiled once
as namespace `hyp` of the session's engine runtime); hypothesis draws the ARGUMENTS:
edge ints (0, -1, +-2^62 ...), floats incl. NaN / +-inf / -0.0, unicode strings.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import difflib_baml as dl

SHAPES = dl.hyp_shapes()

INT_MIN, INT_MAX = -(2 ** 62), 2 ** 62 - 1
EDGE_INTS = [0, 1, -1, 2, -2, 3, 7, 62, 63, 64, 100, -100, INT_MAX, INT_MIN, INT_MAX - 1,
             INT_MIN + 1, 2 ** 31, -(2 ** 31), 3037000499, 1 << 61]
ints = st.one_of(st.sampled_from(EDGE_INTS), st.integers(-10, 10), st.integers(INT_MIN, INT_MAX))
floats = st.one_of(
    st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -2.5, 1e10, 1e-7, 1e300,
                     float("nan"), float("inf"), float("-inf"), 5e-324]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1000, 1000),
)
_chars = st.characters(blacklist_categories=("Cs",))
strings = st.one_of(
    st.sampled_from(["", "a", "ab", "abc", "é", "héllo", " x ", ",", "a,b", "12", "-7", "3.5",
                     "1e3", "NaN", "inf", "😀", "AbC", "  "]),
    st.text(alphabet=_chars, max_size=6),
    st.text(alphabet="ab,é -1.", max_size=6),
)


@pytest.mark.parametrize("shape", SHAPES, ids=[s[0] for s in SHAPES])
def test_expression(shape, engine, assay_hyp_program):
    name, _ty, expr = shape
    qualified = f"{dl.HYP_NS}.{name}"
    prog = None if assay_hyp_program is None else assay_hyp_program.get(name)

    @settings(max_examples=30, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(a=ints, b=ints, c=ints, x=floats, y=floats, s=strings, t=strings)
    def check(a, b, c, x, y, s, t):
        args = dict(a=a, b=b, c=c, x=x, y=y, s=s, t=t)
        e = engine.call(qualified, args)
        assert e.kind != "harness", f"{qualified} engine side broken: {e.detail}"
        if prog is None:
            return
        got = dl.assay_call(prog, qualified, dict(args))
        if not dl.outcomes_equal(e, got):
            raise AssertionError(dl.mismatch_message(f"{qualified}: {expr}", args, e, got))

    check()
