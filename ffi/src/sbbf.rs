//! C ABI of the split-block Bloom filter (`sketches_core::sbbf`).
//!
//! Same conventions as the Bloom filter calls: the caller's buffer and its
//! length, no handles, 8-byte aligned live images; read-only calls may run
//! concurrently, mutating calls need exclusive access. In Parquet mode the
//! blocks (`sketch_sbbf_bitset`) are byte-identical to a Parquet column's
//! bloom filter bitset built from the same plain-encoded values.

use crate::boundary::{self, reserved_zero, run, sketch_slice, CParams, Fail, Keys, Span, Status};
use crate::filter;
use crate::image::{self as image, sketch_token, sketch_view};
use crate::image::{export_with, import_with, merge_with};
#[cfg(target_has_atomic = "64")]
use crate::shared;
use crate::status::{sketch_status, SKETCH_INVALID_PARAMETER, SKETCH_OVERLAP};
use core::ffi::c_void;
use sketches_core::parquet::ParquetSizing;
use sketches_core::sbbf::{self, SbbfMode, SbbfParams};

/// Native mode: XXH3-64 with the image seed, 64-bit block selection.
pub const SKETCH_SBBF_NATIVE: u32 = 0;
/// Parquet mode: XXH64 seed 0, Parquet's 32-bit block selection.
pub const SKETCH_SBBF_PARQUET: u32 = 1;
/// Bytes per block.
pub const SKETCH_SBBF_BLOCK_BYTES: u32 = 32;

/// Parameters of a split-block Bloom filter.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_sbbf_params {
    /// Number of 32-byte (256-bit) blocks.
    pub blocks: u64,
    /// Items the filter is planned for (drives the over-capacity signal).
    pub planned_items: u64,
    /// False-positive rate planned at `planned_items`, in (0, 1).
    pub planned_fpr: f64,
    /// `SKETCH_SBBF_NATIVE` or `SKETCH_SBBF_PARQUET`.
    pub mode: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

impl From<SbbfParams> for sketch_sbbf_params {
    fn from(p: SbbfParams) -> Self {
        sketch_sbbf_params {
            blocks: p.blocks,
            planned_items: p.planned_items,
            planned_fpr: p.planned_fpr,
            mode: match p.mode {
                SbbfMode::Native => SKETCH_SBBF_NATIVE,
                SbbfMode::Parquet => SKETCH_SBBF_PARQUET,
            },
            reserved: 0,
        }
    }
}

impl CParams for sketch_sbbf_params {
    type Core = SbbfParams;
    fn to_core(&self) -> Result<SbbfParams, Fail> {
        reserved_zero(u64::from(self.reserved))?;
        let mode = match self.mode {
            SKETCH_SBBF_NATIVE => SbbfMode::Native,
            SKETCH_SBBF_PARQUET => SbbfMode::Parquet,
            _ => return Err(Fail(SKETCH_INVALID_PARAMETER)),
        };
        Ok(SbbfParams {
            blocks: self.blocks,
            planned_items: self.planned_items,
            planned_fpr: self.planned_fpr,
            mode,
        })
    }
}

/// Statistics of a split-block filter (`sketch_sbbf_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_sbbf_stats {
    /// The filter's parameters.
    pub params: sketch_sbbf_params,
    /// Hash seed (0 in Parquet mode).
    pub seed: u64,
    /// Number of add calls (duplicates included).
    pub add_calls: u64,
    /// Add calls that set at least one new bit (about the distinct items inserted).
    pub inserted: u64,
    /// Number of set bits (scanned).
    pub set_bits: u64,
    /// Fraction of bits set, 0..1.
    pub fill: f64,
    /// Distinct items estimated from the set bits.
    pub estimated_items: f64,
    /// Current false-positive rate measured from the blocks.
    pub estimated_fpr: f64,
    /// `SKETCH_CAPACITY_*` flags; 0 while the filter is within its plan.
    pub capacity_flags: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

/// Plans a native filter from `items` expected distinct items and target
/// rate `fpr`, with the split-block formula (about 10.5 bits per key at 1%).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (items 0, fpr not in (0, 1)).
///
/// # Safety
/// `out` must be valid for writing one `sketch_sbbf_params`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_plan(
    items: u64,
    fpr: f64,
    out: *mut sketch_sbbf_params,
) -> sketch_status {
    run(|| {
        crate::boundary::require(out)?;
        let p = SbbfParams::for_items(items, fpr)?;
        // SAFETY: caller contract.
        unsafe { crate::boundary::write_out(out, p.into()) }
    })
}

