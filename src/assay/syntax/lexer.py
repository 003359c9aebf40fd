"""BAML lexer: one compiled master regex; strings and backtick templates are decoded here.

Tokens are `Token(kind, text, start, end)`; `nl` is True when a newline separates the token
from the previous one, `doc` holds the `///` comment lines right before it. Kinds:
'ident' (words, keywords included), 'op' (punctuation), 'int', 'float', 'bigint', 'str',
'rawstr', 'bytestr', 'template', 'eof'. `value` holds the decoded literal value
(int / float / str) or, for a template, a list of raw parts:
    ('text', raw_text, start)   — undecoded text (escapes still present)
    ('hole', tokens, start, end) — the tokens of a `${ … }` (ending with an 'eof' token)
"""
from __future__ import annotations

import re

from ..source import Diagnostic, Span, SourceFile

I63_MAX = (1 << 62) - 1


class Token:
    __slots__ = ("kind", "text", "start", "end", "nl", "doc", "value")

    def __init__(self, kind, text, start, end, nl=False, value=None):
        self.kind = kind
        self.text = text
        self.start = start
        self.end = end
        self.nl = nl
        self.doc = None
        self.value = value

    def __repr__(self):
        return f"Token({self.kind}, {self.text!r}, {self.start})"


_OPS = [
    "...", "<<=", ">>=", "..", "??", "?.", "->", "=>", "==", "!=", "<=", ">=", "&&", "||",
    "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "++", "--", "@@", "::",
]
_SINGLE = "+-*/%=<>!~&|^?.,:;()[]{}@#"

_MASTER = re.compile(
    r"(?P<ws>[ \t\r\f\v]+)"
    r"|(?P<nl>\n)"
    r"|(?P<doc>///[^\n]*)"
    r"|(?P<cmt>//[^\n]*)"
    r"|(?P<bcmt>/\*(?:[^*]|\*(?!/))*(?:\*/)?)"
    r"|(?P<str>[rb]?\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<ustr>[rb]?\")"
    r"|(?P<ident>(?:[A-Za-z_]|\$[A-Za-z0-9_])(?:[A-Za-z0-9_]|\$(?=[A-Za-z0-9_]))*(?:-(?:[A-Za-z0-9_]|\$(?=[A-Za-z0-9_]))*)*)"
    r"|(?P<num>0[xX][0-9A-Fa-f_]*n?(?![0-9A-Za-z_])|0[xX][0-9A-Fa-f_]*|0[bB][0-9_]*n?|0[oO][0-9_]*n?"
    r"|[0-9][0-9_]*(?:\.[0-9][0-9_]*)?(?:[eE][+-]?_*[0-9][0-9_]*)?n?)"
    r"|(?P<tick>`+)"
    r"|(?P<op>" + "|".join(re.escape(o) for o in _OPS) + "|[" + re.escape(_SINGLE) + r"])",
    re.S,
)

_ESC = re.compile(r"\\(u\{[^}\n]*\}?|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{0,2}|.)", re.S)
_HASH_STR = re.compile(r'(?P<h>#+)"(?P<body>.*?)"(?P=h)', re.S)
_HASH_OPEN = re.compile(r'#+"')
_SIMPLE_ESC = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", '"': '"', "0": "\0", "'": "'", "$": "$"}


