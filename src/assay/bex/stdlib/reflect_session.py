"""`reflect.Package.compile` and `reflect.Session`: BAML compiled and run from BAML.

The VM cannot import the compiler (the layers contract), so the compiler hands every runtime a
callback (`Reflection.compiler`): `compiler(files, mounts, shared)` compiles `{path: text}`
with each mounted package's sources under its alias as a namespace (`app.Greeter`), sharing
the run-time classes and enums of the runtime `shared` where their declarations are the same
(a session's values keep their class across submissions), and returns the compiled program
(duck-typed here: `.runtime`, `.index`, `.sources`) or raises `source.CompileError`.

A session keeps its declarations (the submissions that are declarations) and its globals (the
values its `let`s bound). A submission of statements runs as one generated function of the
session's program: the globals come in as a map (read as `unknown`: the checker stays quiet where
the engine's types would be known) and are rebound to their names, the statements run, each
writing the globals back when it completes (a later throw keeps them, as in the engine), and the
function returns the tail's value. A submission that fails to compile commits nothing."""
from __future__ import annotations

from ...sema import reflect as R
from ...source import CompileError, SourceFile
from ...syntax import ast
from ...syntax.parser import parse_file
from .. import ops
from ..values import OMITTED, BamlRaise, RType, RView
from ._registry import _KIND_OF, METHODS, method
from .render import render
from .reflect import _baml_type, _declarations, describe_value

EVAL_FN = "__session_eval"
_HEAD = f"function {EVAL_FN}() -> unknown {{\n"

for _q, _f in (("reflect.errors.EvaluationError", ["message", "cause"]),
               ("reflect.errors.NotFound", ["message"]), ("reflect.errors.SessionBusy", ["message"]),
               ("reflect.Diagnostic", ["code", "span", "message", "severity", "phase", "headline",
                                       "primary_label", "message_highlights", "annotations", "related_info"]),
               ("reflect.Span", ["file", "start", "end"]),
               ("reflect.DiagnosticHighlight", ["start", "end", "kind"]),
               ("reflect.DiagnosticAnnotation", ["span", "message", "message_highlights", "is_primary"])):
    ops.BUILTIN_CLASSES.setdefault(_q, ops.ClassInfo(_q, _q.rpartition(".")[2], _f))


class RPackage:
    """A `reflect.Package`: a program compiled at run time."""
    __slots__ = ("program",)

    def __init__(self, program):
        self.program = program


class RSession:
    """A `reflect.Session`: its mounted packages, declarations, globals, and the program of its
    last submission (whose classes the next one shares)."""
    __slots__ = ("refl", "mounts", "decls", "globals", "program", "count", "busy", "prefix")

    def __init__(self, refl, mounts: dict):
        self.refl = refl
        self.prefix = "__baml_session_0_"  # its classes' rendered names, as the engine's
        self.mounts = mounts
        self.decls: dict[str, str] = {}
        self.globals: dict[str, object] = {}  # name → value, what its `let`s bound
        self.program = None
        self.count = 0
        self.busy = False


METHODS.setdefault("package", {})
METHODS.setdefault("session", {})
_KIND_OF[RPackage] = "package"
_KIND_OF[RSession] = "session"


def _compilation_error(e: CompileError):
    """Throw `reflect.errors.CompilationError` for a compile error (its first diagnostic's
    text, as the engine flattens it: headline and primary label)."""
    ds = [d for d in e.diagnostics if d.severity == "error"] or e.diagnostics
    diags = [_diagnostic(d) for d in ds]
    ops.throw_error("reflect.errors.CompilationError", message=diags[0].f_message if diags else str(e),
                    diagnostics=diags)


def _diagnostic(d):
    text = d.message + (": " + d.notes[0] if d.notes else "")
    span = None
    if d.span is not None:
        span = ops.make_builtin("reflect.Span", file=d.span.file.path, start=d.span.start, end=d.span.end)
    ann = [ops.make_builtin("reflect.DiagnosticAnnotation", span=span, message=None, message_highlights=[],
                            is_primary=True)] if span is not None else []
    return ops.make_builtin("reflect.Diagnostic", code=d.code, span=span, message=text, severity=d.severity,
                            phase=None, headline=d.message, primary_label=d.notes[0] if d.notes else None,
                            message_highlights=[], annotations=ann, related_info=[])


