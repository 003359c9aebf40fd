"""assay explore on worker processes and on a Ray cluster (assay.explore.parallel): the same
verdicts and outcomes as in one process on dev programs that reach `exhausted`, both workers do
work, a worker killed in the middle of an item loses nothing, an item that kills its worker
twice is reported, and the budget holds. One local Ray cluster serves the whole module."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import assay
from assay import explore, mirx
from assay.explore.parallel import explore_many

DEV = Path(__file__).resolve().parents[1] / "benchmarks" / "explore"
# dev functions that reach `exhausted` in one process within a second or two, on linear queries
# (a non-linear one, such as Overflow's a * b, may time out in one process and not in another)
EXHAUSTED = ["TriangleKind", "MagicLinear", "DivByIndex", "MagicBig", "Nested", "LoopSum", "Infeasible",
             "NegIndex", "Countdown", "StringCheck", "Concat", "Prefix", "OptionalSign", "DoorNext"]
BUDGET = 20.0  # never reached: every function ends exhausted long before


def label(case: dict) -> str:
    o = case["outcome"]
    return f"ok:{o['ok']}" if "ok" in o else "error:" + o["error"]["type"]


def summary(reports: list[dict]) -> dict:
    return {r["function"]: (r["verdict"], sorted(label(c) for c in r["cases"]), r["bugs"],
                            r["coverage"]["branches_covered"]) for r in reports}


@pytest.fixture(scope="module")
def view():
    return mirx.view(assay.load(str(DEV)))


@pytest.fixture(scope="module")
def serial(view):
    return summary([explore.run(view, fn, budget=BUDGET) for fn in EXHAUSTED])


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_two_workers_same_verdicts_and_outcomes_and_both_work(view, serial):
    assert all(v[0] == "exhausted" for v in serial.values()), serial
    run = explore_many(view, EXHAUSTED, budget=BUDGET, workers=2)
    assert summary(run["functions"]) == serial
    assert [w["items"] > 0 and w["executions"] > 0 for w in run["workers"]] == [True, True]
    assert len({w["pid"] for w in run["workers"]} | {os.getpid()}) == 3 and run["restarts"] == 0
    r = run["functions"][0]
    assert set(r) >= {"function", "verdict", "paths", "coverage", "cases", "bugs", "stats", "seconds", "workers"}
    assert r["stats"]["startup_seconds"] > 0
    assert sum(w["items"] for w in r["workers"]) == r["stats"]["executions"]


def test_api_run_takes_workers(view, serial):
    r = explore.run(view, "TriangleKind", budget=BUDGET, workers=2)
    assert summary([r]) == {"TriangleKind": serial["TriangleKind"]}
    assert len(r["workers"]) == 2


def test_on_a_local_ray_cluster(view, serial, ray_cluster):
    run = explore_many(view, EXHAUSTED, budget=BUDGET, workers=2, ray=True)
    assert summary(run["functions"]) == serial
    assert all(w["items"] > 0 for w in run["workers"])
    assert os.getpid() not in {w["pid"] for w in run["workers"]}


def test_a_worker_killed_mid_item_loses_nothing(view, serial, tmp_path):
    fault = {"function": "LoopSum", "times": 1, "dir": str(tmp_path)}
    run = explore_many(view, ["LoopSum", "Countdown"], budget=BUDGET, workers=2, fault=fault)
    assert len(os.listdir(tmp_path)) == 1 and run["restarts"] == 1
    assert summary(run["functions"]) == {f: serial[f] for f in ["LoopSum", "Countdown"]}
    assert "crashes" not in run["functions"][0]


def test_a_ray_actor_killed_mid_item_loses_nothing(view, serial, ray_cluster, tmp_path):
    fault = {"function": "Nested", "times": 1, "dir": str(tmp_path)}
    run = explore_many(view, ["Nested"], budget=BUDGET, workers=2, ray=True, fault=fault)
    assert len(os.listdir(tmp_path)) == 1 and run["restarts"] == 1
    assert summary(run["functions"]) == {"Nested": serial["Nested"]}


def test_an_item_that_kills_its_worker_twice_is_a_finding(view, tmp_path):
    fault = {"function": "Nested", "args": {"a": 0, "b": 0}, "times": 5, "dir": str(tmp_path)}
    run = explore_many(view, ["Nested"], budget=BUDGET, workers=2, fault=fault)
    r = run["functions"][0]
    assert len(os.listdir(tmp_path)) == 2 and run["restarts"] == 2  # tried twice, never again
    assert r["crashes"] == [{"args": {"a": 0, "b": 0}, "error": r["crashes"][0]["error"]}]
    assert "died" in r["crashes"][0]["error"] and r["bugs"] == 1 and r["verdict"] == "incomplete"


NEVER_DONE = """
function Forever(n: int) -> int {
  let i = 0;
  while (i < n) { i += 1; }
  i
}

function Small(b: bool) -> int {
  if (b) { 1 } else { 2 }
}
"""


def test_the_budget_holds_with_workers():
    view = mirx.compile(NEVER_DONE)
    t0 = time.monotonic()
    run = explore_many(view, ["Forever", "Small"], budget=1.0, workers=2)
    forever, small = run["functions"]
    assert time.monotonic() - t0 - run["startup_seconds"] <= 1.0 * 1.1 + 1.0
    assert forever["verdict"] == "budget" and forever["seconds"] <= 1.0 * 1.1 + 0.5
    assert forever["stats"]["executions"] > 10 and sum(w["items"] > 0 for w in forever["workers"]) == 2
    assert small["verdict"] == "exhausted"


def test_cli_workers_and_ray(tmp_path, ray_cluster):
    src = DEV / "control.baml"
    run = lambda *a: subprocess.run([sys.executable, "-m", "assay.cli.main", "explore", *a],  # noqa: E731
                                    capture_output=True, text=True, timeout=180)
    out = tmp_path / "t.baml"
    r = run(str(src), "--budget", "2", "--workers", "2", "--json", "--emit-tests", str(out))
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and len(doc["workers"]) == 2 and doc["startup_seconds"] > 0
    assert {f["function"] for f in doc["functions"]} >= {"Nested", "LoopSum", "Shift"}
    assert out.read_text().count("\ntest ") == sum(len(f["cases"]) for f in doc["functions"])
    text = run(str(src), "Nested", "--budget", "2", "--workers", "2")
    assert text.returncode == 0 and "Nested: exhausted" in text.stdout and "workers: " in text.stdout
    joined = run(str(src), "Nested", "--budget", "5", "--ray", "auto", "--json")
    doc = json.loads(joined.stdout)
    assert joined.returncode == 0 and doc["verdict"] == "exhausted" and len(doc["workers"]) == 2
