"""`@ingot(PAYLOAD)` / `@@ingot(PAYLOAD)` annotations: source preprocessing (issue 11).

An annotation is not BAML syntax. `preprocess` finds annotations with the lexer (so text inside
strings, raw strings, backtick templates and comments is never harvested), parses each payload
(one literal: a map with bare or quoted keys, an array, a string, a number, a bool or null,
nested freely; payloads may span lines) and blanks the annotation out: every character of it
but newlines becomes a space, so every other character keeps its line and column and
diagnostics stay exact. `attach` then finds each annotation's target in the parsed file:

- `@ingot` on the lines before a top-level function, class or enum (comments may stand between);
- `@ingot` after a function parameter (after its type and default);
- `@ingot` with the other attributes of a class field or an enum variant;
- `@@ingot` inside a class or enum body (the class / enum), or at file level (the file).

`collect` turns the attached annotations into the table the compiler keeps on the index
(`index.ingot`), keyed as mirx's metadata slots: ("program",), ("file", path),
("function", fqn), ("param", fqn, name), ("type", fqn), ("field", class fqn, name),
("variant", enum fqn, name). Several annotations on one target deep-merge (maps merge, later
wins; arrays and scalars are replaced); ("program",) merges the file-level payloads of every
file in sorted path order. A malformed payload or an annotation without a target is a located
diagnostic (E0120)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from ..source import Diagnostic, SourceFile, Span
from . import ast
from .lexer import tokenize

CODE = "E0120"
_QUICK = re.compile(r"@@?\s*ingot\b")


@dataclass
class Annotation:
    level: int  # 1: @ingot, 2: @@ingot
    start: int
    end: int
    payload: object
    span: Span


def has_annotations(text: str) -> bool:
    return _QUICK.search(text) is not None


def preprocess(src: SourceFile) -> tuple[SourceFile, list[Annotation], list[Diagnostic]]:
    """The source with its annotations blanked out, the annotations, and payload errors. A
    source without annotations comes back as the same object."""
    if not has_annotations(src.text):
        return src, [], []
    toks = tokenize(src, [])  # the parser reports lexical errors of the stripped text
    text = src.text
    notes: list[Annotation] = []
    diags: list[Diagnostic] = []
    cut: list[tuple[int, int]] = []
    i = 0
    n = len(toks)
    while i < n:
        t = toks[i]
        if (t.kind == "op" and t.text in ("@", "@@") and i + 1 < n and toks[i + 1].kind == "ident"
                and toks[i + 1].text == "ingot" and toks[i + 1].start == t.end):
            level = len(t.text)
            j = i + 2
            if j >= n or toks[j].text != "(" or toks[j].kind != "op":
                diags.append(Diagnostic(Span(src, t.start, toks[i + 1].end), CODE,
                                        f"`{t.text}ingot` needs a payload: `{t.text}ingot(…)`"))
                cut.append((t.start, toks[i + 1].end))
                i += 2
                continue
            p = _Payload(src, toks, j + 1)
            try:
                value = p.value()
                if toks[p.i].kind != "op" or toks[p.i].text != ")":
                    raise _Bad(toks[p.i], "expected `)` after the payload (one literal)")
                end = toks[p.i].end
                notes.append(Annotation(level, t.start, end, value, Span(src, t.start, end)))
                cut.append((t.start, end))
                i = p.i + 1
            except _Bad as e:
                tok = e.tok
                found = "end of file" if tok.kind == "eof" else f"`{tok.text}`"
                diags.append(Diagnostic(Span(src, tok.start, max(tok.end, tok.start + 1)), CODE,
                                        f"malformed @ingot payload: {e.msg}, found {found}"))
                close = _matching(toks, j)
                end = toks[close].end if close is not None else toks[j].end
                cut.append((t.start, end))
                i = (close + 1) if close is not None else j + 1
            continue
        i += 1
    if not cut:
        return src, notes, diags
    chars = list(text)
    for s, e in cut:
        for k in range(s, e):
            if chars[k] not in "\n\r":
                chars[k] = " "
    out = SourceFile(src.path, "".join(chars), src.namespace)
    out.original = text
    return out, notes, diags


def strip(text: str, path: str = "main.baml") -> str:
    """`text` without its annotations (positions kept): what `assay ingot strip` writes."""
    out, _, _ = preprocess(SourceFile(path, text, None))
    return out.text


class _Bad(Exception):
    def __init__(self, tok, msg: str):
        self.tok = tok
        self.msg = msg


def _matching(toks, j: int) -> int | None:
    depth = 0
    for k in range(j, len(toks)):
        t = toks[k]
        if t.kind == "op" and t.text in "([{":
            depth += 1
        elif t.kind == "op" and t.text in ")]}":
            depth -= 1
            if depth == 0:
                return k
    return None


class _Payload:
    """A recursive-descent reader of one payload literal over the lexer's tokens."""

    def __init__(self, src, toks, i):
        self.src = src
        self.toks = toks
        self.i = i

    def tok(self):
        return self.toks[min(self.i, len(self.toks) - 1)]

    def op(self, text: str) -> bool:
        t = self.tok()
        if t.kind == "op" and t.text == text:
            self.i += 1
            return True
        return False

    def value(self):
        t = self.tok()
        if t.kind == "op" and t.text == "{":
            return self.map()
        if t.kind == "op" and t.text == "[":
            return self.array()
        if t.kind in ("str", "rawstr"):
            self.i += 1
            return t.value
        if t.kind == "op" and t.text == "-":
            self.i += 1
            u = self.tok()
            if u.kind not in ("int", "float", "bigint"):
                raise _Bad(u, "expected a number after `-`")
            self.i += 1
            return -_num(u)
        if t.kind in ("int", "float", "bigint"):
            self.i += 1
            return _num(t)
        if t.kind == "ident" and t.text in ("true", "false", "null"):
            self.i += 1
            return {"true": True, "false": False, "null": None}[t.text]
        raise _Bad(t, "expected a literal (a map, an array, a string, a number, true, false or null)")

    def map(self) -> dict:
        self.i += 1
        out: dict = {}
        while not self.op("}"):
            k = self.tok()
            if k.kind == "ident" or k.kind in ("str", "rawstr"):
                key = k.text if k.kind == "ident" else k.value
            else:
                raise _Bad(k, "expected a key (a name or a string) or `}`")
            self.i += 1
            if not self.op(":"):
                raise _Bad(self.tok(), f"expected `:` after the key `{key}`")
            out[key] = self.value()
            if not self.op(","):
                t = self.tok()
                if not (t.kind == "op" and t.text == "}") and not t.nl:
                    raise _Bad(t, "expected `,` or `}`")
        return out

    def array(self) -> list:
        self.i += 1
        out: list = []
        while not self.op("]"):
            out.append(self.value())
            if not self.op(","):
                t = self.tok()
                if not (t.kind == "op" and t.text == "]"):
                    raise _Bad(t, "expected `,` or `]`")
        return out


