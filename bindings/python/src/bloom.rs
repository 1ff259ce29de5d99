//! `sketches.BloomFilter`: the classic Bloom filter (`sketches_core::bloom`).

use crate::boundary::{self, py_bool, with_key, Family, Image, ListMode, Raise, CHUNK};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sketches_core::bloom::{self, BloomParams};
use sketches_core::image::Token;
use sketches_core::Error;

/// A classic Bloom filter: "certainly not present" or "maybe present".
///
/// ``BloomFilter(items, fpr=0.01)`` plans ``m = -n ln p / ln^2 2`` bits and
/// ``k = m/n ln 2`` probes for ``items`` distinct keys at false-positive rate
/// ``fpr``; ``BloomFilter(bits=m, hashes=k)`` sizes it explicitly. Keys are
/// str (UTF-8), bytes-like, or int (8 little-endian bytes), hashed with
/// XXH3-64 and the image's ``seed``: the same rule as C, Go and Java, so the
/// image answers the same in every language.
///
/// ``add`` returns True when the key was new (test-and-insert in one call);
/// ``over_capacity`` turns True once more keys went in than planned or the
/// estimated false-positive rate passed twice the planned one.
/// ``a | b`` is the union, ``a & b`` the intersection.
#[pyclass(module = "sketches", name = "BloomFilter")]
pub struct BloomFilter {
    image: Image,
    /// The image's token (see `sketches_core::image::Token`), taken when the
    /// object got its image: single-key calls skip the header validation
    /// while it matches (a stale one only costs the full validation).
    token: Token,
}

impl Family for BloomFilter {
    fn check(buf: &[u8]) -> Result<(), Error> {
        bloom::wrap(buf).map(|_| ())
    }
    fn verify(bytes: &[u8]) -> Result<(), Error> {
        bloom::verify(bytes)
    }
    fn import(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        bloom::import(src, dst)
    }
    fn export(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        bloom::export(src, dst)
    }
    fn live_len(bytes: &[u8]) -> Result<usize, Error> {
        bloom::import_len(bytes)
    }
    fn image(&self) -> &Image {
        &self.image
    }
    fn image_mut(&mut self) -> &mut Image {
        &mut self.image
    }
    fn from_image(image: Image) -> Self {
        BloomFilter::adopt(image)
    }
}

crate::shared_methods!(BloomFilter);

impl BloomFilter {
    /// Wraps a live image and takes its token (zero when the image does not
    /// validate: calls then validate in full and report the error).
    fn adopt(image: Image) -> Self {
        let token = bloom::token(image.bytes()).unwrap_or_default();
        BloomFilter { image, token }
    }
}

/// Plans Bloom parameters from items/fpr or bits/hashes.
pub(crate) fn plan(
    py: Python<'_>,
    items: Option<u64>,
    fpr: f64,
    bits: Option<u64>,
    hashes: Option<u32>,
) -> PyResult<BloomParams> {
    match (items, bits) {
        (Some(n), None) => BloomParams::for_items(n, fpr).raise(py),
        (None, Some(m)) => {
            let k = hashes.ok_or_else(|| PyValueError::new_err("bits= needs hashes= as well"))?;
            BloomParams::with_bits(m, k).raise(py)
        }
        _ => Err(PyValueError::new_err("give items (and fpr), or bits= and hashes=")),
    }
}

impl BloomFilter {
    fn view(&self) -> PyResult<bloom::Bloom<'_>> {
        Python::attach(|py| bloom::wrap(self.image.bytes()).raise(py))
    }
}

#[pymethods]
impl BloomFilter {
    #[new]
    #[pyo3(signature = (items = None, fpr = 0.01, *, bits = None, hashes = None, seed = 0))]
    fn new(
        py: Python<'_>,
        items: Option<u64>,
        fpr: f64,
        bits: Option<u64>,
        hashes: Option<u32>,
        seed: u64,
    ) -> PyResult<Self> {
        let params = plan(py, items, fpr, bits, hashes)?;
        let len = params.image_len().raise(py)?;
        let mut image = Image::zeroed(len as usize)?;
        bloom::init(image.bytes_mut()?, &params, seed).raise(py)?;
        Ok(BloomFilter::adopt(image))
    }

