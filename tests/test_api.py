"""The Python bridge: calls, conversions, errors, host callables."""
import collections.abc
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


# ── typed models (issue 12) ──

TYPED = """
enum Color { Red Green Blue }
class Pixel { x int  y int }
class Box<T> { value T }
class Node { v int  next Node?  kids Node[] }
class Person { full_name string @alias("name") @description("the whole name")  age int? }
class All {
  c Color  r Color.Red  u int | string  m map<string, Pixel>  l Pixel[]  b Box<int>
  opt string?  big bigint  fl float  ok bool  lit "a" | "b"  any unknown  f (int) -> int throws never
}
function node(n: int) -> Node {
  let tail = Node { v: 0, next: null, kids: [] };
  Node { v: n, next: tail, kids: [tail] }
}
function all(x: unknown) -> All {
  All { c: Color.Green, r: Color.Red, u: "s", m: {"p": Pixel { x: 1, y: 2 }}, l: [], b: Box { value: 3 },
        opt: null, big: 5n, fl: 1.5, ok: true, lit: "b", any: x, f: (i: int) -> int { i } }
}
function wrap(b: Box<int>) -> int { b.value }
function name_of(p: Person) -> string { p.full_name }
function colors() -> map<Color, int> { let m: map<Color, int> = {}; m[Color.Blue] = 1; m }
"""


@pytest.fixture(scope="module")
def typed():
    return assay.compile(TYPED)


def test_model_fields_are_annotated_from_baml_types(typed):
    import typing
    f = typed.types.All.model_fields
    Color, Pixel, Box = typed.types.Color, typed.types.Pixel, typed.types.Box
    assert f["c"].annotation is Color and issubclass(Color, enum.Enum)
    assert f["r"].annotation == typing.Literal[Color.Red]
    assert typing.get_origin(f["u"].annotation) is typing.Union
    assert [a.__origin__ for a in typing.get_args(f["u"].annotation)] == [int, str]  # strict int | str
    assert f["m"].annotation == dict[typing.Annotated[str, pydantic.Strict()], Pixel]
    assert f["l"].annotation == list[Pixel]
    meta = f["b"].annotation.__pydantic_generic_metadata__  # Box[int] (a strict int)
    assert meta["origin"] is Box and typing.get_args(meta["args"][0])[0] is int
    assert f["opt"].annotation == typing.Optional[typing.Annotated[str, pydantic.Strict()]]
    assert (f["big"].annotation, f["fl"].annotation, f["ok"].annotation) == (int, float, bool)
    assert f["lit"].annotation == typing.Union[typing.Literal["a"], typing.Literal["b"]]
    assert f["any"].annotation is typing.Any
    assert typing.get_origin(f["f"].annotation) is collections.abc.Callable
    assert typed.types.Pixel.model_fields["x"].annotation is int


def test_model_required_fields(typed):
    f = typed.types.All.model_fields
    assert {n for n, fi in f.items() if not fi.is_required()} == {"opt"}  # only what admits null
    assert typed.types.Node.model_fields["next"].default is None
    with pytest.raises(pydantic.ValidationError):
        typed.types.Pixel(x=1)
    assert typed.types.Person(full_name="a").age is None


def test_model_validation_rejects_wrong_types(typed):
    Pixel = typed.types.Pixel
    for bad in ("no", "5", 1.5, None):
        with pytest.raises(pydantic.ValidationError):
            Pixel(x=bad, y=1)
    assert Pixel(x=1, y=2).x == 1
    with pytest.raises(pydantic.ValidationError):
        typed.types.Node(v=1, kids=[{"v": "x", "kids": []}])
    with pytest.raises(pydantic.ValidationError):
        typed.types.Box[int](value="x")
    n = typed.types.Node(v=1, kids=[{"v": 2, "kids": []}])  # nested dicts become models
    assert isinstance(n.kids[0], typed.types.Node)


def test_model_json_schema_is_meaningful(typed):
    s = typed.types.All.model_json_schema()
    p = s["properties"]
    assert p["c"] == {"$ref": "#/$defs/Color"} and s["$defs"]["Color"]["enum"] == ["Red", "Green", "Blue"]
    assert p["u"]["anyOf"] == [{"type": "integer"}, {"type": "string"}]
    assert p["m"]["additionalProperties"] == {"$ref": "#/$defs/Pixel"}
    assert p["l"]["items"] == {"$ref": "#/$defs/Pixel"}
    assert s["$defs"]["Pixel"]["properties"]["x"]["type"] == "integer"
    assert s["$defs"]["Pixel"]["required"] == ["x", "y"]
    assert p["opt"]["anyOf"] == [{"type": "string"}, {"type": "null"}]
    assert (p["fl"]["type"], p["ok"]["type"], p["big"]["type"]) == ("number", "boolean", "integer")
    assert set(s["required"]) == set(p) - {"opt"}
    rec = typed.types.Node.model_json_schema()
    assert rec["$defs"]["Node"]["properties"]["next"]["anyOf"] == [{"$ref": "#/$defs/Node"}, {"type": "null"}]


