"""How batches of keys reach the native layer (called from ``_native``).

The native layer reads lists, tuples and NumPy int64/uint64 arrays itself.
Everything else comes here first and is described as *pieces*:

* ``("list", seq)`` -- keys read one by one (str as UTF-8, bytes-like as is,
  int as 8 little-endian bytes, ``None`` skipped);
* ``("bin32" | "bin64", validity, offsets, data, offset, length)`` -- an
  Arrow Binary/String (int32 offsets) or LargeBinary/LargeString (int64
  offsets) array, its buffers passed zero-copy (``arr.buffers()``), sliced
  arrays through ``offset``; nulls (validity bit 0) skipped;
* ``("ints", validity, None, values, offset, length)`` -- 64-bit integers
  (Arrow Int64/UInt64 values zero-copy; other integer widths converted).
"""

from __future__ import annotations

import sys
from typing import Any, List, Tuple

import numpy as np

Piece = Tuple[Any, ...]


def _arrow_pieces(arr: Any, pa: Any) -> List[Piece]:
    t = arr.type
    types = pa.types
    if types.is_dictionary(t):
        return _arrow_pieces(arr.dictionary_decode(), pa)
    if types.is_string(t) or types.is_binary(t):
        kind = "bin32"
    elif types.is_large_string(t) or types.is_large_binary(t):
        kind = "bin64"
    elif hasattr(types, "is_string_view") and (types.is_string_view(t) or types.is_binary_view(t)):
        # View layouts have no offsets buffer: one copy into LargeBinary.
        return _arrow_pieces(arr.cast(pa.large_binary()), pa)
    elif types.is_fixed_size_binary(t):
        return [("list", arr.to_pylist())]
    elif types.is_int64(t) or types.is_uint64(t):
        bufs = arr.buffers()
        validity = bufs[0] if arr.null_count else None
        return [("ints", validity, None, bufs[1], arr.offset, len(arr))]
    elif types.is_integer(t):
        return _arrow_pieces(arr.cast(pa.int64()), pa)
    elif types.is_null(t):
        return [("list", [None] * len(arr))]
    else:
        raise TypeError(f"cannot use an Arrow {t} array as keys (Binary, String, their Large forms, or integers)")
    bufs = arr.buffers()
    validity = bufs[0] if arr.null_count else None
    return [(kind, validity, bufs[1], bufs[2], arr.offset, len(arr))]


def pieces(keys: Any) -> List[Piece]:
    """Describes a batch of keys as zero-copy pieces (see the module doc)."""
    pa = sys.modules.get("pyarrow")
    if pa is not None:
        if isinstance(keys, pa.ChunkedArray):
            out: List[Piece] = []
            for chunk in keys.chunks:
                out.extend(_arrow_pieces(chunk, pa))
            return out
        if isinstance(keys, pa.Array):
            return _arrow_pieces(keys, pa)
    if isinstance(keys, np.ndarray):
        if keys.ndim != 1:
            raise ValueError("a NumPy array of keys must be one-dimensional")
        kind = keys.dtype.kind
        if kind in "iu":
            # int64/uint64 arrive here only when strided or byte-swapped;
            # other widths widen (negative values as two's complement).
            arr = np.ascontiguousarray(keys.astype(np.int64 if kind == "i" else np.uint64, copy=False))
            return [("ints", None, None, arr.view(np.uint64), 0, len(arr))]
        if kind in "OUS":
            return [("list", keys.tolist())]
        raise TypeError(f"cannot use a NumPy {keys.dtype} array as keys (integers, str, bytes or objects)")
    if isinstance(keys, (str, bytes, bytearray, memoryview)):
        raise TypeError("batch methods take a sequence of keys; use add()/in for one key")
    return [("list", list(keys))]


def u64_array(values: Any, n: int) -> np.ndarray:
    """Per-key unsigned 64-bit values (weights) as a contiguous uint64 array of length ``n``."""
    arr = np.asarray(values)
    if arr.ndim != 1 or len(arr) != n:
        raise ValueError(f"expected {n} weights, one per key")
    if arr.dtype.kind == "i":
        if len(arr) and arr.min() < 0:
            raise ValueError("weights must be non-negative")
    elif arr.dtype.kind == "O":
        arr = np.array([int(v) for v in arr.tolist()], dtype=np.uint64) if n else np.zeros(0, np.uint64)
    elif arr.dtype.kind not in "u":
        raise TypeError("weights must be integers")
    return np.ascontiguousarray(arr, dtype=np.uint64)
