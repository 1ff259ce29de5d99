//! C ABI of the classic Bloom filter (`sketches_core::bloom`).
//!
//! Every function takes the caller's buffer and its length; there are no
//! handles. A live image must be 8-byte aligned. Read-only calls
//! (`const void *buf`) may run concurrently on the same buffer; a call that
//! takes `void *buf` needs exclusive access to it.

use crate::boundary::{self, reserved_zero, run, sketch_slice, CParams, Fail, Keys, Status};
use crate::filter;
use crate::image::{self as image, sketch_token, sketch_view};
use crate::image::{export_with, import_with, merge_with};
#[cfg(target_has_atomic = "64")]
use crate::shared;
use crate::status::sketch_status;
use core::ffi::c_void;
use sketches_core::bloom::{self, BloomParams};

/// Parameters of a Bloom filter (`sketch_bloom_plan` fills them).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_bloom_params {
    /// Number of bits `m` (1 ..= 2^56).
    pub bits: u64,
    /// Probes per key `k` (1 ..= 64).
    pub hashes: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
    /// Items the filter is planned for (drives the over-capacity signal).
    pub planned_items: u64,
    /// False-positive rate planned at `planned_items`, in (0, 1).
    pub planned_fpr: f64,
}

impl From<BloomParams> for sketch_bloom_params {
    fn from(p: BloomParams) -> Self {
        sketch_bloom_params {
            bits: p.bits,
            hashes: p.hashes,
            reserved: 0,
            planned_items: p.planned_items,
            planned_fpr: p.planned_fpr,
        }
    }
}

impl CParams for sketch_bloom_params {
    type Core = BloomParams;
    fn to_core(&self) -> Result<BloomParams, Fail> {
        reserved_zero(u64::from(self.reserved))?;
        Ok(BloomParams {
            bits: self.bits,
            hashes: self.hashes,
            planned_items: self.planned_items,
            planned_fpr: self.planned_fpr,
        })
    }
}

/// Statistics of a Bloom filter (`sketch_bloom_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_bloom_stats {
    /// The filter's parameters.
    pub params: sketch_bloom_params,
    /// Hash seed.
    pub seed: u64,
    /// Number of add calls (duplicates included).
    pub add_calls: u64,
    /// Add calls that set at least one new bit (about the distinct items inserted).
    pub inserted: u64,
    /// Number of set bits.
    pub set_bits: u64,
    /// Fraction of bits set, 0..1.
    pub fill: f64,
    /// Distinct items estimated from the set bits (infinity when all bits are set).
    pub estimated_items: f64,
    /// Current false-positive rate estimated from the set bits, (set/m)^k.
    pub estimated_fpr: f64,
    /// `SKETCH_CAPACITY_*` flags; 0 while the filter is within its plan.
    pub capacity_flags: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

/// Plans a filter for `items` expected distinct items at false-positive rate
/// `fpr`: m = ceil(-n ln p / ln^2 2) bits, k = round(m/n ln 2) probes.
///
/// Errors: `SKETCH_NULL_POINTER` (out), `SKETCH_INVALID_PARAMETER` when
/// `items` is 0, `fpr` is not in (0, 1) (NaN included) or m exceeds 2^56.
///
/// # Safety
/// `out` must be valid for writing one `sketch_bloom_params`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_plan(
    items: u64,
    fpr: f64,
    out: *mut sketch_bloom_params,
) -> sketch_status {
    run(|| {
        crate::boundary::require(out)?;
        let p = BloomParams::for_items(items, fpr)?;
        // SAFETY: caller contract.
        unsafe { crate::boundary::write_out(out, p.into()) }
    })
}

/// Explicit `bits` and `hashes`; the planned items are floor(m ln 2 / k) and
/// the planned rate the classic formula at that count.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (bits 0 or
/// above 2^56, hashes 0 or above 64).
///
/// # Safety
/// `out` must be valid for writing one `sketch_bloom_params`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_plan_bits(
    bits: u64,
    hashes: u32,
    out: *mut sketch_bloom_params,
) -> sketch_status {
    run(|| {
        crate::boundary::require(out)?;
        let p = BloomParams::with_bits(bits, hashes)?;
        // SAFETY: caller contract.
        unsafe { crate::boundary::write_out(out, p.into()) }
    })
}

