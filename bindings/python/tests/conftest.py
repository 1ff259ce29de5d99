"""Shared fixtures: the repository paths, the golden images, and the C ABI
(``libsketches.so`` through ctypes) to build the same images through C."""

from __future__ import annotations

import ctypes
import io
import os
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[3]
GOLDEN = ROOT / "tests" / "golden"
HEADER = ROOT / "include" / "sketches.h"


def golden(name: str) -> bytes:
    return (GOLDEN / f"{name}_v1.img").read_bytes()


class ShortWriter(io.RawIOBase):
    """A raw stream (a pipe, a socket) taking at most ``most`` bytes per
    write and returning how many it took; ``out`` holds them."""

    def __init__(self, most: int = 7) -> None:
        self.out = bytearray()
        self.most = most

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        chunk = bytes(b[: self.most])
        self.out += chunk
        return len(chunk)


class BloomParams(ctypes.Structure):
    _fields_ = [
        ("bits", ctypes.c_uint64),
        ("hashes", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
        ("planned_items", ctypes.c_uint64),
        ("planned_fpr", ctypes.c_double),
    ]


class SbbfParams(ctypes.Structure):
    _fields_ = [
        ("blocks", ctypes.c_uint64),
        ("planned_items", ctypes.c_uint64),
        ("planned_fpr", ctypes.c_double),
        ("mode", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


class CuckooParams(ctypes.Structure):
    _fields_ = [
        ("buckets", ctypes.c_uint64),
        ("fingerprint_bits", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
        ("planned_items", ctypes.c_uint64),
        ("planned_fpr", ctypes.c_double),
    ]


class CountMinParams(ctypes.Structure):
    _fields_ = [
        ("width", ctypes.c_uint64),
        ("depth", ctypes.c_uint32),
        ("counter_bits", ctypes.c_uint32),
        ("conservative", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


class FuseParams(ctypes.Structure):
    _fields_ = [
        ("keys", ctypes.c_uint64),
        ("fingerprint_bits", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


class EllParams(ctypes.Structure):
    _fields_ = [
        ("t", ctypes.c_uint32),
        ("d", ctypes.c_uint32),
        ("precision", ctypes.c_uint32),
        ("reserved", ctypes.c_uint32),
    ]


class CLib:
    """The C ABI through ctypes: builds images with C calls only."""

    def __init__(self, path: Path) -> None:
        self.lib = ctypes.CDLL(str(path))
        self.lib.sketch_status_str.restype = ctypes.c_char_p
        self.lib.sketch_status_str.argtypes = [ctypes.c_int32]
        self.lib.sketch_hash.restype = ctypes.c_uint64
        self.lib.sketch_hash.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint64]
        self.lib.sketch_hash_u64.restype = ctypes.c_uint64
        self.lib.sketch_hash_u64.argtypes = [ctypes.c_uint64, ctypes.c_uint64]

    def call(self, name: str, *args) -> None:
        status = getattr(self.lib, name)(*args)
        assert status == 0, f"{name}: {status} {self.lib.sketch_status_str(status)!r}"

    def status_str(self, code: int) -> str:
        return self.lib.sketch_status_str(code).decode()

    @staticmethod
    def buffer(size: int) -> np.ndarray:
        return np.zeros((size + 7) // 8, dtype=np.uint64)

    @staticmethod
    def ptr(buf: np.ndarray) -> ctypes.c_void_p:
        return ctypes.c_void_p(buf.ctypes.data)

    @staticmethod
    def packed(keys):
        """Keys (str/bytes/int) packed in the Arrow Binary layout."""
        data = bytearray()
        offsets = [0]
        for k in keys:
            if isinstance(k, str):
                k = k.encode()
            elif isinstance(k, int):
                k = (k % 2**64).to_bytes(8, "little")
            data += k
            offsets.append(len(data))
        d = (ctypes.c_char * max(len(data), 1)).from_buffer_copy(bytes(data) or b"\0")
        o = (ctypes.c_uint32 * len(offsets))(*offsets)
        return d, len(data), o, len(keys)

    def export(self, family: str, buf: np.ndarray, size: int) -> bytes:
        out = ctypes.create_string_buffer(size)
        written = ctypes.c_size_t()
        self.call(f"sketch_{family}_export", self.ptr(buf), ctypes.c_size_t(size), out, ctypes.c_size_t(size),
                  ctypes.byref(written))
        return out.raw[: written.value]

    def size(self, family: str, *args) -> int:
        n = ctypes.c_uint64()
        self.call(f"sketch_{family}_size", *args, ctypes.byref(n))
        return n.value


def _find_lib() -> Path | None:
    env = os.environ.get("SKETCHES_LIB")
    if env:
        return Path(env)
    p = ROOT / "target" / "release" / "libsketches.so"
    return p if p.exists() else None


@pytest.fixture(scope="session")
def clib() -> CLib:
    path = _find_lib()
    if path is None:
        if os.environ.get("SKETCHES_REQUIRE_CLIB"):
            pytest.fail("libsketches.so not found (cargo build --release -p sketches-clib)")
        pytest.skip("libsketches.so not built (cargo build --release -p sketches-clib)")
    return CLib(path)
