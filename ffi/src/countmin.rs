//! C ABI of the Count-Min sketch (`sketches_core::countmin`).

use crate::boundary::{self, reserved_zero, run, sketch_slice, CParams, Fail, Keys, Span, Status};
use crate::filter;
use crate::image::{export_with, import_with, merge_with};
use crate::status::sketch_status;
use core::ffi::c_void;
use sketches_core::countmin::{self, CountMinParams};

/// Family id of the Count-Min sketch.
pub const SKETCH_FAMILY_COUNT_MIN: u16 = 7;

/// Parameters of a Count-Min sketch.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_countmin_params {
    /// Counters per row (1 ..= 2^32; with `depth` and `counter_bits`, at
    /// most 2^40 bytes of counters).
    pub width: u64,
    /// Rows (1 ..= 64).
    pub depth: u32,
    /// Counter width: 32 or 64 bits; counters saturate, never wrap.
    pub counter_bits: u32,
    /// Non-zero: conservative update (raise counters only to min + weight).
    pub conservative: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

impl From<CountMinParams> for sketch_countmin_params {
    fn from(p: CountMinParams) -> Self {
        sketch_countmin_params {
            width: p.width,
            depth: p.depth,
            counter_bits: p.counter_bits,
            conservative: u32::from(p.conservative),
            reserved: 0,
        }
    }
}

impl CParams for sketch_countmin_params {
    type Core = CountMinParams;
    fn to_core(&self) -> Result<CountMinParams, Fail> {
        reserved_zero(u64::from(self.reserved))?;
        Ok(CountMinParams {
            width: self.width,
            depth: self.depth,
            counter_bits: self.counter_bits,
            conservative: self.conservative != 0,
        })
    }
}

/// Statistics of a Count-Min sketch (`sketch_countmin_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_countmin_stats {
    /// Parameters.
    pub params: sketch_countmin_params,
    /// Hash seed.
    pub seed: u64,
    /// Total weight added, N (saturating).
    pub total: u64,
    /// epsilon = e / width.
    pub epsilon: f64,
    /// delta = e^-depth.
    pub delta: f64,
    /// epsilon * N: an estimate exceeds the truth by more than this with
    /// probability at most delta.
    pub error_bound: f64,
}

/// Plans from the guarantee: `width = ceil(e / epsilon)`, `depth =
/// ceil(ln(1 / delta))`, 32-bit counters, plain update (edit the struct to
/// change the last two).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (unless
/// 0 < epsilon < 1 and 0 < delta < 1, and the plan fits the limits:
/// epsilon of at least e / 2^32, about 6.3e-10, for a width of at most
/// 2^32, and delta of at least e^-64, about 1.6e-28, for at most 64 rows).
///
/// # Safety
/// `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_plan(
    epsilon: f64,
    delta: f64,
    out: *mut sketch_countmin_params,
) -> sketch_status {
    run(|| {
        boundary::require(out)?;
        let p = CountMinParams::for_error(epsilon, delta)?;
        // SAFETY: non-NULL; caller contract.
        unsafe { boundary::write_out(out, p.into()) }
    })
}

/// Explicit `width x depth`, 32-bit counters, plain update.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`.
///
/// # Safety
/// `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_plan_size(
    width: u64,
    depth: u32,
    out: *mut sketch_countmin_params,
) -> sketch_status {
    run(|| {
        boundary::require(out)?;
        let p = CountMinParams::with_size(width, depth)?;
        // SAFETY: non-NULL; caller contract.
        unsafe { boundary::write_out(out, p.into()) }
    })
}

/// Exact image size in bytes (a multiple of `SKETCH_IMAGE_ALIGN`) for `params`.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (a field out of
/// range, a non-zero reserved field, or more than 2^40 bytes of counters:
/// 2^32 x 64 rows fits with 32-bit counters, not with 64-bit ones).
///
/// # Safety
/// `params` readable; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_size(
    params: *const sketch_countmin_params,
    bytes: *mut u64,
) -> sketch_status {
    run(|| {
        boundary::require(params)?;
        boundary::require(bytes)?;
        // SAFETY: non-NULL; caller contract.
        let n = unsafe { boundary::params(params)? }.image_len()?;
        // SAFETY: non-NULL; caller contract.
        unsafe { boundary::write_out(bytes, n) }
    })
}

