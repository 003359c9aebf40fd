"""Assay's own corpus (tests/corpus, see tests/owncorpus.py) and its mutants, against the real
engine at test time: every test block runs on the engine (as a wrapper function in the shared
runtime of conftest.py) and on Assay (natively, `run_tests`); the verdicts must be equal, and
for failures the error class too.  Every mutated test must fail on both.

A test Assay is known to get wrong carries `// assay-xfail: <why>` (its corpus run) or
`// assay-xfail-mutant: <why>` (its mutant) on the comment lines right above it: strict, so
the mark must go once the fix lands.
Counts per construct: `python tools/conformance.py --own` (table in docs/conformance.md).
"""
from __future__ import annotations

import pytest

import assay

import difflib_baml as dl
import owncorpus as oc

TESTS = oc.corpus_tests()
_MARKS = {"corpus": "assay-xfail", "mutants": "assay-xfail-mutant"}


def _params():
    out = []
    for t in TESTS:
        why = oc.xfail_reason(t.file.path.read_text(encoding="utf-8"), t.name, _MARKS[t.kind])
        marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
        out.append(pytest.param(t, id=t.id, marks=marks))
    return out


class _AssayRuns:
    """Assay's records per (kind, file): each file loaded alone, so one that does not compile
    fails only its own tests."""

    def __init__(self, root):
        self.root = root
        self.cache: dict = {}

    def records(self, t: oc.CorpusTest):
        key = (t.kind, t.file.rel)
        if key not in self.cache:
            try:
                dest = oc.assay_layout(t.file, t.kind, self.root / t.kind / t.file.construct / t.file.stem)
                self.cache[key] = {r.name: r for r in assay.load(str(dest)).run_tests()}
            except Exception as e:  # noqa: BLE001 - reported per test
                self.cache[key] = f"{type(e).__name__}: {str(e)[:600]}"
        return self.cache[key]


@pytest.fixture(scope="session")
def assay_runs(tmp_path_factory):
    return None if dl.engine_only() else _AssayRuns(tmp_path_factory.mktemp("own_corpus"))


def engine_verdict(engine, t: oc.CorpusTest) -> tuple[str, str | None, str]:
    o = engine.call(t.engine_fn, {})
    if o.kind == "ok":
        return "pass", None, ""
    if o.kind == "harness":
        pytest.fail(f"engine could not run {t.engine_fn}: {o.detail}")
    return "fail", o.class_name or "BamlError", o.detail


def assay_verdict(runs: _AssayRuns, t: oc.CorpusTest) -> tuple[str, str | None, str]:
    recs = runs.records(t)
    if isinstance(recs, str):
        return "fail", "LoadError", recs
    r = recs.get(t.name)
    if r is None:
        return "fail", "NoRecord", f"no record for {t.name!r}"
    if r.passed:
        return "pass", None, ""
    return "fail", r.error.get("type"), str(r.error.get("message"))[:300]


@pytest.mark.parametrize("t", _params())
def test_own_corpus(engine, assay_runs, t: oc.CorpusTest):
    ev, etype, emsg = engine_verdict(engine, t)
    if t.kind == "mutants":
        assert ev == "fail", f"{t.id}: the engine passes the mutant (the mutation changes nothing)"
    if assay_runs is None:
        return
    av, atype, amsg = assay_verdict(assay_runs, t)
    assert (av, atype) == (ev, etype), (f"{t.id}: engine {ev} {etype or ''} [{emsg[:300]}]; "
                                        f"assay {av} {atype or ''} [{amsg}]")


def test_every_test_has_a_mutant():
    for f in oc.corpus_files():
        _, muts, missing = oc.mutate(f.path.read_text(encoding="utf-8"))
        assert not missing, f"{f.rel}: tests without an `assert.equal(…, <literal>)` to mutate: {missing}"
        assert muts


def test_corpus_size():
    per = oc.counts()
    assert sum(per.values()) >= 300, per
    assert all(n >= 20 for n in per.values()), per
