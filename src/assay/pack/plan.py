"""`pack.plan` and `Plan.run`: residuals per distinct sample, merged into one DAG of host calls,
executed with DyNet's agenda — ready calls grouped by (host function, concrete non-tensor
arguments, input shapes, dtypes and devices), the group with the lowest average depth first —
each group as one `torch.func.vmap` call over stacked inputs (or the host's batched form).

Lifting: an int/float/bool argument whose values differ inside a group is passed as a batched
1-d tensor (vmapped over) instead of splitting the group; if the callable cannot take it (vmap
raises: Python-side indexing, `.item()`, a shape argument), that (host function, argument)
is never lifted again in this plan and the group splits by its values. Ragged inputs (different
shapes) are grouped by shape, never padded. A group that vmap cannot batch at all runs per
sample (a fallback, counted), and that host function is not tried with vmap again.
"""
from __future__ import annotations

import functools
import time

import torch

from .. import gcpause, mirx
from .planner import Missing, PackError, Planner, find_missing

try:  # functorch's own entry points (what torch.func.vmap runs, less its per-call pytree work)
    from torch._C._functorch import (_add_batch_dim, _remove_batch_dim, _vmap_decrement_nesting,
                                     _vmap_increment_nesting)
    from torch._functorch.vmap import _unwrap_batched, lazy_load_decompositions
except ImportError:  # pragma: no cover — another torch: the public vmap
    _add_batch_dim = None

_LIFT_DTYPES = {int: torch.int64, float: None, bool: torch.bool}  # float: the default dtype


class Host:
    """A host callable with a natively batched form: `batched` takes the same arguments with
    tensors stacked along a new dim 0 (lifted scalars as 1-d tensors) and returns its
    results stacked along dim 0. Called as the per-sample callable."""

    def __init__(self, fn, batched=None):
        self.fn, self.batched = fn, batched
        self.__name__ = getattr(fn, "__name__", "host")

    def __call__(self, *args):
        return self.fn(*args)


class _Proxy:
    """A host parameter's value while planning: a native that calls it (`xs.map(f)`) records
    the call (no location: a native made it)."""

    def __init__(self, planner: Planner, name: str):
        self.planner, self.name = planner, name

    def __call__(self, *args):
        return self.planner.state.record(self.name, args, None)


