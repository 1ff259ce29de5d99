"""Drop-in replacements for other Python sketch packages.

:class:`BloomFilter` has pybloom-live's API and semantics, so code written
for pybloom-live (the seeds' examples among it) switches with one line::

    from pybloom_live import BloomFilter      # before
    from sketches.compat import BloomFilter   # after

What is the same: ``BloomFilter(capacity, error_rate=0.001)``; ``add(key)``
returns True when the key was *already* present (False when it was new);
``key in bf``; ``len(bf)`` and ``count`` (keys added that were new);
``capacity``, ``error_rate``, ``num_slices``, ``num_bits``; ``add`` raises
IndexError once ``count`` exceeds ``capacity`` (pybloom-live's guard
against silent overfill); ``copy()``, ``union``/``|``, ``intersection``/``&``
(ValueError unless capacity and error rate match); ``tofile(f)`` /
``BloomFilter.fromfile(f, n=-1)``; pickling.

What differs:

* the bytes: ``tofile`` writes the library's exported image (checksummed,
  readable by C, Go, Java and ``sketches.BloomFilter.from_bytes``), not
  pybloom-live's bitarray dump, so files of one cannot be read by the other;
  damaged files raise :class:`sketches.SketchError`;
* hashing follows the library rule: ``str`` as UTF-8, bytes as they are,
  ``int`` as 8 little-endian bytes (so ``5`` and ``"5"`` are different keys,
  whereas pybloom-live hashes ``str(5)``; NumPy integers as the int they
  hold); any other key (bool, float, tuple, ...)
  is hashed as ``str(key)`` like pybloom-live does;
* sizing: the filter is planned with m = -n ln p / ln^2 2 bits and
  k = round(m/n ln 2) probes over the whole bit array (pybloom-live splits
  ceil(log2(1/p)) slices), i.e. about the same memory and rate;
* ``skip_check=True`` adds without reporting presence (returns False) but
  ``count`` still counts only keys that were new.

``bf.filter`` is the underlying :class:`sketches.BloomFilter` (batch
methods ``add_many``/``contains_many``, ``over_capacity``, ``stats()``...).
"""

from __future__ import annotations

import numbers
import operator
import sys
from typing import Any, BinaryIO, Iterable

import numpy as np

from . import _native

__all__ = ["BloomFilter"]


def _key(key: Any) -> Any:
    if isinstance(key, bool):
        return str(key)  # "True", as pybloom-live hashes it (the native layer refuses bools)
    if isinstance(key, (str, bytes, bytearray, memoryview, int)):
        return key
    if isinstance(key, numbers.Integral):
        return operator.index(key)  # a NumPy integer is the int it holds, not str(key)
    return str(key)


def _batch(keys: Any) -> "tuple[Any, np.ndarray | None]":
    """A batch as ``add``/``in`` read keys (other objects as ``str(key)``,
    ``None`` kept as a null), with its null mask (None: no nulls)."""
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(keys, (pa.Array, pa.ChunkedArray)):
        nulls = np.asarray(keys.is_null().to_numpy(zero_copy_only=False), dtype=bool) if keys.null_count else None
        return keys, nulls
    if isinstance(keys, np.ndarray) and keys.dtype.kind != "O":
        return keys, None
    if isinstance(keys, (str, bytes, bytearray, memoryview)):
        return keys, None  # the native layer's TypeError: one key is not a batch
    seq = [None if k is None else _key(k) for k in keys]
    return seq, np.array([k is None for k in seq], dtype=bool)


