//! C ABI of HyperLogLog (`sketches_core::hll`).
//!
//! A fresh sketch counts exactly (it keeps the distinct hashes) until
//! `small_capacity` of them arrived, then converts to 6-bit registers in
//! place; an exported small-mode image is compact and imports back into a
//! full-size buffer (`sketch_hll_size`).

use crate::boundary::{self, run, sketch_slice, Fail, Keys, Status};
use crate::filter;
use crate::image::{self as image, sketch_token, sketch_view};
use crate::image::{export_with, import_with, merge_with};
#[cfg(target_has_atomic = "64")]
use crate::shared;
use crate::status::{sketch_status, SKETCH_OK};
use core::ffi::c_void;
use sketches_core::hash;
use sketches_core::hll::{self, HllMode};

/// Family id of HyperLogLog.
pub const SKETCH_FAMILY_HYPERLOGLOG: u16 = 5;
/// Smallest precision.
pub const SKETCH_CARDINALITY_MIN_PRECISION: u8 = 4;
/// Largest precision.
pub const SKETCH_CARDINALITY_MAX_PRECISION: u8 = 18;
/// `sketch_hll_stats.mode`: exact small mode (sorted distinct hashes).
pub const SKETCH_HLL_MODE_SMALL: u8 = 0;
/// `sketch_hll_stats.mode`: dense 6-bit registers.
pub const SKETCH_HLL_MODE_DENSE: u8 = 1;

/// Statistics of a HyperLogLog sketch (`sketch_hll_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_hll_stats {
    /// Precision `p`.
    pub precision: u8,
    /// `SKETCH_HLL_MODE_SMALL` or `SKETCH_HLL_MODE_DENSE`.
    pub mode: u8,
    /// 1 when `estimate` is the martingale estimate (dense, own stream only:
    /// no registers merged in), else 0.
    pub martingale: u8,
    /// Reserved, 0.
    pub reserved: u8,
    /// Hashes stored in small mode (0 when dense).
    pub small_count: u32,
    /// Hashes small mode holds at this precision before converting.
    pub small_capacity: u32,
    /// Registers above zero.
    pub registers_set: u32,
    /// Hash seed.
    pub seed: u64,
    /// Distinct-count estimate.
    pub estimate: f64,
    /// Live image length in bytes.
    pub image_bytes: u64,
}

/// Exact live image size in bytes for precision `p` (4..=18), a multiple of
/// `SKETCH_IMAGE_ALIGN`.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`.
///
/// # Safety
/// `bytes` must point to a writable `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_size(p: u8, bytes: *mut u64) -> sketch_status {
    run(|| {
        crate::boundary::require(bytes)?;
        let n = hll::image_len(p)?;
        // SAFETY: non-NULL checked; caller contract.
        unsafe { crate::boundary::write_out(bytes, n) }
    })
}

/// Writes an empty HyperLogLog sketch of precision `p` (4..=18) with hash seed `seed`
/// into `buf` (8-byte aligned, at least `sketch_hll_size` bytes). Any previous
/// content is overwritten.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`, `SKETCH_MISALIGNED`,
/// `SKETCH_BUFFER_TOO_SMALL`. On error `buf` is untouched.
///
/// # Safety
/// `buf` must point to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_init(buf: *mut c_void, len: usize, p: u8, seed: u64) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::mutate(buf, len, |b| hll::init(b, p, seed).map(|_| ())) })
}

/// Adds a byte key (hashed with XXH3-64 and the sketch's seed). When `changed`
/// is not NULL it receives true when the sketch changed (a new hash in small mode, a raised register when dense).
/// `key` may be NULL when `key_len` is 0.
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image
/// (`SKETCH_MISALIGNED`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_BAD_MAGIC`,
/// `SKETCH_WRONG_FAMILY`, `SKETCH_CORRUPT_HEADER`, ...).
///
/// # Safety
/// `buf`: `len` writable bytes; `key`: `key_len` readable bytes; `changed`: NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::update(buf, len, changed, |b| Ok(hll::wrap_mut(b)?.add(key)))
    })
}

/// Adds an integer key (hashed as its 8 little-endian bytes). See `sketch_hll_add`.
///
/// # Safety
/// As for `sketch_hll_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, changed, |b| Ok(hll::wrap_mut(b)?.add_u64(key))) })
}

