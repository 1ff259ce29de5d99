"""Type stubs of the native extension (sketches._native); see the docstrings
of the classes at run time for the full documentation."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Literal, Optional, Sequence, Tuple, TypeVar, Union

import numpy as np
import numpy.typing as npt

Key = Union[str, bytes, bytearray, memoryview, int]
"""A key: str (hashed as UTF-8), bytes-like (as is), int (8 little-endian bytes);
a bool raises TypeError.
A Parquet-mode SplitBlockBloomFilter refuses Python ints (TypeError: INT32 or
INT64?) and takes NumPy int64/uint64 scalars as INT64 values."""
Keys = Union[Sequence[Optional[Key]], Iterable[Optional[Key]], npt.NDArray[np.integer[Any]], Any]
"""A batch: list/tuple/iterable of keys (None skipped), a NumPy integer array,
or a pyarrow Binary/String/LargeBinary/LargeString/integer Array or ChunkedArray."""
Buffer = Any
"""Any object with the buffer protocol (bytes, bytearray, memoryview, mmap, NumPy array)."""
BinaryReader = Any
"""A binary file-like with ``readinto(buffer) -> int | None`` or ``read(n) -> bytes | None``
(a file opened "rb", io.BytesIO, socket.makefile("rb"), a raw stream)."""
BinaryWriter = Any
"""A binary file-like with ``write(bytes-like) -> int | None`` (a file opened "wb", io.BytesIO, a socket file)."""
Weights = Union[Sequence[int], npt.NDArray[np.integer[Any]], Any]
"""One integer in 0 .. 2**64-1 per key (ValueError naming a value out of range,
TypeError for bools and floats), as a single ``add(key, weight)`` takes."""
ParquetSizing = Literal["parquet-rs", "duckdb", "arrow-cpp", "pyarrow"]
"""A Parquet writer's bitset sizing rule (pyarrow = arrow-cpp)."""

_S = TypeVar("_S", bound="_Sketch")

FORMAT_MAJOR: int
IMAGE_ALIGN: int
IMAGE_MIN_ALIGN: int
CAPACITY_OVER_PLANNED_ITEMS: int
CAPACITY_FPR_ABOVE_TWICE_PLANNED: int
STATUSES: list[tuple[int, str]]

def hash(key: Key, seed: int = 0) -> int:
    """XXH3-64 of the key's bytes with ``seed`` (the rule every binding uses)."""

def hash_many(keys: Keys, seed: int = 0) -> npt.NDArray[np.uint64]:
    """The hashes of a batch of keys (0 for nulls)."""

def parquet_hash_int32(value: int) -> int:
    """Parquet's hash of an INT32 value (XXH64 seed 0 of 4 little-endian bytes);
    -2**31 .. 2**32-1 (uint32 values as their bits), else OverflowError."""

def parquet_hash_int64(value: int) -> int:
    """Parquet's hash of an INT64 value (8 little-endian bytes); -2**63 .. 2**64-1."""

def parquet_hash_float(value: float) -> int:
    """Parquet's hash of a FLOAT value: the float32 bits of ``value`` (rounded;
    OverflowError beyond float32's range); -0.0 and 0.0 differ."""

def parquet_hash_double(value: float) -> int:
    """Parquet's hash of a DOUBLE value: its raw IEEE-754 bits."""

def parquet_hash_bytes(value: Union[str, Buffer]) -> int:
    """Parquet's hash of a BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY value (str as UTF-8), no length prefix."""

def parquet_hash_many(values: Any) -> npt.NDArray[np.uint64]:
    """Parquet hashes of a batch: NumPy/pyarrow int8..int32/uint8..uint32 as INT32,
    int64/uint64 as INT64, float32 as FLOAT, float64 as DOUBLE, str/bytes (pyarrow
    String/Binary) as BYTE_ARRAY; lists of Python ints or floats raise TypeError (INT32 or
    INT64? pass np.asarray(values, np.int32) etc.)."""

def status_str(status: int) -> str:
    """The text of a status number (C's ``sketch_status_str``)."""

def inspect(data: Buffer, *, header_only: bool = False) -> dict[str, Any]:
    """The common header of any image: family, hash id, versions, flags, seed, lengths.

    ``header_only=True`` reads only the first 48 bytes (what a reader of a
    file or socket holds first): ``image_bytes`` is then the length the
    header records, which a hostile header may make huge (bound it before
    reading that much). By default ``data`` must hold the whole image
    (``BUFFER_TOO_SMALL`` otherwise). Raises SketchError: BUFFER_TOO_SMALL,
    BAD_MAGIC, UNSUPPORTED_VERSION, UNSUPPORTED_HASH, CORRUPT_HEADER."""

