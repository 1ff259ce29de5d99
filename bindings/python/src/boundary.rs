//! The one place where Python objects meet the core: errors, image storage
//! (owned aligned buffers or borrowed Python buffers), keys (single keys,
//! lists, NumPy integer arrays, Arrow Binary/String columns) and NumPy
//! outputs. The family modules only call the core through these helpers.
//!
//! GIL: everything that reads Python objects runs attached; the core calls
//! over buffers run detached (`Python::detach`) when they are longer than a
//! single key, so other Python threads run meanwhile. Memory handed to a
//! detached call is kept alive by a Python buffer export (`PyUntypedBuffer`)
//! or owned by the sketch, which pyo3 borrows for the whole method call.

use pyo3::buffer::PyUntypedBuffer;
use pyo3::exceptions::{PyMemoryError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyFloat, PyInt, PyList, PyString, PyTuple, PyType};
use sketches_core::hash::{HashKind, KeyHasher};
use sketches_core::image::{self, IMAGE_ALIGN};
use sketches_core::Error;
use std::alloc::Layout;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

// ---------------------------------------------------------------- errors

/// Status numbers, names and texts: the same as `include/sketches.h` and
/// `sketch_status_str` (tests compare them with the header and the C library).
pub(crate) const STATUSES: &[(i32, &str, &str)] = &[
    (0, "OK", "ok"),
    (1, "NULL_POINTER", "required pointer is NULL"),
    (2, "BUFFER_TOO_SMALL", "buffer too small for the sketch image"),
    (3, "MISALIGNED", "buffer is not 8-byte aligned"),
    (4, "INVALID_PARAMETER", "sketch parameter out of range"),
    (5, "INVALID_ARGUMENT", "invalid call argument"),
    (6, "BAD_MAGIC", "not a sketch image (bad magic)"),
    (7, "UNSUPPORTED_VERSION", "image format version is newer than this library"),
    (8, "WRONG_FAMILY", "image holds a different sketch family"),
    (9, "CORRUPT_HEADER", "image header is inconsistent"),
    (10, "CHECKSUM_MISMATCH", "image checksum mismatch (corrupted bytes)"),
    (11, "LENGTH_MISMATCH", "byte count differs from the image length"),
    (12, "INCOMPATIBLE", "sketches have different parameters, seed or hash"),
    (13, "UNSUPPORTED_HASH", "hash function not supported by this family"),
    (14, "OVERLAP", "source and destination buffers overlap"),
    (15, "INTERNAL_ERROR", "internal error (reserved; no longer produced)"),
    (16, "NOT_PRESENT", "item not present (nothing removed)"),
    (17, "FULL", "filter full (nothing changed)"),
    (18, "CORRUPT_BODY", "image body holds values its format forbids"),
    (19, "COMPACT_IMAGE", "compact exported image: import it before use"),
    (20, "KEY_TOO_LONG", "key longer than the sketch's maximum key length (nothing changed)"),
    (21, "BUILD_FAILED", "filter construction failed within its attempt bound (nothing written)"),
    (22, "SMALL_MODE", "sketch is in its exact small mode: densify it before concurrent adds"),
];

/// The text of a status number (`sketch_status_str`).
pub(crate) fn status_text(code: i32) -> &'static str {
    STATUSES.iter().find(|s| s.0 == code).map_or("unknown status code", |s| s.2)
}

fn status_name(code: i32) -> &'static str {
    STATUSES.iter().find(|s| s.0 == code).map_or("UNKNOWN", |s| s.1)
}

static SKETCH_ERROR: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// `sketches.SketchError` (defined in Python, `sketches/_errors.py`).
fn sketch_error_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    SKETCH_ERROR.import(py, "sketches._errors", "SketchError")
}

/// A `SketchError` for a status number, with an optional hint appended.
pub(crate) fn status_error(py: Python<'_>, code: i32, hint: Option<&str>) -> PyErr {
    let text = status_text(code);
    let mut message = format!("{text} (SKETCH_{}, status {code})", status_name(code));
    if let Some(h) = hint {
        message.push_str(": ");
        message.push_str(h);
    }
    match sketch_error_type(py) {
        Ok(t) => PyErr::from_type(t.clone(), (code, text, message)),
        Err(e) => e,
    }
}

/// Converts core results into Python exceptions.
pub(crate) trait Raise<T> {
    /// `SketchError` carrying the status number of the core error.
    fn raise(self, py: Python<'_>) -> PyResult<T>;
    /// As [`Raise::raise`], with a hint appended to the message.
    fn raise_hint(self, py: Python<'_>, hint: &str) -> PyResult<T>;
}

impl<T> Raise<T> for Result<T, Error> {
    #[inline]
    fn raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| status_error(py, e.code(), None))
    }
    fn raise_hint(self, py: Python<'_>, hint: &str) -> PyResult<T> {
        self.map_err(|e| status_error(py, e.code(), Some(hint)))
    }
}

/// The hint given with `SKETCH_MISALIGNED` from `wrap`.
pub(crate) const ALIGN_HINT: &str = "live images must start on an 8-byte boundary; wrap an 8-byte aligned \
     buffer (numpy.zeros(n // 8, dtype=numpy.uint64), an mmap, or a bytearray whose address is \
     aligned), or copy the bytes with Family.from_bytes(...)";

// ----------------------------------------------------------- raw memory

/// A pointer and length that may cross `Python::detach` (the memory is kept
/// alive and unaliased by its owner for the duration of the call).
#[derive(Copy, Clone)]
pub(crate) struct Raw {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: a `Raw` is only built from memory that its creator keeps alive
// (an owned allocation borrowed by the method, or a Python buffer export
// held across the call); sending the pointer to the same thread's detached
// section does not change who owns it.
unsafe impl Send for Raw {}
// SAFETY: as above; shared use is read-only unless `bytes_mut` is called by
// the holder of the exclusive borrow.
unsafe impl Sync for Raw {}

impl Raw {
    const EMPTY: Raw = Raw { ptr: core::ptr::NonNull::<u8>::dangling().as_ptr(), len: 0 };

    /// The start of the memory.
    pub(crate) fn ptr(self) -> *mut u8 {
        self.ptr
    }

    /// Its length in bytes.
    pub(crate) fn len(self) -> usize {
        self.len
    }

