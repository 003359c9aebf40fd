"""Exploration on workers, measured on the dev suite (benchmarks/explore).

    python benchmarks/explore/parallel.py                 # 1 vs 2 workers, budget 5 s, + Ray overhead
    python benchmarks/explore/parallel.py --budget 3 --reps 3 --workers 2 --no-ray --json out.json

1. One worker (the serial driver, in this process): every dev function with the budget; the time
   (from the start of the suite, compilation excluded) at which each outcome label first appears.
   The outcome coverage one worker reaches is the set of (function, label) it ends with.
2. N workers (assay.explore.parallel, processes): the same suite and budget; the time at which the
   labels found cover the one-worker set (start-up excluded, reported). Speed-up = T1 / TN.
3. Ray: per-task overhead (a no-op actor call's round trip, and an item's round trip minus the
   worker's own time on it) on a local cluster; per-item costs and worker memory for the
   projection in docs/explore-scale.md.
Not run in CI: the numbers depend on the machine and on what else it is doing.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import deque
from pathlib import Path

import assay
from assay import mirx
from assay.explore.driver import Item, Search, unsynthesizable
from assay.explore.parallel import RayPool, explore_many

DEV = Path(__file__).resolve().parent


def label(case) -> str:
    o = case.outcome if hasattr(case, "outcome") else case["outcome"]
    return f"ok:{o['ok']}" if "ok" in o else "error:" + o["error"]["type"]


def serial(view, fns, budget):
    """The serial driver's loop (driver.explore), timing each new outcome from the suite's start."""
    t0, first = time.monotonic(), {}
    items = 0
    for fqn in fns:
        if unsynthesizable(view.function(fqn)):
            continue
        s = Search(view, fqn)
        deadline = s.start + budget
        queue = deque([Item(s.initial(0), 0)])
        while queue and time.monotonic() <= deadline:
            known = set(s.cases)
            queue.extend(s.step(queue.popleft(), deadline))
            items += 1
            for k, c in s.cases.items():
                if k not in known:
                    first.setdefault((s.name, label(c)), time.monotonic() - t0)
    return first, time.monotonic() - t0, items


def parallel(view, fns, budget, workers):
    timeline = []
    t0 = time.monotonic()
    run = explore_many(view, fns, budget=budget, workers=workers, timeline=timeline)
    wall = time.monotonic() - t0 - run["startup_seconds"]
    first = {}
    for t, name, c in timeline:
        first.setdefault((name, label(c)), t)
    return first, wall, run


def covered_at(first: dict, target: set) -> float | None:
    """When the labels found first covered `target` (None: never)."""
    if not target <= set(first):
        return None
    return max(first[k] for k in target)


def ray_overhead(view, calls: int = 200) -> dict:
    import ray
    t0 = time.monotonic()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    init = time.monotonic() - t0
    files = [(f.path, view.source_text(f.path), f.namespace) for f in view.files]
    t0 = time.monotonic()
    pool = RayPool(2, None, files, {"max_len": 8, "query_ms": 2000, "fault": None})
    actors = time.monotonic() - t0
    a = pool.actors[0]
    ray.get(a.ready.remote())
    t0 = time.perf_counter()
    for _ in range(calls):
        ray.get(a.ready.remote())
    noop_ms = (time.perf_counter() - t0) / calls * 1000
    pool.close()
    run = explore_many(view, fns_of(view), budget=3, workers=2, ray=True)
    ray.shutdown()
    return {"ray_init_seconds": round(init, 3), "actors_start_seconds": round(actors, 3),
            "noop_roundtrip_ms": round(noop_ms, 3), "item_overhead_ms": item_overhead_ms(run)}


def item_overhead_ms(run) -> float:
    """Per item: the coordinator's round trip minus the worker's own time on it."""
    fns = [r for r in run["functions"] if r["verdict"] != "skipped"]
    trips = sum(r["stats"]["worker_seconds"] for r in fns)
    busy = sum(w["busy_seconds"] for r in fns for w in r["workers"])
    items = sum(w["items"] for r in fns for w in r["workers"])
    return round((trips - busy) / max(items, 1) * 1000, 3)


def process_overhead(view, calls: int = 200) -> dict:
    from assay.explore.parallel import ProcessPool
    files = [(f.path, view.source_text(f.path), f.namespace) for f in view.files]
    t0 = time.monotonic()
    pool = ProcessPool(1, files, {"max_len": 8, "query_ms": 2000, "fault": None})
    start = time.monotonic() - t0
    pool.close()
    return {"process_start_seconds": round(start, 3)}


def _spin(n: int = 3_000_000) -> float:
    t = time.perf_counter()
    x = 0
    for i in range(n):
        x += i
    return time.perf_counter() - t


def free_cores(workers: int) -> float:
    """How many of `workers` CPU-bound processes run at full speed right now (other jobs on a
    shared machine take cores): one spin's time × workers / the time of `workers` at once."""
    import multiprocessing as mp
    one = min(_spin() for _ in range(2))
    with mp.get_context("fork").Pool(workers) as pool:
        t = time.perf_counter()
        pool.map(_spin, [3_000_000] * workers)
        many = time.perf_counter() - t
    return round(min(workers, one * workers / many), 2)


