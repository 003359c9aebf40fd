"""Every deliberate deviation from the real engine (docs/deviations.md), shown side by side:
Assay's behaviour is asserted, and so is the engine's, so the document stays true."""
from pathlib import Path

import pytest

import assay

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def prog():
    return assay.load(str(HERE / "programs" / "ns_deviations"))


def test_c_for_without_init_and_update_runs(prog, engine):
    assert prog.cfor(3) == 3
    real = engine.call("deviations.cfor", {"n": 3})
    assert (real.kind, real.class_name) == ("panic", "baml.panics.UserPanic")  # "missing statement"
    for fn in ("cfor_cond", "cfor_step"):  # no init: a condition and maybe a step
        assert getattr(prog, fn)(3) == 3
        real = engine.call(f"deviations.{fn}", {"n": 3})
        assert (real.kind, real.class_name) == ("panic", "baml.panics.UserPanic")


def test_stack_depth_limit(prog, engine):
    assert prog.deep(10_000) == 10_000
    with pytest.raises(assay.BamlPanic) as e:
        prog.deep(1_000_000)
    assert e.value.class_name == "baml.panics.StackOverflow"
    assert engine.call("deviations.deep", {"n": 50_000}).value == 50_000


def test_single_use_let_is_eager_in_assay_lazy_in_the_engine(prog, engine):
    with pytest.raises(assay.BamlPanic) as e:
        prog.lazy_let([], 0)
    assert e.value.class_name == "baml.panics.IndexOutOfBounds"
    assert engine.call("deviations.lazy_let", {"xs": [], "i": 0}).value == "plain"


def test_literal_folding_with_diverging_arm(engine):
    """The engine folds `1 + match (x) { 1 => 5, _ => return 99 }` to the constant 6 (the
    operands have literal types once the diverging arm is dropped), so the `return` never runs;
    Assay evaluates the operand as written."""
    p = assay.load(str(HERE / "programs" / "ns_diverge"))
    assert p.call("dv_fold_quirk", x=2) == 99
    assert p.call("dv_fold_quirk", x=1) == 6
    assert engine.call("diverge.dv_fold_quirk", {"x": 2}).value == 6
    assert engine.call("diverge.dv_fold_quirk", {"x": 1}).value == 6


def test_unknown_class_field_in_a_host_argument(prog, engine):
    """The engine silently drops a field the class does not declare (a typo in a field name
    goes unnoticed); Assay rejects the argument, naming the field."""
    assert engine.call("deviations.host_fields", {"p": {"x": 1, "y": 2, "z": 3}}).value == "HostPt { x: 1, y: 2 }"
    with pytest.raises(assay.ArgumentError, match="argument `p`: unknown field `z`"):
        prog.host_fields({"x": 1, "y": 2, "z": 3})
    assert prog.host_fields({"x": 1, "y": 2}) == "HostPt { x: 1, y: 2 }"


def test_host_ints_for_floats_inside_a_union_member(prog, engine):
    """A Python int where a float is declared inside a union member's container or class
    (`float[]?` given `[1, 2]`, `HostReading?` given `{"value": 3, …}`): the engine's bridge
    refuses the argument ("does not match any member of union"), though it converts the same
    ints where the type is not in a union (`float[]`); Assay converts them in both places."""
    assert prog.host_opt_floats([1, 2]) == "[1.0, 2.0]"
    assert prog.host_opt_reading({"value": 3, "unit": "kg"}) == 'HostReading { value: 3.0, unit: "kg" }'
    for fn, arg in (("host_opt_floats", {"xs": [1, 2]}), ("host_opt_reading", {"r": {"value": 3, "unit": "kg"}})):
        real = engine.call(f"deviations.{fn}", arg)
        assert real.kind == "harness" and "does not match any member of union" in real.detail
    assert engine.call("deviations.host_floats", {"xs": [1, 2]}).value == "[1.0, 2.0]" == prog.host_floats([1, 2])


def test_block_operands_run_their_statements(prog, engine):
    """The engine folds `{ log.push("a"); 1 } + { log.push("b"); 2 }` to 3 and drops the
    blocks' statements (an engine bug: a block's statements run wherever it stands); Assay
    runs them."""
    assert prog.block_operands() == ["a", "b", "3"]
    assert engine.call("deviations.block_operands", {}).value == ["3"]


def test_break_outside_a_loop():
    """`break` / `continue` outside a loop: the engine's checker says nothing and its MIR
    builder panics (`block bb0 is not terminated`), failing the whole project; Assay reports
    E0010 at the statement."""
    bb = pytest.importorskip("baml_bridge")
    text = "function f() -> int { break; }\n"
    with pytest.raises(BaseException, match="not terminated") as e:
        bb.BamlRuntime.initialize_runtime(".", {"main.baml": text})
    assert "error[" not in str(e.value)
    from assay.compiler import analyze
    from assay.source import SourceFile
    _, diags = analyze([SourceFile("main.baml", text, "main")])
    assert [(d.code, d.span.line_col) for d in diags] == [("E0010", (1, 23))]


