"""The bridge (issue 7): calls on the caller's thread, thread-local state, opaque values,
deep recursion as StackOverflow on every path, threads, interruptions, host contracts."""
from __future__ import annotations

import contextlib
import contextvars
import threading
import time

import pytest

import assay
from assay.bex import stack

SRC = """
function Id(x: int) -> int { x }
function Apply(f: (int) -> int, x: int) -> int { f(x) }
function Pass(x: unknown) -> unknown { x }
function Rec(n: int) -> int { if (n == 0) { 0 } else { Rec(n - 1) + 1 } }
function Go(n: int, k: int) -> int {
  let g = (m: int) -> int { if (m == 0) { 0 } else { Go(m - k, k) + k } };
  g(n)
}
class Node {
  x int
  function rec(self, n: int) -> int { if (n == 0) { 0 } else { self.rec(n - 1) + 1 } }
}
function Meth(n: int) -> int { let c = Node { x: 1 }; c.rec(n) }
function Host(n: int, f: (int) -> int) -> int { if (n == 0) { 0 } else { f(n - 1) + 1 } }
function Sorted(n: int, f: (int) -> int) -> int {
  let xs = [2, 1];
  xs.sort_by((a: int, b: int) -> baml.ops.Ordering { if (n > 0) { let _ = Sorted(n - 1, f); } a.cmp(b) });
  n
}
function Spin() -> int { let i = 0; while (true) { i = i + 1; } i }
function Catches() -> string {
  let r = (Spin() catch (e) { _ => -1 });
  if (r == -1) { "caught" } else { "no" }
}
function Model(n: int) -> Node { Node { x: n } }
function TakeNode(f: (Node) -> int) -> int { f(Node { x: 7 }) }
"""


@pytest.fixture(scope="module")
def prog():
    return assay.compile(SRC)


def test_call_runs_on_the_callers_thread(prog):
    seen = []
    assert prog.Apply(lambda x: seen.append(threading.get_ident()) or x, 5) == 5
    assert seen == [threading.get_ident()]


def test_contextvars_hold_inside_host_callables(prog):
    var = contextvars.ContextVar("v", default="unset")
    token = var.set("caller")
    try:
        assert prog.call("Apply", lambda x: len(var.get()), 0) == len("caller")
    finally:
        var.reset(token)


def test_torch_no_grad_holds_inside_host_callables(prog):
    torch = pytest.importorskip("torch")
    with torch.no_grad():
        assert prog.Apply(lambda x: int(torch.is_grad_enabled()), 0) == 0


def test_opaque_object_passes_through_unknown(prog):
    obj = object()
    assert prog.Pass(obj) is obj

    class Tensorish:
        pass
    t = Tensorish()
    assert prog.Pass([t])[0] is t


def test_host_receives_models_and_result_is_checked(prog):
    got = []
    assert prog.TakeNode(lambda n: got.append(n) or n.x) == 7
    assert type(got[0]).__name__ == "Node" and got[0].x == 7
    with pytest.raises(assay.BamlPanic) as e:
        prog.Apply(lambda x: "not an int", 1)
    assert e.value.class_name == "baml.panics.HostContractViolation"
    assert set(e.value.fields) == {"message", "class_name", "language"}
    with pytest.raises(assay.BamlError) as e:
        prog.Apply(lambda x: 1 // 0, 1)
    assert e.value.class_name == "baml.errors.HostCallable"


def _deep(prog, name, n):
    if name == "Host":
        calls = []

        def f(m):
            calls.append(m)
            return prog.Host(m, f)
        return prog.Host(n, f), calls
    if name == "Go":
        return prog.Go(n, 1), None
    return prog.call(name, n), None


@pytest.mark.parametrize("name", ["Rec", "Go", "Meth", "Host", "Sorted"])
def test_10000_deep_recursion_on_the_main_thread(prog, name):
    assert threading.current_thread() is threading.main_thread()
    if name == "Sorted":
        assert prog.Sorted(10_000, lambda x: x) == 10_000
        return
    result, calls = _deep(prog, name, 10_000)
    assert result == 10_000
    if calls is not None:
        assert len(calls) == len(set(calls)) == 10_000  # none twice


@pytest.mark.parametrize("name", ["Rec", "Go", "Meth", "Host", "Sorted"])
def test_deeper_recursion_is_a_stack_overflow(prog, name):
    if name == "Sorted":
        with pytest.raises(assay.BamlPanic) as e:
            prog.Sorted(1_000_000, lambda x: x)
    else:
        calls = []

        def f(m):
            calls.append(m)
            return prog.Host(m, f)
        with pytest.raises(assay.BamlPanic) as e:
            if name == "Host":
                prog.Host(1_000_000, f)
            elif name == "Go":
                prog.Go(1_000_000, 1)
            else:
                prog.call(name, 1_000_000)
        assert len(calls) == len(set(calls))  # no host invocation ran twice
    assert e.value.class_name == "baml.panics.StackOverflow"
    assert prog.Id(3) == 3  # and the next call works


def _on_a_thread(work, stack_size: int) -> None:
    """Run `work()` on a new thread with a stack of `stack_size` bytes (0: the default)."""
    old = threading.stack_size(stack_size)
    try:
        t = threading.Thread(target=work)
        t.start()
    finally:
        threading.stack_size(old)
    t.join()


def test_deep_recursion_from_a_small_stack_thread(prog):
    out = []

    def work():
        try:
            prog.Go(10_000, 1)
            calls = []

            def f(m):
                calls.append(m)
                return prog.Host(m, f)
            out.append(prog.Host(10_000, f))
            out.append(len(calls) == len(set(calls)))
            prog.Go(1_000_000, 1)
        except assay.BamlPanic as e:
            out.append(e.class_name)
    _on_a_thread(work, 1 << 20 if stack.measurable() else 0)
    assert out == [10_000, True, "baml.panics.StackOverflow"]


def test_four_threads_call_one_program():
    p = assay.compile(SRC)  # fresh: lazy compilation races too
    errors, results = [], []

    def work(k):
        try:
            for i in range(200):
                assert p.Id(i) == i
                assert p.Go(300 + k, 1) == 300 + k
            results.append(p.Host(500, lambda m: p.Host(m, lambda x: 0) if m else 0))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)
    ts = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert errors == [] and len(results) == 4