/// Exact image size in bytes for `params`, a multiple of `SKETCH_IMAGE_ALIGN`
/// (allocate that much with that alignment; 8 is the minimum).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`.
///
/// # Safety
/// `params` must point to a readable `sketch_bloom_params`; `bytes` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_size(
    params: *const sketch_bloom_params,
    bytes: *mut u64,
) -> sketch_status {
    run(|| {
        crate::boundary::require(params)?;
        crate::boundary::require(bytes)?;
        // SAFETY: non-NULL; caller contract.
        let p = unsafe { boundary::params(params)? };
        let n = p.image_len()?;
        // SAFETY: non-NULL; caller contract.
        unsafe { crate::boundary::write_out(bytes, n) }
    })
}

/// Writes an empty filter into `buf` (8-byte aligned, at least
/// `sketch_bloom_size` bytes). Any previous content is overwritten.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`,
/// `SKETCH_MISALIGNED`, `SKETCH_BUFFER_TOO_SMALL`. On error `buf` is untouched.
///
/// # Safety
/// `buf` must point to `len` writable bytes; `params` to a readable struct.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_init(
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
        unsafe { filter::mutate(buf, len, |b| bloom::init(b, &p, seed).map(|_| ())) }
    })
}

/// Adds a byte key. When `was_new` is not NULL it receives true when the key
/// was new to the filter (some probed bit was unset): test-and-insert for
/// dedup in one call. `key` may be NULL when `key_len` is 0.
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image
/// (`SKETCH_MISALIGNED`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_BAD_MAGIC`,
/// `SKETCH_WRONG_FAMILY`, `SKETCH_CORRUPT_HEADER`, ...).
///
/// # Safety
/// `buf`: `len` writable bytes; `key`: `key_len` readable bytes; `was_new`: NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::update(buf, len, was_new, |b| Ok(bloom::wrap_mut(b)?.add(key)))
    })
}

/// Adds an integer key (hashed as its 8 little-endian bytes). See `sketch_bloom_add`.
///
/// # Safety
/// As for `sketch_bloom_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, was_new, |b| Ok(bloom::wrap_mut(b)?.add_u64(key))) })
}

/// Adds a precomputed hash (`sketch_hash(key, len, seed)` with the filter's
/// seed). See `sketch_bloom_add`.
///
/// # Safety
/// As for `sketch_bloom_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, was_new, |b| Ok(bloom::wrap_mut(b)?.add_hash(hash))) })
}

/// Tests a byte key: `*out` is false when the key was certainly never added,
/// true when it may have been.
///
/// Errors: `SKETCH_NULL_POINTER` (out, or key with non-zero length), image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `key`: `key_len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains(
    buf: *const c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key(key, key_len)?;
        filter::query(buf, len, out, |b| Ok(bloom::wrap(b)?.contains(key)))
    })
}

/// Tests an integer key. See `sketch_bloom_contains`.
///
/// # Safety
/// As for `sketch_bloom_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_u64(
    buf: *const c_void,
    len: usize,
    key: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(bloom::wrap(b)?.contains_u64(key))) })
}

/// Tests a precomputed hash. See `sketch_bloom_contains`.
///
/// # Safety
/// As for `sketch_bloom_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_hash(
    buf: *const c_void,
    len: usize,
    hash: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(bloom::wrap(b)?.contains_hash(hash))) })
}

/// Validates the live Bloom image in `buf` and writes its token to `*out`
/// (written only on success): pass it to the `sketch_bloom_*_with_token`
/// calls to skip the header validation on each (see `sketch_token`). Make
/// it again after `sketch_bloom_init` or `sketch_bloom_import` into the
/// buffer; a stale token still works, at the cost of the full validation.
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_token(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_token,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { image::write_token(buf, len, out, bloom::token) })
}

/// `sketch_bloom_add` with the image's token (from `sketch_bloom_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_bloom_add`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_bloom_add`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_with_token(
    buf: *mut c_void,
    len: usize,
    token: *const sketch_token,
    key: *const c_void,
    key_len: usize,
    was_new: *mut bool,
) -> sketch_status {
    let fast = |b: &mut [u8], t: &_, key: &_| Some(bloom::try_wrap_mut_with(b, t)?.add_inline(key));
    let full = |b: &mut [u8], t: &_, key: &_| bloom::with_view_mut(b, t, |mut view| view.add(key));
    // SAFETY: caller contract.
    unsafe { filter::token_add_bytes((buf, len, token), key, key_len, was_new, fast, full) }
}