class _Sketch:
    """Methods every family has (not a real base class at run time)."""

    @classmethod
    def from_bytes(cls: type[_S], data: Buffer) -> _S:
        """Checked import of exported bytes; damaged bytes raise SketchError."""
    @classmethod
    def wrap(cls: type[_S], buffer: Buffer) -> _S:
        """Zero-copy view over a live image in an 8-byte aligned buffer, held
        (not resizable or closable: BufferError) while the sketch lives.
        Objects wrapping overlapping memory take turns as one object
        (RuntimeError "Already borrowed" during another's update)."""
    @staticmethod
    def verify(data: Buffer) -> None:
        """Checks exported bytes as from_bytes does; raises SketchError when damaged."""
    def __bytes__(self) -> bytes: ...
    def write_to(self, f: BinaryWriter) -> int:
        """Writes exactly bytes(self) to a binary file-like (write called until
        every byte is taken); returns the byte count. No copy of the image:
        the checksum is computed on the live image, which goes out in chunks
        of at most 1 MiB (each a fresh bytes). The sketch stays borrowed
        until the last write returned: an update from another thread
        meanwhile raises RuntimeError. A raw non-blocking stream taking
        nothing raises BlockingIOError (added by sketches._stream)."""
    @classmethod
    def read(cls: type[_S], f: BinaryReader) -> Optional[_S]:
        """Reads exactly one image of this family from a binary file-like
        (header, then exactly the length it records); None at a clean end of
        the stream; SketchError LENGTH_MISMATCH when it ends inside the image,
        WRONG_FAMILY (before the body is read) for another family, and what
        from_bytes raises for a damaged image (added by sketches._stream)."""
    def to_bytes(self) -> bytes:
        """The exported image (checksummed)."""
    def _write_chunks(self, emit: Callable[[bytes, int], None], chunk_bytes: int) -> int:
        """write_to's native part: emit(chunk, total) with the bytes of
        bytes(self) in order, fresh bytes of at most chunk_bytes (>= 48)
        each, the sketch borrowed until the last emit returned."""
    def copy(self: _S) -> _S:
        """An independent copy in its own aligned memory."""
    def __copy__(self: _S) -> _S: ...
    def __deepcopy__(self: _S, memo: Any) -> _S: ...
    def __reduce__(self) -> Any: ...
    def __eq__(self, other: object) -> bool: ...
    def __sizeof__(self) -> int: ...
    @property
    def nbytes(self) -> int:
        """Bytes of the live image."""
    @property
    def seed(self) -> int:
        """The hash seed in the image."""
    @property
    def writable(self) -> bool:
        """False when wrapping a read-only buffer."""
    def stats(self) -> dict[str, Any]:
        """Every statistic in a dict."""

class BloomFilter(_Sketch):
    """Classic Bloom filter planned from (items, fpr) or (bits=, hashes=)."""

    def __init__(
        self,
        items: Optional[int] = None,
        fpr: float = 0.01,
        *,
        bits: Optional[int] = None,
        hashes: Optional[int] = None,
        seed: int = 0,
    ) -> None: ...
    @staticmethod
    def size_for(
        items: Optional[int] = None,
        fpr: float = 0.01,
        *,
        bits: Optional[int] = None,
        hashes: Optional[int] = None,
    ) -> int:
        """Exact image size in bytes of the filter these arguments make."""
    def add(self, key: Key) -> bool:
        """Adds a key; True when it was new."""
    def __contains__(self, key: Key) -> bool: ...
    def contains(self, key: Key) -> bool: ...
    def add_many(self, keys: Keys) -> npt.NDArray[np.bool_]:
        """Adds a batch; True where the key was new."""
    def contains_many(self, keys: Keys) -> npt.NDArray[np.bool_]:
        """Tests a batch (GIL released)."""
    def merge(self, other: BloomFilter) -> None:
        """In-place union."""
    def union(self, other: BloomFilter) -> None: ...
    def intersect(self, other: BloomFilter) -> None:
        """In-place intersection."""
    def __or__(self, other: BloomFilter) -> BloomFilter: ...
    def __ior__(self, other: BloomFilter) -> BloomFilter: ...
    def __and__(self, other: BloomFilter) -> BloomFilter: ...
    def __iand__(self, other: BloomFilter) -> BloomFilter: ...
    def __len__(self) -> int: ...
    bits: int
    hashes: int
    planned_items: int
    planned_fpr: float
    add_calls: int
    inserted: int
    estimated_items: float
    estimated_fpr: float
    capacity_flags: int
    over_capacity: bool
    def clear(self) -> None:
        """Empties the sketch (parameters and seed kept)."""
    def concurrent(self) -> ConcurrentSketch:
        """ConcurrentSketch(self): a copy many threads may add to at once."""

