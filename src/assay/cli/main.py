"""The `assay` command line: check, run, test, explore, mir, dis.

Thin by design: parse options, call the library (assay.compiler / assay.api), format output.
Exit codes: 0 ok; 1 the program has errors, a test failed, or the call panicked / threw /
timed out; 2 bad usage or arguments (missing paths, bad JSON, unknown function, arguments that
do not fit); 3 internal error (a bug in Assay); 130 interrupted (Ctrl-C)."""
from __future__ import annotations

import json
import os
import sys
import threading
import time
import functools
import io
import traceback
from contextlib import contextmanager

import click

from .. import BAML_VERSION, __version__, jsonvalue, mirx
from ..api import ArgumentError, BamlProgram, LlmCallError
from ..llm.client import Replay, ReplayError
from ..bex.bytecode import disassemble
from ..bex.stdlib import io as baml_io
from ..bex.values import BamlRaise
from ..bex.stack import TimeLimit, time_limit
from ..bex.vm import baml_traceback
from ..compiler import Program, analyze, compile_sources, describe_error
from ..coverage.collect import Coverage
from ..explore import emit
from ..explore.driver import explore as explore_fn
from ..explore.parallel import explore_many as explore_parallel
from ..mir.pretty import format_function
from ..source import CompileError, Diagnostic, SourceFile
from ..sym import Tracer
from ..sym.inputs import Inputs
from .coverage import Session, check_output, coverage_group, coverage_options
from .testing import KeywordError, durations_text, junit_xml, keyword_matcher
from .ingot import INGOT_COMMANDS
from .output import emit_json, error_doc, error_text, jsonable, styled
from .sources import InputError, load_path, load_paths


class Failure(Exception):
    """An expected failure: printed as text on stderr, or as {"error": …} on stdout with --json."""

    def __init__(self, error: dict, code: int, text: str | None = None):
        super().__init__(error["message"])
        self.error = error
        self.code = code
        self.text = text if text is not None else f"error: {error['message']}"


def usage_failure(type_: str, message: str) -> Failure:
    return Failure({"type": type_, "message": message, "fields": {}}, 2)


@contextmanager
def reporting(as_json: bool):
    """Turn InputError / Failure into output and an exit code."""
    try:
        yield
    except InputError as e:
        _report(Failure({"type": "InputError", "message": e.text, "fields": {}}, e.exit_code, e.text), as_json)
    except Failure as f:
        _report(f, as_json)


def _report(f: Failure, as_json: bool):
    if as_json:
        emit_json({"error": error_doc(f.error)})
    else:
        click.echo(f.text, err=True)
    raise SystemExit(f.code)


@contextmanager
def program_output(to_stderr: bool):
    """Where `baml.io.print` writes: stdout, or stderr when stdout carries JSON."""
    old = baml_io.STDOUT, baml_io.STDERR
    baml_io.STDOUT = sys.stderr if to_stderr else sys.stdout
    baml_io.STDERR = sys.stderr
    try:
        yield
    finally:
        baml_io.STDOUT, baml_io.STDERR = old


# ── the group: version, and the outermost error handling ──