/// Plans a Parquet-mode filter the way Parquet writers size a column's
/// bitset from its distinct-value count and fpp (power-of-two bytes, 32 B
/// to 128 MiB).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`.
///
/// # Safety
/// `out` must be valid for writing one `sketch_sbbf_params`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_plan_parquet(
    ndv: u64,
    fpp: f64,
    out: *mut sketch_sbbf_params,
) -> sketch_status {
    run(|| {
        crate::boundary::require(out)?;
        let p = SbbfParams::for_parquet(ndv, fpp)?;
        // SAFETY: caller contract.
        unsafe { crate::boundary::write_out(out, p.into()) }
    })
}

/// Explicit block count in the given mode (`SKETCH_SBBF_NATIVE` or
/// `SKETCH_SBBF_PARQUET`), for example to rebuild a Parquet bitset of
/// `blocks * 32` bytes.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (blocks 0 or too
/// many, unknown mode).
///
/// # Safety
/// `out` must be valid for writing one `sketch_sbbf_params`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_plan_blocks(
    blocks: u64,
    mode: u32,
    out: *mut sketch_sbbf_params,
) -> sketch_status {
    run(|| {
        crate::boundary::require(out)?;
        let p = match mode {
            SKETCH_SBBF_NATIVE => SbbfParams::with_blocks(blocks)?,
            SKETCH_SBBF_PARQUET => SbbfParams::parquet_with_blocks(blocks)?,
            _ => return Err(Fail(SKETCH_INVALID_PARAMETER)),
        };
        // SAFETY: caller contract.
        unsafe { crate::boundary::write_out(out, p.into()) }
    })
}

/// Exact image size in bytes (a multiple of `SKETCH_IMAGE_ALIGN`) for `params`.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`.
///
/// # Safety
/// `params` must point to a readable struct; `bytes` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_size(
    params: *const sketch_sbbf_params,
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

/// The blocks of the image: `*bitset` points into `buf` (Parquet's bitset in
/// Parquet mode), `*bitset_len` gets its length in bytes.
///
/// # Safety
/// `buf`: `len` readable bytes; both outputs writable. The returned pointer is
/// valid as long as `buf` is.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_bitset(
    buf: *const c_void,
    len: usize,
    bitset: *mut *const u8,
    bitset_len: *mut usize,
) -> sketch_status {
    run(|| {
        crate::boundary::require(bitset)?;
        crate::boundary::require(bitset_len)?;
        let image = Span::of(buf.cast::<u8>(), len);
        crate::boundary::apart(&[Span::of(bitset, 1), Span::of(bitset_len, 1)], None, &[image])?;
        // SAFETY: caller contract.
        let body = sbbf::wrap(unsafe { crate::boundary::bytes(buf, len)? })?.body();
        // SAFETY: both outputs checked non-NULL; caller contract.
        unsafe {
            crate::boundary::write_out(bitset, body.as_ptr())?;
            crate::boundary::write_out(bitset_len, body.len())
        }
    })
}

/// Writes an empty filter into `buf` (8-byte aligned, at least
/// `sketch_sbbf_size` bytes). Any previous content is overwritten. A
/// Parquet-mode filter hashes with XXH64 seed 0, as Parquet readers do:
/// its `seed` must be 0.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (params, or a
/// non-zero `seed` in Parquet mode), `SKETCH_MISALIGNED`,
/// `SKETCH_BUFFER_TOO_SMALL`. On error `buf` is untouched.
///
/// # Safety
/// `buf` must point to `len` writable bytes; `params` to a readable struct.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_init(
    buf: *mut c_void,
    len: usize,
    params: *const sketch_sbbf_params,
    seed: u64,
) -> sketch_status {
    run(|| {
        crate::boundary::require(params)?;
        // SAFETY: non-NULL; caller contract.
        let p = unsafe { boundary::params(params)? };
        // SAFETY: caller contract.
        unsafe { filter::mutate(buf, len, |b| sbbf::init(b, &p, seed).map(|_| ())) }
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
pub unsafe extern "C" fn sketch_sbbf_add(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::update(buf, len, was_new, |b| Ok(sbbf::wrap_mut(b)?.add(key)))
    })
}

/// Adds an integer key (hashed as its 8 little-endian bytes). See `sketch_sbbf_add`.
/// In Parquet mode that is the hash of an INT64 value: for an INT32 column
/// use `sketch_sbbf_add_hash(sketch_parquet_hash_i32(v))` (an INT32 value
/// as a `uint64_t` hashes 8 bytes where writers hash 4, and is not found).
///
/// # Safety
/// As for `sketch_sbbf_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, was_new, |b| Ok(sbbf::wrap_mut(b)?.add_u64(key))) })
}

