"""`--coverage` for `assay run` / `assay test`, and `assay coverage report` (combining runs)."""
from __future__ import annotations

import functools
import json
import os

import click

from .. import mirx
from ..coverage import report
from ..coverage.collect import Coverage
from ..coverage.data import CoverageData, CoverageDataError
from ..coverage.html import write_html
from .sources import InputError

DEFAULT_DATA = ".assay-coverage.json"

# option → is it a directory (else a file)
_OUTPUTS = {"cov_data": False, "cov_html": True, "cov_lcov": False, "cov_xml": False, "cov_json": False}


class CannotWrite(InputError):
    """An output path that cannot be written: `error: cannot write PATH: reason`, exit 2."""

    def __init__(self, path: str, reason: str):
        super().__init__(path, reason, 2)
        self.path, self.reason = path, reason
        self.text = f"error: cannot write {path}: {reason}"


def check_output(path: str, is_dir: bool) -> None:
    """Raise CannotWrite now for a path a report could never be written to."""
    if os.path.isdir(path) and not is_dir:
        raise CannotWrite(path, "is a directory")
    if os.path.exists(path) and is_dir and not os.path.isdir(path):
        raise CannotWrite(path, "not a directory (a file is in the way)")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.exists(parent):
        if not is_dir:
            raise CannotWrite(path, f"no such directory {os.path.dirname(path) or '.'}")
        return check_output(parent, True)  # an HTML directory's parents are made
    if not os.path.isdir(parent):
        raise CannotWrite(path, f"{os.path.dirname(path)} is not a directory")
    if not os.access(parent, os.W_OK):
        raise CannotWrite(path, f"permission denied in {os.path.dirname(path) or '.'}")


def coverage_options(cmd):
    """The options that turn coverage on and say where its reports go."""
    options = [
        click.option("--coverage", "cov", is_flag=True, help="Measure line and branch coverage of the BAML source."),
        click.option("--coverage-data", "cov_data", metavar="FILE", default=None,
                     help=f"Save the raw data here (default {DEFAULT_DATA}); with --coverage-append, add to it."),
        click.option("--coverage-append", "cov_append", is_flag=True, help="Combine with the data already in the data file."),
        click.option("--coverage-html", "cov_html", metavar="DIR", help="Write an HTML report to DIR."),
        click.option("--coverage-lcov", "cov_lcov", metavar="FILE", help="Write an LCOV report."),
        click.option("--coverage-xml", "cov_xml", metavar="FILE", help="Write a Cobertura XML report."),
        click.option("--coverage-json", "cov_json", metavar="FILE", help="Write a JSON report."),
        click.option("--fail-under", "fail_under", type=click.FloatRange(0, 100), metavar="PERCENT",
                     help="Exit 2 when total coverage is below PERCENT (0-100)."),
    ]
    for opt in reversed(options):
        cmd = opt(cmd)
    return cmd


class Session:
    """One measured command: the collector to attach, and what to do with its data."""

    def __init__(self, opts: dict):
        self.opts = opts
        wanted = any(opts.get(k) for k in ("cov_html", "cov_lcov", "cov_xml", "cov_json", "cov_data",
                                            "cov_append")) or opts.get("fail_under") is not None
        self.enabled = bool(opts.get("cov")) or wanted
        self.collector = Coverage() if self.enabled else None

    def check_outputs(self) -> None:
        """Before the run: every output path can be written (else CannotWrite, exit 2)."""
        if not self.enabled:
            return
        for key, is_dir in _OUTPUTS.items():
            path = self.opts.get(key) or (DEFAULT_DATA if key == "cov_data" else None)
            if path:
                check_output(path, is_dir)

    def extensions(self, program) -> tuple:
        """The extensions to attach to runs of `program` (its mirx view shows them the code)."""
        if not self.collector:
            return ()
        mirx.view(program)
        return (self.collector,)

    def finish(self, program, echo) -> tuple[int, dict | None]:
        """Write the reports; returns (exit code contribution, JSON report or None)."""
        if not self.enabled:
            return 0, None
        data = self.collector.data(mirx.view(program))
        path = self.opts.get("cov_data") or DEFAULT_DATA
        failed = 0
        if self.opts.get("cov_append") and os.path.exists(path):
            try:
                data = _merged(CoverageData.load(path), data)
            except CoverageDataError as e:
                click.echo(f"error: {e} (not combined)", err=True)
                failed = 2
        if not _writing(path, lambda: data.save(path)):
            failed = 2
        code, doc = emit_reports(data, self.opts, echo, sources=_sources(program))
        return code or failed, doc


def _merged(a: CoverageData, b: CoverageData) -> CoverageData:
    a.merge(b)
    return a


def _sources(program) -> dict[str, str]:
    view = mirx.view(program)
    return {f.path: view.source_text(f.path) for f in view.files}


def _writing(path: str, write) -> bool:
    """Run `write`; an OSError becomes `error: cannot write PATH: reason` (returns False)."""
    try:
        write()
    except OSError as e:
        click.echo(f"error: cannot write {path}: {e.strerror or e}", err=True)
        return False
    return True


def emit_reports(data: CoverageData, opts: dict, echo, sources=None) -> tuple[int, dict | None]:
    """Print the table, write the reports asked for; exit code 2 when one could not be
    written or coverage is under --fail-under."""
    echo(report.text_report(data))
    code = 0
    writers = {
        "cov_html": lambda p: write_html(data, p, sources),
        "cov_lcov": lambda p: report.write_lcov(data, p),
        "cov_xml": lambda p: report.write_cobertura(data, p),
        "cov_json": lambda p: report.write_json_report(data, p),
    }
    for key, write in writers.items():
        path = opts.get(key)
        if path and not _writing(path, functools.partial(write, path)):
            code = 2
    if opts.get("fail_under") is not None and report.fail_under(data, opts["fail_under"]):
        total = report.format_percent(data.totals().percent)
        echo(f"coverage failure: total of {total} is less than fail-under={opts['fail_under']:g}%")
        code = 2
    return code, json.loads(report.json_report(data))


@click.group("coverage")
def coverage_group():
    """Work with coverage data files."""


@coverage_group.command("report")
@click.argument("files", nargs=-1, metavar="DATA...")
@click.option("--html", "cov_html", metavar="DIR", help="Write an HTML report to DIR.")
@click.option("--lcov", "cov_lcov", metavar="FILE", help="Write an LCOV report.")
@click.option("--xml", "cov_xml", metavar="FILE", help="Write a Cobertura XML report.")
@click.option("--json", "cov_json", metavar="FILE", help="Write a JSON report.")
@click.option("--fail-under", "fail_under", type=click.FloatRange(0, 100), metavar="PERCENT",
              help="Exit 2 when total coverage is below PERCENT (0-100).")
def report_cmd(files, **opts):
    """Combine coverage data files (default .assay-coverage.json) and report on them."""
    for key, is_dir in _OUTPUTS.items():
        if opts.get(key):
            try:
                check_output(opts[key], is_dir)
            except CannotWrite as e:
                click.echo(e.text, err=True)
                return 2
    data = CoverageData()
    for path in files or (DEFAULT_DATA,):
        try:
            data.merge(CoverageData.load(path))
        except (OSError, CoverageDataError, ValueError) as e:
            err = click.ClickException(f"{path}: cannot read coverage data: {e}")
            err.exit_code = 2  # bad input, as every other
            raise err from None
    code, _ = emit_reports(data, opts, functools.partial(click.echo, err=False))
    return code