/// Adds a precomputed 64-bit hash (for example `sketch_hash(key, len, seed)`
/// with the sketch's seed; any uniformly distributed 64-bit value works).
/// See `sketch_hll_add`.
///
/// # Safety
/// As for `sketch_hll_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, changed, |b| Ok(hll::wrap_mut(b)?.add_hash(hash))) })
}

/// Validates the live HyperLogLog image in `buf` and writes its token to `*out`
/// (written only on success): pass it to the `sketch_hll_*_with_token`
/// calls to skip the header validation on each (see `sketch_token`). Make
/// it again after `sketch_hll_init` or `sketch_hll_import` into the
/// buffer; a stale token still works, at the cost of the full validation.
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_token(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_token,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { image::write_token(buf, len, out, hll::token) })
}

/// `sketch_hll_add` with the image's token (from `sketch_hll_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_hll_add`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_hll_add`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_with_token(
    buf: *mut c_void,
    len: usize,
    token: *const sketch_token,
    key: *const c_void,
    key_len: usize,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract (the key is checked before it is read).
    let key_of = |v: &_| unsafe { filter::plain_key(key, key_len, v) };
    let unchanged = |image: &[u8], t: &_, key| {
        hll::holds_with(image, t, |seed| hash::hash_bytes_inline(key, seed)).then_some(())
    };
    // SAFETY: caller contract; the fast path only reads the image.
    if unsafe { image::fast_read(image::with_token(buf, len, token), changed, key_of, unchanged) }.is_some() {
        // SAFETY: caller contract (NULL allowed).
        unsafe { boundary::write_optional(changed, false) };
        return SKETCH_OK;
    }
    let prepare = || {
        // SAFETY: caller contract.
        let key = unsafe { filter::key_apart(key, key_len, buf, len)? };
        Ok(move |mut view: hll::HllMut<'_>| view.add(key))
    };
    // SAFETY: caller contract.
    unsafe { token_add_full(buf, len, token, changed, prepare) }
}

/// `sketch_hll_add_u64` with the image's token (from `sketch_hll_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_hll_add_u64`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_hll_add_u64`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_u64_with_token(
    buf: *mut c_void,
    len: usize,
    token: *const sketch_token,
    key: u64,
    changed: *mut bool,
) -> sketch_status {
    let unchanged =
        |image: &[u8], t: &_, ()| hll::holds_with(image, t, |seed| hash::hash_u64(key, seed)).then_some(());
    // SAFETY: caller contract; the fast path only reads the image.
    if unsafe { image::fast_read(image::with_token(buf, len, token), changed, |_| Some(()), unchanged) }
        .is_some()
    {
        // SAFETY: caller contract (NULL allowed).
        unsafe { boundary::write_optional(changed, false) };
        return SKETCH_OK;
    }
    let prepare = || Ok(move |mut view: hll::HllMut<'_>| view.add_u64(key));
    // SAFETY: caller contract.
    unsafe { token_add_full(buf, len, token, changed, prepare) }
}

/// `sketch_hll_add_hash` with the image's token (from `sketch_hll_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_hll_add_hash`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_hll_add_hash`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_hash_with_token(
    buf: *mut c_void,
    len: usize,
    token: *const sketch_token,
    hash: u64,
    changed: *mut bool,
) -> sketch_status {
    let unchanged = |image: &[u8], t: &_, ()| hll::holds_with(image, t, |_| hash).then_some(());
    // SAFETY: caller contract; the fast path only reads the image.
    if unsafe { image::fast_read(image::with_token(buf, len, token), changed, |_| Some(()), unchanged) }
        .is_some()
    {
        // SAFETY: caller contract (NULL allowed).
        unsafe { boundary::write_optional(changed, false) };
        return SKETCH_OK;
    }
    let prepare = || Ok(move |mut view: hll::HllMut<'_>| view.add_hash(hash));
    // SAFETY: caller contract.
    unsafe { token_add_full(buf, len, token, changed, prepare) }
}

/// The full path of the `sketch_hll_add*_with_token` calls, out of line so
/// that their fast path (`image::fast_read` with `hll::holds_with`) calls
/// nothing: `prepare` checks the key and returns the add.
///
/// # Safety
/// As documented on those functions.
#[inline(never)]
unsafe fn token_add_full<A: FnOnce(hll::HllMut<'_>) -> bool>(
    buf: *mut c_void,
    len: usize,
    token: *const sketch_token,
    changed: *mut bool,
    prepare: impl FnOnce() -> core::result::Result<A, Fail>,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let token = image::read_token(token)?;
        let add = prepare()?;
        filter::update(buf, len, changed, |b| hll::with_view_mut(b, &token, add))
    })
}

