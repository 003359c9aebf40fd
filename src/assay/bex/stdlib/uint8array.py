"""uint8array methods and statics (a uint8array is a Python bytearray)."""
from __future__ import annotations

import base64 as b64

from ..ops import panic, throw_error
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
    try:
        return bytearray(size)
    except (MemoryError, OverflowError):
        panic("baml.panics.AllocFailure", message=f"Allocation of {size} bytes for new uint8array failed")


@function("uint8array.from_array")
def from_array(array):
    for i, v in enumerate(array):
        if not 0 <= v <= 0xFF:
            _bad(f"Value {v} at index {i} is out of range 0..=255")
    return bytearray(array)


@function("uint8array.from_hex")
def from_hex(hex):  # noqa: A002 - BAML's parameter name
    if len(hex.encode("utf-8")) % 2:  # the length in bytes: "é" is two, odd one out with a digit
        _bad("hex string must have even length")
    for i, c in enumerate(hex):
        if c not in "0123456789abcdefABCDEF":
            _bad(f"uint8array.from_hex: invalid hex digit at position {i}")
    return bytearray.fromhex(hex)


_B64_DIGITS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64 = frozenset(_B64_DIGITS)


@function("uint8array.from_base64")
def from_base64(base64):
    """Standard alphabet, canonical padding: the engine's decoder (Rust's `base64` 0.22 STANDARD
    engine), whose checks and their order give its error messages."""
    data = base64.encode("utf-8")
    _b64_check(data)
    return bytearray(b64.b64decode(data))


def _b64_check(data: bytes) -> None:
    def bad(why):
        _bad(f"failed to decode base64: {why}")

    def bad_byte(i, b):
        bad(f"Invalid symbol {b}, offset {i}.")

    n = len(data)
    rem = n % 4
    if rem == 1 and data[-1] != 61 and data[-1] not in _B64:  # a trailing newline, say
        bad_byte(n - 1, data[-1])
    start = max(n - rem - (4 if rem == 0 else 0), 0)  # the last (maybe padded) quad is apart
    for i in range(start):
        if data[i] not in _B64:
            bad_byte(i, data[i])
    morsels, pads, first_pad = [], 0, 0
    for k, b in enumerate(data[start:]):
        if b == 61:  # '='
            if k < 2:
                bad_byte(start + k, b)
            if not pads:
                first_pad = k
            pads += 1
        elif pads:
            bad_byte(start + first_pad, 61)
        elif b not in _B64:
            bad_byte(start + k, b)
        else:
            morsels.append(b)
    if n and len(morsels) < 2:
        bad(f"Invalid input length: {start + len(morsels)}")
    if (pads + len(morsels)) % 4:
        bad("Invalid padding")
    if len(morsels) in (2, 3):  # the last symbol's bits past the final byte must be zero
        if _B64_DIGITS.index(morsels[-1]) & (0x0F if len(morsels) == 2 else 0x03):
            bad(f"Invalid last symbol {morsels[-1]}, offset {start + len(morsels) - 1}.")
