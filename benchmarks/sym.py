"""What concolic tracking (assay.sym) costs, in one run: plain call vs sym.run, per program.

    python benchmarks/sym.py [--quick] [--reps N] [--json PATH] [--only NAME,...]

Per program (the foundation benchmarks of programs.baml at smaller n, and the branchy programs
of sym_programs.baml):
  plain  = view.call(fn, args)                          (view = mirx.view(assay.load(path)))
  R_off  = sym.run(view, fn, args, symbolic=[])   / plain   (target geomean <= 1.1)
  R_on   = sym.run(view, fn, args, symbolic="all") / plain  (target geomean <= 10; no solving)
plus the path records and concretisations of the symbolic run, a check that every run returns the
plain result, and a check that 1,000 symbolic runs add no code spaces. See benchmarks/README.md.
Not run in CI.
"""
from __future__ import annotations

import argparse
import gc
import json
import math
import statistics
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
FOUNDATION = HERE / "programs.baml"
BRANCHY = HERE / "sym_programs.baml"

TARGET_ON = 10.0    # geomean R_on
TARGET_OFF = 1.1    # geomean R_off
SPACE_RUNS = 1000   # symbolic runs for the code-space check


@dataclass
class Bench:
    name: str
    file: Path
    fn: str
    args: dict
    what: str
    # filled in by the run
    plain_value: object = None
    off_value: object = None
    on_value: object = None
    on_error: object = None
    records: int = 0
    concretized: dict = field(default_factory=dict)
    crash: str | None = None          # a Python exception from sym.run (not a BAML panic)
    mismatch: str | None = None
    k: dict = field(default_factory=dict)      # variant -> calls per timed rep
    times: dict = field(default_factory=lambda: {"plain": [], "off": [], "on": []})  # s per call


def foundation():
    f = FOUNDATION
    return [
        Bench("recursion", f, "Fib", {"n": 16}, "Fib(16)"),
        Bench("int_loop", f, "IntLoop", {"n": 20_000}, "IntLoop(20k)"),
        Bench("string_build", f, "StrBuild", {"n": 10_000}, "StrBuild(10k)"),
        Bench("array_sort", f, "ArraySort", {"n": 10_000}, "ArraySort(10k)"),
        Bench("field_updates", f, "FieldUpdates", {"n": 10_000}, "FieldUpdates(10k)"),
        Bench("map_count", f, "MapCount", {"n": 10_000}, "MapCount(10k)"),
        Bench("closures", f, "Closures", {"n": 10_000}, "Closures(10k)"),
        Bench("match_dispatch", f, "MatchDispatch", {"n": 5_000}, "MatchDispatch(5k)"),
        Bench("sieve", f, "Sieve", {"n": 10_000}, "Sieve(10k)"),
    ]


def branchy():
    f = BRANCHY
    return [
        Bench("triangle", f, "Triangle", {"a": 3, "b": 4, "c": 5}, "3 ints, nested comparisons"),
        Bench("bin_search", f, "BinSearch", {"xs": list(range(1, 64, 2)), "target": 45},
              "int[32] + int target"),
        Bench("validate_user", f, "ValidateUser", {"name": "alice", "email": "alice@example.com", "age": 30},
              "2 strings + int?"),
        Bench("door_machine", f, "DoorMachine",
              {"start": "Open", "events": ["Push", "Lock", "Kick", "Unlock", "Pull", "Push", "Kick", "Pull",
                                           "Push", "Lock", "Unlock", "Pull"]},
              "enum + enum[12], nested matches"),
        Bench("gcd", f, "Gcd", {"a": 832040, "b": 514229}, "2 ints, while loop"),
        Bench("collatz", f, "CollatzSteps", {"n": 27, "limit": 200}, "2 ints, bounded loop"),
        Bench("fizzbuzz", f, "FizzBuzzCount", {"n": 100, "fizz": 3, "buzz": 5}, "3 ints, while (i <= n)"),
        Bench("bubble_sort", f, "BubbleSort", {"xs": [9, 3, 7, 1, 8, 2, 6, 4, 5, 0]}, "int[10], swaps"),
        Bench("max_subarray", f, "MaxSubarray", {"xs": [-2, 1, -3, 4, -1, 2, 1, -5, 4, 3, -2, 6, -7, 5, 2, -1]},
              "int[16], Kadane"),
        Bench("shipping", f, "ShippingCost",
              {"o": {"weight": 12, "items": 3, "region": "Europe", "express": True, "coupon": "HALF10"}},
              "class with enum, bool, string? fields"),
        Bench("password", f, "PasswordScore", {"pw": "Tr0ub4dor&3x"}, "string, char loop"),
        Bench("grade", f, "Grade", {"score": 78, "bonus": 5}, "int + int?, thresholds"),
        Bench("apply_ops", f, "ApplyOps",
              {"acct": {"balance": 100, "limit": 50, "frozen": False},
               "ops": [20, -50, -200, 30, -300, -100, -500, 10]},
              "class (mutated) + int[8]"),
        Bench("digit_class", f, "DigitClass", {"n": 987654321}, "int, digit loop"),
    ]


