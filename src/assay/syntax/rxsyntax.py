"""`baml.regex` patterns: Rust's regex syntax (the `regex` crate, or `fancy-regex` with
`backtracking = true`) parsed, checked with the engine's diagnostics, and translated to the
`regex` PyPI module's dialect.

    translate(pattern, fancy=False) -> Translated   raises RegexSyntaxError
    check(pattern, backtracking) -> (kind, RegexSyntaxError) | None   the engine's verdict

Rust's meaning is spelled out in what is emitted rather than left to flags whose meaning differs
in Python: `$` is `\\Z` (Python's `$` also matches before a final newline), `.` is `[^\\n\\n]`,
`\\d` `\\w` `\\s` are their Unicode classes, `(?i)` wraps each atom it governs, `(?U)` swaps
greediness here, and a repetition of a repetition (`a**`, `a{2}+`) is grouped (Python would
read a possessive). Offsets and spans are code points, as the engine reports them.
"""
from __future__ import annotations

from dataclasses import dataclass

import regex as _regex

_NEST_LIMIT = 250
G_ANCHOR = "(?:\\G)"  # fancy-regex's `\G`, as emitted (a search that cannot start there drops it)
# what the engine adds to a rejection only the backtracking dialect would accept
_HINT = ("; `backtracking = true` enables lookahead, lookbehind, backreferences, and subroutine "
         "calls, at the cost of the default dialect's matching-time bound")


class _NotCounted(Exception):
    """fancy-regex: this `{` starts no counted repetition."""


class RegexSyntaxError(Exception):
    """A pattern the dialect rejects: message and code-point span (None: not located)."""

    def __init__(self, message: str, start: int | None, end: int | None):
        super().__init__(message)
        self.message = message
        self.start = start
        self.end = end


@dataclass(frozen=True)
class Translated:
    source: str                  # the pattern in the `regex` module's dialect
    names: tuple                 # group 1..n: its name, or None
    automaton: bool = True  # matched as Rust's regex crate matches (not fancy-regex's own VM)
    dropped: frozenset = frozenset()  # groups inside a `{0}`: no name, none at the end
    anchored: bool = False  # uses `\G` (fancy-regex: where the search starts)


_WORD = r"\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}"
_CLASSES = {  # Perl classes, Unicode and ASCII (`(?-u)`), as set members
    ("d", True): r"\p{Nd}", ("w", True): _WORD, ("s", True): r"\p{White_Space}",
    ("d", False): "0-9", ("w", False): "0-9A-Za-z_", ("s", False): r"\t\n\x0b\x0c\r ",
}
_POSIX = {
    "alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": r"\x00-\x7f", "blank": r"\t ",
    "cntrl": r"\x00-\x1f\x7f", "digit": "0-9", "graph": r"!-~", "lower": "a-z",
    "print": r" -~", "punct": r"!-/:-@\[-`{-~", "space": r"\t\n\x0b\x0c\r ", "upper": "A-Z",
    "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f",
}
_SIMPLE_ESCAPES = {"a": "\x07", "f": "\x0c", "t": "\t", "n": "\n", "r": "\r", "v": "\x0b"}
_META = set("\\.+*?()|[]{}^$#&-~")
_FLAGS = set("imsuxUR")
_WORD_BOUNDARIES = {"start": r"\b(?=\w)", "end": r"\b(?<=\w)", "start-half": r"(?<!\w)",
                    "end-half": r"(?!\w)"}


def lit(c: str) -> str:
    """One character, matched literally, in or out of a set."""
    if c.isalnum() and c.isascii() or ord(c) > 0x7F:
        return c
    if c.isprintable() and c != " ":
        return "\\" + c
    return "\\x%02x" % ord(c)


def escape(text: str) -> str:
    """`baml.regex.escape`: a backslash before each of Rust's meta characters."""
    return "".join("\\" + c if c in _META else c for c in text)


_LONE = _regex.compile(r"(?:\\x[0-9a-f]{2}|\\.|[^\\])(?:-(?:\\x[0-9a-f]{2}|\\.|[^\\]))?")


def not_in(members: str) -> str:
    """`[^members]`, a lone member written twice: the `regex` module merges an alternation of
    one-member negated sets wrongly (`[^a]|[^b]` does not match `a`)."""
    return f"[^{members}{members}]" if _LONE.fullmatch(members) else f"[^{members}]"


_DOT, _DOT_R = not_in("\\n"), not_in("\\r\\n")


class _Set:
    """A character set: `members` (text inside `[...]`) or `expr` (a one-character matcher
    built with look-arounds, for nested negation and set operations)."""

    def __init__(self, members: str = "", expr: str | None = None):
        self.members = members
        self.expr = expr

    def matcher(self) -> str:
        if self.expr is not None:
            return self.expr
        return f"[{self.members}]" if self.members else "(?!)"  # `[[a]&&]`: matches nothing


