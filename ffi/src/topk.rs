//! C ABI of the Top-k heavy-hitters sketch (`sketches_core::topk`).

use crate::boundary::{self, run, sketch_slice, Fail, Keys, Span, Status};
use crate::filter;
use crate::image::{export_with, import_with, merge_with};
use crate::status::{sketch_status, SKETCH_KEY_TOO_LONG};
use core::ffi::c_void;
use sketches_core::topk::{self, TopKParams};

/// Family id of the Top-k sketch.
pub const SKETCH_FAMILY_TOPK: u16 = 8;

/// One listed key (`sketch_topk_list`). `key` points **into the sketch's
/// buffer**: it stays valid until the buffer is changed or freed.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sketch_topk_item {
    /// Key bytes (inside the sketch buffer).
    pub key: *const u8,
    /// Key length in bytes.
    pub key_len: usize,
    /// Estimated count: at least the true count.
    pub count: u64,
    /// Maximum overestimation: the true count is at least `count - error`.
    pub error: u64,
}

/// The estimate for one key (`sketch_topk_estimate`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_topk_key_estimate {
    /// Upper bound of the true count.
    pub count: u64,
    /// Maximum overestimation.
    pub error: u64,
    /// True when the key has a counter.
    pub listed: bool,
}

/// Statistics of a Top-k sketch (`sketch_topk_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_topk_stats {
    /// Counters.
    pub capacity: u32,
    /// Longest key in bytes.
    pub max_key_len: u32,
    /// Counters in use.
    pub used: u32,
    /// Reserved, 0.
    pub reserved: u32,
    /// Hash seed.
    pub seed: u64,
    /// Total weight N.
    pub total: u64,
    /// Smallest count when full (every estimate's overestimation bound), else 0.
    pub min_count: u64,
}

/// Exact image size in bytes (a multiple of `SKETCH_IMAGE_ALIGN`) for `capacity` counters (1 ..= 2^20) holding
/// keys of up to `max_key_len` bytes (1 ..= 4096). The image must stay below
/// 4 GiB, which the largest capacity with keys of more than about 4,040
/// bytes exceeds (`SKETCH_INVALID_PARAMETER`).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (a value out of
/// range, or an image of 4 GiB or more).
///
/// # Safety
/// `bytes` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_size(capacity: u32, max_key_len: u32, bytes: *mut u64) -> sketch_status {
    run(|| {
        boundary::require(bytes)?;
        let n = TopKParams { capacity, max_key_len }.image_len()?;
        // SAFETY: non-NULL; caller contract.
        unsafe { boundary::write_out(bytes, n) }
    })
}

/// Writes an empty sketch into `buf` (8-byte aligned, at least `sketch_topk_size` bytes).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (as for
/// `sketch_topk_size`), `SKETCH_MISALIGNED`,
/// `SKETCH_BUFFER_TOO_SMALL`. On error `buf` is untouched.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_init(
    buf: *mut c_void,
    len: usize,
    capacity: u32,
    max_key_len: u32,
    seed: u64,
) -> sketch_status {
    let params = TopKParams { capacity, max_key_len };
    // SAFETY: caller contract.
    run(|| unsafe { filter::mutate(buf, len, |b| topk::init(b, &params, seed).map(|_| ())) })
}

/// Adds `weight` occurrences of a byte key (stored inline). A weight of 0 is
/// no occurrence and changes nothing (it takes no counter, evicts no key).
///
/// Errors: `SKETCH_KEY_TOO_LONG` (nothing changes), `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` writable bytes; `key`: `key_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_add(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    weight: u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::mutate(buf, len, |b| topk::wrap_mut(b)?.add(key, weight))
    })
}

/// Adds `weight` occurrences of an integer key (stored as its 8 little-endian
/// bytes; a sketch whose maximum key length is below 8 refuses it with
/// `SKETCH_KEY_TOO_LONG`). A weight of 0 changes nothing.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_add_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    weight: u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::mutate(buf, len, |b| topk::wrap_mut(b)?.add_u64(key, weight)) })
}

/// Adds `count` byte keys; `weights` (NULL: 1 each; a key of weight 0 changes
/// nothing). Every key is checked
/// (pointer and length) before anything is added: on error nothing changes.
///
/// Errors: `SKETCH_KEY_TOO_LONG` (some key is longer than the maximum key
/// length; nothing changes), `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s; `weights`: NULL or `count` values.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_add_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
    weights: *const u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::slices(keys, count)?, weights) })
}

/// Adds `count` keys packed in the Arrow Binary layout: key `i` is bytes
/// `offsets[i] .. offsets[i+1]` of `data` (`data_len` bytes; `offsets` has
/// `count + 1` entries); `weights` as in `sketch_topk_add_batch`. Decreasing
/// offsets or offsets past `data_len` give `SKETCH_INVALID_PARAMETER`, a key
/// above the maximum length `SKETCH_KEY_TOO_LONG`, before anything changes.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` values;
/// `weights`: NULL or `count` values.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_add_packed(
    buf: *mut c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    weights: *const u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::packed(data, data_len, offsets, count)?, weights) })
}

/// Adds `count` integer keys (each stored as its 8 little-endian bytes);
/// `weights` as in `sketch_topk_add_batch`.
///
/// # Safety
/// `keys`: `count` values; `weights`: NULL or `count` values.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_add_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    weights: *const u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::ints(keys, count)?, weights) })
}

