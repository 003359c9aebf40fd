"""`assay meta`, `assay ingot strip`, `assay cli` and `assay mcp`: the @ingot commands
(docs/ingot.md). Registered on the `assay` group by main.py."""
from __future__ import annotations

import importlib
import json
import os
import sys

import click

from .. import mirx
from ..compiler import compile_sources
from ..ingot import cli as gencli
from ..ingot.tools import DEFAULT_TIMEOUT
from ..source import CompileError, Diagnostic
from ..syntax import ingot as annotations
from .sources import InputError, load_path


def _fail(text: str, code: int):
    click.echo(text, err=True)
    raise SystemExit(code)


def _program(path: str):
    """The mirx view of the program at PATH (strict reading; errors printed, exit 1 / 2)."""
    try:
        sources = load_path(path)
        return mirx.view(compile_sources(sources))
    except InputError as e:
        _fail(e.text, e.exit_code)
    except CompileError as e:
        _fail(_render(e.diagnostics), 1)


def _render(diags: list[Diagnostic]) -> str:
    n = sum(d.severity == "error" for d in diags)
    return "\n\n".join(d.render() for d in diags) + f"\n\nerror: {n} error{'s' if n != 1 else ''}, could not compile"


# ── assay meta ──


def _ingot(meta: dict):
    return meta.get("ingot", {})


def _host_name(fqn: str) -> str:
    return fqn.removeprefix("user.")


def meta_document(prog) -> dict:
    """What `assay meta --json` prints (docs/ingot.md)."""
    doc: dict = {"file": _ingot(prog.meta), "files": {f.path: _ingot(f.meta) for f in prog.files},
                 "functions": {}, "classes": {}, "enums": {}}
    for fn in prog.functions(include_tests=False):
        if fn.kind != "function":
            continue
        doc["functions"][_host_name(fn.fqn)] = {
            "ingot": _ingot(fn.meta), "params": {p.name: {"ingot": _ingot(p.meta)} for p in fn.params}}
    for c in prog.classes():
        doc["classes"][_host_name(c.qualified_name)] = {
            "ingot": _ingot(c.meta), "description": c.description,
            "fields": {f.name: {"ingot": _ingot(f.meta), "description": f.description} for f in c.fields}}
    for e in prog.enums():
        doc["enums"][_host_name(e.qualified_name)] = {
            "ingot": _ingot(e.meta), "description": e.description,
            "variants": {v.name: {"ingot": _ingot(v.meta), "description": v.description} for v in e.variants}}
    return doc


def _meta_text(doc: dict) -> str:
    lines = []
    show = lambda v: json.dumps(v, ensure_ascii=False)  # noqa: E731
    if doc["file"]:
        lines.append(f"file: {show(doc['file'])}")
    for kind, key, sub in (("function", "functions", "params"), ("class", "classes", "fields"),
                           ("enum", "enums", "variants")):
        for name, d in doc[key].items():
            parts = [(k, v["ingot"]) for k, v in d[sub].items() if v["ingot"] != {}]
            if d["ingot"] == {} and not parts:
                continue
            lines.append(f"{kind} {name}: {show(d['ingot'])}")
            lines += [f"  {sub[:-1]} {k}: {show(v)}" for k, v in parts]
    return "\n".join(lines) if lines else "no @ingot annotations"


@click.command("meta")
@click.argument("path")
@click.option("--json", "as_json", is_flag=True, help="One JSON document (docs/ingot.md).")
def meta_cmd(path, as_json):
    """Show the @ingot annotations of the program at PATH."""
    doc = meta_document(_program(path))
    click.echo(json.dumps(doc, indent=2, ensure_ascii=False) if as_json else _meta_text(doc))


# ── assay ingot strip ──


@click.group("ingot")
def ingot_group():
    """@ingot annotations."""


@ingot_group.command("strip")
@click.argument("path")
@click.option("-o", "--output", "out", required=True, metavar="OUT",
              help="Where to write: a file for a file PATH, a directory for a directory PATH.")
def strip_cmd(path, out):
    """Write PATH without its @ingot annotations (every other character keeps its line and
    column), so that it works with BAML's own toolchain."""
    try:
        sources = load_path(path)
    except InputError as e:
        _fail(e.text, e.exit_code)
    diags: list[Diagnostic] = []
    written = 0
    for src in sources:
        stripped, _, d = annotations.preprocess(src)
        diags += d
        if os.path.isfile(path):
            target = out
        else:
            target = os.path.join(out, os.path.relpath(src.path, path))
        if not d:
            os.makedirs(os.path.dirname(os.path.abspath(target)), exist_ok=True)
            with open(target, "w", encoding="utf-8") as f:
                f.write(stripped.text)
            written += 1
    if diags:
        _fail(_render(diags), 1)
    click.echo(f"wrote {written} file{'s' if written != 1 else ''} to {out}", err=True)


# ── assay cli ──


@click.command("cli", context_settings={"ignore_unknown_options": True,
                                         "help_option_names": ["-h", "--help"]})
@click.argument("path")
@click.option("--install", "install_name", metavar="NAME", default=None,
              help="Write an executable launcher NAME that runs this CLI as its own command.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def cli_cmd(path, install_name, args):
    """Run the command-line interface generated from the program at PATH:
    `assay cli PATH -- COMMAND [OPTIONS]` (`assay cli PATH -- --help` lists the commands)."""
    if install_name is not None:
        _program(path)  # it must compile
        target = gencli.install(path, install_name)
        click.echo(f"wrote {target}", err=True)
        return
    sys.exit(gencli.main(path, list(args), f"assay cli {path} --"))


# ── assay mcp ──


@click.command("mcp")
@click.argument("path")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIMEOUT,
              show_default=True, metavar="S", help="Time limit of one tool call, in seconds.")
def mcp_cmd(path, timeout):
    """Serve the functions of PATH whose @ingot payload has an `mcp` key as MCP tools over
    stdio (needs the `mcp` extra: pip install 'assay[mcp]')."""
    prog = _program(path)
    try:
        server = importlib.import_module("assay.ingot.mcp")  # the optional extra, imported only here
    except ImportError as e:
        _fail(f"error: `assay mcp` needs the mcp package (pip install 'assay[mcp]'): {e}", 2)
    server.run(prog, timeout)


INGOT_COMMANDS = [meta_cmd, ingot_group, cli_cmd, mcp_cmd]
