"""Coverage data model and reports, on hand-built data for a small fake source file."""

from __future__ import annotations

import ast
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from assay.coverage import html, report
from assay.coverage.data import BranchKey, CoverageData, CoverageDataError, Totals

SOURCE = """\
function Pick(x: int?, flag: bool) -> int {
  let y = x ?? 0;
  if (flag) {
    return y + 1;
  }
  // fallback <unused> & "quoted"
  return y;
}

function Label(n: int) -> string {
  match (n) {
    0 => "zero",
    _ => "many",
  }
}
"""


def build(path: str) -> CoverageData:
    """Pick ran twice with flag=true; Label never ran."""
    d = CoverageData()
    for line, hits in {2: 2, 3: 2, 4: 2, 7: 0, 11: 0, 12: 0, 13: 0}.items():
        d.add_line(path, line, hits)
    d.add_branch(path, (2, 11, "??", "null"), 1)
    d.add_branch(path, (2, 11, "??", "value"), 1)
    d.add_branch(path, (3, 3, "if", "true"), 2)
    d.add_branch(path, (3, 3, "if", "false"), 0)
    d.add_branch(path, (11, 3, "match", "arm 1"), 0)
    d.add_branch(path, (11, 3, "match", "arm 2"), 0)
    d.add_function(path, "Pick", 1, 8, "Pick")
    d.add_function(path, "Label", 10, 15, "Label")
    return d


@pytest.fixture
def src(tmp_path: Path) -> str:
    p = tmp_path / "app.baml"
    p.write_text(SOURCE)
    return str(p)


@pytest.fixture
def data(src: str) -> CoverageData:
    return build(src)


# -- data model -------------------------------------------------------------------------------


def test_totals(data: CoverageData) -> None:
    t = data.totals()
    assert t == Totals(lines=7, lines_hit=3, branches=6, branches_hit=3, branches_partial=1)
    assert t.percent == pytest.approx(100 * 6 / 13)
    assert t.line_percent == pytest.approx(100 * 3 / 7)
    assert t.branch_percent == 50.0
    assert CoverageData().totals().percent == 100.0  # nothing to cover is not a failure


def test_line_queries(data: CoverageData, src: str) -> None:
    fc = data.files[src]
    assert fc.executed_lines() == [2, 3, 4]
    assert fc.missing_lines() == [7, 11, 12, 13]
    assert fc.partial_lines() == [3]
    # Label's edges are implied by its missed line, so only line 3's edge is named.
    assert fc.missing_branches() == [BranchKey(3, 3, "if", "false")]


def test_branch_key_round_trip() -> None:
    key = BranchKey(12, 7, "match", "arm 2")
    assert BranchKey.decode(key.encode()) == key
    assert key.encode() == "12:7:match:arm 2"
    assert key.label() == "12:7 match(arm 2)"
    assert (12, 7, "match", "arm 2") == key  # plain tuples are the same key
    with pytest.raises(ValueError):
        CoverageData().add_branch("f", (1, 1, "if", "a:b"))


def test_branch_declares_its_line() -> None:
    d = CoverageData()
    d.add_branch("f", (4, 1, "if", "true"), 1)
    assert d.files["f"].lines == {4: 0}
    assert d.files["f"].executed_lines() == [4]  # a taken edge proves the line ran


def test_merge_sums_hits_and_unions_universes() -> None:
    a, b = CoverageData(), CoverageData()
    a.add_line("f", 1, 2)
    a.add_line("f", 2, 0)
    a.add_branch("f", (1, 1, "if", "true"), 2)
    b.add_line("f", 1, 3)
    b.add_line("f", 5, 1)
    b.add_branch("f", (1, 1, "if", "false"), 1)
    b.add_branch("f", (1, 1, "if", "true"), 1)
    b.add_function("f", "F", 1, 5, "F")
    b.add_line("g", 1, 0)
    a.merge(b)
    assert a.files["f"].lines == {1: 5, 2: 0, 5: 1}
    assert a.files["f"].branches == {(1, 1, "if", "true"): 3, (1, 1, "if", "false"): 1}
    assert set(a.files["f"].functions) == {"F"}
    assert a.files["g"].lines == {1: 0}
    assert b.files["f"].lines == {1: 3, 5: 1}  # the source of a merge is untouched


