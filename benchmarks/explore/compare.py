"""Side by side on the explore dev suite: Assay explore, CrossHair (`cover`, default and path
mode) and Hypothesis random testing. Not part of CI; run it by hand:

    . .venv/bin/activate && pip install crosshair-tool     # once
    python benchmarks/explore/compare.py [--budget 5] [--only Fn ...] [--json out.json]

For every function of labels.json, with the same wall-clock budget each:
  * Assay: `explore.run(view, fn, budget)` (compile time excluded); the time each outcome was
    first seen is taken from the driver's per-execution outcome (a wrapper in this script).
  * CrossHair, in a subprocess per run on the Python twin (twins.py): `crosshair cover twins.Fn`
    (default options: opcode coverage) and `crosshair cover --coverage_type=path
    --per_condition_timeout=BUDGET twins.Fn`, both also stopped at BUDGET seconds of wall clock
    (from the start of the analysis, imports excluded). Every path CrossHair completes is
    recorded with its time (as the eval-friendly arguments `cover` prints) and replayed on the
    twin for its outcome label.
  * Hypothesis: `@given` with strategies from the twin's parameter types (ints in 63 bits),
    generation only, seed 0, until BUDGET seconds; the time each outcome was first seen.

Outcome label of a run: "ok:<returned value>" | "panic:<exception class>" (labels.json).
Before the runs, every twin is checked against Assay on a handful of inputs and on every case
explore reports; a mismatch stops the script.
"""
from __future__ import annotations

import argparse
import copy
import dataclasses
import enum
import json
import math
import os
import random
import subprocess
import sys
import threading
import time
import types
import typing
from pathlib import Path

DEV = Path(__file__).resolve().parent
ROOT = DEV.parents[1]
sys.path.insert(0, str(DEV))
sys.path.insert(0, str(ROOT / "src"))

import twins  # noqa: E402
from assay import jsonvalue  # noqa: E402

LABELS = {k: v for k, v in json.loads((DEV / "labels.json").read_text()).items() if not k.startswith("_")}


# ----------------------------------------------------------------------------- twins


def twin_label(fn: str, args: dict) -> str | None:
    """The outcome label of one twin run; None for arguments no BAML caller can pass."""
    try:
        v = getattr(twins, fn)(**copy.deepcopy(args))
    except twins.InvalidInput:
        return None
    except twins.BamlPanic as e:
        return "panic:" + type(e).__name__
    except Exception as e:  # a twin that fails otherwise is a twin bug: shows up as a label
        return "error:" + type(e).__name__
    return f"ok:{v}"


def _hints(fn: str) -> dict:
    return typing.get_type_hints(getattr(twins, fn))


def _llm_param(name: str) -> tuple[str, int] | None:
    """`llm_<Fn>` / `llm_<Fn>_<k>`: the answer of the (k-th) call of LLM function Fn."""
    if not name.startswith("llm_"):
        return None
    fn, _, k = name[4:].rpartition("_")
    return (fn, int(k) - 1) if k.isdigit() and fn else (name[4:], 0)


def _from_baml(tp, v):
    if typing.get_origin(tp) in (typing.Union, types.UnionType) and isinstance(v, str):
        enums = [t for t in typing.get_args(tp) if isinstance(t, type) and issubclass(t, enum.Enum)]
        return enums[0][v] if enums and isinstance(v, jsonvalue.EnumValue) else v
    if dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp)
        return tp(**{k: _from_baml(hints[k], x) for k, x in v.items()})
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp[v]
    return v


def to_twin(fn: str, baml_args: dict, llm: dict | None = None) -> dict:
    """Arguments (and LLM answers) as explore's cases give them -> the twin's kwargs."""
    out = {}
    for name, tp in _hints(fn).items():
        if name == "return":
            continue
        at = _llm_param(name)
        v = llm[at[0]][at[1]] if at else baml_args[name]
        out[name] = _from_baml(tp, v)
    return out


def to_baml(v):
    if dataclasses.is_dataclass(v):
        return {f.name: to_baml(getattr(v, f.name)) for f in dataclasses.fields(v)}
    if isinstance(v, twins.Mood):  # the stand-in for a literal union: the literal itself
        return v.value
    if isinstance(v, enum.Enum):  # a BAML enum's member, never the string of its name
        return jsonvalue.EnumValue(v.name, type(v).__name__)
    return copy.deepcopy(v)


