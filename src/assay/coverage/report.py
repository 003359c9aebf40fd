"""Coverage reports: terminal table, JSON, LCOV, Cobertura XML, and the fail-under check.

Every report is a pure function of a CoverageData returning a string; `write_*` put it in a
file.  Paths are shown relative to `cwd` (default: the current directory) when the file lies
under it, as coverage.py does, so reports are portable between checkouts.  HTML is in html.py.
"""

from __future__ import annotations

import json
import os
import posixpath
import time
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from importlib import metadata
from typing import Any, Iterable

from .data import BranchKey, CoverageData, FileCoverage, Totals

JSON_REPORT_VERSION = 1
COBERTURA_DTD = "http://cobertura.sourceforge.net/xml/coverage-04.dtd"


# -- shared helpers -------------------------------------------------------------------------


def display_path(path: str, cwd: str | None = None) -> str:
    """`path` relative to `cwd` when it lies under it, else as given."""
    base = os.path.abspath(cwd or os.getcwd())
    try:
        rel = os.path.relpath(os.path.abspath(path), base)
    except ValueError:  # another drive on Windows
        return path
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return path
    return rel


def format_percent(pc: float, precision: int = 0) -> str:
    """Like coverage.py: never round a partial result to 0% or 100%, which would mislead."""
    step = 10.0**-precision
    if 0 < pc < step:
        pc = step
    elif 100 - step < pc < 100:
        pc = 100 - step
    return f"{pc:.{precision}f}%"


def format_missing(fc: FileCoverage, lo: int | None = None, hi: int | None = None) -> str:
    """Missed line ranges and missed branch edges in line order: `3-5, 9, 12:7 if(false)`.

    A range spans consecutive *executable* lines, so blank lines and comments inside a missed
    block do not split it."""
    items: list[tuple[int, int, int, str]] = []  # (line, 0 range | 1 edge, column, text)
    for first, last in _missed_ranges(fc, lo, hi):
        items.append((first, 0, 0, str(first) if first == last else f"{first}-{last}"))
    for key in fc.missing_branches(lo, hi):
        items.append((key.line, 1, key.column, key.label()))
    # numbers sort as numbers (`3:9` before `3:10`); a line's edges keep their source order
    return ", ".join(item[3] for item in sorted(items, key=lambda item: item[:3]))


def _missed_ranges(fc: FileCoverage, lo: int | None, hi: int | None) -> list[tuple[int, int]]:
    ran = fc.reached_lines()
    ranges: list[tuple[int, int]] = []
    open_range: list[int] | None = None
    for n in fc._lines_in(lo, hi):
        if n in ran:
            open_range = None
        elif open_range is None:
            open_range = [n, n]
            ranges.append(open_range)  # type: ignore[arg-type]
        else:
            open_range[1] = n
    return [(a, b) for a, b in ranges]


def _files(data: CoverageData, cwd: str | None) -> list[tuple[str, str, FileCoverage]]:
    """(shown name, path as given, file) sorted by shown name."""
    rows = [(display_path(p, cwd), p, fc) for p, fc in data.files.items()]
    return sorted(rows, key=lambda r: r[0])


def _functions(fc: FileCoverage) -> list[tuple[str, Any]]:
    return sorted(fc.functions.items(), key=lambda kv: (kv[1].first_line, kv[0]))


def _hits(fc: FileCoverage, ran: set[int], line: int) -> int:
    # A line proven run by a taken edge counts at least once, so counts agree with totals.
    return max(fc.lines.get(line, 0), 1 if line in ran else 0)


