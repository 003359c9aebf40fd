"""The structural `x.hash(state)` every value has (`baml.Hash`), written to the hasher
(`baml.hash.DefaultHasher`, bex/stdlib/cryptolib.py, or a user `baml.hash.Hasher`) write by write in the engine's encoding: a tag byte, a u64 length, the payload (arrays,
class instances and enum values: a header with the type's number, then their elements or fields;
a map: one write of its entries' sorted 64-bit hashes, so that its order does not count).

The engine numbers a program's types after its stdlib's (USER_TYPES_FROM in 0.23.0): the classes,
then the enums, file by file in declaration order. Its files come in hash-map order, different
from run to run, so only a program whose types are declared in one file has the same numbers
every time: Assay's are those, its files in its own order. The stdlib's types and run-time
ones (reflect, sessions) hash a CRC of their name."""
from __future__ import annotations

import struct
import zlib

from ..ops import MapKey
from ..values import BigInt, Instance, Variant
from ._registry import method
from .cryptolib import _HASHER, hasher_new, siphash13


def _emit(state, data: bytes) -> None:
    if type(state) is _HASHER:
        state.f__state += data
    else:  # a user class implementing baml.hash.Hasher
        state.m_write(bytearray(data))


def _head(tag: int, n: int) -> bytes:
    return bytes((tag,)) + struct.pack("<Q", n)


USER_TYPES_FROM = 4596  # the stdlib's type count in the engine 0.23.0, measured


def number_types(infos: list) -> None:
    """A program's ClassInfos then EnumInfos, in declaration order: their numbers (a session's
    infos kept from an earlier submission keep theirs)."""
    for i, info in enumerate(infos):
        if info.number is None:
            info.number = USER_TYPES_FROM + i


def _type_number(info) -> int:
    return zlib.crc32(info.fqn.encode()) if info.number is None else info.number


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
        entries = sorted(siphash13(_encoding(k.v if type(k) is MapKey else k) + _encoding(x)) for k, x in v.items())
        _emit(state, _head(8, 8 * len(entries)) + b"".join(struct.pack("<Q", e) for e in entries))
    elif isinstance(v, Instance):
        own = getattr(v, "m_hash", None)
        if own is not None:
            own(state)
            return
        fields = v._class.fields
        _emit(state, _head(9, 8) + struct.pack("<QQ", _type_number(v._class), len(fields)))
        for f in fields:
            hash_value(getattr(v, "f_" + f), state)
    elif t is Variant:
        _emit(state, _head(10, 8) + struct.pack("<QQ", _type_number(v.enum), v.index))
    else:
        raise TypeError(f"cannot hash a {t.__name__}")


def _encoding(v) -> bytes:
    h = hasher_new()
    hash_value(v, h)
    return bytes(h.f__state)


method("int float string bool null array map uint8array bigint", "hash")(hash_value)