/// Adds a precomputed hash. The hash depends on the mode: in native mode
/// `sketch_hash(key, len, seed)` with the filter's seed (XXH3-64); in
/// Parquet mode XXH64 seed 0 of the bytes Parquet hashes (a fixed-width
/// value's PLAIN encoding, a BYTE_ARRAY's raw bytes without the length prefix)
/// (`sketch_parquet_hash_i32/_i64/_float/_double/_bytes`, or
/// `sketch_hash_xxh64(bytes, len, 0)`). See `sketch_sbbf_add`.
///
/// # Safety
/// As for `sketch_sbbf_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, was_new, |b| Ok(sbbf::wrap_mut(b)?.add_hash(hash))) })
}

/// Tests a byte key: `*out` is false when the key was certainly never added,
/// true when it may have been.
///
/// Errors: `SKETCH_NULL_POINTER` (out, or key with non-zero length), image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `key`: `key_len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains(
    buf: *const c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key(key, key_len)?;
        filter::query(buf, len, out, |b| Ok(sbbf::wrap(b)?.contains(key)))
    })
}

/// Tests an integer key (its 8 little-endian bytes). See `sketch_sbbf_contains`.
/// In Parquet mode that is an INT64 value: a filter of an INT32 column
/// answers false for its values asked this way; use
/// `sketch_sbbf_contains_hash(sketch_parquet_hash_i32(v))`.
///
/// # Safety
/// As for `sketch_sbbf_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_u64(
    buf: *const c_void,
    len: usize,
    key: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(sbbf::wrap(b)?.contains_u64(key))) })
}

/// Tests a precomputed hash (XXH3 with the seed in native mode, XXH64 seed 0
/// of the value's bytes in Parquet mode, as for `sketch_sbbf_add_hash`).
/// See `sketch_sbbf_contains`.
///
/// # Safety
/// As for `sketch_sbbf_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_hash(
    buf: *const c_void,
    len: usize,
    hash: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(sbbf::wrap(b)?.contains_hash(hash))) })
}

/// Validates the live split-block image in `buf` and writes its token to `*out`
/// (written only on success): pass it to the `sketch_sbbf_*_with_token`
/// calls to skip the header validation on each (see `sketch_token`). Make
/// it again after `sketch_sbbf_init` or `sketch_sbbf_import` into the
/// buffer; a stale token still works, at the cost of the full validation.
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_token(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_token,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { image::write_token(buf, len, out, sbbf::token) })
}

/// `sketch_sbbf_add` with the image's token (from `sketch_sbbf_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_sbbf_add`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_sbbf_add`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_with_token(
    buf: *mut c_void,
    len: usize,
    token: *const sketch_token,
    key: *const c_void,
    key_len: usize,
    was_new: *mut bool,
) -> sketch_status {
    let fast = |b: &mut [u8], t: &_, key: &_| Some(sbbf::try_wrap_mut_with(b, t)?.add_inline(key));
    let full = |b: &mut [u8], t: &_, key: &_| Ok(sbbf::wrap_mut_with(b, t)?.add(key));
    // SAFETY: caller contract.
    unsafe { filter::token_add_bytes((buf, len, token), key, key_len, was_new, fast, full) }
}

/// `sketch_sbbf_add_u64` with the image's token (from `sketch_sbbf_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_sbbf_add_u64`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_sbbf_add_u64`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_u64_with_token(
    buf: *mut c_void,
    len: usize,
    token: *const sketch_token,
    key: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let token = image::read_token(token)?;
        filter::update(buf, len, was_new, |b| Ok(sbbf::wrap_mut_with(b, &token)?.add_u64(key)))
    })
}

/// `sketch_sbbf_add_hash` with the image's token (from `sketch_sbbf_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_sbbf_add_hash`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_sbbf_add_hash`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_hash_with_token(
    buf: *mut c_void,
    len: usize,
    token: *const sketch_token,
    hash: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let token = image::read_token(token)?;
        filter::update(buf, len, was_new, |b| Ok(sbbf::wrap_mut_with(b, &token)?.add_hash(hash)))
    })
}

/// `sketch_sbbf_contains` with the image's token (from `sketch_sbbf_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_sbbf_contains`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_sbbf_contains`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_with_token(
    buf: *const c_void,
    len: usize,
    token: *const sketch_token,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
) -> sketch_status {
    let fast = |b: &[u8], t: &_, key: &_| Some(sbbf::try_wrap_with(b, t)?.contains_inline(key));
    let full = |b: &[u8], t: &_, key: &_| Ok(sbbf::wrap_with(b, t)?.contains(key));
    // SAFETY: caller contract.
    unsafe { filter::token_contains_bytes((buf, len, token), key, key_len, out, fast, full) }
}

