//! Plumbing of the concurrent-add functions (`sketch_*_add_concurrent*`,
//! `sketch_*_contains_concurrent*`, `sketch_*_estimate_concurrent`): the
//! caller's buffer seen as atomic 64-bit words (`sketches_core::shared`).
//!
//! These functions, and only these, may be called by many threads on one
//! image at once. While any of them runs on an image, every other access to
//! that image must also go through them (a plain call reads or writes
//! without atomics). Once the adding threads are done (joined, or otherwise
//! synchronized with the reader), every function may be used again.

use crate::boundary::{self, Fail, Keys, Span, Status};
use crate::status::{SKETCH_BUFFER_TOO_SMALL, SKETCH_MISALIGNED, SKETCH_NULL_POINTER};
use core::ffi::c_void;
use core::sync::atomic::AtomicU64;
use sketches_core::hash::KeyHasher;
use sketches_core::shared::AtomicWords;
use sketches_core::Result;

/// The caller's live image as atomic words.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_MISALIGNED` (not 8-byte aligned),
/// `SKETCH_BUFFER_TOO_SMALL` (shorter than a common header).
///
/// # Safety
/// `buf` must point to `len` bytes that stay valid for `'a` and that, for
/// that time, are accessed only through atomic operations (the concurrent
/// functions) by every thread.
#[inline]
pub(crate) unsafe fn words<'a>(
    buf: *const c_void,
    len: usize,
) -> core::result::Result<AtomicWords<'a>, Fail> {
    if len < sketches_core::image::COMMON_HEADER_LEN || len > isize::MAX as usize {
        return Err(Fail(SKETCH_BUFFER_TOO_SMALL));
    }
    if buf.is_null() {
        return Err(Fail(SKETCH_NULL_POINTER));
    }
    if !(buf as usize).is_multiple_of(core::mem::align_of::<AtomicU64>()) {
        return Err(Fail(SKETCH_MISALIGNED));
    }
    // SAFETY: non-NULL, aligned for AtomicU64 (checked), `len / 8` whole
    // words inside the caller's `len` bytes; AtomicU64 has the size, alignment
    // and bit validity of u64, and the caller's contract makes every access
    // to these bytes atomic while the slice lives.
    Ok(AtomicWords::new(unsafe { core::slice::from_raw_parts(buf.cast::<AtomicU64>(), len / 8) }))
}

