"""The generated command-line interface: one subcommand per top-level function.

    assay cli PATH -- COMMAND [OPTIONS]        (or a launcher written by `--install NAME`)

Command names: the payload's `cli.name`, else the function's name in kebab-case (namespaced
functions as `ns.name`); `cli: false` hides one; functions whose parameters or result hold
functions are left out. One option per parameter, `--` + its name with `_` as `-`: int,
float and string options; bool as `--x/--no-x`; enums and unions of string literals as
choices; anything else (classes, arrays, maps, unions) as JSON given inline, as `@FILE`, or
`-` for stdin. Required parameters are required options; an omitted optional parameter is
null, an omitted parameter with a default takes it. Arguments are validated against the same
JSON Schema as the MCP server's. Help from the payload's `help` (else the function's `///`
doc) and each parameter's `help` (else the `@description` of its class or enum).

`--help` prints on stdout and exits 0; usage errors exit 2; a BAML panic or throw exits 1
(`error: TYPE: MESSAGE` on stderr); results print as JSON on stdout. Program output
(`baml.io.print`) goes to stderr so that stdout is the result only."""
from __future__ import annotations

import json
import os
import sys

import click

from .. import jsonvalue, mirx
from .tools import CallFailed, Entry, entries

JSON_HELP = "JSON, @FILE or - (stdin)"


def _strings(t) -> list[str] | None:
    """The choices of an enum or a union of string literals."""
    if t is None:
        return None
    if t.kind == "enum" and t.literal is None:
        return [v.name for v in t.variants]
    if t.kind == "union" and t.members and all(m.kind == "literal" and isinstance(m.literal, str) for m in t.members):
        return [m.literal for m in t.members]
    return None


def _base(t):
    """T of `T | null` (else t)."""
    if t is not None and t.kind == "union":
        nonnull = [m for m in t.members if m.kind != "null"]
        if len(nonnull) == 1 and len(nonnull) < len(t.members):
            return nonnull[0]
    return t


class _Json(click.ParamType):
    name = "json"

    def convert(self, value, param, ctx):
        if not isinstance(value, str):
            return value
        text = value
        if value == "-":
            text = sys.stdin.read()
        elif value.startswith("@"):
            try:
                with open(value[1:], encoding="utf-8") as f:
                    text = f.read()
            except OSError as e:
                self.fail(f"cannot read {value[1:]}: {e.strerror or e}", param, ctx)
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            self.fail(f"not valid JSON ({e.msg} at line {e.lineno} column {e.colno})", param, ctx)


def _option(p) -> click.Option:
    t = _base(p.type)
    kind = t.kind if t is not None else "unknown"
    opts = dict(required=p.required, help=p.help, default=None, show_default=False)
    decl = p.option
    choices = _strings(t)
    if kind == "bool":
        flag = p.name.replace("_", "-")
        return click.Option([f"--{flag}/--no-{flag}", p.name], **opts)
    if choices is not None:
        return click.Option([decl, p.name], type=click.Choice(choices), **opts)
    if kind == "int":
        return click.Option([decl, p.name], type=click.INT, **opts)  # the 63-bit range: the schema
    if kind == "bigint":
        return click.Option([decl, p.name], type=click.INT, **opts)
    if kind == "float":
        return click.Option([decl, p.name], type=click.FLOAT, **opts)
    if kind == "string":
        return click.Option([decl, p.name], type=click.STRING, **opts)
    h = f"{p.help} ({JSON_HELP})" if p.help else JSON_HELP
    return click.Option([decl, p.name], type=_Json(), metavar="JSON", **dict(opts, help=h))


def _command(e: Entry) -> click.Command:
    def run(**kwargs):
        given = {}
        for p in e.params:
            v = kwargs.get(p.name)
            if v is not None:
                given[p.name] = v
        try:
            with _program_output_to_stderr():
                result = e.call(given, timeout=None)
        except CallFailed as f:
            if f.kind == "arguments":
                raise click.UsageError(f.error["message"]) from None
            click.echo(f"error: {f.error['type']}: {f.error['message']}", err=True)
            raise SystemExit(1) from None
        click.echo(jsonvalue.dumps(result["result"] if e.wrapped else result, indent=None))  # NaN tagged
    short = (e.help or "").strip().split("\n")[0] or None
    return click.Command(e.cli_name, callback=run, params=[_option(p) for p in e.params],
                         help=e.help, short_help=short, context_settings={"help_option_names": ["-h", "--help"]})



class _program_output_to_stderr:
    """fd 1 points at stderr for the call (what BAML prints), restored after."""

    def __enter__(self):
        sys.stdout.flush()
        try:
            self._saved = os.dup(1)
            os.dup2(2, 1)
        except OSError:  # no file descriptors (an embedded stdout)
            self._saved = None
        return self

    def __exit__(self, *exc):
        sys.stdout.flush()
        if self._saved is not None:
            os.dup2(self._saved, 1)
            os.close(self._saved)
        return False


def group(prog, name: str = "cli", help_text: str | None = None) -> click.Group:
    """The click group of a program (a mirx ProgramView)."""
    meta = prog.meta.get("ingot", {})
    app = meta.get("app") if isinstance(meta, dict) else None
    if help_text is None and isinstance(app, dict) and isinstance(app.get("help"), str):
        help_text = app["help"]
    g = click.Group(name, help=help_text or "Commands generated from the program's functions (@ingot).",
                    context_settings={"help_option_names": ["-h", "--help"]})
    for e in entries(prog):
        if e.cli_name is not None:
            g.add_command(_command(e))
    return g


def main(path: str, args: list[str], prog_name: str) -> int:
    """Run the generated CLI of the program at `path` with `args`; the exit code."""
    try:
        prog = mirx.load(path)
    except mirx.CompileError as e:
        click.echo(str(e), err=True)
        return 1
    except OSError as e:
        click.echo(f"{path}: error: {e.strerror or e}", err=True)
        return 2
    g = group(prog, prog_name)
    try:
        g.main(args=list(args), prog_name=prog_name, standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as e:  # click 8.2: a bare group prints its help
        click.echo(e.ctx.get_help())
        return 0
    except click.ClickException as e:
        e.show()
        return e.exit_code
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        return 130
    return 0


LAUNCHER = '''#!{python}
# The command-line interface of the BAML program at {path}, generated by `assay cli --install`.
import sys
from assay.ingot.cli import main
sys.exit(main({path!r}, sys.argv[1:], {name!r}))
'''


def install(path: str, name: str) -> str:
    """Write an executable launcher NAME (a path; a bare name is written in the current
    directory) that runs the generated CLI of the program at `path`."""
    target = os.path.abspath(name)
    text = LAUNCHER.format(python=sys.executable, path=os.path.abspath(path), name=os.path.basename(name))
    with open(target, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(target, 0o755)
    return target