/// Writes an empty sketch into `buf` (8-byte aligned, at least
/// `sketch_countmin_size` bytes).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`, `SKETCH_MISALIGNED`,
/// `SKETCH_BUFFER_TOO_SMALL`. On error `buf` is untouched.
///
/// # Safety
/// `buf`: `len` writable bytes; `params` readable.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_init(
    buf: *mut c_void,
    len: usize,
    params: *const sketch_countmin_params,
    seed: u64,
) -> sketch_status {
    run(|| {
        boundary::require(params)?;
        // SAFETY: non-NULL; caller contract.
        let p = unsafe { boundary::params(params)? };
        // SAFETY: caller contract.
        unsafe { filter::mutate(buf, len, |b| countmin::init(b, &p, seed).map(|_| ())) }
    })
}

/// Adds `weight` occurrences of a byte key (`key` may be NULL when `key_len` is 0).
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` writable bytes; `key`: `key_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_add(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    weight: u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::mutate(buf, len, |b| {
            countmin::wrap_mut(b)?.add(key, weight);
            Ok(())
        })
    })
}

/// Adds `weight` occurrences of an integer key. See `sketch_countmin_add`.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_add_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    weight: u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            countmin::wrap_mut(b)?.add_u64(key, weight);
            Ok(())
        })
    })
}

/// Adds `weight` occurrences of a precomputed hash (`sketch_hash` with the
/// sketch's seed). See `sketch_countmin_add`.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_add_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    weight: u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            countmin::wrap_mut(b)?.add_hash(hash, weight);
            Ok(())
        })
    })
}

/// Adds `count` byte keys; `weights` (NULL: 1 each) gives each key's weight.
/// Every pointer is checked before anything is added.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s; `weights`: NULL or `count` values.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_add_batch(
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
/// `count + 1` entries). `weights` as in `sketch_countmin_add_batch`.
/// Decreasing offsets or offsets past `data_len` give
/// `SKETCH_INVALID_PARAMETER` before anything changes.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` values;
/// `weights`: NULL or `count` values.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_add_packed(
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

/// Adds `count` integer keys (each hashed as its 8 little-endian bytes);
/// `weights` as in `sketch_countmin_add_batch`.
///
/// # Safety
/// `keys`: `count` values; `weights`: NULL or `count` values.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_add_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    weights: *const u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::ints(keys, count)?, weights) })
}

/// Shared body of the keyed batch adds.
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
    let mut sketch = countmin::wrap_mut(image)?;
    let hasher = sketch.as_ref().key_hasher();
    keys.for_hashed_chunks(hasher, |start, hashes| {
        let w = weights.and_then(|w| w.get(start..start + hashes.len()));
        Ok(sketch.add_hashes(hashes, w)?)
    })
}

/// Adds `count` precomputed hashes; `weights` as in `sketch_countmin_add_batch`.
///
/// # Safety
/// `hashes`: `count` values; `weights`: NULL or `count` values.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_add_hash_batch(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    weights: *const u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        boundary::apart(
            &[Span::of(buf.cast::<u8>(), len)],
            None,
            &[Span::of(hashes, count), Span::of(weights, count)],
        )?;
        let (image, hashes) = (boundary::bytes_mut(buf, len)?, boundary::array(hashes, count)?);
        let weights = if weights.is_null() { None } else { Some(boundary::array(weights, count)?) };
        Ok(countmin::wrap_mut(image)?.add_hashes(hashes, weights)?)
    })
}

/// One estimate on a read-only image.
///
/// # Safety
/// As documented on the exported functions.
unsafe fn estimate_with(
    buf: *const c_void,
    len: usize,
    out: *mut u64,
    op: impl FnOnce(&countmin::CountMin<'_>) -> u64,
) -> Status {
    // SAFETY: caller contract.
    unsafe { filter::query(buf, len, out, |b| Ok(op(&countmin::wrap(b)?))) }
}

/// Writes the estimated count of a byte key to `*out`: never below the
/// truth while no counter saturated. Counters saturate at their maximum
/// (2^32 - 1 with the 32-bit counters the planners choose), so a key whose
/// weight passes it reads that maximum, below the truth: use
/// `counter_bits = 64` for weights that can sum past 2^32.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `key`: `key_len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_estimate(
    buf: *const c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    out: *mut u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key(key, key_len)?;
        estimate_with(buf, len, out, |s| s.estimate(key))
    })
}

/// Estimate of an integer key. See `sketch_countmin_estimate`.
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_estimate_u64(
    buf: *const c_void,
    len: usize,
    key: u64,
    out: *mut u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { estimate_with(buf, len, out, |s| s.estimate_u64(key)) })
}

/// Estimate of a precomputed hash. See `sketch_countmin_estimate`.
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_estimate_hash(
    buf: *const c_void,
    len: usize,
    hash: u64,
    out: *mut u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { estimate_with(buf, len, out, |s| s.estimate_hash(hash)) })
}

