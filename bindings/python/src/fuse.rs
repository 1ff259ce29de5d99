//! `sketches.BinaryFuseFilter`: static binary fuse filter (`sketches_core::fuse`).

use crate::boundary::{self, with_key, Batch, Family, Image, ListMode, Raise, CHUNK};
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sketches_core::fuse::{self, FuseParams};
use sketches_core::hash::{HashKind, KeyHasher};
use sketches_core::Error;

/// A static binary fuse filter (Graf and Lemire, 3-wise): built once from a
/// set of keys, then read-only. It has no ``add``: a different set needs a
/// new filter (use ``BloomFilter`` or ``CuckooFilter`` for sets that grow).
///
/// ``BinaryFuseFilter(keys, fpr=None, *, fingerprint_bits=None, seed=0)``
/// builds the filter of ``keys``: a list/tuple/set or any iterable of str,
/// bytes or int (``None`` skipped), a NumPy integer array or a pyarrow
/// Binary/String/LargeBinary/LargeString/integer array (read zero-copy).
/// The keys are hashed, then the build runs without the GIL in scratch
/// memory of about 32 bytes per key that the binding allocates for the call
/// (``scratch_size_for``) and frees right after. Duplicates are stored once.
///
/// One class for both widths, chosen like ``CuckooFilter``'s: 8-bit
/// fingerprints (the default; false-positive rate 2^-8, about 0.39%, about
/// 9 bits per key) or 16-bit (2^-16, about 0.0015%, about 18 bits per key),
/// from ``fingerprint_bits=8|16`` or from a target ``fpr`` (8 bits when
/// ``fpr >= 2**-8``, else 16). A key of the set is always found (no false
/// negatives); the width is in the image, so ``from_bytes`` reads either.
///
/// Errors: ``SketchError`` with status ``INVALID_PARAMETER`` (a width other
/// than 8 or 16, ``fpr`` outside [2^-16, 1), more than 2^31 keys),
/// ``BUILD_FAILED`` (no construction within the attempt bound: practically
/// only for hashes that are not uniformly distributed; nothing is built),
/// ``MemoryError`` when the image or scratch cannot be allocated.
///
/// Thread-safety: read-only after the build; batch queries release the GIL
/// and any number of threads may query one filter at once.
#[pyclass(module = "sketches", name = "BinaryFuseFilter")]
pub struct BinaryFuseFilter {
    image: Image,
}

impl Family for BinaryFuseFilter {
    fn check(buf: &[u8]) -> Result<(), Error> {
        fuse::wrap(buf).map(|_| ())
    }
    fn verify(bytes: &[u8]) -> Result<(), Error> {
        fuse::verify(bytes)
    }
    fn import(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        fuse::import(src, dst)
    }
    fn export(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        fuse::export(src, dst)
    }
    fn live_len(bytes: &[u8]) -> Result<usize, Error> {
        fuse::import_len(bytes)
    }
    fn image(&self) -> &Image {
        &self.image
    }
    fn image_mut(&mut self) -> &mut Image {
        &mut self.image
    }
    fn from_image(image: Image) -> Self {
        BinaryFuseFilter { image }
    }
}

crate::shared_methods!(BinaryFuseFilter);

/// The fingerprint width from ``fpr`` or ``fingerprint_bits`` (default 8).
fn width(py: Python<'_>, fpr: Option<f64>, fingerprint_bits: Option<u32>) -> PyResult<u8> {
    match (fpr, fingerprint_bits) {
        (None, None) => Ok(8),
        (None, Some(b)) => {
            // Any value but 8 or 16 is INVALID_PARAMETER (u8 overflow included).
            let b = u8::try_from(b).unwrap_or(0);
            FuseParams::new(0, b).raise_hint(py, "fingerprint_bits is 8 or 16").map(|p| p.fingerprint_bits)
        }
        (Some(p), None) => {
            FuseParams::for_fpr(0, p).raise_hint(py, "fpr must be in [2**-16, 1)").map(|p| p.fingerprint_bits)
        }
        (Some(_), Some(_)) => Err(PyValueError::new_err("give fpr or fingerprint_bits, not both")),
    }
}

