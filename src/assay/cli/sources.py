"""Reading PATH arguments into SourceFiles, with located messages instead of tracebacks.

Mirrors `compiler.discover` (a .baml file, or every .baml file under a directory; `ns_<x>/`
folders are namespaces) but reads strictly: a missing path, a directory without .baml files,
an unreadable or binary file, or invalid UTF-8 is an `InputError`."""
from __future__ import annotations

import os

from ..source import SourceFile


class InputError(Exception):
    """Bad input from the user (not a bug): printed as `LOCATION: error: MESSAGE`. Exit code 2
    for a path that is not there (a usage error), 1 for a file that is not BAML source."""

    def __init__(self, location: str, message: str, exit_code: int = 1):
        super().__init__(f"{location}: error: {message}")
        self.text = f"{location}: error: {message}"
        self.exit_code = exit_code


def load_paths(paths: tuple[str, ...] | list[str]) -> list[SourceFile]:
    """Every source of every PATH, as one program."""
    out: list[SourceFile] = []
    for path in paths:
        out += load_path(path)
    return out


def load_path(path: str) -> list[SourceFile]:
    if not os.path.exists(path):
        raise InputError(path, "no such file or directory", 2)
    if os.path.isfile(path):
        return [SourceFile(path, read_source(path), None)]
    if not os.path.isdir(path):
        raise InputError(path, "not a file or directory", 2)
    out = []
    for full, namespace in _walk(path):
        out.append(SourceFile(full, read_source(full), namespace))
    if not out:
        raise InputError(path, "no .baml files found", 2)
    return out


def _walk(path: str):
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".baml"):
                continue
            full = os.path.join(root, name)
            rel = os.path.relpath(full, path)
            parts = [p[3:] for p in rel.split(os.sep)[:-1] if p.startswith("ns_")]
            yield full, ".".join(parts) or None


def read_source(path: str) -> str:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise InputError(path, f"cannot read: {e.strerror or e}") from None
    if b"\x00" in data:
        line, col = _line_col(data, data.index(b"\x00"))
        raise InputError(f"{path}:{line}:{col}", "binary file (contains a NUL byte), not BAML source")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line, col = _line_col(data, e.start)
        raise InputError(f"{path}:{line}:{col}", f"invalid UTF-8 (byte 0x{data[e.start]:02x})") from None
    return text.removeprefix("\ufeff")


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    start = data.rfind(b"\n", 0, offset) + 1
    col = len(data[start:offset].decode("utf-8", errors="replace")) + 1
    return line, col
