//! `sketches._native`: the pyo3 extension of the `sketches` Python package.
//!
//! It binds `sketches-core` directly (not the C ABI): the core is the single
//! source of truth and the C ABI is a thin pointer layer over the same core
//! calls, so images are byte-identical either way (the tests compare images
//! made here with images made through `libsketches`). Binding the core lets
//! batches read Arrow LargeBinary/LargeString (int64 offsets) and validity
//! bitmaps zero-copy, hash Python `str` objects in place, and ship as one
//! self-contained extension module.
//!
//! One module per family (mirroring the core and the C ABI), one shared
//! boundary module (`boundary.rs`: errors, buffers, keys, NumPy outputs),
//! and `concurrent.rs` (`ConcurrentSketch`: the core's shared views, for
//! many threads adding at once).

use pyo3::prelude::*;
use pyo3::types::PyDict;

mod bloom;
mod boundary;
mod concurrent;
mod counting;
mod countmin;
mod cuckoo;
mod ell;
mod fuse;
mod hll;
mod minhash;
mod parquet;
mod sbbf;
mod topk;
mod ull;

use boundary::Raise;
use sketches_core::hash::{HashKind, KeyHasher};
use sketches_core::image::FamilyId;

/// The methods every family shares: `from_bytes`, `wrap`, `bytes()`,
/// pickling, copies and sizes.
macro_rules! shared_methods {
    ($ty:ty) => {
        #[pyo3::pymethods]
        impl $ty {
            /// Checked import of exported bytes (`bytes(sketch)`, a file, the
            /// network, another language's export) into a fresh 64-byte aligned
            /// image. Verifies the header, exact length, checksum and body;
            /// damaged or hostile bytes raise `SketchError` (its `status` is the
            /// C status number) and nothing is built.
            #[classmethod]
            fn from_bytes(
                _cls: &pyo3::Bound<'_, pyo3::types::PyType>,
                py: pyo3::Python<'_>,
                data: &pyo3::Bound<'_, pyo3::PyAny>,
            ) -> pyo3::PyResult<Self> {
                crate::boundary::from_bytes::<Self>(py, data)
            }

            /// Checks exported bytes as ``from_bytes`` does (header, exact
            /// length, checksum, body) without building a sketch; raises
            /// ``SketchError`` when they are damaged.
            #[staticmethod]
            fn verify(py: pyo3::Python<'_>, data: &pyo3::Bound<'_, pyo3::PyAny>) -> pyo3::PyResult<()> {
                let buf = crate::boundary::PyBuf::get(data)?;
                let raw = buf.raw();
                // SAFETY: the export is held by `buf`.
                crate::boundary::Raise::raise(
                    py.detach(move || <Self as crate::boundary::Family>::verify(unsafe { raw.bytes() })),
                    py,
                )
            }

            /// Zero-copy view over a live image in any buffer (bytearray, mmap,
            /// NumPy array, memoryview): no copy, the header is validated once,
            /// updates write into the buffer. The buffer must be 8-byte aligned
            /// (else `SketchError` with status `MISALIGNED` and how to fix it)
            /// and is held while the sketch lives: a bytearray cannot be
            /// resized, an mmap or SharedMemory closed (BufferError). A
            /// read-only buffer gives a read-only sketch. The body is not
            /// checksummed: use `from_bytes` for untrusted bytes. Several
            /// objects wrapping overlapping memory of this process take
            /// turns as one object does: while one runs an update, a call on
            /// another raises RuntimeError ("Already borrowed"), queries run
            /// in parallel. Writes to the buffer by other code (the
            /// bytearray or array itself, another process) while a call
            /// runs are not held off: don't (use `ConcurrentSketch.wrap`
            /// for several writers).
            #[classmethod]
            fn wrap<'py>(
                _cls: &pyo3::Bound<'py, pyo3::types::PyType>,
                py: pyo3::Python<'py>,
                buffer: &pyo3::Bound<'py, pyo3::PyAny>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, Self>> {
                crate::boundary::wrap::<Self>(py, buffer)
            }

            /// The exported image with its checksum (what `from_bytes` reads,
            /// and what every other binding imports).
            fn __bytes__<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyBytes>> {
                crate::boundary::export::<Self>(py, self)
            }

            /// Same as `bytes(sketch)`.
            fn to_bytes<'py>(
                &self,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<pyo3::Bound<'py, pyo3::types::PyBytes>> {
                crate::boundary::export::<Self>(py, self)
            }

            /// `write_to`'s native part (`sketches._stream.write_to` calls
            /// it): `emit(chunk, total)` with the bytes of `bytes(sketch)`
            /// in order, as fresh `bytes` of at most `chunk_bytes` (>= 48)
            /// each, copied from the live image (no copy of the whole
            /// image), and their total; returns the byte count. The sketch stays borrowed
            /// (shared) until the last `emit` returned: an update from
            /// another thread meanwhile raises RuntimeError. Errors: the
            /// image's, as `bytes(sketch)`, before any `emit`; what `emit`
            /// raises, passed through.
            fn _write_chunks(
                &self,
                py: pyo3::Python<'_>,
                emit: &pyo3::Bound<'_, pyo3::PyAny>,
                chunk_bytes: usize,
            ) -> pyo3::PyResult<usize> {
                crate::boundary::write_chunks::<Self>(py, self, emit, chunk_bytes)
            }

            /// Pickles as `Family.from_bytes(bytes(sketch))`.
            fn __reduce__<'py>(
                slf: &pyo3::Bound<'py, Self>,
                py: pyo3::Python<'py>,
            ) -> pyo3::PyResult<(pyo3::Bound<'py, pyo3::PyAny>, (pyo3::Bound<'py, pyo3::types::PyBytes>,))>
            {
                let make = slf.get_type().getattr("from_bytes")?;
                Ok((make, (crate::boundary::export::<Self>(py, &*slf.try_borrow()?)?,)))
            }

            /// An independent copy in its own aligned memory.
            fn copy(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<Self> {
                Ok(<Self as crate::boundary::Family>::from_image(
                    crate::boundary::Family::image(self).duplicate(py)?,
                ))
            }

            fn __copy__(&self, py: pyo3::Python<'_>) -> pyo3::PyResult<Self> {
                self.copy(py)
            }

            fn __deepcopy__(
                &self,
                py: pyo3::Python<'_>,
                _memo: &pyo3::Bound<'_, pyo3::PyAny>,
            ) -> pyo3::PyResult<Self> {
                self.copy(py)
            }

            /// Bytes of the live image (the memory the sketch uses).
            #[getter]
            fn nbytes(&self) -> usize {
                crate::boundary::Family::image(self).image_len()
            }

            /// The hash seed stored in the image.
            #[getter]
            fn seed(&self) -> u64 {
                crate::boundary::header_seed(crate::boundary::Family::image(self))
            }

            /// False when the sketch wraps a read-only buffer.
            #[getter]
            fn writable(&self) -> bool {
                crate::boundary::Family::image(self).writable()
            }

            fn __sizeof__(&self) -> usize {
                crate::boundary::Family::image(self).image_len() + 64
            }

            /// Equal when the live images are byte-identical.
            fn __eq__(&self, other: &pyo3::Bound<'_, pyo3::PyAny>) -> pyo3::PyResult<bool> {
                Ok(match other.cast::<Self>() {
                    Ok(o) => {
                        let a = crate::boundary::Family::image(self);
                        // Tried: another thread's update of `other` gives RuntimeError, not a panic.
                        let o = o.try_borrow()?;
                        let b = crate::boundary::Family::image(&*o);
                        let (la, lb) = (a.image_len(), b.image_len());
                        // The checksum field (bytes 32..40) is written by export only.
                        la == lb
                            && la >= 40
                            && a.bytes()[..32] == b.bytes()[..32]
                            && a.bytes()[40..la] == b.bytes()[40..lb]
                    }
                    Err(_) => false,
                })
            }
        }
    };
}
pub(crate) use shared_methods;