def decode_escapes(raw: str, base: int, file: SourceFile, diags: list, extra: dict | None = None) -> str:
    """Decode `\\n`-style escapes of `raw` (whose first char sits at offset `base`)."""
    if "\\" not in raw:
        return raw
    table = _SIMPLE_ESC if extra is None else {**_SIMPLE_ESC, **extra}

    def sub(m: re.Match) -> str:
        body = m.group(1)
        c = body[0]
        if c in table:
            return table[c]
        s, e = base + m.start(), base + m.end()
        if c == "x":
            if len(body) == 3 and int(body[1:], 16) < 0x80:
                return chr(int(body[1:], 16))
            if len(body) == 3:
                diags.append(Diagnostic(Span(file, s, e), "E0109", f'out of range escape sequence '
                                        f'"\\{body}" - "\\x" escapes in strings only go up to "\\x7F"'))
                return ""
            diags.append(Diagnostic(Span(file, s, s + 2), "E0109",
                                    'invalid escape sequence "\\x" - "\\x" must be followed by exactly two hex digits'))
            return ""
        if c == "u" and len(body) == 5 and body[1] != "{":
            v = int(body[1:], 16)
            return chr(v) if not (0xD800 <= v <= 0xDFFF) else "\ufffd"
        if c == "u":
            inner = body[2:-1] if body.endswith("}") else None
            if inner is not None and len(inner.replace("_", "")) > 6 and re.fullmatch(r"[0-9A-Fa-f_]+", inner):
                diags.append(Diagnostic(Span(file, s, e), "E0109", f'invalid escape sequence '
                                        f'"\\{body}" - at most six hex digits are allowed'))
                return ""
            if inner is not None and re.fullmatch(r"[0-9A-Fa-f_]{1,8}", inner):
                v = int(inner.replace("_", ""), 16) if inner.replace("_", "") else -1
                if 0 <= v <= 0x10FFFF and not (0xD800 <= v <= 0xDFFF):
                    return chr(v)
                diags.append(Diagnostic(Span(file, s, e), "E0109",
                                        f'invalid escape sequence "\\{body}" - the value exceeds U+10FFFF'))
                return ""
            diags.append(Diagnostic(Span(file, s, s + 2), "E0109",
                                    'invalid escape sequence "\\u" - expected "\\u{...}" with 1-6 hex digits'))
            return ""
        end = s + 1 + len(c)
        diags.append(Diagnostic(Span(file, s, end), "E0109",
                                f'unknown escape sequence "\\{c}" - did you mean "\\\\{c}" (escaped backslash) '
                                f'or r"\\{c}" (raw string)?'))
        return c

    return _ESC.sub(sub, raw)


def _in_base(ch: str, base: int) -> bool:
    return ch.isdigit() and int(ch) < base or base == 16 and ch.lower() in "abcdef"


def _parse_number(text: str, start: int, file: SourceFile, diags: list):
    """Returns (kind, value)."""
    t = text
    if t[:2] in ("0X", "0B", "0O"):
        diags.append(Diagnostic(Span(file, start, start + len(t)), "E0152",
                                "invalid base prefix for number literal; base prefixes are lowercase: "
                                f"`{t[:2].lower()}{t[2:]}`"))
        t = t[:2].lower() + t[2:]
    if t[:2] == "0x" and t.endswith("n"):  # `0xFF_FFn`: `n` is no hex digit
        try:
            return "bigint", int(t[2:-1].replace("_", "") or "x", 16)
        except ValueError:
            pass
    if t.endswith("n") and not t[:2].lower() in ("0x",):
        body = t[:-1].replace("_", "")
        try:
            return "bigint", int(body, 0) if body[:2].lower() in ("0b", "0o") else int(body)
        except ValueError:
            pass
    low = t[:2].lower()
    if low in ("0x", "0b", "0o"):
        digits = t[2:].replace("_", "")
        base = {"0x": 16, "0b": 2, "0o": 8}[low]
        if not digits:
            diags.append(Diagnostic(Span(file, start, start + len(t)), "E0152",
                                    "no valid digits found for number"))
            return "int", 0
        try:
            v = int(digits, base)
        except ValueError:  # at the first digit out of the base, as the engine
            bad = next((i for i, ch in enumerate(t) if i >= 2 and ch != "_" and not _in_base(ch, base)), 0)
            diags.append(Diagnostic(Span(file, start + bad, start + bad + 1), "E0152",
                                    f"invalid digit for a base {base} literal"))
            return "int", 0
    elif "." in t or "e" in t or "E" in t:
        try:
            return "float", float(t.replace("_", ""))
        except ValueError:
            return "float", 0.0
    else:
        v = int(t.replace("_", ""))
    if v > (1 << 63) - 1:
        diags.append(Diagnostic(Span(file, start, start + len(t)), "E0152", "integer literal is too large"))
        return "int", 0
    return "int", v