class _Parser:
    """One pass over a pattern: each method consumes a construct at `self.i` and returns its
    translation; `fail` rejects with the dialect's wording."""

    def __init__(self, pattern: str, fancy: bool):
        self.p = pattern
        self.i = 0
        self.fancy = fancy
        self.flags = {"i": False, "m": False, "s": False, "U": False, "u": True, "x": False, "R": False}
        self.names: list = []
        self.backrefs: list = []  # (group number or name, span) checked once all groups are known
        self.last_cost = 0  # the estimated compiled size of what was just parsed (bytes)
        self.open_sets: list = []  # the sets being parsed: (start, end of their opening)
        self.depth = 0  # the groups enclosing what is being parsed
        self.anchored = False  # a `\G` was seen
        self.dropped: set = set()  # the groups inside a `{0}` repetition

    # ── errors ──
    def fail(self, msg: str, start, end, fancy_msg: str | None = None, fancy_span=None):
        """Reject; in the fancy dialect with its own wording (default: the regex crate's
        rejection as fancy-regex reports it)."""
        if self.fancy:
            if fancy_msg is None:
                raise RegexSyntaxError("Regex error: error parsing pattern 0", None, None)
            s = fancy_span if fancy_span is not None else (start, end)
            raise RegexSyntaxError(fancy_msg, *s)
        raise RegexSyntaxError(msg, start, end)

    def nest(self, depth: int):
        """Groups and sets nest at most so deep (Rust counts nodes; this, what encloses them)."""
        if depth >= _NEST_LIMIT - 3:
            raise RegexSyntaxError(f"exceed the maximum number of nested parentheses/brackets "
                                   f"({_NEST_LIMIT})", None, None)

    # ── scanning ──
    def eof(self) -> bool:
        return self.i >= len(self.p)

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.p[j] if j < len(self.p) else ""

    def skip_space(self):
        """In `(?x)` mode whitespace and `#` comments are not part of the pattern."""
        if not self.flags["x"]:
            return
        while not self.eof():
            c = self.peek()
            if c.isspace():
                self.i += 1
            elif c == "#":
                while not self.eof() and self.peek() != "\n":
                    self.i += 1
            else:
                return

    # ── structure ──
    def parse(self) -> str:
        out = self.alternation(0)
        if not self.eof():  # a `)` with no group open
            self.fail("unopened group", self.i, self.i + 1,
                      "General parsing error: end of string not reached", (self.i, self.i + 1))
        for ref, (s, e) in self.backrefs:
            if isinstance(ref, int) and not 1 <= ref <= len(self.names):
                raise RegexSyntaxError(f"Invalid back reference to group {ref}", None, None)
            if isinstance(ref, str) and ref not in self.names:
                raise RegexSyntaxError("Invalid back reference", s, e)
            if isinstance(ref, str) and self.names.count(ref) > 1:
                raise RegexSyntaxError(f"Invalid group name in back reference: {ref}", s, e)
        return out

    def alternation(self, depth: int) -> str:
        branches = [self.concat(depth)]
        cost = self.last_cost
        while self.peek() == "|":
            self.i += 1
            branches.append(self.concat(depth))
            cost += self.last_cost + 8
        self.last_cost = cost
        return "|".join(branches)

    def concat(self, depth: int) -> str:
        self.depth = depth
        items: list = []  # (text, repeatable unit?, is a repetition?)
        costs: list = []  # each item's estimated size in Rust's compiled program (bytes)
        firsts: list = []  # each item's first group number less one
        while True:
            self.skip_space()
            if self.eof() or self.peek() in "|)":
                self.last_cost = sum(costs)
                return "".join(t for t, _, _ in items)
            c = self.peek()
            if c in "*+?{":
                n = len(items)
                self.repetition(items)
                if len(items) > n:  # fancy-regex's literal `{`
                    costs.append(_ATOM)
                    firsts.append(len(self.names))
                else:
                    costs.append(_repeat_cost(costs.pop(), items[-1][0]))
                    if _regex.search(r"\{0\}\??$", items[-1][0]):  # regex-syntax drops `x{0}`, groups and all
                        self.dropped.update(range(firsts[-1] + 1, len(self.names) + 1))
                continue
            firsts.append(len(self.names))
            if c == "(":
                items.append(self.group(depth))
                self.depth = depth
                costs.append(self.last_cost)
            else:
                if c == "[":
                    items.append((self.cls(), True, False))
                elif c == "\\":
                    items.append(self.escape_atom())
                else:
                    self.i += 1
                    items.append(self.atom(c))
                costs.append(_atom_cost(items[-1][0]))

    def atom(self, c: str):
        f = self.flags
        if c == ".":
            if not f["u"]:
                self.fail("pattern can match invalid UTF-8", self.i - 1, self.i)
            return ("(?s:.)" if f["s"] else (_DOT_R if f["R"] else _DOT), True, False)
        if c == "^":
            return (("(?:\\A|(?<=[\\r\\n])(?!(?<=\\r)\\n))" if f["R"] else "(?m:^)") if f["m"] else "\\A",
                    True, False)
        if c == "$":  # `(?mR)`: a line ends at `\r` or `\n`, never between `\r\n`
            return (("(?:\\Z|(?=[\\r\\n])(?<!\\r(?=\\n)))" if f["R"] else "(?m:$)") if f["m"] else "\\Z",
                    True, False)
        return (self.cased(lit(c)), True, False)

    def cased(self, text: str) -> str:
        return f"(?i:{text})" if self.flags["i"] else text

    def repetition(self, items: list):
        start = self.i
        c = self.peek()
        if c == "{" and self.fancy and items and items[-1][2]:  # fancy-regex: `a*{2}` is `a*\{2}`
            self.i += 1
            items.append((lit("{"), True, False))
            return
        if c == "{":
            q = self.counted()
            if q is None:  # fancy-regex reads a `{` that starts no repetition literally
                items.append((lit("{"), True, False))
                return
        else:
            self.i += 1
            q = c
        at = (self.i - 1, self.i) if c == "{" else (start, start + 1)  # fancy-regex: its last character
        if not items or not items[-1][1]:
            self.fail("repetition operator missing expression", start, start,
                      "Target of repeat operator is invalid", at)
        text, _, is_rep = items.pop()
        if self.fancy and ((is_rep and c != "{") or text in ("(?:)", f"(?:{G_ANCHOR})")):  # `a**`, `(?:)*`
            self.fail("", 0, 0, "Target of repeat operator is invalid", at)
        lazy = self.flags["U"]
        possessive = ""
        if self.peek() == "?":
            self.i += 1
            lazy = not lazy
        elif self.peek() == "+" and self.fancy:
            self.i += 1
            possessive = "+"
        unit = text if len(text) == 1 or _single(text) else f"(?:{text})"
        items.append((unit + q + ("?" if lazy and not possessive else "") + possessive, True, True))

    def counted(self) -> str | None:
        """`{n}`, `{n,}`, `{n,m}` at `{` (as Python writes it), or None: fancy-regex reads a
        `{` that starts no repetition literally."""
        open_at = self.i
        try:
            return self.count_range(open_at)
        except _NotCounted:
            self.i = open_at + 1
            return None

    def count_range(self, open_at: int) -> str:
        self.i += 1
        self.skip_space()
        if self.eof():
            self.bad_count("unclosed counted repetition", open_at, open_at + 1)
        lo = self.decimal()
        if lo is None:
            self.bad_count("repetition quantifier expects a valid decimal", self.i, self.i)
        hi: int | None = lo
        self.skip_space()
        if self.peek() == ",":
            self.i += 1
            self.skip_space()
            hi = None if self.peek() == "}" else self.decimal()
            if hi is None and self.peek() != "}":
                self.bad_count("repetition quantifier expects a valid decimal", self.i, self.i)
        self.skip_space()
        if self.peek() != "}":
            self.bad_count("unclosed counted repetition", open_at, self.i if not self.eof() else open_at + 1)
        self.i += 1
        if hi is not None and lo > hi:
            self.bad_count("invalid repetition count range, the start must be <= the end", open_at, self.i)
        return f"{{{lo}}}" if hi == lo else (f"{{{lo},}}" if hi is None else f"{{{lo},{hi}}}")

    def bad_count(self, msg: str, start: int, end: int):
        if self.fancy:
            raise _NotCounted
        self.fail(msg, start, end)

    def decimal(self) -> int | None:
        s = self.i
        while self.peek().isascii() and self.peek().isdigit():
            self.i += 1
        if s == self.i:
            return None
        v = int(self.p[s:self.i])
        if v > 0xFFFFFFFF:
            self.fail("decimal literal invalid", s, self.i)
        return v

    def group(self, depth: int):
        start = self.i
        self.nest(depth + len(self.open_sets))
        self.i += 1
        saved = dict(self.flags)
        head = ""
        self.last_cost = 0
        if self.peek() == "?":
            self.i += 1
            if self.eof():
                self.fail("unclosed group", start, start + 1,
                          "Opening parenthesis without closing parenthesis", (len(self.p), len(self.p)))
            rest = self.p[self.i:self.i + 2]
            if rest.startswith(("=", "!")) or rest in ("<=", "<!"):
                self.i += len(rest) if rest[0] == "<" else 1
                if not self.fancy:
                    raise RegexSyntaxError("look-around, including look-ahead and look-behind, is "
                                           "not supported", start, self.i)
                head = "(?" + self.p[start + 2:self.i]
            elif rest.startswith("<") or rest == "P<":
                self.i += 1 if rest.startswith("<") else 2
                self.group_name()
                head = "("
            elif rest.startswith(">") and self.fancy:
                self.i += 1
                head = "(?>"
            elif rest.startswith("#") and self.fancy:
                end = self.p.find(")", self.i)
                if end < 0:
                    self.fail("", 0, 0, "Opening parenthesis without closing parenthesis",
                              (len(self.p), len(self.p)))
                self.i = end + 1
                return ("", False, False)
            elif rest == "P=" and self.fancy:
                self.i += 2
                end = self.p.find(")", self.i)
                name = self.p[self.i:end] if end >= 0 else ""
                self.backrefs.append((name, (self.i, self.i + 1)))
                self.i = end + 1 if end >= 0 else len(self.p)
                return (self.cased(self.backref(name)), True, False)
            else:
                if self.flag_group():  # `(?flags)`: the rest of the enclosing group
                    return ("", False, False)
                head = "(?:"
        else:
            self.names.append(None)
            head = "("
        number = len(self.names)
        body = self.alternation(depth + 1)
        if self.peek() != ")":
            self.fail("unclosed group", start, start + 1,
                      "Opening parenthesis without closing parenthesis", (len(self.p), len(self.p)))
        self.i += 1
        if not (self.fancy and head == "("):  # fancy-regex lets a capture group's flags leak out
            self.flags = saved
        text = head + body + ")"
        if head in ("(?=", "(?!", "(?<=", "(?<!"):
            return (text, False, False)  # fancy-regex repeats no look-around
        if head == "(":
            self.last_cost += 64  # its two capture slots
        return (text, True, False)

    def group_name(self) -> str:
        s = self.i
        while not self.eof() and self.peek() != ">":
            c = self.peek()
            ok = c == "_" or c.isalpha() or (self.i > s and (c.isdigit() or c in ".[]"))
            if not ok and not self.fancy:
                self.fail("invalid capture group character", self.i, self.i + 1)
            self.i += 1
        if self.eof():
            self.fail("unclosed capture group name", self.i, self.i,
                      "Could not parse group name", (s - 2, s - 1))
        name = self.p[s:self.i]
        if not name:
            self.fail("empty capture group name", self.i, self.i, "Could not parse group name", (s - 2, s - 1))
        if name in self.names and not self.fancy:
            self.fail("duplicate capture group name", s, self.i)
        self.i += 1
        self.names.append(name)
        return name

    def flag_group(self) -> bool:
        """Flags after `(?`: `)` sets them for the rest of the group (True), `:` opens a
        non-capturing group with them (False)."""
        on = True
        seen: dict = {}
        neg_at = None
        while True:
            if self.eof():
                self.fail("expected flag but got end of regex", self.i, self.i,
                          "Opening parenthesis without closing parenthesis", (len(self.p), len(self.p)))
            c = self.peek()
            if c in ":)":
                if neg_at is not None and self.i == neg_at + 1 and not self.fancy:
                    self.fail("dangling flag negation operator", neg_at, neg_at + 1)
                self.i += 1
                return c == ")"
            if c == "-":
                if neg_at is not None:
                    self.fail("flag negation operator repeated", self.i, self.i + 1,
                              "Unknown group flag: (?" + self.p[neg_at:self.i + 1], (self.i - 1, self.i))
                neg_at = self.i
                on = False
            elif c in _FLAGS:
                if c in seen and not self.fancy:
                    self.fail("duplicate flag", self.i, self.i + 1)
                if c == "u" and self.fancy:
                    self.fail("", 0, 0, "Changing Unicode mode inline is not supported", (self.i, self.i + 1))
                seen[c] = True
                self.flags[c] = on
            else:
                self.fail("unrecognized flag", self.i, self.i + 1,
                          "Unknown group flag: (?" + self.p[self.i - (self.i - (neg_at or self.i)):self.i + 1],
                          (self.i, self.i + 1))
            self.i += 1

    # ── escapes ──
    def escape_head(self) -> tuple[int, str]:
        """At `\\`: where the escape starts and the character escaped (an error at the end)."""
        start = self.i
        self.i += 1
        if self.eof():
            self.fail("incomplete escape sequence, reached end of pattern prematurely", start, start + 1,
                      "Backslash without following character", (start, start + 1))
        self.i += 1
        return start, self.p[self.i - 1]

    def escape_atom(self):
        start, c = self.escape_head()
        u = self.flags["u"]
        if c.isdigit() and c.isascii():
            if not self.fancy:
                raise RegexSyntaxError("backreferences are not supported", start, self.i)
            while self.peek().isascii() and self.peek().isdigit():
                self.i += 1
            n = int(self.p[start + 1:self.i])
            self.backrefs.append((n, (start, self.i)))
            return (self.cased(self.backref(n)), True, False)
        if c == "k" and self.fancy and self.peek() == "<":
            end = self.p.find(">", self.i)
            name = self.p[self.i + 1:end] if end > 0 else ""
            self.backrefs.append((int(name) if name.isdigit() else name, (start + 2, start + 3)))
            self.i = end + 1 if end > 0 else len(self.p)
            return (self.cased(self.backref(int(name) if name.isdigit() else name)), True, False)
        if c in "AzBb<>":
            return (self.assertion(c, start, u), True, False)
        if self.fancy and c in "ZeGK":
            self.anchored = self.anchored or c == "G"
            return ({"Z": "(?=\\n?\\Z)", "e": "\\x1b", "G": G_ANCHOR, "K": "\\K"}[c], c in "eZ", False)
        self.i = start
        s = self.class_escape()
        if isinstance(s, _Set):
            return (self.cased(s.matcher()), True, False)
        return (self.cased(lit(s)), True, False)

    def backtracks(self, src: str) -> bool:
        """Does fancy-regex run this pattern on its own VM (look-around, backreferences, atomic
        groups, possessive repetition, `\\G` `\\K`)?"""
        return self.fancy and bool(self.backrefs or _regex.search(r"\(\?<?[=!>]|[*+?}]\+|\\[GK]", src))

    def backref(self, ref) -> str:
        """A backreference, by number (groups are numbered, not named, in what is emitted); a
        name is looked up once every group is known (`parse`)."""
        return f"(?:\\g<{ref}>)" if isinstance(ref, int) else f"(?:\\g<{{{ref}}}>)"

    def assertion(self, c: str, start: int, u: bool) -> str:
        if c == "A":
            return "\\A"
        if c == "z":
            return "\\Z"
        if c == "b" and self.peek() == "{" and not self.peek(1).isdigit():
            end = self.p.find("}", self.i)
            if end < 0:
                self.fail("special word boundary assertion is either unclosed or contains an invalid "
                          "character", self.i, len(self.p), "Invalid escape: \\b{", (start, start + 1))
            name = self.p[self.i + 1:end]
            if name not in _WORD_BOUNDARIES:
                self.fail("unrecognized special word boundary assertion, valid choices are: start, "
                          "end, start-half or end-half", self.i + 1, end,
                          f"Invalid escape: \\b{{{name}}}", (start, start + 1))
            self.i = end + 1
            return _WORD_BOUNDARIES[name] if u else _ascii_boundary(name)
        if c in "<>":
            return _WORD_BOUNDARIES["start" if c == "<" else "end"] if u else _ascii_boundary(
                "start" if c == "<" else "end")
        if not u:
            return _ascii_boundary("b" if c == "b" else "B")
        return "\\" + c

    def class_escape(self):
        """At `\\`: a character (str) or a set (_Set) — what may stand in a set."""
        start, c = self.escape_head()
        u = self.flags["u"]
        if c in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[c]
        if c in "xuU":
            return self.hex_escape(c, start)
        if c.lower() in "dws" and c.isascii():
            members = _CLASSES[(c.lower(), u)]
            if c.isupper():
                if not u:
                    self.fail("pattern can match invalid UTF-8", start, self.i)
                return _Set(expr=not_in(members))
            return _Set(members)
        if c in "pP":
            return self.property(c == "P", start)
        if c.isascii() and not c.isalnum() and c not in "<>":
            return c
        if self.fancy and c == "e":
            return "\x1b"
        self.fail("unrecognized escape sequence", start, self.i,
                  f"Invalid escape: \\{c}", (start, start + 1))

    def hex_escape(self, c: str, start: int) -> str:
        width = {"x": 2, "u": 4, "U": 8}[c]
        if self.peek() == "{":
            open_at = self.i
            end = self.p.find("}", self.i)
            if end < 0:
                self.i = len(self.p)
                self.fail("incomplete escape sequence, reached end of pattern prematurely",
                          len(self.p), len(self.p), "Invalid hex escape", (start + 2, start + 3))
            digits = self.p[self.i + 1:end]
            if not digits:
                self.fail("hexadecimal literal empty", open_at, end + 1, "Invalid hex escape",
                          (start + 2, start + 3))
            for k, d in enumerate(digits):
                if d not in "0123456789abcdefABCDEF":
                    self.fail("invalid hexadecimal digit", open_at + 1 + k, open_at + 2 + k,
                              "Invalid hex escape", (start + 2, start + 3))
            self.i = end + 1
            span = (open_at + 1, end)
        else:
            digits = ""
            for _ in range(width):
                if self.eof():
                    self.fail("incomplete escape sequence, reached end of pattern prematurely",
                              self.i, self.i, "Invalid hex escape", (start + 2, start + 3))
                d = self.peek()
                if d not in "0123456789abcdefABCDEF":
                    self.fail("invalid hexadecimal digit", self.i, self.i + 1, "Invalid hex escape",
                              (start + 2, start + 3))
                digits += d
                self.i += 1
            span = (start + 2, self.i)
        v = int(digits, 16)
        if v > 0x10FFFF or 0xD800 <= v <= 0xDFFF:
            self.fail("hexadecimal literal is not a Unicode scalar value", *span,
                      "Invalid codepoint for hex or unicode escape", (start + 2, start + 3))
        if v > 0x7F and not self.flags["u"]:
            self.fail("pattern can match invalid UTF-8", start, self.i)
        return chr(v)

    def property(self, negated: bool, start: int) -> _Set:
        if self.eof():
            self.fail("incomplete escape sequence, reached end of pattern prematurely", self.i, self.i,
                      "Unicode escape not closed", (start, start + 1))
        if self.peek() == "{":
            end = self.p.find("}", self.i)
            if end < 0:
                self.i = len(self.p)
                self.fail("incomplete escape sequence, reached end of pattern prematurely",
                          len(self.p), len(self.p), "Unicode escape not closed", (start, start + 1))
            body = self.p[self.i + 1:end]
            self.i = end + 1
        else:
            body = self.peek()
            self.i += 1
        if "!=" in body:
            negated = not negated
            body = body.replace("!=", "=", 1)
        text = ("\\P{%s}" if negated else "\\p{%s}") % body.replace(":", "=", 1)
        bad = _property_error(body, self.fancy)
        if bad is None and ((body.startswith("^") and not self.fancy) or not _known_property(text)):
            bad = "Unicode property not found"
        if bad is not None:
            self.fail(bad, start, self.i)
        return _Set(text)

    # ── sets ──
    def cls(self) -> str:
        s = self.set_expr(self.i)
        return self.cased(s.matcher())

    def set_expr(self, open_at: int) -> _Set:
        self.nest(self.depth + len(self.open_sets))
        self.i += 1
        self.set_space()
        negated = self.peek() == "^"
        if negated:
            self.i += 1
            self.set_space()
        # an unclosed set is reported over its opening: `[`, `^` and a leading literal `]`
        at = self.i
        if self.peek() == "]":
            self.i += 1
            self.set_space()
        self.open_end, self.i = self.i, at
        self.open_sets.append((open_at, self.open_end))
        operand = self.set_union(first=True, open_at=open_at)
        while self.p.startswith(("&&", "--", "~~"), self.i):
            op = self.p[self.i:self.i + 2]
            self.i += 2
            right = self.set_union(first=False, open_at=open_at)
            a, b = operand.matcher(), right.matcher()
            operand = _Set(expr={"&&": f"(?:(?={a}){b})", "--": f"(?:(?!{b}){a})",
                                 "~~": f"(?:(?!{b}){a}|(?!{a}){b})"}[op])
        self.i += 1  # the `]`
        self.open_sets.pop()
        if negated:
            if not self.flags["u"]:
                self.fail("pattern can match invalid UTF-8", open_at, self.i)
            if operand.expr is None:
                return _Set(expr=not_in(operand.members) if operand.members else "(?s:.)")
            return _Set(expr=f"(?:(?!{operand.expr})(?s:.))")
        return operand

    def set_union(self, first: bool, open_at: int) -> _Set:
        members: list[str] = []
        exprs: list[str] = []
        open_end = self.open_end
        while True:
            self.set_space()
            if self.eof():
                self.fail("unclosed character class", open_at, open_end, "Invalid character class",
                          (len(self.p), len(self.p)))
            c = self.peek()
            if c == "]" and not (first and not members and not exprs):
                break
            if self.p.startswith(("&&", "--", "~~"), self.i) and (members or exprs or not first):
                break
            first = False
            item_at = self.i
            item = self.set_item()
            if isinstance(item, str) and self.peek() == "-" and self.peek(1) not in ("]", "", "-"):
                self.i += 1
                self.set_space()
                end_at = self.i
                hi = self.set_item()
                if not isinstance(hi, str):
                    self.fail("invalid range boundary, must be a literal", end_at, self.i)
                if ord(item) > ord(hi):
                    self.fail("invalid character class range, the start must be <= the end", item_at, self.i)
                members.append(f"{lit(item)}-{lit(hi)}")
            elif isinstance(item, str):
                members.append(lit(item))
            else:
                if self.peek() == "-" and self.peek(1) not in ("]", "", "-"):
                    self.fail("invalid range boundary, must be a literal", item_at, self.i)
                (exprs.append(item.expr) if item.expr is not None else members.append(item.members))
        if not exprs:
            return _Set("".join(members))
        parts = ([f"[{''.join(members)}]"] if members else []) + exprs
        return _Set(expr=f"(?:{'|'.join(parts)})")

    def set_space(self):
        """`(?x)` whitespace inside a set: skipped by Rust's regex, literal to fancy-regex."""
        if not self.fancy:
            self.skip_space()

    def set_item(self):
        c = self.peek()
        if c == "[":
            m = _regex.match(r"\[:(\^?)([a-z]+):\]", self.p[self.i:])
            if m and m.group(2) in _POSIX:
                self.i += m.end()
                ms = _POSIX[m.group(2)]
                return _Set(expr=not_in(ms)) if m.group(1) else _Set(ms)
            return self.set_expr(self.i)
        if c == "\\":
            start = self.i
            if self.peek(1).isdigit() and not self.fancy:
                raise RegexSyntaxError("backreferences are not supported", start, start + 2)
            if self.peek(1) in ("b", "B", "A", "z", "<", ">") and self.fancy:
                self.i += 2  # fancy-regex: `\b` a backspace, the others their letter (a guess)
                return "\x08" if self.p[start + 1] == "b" else self.p[start + 1]
            if self.peek(1) in ("b", "B", "A", "z", "<", ">"):
                m = _regex.match(r"\\b\{[a-z-]+\}", self.p[start:])  # `\b{end}`: all of it
                self.i = end = start + (m.end() if m else 2)
                self.set_space()
                if self.eof():  # regex-syntax looks for the set's end before at the item
                    self.fail("unclosed character class", *self.open_sets[-1])
                self.fail("invalid escape sequence found in character class", start, end)
            return self.class_escape()
        self.i += 1
        return c


