"""baml.csv, the in-memory part: `parse`, `decode<T>` / `decode_one` / `decode_optional`,
`stringify<T>`, `stringify_records`, `to_markdown<T>`, `to_markdown_records`, and the handles
over an in-memory source (`reader`: `Reader`, `Record`; `buffer`: `Writer`), with the engine's
options, checks and `baml.csv.Error`s (kind, message, line, record, field, column). The
file-backed ones (`open`, `read`, `writer`, `create`, `write`) need `baml.fs`.

One tokenizer (`_records`) reads records the way the engine's does: RFC 4180 quoting (or an
escape byte), `\\n`, `\\r\\n` or `\\r` endings, comments and blank lines skipped, trimming of
unquoted cells; a malformed record is one error, after which it resumes at the next line."""
from __future__ import annotations

import re

from ..ops import BUILTIN_CLASSES, make_builtin, throw_error
from ..values import INT_MAX, INT_MIN, BamlRaise, BigInt, ClassInfo, EnumInfo, Instance, Variant
from ..typeargs import TypeArg
from . import iters
from ._registry import STD_ENUMS, function
from .jsontyped import _display, _show, stringify as json_stringify
from .render import quote, rust_float

KIND = EnumInfo("baml.csv.ErrorKind", "ErrorKind", ["Options", "Quote", "FieldCount", "Encoding", "Header",
                                                    "Decode", "Encode", "NotFound", "TooManyRows", "Closed"])
STD_ENUMS[KIND.fqn] = KIND
_ERROR = "baml.csv.Error"
for _fqn, _fields in (
        (_ERROR, ["kind", "message", "line", "record", "field", "column", "expected", "found"]),
        ("baml.csv.ReaderOptions", ["delimiter", "quote", "quoting", "escape", "has_header", "headers", "comment",
                                    "trim", "skip_lines", "skip_blank_records", "ragged", "null_values",
                                    "encoding", "bom", "on_error", "on_skip", "max_skipped", "limit"]),
        ("baml.csv.WriterOptions", ["delimiter", "quote", "quote_style", "escape", "terminator", "write_header",
                                    "headers", "null_value", "bom", "sanitize_formulas"])):
    BUILTIN_CLASSES[_fqn] = ClassInfo(_fqn, _fqn.rpartition(".")[2], _fields)


class _Fail(Exception):
    """A `baml.csv.Error` on its way (kind name, message, positional fields)."""

    def __init__(self, kind: str, message: str, **where):
        self.kind, self.message, self.where = kind, message, where


def _raise(f: _Fail):
    err = make_builtin(_ERROR, kind=KIND.variants[f.kind], message=f.message, **f.where)
    return BamlRaise(err)


def _opt(options, name: str, default):
    v = getattr(options, "f_" + name, None) if options is not None else None
    return default if v is None else v


def _bytes(options, names: tuple, defaults: dict) -> dict:
    """The single-byte options, checked as the engine checks them: each one ASCII byte, never
    CR or LF, all distinct."""
    got = {}
    for n in names:
        v = _opt(options, n, defaults.get(n))
        if v is None:
            continue
        if len(v) != 1 or not v.isascii():
            raise _Fail("Options", f"`{n}` must be exactly one ASCII byte, got {quote(v)}")
        if v in "\r\n":
            raise _Fail("Options", f"`{n}` must not be a CR or LF byte")
        got[n] = v
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if a in got and b in got and got[a] == got[b]:
                raise _Fail("Options", f"`{a}` and `{b}` must be distinct bytes")
    return got


def _non_negative(options, names: tuple) -> None:
    for n in names:
        v = _opt(options, n, 0)
        if v < 0:
            raise _Fail("Options", f"`{n}` must be non-negative")


# ── reading ──