def test_time_limit_stops_a_tight_loop_and_the_next_call_works(prog):
    start = time.monotonic()
    with pytest.raises(assay.TimeLimit):
        with assay.time_limit(0.2):
            prog.Spin()
    assert time.monotonic() - start < 5
    assert prog.Id(1) == 1
    with pytest.raises(assay.TimeLimit):  # never caught by a BAML catch
        with assay.time_limit(0.2):
            prog.Catches()
    assert threading.active_count() < 20  # no thread left running


def test_keyboard_interrupt_is_not_a_panic_nor_caught(prog):
    def boom(x):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        prog.Apply(boom, 1)
    tid = threading.get_ident()
    threading.Timer(0.2, lambda: stack.interrupt(tid, KeyboardInterrupt)).start()
    with pytest.raises(KeyboardInterrupt):
        prog.Catches()
    assert prog.Id(2) == 2


def _after_a_hop(prog, probe, setup=contextlib.nullcontext):
    """`probe()` in a host callable reached after the call hopped to a big-stack worker (a
    recursion through host callables, from a thread with a 1 MiB stack that enters `setup()`
    around the call); returns (probe's value, whether it ran on another thread)."""
    seen, me = [], []

    def f(m):
        if m == 0:
            seen.append((probe(), threading.get_ident() != me[0]))
        return prog.Host(m, f)

    def work():
        me.append(threading.get_ident())
        with setup():
            seen.append(prog.Host(2_000, f))
    _on_a_thread(work, 1 << 20)
    assert seen[-1] == 2_000
    return seen[0]


@pytest.mark.skipif(not stack.measurable(), reason="every call hops where the C stack is not measurable")
def test_torch_modes_survive_the_hop_to_a_big_stack_worker(prog):
    torch = pytest.importorskip("torch")

    def modes():
        return torch.is_grad_enabled(), torch.is_inference_mode_enabled()
    for ctx, want in ((torch.no_grad, (False, False)), (torch.inference_mode, (False, True)),
                      (torch.enable_grad, (True, False))):
        assert _after_a_hop(prog, modes, ctx) == (want, True)
    assert modes() == (True, False)  # nothing leaked into this thread; the workers restored theirs


@pytest.mark.skipif(not stack.measurable(), reason="every call hops where the C stack is not measurable")
def test_registered_carrier_and_contextvars_survive_the_hop(prog):
    local = threading.local()
    var = contextvars.ContextVar("v", default="unset")

    @contextlib.contextmanager
    def holding(value):
        local.value = value
        try:
            yield
        finally:
            del local.value

    @stack.carry
    def carried():
        value = getattr(local, "value", None)
        return None if value is None else (lambda: holding(value))

    @contextlib.contextmanager
    def setup():
        with holding("caller"):
            token = var.set("ctx")
            yield
            var.reset(token)
    try:
        got = _after_a_hop(prog, lambda: (getattr(local, "value", None), var.get()), setup)
        assert got == (("caller", "ctx"), True)
    finally:
        stack._CARRIERS.remove(carried)