/// Validates the live HyperLogLog image in `buf` (`len` bytes) and writes its
/// kept view to `*out` (written only on success): pass it to the
/// `sketch_hll_view_*` calls, which then read no header (see
/// `sketch_view` for when to make it again).
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image.
///
/// # Safety
/// `buf`: `len` readable bytes, writable for the view's adds; `out`: writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_view(
    buf: *mut c_void,
    len: usize,
    out: *mut sketch_view,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { image::write_view(buf, len, out, hll::token) })
}

/// `sketch_hll_add` on the image of a kept view (from
/// `sketch_hll_view`): the same result and outputs, without reading its
/// header (see `sketch_view`).
///
/// Errors: those of `sketch_hll_add` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view` whose image is writable; the other
/// arguments as for `sketch_hll_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_view_add(
    view: *const sketch_view,
    key: *const c_void,
    key_len: usize,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract (the key is checked before it is read).
    let key_of = |v: &_| unsafe { filter::plain_key(key, key_len, v) };
    let unchanged = |image: &[u8], token: &_, key| {
        hll::holds_trusted(image, token, |seed| hash::hash_bytes_inline(key, seed)).then_some(())
    };
    // SAFETY: caller contract; the fast path only reads the image.
    if unsafe { image::fast_read(image::kept(view), changed, key_of, unchanged) }.is_some() {
        // SAFETY: caller contract (NULL allowed).
        unsafe { boundary::write_optional(changed, false) };
        return SKETCH_OK;
    }
    let prepare = |v: &image::KeptView| {
        // SAFETY: caller contract.
        let key = unsafe { filter::key_apart(key, key_len, v.image, v.len)? };
        Ok(move |mut view: hll::HllMut<'_>| view.add(key))
    };
    // SAFETY: caller contract.
    unsafe { view_add_full(view, changed, prepare) }
}

/// `sketch_hll_add_u64` on the image of a kept view (from
/// `sketch_hll_view`): the same result and outputs, without reading its
/// header (see `sketch_view`).
///
/// Errors: those of `sketch_hll_add_u64` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view` whose image is writable; the other
/// arguments as for `sketch_hll_add_u64`.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_view_add_u64(
    view: *const sketch_view,
    key: u64,
    changed: *mut bool,
) -> sketch_status {
    let unchanged = |image: &[u8], token: &_, ()| {
        hll::holds_trusted(image, token, |seed| hash::hash_u64(key, seed)).then_some(())
    };
    // SAFETY: caller contract; the fast path only reads the image.
    if unsafe { image::fast_read(image::kept(view), changed, |_| Some(()), unchanged) }.is_some() {
        // SAFETY: caller contract (NULL allowed).
        unsafe { boundary::write_optional(changed, false) };
        return SKETCH_OK;
    }
    // SAFETY: caller contract.
    unsafe { view_add_full(view, changed, |_| Ok(move |mut view: hll::HllMut<'_>| view.add_u64(key))) }
}

/// `sketch_hll_add_hash` on the image of a kept view (from
/// `sketch_hll_view`): the same result and outputs, without reading its
/// header (see `sketch_view`).
///
/// Errors: those of `sketch_hll_add_hash` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view` whose image is writable; the other
/// arguments as for `sketch_hll_add_hash`.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_view_add_hash(
    view: *const sketch_view,
    hash: u64,
    changed: *mut bool,
) -> sketch_status {
    let unchanged = |image: &[u8], token: &_, ()| hll::holds_trusted(image, token, |_| hash).then_some(());
    // SAFETY: caller contract; the fast path only reads the image.
    if unsafe { image::fast_read(image::kept(view), changed, |_| Some(()), unchanged) }.is_some() {
        // SAFETY: caller contract (NULL allowed).
        unsafe { boundary::write_optional(changed, false) };
        return SKETCH_OK;
    }
    // SAFETY: caller contract.
    unsafe { view_add_full(view, changed, |_| Ok(move |mut view: hll::HllMut<'_>| view.add_hash(hash))) }
}

/// The full path of the `sketch_hll_view_add*` calls, out of line so that
/// their fast path (`image::fast_read` with `hll::holds_trusted`) calls
/// nothing: `prepare` checks the key against the view and returns the add.
///
/// # Safety
/// As documented on those functions.
#[inline(never)]
unsafe fn view_add_full<A: FnOnce(hll::HllMut<'_>) -> bool>(
    view: *const sketch_view,
    changed: *mut bool,
    prepare: impl FnOnce(&image::KeptView) -> core::result::Result<A, Fail>,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let v = image::read_view(view)?;
        let add = prepare(&v)?;
        v.update(changed, |b| hll::with_trusted_view_mut(b, &v.token, add))
    })
}

/// Adds `count` byte keys in one call. Every key pointer is checked before
/// anything is added: on error nothing changes.
///
/// # Safety
/// `keys`: `count` readable `sketch_slice`s, each valid.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::slices(keys, count)?) })
}

/// Adds `count` keys packed in the Arrow Binary layout: key `i` is bytes
/// `offsets[i] .. offsets[i+1]` of `data` (`data_len` bytes; `offsets` has
/// `count + 1` entries, the layout of an Arrow Binary/String array).
/// Decreasing offsets or offsets past `data_len` give
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_hll_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; .
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_packed(
    buf: *mut c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::packed(data, data_len, offsets, count)?) })
}

