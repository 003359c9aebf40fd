"""Differential tests: every `// call:` in tests/programs, run on the real BAML engine
(baml_bridge, the specification) and on Assay, at test time.  Nothing the engine answers is
stored.  Compared: the plain result (exact: int != float != bool, NaN == NaN, -0.0 != 0.0,
map/field order), or the error kind (panic / thrown error), class_name and fields / value.

ASSAY_DIFF_ENGINE_ONLY=1 runs only the engine side (checks the programs themselves).
"""
from __future__ import annotations

import copy

import pytest

import difflib_baml as dl

CASES = dl.collect_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_differential(case: dl.Case, engine, assay_programs):
    e = engine.call(case.qualified, case.args)
    assert e.kind != "harness", f"{case.id} ({case.file}:{case.line}) engine side broken: {e.detail}"
    if assay_programs is None:  # engine-only mode
        return
    prog = assay_programs.get()
    a = dl.assay_call(prog, case.qualified, copy.deepcopy(case.args))
    if not dl.outcomes_equal(e, a):
        pytest.fail(dl.mismatch_message(f"{case.id} ({case.file}:{case.line})", case.args, e, a), pytrace=False)


def test_case_collection_sanity():
    assert len(CASES) >= 300
    assert len({c.qualified for c in CASES}) >= 170