def _freeze(v):
    """A hashable key of a sample's value (identical samples share a residual)."""
    t = type(v)
    if t in (int, float, str, bool, type(None)):
        return (t.__name__, v)
    if isinstance(v, (list, tuple)):
        return ("list", tuple(_freeze(x) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((k, _freeze(x)) for k, x in v.items()))
    dump = getattr(v, "model_dump", None)
    if dump is not None:
        return (t.__name__, _freeze(dump()))
    name = getattr(v, "name", None)
    if isinstance(name, str):  # an enum member
        return (t.__name__, name)
    raise TypeError


# ── host-side argument trees ──

def _flatten(v, leaves: list):
    """The structure of a host argument with its missing values (tensor slots) and scalars
    taken out into `leaves`; the structure is hashable (a static signature)."""
    t = type(v)
    if t is Missing:
        leaves.append(v)
        return "T"
    if t is int or t is float or t is bool:
        leaves.append(v)
        return ("S", t)
    if isinstance(v, (list, tuple)):
        return ("tuple" if t is tuple else "list", tuple(_flatten(x, leaves) for x in v))
    if isinstance(v, dict):
        return ("dict", tuple((k, _flatten(x, leaves)) for k, x in v.items()))
    if find_missing(v) is not None:
        raise PackError(f"a host call's argument holds a missing value inside {type(v).__name__}: "
                        "pass tensors to host functions directly or in lists and maps")
    try:
        hash(v)
    except TypeError:
        return ("C", id(v), v)
    return ("C", v)


def _build(struct, leaves, pos: list):
    if struct == "T" or type(struct) is tuple and struct[0] == "S":
        pos[0] += 1
        return leaves[pos[0] - 1]
    tag = struct[0]
    if tag == "list":
        return [_build(s, leaves, pos) for s in struct[1]]
    if tag == "tuple":
        return tuple(_build(s, leaves, pos) for s in struct[1])
    if tag == "dict":
        return {k: _build(s, leaves, pos) for k, s in struct[1]}
    return struct[-1]


def _kinds(struct, out: list):
    if struct == "T":
        out.append("T")
    elif type(struct) is tuple and struct[0] == "S":
        out.append(struct[1])
    elif struct[0] in ("list", "tuple", "dict"):
        for s in struct[1]:
            _kinds(s[1] if struct[0] == "dict" else s, out)
    return out


class Residual:
    """What remains of one distinct sample: its host calls and its result (with `Missing`
    where a call's result goes)."""

    def __init__(self, calls, result):
        self.calls, self.result = calls, result
        self.sigs, self.leaves, self.deps, self.depth = [], [], [], []
        for c in calls:
            leaves: list = []
            struct = tuple(_flatten(a, leaves) for a in c.args)
            self.sigs.append((c.host, struct))
            self.leaves.append(leaves)
            deps = tuple(x.node.k for x in leaves if type(x) is Missing)
            self.deps.append(deps)
            self.depth.append(1 + max((self.depth[d] for d in deps), default=0))


class _Out:
    """The outputs of one executed group: `stacked` (a tensor, dim 0 the members) or `items`
    (one value per member); `meta` the per-member (shape, dtype, device) when stacked."""
    __slots__ = ("stacked", "items", "meta", "step")

    def __init__(self, stacked=None, items=None):
        self.stacked, self.items = stacked, items
        self.meta = (stacked.shape[1:], stacked.dtype, stacked.device) if stacked is not None else None

    def item(self, i: int):
        if self.items is None:
            self.items = self.stacked.unbind(0)
        return self.items[i]


def _meta(v):
    if isinstance(v, torch.Tensor):
        return (v.shape, v.dtype, v.device)
    return (type(v),)


class Plan:
    """A packing plan: run() any number of times (host callables are called afresh)."""

    def __init__(self, view, fqn: str, n_samples: int, residuals: list, of_sample: list, host: dict,
                 lift: bool, plan_seconds: float):
        self.view, self.function = view, fqn
        self.residuals, self.of_sample, self.host, self.lift = residuals, of_sample, host, lift
        self.plan_seconds = plan_seconds
        self._replay = None
        self._nolift: dict = {}  # static signature id -> positions never lifted again
        self._novmap: set = set()  # host functions vmap cannot batch
        self._build()
        self.stats = {"samples": n_samples, "residuals": len(residuals), "host_calls": self._n,
                      "batched_calls": 0, "groups": 0, "fallbacks": 0}

    def _build(self) -> None:
        """The merged DAG: one node per host call per sample."""
        sig_ids: dict = {}
        self._sig_list: list = []
        self._base, node_sig, node_res, node_k, deps = [], [], [], [], []
        depth_sum: dict = {}
        for r in self.of_sample:
            res = self.residuals[r]
            base = len(node_sig)
            self._base.append(base)
            for k, sig in enumerate(res.sigs):
                sid = sig_ids.get(sig)
                if sid is None:
                    sid = sig_ids[sig] = len(self._sig_list)
                    kinds = _kinds(("tuple", sig[1]), [])
                    self._sig_list.append((sig[0], sig[1], kinds))
                node_sig.append(sid)
                node_res.append(r)
                node_k.append(k)
                deps.append(tuple(base + d for d in res.deps[k]))
                s, n = depth_sum.get(sid, (0, 0))
                depth_sum[sid] = (s + res.depth[k], n + 1)
        self._n = len(node_sig)
        self._node_sig, self._node_res, self._node_k, self._deps = node_sig, node_res, node_k, deps
        dependents: list = [[] for _ in range(self._n)]
        for g, ds in enumerate(deps):
            for d in set(ds):
                dependents[d].append(g)
        self._dependents = dependents
        self._npending = [len(set(ds)) for ds in deps]
        self._priority = {sid: s / n for sid, (s, n) in depth_sum.items()}

    # ── running ──
    def run(self, stack: bool = False):
        """Every sample's result, in sample order (`stack=True`: the results, all tensors of
        one shape, stacked along a new dim 0).

        The first run schedules with the agenda and records what it did (the schedule: each
        group's callable, vmapped once, and where each of its inputs lies); later runs replay
        it, gathering a group's inputs with one precomputed index. A replay whose inputs no
        longer fit (shapes, dtypes or devices changed, or a callable now fails) is abandoned
        and the agenda runs afresh, recording a new schedule."""
        if self._replay is not None:
            try:
                return self._run_replay(stack)
            except Exception:  # noqa: BLE001 — the schedule no longer fits: schedule afresh
                self._replay = None
        out = self._run_agenda(stack)
        try:
            self._replay = _Replay(self)
        except _Stale:
            self._replay = None
        return out

    def _run_agenda(self, stack: bool):
        self._steps = []
        self._out = [None] * self._n
        self._pos = [0] * self._n
        self._calls = self._groups = self._fallbacks = 0
        pending = list(self._npending)
        ready: dict = {}
        node_sig = self._node_sig
        for g in range(self._n):
            if not pending[g]:
                ready.setdefault(node_sig[g], []).append(g)
        priority, dependents = self._priority, self._dependents
        while ready:
            sid = min(ready, key=priority.__getitem__)
            members = ready.pop(sid)
            self._run_sig(sid, members)
            for g in members:
                for d in dependents[g]:
                    pending[d] -= 1
                    if not pending[d]:
                        ready.setdefault(node_sig[d], []).append(d)
        self.stats.update(batched_calls=self._calls, groups=self._groups, fallbacks=self._fallbacks)
        if stack:
            return self._stacked()
        return [self._result(s) for s in range(len(self.of_sample))]

    def _run_replay(self, stack: bool):
        rp = self._replay
        outs = rp.execute()
        self.stats.update(rp.stats)
        if stack:
            if rp.final is not None:
                return outs[rp.final]
            return torch.stack(rp.results(outs))
        return rp.results(outs)

    def _value(self, g: int):
        return self._out[g].item(self._pos[g])

    def _result(self, s: int):
        base = self._base[s]
        return _rebuild(self.residuals[self.of_sample[s]].result, lambda m: self._value(base + m.node.k))

    def _stacked(self):
        outs = []
        for s in range(len(self.of_sample)):
            r = self.residuals[self.of_sample[s]].result
            if type(r) is not Missing:
                return torch.stack([self._result(s) for s in range(len(self.of_sample))])
            outs.append(self._base[s] + r.node.k)
        first = self._out[outs[0]]
        if first.stacked is not None and all(self._out[g] is first for g in outs) and \
                [self._pos[g] for g in outs] == list(range(len(first.stacked))):
            return first.stacked
        return torch.stack([self._value(g) for g in outs])

    def _run_sig(self, sid: int, members: list) -> None:
        host, struct, kinds = self._sig_list[sid]
        nolift = self._nolift.get(sid, frozenset())
        out, pos = self._out, self._pos
        leaves_of = [self.residuals[self._node_res[g]].leaves[self._node_k[g]] for g in members]
        deps = self._deps
        groups: dict = {}
        for g, leaves in zip(members, leaves_of):
            key = []
            j = 0
            for i, kind in enumerate(kinds):
                if kind == "T":
                    src = deps[g][j]
                    j += 1
                    o = out[src]
                    key.append(o.meta if o.meta is not None else _meta(o.items[pos[src]]))
                elif not self.lift or i in nolift or kind not in _LIFT_DTYPES:
                    key.append(leaves[i])
            groups.setdefault(tuple(key), []).append((g, leaves))
        for sub in groups.values():
            self._run_group(sid, host, struct, kinds, sub)

    def _run_group(self, sid, host, struct, kinds, sub) -> None:
        f = self.host[host]
        self._groups += 1
        if len(sub) == 1:
            g, leaves = sub[0]
            self._set([g], _Out(items=[self._call(f, struct, self._inputs(g, leaves))]),
                      ("call", [(f, struct, self._recipe(g, leaves))]))
            self._calls += 1
            return
        deps = self._deps
        # members ordered by where their first tensor input lies: contiguous slices stack cheaply
        if "T" in kinds:
            out, pos = self._out, self._pos
            sub.sort(key=lambda m: (id(out[deps[m[0]][0]]), pos[deps[m[0]][0]]))
        batched = f.batched if isinstance(f, Host) else None
        if batched is None and host in self._novmap:
            return self._per_sample(f, struct, sub)
        args, dims, lifted, j = [], [], [], 0
        specs = []  # how a replay builds each argument: ("T", [(step, pos), …]) or ("C", value)
        first_tensor = None
        for i, kind in enumerate(kinds):
            if kind == "T":
                srcs = [deps[g][j] for g, _ in sub]
                t = self._gather(srcs)
                specs.append(("T", [(self._out[d].step, self._pos[d]) for d in srcs]))
                j += 1
                first_tensor = t if first_tensor is None else first_tensor
                args.append(t)
                dims.append(0)
            else:
                vals = [leaves[i] for _, leaves in sub]
                v0 = vals[0]
                if all(v == v0 and type(v) is type(v0) for v in vals):
                    args.append(v0)
                    specs.append(("C", v0))
                    dims.append(None)
                else:
                    lifted.append(i)
                    dev = first_tensor.device if first_tensor is not None else None
                    args.append(torch.tensor(vals, dtype=_LIFT_DTYPES[kind], device=dev))
                    specs.append(("C", args[-1]))
                    dims.append(0)
        try:
            if batched is not None:
                fn = functools.partial(self._callv, batched, struct)
            else:
                fn, specs = self._vmap(f, struct, dims, len(sub), specs)
            result = fn(*(args if batched is not None or 0 in dims else [specs[0][1], *args]))
        except Exception:  # noqa: BLE001 — vmap could not batch it: split or fall back
            if lifted:
                self._nolift[sid] = self._nolift.get(sid, frozenset()) | frozenset(lifted)
                self._groups -= 1
                self._run_sig(sid, [g for g, _ in sub])
                return
            if batched is not None:
                raise
            self._novmap.add(host)
            return self._per_sample(f, struct, sub)
        self._calls += 1
        if isinstance(result, torch.Tensor):
            self._set([g for g, _ in sub], _Out(stacked=result), ("vec", fn, specs, True))
        else:
            n = len(sub)
            items = [torch.utils._pytree.tree_map(lambda x, i=i: x[i], result) for i in range(n)]
            self._set([g for g, _ in sub], _Out(items=items), ("vec", fn, specs, False))

    def _vmap(self, f, struct, dims, n: int, specs):
        """The vmapped per-sample callable (kept by the replay: wrapped once per plan) and the
        argument specs it takes."""
        call = f if _is_flat(struct) else functools.partial(self._callv, f, struct)
        if 0 not in dims:  # every member makes the same call: vmapped over a dummy, so that
            # random operations still differ per member
            return _vmapped(lambda _, *a: call(*a), (0, *dims)), [("C", torch.empty(n)), *specs]
        return _vmapped(call, dims), specs

    def _per_sample(self, f, struct, sub) -> None:
        self._fallbacks += 1
        items = [self._call(f, struct, self._inputs(g, leaves)) for g, leaves in sub]
        self._calls += len(sub)
        self._set([g for g, _ in sub], _Out(items=items), ("call", [(f, struct, self._recipe(g, leaves))
                                                                      for g, leaves in sub]))

    def _recipe(self, g: int, leaves) -> list:
        """A member's leaves for a replay: missing values as (step, pos) of their source."""
        j, vals = 0, []
        for x in leaves:
            if type(x) is Missing:
                d = self._deps[g][j]
                vals.append(_Ref(self._out[d].step, self._pos[d]))
                j += 1
            else:
                vals.append(x)
        return vals

    def _set(self, gs, o: _Out, step) -> None:
        out, pos = self._out, self._pos
        o.step = len(self._steps)
        self._steps.append((step, len(gs)))
        for i, g in enumerate(gs):
            out[g] = o
            pos[g] = i

    def _inputs(self, g: int, leaves) -> list:
        j, vals = 0, []
        for x in leaves:
            if type(x) is Missing:
                vals.append(self._value(self._deps[g][j]))
                j += 1
            else:
                vals.append(x)
        return vals

    @staticmethod
    def _callv(f, struct, *leaves):
        pos = [0]
        return f(*(_build(s, leaves, pos) for s in struct))

    @staticmethod
    def _call(f, struct, leaves):
        pos = [0]
        return f(*(_build(s, leaves, pos) for s in struct))

    def _gather(self, srcs: list):
        """The inputs of a group's tensor slot stacked along dim 0: a slice of one group's
        output when they lie together, else one cat / stack."""
        out, pos = self._out, self._pos
        chunks, run = [], None  # run: [out, start, end] of a stacked output, or [None, items]
        for g in srcs:
            o, i = out[g], pos[g]
            if o.stacked is not None:
                if run is not None and run[0] is o and run[2] == i:
                    run[2] += 1
                    continue
                if run is not None:
                    chunks.append(run)
                run = [o, i, i + 1]
            else:
                if run is not None and run[0] is None:
                    run[1].append(o.items[i])
                    continue
                if run is not None:
                    chunks.append(run)
                run = [None, [o.items[i]]]
        chunks.append(run)
        ts = []
        for c in chunks:
            if c[0] is None:
                ts.append(torch.stack(c[1]))
            else:
                o, a, b = c
                ts.append(o.stacked if a == 0 and b == len(o.stacked) else o.stacked[a:b])
        return ts[0] if len(ts) == 1 else torch.cat(ts)


def _vmapped(f, dims):
    """`torch.func.vmap(f, in_dims=dims, randomness="different")` for flat arguments (tensors
    batched on dim 0, or unbatched values), entering functorch directly: the public wrapper's
    per-call flattening and checks of arguments and results cost ~70 us a call, more than a
    small group's own work (a crop of 26 images: 8 us)."""
    if _add_batch_dim is None:
        return torch.func.vmap(f, in_dims=tuple(dims), randomness="different")
    lazy_load_decompositions()
    batched = [i for i, d in enumerate(dims) if d == 0]

    def run(*args):
        n = args[batched[0]].shape[0]
        level = _vmap_increment_nesting(n, "different")
        try:
            a = list(args)
            for i in batched:
                if a[i].shape[0] != n:
                    raise ValueError(f"vmap: batched inputs of sizes {n} and {a[i].shape[0]}")
                a[i] = _add_batch_dim(a[i], 0, level)
            out = f(*a)
            if isinstance(out, torch.Tensor):
                return _remove_batch_dim(out, level, n, 0)
            return _unwrap_batched(out, 0, level, n, f)
        finally:
            _vmap_decrement_nesting()
    return run


def _rebuild(v, fill):
    t = type(v)
    if t is Missing:
        return fill(v)
    if isinstance(v, (list, tuple)):
        return (tuple if t is tuple else list)(_rebuild(x, fill) for x in v)
    if isinstance(v, dict):
        return {k: _rebuild(x, fill) for k, x in v.items()}
    if hasattr(v, "model_fields") and find_missing(v.__dict__) is not None:
        return t.model_construct(**{k: _rebuild(x, fill) for k, x in v.__dict__.items()})
    return v


def plan(program, function: str, samples: list, host: dict, lift: bool = True) -> Plan:
    """Plan `function` over `samples` (argument dicts of its non-host parameters) with host
    functions `host` ({parameter name: callable}); raises PackError where BAML code inspects
    a missing value. `lift=False`: never lift differing scalars into batched arguments."""
    view = program if isinstance(program, mirx.ProgramView) else mirx.view(program)
    fv = view.function(function)
    names = [p.name for p in fv.params if p.type is not None and p.type.kind == "function"]
    if set(names) != set(host):
        extra, absent = sorted(set(host) - set(names)), sorted(set(names) - set(host))
        raise PackError(f"{function}: host functions are its function-typed parameters "
                        f"{names}: " + (f"not parameters: {extra}" if extra else f"missing: {absent}"))
    planner = Planner(view, fv.fqn, names)
    proxies = {n: _Proxy(planner, n) for n in names}
    residuals: list = []
    index: dict = {}
    of_sample: list = []
    t0 = time.perf_counter()
    with gcpause.paused():  # planning builds many long-lived records and no cycles to collect
        _plan_samples(view, function, samples, planner, proxies, residuals, index, of_sample)
    return Plan(view, fv.fqn, len(samples), residuals, of_sample, dict(host), lift, time.perf_counter() - t0)


def _plan_samples(view, function, samples, planner, proxies, residuals, index, of_sample) -> None:
    """Run the function once per distinct sample, recording its residual."""
    for i, s in enumerate(samples):
        try:
            key = _freeze(tuple(sorted(s.items())))
        except TypeError:
            key = None
        r = index.get(key) if key is not None else None
        if r is None:
            try:
                result, error = view.run(function, {**s, **proxies}, extensions=[planner])
            except PackError as e:
                raise PackError(f"sample {i}: {e}") from None
            if error is not None:
                raise PackError(f"sample {i}: {function} failed while planning: {error}")
            r = len(residuals)
            residuals.append(Residual(planner.state.calls, result))
            if key is not None:
                index[key] = r
        of_sample.append(r)


class _Stale(Exception):
    """A recorded schedule cannot be replayed."""


def _uniform(ts: list, t0) -> None:
    """Values gathered into one argument: tensors of one dtype (else the schedule is stale:
    `stack`/`cat` would promote; they raise on mixed devices themselves)."""
    dt = t0.dtype
    for t in ts:
        if not isinstance(t, torch.Tensor) or t.dtype is not dt:
            raise _Stale


def _gather_index(cache: dict, key, ts: list, steps, singles: list, wanted):
    """The index (made once per plan, kept while the gathered outputs keep their lengths) that
    picks `wanted` (step, position) rows out of the stacked `singles` (step, position) rows
    followed by the outputs `ts` of `steps`, concatenated."""
    idx = cache.get(key)
    if idx is None or any(t.shape[0] != n for t, n in zip(ts, idx[1])):
        single = {sp: i for i, sp in enumerate(singles)}
        off, o = {}, len(single)
        for s, t in zip(steps, ts):
            off[s] = o
            o += len(t)
        rows = [single[(s, p)] if (s, p) in single else off[s] + p for s, p in wanted]
        idx = cache[key] = (torch.tensor(rows, device=key[2]), [t.shape[0] for t in ts])
    return idx[0]


class _Ref:
    """A missing leaf of a per-sample call in a schedule: the output (step, pos) it takes."""
    __slots__ = ("step", "pos")

    def __init__(self, step: int, pos: int):
        self.step, self.pos = step, pos


class _Replay:
    """The schedule one agenda run made, compiled for replaying: a list of steps, each a loop
    of per-sample calls ("call": consecutive singleton groups and fallbacks run as one loop)
    or one batched call ("vec") whose tensor inputs are gathered by a precomputed plan —
    the whole output of one step, a slice of it, or one `index_select` over the stacked
    outputs of the steps it draws from (a single autograd node, not a slice per run)."""

    def __init__(self, plan: Plan):
        steps, out, pos = plan._steps, plan._out, plan._pos
        # coalesce consecutive "call" steps that do not read each other
        where: list = []  # old step -> (new step, offset)
        self.steps: list = []
        self.stacked: list = []
        cur = None
        for (desc, n) in steps:
            if desc[0] == "call":
                refs = {x.step for _, _, leaves in desc[1] for x in leaves if type(x) is _Ref}
                if cur is not None and not any(where[r][0] == len(self.steps) - 1 for r in refs):
                    where.append((len(self.steps) - 1, len(cur)))
                    cur.extend(desc[1])
                    continue
                cur = list(desc[1])
                where.append((len(self.steps), 0))
                self.steps.append(("call", cur))
                self.stacked.append(False)
                continue
            cur = None
            where.append((len(self.steps), 0))
            _, fn, specs, stacked = desc
            self.steps.append(("vec", fn, specs, n))
            self.stacked.append(stacked)

        def loc(step, p):
            ns, off = where[step]
            return ns, off + p
        compiled = []
        for st in self.steps:
            if st[0] == "call":
                compiled.append(("call", [_compile_call(f, struct, [_Ref(*loc(x.step, x.pos)) if type(x) is _Ref
                                                                    else x for x in leaves])
                                          for f, struct, leaves in st[1]]))
                continue
            args = []
            for kind, v in st[2]:
                if kind == "C":
                    args.append((0, v))
                    continue
                srcs = [loc(a, b) for a, b in v]
                args.append(self._gather_plan(srcs))
            compiled.append(("vec", st[1], args, st[3]))
        self.steps = compiled
        self.node_loc = [loc(out[g].step, pos[g]) for g in range(plan._n)]
        # results: where each sample's result lies
        self.plan = plan
        self.locs = []
        for s in range(len(plan.of_sample)):
            r = plan.residuals[plan.of_sample[s]].result
            if type(r) is Missing:
                g = plan._base[s] + r.node.k
                self.locs.append(loc(out[g].step, pos[g]))
            else:
                self.locs.append(None)
        last = self.locs[0] if self.locs else None
        self.final = None
        if last is not None and self.stacked[last[0]] and all(
                l is not None and l[0] == last[0] and l[1] == i for i, l in enumerate(self.locs)):
            self.final = last[0]  # every result: one stacked output, in order
        self.stats = {k: plan.stats[k] for k in ("batched_calls", "groups", "fallbacks")}

    def _gather_plan(self, srcs):
        steps = list(dict.fromkeys(s for s, _ in srcs))
        if all(self.stacked[s] for s in steps):
            if len(steps) == 1:
                ps = [p for _, p in srcs]
                a = ps[0]
                if ps == list(range(a, a + len(ps))):
                    return (1, steps[0], a, a + len(ps))  # a slice (or all) of one output
            return (2, steps, srcs)  # index_select over the outputs (offsets known at run time)
        # single values (stacked into one block) and stacked outputs: one cat, one index_select
        singles = [(s, p) for s, p in srcs if not self.stacked[s]]
        blocks = [s for s in steps if self.stacked[s]]
        return (3, singles, blocks, srcs)

    def execute(self) -> list:
        outs: list = []
        unb: dict = {}
        index_cache = self.__dict__.setdefault("_index", {})

        def value(s, p):
            o = outs[s]
            if type(o) is list:
                return o[p]
            u = unb.get(s)
            if u is None:
                u = unb[s] = o.unbind(0)
            return u[p]

        for k, st in enumerate(self.steps):
            if st[0] == "call":
                outs.append([f(*args) if refs is None else _call_refs(f, struct, args, refs, value)
                             for f, args, refs, struct in st[1]])
                continue
            args = []
            for j, a in enumerate(st[2]):
                tag = a[0]
                if tag == 0:
                    args.append(a[1])
                elif tag == 1:
                    t = outs[a[1]]
                    if type(t) is list:
                        raise _Stale
                    args.append(t if a[2] == 0 and a[3] == t.shape[0] else t[a[2]:a[3]])
                elif tag == 2:
                    ts = [outs[s] for s in a[1]]
                    _uniform(ts, ts[0])
                    idx = _gather_index(index_cache, (k, j, ts[0].device), ts, a[1], [], a[2])
                    args.append((ts[0] if len(ts) == 1 else torch.cat(ts)).index_select(0, idx))
                else:
                    vs = [outs[s][p] for s, p in a[1]]  # singles: from outputs kept as lists
                    _uniform(vs, vs[0])
                    t = torch.stack(vs)
                    if a[2]:
                        ts = [outs[s] for s in a[2]]
                        _uniform(ts, t)
                        idx = _gather_index(index_cache, (k, j, t.device), ts, a[2], a[1], a[3])
                        t = torch.cat([t, *ts]).index_select(0, idx)
                    args.append(t)
            result = st[1](*args)
            if isinstance(result, torch.Tensor):
                outs.append(result)
            else:
                n = st[3]
                outs.append([torch.utils._pytree.tree_map(lambda x, i=i: x[i], result) for i in range(n)])
        return outs

    def results(self, outs) -> list:
        if self.final is not None:
            return list(outs[self.final].unbind(0))
        plan, res = self.plan, []
        unb: dict = {}
        for s, l in enumerate(self.locs):
            if l is not None:
                o = outs[l[0]]
                if type(o) is list:
                    res.append(o[l[1]])
                else:
                    u = unb.get(l[0])
                    if u is None:
                        u = unb[l[0]] = o.unbind(0)
                    res.append(u[l[1]])
                continue
            base = plan._base[s]
            res.append(_rebuild(plan.residuals[plan.of_sample[s]].result,
                                lambda m: self._value(outs, unb, self.node_loc[base + m.node.k])))
        return res

    @staticmethod
    def _value(outs, unb, loc):
        o = outs[loc[0]]
        if type(o) is list:
            return o[loc[1]]
        u = unb.get(loc[0])
        if u is None:
            u = unb[loc[0]] = o.unbind(0)
        return u[loc[1]]


def _compile_call(f, struct, leaves):
    """A per-sample call of a schedule: (f, its leaves, where references to earlier outputs
    lie — None when there are none —, its argument structure — None when flat)."""
    refs = [(i, x.step, x.pos) for i, x in enumerate(leaves) if type(x) is _Ref]
    flat = _is_flat(struct)
    if not refs and flat:
        return f, tuple(leaves), None, None
    return f, leaves, refs, None if flat else struct


def _call_refs(f, struct, leaves, refs, value):
    a = list(leaves)
    for i, s, p in refs:
        a[i] = value(s, p)
    return f(*a) if struct is None else f(*(_build(sx, a, [0]) for sx in struct))


def _is_flat(struct) -> bool:
    """Every argument one leaf (a tensor slot or a scalar): the call takes the leaves as they are."""
    return all(x == "T" or type(x) is tuple and x[0] == "S" for x in struct)
