//! The only place raw pointers become Rust references, and the panic guard
//! every exported function runs inside.

use crate::status::sketch_status;
use core::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A byte string passed from C: pointer and length. `ptr` may be NULL only
/// when `len` is 0.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sketch_slice {
    /// First byte (NULL allowed when `len` is 0).
    pub ptr: *const u8,
    /// Number of bytes.
    pub len: usize,
}

pub(crate) type Status = Result<(), sketch_status>;

/// Runs `body`, converting its error and any panic into a status, so nothing
/// unwinds into C.
pub(crate) fn guard(body: impl FnOnce() -> Status) -> sketch_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => sketch_status::SKETCH_OK,
        Ok(Err(status)) => status,
        Err(_) => sketch_status::SKETCH_INTERNAL_ERROR,
    }
}

/// Like [`guard`] for functions that return a value instead of a status.
pub(crate) fn guard_value<T>(fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or(fallback)
}

fn check(ptr: *const c_void, len: usize) -> Status {
    if ptr.is_null() && len != 0 {
        return Err(sketch_status::SKETCH_NULL_POINTER);
    }
    if len > isize::MAX as usize {
        return Err(sketch_status::SKETCH_INVALID_ARGUMENT);
    }
    Ok(())
}

/// Borrows `len` bytes at `ptr` (NULL with length 0 is the empty slice).
///
/// # Safety
/// Unless NULL, `ptr` must point to `len` readable bytes that stay valid and
/// are not written by anyone else for the lifetime `'a`.
pub(crate) unsafe fn bytes<'a>(ptr: *const c_void, len: usize) -> Result<&'a [u8], sketch_status> {
    check(ptr, len)?;
    if len == 0 {
        return Ok(&[]);
    }
    // SAFETY: non-NULL (checked), len <= isize::MAX (checked); validity and
    // exclusivity of the memory are the caller's documented contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

/// Mutably borrows `len` bytes at `ptr` (NULL with length 0 is empty).
///
/// # Safety
/// Unless NULL, `ptr` must point to `len` writable bytes that no one else
/// reads or writes for the lifetime `'a`.
pub(crate) unsafe fn bytes_mut<'a>(ptr: *mut c_void, len: usize) -> Result<&'a mut [u8], sketch_status> {
    check(ptr, len)?;
    if len == 0 {
        return Ok(&mut []);
    }
    // SAFETY: as in `bytes`, plus exclusive access per the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u8>(), len) })
}

/// Borrows an array of `count` elements (NULL allowed when `count` is 0).
///
/// # Safety
/// Unless NULL, `ptr` must point to `count` valid, aligned `T` values.
pub(crate) unsafe fn array<'a, T>(ptr: *const T, count: usize) -> Result<&'a [T], sketch_status> {
    let bytes_len =
        count.checked_mul(std::mem::size_of::<T>()).ok_or(sketch_status::SKETCH_INVALID_ARGUMENT)?;
    check(ptr.cast(), bytes_len)?;
    if count == 0 {
        return Ok(&[]);
    }
    if !(ptr as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(sketch_status::SKETCH_MISALIGNED);
    }
    // SAFETY: non-NULL, aligned, size checked against isize::MAX above;
    // validity is the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(ptr, count) })
}

/// Mutably borrows an output array of `count` elements (NULL allowed when
/// `count` is 0).
///
/// # Safety
/// Unless NULL, `ptr` must point to `count` writable `T` slots that no one
/// else accesses during the call.
pub(crate) unsafe fn array_mut<'a, T>(ptr: *mut T, count: usize) -> Result<&'a mut [T], sketch_status> {
    let bytes_len =
        count.checked_mul(std::mem::size_of::<T>()).ok_or(sketch_status::SKETCH_INVALID_ARGUMENT)?;
    check(ptr.cast_const().cast(), bytes_len)?;
    if count == 0 {
        return Ok(&mut []);
    }
    if !(ptr as usize).is_multiple_of(std::mem::align_of::<T>()) {
        return Err(sketch_status::SKETCH_MISALIGNED);
    }
    // SAFETY: non-NULL, aligned, size checked; exclusivity is the caller's contract.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, count) })
}

/// Turns the keys of a batch into byte slices, checking every pointer first
/// so that a bad key fails the whole call before anything changes.
///
/// # Safety
/// `keys` must point to `count` `sketch_slice` values whose pointers satisfy
/// the contract of [`bytes`].
pub(crate) unsafe fn key_slices(keys: &[sketch_slice]) -> Result<(), sketch_status> {
    for k in keys {
        check(k.ptr.cast(), k.len)?;
    }
    Ok(())
}

/// The bytes of one key already checked by [`key_slices`].
///
/// # Safety
/// As for [`bytes`].
#[inline]
pub(crate) unsafe fn key_bytes<'a>(key: &sketch_slice) -> &'a [u8] {
    if key.len == 0 {
        return &[];
    }
    // SAFETY: checked by `key_slices` (non-NULL for len > 0, len <= isize::MAX);
    // validity is the caller's contract.
    unsafe { std::slice::from_raw_parts(key.ptr, key.len) }
}

/// Writes `value` to a non-NULL output pointer.
///
/// # Safety
/// Unless NULL, `ptr` must be valid for a write of `T`.
pub(crate) unsafe fn write_out<T>(ptr: *mut T, value: T) -> Status {
    if ptr.is_null() {
        return Err(sketch_status::SKETCH_NULL_POINTER);
    }
    // SAFETY: non-NULL; validity for writes is the caller's contract.
    unsafe { ptr.write_unaligned(value) };
    Ok(())
}

/// Writes `value` to an optional output pointer (NULL: nothing is written).
///
/// # Safety
/// Unless NULL, `ptr` must be valid for a write of `T`.
pub(crate) unsafe fn write_optional<T>(ptr: *mut T, value: T) {
    if !ptr.is_null() {
        // SAFETY: non-NULL; validity for writes is the caller's contract.
        unsafe { ptr.write_unaligned(value) };
    }
}

/// Fails with `SKETCH_NULL_POINTER` when a required output pointer is NULL,
/// before any work is done.
pub(crate) fn require<T>(ptr: *const T) -> Status {
    if ptr.is_null() {
        Err(sketch_status::SKETCH_NULL_POINTER)
    } else {
        Ok(())
    }
}

/// True when the byte ranges `[a, a+a_len)` and `[b, b+b_len)` overlap.
pub(crate) fn overlaps(a: *const c_void, a_len: usize, b: *const c_void, b_len: usize) -> bool {
    if a_len == 0 || b_len == 0 {
        return false;
    }
    let (a, b) = (a as usize, b as usize);
    a < b.saturating_add(b_len) && b < a.saturating_add(a_len)
}

/// Number of keys hashed per chunk in batch calls (stack space: 2 KiB).
pub(crate) const CHUNK: usize = 256;

/// Hashes a batch of keys chunk by chunk and hands each chunk of hashes,
/// with the matching slice of the optional per-item output, to `sink`.
///
/// # Safety
/// The keys must satisfy the contract of [`key_slices`].
pub(crate) unsafe fn for_hashed_chunks(
    keys: &[sketch_slice],
    mut out: Option<&mut [bool]>,
    hash: impl Fn(&[u8]) -> u64,
    mut sink: impl FnMut(&[u64], Option<&mut [bool]>) -> Status,
) -> Status {
    // SAFETY: forwarded contract.
    unsafe { key_slices(keys)? };
    let mut hashes = [0u64; CHUNK];
    for (index, chunk) in keys.chunks(CHUNK).enumerate() {
        for (h, k) in hashes.iter_mut().zip(chunk) {
            // SAFETY: checked by `key_slices` above.
            *h = hash(unsafe { key_bytes(k) });
        }
        let start = index * CHUNK;
        let part = out.as_deref_mut().and_then(|o| o.get_mut(start..start + chunk.len()));
        sink(hashes.get(..chunk.len()).unwrap_or(&[]), part)?;
    }
    Ok(())
}

/// Like [`for_hashed_chunks`], for per-item inputs or outputs of any type:
/// `sink` receives the index of the chunk's first key and its hashes.
///
/// # Safety
/// The keys must satisfy the contract of [`key_slices`].
pub(crate) unsafe fn for_hashed_ranges(
    keys: &[sketch_slice],
    hash: impl Fn(&[u8]) -> u64,
    mut sink: impl FnMut(usize, &[u64]) -> Status,
) -> Status {
    // SAFETY: forwarded contract.
    unsafe { key_slices(keys)? };
    let mut hashes = [0u64; CHUNK];
    for (index, chunk) in keys.chunks(CHUNK).enumerate() {
        for (h, k) in hashes.iter_mut().zip(chunk) {
            // SAFETY: checked by `key_slices` above.
            *h = hash(unsafe { key_bytes(k) });
        }
        sink(index * CHUNK, hashes.get(..chunk.len()).unwrap_or(&[]))?;
    }
    Ok(())
}