/// Adds `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_hll_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; .
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::ints(keys, count)?) })
}

/// Shared body of `sketch_hll_add_batch`, `sketch_hll_add_packed` and `sketch_hll_add_u64_batch`.
///
/// # Safety
/// As documented on those functions.
unsafe fn add_keys(buf: *mut c_void, len: usize, keys: Keys<'_>) -> Status {
    // SAFETY: caller contract.
    unsafe {
        filter::add_keys(
            buf,
            len,
            keys,
            core::ptr::null_mut::<bool>(),
            |b| {
                hll::wrap_mut(b).map(|s| {
                    let h = s.as_ref().key_hasher();
                    (s, h)
                })
            },
            |s, h, _| {
                s.add_hashes(h);
                Ok(())
            },
        )
    }
}

/// Adds `count` precomputed hashes in one call.
///
/// # Safety
/// `hashes`: `count` readable values (NULL allowed when `count` is 0).
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_hash_batch(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::add_hashes(buf, len, hashes, count, core::ptr::null_mut::<bool>(), |b, h, _| {
            hll::wrap_mut(b)?.add_hashes(h);
            Ok(())
        })
    })
}

/// Writes the distinct-count estimate to `*out`: exact in small mode; the
/// martingale estimate while the sketch saw only its own stream (relative
/// standard error ~0.83/sqrt(m)); after registers were merged in, Ertl's
/// improved estimate from the registers (~1.04/sqrt(m)). O(1).
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_estimate(buf: *const c_void, len: usize, out: *mut f64) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(hll::wrap(b)?.estimate())) })
}

/// Empties the sketch (same precision and seed).
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_reset(buf: *mut c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            hll::wrap_mut(b)?.reset();
            Ok(())
        })
    })
}

/// Merges `src` into `dst`: afterwards `dst` estimates the union. Same seed
/// required; a dense `src`'s precision must be at least `dst`'s (a higher
/// precision folds down); a `src` in its exact small mode (it keeps whole
/// hashes) merges into any precision.
///
/// Errors: `SKETCH_INCOMPATIBLE` (nothing changes), `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `dst`: `dst_len` writable bytes; `src`: `src_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_merge(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { merge_with(|d, s| hll::wrap_mut(d)?.merge(&hll::wrap(s)?), dst, dst_len, src, src_len) })
}

