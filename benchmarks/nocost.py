"""No cost without extensions: today's plain run against the foundation (the last commit before
the mirx work), and the overhead of running with the Coverage extension attached.

    python benchmarks/nocost.py [--reps N] [--quick] [--json PATH] [--only NAME,...] [--foundation REV]

The foundation's `src/` is taken from git (`git archive`) into a temporary directory; the working
tree is never touched. Three long-lived worker subprocesses, each importing its own `assay`
(PYTHONPATH = the respective src/), talk JSON lines over stdin/stdout:

    F  the foundation's Assay          assay.compile(text).call(Fn, **args)
    N  today's Assay, plain run         assay.compile(text).call(Fn, **args)
    C  today's Assay, with Coverage     mirx.load(path).call(Fn, args, extensions=[cov])

Each worker compiles programs.baml once and calls each benchmark once before timing (the warm-up:
lowering and Python generation happen on the first call, in every code space). Then, per
benchmark, `--reps` interleaved repetitions F, N, C (the order rotates each rep: F N C, N C F,
C F N, … so no variant always runs first); a worker times one call in-process with perf_counter
after gc.collect(). All three must return the same value. One Coverage collector per C worker
is attached to every call (its counters just accumulate), so C times the instrumented code,
not the generation of a new code space.

Also compares the generated Python source of every function the benchmarks ran (callees and
lambdas included): the foundation's `runtime.source(fqn)` against today's plain space, modulo
the hash-derived suffixes of mangled global names (F_/N_/M_/C_ names; K_ names are numbered
in generation order, which is the same in both).

Not run in CI. See benchmarks/README.md ("No cost without extensions").
"""
from __future__ import annotations

import argparse
import difflib
import gc
import io
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PROGRAM = HERE / "programs.baml"
FOUNDATION = "0560009"
VARIANTS = ("F", "N", "C")
LABEL = {"F": "foundation, plain", "N": "today, plain", "C": "today, coverage on"}

# the same functions and arguments as benchmarks/run.py (kept literal so that this file does not
# import run.py's dependencies)
BENCHES = [
    ("recursion", "Fib", {"n": 25}),
    ("int_loop", "IntLoop", {"n": 1_000_000}),
    ("string_build", "StrBuild", {"n": 50_000}),
    ("array_sort", "ArraySort", {"n": 200_000}),
    ("field_updates", "FieldUpdates", {"n": 300_000}),
    ("map_count", "MapCount", {"n": 200_000}),
    ("closures", "Closures", {"n": 100_000}),
    ("match_dispatch", "MatchDispatch", {"n": 100_000}),
    ("sieve", "Sieve", {"n": 300_000}),
]

_MANGLED = re.compile(r"\b([FNMC]_\w+?)_[0-9a-f]{1,4}(_impl)?\b")


def normalise(src: str) -> str:
    """Mangled global names with their hash suffix replaced by `_#`."""
    return _MANGLED.sub(lambda m: m.group(1) + "_#" + (m.group(2) or ""), src)


# ─────────────────────────────────────────────────────────────────── worker