    /// Exact image size in bytes of the filter the constructor makes from
    /// the same arguments (``items`` at ``fpr``, or ``bits=`` and
    /// ``hashes=``), without building it; the constructor's errors.
    #[staticmethod]
    #[pyo3(signature = (items = None, fpr = 0.01, *, bits = None, hashes = None))]
    fn size_for(
        py: Python<'_>,
        items: Option<u64>,
        fpr: f64,
        bits: Option<u64>,
        hashes: Option<u32>,
    ) -> PyResult<u64> {
        plan(py, items, fpr, bits, hashes)?.image_len().raise(py)
    }

    /// Adds a key; returns True when it was new (some probed bit was unset).
    fn add(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mut f = bloom::wrap_mut_with(self.image.bytes_mut()?, &self.token).raise(py)?;
        with_key(key, |k| f.add(k))
    }

    /// True when the key may have been added; False when it certainly was not.
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let f = bloom::wrap_with(self.image.bytes(), &self.token).raise(py)?;
        with_key(key, |k| f.contains(k))
    }

    /// Same as ``key in filter``.
    fn contains(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.__contains__(py, key)
    }

    /// Adds a batch of keys (list/tuple of str, bytes or int; NumPy integer
    /// array; pyarrow Binary/String/LargeBinary/LargeString or integer
    /// array; ``None``/nulls skipped). Returns a NumPy bool array: True
    /// where the key was new (a repeat later in the batch is not new).
    fn add_many<'py>(&mut self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let hasher = bloom::wrap(self.image.bytes()).raise(py)?.key_hasher();
        boundary::update_batch::<bool>(
            py,
            &mut self.image,
            keys,
            ListMode::Hash(hasher),
            |img, batch, out| {
                let mut f = bloom::wrap_mut(img)?;
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

    /// Tests a batch of keys (shapes as ``add_many``); returns a NumPy bool
    /// array (False for nulls). Runs without the GIL: threads scale.
    fn contains_many<'py>(&self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let hasher = bloom::wrap(self.image.bytes()).raise(py)?.key_hasher();
        boundary::query_batch::<bool>(py, &self.image, keys, ListMode::Hash(hasher), |img, batch, out| {
            let f = bloom::wrap(img)?;
            let mut tmp = [false; CHUNK];
            batch.for_hashed_chunks(hasher, |pos, h| {
                let t = &mut tmp[..h.len()];
                f.contains_hashes(h, t)?;
                pos.scatter(out, t);
                Ok(())
            })
        })
    }

    /// In-place union (bitwise OR) with a filter of the same bits, hashes and seed.
    fn merge(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        boundary::merge_into(py, slf, other, |d, s| bloom::wrap_mut(d)?.union(&bloom::wrap(s)?))
    }

    /// Same as ``merge``: in-place union.
    fn union(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    /// In-place intersection (bitwise AND) with a compatible filter.
    fn intersect(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        boundary::merge_into(py, slf, other, |d, s| bloom::wrap_mut(d)?.intersect(&bloom::wrap(s)?))
    }

    fn __or__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<Self> {
        boundary::merged_copy(py, slf, other, |d, s| bloom::wrap_mut(d)?.union(&bloom::wrap(s)?))
    }

    fn __ior__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    fn __and__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<Self> {
        boundary::merged_copy(py, slf, other, |d, s| bloom::wrap_mut(d)?.intersect(&bloom::wrap(s)?))
    }

    fn __iand__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::intersect(slf, py, other)
    }

    /// Removes every key (keeps the parameters and seed).
    fn clear(&mut self, py: Python<'_>) -> PyResult<()> {
        boundary::mutate(py, &mut self.image, |img| {
            bloom::wrap_mut(img)?.clear();
            Ok(())
        })
    }

    /// Add calls that set at least one new bit (about the distinct keys added).
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.view()?.inserted() as usize)
    }

    /// Number of bits ``m``.
    #[getter]
    fn bits(&self) -> PyResult<u64> {
        Ok(self.view()?.params().bits)
    }

    /// Probes per key ``k``.
    #[getter]
    fn hashes(&self) -> PyResult<u32> {
        Ok(self.view()?.params().hashes)
    }

    /// Distinct keys the filter was planned for.
    #[getter]
    fn planned_items(&self) -> PyResult<u64> {
        Ok(self.view()?.params().planned_items)
    }

    /// False-positive rate planned at ``planned_items``.
    #[getter]
    fn planned_fpr(&self) -> PyResult<f64> {
        Ok(self.view()?.params().planned_fpr)
    }

    /// Add calls, duplicates included.
    #[getter]
    fn add_calls(&self) -> PyResult<u64> {
        Ok(self.view()?.add_calls())
    }

    /// Add calls that set at least one new bit (``len(filter)``).
    #[getter]
    fn inserted(&self) -> PyResult<u64> {
        Ok(self.view()?.inserted())
    }

    /// Distinct keys estimated from the set bits (inf when all are set).
    #[getter]
    fn estimated_items(&self) -> PyResult<f64> {
        Ok(self.view()?.estimated_items())
    }

    /// Current false-positive rate estimated from the set bits, (set/m)^k.
    #[getter]
    fn estimated_fpr(&self) -> PyResult<f64> {
        Ok(self.view()?.estimated_fpr())
    }

    /// ``CAPACITY_*`` flags (0 while the filter is within its plan).
    #[getter]
    fn capacity_flags(&self) -> PyResult<u32> {
        Ok(self.view()?.capacity().0)
    }

    /// True once the filter is past its plan (more keys than planned, or
    /// the estimated false-positive rate above twice the planned one): the
    /// seeds' "planned for 100k, got 1M" failure, visible in O(1).
    #[getter]
    fn over_capacity(&self) -> PyResult<bool> {
        Ok(!self.view()?.capacity().is_within_plan())
    }

    /// Every statistic in a dict (``bits``, ``hashes``, ``planned_items``,
    /// ``planned_fpr``, ``seed``, ``add_calls``, ``inserted``, ``set_bits``,
    /// ``fill``, ``estimated_items``, ``estimated_fpr``, ``capacity_flags``,
    /// ``over_capacity``, ``nbytes``).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.view()?.stats();
        let d = PyDict::new(py);
        d.set_item("bits", s.params.bits)?;
        d.set_item("hashes", s.params.hashes)?;
        d.set_item("planned_items", s.params.planned_items)?;
        d.set_item("planned_fpr", s.params.planned_fpr)?;
        d.set_item("seed", s.seed)?;
        d.set_item("add_calls", s.add_calls)?;
        d.set_item("inserted", s.inserted)?;
        d.set_item("set_bits", s.set_bits)?;
        d.set_item("fill", s.fill)?;
        d.set_item("estimated_items", s.estimated_items)?;
        d.set_item("estimated_fpr", s.estimated_fpr)?;
        d.set_item("capacity_flags", s.capacity.0)?;
        d.set_item("over_capacity", !s.capacity.is_within_plan())?;
        d.set_item("nbytes", self.image.image_len())?;
        Ok(d)
    }

    fn __repr__(&self) -> PyResult<String> {
        let s = self.view()?.stats();
        Ok(format!(
            "BloomFilter(bits={}, hashes={}, planned_items={}, planned_fpr={}, inserted={}, estimated_fpr={:.3e}, over_capacity={})",
            s.params.bits,
            s.params.hashes,
            s.params.planned_items,
            s.params.planned_fpr,
            s.inserted,
            s.estimated_fpr,
            py_bool(!s.capacity.is_within_plan())
        ))
    }
}