/// Writes in `*size` how many bytes the live image takes that
/// `sketch_hll_import` writes for the exported HyperLogLog sketch in `src`: the `dst_len`
/// to allocate (64-byte aligned, `SKETCH_IMAGE_ALIGN`) before importing. A small-mode export is compact: it imports into the full image of its precision (`sketch_hll_size`), larger than `src_len`.
/// Checks the headers and the exact length, not the checksum or the body
/// (the import does). `*size` is written only on success.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_LENGTH_MISMATCH` (bytes missing or
/// extra), `SKETCH_WRONG_FAMILY`, `SKETCH_BAD_MAGIC`,
/// `SKETCH_UNSUPPORTED_VERSION`, `SKETCH_UNSUPPORTED_HASH` (a hash this build or
/// family does not use, in bytes whose checksum holds; `SKETCH_CHECKSUM_MISMATCH`
/// when it fails: a damaged hash id),
/// `SKETCH_CORRUPT_HEADER`, `SKETCH_BUFFER_TOO_SMALL` (shorter than a common
/// header).
///
/// # Safety
/// `src`: `src_len` readable bytes; `size` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_import_size(
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { crate::image::import_size_with(hll::import_len, src, src_len, size) })
}

/// Imports untrusted bytes (`src`, exactly one exported image, no alignment
/// needed): verifies headers, length, checksum and body, then writes the live
/// image into `dst` (8-byte aligned, at least `sketch_hll_size` of its
/// precision). `dst` is written only on success.
///
/// Errors: `SKETCH_CHECKSUM_MISMATCH`, `SKETCH_LENGTH_MISMATCH`, `SKETCH_CORRUPT_HEADER`,
/// `SKETCH_CORRUPT_BODY`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_MISALIGNED`, `SKETCH_OVERLAP`, ...
///
/// # Safety
/// `src`: `src_len` readable bytes; `dst`: `dst_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_import(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { import_with(hll::import, src, src_len, dst, dst_len) })
}

/// Verifies untrusted bytes in place (headers, exact length, checksum, body).
///
/// # Safety
/// `bytes`: `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_verify(bytes: *const c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { Ok(hll::verify(crate::boundary::bytes(bytes, len)?)?) })
}

/// Writes the estimate from the registers alone (Ertl's improved estimator;
/// exact in small mode) to `*out`: what a merged sketch reports.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_register_estimate(
    buf: *const c_void,
    len: usize,
    out: *mut f64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(hll::wrap(b)?.register_estimate())) })
}

/// Writes in `*bytes` how many bytes `sketch_hll_export` writes for this
/// sketch: the full image when dense, the header plus 8 bytes per stored hash
/// in small mode.
///
/// # Safety
/// `buf`: `len` readable bytes; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_exported_size(
    buf: *const c_void,
    len: usize,
    bytes: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, bytes, hll::exported_len) })
}

/// Exports the live image in `buf` with its checksum into `out` (no alignment
/// needed, at least `sketch_hll_exported_size` bytes); `*written` receives the
/// byte count. Small-mode images are exported compactly.
///
/// Errors: `SKETCH_BUFFER_TOO_SMALL` (`out_len` below `sketch_hll_exported_size`), `SKETCH_OVERLAP`, `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `out_len` writable bytes; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_export(
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { export_with(hll::export, buf, len, out, out_len, written) })
}

/// Writes into `dst` (8-byte aligned, at least `sketch_hll_size(p)` bytes) a
/// sketch of precision `p` holding what `src` holds (registers folded down,
/// or the stored hashes). `p` may exceed `src`'s precision only while `src`
/// is in small mode.
///
/// Errors: `SKETCH_INVALID_PARAMETER`, `SKETCH_INCOMPATIBLE`, `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `src`: `src_len` readable bytes; `dst`: `dst_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_downsize(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
    p: u8,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        merge_with(
            |d, s| {
                let source = hll::wrap(s)?;
                hll::downsize(&source, d, p).map(|_| ())
            },
            dst,
            dst_len,
            src,
            src_len,
        )
    })
}

