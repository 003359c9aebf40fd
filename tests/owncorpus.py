"""Assay's own corpus (tests/corpus/ns_<construct>/*.baml) and its mutants.

Programs with `test "name" { ... }` blocks, written from the reference; no verdict is stored:
tests/test_own_corpus.py asks the real engine at test time and compares with Assay.

Engine side: every test body becomes a wrapper function `__t_<stem>_<k>() -> void { body }`
(the file's other items stay as they are), placed in namespace `cp_<construct>` (the corpus)
or `cm_<construct>` (its mutants), and all of them join the ONE shared runtime of
tests/conftest.py.  Assay side: the same file under the same namespace, its test blocks run
natively (`run_tests`), so user error classes get the same name (`user.cp_x.MyErr`) on both.

Mutants are made here, mechanically, from the source: in every test the first `assert.equal`
whose expected side (its second argument) holds a mutable literal gets that literal changed,
keeping its type (int +1, bigint +1, float +0.5, string + "x", bool negated).  Both engines
must fail every mutated test (an author rule: each test has such an assertion).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import assay

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
ENGINE_PREFIX = {"corpus": "cp_", "mutants": "cm_"}

# --------------------------------------------------------------------------- scanning


def _skip_string(src: str, i: int) -> int:
    """src[i] is `"` or the `"` after r/b; the index after the closing quote."""
    raw = i > 0 and src[i - 1] == "r"
    i += 1
    while i < len(src):
        if src[i] == "\\" and not raw:
            i += 2
            continue
        if src[i] == '"':
            return i + 1
        i += 1
    return len(src)


def _skip_backtick(src: str, i: int) -> int:
    i += 1
    while i < len(src):
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == "`":
            return i + 1
        if src.startswith("${", i):
            i = _skip_braced(src, i + 1)
            continue
        i += 1
    return len(src)


def _skip_comment(src: str, i: int) -> int | None:
    if src.startswith("//", i):
        j = src.find("\n", i)
        return len(src) if j < 0 else j
    if src.startswith("/*", i):
        j = src.find("*/", i + 2)
        return len(src) if j < 0 else j + 2
    return None


def _skip_atom(src: str, i: int) -> int | None:
    """The index after a comment/string/template starting at i, or None."""
    j = _skip_comment(src, i)
    if j is not None:
        return j
    if src[i] == '"':
        return _skip_string(src, i)
    if src[i] == "`":
        return _skip_backtick(src, i)
    return None


def _skip_braced(src: str, i: int, open_c: str = "{", close_c: str = "}") -> int:
    """src[i] == open_c; the index after its matching close_c."""
    depth = 0
    while i < len(src):
        j = _skip_atom(src, i)
        if j is not None:
            i = j
            continue
        if src[i] == open_c:
            depth += 1
        elif src[i] == close_c:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    raise ValueError("unbalanced brackets")


_TEST_HEAD = re.compile(r'test\s+"((?:[^"\\]|\\.)*)"\s*\{')


@dataclass(frozen=True)
class TestBlock:
    name: str
    start: int        # offset of `test`
    end: int          # offset after the closing brace
    body_start: int   # offset after the opening brace
    body_end: int     # offset of the closing brace


def find_tests(src: str) -> list[TestBlock]:
    """The top-level `test "name" { ... }` blocks of src, in order."""
    out: list[TestBlock] = []
    i = 0
    while i < len(src):
        j = _skip_atom(src, i)
        if j is not None:
            i = j
            continue
        if src[i] == "{":
            i = _skip_braced(src, i)
            continue
        m = _TEST_HEAD.match(src, i)
        if m and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            end = _skip_braced(src, m.end() - 1)
            out.append(TestBlock(m.group(1), i, end, m.end(), end - 1))
            i = end
            continue
        i += 1
    return out


def wrapper_name(stem: str, k: int) -> str:
    return f"__t_{stem}_{k}"


def engine_program(src: str, stem: str) -> str:
    """src with each test block replaced by its wrapper function and each testset (or test
    with a runner) by its driver (lines kept)."""
    edits = []
    for k, t in enumerate(find_tests(src)):
        edits.append((t.start, t.end, f"function {wrapper_name(stem, k)}() -> void {{"
                      + src[t.body_start:t.body_end] + "}"))
    for k, r in enumerate(find_registered(src)):
        text = _driver(src, r, stem, k)
        edits.append((r.start, r.end, text + "\n" * (src.count("\n", r.start, r.end) - text.count("\n"))))
    out = src
    for s, e, text in sorted(edits, reverse=True):
        out = out[:s] + text + out[e:]
    return out


# --------------------------------------------------------------------------- testsets
# A top-level `testset`, or `test` with a runner (`with R`), runs through the `testing`
# package's registry. Engine side: each becomes a driver `__ts_<stem>_<k>() ->
# testing.FlatTestReport` that registers it with a fresh `testing.TestCollector` (what the
# engine's own `$init_test` does, spelled as user code: `register_test[_set](name, lambda,
# runner)`, nested ones inside the collector lambdas) and runs it with the engine's
# `TestRegistry.run_filtered`: its leaf ids come back passed, failed or tolerated.

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"')


@dataclass(frozen=True)
class Registered:
    name: str         # the name's source text (a literal at the top level)
    is_set: bool
    start: int        # offset of the keyword
    end: int          # offset after the closing brace
    runner: str | None


def _head(src: str, i: int) -> tuple[str, str | None, int]:
    """After a `test`/`testset` keyword ending at i: (name text, runner text, offset of `{`)."""
    depth, j, split = 0, i, None
    while j < len(src):
        k = _skip_atom(src, j)
        if k is not None:
            j = k
            continue
        c = src[j]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "{" and depth == 0:
            break
        elif depth == 0 and (m := _WORD.match(src, j)) and (j == 0 or not src[j - 1].isalnum()):
            if m.group(0) == "with":
                split = j
            j = m.end()
            continue
        j += 1
    if split is None:
        return src[i:j].strip(), None, j
    return src[i:split].strip(), src[split + 4:j].strip(), j


def _heads(src: str, s: int, e: int):
    """The `test`/`testset` blocks in src[s:e] (not those inside another one's body):
    (keyword offset, is_set, keyword end, offset of the body's `{`)."""
    i = s
    while i < e:
        j = _skip_atom(src, i)
        if j is not None:
            i = j
            continue
        m = _WORD.match(src, i)
        if m is None or (i > 0 and (src[i - 1].isalnum() or src[i - 1] in "_.")):
            i += 1
            continue
        if m.group(0) in ("test", "testset"):  # keywords: never a variable's name
            _, _, body = _head(src, m.end())
            yield i, m.group(0) == "testset", m.end(), body
            i = _skip_braced(src, body)
            continue
        i = m.end()


def find_registered(src: str) -> list[Registered]:
    """The top-level testsets, and tests with a runner or a computed name, in order."""
    out = []
    for start, is_set, kw_end, body in _heads(src, 0, len(src)):
        name, runner, _ = _head(src, kw_end)
        if is_set or runner is not None or not _LITERAL.fullmatch(name):
            out.append(Registered(name, is_set, start, _skip_braced(src, body), runner))
    return out


def _registration(src: str, start: int, is_set: bool, kw_end: int, depth: int) -> str:
    """The engine's registration of the test/testset at start, with collector `__c<depth>`."""
    name, runner, body = _head(src, kw_end)
    end = _skip_braced(src, body)
    if is_set:
        inner = _collector_body(src, body + 1, end - 1, depth + 1)
        fn = f"(__c{depth + 1}: testing.TestCollector) -> void {{{inner}}}"
    else:
        fn = f"() -> void {{{src[body + 1:end - 1]}}}"
    method = "register_test_set" if is_set else "register_test"
    return f"__c{depth}.{method}({name}, {fn}, {runner or 'null'});"


def _collector_body(src: str, s: int, e: int, depth: int) -> str:
    out, i = [], s
    for start, is_set, kw_end, body in _heads(src, s, e):
        out.append(src[i:start])
        out.append(_registration(src, start, is_set, kw_end, depth))
        i = _skip_braced(src, body)
    out.append(src[i:e])
    return "".join(out)


def _leaves(src: str, s: int, e: int) -> int:
    """The `test` blocks in src[s:e], within testsets too (each counted once, not per run)."""
    n = 0
    for _, is_set, _, body in _heads(src, s, e):
        n += _leaves(src, body + 1, _skip_braced(src, body) - 1) if is_set else 1
    return n


def static_name(text: str) -> str:
    """The name a top-level declaration's name text gives: string literals joined by `+` (the
    corpus computes no other)."""
    lits = _LITERAL.findall(text)
    if not lits or re.sub(r"\s*\+\s*", "", text) != "".join(lits):
        raise ValueError(f"not a static name: {text}")
    return "".join(lit[1:-1] for lit in lits)


def driver_name(stem: str, k: int) -> str:
    return f"__ts_{stem}_{k}"


def _driver(src: str, r: Registered, stem: str, k: int) -> str:
    reg = _registration(src, r.start, r.is_set, r.start + len("testset" if r.is_set else "test"), 0)
    return (f"function {driver_name(stem, k)}() -> testing.FlatTestReport {{ "
            f"let __c0 = testing.TestCollector.new(\"\"); {reg} "
            f"testing.TestRegistry.new(__c0).run_filtered([], [], [], [], 1, 60000) }}")


def engine_statuses(flat: dict) -> dict[str, str]:
    """A FlatTestReport as {leaf id: "pass" | "fail" | "tolerated"}."""
    out = {}
    for status in ("passed", "failed", "tolerated"):
        for n in flat.get(f"{status}_names") or []:
            out[n] = {"passed": "pass", "failed": "fail", "tolerated": "tolerated"}[status]
    return out


def assay_statuses(records, r_name: str) -> dict[str, str] | str:
    """Assay's outcomes of the registered item named r_name (its leaves: `name::…`)."""
    if isinstance(records, str):
        return records
    name = static_name(r_name)
    return {n: "pass" if o.passed else "tolerated" if o.tolerated else "fail"
            for n, o in records.items() if n == name or n.startswith(name + "::")}


# --------------------------------------------------------------------------- mutation

_ASSERT_EQ = re.compile(r"\bassert\.equal\s*\(")
_NUM = re.compile(r"(-?)(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|[0-9][0-9_]*(\.[0-9_]+)?([eE][+-]?[0-9_]+)?)(n?)")


def _args(src: str, open_paren: int) -> list[tuple[int, int]]:
    """Spans of the top-level arguments of the call whose `(` is at open_paren."""
    spans, start, i, depth = [], open_paren + 1, open_paren + 1, 0
    while i < len(src):
        j = _skip_atom(src, i)
        if j is not None:
            i = j
            continue
        c = src[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                spans.append((start, i))
                return spans
            depth -= 1
        elif c == "," and depth == 0:
            spans.append((start, i))
            start = i + 1
        i += 1
    raise ValueError("unclosed call")


def _mutate_number(tok: re.Match) -> str:
    sign, body, frac, exp, big = tok.group(1), tok.group(2), tok.group(3), tok.group(4), tok.group(5)
    text = body.replace("_", "")
    if frac or (exp and not text[:2].lower() in ("0x", "0o", "0b")):
        return repr(float(sign + text) + 0.5)
    value = int(sign + text, 0)
    if big:
        return f"{value + 1}n"
    return str(value - 1 if value >= (1 << 62) - 1 else value + 1)


def _first_literal(src: str, s: int, e: int) -> tuple[int, int, str] | None:
    """(start, end, replacement) of the first mutable literal in src[s:e]."""
    i = s
    while i < e:
        c = src[i]
        if src.startswith("//", i) or src.startswith("/*", i):
            i = _skip_comment(src, i)
            continue
        if c == '"' or (c in "rb" and src.startswith('"', i + 1) and not src[i - 1].isalnum()):
            q = i if c == '"' else i + 1
            end = _skip_string(src, q)
            return i, end, src[i:end - 1] + 'x"'
        if c == "`":
            end = _skip_backtick(src, i)
            if "${" in src[i:end]:
                i = end
                continue
            return i, end, src[i:end - 1] + "x`"
        if c.isalpha() or c == "_":
            m = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*").match(src, i)
            word = m.group(0)
            if word in ("true", "false"):
                return i, m.end(), "false" if word == "true" else "true"
            i = m.end()
            continue
        if c.isdigit() or (c == "-" and i + 1 < e and src[i + 1].isdigit() and not _after_operand(src, i)):
            m = _NUM.match(src, i)
            return i, m.end(), _mutate_number(m)
        i += 1
    return None


def _after_operand(src: str, i: int) -> bool:
    """Is the `-` at i a binary minus (preceded by an operand)?"""
    j = i - 1
    while j >= 0 and src[j] in " \t\n":
        j -= 1
    return j >= 0 and (src[j].isalnum() or src[j] in ")]}_\"")


@dataclass(frozen=True)
class Mutation:
    test: str
    line: int
    before: str
    after: str


def mutate(src: str) -> tuple[str, list[Mutation], list[str]]:
    """(mutated source, the mutations, names of tests that have no mutable assertion)."""
    edits, muts, missing = [], [], []
    for t in find_tests(src):
        edit = None
        for m in _ASSERT_EQ.finditer(src, t.body_start, t.body_end):
            args = _args(src, m.end() - 1)
            if len(args) >= 2:
                edit = _first_literal(src, *args[1])
            if edit:
                break
        if edit is None:
            missing.append(t.name)
            continue
        s, e, new = edit
        edits.append(edit)
        muts.append(Mutation(t.name, src.count("\n", 0, s) + 1, src[s:e], new))
    out = src
    for s, e, new in sorted(edits, reverse=True):
        out = out[:s] + new + out[e:]
    return out, muts, missing


# --------------------------------------------------------------------------- the corpus


@dataclass(frozen=True)
class CorpusFile:
    construct: str    # folder name without ns_
    stem: str
    path: Path

    @property
    def rel(self) -> str:
        return f"ns_{self.construct}/{self.path.name}"

    def namespace(self, kind: str) -> str:
        return ENGINE_PREFIX[kind] + self.construct

    def source(self, kind: str) -> str:
        src = self.path.read_text(encoding="utf-8")
        return src if kind == "corpus" else mutate(src)[0]


@dataclass(frozen=True)
class CorpusTest:
    kind: str         # "corpus" | "mutants"
    file: CorpusFile
    name: str
    k: int            # index among the file's tests (or its registered items)
    registered: bool = False  # a testset or a test with a runner: leaves compared one by one

    @property
    def id(self) -> str:
        return f"{self.kind}/{self.file.rel}::{self.name}"

    @property
    def engine_fn(self) -> str:
        fn = driver_name if self.registered else wrapper_name
        return f"{self.file.namespace(self.kind)}.{fn(self.file.stem, self.k)}"


def corpus_files(root: Path = CORPUS_DIR) -> list[CorpusFile]:
    return [CorpusFile(p.parent.name[3:], p.stem, p) for p in sorted(root.glob("ns_*/*.baml"))]


def corpus_tests(root: Path = CORPUS_DIR) -> list[CorpusTest]:
    out = []
    for kind in ENGINE_PREFIX:
        for f in corpus_files(root):
            src = f.source(kind)
            out += [CorpusTest(kind, f, t.name, k) for k, t in enumerate(find_tests(src))]
            if kind == "corpus":  # (mutants mutate plain tests only)
                out += [CorpusTest(kind, f, r.name, k, True) for k, r in enumerate(find_registered(src))]
    return out


def engine_files(root: Path = CORPUS_DIR) -> dict[str, str]:
    """{ "ns_cp_x/f.baml": wrapped text, "ns_cm_x/f.baml": wrapped mutant } for the shared runtime."""
    out = {}
    for f in corpus_files(root):
        for kind in ENGINE_PREFIX:
            out[f"ns_{f.namespace(kind)}/{f.path.name}"] = engine_program(f.source(kind), f.stem)
    return out


def assay_layout(f: CorpusFile, kind: str, dest: Path) -> Path:
    """Write f (as `kind`) under dest/ns_<namespace>/ for `assay.load(dest)`; returns dest."""
    d = dest / f"ns_{f.namespace(kind)}"
    d.mkdir(parents=True, exist_ok=True)
    (d / f.path.name).write_text(f.source(kind), encoding="utf-8")
    return dest


def xfail_reason(src: str, test: str, mark: str) -> str | None:
    """The `// <mark>: <why>` on the comment lines right above test `test`, if any."""
    for t in find_tests(src):
        if t.name != test:
            continue
        lines = src[:t.start].splitlines()
        while lines and lines[-1].strip().startswith("//"):
            m = re.match(r"//\s*" + re.escape(mark) + r":\s*(.*)", lines.pop().strip())
            if m:
                return m.group(1).strip()
        return None
    return None


def counts(root: Path = CORPUS_DIR) -> dict[str, int]:
    """Test blocks per construct."""
    out: dict[str, int] = {}
    for f in corpus_files(root):
        src = f.path.read_text(encoding="utf-8")
        leaves = sum(_leaves(src, r.start, r.end) for r in find_registered(src))
        out[f.construct] = out.get(f.construct, 0) + len(find_tests(src)) + leaves
    return out


# --------------------------------------------------------------------------- verdicts

Verdict = tuple  # ("pass", None, "") | ("fail", error class, message)


def engine_verdict(outcome) -> Verdict:
    """A difflib_baml.Outcome of a wrapper call as a verdict (error class `BamlError` for a
    thrown non-class value, as the shared corpus names it)."""
    if outcome.kind == "ok":
        return "pass", None, ""
    if outcome.kind == "harness":
        return "harness", None, outcome.detail
    return "fail", outcome.class_name or "BamlError", outcome.detail


def assay_records(f: CorpusFile, kind: str, dest: Path):
    """{test name: TestOutcome} of f (as `kind`) run by Assay alone, or the load error text."""
    try:
        return {r.name: r for r in assay.load(str(assay_layout(f, kind, dest))).run_tests()}
    except Exception as e:  # noqa: BLE001 - reported per test
        return f"{type(e).__name__}: {str(e)[:600]}"


def assay_verdict(records, name: str) -> Verdict:
    if isinstance(records, str):
        return "fail", "LoadError", records
    r = records.get(name)
    if r is None:
        return "fail", "NoRecord", f"no record for {name!r}"
    if r.passed:
        return "pass", None, ""
    return "fail", r.error.get("type"), str(r.error.get("message"))[:300]


def agree(ev: Verdict, av: Verdict) -> bool:
    return ev[:2] == av[:2]


def set_xfail_marks(path: Path, marks: dict[tuple[str, str], str]) -> None:
    """Rewrite path's `// assay-xfail[-mutant]: …` lines to exactly `marks`
    ({(mark, test name): reason})."""
    src = re.sub(r"(?m)^// assay-xfail(-mutant)?:.*\n", "", path.read_text(encoding="utf-8"))
    for t in reversed(find_tests(src)):
        lines = [f"// {m}: {why}\n"
                 for (m, name), why in sorted(marks.items()) if name == t.name]
        src = src[:t.start] + "".join(lines) + src[t.start:]
    path.write_text(src, encoding="utf-8")
