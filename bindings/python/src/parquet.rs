//! Parquet bloom filter hashes (`sketches_core::parquet`): the typed
//! `parquet_hash_*` functions and `parquet_hash_many`. Planning, loading and
//! folding are methods of `SplitBlockBloomFilter` (`sbbf.rs`).

use crate::boundary::{self, PyBuf, Raise};
use pyo3::exceptions::{PyOverflowError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;
use sketches_core::hash::{HashKind, KeyHasher};
use sketches_core::parquet;
use sketches_core::Error;

/// The hash of Parquet-mode filters' keys: XXH64 seed 0.
const PARQUET_HASHER: KeyHasher = KeyHasher { kind: HashKind::Xxh64, seed: 0 };

/// Parquet's bloom filter hash of an INT32 value: XXH64 (seed 0) of its
/// PLAIN encoding, 4 little-endian bytes. Also for DATE, TIME_MILLIS and the
/// narrower integer types, which Parquet stores as INT32. ``value`` is an
/// int in -2**31 .. 2**32-1: 2**31 .. 2**32-1 are UINT_32 values, hashed as
/// the same 32 bits (as a uint32 column is stored); else OverflowError. A
/// bool raises TypeError.
#[pyfunction]
fn parquet_hash_int32(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<u64> {
    const RANGE: &str = "an INT32 value is an int in -2**31 .. 2**32-1";
    refuse_bool(value)?;
    let v: i64 = value.extract().map_err(|e| overflow_as(py, e, RANGE))?;
    if !(i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&v) {
        return Err(PyOverflowError::new_err(RANGE));
    }
    Ok(parquet::hash_i32(v as u32 as i32))
}

/// TypeError for a bool: Parquet's BOOLEAN values are not INT32/INT64/FLOAT/
/// DOUBLE values (``parquet_hash_many`` refuses bools the same way). A
/// NumPy bool scalar is one too (its ``dtype.kind`` is "b").
fn refuse_bool(value: &Bound<'_, PyAny>) -> PyResult<()> {
    let numpy_bool = || -> PyResult<bool> {
        let dtype = pyo3::intern!(value.py(), "dtype");
        if !value.hasattr(dtype)? {
            return Ok(false);
        }
        let kind = value.getattr(dtype)?.getattr(pyo3::intern!(value.py(), "kind"))?;
        Ok(kind.extract::<String>().is_ok_and(|k| k == "b"))
    };
    if value.is_instance_of::<pyo3::types::PyBool>()
        || (!value.is_instance_of::<pyo3::types::PyInt>()
            && !value.is_instance_of::<pyo3::types::PyFloat>()
            && numpy_bool()?)
    {
        return Err(PyTypeError::new_err("bool values have no Parquet bloom filter hash here"));
    }
    Ok(())
}

/// An OverflowError with `text` for an integer out of range; other
/// extraction errors (a float, a str) as they are.
fn overflow_as(py: Python<'_>, e: PyErr, text: &str) -> PyErr {
    if e.is_instance_of::<PyOverflowError>(py) {
        PyOverflowError::new_err(text.to_string())
    } else {
        e
    }
}

/// Parquet's bloom filter hash of an INT64 value (also TIMESTAMP,
/// TIME_MICROS/NANOS): XXH64 (seed 0) of its 8 little-endian bytes.
/// ``value`` is an int in -2**63 .. 2**64-1 (2**63 .. 2**64-1 are UINT_64
/// values, hashed as the same 64 bits); else OverflowError. A bool raises
/// TypeError.
#[pyfunction]
fn parquet_hash_int64(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<u64> {
    const RANGE: &str = "an INT64 value is an int in -2**63 .. 2**64-1";
    refuse_bool(value)?;
    match value.extract::<i64>() {
        Ok(v) => Ok(parquet::hash_i64(v)),
        Err(e) if !e.is_instance_of::<PyOverflowError>(py) => Err(e),
        Err(_) => {
            let v: u64 = value.extract().map_err(|e| overflow_as(py, e, RANGE))?;
            Ok(parquet::hash_i64(v as i64))
        }
    }
}

/// Parquet's bloom filter hash of a FLOAT value: XXH64 (seed 0) of its
/// float32 IEEE-754 bits, as writers store it. ``value`` (a float, an int,
/// or an object with ``__float__`` or ``__index__``; a str or a bool raises
/// TypeError) is rounded to float32 as ``struct.pack("<f")`` does; a finite
/// value beyond float32's range raises OverflowError. No
/// normalization: -0.0 and 0.0 hash differently (DuckDB's reader probes
/// both: test both zeros to answer as it does). For a NaN's exact bit
/// pattern hash a float32 NumPy array with ``parquet_hash_many``.
#[pyfunction]
fn parquet_hash_float(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    refuse_bool(value)?;
    let value: f64 = value.extract()?;
    let v = value as f32;
    if v.is_infinite() && value.is_finite() {
        return Err(PyOverflowError::new_err("float too large for a FLOAT (float32) value"));
    }
    Ok(parquet::hash_f32(v))
}

/// Parquet's bloom filter hash of a DOUBLE value: XXH64 (seed 0) of its
/// IEEE-754 bits, 8 little-endian bytes, exactly as stored (-0.0 and 0.0
/// differ, each NaN bit pattern is its own value). ``value`` as for
/// ``parquet_hash_float``.
#[pyfunction]
fn parquet_hash_double(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    refuse_bool(value)?;
    Ok(parquet::hash_f64(value.extract()?))
}

/// Parquet's bloom filter hash of a BYTE_ARRAY (string, binary) or
/// FIXED_LEN_BYTE_ARRAY value: XXH64 (seed 0) of its raw bytes, without the
/// PLAIN encoding's length prefix. ``value`` is ``str`` (its UTF-8 bytes)
/// or any bytes-like object.
#[pyfunction]
fn parquet_hash_bytes(value: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(s) = value.cast::<pyo3::types::PyString>() {
        return Ok(parquet::hash_bytes(s.to_str()?.as_bytes()));
    }
    match PyBuf::get(value) {
        // SAFETY: the export is held by `buf` during the call.
        Ok(buf) => Ok(parquet::hash_bytes(unsafe { buf.raw().bytes() })),
        Err(_) => Err(PyTypeError::new_err("a BYTE_ARRAY value is str or bytes-like")),
    }
}

/// Hashes values of one physical type, read from a contiguous native-endian array.
fn hash_numeric(kind: &str, values: &[u8], out: &mut [u64]) {
    match kind {
        "int32" => {
            for (o, c) in out.iter_mut().zip(values.as_chunks::<4>().0) {
                *o = parquet::hash_i32(i32::from_ne_bytes(*c));
            }
        }
        "int64" => {
            for (o, c) in out.iter_mut().zip(values.as_chunks::<8>().0) {
                *o = parquet::hash_i64(i64::from_ne_bytes(*c));
            }
        }
        "float" => {
            for (o, c) in out.iter_mut().zip(values.as_chunks::<4>().0) {
                *o = parquet::hash_f32(f32::from_ne_bytes(*c));
            }
        }
        _ => {
            for (o, c) in out.iter_mut().zip(values.as_chunks::<8>().0) {
                *o = parquet::hash_f64(f64::from_ne_bytes(*c));
            }
        }
    }
}

/// Parquet's bloom filter hashes of a batch of values, as a NumPy uint64
/// array (the GIL released while hashing). The physical type follows the
/// values: NumPy or pyarrow int8/int16/int32/uint8/uint16/uint32 as INT32,
/// int64/uint64 as INT64, float32 as FLOAT, float64 as DOUBLE (raw bits,
/// every NaN pattern as itself), pyarrow temporal types as the integers
/// a Parquet file stores (date32/date64 as INT32 days, time32 as INT32
/// milliseconds, timestamps, time64 and durations as INT64; seconds become
/// milliseconds, as pyarrow writes them; a file that kept date64 as INT64
/// milliseconds needs ``values.cast(pyarrow.int64())``), str/bytes (pyarrow
/// String/Binary and their Large/view forms, lists, NumPy str/bytes/object
/// arrays) as BYTE_ARRAY. Columns of other libraries keep their type:
/// objects with the Arrow PyCapsule interface (polars Series) are read as
/// pyarrow arrays, others with ``__array__`` (pandas Series) as NumPy
/// arrays. A list of Python ints or floats raises TypeError (an int could
/// be an INT32 or an INT64 value, a float a FLOAT or a DOUBLE, and their
/// hashes differ): pass ``numpy.asarray(v, numpy.int32)`` (or int64,
/// float32, float64) as the column stores them; NumPy scalars in a list
/// hash by their type. Nulls (pyarrow nulls, ``None``)
/// raise ValueError: writers skip them, so ``drop_null()`` first (a null
/// hashed as 0 and added would make the bitset differ from the writer's).
/// Feed the result to
/// ``SplitBlockBloomFilter.add_hashes`` / ``contains_hashes`` of a
/// Parquet-mode filter.
#[pyfunction]
fn parquet_hash_many<'py>(py: Python<'py>, values: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    static DESCRIBE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let describe = DESCRIBE.import(py, "sketches._keys", "parquet_values")?;
    let described = describe.call1((values,))?;
    let t = described.cast::<PyTuple>()?;
    let kind: String = t.get_item(0)?.extract()?;
    let data = t.get_item(1)?;
    if kind == "keys" {
        return boundary::hashes_of(py, &data, PARQUET_HASHER);
    }
    let width = if kind == "int32" || kind == "float" { 4 } else { 8 };
    let input = PyBuf::get(&data)?;
    let src = input.raw();
    if src.len() % width != 0 {
        return Err(Error::InvalidArgument).raise(py);
    }
    let n = src.len() / width;
    let (array, out) = boundary::numpy_zeros(py, n, "uint64")?;
    let dst = out.raw();
    py.detach(|| {
        // SAFETY: both exports are held (`input`, `out`) for the call; the
        // output is a fresh array only this call knows.
        hash_numeric(&kind, unsafe { src.bytes() }, unsafe { boundary::as_u64s_mut(dst) })
    });
    drop(out);
    drop(input);
    Ok(array)
}

/// Adds the Parquet functions to the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parquet_hash_int32, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_hash_int64, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_hash_float, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_hash_double, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_hash_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(parquet_hash_many, m)?)?;
    Ok(())
}
