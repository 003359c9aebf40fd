"""Reading PATH arguments into SourceFiles, with located messages instead of tracebacks:
`compiler.discover` (a .baml file, or every .baml file under a directory; `ns_<x>/` folders
are namespaces), its SourceError (a missing path, a directory without .baml files, an
unreadable or binary file, invalid UTF-8) as an `InputError` with the CLI's exit status."""
from __future__ import annotations

import re

from ..compiler import SourceError, discover
from ..compiler import read_source as _read_source
from ..source import SourceFile


class InputError(Exception):
    """Bad input from the user (not a bug): printed as `LOCATION: error: MESSAGE`, exit code 2
    (a missing path and a file that is not BAML source alike)."""

    def __init__(self, location: str, message: str, exit_code: int = 2):
        super().__init__(f"{location}: error: {message}")
        self.text = f"{location}: error: {message}"
        self.location, self.message = location, message
        self.exit_code = exit_code

    def to_json(self) -> dict:
        """As a diagnostic of `check --json` (file, line, column, severity, code, message)."""
        m = re.fullmatch(r"(.*):(\d+):(\d+)", self.location)
        file, line, col = (m.group(1), int(m.group(2)), int(m.group(3))) if m else (self.location, 0, 0)
        return {"file": file, "line": line, "column": col, "severity": "error", "code": None,
                "message": self.message}


def load_paths(paths: tuple[str, ...] | list[str]) -> list[SourceFile]:
    """Every source of every PATH, as one program."""
    out: list[SourceFile] = []
    for path in paths:
        out += load_path(path)
    return out


def load_path(path: str) -> list[SourceFile]:
    try:
        return discover(path)
    except SourceError as e:
        raise InputError(e.location, e.reason) from None


def read_source(path: str) -> str:
    try:
        return _read_source(path)
    except SourceError as e:
        raise InputError(e.location, e.reason) from None
