"""ConcurrentSketch: many threads adding to one copy of a Bloom, split-block
Bloom, HyperLogLog or UltraLogLog image through the core's shared views.

The reference for every concurrent run is the same adds made one at a time on
an ordinary sketch: after the threads are joined the snapshot's body (bits,
registers) must be byte-identical to the sequential one's, and the header
statistics the core documents as exact must agree."""

from __future__ import annotations

import pickle
import threading
from typing import Callable

import numpy as np
import pyarrow as pa
import pytest

import sketches

THREADS = 8

FAMILIES: dict[str, Callable[[], object]] = {
    "bloom": lambda: sketches.BloomFilter(100_000, 0.01, seed=3),
    "sbbf": lambda: sketches.SplitBlockBloomFilter(100_000, 0.01, seed=3),
    "sbbf-parquet": lambda: sketches.SplitBlockBloomFilter(100_000, 0.01, parquet=True),
    "hll": lambda: sketches.HyperLogLog(12, seed=3),
    "ull": lambda: sketches.UltraLogLog(12, seed=3),
}
FILTERS = {"bloom", "sbbf", "sbbf-parquet"}


def body(sketch: object) -> bytes:
    """The exported image after its header: the bits or registers."""
    data = bytes(sketch)
    return data[sketches.inspect(data)["header_bytes"] :]


def key_ranges(overlap: bool, per_thread: int) -> list[range]:
    """Disjoint ranges, or ranges where each thread shares half its keys
    with the next one."""
    step = per_thread // 2 if overlap else per_thread
    return [range(i * step, i * step + per_thread) for i in range(THREADS)]


def batches(shape: str, keys: range, size: int) -> list:
    """The keys of one thread in batches of a shape: NumPy uint64 arrays, or
    slices of one pyarrow string array (their offsets are not zero)."""
    if shape == "numpy":
        arr = np.arange(keys.start, keys.stop, dtype=np.uint64)
        return [arr[i : i + size] for i in range(0, len(arr), size)]
    strings = pa.array([f"key-{k}" for k in keys])
    return [strings.slice(i, size) for i in range(0, len(strings), size)]


def int_key(family: str, v: int) -> object:
    """An int key: a Python int, or for a Parquet-mode filter (which refuses
    ints without a width) the NumPy 64-bit integer of the same bytes."""
    if family != "sbbf-parquet":
        return v
    return np.int64(v) if v < 2**63 else np.uint64(v)


def single_keys(keys: range, family: str) -> list:
    return [f"key-{k}" if k % 2 else int_key(family, k) for k in keys]


