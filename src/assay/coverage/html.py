"""The HTML coverage report: index.html plus one page per source file.

Self-contained pages (inline CSS, no JavaScript), built with the standard library: every
piece of text from the data or the source is escaped by `_e`.  Each source line is a table
row with one class: `covered`, `partial` (ran, but an edge from it was never taken),
`missed`, or `noexec` (not executable).
"""

from __future__ import annotations

import hashlib
import os
import re
from html import escape
from pathlib import Path

from .data import CoverageData, FileCoverage, Totals
from .report import _files, _functions, _hits, format_percent

LEGEND = (
    ("covered", "covered"),
    ("partial", "partly covered (a branch edge not taken)"),
    ("missed", "missed"),
    ("noexec", "not executable"),
)

CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.3em; }
table { border-collapse: collapse; }
th, td { padding: 2px 8px; }
table.summary td.num, table.summary th.num { text-align: right; }
table.summary tr.total { font-weight: bold; border-top: 1px solid #888; }
table.source { width: 100%; font-family: ui-monospace, monospace; font-size: 0.9em; }
table.source td { padding: 0 6px; vertical-align: top; }
table.source td.n, table.source td.hits { text-align: right; color: #888; user-select: none; }
table.source td.n a { color: inherit; text-decoration: none; }
table.source td.code { white-space: pre; tab-size: 4; width: 100%; }
.covered td.code, .legend .covered { background: #dfd; }
.partial td.code, .legend .partial { background: #ffc; }
.missed td.code, .legend .missed { background: #fdd; }
.noexec td.code, .legend .noexec { background: #fff; }
.annotate { float: right; color: #a60; font-style: italic; white-space: normal; }
.legend span { padding: 1px 8px; margin-right: 6px; border: 1px solid #ccc; }
p.note { color: #a00; }
"""


def write_html(
    data: CoverageData,
    outdir: str | os.PathLike[str],
    sources: dict[str, str] | None = None,
    *,
    cwd: str | None = None,
    title: str = "Assay coverage report",
    precision: int = 0,
) -> Path:
    """Write index.html and a page per file into `outdir`; return index.html's path.

    A file's text comes from `sources` (keyed by the path as in `data`) or else is read from
    the path; if neither works the page lists the executable lines without their text."""
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    pages: dict[str, str] = {}
    for name, path, fc in _files(data, cwd):
        pages[path] = page_name(path, name)
        text = _source(path, sources)
        page = render_file(name, fc, text, title=title, precision=precision)
        (out / pages[path]).write_text(page, encoding="utf-8")
    index = out / "index.html"
    index_html = render_index(data, pages, cwd=cwd, title=title, precision=precision)
    index.write_text(index_html, encoding="utf-8")
    return index


def page_name(path: str, shown: str) -> str:
    """A safe, unique file name: readable stem plus a hash of the real path."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", shown).strip("._") or "file"
    digest = hashlib.sha1(path.encode("utf-8")).hexdigest()[:8]
    return f"{stem}_{digest}.html"


def _source(path: str, sources: dict[str, str] | None) -> str | None:
    if sources is not None and path in sources:
        return sources[path]
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _page(title: str, body: list[str]) -> str:
    head = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
    )
    return head + "\n".join(body) + "\n</body>\n</html>\n"


# -- index ---------------------------------------------------------------------------------------

_COLUMNS = ("Lines", "Miss", "Branch", "BrPart", "Cover")


def _summary_header(first: str) -> str:
    nums = "".join(f'<th class="num">{c}</th>' for c in _COLUMNS)
    return f"<tr><th>{_e(first)}</th>{nums}</tr>"


def _summary_cells(t: Totals, precision: int) -> str:
    cover = format_percent(t.percent, precision)
    cells = (t.lines, t.lines_missed, t.branches, t.branches_partial, cover)
    return "".join(f'<td class="num">{_e(c)}</td>' for c in cells)


def render_index(
    data: CoverageData,
    pages: dict[str, str],
    *,
    cwd: str | None = None,
    title: str = "Assay coverage report",
    precision: int = 0,
) -> str:
    """The file table; `pages` maps a path (as in data) to its page's file name."""
    total = data.totals()
    rows = [_summary_header("File")]
    for name, path, fc in _files(data, cwd):
        link = f'<a href="{_e(pages[path])}">{_e(name)}</a>' if path in pages else _e(name)
        rows.append(f"<tr><td>{link}</td>{_summary_cells(fc.totals(), precision)}</tr>")
    rows.append(f'<tr class="total"><td>TOTAL</td>{_summary_cells(total, precision)}</tr>')
    body = [
        f"<h1>{_e(title)}: {_e(format_percent(total.percent, precision))}</h1>",
        f"<p>lines {_e(format_percent(total.line_percent, precision))}, "
        f"branches {_e(format_percent(total.branch_percent, precision))}</p>",
        '<table class="summary">', *rows, "</table>",
    ]
    return _page(title, body)


# -- a file's page -------------------------------------------------------------------------------


def line_classes(fc: FileCoverage) -> dict[int, str]:
    """Each executable line's class; lines absent here are `noexec`."""
    ran = fc.reached_lines()
    partial = set(fc.partial_lines())
    return {
        n: "partial" if n in partial else "covered" if n in ran else "missed"
        for n in sorted(fc.lines)
    }


def render_file(
    name: str,
    fc: FileCoverage,
    source: str | None,
    *,
    title: str = "Assay coverage report",
    precision: int = 0,
) -> str:
    t = fc.totals()
    body = [
        '<p><a href="index.html">&larr; index</a></p>',
        f"<h1>{_e(name)}: {_e(format_percent(t.percent, precision))}</h1>",
        '<table class="summary">', _summary_header(""),
        f"<tr><td></td>{_summary_cells(t, precision)}</tr>", "</table>",
        _legend(),
        *_function_table(fc, precision),
    ]
    if source is None:
        body.append('<p class="note">Source text unavailable: showing executable lines only.</p>')
    body += _source_table(fc, source)
    return _page(f"{name} - {title}", body)


def _legend() -> str:
    keys = "".join(f'<span class="{cls}">{_e(text)}</span>' for cls, text in LEGEND)
    return f'<p class="legend">{keys}</p>'


def _function_table(fc: FileCoverage, precision: int) -> list[str]:
    funcs = _functions(fc)
    if not funcs:
        return []
    rows = ["<h2>Functions</h2>", '<table class="summary">', _summary_header("Function")]
    for _fqn, info in funcs:
        link = f'<a href="#L{info.first_line}">{_e(info.display_name)}</a>'
        cells = _summary_cells(fc.totals(info.first_line, info.last_line), precision)
        rows.append(f"<tr><td>{link}</td>{cells}</tr>")
    return rows + ["</table>"]


def _source_lines(source: str) -> list[str]:
    # Split on newlines only: str.splitlines also splits on \f, \u2028 …, which would shift
    # line numbers away from the compiler's.
    lines = source.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _source_table(fc: FileCoverage, source: str | None) -> list[str]:
    classes = line_classes(fc)
    text = _source_lines(source) if source is not None else []
    last = max([len(text), *classes])
    numbers = range(1, last + 1) if source is not None else sorted(classes)
    notes = _annotations(fc)
    ran = fc.reached_lines()
    rows = ['<table class="source">']
    for n in numbers:
        cls = classes.get(n, "noexec")
        hits = _hits(fc, ran, n) if n in classes else ""
        code = _e(text[n - 1]) if n <= len(text) else ""
        note = f'<span class="annotate">{_e(notes[n])}</span>' if n in notes else ""
        rows.append(
            f'<tr class="line {cls}" id="L{n}"><td class="n"><a href="#L{n}">{n}</a></td>'
            f'<td class="hits">{hits}</td><td class="code">{note}{code}</td></tr>'
        )
    return rows + ["</table>"]


def _annotations(fc: FileCoverage) -> dict[int, str]:
    """Per line, the missed edges of a line that ran ("not taken: 12:7 if(false)")."""
    missed: dict[int, list[str]] = {}
    for key in fc.missing_branches():
        missed.setdefault(key.line, []).append(key.label())
    return {n: "not taken: " + ", ".join(labels) for n, labels in missed.items()}


__all__ = ["write_html", "render_index", "render_file", "line_classes", "page_name"]
