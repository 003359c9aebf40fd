"""BAML coverage measured through mirx: a program whose covered and missed lines and branch
edges are known in advance, the CLI flags, and combining runs."""
import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from assay import mirx
from assay.coverage.collect import Coverage

HERE = Path(__file__).resolve().parent
KNOWN = HERE / "coverage" / "known.baml"


@pytest.fixture(scope="module")
def measured():
    prog = mirx.load(str(KNOWN))
    cov = Coverage()
    assert all(r.passed for r in prog.run_tests(extensions=[cov]))
    return cov.data(prog).files[str(KNOWN)]


def test_executable_and_missed_lines(measured):
    assert sorted(measured.lines) == [2, 3, 4, 5, 7, 12, 16, 20, 26, 27, 28, 29, 34, 35, 36, 38, 42, 43]
    missed = sorted(line for line, hits in measured.lines.items() if hits == 0)
    # "zero" never returned; unused() never called; Color.Blue never matched; no division by zero
    assert missed == [5, 12, 29, 43]


def test_branch_edges(measured):
    got = {(k.line, k.column, k.kind, k.edge): bool(h) for k, h in measured.branches.items()}
    assert got == {
        (2, 7, "if", "true"): True, (2, 7, "if", "false"): True,           # n < 0
        (4, 14, "if", "true"): False, (4, 14, "if", "false"): True,        # n == 0
        (16, 3, "??", "null"): False, (16, 3, "??", "not null"): True,     # x ?? 7
        (20, 3, "&&", "true"): True, (20, 3, "&&", "false"): False,        # a && b
        (27, 5, "match", "matched"): False, (27, 5, "match", "not matched"): True,
        (28, 5, "match", "matched"): True, (28, 5, "match", "not matched"): False,
        (29, 5, "match", "matched"): False, (29, 5, "match", "not matched"): False,
        (35, 19, "for", "true"): True, (35, 19, "for", "false"): True,     # loop ran and ended
        (43, 5, "catch", "matched"): False, (43, 5, "catch", "not matched"): False,
    }


def test_functions_are_listed_with_their_lines(measured):
    assert {f: (i.first_line, i.last_line) for f, i in measured.functions.items()} == {
        "user.classify": (1, 9), "user.unused": (11, 13), "user.pick": (15, 17), "user.both": (19, 21),
        "user.name": (25, 31), "user.loop": (33, 39), "user.safe": (41, 45)}


def test_a_second_run_adds_hits(tmp_path):
    prog = mirx.load(str(KNOWN))
    cov = Coverage()
    prog.call("classify", {"n": 0}, extensions=[cov])
    lines = cov.data(prog).files[str(KNOWN)].lines
    assert lines[5] == 1 and lines[3] == 0


def test_plain_runs_are_not_measured():
    prog = mirx.load(str(KNOWN))
    cov = Coverage()
    prog.call("classify", {"n": 0})
    assert sum(cov.data(prog).files[str(KNOWN)].lines.values()) == 0


def assay(*args, cwd):
    return subprocess.run([sys.executable, "-m", "assay.cli.main", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_cli_test_coverage_reports(tmp_path):
    r = assay("test", str(KNOWN), "--coverage", "--coverage-html", "html", "--coverage-lcov", "cov.lcov",
              "--coverage-xml", "cov.xml", "--coverage-json", "cov.json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "TOTAL" in r.stdout and "classify" in r.stdout and "43" in r.stdout
    assert (tmp_path / "html" / "index.html").exists()
    lcov = (tmp_path / "cov.lcov").read_text()
    assert "DA:5,0" in lcov and "BRDA:4," in lcov and lcov.rstrip().endswith("end_of_record")
    root = ET.parse(tmp_path / "cov.xml").getroot()
    assert root.tag == "coverage" and int(root.get("lines-valid")) == 18
    doc = json.loads((tmp_path / "cov.json").read_text())
    assert doc["totals"]["lines"] if "lines" in doc["totals"] else doc["totals"]


def test_cli_fail_under_and_combined_runs(tmp_path):
    r = assay("test", str(KNOWN), "--coverage", "--fail-under", "90", cwd=tmp_path)
    assert r.returncode == 2 and "fail-under" in r.stdout
    data = tmp_path / ".assay-coverage.json"
    before = json.loads(data.read_text())
    r = assay("run", str(KNOWN), "classify", "--args", '{"n": 0}', "--coverage", "--coverage-append", cwd=tmp_path)
    assert r.returncode == 0 and r.stdout.strip() == '"zero"' and "TOTAL" in r.stderr
    after = json.loads(data.read_text())
    key = str(KNOWN)
    assert before["files"][key]["lines"]["5"] == 0 and after["files"][key]["lines"]["5"] == 1
    r = assay("coverage", "report", str(data), cwd=tmp_path)
    assert r.returncode == 0 and "TOTAL" in r.stdout


def test_cli_test_json_includes_coverage(tmp_path):
    r = assay("test", str(KNOWN), "--json", "--coverage", cwd=tmp_path)
    doc = json.loads(r.stdout)
    assert doc["ok"] and "coverage" in doc and "TOTAL" in r.stderr
