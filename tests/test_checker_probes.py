"""The checker against the engine, program by program: tests/checker/<class>.baml holds small
programs, each after a `// ---- name` line, for one class of check (optional values used as
non-optional, defaulted parameters passed positionally, ordering and arithmetic operands, index
types, `throws` contracts, function types without `throws`, bodies without a value, names,
attributes, escapes, duplicates, removed syntax, invariant containers and function types,
inference of empty literals and type parameters, unreachable match arms, builtin members) — the
rejected ones and close relatives the
engine accepts.

The engine's verdicts are computed at test time (never stored): every program goes into ONE
project as `ns_<class>_<name>/<class>_<name>.baml`. A program the engine accepts must check
clean; one it rejects must be rejected by Assay with the engine's first diagnostic (code and
line:col; the engine's order is not positional, so "first" is the earliest position)."""
from __future__ import annotations

import glob
import os
import re

import pytest

from assay.compiler import analyze
from assay.source import SourceFile

import difflib_baml as dl

HERE = os.path.dirname(__file__)
_SECTION = re.compile(r"^// ---- (\w+)\n", re.M)
_DIAG = re.compile(r"""(?:^|\\n|['"])(\w+)\.baml:(\d+):(\d+)(?:-\d+:\d+)? error\[(E\d+)\]""", re.M)

# programs where Assay still differs from the engine: name -> why (each must still differ)
KNOWN: dict[str, str] = {}


def _programs() -> dict[str, str]:
    out = {}
    for path in sorted(glob.glob(os.path.join(HERE, "checker", "*.baml"))):
        cls = os.path.basename(path)[:-5]
        parts = _SECTION.split(open(path).read())
        for i in range(1, len(parts), 2):
            out[f"{cls}_{parts[i]}"] = parts[i + 1]
    return out


PROGRAMS = _programs()


@pytest.fixture(scope="module")
def engine_errors():
    pytest.importorskip("baml_bridge")
    return dl.engine_diagnostics(PROGRAMS, _DIAG)


def assay_errors(name: str, text: str) -> list:
    _, diags = analyze([SourceFile(f"{name}.baml", text, name)])
    crash = [d.message for d in diags if d.code == "E9999"]  # a checker crash drops its diagnostics
    assert not crash, f"{name}: {crash}"
    return [(d.code, *d.span.line_col) for d in diags if d.severity == "error" and d.span]


def verdict(eng: list, ours: list) -> str:
    if not eng:
        return "agree" if not ours else "over-rejects"
    if not ours:
        return "accepts"
    first = min(d[1:] for d in eng)  # several may stand at the earliest position
    return "agree" if any(d in ours for d in eng if d[1:] == first) else "differs"


def test_enough_programs():
    assert len(PROGRAMS) >= 100


def test_checker_agrees_with_engine(engine_errors):
    bad, still_known = [], []
    for name, text in PROGRAMS.items():
        eng, ours = engine_errors.get(name, []), assay_errors(name, text)
        v = verdict(eng, ours)
        if name in KNOWN:
            if v == "agree":
                still_known.append(name)
        elif v != "agree":
            bad.append(f"{name}: {v}; engine {sorted(eng, key=lambda d: d[1:])[:2]} assay {ours[:2]}")
    assert not bad, "\n".join(bad)
    assert not still_known, f"listed as differing but now agree: {still_known}"


def test_ingot_annotations_never_reach_the_attribute_check():
    """`@ingot` / `@@ingot` are Assay's annotations, stripped before parsing in every entry
    point (compiler.analyze): never an unknown attribute (E0015) though the engine has none."""
    text = ('class P {\n  n int @ingot({unit: "m"})\n  @@ingot({kind: "point"})\n}\n'
            'enum E {\n  A @ingot({x: 1})\n}\n')
    assert assay_errors("ingot_attrs", text) == []
