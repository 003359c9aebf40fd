"""Call overhead of the bridge (issue 7): a trivial BAML function called from Python
(`prog.call`, `prog.Fn`) against a direct Python call, and a host callable round trip
(BAML calling a Python `(int) -> int`) against calling the callable itself, and a call whose
result is a class instance (converted into its typed pydantic model without validation).

    python benchmarks/calls.py [--n 200000] [--reps 7]

Prints the median time per call over `reps` interleaved repetitions and the overhead over the
Python baseline (targets: ≤ 5 µs for a trivial call, ≤ 3 µs for a host round trip)."""
from __future__ import annotations

import argparse
import statistics
import time

import assay

SRC = """
class Pt { x int  y int }
function Id(x: int) -> int { x }
function Mk(x: int) -> Pt { Pt { x: x, y: x } }
function Apply(f: (int) -> int, x: int) -> int { f(x) }
function Loop(f: (int) -> int, n: int) -> int {
  let s = 0;
  for (let i = 0; i < n; i += 1) { s = s + f(i); }
  s
}
function Count(n: int) -> int {
  let s = 0;
  for (let i = 0; i < n; i += 1) { s = s + i; }
  s
}
"""


def py_id(x):
    return x


def per_call(fn, n: int) -> float:
    t0 = time.perf_counter()
    fn(n)
    return (time.perf_counter() - t0) / n * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--reps", type=int, default=7)
    a = ap.parse_args()
    prog = assay.compile(SRC)
    Id, call = prog.Id, prog.call
    prog.Id(1), prog.Loop(py_id, 10), prog.Count(10), prog.Mk(1)  # compile first
    Mk = prog.Mk

    def direct(n):
        for i in range(n):
            py_id(i)

    def via_fn(n):
        for i in range(n):
            Id(i)

    def via_call(n):
        for i in range(n):
            call("Id", i)

    def via_model(n):
        for i in range(n):
            Mk(i)

    def host_loop(n):  # n host round trips inside one BAML call
        prog.Loop(py_id, n)

    def plain_loop(n):  # the same BAML loop with no host call in it... and the callable alone
        prog.Count(n)
        for i in range(n):
            py_id(i)

    cases = {"python py_id(i)": direct, "prog.Id(i)": via_fn, "prog.call('Id', i)": via_call,
             "prog.Mk(i) (result → model)": via_model,
             "BAML loop calling py_id": host_loop, "BAML loop without it + py_id alone": plain_loop}
    times: dict[str, list[float]] = {k: [] for k in cases}
    for _ in range(a.reps):
        for k, f in cases.items():
            times[k].append(per_call(f, a.n))
    med = {k: statistics.median(v) for k, v in times.items()}
    for k, v in med.items():
        print(f"{k:38s} {v:7.3f} µs/call")
    base = med["python py_id(i)"]
    print(f"\ntrivial call overhead: prog.Id {med['prog.Id(i)'] - base:.2f} µs, "
          f"prog.call {med[chr(112) + 'rog.call(' + chr(39) + 'Id' + chr(39) + ', i)'] - base:.2f} µs (target ≤ 5 µs)")
    host = med["BAML loop calling py_id"] - med["BAML loop without it + py_id alone"]
    print(f"host round trip overhead: {host:.2f} µs (target ≤ 3 µs)")


if __name__ == "__main__":
    main()
