"""Every family and method: planning, add/contains, statistics and the
over-capacity signal, merges, copies, pickling, wrap over bytearray / mmap /
NumPy memory, read-only wraps, and errors."""

from __future__ import annotations

import copy
import mmap
import pickle

import numpy as np
import pyarrow as pa
import pytest

import sketches
from sketches import status

FILTERS = [sketches.BloomFilter, sketches.SplitBlockBloomFilter, sketches.CountingBloomFilter,
           sketches.CuckooFilter]


def make(cls, **kw):
    if cls in FILTERS:
        return cls(10_000, 0.01, **kw)
    if cls in (sketches.HyperLogLog, sketches.UltraLogLog, sketches.ExaLogLog):
        return cls(12, **kw)
    if cls is sketches.CountMinSketch:
        return cls(0.001, 0.01, **kw)
    if cls is sketches.TopK:
        return cls(100, 32, **kw)
    return cls(128, **kw)


ALL = FILTERS + [sketches.HyperLogLog, sketches.UltraLogLog, sketches.ExaLogLog, sketches.CountMinSketch,
                 sketches.TopK, sketches.MinHash]


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


@pytest.mark.parametrize("cls", [sketches.HyperLogLog, sketches.UltraLogLog])
def test_union_operator_lands_at_the_lower_precision_in_either_order(cls) -> None:
    high, low = cls(14), cls(12)
    high.add_many(np.arange(50_000, dtype=np.uint64))
    low.add_many(np.arange(25_000, 75_000, dtype=np.uint64))
    high_image, low_image = bytes(high), bytes(low)
    a, b = high | low, low | high
    assert a.precision == b.precision == 12
    assert a == b  # the same union whichever side is higher
    folded = low.copy()
    folded.merge(high)  # the in-place merge folds the higher precision down
    assert a == folded
    assert bytes(high) == high_image and bytes(low) == low_image  # operands unchanged
    assert abs(a.estimate() / 75_000 - 1) < 0.06


def _binomial_bounds(n: int, p: float, sigmas: float = 5.0) -> tuple[float, float]:
    mean, sd = n * p, (n * p * (1 - p)) ** 0.5
    return mean - sigmas * sd, mean + sigmas * sd


@pytest.mark.parametrize("bits", [8, 16])
def test_fuse_has_no_false_negatives_and_its_planned_fpr(bits: int) -> None:
    """Every key of the set is found; absent keys pass at about 2^-bits
    (within 5 standard deviations of the binomial count)."""
    keys = np.arange(0, 400_000, 2, dtype=np.uint64)  # 200k even numbers
    f = sketches.BinaryFuseFilter(keys, fingerprint_bits=bits, seed=11)
    assert f.contains_many(keys).all()
    assert len(f) == f.planned_keys == 200_000 and f.fingerprint_bits == bits and f.fpr == 2.0**-bits
    assert bits * 1.08 < f.bits_per_key < bits * 1.2  # about 1.13 x bits at this size
    n = 1_000_000 if bits == 8 else 4_000_000
    absent = np.arange(1, 2 * n, 2, dtype=np.uint64)  # odd numbers: none in the set
    passed = int(f.contains_many(absent).sum())
    lo, hi = _binomial_bounds(n, 2.0**-bits)
    assert lo <= passed <= hi, (passed, lo, hi)
    strings = [f"absent-{i}" for i in range(200_000)]
    lo, hi = _binomial_bounds(len(strings), 2.0**-bits)
    assert lo <= f.contains_many(strings).sum() <= hi
    assert all(int(k) in f for k in keys[:1000]) and f.contains(int(keys[-1]))
    st = f.stats()
    assert st["keys"] == 200_000 and st["nbytes"] == f.nbytes == sketches.BinaryFuseFilter.size_for(200_000, bits)
    assert st["attempts"] == f.attempts >= 1 and f"fingerprint_bits={bits}" in repr(f)


