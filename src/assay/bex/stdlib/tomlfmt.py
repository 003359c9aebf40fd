"""baml.toml: `Table.parse` (Python's tomllib, TOML 1.0, checked as the engine checks: 63-bit
ints, finite float literals), the `Table` class (`items`, `to_json`, `from_json`) and the
`item_to_json` / `item_from_json` / `table_from_json` helpers, as the stdlib declares them.

A parsed table's keys are sorted (the engine's TOML map is a BTreeMap); a table built in BAML
keeps its order. TOML datetimes parse to `baml.time` values (bex/stdlib/timelib.py): an offset
datetime a fixed-offset `ZonedDateTime`, a local one a `PlainDateTime`, a local date or time a
`PlainDate` or `PlainTime`; tomllib reads their fractions to microseconds only. A syntax
error is framed as the engine's (`TOML parse error at line L, column C`, the line, a caret)
around tomllib's own words."""
from __future__ import annotations

import datetime
import re
import tomllib

from ..ops import BUILTIN_CLASSES, make_builtin
from ..values import INT_MAX, INT_MIN, BamlRaise, BigInt, ClassInfo, Instance
from . import timelib
from ._registry import function
from .jsontyped import from_

_TABLE = "baml.toml.Table"
BUILTIN_CLASSES[_TABLE] = ClassInfo(_TABLE, "Table", ["items"])
BUILTIN_CLASSES["baml.toml.ParseError"] = ClassInfo("baml.toml.ParseError", "ParseError", ["message"])
_I64 = 1 << 63
_AT = re.compile(r" \(at line (\d+), column (\d+)\)$| \(at end of document\)$")


class _Fail(Exception):
    pass


def _float(text: str) -> float:
    x = float(text)
    if x - x != 0 and "inf" not in text and "nan" not in text:  # 1e400: no f64 holds it
        raise _Fail("invalid floating-point number")
    return x


def _error(message: str):
    return BamlRaise(make_builtin("baml.toml.ParseError", message=message))


def _framed(s: str, e: tomllib.TOMLDecodeError) -> str:
    """tomllib's message in toml_edit's frame: place, the line, a caret under the column."""
    m = _AT.search(str(e))
    msg = str(e)[:m.start()] if m else str(e)
    if m and m.group(1):
        line, col = int(m.group(1)), int(m.group(2))
        if msg == "Invalid date or datetime":  # a day the month lacks: toml_edit points at the day
            msg, col = "invalid date-time\nvalue is out of range", col + 8
    else:  # at the end of the document
        line, col = s.count("\n") + 1, len(s) - s.rfind("\n")
    return _frame(s, line, col, msg)


def _at(s: str, e: tomllib.TOMLDecodeError) -> int:
    """The offset tomllib's error names (the end of the document where it names none)."""
    m = _AT.search(str(e))
    if not (m and m.group(1)):
        return len(s)
    starts = [0] + [k + 1 for k, ch in enumerate(s) if ch == "\n"]
    line = int(m.group(1))
    return (starts[line - 1] if line <= len(starts) else len(s)) + int(m.group(2)) - 1


def _frame(s: str, line: int, col: int, msg: str) -> str:
    text = s.splitlines()[line - 1] if s.splitlines()[line - 1:line] else ""
    bar = " " * len(str(line))
    return f"TOML parse error at line {line}, column {col}\n{bar} |\n{line} | {text}\n{bar} | {' ' * (col - 1)}^\n{msg}\n"


_MAX_DEPTH = 80  # toml_edit's recursion limit: opening the 80th nested array or inline table fails


def _too_deep(s: str) -> int | None:
    """The offset of the bracket that opens the 80th nested array / inline table of a value,
    if any (strings and comments skipped; a `[` starting a line outside a value is a header)."""
    i, n, depth, in_value = 0, len(s), 0, False
    while i < n:
        c = s[i]
        if c in "\"'":
            q = s[i:i + 3] if s[i:i + 3] in ('"""', "'''") else c
            i += len(q)
            while i < n and not s.startswith(q, i):
                i += 2 if c == '"' and s[i] == "\\" else 1
            i += len(q)
            continue
        if c == "#":
            while i < n and s[i] != "\n":
                i += 1
            continue
        if c == "=" and depth == 0:
            in_value = True
        elif c == "\n" and depth == 0:
            in_value = False
        elif c in "[{" and (in_value or depth > 0):
            depth += 1
            if depth >= _MAX_DEPTH:
                return i
        elif c in "]}" and depth > 0:
            depth -= 1
        i += 1
    return None


def _item(v):
    """A tomllib value as a `baml.toml.Item`; a 64-bit int outside BAML's 63 is the engine's
    error, a datetime is not supported yet."""
    if isinstance(v, dict):
        return _table({k: _item(v[k]) for k in sorted(v)})
    if isinstance(v, list):
        return [_item(x) for x in v]
    if type(v) is int and not INT_MIN <= v <= INT_MAX:
        if not -_I64 <= v < _I64:
            raise _Fail("invalid integer: number too large to fit in target type")
        raise BamlRaise(make_builtin("baml.toml.ParseError",
                                     message="BAML `int` is 63 bits. It is unable to parse 64-bit TOML integers."))
    if isinstance(v, (datetime.date, datetime.time)):
        return _datetime(v)
    return v


