"""Source text, spans and diagnostics: the one place that knows about file positions."""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field


class SourceFile:
    """One .baml file: its display path, namespace and text, with a line index."""

    __slots__ = ("path", "text", "namespace", "_lines", "original", "rel")

    def __init__(self, path: str, text: str, namespace: str | None = None, rel: str | None = None):
        self.path = path
        self.rel = path if rel is None else rel  # as the engine's stack frames name it: from the project root
        self.text = text
        self.namespace = namespace
        self.original = None  # the text before preprocessing (syntax/ingot.py), when it changed
        self._lines = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self._lines.append(i + 1)

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based line and column (in characters) of an offset."""
        line = bisect.bisect_right(self._lines, offset) - 1
        return line + 1, offset - self._lines[line] + 1

    def line_text(self, line: int) -> str:
        """A line as the user wrote it (annotations included: preprocessing keeps positions)."""
        text = self.original if self.original is not None else self.text
        start = self._lines[line - 1]
        end = self._lines[line] - 1 if line < len(self._lines) else len(text)
        return text[start:end]


@dataclass(frozen=True, slots=True)
class Span:
    file: SourceFile
    start: int
    end: int

    def to(self, other: "Span") -> "Span":
        return Span(self.file, self.start, max(self.end, other.end))

    @property
    def line_col(self) -> tuple[int, int]:
        return self.file.line_col(self.start)

    def __repr__(self) -> str:
        line, col = self.line_col
        return f"{self.file.path}:{line}:{col}"


@dataclass(slots=True)
class Diagnostic:
    span: Span | None
    code: str
    message: str
    severity: str = "error"
    notes: list[str] = field(default_factory=list)

    def location(self) -> str:
        if self.span is None:
            return "<unknown>"
        line, col = self.span.line_col
        return f"{self.span.file.path}:{line}:{col}"

    def render(self, excerpt: bool = True) -> str:
        head = f"{self.location()}: {self.severity}[{self.code}]: {self.message}"
        if not excerpt or self.span is None:
            return head
        line, col = self.span.line_col
        text = self.span.file.line_text(line)
        end_line, end_col = self.span.file.line_col(max(self.span.start, self.span.end - 1))
        width = max(1, (end_col - col + 1) if end_line == line else len(text) - col + 1)
        gutter = f"{line:>4} | "
        lines = [head, f"{gutter}{text}", " " * (len(gutter) + col - 1) + "^" * width]
        lines += [f"  = note: {n}" for n in self.notes]
        return "\n".join(lines)

    def to_json(self) -> dict:
        line, col = self.span.line_col if self.span else (0, 0)
        return {"file": self.span.file.path if self.span else None, "line": line, "column": col,
                "severity": self.severity, "code": self.code, "message": self.message}


class CompileError(Exception):
    """Raised by the driver when a program has errors; carries every diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic]):
        self.diagnostics = diagnostics
        super().__init__("\n".join(d.render(excerpt=False) for d in diagnostics))