class SplitBlockBloomFilter(_Sketch):
    """Split-block Bloom filter (256-bit blocks); parquet=True for Parquet's layout."""

    def __init__(
        self,
        items: Optional[int] = None,
        fpr: float = 0.01,
        *,
        blocks: Optional[int] = None,
        parquet: bool = False,
        seed: int = 0,
        sizing: Optional[ParquetSizing] = None,
    ) -> None: ...
    @staticmethod
    def size_for(
        items: Optional[int] = None,
        fpr: float = 0.01,
        parquet: bool = False,
        *,
        blocks: Optional[int] = None,
        sizing: Optional[ParquetSizing] = None,
    ) -> int: ...
    @classmethod
    def for_parquet(cls, ndv: int, fpp: float = 0.01, sizing: ParquetSizing = "parquet-rs") -> SplitBlockBloomFilter:
        """A Parquet-mode filter sized as the given writer sizes a column's bitset."""
    @classmethod
    def from_parquet_bitset(cls, bitset: Buffer, fpr: float, *, ndv: Optional[int] = None) -> SplitBlockBloomFilter:
        """A Parquet-mode filter holding a copy of a bitset read out of a Parquet file."""
    def fold(self, folds: int) -> None:
        """Halves the block count ``folds`` times in place (SketchError, unchanged, when it does not divide)."""
    def fold_to_target_fpp(self, fpp: float) -> int:
        """Folds in place as the parquet crate and pyarrow do before writing; returns the folds."""
    def add(self, key: Key) -> bool: ...
    def __contains__(self, key: Key) -> bool: ...
    def contains(self, key: Key) -> bool: ...
    def add_hash(self, hash: int) -> bool:
        """Adds a precomputed hash (parquet_hash_* in Parquet mode, sketches.hash(key, seed) natively)."""
    def contains_hash(self, hash: int) -> bool: ...
    def add_hashes(self, hashes: Union[Sequence[int], npt.NDArray[np.unsignedinteger[Any]], Any]) -> npt.NDArray[np.bool_]:
        """Adds a batch of precomputed hashes (e.g. parquet_hash_many's result)."""
    def contains_hashes(
        self, hashes: Union[Sequence[int], npt.NDArray[np.unsignedinteger[Any]], Any]
    ) -> npt.NDArray[np.bool_]: ...
    def add_many(self, keys: Keys) -> npt.NDArray[np.bool_]: ...
    def contains_many(self, keys: Keys) -> npt.NDArray[np.bool_]: ...
    def merge(self, other: SplitBlockBloomFilter) -> None: ...
    def union(self, other: SplitBlockBloomFilter) -> None: ...
    def intersect(self, other: SplitBlockBloomFilter) -> None: ...
    def __or__(self, other: SplitBlockBloomFilter) -> SplitBlockBloomFilter: ...
    def __ior__(self, other: SplitBlockBloomFilter) -> SplitBlockBloomFilter: ...
    def __and__(self, other: SplitBlockBloomFilter) -> SplitBlockBloomFilter: ...
    def __iand__(self, other: SplitBlockBloomFilter) -> SplitBlockBloomFilter: ...
    def __len__(self) -> int: ...
    def bitset(self) -> bytes:
        """The blocks (Parquet's bitset in Parquet mode)."""
    blocks: int
    bits: int
    parquet: bool
    planned_items: int
    planned_fpr: float
    add_calls: int
    inserted: int
    estimated_fpr: float
    capacity_flags: int
    over_capacity: bool
    def clear(self) -> None:
        """Empties the sketch (parameters and seed kept)."""
    def concurrent(self) -> ConcurrentSketch:
        """ConcurrentSketch(self): a copy many threads may add to at once."""