fn params(py: Python<'_>, keys: u64, fingerprint_bits: u32) -> PyResult<FuseParams> {
    FuseParams::new(keys, u8::try_from(fingerprint_bits).unwrap_or(0)).raise(py)
}

impl BinaryFuseFilter {
    fn view(&self) -> PyResult<fuse::Fuse<'_>> {
        Python::attach(|py| fuse::wrap(self.image.bytes()).raise(py))
    }
}

#[pymethods]
impl BinaryFuseFilter {
    #[new]
    #[pyo3(signature = (keys, fpr = None, *, fingerprint_bits = None, seed = 0))]
    fn new(
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        fpr: Option<f64>,
        fingerprint_bits: Option<u32>,
        seed: u64,
    ) -> PyResult<Self> {
        let bits = width(py, fpr, fingerprint_bits)?;
        let hasher = KeyHasher { kind: HashKind::Xxh3, seed };
        let batch = Batch::extract(keys, ListMode::Hash(hasher))?;
        let mut hashes: Vec<u64> = Vec::new();
        hashes
            .try_reserve_exact(batch.len())
            .map_err(|_| PyMemoryError::new_err("cannot allocate the key hashes of the build"))?;
        py.detach(|| {
            batch.for_hashed_chunks(hasher, |_, h| {
                hashes.extend_from_slice(h);
                Ok(())
            })
        })
        .raise(py)?;
        drop(batch);
        // Planned keys: the non-null keys given (duplicates included).
        let params = FuseParams::new(hashes.len() as u64, bits).raise(py)?;
        let len = params.image_len().raise(py)?;
        let scratch_len = params.scratch_len().raise(py)?;
        let image = Image::zeroed(len as usize)?;
        // The build's working memory: a zeroed allocation that lives for
        // this call only (MemoryError, not an abort, when it cannot be had).
        let scratch = Image::zeroed(scratch_len as usize)?;
        let (dst, work) = (image.raw(), scratch.raw());
        py.detach(move || {
            // SAFETY: `image` and `scratch` are fresh allocations owned by
            // this function, distinct from each other and from `hashes`.
            fuse::build_hashes(unsafe { dst.bytes_mut() }, &params, seed, &hashes, unsafe {
                work.bytes_mut()
            })
            .map(|_| ())
        })
        .raise(py)?;
        drop(scratch);
        Ok(BinaryFuseFilter { image })
    }

    /// Exact image size in bytes of a filter of ``keys`` keys (what it will
    /// use), without building it; the width from ``fingerprint_bits`` or
    /// ``fpr=`` as for the constructor (8 bits when neither is given; the
    /// second positional argument is ``fingerprint_bits``, the
    /// constructor's is ``fpr``). Raises ``SketchError``
    /// (``INVALID_PARAMETER``), or ValueError when both are given.
    #[staticmethod]
    #[pyo3(signature = (keys, fingerprint_bits = None, *, fpr = None))]
    fn size_for(py: Python<'_>, keys: u64, fingerprint_bits: Option<u32>, fpr: Option<f64>) -> PyResult<u64> {
        params(py, keys, width(py, fpr, fingerprint_bits)?.into())?.image_len().raise(py)
    }

    /// Bytes of temporary memory the build of ``keys`` keys allocates
    /// (about 32 per key; freed when the constructor returns); arguments
    /// as for ``size_for``.
    #[staticmethod]
    #[pyo3(signature = (keys, fingerprint_bits = None, *, fpr = None))]
    fn scratch_size_for(
        py: Python<'_>,
        keys: u64,
        fingerprint_bits: Option<u32>,
        fpr: Option<f64>,
    ) -> PyResult<u64> {
        params(py, keys, width(py, fpr, fingerprint_bits)?.into())?.scratch_len().raise(py)
    }

