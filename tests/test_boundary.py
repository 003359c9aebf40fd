"""The mirx boundary is enforced with import-linter: consumer packages import assay.mirx,
never assay.syntax / assay.sema / assay.mir (nor the VM's internals)."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def lint(cwd: Path, env=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()"],
                          cwd=cwd, capture_output=True, text=True, timeout=120, env=env)


def test_consumers_only_use_mirx():
    r = lint(ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "KEPT" in r.stdout


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