def test_closure_from_python_takes_exactly_its_parameters():
    """A closure made in place (captures as trailing parameter defaults) called from Python:
    extra arguments are refused, never taken for the captures."""
    p = assay.compile("function Mk(k: int) -> (int) -> int throws never { (x: int) -> int { x + k } }")
    f = p.Mk(5)
    assert f(2) == 7
    with pytest.raises(TypeError):
        f(2, [100])
    assert f(1) == 6


# Python-only host values (tuples, bytes, bytearrays, enum members, missing and extra keyword
# arguments) given to tests/programs/ns_hunt6/hostvalues.baml on both engines: the same result,
# or both refuse the call (the engine's TypeError / InvalidArgument, Assay's ArgumentError /
# MissingArgument: docs/deviations.md lists where the engine accepts what Assay refuses).
_HOST_VALUES = [
    ("HvOpt", {"a": 4}), ("HvOpt", {"a": 4, "c": "z"}), ("HvOpt", {}), ("HvOpt", {"a": 1, "zz": 2}),
    ("HvOpt", {"a": True}), ("HvOpt", {"a": 1.0}), ("HvLen", {"xs": (1, 2, 3)}), ("HvLen", {"xs": {1, 2}}),
    ("HvTakeCfg", {"c": {"name": "n", "tags": ("a", "b"), "pts": ({"x": 1},)}}),
    ("HvTakeCfg", {"c": {"name": 1, "tags": [], "pts": []}}),
    ("HvGenBox", {"b": {"value": 3}}), ("HvGenBox", {"b": {"value": "s"}}), ("HvGenBox", {"b": {"value": None}}),
    ("HvGenBoxArr", {"b": {"value": (1, 2)}}), ("HvGenBoxArr", {"b": {"value": [1, "x"]}}),
    ("HvGenNested", {"b": {"value": {"value": 1}}}), ("HvGenNested", {"b": {"value": {"value": "ok"}}}),
    ("HvUnknownKind", {"x": (1, 2)}), ("HvUnknownKind", {"x": b"ab"}), ("HvUnknownKind", {"x": [[1], {"a": 1}]}),
    ("HvUnknownArr", {"xs": (1, "a", None, 2.5, b"z")}), ("HvUnknownMap", {"m": {"a": (1,), "b": {}}}),
    ("HvBytesLen", {"b": b"abc"}), ("HvBytesLen", {"b": bytearray(b"ab")}), ("HvBytesLen", {"b": [1, 2]}),
    ("HvBytesLen", {"b": "abc"}), ("HvRetBytes", {}), ("HvRetBox", {}), ("HvRetOpt", {"n": 0}), ("HvRetBig", {}),
    ("HvBig", {"b": 10 ** 30}), ("HvFloats", {"x": 1, "xs": (1, 2.5)}), ("HvFloats", {"x": True, "xs": []}),
    ("HvUnion", {"x": 1.5}), ("HvUnion", {"x": {"x": 1, "y": 2}}), ("HvColRet", {"s": "g"}),
]


def _refused(e: BaseException) -> bool:
    return isinstance(e, (TypeError, ValueError)) or "InvalidArgument" in str(e)


@pytest.mark.parametrize("fn,kw", _HOST_VALUES, ids=[f"{fn}{i}" for i, (fn, _) in enumerate(_HOST_VALUES)])
def test_python_host_values_agree_with_engine(engine, assay_programs, fn, kw):
    import copy

    import baml_bridge as bb
    try:
        want = ("ok", assay.to_plain(bb.call_function_sync(engine.rt, f"hunt6.{fn}", copy.deepcopy(kw)).result()))
    except BaseException as e:  # noqa: BLE001 — compared by kind
        want = ("refused",) if _refused(e) else ("error", f"{type(e).__name__}: {e}")
    try:
        got = ("ok", assay.to_plain(assay_programs.get().call(f"hunt6.{fn}", **copy.deepcopy(kw))))
    except BaseException as e:  # noqa: BLE001
        got = ("refused",) if _refused(e) else ("error", f"{type(e).__name__}: {e}")
    if want[0] == "ok" and got[0] == "ok":
        assert dl_plain(got[1]) == dl_plain(want[1])
    else:
        assert got == want


def dl_plain(v):
    import difflib_baml as dl
    return dl.normalize(v)
