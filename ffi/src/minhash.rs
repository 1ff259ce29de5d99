//! C ABI of MinHash (`sketches_core::minhash`).

use crate::boundary::{self, run, sketch_slice, Keys, Span, Status};
use crate::filter;
use crate::image::{export_with, import_with, merge_with};
use crate::status::sketch_status;
use core::ffi::c_void;
use sketches_core::minhash;

/// Family id of MinHash.
pub const SKETCH_FAMILY_MINHASH: u16 = 9;

/// Statistics of a MinHash sketch (`sketch_minhash_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_minhash_stats {
    /// Registers `k`.
    pub registers: u32,
    /// Registers that received at least one item.
    pub filled: u32,
    /// Hash seed.
    pub seed: u64,
}

/// Exact image size in bytes (a multiple of `SKETCH_IMAGE_ALIGN`) for `k` registers (1 ..= 2^20).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`.
///
/// # Safety
/// `bytes` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_size(k: u32, bytes: *mut u64) -> sketch_status {
    run(|| {
        boundary::require(bytes)?;
        let n = minhash::image_len(k)?;
        // SAFETY: non-NULL; caller contract.
        unsafe { boundary::write_out(bytes, n) }
    })
}

/// Writes an empty sketch of `k` registers into `buf` (8-byte aligned, at
/// least `sketch_minhash_size` bytes). Sketches compare only with the same
/// `k` and seed.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`, `SKETCH_MISALIGNED`,
/// `SKETCH_BUFFER_TOO_SMALL`. On error `buf` is untouched.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_init(
    buf: *mut c_void,
    len: usize,
    k: u32,
    seed: u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::mutate(buf, len, |b| minhash::init(b, k, seed).map(|_| ())) })
}

/// Adds a byte key (one hash per item). `changed` (NULL allowed) receives
/// true when its bin's minimum dropped.
///
/// # Safety
/// `buf`: `len` writable bytes; `key`: `key_len` readable bytes; `changed`: NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_add(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::update(buf, len, changed, |b| Ok(minhash::wrap_mut(b)?.add(key)))
    })
}

/// Adds an integer key. See `sketch_minhash_add`.
///
/// # Safety
/// As for `sketch_minhash_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_add_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, changed, |b| Ok(minhash::wrap_mut(b)?.add_u64(key))) })
}

/// Adds a precomputed hash. See `sketch_minhash_add`.
///
/// # Safety
/// As for `sketch_minhash_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_add_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, changed, |b| Ok(minhash::wrap_mut(b)?.add_hash(hash))) })
}

/// Adds `count` byte keys; every pointer is checked before anything is added.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_add_batch(
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
/// `count + 1` entries). Decreasing offsets or offsets past `data_len` give
/// `SKETCH_INVALID_PARAMETER` before anything changes.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` values.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_add_packed(
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

/// Adds `count` integer keys (each hashed as its 8 little-endian bytes).
///
/// # Safety
/// `keys`: `count` values.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_add_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::ints(keys, count)?) })
}

/// Shared body of the keyed batch adds.
///
/// # Safety
/// `buf`: `len` writable bytes.
unsafe fn add_keys(buf: *mut c_void, len: usize, keys: Keys<'_>) -> Status {
    // SAFETY: caller contract.
    unsafe {
        filter::add_keys(
            buf,
            len,
            keys,
            core::ptr::null_mut::<bool>(),
            |b| {
                minhash::wrap_mut(b).map(|s| {
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

/// Adds `count` precomputed hashes.
///
/// # Safety
/// `hashes`: `count` values.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_add_hash_batch(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        boundary::apart(&[Span::of(buf.cast::<u8>(), len)], None, &[Span::of(hashes, count)])?;
        let (image, hashes) = (boundary::bytes_mut(buf, len)?, boundary::array(hashes, count)?);
        minhash::wrap_mut(image)?.add_hashes(hashes);
        Ok(())
    })
}

/// Writes the estimated Jaccard similarity of the two sets to `*out` (0..1;
/// two empty sketches give 1). Cost: as `sketch_minhash_signature` of both.
///
/// Errors: `SKETCH_INCOMPATIBLE` (different k or seed), `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `a`: `a_len` readable bytes; `b`: `b_len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_jaccard(
    a: *const c_void,
    a_len: usize,
    b: *const c_void,
    b_len: usize,
    out: *mut f64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        boundary::out_apart(out, b, b_len)?;
        let other = boundary::bytes(b, b_len)?;
        filter::query(a, a_len, out, |x| minhash::wrap(x)?.jaccard(&minhash::wrap(other)?))
    })
}