# Rust's regex refuses a pattern whose compiled program exceeds this many bytes (TooLarge); the
# sizes below are Thompson-NFA sizes measured on the engine (a byte of literal: one 32-byte
# state; a Unicode class: its UTF-8 automaton), an estimate for what was not measured.
SIZE_LIMIT = 10485760
_ATOM = 32
_OVERHEAD = 200  # the program's own states
_UNION = 40  # an optional copy's split
_CLASS_SIZES = {_WORD: (50100, 46600), r"\p{Nd}": (5124, 12750), r"\p{White_Space}": (680, 1924)}
_FREE = ("", "\\A", "\\Z", "(?m:^)", "(?m:$)", "\\b", "\\B", "\\G", "\\K")


def _atom_cost(t: str) -> int:
    if t in _FREE or t.startswith(("(?=", "(?!", "(?<", "\\b(", "(?:(?<")):
        return 0
    if t.startswith("(?i:"):
        return _atom_cost(t[4:-1]) * 5 // 2  # its case variants
    if t in (_DOT, "(?s:.)", _DOT_R) or t.startswith("(?:(?!"):
        return 1000
    if len(t) == 1:
        return _ATOM * len(t.encode())
    if not t.startswith("["):
        return _ATOM
    for k, (pos, neg) in _CLASS_SIZES.items():
        if k in t:
            return neg if t.startswith("[^") else pos
    if t.isascii() and "\\p{" not in t and "\\P{" not in t and not t.startswith("[^"):
        return 64 + 8 * max(1, t.count("-"))
    size = max(132, 62 * _ranges(t))  # a Unicode class: its UTF-8 automaton grows with its ranges
    return max(1000, size) if t.startswith("[^") else size


