"""Stable identity in MIR: lambdas named by source position (not by the order of lowering),
typed forms for cells, bound methods and omitted arguments, and the one operand visitor."""
from assay import mirx
from assay.mir import ir

SRC = """
class Box {
  v int
  function get(self) -> int { self.v }
}
function defaults(a: int, b: int = 10) -> int { a + b }
function counter(n: int) -> int {
  let c = 0;
  let inc = (k: int) -> int { c = c + k; c };
  inc(n);
  let outer = (x: int) -> int {
    let inner = (y: int) -> int { x + y + c };
    inner(1)
  };
  outer(n)
}
function method_value(b: Box) -> int {
  let f = b.get;
  b.v = 7;
  f()
}
function other() -> int { let g = (z: int) -> int { z * 2 }; g(4) }
"""

FNS = ["user.defaults", "user.counter", "user.method_value", "user.other", "user.Box.get"]


def _mir(prog) -> dict:
    rt = prog._p.runtime
    for f in FNS:
        rt.lower(f)
    return rt.mir


def _nodes(mir):
    for fn in mir.values():
        for b in fn.blocks:
            yield from b.statements
            if b.terminator is not None:
                yield b.terminator


def test_lambdas_are_named_by_source_position():
    mir = _mir(mirx.compile(SRC))
    lambdas = sorted(k for k in mir if "<lambda" in k)
    assert lambdas == ["user.counter.<lambda@11:15>", "user.counter.<lambda@11:15>.<lambda@12:17>",
                       "user.counter.<lambda@9:13>", "user.other.<lambda@22:35>"]


def test_lambda_names_do_not_depend_on_the_order_of_lowering():
    names = []
    for order in (FNS, FNS[::-1]):
        rt = mirx.compile(SRC)._p.runtime
        for f in order:
            rt.lower(f)
        names.append(sorted(rt.mir))
    assert names[0] == names[1]


def test_no_facts_in_strings():
    mir = _mir(mirx.compile(SRC))
    kinds = set()
    for n in _nodes(mir):
        if isinstance(n, ir.Assign):
            for p in [n.dest] + ([n.value.place] if isinstance(n.value, ir.Load) else []):
                assert not (isinstance(p, ir.FieldPlace) and p.name.startswith("$")), n
                kinds.add(type(p))
            assert not (isinstance(n.value, ir.IsType) and n.value.ty == ("omitted",)), n
            kinds.add(type(n.value))
    assert {ir.CellPlace, ir.FieldPlace, ir.BoundMethod, ir.IsOmitted} <= kinds


def test_views_keep_their_shape():
    prog = mirx.compile(SRC)

    def rvalues(name):
        return [s for b in prog.function(name).blocks for s in b.statements if s.kind == "assign"]

    bound = [s.rvalue for s in rvalues("method_value") if s.rvalue.kind == "load"]
    assert [(r.place.kind, r.place.field) for r in bound] == [("field", "get")]
    omitted = [s.rvalue for s in rvalues("defaults") if s.rvalue.kind == "is_type"]
    assert [(r.target, r.test, len(r.operands)) for r in omitted] == [("omitted", ("omitted",), 1)]
    inc = prog.function("user.counter.<lambda@9:13>")
    assert inc.kind == "lambda" and inc.name == "<lambda@9:13>"
    stmts = [s for b in inc.blocks for s in b.statements if s.kind == "assign"]
    assert any(s.place.kind == "cell" and s.place.base.local == 1 for s in stmts)  # c = c + k
    assert any(s.rvalue.kind == "load" and s.rvalue.place.kind == "cell" for s in stmts)
    assert [lam.fqn for lam in prog.function("counter").lambdas] == [
        "user.counter.<lambda@9:13>", "user.counter.<lambda@11:15>", "user.counter.<lambda@11:15>.<lambda@12:17>"]


def test_runs():
    prog = mirx.compile(SRC)
    assert prog.call("defaults", {"a": 1}) == 11
    assert prog.call("defaults", {"a": 1, "b": 2}) == 3
    assert prog.call("counter", {"n": 3}) == 3 + 1 + 3
    assert prog.call("method_value", {"b": {"v": 2}}) == 7
    assert prog.call("other", {}) == 8


def test_map_operands_is_the_operand_walk():
    mir = _mir(mirx.compile(SRC))
    for n in _nodes(mir):
        seen = []
        m = ir.map_operands(n, lambda o: seen.append(o) or o)
        expect = [] if isinstance(n, ir.Return) else ir.node_operands(n)
        assert seen == expect, n
        assert m == n  # rebuilt with the same operands: equal
        shifted = ir.map_operands(n, lambda o: ir.Copy(ir.Local(o.place.index + 100)) if isinstance(o, ir.Copy) else o)
        want = [ir.Copy(ir.Local(o.place.index + 100)) if isinstance(o, ir.Copy) else o for o in expect]
        assert ([] if isinstance(n, ir.Return) else ir.node_operands(shifted)) == want


def test_renumbering_keeps_every_field():
    fn = ir.MirFunction("f", [], [], [ir.LocalDecl(None)] * 3, [ir.Block(0, [
        ir.Assign(ir.Local(1), ir.BinaryOp("+", ir.Copy(ir.Local(2)), ir.Const(1), "int", swap_msg=True))],
        ir.Return())])
    from assay.mir.lower import _renumber
    _renumber(fn, {0: 0, 1: 2, 2: 1})
    s = fn.blocks[0].statements[0]
    assert s.dest == ir.Local(2) and s.value.left == ir.Copy(ir.Local(1))
    assert s.value.kind == "int" and s.value.swap_msg
