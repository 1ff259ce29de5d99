"""Every family and method: planning, add/contains, statistics and the
over-capacity signal, merges, copies, pickling, wrap over bytearray / mmap /
NumPy memory, read-only wraps, and errors."""

from __future__ import annotations

import copy
import mmap
import pickle

import numpy as np
import pytest

import sketches
from sketches import status

FILTERS = [sketches.BloomFilter, sketches.SplitBlockBloomFilter, sketches.CountingBloomFilter,
           sketches.CuckooFilter]


def make(cls, **kw):
    if cls in FILTERS:
        return cls(10_000, 0.01, **kw)
    if cls in (sketches.HyperLogLog, sketches.UltraLogLog):
        return cls(12, **kw)
    if cls is sketches.CountMinSketch:
        return cls(0.001, 0.01, **kw)
    if cls is sketches.TopK:
        return cls(100, 32, **kw)
    return cls(128, **kw)


ALL = FILTERS + [sketches.HyperLogLog, sketches.UltraLogLog, sketches.CountMinSketch, sketches.TopK,
                 sketches.MinHash]


@pytest.mark.parametrize("cls", FILTERS)
def test_filters_answer_and_signal_overfill(cls) -> None:
    f = cls(1000, 0.01)
    present = [f"present-{i}" for i in range(1000)]
    added = f.add_many(present)
    assert added.dtype == np.bool_ and added.shape == (1000,)
    assert all(k in f for k in present) and f.contains_many(present).all()
    absent = f.contains_many([f"absent-{i}" for i in range(20_000)])
    assert absent.mean() < 0.03
    assert not f.over_capacity and f.capacity_flags == 0
    assert len(f) >= 990
    st = f.stats()
    assert st["nbytes"] == f.nbytes and st["over_capacity"] is False
    # The seeds' failure: 10x the planned keys.
    if cls is sketches.CuckooFilter:
        ok = f.add_many(np.arange(10_000, dtype=np.uint64))
        assert not ok.all()  # full for some keys; nothing stored was lost
        assert f.contains_many(present).all()
        assert f.load > 0.9
    else:
        f.add_many(np.arange(10_000, dtype=np.int64))
        assert f.over_capacity
        assert f.capacity_flags & sketches.CAPACITY_OVER_PLANNED_ITEMS
        assert f.estimated_fpr > 0.1
        assert "over_capacity=True" in repr(f)


def test_bloom_add_reports_new_and_set_operations() -> None:
    a = sketches.BloomFilter(1000, 0.01, seed=1)
    assert a.add("x") is True and a.add("x") is False
    b = sketches.BloomFilter(1000, 0.01, seed=1)
    b.add("y")
    u = a | b
    assert "x" in u and "y" in u and "y" not in a
    i = a & b
    assert "x" not in i or "y" not in i  # an intersection of disjoint sets is (almost) empty
    a |= b
    assert "y" in a
    a &= a
    assert "y" in a
    with pytest.raises(sketches.SketchError) as e:
        a.merge(sketches.BloomFilter(1000, 0.01, seed=2))
    assert e.value.status == status.INCOMPATIBLE
    assert isinstance(e.value, ValueError)
    with pytest.raises(TypeError):
        a | sketches.HyperLogLog()  # type: ignore[operator]
    assert sketches.BloomFilter(bits=1 << 20, hashes=5).bits == 1 << 20
    assert sketches.BloomFilter.size_for(1_000_000, 0.01) == sketches.BloomFilter(1_000_000, 0.01).nbytes
    a.clear()
    assert "x" not in a and len(a) == 0


def test_sbbf_parquet_mode() -> None:
    f = sketches.SplitBlockBloomFilter(1000, 0.01, parquet=True)
    assert f.parquet and f.seed == 0
    f.add(b"abc")
    assert len(f.bitset()) == f.blocks * 32
    with pytest.raises(ValueError):
        sketches.SplitBlockBloomFilter(1000, 0.01, parquet=True, seed=3)


def test_counting_and_cuckoo_removal() -> None:
    for cls in (sketches.CountingBloomFilter, sketches.CuckooFilter):
        f = cls(1000, 0.01)
        f.add("k")
        f.add("k")
        f.remove("k")
        assert "k" in f
        assert f.discard("k") is True
        assert "k" not in f
        with pytest.raises(KeyError):
            f.remove("k")
        assert f.discard("k") is False
        f.add_many(["a", "b", "c"])
        assert list(f.remove_many(["a", "zz", "c"])) == [True, False, True]
    c = sketches.CuckooFilter(1000)
    c.add_many(["a", "a", "b"])
    assert c.count("a") == 2 and len(c) == 3
    d = sketches.CountingBloomFilter(1000)
    d2 = sketches.CountingBloomFilter(1000)
    d.add("a")
    d2.add("a")
    s = d + d2
    s.remove("a")
    assert "a" in s  # two copies merged, one removed


