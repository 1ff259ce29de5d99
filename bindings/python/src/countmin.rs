//! `sketches.CountMinSketch`: frequency estimates (`sketches_core::countmin`).

use crate::boundary::{self, with_key, Batch, Family, Image, ListMode, Raise, Weight, CHUNK};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sketches_core::countmin::{self, CountMinParams};
use sketches_core::Error;

/// Count-Min sketch: per-key counts that never underestimate while no counter
/// saturated (32-bit counters stop at 2^32 - 1).
///
/// ``CountMinSketch(epsilon=0.001, delta=0.01)`` plans ``width = e/epsilon``
/// and ``depth = ln(1/delta)``: an estimate exceeds the true count by more
/// than ``epsilon * total`` with probability at most ``delta``;
/// ``width=``/``depth=`` size it explicitly. ``conservative=True`` updates
/// only the smallest counters (lower overestimates, no merge guarantee
/// lost); ``counter_bits`` is 32 or 64 (counters saturate, never wrap).
/// ``sketch[key]`` is the estimate; ``a + b`` / ``merge`` adds the counters.
#[pyclass(module = "sketches", name = "CountMinSketch")]
pub struct CountMinSketch {
    image: Image,
}

impl Family for CountMinSketch {
    fn check(buf: &[u8]) -> Result<(), Error> {
        countmin::wrap(buf).map(|_| ())
    }
    fn verify(bytes: &[u8]) -> Result<(), Error> {
        countmin::verify(bytes)
    }
    fn import(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        countmin::import(src, dst)
    }
    fn export(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        countmin::export(src, dst)
    }
    fn live_len(bytes: &[u8]) -> Result<usize, Error> {
        countmin::import_len(bytes)
    }
    fn image(&self) -> &Image {
        &self.image
    }
    fn image_mut(&mut self) -> &mut Image {
        &mut self.image
    }
    fn from_image(image: Image) -> Self {
        CountMinSketch { image }
    }
}

crate::shared_methods!(CountMinSketch);

impl CountMinSketch {
    fn view(&self) -> PyResult<countmin::CountMin<'_>> {
        Python::attach(|py| countmin::wrap(self.image.bytes()).raise(py))
    }
}

/// The parameters of the constructor's arguments: ``epsilon`` (and
/// ``delta``), or ``width=`` and ``depth=``; then the update rule and
/// counter width.
fn plan(
    py: Python<'_>,
    epsilon: Option<f64>,
    delta: f64,
    width: Option<u64>,
    depth: Option<u32>,
    conservative: bool,
    counter_bits: u32,
) -> PyResult<CountMinParams> {
    let base = match (epsilon, width, depth) {
        (Some(e), None, None) => CountMinParams::for_error(e, delta).raise(py)?,
        (None, Some(w), Some(d)) => CountMinParams::with_size(w, d).raise(py)?,
        _ => return Err(PyValueError::new_err("give epsilon (and delta), or width= and depth=")),
    };
    Ok(CountMinParams { conservative, counter_bits, ..base })
}