class CountingBloomFilter(_Sketch):
    """Counting Bloom filter (4-bit saturating counters) with removal."""

    def __init__(
        self,
        items: Optional[int] = None,
        fpr: float = 0.01,
        *,
        counters: Optional[int] = None,
        hashes: Optional[int] = None,
        seed: int = 0,
    ) -> None: ...
    @staticmethod
    def size_for(
        items: Optional[int] = None,
        fpr: float = 0.01,
        *,
        counters: Optional[int] = None,
        hashes: Optional[int] = None,
    ) -> int:
        """Exact image size in bytes of the filter these arguments make."""
    def add(self, key: Key) -> bool: ...
    def remove(self, key: Key) -> None:
        """Removes one occurrence; KeyError when certainly absent."""
    def discard(self, key: Key) -> bool: ...
    def __contains__(self, key: Key) -> bool: ...
    def contains(self, key: Key) -> bool: ...
    def add_many(self, keys: Keys) -> npt.NDArray[np.bool_]: ...
    def remove_many(self, keys: Keys) -> npt.NDArray[np.bool_]: ...
    def contains_many(self, keys: Keys) -> npt.NDArray[np.bool_]: ...
    def merge(self, other: CountingBloomFilter) -> None: ...
    def __add__(self, other: CountingBloomFilter) -> CountingBloomFilter: ...
    def __iadd__(self, other: CountingBloomFilter) -> CountingBloomFilter: ...
    def __len__(self) -> int: ...
    counters: int
    hashes: int
    planned_items: int
    planned_fpr: float
    estimated_fpr: float
    capacity_flags: int
    over_capacity: bool
    def clear(self) -> None:
        """Empties the sketch (parameters and seed kept)."""

class CuckooFilter(_Sketch):
    """Cuckoo filter (buckets of 4) with removal and counting."""

    def __init__(
        self,
        items: Optional[int] = None,
        fpr: float = 0.01,
        *,
        buckets: Optional[int] = None,
        fingerprint_bits: Optional[int] = None,
        seed: int = 0,
    ) -> None: ...
    @staticmethod
    def size_for(
        items: Optional[int] = None,
        fpr: float = 0.01,
        *,
        buckets: Optional[int] = None,
        fingerprint_bits: Optional[int] = None,
    ) -> int:
        """Exact image size in bytes of the filter these arguments make."""
    def add(self, key: Key) -> None:
        """Adds a key; SketchError(status FULL) when it cannot be placed (nothing changes)."""
    def count(self, key: Key) -> int: ...
    def remove(self, key: Key) -> None: ...
    def discard(self, key: Key) -> bool: ...
    def __contains__(self, key: Key) -> bool: ...
    def contains(self, key: Key) -> bool: ...
    def add_many(self, keys: Keys) -> npt.NDArray[np.bool_]: ...
    def remove_many(self, keys: Keys) -> npt.NDArray[np.bool_]:
        """Removes a batch (GIL released); True where one occurrence was removed."""
    def contains_many(self, keys: Keys) -> npt.NDArray[np.bool_]: ...
    def merge(self, other: CuckooFilter) -> None: ...
    def __add__(self, other: CuckooFilter) -> CuckooFilter: ...
    def __iadd__(self, other: CuckooFilter) -> CuckooFilter: ...
    def __len__(self) -> int: ...
    buckets: int
    fingerprint_bits: int
    load: float
    planned_items: int
    planned_fpr: float
    estimated_fpr: float
    capacity_flags: int
    over_capacity: bool
    def clear(self) -> None:
        """Empties the sketch (parameters and seed kept)."""

class BinaryFuseFilter(_Sketch):
    """Static binary fuse filter (8- or 16-bit fingerprints) built once from
    a set of keys; read-only afterwards (no add: build a new one)."""

    def __init__(
        self,
        keys: Keys,
        fpr: Optional[float] = None,
        *,
        fingerprint_bits: Optional[int] = None,
        seed: int = 0,
    ) -> None: ...
    @staticmethod
    def size_for(keys: int, fingerprint_bits: Optional[int] = None, *, fpr: Optional[float] = None) -> int:
        """Exact image size in bytes (width from fingerprint_bits or fpr=; 8 bits when neither)."""
    @staticmethod
    def scratch_size_for(keys: int, fingerprint_bits: Optional[int] = None, *, fpr: Optional[float] = None) -> int:
        """Temporary bytes the build allocates (about 32 per key)."""
    def __contains__(self, key: Key) -> bool: ...
    def contains(self, key: Key) -> bool: ...
    def contains_many(self, keys: Keys) -> npt.NDArray[np.bool_]:
        """Tests a batch (GIL released)."""
    def __len__(self) -> int: ...
    fingerprint_bits: int
    planned_keys: int
    fpr: float
    bits_per_key: float
    attempts: int