def test_negative_zero_literal_keeps_its_sign(prog, engine):
    """The engine's constant pool merges the literals `0.0` and `-0.0` of one function (they are
    equal as floats), so `[0.0, -0.0]` is `[0.0, 0.0]` there; Assay keeps each literal's sign."""
    import math
    assert [math.copysign(1, x) for x in prog.neg_zero_consts()] == [1, -1]
    real = engine.call("deviations.neg_zero_consts", {}).value
    assert [math.copysign(1, x) for x in real] == [1, 1]


def test_equality_ignores_recorded_element_types(prog, engine):
    """The engine's `==` compares the element types arrays and maps recorded and a generic
    instance's type arguments before their contents: `let a: int?[] = [1]; a == [1]` is false
    there, so are `float[]` `[]` against `int[]` `[]`, `Dir[]` `[Dir.N]` against the literal
    `[Dir.N]` (recorded `Dir.N[]`) and `Box<int> { v: 1 }` against `Box<int?> { v: 1 }`; Assay
    compares the values, as `baml.ops.equals_equals` documents (length and items, keys and values)."""
    assert prog.eq_recorded() == [True, True, True, True, True]
    assert engine.call("deviations.eq_recorded", {}).value == [False, False, False, False, False]


def test_enum_argument_from_the_host_is_a_variant(prog, engine):
    """The engine passes an enum argument on as its variant's name (a string): matching on it
    fails with `VM internal error: type error: expected variant, got string` and a class holding
    it renders the name quoted; Assay converts the name to the variant."""
    assert prog.host_enum("Dark") == "d"
    assert "expected variant, got string" in engine.call("deviations.host_enum", {"s": "Dark"}).detail
    assert prog.host_enum_field({"shade": "Dark"}) == "HostPaint { shade: Dark }"
    assert engine.call("deviations.host_enum_field", {"p": {"shade": "Dark"}}).value == 'HostPaint { shade: "Dark" }'

def test_allocation_failure_is_a_panic(prog):
    """`"ab".repeat(2^62 - 1)` aborts the engine's whole process ("memory allocation of …
    bytes failed"), and `baml.Array.filled(2^62 - 1, 0)` panics one of its worker threads
    (capacity overflow), so neither can be shown here; Assay panics
    `baml.panics.AllocFailure`, which `catch_all_panics` can handle."""
    for fn in (prog.huge_repeat, prog.huge_filled):
        with pytest.raises(assay.BamlPanic) as e:
            fn(4611686018427387903)
        assert e.value.class_name == "baml.panics.AllocFailure"


def test_c_for_without_condition():
    """`for (init; ; step)`: 0.23.0's parser takes the step for the missing condition (E0010
    when the step is an assignment, as it always is); Assay loops until a `break`."""
    import re
    import difflib_baml as dl
    from assay.compiler import analyze
    from assay.source import SourceFile
    pytest.importorskip("baml_bridge")
    text = ("function nocond(n: int) -> int {\n    let s = 0;\n"
            "    for (let i = 0; ; i += 1) { if (i >= n) { break; } s += i; }\n    s\n}\n")
    diag = re.compile(r"""(?:^|\\n|['"])(\w+)\.baml:(\d+):(\d+)(?:-\d+:\d+)? error\[(E\d+)\]""", re.M)
    assert dl.engine_diagnostics({"cfornocond": text}, diag).get("cfornocond") == [("E0010", 3, 23)]
    _, diags = analyze([SourceFile("x.baml", text, "x")])
    assert not [d for d in diags if d.severity == "error"]
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "cfornocond.baml"
        path.write_text(text)
        assert assay.load(str(path)).nocond(4) == 6


def test_toml_leap_second_local_time(prog, engine):
    """TOML allows a second of 60; the engine's PlainTime wraps `23:59:60` to midnight, tomllib
    refuses it (docs/conformance.md, baml.toml)."""
    with pytest.raises(assay.BamlError) as e:
        prog.toml_leap_time("a = 23:59:60")
    assert e.value.class_name == "baml.toml.ParseError"
    assert engine.call("deviations.toml_leap_time", {"s": "a = 23:59:60"}).value == '{"a": 00:00:00}'

