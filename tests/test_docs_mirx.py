"""The worked example of docs/mirx.md runs and prints what the page says."""
import contextlib
import io
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "mirx.md"


def test_worked_example_output_matches_the_page():
    text = DOC.read_text()
    block = text.split("### Worked example", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "mirx.md", "exec"), {})
    printed = out.getvalue().strip()
    expected = " ".join(l.lstrip("# ").strip() for l in block.split("print(log.taken)")[1].strip().splitlines())
    assert re.sub(r"\s+", " ", printed) == re.sub(r"\s+", " ", expected)