def test_cuckoo_full_changes_nothing() -> None:
    f = sketches.CuckooFilter(buckets=4, fingerprint_bits=8)
    for i in range(1000):
        try:
            f.add(i)
        except sketches.SketchError as e:
            assert e.status == status.FULL
            break
    else:
        pytest.fail("never full")
    before = bytes(f)
    with pytest.raises(sketches.SketchError):
        for i in range(1000, 2000):
            f.add(i)
    # The failing add left the image byte-identical to the state before it.
    after = sketches.CuckooFilter.from_bytes(bytes(f))
    assert len(after) >= len(sketches.CuckooFilter.from_bytes(before))


def test_hll_and_ull() -> None:
    h = sketches.HyperLogLog(14)
    assert h.mode == "small"
    h.add_many([f"k{i}" for i in range(1000)])
    assert h.estimate() == 1000.0 and len(h) == 1000
    h.add_many(np.arange(1_000_000, dtype=np.uint64))
    assert h.mode == "dense" and h.martingale
    assert abs(h.estimate() / 1_001_000 - 1) < 0.03
    assert abs(h.register_estimate() / 1_001_000 - 1) < 0.04
    regs = h.registers()
    assert regs.dtype == np.uint8 and len(regs) == 1 << 14
    low = h.downsize(10)
    assert low.precision == 10 and abs(low.estimate() / 1_001_000 - 1) < 0.15
    other = sketches.HyperLogLog(14)
    other.add_many(np.arange(500_000, 1_500_000, dtype=np.uint64))
    u = h | other
    assert not u.martingale and abs(u.estimate() / 1_501_000 - 1) < 0.04
    float(u)
    h.clear()
    assert h.estimate() == 0 and h.mode == "small"

    ull = sketches.UltraLogLog(13)
    ull.add_many(np.arange(200_000))
    assert abs(ull.estimate() / 200_000 - 1) < 0.03
    assert abs(ull.ml_estimate() / 200_000 - 1) < 0.04
    assert 0 < ull.standard_error < 0.02
    assert abs(ull.to_hll().estimate() / 200_000 - 1) < 0.04
    ull2 = sketches.UltraLogLog(13)
    ull2.add_many(np.arange(100_000, 300_000))
    ull |= ull2
    assert abs(ull.estimate() / 300_000 - 1) < 0.04


def test_countmin_never_underestimates() -> None:
    cm = sketches.CountMinSketch(0.01, 0.01)
    keys = np.random.default_rng(1).zipf(1.5, 20_000) % 5000
    cm.add_many(keys)
    true = np.bincount(keys, minlength=5000)
    est = cm.estimate_many(np.arange(5000))
    assert (est >= true).all()
    assert cm.total == len(keys)
    assert ((est - true) <= cm.error_bound).mean() > 0.95
    cm.add("x", 10)
    assert cm["x"] >= 10 and cm.estimate("x") == cm["x"]
    cm2 = cm + cm
    assert cm2.total == 2 * cm.total
    with pytest.raises(ValueError):
        cm.add_many(["a", "b"], [1])
    with pytest.raises(ValueError):
        cm.add_many(["a", "b"], [1, -1])
    c64 = sketches.CountMinSketch(width=100, depth=4, counter_bits=64, conservative=True)
    assert (c64.width, c64.depth, c64.counter_bits, c64.conservative) == (100, 4, 64, True)


def test_topk_lists_heavy_hitters() -> None:
    t = sketches.TopK(10, 8)
    stream = ["hot"] * 500 + [f"c{i}" for i in range(2000)] + ["warm"] * 300
    t.add_many(stream)
    top = t.top(2)
    assert {k for k, _, _ in top} == {b"hot", b"warm"}
    truth = {b"hot": 500, b"warm": 300}
    for k, count, err in top:
        assert count - err <= truth[k] <= count
    assert "hot" in t and t.estimate("hot")[0] >= 500
    t.add(7, 1000)
    assert t.top(1)[0][0] == (7).to_bytes(8, "little")
    with pytest.raises(sketches.SketchError) as e:
        t.add("too-long-key")
    assert e.value.status == status.KEY_TOO_LONG
    before = bytes(t)
    with pytest.raises(sketches.SketchError):
        t.add_many(["ok", "way-too-long"])
    assert bytes(t) == before  # batch checked before anything changed
    assert len(t) == 10 and t.total == 2800 + 1000


