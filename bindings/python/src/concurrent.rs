//! `sketches.ConcurrentSketch`: a copy of a Bloom, split-block Bloom,
//! HyperLogLog or UltraLogLog image that many Python threads add to at once,
//! through the core's shared views (`sketches_core::shared`).
//!
//! Soundness without `unsafe`: the copy lives in a `Box<[AtomicU64]>` that
//! only this object owns, so every access to it is an atomic operation by
//! construction (the shared views' `fetch_or` / compare-and-swap / relaxed
//! loads, and this module's relaxed loads in `snapshot`). Nothing else can
//! see the memory: it is never exported as a buffer, so it cannot alias a
//! Python buffer or the source sketch. The class is `frozen` (no pyo3 borrow
//! flag: every method takes `&self`), and `Sync` because its fields are.
//!
//! A read/write lock (`gate`) only orders adds against `snapshot`: adds
//! hold it shared (any number at once), `snapshot` holds it exclusively
//! while it copies, so a snapshot never catches an add half done (header
//! counters updated in two steps, a HyperLogLog histogram entry moved, its
//! straddle lock word held), which would make the copy an invalid image.
//! Queries (`contains`, `estimate`) take no lock. The lock is only taken
//! outside Python code (keys are read and hashed before it, the batch work
//! runs detached), so it cannot deadlock with the GIL or with a key whose
//! `__index__` calls back into this object.

use crate::bloom::BloomFilter;
use crate::boundary::{self, header_seed, with_key, Batch, Family, Image, ListMode, Raise, CHUNK};
use crate::hll::HyperLogLog;
use crate::sbbf::SplitBlockBloomFilter;
use crate::ull::UltraLogLog;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyType;
use pyo3::PyClass;
use sketches_core::hash::KeyHasher;
use sketches_core::sbbf::SbbfMode;
use sketches_core::shared::AtomicWords;
use sketches_core::{bloom, hll, sbbf, ull, Error};
use std::sync::atomic::AtomicU64;
use std::sync::{PoisonError, RwLock, RwLockReadGuard};

/// The family of the copied image.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Bloom,
    Sbbf,
    Hll,
    Ull,
}

impl Kind {
    /// The Python class of the source (and of `snapshot()`).
    fn name(self) -> &'static str {
        match self {
            Kind::Bloom => "BloomFilter",
            Kind::Sbbf => "SplitBlockBloomFilter",
            Kind::Hll => "HyperLogLog",
            Kind::Ull => "UltraLogLog",
        }
    }
}