/// `sketch_sbbf_contains_u64` with the image's token (from `sketch_sbbf_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_sbbf_contains_u64`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_sbbf_contains_u64`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_u64_with_token(
    buf: *const c_void,
    len: usize,
    token: *const sketch_token,
    key: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let token = image::read_token(token)?;
        filter::query(buf, len, out, |b| Ok(sbbf::wrap_with(b, &token)?.contains_u64(key)))
    })
}

/// `sketch_sbbf_contains_hash` with the image's token (from `sketch_sbbf_token`): the same
/// result, status and outputs, without validating the headers again when the
/// token matches the image (see `sketch_token`).
///
/// Errors: those of `sketch_sbbf_contains_hash`; `SKETCH_NULL_POINTER` for a NULL token.
///
/// # Safety
/// As for `sketch_sbbf_contains_hash`; `token`: a readable `sketch_token`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_hash_with_token(
    buf: *const c_void,
    len: usize,
    token: *const sketch_token,
    hash: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let token = image::read_token(token)?;
        filter::query(buf, len, out, |b| Ok(sbbf::wrap_with(b, &token)?.contains_hash(hash)))
    })
}

/// Validates the live split-block image in `buf` (`len` bytes) and writes its
/// kept view to `*out` (written only on success): pass it to the
/// `sketch_sbbf_view_*` calls, which then read no header (see
/// `sketch_view` for when to make it again).
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image.
///
/// # Safety
/// `buf`: `len` readable bytes, writable for the view's adds; `out`: writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_view(
    buf: *mut c_void,
    len: usize,
    out: *mut sketch_view,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { image::write_view(buf, len, out, sbbf::token) })
}

/// `sketch_sbbf_add` on the image of a kept view (from
/// `sketch_sbbf_view`): the same result and outputs, without reading its
/// header (see `sketch_view`).
///
/// Errors: those of `sketch_sbbf_add` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view` whose image is writable; the other
/// arguments as for `sketch_sbbf_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_view_add(
    view: *const sketch_view,
    key: *const c_void,
    key_len: usize,
    was_new: *mut bool,
) -> sketch_status {
    let fast = |b: &mut [u8], t: &_, key: &_| Some(sbbf::try_wrap_mut_trusted(b, t)?.add_inline(key));
    let full = |b: &mut [u8], t: &_, key: &_| Ok(sbbf::wrap_mut_trusted(b, t)?.add(key));
    // SAFETY: caller contract.
    unsafe { filter::view_add_bytes(view, key, key_len, was_new, fast, full) }
}

/// `sketch_sbbf_add_u64` on the image of a kept view (from
/// `sketch_sbbf_view`): the same result and outputs, without reading its
/// header (see `sketch_view`).
///
/// Errors: those of `sketch_sbbf_add_u64` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view` whose image is writable; the other
/// arguments as for `sketch_sbbf_add_u64`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_view_add_u64(
    view: *const sketch_view,
    key: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let v = image::read_view(view)?;
        v.update(was_new, |b| Ok(sbbf::wrap_mut_trusted(b, &v.token)?.add_u64(key)))
    })
}

/// `sketch_sbbf_add_hash` on the image of a kept view (from
/// `sketch_sbbf_view`): the same result and outputs, without reading its
/// header (see `sketch_view`).
///
/// Errors: those of `sketch_sbbf_add_hash` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view` whose image is writable; the other
/// arguments as for `sketch_sbbf_add_hash`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_view_add_hash(
    view: *const sketch_view,
    hash: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let v = image::read_view(view)?;
        v.update(was_new, |b| Ok(sbbf::wrap_mut_trusted(b, &v.token)?.add_hash(hash)))
    })
}

/// `sketch_sbbf_contains` on the image of a kept view (from
/// `sketch_sbbf_view`): the same answer, without reading its header (see
/// `sketch_view`).
///
/// Errors: those of `sketch_sbbf_contains` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view`; the other arguments as for
/// `sketch_sbbf_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_view_contains(
    view: *const sketch_view,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
) -> sketch_status {
    let fast = |b: &[u8], t: &_, key: &_| Some(sbbf::try_wrap_trusted(b, t)?.contains_inline(key));
    let full = |b: &[u8], t: &_, key: &_| Ok(sbbf::wrap_trusted(b, t)?.contains(key));
    // SAFETY: caller contract.
    unsafe { filter::view_contains_bytes(view, key, key_len, out, fast, full) }
}

/// `sketch_sbbf_contains_u64` on the image of a kept view (from
/// `sketch_sbbf_view`): the same answer, without reading its header (see
/// `sketch_view`).
///
/// Errors: those of `sketch_sbbf_contains_u64` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view`; the other arguments as for
/// `sketch_sbbf_contains_u64`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_view_contains_u64(
    view: *const sketch_view,
    key: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let v = image::read_view(view)?;
        v.query(out, |b| Ok(sbbf::wrap_trusted(b, &v.token)?.contains_u64(key)))
    })
}

