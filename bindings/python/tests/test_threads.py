"""Concurrent queries from threads on one sketch (batch calls release the
GIL): answers equal the single-threaded ones. Whether threads scale is a
benchmark number (bench.py), not asserted here."""

from __future__ import annotations

import threading

import numpy as np
import pyarrow as pa

import sketches


def test_concurrent_batch_queries_agree() -> None:
    f = sketches.BloomFilter(200_000, 0.01)
    f.add_many(np.arange(0, 400_000, 2, dtype=np.uint64))
    queries = [np.arange(i * 50_000, (i + 1) * 50_000, dtype=np.uint64) for i in range(8)]
    expected = [f.contains_many(q) for q in queries]
    strings = pa.array([f"present-{i}" for i in range(50_000)])
    h = sketches.HyperLogLog(12)
    h.add_many(strings)
    results: list = [None] * 8
    errors: list = []

    def work(i: int) -> None:
        try:
            for _ in range(5):
                r = f.contains_many(queries[i])
                assert (r == expected[i]).all()
                assert f.contains_many(strings).shape == (50_000,)
                h.estimate()
            results[i] = r
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all((r == e).all() for r, e in zip(results, expected))


def test_updates_and_queries_from_threads_never_corrupt() -> None:
    """Updating one sketch while another thread queries it is refused with
    RuntimeError (pyo3's borrow check) or serialized; it never corrupts."""
    f = sketches.CountMinSketch(0.001)
    keys = np.arange(100_000, dtype=np.uint64)
    stop = threading.Event()
    refused = []

    def reader() -> None:
        while not stop.is_set():
            try:
                f.estimate_many(keys[:1000])
            except RuntimeError:
                refused.append(1)

    t = threading.Thread(target=reader)
    t.start()
    done = 0
    for _ in range(20):
        try:
            f.add_many(keys)
            done += 1
        except RuntimeError:
            pass
    stop.set()
    t.join()
    assert f.total == done * len(keys)
    assert (f.estimate_many(keys) >= done).all()


def test_concurrent_fuse_queries_agree() -> None:
    """The static filter is read-only: any number of threads query it at once."""
    f = sketches.BinaryFuseFilter(np.arange(0, 400_000, 2, dtype=np.uint64), fingerprint_bits=16)
    queries = [np.arange(i * 50_000, (i + 1) * 50_000, dtype=np.uint64) for i in range(8)]
    expected = [f.contains_many(q) for q in queries]
    errors: list = []

    def work(i: int) -> None:
        try:
            for _ in range(5):
                assert (f.contains_many(queries[i]) == expected[i]).all()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(e[::2].all() for e in expected)  # the even numbers were built in