# ─────────────────────────────────────────────────────────────────── running

def same(a, b) -> bool:
    return type(a) is type(b) and repr(a) == repr(b)


def per_call(f, k: int) -> float:
    gc.collect()
    t = time.perf_counter()
    for _ in range(k):
        f()
    return (time.perf_counter() - t) / k


def prepare(b: Bench, view, sym, target_s: float, log) -> None:
    """Same answer first (also the warm-up: generation of plain and instrumented code), then
    how many calls per timed batch make a batch last about target_s for each variant."""
    b.plain_value = view.call(b.fn, b.args)
    off = sym.run(view, b.fn, b.args, symbolic=[])
    b.off_value = off.result
    if off.error is not None or not same(off.result, b.plain_value):
        b.mismatch = f"symbolic=[]: result={off.result!r} error={off.error!r}, plain={b.plain_value!r}"
    try:
        tr = sym.run(view, b.fn, b.args, symbolic="all")
    except Exception:  # noqa: BLE001 — a crash of assay.sym itself: reported, program left out
        b.crash = traceback.format_exc()
        log(f"!!!!!!!! sym.run CRASHED on {b.name} ({b.file.name} {b.fn} {json.dumps(b.args)[:120]}):\n{b.crash}")
        return
    b.on_value, b.on_error = tr.result, tr.error
    b.records = len(tr.path)
    b.concretized = dict(tr.concretized)
    if tr.error is not None or not same(tr.result, b.plain_value):
        b.mismatch = (b.mismatch + "; " if b.mismatch else "") + \
            f"symbolic=all: result={tr.result!r} error={tr.error!r}, plain={b.plain_value!r}"
    if b.mismatch:
        log(f"!!!!!!!! MISMATCH in {b.name}: {b.mismatch}")
        return
    runners = variants(b, view, sym)
    for v, f in runners.items():
        t = min(per_call(f, 1) for _ in range(3))
        b.k[v] = max(1, round(target_s / max(t, 1e-7)))


def variants(b: Bench, view, sym):
    fn, args = b.fn, b.args
    return {"plain": lambda: view.call(fn, args),
            "off": lambda: sym.run(view, fn, args, symbolic=[]),
            "on": lambda: sym.run(view, fn, args, symbolic="all")}


def measure(b: Bench, view, sym, reps: int, batches: int) -> None:
    """`reps` reps; in each, every variant runs `batches` batches of k[v] calls, the variants
    interleaved batch by batch (order rotating per rep); a variant's time in the rep is its
    fastest batch (a burst of load on the machine hits a batch, rarely all of them)."""
    runners = variants(b, view, sym)
    order = ["plain", "off", "on"]
    for i in range(reps):
        rot = order[i % 3:] + order[:i % 3]  # plain off on, off on plain, on plain off, ...
        best = {v: math.inf for v in order}
        for _ in range(batches):
            for v in rot:
                best[v] = min(best[v], per_call(runners[v], b.k[v]))
        for v in order:
            b.times[v].append(best[v])