/// `sketch_bloom_add_u64` with the image's token (from `sketch_bloom_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_bloom_add_u64`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_bloom_add_u64`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_u64_with_token(
    buf: *mut c_void,
    len: usize,
    token: *const sketch_token,
    key: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let token = image::read_token(token)?;
        filter::update(buf, len, was_new, |b| bloom::with_view_mut(b, &token, |mut view| view.add_u64(key)))
    })
}

/// `sketch_bloom_add_hash` with the image's token (from `sketch_bloom_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_bloom_add_hash`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_bloom_add_hash`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_hash_with_token(
    buf: *mut c_void,
    len: usize,
    token: *const sketch_token,
    hash: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let token = image::read_token(token)?;
        filter::update(buf, len, was_new, |b| bloom::with_view_mut(b, &token, |mut view| view.add_hash(hash)))
    })
}

/// `sketch_bloom_contains` with the image's token (from `sketch_bloom_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_bloom_contains`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_bloom_contains`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_with_token(
    buf: *const c_void,
    len: usize,
    token: *const sketch_token,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
) -> sketch_status {
    let fast = |b: &[u8], t: &_, key: &_| Some(bloom::try_wrap_with(b, t)?.contains_inline(key));
    let full = |b: &[u8], t: &_, key: &_| Ok(bloom::wrap_with(b, t)?.contains(key));
    // SAFETY: caller contract.
    unsafe { filter::token_contains_bytes((buf, len, token), key, key_len, out, fast, full) }
}

/// `sketch_bloom_contains_u64` with the image's token (from `sketch_bloom_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_bloom_contains_u64`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_bloom_contains_u64`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_u64_with_token(
    buf: *const c_void,
    len: usize,
    token: *const sketch_token,
    key: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let token = image::read_token(token)?;
        filter::query(buf, len, out, |b| Ok(bloom::wrap_with(b, &token)?.contains_u64(key)))
    })
}

/// `sketch_bloom_contains_hash` with the image's token (from `sketch_bloom_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_bloom_contains_hash`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_bloom_contains_hash`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_hash_with_token(
    buf: *const c_void,
    len: usize,
    token: *const sketch_token,
    hash: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let token = image::read_token(token)?;
        filter::query(buf, len, out, |b| Ok(bloom::wrap_with(b, &token)?.contains_hash(hash)))
    })
}

/// Validates the live Bloom image in `buf` (`len` bytes) and writes its
/// kept view to `*out` (written only on success): pass it to the
/// `sketch_bloom_view_*` calls, which then read no header (see
/// `sketch_view` for when to make it again).
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image.
///
/// # Safety
/// `buf`: `len` readable bytes, writable for the view's adds; `out`: writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_view(
    buf: *mut c_void,
    len: usize,
    out: *mut sketch_view,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { image::write_view(buf, len, out, bloom::token) })
}

/// `sketch_bloom_add` on the image of a kept view (from
/// `sketch_bloom_view`): the same result and outputs, without reading its
/// header (see `sketch_view`).
///
/// Errors: those of `sketch_bloom_add` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view` whose image is writable; the other
/// arguments as for `sketch_bloom_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_view_add(
    view: *const sketch_view,
    key: *const c_void,
    key_len: usize,
    was_new: *mut bool,
) -> sketch_status {
    let fast = |b: &mut [u8], t: &_, key: &_| Some(bloom::try_wrap_mut_trusted(b, t)?.add_inline(key));
    let full = |b: &mut [u8], t: &_, key: &_| bloom::with_trusted_view_mut(b, t, |mut view| view.add(key));
    // SAFETY: caller contract.
    unsafe { filter::view_add_bytes(view, key, key_len, was_new, fast, full) }
}

/// `sketch_bloom_add_u64` on the image of a kept view (from
/// `sketch_bloom_view`): the same result and outputs, without reading its
/// header (see `sketch_view`).
///
/// Errors: those of `sketch_bloom_add_u64` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view` whose image is writable; the other
/// arguments as for `sketch_bloom_add_u64`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_view_add_u64(
    view: *const sketch_view,
    key: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let v = image::read_view(view)?;
        v.update(was_new, |b| bloom::with_trusted_view_mut(b, &v.token, |mut view| view.add_u64(key)))
    })
}

