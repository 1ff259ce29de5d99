//! C ABI of the cuckoo filter (`sketches_core::cuckoo`).
//!
//! Same buffer conventions as the other filters. An add that cannot be
//! placed returns `SKETCH_FULL` and leaves the image byte-identical.

use crate::boundary::{self, reserved_zero, run, sketch_slice, CParams, Fail, Keys, Status};
use crate::filter;
use crate::image::{export_with, import_with};
use crate::status::{sketch_status, SKETCH_OVERLAP};
use core::ffi::c_void;
use sketches_core::cuckoo::{self, CuckooParams};

/// Family id of the cuckoo filter.
pub const SKETCH_FAMILY_CUCKOO: u16 = 4;

/// Parameters of a cuckoo filter.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_cuckoo_params {
    /// Number of 4-slot buckets (any count, not only powers of two).
    pub buckets: u64,
    /// Fingerprint width in bits: 8, 12 or 16.
    pub fingerprint_bits: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
    /// Items the filter is planned for.
    pub planned_items: u64,
    /// False-positive rate planned at full load.
    pub planned_fpr: f64,
}

impl From<CuckooParams> for sketch_cuckoo_params {
    fn from(p: CuckooParams) -> Self {
        sketch_cuckoo_params {
            buckets: p.buckets,
            fingerprint_bits: p.fingerprint_bits,
            reserved: 0,
            planned_items: p.planned_items,
            planned_fpr: p.planned_fpr,
        }
    }
}

impl CParams for sketch_cuckoo_params {
    type Core = CuckooParams;
    fn to_core(&self) -> Result<CuckooParams, Fail> {
        reserved_zero(u64::from(self.reserved))?;
        Ok(CuckooParams {
            buckets: self.buckets,
            fingerprint_bits: self.fingerprint_bits,
            planned_items: self.planned_items,
            planned_fpr: self.planned_fpr,
        })
    }
}

/// Statistics of a cuckoo filter.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_cuckoo_stats {
    /// Parameters.
    pub params: sketch_cuckoo_params,
    /// Hash seed.
    pub seed: u64,
    /// Stored items (fingerprints).
    pub items: u64,
    /// Load: items / (buckets * 4).
    pub load: f64,
    /// Current false-positive rate bound at this load.
    pub estimated_fpr: f64,
    /// `SKETCH_CAPACITY_*` flags; 0 while within the plan.
    pub capacity_flags: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

/// Plans from expected items and target rate: the narrowest fingerprint
/// (8, 12, 16 bits) meeting `fpr`, and ceil(n / 3.8) buckets (95% load).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (items 0, fpr not
/// in (0, 1) or below the 16-bit bound of about 1.2e-4).
///
/// # Safety
/// `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_plan(
    items: u64,
    fpr: f64,
    out: *mut sketch_cuckoo_params,
) -> sketch_status {
    run(|| {
        boundary::require(out)?;
        let p = CuckooParams::for_items(items, fpr)?;
        // SAFETY: caller contract.
        unsafe { boundary::write_out(out, p.into()) }
    })
}

/// Explicit bucket count and fingerprint width (8, 12 or 16).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`.
///
/// # Safety
/// `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_plan_buckets(
    buckets: u64,
    fingerprint_bits: u32,
    out: *mut sketch_cuckoo_params,
) -> sketch_status {
    run(|| {
        boundary::require(out)?;
        let p = CuckooParams::with_buckets(buckets, fingerprint_bits)?;
        // SAFETY: caller contract.
        unsafe { boundary::write_out(out, p.into()) }
    })
}

/// Exact image size in bytes (a multiple of `SKETCH_IMAGE_ALIGN`) for `params`.
///
/// # Safety
/// `params` readable; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_size(
    params: *const sketch_cuckoo_params,
    bytes: *mut u64,
) -> sketch_status {
    run(|| {
        boundary::require(params)?;
        boundary::require(bytes)?;
        // SAFETY: non-NULL; caller contract.
        let p = unsafe { boundary::params(params)? };
        let n = p.image_len()?;
        // SAFETY: non-NULL; caller contract.
        unsafe { boundary::write_out(bytes, n) }
    })
}