def split_llm(args: dict) -> tuple[dict, dict]:
    """Twin kwargs -> (BAML arguments, {LLM function: [answers in call order]})."""
    plain, llm = {}, {}
    for k, v in args.items():
        at = _llm_param(k)
        if at:
            llm.setdefault(at[0], []).append((at[1], to_baml(v)))
        else:
            plain[k] = to_baml(v)
    return plain, {f: [a for _, a in sorted(xs)] for f, xs in llm.items()}


def assay_label_of_case(case: dict) -> str:
    o = case["outcome"]
    return f"ok:{o['ok']}" if "ok" in o else "panic:" + o["error"]["type"].rsplit(".", 1)[-1]


_INTS = [0, 1, -1, 2, 3, 5, 7, 10, 11, 42, 55, 100, 1234, -7, 2**62 - 1, -(2**62), 2**40]
_STRS = ["", "a", "hello", "foo", "bar", "foobar", "abxyz", "mm", "abmmyz", "héllo!"]
_BYTES = [b"", b"\x00", b"\xab", b"\xab\x00", b"\xab\x02OK", b"\xab\x05hello", b"\xab\x01", b"\xff\xfe"]


def _sample(tp, rng: random.Random):
    if typing.get_origin(tp) is typing.Literal:
        return rng.choice(typing.get_args(tp))
    if dataclasses.is_dataclass(tp):
        return tp(**{k: _sample(t, rng) for k, t in typing.get_type_hints(tp).items()})
    if tp is int:
        return rng.choice(_INTS) if rng.random() < 0.8 else rng.randint(-1000, 1000)
    if tp is str:
        return rng.choice(_STRS)
    if tp is bytes:
        return rng.choice(_BYTES)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return rng.choice(list(tp))
    origin, targs = typing.get_origin(tp), typing.get_args(tp)
    if origin is list:
        return [_sample(targs[0], rng) for _ in range(rng.randint(0, 3))]
    if origin is dict:
        return {_sample(targs[0], rng): _sample(targs[1], rng) for _ in range(rng.randint(0, 2))}
    if type(None) in targs:  # int | None
        return None if rng.random() < 0.3 else _sample(int, rng)
    if origin in (typing.Union, types.UnionType):
        return _sample(rng.choice(targs), rng)
    raise TypeError(tp)


def check_twins(prog, reports: dict, per_fn: int = 12) -> list[str]:
    """Each twin against Assay: a handful of sampled inputs run on both, and every case
    explore reported replayed on the twin."""
    import assay

    problems = []
    rng = random.Random(0)
    for fn in LABELS:
        hints = {k: t for k, t in _hints(fn).items() if k != "return"}
        for _ in range(per_fn):
            args = {k: _sample(t, rng) for k, t in hints.items()}
            plain, llm = split_llm(args)
            prog.set_llm(lambda name, prompt, schema: llm[name].pop(0))
            try:  # Assay's API takes a uint8array as a bytearray
                got = "ok:" + str(prog.call(fn, **{k: bytearray(v) if isinstance(v, bytes) else v
                                                    for k, v in plain.items()}))
            except assay.BamlPanic as e:
                got = "panic:" + e.error["type"].rsplit(".", 1)[-1]
            finally:
                prog.set_llm(None)
            want = twin_label(fn, args)
            if got != want:
                problems.append(f"{fn}{args}: Assay {got}, twin {want}")
        for case in reports.get(fn, {}).get("cases", []):
            got, want = assay_label_of_case(case), twin_label(fn, to_twin(fn, case["args"], case.get("llm")))
            if got != want:
                problems.append(f"{fn} explore case {case['args']}: Assay {got}, twin {want}")
    return problems


# ----------------------------------------------------------------------------- Assay


def run_assay(view, fn: str, budget: float) -> dict:
    from assay.explore import driver

    first: dict[str, float] = {}
    t0 = time.monotonic()
    real_case = driver._case

    def _case(*a, **k):
        case = real_case(*a, **k)
        lab = assay_label_of_case({"outcome": case.outcome})
        first.setdefault(lab, time.monotonic() - t0)
        return case

    # stats.solver_seconds covers a whole flip: slicing, encoding to z3, z3's check, reading the
    # model. z3's check is timed apart here, so the rest is the building of queries.
    import z3

    z3_seconds = [0.0]
    real_check = z3.Solver.check

    def check(self, *a):
        t = time.perf_counter()
        try:
            return real_check(self, *a)
        finally:
            z3_seconds[0] += time.perf_counter() - t

    driver._case, z3.Solver.check = _case, check
    try:
        rep = driver.explore(view, fn, budget=budget)
    finally:
        driver._case, z3.Solver.check = real_case, real_check
    found = {assay_label_of_case(c) for c in rep["cases"]}
    return {"first": {k: first[k] for k in found}, "report": rep, "runs": rep["stats"]["executions"],
            "z3_seconds": z3_seconds[0]}


