"""Compare one or more BAML files on the real engine and on Assay, for exploring a construct.

    python tools/probe.py FILE.baml… [-v]

Each file becomes namespace `p<i>` of ONE engine runtime (`ns_p<i>/p<i>.baml`); each `// call: {json args}` line
before a top-level function is a call of it on both engines (`p<i>.Fn`). A file the engine rejects is reported with both engines' first
diagnostics. -v prints agreeing calls too. Exit 1 on any disagreement.
"""
from __future__ import annotations

import copy
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

import difflib_baml as dl  # noqa: E402

_DIAG = re.compile(r"""(?:^|\\n|['"])(\w+)\.baml:(\d+):(\d+)(?:-\d+:\d+)? error\[(E\d+)\]""", re.M)


def _assay_errors(name: str, text: str) -> list:
    from assay.compiler import analyze
    from assay.source import SourceFile
    _, diags = analyze([SourceFile(f"{name}.baml", text, name)])
    return [(d.code, *d.span.line_col, d.message) for d in diags if d.severity == "error" and d.span]


def main(argv: list[str]) -> int:
    import assay
    verbose = "-v" in argv
    paths = [a for a in argv if not a.startswith("-")]
    texts = {f"p{i}": open(p, encoding="utf-8").read() for i, p in enumerate(paths)}
    eng_errs = dl.engine_diagnostics(texts, _DIAG)
    bad = 0
    ok_texts = {}
    for name, text in texts.items():
        ours = _assay_errors(name, text)
        eng = eng_errs.get(name, [])
        if eng or ours:
            first = min(d[1:] for d in eng) if eng else None
            agree = (not eng and not ours) or (eng and any(d[:3] in [(e[0], *e[1:]) for e in eng]
                                                           for d in ours if tuple(d[1:3]) == first))
            bad += not agree
            print(f"{'AGREE' if agree else 'DIFFER'} compile {name}: engine {sorted(eng)[:3]} "
                  f"assay {[d[:3] for d in ours][:3]} {ours[0][3] if ours else ''}")
        if not eng:
            ok_texts[name] = text
    if not ok_texts:
        return 1 if bad else 0
    files = {f"ns_{n}/{n}.baml": t for n, t in ok_texts.items()}
    rt = dl.build_engine_runtime(files)
    with tempfile.TemporaryDirectory() as d:
        for rel, t in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
            open(os.path.join(d, rel), "w", encoding="utf-8").write(t)
        try:
            prog = assay.load(d)
        except Exception as e:  # noqa: BLE001 - shown, not raised
            print(f"ASSAY LOAD FAILED: {type(e).__name__}: {e}")
            return 1
        n = 0
        for rel, t in files.items():
            for c in dl.parse_calls(rel, t):
                n += 1
                e = dl.engine_call(rt, c.qualified, c.args)
                a = dl.assay_call(prog, c.qualified, copy.deepcopy(c.args))
                same = dl.outcomes_equal(e, a)
                bad += not same
                if not same:
                    print(dl.mismatch_message(f"{c.qualified} (line {c.line})", c.args, e, a))
                elif verbose:
                    print(f"ok {c.qualified} {dl.show_plain(c.args)} -> {e.show()}")
    print(f"{n} calls, {bad} disagreements")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