    /// The bytes.
    ///
    /// # Safety
    /// The memory must be alive and not written by anyone else for `'a`.
    #[inline(always)]
    pub(crate) unsafe fn bytes<'a>(self) -> &'a [u8] {
        // SAFETY: caller contract; ptr is non-null (dangling only with len 0).
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The bytes, mutably.
    ///
    /// # Safety
    /// The memory must be alive, writable and exclusively ours for `'a`.
    #[inline(always)]
    pub(crate) unsafe fn bytes_mut<'a>(self) -> &'a mut [u8] {
        // SAFETY: caller contract.
        unsafe { core::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    fn overlaps(self, other: Raw) -> bool {
        let (a, b) = (self.ptr as usize, other.ptr as usize);
        self.len != 0 && other.len != 0 && a < b + other.len && b < a + self.len
    }
}

/// A Python buffer export (bytes, bytearray, memoryview, mmap, NumPy array,
/// pyarrow Buffer) held for as long as this value lives: the exporter cannot
/// resize or free the memory meanwhile.
pub(crate) struct PyBuf {
    buf: PyUntypedBuffer,
}

impl PyBuf {
    /// Exports `obj`'s buffer; it must be C-contiguous.
    pub(crate) fn get(obj: &Bound<'_, PyAny>) -> PyResult<PyBuf> {
        let buf = PyUntypedBuffer::get(obj)?;
        if !buf.is_c_contiguous() {
            return Err(PyValueError::new_err("the buffer must be C-contiguous"));
        }
        Ok(PyBuf { buf })
    }

    /// Exports a C-contiguous array of 64-bit values that [`as_u64s`] reads:
    /// 8-byte aligned, a whole number of values (else ValueError, never an
    /// empty or short slice read in its place).
    pub(crate) fn get_u64s(obj: &Bound<'_, PyAny>) -> PyResult<PyBuf> {
        let buf = PyBuf::get(obj)?;
        let raw = buf.raw();
        if !(raw.ptr as usize).is_multiple_of(8) || !raw.len.is_multiple_of(8) {
            return Err(PyValueError::new_err("64-bit values must be an 8-byte aligned array"));
        }
        Ok(buf)
    }

    pub(crate) fn raw(&self) -> Raw {
        Raw { ptr: self.buf.buf_ptr().cast(), len: self.buf.len_bytes() }
    }

    pub(crate) fn readonly(&self) -> bool {
        self.buf.readonly()
    }

    pub(crate) fn item_size(&self) -> usize {
        self.buf.item_size()
    }

    pub(crate) fn dims(&self) -> usize {
        self.buf.dimensions()
    }

    pub(crate) fn format(&self) -> &std::ffi::CStr {
        self.buf.format()
    }
}

// ------------------------------------------------------------- images

/// An aligned, zeroed heap allocation (alignment [`IMAGE_ALIGN`]).
struct Aligned {
    ptr: *mut u8,
    layout: Layout,
}

impl Drop for Aligned {
    fn drop(&mut self) {
        // SAFETY: allocated with this layout in `Image::zeroed`.
        unsafe { std::alloc::dealloc(self.ptr, self.layout) }
    }
}

enum Owner {
    Own(#[allow(dead_code)] Aligned),
    Borrowed(#[allow(dead_code)] PyBuf),
}

/// The memory a sketch object lives in: its own 64-byte aligned allocation
/// (constructors, `from_bytes`, `copy`), or a Python buffer it wraps
/// zero-copy (`wrap`), whose export it holds.
pub(crate) struct Image {
    raw: Raw,
    writable: bool,
    /// Nonzero for a wrapped buffer: its entry in [`WRAPS`] once the Python
    /// object exists (see [`hold_aliases`]); 0 for owned memory, which
    /// nothing else can see.
    alias_id: u64,
    _owner: Owner,
}

impl Drop for Image {
    fn drop(&mut self) {
        // First, before the buffer export is released (which may run Python
        // code): the registry never names an object being torn down.
        if self.alias_id != 0 {
            let mut wraps = WRAPS.lock().unwrap_or_else(PoisonError::into_inner);
            wraps.0.retain(|e| e.id != self.alias_id);
        }
    }
}

// SAFETY: the memory is owned (heap) or held by a buffer export (which
// pyo3 declares Send + Sync); access is governed by pyo3's borrow of the
// sketch object (shared for queries, exclusive for updates).
unsafe impl Send for Image {}
// SAFETY: as above.
unsafe impl Sync for Image {}

impl Image {
    /// A zeroed, 64-byte aligned image area of `len` bytes.
    pub(crate) fn zeroed(len: usize) -> PyResult<Image> {
        let layout = Layout::from_size_align(len.max(IMAGE_ALIGN), IMAGE_ALIGN)
            .map_err(|_| PyMemoryError::new_err("sketch image too large"))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        if ptr.is_null() {
            return Err(PyMemoryError::new_err(format!("cannot allocate {len} bytes for a sketch image")));
        }
        Ok(Image {
            raw: Raw { ptr, len },
            writable: true,
            alias_id: 0,
            _owner: Owner::Own(Aligned { ptr, layout }),
        })
    }

    /// A zero-copy view of a Python buffer (writable or read-only).
    pub(crate) fn borrowed(obj: &Bound<'_, PyAny>) -> PyResult<Image> {
        let buf = PyBuf::get(obj)?;
        let raw = buf.raw();
        let writable = !buf.readonly();
        let alias_id = NEXT_ALIAS_ID.fetch_add(1, Ordering::Relaxed);
        Ok(Image { raw, writable, alias_id, _owner: Owner::Borrowed(buf) })
    }

    #[inline(always)]
    pub(crate) fn raw(&self) -> Raw {
        self.raw
    }

    /// The whole area (image plus anything after it in a wrapped buffer).
    #[inline(always)]
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: alive while `self` is; writes need `&mut self`.
        unsafe { self.raw.bytes() }
    }

    /// The whole area, mutably; fails for a wrapped read-only buffer.
    #[inline(always)]
    pub(crate) fn bytes_mut(&mut self) -> PyResult<&mut [u8]> {
        self.writable_raw()?;
        // SAFETY: alive and exclusively borrowed through `&mut self`.
        Ok(unsafe { self.raw.bytes_mut() })
    }

    /// The raw area for a detached update; fails for a read-only buffer.
    pub(crate) fn writable_raw(&mut self) -> PyResult<Raw> {
        if !self.writable {
            return Err(PyTypeError::new_err(
                "this sketch wraps a read-only buffer; updates need a writable one",
            ));
        }
        Ok(self.raw)
    }

    pub(crate) fn writable(&self) -> bool {
        self.writable
    }

    /// The image length recorded in the header.
    pub(crate) fn image_len(&self) -> usize {
        image::inspect(self.bytes()).map_or(0, |h| h.image_len)
    }

    /// A fresh owned copy of the live image.
    pub(crate) fn duplicate(&self, py: Python<'_>) -> PyResult<Image> {
        let len = self.image_len();
        let mut copy = Image::zeroed(len)?;
        let (src, dst) = (self.raw, copy.raw);
        let _aliases = self.hold(py, false)?;
        py.detach(move || {
            // SAFETY: src is alive (borrowed self), dst freshly owned.
            unsafe { dst.bytes_mut().copy_from_slice(&src.bytes()[..len]) }
        });
        copy.writable = true;
        Ok(copy)
    }

    /// Borrows every other live sketch object wrapping memory that overlaps
    /// this image (see [`hold_aliases`]) for a detached read (`exclusive`
    /// false) or write (true) of it; call before detaching, keep the result
    /// until the detached section returned. Free for owned images.
    pub(crate) fn hold<'py>(&self, py: Python<'py>, exclusive: bool) -> PyResult<AliasHolds<'py>> {
        hold_aliases(py, &[(self, exclusive)])
    }

    /// After an in-place change that shortened the live image (a fold):
    /// an owned area moves into an allocation of the image's new length; a
    /// wrapped buffer stays as it is (the image is its prefix).
    pub(crate) fn shrink(&mut self, py: Python<'_>) -> PyResult<()> {
        if matches!(self._owner, Owner::Own(_)) && self.image_len() < self.raw.len {
            *self = self.duplicate(py)?;
        }
        Ok(())
    }
}

// ------------------------------------------- aliases of wrapped memory

/// Something kept until it is dropped (a pyo3 borrow of another object).
pub(crate) trait Held {}
impl<T> Held for T {}

/// The borrows [`hold_aliases`] took; dropped (released) after the
/// detached section, attached.
pub(crate) struct AliasHolds<'py>(#[allow(dead_code)] Vec<Box<dyn Held + 'py>>);

/// Borrows a registered object (shared, or exclusively with `true`).
type HoldFn = for<'py> fn(Bound<'py, PyAny>, bool) -> PyResult<Box<dyn Held + 'py>>;

/// A live sketch object made by `wrap`: its memory range and a way to
/// borrow it. `object` is a borrowed pointer (no reference held): the entry
/// is removed by the object's `Image::drop`, the first thing its
/// deallocation does, and the registry is read with the GIL held.
struct WrapEntry {
    id: u64,
    start: usize,
    end: usize,
    object: *mut pyo3::ffi::PyObject,
    hold: HoldFn,
}

/// The live wrapped objects of this process.
struct Wraps(Vec<WrapEntry>);

// SAFETY: the pointers are only turned into objects with the GIL held
// (`hold_aliases`), while their entries exist (see `WrapEntry`).
unsafe impl Send for Wraps {}

static WRAPS: Mutex<Wraps> = Mutex::new(Wraps(Vec::new()));
static NEXT_ALIAS_ID: AtomicU64 = AtomicU64::new(1);

fn hold_object<'py, F>(object: Bound<'py, PyAny>, exclusive: bool) -> PyResult<Box<dyn Held + 'py>>
where
    F: pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::False>,
{
    let object = object.cast_into::<F>().map_err(PyErr::from)?;
    let busy = |e: PyErr| {
        pyo3::exceptions::PyRuntimeError::new_err(format!(
            "{e}: another sketch object wrapping the same memory is in use by another thread (objects \
             wrapping one buffer take one updating call at a time between them, as one object does)"
        ))
    };
    Ok(if exclusive {
        Box::new(object.try_borrow_mut().map_err(|e| busy(e.into()))?)
    } else {
        Box::new(object.try_borrow().map_err(|e| busy(e.into()))?)
    })
}