# ----------------------------------------------------------------------------- CrossHair


def crosshair_worker(fn: str, mode: str, budget: float, out: str) -> None:
    """In a subprocess: crosshair cover on twins.FN, each completed path written to OUT (JSON
    lines: seconds since the start, eval-friendly arguments), stopped at BUDGET seconds."""
    import io

    import crosshair.main
    import crosshair.path_cover as pc
    from crosshair.tracers import NoTracing

    sink = open(out, "w")
    real = pc.PathSummary
    t0 = time.monotonic()

    def record(args, formatted_args, *rest):
        with NoTracing():
            sink.write(json.dumps({"t": time.monotonic() - t0, "args": formatted_args}) + "\n")
            sink.flush()
        return real(args, formatted_args, *rest)

    pc.PathSummary = record

    def stop():
        sink.write(json.dumps({"stopped": time.monotonic() - t0}) + "\n")
        sink.flush()
        os._exit(0)

    timer = threading.Timer(budget, stop)
    timer.daemon = True
    argv = ["cover", f"twins.{fn}"]
    if mode == "path":
        argv[1:1] = ["--coverage_type=path", f"--per_condition_timeout={budget}"]
    printed = io.StringIO()
    real_stdout = sys.stdout
    sys.stdout = printed
    t0 = time.monotonic()
    timer.start()
    try:
        crosshair.main.unwalled_main(argv)
    finally:
        sys.stdout = real_stdout
    timer.cancel()
    sink.write(json.dumps({"done": time.monotonic() - t0, "printed": printed.getvalue().splitlines()}) + "\n")
    sink.flush()
    os._exit(0)


def _eval_args(fn: str, formatted: str) -> dict:
    """CrossHair's eval-friendly arguments ("1, 2" or "Rect(1, 2)") -> the twin's kwargs."""
    ns = dict(vars(twins))
    ns["__capture"] = lambda *a, **k: (a, k)
    a, k = eval(f"__capture({formatted})", ns)  # noqa: S307 - our own tool's output
    names = [n for n in _hints(fn) if n != "return"]
    return {**dict(zip(names, a)), **k}


def run_crosshair(fn: str, mode: str, budget: float, tmp: Path) -> dict:
    out = tmp / f"xh-{fn}-{mode}.jsonl"
    cmd = [sys.executable, __file__, "--crosshair-worker", fn, mode, str(budget), str(out)]
    try:
        subprocess.run(cmd, cwd=DEV, timeout=budget + 60, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pass
    first: dict[str, float] = {}
    runs = 0
    invalid = 0
    end = None
    printed: list[str] | None = None
    for line in out.read_text().splitlines() if out.exists() else []:
        rec = json.loads(line)
        if "args" in rec:
            if rec["t"] > budget:
                continue
            runs += 1
            try:
                lab = twin_label(fn, _eval_args(fn, rec["args"]))
            except Exception:
                lab = "error:unreplayable"
            if lab is None:
                invalid += 1
                continue
            first.setdefault(lab, rec["t"])
        else:
            end = rec.get("done", rec.get("stopped"))
            printed = rec.get("printed")
    printed_labels = None
    if printed is not None:
        printed_labels = sorted({twin_label(fn, _eval_args(fn, p[len(fn):].strip()[1:-1]))
                                 for p in printed if p.startswith(fn + "(")} - {None})
    return {"first": first, "runs": runs, "invalid_inputs": invalid, "seconds": end,
            "printed": printed_labels}


# ----------------------------------------------------------------------------- Hypothesis


def _strategy(tp):
    from hypothesis import strategies as st

    i63 = st.integers(min_value=twins.INT_MIN, max_value=twins.INT_MAX)
    if tp is int:
        return i63
    if tp is str:
        return st.text()
    if tp is bytes:
        return st.binary()
    if typing.get_origin(tp) is typing.Literal:
        return st.sampled_from(typing.get_args(tp))
    if dataclasses.is_dataclass(tp):
        return st.builds(tp, **{k: _strategy(t) for k, t in typing.get_type_hints(tp).items()})
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return st.sampled_from(tp)
    origin, targs = typing.get_origin(tp), typing.get_args(tp)
    if origin is list:
        return st.lists(_strategy(targs[0]))
    if origin is dict:
        return st.dictionaries(_strategy(targs[0]), _strategy(targs[1]))
    if type(None) in targs:
        return st.none() | _strategy(next(t for t in targs if t is not type(None)))
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*[_strategy(t) for t in targs])
    raise TypeError(tp)