/// `sketch_bloom_add_hash` on the image of a kept view (from
/// `sketch_bloom_view`): the same result and outputs, without reading its
/// header (see `sketch_view`).
///
/// Errors: those of `sketch_bloom_add_hash` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view` whose image is writable; the other
/// arguments as for `sketch_bloom_add_hash`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_view_add_hash(
    view: *const sketch_view,
    hash: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let v = image::read_view(view)?;
        v.update(was_new, |b| bloom::with_trusted_view_mut(b, &v.token, |mut view| view.add_hash(hash)))
    })
}

/// `sketch_bloom_contains` on the image of a kept view (from
/// `sketch_bloom_view`): the same answer, without reading its header (see
/// `sketch_view`).
///
/// Errors: those of `sketch_bloom_contains` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view`; the other arguments as for
/// `sketch_bloom_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_view_contains(
    view: *const sketch_view,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
) -> sketch_status {
    let fast = |b: &[u8], t: &_, key: &_| Some(bloom::try_wrap_trusted(b, t)?.contains_inline(key));
    let full = |b: &[u8], t: &_, key: &_| Ok(bloom::wrap_trusted(b, t)?.contains(key));
    // SAFETY: caller contract.
    unsafe { filter::view_contains_bytes(view, key, key_len, out, fast, full) }
}

/// `sketch_bloom_contains_u64` on the image of a kept view (from
/// `sketch_bloom_view`): the same answer, without reading its header (see
/// `sketch_view`).
///
/// Errors: those of `sketch_bloom_contains_u64` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view`; the other arguments as for
/// `sketch_bloom_contains_u64`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_view_contains_u64(
    view: *const sketch_view,
    key: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let v = image::read_view(view)?;
        v.query(out, |b| Ok(bloom::wrap_trusted(b, &v.token)?.contains_u64(key)))
    })
}

/// `sketch_bloom_contains_hash` on the image of a kept view (from
/// `sketch_bloom_view`): the same answer, without reading its header (see
/// `sketch_view`).
///
/// Errors: those of `sketch_bloom_contains_hash` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view`; the other arguments as for
/// `sketch_bloom_contains_hash`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_view_contains_hash(
    view: *const sketch_view,
    hash: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let v = image::read_view(view)?;
        v.query(out, |b| Ok(bloom::wrap_trusted(b, &v.token)?.contains_hash(hash)))
    })
}

/// Adds `count` byte keys in one call. `was_new` (NULL, or `count` slots)
/// receives per key whether it was new. Every key pointer is checked before
/// anything is added: on error nothing changes.
///
/// # Safety
/// `keys`: `count` readable `sketch_slice`s, each valid; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_batch(
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
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_bloom_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_packed(
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

/// Adds `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_bloom_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::ints(keys, count)?, was_new) })
}

/// Shared body of `sketch_bloom_add_batch`, `sketch_bloom_add_packed` and `sketch_bloom_add_u64_batch`.
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
                bloom::wrap_mut(b).map(|f| {
                    let h = f.as_ref().key_hasher();
                    (f, h)
                })
            },
            |f, h, o| f.add_hashes(h, o),
        )
    }
}

/// Adds `count` precomputed hashes in one call. See `sketch_bloom_add_batch`.
///
/// # Safety
/// `hashes`: `count` readable values; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_hash_batch(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::add_hashes(buf, len, hashes, count, was_new, |b, h, o| bloom::wrap_mut(b)?.add_hashes(h, o))
    })
}

/// Tests `count` byte keys in one call; `results[i]` receives the answer for key `i`.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_batch(
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
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_bloom_contains_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_packed(
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

/// Tests `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_bloom_contains_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_u64_batch(
    buf: *const c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { contains_keys(buf, len, Keys::ints(keys, count)?, results) })
}

/// Shared body of `sketch_bloom_contains_batch`, `sketch_bloom_contains_packed` and `sketch_bloom_contains_u64_batch`.
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
            |b| bloom::wrap(b).map(|f| (f, f.key_hasher())),
            |f, h, o| f.contains_hashes(h, o),
        )
    }
}