def _datetime(v):
    """A TOML datetime as its `baml.time` value: an offset datetime a fixed-offset
    `ZonedDateTime`, a local datetime, date or time a `PlainDateTime`, `PlainDate`, `PlainTime`."""
    if isinstance(v, datetime.time):
        return timelib.plain_time(_clock_ns(v))
    days = timelib.days_from_civil(v.year, v.month, v.day)
    if not isinstance(v, datetime.datetime):
        return timelib.plain_date(days)
    civil = days * timelib.DAY + _clock_ns(v)
    off = v.utcoffset()
    if off is None:
        return timelib.plain_datetime(civil)
    off_ns = (off.days * 86400 + off.seconds) * timelib.NS
    return timelib.zoned(civil - off_ns, off_ns, None)


def _clock_ns(v) -> int:
    sub = getattr(v, "nanos", None)
    return ((v.hour * 60 + v.minute) * 60 + v.second) * timelib.NS + (v.microsecond * 1000 if sub is None else sub)


# tomllib reads a fraction of a second to microseconds; the engine keeps nanoseconds. Its
# matchers are wrapped to hand back, for a fraction finer than microseconds, the same value as a
# subclass carrying the nanoseconds its text names (any other reader of tomllib sees what it
# always did, the subclass included).
class _Datetime(datetime.datetime):
    nanos = None


class _Time(datetime.time):
    nanos = None


def _with_nanos(v, m: re.Match):
    frac = re.search(r"\.([0-9]{7,})", m.group(0))  # digits past the microseconds
    if frac is None or not isinstance(v, (datetime.datetime, datetime.time)):
        return v
    cls = _Datetime if isinstance(v, datetime.datetime) else _Time
    out = cls(*(getattr(v, f) for f in ("year", "month", "day")[:3 if cls is _Datetime else 0]),
              v.hour, v.minute, v.second, v.microsecond, tzinfo=v.tzinfo)
    out.nanos = int((frac.group(1) + "00000000")[:9])
    return out


try:
    import tomllib._parser as _tomlparser
    _DT, _LT = _tomlparser.match_to_datetime, _tomlparser.match_to_localtime
    _tomlparser.match_to_datetime = lambda m: _with_nanos(_DT(m), m)
    _tomlparser.match_to_localtime = lambda m: _with_nanos(_LT(m), m)
except (ImportError, AttributeError):  # another tomllib: microseconds, then
    pass


def _table(items: dict) -> Instance:
    return make_builtin(_TABLE, items=items)


@function("baml.toml.Table.parse")
def parse(s):
    deep = _too_deep(s)
    try:
        doc = tomllib.loads(s, parse_float=_float)
    except tomllib.TOMLDecodeError as e:
        if deep is None or _at(s, e) < deep:
            raise _error(_framed(s, e)) from None
    except RecursionError:
        pass
    except _Fail as e:
        raise _error(str(e)) from None
    if deep is not None:
        line = s.count("\n", 0, deep) + 1
        raise _error(_frame(s, line, deep - s.rfind("\n", 0, deep), "recursion limit exceeded"))
    try:
        return _item(doc)
    except _Fail as e:
        raise _error(str(e)) from None


# ── json ↔ Table (the stdlib's BAML bodies) ──

def _decode_error(message: str):
    return BamlRaise(make_builtin("baml.json.DecodeError", message=message, path=""))


@function("baml.toml.table_from_json")
def table_from_json(j):
    if type(j) is not dict and not (isinstance(j, dict) and all(type(k) is str for k in j)):
        raise _decode_error("expected map")
    return _table({k: item_from_json(x) for k, x in j.items() if x is not None})


# a function value of its own: the engine's `Table.from_json` is a native, `table_from_json` its
# BAML wrapper (their signatures differ in what they throw: sema/stdsigs.BAML_BODIED)
function("baml.toml.Table.from_json")(lambda j: table_from_json(j))


@function("baml.toml.item_from_json")
def item_from_json(json):  # noqa: A002 - BAML's parameter name
    if json is None:
        raise _decode_error("TOML does not support null")
    if type(json) is BigInt:
        raise _decode_error("TOML does not support bigint")
    if isinstance(json, dict):
        return table_from_json(json)
    if isinstance(json, list):
        return [item_from_json(x) for x in json]
    return json


@function("baml.toml.item_to_json")
def item_to_json(item):
    if isinstance(item, Instance) and item._class.fqn == _TABLE:
        return _to_json(item)
    if isinstance(item, list):
        return [item_to_json(x) for x in item]
    if isinstance(item, Instance):  # a baml.time value: its ToJson
        return item.m_to_json()
    return item


def _to_json(self):
    return from_(self.f_items)


_PY = BUILTIN_CLASSES[_TABLE].py
_PY.m_to_json = _to_json
_PY.json_view = lambda self: self.f_items  # what baml.json writes for a Table (its ToJson)
_PY.json_decode = staticmethod(table_from_json)  # what baml.json.to<baml.toml.Table> reads (its FromJson)