class _ReadOpts:
    def __init__(self, o):
        b = _bytes(o, ("delimiter", "quote", "escape", "comment"), {"delimiter": ",", "quote": '"'})
        _non_negative(o, ("skip_lines", "max_skipped", "limit"))
        self.delim, self.quote = b["delimiter"], b["quote"]
        self.escape, self.comment = b.get("escape"), b.get("comment")
        self.quoting = _opt(o, "quoting", True)
        self.has_header = _opt(o, "has_header", True)
        self.headers = _opt(o, "headers", None)
        trim = _opt(o, "trim", "none")
        self.trim_headers, self.trim_fields = trim in ("headers", "all"), trim in ("fields", "all")
        self.skip_lines = _opt(o, "skip_lines", 0)
        self.skip_blank = _opt(o, "skip_blank_records", True)
        self.ragged = _opt(o, "ragged", "strict")
        self.null_values = set(_opt(o, "null_values", []))
        self.keep_bom = _opt(o, "bom", "strip") == "keep"
        self.skip_errors = _opt(o, "on_error", "throw") == "skip"
        self.on_skip = _opt(o, "on_skip", None)
        self.limit = _opt(o, "limit", None)
        self.max_skipped = _opt(o, "max_skipped", 1000)


def _line_end(text: str, i: int) -> int:
    """The index after the line ending at or after i (\\n, \\r\\n or \\r)."""
    n = len(text)
    while i < n and text[i] not in "\r\n":
        i += 1
    if i < n and text[i] == "\r" and i + 1 < n and text[i + 1] == "\n":
        return i + 2
    return min(i + 1, n)


def _records(text: str, o: _ReadOpts):
    """(fields, quoted, line, start, cursor) per record, or (None, message, line, start, cursor)
    for a malformed one; start is the record's character offset in text, cursor the (offset,
    line) after it."""
    i, n, line = 0, len(text), 1
    if text.startswith("\ufeff") and not o.keep_bom:
        i = 1
    for _ in range(o.skip_lines):
        if i < n:
            i, line = _line_end(text, i), line + 1
    first = True
    while i < n:
        start, at = line, i
        c = text[i]
        if c in "\r\n":
            i, line = _line_end(text, i), line + 1
            if not o.skip_blank:
                yield [""], [False], start, at, (i, line)
                first = False
            continue
        if c == o.comment:
            i, line = _line_end(text, i), line + 1
            continue
        trim = o.trim_headers if first and o.has_header else o.trim_fields
        first = False
        fields, quoted, err = [], [], None
        while err is None:
            i, line, err = _field(text, i, line, o, trim, fields, quoted)
            if err is None and i < n and text[i] == o.delim:
                i += 1
                continue
            break
        if err is not None:  # resume at the next line
            if i < n:
                i, line = _line_end(text, i), line + 1
            yield None, err, start, at, (i, line)
            continue
        if i < n:
            i, line = _line_end(text, i), line + 1
        yield fields, quoted, start, at, (i, line)


def _field(text: str, i: int, line: int, o: _ReadOpts, trim: bool, fields: list, quoted: list):
    """One field from i: (next index, line, error message or None); the field is appended."""
    n, ends = len(text), (o.delim, "\r", "\n")
    j = i
    if trim:
        while j < n and text[j] in " \t":
            j += 1
    if o.quoting and j < n and text[j] == o.quote:
        i, buf = j + 1, []
        while True:
            if i >= n:
                return i, line, "unterminated quote at end of input"
            ch = text[i]
            if o.escape is not None and ch == o.escape:
                if i + 1 >= n:
                    return n, line, "dangling escape at end of input"
                buf.append(text[i + 1])
                line += text[i + 1] == "\n"
                i += 2
                continue
            if ch == o.quote:
                if o.escape is None and i + 1 < n and text[i + 1] == o.quote:
                    buf.append(ch)
                    i += 2
                    continue
                i += 1
                break
            line += ch == "\n"
            buf.append(ch)
            i += 1
        if trim:
            while i < n and text[i] in " \t":
                i += 1
        if i < n and text[i] not in ends:
            return i, line, "unexpected data after closing quote"
        fields.append("".join(buf))
        quoted.append(True)
        return i, line, None
    j = i
    while i < n and text[i] not in ends:
        if o.quoting and text[i] == o.quote:
            return i, line, "stray quote in unquoted field"
        i += 1
    v = text[j:i]
    fields.append(v.strip(" \t") if trim else v)
    quoted.append(False)
    return i, line, None


