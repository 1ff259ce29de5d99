//! `sketches.CountingBloomFilter`: counting Bloom filter (`sketches_core::counting`).

use crate::boundary::{self, py_bool, with_key, Family, Image, ListMode, Raise, CHUNK};
use pyo3::exceptions::PyKeyError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sketches_core::counting;
use sketches_core::Error;

/// A counting Bloom filter: a Bloom filter of 4-bit saturating counters
/// that supports removal.
///
/// ``CountingBloomFilter(items, fpr=0.01)`` plans like ``BloomFilter`` (one
/// counter per bit, so 4x its memory); ``counters=`` and ``hashes=`` size it
/// explicitly. ``remove`` raises KeyError (and changes nothing) when some
/// counter of the key is 0; a counter that reached 15 is never decremented
/// again, so there is never a false negative. ``a + b`` / ``merge`` adds the
/// counters (saturating): one filter of both streams.
#[pyclass(module = "sketches", name = "CountingBloomFilter")]
pub struct CountingBloomFilter {
    image: Image,
}

impl Family for CountingBloomFilter {
    fn check(buf: &[u8]) -> Result<(), Error> {
        counting::wrap(buf).map(|_| ())
    }
    fn verify(bytes: &[u8]) -> Result<(), Error> {
        counting::verify(bytes)
    }
    fn import(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        counting::import(src, dst)
    }
    fn export(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        counting::export(src, dst)
    }
    fn live_len(bytes: &[u8]) -> Result<usize, Error> {
        counting::import_len(bytes)
    }
    fn image(&self) -> &Image {
        &self.image
    }
    fn image_mut(&mut self) -> &mut Image {
        &mut self.image
    }
    fn from_image(image: Image) -> Self {
        CountingBloomFilter { image }
    }
}

crate::shared_methods!(CountingBloomFilter);

impl CountingBloomFilter {
    fn view(&self) -> PyResult<counting::Counting<'_>> {
        Python::attach(|py| counting::wrap(self.image.bytes()).raise(py))
    }
}

#[pymethods]
impl CountingBloomFilter {
    #[new]
    #[pyo3(signature = (items = None, fpr = 0.01, *, counters = None, hashes = None, seed = 0))]
    fn new(
        py: Python<'_>,
        items: Option<u64>,
        fpr: f64,
        counters: Option<u64>,
        hashes: Option<u32>,
        seed: u64,
    ) -> PyResult<Self> {
        let params = crate::bloom::plan(py, items, fpr, counters, hashes)?;
        let len = counting::image_len(&params).raise(py)?;
        let mut image = Image::zeroed(len as usize)?;
        counting::init(image.bytes_mut()?, &params, seed).raise(py)?;
        Ok(CountingBloomFilter { image })
    }

    /// Exact image size in bytes of the filter the constructor makes from the
    /// same arguments, without building it (to size shared memory for
    /// ``wrap``); the same errors as the constructor.
    #[staticmethod]
    #[pyo3(signature = (items = None, fpr = 0.01, *, counters = None, hashes = None))]
    fn size_for(
        py: Python<'_>,
        items: Option<u64>,
        fpr: f64,
        counters: Option<u64>,
        hashes: Option<u32>,
    ) -> PyResult<u64> {
        let params = crate::bloom::plan(py, items, fpr, counters, hashes)?;
        counting::image_len(&params).raise(py)
    }

    /// Adds a key; returns True when it was new (some counter was 0).
    fn add(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mut f = counting::wrap_mut(self.image.bytes_mut()?).raise(py)?;
        with_key(key, |k| f.add(k))
    }

    /// Removes one occurrence of a key. Raises KeyError when the key is
    /// certainly absent (some counter is 0); nothing changes then.
    fn remove(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut f = counting::wrap_mut(self.image.bytes_mut()?).raise(py)?;
        match with_key(key, |k| f.remove(k))? {
            Err(Error::NotPresent) => Err(PyKeyError::new_err(key.clone().unbind())),
            other => other.raise(py),
        }
    }

    /// Removes one occurrence if the key may be present; returns whether it did.
    fn discard(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mut f = counting::wrap_mut(self.image.bytes_mut()?).raise(py)?;
        match with_key(key, |k| f.remove(k))? {
            Err(Error::NotPresent) => Ok(false),
            other => other.raise(py).map(|_| true),
        }
    }