class Lexer:
    def __init__(self, file: SourceFile, diags: list):
        self.file = file
        self.text = file.text
        self.diags = diags

    def err(self, s, e, msg, code="E0010"):
        self.diags.append(Diagnostic(Span(self.file, s, max(s, e)), code, msg))

    def tokenize(self, pos: int = 0, hole: bool = False) -> tuple[list[Token], int]:
        """Lex from `pos`. With `hole`, stop at the `}` closing a `${`; returns (tokens, end)."""
        text, file, diags = self.text, self.file, self.diags
        n = len(text)
        toks: list[Token] = []
        append = toks.append
        match = _MASTER.match
        nl = False
        doc: list[str] | None = None
        depth = 0
        while pos < n:
            if text[pos] == "#":
                h = _HASH_STR.match(text, pos)
                if h is not None:  # `#"…"#`: removed from the language, read as a string
                    self.diags.append(Diagnostic(Span(file, pos, h.end()), "E0098", "removed language "
                                                 "feature: hash string literals like `#\"...\"#` are no "
                                                 "longer supported; use quoted strings or backtick strings"))
                    append(Token("rawstr", h.group(), pos, h.end(), nl, h.group("body")))
                    nl, pos = False, h.end()
                    continue
                o = _HASH_OPEN.match(text, pos)
                if o is not None:  # unclosed (or closed by fewer `#`s): the string runs to EOF
                    self.diags.append(Diagnostic(Span(file, pos, n), "E0098", "removed language feature: "
                                                 "hash string literals like `#\"...\"#` are no longer "
                                                 "supported; use quoted strings or backtick strings"))
                    e = len(text.rstrip())
                    self.err(e, e, "unexpected token: expected `Unclosed string literal`, found `EOF`")
                    append(Token("rawstr", text[pos:], pos, n, nl, text[o.end():]))
                    pos = n
                    break
            if text.startswith(("//=", "/*="), pos):  # the engine's lexer: `/` then `/=` or `*=`, no comment
                append(Token("op", "/", pos, pos + 1, nl))
                nl, pos = False, pos + 1
                continue
            m = match(text, pos)
            if m is None:
                ch = text[pos]
                if ch == "'":
                    j = text.find("'", pos + 1)
                    e = j + 1 if j > 0 and "\n" not in text[pos:j] else pos + 1
                    self.err(pos, e, "unexpected token: single-quoted strings are not supported; use double quotes")
                    pos = e
                elif ch == "\ufeff":  # a byte-order mark in the text (read_source drops a file's)
                    self.err(pos, pos + 1, "unexpected token: a byte-order mark (U+FEFF) is no token")
                    pos += 1
                elif ch == "$":  # not starting a word (`$name`): a token of its own
                    append(Token("op", "$", pos, pos + 1, nl))
                    nl, pos = False, pos + 1
                else:
                    self.err(pos, pos + 1, f"unexpected character `{ch}`")
                    pos += 1
                continue
            kind = m.lastgroup
            end = m.end()
            if kind == "ws":
                pos = end
                continue
            if kind == "nl":
                nl = True
                doc = None if doc is None else doc
                pos = end
                continue
            if kind == "cmt":  # a plain comment ends the doc comment above it (a block comment, a
                if not m.group().startswith("//baml:"):  # `//baml:tagged_string` directive do not)
                    doc = None
                pos = end
                continue
            if kind == "doc":
                line = m.group()[3:]
                if line.startswith(" "):
                    line = line[1:]
                if doc is None:
                    doc = []
                doc.append(line)
                pos = end
                continue
            if kind == "bcmt":
                if not m.group().endswith("*/") or end - pos < 4:
                    pass  # the real engine silently accepts an unterminated block comment at EOF
                if "\n" in m.group():
                    nl = True
                pos = end
                continue
            s = m.group()
            if kind == "ustr":
                e = len(text.rstrip())  # the engine places EOF after the text's last non-blank
                self.err(e, e, "unexpected token: expected `Unclosed string literal`, found `EOF`")
                val = s[:-1] == "" and decode_escapes(text[end:], end, file, []) or text[end:]
                append(Token("str" if s == '"' else ("rawstr" if s[0] == "r" else "bytestr"),
                             text[pos:], pos, n, nl, val))
                pos = n
                break
            if kind == "ident":
                tok = Token("ident", s, pos, end, nl)
            elif kind == "op":
                if hole:
                    if s == "{":
                        depth += 1
                    elif s == "}":
                        if depth == 0:
                            append(Token("eof", "", pos, pos, nl))
                            return toks, end
                        depth -= 1
                tok = Token("op", s, pos, end, nl)
            elif kind == "num":
                k, v = _parse_number(s, pos, file, diags)
                tok = Token(k, s, pos, end, nl, v)
            elif kind == "str":
                if s[0] == "r":
                    tok = Token("rawstr", s, pos, end, nl, s[2:-1])
                elif s[0] == "b":
                    tok = Token("bytestr", s, pos, end, nl, s[2:-1])
                else:
                    tok = Token("str", s, pos, end, nl, decode_escapes(s[1:-1], pos + 1, file, diags))
            elif kind == "tick":
                tok, end = self.template(pos, len(s), nl)
            else:  # pragma: no cover
                pos = end
                continue
            if doc is not None:
                tok.doc = "\n".join(doc)
                doc = None
            append(tok)
            nl = False
            pos = end
        else:
            # string starting quote that did not match (unterminated)
            pass
        if hole:  # EOF right after the last token (a block comment may have run to the end)
            e = min(toks[-1].end, len(text.rstrip())) if toks else n
            self.err(e, e, "unexpected token: expected `Unclosed backtick string (expected `)`, found `EOF`")
            append(Token("eof", "", n, n, nl))
            return toks, n
        # the engine places EOF right after the last token (an unclosed string's: the last non-blank)
        e = min(toks[-1].end, len(text.rstrip())) if toks else 0
        append(Token("eof", "", e, e, nl))
        return toks, n

    def template(self, start: int, ticks: int, nl: bool) -> tuple[Token, int]:
        text = self.text
        n = len(text)
        pos = start + ticks
        parts: list = []
        seg_start = pos
        "`" * ticks
        while True:
            # find next interesting char
            m = _TPL_SCAN.search(text, pos)
            if m is None:
                if seg_start < n:
                    parts.append(("text", text[seg_start:n], seg_start))
                e = _tail_end(text, start + ticks)
                self.err(e, e, "unexpected token: expected `Unclosed backtick string (expected `)`, found `EOF`")
                tok = Token("template", text[start:n], start, n, nl, parts)
                return tok, n
            p = m.start()
            g = m.group()
            if g[0] == "\\":
                pos = m.end()
                continue
            if g[0] == "`":
                if len(g) == ticks:
                    if seg_start < p:
                        parts.append(("text", text[seg_start:p], seg_start))
                    end = m.end()
                    return Token("template", text[start:end], start, end, nl, parts), end
                pos = m.end()
                continue
            # `${`
            if seg_start < p:
                parts.append(("text", text[seg_start:p], seg_start))
            toks, after = self.tokenize(p + 2, hole=True)
            parts.append(("hole", toks, p, after))
            if after >= n and (not toks or toks[-1].kind == "eof" and toks[-1].start >= n):
                tok = Token("template", text[start:n], start, n, nl, parts)
                return tok, n
            pos = seg_start = after


_TPL_SCAN = re.compile(r"\\.|`+|\$\{", re.S)
_TRIVIA = frozenset(["ws", "nl", "doc", "cmt", "bcmt"])


def _tail_end(text: str, pos: int) -> int:
    """Where the engine places EOF after an unclosed backtick string from `pos`: right after the
    last token of the rest lexed as code (a `/*` there runs to the end as a comment)."""
    end, n = pos, len(text)
    while pos < n:
        m = _MASTER.match(text, pos)
        if m is None:
            end = pos = pos + 1
            continue
        if m.lastgroup == "ustr":
            return len(text.rstrip())
        if m.lastgroup not in _TRIVIA:
            end = m.end()
        pos = m.end()
    return end


def tokenize(file: SourceFile, diags: list) -> list[Token]:
    toks, _ = Lexer(file, diags).tokenize(0)
    return toks
