"""baml.json: parse (serde_json's grammar and messages, which the engine reports) and the JSON
text writer `stringify` uses (bex/stdlib/jsontyped.py; floats as the engine writes them)."""
from __future__ import annotations

from ..ops import BUILTIN_CLASSES, make_builtin, panic
from ..values import INT_MAX, INT_MIN, BamlRaise, BigInt, ClassInfo, TypedList, TypedMap, json_list, json_map
from ._registry import function

for _name, _fields in (("ParseError", ["message"]), ("SerializationError", ["message", "path", "reason"])):
    BUILTIN_CLASSES[f"baml.json.{_name}"] = ClassInfo(f"baml.json.{_name}", _name, _fields)

_WS = " \t\n\r"
_MAX_DEPTH = 128  # serde_json's recursion limit: opening the 128th nested array/object fails
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class _Fail(Exception):
    def __init__(self, message: str, at: int):
        self.message, self.at = message, at


class _Parser:
    """A JSON text → BAML json value; errors as serde_json words and places them."""

    def __init__(self, s: str):
        self.s, self.i, self.n = s, 0, len(s)
        self.depth = 0  # arrays/objects open around the current value

    def ws(self):
        while self.i < self.n and self.s[self.i] in _WS:
            self.i += 1

    def eof(self, what: str):
        raise _Fail(f"EOF while parsing {what}", self.n)

    def fail(self, message: str):  # at the character just looked at
        raise _Fail(message, self.i + 1)

    def value(self):
        self.ws()
        if self.i >= self.n:
            self.eof("a value")
        c = self.s[self.i]
        if c == "{" or c == "[":
            self.depth += 1
            if self.depth >= _MAX_DEPTH:
                self.fail("recursion limit exceeded")
            v = self.obj() if c == "{" else self.arr()
            self.depth -= 1
            return v
        if c == '"':
            self.i += 1
            return self.string()
        if c == "-" or c.isascii() and c.isdigit():
            return self.number()
        for word, v in (("null", None), ("true", True), ("false", False)):
            if c == word[0]:
                return self.ident(word, v)
        self.fail("expected value")

    def ident(self, word: str, v):
        for ch in word:
            if self.i >= self.n:
                self.eof("a value")
            if self.s[self.i] != ch:
                self.fail("expected ident")
            self.i += 1
        return v

    def seq(self, close: str, what: str, item):
        self.i += 1
        self.ws()
        if self.i < self.n and self.s[self.i] == close:
            self.i += 1
            return
        while True:
            item()
            self.ws()
            if self.i >= self.n:
                self.eof(what)
            c = self.s[self.i]
            if c == close:
                self.i += 1
                return
            if c != ",":
                self.fail(f"expected `,` or `{close}`")
            self.i += 1
            self.ws()
            if self.i < self.n and self.s[self.i] == close:
                self.fail("trailing comma")

    def arr(self):
        out = json_list()  # recorded as `json[]`, as the engine parses
        self.seq("]", "a list", lambda: out.append(self.value()))
        return out

    def obj(self):
        out = json_map()

        def entry():
            self.want('"', "key must be a string")
            k = self.string()
            self.want(":", "expected `:`")
            out[k] = self.value()

        self.seq("}", "an object", entry)
        return out

    def want(self, ch: str, message: str) -> None:
        """Skip whitespace, then `ch` (inside an object), else fail with `message`."""
        self.ws()
        if self.i >= self.n:
            self.eof("an object")
        if self.s[self.i] != ch:
            self.fail(message)
        self.i += 1

    def string(self) -> str:
        parts: list[str] = []
        s, n = self.s, self.n
        while True:
            j = self.i
            while j < n and s[j] != '"' and s[j] != "\\" and s[j] >= " ":
                j += 1
            parts.append(s[self.i:j])
            self.i = j
            if j >= n:
                self.eof("a string")
            c = s[j]
            if c == '"':
                self.i += 1
                return "".join(parts)
            if c < " ":
                self.fail("control character (\\u0000-\\u001F) found while parsing a string")
            self.i += 1  # a backslash
            if self.i >= n:
                self.eof("a string")
            e = s[self.i]
            if e == "u":
                parts.append(self.unicode_escape())
                continue
            if e not in _ESCAPES:
                self.fail("invalid escape")
            parts.append(_ESCAPES[e])
            self.i += 1

    def hex4(self) -> int:
        """The four hex digits after `\\u` (self.i at the `u`); leaves self.i on the last one."""
        if self.i + 4 >= self.n:
            self.i = self.n
            self.eof("a string")
        digits = self.s[self.i + 1:self.i + 5]
        self.i += 4
        if any(d not in "0123456789abcdefABCDEF" for d in digits):
            self.fail("invalid escape")
        return int(digits, 16)

    def unicode_escape(self) -> str:
        v = self.hex4()
        self.i += 1
        if 0xDC00 <= v < 0xE000:
            raise _Fail("lone leading surrogate in hex escape", self.i)
        if v < 0xD800 or v >= 0xE000:
            return chr(v)
        # a leading surrogate: a `\\u` trailing one must follow
        for ch in "\\u":
            if self.i >= self.n:
                self.eof("a string")
            if self.s[self.i] != ch:
                self.fail("unexpected end of hex escape")
            self.i += 1
        self.i -= 1
        lo = self.hex4()
        self.i += 1
        if not 0xDC00 <= lo < 0xE000:
            raise _Fail("lone leading surrogate in hex escape", self.i)
        return chr(0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00))

    def number(self):
        s, n, start = self.s, self.n, self.i
        if s[self.i] == "-":
            self.i += 1
        self.digits(leading=True)
        is_float = False
        if self.i < n and s[self.i] == ".":
            is_float = True
            self.i += 1
            self.digits()
        if self.i < n and s[self.i] in "eE":
            is_float = True
            self.i += 1
            if self.i < n and s[self.i] in "+-":
                self.i += 1
            self.digits()
        text = s[start:self.i]
        if is_float:
            v = float(text)
            if v in (float("inf"), float("-inf")):
                raise _Fail("number out of range", self.i)
            return v
        v = int(text)
        return v if INT_MIN <= v <= INT_MAX else BigInt(v)

    def digits(self, leading: bool = False):
        s, n = self.s, self.n
        if self.i >= n:
            self.eof("a value")
        if not (s[self.i].isascii() and s[self.i].isdigit()):
            self.fail("invalid number")
        if leading and s[self.i] == "0":
            self.i += 1
            if self.i < n and s[self.i].isascii() and s[self.i].isdigit():
                self.fail("invalid number")
            return
        while self.i < n and s[self.i].isascii() and s[self.i].isdigit():
            self.i += 1


