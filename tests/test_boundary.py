"""Layer boundaries, enforced with import-linter (pyproject.toml): consumer packages import
assay.mirx, never assay.syntax / assay.sema / assay.mir (nor the VM's internals); and every layer
imports only the layers below it (`cli > consumers > mirx > api > compiler > bex > extension >
mir > sema > syntax > source > gcpause`)."""
import ast
import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# heavy optional dependencies may be imported inside the function that needs them
LAZY_IMPORTS = {"pydantic", "z3", "torch", "jinja2", "mcp", "ray"}


def lint(cwd: Path, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"],
                          cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


@pytest.fixture(scope="module")
def root_lint() -> subprocess.CompletedProcess:
    return lint(ROOT)


def test_consumers_only_use_mirx(root_lint):
    assert "consumers use mirx, not compiler internals KEPT" in root_lint.stdout, root_lint.stdout + root_lint.stderr


def test_layers_are_one_way(root_lint):
    assert "one-way layers KEPT" in root_lint.stdout, root_lint.stdout + root_lint.stderr
    assert root_lint.returncode == 0


def test_the_contract_catches_a_consumer_reaching_around_mirx(tmp_path):
    pkg = tmp_path / "fakeassay"
    for sub in ("coverage", "sema", "mirx"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "coverage" / "bad.py").write_text("from ..sema import check\n")
    (tmp_path / ".importlinter").write_text(textwrap.dedent("""
        [importlinter]
        root_package = fakeassay

        [importlinter:contract:boundary]
        name = consumers use mirx
        type = forbidden
        source_modules = fakeassay.coverage
        forbidden_modules = fakeassay.sema
        allow_indirect_imports = true
        """))
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    r = lint(tmp_path, env)
    assert r.returncode != 0 and "BROKEN" in r.stdout


def test_the_layers_contract_catches_a_back_edge(tmp_path):
    """Assay's own layers contract, on a package of its layers whose checker imports the
    stdlib implementation (a back-edge sema → bex)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    layers = next(c for c in config["contracts"] if c["type"] == "layers")["layers"]
    pkg = tmp_path / "fakeassay"
    for tail in (t.strip() for layer in layers for t in layer.split("|")):
        if not tail.startswith("("):
            (pkg / tail).mkdir(parents=True)
            (pkg / tail / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "sema" / "check.py").write_text("from ..bex import stdlib\n")
    (tmp_path / ".importlinter").write_text(textwrap.dedent("""
        [importlinter]
        root_package = fakeassay

        [importlinter:contract:layers]
        name = one-way layers
        type = layers
        containers = fakeassay
        exhaustive = true
        layers =
        """) + "".join(f"    {layer}\n" for layer in layers))
    r = lint(tmp_path, dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert r.returncode != 0 and "one-way layers BROKEN" in r.stdout, r.stdout + r.stderr
    assert "fakeassay.sema is not allowed to import fakeassay.bex" in r.stdout


def test_no_import_hides_in_a_function():
    """Imports inside function bodies dodge cycles; only heavy optional dependencies may wait
    for the function that needs them."""
    found = []
    for path in sorted((ROOT / "src" / "assay").rglob("*.py")):
        for fn in ast.walk(ast.parse(path.read_text())):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found += [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(fn)
                          if isinstance(node, (ast.Import, ast.ImportFrom)) and not _lazy(node)]
    assert not found


def _lazy(node) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and (node.module or "").split(".")[0] in LAZY_IMPORTS
    return all(a.name.split(".")[0] in LAZY_IMPORTS for a in node.names)


def test_sema_declares_exactly_the_natives_bex_implements():
    """The stdlib's signatures belong to sema (assay.sema.stdsigs, BAML's `.baml` stubs); bex
    registers implementations against them and refuses an undeclared one."""
    from assay.bex import stdlib
    from assay.sema import stdsigs
    from assay.bex.ops import BUILTIN_CLASSES
    class_kinds = set(stdsigs.STD_CLASS_KINDS.values())  # a stdlib class's methods live on its class
    assert {k: set(ms) for k, ms in stdlib.METHODS.items() if ms} == \
        {k: set(ms) for k, ms in stdsigs.METHODS.items() if k not in class_kinds}
    for fqn, kind in stdsigs.STD_CLASS_KINDS.items():
        assert {m for m in stdsigs.METHODS[kind] if not hasattr(BUILTIN_CLASSES[fqn].py, "m_" + m)} == set()
    assert set(stdlib.FUNCTIONS) == set(stdsigs.FUNCTIONS)
