"""assay.sym (concolic runs): exact path records, solved flips that really take the other side (checked on the
real engine), explicit panic sites that really panic, substitution, and the run lifecycle."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

import difflib_baml as dl
from assay import mirx, sym
from assay.extension import Abort

# (named to run before test_stdlib.py: that module starts a second engine runtime, after which
# the shared one no longer finds its functions — a known wart of the suite)
SRC = Path(__file__).parent / "programs" / "ns_sym" / "sym.baml"


def calls() -> list[tuple[str, dict, bool]]:
    """The `// call:` cases of ns_sym (and `// sym-call:`, not for the engine), in file order."""
    out, pending = [], []
    for line in SRC.read_text().splitlines():
        if m := re.match(r"// (sym-)?call: (.*)", line):
            pending.append((json.loads(m.group(2)), bool(m.group(1))))
        elif m := re.match(r"function (\w+)", line):
            out += [(m.group(1), a, not assay_only) for a, assay_only in pending]
            pending = []
    return out


CALLS = calls()
IDS = [f"{f}{i}" for i, (f, _, _) in enumerate(CALLS)]


@pytest.fixture(scope="module")
def view(assay_programs):
    if assay_programs is None:
        pytest.skip("engine-only mode")
    return mirx.view(assay_programs.get())


def steps(trace) -> list[tuple[str, str, bool]]:
    return [(r.site.split("@", 1)[1], r.kind.rsplit(".", 1)[-1], r.taken) for r in trace.path]


def test_a_loop_over_a_symbolic_bound_records_n_plus_one_conditions(view):
    for n in (0, 1, 3, 6):
        trace = sym.run(view, "sym.CountTo", {"n": n})
        assert trace.result == n and trace.error is None
        assert steps(trace) == [("7:10/branch", "branch", True)] * n + [("7:10/branch", "branch", False)]
        assert [repr(r.condition) for r in trace.path] == [f"(< {i} n)" for i in range(n + 1)]


def test_exact_records_with_checks_and_short_circuits(view):
    trace = sym.run(view, "sym.Triangle", {"a": 3, "b": 4, "c": 5})
    assert trace.result == "scalene"
    assert steps(trace) == [
        ("13:7/branch", "branch", False), ("13:7/branch#3", "branch", False), ("13:7/branch#2", "branch", False),
        ("14:7/check:IntegerOverflow:+", "IntegerOverflow", False), ("14:7/branch", "branch", False),
        ("14:21/check:IntegerOverflow:+", "IntegerOverflow", False), ("14:7/branch#3", "branch", False),
        ("14:35/check:IntegerOverflow:+", "IntegerOverflow", False), ("14:7/branch#2", "branch", False),
        ("15:7/branch", "branch", False),
        ("16:7/branch", "branch", False), ("16:7/branch#3", "branch", False), ("16:7/branch#2", "branch", False)]
    arith = sym.run(view, "sym.Arith", {"a": 7, "b": 2})
    assert [k for _, k, _ in steps(arith)][:3] == ["DivisionByZero", "IntegerOverflow", "DivisionByZero"]
    assert repr(arith.path[0].condition) == "(== b 0)"
    assert repr(arith.path[1].condition) == "(and (== a -4611686018427387904) (== b -1))"


def test_only_symbolic_parameters_are_tracked_and_plain_runs_record_nothing(view):
    assert steps(sym.run(view, "sym.Arith", {"a": 7, "b": 2}, symbolic=[])) == []
    only_a = sym.run(view, "sym.Arith", {"a": 7, "b": 2}, symbolic=["a"])
    assert all("b" not in {v.args[0] for v in r.condition.vars()} for r in only_a.path)
    assert only_a.path and all(r.kind != "baml.panics.DivisionByZero" for r in only_a.path)


@pytest.mark.parametrize("fn,args,on_engine", CALLS, ids=IDS)
def test_result_and_error_are_the_plain_runs(view, fn, args, on_engine):
    plain = view.run("sym." + fn, copy.deepcopy(args))
    trace = sym.run(view, "sym." + fn, copy.deepcopy(args))
    assert (trace.result, type(trace.error)) == (plain[0], type(plain[1]))


@pytest.mark.parametrize("fn,args,on_engine", CALLS, ids=IDS)
def test_every_prefix_negated_and_solved_takes_the_other_side(view, engine, fn, args, on_engine):
    """For each position k: solve path[:k] and not path[k]; the new input's run follows the
    prefix and then takes the other side — and on the real engine it ends as it does on Assay
    (a flipped panic site really panics with that class)."""
    trace = sym.run(view, "sym." + fn, copy.deepcopy(args))
    assert trace.path, "every ns_sym program has symbolic decisions"
    solved = 0
    for k, rec in enumerate(trace.path):
        new = trace.flip(k)
        if new is None:
            continue  # infeasible: e.g. `0 + xs[0]/a` cannot overflow
        solved += 1
        again = sym.run(view, "sym." + fn, copy.deepcopy(new))
        assert steps(again)[:k] == steps(trace)[:k], (k, new)
        assert len(again.path) > k and again.path[k].site == rec.site and again.path[k].taken != rec.taken, (k, new)
        if not on_engine:
            continue
        real = engine.call("sym." + fn, new)
        mine = dl.assay_call(view._api(), "sym." + fn, copy.deepcopy(new))
        assert dl.outcomes_equal(real, mine), dl.mismatch_message(f"{fn} flip {k}", new, real, mine)
        if rec.kind != "branch" and not rec.taken:  # a panic site, solved to fail
            assert real.kind == "panic" and real.class_name == rec.kind, (k, new, real.show())
    assert solved > 0


def test_panic_sites_of_every_class_are_recorded(view):
    kinds = set()
    for fn, args, _ in CALLS:
        kinds |= {r.kind for r in sym.run(view, "sym." + fn, copy.deepcopy(args)).path}
    assert kinds >= {"branch", "baml.panics.IntegerOverflow", "baml.panics.DivisionByZero",
                     "baml.panics.IndexOutOfBounds", "baml.panics.MapKeyNotFound",
                     "baml.panics.NegativeBitShift"}


def test_calls_closures_and_containers_carry_shadows(view):
    # through a user call (the call channel), a closure's captured cell, array pushes
    assert steps(sym.run(view, "sym.CallsUser", {"n": 4}))[-1] == ("97:7/branch", "branch", False)
    assert repr(sym.run(view, "sym.Closure", {"n": 2}).path[-1].condition) == "(> (+ 0 n) 5)"
    assert repr(sym.run(view, "sym.Nested", {"a": 2, "b": 3}).path[-1].condition) == "(== (+ a b) 7)"
    assert repr(sym.run(view, "sym.Area", {"b": {"w": 2, "h": 3}}).path[-1].condition) == "(> (* b.w b.h) 10)"
    assert repr(sym.run(view, "sym.Opt", {"x": None}).path[0].condition) == "x.null"
    out = sym.run(view, "sym.Twice", {"k": 5})
    assert out.result == 10 and repr(out.output) == "(* k 2)"


def test_smt2_and_the_unmodelled_are_concretised_with_a_pin(view):
    trace = sym.run(view, "sym.Neg", {"a": 5, "b": 1})
    assert trace.concretized == {">> count": 1}  # a shift is modelled for a pinned count
    assert [repr(a) for a in trace.assumptions] == ["(== b 1)"]
    assert repr(trace.output) == "(fdiv (neg a) 2)"
    text = trace.smt2()
    assert "(declare-fun a () Int)" in text and "assert" in text


class Substitute(sym.Tracer):
    """Replaces every call of sym.Twice by the symbolic answer `llm` (value 11)."""

    def instrument(self, fn, node, pcs):
        if node.kind == "call" and node.call.name == "user.sym.Twice":
            return sym.var("llm", "int")
        return super().instrument(fn, node, pcs)

    def snippet(self, fn, node, data):
        if node.kind == "call" and node.call.name == "user.sym.Twice":
            return mirx.Code(substitute="(11, {data})")
        return super().snippet(fn, node, data)


def test_a_substituted_call_supplies_its_result_and_shadow(view):
    fv = view.function("sym.CallsUser")
    tracer = Substitute([(p.name, p.type, True) for p in fv.params], sym.inputs.Inputs(8))
    result, error = view.run("sym.CallsUser", {"n": 4}, extensions=[tracer])
    assert (result, error) == (1, None)  # Twice(4) = 8 would give 0: the call did not run
    assert [(repr(sym.expr.realize(cond)), taken) for _, _, taken, cond in tracer.state.path] \
        == [("(> llm 10)", True)]


def test_one_code_space_per_extension_type_across_runs(view):
    sym.run(view, "sym.Find", {"xs": [1, 2], "t": 2})
    spaces = view.spaces()
    for i in range(200):
        sym.run(view, "sym.Find", {"xs": [i, 2], "t": 2})
    assert view.spaces() == spaces


class Boom(mirx.Extension):
    """Raises from inside a BAML `catch` region: extension errors are never swallowed."""

    def __init__(self, exc):
        self.exc = exc

    def config(self):
        return type(self.exc).__name__

    def snippet(self, fn, node, data):
        return mirx.Code(before="raise {ext}.exc") if node.kind == "check" else None


@pytest.mark.parametrize("exc", [ValueError("bug"), Abort("budget")])
def test_extension_errors_and_aborts_pass_through_catch(exc):
    prog = mirx.compile("function Safe(a: int, b: int) -> int { (a / b) catch (e) { baml.panics.DivisionByZero => -1 } }")
    with pytest.raises(type(exc)):
        prog.run("Safe", {"a": 1, "b": 0}, extensions=[Boom(exc)])
    assert prog.run("Safe", {"a": 1, "b": 0}) == (-1, None)


def test_runs_of_one_extension_type_on_two_threads_do_not_mix(view):
    """One code space serves both threads; each run's state reaches only its own code."""
    import threading
    out, errors = {}, []

    def work(n: int):
        try:
            for _ in range(30):
                trace = sym.run(view, "sym.CountTo", {"n": n})
                assert trace.result == n and len(trace.path) == n + 1, (n, len(trace.path))
            out[n] = steps(trace)
        except BaseException as e:  # noqa: BLE001 — reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in (3, 9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert [taken for _, _, taken in out[3]] == [True] * 3 + [False]
    assert [taken for _, _, taken in out[9]] == [True] * 9 + [False]