/// Shared body of the keyed batch adds: every key length is checked before
/// the first add.
///
/// # Safety
/// `buf`: `len` writable bytes; `weights`: NULL or `keys.len()` values.
unsafe fn add_keys(buf: *mut c_void, len: usize, keys: Keys<'_>, weights: *const u64) -> Status {
    // A NULL `weights` covers no memory (`Span::of`).
    boundary::apart(&[Span::of(buf.cast::<u8>(), len)], Some(&keys), &[Span::of(weights, keys.len())])?;
    // SAFETY: caller contract; no other argument overlaps the image (checked).
    let image = unsafe { boundary::bytes_mut(buf, len)? };
    // SAFETY: caller contract.
    let weights =
        if weights.is_null() { None } else { Some(unsafe { boundary::array(weights, keys.len())? }) };
    let mut sketch = topk::wrap_mut(image)?;
    let max = sketch.as_ref().params().max_key_len as usize;
    for i in 0..keys.len() {
        if keys.with_key(i, |k| k.len() > max).unwrap_or(true) {
            return Err(Fail(SKETCH_KEY_TOO_LONG));
        }
    }
    for i in 0..keys.len() {
        let w = weights.and_then(|w| w.get(i)).copied().unwrap_or(1);
        keys.with_key(i, |k| sketch.add(k, w)).unwrap_or(Ok(()))?;
    }
    Ok(())
}

/// Writes the estimate for a byte key to `*out`.
///
/// Errors: `SKETCH_KEY_TOO_LONG` when `key_len` exceeds the sketch's
/// maximum key length (as `sketch_topk_add` refuses such a key; the key
/// bytes are not read then), `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `key`: `key_len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_estimate(
    buf: *const c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    out: *mut sketch_topk_key_estimate,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let sketch = topk::wrap(b)?;
            // Checked before the key is borrowed: a claimed length is never trusted further.
            if key_len > sketch.params().max_key_len as usize {
                return Err(sketches_core::Error::KeyTooLong);
            }
            let key = filter::key(key, key_len).map_err(|_| sketches_core::Error::InvalidArgument)?;
            let e = sketch.estimate(key)?;
            Ok(sketch_topk_key_estimate { count: e.count, error: e.error, listed: e.listed })
        })
    })
}

/// Writes up to `capacity` listed keys, largest count first, into `items`;
/// `*written` receives how many. Key pointers point into `buf`.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `items`: `capacity` writable items; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_list(
    buf: *const c_void,
    len: usize,
    items: *mut sketch_topk_item,
    capacity: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        boundary::require(written)?;
        if capacity > 0 {
            boundary::require(items)?;
        }
        let written_spans = [Span::of(items, capacity), Span::of(written, 1)];
        boundary::apart(&written_spans, None, &[Span::of(buf.cast::<u8>(), len)])?;
        let (image, out) = (boundary::bytes(buf, len)?, boundary::array_mut(items, capacity)?);
        let sketch = topk::wrap(image)?;
        let n = sketch.top_as(
            out,
            |i| sketch_topk_item {
                key: i.key.as_ptr(),
                key_len: i.key.len(),
                count: i.count,
                error: i.error,
            },
            |i| (i.count, i.error),
        );
        boundary::write_out(written, n)
    })
}

/// Merges `src` into `dst` (same capacity, maximum key length and seed):
/// keeps the `capacity` keys with the largest combined estimates. Every key
/// with true count above N/capacity stays listed, every count overestimates
/// by at most N/capacity (N = both totals).
///
/// Errors: `SKETCH_INCOMPATIBLE` (nothing changes), `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `dst`: `dst_len` writable bytes; `src`: `src_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_merge(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { merge_with(topk::merge_images, dst, dst_len, src, src_len) })
}

/// Removes every key.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_clear(buf: *mut c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            topk::wrap_mut(b)?.clear();
            Ok(())
        })
    })
}

/// Writes in `*bytes` how many bytes `sketch_topk_export` writes for this
/// image (its length), to size the destination first.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_exported_size(
    buf: *const c_void,
    len: usize,
    bytes: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, bytes, topk::exported_len) })
}

/// Exports the image with its checksum into `out`; `*written` receives the byte count.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `out_len` writable bytes; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_export(
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { export_with(topk::export, buf, len, out, out_len, written) })
}

/// Writes in `*size` how many bytes the live image takes that
/// `sketch_topk_import` writes for the exported Top-k sketch in `src`: the `dst_len`
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
pub unsafe extern "C" fn sketch_topk_import_size(
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { crate::image::import_size_with(topk::import_len, src, src_len, size) })
}

/// Imports untrusted bytes (exact length, headers, checksum, and every
/// counter, index slot and heap entry consistent) into the aligned `dst`,
/// written only on success.
///
/// Errors: `SKETCH_CHECKSUM_MISMATCH`, `SKETCH_CORRUPT_HEADER`, `SKETCH_CORRUPT_BODY`, ...
///
/// # Safety
/// `src`: `src_len` readable bytes; `dst`: `dst_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_import(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { import_with(topk::import, src, src_len, dst, dst_len) })
}

/// Verifies untrusted bytes in place (as `sketch_topk_import` does).
///
/// # Safety
/// `bytes`: `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_verify(bytes: *const c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { Ok(topk::verify(boundary::bytes(bytes, len)?)?) })
}

/// Writes the statistics of the sketch to `*out`. O(1).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_topk_get_stats(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_topk_stats,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let s = topk::wrap(b)?.stats();
            Ok(sketch_topk_stats {
                capacity: s.params.capacity,
                max_key_len: s.params.max_key_len,
                used: s.used,
                reserved: 0,
                seed: s.seed,
                total: s.total,
                min_count: s.min_count,
            })
        })
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn family_id_matches_the_core() {
        assert_eq!(super::SKETCH_FAMILY_TOPK, sketches_core::FamilyId::TopK as u16);
    }
}
