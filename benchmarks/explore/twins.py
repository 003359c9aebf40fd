"""Python twins of the explore dev suite (classics, control, data, bytes, generics, unions and
llm .baml), for the side-by-side run against CrossHair and Hypothesis (compare.py).

Written as a Python programmer would, with BAML's semantics made explicit: ints are 63-bit
signed and every arithmetic result is checked (`i63`), `/` and `%` truncate toward zero,
indexing out of bounds, a missing map key and a negative shift count raise exceptions named
like BAML's panics, `<<` wraps to 63 bits. Each twin returns what the BAML function returns,
so the dev suite's labels (labels.json) apply: "ok:<value>" or "panic:<exception class>".
Ints outside 63 bits, which no BAML caller can pass, raise InvalidInput (not an outcome). The
answers of LLM calls are parameters (`llm_<Function>`, `llm_<Function>_<k>`).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

INT_MIN = -(2**62)
INT_MAX = 2**62 - 1


class BamlPanic(Exception):
    pass


class IntegerOverflow(BamlPanic):
    pass


class DivisionByZero(BamlPanic):
    pass


class IndexOutOfBounds(BamlPanic):
    pass


class MapKeyNotFound(BamlPanic):
    pass


class NegativeBitShift(BamlPanic):
    pass


class InvalidInput(ValueError):
    """An argument no BAML caller could pass (an int outside 63 bits): not an outcome."""


def ints(*vs: int) -> None:
    """Arguments checked at entry: BAML ints are 63-bit, Python's are not."""
    for v in vs:
        if v < INT_MIN or v > INT_MAX:
            raise InvalidInput(v)


def i63(v: int) -> int:
    """An int result as BAML checks it."""
    if v < INT_MIN or v > INT_MAX:
        raise IntegerOverflow(v)
    return v


def tdiv(a: int, b: int) -> int:
    """BAML's `/` on ints: truncating."""
    if b == 0:
        raise DivisionByZero(a)
    q = abs(a) // abs(b)
    return i63(q if (a < 0) == (b < 0) else -q)


def tmod(a: int, b: int) -> int:
    """BAML's `%` on ints: the sign of the dividend."""
    if b == 0:
        raise DivisionByZero(a)
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def shr(a: int, n: int) -> int:
    if n < 0:
        raise NegativeBitShift(n)
    if n >= 63:
        return -1 if a < 0 else 0
    return a >> n


def shl(a: int, n: int) -> int:
    if n < 0:
        raise NegativeBitShift(n)
    if n >= 63:
        return 0
    return (((a << n) + 2**62) & (2**63 - 1)) - 2**62


def at(xs: list, i: int):
    """xs[i] as BAML reads it: negative indices count from the end, like Python's. (The
    element read is checked to be a BAML int here, not every element at entry: unpacking a
    whole list at entry makes CrossHair realize it.)"""
    if i < -len(xs) or i >= len(xs):
        raise IndexOutOfBounds(i)
    v = xs[i]
    ints(v)
    return v


def put(xs: list, i: int, v) -> None:
    if i < -len(xs) or i >= len(xs):
        raise IndexOutOfBounds(i)
    xs[i] = v


def get(m: dict, k):
    if k not in m:
        raise MapKeyNotFound(k)
    v = m[k]
    ints(v)
    return v


# ----------------------------------------------------------------------------- classics.baml


def TriangleKind(a: int, b: int, c: int) -> str:
    ints(a, b, c)
    if a <= 0 or b <= 0 or c <= 0:
        return "invalid"
    if i63(a + b) <= c or i63(a + c) <= b or i63(b + c) <= a:
        return "impossible"
    if a == b and b == c:
        return "equilateral"
    if a == b or b == c or a == c:
        return "isosceles"
    return "scalene"


def MagicLinear(x: int) -> str:
    ints(x)
    if i63(i63(x * 3) + 7) == 3703703670370375:
        return "found"
    return "no"


def SquareMod(x: int) -> str:
    ints(x)
    if x > 0 and x < 1000003 and tmod(i63(x * x), 1000003) == 123456:
        return "hit"
    return "miss"


def DivByIndex(xs: list[int], i: int) -> str:
    ints(i)
    if tdiv(100, at(xs, i)) > 10:
        return "big"
    return "small"


def MagicBig(x: int) -> str:
    ints(x)
    if x == 1234567890123:
        return "magic"
    if x > 1099511627776:
        return "large"
    return "small"


def Gcd(a: int, b: int) -> str:
    ints(a, b)
    if a <= 0 or b <= 0:
        return "invalid"
    x, y, steps = a, b, 0
    while y != 0 and steps < 20:
        x, y = y, tmod(x, y)
        steps = i63(steps + 1)
    if y != 0:
        return "slow"
    return "coprime" if x == 1 else "common"


# ----------------------------------------------------------------------------- control.baml


def Nested(a: int, b: int) -> str:
    ints(a, b)
    if a > 10:
        if b > 10:
            return "both"
        return "a only"
    if b > 10:
        return "b only"
    return "neither"


def LoopSum(n: int) -> str:
    ints(n)
    if n < 0:
        return "negative"
    if n > 20:
        return "too long"
    s = 0
    i = 1
    while i <= n:
        s = i63(s + i)
        i = i63(i + 1)
    if s == 55:
        return "ten"
    return "other"