/// Records a new wrapped object (called by `wrap` once it exists).
fn register_wrap<F>(object: &Bound<'_, F>)
where
    F: Family + pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::False>,
{
    let this = object.borrow();
    let image = this.image();
    let start = image.raw.ptr as usize;
    let entry = WrapEntry {
        id: image.alias_id,
        start,
        end: start + image.raw.len,
        object: object.as_ptr(),
        hold: hold_object::<F>,
    };
    WRAPS.lock().unwrap_or_else(PoisonError::into_inner).0.push(entry);
}

/// Before a detached read or write of wrapped images: borrows every *other*
/// live sketch object of this process whose wrapped memory overlaps one of
/// them (shared for reads, exclusively when some use writes), so that no
/// other object over the same buffer (a second `wrap` of one mmap, NumPy
/// array or shared memory) reads or writes it meanwhile: its calls raise
/// RuntimeError ("Already borrowed") as a second call on one object does,
/// and when one of them is in a call already, this raises RuntimeError
/// and nothing runs. The images of `uses` are already borrowed by the
/// calling method and are not borrowed again. Without this, two objects
/// over one buffer updated from two threads lost updates (Count-Min
/// counts below the true count, Bloom bits and so false negatives).
pub(crate) fn hold_aliases<'py>(py: Python<'py>, uses: &[(&Image, bool)]) -> PyResult<AliasHolds<'py>> {
    let mut holds = AliasHolds(Vec::new());
    if uses.iter().all(|(image, _)| image.alias_id == 0) {
        return Ok(holds);
    }
    let mut others: Vec<(Bound<'py, PyAny>, HoldFn, bool)> = Vec::new();
    {
        let wraps = WRAPS.lock().unwrap_or_else(PoisonError::into_inner);
        for e in &wraps.0 {
            if uses.iter().any(|(image, _)| image.alias_id == e.id) {
                continue;
            }
            let mut need: Option<bool> = None;
            for (image, exclusive) in uses {
                let (a, len) = (image.raw.ptr as usize, image.raw.len);
                if image.alias_id != 0 && len != 0 && a < e.end && e.start < a + len {
                    need = Some(need.unwrap_or(false) || *exclusive);
                }
            }
            if let Some(exclusive) = need {
                // SAFETY: the entry exists, so the object is alive (its
                // deallocation removes the entry first), and the GIL is held.
                let object = unsafe { Bound::from_borrowed_ptr(py, e.object) };
                others.push((object, e.hold, exclusive));
            }
        }
    }
    for (object, hold, exclusive) in others {
        holds.0.push(hold(object, exclusive)?);
    }
    Ok(holds)
}

/// What every family tells the shared code: how to validate, export and
/// import its images.
pub(crate) trait Family: Sized + Send + Sync + 'static {
    /// Validates a live image (zero-copy wrap).
    fn check(buf: &[u8]) -> Result<(), Error>;
    /// Checks exported bytes (checksum and body).
    fn verify(bytes: &[u8]) -> Result<(), Error>;
    /// Checked import into an aligned buffer of [`Family::live_len`] bytes.
    fn import(src: &[u8], dst: &mut [u8]) -> Result<usize, Error>;
    /// Export with checksum.
    fn export(src: &[u8], dst: &mut [u8]) -> Result<usize, Error>;
    /// Bytes `export` writes.
    fn exported_len(src: &[u8]) -> Result<usize, Error> {
        image::inspect(src).map(|h| h.image_len)
    }
    /// Bytes of the live image that exported `bytes` import into (the
    /// core's `<family>::import_len`: headers and exact length checked; a
    /// compact HyperLogLog export imports into its full image).
    fn live_len(bytes: &[u8]) -> Result<usize, Error>;
    /// The object's image.
    fn image(&self) -> &Image;
    /// The object's image, mutably.
    fn image_mut(&mut self) -> &mut Image;
    /// A Python object of the family around an image.
    fn from_image(image: Image) -> Self;
}

/// `Family.from_bytes(data)`: verify and import into a fresh aligned image.
pub(crate) fn from_bytes<F: Family>(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<F> {
    let src = PyBuf::get(data)?;
    let raw = src.raw();
    // SAFETY: the export is held by `src` for this function.
    let len = F::live_len(unsafe { raw.bytes() }).raise(py)?;
    let image = Image::zeroed(len)?;
    let dst = image.raw;
    py.detach(move || {
        // SAFETY: src held, dst freshly owned; distinct allocations.
        F::import(unsafe { raw.bytes() }, unsafe { dst.bytes_mut() })
    })
    .raise(py)?;
    Ok(F::from_image(image))
}

/// `Family.wrap(buffer)`: zero-copy over a Python buffer, header validated once.
pub(crate) fn wrap<'py, F>(py: Python<'py>, buffer: &Bound<'py, PyAny>) -> PyResult<Bound<'py, F>>
where
    F: Family + pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::False> + Into<PyClassInitializer<F>>,
{
    let image = Image::borrowed(buffer)?;
    match F::check(image.bytes()) {
        Err(Error::Misaligned) => Err(Error::Misaligned).raise_hint(py, ALIGN_HINT),
        other => other.raise(py),
    }?;
    let object = Bound::new(py, F::from_image(image))?;
    register_wrap(&object);
    Ok(object)
}

/// `bytes(sketch)`: the exported image with its checksum.
pub(crate) fn export<'py, F: Family>(py: Python<'py>, sketch: &F) -> PyResult<Bound<'py, PyBytes>> {
    let src = sketch.image().raw();
    // SAFETY: borrowed by the caller for this call.
    let len = F::exported_len(unsafe { src.bytes() }).raise(py)?;
    let _aliases = sketch.image().hold(py, false)?;
    PyBytes::new_with(py, len, |dst| {
        let out = Raw { ptr: dst.as_mut_ptr(), len: dst.len() };
        py.detach(move || {
            // SAFETY: src borrowed, out is the fresh bytes object's memory.
            F::export(unsafe { src.bytes() }, unsafe { out.bytes_mut() })
        })
        .raise(py)
        .map(|_| ())
    })
}

/// Byte offset of the checksum field in the common header (SPEC.md section
/// 2; the core's `image::export` writes the checksum there).
const OFF_CHECKSUM: usize = 32;

