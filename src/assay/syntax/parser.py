"""BAML parser: hand-written recursive descent with precedence climbing for binary operators.

Public API:
    parse_file(source) -> (ast.File, diagnostics)
    parse_type(source) -> (ast.TypeExpr | None, diagnostics)
Neither ever raises: errors are recovered from and reported as Diagnostics (code E0010 for
syntax errors, like the real engine; E9000 for constructs this implementation does not
support yet).
"""
from __future__ import annotations

import copy
import re

from . import ast
from .lexer import Lexer, Token, decode_escapes, I63_MAX
from ..source import Diagnostic, Span, SourceFile

RESERVED = frozenset("""if else while for let const break continue return throw defer match true
false null function class enum in is catch catch_all catch_all_panics testset generator retry_policy
template_string throws""".split())
# the engine's keywords that cannot name a parameter, field, variant or declaration (`const`,
# `true`, `false`, `null` and `type` can)
NAME_KEYWORDS = frozenset("""if else while for let break continue return throw defer match function
class enum in is catch catch_all catch_all_panics test testset self throws interface implements implement
instanceof spawn await generator retry_policy template_string""".split())

# binary operator -> (precedence, right-assoc)
BINOPS = {
    "??": 1, "||": 2, "&&": 3, "|": 4, "^": 5, "&": 6, "==": 7, "!=": 7, "is": 7,
    "<": 8, "<=": 8, ">": 8, ">=": 8, "<<": 9, ">>": 9, "+": 10, "-": 10,
    "*": 11, "/": 11, "%": 11,
}
ASSIGN_OPS = {"=": None, "+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "&=": "&",
              "|=": "|", "^=": "^", "<<=": "<<", ">>=": ">>"}
LLM_FIELDS = ("client", "prompt", "tools")
UNSUPPORTED_ITEMS: dict[str, str] = {}  # (a `client` without a name is the engine's stray token)
# declarations the engine removed: E0010 over the whole block, with its advice
REMOVED_ITEMS = {
    "retry_policy": "`retry_policy` blocks are removed; wrap the client instead: `client Reliable = "
                    "ai.Retry.new(<inner>, max_attempts = ...);` (`{name}` has no effect)",
    "template_string": "`template_string` declarations are no longer supported. Use a function "
                       "returning a backtick string instead.",
}
# words that start a declaration on a new line: where recovery stops skipping
TOP_KEYWORDS = frozenset("""function class enum type test testset interface implements implement client
retry_policy template_string generator""".split())
MAX_DEPTH = 150
# after `a<T>`, tokens that make it a specialized function reference rather than comparisons
_TYPE_REF_FOLLOW = frozenset([";", ")", "]", "}", ",", ".", "==", "!=", "&&", "||", "??"])
# tokens that start an element of an array or map literal (the engine needs no comma before one)
_ELEMENT_START = frozenset(["ident", "int", "float", "bigint", "str", "rawstr", "bytestr", "template"])


# keywords the engine reads as no name: not as a member after `.` / `?.`, nor starting a field's
# type (its E0010 at them; other keywords are names there)
NOT_NAMES = frozenset("""let return if else for while match test testset in is catch catch_all throw
throws break continue defer generator retry_policy""".split())
# declaration keywords that end every open block where a statement could start: the engine
# reports the missing `}` there and still checks the item it closed
BLOCK_ENDERS = frozenset(["function", "class", "enum", "interface", "implements", "implement"])


class _Bail(Exception):
    """Raised when nesting is too deep; caught at item level."""


def _describe(tok: Token) -> str:
    k = tok.kind
    if k == "eof":
        return "EOF"
    if k == "ident":
        return tok.text if tok.text in RESERVED else "identifier"
    if k == "op":
        return f"'{tok.text}'"
    if k in ("int", "bigint"):
        return "integer"
    if k == "float":
        return "float"
    if k == "template":
        return "backtick string"
    return "string"


