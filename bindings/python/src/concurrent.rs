//! `sketches.ConcurrentSketch`: a Bloom, split-block Bloom, HyperLogLog or
//! UltraLogLog image that many Python threads (and, wrapped over shared
//! memory, many processes) add to at once, through the core's shared views
//! (`sketches_core::shared`).
//!
//! Storage ([`Words`]): either a copy in a `Box<[AtomicU64]>` that only
//! this object owns (`ConcurrentSketch(sketch)`), or the words of a
//! caller's writable buffer (`ConcurrentSketch.wrap(buffer)`), whose Python
//! buffer export the object holds for its whole life. Every access this
//! crate makes to either goes through atomics (the shared views'
//! `fetch_or` / compare-and-swap / relaxed loads, and this module's relaxed
//! loads in `snapshot`). The owned copy is never exported as a buffer, so
//! nothing else can see it; the borrowed words are seen as `&[AtomicU64]`
//! through the one `unsafe` function of this module, [`atomic_view`], whose
//! SAFETY comment gives the argument (other processes and other objects
//! writing the same memory are outside Rust's model exactly as for the C
//! ABI's concurrent functions; the docs say only concurrent operations may
//! touch the memory meanwhile). The class is `frozen` (no pyo3 borrow flag:
//! every method takes `&self`), and `Sync` because its fields are.
//!
//! A read/write lock (`gate`) only orders adds against `snapshot`: adds
//! hold it shared (any number at once), `snapshot` holds it exclusively
//! while it copies, so a snapshot never catches an add of this object half
//! done (header counters updated in two steps, a HyperLogLog histogram
//! entry moved, its straddle lock word held), which would make the copy an
//! invalid image. The lock is this process's: adds made by other objects or
//! processes over the same memory are not held off, so `snapshot` of a
//! wrapped image validates its copy and retries a bounded number of times.
//! Queries (`contains`, `estimate`) take no lock. The lock is only taken
//! outside Python code (keys are read and hashed before it, the batch work
//! runs detached), so it cannot deadlock with the GIL or with a key whose
//! `__index__` calls back into this object.

use crate::bloom::BloomFilter;
use crate::boundary::{
    self, header_seed, with_key, with_key_for, Batch, Family, Hash64, Image, ListMode, PyBuf, Raise,
    ALIGN_HINT, CHUNK,
};
use crate::hll::HyperLogLog;
use crate::sbbf::SplitBlockBloomFilter;
use crate::ull::UltraLogLog;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyType;
use pyo3::PyClass;
use sketches_core::hash::KeyHasher;
use sketches_core::image::{self, FamilyId, COMMON_HEADER_LEN};
use sketches_core::sbbf::SbbfMode;
use sketches_core::shared::AtomicWords;
use sketches_core::{bloom, hll, sbbf, ull, Error};
use std::sync::atomic::AtomicU64;
use std::sync::{PoisonError, RwLock, RwLockReadGuard};
use std::time::Duration;

/// How many copies `snapshot` of a wrapped image makes before it gives up
/// when each fails validation (another process's add caught half done),
/// with a millisecond's pause between them.
const SNAPSHOT_ATTEMPTS: usize = 20;

