"""Ill-formed / ill-typed programs (tests/rejects/*.baml) that the real engine rejects: Assay
(parse + build_index + check) must reject each too, ideally with the engine's code at the
engine's primary location.

The engine's answers are computed at test time (never stored): all programs go into ONE project,
each in its own `ns_rNN/rNN.baml`; the engine reports the errors of every file at once, each
prefixed `rNN.baml:L:C-L:C error[EXXXX]`."""
from __future__ import annotations

import glob
import os
import re

import pytest

from assay.sema.check import check
from assay.sema.program import build_index
from assay.source import SourceFile
from assay.syntax.parser import parse_file

import difflib_baml as dl

HERE = os.path.dirname(__file__)
PROGRAMS = sorted(glob.glob(os.path.join(HERE, "rejects", "r*.baml")))
_DIAG = re.compile(r"(r\d+)\.baml:(\d+):(\d+)-\d+:\d+ (?:error|warning)\[(E\d+)\]")


def _name(p: str) -> str:
    return os.path.basename(p)[:-5]


def assay_diags(path: str):
    name = _name(path)
    src = SourceFile(f"{name}.baml", open(path).read(), name)
    f, diags = parse_file(src)
    idx, d2 = build_index([f])
    diags = list(diags) + d2
    if not any(d.severity == "error" for d in diags):
        diags += check(idx)
    return [(d.code, *d.span.line_col) for d in diags if d.severity == "error" and d.span]


@pytest.fixture(scope="module")
def engine_answers():
    pytest.importorskip("baml_bridge")
    return dl.engine_diagnostics({_name(p): open(p).read() for p in PROGRAMS}, _DIAG)


def test_enough_programs():
    assert len(PROGRAMS) >= 45


def test_engine_rejects_every_program(engine_answers):
    missing = [_name(p) for p in PROGRAMS if _name(p) not in engine_answers]
    assert not missing, f"engine accepted (or did not report) {missing}"


def test_assay_rejects_like_engine(engine_answers):
    rejected = code = exact = 0
    accepted, report = [], []
    for p in PROGRAMS:
        n = _name(p)
        eng = engine_answers.get(n)
        if not eng:
            continue
        ours = assay_diags(p)
        if not ours:
            accepted.append(n)
            continue
        rejected += 1
        ecodes = {c for c, _, _ in eng}
        if ecodes & {c for c, _, _ in ours}:
            code += 1
        if set(eng) & set(ours):
            exact += 1
        else:
            report.append(f"{n}: engine {eng[:2]} assay {ours[:2]}")
    total = len(engine_answers)
    print(f"\nrejects: {total} programs; assay rejects {rejected}, same code {code}, "
          f"same code+line:col {exact}")
    print("\n".join(report))
    assert not accepted, f"Assay accepts programs the engine rejects: {accepted}"
    assert code >= total - 4 and exact >= total - 8


def test_every_diagnostic_is_reported_like_the_engine(engine_answers):
    """A syntax error hides neither another item's type error nor a duplicate definition: the
    CLI's pipeline (compiler.analyze) reports what the engine reports."""
    from assay.compiler import analyze
    path = os.path.join(HERE, "rejects", "r109.baml")
    _, diags = analyze([SourceFile("r109.baml", open(path).read(), "r109")])
    ours = {(d.code, *d.span.line_col) for d in diags if d.severity == "error" and d.span}
    assert ours == set(engine_answers["r109"])
    dup = next(d for d in diags if d.code == "E0011")
    assert dup.notes == ["first defined as function here: r109.baml:8:10"]
