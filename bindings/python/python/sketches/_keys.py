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

import mmap
import operator
import sys
from typing import Any, List, Tuple

import numpy as np

Piece = Tuple[Any, ...]

# One key or value, not a batch of them (an mmap iterates as 1-byte keys).
_ONE_VALUE = (str, bytes, bytearray, memoryview, mmap.mmap)


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
    if isinstance(keys, _ONE_VALUE):
        raise TypeError("batch methods take a sequence of keys; use add()/in for one key")
    return [("list", list(keys))]


def _plural(what: str) -> str:
    return what + ("es" if what.endswith("h") else "s")


def _exact_u64(values: List[Any], what: str) -> np.ndarray:
    """Integers (anything with ``__index__``) as uint64, exactly, checked one
    by one: a bool, a float or a numeric str raises TypeError (``int()``
    would take True as 1, truncate 2.9 to 2 and parse "5"), a value outside
    0 .. 2**64-1 ValueError; both name the value and its index."""
    plural = _plural(what)
    ints = []
    for i, v in enumerate(values):
        if isinstance(v, (bool, np.bool_)):
            raise TypeError(f"{plural} are integers in 0 .. 2**64-1, not bool ({v!r} at index {i}); pass int(value)")
        try:
            ints.append(operator.index(v))
        except TypeError:
            raise TypeError(
                f"{plural} are integers in 0 .. 2**64-1, not {type(v).__name__} ({v!r} at index {i})"
            ) from None
        if ints[-1] < 0 or ints[-1] >= 1 << 64:
            raise ValueError(
                f"{what} {ints[-1]} at index {i} is out of range: {plural} are integers in 0 .. 2**64-1 (nothing changed)"
            )
    return np.array(ints, dtype=np.uint64)


def _unsigned_array(values: Any, what: str) -> np.ndarray:
    """A batch of weights or hashes as a contiguous, aligned 1-D uint64 array,
    by one rule whatever its shape (list, tuple, iterable, NumPy array,
    pyarrow column): the errors of the single-value forms (``add(key,
    weight)``, ``add_hash(h)``), TypeError for a bool or non-integer and
    ValueError for a value outside 0 .. 2**64-1, naming the first bad value."""
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(values, (pa.Array, pa.ChunkedArray)):
        if values.null_count:
            # NumPy would read them as NaN and the error would say "not integers".
            raise ValueError(
                f"null {what}s: every key needs a {what} (fill_null(...) or drop the rows)"
                if what == "weight"
                else f"null {what}es: drop them first (array.drop_null())"
            )
        values = np.asarray(values.to_numpy(zero_copy_only=False))
    elif not isinstance(values, np.ndarray):
        if hasattr(values, "__array__") and not isinstance(values, (list, tuple)):
            values = np.asarray(values)  # a pandas Series keeps its dtype
        else:
            # Python ints exactly, one by one: NumPy would turn a list mixing
            # huge and negative ints into floats and a list mixing bools and
            # ints into ints.
            try:
                items = list(values)
            except TypeError:
                raise TypeError(
                    f"{_plural(what)} are a sequence (list, NumPy array, pyarrow column), not "
                    f"{type(values).__name__}"
                ) from None
            return _exact_u64(items, what)
    arr = values
    plural = _plural(what)
    if arr.ndim != 1:
        raise ValueError(f"{plural} must be a one-dimensional sequence")
    kind = arr.dtype.kind
    if kind == "O":
        return _exact_u64(arr.tolist(), what)
    if len(arr) == 0:
        return np.zeros(0, np.uint64)
    if kind == "b":
        raise TypeError((
            f"{plural} are integers in 0 .. 2**64-1, not bool (a NumPy bool array); "
            "pass array.astype(np.uint64)"
        ))
    if kind == "i":
        negative = np.flatnonzero(arr < 0)
        if len(negative):
            i = int(negative[0])
            raise ValueError(
                f"{what} {int(arr[i])} at index {i} is out of range: {plural} are integers in 0 .. 2**64-1 "
                "(nothing changed)"
            )
    elif kind != "u":
        raise TypeError(f"{plural} are integers in 0 .. 2**64-1, not {arr.dtype}")
    # Aligned too: a uint64 view at an odd address (np.frombuffer(..., offset=1)) is copied.
    return np.require(arr, dtype=np.uint64, requirements=["C", "A"])