/// `sketch.write_to(f)`'s native part (`sketches._stream.write_to`): calls
/// `emit(chunk, total)` with the bytes of `bytes(sketch)`, in order, as
/// fresh `bytes` objects of at most `chunk_bytes` bytes each (the first one
/// starting with the 48-byte common header) and the export's length
/// `total`, and returns that length in bytes.
///
/// No copy of the image is made: the checksum is the core's
/// (`image::checksum`, computed on the live image in place, which the
/// export equals but for its checksum field), the header is sealed in a
/// 48-byte copy, and each chunk is copied out of the live image just
/// before its `emit`. A compact export (a small-mode HyperLogLog, at most
/// `48 + 8 * 1024` bytes) is made by the core's export into one buffer.
/// Peak memory: one chunk (plus that compact buffer), whatever the image.
///
/// Consistency: the caller (a `&self` method) keeps the sketch borrowed
/// until the last `emit` returned, and this keeps every other object
/// wrapping the same memory borrowed too (`hold`), so an update from
/// another thread meanwhile raises RuntimeError and the chunks are all of
/// the image that was checksummed. Writes to a wrapped buffer by other code
/// (the array itself, another process) are not held off, as for every
/// call; a byte they change after the checksum and before its chunk is
/// copied makes the written image fail its checksum on read
/// (`CHECKSUM_MISMATCH`), never a torn image under a valid one.
///
/// Errors: the live image's, as `bytes(sketch)` raises them, before the
/// first `emit`; ValueError for `chunk_bytes` below 48; whatever `emit`
/// raises, passed through (nothing more is emitted).
pub(crate) fn write_chunks<F: Family>(
    py: Python<'_>,
    sketch: &F,
    emit: &Bound<'_, PyAny>,
    chunk_bytes: usize,
) -> PyResult<usize> {
    if chunk_bytes < image::COMMON_HEADER_LEN {
        return Err(PyValueError::new_err(format!(
            "chunk_bytes must be at least {} (the common header), not {chunk_bytes}",
            image::COMMON_HEADER_LEN
        )));
    }
    let live = sketch.image();
    let src = live.raw();
    // SAFETY: the sketch is borrowed by the caller for this call.
    let exported = F::exported_len(unsafe { src.bytes() }).raise(py)?;
    let _aliases = live.hold(py, false)?;
    if exported != live.image_len() {
        // The compact export of a small-mode HyperLogLog: made whole.
        let data = export(py, sketch)?;
        let all = data.as_bytes();
        for start in (0..all.len()).step_by(chunk_bytes) {
            let end = all.len().min(start + chunk_bytes);
            emit.call1((PyBytes::new(py, &all[start..end]), all.len()))?;
        }
        return Ok(all.len());
    }
    // The image bytes, checked by `exported_len` to lie in the area.
    let whole = Raw { ptr: src.ptr, len: exported.min(src.len) };
    let mut head = [0u8; image::COMMON_HEADER_LEN];
    // SAFETY: as above (borrowed, every alias held: nothing of ours writes it).
    let sum = py.detach(move || image::checksum(unsafe { whole.bytes() }));
    // SAFETY: as above.
    head.copy_from_slice(&unsafe { whole.bytes() }[..image::COMMON_HEADER_LEN]);
    head[OFF_CHECKSUM..OFF_CHECKSUM + 8].copy_from_slice(&sum.to_le_bytes());
    let mut start = 0;
    while start < whole.len {
        let end = whole.len.min(start + chunk_bytes);
        let chunk = PyBytes::new_with(py, end - start, |dst| {
            let out = Raw { ptr: dst.as_mut_ptr(), len: dst.len() };
            py.detach(move || {
                // SAFETY: the image as above; `out` is the fresh bytes object's memory.
                unsafe { out.bytes_mut() }.copy_from_slice(&unsafe { whole.bytes() }[start..end]);
            });
            if start == 0 {
                dst[..head.len()].copy_from_slice(&head);
            }
            Ok(())
        })?;
        emit.call1((chunk, whole.len))?;
        start = end;
    }
    Ok(whole.len)
}

/// Runs a binary operation (merge, union, intersection) of `other` into
/// `target`. When both are the same object or their memory overlaps, the
/// source is copied first. Runs detached.
pub(crate) fn merge_into<F>(
    py: Python<'_>,
    target: &Bound<'_, F>,
    other: &Bound<'_, F>,
    op: impl FnOnce(&mut [u8], &[u8]) -> Result<(), Error> + Send,
) -> PyResult<()>
where
    F: Family + pyo3::PyClass<Frozen = pyo3::pyclass::boolean_struct::False>,
{
    let same = target.as_any().is(other.as_any());
    // Same object, or two objects wrapping overlapping memory: merge from a
    // private copy (held in `copy` until the merge returns).
    // Borrows are tried, not forced: another thread's update running on
    // either object gives RuntimeError("Already ... borrowed"), not a panic.
    let copy = if same || other.try_borrow()?.image().raw().overlaps(target.try_borrow()?.image().raw()) {
        Some(other.try_borrow()?.image().duplicate(py)?)
    } else {
        None
    };
    // Keep `other` borrowed (its memory alive and unchanged) during the call
    // (not when merging from the private copy: `other` may then be an alias
    // of `target`, which is borrowed exclusively below).
    let other_guard = if copy.is_some() { None } else { Some(other.try_borrow()?) };
    let src = match (&copy, &other_guard) {
        (Some(c), _) => c.raw(),
        (None, Some(o)) => o.image().raw(),
        (None, None) => unreachable!("the same object is always copied"),
    };
    let mut t = target.try_borrow_mut()?;
    let dst = t.image_mut().writable_raw()?;
    let _aliases = match &other_guard {
        Some(o) => hold_aliases(py, &[(t.image(), true), (o.image(), false)])?,
        None => t.image().hold(py, true)?,
    };
    let result = py.detach(move || {
        // SAFETY: dst exclusively borrowed; src borrowed shared (or a private copy);
        // they do not overlap (checked above).
        op(unsafe { dst.bytes_mut() }, unsafe { src.bytes() })
    });
    drop(other_guard);
    drop(copy);
    result.raise(py)
}

/// The seed of an image (every family has them in the common header).
pub(crate) fn header_seed(image: &Image) -> u64 {
    image::inspect(image.bytes()).map_or(0, |h| h.seed)
}

// ----------------------------------------------------------------- keys

/// An integer key: 0 .. 2^64-1 as is, -2^63 .. -1 as their two's complement
/// (so an int64 column and a uint64 column holding the same bits agree).
pub(crate) fn int_key(key: &Bound<'_, PyAny>) -> PyResult<u64> {
    if let Ok(v) = key.extract::<u64>() {
        return Ok(v);
    }
    match key.extract::<i64>() {
        Ok(v) => Ok(v as u64),
        Err(_) => {
            Err(PyOverflowError::new_err("integer keys must be in -2**63 .. 2**64-1 (8 little-endian bytes)"))
        }
    }
}

/// A 64-bit unsigned argument given as a Python integer: a weight
/// (`CountMinSketch.add`, `TopK.add`) or a precomputed hash (`add_hash`,
/// `contains_hash`). Ints and objects with `__index__` (NumPy integers) in
/// 0 .. 2**64-1 pass; a value outside it raises ValueError naming it (as
/// the batch forms do: one exception type for a bad value, single or in a
/// batch); a bool (Python or NumPy) or a non-integer raises TypeError
/// (`add("k", True)` is not the weight 1, as C++ does not compile a bool
/// weight). Nothing changes when it fails.
fn unsigned_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    let py = obj.py();
    let type_name = || obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    if obj.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "a {what} is an integer in 0 .. 2**64-1, not a bool ({}); pass int(value) to mean 0 or 1",
            obj.repr()?
        )));
    }
    match obj.extract::<u64>() {
        Ok(v) => Ok(v),
        Err(e) if e.is_instance_of::<PyOverflowError>(py) => {
            // Shown as the int it is (a NumPy scalar's repr is np.int64(-1)).
            let value = py.get_type::<PyInt>().call1((obj,))?;
            Err(PyValueError::new_err(format!(
                "{what} {value} is out of range: a {what} is an integer in 0 .. 2**64-1 (nothing changed)"
            )))
        }
        Err(_) => Err(PyTypeError::new_err(format!(
            "a {what} is an integer in 0 .. 2**64-1, not {} ({})",
            type_name(),
            obj.repr()?
        ))),
    }
}

/// A weight argument: see [`unsigned_arg`] (ValueError out of 0 ..
/// 2**64-1, TypeError for a bool or a non-integer).
#[derive(Copy, Clone)]
pub(crate) struct Weight(pub u64);

impl<'a, 'py> FromPyObject<'a, 'py> for Weight {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        unsigned_arg(&obj, "weight").map(Weight)
    }
}

/// A precomputed 64-bit hash argument: see [`unsigned_arg`].
#[derive(Copy, Clone)]
pub(crate) struct Hash64(pub u64);