def test_save_load_round_trip(data: CoverageData, tmp_path: Path) -> None:
    path = tmp_path / ".assay-coverage"
    data.save(path)
    raw = json.loads(path.read_text())
    assert raw["format"] == "assay-coverage" and raw["version"] == 1
    assert "3:3:if:false" in next(iter(raw["files"].values()))["branches"]
    assert CoverageData.load(path) == data
    assert CoverageData.from_json(json.loads(json.dumps(data.to_json()))) == data


def test_load_errors(tmp_path: Path) -> None:
    with pytest.raises(CoverageDataError, match="no coverage data file"):
        CoverageData.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad_key = '{"format": "assay-coverage", "version": 1, "files": {"f": {"branches": {"x": 1}}}}'
    for text in ("not json", "[]", '{"format": "assay-coverage", "version": 99}', bad_key):
        bad.write_text(text)
        with pytest.raises(CoverageDataError):
            CoverageData.load(bad)


# -- terminal ----------------------------------------------------------------------------------

GOLDEN = """\
Name       Lines   Miss   Branch   BrPart   Cover   Missing
-----------------------------------------------------------
app.baml       7      4        6        1     46%   3:3 if(false), 7-13
  Pick         4      1        4        1     75%   3:3 if(false), 7
  Label        3      3        2        0      0%   11-13
-----------------------------------------------------------
TOTAL          7      4        6        1     46%
"""


def test_text_report_golden(data: CoverageData, tmp_path: Path) -> None:
    assert report.text_report(data, cwd=str(tmp_path)) == GOLDEN


def test_text_report_options(data: CoverageData, tmp_path: Path) -> None:
    text = report.text_report(data, cwd=str(tmp_path), show_missing=False, functions=False)
    assert text.splitlines()[0] == "Name       Lines   Miss   Branch   BrPart   Cover"
    assert text.splitlines()[2] == "app.baml       7      4        6        1     46%"
    assert len(text.splitlines()) == 5


def test_missing_ranges_span_non_executable_lines() -> None:
    d = CoverageData()
    for line, hits in {1: 0, 3: 0, 5: 1, 6: 0, 9: 0}.items():
        d.add_line("f", line, hits)
    assert report.format_missing(d.files["f"]) == "1-3, 6-9"


def test_paths_outside_cwd_stay_as_given(tmp_path: Path) -> None:
    assert report.display_path("/elsewhere/x.baml", str(tmp_path)) == "/elsewhere/x.baml"
    assert report.display_path(str(tmp_path / "a" / "b.baml"), str(tmp_path)) == "a/b.baml"


@pytest.mark.parametrize(
    "pc, shown", [(0, "0%"), (0.2, "1%"), (45.5, "46%"), (99.7, "99%"), (100, "100%")]
)
def test_format_percent_never_rounds_to_the_extremes(pc: float, shown: str) -> None:
    assert report.format_percent(pc) == shown


# -- JSON ---------------------------------------------------------------------------------------


def test_json_report(data: CoverageData, tmp_path: Path) -> None:
    doc = json.loads(report.json_report(data, cwd=str(tmp_path), timestamp=0))
    assert doc["meta"]["format"] == 1 and doc["meta"]["timestamp"] == "1970-01-01T00:00:00+00:00"
    f = doc["files"]["app.baml"]
    assert f["executed_lines"] == [2, 3, 4]
    assert f["missing_lines"] == [7, 11, 12, 13]
    assert f["partial_lines"] == [3]
    assert f["branches"][0] == {"line": 2, "column": 11, "kind": "??", "edge": "null", "hits": 1}
    assert len(f["branches"]) == 6
    assert f["summary"]["lines"] == 7 and f["summary"]["branches_hit"] == 3
    pick = f["functions"]["Pick"]
    assert (pick["first_line"], pick["last_line"], pick["hits"]) == (1, 8, 0)
    assert pick["missing_lines"] == [7] and pick["summary"]["lines"] == 4
    assert doc["totals"]["percent"] == pytest.approx(100 * 6 / 13)


