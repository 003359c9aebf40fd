"""The coverage data model: what was executable, and how often each part ran.

Plain data, no Assay imports: the collector fills it, the reports read it, and a data file
(`CoverageData.save`/`load`) carries it between runs.  Hit counts are summed on merge, so
several runs (or several processes) combine into one.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, NamedTuple

DATA_FORMAT = "assay-coverage"
DATA_VERSION = 1


class CoverageDataError(Exception):
    """A data file is missing or not a coverage data file (the CLI reports it and exits 2)."""


class BranchKey(NamedTuple):
    """One branch EDGE: the decision at `line:column` of `kind` taking `edge`.

    A NamedTuple so a plain `(line, column, kind, edge)` tuple is the same key."""

    line: int
    column: int
    kind: str  # 'if', 'while', 'for', 'match', '??', '&&', '||', '?.', 'catch', 'guard', …
    edge: str  # 'true'/'false', or an arm label like 'arm 2'

    def encode(self) -> str:
        return f"{self.line}:{self.column}:{self.kind}:{self.edge}"

    @classmethod
    def decode(cls, text: str) -> "BranchKey":
        parts = text.split(":")
        if len(parts) != 4:
            raise CoverageDataError(f"bad branch key {text!r} (want line:col:kind:edge)")
        line, column, kind, edge = parts
        return cls(int(line), int(column), kind, edge)

    def label(self) -> str:
        """How reports name the edge: `12:7 if(false)`."""
        return f"{self.line}:{self.column} {self.kind}({self.edge})"


def branch_key(key: Iterable[Any]) -> BranchKey:
    """Normalise a tuple to a BranchKey, rejecting what could not round-trip through JSON."""
    line, column, kind, edge = key
    key = BranchKey(int(line), int(column), str(kind), str(edge))
    if ":" in key.kind or ":" in key.edge:
        raise ValueError(f"branch kind/edge may not contain ':' ({key!r})")
    return key


@dataclass(frozen=True)
class FunctionInfo:
    first_line: int
    last_line: int
    display_name: str
    hits: int = 0  # how many times the function was entered (called)


@dataclass
class Totals:
    """Counts for a file, a function (a line range) or everything; percentages derive."""

    lines: int = 0
    lines_hit: int = 0
    branches: int = 0
    branches_hit: int = 0
    # Missed edges whose line did run (coverage.py's BrPart): edges on missed lines are
    # implied by the missed line, so they are not "partial".
    branches_partial: int = 0

    @property
    def lines_missed(self) -> int:
        return self.lines - self.lines_hit

    @property
    def branches_missed(self) -> int:
        return self.branches - self.branches_hit

    @property
    def percent(self) -> float:
        """Combined like coverage.py: hit lines + hit edges over lines + edges."""
        return _pct(self.lines_hit + self.branches_hit, self.lines + self.branches)

    @property
    def line_percent(self) -> float:
        return _pct(self.lines_hit, self.lines)

    @property
    def branch_percent(self) -> float:
        return _pct(self.branches_hit, self.branches)

    def __add__(self, other: "Totals") -> "Totals":
        return Totals(
            self.lines + other.lines,
            self.lines_hit + other.lines_hit,
            self.branches + other.branches,
            self.branches_hit + other.branches_hit,
            self.branches_partial + other.branches_partial,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "lines": self.lines,
            "lines_hit": self.lines_hit,
            "lines_missed": self.lines_missed,
            "branches": self.branches,
            "branches_hit": self.branches_hit,
            "branches_missed": self.branches_missed,
            "branches_partial": self.branches_partial,
            "percent": self.percent,
            "line_percent": self.line_percent,
            "branch_percent": self.branch_percent,
        }


def _pct(hit: int, total: int) -> float:
    # Nothing to cover counts as fully covered (coverage.py does the same).
    return 100.0 if total == 0 else 100.0 * hit / total


@dataclass
class FileCoverage:
    lines: dict[int, int] = field(default_factory=dict)
    branches: dict[BranchKey, int] = field(default_factory=dict)
    functions: dict[str, FunctionInfo] = field(default_factory=dict)

    # -- queries the reports share ------------------------------------------------------

    def reached_lines(self) -> set[int]:
        """Lines that ran.  An edge taken from a line also proves the line ran."""
        ran = {n for n, hits in self.lines.items() if hits > 0}
        return ran | {k.line for k, hits in self.branches.items() if hits > 0}

    def reached(self, line: int) -> bool:
        return line in self.reached_lines()

    def executed_lines(self, lo: int | None = None, hi: int | None = None) -> list[int]:
        ran = self.reached_lines()
        return [n for n in self._lines_in(lo, hi) if n in ran]

    def missing_lines(self, lo: int | None = None, hi: int | None = None) -> list[int]:
        ran = self.reached_lines()
        return [n for n in self._lines_in(lo, hi) if n not in ran]

    def sorted_branches(self, lo: int | None = None, hi: int | None = None) -> list[BranchKey]:
        return sorted(k for k in self.branches if _within(k.line, lo, hi))

    def missing_branches(self, lo: int | None = None, hi: int | None = None) -> list[BranchKey]:
        """Missed edges on lines that ran: the ones worth naming (see Totals.branches_partial)."""
        ran = self.reached_lines()
        return [k for k in self.sorted_branches(lo, hi) if self.branches[k] == 0 and k.line in ran]

    def missed_branches(self, lo: int | None = None, hi: int | None = None) -> list[BranchKey]:
        """Every edge never taken, its line run or not (as many as Totals.branches_missed)."""
        return [k for k in self.sorted_branches(lo, hi) if self.branches[k] == 0]

    def partial_lines(self) -> list[int]:
        """Lines that ran but left one of their branch edges untaken."""
        return sorted({k.line for k in self.missing_branches()})

    def totals(self, lo: int | None = None, hi: int | None = None) -> Totals:
        lines = self._lines_in(lo, hi)
        edges = self.sorted_branches(lo, hi)
        return Totals(
            lines=len(lines),
            lines_hit=len(self.executed_lines(lo, hi)),
            branches=len(edges),
            branches_hit=sum(1 for k in edges if self.branches[k] > 0),
            branches_partial=len(self.missing_branches(lo, hi)),
        )

    def function_totals(self, fqn: str) -> Totals:
        info = self.functions[fqn]
        return self.totals(info.first_line, info.last_line)

    def _lines_in(self, lo: int | None, hi: int | None) -> list[int]:
        return sorted(n for n in self.lines if _within(n, lo, hi))

    # -- serialisation ---------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "lines": {str(n): h for n, h in sorted(self.lines.items())},
            "branches": {k.encode(): h for k, h in sorted(self.branches.items())},
            "functions": {
                fqn: {"first_line": f.first_line, "last_line": f.last_line, "name": f.display_name,
                      "hits": f.hits}
                for fqn, f in sorted(self.functions.items())
            },
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "FileCoverage":
        fc = cls()
        fc.lines = {int(n): int(h) for n, h in d.get("lines", {}).items()}
        fc.branches = {BranchKey.decode(k): int(h) for k, h in d.get("branches", {}).items()}
        fc.functions = {
            fqn: FunctionInfo(int(f["first_line"]), int(f["last_line"]), str(f["name"]),
                              int(f.get("hits", 0)))
            for fqn, f in d.get("functions", {}).items()
        }
        return fc


def _within(n: int, lo: int | None, hi: int | None) -> bool:
    return (lo is None or n >= lo) and (hi is None or n <= hi)


@dataclass
class CoverageData:
    files: dict[str, FileCoverage] = field(default_factory=dict)

    def file(self, path: str) -> FileCoverage:
        return self.files.setdefault(str(path), FileCoverage())

    def add_line(self, path: str, line: int, hits: int = 0) -> None:
        """Declare `line` executable (hits 0) or record `hits` more executions of it."""
        lines = self.file(path).lines
        lines[line] = lines.get(line, 0) + hits

    def declare_line(self, path: str, line: int, hits: int) -> None:
        """`line` is executable and ran `hits` times in all (declaring it again changes nothing)."""
        self.file(path).lines[line] = hits

    def declare_branch(self, path: str, key: Iterable[Any], hits: int) -> None:
        """An edge that was taken `hits` times in all (declaring it again changes nothing)."""
        key = branch_key(key)
        fc = self.file(path)
        fc.branches[key] = hits
        fc.lines.setdefault(key.line, 0)

    def add_branch(self, path: str, key: Iterable[Any], hits: int = 0) -> None:
        key = branch_key(key)
        fc = self.file(path)
        fc.branches[key] = fc.branches.get(key, 0) + hits
        # A decision point is executable code: keep its line in the line universe so every
        # report agrees on which lines exist.
        fc.lines.setdefault(key.line, 0)

    def add_function(
        self, path: str, fqn: str, first_line: int, last_line: int, display_name: str,
        hits: int = 0,
    ) -> None:
        """Declare a function, or record `hits` more calls of it."""
        functions = self.file(path).functions
        old = functions.get(fqn)
        hits += old.hits if old is not None else 0
        functions[fqn] = FunctionInfo(first_line, last_line, display_name, hits)

    def merge(self, other: "CoverageData") -> None:
        """Union of universes, sum of hits: combining several runs."""
        for path, fc in other.files.items():
            for line, hits in fc.lines.items():
                self.add_line(path, line, hits)
            for key, hits in fc.branches.items():
                self.add_branch(path, key, hits)
            for fqn, f in fc.functions.items():
                self.add_function(path, fqn, f.first_line, f.last_line, f.display_name, f.hits)
            self.file(path)  # a file with nothing executable still exists

    def totals(self) -> Totals:
        return sum((fc.totals() for fc in self.files.values()), Totals())

    def to_json(self) -> dict[str, Any]:
        return {
            "format": DATA_FORMAT,
            "version": DATA_VERSION,
            "files": {p: fc.to_json() for p, fc in sorted(self.files.items())},
        }

    @classmethod
    def from_json(cls, d: Any) -> "CoverageData":
        if not isinstance(d, dict) or d.get("format") != DATA_FORMAT:
            raise CoverageDataError("not an Assay coverage data file")
        if d.get("version") != DATA_VERSION:
            raise CoverageDataError(f"unsupported coverage data version {d.get('version')!r}")
        try:
            return cls({p: FileCoverage.from_json(f) for p, f in d.get("files", {}).items()})
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise CoverageDataError(f"malformed coverage data: {e}") from e

    def save(self, path: str | os.PathLike[str]) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_json(), f, indent=1)
            f.write("\n")

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "CoverageData":
        try:
            with open(path, encoding="utf-8") as f:
                raw = json.load(f)
        except FileNotFoundError:
            raise CoverageDataError(f"no coverage data file {os.fspath(path)!r}") from None
        except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
            raise CoverageDataError(f"cannot read coverage data {os.fspath(path)!r}: {e}") from e
        return cls.from_json(raw)
