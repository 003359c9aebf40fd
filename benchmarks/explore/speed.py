"""Executions inside explore, warm and right after a solver query (not in CI).

    python benchmarks/explore/speed.py [--runs 300] [Fn ...]

Per dev-suite program, one explore Search (tracer and coverage attached, as explore runs):
its first input run `--runs` times back to back ("warm"), then alternately one solver query
(the flip of the trace's last decision) and one run ("after a query": z3's work has evicted
the interpreter's caches, as between the generations of a search). Medians in µs, and the
executions/s they mean. Explore's own figure (`stats.executions / stats.execute_seconds`)
lies between the two: its runs are a mix of both.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

DEV = Path(__file__).resolve().parent
sys.path.insert(0, str(DEV.parents[1] / "src"))


def measure(view, fn: str, runs: int) -> tuple[float, float]:
    from assay.explore import driver

    search = driver.Search(view, fn)
    item = driver.Item(search.initial(0), 0)
    trace = search.run(item, time.monotonic() + 60)
    warm, cold = [], []
    for _ in range(runs):
        t0 = time.perf_counter()
        search.runner(item.args, item.llm)
        warm.append(time.perf_counter() - t0)
    for _ in range(runs):
        if trace.path:
            trace.flip(len(trace.path) - 1, 2000)
        t0 = time.perf_counter()
        search.runner(item.args, item.llm)
        cold.append(time.perf_counter() - t0)
    return statistics.median(warm), statistics.median(cold)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("only", nargs="*")
    a = ap.parse_args(argv)
    import assay
    from assay import mirx

    view = mirx.view(assay.load(str(DEV)))
    labels = [k for k in json.loads((DEV / "labels.json").read_text()) if not k.startswith("_")]
    print("| program | warm µs | warm executions/s | after a query µs | after a query executions/s |")
    print("|---|---|---|---|---|")
    for fn in a.only or labels:
        w, c = measure(view, fn, a.runs)
        print(f"| {fn} | {w * 1e6:.0f} | {1 / w:,.0f} | {c * 1e6:.0f} | {1 / c:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
