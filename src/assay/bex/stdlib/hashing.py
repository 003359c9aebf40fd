"""`baml.hash`: `DefaultHasher` (SipHash-1-3 with zero keys, `finish` shifted into the 63-bit
int range, as the engine's) and the structural `x.hash(state)` every value has, written to the
hasher write by write in the engine's encoding: a tag byte, a u64 length, the payload (arrays,
class instances and enum values: a header, then their elements or fields; a map: one write of
its entries' sorted 64-bit hashes, so that its order does not count). A class's or an enum's
engine-internal type number is not reproduced: Assay uses a CRC of its name instead."""
from __future__ import annotations

import struct
import zlib

from ..ops import MapKey
from ..values import BigInt, Instance, Variant
from ._registry import _KIND_OF, METHODS, function, method

_M = (1 << 64) - 1


class DefaultHasher:
    """The bytes written so far (hashing the whole stream at `finish` is the same as
    hashing it in chunks)."""
    __slots__ = ("data",)

    def __init__(self):
        self.data = bytearray()


METHODS.setdefault("hasher", {})
_KIND_OF[DefaultHasher] = "hasher"


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _M


def sip13(data: bytes) -> int:
    """SipHash-1-3 with keys (0, 0): Rust's `DefaultHasher`."""
    v0, v1, v2, v3 = 0x736F6D6570736575, 0x646F72616E646F6D, 0x6C7967656E657261, 0x7465646279746573

    def rnd():
        nonlocal v0, v1, v2, v3
        v0 = (v0 + v1) & _M
        v1 = _rotl(v1, 13) ^ v0
        v0 = _rotl(v0, 32)
        v2 = (v2 + v3) & _M
        v3 = _rotl(v3, 16) ^ v2
        v0 = (v0 + v3) & _M
        v3 = _rotl(v3, 21) ^ v0
        v2 = (v2 + v1) & _M
        v1 = _rotl(v1, 17) ^ v2
        v2 = _rotl(v2, 32)

    n = len(data)
    end = n - n % 8
    for i in range(0, end, 8):
        m = int.from_bytes(data[i:i + 8], "little")
        v3 ^= m
        rnd()
        v0 ^= m
    m = ((n & 0xFF) << 56) | int.from_bytes(data[end:], "little")
    v3 ^= m
    rnd()
    v0 ^= m
    v2 ^= 0xFF
    rnd()
    rnd()
    rnd()
    return v0 ^ v1 ^ v2 ^ v3


@function("baml.hash.DefaultHasher.new")
def new():
    return DefaultHasher()


@method("hasher", "write")
def write(self, bytes):  # noqa: A002 - BAML's parameter name
    self.data += bytes


@method("hasher", "finish")
def finish(self):
    h = sip13(bytes(self.data))
    return (h - (1 << 64) if h >> 63 else h) >> 1


def _emit(state, data: bytes) -> None:
    if type(state) is DefaultHasher:
        state.data += data
    else:  # a user class implementing baml.hash.Hasher
        state.m_write(bytearray(data))


def _head(tag: int, n: int) -> bytes:
    return bytes((tag,)) + struct.pack("<Q", n)


def _type_number(fqn: str) -> int:
    return zlib.crc32(fqn.encode())


def hash_value(v, state) -> None:
    """`v.hash(state)`."""
    t = type(v)
    if v is None:
        _emit(state, b"\x00")
    elif t is bool:
        _emit(state, bytes((2, v)))
    elif t is int:
        _emit(state, _head(1, 8) + struct.pack("<q", v))
    elif t is float:  # -0.0 hashes as 0.0 (they are equal); every NaN alike
        _emit(state, _head(3, 8) + struct.pack("<d", 0.0 if v == 0 else v if v == v else float("nan")))
    elif t is BigInt:
        b = int(v).to_bytes((v if v >= 0 else ~v).bit_length() // 8 + 1, "little", signed=True)
        _emit(state, _head(4, len(b)) + b)
    elif t is str:
        b = v.encode("utf-8", "surrogatepass")
        _emit(state, _head(5, len(b)) + b)
    elif t is bytearray:
        _emit(state, _head(6, len(v)) + bytes(v))
    elif isinstance(v, list):
        _emit(state, _head(7, 8) + struct.pack("<Q", len(v)))
        for x in v:
            hash_value(x, state)
    elif isinstance(v, dict):
        entries = sorted(sip13(_encoding(k.v if type(k) is MapKey else k) + _encoding(x)) for k, x in v.items())
        _emit(state, _head(8, 8 * len(entries)) + b"".join(struct.pack("<Q", e) for e in entries))
    elif isinstance(v, Instance):
        own = getattr(v, "m_hash", None)
        if own is not None:
            own(state)
            return
        fields = v._class.fields
        _emit(state, _head(9, 8) + struct.pack("<QQ", _type_number(v._class.fqn), len(fields)))
        for f in fields:
            hash_value(getattr(v, "f_" + f), state)
    elif t is Variant:
        _emit(state, _head(10, 8) + struct.pack("<QQ", _type_number(v.enum.fqn), v.index))
    else:
        raise TypeError(f"cannot hash a {t.__name__}")


def _encoding(v) -> bytes:
    h = DefaultHasher()
    hash_value(v, h)
    return bytes(h.data)


method("int float string bool null array map uint8array bigint", "hash")(hash_value)
