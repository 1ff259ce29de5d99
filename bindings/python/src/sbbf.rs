//! `sketches.SplitBlockBloomFilter`: split-block Bloom filter (`sketches_core::sbbf`).

use crate::boundary::{self, py_bool, with_key_for, Family, Hash64, Image, ListMode, PyBuf, Raise, CHUNK};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyType};
use sketches_core::image::Token;
use sketches_core::parquet::ParquetSizing;
use sketches_core::sbbf::{self, SbbfMode, SbbfParams};
use sketches_core::Error;

/// A split-block Bloom filter: 256-bit blocks, one cache line per key, the
/// fastest filter of the library (about 1.3x the memory of a classic Bloom
/// filter for the same rate).
///
/// ``SplitBlockBloomFilter(items, fpr=0.01)`` plans the fewest blocks whose
/// rate at ``items`` is at most ``fpr``; ``blocks=`` sizes it explicitly.
/// ``parquet=True`` builds a filter byte-compatible with Parquet's bloom
/// filters (XXH64 seed 0 of a fixed-width value's PLAIN encoding or a byte
/// array's raw bytes without the length prefix, Parquet's sizing and block
/// selection); ``bitset()`` is then the bytes a Parquet writer stores.
/// ``sizing=`` picks the writer whose rounding to follow ("parquet-rs",
/// the default, "duckdb" or "arrow-cpp"; ``for_parquet`` is the short form),
/// ``fold_to_target_fpp`` shrinks the filter as the parquet crate and
/// pyarrow do before writing, and ``from_parquet_bitset`` loads a bitset read
/// out of a Parquet file. Parquet-mode values hash with the
/// ``parquet_hash_*`` functions (``add_hash`` / ``add_hashes``).
/// Keys hash by the library's rule (str UTF-8, bytes as is, int 8
/// little-endian bytes). In Parquet mode a key is the Parquet value it is:
/// str and bytes-like keys are BYTE_ARRAY values and NumPy int64/uint64
/// scalars and arrays INT64 values, while a Python int (INT32 or INT64?),
/// a narrower NumPy integer or a float raises TypeError, single or in a
/// list: hash those with ``parquet_hash_int32`` / ``_int64`` / ``_float`` /
/// ``_double`` (or ``parquet_hash_many``) and use ``contains_hash`` /
/// ``contains_hashes``. ``a | b`` is the union, ``a & b`` the intersection.
#[pyclass(module = "sketches", name = "SplitBlockBloomFilter")]
pub struct SplitBlockBloomFilter {
    image: Image,
    /// The image's token (see `sketches_core::image::Token`), taken when the
    /// object got its image: single-key calls skip the header validation
    /// while it matches (a stale one only costs the full validation).
    token: Token,
}

impl Family for SplitBlockBloomFilter {
    fn check(buf: &[u8]) -> Result<(), Error> {
        sbbf::wrap(buf).map(|_| ())
    }
    fn verify(bytes: &[u8]) -> Result<(), Error> {
        sbbf::verify(bytes)
    }
    fn import(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        sbbf::import(src, dst)
    }
    fn export(src: &[u8], dst: &mut [u8]) -> Result<usize, Error> {
        sbbf::export(src, dst)
    }
    fn live_len(bytes: &[u8]) -> Result<usize, Error> {
        sbbf::import_len(bytes)
    }
    fn image(&self) -> &Image {
        &self.image
    }
    fn image_mut(&mut self) -> &mut Image {
        &mut self.image
    }
    fn from_image(image: Image) -> Self {
        SplitBlockBloomFilter::adopt(image)
    }
}

crate::shared_methods!(SplitBlockBloomFilter);

impl SplitBlockBloomFilter {
    /// Wraps a live image and takes its token (zero when the image does not
    /// validate: calls then validate in full and report the error).
    fn adopt(image: Image) -> Self {
        let token = sbbf::token(image.bytes()).unwrap_or_default();
        SplitBlockBloomFilter { image, token }
    }
}

