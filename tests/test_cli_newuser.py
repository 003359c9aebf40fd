"""What a new user hit (issue 12), each as the test that would have caught it: `assay test` as
pytest (-k expressions, exit 5, captured output, --junit-xml, --durations, NO_COLOR), exit
codes and error lines, `python -m assay`, whole help lines, and a strict Python API."""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

import assay

TESTS = """function add(a: int, b: int) -> int { a + b }
test "adds small" { baml.io.println("out of small"); assert.equal(add(1, 2), 3); }
test "adds big" { baml.io.println("out of big"); assert.equal(add(1, 2), 4); }
test "Subtracts" { assert.equal(add(1, -1), 0); }
"""


def assay_cli(*args, env=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "assay", *map(str, args)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **(env or {})}, cwd=cwd)


@pytest.fixture
def proj(tmp_path):
    (tmp_path / "t.baml").write_text(TESTS)
    return tmp_path / "t.baml"


def names(stdout):
    return [line.split("::", 1)[1].split(" — ")[0] for line in stdout.splitlines()
            if line.startswith(("PASS", "FAIL"))]


@pytest.mark.parametrize("expr, selected", [
    ("adds", ["adds small", "adds big"]),
    ("ADDS and not big", ["adds small"]),
    ("not adds", ["Subtracts"]),
    ("subtracts or (adds and small)", ["adds small", "Subtracts"]),
    ("t.baml and not (small or big)", ["Subtracts"]),  # the file name counts too
])
def test_k_takes_pytest_expressions(proj, expr, selected):
    r = assay_cli("test", proj, "-k", expr)
    assert names(r.stdout) == selected, r.stdout + r.stderr


@pytest.mark.parametrize("expr", ["adds small", "(adds", "adds and", "and"])
def test_bad_k_expression_is_a_usage_error(proj, expr):
    r = assay_cli("test", proj, "-k", expr)
    assert r.returncode == 2 and r.stderr.startswith("error: -k "), r.stderr


def test_nothing_selected_or_no_tests_exit_5(proj, tmp_path):
    r = assay_cli("test", proj, "-k", "nothing")
    assert r.returncode == 5 and r.stdout.splitlines()[-1] == "0 passed, 0 failed (no tests selected)"
    (tmp_path / "none.baml").write_text("function f() -> int { 1 }\n")
    r = assay_cli("test", tmp_path / "none.baml")
    assert r.returncode == 5 and r.stdout.splitlines()[-1] == "0 passed, 0 failed (no tests)"
    r = assay_cli("test", tmp_path / "none.baml", "--json")
    assert r.returncode == 5 and json.loads(r.stdout)["tests"] == []


def test_output_is_captured_and_shown_with_a_failure(proj):
    r = assay_cli("test", proj)
    assert r.returncode == 1
    assert "out of small" not in r.stdout  # a passing test's output stays captured
    lines = r.stdout.splitlines()
    i = next(k for k, l in enumerate(lines) if l.startswith("FAIL") and "adds big" in l)
    assert lines[i + 1:i + 3] == ["    ---- captured output ----", "    out of big"]
    r = assay_cli("test", proj, "-s", "-k", "small")  # -s: live
    assert r.stdout.splitlines()[0] == "out of small"
    doc = json.loads(assay_cli("test", proj, "--json").stdout)
    assert [t["output"] for t in doc["tests"]] == ["out of small\n", "out of big\n", ""]
    assert all(t["seconds"] >= 0 for t in doc["tests"])


def test_junit_xml(proj, tmp_path):
    out = tmp_path / "junit.xml"
    r = assay_cli("test", proj, "--junit-xml", out)
    assert r.returncode == 1
    suite = ET.parse(out).getroot().find("testsuite")
    assert (suite.get("tests"), suite.get("failures")) == ("3", "1")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    assert set(cases) == {"adds small", "adds big", "Subtracts"}
    fail = cases["adds big"].find("failure")
    assert fail.get("type") == "baml.panics.AssertionFailed"
    assert cases["adds big"].find("system-out").text == "out of big\n"
    assert cases["Subtracts"].find("failure") is None
    r = assay_cli("test", proj, "--junit-xml", tmp_path / "no" / "j.xml")
    assert r.returncode == 2 and r.stderr.startswith("error: cannot write ") and "PASS" not in r.stdout


