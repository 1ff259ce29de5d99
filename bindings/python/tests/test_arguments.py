"""Weights, precomputed hashes and bools: one rule for a single value and a
batch. A value outside 0 .. 2**64-1 raises ValueError naming it (a single
negative weight raised OverflowError, the batch ValueError), a bool or a
float TypeError (``add(key, True)`` was the weight 1, ``add_hash(True)`` the
hash 1, ``add_many(keys, [True, 2])`` took True as 1 while ``[True]`` was
refused); nothing changes when a call fails."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import sketches


def _weighted():
    return [sketches.CountMinSketch(0.01), sketches.TopK(8)]


@pytest.mark.parametrize("bad", [-1, -(2**70), 2**64, np.int64(-1), np.int8(-3)])
@pytest.mark.parametrize("kind", ["countmin", "topk"])
def test_out_of_range_weights_raise_valueerror_single_and_batch(kind: str, bad) -> None:
    s = _weighted()[kind == "topk"]
    shown = str(int(bad))
    with pytest.raises(ValueError, match=f"weight .*{shown}.* out of range"):
        s.add("k", bad)
    with pytest.raises(ValueError, match=f"weight {shown} at index 1 is out of range"):
        s.add_many(["j", "k"], [1, bad])
    with pytest.raises(ValueError, match=f"weight {shown} at index 0 is out of range"):
        s.add_many(["k"], np.array([bad], dtype=object))
    if -(2**63) <= int(bad) < 0:
        with pytest.raises(ValueError, match=f"weight {shown} at index 0 is out of range"):
            s.add_many(["k"], np.array([bad], dtype=np.int64))
        with pytest.raises(ValueError, match=f"weight {shown} at index 0 is out of range"):
            s.add_many(["k"], pa.array([bad], pa.int64()))
    assert s.total == 0


@pytest.mark.parametrize("kind", ["countmin", "topk"])
def test_bool_and_float_weights_raise_typeerror_single_and_batch(kind: str) -> None:
    s = _weighted()[kind == "topk"]
    for bad in (True, False, np.True_, 2.0, "3"):
        with pytest.raises(TypeError):
            s.add("k", bad)
    for batch in ([True], [2, True], [2**64 - 1, 1.5], np.array([True]), np.array([1.0]), pa.array([True])):
        with pytest.raises(TypeError):
            s.add_many(["j", "k"][: len(batch)], batch)
    assert s.total == 0
    s.add("k", np.uint64(2**64 - 1) if kind == "topk" else np.uint32(7))
    s.add_many(["a", "b"], [2**64 - 1, 0])
    s.add_many([], [])
    s.add_many(np.array([], np.uint64), np.array([], np.float64))


def test_a_list_mixing_huge_and_negative_weights_names_the_negative_one() -> None:
    """NumPy turned [2**64 - 1, -1] into floats and the error said 'not integers'."""
    with pytest.raises(ValueError, match="weight -1 at index 1"):
        sketches.CountMinSketch(0.01).add_many(["a", "b"], [2**64 - 1, -1])


@pytest.mark.parametrize("concurrent", [False, True])
def test_hashes_follow_the_weight_rule(concurrent: bool) -> None:
    f = sketches.SplitBlockBloomFilter(100)
    g = f.concurrent() if concurrent else f
    for bad in (-1, 2**64, np.int64(-5)):
        with pytest.raises(ValueError, match=f"hash .*{int(bad)}.* out of range"):
            g.add_hash(bad)
        with pytest.raises(ValueError, match=f"hash .*{int(bad)}.* out of range"):
            g.contains_hash(bad)
        with pytest.raises(ValueError, match=f"hash {int(bad)} at index 0 is out of range"):
            g.add_hashes([bad])
    for bad in (True, np.True_, 1.0):
        with pytest.raises(TypeError):
            g.add_hash(bad)
        with pytest.raises(TypeError):
            g.contains_hash(bad)
        with pytest.raises(TypeError):
            g.add_hashes([7, bad])
    snapshot = g.snapshot() if concurrent else g
    assert len(snapshot) == 0 and snapshot.add_calls == 0
    assert g.add_hash(np.uint64(2**64 - 1)) and g.contains_hash(2**64 - 1)


def test_bool_keys_are_refused_like_numpy_and_arrow_bools() -> None:
    """``add(True)`` added the integer key 1, while a NumPy bool (scalar or
    array) and a pyarrow bool column were refused, and C++ refuses a bool key."""
    for make in (lambda: sketches.BloomFilter(100), lambda: sketches.HyperLogLog(10), lambda: sketches.TopK(4)):
        s = make()
        with pytest.raises(TypeError, match="bool"):
            s.add(True)
        with pytest.raises(TypeError, match="bool"):
            s.add_many([1, False])
        assert bytes(s) == bytes(make())
    with pytest.raises(TypeError, match="bool"):
        sketches.hash(True)
    with pytest.raises(TypeError, match="bool"):
        sketches.hash_many([True])
    with pytest.raises(TypeError):
        sketches.BloomFilter(100).add_many(np.array([True]))
    with pytest.raises(TypeError):
        sketches.BloomFilter(100).add_many(pa.array([True]))
    c = sketches.BloomFilter(100).concurrent()
    with pytest.raises(TypeError, match="bool"):
        c.add(True)
    assert sketches.hash(1) == sketches.hash(int(True))