class HyperLogLog(_Sketch):
    """HyperLogLog, precision 4..18, exact small mode."""

    def __init__(self, precision: int = 14, *, seed: int = 0) -> None: ...
    @staticmethod
    def size_for(precision: int = 14) -> int: ...
    def add(self, key: Key) -> bool: ...
    def add_many(self, keys: Keys) -> None: ...
    def estimate(self) -> float: ...
    def register_estimate(self) -> float: ...
    def __len__(self) -> int: ...
    def __float__(self) -> float: ...
    def merge(self, other: HyperLogLog) -> None: ...
    def union(self, other: HyperLogLog) -> None: ...
    def __or__(self, other: HyperLogLog) -> HyperLogLog: ...
    def __ior__(self, other: HyperLogLog) -> HyperLogLog: ...
    def downsize(self, precision: int) -> HyperLogLog: ...
    def registers(self) -> npt.NDArray[np.uint8]: ...
    def densify(self) -> None:
        """Small mode to dense registers in place (no-op when dense; estimate unchanged);
        needed before ConcurrentSketch.wrap on this image's memory."""
    precision: int
    mode: str
    martingale: bool
    def clear(self) -> None:
        """Empties the sketch (parameters and seed kept)."""
    def concurrent(self) -> ConcurrentSketch:
        """ConcurrentSketch(self): a copy many threads may add to at once."""

class UltraLogLog(_Sketch):
    """UltraLogLog, precision 4..18: HLL's error in ~28% less memory."""

    def __init__(self, precision: int = 14, *, seed: int = 0) -> None: ...
    @staticmethod
    def size_for(precision: int = 14) -> int: ...
    def add(self, key: Key) -> bool: ...
    def add_many(self, keys: Keys) -> None: ...
    def estimate(self) -> float: ...
    def register_estimate(self) -> float: ...
    def ml_estimate(self) -> float: ...
    def __len__(self) -> int: ...
    def __float__(self) -> float: ...
    def merge(self, other: UltraLogLog) -> None: ...
    def union(self, other: UltraLogLog) -> None: ...
    def __or__(self, other: UltraLogLog) -> UltraLogLog: ...
    def __ior__(self, other: UltraLogLog) -> UltraLogLog: ...
    def to_hll(self) -> HyperLogLog: ...
    def registers(self) -> npt.NDArray[np.uint8]: ...
    precision: int
    martingale: bool
    standard_error: float
    def clear(self) -> None:
        """Empties the sketch (parameters and seed kept)."""
    def concurrent(self) -> ConcurrentSketch:
        """ConcurrentSketch(self): a copy many threads may add to at once."""

class ExaLogLog(_Sketch):
    """ExaLogLog, precision 2..24, d=20 (28-bit registers) or d=24 (32-bit)."""

    def __init__(self, precision: int = 12, *, d: int = 20, seed: int = 0) -> None: ...
    @staticmethod
    def size_for(precision: int = 12, d: int = 20) -> int: ...
    @staticmethod
    def precision_for(relative_error: float, d: int = 20) -> int:
        """Smallest precision whose ML standard error is at most relative_error."""
    def add(self, key: Key) -> bool: ...
    def add_many(self, keys: Keys) -> None: ...
    def estimate(self) -> float: ...
    def ml_estimate(self) -> float: ...
    def martingale_estimate(self) -> Optional[float]: ...
    def __len__(self) -> int: ...
    def __float__(self) -> float: ...
    def merge(self, other: ExaLogLog) -> None: ...
    def union(self, other: ExaLogLog) -> None: ...
    def __or__(self, other: ExaLogLog) -> ExaLogLog: ...
    def __ior__(self, other: ExaLogLog) -> ExaLogLog: ...
    def downsize(self, precision: Optional[int] = None, *, d: Optional[int] = None) -> ExaLogLog: ...
    def registers(self) -> npt.NDArray[np.uint32]: ...
    def clear(self) -> None:
        """Empties the sketch (parameters and seed kept)."""
    precision: int
    d: int
    t: int
    martingale: bool
    standard_error: float

