"""The child side of test_concurrent_shm.py: a process that wraps shared
memory with ConcurrentSketch.wrap and adds its keys. A module of its own so
that processes started with "spawn" import only this (not pytest's test
module) to find the target."""

from __future__ import annotations

from multiprocessing import shared_memory
from typing import Any

import numpy as np

import sketches


def key_batches(lo: int, hi: int, size: int) -> list[Any]:
    """The keys lo..hi as NumPy uint64 batches, plus a list of str keys for
    the first `size` of them (two key shapes through the same image)."""
    arr = np.arange(lo, hi, dtype=np.uint64)
    batches: list[Any] = [arr[i : i + size] for i in range(0, len(arr), size)]
    batches.append([f"s-{k}" for k in range(lo, min(hi, lo + size))])
    return batches


def add_round_robin(wrapped: list[Any], work: list[list[Any]]) -> list[int]:
    """One batch per image in turn; returns how many keys each filter's
    add_many reported new."""
    new = [0] * len(wrapped)
    for step in range(max(len(w) for w in work)):
        for t, (c, batches) in enumerate(zip(wrapped, work)):
            if step < len(batches):
                out = c.add_many(batches[step])
                if out is not None:
                    new[t] += int(out.sum())
    return new


def add_to_shared(tasks: list[tuple[str, int, int]], size: int, barrier: Any, results: Any, index: int) -> None:
    """Wraps each task's shared memory, waits for the other processes, then
    adds each task's keys (lo..hi), one batch per image in turn. Puts
    (index, keys each filter reported new) on `results`, or (index, error
    text) when it fails."""
    memories = [shared_memory.SharedMemory(name=name) for name, _, _ in tasks]
    wrapped: list[Any] = []
    try:
        wrapped = [sketches.ConcurrentSketch.wrap(m.buf) for m in memories]
        work = [key_batches(lo, hi, size) for _, lo, hi in tasks]
        barrier.wait(timeout=60)
        results.put((index, add_round_robin(wrapped, work)))
    except BaseException as e:
        # Tell the parent at once (it waits on `results`) and free the others.
        barrier.abort()
        results.put((index, f"process {index} failed: {e!r}"))
        raise
    finally:
        wrapped.clear()  # release the buffer exports before closing
        for m in memories:
            m.close()
