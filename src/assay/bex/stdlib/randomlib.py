"""`baml.random` (SystemRandom, the seedable Xoshiro256PlusPlus and ChaCha20, user classes implementing
`baml.random.Rng`) and the draws built on it: `int.random`, `float.random`, `bool.random`,
`bigint.random`. Each maps its draws exactly as the engine does, so a seeded generator gives
the engine's values."""
from __future__ import annotations

import os

from ..ops import panic, throw_error
from ..values import OMITTED, BigInt
from ._registry import _KIND_OF, METHODS, function, method

_M64 = (1 << 64) - 1
_I63 = 1 << 62


class SystemRandom:
    """The host's entropy (not seedable)."""
    __slots__ = ()

    def bytes(self, n: int) -> bytes:
        return os.urandom(n)

    def baml_text(self) -> str:
        return "SystemRandom"


class Xoshiro256PlusPlus:
    """xoshiro256++ seeded from the first 32 bytes (LE words), as Rust's `rand_xoshiro`; an
    all-zero seed is replaced by SplitMix64's stream from 0, as there."""
    __slots__ = ("s",)

    def __init__(self, seed: bytes):
        if not any(seed[:32]):
            seed = _splitmix64(0, 4)
        self.s = [int.from_bytes(seed[8 * i:8 * i + 8], "little") for i in range(4)]

    def next_u64(self) -> int:
        s = self.s
        r = (_rotl((s[0] + s[3]) & _M64, 23) + s[0]) & _M64
        t = (s[1] << 17) & _M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = _rotl(s[3], 45)
        return r

    def bytes(self, n: int) -> bytes:
        """rand_core's fill_bytes_via_next: whole u64s (LE), then the rest from one u64 (more
        than 4 bytes left) or the high half of one (up to 4)."""
        out = bytearray()
        while n - len(out) >= 8:
            out += self.next_u64().to_bytes(8, "little")
        rest = n - len(out)
        if rest > 4:
            out += self.next_u64().to_bytes(8, "little")[:rest]
        elif rest:
            out += (self.next_u64() >> 32).to_bytes(4, "little")[:rest]
        return bytes(out)

    def baml_text(self) -> str:
        return "Xoshiro256PlusPlus { _state: <rust_data> }"


class ChaCha20:
    """Rust's `rand_chacha::ChaCha20Rng` from a 32-byte key (nonce and stream 0): a buffer of
    four 64-byte blocks read as u32 words (u64s from two words, bytes from whole words)."""
    __slots__ = ("key", "counter", "words", "idx")

    def __init__(self, seed: bytes):
        self.key = [int.from_bytes(seed[4 * i:4 * i + 4], "little") for i in range(8)]
        self.counter = 0
        self.words: list[int] = []
        self.idx = 64

    def _refill(self) -> None:
        self.words = [w for i in range(4) for w in _chacha_block(self.key, self.counter + i)]
        self.counter += 4
        self.idx = 0

    def next_u64(self) -> int:
        if self.idx >= 64:
            self._refill()
        if self.idx < 63:
            lo, hi = self.words[self.idx], self.words[self.idx + 1]
            self.idx += 2
        else:  # the buffer's last word, then the next buffer's first
            lo = self.words[63]
            self._refill()
            hi, self.idx = self.words[0], 1
        return lo | hi << 32

    def bytes(self, n: int) -> bytes:
        out = bytearray()
        while len(out) < n:
            if self.idx >= 64:
                self._refill()
            words = min((n - len(out) + 3) // 4, 64 - self.idx)  # a word's unused bytes are lost
            chunk = b"".join(w.to_bytes(4, "little") for w in self.words[self.idx:self.idx + words])
            out += chunk[:n - len(out)]
            self.idx += words
        return bytes(out)

    def baml_text(self) -> str:
        return "ChaCha20 { _state: <rust_data> }"


def _chacha_block(key: list, counter: int) -> list:
    m = 0xFFFFFFFF
    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574, *key, counter & m, counter >> 32, 0, 0]
    w = state[:]

    def qr(a, b, c, d):
        w[a] = (w[a] + w[b]) & m
        w[d] = _rotl32(w[d] ^ w[a], 16)
        w[c] = (w[c] + w[d]) & m
        w[b] = _rotl32(w[b] ^ w[c], 12)
        w[a] = (w[a] + w[b]) & m
        w[d] = _rotl32(w[d] ^ w[a], 8)
        w[c] = (w[c] + w[d]) & m
        w[b] = _rotl32(w[b] ^ w[c], 7)

    for _ in range(10):
        qr(0, 4, 8, 12), qr(1, 5, 9, 13), qr(2, 6, 10, 14), qr(3, 7, 11, 15)
        qr(0, 5, 10, 15), qr(1, 6, 11, 12), qr(2, 7, 8, 13), qr(3, 4, 9, 14)
    return [(x + y) & m for x, y in zip(w, state)]


