"""baml.crypto (SHA-256, the AEAD ciphers) and baml.hash.DefaultHasher, as the engine computes
them. Each is a builtin class whose instance holds Python state; its methods are attached to
the class (`m_update` …), its constructor is a stdlib function (`baml.crypto.Sha256.new`).

The AEAD ciphers are `cryptography`'s (AES-GCM-SIV, ChaCha20-Poly1305); XChaCha20-Poly1305 is
HChaCha20 (below) in front of ChaCha20-Poly1305, as RFC draft-irtf-cfrg-xchacha builds it.
DefaultHasher is Rust's: SipHash-1-3 with zero keys, its 64-bit result shifted into BAML's
63-bit int (an arithmetic shift right by one)."""
from __future__ import annotations

import hashlib
import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCMSIV, ChaCha20Poly1305

from ..ops import BUILTIN_CLASSES, make_builtin, throw_error
from ..values import BamlRaise, ClassInfo
from ._registry import function
from .randomlib import _draw_bytes


def _class(fqn: str, fields: list[str]):
    info = ClassInfo(fqn, fqn.rpartition(".")[2], fields)
    BUILTIN_CLASSES[fqn] = info
    return info.py


# ── SHA-256 ──

_SHA256 = _class("baml.crypto.Sha256", ["_state"])


@function("baml.crypto.Sha256.new")
def sha256_new():
    return make_builtin("baml.crypto.Sha256", _state=hashlib.sha256())


def _sha_update(self, data):
    self.f__state.update(data)


def _sha_finish(self):  # the digest, and a fresh message after it
    digest = bytearray(self.f__state.digest())
    self.f__state = hashlib.sha256()
    return digest


_SHA256.m_update = _sha_update
_SHA256.m_finish = _sha_finish


# ── baml.hash.DefaultHasher ──

_M64 = (1 << 64) - 1


def _rotl(x: int, b: int) -> int:
    return ((x << b) | (x >> (64 - b))) & _M64


def siphash13(data: bytes) -> int:
    """SipHash-1-3 with keys (0, 0): Rust's `DefaultHasher`."""
    v0, v1, v2, v3 = 0x736F6D6570736575, 0x646F72616E646F6D, 0x6C7967656E657261, 0x7465646279746573

    def rnd():
        nonlocal v0, v1, v2, v3
        v0 = (v0 + v1) & _M64; v1 = _rotl(v1, 13) ^ v0; v0 = _rotl(v0, 32)  # noqa: E702
        v2 = (v2 + v3) & _M64; v3 = _rotl(v3, 16) ^ v2  # noqa: E702
        v0 = (v0 + v3) & _M64; v3 = _rotl(v3, 21) ^ v0  # noqa: E702
        v2 = (v2 + v1) & _M64; v1 = _rotl(v1, 17) ^ v2; v2 = _rotl(v2, 32)  # noqa: E702

    n = len(data)
    whole = n - n % 8
    for (m,) in struct.iter_unpack("<Q", data[:whole]):
        v3 ^= m
        rnd()
        v0 ^= m
    b = ((n & 0xFF) << 56) | int.from_bytes(data[whole:], "little")
    v3 ^= b
    rnd()
    v0 ^= b
    v2 ^= 0xFF
    for _ in range(3):
        rnd()
    return (v0 ^ v1 ^ v2 ^ v3) & _M64


_HASHER = _class("baml.hash.DefaultHasher", ["_state"])


@function("baml.hash.DefaultHasher.new")
def hasher_new():
    return make_builtin("baml.hash.DefaultHasher", _state=bytearray())


def _hasher_write(self, bytes):  # noqa: A002 - BAML's parameter name
    self.f__state += bytes  # SipHash is a function of the whole input: keep it, hash on finish


def _hasher_finish(self):
    h = siphash13(bytes(self.f__state))
    return (h - (1 << 64) if h >> 63 else h) >> 1


_HASHER.m_write = _hasher_write
_HASHER.m_finish = _hasher_finish


# ── AEAD ──

_DF = "baml.crypto.DecryptionFailure"
BUILTIN_CLASSES[_DF] = ClassInfo(_DF, "DecryptionFailure", ["algorithm", "reason"])