/// One update or query on a shared view; `out` (NULL allowed when
/// `required` is false) gets its result.
///
/// # Safety
/// As documented on the exported functions.
#[inline]
pub(crate) unsafe fn one<T>(
    buf: *const c_void,
    len: usize,
    out: *mut T,
    required: bool,
    op: impl FnOnce(AtomicWords<'_>) -> Result<T>,
) -> Status {
    if required {
        boundary::require(out)?;
    }
    boundary::out_apart(out, buf, len)?;
    // SAFETY: caller contract.
    let value = op(unsafe { words(buf, len)? })?;
    // SAFETY: caller contract (NULL allowed when not required).
    unsafe { boundary::write_optional(out, value) };
    Ok(())
}

/// Batch add over keys of any shape on a shared view; `out` (NULL: not
/// wanted) gets per key whether it changed the sketch.
///
/// # Safety
/// As documented on the exported functions.
#[inline]
pub(crate) unsafe fn add_keys<'a, V>(
    buf: *const c_void,
    len: usize,
    keys: Keys<'_>,
    out: *mut bool,
    open: impl FnOnce(AtomicWords<'a>) -> Result<(V, KeyHasher)>,
    add: impl Fn(&V, &[u64], Option<&mut [bool]>) -> Result<()>,
) -> Status {
    // Other threads write the image: no key or output may lie inside it.
    let (image_span, out_span) = (Span::of(buf.cast::<u8>(), len), Span::of(out, keys.len()));
    boundary::apart(&[image_span, out_span], Some(&keys), &[])?;
    // SAFETY: caller contract (NULL means "not wanted"); overlaps nothing (checked).
    let mut out = unsafe { boundary::optional_array_mut(out, keys.len())? };
    // SAFETY: caller contract.
    let (view, hasher) = open(unsafe { words(buf, len)? })?;
    keys.for_hashed_chunks(hasher, |start, h| Ok(add(&view, h, boundary::part(&mut out, start, h.len()))?))
}

/// Batch query over keys of any shape on a shared view; `results` (required)
/// gets one answer per key.
///
/// # Safety
/// As documented on the exported functions.
#[inline]
pub(crate) unsafe fn query_keys<'a, V>(
    buf: *const c_void,
    len: usize,
    keys: Keys<'_>,
    results: *mut bool,
    open: impl FnOnce(AtomicWords<'a>) -> Result<(V, KeyHasher)>,
    query: impl Fn(&V, u64) -> bool,
) -> Status {
    let (image_span, out_span) = (Span::of(buf.cast::<u8>(), len), Span::of(results, keys.len()));
    boundary::apart(&[image_span, out_span], Some(&keys), &[])?;
    // SAFETY: caller contract; the results overlap nothing (checked).
    let out = unsafe { boundary::required_array_mut(results, keys.len())? };
    // SAFETY: caller contract.
    let (view, hasher) = open(unsafe { words(buf, len)? })?;
    keys.for_hashed_chunks(hasher, |start, h| {
        for (r, h) in boundary::part_of(out, start, h.len())?.iter_mut().zip(h) {
            *r = query(&view, *h);
        }
        Ok(())
    })
}

/// Batch query over precomputed hashes on a shared view; `results` required.
///
/// # Safety
/// As documented on the exported functions.
#[inline]
pub(crate) unsafe fn query_hashes<'a, V>(
    buf: *const c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    results: *mut bool,
    open: impl FnOnce(AtomicWords<'a>) -> Result<V>,
    query: impl Fn(&V, u64) -> bool,
) -> Status {
    let (image_span, hashes_span, out_span) =
        (Span::of(buf.cast::<u8>(), len), Span::of(hashes, count), Span::of(results, count));
    boundary::apart(&[image_span, out_span], None, &[hashes_span])?;
    // SAFETY: caller contract; the results overlap nothing (checked).
    let (hashes, out) =
        unsafe { (boundary::array(hashes, count)?, boundary::required_array_mut(results, count)?) };
    // SAFETY: caller contract.
    let view = open(unsafe { words(buf, len)? })?;
    for (r, h) in out.iter_mut().zip(hashes) {
        *r = query(&view, *h);
    }
    Ok(())
}

/// How a concurrent HyperLogLog add waits for a register lock another
/// thread holds (`sketches_core::hll::LockWait`). On a Unix-like system:
/// the core's schedule (`hll::lock_wait_step`: spin, then `sched_yield`,
/// then 1 ms sleeps, giving up after about five seconds), so a holder
/// descheduled among many more adding threads than cores gets to finish.
/// Elsewhere (bare metal, where the library has no scheduler to yield to):
/// the core's default bounded spin.
pub(crate) struct OsLockWait;

#[cfg(unix)]
impl sketches_core::hll::LockWait for OsLockWait {
    fn wait(tries: u32) -> bool {
        use sketches_core::hll::{lock_wait_step, LockWaitStep};
        extern "C" {
            fn sched_yield() -> core::ffi::c_int;
            fn usleep(microseconds: core::ffi::c_uint) -> core::ffi::c_int;
        }
        match lock_wait_step(tries) {
            LockWaitStep::Spin => core::hint::spin_loop(),
            // SAFETY: POSIX sched_yield takes no arguments and only
            // reschedules the calling thread; its result (always 0 on
            // Linux) is not needed.
            LockWaitStep::Yield => unsafe {
                sched_yield();
            },
            // SAFETY: POSIX usleep with an argument below 1,000,000 only
            // suspends the calling thread; an early wake-up (EINTR) just
            // makes this try shorter.
            LockWaitStep::Sleep => unsafe {
                usleep(1000);
            },
            LockWaitStep::GiveUp => return false,
        }
        true
    }
}

#[cfg(not(unix))]
impl sketches_core::hll::LockWait for OsLockWait {
    fn wait(tries: u32) -> bool {
        <sketches_core::hll::SpinLockWait as sketches_core::hll::LockWait>::wait(tries)
    }
}