/// The hint given with `SKETCH_SMALL_MODE` from `wrap`.
const SMALL_MODE_HINT: &str = "densify the HyperLogLog first (sketches.HyperLogLog.wrap(buffer).densify(), \
     before any process adds to it concurrently)";

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
    Hll(hll::SharedHll<'a, ThreadLockWait>),
    Ull(ull::SharedUll<'a>),
}

impl View<'_> {
    /// A Parquet-mode split-block filter (its keys hash with XXH64 seed 0,
    /// native split-block filters with XXH3).
    fn parquet(&self) -> bool {
        matches!(self, View::Sbbf(f) if f.key_hasher().kind == sketches_core::hash::HashKind::Xxh64)
    }

    fn key_hasher(&self) -> KeyHasher {
        match self {
            View::Bloom(f) => f.key_hasher(),
            View::Sbbf(f) => f.key_hasher(),
            View::Hll(s) => s.key_hasher(),
            View::Ull(s) => s.key_hasher(),
        }
    }

    /// Adds a chunk of hashes: `newly[i]` (filters; as long as `hashes`)
    /// tells whether hash `i` set a new bit, and is left as is for the
    /// counters. One dispatch per chunk, not per key.
    fn add_hashes(&self, hashes: &[u64], newly: &mut [bool]) -> Result<(), Error> {
        match self {
            View::Bloom(f) => f.add_hashes(hashes, Some(newly)),
            View::Sbbf(f) => f.add_hashes(hashes, Some(newly)),
            View::Hll(s) => s.add_hashes(hashes),
            View::Ull(s) => {
                s.add_hashes(hashes);
                Ok(())
            }
        }
    }

    /// Tests a chunk of hashes into `out` (filters; the counters answer false).
    fn contains_hashes(&self, hashes: &[u64], out: &mut [bool]) {
        match self {
            View::Bloom(f) => out.iter_mut().zip(hashes).for_each(|(o, &h)| *o = f.contains_hash(h)),
            View::Sbbf(f) => out.iter_mut().zip(hashes).for_each(|(o, &h)| *o = f.contains_hash(h)),
            View::Hll(_) | View::Ull(_) => out.fill(false),
        }
    }
}

/// Where the words of the image live.
enum Words {
    /// A copy that only this object sees (`ConcurrentSketch(sketch)`).
    Owned(Box<[AtomicU64]>),
    /// The first `count` words of a caller's writable, 8-byte aligned
    /// buffer (`ConcurrentSketch.wrap`), whose export is held by `buf`.
    Borrowed { buf: PyBuf, count: usize },
}

impl Words {
    /// The words (the checks of [`atomic_view`] cannot fail after `wrap`
    /// passed them: the export keeps the pointer and length).
    fn get(&self) -> Result<&[AtomicU64], Error> {
        match self {
            Words::Owned(words) => Ok(words),
            Words::Borrowed { buf, count } => atomic_view(buf, *count),
        }
    }
}

