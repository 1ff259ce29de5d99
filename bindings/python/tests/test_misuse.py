"""Misuse that must fail cleanly: membership and iteration of a Count-Min sketch, and binary
operations on a sketch another thread is updating (RuntimeError, never a panic)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import sketches


def _in_child(code: str) -> subprocess.CompletedProcess:
    # A child process: before the fix the statement never returned.
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)


@pytest.mark.parametrize("stmt", ["'a' in c", "list(c)", "for k in c: pass"])
def test_countmin_membership_and_iteration_raise_instead_of_looping_forever(stmt: str) -> None:
    code = (
        "import sketches\n"
        "c = sketches.CountMinSketch(0.01)\n"
        "c.add('a')\n"
        "try:\n"
        f"    exec({stmt!r})\n"
        "except TypeError as e:\n"
        "    print('TypeError', e)\n"
    )
    try:
        r = _in_child(code)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{stmt!r} on a CountMinSketch did not return")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("TypeError"), r.stdout
    c = sketches.CountMinSketch(0.01)
    c.add("a", 3)
    assert c["a"] == 3 and c.estimate("b") == 0


def _while_adding(busy, call):
    """Runs ``call()`` while another thread's ``busy.add_many`` holds ``busy``;
    returns the exception ``call`` raised (or None)."""
    import threading

    import numpy as np

    keys = np.arange(2_000_000, dtype=np.uint64)
    started = threading.Event()
    caught: list = []

    def adder() -> None:
        started.set()
        for _ in range(50):
            busy.add_many(keys)
            if caught:
                return

    t = threading.Thread(target=adder)
    t.start()
    started.wait()
    try:
        for _ in range(20000):
            try:
                call()
            except BaseException as e:  # noqa: BLE001 - a PanicException is a BaseException
                caught.append(e)
                return e
    finally:
        caught.append(None)
        t.join()
    return None


@pytest.mark.parametrize(
    "op",
    ["merge_busy_other", "merge_into_busy", "or_busy", "pickle_busy", "eq_busy", "jaccard_busy", "ell_or_busy"],
)
def test_binary_ops_on_a_sketch_another_thread_updates_raise_runtimeerror_not_panic(op: str) -> None:
    import pickle

    if op == "jaccard_busy":
        a, b = sketches.MinHash(64), sketches.MinHash(64)
        busy, call = b, lambda: a.jaccard(b)
    elif op == "ell_or_busy":
        a, b = sketches.ExaLogLog(10), sketches.ExaLogLog(10)
        busy, call = b, lambda: a | b
    else:
        a, b = sketches.BloomFilter(2_000_000), sketches.BloomFilter(2_000_000)
        busy, call = {
            "merge_busy_other": (b, lambda: a.merge(b)),
            "merge_into_busy": (a, lambda: a.merge(b)),
            "or_busy": (b, lambda: a | b),
            "pickle_busy": (a, lambda: pickle.dumps(a)),
            "eq_busy": (b, lambda: a == b),
        }[op]
    e = _while_adding(busy, call)
    assert e is not None, "the call never overlapped the other thread's update"
    assert isinstance(e, RuntimeError), f"{type(e).__name__}: {e}"
    assert "borrowed" in str(e)