/// Writes the statistics of the sketch to `*out`.
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_get_stats(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_hll_stats,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let s = hll::wrap(b)?.stats();
            Ok(sketch_hll_stats {
                precision: s.precision,
                mode: match s.mode {
                    HllMode::Small => SKETCH_HLL_MODE_SMALL,
                    HllMode::Dense => SKETCH_HLL_MODE_DENSE,
                },
                martingale: u8::from(s.martingale),
                reserved: 0,
                small_count: s.small_count,
                small_capacity: s.small_capacity,
                registers_set: s.registers_set,
                seed: s.seed,
                estimate: s.estimate,
                image_bytes: s.image_bytes,
            })
        })
    })
}

/// Adds a byte key. From any number of threads at once on one image (the
/// concurrent functions only; see the header's thread-safety notes). `changed` (NULL: not wanted) receives true when a register changed.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_MISALIGNED`, image errors, `SKETCH_SMALL_MODE` (densify first: `sketch_hll_densify`); `SKETCH_CORRUPT_HEADER` when the image's straddle lock word stays set for about five seconds (a damaged image, or a process that died inside a concurrent add; a batch stops at that key, the keys before it are added). An add that finds the lock held by another adding thread spins briefly, then yields its thread, then sleeps 1 ms at a time, so a descheduled holder gets to finish however many threads add.
///
/// # Safety
/// `buf`: `len` bytes, 8-byte aligned, accessed only through the concurrent
/// functions while any of them runs; `key`: `key_len` readable bytes.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_concurrent(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        shared::one(buf, len, changed, false, |w| shared_hll(w)?.add(key))
    })
}

/// Adds an integer key (8 little-endian bytes). From any number of threads at once on one image (the
/// concurrent functions only; see the header's thread-safety notes). `changed` (NULL: not wanted) receives true when a register changed.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_MISALIGNED`, image errors, `SKETCH_SMALL_MODE` (densify first: `sketch_hll_densify`); `SKETCH_CORRUPT_HEADER` when the image's straddle lock word stays set for about five seconds (a damaged image, or a process that died inside a concurrent add; a batch stops at that key, the keys before it are added). An add that finds the lock held by another adding thread spins briefly, then yields its thread, then sleeps 1 ms at a time, so a descheduled holder gets to finish however many threads add.
///
/// # Safety
/// `buf`: `len` bytes, 8-byte aligned, accessed only through the concurrent
/// functions while any of them runs.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_concurrent_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, changed, false, |w| shared_hll(w)?.add_u64(key)) })
}

/// Adds a precomputed hash. From any number of threads at once on one image (the
/// concurrent functions only; see the header's thread-safety notes). `changed` (NULL: not wanted) receives true when a register changed.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_MISALIGNED`, image errors, `SKETCH_SMALL_MODE` (densify first: `sketch_hll_densify`); `SKETCH_CORRUPT_HEADER` when the image's straddle lock word stays set for about five seconds (a damaged image, or a process that died inside a concurrent add; a batch stops at that key, the keys before it are added). An add that finds the lock held by another adding thread spins briefly, then yields its thread, then sleeps 1 ms at a time, so a descheduled holder gets to finish however many threads add.
///
/// # Safety
/// `buf`: `len` bytes, 8-byte aligned, accessed only through the concurrent
/// functions while any of them runs.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_concurrent_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, changed, false, |w| shared_hll(w)?.add_hash(hash)) })
}

/// Adds `count` byte keys (`sketch_slice` array). From any number of threads at once on one image (the
/// concurrent functions only). Errors: as `sketch_hll_add_concurrent`.
///
/// # Safety
/// `buf` as for `sketch_hll_add_concurrent`; the keys and outputs as for the `_batch` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_concurrent_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        add_concurrent_keys(buf, len, Keys::slices(keys, count)?, core::ptr::null_mut::<bool>())
    })
}

/// Adds `count` keys packed in the Arrow Binary layout (`offsets` has `count + 1` entries; bad offsets give `SKETCH_INVALID_PARAMETER` before anything changes). From any number of threads at once on one image (the
/// concurrent functions only). Errors: as `sketch_hll_add_concurrent`.
///
/// # Safety
/// `buf` as for `sketch_hll_add_concurrent`; the keys and outputs as for the `_packed` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_concurrent_packed(
    buf: *mut c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        add_concurrent_keys(
            buf,
            len,
            Keys::packed(data, data_len, offsets, count)?,
            core::ptr::null_mut::<bool>(),
        )
    })
}

