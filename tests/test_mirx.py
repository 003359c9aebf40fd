"""mirx: views of the resolved program, and the Extension protocol."""
import pytest

from assay import mirx

SRC = """
class Point {
  x int @description("horizontal")
  y int
  function norm1(self) -> int { self.x + self.y }
}
enum Color { Red Green }
type Small = 1 | 2
function add(a: int, b: int = 2) -> int { a + b }
function shapes(p: Point, m: map<string, int[]>, c: Color?, s: Small) -> string throws string {
  if (c == null) { throw "no colour" }
  `${p.norm1()} ${m.length()} ${s}`
}
function apply(f: (int) -> int throws never, x: int) -> int { f(x) }
function mk(n: int) -> int[] {
  let xs: int[] = [];
  xs.push(add(n));
  let g = (k: int) -> int { k * n };
  [apply(g, 2), xs.length()]
}
function risky(a: int, b: int) -> int { (a / b) catch (e) { _ => 0 } }
test "t" { assert.equal(add(1), 3) }
"""


@pytest.fixture(scope="module")
def prog():
    return mirx.compile(SRC)


def test_version():
    assert mirx.VERSION.split(".")[0] == "2"


def test_functions_and_signatures(prog):
    names = [f.fqn for f in prog.functions()]
    assert names[:6] == ["user.Point.norm1", "user.add", "user.shapes", "user.apply", "user.mk", "user.risky"]
    assert any(f.kind == "test" for f in prog.functions())
    add = prog.function("add")
    assert add.kind == "function" and add.name == "add"
    assert [(p.name, p.type.name, p.has_default) for p in add.params] == [("a", "int", False), ("b", "int", True)]
    assert add.return_type.name == "int" and add.throws_type is None
    assert add.span.line == 9 and add.span.file == "main.baml"
    shapes = prog.function("user.shapes")
    assert shapes.throws_type.name == "string"
    assert prog.function("user.Point.norm1").kind == "method" and prog.function("user.Point.norm1").has_self
    assert add.type.kind == "function" and [t.name for _, t in add.type.params] == ["int", "int"]


def test_type_views(prog):
    p, m, c, s = [x.type for x in prog.function("shapes").params]
    assert p.kind == "class" and p.qualified_name == "user.Point"
    assert [(f.name, f.type.name) for f in p.fields] == [("x", "int"), ("y", "int")]
    assert m.kind == "map" and m.key.name == "string" and m.value.kind == "array" and m.value.element.name == "int"
    assert c.kind == "union" and sorted(x.kind for x in c.members) == ["enum", "null"]
    color = next(x for x in c.members if x.kind == "enum")
    assert [v.name for v in color.variants] == ["Red", "Green"]
    assert s.kind == "union" and sorted(x.literal for x in s.members) == [1, 2]
    assert all(x.kind == "literal" and x.base.name == "int" for x in s.members)
    f = prog.function("apply").params[0].type
    assert f.kind == "function" and f.returns.name == "int" and f.throws.name == "never"
    assert [t.qualified_name for t in prog.classes()] == ["user.Point"]
    assert [t.qualified_name for t in prog.enums()] == ["user.Color"]


def test_json_type_view():
    j, opt = [x.type for x in mirx.compile("function f(j: json, o: json?) -> int { 1 }").function("f").params]
    assert j.kind == "json" and j.name == "baml.json.json" and j.qualified_name == "baml.json.json"
    made = [m.name for m in j.members]
    assert made == ["null", "bool", "int", "bigint", "float", "string", "baml.json.json[]",
                    "map<string, baml.json.json>"]
    assert j.members[6].element.kind == "json"
    assert opt.kind == "union" and [m.kind for m in opt.members] == ["json", "null"]