/// The core's shared view of the words, per family.
#[derive(Copy, Clone)]
enum View<'a> {
    Bloom(bloom::SharedBloom<'a>),
    Sbbf(sbbf::SharedSbbf<'a>),
    Hll(hll::SharedHll<'a>),
    Ull(ull::SharedUll<'a>),
}

impl View<'_> {
    fn key_hasher(&self) -> KeyHasher {
        match self {
            View::Bloom(f) => f.key_hasher(),
            View::Sbbf(f) => f.key_hasher(),
            View::Hll(s) => s.key_hasher(),
            View::Ull(s) => s.key_hasher(),
        }
    }
}

/// The words of a live image: word `i` holds bytes `8i .. 8i + 8`,
/// little-endian (a short last word is padded with zeros).
fn words_of(bytes: &[u8]) -> Box<[AtomicU64]> {
    bytes
        .chunks(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            for (d, s) in word.iter_mut().zip(chunk) {
                *d = *s;
            }
            AtomicU64::new(u64::from_le_bytes(word))
        })
        .collect()
}

/// A copy of a ``BloomFilter``, ``SplitBlockBloomFilter``, ``HyperLogLog``
/// or ``UltraLogLog`` that any number of threads may add to and query at once.
///
/// ``ConcurrentSketch(sketch)`` (or ``sketch.concurrent()``) copies the
/// sketch's live image into memory this object owns, held as 64-bit atomic
/// words. The source sketch is never changed by this object and stays
/// usable on its own; ``snapshot()`` returns the result as a new ordinary
/// sketch of the source's class. A HyperLogLog still in its exact small
/// mode is converted to dense registers in the copy, as its own conversion
/// would (the small mode does not support concurrent adds). Any other
/// class raises ``TypeError``.
///
/// Thread safety: every method may be called by any number of threads at
/// once on one object, with no lock of yours. Adds set bits with atomic OR
/// and raise registers with compare-and-swap (the core's shared views);
/// queries read with atomic loads. ``add_many`` and ``contains_many``
/// release the GIL while they work, so threads run in parallel (with the
/// GIL, single-key calls take turns).
///
/// Once the adding threads are joined, the snapshot's bits (filters) or
/// registers (HyperLogLog, UltraLogLog) equal, bit for bit, those of the
/// same adds made one at a time in any order. What differs from such a
/// sequential run: a filter's ``inserted`` count (adds that set a new bit)
/// depends on the order (``add_calls``, and a BloomFilter's set-bit count,
/// are exact); which of two threads adding the same key at once is told
/// the key was new depends on the timing; HyperLogLog and UltraLogLog lose
/// their martingale estimate at the first register a concurrent add
/// changes (as after a merge), so the snapshot's ``estimate()`` is its
/// ``register_estimate()`` (a HyperLogLog's register histogram and sum are
/// exact).
///
/// While adds run, ``contains`` is True for every key whose add returned
/// before the query began; ``estimate()`` reads the registers with relaxed
/// loads and is approximate (a few adds behind or ahead) until they are
/// done, then exact. ``snapshot()`` waits for the add calls in flight and
/// holds new ones off while it copies the words, so a snapshot is always a
/// valid sketch holding exactly the adds that returned before it.
///
/// Pickling stores ``snapshot()``: unpickling gives a new
/// ``ConcurrentSketch`` of that image.
#[pyclass(module = "sketches", name = "ConcurrentSketch", frozen)]
pub struct ConcurrentSketch {
    /// The live image, only ever accessed atomically.
    words: Box<[AtomicU64]>,
    /// Bytes of the image (at most `8 * words.len()`).
    image_len: usize,
    kind: Kind,
    seed: u64,
    /// Shared by adds, exclusive for `snapshot` (see the module notes).
    gate: RwLock<()>,
}

impl ConcurrentSketch {
    /// The copy of a Python sketch of one of the four classes.
    pub(crate) fn from_source(py: Python<'_>, sketch: &Bound<'_, PyAny>) -> PyResult<Self> {
        if let Ok(s) = sketch.cast::<BloomFilter>() {
            return Self::copy_of(py, s, Kind::Bloom);
        }
        if let Ok(s) = sketch.cast::<SplitBlockBloomFilter>() {
            return Self::copy_of(py, s, Kind::Sbbf);
        }
        if let Ok(s) = sketch.cast::<HyperLogLog>() {
            return Self::copy_of(py, s, Kind::Hll);
        }
        if let Ok(s) = sketch.cast::<UltraLogLog>() {
            return Self::copy_of(py, s, Kind::Ull);
        }
        let name = sketch.get_type().name().map(|n| n.to_string()).unwrap_or_default();
        Err(PyTypeError::new_err(format!(
            "ConcurrentSketch takes a BloomFilter, SplitBlockBloomFilter, HyperLogLog or UltraLogLog, not {name}"
        )))
    }

    /// Validates the source's image and copies it into atomic words (a
    /// HyperLogLog densified first, on an ordinary copy).
    fn copy_of<F: Family + PyClass>(py: Python<'_>, sketch: &Bound<'_, F>, kind: Kind) -> PyResult<Self> {
        let source = sketch.try_borrow()?;
        let image = source.image();
        F::check(image.bytes()).raise(py)?;
        let seed = header_seed(image);
        let (image_len, words) = if kind == Kind::Hll {
            let mut copy = image.duplicate(py)?;
            drop(source);
            hll::wrap_mut(copy.bytes_mut()?).raise(py)?.densify_now();
            let len = copy.image_len();
            let bytes = copy.bytes().get(..len).ok_or(Error::BufferTooSmall).raise(py)?;
            (len, py.detach(|| words_of(bytes)))
        } else {
            let len = image.image_len();
            let bytes = image.bytes().get(..len).ok_or(Error::BufferTooSmall).raise(py)?;
            (len, py.detach(|| words_of(bytes)))
        };
        let this = ConcurrentSketch { words, image_len, kind, seed, gate: RwLock::new(()) };
        this.view().raise(py)?;
        Ok(this)
    }

    /// The family's shared view (validates the immutable header, which
    /// nothing changes after construction).
    fn view(&self) -> Result<View<'_>, Error> {
        let words = AtomicWords::new(&self.words);
        Ok(match self.kind {
            Kind::Bloom => View::Bloom(bloom::wrap_shared(words)?),
            Kind::Sbbf => View::Sbbf(sbbf::wrap_shared(words)?),
            Kind::Hll => View::Hll(hll::wrap_shared(words)?),
            Kind::Ull => View::Ull(ull::wrap_shared(words)?),
        })
    }

    /// Held by every add while it changes the words.
    fn adding(&self) -> RwLockReadGuard<'_, ()> {
        self.gate.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn not_a_filter(&self, method: &str) -> PyErr {
        PyTypeError::new_err(format!(
            "{method}() is for filters (BloomFilter, SplitBlockBloomFilter); this ConcurrentSketch holds a {} \
             (use estimate())",
            self.kind.name()
        ))
    }

    /// An ordinary sketch of the source's class around a snapshot image.
    fn adopt_snapshot(&self, py: Python<'_>, image: Image) -> PyResult<Py<PyAny>> {
        fn make<F: Family>(py: Python<'_>, image: Image) -> PyResult<F> {
            F::check(image.bytes()).raise(py)?;
            Ok(F::from_image(image))
        }
        Ok(match self.kind {
            Kind::Bloom => Py::new(py, make::<BloomFilter>(py, image)?)?.into_any(),
            Kind::Sbbf => Py::new(py, make::<SplitBlockBloomFilter>(py, image)?)?.into_any(),
            Kind::Hll => Py::new(py, make::<HyperLogLog>(py, image)?)?.into_any(),
            Kind::Ull => Py::new(py, make::<UltraLogLog>(py, image)?)?.into_any(),
        })
    }
}

