"""Rust's regex automaton, for the patterns where Python's backtracker answers otherwise: a
repetition whose body can match the empty string (`(a*)*`, `(|a)+`, `(?:a?b??)*`).

Rust compiles a pattern to a Thompson NFA (regex-automata's compiler: `x*` with a nullable `x`
as `(x+)?`, `x{n,}` as n-1 copies then a loop, `x{n,m}` unrolled) and matches leftmost-first:
a priority-ordered depth-first walk that never enters the same state twice at one position
(its bounded backtracker; the PikeVM answers the same). A loop back to where an iteration
began, at the same position, is therefore a dead end, and the walk backtracks into the body's
other choices; Python's backtracker instead ends the loop there. This module walks that NFA.

    compile(source, group_count) -> Program | None   None: Python's engine answers as Rust's

`source` is what syntax/rxsyntax.py emits: its one-character matchers and assertions are
left to the `regex` module, one atom at a time.
"""
from __future__ import annotations

import regex as _regex

# ── the emitted source, read back as a tree ──
# ("atom", matcher, width), ("cat", [nodes]), ("alt", [nodes]), ("group", k | None, node),
# ("rep", node, lo, hi | None, greedy)

_ZERO_WIDTH = ("\\A", "\\Z", "\\b", "\\B", "(?=", "(?!", "(?<=", "(?<!", "(?m:^)", "(?m:$)")


class _Unmodelled(Exception):
    """fancy-regex's own constructs: its backtracking VM, not this automaton."""


class _Reader:
    def __init__(self, src: str):
        self.s = src
        self.i = 0
        self.groups = 0

    def alt(self):
        branches = [self.cat()]
        while self.i < len(self.s) and self.s[self.i] == "|":
            self.i += 1
            branches.append(self.cat())
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def cat(self):
        items = []
        s = self.s
        while self.i < len(s) and s[self.i] not in "|)":
            if s[self.i] in "*+?{":
                items.append(self.rep(items.pop()))
            else:
                items.append(self.item())
        return items[0] if len(items) == 1 else ("cat", items)

    def item(self):
        s, i = self.s, self.i
        if s.startswith("(?:", i):
            self.i += 3
            return self.close(("group", None, self.alt()))
        if s.startswith(("(?i:", "(?s:", "(?=", "(?!", "(?<=", "(?<!", "(?m:"), i):
            return self.atom(_balanced(s, i))
        if s.startswith("(?", i):  # `(?>`: fancy-regex's atomic group
            raise _Unmodelled
        if s[i] == "(":
            self.i += 1
            self.groups += 1
            k = self.groups
            return self.close(("group", k, self.alt()))
        if s[i] == "[":
            return self.atom(_class_end(s, i))
        if s[i] == "\\":
            c = s[i + 1]
            if c in "pP":
                return self.atom(s.index("}", i) + 1 if s[i + 2] == "{" else i + 3)
            if c == "x":
                return self.atom(i + 4)
            if c in "gGK":  # backreferences, `\G`, `\K`
                raise _Unmodelled
            return self.atom(i + 2)
        return self.atom(i + 1)

    def close(self, node):
        if self.s[self.i:self.i + 1] != ")":
            raise _Unmodelled
        self.i += 1
        return node

    def atom(self, end: int):
        text = self.s[self.i:end]
        self.i = end
        return ("atom", _regex.compile(text).match, 0 if text.startswith(_ZERO_WIDTH) else 1)

    def rep(self, node):
        s = self.s
        c = s[self.i]
        if c == "{":
            close = s.index("}", self.i)
            lo, comma, hi = s[self.i + 1:close].partition(",")
            lo = int(lo)
            hi = lo if not comma else (int(hi) if hi else None)
            self.i = close + 1
        else:
            lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            self.i += 1
        greedy = True
        if s[self.i:self.i + 1] == "?":
            greedy = False
            self.i += 1
        elif s[self.i:self.i + 1] == "+":  # possessive
            raise _Unmodelled
        return ("rep", node, lo, hi, greedy)


def _balanced(s: str, i: int) -> int:
    """The end of the group opening at `s[i]`."""
    depth = 0
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
            continue
        if c == "[":
            i = _class_end(s, i)
            continue
        depth += c == "("
        depth -= c == ")"
        i += 1
        if depth == 0:
            return i
    raise _Unmodelled


def _class_end(s: str, i: int) -> int:
    i += 1
    if s[i:i + 1] == "^":
        i += 1
    first = True
    while i < len(s):
        c = s[i]
        if c == "\\":
            i += 2
        elif c == "]" and not first:
            return i + 1
        else:
            i += 1
        first = False
    raise _Unmodelled


# ── lengths, as regex-syntax computes them (None: unbounded) ──

def _min_len(node) -> int:
    kind = node[0]
    if kind == "atom":
        return node[2]
    if kind == "cat":
        return sum(map(_min_len, node[1]))
    if kind == "alt":
        return min(map(_min_len, node[1]))
    if kind == "group":
        return _min_len(node[2])
    return node[2] * _min_len(node[1])


def _max_len(node):
    kind = node[0]
    if kind == "atom":
        return node[2]
    if kind in ("cat", "alt"):
        lens = [_max_len(n) for n in node[1]]
        if None in lens:
            return None
        return sum(lens) if kind == "cat" else max(lens)
    if kind == "group":
        return _max_len(node[2])
    sub = _max_len(node[1])
    if sub == 0 or node[3] == 0:
        return 0
    return None if sub is None or node[3] is None else sub * node[3]


