"""CPython twins of programs.baml: the same algorithms, written as idiomatic plain Python."""
from __future__ import annotations

from enum import Enum


def fib(n: int) -> int:
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def int_loop(n: int) -> int:
    acc = 0
    i = 0
    while i < n:
        acc = (acc + i * 3 + (i % 7) - (i // 5)) % 1000003  # operands are non-negative: // == truncation
        i += 1
    return acc


def str_build(n: int) -> int:
    s = ""
    for i in range(n):
        s += f"{i},"
    return len(s)


def array_sort(n: int) -> int:
    xs: list[int] = []
    x = 12345
    for _ in range(n):
        x = (x * 1103515245 + 12345) % 2147483648
        xs.append(x % 1000000)
    xs.sort()
    return xs[0] + xs[n // 2] + xs[n - 1] + len(xs)


class Counter:
    def __init__(self, count: int, total: int, last: int):
        self.count = count
        self.total = total
        self.last = last


def field_updates(n: int) -> int:
    c = Counter(0, 0, 0)
    for i in range(n):
        c.count += 1
        c.total = (c.total + i) % 1000003
        c.last = i
    return c.count + c.total + c.last


WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda"]


def map_count(n: int) -> int:
    words = list(WORDS)
    counts: dict[str, int] = {}
    for i in range(n):
        w = words[(i * 7 + i // 13) % 11]
        if w in counts:
            counts[w] += 1
        else:
            counts[w] = 1
    return counts["alpha"] * 3 + counts["zeta"] * 5 + len(counts)


def closures(n: int) -> int:
    total = 0
    for i in range(n):
        def add(k: int) -> int:
            nonlocal total
            total += k + i
            return total
        add(1)
        add(2)
    return total % 1000003


class Shape(Enum):
    Circle = "Circle"
    Square = "Square"
    Triangle = "Triangle"
    Hexagon = "Hexagon"


class Tagged:
    __match_args__ = ("kind", "w")

    def __init__(self, kind: str, w: int):
        self.kind = kind
        self.w = w


def classify(s: Shape, k: int, t: Tagged) -> int:
    match s:
        case Shape.Circle:
            a = 1
        case Shape.Square:
            a = 2
        case Shape.Triangle:
            a = 3
        case Shape.Hexagon:
            a = 4
    match k:
        case 0:
            b = 10
        case 1 | 2:
            b = 20
        case 3:
            b = 30
        case _:
            b = 40
    match t:
        case Tagged(kind="big", w=w):
            c = w * 2
        case Tagged(kind="small", w=w):
            c = w
        case _:
            c = 0
    return a + b + c


def match_dispatch(n: int) -> int:
    shapes = [Shape.Circle, Shape.Square, Shape.Triangle, Shape.Hexagon]
    tags = [Tagged("big", 3), Tagged("small", 5), Tagged("other", 7)]
    acc = 0
    for i in range(n):
        acc += classify(shapes[i % 4], i % 5, tags[i % 3])
    return acc


def sieve(n: int) -> int:
    flags: list[bool] = []
    for _ in range(n + 1):
        flags.append(True)
    flags[0] = False
    flags[1] = False
    p = 2
    while p * p <= n:
        if flags[p]:
            m = p * p
            while m <= n:
                flags[m] = False
                m += p
        p += 1
    count = 0
    for f in flags:
        if f:
            count += 1
    return count