_RANGES: dict = {}
_ALL_CHARS = None


def _ranges(cls: str) -> int:
    """How many runs of consecutive code points the set `cls` matches."""
    global _ALL_CHARS
    n = _RANGES.get(cls)
    if n is None:
        if _ALL_CHARS is None:
            _ALL_CHARS = "".join(map(chr, range(0xD800))) + "".join(map(chr, range(0xE000, 0x110000)))
        n = _RANGES[cls] = sum(1 for _ in _regex.finditer(f"(?:{cls})+", _ALL_CHARS))
    return max(n, 1)


def _repeat_cost(c: int, text: str) -> int:
    m = _regex.search(r"(?:([*+?])|\{(\d+)(,(\d*))?\})\??\+?$", text)
    if m is None or m.group(1):
        return c + _UNION
    lo = int(m.group(2))
    if not m.group(3):
        return c * lo
    hi = m.group(4)
    return c * max(lo, 1) + _UNION if not hi else c * int(hi) + _UNION * (int(hi) - lo)


def _single(text: str) -> bool:
    """Is `text` one atom that a quantifier may follow directly (a group or set)?"""
    if text.startswith("\\") and len(text) == 2:
        return True
    if text.startswith("\\x") and len(text) == 4:
        return True
    return False


def _ascii_boundary(kind: str) -> str:
    w = "[0-9A-Za-z_]"
    before, after = f"(?<={w})", f"(?={w})"
    nb, na = f"(?<!{w})", f"(?!{w})"
    return {"b": f"(?:{before}{na}|{nb}{after})", "B": f"(?:{before}{after}|{nb}{na})",
            "start": f"{nb}{after}", "end": f"{before}{na}", "start-half": nb, "end-half": na}[kind]


