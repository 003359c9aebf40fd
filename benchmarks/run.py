"""Assay vs the real BAML engine (baml_bridge) vs CPython twins, in one run.

    python benchmarks/run.py [--quick] [--reps N] [--cold-reps N] [--json PATH] [--only NAME,...]
                             [--baseline REV]

`--baseline REV` also runs Assay as of git revision REV (its `src/`, taken with `git archive`
into a temporary directory, in a worker subprocess) interleaved with the others: the before/after
table of one run.

See benchmarks/README.md for the method. Not run in CI.
"""
from __future__ import annotations

import argparse
import gc
import io
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import twins  # noqa: E402

TARGET_REAL = 1.0      # geomean Assay/real
TARGET_CPY = 2.0       # geomean Assay/CPython
TARGET_COLD = 0.5      # cold Assay / cold real


@dataclass
class Bench:
    name: str
    fn: str                 # the BAML function in programs.baml
    args: dict
    twin: object            # the CPython twin
    what: str


BENCHES = [
    Bench("recursion", "Fib", {"n": 25}, twins.fib, "fib(25)"),
    Bench("int_loop", "IntLoop", {"n": 1_000_000}, twins.int_loop, "1M iterations, 5 int ops"),
    Bench("string_build", "StrBuild", {"n": 50_000}, twins.str_build, "50k x s += `${i},`"),
    Bench("array_sort", "ArraySort", {"n": 200_000}, twins.array_sort, "push 200k ints, sort"),
    Bench("field_updates", "FieldUpdates", {"n": 300_000}, twins.field_updates, "300k x 3 field writes"),
    Bench("map_count", "MapCount", {"n": 200_000}, twins.map_count, "count 200k keys in a map"),
    Bench("closures", "Closures", {"n": 100_000}, twins.closures, "100k closures, 200k calls, by-ref capture"),
    Bench("match_dispatch", "MatchDispatch", {"n": 100_000}, twins.match_dispatch, "100k x enum/literal/class match"),
    Bench("sieve", "Sieve", {"n": 300_000}, twins.sieve, "sieve of Eratosthenes to 300k"),
    # added with issue 7 (the speed work), so that the optimisations generalise
    Bench("tak", "Tak", {"x": 24, "y": 16, "z": 8}, twins.tak, "Takeuchi function, 3-arg recursion"),
    Bench("tree_sum", "TreeSum", {"depth": 14}, twins.tree_sum, "build + walk a 32k-node class tree"),
    Bench("collatz", "Collatz", {"n": 6000}, twins.collatz, "Collatz steps for 1..6000, branchy while"),
    Bench("mat_mul", "MatMul", {"n": 70}, twins.mat_mul, "70x70 int[][] product, 3 nested loops"),
    Bench("particles", "Particles", {"n": 2000}, twins.particles, "100 instances x 2000 steps, field += / guards"),
    Bench("interp", "Interp", {"n": 300_000}, twins.interp, "int-literal match in a loop (stack machine)"),
    Bench("union_match", "UnionMatch", {"n": 200_000}, twins.union_match, "class patterns over a 3-class union"),
    Bench("insertion_sort", "InsertionSort", {"n": 1200}, twins.insertion_sort, "hand-written insertion sort, 1200 ints"),
    Bench("sort_records", "SortRecords", {"n": 10_000}, twins.sort_records, "sort_by_key on 10k instances (callback)"),
    Bench("map_build", "MapBuild", {"n": 50_000}, twins.map_build, "template keys, get ?? 0, keys() walk"),
    Bench("string_ops", "StrOps", {"n": 30_000}, twins.str_ops, "split / includes / upper / slice"),
    Bench("closure_hof", "ClosureHof", {"n": 100_000}, twins.closure_hof, "closure factory, f(f(x)), map/filter/reduce"),
]

ENGINES = ("assay", "real", "cpython")
REPO = HERE.parent


# ─────────────────────────────────────────────────────────────────── baseline worker

