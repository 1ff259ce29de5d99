//! C ABI of the counting Bloom filter (`sketches_core::counting`).
//!
//! Planning uses `sketch_bloom_plan` / `sketch_bloom_plan_bits`: the
//! `bits` field is the number of 4-bit counters. Same buffer conventions as
//! the Bloom filter calls.

use crate::bloom::sketch_bloom_params;
use crate::boundary::{self, run, sketch_slice, Keys, Status};
use crate::filter;
use crate::image::{export_with, import_with, merge_with};
use crate::status::sketch_status;
use core::ffi::c_void;
use sketches_core::counting;

/// Family id of the counting Bloom filter.
pub const SKETCH_FAMILY_COUNTING_BLOOM: u16 = 3;

/// Statistics of a counting Bloom filter (`sketch_counting_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_counting_stats {
    /// Parameters (`bits` = counters).
    pub params: sketch_bloom_params,
    /// Hash seed.
    pub seed: u64,
    /// Add calls.
    pub add_calls: u64,
    /// Successful removals.
    pub removes: u64,
    /// Items currently stored (add calls minus successful removals).
    pub items: u64,
    /// Counters above zero.
    pub nonzero_counters: u64,
    /// Counters stuck at 15.
    pub saturated_counters: u64,
    /// Current false-positive rate estimated from the non-zero counters.
    pub estimated_fpr: f64,
    /// `SKETCH_CAPACITY_*` flags; 0 while the filter is within its plan.
    pub capacity_flags: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

/// Exact image size in bytes (a multiple of `SKETCH_IMAGE_ALIGN`) for `params` (`bits` = counters).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`.
///
/// # Safety
/// `params` must point to a readable struct; `bytes` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_size(
    params: *const sketch_bloom_params,
    bytes: *mut u64,
) -> sketch_status {
    run(|| {
        crate::boundary::require(params)?;
        crate::boundary::require(bytes)?;
        // SAFETY: non-NULL; caller contract.
        let p = unsafe { boundary::params(params)? };
        let n = counting::image_len(&p)?;
        // SAFETY: non-NULL; caller contract.
        unsafe { crate::boundary::write_out(bytes, n) }
    })
}

/// Writes an empty counting filter into `buf` (8-byte aligned, at least
/// `sketch_counting_size` bytes); `params->bits` is the number of counters.
/// Any previous content is overwritten.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`,
/// `SKETCH_MISALIGNED`, `SKETCH_BUFFER_TOO_SMALL`. On error `buf` is untouched.
///
/// # Safety
/// `buf` must point to `len` writable bytes; `params` to a readable struct.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_init(
    buf: *mut c_void,
    len: usize,
    params: *const sketch_bloom_params,
    seed: u64,
) -> sketch_status {
    run(|| {
        crate::boundary::require(params)?;
        // SAFETY: non-NULL; caller contract.
        let p = unsafe { boundary::params(params)? };
        // SAFETY: caller contract.
        unsafe { filter::mutate(buf, len, |b| counting::init(b, &p, seed).map(|_| ())) }
    })
}

/// Adds a byte key (increments its counters, saturating at 15). When
/// `was_new` is not NULL it receives true when some counter was 0.
/// `key` may be NULL when `key_len` is 0.
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image
/// (`SKETCH_MISALIGNED`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_BAD_MAGIC`,
/// `SKETCH_WRONG_FAMILY`, `SKETCH_CORRUPT_HEADER`, ...).
///
/// # Safety
/// `buf`: `len` writable bytes; `key`: `key_len` readable bytes; `was_new`: NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_add(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::update(buf, len, was_new, |b| Ok(counting::wrap_mut(b)?.add(key)))
    })
}

/// Adds an integer key (hashed as its 8 little-endian bytes). See `sketch_counting_add`.
///
/// # Safety
/// As for `sketch_counting_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_add_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, was_new, |b| Ok(counting::wrap_mut(b)?.add_u64(key))) })
}

/// Adds a precomputed hash (`sketch_hash(key, len, seed)` with the filter's
/// seed). See `sketch_counting_add`.
///
/// # Safety
/// As for `sketch_counting_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_add_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, was_new, |b| Ok(counting::wrap_mut(b)?.add_hash(hash))) })
}

/// Tests a byte key: `*out` is false when the key was certainly never added,
/// true when it may have been.
///
/// Errors: `SKETCH_NULL_POINTER` (out, or key with non-zero length), image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `key`: `key_len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_contains(
    buf: *const c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key(key, key_len)?;
        filter::query(buf, len, out, |b| Ok(counting::wrap(b)?.contains(key)))
    })
}

/// Tests an integer key. See `sketch_counting_contains`.
///
/// # Safety
/// As for `sketch_counting_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_contains_u64(
    buf: *const c_void,
    len: usize,
    key: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(counting::wrap(b)?.contains_u64(key))) })
}

/// Tests a precomputed hash. See `sketch_counting_contains`.
///
/// # Safety
/// As for `sketch_counting_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_contains_hash(
    buf: *const c_void,
    len: usize,
    hash: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(counting::wrap(b)?.contains_hash(hash))) })
}