_PROPS: dict = {}
# Unicode's property names regex-syntax knows but has no table for (any value is "not found"),
# and the values it has no table for (surrogates, the Unknown script), loosely spelled
_UNTABLED_PROPS = frozenset("block blk bidiclass bc linebreak lb eastasianwidth ea joiningtype jt "
                            "joininggroup jg numerictype nt decompositiontype dt hangulsyllabletype "
                            "hst canonicalcombiningclass ccc indicpositionalcategory inpc "
                            "indicsyllabiccategory insc verticalorientation vo".split())
_UNTABLED_VALUES = frozenset("cs surrogate unknown zzzz".split())


def _loose(name: str) -> str:
    return "".join(c for c in name.lower() if c not in " _-")


def _property_error(body: str, fancy: bool) -> str | None:
    """regex-syntax's refusal of a property the `regex` module would accept, if any (fancy-regex
    hands properties to it, but takes surrogates itself)."""
    name, eq, value = body.replace(":", "=", 1).partition("=")
    untabled = _UNTABLED_VALUES - {"cs", "surrogate"} if fancy else _UNTABLED_VALUES
    if eq:
        if _loose(name) in _UNTABLED_PROPS or _loose(value) in untabled:
            return "Unicode property value not found"
        return None
    if _loose(body) in untabled:
        return "Unicode property value not found"
    block = body[:2].lower() == "in" and (body[2:3] == "_" or body[2:3].isupper())
    if block or not all(c.isalnum() or c in " _-." for c in body.lstrip("^" if fancy else "")):
        return "Unicode property not found"  # `L&`, `Greek!`, a block (`In_Basic_Latin`)
    return None