class CountMinSketch(_Sketch):
    """Count-Min sketch: counts that never underestimate while no counter
    saturated (32-bit counters stop at 2^32 - 1)."""

    def __init__(
        self,
        epsilon: Optional[float] = None,
        delta: float = 0.01,
        *,
        width: Optional[int] = None,
        depth: Optional[int] = None,
        conservative: bool = False,
        counter_bits: int = 32,
        seed: int = 0,
    ) -> None: ...
    @staticmethod
    def size_for(
        epsilon: Optional[float] = None,
        delta: float = 0.01,
        *,
        width: Optional[int] = None,
        depth: Optional[int] = None,
        conservative: bool = False,
        counter_bits: int = 32,
    ) -> int:
        """Exact image size in bytes of the sketch these arguments make."""
    def add(self, key: Key, weight: int = 1) -> None: ...
    def add_many(self, keys: Keys, weights: Optional[Weights] = None) -> None: ...
    def estimate(self, key: Key) -> int: ...
    def __getitem__(self, key: Key) -> int: ...
    def estimate_many(self, keys: Keys) -> npt.NDArray[np.uint64]: ...
    def merge(self, other: CountMinSketch) -> None: ...
    def __add__(self, other: CountMinSketch) -> CountMinSketch: ...
    def __iadd__(self, other: CountMinSketch) -> CountMinSketch: ...
    total: int
    error_bound: float
    width: int
    depth: int
    epsilon: float
    delta: float
    conservative: bool
    counter_bits: int
    def clear(self) -> None:
        """Empties the sketch (parameters and seed kept)."""

class TopK(_Sketch):
    """Top-k heavy hitters (Space-Saving), keys stored inline."""

    def __init__(self, capacity: int, max_key_len: int = 64, *, seed: int = 0) -> None: ...
    @staticmethod
    def size_for(capacity: int, max_key_len: int = 64) -> int:
        """Exact image size in bytes of ``TopK(capacity, max_key_len)``."""
    def add(self, key: Key, weight: int = 1) -> None:
        """Adds ``weight`` occurrences; a weight of 0 changes nothing (it
        takes no counter and evicts no key)."""
    def add_many(self, keys: Keys, weights: Optional[Weights] = None) -> None: ...
    def estimate(self, key: Key) -> Tuple[int, int]:
        """(count, error) of a key."""
    def __contains__(self, key: Key) -> bool: ...
    def top(self, n: Optional[int] = None) -> list[tuple[bytes, int, int]]: ...
    def merge(self, other: TopK) -> None: ...
    def __add__(self, other: TopK) -> TopK: ...
    def __iadd__(self, other: TopK) -> TopK: ...
    def __len__(self) -> int: ...
    capacity: int
    max_key_len: int
    total: int
    min_count: int
    def clear(self) -> None:
        """Empties the sketch (parameters and seed kept)."""

class MinHash(_Sketch):
    """MinHash with k registers (one-permutation hashing, densified)."""

    def __init__(self, k: int = 128, *, seed: int = 0) -> None: ...
    @staticmethod
    def size_for(k: int = 128) -> int:
        """Exact image size in bytes of ``MinHash(k)``."""
    def add(self, key: Key) -> bool: ...
    def add_many(self, keys: Keys) -> None: ...
    def jaccard(self, other: MinHash) -> float: ...
    def signature(self) -> npt.NDArray[np.uint64]: ...
    def merge(self, other: MinHash) -> None: ...
    def union(self, other: MinHash) -> None: ...
    def __or__(self, other: MinHash) -> MinHash: ...
    def __ior__(self, other: MinHash) -> MinHash: ...
    k: int
    filled: int
    is_empty: bool
    def clear(self) -> None:
        """Empties the sketch (parameters and seed kept)."""

