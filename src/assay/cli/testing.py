"""`assay test` as pytest does it: `-k` expressions, captured output, JUnit XML, durations."""
from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET

# ── -k: pytest's keyword expressions ──

_TOKEN = re.compile(r"\s*(\(|\)|[^\s()]+)")


class KeywordError(ValueError):
    """A `-k` expression that does not parse (the CLI's usage error, exit 2)."""


def keyword_matcher(expr: str):
    """`-k EXPR` as pytest reads it: `not`, `and`, `or`, parentheses; every other word is a
    case-insensitive substring of the test's name or of its file's name. Returns a predicate
    `(name, file) -> bool`. An expression that is not such (e.g. `a b`) is a KeywordError."""
    tokens = _TOKEN.findall(expr)
    if not tokens:
        return lambda name, file: True
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def parse_or():
        terms = [parse_and()]
        while peek() == "or":
            take()
            terms.append(parse_and())
        return terms[0] if len(terms) == 1 else ("or", terms)

    def parse_and():
        terms = [parse_not()]
        while peek() == "and":
            take()
            terms.append(parse_not())
        return terms[0] if len(terms) == 1 else ("and", terms)

    def parse_not():
        nots = 0
        while peek() == "not":
            take()
            nots += 1
        tok = peek()
        if tok is None or tok in (")", "and", "or"):
            raise KeywordError(f"-k {expr!r}: expected a word or '(' {'at the end' if tok is None else f'before {tok!r}'}")
        take()
        if tok == "(":
            node = parse_or()
            if peek() != ")":
                raise KeywordError(f"-k {expr!r}: missing ')'")
            take()
        else:
            node = ("word", tok.lower())
        for _ in range(nots):
            node = ("not", node)
        return node

    tree = parse_or()
    if pos != len(tokens):
        raise KeywordError(f"-k {expr!r}: unexpected {tokens[pos]!r} (join words with and/or, "
                           f"as pytest's -k does)")

    def ev(node, hay):
        kind = node[0]
        if kind == "word":
            return any(node[1] in h for h in hay)
        if kind == "not":
            return not ev(node[1], hay)
        if kind == "and":
            return all(ev(n, hay) for n in node[1])
        return any(ev(n, hay) for n in node[1])

    def match(name: str, file: str) -> bool:
        return ev(tree, (name.lower(), os.path.basename(file).lower()))
    return match


# ── JUnit XML ──


def junit_xml(records: list[dict], seconds: float, suite: str = "assay") -> str:
    """JUnit XML as CI systems read it (pytest's `--junit-xml` shape): one testsuite, a
    testcase per test (classname: the file, name: the test), <failure> with the error and the
    test's captured output in <system-out>; a tolerated failure is no failure (<system-err>)."""
    failed = sum(not r["passed"] and not r.get("tolerated") for r in records)
    root = ET.Element("testsuites")
    ts = ET.SubElement(root, "testsuite", {
        "name": suite, "tests": str(len(records)), "failures": str(failed), "errors": "0",
        "skipped": "0", "time": f"{seconds:.3f}"})
    for r in records:
        tc = ET.SubElement(ts, "testcase", {"classname": r["file"], "name": r["name"],
                                            "time": f"{r['seconds']:.3f}"})
        if r.get("tolerated"):  # failed inside a testset whose runner passed it: no failure
            err = r["error"] or {}
            ET.SubElement(tc, "system-err").text = f"tolerated: {err.get('type', '')}: {err.get('message', '')}"
        elif not r["passed"]:
            err = r["error"] or {}
            fail = ET.SubElement(tc, "failure", {"type": str(err.get("type", "")),
                                                 "message": str(err.get("message", ""))})
            fail.text = f"{err.get('type', '')}: {err.get('message', '')}"
        if r.get("output"):
            ET.SubElement(tc, "system-out").text = r["output"]
    ET.indent(root)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def durations_text(records: list[dict], n: int) -> str:
    """pytest's `--durations N` block: the N slowest tests (0: all), slowest first."""
    rows = sorted(records, key=lambda r: -r["seconds"])
    if n > 0:
        rows = rows[:n]
    head = f"slowest {n} durations" if n > 0 else "slowest durations"
    return "\n".join([head] + [f"{r['seconds']:.2f}s {r['file']}::{r['name']}" for r in rows])