/// `sketch_sbbf_contains_hash` on the image of a kept view (from
/// `sketch_sbbf_view`): the same answer, without reading its header (see
/// `sketch_view`).
///
/// Errors: those of `sketch_sbbf_contains_hash` for its arguments;
/// `SKETCH_NULL_POINTER` for a NULL view.
///
/// # Safety
/// `view`: a readable `sketch_view`; the other arguments as for
/// `sketch_sbbf_contains_hash`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_view_contains_hash(
    view: *const sketch_view,
    hash: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let v = image::read_view(view)?;
        v.query(out, |b| Ok(sbbf::wrap_trusted(b, &v.token)?.contains_hash(hash)))
    })
}

/// Adds `count` byte keys in one call. `was_new` (NULL, or `count` slots)
/// receives per key whether it was new. Every key pointer is checked before
/// anything is added: on error nothing changes.
///
/// # Safety
/// `keys`: `count` readable `sketch_slice`s, each valid; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_batch(
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
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_sbbf_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_packed(
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

/// Adds `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_sbbf_add_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::ints(keys, count)?, was_new) })
}

/// Shared body of `sketch_sbbf_add_batch`, `sketch_sbbf_add_packed` and `sketch_sbbf_add_u64_batch`.
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
                sbbf::wrap_mut(b).map(|f| {
                    let h = f.as_ref().key_hasher();
                    (f, h)
                })
            },
            |f, h, o| f.add_hashes(h, o),
        )
    }
}

/// Adds `count` precomputed hashes in one call. See `sketch_sbbf_add_batch`.
///
/// # Safety
/// `hashes`: `count` readable values; `was_new`: NULL or `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_hash_batch(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::add_hashes(buf, len, hashes, count, was_new, |b, h, o| sbbf::wrap_mut(b)?.add_hashes(h, o))
    })
}

/// Tests `count` byte keys in one call; `results[i]` receives the answer for key `i`.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_batch(
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
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_sbbf_contains_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_packed(
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

/// Tests `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_sbbf_contains_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_u64_batch(
    buf: *const c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { contains_keys(buf, len, Keys::ints(keys, count)?, results) })
}

/// Shared body of `sketch_sbbf_contains_batch`, `sketch_sbbf_contains_packed` and `sketch_sbbf_contains_u64_batch`.
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
            |b| sbbf::wrap(b).map(|f| (f, f.key_hasher())),
            |f, h, o| f.contains_hashes(h, o),
        )
    }
}

/// Tests `count` precomputed hashes in one call.
///
/// # Safety
/// `hashes`: `count` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_hash_batch(
    buf: *const c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query_hashes(buf, len, hashes, count, results, |b, h, o| sbbf::wrap(b)?.contains_hashes(h, o))
    })
}

/// Union: `dst |= src`. Both must have equal block count, mode and seed.
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
pub unsafe extern "C" fn sketch_sbbf_union(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        merge_with(|d, s| sbbf::wrap_mut(d)?.union(&sbbf::wrap(s)?), dst, dst_len, src, src_len)
    })
}

/// Intersection: `dst &= src`. Same rules as `sketch_sbbf_union`.
///
/// # Safety
/// As for `sketch_sbbf_union`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_intersect(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        merge_with(|d, s| sbbf::wrap_mut(d)?.intersect(&sbbf::wrap(s)?), dst, dst_len, src, src_len)
    })
}

/// All statistics; scans the blocks (O(m)). For the cheap over-capacity
/// check use `sketch_sbbf_capacity`.
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_get_stats(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_sbbf_stats,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let s = sbbf::wrap(b)?.stats();
            Ok(sketch_sbbf_stats {
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

/// The over-capacity signal: `*flags` gets `SKETCH_CAPACITY_*` bits, 0
/// while the filter is within its plan. Computed from the inserted count
/// and the split-block formula at that count, without scanning the blocks
/// (a few microseconds at the planned load, independent of the filter
/// size), except on a filter loaded from a Parquet bitset
/// (`sketch_sbbf_load_parquet_bitset`), whose inserted count does not hold
/// the file's keys: there it scans every block, O(blocks), as
/// `sketch_sbbf_get_stats` always does.
///
/// # Safety
/// `buf`: `len` readable bytes; `flags` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_capacity(
    buf: *const c_void,
    len: usize,
    flags: *mut u32,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, flags, |b| Ok(sbbf::wrap(b)?.capacity().0)) })
}

/// Removes every item (zeroes bits and counters); parameters and seed stay.
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_clear(buf: *mut c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            sbbf::wrap_mut(b)?.clear();
            Ok(())
        })
    })
}