def test_blocks_statements_terminators(prog):
    mk = prog.function("mk")
    calls = [b.terminator.call for b in mk.blocks if b.terminator.kind == "call"]
    kinds = {(c.kind, c.name) for c in calls}
    assert ("function", "user.add") in kinds and ("builtin", "array.push") in kinds
    assert ("function", "user.apply") in kinds
    add_call = next(c for c in calls if c.name == "user.add")
    assert add_call.function.fqn == "user.add" and add_call.type.kind == "function"
    closures = [s for b in mk.blocks for s in b.statements if s.kind == "assign" and s.rvalue.kind == "closure"]
    assert len(closures) == 1 and closures[0].rvalue.target.startswith("user.mk.<lambda")
    assert [lam.kind for lam in mk.lambdas] == ["lambda"]
    # operands carry their static types
    binary = next(s for b in prog.function("add").blocks for s in b.statements
                  if s.kind == "assign" and s.rvalue.kind == "binary")
    assert binary.rvalue.op == "+" and [o.type.name for o in binary.rvalue.operands] == ["int", "int"]
    assert binary.span.line == 9
    indirect = [b.terminator.call for b in prog.function("apply").blocks if b.terminator.kind == "call"]
    assert indirect[0].kind == "indirect" and indirect[0].type.kind == "function"
    branches = [b.terminator for b in prog.function("shapes").blocks if b.terminator.kind == "branch"]
    assert branches[0].origin == "if" and len(branches[0].targets) == 2
    risky = prog.function("risky")
    assert any(b.handler is not None for b in risky.blocks)


def test_metadata_slots_persist(prog):
    prog.function("add").meta["ingot"] = {"help": "adds"}
    prog.function("add").params[0].meta["ingot"] = "first"
    prog.classes()[0].fields[0].meta["k"] = 1
    prog.enums()[0].variants[0].meta["k"] = 2
    prog.meta["k"] = 3
    prog.files[0].meta["k"] = 4
    assert prog.function("user.add").meta == {"ingot": {"help": "adds"}}
    assert prog.function("add").params[0].meta == {"ingot": "first"}
    assert prog.classes()[0].fields[0].meta == {"k": 1}
    assert prog.enums()[0].variants[0].meta == {"k": 2}
    assert prog.meta == {"k": 3} and prog.files[0].meta == {"k": 4}


class Recorder(mirx.Extension):
    name = "recorder"

    def __init__(self):
        self.offered = []
        self.events = []

    def instrument(self, fn, node, pcs):
        self.offered.append((fn.fqn, node.kind, pcs))
        return (node.kind, node.span.line if node.span else None)

    def at(self, fn, pc, data):
        self.events.append(("at", fn, data))

    def on_branch(self, fn, data, taken):
        self.events.append(("branch", fn, data, taken))

    def on_call(self, fn, args):
        self.events.append(("call", fn, args))

    def on_return(self, fn, value):
        self.events.append(("return", fn, value))

    def on_raise(self, fn, error):
        self.events.append(("raise", fn, type(error).__name__))


def test_extension_compile_half_sees_every_node_with_its_instructions(prog):
    rec = Recorder()
    table = prog.sidecar(prog.function("add"), rec)
    # checks and function events have no instructions of their own; every other node has
    assert all(len(pcs) > 0 for _, kind, pcs in rec.offered if kind not in ("check", "entry", "raise"))
    assert len(table) == len(rec.offered) and all(site.startswith("user.add@") for site in table)
    assert {kind for kind, _ in table.values()} >= {"assign", "return", "check", "entry", "raise"}


def test_extension_run_half_events(prog):
    rec = Recorder()
    assert prog.call("add", {"a": 1}, extensions=[rec]) == 3
    assert rec.events[0] == ("call", "user.add", (1, mirx_omitted()))
    assert rec.events[-1] == ("return", "user.add", 3)
    assert any(e[0] == "branch" and e[1] == "user.add" for e in rec.events)  # the default-argument test
    rec2 = Recorder()
    with pytest.raises(mirx.RunError) as e:
        prog.call("shapes", {"p": {"x": 1, "y": 2}, "m": {}, "c": None, "s": 1}, extensions=[rec2])
    assert e.value.error["type"] == "BamlError"
    assert ("raise", "user.shapes", "str") in rec2.events
    assert ("branch", "user.shapes", ("branch", 11), True) in rec2.events