class _Stream:
    """The records of an in-memory source, read lazily: the header names first, then data
    records with their width checked; record-scoped errors thrown or skipped as `on_error`
    says. A row is (fields, quoted, line, record, start)."""

    def __init__(self, text: str, o: _ReadOpts):
        self.text, self.o, self.it = text, o, _records(text, o)
        self.names, self.width, self.record, self.count = None, None, 0, 0
        self.started = self.done = self.closed = False
        self.skipped, self.skipped_count = [], 0
        self.cursor = (0, 1)  # (character offset, line) of the input not read yet

    def header(self) -> None:
        if self.started:
            return
        self.started = True
        if self.o.has_header:
            for fields, quoted, line, _, self.cursor in self.it:
                if fields is None:
                    raise _Fail("Quote", quoted, line=line)
                self.names, self.width = fields, len(fields)
                break
        if self.o.headers is not None:
            self.names = list(self.o.headers)
            self.width = self.width if self.o.has_header else len(self.names)

    def next(self):
        """The next data row, or None at the end."""
        self.header()
        while not self.done:
            item = None if self.o.limit is not None and self.count >= self.o.limit else next(self.it, None)
            if item is None:
                self.done = True
                break
            fields, quoted, line, at, self.cursor = item
            record = self.record
            self.record += 1
            try:
                if fields is None:
                    raise _Fail("Quote", quoted, line=line, record=record)
                if self.width is None:
                    self.width = len(fields)
                fields, quoted = self.fit(fields, quoted, self.width, line, record)
                self.count += 1
                return fields, quoted, line, record, at
            except _Fail as f:
                self.skip_or_raise(f)
        return None

    def rows(self) -> list:
        out = []
        while (row := self.next()) is not None:
            out.append(row)
        return out

    def fit(self, fields, quoted, width, line, record):
        found = len(fields)
        if found < width and self.o.ragged == "pad":
            return fields + [""] * (width - found), quoted + [False] * (width - found)
        if found > width and self.o.ragged == "truncate":
            return fields[:width], quoted[:width]
        if found != width:
            raise _Fail("FieldCount", f"record has {found} fields, expected {width}", line=line, record=record,
                        expected=width, found=found)
        return fields, quoted

    def skip_or_raise(self, f: _Fail):
        if not self.o.skip_errors:
            raise f
        err = make_builtin(_ERROR, kind=KIND.variants[f.kind], message=f.message, **f.where)
        self.skipped_count += 1
        if len(self.skipped) < self.o.max_skipped:
            self.skipped.append(err)
        if self.o.on_skip is not None:
            self.o.on_skip(err)

    def byte(self, at: int) -> int:
        return len(self.text[:at].encode("utf-8"))


def _source(source) -> str:
    if isinstance(source, bytearray):
        try:
            return bytes(source).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(source).decode("utf-8", "replace")
    return source


@function("baml.csv.parse")
def parse(source, options=None):
    try:
        return [row[0] for row in _Stream(_source(source), _ReadOpts(options)).rows()]
    except _Fail as f:
        raise _raise(f) from None


# ── typed decoding ──

_INT_TEXT = re.compile(r"[+-]?[0-9]+\Z")
_CELL_KINDS = ("string", "int", "bigint", "float", "bool", "enum")
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def _cell_type(t: tuple):
    """A field's test as (cell kind, optional): kinds string int bigint float bool enum."""
    optional = False
    if t[0] == "union":
        members = [m for m in t[1] if m != ("null",)]
        optional = len(members) < len(t[1])
        t = members[0] if len(members) == 1 else t
    return t, optional


def _convert(t: tuple, text: str, ta):
    k = t[0]
    if k == "string":
        return text
    if k in ("int", "bigint"):
        if not _INT_TEXT.match(text):
            raise ValueError(f"cannot convert {quote(text)} to {k}")
        v = int(text)
        if k == "bigint":
            return BigInt(v)
        if not INT_MIN <= v <= INT_MAX:
            raise ValueError(f"integer {quote(text)} is outside the BAML int range")
        return v
    if k == "float":
        if not _FLOAT_TEXT.match(text) or float(text) in (float("inf"), float("-inf")):
            raise ValueError(f"cannot convert {quote(text)} to float")
        return float(text)
    if k == "bool":
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise ValueError(f"cannot convert {quote(text)} to bool")
    info = ta.enums[t[1]]
    if text in info.variants:
        return info.variants[text]
    raise ValueError(f"{quote(text)} is not a variant of `{_display(t[1])}`")


