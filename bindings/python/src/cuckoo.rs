//! `sketches.CuckooFilter`: cuckoo filter (`sketches_core::cuckoo`).

use crate::boundary::{self, py_bool, with_key, Family, Image, ListMode, Raise, CHUNK};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sketches_core::cuckoo::{self, CuckooParams};
use sketches_core::Error;

/// A cuckoo filter: buckets of 4 fingerprints, removal and counting, loads
/// of 95% and more.
///
/// ``CuckooFilter(items, fpr=0.01)`` chooses the fingerprint size (8, 12 or
/// 16 bits) from ``fpr`` and the buckets from ``items``;
/// ``buckets=``/``fingerprint_bits=`` size it explicitly. ``add`` raises
/// ``SketchError`` with status ``FULL`` when the key cannot be placed, and
/// the filter is then byte-identical to before (nothing already stored is
/// lost). ``remove`` raises KeyError when the key is absent. ``a + b`` /
/// ``merge`` inserts every fingerprint of ``b`` (all or nothing).
#[pyclass(module = "sketches", name = "CuckooFilter")]
pub struct CuckooFilter {
    image: Image,
}

impl Family for CuckooFilter {
    fn check(buf: &[u8]) -> Result<(), Error> {
        cuckoo::wrap(buf).map(|_| ())
    }
    fn verify(bytes: &[u8]) -> Result<(), Error> {
        cuckoo::verify(bytes)
    }
    fn import(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        cuckoo::import(src, dst)
    }
    fn export(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        cuckoo::export(src, dst)
    }
    fn live_len(bytes: &[u8]) -> Result<usize, Error> {
        cuckoo::import_len(bytes)
    }
    fn image(&self) -> &Image {
        &self.image
    }
    fn image_mut(&mut self) -> &mut Image {
        &mut self.image
    }
    fn from_image(image: Image) -> Self {
        CuckooFilter { image }
    }
}

crate::shared_methods!(CuckooFilter);

/// The all-or-nothing merge with its scratch image (8-byte aligned words).
fn merge_images(dst: &mut [u8], src: &[u8]) -> Result<(), Error> {
    let mut scratch = vec![0u64; dst.len().div_ceil(8)];
    let scratch: &mut [u8] = bytemuck_words(&mut scratch);
    cuckoo::wrap_mut(dst)?.merge(&cuckoo::wrap(src)?, scratch)
}

fn bytemuck_words(words: &mut [u64]) -> &mut [u8] {
    let len = words.len() * 8;
    // SAFETY: u64 memory viewed as bytes (any bit pattern is a valid u8).
    unsafe { core::slice::from_raw_parts_mut(words.as_mut_ptr().cast::<u8>(), len) }
}

impl CuckooFilter {
    fn view(&self) -> PyResult<cuckoo::Cuckoo<'_>> {
        Python::attach(|py| cuckoo::wrap(self.image.bytes()).raise(py))
    }
}

/// The parameters of the constructor's arguments: ``items`` (and ``fpr``),
/// or ``buckets=`` (and ``fingerprint_bits=``, 16 when not given).
fn plan(
    py: Python<'_>,
    items: Option<u64>,
    fpr: f64,
    buckets: Option<u64>,
    fingerprint_bits: Option<u32>,
) -> PyResult<CuckooParams> {
    match (items, buckets) {
        (Some(n), None) => CuckooParams::for_items(n, fpr).raise(py),
        (None, Some(b)) => CuckooParams::with_buckets(b, fingerprint_bits.unwrap_or(16)).raise(py),
        _ => Err(pyo3::exceptions::PyValueError::new_err("give items (and fpr), or buckets=")),
    }
}

#[pymethods]
impl CuckooFilter {
    #[new]
    #[pyo3(signature = (items = None, fpr = 0.01, *, buckets = None, fingerprint_bits = None, seed = 0))]
    fn new(
        py: Python<'_>,
        items: Option<u64>,
        fpr: f64,
        buckets: Option<u64>,
        fingerprint_bits: Option<u32>,
        seed: u64,
    ) -> PyResult<Self> {
        let params = plan(py, items, fpr, buckets, fingerprint_bits)?;
        let len = params.image_len().raise(py)?;
        let mut image = Image::zeroed(len as usize)?;
        cuckoo::init(image.bytes_mut()?, &params, seed).raise(py)?;
        Ok(CuckooFilter { image })
    }