impl<'a, 'py> FromPyObject<'a, 'py> for Hash64 {
    type Error = PyErr;
    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        unsigned_arg(&obj, "hash").map(Hash64)
    }
}

/// Calls `f` with the bytes of one key: `str` as UTF-8, `bytes` / `bytearray`
/// / `memoryview` (any contiguous buffer) as they are, `int` (and NumPy
/// integer scalars) as 8 little-endian bytes.
#[inline]
pub(crate) fn with_key<R>(key: &Bound<'_, PyAny>, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if let Ok(s) = key.cast::<PyString>() {
        return Ok(f(s.to_str()?.as_bytes()));
    }
    if let Ok(b) = key.cast::<PyBytes>() {
        return Ok(f(b.as_bytes()));
    }
    if key.is_instance_of::<PyInt>() {
        if key.is_instance_of::<PyBool>() {
            return Err(bool_key_error(key));
        }
        return Ok(f(&int_key(key)?.to_le_bytes()));
    }
    // A buffer of one or more dimensions (bytearray, memoryview, a NumPy
    // array such as np.frombuffer(...)) is bytes-like, whatever __index__ it
    // has; NumPy integer scalars and 0-d arrays are the ints they hold.
    let buffer = PyUntypedBuffer::get(key).ok();
    if let Some(buf) = buffer.as_ref().filter(|b| b.dimensions() >= 1) {
        return buffer_key(buf, f);
    }
    // NumPy integer scalars and other objects with __index__ (floats have none).
    if key.hasattr(pyo3::intern!(key.py(), "__index__"))? {
        let index = key.call_method0(pyo3::intern!(key.py(), "__index__"))?;
        return Ok(f(&int_key(&index)?.to_le_bytes()));
    }
    match buffer {
        Some(buf) => buffer_key(&buf, f),
        None => Err(key_type_error(key)),
    }
}

/// The bytes of a bytes-like key (its export held during `f`).
fn buffer_key<R>(buf: &PyUntypedBuffer, f: impl FnOnce(&[u8]) -> R) -> PyResult<R> {
    if !buf.is_c_contiguous() {
        // A strided view (memoryview(b)[::2], a NumPy column slice) is
        // bytes-like but has no one run of bytes to hash.
        return Err(PyValueError::new_err(
            "a bytes-like key must be C-contiguous (a strided memoryview or array: bytes(key) copies it)",
        ));
    }
    let raw = Raw { ptr: buf.buf_ptr().cast(), len: buf.len_bytes() };
    // SAFETY: the export is held by `buf` (borrowed by the caller) during `f`.
    Ok(f(unsafe { raw.bytes() }))
}

/// `with_key` for a key hashed by `hasher`: a Parquet-mode split-block
/// filter (XXH64 seed 0, the only hasher of that kind here) hashes a key as
/// the Parquet value whose bytes it is, so a key must say its width: str
/// and bytes-like keys (BYTE_ARRAY) and NumPy 64-bit integer scalars (INT64)
/// pass; a Python int (or bool), a narrower NumPy integer or a float does
/// not (an INT32 column's value hashed as INT64 answers False, silently)
/// and raises TypeError naming the typed `parquet_hash_*` functions.
#[inline]
pub(crate) fn with_key_for<R>(
    hasher: KeyHasher,
    key: &Bound<'_, PyAny>,
    f: impl FnOnce(&[u8]) -> R,
) -> PyResult<R> {
    if hasher.kind == HashKind::Xxh64 {
        parquet_key_check(key)?;
    }
    with_key(key, f)
}

/// See `with_key_for`.
fn parquet_key_check(key: &Bound<'_, PyAny>) -> PyResult<()> {
    if key.is_instance_of::<PyString>() || key.is_instance_of::<PyBytes>() {
        return Ok(());
    }
    let py = key.py();
    let what = if key.is_instance_of::<PyInt>() {
        "a Python int (no width: INT32 or INT64?)"
    } else if key.is_instance_of::<PyFloat>() {
        "a float (FLOAT or DOUBLE?)"
    } else if PyUntypedBuffer::get(key).is_ok_and(|b| b.dimensions() >= 1) {
        // Bytes-like (a NumPy byte array too): a BYTE_ARRAY value.
        return Ok(());
    } else if key.hasattr(pyo3::intern!(py, "__index__"))? || key.hasattr(pyo3::intern!(py, "__float__"))? {
        // NumPy scalars say their type: 64-bit integers are INT64 values.
        let dtype = key.getattr(pyo3::intern!(py, "dtype")).ok();
        let kind_size = dtype.and_then(|d| {
            let kind: String = d.getattr(pyo3::intern!(py, "kind")).ok()?.extract().ok()?;
            let size: usize = d.getattr(pyo3::intern!(py, "itemsize")).ok()?.extract().ok()?;
            Some((kind, size))
        });
        match kind_size {
            Some((kind, 8)) if kind == "i" || kind == "u" => return Ok(()),
            Some((kind, _)) if kind == "i" || kind == "u" => {
                "an integer narrower than 64 bits (stored as INT32)"
            }
            _ => "a number of no Parquet type here",
        }
    } else {
        return Ok(());
    };
    let name = key.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    Err(PyTypeError::new_err(format!(
        "a Parquet hash is the hash of a typed Parquet value, and {what} is ambiguous as a key \
         ({name}): use add_hash/contains_hash with sketches.parquet_hash_int32(v) (INT32, DATE, \
         narrower ints), parquet_hash_int64(v), parquet_hash_float(v) or parquet_hash_double(v), \
         or add_hashes/contains_hashes(parquet_hash_many(typed array)) for a batch \
         (np.asarray(values, np.int32) for an INT32 column); str, bytes and \
         NumPy int64/uint64 values are keys as they are"
    )))
}

/// TypeError for a bool key: `True` is not silently the integer key 1 (a
/// NumPy bool scalar or array and a pyarrow bool column are refused as
/// keys too, and C++ does not compile a bool key).
fn bool_key_error(key: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "a bool is not a key ({}): pass int(value) for the integer key 0 or 1, or str(value)",
        key.repr().map(|r| r.to_string()).unwrap_or_default()
    ))
}

fn key_type_error(key: &Bound<'_, PyAny>) -> PyErr {
    let name = key.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    PyTypeError::new_err(format!("a key is str, bytes-like or int, not {name}"))
}

/// Keys hashed per chunk in batch calls.
pub(crate) const CHUNK: usize = 256;

#[derive(Copy, Clone, PartialEq, Eq)]
enum PieceKind {
    /// Arrow Binary/String: int32 offsets.
    Bin32,
    /// Arrow LargeBinary/LargeString: int64 offsets.
    Bin64,
    /// 64-bit integers (NumPy int64/uint64, Arrow Int64/UInt64 values).
    Ints,
}

/// One zero-copy column of keys.
struct Piece {
    kind: PieceKind,
    validity: Option<PyBuf>,
    offsets: Option<PyBuf>,
    data: Option<PyBuf>,
    /// Index of the first element in the buffers (Arrow `offset`).
    offset: usize,
    len: usize,
    /// Position of its first key in the batch output.
    out_start: usize,
}

fn raw_of(b: &Option<PyBuf>) -> Raw {
    b.as_ref().map_or(Raw::EMPTY, PyBuf::raw)
}

