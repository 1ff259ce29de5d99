"""Key shapes: every batch shape gives the same answers as single keys; the
hashing rule (str UTF-8, bytes as is, int 8 little-endian bytes, negative
ints two's complement); Arrow arrays zero-copy with slices and nulls."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import sketches

WORDS = [f"present-{i}" for i in range(2000)] + ["", "日本語", "emoji-\U0001f600"]


def fresh():
    f = sketches.BloomFilter(10_000, 0.001, seed=3)
    f.add_many(WORDS[::2])
    return f


def expected(f, keys):
    return np.array([k is not None and k in f for k in keys])


def test_hash_rule() -> None:
    assert sketches.hash("abc") == sketches.hash(b"abc") == sketches.hash(bytearray(b"abc"))
    assert sketches.hash(memoryview(b"abc")) == sketches.hash("abc")
    assert sketches.hash(5) == sketches.hash((5).to_bytes(8, "little"))
    assert sketches.hash(-1) == sketches.hash(2**64 - 1)
    assert sketches.hash(np.int64(-1)) == sketches.hash(-1)
    assert sketches.hash(np.uint32(5)) == sketches.hash(5)
    with pytest.raises(TypeError):  # a bool is not the integer key 1 (test_arguments.py)
        sketches.hash(True)
    assert sketches.hash("é") == sketches.hash("é".encode("utf-8"))
    with pytest.raises(OverflowError):
        sketches.hash(2**64)
    with pytest.raises(OverflowError):
        sketches.hash(-(2**63) - 1)
    with pytest.raises(TypeError):
        sketches.hash(1.5)
    with pytest.raises(TypeError):
        sketches.hash(None)
    with pytest.raises(UnicodeEncodeError):
        sketches.hash("\ud800")


def test_string_shapes_agree() -> None:
    f = fresh()
    want = expected(f, WORDS)
    assert (f.contains_many(WORDS) == want).all()
    assert (f.contains_many(tuple(WORDS)) == want).all()
    assert (f.contains_many(iter(WORDS)) == want).all()
    assert (f.contains_many([w.encode() for w in WORDS]) == want).all()
    assert (f.contains_many(np.array(WORDS, dtype=object)) == want).all()
    assert (f.contains_many(np.array(WORDS)) == want).all()  # '<U' array
    for t in (pa.string(), pa.large_string(), pa.binary(), pa.large_binary()):
        arr = pa.array(WORDS, t)
        assert (f.contains_many(arr) == want).all(), t
        assert (f.contains_many(arr.slice(7, 500)) == want[7:507]).all(), t
        chunked = pa.chunked_array([arr.slice(0, 100), arr.slice(100)])
        assert (f.contains_many(chunked) == want).all(), t
    assert (f.contains_many(pa.array(WORDS).dictionary_encode()) == want).all()
    if hasattr(pa, "string_view"):
        assert (f.contains_many(pa.array(WORDS, pa.string_view())) == want).all()


def test_nulls_are_skipped() -> None:
    f = fresh()
    keys = [w if i % 3 else None for i, w in enumerate(WORDS)]
    want = expected(f, keys)
    assert (f.contains_many(keys) == want).all()
    arr = pa.array(keys)
    assert arr.null_count > 0
    assert (f.contains_many(arr) == want).all()
    assert (f.contains_many(arr.slice(5)) == want[5:]).all()
    assert (f.contains_many(arr.cast(pa.large_binary()).slice(3, 100)) == want[3:103]).all()
    g = sketches.BloomFilter(10_000, 0.001, seed=3)
    new = g.add_many(arr)
    assert not new[::3].any()  # nulls: nothing added, reported False
    assert g.add_calls == len(keys) - arr.null_count
    ints = pa.array([1, None, 3], pa.int64())
    h = sketches.HyperLogLog()
    h.add_many(ints)
    assert h.estimate() == 2


def test_integer_shapes_agree() -> None:
    f = sketches.BloomFilter(10_000, 0.001, seed=1)
    f.add_many(np.arange(0, 4000, 2, dtype=np.int64))
    ints = list(range(-5, 4000)) + [2**64 - 1, 2**63]
    want = np.array([i in f for i in ints])
    assert want[5:].reshape(-1)[0::2][:2000].all()
    assert (f.contains_many(ints) == want).all()
    u = np.array([i % 2**64 for i in ints], dtype=np.uint64)
    assert (f.contains_many(u) == want).all()
    assert (f.contains_many(u.view(np.int64)) == want).all()
    assert (f.contains_many(pa.array(u)) == want).all()
    assert (f.contains_many(pa.array(u.view(np.int64))) == want).all()
    small = np.arange(-5, 100, dtype=np.int32)
    assert (f.contains_many(small) == want[: len(small)]).all()
    assert (f.contains_many(small.astype(np.int8)) == want[: len(small)]).all()
    assert (f.contains_many(pa.array(small)) == want[: len(small)]).all()
    strided = np.arange(0, 4000, dtype=np.int64)[::2]
    assert f.contains_many(strided).all()
    be = np.arange(0, 4000, 2, dtype=">i8")
    assert f.contains_many(be).all()
    with pytest.raises(TypeError):
        f.contains_many(np.array([1.5, 2.5]))
    with pytest.raises(ValueError):
        f.contains_many(np.zeros((2, 2), dtype=np.int64))


def test_bad_batches_raise() -> None:
    f = fresh()
    with pytest.raises(TypeError):
        f.add_many("abc")
    with pytest.raises(TypeError):
        f.add_many(b"abc")
    with pytest.raises(TypeError):
        f.add_many([1.5])
    with pytest.raises(TypeError):
        f.contains_many(pa.array([1.5]))
    before = bytes(f)
    with pytest.raises(TypeError):
        f.add_many(["ok", 1.5])  # keys are read before anything changes
    assert bytes(f) == before
    assert f.contains_many([]).shape == (0,)
    assert f.contains_many(np.zeros(0, np.uint64)).shape == (0,)
    assert f.contains_many(pa.array([], pa.string())).shape == (0,)


def test_hostile_arrow_offsets_raise(monkeypatch) -> None:
    """Offsets that point past the data, decrease, or run past their buffer
    are refused before anything is read or changed (pyarrow validates its
    own arrays; the native layer does not rely on it)."""
    import sketches._keys as keys_mod

    data = pa.py_buffer(b"abcdef")
    cases = [
        ("bin32", np.array([0, 3, 100], dtype=np.int32), 2),
        ("bin32", np.array([0, 5, 3], dtype=np.int32), 2),
        ("bin32", np.array([0, 3], dtype=np.int32), 5),
        ("bin64", np.array([0, -1, 3], dtype=np.int64), 2),
        ("ints", None, 2),
    ]
    f = fresh()
    before = bytes(f)
    for kind, offsets, n in cases:
        off = None if offsets is None else pa.py_buffer(offsets.tobytes())
        piece = (kind, None, off, data, 0, n)
        monkeypatch.setattr(keys_mod, "_arrow_pieces", lambda arr, pa_, p=piece: [p])
        with pytest.raises(ValueError):
            f.add_many(pa.array(["x", "y"]))
        with pytest.raises(ValueError):
            f.contains_many(pa.array(["x", "y"]))
    assert bytes(f) == before


def test_all_families_take_all_shapes() -> None:
    keys = pa.array([f"k{i}" for i in range(500)])
    for s in (sketches.SplitBlockBloomFilter(1000), sketches.CountingBloomFilter(1000),
              sketches.CuckooFilter(1000)):
        s.add_many(keys)
        assert s.contains_many(keys.cast(pa.large_string())).all()
    for cls, arg in ((sketches.HyperLogLog, 12), (sketches.UltraLogLog, 12), (sketches.MinHash, 64)):
        s, a = cls(arg), cls(arg)
        s.add_many(keys)
        a.add_many(keys.to_pylist())
        assert s == a, cls
    ell, ell_list = sketches.ExaLogLog(10, d=24), sketches.ExaLogLog(10, d=24)
    ell.add_many(pa.chunked_array([keys.slice(0, 99), keys.slice(99)]))
    ell_list.add_many(keys.to_pylist())
    assert ell == ell_list
    ints = sketches.ExaLogLog(10)
    ints.add_many(np.arange(-5, 100, dtype=np.int32))
    one_by_one = sketches.ExaLogLog(10)
    for i in range(-5, 100):
        one_by_one.add(i)
    assert ints == one_by_one
    fuse = sketches.BinaryFuseFilter(keys.slice(3, 400))
    assert fuse == sketches.BinaryFuseFilter(keys.to_pylist()[3:403])
    assert (fuse.contains_many(keys) == np.array([3 <= i < 403 or k in fuse
                                                  for i, k in enumerate(keys.to_pylist())])).all()
    for ints_src in (np.arange(300, dtype=np.int64), np.arange(300, dtype=np.uint16), pa.array(range(300)),
                     list(range(300))):
        assert sketches.BinaryFuseFilter(ints_src) == sketches.BinaryFuseFilter(np.arange(300, dtype=np.uint64))
    c = sketches.CuckooFilter(1000)
    c.add_many(keys)
    for shape in (keys.slice(0, 100), keys.slice(100, 100).cast(pa.large_string()), keys.to_pylist()[200:300],
                  np.array(keys.to_pylist()[300:400], dtype=object),
                  pa.array([k if i % 2 else None for i, k in enumerate(keys.to_pylist()[400:])])):
        removed = c.remove_many(shape)
        assert removed.dtype == np.bool_ and len(removed) == len(shape)
        nulls = [v is None for v in (shape.to_pylist() if isinstance(shape, pa.Array) else list(shape))]
        assert (removed == ~np.array(nulls)).all()
    # The keys behind the nulls stayed; the removed ones are gone (up to false positives).
    assert len(c) == 50 and c.contains_many(keys.to_pylist()[400:][::2]).all()
    assert c.contains_many(keys.to_pylist()[:400] + keys.to_pylist()[401::2]).sum() <= 10
    nums = sketches.CuckooFilter(1000)
    nums.add_many(np.arange(100, dtype=np.uint64))
    assert nums.remove_many(np.arange(50, 150, dtype=np.int64)).sum() == 50 and len(nums) == 50
    cm = sketches.CountMinSketch(0.01)
    cm.add_many(keys, pa.array(np.arange(500, dtype=np.uint64)))
    assert (cm.estimate_many(keys) >= np.arange(500)).all()
    t = sketches.TopK(20, 8)
    t.add_many(keys.slice(10, 100))
    t2 = sketches.TopK(20, 8)
    t2.add_many(keys.to_pylist()[10:110])
    assert t == t2


def _misaligned_u64(values) -> np.ndarray:
    """A uint64 array starting at an odd address (as np.frombuffer(data, '<u8', offset=1) gives)."""
    raw = np.zeros(len(values) * 8 + 1, np.uint8)
    arr = raw[1:].view(np.uint64)
    arr[:] = values
    assert not arr.flags.aligned
    return arr


def test_misaligned_uint64_hashes_and_weights_are_read() -> None:
    """A contiguous but misaligned uint64 array is a valid array of hashes or
    weights: add_hashes/contains_hashes refused it with SketchError
    (INVALID_ARGUMENT), CountMinSketch.add_many raised PanicException and
    TopK.add_many silently counted every key with weight 0."""
    hashes = sketches.parquet_hash_many(np.arange(100, dtype=np.int64))
    mis = _misaligned_u64(hashes)
    bf = sketches.SplitBlockBloomFilter(blocks=8, parquet=True)
    assert bf.add_hashes(mis).tolist() == [True] * 100
    assert bf.contains_hashes(mis).all()
    ref = sketches.SplitBlockBloomFilter(blocks=8, parquet=True)
    ref.add_hashes(hashes)
    assert bytes(bf) == bytes(ref)

    weights = _misaligned_u64([5, 6, 7])
    cm = sketches.CountMinSketch(0.01, 0.01)
    cm.add_many([1, 2, 3], weights=weights)
    assert [cm.estimate(k) for k in (1, 2, 3)] == [5, 6, 7]
    tk = sketches.TopK(10)
    tk.add_many([b"a", b"b", b"c"], weights=weights)
    assert [tk.estimate(k)[0] for k in (b"a", b"b", b"c")] == [5, 6, 7]


def test_object_arrays_of_hashes_and_weights_take_integers_only() -> None:
    """NumPy object arrays went through int(): a float 2.9 weight counted 2,
    a hash 1.7 was added as 1 and a str "5" as hash 5, silently. Now only
    integers (``__index__``) are taken: TypeError otherwise, ValueError out of range."""
    bf = sketches.SplitBlockBloomFilter(blocks=4, parquet=True)
    for bad in ([1.7], ["5"], [None]):
        with pytest.raises(TypeError):
            bf.add_hashes(np.array(bad, dtype=object))
        with pytest.raises(TypeError):
            sketches.CountMinSketch(0.01, 0.01).add_many([1], weights=np.array(bad, dtype=object))
    with pytest.raises(ValueError):
        bf.contains_hashes(np.array([-1], dtype=object))
    with pytest.raises(ValueError):
        sketches.TopK(4).add_many([b"a"], weights=np.array([-1], dtype=object))
    assert len(bf) == 0
    assert bf.add_hashes(np.array([2**64 - 1, np.uint64(3)], dtype=object)).tolist() == [True, True]
    cm = sketches.CountMinSketch(0.01, 0.01)
    cm.add_many([1, 2], weights=np.array([3, np.int32(4)], dtype=object))
    assert (cm.estimate(1), cm.estimate(2)) == (3, 4)


def test_an_mmap_is_one_key_not_a_batch() -> None:
    """add_many(mmap) added every byte of the mapping as a 1-byte key
    (bytearray and memoryview were refused): now TypeError, as for them,
    in the batch methods, hash_many, parquet_hash_many and add_hashes."""
    import mmap

    m = mmap.mmap(-1, 16)
    f = sketches.BloomFilter(1000, 0.01)
    for call in (f.add_many, f.contains_many, sketches.hash_many, sketches.parquet_hash_many,
                 sketches.SplitBlockBloomFilter(blocks=2, parquet=True).add_hashes):
        with pytest.raises(TypeError):
            call(m)
    assert len(f) == 0
    assert f.add(m) and m in f and bytes(16) in f


def test_a_strided_bytes_like_key_says_it_must_be_contiguous() -> None:
    """A strided memoryview is bytes-like, yet the error said 'a key is str,
    bytes-like or int, not memoryview'; it now says the key must be
    contiguous (single keys and list entries alike), nothing added."""
    bf = sketches.BloomFilter(100, 0.01)
    strided = memoryview(b"abcdef")[::2]
    for call in (lambda: strided in bf, lambda: bf.add(strided), lambda: bf.add_many([strided]),
                 lambda: bf.contains_many(["a", strided]), lambda: sketches.hash(strided)):
        with pytest.raises(ValueError, match="C-contiguous"):
            call()
    assert len(bf) == 0 and bf.add_calls == 0
    assert bytes(strided) not in bf and bf.add(bytes(strided)) and memoryview(b"ace") in bf


def test_null_weights_say_null() -> None:
    """A pyarrow weight column with a null read as NaN through NumPy and
    raised 'weights must be integers' (they are); it now raises ValueError
    naming the nulls, and nothing is added."""
    for s in (sketches.CountMinSketch(width=64, depth=2), sketches.TopK(8, 16)):
        before = bytes(s)
        for w in (pa.array([1, None], pa.int64()), pa.chunked_array([pa.array([1]), pa.array([None], pa.int64())])):
            with pytest.raises(ValueError, match="null weights"):
                s.add_many(["a", "b"], w)
        assert bytes(s) == before
        s.add_many(["a", "b"], pa.array([1, 2], pa.int64()))
        assert bytes(s) != before


def test_a_numpy_byte_array_key_is_its_bytes() -> None:
    """A NumPy uint8 array (np.frombuffer(...), a row of a byte matrix) is a
    contiguous buffer, which the key rule hashes as its bytes, as its
    memoryview already was; as a key it raised 'only integer scalar arrays
    can be converted to a scalar index' (its __index__ was tried first).
    NumPy integer scalars and 0-d arrays stay ints."""
    raw = np.frombuffer(b"abc", np.uint8)
    rows = np.frombuffer(b"abcxyz", np.uint8).reshape(2, 3)
    assert sketches.hash(raw) == sketches.hash(b"abc") == sketches.hash(rows[0])
    assert sketches.hash(np.array([7], np.uint8)) == sketches.hash(b"\x07")
    assert sketches.hash(np.array(7, np.uint8)) == sketches.hash(7) == sketches.hash(np.uint8(7))
    bf = sketches.BloomFilter(100, 0.01)
    assert bf.add(raw) and b"abc" in bf and rows[0] in bf and rows[1] not in bf
    assert bf.add_many([rows[1], None]).tolist() == [True, False] and b"xyz" in bf
    with pytest.raises(ValueError, match="C-contiguous"):
        rows[:, 0] in bf  # noqa: B015 - strided
    pq = sketches.SplitBlockBloomFilter.for_parquet(100, 0.01)
    assert pq.add(raw) and pq.contains_hash(sketches.parquet_hash_bytes(b"abc"))
    assert pq.contains_many([rows[0]]).tolist() == [True]