def parquet_keys_check(keys: Any) -> None:
    """Batch keys of a Parquet-mode filter's add_many/contains_many: they hash
    by the key rule (bytes as BYTE_ARRAY, 64-bit ints as 8 bytes = INT64), so
    a column of another Parquet type is refused with a pointer to
    parquet_hash_many: an integer column narrower than 64 bits, which Parquet
    stores as INT32, would hash as INT64 and miss every value of the file's
    filter; float, temporal and other columns are no keys at all."""
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(keys, (pa.Array, pa.ChunkedArray)):
        t = keys.type
        types = pa.types
        if types.is_dictionary(t):
            t = t.value_type
        keyed = (
            types.is_string(t)
            or types.is_binary(t)
            or types.is_large_string(t)
            or types.is_large_binary(t)
            or types.is_fixed_size_binary(t)
            or types.is_null(t)
            or (hasattr(types, "is_string_view") and (types.is_string_view(t) or types.is_binary_view(t)))
            or (types.is_integer(t) and t.bit_width == 64)
        )
    elif isinstance(keys, np.ndarray):
        t = keys.dtype
        keyed = t.kind in "OUS" or (t.kind in "iu" and t.itemsize == 8)
    else:
        return
    if not keyed:
        stored = "stored as INT32, " if str(t) in ("int8", "int16", "int32", "uint8", "uint16", "uint32") else ""
        raise TypeError(
            f"a Parquet-mode filter's add_many/contains_many take str/binary columns (BYTE_ARRAY) and 64-bit "
            f"integer columns (INT64); a {t} column is {stored}hashed by its Parquet type: use "
            "add_hashes/contains_hashes(parquet_hash_many(values))"
        )


def u64_array(values: Any, n: int) -> np.ndarray:
    """Per-key weights as a contiguous uint64 array of length ``n`` (see
    ``_unsigned_array`` for the errors)."""
    arr = _unsigned_array(values, "weight")
    if len(arr) != n:
        raise ValueError(f"expected {n} weights, one per key, not {len(arr)}")
    return arr


def hash_array(hashes: Any) -> np.ndarray:
    """Precomputed 64-bit hashes as a contiguous 1-D uint64 array (see
    ``_unsigned_array`` for the errors)."""
    if isinstance(hashes, _ONE_VALUE):
        raise TypeError("add_hashes/contains_hashes take a sequence of 64-bit hashes; use add_hash() for one")
    return _unsigned_array(hashes, "hash")


def _parquet_numeric(arr: np.ndarray) -> Tuple[str, np.ndarray]:
    """A NumPy array as (Parquet physical type, contiguous native-endian array of it)."""
    kind, size = arr.dtype.kind, arr.dtype.itemsize
    if arr.ndim != 1:
        raise ValueError("values must be one-dimensional")
    if kind == "i" and size <= 4:
        # INT8/INT16/INT32 are stored as INT32 (sign-extended).
        return "int32", np.ascontiguousarray(arr, dtype=np.int32)
    if kind == "u" and size <= 2:
        # UINT8/UINT16: zero-extended into INT32.
        return "int32", np.ascontiguousarray(arr, dtype=np.int32)
    if kind == "u" and size == 4:
        # UINT32: the same 32 bits stored as INT32.
        return "int32", np.ascontiguousarray(arr, dtype=np.uint32).view(np.int32)
    if kind in "iu" and size == 8:
        return "int64", np.ascontiguousarray(arr, dtype=np.int64 if kind == "i" else np.uint64).view(np.int64)
    if kind == "f" and size == 4:
        return "float", np.ascontiguousarray(arr, dtype=np.float32)
    if kind == "f" and size == 8:
        return "double", np.ascontiguousarray(arr, dtype=np.float64)
    raise TypeError(
        f"cannot hash a {arr.dtype} array as Parquet values (integers of up to 64 bits, float32, "
        "float64, str or bytes)"
    )


def _parquet_stored_temporal(values: Any, pa: Any) -> Any:
    """A pyarrow temporal column as the integers a Parquet file stores for it.

    Parquet has no second unit and one DATE type (INT32 days), so writers
    convert before storing (pyarrow: date64 -> date32 days, timestamp[s] ->
    milliseconds, time32[s] -> TIME_MILLIS): hash those converted values, or
    no reader finds the keys. DATE/TIME_MILLIS are INT32, timestamps, other
    times and durations INT64."""
    t = values.type
    types = pa.types
    if types.is_date64(t):
        values = values.cast(pa.date32(), safe=False)
    elif types.is_timestamp(t) and t.unit == "s":
        values = values.cast(pa.timestamp("ms", t.tz))
    elif types.is_time32(t) and t.unit == "s":
        values = values.cast(pa.time32("ms"))
    return values.cast(pa.int32() if values.type.bit_width == 32 else pa.int64())