def test_fancy_regex_named_group_in_zero_repetition(prog, engine):
    """fancy-regex (`backtracking = true`) indexes past its group names when a named group sits
    inside `{0}` before another named group: the engine panics `index out of bounds`; Assay
    matches as the default dialect does (the `{0}` group null, its name gone from `named`)."""
    assert prog.rx_zero_named("(?<n>a){0}(?<m>b)", "b") == 3
    real = engine.call("deviations.rx_zero_named", {"p": "(?<n>a){0}(?<m>b)", "h": "b"})
    assert "index out of bounds" in (real.detail + str(real.fields) + str(real.value))

def test_bitwise_not_of_the_least_int(prog, engine):
    """`~int.min` is int.max (bitwise complement, no overflow possible); the engine negates
    first and panics IntegerOverflow `-(-4611686018427387904) overflows int`."""
    least = -4611686018427387904
    assert prog.bitnot(least) == 4611686018427387903
    assert prog.bitnot(5) == -6
    real = engine.call("deviations.bitnot", {"x": least})
    assert (real.kind, real.class_name) == ("panic", "baml.panics.IntegerOverflow")
    assert engine.call("deviations.bitnot", {"x": 5}).value == -6


def test_unresolved_type_in_a_catch_arm():
    """An unresolved type in a `catch` arm (`baml.json.JsonParseError`, newer than 0.23.0): the
    engine's checker says nothing and its lowering crashes; Assay reports E0002 at the type."""
    from assay.compiler import analyze
    from assay.source import SourceFile
    bb = pytest.importorskip("baml_bridge")
    text = ('function f() -> int { throw "x" }\n'
            'function g() -> int { f() catch (e) { baml.json.JsonParseError => 1, _ => 2 } }\n')
    with pytest.raises(BaseException) as e:
        bb.BamlRuntime.initialize_runtime(".", {"main.baml": "", "ns_catchtype/catchtype.baml": text})
    assert "error-recovery type reached runtime lowering" in str(e.value)
    assert "E0002" not in str(e.value)
    _, diags = analyze([SourceFile("x.baml", text, "x")])
    assert [(d.code, d.span.line_col) for d in diags if d.severity == "error"] == [("E0002", (2, 39))]


def test_unresolved_name_in_a_c_for_step():
    """`i--` is one word to BAML's lexer (words may hold `-`), so `for (…; i > 0; i--)` steps by
    an unresolved name: the engine's checker does not resolve a C-style `for`'s step, says
    nothing, and the step does nothing at run time (the loop runs until a `break`); Assay
    reports E0003 at the name, as the engine does for `i--` anywhere else."""
    import difflib_baml as dl
    from assay.compiler import analyze
    from assay.source import SourceFile
    bb = pytest.importorskip("baml_bridge")
    text = ("function f(n: int) -> int {\n"
            "  let c = 0;\n"
            "  for (let i = n; i > 0; i--) { c += 1; if (c > 5) { break; } }\n"
            "  c\n}\n")
    rt = dl.build_engine_runtime({"main.baml": text})  # noted: the shared runtime rebuilds itself
    assert bb.call_function_sync(rt, "f", {"n": 3}).result() == 6  # i stays 3: six rounds to the break
    _, diags = analyze([SourceFile("x.baml", text, "x")])
    assert [(d.code, d.span.line_col) for d in diags if d.severity == "error"] == [("E0003", (3, 26))]


def test_iter_of_an_iterator(tmp_path):
    """`it.iter()` on a `baml.iter.Iterator` value (documented as handing back the same, shared
    iterator): the engine's MIR lowering panics (`type variable not found in type args: Self`),
    failing the whole project; Assay returns the iterator itself."""
    bb = pytest.importorskip("baml_bridge")
    text = ("function f() -> int[] { let it = [1, 2, 3].iter(); let a = it.iter().take(1).collect(); "
            "a.concat(it.collect()) }\n")
    with pytest.raises(BaseException, match="type variable not found in type args: Self"):
        bb.BamlRuntime.initialize_runtime(".", {"main.baml": text})
    (tmp_path / "main.baml").write_text(text)
    assert assay.load(str(tmp_path)).f() == [1, 2, 3]


def test_generic_iterable_parameter_given_an_iterator():
    """`count<T>(xs: baml.iter.Iterable<Item = T>)` called with an iterator (`count([1].iter())`):
    the engine cannot infer T from the iterator (E0006 `cannot iterate over type
    baml.iter.Iterator<…>`, though a non-generic `Iterable<Item = int>` parameter takes it);
    Assay infers T from the iterator's item type."""
    bb = pytest.importorskip("baml_bridge")
    text = ("function count<T>(xs: baml.iter.Iterable<Item = T>) -> int { xs.iter().count() }\n"
            "function f() -> int { count([1].iter()) }\n")
    with pytest.raises(BaseException, match=r"main.baml:2:29-2:39 error\[E0006\]"):
        bb.BamlRuntime.initialize_runtime(".", {"main.baml": text})
    from assay.compiler import analyze
    from assay.source import SourceFile
    _, diags = analyze([SourceFile("main.baml", text, "main")])
    assert [d for d in diags if d.severity == "error"] == []