/// Estimates `count` byte keys; `out[i]` receives key `i`'s estimate.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s; `out`: `count` writable values.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_estimate_batch(
    buf: *const c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
    out: *mut u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { estimate_keys(buf, len, Keys::slices(keys, count)?, out) })
}

/// Estimates `count` keys packed in the Arrow Binary layout (see
/// `sketch_countmin_add_packed`); `out[i]` receives key `i`'s estimate.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` values; `out`: `count` writable values.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_estimate_packed(
    buf: *const c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    out: *mut u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { estimate_keys(buf, len, Keys::packed(data, data_len, offsets, count)?, out) })
}

/// Estimates `count` integer keys.
///
/// # Safety
/// `keys`: `count` values; `out`: `count` writable values.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_estimate_u64_batch(
    buf: *const c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    out: *mut u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { estimate_keys(buf, len, Keys::ints(keys, count)?, out) })
}

/// Shared body of the keyed batch estimates.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `keys.len()` writable values.
unsafe fn estimate_keys(buf: *const c_void, len: usize, keys: Keys<'_>, out: *mut u64) -> Status {
    // SAFETY: caller contract.
    unsafe {
        filter::query_keys::<_, _, { boundary::CHUNK }>(
            buf,
            len,
            keys,
            out,
            |b| countmin::wrap(b).map(|s| (s, s.key_hasher())),
            |s, h, o| s.estimate_hashes(h, o),
        )
    }
}

/// Estimates `count` precomputed hashes.
///
/// # Safety
/// `hashes`: `count` values; `out`: `count` writable values.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_estimate_hash_batch(
    buf: *const c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    out: *mut u64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        if count > 0 {
            boundary::require(out)?;
        }
        boundary::apart(
            &[Span::of(out, count)],
            None,
            &[Span::of(buf.cast::<u8>(), len), Span::of(hashes, count)],
        )?;
        let (image, hashes, out) =
            (boundary::bytes(buf, len)?, boundary::array(hashes, count)?, boundary::array_mut(out, count)?);
        Ok(countmin::wrap(image)?.estimate_hashes(hashes, out)?)
    })
}

/// Merge: counter-wise saturating addition of `src` into `dst` (the sketch of
/// both streams). Width, depth, counter width and seed must be equal; the
/// update modes may differ (estimates stay upper bounds; `dst` keeps its mode).
///
/// Errors: `SKETCH_INCOMPATIBLE` (nothing changes), `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `dst`: `dst_len` writable bytes; `src`: `src_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_merge(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        merge_with(|d, s| countmin::wrap_mut(d)?.merge(&countmin::wrap(s)?), dst, dst_len, src, src_len)
    })
}

/// Resets every counter and the total.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_clear(buf: *mut c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            countmin::wrap_mut(b)?.clear();
            Ok(())
        })
    })
}

/// Writes in `*bytes` how many bytes `sketch_countmin_export` writes for this
/// image (its length), to size the destination first.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_exported_size(
    buf: *const c_void,
    len: usize,
    bytes: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, bytes, countmin::exported_len) })
}

/// Exports the image with its checksum into `out` (no alignment needed);
/// `*written` receives the byte count.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `out_len` writable bytes; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_export(
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { export_with(countmin::export, buf, len, out, out_len, written) })
}

/// Writes in `*size` how many bytes the live image takes that
/// `sketch_countmin_import` writes for the exported Count-Min sketch in `src`: the `dst_len`
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
pub unsafe extern "C" fn sketch_countmin_import_size(
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { crate::image::import_size_with(countmin::import_len, src, src_len, size) })
}

/// Imports untrusted bytes (exact length, headers, checksum) into the aligned
/// `dst`, written only on success.
///
/// # Safety
/// `src`: `src_len` readable bytes; `dst`: `dst_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_import(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { import_with(countmin::import, src, src_len, dst, dst_len) })
}

/// Verifies untrusted bytes in place.
///
/// # Safety
/// `bytes`: `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_verify(bytes: *const c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { Ok(countmin::verify(boundary::bytes(bytes, len)?)?) })
}

/// Writes the statistics of the sketch to `*out`. O(1).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_countmin_get_stats(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_countmin_stats,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let s = countmin::wrap(b)?.stats();
            Ok(sketch_countmin_stats {
                params: s.params.into(),
                seed: s.seed,
                total: s.total,
                epsilon: s.epsilon,
                delta: s.delta,
                error_bound: s.error_bound,
            })
        })
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn family_id_matches_the_core() {
        assert_eq!(super::SKETCH_FAMILY_COUNT_MIN, sketches_core::FamilyId::CountMin as u16);
    }
}