def test_recursive_and_generic_models(typed):
    n = typed.node(7)
    Node = typed.types.Node
    assert isinstance(n, Node) and isinstance(n.next, Node) and n.kids[0].v == 0
    assert Node.model_fields["next"].annotation == typing_optional(Node)
    assert Node.model_fields["kids"].annotation == list[Node]
    Box = typed.types.Box
    assert typed.all(1).b == Box(value=3) or typed.all(1).b.value == 3
    assert isinstance(typed.all(1).b, Box)
    assert typed.wrap(Box[int](value=4)) == 4
    assert typed.wrap(Box(value=5)) == 5
    assert typed.wrap({"value": 6}) == 6


def typing_optional(t):
    import typing
    return typing.Optional[t]


def test_results_are_models_without_copies(typed):
    payload = object()
    a = typed.all(payload)
    assert isinstance(a, typed.types.All)
    assert a.any is payload  # `unknown` passes any object through uncopied
    items = [1, [2]]
    assert typed.types.All.model_validate({**a.__dict__, "any": items}).any is items
    assert a.c is typed.types.Color.Green and a.r is typed.types.Color.Red
    assert a.big == 5 and type(a.big) is int and a.f(3) == 3
    assert a.model_fields_set == set(typed.types.All.model_fields)
    assert typed.types.All.model_validate(a.model_dump()).u == "s"  # results are valid models
    assert typed.colors() == {typed.types.Color.Blue: 1}  # enum keys as enum members too


def test_alias_is_the_llm_name_not_the_field_name(typed):
    # On the engine, @alias only renames the field for the LLM: host values use the field's name.
    Person = typed.types.Person
    p = Person(full_name="Ada")
    assert typed.name_of(p) == "Ada" and typed.name_of({"full_name": "Bo"}) == "Bo"
    with pytest.raises(assay.ArgumentError):
        typed.name_of({"name": "Cy"})
    with pytest.raises(pydantic.ValidationError):
        Person(name="Ada")
    assert p.model_dump() == {"full_name": "Ada", "age": None}
    assert p.model_dump(by_alias=True) == {"name": "Ada", "age": None}
    fi = Person.model_fields["full_name"]
    assert fi.serialization_alias == "name" and fi.description == "the whole name"
    assert Person.model_json_schema()["properties"]["full_name"]["description"] == "the whole name"


def test_host_models_and_dicts_still_work(typed):
    Pixel = typed.types.Pixel
    assert typed.all(Pixel(x=1, y=2)).any == Pixel(x=1, y=2)
    assert typed.wrap(typed.types.Box[int].model_validate({"value": 9})) == 9


def test_function_values_and_map_keys_reach_python():
    """A named function returned as a value before any call compiled it is still a Python
    callable; map keys other than strings and ints come back in hashable Python forms."""
    p = assay.compile("""
class K { a int }
function inc(x: int) -> int { x + 1 }
function fns() -> ((int) -> int throws never)[] { let k = 3; [inc, (x: int) -> int { x * k }] }
function keys() -> map<K | int[] | bool, string> {
  let m: map<K | int[] | bool, string> = {};
  m[K { a: 1 }] = "k";
  m[[1, 2]] = "a";
  m[false] = "b";
  m
}
""")
    f, g = p.call("fns")
    assert (f(1), g(2)) == (2, 6)
    assert p.call("keys") == {(("a", 1),): "k", (1, 2): "a", False: "b"}


def test_run_tests_covers_testsets(tmp_path):
    """Testset leaves come out as outcomes of their own, a tolerated failure marked so."""
    (tmp_path / "t.baml").write_text(
        'test "top" { assert.equal(1, 1) }\n'
        'testset "rate" with testing.PassRate(0.5) {\n'
        '  test "ok" { assert.equal(2, 2) }\n'
        '  test "off" { assert.equal(2, 3) }\n'
        '}\n')
    outs = assay.load(str(tmp_path)).run_tests()
    assert [(o.name, o.passed, o.tolerated) for o in outs] == [
        ("top", True, False), ("rate::ok", True, False), ("rate::off", False, True)]
    assert outs[2].error["type"] == "baml.panics.AssertionFailed"
    assert [o.name for o in assay.load(str(tmp_path)).run_tests("ok")] == ["rate::ok"]


def test_deep_result_is_stack_overflow():
    # A 100k-long linked list is too deep to convert to Python objects: a BAML StackOverflow
    # panic, not Python's RecursionError (the engine's bridge crashes the process here).
    p = assay.compile("""
class Node { v int  next Node? }
function chain(n: int) -> Node? {
  let head: Node? = null;
  for (let i = 0; i < n; i += 1) { head = Node { v: i, next: head }; }
  head
}
function wrap(n: int) -> () -> Node? throws never { () -> Node? { chain(n) } }
""")
    assert p.chain(3).next.next.v == 0
    for call in (lambda: p.chain(100000), lambda: p.call("chain", 100000), lambda: p.wrap(100000)()):
        with pytest.raises(assay.BamlPanic) as e:
            call()
        assert e.value.class_name == "baml.panics.StackOverflow"
    assert p.chain(5).v == 4  # the program still runs
