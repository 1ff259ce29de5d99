"""Damaged and hostile bytes raise SketchError and never crash: random bit
flips, truncations, extensions and edited header fields of every golden
image, and random bytes with a valid-looking header."""

from __future__ import annotations

import random

import numpy as np
import pytest

import sketches
from conftest import golden
from sketches import status
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
    if hasattr(s, "add_many"):  # not the static binary fuse filter
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


def _reseal(b: bytes) -> bytes:
    """The bytes with a valid checksum (image.rs: XXH3-64 of bytes 40.. seeded
    with the XXH3-64 of bytes 0..32): forged content reaches the body checks."""
    out = bytearray(b)
    out[32:40] = sketches.hash(bytes(out[40:]), sketches.hash(bytes(out[:32]))).to_bytes(8, "little")
    return bytes(out)


# Family-header bytes whose every value is legal, so a forged one imports:
# the fuse filter's build attempts (51, 1..100), stored keys (64..72, up to
# the planned count) and fuse seed (72..80); ExaLogLog's martingale
# estimate (56..64, any finite non-negative double).
FREE = {"fuse8": {51, *range(64, 80)}, "fuse16": {51, *range(64, 80)},
        "ell": set(range(56, 64)), "ell_d24": set(range(56, 64))}


@pytest.mark.parametrize("kind", ["fuse8", "fuse16", "ell", "ell_d24"])
def test_forged_headers_with_valid_checksums(kind: str) -> None:
    """Every family-header byte edited and the checksum recomputed: the
    import refuses what no build or stream writes, and what it accepts
    answers without crashing."""
    cls = FAMILY[kind]
    data = golden(kind)
    assert cls.from_bytes(_reseal(data)) == cls.from_bytes(data)
    probe = [f"golden-{i}" for i in range(50)] + [f"absent-{i}" for i in range(50)]
    for off in range(48, 128):
        for v in (0, 1, 2, 3, 7, 0x80, 0xFF):
            b = bytearray(data)
            if b[off] == v:
                continue
            b[off] = v
            try:
                s = cls.from_bytes(_reseal(bytes(b)))
            except sketches.SketchError as e:
                assert e.status in (status.CORRUPT_HEADER, status.CORRUPT_BODY,
                                                          status.LENGTH_MISMATCH, status.INVALID_PARAMETER)
                continue
            assert off in FREE[kind], (off, v)
            if cls is sketches.BinaryFuseFilter:
                assert s.contains_many(probe).shape == (100,)
            else:
                assert s.estimate() >= 0 and s.ml_estimate() > 900


@pytest.mark.parametrize("kind", KINDS)
def test_forged_common_and_family_headers_of_every_family(kind: str) -> None:
    """Every header byte of every family's golden image edited, the checksum
    recomputed (a hostile writer's bytes): from_bytes either raises
    SketchError with a status, or gives a sketch whose image verifies and
    exports back to the same bytes. Never another exception (a panic in the
    import's sizing, import_size, or the import itself)."""
    cls = FAMILY[kind]
    data = golden(kind)
    header = sketches.inspect(data)["header_bytes"]
    for off in range(header):
        if 32 <= off < 40:
            continue  # the checksum itself
        for v in (0, 1, 0x40, 0x80, 0xFF):
            b = bytearray(data)
            if b[off] == v:
                continue
            b[off] = v
            forged = _reseal(bytes(b))
            try:
                s = cls.from_bytes(forged)
            except sketches.SketchError as e:
                assert e.status > 0, (off, v)
                continue
            cls.verify(bytes(s))
            if kind != "hll_small":  # compact: the import expands it
                assert bytes(s) == forged, (off, v)


def test_forged_bodies_with_valid_checksums() -> None:
    """Fuse fingerprints are all legal (wrong ones give wrong answers, never a
    crash) but the zero padding is checked; an ExaLogLog register no stream
    can produce is CORRUPT_BODY."""
    data = golden("fuse8")
    s = sketches.BinaryFuseFilter.from_bytes(data)
    body = bytearray(data)
    rng = np.random.default_rng(3)
    end = 128 + s.stats()["array_len"]
    body[128:end] = rng.integers(0, 256, end - 128, dtype=np.uint8).tobytes()
    forged = sketches.BinaryFuseFilter.from_bytes(_reseal(bytes(body)))
    forged.contains_many([f"golden-{i}" for i in range(1000)])
    small = sketches.BinaryFuseFilter(["a", "b", "c"], seed=1)
    padded = bytearray(bytes(small))
    assert 128 + small.stats()["array_len"] < len(padded)  # 24 fingerprints, padded to 64 bytes
    padded[-1] = 1
    with pytest.raises(sketches.SketchError) as e:
        sketches.BinaryFuseFilter.from_bytes(_reseal(bytes(padded)))
    assert e.value.status == status.CORRUPT_BODY
    for kind in ("ell", "ell_d24"):
        b = bytearray(golden(kind))
        b[128:132] = b"\xff\xff\xff\xff"  # register 0: update value 255, above any hash's
        with pytest.raises(sketches.SketchError) as e:
            sketches.ExaLogLog.from_bytes(_reseal(bytes(b)))
        assert e.value.status == status.CORRUPT_BODY
