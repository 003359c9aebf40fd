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

DEFAULT_DATA = ".assay-coverage.json"


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
        click.option("--fail-under", "fail_under", type=float, metavar="PERCENT",
                     help="Exit 2 when total coverage is below PERCENT."),
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
        if self.opts.get("cov_append") and os.path.exists(path):
            data = _merged(CoverageData.load(path), data)
        data.save(path)
        return emit_reports(data, self.opts, echo, sources=_sources(program))


def _merged(a: CoverageData, b: CoverageData) -> CoverageData:
    a.merge(b)
    return a


def _sources(program) -> dict[str, str]:
    view = mirx.view(program)
    return {f.path: view.source_text(f.path) for f in view.files}


def emit_reports(data: CoverageData, opts: dict, echo, sources=None) -> tuple[int, dict | None]:
    echo(report.text_report(data))
    if opts.get("cov_html"):
        write_html(data, opts["cov_html"], sources)
    if opts.get("cov_lcov"):
        report.write_lcov(data, opts["cov_lcov"])
    if opts.get("cov_xml"):
        report.write_cobertura(data, opts["cov_xml"])
    if opts.get("cov_json"):
        report.write_json_report(data, opts["cov_json"])
    code = 0
    if opts.get("fail_under") is not None and report.fail_under(data, opts["fail_under"]):
        total = report.format_percent(data.totals().percent)
        echo(f"coverage failure: total of {total}% is less than fail-under={opts['fail_under']:g}%")
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
@click.option("--fail-under", "fail_under", type=float, metavar="PERCENT")
def report_cmd(files, **opts):
    """Combine coverage data files (default .assay-coverage.json) and report on them."""
    data = CoverageData()
    for path in files or (DEFAULT_DATA,):
        try:
            data.merge(CoverageData.load(path))
        except (OSError, CoverageDataError, ValueError) as e:
            raise click.ClickException(f"{path}: cannot read coverage data: {e}") from None
    code, _ = emit_reports(data, opts, functools.partial(click.echo, err=False))
    return code