def test_durations(proj):
    r = assay_cli("test", proj, "--durations", "2")
    lines = r.stdout.splitlines()
    i = lines.index("slowest 2 durations")
    assert all(l.endswith(("adds small", "adds big", "Subtracts")) and "s " in l for l in lines[i + 1:i + 3])
    assert lines[i + 3] == "2 passed, 1 failed"


def test_no_colour_off_a_terminal_or_with_no_color(proj):
    r = assay_cli("test", proj)
    assert "\x1b[" not in r.stdout
    from click.testing import CliRunner
    from assay.cli import main as climain
    coloured = CliRunner().invoke(climain.cli, ["test", str(proj)], color=True)
    assert "\x1b[" in coloured.stdout
    plain = CliRunner().invoke(climain.cli, ["test", str(proj)], color=True, env={"NO_COLOR": "1"})
    assert "\x1b[" not in plain.stdout


# ── exit codes, error lines, help ──


def test_python_dash_m_and_help_lines():
    r = assay_cli("--help")
    assert r.returncode == 0
    assert "run       Call FUNCTION (`Fn`, `ns.Fn`) of the program at PATH and print its" in r.stdout
    assert "..." not in r.stdout.split("Commands:")[1].split("Exit status")[0].replace("PATH...", "")
    for code in ("0 ", "1 ", "2 ", "3 ", "5 ", "130"):
        assert f"\n    {code}" in r.stdout.split("Exit status:")[1]


def test_missing_and_binary_files_exit_alike(tmp_path):
    (tmp_path / "b.baml").write_bytes(b"\x00\x01")
    a = assay_cli("check", tmp_path / "missing.baml")
    b = assay_cli("check", tmp_path / "b.baml")
    assert a.returncode == b.returncode == 2


def test_usage_errors_start_with_error(proj):
    for args in (["tset"], ["test", proj, "--durations", "-1"], ["run", proj]):
        r = assay_cli(*args)
        assert r.returncode == 2
        assert [l for l in r.stderr.splitlines() if l.lower().startswith("error")][0].startswith("error: ")


def test_messages_name_baml_values(proj):
    r = assay_cli("run", proj, "add", "--args", '{"a": true, "b": 1}')
    assert r.returncode == 2 and r.stderr.strip() == "error: argument `a`: true does not fit int"
    r = assay_cli("run", proj, "add", "--args", '{"a": null, "b": 1}')
    assert r.stderr.strip() == "error: argument `a`: null does not fit int"


# ── the Python API ──


def test_load_of_a_missing_path_or_an_empty_directory_raises(tmp_path):
    with pytest.raises(assay.SourceError) as e:
        assay.load(str(tmp_path / "nope"))
    assert str(e.value) == f"{tmp_path / 'nope'}: error: no such file or directory"
    with pytest.raises(assay.SourceError, match="no .baml files found"):
        assay.load(str(tmp_path))
    (tmp_path / "bin.baml").write_bytes(b"function\x00")
    with pytest.raises(assay.SourceError) as e:
        assay.load(str(tmp_path / "bin.baml"))
    assert str(e.value) == f"{tmp_path / 'bin.baml'}:1:9: error: binary file (contains a NUL byte), not BAML source"
    r = assay_cli("check", tmp_path / "bin.baml")  # the CLI's one message
    assert r.stderr.strip() == str(e.value)


def test_functions_named_like_program_attributes_stay_reachable():
    prog = assay.compile("""
function call(x: int) -> int { x + 1 }
function types() -> string { "t" }
function bind(s: string) -> string { s + "!" }
function Plain() -> int { 7 }
""")
    assert prog.function("call")(1) == 2
    assert prog.function("types")() == "t"
    assert prog.function("bind")("a") == "a!"
    assert prog.function("Plain") is prog.Plain  # the same handle
    assert prog.function("Plain")() == 7
    with pytest.raises((KeyError, AttributeError, LookupError)):
        prog.function("Nope")
