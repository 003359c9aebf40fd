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

import difflib_baml as dl
import owncorpus as oc

TESTS = oc.corpus_tests()
_MARKS = {"corpus": "assay-xfail", "mutants": "assay-xfail-mutant"}


def _params():
    out = []
    for t in TESTS:
        why = oc.xfail_reason(t.file.path.read_text(encoding="utf-8"), t.name, _MARKS[t.kind])
        marks = [pytest.mark.xfail(strict=True, reason=why)] if why and not dl.engine_only() else []
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
            dest = self.root / t.kind / t.file.construct / t.file.stem
            self.cache[key] = oc.assay_records(t.file, t.kind, dest)
        return self.cache[key]

    def verdict(self, t: oc.CorpusTest) -> oc.Verdict:
        return oc.assay_verdict(self.records(t), t.name)


@pytest.fixture(scope="session")
def assay_runs(tmp_path_factory):
    return None if dl.engine_only() else _AssayRuns(tmp_path_factory.mktemp("own_corpus"))


def _registered(engine, assay_runs, t: oc.CorpusTest):
    """A testset (or test with a runner): every leaf passed, failed or tolerated alike; when
    the engine's registration itself fails, Assay fails the declaration with the same class."""
    out = engine.call(t.engine_fn, {})
    assert out.kind != "harness", f"engine could not run {t.engine_fn}: {out.detail}"
    if assay_runs is None:
        return
    records = assay_runs.records(t)
    ours = oc.assay_statuses(records, t.name)
    assert not isinstance(ours, str), ours
    if out.kind == "ok":
        assert ours == oc.engine_statuses(out.value), f"{t.id}: engine {oc.engine_statuses(out.value)}; assay {ours}"
    else:
        name = oc.static_name(t.name)
        assert ours == {name: "fail"} and records[name].error["type"] == out.class_name, (
            f"{t.id}: engine {out.kind} {out.class_name}; assay {ours} "
            f"{records[name].error['type'] if name in records else ''}")


@pytest.mark.parametrize("t", _params())
def test_own_corpus(engine, assay_runs, t: oc.CorpusTest):
    if t.registered:
        return _registered(engine, assay_runs, t)
    ev = oc.engine_verdict(engine.call(t.engine_fn, {}))
    assert ev[0] != "harness", f"engine could not run {t.engine_fn}: {ev[2]}"
    if t.kind == "mutants":
        assert ev[0] == "fail", f"{t.id}: the engine passes the mutant (the mutation changes nothing)"
    if assay_runs is None:
        return
    av = assay_runs.verdict(t)
    assert oc.agree(ev, av), (f"{t.id}: engine {ev[0]} {ev[1] or ''} [{ev[2][:300]}]; "
                              f"assay {av[0]} {av[1] or ''} [{av[2]}]")


def test_every_test_has_a_mutant():
    for f in oc.corpus_files():
        _, muts, missing = oc.mutate(f.path.read_text(encoding="utf-8"))
        assert not missing, f"{f.rel}: tests without an `assert.equal(…, <literal>)` to mutate: {missing}"
        assert muts


def test_corpus_size():
    per = oc.counts()
    assert sum(per.values()) >= 300, per
    assert all(n >= 20 for n in per.values()), per


@pytest.mark.parametrize("expected, mutated", [
    ("3", "4"), ("-3", "-2"), ("0xFF", "256"), ("2.5", "3.0"), ("1e3", "1000.5"), ("10n", "11n"),
    ("0xFF_FFn", "65536n"), ('"ab"', '"abx"'), ("true", "false"), ("[null, 1]", "[null, 2]"),
    ("P { x: 7 }", "P { x: 8 }"), ("4611686018427387903", "4611686018427387902"),
])
def test_mutation_rules(expected, mutated):
    src = f'test "t" {{\n  let a = 1;\n  assert.equal(a - 1, {expected})\n}}\n'
    out, muts, missing = oc.mutate(src)
    assert not missing and out == src.replace(f", {expected})", f", {mutated})")
    assert muts[0].line == 3


def test_mutation_skips_an_expected_side_without_literals():
    src = 'test "t" {\n  let a = 1;\n  assert.equal(a, a);\n  assert.equal(a, -1 + 2)\n}\n'
    out, muts, missing = oc.mutate(src)
    assert "assert.equal(a, a)" in out and "assert.equal(a, 0 + 2)" in out and muts[0].line == 4