/// Writes an empty cuckoo filter into `buf` (8-byte aligned, at least
/// `sketch_cuckoo_size` bytes).
///
/// # Safety
/// `buf`: `len` writable bytes; `params` readable.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_init(
    buf: *mut c_void,
    len: usize,
    params: *const sketch_cuckoo_params,
    seed: u64,
) -> sketch_status {
    run(|| {
        boundary::require(params)?;
        // SAFETY: non-NULL; caller contract.
        let p = unsafe { boundary::params(params)? };
        // SAFETY: caller contract.
        unsafe { filter::mutate(buf, len, |b| cuckoo::init(b, &p, seed).map(|_| ())) }
    })
}

/// Adds a byte key. Errors: `SKETCH_FULL` when it cannot be placed within
/// 500 relocations (the image is then byte-identical to before), image errors.
///
/// Adds are a multiset: each add stores one more copy of the key's
/// fingerprint, and a key has 8 slots (its two buckets of 4), so its 9th
/// copy is `SKETCH_FULL` even in an almost empty filter (a larger filter
/// does not help). To keep a set, add only keys `sketch_cuckoo_contains`
/// does not find.
///
/// # Safety
/// `buf`: `len` writable bytes; `key`: `key_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_add(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::mutate(buf, len, |b| cuckoo::wrap_mut(b)?.add(key))
    })
}

/// Adds an integer key. See `sketch_cuckoo_add`.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_add_u64(buf: *mut c_void, len: usize, key: u64) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::mutate(buf, len, |b| cuckoo::wrap_mut(b)?.add_u64(key)) })
}

/// Adds a precomputed hash. See `sketch_cuckoo_add`.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_add_hash(buf: *mut c_void, len: usize, hash: u64) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::mutate(buf, len, |b| cuckoo::wrap_mut(b)?.add_hash(hash)) })
}

/// Adds `count` byte keys; `added[i]` (NULL: not wanted) is false for a key
/// that did not fit (nothing changed for it; the batch goes on). Returns
/// `SKETCH_OK` even when some did not fit.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s; `added`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_add_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
    added: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::slices(keys, count)?, added) })
}

/// Adds `count` keys packed in the Arrow Binary layout: key `i` is bytes
/// `offsets[i] .. offsets[i+1]` of `data` (`data_len` bytes; `offsets` has
/// `count + 1` entries, the layout of an Arrow Binary/String array).
/// Decreasing offsets or offsets past `data_len` give
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_cuckoo_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; `added`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_add_packed(
    buf: *mut c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    added: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::packed(data, data_len, offsets, count)?, added) })
}

/// Adds `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_cuckoo_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; `added`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_add_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    added: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::ints(keys, count)?, added) })
}

/// Shared body of the cuckoo batch adds and removes over keys:
/// `op(filter, hashes, out)` per chunk; `out` NULL means "not wanted".
///
/// # Safety
/// As documented on those functions.
unsafe fn update_keys(
    buf: *mut c_void,
    len: usize,
    keys: Keys<'_>,
    out: *mut bool,
    op: impl Fn(&mut cuckoo::CuckooMut<'_>, &[u64], Option<&mut [bool]>) -> sketches_core::Result<()>,
) -> Status {
    // SAFETY: caller contract.
    unsafe {
        filter::add_keys(
            buf,
            len,
            keys,
            out,
            |b| {
                cuckoo::wrap_mut(b).map(|f| {
                    let h = f.as_ref().key_hasher();
                    (f, h)
                })
            },
            op,
        )
    }
}

/// Shared body of `sketch_cuckoo_add_batch`, `sketch_cuckoo_add_packed` and `sketch_cuckoo_add_u64_batch`.
///
/// # Safety
/// As documented on those functions.
unsafe fn add_keys(buf: *mut c_void, len: usize, keys: Keys<'_>, added: *mut bool) -> Status {
    // SAFETY: caller contract.
    unsafe { update_keys(buf, len, keys, added, |f, h, o| f.add_hashes(h, o)) }
}

/// Adds `count` precomputed hashes; see `sketch_cuckoo_add_batch`.
///
/// # Safety
/// `hashes`: `count` readable values; `added`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_add_hash_batch(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    added: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::add_hashes(buf, len, hashes, count, added, |b, h, o| cuckoo::wrap_mut(b)?.add_hashes(h, o))
    })
}

