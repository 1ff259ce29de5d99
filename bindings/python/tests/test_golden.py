"""The golden images (tests/golden/*.img): built here from the same inputs as
tests/tests/golden.rs they are byte-identical, both with single calls and
with batches (the static binary fuse filter: built from a generator and
from one array); read back they re-export byte-identically and answer what
golden.rs checks."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import sketches
from conftest import golden

KEYS = 1000
NAMES = [f"golden-{i}" for i in range(KEYS)]


def build(kind: str, batch: bool):
    """The sketch golden.rs builds for `kind`, through single calls or batches."""
    if kind == "bloom":
        s = sketches.BloomFilter(KEYS, 0.01, seed=42)
    elif kind == "sbbf":
        s = sketches.SplitBlockBloomFilter(KEYS, 0.01, seed=42)
    elif kind == "sbbf_parquet":
        s = sketches.SplitBlockBloomFilter(KEYS, 0.01, parquet=True)
    elif kind == "counting":
        s = sketches.CountingBloomFilter(KEYS, 0.01, seed=42)
    elif kind == "cuckoo":
        s = sketches.CuckooFilter(KEYS, 0.01, seed=42)
    elif kind in ("hll_small", "hll_dense"):
        s = sketches.HyperLogLog(12, seed=42)
    elif kind == "ull":
        s = sketches.UltraLogLog(10, seed=42)
    elif kind == "minhash":
        s = sketches.MinHash(128, seed=42)
    elif kind == "countmin":
        s = sketches.CountMinSketch(width=500, depth=3, conservative=True, counter_bits=64, seed=42)
    elif kind == "topk":
        s = sketches.TopK(64, 16, seed=42)
    elif kind in ("fuse8", "fuse16"):
        # Static: built once from every key (a generator, or one NumPy object array).
        bits = 8 if kind == "fuse8" else 16
        keys = np.array(NAMES + [7], dtype=object) if batch else (k for k in NAMES + [7])
        return sketches.BinaryFuseFilter(keys, fingerprint_bits=bits, seed=42)
    elif kind in ("ell", "ell_d24"):
        s = sketches.ExaLogLog(10, d=20 if kind == "ell" else 24, seed=42)
    else:
        raise AssertionError(kind)
    names = NAMES[:200] if kind == "hll_small" else NAMES
    if kind == "countmin":
        weights = [1 + i % 3 for i in range(KEYS)]
        if batch:
            s.add_many(pa.array(names), np.array(weights, dtype=np.uint64))
        else:
            for k, w in zip(names, weights):
                s.add(k, w)
        s.add(7, 80_000)
    elif kind == "topk":
        keys = [f"golden-{i % 97 % (1 + i % 13)}" for i in range(KEYS)]
        weights = [1 + i % 4 for i in range(KEYS)]
        if batch:
            s.add_many(keys, weights)
        else:
            for k, w in zip(keys, weights):
                s.add(k, w)
        s.add(7, 5000)
    else:
        if batch:
            if kind == "ull":
                s.add_many(pa.array(names, pa.large_string()))
            elif kind.startswith("ell"):
                s.add_many(pa.array([n.encode() for n in names], pa.binary()))
            else:
                s.add_many(names)
        else:
            for k in names:
                s.add(k)
        if kind == "sbbf_parquet":
            s.add(np.uint64(7))  # the key 7's 8 bytes (an INT64 value): a Python int has no Parquet width
        elif kind != "minhash":
            s.add(7)
        if kind == "counting":
            s.add(7)
            s.remove(NAMES[0])
        if kind == "cuckoo":
            s.remove(NAMES[0])
    return s


KINDS = ["bloom", "sbbf", "sbbf_parquet", "counting", "cuckoo", "hll_small", "hll_dense", "ull",
         "countmin", "minhash", "topk", "fuse8", "fuse16", "ell", "ell_d24"]

FAMILY = {
    "bloom": sketches.BloomFilter,
    "sbbf": sketches.SplitBlockBloomFilter,
    "sbbf_parquet": sketches.SplitBlockBloomFilter,
    "counting": sketches.CountingBloomFilter,
    "cuckoo": sketches.CuckooFilter,
    "hll_small": sketches.HyperLogLog,
    "hll_dense": sketches.HyperLogLog,
    "ull": sketches.UltraLogLog,
    "countmin": sketches.CountMinSketch,
    "minhash": sketches.MinHash,
    "topk": sketches.TopK,
    "fuse8": sketches.BinaryFuseFilter,
    "fuse16": sketches.BinaryFuseFilter,
    "ell": sketches.ExaLogLog,
    "ell_d24": sketches.ExaLogLog,
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_python_builds_the_golden_bytes(kind: str, batch: bool) -> None:
    assert bytes(build(kind, batch)) == golden(kind)


@pytest.mark.parametrize("kind", KINDS)
def test_golden_images_read_and_reexport_identically(kind: str) -> None:
    data = golden(kind)
    cls = FAMILY[kind]
    cls.verify(data)
    s = cls.from_bytes(data)
    assert bytes(s) == data
    assert sketches.inspect(data)["family"] == cls.__name__
    if kind in ("bloom", "sbbf", "sbbf_parquet"):
        assert all(k in s for k in NAMES) and (np.uint64(7) if kind == "sbbf_parquet" else 7) in s
        assert s.contains_many(NAMES).all()
        assert s.add_calls == KEYS + 1
    elif kind == "counting":
        assert all(k in s for k in NAMES[1:]) and 7 in s
        assert len(s) == KEYS + 1
    elif kind == "cuckoo":
        assert all(k in s for k in NAMES[1:]) and 7 in s
        assert len(s) == KEYS
    elif kind == "hll_small":
        assert len(data) == 384 + 201 * 8
        assert s.estimate() == 201.0 and s.mode == "small"
    elif kind == "hll_dense":
        assert abs(s.estimate() - 1001) < 0.1 * 1001 and s.mode == "dense"
    elif kind == "ull":
        assert abs(s.estimate() - 1001) < 0.1 * 1001
    elif kind == "countmin":
        est = s.estimate_many(NAMES)
        assert (est > np.arange(KEYS) % 3).all()
        assert s[7] == 80_000
    elif kind == "minhash":
        assert s.jaccard(s) == 1.0 and s.filled == 128
    elif kind == "topk":
        key, count, _ = s.top(1)[0]
        assert (key, count) == ((7).to_bytes(8, "little"), 5000)
    elif kind in ("fuse8", "fuse16"):
        bits = 8 if kind == "fuse8" else 16
        assert all(k in s for k in NAMES) and (np.uint64(7) if kind == "sbbf_parquet" else 7) in s
        assert s.contains_many(NAMES + [7]).all()
        assert (len(s), s.planned_keys, s.fingerprint_bits, s.seed) == (KEYS + 1, KEYS + 1, bits, 42)
        # About 2^-bits of absent keys pass (golden.rs's bound).
        passed = int(s.contains_many([f"absent-{i}" for i in range(100_000)]).sum())
        assert passed < 100_000 >> (bits - 2), passed
    elif kind in ("ell", "ell_d24"):
        assert (s.precision, s.d, s.t, s.seed) == (10, 20 if kind == "ell" else 24, 2, 42)
        assert s.martingale and s.martingale_estimate() == s.estimate()
        for e in (s.martingale_estimate(), s.ml_estimate()):
            assert abs(e - 1001) < 0.1 * 1001
        # Adding the same keys again changes nothing.
        again = s.copy()
        assert not any(again.add(k) for k in NAMES) and not again.add(7)
        again.add_many(NAMES)
        assert bytes(again) == data


@pytest.mark.parametrize("kind", KINDS)
def test_golden_images_wrap_zero_copy(kind: str) -> None:
    """Exported bytes copied into aligned memory (NumPy) are wrapped in place
    (wrap skips the checksum); a compact small-mode HLL export must be
    imported first."""
    cls = FAMILY[kind]
    data = golden(kind)
    arr = np.zeros((len(data) + 7) // 8, dtype=np.uint64)
    memoryview(arr).cast("B")[: len(data)] = data
    if kind == "hll_small":
        with pytest.raises(sketches.SketchError) as e:
            cls.wrap(arr)
        assert e.value.status == sketches.status.COMPACT_IMAGE
        return
    w = cls.wrap(arr)
    assert bytes(w) == data
    assert w == cls.from_bytes(data)
