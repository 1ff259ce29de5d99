"""Properties with hypothesis (bounded examples): no false negatives (the
binary fuse filter included), merge equals one sketch of both streams
(ExaLogLog across precisions too), export/import is the identity."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import sketches

KEY = st.one_of(st.text(max_size=12), st.binary(max_size=12), st.integers(min_value=-(2**63), max_value=2**64 - 1))
KEYS = st.lists(KEY, max_size=200)
SETTINGS = settings(max_examples=40, deadline=None)


def _filters():
    return [sketches.BloomFilter(500, 0.01, seed=1), sketches.SplitBlockBloomFilter(500, 0.01, seed=1),
            sketches.CountingBloomFilter(500, 0.01, seed=1), sketches.CuckooFilter(500, 0.01, seed=1)]


@SETTINGS
@given(KEYS, KEYS)
def test_no_false_negatives(keys, others) -> None:
    for f in _filters():
        first = f.add_many(keys)
        added = list(first) if isinstance(f, sketches.CuckooFilter) else [True] * len(keys)
        for k in others:
            try:
                f.add(k)
                added.append(True)
            except sketches.SketchError as e:  # a cuckoo bucket pair holds 8 copies of one key
                assert e.status == sketches.status.FULL
                added.append(False)
        stored = [k for k, ok in zip(keys + others, added) if ok]
        assert all(k in f for k in stored)
        assert f.contains_many(stored).all()


@SETTINGS
@given(KEYS, KEYS, st.sampled_from([8, 16]), st.integers(min_value=0, max_value=2**64 - 1))
def test_fuse_has_no_false_negatives(keys, others, bits, seed) -> None:
    f = sketches.BinaryFuseFilter(keys, fingerprint_bits=bits, seed=seed)
    assert all(k in f for k in keys)
    assert f.contains_many(keys).all() and len(f.contains_many(keys)) == len(keys)
    assert len(f) <= f.planned_keys == len(keys)
    both = sketches.BinaryFuseFilter(keys + others, fingerprint_bits=bits, seed=seed)
    assert both.contains_many(keys + others).all()


@SETTINGS
@given(KEYS, KEYS, st.sampled_from([(8, 24), (8, 20), (6, 20)]))
def test_ell_merge_equals_one_sketch_of_both_streams(a, b, low) -> None:
    """Disjoint or overlapping streams merged (also from a higher precision
    and d) hold exactly the registers of one sketch of everything."""
    x, y = sketches.ExaLogLog(8, d=24, seed=4), sketches.ExaLogLog(low[0], d=low[1], seed=4)
    x.add_many(a)
    y.add_many(b)
    both = sketches.ExaLogLog(low[0], d=low[1], seed=4)
    both.add_many(a + b)
    u = x | y
    assert (u.registers() == both.registers()).all() and u.ml_estimate() == both.ml_estimate()
    y.merge(x)
    assert y == u


@SETTINGS
@given(KEYS, KEYS)
def test_merge_equals_one_sketch_of_both_streams(a, b) -> None:
    makers = [
        lambda: sketches.BloomFilter(500, 0.01, seed=2),
        lambda: sketches.SplitBlockBloomFilter(500, 0.01, seed=2),
        lambda: sketches.HyperLogLog(8, seed=2),
        lambda: sketches.UltraLogLog(8, seed=2),
        lambda: sketches.MinHash(32, seed=2),
        lambda: sketches.CountMinSketch(width=64, depth=3, seed=2),
        lambda: sketches.CountingBloomFilter(500, 0.01, seed=2),
    ]
    for make in makers:
        x, y, both = make(), make(), make()
        x.add_many(a)
        y.add_many(b)
        both.add_many(a + b)
        merged = x.copy()
        merged.merge(y)
        if isinstance(both, (sketches.HyperLogLog, sketches.UltraLogLog)):
            # Registers equal; the estimator state records that a merge happened.
            assert (merged.registers() == both.registers()).all()
            assert merged.register_estimate() == both.register_estimate()
        elif isinstance(both, (sketches.CountMinSketch, sketches.MinHash)):
            assert merged == both
        elif isinstance(both, sketches.CountingBloomFilter):
            assert merged.contains_many(a + b).all() and len(merged) == len(both)
            assert (merged + both).contains_many(a + b).all()
        else:
            # Bloom bits: OR of both equals the filter of both streams.
            hl = sketches.inspect(bytes(both))["header_bytes"]
            assert bytes(merged)[hl:] == bytes(both)[hl:]
            assert (x | y) == merged


@SETTINGS
@given(KEYS, st.integers(min_value=0, max_value=2**64 - 1))
def test_export_import_identity(keys, seed) -> None:
    for s in (sketches.BloomFilter(300, 0.05, seed=seed), sketches.SplitBlockBloomFilter(300, seed=seed),
              sketches.CountingBloomFilter(300, seed=seed), sketches.CuckooFilter(300, seed=seed),
              sketches.HyperLogLog(6, seed=seed), sketches.UltraLogLog(6, seed=seed),
              sketches.CountMinSketch(width=32, depth=2, seed=seed), sketches.TopK(8, 16, seed=seed),
              sketches.MinHash(16, seed=seed), sketches.ExaLogLog(4, seed=seed),
              sketches.ExaLogLog(6, d=24, seed=seed)):
        if isinstance(s, sketches.TopK):
            keys = [k for k in keys if len(k if isinstance(k, bytes) else str(k).encode()) <= 8]
        try:
            s.add_many(keys)
        except sketches.SketchError as e:  # TopK keys over 16 bytes
            assert e.status == sketches.status.KEY_TOO_LONG
        data = bytes(s)
        back = type(s).from_bytes(data)
        assert back == s and bytes(back) == data and back.seed == seed
    for bits in (8, 16):
        f = sketches.BinaryFuseFilter(keys, fingerprint_bits=bits, seed=seed)
        data = bytes(f)
        back = sketches.BinaryFuseFilter.from_bytes(data)
        assert back == f and bytes(back) == data and back.seed == seed


@SETTINGS
@given(st.lists(st.integers(min_value=0, max_value=50), max_size=300))
def test_countmin_and_topk_bounds(stream) -> None:
    cm = sketches.CountMinSketch(width=16, depth=3)
    tk = sketches.TopK(8, 8)
    cm.add_many(stream)
    tk.add_many(stream)
    for k in set(stream):
        true = stream.count(k)
        assert cm[k] >= true
        count, err = tk.estimate(k)
        assert count - err <= true <= count
        if true > len(stream) / 8:
            assert k in tk