class BloomFilter:
    """pybloom-live's ``BloomFilter`` on the library's Bloom filter.

    ``capacity``: keys the filter must hold while keeping ``error_rate``
    false positives; adding more than ``capacity`` new keys raises
    IndexError, as in pybloom-live.
    """

    __slots__ = ("filter", "capacity", "error_rate")

    filter: _native.BloomFilter
    capacity: int
    error_rate: float

    def __init__(self, capacity: int, error_rate: float = 0.001) -> None:
        if not (0 < error_rate < 1):
            raise ValueError("Error_Rate must be between 0 and 1.")
        if not capacity > 0:
            raise ValueError("Capacity must be > 0")
        self.filter = _native.BloomFilter(int(capacity), float(error_rate))
        self.capacity = int(capacity)
        self.error_rate = float(error_rate)

    @classmethod
    def _from_filter(cls, f: _native.BloomFilter) -> "BloomFilter":
        self = cls.__new__(cls)
        self.filter = f
        self.capacity = f.planned_items
        self.error_rate = f.planned_fpr
        return self

    def add(self, key: Any, skip_check: bool = False) -> bool:
        """Adds a key. Returns True if it was already present, else False.

        Raises IndexError when more than ``capacity`` keys were added.
        """
        if self.filter.inserted > self.capacity:
            raise IndexError("BloomFilter is at capacity")
        was_new = self.filter.add(_key(key))
        return False if skip_check else not was_new

    def add_many(self, keys: Iterable[Any]) -> np.ndarray:
        """Adds a batch of keys (list, NumPy integer array, pyarrow column);
        returns a NumPy bool array, True where the key was already present.
        Keys are read as ``add`` reads them; ``None`` entries and Arrow
        nulls are skipped (False). Does not raise at capacity: check
        ``over_capacity``."""
        keys, nulls = _batch(keys)
        present = ~self.filter.add_many(keys)
        if nulls is not None:
            present &= ~nulls
        return present

    def contains_many(self, keys: Iterable[Any]) -> np.ndarray:
        """Tests a batch of keys (read as ``in`` reads them; nulls False);
        returns a NumPy bool array."""
        return self.filter.contains_many(_batch(keys)[0])

    def __contains__(self, key: Any) -> bool:
        return _key(key) in self.filter

    def __len__(self) -> int:
        return self.filter.inserted

    @property
    def count(self) -> int:
        """Keys added that were new (pybloom-live's ``count``)."""
        return self.filter.inserted

    @property
    def num_slices(self) -> int:
        """Probes per key ``k``."""
        return self.filter.hashes

    @property
    def num_bits(self) -> int:
        """Bits ``m``."""
        return self.filter.bits

    @property
    def over_capacity(self) -> bool:
        """True once the filter is past its plan (see ``sketches.BloomFilter``)."""
        return self.filter.over_capacity

    def copy(self) -> "BloomFilter":
        """An independent copy."""
        return BloomFilter._from_filter(self.filter.copy())

    def _check_same(self, other: "BloomFilter", what: str) -> None:
        if self.capacity != other.capacity or self.error_rate != other.error_rate:
            raise ValueError(f"{what} filters requires both filters to have both the same capacity and error rate")

    def union(self, other: "BloomFilter") -> "BloomFilter":
        """A new filter holding the keys of both."""
        self._check_same(other, "Unioning")
        return BloomFilter._from_filter(self.filter | other.filter)

    def __or__(self, other: "BloomFilter") -> "BloomFilter":
        return self.union(other)

    def intersection(self, other: "BloomFilter") -> "BloomFilter":
        """A new filter of the bitwise AND of both (keys of both, maybe more)."""
        self._check_same(other, "Intersecting")
        return BloomFilter._from_filter(self.filter & other.filter)

    def __and__(self, other: "BloomFilter") -> "BloomFilter":
        return self.intersection(other)

    def tofile(self, f: BinaryIO) -> None:
        """Writes the filter's exported image (checksummed) to a binary file
        object: ``self.filter.write_to(f)`` (``write`` called until every
        byte is taken, from the live image with no copy of it; its errors)."""
        self.filter.write_to(f)

    @classmethod
    def fromfile(cls, f: BinaryIO, n: int = -1) -> "BloomFilter":
        """Reads a filter written by ``tofile`` (``n`` > 0: read only ``n`` bytes).

        Damaged bytes raise :class:`sketches.SketchError`.
        """
        data = f.read(n) if n > 0 else f.read()
        return cls._from_filter(_native.BloomFilter.from_bytes(data))

    def __reduce__(self) -> Any:
        return (_restore, (bytes(self.filter),))

    def __repr__(self) -> str:
        return f"<sketches.compat.BloomFilter capacity={self.capacity} error_rate={self.error_rate} count={self.count}>"


def _restore(data: bytes) -> BloomFilter:
    return BloomFilter._from_filter(_native.BloomFilter.from_bytes(data))