def baseline_worker(program: str) -> None:
    """Serve JSON-line requests with the `assay` on PYTHONPATH (the baseline revision's src/)."""
    import assay
    out = sys.stdout
    sys.stdout = sys.stderr  # anything the engine prints must not corrupt the protocol

    def reply(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    prog = assay.compile(Path(program).read_text(encoding="utf-8"), "programs.baml")
    reply({"ready": True, "assay": assay.__file__})
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["cmd"] == "quit":
                reply({"bye": True})
                return
            gc.collect()
            t = time.perf_counter()
            v = prog.call(req["fn"], **req["args"])
            reply({"s": time.perf_counter() - t, "value": v if isinstance(v, (int, float, str, bool)) else repr(v)})
        except Exception as e:  # noqa: BLE001 — reported by the parent
            reply({"error": f"{type(e).__name__}: {e}"})


class Baseline:
    """Assay at git revision `rev`, in a worker subprocess; `run(b)` returns the value, and the
    worker's in-process time of the call (gc.collect() first, perf_counter) is in `last_s`."""

    def __init__(self, rev: str | None, tmp: str | None):
        if rev is None:  # the working tree's src/, in a worker like the baseline's (same conditions)
            src, self.rev = str(REPO / "src"), "working tree"
        else:
            data = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], check=True,
                                  capture_output=True).stdout
            with tarfile.open(fileobj=io.BytesIO(data)) as tf:
                tf.extractall(tmp, filter="data")
            src = os.path.join(tmp, "src")
            self.rev = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", rev], check=True,
                                      capture_output=True, text=True).stdout.strip()
        env = dict(os.environ)
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        self.p = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--baseline-worker",
                                   str(HERE / "programs.baml")], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  env=env, text=True, cwd=str(REPO))
        hello = self._read()
        if not os.path.realpath(hello["assay"]).startswith(os.path.realpath(src)):
            raise SystemExit(f"baseline worker imported {hello['assay']}, not from {src}")
        self.last_s = None

    def _read(self):
        line = self.p.stdout.readline()
        if not line:
            raise SystemExit(f"baseline worker died (exit {self.p.wait()})")
        return json.loads(line)

    def run(self, b: "Bench"):
        self.p.stdin.write(json.dumps({"cmd": "call", "fn": b.fn, "args": b.args}) + "\n")
        self.p.stdin.flush()
        r = self._read()
        if "error" in r:
            raise RuntimeError(r["error"])
        self.last_s = r["s"]
        return r["value"]

    def close(self):
        try:
            self.p.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
            self.p.stdin.flush()
            self.p.wait(timeout=10)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            self.p.kill()


@dataclass
class Result:
    bench: Bench
    values: dict = field(default_factory=dict)     # engine -> returned value
    errors: dict = field(default_factory=dict)     # engine -> error text
    times: dict = field(default_factory=lambda: {e: [] for e in ENGINES + ("before",)})
    mismatch: bool = False


# ─────────────────────────────────────────────────────────────────── engines

def load_engines(src: str):
    import baml_bridge as bb

    import assay
    t = time.perf_counter()
    rt = bb.BamlRuntime.initialize_runtime(".", {"main.baml": src})
    real_build = time.perf_counter() - t
    t = time.perf_counter()
    try:
        prog = assay.compile(src, "programs.baml")
        assay_err = None
    except Exception as e:  # noqa: BLE001 — reported, not fatal
        prog, assay_err = None, f"{type(e).__name__}: {e}"
    assay_build = time.perf_counter() - t

    def run_real(b: Bench):
        return bb.call_function_sync(rt, b.fn, dict(b.args)).result()

    def run_assay(b: Bench):
        if prog is None:
            raise RuntimeError(f"assay.compile failed: {assay_err}")
        return prog.call(b.fn, **b.args)

    def run_cpython(b: Bench):
        return b.twin(**b.args)

    return {"assay": run_assay, "real": run_real, "cpython": run_cpython}, \
        {"real_runtime_build_s": real_build, "assay_compile_s": assay_build, "assay_compile_error": assay_err}