    /// True when the key may be present; False when it certainly is not.
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let f = counting::wrap(self.image.bytes()).raise(py)?;
        with_key(key, |k| f.contains(k))
    }

    /// Same as ``key in filter``.
    fn contains(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.__contains__(py, key)
    }

    /// Adds a batch of keys (see ``BloomFilter.add_many`` for the shapes);
    /// returns a NumPy bool array, True where the key was new.
    fn add_many<'py>(&mut self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let hasher = counting::wrap(self.image.bytes()).raise(py)?.key_hasher();
        boundary::update_batch::<bool>(
            py,
            &mut self.image,
            keys,
            ListMode::Hash(hasher),
            |img, batch, out| {
                let mut f = counting::wrap_mut(img)?;
                let mut tmp = [false; CHUNK];
                batch.for_hashed_chunks(hasher, |pos, h| {
                    let t = &mut tmp[..h.len()];
                    f.add_hashes(h, Some(t))?;
                    pos.scatter(out, t);
                    Ok(())
                })
            },
        )
    }

    /// Removes a batch of keys; returns a NumPy bool array, True where one
    /// occurrence was removed (False: certainly absent, nothing changed).
    fn remove_many<'py>(&mut self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let hasher = counting::wrap(self.image.bytes()).raise(py)?.key_hasher();
        boundary::update_batch::<bool>(
            py,
            &mut self.image,
            keys,
            ListMode::Hash(hasher),
            |img, batch, out| {
                let mut f = counting::wrap_mut(img)?;
                let mut tmp = [false; CHUNK];
                batch.for_hashed_chunks(hasher, |pos, h| {
                    let t = &mut tmp[..h.len()];
                    f.remove_hashes(h, t)?;
                    pos.scatter(out, t);
                    Ok(())
                })
            },
        )
    }

    /// Tests a batch of keys; returns a NumPy bool array (False for nulls).
    fn contains_many<'py>(&self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let hasher = counting::wrap(self.image.bytes()).raise(py)?.key_hasher();
        boundary::query_batch::<bool>(py, &self.image, keys, ListMode::Hash(hasher), |img, batch, out| {
            let f = counting::wrap(img)?;
            let mut tmp = [false; CHUNK];
            batch.for_hashed_chunks(hasher, |pos, h| {
                let t = &mut tmp[..h.len()];
                f.contains_hashes(h, t)?;
                pos.scatter(out, t);
                Ok(())
            })
        })
    }

    /// In-place merge: adds the counters of a filter with the same
    /// counters, hashes and seed (saturating at 15).
    fn merge(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        boundary::merge_into(py, slf, other, |d, s| counting::wrap_mut(d)?.merge(&counting::wrap(s)?))
    }

    fn __add__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<Self> {
        boundary::merged_copy(py, slf, other, |d, s| counting::wrap_mut(d)?.merge(&counting::wrap(s)?))
    }

    fn __iadd__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    /// Removes every key.
    fn clear(&mut self, py: Python<'_>) -> PyResult<()> {
        boundary::mutate(py, &mut self.image, |img| {
            counting::wrap_mut(img)?.clear();
            Ok(())
        })
    }

    /// Items stored: add calls minus successful removals.
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.view()?.items() as usize)
    }

    /// Number of 4-bit counters.
    #[getter]
    fn counters(&self) -> PyResult<u64> {
        Ok(self.view()?.params().bits)
    }

    /// Counters per key ``k``.
    #[getter]
    fn hashes(&self) -> PyResult<u32> {
        Ok(self.view()?.params().hashes)
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

    /// Current false-positive rate estimated from the non-zero counters.
    #[getter]
    fn estimated_fpr(&self) -> PyResult<f64> {
        Ok(self.view()?.estimated_fpr())
    }

    /// ``CAPACITY_*`` flags (0 while within the plan).
    #[getter]
    fn capacity_flags(&self) -> PyResult<u32> {
        Ok(self.view()?.capacity().0)
    }

    /// True once more items are stored than planned or the estimated
    /// false-positive rate passed twice the planned one.
    #[getter]
    fn over_capacity(&self) -> PyResult<bool> {
        Ok(!self.view()?.capacity().is_within_plan())
    }

    /// Every statistic in a dict (``counters``, ``hashes``, ``planned_items``,
    /// ``planned_fpr``, ``seed``, ``add_calls``, ``removes``, ``items``,
    /// ``nonzero_counters``, ``saturated_counters``, ``estimated_fpr``,
    /// ``capacity_flags``, ``over_capacity``, ``nbytes``).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.view()?.stats();
        let d = PyDict::new(py);
        d.set_item("counters", s.params.bits)?;
        d.set_item("hashes", s.params.hashes)?;
        d.set_item("planned_items", s.params.planned_items)?;
        d.set_item("planned_fpr", s.params.planned_fpr)?;
        d.set_item("seed", s.seed)?;
        d.set_item("add_calls", s.add_calls)?;
        d.set_item("removes", s.removes)?;
        d.set_item("items", s.items)?;
        d.set_item("nonzero_counters", s.nonzero_counters)?;
        d.set_item("saturated_counters", s.saturated_counters)?;
        d.set_item("estimated_fpr", s.estimated_fpr)?;
        d.set_item("capacity_flags", s.capacity.0)?;
        d.set_item("over_capacity", !s.capacity.is_within_plan())?;
        d.set_item("nbytes", self.image.image_len())?;
        Ok(d)
    }

    fn __repr__(&self) -> PyResult<String> {
        let s = self.view()?.stats();
        Ok(format!(
            "CountingBloomFilter(counters={}, hashes={}, planned_items={}, items={}, over_capacity={})",
            s.params.bits,
            s.params.hashes,
            s.params.planned_items,
            s.items,
            py_bool(!s.capacity.is_within_plan())
        ))
    }
}