def worker(variant: str, program: str) -> None:
    import assay
    out = sys.stdout
    sys.stdout = sys.stderr  # anything the engine prints must not corrupt the protocol

    def reply(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    text = Path(program).read_text(encoding="utf-8")
    t = time.perf_counter()
    if variant == "C":
        from assay import mirx
        from assay.coverage.collect import Coverage
        pv = mirx.load(program)
        cov = Coverage()
        runtime = pv._p.runtime

        def run(fn, args):
            return pv.call(fn, args, extensions=[cov])
    else:
        prog = assay.compile(text, "programs.baml")
        runtime = prog._p.runtime

        def run(fn, args):
            return prog.call(fn, **args)
    reply({"ready": True, "assay": assay.__file__, "compile_s": time.perf_counter() - t})

    for line in sys.stdin:
        req = json.loads(line)
        cmd = req["cmd"]
        try:
            if cmd == "call":
                reply({"value": repr(run(req["fn"], req["args"]))})
            elif cmd == "time":
                gc.collect()
                t = time.perf_counter()
                v = run(req["fn"], req["args"])
                dt = time.perf_counter() - t
                reply({"s": dt, "value": repr(v)})
            elif cmd == "sources":
                reply({"sources": sources(variant, runtime)})
            elif cmd == "quit":
                reply({"bye": True})
                return
            else:
                reply({"error": f"unknown command {cmd!r}"})
        except Exception as e:  # noqa: BLE001 — reported by the parent
            reply({"error": f"{type(e).__name__}: {e}"})


def sources(variant: str, runtime) -> dict:
    """fqn → generated Python source, for every function generated so far."""
    if variant == "F":  # the foundation's runtime had one code space, itself
        fns = {fqn: runtime.env.get(name) for fqn, name in runtime._fn_names.items()}
    else:
        space = next(iter(runtime._spaces.values())) if variant == "C" else runtime.plain
        fns = space.functions()
    out = {fqn: f.baml_source for fqn, f in fns.items() if getattr(f, "baml_source", None) is not None}
    if variant == "C":
        # which functions the coverage runs generated in the PLAIN space (should be none)
        out["$plain_generated"] = sorted(
            fqn for fqn, f in runtime.plain.functions().items() if getattr(f, "baml_source", None) is not None)
    return out


# ─────────────────────────────────────────────────────────────────── parent

class Worker:
    def __init__(self, variant: str, src_dir: str, hash_seed: str):
        env = dict(os.environ)
        env["PYTHONPATH"] = src_dir + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        if hash_seed == "random":
            env.pop("PYTHONHASHSEED", None)
        else:
            env["PYTHONHASHSEED"] = hash_seed
        self.variant = variant
        self.p = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker", variant,
                                   "--program", str(PROGRAM)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True, cwd=str(REPO))
        self.hello = self._read()
        if not os.path.realpath(self.hello["assay"]).startswith(os.path.realpath(src_dir)):
            raise SystemExit(f"worker {variant} imported {self.hello['assay']}, not from {src_dir}")

    def _read(self):
        line = self.p.stdout.readline()
        if not line:
            raise SystemExit(f"worker {self.variant} died (exit {self.p.wait()})")
        return json.loads(line)

    def ask(self, **req):
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        return self._read()

    def close(self):
        try:
            self.ask(cmd="quit")
        except (OSError, ValueError, SystemExit):
            self.p.kill()
        self.p.wait(timeout=10)


def foundation_src(rev: str, into: str) -> str:
    data = subprocess.run(["git", "-C", str(REPO), "archive", rev, "src"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        tf.extractall(into, filter="data")
    return os.path.join(into, "src")


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def ratio(num, den):
    per = [a / b for a, b in zip(num, den)]
    return {"median": statistics.median(per), "min": min(per), "max": max(per), "per_rep": per}


def load_avg() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} CPUs"
    except OSError:
        return "?"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=None, help="interleaved reps per benchmark (default 9)")
    ap.add_argument("--quick", action="store_true", help="3 reps: a smoke run")
    ap.add_argument("--json", metavar="PATH", help="write every number here")
    ap.add_argument("--only", help="comma-separated benchmark names or BAML functions")
    ap.add_argument("--foundation", default=FOUNDATION, help=f"the git revision to compare with (default {FOUNDATION})")
    ap.add_argument("--hash-seed", default="0", help="PYTHONHASHSEED for all workers (default 0; 'random': each its own, so mangled names differ)")
    ap.add_argument("--worker", choices=VARIANTS, help=argparse.SUPPRESS)
    ap.add_argument("--program", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        return worker(a.worker, a.program)
    reps = a.reps or (3 if a.quick else 9)
    benches = BENCHES
    if a.only:
        keep = set(a.only.split(","))
        benches = [b for b in BENCHES if b[0] in keep or b[1] in keep]

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    head = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=False).stdout.strip()
    found = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", a.foundation], capture_output=True,
                           text=True, check=True).stdout.strip()
    load_before = load_avg()
    log(f"foundation {found} vs working tree (HEAD {head}) | python {sys.version.split()[0]} | reps={reps} | "
        f"load {load_before}")
    with tempfile.TemporaryDirectory(prefix="assay-nocost-") as tmp:
        fsrc = foundation_src(a.foundation, tmp)
        today = str(REPO / "src")
        workers = {"F": Worker("F", fsrc, a.hash_seed), "N": Worker("N", today, a.hash_seed),
                   "C": Worker("C", today, a.hash_seed)}
        try:
            rows = measure(benches, workers, reps, log)
            src_report = compare_sources(workers)
        finally:
            for w in workers.values():
                w.close()
    load_after = load_avg()
    lines: list[str] = []
    g = print_table(rows, reps, lines.append)
    lines.append("")
    lines.extend(src_report["lines"])
    lines.append("")
    lines.append(f"load average before {load_before}; after {load_after}")
    print("\n".join(lines))
    if a.json:
        data = {"meta": {"python": sys.version, "reps": reps, "foundation": found, "head": head,
                         "hash_seed": a.hash_seed, "load_before": load_before, "load_after": load_after,
                         "time": time.time()},
                "benchmarks": rows, "geomean": g,
                "sources": {k: v for k, v in src_report.items() if k != "lines"}}
        Path(a.json).write_text(json.dumps(data, indent=1, default=repr))
        log(f"wrote {a.json}")
    return 0 if not any(r["error"] for r in rows) and src_report["identical"] else 1