def timed(run, b):
    if isinstance(getattr(run, "__self__", None), Baseline):
        run(b)
        return run.__self__.last_s  # timed in the worker, the same way
    gc.collect()
    t = time.perf_counter()
    run(b)
    return time.perf_counter() - t


def run_warm(benches, runners, reps: int, log) -> list[Result]:
    results = []
    engines = tuple(runners)
    for b in benches:
        r = Result(b)
        results.append(r)
        # correctness first; this call is also the warm-up (Assay lowers + generates on first call)
        for e in engines:
            try:
                r.values[e] = runners[e](b)
            except Exception as ex:  # noqa: BLE001 — reported in the table
                r.errors[e] = f"{type(ex).__name__}: {ex}"
        ok = [e for e in engines if e not in r.errors]
        if len({repr(r.values[e]) for e in ok}) > 1:
            r.mismatch = True
            log(f"!!!!!!!! MISMATCH in {b.name}: " + ", ".join(f"{e}={r.values[e]!r}" for e in ok))
        for e, msg in r.errors.items():
            log(f"!!!!!!!! {e} FAILED on {b.name} ({b.fn}): {msg}")
        if r.mismatch:
            continue
        # interleaved repetitions: assay, [before,] real, cpython, assay, [before,] real, cpython, ...
        for _ in range(reps):
            for e in ok:
                r.times[e].append(timed(runners[e], b))
        log(f"  {b.name:<15} " + "  ".join(
            f"{e}={statistics.median(r.times[e]):.4f}s" for e in ok if r.times[e]))
    return results


# ─────────────────────────────────────────────────────────────────── stats

def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def ratio_stats(num, den):
    """Median ratio (median(num)/median(den)) and the min–max of per-rep paired ratios."""
    if not num or not den:
        return None
    per = [a / b for a, b in zip(num, den)]
    return {"ratio": statistics.median(num) / statistics.median(den), "min": min(per), "max": max(per),
            "per_rep": per}


def summarize(results):
    rows = []
    for r in results:
        row = {"bench": r.bench.name, "fn": r.bench.fn, "what": r.bench.what, "args": r.bench.args,
               "errors": r.errors, "mismatch": r.mismatch,
               "values": {e: (v if isinstance(v, (int, float, str, bool)) else repr(v)) for e, v in r.values.items()},
               "times": r.times,
               "median_s": {e: statistics.median(t) for e, t in r.times.items() if t}}
        row["assay_over_real"] = ratio_stats(r.times["assay"], r.times["real"])
        row["assay_over_cpython"] = ratio_stats(r.times["assay"], r.times["cpython"])
        row["real_over_cpython"] = ratio_stats(r.times["real"], r.times["cpython"])
        row["before_over_real"] = ratio_stats(r.times["before"], r.times["real"])
        row["before_over_cpython"] = ratio_stats(r.times["before"], r.times["cpython"])
        row["assay_over_before"] = ratio_stats(r.times["assay"], r.times["before"])
        rows.append(row)
    g = {}
    for key in ("assay_over_real", "assay_over_cpython", "real_over_cpython", "before_over_real",
                "before_over_cpython", "assay_over_before"):
        vals = [row[key]["ratio"] for row in rows if row[key]]
        g[key] = geomean(vals)
    g["n_benchmarks_in_geomean"] = sum(1 for row in rows if row["assay_over_real"])
    return rows, g


def fmt_ratio(s):
    if s is None:
        return "—"
    return f"{s['ratio']:6.2f} ({s['min']:.2f}–{s['max']:.2f})"