/// A Parquet writer's sizing rule by name.
fn parse_sizing(name: &str) -> PyResult<ParquetSizing> {
    match name {
        "parquet-rs" => Ok(ParquetSizing::ParquetRs),
        "duckdb" => Ok(ParquetSizing::DuckDb),
        "arrow-cpp" | "pyarrow" => Ok(ParquetSizing::ArrowCpp),
        other => Err(PyValueError::new_err(format!(
            "unknown Parquet sizing {other:?}: \"parquet-rs\", \"duckdb\" or \"arrow-cpp\" (\"pyarrow\")"
        ))),
    }
}

/// Plans split-block parameters.
fn plan(
    py: Python<'_>,
    items: Option<u64>,
    fpr: f64,
    blocks: Option<u64>,
    parquet: bool,
    sizing: Option<&str>,
) -> PyResult<SbbfParams> {
    let sizing = match (sizing, parquet, blocks) {
        (None, _, _) => ParquetSizing::ParquetRs,
        (Some(_), false, _) => {
            return Err(PyValueError::new_err("sizing= is for Parquet filters (parquet=True)"))
        }
        (Some(_), true, Some(_)) => {
            return Err(PyValueError::new_err("sizing= plans from items and fpr; blocks= gives the size"))
        }
        (Some(name), true, None) => parse_sizing(name)?,
    };
    match (items, blocks, parquet) {
        (Some(n), None, false) => SbbfParams::for_items(n, fpr).raise(py),
        (Some(n), None, true) => SbbfParams::for_parquet_sizing(n, fpr, sizing).raise(py),
        (None, Some(b), false) => SbbfParams::with_blocks(b).raise(py),
        (None, Some(b), true) => SbbfParams::parquet_with_blocks(b).raise(py),
        _ => Err(PyValueError::new_err("give items (and fpr), or blocks=")),
    }
}

/// Parquet mode: refuses batch keys that would hash as INT64 although
/// Parquet stores them as INT32 (`sketches._keys.parquet_keys_check`).
pub(crate) fn parquet_keys_check(py: Python<'_>, parquet: bool, keys: &Bound<'_, PyAny>) -> PyResult<()> {
    if !parquet {
        return Ok(());
    }
    static CHECK: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    CHECK.import(py, "sketches._keys", "parquet_keys_check")?.call1((keys,))?;
    Ok(())
}

/// Reads precomputed hashes as a contiguous uint64 array (through
/// `sketches._keys.hash_array`); the array keeps the export alive.
pub(crate) fn hash_array<'py>(
    py: Python<'py>,
    hashes: &Bound<'py, PyAny>,
) -> PyResult<(Bound<'py, PyAny>, PyBuf)> {
    static CONVERT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let convert = CONVERT.import(py, "sketches._keys", "hash_array")?;
    let array = convert.call1((hashes,))?;
    let buf = PyBuf::get_u64s(&array)?;
    Ok((array, buf))
}

impl SplitBlockBloomFilter {
    fn view(&self) -> PyResult<sbbf::Sbbf<'_>> {
        Python::attach(|py| sbbf::wrap(self.image.bytes()).raise(py))
    }

    /// Runs a fold (`op` returns the folds made) on the image, detached;
    /// then takes the new token and, for an owned image, moves it into an
    /// allocation of its new size.
    fn fold_with(
        &mut self,
        py: Python<'_>,
        op: impl FnOnce(&mut [u8]) -> Result<u32, Error> + Send,
    ) -> PyResult<u32> {
        let raw = self.image.writable_raw()?;
        let aliases = self.image.hold(py, true)?;
        // SAFETY: the image is exclusively borrowed through `&mut self`.
        let folds = py.detach(|| op(unsafe { raw.bytes_mut() })).raise(py)?;
        drop(aliases);
        if folds > 0 {
            self.image.shrink(py)?;
            self.token = sbbf::token(self.image.bytes()).unwrap_or_default();
        }
        Ok(folds)
    }
}

