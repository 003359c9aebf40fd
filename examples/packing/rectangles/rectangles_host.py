"""Host side of examples/packing/rectangles: data, model, host functions, and the same model
written per sample in plain Python (the benchmark's baseline)."""
from __future__ import annotations

import random
from pathlib import Path

import torch
import torch.nn.functional as F

HERE = Path(__file__).parent
CANVAS, CHANNELS, CLASSES = 8, 2, 4
SIZES = (5, 8, 11)  # widths and heights: smaller than, equal to and larger than the canvas


class Head(torch.nn.Module):
    def __init__(self, canvas: int = CANVAS, channels: int = CHANNELS, classes: int = CLASSES):
        super().__init__()
        self.conv = torch.nn.Conv2d(channels, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * canvas * canvas, classes)

    def forward(self, x):  # x: [N, C, H, W]
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def dataset(n: int, seed: int = 0):
    """`n` samples (argument dicts of CenterRectangle) and their images (by id)."""
    rng = random.Random(seed)
    gen = torch.Generator().manual_seed(seed)
    samples, images = [], []
    for i in range(n):
        w, h = rng.choice(SIZES), rng.choice(SIZES)
        images.append(torch.randn(CHANNELS, h, w, generator=gen))
        samples.append({"r": {"id": i, "width": w, "height": h, "label": rng.randrange(CLASSES)},
                        "canvas": CANVAS})
    return samples, images


def host_functions(model: Head, images: list) -> dict:
    """The per-sample host functions CenterRectangle calls (no batching written by hand)."""
    def image(i):
        return images[i]

    def crop(t, top, height, left, width):
        return t[:, top:top + height, left:left + width]

    def pad(t, left, right, top, bottom):
        return F.pad(t, (left, right, top, bottom))

    def head(t):
        return model(t.unsqueeze(0)).squeeze(0)

    def loss(logits, label):
        return F.cross_entropy(logits, torch.as_tensor(label))

    return {"image": image, "crop": crop, "pad": pad, "head": head, "loss": loss}


def batched_forms(model: Head) -> dict:
    """Natively batched forms (pack.Host(…, batched=…)) of the functions that take tensors."""
    return {"head": model, "loss": lambda logits, label: F.cross_entropy(
        logits, torch.as_tensor(label).expand(len(logits)), reduction="none")}


def plain_python(sample: dict, model: Head, images: list):
    """CenterRectangle written per sample in plain Python."""
    r, canvas = sample["r"], sample["canvas"]

    def place(size):
        if size > canvas:
            start = (size - canvas) // 2
            return [start, canvas, 0, 0]
        before = (canvas - size) // 2
        return [0, size, before, canvas - size - before]
    x, y = place(r["width"]), place(r["height"])
    img = images[r["id"]]
    if r["width"] > canvas or r["height"] > canvas:
        img = img[:, y[0]:y[0] + y[1], x[0]:x[0] + x[1]]
    if r["width"] < canvas or r["height"] < canvas:
        img = F.pad(img, (x[2], x[3], y[2], y[3]))
    return F.cross_entropy(model(img.unsqueeze(0)).squeeze(0), torch.tensor(r["label"]))