_PARQUET_NULLS = "nulls have no Parquet hash (writers skip them): drop them first (array.drop_null())"


def parquet_values(values: Any) -> Tuple[str, Any]:
    """How ``parquet_hash_many`` reads a batch of values: ``("keys", batch)``
    for strings and binaries (hashed as BYTE_ARRAY by the batch reader), or
    ``(physical type, contiguous NumPy array)`` for numbers."""
    if isinstance(values, _ONE_VALUE):
        raise TypeError("parquet_hash_many takes a sequence of values; use parquet_hash_bytes() for one")
    pa = sys.modules.get("pyarrow")
    if pa is not None and isinstance(values, (pa.Array, pa.ChunkedArray)):
        t = values.type
        types = pa.types
        if types.is_dictionary(t):
            values = values.dictionary_decode() if isinstance(values, pa.Array) else values.cast(t.value_type)
            t = values.type
        if (
            types.is_string(t)
            or types.is_binary(t)
            or types.is_large_string(t)
            or types.is_large_binary(t)
            or types.is_fixed_size_binary(t)
            or (hasattr(types, "is_string_view") and (types.is_string_view(t) or types.is_binary_view(t)))
        ):
            if values.null_count:
                raise ValueError(_PARQUET_NULLS)
            return "keys", values
        if types.is_temporal(t):
            values = _parquet_stored_temporal(values, pa)
        elif not (types.is_integer(values.type) or types.is_floating(values.type)):
            raise TypeError(f"cannot hash an Arrow {values.type} array as Parquet values")
        if values.null_count:
            raise ValueError(_PARQUET_NULLS)
        return _parquet_numeric(np.asarray(values.to_numpy(zero_copy_only=False)))
    if not isinstance(values, (np.ndarray, list, tuple)):
        # Columns of other libraries keep their type: polars and others through
        # the Arrow PyCapsule interface (nulls seen), pandas Series through
        # __array__. Iterating them yields Python ints and floats, which would
        # hash an int32 or float32 column as INT64 or DOUBLE.
        if hasattr(values, "__arrow_c_stream__") or hasattr(values, "__arrow_c_array__"):
            import pyarrow

            if hasattr(values, "__arrow_c_stream__"):
                return parquet_values(pyarrow.chunked_array(values))
            return parquet_values(pyarrow.array(values))
        if hasattr(values, "__array__"):
            return parquet_values(np.asarray(values))
    if isinstance(values, np.ndarray):
        if values.dtype.kind in "OUS":
            values = values.tolist()
            if any(v is None for v in values):
                raise ValueError(_PARQUET_NULLS)
            return "keys", values
        return _parquet_numeric(values)
    seq = values if isinstance(values, (list, tuple)) else list(values)
    if any(v is None for v in seq):
        raise ValueError(_PARQUET_NULLS)
    if any(isinstance(v, (str, bytes, bytearray, memoryview)) for v in seq):
        return "keys", seq
    if len(seq) == 0:
        return "int64", np.zeros(0, np.int64)
    if any(isinstance(v, (bool, np.bool_)) for v in seq):
        raise TypeError("bool values have no Parquet bloom filter hash here")
    untyped = next((v for v in seq if type(v) is int or type(v) is float), None)
    if untyped is not None:
        # A Python int could be an INT32 or an INT64 value, a float a FLOAT or
        # a DOUBLE, and their hashes differ: guessing INT64/DOUBLE missed every
        # value of an INT32/FLOAT column's filter (df.col.tolist()), silently.
        raise TypeError(
            f"a list of Python {type(untyped).__name__}s has no Parquet type (INT32 or INT64? FLOAT or DOUBLE?): "
            "pass a typed array, e.g. parquet_hash_many(np.asarray(values, np.int32)) for an INT32 or DATE "
            "column, np.int64, np.float32 or np.float64, a pyarrow column, or hash each value with "
            "parquet_hash_int32/_int64/_float/_double"
        )
    arr = np.asarray(seq)
    if arr.dtype.kind == "b":
        raise TypeError("bool values have no Parquet bloom filter hash here")
    return _parquet_numeric(arr)
