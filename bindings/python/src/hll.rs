//! `sketches.HyperLogLog`: distinct counting (`sketches_core::hll`).

use crate::boundary::{self, with_key, Batch, Family, Image, ListMode, Raise};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sketches_core::hll::{self, HllMode};
use sketches_core::image::Token;
use sketches_core::Error;

/// HyperLogLog distinct counter, precision 4..18 (``2**p`` 6-bit registers).
///
/// ``HyperLogLog(precision=14)`` uses a 12 KiB register area (12.4 KiB
/// image) and has a relative standard error of about 0.83/sqrt(m) (0.65% at
/// p=14) while it sees only its own stream (martingale estimate), 1.04/sqrt(m)
/// after merges. It counts exactly (keeps the distinct hashes) until
/// ``small_capacity`` distinct keys arrived (1024 at p>=14), then converts
/// in place. ``a | b`` / ``merge`` is the union; sketches of different
/// precisions merge at the lower one (``downsize``).
#[pyclass(module = "sketches", name = "HyperLogLog")]
pub struct HyperLogLog {
    image: Image,
    /// The image's token (see `sketches_core::image::Token`), taken when the
    /// object got its image: single-key calls skip the header validation
    /// while it matches (a stale one only costs the full validation).
    token: Token,
}

impl Family for HyperLogLog {
    fn check(buf: &[u8]) -> Result<(), Error> {
        hll::wrap(buf).map(|_| ())
    }
    fn verify(bytes: &[u8]) -> Result<(), Error> {
        hll::verify(bytes)
    }
    fn import(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        hll::import(src, dst)
    }
    fn export(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        hll::export(src, dst)
    }
    fn live_len(bytes: &[u8]) -> Result<usize, Error> {
        hll::import_len(bytes)
    }
    fn exported_len(src: &[u8]) -> Result<usize, Error> {
        hll::exported_len(src)
    }
    fn image(&self) -> &Image {
        &self.image
    }
    fn image_mut(&mut self) -> &mut Image {
        &mut self.image
    }
    fn from_image(image: Image) -> Self {
        HyperLogLog::adopt(image)
    }
}

crate::shared_methods!(HyperLogLog);

impl HyperLogLog {
    /// Wraps a live image and takes its token (zero when the image does not
    /// validate: calls then validate in full and report the error).
    fn adopt(image: Image) -> Self {
        let token = hll::token(image.bytes()).unwrap_or_default();
        HyperLogLog { image, token }
    }
}

impl HyperLogLog {
    fn view(&self) -> PyResult<hll::Hll<'_>> {
        Python::attach(|py| hll::wrap(self.image.bytes()).raise(py))
    }

    pub(crate) fn with_image(image: Image) -> Self {
        HyperLogLog::adopt(image)
    }
}

#[pymethods]
impl HyperLogLog {
    #[new]
    #[pyo3(signature = (precision = 14, *, seed = 0))]
    fn new(py: Python<'_>, precision: u8, seed: u64) -> PyResult<Self> {
        let len = hll::image_len(precision).raise(py)?;
        let mut image = Image::zeroed(len as usize)?;
        hll::init(image.bytes_mut()?, precision, seed).raise(py)?;
        Ok(HyperLogLog::adopt(image))
    }

    /// Exact image size in bytes for a precision (the constructor's default
    /// when not given).
    #[staticmethod]
    #[pyo3(signature = (precision = 14))]
    fn size_for(py: Python<'_>, precision: u8) -> PyResult<u64> {
        hll::image_len(precision).raise(py)
    }

    /// Adds a key; returns True when the sketch changed.
    fn add(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mut s = hll::wrap_mut_with(self.image.bytes_mut()?, &self.token).raise(py)?;
        with_key(key, |k| s.add(k))
    }

