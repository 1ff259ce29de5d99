//! `sketches.TopK`: heavy hitters with Space-Saving (`sketches_core::topk`).

use crate::boundary::{self, with_key, Batch, Family, Image, ListMode, Raise, Weight};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use sketches_core::topk::{self, TopKItem, TopKParams};
use sketches_core::Error;

/// Top-k heavy hitters (Space-Saving) with ``capacity`` counters and keys
/// stored inline up to ``max_key_len`` bytes.
///
/// Every key whose count exceeds ``total / capacity`` is listed, and a
/// listed count overestimates by at most its ``error``. Keys longer than
/// ``max_key_len`` raise ``SketchError`` (status ``KEY_TOO_LONG``) and are
/// never truncated. ``top()`` lists ``(key bytes, count, error)`` largest
/// first; ``a + b`` / ``merge`` combines two streams keeping both guarantees.
/// Integer keys are stored as their 8 little-endian bytes.
#[pyclass(module = "sketches", name = "TopK")]
pub struct TopK {
    image: Image,
}

impl Family for TopK {
    fn check(buf: &[u8]) -> Result<(), Error> {
        topk::wrap(buf).map(|_| ())
    }
    fn verify(bytes: &[u8]) -> Result<(), Error> {
        topk::verify(bytes)
    }
    fn import(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        topk::import(src, dst)
    }
    fn export(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        topk::export(src, dst)
    }
    fn live_len(bytes: &[u8]) -> Result<usize, Error> {
        topk::import_len(bytes)
    }
    fn image(&self) -> &Image {
        &self.image
    }
    fn image_mut(&mut self) -> &mut Image {
        &mut self.image
    }
    fn from_image(image: Image) -> Self {
        TopK { image }
    }
}

crate::shared_methods!(TopK);

impl TopK {
    fn view(&self) -> PyResult<topk::TopK<'_>> {
        Python::attach(|py| topk::wrap(self.image.bytes()).raise(py))
    }
}

#[pymethods]
impl TopK {
    #[new]
    #[pyo3(signature = (capacity, max_key_len = 64, *, seed = 0))]
    fn new(py: Python<'_>, capacity: u32, max_key_len: u32, seed: u64) -> PyResult<Self> {
        let params = TopKParams { capacity, max_key_len };
        let len = params.image_len().raise(py)?;
        let mut image = Image::zeroed(len as usize)?;
        topk::init(image.bytes_mut()?, &params, seed).raise(py)?;
        Ok(TopK { image })
    }

    /// Exact image size in bytes of ``TopK(capacity, max_key_len)``, without
    /// building it (to size shared memory for ``wrap``); the same errors as
    /// the constructor.
    #[staticmethod]
    #[pyo3(signature = (capacity, max_key_len = 64))]
    fn size_for(py: Python<'_>, capacity: u32, max_key_len: u32) -> PyResult<u64> {
        TopKParams { capacity, max_key_len }.image_len().raise(py)
    }

    /// Adds ``weight`` occurrences of a key. ``weight`` is an integer in 0 ..
    /// 2**64-1 (a NumPy integer too): a value outside it raises ValueError
    /// naming it, a bool or a float TypeError, as ``add_many``'s weights do;
    /// nothing changes then. A bool key raises TypeError.
    #[pyo3(signature = (key, weight = Weight(1)), text_signature = "($self, key, weight=1)")]
    fn add(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>, weight: Weight) -> PyResult<()> {
        let mut s = topk::wrap_mut(self.image.bytes_mut()?).raise(py)?;
        with_key(key, |k| s.add(k, weight.0))?.raise(py)
    }

    /// Adds a batch of keys (shapes as ``BloomFilter.add_many``; nulls
    /// skipped), each once or with ``weights``. Every key length is checked
    /// first: a key longer than ``max_key_len`` raises and nothing changes.
    #[pyo3(signature = (keys, weights = None))]
    fn add_many(
        &mut self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let max = topk::wrap(self.image.bytes()).raise(py)?.params().max_key_len as usize;
        let batch = Batch::extract(keys, ListMode::Pack)?;
        let weights = match weights {
            Some(w) => Some(boundary::u64_values(py, w, batch.len())?),
            None => None,
        };
        let w_raw = weights.as_ref().map(|(_, b)| b.raw());
        boundary::update_batch_silent(py, &mut self.image, &batch, |img, batch| {
            batch.for_each_key(|_, k| if k.len() > max { Err(Error::KeyTooLong) } else { Ok(()) })?;
            let mut s = topk::wrap_mut(img)?;
            // SAFETY: the weights' export is held by `weights` for the call.
            let all = w_raw.map(|r| unsafe { boundary::as_u64s(r) });
            batch.for_each_key(|pos, k| {
                let w = all.map_or(1, |a| a.get(pos).copied().unwrap_or(0));
                s.add(k, w)
            })
        })
    }