impl Piece {
    /// Checks lengths and offsets (before anything changes): offsets
    /// non-decreasing and within the data, buffers long enough.
    fn validate(&self) -> Result<(), String> {
        let end = self.offset.checked_add(self.len).ok_or("length overflow")?;
        // SAFETY: exports held by self.
        let validity = unsafe { raw_of(&self.validity).bytes() };
        if self.validity.is_some() && validity.len() * 8 < end {
            return Err("validity bitmap shorter than the array".into());
        }
        let data = unsafe { raw_of(&self.data).bytes() };
        match self.kind {
            PieceKind::Ints => {
                if data.len() / 8 < end {
                    return Err("integer buffer shorter than the array".into());
                }
            }
            PieceKind::Bin32 | PieceKind::Bin64 => {
                let offsets = unsafe { raw_of(&self.offsets).bytes() };
                let w = if self.kind == PieceKind::Bin32 { 4 } else { 8 };
                if self.len > 0 && offsets.len() / w < end + 1 {
                    return Err("offsets buffer shorter than the array".into());
                }
                let mut previous = 0i64;
                for i in self.offset..(if self.len > 0 { end + 1 } else { self.offset }) {
                    let o = self.read_offset(offsets, i);
                    if o < 0 || (i > self.offset && o < previous) || o as u64 > data.len() as u64 {
                        return Err("offsets decreasing, negative or past the data".into());
                    }
                    previous = o;
                }
            }
        }
        Ok(())
    }

    #[inline(always)]
    fn read_offset(&self, offsets: &[u8], i: usize) -> i64 {
        if self.kind == PieceKind::Bin32 {
            let b = offsets.get(i * 4..i * 4 + 4).and_then(|s| s.try_into().ok()).unwrap_or([0; 4]);
            i64::from(i32::from_ne_bytes(b))
        } else {
            let b = offsets.get(i * 8..i * 8 + 8).and_then(|s| s.try_into().ok()).unwrap_or([0; 8]);
            i64::from_ne_bytes(b)
        }
    }

    #[inline(always)]
    fn is_valid(validity: Option<&[u8]>, i: usize) -> bool {
        match validity {
            None => true,
            Some(v) => v.get(i >> 3).is_some_and(|b| (b >> (i & 7)) & 1 == 1),
        }
    }

    /// Calls `f(position, key bytes)` for every non-null key.
    fn for_each_key(&self, mut f: impl FnMut(usize, &[u8]) -> Result<(), Error>) -> Result<(), Error> {
        // SAFETY: exports held by self for the call.
        let validity = self.validity.as_ref().map(|v| unsafe { v.raw().bytes() });
        let data = unsafe { raw_of(&self.data).bytes() };
        let offsets = unsafe { raw_of(&self.offsets).bytes() };
        for j in 0..self.len {
            let i = self.offset + j;
            if !Self::is_valid(validity, i) {
                continue;
            }
            let pos = self.out_start + j;
            match self.kind {
                PieceKind::Ints => {
                    let b: [u8; 8] =
                        data.get(i * 8..i * 8 + 8).and_then(|s| s.try_into().ok()).unwrap_or([0; 8]);
                    f(pos, &u64::from_ne_bytes(b).to_le_bytes())?;
                }
                _ => {
                    let (s, e) =
                        (self.read_offset(offsets, i) as usize, self.read_offset(offsets, i + 1) as usize);
                    f(pos, data.get(s..e).unwrap_or(&[]))?;
                }
            }
        }
        Ok(())
    }

    /// Hashes the keys chunk by chunk and hands each chunk to `sink`.
    fn for_hashed_chunks(
        &self,
        hasher: KeyHasher,
        sink: &mut impl FnMut(Positions<'_>, &[u64]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        // SAFETY: exports held by self for the call.
        let validity = self.validity.as_ref().map(|v| unsafe { v.raw().bytes() });
        let data = unsafe { raw_of(&self.data).bytes() };
        let offsets = unsafe { raw_of(&self.offsets).bytes() };
        let mut hashes = [0u64; CHUNK];
        let mut positions = [0usize; CHUNK];
        let mut j = 0;
        while j < self.len {
            let n = (self.len - j).min(CHUNK);
            if validity.is_none() {
                for (k, h) in hashes[..n].iter_mut().enumerate() {
                    let i = self.offset + j + k;
                    *h = self.hash_at(hasher, data, offsets, i);
                }
                sink(Positions::Run(self.out_start + j), &hashes[..n])?;
            } else {
                let mut m = 0;
                for k in 0..n {
                    let i = self.offset + j + k;
                    if Self::is_valid(validity, i) {
                        hashes[m] = self.hash_at(hasher, data, offsets, i);
                        positions[m] = self.out_start + j + k;
                        m += 1;
                    }
                }
                if m > 0 {
                    sink(Positions::At(&positions[..m]), &hashes[..m])?;
                }
            }
            j += n;
        }
        Ok(())
    }

    #[inline(always)]
    fn hash_at(&self, hasher: KeyHasher, data: &[u8], offsets: &[u8], i: usize) -> u64 {
        match self.kind {
            PieceKind::Ints => {
                let b: [u8; 8] = data.get(i * 8..i * 8 + 8).and_then(|s| s.try_into().ok()).unwrap_or([0; 8]);
                hasher.hash(&u64::from_ne_bytes(b).to_le_bytes())
            }
            _ => {
                let (s, e) =
                    (self.read_offset(offsets, i) as usize, self.read_offset(offsets, i + 1) as usize);
                hasher.hash(data.get(s..e).unwrap_or(&[]))
            }
        }
    }
}

/// Where the results of a chunk of hashes go in the batch output.
#[derive(Copy, Clone)]
pub(crate) enum Positions<'a> {
    /// Consecutive positions from this one.
    Run(usize),
    /// These positions (nulls were skipped).
    At(&'a [usize]),
}

impl Positions<'_> {
    /// Writes `values[i]` to its position in `out`.
    #[inline(always)]
    pub(crate) fn scatter<T: Copy>(self, out: &mut [T], values: &[T]) {
        match self {
            Positions::Run(start) => {
                if let Some(o) = out.get_mut(start..start + values.len()) {
                    o.copy_from_slice(values);
                }
            }
            Positions::At(at) => {
                for (&p, &v) in at.iter().zip(values) {
                    if let Some(o) = out.get_mut(p) {
                        *o = v;
                    }
                }
            }
        }
    }

    /// The values at these positions of `input`, gathered into `out`.
    #[inline(always)]
    pub(crate) fn gather<'o, T: Copy + Default>(
        self,
        input: &[T],
        out: &'o mut [T; CHUNK],
        n: usize,
    ) -> &'o [T] {
        match self {
            Positions::Run(start) => {
                out[..n].copy_from_slice(input.get(start..start + n).unwrap_or(&[]));
            }
            Positions::At(at) => {
                for (o, &p) in out.iter_mut().zip(at) {
                    *o = input.get(p).copied().unwrap_or_default();
                }
            }
        }
        &out[..n]
    }
}

/// How a batch handles Python lists: hash every key while attached (the
/// families that keep only hashes), or pack the key bytes (Top-k keeps keys).
#[derive(Copy, Clone)]
pub(crate) enum ListMode {
    Hash(KeyHasher),
    Pack,
}

/// A batch of keys from Python, ready for a detached core call.
pub(crate) struct Batch {
    count: usize,
    /// Hashes of list keys (`ListMode::Hash`), with their positions when
    /// some entries were `None`.
    hashed: Vec<(Vec<u64>, Option<Vec<usize>>, usize)>,
    /// Packed list keys (`ListMode::Pack`): data, end offsets, positions, out_start.
    packed: Vec<(Vec<u8>, Vec<usize>, Vec<usize>)>,
    pieces: Vec<Piece>,
}

static PIECES: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn int64_format(format: &std::ffi::CStr) -> bool {
    let f = format.to_bytes();
    let (prefix, last) = match f.split_last() {
        Some((l, p)) => (p, *l),
        None => return false,
    };
    (prefix.is_empty() || prefix == b"<" || prefix == b"=" || prefix == b"@")
        && matches!(last, b'q' | b'Q' | b'l' | b'L' | b'n' | b'N')
}

impl Batch {
    /// Number of keys (output length; nulls included).
    pub(crate) fn len(&self) -> usize {
        self.count
    }