#[pymethods]
impl CountMinSketch {
    #[new]
    #[pyo3(signature = (epsilon = None, delta = 0.01, *, width = None, depth = None, conservative = false, counter_bits = 32, seed = 0))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        epsilon: Option<f64>,
        delta: f64,
        width: Option<u64>,
        depth: Option<u32>,
        conservative: bool,
        counter_bits: u32,
        seed: u64,
    ) -> PyResult<Self> {
        let params = plan(py, epsilon, delta, width, depth, conservative, counter_bits)?;
        let len = params.image_len().raise(py)?;
        let mut image = Image::zeroed(len as usize)?;
        countmin::init(image.bytes_mut()?, &params, seed).raise(py)?;
        Ok(CountMinSketch { image })
    }

    /// Exact image size in bytes of the sketch the constructor makes from the
    /// same arguments, without building it (to size shared memory for
    /// ``wrap``); the same errors as the constructor.
    #[staticmethod]
    #[pyo3(signature = (epsilon = None, delta = 0.01, *, width = None, depth = None, conservative = false, counter_bits = 32))]
    fn size_for(
        py: Python<'_>,
        epsilon: Option<f64>,
        delta: f64,
        width: Option<u64>,
        depth: Option<u32>,
        conservative: bool,
        counter_bits: u32,
    ) -> PyResult<u64> {
        plan(py, epsilon, delta, width, depth, conservative, counter_bits)?.image_len().raise(py)
    }

    /// Adds ``weight`` occurrences of a key. ``weight`` is an integer in 0 ..
    /// 2**64-1 (a NumPy integer too): a value outside it raises ValueError
    /// naming it, a bool or a float TypeError, as ``add_many``'s weights do;
    /// nothing changes then. A bool key raises TypeError.
    #[pyo3(signature = (key, weight = Weight(1)), text_signature = "($self, key, weight=1)")]
    fn add(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>, weight: Weight) -> PyResult<()> {
        let mut s = countmin::wrap_mut(self.image.bytes_mut()?).raise(py)?;
        with_key(key, |k| s.add(k, weight.0))
    }

    /// Adds a batch of keys (shapes as ``BloomFilter.add_many``; nulls
    /// skipped), each once or with ``weights`` (one non-negative integer per key).
    #[pyo3(signature = (keys, weights = None))]
    fn add_many(
        &mut self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let hasher = countmin::wrap(self.image.bytes()).raise(py)?.key_hasher();
        let batch = Batch::extract(keys, ListMode::Hash(hasher))?;
        let weights = match weights {
            Some(w) => Some(boundary::u64_values(py, w, batch.len())?),
            None => None,
        };
        let w_raw = weights.as_ref().map(|(_, b)| b.raw());
        boundary::update_batch_silent(py, &mut self.image, &batch, |img, batch| {
            let mut s = countmin::wrap_mut(img)?;
            // SAFETY: the weights' export is held by `weights` for the call.
            let all = w_raw.map(|r| unsafe { boundary::as_u64s(r) });
            let mut chunk = [0u64; CHUNK];
            batch.for_hashed_chunks(hasher, |pos, h| match all {
                None => s.add_hashes(h, None),
                Some(all) => {
                    let w = pos.gather(all, &mut chunk, h.len());
                    s.add_hashes(h, Some(w))
                }
            })
        })
    }

    /// The estimated count of a key (never below the true count while no
    /// counter saturated: 32-bit counters stop at 2^32 - 1).
    fn estimate(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        let s = countmin::wrap(self.image.bytes()).raise(py)?;
        with_key(key, |k| s.estimate(k))
    }

    /// Same as ``estimate(key)``.
    fn __getitem__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.estimate(py, key)
    }

    /// Not iterable: the sketch keeps no keys. (Without this, ``__getitem__``
    /// made Python iterate ``sketch[0], sketch[1], ...`` forever for
    /// ``key in sketch``, ``list(sketch)`` or ``for k in sketch``.)
    fn __iter__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err(
            "a CountMinSketch keeps no keys and is not iterable; use estimate(key) or sketch[key]",
        ))
    }

    /// No membership test (``key in sketch`` raises TypeError): use
    /// ``sketch[key] > 0`` (0 means the key was certainly not added).
    fn __contains__(&self, _key: &Bound<'_, PyAny>) -> PyResult<bool> {
        Err(PyTypeError::new_err(
            "a CountMinSketch has no membership test; use sketch[key] > 0 (0: certainly never added)",
        ))
    }

    /// Estimates a batch of keys; returns a NumPy uint64 array (0 for nulls).
    fn estimate_many<'py>(&self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let hasher = countmin::wrap(self.image.bytes()).raise(py)?.key_hasher();
        boundary::query_batch::<u64>(py, &self.image, keys, ListMode::Hash(hasher), |img, batch, out| {
            let s = countmin::wrap(img)?;
            let mut tmp = [0u64; CHUNK];
            batch.for_hashed_chunks(hasher, |pos, h| {
                let t = &mut tmp[..h.len()];
                s.estimate_hashes(h, t)?;
                pos.scatter(out, t);
                Ok(())
            })
        })
    }

    /// In-place merge: adds the counters of a sketch with the same width,
    /// depth, counter size, mode and seed (saturating).
    fn merge(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        boundary::merge_into(py, slf, other, |d, s| countmin::wrap_mut(d)?.merge(&countmin::wrap(s)?))
    }

    fn __add__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<Self> {
        boundary::merged_copy(py, slf, other, |d, s| countmin::wrap_mut(d)?.merge(&countmin::wrap(s)?))
    }

    fn __iadd__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    /// Sets every counter to 0.
    fn clear(&mut self, py: Python<'_>) -> PyResult<()> {
        boundary::mutate(py, &mut self.image, |img| {
            countmin::wrap_mut(img)?.clear();
            Ok(())
        })
    }

    /// Sum of all weights added (saturating).
    #[getter]
    fn total(&self) -> PyResult<u64> {
        Ok(self.view()?.total())
    }

    /// ``epsilon * total``: an estimate exceeds the true count by more than
    /// this with probability at most ``delta``.
    #[getter]
    fn error_bound(&self) -> PyResult<f64> {
        Ok(self.view()?.error_bound())
    }

    /// Counters per row.
    #[getter]
    fn width(&self) -> PyResult<u64> {
        Ok(self.view()?.params().width)
    }

    /// Rows.
    #[getter]
    fn depth(&self) -> PyResult<u32> {
        Ok(self.view()?.params().depth)
    }

    /// ``e / width``.
    #[getter]
    fn epsilon(&self) -> PyResult<f64> {
        Ok(self.view()?.params().epsilon())
    }

    /// ``exp(-depth)``.
    #[getter]
    fn delta(&self) -> PyResult<f64> {
        Ok(self.view()?.params().delta())
    }

    /// True in conservative-update mode.
    #[getter]
    fn conservative(&self) -> PyResult<bool> {
        Ok(self.view()?.params().conservative)
    }

    /// Counter size in bits (32 or 64).
    #[getter]
    fn counter_bits(&self) -> PyResult<u32> {
        Ok(self.view()?.params().counter_bits)
    }

    /// Every statistic in a dict (``width``, ``depth``, ``counter_bits``,
    /// ``conservative``, ``seed``, ``total``, ``epsilon``, ``delta``,
    /// ``error_bound``, ``nbytes``).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.view()?.stats();
        let d = PyDict::new(py);
        d.set_item("width", s.params.width)?;
        d.set_item("depth", s.params.depth)?;
        d.set_item("counter_bits", s.params.counter_bits)?;
        d.set_item("conservative", s.params.conservative)?;
        d.set_item("seed", s.seed)?;
        d.set_item("total", s.total)?;
        d.set_item("epsilon", s.epsilon)?;
        d.set_item("delta", s.delta)?;
        d.set_item("error_bound", s.error_bound)?;
        d.set_item("nbytes", self.image.image_len())?;
        Ok(d)
    }

    fn __repr__(&self) -> PyResult<String> {
        let s = self.view()?.stats();
        Ok(format!(
            "CountMinSketch(width={}, depth={}, conservative={}, total={})",
            s.params.width,
            s.params.depth,
            if s.params.conservative { "True" } else { "False" },
            s.total
        ))
    }
}