/// Writes the `k` densified signature values to `out` (for LSH banding).
///
/// Cost: O(k) when most registers are filled, but an empty register probes
/// about `k / filled` others: about `k * (k - filled) / filled` probes,
/// quadratic in `k` for a sketch that saw few items (one item at
/// `k = 16384` takes most of a second, at `k = 2^20` most of an hour, in
/// this one call). Check `filled` (`sketch_minhash_get_stats`) first, or
/// pick `k` well below the distinct items a sketch will see.
///
/// Errors: `SKETCH_INVALID_ARGUMENT` unless `count` is `k`, `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `count` writable values.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_signature(
    buf: *const c_void,
    len: usize,
    out: *mut u64,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        if count > 0 {
            boundary::require(out)?;
        }
        boundary::apart(&[Span::of(out, count)], None, &[Span::of(buf.cast::<u8>(), len)])?;
        let (image, out) = (boundary::bytes(buf, len)?, boundary::array_mut(out, count)?);
        Ok(minhash::wrap(image)?.signature(out)?)
    })
}

/// Merge: register-wise minimum of `src` into `dst` (the sketch of the union).
///
/// Errors: `SKETCH_INCOMPATIBLE` (nothing changes), `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `dst`: `dst_len` writable bytes; `src`: `src_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_merge(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        merge_with(|d, s| minhash::wrap_mut(d)?.merge(&minhash::wrap(s)?), dst, dst_len, src, src_len)
    })
}

/// Empties the sketch.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_clear(buf: *mut c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            minhash::wrap_mut(b)?.clear();
            Ok(())
        })
    })
}

/// Writes in `*bytes` how many bytes `sketch_minhash_export` writes for this
/// image (its length), to size the destination first.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_exported_size(
    buf: *const c_void,
    len: usize,
    bytes: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, bytes, minhash::exported_len) })
}

/// Exports the image with its checksum into `out`; `*written` receives the byte count.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `out_len` writable bytes; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_export(
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { export_with(minhash::export, buf, len, out, out_len, written) })
}

/// Writes in `*size` how many bytes the live image takes that
/// `sketch_minhash_import` writes for the exported MinHash signature in `src`: the `dst_len`
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
pub unsafe extern "C" fn sketch_minhash_import_size(
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { crate::image::import_size_with(minhash::import_len, src, src_len, size) })
}

/// Imports untrusted bytes (exact length, headers, checksum) into the aligned
/// `dst`, written only on success.
///
/// # Safety
/// `src`: `src_len` readable bytes; `dst`: `dst_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_import(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { import_with(minhash::import, src, src_len, dst, dst_len) })
}

/// Verifies untrusted bytes in place.
///
/// # Safety
/// `bytes`: `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_verify(bytes: *const c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { Ok(minhash::verify(boundary::bytes(bytes, len)?)?) })
}

/// Writes the statistics of the sketch to `*out`. O(k).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_minhash_get_stats(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_minhash_stats,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let s = minhash::wrap(b)?.stats();
            Ok(sketch_minhash_stats { registers: s.registers, filled: s.filled, seed: s.seed })
        })
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn family_id_matches_the_core() {
        assert_eq!(super::SKETCH_FAMILY_MINHASH, sketches_core::FamilyId::MinHash as u16);
    }
}