def spaces_check(path: Path, fn: str, args_of, runs: int, sym, mirx, assay, log) -> dict:
    """A fresh load of `path`; spaces() before, after the first and after `runs` symbolic runs
    (arguments varied per run by args_of(i))."""
    view = mirx.view(assay.load(str(path)))
    before = view.spaces()
    view.call(fn, args_of(0))
    after_plain = view.spaces()
    sym.run(view, fn, args_of(0), symbolic="all")
    first = view.spaces()
    t = time.perf_counter()
    for i in range(1, runs):
        sym.run(view, fn, args_of(i), symbolic="all")
    dt = time.perf_counter() - t
    last = view.spaces()
    out = {"program": f"{path.name}:{fn}", "runs": runs, "before": before, "after_plain_call": after_plain,
           "after_first": first, "after_all": last, "constant": first == last, "seconds": dt}
    log(f"code spaces ({path.name} {fn}): fresh {before}, after a plain call {after_plain}, after the 1st "
        f"sym.run {first}, after {runs} sym.run {last} -> {'CONSTANT' if first == last else '!!!!!!!! GREW'}")
    return out


# ─────────────────────────────────────────────────────────────────── stats

def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def ratio(b: Bench, v: str):
    per = [a / p for a, p in zip(b.times[v], b.times["plain"])]
    if not per:
        return None
    return {"ratio": statistics.median(per), "min": min(per), "max": max(per), "per_rep": per}


def fmt_r(r):
    return "—" if r is None else f"{r['ratio']:.2f} ({r['min']:.2f}–{r['max']:.2f})"


def report(benches, reps, spaces, out) -> dict:
    timed = [b for b in benches if b.times["plain"]]
    out("")
    out(f"Per-call times: plain = median of {reps} interleaved reps (each the fastest of its batches); "
        f"R_off / R_on = median of the per-rep ratios (rep i of the variant over rep i of plain), (min–max)")
    out("")
    out("| program | BAML call | plain µs | R_off | R_on | records | concretisations |")
    out("|---|---|---:|---|---|---:|---:|")
    rows = []
    for b in benches:
        row = {"program": b.name, "file": b.file.name, "fn": b.fn, "args": b.args, "what": b.what,
               "plain_value": repr(b.plain_value), "records": b.records, "concretized": b.concretized,
               "crash": b.crash, "mismatch": b.mismatch, "k": b.k, "times_s": b.times}
        rows.append(row)
        if b not in timed:
            continue
        row["plain_s"] = statistics.median(b.times["plain"])
        row["R_off"], row["R_on"] = ratio(b, "off"), ratio(b, "on")
        conc = sum(b.concretized.values())
        cdet = f" ({', '.join(f'{k} {v}' for k, v in sorted(b.concretized.items()))})" if conc else ""
        out(f"| {b.name} | `{b.what if b.file == FOUNDATION else b.fn}` | {row['plain_s'] * 1e6:,.0f} | "
            f"{fmt_r(row['R_off'])} | {fmt_r(row['R_on'])} | {b.records:,} | {conc}{cdet} |")
    g = {}
    for label, sel in (("all", timed), ("foundation", [b for b in timed if b.file == FOUNDATION]),
                       ("branchy", [b for b in timed if b.file == BRANCHY])):
        if not sel:
            continue
        on = geomean([ratio(b, "on")["ratio"] for b in sel])
        off = geomean([ratio(b, "off")["ratio"] for b in sel])
        g[label] = {"R_on": on, "R_off": off, "n": len(sel)}
    out("")
    for label, v in g.items():
        out(f"geomean {label} ({v['n']} programs): R_off = {v['R_off']:.3f}, R_on = {v['R_on']:.2f}")
    if "all" in g:
        out(f"targets: R_off <= {TARGET_OFF}: {'MET' if g['all']['R_off'] <= TARGET_OFF else 'NOT MET'}; "
            f"R_on <= {TARGET_ON}: {'MET' if g['all']['R_on'] <= TARGET_ON else 'NOT MET'}")
    left = [b for b in benches if b not in timed]
    if left:
        out(f"!!! {len(left)} program(s) left out of the table and the geomeans: "
            + ", ".join(f"{b.name} ({'sym.run crashed' if b.crash else 'MISMATCH' if b.mismatch else '?'})"
                        for b in left))
        for b in left:
            if b.crash:
                last = b.crash.strip().splitlines()
                out(f"    {b.name}: {b.fn}({json.dumps(b.args)[:80]}) -> {last[-1]}")
                for line in last[-5:-1]:
                    out(f"        {line}")
            elif b.mismatch:
                out(f"    !!!!!!!! MISMATCH {b.name}: {b.mismatch}")
    ok = [b for b in benches if not b.crash and not b.mismatch]
    out(f"results: symbolic=[] and symbolic=\"all\" equal the plain result on {len(ok)}/{len(benches)} programs"
        + ("" if len(ok) == len(benches) else " (see above)"))
    for s in spaces:
        out(f"code spaces, {s['program']}: {s['after_first']} after the first sym.run, {s['after_all']} after "
            f"{s['runs']} ({'constant' if s['constant'] else '!!!!!!!! GREW'}; fresh program {s['before']}, "
            f"after a plain call {s['after_plain_call']}; {s['runs']} runs took {s['seconds']:.2f}s)")
    return {"rows": rows, "geomean": g}