#[pymethods]
impl ConcurrentSketch {
    /// Copies ``sketch`` (a BloomFilter, SplitBlockBloomFilter, HyperLogLog
    /// or UltraLogLog; else ``TypeError``). The source is not changed.
    #[new]
    fn new(py: Python<'_>, sketch: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::from_source(py, sketch)
    }

    /// Adds a key; returns what the family's ``add`` returns (filters: True
    /// when some bit of the key was new; HyperLogLog, UltraLogLog: True
    /// when a register changed), as seen by this call at the moment it ran.
    /// Thread-safe: any number of threads at once.
    fn add(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let view = self.view().raise(py)?;
        let hasher = view.key_hasher();
        // Hash first: reading the key may run Python code; the lock is not held meanwhile.
        let h = with_key(key, |k| hasher.hash(k))?;
        let _adding = self.adding();
        match view {
            View::Bloom(f) => Ok(f.add_hash(h)),
            View::Sbbf(f) => Ok(f.add_hash(h)),
            View::Hll(s) => s.add_hash(h).raise(py),
            View::Ull(s) => Ok(s.add_hash(h)),
        }
    }

    /// Adds a batch of keys (list/tuple/iterable of str, bytes or int; NumPy
    /// integer array; pyarrow Binary/String/LargeBinary/LargeString or
    /// integer Array/ChunkedArray; ``None``/nulls skipped), without the GIL.
    /// Returns what the family's ``add_many`` returns: for filters a NumPy
    /// bool array, True where this call found the key new (a repeat later in
    /// the batch is not new); None for HyperLogLog and UltraLogLog.
    /// Thread-safe: any number of threads at once.
    fn add_many<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let view = self.view().raise(py)?;
        let hasher = view.key_hasher();
        let mode = ListMode::Hash(hasher);
        match view {
            View::Bloom(f) => boundary::batch_with_output::<bool>(py, keys, mode, |batch, out| {
                let _adding = self.adding();
                let mut tmp = [false; CHUNK];
                batch.for_hashed_chunks(hasher, |pos, h| {
                    let t = &mut tmp[..h.len()];
                    f.add_hashes(h, Some(t))?;
                    pos.scatter(out, t);
                    Ok(())
                })
            })
            .map(Some),
            View::Sbbf(f) => boundary::batch_with_output::<bool>(py, keys, mode, |batch, out| {
                let _adding = self.adding();
                let mut tmp = [false; CHUNK];
                batch.for_hashed_chunks(hasher, |pos, h| {
                    let t = &mut tmp[..h.len()];
                    f.add_hashes(h, Some(t))?;
                    pos.scatter(out, t);
                    Ok(())
                })
            })
            .map(Some),
            View::Hll(s) => {
                let batch = Batch::extract(keys, mode)?;
                py.detach(|| {
                    let _adding = self.adding();
                    batch.for_hashed_chunks(hasher, |_, h| s.add_hashes(h))
                })
                .raise(py)?;
                Ok(None)
            }
            View::Ull(s) => {
                let batch = Batch::extract(keys, mode)?;
                py.detach(|| {
                    let _adding = self.adding();
                    batch.for_hashed_chunks(hasher, |_, h| {
                        s.add_hashes(h);
                        Ok(())
                    })
                })
                .raise(py)?;
                Ok(None)
            }
        }
    }

    /// Filters only: True when the key may have been added, False when it
    /// certainly was not (atomic loads; True for every key whose add
    /// returned before this call began). ``TypeError`` for HyperLogLog and
    /// UltraLogLog. Thread-safe: any number of threads at once, during adds.
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        match self.view().raise(py)? {
            View::Bloom(f) => with_key(key, |k| f.contains(k)),
            View::Sbbf(f) => with_key(key, |k| f.contains(k)),
            View::Hll(_) | View::Ull(_) => Err(self.not_a_filter("contains")),
        }
    }

    /// Same as ``key in sketch`` (filters only).
    fn contains(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        self.__contains__(py, key)
    }

    /// Filters only: tests a batch of keys (shapes as ``add_many``) without
    /// the GIL; returns a NumPy bool array (False for nulls). ``TypeError``
    /// for HyperLogLog and UltraLogLog. Thread-safe: any number of threads
    /// at once, during adds (as ``contains``).
    fn contains_many<'py>(&self, py: Python<'py>, keys: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let view = self.view().raise(py)?;
        if !matches!(view, View::Bloom(_) | View::Sbbf(_)) {
            return Err(self.not_a_filter("contains_many"));
        }
        let hasher = view.key_hasher();
        boundary::batch_with_output::<bool>(py, keys, ListMode::Hash(hasher), |batch, out| {
            let mut tmp = [false; CHUNK];
            batch.for_hashed_chunks(hasher, |pos, h| {
                let t = &mut tmp[..h.len()];
                for (o, &h) in t.iter_mut().zip(h) {
                    *o = match view {
                        View::Bloom(f) => f.contains_hash(h),
                        View::Sbbf(f) => f.contains_hash(h),
                        View::Hll(_) | View::Ull(_) => false,
                    };
                }
                pos.scatter(out, t);
                Ok(())
            })
        })
    }

    /// HyperLogLog and UltraLogLog only: the distinct-count estimate from
    /// the registers (HyperLogLog: Ertl's improved estimator over the
    /// register histogram; UltraLogLog: FGRA), read with relaxed loads:
    /// approximate while adds run, and once they are done equal to the
    /// snapshot's ``register_estimate()``. ``TypeError`` for filters.
    /// Thread-safe: any number of threads at once, during adds.
    fn estimate(&self, py: Python<'_>) -> PyResult<f64> {
        match self.view().raise(py)? {
            View::Hll(s) => Ok(s.estimate()),
            View::Ull(s) => Ok(py.detach(|| s.estimate())),
            View::Bloom(_) | View::Sbbf(_) => Err(PyTypeError::new_err(format!(
                "estimate() is for HyperLogLog and UltraLogLog; this ConcurrentSketch holds a {} \
                 (use contains()/contains_many(), or snapshot().estimated_items)",
                self.kind.name()
            ))),
        }
    }

    /// A new ordinary sketch of the source's class (``kind``) holding a copy
    /// of the current words (atomic loads). It waits for the add calls in
    /// flight to return and holds new adds off while it copies, so it is
    /// always a valid sketch holding exactly the adds that returned before
    /// it; after the adding threads are joined it is the final result (see
    /// the class notes for the statistics that differ from a sequential
    /// run). Thread-safe: any number of threads at once, during adds.
    fn snapshot(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut image = Image::zeroed(self.image_len)?;
        let out = image.bytes_mut()?;
        py.detach(|| {
            let words = AtomicWords::new(&self.words);
            let _quiet = self.gate.write().unwrap_or_else(PoisonError::into_inner);
            for (i, chunk) in out.chunks_mut(8).enumerate() {
                for (d, s) in chunk.iter_mut().zip(words.load(i).to_le_bytes()) {
                    *d = s;
                }
            }
        });
        self.adopt_snapshot(py, image)
    }

    /// The class of the source sketch (and of ``snapshot()``):
    /// "BloomFilter", "SplitBlockBloomFilter", "HyperLogLog" or "UltraLogLog".
    #[getter]
    fn kind(&self) -> &'static str {
        self.kind.name()
    }

    /// Bytes of the image this object holds.
    #[getter]
    fn nbytes(&self) -> usize {
        self.image_len
    }

    /// The hash seed of the image.
    #[getter]
    fn seed(&self) -> u64 {
        self.seed
    }

    fn __sizeof__(&self) -> usize {
        self.words.len() * 8 + std::mem::size_of::<Self>()
    }

    /// Pickles as ``ConcurrentSketch(self.snapshot())``.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyType>, (Py<PyAny>,))> {
        Ok((py.get_type::<ConcurrentSketch>(), (slf.get().snapshot(py)?,)))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(match self.view().raise(py)? {
            View::Bloom(f) => {
                let p = f.params();
                format!(
                    "ConcurrentSketch(BloomFilter(bits={}, hashes={}, planned_items={}, planned_fpr={}), nbytes={})",
                    p.bits, p.hashes, p.planned_items, p.planned_fpr, self.image_len
                )
            }
            View::Sbbf(f) => {
                let p = f.params();
                format!(
                    "ConcurrentSketch(SplitBlockBloomFilter(blocks={}, parquet={}, planned_items={}, planned_fpr={}), nbytes={})",
                    p.blocks,
                    boundary::py_bool(p.mode == SbbfMode::Parquet),
                    p.planned_items,
                    p.planned_fpr,
                    self.image_len
                )
            }
            View::Hll(s) => format!(
                "ConcurrentSketch(HyperLogLog(precision={}), estimate={:.1})",
                s.precision(),
                s.estimate()
            ),
            View::Ull(s) => format!(
                "ConcurrentSketch(UltraLogLog(precision={}), estimate={:.1})",
                s.precision(),
                s.estimate()
            ),
        })
    }
}

/// `sketch.concurrent()` on the four classes with shared views.
macro_rules! concurrent_method {
    ($ty:ty) => {
        #[pymethods]
        impl $ty {
            /// A ``ConcurrentSketch`` holding a copy of this sketch (same as
            /// ``sketches.ConcurrentSketch(self)``): any number of threads
            /// may add to it at once; ``snapshot()`` gives the result as a
            /// sketch of this class. This sketch is not changed.
            fn concurrent(slf: &Bound<'_, Self>, py: Python<'_>) -> PyResult<ConcurrentSketch> {
                ConcurrentSketch::from_source(py, slf.as_any())
            }
        }
    };
}

concurrent_method!(BloomFilter);
concurrent_method!(SplitBlockBloomFilter);
concurrent_method!(HyperLogLog);
concurrent_method!(UltraLogLog);
