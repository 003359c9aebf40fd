"""assay.pack: packed runs equal per-sample eager runs (values and gradients) on both examples
of examples/packing, the located error of a program that inspects a missing tensor, the
fallback and batched forms, pack.traceable under torch.compile(fullgraph=True), and Assay
without torch."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

import torch._dynamo.testing  # noqa: E402

import assay  # noqa: E402
from assay import mirx, pack  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "packing"
sys.path[:0] = [str(EXAMPLES / "rectangles"), str(EXAMPLES / "trees")]
import rectangles_host as R  # noqa: E402
import trees_host as T  # noqa: E402

VALUES = dict(rtol=1e-5, atol=1e-6)
GRADS = dict(rtol=1e-4, atol=1e-6)


def close(xs, ys, tol) -> bool:
    return len(xs) == len(ys) and all(torch.allclose(x, y, **tol) for x, y in zip(xs, ys))


def grads(module, losses) -> list:
    module.zero_grad()
    torch.stack(list(losses)).sum().backward()
    out = [p.grad.clone() for p in module.parameters()]
    module.zero_grad()
    return out


@pytest.fixture(scope="module")
def rect():
    return assay.load(str(EXAMPLES / "rectangles"))


@pytest.fixture(scope="module")
def trees():
    return assay.load(str(EXAMPLES / "trees"))


def test_rectangles_packed_equals_eager_values_and_gradients(rect):
    torch.manual_seed(0)
    model = R.Head()
    samples, images = R.dataset(48)
    host = R.host_functions(model, images)
    plan = pack.plan(rect, "CenterRectangle", samples, host)
    packed = plan.run()
    eager = [rect.CenterRectangle(**s, **host) for s in samples]
    plain = [R.plain_python(s, model, images) for s in samples]
    assert close(packed, eager, VALUES) and close(packed, plain, VALUES)
    assert close(grads(model, packed), grads(model, eager), GRADS)
    s = plan.stats
    assert s["samples"] == 48 and s["host_calls"] == sum(len(r.calls) for r in (plan.residuals[i] for i in plan.of_sample))
    assert s["batched_calls"] < s["host_calls"] and s["fallbacks"] == 0 and s["groups"] >= s["batched_calls"] - 48
    # reusable: new data behind the same host callables, new parameters
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(0.9)
    for i, img in enumerate(images):
        images[i] = img * 0.5
    again = plan.run()
    eager = [rect.CenterRectangle(**s, **host) for s in samples]
    assert close(again, eager, VALUES) and not close(again, packed, VALUES)
    assert close(grads(model, again), grads(model, eager), GRADS)
    assert torch.allclose(plan.run(stack=True), torch.stack(eager), **VALUES)


def test_rectangles_lifting_keeps_labels_in_one_group(rect):
    model = R.Head()
    samples, images = R.dataset(32, seed=3)
    host = R.host_functions(model, images)
    lifted = pack.plan(rect, "CenterRectangle", samples, host)
    split = pack.plan(rect, "CenterRectangle", samples, host, lift=False)
    a, b = lifted.run(), split.run()
    assert close(a, b, VALUES)
    labels = len({s["r"]["label"] for s in samples})
    assert split.stats["groups"] - lifted.stats["groups"] == labels - 1  # the loss: one group, not one per label


def test_trees_packed_equals_eager_and_identical_samples_share_a_residual(trees):
    torch.manual_seed(1)
    cells = T.Cells()
    samples = T.dataset(40, seed=2)
    samples += samples[:5]  # identical samples: one residual each, still one result each
    host = T.host_functions(cells)
    plan = pack.plan(trees, "Score", samples, host)
    packed = plan.run()
    eager = [trees.Score(**s, **host) for s in samples]
    assert close(packed, eager, VALUES) and close(packed, [T.plain_python(s, cells) for s in samples], VALUES)
    assert close(grads(cells, packed), grads(cells, eager), GRADS)
    assert plan.stats["residuals"] <= 40 and plan.stats["samples"] == 45
    assert plan.stats["batched_calls"] * 10 < plan.stats["host_calls"]


def test_branching_on_a_tensor_is_a_located_error():
    prog = mirx.compile(textwrap.dedent("""\
        type Tensor = unknown
        function Bad(n: int, f: (int) -> Tensor) -> Tensor {
          let t = f(n);
          if (t == t) {
            return t;
          }
          t
        }
        """), "bad.baml")
    with pytest.raises(pack.PackError) as e:
        pack.plan(prog, "Bad", [{"n": 1}], {"f": lambda n: torch.ones(2)})
    msg = str(e.value)
    assert msg.startswith("sample 0: bad.baml:4:7: cannot apply `==` to a value derived from a missing tensor")
    assert "host call `f(…)` at bad.baml:3:11" in msg


@pytest.mark.parametrize("body, what", [
    ("let xs = [f(n)]; xs.includes(f(n))", "pass to `array.includes`"),
    ("string.from(f(n))", "pass to `string.from`"),
    ("let t = f(n); `${t}`", "cannot"),
    ("let xs = [f(n), f(n)]; xs.sort(); true", "pass to"),
    ("baml.deep_copy([f(n)]); true", "pass to"),
    ("let m: map<string, int> = {}; let t = f(n); [1].map((i) => { t == t }).length() > 0", "apply `==`"),
])
def test_inspecting_a_missing_tensor_anywhere_is_an_error(body, what):
    prog = mirx.compile("type Tensor = unknown\nfunction G(n: int, f: (int) -> Tensor) -> unknown {\n  "
                        + body + "\n}\n", "g.baml")
    with pytest.raises(pack.PackError, match=r"g\.baml:3:\d+: .*" + what.replace("(", r"\(").replace("`", ".")):
        pack.plan(prog, "G", [{"n": 1}], {"f": lambda n: torch.ones(2)})


def test_a_callable_vmap_cannot_batch_falls_back_per_sample():
    prog = mirx.compile("type Tensor = unknown\nfunction H(n: int, f: (int) -> Tensor, g: (Tensor) -> Tensor)"
                        " -> Tensor {\n  g(f(n))\n}\n")
    host = {"f": lambda n: torch.full((3,), float(n)), "g": lambda t: t * t.sum().item()}
    samples = [{"n": i % 4} for i in range(12)]
    plan = pack.plan(prog, "H", samples, host)
    out = plan.run()
    assert close(out, [prog.call("H", {**s, **host}) for s in samples], VALUES)
    assert plan.stats["fallbacks"] == 1 and plan.stats["residuals"] == 4 and plan.stats["host_calls"] == 24
    assert close(plan.run(), out, VALUES)  # the replay
    assert torch._C._functorch.maybe_current_level() is None  # the failed vmap left no level entered


def test_batched_calls_draw_randomness_per_member_and_return_containers():
    prog = mirx.compile("type Tensor = unknown\nfunction K(i: int, g: (int) -> Tensor, f: (Tensor) -> Tensor[])"
                        " -> Tensor[] {\n  f(g(i))\n}\n")
    host = {"g": lambda i: torch.zeros(3), "f": lambda t: [t + torch.rand(()), t * 2]}
    plan = pack.plan(prog, "K", [{"i": i} for i in range(6)], host)
    with torch.no_grad():
        for out in (plan.run(), plan.run()):  # the agenda's run, then the replay
            noise = torch.stack([o[0][0] for o in out])
            assert len(set(noise.tolist())) == 6 and all(torch.equal(o[1], torch.zeros(3)) for o in out)
            assert plan.stats["batched_calls"] == 2 and plan.stats["fallbacks"] == 0


def test_registered_batched_forms_give_the_same_results(rect):
    model = R.Head()
    samples, images = R.dataset(24, seed=5)
    host = R.host_functions(model, images)
    forms = R.batched_forms(model)
    fast = {k: pack.Host(f, batched=forms.get(k)) for k, f in host.items()}
    a = pack.plan(rect, "CenterRectangle", samples, fast).run()
    assert close(a, [rect.CenterRectangle(**s, **host) for s in samples], VALUES)


def test_traceable_compiles_fullgraph_with_no_graph_breaks(rect):
    torch.manual_seed(0)
    model = R.Head()
    samples, images = R.dataset(3)
    fn = pack.traceable(rect, "CenterRectangle", R.host_functions(model, images), modules=[model])

    def step(r):
        return fn(r=r, canvas=R.CANVAS) * 2.0

    r = samples[0]["r"]
    eager = step(r)
    g_eager = grads(model, [eager])
    torch._dynamo.reset()
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    compiled = torch.compile(step, fullgraph=True, backend=counter)
    out = compiled(r)
    assert counter.frame_count == 1
    assert torch.allclose(out, eager, **VALUES)
    assert close(grads(model, [out]), g_eager, GRADS)
    explained = torch._dynamo.explain(step)(r)
    assert explained.graph_break_count == 0 and explained.graph_count == 1


def test_traceable_refuses_non_tensor_results_and_printing():
    prog = mirx.compile("function N(x: unknown) -> int { 3 }\n"
                        "function P(x: unknown) -> unknown { baml.io.println(\"hi\"); x }\n")
    with pytest.raises(pack.PackError, match="returns tensors"):
        pack.traceable(prog, "N", {})(x=torch.ones(1))
    with pytest.raises(pack.PackError, match="cannot run printing"):
        pack.traceable(prog, "P", {})(x=torch.ones(1))


def test_without_torch_assay_works_and_pack_says_what_to_install(tmp_path):
    fake = tmp_path / "torch"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'torch'\")\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-m", "assay", "run", str(ROOT / "examples" / "hello"), "Main",
                          "--args", '{"name": "Ada", "sides": [3, 4, 5]}', "--json"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0 and '"result"' in run.stdout, run.stderr
    check = subprocess.run([sys.executable, "-m", "assay", "check", str(EXAMPLES / "rectangles")],
                           capture_output=True, text=True, env=env, timeout=120)
    assert check.returncode == 0, check.stderr
    imp = subprocess.run([sys.executable, "-c", "import assay.pack"], capture_output=True, text=True, env=env,
                         timeout=120)
    assert imp.returncode == 1 and "pip install 'assay[torch]'" in imp.stderr