    /// Exact image size in bytes of the filter the constructor makes from the
    /// same arguments, without building it (to size shared memory for
    /// ``wrap``); the same errors as the constructor.
    #[staticmethod]
    #[pyo3(signature = (items = None, fpr = 0.01, *, buckets = None, fingerprint_bits = None))]
    fn size_for(
        py: Python<'_>,
        items: Option<u64>,
        fpr: f64,
        buckets: Option<u64>,
        fingerprint_bits: Option<u32>,
    ) -> PyResult<u64> {
        plan(py, items, fpr, buckets, fingerprint_bits)?.image_len().raise(py)
    }

    /// Adds one occurrence of a key. Raises ``SketchError`` (status
    /// ``FULL``) when it cannot be placed; the filter is unchanged then.
    fn add(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut f = cuckoo::wrap_mut(self.image.bytes_mut()?).raise(py)?;
        with_key(key, |k| f.add(k))?.raise(py)
    }

    /// How many copies of the key's fingerprint its two buckets hold (0:
    /// certainly absent; may count other keys with the same fingerprint).
    fn count(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let f = cuckoo::wrap(self.image.bytes()).raise(py)?;
        with_key(key, |k| f.count(k))
    }

    /// Removes one occurrence of a key (one copy of its fingerprint). Raises
    /// KeyError when the key is certainly absent; nothing changes then.
    /// Remove only keys that were added, or another key may lose its copy.
    fn remove(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut f = cuckoo::wrap_mut(self.image.bytes_mut()?).raise(py)?;
        match with_key(key, |k| f.remove(k))? {
            Err(Error::NotPresent) => Err(PyKeyError::new_err(key.clone().unbind())),
            other => other.raise(py),
        }
    }

    /// Removes one occurrence if the key may be present; returns whether it did.
    fn discard(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mut f = cuckoo::wrap_mut(self.image.bytes_mut()?).raise(py)?;
        match with_key(key, |k| f.remove(k))? {
            Err(Error::NotPresent) => Ok(false),
            other => other.raise(py).map(|_| true),
        }
    }