def test_stdlib_native_methods_run_under_extensions():
    """A stdlib class's native methods (a csv Reader's `skipped_count()`) are found where the
    extensions' space compiles user methods itself (it used to report no such method)."""
    p = mirx.compile('function rows() -> int {\n  let r = baml.csv.reader("a,b\\n1,2\\n");\n'
                     '  let k = 0;\n  for (let rec in r) { k += 1; }\n  k + r.skipped_count()\n}\n')
    assert p.call("rows", {}, extensions=[Recorder()]) == 1


def test_extensions_need_no_recompile_and_cost_nothing_when_off(prog):
    rt = prog._p.runtime
    before = rt.plain.source("user.mk")
    assert "_E0" not in before
    rec = Recorder()
    assert prog.call("mk", {"n": 3}, extensions=[rec]) == [6, 1]
    assert any(e[1] == "user.mk.<lambda1>" or e[1].startswith("user.mk.<lambda") for e in rec.events)
    assert rt.plain.source("user.mk") == before  # the plain code is untouched
    assert "_E0" in rt.space((rec,)).source("user.mk")
    assert prog.call("mk", {"n": 3}) == [6, 1]


def mirx_omitted():
    from assay.bex.values import OMITTED  # the run-time marker
    return OMITTED


TYPED_SRC = """
class Box {
  v int?
  function get(self) -> int { self.v ?? 0 }
}
function narrowed(a: int?) -> int { if (a != null) { a + 1 } else { 0 } }
function twice(xs: int[]) -> int[] { xs.map((x) => { x * 2 }) }
function loop(n: int) -> string {
  let total = 0;
  for (let i in [1, 2, n]) { total += i; }
  `${total}`
}
function pick(x: int | string) -> int { match (x) { let i: int => i, let s: string => s.length() } }
function counter(start: int) -> int {
  let c = start;
  let inc = () -> int { c += 1; c };
  inc()
}
"""


def _local_types(fn) -> dict:
    return {(loc.name or f"_{loc.index}"): loc.type.name for loc in fn.locals}


def _binary_operand_types(fn, op: str) -> list[list[str]]:
    return [[o.type.name for o in s.rvalue.operands] for b in fn.blocks for s in b.statements
            if s.kind == "assign" and s.rvalue.kind == "binary" and s.rvalue.op == op]


def test_every_local_is_typed_return_place_and_lambda_params_included():
    p = mirx.compile(TYPED_SRC)
    fns = list(p.functions())
    fns += [lam for f in fns for lam in f.lambdas]
    for f in fns:
        assert all(loc.type is not None for loc in f.locals), f.fqn
    assert _local_types(p.function("narrowed"))["_return"] == "int"
    assert _local_types(p.function("Box.get"))["self"] == "Box"
    loop = _local_types(p.function("loop"))
    assert (loop["_return"], loop["total"], loop["i"], loop["n"]) == ("string", "int", "int", "int")
    pick = _local_types(p.function("pick"))
    assert (pick["x"], pick["i"], pick["s"]) == ("int | string", "int", "string")
    lam = p.function("twice").lambdas[0]
    assert _local_types(lam) == {"_return": "int", "x": "int", "_2": "int"}  # x inferred from map
    inc = p.function("counter").lambdas[0]
    assert _local_types(inc)["c"] == "int" and _local_types(inc)["_return"] == "int"  # a captured cell


def test_operand_types_follow_narrowing():
    p = mirx.compile(TYPED_SRC)
    f = p.function("narrowed")
    assert _local_types(f)["a"] == "int | null"  # the local keeps its declared type
    assert _binary_operand_types(f, "!=") == [["int | null", "null"]]
    assert _binary_operand_types(f, "+") == [["int", "int"]]  # `a` read under `a != null`