def _num(t):
    v = t.value
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    try:
        return int(str(v))
    except ValueError:
        return float(str(v))


def merge(a, b):
    """Deep merge: maps merge key by key (b wins), anything else is replaced by b."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = merge(out[k], v) if k in out else v
        return out
    return b


# ── targets ──


def attach(file: ast.File, notes: list[Annotation]) -> tuple[list[tuple[tuple, object]], list[Diagnostic]]:
    """Each annotation's target in the parsed file, as (target, payload) where target is
    ("file",), ("item", decl), ("param", function decl, name), ("field", class decl, name)
    or ("variant", enum decl, name)."""
    out: list = []
    diags: list[Diagnostic] = []
    items = [x for x in file.items if not getattr(x, "is_client", False)] + list(file.impls) + list(
        getattr(file, "clients", []))  # a `client`'s global (same span) is not a target of its own
    items.sort(key=lambda x: x.span.start)
    for a in notes:
        target = _target(a, items)
        if isinstance(target, str):
            diags.append(Diagnostic(a.span, CODE, target))
        else:
            out.append((target, a.payload))
    return out, diags


def _target(a: Annotation, items):
    o = a.start
    inside = next((x for x in items if x.span.start <= o < x.span.end), None)
    name = "@@ingot" if a.level == 2 else "@ingot"
    if inside is None:
        if a.level == 2:
            return ("file",)
        nxt = next((x for x in items if x.span.start >= a.end), None)
        if isinstance(nxt, (ast.Function, ast.ClassDecl, ast.EnumDecl)):
            return ("item", nxt)
        return f"{name} here has no target: put it before a function, class or enum"
    if isinstance(inside, (ast.ClassDecl, ast.EnumDecl)):
        for m in getattr(inside, "methods", []):
            if m.span.start <= o < m.span.end:
                return f"{name} inside a method is not supported (annotate top-level functions)"
        if a.level == 2:
            return ("item", inside)
        if isinstance(inside, ast.ClassDecl):
            members = sorted(list(inside.fields) + list(inside.methods), key=lambda m: m.span.start)
            prev = [m for m in members if m.span.start < o]
            if prev and isinstance(prev[-1], ast.ClassField):
                return ("field", inside, prev[-1].name)
            return f"{name} in a class body goes with a field's attributes (or use @@ingot for the class)"
        prev = [v for v in inside.variants if v.span.start < o]
        if prev:
            return ("variant", inside, prev[-1].name)
        return f"{name} in an enum body goes with a variant's attributes (or use @@ingot for the enum)"
    if isinstance(inside, ast.Function) and a.level == 1:
        body_start = inside.body.span.start if inside.body is not None else inside.span.end
        llm = getattr(inside, "llm", None)  # an LLM function's `{ client … prompt … }`
        if llm is not None:
            body_start = min(body_start, llm.span.start)
        params = [p for p in inside.params if p.span.start < o]
        if params and o < body_start and o > inside.name_span.end:
            return ("param", inside, params[-1].name)
    return f"{name} here has no target"


def collect(files: list[ast.File], notes: dict[str, list[Annotation]], index) -> tuple[dict, list[Diagnostic]]:
    """The annotation table of a program (see the module doc)."""
    table: dict = {}
    diags: list[Diagnostic] = []
    fqn_of: dict[int, tuple] = {}
    for fqn, f in index.functions.items():
        if f.owner is None:
            fqn_of[id(f.decl)] = ("function", fqn)
    for fqn, c in index.classes.items():
        fqn_of[id(c.decl)] = ("type", fqn)
    for fqn, e in index.enums.items():
        fqn_of[id(e.decl)] = ("type", fqn)

    def put(key, payload):
        table[key] = merge(table[key], payload) if key in table else payload

    file_level: list[tuple[str, object]] = []
    for f in files:
        got, d = attach(f, notes.get(f.source.path, []))
        diags += d
        for target, payload in got:
            kind = target[0]
            if kind == "file":
                put(("file", f.source.path), payload)
                file_level.append((f.source.path, payload))
                continue
            base = fqn_of.get(id(target[1]))
            if base is None:
                continue
            if kind == "item":
                put(base, payload)
            elif kind == "param":
                put(("param", base[1], target[2]), payload)
            else:
                put((kind, base[1], target[2]), payload)
    if file_level:
        merged: object = {}
        for _, payload in sorted(file_level, key=lambda x: x[0]):
            merged = merge(merged, payload)
        table[("program",)] = merged
    return table, diags


# ── run-time metadata objects (`prog._meta`, `prog.Fn._meta`, `Model._meta`) ──


class Meta:
    """`.ingot` (the merged payload; {} when not annotated) and, by kind, `.params`,
    `.fields` or `.variants` ({name: Meta})."""

    __slots__ = ("ingot", "params", "fields", "variants", "description")

    def __init__(self, ingot, params=None, fields=None, variants=None, description=None):
        self.ingot = ingot
        self.params = params
        self.fields = fields
        self.variants = variants
        self.description = description

    def __repr__(self) -> str:
        extra = "".join(f", {k}={getattr(self, k)!r}" for k in ("params", "fields", "variants")
                        if getattr(self, k) is not None)
        return f"Meta(ingot={self.ingot!r}{extra})"


def _get(table: dict, key):
    return table.get(key, {})


def program_meta(table: dict) -> Meta:
    return Meta(_get(table, ("program",)))


def function_meta(table: dict, fqn: str, params: list[str]) -> Meta:
    return Meta(_get(table, ("function", fqn)), params={p: Meta(_get(table, ("param", fqn, p))) for p in params})


def class_meta(table: dict, fqn: str, fields: list[str]) -> Meta:
    return Meta(_get(table, ("type", fqn)), fields={f: Meta(_get(table, ("field", fqn, f))) for f in fields})


def enum_meta(table: dict, fqn: str, variants: list[str]) -> Meta:
    return Meta(_get(table, ("type", fqn)), variants={v: Meta(_get(table, ("variant", fqn, v))) for v in variants})