# -- LCOV ----------------------------------------------------------------------------------------


def test_lcov(data: CoverageData, src: str, tmp_path: Path) -> None:
    data.add_line(src, 1, 2)
    data.add_function(src, "Pick", 1, 8, "Pick", 2)  # entered twice: FNDA counts calls
    text = report.lcov_report(data, cwd=str(tmp_path))
    assert text.splitlines() == [
        "TN:", "SF:app.baml",
        "FN:1,Pick", "FN:10,Label", "FNDA:2,Pick", "FNDA:0,Label", "FNF:2", "FNH:1",
        "BRDA:2,0,0,1", "BRDA:2,0,1,1", "BRDA:3,0,0,0", "BRDA:3,0,1,2",
        "BRDA:11,0,0,-", "BRDA:11,0,1,-", "BRF:6", "BRH:3",
        "DA:1,2", "DA:2,2", "DA:3,2", "DA:4,2", "DA:7,0", "DA:11,0", "DA:12,0", "DA:13,0",
        "LF:8", "LH:4", "end_of_record",
    ]


def test_lcov_blocks_are_decisions_on_a_line() -> None:
    d = CoverageData()
    d.add_line("f", 1, 1)
    for col, kind in ((3, "&&"), (9, "||")):
        d.add_branch("f", (1, col, kind, "true"), 1)
        d.add_branch("f", (1, col, kind, "false"), 0)
    brda = [l for l in report.lcov_report(d).splitlines() if l.startswith("BRDA")]
    assert brda == ["BRDA:1,0,0,0", "BRDA:1,0,1,1", "BRDA:1,1,0,0", "BRDA:1,1,1,1"]


# -- Cobertura ------------------------------------------------------------------------------------


def test_cobertura(data: CoverageData, tmp_path: Path) -> None:
    text = report.cobertura_report(data, cwd=str(tmp_path), timestamp=1.5, version="9.9")
    assert "<!DOCTYPE coverage SYSTEM" in text
    root = ET.fromstring(text)
    assert root.attrib == {
        "line-rate": "0.4286", "branch-rate": "0.5", "lines-covered": "3", "lines-valid": "7",
        "branches-covered": "3", "branches-valid": "6", "complexity": "0",
        "timestamp": "1500", "version": "9.9",
    }
    assert root.find("sources/source").text == str(tmp_path)
    (package,) = root.findall("packages/package")
    assert package.get("name") == "."
    (cls,) = package.findall("classes/class")
    assert (cls.get("name"), cls.get("filename")) == ("app.baml", "app.baml")
    assert [c.tag for c in cls] == ["methods", "lines"]  # the DTD's order
    lines = {int(l.get("number")): l.attrib for l in cls.findall("lines/line")}
    assert sorted(lines) == [2, 3, 4, 7, 11, 12, 13]
    assert lines[3] == {
        "number": "3", "hits": "2", "branch": "true", "condition-coverage": "50% (1/2)"
    }
    assert lines[11]["condition-coverage"] == "0% (0/2)"
    assert lines[7] == {"number": "7", "hits": "0"}
    methods = {m.get("name"): m for m in cls.findall("methods/method")}
    assert methods["Pick"].get("line-rate") == "0.75"
    assert [l.get("number") for l in methods["Label"].findall("lines/line")] == ["11", "12", "13"]


def test_cobertura_packages_by_directory(tmp_path: Path) -> None:
    d = CoverageData()
    d.add_line(str(tmp_path / "ns_a" / "sub" / "x.baml"), 1, 1)
    d.add_line(str(tmp_path / "top.baml"), 1, 0)
    root = ET.fromstring(report.cobertura_report(d, cwd=str(tmp_path)))
    names = [p.get("name") for p in root.findall("packages/package")]
    assert names == ["ns_a.sub", "."]
    cls = root.find("packages/package/classes/class")
    assert cls.get("filename") == "ns_a/sub/x.baml" and cls.get("line-rate") == "1"