def print_table(rows, g, reps, out):
    hdr = f"{'benchmark':<15} {'assay s':>9} {'real s':>9} {'cpython s':>9}   {'assay/real (min–max)':<22} {'assay/cpython (min–max)':<23} status"
    out("")
    out(f"Warm per-call timings: median of {reps} interleaved reps; ratios = ratio of medians, (min–max of per-rep ratios)")
    out(hdr)
    out("-" * len(hdr))
    for row in rows:
        m = row["median_s"]

        def c(e):
            return f"{m[e]:9.4f}" if e in m else f"{'FAIL':>9}"
        status = "ok"
        if row["mismatch"]:
            status = "MISMATCH " + json.dumps(row["values"])
        elif row["errors"]:
            status = "FAIL " + "; ".join(f"{e}: {msg[:120]}" for e, msg in row["errors"].items())
        out(f"{row['bench']:<15} {c('assay')} {c('real')} {c('cpython')}   {fmt_ratio(row['assay_over_real']):<22} "
            f"{fmt_ratio(row['assay_over_cpython']):<23} {status}")
    out("-" * len(hdr))
    n = g["n_benchmarks_in_geomean"]
    out(f"geomean over {n}/{len(rows)} benchmarks: assay/real = {g['assay_over_real']:.2f} "
        f"(target <= {TARGET_REAL}: {'MET' if g['assay_over_real'] <= TARGET_REAL else 'NOT MET'}), "
        f"assay/cpython = {g['assay_over_cpython']:.2f} "
        f"(target <= {TARGET_CPY}: {'MET' if g['assay_over_cpython'] <= TARGET_CPY else 'NOT MET'}); "
        f"real/cpython = {g['real_over_cpython']:.2f}")
    if n < len(rows):
        out(f"!!! {len(rows) - n} benchmark(s) failed or mismatched and are NOT in the geomeans — targets cannot be "
            f"claimed as met")


def goal(row) -> str:
    """Issue 7's per-program goal: assay/real <= 1.3 (noise bar), or, where the real engine beats
    the CPython twin, assay/cpython <= 1.1."""
    ar, ac, rc = row["assay_over_real"], row["assay_over_cpython"], row["real_over_cpython"]
    if not ar or not ac:
        return "—"
    if ar["ratio"] <= 1.3:
        return "met"
    if rc and rc["ratio"] < 1.0 and ac["ratio"] <= 1.1:
        return "met (twin)"
    return "NOT met"


def print_before_after(rows, g, reps, rev, out):
    out("")
    out(f"Before ({rev}) / after (working tree), median of {reps} interleaved reps; ratios = ratio of medians")
    hdr = (f"{'benchmark':<15} {'before s':>9} {'after s':>9} {'after/before':>12}   {'before/real':>11} "
           f"{'after/real':>10}   {'before/cpy':>10} {'after/cpy':>9}   goal")
    out(hdr)
    out("-" * len(hdr))

    def f(s):
        return f"{s['ratio']:.2f}" if s else "—"
    for row in rows:
        m = row["median_s"]
        if "before" not in m or "assay" not in m:
            out(f"{row['bench']:<15} (not timed: {row['errors'] or 'mismatch'})")
            continue
        out(f"{row['bench']:<15} {m['before']:9.4f} {m['assay']:9.4f} {f(row['assay_over_before']):>12}   "
            f"{f(row['before_over_real']):>11} {f(row['assay_over_real']):>10}   {f(row['before_over_cpython']):>10} "
            f"{f(row['assay_over_cpython']):>9}   {goal(row)}")
    out("-" * len(hdr))
    out(f"geomean: after/before = {g['assay_over_before']:.2f}; assay/real {g['before_over_real']:.2f} -> "
        f"{g['assay_over_real']:.2f}; assay/cpython {g['before_over_cpython']:.2f} -> {g['assay_over_cpython']:.2f}")


# ─────────────────────────────────────────────────────────────────── cold

