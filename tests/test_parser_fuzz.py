"""Fuzzing: the lexer/parser never raise and every diagnostic span lies inside the text."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from assay.source import SourceFile
from assay.syntax.parser import parse_file, parse_type

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = sorted((SHARED / "corpus").glob("ns_*/*.baml")) if (SHARED / "corpus").is_dir() else []
_TOKEN = re.compile(r"\s+|[A-Za-z_][A-Za-z0-9_]*|\d+|\"(?:[^\"\\]|\\.)*\"|.", re.S)

# small corpus snippets (one function each) keep every example fast
SNIPPETS: list[str] = []
for p in CORPUS:
    text = p.read_text()
    for m in re.finditer(r"^(?:function|class|test|enum)\b.*?^}", text, re.S | re.M):
        if len(m.group()) < 1500:
            SNIPPETS.append(m.group())
if not SNIPPETS:
    SNIPPETS = ["function f(x: int) -> int {\n  let y = [1, 2]\n  match (x) { 1 => `a${x}`, _ => y[0] }\n}"]

FRAGMENTS = ["{", "}", "(", ")", "[", "]", "`", "${", "\"", "'", "=>", "->", "..", "...", "let", "if", "else",
             "match", "for", "in", "while", "catch", "|", "?.", "??", ";", ",", ":", "@", "@@", "/*", "//", "\\",
             "\n", "function", "class", "r\"", "b\"", "123n", "0x", "<", ">>", "=", "+=", "is", "_", "endfor"]


def check(text: str):
    src = SourceFile("fuzz.baml", text)
    f, diags = parse_file(src)
    n = len(text)
    for d in diags:
        assert d.span is not None
        assert 0 <= d.span.start <= d.span.end <= n, (d, n)
        assert "internal parser error" not in d.message, (d.message, text)  # a caught Python exception
        d.render()
    _walk_spans(f.items, n)
    return diags


def _walk_spans(x, n, depth=0):
    if depth > 400:
        return
    if isinstance(x, (list, tuple)):
        for y in x:
            _walk_spans(y, n, depth + 1)
    elif hasattr(x, "__dataclass_fields__"):
        sp = getattr(x, "span", None)
        if sp is not None:
            assert 0 <= sp.start <= sp.end <= n, (type(x).__name__, sp.start, sp.end, n)
        for k in x.__dataclass_fields__:
            if k not in ("span", "source"):
                _walk_spans(getattr(x, k), n, depth + 1)


FAST = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))


@FAST
@given(st.binary(max_size=300))
def test_random_bytes(data):
    check(data.decode("utf-8", "replace"))
    parse_type(SourceFile("t", data.decode("latin-1")))


@FAST
@given(st.text(max_size=300))
def test_random_text(text):
    check(text)


@FAST
@given(st.lists(st.sampled_from(FRAGMENTS + ["x", "1", " ", "int", "P", "{ a: 1 }"]), max_size=60))
def test_random_fragments(parts):
    check(" ".join(parts))
    check("".join(parts))


@st.composite
def mutated(draw):
    text = draw(st.sampled_from(SNIPPETS))
    toks = _TOKEN.findall(text)
    for _ in range(draw(st.integers(1, 6))):
        if not toks:
            break
        i = draw(st.integers(0, len(toks) - 1))
        op = draw(st.integers(0, 4))
        if op == 0:
            del toks[i]
        elif op == 1:
            toks.insert(i, draw(st.sampled_from(FRAGMENTS)))
        elif op == 2:
            toks.insert(i, toks[i])
        elif op == 3:
            s = toks[i]
            j = draw(st.integers(0, len(s)))
            toks[i] = s[:j] + s[j + 1:]
        else:
            toks[i] = toks[i] + draw(st.sampled_from(["(", "{", "`", "\"", "$", "\\"]))
    return "".join(toks)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(mutated())
def test_mutated_corpus(text):
    check(text)


@pytest.mark.parametrize("text", [
    "(" * 5000, "[" * 5000, "{" * 5000, "function f() -> int { " + "(" * 3000 + "1" + ")" * 3000 + " }",
    "function f() -> int { " + "-" * 5000 + "1 }", "function f() -> int { " + "!" * 3000 + "x }",
    "function f() -> int { " + "`${" * 500 + " }", "type T = " + "(" * 3000,
    "function f() -> int { match x { " + "[" * 2000 + " } }", "\x00\xff\ud800",
    "function f() -> int { x" + ".a" * 3000 + " }",
    "function f() -> int { " + "if x { " * 800 + " }",
])
def test_pathological(text):
    check(text)


# the whole front end (parse, index, check) on seeded mutations of this repository's own programs:
# never a Python exception, never a checker crash (E9999), every diagnostic located in the text
LOCAL = sorted(Path(__file__).resolve().parent.glob("checker/*.baml")) + \
    sorted(Path(__file__).resolve().parent.glob("programs/ns_*/*.baml"))
_SECTION = re.compile(r"^// ---- \w+\n", re.M)


def _local_programs() -> list[str]:
    out = []
    for p in LOCAL:
        out += [t for t in _SECTION.split(p.read_text()) if 20 < len(t) < 1500]
    return out


def _mutate(rnd, text: str) -> str:
    toks = _TOKEN.findall(text)
    for _ in range(rnd.randint(1, 5)):
        if not toks:
            break
        i = rnd.randrange(len(toks))
        op = rnd.randrange(5)
        if op == 0:
            del toks[i]
        elif op == 1:
            toks.insert(i, rnd.choice(FRAGMENTS + ["#\"", "@x", "@@x", "<", "<>", ",", "=>", "function", "enum"]))
        elif op == 2:
            toks.insert(i, toks[i])
        elif op == 3:
            toks[i] = toks[i][:-1]
        else:
            toks[i], toks[-1] = toks[-1], toks[i]
    return "".join(toks)


def test_front_end_never_raises_on_mutated_programs():
    import random
    from assay.compiler import analyze
    progs = _local_programs()
    rnd = random.Random(20261202)
    for k in range(800):
        text = _mutate(rnd, rnd.choice(progs))
        _, diags = analyze([SourceFile("m.baml", text, "m")])
        for d in diags:
            assert d.code != "E9999" and "internal parser error" not in d.message, (d.message, text)
            if d.span is not None:
                assert 0 <= d.span.start <= d.span.end <= len(text), (d, text)
