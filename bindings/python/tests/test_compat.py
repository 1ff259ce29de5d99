"""sketches.compat.BloomFilter behaves like pybloom-live's BloomFilter for
the same sequence of calls (side by side when pybloom-live is installed),
and the seed examples run."""

from __future__ import annotations

import io
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import sketches
from conftest import ShortWriter
from sketches.compat import BloomFilter

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_pybloom_live_api() -> None:
    bf = BloomFilter(capacity=1000, error_rate=0.001)
    assert bf.capacity == 1000 and bf.error_rate == 0.001
    assert bf.add("user_123") is False  # new
    assert bf.add("user_123") is True  # already present
    assert "user_123" in bf and "user_456" not in bf
    assert len(bf) == bf.count == 1
    assert bf.add(3.5) is False and 3.5 in bf  # other types hash as str(key)
    c = bf.copy()
    c.add("only-in-copy")
    assert "only-in-copy" not in bf
    other = BloomFilter(1000, 0.001)
    other.add("x")
    u = bf.union(other)
    assert "x" in u and "user_123" in u and (bf | other).count == u.count
    i = bf.intersection(other)
    assert "user_123" not in i
    assert "x" in (other & other)
    with pytest.raises(ValueError):
        bf.union(BloomFilter(10, 0.001))
    with pytest.raises(ValueError):
        BloomFilter(0)
    with pytest.raises(ValueError):
        BloomFilter(10, 1.0)
    f = io.BytesIO()
    bf.tofile(f)
    f.seek(0)
    back = BloomFilter.fromfile(f)
    assert back.capacity == 1000 and back.error_rate == 0.001 and "user_123" in back and back.count == bf.count
    assert bytes(back.filter) == bytes(bf.filter)
    f.seek(0)
    assert "user_123" in BloomFilter.fromfile(f, n=len(f.getvalue()))
    with pytest.raises(sketches.SketchError):
        BloomFilter.fromfile(io.BytesIO(f.getvalue()[:-3]))
    assert "user_123" in pickle.loads(pickle.dumps(bf))
    assert bf.add_many(["user_123", "new"]).tolist() == [True, False]
    assert bf.contains_many(["new", "nope"]).tolist() == [True, False]
    assert bf.num_slices == bf.filter.hashes and bf.num_bits == bf.filter.bits


def test_capacity_guard_like_pybloom_live() -> None:
    bf = BloomFilter(10, 0.01)
    for i in range(11):
        bf.add(f"k{i}")
    with pytest.raises(IndexError):
        bf.add("k11")  # count > capacity, as pybloom-live checks before adding
    assert bf.over_capacity


def test_same_answers_as_pybloom_live() -> None:
    pybloom = pytest.importorskip("pybloom_live")
    ours, theirs = BloomFilter(2000, 0.001), pybloom.BloomFilter(2000, 0.001)
    ops = [f"k{i % 1500}" for i in range(1800)]
    assert [ours.add(k) for k in ops] == [theirs.add(k) for k in ops]
    assert ours.count == theirs.count and len(ours) == len(theirs)
    assert [f"k{i}" in ours for i in range(1500)] == [f"k{i}" in theirs for i in range(1500)]
    for a in (ours, theirs):
        for i in range(2000, 2502):
            try:
                a.add(f"z{i}")
            except IndexError:
                break
    assert ours.count == theirs.count


@pytest.mark.parametrize("script", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_examples_run(script: str) -> None:
    env = dict(os.environ, SKETCHES_EXAMPLE_SCALE="0.01")
    out = subprocess.run([sys.executable, str(EXAMPLES / script)], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip()




def test_batches_take_the_keys_add_takes_and_nulls_are_not_present() -> None:
    """compat add_many reported a None key (or an Arrow null), which it
    skips, as 'already present' (True: the inverse of the native 'new'
    output, False for nulls), and add_many/contains_many raised TypeError
    on the float/tuple keys add() and ``in`` take (hashed as str(key)).
    Both batch methods now read keys as add() does and report nulls False;
    and add(np.int64(9)) hashed the str "9", so ``9 in bf`` was False: a
    NumPy integer is now the int it holds."""
    import numpy as np
    import pyarrow as pa

    bf = BloomFilter(1000, 0.001)
    assert bf.add_many(["a", None, 3.5, ("t", 1), "a"]).tolist() == [False, False, False, False, True]
    assert 3.5 in bf and ("t", 1) in bf and bf.count == 3
    assert bf.contains_many([3.5, None, ("t", 1), "zz"]).tolist() == [True, False, True, False]
    assert bf.contains_many(iter([3.5])).tolist() == [True]
    assert bf.add_many(pa.array(["a", None, "b"])).tolist() == [True, False, False]
    assert bf.add_many(pa.chunked_array([pa.array([None, "b"])])).tolist() == [False, True]
    assert bf.add_many(np.array([7, 7], np.int64)).tolist() == [False, True]
    assert bf.add_many(np.array([None, 2.5], dtype=object)).tolist() == [False, False] and 2.5 in bf
    # A NumPy integer is its int (add() hashed str(np.int64(9)), so 9 was not found).
    assert bf.add(np.int64(9)) is False and 9 in bf and np.uint8(9) in bf
    assert bf.add_many([np.int32(10)]).tolist() == [False] and 10 in bf and "10" not in bf


def test_bool_keys_are_their_str_as_in_pybloom_live() -> None:
    """The drop-in passed bools to the native add, which hashed True as the
    integer 1 and now refuses bools (TypeError); pybloom-live hashes
    ``str(True)``, so the drop-in does, single and in a batch."""
    from sketches.compat import BloomFilter

    bf = BloomFilter(capacity=100, error_rate=0.01)
    assert bf.add(True) is False
    assert True in bf and "True" in bf
    assert 1 not in bf and False not in bf
    assert bf.add_many([False, None]).tolist() == [False, False]  # True: already present
    assert bf.add_many(["False", True]).tolist() == [True, True]
    assert np.False_ in bf


def test_tofile_completes_short_writes_of_raw_streams() -> None:
    bf = BloomFilter(10_000, 0.001)
    bf.add("user_123")
    w = ShortWriter(1000)
    bf.tofile(w)
    assert bytes(w.out) == bytes(bf.filter)  # every byte, not the first write's 1000
    assert "user_123" in BloomFilter.fromfile(io.BytesIO(bytes(w.out)))