    /// Reads a batch: a list or tuple of keys (`None` entries are nulls), a
    /// NumPy integer array, a pyarrow Array/ChunkedArray (Binary, String,
    /// LargeBinary, LargeString, integers; nulls skipped), or any iterable.
    pub(crate) fn extract(keys: &Bound<'_, PyAny>, mode: ListMode) -> PyResult<Batch> {
        let mut batch = Batch { count: 0, hashed: Vec::new(), packed: Vec::new(), pieces: Vec::new() };
        if keys.is_instance_of::<PyString>() || keys.is_instance_of::<PyBytes>() {
            return Err(PyTypeError::new_err(
                "batch methods take a sequence of keys (list, NumPy array, pyarrow array); use add()/in for one key",
            ));
        }
        if let Ok(list) = keys.cast::<PyList>() {
            batch.push_seq(list.as_any(), list.len(), mode)?;
            return Ok(batch);
        }
        if let Ok(t) = keys.cast::<PyTuple>() {
            batch.push_seq(t.as_any(), t.len(), mode)?;
            return Ok(batch);
        }
        // NumPy int64/uint64 (and anything exporting 1-D 8-byte integers): zero-copy.
        if !keys.hasattr(pyo3::intern!(keys.py(), "buffers"))? {
            if let Ok(buf) = PyBuf::get(keys) {
                if buf.dims() == 1 && buf.item_size() == 8 && int64_format(buf.format()) {
                    let len = buf.raw().len / 8;
                    batch.pieces.push(Piece {
                        kind: PieceKind::Ints,
                        validity: None,
                        offsets: None,
                        data: Some(buf),
                        offset: 0,
                        len,
                        out_start: 0,
                    });
                    batch.count = len;
                    return Ok(batch);
                }
            }
        }
        let py = keys.py();
        let describe = PIECES.import(py, "sketches._keys", "pieces")?;
        let pieces = describe.call1((keys,))?;
        for item in pieces.try_iter()? {
            let item = item?;
            let t = item.cast::<PyTuple>()?;
            let kind: String = t.get_item(0)?.extract()?;
            if kind == "list" {
                let seq = t.get_item(1)?;
                let n = seq.len()?;
                batch.push_seq(&seq, n, mode)?;
                continue;
            }
            let kind = match kind.as_str() {
                "bin32" => PieceKind::Bin32,
                "bin64" => PieceKind::Bin64,
                "ints" => PieceKind::Ints,
                _ => return Err(PyValueError::new_err("unknown key piece")),
            };
            let opt = |i: usize| -> PyResult<Option<PyBuf>> {
                let o = t.get_item(i)?;
                if o.is_none() {
                    Ok(None)
                } else {
                    PyBuf::get(&o).map(Some)
                }
            };
            let piece = Piece {
                kind,
                validity: opt(1)?,
                offsets: opt(2)?,
                data: opt(3)?,
                offset: t.get_item(4)?.extract()?,
                len: t.get_item(5)?.extract()?,
                out_start: batch.count,
            };
            piece.validate().map_err(PyValueError::new_err)?;
            batch.count += piece.len;
            batch.pieces.push(piece);
        }
        Ok(batch)
    }

    fn push_seq(&mut self, seq: &Bound<'_, PyAny>, n: usize, mode: ListMode) -> PyResult<()> {
        let start = self.count;
        let none = seq.py().None();
        let none = none.bind(seq.py());
        match mode {
            ListMode::Hash(hasher) => {
                let mut hashes = Vec::with_capacity(n);
                let mut positions: Option<Vec<usize>> = None;
                let mut each = |i: usize, key: Bound<'_, PyAny>| -> PyResult<()> {
                    if key.is(none) {
                        // First null: the keys so far sat at consecutive positions.
                        positions.get_or_insert_with(|| (start..start + hashes.len()).collect());
                        return Ok(());
                    }
                    hashes.push(with_key_for(hasher, &key, |k| hasher.hash(k))?);
                    if let Some(p) = positions.as_mut() {
                        p.push(start + i);
                    }
                    Ok(())
                };
                iterate(seq, n, &mut each)?;
                self.hashed.push((hashes, positions, start));
            }
            ListMode::Pack => {
                let mut data = Vec::new();
                let mut ends = Vec::with_capacity(n);
                let mut positions = Vec::with_capacity(n);
                iterate(seq, n, &mut |i, key| {
                    if key.is(none) {
                        return Ok(());
                    }
                    with_key(&key, |k| data.extend_from_slice(k))?;
                    ends.push(data.len());
                    positions.push(start + i);
                    Ok(())
                })?;
                self.packed.push((data, ends, positions));
            }
        }
        self.count += n;
        Ok(())
    }

    /// Hashes every non-null key, chunk by chunk, in batch order.
    pub(crate) fn for_hashed_chunks(
        &self,
        hasher: KeyHasher,
        mut sink: impl FnMut(Positions<'_>, &[u64]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        for (hashes, positions, start) in &self.hashed {
            for (c, chunk) in hashes.chunks(CHUNK).enumerate() {
                match positions {
                    None => sink(Positions::Run(start + c * CHUNK), chunk)?,
                    Some(p) => sink(Positions::At(&p[c * CHUNK..c * CHUNK + chunk.len()]), chunk)?,
                }
            }
        }
        for (data, ends, positions) in &self.packed {
            let mut hashes = [0u64; CHUNK];
            let mut begin = 0;
            for (c, chunk) in ends.chunks(CHUNK).enumerate() {
                for (h, &e) in hashes.iter_mut().zip(chunk) {
                    *h = hasher.hash(&data[begin..e]);
                    begin = e;
                }
                sink(Positions::At(&positions[c * CHUNK..c * CHUNK + chunk.len()]), &hashes[..chunk.len()])?;
            }
        }
        for piece in &self.pieces {
            piece.for_hashed_chunks(hasher, &mut sink)?;
        }
        Ok(())
    }

    /// Calls `f(position, key)` for every non-null key in batch order (packed
    /// lists and zero-copy columns; a batch extracted with `ListMode::Pack`).
    pub(crate) fn for_each_key(
        &self,
        mut f: impl FnMut(usize, &[u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        for (data, ends, positions) in &self.packed {
            let mut begin = 0;
            for (&e, &p) in ends.iter().zip(positions) {
                f(p, &data[begin..e])?;
                begin = e;
            }
        }
        for piece in &self.pieces {
            piece.for_each_key(&mut f)?;
        }
        Ok(())
    }
}

fn iterate<'py>(
    seq: &Bound<'py, PyAny>,
    n: usize,
    f: &mut impl FnMut(usize, Bound<'py, PyAny>) -> PyResult<()>,
) -> PyResult<()> {
    if let Ok(list) = seq.cast::<PyList>() {
        // A list may change size while keys are read (a key's __index__
        // could mutate it): read by index and stop at its current length.
        let mut i = 0;
        while i < n.min(list.len()) {
            f(i, list.get_item(i)?)?;
            i += 1;
        }
        if i != n {
            return Err(PyValueError::new_err("the key list changed size while it was read"));
        }
        return Ok(());
    }
    if let Ok(t) = seq.cast::<PyTuple>() {
        for (i, k) in t.iter().enumerate() {
            f(i, k)?;
        }
        return Ok(());
    }
    for (i, k) in seq.try_iter()?.enumerate() {
        f(i, k?)?;
    }
    Ok(())
}

// -------------------------------------------------------------- outputs

static ZEROS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A batch of keys (list, NumPy array, pyarrow column) hashed with `hasher`
/// into a new NumPy uint64 array (nulls give 0), without the GIL: the body
/// of `hash_many` and of `parquet_hash_many` for byte keys.
pub(crate) fn hashes_of<'py>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    hasher: KeyHasher,
) -> PyResult<Bound<'py, PyAny>> {
    let batch = Batch::extract(keys, ListMode::Hash(hasher))?;
    let (array, out) = numpy_zeros(py, batch.len(), "uint64")?;
    let raw = out.raw();
    py.detach(|| {
        // SAFETY: the array's export is held by `out` for the call.
        let out = unsafe { as_u64s_mut(raw) };
        batch.for_hashed_chunks(hasher, |pos, h| {
            pos.scatter(out, h);
            Ok(())
        })
    })
    .raise(py)?;
    drop(out);
    Ok(array)
}