class ConcurrentSketch:
    """A copy of a BloomFilter, SplitBlockBloomFilter, HyperLogLog or
    UltraLogLog that any number of threads may add to and query at once.

    The source is copied (a small-mode HyperLogLog densified in the copy) and
    never changed; ``snapshot()`` returns the result as a sketch of the
    source's class. After the adding threads are joined, its bits/registers
    equal the same adds made one at a time; ``inserted`` (filters) and the
    martingale estimate (HyperLogLog, UltraLogLog) differ. Pickles as
    ``ConcurrentSketch(self.snapshot())``; ``write_to(f)`` writes
    ``bytes(self.snapshot())`` and ``ConcurrentSketch.read(f)`` reads one back.

    ``ConcurrentSketch.wrap(buffer)`` instead adds to the image in a
    writable, 8-byte aligned buffer (shared memory, mmap, NumPy array),
    zero-copy: any number of threads in any number of processes that wrap
    the same memory may call every method at once. While they add, only
    concurrent operations may touch the memory. Its ``snapshot()`` holds off
    only this object's adds (other processes' may be caught half done; a
    copy failing validation is retried up to 20 times, then SketchError);
    exact once every writer is done. A wrapped object refuses to pickle
    (TypeError).
    """

    def __init__(
        self, sketch: Union[BloomFilter, SplitBlockBloomFilter, HyperLogLog, UltraLogLog]
    ) -> None:
        """Copies the sketch; any other class raises TypeError."""
    @classmethod
    def wrap(cls, buffer: Buffer) -> ConcurrentSketch:
        """Zero-copy over a live Bloom, split-block, dense HyperLogLog or
        UltraLogLog image in a writable, 8-byte aligned buffer, for adds from
        many processes at once. TypeError for a read-only buffer; SketchError
        for a misaligned or short buffer, another family, a damaged header,
        or a small-mode HyperLogLog (SMALL_MODE: densify() it first). The
        buffer export is held while the object lives."""
    def add(self, key: Key) -> bool:
        """What the family's add returns (new key / register changed). Thread-safe."""
    def add_many(self, keys: Keys) -> Optional[npt.NDArray[np.bool_]]:
        """Filters: bool array, True where new; HyperLogLog/UltraLogLog: None. GIL released."""
    def __contains__(self, key: Key) -> bool:
        """Filters only (TypeError otherwise)."""
    def contains(self, key: Key) -> bool:
        """Filters only (TypeError otherwise)."""
    def contains_many(self, keys: Keys) -> npt.NDArray[np.bool_]:
        """Filters only (TypeError otherwise); GIL released."""
    def add_hash(self, hash: int) -> bool:
        """Split-block filters: adds a precomputed hash (parquet_hash_* in Parquet mode)."""
    def contains_hash(self, hash: int) -> bool: ...
    def add_hashes(self, hashes: Union[Sequence[int], npt.NDArray[np.unsignedinteger[Any]], Any]) -> npt.NDArray[np.bool_]:
        """Split-block filters: adds a batch of precomputed hashes (GIL released)."""
    def contains_hashes(
        self, hashes: Union[Sequence[int], npt.NDArray[np.unsignedinteger[Any]], Any]
    ) -> npt.NDArray[np.bool_]: ...
    def estimate(self) -> float:
        """HyperLogLog/UltraLogLog only: the register estimate (approximate during adds)."""
    @property
    def capacity_flags(self) -> int:
        """Filters only (TypeError otherwise): CAPACITY_* flags read with atomic loads
        while other threads add (exact once they are done). Thread-safe."""
    @property
    def over_capacity(self) -> bool:
        """Filters only (TypeError otherwise): capacity_flags != 0. Thread-safe."""
    def snapshot(self) -> Any:
        """A new sketch of the source's class with the current words (consistent, exact once adds are done;
        on a wrapped buffer, other processes' adds may be caught half done: retried, then SketchError)."""
    def write_to(self, f: BinaryWriter) -> int:
        """Writes bytes(self.snapshot()) to a binary file-like as the families'
        write_to does; returns the byte count. Consistent as snapshot() is
        (exactly the adds that returned before the copy; adds are held off
        during the copy only, not while f is written). Memory: one copy of
        the image (the snapshot). Added by sketches._stream."""
    @classmethod
    def read(cls, f: BinaryReader) -> Optional[ConcurrentSketch]:
        """Reads one BloomFilter, SplitBlockBloomFilter, HyperLogLog or
        UltraLogLog image (as sketches.read) into a new ConcurrentSketch (a
        copy); None at a clean end of the stream; WRONG_FAMILY (before the
        body is read) for another family. Added by sketches._stream."""
    @property
    def kind(self) -> str:
        """The source's class name."""
    @property
    def nbytes(self) -> int:
        """Bytes of the image held."""
    @property
    def seed(self) -> int:
        """The hash seed of the image."""
    def __reduce__(self) -> Any:
        """ConcurrentSketch(self.snapshot()); TypeError for a wrapped object."""
    def __sizeof__(self) -> int: ...
