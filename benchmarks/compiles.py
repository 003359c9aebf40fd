"""Every benchmark program compiles on Assay: the .baml files under benchmarks/ (explore/ too)
and the generated program of the cold measurement (gen_big.py). A benchmark that stops
compiling (a checker that got stricter, as the engine is) would otherwise surface only when
someone runs the benchmarks; tests/test_benchmarks.py runs this in the suite.

    python benchmarks/compiles.py        # exit 1, naming each file and its first error
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def programs() -> dict[str, str]:
    """name → BAML source of every benchmark program."""
    out = {str(p.relative_to(HERE)): p.read_text(encoding="utf-8") for p in sorted(HERE.rglob("*.baml"))}
    sys.path.insert(0, str(HERE))
    try:
        import gen_big
        out["gen_big.py (generated)"] = gen_big.generate()
    finally:
        sys.path.remove(str(HERE))
    return out


def failures() -> dict[str, str]:
    """name → Assay's first compile error, for each program that does not compile."""
    import assay
    bad = {}
    for name, text in programs().items():
        try:
            assay.compile(text, name if name.endswith(".baml") else "big.baml")
        except assay.CompileError as e:
            bad[name] = str(e).splitlines()[0]
    return bad


def main() -> int:
    bad = failures()
    for name, err in bad.items():
        print(f"{name}: {err}")
    print(f"{len(programs()) - len(bad)} compile, {len(bad)} do not")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
