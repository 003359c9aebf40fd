"""baml.time, its deterministic part: `Duration`, `Instant`, `TimeZoneOffset`, `PlainTime`,
`PlainDate`, `PlainDateTime`, `ZonedDateTime`, as 0.23.0 declares them.

Each is a builtin class with the engine's fields (a count of nanoseconds, days, an offset, an
IANA name), so `==`, `${…}` of the classes without `ToString` (`Duration { _nanoseconds: 5 }`),
`is`, reflection and a class literal behave as for any class; the methods are natives on the
class. The calendar and the parsers (the Rust `time` crate's grammars and words, which the
engine's natives call) are timeparse.py's; `Instant.parse` tries RFC 3339, ISO 8601 and RFC
2822 in turn and, as the engine, reports the last one's error.

IANA zones resolve with Python's `zoneinfo` (the host's zone database, else the `tzdata`
package): a zone whose rules changed between that database and the engine's gives other
offsets. Reading the clock (`Instant.now`, `elapsed`, `ZonedDateTime.now`/`now_in`,
`TimeZoneOffset.local`, `system_timezone`) is not built: a located E9001 as any stdlib name
Assay lacks."""
from __future__ import annotations

import inspect
from datetime import datetime, timezone as dt_timezone
from functools import partial
from zoneinfo import ZoneInfo, available_timezones

from .. import ops
from ..ops import BUILTIN_CLASSES, make_builtin, operator_method, panic, throw_error
from ..values import INT_MAX, INT_MIN, OMITTED, BamlRaise, BigInt, ClassInfo, Instance
from ._registry import function
from .render import TO_STRING_OVERRIDES, quote
from .timeparse import (DAY, HOUR, MIN, MS, NS, US, Bad, civil_from_days, days_from_civil, iso8601,
                        month_days, parse_plain_date, parse_plain_datetime, parse_plain_time, rfc2822, rfc3339)

_T = "baml.time."

for _name, _fields in (("Duration", ["_nanoseconds"]), ("Instant", ["_nanoseconds"]),
                       ("TimeZoneOffset", ["_nanoseconds"]), ("PlainTime", ["_nanoseconds"]),
                       ("PlainDate", ["_days"]), ("PlainDateTime", ["_nanoseconds"]),
                       ("ZonedDateTime", ["_nanoseconds", "_offset_ns", "_iana"]),
                       ("UnknownTimezoneError", ["timezone"]), ("AmbiguousTimeError", ["message"])):
    BUILTIN_CLASSES[_T + _name] = ClassInfo(_T + _name, _name, _fields)
_INFO = {n: BUILTIN_CLASSES[_T + n] for n in ("Duration", "Instant", "TimeZoneOffset", "PlainTime",
                                              "PlainDate", "PlainDateTime", "ZonedDateTime")}
_PY = {n: i.py for n, i in _INFO.items()}


def _new(name: str, *values) -> Instance:
    return _INFO[name].new(*values)


def duration(ns: int) -> Instance:
    return _new("Duration", BigInt(ns))


def instant(ns: int) -> Instance:
    return _new("Instant", BigInt(ns))


def plain_time(ns: int) -> Instance:
    return _new("PlainTime", ns)


def plain_date(days: int) -> Instance:
    return _new("PlainDate", days)


def plain_datetime(ns: int) -> Instance:
    return _new("PlainDateTime", BigInt(ns))


def zoned(ns: int, offset_ns: int | None, iana: str | None) -> Instance:
    return _new("ZonedDateTime", BigInt(ns), offset_ns, iana)