    /// True when the key may be in the set; False when it certainly is not.
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let f = fuse::wrap(self.image.bytes()).raise(py)?;
        with_key(key, |k| f.contains(k))
    }

    /// Same as ``key in filter``.
    fn contains(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.__contains__(py, key)
    }

    /// Tests a batch of keys (list/tuple of str, bytes or int; NumPy integer
    /// array; pyarrow Binary/String/LargeBinary/LargeString or integer
    /// array; ``None``/nulls give False); returns a NumPy bool array. Runs
    /// without the GIL: threads scale.
    fn contains_many<'py>(&self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let hasher = fuse::wrap(self.image.bytes()).raise(py)?.key_hasher();
        boundary::query_batch::<bool>(py, &self.image, keys, ListMode::Hash(hasher), |img, batch, out| {
            let f = fuse::wrap(img)?;
            let mut tmp = [false; CHUNK];
            batch.for_hashed_chunks(hasher, |pos, h| {
                let t = &mut tmp[..h.len()];
                f.contains_hashes(h, t)?;
                pos.scatter(out, t);
                Ok(())
            })
        })
    }

    /// Distinct keys stored (duplicates of the build counted once).
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.view()?.keys() as usize)
    }

    /// Fingerprint size in bits (8 or 16).
    #[getter]
    fn fingerprint_bits(&self) -> PyResult<u8> {
        Ok(self.view()?.params().fingerprint_bits)
    }

    /// Keys the filter was sized for (the non-null keys given to the build,
    /// duplicates included).
    #[getter]
    fn planned_keys(&self) -> PyResult<u64> {
        Ok(self.view()?.params().keys)
    }

    /// The false-positive rate of an absent key, ``2**-fingerprint_bits``.
    #[getter]
    fn fpr(&self) -> PyResult<f64> {
        Ok(self.view()?.params().fpr())
    }

    /// Fingerprint-array bits per stored key (inf for an empty filter).
    #[getter]
    fn bits_per_key(&self) -> PyResult<f64> {
        Ok(self.view()?.stats().bits_per_key)
    }

    /// Build attempts used (1 when the first fuse seed worked).
    #[getter]
    fn attempts(&self) -> PyResult<u32> {
        Ok(self.view()?.attempts())
    }

    /// Every statistic in a dict (``planned_keys``, ``keys``,
    /// ``fingerprint_bits``, ``bits_per_key``, ``image_bytes_per_key``,
    /// ``fpr``, ``seed``, ``fuse_seed``, ``attempts``, ``array_len``,
    /// ``segment_len``, ``nbytes``).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let f = self.view()?;
        let s = f.stats();
        let d = PyDict::new(py);
        d.set_item("planned_keys", s.params.keys)?;
        d.set_item("keys", s.keys)?;
        d.set_item("fingerprint_bits", s.fingerprint_bits)?;
        d.set_item("bits_per_key", s.bits_per_key)?;
        d.set_item("image_bytes_per_key", s.image_bytes_per_key)?;
        d.set_item("fpr", s.fpr)?;
        d.set_item("seed", s.seed)?;
        d.set_item("fuse_seed", s.fuse_seed)?;
        d.set_item("attempts", s.attempts)?;
        d.set_item("array_len", f.array_len())?;
        d.set_item("segment_len", f.segment_len())?;
        d.set_item("nbytes", s.image_bytes)?;
        Ok(d)
    }

    fn __repr__(&self) -> PyResult<String> {
        let s = self.view()?.stats();
        Ok(format!(
            "BinaryFuseFilter(fingerprint_bits={}, keys={}, bits_per_key={:.2}, fpr={:.3e})",
            s.fingerprint_bits, s.keys, s.bits_per_key, s.fpr
        ))
    }
}