/// Writes in `*bytes` how many bytes `sketch_sbbf_export` writes for this
/// image (its length), to size the destination first.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_exported_size(
    buf: *const c_void,
    len: usize,
    bytes: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, bytes, sbbf::exported_len) })
}

/// Serializes: copies the image to `out` (any alignment, at least the image
/// size) and writes the checksum there; `*written` gets the byte count. The
/// live image is not modified.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_BUFFER_TOO_SMALL` (`out_len` below `sketch_sbbf_exported_size`), `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `out_len` writable bytes; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_export(
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { export_with(sbbf::export, buf, len, out, out_len, written) })
}

/// Writes in `*size` how many bytes the live image takes that
/// `sketch_sbbf_import` writes for the exported split-block Bloom filter in `src`: the `dst_len`
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
pub unsafe extern "C" fn sketch_sbbf_import_size(
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { crate::image::import_size_with(sbbf::import_len, src, src_len, size) })
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
pub unsafe extern "C" fn sketch_sbbf_import(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { import_with(sbbf::import, src, src_len, dst, dst_len) })
}

/// Checks untrusted bytes in place (headers, exact length, checksum) without
/// copying, for example an `mmap`ed file before querying it zero-copy.
///
/// # Safety
/// `bytes`: `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_verify(bytes: *const c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { Ok(sbbf::verify(crate::boundary::bytes(bytes, len)?)?) })
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
pub unsafe extern "C" fn sketch_sbbf_add_concurrent(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        shared::one(buf, len, was_new, false, |w| Ok(sbbf::wrap_shared(w)?.add(key)))
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
pub unsafe extern "C" fn sketch_sbbf_add_concurrent_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, was_new, false, |w| Ok(sbbf::wrap_shared(w)?.add_u64(key))) })
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
pub unsafe extern "C" fn sketch_sbbf_add_concurrent_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    was_new: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, was_new, false, |w| Ok(sbbf::wrap_shared(w)?.add_hash(hash))) })
}

/// Adds `count` byte keys (`sketch_slice` array). From any number of threads at once on one image (the
/// concurrent functions only). `was_new` (NULL, or `count` slots) receives per key whether it set a new bit
/// (as for the single add, a key added by several threads at once may be new to more than one).
///
/// # Safety
/// `buf` as for `sketch_sbbf_add_concurrent`; the keys and outputs as for the `_batch` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_concurrent_batch(
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
/// `buf` as for `sketch_sbbf_add_concurrent`; the keys and outputs as for the `_packed` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_concurrent_packed(
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
/// `buf` as for `sketch_sbbf_add_concurrent`; the keys and outputs as for the `_u64_batch` forms.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_add_concurrent_u64_batch(
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
            |w| sbbf::wrap_shared(w).map(|s| (s, s.key_hasher())),
            |s, h, o| s.add_hashes(h, o),
        )
    }
}

/// The over-capacity signal read with atomic loads, safe while other threads
/// add with the concurrent functions: `*flags` gets `SKETCH_CAPACITY_*` bits, 0
/// while the filter is within its plan. O(1) (the inserted counter against the
/// plan) unless the filter was loaded from a Parquet bitset: then it scans
/// every block (O(m)), as `sketch_sbbf_capacity` does. A writer can watch for
/// "planned for 100k, got 1M" without stopping the adds or copying the image
/// out. Exact once every add has returned; while adds run, each counter reads
/// as a value it passed through, so a flag can show an add or two late.
///
/// Errors: `SKETCH_NULL_POINTER` (buf or flags), `SKETCH_MISALIGNED`
/// (`buf` not 8-byte aligned), image errors, `SKETCH_WRONG_FAMILY`;
/// `*flags` is written only on success.
///
/// # Safety
/// As for `sketch_sbbf_add_concurrent`; `flags` writable.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_capacity_concurrent(
    buf: *const c_void,
    len: usize,
    flags: *mut u32,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, flags, true, |w| Ok(sbbf::wrap_shared(w)?.capacity().0)) })
}

/// Tests a byte key with atomic loads, safe while other threads add with
/// the concurrent functions (it sees every add that returned before it).
///
/// # Safety
/// As for `sketch_sbbf_add_concurrent`; `out` writable.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_concurrent(
    buf: *const c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        shared::one(buf, len, out, true, |w| Ok(sbbf::wrap_shared(w)?.contains(key)))
    })
}

/// Tests an integer key with atomic loads. See `sketch_sbbf_contains_concurrent`.
///
/// # Safety
/// As for `sketch_sbbf_contains_concurrent`.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_concurrent_u64(
    buf: *const c_void,
    len: usize,
    key: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        shared::one(buf, len, out, true, |w| Ok(sbbf::wrap_shared(w)?.contains(&key.to_le_bytes())))
    })
}

