"""Exploration on N persistent worker processes, or on the actors of a Ray cluster.

A coordinator holds, per function, the frontier (queued items), the branch trie (`tried`, the
flips solved so far, as an append-only log) and the merged results; workers hold one `Search`
per function and run the items they are sent. Each task carries the flips the worker has not
seen yet, so a flip is solved at most once across workers in the common case; the two workers
that solved one concurrently are deduplicated by its key at the coordinator (the first result
wins). Results merge in a canonical order: one case per outcome key (the item earliest in the
generational order wins), coverage hits summed, statistics summed; the report is
`Search.report()`'s shape, with per-worker statistics (`workers`) added.

Programs travel as source text (`mirx.compile_files`) and compile once per worker. A worker that
dies has its item re-queued once; an item that kills its worker twice is reported as a crash
(a finding, counted in `bugs`). Start-up (spawning, compiling, `ray.init`) is reported as
`stats.startup_seconds` and is not part of any function's budget.
"""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
import traceback
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait

from .. import mirx
from .driver import Item, Search, unsynthesizable

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # src/assay


# ── the worker side ──


class _Tried(set):
    """A worker's branch trie: remembers the flips it added itself (what it reports back)."""

    def __init__(self):
        super().__init__()
        self.added: list = []

    def add(self, flip) -> None:
        super().add(flip)
        self.added.append(flip)