def _compile(refl, files: dict, mounts: dict, shared=None, prefix: str = "", reword=None):
    """Compile through the runtime's compiler callback; a compile error (`reword`: its engine
    wording, for `eval<T>`) is thrown as `reflect.errors.CompilationError`."""
    if refl.compiler is None:
        ops.panic("baml.panics.UserPanic", message="reflect: this runtime has no compiler")
    try:
        return refl.compiler(files, {a: p.program for a, p in mounts.items()}, shared, prefix)
    except CompileError as e:
        _compilation_error(reword(e) if reword is not None else e)


def _mounts(packages) -> dict:
    return {} if packages is None or packages is OMITTED else dict(packages)


# ── reflect.Package ──

def package_compile(refl, files, packages=None) -> RPackage:
    return RPackage(_compile(refl, dict(files), _mounts(packages)))


def _item(pkg: RPackage, table: str, name: str):
    items = getattr(pkg.program.index, table)
    return items.get("user." + name)


def _not_found(kind: str, name: str):
    ops.throw_error("reflect.errors.NotFound", message=f"no {kind} named {name} in this package")


def _view(pkg: RPackage, kind: str, desc: tuple) -> RView:
    return RView(kind, RType(desc, pkg.program.runtime.reflection))


@method("package")
def find_class(self: RPackage, name: str):
    cd = _item(self, "classes", name)
    return None if cd is None else _view(self, "Class", ("class", cd.fqn, ()))


@method("package")
def get_class(self: RPackage, name: str):
    return find_class(self, name) or _not_found("class", name)


@method("package")
def find_enum(self: RPackage, name: str):
    ed = _item(self, "enums", name)
    return None if ed is None else _view(self, "Enum", ("enum", ed.fqn))


@method("package")
def get_enum(self: RPackage, name: str):
    return find_enum(self, name) or _not_found("enum", name)


@method("package")
def find_interface(self: RPackage, name: str):
    idef = _item(self, "interfaces", name)
    return None if idef is None else _view(self, "Interface", ("iface", idef.fqn, ()))


@method("package")
def get_interface(self: RPackage, name: str):
    return find_interface(self, name) or _not_found("interface", name)


def _keyed(pkg: RPackage, table: str, make) -> dict:
    """Exported declarations keyed as the engine keys them (`root.Name`)."""
    out = {}
    for fqn, item in getattr(pkg.program.index, table).items():
        if getattr(item, "owner", None) is None and not fqn.startswith("user.__") and \
                not getattr(getattr(item, "decl", None), "is_global", False):  # a `const` is no function
            out["root." + fqn[5:]] = make(item)
    return out


@method("package")
def classes(self: RPackage) -> dict:
    return _keyed(self, "classes", lambda cd: _view(self, "Class", ("class", cd.fqn, ())))


@method("package")
def enums(self: RPackage) -> dict:
    return _keyed(self, "enums", lambda ed: _view(self, "Enum", ("enum", ed.fqn)))


@method("package")
def interfaces(self: RPackage) -> dict:
    return _keyed(self, "interfaces", lambda i: _view(self, "Interface", ("iface", i.fqn, ())))


@method("package")
def functions(self: RPackage) -> dict:
    refl = self.program.runtime.reflection
    return _keyed(self, "functions", lambda fd: RView("Function", RType(
        refl.program.function_desc(fd.fqn, False), refl)))


def find_function(refl, pkg: RPackage, want: tuple, name: str):
    """`find_function<F>(name)`: the function itself (a value of the package's runtime), when
    its signature is an F (parameter and return types; names and `throws` aside)."""
    fd = _item(pkg, "functions", name)
    if fd is None or fd.owner is not None or getattr(fd.decl, "is_global", False):
        return None
    if fd.decl.generics:
        ops.throw_error("reflect.errors.CompilationError", diagnostics=[],
                        message=f"function `{name}` is generic: a lookup by name cannot specialize it")
    have = pkg.program.runtime.reflection.program.function_desc(fd.fqn, False)
    if want[0] == "fn" and not _fits(have, want):
        ops.throw_error("reflect.errors.CompilationError", diagnostics=[],
                        message=f"function `{name}` is not a `{R.render(want)}`")
    return pkg.program.runtime.plain.compile(fd.fqn)


def get_function(refl, pkg: RPackage, want: tuple, name: str):
    got = find_function(refl, pkg, want, name)
    return got if got is not None else _not_found("function", name)


def _fits(have: tuple, want: tuple) -> bool:
    return (len(have[1]) == len(want[1]) and all(R.key(a[1]) == R.key(b[1]) for a, b in zip(have[1], want[1]))
            and R.key(have[2]) == R.key(want[2]))