/// Adds `count` byte keys in one call. `was_new` (NULL, or `count` slots)
/// receives per key whether it was new. Every key pointer is checked before
/// anything is added: on error nothing changes.
///
/// # Safety
/// `keys`: `count` readable `sketch_slice`s, each valid; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_add_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::slices(keys, count)?, was_new) })
}

/// Adds `count` keys packed in the Arrow Binary layout: key `i` is bytes
/// `offsets[i] .. offsets[i+1]` of `data` (`data_len` bytes; `offsets` has
/// `count + 1` entries, the layout of an Arrow Binary/String array).
/// Decreasing offsets or offsets past `data_len` give
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_counting_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_add_packed(
    buf: *mut c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::packed(data, data_len, offsets, count)?, was_new) })
}

/// Adds `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_counting_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_add_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::ints(keys, count)?, was_new) })
}

/// Shared body of `sketch_counting_add_batch`, `sketch_counting_add_packed` and `sketch_counting_add_u64_batch`.
///
/// # Safety
/// As documented on those functions.
unsafe fn add_keys(buf: *mut c_void, len: usize, keys: Keys<'_>, was_new: *mut bool) -> Status {
    // SAFETY: caller contract.
    unsafe {
        filter::add_keys(
            buf,
            len,
            keys,
            was_new,
            |b| {
                counting::wrap_mut(b).map(|f| {
                    let h = f.as_ref().key_hasher();
                    (f, h)
                })
            },
            |f, h, o| f.add_hashes(h, o),
        )
    }
}

/// Adds `count` precomputed hashes in one call. See `sketch_counting_add_batch`.
///
/// # Safety
/// `hashes`: `count` readable values; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_add_hash_batch(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::add_hashes(buf, len, hashes, count, was_new, |b, h, o| {
            counting::wrap_mut(b)?.add_hashes(h, o)
        })
    })
}

/// Tests `count` byte keys in one call; `results[i]` receives the answer for key `i`.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_contains_batch(
    buf: *const c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { contains_keys(buf, len, Keys::slices(keys, count)?, results) })
}

/// Tests `count` keys packed in the Arrow Binary layout: key `i` is bytes
/// `offsets[i] .. offsets[i+1]` of `data` (`data_len` bytes; `offsets` has
/// `count + 1` entries, the layout of an Arrow Binary/String array).
/// Decreasing offsets or offsets past `data_len` give
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_counting_contains_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_contains_packed(
    buf: *const c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { contains_keys(buf, len, Keys::packed(data, data_len, offsets, count)?, results) })
}

/// Tests `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_counting_contains_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_contains_u64_batch(
    buf: *const c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { contains_keys(buf, len, Keys::ints(keys, count)?, results) })
}

/// Shared body of `sketch_counting_contains_batch`, `sketch_counting_contains_packed` and `sketch_counting_contains_u64_batch`.
///
/// # Safety
/// As documented on those functions.
unsafe fn contains_keys(buf: *const c_void, len: usize, keys: Keys<'_>, results: *mut bool) -> Status {
    // SAFETY: caller contract.
    unsafe {
        filter::query_keys::<_, _, { sketches_core::filter::ROUND_KEYS }>(
            buf,
            len,
            keys,
            results,
            |b| counting::wrap(b).map(|f| (f, f.key_hasher())),
            |f, h, o| f.contains_hashes(h, o),
        )
    }
}

/// Tests `count` precomputed hashes in one call.
///
/// # Safety
/// `hashes`: `count` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_contains_hash_batch(
    buf: *const c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query_hashes(buf, len, hashes, count, results, |b, h, o| {
            counting::wrap(b)?.contains_hashes(h, o)
        })
    })
}

/// Merge: counter-wise saturating addition of `src` into `dst` (the
/// filter of both multisets). Equal counters, probes and seed required.
///
/// Errors: `SKETCH_INCOMPATIBLE` (nothing changes), `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `dst`: `dst_len` writable bytes; `src`: `src_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_merge(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        merge_with(|d, s| counting::wrap_mut(d)?.merge(&counting::wrap(s)?), dst, dst_len, src, src_len)
    })
}

/// Removes a byte key: decrements its counters (saturated counters stay 15).
///
/// Errors: `SKETCH_NOT_PRESENT` when some counter is 0 (nothing changes),
/// `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` writable bytes; `key`: `key_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_remove(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::mutate(buf, len, |b| counting::wrap_mut(b)?.remove(key))
    })
}

/// Removes an integer key. See `sketch_counting_remove`.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_remove_u64(buf: *mut c_void, len: usize, key: u64) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::mutate(buf, len, |b| counting::wrap_mut(b)?.remove_u64(key)) })
}

/// Removes a precomputed hash. See `sketch_counting_remove`.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_remove_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::mutate(buf, len, |b| counting::wrap_mut(b)?.remove_hash(hash)) })
}

/// Removes `count` byte keys; `removed[i]` is false for a key that was not
/// present (nothing changed for it). Every key pointer is checked first.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s; `removed`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_remove_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
    removed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { remove_keys(buf, len, Keys::slices(keys, count)?, removed) })
}