def fns_of(view):
    return [f.fqn for f in view.functions(include_tests=False) if f.kind == "function"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--budget", type=float, default=5.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--no-ray", action="store_true")
    ap.add_argument("--json", dest="json_path")
    a = ap.parse_args()
    view = mirx.view(assay.load(str(DEV)))
    fns = fns_of(view)
    out = {"budget": a.budget, "workers": a.workers, "reps": []}
    for rep in range(a.reps):
        cores = free_cores(a.workers)
        f1, wall1, items1 = serial(view, fns, a.budget)
        target = set(f1)
        t1 = covered_at(f1, target)
        fn_, walln, run = parallel(view, fns, a.budget, a.workers)
        tn = covered_at(fn_, target)
        busy = sum(w["busy_seconds"] for w in run["workers"])
        items = sum(w["items"] for w in run["workers"])
        r = {"labels": len(target), "t1": round(t1, 3), "tn": None if tn is None else round(tn, 3),
             "speedup": None if tn is None else round(t1 / tn, 2), "wall1": round(wall1, 3),
             "walln": round(walln, 3), "startup": run["startup_seconds"], "items1": items1, "itemsn": items,
             "missing": sorted(map(list, target - set(fn_))), "extra": len(set(fn_) - target),
             "free_cores": cores, "per_item_ms": round(busy / max(items, 1) * 1000, 3), "item_overhead_ms": item_overhead_ms(run),
             "workers": run["workers"]}
        out["reps"].append(r)
        print(f"rep {rep} ({cores} of {a.workers} cores free): {len(target)} outcomes; 1 worker {t1:.2f} s (suite {wall1:.2f} s, {items1} items); "
              f"{a.workers} workers " + (f"{tn:.2f} s" if tn is not None else f"never (missing {r['missing']})")
              + f" (suite {walln:.2f} s, {items} items, start-up {run['startup_seconds']:.2f} s)"
              + (f" → {t1 / tn:.2f}×" if tn else "")
              + f"; {r['per_item_ms']} ms/item (+{r['item_overhead_ms']} ms transport), worker RSS {[w['max_rss_mb'] for w in run['workers']]} MB",
              flush=True)
    speedups = [r["speedup"] for r in out["reps"] if r["speedup"]]
    if speedups:
        out["median_speedup"] = statistics.median(speedups)
        print(f"median speed-up {out['median_speedup']:.2f}× over {len(speedups)} reps")
    out.update(process_overhead(view))
    if not a.no_ray:
        out["ray"] = ray_overhead(view)
        print(f"ray: init {out['ray']['ray_init_seconds']} s, 2 actors {out['ray']['actors_start_seconds']} s, "
              f"no-op round trip {out['ray']['noop_roundtrip_ms']} ms, per item +{out['ray']['item_overhead_ms']} ms; "
              f"process worker start "
              f"{out['process_start_seconds']} s")
    if a.json_path:
        Path(a.json_path).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
