"""Damaged and hostile bytes raise SketchError and never crash: random bit
flips, truncations, extensions and edited header fields of every golden
image, and random bytes with a valid-looking header."""

from __future__ import annotations

import random

import numpy as np
import pytest

import sketches
from conftest import golden
from test_golden import FAMILY, KINDS


@pytest.mark.parametrize("kind", KINDS)
def test_flips_truncations_extensions_raise(kind: str) -> None:
    cls = FAMILY[kind]
    data = golden(kind)
    rng = random.Random(kind)
    for _ in range(300):
        b = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        with pytest.raises(sketches.SketchError) as e:
            cls.from_bytes(bytes(b))
        assert e.value.status > 0 and isinstance(e.value, ValueError)
        with pytest.raises(sketches.SketchError):
            cls.verify(bytes(b))
    for n in list(range(0, 64)) + [len(data) // 2, len(data) - 8, len(data) - 1]:
        with pytest.raises(sketches.SketchError):
            cls.from_bytes(data[:n])
    for extra in (b"\0", b"\0" * 8, b"x" * 64):
        with pytest.raises(sketches.SketchError) as e:
            cls.from_bytes(data + extra)
        assert e.value.status == sketches.status.LENGTH_MISMATCH


@pytest.mark.parametrize("kind", KINDS)
def test_wrapping_garbage_is_memory_safe(kind: str) -> None:
    """wrap checks only the header: any body bytes give answers, never a crash."""
    cls = FAMILY[kind]
    data = golden(kind)
    if kind == "hll_small":
        return  # compact: wrap refuses it (test_golden)
    rng = np.random.default_rng(1)
    arr = np.zeros(len(data) // 8, dtype=np.uint64)
    mv = memoryview(arr).cast("B")
    mv[:] = data
    hl = sketches.inspect(data)["header_bytes"]
    mv[hl:] = rng.integers(0, 256, len(data) - hl, dtype=np.uint8).tobytes()
    try:
        s = cls.wrap(arr)
    except sketches.SketchError:
        return
    keys = [f"k{i}" for i in range(200)]
    for name in ("contains_many", "estimate_many"):
        if hasattr(s, name):
            getattr(s, name)(keys)
    try:
        s.add_many(keys)
    except sketches.SketchError:
        pass
    repr(s)
    with pytest.raises(sketches.SketchError):
        cls.from_bytes(bytes(mv))  # the checked path does see the damage


def test_other_families_and_junk_are_refused() -> None:
    for kind in KINDS:
        data = golden(kind)
        for cls in set(FAMILY.values()):
            if cls is FAMILY[kind]:
                continue
            with pytest.raises(sketches.SketchError) as e:
                cls.from_bytes(data)
            assert e.value.status == sketches.status.WRONG_FAMILY
    rng = random.Random(5)
    for _ in range(200):
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
        with pytest.raises(sketches.SketchError):
            sketches.BloomFilter.from_bytes(junk)
    newer = bytearray(golden("bloom"))
    newer[4] = 2
    with pytest.raises(sketches.SketchError) as e:
        sketches.BloomFilter.from_bytes(bytes(newer))
    assert e.value.status == sketches.status.UNSUPPORTED_VERSION
    with pytest.raises(TypeError):
        sketches.BloomFilter.from_bytes("not bytes")