def _columns(ta, table: _Stream) -> list:
    """Each field of T's class: (name, test, optional, column index or None), checked against
    the header."""
    root = ta.root
    if root[0] != "class":
        raise _Fail("Options", f"rows target `{_show(root)}` is not a class; CSV decodes into flat classes")
    out = []
    for pos, (name, _alias, _skip, ft) in enumerate(ta.fields(root)):
        t, optional = _cell_type(ft)
        if t[0] not in _CELL_KINDS:
            raise _Fail("Options", f"field `{name}` of `{_display(root[1])}`: type `{_show(ft)}` is not cell-decodable")
        if table.names is None:
            col = pos
        else:
            hits = [i for i, h in enumerate(table.names) if h == name]
            if len(hits) > 1:
                raise _Fail("Header", f"column `{name}` is duplicated in the header", column=name)
            if not hits and not optional:
                raise _Fail("Header", f"no column matching non-optional field `{name}` of `{_display(root[1])}`",
                            column=name)
            col = hits[0] if hits else None
        out.append((name, t, optional, col))
    return out


def _decode_row(ta, cols, table: _Stream, row) -> Instance:
    fields, quoted, line, record, _ = row
    values = []
    for name, t, optional, col in cols:
        column = table.names[col] if table.names is not None and col is not None else None
        where = dict(line=line, record=record, field=col, column=column)
        if col is None or col >= len(fields):
            if optional:
                values.append(None)
                continue
            raise _Fail("Decode", f"missing cell for non-optional field `{name}`", **where)
        text, is_quoted = fields[col], quoted[col]
        if not is_quoted and (text in table.o.null_values or (text == "" and t[0] != "string")):
            if optional:
                values.append(None)
                continue
            if text != "":
                raise _Fail("Decode", f"null cell ({quote(text)}) for non-optional field `{name}`", **where)
            if t[0] != "string":
                raise _Fail("Decode", f"empty cell for non-optional field `{name}`", **where)
        try:
            values.append(_convert(t, text, ta))
        except ValueError as e:
            raise _Fail("Decode", str(e), **where) from None
    return ta.classes[ta.root[1]].new(*values)


def _decode_all(ta, source, options) -> list:
    table = _Stream(_source(source), _ReadOpts(options))
    table.header()
    cols = _columns(ta, table)
    out = []
    while (row := table.next()) is not None:  # record by record: errors in their order
        try:
            out.append(_decode_row(ta, cols, table, row))
        except _Fail as f:
            table.skip_or_raise(f)
    return out


@function("baml.csv.decode")
def decode(T, source, options=None):
    try:
        return _decode_all(T, source, options)
    except _Fail as f:
        raise _raise(f) from None


def _one(T, source, options, at_most: bool):
    rows = decode(T, source, options)
    if len(rows) > 1:
        what = "at most" if at_most else "exactly"
        raise _raise(_Fail("TooManyRows", f"expected {what} one data record, found {len(rows)}"))
    if not rows and not at_most:
        raise _raise(_Fail("NotFound", "expected exactly one data record, found none"))
    return rows[0] if rows else None


@function("baml.csv.decode_one")
def decode_one(T, source, options=None):
    return _one(T, source, options, False)


@function("baml.csv.decode_optional")
def decode_optional(T, source, options=None):
    return _one(T, source, options, True)


# ── writing ──

_FORMULA = tuple("=+-@\t\r\n＝＋－＠")