/// Tests a byte key: `*out` is false when it is certainly not stored.
///
/// # Safety
/// `buf`: `len` readable bytes; `key`: `key_len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_contains(
    buf: *const c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key(key, key_len)?;
        filter::query(buf, len, out, |b| Ok(cuckoo::wrap(b)?.contains(key)))
    })
}

/// Tests an integer key.
///
/// # Safety
/// As for `sketch_cuckoo_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_contains_u64(
    buf: *const c_void,
    len: usize,
    key: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(cuckoo::wrap(b)?.contains_u64(key))) })
}

/// Tests a precomputed hash.
///
/// # Safety
/// As for `sketch_cuckoo_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_contains_hash(
    buf: *const c_void,
    len: usize,
    hash: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(cuckoo::wrap(b)?.contains_hash(hash))) })
}

/// Tests `count` byte keys.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_contains_batch(
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
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_cuckoo_contains_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_contains_packed(
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

/// Tests `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_cuckoo_contains_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_contains_u64_batch(
    buf: *const c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { contains_keys(buf, len, Keys::ints(keys, count)?, results) })
}

/// Shared body of `sketch_cuckoo_contains_batch`, `sketch_cuckoo_contains_packed` and `sketch_cuckoo_contains_u64_batch`.
///
/// # Safety
/// As documented on those functions.
unsafe fn contains_keys(buf: *const c_void, len: usize, keys: Keys<'_>, results: *mut bool) -> Status {
    // SAFETY: caller contract.
    unsafe {
        filter::query_keys::<_, _, { boundary::CHUNK }>(
            buf,
            len,
            keys,
            results,
            |b| cuckoo::wrap(b).map(|f| (f, f.key_hasher())),
            |f, h, o| f.contains_hashes(h, o),
        )
    }
}

/// Tests `count` precomputed hashes.
///
/// # Safety
/// `hashes`: `count` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_contains_hash_batch(
    buf: *const c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query_hashes(buf, len, hashes, count, results, |b, h, o| {
            cuckoo::wrap(b)?.contains_hashes(h, o)
        })
    })
}

/// How many copies of a byte key's fingerprint are stored (0..=8).
///
/// # Safety
/// `buf`: `len` readable bytes; `key`: `key_len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_count(
    buf: *const c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    out: *mut u32,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key(key, key_len)?;
        filter::query(buf, len, out, |b| Ok(cuckoo::wrap(b)?.count(key)))
    })
}

/// Removes one copy of a byte key's fingerprint. Errors: `SKETCH_NOT_PRESENT`
/// (nothing changes). Only remove keys that were added: removing a false
/// positive deletes another key's fingerprint.
///
/// # Safety
/// `buf`: `len` writable bytes; `key`: `key_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_remove(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::mutate(buf, len, |b| cuckoo::wrap_mut(b)?.remove(key))
    })
}

/// Removes an integer key. See `sketch_cuckoo_remove`.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_remove_u64(buf: *mut c_void, len: usize, key: u64) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::mutate(buf, len, |b| cuckoo::wrap_mut(b)?.remove_u64(key)) })
}

/// Removes a precomputed hash. See `sketch_cuckoo_remove`.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_remove_hash(buf: *mut c_void, len: usize, hash: u64) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::mutate(buf, len, |b| cuckoo::wrap_mut(b)?.remove_hash(hash)) })
}

/// Removes one stored copy of each of `count` byte keys; `removed[i]` (NULL:
/// not wanted) is false for a key with no stored copy (nothing changed for
/// it; the batch goes on). Returns `SKETCH_OK` even when some were absent.
/// Every key pointer is checked before anything changes. As with
/// `sketch_cuckoo_remove`, only remove keys that were added.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s; `removed`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_remove_batch(
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
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_cuckoo_remove_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; `removed`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_remove_packed(
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

/// Removes `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_cuckoo_remove_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; `removed`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_remove_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    removed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { remove_keys(buf, len, Keys::ints(keys, count)?, removed) })
}

/// Removes `count` precomputed hashes; see `sketch_cuckoo_remove_batch`.
///
/// # Safety
/// `hashes`: `count` readable values; `removed`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_remove_hash_batch(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    removed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::add_hashes(buf, len, hashes, count, removed, |b, h, o| {
            cuckoo::wrap_mut(b)?.remove_hashes(h, o)
        })
    })
}