/// A zero-filled NumPy array of `n` elements of `dtype` ("bool", "uint64",
/// "uint32") and its memory, for a detached call to fill.
pub(crate) fn numpy_zeros<'py>(
    py: Python<'py>,
    n: usize,
    dtype: &str,
) -> PyResult<(Bound<'py, PyAny>, PyBuf)> {
    let zeros = ZEROS.import(py, "numpy", "zeros")?;
    let array = zeros.call1((n, dtype))?;
    let buf = PyBuf::get(&array)?;
    Ok((array, buf))
}

/// Reads an optional per-key array of unsigned 64-bit values (weights) with
/// `n` entries, through `sketches._keys.u64_array` (converts, checks sign).
pub(crate) fn u64_values<'py>(
    py: Python<'py>,
    values: &Bound<'py, PyAny>,
    n: usize,
) -> PyResult<(Bound<'py, PyAny>, PyBuf)> {
    static CONVERT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let convert = CONVERT.import(py, "sketches._keys", "u64_array")?;
    let array = convert.call1((values, n))?;
    let buf = PyBuf::get_u64s(&array)?;
    Ok((array, buf))
}

/// Reinterprets an exported NumPy uint64 array as `&[u64]`.
///
/// # Safety
/// The export must be held for `'a` and hold native-endian u64 values.
pub(crate) unsafe fn as_u64s<'a>(raw: Raw) -> &'a [u64] {
    let (pre, mid, _) = unsafe { raw.bytes().align_to::<u64>() };
    if pre.is_empty() {
        mid
    } else {
        &[]
    }
}

/// Reinterprets an exported NumPy array of 8-byte values mutably.
///
/// # Safety
/// As [`as_u64s`], exclusively ours.
pub(crate) unsafe fn as_u64s_mut<'a>(raw: Raw) -> &'a mut [u64] {
    let (pre, mid, _) = unsafe { raw.bytes_mut().align_to_mut::<u64>() };
    if pre.is_empty() {
        mid
    } else {
        &mut []
    }
}

/// Reinterprets an exported NumPy bool array mutably.
///
/// # Safety
/// As [`as_u64s_mut`]; NumPy bools are one byte, 0 or 1.
pub(crate) unsafe fn as_bools_mut<'a>(raw: Raw) -> &'a mut [bool] {
    // SAFETY: bool has size and alignment 1; NumPy zero-fills (false) and
    // we write only true/false.
    unsafe { core::slice::from_raw_parts_mut(raw.ptr.cast::<bool>(), raw.len) }
}

// ------------------------------------------------------ batch drivers

/// An element type of a NumPy output array.
pub(crate) trait OutElem: Copy + Default + Send + 'static {
    /// NumPy dtype name.
    const DTYPE: &'static str;
    /// The exported array memory as a slice.
    ///
    /// # Safety
    /// The export must be held, C-contiguous, of this dtype, and ours alone.
    unsafe fn slice<'a>(raw: Raw) -> &'a mut [Self];
}

impl OutElem for bool {
    const DTYPE: &'static str = "bool";
    unsafe fn slice<'a>(raw: Raw) -> &'a mut [bool] {
        // SAFETY: caller contract.
        unsafe { as_bools_mut(raw) }
    }
}

impl OutElem for u64 {
    const DTYPE: &'static str = "uint64";
    unsafe fn slice<'a>(raw: Raw) -> &'a mut [u64] {
        // SAFETY: caller contract.
        unsafe { as_u64s_mut(raw) }
    }
}

/// A batch call with a per-key NumPy output: extracts the keys (lists
/// hashed while attached), allocates the zeroed output, then runs
/// `body(batch, out)` detached. Nulls keep the zero value. The memory
/// `body` works on is the caller's business (an image borrowed by the
/// calling method, or the atomic words of a `ConcurrentSketch`).
pub(crate) fn batch_with_output<'py, T: OutElem>(
    py: Python<'py>,
    keys: &Bound<'py, PyAny>,
    mode: ListMode,
    body: impl FnOnce(&Batch, &mut [T]) -> Result<(), Error> + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let batch = Batch::extract(keys, mode)?;
    let (array, out) = numpy_zeros(py, batch.len(), T::DTYPE)?;
    let out_raw = out.raw();
    py.detach(|| {
        // SAFETY: the output is a fresh array only this call knows, whose
        // export is held by `out` for the call.
        body(&batch, unsafe { T::slice(out_raw) })
    })
    .raise(py)?;
    drop(out);
    Ok(array)
}

/// A batch update with a per-key NumPy output (see [`batch_with_output`]):
/// runs `body(image, batch, out)` detached.
pub(crate) fn update_batch<'py, T: OutElem>(
    py: Python<'py>,
    image: &mut Image,
    keys: &Bound<'py, PyAny>,
    mode: ListMode,
    body: impl FnOnce(&mut [u8], &Batch, &mut [T]) -> Result<(), Error> + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let raw = image.writable_raw()?;
    let _aliases = image.hold(py, true)?;
    batch_with_output(py, keys, mode, move |batch, out| {
        // SAFETY: the image is exclusively borrowed by the calling method
        // (`&mut self`) for the whole call.
        body(unsafe { raw.bytes_mut() }, batch, out)
    })
}

/// A batch query with a per-key NumPy output (see [`batch_with_output`]);
/// the image is only read, so concurrent queries on one sketch run in parallel.
pub(crate) fn query_batch<'py, T: OutElem>(
    py: Python<'py>,
    image: &Image,
    keys: &Bound<'py, PyAny>,
    mode: ListMode,
    body: impl FnOnce(&[u8], &Batch, &mut [T]) -> Result<(), Error> + Send,
) -> PyResult<Bound<'py, PyAny>> {
    let raw = image.raw();
    let _aliases = image.hold(py, false)?;
    batch_with_output(py, keys, mode, move |batch, out| {
        // SAFETY: the image is borrowed (shared) by the calling method for
        // the whole call.
        body(unsafe { raw.bytes() }, batch, out)
    })
}

/// A batch update without per-key output (cardinality, MinHash).
pub(crate) fn update_batch_silent(
    py: Python<'_>,
    image: &mut Image,
    batch: &Batch,
    body: impl FnOnce(&mut [u8], &Batch) -> Result<(), Error> + Send,
) -> PyResult<()> {
    let raw = image.writable_raw()?;
    let _aliases = image.hold(py, true)?;
    py.detach(|| {
        // SAFETY: exclusively borrowed by the calling method.
        body(unsafe { raw.bytes_mut() }, batch)
    })
    .raise(py)
}

/// Runs a mutation of the whole image detached (clear, reset).
pub(crate) fn mutate(
    py: Python<'_>,
    image: &mut Image,
    body: impl FnOnce(&mut [u8]) -> Result<(), Error> + Send,
) -> PyResult<()> {
    let raw = image.writable_raw()?;
    let _aliases = image.hold(py, true)?;
    // SAFETY: exclusively borrowed by the calling method.
    py.detach(|| body(unsafe { raw.bytes_mut() })).raise(py)
}

/// `a | b`, `a + b`, `a & b`: a fresh copy of `target` with `other` merged in
/// by `op` (detached).
pub(crate) fn merged_copy<F>(
    py: Python<'_>,
    target: &Bound<'_, F>,
    other: &Bound<'_, F>,
    op: impl FnOnce(&mut [u8], &[u8]) -> Result<(), Error> + Send,
) -> PyResult<F>
where
    F: Family + pyo3::PyClass,
{
    let image = target.try_borrow()?.image().duplicate(py)?;
    let other = other.try_borrow()?;
    let (dst, src) = (image.raw(), other.image().raw());
    let _aliases = other.image().hold(py, false)?;
    // SAFETY: `image` is fresh and ours; `other` stays borrowed; distinct memory.
    py.detach(move || op(unsafe { dst.bytes_mut() }, unsafe { src.bytes() })).raise(py)?;
    Ok(F::from_image(image))
}

/// Python's spelling of a bool in reprs.
pub(crate) fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}
