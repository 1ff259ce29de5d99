//! C ABI of UltraLogLog (`sketches_core::ull`).

use crate::boundary::{run, sketch_slice, Keys, Status};
use crate::filter;
use crate::image::{export_with, import_with, merge_with};
#[cfg(target_has_atomic = "64")]
use crate::shared;
use crate::status::sketch_status;
use core::ffi::c_void;
use sketches_core::ull;

/// Family id of UltraLogLog.
pub const SKETCH_FAMILY_ULTRALOGLOG: u16 = 6;

/// Statistics of an UltraLogLog sketch (`sketch_ull_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_ull_stats {
    /// Precision `p`.
    pub precision: u8,
    /// 1 when `estimate` is the martingale estimate (no merge so far), else 0.
    pub martingale: u8,
    /// Reserved, 0.
    pub reserved: [u8; 2],
    /// Registers above zero.
    pub registers_set: u32,
    /// Hash seed.
    pub seed: u64,
    /// Distinct-count estimate: the martingale estimate while `martingale`
    /// is 1, else FGRA from the registers.
    pub estimate: f64,
    /// Image length in bytes.
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
pub unsafe extern "C" fn sketch_ull_size(p: u8, bytes: *mut u64) -> sketch_status {
    run(|| {
        crate::boundary::require(bytes)?;
        let n = ull::image_len(p)?;
        // SAFETY: non-NULL checked; caller contract.
        unsafe { crate::boundary::write_out(bytes, n) }
    })
}

/// Writes an empty UltraLogLog sketch of precision `p` (4..=18) with hash seed `seed`
/// into `buf` (8-byte aligned, at least `sketch_ull_size` bytes). Any previous
/// content is overwritten.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`, `SKETCH_MISALIGNED`,
/// `SKETCH_BUFFER_TOO_SMALL`. On error `buf` is untouched.
///
/// # Safety
/// `buf` must point to `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_init(buf: *mut c_void, len: usize, p: u8, seed: u64) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::mutate(buf, len, |b| ull::init(b, p, seed).map(|_| ())) })
}

/// Adds a byte key (hashed with XXH3-64 and the sketch's seed). When `changed`
/// is not NULL it receives true when the sketch changed (a register changed).
/// `key` may be NULL when `key_len` is 0.
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image
/// (`SKETCH_MISALIGNED`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_BAD_MAGIC`,
/// `SKETCH_WRONG_FAMILY`, `SKETCH_CORRUPT_HEADER`, ...).
///
/// # Safety
/// `buf`: `len` writable bytes; `key`: `key_len` readable bytes; `changed`: NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::update(buf, len, changed, |b| Ok(ull::wrap_mut(b)?.add(key)))
    })
}

/// Adds an integer key (hashed as its 8 little-endian bytes). See `sketch_ull_add`.
///
/// # Safety
/// As for `sketch_ull_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, changed, |b| Ok(ull::wrap_mut(b)?.add_u64(key))) })
}

/// Adds a precomputed 64-bit hash (for example `sketch_hash(key, len, seed)`
/// with the sketch's seed; any uniformly distributed 64-bit value works).
/// See `sketch_ull_add`.
///
/// # Safety
/// As for `sketch_ull_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, changed, |b| Ok(ull::wrap_mut(b)?.add_hash(hash))) })
}

/// Adds `count` byte keys in one call. Every key pointer is checked before
/// anything is added: on error nothing changes.
///
/// # Safety
/// `keys`: `count` readable `sketch_slice`s, each valid.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add_batch(
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
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_ull_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; .
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add_packed(
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

/// Adds `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_ull_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; .
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::ints(keys, count)?) })
}

/// Shared body of `sketch_ull_add_batch`, `sketch_ull_add_packed` and `sketch_ull_add_u64_batch`.
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
                ull::wrap_mut(b).map(|s| {
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
pub unsafe extern "C" fn sketch_ull_add_hash_batch(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::add_hashes(buf, len, hashes, count, core::ptr::null_mut::<bool>(), |b, h, _| {
            ull::wrap_mut(b)?.add_hashes(h);
            Ok(())
        })
    })
}

/// Writes the distinct-count estimate to `*out`.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_estimate(buf: *const c_void, len: usize, out: *mut f64) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(ull::wrap(b)?.estimate())) })
}

/// Empties the sketch (same precision and seed).
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_reset(buf: *mut c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            ull::wrap_mut(b)?.reset();
            Ok(())
        })
    })
}

/// Merges `src` into `dst`: afterwards `dst` estimates the union. Same seed
/// required; `src`'s precision must be at least `dst`'s (a higher precision
/// folds down).
///
/// Errors: `SKETCH_INCOMPATIBLE` (nothing changes), `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `dst`: `dst_len` writable bytes; `src`: `src_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_merge(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { merge_with(|d, s| ull::wrap_mut(d)?.merge(&ull::wrap(s)?), dst, dst_len, src, src_len) })
}

/// Writes in `*size` how many bytes the live image takes that
/// `sketch_ull_import` writes for the exported UltraLogLog sketch in `src`: the `dst_len`
/// to allocate (64-byte aligned, `SKETCH_IMAGE_ALIGN`) before importing. The size equals `src_len` for this family (only HyperLogLog's compact exports grow on import); calling it keeps code generic over the families.
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
pub unsafe extern "C" fn sketch_ull_import_size(
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { crate::image::import_size_with(ull::import_len, src, src_len, size) })
}

