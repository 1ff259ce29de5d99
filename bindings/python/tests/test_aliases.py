"""Several sketch objects over one buffer (``wrap`` of the same mmap, NumPy
array or shared memory, in one process) and the lifetime of a wrapped
buffer.

Two objects wrapping one buffer took no turns: a batch add of one (GIL
released) ran while another thread updated the other, and updates were
lost (Count-Min counts below the true count, which it promises never to
give). Objects over overlapping memory now take turns as one object does:
a call that would overlap another object's detached call raises
RuntimeError ("Already ... borrowed") and changes nothing."""

from __future__ import annotations

import gc
import mmap
import pickle
import threading
from multiprocessing import shared_memory

import numpy as np
import pytest

import sketches

KEYS = np.arange(1_000_000, dtype=np.uint64)


def _in_memory(sketch) -> np.ndarray:
    """An 8-byte aligned NumPy array holding ``sketch``'s live image."""
    image = _live(sketch)
    mem = np.zeros(len(image) // 8 + 1, np.uint64)
    mem.view(np.uint8)[: len(image)] = np.frombuffer(image, np.uint8)
    return mem


def _live(sketch) -> bytes:
    """The live image bytes (the export differs only in its checksum field)."""
    mem = np.zeros(sketch.nbytes // 8 + 1, np.uint64)
    view = mem.view(np.uint8)
    data = bytes(sketch)
    view[: len(data)] = np.frombuffer(data, np.uint8)
    type(sketch).wrap(mem)  # validates: exported bytes wrap as a live image
    return bytes(view[: sketch.nbytes])


def test_two_objects_over_one_buffer_updated_from_two_threads_lose_nothing() -> None:
    mem = _in_memory(sketches.CountMinSketch(width=64, depth=2))
    a, b = sketches.CountMinSketch.wrap(mem), sketches.CountMinSketch.wrap(mem)
    done = [0, 0]

    def work(i: int, s) -> None:
        for _ in range(6):
            try:
                s.add_many(KEYS)
                done[i] += 1
            except RuntimeError as e:
                assert "borrowed" in str(e)

    threads = [threading.Thread(target=work, args=(i, s)) for i, s in enumerate((a, b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = sketches.CountMinSketch(width=64, depth=2)
    for _ in range(sum(done)):
        expected.add_many(KEYS)
    assert a.total == expected.total
    assert a == expected, "updates were lost: counts below the true counts"


def _while_adding(busy, call):
    """Runs ``call()`` repeatedly while another thread's ``busy.add_many``
    runs; returns the first exception ``call`` raised (or None)."""
    started = threading.Event()
    stop: list = []

    def adder() -> None:
        started.set()
        for _ in range(200):
            busy.add_many(KEYS)
            if stop:
                return

    t = threading.Thread(target=adder)
    t.start()
    started.wait()
    try:
        for _ in range(200_000):
            try:
                call()
            except BaseException as e:  # noqa: BLE001 - a PanicException is a BaseException
                return e
        return None
    finally:
        stop.append(1)
        t.join()


@pytest.mark.parametrize("op", ["add", "add_many", "contains", "bytes", "pickle", "clear", "merge", "copy"])
def test_another_object_over_the_buffer_is_refused_during_a_batch_add(op: str) -> None:
    mem = _in_memory(sketches.BloomFilter(500_000))
    busy, other = sketches.BloomFilter.wrap(mem), sketches.BloomFilter.wrap(mem)
    owned = sketches.BloomFilter(500_000)
    call = {
        "add": lambda: other.add("x"),
        "add_many": lambda: other.add_many(["x", "y"]),
        "contains": lambda: "x" in other,
        "bytes": lambda: bytes(other),
        "pickle": lambda: pickle.dumps(other),
        "clear": other.clear,
        "merge": lambda: other.merge(owned),
        "copy": other.copy,
    }[op]
    e = _while_adding(busy, call)
    assert isinstance(e, RuntimeError), f"{op} ran during the other object's update: {e!r}"
    assert "borrowed" in str(e)


def test_objects_over_one_buffer_still_query_in_parallel_and_merge() -> None:
    h = sketches.HyperLogLog(12)
    h.densify()  # a small-mode export is compact, not a live image
    mem = _in_memory(h)
    a, b = sketches.HyperLogLog.wrap(mem), sketches.HyperLogLog.wrap(mem)
    a.add_many(KEYS[:1000])
    assert b.estimate() == a.estimate()
    a.merge(b)  # the same memory: merged from a private copy
    assert a == b
    errors: list = []

    def query(s) -> None:
        try:
            for _ in range(50):
                bytes(s)
                s.copy()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=query, args=(s,)) for s in (a, b, a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors  # reads take shared borrows: never refused by each other


def test_images_side_by_side_in_one_buffer_are_independent() -> None:
    one = _live(sketches.CountMinSketch(width=1024, depth=4))
    words = (len(one) + 63) // 64 * 8
    mem = np.zeros(2 * words, np.uint64)
    view = mem.view(np.uint8)
    view[: len(one)] = np.frombuffer(one, np.uint8)
    view[words * 8 : words * 8 + len(one)] = np.frombuffer(one, np.uint8)
    a = sketches.CountMinSketch.wrap(mem[:words])
    b = sketches.CountMinSketch.wrap(mem[words:])
    errors: list = []

    def work(s) -> None:
        try:
            for _ in range(3):
                s.add_many(KEYS)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert a.total == b.total == 3 * len(KEYS)


def test_dropped_wraps_leave_nothing_behind() -> None:
    mem = _in_memory(sketches.BloomFilter(1000))
    for _ in range(200):
        sketches.BloomFilter.wrap(mem).add("k")
    keep = sketches.BloomFilter.wrap(mem)
    for _ in range(200):
        w = sketches.BloomFilter.wrap(mem)
        del w
    gc.collect()
    keep.add_many(["a", "b"])  # borrows no dead object
    assert "k" in keep and "a" in keep


def test_a_wrapped_buffer_cannot_be_freed_resized_or_closed_under_the_sketch(tmp_path) -> None:
    image = _live(sketches.BloomFilter(1000))
    path = tmp_path / "bf.img"
    path.write_bytes(image)
    with open(path, "r+b") as f:
        m = mmap.mmap(f.fileno(), 0)
    s = sketches.BloomFilter.wrap(m)
    with pytest.raises(BufferError):
        m.close()
    with pytest.raises(BufferError):
        m.resize(2 * len(image))
    s.add("x")
    del s
    m.close()

    shm = shared_memory.SharedMemory(create=True, size=len(image))
    try:
        shm.buf[: len(image)] = image
        s = sketches.BloomFilter.wrap(shm.buf)
        with pytest.raises(BufferError):
            shm.close()
        s.add("x")
        assert "x" in s
        del s
        shm.close()
    finally:
        shm.unlink()

    ba = bytearray(image)
    if np.frombuffer(ba, np.uint8).ctypes.data % 8 == 0:
        s = sketches.BloomFilter.wrap(ba)
        with pytest.raises(BufferError):
            ba.extend(b"x")
        with pytest.raises(BufferError):
            del ba[:8]
        del s
        ba.extend(b"x")