def test_fuse_build_from_every_source_is_static_and_serializes(tmp_path) -> None:
    words = [f"word-{i}" for i in range(5000)]
    f = sketches.BinaryFuseFilter(words, 0.001, seed=3)  # fpr below 2^-8: 16-bit fingerprints
    assert f.fingerprint_bits == 16
    assert sketches.BinaryFuseFilter(words, 0.01, seed=3).fingerprint_bits == 8
    for same in (tuple(words), iter(words), set(words), np.array(words, dtype=object), words + words[:100],
                 pa.array(words), pa.array(words, pa.large_binary()), pa.chunked_array([words[:10], words[10:]])):
        g = sketches.BinaryFuseFilter(same, fingerprint_bits=16, seed=3)
        assert g.contains_many(words).all() and len(g) == 5000
        if not isinstance(same, set) and len(g) == g.planned_keys:
            assert g == f  # same keys in the same order: byte-identical image
    dup = sketches.BinaryFuseFilter(words + words[:100], fingerprint_bits=16, seed=3)
    assert dup.planned_keys == 5100 and len(dup) == 5000  # duplicates stored once
    nulls = sketches.BinaryFuseFilter(pa.array(words + [None] * 7), fingerprint_bits=16, seed=3)
    assert nulls == f  # nulls skipped: planned for the 5000 keys
    empty = sketches.BinaryFuseFilter([])
    assert len(empty) == 0 and empty.contains_many(words).mean() < 0.02
    assert not hasattr(f, "add") and not hasattr(f, "add_many") and not hasattr(f, "clear")
    assert "static" in (sketches.BinaryFuseFilter.__doc__ or "")

    data = bytes(f)
    assert sketches.BinaryFuseFilter.from_bytes(data) == f and pickle.loads(pickle.dumps(f)) == f
    assert copy.deepcopy(f) == f and f.copy() == f
    arr = np.zeros(len(data) // 8, dtype=np.uint64)
    memoryview(arr).cast("B")[:] = data
    w = sketches.BinaryFuseFilter.wrap(arr)
    assert w == f and w.writable and w.contains_many(words).all()
    path = tmp_path / "fuse.img"
    path.write_bytes(data)
    with open(path, "rb") as fh:
        ro = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        view = sketches.BinaryFuseFilter.wrap(ro)
        assert not view.writable and view.contains_many(words).all() and bytes(view) == data
        del view
        ro.close()


@pytest.mark.parametrize("d", [20, 24])
def test_ell_error_against_exact_counts(d: int) -> None:
    """Martingale and ML estimates within 4 theoretical standard errors of
    the exact distinct count (plus a little for the smallest counts)."""
    rng = np.random.default_rng(d)
    s = sketches.ExaLogLog(12, d=d, seed=1)
    martingale_se = s.standard_error
    ml_se = s.downsize().standard_error  # a copy without the martingale reports the ML error
    assert ml_se > martingale_se
    seen = 0
    for target in (10, 100, 1000, 10_000, 100_000, 1_000_000):
        s.add_many(np.arange(seen, target, dtype=np.uint64))
        s.add_many(rng.integers(0, target, 1000, dtype=np.uint64))  # repeats change nothing
        seen = target
        assert s.martingale and s.martingale_estimate() == s.estimate()
        for est, se in ((s.estimate(), martingale_se), (s.ml_estimate(), ml_se)):
            assert abs(est / target - 1) < 4 * se + 1 / target, (target, est)
    assert abs(len(s) - 1_000_000) < 4 * martingale_se * 1_000_000 and float(s) == s.estimate()
    assert 0.0048 < martingale_se < 0.0051 if d == 20 else 0.0046 < martingale_se < 0.0049
    assert s.stats()["registers_set"] == 4096 and s.nbytes == sketches.ExaLogLog.size_for(12, d)
    s.clear()
    assert s.estimate() == 0 and s.martingale and s.stats()["registers_set"] == 0


def test_ell_merges_across_precisions_and_downsizes() -> None:
    a = sketches.ExaLogLog(12, d=24, seed=2)
    b = sketches.ExaLogLog(10, d=20, seed=2)
    a.add_many(np.arange(0, 600_000, dtype=np.uint64))
    b.add_many(np.arange(300_000, 900_000, dtype=np.uint64))
    assert a.martingale and b.martingale
    with pytest.raises(sketches.SketchError) as e:
        a.merge(b)  # lower precision and d cannot merge into higher ones
    assert e.value.status == status.INCOMPATIBLE
    assert a.martingale  # nothing changed
    u = a | b
    assert (u.precision, u.d) == (10, 20) and not u.martingale and u.martingale_estimate() is None
    assert abs(u.estimate() / 900_000 - 1) < 4 * u.standard_error
    # Exact: the union equals the registers of one sketch of both streams.
    one = sketches.ExaLogLog(10, d=20, seed=2)
    one.add_many(np.arange(0, 900_000, dtype=np.uint64))
    assert (u.registers() == one.registers()).all() and u.ml_estimate() == one.ml_estimate()
    c = b.copy()
    c.merge(a)
    assert c == u
    c |= c  # merging with itself changes nothing
    assert c == u
    down = a.downsize(10, d=20)
    assert (down.precision, down.d, down.seed) == (10, 20, 2) and not down.martingale
    part = sketches.ExaLogLog(10, d=20, seed=2)
    part.add_many(np.arange(0, 600_000, dtype=np.uint64))
    assert (down.registers() == part.registers()).all()
    assert a.downsize().precision == 12 and a.downsize(d=20).d == 20
    for bad in (lambda: a.downsize(13), lambda: b.downsize(d=24),
                lambda: a | sketches.ExaLogLog(12, d=24, seed=3)):
        with pytest.raises(sketches.SketchError) as e:
            bad()
        assert e.value.status == status.INCOMPATIBLE
    regs = a.registers()
    assert regs.dtype == np.uint32 and len(regs) == 4096 and (regs >> 24 > 0).all()
    assert sketches.ExaLogLog.precision_for(0.01) == 11 and sketches.ExaLogLog.precision_for(0.0057, 24) == 12
    fresh = sketches.ExaLogLog(4)
    assert fresh.add("new key") is True and fresh.add("new key") is False and len(fresh) == 1
    assert "martingale=True" in repr(fresh) and fresh.stats()["t"] == fresh.t == 2


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
                lambda: sketches.CountMinSketch(0.0), lambda: sketches.ExaLogLog(1),
                lambda: sketches.ExaLogLog(25), lambda: sketches.ExaLogLog(12, d=22),
                lambda: sketches.ExaLogLog.precision_for(1e-5),
                lambda: sketches.BinaryFuseFilter(["a"], fingerprint_bits=12),
                lambda: sketches.BinaryFuseFilter(["a"], fingerprint_bits=264),
                lambda: sketches.BinaryFuseFilter(["a"], 2**-17), lambda: sketches.BinaryFuseFilter(["a"], 1.0)):
        with pytest.raises(sketches.SketchError) as e:
            bad()
        assert e.value.status == status.INVALID_PARAMETER
    with pytest.raises(ValueError):
        sketches.BloomFilter()
    with pytest.raises(ValueError):
        sketches.BinaryFuseFilter(["a"], 0.01, fingerprint_bits=8)
    with pytest.raises(TypeError):
        sketches.BinaryFuseFilter("not a batch")
    with pytest.raises(sketches.SketchError) as e:
        sketches.HyperLogLog.from_bytes(bytes(sketches.BloomFilter(10)))
    assert e.value.status == status.WRONG_FAMILY
    assert pickle.loads(pickle.dumps(e.value)).status == status.WRONG_FAMILY