    /// ``(count, error)`` of a key: its counter when listed (the true count
    /// is between ``count - error`` and ``count``), else the smallest count
    /// as both (an unlisted key occurred at most that often). A key longer
    /// than ``max_key_len`` raises SketchError (KEY_TOO_LONG), as ``add`` does.
    fn estimate(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<(u64, u64)> {
        let s = topk::wrap(self.image.bytes()).raise(py)?;
        let e = with_key(key, |k| s.estimate(k))?.raise(py)?;
        Ok((e.count, e.error))
    }

    /// True when the key is listed (holds a counter); a key longer than
    /// ``max_key_len`` is never listed.
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let s = topk::wrap(self.image.bytes()).raise(py)?;
        with_key(key, |k| s.estimate(k).is_ok_and(|e| e.listed))
    }

    /// The listed keys as ``(key, count, error)``, largest count first
    /// (ties: smaller error first); at most ``n`` of them (all by default).
    #[pyo3(signature = (n = None))]
    fn top<'py>(&self, py: Python<'py>, n: Option<usize>) -> PyResult<Vec<(Bound<'py, PyBytes>, u64, u64)>> {
        let s = self.view()?;
        let n = n.unwrap_or(usize::MAX).min(s.used());
        let mut out = vec![TopKItem { key: &[], count: 0, error: 0 }; n];
        let got = s.top(&mut out);
        Ok(out[..got].iter().map(|i| (PyBytes::new(py, i.key), i.count, i.error)).collect())
    }

    /// In-place merge with a sketch of the same capacity, maximum key length
    /// and seed.
    fn merge(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        boundary::merge_into(py, slf, other, |d, s| topk::wrap_mut(d)?.merge(&topk::wrap(s)?))
    }

    fn __add__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<Self> {
        boundary::merged_copy(py, slf, other, |d, s| topk::wrap_mut(d)?.merge(&topk::wrap(s)?))
    }

    fn __iadd__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    /// Removes every key.
    fn clear(&mut self, py: Python<'_>) -> PyResult<()> {
        boundary::mutate(py, &mut self.image, |img| {
            topk::wrap_mut(img)?.clear();
            Ok(())
        })
    }

    /// Keys listed (counters in use).
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.view()?.used())
    }

    /// Counters (keys that can be listed).
    #[getter]
    fn capacity(&self) -> PyResult<u32> {
        Ok(self.view()?.params().capacity)
    }

    /// Longest key in bytes.
    #[getter]
    fn max_key_len(&self) -> PyResult<u32> {
        Ok(self.view()?.params().max_key_len)
    }

    /// Sum of all weights added.
    #[getter]
    fn total(&self) -> PyResult<u64> {
        Ok(self.view()?.total())
    }

    /// Smallest listed count when all counters are in use, else 0.
    #[getter]
    fn min_count(&self) -> PyResult<u64> {
        Ok(self.view()?.min_count())
    }

    /// Every statistic in a dict (``capacity``, ``max_key_len``, ``seed``,
    /// ``used``, ``total``, ``min_count``, ``nbytes``).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.view()?.stats();
        let d = PyDict::new(py);
        d.set_item("capacity", s.params.capacity)?;
        d.set_item("max_key_len", s.params.max_key_len)?;
        d.set_item("seed", s.seed)?;
        d.set_item("used", s.used)?;
        d.set_item("total", s.total)?;
        d.set_item("min_count", s.min_count)?;
        d.set_item("nbytes", self.image.image_len())?;
        Ok(d)
    }

    fn __repr__(&self) -> PyResult<String> {
        let s = self.view()?.stats();
        Ok(format!(
            "TopK(capacity={}, max_key_len={}, used={}, total={})",
            s.params.capacity, s.params.max_key_len, s.used, s.total
        ))
    }
}