class _Writer:
    def __init__(self, o):
        b = _bytes(o, ("delimiter", "quote", "escape"), {"delimiter": ",", "quote": '"'})
        self.delim, self.quote, self.escape = b["delimiter"], b["quote"], b.get("escape")
        self.style = _opt(o, "quote_style", "minimal")
        self.end = "\r\n" if _opt(o, "terminator", "lf") == "crlf" else "\n"
        self.write_header = _opt(o, "write_header", True)
        self.headers = _opt(o, "headers", None)
        self.null = _opt(o, "null_value", "")
        self.bom = _opt(o, "bom", False)
        self.sanitize = _opt(o, "sanitize_formulas", False)
        self.out = ["\ufeff"] if self.bom else []

    def text(self, v, where: str) -> str:
        if v is None:
            return self.null
        if type(v) is bool:
            return "true" if v else "false"
        if type(v) is float:
            if v - v != 0:
                raise _Fail("Encode", f"{where}: non-finite floats (NaN, inf) cannot be written to CSV")
            s = rust_float(v)
            return s if "." in s else s + ".0"
        if type(v) is Variant:
            return v.name
        if isinstance(v, (int, str)):
            s = v if type(v) is str else "%d" % v
            return "'" + s if self.sanitize and type(v) is str and s.startswith(_FORMULA) else s
        raise _Fail("Encode", f"{where}: a value of this kind cannot be written to CSV")

    def cell(self, s: str) -> str:
        needs = any(c in s for c in (self.delim, self.quote, "\r", "\n"))
        if self.style == "never":
            if needs:
                raise _Fail("Encode", f"field {quote(s)} requires quoting, which `quote_style: \"never\"` forbids")
            return s
        if self.style == "all" or needs:
            esc = (self.escape or self.quote) + self.quote
            return self.quote + s.replace(self.quote, esc) + self.quote
        return s

    def record(self, values: list) -> None:
        cells = [self.cell(self.text(v, f"record field {i}")) for i, v in enumerate(values)]
        self.out.append(self.delim.join(cells) + self.end)


@function("baml.csv.stringify_records")
def stringify_records(records, options=None):
    try:
        w = _Writer(options)
        for rec in records:
            w.record(list(rec))
        return "".join(w.out)
    except _Fail as f:
        raise _raise(f) from None


def _row_fields(T) -> list[str] | None:
    return [f[0] for f in T.fields(T.root)] if T.root[0] == "class" else None


@function("baml.csv.stringify")
def stringify(T, rows, options=None):
    try:
        w = _Writer(options)
        header_done = not w.write_header
        for r in rows:
            header_done = _typed_row(w, T, r, header_done)
        return "".join(w.out) if rows else ""
    except _Fail as f:
        raise _raise(f) from None


def _typed_row(w: _Writer, T, row, header_done: bool) -> bool:
    """One row of a class (its header first, unless done): whether the header is done now."""
    names = _row_fields(T)
    if names is None or not isinstance(row, Instance):
        raise _Fail("Options", "write_row target is not a class instance; CSV writes flat classes")
    values = [getattr(row, "f_" + n) for n in names]
    for n, v in zip(names, values):
        if not (v is None or isinstance(v, (bool, int, float, str, Variant))):
            raise _Fail("Options", f"field `{n}`: value is not representable as a CSV cell")
    if not header_done:
        w.record(list(w.headers) if w.headers is not None else names)
    w.record(values)
    return True


# ── Markdown ──

def _md_cell(v) -> str:
    if v is None:
        return ""
    if type(v) is bool:
        return "true" if v else "false"
    if type(v) is float:
        if v != v:
            return "NaN"
        s = rust_float(v)
        return s if "." in s or "inf" in s else s + ".0"
    if type(v) is Variant:
        return v.name
    if isinstance(v, (int, str)):
        s = v if type(v) is str else "%d" % v
    else:
        try:
            s = json_stringify(v)
        except BamlRaise:
            s = "<unrepresentable>"
    return s.replace("|", "\\|").replace("\r\n", " ").replace("\n", " ").replace("\r", " ")


def _md(header: list[str], rows: list[list[str]], max_rows: int) -> str:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    shown = rows[:max(max_rows, 0)]
    lines += ["| " + " | ".join(r) + " |" for r in shown]
    if len(rows) > len(shown):
        lines.append(f"… ({len(rows) - len(shown)} more rows)")
    return "\n".join(lines)


@function("baml.csv.to_markdown")
def to_markdown(T, rows, max_rows=100):
    names = _row_fields(T)
    if names is None:
        return _md(["value"], [[_md_cell(r)] for r in rows], max_rows)
    return _md(names, [[_md_cell(getattr(r, "f_" + n)) for n in names] for r in rows], max_rows)


@function("baml.csv.to_markdown_records")
def to_markdown_records(records, headers=None, max_rows=100):
    rows = [[_md_cell(c) for c in r] for r in records]
    if headers is None:  # as wide as the widest record shown; none shown: no table
        width = max((len(r) for r in rows[:max(max_rows, 0)]), default=0)
        if width == 0:
            return ""
        headers = [f"col{i + 1}" for i in range(width)]
    return _md([_md_cell(h) for h in headers], rows, max_rows)



