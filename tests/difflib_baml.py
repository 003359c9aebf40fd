"""Helpers for the differential test suite: Assay vs the real BAML engine (baml_bridge).

Nothing the engine answers is ever stored: every comparison runs both sides at test time.

Layout: ``tests/programs/ns_<x>/*.baml`` -- every file under ``ns_<x>/`` belongs to BAML
namespace ``x``.  An entry function is preceded by one or more comment lines::

    // call: {"a": 1, "b": 0}
    function div(a: int, b: int) -> int { a / b }

(JSON object of keyword arguments; ``NaN``/``Infinity``/``-Infinity`` allowed).

The engine side needs ONE runtime holding all programs (a runtime costs seconds to
start).  A single compile error anywhere breaks the whole runtime, so
``python tests/difflib_baml.py`` checks the engine side alone and reports every call.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TESTS_DIR = Path(__file__).resolve().parent
PROGRAMS_DIR = TESTS_DIR / "programs"
SHARED_DIR = TESTS_DIR.resolve().parents[1] / "shared"

CALL_RE = re.compile(r"^\s*//\s*call:\s*(.*?)\s*$")
FUNC_RE = re.compile(r"^function\s+([A-Za-z_][A-Za-z0-9_]*)")


def engine_only() -> bool:
    return os.environ.get("ASSAY_DIFF_ENGINE_ONLY", "") not in ("", "0")


# --------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    ns: str            # namespace (without ns_ prefix)
    fn: str            # function name
    k: int             # index of this call among the function's calls
    args: dict         # keyword arguments
    file: str          # path relative to the programs dir
    line: int          # 1-based line of the // call: comment

    @property
    def qualified(self) -> str:
        return f"{self.ns}.{self.fn}"

    @property
    def id(self) -> str:
        return f"{self.ns}.{self.fn}[{self.k}]"


def namespace_of(rel: Path) -> str:
    top = rel.parts[0]
    if not top.startswith("ns_") or len(rel.parts) < 2:
        raise ValueError(f"program file outside an ns_<x>/ directory: {rel}")
    return top[3:]


def program_files(root: Path = PROGRAMS_DIR) -> dict[str, str]:
    """All .baml files under root as {relative posix path: text}."""
    out: dict[str, str] = {}
    for p in sorted(root.rglob("*.baml")):
        out[p.relative_to(root).as_posix()] = p.read_text(encoding="utf-8")
    return out


EXPLORE_DEV = Path(__file__).resolve().parents[1] / "benchmarks" / "explore"


def explore_dev_files() -> dict[str, str]:
    """The explore dev suite (benchmarks/explore) as namespace `xdev` of the shared engine."""
    return {f"ns_xdev/{p.name}": p.read_text(encoding="utf-8") for p in sorted(EXPLORE_DEV.glob("*.baml"))}


def parse_calls(rel: str, text: str) -> list[Case]:
    ns = namespace_of(Path(rel))
    cases: list[Case] = []
    pending: list[tuple[int, dict]] = []
    seen: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), 1):
        m = CALL_RE.match(line)
        if m:
            try:
                args = json.loads(m.group(1))
            except json.JSONDecodeError as e:  # pragma: no cover - authoring error
                raise ValueError(f"{rel}:{lineno}: bad // call: JSON: {e}") from None
            if not isinstance(args, dict):
                raise ValueError(f"{rel}:{lineno}: // call: must be a JSON object")
            pending.append((lineno, args))
            continue
        fm = FUNC_RE.match(line)
        if fm and pending:
            fn = fm.group(1)
            for ln, args in pending:
                k = seen.get(fn, 0)
                seen[fn] = k + 1
                cases.append(Case(ns, fn, k, args, rel, ln))
            pending = []
    if pending:
        raise ValueError(f"{rel}: // call: lines not followed by a top-level function")
    return cases


def collect_cases(root: Path = PROGRAMS_DIR) -> list[Case]:
    cases: list[Case] = []
    for rel, text in program_files(root).items():
        cases.extend(parse_calls(rel, text))
    ids = [c.id for c in cases]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise ValueError(f"duplicate case ids (same function in one namespace twice?): {sorted(dup)}")
    return cases


# --------------------------------------------------------------------------- outcomes


@dataclass
class Outcome:
    kind: str                  # "ok" | "panic" | "error" | "harness"
    value: Any = None          # plain result (ok) / plain thrown value (error, panic)
    class_name: str | None = None
    fields: dict | None = None  # fields of a class-valued error / panic
    detail: str = ""            # free text (harness failures, messages)

    def show(self) -> str:
        if self.kind == "ok":
            return f"ok {show_plain(self.value)}"
        if self.kind == "harness":
            return f"HARNESS FAILURE {self.detail}"
        body = show_plain(self.fields) if self.fields is not None else show_plain(self.value)
        return f"{self.kind} {self.class_name} {body}"


def show_plain(v: Any) -> str:
    """repr that keeps int/float/bool apart and shows NaN/-0.0 unambiguously."""
    if isinstance(v, bool) or v is None:
        return repr(v)
    if isinstance(v, int):
        return repr(v)
    if isinstance(v, float):
        return f"float({v!r})"
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, dict):
        return "{" + ", ".join(f"{show_plain(k)}: {show_plain(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(show_plain(x) for x in v) + "]"
    return f"<{type(v).__name__} {v!r}>"


def normalize(v: Any) -> Any:
    """Engine/assay value -> plain JSON-like data (dict/list/str/int/float/bool/None)."""
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, dict):
        return {normalize(k): normalize(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [normalize(x) for x in v]
    import enum
    if isinstance(v, enum.Enum):
        return v.name
    dump = getattr(v, "model_dump", None)
    if callable(dump):
        return normalize(dump())
    return v


def plain_equal(a: Any, b: Any) -> bool:
    """Exact structural equality: int != float != bool, NaN == NaN, -0.0 != 0.0,
    dict key ORDER matters (maps are insertion ordered, classes in declaration order)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    if isinstance(a, dict):
        if list(a.keys()) != list(b.keys()):
            return False
        return all(plain_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(plain_equal(x, y) for x, y in zip(a, b))
    return a == b


def outcomes_equal(e: Outcome, a: Outcome) -> bool:
    if e.kind == "harness" or a.kind == "harness":
        return False
    if e.kind != a.kind:
        return False
    if e.kind == "ok":
        return plain_equal(e.value, a.value)
    if e.class_name != a.class_name:
        return False
    if e.class_name is None:          # thrown primitive
        return plain_equal(e.value, a.value)
    ef = e.fields if e.fields is not None else e.value
    af = a.fields if a.fields is not None else a.value
    return plain_equal(ef, af)


def mismatch_message(case_id: str, args: Any, e: Outcome, a: Outcome) -> str:
    return (f"{case_id} args={show_plain(args)}\n"
            f"  engine: {e.show()}\n"
            f"  assay : {a.show()}")


# --------------------------------------------------------------------------- engine side


_TYPEMAP_SET = False


def _install_typemap() -> None:
    global _TYPEMAP_SET
    if _TYPEMAP_SET:
        return
    import baml_bridge as bb
    from baml_bridge.typemap import BamlTypeMap, set_type_map

    class Loose(BamlTypeMap):
        def get_class(self, fqn):  # class results decode to field dicts
            return dict

        def get_enum(self, fqn):  # enums decode to the variant name
            raise bb.BamlError("loose")

    set_type_map(Loose())
    _TYPEMAP_SET = True


class EngineCompileError(RuntimeError):
    pass


# baml_bridge 0.23.0 serves calls from the runtime built last: one built after the session's
# shared runtime makes that one lose its functions. Every runtime a test builds is noted here,
# so that the shared one (tests/conftest.py) can tell and build itself again.
_LATEST: list = [None]


def note_runtime(rt) -> None:
    _LATEST[0] = rt


def latest_runtime():
    return _LATEST[0]


def build_engine_runtime(files: dict[str, str]):
    """files: {"ns_x/f.baml": text}; main.baml is added (empty) when absent."""
    import baml_bridge as bb
    _install_typemap()
    files = dict(files)
    files.setdefault("main.baml", "")
    try:
        rt = bb.BamlRuntime.initialize_runtime(".", files)
    except (bb.BamlPanic, bb.BamlError) as e:
        raise EngineCompileError(f"engine failed to build the runtime: {e}") from None
    note_runtime(rt)
    return rt


def engine_diagnostics(programs: dict[str, str], pattern: "re.Pattern") -> dict[str, list]:
    """Compile every program (name → text) in ONE engine project, each as `ns_<name>/<name>.baml`;
    name → [(code, line, col)] of the engine's diagnostics that `pattern` (groups: name, line,
    col, code) reads (absent: none, the program was accepted)."""
    import baml_bridge as bb
    files = {"main.baml": ""}
    files.update({f"ns_{n}/{n}.baml": t for n, t in programs.items()})
    try:
        note_runtime(bb.BamlRuntime.initialize_runtime(".", files))
        text = ""
    except BaseException as e:  # noqa: BLE001 - the engine reports compile errors as a panic
        text = str(e)
    out: dict[str, list] = {}
    for m in pattern.finditer(text):
        out.setdefault(m.group(1), []).append((m.group(4), int(m.group(2)), int(m.group(3))))
    return out


def engine_call(rt, qualified: str, args: dict) -> Outcome:
    import baml_bridge as bb
    try:
        r = bb.call_function_sync(rt, qualified, dict(args)).result()
    except bb.BamlPanic as e:
        v = normalize(getattr(e, "value", None))
        if getattr(e, "class_name", None) == "baml.panics.SdkPanic":
            # host-boundary failure (e.g. a map with non-string keys as the result)
            return Outcome("harness", detail=f"engine SdkPanic: {e}")
        return Outcome("panic", v, getattr(e, "class_name", None),
                       v if isinstance(v, dict) else None, str(e))
    except bb.BamlError as e:
        v = normalize(getattr(e, "value", None))
        cn = getattr(e, "class_name", None)
        return Outcome("error", v, cn, v if (cn is not None and isinstance(v, dict)) else None, str(e))
    except Exception as e:  # TypeError for bad arguments, unknown function, ...
        return Outcome("harness", detail=f"{type(e).__name__}: {e}")
    return Outcome("ok", normalize(r))


# --------------------------------------------------------------------------- assay side


def assay_call(prog, qualified: str, args: dict) -> Outcome:
    import assay
    panic_t = getattr(assay, "BamlPanic", None)
    error_t = getattr(assay, "BamlError", None)
    try:
        r = prog.call(qualified, **args)
    except BaseException as e:  # noqa: BLE001 - classify below
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            raise
        if panic_t is not None and isinstance(e, panic_t):
            kind = "panic"
        elif error_t is not None and isinstance(e, error_t):
            kind = "error"
        else:
            return Outcome("harness", detail=f"{type(e).__name__}: {e}")
        fields = getattr(e, "fields", None)
        return Outcome(kind, normalize(getattr(e, "value", None)), getattr(e, "class_name", None),
                       normalize(fields) if fields is not None else None, str(e))
    try:
        plain = assay.to_plain(r)
    except Exception as e:  # noqa: BLE001
        return Outcome("harness", detail=f"to_plain failed: {type(e).__name__}: {e}")
    return Outcome("ok", normalize(plain))


# --------------------------------------------------------------------------- CLI


def main(argv: list[str]) -> int:
    """Engine-only check: build the runtime with every program (+ the hypothesis
    namespace) and run every // call:.  Exit 1 on a compile error or harness failure."""
    import time
    only = [a for a in argv if not a.startswith("-")]
    verbose = "-v" in argv
    files = program_files()
    if only:
        files = {k: v for k, v in files.items() if any(k.startswith(f"ns_{o}/") or k.startswith(o) for o in only)}
    else:
        files.update(hyp_files())
    t = time.time()
    try:
        rt = build_engine_runtime(files)
    except EngineCompileError as e:
        print(e)
        return 1
    print(f"runtime with {len(files)} files built in {time.time() - t:.1f}s")
    bad = 0
    n = 0
    kinds: dict[str, int] = {}
    for rel, text in files.items():
        if not rel.startswith("ns_") or rel.startswith("ns_hyp"):
            continue
        for c in parse_calls(rel, text):
            n += 1
            t0 = time.time()
            o = engine_call(rt, c.qualified, c.args)
            dt = time.time() - t0
            kinds[o.kind] = kinds.get(o.kind, 0) + 1
            if o.kind == "harness":
                bad += 1
                print(f"HARNESS {c.id} ({c.file}:{c.line}): {o.detail}")
            elif verbose or dt > 1.0:
                print(f"{c.id} {show_plain(c.args)} -> {o.show()}  [{dt:.2f}s]")
    print(f"{n} calls, outcomes {kinds}, {bad} harness failures")
    return 1 if bad else 0



# --------------------------------------------------------------------------- generated expressions
#
# A FIXED set of random, well-typed expression functions (seeded, built at import) that
# becomes namespace `hyp` of the shared engine runtime; hypothesis then draws ARGUMENTS.

HYP_NS = "hyp"
HYP_SEED = 20240611
HYP_COUNT_PER_TYPE = 15
HYP_PARAMS = "a: int, b: int, c: int, x: float, y: float, s: string, t: string"


class _ExprGen:
    def __init__(self, seed: int):
        import random
        self.r = random.Random(seed)

    def pick(self, *opts):
        return self.r.choice(opts)

    # every generator returns (source, has_param)
    def int_(self, d: int):
        r = self.r
        if d <= 0 or r.random() < 0.2:
            if r.random() < 0.7:
                return self.pick("a", "b", "c"), True
            return str(r.choice([0, 1, 2, 3, 5, 7, 9, 100])), False
        k = r.randrange(14)
        if k <= 3:
            op = self.pick("+", "-", "*", "&", "|", "^")
            (l, lp), (rr, rp) = self.int_(d - 1), self.int_(d - 1)
            if op == "*" and not (lp or rp):
                op = "+"  # the checker folds literal-only arithmetic: keep it overflow-free
            return f"({l} {op} {rr})", lp or rp
        if k == 4:
            op = self.pick("/", "%")
            l, lp = self.int_(d - 1)
            rr, _ = self.int_param(d - 1)
            return f"({l} {op} {rr})", True
        if k == 5:
            op = self.pick("<<", ">>")
            l, lp = self.int_(d - 1)
            if r.random() < 0.5:
                amt, _ = self.int_param(d - 1)
                return f"({l} {op} ({amt} & 63))", True
            amt, ap = self.int_param(d - 1)
            return f"({l} {op} {amt})", True
        if k == 6:
            op = self.pick("-", "~")
            e, p = self.int_(d - 1)
            return f"({op}{e})", p
        if k == 7:
            return f"{self.pick('s', 't')}.length()", True
        if k == 8:
            c, cp = self.bool_(d - 1)
            (l, lp), (rr, rp) = self.int_(d - 1), self.int_(d - 1)
            return f"(if ({c}) {{ {l} }} else {{ {rr} }})", cp or lp or rp
        if k == 9:
            e, p = self.int_(d - 1)
            m = self.pick("abs()", "min(b)", "max(c)", "count_ones()", "leading_zeros()", "clamp(-100, 100)")
            return f"({e}).{m}", True if "(b)" in m or "(c)" in m else p
        if k == 10:
            return f"({self.pick('s', 't')}.index_of({self.pick('s', 't', chr(34) + 'a' + chr(34))}) ?? -1)", True
        if k == 11:
            return f"(int.parse({self.pick('s', 't')}) catch (err) {{ _ => -1 }})", True
        if k == 12:
            f, _ = self.float_(d - 1)
            return f"(({f}).{self.pick('itrunc', 'iround', 'ifloor', 'iceil')}() catch (err) {{ _ => -2 }})", True
        e, p = self.int_(d - 1)
        return f"({e} + {self.pick('a', 'b', 'c')})", True

    def int_param(self, d: int):
        for _ in range(50):
            e, p = self.int_(d)
            if p:
                return e, p
        return self.pick("a", "b", "c"), True

    def float_(self, d: int):
        r = self.r
        if d <= 0 or r.random() < 0.2:
            if r.random() < 0.7:
                return self.pick("x", "y"), True
            return self.pick("1.5", "0.25", "2.0", "0.1", "1e10"), False
        k = r.randrange(10)
        if k <= 3:
            op = self.pick("+", "-", "*", "/", "%")
            (l, lp), (rr, rp) = self.float_(d - 1), self.float_(d - 1)
            return f"({l} {op} {rr})", lp or rp
        if k == 4:
            op = self.pick("+", "-", "*", "/")
            (l, lp), (rr, rp) = self.int_(d - 1), self.float_(d - 1)
            if r.random() < 0.5:
                return f"({l} {op} {rr})", lp or rp
            return f"({rr} {op} {l})", lp or rp
        if k == 5:
            e, p = self.float_(d - 1)
            return f"(-{e})", p
        if k == 6:
            e, p = self.float_(d - 1)
            m = self.pick("abs()", "floor()", "ceil()", "round()", "trunc()", "sqrt()", "min(y)", "max(x)", "fract()")
            return f"({e}).{m}", True
        if k == 7:
            return f"(float.parse({self.pick('s', 't')}) catch (err) {{ _ => 0.5 }})", True
        if k == 8:
            c, cp = self.bool_(d - 1)
            (l, lp), (rr, rp) = self.float_(d - 1), self.float_(d - 1)
            return f"(if ({c}) {{ {l} }} else {{ {rr} }})", True
        e, p = self.float_(d - 1)
        return f"({e} * 1.0)", p

    def bool_(self, d: int):
        r = self.r
        k = r.randrange(9 if d > 0 else 4)
        if k == 0:
            op = self.pick("<", "<=", ">", ">=", "==", "!=")
            (l, _), (rr, _) = self.int_(max(d - 1, 0)), self.int_(max(d - 1, 0))
            return f"({l} {op} {rr})", True
        if k == 1:
            op = self.pick("<", "<=", ">", ">=", "==", "!=")
            (l, _), (rr, _) = self.float_(max(d - 1, 0)), self.float_(max(d - 1, 0))
            return f"({l} {op} {rr})", True
        if k == 2:
            op = self.pick("<", ">=", "==", "!=")
            (l, _), (rr, _) = self.str_(max(d - 1, 0)), self.str_(max(d - 1, 0))
            return f"({l} {op} {rr})", True
        if k == 3:
            m = self.pick("includes", "starts_with", "ends_with")
            return f"{self.pick('s', 't')}.{m}({self.pick('s', 't')})", True
        if k in (4, 5):
            op = self.pick("&&", "||")
            (l, _), (rr, _) = self.bool_(d - 1), self.bool_(d - 1)
            return f"({l} {op} {rr})", True
        if k == 6:
            e, _ = self.pick(self.bool_, self.int_, self.str_, self.float_)(d - 1)
            return f"(!{e})", True
        if k == 7:
            (l, _), (rr, _) = self.int_(d - 1), self.float_(d - 1)
            return f"({l} {self.pick('==', '!=')} {rr})", True
        e, _ = self.float_(d - 1)
        return f"({e}).{self.pick('is_nan', 'is_finite', 'is_infinite')}()", True

    def str_(self, d: int):
        r = self.r
        if d <= 0 or r.random() < 0.2:
            if r.random() < 0.7:
                return self.pick("s", "t"), True
            return self.pick('"ab"', '"é"', '""', '" x "'), False
        k = r.randrange(10)
        if k <= 1:
            (l, lp), (rr, rp) = self.str_(d - 1), self.str_(d - 1)
            return f"({l} + {rr})", lp or rp
        if k == 2:
            e, _ = self.pick(self.int_, self.float_, self.bool_)(d - 1)
            return f"string.from({e})", True
        if k == 3:
            (i, _), (f, _), (st, _) = self.int_(d - 1), self.float_(d - 1), self.str_(d - 1)
            return f"`<${{{i}}}|${{{f}}}|${{{st}}}>`", True
        if k == 4:
            e, p = self.str_(d - 1)
            m = self.pick("to_upper_case()", "to_lower_case()", "trim()", "repeat(2)", "trim_start()")
            return f"({e}).{m}", p
        if k == 5:
            e, _ = self.str_(d - 1)
            (i, _), (j, _) = self.int_(d - 1), self.int_(d - 1)
            return f"({e}).slice({i}, {j})", True
        if k == 6:
            e, _ = self.str_(d - 1)
            return f"({e}).{self.pick('replace', 'replace_all')}({self.pick('s', 't', chr(34) + 'a' + chr(34))}, \"-\")", True
        if k == 7:
            e, _ = self.str_(d - 1)
            i, _ = self.int_(d - 1)
            return f"(({e}).at({i}) ?? \"?\")", True
        if k == 8:
            e, _ = self.str_(d - 1)
            return f"({e}).split({self.pick('t', chr(34) + ',' + chr(34), chr(34) + chr(34))}).join(\"|\")", True
        c, _ = self.bool_(d - 1)
        (l, _), (rr, _) = self.str_(d - 1), self.str_(d - 1)
        return f"(if ({c}) {{ {l} }} else {{ {rr} }})", True


def hyp_shapes() -> list[tuple[str, str, str]]:
    """[(function name, return type, body expression)], deterministic."""
    g = _ExprGen(HYP_SEED)
    out: list[tuple[str, str, str]] = []
    for ty, fn in (("int", g.int_), ("float", g.float_), ("bool", g.bool_), ("string", g.str_)):
        seen: set[str] = set()
        i = 0
        while i < HYP_COUNT_PER_TYPE:
            e, _ = fn(g.r.randint(3, 5))
            if e in seen or len(e) > 600 or len(e) < 24:
                continue
            seen.add(e)
            out.append((f"{ty}_expr_{i}", ty, e))
            i += 1
    return out


def hyp_source(only: str | None = None) -> str:
    lines = ["// Generated by tests/difflib_baml.py (hyp_shapes); do not edit.", ""]
    for name, ty, e in hyp_shapes():
        if only is not None and name != only:
            continue
        lines.append(f"function {name}({HYP_PARAMS}) -> {ty} {{")
        lines.append(f"  {e}")
        lines.append("}")
        lines.append("")
    return "\n".join(lines)


def hyp_function_source(name: str) -> str:
    return hyp_source(only=name)


def hyp_files() -> dict[str, str]:
    return {f"ns_{HYP_NS}/exprs.baml": hyp_source()}


# --------------------------------------------------------------------------- corpus conformance

CORPORA = ("corpus", "corpus-mutants")


@dataclass(frozen=True)
class CorpusEntry:
    corpus: str        # "corpus" | "corpus-mutants"
    file: str          # e.g. "ns_ints/ints.baml"
    test: str
    verdict: str       # "pass" | "fail"
    error_type: str | None

    @property
    def id(self) -> str:
        return f"{self.corpus}/{self.file}::{self.test}"

    @property
    def namespace(self) -> str:
        return self.file.split("/")[0]


def corpus_entries(shared: Path = SHARED_DIR) -> list[CorpusEntry]:
    out: list[CorpusEntry] = []
    for corpus in CORPORA:
        exp = shared / corpus / "expected.json"
        if not exp.is_file():
            continue
        for e in json.loads(exp.read_text(encoding="utf-8")):
            out.append(CorpusEntry(corpus, e["file"], e["test"], e["verdict"], e.get("error_type")))
    return out


@dataclass
class FileRun:
    records: dict          # test name -> record
    error: str | None      # load / run failure of the whole file


_FILE_RUNS: dict[tuple[str, str], FileRun] = {}


def run_corpus_file(corpus: str, file: str, shared: Path = SHARED_DIR) -> FileRun:
    key = (corpus, file)
    if key in _FILE_RUNS:
        return _FILE_RUNS[key]
    try:
        import assay
        prog = assay.load(str(shared / corpus / file))
        records = {r.name: r for r in prog.run_tests()}
        fr = FileRun(records, None)
    except Exception as e:  # noqa: BLE001
        kind = "compile" if type(e).__name__ == "CompileError" else "load/run"
        fr = FileRun({}, f"{kind} failure: {type(e).__name__}: {str(e)[:500]}")
    _FILE_RUNS[key] = fr
    return fr


def corpus_verdict(entry: CorpusEntry, shared: Path = SHARED_DIR) -> tuple[bool, str]:
    """(agrees, explanation) for one expected.json entry."""
    fr = run_corpus_file(entry.corpus, entry.file, shared)
    if fr.error is not None:
        return False, fr.error
    rec = fr.records.get(entry.test)
    if rec is None:
        return False, f"no record for test {entry.test!r} (got {sorted(fr.records)[:5]}...)"
    passed = bool(rec.passed)
    err = rec.error or {}
    got_type = err.get("type") if isinstance(err, dict) else getattr(err, "type", None)
    want_pass = entry.verdict == "pass"
    if passed != want_pass:
        return False, (f"verdict: expected {entry.verdict} ({entry.error_type}), assay "
                       f"{'pass' if passed else 'fail'} {err}")
    if not want_pass and got_type != entry.error_type:
        return False, f"error_type: expected {entry.error_type}, assay {got_type} ({err})"
    return True, "agree"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