# -- HTML ---------------------------------------------------------------------------------------


def _row_classes(page: str) -> dict[int, str]:
    out = {}
    for line in page.splitlines():
        if line.startswith('<tr class="line '):
            cls = line.split('"')[1].split()[1]
            out[int(line.split('id="L')[1].split('"')[0])] = cls
    return out


def test_html(data: CoverageData, tmp_path: Path) -> None:
    out = tmp_path / "htmlcov"
    index = html.write_html(data, out, cwd=str(tmp_path))  # source read from the path
    text = index.read_text()
    (page_name,) = [p.name for p in out.iterdir() if p.name != "index.html"]
    assert f'<a href="{page_name}">app.baml</a>' in text
    assert "<script" not in text and "<style>" in text
    page = (out / page_name).read_text()
    classes = _row_classes(page)
    assert len(classes) == 15
    assert classes[2] == "covered" and classes[3] == "partial" and classes[7] == "missed"
    assert classes[1] == classes[6] == classes[9] == "noexec"
    assert classes[12] == "missed"
    assert '<span class="annotate">not taken: 3:3 if(false)</span>' in page
    assert "// fallback &lt;unused&gt; &amp; &quot;quoted&quot;" in page
    for cls in ("covered", "partial", "missed", "noexec"):
        assert f'<span class="{cls}">' in page  # the legend


def test_html_sources_and_missing_source(data: CoverageData, src: str, tmp_path: Path) -> None:
    out = tmp_path / "given"
    html.write_html(data, out, {src: "<x>\n" * 20}, cwd=str(tmp_path))
    (page,) = [p for p in out.iterdir() if p.name != "index.html"]
    assert len(_row_classes(page.read_text())) == 20
    assert "&lt;x&gt;" in page.read_text()
    Path(src).unlink()
    out = tmp_path / "gone"
    html.write_html(data, out, cwd=str(tmp_path))
    (page,) = [p for p in out.iterdir() if p.name != "index.html"]
    text = page.read_text()
    assert "Source text unavailable" in text
    assert sorted(_row_classes(text)) == [2, 3, 4, 7, 11, 12, 13]


def test_html_escapes_names(tmp_path: Path) -> None:
    d = CoverageData()
    d.add_line("<evil>.baml", 1, 1)
    d.add_function("<evil>.baml", "F", 1, 1, "<b>F</b>")
    html.write_html(d, tmp_path / "o", {"<evil>.baml": "<script>"})
    pages = [p.read_text() for p in (tmp_path / "o").iterdir()]
    assert all("<evil>" not in p and "<script>" not in p and "<b>F" not in p for p in pages)


# -- fail-under ----------------------------------------------------------------------------------


def _data_at(hit: int, total: int) -> CoverageData:
    d = CoverageData()
    for n in range(total):
        d.add_line("f", n + 1, 1 if n < hit else 0)
    return d


def test_fail_under_boundaries() -> None:
    eighty = _data_at(4, 5)
    assert not report.fail_under(eighty, 80)
    assert report.fail_under(eighty, 81)
    assert not report.fail_under(eighty, 0)
    # 79.6% shows as 80%, so it passes 80 (as coverage.py); 100 must be exact.
    almost = _data_at(796, 1000)
    assert not report.fail_under(almost, 80)
    assert report.fail_under(almost, 80, precision=1)
    assert report.fail_under(_data_at(999, 1000), 100)
    assert not report.fail_under(_data_at(3, 3), 100)
    with pytest.raises(ValueError):
        report.fail_under(eighty, 101)


# -- the boundary --------------------------------------------------------------------------------


def test_reports_import_nothing_from_the_compiler() -> None:
    """Coverage reports work on plain data: only the stdlib, third parties and assay.mirx."""
    root = Path(report.__file__).parent
    for name in ("data.py", "report.py", "html.py"):
        tree = ast.parse((root / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                mods = [node.module or ""]
            elif isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            else:
                continue
            for mod in mods:
                assert not mod.startswith("assay") or mod.startswith("assay.mirx"), (name, mod)
