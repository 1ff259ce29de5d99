"""sketches: probabilistic sketches whose bytes are the same in every language.

Families (one class each): :class:`BloomFilter`, :class:`SplitBlockBloomFilter`,
:class:`CountingBloomFilter`, :class:`CuckooFilter`, :class:`BinaryFuseFilter`
(static: built once from a set of keys), :class:`HyperLogLog`,
:class:`UltraLogLog`, :class:`ExaLogLog`, :class:`CountMinSketch`,
:class:`TopK`, :class:`MinHash`.

Every sketch lives in one 64-byte aligned buffer that *is* its image:
``bytes(sketch)`` exports it (checksummed), ``Family.from_bytes(b)`` imports
it (damaged bytes raise :class:`SketchError`), ``Family.wrap(buffer)`` works
zero-copy inside a bytearray, mmap or NumPy array, and pickling goes through
the exported bytes. Images are byte-identical to those of the C ABI
(``libsketches``), Go and Java bindings.

Keys hash by one rule everywhere: ``str`` as its UTF-8 bytes, ``bytes`` /
``bytearray`` / ``memoryview`` as they are, ``int`` as its 8 little-endian
bytes (0 .. 2**64-1; negative ints down to -2**63 as their two's complement,
so ``-1`` and ``2**64 - 1`` are the same key, as an int64 and a uint64 column
holding the same bits are), with XXH3-64 and the image's seed. A bool is not
a key (TypeError). Weights and precomputed hashes are integers in
0 .. 2**64-1: ValueError naming a value out of range, single or in a batch. A filter built
here answers a C or Go query for the same key.

Batch methods (``add_many``, ``contains_many``, ...) take a list or tuple of
keys, a NumPy integer array (int64/uint64 read zero-copy), or a pyarrow
Binary/String/LargeBinary/LargeString/integer array or ChunkedArray (buffers
read zero-copy); ``None`` entries and Arrow nulls are skipped (their output
is False/0). They release the GIL while the native code runs.

Many threads adding to one sketch: :class:`ConcurrentSketch` (``sketch.concurrent()``)
copies a BloomFilter, SplitBlockBloomFilter, HyperLogLog or UltraLogLog into
atomic words that any number of threads add to at once; ``snapshot()`` gives the
result as an ordinary sketch, ``write_to(f)`` writes that snapshot's bytes and
``ConcurrentSketch.read(f)`` reads one back. The ordinary classes take one updating call at a
time: an update called while another thread's call on the same object runs
raises ``RuntimeError: Already borrowed`` and changes nothing, and a query
called while an update runs raises ``RuntimeError: Already mutably
borrowed``; queries run in parallel. Objects that ``wrap``
overlapping memory of one buffer follow this rule together, as one object.
:class:`BinaryFuseFilter` is read-only: any number of threads query it.

Parquet bloom filters: ``SplitBlockBloomFilter(..., parquet=True)`` is
byte-compatible with them. ``SplitBlockBloomFilter.for_parquet(ndv, fpp,
sizing=...)`` sizes a filter as the parquet crate, DuckDB or Arrow C++
(pyarrow) does, ``fold_to_target_fpp`` folds it as the parquet crate and
pyarrow do before writing, ``from_parquet_bitset`` loads a bitset read out of
a file, and the ``parquet_hash_*`` functions hash typed values (INT32, INT64,
FLOAT, DOUBLE, BYTE_ARRAY; ``parquet_hash_many`` over NumPy arrays and pyarrow
columns) for ``add_hash(es)`` / ``contains_hash(es)``.

Files, sockets and pipes: ``sketch.write_to(f)`` writes ``bytes(sketch)`` to
a binary file-like and returns the byte count, straight from the live image
in chunks of at most 1 MiB (no copy of the image; the sketch stays borrowed
until the last ``write`` returned); ``sketches.read(f)`` reads
exactly one image of any family back (``Family.read(f)``: of that family
only), never a byte past it, so images written one after another read back
in order; both return/raise as documented in :func:`read` (None at a clean
end of the stream, ``SketchError`` with ``status.LENGTH_MISMATCH`` for a
stream that ends inside an image).

``sketches.compat.BloomFilter`` is a drop-in for pybloom-live's BloomFilter.
"""

from __future__ import annotations

from . import status
from ._errors import SketchError
from ._native import (
    CAPACITY_FPR_ABOVE_TWICE_PLANNED,
    CAPACITY_OVER_PLANNED_ITEMS,
    FORMAT_MAJOR,
    IMAGE_ALIGN,
    IMAGE_MIN_ALIGN,
    BinaryFuseFilter,
    BloomFilter,
    ConcurrentSketch,
    CountingBloomFilter,
    CountMinSketch,
    CuckooFilter,
    ExaLogLog,
    HyperLogLog,
    MinHash,
    SplitBlockBloomFilter,
    TopK,
    UltraLogLog,
    hash,
    hash_many,
    inspect,
    parquet_hash_bytes,
    parquet_hash_double,
    parquet_hash_float,
    parquet_hash_int32,
    parquet_hash_int64,
    parquet_hash_many,
    status_str,
)
from ._stream import FIRST_READ_BYTES, read

__version__ = "0.1.0"

__all__ = [
    "BloomFilter",
    "SplitBlockBloomFilter",
    "CountingBloomFilter",
    "CuckooFilter",
    "BinaryFuseFilter",
    "HyperLogLog",
    "UltraLogLog",
    "ExaLogLog",
    "CountMinSketch",
    "TopK",
    "MinHash",
    "ConcurrentSketch",
    "SketchError",
    "status",
    "status_str",
    "hash",
    "hash_many",
    "inspect",
    "read",
    "FIRST_READ_BYTES",
    "parquet_hash_int32",
    "parquet_hash_int64",
    "parquet_hash_float",
    "parquet_hash_double",
    "parquet_hash_bytes",
    "parquet_hash_many",
    "CAPACITY_OVER_PLANNED_ITEMS",
    "CAPACITY_FPR_ABOVE_TWICE_PLANNED",
    "FORMAT_MAJOR",
    "IMAGE_ALIGN",
    "IMAGE_MIN_ALIGN",
    "__version__",
]
