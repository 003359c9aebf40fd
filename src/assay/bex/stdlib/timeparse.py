"""The calendar and the parsers behind baml.time (bex/stdlib/timelib.py): the proleptic Gregorian
calendar as day counts, and the Rust `time` crate's grammars as the engine's natives call them —
the PlainTime/PlainDate/PlainDateTime formats, RFC 3339, ISO 8601 and RFC 2822 — each failing
with the crate's words (`a character literal was not valid`, `the 'hour' component could not be
parsed`, `day was not in range`, `unexpected trailing characters; …`) as a `Bad`."""
from __future__ import annotations

US, MS, NS = 1000, 1000_000, 1000_000_000
MIN, HOUR = 60 * NS, 3600 * NS
DAY = 86400 * NS


# ── the proleptic Gregorian calendar (days since 1970-01-01) ──

def days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m - 3 if m > 2 else m + 9) + 2) // 5 + d - 1
    return era * 146097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719468


def civil_from_days(z: int) -> tuple[int, int, int]:
    z += 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (m <= 2), m, d


def leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def month_days(y: int, m: int) -> int:
    return 29 if m == 2 and leap(y) else (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[m - 1]


# ── parsing: the `time` crate's grammar and errors ──

_LIT = "a character literal was not valid"
_TRAIL = "unexpected trailing characters; the end of input was expected"


class Bad(Exception):
    pass


def _component(name: str) -> Bad:
    return Bad(f"the '{name}' component could not be parsed")


def _range(name: str) -> Bad:
    return Bad(f"{name} was not in range")


class _Cursor:
    __slots__ = ("s", "i")

    def __init__(self, s: str, i: int = 0):
        self.s, self.i = s, i

    def digits(self, n: int) -> int | None:
        """Exactly n ASCII digits, else None (nothing consumed)."""
        t = self.s[self.i:self.i + n]
        if len(t) != n or not (t.isascii() and t.isdigit()):
            return None
        self.i += n
        return int(t)

    def need(self, n: int, name: str, lo: int, hi: int) -> int:
        v = self.digits(n)
        if v is None or not lo <= v <= hi:
            raise _component(name)
        return v

    def lit(self, c: str) -> None:
        if not self.s.startswith(c, self.i):
            raise Bad(_LIT)
        self.i += len(c)

    def eat(self, c: str) -> bool:
        if self.s.startswith(c, self.i):
            self.i += len(c)
            return True
        return False

    def peek(self) -> str:
        return self.s[self.i:self.i + 1]

    def end(self) -> None:
        if self.i != len(self.s):
            raise Bad(_TRAIL)


def _subsecond(c: _Cursor) -> int:
    """One or more digits after a `.`, truncated to nanoseconds."""
    j = c.i
    while j < len(c.s) and c.s[j].isascii() and c.s[j].isdigit():
        j += 1
    t, c.i = c.s[c.i:j], j
    return int((t + "00000000")[:9])


def _time_of_day(c: _Cursor) -> int:
    """`hh:mm:ss[.f…]` as the engine's PlainTime format reads it; a second 60 reads as -1
    (refused when the value is built, after the date)."""
    h = c.need(2, "hour", 0, 23)
    c.lit(":")
    mi = c.need(2, "minute", 0, 59)
    c.lit(":")
    s = c.need(2, "second", 0, 60)
    sub = 0
    if c.peek() == "." and c.s[c.i + 1:c.i + 2].isdigit() and c.s[c.i + 1].isascii():
        c.i += 1
        sub = _subsecond(c)
    return -1 if s == 60 else (h * 3600 + mi * 60 + s) * NS + sub


def _leap_refused(tod: int) -> int:
    if tod < 0:
        raise _range("second")
    return tod


def _calendar_date(c: _Cursor) -> tuple[int, int, int]:
    """`[±]yyyy-mm-dd` as the engine's PlainDate format reads it (range checked after)."""
    neg = c.peek() == "-"
    if c.peek() in "+-" and c.peek():
        c.i += 1
    y = c.need(4, "year", 0, 9999)
    c.lit("-")
    m = c.need(2, "month", 1, 12)
    c.lit("-")
    d = c.need(2, "day", 1, 31)
    return (-y if neg else y), m, d


def _check_day(y: int, m: int, d: int) -> None:
    if d > month_days(y, m):
        raise _range("day")


def parse_plain_time(s: str) -> int:
    c = _Cursor(s)
    ns = _time_of_day(c)
    c.end()
    return _leap_refused(ns)


def parse_plain_date(s: str) -> int:
    c = _Cursor(s)
    y, m, d = _calendar_date(c)
    c.end()
    _check_day(y, m, d)
    return days_from_civil(y, m, d)


def parse_plain_datetime(s: str) -> int:
    c = _Cursor(s)
    y, m, d = _calendar_date(c)
    c.lit("T")
    tod = _time_of_day(c)
    c.end()
    _check_day(y, m, d)
    return days_from_civil(y, m, d) * DAY + _leap_refused(tod)


def rfc3339(s: str) -> tuple[int, int]:
    """(epoch nanoseconds, offset nanoseconds) of an RFC 3339 timestamp, as the `time` crate
    reads one: any one character between date and time, `z` either case, a leap second only
    where it stands for 23:59:59.999999999 UTC on a month's last day."""
    c = _Cursor(s)
    y = c.need(4, "year", 0, 9999)
    c.lit("-")
    mo = c.need(2, "month", 1, 99)
    c.lit("-")
    d = c.need(2, "day", 0, 99)
    if c.i >= len(s):
        raise _component("separator")
    c.i += 1
    h = c.need(2, "hour", 0, 99)
    c.lit(":")
    mi = c.need(2, "minute", 0, 99)
    c.lit(":")
    sec = c.need(2, "second", 0, 99)
    sub = 0
    if c.eat("."):
        if not (c.peek().isascii() and c.peek().isdigit()):
            raise _component("subsecond")
        sub = _subsecond(c)
    if c.peek() in ("Z", "z") and c.peek():
        c.i += 1
        oh = om = 0
        neg = False
    else:
        if c.peek() not in ("+", "-") or not c.peek():
            raise _component("offset hour")
        neg = c.peek() == "-"
        c.i += 1
        oh = c.need(2, "offset hour", 0, 23)
        c.lit(":")
        om = c.need(2, "offset minute", 0, 99)
        if om > 59:
            raise _range("offset minute")
    c.end()
    offset = (oh * 60 + om) * MIN * (-1 if neg else 1)
    return _instant_of(y, mo, d, h, mi, sec, sub, offset, om), offset


def _float2(c: _Cursor):
    """Two digits and an optional `.`/`,` fraction, the fraction summed digit by digit in
    binary floating point as the `time` crate sums it; None (nothing consumed) without them."""
    whole = c.digits(2)
    if whole is None:
        return None
    if c.peek() in (".", ",") and c.peek() and c.s[c.i + 1:c.i + 2].isdigit() and c.s[c.i + 1].isascii():
        c.i += 1
        frac, divisor = 0.0, 1.0
        while c.peek().isascii() and c.peek().isdigit() and c.peek():
            divisor *= 10.0
            frac += int(c.peek()) / divisor
            c.i += 1
        return whole, frac
    return whole, None


def iso8601(s: str) -> int:
    """Epoch nanoseconds of an ISO 8601 date, time and offset, read as the `time` crate reads
    them: the date's separator fixes extended or basic, which the time and offset then follow
    where they can (a basic minute after an extended date ends the time there); calendar,
    ordinal or week dates; reduced precision; a fraction on the last time component."""
    c = _Cursor(s)
    sign = c.peek() if c.peek() in ("+", "-") and c.peek() else ""
    c.i += len(sign)
    y = c.digits(6 if sign else 4)
    if y is None:
        raise Bad(_LIT)
    y = -y if sign == "-" else y
    extended = c.eat("-")
    days = _iso_calendar(c, y, extended)
    if days is None:
        days = _iso_ordinal(c, y)
    if days is None:
        days = _iso_week(c, y, extended)
    c.lit("T")
    clock = _iso_clock(c, extended)
    if c.eat("Z"):
        offset = 0
    else:
        sign = c.peek()
        if sign not in ("+", "-") or not sign:
            raise Bad(_LIT)
        c.i += 1
        oh = c.digits(2)
        if oh is None:
            raise Bad(_LIT)
        if extended:
            c.eat(":")
        om = c.digits(2) or 0
        if oh > 23 or om > 59:
            raise Bad(_LIT)
        offset = (oh * 60 + om) * MIN * (-1 if sign == "-" else 1)
    c.end()
    return days * DAY + clock - offset


def _iso_calendar(c: _Cursor, y: int, extended: bool) -> int | None:
    """`mm-dd` (`mmdd`): its day count, else None with nothing consumed."""
    at = c.i
    mo = c.digits(2)
    d = c.digits(2) if mo is not None and 1 <= mo <= 12 and (not extended or c.eat("-")) else None
    if d is None:
        c.i = at
        return None
    if not 1 <= d <= month_days(y, mo):
        raise _range("day")
    return days_from_civil(y, mo, d)


def _iso_ordinal(c: _Cursor, y: int) -> int | None:
    o = c.digits(3)
    if o is None:
        return None
    if not 1 <= o <= (366 if leap(y) else 365):
        raise _range("ordinal")
    return days_from_civil(y, 1, 1) + o - 1


def _iso_week(c: _Cursor, y: int, extended: bool) -> int:
    c.lit("W")
    w = c.digits(2)
    if w is None or (extended and not c.eat("-")):
        raise Bad(_LIT)
    wd = c.digits(1)
    jan1 = (days_from_civil(y, 1, 1) + 3) % 7  # 0 = Monday (1970-01-01 was a Thursday)
    weeks = 53 if jan1 == 3 or (jan1 == 2 and leap(y)) else 52
    if wd is None or not 1 <= wd <= 7 or not 1 <= w <= weeks:
        raise Bad(_LIT)
    jan4 = days_from_civil(y, 1, 4)
    return jan4 - (jan4 + 3) % 7 + (w - 1) * 7 + wd - 1  # 1970-01-01 was a Thursday


def _iso_clock(c: _Cursor, extended: bool) -> int:
    """Nanoseconds since midnight of `hh[:mm[:ss]]` (basic without the colons), the last part
    possibly fractional."""
    hour = _float2(c)
    if hour is None:
        raise Bad(_LIT)
    h, hf = hour
    if hf is not None:
        return _hms(h, int(hf * 60), int(hf * 3600 % 60), int(hf * 3.6e12 % 1e9))  # ns per hour
    colon = c.eat(":")
    if colon and not extended:
        raise Bad(_LIT)
    minute = _float2(c)
    if minute is None:
        if extended:
            raise Bad(_LIT)
        return _hms(h, 0, 0, 0)
    mi, mf = minute
    if mf is not None:
        return _hms(h, mi, int(mf * 60), int(mf * 6e10 % 1e9))  # ns per minute
    if extended and not c.eat(":"):
        return _hms(h, mi, 0, 0)
    second = _float2(c)
    if second is None:
        if extended:
            raise Bad(_LIT)
        return _hms(h, mi, 0, 0)
    sec, sf = second
    return _hms(h, mi, sec, 0 if sf is None else int(sf * 1e9))


def _hms(h: int, mi: int, sec: int, ns: int) -> int:
    if h > 23 or mi > 59 or sec > 59:
        raise Bad(_LIT)
    return ((h * 60 + mi) * 60 + sec) * NS + ns


_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_ZONES = {"UT": 0, "GMT": 0, "EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6,
          "PST": -8, "PDT": -7}


def _cfws(c: _Cursor) -> bool:
    """Comments and folding white space; whether any was there."""
    start = c.i
    while c.i < len(c.s):
        ch = c.s[c.i]
        if ch in " \t":
            c.i += 1
        elif c.s.startswith("\r\n", c.i) and c.s[c.i + 2:c.i + 3] in (" ", "\t") and c.s[c.i + 2:c.i + 3]:
            c.i += 2
        elif ch == "(":
            depth, j = 0, c.i
            while j < len(c.s):
                depth += {"(": 1, ")": -1}.get(c.s[j], 0)
                j += 1
                if depth == 0:
                    break
            if depth:
                break
            c.i = j
        else:
            break
    return c.i > start


def rfc2822(s: str) -> int:
    c = _Cursor(s)
    _cfws(c)
    if any(s[c.i:c.i + 3].lower() == w.lower() for w in _WEEKDAYS):
        c.i += 3
        c.lit(",")
        _cfws(c)
    d = c.digits(2)
    if d is None:
        d = c.digits(1)
    if d is None:
        raise _component("day")
    if not _cfws(c):
        raise Bad(_LIT)
    mo = next((k for k, m in enumerate(_MONTHS, 1) if s[c.i:c.i + 3].lower() == m.lower()), None)
    if mo is None:
        raise _component("month")
    c.i += 3
    if not _cfws(c):
        raise Bad(_LIT)
    y = c.digits(4)
    if y is not None:
        if y < 1900:
            raise _component("year")
    else:
        y = c.digits(2)
        if y is None:
            raise _component("year")
        y += 2000 if y < 50 else 1900
    if not _cfws(c):
        raise Bad(_LIT)
    h = c.need(2, "hour", 0, 99)
    _cfws(c)
    c.lit(":")
    _cfws(c)
    mi = c.need(2, "minute", 0, 99)
    sec = 0
    save = c.i
    _cfws(c)
    if c.eat(":"):
        _cfws(c)
        sec = c.need(2, "second", 0, 99)
        if not _cfws(c):
            raise Bad(_LIT)
    else:
        c.i = save
        if not _cfws(c):
            raise Bad(_LIT)
    zone = next((z for z in _ZONES if s[c.i:c.i + len(z)].upper() == z), None)
    om = 0
    if zone is not None:
        c.i += len(zone)
        offset = _ZONES[zone] * HOUR
    elif c.peek().isascii() and c.peek().isalpha() and c.peek() not in "jJ":
        c.i += 1
        offset = 0
    else:
        if c.peek() not in ("+", "-") or not c.peek():
            raise _component("offset hour")
        neg = c.peek() == "-"
        c.i += 1
        oh = c.need(2, "offset hour", 0, 99)
        om = c.need(2, "offset minute", 0, 99)
        offset = (oh * 60 + om) * MIN * (-1 if neg else 1)
    _cfws(c)
    c.end()
    return _instant_of(y, mo, d, h, mi, sec, 0, offset, om)


def _instant_of(y, mo, d, h, mi, sec, sub, offset, offset_minute) -> int:
    """Epoch nanoseconds of parsed components, range-checked as the `time` crate builds them; a
    second 60 only where it stands for 23:59:59.999999999 UTC on a month's last day."""
    if not 1 <= mo <= 12:
        raise _range("month")
    if not 1 <= d <= month_days(y, mo):
        raise _range("day")
    for v, hi, name in ((h, 23, "hour"), (mi, 59, "minute"), (sec, 60, "second")):
        if v > hi:
            raise _range(name)
    if offset_minute > 59:
        raise _range("offset minute")
    leap = sec == 60
    if leap:
        sec, sub = 59, NS - 1
    epoch = days_from_civil(y, mo, d) * DAY + ((h * 60 + mi) * 60 + sec) * NS + sub - offset
    if leap:
        uy, um, ud = civil_from_days(epoch // DAY)
        if epoch % DAY != DAY - 1 or ud != month_days(uy, um):
            raise _range("second")
    return epoch