def _needs_automaton(node) -> bool:
    """Is there a repetition of more than one copy over a body that can match empty?"""
    kind = node[0]
    if kind == "atom":
        return False
    if kind in ("cat", "alt"):
        return any(map(_needs_automaton, node[1]))
    if kind == "group":
        return _needs_automaton(node[2])
    _, sub, lo, hi, _ = node
    return (hi is None or hi > 1) and _min_len(sub) == 0 or _needs_automaton(sub)


# ── the NFA ──
ATOM, SPLIT, SAVE, MATCH = range(4)


class _Compiler:
    """regex-automata's Thompson construction; each state a list [kind, …, next]."""

    def __init__(self):
        self.states: list = []

    def add(self, *state) -> int:
        self.states.append(list(state))
        return len(self.states) - 1

    def c(self, node, nxt: int) -> int:
        """The start of `node` compiled to continue at `nxt`."""
        kind = node[0]
        if kind == "atom":
            return self.add(ATOM, node[1], nxt)
        if kind == "cat":
            for n in reversed(node[1]):
                nxt = self.c(n, nxt)
            return nxt
        if kind == "alt":
            return self.add(SPLIT, [self.c(n, nxt) for n in node[1]])
        if kind == "group":
            if node[1] is None:
                return self.c(node[2], nxt)
            k = node[1]
            end = self.add(SAVE, 2 * k + 1, nxt)
            return self.add(SAVE, 2 * k, self.c(node[2], end))
        return self.rep(node, nxt)

    def split(self, greedy: bool, body: int, rest: int) -> list:
        return [body, rest] if greedy else [rest, body]

    def rep(self, node, nxt: int) -> int:
        _, sub, lo, hi, greedy = node
        if _max_len(sub) == 0:  # regex-syntax: a body that matches only the empty string, once at most
            lo, hi = min(lo, 1), 1 if hi is None else min(hi, 1)
        if hi is None:
            loop = self.add(SPLIT, None)
            if lo == 0 and _min_len(sub) > 0:
                loop_state = self.states[loop]
                loop_state[1] = self.split(greedy, self.c(sub, loop), nxt)
                return loop
            body = self.c(sub, loop)
            self.states[loop][1] = self.split(greedy, body, nxt)
            if lo == 0:  # `(x+)?`
                return self.add(SPLIT, self.split(greedy, body, nxt))
            for _ in range(lo - 1):
                body = self.c(sub, body)
            return body
        start = nxt
        for _ in range(hi - lo):  # the optional copies, innermost last
            start = self.add(SPLIT, self.split(greedy, self.c(sub, start), nxt))
        for _ in range(lo):
            start = self.c(sub, start)
        return start


class Match:
    """What regexlib reads of a match (the `regex` module's Match interface)."""
    __slots__ = ("string", "slots")

    def __init__(self, string: str, slots: list):
        self.string = string
        self.slots = slots

    def span(self, k: int = 0) -> tuple:
        return self.slots[2 * k], self.slots[2 * k + 1]

    def start(self) -> int:
        return self.slots[0]

    def end(self) -> int:
        return self.slots[1]

    def group(self) -> str:
        return self.string[self.slots[0]:self.slots[1]]


class Program:
    __slots__ = ("states", "start", "nslots")

    def __init__(self, states: list, start: int, nslots: int):
        self.states, self.start, self.nslots = states, start, nslots

    def search(self, text: str, pos: int = 0):
        visited: set = set()
        for at in range(pos, len(text) + 1):
            got = self._walk(text, at, False, visited)
            if got is not None:
                return got
        return None

    def fullmatch(self, text: str):
        return self._walk(text, 0, True, set())

    def _walk(self, text: str, at: int, full: bool, visited: set):
        """The leftmost-first match starting at `at` (ending at the text's end: `full`)."""
        states, stride, n = self.states, len(text) + 1, len(text)
        slots = [-1] * self.nslots
        slots[0] = at
        stack = [(self.start, at, -1, 0)]  # (state, position) to explore, or (-1, -1, slot, value) to restore
        while stack:
            sid, at, slot, value = stack.pop()
            if sid < 0:
                slots[slot] = value
                continue
            while True:
                key = sid * stride + at
                if key in visited:
                    break
                visited.add(key)
                st = states[sid]
                kind = st[0]
                if kind == ATOM:
                    m = st[1](text, at)
                    if m is None:
                        break
                    at = m.end()
                    sid = st[2]
                elif kind == SPLIT:
                    alts = st[1]
                    for alt in reversed(alts[1:]):
                        stack.append((alt, at, -1, 0))
                    sid = alts[0]
                elif kind == SAVE:
                    stack.append((-1, -1, st[1], slots[st[1]]))
                    slots[st[1]] = at
                    sid = st[2]
                else:
                    if full and at != n:
                        break
                    slots[1] = at
                    return Match(text, slots)
        return None


def compile(source: str, group_count: int) -> Program | None:
    """The automaton for `source` (the `regex` module's dialect, as rxsyntax emits it), or None
    where Python's backtracker already matches as Rust does."""
    try:
        r = _Reader(source)
        tree = r.alt()
        if r.i != len(source) or r.groups != group_count:
            return None
    except (_Unmodelled, ValueError, IndexError, _regex.error):
        return None
    if not _needs_automaton(tree):
        return None
    comp = _Compiler()
    match = comp.add(MATCH)
    start = comp.c(tree, match)
    return Program(comp.states, start, 2 * group_count + 2)