def _rotl32(x: int, k: int) -> int:
    return ((x << k) | (x >> (32 - k))) & 0xFFFFFFFF


def _rotl(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & _M64


def _splitmix64(state: int, words: int) -> bytes:
    out = b""
    for _ in range(words):
        state = (state + 0x9E3779B97F4A7C15) & _M64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
        out += (z ^ (z >> 31)).to_bytes(8, "little")
    return out


def _int63(v: int) -> int:
    """The low 63 bits of `v` as a signed BAML int."""
    v &= (1 << 63) - 1
    return v - (1 << 63) if v >= _I63 else v


METHODS.setdefault("rng", {})
_KIND_OF[SystemRandom] = _KIND_OF[Xoshiro256PlusPlus] = _KIND_OF[ChaCha20] = "rng"
_SEEDED = (Xoshiro256PlusPlus, ChaCha20)
_NATIVE = (SystemRandom, Xoshiro256PlusPlus, ChaCha20)
_SYSTEM = SystemRandom()


@function("baml.random.SystemRandom.get")
def system_get():
    return _SYSTEM


def _seed(seed) -> bytes:
    seed = os.urandom(32) if seed is OMITTED else bytes(seed)
    if len(seed) < 32:
        panic("baml.panics.UserPanic", message=f"Rng seed must be at least 32 bytes, got {len(seed)}")
    return seed


@function("baml.random.Xoshiro256PlusPlus.new")
def xoshiro_new(seed=OMITTED):
    return Xoshiro256PlusPlus(_seed(seed))


@function("baml.random.ChaCha20.new")
def chacha_new(seed=OMITTED):
    return ChaCha20(_seed(seed))


@method("rng", "random")
def rng_random(self, bytes):  # noqa: A002 - BAML's parameter name
    if bytes < 0:
        panic("baml.panics.UserPanic", message=f"Rng.random: byte count must be non-negative, got {bytes}")
    return bytearray(self.bytes(bytes))


@method("rng", "random_int")
def rng_random_int(self):
    if type(self) in _SEEDED:
        return _int63(self.next_u64() >> 1)
    return _int63(int.from_bytes(self.bytes(8), "big"))  # Rng's default: 8 bytes, big-endian


def _draw_bytes(rng, n: int) -> bytes:
    if type(rng) in _NATIVE:
        return rng_random(rng, n)
    return rng.m_random(n)  # a user class implementing baml.random.Rng


def _draw_int(rng) -> int:
    if type(rng) in _NATIVE:
        return rng_random_int(rng)
    own = getattr(rng, "m_random_int", None)
    return own() if own is not None else _int63(int.from_bytes(_draw_bytes(rng, 8)[:8], "big"))


def _rng(rng):
    return _SYSTEM if rng is OMITTED or rng is None else rng


@function("int._random_in_range")
def int_in_range(draw, lower, upper):
    """A full-range draw onto [lower, upper), or `upper` where it must be rejected (the top
    partial span, which would bias the modulo)."""
    u = draw + _I63
    span = upper - lower
    return upper if u >= (1 << 63) - (1 << 63) % span else lower + u % span


@function("int.random")
def int_random(lower, upper, rng=OMITTED):
    if lower >= upper:
        throw_error("baml.errors.InvalidArgument",
                    message=f"int.random: lower ({lower}) must be less than upper ({upper})")
    rng = _rng(rng)
    while (r := int_in_range(_draw_int(rng), lower, upper)) == upper:
        pass
    return r


@function("float._unit_from_draw")
def unit_from_draw(draw):
    return ((draw & ((1 << 63) - 1)) >> 10) * 2.0 ** -53


@function("float.random")
def float_random(rng=OMITTED):
    return unit_from_draw(_draw_int(_rng(rng)))


@function("bool.random")
def bool_random(rng=OMITTED):
    return (_draw_bytes(_rng(rng), 1)[0] & 128) == 128


@function("bigint._random_byte_count")
def bigint_byte_count(lower, upper):
    return ((upper - lower - 1).bit_length() + 7) // 8


@function("bigint._random_in_range")
def bigint_in_range(draw, lower, upper):
    """The first bytes of `draw` (big-endian), masked to the span's bit width; `upper` where
    that is past the span (a rejection)."""
    span = int(upper - lower)
    bits = (span - 1).bit_length()
    u = int.from_bytes(bytes(draw[:(bits + 7) // 8]), "big") & ((1 << bits) - 1)
    return BigInt(upper if u >= span else lower + u)


@function("bigint.random")
def bigint_random(lower, upper, rng=OMITTED):
    if lower >= upper:
        throw_error("baml.errors.InvalidArgument",
                    message=f"bigint.random: lower ({int(lower)}) must be less than upper ({int(upper)})")
    rng = _rng(rng)
    width = bigint_byte_count(lower, upper)
    while (r := bigint_in_range(_draw_bytes(rng, width), lower, upper)) == upper:
        pass
    return r
