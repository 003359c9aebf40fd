"""Long operator chains compile without recursion (parser, checker, lowering, code generation):
5,000-term chains over parameters, mixed operators, `&&`/`||` and `??` chains, in `assay check`,
`assay run` and the Python API; what is still too deep (parentheses nested thousands deep) is a
located diagnostic, and so is a 100,000-deep JSON document given to `--args`."""
import json
import subprocess
import sys

import pytest

import assay

N = 5000


def arith():
    # x + x - x * 2 + x - x * 2 …: mixed precedence, left-assoc
    terms = ["x"]
    for i in range(1, N):
        terms.append(["+ x", "- x * 2", "+ x % 3"][i % 3])
    return " ".join(terms)


def arith_value(x):
    total = x
    for i in range(1, N):
        total += [x, -x * 2, x % 3][i % 3]
    return total


PROGRAM = f"""
function add(x: int) -> int {{
  {" + ".join(["x"] * N)}
}}
function mixed(x: int) -> int {{
  {arith()}
}}
function all(a: bool, b: bool) -> bool {{
  {" && ".join(["a", "b"] * (N // 2))}
}}
function some(a: bool, b: bool) -> bool {{
  {" || ".join(["a && b", "b && a"] * (N // 4))}
}}
function first(a: int?, b: int?) -> int {{
  {" ?? ".join(["a", "b"] * (N // 2))} ?? 7
}}
function concat(s: string) -> string {{
  {" + ".join(["s"] * N)}
}}
function compare(x: int) -> bool {{
  {" + ".join(["x"] * N)} == x * {N}
}}
"""

CASES = [
    ("add", {"x": 3}, 3 * N),
    ("mixed", {"x": 5}, arith_value(5)),
    ("all", {"a": True, "b": True}, True),
    ("all", {"a": True, "b": False}, False),
    ("some", {"a": True, "b": False}, False),
    ("some", {"a": True, "b": True}, True),
    ("first", {"a": None, "b": None}, 7),
    ("first", {"a": None, "b": 4}, 4),
    ("concat", {"s": "ab"}, "ab" * N),
    ("compare", {"x": 2}, True),
]


@pytest.fixture(scope="module")
def prog_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("chains") / "chains.baml"
    p.write_text(PROGRAM)
    return p


def assay_cli(*args):
    return subprocess.run([sys.executable, "-m", "assay.cli.main", *map(str, args)],
                          capture_output=True, text=True, timeout=300)


def test_api_runs_long_chains():
    prog = assay.compile(PROGRAM)
    for fn, args, want in CASES:
        assert getattr(prog, fn)(**args) == want, fn


def test_check_accepts_long_chains(prog_file):
    r = assay_cli("check", prog_file)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip() == "ok: 1 file checked"


@pytest.mark.parametrize("fn, args, want", CASES[:1] + CASES[3:4] + CASES[7:8])
def test_run_long_chains(prog_file, fn, args, want):
    r = assay_cli("run", prog_file, fn, "--args", json.dumps(args), "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"result": want}


def test_too_deep_nesting_is_a_located_diagnostic(tmp_path):
    p = tmp_path / "deep.baml"
    p.write_text("function f(x: int) -> int {\n  " + "(x + " * 3000 + "x" + ")" * 3000 + "\n}\n")
    r = assay_cli("check", p)
    assert r.returncode == 1
    assert r.stdout.startswith(f"{p}:2:") and "error[E" in r.stdout and "internal error" not in r.stderr
    with pytest.raises(assay.CompileError) as e:
        assay.load(str(p))
    assert "too deep" in str(e.value)


def test_deep_json_args_are_a_usage_error(prog_file, tmp_path):
    f = tmp_path / "deep.json"
    f.write_text('{"x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    r = assay_cli("run", prog_file, "add", "--args", f"@{f}")
    assert r.returncode == 2
    assert r.stderr.strip() == f"error: {f}: JSON nested too deeply"
