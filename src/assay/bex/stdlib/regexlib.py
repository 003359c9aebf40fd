"""baml.regex: `new` compiles Rust's regex dialect (syntax/rxsyntax.py translates it to the
`regex` module's); a `Regex` is a builtin class whose `_handle` holds the compiled pattern.
Offsets are code points (Python's string indices), as the engine reports them."""
from __future__ import annotations

import inspect
from functools import partial

import regex as _regex

from ...syntax import rxsyntax
from ..ops import BUILTIN_CLASSES, make_builtin
from ..values import OMITTED, BamlRaise, ClassInfo, EnumInfo
from . import rxauto
from ._registry import STD_ENUMS, function

for _name, _fields in (("Group", ["text", "start", "end"]),
                       ("Match", ["text", "start", "end", "groups", "named"]),
                       ("Error", ["kind", "message", "pattern", "span_start", "span_end"]),
                       ("Regex", ["_handle"])):
    BUILTIN_CLASSES[f"baml.regex.{_name}"] = ClassInfo(f"baml.regex.{_name}", _name, _fields)
ERROR_KIND = EnumInfo("baml.regex.ErrorKind", "ErrorKind", ["Syntax", "Unsupported", "TooLarge"])
STD_ENUMS[ERROR_KIND.fqn] = ERROR_KIND
_REGEX = BUILTIN_CLASSES["baml.regex.Regex"].py
_GROUP = BUILTIN_CLASSES["baml.regex.Group"].py
_MATCH = BUILTIN_CLASSES["baml.regex.Match"].py


class Handle:
    """The compiled program behind a `Regex` (the engine's opaque `$rust_type`); one per
    `new`, as `==` on two regexes compares their handles."""
    __slots__ = ("search", "full", "names", "named", "fancy", "search_moved")
    BAML_TEXT = "<rust_data>"  # how the engine renders it

    def __init__(self, compiled: tuple):
        self.search, self.full, self.names, self.named, self.fancy, self.search_moved = compiled


_CACHE: dict = {}  # (pattern, backtracking) → what a Handle holds
_CACHE_SIZE = 4096


def compile_pattern(pattern: str, backtracking: bool) -> Handle:
    key = (pattern, backtracking)
    got = _CACHE.get(key)
    if got is None:
        bad = rxsyntax.check(pattern, backtracking)
        if bad is not None:
            _throw(pattern, *bad)
        t = rxsyntax.translate(pattern, backtracking)
        try:
            pat = _regex.compile(t.source)
        except (_regex.error, OverflowError, RecursionError) as e:  # a translation Python refuses
            _throw(pattern, "Syntax", rxsyntax.RegexSyntaxError(str(e), None, None))
        # regex-syntax drops a `{0}` repetition: its groups have no name, the last ones no slot
        count = max((k for k in range(1, len(t.names) + 1) if k not in t.dropped), default=0)
        names = t.names[:count]
        named = [(n, k + 1) for k, n in enumerate(names) if n is not None and k + 1 not in t.dropped]
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        # a search moved past an empty match: fancy-regex's `\G` is still where that match was
        moved = _regex.compile(t.source.replace(rxsyntax.G_ANCHOR, "(?!)")).search if t.anchored else pat.search
        search, full = pat.search, pat.fullmatch
        auto = rxauto.compile(t.source, len(t.names)) if t.automaton else None
        if auto is not None:  # a loop over a nullable body: Rust's automaton, not Python's backtracker
            search = moved = auto.search
            full = auto.fullmatch
        got = _CACHE[key] = (search, full, names, named, backtracking, moved)
    return Handle(got)


def _throw(pattern: str, kind: str, e: rxsyntax.RegexSyntaxError):
    raise BamlRaise(make_builtin("baml.regex.Error", kind=ERROR_KIND.variants[kind], message=e.message,
                                 pattern=pattern, span_start=e.start, span_end=e.end), panic=False)


