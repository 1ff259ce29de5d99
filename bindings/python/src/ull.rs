//! `sketches.UltraLogLog`: distinct counting in less memory (`sketches_core::ull`).

use crate::boundary::{self, with_key, Batch, Family, Image, ListMode, Raise};
use crate::hll::HyperLogLog;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sketches_core::Error;
use sketches_core::{hll, ull};

/// UltraLogLog distinct counter, precision 4..18 (``2**p`` 8-bit registers).
///
/// Same use as ``HyperLogLog`` with about 28% less memory for the same
/// error: relative standard error about 0.658/sqrt(m) while it sees only its
/// own stream (martingale), 0.782/sqrt(m) from the registers after merges
/// (0.761/sqrt(m) with ``ml_estimate``). ``UltraLogLog(13)`` (8 KiB) beats
/// a p=14 HyperLogLog's register estimate. ``a | b`` / ``merge`` is the
/// union; ``to_hll()`` gives the HyperLogLog of the same hashes.
#[pyclass(module = "sketches", name = "UltraLogLog")]
pub struct UltraLogLog {
    image: Image,
}

impl Family for UltraLogLog {
    fn check(buf: &[u8]) -> Result<(), Error> {
        ull::wrap(buf).map(|_| ())
    }
    fn verify(bytes: &[u8]) -> Result<(), Error> {
        ull::verify(bytes)
    }
    fn import(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        ull::import(src, dst)
    }
    fn export(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        ull::export(src, dst)
    }
    fn live_len(bytes: &[u8]) -> Result<usize, Error> {
        ull::import_len(bytes)
    }
    fn image(&self) -> &Image {
        &self.image
    }
    fn image_mut(&mut self) -> &mut Image {
        &mut self.image
    }
    fn from_image(image: Image) -> Self {
        UltraLogLog { image }
    }
}

crate::shared_methods!(UltraLogLog);

impl UltraLogLog {
    fn view(&self) -> PyResult<ull::Ull<'_>> {
        Python::attach(|py| ull::wrap(self.image.bytes()).raise(py))
    }
}

#[pymethods]
impl UltraLogLog {
    #[new]
    #[pyo3(signature = (precision = 14, *, seed = 0))]
    fn new(py: Python<'_>, precision: u8, seed: u64) -> PyResult<Self> {
        let len = ull::image_len(precision).raise(py)?;
        let mut image = Image::zeroed(len as usize)?;
        ull::init(image.bytes_mut()?, precision, seed).raise(py)?;
        Ok(UltraLogLog { image })
    }

    /// Exact image size in bytes for a precision (the constructor's default
    /// when not given).
    #[staticmethod]
    #[pyo3(signature = (precision = 14))]
    fn size_for(py: Python<'_>, precision: u8) -> PyResult<u64> {
        ull::image_len(precision).raise(py)
    }

    /// Adds a key; returns True when the sketch changed.
    fn add(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mut s = ull::wrap_mut(self.image.bytes_mut()?).raise(py)?;
        with_key(key, |k| s.add(k))
    }

    /// Adds a batch of keys (shapes as ``HyperLogLog.add_many``), without the GIL.
    fn add_many(&mut self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<()> {
        let hasher = ull::wrap(self.image.bytes()).raise(py)?.key_hasher();
        let batch = Batch::extract(keys, ListMode::Hash(hasher))?;
        boundary::update_batch_silent(py, &mut self.image, &batch, |img, batch| {
            let mut s = ull::wrap_mut(img)?;
            batch.for_hashed_chunks(hasher, |_, h| {
                s.add_hashes(h);
                Ok(())
            })
        })
    }

    /// The distinct-count estimate: martingale while the sketch saw only its
    /// own stream, else FGRA from the registers.
    fn estimate(&self) -> PyResult<f64> {
        Ok(self.view()?.estimate())
    }

    /// The FGRA estimate from the registers alone.
    fn register_estimate(&self) -> PyResult<f64> {
        Ok(self.view()?.register_estimate())
    }

    /// The maximum-likelihood estimate from the registers (slightly more
    /// accurate than FGRA after merges; scans the registers).
    fn ml_estimate(&self) -> PyResult<f64> {
        Ok(self.view()?.ml_estimate())
    }

    /// ``round(estimate())``.
    fn __len__(&self) -> PyResult<usize> {
        let e = self.view()?.estimate();
        Ok(if e.is_finite() { e.round() as usize } else { usize::MAX })
    }

    fn __float__(&self) -> PyResult<f64> {
        self.estimate()
    }

    /// Precision ``p`` (``2**p`` registers).
    #[getter]
    fn precision(&self) -> PyResult<u8> {
        Ok(self.view()?.precision())
    }

    /// True while ``estimate()`` is the martingale estimate.
    #[getter]
    fn martingale(&self) -> PyResult<bool> {
        Ok(self.view()?.martingale_valid())
    }

    /// Theoretical relative standard error of the register (FGRA) estimate.
    #[getter]
    fn standard_error(&self) -> PyResult<f64> {
        Ok(ull::standard_error(self.view()?.precision()))
    }

    /// In-place union with a sketch of the same seed and a precision at
    /// least this one's.
    fn merge(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        boundary::merge_into(py, slf, other, |d, s| ull::wrap_mut(d)?.merge(&ull::wrap(s)?))
    }

    /// Same as ``merge``: in-place union.
    fn union(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    /// The union as a new sketch at the lower precision of the two, in
    /// either order (as ``HyperLogLog.__or__``).
    fn __or__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<Self> {
        let lower_first = other.try_borrow()?.view()?.precision() < slf.try_borrow()?.view()?.precision();
        let (target, source) = if lower_first { (other, slf) } else { (slf, other) };
        boundary::merged_copy(py, target, source, |d, s| ull::wrap_mut(d)?.merge(&ull::wrap(s)?))
    }

    fn __ior__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    /// The HyperLogLog of the same precision and seed that the same hashes
    /// give (exact conversion).
    fn to_hll(&self, py: Python<'_>) -> PyResult<HyperLogLog> {
        let s = self.view()?;
        let len = hll::image_len(s.precision()).raise(py)?;
        let mut image = Image::zeroed(len as usize)?;
        ull::to_hll(&s, image.bytes_mut()?).raise(py)?;
        Ok(HyperLogLog::with_image(image))
    }

    /// The ``2**p`` registers as a NumPy uint8 array (a copy).
    fn registers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.view()?;
        let numpy = py.import("numpy")?;
        numpy
            .call_method1("frombuffer", (pyo3::types::PyBytes::new(py, s.registers()), "uint8"))?
            .call_method0("copy")
    }

    /// Empties the sketch.
    fn clear(&mut self, py: Python<'_>) -> PyResult<()> {
        boundary::mutate(py, &mut self.image, |img| {
            ull::wrap_mut(img)?.reset();
            Ok(())
        })
    }

    /// Every statistic in a dict (``precision``, ``seed``, ``registers_set``,
    /// ``estimate``, ``martingale``, ``nbytes``).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.view()?.stats();
        let d = PyDict::new(py);
        d.set_item("precision", s.precision)?;
        d.set_item("seed", s.seed)?;
        d.set_item("registers_set", s.registers_set)?;
        d.set_item("estimate", s.estimate)?;
        d.set_item("martingale", s.martingale)?;
        d.set_item("nbytes", s.image_bytes)?;
        Ok(d)
    }

    fn __repr__(&self) -> PyResult<String> {
        let s = self.view()?.stats();
        Ok(format!("UltraLogLog(precision={}, estimate={:.1})", s.precision, s.estimate))
    }
}