/// Tests a precomputed hash with atomic loads (the hash the image's mode
/// takes, as for `sketch_sbbf_contains_hash`). See `sketch_sbbf_contains_concurrent`.
///
/// # Safety
/// As for `sketch_sbbf_contains_concurrent`.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_concurrent_hash(
    buf: *const c_void,
    len: usize,
    hash: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { shared::one(buf, len, out, true, |w| Ok(sbbf::wrap_shared(w)?.contains_hash(hash))) })
}

/// Tests `count` byte keys (`sketch_slice` array) with atomic loads, while
/// other threads add through the concurrent functions; `results` (required,
/// `count` slots) gets one answer per key. An add that has not returned yet
/// may or may not be seen; a finished one always is.
///
/// # Safety
/// `buf` as for `sketch_sbbf_contains_concurrent`; the keys and results as
/// for `sketch_sbbf_contains_batch`.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_concurrent_batch(
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
/// atomic loads. See `sketch_sbbf_contains_concurrent_batch`.
///
/// # Safety
/// `buf` as for `sketch_sbbf_contains_concurrent`; the keys and results as
/// for `sketch_sbbf_contains_packed`.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_concurrent_packed(
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
/// `sketch_sbbf_contains_concurrent_batch`.
///
/// # Safety
/// `buf` as for `sketch_sbbf_contains_concurrent`; `keys`: `count` readable
/// values; `results`: `count` writable bools.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_concurrent_u64_batch(
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
/// `sketch_sbbf_contains_concurrent_batch`.
///
/// # Safety
/// `buf` as for `sketch_sbbf_contains_concurrent`; `hashes`: `count`
/// readable values; `results`: `count` writable bools.
#[cfg(target_has_atomic = "64")]
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_contains_concurrent_hash_batch(
    buf: *const c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        shared::query_hashes(buf, len, hashes, count, results, sbbf::wrap_shared, |f, h| f.contains_hash(h))
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
                let f = sbbf::wrap_shared(w)?;
                let h = f.key_hasher();
                Ok((f, h))
            },
            |f, h| f.contains_hash(h),
        )
    }
}

/// Parquet writers' bitset sizing: the parquet crate (arrow-rs) rule, the
/// default of `sketch_sbbf_plan_parquet`.
pub const SKETCH_PARQUET_SIZING_PARQUET_RS: u32 = 0;
/// DuckDB's bitset sizing (no upper clamp; ndv = the chunk's dictionary size).
pub const SKETCH_PARQUET_SIZING_DUCKDB: u32 = 1;
/// Arrow C++ (pyarrow) sizing: the bit count rounded up to a power of two first.
pub const SKETCH_PARQUET_SIZING_ARROW_CPP: u32 = 2;

/// Plans a Parquet-mode filter sized as a given writer sizes a column's
/// bitset for `ndv` distinct values at rate `fpp`
/// (`SKETCH_PARQUET_SIZING_*`). Writers that fold before writing (the
/// parquet crate, Arrow C++) shrink the filter afterwards: apply
/// `sketch_sbbf_fold_to_target_fpp` with the same `fpp` to reproduce their
/// bytes. Example: ndv 1693 at 0.01 plans 4096 bytes with Arrow C++ sizing
/// (then folded once to 2048 as pyarrow writes), 2048 with the others.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (ndv 0, fpp not
/// in (0, 1), unknown sizing, too large).
///
/// # Safety
/// `out` must be valid for writing one `sketch_sbbf_params`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_plan_parquet_sizing(
    ndv: u64,
    fpp: f64,
    sizing: u32,
    out: *mut sketch_sbbf_params,
) -> sketch_status {
    run(|| {
        boundary::require(out)?;
        let sizing = match sizing {
            SKETCH_PARQUET_SIZING_PARQUET_RS => ParquetSizing::ParquetRs,
            SKETCH_PARQUET_SIZING_DUCKDB => ParquetSizing::DuckDb,
            SKETCH_PARQUET_SIZING_ARROW_CPP => ParquetSizing::ArrowCpp,
            _ => return Err(Fail(SKETCH_INVALID_PARAMETER)),
        };
        let p = SbbfParams::for_parquet_sizing(ndv, fpp, sizing)?;
        // SAFETY: caller contract.
        unsafe { boundary::write_out(out, p.into()) }
    })
}