@function("baml.regex.new")
def new(pattern, backtracking=False):
    return _compile(pattern, False if backtracking is OMITTED else backtracking)


@function("baml.regex._compile")
def _compile(pattern, backtracking):
    r = _REGEX.__new__(_REGEX)
    r.f__handle = compile_pattern(pattern, backtracking)
    return r


@function("baml.regex.escape")
def escape(literal):
    return rxsyntax.escape(literal)


def _group(h: Handle, m, k):
    s, e = m.span(k)
    if s < 0:
        return None
    g = _GROUP.__new__(_GROUP)
    g.f_text, g.f_start, g.f_end = m.string[s:e], s, e
    return g


def _match(h: Handle, m):
    out = _MATCH.__new__(_MATCH)
    s, e = m.span()
    out.f_text, out.f_start, out.f_end = m.group(), s, e
    out.f_groups = [_group(h, m, k) for k in range(len(h.names) + 1)]
    out.f_named = {n: _group(h, m, k) for n, k in h.named}
    return out


def _text(h: Handle, m, k: int) -> str | None:
    """Group k's text, None when it did not take part."""
    s, e = m.span(k)
    return None if s < 0 else m.string[s:e]


def _iter(h: Handle, text: str):
    """Every non-overlapping match, leftmost-first; an empty match right where the previous
    one ended is skipped (Rust's iteration), so the scan always moves on."""
    pos, last_end, n = 0, -1, len(text)
    while pos <= n:
        m = (h.search if pos == max(last_end, 0) else h.search_moved)(text, pos)
        if m is None:
            return
        s, e = m.span()
        if s == e == last_end:
            pos = s + 1
            continue
        yield m
        last_end = pos = e


def has_match(self, haystack):
    return self.f__handle.search(haystack) is not None


def match_once(self, haystack):
    h = self.f__handle
    m = h.search(haystack)
    return None if m is None else _match(h, m)


def match_all(self, haystack):
    h = self.f__handle
    return [_match(h, m) for m in _iter(h, haystack)]


def match_full(self, haystack):
    h = self.f__handle
    m = h.full(haystack)
    return None if m is None else _match(h, m)


def split(self, haystack):
    """The segments between matches, each participating group's text after the segment
    before it."""
    h = self.f__handle
    out, pos = [], 0
    for m in _iter(h, haystack):
        out.append(haystack[pos:m.start()])
        out.extend(t for t in (_text(h, m, k) for k in range(1, len(h.names) + 1)) if t is not None)
        pos = m.end()
    out.append(haystack[pos:])
    return out


def _replace_template(self, haystack, template):
    return _replace(self.f__handle, haystack, template, 1)


def _replace_all_template(self, haystack, template):
    return _replace(self.f__handle, haystack, template, -1)


class _Method:
    """A `Regex` method on its class (a stdlib class's methods live there): bound to a regex,
    it carries what a call with named arguments and reflection read (`baml_params`, the
    signature's key in sema/stdsigs.py)."""

    def __init__(self, fn):
        self.fn = fn
        self.params = list(inspect.signature(fn).parameters)[1:]
        self.key = ("regex", fn.__name__)

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.fn
        bound = partial(self.fn, obj)
        bound.baml_params, bound.baml_native = self.params, self.key
        return bound


for _fn in (has_match, match_once, match_all, match_full, split, _replace_template, _replace_all_template):
    setattr(_REGEX, "m_" + _fn.__name__, _Method(_fn))


def _replace(h: Handle, text: str, template: str, count: int) -> str:
    out, pos = [], 0
    for m in _iter(h, text):
        out.append(text[pos:m.start()])
        out.append(expand(template, m, h))
        pos = m.end()
        count -= 1
        if count == 0:
            break
    out.append(text[pos:])
    return "".join(out)


def _is_name_char(c: str) -> bool:
    return c == "_" or (c.isascii() and c.isalnum())


def _is_word_char(c: str) -> bool:
    return c == "_" or c.isalnum()