def _chacha_block_words(key: bytes, nonce16: bytes) -> list[int]:
    """HChaCha20: the ChaCha20 rounds over key and a 16-byte nonce, no final addition."""
    s = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574, *struct.unpack("<8L", key), *struct.unpack("<4L", nonce16)]
    M = 0xFFFFFFFF

    def qr(a, b, c, d):
        s[a] = (s[a] + s[b]) & M; s[d] ^= s[a]; s[d] = ((s[d] << 16) | (s[d] >> 16)) & M  # noqa: E702
        s[c] = (s[c] + s[d]) & M; s[b] ^= s[c]; s[b] = ((s[b] << 12) | (s[b] >> 20)) & M  # noqa: E702
        s[a] = (s[a] + s[b]) & M; s[d] ^= s[a]; s[d] = ((s[d] << 8) | (s[d] >> 24)) & M  # noqa: E702
        s[c] = (s[c] + s[d]) & M; s[b] ^= s[c]; s[b] = ((s[b] << 7) | (s[b] >> 25)) & M  # noqa: E702

    for _ in range(10):
        qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15)  # noqa: E702
        qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14)  # noqa: E702
    return s[0:4] + s[12:16]


class _XChaCha:
    def __init__(self, key: bytes):
        self.key = key

    def _inner(self, nonce: bytes):
        sub = struct.pack("<8L", *_chacha_block_words(self.key, nonce[:16]))
        return ChaCha20Poly1305(sub), b"\0\0\0\0" + nonce[16:]

    def encrypt(self, nonce, data, aad):
        c, n = self._inner(nonce)
        return c.encrypt(n, data, aad)

    def decrypt(self, nonce, data, aad):
        c, n = self._inner(nonce)
        return c.decrypt(n, data, aad)


# fqn → (algorithm name, key length, nonce length, cipher constructor)
_AEADS = {
    "baml.crypto.Aes256GcmSiv": ("AES-256-GCM-SIV", 32, 12, AESGCMSIV),
    "baml.crypto.Aes128GcmSiv": ("AES-128-GCM-SIV", 16, 12, AESGCMSIV),
    "baml.crypto.ChaCha20Poly1305": ("ChaCha20-Poly1305", 32, 12, ChaCha20Poly1305),
    "baml.crypto.XChaCha20Poly1305": ("XChaCha20-Poly1305", 32, 24, _XChaCha),
}


def _exact(alg: str, what: str, want: int, got: bytearray) -> None:
    if len(got) != want:
        throw_error("InvalidArgument", message=f"{alg}: {what} must be exactly {want} bytes, got {len(got)}")


def _aead(fqn: str, alg: str, key_len: int, nonce_len: int, make) -> None:
    py = _class(fqn, ["_cipher"])

    def new(key):
        _exact(alg, "key", key_len, key)
        return make_builtin(fqn, _cipher=make(bytes(key)))

    def encrypt(self, nonce, plaintext, aad):
        _exact(alg, "nonce", nonce_len, nonce)
        return bytearray(self.f__cipher.encrypt(bytes(nonce), bytes(plaintext), bytes(aad)))

    def decrypt(self, nonce, ciphertext, aad):
        _exact(alg, "nonce", nonce_len, nonce)
        if len(ciphertext) < 16:
            raise _failure(alg, "ciphertext is shorter than the 16-byte authentication tag")
        try:
            return bytearray(self.f__cipher.decrypt(bytes(nonce), bytes(ciphertext), bytes(aad)))
        except InvalidTag:
            raise _failure(alg, "authentication failed") from None

    def random_key(rng):  # GenerateKey: the key's bytes, unchecked, as the engine's `rng.random(n)`
        return _draw_bytes(rng, key_len)

    function(fqn + ".new")(new)
    function(fqn + ".random_key")(random_key)
    py.m_encrypt, py.m_decrypt = encrypt, decrypt


def _failure(alg: str, reason: str) -> BamlRaise:
    return BamlRaise(make_builtin(_DF, algorithm=alg, reason=reason), panic=False)


for _fqn, _spec in _AEADS.items():
    _aead(_fqn, *_spec)