def measure(benches, workers, reps, log):
    rows = []
    for name, fn, args in benches:
        row = {"bench": name, "fn": fn, "args": args, "values": {}, "error": None,
               "times": {v: [] for v in VARIANTS}}
        rows.append(row)
        for v in VARIANTS:  # the warm-up call, and the same answer first
            r = workers[v].ask(cmd="call", fn=fn, args=args)
            row["values"][v] = r.get("value", "ERROR " + r.get("error", "?"))
        if len(set(row["values"].values())) != 1:
            row["error"] = "MISMATCH " + json.dumps(row["values"])
            log(f"!!!!!!!! {name}: {row['error']}")
            continue
        for i in range(reps):
            order = VARIANTS[i % 3:] + VARIANTS[:i % 3]
            for v in order:
                r = workers[v].ask(cmd="time", fn=fn, args=args)
                if "error" in r or r["value"] != row["values"][v]:
                    row["error"] = f"{v} rep {i}: {r.get('error') or 'value ' + r['value']}"
                    break
                row["times"][v].append(r["s"])
            if row["error"]:
                log(f"!!!!!!!! {name}: {row['error']}")
                break
        if row["error"]:
            continue
        row["median_s"] = {v: statistics.median(row["times"][v]) for v in VARIANTS}
        row["N_over_F"] = ratio(row["times"]["N"], row["times"]["F"])
        row["C_over_N"] = ratio(row["times"]["C"], row["times"]["N"])
        log(f"  {name:<15} F={row['median_s']['F']:.4f}s N={row['median_s']['N']:.4f}s "
            f"C={row['median_s']['C']:.4f}s  N/F={row['N_over_F']['median']:.3f} C/N={row['C_over_N']['median']:.2f}")
    return rows


def fmt(r):
    return f"{r['median']:5.3f} ({r['min']:.3f}–{r['max']:.3f})"


