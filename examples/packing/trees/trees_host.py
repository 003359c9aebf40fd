"""Host side of examples/packing/trees: random expression trees, a tree-RNN's cells as host
functions, and the same model written per sample in plain Python."""
from __future__ import annotations

import random
from pathlib import Path

import torch

HERE = Path(__file__).parent
VOCAB, DIM = 10, 16


class Cells(torch.nn.Module):
    def __init__(self, vocab: int = VOCAB, dim: int = DIM):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.add = torch.nn.Linear(2 * dim, dim)
        self.mul = torch.nn.Linear(dim, dim)
        self.readout = torch.nn.Linear(dim, 1)


def tree(rng: random.Random, depth: int = 0) -> dict:
    if depth >= 2 or rng.random() < 0.3:
        t = rng.randrange(VOCAB)
        return {"op": "Leaf", "token": t, "children": []}
    op = rng.choice(["Sum", "Product"])
    return {"op": op, "token": 0, "children": [tree(rng, depth + 1) for _ in range(rng.randint(2, 3))]}


def value(t: dict) -> float:
    if t["op"] == "Leaf":
        return t["token"] / VOCAB
    vs = [value(c) for c in t["children"]]
    out = vs[0]
    for v in vs[1:]:
        out = out + v if t["op"] == "Sum" else out * v
    return out


def dataset(n: int, seed: int = 0) -> list:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        t = tree(rng)
        out.append({"tree": t, "target": value(t)})
    return out


def host_functions(cells: Cells) -> dict:
    return {
        "embed": lambda token: cells.embed(torch.as_tensor(token)),
        "add": lambda a, b: torch.tanh(cells.add(torch.cat([a, b]))),
        "mul": lambda a, b: torch.tanh(cells.mul(a * b)),
        "readout": lambda h: cells.readout(h).squeeze(-1),
        "loss": lambda y, target: (y - target) ** 2,
    }


def plain_python(sample: dict, cells: Cells):
    f = host_functions(cells)

    def encode(t):
        if t["op"] == "Leaf":
            return f["embed"](t["token"])
        acc = encode(t["children"][0])
        for c in t["children"][1:]:
            acc = (f["add"] if t["op"] == "Sum" else f["mul"])(acc, encode(c))
        return acc
    return f["loss"](f["readout"](encode(sample["tree"])), sample["target"])