/// Adds `count` integer keys. From any number of threads at once on one image (the
/// concurrent functions only). Errors: as `sketch_hll_add_concurrent`.
///
/// # Safety
/// `buf` as for `sketch_hll_add_concurrent`; the keys and outputs as for the `_u64_batch` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_add_concurrent_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_concurrent_keys(buf, len, Keys::ints(keys, count)?, core::ptr::null_mut::<bool>()) })
}

/// Shared body of the concurrent batch adds.
///
/// # Safety
/// As documented on those functions.
#[cfg(target_has_atomic = "64")]
unsafe fn add_concurrent_keys(buf: *mut c_void, len: usize, keys: Keys<'_>, out: *mut bool) -> Status {
    // SAFETY: caller contract.
    unsafe {
        shared::add_keys(
            buf,
            len,
            keys,
            out,
            |w| shared_hll(w).map(|s| (s, s.key_hasher())),
            |s, h, o| {
                let _ = o;
                s.add_hashes(h)
            },
        )
    }
}

/// The register estimate (Ertl's improved estimator, `1.04/sqrt(m)`) read
/// with atomic loads, safe while other threads add with the concurrent
/// functions (exact once they are done; a few adds ahead or behind while
/// they run). The martingale estimate does not survive concurrent adds.
///
/// Errors: `SKETCH_NULL_POINTER` (out), `SKETCH_MISALIGNED`, image errors,
/// `SKETCH_SMALL_MODE` (a sketch still in its exact small mode, as for the
/// concurrent adds: `sketch_hll_densify` it before sharing it; `*out` is
/// not written).
///
/// # Safety
/// As for `sketch_hll_add_concurrent`; `out` writable.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_estimate_concurrent(
    buf: *const c_void,
    len: usize,
    out: *mut f64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, out, true, |w| Ok(shared_hll(w)?.estimate())) })
}

/// Converts a sketch in its exact small mode to dense registers (a no-op
/// when already dense), as concurrent adds need; the estimate is unchanged.
/// Needs exclusive access, like every function that is not `_concurrent`:
/// call it before sharing the image between threads.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_hll_densify(buf: *mut c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            hll::wrap_mut(b)?.densify_now();
            Ok(())
        })
    })
}

/// The shared view of the caller's image, waiting for a straddle lock held
/// by another thread with `shared::OsLockWait` (spin, yield, sleep).
#[cfg(target_has_atomic = "64")]
fn shared_hll(
    words: sketches_core::shared::AtomicWords<'_>,
) -> sketches_core::Result<hll::SharedHll<'_, shared::OsLockWait>> {
    Ok(hll::wrap_shared(words)?.with_lock_wait::<shared::OsLockWait>())
}

#[cfg(test)]
mod tests {
    use super::*;

    use core::sync::atomic::{AtomicU64, Ordering};
    use sketches_core::cardinality::split_hash;

    const P: u8 = 10;

    /// A dense image at precision `P`, seed 5, as atomic words (8-byte
    /// aligned), with its length in bytes.
    fn dense_image() -> (Vec<AtomicU64>, usize) {
        let mut size = 0u64;
        // SAFETY: a valid out pointer.
        assert_eq!(unsafe { sketch_hll_size(P, &mut size) }, SKETCH_OK);
        let len = usize::try_from(size).unwrap();
        let image: Vec<AtomicU64> = (0..len / 8).map(|_| AtomicU64::new(0)).collect();
        let buf = image.as_ptr().cast_mut().cast::<c_void>();
        // SAFETY: `len` bytes, 8-byte aligned, only this thread touches them.
        unsafe {
            assert_eq!(sketch_hll_init(buf, len, P, 5), SKETCH_OK);
            assert_eq!(sketch_hll_densify(buf, len), SKETCH_OK);
        }
        (image, len)
    }

    fn straddles(h: u64) -> bool {
        (hll::HEADER_LEN * 8 + 6 * split_hash(h, P).0) % 64 > 58
    }

    /// The image's straddle lock word.
    fn lock_word(image: &[AtomicU64]) -> &AtomicU64 {
        &image[352 / 8]
    }