/// Removes `count` keys packed in the Arrow Binary layout: key `i` is bytes
/// `offsets[i] .. offsets[i+1]` of `data` (`data_len` bytes; `offsets` has
/// `count + 1` entries, the layout of an Arrow Binary/String array).
/// Decreasing offsets or offsets past `data_len` give
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_counting_remove_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; `removed`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_remove_packed(
    buf: *mut c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    removed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { remove_keys(buf, len, Keys::packed(data, data_len, offsets, count)?, removed) })
}

/// Removes `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_counting_remove_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; `removed`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_remove_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    removed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { remove_keys(buf, len, Keys::ints(keys, count)?, removed) })
}

/// Shared body of `sketch_counting_remove_batch`, `sketch_counting_remove_packed` and `sketch_counting_remove_u64_batch`.
///
/// # Safety
/// As documented on those functions.
unsafe fn remove_keys(buf: *mut c_void, len: usize, keys: Keys<'_>, removed: *mut bool) -> Status {
    // SAFETY: caller contract.
    unsafe {
        if keys.len() > 0 {
            crate::boundary::require(removed)?;
        }
        filter::add_keys(
            buf,
            len,
            keys,
            removed,
            |b| {
                counting::wrap_mut(b).map(|f| {
                    let h = f.as_ref().key_hasher();
                    (f, h)
                })
            },
            |f, h, o| match o {
                Some(o) => f.remove_hashes(h, o),
                None => Ok(()),
            },
        )
    }
}

/// Removes `count` precomputed hashes; `removed[i]` is false for an item
/// that was not present (nothing changed for it). Returns `SKETCH_OK` even
/// when some items were absent.
///
/// # Safety
/// `hashes`: `count` readable values; `removed`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_remove_hash_batch(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    removed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        if count > 0 {
            crate::boundary::require(removed)?;
        }
        filter::add_hashes(buf, len, hashes, count, removed, |b, h, o| match o {
            Some(o) => counting::wrap_mut(b)?.remove_hashes(h, o),
            None => Ok(()),
        })
    })
}

/// All statistics, O(1).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_get_stats(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_counting_stats,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let s = counting::wrap(b)?.stats();
            Ok(sketch_counting_stats {
                params: s.params.into(),
                seed: s.seed,
                add_calls: s.add_calls,
                removes: s.removes,
                items: s.items,
                nonzero_counters: s.nonzero_counters,
                saturated_counters: s.saturated_counters,
                estimated_fpr: s.estimated_fpr,
                capacity_flags: s.capacity.0,
                reserved: 0,
            })
        })
    })
}

/// The over-capacity signal, O(1): `*flags` gets `SKETCH_CAPACITY_*` bits,
/// 0 while the filter is within its plan. Cheap enough to call after every batch.
///
/// # Safety
/// `buf`: `len` readable bytes; `flags` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_capacity(
    buf: *const c_void,
    len: usize,
    flags: *mut u32,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, flags, |b| Ok(counting::wrap(b)?.capacity().0)) })
}

/// Removes every item (zeroes counters and statistics); parameters and seed stay.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_clear(buf: *mut c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            counting::wrap_mut(b)?.clear();
            Ok(())
        })
    })
}

/// Writes in `*bytes` how many bytes `sketch_counting_export` writes for this
/// image (its length), to size the destination first.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_exported_size(
    buf: *const c_void,
    len: usize,
    bytes: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, bytes, counting::exported_len) })
}

/// Serializes: copies the image to `out` (any alignment, at least the image
/// size) and writes the checksum there; `*written` gets the byte count. The
/// live image is not modified.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_BUFFER_TOO_SMALL` (`out_len` below `sketch_counting_exported_size`), `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `out_len` writable bytes; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_export(
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { export_with(counting::export, buf, len, out, out_len, written) })
}

/// Writes in `*size` how many bytes the live image takes that
/// `sketch_counting_import` writes for the exported counting Bloom filter in `src`: the `dst_len`
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
pub unsafe extern "C" fn sketch_counting_import_size(
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { crate::image::import_size_with(counting::import_len, src, src_len, size) })
}

/// Deserializes untrusted bytes: checks headers, exact length and checksum,
/// then copies into `dst` (8-byte aligned, at least `src_len` bytes). `dst` is
/// written only on success, so a bad input loses nothing already there.
///
/// Errors: `SKETCH_CHECKSUM_MISMATCH`, `SKETCH_LENGTH_MISMATCH`,
/// `SKETCH_WRONG_FAMILY`, `SKETCH_BAD_MAGIC`, `SKETCH_UNSUPPORTED_VERSION`,
/// `SKETCH_CORRUPT_HEADER`, `SKETCH_MISALIGNED`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_OVERLAP`.
///
/// # Safety
/// `src`: `src_len` readable bytes; `dst`: `dst_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_import(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { import_with(counting::import, src, src_len, dst, dst_len) })
}

/// Checks untrusted bytes in place (headers, exact length, checksum) without
/// copying, for example an `mmap`ed file before querying it zero-copy.
///
/// # Safety
/// `bytes`: `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_counting_verify(bytes: *const c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { Ok(counting::verify(crate::boundary::bytes(bytes, len)?)?) })
}