/// Tests `count` precomputed hashes in one call.
///
/// # Safety
/// `hashes`: `count` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_hash_batch(
    buf: *const c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query_hashes(buf, len, hashes, count, results, |b, h, o| {
            bloom::wrap(b)?.contains_hashes(h, o)
        })
    })
}

/// Union: `dst |= src`. Both must have equal bits, hashes and seed.
///
/// Counters: `add_calls` becomes the sum; `inserted` becomes the distinct
/// keys estimated from the union's set bits, kept between the larger of the
/// two inserted counts and `dst`'s count plus the smaller of `src`'s count
/// and the bits the union set. So a union with a copy of `dst` or with a
/// shard of the same keys leaves it unchanged, and shards whose keys partly
/// overlap (the same users in several input partitions) count their
/// distinct keys within the estimate's error (under 3% in the tests, about
/// 0.1-1% at a planned fill), not each shared key again: the
/// over-planned-items flag follows the keys, not the partitioning.
///
/// Errors: `SKETCH_INCOMPATIBLE` (nothing changes), `SKETCH_OVERLAP` when the
/// buffers overlap, image errors for either buffer.
///
/// # Safety
/// `dst`: `dst_len` writable bytes; `src`: `src_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_union(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        merge_with(|d, s| bloom::wrap_mut(d)?.union(&bloom::wrap(s)?), dst, dst_len, src, src_len)
    })
}

/// Intersection: `dst &= src`. Same rules as `sketch_bloom_union`.
///
/// # Safety
/// As for `sketch_bloom_union`.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_intersect(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        merge_with(|d, s| bloom::wrap_mut(d)?.intersect(&bloom::wrap(s)?), dst, dst_len, src, src_len)
    })
}

/// All statistics, O(1).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_get_stats(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_bloom_stats,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let s = bloom::wrap(b)?.stats();
            Ok(sketch_bloom_stats {
                params: s.params.into(),
                seed: s.seed,
                add_calls: s.add_calls,
                inserted: s.inserted,
                set_bits: s.set_bits,
                fill: s.fill,
                estimated_items: s.estimated_items,
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
pub unsafe extern "C" fn sketch_bloom_capacity(
    buf: *const c_void,
    len: usize,
    flags: *mut u32,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, flags, |b| Ok(bloom::wrap(b)?.capacity().0)) })
}

/// Removes every item (zeroes bits and counters); parameters and seed stay.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_clear(buf: *mut c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            bloom::wrap_mut(b)?.clear();
            Ok(())
        })
    })
}

/// Writes in `*bytes` how many bytes `sketch_bloom_export` writes for this
/// image (its length), to size the destination first.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_exported_size(
    buf: *const c_void,
    len: usize,
    bytes: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, bytes, bloom::exported_len) })
}

/// Serializes: copies the image to `out` (any alignment, at least the image
/// size) and writes the checksum there; `*written` gets the byte count. The
/// live image is not modified.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_BUFFER_TOO_SMALL` (`out_len` below `sketch_bloom_exported_size`), `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `out_len` writable bytes; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_export(
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { export_with(bloom::export, buf, len, out, out_len, written) })
}

/// Writes in `*size` how many bytes the live image takes that
/// `sketch_bloom_import` writes for the exported Bloom filter in `src`: the `dst_len`
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
pub unsafe extern "C" fn sketch_bloom_import_size(
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { crate::image::import_size_with(bloom::import_len, src, src_len, size) })
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
pub unsafe extern "C" fn sketch_bloom_import(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { import_with(bloom::import, src, src_len, dst, dst_len) })
}

/// Checks untrusted bytes in place (headers, exact length, checksum) without
/// copying, for example an `mmap`ed file before querying it zero-copy.
///
/// # Safety
/// `bytes`: `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_verify(bytes: *const c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { Ok(bloom::verify(crate::boundary::bytes(bytes, len)?)?) })
}
/// Adds a byte key. From any number of threads at once on one image (the
/// concurrent functions only; see the header's thread-safety notes). `was_new` (NULL: not wanted) receives true when it set a new bit.
/// Not an exclusive test-and-insert across threads: when several threads
/// add the same new key at once, at least one receives true, and more than
/// one may (each set some of its bits); dedup that must pass a key once
/// needs its own lock.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_MISALIGNED`, image errors.
///
/// # Safety
/// `buf`: `len` bytes, 8-byte aligned, accessed only through the concurrent
/// functions while any of them runs; `key`: `key_len` readable bytes.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_concurrent(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        shared::one(buf, len, was_new, false, |w| Ok(bloom::wrap_shared(w)?.add(key)))
    })
}