    /// Adds a batch of keys (list/tuple, NumPy integer array, pyarrow
    /// Binary/String/Large*/integer array; nulls skipped), without the GIL.
    fn add_many(&mut self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<()> {
        let hasher = hll::wrap(self.image.bytes()).raise(py)?.key_hasher();
        let batch = Batch::extract(keys, ListMode::Hash(hasher))?;
        boundary::update_batch_silent(py, &mut self.image, &batch, |img, batch| {
            let mut s = hll::wrap_mut(img)?;
            batch.for_hashed_chunks(hasher, |_, h| {
                s.add_hashes(h);
                Ok(())
            })
        })
    }

    /// The distinct-count estimate: exact in small mode, the martingale
    /// estimate while the sketch saw only its own stream, else from the registers.
    fn estimate(&self) -> PyResult<f64> {
        Ok(self.view()?.estimate())
    }

    /// The estimate from the registers alone (Ertl's improved estimator).
    fn register_estimate(&self) -> PyResult<f64> {
        Ok(self.view()?.register_estimate())
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

    /// "small" (exact distinct hashes) or "dense" (registers).
    #[getter]
    fn mode(&self) -> PyResult<&'static str> {
        Ok(match self.view()?.mode() {
            HllMode::Small => "small",
            HllMode::Dense => "dense",
        })
    }

    /// True while ``estimate()`` is the martingale estimate (own stream only).
    #[getter]
    fn martingale(&self) -> PyResult<bool> {
        Ok(self.view()?.martingale_valid())
    }

    /// In-place union with a sketch of the same seed and a precision at
    /// least this one's (higher precisions fold down); a lower precision
    /// raises SketchError (INCOMPATIBLE, nothing changed) once ``other`` is
    /// dense, but merges while it is in its exact small mode (it holds
    /// whole hashes): merge into the lowest precision, or ``downsize`` the
    /// others to it first.
    fn merge(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        boundary::merge_into(py, slf, other, |d, s| hll::wrap_mut(d)?.merge(&hll::wrap(s)?))
    }

    /// Same as ``merge``: in-place union.
    fn union(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    /// The union as a new sketch at the lower precision of the two, in
    /// either order (a copy of the lower-precision sketch takes the other's
    /// registers folded down).
    fn __or__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<Self> {
        let lower_first = other.try_borrow()?.view()?.precision() < slf.try_borrow()?.view()?.precision();
        let (target, source) = if lower_first { (other, slf) } else { (slf, other) };
        boundary::merged_copy(py, target, source, |d, s| hll::wrap_mut(d)?.merge(&hll::wrap(s)?))
    }

    fn __ior__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    /// A copy at a lower precision (registers folded down), same seed.
    fn downsize(&self, py: Python<'_>, precision: u8) -> PyResult<Self> {
        let len = hll::image_len(precision).raise(py)?;
        let mut image = Image::zeroed(len as usize)?;
        hll::downsize(&self.view()?, image.bytes_mut()?, precision).raise(py)?;
        Ok(HyperLogLog::adopt(image))
    }

    /// The ``2**p`` register values as a NumPy uint8 array (in small mode,
    /// the registers its hashes give).
    fn registers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let s = self.view()?;
        let mut values = vec![0u8; 1usize << s.precision()];
        s.register_values(&mut values).raise(py)?;
        let numpy = py.import("numpy")?;
        numpy
            .call_method1("frombuffer", (pyo3::types::PyBytes::new(py, &values), "uint8"))?
            .call_method0("copy")
    }

    /// Converts a sketch still in its exact small mode to dense registers,
    /// in place (a no-op when already dense); the estimate is unchanged and
    /// the registers are those its hashes give. Later adds keep it dense
    /// (``clear()`` returns it to small mode). Needed before
    /// ``ConcurrentSketch.wrap`` on a buffer holding this image: the small
    /// mode does not support concurrent adds. An update like ``add``: one
    /// call at a time, and not while concurrent adds run on the memory.
    fn densify(&mut self, py: Python<'_>) -> PyResult<()> {
        boundary::mutate(py, &mut self.image, |img| {
            hll::wrap_mut(img)?.densify_now();
            Ok(())
        })?;
        self.token = hll::token(self.image.bytes()).unwrap_or_default();
        Ok(())
    }

    /// Empties the sketch (back to exact small mode).
    fn clear(&mut self, py: Python<'_>) -> PyResult<()> {
        boundary::mutate(py, &mut self.image, |img| {
            hll::wrap_mut(img)?.reset();
            Ok(())
        })
    }

    /// Every statistic in a dict (``precision``, ``mode``, ``seed``,
    /// ``small_count``, ``small_capacity``, ``registers_set``, ``estimate``,
    /// ``martingale``, ``nbytes``).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.view()?.stats();
        let d = PyDict::new(py);
        d.set_item("precision", s.precision)?;
        d.set_item("mode", if s.mode == HllMode::Small { "small" } else { "dense" })?;
        d.set_item("seed", s.seed)?;
        d.set_item("small_count", s.small_count)?;
        d.set_item("small_capacity", s.small_capacity)?;
        d.set_item("registers_set", s.registers_set)?;
        d.set_item("estimate", s.estimate)?;
        d.set_item("martingale", s.martingale)?;
        d.set_item("nbytes", s.image_bytes)?;
        Ok(d)
    }

    fn __repr__(&self) -> PyResult<String> {
        let s = self.view()?.stats();
        Ok(format!(
            "HyperLogLog(precision={}, mode={}, estimate={:.1})",
            s.precision,
            if s.mode == HllMode::Small { "small" } else { "dense" },
            s.estimate
        ))
    }
}