#[pymethods]
impl SplitBlockBloomFilter {
    #[new]
    #[pyo3(signature = (items = None, fpr = 0.01, *, blocks = None, parquet = false, seed = 0, sizing = None))]
    fn new(
        py: Python<'_>,
        items: Option<u64>,
        fpr: f64,
        blocks: Option<u64>,
        parquet: bool,
        seed: u64,
        sizing: Option<&str>,
    ) -> PyResult<Self> {
        if parquet && seed != 0 {
            return Err(PyValueError::new_err("Parquet filters use XXH64 with seed 0"));
        }
        let params = plan(py, items, fpr, blocks, parquet, sizing)?;
        let len = params.image_len().raise(py)?;
        let mut image = Image::zeroed(len as usize)?;
        sbbf::init(image.bytes_mut()?, &params, seed).raise(py)?;
        Ok(SplitBlockBloomFilter::adopt(image))
    }

    /// Exact image size in bytes of the filter the constructor makes from
    /// the same arguments (``items`` at ``fpr``, or ``blocks=``; ``parquet``
    /// and ``sizing`` as for the constructor), without building it (the
    /// size before any fold); the constructor's errors.
    #[staticmethod]
    #[pyo3(signature = (items = None, fpr = 0.01, parquet = false, *, blocks = None, sizing = None))]
    fn size_for(
        py: Python<'_>,
        items: Option<u64>,
        fpr: f64,
        parquet: bool,
        blocks: Option<u64>,
        sizing: Option<&str>,
    ) -> PyResult<u64> {
        plan(py, items, fpr, blocks, parquet, sizing)?.image_len().raise(py)
    }

    /// A Parquet-mode filter sized as a Parquet writer sizes a column's
    /// bitset for ``ndv`` distinct values at rate ``fpp``: ``sizing`` is
    /// "parquet-rs" (the parquet crate, arrow-rs), "duckdb" (DuckDB, which
    /// passes the column chunk's exact distinct count and does not fold) or
    /// "arrow-cpp" (Arrow C++, what pyarrow's bloom filter options use; alias
    /// "pyarrow"). Same as ``SplitBlockBloomFilter(ndv, fpp, parquet=True,
    /// sizing=sizing)``. To reproduce the bytes of a writer that folds (the
    /// parquet crate 58+, pyarrow 26), add the values then call
    /// ``fold_to_target_fpp(fpp)``. Unknown names raise ValueError; ``ndv``
    /// 0 or ``fpp`` outside (0, 1) raise SketchError (INVALID_PARAMETER).
    #[classmethod]
    #[pyo3(signature = (ndv, fpp = 0.01, sizing = "parquet-rs"))]
    fn for_parquet(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        ndv: u64,
        fpp: f64,
        sizing: &str,
    ) -> PyResult<Self> {
        Self::new(py, Some(ndv), fpp, None, true, 0, Some(sizing))
    }

    /// A new Parquet-mode filter holding a copy of ``bitset``: the bytes a
    /// Parquet file stores after a column chunk's ``BloomFilterHeader``
    /// (any bytes-like object). It answers exactly as the file's filter,
    /// and can be added to, merged with Parquet-mode filters of the same
    /// size, folded and exported. The plan is the most items at which a
    /// filter of this size still meets ``fpr`` (the writer's fpp), or, with
    /// ``ndv=``, ``ndv`` at ``fpr`` (the writer's settings). Its add
    /// counters start at 0 (``len()`` counts later adds only), and its
    /// capacity signal and statistics follow the fill of the bits. A bitset
    /// that is empty or not a whole number of 32-byte blocks raises
    /// SketchError (INVALID_ARGUMENT); a bad ``fpr`` or ``ndv`` 0
    /// SketchError (INVALID_PARAMETER); nothing is allocated then.
    #[classmethod]
    #[pyo3(signature = (bitset, fpr, *, ndv = None))]
    fn from_parquet_bitset(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        bitset: &Bound<'_, PyAny>,
        fpr: f64,
        ndv: Option<u64>,
    ) -> PyResult<Self> {
        let src = PyBuf::get(bitset)?;
        let raw = src.raw();
        let params = match ndv {
            None => SbbfParams::for_parquet_bitset(raw.len(), fpr),
            Some(n) => SbbfParams::for_parquet_bitset_with_plan(raw.len(), n, fpr),
        }
        .raise(py)?;
        let len = params.image_len().raise(py)?;
        let image = Image::zeroed(len as usize)?;
        let dst = image.raw();
        py.detach(move || {
            // SAFETY: `src` holds the export for the call; `dst` is the fresh
            // image only this call knows (distinct memory).
            sbbf::load_parquet_bitset(unsafe { dst.bytes_mut() }, unsafe { raw.bytes() }, &params).map(|_| ())
        })
        .raise(py)?;
        drop(src);
        Ok(SplitBlockBloomFilter::adopt(image))
    }