def print_table(rows, reps, out):
    out(f"Warm per-call time, median of {reps} interleaved reps (F, N, C rotating); ratios = median of "
        f"per-rep ratios (min–max)")
    hdr = (f"{'benchmark':<15} {'F s':>8} {'N s':>8} {'C s':>8}   {'N/F (min–max)':<22} "
           f"{'C/N overhead (min–max)':<24} N/F spread has 1.0")
    out(hdr)
    out("-" * len(hdr))
    ok = [r for r in rows if not r["error"]]
    for r in rows:
        if r["error"]:
            out(f"{r['bench']:<15} {r['error']}")
            continue
        m = r["median_s"]
        nf = r["N_over_F"]
        straddle = nf["min"] <= 1.0 <= nf["max"]
        r["N_over_F"]["straddles_1"] = straddle
        out(f"{r['bench']:<15} {m['F']:8.4f} {m['N']:8.4f} {m['C']:8.4f}   {fmt(nf):<22} {fmt(r['C_over_N']):<24} "
            f"{'yes' if straddle else 'NO'}")
    out("-" * len(hdr))
    g = {"N_over_F": geomean([r["N_over_F"]["median"] for r in ok]),
         "C_over_N": geomean([r["C_over_N"]["median"] for r in ok]),
         "n": len(ok)}
    n_straddle = sum(1 for r in ok if r["N_over_F"]["straddles_1"])
    g["n_straddle"] = n_straddle
    within = 0.95 <= g["N_over_F"] <= 1.05
    g["N_over_F_within_noise"] = within and n_straddle == len(ok)
    out(f"geomean over {len(ok)}/{len(rows)} benchmarks: N/F = {g['N_over_F']:.3f}, "
        f"C/N (coverage overhead) = {g['C_over_N']:.2f}x")
    out(f"N/F geomean in [0.95, 1.05]: {'yes' if within else 'NO'}; per-rep N/F spread includes 1.0 for "
        f"{n_straddle}/{len(ok)} benchmarks -> plain run vs foundation "
        f"{'WITHIN NOISE' if g['N_over_F_within_noise'] else 'NOT clearly within noise (see spreads)'}")
    if len(ok) < len(rows):
        out(f"!!! {len(rows) - len(ok)} benchmark(s) failed or mismatched and are not in the geomeans")
    return g


def compare_sources(workers) -> dict:
    f = workers["F"].ask(cmd="sources")["sources"]
    n = workers["N"].ask(cmd="sources")["sources"]
    c = workers["C"].ask(cmd="sources")["sources"]
    plain_generated_in_c = c.pop("$plain_generated")
    lines = [("Generated Python source, foundation vs today's plain code space "
              "(mangled-name hash suffixes normalised):")]
    diffs = {}
    only_f, only_n = sorted(set(f) - set(n)), sorted(set(n) - set(f))
    for fqn in sorted(set(f) & set(n)):
        a, b = normalise(f[fqn]), normalise(n[fqn])
        if a != b:
            diffs[fqn] = "\n".join(difflib.unified_diff(a.splitlines(), b.splitlines(), f"foundation {fqn}",
                                                        f"today {fqn}", lineterm=""))
    common = len(set(f) & set(n))
    raw_equal = sum(1 for k in set(f) & set(n) if f[k] == n[k])
    identical = not diffs and not only_f and not only_n
    lines.append(f"  {common} functions generated by both (benchmark functions, callees, methods, lambdas); "
                 f"{common - len(diffs)} identical after normalisation ({raw_equal} byte-identical as is)"
                 f" -> {'IDENTICAL' if identical else 'DIFFERENT'}")
    if only_f or only_n:
        lines.append(f"  only in foundation: {only_f}; only today: {only_n}")
    for fqn, d in diffs.items():
        lines.append(d)
    hooks = ("X0", ".at(", "on_branch", "on_call", "on_return", "on_raise")
    plain_hooks = sorted(k for k, s in n.items() if any(h in s for h in hooks))
    instr = sum(1 for k in c if c[k] != n.get(k))
    lines.append(f"  today's plain sources mentioning an instrumentation name: {plain_hooks or 'none'}; "
                 f"coverage space: {len(c)} functions, {instr} differ from plain (instrumented); "
                 f"plain functions generated by the coverage worker's runs: {plain_generated_in_c or 'none'}")
    return {"lines": lines, "identical": identical, "diffs": diffs, "only_foundation": only_f, "only_today": only_n,
            "functions": sorted(set(f) & set(n)), "plain_with_hooks": plain_hooks,
            "coverage_space_functions": len(c), "coverage_space_instrumented": instr,
            "plain_generated_by_coverage_runs": plain_generated_in_c}


if __name__ == "__main__":
    sys.exit(main())