/// Parquet-mode parameters for a bitset of `bitset_len` bytes read out of a
/// Parquet file (the bytes after a column chunk's `BloomFilterHeader`):
/// planned for the most items at which a filter of that size still meets
/// `fpr`. A rate not even one item meets (below about 1e-12 for the
/// smallest bitsets) plans one item at the rate one item gives, so that the
/// capacity signal stays quiet at the first key. Pass them to
/// `sketch_sbbf_size` and `sketch_sbbf_load_parquet_bitset`.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_ARGUMENT` (length 0, not a
/// multiple of 32, above 2^32 blocks), `SKETCH_INVALID_PARAMETER` (fpr).
///
/// # Safety
/// `out` must be valid for writing one `sketch_sbbf_params`.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_plan_parquet_bitset(
    bitset_len: usize,
    fpr: f64,
    out: *mut sketch_sbbf_params,
) -> sketch_status {
    run(|| {
        boundary::require(out)?;
        let p = SbbfParams::for_parquet_bitset(bitset_len, fpr)?;
        // SAFETY: caller contract.
        unsafe { boundary::write_out(out, p.into()) }
    })
}

/// Writes a live Parquet-mode image into `buf` whose blocks are a copy of
/// `bitset` (read out of a Parquet file), planned by `params`
/// (`sketch_sbbf_plan_parquet_bitset`, or your own plan with that block
/// count). The image answers exactly as the file's filter does and can be
/// added to, merged, folded and exported. Its counters start at 0 and count
/// only later adds, so its capacity signal and statistics follow the fill
/// of the blocks (a scan) instead: an all-ones bitset is reported over
/// capacity.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (params, or not
/// Parquet mode), `SKETCH_INVALID_ARGUMENT` (`bitset_len` is not
/// `params.blocks * 32`), `SKETCH_MISALIGNED`, `SKETCH_BUFFER_TOO_SMALL`,
/// `SKETCH_OVERLAP` (`bitset` shares a byte with `buf`: load from a copy,
/// not from the image's own blocks). `buf` is not written on error.
///
/// # Safety
/// `buf`: `len` writable bytes; `bitset`: `bitset_len` readable bytes (not
/// overlapping `buf`); `params` readable.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_load_parquet_bitset(
    buf: *mut c_void,
    len: usize,
    bitset: *const c_void,
    bitset_len: usize,
    params: *const sketch_sbbf_params,
) -> sketch_status {
    run(|| unsafe {
        let p = boundary::params(params)?;
        if boundary::overlaps(buf, len, bitset, bitset_len) {
            return Err(Fail(SKETCH_OVERLAP));
        }
        let bits = boundary::bytes(bitset, bitset_len)?;
        filter::mutate(buf, len, |b| sbbf::load_parquet_bitset(b, bits, &p).map(|_| ()))
    })
}

/// Folds the filter `folds` times in place (each fold halves the block
/// count, OR-ing adjacent blocks, as Parquet writers shrink an under-filled
/// filter): `*new_len` receives the new image length (the rest of `buf` is
/// no longer part of the image). Every key stays present.
///
/// Errors: `SKETCH_INVALID_ARGUMENT` when the block count is not divisible by
/// `2^folds` (nothing changes), `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` writable bytes; `new_len` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_fold(
    buf: *mut c_void,
    len: usize,
    folds: u32,
    new_len: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        boundary::require(new_len)?;
        // The new length may not be stored inside the image being folded.
        boundary::apart(&[Span::of(buf.cast::<u8>(), len), Span::of(new_len, 1)], None, &[])?;
        let image = boundary::bytes_mut(buf, len)?;
        let n = sbbf::fold(image, folds)?;
        boundary::write_out(new_len, n)
    })
}

/// Folds as far as the parquet crate and Arrow C++ (pyarrow) fold a filter
/// before writing it with target rate `fpp`: the most halvings whose
/// estimated rate `(1 - (1 - fill)^(2^k))^8` stays within `fpp`. `*folds`
/// receives how many, `*new_len` the new image length.
///
/// Errors: `SKETCH_INVALID_PARAMETER` (fpp not in (0, 1), NaN included; a
/// rate of 1 meant as 1% would fold any filter to one block), the image
/// unchanged; `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` writable bytes; `folds` and `new_len` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_sbbf_fold_to_target_fpp(
    buf: *mut c_void,
    len: usize,
    fpp: f64,
    folds: *mut u32,
    new_len: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        boundary::require(folds)?;
        boundary::require(new_len)?;
        // Both outputs apart from the image being folded and from each other.
        let written = [Span::of(buf.cast::<u8>(), len), Span::of(folds, 1), Span::of(new_len, 1)];
        boundary::apart(&written, None, &[])?;
        let image = boundary::bytes_mut(buf, len)?;
        let k = sbbf::fold_to_target_fpp(image, fpp)?;
        let n = sbbf::exported_len(image)?;
        boundary::write_out(folds, k)?;
        boundary::write_out(new_len, n)
    })
}