class _OutOfTime(Exception):
    pass


def run_hypothesis(fn: str, budget: float) -> dict:
    from hypothesis import HealthCheck, Phase, given, seed, settings

    strategies = {k: _strategy(t) for k, t in _hints(fn).items() if k != "return"}
    first: dict[str, float] = {}
    runs = [0]
    t0 = time.monotonic()

    @seed(0)
    @settings(max_examples=10**9, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), report_multiple_bugs=False)
    @given(**strategies)
    def probe(**kw):
        t = time.monotonic() - t0
        if t > budget:
            raise _OutOfTime
        runs[0] += 1
        lab = twin_label(fn, kw)
        if lab is not None:
            first.setdefault(lab, t)

    t0 = time.monotonic()
    try:
        probe()
    except _OutOfTime:
        pass
    except Exception as e:  # hypothesis wraps the stop in its own report on some versions
        if "_OutOfTime" not in repr(e) and not isinstance(getattr(e, "__cause__", None), _OutOfTime):
            raise
    return {"first": first, "runs": runs[0], "seconds": time.monotonic() - t0}


# ----------------------------------------------------------------------------- tables

TOOLS = [("assay", "Assay"), ("xh_cover", "CrossHair cover"), ("xh_path", "CrossHair path"),
         ("hypothesis", "Hypothesis")]


def _found(res: dict, fn: str) -> set[str]:
    return set(res["first"]) & set(LABELS[fn]["reachable"])


def _t_full(res: dict, fn: str) -> float | None:
    found = _found(res, fn)
    return max(res["first"][k] for k in found) if found else None


def _fmt_t(t: float | None) -> str:
    return "—" if t is None else f"{t:.2f}"


def _geomean(xs: list[float]) -> float | None:
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def tables(results: dict, budget: float) -> str:
    lines = []
    head = "| program | reachable | " + " | ".join(f"{n}: found | {n}: s to last new" for _, n in TOOLS) + " |"
    lines += [head, "|" + "---|" * (2 + 2 * len(TOOLS))]
    totals = {k: 0 for k, _ in TOOLS}
    reach_total = 0
    full = {k: 0 for k, _ in TOOLS}
    anomalies = []
    for fn, res in results.items():
        reach = LABELS[fn]["reachable"]
        reach_total += len(reach)
        row = [fn, str(len(reach))]
        for key, name in TOOLS:
            r = res[key]
            found = _found(r, fn)
            totals[key] += len(found)
            full[key] += len(found) == len(reach)
            row += [f"{len(found)}/{len(reach)}", _fmt_t(_t_full(r, fn))]
            extra = set(r["first"]) - set(reach)
            if extra:
                anomalies.append(f"{fn}: {name} reached {sorted(extra)} (outside the reachable labels)")
        lines.append("| " + " | ".join(row) + " |")
    lines.append("| **total** | " + str(reach_total) + " | " + " | ".join(
        f"**{totals[k]}/{reach_total} ({100 * totals[k] / reach_total:.0f}%)** | {full[k]} complete"
        for k, _ in TOOLS) + " |")
    lines.append("")
    lines.append("Ratios, Assay vs each tool. Outcomes: Assay's total / the tool's total. Time: geometric "
                 "mean of (the tool's time to all reachable outcomes / Assay's), over the programs where both "
                 "reached all of them; above 1 Assay got there first, below 1 the tool did.")
    lines.append("")
    lines.append("| vs | outcomes found | time to full coverage | programs in the time ratio |")
    lines.append("|---|---|---|---|")
    for key, name in TOOLS[1:]:
        ratios = []
        for fn, res in results.items():
            n = len(LABELS[fn]["reachable"])
            a, b = res["assay"], res[key]
            if len(_found(a, fn)) == n and len(_found(b, fn)) == n:
                ratios.append(max(_t_full(b, fn), 1e-4) / max(_t_full(a, fn), 1e-4))
        g = _geomean(ratios)
        o = totals["assay"] / totals[key] if totals[key] else float("inf")
        lines.append(f"| {name} | {o:.2f}× | {'—' if g is None else f'{g:.1f}×'} | {len(ratios)} |")
    lines.append("")
    lines.append("Runs (executions of the function under test) per tool, and CrossHair's extras:")
    lines.append("")
    lines.append("| program | Assay executions | CrossHair cover paths | cover printed outcomes | CrossHair path paths | "
                 "Hypothesis examples |")
    lines.append("|---|---|---|---|---|---|")
    for fn, res in results.items():
        pr = res["xh_cover"]["printed"]
        lines.append(f"| {fn} | {res['assay']['runs']} | {res['xh_cover']['runs']} | "
                     f"{'(stopped)' if pr is None else len(set(pr) & set(LABELS[fn]['reachable']))} | "
                     f"{res['xh_path']['runs']} | {res['hypothesis']['runs']} |")
    if anomalies:
        lines += ["", "Anomalies:", ""] + [f"- {a}" for a in anomalies]
    return "\n".join(lines)