/// Adds an integer key (8 little-endian bytes). From any number of threads at once on one image (the
/// concurrent functions only; see the header's thread-safety notes). `was_new` (NULL: not wanted) receives true when it set a new bit.
/// Not an exclusive test-and-insert across threads: when several threads
/// add the same new key at once, at least one receives true, and more than
/// one may (each set some of its bits); dedup that must pass a key once
/// needs its own lock.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_MISALIGNED`, image errors.
///
/// # Safety
/// `buf`: `len` bytes, 8-byte aligned, accessed only through the concurrent
/// functions while any of them runs.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_concurrent_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, was_new, false, |w| Ok(bloom::wrap_shared(w)?.add_u64(key))) })
}

/// Adds a precomputed hash. From any number of threads at once on one image (the
/// concurrent functions only; see the header's thread-safety notes). `was_new` (NULL: not wanted) receives true when it set a new bit.
/// Not an exclusive test-and-insert across threads: when several threads
/// add the same new key at once, at least one receives true, and more than
/// one may (each set some of its bits); dedup that must pass a key once
/// needs its own lock.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_MISALIGNED`, image errors.
///
/// # Safety
/// `buf`: `len` bytes, 8-byte aligned, accessed only through the concurrent
/// functions while any of them runs.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_concurrent_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, was_new, false, |w| Ok(bloom::wrap_shared(w)?.add_hash(hash))) })
}

/// Adds `count` byte keys (`sketch_slice` array). From any number of threads at once on one image (the
/// concurrent functions only). `was_new` (NULL, or `count` slots) receives per key whether it set a new bit
/// (as for the single add, a key added by several threads at once may be new to more than one).
///
/// # Safety
/// `buf` as for `sketch_bloom_add_concurrent`; the keys and outputs as for the `_batch` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_concurrent_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_concurrent_keys(buf, len, Keys::slices(keys, count)?, was_new) })
}

/// Adds `count` keys packed in the Arrow Binary layout (`offsets` has `count + 1` entries; bad offsets give `SKETCH_INVALID_PARAMETER` before anything changes). From any number of threads at once on one image (the
/// concurrent functions only). `was_new` (NULL, or `count` slots) receives per key whether it set a new bit
/// (as for the single add, a key added by several threads at once may be new to more than one).
///
/// # Safety
/// `buf` as for `sketch_bloom_add_concurrent`; the keys and outputs as for the `_packed` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_concurrent_packed(
    buf: *mut c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_concurrent_keys(buf, len, Keys::packed(data, data_len, offsets, count)?, was_new) })
}

/// Adds `count` integer keys. From any number of threads at once on one image (the
/// concurrent functions only). `was_new` (NULL, or `count` slots) receives per key whether it set a new bit
/// (as for the single add, a key added by several threads at once may be new to more than one).
///
/// # Safety
/// `buf` as for `sketch_bloom_add_concurrent`; the keys and outputs as for the `_u64_batch` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_add_concurrent_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_concurrent_keys(buf, len, Keys::ints(keys, count)?, was_new) })
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
            |w| bloom::wrap_shared(w).map(|s| (s, s.key_hasher())),
            |s, h, o| s.add_hashes(h, o),
        )
    }
}

/// The over-capacity signal read with atomic loads, safe while other threads
/// add with the concurrent functions: `*flags` gets `SKETCH_CAPACITY_*` bits, 0
/// while the filter is within its plan. O(1): the inserted and set-bit counters
/// against the plan, as `sketch_bloom_capacity` does. A writer can watch for
/// "planned for 100k, got 1M" without stopping the adds or copying the image
/// out. Exact once every add has returned; while adds run, each counter reads
/// as a value it passed through, so a flag can show an add or two late.
///
/// Errors: `SKETCH_NULL_POINTER` (buf or flags), `SKETCH_MISALIGNED`
/// (`buf` not 8-byte aligned), image errors, `SKETCH_WRONG_FAMILY`;
/// `*flags` is written only on success.
///
/// # Safety
/// As for `sketch_bloom_add_concurrent`; `flags` writable.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_capacity_concurrent(
    buf: *const c_void,
    len: usize,
    flags: *mut u32,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, flags, true, |w| Ok(bloom::wrap_shared(w)?.capacity().0)) })
}