    /// Folds the filter ``folds`` times in place, as Parquet writers shrink
    /// an under-filled filter: each fold halves the block count, OR-ing
    /// pairs of adjacent blocks, so every added key stays present and the
    /// result equals the filter built at the smaller size (Parquet mode; a
    /// native filter folds the same way). Afterwards ``blocks``, ``nbytes``,
    /// ``bitset()``, ``bytes()`` and pickling reflect the smaller image;
    /// plan and counters are kept. A block count not divisible by
    /// ``2**folds`` raises SketchError (INVALID_ARGUMENT) and changes
    /// nothing. A filter made by ``wrap(buffer)`` folds inside the buffer:
    /// the image then occupies the first ``nbytes`` bytes and the rest of
    /// the buffer is no longer part of it (left as it was, past the 64-byte
    /// padding); other objects wrapping the same buffer see the folded
    /// image. Like every update, it raises RuntimeError while another
    /// thread's update of this object runs, and TypeError on a read-only
    /// buffer.
    fn fold(&mut self, py: Python<'_>, folds: u32) -> PyResult<()> {
        self.fold_with(py, move |img| sbbf::fold(img, folds).map(|_| folds))?;
        Ok(())
    }

    /// Folds as far as the parquet crate (58+) and Arrow C++ (pyarrow 26)
    /// fold a bloom filter before writing it with target rate ``fpp``: the
    /// most halvings whose estimated rate ``(1 - (1 - fill)**(2**k))**8``
    /// stays within ``fpp`` (an empty filter folds down to one block).
    /// Returns the number of folds (0: unchanged). In place, as ``fold``.
    /// An ``fpp`` outside (0, 1), NaN included, raises SketchError
    /// (INVALID_PARAMETER), nothing changed (1 meant as 1% would fold any
    /// filter to one all-ones block).
    fn fold_to_target_fpp(&mut self, py: Python<'_>, fpp: f64) -> PyResult<u32> {
        self.fold_with(py, move |img| sbbf::fold_to_target_fpp(img, fpp))
    }

    /// Adds a key; returns True when it was new (some bit of its block was
    /// unset). In Parquet mode a Python int, a NumPy integer narrower than
    /// 64 bits or a float raises TypeError (see the class doc).
    fn add(&mut self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let mut f = sbbf::wrap_mut_with(self.image.bytes_mut()?, &self.token).raise(py)?;
        with_key_for(f.as_ref().key_hasher(), key, |k| f.add(k))
    }

