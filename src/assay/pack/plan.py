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

import time

import torch

from .. import mirx
from .planner import Missing, PackError, Planner, find_missing

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
    if t in (list, tuple):
        return ("list", tuple(_freeze(x) for x in v))
    if t is dict:
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
    if t is list or t is tuple:
        return (t.__name__, tuple(_flatten(x, leaves) for x in v))
    if t is dict:
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
    __slots__ = ("stacked", "items", "meta")

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
        one shape, stacked along a new dim 0)."""
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
            self._set([g], _Out(items=[self._call(f, struct, self._inputs(g, leaves))]))
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
        first_tensor = None
        for i, kind in enumerate(kinds):
            if kind == "T":
                t = self._gather([deps[g][j] for g, _ in sub])
                j += 1
                first_tensor = t if first_tensor is None else first_tensor
                args.append(t)
                dims.append(0)
            else:
                vals = [leaves[i] for _, leaves in sub]
                v0 = vals[0]
                if all(v == v0 and type(v) is type(v0) for v in vals):
                    args.append(v0)
                    dims.append(None)
                else:
                    lifted.append(i)
                    dev = first_tensor.device if first_tensor is not None else None
                    args.append(torch.tensor(vals, dtype=_LIFT_DTYPES[kind], device=dev))
                    dims.append(0)
        try:
            if batched is not None:
                result = self._call(batched, struct, args)
            else:
                result = self._vmap(f, struct, args, dims, len(sub))
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
            self._set([g for g, _ in sub], _Out(stacked=result))
        else:
            n = len(sub)
            items = [torch.utils._pytree.tree_map(lambda x, i=i: x[i], result) for i in range(n)]
            self._set([g for g, _ in sub], _Out(items=items))

    def _vmap(self, f, struct, args, dims, n: int):
        if 0 not in dims:  # every member makes the same call: vmapped over a dummy, so that
            # random operations still differ per member
            return torch.func.vmap(lambda _, *a: self._call(f, struct, a), in_dims=(0, *dims),
                                   randomness="different")(torch.empty(n), *args)
        return torch.func.vmap(lambda *a: self._call(f, struct, a), in_dims=tuple(dims),
                               randomness="different")(*args)

    def _per_sample(self, f, struct, sub) -> None:
        self._fallbacks += 1
        items = [self._call(f, struct, self._inputs(g, leaves)) for g, leaves in sub]
        self._calls += len(sub)
        self._set([g for g, _ in sub], _Out(items=items))

    def _set(self, gs, o: _Out) -> None:
        out, pos = self._out, self._pos
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


def _rebuild(v, fill):
    t = type(v)
    if t is Missing:
        return fill(v)
    if t is list or t is tuple:
        return t(_rebuild(x, fill) for x in v)
    if t is dict:
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
    return Plan(view, fv.fqn, len(samples), residuals, of_sample, dict(host), lift, time.perf_counter() - t0)
