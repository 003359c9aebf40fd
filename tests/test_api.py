"""The Python bridge: calls, conversions, errors, host callables."""
import enum

import pydantic
import pytest

import assay

SRC = """
class Point { x int  y int }
enum Color { Red Green Blue }
class Box { items int[]  tag string? }

function add(a: int, b: int = 10) -> int { a + b }
function norm1(p: Point) -> int { p.x + p.y }
function mk(x: int) -> Point { Point { x: x, y: x * 2 } }
function paint(c: Color) -> string { match (c) { Color.Red => "r", Color.Green => "g", Color.Blue => "b" } }
function favourite() -> Color { Color.Blue }
function boxed(b: Box) -> int { b.items.length() }
function half(x: float) -> float { x / 2.0 }
function apply(f: (int) -> int throws never, x: int) -> int { f(x) + 1 }
function guarded(f: (int) -> int throws baml.errors.HostCallable, x: int) -> string {
  let r = f(x) catch (e) { let h: baml.errors.HostCallable => h.class_name };
  string.from(r)
}
function boom(s: string) -> int { throw s }
function div(a: int, b: int) -> int { a / b }
function counts(words: string[]) -> map<string, int> {
  let m: map<string, int> = {};
  for (let w in words) { m[w] = (m.get(w) ?? 0) + 1; }
  m
}
"""


@pytest.fixture(scope="module")
def prog():
    return assay.compile(SRC)


def test_positional_named_and_default_arguments(prog):
    assert prog.add(1) == 11
    assert prog.add(1, 2) == 3
    assert prog.call("add", a=5, b=1) == 6


def test_classes_are_pydantic_models(prog):
    p = prog.mk(3)
    assert isinstance(p, pydantic.BaseModel) and isinstance(p, prog.types.Point)
    assert (p.x, p.y) == (3, 6)
    assert prog.norm1(p) == 9
    assert prog.norm1({"x": 1, "y": 2}) == 3
    assert prog.norm1(prog.types.Point(x=4, y=5)) == 9


def test_optional_fields_may_be_omitted(prog):
    assert prog.boxed({"items": [1, 2, 3]}) == 3


def test_enums_are_python_enums(prog):
    assert issubclass(prog.types.Color, enum.Enum)
    assert prog.favourite() is prog.types.Color.Blue
    assert prog.paint(prog.types.Color.Red) == "r"
    assert prog.paint("Green") == "g"


def test_int_is_accepted_for_float(prog):
    assert prog.half(3) == 1.5


def test_maps_come_back_as_dicts_in_insertion_order(prog):
    assert list(prog.counts(["b", "a", "b"]).items()) == [("b", 2), ("a", 1)]


def test_arguments_that_do_not_fit(prog):
    with pytest.raises(assay.ArgumentError):
        prog.add("x")
    with pytest.raises(assay.ArgumentError):
        prog.norm1({"x": 1})
    with pytest.raises(assay.ArgumentError):
        prog.add(1 << 62)
    with pytest.raises(assay.ArgumentError):
        prog.call("add", 1, c=2)


def test_panics_and_throws(prog):
    with pytest.raises(assay.BamlPanic) as e:
        prog.div(7, 0)
    assert e.value.class_name == "baml.panics.DivisionByZero"
    assert e.value.fields == {"dividend": 7}
    with pytest.raises(assay.BamlError) as e:
        prog.boom("nope")
    assert e.value.class_name is None and e.value.value == "nope"


def test_host_callables(prog):
    assert prog.apply(lambda v: v * 10, 4) == 41

    def bad(v):
        raise ValueError("py boom")

    assert prog.guarded(bad, 1) == "ValueError"
    with pytest.raises(assay.BamlError) as e:
        prog.apply(bad, 1)
    assert e.value.class_name == "baml.errors.HostCallable"
    assert e.value.fields["message"] == "ValueError: py boom"
    assert e.value.fields["language"] == "python"


def test_namespaced_calls(tmp_path):
    (tmp_path / "ns_geo").mkdir()
    (tmp_path / "main.baml").write_text("function twice(x: int) -> int { root.geo.dbl(x) * 1 }\n")
    (tmp_path / "ns_geo" / "g.baml").write_text("function dbl(x: int) -> int { x * 2 }\n")
    p = assay.load(str(tmp_path))
    assert p.call("geo.dbl", 21) == 42
    assert p.twice(4) == 8


def test_compile_errors_are_located(tmp_path):
    with pytest.raises(assay.CompileError) as e:
        assay.compile('function f() -> int {\n  "a"\n}\n', path="bad.baml")
    d = e.value.diagnostics[0]
    assert d.code == "E0001" and d.span.line_col == (1, 21)  # where the real engine puts it


def test_to_plain(prog):
    assert assay.to_plain(prog.mk(1)) == {"x": 1, "y": 2}
    assert assay.to_plain(prog.favourite()) == "Blue"


def test_errors_carry_the_baml_traceback():
    p = assay.compile("function a(x: int) -> int {\n  b(x)\n}\nfunction b(x: int) -> int {\n  10 / x\n}\n",
                      path="tb.baml")
    with pytest.raises(assay.BamlPanic) as e:
        p.a(0)
    assert e.value.baml_traceback == [("user.a", "tb.baml", 2), ("user.b", "tb.baml", 5)]
