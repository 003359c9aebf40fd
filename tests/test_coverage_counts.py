"""Coverage counts with gcov's semantics: a line's count is the number of times control entered
it (from another line of the same call, or by starting the call there), an edge's the number
of times it was taken, a function's the number of times it was called; and the CLI's coverage
options treat user mistakes as usage errors (exit 2), never as bugs."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from assay import mirx
from assay.coverage import report
from assay.coverage.collect import Coverage
from assay.coverage.data import CoverageData

HERE = Path(__file__).resolve().parent
COUNTS = HERE / "coverage" / "counts.baml"


def measure(calls):
    prog = mirx.load(str(COUNTS))
    cov = Coverage()
    for fn, args in calls:
        prog.call(fn, args, extensions=[cov])
    return cov.data(prog)


def edges(fc, line):
    return {(k.column, k.kind, k.edge): h for k, h in fc.branches.items() if k.line == line}


def test_a_loop_counts_its_iterations_exactly():
    for n in (0, 1, 11):
        fc = measure([("loop", {"n": n})]).files[str(COUNTS)]
        assert fc.lines[2] == 1 and fc.lines[6] == 1      # ran once each
        assert fc.lines[3] == n + 1                        # the header: every test of i < n
        assert fc.lines[4] == n                            # the body
        assert edges(fc, 3) == {(10, "while", "true"): n, (10, "while", "false"): 1}
        assert fc.functions["user.loop"].hits == 1


def test_counts_add_over_calls():
    fc = measure([("loop", {"n": 3}), ("loop", {"n": 4})]).files[str(COUNTS)]
    assert (fc.lines[2], fc.lines[3], fc.lines[4]) == (2, 9, 7)
    assert fc.functions["user.loop"].hits == 2


def test_a_line_holding_several_blocks_counts_entries():
    # a one-line `for` is entered once per call, however many times it loops
    fc = measure([("one_line_for", {"xs": [1, 2, 3]})]).files[str(COUNTS)]
    assert (fc.lines[10], fc.lines[11], fc.lines[12]) == (1, 1, 1)
    assert edges(fc, 11) == {(3, "for", "true"): 3, (3, "for", "false"): 1}
    # `a && b || c`: one entry, each decision's edge taken once
    fc = measure([("ors", {"a": True, "b": False, "c": True})]).files[str(COUNTS)]
    assert fc.lines[16] == 1
    assert edges(fc, 16) == {(3, "&&", "true"): 1, (3, "&&", "false"): 0,
                             (3, "||", "true"): 0, (3, "||", "false"): 1}


def test_an_or_chain_counts_each_edge_once_per_taking():
    # the three `||` of `a || b || c || d` start at `a`: one decision, edge counts added up
    fc = measure([("chain", {"a": False, "b": False, "c": True, "d": False})]).files[str(COUNTS)]
    assert fc.lines[20] == 1
    assert edges(fc, 20) == {(3, "||", "true"): 1, (3, "||", "false"): 2}
    # `a` true: each of the three decisions ((a || b) || c) || d sees true once
    fc = measure([("chain", {"a": True, "b": False, "c": False, "d": False})]).files[str(COUNTS)]
    assert fc.lines[20] == 1
    assert edges(fc, 20) == {(3, "||", "true"): 3, (3, "||", "false"): 0}


def test_recursion_counts_per_call():
    fc = measure([("rec", {"n": 3})]).files[str(COUNTS)]
    assert fc.functions["user.rec"].hits == 4
    assert (fc.lines[32], fc.lines[33], fc.lines[35]) == (4, 1, 3)


def test_function_hits_come_from_calls_not_the_header_line():
    data = measure([("loop", {"n": 2})])
    fc = data.files[str(COUNTS)]
    assert 1 not in fc.lines  # the header holds no code…
    lcov = report.lcov_report(data)
    assert "FNDA:1,user.loop" in lcov and "FNDA:0,user.never" in lcov  # …yet the call counts
    assert "FNH:1" in lcov
    doc = json.loads(report.json_report(data))
    funcs = next(iter(doc["files"].values()))["functions"]
    assert funcs["user.loop"]["hits"] == 1 and funcs["user.never"]["hits"] == 0


def test_function_hits_survive_saving_and_merging(tmp_path):
    a, b = measure([("loop", {"n": 1})]), measure([("loop", {"n": 1}), ("rec", {"n": 0})])
    a.save(tmp_path / "a.json")
    merged = CoverageData.load(tmp_path / "a.json")
    merged.merge(b)
    fc = merged.files[str(COUNTS)]
    assert fc.functions["user.loop"].hits == 2 and fc.functions["user.rec"].hits == 1
    assert fc.lines[4] == 2


def test_missed_branches_are_listed_even_when_their_line_never_ran():
    data = measure([("loop", {"n": 0})])
    fc = data.files[str(COUNTS)]
    doc = json.loads(report.json_report(data))["files"]
    f = next(iter(doc.values()))
    assert len(f["missing_branches"]) == f["summary"]["branches_missed"] > 0
    assert "24:7 if(true)" in f["missing_branches"]  # never() never ran
    assert fc.missed_branches() and fc.missing_branches() != fc.missed_branches()


def test_missing_column_sorts_columns_as_numbers():
    data = measure([("picky", {"a": 1, "b": 1})])
    missing = report.format_missing(data.files[str(COUNTS)], 27, 29)
    # 28:7 if(false) (a > 0 false) before 28:20 if(false) (b > 0 false): numbers, not strings
    assert missing.index("28:7 if(false)") < missing.index("28:20 if(false)"), missing


# ── the CLI ──


def assay(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "assay.cli.main", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


TESTS = """function f(x: int) -> int {
  if (x > 0) { return 1; }
  0
}
test "f" { assert.equal(f(0), 0); }
"""


@pytest.fixture
def proj(tmp_path):
    (tmp_path / "p.baml").write_text(TESTS)
    return tmp_path


@pytest.mark.parametrize("value", ["150", "-5", "abc"])
def test_fail_under_out_of_range_is_a_usage_error_before_running(proj, value):
    r = assay("test", proj / "p.baml", "--fail-under", value, cwd=proj)
    assert r.returncode == 2, r.stderr
    assert "error: Invalid value for '--fail-under'" in r.stderr
    assert "internal error" not in r.stderr and "PASS" not in r.stdout
    assert not (proj / ".assay-coverage.json").exists()


def test_fail_under_message_has_one_percent_sign(proj):
    r = assay("test", proj / "p.baml", "--fail-under", "100", cwd=proj)
    assert r.returncode == 2
    assert "coverage failure: total of " in r.stdout
    line = next(l for l in r.stdout.splitlines() if l.startswith("coverage failure"))
    assert "%%" not in line and line.endswith("is less than fail-under=100%")


@pytest.mark.parametrize("option", ["--coverage-json", "--coverage-lcov", "--coverage-xml", "--coverage-data"])
@pytest.mark.parametrize("case", ["missing parent", "a directory", "file as parent"])
def test_file_outputs_that_cannot_be_written(proj, option, case):
    (proj / "sub").mkdir()
    target = {"missing parent": proj / "nope" / "out", "a directory": proj / "sub",
              "file as parent": proj / "p.baml" / "out"}[case]
    for cmd in (["test", proj / "p.baml"], ["run", proj / "p.baml", "f", "--args", '{"x": 1}']):
        r = assay(*cmd, option, target, cwd=proj)
        assert r.returncode == 2, (cmd, r.stdout, r.stderr)
        assert r.stderr.startswith(f"error: cannot write {target}: "), r.stderr
        assert "internal error" not in r.stderr and "PASS" not in r.stdout
    assert not (proj / ".assay-coverage.json").exists()


def test_html_output_over_a_file(proj):
    r = assay("test", proj / "p.baml", "--coverage-html", proj / "p.baml", cwd=proj)
    assert r.returncode == 2 and r.stderr.startswith(f"error: cannot write {proj / 'p.baml'}: ")
    r = assay("test", proj / "p.baml", "--coverage-html", proj / "new" / "dir", cwd=proj)
    assert r.returncode == 0 and (proj / "new" / "dir" / "index.html").exists()


def test_report_command_validates_outputs_and_inputs(proj):
    assert assay("test", proj / "p.baml", "--coverage", cwd=proj).returncode == 0
    r = assay("coverage", "report", "--json", proj, cwd=proj)
    assert r.returncode == 2 and r.stderr.startswith(f"error: cannot write {proj}: is a directory")
    r = assay("coverage", "report", proj / "none.json", cwd=proj)
    assert r.returncode == 2 and r.stderr.startswith("error: ")
    r = assay("coverage", "report", "--fail-under", "101", cwd=proj)
    assert r.returncode == 2 and "error: Invalid value" in r.stderr


def test_written_counts_are_gcov_counts(proj):
    r = assay("run", proj / "p.baml", "f", "--args", '{"x": 1}', "--coverage-lcov", proj / "o.info", cwd=proj)
    assert r.returncode == 0, r.stderr
    lcov = (proj / "o.info").read_text()
    assert "DA:2,1" in lcov and "DA:3,0" in lcov and "FNDA:1,user.f" in lcov


def test_a_timed_out_run_still_writes_its_coverage(tmp_path):
    (tmp_path / "spin.baml").write_text(
        "function spin(n: int) -> int {\n  let i = 0;\n  while (i >= 0) {\n    i += 1;\n  }\n  i\n}\n")
    r = assay("run", tmp_path / "spin.baml", "spin", "--args", '{"n": 1}', "--timeout", "0.5",
              "--coverage-json", tmp_path / "c.json", cwd=tmp_path)
    assert r.returncode == 1 and "Timeout" in r.stderr
    f = json.loads((tmp_path / "c.json").read_text())["files"]["spin.baml"]
    assert f["executed_lines"] == [2, 3, 4] and f["missing_lines"] == [6]
    assert f["functions"]["user.spin"]["hits"] == 1
    assert (tmp_path / ".assay-coverage.json").exists()