def Infeasible(x: int) -> str:
    ints(x)
    if x > 10 and x < 5:
        return "impossible"
    if x > 100:
        if x < 50:
            return "never"
        return "big"
    return "small"


def Overflow(a: int, b: int) -> str:
    ints(a, b)
    p = i63(a * b)
    if p > 1000:
        return "large"
    return "fine"


def Shift(x: int, s: int) -> str:
    ints(x, s)
    if shr(x, s) == 1:
        return "one"
    return "other"


def NegIndex(xs: list[int], i: int) -> str:
    ints(i)
    v = at(xs, i)
    if v == 7 and i < 0:
        return "from end"
    return "plain"


def Countdown(n: int) -> str:
    ints(n)
    k = n
    hops = 0
    while k > 0 and hops < 10:
        k = i63(k - 3)
        hops = i63(hops + 1)
    if k == 0:
        return "exact"
    if hops == 10:
        return "capped"
    return "overshoot"


# ----------------------------------------------------------------------------- data.baml


def StringCheck(s: str) -> str:
    if len(s) == 0:
        return "empty"
    if s == "hello":
        return "hello"
    if len(s) > 5:
        return "long"
    return "short"


def Concat(a: str, b: str) -> str:
    if a + b == "foobar" and len(a) == 3:
        return "split"
    if a == b:
        return "same"
    return "other"


def Prefix(s: str) -> str:
    if s.startswith("ab") and s.endswith("yz"):
        return "framed"
    if "mm" in s:
        return "double m"
    return "plain"


def ArrayMax(xs: list[int]) -> str:
    if len(xs) == 0:
        return "empty"
    best = 0
    i = 1
    while i < len(xs):
        if at(xs, i) > at(xs, best):
            best = i
        i = i63(i + 1)
    return "first" if best == 0 else "later"


def WriteThenRead(xs: list[int], i: int, v: int) -> str:
    ints(i, v)
    put(xs, i, v)
    if at(xs, 0) == 42:
        return "answer"
    return "other"


@dataclass
class Rect:
    w: int
    h: int


def RectKind(r: Rect) -> str:
    ints(r.w, r.h)
    if r.w <= 0 or r.h <= 0:
        return "degenerate"
    if i63(r.w * r.h) > 100:
        return "big"
    if r.w == r.h:
        return "square"
    return "rect"


def MapGet(m: dict[str, int], k: str) -> str:
    v = get(m, k)
    if v > 10:
        return "high"
    return "low"


def OptionalSign(x: int | None) -> str:
    if x is not None:
        ints(x)
    if x is None:
        return "none"
    if x == 0:
        return "zero"
    return "pos" if x > 0 else "neg"


class Door(enum.Enum):
    Open = "Open"
    Closed = "Closed"
    Locked = "Locked"


def DoorNext(d: Door, key: int) -> str:
    ints(key)
    if d is Door.Open:
        return "closing"
    if d is Door.Closed:
        return "locking" if key == 1234 else "opening"
    return "unlocking" if key == 1234 else "stuck"


# ----------------------------------------------------------------------------- llm.baml
# An LLM function's answer is an input like any other (explore makes it a symbolic input of the
# declared return type): here a parameter `llm_<Function>` (`llm_<Function>_<k>` for the k-th call).


@dataclass
class Verdict:
    label: str
    score: int


def LlmTriage(text: str, llm_ClassifyMessage: Verdict) -> str:
    v = llm_ClassifyMessage
    ints(v.score)
    if v.score > 80:
        return "urgent"
    if v.label == "spam":
        return "drop"
    if len(text) > 10:
        return "long"
    return "normal"


class Mood(enum.Enum):
    """The literal union "pos" | "neg" | "neutral" (CrossHair 0.0.113 cannot generate a
    `Literal[...]` parameter)."""
    pos = "pos"
    neg = "neg"
    neutral = "neutral"


def LlmReply(s: str, llm_Mood_1: Mood, llm_Mood_2: Mood) -> int:
    a, b = llm_Mood_1, llm_Mood_2
    if a is Mood.pos and b is Mood.neg:
        return tdiv(1, 0)
    if a == b:
        return 2
    return 3


# ----------------------------------------------------------------------------- bytes.baml


def Packet(p: bytes) -> str:
    if len(p) < 2:
        return "short"
    if p[0] != 171:
        return "bad magic"
    n = p[1]
    if n > 255:
        return "never"
    if n + 2 != len(p):
        return "bad length"
    if p[2:4] == b"OK":  # BAML's slice(2, 4): clamped to the length, as Python's
        return "ok"
    if n > 4:
        return "too long"
    return "payload"


# ----------------------------------------------------------------------------- generics.baml
# (at the instantiation explore chooses: T := int)


def Clamp(x: int, lo: int, hi: int) -> str:
    ints(x, lo, hi)
    if lo > hi:
        return "empty range"
    if x < lo:
        return "below"
    if x > hi:
        return "above"
    return "inside"


def Pick(xs: list[int], i: int) -> str:
    ints(i)
    at(xs, i)
    if len(xs) > 3:
        return "long"
    return "short"


# ----------------------------------------------------------------------------- unions.baml


class Tone(enum.Enum):
    Warm = "Warm"
    Cool = "Cool"


def Shade(t: Tone | str) -> str:
    if isinstance(t, str):
        return "the word" if t == "Warm" else "a word"
    if t == Tone.Cool:
        return "cool"
    return "warm"