ASSAY_COLD = r"""
import sys, time, json
t0 = time.perf_counter()
import assay
t1 = time.perf_counter()
src = open(sys.argv[1], encoding="utf-8").read()
prog = assay.compile(src)
t2 = time.perf_counter()
r = prog.call("Main", n=int(sys.argv[2]))
t3 = time.perf_counter()
print(json.dumps({"result": r, "import_s": t1 - t0, "compile_s": t2 - t1, "first_call_s": t3 - t2}))
"""

REAL_COLD = r"""
import sys, time, json
t0 = time.perf_counter()
import baml_bridge as bb
t1 = time.perf_counter()
src = open(sys.argv[1], encoding="utf-8").read()
rt = bb.BamlRuntime.initialize_runtime(".", {"main.baml": src})
t2 = time.perf_counter()
r = bb.call_function_sync(rt, "Main", {"n": int(sys.argv[2])}).result()
t3 = time.perf_counter()
print(json.dumps({"result": r, "import_s": t1 - t0, "compile_s": t2 - t1, "first_call_s": t3 - t2}))
"""

# Where Assay's cold path goes: the steps of assay.compiler.compile_sources/analyze, done one by one,
# plus the first call split into MIR lowering / bytecode emit / Python codegen / compile()+exec / the rest.
ASSAY_PHASES = r"""
import sys, time, json
T = {}
t = time.perf_counter()
import assay
from assay import compiler as C
from assay.bex import vm as V
T["import"] = time.perf_counter() - t

acc = {"lower": 0.0, "emit": 0.0, "pygen": 0.0, "py_compile_exec": 0.0}
def wrap(f, key):
    def w(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            acc[key] += time.perf_counter() - t
    return w
C.Program._lower = wrap(C.Program._lower, "lower")
V.emit_function = wrap(V.emit_function, "emit")
V.FunctionGen.generate = wrap(V.FunctionGen.generate, "pygen")
V.compile = wrap(compile, "py_compile_exec")
V.exec = wrap(exec, "py_compile_exec")

t = time.perf_counter(); sources = C.discover(sys.argv[1]); T["discover (read)"] = time.perf_counter() - t
t = time.perf_counter()
files, diags = [], []
for s in sources:
    f, d = C.parse_file(s); files.append(f); diags += d
T["parse"] = time.perf_counter() - t
t = time.perf_counter(); index, d = C.build_index(files); diags += d; T["index"] = time.perf_counter() - t
t = time.perf_counter()
from assay.sema.check import check
diags += check(index)
T["check"] = time.perf_counter() - t
errs = [x for x in diags if x.severity == "error"]
if errs:
    raise SystemExit(f"check errors: {errs[:3]}")
t = time.perf_counter(); program = C.Program(index, diags); T["Program() (runtime setup)"] = time.perf_counter() - t
t = time.perf_counter(); api = assay.api.BamlProgram(program); T["BamlProgram() (API models)"] = time.perf_counter() - t
t = time.perf_counter(); r = api.call("Main", n=int(sys.argv[2])); first = time.perf_counter() - t
for k, v in acc.items():
    T["first call: " + k] = v
T["first call: execution + rest"] = first - sum(acc.values())
T["first call (total)"] = first
n_fns = len(program.runtime.bytecode)
print(json.dumps({"result": r, "phases": T, "functions_generated": n_fns, "functions_in_program": len(index.functions)}))
"""