class Worker:
    """One worker's state: the program compiled from source text, a Search per function."""

    def __init__(self, files, options: dict):
        t0 = time.perf_counter()
        self.view = mirx.compile_files(files)
        _warm_solver()
        self.compile_seconds = time.perf_counter() - t0
        self.options = options
        self.searches: dict[str, Search] = {}
        self.pid = os.getpid()

    def ready(self) -> tuple:
        return self.pid, self.compile_seconds

    def step(self, task: dict) -> dict:
        t0 = time.perf_counter()
        try:
            result = self._step(task)
        except Exception:  # an internal error of Assay: the coordinator raises it
            return {"error": traceback.format_exc()}
        result["busy"] = time.perf_counter() - t0
        result["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return result

    def _step(self, task: dict) -> dict:
        for done in task.get("forget", ()):  # functions ended: their state goes
            self.searches.pop(done, None)
        fn = task["fn"]
        s = self.searches.get(fn)
        if s is None:
            s = self.searches[fn] = Search(self.view, fn, max_len=self.options["max_len"],
                                           query_ms=self.options["query_ms"],
                                           max_depth=self.options.get("max_depth", 3))
            s.tried = _Tried()
        set.update(s.tried, task["tried"])
        s.tried.added = []
        hits, stats, ncases = dict(s.cov.hits), dict(s.stats.__dict__), len(s.cases)
        s.out_of_time = False
        new = s.step(task["item"], time.monotonic() + task["remaining"])
        by_len = {len(f): f for f in s.tried.added}
        _fault(self.options.get("fault"), fn, task["item"])
        return {"fn": fn, "flips": list(s.tried.added), "new": [(by_len[i.bound], i) for i in new],
                "cases": list(s.cases.values())[ncases:],
                "hits": {k: n - hits.get(k, 0) for k, n in s.cov.hits.items() if n != hits.get(k, 0)},
                "stats": {k: v - stats[k] for k, v in s.stats.__dict__.items()},
                "out_of_time": s.out_of_time, "pid": self.pid}


def _warm_solver() -> None:
    """z3's first queries in a process pay for loading its theories (0.1–0.3 s): pay it at
    start-up, as the one-process driver does once for a whole run."""
    import z3
    x, y, t = z3.Int("x"), z3.Int("y"), z3.String("t")
    for goal in [(x * 3 + 7 == 52, x > 0), (x * y == 221, x > 1, y > 1, x < 2 ** 62, y < 2 ** 62),
                 (z3.Contains(t, z3.StringVal("ab")), z3.Length(t) < 8), (x / 7 == y, x % 7 == 3)]:
        s = z3.Solver()
        s.set("timeout", 2000)
        s.add(*goal)
        s.check()


def _fault(fault: dict | None, fn: str, item: Item) -> None:
    """Fault injection (tests): kill this worker in the middle of an item of `fault["function"]`
    (its work done, its result not yet sent), at most `fault["times"]` times in all workers
    (counted by marker files in `fault["dir"]`)."""
    if not fault or fault["function"] not in (fn, fn.removeprefix("user.")):
        return
    if fault.get("args") is not None and fault["args"] != item.args:
        return
    done = len(os.listdir(fault["dir"]))
    if done < fault["times"]:
        open(os.path.join(fault["dir"], f"{os.getpid()}-{done}"), "w").close()
        os.kill(os.getpid(), signal.SIGKILL)


def _serve(rfd: int, wfd: int) -> None:
    """A worker process's main loop: tasks in on `rfd`, results out on `wfd` (pickled frames)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the coordinator stops us
    inbox, outbox = Connection(rfd, writable=False), Connection(wfd, readable=False)
    worker = Worker(*inbox.recv())
    outbox.send(worker.ready())
    while True:
        try:
            task = inbox.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        outbox.send(worker.step(task))


# ── pools: where workers run ──


@dataclass
class Died:
    reason: str


class ProcessPool:
    """N persistent worker processes: fresh interpreters (nothing inherited but the source text
    they are sent; no re-import of the caller's main module), their stdout discarded."""

    kind = "processes"

    def __init__(self, n: int, files, options: dict):
        self.files, self.options = files, options
        self.procs: list = [None] * n
        self.inbox: list = [None] * n  # worker → its results
        self.outbox: list = [None] * n  # worker → its tasks
        self.pids: list = [None] * n
        for w in range(n):
            self._spawn(w)
        for w in range(n):
            self._ready(w)

    def __len__(self) -> int:
        return len(self.procs)

    def _spawn(self, w: int) -> None:
        task_r, task_w = os.pipe()
        result_r, result_w = os.pipe()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(
            [os.path.dirname(_PACKAGE)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
        self.procs[w] = subprocess.Popen(
            [sys.executable, "-c", f"from assay.explore.parallel import _serve; _serve({task_r}, {result_w})"],
            pass_fds=(task_r, result_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=env)
        os.close(task_r)
        os.close(result_w)
        self.outbox[w] = Connection(task_w, readable=False)
        self.inbox[w] = Connection(result_r, writable=False)
        self.outbox[w].send((self.files, self.options))

    def _ready(self, w: int) -> None:
        try:
            self.pids[w] = self.inbox[w].recv()[0]
        except EOFError:
            raise RuntimeError(f"an exploration worker died while starting (exit code {self.procs[w].wait()})") from None

    def restart(self, w: int) -> None:
        self.inbox[w].close()
        self.outbox[w].close()
        self._spawn(w)
        self._ready(w)

    def submit(self, w: int, task: dict) -> None:
        try:
            self.outbox[w].send(task)
        except OSError:  # it died already: wait() reports it
            pass

    def wait(self, busy: set, timeout: float) -> list:
        handles = {self.inbox[w]: w for w in busy}
        out = []
        for h in wait(list(handles), timeout):
            w = handles[h]
            try:
                out.append((w, h.recv()))
            except (EOFError, OSError):
                code = self.procs[w].wait()
                out.append((w, Died(f"worker process {self.pids[w]} died (exit code {code})")))
        return out

    def close(self) -> None:
        for conn in self.outbox:
            try:
                conn.send(None)
                conn.close()
            except OSError:
                pass
        for w, p in enumerate(self.procs):
            try:
                p.wait(timeout=2)
            except Exception:
                p.kill()
                p.wait()
            self.inbox[w].close()


_ACTOR = None


def _actor_class():
    global _ACTOR
    if _ACTOR is None:
        import ray
        _ACTOR = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0)(Worker)
    return _ACTOR


class RayPool:
    """Workers as Ray actors (one per CPU of the cluster unless `workers` says how many)."""

    kind = "ray"

    def __init__(self, n: int, address, files, options: dict):
        try:
            import ray
        except ImportError:
            raise RuntimeError("--ray needs Ray: pip install 'assay[ray]'") from None
        self.ray = ray
        if not ray.is_initialized():
            ray.init(**_ray_init_args(address))
        if n <= 1:
            n = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self.files, self.options = files, options
        self.actors: list = [None] * n
        self.pids: list = [None] * n
        self.pending: dict = {}  # ObjectRef → worker
        for w in range(n):
            self.actors[w] = _actor_class().remote(files, options)
        for w, (pid, _) in enumerate(ray.get([a.ready.remote() for a in self.actors])):
            self.pids[w] = pid

    def __len__(self) -> int:
        return len(self.actors)

    def restart(self, w: int) -> None:
        try:
            self.ray.kill(self.actors[w])
        except Exception:  # already gone
            pass
        self.actors[w] = _actor_class().remote(self.files, self.options)
        self.pids[w] = self.ray.get(self.actors[w].ready.remote())[0]

    def submit(self, w: int, task: dict) -> None:
        self.pending[self.actors[w].step.remote(task)] = w

    def wait(self, busy: set, timeout: float) -> list:
        if not self.pending:
            time.sleep(timeout)
            return []
        ready, _ = self.ray.wait(list(self.pending), num_returns=1, timeout=timeout)
        out = []
        for ref in ready:
            w = self.pending.pop(ref)
            try:
                out.append((w, self.ray.get(ref)))
            except self.ray.exceptions.RayActorError as e:
                out.append((w, Died(f"Ray actor of worker {w} (pid {self.pids[w]}) died: {type(e).__name__}")))
        return out

    def close(self) -> None:
        for a in self.actors:
            try:
                self.ray.kill(a)
            except Exception:
                pass


def _ray_init_args(address) -> dict:
    """`ray.init` arguments: bare --ray (True/"") starts a local cluster; "auto" joins the local
    one; `ray://host:port` or `host:port` a remote one, which gets Assay itself and its
    dependencies (the `assay[ray]` extra) in its runtime_env."""
    if address in (None, True, "", "local"):
        return {}
    if address == "auto":
        return {"address": "auto"}
    deps = ["click>=8.1", "pydantic>=2.5", "regex>=2023.0", "z3-solver>=4.12", "jinja2>=3.1", "ray"]
    return {"address": address, "runtime_env": {"py_modules": [_PACKAGE], "pip": deps}}


# ── the coordinator ──


@dataclass
class _Fn:
    fqn: str
    search: Search
    queue: deque = field(default_factory=deque)  # (item, rank, attempts)
    log: list = field(default_factory=list)  # the flips of search.tried, in the order added
    ranks: dict = field(default_factory=dict)  # case key → rank of the item that found it
    inflight: int = 0
    deadline: float = 0.0  # wall clock: its first item + the budget
    budget: float = 0.0  # worker time: items' round trips, summed over workers
    spent: float = 0.0  # worker time of the items returned
    running: dict = field(default_factory=dict)  # worker → when its item was sent

    def left(self, now: float) -> float:
        """Seconds of budget left: the wall clock's, and the worker time's (the items in flight
        counted as they run), whichever is less."""
        used = self.spent + sum(now - t for t in self.running.values())
        return min(self.deadline - now, self.budget - used)
    crashes: list = field(default_factory=list)
    done: bool = False
    per_worker: dict = field(default_factory=dict)  # worker → [items, executions]


def explore_many(view: mirx.ProgramView, fns: list[str], budget: float = 30.0, seed: int = 0,
                 max_len: int = 8, max_depth: int = 3, query_ms: int = 2000, workers: int = 2,
                 ray=None, progress=None, fault: dict | None = None, timeline: list | None = None) -> dict:
    """Explore functions on a pool of workers: `{"functions": [report per function], "workers":
    [{"worker", "pid", "items", "executions"}], "startup_seconds"}`. `ray` (None: processes on
    this machine) is True for a new local Ray cluster, "auto", or a cluster's address."""
    t0 = time.monotonic()
    files = [(f.path, view.source_text(f.path), f.namespace) for f in view.files]
    options = {"max_len": max_len, "max_depth": max_depth, "query_ms": query_ms, "fault": fault}
    pool = ProcessPool(workers, files, options) if ray is None else RayPool(workers, ray, files, options)
    startup = time.monotonic() - t0
    try:
        reports, totals, restarts = _coordinate(pool, view, fns, budget, seed, max_len, max_depth, query_ms,
                                                progress, timeline)
    finally:
        pool.close()
    for r in reports:
        r.setdefault("stats", {})["startup_seconds"] = round(startup, 6)
    return {"functions": reports, "startup_seconds": round(startup, 6), "restarts": restarts,
            "workers": [{"worker": w, "pid": pool.pids[w], "items": totals[w][0], "executions": totals[w][1],
                         "busy_seconds": round(totals[w][2], 6), "max_rss_mb": round(totals[w][3] / 1024, 1)}
                        for w in range(len(pool))]}


def _coordinate(pool, view, fns, budget, seed, max_len, max_depth, query_ms, progress, timeline):
    """The scheduling loop. `timeline` (benchmarks): gets (seconds, function, case) per new outcome."""
    t0 = time.monotonic()
    todo = deque(fns)
    active: list[_Fn] = []
    reports: dict[str, dict] = {}
    idle = list(range(len(pool)))
    busy: dict[int, tuple] = {}  # worker → (fn state, item, rank, attempts)
    synced: dict = {}  # (worker, fqn) → how much of the fn's log the worker has
    forget: dict = {}  # worker → functions ended whose Search it still holds
    totals = {w: [0, 0, 0.0, 0] for w in range(len(pool))}
    restarts = 0

    def activate() -> bool:
        while todo:
            fqn = todo.popleft()
            reason = unsynthesizable(view, view.function(fqn))
            if reason is not None:
                reports[fqn] = {"function": view.function(fqn).fqn.removeprefix("user."),
                                "verdict": "skipped", "reason": reason}
                continue
            s = _Merged(view, fqn)
            f = _Fn(fqn, s, deadline=s.start + budget, budget=budget)
            f.queue.append((Item(s.initial(seed), 0), (), 0))
            active.append(f)
            return True
        return False

    def dispatch() -> None:
        while idle:
            now = time.monotonic()
            # fair shares: the function with the fewest items in flight (then the oldest), so
            # that no function's clock runs while others keep every worker
            f = min((f for f in active if f.queue and f.left(now) > 0), default=None,
                    key=lambda f: f.inflight)
            if f is None:  # at most one function per worker at a time: each keeps ≥ 1 worker's pace
                if len(active) >= len(pool) or not activate():
                    return
                continue
            item, rank, attempts = f.queue.popleft()
            w = idle.pop(0)
            have = synced.get((w, f.fqn), 0)
            synced[w, f.fqn] = len(f.log)
            pool.submit(w, {"fn": f.fqn, "item": item, "tried": f.log[have:],
                            "remaining": f.left(now), "forget": forget.pop(w, [])})
            f.running[w] = now
            busy[w] = (f, item, rank, attempts)
            f.inflight += 1

    def settle() -> None:
        now = time.monotonic()
        for f in list(active):
            if f.queue and f.left(now) <= 0:
                f.search.out_of_time = True
                f.queue.clear()
            if not f.queue and not f.inflight:
                active.remove(f)
                for w in range(len(pool)):
                    if synced.pop((w, f.fqn), None) is not None:
                        forget.setdefault(w, []).append(f.fqn)
                reports[f.fqn] = _report(f, len(pool))

    while True:
        settle()  # first: a function that ended frees its place for the next
        dispatch()
        settle()
        if not busy and not active and not todo:
            break
        if not busy:
            continue
        now = time.monotonic()
        soonest = min((now + f.left(now) / max(1, len(f.running)) for f in active if f.queue), default=None)
        timeout = 0.5 if soonest is None else max(0.0, min(0.5, soonest - time.monotonic()))
        for w, result in pool.wait(set(busy), timeout):
            f, item, rank, attempts = busy.pop(w)
            f.inflight -= 1
            f.spent += time.monotonic() - f.running.pop(w)
            if isinstance(result, Died):
                restarts += 1
                for key in [k for k in synced if k[0] == w]:
                    del synced[key]
                forget.pop(w, None)
                if attempts + 1 < 2:
                    f.queue.appendleft((item, rank, attempts + 1))
                else:
                    f.crashes.append({"args": item.args, "error": result.reason})
                pool.restart(w)
                idle.append(w)
                continue
            if "error" in result:
                raise RuntimeError("an exploration worker failed:\n" + result["error"])
            known = set(f.search.cases)
            _merge(f, result, rank)
            if timeline is not None:
                timeline += [(time.monotonic() - t0, f.search.name, c) for k, c in f.search.cases.items()
                             if k not in known]
            pw = f.per_worker.setdefault(w, [0, 0, None, 0.0])
            pw[0] += 1
            pw[1] += result["stats"]["executions"]
            pw[2] = result["pid"]
            pw[3] += result["busy"]
            totals[w][0] += 1
            totals[w][1] += result["stats"]["executions"]
            totals[w][2] += result["busy"]
            totals[w][3] = max(totals[w][3], result["rss_kb"])
            idle.append(w)
            if progress is not None:
                s = f.search
                progress(s.name, s.paths, sum(1 for k in s.cov.hits if k[0] == "branch"),
                         sum(c.bug for c in s.cases.values()) + len(f.crashes), time.monotonic() - s.start)
        idle.sort()
    return [reports[fqn] for fqn in fns], totals, restarts


def _merge(f: _Fn, result: dict, rank: tuple) -> None:
    s = f.search
    fresh = set()
    for flip in result["flips"]:
        if flip not in s.tried:
            s.tried.add(flip)
            f.log.append(flip)
            fresh.add(flip)
    for flip, item in result["new"]:
        if flip in fresh:  # first wins: a flip another worker solved already brings nothing new
            f.queue.append((item, rank + (item.bound,), 0))
    order = (len(rank), rank)
    for case in result["cases"]:
        old = f.ranks.get(case.key)
        if old is None or order < old:
            s.cases[case.key] = case
            f.ranks[case.key] = order
    s.cov.hits.update(result["hits"])
    for k, v in result["stats"].items():
        setattr(s.stats, k, getattr(s.stats, k) + v)
    if result["out_of_time"]:
        s.out_of_time = True


class _Merged(Search):
    """The coordinator's record of a function: what workers found, merged. It never runs an
    item, so nothing is compiled for it (a worker's Search generates the instrumented code)."""

    def __init__(self, view: mirx.ProgramView, fn: str):
        self.record(view, fn)


class _Only:
    """A program view that lists one function (and, through it, its lambdas): the coordinator's
    coverage totals of a function without walking every function of the program each time."""

    def __init__(self, view: mirx.ProgramView, fv: mirx.FunctionView):
        self._view, self._fv = view, fv

    def functions(self, include_tests: bool = True) -> list:
        return [self._fv]

    def __getattr__(self, name):
        return getattr(self._view, name)


def _report(f: _Fn, nworkers: int) -> dict:
    s = f.search
    s.view = _Only(s.view, s.fv)  # the coordinator's Search never runs: only its report reads it
    r = s.report()
    ordered = sorted(s.cases.values(), key=lambda c: (not c.bug, _canonical(c.key)))
    r["cases"] = [{"args": c.args, "llm": c.llm, "outcome": c.outcome, "bug": c.bug} for c in ordered]
    if f.crashes:
        r["crashes"] = f.crashes
        r["bugs"] += len(f.crashes)
        if r["verdict"] == "exhausted":
            r["verdict"] = "incomplete"
    r["stats"]["worker_seconds"] = round(f.spent, 6)  # items' round trips: the budget's second measure
    r["workers"] = [{"worker": w, "pid": pw[2], "items": pw[0], "executions": pw[1], "busy_seconds": round(pw[3], 6)}
                    for w, pw in ((w, f.per_worker.get(w, [0, 0, None, 0.0])) for w in range(nworkers))]
    return r


def _canonical(key) -> str:
    """An outcome key as a string that does not depend on set iteration order."""
    return json.dumps([sorted(map(repr, k)) if isinstance(k, frozenset) else repr(k) for k in key])