def run_threads(work: Callable[[int], None], extra: Callable[[threading.Event], None] | None = None) -> None:
    """Runs work(i) in THREADS threads released together by a barrier (and
    `extra(done)` beside them until they finish); re-raises the first error."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(THREADS + (1 if extra else 0))
    done = threading.Event()

    def guarded(f: Callable[[], None]) -> None:
        try:
            barrier.wait()
            f()
        except BaseException as e:  # noqa: BLE001 - reported after the join
            errors.append(e)
            barrier.abort()

    threads = [threading.Thread(target=guarded, args=(lambda i=i: work(i),)) for i in range(THREADS)]
    side = threading.Thread(target=guarded, args=(lambda: extra(done),)) if extra else None
    for t in threads + ([side] if side else []):
        t.start()
    for t in threads:
        t.join()
    done.set()
    if side:
        side.join()
    if errors:
        raise errors[0]


def check_exact_statistics(family: str, snap: object, seq: object, calls: int, reported_new: int) -> None:
    """The statistics the core's shared-view docs call exact agree with the
    sequential run; the order-dependent ones stay within their bounds."""
    if family in FILTERS:
        assert snap.add_calls == seq.add_calls == calls
        # "inserted" depends on the order, but it is exactly the number of
        # add calls that reported a new key.
        assert snap.inserted == reported_new
        assert 0 < snap.inserted <= snap.add_calls
        if family == "bloom":
            assert snap.stats()["set_bits"] == seq.stats()["set_bits"]
            bits = int(np.unpackbits(np.frombuffer(body(snap), dtype=np.uint8)).sum())
            assert snap.stats()["set_bits"] == bits
    else:
        assert snap.register_estimate() == seq.register_estimate()
        # The martingale estimate ends at the first concurrent change; the
        # estimate is then the register estimate.
        assert not snap.martingale
        assert snap.estimate() == snap.register_estimate()
        assert seq.martingale
    if family == "hll":
        # Histogram and register sum (header bytes 64..336) are exact.
        assert bytes(snap)[64:336] == bytes(seq)[64:336]
        type(snap).verify(bytes(snap))


@pytest.mark.parametrize("overlap", [False, True], ids=["disjoint", "overlapping"])
@pytest.mark.parametrize("shape", ["numpy", "arrow"])
@pytest.mark.parametrize("family", list(FAMILIES))
def test_add_many_from_threads_equals_sequential(family: str, shape: str, overlap: bool) -> None:
    source = FAMILIES[family]()
    source_bytes = bytes(source)
    c = source.concurrent()
    assert c.kind == type(source).__name__
    ranges = key_ranges(overlap, 12_000)
    per_thread = [batches(shape, r, 1_500) for r in ranges]
    new_counts = [0] * THREADS
    estimates: list[float] = []

    def work(i: int) -> None:
        added: list = []
        for batch in per_thread[i]:
            out = c.add_many(batch)
            if family in FILTERS:
                assert out.dtype == np.bool_ and out.shape == (len(batch),)
                new_counts[i] += int(out.sum())
                added.append(batch)
                # Every key added so far by this thread, while the others still add.
                for b in added:
                    assert c.contains_many(b).all()
            else:
                assert out is None

    def estimator(done: threading.Event) -> None:
        while not done.is_set():
            estimates.append(c.estimate())

    run_threads(work, estimator if family not in FILTERS else None)

    seq = FAMILIES[family]()
    for batch_list in per_thread:
        for batch in batch_list:
            seq.add_many(batch)
    snap = c.snapshot()
    assert type(snap) is type(source)
    assert body(snap) == body(seq)
    calls = sum(len(r) for r in ranges)
    check_exact_statistics(family, snap, seq, calls, sum(new_counts))
    if family not in FILTERS:
        assert estimates, "the estimator thread ran"
        final = c.estimate()
        assert all(np.isfinite(e) and 0 <= e <= 2 * final for e in estimates)
        assert final == snap.register_estimate()
        distinct = len(set().union(*ranges))
        assert abs(final - distinct) < 0.1 * distinct
    # The source is a separate copy: untouched.
    assert bytes(source) == source_bytes


@pytest.mark.parametrize("overlap", [False, True], ids=["disjoint", "overlapping"])
@pytest.mark.parametrize("family", list(FAMILIES))
def test_single_adds_from_threads_equal_sequential(family: str, overlap: bool) -> None:
    source = FAMILIES[family]()
    source_bytes = bytes(source)
    c = sketches.ConcurrentSketch(source)
    ranges = key_ranges(overlap, 1_500)
    keys = [single_keys(r, family) for r in ranges]
    new_counts = [0] * THREADS

    def work(i: int) -> None:
        for k in keys[i]:
            r = c.add(k)
            assert isinstance(r, bool)
            new_counts[i] += r
            if family in FILTERS:
                assert k in c

    run_threads(work)
    seq = FAMILIES[family]()
    for ks in keys:
        for k in ks:
            seq.add(k)
    snap = c.snapshot()
    assert body(snap) == body(seq)
    check_exact_statistics(family, snap, seq, sum(len(k) for k in keys), sum(new_counts))
    if family in FILTERS:
        assert c.contains_many([k for ks in keys for k in ks]).all()
    else:
        assert c.estimate() == snap.register_estimate()
    assert bytes(source) == source_bytes


@pytest.mark.parametrize("family", sorted(FILTERS | {"ull"}))
def test_one_thread_returns_what_the_family_returns(family: str) -> None:
    """Same return convention and values as the ordinary sketch, for every
    key shape (with duplicates inside a batch, None entries and Arrow nulls)."""
    f = FAMILIES[family]()
    c = FAMILIES[family]().concurrent()
    shapes = [
        [int_key(family, 1), int_key(family, 2), "a", b"b", None, int_key(family, 2), "a", bytearray(b"c"),
         memoryview(b"d"), int_key(family, -1)],
        ("t1", "t2", None, "t1"),
        (f"gen-{i % 7}" for i in range(20)),
        np.arange(100, 200, dtype=np.int64),
        np.array([5, 5, 6], dtype=np.uint64),
        pa.array(["x", None, "y", "x"]),
        pa.array(["lx", "ly", "lx"], type=pa.large_string()),
        pa.chunked_array([pa.array([b"c1", b"c2"]), pa.array([b"c2", None])]),
        pa.array([7, None, 8], type=pa.int64()),
    ]
    for keys in shapes:
        if hasattr(keys, "__next__"):
            keys = list(keys)
            got, want = c.add_many(iter(keys)), f.add_many(iter(keys))
        else:
            got, want = c.add_many(keys), f.add_many(keys)
        if family in FILTERS:
            assert got.tolist() == want.tolist(), keys
            assert c.contains_many(keys).tolist() == f.contains_many(keys).tolist()
        else:
            assert got is None and want is None
    for k in ["single", int_key(family, 42), b"bytes", "single", int_key(family, 2**64 - 1), int_key(family, -(2**63))]:
        assert c.add(k) == f.add(k), k
        if family in FILTERS:
            assert (k in c) and c.contains(k)
    assert body(c.snapshot()) == body(f)
    if family in FILTERS:
        assert c.snapshot().add_calls == f.add_calls
        assert c.snapshot().inserted == f.inserted  # one thread: the order is the sequential one
        assert "never-added" not in c
        assert not c.contains_many(["never-added", None]).any()


def test_small_mode_hll_becomes_a_densified_copy() -> None:
    source = sketches.HyperLogLog(14, seed=9)
    source.add_many(np.arange(100, dtype=np.uint64))
    assert source.mode == "small"
    source_bytes = bytes(source)
    c = source.concurrent()
    # The densified copy estimates from its registers (linear counting here).
    assert abs(c.estimate() - 100) < 5
    extra = [np.arange(1_000 + 50 * i, 1_050 + 50 * i, dtype=np.uint64) for i in range(THREADS)]
    run_threads(lambda i: c.add_many(extra[i]))
    snap = c.snapshot()
    assert snap.mode == "dense"
    assert source.mode == "small" and bytes(source) == source_bytes
    type(snap).verify(bytes(snap))  # histogram and register sum match the registers

    # The same keys one at a time on an ordinary sketch stay exact (500 <
    # 1024 hashes); its registers() are the registers its hashes give, i.e.
    # what densifying it gives.
    seq = sketches.HyperLogLog(14, seed=9)
    seq.add_many(np.arange(100, dtype=np.uint64))
    for e in extra:
        seq.add_many(e)
    assert seq.mode == "small"
    assert np.array_equal(snap.registers(), seq.registers())
    assert snap.stats()["registers_set"] == seq.stats()["registers_set"] == np.count_nonzero(seq.registers())

    # A sequential densified run: the same source densified, then one thread.
    one = source.concurrent()
    for e in extra:
        one.add_many(e)
    assert bytes(one.snapshot()) == bytes(snap)
    assert c.estimate() == snap.register_estimate()
    assert abs(c.estimate() - 500) < 0.05 * 500

    # Merging the sequential small-mode sketch into an empty dense copy gives the same registers.
    dense = sketches.HyperLogLog(14, seed=9).concurrent().snapshot()
    assert dense.mode == "dense"
    dense.merge(seq)
    assert np.array_equal(dense.registers(), snap.registers())


def test_snapshots_taken_during_adds_are_valid_and_grow() -> None:
    """A snapshot waits for the add calls in flight: each one is a valid
    image (counters consistent with the bits, histogram with the
    registers) holding a superset of the one before."""
    for make in (FAMILIES["bloom"], FAMILIES["hll"]):
        c = make().concurrent()
        keys = [np.arange(i * 40_000, (i + 1) * 40_000, dtype=np.uint64) for i in range(THREADS)]
        snaps: list = []

        def snapshotter(done: threading.Event) -> None:
            while not done.is_set():
                snaps.append(c.snapshot())

        run_threads(lambda i: [c.add_many(k) for k in np.array_split(keys[i], 20)], snapshotter)
        snaps.append(c.snapshot())
        assert len(snaps) >= 2
        previous = None
        for s in snaps:
            data = bytes(s)
            type(s).verify(data)
            type(s).from_bytes(data)
            if isinstance(s, sketches.BloomFilter):
                assert s.inserted <= s.add_calls
                assert s.add_calls % 2_000 == 0  # whole add_many calls only
                bits = np.unpackbits(np.frombuffer(body(s), dtype=np.uint8))
                assert s.stats()["set_bits"] == int(bits.sum())
                if previous is not None:
                    assert not (previous & ~bits).any()
                previous = bits
            else:
                regs = s.registers()
                if previous is not None:
                    assert (regs >= previous).all()
                previous = regs
        if isinstance(snaps[-1], sketches.BloomFilter):
            assert snaps[-1].add_calls == THREADS * 40_000
        else:
            assert snaps[-1].register_estimate() == c.estimate()


def test_wrong_sources_raise_type_error() -> None:
    wrong = [
        sketches.CountingBloomFilter(1_000),
        sketches.CuckooFilter(1_000),
        sketches.ExaLogLog(10),
        sketches.CountMinSketch(0.01),
        "BloomFilter",
        None,
        42,
    ]
    for obj in wrong:
        with pytest.raises(TypeError, match="BloomFilter, SplitBlockBloomFilter, HyperLogLog or UltraLogLog"):
            sketches.ConcurrentSketch(obj)
    assert not hasattr(sketches.CountingBloomFilter, "concurrent")
    with pytest.raises(TypeError):
        sketches.ConcurrentSketch()  # type: ignore[call-arg]


def test_family_specific_methods_refuse_the_other_families() -> None:
    for family in ("hll", "ull"):
        c = FAMILIES[family]().concurrent()
        with pytest.raises(TypeError, match="for filters"):
            c.contains("x")
        with pytest.raises(TypeError, match="for filters"):
            "x" in c  # noqa: B015
        with pytest.raises(TypeError, match="for filters"):
            c.contains_many(["x"])
    for family in FILTERS:
        with pytest.raises(TypeError, match="HyperLogLog and UltraLogLog"):
            FAMILIES[family]().concurrent().estimate()


def test_keys_are_checked_like_the_family() -> None:
    c = FAMILIES["bloom"]().concurrent()
    with pytest.raises(TypeError):
        c.add(1.5)
    with pytest.raises(TypeError):
        c.add_many("a string is one key, not a batch")
    with pytest.raises(OverflowError):
        c.add(2**64)
    assert c.snapshot().add_calls == 0


def test_copy_is_independent_and_keeps_parameters() -> None:
    source = sketches.BloomFilter(bits=4096, hashes=5, seed=7)
    source.add("before")
    c = sketches.ConcurrentSketch(source)
    source.add("after-copy")
    assert "before" in c and "after-copy" not in c
    c.add("only-concurrent")
    assert "only-concurrent" not in source
    snap = c.snapshot()
    assert (snap.bits, snap.hashes, snap.seed) == (4096, 5, 7)
    assert c.seed == 7 and c.nbytes == source.nbytes == snap.nbytes
    snap.add("only-snapshot")
    assert "only-snapshot" not in c
    assert "BloomFilter(bits=4096, hashes=5" in repr(c)
    h = sketches.UltraLogLog(10).concurrent()
    h.add_many(np.arange(1000, dtype=np.uint64))
    assert "UltraLogLog(precision=10)" in repr(h) and "estimate=" in repr(h)


def test_wrapped_read_only_source_is_copied() -> None:
    h = sketches.HyperLogLog(10)
    h.add_many(np.arange(5_000, dtype=np.uint64))
    image = np.frombuffer(bytes(h), dtype=np.uint64).copy()  # 8-byte aligned
    image.flags.writeable = False
    ro = sketches.HyperLogLog.wrap(image)
    assert not ro.writable
    c = ro.concurrent()
    c.add_many(np.arange(5_000, 6_000, dtype=np.uint64))
    h.add_many(np.arange(5_000, 6_000, dtype=np.uint64))
    assert body(c.snapshot()) == body(h)


def test_pickle_goes_through_snapshot() -> None:
    for family in FAMILIES:
        c = FAMILIES[family]().concurrent()
        c.add_many([f"p{i}" for i in range(500)])
        back = pickle.loads(pickle.dumps(c))
        assert isinstance(back, sketches.ConcurrentSketch) and back.kind == c.kind
        assert bytes(back.snapshot()) == bytes(c.snapshot())
        back.add("only-in-back")
        if family in FILTERS:
            assert "only-in-back" in back and "only-in-back" not in c


def test_ordinary_sketch_still_refuses_concurrent_updates() -> None:
    """What ConcurrentSketch is for: the ordinary class takes one updating
    call at a time (pyo3's borrow flag: an overlapping one is refused with
    RuntimeError, whenever the threads happen to overlap), the concurrent
    copy any number."""
    f = sketches.BloomFilter(2_000_000, 0.01)
    keys = np.arange(2_000_000, dtype=np.uint64)
    refused: list[int] = []
    c = f.concurrent()

    def work(i: int) -> None:
        for _ in range(3):
            try:
                f.add_many(keys)
            except RuntimeError as e:
                assert "borrow" in str(e).lower()
                refused.append(i)
            c.add_many(keys[i::THREADS])

    run_threads(work)
    # Whether two ordinary calls overlapped depends on the scheduler (a busy
    # machine may run the threads one after another): not asserted. Every
    # ordinary call either ran whole or was refused without a change.
    assert f.add_calls == (3 * THREADS - len(refused)) * len(keys)
    assert c.contains_many(keys).all()
    assert c.snapshot().add_calls == 3 * len(keys)


@pytest.mark.parametrize("family", sorted(FILTERS))
def test_capacity_is_read_during_adds_and_rises_as_the_plain_signal(family: str) -> None:
    """A thread watches ``over_capacity`` while 8 threads overfill a filter
    planned for 1,000 keys; after the join both flags are up, as on the
    snapshot (the source class's plain signal)."""
    make = {
        "bloom": lambda: sketches.BloomFilter(1000, 0.01, seed=3),
        "sbbf": lambda: sketches.SplitBlockBloomFilter(1000, 0.01, seed=3),
        "sbbf-parquet": lambda: sketches.SplitBlockBloomFilter(1000, 0.01, parquet=True),
    }[family]
    c = make().concurrent()
    assert c.capacity_flags == 0 and not c.over_capacity
    done = threading.Event()
    seen: list[int] = []

    def watch() -> None:
        while not done.is_set():
            seen.append(c.capacity_flags)

    def add(r: range) -> None:
        for part in range(r.start, r.stop, 500):
            c.add_many(np.arange(part, part + 500, dtype=np.uint64))

    watcher = threading.Thread(target=watch)
    watcher.start()
    adders = [threading.Thread(target=add, args=(range(t * 2500, (t + 1) * 2500),)) for t in range(THREADS)]
    for t in adders:
        t.start()
    for t in adders:
        t.join()
    done.set()
    watcher.join()
    both = sketches.CAPACITY_OVER_PLANNED_ITEMS | sketches.CAPACITY_FPR_ABOVE_TWICE_PLANNED
    assert set(seen) <= {0, 1, 2, both}
    assert c.capacity_flags == both and c.over_capacity
    assert c.snapshot().capacity_flags == c.capacity_flags


def test_capacity_of_a_loaded_parquet_bitset_follows_its_fill() -> None:
    """A filter loaded from an all-ones Parquet bitset has counted no adds:
    its concurrent signal comes from the fill (a scan), as the plain one."""
    full = sketches.SplitBlockBloomFilter.from_parquet_bitset(b"\xff" * 4096, 0.01)
    c = full.concurrent()
    assert c.capacity_flags == full.capacity_flags
    assert c.capacity_flags & sketches.CAPACITY_FPR_ABOVE_TWICE_PLANNED and c.over_capacity


def test_capacity_is_for_filters_only() -> None:
    for family in ("hll", "ull"):
        c = FAMILIES[family]().concurrent()
        with pytest.raises(TypeError, match="BloomFilter and SplitBlockBloomFilter"):
            c.capacity_flags  # noqa: B018
        with pytest.raises(TypeError, match="BloomFilter and SplitBlockBloomFilter"):
            c.over_capacity  # noqa: B018