def cold(cold_reps: int, log):
    import gen_big
    src = gen_big.generate()
    lines = src.count("\n") + 1
    tmp = tempfile.mkdtemp(prefix="assay-bench-")
    path = os.path.join(tmp, "big.baml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(src)
    arg = str(gen_big.MAIN_ARG)
    out = {"lines": lines, "functions": src.count("\nfunction ") + src.startswith("function "),
           "methods": src.count("\n  function "),
           "classes": src.count("\nclass "), "enums": src.count("\nenum "), "match": src.count("match ("),
           "runs": {"assay": [], "real": []}, "errors": {}}
    log(f"cold: generated {lines} lines ({out['functions']} functions, {out['methods']} methods, {out['classes']} classes, "
        f"{out['enums']} enums, {out['match']} matches) -> {path}")
    scripts = {"assay": ASSAY_COLD, "real": REAL_COLD}
    # as installed packages run: bytecode caches on (pip writes .pyc files at install time; this
    # machine's environment may set PYTHONDONTWRITEBYTECODE), one untimed run per engine first
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for e in ("assay", "real"):
        subprocess.run([sys.executable, "-c", scripts[e], path, arg], capture_output=True, cwd=tmp, env=env)
    for _ in range(cold_reps):
        for e in ("assay", "real"):
            t = time.perf_counter()
            p = subprocess.run([sys.executable, "-c", scripts[e], path, arg], capture_output=True, text=True,
                               cwd=tmp, env=env)
            wall = time.perf_counter() - t
            if p.returncode != 0:
                out["errors"][e] = (p.stderr or p.stdout)[-3000:]
                log(f"!!!!!!!! cold {e} FAILED:\n{out['errors'][e]}")
                continue
            d = json.loads(p.stdout.strip().splitlines()[-1])
            d["wall_s"] = wall
            out["runs"][e].append(d)
    vals = {e: {json.dumps(r["result"]) for r in rs} for e, rs in out["runs"].items() if rs}
    allv = set().union(*vals.values()) if vals else set()
    out["results_agree"] = len(allv) == 1
    if len(allv) > 1:
        log(f"!!!!!!!! COLD MISMATCH: {vals}")
    p = subprocess.run([sys.executable, "-c", ASSAY_PHASES, path, arg], capture_output=True, text=True, cwd=tmp,
                       env=env)
    if p.returncode != 0:
        out["errors"]["phases"] = (p.stderr or p.stdout)[-3000:]
        log(f"!!!!!!!! assay phase breakdown FAILED:\n{out['errors']['phases']}")
    else:
        out["phases"] = json.loads(p.stdout.strip().splitlines()[-1])
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def print_cold(c, out):
    out("")
    out(f"Cold end to end: generated program of {c['lines']} lines ({c['functions']} functions, {c['methods']} methods, {c['classes']} "
        f"classes, {c['enums']} enums, {c['match']} matches); fresh `python -c` per run, source text -> first "
        f"call's result")
    med = {}
    for e in ("assay", "real"):
        rs = c["runs"][e]
        if not rs:
            out(f"  {e:<6} FAILED: {c['errors'].get(e, '?')[-500:]}")
            continue
        m = {k: statistics.median(r[k] for r in rs) for k in ("wall_s", "import_s", "compile_s", "first_call_s")}
        med[e] = m
        out(f"  {e:<6} subprocess wall {m['wall_s']:7.3f}s (min {min(r['wall_s'] for r in rs):.3f}, "
            f"max {max(r['wall_s'] for r in rs):.3f}, n={len(rs)})   in-process: import {m['import_s']:.3f}s, "
            f"compile {m['compile_s']:.3f}s, first call {m['first_call_s']:.3f}s, compile+first call "
            f"{m['compile_s'] + m['first_call_s']:.3f}s")
    if "assay" in med and "real" in med:
        rw = med["assay"]["wall_s"] / med["real"]["wall_s"]
        a, r = med["assay"], med["real"]
        ri = (a["compile_s"] + a["first_call_s"]) / (r["compile_s"] + r["first_call_s"])
        c["ratio_wall"] = rw
        c["ratio_in_process"] = ri
        per = [x["wall_s"] / y["wall_s"] for x, y in zip(c["runs"]["assay"], c["runs"]["real"])]
        c["ratio_wall_per_rep"] = per
        out(f"  cold assay/real: wall {rw:.2f} (per-rep {min(per):.2f}–{max(per):.2f}), "
            f"in-process compile+first call {ri:.2f} "
            f"(target wall <= {TARGET_COLD}: {'MET' if rw <= TARGET_COLD else 'NOT MET'})"
            f"; results agree: {c['results_agree']}")
    ph = c.get("phases")
    if ph:
        out(f"  where Assay's cold path goes (one fresh process; the first call generated "
            f"{ph['functions_generated']} code objects, lambdas included, for the program's "
            f"{ph['functions_in_program']} functions and methods):")
        tot = sum(v for k, v in ph["phases"].items() if k != "first call (total)")
        for k, v in ph["phases"].items():
            share = "" if k == "first call (total)" else f"{100 * v / tot:5.1f}%"
            out(f"    {k:<32} {v:8.3f}s {share}")
        out(f"    {'total':<32} {tot:8.3f}s")


# ─────────────────────────────────────────────────────────────────── main

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="3 reps, 1 cold rep (a smoke run)")
    ap.add_argument("--reps", type=int, default=None, help="interleaved reps per benchmark (default 7)")
    ap.add_argument("--cold-reps", type=int, default=None, help="fresh-process runs per engine (default 5)")
    ap.add_argument("--json", metavar="PATH", help="write every number here")
    ap.add_argument("--only", help="comma-separated benchmark names")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold end-to-end measurement")
    ap.add_argument("--baseline", metavar="REV", help="also time Assay at this git revision (before/after table)")
    ap.add_argument("--baseline-worker", metavar="PROGRAM", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.baseline_worker:
        return baseline_worker(a.baseline_worker)
    reps = a.reps or (3 if a.quick else 7)
    cold_reps = a.cold_reps or (1 if a.quick else 5)

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    import baml_bridge

    import assay
    log(f"assay {assay.__version__} | baml_bridge {getattr(baml_bridge, '__version__', '?')} | "
        f"python {sys.version.split()[0]} | reps={reps}")
    src = (HERE / "programs.baml").read_text(encoding="utf-8")
    benches = BENCHES
    if a.only:
        keep = set(a.only.split(","))
        benches = [b for b in BENCHES if b.name in keep or b.fn in keep]
    runners, setup = load_engines(src)
    log(f"setup: real runtime build {setup['real_runtime_build_s']:.3f}s, assay compile {setup['assay_compile_s']:.3f}s")
    if setup["assay_compile_error"]:
        log(f"!!!!!!!! assay.compile(programs.baml) FAILED: {setup['assay_compile_error']}")
    base = None
    if a.baseline:
        tmp = tempfile.mkdtemp(prefix="assay-baseline-")
        base = Baseline(a.baseline, tmp)
        after = Baseline(None, None)  # both Assays in workers, so neither has the in-process advantage
        runners = {"assay": after.run, "before": base.run, "real": runners["real"],
                   "cpython": runners["cpython"]}
        log(f"baseline: assay at {base.rev} and the working tree's, each in a worker process")
    try:
        results = run_warm(benches, runners, reps, log)
    finally:
        if base is not None:
            base.close()
            after.close()
            shutil.rmtree(tmp, ignore_errors=True)
    rows, g = summarize(results)
    lines: list[str] = []
    print_table(rows, g, reps, lines.append)
    if base is not None:
        print_before_after(rows, g, reps, base.rev, lines.append)
    c = None
    if not a.no_cold:
        try:
            c = cold(cold_reps, log)
            print_cold(c, lines.append)
        except Exception:  # noqa: BLE001
            lines.append("!!! cold measurement crashed:\n" + traceback.format_exc())
    print("\n".join(lines))
    if a.json:
        data = {"meta": {"python": sys.version, "reps": reps, "cold_reps": cold_reps, "time": time.time(),
                         "baseline": base.rev if base else None,
                         "targets": {"assay_over_real": TARGET_REAL, "assay_over_cpython": TARGET_CPY,
                                     "cold_assay_over_real": TARGET_COLD}},
                "setup": setup, "benchmarks": rows, "geomean": g, "cold": c}
        Path(a.json).write_text(json.dumps(data, indent=1, default=repr))
        log(f"wrote {a.json}")


if __name__ == "__main__":
    main()