    /// True when the key may be present; False when it certainly is not.
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let f = cuckoo::wrap(self.image.bytes()).raise(py)?;
        with_key(key, |k| f.contains(k))
    }

    /// Same as ``key in filter``.
    fn contains(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.__contains__(py, key)
    }

    /// Adds a batch of keys (see ``BloomFilter.add_many`` for the shapes);
    /// returns a NumPy bool array, True where the key was stored (False:
    /// the filter was full for it and nothing changed for it).
    fn add_many<'py>(&mut self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let hasher = cuckoo::wrap(self.image.bytes()).raise(py)?.key_hasher();
        boundary::update_batch::<bool>(
            py,
            &mut self.image,
            keys,
            ListMode::Hash(hasher),
            |img, batch, out| {
                let mut f = cuckoo::wrap_mut(img)?;
                let mut tmp = [false; CHUNK];
                batch.for_hashed_chunks(hasher, |pos, h| {
                    let t = &mut tmp[..h.len()];
                    f.add_hashes(h, Some(&mut *t))?;
                    pos.scatter(out, t);
                    Ok(())
                })
            },
        )
    }

    /// Removes a batch of keys (shapes as ``add_many``; ``None``/nulls give
    /// False), without the GIL; returns a NumPy bool array, True where one
    /// occurrence was removed (False: certainly absent, nothing changed for
    /// it). Remove only keys that were added (see ``remove``).
    fn remove_many<'py>(&mut self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let hasher = cuckoo::wrap(self.image.bytes()).raise(py)?.key_hasher();
        boundary::update_batch::<bool>(
            py,
            &mut self.image,
            keys,
            ListMode::Hash(hasher),
            |img, batch, out| {
                let mut f = cuckoo::wrap_mut(img)?;
                let mut tmp = [false; CHUNK];
                batch.for_hashed_chunks(hasher, |pos, h| {
                    let t = &mut tmp[..h.len()];
                    f.remove_hashes(h, Some(&mut *t))?;
                    pos.scatter(out, t);
                    Ok(())
                })
            },
        )
    }

    /// Tests a batch of keys; returns a NumPy bool array (False for nulls).
    fn contains_many<'py>(&self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let hasher = cuckoo::wrap(self.image.bytes()).raise(py)?.key_hasher();
        boundary::query_batch::<bool>(py, &self.image, keys, ListMode::Hash(hasher), |img, batch, out| {
            let f = cuckoo::wrap(img)?;
            let mut tmp = [false; CHUNK];
            batch.for_hashed_chunks(hasher, |pos, h| {
                let t = &mut tmp[..h.len()];
                f.contains_hashes(h, t)?;
                pos.scatter(out, t);
                Ok(())
            })
        })
    }

    /// In-place merge: inserts every fingerprint of a filter with the same
    /// buckets, fingerprint size and seed. All or nothing: raises
    /// ``SketchError`` (status ``FULL``) and changes nothing when they do not fit.
    fn merge(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        boundary::merge_into(py, slf, other, merge_images)
    }

    fn __add__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<Self> {
        boundary::merged_copy(py, slf, other, merge_images)
    }

    fn __iadd__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    /// Removes every key.
    fn clear(&mut self, py: Python<'_>) -> PyResult<()> {
        boundary::mutate(py, &mut self.image, |img| {
            cuckoo::wrap_mut(img)?.clear();
            Ok(())
        })
    }

    /// Items stored: add calls minus successful removals.
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.view()?.items() as usize)
    }

    /// Number of buckets (4 fingerprints each).
    #[getter]
    fn buckets(&self) -> PyResult<u64> {
        Ok(self.view()?.params().buckets)
    }

    /// Fingerprint size in bits (8, 12 or 16).
    #[getter]
    fn fingerprint_bits(&self) -> PyResult<u32> {
        Ok(self.view()?.params().fingerprint_bits)
    }

    /// Fraction of the slots in use.
    #[getter]
    fn load(&self) -> PyResult<f64> {
        Ok(self.view()?.stats().load)
    }

    /// Items the filter was planned for.
    #[getter]
    fn planned_items(&self) -> PyResult<u64> {
        Ok(self.view()?.params().planned_items)
    }

    /// False-positive rate planned at ``planned_items``.
    #[getter]
    fn planned_fpr(&self) -> PyResult<f64> {
        Ok(self.view()?.params().planned_fpr)
    }

    /// Current false-positive rate estimated from the load.
    #[getter]
    fn estimated_fpr(&self) -> PyResult<f64> {
        Ok(self.view()?.stats().estimated_fpr)
    }

    /// ``CAPACITY_*`` flags (0 while within the plan).
    #[getter]
    fn capacity_flags(&self) -> PyResult<u32> {
        Ok(self.view()?.stats().capacity.0)
    }

    /// True once more items are stored than planned or the estimated
    /// false-positive rate passed twice the planned one.
    #[getter]
    fn over_capacity(&self) -> PyResult<bool> {
        Ok(!self.view()?.stats().capacity.is_within_plan())
    }

    /// Every statistic in a dict (``buckets``, ``fingerprint_bits``,
    /// ``planned_items``, ``planned_fpr``, ``seed``, ``items``, ``load``,
    /// ``estimated_fpr``, ``capacity_flags``, ``over_capacity``, ``nbytes``).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.view()?.stats();
        let d = PyDict::new(py);
        d.set_item("buckets", s.params.buckets)?;
        d.set_item("fingerprint_bits", s.params.fingerprint_bits)?;
        d.set_item("planned_items", s.params.planned_items)?;
        d.set_item("planned_fpr", s.params.planned_fpr)?;
        d.set_item("seed", s.seed)?;
        d.set_item("items", s.items)?;
        d.set_item("load", s.load)?;
        d.set_item("estimated_fpr", s.estimated_fpr)?;
        d.set_item("capacity_flags", s.capacity.0)?;
        d.set_item("over_capacity", !s.capacity.is_within_plan())?;
        d.set_item("nbytes", self.image.image_len())?;
        Ok(d)
    }

    fn __repr__(&self) -> PyResult<String> {
        let s = self.view()?.stats();
        Ok(format!(
            "CuckooFilter(buckets={}, fingerprint_bits={}, planned_items={}, items={}, load={:.3}, over_capacity={})",
            s.params.buckets,
            s.params.fingerprint_bits,
            s.params.planned_items,
            s.items,
            s.load,
            py_bool(!s.capacity.is_within_plan())
        ))
    }
}