    /// True when the key may have been added; False when it certainly was
    /// not. In Parquet mode a Python int, a NumPy integer narrower than 64
    /// bits or a float raises TypeError (``42 in f`` would hash 42 as an
    /// INT64 value and miss it in an INT32 column's filter):
    /// ``f.contains_hash(sketches.parquet_hash_int32(42))``.
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let f = sbbf::wrap_with(self.image.bytes(), &self.token).raise(py)?;
        with_key_for(f.key_hasher(), key, |k| f.contains(k))
    }

    /// Same as ``key in filter``.
    fn contains(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.__contains__(py, key)
    }

    /// Adds a precomputed 64-bit hash (0 .. 2**64-1): in Parquet mode one of
    /// the ``parquet_hash_*`` functions' results, in native mode
    /// ``sketches.hash(key, seed)``. Returns True when it was new. A value
    /// outside 0 .. 2**64-1 raises ValueError naming it (as ``add_hashes``
    /// does), a bool or a float TypeError.
    fn add_hash(&mut self, py: Python<'_>, hash: Hash64) -> PyResult<bool> {
        let mut f = sbbf::wrap_mut_with(self.image.bytes_mut()?, &self.token).raise(py)?;
        Ok(f.add_hash(hash.0))
    }

    /// True when the precomputed hash may have been added (see ``add_hash``).
    fn contains_hash(&self, py: Python<'_>, hash: Hash64) -> PyResult<bool> {
        let f = sbbf::wrap_with(self.image.bytes(), &self.token).raise(py)?;
        Ok(f.contains_hash(hash.0))
    }

    /// Adds a batch of precomputed hashes (a NumPy uint64 array such as
    /// ``parquet_hash_many`` returns, or any sequence of ints in 0 ..
    /// 2**64-1); returns a NumPy bool array, True where the hash was new.
    /// The GIL is released.
    fn add_hashes<'py>(
        &mut self,
        py: Python<'py>,
        hashes: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (_keep, input) = hash_array(py, hashes)?;
        let src = input.raw();
        let dst = self.image.writable_raw()?;
        let _aliases = self.image.hold(py, true)?;
        let (array, out) = boundary::numpy_zeros(py, src.len() / 8, "bool")?;
        let out_raw = out.raw();
        py.detach(move || {
            // SAFETY: the image is exclusively borrowed (`&mut self`); the
            // input and output exports are held for the call.
            let hashes = unsafe { boundary::as_u64s(src) };
            let mut f = sbbf::wrap_mut(unsafe { dst.bytes_mut() })?;
            f.add_hashes(hashes, Some(unsafe { boundary::as_bools_mut(out_raw) }))
        })
        .raise(py)?;
        drop(out);
        Ok(array)
    }

    /// Tests a batch of precomputed hashes (as ``add_hashes``); returns a
    /// NumPy bool array. The GIL is released.
    fn contains_hashes<'py>(
        &self,
        py: Python<'py>,
        hashes: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (_keep, input) = hash_array(py, hashes)?;
        let src = input.raw();
        let img = self.image.raw();
        let _aliases = self.image.hold(py, false)?;
        let (array, out) = boundary::numpy_zeros(py, src.len() / 8, "bool")?;
        let out_raw = out.raw();
        py.detach(move || {
            // SAFETY: the image is borrowed by this method; the input and
            // output exports are held for the call.
            let hashes = unsafe { boundary::as_u64s(src) };
            sbbf::wrap(unsafe { img.bytes() })?
                .contains_hashes(hashes, unsafe { boundary::as_bools_mut(out_raw) })
        })
        .raise(py)?;
        drop(out);
        Ok(array)
    }

    /// Adds a batch of keys (list/tuple of str, bytes or int; NumPy integer
    /// array; pyarrow Binary/String/LargeBinary/LargeString or integer
    /// array; ``None``/nulls skipped). Returns a NumPy bool array: True
    /// where the key was new (a repeat later in the batch is not new).
    /// A Parquet-mode filter hashes str/bytes as BYTE_ARRAY and 64-bit
    /// NumPy/pyarrow integers as INT64: a NumPy or pyarrow integer column
    /// narrower than 64 bits (stored as INT32), or a Python int or float in
    /// a list, raises TypeError before anything is added; hash those with
    /// ``parquet_hash_many`` and use ``add_hashes`` instead.
    fn add_many<'py>(&mut self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let view = sbbf::wrap(self.image.bytes()).raise(py)?;
        parquet_keys_check(py, view.params().mode == SbbfMode::Parquet, keys)?;
        let hasher = view.key_hasher();
        boundary::update_batch::<bool>(
            py,
            &mut self.image,
            keys,
            ListMode::Hash(hasher),
            |img, batch, out| {
                let mut f = sbbf::wrap_mut(img)?;
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
    /// array (False for nulls). Runs without the GIL: threads scale. In
    /// Parquet mode, narrow integer columns and Python ints raise TypeError
    /// (see ``add_many``).
    fn contains_many<'py>(&self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let view = sbbf::wrap(self.image.bytes()).raise(py)?;
        parquet_keys_check(py, view.params().mode == SbbfMode::Parquet, keys)?;
        let hasher = view.key_hasher();
        boundary::query_batch::<bool>(py, &self.image, keys, ListMode::Hash(hasher), |img, batch, out| {
            let f = sbbf::wrap(img)?;
            let mut tmp = [false; CHUNK];
            batch.for_hashed_chunks(hasher, |pos, h| {
                let t = &mut tmp[..h.len()];
                f.contains_hashes(h, t)?;
                pos.scatter(out, t);
                Ok(())
            })
        })
    }

    /// In-place union (bitwise OR) with a filter of the same blocks, mode and seed.
    fn merge(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        boundary::merge_into(py, slf, other, |d, s| sbbf::wrap_mut(d)?.union(&sbbf::wrap(s)?))
    }

    /// Same as ``merge``: in-place union.
    fn union(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    /// In-place intersection (bitwise AND) with a compatible filter.
    fn intersect(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        boundary::merge_into(py, slf, other, |d, s| sbbf::wrap_mut(d)?.intersect(&sbbf::wrap(s)?))
    }

    fn __or__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<Self> {
        boundary::merged_copy(py, slf, other, |d, s| sbbf::wrap_mut(d)?.union(&sbbf::wrap(s)?))
    }

    fn __ior__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::merge(slf, py, other)
    }

    fn __and__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<Self> {
        boundary::merged_copy(py, slf, other, |d, s| sbbf::wrap_mut(d)?.intersect(&sbbf::wrap(s)?))
    }

    fn __iand__(slf: &Bound<'_, Self>, py: Python<'_>, other: &Bound<'_, Self>) -> PyResult<()> {
        Self::intersect(slf, py, other)
    }

    /// Removes every key (keeps the parameters and seed).
    fn clear(&mut self, py: Python<'_>) -> PyResult<()> {
        boundary::mutate(py, &mut self.image, |img| {
            sbbf::wrap_mut(img)?.clear();
            Ok(())
        })
    }

    /// Add calls that set at least one new bit (about the distinct keys added).
    fn __len__(&self) -> PyResult<usize> {
        Ok(self.view()?.inserted() as usize)
    }

    /// Number of 256-bit blocks.
    #[getter]
    fn blocks(&self) -> PyResult<u64> {
        Ok(self.view()?.params().blocks)
    }

    /// Number of bits (256 per block).
    #[getter]
    fn bits(&self) -> PyResult<u64> {
        Ok(self.view()?.params().bits())
    }

    /// True for a Parquet-compatible filter (XXH64 seed 0).
    #[getter]
    fn parquet(&self) -> PyResult<bool> {
        Ok(self.view()?.params().mode == SbbfMode::Parquet)
    }

    /// The filter's bitset (the blocks, 32 bytes each): in Parquet mode the
    /// exact bytes a Parquet writer stores after its bloom filter header.
    fn bitset<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        Ok(pyo3::types::PyBytes::new(py, self.view()?.body()))
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

    /// Current false-positive rate estimated from the inserted count.
    #[getter]
    fn estimated_fpr(&self) -> PyResult<f64> {
        Ok(self.view()?.stats().estimated_fpr)
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

    /// Every statistic in a dict (``blocks``, ``parquet``, ``planned_items``,
    /// ``planned_fpr``, ``seed``, ``add_calls``, ``inserted``, ``set_bits``,
    /// ``fill``, ``estimated_items``, ``estimated_fpr``, ``capacity_flags``,
    /// ``over_capacity``, ``nbytes``).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = self.view()?.stats();
        let d = PyDict::new(py);
        d.set_item("blocks", s.params.blocks)?;
        d.set_item("parquet", s.params.mode == SbbfMode::Parquet)?;
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
            "SplitBlockBloomFilter(blocks={}, parquet={}, planned_items={}, planned_fpr={}, inserted={}, estimated_fpr={:.3e}, over_capacity={})",
            s.params.blocks,
            py_bool(s.params.mode == SbbfMode::Parquet),
            s.params.planned_items,
            s.params.planned_fpr,
            s.inserted,
            s.estimated_fpr,
            py_bool(!s.capacity.is_within_plan())
        ))
    }
}