class Parser:
    def __init__(self, file: SourceFile, toks: list[Token], diags: list[Diagnostic], lexer: Lexer):
        self.file = file
        self.toks = toks
        self.i = 0
        self.diags = diags
        self.lexer = lexer
        self.clients: list[ast.ClientDecl] = []
        self.depth = 0
        self.no_struct = False
        self.let_type = -1  # where a `let`'s written type starts (`let x: _[]`: E0010)
        self.in_testset = False  # in a testset's body (not one of its tests'): `test` is allowed
        self.under_testset = False  # within a testset, its tests' bodies too: `testset` is allowed
        self.in_step = False  # parsing a C-style `for`'s step
        self.no_catch = -1  # parser depth at which a postfix `catch` is left to a throw/return
        self._match: dict[int, int] | None = None
        self.last_err = -1
        self.splits: list[tuple[int, Token]] = []  # `>>` tokens close_angle split (index, original)
        self.stmt_start: int | None = None  # token index where the statement being parsed began

    # ───────────── token helpers ─────────────
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else self.toks[-1]

    def at(self, text: str) -> bool:
        t = self.toks[self.i]
        return t.text == text and t.kind in ("op", "ident")

    def at_ident(self) -> bool:
        t = self.toks[self.i]
        return t.kind == "ident" and t.text not in RESERVED

    def at_block_ender(self) -> bool:
        t = self.toks[self.i]
        return t.kind == "ident" and t.text in BLOCK_ENDERS

    def advance(self) -> Token:
        t = self.toks[self.i]
        if t.kind != "eof":
            self.i += 1
        return t

    def eat(self, text: str) -> bool:
        if self.at(text):
            self.advance()
            return True
        return False

    @property
    def prev_end(self) -> int:
        return self.toks[self.i - 1].end if self.i > 0 else 0

    def span(self, start: int) -> Span:
        return Span(self.file, start, max(start, self.prev_end))

    def sp(self, s: int, e: int) -> Span:
        return Span(self.file, s, max(s, e))

    def error(self, msg: str, tok: Token | None = None, code: str = "E0010", start=None, end=None):
        t = self.tok if tok is None else tok
        s = t.start if start is None else start
        e = t.end if end is None else end
        if code == "E0010" and s == self.last_err:
            return
        if code == "E0010":
            self.last_err = s
        self.diags.append(Diagnostic(Span(self.file, s, max(s, e)), code, msg))

    def expected(self, what: str, tok: Token | None = None):
        t = tok or self.tok
        self.error(f"unexpected token: expected `{what}`, found `{_describe(t)}`", t)

    def expect(self, text: str, what: str | None = None) -> bool:
        if self.eat(text):
            return True
        self.expected(what or f"'{text}'")
        return False

    def unsupported(self, what: str, s: int, e: int):
        self.diags.append(Diagnostic(Span(self.file, s, max(s, e)), "E9000", f"{what} is not supported yet"))

    def matching(self, idx: int) -> int:
        """Index of the bracket closing the one at `idx` (or -1)."""
        if self._match is None:
            m: dict[int, int] = {}
            stack: list[int] = []
            pairs = {")": "(", "]": "[", "}": "{"}
            for j, t in enumerate(self.toks):
                if t.kind != "op":
                    continue
                x = t.text
                if x in "([{":
                    stack.append(j)
                elif x in pairs:
                    while stack and self.toks[stack[-1]].text != pairs[x]:
                        stack.pop()
                    if stack:
                        m[stack.pop()] = j
            self._match = m
        return self._match.get(idx, -1)

    def enter(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.depth = 0
            self.error("nesting is too deep")
            raise _Bail()

    def ident(self, what: str = "identifier") -> str | None:
        if self.tok.kind == "ident":
            return self.advance().text
        self.expected(what)
        return None

    def decl_name(self, kind: str, s: int, extra=()) -> str:
        """A declaration's name; a keyword there is the engine's E0107 at the declaration."""
        t = self.tok
        if t.kind == "ident" and (t.text in NAME_KEYWORDS or t.text in extra):
            self.diags.append(Diagnostic(self.sp(s, t.start), "E0107", f"{kind} is missing a name"))
            self.expected(f"{kind} name")
            self.advance()
            return "<error>"
        if t.kind != "ident":  # `class { … }`: E0107 at the declaration, then the token
            self.diags.append(Diagnostic(self.sp(s, t.start), "E0107", f"{kind} is missing a name"))
        return self.ident(f"{kind} name") or "<error>"

    def type_or_e0108(self, what: str) -> ast.TypeExpr:
        """A declaration's type; where nothing type-like starts it the engine adds E0108 (at the
        `[` it takes in, else right after the previous token)."""
        nd, st, pe = len(self.diags), self.tok, self.prev_end
        ty = self.type_expr()
        if st.text != "|" and any(d.span.start == st.start and d.code == "E0010" for d in self.diags[nd:]):
            sp = self.sp(st.start, st.end) if st.text == "[" else self.sp(pe, pe)
            self.diags.append(Diagnostic(sp, "E0108", f"could not parse type expression for {what}"))
        return ty

    def skip_balanced(self):
        """Skip one token, or a whole bracketed group when at an opening bracket."""
        t = self.tok
        if t.kind == "op" and t.text in "([{":
            j = self.matching(self.i)
            if j > 0:
                self.i = j + 1
                return
        self.advance()

    # ───────────── items ─────────────
    def parse_file(self) -> tuple[list, list]:
        items: list = []
        impls: list = []
        while self.tok.kind != "eof":
            start_i = self.i
            try:
                self.item(items, impls)
            except _Bail:
                self.recover_top()
            if self.i == start_i:
                self.expected("top-level declaration")
                self.advance()
                self.recover_top()
        return items, impls

    def recover_top(self):
        while self.tok.kind != "eof":
            t = self.tok
            if t.kind == "ident" and t.nl and t.text in TOP_KEYWORDS:
                return
            if t.kind == "op" and t.text in ("@@",) and t.nl:
                return
            self.skip_balanced()

    def attrs(self, allow2: bool = True) -> list[ast.Attribute]:
        out = []
        while self.tok.kind == "op" and self.tok.text in ("@", "@@"):
            if self.tok.text == "@@" and not allow2:
                break  # `@@x` after an enum variant belongs to the enum
            s = self.tok.start
            at = self.advance()
            level = 2 if at.text == "@@" else 1
            name_parts = []
            nt = self.tok
            # a name missing at EOF, or after a lone `@` on the next line: the engine points at the `@`
            n = self.ident("attribute name") if nt.kind != "eof" and not (level == 1 and nt.nl) else None
            if n is None:
                if self.last_err != nt.start:
                    self.expected("attribute name", nt)
                    self.diags[-1].span = self.sp(at.start, at.end)
                break
            name_parts.append(n)
            while self.at(".") and self.peek().kind == "ident" and not self.peek().nl:
                self.advance()
                name_parts.append(self.advance().text)
            args: list[ast.Expr] = []
            if self.at("(") and not self.tok.nl:
                self.advance()
                while not self.at(")") and self.tok.kind != "eof":
                    b = self.i
                    args.append(self.expr())
                    if not self.eat(","):
                        break
                    if self.i == b:
                        break
                self.expect(")")
            out.append(ast.Attribute(self.span(s), ".".join(name_parts), args, level))
        return out

    def item(self, items: list, impls: list):
        t = self.tok
        doc = t.doc
        s = t.start
        attrs = self.attrs()
        first, t = t, self.tok
        if t.kind != "ident":
            if attrs:  # attributes that no declaration follows: the engine points at them
                self.expected("top-level declaration", first)
            return
        kw = t.text
        # the engine takes `@x` before no declaration, `@@x` only before a function, class, enum or
        # interface: elsewhere it is a stray token (its E0010; the declaration is read as written)
        stray = [a for a in attrs if a.level == 1 or kw not in ("function", "class", "enum", "interface")]
        if stray:
            a = stray[0]
            self.error(f"unexpected token: expected `top-level declaration`, found `'{'@' * a.level}'`",
                       start=a.span.start, end=a.span.start + a.level)
            attrs = [a for a in attrs if a not in stray]
        if kw == "function":
            f = self.function(s, attrs, doc)
            if f is not None:
                f.tagged_string = self.tagged_string_marker(s)
                items.append(f)
        elif kw == "class":
            items.append(self.class_decl(s, attrs, doc))
        elif kw == "enum":
            items.append(self.enum_decl(s, attrs, doc))
        elif kw == "type" and self.peek().text == "=":  # `type = int`
            self.diags.append(Diagnostic(self.sp(s, self.advance().end), "E0107", "type alias is missing a name"))
            self.expected("type alias name")
            self.advance()
            self.type_expr()
            self.eat(";")
        elif kw == "type" and self.peek().kind == "ident":
            self.advance()
            nt = self.advance()
            self.expect("=")
            ty = self.type_or_e0108(f"type alias `{nt.text}`")
            self.eat(";")
            items.append(ast.TypeAlias(self.span(s), nt.text, self.sp(nt.start, nt.end), ty))
        elif kw == "test" and self.peek().kind == "ident" and self.peek(2).text == "{" and \
                self.peek(3).text == "functions":
            self.advance()
            self.diags.append(Diagnostic(self.sp(s, self.advance().end), "E0098", "removed language "
                                         "feature: legacy test declarations were removed; use an "
                                         'expression-body test with a quoted name: `test "Name" { … }`'))
            self.skip_balanced()
        elif kw in ("test", "testset"):
            d = self.test_decl(s, kw == "testset")
            if d is not None:
                items.append(d)
        elif kw == "interface":
            items.append(self.interface_decl(s, attrs, doc))
        elif kw in ("implements", "implement"):
            d = self.impl_decl(s, standalone=True)
            if d is not None:
                impls.append(d)
        elif kw == "const" and self.peek().kind == "ident":
            g = self.global_decl(s)
            if g is not None:
                items.append(g)
        elif kw == "client" and (self.peek().kind == "ident" or self.peek().text == "<"):
            c = self.client_decl(s)
            if c is not None:
                self.clients.append(c)
                items.append(_client_global(c))
        elif kw in REMOVED_ITEMS:
            self.advance()
            name = self.tok.text if self.tok.kind == "ident" else ""
            self.skip_item()
            self.error(REMOVED_ITEMS[kw].format(name=name), start=s, end=self.prev_end)
        elif kw == "generator":  # code-generation settings: accepted, no effect on the program
            self.advance()
            self.skip_item()
        elif kw in UNSUPPORTED_ITEMS:
            self.advance()
            self.skip_item()
            self.unsupported(UNSUPPORTED_ITEMS[kw], s, self.prev_end)
        else:
            self.expected("top-level declaration")
            self.advance()
            self.recover_top()

    def tagged_template(self, tag: ast.Expr, s: int) -> ast.Call:
        """`` tag`…${x}…` ``: the engine's `tag(body = () -> baml.TaggedString { … })`, the
        template's literal parts and values collected instead of rendered."""
        tpl = self.primary()
        if isinstance(tpl, ast.Template):
            tpl.tagged = True
        else:  # a template without interpolations reads as a string literal
            tpl = ast.Template(tpl.span, [tpl.value] if isinstance(tpl, ast.StrLit) else [], True)
        ret = ast.TName(tpl.span, ["baml", "TaggedString"])
        body = ast.Lambda(tpl.span, [], ret, None, ast.Block(tpl.span, [], tpl))
        call = ast.Call(self.span(s), tag, [ast.Arg(tpl.span, "body", body)])
        call.tagged = True
        return call

    def tagged_string_marker(self, s: int) -> bool:
        """Is `//baml:tagged_string` among the comment (and blank) lines right above offset s?"""
        text = self.file.text
        end = text.rfind("\n", 0, s) + 1  # the start of the declaration's line
        while end > 0:  # line by line upwards, only through the comment lines
            start = text.rfind("\n", 0, end - 1) + 1
            line = text[start:end].strip()
            if line == "//baml:tagged_string":
                return True
            if line and not line.startswith("//"):
                return False
            end = start
        return False

    # ───────────── tests and testsets ─────────────
    def test_head(self, is_set: bool, top: bool):
        """`test NAME [with RUNNER]` / `testset NAME [with RUNNER]` (the keyword is next):
        (name, runner). A top-level testset's name must be a quoted string."""
        self.advance()
        save, self.no_struct = self.no_struct, False  # as the engine: `test n { }` is `n { }`, a class literal
        try:
            t = self.tok
            if top and is_set and t.kind == "ident" and t.text != "with":
                self.error('invalid syntax: testset names must be quoted strings: '
                           f'`testset "{t.text}"`', t)
            name = self.expr()
            runner = None
            if self.eat("with"):
                self.runner_start = self.tok.start  # `(3)`: its literal is no bare literal
                runner = self.expr()
        finally:
            self.no_struct = save
        return name, runner

    def test_body(self, is_set: bool) -> ast.Block | None:
        """A testset's body (where `test` and `testset` are allowed) or a test's (where only
        `testset` is, and only under a testset: the engine's rule)."""
        if not self.at("{"):
            self.expected("testset body" if is_set else "test body")
            return None
        save = self.in_testset, self.under_testset
        self.in_testset, self.under_testset = is_set, self.under_testset or is_set
        try:
            return self.block()
        finally:
            self.in_testset, self.under_testset = save

    def test_decl(self, s: int, is_set: bool):
        """A top-level `test`/`testset`."""
        name, runner = self.test_head(is_set, top=True)
        body = self.test_body(is_set)
        if body is None:
            self.recover_top()
            return None
        literal = name.value if isinstance(name, ast.StrLit) else None
        d = ast.TestDecl(self.span(s), literal or "", body, is_set=is_set, runner=runner,
                         name_expr=None if literal is not None else name)
        if is_set or runner is not None or literal is None:
            d.body = ast.Block(body.span, [self.registration(d.span, is_set, name, runner, body)], None)
        return d

    def test_stmt(self, s: int, is_set: bool):
        """A `test`/`testset` inside a testset: its registration with the testset being
        collected; anywhere else the engine's E0010."""
        kw = self.tok
        allowed = self.under_testset if is_set else self.in_testset
        if not allowed:
            self.error(f"invalid syntax: {kw.text} blocks are only allowed at the top level or inside "
                       "a testset", kw)
        name, runner = self.test_head(is_set, top=False)
        body = self.test_body(is_set)
        if not allowed:
            return None
        if body is None:  # its name and runner are still checked (`with r { }`: a class literal)
            body = ast.Block(self.span(s), [], None)
        if isinstance(runner, (ast.IntLit, ast.FloatLit, ast.BoolLit, ast.BigIntLit)) \
                and runner.span.start == self.runner_start:
            runner = copy.copy(runner)  # the engine reports a bare literal runner's type at the statement
            runner.span = self.span(s)
        return self.registration(self.span(s), is_set, name, runner, body)

    def registration(self, span: Span, is_set: bool, name, runner, body: ast.Block) -> ast.ExprStmt:
        """`testing.$register_test[_set](name, () -> void { body }, runner)`: as the engine's
        `$init_test`, a testset's body runs when it is collected, a test's when it is run."""
        fn = "$register_test_set" if is_set else "$register_test"
        void = ast.TName(body.span, ["void"])
        args = [ast.Arg(name.span, None, name),
                ast.Arg(body.span, None, ast.Lambda(body.span, [], void, None, body)),
                ast.Arg(span, None, runner if runner is not None else ast.NullLit(span))]
        callee = ast.Field(span, ast.Name(span, "testing"), fn)
        return ast.ExprStmt(span, ast.Call(span, callee, args))

    def skip_item(self):
        """Skip an unsupported item: up to and including its first top-level `{…}` group or `;`."""
        while self.tok.kind != "eof":
            if self.at("{"):
                self.skip_balanced()
                self.eat(";")
                return
            if self.at(";"):
                self.advance()
                return
            if self.tok.nl and self.tok.kind == "ident" and self.tok.text in TOP_KEYWORDS:
                return
            self.skip_balanced()

    def generics(self, fn: bool = False) -> list[ast.Generic]:
        out = []
        if not self.at("<"):
            return out
        self.advance()
        while self.tok.kind == "ident":
            if self.tok.text in RESERVED:  # `<return>`: a function's misses a parameter's name (E0107)
                if fn:
                    self.diags.append(Diagnostic(self.sp(self.tok.start, self.tok.start), "E0107",
                                                 "type parameter is missing a name"))
                self.expected("type parameter name")
                break
            gs = self.tok.start
            name = self.advance().text
            bounds = []
            if self.eat("extends"):
                bounds.append(self.type_expr(union=False))
                while self.eat("&"):
                    bounds.append(self.type_expr(union=False))
            out.append(ast.Generic(self.span(gs), name, bounds))
            if not self.eat(","):
                break
        self.close_angle()
        return out

    def close_angle(self) -> bool:
        t = self.tok
        if t.kind == "op" and t.text.startswith(">"):
            if t.text == ">":
                self.advance()
            else:  # split `>>`, `>=`, `>>=`
                rest = t.text[1:]
                self.splits.append((self.i, t))
                self.toks[self.i] = Token("op", rest, t.start + 1, t.end, False)
            return True
        self.expected("'>'")
        return False

    def function(self, s: int, attrs, doc, in_class: bool = False,
                 abstract: bool = False) -> ast.Function | None:
        self.advance()  # 'function'
        nt = self.tok
        name = self.decl_name("function", s, extra=("client",))
        name_span = self.sp(nt.start, nt.end)
        gens = self.generics(fn=True)
        params: list[ast.Param] = []
        has_self = False
        if not self.at("("):  # `function f -> int`: the engine misses a parameter first
            self.diags.append(Diagnostic(self.sp(self.prev_end, self.prev_end), "E0107",
                                         f"parameter in function `{name}` is missing a name"))
        if self.expect("(", "'('"):
            first = True
            while not self.at(")") and self.tok.kind != "eof":
                b = self.i
                if self.at("self") and (first or self.peek().text in (",", ")", ":")):
                    st = self.advance()  # the engine reads `self` as the receiver anywhere
                    if has_self:
                        self.diags.append(Diagnostic(self.sp(st.start, st.end), "E0012",
                                                     f"duplicate parameter `self` in `{name}`"))
                    has_self = True
                else:
                    if self.tok.kind != "ident" or self.tok.text in NAME_KEYWORDS:
                        pe = self.prev_end  # right after the `(` or `,` (a keyword there too)
                        self.diags.append(Diagnostic(Span(self.file, pe, pe), "E0107",
                                                     f"parameter in function `{name}` is missing a name"))
                    p = self.param(typed=True)
                    if p is None:
                        return self.broken_signature(s, name, name_span, gens, params, attrs, has_self, doc,
                                                     in_class)
                    params.append(p)
                first = False
                if not self.eat(","):
                    if not self.at(")"):
                        self.expected("')'")
                        return self.broken_signature(s, name, name_span, gens, params, attrs, has_self, doc,
                                                     in_class)
                    break
                if self.i == b:
                    break
            self.expect(")")
        ret = throws = None
        if self.at("->") or self.at("=>"):
            self.advance()
            ret = self.type_or_e0108(f"return type of `{name}`")
            if self.eat("throws"):
                throws = self.type_expr()
        else:
            self.expected("return type (->)")
            if not self.at("{"):
                if not in_class:
                    self.recover_top()
                # kept without a body, as the engine keeps it: its signature's types are resolved
                return ast.Function(self.span(s), name, name_span, gens, params, None, None, None, attrs,
                                    has_self, doc)
        if self.eat("throws"):
            throws = self.type_expr()
        body = None
        if self.at("{"):
            # LLM function bodies: `client: …` / `prompt: …`
            p1, p2 = self.peek(), self.peek(2)
            if p1.kind == "ident" and p1.text in LLM_FIELDS and p2.text == ":" and p2.kind == "op":
                llm = self.llm_body(name)
                body = ast.Block(llm.span, [], ast.LlmCall(llm.span))
                return ast.Function(self.span(s), name, name_span, gens, params, ret, throws, body, attrs,
                                    has_self, doc, llm)
            body = self.block()
        elif abstract:  # an interface method without a default body
            self.eat(";")
        else:
            self.expected("'{'")
            if not in_class:
                self.recover_top()
        if not abstract and body is not None:  # `throws _`: inferred from the body, as if omitted
            throws = _unless_hole(throws)
        return ast.Function(self.span(s), name, name_span, gens, params, ret, throws, body, attrs,
                            has_self, doc)

    def broken_signature(self, s, name, name_span, gens, params, attrs, has_self, doc, in_class):
        """A parameter list that breaks ends the function there, as the engine's parser does: it is
        kept with what was read (no result, no throws, no body); the rest is read as what follows
        it (top-level junk, or members of the class or interface)."""
        if not in_class:
            self.recover_top()
        return ast.Function(self.span(s), name, name_span, gens, params, None, None, None, attrs, has_self, doc)

    def llm_body(self, fname: str) -> ast.LlmBody:
        """`{ client: … prompt: … tools: … }` (any order, each once), as the engine parses it."""
        s = self.tok.start
        self.advance()  # '{'
        fields: dict[str, ast.Expr] = {}
        while not self.at("}") and self.tok.kind != "eof":
            t = self.tok
            if t.kind == "ident" and t.text in LLM_FIELDS and self.peek().text == ":":
                self.advance()
                self.advance()
                if t.text in fields:
                    self.error(f"unexpected token: expected `Duplicate '{t.text}' field`, found `{t.text}`", t)
                value = self.llm_prompt() if t.text == "prompt" else self.expr()
                if value is not None:
                    fields.setdefault(t.text, value)
                continue
            shown = "`" if t.kind == "template" else t.text
            self.error(f"unexpected token: expected `Only 'client', 'tools' and 'prompt' allowed in LLM "
                       f"function, found '{shown}'`, found `{_describe(t)}`", t)
            self.advance()
        close = self.tok
        self.expect("}")
        for f in ("client", "prompt"):
            if f not in fields:
                self.error(f"unexpected token: expected `LLM function missing '{f}' field`, found "
                           f"`{_describe(close)}`", close)
                break
        body = ast.LlmBody(self.span(s), fields.get("client"), fields.get("prompt") or ast.StrLit(self.span(s), ""),
                           fields.get("tools"))
        problem = _client_problem(body.client)
        if problem:
            self.diags.append(Diagnostic(body.span, "E0010", f"LLM function `{fname}` has an unusable "
                                         f"`client`: {problem}"))
        return body

    def llm_prompt(self) -> ast.Expr | None:
        t = self.tok
        if t.kind == "rawstr" and t.text.startswith("#"):  # a Jinja prompt: E0010 here, not the literal's E0098
            self.diags[:] = [d for d in self.diags if not (d.code == "E0098" and d.span.start == t.start)]
            self.advance()
            self.error('Jinja `#"..."#` prompts are no longer supported. Use a backtick prompt with '
                       '`${...}` interpolation instead.', t, start=t.start, end=t.end)
            return None
        if t.kind in ("str", "rawstr"):
            self.advance()
            return ast.StrLit(self.span(t.start), t.value)
        if t.kind == "template":
            self.advance()
            return _llm_template(self.template(t))
        if t.kind == "op" and t.text == "#":
            while self.at("#"):
                self.advance()
            if self.tok.kind in ("str", "rawstr"):
                self.advance()
            while self.at("#") and self.tok.start == self.prev_end:
                self.advance()
            self.error('Jinja `#"..."#` prompts are no longer supported. Use a backtick prompt with '
                       '`${...}` interpolation instead.', t, start=t.start, end=self.prev_end)
            return None
        self.expected("prompt string")
        self.advance()
        return None

    def global_decl(self, s: int) -> "ast.Function | None":
        """`const NAME (: T)? = expr;`: a global, set once at startup. It is kept as a function of
        no parameters that computes the value (`is_global`); a read of NAME reads that value."""
        self.advance()  # 'const'
        nt = self.tok
        name = self.ident("global name")
        ty = self.type_expr() if name is not None and self.eat(":") else None
        if name is None or not self.expect("=", "'='"):
            self.recover_top()
            return None
        value = self.expr()
        self.eat(";")
        f = ast.Function(self.span(s), name, self.sp(nt.start, nt.end), [], [], ty, None,
                         ast.Block(value.span, [], value))
        f.is_global = True
        return f

    def client_decl(self, s: int) -> "ast.ClientDecl | None":
        """`client Name = <expr>;` (0.23.0); `client<llm> Name { … }` blocks are removed."""
        self.advance()  # 'client'
        if self.at("<"):
            self.skip_item()
            self.error("`client<llm>` config blocks are removed; declare a client value instead: "
                       '`client MyClient = openai.ResponsesClient.new(model = "...");` (compose '
                       "reliability with ai.Retry / ai.Fallback / ai.RoundRobin)", start=s, end=self.prev_end)
            return None
        nt = self.tok
        name = self.ident("client name")
        if name is not None and not self.at("="):  # `client C { … }`: the removed block, unmarked
            self.skip_item()
            self.error("`client<llm>` config blocks are removed; declare a client value instead: "
                       f'`client {name} = openai.ResponsesClient.new(model = "...");`', start=s, end=self.prev_end)
            return None
        if name is None or not self.expect("=", "'='"):
            self.recover_top()
            return None
        value = self.expr()
        self.eat(";")
        return ast.ClientDecl(self.span(s), name, self.sp(nt.start, nt.end), value)

    def param(self, typed: bool) -> ast.Param | None:
        s = self.tok.start
        if self.tok.kind != "ident" or self.tok.text in NAME_KEYWORDS:
            self.expected("parameter name")
            return None
        name = self.advance().text
        ty = None
        if self.eat(":"):  # a lambda's unparseable one is also the engine's E0108
            ty = self.type_expr() if typed else self.type_or_e0108(f"parameter `{name}` in `lambda`")
        elif typed and self.tok.kind in ("ident", "str", "int") or self.at("("):
            if typed:
                ty = self.type_expr()
        elif typed:
            self.expected("type annotation")  # a function's parameters are typed (a lambda's need not be)
        default = None
        if self.at("="):
            self.advance()
            default = self.expr()
        return ast.Param(self.span(s), name, ty, default)

    def class_decl(self, s: int, attrs, doc) -> ast.ClassDecl:
        self.advance()  # class
        nt = self.tok
        name = self.decl_name("class", s)
        gens = self.generics()
        fields: list[ast.ClassField] = []
        methods: list[ast.Function] = []
        impls: list = []
        if self.expect("{"):
            while not self.at("}") and self.tok.kind != "eof":
                b = self.i
                t = self.tok
                fdoc = t.doc
                if t.kind == "op" and t.text == "@@":
                    fa = self.attrs()
                    if self.at("function"):  # the method's (none is valid there: E0015/E0016)
                        f = self.function(t.start, fa, fdoc, in_class=True)
                        if f:
                            methods.append(f)
                    else:
                        attrs.extend(fa)
                elif t.kind == "op" and t.text == "@":
                    if not fields:  # no field for it: the engine's stray token
                        self.expected("Unexpected token in class body")
                        self.advance()
                        continue
                    fields[-1].attrs.extend(self.attrs())  # after a field's comma or newline: the field's
                elif t.kind == "ident" and t.text == "function":
                    f = self.function(t.start, [], fdoc, in_class=True)
                    if f:
                        methods.append(f)
                elif t.kind == "ident" and t.text in ("implements", "implement"):
                    d = self.impl_decl(t.start, standalone=False)
                    if d is not None:
                        impls.append(d)
                elif t.kind == "ident" and t.text not in NAME_KEYWORDS:
                    fs = t.start
                    fname = self.advance().text
                    self.eat(":")
                    nxt = self.tok
                    if nxt.kind == "op" and nxt.text not in ("(", "-") or nxt.kind == "ident" and (
                            nxt.nl or nxt.text in NOT_NAMES) or nxt.kind == "template" \
                            or nxt.kind == "eof":
                        self.error(f"invalid syntax: field '{fname}' is missing a type annotation", t)
                        ty = ast.TName(self.sp(fs, t.end), ["unknown"])
                    else:
                        ty = self.type_expr()
                    fattrs = self.attrs(allow2=False) if self.at("@") else []
                    fields.append(ast.ClassField(self.span(fs), fname, ty, fattrs, fdoc))
                    self.eat(",") or self.eat(";")  # the engine takes either separator
                else:
                    self.expected("class member")
                    self.skip_balanced()
                if self.i == b:
                    self.advance()
            self.expect("}")
        d = ast.ClassDecl(self.span(s), name, self.sp(nt.start, nt.end), gens, fields, methods, attrs, doc)
        if impls:
            d.impls = impls
        return d

    def braced_members(self, member) -> None:
        """`{ member* }`: `member(first token, attributes)` reads one member (any it cannot
        read, it reports and skips)."""
        if self.expect("{"):
            while not self.at("}") and self.tok.kind != "eof":
                b, t = self.i, self.tok
                member(t, self.attrs())
                if self.i == b:
                    self.advance()
            self.expect("}")

    def impl_decl(self, s: int, standalone: bool):
        self.advance()  # implements / implement
        gens = self.generics() if standalone else []
        iface = self.type_expr(union=False)
        target = None
        if standalone:
            if self.expect("for"):
                target = self.type_expr()  # a union parses (the checker's E0138 at it)
        d = ast.ImplBlock(self.span(s), iface, target, gens, [])

        def member(t, fa):
            if self.at("function"):
                f = self.function(t.start, fa, t.doc, in_class=True)
                if f:
                    d.methods.append(f)
            elif self.at("type") and self.peek().kind == "ident":
                self.advance()  # associated type binding: `type Item = T`
                nt = self.advance()
                if self.expect("="):
                    d.assoc[nt.text] = self.type_expr()
                    d.assoc_spans[nt.text] = self.sp(nt.start, nt.end)
                self.eat(";")
            elif t.kind == "ident" and self.peek().text == "as" and self.peek(2).kind == "ident":
                self.advance()  # a field alias: `host as config_host`
                self.advance()
                ct = self.advance()
                d.aliases[t.text] = (ct.text, self.sp(t.start, ct.end))
                self.eat(",")
            else:
                self.expected("'function'")
                self.skip_balanced()
        self.braced_members(member)
        d.span = self.span(s)
        return d

    def interface_decl(self, s: int, attrs, doc) -> ast.InterfaceDecl:
        self.advance()  # interface
        nt = self.tok
        name = self.ident("interface name") or "<error>"
        d = ast.InterfaceDecl(self.span(s), name, self.sp(nt.start, nt.end), self.generics(), [],
                              [], [], [], attrs, doc)
        if self.eat("requires"):
            d.requires.append(self.type_expr(union=False))
            while self.eat(","):
                d.requires.append(self.type_expr(union=False))

        def member(t, fa):
            if self.at("function"):
                f = self.function(t.start, fa, t.doc, in_class=True, abstract=True)
                if f:
                    d.methods.append(f)
            elif self.at("type") and self.peek().kind == "ident":
                self.advance()
                at = self.advance()
                default = self.type_expr() if self.eat("=") else None  # `type Error = never`
                d.assoc.append((at.text, self.sp(at.start, at.end), default))
                self.eat(";")
            elif t.kind == "ident":
                self.advance()
                self.eat(":")  # optional, as in class fields: `value string`
                nxt = self.tok
                if nxt.kind == "op" and nxt.text in ("}", ",", ";") or nxt.kind == "eof" or \
                        nxt.nl and nxt.kind == "ident":
                    self.error(f"invalid syntax: field '{t.text}' is missing a type annotation", t)
                    return
                d.fields.append(ast.ClassField(self.span(t.start), t.text, self.type_expr(), [], t.doc))
                self.eat(",") or self.eat(";")
            else:
                self.expected("interface member")
                self.skip_balanced()
        self.braced_members(member)
        d.span = self.span(s)
        return d

    def enum_decl(self, s: int, attrs, doc) -> ast.EnumDecl:
        self.advance()
        nt = self.tok
        name = self.decl_name("enum", s)
        variants: list[ast.EnumVariant] = []
        if self.expect("{"):
            while not self.at("}") and self.tok.kind != "eof":
                t = self.tok
                if t.kind == "op" and t.text == "@@":
                    attrs.extend(self.attrs())
                elif t.kind == "ident" and variants and self.peek().text == "<":
                    # `A B<…>`: the engine reads B<…> as a type written for the variant before
                    self.error("invalid syntax: enum variants cannot have type annotations", t,
                               end=self.peek().end)
                    self.advance()
                    self.advance()
                elif t.kind == "ident" and t.text not in NAME_KEYWORDS:
                    self.advance()
                    va = self.attrs(allow2=False) if self.at("@") else []
                    variants.append(ast.EnumVariant(self.span(t.start), t.text, va, t.doc))
                    self.eat(",") or self.eat(";")
                else:
                    self.expected("Unexpected token in enum body")
                    self.skip_balanced()
            self.expect("}")
        return ast.EnumDecl(self.span(s), name, self.sp(nt.start, nt.end), variants, attrs, doc)

    # ───────────── types ─────────────
    def type_expr(self, union: bool = True) -> ast.TypeExpr:
        s = self.tok.start
        if union and self.at("|"):  # no leading `|` (the engine's E0010 at it; the rest is read)
            self.expected("type")
            self.advance()
        t = self.type_postfix()
        if union and self.at("|"):
            members = [t]
            while self.eat("|"):
                members.append(self.type_postfix())
            return ast.TUnion(self.span(s), members)
        return t

    def type_postfix(self, base: ast.TypeExpr | None = None, s: int | None = None) -> ast.TypeExpr:
        """A type atom (or `base`, already parsed from `s`) with its `[]`/`?` suffixes."""
        if base is None:
            s = self.tok.start
        t = self.type_atom() if base is None else base
        while True:
            if s == self.let_type and isinstance(t, ast.TName) and t.path == ["_"] and not t.args \
                    and not self.tok.nl and any(map(self.at, ("[", "?", "??"))):  # `let x: _[]`: no suffix
                self.error(f"unexpected token `{self.tok.text}` after the `_` wildcard type")
            if self.at("[") and not self.tok.nl:  # `int[`: the engine wants the `]` next
                self.advance()
                self.expect("]")
                t = ast.TArray(self.span(s), t)
            elif self.at("?") and not self.tok.nl:
                self.advance()
                t = ast.TOptional(self.span(s), t)
            elif self.at("??") and not self.tok.nl:
                self.advance()
                t = ast.TOptional(self.span(s), ast.TOptional(self.span(s), t))
            else:
                return t

    def expr_type_args(self) -> list[ast.TypeExpr]:
        """An expression's `<…>` (generic_call_ahead said so): `<>` is none, as the engine reads it."""
        if self.peek().kind == "op" and self.peek().text == ">":
            self.advance()
            self.advance()
            return []
        return self.type_args()

    def type_args(self, names: list | None = None) -> list[ast.TypeExpr]:
        self.advance()  # <
        args = []
        while True:
            name = None
            if self.tok.kind == "ident" and self.peek().kind == "op" and self.peek().text == "=":
                name = self.advance().text  # `Item = T`: an associated-type binding, kept positionally
                self.advance()
            args.append(self.type_expr())
            if names is not None:
                names.append(name)
            if name is not None:
                args[-1].binds = name
            if not self.eat(","):
                break
            if self.tok.text.startswith(">"):
                break
        self.close_angle()
        return args

    def type_atom(self) -> ast.TypeExpr:
        t = self.tok
        s = t.start
        if t.kind == "ident" and (t.text not in RESERVED or t.text in ("true", "false", "null")):
            if t.text in ("true", "false"):
                self.advance()
                return ast.TLiteral(self.span(s), t.text == "true")
            if t.text == "null":
                self.advance()
                return ast.TLiteral(self.span(s), None)
            path = [self.advance().text]
            while self.at(".") and self.peek().kind == "ident" and self.peek().text not in NOT_NAMES:
                self.advance()
                path.append(self.advance().text)
            if self.at(".") and not self.tok.nl:  # `T.)`, `baml.let`: the engine wants a name after the dot
                self.advance()
                self.expected("identifier")
            names: list = []
            args = self.type_args(names) if self.at("<") else []
            return ast.TName(self.span(s), path, args, names)
        if t.kind in ("str", "rawstr"):
            self.advance()
            return ast.TLiteral(self.span(s), t.value)
        if t.kind == "int" or t.kind == "bigint":
            self.advance()
            return ast.TLiteral(self.span(s), t.value if t.kind == "int" else ast.BigLit(t.value))
        if t.kind == "op" and t.text == "-" and self.peek().kind in ("int", "bigint"):
            self.advance()
            nt = self.advance()
            return ast.TLiteral(self.span(s), -nt.value if nt.kind == "int" else ast.BigLit(-nt.value))
        if t.kind == "float" or t.kind == "op" and t.text == "-" and self.peek().kind == "float":
            sign = "-" if t.kind == "op" else ""
            if sign:
                self.advance()
            ft = self.advance()  # the engine's span is the number's, its message the signed text
            self.error(f"invalid syntax: float literal values are not supported: {sign}{ft.text}",
                       start=ft.start, end=ft.end)
            return ast.TLiteral(self.span(s), None)
        if t.kind == "op" and t.text == "(":
            self.enter()
            try:
                self.advance()
                params: list[tuple[str | None, ast.TypeExpr]] = []
                while not self.at(")") and self.tok.kind != "eof":
                    b = self.i
                    pname = None
                    if self.tok.kind == "ident" and self.peek().text == ":" and self.peek().kind == "op":
                        pname = self.advance().text
                        self.advance()
                    params.append((pname, self.type_expr()))
                    if not self.eat(",") or self.i == b:
                        break
                self.expect(")")
                if self.at("->") or self.at("=>"):
                    self.advance()
                    ret = self.type_expr()
                    throws = self.type_expr() if self.eat("throws") else None
                    return ast.TFunc(self.span(s), params, ret, throws)
                if len(params) == 1 and params[0][0] is None:
                    inner = params[0][1]
                    inner.group_span = self.span(s)  # `(…)` written around it
                    return inner
                if params and all(n is None for n, _ in params):  # `(int, string)`: the engine's union
                    return ast.TUnion(self.span(s), [ty for _, ty in params])
                if not params:  # `()`: no type at all
                    self.diags.append(Diagnostic(self.span(s), "E0108", "could not parse type expression"))
                    return ast.TName(self.span(s), ["unknown"])
                self.expected("'->'")
                return ast.TName(self.span(s), ["unknown"])
            finally:
                self.depth -= 1
        self.expected("type")
        return ast.TName(self.sp(s, s), ["unknown"])

    # ───────────── patterns ─────────────
    def pattern(self, allow_or: bool = True, let_ctx: bool = False) -> ast.Pattern:
        s = self.tok.start
        p = self.pattern_chain(let_ctx)
        if allow_or and self.at("|"):
            alts = [p]
            while self.eat("|"):  # after `let`, only the first alternative's name is a binding
                alts.append(self.pattern_chain(False))
            return ast.POr(self.span(s), alts)
        return p

    def pattern_chain(self, let_ctx: bool) -> ast.Pattern:
        s = self.tok.start
        p = self.pattern_atom(let_ctx)
        if self.at(":") and not let_ctx and isinstance(p, (ast.PArray, ast.PClass, ast.PWild)):
            self.advance()
            q = self.pattern_chain(let_ctx)
            return ast.PAnd(self.span(s), [p, q])
        return p

    def pattern_atom(self, let_ctx: bool = False) -> ast.Pattern:
        self.enter()
        try:
            return self._pattern_atom(let_ctx)
        finally:
            self.depth -= 1

    def _pattern_atom(self, let_ctx: bool) -> ast.Pattern:
        t = self.tok
        s = t.start
        k = t.kind
        if k == "ident":
            x = t.text
            if x == "_":
                self.advance()
                if self.at("[") and not self.tok.nl and self.peek().text == "]":  # `x is _[]`: the
                    self.expected("expression", self.peek())  # engine indexes `x is _` with nothing
                return ast.PWild(self.span(s))
            if x == "let":
                self.advance()
                name = self.ident("identifier after 'let'") or "_"
                if self.at(":") and not let_ctx:
                    # the engine reads a pattern after `let n:`, alternatives included:
                    # `let a: int | string` binds a of either type
                    self.advance()
                    q = self.pattern(True, let_ctx)
                    ty = _pattern_type(q)
                    if ty is not None:
                        return ast.PBind(self.span(s), name, ty)
                    return ast.PAnd(self.span(s), [ast.PBind(self.span(s), name), q])
                return ast.PBind(self.span(s), name)
            if let_ctx and x in ("true", "false", "null") and self.peek().text in ("=", ":"):
                self.advance()  # `if let null = x`: the engine binds the name (never readable)
                return ast.PBind(self.span(s), x)
            if x in ("true", "false"):
                self.advance()
                return ast.PLit(self.span(s), x == "true")
            if x == "null":
                self.advance()
                return ast.PLit(self.span(s), None)
            if let_ctx and x not in RESERVED and (self.peek().text not in (".", "{", "<") or (
                    self.peek().text == "." and not self._path_then_brace()) or (
                    self.peek().text == "<" and not self._args_then_brace())):
                self.advance()  # after `let` a dotted path is only a class pattern's (`let a.B = e`: `a`)
                return ast.PBind(self.span(s), x)
            if x in RESERVED:
                self.expected("pattern")
                return ast.PWild(self.span(s))
            ty = self.type_postfix()
            if isinstance(ty, ast.TName) and self.at("{"):
                return self.class_pattern(s, ty, let_ctx)
            return ast.PType(self.span(s), ty)
        if k == "rawstr":  # no raw strings in patterns: the engine reads `r` as a type name
            self.diags.append(Diagnostic(self.sp(s, s + 1), "E0002", "unresolved type: r"))
        if let_ctx and (k in ("int", "str", "rawstr", "float", "bigint") or k == "op" and t.text in ("-", "(")):
            self.expected("identifier after 'let'")  # no literal or parenthesised patterns after `let`
            return ast.PWild(self.sp(s, s))
        if k in ("int", "str", "rawstr", "float", "bigint"):
            self.advance()
            return ast.PLit(self.span(s), t.value if k != "bigint" else ast.BigLit(t.value))
        if k == "op":
            x = t.text
            if x == "-" and self.peek().kind in ("int", "float", "bigint"):
                self.advance()
                nt = self.advance()
                return ast.PLit(self.span(s), -nt.value if nt.kind != "bigint" else ast.BigLit(-nt.value))
            if x == "[":
                return self.array_pattern(let_ctx)
            if x == "(":
                j = self.matching(self.i)
                nt = self.toks[j + 1] if j >= 0 else None
                if nt is not None and nt.kind == "op" and nt.text == "->":
                    return ast.PType(self.span(s), self.type_expr())  # a function type
                self.advance()
                p = self.pattern(True, let_ctx)
                self.expect(")")
                ty = _pattern_type(p)
                if ty is not None and not self.tok.nl and (self.at("?") or self.at("??") or
                                                           self.at("[") and self.peek().text == "]"):
                    # `(int | string)[]`: a parenthesised type with a suffix
                    return ast.PType(self.span(s), self.type_postfix(ty, s))
                return p
        self.expected("pattern")
        return ast.PWild(self.sp(s, s))

    def _path_then_brace(self) -> bool:
        """Is the dotted path at the cursor (`a.b.C`) followed by `{`?"""
        j = self.i
        while self.toks[j].kind == "ident" and self.toks[j + 1].text == "." and self.toks[j + 1].kind == "op":
            j += 2
        return self.toks[j].kind == "ident" and self.toks[j + 1].kind == "op" and self.toks[j + 1].text == "{"

    def _args_then_brace(self) -> bool:
        """Is the `name<…>` at the cursor followed by `{` (a generic class pattern)?"""
        j, depth = self.i + 1, 0
        while j < len(self.toks) and self.toks[j].kind != "eof":
            t = self.toks[j]
            if t.kind == "op" and t.text in ("<", ">", ">>"):
                depth += {"<": 1, ">": -1, ">>": -2}[t.text]
                if depth <= 0:
                    nt = self.toks[j + 1]
                    return nt.kind == "op" and nt.text == "{"
            elif t.kind == "op" and t.text in (";", "=", "{", "}", "(", ")"):
                return False
            j += 1
        return False

    def class_pattern(self, s: int, ty: ast.TName, let_ctx: bool) -> ast.PClass:
        self.advance()  # {
        fields: list = []
        while not self.at("}") and self.tok.kind != "eof":
            b = self.i
            if self.at(".."):  # no rest in a class pattern: its omitted fields match anything
                self.expected("field name")
                self.advance()
            else:
                name = self.ident("field name")
                if name is None:
                    self.skip_balanced()
                else:
                    sub = None
                    if self.eat(":"):  # a bare name there is a type, in a `let` too
                        sub = self.pattern(True, False)
                    fields.append((name, sub))
            if not self.eat(",") and not self.at("}"):
                if self.i == b:
                    self.advance()
                if not self.tok.nl:
                    self.expected("'}'")
                    break
        self.expect("}")
        return ast.PClass(self.span(s), ty, fields)

    def array_pattern(self, let_ctx: bool) -> ast.PArray:
        s = self.advance().start  # [
        items: list = []
        rest_index = rest_name = rest_pattern = None
        while not self.at("]") and self.tok.kind != "eof":
            b = self.i
            if self.at(".."):
                self.advance()
                if rest_index is not None:
                    self.error("unexpected token: only one rest pattern `..` is allowed", self.toks[self.i - 1])
                rest_index = len(items)
                if not (self.at(",") or self.at("]")):
                    rp = self.pattern_chain(False)
                    if isinstance(rp, ast.PBind) and rp.type is None:
                        rest_name = rp.name
                    elif isinstance(rp, ast.PWild):
                        pass
                    else:
                        rest_pattern = rp
                        if isinstance(rp, ast.PAnd) and isinstance(rp.pats[0], ast.PBind):
                            rest_name = rp.pats[0].name
            else:  # an item's bare name is a type, in a `let` too
                items.append(self.pattern(True, False))
            if not self.eat(","):
                break
            if self.i == b:
                break
        self.expect("]")
        p = ast.PArray(self.span(s), items, rest_index, rest_name)
        if rest_pattern is not None:
            p.rest_pattern = rest_pattern
        return p

    # ───────────── statements & blocks ─────────────
    def block(self) -> ast.Block:
        self.enter()
        try:
            s = self.tok.start
            save = self.no_struct
            self.no_struct = False
            self.expect("{")
            stmts, tail = self.block_body("}")
            self.expect("}")
            self.no_struct = save
            return ast.Block(self.span(s), stmts, tail)
        finally:
            self.depth -= 1

    def block_body(self, close: str | None) -> tuple[list, ast.Expr | None]:
        """Statements up to `close` (or EOF when close is None); returns (stmts, tail)."""
        stmts: list = []
        tail = None
        while True:
            t = self.tok
            if t.kind == "eof" or (close is not None and t.kind == "op" and t.text == close):
                break
            if close is not None and self.at_block_ender():
                break  # as the engine: a declaration ends every open block (`}` expected there)
            if t.kind == "op" and t.text == ";":
                self.advance()
                continue
            b = self.i
            if tail is not None:
                stmts.append(ast.ExprStmt(tail.span, tail))
                tail = None
            st, is_tail = self.statement()
            if (is_tail and isinstance(st, ast.Name) and st.name == "client" and self.i == b + 1
                    and close is not None and self.at(close)):
                continue  # the engine reads a lone `client` ending a block as an LLM field, no value
            if st is not None:
                if is_tail:
                    tail = st
                else:
                    stmts.append(st)
            if self.i == b:
                self.expected("expression")
                self.skip_balanced()
        return stmts, tail

    def end_stmt(self):
        """After a statement: `;`, or a newline / `}` / EOF."""
        return self.eat(";")

    def statement(self):
        """Returns (node, is_tail): is_tail when it is an expression that may be the block value."""
        saved, self.stmt_start = self.stmt_start, self.i
        try:
            return self._statement()
        finally:
            self.stmt_start = saved

    def _statement(self):
        t = self.tok
        s = t.start
        if t.kind == "ident":
            x = t.text
            if x in ("let", "const"):
                st = self.let_stmt()
                self.end_stmt()
                return st, False
            if x == "while":
                return self.while_stmt(), False
            if x == "for":
                return self.for_stmt(), False
            if x == "break" or x == "continue":
                self.advance()
                self.end_stmt()
                return (ast.Break if x == "break" else ast.Continue)(self.span(s)), False
            if x == "return" or x == "throw":
                st = self.diverge_stmt()
                if self.at("catch") or self.at("catch_all") or self.at("catch_all_panics"):
                    # `throw e catch (x) { … }`: the catch handles the throw itself
                    e = self.postfix_ops(ast.Diverge(st.span, st), s)
                    e = self.binary_rest(e, 0, s)
                    if self.eat(";"):
                        return ast.ExprStmt(self.span(s), e), False
                    return e, True
                self.end_stmt()
                return st, False
            if x == "defer":
                self.advance()
                body = self.block()
                self.eat(";")
                return ast.Defer(self.span(s), body), False
            if x == "test" or x == "testset":
                return self.test_stmt(s, x == "testset"), False
            if x == "function":
                self.expected("expression")
                self.advance()
                return None, False
            if x == "type" and self.peek().kind == "ident" and self.peek(2).text == "=":
                self.advance()
                self.advance()
                self.advance()
                self.type_expr()
                self.eat(";")
                self.diags.append(Diagnostic(self.span(s), "E0098", "removed language feature: "
                                             "body-level `type N = …` bindings were removed"))
                return None, False
        # expression / assignment
        blocky = t.kind == "ident" and t.text in ("if", "match") or (t.kind == "op" and t.text == "{")
        if blocky:
            e = self.primary_blocky()
            # the engine continues it as any expression (`match … {} + 1`, `if … {} == 2`,
            # `{"k": n}["k"]`, `.f()` on the next line); `(`/`[` only on the same line
            e = self.postfix_ops(e, s)
            e = self.binary_rest(e, 0, s)
        else:
            e = self.expr(stmt=True)
        t = self.tok
        if t.kind == "op" and t.text in ASSIGN_OPS:
            op = ASSIGN_OPS[self.advance().text]
            if not isinstance(e, (ast.Name, ast.Field, ast.Index)):
                self.error("invalid syntax: invalid assignment target", start=e.span.start, end=e.span.end)
            v = self.expr()
            sp = self.span(s)
            self.end_stmt()
            return ast.Assign(sp, e, op, v), False
        if self.eat(";"):
            return ast.ExprStmt(self.span(s), e), False
        return e, True

    def diverge_stmt(self) -> "ast.Return | ast.Throw | ast.Break | ast.Continue":
        """`return e?` / `throw e` / `break` / `continue`; a throw's operand takes no postfix
        `catch` (`throw 1 catch (e) { … }` catches the throw, as the engine parses it)."""
        t = self.advance()
        s, x = t.start, t.text
        if x == "break" or x == "continue":
            return (ast.Break if x == "break" else ast.Continue)(self.span(s))
        v = None
        nt = self.tok
        if x == "throw" or not (nt.kind == "eof" or nt.kind == "op" and nt.text in (";", "}", ",", ")", "]")):
            save = self.no_catch
            if x == "throw":  # `return g() catch (e) { … }` returns the catch's value
                self.no_catch = self.depth + 1
            try:
                v = self.expr()
            finally:
                self.no_catch = save
        sp = self.span(s)
        return ast.Return(sp, v) if x == "return" else ast.Throw(sp, v)

    def diverge_expr(self) -> ast.Expr:
        """A diverging statement where an expression stands (arm, operand, argument)."""
        s = self.tok.start
        st = self.diverge_stmt()
        return ast.Diverge(self.span(s), st)

    def let_stmt(self) -> ast.Let:
        s = self.tok.start
        is_const = self.advance().text == "const"
        t = self.tok
        if not is_const and self.at("type") and self.peek().kind == "ident" and self.peek(2).text == "=":
            self.advance()  # `let type N = e;`: a run-time type binding
            name = self.advance()
            pat = ast.PBind(self.span(name.start), name.text)
            self.advance()
            return ast.Let(self.span(s), pat, None, self.expr(), type_binding=True)
        if t.kind == "ident" and t.text not in RESERVED or t.kind == "op" and t.text in ("[", "("):
            pat = self.let_bound(self.pattern(True, let_ctx=True), s)
        elif t.kind == "ident" and t.text in ("true", "false", "null") and self.peek().text in ("=", ":"):
            self.advance()  # the engine binds these names (never readable: they stay literals)
            pat = ast.PBind(self.span(t.start), t.text)
        else:
            self.expected("identifier after 'let'")
            pat = ast.PWild(self.sp(t.start, t.start))
        ty = written = None
        if self.at(":") and self.peek().text == "[" and isinstance(pat, ast.PBind) and pat.type is None:
            self.advance()  # `let xs: [] = …`: the engine reads an array pattern (`xs` and `[]`)
            pat = ast.PAnd(self.span(s), [pat, self.array_pattern(False)])
        elif self.eat(":"):
            self.let_type = self.tok.start  # (`let x: _[]`, `_?`: E0010, see type_postfix)
            written = self.type_expr()
            ty = _unless_hole(written)
        if not self.at("="):
            self.expected("initializer (=)")
            return ast.Let(self.span(s), pat, ty, ast.NullLit(self.span(s)), None, is_const)
        self.advance()
        nd = len(self.diags)
        # an `=` after the value starts the next statement (the engine's E0010 at it); after a
        # broken value (`1 === 1`) it is the value's misplaced assignment
        v = self.expr(stmt=True)
        if len(self.diags) > nd and self.tok.kind == "op" and self.tok.text in ASSIGN_OPS:
            self.advance()
            w = self.expr()
            self.error("assignment is not allowed in expression position; assignment is a statement",
                       start=v.span.start, end=w.span.end)
        els = None
        if self.at("else"):
            self.advance()
            els = self.block()
        let = ast.Let(self.span(s), pat, ty, v, els, is_const)
        if ty is None and written is not None:
            let.hole_type = written  # inferred; the checker still reads where its holes stand
        return let

    def let_pattern(self, let_start: int) -> ast.Pattern:
        """Pattern after `if let` / `while let`, with an optional `: type`."""
        s = self.tok.start
        pat = self.pattern(True, let_ctx=True)
        if self.eat(":"):
            ty = self.type_expr()
            if isinstance(pat, ast.PBind) and pat.type is None:
                pat.type = ty
                pat.span = self.span(s)
            else:
                pat = ast.PAnd(self.span(s), [pat, ast.PType(ty.span, ty)])
        pat.let_span = self.sp(let_start, pat.span.end)  # a class or or-pattern is reported from the `let`
        return self.let_bound(pat, let_start)

    def let_head(self, what: str) -> bool:
        """The engine's `if let` / `while let` pattern starts with a name or `[` (no literal,
        no parenthesis), and a name is no path (`E.A`)."""
        t = self.tok
        if not (t.kind == "ident" and t.text not in RESERVED or t.text in ("true", "false", "null")
                or t.kind == "op" and t.text == "["):
            self.expected("identifier after 'let'")
            return False
        if t.kind == "ident" and self.peek().kind == "op" and self.peek().text == ".":
            self.expected(f"'=' after {what} pattern", self.peek())
        return True

    def let_bound(self, pat: ast.Pattern, let_start: int) -> ast.Pattern:
        """Record where a `let` binding a plain name starts: the engine reports a binding
        named `root` (E0176) at its `let`."""
        if isinstance(pat, ast.PBind):
            pat.let_at = self.span(let_start)
        elif isinstance(pat, ast.POr):  # and its alternatives' names (E0094) from there too
            pat.span = self.span(let_start)
        return pat

    def cond_expr(self) -> ast.Expr:
        save = self.no_struct
        self.no_struct = True
        try:
            return self.expr()
        finally:
            self.no_struct = save

    def while_stmt(self):
        s = self.advance().start
        if self.at("let"):
            ls = self.advance().start
            if not self.let_head("while-let"):
                self.advance()
            pat = self.let_pattern(ls)
            self.expect("=")
            v = self.cond_expr()
            body = self.body_block("block after while condition")
            return ast.WhileLet(self.span(s), pat, v, body)
        c = self.cond_expr()
        body = self.body_block("block after while condition")
        return ast.While(self.span(s), c, body)

    def body_block(self, what: str) -> ast.Block:
        if self.at("{"):
            return self.block()
        self.expected(what)
        return ast.Block(self.sp(self.tok.start, self.tok.start), [], None)

    def for_stmt(self):
        s = self.advance().start
        paren = self.eat("(")
        if not paren and not self.at("let"):
            self.expected("'('")
        if self.at("let") or self.at("const"):
            ls = self.tok.start
            lt = self.tok
            is_const = self.advance().text == "const"
            pat = self.let_bound(self.pattern(True, let_ctx=True), ls)
            if not paren and not self.at("in"):  # only `for let x in xs` goes without parentheses
                self.expected("'('", lt)
            if self.eat("in"):
                it = self.cond_expr() if not paren else self.expr()
                if paren:
                    self.expect(")")
                body = self.body_block("block after for expression")
                return ast.ForIn(self.span(s), pat, it, body)
            # C-style with let init
            ty = self.type_expr() if self.eat(":") else None
            if ty is not None and isinstance(pat, ast.PBind) and pat.type is None and self.eat("in"):
                it = self.cond_expr() if not paren else self.expr()  # `for (let x: int in xs)`
                if paren:
                    self.expect(")")
                body = self.body_block("block after for expression")
                return ast.ForIn(self.span(s), ast.PBind(self.sp(ls, ty.span.end), pat.name, ty), it, body)
            if self.expect("=", "'in' or '='"):
                v = self.expr()
            else:
                v = ast.NullLit(self.span(ls))
            init = ast.Let(self.span(ls), pat, ty, v, None, is_const)
            return self.for_c_rest(s, init, paren)
        if not paren:
            # `for x in xs` — error already reported; try to continue
            self.expr()
            if self.eat("in"):
                self.cond_expr()
            body = self.body_block("block after for expression")
            return ast.ForIn(self.span(s), ast.PWild(self.span(s)), ast.NullLit(self.span(s)), body)
        return self.for_c_rest(s, None, paren)

    def simple_stmt(self):
        s = self.tok.start
        e = self.expr(stmt=True)
        if self.tok.kind == "op" and self.tok.text in ASSIGN_OPS:
            op = ASSIGN_OPS[self.advance().text]
            v = self.expr()
            return ast.Assign(self.span(s), e, op, v)
        return ast.ExprStmt(self.span(s), e)

    def for_c_rest(self, s, init, paren):
        """After a `let` init (or none): `cond? step?`, as the engine reads it, `;` optional after
        each (`for (i < 3)` loops while; `for (i = 0; …)` has the assignment as its condition)."""
        self.eat(";")
        cond = None
        if not self.at(";") and not (paren and self.at(")")):
            cond = self.expr()
        self.eat(";")
        upd = None
        if not self.at(")"):
            if self.at("let") or self.at("const"):
                upd = self.let_stmt()
            else:
                self.in_step = True  # `i ++`: the engine ends the step before a `++` / `--`
                try:
                    upd = self.simple_stmt()
                finally:
                    self.in_step = False
        if paren:
            self.expect(")")
        body = self.body_block("block after for expression")
        return ast.ForC(self.span(s), init, cond, upd, body)

    # ───────────── expressions ─────────────
    def expr(self, stmt: bool = False) -> ast.Expr:
        self.enter()
        try:
            s = self.tok.start
            e = self.unary()
            e = self.binary_rest(e, 0, s)
            if not stmt and self.tok.kind == "op" and self.tok.text in ASSIGN_OPS:
                # `a = b = 5`
                self.advance()
                v = self.expr()
                self.error("assignment is not allowed in expression position; assignment is a statement",
                           start=s, end=v.span.end if v is not None else self.prev_end)
            return e
        finally:
            self.depth -= 1

    def statement_level(self) -> bool:
        """Is the parser inside a statement's expression but outside all of its brackets?"""
        if self.stmt_start is None:
            return False
        depth = 0
        for t in self.toks[self.stmt_start:self.i]:
            if t.kind == "op" and t.text in ("(", "[", "{"):
                depth += 1
            elif t.kind == "op" and t.text in (")", "]", "}"):
                depth -= 1
        return depth <= 0

    def binary_rest(self, left: ast.Expr, min_prec: int, s: int) -> ast.Expr:
        while True:
            t = self.tok
            if t.kind == "op":
                op = t.text
            elif t.kind == "ident" and t.text == "is":
                op = "is"
            elif t.kind == "ident" and t.text == "instanceof" and not t.nl:
                # removed from the language: read as `is`, reported as the engine does
                self.diags.append(Diagnostic(self.sp(t.start, t.end), "E0098", "`instanceof` is no longer "
                                             "supported. Use a `match` expression for type checking instead."))
                op = "is"
            else:
                return left
            if op in ("-", "--") and t.nl and self.statement_level():
                return left  # `x⏎- 1`: the engine reads the `-` as the next statement's
            if op in ("++", "--"):
                return left  # no binary operator: `a ++ 2` ends at `a` (`++2` is what follows)
            prec = BINOPS.get(op)
            if prec is None or prec <= min_prec or self.in_step and op in ("++", "--"):
                return left
            self.advance()
            if op == "is":
                pat = self.pattern(allow_or=True)
                left = ast.Is(self.span(s), left, pat)
                continue
            rs = self.tok.start
            right = self.unary()
            # right side: bind tighter operators (all left-assoc except ??)
            right = self.binary_rest(right, prec, rs)
            if op == "??":  # right-assoc: `a ?? b ?? c` is a ?? (b ?? c), folded without recursion
                operands = [(s, left), (rs, right)]
                while self.tok.kind == "op" and self.tok.text == "??":
                    self.advance()
                    rs = self.tok.start
                    operands.append((rs, self.binary_rest(self.unary(), prec, rs)))
                left = operands[-1][1]
                for start, operand in reversed(operands[:-1]):
                    left = ast.Binary(self.span(start), "??", operand, left)
                continue
            left = ast.Binary(self.span(s), op, left, right)

    def int_range_error(self, value: int, start: int, end: int) -> None:
        self.error(f"integer literal `{value}` is out of range for `int` (which holds -4611686018427387904 "
                   f"to 4611686018427387903); append `n` to write it as a `bigint`", start=start, end=end, code="E0150")

    def unary(self) -> ast.Expr:
        t = self.tok
        if t.kind == "op":
            x = t.text
            if x in ("!", "-", "~", "++", "--"):
                self.enter()
                try:
                    s = self.advance().start
                    nt = self.tok
                    if x == "-" and nt.kind == "int" and nt.value > I63_MAX:
                        p2 = self.peek()
                        if not (p2.kind == "op" and p2.text in (".", "?.", "(", "[")):
                            self.advance()
                            if nt.value > I63_MAX + 1:  # the engine folds the sign into the literal
                                self.int_range_error(-nt.value, s, nt.end)
                            return ast.IntLit(self.span(s), -nt.value)
                    inner = self.unary()
                    if x == "++":
                        return inner
                    if x == "--":
                        return ast.Unary(self.span(s), "-", ast.Unary(self.span(s), "-", inner))
                    if x == "-" and isinstance(inner, (ast.IntLit, ast.FloatLit)) and inner.span.start == s + 1:
                        pass
                    return ast.Unary(self.span(s), x, inner)
                finally:
                    self.depth -= 1
        s = t.start
        e = self.primary()
        return self.postfix_ops(e, s)

    def postfix_ops(self, e: ast.Expr, s: int) -> ast.Expr:
        while True:
            t = self.tok
            if t.kind == "op":
                x = t.text
                if x == "$":  # the engine's `$` continues an expression with a name (`$x` is a word)
                    self.advance()
                    self.expected("field name after `'$'`")
                    return e
                if x == "." :
                    self.advance()
                    nt = self.tok
                    if nt.kind == "ident" and nt.text == "as" and self.peek().kind == "op" and self.peek().text == "<":
                        # `e.as<T>`: an upcast (to an interface), the value itself at run time
                        self.advance()
                        targs = self.type_args()
                        e = ast.Upcast(self.span(s), e, targs[0] if targs else None)
                        continue
                    if nt.kind == "ident" and nt.text not in NOT_NAMES and (nt.text != "await" or _name_path(e)):
                        self.advance()  # (`(x).await`: only a path may go on with the keyword)
                        e = ast.mark_link(ast.Field(self.span(s), e, nt.text))
                        if self.tok.kind == "template" and not self.tok.nl:  # `ns.tag`…``
                            e = self.tagged_template(e, s)
                            continue
                        kind = self.at("<") and self.generic_call_ahead()
                        if kind:
                            targs = self.expr_type_args()
                            if kind == "call":
                                e = ast.mark_link(self.call(e, s, targs))
                            else:  # `v.m<int>`: a specialized method value
                                e.type_args = targs
                                e.span = self.span(s)
                    else:  # `xs.0` too: no member is named by a number
                        self.expected("field name after `'.'`")
                        return e
                    continue
                if x == "?.":
                    self.advance()
                    nt = self.tok
                    if nt.kind == "ident" and nt.text not in NOT_NAMES:
                        self.advance()
                        e = ast.mark_link(ast.Field(self.span(s), e, nt.text, True))
                    elif self.at("("):
                        e = ast.mark_link(self.call(e, s, [], optional=True))
                    elif self.at("["):
                        self.advance()
                        idx = self.expr_nested()
                        self.expect("]")
                        e = ast.mark_link(ast.Index(self.span(s), e, idx, True))
                    else:
                        self.expected("field name after `'?.'`")
                        return e
                    continue
                if x == "!" and not t.nl:  # `p!.n`: a TypeScript habit
                    self.error("invalid syntax: unexpected '!'; BAML has no non-null assertion "
                               "operator — unwrap optionals with '?? <default>' or "
                               "'if let x: T = opt { ... }'")
                    self.advance()
                    continue
                if x == "(" and not t.nl:
                    e = ast.mark_link(self.call(e, s, []))
                    continue
                if x == "[" and not t.nl:
                    self.advance()
                    idx = self.expr_nested()
                    self.expect("]")
                    e = ast.mark_link(ast.Index(self.span(s), e, idx))
                    continue
                return e
            if t.kind == "ident" and t.text in ("catch", "catch_all", "catch_all_panics") \
                    and self.depth != self.no_catch:
                kind = self.advance().text
                binding, ctx, binding_at = "_", None, None
                if self.expect("(", "'('"):
                    if self.tok.kind == "ident":
                        binding_at = self.sp(self.tok.start, self.tok.end)
                        binding = self.advance().text
                    else:
                        self.expected("identifier")
                    if self.eat(","):
                        if self.tok.kind == "ident":
                            ctx = self.advance().text
                        else:
                            self.expected("identifier")
                    self.expect(")")
                arms = self.arms("catch")
                e = ast.Catch(self.span(s), e, binding, arms, kind, ctx)
                e.binding_at = binding_at
                continue
            return e

    def expr_nested(self) -> ast.Expr:
        save = self.no_struct
        self.no_struct = False
        try:
            return self.expr()
        finally:
            self.no_struct = save

    def call(self, func: ast.Expr, s: int, targs, optional: bool = False) -> ast.Call:
        self.advance()  # (
        args: list[ast.Arg] = []
        save = self.no_struct
        self.no_struct = False
        while not self.at(")") and self.tok.kind != "eof":
            b = self.i
            a_s = self.tok.start
            name = None
            if self.tok.kind == "ident" and self.peek().text == "=" and self.peek().kind == "op":
                name = self.advance().text
                self.advance()
            v = self.expr()
            args.append(ast.Arg(self.span(a_s), name, v))
            if not self.eat(","):
                break
            if self.i == b:
                break
        self.no_struct = save
        self.expect(")")
        return ast.Call(self.span(s), func, args, targs, optional)

    def generic_call_ahead(self) -> str | bool:
        """At `<`: is this an explicit type-argument list? "call" when `(` or `{` follows it,
        "ref" when what follows cannot continue a comparison (`f<int>;`, `[f<int>]`, `f<int> ==`),
        as the engine reads `a < b > c` as comparisons and `id<int>` as a specialized function."""
        save_i, save_d, save_err, save_s = self.i, len(self.diags), self.last_err, len(self.splits)
        ok = False
        try:
            # close_angle may split a `>>` token: remember the token to restore it
            self.advance()
            while not self.at(">"):  # `id<>(1)`: no type arguments, the engine infers them
                self.type_expr()
                if self._broken_since(save_d):
                    break
                if self.eat(",") and not self.at(">"):  # a trailing comma is allowed: `f<int,>(1)`
                    continue
                break
            t = self.tok
            if not self._broken_since(save_d) and t.kind == "op" and t.text == ">":
                nt = self.peek()
                if nt.kind == "op" and (nt.text == "(" and not nt.nl or nt.text == "{" and not self.no_struct):
                    ok = "call"
                elif nt.kind == "eof" or nt.nl or nt.kind == "op" and nt.text in _TYPE_REF_FOLLOW:
                    ok = "ref"  # (a line ending after the `>` ends a reference too: `let g = id<int>`)
        except _Bail:
            ok = False
        finally:
            self.i, self.last_err = save_i, save_err
            del self.diags[save_d:]
            while len(self.splits) > save_s:  # a nested `map<K, V>>` split a `>>`: undo it
                k, tok = self.splits.pop()
                self.toks[k] = tok
        return ok

    def _broken_since(self, n: int) -> bool:
        """Did the type read since diagnostic n fail to parse? (A float literal type parses, as
        the engine's, and is reported where it stands.)"""
        return any(not d.message.startswith("invalid syntax: float literal") for d in self.diags[n:])

    def primary_blocky(self) -> ast.Expr:
        t = self.tok
        if t.text == "if":
            return self.if_expr()
        if t.text == "match":
            return self.match_expr()
        return self.brace_expr()

    def brace_expr(self) -> ast.Expr:
        """`{` in expression position: map literal or block expression."""
        if self.is_map_literal():
            return self.map_lit()
        b = self.block()
        return ast.BlockExpr(b.span, b)

    def is_map_literal(self) -> bool:
        p1 = self.peek()
        if p1.kind == "op" and p1.text == "}":
            return True
        p2 = self.peek(2)
        if p2.kind == "op" and p2.text == ":" and p1.kind == "ident" and p1.text in RESERVED and \
                p1.text not in ("true", "false", "null"):
            return False
        return self._key_colon_ahead()

    def _key_colon_ahead(self) -> bool:
        """`{ -1: x }`, `{ Pos { x: 1 }: x }`, `{ {"a": 1}: x }`: a map literal whose first key is
        an expression — a `:` at bracket depth 0 (braces count: a class literal, a map, an `if`'s
        arms) before anything that only a block holds (`;`, `=`, `=>`, `let`, the block's `}`)."""
        depth = 0
        j = self.i + 1
        toks = self.toks
        while j < len(toks):
            t = toks[j]
            if t.kind == "eof":
                return False
            if t.kind == "op":
                x = t.text
                if x in ("(", "[", "{"):
                    depth += 1
                elif x in (")", "]", "}"):
                    depth -= 1
                    if depth < 0:
                        return False
                elif depth == 0:
                    if x == ":":
                        return j > self.i + 1
                    if x in (";", "=>") or x in ASSIGN_OPS:
                        return False
            elif depth == 0 and t.kind == "ident" and t.text in ("let", "const", "return", "throw",
                                                                  "while", "for", "break", "continue"):
                return False
            j += 1
        return False

    def value_expr(self, what: str) -> ast.Expr:
        """A map value or class-literal field value: the engine's grammar refuses one that starts
        with `return`/`throw`/`break`/`continue` (parenthesised, they are fine)."""
        if self.tok.kind == "ident" and self.tok.text in ("return", "throw", "break", "continue"):
            self.expected(what)
        return self.expr()

    def map_lit(self) -> ast.MapLit:
        s = self.advance().start  # {
        self.enter()
        save = self.no_struct
        self.no_struct = False
        entries = []
        try:
            while not self.at("}") and self.tok.kind != "eof":
                b = self.i
                k = self.expr()
                self.expect(":")
                v = self.value_expr("map value")
                entries.append((k, v))
                if not self.eat(",") and not self.starts_element():
                    break
                if self.i == b:
                    break
            self.expect("}")
        finally:
            self.no_struct = save
            self.depth -= 1
        return ast.MapLit(self.span(s), entries)

    def primary(self) -> ast.Expr:
        t = self.tok
        s = t.start
        k = t.kind
        if k == "ident":
            x = t.text
            if x in RESERVED:
                if x == "true" or x == "false":
                    self.advance()
                    return ast.BoolLit(self.span(s), x == "true")
                if x == "null":
                    self.advance()
                    return ast.NullLit(self.span(s))
                if x == "if":
                    return self.if_expr()
                if x == "match":
                    return self.match_expr()
                if x in ("return", "throw", "break", "continue"):
                    return self.diverge_expr()
                self.expected("expression")
                return ast.NullLit(self.sp(s, s))
            if x in ("spawn", "await") and (self.peek().kind in ("ident", "op", "int", "float", "str")
                                            and not self.peek().nl
                                            and self.peek().text not in (".", ")", ",", ";", "=", "}", "?.")):
                self.advance()
                if x == "await":  # `await f catch (e) { … }` catches the await's error
                    save = self.no_catch
                    self.no_catch = self.depth
                    try:
                        v = self.unary()
                    finally:
                        self.no_catch = save
                    return ast.Await(self.span(s), v)
                mods: list = []
                if self.at("with") and self.peek().text != "{":
                    self.advance()
                    mods.append(self.cond_expr())  # (`t { … }` is no class literal here)
                    while self.eat(","):
                        mods.append(self.cond_expr())
                if not self.at("{"):
                    self.expr()  # `spawn g(1)`: the engine reads an expression, then wants `{`
                    self.expected("'{' after spawn")
                    return ast.NullLit(self.span(s))
                body = self.block()
                return ast.Spawn(self.span(s), ast.Lambda(self.span(s), [], None, None, body), mods)
            self.advance()
            e: ast.Expr = ast.Name(self.span(s), x)
            nt = self.tok
            if nt.kind == "template" and not nt.nl:
                return self.tagged_template(e, s)
            # class literal / generic call: Name(.Name)* <T>? { … }
            return self.maybe_class_lit(e, s)
        if k == "int":
            self.advance()
            if t.value > I63_MAX:
                self.int_range_error(t.value, t.start, t.end)
            return ast.IntLit(self.span(s), t.value)
        if k == "float":
            self.advance()
            return ast.FloatLit(self.span(s), t.value)
        if k == "str" or k == "rawstr":
            self.advance()
            return ast.StrLit(self.span(s), t.value)
        if k == "bigint":
            self.advance()
            return ast.BigIntLit(self.span(s), t.value)
        if k == "bytestr":
            self.advance()
            return ast.BytesLit(self.span(s), self.bytes_value(t))
        if k == "template":
            self.advance()
            return self.template(t)
        if k == "op":
            x = t.text
            if x == "(":
                return self.paren_or_lambda()
            if x == "[":
                return self.array_lit()
            if x == "{":
                return self.brace_expr()
            if x == "=":
                pass
        self.expected("expression")
        return ast.NullLit(self.sp(s, s))

    def bytes_value(self, t: Token) -> bytes:
        raw = t.value or ""
        out = bytearray()
        pos = 0
        for m in re.finditer(r"\\(x[0-9A-Fa-f]{2}|.)", raw, re.S):
            out += raw[pos:m.start()].encode("utf-8")
            b = m.group(1)
            if b[0] == "x" and len(b) == 3:
                out.append(int(b[1:], 16))
            elif b in ("n", "t", "r", "\\", '"', "0"):
                out += {"n": b"\n", "t": b"\t", "r": b"\r", "\\": b"\\", '"': b'"', "0": b"\0"}[b]
            else:
                self.error(f'unknown escape sequence "\\{b}" in byte string', code="E0109",
                           start=t.start + 2 + m.start(), end=t.start + 2 + m.end())
                out += b.encode("utf-8")
            pos = m.end()
        out += raw[pos:].encode("utf-8")
        return bytes(out)

    def maybe_class_lit(self, e: ast.Expr, s: int) -> ast.Expr:
        # collect a dotted path lookahead: Name (. Name)* then `{` or `<`
        j = self.i
        path = [e.name]
        toks = self.toks
        while toks[j].kind == "op" and toks[j].text == "." and toks[j + 1].kind == "ident":
            path.append(toks[j + 1].text)
            j += 2
        t = toks[j]
        if t.kind == "op" and t.text == "{" and not self.no_struct and self.looks_like_class_body(j):
            self.i = j
            ty = ast.TName(self.span(s), path)
            return self.class_lit(s, ty)
        if t.kind == "op" and t.text == "<":
            save = self.i
            self.i = j
            kind = self.generic_call_ahead()
            if kind and len(path) > 1 and path[-1] == "as":
                kind = False  # `x.as<I>` (also `x.as<I>()`): an upcast, read by postfix_ops
            if kind:
                targs = self.expr_type_args()
                if self.at("{"):
                    ty = ast.TName(self.sp(s, self.prev_end), path, targs)
                    return self.class_lit(s, ty)
                # generic call: build the callee from the path
                callee: ast.Expr = ast.Name(self.sp(s, toks[save - 1].end), path[0])
                k = save
                for name in path[1:]:
                    k += 2
                    callee = ast.Field(self.sp(s, toks[k - 1].end), callee, name)
                if kind == "ref":  # `id<int>` as a value: the function specialized
                    callee.type_args = targs
                    callee.span = self.span(s)
                    return callee
                return self.call(callee, s, targs)
            self.i = save
        return e

    def looks_like_class_body(self, j: int) -> bool:
        """`{` at j: `{}`, `{ name: …`, `{ ...`, `{ name, …` or `{ name }`."""
        t1 = self.toks[j + 1] if j + 1 < len(self.toks) else self.toks[-1]
        if t1.kind == "op" and t1.text in ("}", "..."):
            return True
        if t1.kind == "ident":
            t2 = self.toks[j + 2] if j + 2 < len(self.toks) else self.toks[-1]
            return t2.kind == "op" and t2.text in (":", ",", "}")
        return False

    def class_lit(self, s: int, ty: ast.TName) -> ast.ClassLit:
        self.advance()  # {
        entries: list = []
        save = self.no_struct
        self.no_struct = False
        self.enter()
        try:
            while not self.at("}") and self.tok.kind != "eof":
                b = self.i
                if self.at("..."):
                    self.advance()
                    entries.append((None, self.expr()))
                else:
                    nt = self.tok
                    name = self.ident("field name")
                    if name is None:
                        break
                    if self.eat(":"):
                        entries.append((name, self.value_expr("field value")))
                    else:
                        entries.append((name, ast.Name(self.sp(nt.start, nt.end), name)))
                if not self.eat(","):
                    if not self.at("}"):  # a field on the next line too: the engine needs the comma
                        self.expected("',' or '}' after object field")
                        break
                if self.i == b:
                    break
            self.expect("}")
        finally:
            self.no_struct = save
            self.depth -= 1
        return ast.ClassLit(self.span(s), ty, entries)

    def starts_element(self) -> bool:
        """Does another element of an array or map literal start here? The engine's commas
        between them are optional (`[1 2]`, one per line)."""
        t = self.tok
        return t.kind in _ELEMENT_START or t.kind == "op" and t.text in ("[", "{", "(", "-", "!", "~", "++", "--")

    def array_lit(self) -> ast.ArrayLit:
        s = self.advance().start
        save = self.no_struct
        self.no_struct = False
        items = []
        self.enter()
        try:
            while not self.at("]") and self.tok.kind != "eof":
                b = self.i
                if self.at("...") or self.at(".."):
                    self.expected("expression")
                    self.advance()
                items.append(self.expr())
                if not self.eat(",") and not self.starts_element():
                    break
                if self.i == b:
                    break
            self.expect("]")
        finally:
            self.no_struct = save
            self.depth -= 1
        return ast.ArrayLit(self.span(s), items)

    def paren_or_lambda(self) -> ast.Expr:
        s = self.tok.start
        j = self.matching(self.i)
        if j > 0:
            after = self.toks[j + 1] if j + 1 < len(self.toks) else self.toks[-1]
            if after.kind == "op" and after.text in ("->", "=>"):
                return self.lambda_expr()
            if j == self.i + 1:
                # `()` not followed by an arrow
                self.advance()
                self.expected("expression")
                self.advance()
                return ast.NullLit(self.span(s))
            t1, t2 = self.peek(), self.peek(2)
            if t1.kind == "ident" and t2.kind == "op" and t2.text == ":":
                return self.lambda_expr()
        self.advance()
        self.enter()
        save = self.no_struct
        self.no_struct = False
        try:
            e = self.expr()
            self.expect(")")
        finally:
            self.no_struct = save
            self.depth -= 1
        # parentheses are sugar: keep the inner node but widen nothing (spans stay inner)
        if isinstance(e, (ast.Field, ast.Index, ast.Call)):
            e.parens = True  # ... they do end an optional chain: `(c?.n).f()`
        elif isinstance(e, (ast.If, ast.Match)):
            e.paren_span = self.span(s)  # the engine reports `(if …).length()` there
        return e

    def lambda_expr(self) -> ast.Lambda:
        s = self.advance().start  # (
        params = []
        while not self.at(")") and self.tok.kind != "eof":
            b = self.i
            if self.tok.kind != "ident" or self.tok.text in NAME_KEYWORDS:  # as a function's (E0107)
                pe = self.prev_end if self.tok.kind != "ident" else self.tok.start
                self.diags.append(Diagnostic(Span(self.file, pe, pe), "E0107",
                                             "parameter in function `lambda` is missing a name"))
            p = self.param(typed=False)
            if p is not None:
                params.append(p)
                if p.default is not None:
                    self.diags.append(Diagnostic(p.default.span, "E0010", "parameter defaults are "
                                                 "not supported in lambda parameters"))
            if not self.eat(","):
                break
            if self.i == b:
                break
        self.expect(")")
        ret = throws = None
        if not (self.at("->") or self.at("=>")):  # `(x: float) * …`: typed parameters, then no arrow
            self.expected("'->' after lambda parameters")
            return ast.Lambda(self.span(s), params, None, None, ast.Block(self.span(s), [], None), False)
        self.advance()  # -> or =>
        if self.eat("throws"):  # `(x) -> throws never { … }`: no written result
            throws = self.type_expr()
        elif not self.at("{"):
            ret = self.type_expr()
            if self.eat("throws"):
                throws = self.type_expr()
        hole = throws if throws is not None and _has_hole(throws) else False  # (its span: E0147)
        ret, throws = _unless_hole(ret), _unless_hole(throws)  # `-> _`, `throws _`: inferred
        for p in params:
            if p.type is not None and _has_hole(p.type):
                p.hole_type, p.type = p.type, None  # (the checker's E0147: no parameter infers)
        if self.at("{"):
            save = self.no_struct
            body = self.block()
            self.no_struct = save
        else:
            self.expected("lambda body '{'")
            body = ast.Block(self.span(s), [], None)
        return ast.Lambda(self.span(s), params, ret, throws, body, hole)

    def if_expr(self) -> ast.Expr:
        self.enter()
        try:
            s = self.advance().start  # if
            if self.at("let"):
                ls = self.advance().start
                if not self.let_head("if-let"):
                    # the engine's `if let` ends before the next `=`, `;` or brace (then `= v`
                    # is an assignment to it at statement start)
                    while self.tok.kind != "eof" and not (
                            self.tok.kind == "op" and self.tok.text in ("=", "{", "}", ";")):
                        self.advance()
                    return ast.NullLit(self.span(s))
                pat = self.let_pattern(ls)
                self.expect("=")
                v = self.cond_expr()
                then = self.body_block("block after if condition")
                els = self.else_part()
                return ast.IfLet(self.span(s), pat, v, then, els)
            c = self.cond_expr()
            then = self.body_block("block after if condition")
            els = self.else_part()
            return ast.If(self.span(s), c, then, els)
        finally:
            self.depth -= 1

    def else_part(self) -> ast.Block | None:
        if not self.at("else"):
            return None
        self.advance()
        if self.at("if"):
            s = self.tok.start
            nested = self.if_expr()
            return ast.Block(self.span(s), [], nested)
        return self.body_block("'{' or 'if' after 'else'")

    def match_expr(self) -> ast.Match:
        s = self.advance().start
        if self.at("("):  # `match (e)`: the scrutinee is the parenthesized expression alone (the engine's)
            save, self.no_struct = self.no_struct, True
            try:
                scrut = self.paren_or_lambda()
            finally:
                self.no_struct = save
        else:
            scrut = self.cond_expr()
        arms = self.arms("match")
        return ast.Match(self.span(s), scrut, arms)

    def arm_expr(self) -> ast.Expr:
        """An arm's value is newline-sensitive as a statement is: a `-` that starts a line begins
        the next arm's pattern (the engine's reading)."""
        saved, self.stmt_start = self.stmt_start, self.i
        try:
            return self.expr()
        finally:
            self.stmt_start = saved

    def arms(self, kind: str) -> list[ast.MatchArm]:
        arms: list[ast.MatchArm] = []
        if not self.expect("{"):
            return arms
        if self.at("}"):
            self.expected(f"at least one {kind} arm")
        self.enter()
        save = self.no_struct
        self.no_struct = False
        try:
            while not self.at("}") and self.tok.kind != "eof" and not self.at_block_ender():
                b = self.i
                s = self.tok.start
                pat = self.pattern(True)
                guard = None
                if self.at("if") and kind != "catch":  # catch arms take no guard (the engine's grammar)
                    self.advance()
                    guard = self.cond_expr()
                if not self.expect("=>", "'=>' after catch pattern" if kind == "catch" else "'=>' after pattern"):
                    if self.i == b:
                        self.skip_balanced()
                    else:  # kept for its types (`case 1 =>`: the engine resolves `case`, E0002)
                        arms.append(ast.MatchArm(self.span(s), pat, guard, ast.NullLit(self.span(s))))
                    continue
                if self.at("{"):  # always a block (the engine's grammar): `=> {"a": 1}` is an E0010
                    bl = self.block()
                    body = ast.BlockExpr(bl.span, bl)
                else:
                    body = self.arm_expr()
                arms.append(ast.MatchArm(self.span(s), pat, guard, body))
                self.eat(",")
                if self.i == b:
                    self.skip_balanced()
            self.expect("}")
        finally:
            self.no_struct = save
            self.depth -= 1
        return arms

    # ───────────── backtick templates ─────────────
    def sub_parser(self, toks: list[Token]) -> "Parser":
        p = Parser(self.file, toks, self.diags, self.lexer)
        p.depth = self.depth
        return p

    def template(self, tok: Token) -> ast.Template:
        s = tok.start
        raw_parts = tok.value or []
        # 1. classify holes
        items: list = []  # str (raw) | dict(hole)
        for part in raw_parts:
            if part[0] == "text":
                raw, base = part[1], part[2]
                decode_escapes(raw, base, self.file, self.diags, _TPL_ESC)  # validate only
                items.append(raw)
            else:
                items.append(self.classify_hole(part))
        # 2. lines
        lines: list[list] = [[]]
        for it in items:
            if isinstance(it, str):
                segs = it.split("\n")
                for k, seg in enumerate(segs):
                    if k:
                        lines.append([])
                    if seg:
                        lines[-1].append(seg)
            else:
                lines[-1].append(it)

        def blank(line):
            return all(isinstance(x, str) and not x.strip(" \t\r") for x in line)

        if len(lines) > 1:
            if blank(lines[0]):
                lines.pop(0)
            if lines and blank(lines[-1]):
                lines.pop()
                while lines and blank(lines[-1]):
                    lines.pop()
            indent = None
            for line in lines:
                if blank(line):
                    continue
                first = line[0]
                lead = first[:len(first) - len(first.lstrip(" \t"))] if isinstance(first, str) else ""
                if indent is None:
                    indent = lead
                else:
                    k = 0
                    while k < len(indent) and k < len(lead) and indent[k] == lead[k]:
                        k += 1
                    indent = indent[:k]
            if indent:
                n = len(indent)
                for line in lines:
                    if line and isinstance(line[0], str):
                        f = line[0]
                        cut = 0
                        while cut < n and cut < len(f) and f[cut] in " \t":
                            cut += 1
                        f = f[cut:]
                        if f:
                            line[0] = f
                        else:
                            line.pop(0)
        # 3. tag-alone lines consume their whitespace and newline
        flat: list = []
        for li, line in enumerate(lines):
            tags = [x for x in line if not isinstance(x, str)]
            alone = len(tags) == 1 and tags[0]["kind"] != "expr" and \
                all(not x.strip(" \t\r") for x in line if isinstance(x, str))
            if alone:
                flat.append(tags[0])
                continue
            flat.extend(line)
            if li != len(lines) - 1:
                flat.append("\n")
        # 4. merge text, decode, build tree
        root: list = []
        stack: list = []  # (kind, node, target list)
        cur = root
        buf: list[str] = []

        def flush():
            if buf:
                txt = decode_escapes("".join(buf), 0, self.file, [], _TPL_ESC)
                buf.clear()
                if txt:
                    cur.append(txt)

        for it in flat:
            if isinstance(it, str):
                buf.append(it)
                continue
            flush()
            kind = it["kind"]
            if kind == "expr":
                cur.extend(it["parts"])
            elif kind == "for":
                node = it["node"]
                stack.append(("for", node, cur))
                cur = node.parts
            elif kind == "if":
                node = ast.TIf(it["span"], [(it["cond"], [])], None)
                stack.append(("if", node, cur))
                cur = node.branches[0][1]
            elif kind in ("elif", "else"):
                if not stack or stack[-1][0] != "if" or stack[-1][1].else_parts is not None:
                    self.error(f"unexpected token: `${{{'else'}}}` without a matching `${{if}}`",
                               start=it["span"].start, end=it["span"].end)
                    continue
                node = stack[-1][1]
                if kind == "elif":
                    node.branches.append((it["cond"], []))
                    cur = node.branches[-1][1]
                else:
                    node.else_parts = []
                    cur = node.else_parts
            elif kind in ("endfor", "endif"):
                want = "for" if kind == "endfor" else "if"
                if not stack:
                    self.error(f"unexpected token: `${{{kind}}}` without a matching `${{{want}}}`",
                               start=it["span"].start, end=it["span"].end)
                    continue
                if stack[-1][0] != want:  # it closes the open block all the same (the engine's reading)
                    self.error(f"unexpected token: `${{{stack[-1][0]}}}` block closed by `${{{kind}}}` — "
                               f"expected `${{end{stack[-1][0]}}}`", start=it["span"].start, end=it["span"].end)
                _, node, parent = stack.pop()
                node.span = Span(self.file, node.span.start, it["span"].end)
                parent.append(node)
                cur = parent
        flush()
        while stack:
            kind, node, parent = stack.pop()
            self.error(f"unexpected token: `${{{kind}}}` block is not closed (expected `${{end{kind}}}`)",
                       start=node.span.start, end=node.span.end)
            parent.append(node)
        return ast.Template(self.sp(s, tok.end), root)

    def classify_hole(self, part) -> dict:
        _, toks, hs, he = part
        span = Span(self.file, hs, he)
        t0 = toks[0]
        t1 = toks[1] if len(toks) > 1 else toks[-1]
        if t0.kind == "ident":
            if t0.text in ("endfor", "endif") and t1.kind == "eof":
                return {"kind": t0.text, "span": span}
            if t0.text == "else":
                if t1.kind == "eof":
                    return {"kind": "else", "span": span}
                if t1.text == "if":
                    p = self.sub_parser(toks)
                    p.i = 2
                    c = self.safe(p, p.cond_expr)
                    if p.tok.kind != "eof":
                        p.expected("'}'")
                    return {"kind": "elif", "span": span, "cond": c}
            if t0.text == "if":
                p = self.sub_parser(toks)
                p.i = 1
                save_d = len(self.diags)
                c = self.safe(p, p.cond_expr)
                if p.tok.kind == "eof" and len(self.diags) == save_d:
                    return {"kind": "if", "span": span, "cond": c}
                del self.diags[save_d:]
            if t0.text == "for":
                save_d = len(self.diags)
                p = self.sub_parser(toks)
                node = self.safe(p, lambda: p.for_header(span))
                if node is not None and p.tok.kind == "eof" and len(self.diags) == save_d:
                    return {"kind": "for", "span": span, "node": node}
                del self.diags[save_d:]
        p = self.sub_parser(toks)
        res = self.safe(p, lambda: p.block_body(None))
        stmts, tail = res if res else ([], None)
        parts: list = []
        if tail is None and not stmts:
            pass
        elif not stmts:
            parts.append(tail)
        elif tail is None:
            for st in stmts:
                if isinstance(st, ast.Let):
                    parts.append(st)
                else:
                    parts.append(ast.BlockExpr(st.span, ast.Block(st.span, [st], None)))
        else:
            bs = Span(self.file, hs, he)
            parts.append(ast.BlockExpr(bs, ast.Block(bs, stmts, tail)))
        return {"kind": "expr", "span": span, "parts": parts}

    def safe(self, p: "Parser", fn):
        try:
            return fn()
        except _Bail:
            return None

    def for_header(self, span: Span):
        """`for (let x in xs)` / `for let x in xs` / `for (init; cond; step)` as a template tag."""
        self.advance().start
        paren = self.eat("(")
        if not self.at("let"):
            if not paren:
                return None
            init = None if self.at(";") else self.simple_stmt()
            return self._tfor_c(span, init, paren)
        ls = self.tok.start
        self.advance()
        pat = self.pattern(True, let_ctx=True)
        if self.eat("in"):
            it = self.expr() if paren else self.cond_expr()
            if paren:
                self.expect(")")
            return ast.TFor(span, pat, it, [])
        ty = self.type_expr() if self.eat(":") else None
        self.expect("=")
        v = self.expr()
        init = ast.Let(self.span(ls), pat, ty, v)
        return self._tfor_c(span, init, paren)

    def _tfor_c(self, span, init, paren):
        self.expect(";")
        cond = None if self.at(";") else self.expr()
        self.expect(";")
        upd = None if self.at(")") else self.simple_stmt()
        if paren:
            self.expect(")")
        return ast.TForC(span, init, cond, upd, [])


_TPL_ESC = {"`": "`", "$": "$", "b": "\b", "f": "\f", "v": "\v"}


def _name_path(e) -> bool:
    """Whether an expression is a dotted path of names (`a`, `a.b`)."""
    while isinstance(e, ast.Field):
        e = e.obj
    return isinstance(e, ast.Name)


def _has_hole(t) -> bool:
    """Whether a written type holds the inference hole `_` (`_`, `map<string, _>`)."""
    if isinstance(t, ast.TName):
        return t.path == ["_"] or any(_has_hole(a) for a in t.args)
    if isinstance(t, (ast.TArray, ast.TOptional)):
        return _has_hole(t.elem if isinstance(t, ast.TArray) else t.inner)
    if isinstance(t, ast.TUnion):
        return any(_has_hole(m) for m in t.members)
    if isinstance(t, ast.TFunc):
        return any(_has_hole(pt) for _, pt in t.params) or _has_hole(t.ret) or _has_hole(t.throws)
    return False


def _unless_hole(t):
    """A written type, or None (inferred, as if omitted) where it holds a hole: the inferred
    type is what the engine fills the hole with."""
    return None if t is not None and _has_hole(t) else t


def _pattern_type(p) -> ast.TypeExpr | None:
    """The type a parenthesised type-test pattern denotes (`(int | string)`), or None."""
    if isinstance(p, ast.PType):
        return p.type
    if isinstance(p, ast.PLit) and not isinstance(p.value, float):  # `(int | null)[]`: a literal type
        return ast.TLiteral(p.span, p.value)
    if isinstance(p, ast.POr):
        members = [_pattern_type(a) for a in p.alts]
        if all(m is not None for m in members):
            return ast.TUnion(p.span, members)
    return None


def _tokens(source: SourceFile, diags: list) -> tuple[Lexer, list[Token]]:
    lx = Lexer(source, diags)
    toks, _ = lx.tokenize(0)
    return lx, toks


def parse_file(source: SourceFile) -> tuple[ast.File, list[Diagnostic]]:
    diags: list[Diagnostic] = []
    items: list = []
    impls: list = []
    p = None
    try:
        lx, toks = _tokens(source, diags)
        p = Parser(source, toks, diags, lx)
        items, impls = p.parse_file()
    except RecursionError:
        diags.append(Diagnostic(Span(source, 0, 0), "E0010", "program is nested too deeply"))
    except Exception as exc:  # never raise: report an internal error as a diagnostic
        diags.append(Diagnostic(Span(source, 0, 0), "E0010", f"internal parser error: {exc!r}"))
    f = ast.File(source, items)
    if impls:
        f.impls = impls
    if p is not None and p.clients:
        f.clients = p.clients
    diags.sort(key=lambda d: d.span.start if d.span else 0)
    return f, diags


def parse_type(source: SourceFile) -> tuple[ast.TypeExpr | None, list[Diagnostic]]:
    diags: list[Diagnostic] = []
    try:
        lx, toks = _tokens(source, diags)
        p = Parser(source, toks, diags, lx)
        t = p.type_expr()
        if p.tok.kind != "eof":
            p.expected("end of type")
        return t, diags
    except Exception as exc:
        diags.append(Diagnostic(Span(source, 0, 0), "E0010", f"internal parser error: {exc!r}"))
        return None, diags


# ───────────── LLM functions ─────────────

def _client_global(c: ast.ClientDecl) -> ast.Function:
    """`client C = e;` is also a global (the engine initializes it at load, like `const C = e;`):
    C names the value, and `reflect.Package.globals()` lists it."""
    f = ast.Function(c.span, c.name, c.name_span, [], [], None, None, ast.Block(c.value.span, [], c.value))
    f.is_global = True
    f.is_client = True
    return f


# the prefixes of the engine's "provider/model" client shorthand (0.23.0, `ai.clients.resolve`)
LLM_PROVIDERS = ("openai", "openai-chat", "openai-decisions", "openai-images", "ollama", "openrouter",
                 "anthropic", "typesafeai", "google", "vertex", "bedrock", "ai-gateway-images", "claude-code")


def _client_problem(client) -> str | None:
    """Why a literal `client: "…"` is unusable, in the engine's words (None: usable, or not a literal)."""
    if not isinstance(client, ast.StrLit):
        return None
    text = client.value
    if "/" not in text:
        return f'"{text}" is not a "provider/model" string (no `/`)'
    prefix, model = text.split("/", 1)
    if prefix == "azure":
        return ('there is no "azure/<model>" shorthand: an Azure request goes to a deployment, which a '
                "model name does not identify; build openai.AzureClient.new(model = ..., deployment_id = "
                "..., resource_name = ...)")
    if prefix not in LLM_PROVIDERS:
        return (f'no builtin provider for prefix "{prefix}"; construct a client value instead '
                f'(OpenAI-compatible endpoints: openai.GenericClient.new(base_url = ..., model = "{model}"))')
    return None


def _llm_template(t: ast.Template) -> ast.Template:
    """`ctx.output_format()` and `role(…)` written in a prompt template become LlmOutputFormat /
    LlmRole (what the engine binds `ctx` and `role` to inside an LLM prompt)."""
    def part(p):
        if isinstance(p, ast.TIf):
            p.branches = [(c, [part(x) for x in ps]) for c, ps in p.branches]
            if p.else_parts is not None:
                p.else_parts = [part(x) for x in p.else_parts]
            return p
        if isinstance(p, (ast.TFor, ast.TForC)):
            p.parts = [part(x) for x in p.parts]
            return p
        if isinstance(p, ast.Call) and not p.args and isinstance(p.func, ast.Field) \
                and p.func.name == "output_format" and isinstance(p.func.obj, ast.Name) \
                and p.func.obj.name == "ctx":
            return ast.LlmOutputFormat(p.span)
        if isinstance(p, ast.Call) and len(p.args) == 1 and isinstance(p.func, ast.Name) \
                and p.func.name == "role" and p.args[0].name is None:
            return ast.LlmRole(p.span, p.args[0].value)
        return p
    t.parts = [part(p) for p in t.parts]
    return t