def test_iterator_adapter_where_an_iterable_is_expected(tmp_path):
    """`xs.iter().chain(ys.iter().map(f))`: the engine does not take an adapter (typed as the
    `Iterator<Item = …, Error = …>` existential) for `chain`'s `other: Iterable<…>` (E0006 `cannot
    iterate`), though `Iterator requires Iterable` and an `ArrayIterator` is taken; Assay takes
    it, and what the adapter's callback throws follows the chain."""
    bb = pytest.importorskip("baml_bridge")
    text = ("function f(xs: int[], ys: int[]) -> int[] {\n"
            "  xs.iter().chain(ys.iter().map((y: int) -> int throws never { y * 10 })).collect()\n}\n")
    with pytest.raises(BaseException, match=r"main.baml:2:19-2:73 error\[E0006\]: cannot iterate"):
        bb.BamlRuntime.initialize_runtime(".", {"main.baml": text})
    (tmp_path / "main.baml").write_text(text)
    assert assay.load(str(tmp_path)).f([1, 2], [3]) == [1, 2, 30]


def test_tag_with_a_defaulted_parameter(prog, engine):
    """`` tag`…` `` where the tag has a defaulted parameter after `body`: the engine's VM
    crashes ("not enough items on stack", an SdkPanic at the host); Assay passes the default."""
    assert prog.tagged_default() == "a,b,c"
    real = engine.call("deviations.tagged_default", {})
    assert real.kind == "harness" and "not enough items on stack" in real.detail


def test_panicking_leaf_runner_fails_its_test(engine, tmp_path):
    """A leaf runner (`testing.TestRunner`) that panics: the engine's `_run_test` catches it to
    fail the test ("test runner middleware failed"), as its comments say, yet the panic escapes
    to the testset (`s::(testset error)`, and a pool slot stays taken: a later leaf waits
    forever). Assay fails the test, as the engine means to."""
    src = ('function BrokenLeaf() -> testing.TestRunner {\n'
           '  (run_once) -> testing.TestReportThunk {\n'
           '    () -> testing.TestReport { baml.sys.panic("middleware broke") }\n  }\n}\n'
           'testset "s" {\n  test "a" with BrokenLeaf() { assert.is_true(true) }\n  test "b" { }\n}\n')
    (tmp_path / "t.baml").write_text(src)
    got = {r.name: (r.passed, r.tolerated) for r in assay.load(str(tmp_path)).run_tests()}
    assert got == {"s::a": (False, False), "s::b": (True, False)}
    flat = engine.call("testrun_engine.leaf_runner_panic", {}).value
    assert (flat["outcome"], flat["failed_names"]) == ("error", ["s::(testset error)"])


def test_chained_untyped_maps_are_checked():
    """The engine accepts `xs.map((d) -> { d.length() }).map((e) -> { e + 1 })` as a `string[]`
    and returns ints from it; Assay rejects it inside the second lambda (E0001)."""
    pytest.importorskip("baml_bridge")
    import difflib_baml as dl
    from assay.compiler import analyze
    from assay.source import SourceFile
    text = ("function chained_map(xs: string[]) -> string[] {\n"
            "  xs.map((d) -> { d.length() }).map((e) -> { e + 1 })\n}\n")
    _, diags = analyze([SourceFile("dvmap.baml", text, "dvmap")])
    assert [(d.code, d.span.line_col) for d in diags if d.severity == "error"] == [("E0001", (2, 44))]
    rt = dl.build_engine_runtime({"ns_dvmap/dvmap.baml": text})
    assert dl.engine_call(rt, "dvmap.chained_map", {"xs": ["ab", "c"]}).value == [3, 2]

def test_function_type_as_an_explicit_type_argument():
    """`reflect.Type.of<() -> int throws never>()`: 0.23.0's parser closes the type arguments
    at the `>` of `->` (E0010; an alias of the same type is accepted); Assay takes the type."""
    import re
    import difflib_baml as dl
    pytest.importorskip("baml_bridge")
    text = "function fnarg() -> string {\n  reflect.Type.of<() -> int throws never>().to_string()\n}\n"
    diag = re.compile(r"""(?:^|\\n|['"])(\w+)\.baml:(\d+):(\d+)(?:-\d+:\d+)? error\[(E\d+)\]""", re.M)
    assert ("E0010", 2, 41) in dl.engine_diagnostics({"fnarg": text}, diag).get("fnarg", [])
    assert assay.compile(text).fnarg() == "() -> int throws never"