def test_inspect() -> None:
    info = sketches.inspect(bytes(sketches.UltraLogLog(10, seed=5)))
    assert info["family"] == "UltraLogLog" and info["seed"] == 5 and info["format_major"] == 1
    info = sketches.inspect(bytes(sketches.BinaryFuseFilter(["a"], seed=6)))
    assert (info["family"], info["family_id"], info["seed"]) == ("BinaryFuseFilter", 10, 6)
    info = sketches.inspect(bytes(sketches.ExaLogLog(4, d=24)))
    assert (info["family"], info["family_id"], info["header_bytes"]) == ("ExaLogLog", 11, 128)


@pytest.mark.parametrize("cls", [sketches.BloomFilter, sketches.SplitBlockBloomFilter, sketches.HyperLogLog])
def test_single_calls_follow_the_image_in_memory(cls) -> None:
    # Single adds and queries skip the header checks through the token the
    # object took with its image; they still follow whatever image the
    # memory holds when another one is written behind the wrap's back.
    keys = [f"tok-{i}" for i in range(3000)]
    single, batch = make(cls, seed=1), make(cls, seed=1)
    for k in keys:
        single.add(k)
    batch.add_many(keys)
    assert bytes(single) == bytes(batch)
    other = make(cls, seed=2)
    other.add_many([f"other-{i}" for i in range(3000)])  # dense: its export is a live image
    arr = np.zeros(len(bytes(batch)) // 8, dtype=np.uint64)
    memoryview(arr).cast("B")[:] = bytes(batch)
    w = cls.wrap(arr)
    w.add("before")
    memoryview(arr).cast("B")[:] = bytes(other)
    for k in keys[:500]:
        w.add(k)
        other.add(k)
    assert bytes(w) == bytes(other) and w.seed == 2
    if cls is not sketches.HyperLogLog:
        assert all(k in w for k in keys[:500])
        assert [k in w for k in keys[500:]] == [k in other for k in keys[500:]]


def test_every_family_sizes_without_building() -> None:
    """size_for on every family takes the constructor's arguments (seed
    aside) and gives the nbytes of what the constructor makes, with the
    constructor's errors; five families had none."""
    cases = [
        (sketches.BloomFilter, (100_000, 0.01), {}),
        (sketches.SplitBlockBloomFilter, (100_000, 0.01), {}),
        (sketches.CountingBloomFilter, (100_000, 0.01), {}),
        (sketches.CountingBloomFilter, (), {"counters": 1 << 16, "hashes": 4}),
        (sketches.CuckooFilter, (100_000, 0.001), {}),
        (sketches.CuckooFilter, (), {"buckets": 1 << 12, "fingerprint_bits": 8}),
        (sketches.CountMinSketch, (0.001, 0.01), {}),
        (sketches.CountMinSketch, (), {"width": 1000, "depth": 5, "counter_bits": 64}),
        (sketches.CountMinSketch, (), {"width": 1000, "depth": 5, "conservative": True}),
        (sketches.TopK, (100, 24), {}),
        (sketches.TopK, (100,), {}),
        (sketches.MinHash, (256,), {}),
        (sketches.MinHash, (), {}),
        (sketches.HyperLogLog, (12,), {}),
        (sketches.UltraLogLog, (12,), {}),
        (sketches.ExaLogLog, (12,), {}),
    ]
    for cls, args, kwargs in cases:
        assert cls.size_for(*args, **kwargs) == cls(*args, **kwargs).nbytes, (cls, args, kwargs)
    for cls, args, kwargs in [
        (sketches.CountingBloomFilter, (), {}),
        (sketches.CountingBloomFilter, (100, 1.5), {}),
        (sketches.CuckooFilter, (100, 0.01), {"buckets": 64}),
        (sketches.CountMinSketch, (), {"width": 1000}),
        (sketches.CountMinSketch, (), {"width": 1000, "depth": 5, "counter_bits": 12}),
        (sketches.TopK, (0,), {}),
        (sketches.MinHash, (0,), {}),
    ]:
        with pytest.raises(ValueError) as made:
            cls(*args, **kwargs)
        with pytest.raises(ValueError) as sized:
            cls.size_for(*args, **kwargs)
        assert type(sized.value) is type(made.value) and str(sized.value) == str(made.value), (cls, args)


def test_size_for_takes_every_constructor_form() -> None:
    """The README's promise, for the forms the first test missed: Bloom's
    bits=/hashes=, the split-block filter's blocks= (native and Parquet),
    the distinct counters' default precision (HyperLogLog() and
    size_for() alike) and the fuse filter's fpr= (as Java's imageBytes,
    Go's XSize and C++'s image_size cover every constructor)."""
    keys = [f"k{i}" for i in range(1000)]
    cases = [
        (sketches.BloomFilter, (), {"bits": 1 << 16, "hashes": 5}),
        (sketches.SplitBlockBloomFilter, (), {"blocks": 64}),
        (sketches.SplitBlockBloomFilter, (), {"blocks": 64, "parquet": True}),
        (sketches.SplitBlockBloomFilter, (1000, 0.01), {"parquet": True, "sizing": "duckdb"}),
        (sketches.HyperLogLog, (), {}),
        (sketches.UltraLogLog, (), {}),
        (sketches.ExaLogLog, (), {}),
        (sketches.ExaLogLog, (10,), {"d": 24}),
    ]
    for cls, args, kwargs in cases:
        assert cls.size_for(*args, **kwargs) == cls(*args, **kwargs).nbytes, (cls, args, kwargs)
    for kwargs in [{"fpr": 1e-4}, {"fpr": 0.01}, {"fingerprint_bits": 16}, {}]:
        f = sketches.BinaryFuseFilter(keys, **kwargs)
        assert sketches.BinaryFuseFilter.size_for(len(keys), **kwargs) == f.nbytes, kwargs
        assert sketches.BinaryFuseFilter.scratch_size_for(len(keys), **kwargs) > 0
    for cls, args, kwargs in [
        (sketches.BloomFilter, (), {"bits": 1 << 16}),
        (sketches.BloomFilter, (), {}),
        (sketches.SplitBlockBloomFilter, (), {"blocks": 64, "parquet": True, "sizing": "duckdb"}),
        (sketches.SplitBlockBloomFilter, (100, 0.01), {"blocks": 64}),
    ]:
        with pytest.raises(ValueError) as made:
            cls(*args, **kwargs)
        with pytest.raises(ValueError) as sized:
            cls.size_for(*args, **kwargs)
        assert type(sized.value) is type(made.value) and str(sized.value) == str(made.value), (cls, args)
    with pytest.raises(ValueError) as made:
        sketches.BinaryFuseFilter(keys, 0.01, fingerprint_bits=8)
    with pytest.raises(ValueError) as sized:
        sketches.BinaryFuseFilter.size_for(len(keys), fpr=0.01, fingerprint_bits=8)
    assert str(sized.value) == str(made.value)