/// The canonical hash of a key, as every binding computes it: XXH3-64 with
/// `seed` of the key's bytes (str as UTF-8, bytes as they are, int as 8
/// little-endian bytes). Same as `sketch_hash` / `sketch_hash_u64` in C.
#[pyfunction]
#[pyo3(signature = (key, seed = 0))]
fn hash(key: &Bound<'_, PyAny>, seed: u64) -> PyResult<u64> {
    boundary::with_key(key, |k| sketches_core::hash::hash_bytes(k, seed))
}

/// Hashes a batch of keys (list, NumPy integer array, pyarrow column) into a
/// NumPy uint64 array; nulls give 0.
#[pyfunction]
#[pyo3(signature = (keys, seed = 0))]
fn hash_many<'py>(py: Python<'py>, keys: &Bound<'py, PyAny>, seed: u64) -> PyResult<Bound<'py, PyAny>> {
    boundary::hashes_of(py, keys, KeyHasher { kind: HashKind::Xxh3, seed })
}

/// The text of a status number (the same as C's `sketch_status_str`).
#[pyfunction]
fn status_str(status: i32) -> &'static str {
    boundary::status_text(status)
}

/// The common header of any image (exported or live): family, hash, format
/// version, flags, seed and lengths. Does not check the checksum.
///
/// `header_only=True` reads only the first 48 bytes (what a reader of a
/// file or socket holds first) and does not need the rest of the image:
/// `image_bytes` is then the length the header records, which a damaged or
/// hostile header may make huge (bound it before reading that much). By
/// default the data must hold the whole image (`BUFFER_TOO_SMALL` when it
/// is shorter than the length recorded). Errors (`SketchError`):
/// `BUFFER_TOO_SMALL`, `BAD_MAGIC`, `UNSUPPORTED_VERSION`,
/// `UNSUPPORTED_HASH`, `CORRUPT_HEADER`.
#[pyfunction]
#[pyo3(signature = (data, *, header_only = false))]
fn inspect<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyAny>,
    header_only: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let buf = boundary::PyBuf::get(data)?;
    // SAFETY: the export is held by `buf`.
    let bytes = unsafe { buf.raw().bytes() };
    let (h, image_bytes) = if header_only {
        sketches_core::image::inspect_header(bytes).raise(py)?
    } else {
        let h = sketches_core::image::inspect(bytes).raise(py)?;
        (h, h.image_len as u64)
    };
    let d = PyDict::new(py);
    // Exhaustive: a new core family fails to compile here until it is named.
    let family = match h.family {
        FamilyId::Bloom => "BloomFilter",
        FamilyId::SplitBlockBloom => "SplitBlockBloomFilter",
        FamilyId::CountingBloom => "CountingBloomFilter",
        FamilyId::Cuckoo => "CuckooFilter",
        FamilyId::HyperLogLog => "HyperLogLog",
        FamilyId::UltraLogLog => "UltraLogLog",
        FamilyId::CountMin => "CountMinSketch",
        FamilyId::TopK => "TopK",
        FamilyId::MinHash => "MinHash",
        FamilyId::BinaryFuse => "BinaryFuseFilter",
        FamilyId::ExaLogLog => "ExaLogLog",
    };
    d.set_item("family", family)?;
    d.set_item("family_id", h.family as u16)?;
    d.set_item("hash_id", h.hash.id())?;
    d.set_item("format_major", sketches_core::image::FORMAT_MAJOR)?;
    d.set_item("format_minor", h.minor)?;
    d.set_item("flags", h.flags)?;
    d.set_item("header_bytes", h.header_len)?;
    d.set_item("seed", h.seed)?;
    d.set_item("image_bytes", image_bytes)?;
    Ok(d)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hash, m)?)?;
    m.add_function(wrap_pyfunction!(hash_many, m)?)?;
    m.add_function(wrap_pyfunction!(status_str, m)?)?;
    m.add_function(wrap_pyfunction!(inspect, m)?)?;
    parquet::register(m)?;
    m.add("STATUSES", boundary::STATUSES.iter().map(|s| (s.0, s.1)).collect::<Vec<_>>())?;
    m.add("FORMAT_MAJOR", sketches_core::image::FORMAT_MAJOR)?;
    m.add("IMAGE_ALIGN", sketches_core::image::IMAGE_ALIGN)?;
    m.add("IMAGE_MIN_ALIGN", sketches_core::image::MIN_IMAGE_ALIGN)?;
    m.add("CAPACITY_OVER_PLANNED_ITEMS", sketches_core::CapacityFlags::OVER_PLANNED_ITEMS)?;
    m.add("CAPACITY_FPR_ABOVE_TWICE_PLANNED", sketches_core::CapacityFlags::FPR_ABOVE_TWICE_PLANNED)?;
    m.add_class::<bloom::BloomFilter>()?;
    m.add_class::<sbbf::SplitBlockBloomFilter>()?;
    m.add_class::<counting::CountingBloomFilter>()?;
    m.add_class::<cuckoo::CuckooFilter>()?;
    m.add_class::<hll::HyperLogLog>()?;
    m.add_class::<ull::UltraLogLog>()?;
    m.add_class::<countmin::CountMinSketch>()?;
    m.add_class::<topk::TopK>()?;
    m.add_class::<minhash::MinHash>()?;
    m.add_class::<fuse::BinaryFuseFilter>()?;
    m.add_class::<ell::ExaLogLog>()?;
    m.add_class::<concurrent::ConcurrentSketch>()?;
    Ok(())
}