@method("package")
def with_types(self: RPackage, types) -> RPackage:
    """This package's sources compiled again with `types` exported under the given names: a
    run-time class or enum declared there (with those it reaches), any other type an alias."""
    prog = self.program
    refl = prog.runtime.reflection
    taken = set(prog.index.items_in(None))
    names = {fqn: (fqn[5:] if "." not in fqn[5:] else "root." + fqn[5:])
             for fqn in (*prog.index.classes, *prog.index.enums, *prog.index.interfaces)}
    given = [(ops.unkey(n), t.ty if type(t) is RView else t) for n, t in types.items()]
    for _, t in given:  # a run-time declaration lives in the reflection that made it
        names.update(t.refl.runtime_names)
    rows = []
    for name, t in given:
        if name in taken:
            ops.throw_error("reflect.errors.CompilationError", diagnostics=[],
                            message=f"duplicate exported type name `{name}`")
        taken.add(name)
        if t.desc[0] in ("class", "enum") and t.desc[1] in t.refl.runtime:
            names[t.desc[1]] = name
        else:
            rows.append((name, t.desc))
    out: list = []
    seen: set = set()
    for _, t in given:
        _declarations(t.refl, t.desc, out, seen, names, lambda f, r=t.refl: f in r.runtime)
    out += [f"type {name} = {_baml_type(d, names)}" for name, d in rows]
    files = {_source_path(src): src.text for src in prog.sources}
    files["$with_types.baml"] = "\n\n".join(out)
    return RPackage(_compile(refl, files, {}))


def _source_path(src) -> str:
    """A source's path as `Package.compile` reads it: its namespace as `ns_<x>/` folders."""
    base = src.path.replace("\\", "/").rsplit("/", 1)[-1]
    return "".join(f"ns_{p}/" for p in src.namespace.split(".")) + base if src.namespace else base


def package_current(refl) -> RPackage:
    """The package the calling code belongs to: its runtime's program."""
    return RPackage(refl.package)


def _global_items(pkg: RPackage) -> dict:
    """The package's `const` globals: `root.<namespace>.NAME` → its declaration."""
    return {"root." + fd.fqn.removeprefix("user."): fd for fd in pkg.program.index.functions.values()
            if getattr(fd.decl, "is_global", False)}


@method("package", "globals")
def globals_(self: RPackage) -> dict:
    return {key: self.program.runtime.global_value(fd.fqn) for key, fd in _global_items(self).items()}


def _global_key(name: str) -> str:
    return name if name.startswith("root.") else "root." + name


def find_global(refl, pkg: RPackage, want: tuple, name: str):
    """`find_global<T>(name)` (`ns.NAME` or `root.ns.NAME`): its value, checked against T."""
    fd = _global_items(pkg).get(_global_key(name))
    if fd is None:
        return None
    v = pkg.program.runtime.global_value(fd.fqn)
    if not refl.fits(v, want):
        shown = R.render(describe_value(v, refl), refl.names)
        ops.throw_error("reflect.errors.TypeMismatch", message=f"global `{name}` has type "
                        f"`{shown}`, expected `{R.render(want, refl.names)}`")
    return v


def get_global(refl, pkg: RPackage, want: tuple, name: str):
    if _global_key(name) not in _global_items(pkg):
        _not_found("global", name)
    return find_global(refl, pkg, want, name)


@method("package")
def tests(self: RPackage) -> dict:
    """Each test as a callable, keyed `root.<namespace>::<name>` (testsets are no tests)."""
    space = self.program.runtime.plain
    return {f"root{'.' + t.namespace if t.namespace else ''}::{t.decl.name}": _test_callable(space, key)
            for key, t in self.program.tests.items() if not t.decl.is_set}


def _test_callable(space, key: str):
    def run():
        space.compile(key)()
        return None
    return run


@method("package", "diagnostics")
def package_diagnostics(self: RPackage) -> list:
    return []  # a program Assay runs compiled without errors; it reports no warnings


@method("session", "diagnostics")
def session_diagnostics(self: RSession) -> list:
    return []


# ── reflect.Session ──

def session_new(refl, packages=None) -> RSession:
    return RSession(refl, _mounts(packages))