def _where(s: str, at: int) -> str:
    """serde_json's `at line L column C` of character offset `at` (columns count bytes)."""
    before = s[:at]
    line = before.count("\n") + 1
    col = len(before[before.rfind("\n") + 1:].encode("utf-8", "surrogatepass"))
    return f"line {line} column {col}"


@function("baml.json.parse")
def parse(s):
    p = _Parser(s)
    try:
        v = p.value()
        p.ws()
        if p.i < p.n:
            p.fail("trailing characters")
    except _Fail as e:
        raise BamlRaise(make_builtin("baml.json.ParseError", message=f"{e.message} at {_where(s, e.at)}")) from None
    return v


def _float_text(x: float) -> str:
    """Shortest round-trip digits (ryu), exponent without leading zeros (`1e-7`, `1e+20`, `1.0`);
    ryu writes 1e-5 ≤ |x| < 1e-4 positionally (`0.000015`) where repr has `1.5e-05`."""
    r = repr(x)
    if "e" not in r:
        return r
    m, e = r.split("e")
    if e == "-05":
        sign, digits = ("-", m[1:]) if m[0] == "-" else ("", m)
        return f"{sign}0.0000{digits.replace('.', '')}"
    return f"{m}e{e[0]}{e[1:].lstrip('0') or '0'}"


def _quote(s: str) -> str:
    out = ['"']
    for c in s:
        if c == '"' or c == "\\":
            out.append("\\" + c)
        elif c < " ":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r", "\b": "\\b", "\f": "\\f"}.get(c, "\\u%04x" % ord(c)))
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _unencodable(message: str, path: str, reason: str):
    raise BamlRaise(make_builtin("baml.json.SerializationError", message=message, path=path, reason=reason))


_PLAIN = {TypedList: list, TypedMap: dict}  # recorded element types aside


def _write(v, path: str, out: list, unit: str = "", depth: int = 0) -> None:
    """Writes a json value as JSON text: compact, or `unit` per nesting level (serde_json's
    pretty form: `"key": value`, empty containers as `[]`/`{}`)."""
    t = _PLAIN.get(type(v), type(v))
    if v is None:
        out.append("null")
    elif t is bool:
        out.append("true" if v else "false")
    elif t is int or t is BigInt:
        out.append(str(int(v)))
    elif t is float:
        if v != v or v in (float("inf"), float("-inf")):
            name = "NaN" if v != v else ("inf" if v > 0 else "-inf")  # Rust's Display of f64
            _unencodable(f"{name} has no JSON form: a JSON number is finite", path, "non_finite")
        out.append(_float_text(v))
    elif t is str:
        out.append(_quote(v))
    elif t is list or t is dict:
        items = v.items() if t is dict else enumerate(v)
        open_, close = "{}" if t is dict else "[]"
        out.append(open_)
        inner = "\n" + unit * (depth + 1) if unit else ""
        for i, (k, x) in enumerate(items):
            out.append("," + inner if i else inner)
            if t is dict:
                out.append(_quote(k) + (": " if unit else ":"))
            _write(x, f"{path}[{_quote(k)}]" if t is dict else f"{path}[{k}]", out, unit, depth + 1)
        if unit and v:
            out.append("\n" + unit * depth)
        out.append(close)
    else:
        panic("baml.panics.HostContractViolation", message=f"baml.json.stringify: {type(v).__name__} is not json")