def _trunc(a: int, b: int) -> int:
    """BAML's `/`: toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _invalid(message: str):
    throw_error("InvalidArgument", message=message)


# ── rendering ──

def _frac(ns: int) -> str:
    return "." + f"{ns:09d}".rstrip("0") if ns else ""


def _year(y: int) -> str:
    return f"{y:04d}" if y >= 0 else f"-{-y:04d}"


def _clock(ns: int) -> str:
    """A time of day (`[0, 24h)` nanoseconds) as ISO 8601: `07:32:00.5`."""
    s, sub = divmod(ns, NS)
    return f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}{_frac(sub)}"


def _civil_text(ns: int, lo: int = -9999) -> str | None:
    """A civil reading (nanoseconds since 1970-01-01T00:00:00) as ISO 8601; None outside the
    years [lo, 9999]."""
    days, tod = divmod(ns, DAY)
    y, m, d = civil_from_days(days)
    if not lo <= y <= 9999:
        return None
    return f"{_year(y)}-{m:02d}-{d:02d}T{_clock(tod)}"


def _offset_text(offset_ns: int) -> str:
    """`±hh:mm`, the sub-minute part truncated toward zero."""
    mins = _trunc(offset_ns, MIN)
    sign = "-" if offset_ns < 0 else "+"
    return f"{sign}{abs(mins) // 60:02d}:{abs(mins) % 60:02d}"


def _parse_error(message: str):
    throw_error("ParseError", message=message)


# ── Duration ──

def _scaled(make, scale: int, param: str):
    """`from_<unit>(<param>)`: the count times the unit (its parameter named as the engine's)."""
    fn = lambda v: make(int(v) * scale)  # noqa: E731 - renamed below
    fn.__signature__ = inspect.Signature([inspect.Parameter(param, inspect.Parameter.POSITIONAL_OR_KEYWORD)])
    return fn


_UNITS = (("nanoseconds", 1, "ns"), ("microseconds", US, "us"), ("milliseconds", MS, "ms"), ("seconds", NS, "s"),
          ("minutes", MIN, "m"), ("hours", HOUR, "h"))
for _unit, _scale, _param in _UNITS:
    function(f"baml.time.Duration.from_{_unit}")(_scaled(duration, _scale, _param))
    setattr(_PY["Duration"], f"m_to_{_unit}", lambda self, _s=_scale: BigInt(_trunc(self.f__nanoseconds, _s)))


def _ns(v) -> int:
    return v.f__nanoseconds


def _dur_mul(self, other):
    return duration(_ns(self) * int(other))


def _dur_div(self, other):
    if other == 0:
        panic("DivisionByZero", dividend=BigInt(_ns(self)))
    return duration(_trunc(_ns(self), int(other)))


def _dur_rem(self, other):
    b = _ns(other)
    if b == 0:
        panic("DivisionByZero", dividend=BigInt(_ns(self)))
    a = _ns(self)
    return duration(a - _trunc(a, b) * b)


_D = _PY["Duration"]
_D.m_abs = lambda self: duration(abs(_ns(self)))
_D.m_add = lambda self, other: duration(_ns(self) + _ns(other))
_D.m_sub = lambda self, other: duration(_ns(self) - _ns(other))
_D.m_mul, _D.m_div, _D.m_rem = _dur_mul, _dur_div, _dur_rem
_D.m_neg = lambda self: duration(-_ns(self))


# ── Instant ──

def _instant_text(ns: int) -> str:
    t = _civil_text(ns, 0)
    if t is None:
        _invalid("Could not serialize Instant with year out of Rfc3339 timestamp range.")
    return t + "Z"


@function("baml.time.Instant.parse")
def instant_parse(s):
    for parse in (lambda: rfc3339(s)[0], lambda: iso8601(s), lambda: rfc2822(s)):
        try:
            return instant(parse())
        except Bad as e:
            why = str(e)
    _parse_error(f"Instant.parse: cannot parse {quote(s)} as an RFC 3339, ISO 8601, or RFC 2822 timestamp: {why}")


for _unit, _scale, _param in _UNITS[:4]:
    function(f"baml.time.Instant.from_timestamp_{_unit}")(_scaled(instant, _scale, _param))
    setattr(_PY["Instant"], f"m_to_timestamp_{_unit}", lambda self, _s=_scale: BigInt(_trunc(_ns(self), _s)))
function("baml.time.Instant.epoch")(lambda: instant(0))


def _later(self, other):
    return other if _ns(other) > _ns(self) else self


def _earlier(self, other):
    return other if _ns(other) < _ns(self) else self


def _to_string(render, name: str):
    """A `ToString` whose failure (year range) is the engine's panic."""
    def to_string(self):
        try:
            return render(self)
        except BamlRaise as e:
            if e.panic:
                raise
            panic("UserPanic", message=f"{name}.to_string: {e.value.f_message}")
    return to_string


def _to_json(render):
    """A `ToJson` whose failure is a `baml.json.SerializationError`."""
    def to_json(self):
        try:
            return render(self)
        except BamlRaise as e:
            if e.panic:
                raise
            raise BamlRaise(make_builtin("baml.json.SerializationError", message=_message(e.value),
                                         path="", reason="unserializable"), panic=False) from None
    return to_json


def _message(v) -> str:
    if type(v) is BUILTIN_CLASSES[_T + "UnknownTimezoneError"].py:
        return "unknown timezone: " + v.f_timezone
    return v.f_message


def _add_sub(name: str, make, diff):
    """`+ Duration`, `- Duration` and `- Self` (a Duration, by `diff`) on a type counted in
    `_nanoseconds`."""
    py = _PY[name]
    py.m_add = lambda self, other: make(self, _ns(self) + _ns(other))
    py.m_sub = lambda self, other: diff(self, other) if type(other) is py else make(self, _ns(self) - _ns(other))


_I = _PY["Instant"]
_add_sub("Instant", lambda s, ns: instant(ns), lambda a, b: duration(_ns(a) - _ns(b)))
_I.m_max, _I.m_min = _later, _earlier
_I.m_abs_diff = lambda self, other: duration(abs(_ns(self) - _ns(other)))


# ── TimeZoneOffset ──

@function("baml.time.TimeZoneOffset.utc")
def offset_utc():
    return _new("TimeZoneOffset", 0)


@function("baml.time.TimeZoneOffset.new")
def offset_new(hours, minutes):
    if (hours > 0 > minutes) or (hours < 0 < minutes):
        _invalid("TimeZoneOffset.new: hours and minutes must carry the same sign")
    ns = ops.mul(ops.mul(ops.add(ops.mul(hours, 60), minutes), 60), NS)  # its BAML body's overflow
    if abs(ns) > DAY:
        _invalid("TimeZoneOffset out of range: must be within ±24 hours")
    return _new("TimeZoneOffset", ns)


@function("baml.time.TimeZoneOffset.from_duration")
def offset_from_duration(duration):
    if abs(_ns(duration)) > DAY:
        _invalid("TimeZoneOffset out of range: must be within ±24 hours")
    return _new("TimeZoneOffset", int(_ns(duration)))


@function("baml.time.TimeZoneOffset.from_timezone")
def offset_from_timezone(timezone, at):
    off = _tz_offset_at(timezone, _ns(at))
    if off is None:
        _unknown_zone(timezone)
    return _new("TimeZoneOffset", off)


_O = _PY["TimeZoneOffset"]
_O.m_to_duration = lambda self: duration(self.f__nanoseconds)
_O.m_hours = lambda self: _trunc(self.f__nanoseconds, HOUR)
_O.m_minutes = lambda self: _rem(_trunc(self.f__nanoseconds, MIN), 60)


def _rem(a: int, b: int) -> int:
    """BAML's `%`: the sign of the dividend."""
    return a - _trunc(a, b) * b


# ── IANA zones ──

_ZONE_CACHE: dict = {}
_MIN_S = int(datetime(1, 1, 2, tzinfo=dt_timezone.utc).timestamp())
_MAX_S = int(datetime(9999, 12, 30, tzinfo=dt_timezone.utc).timestamp())


_NAMES: dict = {}  # lower-cased identifier → the database's spelling


def _zone(name: str):
    """The zone an identifier names, matched without regard to case as the engine's database
    matches it; None when unknown."""
    z = _ZONE_CACHE.get(name, False)
    if z is False:
        if not _NAMES:
            _NAMES.update({n.lower(): n for n in available_timezones()})
        if not _NAMES:  # no database at all: the platform's lack, not the identifier's
            panic("HostUnavailable", resource="timezone database",
                  message="no IANA timezone database on this host (install the `tzdata` package)")
        key = _NAMES.get(name.lower())
        try:
            z = ZoneInfo(key) if key is not None else None
        except (ValueError, OSError, LookupError):
            z = None
        _ZONE_CACHE[name] = z
    return z


@function("baml.time._tz_offset_at")
def _tz_offset_at(timezone: str, at_ns: int) -> int | None:
    """The zone's offset east of UTC at an absolute time (saturated to datetime's range: a
    zone's offset is constant past its last transition); None for an unknown zone."""
    z = _zone(timezone)
    if z is None:
        return None
    s = min(max(at_ns // NS, _MIN_S), _MAX_S)
    off = datetime.fromtimestamp(s, z).utcoffset()
    return (off.days * 86400 + off.seconds) * NS + off.microseconds * US


@function("baml.time._tz_to_instant")
def _tz_to_instant(timezone: str, civil_ns: int, disambiguation: str) -> int | None:
    """Where a wall-clock reading falls in a zone: the one instant it names, else the earlier
    or later side of an overlap or a gap (Temporal's rules); None for an unknown zone."""
    if _zone(timezone) is None:
        return None
    if not -9999 <= civil_from_days(civil_ns // DAY)[0] <= 9999:
        throw_error("Io", message="civil time is outside the supported year range")
    before = _tz_offset_at(timezone, civil_ns - DAY)
    after = _tz_offset_at(timezone, civil_ns + DAY)
    fits = sorted({civil_ns - o for o in (before, after) if _tz_offset_at(timezone, civil_ns - o) == o})
    if len(fits) == 1:
        return BigInt(fits[0])
    if fits:  # an overlap: the reading happened twice
        return BigInt(fits[-1] if disambiguation == "later" else fits[0])
    # a gap: "earlier" reads it with the offset after the shift, the others with the one before
    return BigInt(civil_ns - (after if disambiguation == "earlier" else before))


def _unknown_zone(tz: str):
    raise BamlRaise(make_builtin(_T + "UnknownTimezoneError", timezone=tz), panic=False)


# ── PlainTime ──

def _range_arg(name: str, v: int, hi: int, lo: int = 0) -> None:
    if not lo <= v <= hi:
        _invalid(f"{name} {v} is out of range [{lo}, {hi}]")


def _clock_ns(hour, minute, second, millisecond, microsecond, nanosecond) -> int:
    for name, v, hi in (("hour", hour, 23), ("minute", minute, 59), ("second", second, 59),
                        ("millisecond", millisecond, 999), ("microsecond", microsecond, 999),
                        ("nanosecond", nanosecond, 999)):
        _range_arg(name, v, hi)
    return ((hour * 60 + minute) * 60 + second) * NS + millisecond * MS + microsecond * US + nanosecond


def _omitted(v, default=0):
    return default if v is OMITTED else v


@function("baml.time.PlainTime.from_components", "baml.time.PlainTime._from_components")
def plain_time_from_components(hour, minute=0, second=0, millisecond=0, microsecond=0, nanosecond=0):
    return plain_time(_clock_ns(hour, *map(_omitted, (minute, second, millisecond, microsecond, nanosecond))))


@function("baml.time.PlainTime.parse")
def plain_time_parse(s):
    try:
        return plain_time(parse_plain_time(s))
    except Bad as e:
        _parse_error(f"PlainTime.parse: cannot parse {quote(s)} as an ISO 8601 time-of-day: {e}")


@function("baml.time._wrap_into_day")
def wrap_into_day(total_ns):
    return int(total_ns) % DAY


_PT = _PY["PlainTime"]
_PT.m_to_plain_datetime = lambda self, date: plain_datetime(date.f__days * DAY + self.f__nanoseconds)
# BAML bodies (`/` and `%` truncating), which a literal outside the day also reaches
_PT.m_hour = lambda self: _trunc(self.f__nanoseconds, HOUR)
_PT.m_minute = lambda self: _rem(_trunc(self.f__nanoseconds, MIN), 60)
_PT.m_second = lambda self: _rem(_trunc(self.f__nanoseconds, NS), 60)
_PT.m_millisecond = lambda self: _rem(_trunc(self.f__nanoseconds, MS), 1000)
_PT.m_add = lambda self, other: plain_time((self.f__nanoseconds + _ns(other)) % DAY)
_PT.m_sub = lambda self, other: (duration(self.f__nanoseconds - other.f__nanoseconds) if type(other) is _PT
                                 else plain_time((self.f__nanoseconds - _ns(other)) % DAY))


# ── PlainDate ──

def _date_days(year, month, day) -> int:
    _range_arg("month", month, 12, 1)
    if not -9999 <= year <= 9999 or not 1 <= day <= month_days(year, month):
        _invalid(f"invalid date {_year(year)}-{month:02d}-{day:02d}: "
                 f"{'year' if not -9999 <= year <= 9999 else 'day'} was not in range")
    return days_from_civil(year, month, day)


@function("baml.time.PlainDate.from_components")
def plain_date_from_components(year, month, day):
    return plain_date(_date_days(year, month, day))


@function("baml.time.PlainDate.parse")
def plain_date_parse(s):
    try:
        return plain_date(parse_plain_date(s))
    except Bad as e:
        _parse_error(f"PlainDate.parse: cannot parse {quote(s)} as an ISO 8601 calendar date: {e}")


def _ymd(days: int, method: str) -> tuple[int, int, int]:
    y, m, d = civil_from_days(days)
    if not -9999 <= y <= 9999:
        _invalid(f"PlainDate.{method}: date is outside the supported year range")
    return y, m, d


def _date_text(self) -> str:
    y, m, d = _ymd(self.f__days, "to_string")
    return f"{_year(y)}-{m:02d}-{d:02d}"


_PD = _PY["PlainDate"]
_PD.m_year = lambda self: _ymd(self.f__days, "year")[0]
_PD.m_month = lambda self: _ymd(self.f__days, "month")[1]
_PD.m_day = lambda self: _ymd(self.f__days, "day")[2]
_PD.m__to_plain_datetime = lambda self, time: plain_datetime(self.f__days * DAY + time)
_PD.m_to_plain_datetime = lambda self, time=None: plain_datetime(
    self.f__days * DAY + (0 if time is None or not isinstance(time, Instance) else time.f__nanoseconds))


# ── PlainDateTime ──

@function("baml.time.PlainDateTime.from_components", "baml.time.PlainDateTime._from_components")
def plain_datetime_from_components(year, month, day, hour=0, minute=0, second=0, millisecond=0,
                                   microsecond=0, nanosecond=0):
    days = _date_days(year, month, day)
    clock = _clock_ns(*map(_omitted, (hour, minute, second, millisecond, microsecond, nanosecond)))
    return plain_datetime(days * DAY + clock)


@function("baml.time.PlainDateTime.parse")
def plain_datetime_parse(s):
    try:
        return plain_datetime(parse_plain_datetime(s))
    except Bad as e:
        _parse_error(f"PlainDateTime.parse: cannot parse {quote(s)} as a zoneless ISO 8601 datetime: {e}")


def _civil(ns: int, method: str) -> tuple:
    """(y, m, d, nanoseconds of the day) of a civil reading within ±9999 years."""
    days, tod = divmod(ns, DAY)
    y, m, d = civil_from_days(days)
    if not -9999 <= y <= 9999:
        _invalid(f"PlainDateTime.{method}: value is outside the supported year range")
    return y, m, d, tod


def _datetime_text(self) -> str:
    t = _civil_text(_ns(self))
    if t is None:
        _invalid("PlainDateTime.to_string: value is outside the supported year range")
    return t


def _day_count(ns: int) -> int:
    days = ns // DAY
    if not INT_MIN <= days <= INT_MAX:
        _invalid("PlainDateTime.to_plain_date: value is outside the supported year range")
    return days


def _to_zoned(self, timezone, disambiguation="compatible"):
    civil, tz = _ns(self), timezone
    if isinstance(tz, Instance):
        return zoned(civil - tz.f__nanoseconds, tz.f__nanoseconds, None)
    disambiguation = _omitted(disambiguation, "compatible")
    if disambiguation == "reject":
        earlier, later = _tz_to_instant(tz, civil, "earlier"), _tz_to_instant(tz, civil, "later")
        if earlier is None:
            _unknown_zone(tz)
        if earlier != later:
            raise BamlRaise(make_builtin(_T + "AmbiguousTimeError", message="wall-clock time is ambiguous "
                                         f"or skipped in timezone {tz}"), panic=False)
        return zoned(earlier, None, tz)
    at = _tz_to_instant(tz, civil, disambiguation)
    if at is None:
        _unknown_zone(tz)
    return zoned(at, None, tz)


_PDT = _PY["PlainDateTime"]
_add_sub("PlainDateTime", lambda s, ns: plain_datetime(ns), lambda a, b: duration(_ns(a) - _ns(b)))
_PDT.m_max, _PDT.m_min = _later, _earlier
_PDT.m_to_zoned = _to_zoned
_PDT.m_to_plain_date = lambda self: plain_date(_day_count(_ns(self)))
_PDT.m_to_plain_time = lambda self: plain_time(_ns(self) % DAY)
for _k, _part in enumerate(("year", "month", "day")):
    setattr(_PDT, "m_" + _part, lambda self, _k=_k, _p=_part: _civil(_ns(self), _p)[_k])
_PDT.m_hour = lambda self: _civil(_ns(self), "hour")[3] // HOUR
_PDT.m_minute = lambda self: _civil(_ns(self), "minute")[3] // MIN % 60
_PDT.m_second = lambda self: _civil(_ns(self), "second")[3] // NS % 60
_PDT.m_millisecond = lambda self: _civil(_ns(self), "millisecond")[3] // MS % 1000


# ── ZonedDateTime ──

@function("baml.time.ZonedDateTime.from_instant")
def zoned_from_instant(instant, timezone):
    if isinstance(timezone, Instance):
        return zoned(_ns(instant), timezone.f__nanoseconds, None)
    return zoned(_ns(instant), None, timezone)


@function("baml.time.ZonedDateTime.from_components")
def zoned_from_components(timezone, year, month, day, hour=0, minute=0, second=0, millisecond=0, microsecond=0,
                          nanosecond=0, disambiguation="compatible"):
    dt = plain_datetime_from_components(year, month, day, hour, minute, second, millisecond, microsecond,
                                        nanosecond)
    return _to_zoned(dt, timezone, disambiguation)


@function("baml.time.ZonedDateTime.parse")
def zoned_parse(s):
    head, iana = s, None
    k = s.find("[")
    if k >= 0 and s.endswith("]"):
        head, iana = s[:k], s[k + 1:-1]
        if iana.startswith("!"):
            iana = iana[1:]
        if not iana:
            _parse_error(f"ZonedDateTime.parse: empty timezone annotation in {quote(s)}")
    try:
        epoch, offset = rfc3339(head)
    except Bad as e:
        _parse_error(f"ZonedDateTime.parse: cannot parse {quote(head)} as an RFC 3339 timestamp (zoneless "
                     f"strings belong to PlainDateTime.parse): {e}")
    return zoned(epoch, None, iana) if iana is not None else zoned(epoch, offset, None)


def _offset_of(self) -> int:
    if self.f__iana is None:
        return self.f__offset_ns or 0
    off = _tz_offset_at(self.f__iana, _ns(self))
    if off is None:
        _unknown_zone(self.f__iana)
    return off


def _zoned_text(self) -> str:
    return format_zoned(_ns(self), _offset_of(self), self.f__iana)


@function("baml.time._format_zoned")
def format_zoned(epoch_ns, offset_ns, iana):
    """RFC 3339 at the offset, with the RFC 9557 `[iana]` annotation where there is one; `Z`
    only for a fixed zero offset (the way Temporal writes them)."""
    t = _civil_text(epoch_ns + offset_ns)
    if t is None:
        _invalid("ZonedDateTime.to_string: value is outside the supported year range")
    if iana is None:
        return t + ("Z" if offset_ns == 0 else _offset_text(offset_ns))
    return f"{t}{_offset_text(offset_ns)}[{iana}]"


def _zoned_to_string(self):
    try:
        return _zoned_text(self)
    except BamlRaise as e:
        if e.panic:
            raise
        panic("UserPanic", message="ZonedDateTime.to_string: value cannot be formatted (year out of range, "
              "unknown timezone, or IO error)")


def _zoned_plain(self):
    return plain_datetime(_ns(self) + _offset_of(self))


_Z = _PY["ZonedDateTime"]
_Z.m_add = lambda self, other: zoned(_ns(self) + _ns(other), self.f__offset_ns, self.f__iana)
_Z.m_sub = lambda self, other: (duration(_ns(self) - _ns(other)) if type(other) is _Z
                                else zoned(_ns(self) - _ns(other), self.f__offset_ns, self.f__iana))
_Z.m_max, _Z.m_min = _later, _earlier
_Z.m_to_instant = lambda self: instant(_ns(self))
_Z.m_with_timezone = lambda self, timezone: zoned_from_instant(self, timezone)
_Z.m_timezone = lambda self: (self.f__iana if self.f__iana is not None
                              else _new("TimeZoneOffset", self.f__offset_ns or 0))
_Z.m_timezone_offset = lambda self: _new("TimeZoneOffset", _offset_of(self))
_Z.m_to_plain = _zoned_plain
for _part in ("year", "month", "day", "hour", "minute", "second", "millisecond"):
    setattr(_Z, "m_" + _part, lambda self, _m="m_" + _part: getattr(_zoned_plain(self), _m)())


# ── ToString, ToJson, FromJson ──

_TEXT = {"Instant": lambda self: _instant_text(_ns(self)), "PlainTime": lambda self: _clock(self.f__nanoseconds % DAY),
         "PlainDate": _date_text, "PlainDateTime": _datetime_text, "ZonedDateTime": _zoned_text}
_PARSE = {"Instant": instant_parse, "PlainTime": plain_time_parse, "PlainDate": plain_date_parse,
          "PlainDateTime": plain_datetime_parse, "ZonedDateTime": zoned_parse}
_EXPECTED = {"Instant": "timestamp string", "PlainTime": "ISO 8601 time string",
             "PlainDate": "ISO 8601 date string", "PlainDateTime": "zoneless ISO 8601 string",
             "ZonedDateTime": "RFC 3339 / RFC 9557 timestamp string"}


def _from_json(name: str):
    def from_json(j):
        if type(j) is not str:
            raise BamlRaise(make_builtin("baml.json.DecodeError", message="Expected " + _EXPECTED[name], path=""),
                            panic=False)
        try:
            return _PARSE[name](j)
        except BamlRaise as e:
            if e.panic:
                raise
            raise BamlRaise(make_builtin("baml.json.DecodeError", message=e.value.f_message, path=""),
                            panic=False) from None
    return from_json


for _name, _render in _TEXT.items():
    _py = _PY[_name]
    _py.m_to_string = _zoned_to_string if _name == "ZonedDateTime" else _to_string(_render, _name)
    _py.m_to_json = _to_json(_render)
    _py.m__to_string_impl = _render
    _py.json_decode = staticmethod(_from_json(_name))
    function(f"baml.time.{_name}.from_json")(_from_json(_name))
    TO_STRING_OVERRIDES[_INFO[_name]] = _py.m_to_string


def _with_params(py, name: str):
    """A method's bound form carries its parameter names (named arguments, reflection)."""
    fn = getattr(py, "m_" + name)
    params = [p for p in list(inspect.signature(fn).parameters)[1:] if not p.startswith("_")]  # not the bound `_s`

    class _Method:
        def __get__(self, obj, owner=None):
            if obj is None:
                return fn
            bound = partial(fn, obj)
            bound.baml_params = params
            return bound

    setattr(py, "m_" + name, _Method())


for _py in _PY.values():
    for _attr in [a for a in vars(_py) if a.startswith("m_")]:
        _with_params(_py, _attr[2:])


# the operators the VM spells as Python's (a generic `+`) reach the `baml.ops` methods
for _py in _PY.values():
    for _dunder, _method in (("__add__", "add"), ("__sub__", "sub"), ("__mul__", "mul"),
                             ("__truediv__", "div"), ("__mod__", "rem"), ("__neg__", "neg")):
        if hasattr(_py, "m_" + _method):
            setattr(_py, _dunder, operator_method(_dunder, _method))
