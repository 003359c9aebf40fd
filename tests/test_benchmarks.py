"""The benchmark programs (benchmarks/*.baml, benchmarks/explore/*.baml and gen_big.py's) compile
on Assay (benchmarks/compiles.py): a benchmark must not be the first to find a stricter checker."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

import compiles  # noqa: E402


def test_every_benchmark_program_compiles():
    assert len(compiles.programs()) >= 3
    assert compiles.failures() == {}