# ── the streaming handles over in-memory sources: Reader, Record, buffer Writer ──

for _fqn, _fields in (("baml.csv.Reader", ["_handle", "_file", "_on_skip", "_owns_file"]),
                      ("baml.csv.Record", ["_handle"]), ("baml.csv.Position", ["byte", "line", "record"]),
                      ("baml.csv.Writer", ["_handle", "_file", "_owns_file"])):
    BUILTIN_CLASSES[_fqn] = ClassInfo(_fqn, _fqn.rpartition(".")[2], _fields)


def _guarded(fn):
    """A handle method: its `_Fail` becomes the thrown `baml.csv.Error`."""
    def run(*args):
        try:
            return fn(*args)
        except _Fail as f:
            raise _raise(f) from None
    return run


def _targ(args: tuple, method: str):
    """A typed method's type argument and its values. Assay passes only a written one (the
    engine also infers it from the expected type): without it, `baml.errors.Unsupported`."""
    if args and isinstance(args[0], TypeArg):
        return args[0], args[1:]
    throw_error("Unsupported", message=f"baml.csv: `{method}` without its type argument written "
                f"(`{method}<int>(…)`) is not supported by Assay yet")


def _position(stream: _Stream, at: int, line: int, record: int) -> Instance:
    return make_builtin("baml.csv.Position", byte=stream.byte(at), line=line, record=record)


class _Rec:
    __slots__ = ("row", "names", "stream")

    def __init__(self, row, names, stream):
        self.row, self.names, self.stream = row, names, stream


def _record(stream: _Stream, row) -> Instance:
    return make_builtin("baml.csv.Record", _handle=_Rec(row, stream.names, stream))


def _cell(ta, rec: _Rec, col: int | None, column):
    t, _ = _cell_type(ta.root)
    if t[0] not in _CELL_KINDS:
        raise _Fail("Options", f"type `{_show(ta.root)}` is not cell-decodable")
    fields, quoted, line, record, _ = rec.row
    if col is None or not 0 <= col < len(fields):
        return None
    text = fields[col]
    if not quoted[col] and (text in rec.stream.o.null_values or (text == "" and t[0] != "string")):
        return None
    try:
        return _convert(t, text, ta)
    except ValueError as e:
        raise _Fail("Decode", str(e), line=line, record=record, field=col, column=column) from None


def _need_headers(rec: _Rec, what: str) -> list:
    if rec.names is None:
        raise _Fail("Header", what, line=rec.row[2], record=rec.row[3])
    return rec.names


def _rec_get(self, *args):
    ta, (column,) = _targ(args, "get")
    rec = self.f__handle
    names = _need_headers(rec, "get(column) requires headers (has_header = true or the headers option); "
                               "use get_at for positional access")
    hits = [i for i, h in enumerate(names) if h == column]
    if len(hits) > 1:
        raise _Fail("Header", f"column `{column}` is duplicated in the header", line=rec.row[2],
                    record=rec.row[3], column=column)
    return _cell(ta, rec, hits[0] if hits else None, column)


def _rec_get_at(self, *args):
    ta, (index,) = _targ(args, "get_at")
    rec = self.f__handle
    column = rec.names[index] if rec.names is not None and 0 <= index < len(rec.names) else None
    return _cell(ta, rec, index, column)


def _rec_decode(self, *args):
    ta, _ = _targ(args, "decode")
    rec = self.f__handle
    return _decode_row(ta, _columns(ta, rec.stream), rec.stream, rec.row)


def _rec_to_map(self):
    rec = self.f__handle
    names = _need_headers(rec, "to_map requires headers (has_header = true or the headers option)")
    seen = set()
    for h in names:
        if h in seen:
            raise _Fail("Header", f"to_map requires unique headers; `{h}` is duplicated", line=rec.row[2],
                        record=rec.row[3], column=h)
        seen.add(h)
    fields = rec.row[0]
    return {h: fields[i] if i < len(fields) else "" for i, h in enumerate(names)}


def _rec_position(self):
    rec = self.f__handle
    _, _, line, record, at = rec.row
    return _position(rec.stream, at, line, record)


