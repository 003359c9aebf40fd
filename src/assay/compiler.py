"""The driver: source files → parsed, indexed, checked program → a VM that lowers, emits and
generates each function on its first call."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from types import SimpleNamespace

from . import gcpause
from .bex import ops
from .bex import stack as bexstack
from .bex import vm as bexvm
from .bex.stdlib import FUNCTIONS, METHODS, TO_STRING_OVERRIDES, native_value_params, render
from .bex.stdlib import testing as bextesting
from .bex.stdlib.jsontyped import ENUM_FROM_JSON, ENUM_TO_JSON
from .bex.llmcall import LlmCallError
from .bex.values import BamlRaise, Instance
from .llm import outfmt as llmformat
from .llm import prompt as llmprompt
from .mir import ir
from .mir import dispatch as mirdispatch
from .mir import lower as mirlower
from .mir import typetest
from .sema import interfaces
from .sema import types as T
from .sema.check import check
from .sema.reflect import Reflector, walk
from .sema.program import build_index
from .source import CompileError, Diagnostic, SourceFile
from .syntax.parser import parse_file
from .syntax import ast, ingot


class SourceError(Exception):
    """A path that is not a BAML program: missing, a directory without `.baml` files, an
    unreadable, binary or non-UTF-8 file. `str(e)` is the CLI's message (`PATH: error: …`);
    `location` (`PATH` or `PATH:LINE:COL`) and `reason` are its parts; `missing` is True for a
    path that is not there. The CLI exits 2 for either."""

    def __init__(self, location: str, reason: str, missing: bool = False):
        super().__init__(f"{location}: error: {reason}")
        self.location, self.reason, self.missing = location, reason, missing


def discover(path: str) -> list[SourceFile]:
    """A .baml file, or every .baml file under a directory; files under `ns_<x>/` belong to
    namespace x (nested ns_ folders nest: ns_a/ns_b → a.b). Strict: SourceError for a missing
    path, a directory without .baml files, or a file that is not UTF-8 text."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise SourceError(path, "no such file or directory", True)
    if os.path.isfile(path):
        return [SourceFile(path, read_source(path), None, os.path.basename(path))]
    if not os.path.isdir(path):
        raise SourceError(path, "not a file or directory", True)
    out = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".baml"):
                continue
            full = os.path.join(root, name)
            rel = os.path.relpath(full, path)
            out.append(SourceFile(full, read_source(full), _namespace_of(rel), rel.replace(os.sep, "/")))
    if not out:
        raise SourceError(path, "no .baml files found", True)
    return out


def _namespace_of(rel: str) -> str | None:
    """The namespace of a file at relative path `rel`: its `ns_<x>/` folders (a.b for ns_a/ns_b)."""
    parts = [p[3:] for p in rel.replace(os.sep, "/").split("/")[:-1] if p.startswith("ns_")]
    return ".".join(parts) or None