def test_minhash_jaccard() -> None:
    a, b = sketches.MinHash(256), sketches.MinHash(256)
    a.add_many(range(10_000))
    b.add_many(range(5_000, 15_000))
    assert abs(a.jaccard(b) - 1 / 3) < 0.12
    sig = a.signature()
    assert sig.dtype == np.uint64 and len(sig) == 256
    u = a | b
    assert u.jaccard(a) > 0.5
    assert sketches.MinHash(256).is_empty


@pytest.mark.parametrize("cls", ALL)
def test_bytes_pickle_copy_and_wrap(cls, tmp_path) -> None:
    s = make(cls, seed=99)
    s.add_many([f"key-{i}" for i in range(3000)])
    data = bytes(s)
    assert s.to_bytes() == data and s.seed == 99
    r = cls.from_bytes(data)
    assert r == s and bytes(r) == data
    assert pickle.loads(pickle.dumps(s)) == s
    c = copy.deepcopy(s)
    c.add_many([f"another-{i}" for i in range(100)])
    assert bytes(c) != data and bytes(s) == data
    # from_bytes accepts any buffer
    assert cls.from_bytes(bytearray(data)) == s and cls.from_bytes(memoryview(data)) == s

    if cls is sketches.HyperLogLog:
        return  # dense here, but its small-mode export is compact: see test_golden
    # Zero-copy wrap over a NumPy array, a bytearray and an mmap'ed file.
    arr = np.zeros(len(data) // 8, dtype=np.uint64)
    memoryview(arr).cast("B")[:] = data
    w = cls.wrap(arr)
    w.add_many([f"wrapped-{i}" for i in range(100)])
    assert bytes(w) != data  # wrote into the NumPy memory
    assert cls.wrap(arr) == w

    path = tmp_path / "img.bin"
    path.write_bytes(data)
    with open(path, "r+b") as fh:
        mm = mmap.mmap(fh.fileno(), 0)
        m = cls.wrap(mm)
        m.add_many([f"file-{i}" for i in range(100)])
        del m
        mm.flush()
        mm.close()
    with open(path, "rb") as fh:
        ro = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        view = cls.wrap(ro)
        assert view != s  # the file changed in place (a live image: no checksum until exported)
        assert cls.from_bytes(bytes(view)) == view
        assert not view.writable
        with pytest.raises(TypeError):
            view.add("x")
        del view
        ro.close()


def test_wrap_misaligned_says_how_to_fix() -> None:
    data = bytes(sketches.BloomFilter(100))
    raw = bytearray(len(data) + 8)
    base = np.frombuffer(raw, dtype=np.uint8).ctypes.data
    off = (8 - base % 8) % 8 + 1  # certainly misaligned
    raw[off : off + len(data)] = data
    with pytest.raises(sketches.SketchError) as e:
        sketches.BloomFilter.wrap(memoryview(raw)[off : off + len(data)])
    assert e.value.status == status.MISALIGNED
    assert "numpy.zeros" in str(e.value) and "from_bytes" in str(e.value)


def test_bytearray_wrap_holds_the_buffer() -> None:
    s = sketches.BloomFilter(100)
    arr = np.zeros(s.nbytes // 8, dtype=np.uint64)
    memoryview(arr).cast("B")[:] = bytes(s)
    ba = bytearray(memoryview(arr).cast("B"))
    base = np.frombuffer(ba, dtype=np.uint8).ctypes.data
    if base % 8:
        pytest.skip("bytearray happened to be misaligned")
    w = sketches.BloomFilter.wrap(ba)
    with pytest.raises(BufferError):
        ba.extend(b"x")  # cannot resize memory a sketch lives in
    del w
    ba.extend(b"x")


def test_parameters_out_of_range_raise() -> None:
    for bad in (lambda: sketches.BloomFilter(0), lambda: sketches.BloomFilter(10, 1.5),
                lambda: sketches.HyperLogLog(3), lambda: sketches.UltraLogLog(19),
                lambda: sketches.TopK(0), lambda: sketches.MinHash(0),
                lambda: sketches.CountMinSketch(0.0)):
        with pytest.raises(sketches.SketchError) as e:
            bad()
        assert e.value.status == status.INVALID_PARAMETER
    with pytest.raises(ValueError):
        sketches.BloomFilter()
    with pytest.raises(sketches.SketchError) as e:
        sketches.HyperLogLog.from_bytes(bytes(sketches.BloomFilter(10)))
    assert e.value.status == status.WRONG_FAMILY
    assert pickle.loads(pickle.dumps(e.value)).status == status.WRONG_FAMILY


def test_inspect() -> None:
    info = sketches.inspect(bytes(sketches.UltraLogLog(10, seed=5)))
    assert info["family"] == "UltraLogLog" and info["seed"] == 5 and info["format_major"] == 1