def _known_property(text: str) -> bool:
    ok = _PROPS.get(text)
    if ok is None:
        try:
            _regex.compile(text)
            ok = True
        except _regex.error:
            ok = False
        _PROPS[text] = ok
    return ok


def _guarded(parse):
    """Run the parser; a pattern nested past what the caller's stack allows is too deep."""
    try:
        return parse()
    except RecursionError:
        raise RegexSyntaxError(f"exceed the maximum number of nested parentheses/brackets ({_NEST_LIMIT})",
                               None, None) from None


def translate(pattern: str, fancy: bool = False) -> Translated:
    """Parse `pattern` as the engine's dialect (fancy: `backtracking = true`); raise
    RegexSyntaxError as the engine words it."""
    p = _Parser(pattern, fancy)
    src = _guarded(p.parse)
    for k, n in enumerate(p.names):  # named backreferences, now that every group is numbered
        if n is not None:
            src = src.replace(f"\\g<{{{n}}}>", f"\\g<{k + 1}>")
    # fancy-regex hands a pattern without its own constructs to Rust's regex
    return Translated(src, tuple(p.names), automaton=not p.backtracks(src), anchored=p.anchored, dropped=frozenset(p.dropped))


def check(pattern: str, backtracking: bool = False) -> tuple[str, RegexSyntaxError] | None:
    """Why the engine refuses `pattern`: (kind, error) with kind `Syntax`, `Unsupported` (a
    pattern only the backtracking dialect accepts: the message says how to enable it) or
    `TooLarge` (estimated); None when it compiles."""
    try:
        p = _Parser(pattern, backtracking)
        _guarded(p.parse)
        if not backtracking and p.last_cost + _OVERHEAD > SIZE_LIMIT:
            return ("TooLarge", RegexSyntaxError(
                f"compiled pattern exceeds the {SIZE_LIMIT}-byte size limit", None, None))
        return None
    except RegexSyntaxError as e:
        if backtracking:
            return ("Syntax", e)
        try:
            translate(pattern, True)
        except RegexSyntaxError:
            return ("Syntax", e)
        return ("Unsupported", RegexSyntaxError(e.message + _HINT, e.start, e.end))