class AssayGroup(click.Group):
    """Runs commands with standalone_mode off so that every exit goes through here: usage
    errors → 2, Ctrl-C → 130, anything unexpected → `internal error: …` and 3."""

    def format_commands(self, ctx, formatter):
        """Each command with the whole first sentence of its help (click cuts it at 45 columns)."""
        rows = [(name, cmd.get_short_help_str(limit=1000)) for name in self.list_commands(ctx)
                if (cmd := self.get_command(ctx, name)) is not None and not cmd.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            rv = super().main(args, prog_name or "assay", complete_var, standalone_mode=False, **extra)
        except click.ClickException as e:
            _show_click_error(e)
            code = e.exit_code
        except (click.exceptions.Abort, KeyboardInterrupt):
            code = _interrupted()
        except BrokenPipeError:
            code = _broken_pipe()
        except Exception as e:  # noqa: BLE001 — the last line of defence: a bug in Assay
            code = _internal_error(e)
        else:
            code = rv if isinstance(rv, int) else 0
        sys.exit(code)


def _show_click_error(e: click.ClickException) -> None:
    """click's message, its usage lines first for a usage error, as `error: …` (every error
    line of Assay starts so)."""
    ctx = getattr(e, "ctx", None)
    if isinstance(e, click.UsageError) and ctx is not None:
        hint = f"Try '{ctx.command_path} {ctx.help_option_names[0]}' for help." \
            if ctx.command.get_help_option(ctx) is not None else ""
        click.echo(ctx.get_usage() + ("\n" + hint if hint else "") + "\n", err=True)
    click.echo(f"error: {e.format_message()}", err=True)


def _interrupted() -> int:
    click.echo("interrupted", err=True)
    _flush()
    if any(t is not threading.main_thread() and t.is_alive() and not t.daemon for t in threading.enumerate()):
        os._exit(130)  # a thread is still running and cannot be stopped
    return 130


def _broken_pipe() -> int:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 1


def _internal_error(e: BaseException) -> int:
    if os.environ.get("ASSAY_DEBUG") == "1":
        traceback.print_exception(e)
    click.echo(f"internal error: {type(e).__name__}: {e}", err=True)
    if os.environ.get("ASSAY_DEBUG") != "1":
        click.echo("(this is a bug in Assay; set ASSAY_DEBUG=1 for a traceback)", err=True)
    return 3


def _flush():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass


EXIT_CODES = """Exit status:

\b
  0    ok
  1    the program failed: compile errors, a failed test, a panic or uncaught throw, a time-out
  2    bad usage or input: options, paths, --args, unknown function; coverage below --fail-under
  3    internal error (a bug in Assay)
  5    no tests were collected (assay test)
  130  interrupted (Ctrl-C)
"""


@click.group(cls=AssayGroup, context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES)
@click.version_option(__version__, "-V", "--version", message=f"assay {__version__} (BAML {BAML_VERSION})")
def cli():
    """Assay: BAML's compiler and VM in Python."""


cli.add_command(coverage_group)
for _command in INGOT_COMMANDS:  # meta, ingot strip, cli, mcp (cli/ingot.py)
    cli.add_command(_command)


# ── compile helpers ──


def compile_program(sources: list[SourceFile]) -> Program:
    try:
        return compile_sources(sources)
    except CompileError as e:
        raise compile_failure(e.diagnostics, sources) from None


def compile_failure(diags: list[Diagnostic], sources: list[SourceFile]) -> Failure:
    diags = sort_diagnostics(diags, sources)
    text = "\n\n".join(d.render() for d in diags) + "\n\n" + _error_summary(diags)
    error = {"type": "CompileError", "message": "\n".join(d.render(excerpt=False) for d in diags),
             "fields": {}, "diagnostics": [d.to_json() for d in diags]}
    return Failure(error, 1, text)


def _error_summary(diags: list[Diagnostic]) -> str:
    n = sum(d.severity == "error" for d in diags)
    return f"error: {n} error{'s' if n != 1 else ''}, could not compile"


def sort_diagnostics(diags: list[Diagnostic], sources: list[SourceFile]) -> list[Diagnostic]:
    order = {id(s): i for i, s in enumerate(sources)}

    def key(d: Diagnostic):
        if d.span is None:
            return (len(order), 0)
        return (order.get(id(d.span.file), len(order)), d.span.start)
    return sorted(diags, key=key)


def lower_everything(program: Program) -> list[Diagnostic]:
    """Lower every function and test so that lowering-time errors are reported too."""
    diags: list[Diagnostic] = []
    for fqn in list(program.index.functions) + list(program.tests):
        try:
            program.runtime.compile(fqn)
        except CompileError as e:
            diags += e.diagnostics
        except Exception as e:  # noqa: BLE001 — a bug; name the function it happened in
            raise RuntimeError(f"while compiling {fqn}: {type(e).__name__}: {e}") from e
    return diags


def resolve(program: Program, name: str):
    try:
        return program.resolve(name)
    except KeyError as e:
        raise usage_failure("UnknownFunction", str(e.args[0]) if e.args else name) from None


# ── check ──


@cli.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--json", "as_json", is_flag=True, help="One JSON document: {diagnostics, ok}.")
def check(paths, as_json):
    """Parse, type-check and lower every function and test of PATH... (one program)."""
    with reporting(as_json):
        try:
            sources = load_paths(paths)
        except InputError as e:
            if not as_json:
                raise
            emit_json({"diagnostics": [e.to_json()], "ok": False})  # the documented shape
            return e.exit_code
        diags = check_sources(sources)
    errors = sum(d.severity == "error" for d in diags)
    if as_json:
        emit_json({"diagnostics": [d.to_json() for d in diags], "ok": errors == 0})
    else:
        _print_check(diags, errors, len(sources))
    return 1 if errors else 0


def check_sources(sources: list[SourceFile]) -> list[Diagnostic]:
    index, diags = analyze(sources)
    if not any(d.severity == "error" for d in diags):
        diags = diags + lower_everything(Program(index, diags))
    return sort_diagnostics(diags, sources)


def _print_check(diags: list[Diagnostic], errors: int, files: int):
    for d in diags:
        click.echo(d.render() + "\n")
    warnings = len(diags) - errors
    files_text = f"{files} file{'s' if files != 1 else ''} checked"
    warn_text = f" ({warnings} warning{'s' if warnings != 1 else ''})" if warnings else ""
    if errors:
        click.echo(f"error: {errors} error{'s' if errors != 1 else ''} in {files_text}{warn_text}")
    else:
        click.echo(f"ok: {files_text}{warn_text}")


# ── LLM answers (assay.llm) ──


def llm_replay_option(f):
    return click.option("--llm-replay", "llm_replay", metavar="FILE.json", default=None,
                        help="Answers of LLM functions: a JSON object, function name → list of answers "
                             "in call order (for `test`, also test name → such an object).")(f)


def use_replay(program: Program, path: str | None, sources=()) -> None:
    """Answers for LLM functions: `--llm-replay FILE`, else the `<file>.llm.json` files beside
    the test files (`assay explore --emit-tests` writes them), keyed by test name."""
    try:
        if path is not None:
            replay = Replay.load(path)
        else:
            merged = {}
            for src in sources:
                sibling = llm_answers_path(src.path)
                if src.path.endswith(".baml") and os.path.exists(sibling):
                    merged.update(Replay.load(sibling).data)
            if not merged:
                return
            replay = Replay(merged, "the .llm.json files beside the tests")
    except ReplayError as e:
        raise usage_failure("ArgumentError", str(e)) from None
    BamlProgram(program).set_llm(replay)


def llm_answers_path(baml_path: str) -> str:
    return baml_path[:-5] + ".llm.json" if baml_path.endswith(".baml") else baml_path + ".llm.json"


# ── run ──


@cli.command()
@click.argument("path")
@click.argument("function")
@click.option("--args", "args_text", metavar="JSON|@FILE",
              help="Named arguments as a JSON object, or @file.json.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"result": …} or {"error": …} on stdout; program output goes to stderr.')
@coverage_options
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="S",
              help="Give up after S seconds (error type Timeout).")
@llm_replay_option
def run(path, function, args_text, as_json, timeout, llm_replay, **cov_opts):
    """Call FUNCTION (`Fn`, `ns.Fn`) of the program at PATH and print its result as JSON."""
    cov = Session(cov_opts)
    with reporting(as_json):
        cov.check_outputs()
        args = parse_args(args_text)
        program = compile_program(load_path(path))
        use_replay(program, llm_replay)
        fdef = resolve(program, function)
        values = bind_args(program, fdef, args)
        with program_output(as_json):
            try:
                value = call(program, fdef, values, timeout, as_json, cov.extensions(program))
            finally:
                code, _ = cov.finish(program, functools.partial(click.echo, err=True))
    emit_json({"result": jsonable(value)} if as_json else jsonable(value))
    return code


def parse_args(text: str | None) -> dict:
    if text is None:
        return {}
    where = "--args"
    if text.startswith("@"):
        where = text[1:]
        text = _read_args_file(where)
    try:
        args = jsonvalue.loads(text)
    except jsonvalue.JsonValueError as e:
        at = f"{where}:{e.lineno}:{e.colno}" if e.lineno else where
        raise usage_failure("ArgumentError", f"{at}: {e.msg}") from None
    if not isinstance(args, dict):
        raise usage_failure("ArgumentError", f"{where}: expected a JSON object of named arguments, "
                                             f"got {_json_kind(args)}")
    return _runtime_bytes(args)


def _runtime_bytes(v):
    """`{"$bytes": …}` values (decoded to `bytes`) as the VM holds a uint8array: a bytearray."""
    if isinstance(v, bytes):
        return bytearray(v)
    if isinstance(v, dict):
        return {k: _runtime_bytes(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_runtime_bytes(x) for x in v]
    return v


def _json_kind(v) -> str:
    if v is None or isinstance(v, bool):
        return json.dumps(v)
    return {list: "an array", str: "a string", int: "a number", float: "a number"}.get(type(v), "a value")


def _read_args_file(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8")
    except OSError as e:
        raise usage_failure("ArgumentError", f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise usage_failure("ArgumentError", f"{path}: invalid UTF-8 at byte {e.start}") from None


def bind_args(program: Program, fdef, args: dict) -> list:
    try:
        return BamlProgram(program).bind(fdef, (), dict(args))
    except ArgumentError as e:
        raise usage_failure("ArgumentError", str(e)) from None


def call(program: Program, fdef, values: list, timeout: float | None, as_json: bool, extensions=()):
    """Run the call on this thread; stop it after `timeout` seconds (stack.TimeLimit)."""
    try:
        with time_limit(timeout):
            return program.runtime.call(fdef.fqn, values, extensions)
    except TimeLimit:
        _timed_out(fdef.name, timeout, as_json)
    except BaseException as e:  # noqa: BLE001 — BAML errors become the command's failure
        failure = _call_failure(e, fdef, program)
        if failure is e:
            raise
        raise failure from None


def _call_failure(e: BaseException, fdef, program: Program) -> BaseException:
    if isinstance(e, BamlRaise):
        error = describe_error(e.value, e.panic)
        where = f"({'panic' if e.panic else 'uncaught throw'} in a call of {fdef.name})"
        trace = traceback_text(baml_traceback(program.runtime, e))
        return Failure(error, 1, trace + error_text(error, where))
    if isinstance(e, CompileError):
        sources = [f.source for f in getattr(program.index, "files", [])]
        return compile_failure(e.diagnostics, sources)
    if isinstance(e, LlmCallError):
        error = {"type": type(e).__name__, "message": str(e), "fields": {"function": e.function}}
        return Failure(error, 1, f"error: {type(e).__name__}: {e}")
    return e


def traceback_text(frames) -> str:
    """The BAML frames an error passed through, as Python and the real engine print them."""
    if not frames:
        return ""
    lines = ["Traceback (most recent call last):"]
    lines += [f'  File "{file}", line {line}, in {fqn}' for fqn, file, line in frames]
    return "\n".join(lines) + "\n"


def _timed_out(name: str, timeout: float, as_json: bool):
    """The call was stopped where it was: report (error type Timeout, exit status 1)."""
    error = {"type": "Timeout", "message": f"{name} did not finish within {timeout:g} s", "fields": {}}
    raise Failure(error, 1, error_text(error, ""))


# ── test ──


@cli.command("test")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--json", "as_json", is_flag=True, help="One JSON document with a record per test.")
@click.option("-k", "pattern", metavar="EXPRESSION",
              help="Only tests matching EXPRESSION, as pytest's -k: case-insensitive substrings of the "
                   "test's name or file name joined by and, or, not and parentheses.")
@click.option("-x", "--exitfirst", "fail_fast", is_flag=True, help="Stop at the first failure.")
@click.option("-s", "no_capture", is_flag=True,
              help="Show the program's output as it is printed (default: captured, shown with a failing test).")
@click.option("--junit-xml", "junit_path", metavar="FILE", help="Write a JUnit XML report (for CI).")
@click.option("--durations", type=click.IntRange(min=0), metavar="N",
              help="Show the N slowest tests (0: all).")
@coverage_options
@llm_replay_option
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), metavar="S", default=60.0,
              show_default=True,
              help="Stop a test running longer than S seconds (it fails with error type Timeout).")
def test_cmd(paths, as_json, pattern, fail_fast, no_capture, junit_path, durations, llm_replay, timeout,
             **cov_opts):
    """Run the `test` blocks of PATH... (one program); exit 5 when no test was selected."""
    cov = Session(cov_opts)
    with reporting(as_json):
        try:
            match = keyword_matcher(pattern) if pattern else None
        except KeywordError as e:
            raise usage_failure("UsageError", str(e)) from None
        cov.check_outputs()
        if junit_path:
            check_output(junit_path, False)
        sources = load_paths(paths)
        program = compile_program(sources)
        use_replay(program, llm_replay, sources)
    records, outcomes = [], []
    t_all = time.perf_counter()
    with program_output(as_json):
        live = _running_line if sys.stderr.isatty() and not as_json else None
        tests = program.iter_tests(match, fail_fast, cov.extensions(program), timeout, live)
        while True:
            buf = None if no_capture else io.StringIO()
            saved = baml_io.STDOUT, baml_io.STDERR
            if buf is not None:
                baml_io.STDOUT = baml_io.STDERR = buf
            t0 = time.perf_counter()
            try:
                o = next(tests)
            except StopIteration:
                break
            finally:
                baml_io.STDOUT, baml_io.STDERR = saved
            seconds = time.perf_counter() - t0
            output = buf.getvalue() if buf is not None else ""
            outcomes.append(o)
            records.append({"file": o.file, "name": o.name, "passed": o.passed, "tolerated": o.tolerated,
                            "error": o.error,
                            "seconds": seconds, "output": output})
            if live is not None:
                click.echo("\r\033[K", err=True, nl=False)
            if not as_json:
                _print_test(o, output)  # streamed: a slow test shows the ones before it
    seconds = time.perf_counter() - t_all
    failed = sum(not o.passed and not o.tolerated for o in outcomes)
    tolerated = sum(o.tolerated for o in outcomes)
    if not as_json:
        if durations is not None and records:
            click.echo(durations_text(records, durations))
        click.echo(f"{len(outcomes) - failed - tolerated} passed, {failed} failed"
                   + (f", {tolerated} tolerated" if tolerated else "")
                   + ("" if outcomes else (" (no tests selected)" if program.tests else " (no tests)")))
    code, cov_doc = cov.finish(program, functools.partial(click.echo, err=as_json))
    if junit_path:
        try:
            write_text_file(junit_path, junit_xml(records, seconds))
        except OSError as e:
            click.echo(f"error: cannot write {junit_path}: {e.strerror or e}", err=True)
            code = code or 2
    if as_json:
        doc = _tests_doc(outcomes, failed)
        for rec, out in zip(doc["tests"], records):
            rec["seconds"] = round(out["seconds"], 6)
            rec["output"] = out["output"]
        if cov_doc is not None:
            doc["coverage"] = cov_doc
        emit_json(doc)
    if not outcomes:
        return 5  # as pytest: nothing was collected
    return 1 if failed else code


def write_text_file(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def _running_line(name: str) -> None:
    """On a terminal: the test now running, on one line of stderr (cleared when it ends)."""
    click.echo(f"\r\033[Krunning {name} …", err=True, nl=False)


def _tests_doc(outcomes, failed: int) -> dict:
    records = [{"file": o.file, "name": o.name, "passed": o.passed, "tolerated": o.tolerated,
                "error": error_doc(o.error) if o.error else None} for o in outcomes]
    tolerated = sum(o.tolerated for o in outcomes)
    return {"tests": records, "passed": len(outcomes) - failed - tolerated, "failed": failed,
            "tolerated": tolerated, "ok": failed == 0}


def _print_test(o, output: str = "") -> None:
    if o.passed:
        click.echo(f"{styled('PASS', 'green')} {o.file}::{o.name}")
    else:
        message = str(o.error.get("message", "")).replace("\n", "\n    ")
        frames = o.error.get("traceback") or []
        at = f" (at {frames[-1][1]}:{frames[-1][2]})" if frames else ""
        word = styled("TOLERATED", "yellow") if o.tolerated else styled("FAIL", "red")
        click.echo(f"{word} {o.file}::{o.name} — {o.error['type']}: {message}{at}")
        if output:  # what the failing test printed (captured; -s shows it live instead)
            click.echo("    ---- captured output ----")
            click.echo("\n".join("    " + line for line in output.rstrip("\n").split("\n")))


# ── explore ──


@cli.command()
@click.argument("path")
@click.argument("function", required=False)
@click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              metavar="SECONDS", help="Time per function (compilation not counted).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the first inputs.")
@click.option("--max-len", type=click.IntRange(min=0), default=8, show_default=True,
              help="Bound on the lengths of generated strings, arrays and maps.")
@click.option("--max-depth", type=click.IntRange(min=0), default=3, show_default=True,
              help="Bound on the nesting of generated recursive classes.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object (per function: verdict, cases, stats).")
@click.option("--emit-tests", "emit_path", metavar="OUT.baml", default=None,
              help="Write a BAML test per distinct outcome found.")
@click.option("--force", is_flag=True, help="Let --emit-tests overwrite an existing file.")
@click.option("--workers", type=click.IntRange(min=1), default=1, show_default=True, metavar="N",
              help="Explore on N worker processes (1: in this process).")
@click.option("--ray", "ray_address", is_flag=False, flag_value="local", default=None, metavar="[ADDRESS]",
              help="Explore on a Ray cluster: bare --ray starts a local one; `auto`, `ray://host:port`, "
                   "`host:port` join one (one worker per CPU unless --workers N).")
def explore(path, function, budget, seed, max_len, max_depth, as_json, emit_path, force, workers, ray_address):
    """Generate inputs that cover every path of FUNCTION (or of every function) of the program
    at PATH, find its crashes, and report them (exit 1 when a bug was found)."""
    with reporting(as_json):
        if emit_path and os.path.exists(emit_path) and not force:
            raise usage_failure("UsageError", f"{emit_path} exists (use --force to overwrite it)")
        t0 = time.perf_counter()
        program = compile_program(load_path(path))
        view = mirx.view(program)
        names = [resolve(program, function).fqn] if function else \
            [f.fqn for f in view.functions(include_tests=False) if f.kind == "function"]
        build = time.perf_counter() - t0
        live = LiveLine() if sys.stderr.isatty() and not as_json else None
        pool = None
        with program_output(True):
            if workers > 1 or ray_address is not None:
                pool = explore_parallel(view, names, budget=budget, seed=seed, max_len=max_len,
                                        max_depth=max_depth, workers=workers, progress=live,
                                        ray=None if ray_address is None else ray_address)
                reports = pool["functions"]
            else:
                reports = [explore_fn(view, fqn, budget=budget, seed=seed, max_len=max_len, max_depth=max_depth,
                                      progress=live) for fqn in names]
        if live is not None:
            live.clear()
        for r in reports:
            stats = r.setdefault("stats", {})  # compiling the program + generating instrumented code
            stats["build_seconds"] = round(build + stats.get("build_seconds", 0.0), 6)
        if emit_path:
            text, answers = emit(view, reports)
            write_text(emit_path, text)
            if answers:  # beside the tests, where `assay test` finds them
                write_text(llm_answers_path(emit_path), json.dumps(answers, indent=2) + "\n")
    if as_json:
        emit_json(reports[0] if function else {"functions": reports, **({k: v for k, v in pool.items()
                                                                        if k != "functions"} if pool else {})})
    else:
        for r in reports:
            click.echo(explore_summary(r))
        if pool:
            done = ", ".join(f"{w['items']} items (pid {w['pid']})" for w in pool["workers"])
            click.echo(f"workers: {done}; start-up {pool['startup_seconds']:.2f} s")
    return 1 if any(r.get("bugs") for r in reports) else 0


class LiveLine:
    """The progress of an exploration on a terminal: one line on stderr, redrawn ≤ 10×/s."""

    def __init__(self):
        self.last = 0.0

    def __call__(self, fn: str, paths: int, branches: int, bugs: int, seconds: float) -> None:
        now = time.monotonic()
        if now - self.last >= 0.1:
            self.last = now
            click.echo(f"\r\033[K{fn}: {paths} paths, {branches} branch edges, {bugs} bugs, {seconds:.1f} s",
                       err=True, nl=False)

    def clear(self) -> None:
        click.echo("\r\033[K", err=True, nl=False)


def explore_summary(r: dict) -> str:
    if r["verdict"] == "skipped":
        return f"{r['function']}: skipped ({r['reason']})"
    cov = r["coverage"]
    lines = [f"{r['function']}: {r['verdict']}, {r['paths']} paths, branches {cov['branches_covered']}/"
             f"{cov['branches_total']}, {len(r['cases'])} outcomes, {r['bugs']} bugs "
             f"({r['stats']['executions']} executions, {r['seconds']:.2f} s)"]
    for c in r["cases"]:
        if c["bug"]:
            err = c["outcome"]["error"]
            lines.append(f"  BUG {err['type']}: {err['message']}  args={jsonvalue.dumps(c['args'], indent=None)}")
    for c in r.get("crashes", ()):
        lines.append(f"  CRASH {c['error']}  args={jsonvalue.dumps(c['args'], indent=None)}")
    return "\n".join(lines)


def write_text(path: str, text: str) -> None:
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise usage_failure("UsageError", f"cannot write {path}: {e.strerror}") from None


# ── mir / dis ──


@cli.command()
@click.argument("path")
@click.argument("function", required=False)
def mir(path, function):
    """Print the MIR of FUNCTION (or of every function) of the program at PATH."""
    with reporting(False):
        click.echo(dump_functions(path, function, lambda rt, fqn: format_function(rt.mir[fqn])))
    return 0


# built-in mirx extensions `dis --extension` can show compiled in (made only to compile with:
# a code space depends on the extension's type and config, never on the object)
EXTENSIONS = {
    "coverage": Coverage,
    "sym": lambda: Tracer([], Inputs(8)),
}


@cli.command()
@click.argument("path")
@click.argument("function", required=False)
@click.option("--extension", "extension", metavar="NAME", default=None,
              help=f"Show the generated Python code instrumented for a built-in mirx extension "
                   f"instead of the bytecode ({', '.join(EXTENSIONS)}).")
def dis(path, function, extension):
    """Print the bytecode of FUNCTION (or of every function) of the program at PATH; with
    --extension NAME, its generated Python code with extension NAME's snippets compiled in."""
    if extension is None:
        show = lambda rt, fqn: disassemble(rt.bytecode[fqn])  # noqa: E731
    elif extension not in EXTENSIONS:
        raise click.BadParameter(f"unknown extension {extension!r} (choose from {', '.join(EXTENSIONS)})",
                                 param_hint="'--extension'")
    else:
        ext = EXTENSIONS[extension]()
        show = lambda rt, fqn: rt.space((ext,)).source(fqn)  # noqa: E731
    with reporting(False):
        click.echo(dump_functions(path, function, show, instrumented=extension is not None))
    return 0


def dump_functions(path: str, function: str | None, show, instrumented: bool = False) -> str:
    sources = load_path(path)
    program = compile_program(sources)
    if instrumented:
        mirx.view(program)  # what an extension's compile half is shown
    fqns = [resolve(program, function).fqn] if function else list(program.index.functions)
    texts = []
    for fqn in fqns:
        try:
            program.runtime.compile(fqn)
        except CompileError as e:
            raise compile_failure(e.diagnostics, sources) from None
        texts += [show(program.runtime, f) for f in with_lambdas(program, fqn)]
    return "\n\n".join(texts)


def with_lambdas(program: Program, fqn: str) -> list[str]:
    """`fqn` and the lambdas lowered with it (named `fqn.<lambda@LINE:COL>`, nested alike)."""
    return [k for k in program.runtime.mir if k == fqn or k.startswith(fqn + ".<lambda")]


def main(argv: list[str] | None = None):
    cli.main(args=argv, prog_name="assay")


if __name__ == "__main__":  # pragma: no cover
    main()