/// Shared body of `sketch_cuckoo_remove_batch`, `sketch_cuckoo_remove_packed` and `sketch_cuckoo_remove_u64_batch`.
///
/// # Safety
/// As documented on those functions.
unsafe fn remove_keys(buf: *mut c_void, len: usize, keys: Keys<'_>, removed: *mut bool) -> Status {
    // SAFETY: caller contract.
    unsafe { update_keys(buf, len, keys, removed, |f, h, o| f.remove_hashes(h, o)) }
}

/// Merge: inserts every fingerprint of `src` into `dst` (same buckets, width
/// and seed), all or nothing. `scratch` (8-byte aligned, at least `dst_len`
/// bytes, overlapping neither) is the caller-provided workspace.
///
/// Errors: `SKETCH_FULL` (dst unchanged), `SKETCH_INCOMPATIBLE`,
/// `SKETCH_OVERLAP`, `SKETCH_BUFFER_TOO_SMALL`/`SKETCH_MISALIGNED` (scratch).
///
/// # Safety
/// `dst`: writable; `src`: readable; `scratch`: writable; as sized.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_merge(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
    scratch: *mut c_void,
    scratch_len: usize,
) -> sketch_status {
    run(|| {
        let d = dst.cast_const();
        let w = scratch.cast_const();
        if boundary::overlaps(d, dst_len, src, src_len)
            || boundary::overlaps(d, dst_len, w, scratch_len)
            || boundary::overlaps(src, src_len, w, scratch_len)
        {
            return Err(Fail(SKETCH_OVERLAP));
        }
        // SAFETY: caller contract; the three ranges do not overlap (checked).
        let (d, s, w) = unsafe {
            (
                boundary::bytes_mut(dst, dst_len)?,
                boundary::bytes(src, src_len)?,
                boundary::bytes_mut(scratch, scratch_len)?,
            )
        };
        Ok(cuckoo::wrap_mut(d)?.merge(&cuckoo::wrap(s)?, w)?)
    })
}

/// All statistics, O(1).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_get_stats(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_cuckoo_stats,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let s = cuckoo::wrap(b)?.stats();
            Ok(sketch_cuckoo_stats {
                params: s.params.into(),
                seed: s.seed,
                items: s.items,
                load: s.load,
                estimated_fpr: s.estimated_fpr,
                capacity_flags: s.capacity.0,
                reserved: 0,
            })
        })
    })
}

/// The over-capacity signal, O(1) (`SKETCH_CAPACITY_*` bits).
///
/// # Safety
/// `buf`: `len` readable bytes; `flags` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_capacity(
    buf: *const c_void,
    len: usize,
    flags: *mut u32,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, flags, |b| Ok(cuckoo::wrap(b)?.stats().capacity.0)) })
}

/// Removes every item.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_clear(buf: *mut c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            cuckoo::wrap_mut(b)?.clear();
            Ok(())
        })
    })
}

/// Writes in `*bytes` how many bytes `sketch_cuckoo_export` writes for this
/// image (its length), to size the destination first.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_exported_size(
    buf: *const c_void,
    len: usize,
    bytes: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, bytes, cuckoo::exported_len) })
}

/// Serializes (copy + checksum); `*written` gets the byte count.
///
/// # Safety
/// `buf`: readable; `out`: `out_len` writable bytes; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_export(
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { export_with(cuckoo::export, buf, len, out, out_len, written) })
}

/// Writes in `*size` how many bytes the live image takes that
/// `sketch_cuckoo_import` writes for the exported cuckoo filter in `src`: the `dst_len`
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
pub unsafe extern "C" fn sketch_cuckoo_import_size(
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { crate::image::import_size_with(cuckoo::import_len, src, src_len, size) })
}

/// Deserializes untrusted bytes (headers, exact length, checksum) into the
/// aligned `dst`, written only on success.
///
/// # Safety
/// `src`: readable; `dst`: `dst_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_import(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { import_with(cuckoo::import, src, src_len, dst, dst_len) })
}

/// Checks untrusted bytes in place.
///
/// # Safety
/// `bytes`: `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_cuckoo_verify(bytes: *const c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { Ok(cuckoo::verify(boundary::bytes(bytes, len)?)?) })
}
