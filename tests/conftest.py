"""Shared fixtures for the differential suite.

`engine`: ONE baml_bridge runtime for the whole test session, holding every program under
tests/programs (namespace x = directory ns_x/) plus the generated expression namespace `hyp`
(see difflib_baml.hyp_files).  A runtime costs seconds to start, so never build another.

`assay_programs`: `assay.load(tests/programs)`, once per session (None in engine-only mode,
ASSAY_DIFF_ENGINE_ONLY=1).
"""
from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import difflib_baml as dl  # noqa: E402


class EngineSession:
    """The shared engine runtime + helpers."""

    def __init__(self, rt, files: dict[str, str]):
        self._rt = rt
        self.files = files

    @property
    def rt(self):
        if dl.latest_runtime() is not self._rt:  # another test built a runtime since (difflib_baml)
            self._rt = dl.build_engine_runtime(self.files)
        return self._rt

    def call(self, qualified: str, args: dict) -> dl.Outcome:
        return dl.engine_call(self.rt, qualified, copy.deepcopy(args))


@pytest.fixture(scope="session")
def engine() -> EngineSession:
    try:
        import baml_bridge  # noqa: F401
    except Exception as e:  # pragma: no cover - depends on the environment
        pytest.skip(f"baml_bridge (the reference engine) is not importable: {e}")
    files = dl.program_files()
    files.update(dl.hyp_files())
    files.update(__import__("progen").rnd_files())  # namespace rnd: tests/test_random_programs.py
    files.update(dl.program_files(dl.TESTS_DIR / "engine_only"))  # engine-side helpers (Fn@spec): test_llm.py
    files.update(dl.explore_dev_files())  # namespace xdev: tests/test_explore.py
    files.update(__import__("owncorpus").engine_files())  # namespaces cp_*/cm_*: tests/test_own_corpus.py
    try:
        rt = dl.build_engine_runtime(files)
    except dl.EngineCompileError as e:
        pytest.fail(str(e), pytrace=False)
    return EngineSession(rt, files)


class _Loaded:
    def __init__(self, prog=None, error: BaseException | None = None):
        self.prog = prog
        self.error = error

    def get(self):
        if self.error is not None:
            pytest.fail(f"assay.load failed: {type(self.error).__name__}: {self.error}", pytrace=False)
        return self.prog


def _load_assay(path: Path) -> _Loaded:
    try:
        import assay
        return _Loaded(assay.load(str(path)))
    except Exception as e:  # noqa: BLE001 - reported per test
        return _Loaded(error=e)


@pytest.fixture(scope="session")
def assay_programs():
    if dl.engine_only():
        return None
    return _load_assay(dl.PROGRAMS_DIR)


class _HypPrograms:
    """Assay side of the generated expressions: one program per shape (loaded lazily), so a
    shape Assay cannot compile fails alone instead of taking all shapes down with it."""

    def __init__(self, root: Path):
        self.root = root
        self._cache: dict[str, _Loaded] = {}

    def get(self, fn_name: str):
        if fn_name not in self._cache:
            src = dl.hyp_function_source(fn_name)
            d = self.root / fn_name / f"ns_{dl.HYP_NS}"
            d.mkdir(parents=True, exist_ok=True)
            (d / "exprs.baml").write_text(src, encoding="utf-8")
            self._cache[fn_name] = _load_assay(d.parent)
        return self._cache[fn_name].get()


@pytest.fixture(scope="session")
def assay_hyp_program(tmp_path_factory):
    if dl.engine_only():
        return None
    return _HypPrograms(tmp_path_factory.mktemp("hyp_programs"))