# ─────────────────────────────────────────────────────────────────── main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="3 reps, ~5 ms batches (a smoke run, < 40 s)")
    ap.add_argument("--reps", type=int, default=None, help="interleaved reps per program (default 11)")
    ap.add_argument("--batch-ms", type=float, default=None,
                    help="aim for a timed batch of this many ms per variant (default 50; quick 5)")
    ap.add_argument("--batches", type=int, default=3, help="batches per variant per rep; the fastest counts")
    ap.add_argument("--json", metavar="PATH", help="write every number here")
    ap.add_argument("--only", help="comma-separated program names or BAML function names")
    a = ap.parse_args(argv)
    reps = a.reps or (3 if a.quick else 11)
    target_s = (a.batch_ms or (5 if a.quick else 50)) / 1000

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    import assay
    from assay import mirx, sym
    log(f"assay {assay.__version__} | python {sys.version.split()[0]} | reps={reps} x {a.batches} batches of "
        f"~{target_s * 1e3:.0f} ms per variant")
    t_start = time.perf_counter()
    views = {FOUNDATION: mirx.view(assay.load(str(FOUNDATION))), BRANCHY: mirx.view(assay.load(str(BRANCHY)))}
    benches = foundation() + branchy()
    if a.only:
        keep = set(a.only.split(","))
        benches = [b for b in benches if b.name in keep or b.fn in keep]
    for b in benches:
        prepare(b, views[b.file], sym, target_s, log)
    # what the warm-ups left (compiled code, interned expressions) goes to the permanent
    # generation: the gc.collect() before each batch and automatic collections inside it then
    # do not rescan it, so one program's times do not depend on what ran before it
    gc.collect()
    gc.freeze()
    for b in benches:
        if b.crash or b.mismatch:
            continue
        measure(b, views[b.file], sym, reps, a.batches)
        log(f"  {b.name:<15} plain {statistics.median(b.times['plain']) * 1e6:9.0f} µs   "
            f"R_off {ratio(b, 'off')['ratio']:.2f}   R_on {ratio(b, 'on')['ratio']:6.2f}   "
            f"records {b.records:,}   k={b.k}")
    spaces = []
    try:
        xs = list(range(0, 200, 3))
        spaces.append(spaces_check(BRANCHY, "BinSearch", lambda i: {"xs": xs, "target": (i * 7) % 210},
                                   SPACE_RUNS, sym, mirx, assay, log))
    except Exception:  # noqa: BLE001
        log("!!!!!!!! code-space check crashed:\n" + traceback.format_exc())
    for path, v in views.items():
        log(f"code spaces of the timed {path.name}: {v.spaces()}")
    lines: list[str] = []
    res = report(benches, reps, spaces, lines.append)
    lines.append(f"total run time {time.perf_counter() - t_start:.0f}s")
    print("\n".join(lines))
    if a.json:
        data = {"meta": {"python": sys.version, "assay": assay.__version__, "reps": reps, "batches": a.batches,
                         "batch_s": target_s,
                         "time": time.time(), "targets": {"R_on": TARGET_ON, "R_off": TARGET_OFF}},
                "programs": res["rows"], "geomean": res["geomean"], "spaces": spaces,
                "timed_view_spaces": {p.name: v.spaces() for p, v in views.items()}}
        Path(a.json).write_text(json.dumps(data, indent=1, default=repr))
        log(f"wrote {a.json}")


if __name__ == "__main__":
    main()