/// Imports untrusted bytes (`src`, exactly one exported image, no alignment
/// needed): verifies headers, length, checksum and body, then writes the live
/// image into `dst` (8-byte aligned, at least `sketch_ull_size` of its
/// precision). `dst` is written only on success.
///
/// Errors: `SKETCH_CHECKSUM_MISMATCH`, `SKETCH_LENGTH_MISMATCH`, `SKETCH_CORRUPT_HEADER`,
/// `SKETCH_CORRUPT_BODY`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_MISALIGNED`, `SKETCH_OVERLAP`, ...
///
/// # Safety
/// `src`: `src_len` readable bytes; `dst`: `dst_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_import(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { import_with(ull::import, src, src_len, dst, dst_len) })
}

/// Verifies untrusted bytes in place (headers, exact length, checksum, body).
///
/// # Safety
/// `bytes`: `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_verify(bytes: *const c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { Ok(ull::verify(crate::boundary::bytes(bytes, len)?)?) })
}

/// Writes the estimate from the registers alone (FGRA, ~0.78/sqrt(m)) to
/// `*out`: what a merged sketch reports. O(m).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_register_estimate(
    buf: *const c_void,
    len: usize,
    out: *mut f64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(ull::wrap(b)?.register_estimate())) })
}

/// Writes the maximum-likelihood estimate from the registers alone
/// (~0.76/sqrt(m), slightly more accurate than FGRA; O(m) plus a few
/// microseconds of Newton steps) to `*out`. `INFINITY` only when every
/// register holds the largest value with both history bits.
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_ml_estimate(
    buf: *const c_void,
    len: usize,
    out: *mut f64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(ull::wrap(b)?.ml_estimate())) })
}

/// Writes in `*bytes` how many bytes `sketch_ull_export` writes for this
/// image (its length), to size the destination first.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_exported_size(
    buf: *const c_void,
    len: usize,
    bytes: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, bytes, ull::exported_len) })
}

/// Exports the image in `buf` with its checksum into `out` (no alignment
/// needed, at least the image length); `*written` receives the byte count.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `out_len` writable bytes; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_export(
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { export_with(ull::export, buf, len, out, out_len, written) })
}

/// Writes into `dst` (8-byte aligned, at least `sketch_hll_size(p)` bytes for
/// `src`'s precision `p`) the HyperLogLog the same hashes give: same
/// precision and seed, each register keeping the largest update value.
///
/// Errors: `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_MISALIGNED`, `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `src`: `src_len` readable bytes; `dst`: `dst_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_to_hll(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        merge_with(|d, s| ull::to_hll(&ull::wrap(s)?, d).map(|_| ()), dst, dst_len, src, src_len)
    })
}

/// Writes the statistics of the sketch to `*out`. O(m).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_get_stats(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_ull_stats,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let s = ull::wrap(b)?.stats();
            Ok(sketch_ull_stats {
                precision: s.precision,
                martingale: u8::from(s.martingale),
                reserved: [0; 2],
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
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_MISALIGNED`, image errors.
///
/// # Safety
/// `buf`: `len` bytes, 8-byte aligned, accessed only through the concurrent
/// functions while any of them runs; `key`: `key_len` readable bytes.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add_concurrent(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        shared::one(buf, len, changed, false, |w| Ok(ull::wrap_shared(w)?.add(key)))
    })
}

/// Adds an integer key (8 little-endian bytes). From any number of threads at once on one image (the
/// concurrent functions only; see the header's thread-safety notes). `changed` (NULL: not wanted) receives true when a register changed.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_MISALIGNED`, image errors.
///
/// # Safety
/// `buf`: `len` bytes, 8-byte aligned, accessed only through the concurrent
/// functions while any of them runs.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add_concurrent_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, changed, false, |w| Ok(ull::wrap_shared(w)?.add_u64(key))) })
}

/// Adds a precomputed hash. From any number of threads at once on one image (the
/// concurrent functions only; see the header's thread-safety notes). `changed` (NULL: not wanted) receives true when a register changed.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_MISALIGNED`, image errors.
///
/// # Safety
/// `buf`: `len` bytes, 8-byte aligned, accessed only through the concurrent
/// functions while any of them runs.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add_concurrent_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, changed, false, |w| Ok(ull::wrap_shared(w)?.add_hash(hash))) })
}

/// Adds `count` byte keys (`sketch_slice` array). From any number of threads at once on one image (the
/// concurrent functions only).
///
/// # Safety
/// `buf` as for `sketch_ull_add_concurrent`; the keys and outputs as for the `_batch` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add_concurrent_batch(
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
/// concurrent functions only).
///
/// # Safety
/// `buf` as for `sketch_ull_add_concurrent`; the keys and outputs as for the `_packed` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add_concurrent_packed(
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
/// concurrent functions only).
///
/// # Safety
/// `buf` as for `sketch_ull_add_concurrent`; the keys and outputs as for the `_u64_batch` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_add_concurrent_u64_batch(
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
            |w| ull::wrap_shared(w).map(|s| (s, s.key_hasher())),
            |s, h, o| {
                let _ = o;
                s.add_hashes(h);
                Ok(())
            },
        )
    }
}

/// The FGRA estimate (`0.782/sqrt(m)`) from registers read with atomic
/// loads, safe while other threads add with the concurrent functions (exact
/// once they are done). O(m). The martingale estimate does not survive
/// concurrent adds.
///
/// # Safety
/// As for `sketch_ull_add_concurrent`; `out` writable.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_ull_estimate_concurrent(
    buf: *const c_void,
    len: usize,
    out: *mut f64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, out, true, |w| Ok(ull::wrap_shared(w)?.estimate())) })
}

#[cfg(test)]
mod tests {
    #[test]
    fn family_id_matches_the_core() {
        assert_eq!(super::SKETCH_FAMILY_ULTRALOGLOG, sketches_core::FamilyId::UltraLogLog as u16);
    }
}
