"""ConcurrentSketch.wrap: one image in a caller's buffer (shared memory, a
NumPy array) that several processes or threads add to at once, zero-copy;
its refusals; and HyperLogLog.densify, which prepares a shared HyperLogLog.

The reference is the same adds made one at a time on an ordinary sketch:
after every writer is done, the bytes after the header in the shared buffer
must equal the sequential run's, and the statistics the docs call exact must
agree (test_concurrent.check_exact_statistics)."""

from __future__ import annotations

import multiprocessing
import pickle
import threading
from multiprocessing import shared_memory
from typing import Any

import numpy as np
import pytest
from shm_worker import add_round_robin, add_to_shared, key_batches
from test_concurrent import FAMILIES, FILTERS, body, check_exact_statistics

import sketches
from sketches import SketchError, status

PROCS = 4


def fresh(family: str) -> Any:
    """A new sketch of the family, HyperLogLog densified (what wrap needs)."""
    s = FAMILIES[family]()
    if family == "hll":
        s.densify()
    return s


def image_len(s: Any) -> int:
    return sketches.inspect(bytes(s))["image_bytes"]


def aligned_copy(s: Any, extra: int = 0) -> np.ndarray:
    """The sketch's live image in a fresh 8-byte aligned NumPy uint64 array
    (`extra` more bytes after it, zeros)."""
    data = bytes(s)
    arr = np.zeros((len(data) + extra + 7) // 8, dtype=np.uint64)
    arr.view(np.uint8)[: len(data)] = np.frombuffer(data, dtype=np.uint8)
    return arr


def live_small_hll(precision: int, seed: int = 0) -> np.ndarray:
    """An empty HyperLogLog's live image (exact small mode) in an aligned
    array of its full size. Its export is compact (header only, flag set,
    image length = header); the live image is the same header without the
    flag (bytes 12..16), with the full length (bytes 24..32) and a zero body."""
    size = sketches.HyperLogLog.size_for(precision)
    header = np.frombuffer(bytes(sketches.HyperLogLog(precision, seed=seed)), dtype=np.uint8)
    arr = np.zeros(size // 8, dtype=np.uint64)
    b = arr.view(np.uint8)
    b[: len(header)] = header
    b[12:16] = 0
    b[24:32] = np.frombuffer(size.to_bytes(8, "little"), dtype=np.uint8)
    return arr


def ranges(overlap: bool, n: int, per: int) -> list[tuple[int, int]]:
    """Disjoint key ranges, or ranges sharing half their keys with the next."""
    step = per // 2 if overlap else per
    return [(i * step, i * step + per) for i in range(n)]


def sequential(family: str, key_ranges: list[tuple[int, int]], size: int) -> tuple[Any, int]:
    """The same adds one at a time on an ordinary sketch, and the add calls."""
    seq = fresh(family)
    calls = 0
    for lo, hi in key_ranges:
        for batch in key_batches(lo, hi, size):
            seq.add_many(batch)
            calls += len(batch)
    return seq, calls


def shm_body(buf: Any, seq: Any) -> bytes:
    """The bytes after the header of the live image in `buf` (the sequential
    sketch tells where the header ends and the image ends)."""
    header = sketches.inspect(bytes(seq))["header_bytes"]
    return bytes(buf[header : image_len(seq)])


def test_processes_add_to_one_shared_image() -> None:
    """4 spawned processes each wrap the same SharedMemory per family (and
    per key layout) and add at once; the parent's image then equals a
    sequential run's."""
    size, per = 5_000, 100_000
    cases = [(family, overlap) for family in FAMILIES for overlap in (False, True)]
    memories: list[shared_memory.SharedMemory] = []
    try:
        for family, _ in cases:
            data = bytes(fresh(family))
            # One page more than the image: the tail is ignored by wrap.
            m = shared_memory.SharedMemory(create=True, size=len(data) + 4096)
            memories.append(m)
            m.buf[: len(data)] = data
        layouts = {overlap: ranges(overlap, PROCS, per) for overlap in (False, True)}
        ctx = multiprocessing.get_context("spawn")
        barrier = ctx.Barrier(PROCS)
        results = ctx.Queue()
        procs = [
            ctx.Process(
                target=add_to_shared,
                args=(
                    [(m.name, *layouts[overlap][i]) for m, (_, overlap) in zip(memories, cases)],
                    size,
                    barrier,
                    results,
                    i,
                ),
            )
            for i in range(PROCS)
        ]
        for p in procs:
            p.start()
        reported = dict(results.get(timeout=120) for _ in procs)
        failures = [r for r in reported.values() if isinstance(r, str)]
        assert not failures, failures
        for p in procs:
            p.join(timeout=60)
            assert p.exitcode == 0
        for t, ((family, overlap), m) in enumerate(zip(cases, memories)):
            seq, calls = sequential(family, layouts[overlap], size)
            assert shm_body(m.buf, seq) == body(seq), (family, overlap)
            c = sketches.ConcurrentSketch.wrap(m.buf)
            snap = c.snapshot()
            del c
            assert body(snap) == body(seq)
            reported_new = sum(reported[i][t] for i in range(PROCS))
            check_exact_statistics(family, snap, seq, calls, reported_new)
    finally:
        for m in memories:
            m.close()
            m.unlink()


@pytest.mark.parametrize("overlap", [False, True], ids=["disjoint", "overlapping"])
@pytest.mark.parametrize("family", list(FAMILIES))
def test_threads_on_a_wrapped_numpy_buffer(family: str, overlap: bool) -> None:
    """8 threads, half through one wrapping object and half through
    another over the same NumPy array, as processes would."""
    threads, size = 8, 1_500
    arr = aligned_copy(fresh(family), extra=24)
    wrappers = [sketches.ConcurrentSketch.wrap(arr), sketches.ConcurrentSketch.wrap(arr)]
    key_ranges = ranges(overlap, threads, 9_000)
    work = [key_batches(lo, hi, size) for lo, hi in key_ranges]
    new = [0] * threads
    errors: list[BaseException] = []
    barrier = threading.Barrier(threads)

    def run(i: int) -> None:
        try:
            barrier.wait()
            new[i] = add_round_robin([wrappers[i % 2]], [work[i]])[0]
        except BaseException as e:  # noqa: BLE001 - reported after the join
            errors.append(e)
            barrier.abort()

    ts = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors[0]
    seq, calls = sequential(family, key_ranges, size)
    assert shm_body(arr.view(np.uint8), seq) == body(seq)
    assert not arr.view(np.uint8)[image_len(seq) :].any(), "nothing written after the image"
    snap = wrappers[0].snapshot()
    assert body(snap) == body(seq) == body(wrappers[1].snapshot())
    check_exact_statistics(family, snap, seq, calls, sum(new))
    # The writers are done: an ordinary sketch over the memory reads the result.
    del wrappers
    assert body(type(seq).wrap(arr)) == body(seq)


def test_wrapped_object_api() -> None:
    f = sketches.BloomFilter(10_000, 0.01, seed=5)
    f.add("before")
    arr = aligned_copy(f)
    c = sketches.ConcurrentSketch.wrap(arr)
    assert (c.kind, c.seed, c.nbytes) == ("BloomFilter", 5, f.nbytes)
    assert "before" in c
    assert c.add("x") is True and c.add("x") is False
    # Zero-copy: the add is in the caller's memory, seen by an ordinary wrap.
    assert "x" in sketches.BloomFilter.wrap(arr)
    assert "x" not in f
    assert c.__sizeof__() < 1_000 < sketches.ConcurrentSketch(f).__sizeof__()
    assert "ConcurrentSketch(BloomFilter(" in repr(c)
    # Pickling would give a private copy: refused; the snapshot pickles.
    with pytest.raises(TypeError, match="not pickled"):
        pickle.dumps(c)
    back = pickle.loads(pickle.dumps(c.snapshot()))
    assert body(back) == body(c.snapshot())
    # mmap: the export is held, so the map cannot be closed under the object.
    import mmap

    m = mmap.mmap(-1, 4096 * ((f.nbytes + 4095) // 4096))
    m[: f.nbytes] = bytes(f)
    cm = sketches.ConcurrentSketch.wrap(m)
    cm.add_many(["m1", "m2"])
    with pytest.raises(BufferError):
        m.close()
    del cm
    assert "m1" in sketches.BloomFilter.wrap(m)
    m.close()


def expect_refused(buf: Any, exc: type[BaseException], code: int | None, match: str | None = None) -> None:
    """wrap(buf) raises `exc` (SketchError with status `code`) and leaves the
    buffer's bytes unchanged."""
    before = bytes(memoryview(buf).cast("B")) if not isinstance(buf, (bytes, str)) else buf
    with pytest.raises(exc, match=match) as info:
        sketches.ConcurrentSketch.wrap(buf)
    if code is not None:
        assert info.value.status == code, str(info.value)
    after = bytes(memoryview(buf).cast("B")) if not isinstance(buf, (bytes, str)) else buf
    assert after == before


def test_refusals_leave_the_buffer_unchanged() -> None:
    bf = sketches.BloomFilter(10_000, 0.01)
    bf.add_many(np.arange(1_000, dtype=np.uint64))
    good = aligned_copy(bf)
    # Read-only: a read-only NumPy array, bytes, a read-only memoryview.
    ro = good.copy()
    ro.flags.writeable = False
    expect_refused(ro, TypeError, None, "writable")
    expect_refused(bytes(bf), TypeError, None, "writable")
    expect_refused(memoryview(bytearray(bytes(bf))).toreadonly(), TypeError, None, "writable")
    # Misaligned: the same bytes one byte past an 8-byte boundary.
    raw = np.zeros(len(good) + 1, dtype=np.uint64).view(np.uint8)
    mis = raw[1 : 1 + bf.nbytes]
    mis[:] = good.view(np.uint8)
    expect_refused(mis, SketchError, status.MISALIGNED, "8-byte aligned")
    # Too short: one word less than the image, and less than a header.
    expect_refused(good[:-1], SketchError, status.BUFFER_TOO_SMALL)
    expect_refused(good[:5], SketchError, status.BUFFER_TOO_SMALL)
    expect_refused(bytearray(0), SketchError, status.BUFFER_TOO_SMALL)
    # Other families.
    for other in (sketches.CountingBloomFilter(1_000), sketches.ExaLogLog(8), sketches.CuckooFilter(1_000)):
        expect_refused(aligned_copy(other), SketchError, status.WRONG_FAMILY, "BloomFilter, SplitBlockBloomFilter")
    # Damaged headers.
    bad_magic = good.copy()
    bad_magic.view(np.uint8)[0] ^= 0xFF
    expect_refused(bad_magic, SketchError, status.BAD_MAGIC)
    bad_len = good.copy()
    bad_len.view(np.uint8)[24:32] = np.frombuffer((10**15).to_bytes(8, "little"), dtype=np.uint8)
    expect_refused(bad_len, SketchError, status.BUFFER_TOO_SMALL)
    reserved = good.copy()
    reserved.view(np.uint8)[40] = 1  # the common header's reserved word
    expect_refused(reserved, SketchError, status.CORRUPT_HEADER)
    # A HyperLogLog in its exact small mode: densify first.
    arr = live_small_hll(12)
    live = sketches.HyperLogLog.wrap(arr)
    live.add_many(np.arange(10, dtype=np.uint64))
    assert live.mode == "small"
    expect_refused(arr, SketchError, status.SMALL_MODE, "densify")
    live.densify()
    c = sketches.ConcurrentSketch.wrap(arr)
    assert c.kind == "HyperLogLog" and abs(c.estimate() - 10) < 1


def test_wrapped_snapshot_that_never_validates_raises() -> None:
    """A held HyperLogLog straddle lock word (as another process's add in
    progress leaves it) makes every copy invalid: snapshot retries, then
    raises SketchError; once released, the snapshot succeeds."""
    h = fresh("hll")
    h.add_many(np.arange(5_000, dtype=np.uint64))
    arr = aligned_copy(h)
    c = sketches.ConcurrentSketch.wrap(arr)
    lock = arr.view(np.uint8)[352:360]
    lock[0] = 1
    with pytest.raises(SketchError, match="failed validation") as info:
        c.snapshot()
    assert info.value.status == status.CORRUPT_HEADER
    lock[0] = 0
    assert body(c.snapshot()) == body(h)


def test_adds_wait_for_a_lock_holder_that_is_not_running() -> None:
    """A HyperLogLog straddle lock word held for two seconds (a holder
    descheduled among many more adding threads than cores, or another
    process's add) makes the adds that need it wait, not fail: they spin,
    yield, then sleep until it is released (the old bounded spin gave up
    with CORRUPT_HEADER well before), and the registers end up as plain adds
    leave them."""
    arr = aligned_copy(fresh("hll"))
    c = sketches.ConcurrentSketch.wrap(arr)
    lock = arr.view(np.uint8)[352:360]
    lock[0] = 1
    release = threading.Timer(2.0, lambda: lock.__setitem__(0, 0))
    release.start()
    keys = np.arange(20_000, dtype=np.uint64)
    try:
        assert c.add_many(keys) is None
    finally:
        release.join()
    plain = fresh("hll")
    plain.add_many(keys)
    assert body(c.snapshot()) == body(plain)


def test_densify() -> None:
    keys = np.arange(700, dtype=np.uint64)
    h = sketches.HyperLogLog(14, seed=4)
    h.add_many(keys)
    assert h.mode == "small"
    estimate, small_registers = h.estimate(), h.registers()
    h.densify()
    assert h.mode == "dense"
    assert h.estimate() == estimate
    # The registers of a run that was dense from the start.
    dense = sketches.HyperLogLog(14, seed=4)
    dense.densify()
    assert dense.mode == "dense" and dense.estimate() == 0
    dense.add_many(keys)
    assert np.array_equal(h.registers(), dense.registers())
    assert np.array_equal(h.registers(), small_registers)
    assert body(h) == body(dense)
    assert h.stats()["registers_set"] == dense.stats()["registers_set"] == np.count_nonzero(small_registers)
    # Export / import round trip, and a no-op when already dense.
    data = bytes(h)
    sketches.HyperLogLog.verify(data)
    back = sketches.HyperLogLog.from_bytes(data)
    assert back.mode == "dense" and bytes(back) == data
    assert back.estimate() == estimate
    back.densify()
    assert bytes(back) == data
    # Later adds keep it dense and equal to the dense run.
    more = np.arange(700, 900, dtype=np.uint64)
    h.add_many(more)
    dense.add_many(more)
    assert h.mode == "dense" and body(h) == body(dense)
    # A read-only wrap is refused, unchanged.
    arr = live_small_hll(10)
    sketches.HyperLogLog.wrap(arr).add("a")
    before = arr.tobytes()
    arr.flags.writeable = False
    ro = sketches.HyperLogLog.wrap(arr)
    assert ro.mode == "small"
    with pytest.raises(TypeError, match="read-only"):
        ro.densify()
    assert ro.mode == "small" and arr.tobytes() == before


def test_wrap_of_densified_memory_matches_the_copying_constructor() -> None:
    """wrap over a densified HyperLogLog and ConcurrentSketch(copy) give the
    same result for the same adds."""
    h = sketches.HyperLogLog(12, seed=8)
    h.add_many(np.arange(300, dtype=np.uint64))
    copying = h.concurrent()  # densifies its copy
    arr = live_small_hll(12, seed=8)
    live = sketches.HyperLogLog.wrap(arr)
    live.add_many(np.arange(300, dtype=np.uint64))
    assert live.mode == "small" and live.estimate() == h.estimate()
    live.densify()
    del live
    wrapped = sketches.ConcurrentSketch.wrap(arr)
    for c in (copying, wrapped):
        c.add_many(np.arange(300, 3_000, dtype=np.uint64))
    assert bytes(copying.snapshot()) == bytes(wrapped.snapshot())
    assert copying.estimate() == wrapped.estimate()