    /// A concurrent add that finds a register's straddle lock held by a
    /// thread that does not run for a while (here it holds the lock for two
    /// seconds, far longer than the core's default spin of 2^24 tries, as a
    /// holder descheduled among many more adding threads than cores may)
    /// waits for it and succeeds, and the registers end up as plain adds
    /// leave them. With the default spin the add failed with
    /// SKETCH_CORRUPT_HEADER.
    #[test]
    fn concurrent_adds_wait_for_a_lock_holder_that_is_not_running() {
        let (image, len) = dense_image();
        let buf = image.as_ptr().cast_mut().cast::<c_void>();
        let (expected, _) = dense_image();
        let plain = expected.as_ptr().cast_mut().cast::<c_void>();
        let hashes: Vec<u64> = (0..2000).map(|k| hash::hash_u64(k, 5)).collect();
        assert!(hashes.iter().any(|h| straddles(*h) && split_hash(*h, P).1 > 0));
        let lock = lock_word(&image);
        lock.store(1, Ordering::Release);
        std::thread::scope(|scope| {
            scope.spawn(|| {
                std::thread::sleep(std::time::Duration::from_secs(2));
                lock.store(0, Ordering::Release);
            });
            for h in &hashes {
                // SAFETY: the image is live; every access to it while the
                // holder runs is atomic (its store, these concurrent adds).
                let status = unsafe { sketch_hll_add_concurrent_hash(buf, len, *h, core::ptr::null_mut()) };
                assert_eq!(status, SKETCH_OK, "hash {h:#x}");
            }
        });
        for h in &hashes {
            // SAFETY: the plain image, used by this thread only.
            assert_eq!(unsafe { sketch_hll_add_hash(plain, len, *h, core::ptr::null_mut()) }, SKETCH_OK);
        }
        let registers = |words: &[AtomicU64]| -> Vec<u64> {
            words[hll::HEADER_LEN / 8..].iter().map(|w| w.load(Ordering::Relaxed)).collect()
        };
        assert_eq!(registers(&image), registers(&expected));
        assert_eq!(lock.load(Ordering::Relaxed), 0);
    }

    /// A lock word that stays set (a damaged image, or a process that died
    /// inside an add on a shared mapping) fails an add that needs it with
    /// SKETCH_CORRUPT_HEADER after the bounded wait (about five seconds of
    /// sleeps), changing nothing; adds to registers inside one word still
    /// work.
    #[test]
    fn a_lock_word_that_stays_set_fails_the_add_after_a_bounded_wait() {
        let (image, len) = dense_image();
        let buf = image.as_ptr().cast_mut().cast::<c_void>();
        let hashes = || (0..u64::MAX).map(|k| hash::hash_u64(k, 5));
        let straddling = hashes().find(|h| straddles(*h) && split_hash(*h, P).1 > 0).unwrap();
        let inside = hashes().find(|h| !straddles(*h)).unwrap();
        lock_word(&image).store(1, Ordering::Release);
        let snapshot =
            |words: &[AtomicU64]| -> Vec<u64> { words.iter().map(|w| w.load(Ordering::Relaxed)).collect() };
        let before = snapshot(&image);
        let mut changed = true;
        // SAFETY: the image is live and only this thread touches it.
        let status = unsafe { sketch_hll_add_concurrent_hash(buf, len, straddling, &mut changed) };
        assert_eq!(status, crate::status::SKETCH_CORRUPT_HEADER);
        assert!(changed, "outputs are written only on success");
        assert_eq!(snapshot(&image), before);
        // SAFETY: as above.
        assert_eq!(unsafe { sketch_hll_add_concurrent_hash(buf, len, inside, &mut changed) }, SKETCH_OK);
        assert!(changed);
    }

    #[test]
    fn constants_match_the_core() {
        assert_eq!(SKETCH_FAMILY_HYPERLOGLOG, sketches_core::FamilyId::HyperLogLog as u16);
        assert_eq!(SKETCH_CARDINALITY_MIN_PRECISION, sketches_core::cardinality::MIN_PRECISION);
        assert_eq!(SKETCH_CARDINALITY_MAX_PRECISION, sketches_core::cardinality::MAX_PRECISION);
        assert_eq!(SKETCH_HLL_MODE_DENSE, HllMode::Dense as u8);
        assert_eq!(SKETCH_HLL_MODE_SMALL, HllMode::Small as u8);
    }
}