def read_source(path: str) -> str:
    """A source file's text (a leading BOM dropped); SourceError if it is not UTF-8 text."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise SourceError(path, f"cannot read: {e.strerror or e}") from None
    if b"\x00" in data:
        line, col = _line_col(data, data.index(b"\x00"))
        raise SourceError(f"{path}:{line}:{col}", "binary file (contains a NUL byte), not BAML source")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = _line_col(data, e.start)
        raise SourceError(f"{path}:{line}:{col}", f"invalid UTF-8 (byte 0x{data[e.start]:02x})") from None
    return text.removeprefix("\ufeff")


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    col = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return line, col


def analyze(sources: list[SourceFile], packages=()):
    """Parse, index and check (`packages`: namespaces that are mounted packages, named by their
    alias from anywhere). Returns (index, diagnostics)."""
    diags: list[Diagnostic] = []
    files = []
    notes: dict = {}
    for src in sources:
        src, notes[src.path], d = ingot.preprocess(src)  # @ingot annotations out, positions kept
        diags += d
        f, d = parse_file(src)
        files.append(f)
        diags += d
    index, d = build_index(files)
    index.packages = set(packages)
    diags += d
    index.ingot, d = ingot.collect(files, notes, index)
    diags += d
    broken = [x for x in diags if x.severity == "error" and not _SOFT_SYNTAX.search(x.message)]
    try:
        checked = check(index)
    except Exception as e:  # noqa: BLE001 — a checker bug must not stop the program
        checked = [] if broken else [Diagnostic(None, "E9999", f"internal error in the type checker: "
                                                f"{type(e).__name__}: {e}", severity="warning")]
    # as the engine: a syntax error does not hide the type errors of other items and files
    diags += [d for d in checked if not _follows_from(d, broken, files)] if broken else checked
    return index, diags


# syntax errors over a whole tree (a misplaced assignment): the engine still checks the item
_SOFT_SYNTAX = re.compile(r"invalid assignment target|assignment is not allowed in expression position"
                          # a template's block structure (`${for}` … `${endfor}`), checked after parsing
                          r"|without a matching `\$\{|block is not closed \(expected|block closed by `\$\{"
                          r"|parameter defaults are not supported in lambda parameters")


def _follows_from(d: Diagnostic, errors: list, files) -> bool:
    """Could this checker diagnostic be a consequence of an earlier error? Yes when it lies in
    an item that holds a syntax error, or names something a broken text may declare (the
    parser may have lost that declaration). The engine resolves type names even in a broken
    item: an unresolved type is reported there too."""
    if d.span is None:
        return True
    if d.code in ("E0002", "E0003"):
        name = _unresolved_name(d)
        if name is None or _declared_in_broken(name, errors):
            return True
        if d.message.startswith("unresolved type:"):
            return False
    if d.code in ("E0170", "E0151", "E0171", "E0113", "E0037"):  # no `throws`, a builtin type's arity: its own text says so
        return False
    for f in files:
        if f.source is not d.span.file:
            continue
        for item in f.items:
            span = _unit_span(item, d.span.start)
            if span is not None and span.start <= d.span.start < span.end and any(
                    e.span is not None and e.span.file is f.source and span.start <= e.span.start < span.end
                    for e in errors):
                return True
    return False


def _unit_span(item, pos: int):
    """The span the engine checks as one unit around `pos`: a class's or interface's method is
    its own (a syntax error elsewhere in the class does not hide its type errors)."""
    for m in getattr(item, "methods", ()):
        if m.span.start <= pos < m.span.end:
            return m.span
    return getattr(item, "span", None)


_UNRESOLVED = re.compile(r"unresolved (?:type|name): `?([\w.]+)")


def _unresolved_name(d: Diagnostic) -> str | None:
    m = _UNRESOLVED.match(d.message)
    return m.group(1).split(".")[-1] if m else None


def _declared_in_broken(name: str, errors: list) -> bool:
    """Does a file holding a syntax error declare `name` somewhere (maybe where it broke)?"""
    pat = re.compile(rf"\b{re.escape(name)}\b")
    return any(e.span is not None and pat.search(e.span.file.text) and re.search(
        rf"\b(?:class|enum|type|interface|function|client)\s+{re.escape(name)}\b", e.span.file.text)
        for e in errors)


@dataclass
class TestOutcome:
    file: str
    name: str
    passed: bool
    error: dict | None
    tolerated: bool = False  # failed, but inside a testset whose runner passed it (`PassRate`)


class Program:
    """A compiled BAML program ready to run."""

    def __init__(self, index, diagnostics, shared=None, prefix: str = ""):
        """`shared`: a runtime whose classes and enums this program keeps where declared alike;
        `prefix`: put before the rendered names of root classes and enums (a session's)."""
        self.index = index
        self.diagnostics = diagnostics
        self.tests = {f"test:{i}": t for i, t in enumerate(index.tests)}
        classes = {fqn: [f.name for f in c.fields] for fqn, c in index.classes.items()}
        enums = {fqn: list(e.variants) for fqn, e in index.enums.items()}
        methods = {fqn: {m: f.fqn for m, f in c.methods.items()} for fqn, c in index.classes.items()}
        self.runtime = bexvm.Runtime(self._lower, classes, enums,
                                     {fqn: _shown(c, prefix) for fqn, c in index.classes.items()},
                                     {fqn: _shown(e, prefix) for fqn, e in index.enums.items()}, methods, shared)
        self.runtime.frame_files.update((f.source.path, f.source.rel) for f in index.files)
        self.runtime.test_frames.update(_test_frames(self.tests))
        self._attach_interfaces()
        self._attach_json_names()
        self.mirx_view = None  # made by assay.mirx.view, once per program
        builtins = {name: SimpleNamespace(param_names=native_value_params(n), type_params=n.type_params)
                    for name, n in FUNCTIONS.items()}
        variants = {fqn: {v: ir.VariantConst(fqn, v) for v in e.variants} for fqn, e in self.runtime.enums.items()}
        builtin_methods = frozenset(f"method:{kind}.{name}" for kind, ms in METHODS.items() for name in ms)
        self.lowering = mirlower.Program(index, builtins, variants, self.runtime.classes, builtin_methods)
        self.runtime.reflection.program = Reflector(index, self.lowering.types,
                                                    {k: t.decl.body for k, t in self.tests.items()},
                                                    _shown_names(index, prefix))
        self.runtime.reflection.compiler = compile_nested  # reflect.Package.compile, reflect.Session
        self.runtime.reflection.package = self  # reflect.Package.current
        self.sources: list[SourceFile] = []  # set by compile_sources

    def _attach_interfaces(self) -> None:
        """Classes implementing stdlib interfaces get their methods hooked into the operators
        (`baml.ops.Add` …: Python's operator methods on the instance class), `==`
        (`Equals`), ordering and sorting (`Compare`) and rendering (`ToString`)."""
        hooks = {"baml.ops.Equals": ("eq", ops.EQ_OVERRIDES), "baml.ops.Compare": ("cmp", ops.CMP_OVERRIDES),
                 "baml.ToString": ("to_string", TO_STRING_OVERRIDES)}
        for fqn, c in self.index.classes.items():
            info = self.runtime.classes[fqn]
            for impl in c.impls:
                name = impl.std
                if name in hooks and hooks[name][0] in c.methods:
                    attr = "m_" + hooks[name][0]
                    hooks[name][1][info] = lambda a, *rest, _attr=attr: getattr(a, _attr)(*rest)
                for dunder, method in ops.OPERATOR_METHODS.get(name, ()):
                    if method in c.methods:
                        setattr(info.py, dunder, ops.operator_method(dunder, method))
                if name == "baml.ops.Compare" and "cmp" in c.methods:  # `v.max(w)`, `v.lt(w)`, …
                    for mname, fn in ops.COMPARE_DEFAULTS.items():
                        if mname not in c.methods:
                            setattr(info.py, "m_" + mname, fn)

        for impl in self.index.impls:  # an enum's `implement baml.ToJson for E` (FromJson)
            if not isinstance(impl.target, T.EnumT):
                continue
            for std, name, table in (("baml.ToJson", "to_json", ENUM_TO_JSON), ("baml.FromJson", "from_json", ENUM_FROM_JSON)):
                m = impl.methods.get(name)
                if impl.std == std and m is not None:
                    info = self.runtime.enums[impl.target.enum.fqn]
                    table[info] = lambda v, _fqn=m.fqn: self.runtime.plain.compile(_fqn)(v)

    def _attach_json_names(self) -> None:
        """`@alias`/`@skip` of fields and variants, for `baml.json` under `Naming.Aliased`."""
        for fqn, c in self.index.classes.items():
            self.runtime.classes[fqn].json_names = {f.name: _json_name(f.attrs) for f in c.fields if f.attrs}
        for fqn, e in self.index.enums.items():
            self.runtime.enums[fqn].json_names = {v.name: _json_name(v.attrs) for v in e.decl.variants if v.attrs}

    # ── lowering, on demand ──

    def _lower(self, fqn: str):
        if interfaces.DISPATCH in fqn:
            return [mirdispatch.dispatcher(self.index, fqn, self.lowering.reifying)]
        if fqn in self.tests:
            t = self.tests[fqn]
            lw = mirlower.FnLowerer(self.lowering, fqn, t.namespace, [], t.decl.body, span=t.decl.span)
        elif fqn.endswith(llmprompt.PROMPT_SUFFIX):  # an LLM function's backtick prompt (assay.llm)
            fdef = self.index.functions[fqn[:-len(llmprompt.PROMPT_SUFFIX)]]
            d = fdef.decl
            _, text, _ = llmformat.for_function(self.lowering.types, fdef)
            lw = mirlower.FnLowerer(self.lowering, fqn, fdef.namespace, d.params,
                                    llmprompt.prompt_block(d.llm, text), owner=fdef.owner,
                                    has_self=d.has_self, generics=set(llmformat.generics_of(fdef)),
                                    span=d.llm.prompt.span)
        else:
            fdef = self.index.functions.get(fqn)
            if fdef is None:
                raise KeyError(fqn)
            d = fdef.decl
            generics = {g.name for g in d.generics}
            if fdef.owner is not None:
                generics |= {g.name for g in fdef.owner.decl.generics}
            lw = mirlower.FnLowerer(self.lowering, fqn, fdef.namespace, d.params, d.body,
                                    owner=fdef.owner, has_self=d.has_self, generics=generics, span=d.span)
        try:
            fn = lw.lower_function()
        except mirlower.LowerError as e:
            raise CompileError([Diagnostic(e.span, "E9001", e.message)]) from None
        return [fn] + lw.lambdas

    # ── running ──

    def resolve(self, name: str):
        """A function by name as the host writes it: `Fn`, `ns.Fn`, `Class.method`."""
        path = name.split(".")
        if path[0] == "user":
            path = path[1:]
        ns = ".".join(path[:-1]) or None
        item = self.index.lookup(ns, path[-1:]) if ns in self.index.scopes else None
        if item is None:
            item = self.index.lookup(None, path)
        if item is None or type(item).__name__ != "FunctionDef" or getattr(item.decl, "is_global", False):
            raise KeyError(f"no function named {name!r}")  # a `const` global is no function
        return item

    def type_test(self, namespace, texpr, generics=frozenset(), targs: dict | None = None) -> tuple:
        """The run-time test of a type written in `namespace` (host arguments); `targs`: tests of
        its type variables."""
        t = self.lowering.tested_types.resolve(texpr, namespace, frozenset(generics))
        return typetest.of(t, t is T.TOP, targs)  # a declared `unknown` (not a type parameter): ('unknown',)

    def call_fqn(self, fqn: str, args: list):
        return self.runtime.call(fqn, args)

    def run_tests(self, pattern: str | None = None, fail_fast: bool = False) -> list[TestOutcome]:
        return list(self.iter_tests(pattern, fail_fast))

    def iter_tests(self, pattern: str | None = None, fail_fast: bool = False, extensions=(),
                   timeout: float | None = None, starting=None):
        """Run the `test` blocks in source order, yielding each outcome as it is known; a test
        running longer than `timeout` seconds is stopped and fails (error type Timeout).
        `starting(name)` is told each test's name before it runs."""
        def matches(name: str, path: str) -> bool:  # a substring of the name, or a predicate
            return not pattern or (pattern(name, path) if callable(pattern) else pattern in name)

        for key, t in self.tests.items():
            registered = _registered(t)
            if not registered and not matches(t.name, t.file.source.path):
                continue
            if starting is not None:
                starting(t.name)
            outs = (self._run_registered(key, t, matches if pattern else None, extensions, timeout) if registered
                    else [self._run_test(key, t, extensions, timeout)])
            for out in outs:
                yield out
                if fail_fast and not out.passed and not out.tolerated:
                    return

    def _run_test(self, key: str, t, extensions=(), timeout: float | None = None) -> TestOutcome:
        """A test passes iff its body runs without an uncaught throw or panic."""
        path = t.file.source.path
        self._for_test(t.name)
        error = self._guarded(lambda: self.runtime.call(key, [], extensions), timeout)
        return TestOutcome(path, t.name, error is None, error)

    def _run_registered(self, key: str, t, matches, extensions=(), timeout: float | None = None):
        """A testset, or a test with a runner or a computed name: its leaves' outcomes (ids
        `set::…::test`), as `testing` runs them (`matches(id, file)`: the leaves to run, None:
        all); `timeout` bounds the whole declaration."""
        path = t.file.source.path

        def run_body(body, name: str):
            self._for_test(name)  # a replay file keys a testset's answers by test id
            return self._guarded(body, None, invalid_name=False)
        top = bextesting.TopLevel(run_body, lambda e: describe_error(e.value, e.panic),
                                  None if matches is None else lambda name: matches(name, path))
        report = None
        error = self._guarded(lambda: bextesting.run_top(top, lambda: self.runtime.call(key, [], extensions)),
                              timeout)
        if error is None:
            report = top.report
        if report is None:  # stopped before it ran: its registration threw, or time ran out
            return [TestOutcome(path, t.name or "(test)", False, error)]
        return [TestOutcome(path, name, ok, err, tolerated)
                for name, ok, tolerated, err in bextesting.leaves(top)]

    def _for_test(self, name: str) -> None:
        start_test = getattr(getattr(self.runtime.llm, "client", None), "for_test", None)
        if start_test is not None:  # a replay file keyed by test names (assay.llm.client.Replay)
            start_test(name)

    def _guarded(self, run, timeout: float | None, invalid_name: bool = True) -> dict | None:
        """run(): None when it returns, else the error it stopped with (one error document).
        `invalid_name` False: a `::` in a test's name goes on up (it stops the whole run)."""
        try:
            with bexstack.time_limit(timeout):
                run()
            return None
        except bexstack.TimeLimit:
            return {"type": "Timeout", "message": f"test did not finish within {timeout:g} s", "fields": {}}
        except BamlRaise as e:
            error = describe_error(e.value, e.panic)
            error["traceback"] = bexvm.baml_traceback(self.runtime, e)
            return error
        except CompileError as e:
            return {"type": "CompileError", "message": str(e), "fields": {}}
        except LlmCallError as e:
            return {"type": type(e).__name__, "message": str(e), "fields": {"function": e.function}}
        except bextesting.InvalidTestName as e:  # the engine stops the run; here: this declaration fails
            if not invalid_name:
                raise
            return {"type": "testing.InvalidTestName", "message": str(e), "fields": {"message": str(e)}}
        except Exception as e:  # noqa: BLE001 — an internal error fails only this test
            return {"type": "InternalError", "message": f"{type(e).__name__}: {e}", "fields": {}}


def _registered(t) -> bool:
    """A test that runs through `testing`'s registration (else its body is the test)."""
    d = t.decl
    return d.is_set or d.runner is not None or d.name_expr is not None


def describe_error(value, panic: bool) -> dict:
    """The one error shape of Assay: {"type", "message", "fields"}."""
    if isinstance(value, Instance):
        info = value._class
        fields = {f: getattr(value, "f_" + f) for f in info.fields}
        msg = fields.get("message")
        type_name = info.fqn
        if msg is None:
            msg = render(value)
        return {"type": type_name, "message": msg if isinstance(msg, str) else render(msg),
                "fields": fields, "panic": panic}
    return {"type": "BamlError", "message": render(value), "fields": {}, "value": value, "panic": panic}


def _shown(item, prefix: str) -> str:
    return prefix + item.name if item.namespace is None else item.name


def _test_frames(tests: dict) -> dict:
    """Each test block's frame as the engine names it: its file's `$init_test_<path>` runs
    the file's blocks, each body a lambda numbered in source order after the earlier
    blocks' bodies and their lambdas."""
    out, seen = {}, {}
    for key, t in tests.items():
        rel = t.file.source.rel
        n = seen.get(rel, 0)
        out[key] = ("$init_test_" + re.sub(r"\W", "_", rel.rpartition(".")[0] or rel), n)
        seen[rel] = n + 1 + sum(isinstance(x, ast.Lambda) for x in walk(t.decl.body))
    return out


def _shown_names(index, prefix: str) -> dict[str, str]:
    """Declarations reflection renders under another name than their path: a session's own
    (`prefix` + name) and a mounted package's (without its alias), as the engine does."""
    out = {}
    for item in index.all_items():
        if getattr(item, "owner", None) is not None:
            continue
        ns = item.namespace
        if ns is None and prefix:
            out[item.fqn] = prefix + item.name
        elif ns is not None and ns.split(".")[0] in index.packages:
            rest = ns.split(".")[1:]
            out[item.fqn] = ".".join([*rest, item.name])
    return out


def compile_sources(sources: list[SourceFile], shared=None, prefix: str = "", packages=()) -> Program:
    with gcpause.paused():
        index, diags = analyze(sources, packages)
        errors = [d for d in diags if d.severity == "error"]
        if errors:
            raise CompileError(errors)
        prog = Program(index, diags, shared, prefix)
        prog.sources = list(sources)
    for fqn, fd in index.functions.items():  # globals are set at startup, in dependency order
        if getattr(fd.decl, "is_global", False):
            prog.runtime.global_value(fqn)
    return prog



def _json_name(attrs) -> tuple:
    """(@alias or None, @skip) of a field or variant."""
    alias = next((a.args[0].value for a in attrs if a.name == "alias" and a.level == 1 and a.args
                  and isinstance(getattr(a.args[0], "value", None), str)), None)
    return alias, any(a.name == "skip" and a.level == 1 for a in attrs)


def compile_nested(files: dict[str, str], mounts: dict, shared=None, prefix: str = "") -> Program:
    """BAML compiled at run time (`reflect.Package.compile`, `reflect.Session`: the runtime's
    callback, bex/stdlib/reflect_session.py): `files` by their `ns_<x>/` folders, each mounted
    package's sources under its alias as a namespace; the classes and enums of runtime `shared`
    kept where declared alike; `prefix` before the rendered names of the root's classes and
    enums (a session's: `__baml_session_0_Foo`, as the engine shows them). Raises CompileError."""
    sources = [SourceFile(path, text, _namespace_of(path)) for path, text in files.items()]
    for alias, prog in mounts.items():
        for s in prog.sources:
            ns = alias if s.namespace is None else f"{alias}.{s.namespace}"
            sources.append(SourceFile(f"{alias}/{s.path}", s.text, ns))
    return compile_sources(sources, shared, prefix, set(mounts))
