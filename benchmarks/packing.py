"""Packing benchmark (CPU): one training step's forward + backward over N samples, for both
examples of examples/packing, at N = 16, 64, 256.

  eager-assay   the BAML function called per sample through Assay (prog.Fn(**sample, **host))
  plain-python  the same model written per sample in plain Python
  packed        Plan.run() (planned once per dataset, not timed here), per-sample host functions
  packed+forms  Plan.run() with registered batched forms (rectangles only: head, loss)

plan/sample is planning time per sample (one instrumented run per distinct sample), eager/sample
one eager call. groups / batched calls / fallbacks are Plan.stats of one run(); groups(no lift)
with lifting of differing scalars off. One torch thread. Run: python benchmarks/packing.py [--quick]
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "examples/packing/rectangles"), str(ROOT / "examples/packing/trees")]
import assay  # noqa: E402
from assay import pack  # noqa: E402
import rectangles_host as R  # noqa: E402
import trees_host as T  # noqa: E402


def timeit(step, repeat: int) -> float:
    step()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def backward(losses, module) -> None:
    module.zero_grad()
    torch.stack(losses).sum().backward()


def rectangles(n: int, repeat: int) -> dict:
    prog = assay.load(str(ROOT / "examples/packing/rectangles"))
    torch.manual_seed(0)
    model = R.Head()
    samples, images = R.dataset(n)
    host = R.host_functions(model, images)
    forms = R.batched_forms(model)
    t = time.perf_counter()
    plan = pack.plan(prog, "CenterRectangle", samples, host)
    planning = time.perf_counter() - t
    fast = pack.plan(prog, "CenterRectangle", samples, {k: pack.Host(f, forms.get(k)) for k, f in host.items()})
    nolift = pack.plan(prog, "CenterRectangle", samples, host, lift=False)
    nolift.run()
    row = {
        "eager-assay": timeit(lambda: backward([prog.CenterRectangle(**s, **host) for s in samples], model), repeat),
        "plain-python": timeit(lambda: backward([R.plain_python(s, model, images) for s in samples], model), repeat),
        "packed": timeit(lambda: backward(plan.run(), model), repeat),
        "packed+forms": timeit(lambda: backward(fast.run(), model), repeat),
    }
    one = timeit(lambda: prog.CenterRectangle(**samples[0], **host), repeat * 5)
    return {**row, "plan/sample": planning / n, "eager/sample": one, **_stats(plan), "groups(no lift)": nolift.stats["groups"]}


def trees(n: int, repeat: int) -> dict:
    prog = assay.load(str(ROOT / "examples/packing/trees"))
    torch.manual_seed(0)
    cells = T.Cells()
    samples = T.dataset(n)
    host = T.host_functions(cells)
    t = time.perf_counter()
    plan = pack.plan(prog, "Score", samples, host)
    planning = time.perf_counter() - t
    nolift = pack.plan(prog, "Score", samples, host, lift=False)
    nolift.run()
    row = {
        "eager-assay": timeit(lambda: backward([prog.Score(**s, **host) for s in samples], cells), repeat),
        "plain-python": timeit(lambda: backward([T.plain_python(s, cells) for s in samples], cells), repeat),
        "packed": timeit(lambda: backward(plan.run(), cells), repeat),
        "packed+forms": None,
    }
    one = statistics.median(timeit(lambda s=s: prog.Score(**s, **host), 1) for s in samples[:20])
    return {**row, "plan/sample": planning / n, "eager/sample": one, **_stats(plan), "groups(no lift)": nolift.stats["groups"]}


def _stats(plan) -> dict:
    plan.run()
    s = plan.stats
    return {"host calls": s["host_calls"], "groups": s["groups"], "batched calls": s["batched_calls"],
            "fallbacks": s["fallbacks"]}


def ms(x) -> str:
    return "—" if x is None else f"{x * 1e3:.2f}"


def main() -> None:
    quick = "--quick" in sys.argv
    torch.set_num_threads(1)  # small ops: intra-op threads only add contention (a shared 2-core machine)
    sizes = (16, 64) if quick else (16, 64, 256)
    repeat = 3 if quick else 7
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, CPU; times in ms (median of {repeat})\n")
    print("| program | N | eager-assay | plain-python | packed | packed+forms | speedup | plan/sample | eager/sample "
          "| host calls | groups | groups (no lift) | batched calls | fallbacks |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, bench in (("rectangles", rectangles), ("trees", trees)):
        for n in sizes:
            r = bench(n, repeat)
            base = min(r["eager-assay"], r["plain-python"])
            print(f"| {name} | {n} | {ms(r['eager-assay'])} | {ms(r['plain-python'])} | {ms(r['packed'])} | "
                  f"{ms(r['packed+forms'])} | {base / r['packed']:.1f}x | {ms(r['plan/sample'])} | "
                  f"{ms(r['eager/sample'])} | {r['host calls']} | {r['groups']} | {r['groups(no lift)']} | "
                  f"{r['batched calls']} | {r['fallbacks']} |", flush=True)


if __name__ == "__main__":
    main()