def speed_table(results: dict) -> str:
    lines = ["| program | verdict | executions | executions/s | execute s | build queries s | z3 s | "
             "driver s | total s | execute % | build % | z3 % | driver % |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for fn, res in results.items():
        rep = res["assay"]["report"]
        s = rep["stats"]
        total = rep["seconds"] or 1e-9
        z3s = min(res["assay"]["z3_seconds"], s["solver_seconds"])
        build = s["solver_seconds"] - z3s
        other = max(total - s["execute_seconds"] - s["solver_seconds"], 0.0)
        rate = s["executions"] / s["execute_seconds"] if s["execute_seconds"] else float("nan")
        pct = lambda x: f"{100 * x / total:.0f}"  # noqa: E731
        lines.append(f"| {fn} | {rep['verdict']} | {s['executions']} | {rate:,.0f} | {s['execute_seconds']:.3f} | "
                     f"{build:.3f} | {z3s:.3f} | {other:.3f} | {total:.3f} | {pct(s['execute_seconds'])} | "
                     f"{pct(build)} | {pct(z3s)} | {pct(other)} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=float, default=5.0)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--json", default=None, help="write the raw results here")
    ap.add_argument("--crosshair-worker", nargs=4, metavar=("FN", "MODE", "BUDGET", "OUT"),
                    help=argparse.SUPPRESS)
    ap.add_argument("--skip", nargs="*", default=[], choices=["crosshair", "hypothesis"])
    a = ap.parse_args(argv)
    if a.crosshair_worker:
        fn, mode, budget, out = a.crosshair_worker
        crosshair_worker(fn, mode, float(budget), out)
        return 0

    import tempfile

    import assay
    from assay import mirx

    fns = a.only or list(LABELS)
    prog = assay.load(str(DEV))
    view = mirx.view(prog)
    results: dict = {}
    with tempfile.TemporaryDirectory() as d:
        for fn in fns:
            res = results[fn] = {"assay": run_assay(view, fn, a.budget)}
            skip = {"first": {}, "runs": 0, "printed": None}
            if "crosshair" in a.skip:
                res["xh_cover"] = res["xh_path"] = skip
            else:
                res["xh_cover"] = run_crosshair(fn, "cover", a.budget, Path(d))
                res["xh_path"] = run_crosshair(fn, "path", a.budget, Path(d))
            res["hypothesis"] = skip if "hypothesis" in a.skip else run_hypothesis(fn, a.budget)
            print(fn, {k: sorted(_found(res[k], fn)) for k, _ in TOOLS}, file=sys.stderr, flush=True)
    problems = check_twins(prog, {fn: results[fn]["assay"]["report"] for fn in fns})
    if problems:
        print("twins disagree with Assay:", *problems, sep="\n  ", file=sys.stderr)
        return 1
    print(f"twins agree with Assay on sampled inputs and on every explore case ({len(fns)} programs)\n")
    print(f"## Outcomes ({a.budget:g} s per program and tool)\n")
    print(tables(results, a.budget))
    print("\n## Assay explore: executions per second and the split of its time\n")
    print(speed_table(results))
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
