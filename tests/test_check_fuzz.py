"""`assay check` on broken input: never a Python exception, never an internal error — only
located diagnostics. Inputs: random text and mutated real programs (corpus and our own)."""
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.cli.main import check_sources
from assay.source import SourceFile

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[1] / "shared"
SEEDS = sorted((HERE / "programs").rglob("*.baml")) + sorted((SHARED / "corpus").rglob("*.baml"))
TEXTS = [p.read_text() for p in SEEDS]
TOKENS = ["{", "}", "(", ")", "[", "]", ";", ",", ".", "?.", "??", "=>", "->", "let ", "match ",
          "if ", "else ", "for ", "while ", "return ", "throw ", "catch ", "class ", "function ",
          "int", "string", "null", "1", "1.5", '"s"', "`t${x}`", "x", "_", "|", "&&", "=", "+",
          "/", "%", "<<", "is ", "..", "@alias(\"a\")", "Color.Red", "self", "\n"]

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def check_text(text: str) -> None:
    diags = check_sources([SourceFile("fuzz.baml", text)])
    for d in diags:
        assert d.code != "E9999", d.render()
        if d.span is not None:
            assert 0 <= d.span.start <= len(text)


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(TEXTS))
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete", "duplicate", "insert", "swap", "cut"]))
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        if kind == "delete" and lines:
            del lines[i]
        elif kind == "duplicate" and lines:
            lines.insert(i, lines[i])
        elif kind == "swap" and len(lines) > 1:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "cut" and lines:
            line = lines[i]
            a = draw(st.integers(0, len(line)))
            lines[i] = line[:a] + line[a + draw(st.integers(0, 8)):]
        else:
            line = lines[i] if lines else ""
            a = draw(st.integers(0, len(line)))
            lines[i:i + 1] = [line[:a] + draw(st.sampled_from(TOKENS)) + line[a:]]
    return "\n".join(lines)


@SETTINGS
@given(mutated())
def test_mutated_programs_give_diagnostics_only(text):
    check_text(text)


@SETTINGS
@given(st.text(max_size=300))
def test_random_text_gives_diagnostics_only(text):
    check_text(text)


@SETTINGS
@given(st.lists(st.sampled_from(TOKENS), max_size=60).map("".join))
def test_token_soup_gives_diagnostics_only(text):
    check_text(text)