def expand(template: str, m, h: Handle) -> str:
    """Rust's `Captures::expand`: `$$`, `$name`/`$1` (the longest run of `[_0-9A-Za-z]`),
    `${name}`; a group that does not exist or did not participate expands to nothing.
    fancy-regex's (`backtracking = true`): names are Unicode word characters, braced ones too
    (`${}` and `${a b}` stay literal)."""
    ref = _ref_fancy if h.fancy else _ref_rust
    out, i = [], 0
    while (j := template.find("$", i)) >= 0:
        out.append(template[i:j])
        if template.startswith("$$", j):
            out.append("$")
            i = j + 2
            continue
        name, end = ref(template, j)
        if name is None:  # no reference here: a literal `$`
            out.append("$")
            i = j + 1
            continue
        out.append(_group_text(m, h, name))
        i = end
    out.append(template[i:])
    return "".join(out)


def _ref_rust(template: str, j: int) -> tuple:
    """The group name of the reference at `$` j and where it ends (None: no reference)."""
    if template.startswith("${", j):
        close = template.find("}", j + 2)
        return (template[j + 2:close], close + 1) if close >= 0 else (None, j + 1)
    end = j + 1
    while end < len(template) and _is_name_char(template[end]):
        end += 1
    return template[j + 1:end] or None, end


def _ref_fancy(template: str, j: int) -> tuple:
    braced = template.startswith("${", j)
    k = start = j + 2 if braced else j + 1
    while k < len(template) and _is_word_char(template[k]):
        k += 1
    name = template[start:k]
    if not name or (braced and not template.startswith("}", k)):
        return None, j + 1
    return name, k + 1 if braced else k


def _group_text(m, h: Handle, name: str) -> str:
    if name.isascii() and name.isdigit():
        k = int(name)
        ok = k <= len(h.names)
    else:
        k = name
        ok = name in h.names
        k = h.names.index(name) + 1 if ok else 0
    return (_text(h, m, k) or "") if ok else ""


# ── the namespace's helpers behind `string.replace` (callable, as the engine's are) ──

@function("baml.regex._replace")
def _replace_any(haystack, search, replacement, all):
    if type(search) is str:
        return haystack.replace(search, replacement, -1 if all else 1)
    return _replace(search.f__handle, haystack, replacement, -1 if all else 1)


@function("baml.regex._literal_match")
def _literal_match(text, start):
    """The Match a literal search reports: the whole match as its one group, no names."""
    out = _MATCH.__new__(_MATCH)
    g = _GROUP.__new__(_GROUP)
    g.f_text, g.f_start, g.f_end = text, start, start + len(text)
    out.f_text, out.f_start, out.f_end, out.f_groups, out.f_named = text, start, g.f_end, [g], {}
    return out


@function("baml.regex._index_of_from")
def _index_of_from(haystack, search, start):
    if not 0 <= start <= len(haystack):
        return None
    i = haystack.find(search, start)
    return None if i < 0 else i


@function("baml.regex._replace_literal_with")
def _replace_literal_with(haystack, search, f, all):
    """Each occurrence of `search` (an empty one between every two characters) replaced by
    `f` of its Match."""
    out, pos, n = [], 0, len(haystack)
    while pos <= n:
        at = _index_of_from(haystack, search, pos)
        if at is None:
            break
        out.append(haystack[pos:at])
        out.append(f(_literal_match(search, at)))
        step = len(search) or 1
        if not search:
            out.append(haystack[at:at + 1])
        pos = at + step
        if not all:
            break
    out.append(haystack[pos:])
    return "".join(out)


@function("baml.regex._replace_pattern_with")
def _replace_pattern_with(haystack, search, f, all):
    h = search.f__handle
    out, pos = [], 0
    for m in _iter(h, haystack):
        out.append(haystack[pos:m.start()])
        out.append(f(_match(h, m)))
        pos = m.end()
        if not all:
            break
    out.append(haystack[pos:])
    return "".join(out)
