"""uint8array methods and statics (a uint8array is a Python bytearray)."""
from __future__ import annotations

import base64 as b64
import binascii

from ..ops import throw_error
from ._registry import function, method


def _bad(message: str):
    throw_error("baml.errors.InvalidArgument", message=message)


@method("uint8array")
def at(self, index):
    n = len(self)
    return self[index] if -n <= index < n else None


@method("uint8array")
def push(self, item):
    self.append(item & 0xFF)  # masked to the low 8 bits, as the engine does
    return len(self)


@method("uint8array")
def pop(self):
    return self.pop() if self else None


@method("uint8array")
def concat(self, other):
    return self + other


@method("uint8array")
def includes(self, item):
    return 0 <= item <= 0xFF and item in self


@method("uint8array")
def index_of(self, item):
    if not 0 <= item <= 0xFF:
        return None
    i = self.find(item)
    return None if i < 0 else i


@method("uint8array")
def reverse(self):
    return self[::-1]


@method("uint8array")
def slice_(self, start, end):
    a, b = _clamp(len(self), start, end)
    return self[a:b]


def _clamp(n: int, start: int, end: int) -> tuple[int, int]:
    start = max(0, start + n) if start < 0 else min(start, n)
    end = max(0, end + n) if end < 0 else min(end, n)
    return start, max(start, end)


@method("uint8array")
def to_array(self):
    return list(self)


@method("uint8array")
def to_hex(self):
    return self.hex()


@method("uint8array")
def to_base64(self):
    return b64.b64encode(bytes(self)).decode("ascii")


@method("uint8array")
def sort(self):
    self[:] = bytes(sorted(self))


@method("uint8array", "to_string")
def to_string(self):
    return bytes(self).decode("utf-8", errors="replace")


@function("uint8array.zeroes")
def zeroes(size):
    if size < 0:
        _bad(f"Invalid size {size} for uint8array")
    return bytearray(size)


@function("uint8array.from_array")
def from_array(array):
    for i, v in enumerate(array):
        if not 0 <= v <= 0xFF:
            _bad(f"Value {v} at index {i} is out of range 0..=255")
    return bytearray(array)


@function("uint8array.from_hex")
def from_hex(hex):  # noqa: A002 - BAML's parameter name
    if len(hex) % 2:
        _bad("hex string must have even length")
    for i, c in enumerate(hex):
        if c not in "0123456789abcdefABCDEF":
            _bad(f"uint8array.from_hex: invalid hex digit at position {i}")
    return bytearray.fromhex(hex)


@function("uint8array.from_base64")
def from_base64(base64):
    """Standard alphabet, padded (the engine's 0.23.0 decoder)."""
    for i, c in enumerate(base64):
        if not (c.isascii() and (c.isalnum() or c in "+/=")):
            _bad(f"failed to decode base64: Invalid symbol {ord(c)}, offset {i}.")
    try:
        if len(base64) % 4:
            raise ValueError
        return bytearray(b64.b64decode(base64, validate=True))
    except (binascii.Error, ValueError):
        _bad("failed to decode base64: Invalid padding")