/// Tests a byte key with atomic loads, safe while other threads add with
/// the concurrent functions (it sees every add that returned before it).
///
/// # Safety
/// As for `sketch_bloom_add_concurrent`; `out` writable.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_concurrent(
    buf: *const c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        shared::one(buf, len, out, true, |w| Ok(bloom::wrap_shared(w)?.contains(key)))
    })
}

/// Tests an integer key with atomic loads. See `sketch_bloom_contains_concurrent`.
///
/// # Safety
/// As for `sketch_bloom_contains_concurrent`.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_concurrent_u64(
    buf: *const c_void,
    len: usize,
    key: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        shared::one(buf, len, out, true, |w| {
            let s = bloom::wrap_shared(w)?;
            Ok(s.contains_hash(sketches_core::hash::hash_u64(key, s.key_hasher().seed)))
        })
    })
}

/// Tests a precomputed hash with atomic loads (the hash the image's mode
/// takes, as for `sketch_bloom_contains_hash`). See `sketch_bloom_contains_concurrent`.
///
/// # Safety
/// As for `sketch_bloom_contains_concurrent`.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_concurrent_hash(
    buf: *const c_void,
    len: usize,
    hash: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, out, true, |w| Ok(bloom::wrap_shared(w)?.contains_hash(hash))) })
}

/// Tests `count` byte keys (`sketch_slice` array) with atomic loads, while
/// other threads add through the concurrent functions; `results` (required,
/// `count` slots) gets one answer per key. An add that has not returned yet
/// may or may not be seen; a finished one always is.
///
/// # Safety
/// `buf` as for `sketch_bloom_contains_concurrent`; the keys and results as
/// for `sketch_bloom_contains_batch`.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_concurrent_batch(
    buf: *const c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { contains_concurrent_keys(buf, len, Keys::slices(keys, count)?, results) })
}

/// Tests `count` keys packed in the Arrow Binary layout (`offsets` has
/// `count + 1` entries; bad offsets give `SKETCH_INVALID_PARAMETER`) with
/// atomic loads. See `sketch_bloom_contains_concurrent_batch`.
///
/// # Safety
/// `buf` as for `sketch_bloom_contains_concurrent`; the keys and results as
/// for `sketch_bloom_contains_packed`.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_concurrent_packed(
    buf: *const c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        contains_concurrent_keys(buf, len, Keys::packed(data, data_len, offsets, count)?, results)
    })
}

/// Tests `count` integer keys with atomic loads. See
/// `sketch_bloom_contains_concurrent_batch`.
///
/// # Safety
/// `buf` as for `sketch_bloom_contains_concurrent`; `keys`: `count` readable
/// values; `results`: `count` writable bools.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_concurrent_u64_batch(
    buf: *const c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { contains_concurrent_keys(buf, len, Keys::ints(keys, count)?, results) })
}

/// Tests `count` precomputed hashes with atomic loads. See
/// `sketch_bloom_contains_concurrent_batch`.
///
/// # Safety
/// `buf` as for `sketch_bloom_contains_concurrent`; `hashes`: `count`
/// readable values; `results`: `count` writable bools.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_bloom_contains_concurrent_hash_batch(
    buf: *const c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        shared::query_hashes(buf, len, hashes, count, results, bloom::wrap_shared, |f, h| f.contains_hash(h))
    })
}

/// Shared body of the concurrent batch queries over keys.
///
/// # Safety
/// As documented on those functions.
#[cfg(target_has_atomic = "64")]
unsafe fn contains_concurrent_keys(
    buf: *const c_void,
    len: usize,
    keys: Keys<'_>,
    results: *mut bool,
) -> Status {
    // SAFETY: caller contract.
    unsafe {
        shared::query_keys(
            buf,
            len,
            keys,
            results,
            |w| {
                let f = bloom::wrap_shared(w)?;
                let h = f.key_hasher();
                Ok((f, h))
            },
            |f, h| f.contains_hash(h),
        )
    }
}