_REC = BUILTIN_CLASSES["baml.csv.Record"].py
_REC.m_get, _REC.m_get_at = _guarded(_rec_get), _guarded(_rec_get_at)
_REC.m_decode, _REC.m_to_map = _guarded(_rec_decode), _guarded(_rec_to_map)
_REC.m_fields = lambda self: list(self.f__handle.row[0])
_REC.m_length = lambda self: len(self.f__handle.row[0])
_REC.m_position = _rec_position


@function("baml.csv.reader")
def reader(source, options=None):
    try:
        stream = _Stream(_source(source), _ReadOpts(options))
    except _Fail as f:
        raise _raise(f) from None
    return make_builtin("baml.csv.Reader", _handle=stream, _file=None, _on_skip=stream.o.on_skip, _owns_file=False)


def _open(self) -> _Stream:
    stream = self.f__handle
    if stream.closed:
        raise _Fail("Closed", "reader is closed")
    return stream


def _reader_next(self):
    stream = _open(self)
    row = stream.next()
    return iters.DONE if row is None else _record(stream, row)


def _reader_headers(self):
    stream = _open(self)
    stream.header()
    return None if stream.names is None else list(stream.names)


def _reader_rows(self, *args):
    ta, _ = _targ(args, "rows")
    stream = _open(self)
    stream.header()
    cols = _columns(ta, stream)

    def nx():
        while True:
            row = _guarded(lambda: _open(self).next())()
            if row is None:
                return iters.DONE
            try:
                return _decode_row(ta, cols, stream, row)
            except _Fail as f:
                try:
                    stream.skip_or_raise(f)
                except _Fail as g:
                    raise _raise(g) from None
    return iters.Iter(nx)


def _reader_position(self):
    stream = self.f__handle
    at, line = stream.cursor
    return _position(stream, at, line, stream.record)


def _reader_close(self):
    self.f__handle.closed = True


_READER = BUILTIN_CLASSES["baml.csv.Reader"].py
_READER.m_next, _READER.m_headers = _guarded(_reader_next), _guarded(_reader_headers)
_READER.m_rows = _guarded(_reader_rows)
_READER.m_iter = lambda self: self
_READER.m_skipped = lambda self: list(self.f__handle.skipped)
_READER.m_skipped_count = lambda self: self.f__handle.skipped_count
_READER.m_close = _reader_close
_READER.m_position = _reader_position


# ── the buffer Writer ──

class _Buffer:
    def __init__(self, w: _Writer):
        self.w, self.records, self.header_done, self.closed = w, 0, False, False

    def check(self) -> _Writer:
        if self.closed:
            raise _Fail("Closed", "writer is closed")
        return self.w


@function("baml.csv.buffer")
def buffer(options=None):
    try:
        return make_builtin("baml.csv.Writer", _handle=_Buffer(_Writer(options)), _file=None, _owns_file=False)
    except _Fail as f:
        raise _raise(f) from None


def _w_record(self, record):
    b = self.f__handle
    b.check().record(list(record))
    b.records += 1


def _w_header(self, names):
    b = self.f__handle
    if b.records:
        raise _Fail("Header", "cannot write a header after data records")
    b.check().record(list(names))
    b.header_done = True


def _w_rows(self, *args):
    ta, (rows,) = _targ(args, "write_rows")
    b = self.f__handle
    w = b.check()
    for r in rows:
        b.header_done = _typed_row(w, ta, r, b.header_done or not w.write_header)
        b.records += 1


def _w_row(self, *args):
    ta, (row,) = _targ(args, "write_row")
    return _w_rows(self, ta, [row])


_WRITER = BUILTIN_CLASSES["baml.csv.Writer"].py
_WRITER.m_write_record, _WRITER.m_write_header = _guarded(_w_record), _guarded(_w_header)
_WRITER.m_write_rows, _WRITER.m_write_row = _guarded(_w_rows), _guarded(_w_row)
_WRITER.m_records_written = lambda self: self.f__handle.records
_WRITER.m_text = lambda self: "".join(self.f__handle.w.out)
_WRITER.m_flush = lambda self: None
_WRITER.m_close = lambda self: setattr(self.f__handle, "closed", True)
