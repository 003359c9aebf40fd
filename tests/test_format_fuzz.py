"""The stdlib's text parsers on hostile input (regex patterns, YAML, TOML, CSV, JSON, base64):
a BAML program passing arbitrary text to them gets a result or a BAML error — never a Python
exception leaking out of the VM. Inputs: random text and snippets of each format's syntax."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import assay

PROGRAM = """
function Rx(s: string) -> bool { baml.regex.new(s).has_match("abc 123 _x") }
function RxBt(s: string) -> string[] { baml.regex.new(s, backtracking = true).split("a-b c") }
function Yaml(s: string) -> json { baml.yaml.parse(s) }
function Toml(s: string) -> json { baml.toml.Table.parse(s).to_json() }
function Csv(s: string) -> string[][] { baml.csv.parse(s) }
function Json(s: string) -> json { baml.json.parse(s) }
function B64(s: string) -> uint8array { uint8array.from_base64(s) }
"""

SNIPPETS = {
    "Rx": ["(", ")", "[", "]", "{2,}", "\\d", "\\p{L}", "(?i)", "(?<n>", "|", "*", "+?", "^", "$",
           "[[:alpha:]]", "[a-z&&[^x]]", "\\b", "(?=", "\\1", "\\", "x{99999}", "."],
    "Yaml": ["a: 1", "- x", "\n", "  ", "{", "}", "[", "]", ":", "&a", "*a", "!!int", "---", "'",
             '"', "#", "? k", "0x1F", ".inf", "|", ">", "\t"],
    "Toml": ["a = 1", "[t]", "[[arr]]", "\n", "=", '"s"', "'''", "1979-05-27", "inf", "0x1", "{",
             "}", "a.b = 2", "#", "[", "]", ","],
    "Csv": [",", "\n", '"', '""', "\r\n", "a", " ", "\ufeff", ";"],
    "Json": ["{", "}", "[", "]", ":", ",", '"', "1e999", "-0", "null", "tru", "\\u12", "1"],
    "B64": ["=", "==", "A", "/", "+", "-", "_", " ", "aGVsbG8", "\n"],
}
SNIPPETS["RxBt"] = SNIPPETS["Rx"] + ["(?<=a)", "(?!b)", "\\k<n>", "(?>a)", "a++"]

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def prog(tmp_path_factory):
    path = tmp_path_factory.mktemp("fuzz") / "formats.baml"
    path.write_text(PROGRAM)
    return assay.load(str(path))


def texts(fn: str):
    soup = st.lists(st.sampled_from(SNIPPETS[fn]), max_size=12).map("".join)
    return st.one_of(st.text(max_size=40), soup)


def call(prog, fn: str, text: str) -> None:
    try:
        prog.call(fn, s=text)
    except (assay.BamlError, assay.BamlPanic):
        pass  # a BAML error is the contract; anything else leaks out of the VM


@pytest.mark.parametrize("fn", sorted(SNIPPETS))
def test_parsers_answer_in_baml_terms(prog, fn):
    @SETTINGS
    @given(texts(fn))
    def run(text):
        call(prog, fn, text)
    run()