/// The first `count` 64-bit words of a held, writable buffer export, as
/// atomics. Errors: `InvalidArgument` for a read-only export or a null
/// pointer, `BufferTooSmall` when `8 * count` bytes do not fit,
/// `Misaligned` when the start is not 8-byte aligned.
fn atomic_view(buf: &PyBuf, count: usize) -> Result<&[AtomicU64], Error> {
    let raw = buf.raw();
    if buf.readonly() {
        return Err(Error::InvalidArgument);
    }
    if count.checked_mul(8).is_none_or(|n| n > raw.len()) {
        return Err(Error::BufferTooSmall);
    }
    let ptr = raw.ptr().cast::<AtomicU64>();
    if ptr.is_null() {
        return Err(Error::InvalidArgument);
    }
    if !(ptr as usize).is_multiple_of(core::mem::align_of::<AtomicU64>()) {
        return Err(Error::Misaligned);
    }
    // SAFETY: the pointer is non-null and 8-byte aligned (checked), and
    // `count` whole words lie inside the export's `len` bytes (checked);
    // `AtomicU64` has the size, alignment and bit validity of `u64`, and
    // every bit pattern is a valid `u64`. The memory stays allocated, and
    // writable (not read-only: checked), for as long as `buf` is borrowed:
    // the export is held by `buf`, so the exporter cannot free, resize or
    // close it (an mmap or SharedMemory refuses `close()` meanwhile). Every
    // access this crate makes to it goes through the returned atomics. Other
    // code writing the same memory at the same time (another process mapping
    // the shared memory, another object or NumPy array over the buffer) is
    // outside Rust's model in the same way as for the C ABI's concurrent
    // functions on a caller's buffer: the documented contract is that while
    // concurrent adds run, only concurrent operations (this class, the C
    // ABI's `*_concurrent` functions) touch the image, all of them atomic.
    Ok(unsafe { core::slice::from_raw_parts(ptr, count) })
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
/// or ``UltraLogLog`` that any number of threads may add to and query at
/// once; or, with ``ConcurrentSketch.wrap(buffer)``, such an image in a
/// caller's buffer (shared memory) that several processes add to at once.
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
/// Processes: ``ConcurrentSketch.wrap(buffer)`` adds to the image in the
/// buffer itself (zero-copy). Each process wraps the same shared memory
/// (``multiprocessing.shared_memory.SharedMemory``, an ``mmap``); every
/// method above may then be called by any number of threads in any number
/// of processes at once, and once every writer is done (joined) the image
/// holds the result above: bits/registers equal a sequential run's, the
/// counters called exact above are exact. The ``snapshot()`` lock is this
/// object's only: it does not hold off adds made by other processes (or
/// other objects over the same memory), so a snapshot taken while they add
/// may catch one half done. Then a header counter may be off by the adds
/// in flight, and a copy that fails validation (a HyperLogLog register
/// pair being written) is taken again, up to 20 times, 1 ms apart, before
/// ``SketchError`` is raised; a snapshot taken after every writer is done
/// is exact. While concurrent adds run, nothing but concurrent operations
/// may touch the memory.
///
/// Streams: ``write_to(f)`` writes ``bytes(snapshot())`` (one copy of the
/// image, consistent as ``snapshot()`` is; adds are held off during the
/// copy only, not while ``f`` is written), and ``ConcurrentSketch.read(f)``
/// reads one Bloom, split-block, HyperLogLog or UltraLogLog image back into
/// a new ``ConcurrentSketch`` (``sketches.read(f)`` gives the ordinary
/// class). Both are added by ``sketches._stream``.
///
/// Pickling stores ``snapshot()``: unpickling gives a new
/// ``ConcurrentSketch`` of that image (a private copy). A wrapped object
/// refuses to pickle (``TypeError``), since the copy would not share the
/// memory: pass the shared memory's name and wrap it in each process.
#[pyclass(module = "sketches", name = "ConcurrentSketch", frozen)]
pub struct ConcurrentSketch {
    /// The live image, only ever accessed atomically (by this crate).
    words: Words,
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
            let _aliases = image.hold(py, false)?;
            (len, py.detach(|| words_of(bytes)))
        };
        let this =
            ConcurrentSketch { words: Words::Owned(words), image_len, kind, seed, gate: RwLock::new(()) };
        this.view().raise(py)?;
        Ok(this)
    }

    /// `ConcurrentSketch.wrap(buffer)`: the image already in a caller's
    /// writable, 8-byte aligned buffer, zero-copy (see the method's docs).
    fn wrap_buffer(py: Python<'_>, buffer: &Bound<'_, PyAny>) -> PyResult<Self> {
        let buf = PyBuf::get(buffer)?;
        if buf.readonly() {
            return Err(PyTypeError::new_err(
                "ConcurrentSketch.wrap needs a writable buffer (adds write into it); this one is read-only",
            ));
        }
        let len = buf.raw().len();
        if len < COMMON_HEADER_LEN {
            return Err(Error::BufferTooSmall).raise(py);
        }
        let all = match atomic_view(&buf, len / 8) {
            Err(Error::Misaligned) => Err(Error::Misaligned).raise_hint(py, ALIGN_HINT),
            other => other.raise(py),
        }?;
        let all = AtomicWords::new(all);
        let header: [u8; COMMON_HEADER_LEN] = all.snapshot();
        let common = image::read_common_in(&header, all.byte_len()).raise(py)?;
        let kind = match common.family {
            FamilyId::Bloom => Kind::Bloom,
            FamilyId::SplitBlockBloom => Kind::Sbbf,
            FamilyId::HyperLogLog => Kind::Hll,
            FamilyId::UltraLogLog => Kind::Ull,
            _ => {
                return Err(Error::WrongFamily).raise_hint(
                    py,
                    "ConcurrentSketch wraps BloomFilter, SplitBlockBloomFilter, HyperLogLog or UltraLogLog images",
                )
            }
        };
        let image_len = common.image_len;
        let words = Words::Borrowed { buf, count: image_len.div_ceil(8) };
        let this = ConcurrentSketch { words, image_len, kind, seed: common.seed, gate: RwLock::new(()) };
        match this.view() {
            Err(Error::SmallMode) => Err(Error::SmallMode).raise_hint(py, SMALL_MODE_HINT),
            other => other.raise(py).map(|_| ()),
        }?;
        Ok(this)
    }

    fn borrowed(&self) -> bool {
        matches!(self.words, Words::Borrowed { .. })
    }

    /// The family's shared view (validates the immutable header, which
    /// nothing changes after construction).
    fn view(&self) -> Result<View<'_>, Error> {
        let words = AtomicWords::new(self.words.get()?);
        Ok(match self.kind {
            Kind::Bloom => View::Bloom(bloom::wrap_shared(words)?),
            Kind::Sbbf => View::Sbbf(sbbf::wrap_shared(words)?),
            Kind::Hll => View::Hll(hll::wrap_shared(words)?.with_lock_wait::<ThreadLockWait>()),
            Kind::Ull => View::Ull(ull::wrap_shared(words)?),
        })
    }

    /// Held by every add while it changes the words.
    fn adding(&self) -> RwLockReadGuard<'_, ()> {
        self.gate.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// The split-block view, or TypeError naming `method` (the hash forms
    /// of `SplitBlockBloomFilter`).
    fn sbbf_view(&self, py: Python<'_>, method: &str) -> PyResult<sbbf::SharedSbbf<'_>> {
        match self.view().raise(py)? {
            View::Sbbf(f) => Ok(f),
            _ => Err(PyTypeError::new_err(format!(
                "{method}() is for SplitBlockBloomFilter (precomputed hashes: parquet_hash_* in Parquet \
                 mode); this ConcurrentSketch holds a {}",
                self.kind.name()
            ))),
        }
    }

    fn not_a_filter(&self, method: &str) -> PyErr {
        PyTypeError::new_err(format!(
            "{method}() is for filters (BloomFilter, SplitBlockBloomFilter); this ConcurrentSketch holds a {} \
             (use estimate())",
            self.kind.name()
        ))
    }

    /// Validates a snapshot image as the source's class's `wrap` does.
    fn check_snapshot(&self, bytes: &[u8]) -> Result<(), Error> {
        match self.kind {
            Kind::Bloom => BloomFilter::check(bytes),
            Kind::Sbbf => SplitBlockBloomFilter::check(bytes),
            Kind::Hll => HyperLogLog::check(bytes),
            Kind::Ull => UltraLogLog::check(bytes),
        }
    }

    /// A copy of the words in a fresh image (relaxed loads), made while no
    /// add of this object runs, and its validation.
    fn copy_words(&self, py: Python<'_>) -> PyResult<(Image, Result<(), Error>)> {
        let words = AtomicWords::new(self.words.get().raise(py)?);
        let mut image = Image::zeroed(self.image_len)?;
        let out = image.bytes_mut()?;
        let checked = py.detach(|| {
            {
                let _quiet = self.gate.write().unwrap_or_else(PoisonError::into_inner);
                for (i, chunk) in out.chunks_mut(8).enumerate() {
                    for (d, s) in chunk.iter_mut().zip(words.load(i).to_le_bytes()) {
                        *d = s;
                    }
                }
            }
            self.check_snapshot(out)
        });
        Ok((image, checked))
    }

    /// An ordinary sketch of the source's class around a validated image.
    fn adopt_snapshot(&self, py: Python<'_>, image: Image) -> PyResult<Py<PyAny>> {
        Ok(match self.kind {
            Kind::Bloom => Py::new(py, BloomFilter::from_image(image))?.into_any(),
            Kind::Sbbf => Py::new(py, SplitBlockBloomFilter::from_image(image))?.into_any(),
            Kind::Hll => Py::new(py, HyperLogLog::from_image(image))?.into_any(),
            Kind::Ull => Py::new(py, UltraLogLog::from_image(image))?.into_any(),
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

    /// Zero-copy over a live image already in ``buffer``: a writable,
    /// 8-byte aligned, C-contiguous buffer (``SharedMemory(...).buf``, an
    /// ``mmap.mmap``, a NumPy array, an aligned ``bytearray``) holding a
    /// BloomFilter, SplitBlockBloomFilter, dense HyperLogLog or UltraLogLog
    /// image (``bytes(sketch)`` copied in, or memory an ordinary sketch
    /// wraps); anything after the image is ignored. Several processes that
    /// each wrap the same shared memory add to ONE image at once, with the
    /// same atomic operations as threads (and as the C ABI's ``*_concurrent``
    /// functions). The buffer export is held while this object lives (a
    /// ``SharedMemory`` or ``mmap`` cannot be closed meanwhile: delete the
    /// object first). Nothing is written to the buffer by ``wrap``.
    ///
    /// Refused, the buffer unchanged: a read-only buffer (``TypeError``);
    /// ``SketchError`` for a misaligned one (``MISALIGNED``), one shorter
    /// than the image (``BUFFER_TOO_SMALL``), another family
    /// (``WRONG_FAMILY``), a damaged header, and a HyperLogLog still in its
    /// exact small mode (``SMALL_MODE``: call ``HyperLogLog.densify()`` on
    /// it first, before any concurrent add).
    ///
    /// While concurrent adds run on the memory, only concurrent operations
    /// (``ConcurrentSketch`` objects, the C ABI's ``*_concurrent``
    /// functions) may touch it: an ordinary sketch wrapping it, a NumPy
    /// write or ``bytes(...)`` of it then race with the adds. Once every
    /// writer is done, the memory is an ordinary live image again.
    #[classmethod]
    fn wrap(_cls: &Bound<'_, PyType>, py: Python<'_>, buffer: &Bound<'_, PyAny>) -> PyResult<Self> {
        Self::wrap_buffer(py, buffer)
    }

    /// Adds a key; returns what the family's ``add`` returns (filters: True
    /// when some bit of the key was new; HyperLogLog, UltraLogLog: True
    /// when a register changed), as seen by this call at the moment it ran.
    /// Thread-safe: any number of threads at once.
    fn add(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        let view = self.view().raise(py)?;
        let hasher = view.key_hasher();
        // Hash first: reading the key may run Python code; the lock is not held meanwhile.
        let h = with_key_for(hasher, key, |k| hasher.hash(k))?;
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
        crate::sbbf::parquet_keys_check(py, view.parquet(), keys)?;
        let mode = ListMode::Hash(hasher);
        if matches!(view, View::Hll(_) | View::Ull(_)) {
            let batch = Batch::extract(keys, mode)?;
            py.detach(|| {
                let _adding = self.adding();
                let mut unused = [false; CHUNK];
                batch.for_hashed_chunks(hasher, |_, h| view.add_hashes(h, &mut unused[..h.len()]))
            })
            .raise(py)?;
            return Ok(None);
        }
        boundary::batch_with_output::<bool>(py, keys, mode, |batch, out| {
            let _adding = self.adding();
            let mut tmp = [false; CHUNK];
            batch.for_hashed_chunks(hasher, |pos, h| {
                let t = &mut tmp[..h.len()];
                view.add_hashes(h, t)?;
                pos.scatter(out, t);
                Ok(())
            })
        })
        .map(Some)
    }

    /// Filters only: True when the key may have been added, False when it
    /// certainly was not (atomic loads; True for every key whose add
    /// returned before this call began). ``TypeError`` for HyperLogLog and
    /// UltraLogLog. Thread-safe: any number of threads at once, during adds.
    fn __contains__(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<bool> {
        match self.view().raise(py)? {
            View::Bloom(f) => with_key(key, |k| f.contains(k)),
            View::Sbbf(f) => with_key_for(f.key_hasher(), key, |k| f.contains(k)),
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
        crate::sbbf::parquet_keys_check(py, view.parquet(), keys)?;
        boundary::batch_with_output::<bool>(py, keys, ListMode::Hash(hasher), |batch, out| {
            let mut tmp = [false; CHUNK];
            batch.for_hashed_chunks(hasher, |pos, h| {
                let t = &mut tmp[..h.len()];
                view.contains_hashes(h, t);
                pos.scatter(out, t);
                Ok(())
            })
        })
    }

    /// Split-block filters only, as ``SplitBlockBloomFilter.add_hash``: adds
    /// a precomputed 64-bit hash (in Parquet mode a ``parquet_hash_*``
    /// value: how an INT32, FLOAT or DOUBLE column's values are added;
    /// natively ``sketches.hash(key, seed)``); True when some bit was new.
    /// Thread-safe: any number of threads at once. ``TypeError`` for the
    /// other families.
    fn add_hash(&self, py: Python<'_>, hash: Hash64) -> PyResult<bool> {
        let f = self.sbbf_view(py, "add_hash")?;
        let _adding = self.adding();
        Ok(f.add_hash(hash.0))
    }

    /// Split-block filters only: True when the precomputed hash may have
    /// been added (atomic loads; see ``add_hash``). Thread-safe, during adds.
    fn contains_hash(&self, py: Python<'_>, hash: Hash64) -> PyResult<bool> {
        Ok(self.sbbf_view(py, "contains_hash")?.contains_hash(hash.0))
    }

    /// Split-block filters only: adds a batch of precomputed hashes (a NumPy
    /// uint64 array such as ``parquet_hash_many`` returns, or ints in 0 ..
    /// 2**64-1) without the GIL; returns a NumPy bool array, True where this
    /// call found the hash new. Thread-safe: any number of threads at once.
    fn add_hashes<'py>(&self, py: Python<'py>, hashes: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let f = self.sbbf_view(py, "add_hashes")?;
        let (_keep, input) = crate::sbbf::hash_array(py, hashes)?;
        let src = input.raw();
        let (array, out) = boundary::numpy_zeros(py, src.len() / 8, "bool")?;
        let out_raw = out.raw();
        py.detach(|| {
            let _adding = self.adding();
            // SAFETY: the input and output exports are held for the call;
            // the output is a fresh array only this call knows.
            let (hashes, out) = unsafe { (boundary::as_u64s(src), boundary::as_bools_mut(out_raw)) };
            for (h, o) in hashes.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
                f.add_hashes(h, Some(o))?;
            }
            Ok(())
        })
        .raise(py)?;
        drop(out);
        Ok(array)
    }

    /// Split-block filters only: tests a batch of precomputed hashes (as
    /// ``add_hashes``) without the GIL; returns a NumPy bool array.
    /// Thread-safe, during adds.
    fn contains_hashes<'py>(
        &self,
        py: Python<'py>,
        hashes: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let f = self.sbbf_view(py, "contains_hashes")?;
        let (_keep, input) = crate::sbbf::hash_array(py, hashes)?;
        let src = input.raw();
        let (array, out) = boundary::numpy_zeros(py, src.len() / 8, "bool")?;
        let out_raw = out.raw();
        py.detach(|| {
            // SAFETY: as in `add_hashes`.
            let (hashes, out) = unsafe { (boundary::as_u64s(src), boundary::as_bools_mut(out_raw)) };
            out.iter_mut().zip(hashes).for_each(|(o, &h)| *o = f.contains_hash(h));
        });
        drop(out);
        Ok(array)
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

    /// Filters only: the ``CAPACITY_*`` flags (0 while within the plan), as
    /// the source class's ``capacity_flags``, read with atomic loads, so
    /// that a thread can watch for "planned for 100k, got 1M" while others
    /// add. Exact once the adds are done; during them a flag can show an add
    /// or two late. O(1), except a split-block filter loaded from a Parquet
    /// bitset, which scans its blocks (GIL released). ``TypeError`` for
    /// HyperLogLog and UltraLogLog. Thread-safe: any number of threads at
    /// once, during adds.
    #[getter]
    fn capacity_flags(&self, py: Python<'_>) -> PyResult<u32> {
        match self.view().raise(py)? {
            View::Bloom(f) => Ok(f.capacity().0),
            View::Sbbf(f) => Ok(py.detach(|| f.capacity().0)),
            View::Hll(_) | View::Ull(_) => Err(PyTypeError::new_err(format!(
                "capacity_flags is for BloomFilter and SplitBlockBloomFilter; this ConcurrentSketch holds a {} \
                 (use estimate())",
                self.kind.name()
            ))),
        }
    }

    /// Filters only: True once ``capacity_flags`` is not 0 (more keys than
    /// planned, or the estimated false-positive rate above twice the planned
    /// one), read with atomic loads while other threads add. ``TypeError``
    /// for HyperLogLog and UltraLogLog. Thread-safe.
    #[getter]
    fn over_capacity(&self, py: Python<'_>) -> PyResult<bool> {
        Ok(self.capacity_flags(py)? != 0)
    }

    /// A new ordinary sketch of the source's class (``kind``) holding a copy
    /// of the current words (atomic loads). It waits for the add calls in
    /// flight to return and holds new adds off while it copies, so it is
    /// always a valid sketch holding exactly the adds that returned before
    /// it; after the adding threads are joined it is the final result (see
    /// the class notes for the statistics that differ from a sequential
    /// run). Thread-safe: any number of threads at once, during adds.
    ///
    /// On a wrapped buffer the wait covers this object's adds only: adds by
    /// other processes may be caught half done (a counter off by the adds in
    /// flight); a copy that fails validation is taken again (up to 20
    /// times, 1 ms apart), then ``SketchError`` is raised. Exact once every
    /// writer is done.
    fn snapshot(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let attempts = if self.borrowed() { SNAPSHOT_ATTEMPTS } else { 1 };
        let mut failure = Error::InvalidArgument;
        for attempt in 0..attempts {
            if attempt > 0 {
                py.detach(|| std::thread::sleep(Duration::from_millis(1)));
            }
            match self.copy_words(py)? {
                (image, Ok(())) => return self.adopt_snapshot(py, image),
                (_, Err(e)) => failure = e,
            }
        }
        if self.borrowed() {
            let hint = format!(
                "{attempts} copies of the wrapped image failed validation: another process (or another object \
                 over the same memory) was adding, or the memory was overwritten; take the snapshot after \
                 the other writers are done"
            );
            Err(failure).raise_hint(py, &hint)
        } else {
            Err(failure).raise(py)
        }
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

    /// The object and, for a copy, its words (a wrapped buffer is not counted).
    fn __sizeof__(&self) -> usize {
        let owned = match &self.words {
            Words::Owned(words) => words.len() * 8,
            Words::Borrowed { .. } => 0,
        };
        owned + std::mem::size_of::<Self>()
    }

    /// Pickles as ``ConcurrentSketch(self.snapshot())``; an object made by
    /// ``wrap`` refuses (``TypeError``): each process would silently get a
    /// private copy instead of the shared memory.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyType>, (Py<PyAny>,))> {
        if slf.get().borrowed() {
            return Err(PyTypeError::new_err(
                "a ConcurrentSketch made by ConcurrentSketch.wrap() is not pickled: the copy would not share \
                 the memory. Pass the shared memory's name to the other process and wrap it there, or \
                 pickle snapshot() for a copy of the current image",
            ));
        }
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

/// How a HyperLogLog add waits for a register lock another thread (or
/// process) holds: the core's schedule (`hll::lock_wait_step`: spin, then
/// thread yields, then 1 ms sleeps, giving up with a `SketchError`
/// (CORRUPT_HEADER) after about five seconds), so a holder descheduled
/// among many more adding threads than cores gets to finish. `add_many`
/// waits with the GIL released; a single-key add waits holding it (the
/// holder, another thread's `add_many` or another process, needs no GIL).
struct ThreadLockWait;

impl hll::LockWait for ThreadLockWait {
    fn wait(tries: u32) -> bool {
        match hll::lock_wait_step(tries) {
            hll::LockWaitStep::Spin => std::hint::spin_loop(),
            hll::LockWaitStep::Yield => std::thread::yield_now(),
            hll::LockWaitStep::Sleep => std::thread::sleep(std::time::Duration::from_millis(1)),
            hll::LockWaitStep::GiveUp => return false,
        }
        true
    }
}