def _write(path: str | os.PathLike[str], text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


# -- 1. terminal table ----------------------------------------------------------------------

_HEADER = ("Name", "Lines", "Miss", "Branch", "BrPart", "Cover", "Missing")


def text_report(
    data: CoverageData,
    *,
    show_missing: bool = True,
    functions: bool = True,
    cwd: str | None = None,
    precision: int = 0,
) -> str:
    """A table like `coverage report -m`: one row per file, its functions indented below it
    (their counts cover the function's line range), then TOTAL."""
    rows: list[tuple[str, Totals, str]] = []
    for name, _, fc in _files(data, cwd):
        rows.append((name, fc.totals(), format_missing(fc)))
        if functions:
            for _fqn, info in _functions(fc):
                lo, hi = info.first_line, info.last_line
                missing = format_missing(fc, lo, hi)
                rows.append(("  " + info.display_name, fc.totals(lo, hi), missing))
    total = data.totals()
    width = max([len(r[0]) for r in rows] + [len("TOTAL"), len("Name")])

    def line(name: str, cells: Iterable[str], missing: str) -> str:
        nums = " ".join(f"{c:>{len(h) + 2}}" for c, h in zip(cells, _HEADER[1:6]))
        tail = f"   {missing}" if show_missing else ""
        return f"{name:<{width}} {nums}{tail}".rstrip()

    def counts(t: Totals) -> list[str]:
        return [str(t.lines), str(t.lines_missed), str(t.branches), str(t.branches_partial),
                format_percent(t.percent, precision)]

    header = line(_HEADER[0], _HEADER[1:6], _HEADER[6])
    rule = "-" * len(header)
    out = [header, rule]
    out += [line(name, counts(t), missing) for name, t, missing in rows]
    out += [rule, line("TOTAL", counts(total), "")]
    return "\n".join(out) + "\n"


# -- 2. JSON report ---------------------------------------------------------------------------


def json_report(
    data: CoverageData, *, cwd: str | None = None, timestamp: float | None = None
) -> str:
    doc = {
        "meta": {
            "format": JSON_REPORT_VERSION,
            "producer": "assay",
            "version": _assay_version(),
            "timestamp": _iso(timestamp),
        },
        "files": {name: _json_file(fc) for name, _, fc in _files(data, cwd)},
        "totals": data.totals().to_json(),
    }
    return json.dumps(doc, indent=2) + "\n"


def _json_file(fc: FileCoverage) -> dict[str, Any]:
    return {
        "summary": fc.totals().to_json(),
        "executed_lines": fc.executed_lines(),
        "missing_lines": fc.missing_lines(),
        "partial_lines": fc.partial_lines(),
        "branches": [_json_branch(k, fc.branches[k]) for k in fc.sorted_branches()],
        "missing_branches": [k.label() for k in fc.missed_branches()],
        "functions": {fqn: _json_function(fc, fqn) for fqn, _ in _functions(fc)},
    }


def _json_branch(key: BranchKey, hits: int) -> dict[str, Any]:
    return {**key._asdict(), "hits": hits}


def _json_function(fc: FileCoverage, fqn: str) -> dict[str, Any]:
    info = fc.functions[fqn]
    lo, hi = info.first_line, info.last_line
    return {
        "name": info.display_name,
        "first_line": lo,
        "last_line": hi,
        "hits": info.hits,
        "summary": fc.totals(lo, hi).to_json(),
        "executed_lines": fc.executed_lines(lo, hi),
        "missing_lines": fc.missing_lines(lo, hi),
    }


# -- 4. LCOV -----------------------------------------------------------------------------------


def lcov_report(data: CoverageData, *, cwd: str | None = None, test_name: str = "") -> str:
    """The geninfo tracefile format (genhtml, Codecov, Coveralls read it)."""
    out: list[str] = []
    for name, _, fc in _files(data, cwd):
        out += [f"TN:{test_name}", f"SF:{name}"]
        out += _lcov_functions(fc)
        out += _lcov_branches(fc)
        ran = fc.reached_lines()
        out += [f"DA:{n},{_hits(fc, ran, n)}" for n in sorted(fc.lines)]
        out += [f"LF:{len(fc.lines)}", f"LH:{len(ran & fc.lines.keys())}"]
        out.append("end_of_record")
    return "".join(line + "\n" for line in out)


def _lcov_name(fqn: str) -> str:
    # FN/FNDA split on the first comma, and lcov 1.x stops a name at the next one.
    return fqn.replace(",", ";").replace("\n", " ")


def _lcov_functions(fc: FileCoverage) -> list[str]:
    funcs = _functions(fc)
    # `FN:<start>,<name>` without the optional end line: lcov 1.x would read the end line as
    # part of the name.
    out = [f"FN:{info.first_line},{_lcov_name(fqn)}" for fqn, info in funcs]
    hits = [(fqn, info.hits) for fqn, info in funcs]
    out += [f"FNDA:{h},{_lcov_name(fqn)}" for fqn, h in hits]
    out += [f"FNF:{len(funcs)}", f"FNH:{sum(1 for _, h in hits if h > 0)}"]
    return out


def _lcov_branches(fc: FileCoverage) -> list[str]:
    """`BRDA:line,block,branch,taken`: a block is one decision (column + kind) on the line,
    a branch one of its edges; `-` when the decision was never reached."""
    out: list[str] = []
    for line, decisions in _decisions(fc).items():
        for block, (_, edges) in enumerate(decisions.items()):
            reached = fc.lines.get(line, 0) > 0 or any(fc.branches[k] > 0 for k in edges)
            for index, key in enumerate(edges):
                taken = str(fc.branches[key]) if reached else "-"
                out.append(f"BRDA:{line},{block},{index},{taken}")
    n_hit = sum(1 for h in fc.branches.values() if h > 0)
    return out + [f"BRF:{len(fc.branches)}", f"BRH:{n_hit}"]


def _decisions(fc: FileCoverage) -> dict[int, dict[tuple[int, str], list[BranchKey]]]:
    """Edges grouped by line, then by decision (column, kind), in source order."""
    grouped: dict[int, dict[tuple[int, str], list[BranchKey]]] = {}
    for key in fc.sorted_branches():
        grouped.setdefault(key.line, {}).setdefault((key.column, key.kind), []).append(key)
    return grouped


# -- 5. Cobertura XML ---------------------------------------------------------------------------


def cobertura_report(
    data: CoverageData,
    *,
    cwd: str | None = None,
    timestamp: float | None = None,
    version: str | None = None,
) -> str:
    """Cobertura coverage-04 XML as GitLab and Codecov read it: one package per directory, one
    class per file, and each function as a method with its lines."""
    total = data.totals()
    root = ET.Element("coverage", _rates(total))
    root.set("timestamp", str(int((time.time() if timestamp is None else timestamp) * 1000)))
    root.set("version", version or _assay_version())
    sources = ET.SubElement(root, "sources")
    ET.SubElement(sources, "source").text = os.path.abspath(cwd or os.getcwd())
    packages = ET.SubElement(root, "packages")
    for package, files in _packages(data, cwd).items():
        pkg_total = sum((fc.totals() for _, fc in files), Totals())
        pkg = ET.SubElement(packages, "package", {"name": package, **_rates(pkg_total, brief=True)})
        classes = ET.SubElement(pkg, "classes")
        for name, fc in files:
            classes.append(_cobertura_class(name, fc))
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" ?>\n<!DOCTYPE coverage SYSTEM "{COBERTURA_DTD}">\n{body}\n'


def _rates(t: Totals, brief: bool = False) -> dict[str, str]:
    rates = {
        "line-rate": _rate(t.lines_hit, t.lines),
        "branch-rate": _rate(t.branches_hit, t.branches),
    }
    if not brief:
        rates.update({
            "lines-covered": str(t.lines_hit),
            "lines-valid": str(t.lines),
            "branches-covered": str(t.branches_hit),
            "branches-valid": str(t.branches),
        })
    rates["complexity"] = "0"
    return rates


def _rate(hit: int, total: int) -> str:
    return "1" if total == 0 else f"{hit / total:.4g}"


def _packages(data: CoverageData, cwd: str | None) -> dict[str, list[tuple[str, FileCoverage]]]:
    """Files grouped by directory; the package name is the directory, dotted ('.' = top)."""
    packages: dict[str, list[tuple[str, FileCoverage]]] = {}
    for name, _, fc in _files(data, cwd):
        posix = name.replace(os.sep, "/")
        dirname = posixpath.dirname(posix).strip("/")
        packages.setdefault(dirname.replace("/", ".") or ".", []).append((posix, fc))
    return packages


def _cobertura_class(name: str, fc: FileCoverage) -> ET.Element:
    cls = ET.Element("class", {"name": posixpath.basename(name), "filename": name})
    for key, value in _rates(fc.totals(), brief=True).items():
        cls.set(key, value)
    methods = ET.SubElement(cls, "methods")
    for fqn, info in _functions(fc):
        t = fc.totals(info.first_line, info.last_line)
        attrs = {"name": info.display_name, "signature": fqn, **_rates(t, brief=True)}
        method = ET.SubElement(methods, "method", attrs)
        _cobertura_lines(method, fc, info.first_line, info.last_line)
    _cobertura_lines(cls, fc)
    return cls


def _cobertura_lines(
    parent: ET.Element, fc: FileCoverage, lo: int | None = None, hi: int | None = None
) -> None:
    lines = ET.SubElement(parent, "lines")
    ran = fc.reached_lines()
    edges = _decisions(fc)
    for n in fc._lines_in(lo, hi):
        el = ET.SubElement(lines, "line", {"number": str(n), "hits": str(_hits(fc, ran, n))})
        keys = [k for group in edges.get(n, {}).values() for k in group]
        if keys:
            taken = sum(1 for k in keys if fc.branches[k] > 0)
            el.set("branch", "true")
            el.set("condition-coverage", f"{100 * taken // len(keys)}% ({taken}/{len(keys)})")


# -- 6. fail-under -------------------------------------------------------------------------------


def fail_under(data: CoverageData, percent: float, precision: int = 0) -> bool:
    """True when the total falls short of `percent` (the caller then exits 2).

    As coverage.py: the total is rounded to the shown precision first, so a report saying 80%
    never fails `--fail-under 80`; but 100 demands exactly 100."""
    if not 0 <= percent <= 100:
        raise ValueError(f"fail-under must be between 0 and 100, not {percent}")
    total = data.totals().percent
    if percent == 100:
        return total != 100
    return round(total, precision) < percent


# -- writing helpers -----------------------------------------------------------------------------


def write_text_report(data: CoverageData, path: str | os.PathLike[str], **kw: Any) -> None:
    _write(path, text_report(data, **kw))


def write_json_report(data: CoverageData, path: str | os.PathLike[str], **kw: Any) -> None:
    _write(path, json_report(data, **kw))


def write_lcov(data: CoverageData, path: str | os.PathLike[str], **kw: Any) -> None:
    _write(path, lcov_report(data, **kw))


def write_cobertura(data: CoverageData, path: str | os.PathLike[str], **kw: Any) -> None:
    _write(path, cobertura_report(data, **kw))


def _iso(timestamp: float | None) -> str:
    when = datetime.fromtimestamp(time.time() if timestamp is None else timestamp, timezone.utc)
    return when.isoformat(timespec="seconds")


def _assay_version() -> str:
    try:
        return metadata.version("assay")
    except metadata.PackageNotFoundError:
        return "unknown"
