"""The worked examples of docs/mirx.md run and print what the page says: each `### Worked
example` section's first ```python block is executed and its output compared, line by line, with
the ```text block that follows it."""
import contextlib
import io
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "mirx.md"


def worked_examples() -> list[tuple[str, str, str]]:
    """(title, code, expected output) of each worked example."""
    out = []
    for section in DOC.read_text().split("### Worked example")[1:]:
        section = section.split("\n## ", 1)[0]
        title = section.split("\n", 1)[0].strip(": ")
        code = re.search(r"```python\n(.*?)```", section, re.S)
        assert code, f"worked example {title!r} has no python block"
        printed = re.search(r"```text\n(.*?)```", section[code.end():], re.S)
        assert printed, f"worked example {title!r} has no text block with its output"
        out.append((title, code.group(1), printed.group(1)))
    return out


def test_the_page_has_both_worked_examples():
    titles = [t for t, _, _ in worked_examples()]
    assert titles == ["counting branch edges", "taint tracking"]


@pytest.mark.parametrize("title,code,expected", worked_examples(), ids=[t for t, _, _ in worked_examples()])
def test_worked_example_output_matches_the_page(title, code, expected):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"mirx.md ({title})", "exec"), {})
    lines = lambda text: [ln.strip() for ln in text.strip().splitlines()]  # noqa: E731
    assert lines(out.getvalue()) == lines(expected)