@method("session", "eval")
def eval_(self: RSession, source: str, want: tuple | None = None):
    """`session.eval<T>(source)` (`want`: T's descriptor, when written)."""
    if self.busy:
        ops.throw_error("reflect.errors.SessionBusy", message="the session is already evaluating")
    self.busy = True
    try:
        self.count += 1
        f, diags = parse_file(SourceFile("$submission.baml", source))
        if not diags and (f.items or f.impls or f.clients):
            return _declare(self, source)
        return _run(self, source, want)
    finally:
        self.busy = False


def _declare(s: RSession, source: str):
    decls = {**s.decls, f"$submission_{s.count}.baml": source}
    prog = _compile(s.refl, decls, s.mounts, _shared(s), s.prefix)
    s.decls, s.program = decls, prog
    return None


def _shared(s: RSession):
    return s.program.runtime if s.program is not None else None


_PLAIN = ("prim", "lit", "blit", "array", "map", "union")


def _plain(d: tuple) -> bool:
    """A requested type a submission can name (no declaration of the caller's program in it)."""
    if d[0] not in _PLAIN:
        return False
    return all(_plain(x) for x in d[1:] if type(x) is tuple and x and type(x[0]) is str) and \
        (d[0] != "union" or all(_plain(m) for m in d[1]))


def _run(s: RSession, source: str, want: tuple | None = None):
    """A submission of statements: each top-level statement that completes commits the globals
    (the engine's rule: a later throw keeps what ran before it)."""
    body = _body(source)
    at = len(_HEAD)
    lines = [f"function {EVAL_FN}(__g: map<string, unknown>) -> unknown {{"]
    lines += [f'let {n} = __g["{n}"];' for n in s.globals]
    declared = list(s.globals)
    for st in body.stmts:
        lines.append(source[st.span.start - at:st.span.end - at])
        if (isinstance(st, ast.Let) and isinstance(st.pattern, ast.PBind) and not st.type_binding
                and st.pattern.name not in declared):  # (a `let type` binds no value)
            declared.append(st.pattern.name)
        lines.append("; ".join(f'__g["{n}"] = {n}' for n in declared))
    value = source[body.tail.span.start - at:body.tail.span.end - at] if body.tail is not None else "null"
    typed = want is not None and want != R.UNKNOWN and _plain(want)
    contract = f": {R.render(want)}" if typed else ""
    lines += [f"let __session_value{contract} = {value};", "__session_value", "}"]
    files = {**s.decls, f"$submission_{s.count}.baml": "\n".join(lines)}
    reword = (lambda e: _contract_error(e, R.render(want))) if typed else None
    prog = _compile(s.refl, files, s.mounts, _shared(s), s.prefix, reword)
    fn = prog.runtime.plain.compile(f"user.{EVAL_FN}")
    store = dict(s.globals)
    s.program = prog
    try:
        return fn(store)
    except BamlRaise as e:
        if e.panic:
            raise
        ops.throw_error("reflect.errors.EvaluationError", message=render(e.value), cause=e.value)
    finally:
        s.globals = store


def _contract_error(e: CompileError, want: str) -> CompileError:
    """The result's mismatch with `eval<T>`'s T in the engine's words."""
    for d in e.diagnostics:
        if d.code == "E0001" and d.notes and d.notes[0].startswith(f"expected `{want}`, found `") \
                and "let __session_value" in d.span.file.line_text(d.span.line_col[0]):
            found = d.notes[0][len(f"expected `{want}`, found `"):].split("`")[0]
            msg = f"submission result has type `{found}`, which is not a subtype of requested contract `{want}`"
            return CompileError([type(d)(d.span, d.code, msg, d.severity)])
    return e


def _body(source: str) -> ast.Block:
    f, diags = parse_file(SourceFile("$submission.baml", _HEAD + source + "\n}"))
    if diags:
        _compilation_error(CompileError(diags))
    return f.items[0].body


# reached through a receiver of unknown static type: no `F` to check the function against
method("package", "get_function")(lambda self, name: get_function(None, self, R.UNKNOWN, name))
method("package", "find_function")(lambda self, name: find_function(None, self, R.UNKNOWN, name))

def session_eval(refl, session: RSession, want: tuple, source: str):
    return eval_(session, source, want)


CONSTRUCTORS = {"reflect.Package.compile": package_compile, "reflect.Package.current": package_current, "reflect.Session.new": session_new,
                "reflect.Package.get_function": get_function, "reflect.Package.find_function": find_function,
                "reflect.Package.get_global": get_global, "reflect.Package.find_global": find_global,
                "reflect.Session.eval": session_eval}
