//! `sketches.MinHash`: set similarity (`sketches_core::minhash`).

use crate::boundary::{self, with_key, Batch, Family, Image, ListMode, Raise};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sketches_core::minhash;
use sketches_core::Error;

/// MinHash with ``k`` registers (one-permutation hashing with optimal
/// densification: one hash per key).
///
/// ``a.jaccard(b)`` estimates the Jaccard similarity of the two key sets
/// with standard error about sqrt(J(1-J)/k); ``signature()`` gives the
/// densified signature for LSH banding; ``a | b`` / ``merge`` is the union.
#[pyclass(module = "sketches", name = "MinHash")]
pub struct MinHash {
    image: Image,
}

impl Family for MinHash {
    fn check(buf: &[u8]) -> Result<(), Error> {
        minhash::wrap(buf).map(|_| ())
    }
    fn verify(bytes: &[u8]) -> Result<(), Error> {
        minhash::verify(bytes)
    }
    fn import(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        minhash::import(src, dst)
    }
    fn export(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        minhash::export(src, dst)
    }
    fn live_len(bytes: &[u8]) -> Result<usize, Error> {
        minhash::import_len(bytes)
    }
    fn image(&self) -> &Image {
        &self.image
    }
    fn image_mut(&mut self) -> &mut Image {
        &mut self.image
    }
    fn from_image(image: Image) -> Self {
        MinHash { image }
    }
}

crate::shared_methods!(MinHash);

impl MinHash {
    fn view(&self) -> PyResult<minhash::MinHash<'_>> {
        Python::attach(|py| minhash::wrap(self.image.bytes()).raise(py))
    }
}

#[pymethods]
impl MinHash {
    #[new]
    #[pyo3(signature = (k = 128, *, seed = 0))]
    fn new(py: Python<'_>, k: u32, seed: u64) -> PyResult<Self> {
        let len = minhash::image_len(k).raise(py)?;
        let mut image = Image::zeroed(len as usize)?;
        minhash::init(image.bytes_mut()?, k, seed).raise(py)?;
        Ok(MinHash { image })
    }

    /// Exact image size in bytes of ``MinHash(k)``, without building it (to
    /// size shared memory for ``wrap``); the same errors as the constructor.
    #[staticmethod]
    #[pyo3(signature = (k = 128))]
    fn size_for(py: Python<'_>, k: u32) -> PyResult<u64> {
        minhash::image_len(k).raise(py)
    }

    /// Adds a key; returns True when a register changed.
    fn add(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mut s = minhash::wrap_mut(self.image.bytes_mut()?).raise(py)?;
        with_key(key, |k| s.add(k))
    }

    /// Adds a batch of keys (shapes as ``BloomFilter.add_many``), without the GIL.
    fn add_many(&mut self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<()> {
        let hasher = minhash::wrap(self.image.bytes()).raise(py)?.key_hasher();
        let batch = Batch::extract(keys, ListMode::Hash(hasher))?;
        boundary::update_batch_silent(py, &mut self.image, &batch, |img, batch| {
            let mut s = minhash::wrap_mut(img)?;
            batch.for_hashed_chunks(hasher, |_, h| {
                s.add_hashes(h);
                Ok(())
            })
        })
    }

    /// Estimated Jaccard similarity with a sketch of the same ``k`` and seed.
    fn jaccard(&self, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<f64> {
        let o = other.try_borrow()?;
        let b = minhash::wrap(o.image.bytes()).raise(py)?;
        self.view()?.jaccard(&b).raise(py)
    }

    /// The densified signature: ``k`` uint64 values (NumPy), for LSH banding.
    fn signature<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.view()?;
        let (array, out) = boundary::numpy_zeros(py, s.registers() as usize, "uint64")?;
        // SAFETY: the fresh array's export is held by `out`.
        s.signature(unsafe { boundary::as_u64s_mut(out.raw()) }).raise(py)?;
        Ok(array)
    }

    /// In-place union with a sketch of the same ``k`` and seed.
    fn merge(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        boundary::merge_into(py, slf, other, |d, s| minhash::wrap_mut(d)?.merge(&minhash::wrap(s)?))
    }

    /// Same as ``merge``: in-place union.
    fn union(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    fn __or__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<Self> {
        boundary::merged_copy(py, slf, other, |d, s| minhash::wrap_mut(d)?.merge(&minhash::wrap(s)?))
    }

    fn __ior__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    /// Empties the sketch.
    fn clear(&mut self, py: Python<'_>) -> PyResult<()> {
        boundary::mutate(py, &mut self.image, |img| {
            minhash::wrap_mut(img)?.clear();
            Ok(())
        })
    }

    /// Number of registers ``k``.
    #[getter]
    fn k(&self) -> PyResult<u32> {
        Ok(self.view()?.registers())
    }

    /// Registers that hold a hash.
    #[getter]
    fn filled(&self) -> PyResult<u32> {
        Ok(self.view()?.filled())
    }

    /// True when no key was added.
    #[getter]
    fn is_empty(&self) -> PyResult<bool> {
        Ok(self.view()?.is_empty())
    }

    /// Every statistic in a dict (``k``, ``filled``, ``seed``, ``nbytes``).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.view()?.stats();
        let d = PyDict::new(py);
        d.set_item("k", s.registers)?;
        d.set_item("filled", s.filled)?;
        d.set_item("seed", s.seed)?;
        d.set_item("nbytes", self.image.image_len())?;
        Ok(d)
    }

    fn __repr__(&self) -> PyResult<String> {
        let s = self.view()?.stats();
        Ok(format!("MinHash(k={}, filled={})", s.registers, s.filled))
    }
}
