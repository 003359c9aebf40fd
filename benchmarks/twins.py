"""CPython twins of programs.baml: the same algorithms, written as idiomatic plain Python."""
from __future__ import annotations

import math
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


# ═══════════ twins of the programs added with issue 7's speed work ═══════════

def tak(x: int, y: int, z: int) -> int:
    if y < x:
        return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))
    return z


class TreeNode:
    __slots__ = ("val", "kids")

    def __init__(self, val: int, kids: list):
        self.val = val
        self.kids = kids


def build_tree(depth: int, val: int) -> TreeNode:
    kids = []
    if depth > 0:
        kids.append(build_tree(depth - 1, val * 2))
        kids.append(build_tree(depth - 1, val * 2 + 1))
    return TreeNode(val, kids)


def tree_total(t: TreeNode) -> int:
    s = t.val % 7
    for k in t.kids:
        s += tree_total(k)
    return s


def tree_sum(depth: int) -> int:
    return tree_total(build_tree(depth, 1))


def collatz(n: int) -> int:
    total = 0
    for k in range(1, n + 1):
        x = k
        while x != 1:
            if x % 2 == 0:
                x = x // 2
            else:
                x = 3 * x + 1
            total += 1
    return total


def mat_mul(n: int) -> int:
    a = [[(i * j + 1) % 17 for j in range(n)] for i in range(n)]
    b = [[(i + 2 * j) % 13 for j in range(n)] for i in range(n)]
    check = 0
    for i in range(n):
        ai = a[i]
        for j in range(n):
            s = 0
            for k in range(n):
                s += ai[k] * b[k][j]
            check = (check + s * (i + j + 1)) % 1000003
    return check


class Particle:
    __slots__ = ("x", "v", "hits")

    def __init__(self, x: int, v: int, hits: int):
        self.x = x
        self.v = v
        self.hits = hits


def particles(n: int) -> int:
    ps = [Particle(i * 10, (i % 7) - 3, 0) for i in range(100)]
    for _ in range(n):
        for p in ps:
            p.x += p.v
            if p.x < 0 or p.x > 1000:
                p.v = -p.v
                p.hits += 1
    return sum(p.x + p.hits * 3 for p in ps)


def interp(n: int) -> int:
    prog = [0, 1, 2, 3, 4, 1, 5, 2, 0, 3]
    acc = 0
    reg = 1
    for i in range(n):
        match prog[i % 10]:
            case 0:
                acc += reg
            case 1:
                reg = (reg * 3) % 10007
            case 2:
                acc -= reg // 2  # reg >= 1: // == truncation
            case 3:
                reg += 7
            case 4:
                acc = int(math.fmod(acc, 1000003))  # BAML's % truncates: the sign follows acc
            case _:
                reg = reg % 101 + 1
    return acc + reg


class Circle:
    __match_args__ = ("r",)

    def __init__(self, r: int):
        self.r = r


class Rect:
    __match_args__ = ("w", "h")

    def __init__(self, w: int, h: int):
        self.w = w
        self.h = h


class Tri:
    def __init__(self, b: int, h: int):
        self.b = b
        self.h = h


def area(s) -> int:
    match s:
        case Circle(r=r):
            return 3 * r * r
        case Rect(w=w, h=h):
            return w * h
        case Tri():
            return s.b * s.h // 2
    raise AssertionError


def union_match(n: int) -> int:
    shapes = [Circle(2), Rect(3, 4), Tri(5, 6), Circle(1), Rect(7, 1)]
    acc = 0
    for i in range(n):
        acc += area(shapes[i % 5])
    return acc


def insertion_sort(n: int) -> int:
    xs = []
    x = 777
    for _ in range(n):
        x = (x * 1103515245 + 12345) % 2147483648
        xs.append(x % 100000)
    for i in range(1, n):
        key = xs[i]
        j = i - 1
        while j >= 0 and xs[j] > key:
            xs[j + 1] = xs[j]
            j -= 1
        xs[j + 1] = key
    return xs[0] + xs[n // 2] * 3 + xs[n - 1] * 7


class Rec:
    __slots__ = ("name", "score")

    def __init__(self, name: str, score: int):
        self.name = name
        self.score = score


def sort_records(n: int) -> int:
    rs = []
    x = 99
    for i in range(n):
        x = (x * 1103515245 + 12345) % 2147483648
        rs.append(Rec(f"r{i}", x % 10000))
    rs.sort(key=lambda r: r.score)
    return rs[0].score + rs[n // 2].score * 3 + rs[n - 1].score * 7 + len(rs[n - 1].name)


def map_build(n: int) -> int:
    m: dict[str, int] = {}
    for i in range(n):
        k = f"k{i % 997}"
        m[k] = m.get(k, 0) + i % 13
    s = 0
    for k in m:
        s += m[k] * len(k)
    return s + len(m)


def str_ops(n: int) -> int:
    text = "the quick brown fox jumps over the lazy dog"
    total = 0
    for i in range(n):
        words = text.split(" ")
        w = words[i % 9]
        if "o" in w:
            total += len(w.upper())
        else:
            total += len(w[0:2]) + 1
        if w.startswith("t"):
            total += 2
    return total


def make_adder(k: int):
    return lambda x: x + k


def apply_twice(f, x: int) -> int:
    return f(f(x))


def closure_hof(n: int) -> int:
    adders = [make_adder(1), make_adder(2), make_adder(3)]
    acc = 0
    for i in range(n):
        acc = apply_twice(adders[i % 3], acc) % 1000003
    xs = list(range(1000))
    ys = [v for v in (v * 2 + acc % 5 for v in xs) if v % 3 == 0]
    return acc + len(ys) + sum(ys) % 1000
