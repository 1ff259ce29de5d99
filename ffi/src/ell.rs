//! C ABI of ExaLogLog (`sketches_core::ell`), Ertl 2024.
//!
//! Distinct counting in registers that remember, besides the largest update
//! value, which of the `d` values below it were seen: for the same error
//! about 43% less memory than HyperLogLog (6-bit registers) and 21% less
//! than UltraLogLog (measured memory-variance products with maximum
//! likelihood, d = 20: 3.73 against 6.56 and 4.70). Two configurations: `t = 2, d = 20` (28-bit registers,
//! the most compact) and `t = 2, d = 24` (32-bit registers); precision `p`
//! 2..=24 gives 2^p registers. Relative standard error: about
//! 0.318/sqrt(2^p) (d = 20) or 0.306/sqrt(2^p) (d = 24) for the martingale
//! estimate of a sketch that saw only its own stream, 0.362/sqrt(2^p) and
//! 0.344/sqrt(2^p) for the maximum-likelihood estimate from the registers
//! (what a merged sketch reports).
//!
//! ExaLogLog takes the register index from hash bits `t .. t + p`, not the
//! top bits as HyperLogLog and UltraLogLog do, so there is no exact
//! conversion to those families; sketches convert exactly to a lower
//! precision or fewer history bits (`sketch_ell_downsize`, and merges
//! across parameters).
//!
//! Thread-safety: calls taking `const void *buf` only read and may run
//! concurrently; adds, merges and resets need exclusive access.

use crate::boundary::{self, reserved_zero, run, sketch_slice, CParams, Fail, Keys, Status};
use crate::filter;
use crate::image::{export_with, import_with, merge_with};
use crate::status::{sketch_status, SKETCH_INVALID_PARAMETER};
use core::ffi::c_void;
use sketches_core::ell::{self, EllConfig};
use sketches_core::Error;

/// Family id of ExaLogLog.
pub const SKETCH_FAMILY_EXALOGLOG: u16 = 11;
/// Smallest ExaLogLog precision (4 registers).
pub const SKETCH_ELL_MIN_PRECISION: u32 = 2;
/// Largest ExaLogLog precision (2^24 registers).
pub const SKETCH_ELL_MAX_PRECISION: u32 = 24;

/// Parameters of an ExaLogLog sketch: one of the two configurations
/// (`t = 2` with `d = 20` or `d = 24`) and the precision. C callers may
/// fill the struct directly, e.g. `{2, 24, 12, 0}`, or plan it with
/// `sketch_ell_plan`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_ell_params {
    /// Extra hash bits per update value, `t`: 2.
    pub t: u32,
    /// History bits per register, `d`: 20 (28-bit registers) or 24 (32-bit registers).
    pub d: u32,
    /// Precision `p`, 2..=24: 2^p registers.
    pub precision: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

impl CParams for sketch_ell_params {
    type Core = (EllConfig, u8);
    fn to_core(&self) -> Result<(EllConfig, u8), Fail> {
        reserved_zero(u64::from(self.reserved))?;
        let small = |v: u32| u8::try_from(v).map_err(|_| Fail(SKETCH_INVALID_PARAMETER));
        let config =
            EllConfig::from_td(small(self.t)?, small(self.d)?).ok_or(Fail(SKETCH_INVALID_PARAMETER))?;
        let p = small(self.precision)?;
        ell::image_len(config, p)?; // range check of p
        Ok((config, p))
    }
}

fn params_of(config: EllConfig, p: u8) -> sketch_ell_params {
    sketch_ell_params {
        t: u32::from(config.t()),
        d: u32::from(config.d()),
        precision: u32::from(p),
        reserved: 0,
    }
}

/// Statistics of an ExaLogLog sketch (`sketch_ell_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_ell_stats {
    /// Configuration and precision.
    pub params: sketch_ell_params,
    /// Hash seed.
    pub seed: u64,
    /// Registers above zero.
    pub registers_set: u64,
    /// Distinct-count estimate: the martingale estimate while `martingale`
    /// is 1, else maximum likelihood from the registers.
    pub estimate: f64,
    /// The theoretical relative standard error of `estimate`.
    pub standard_error: f64,
    /// Image length in bytes.
    pub image_bytes: u64,
    /// 1 when `estimate` is the martingale estimate (no merge so far), else 0.
    pub martingale: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

/// Plans the smallest precision whose maximum-likelihood relative standard
/// error (what merged sketches report; 0.3622/sqrt(2^p) for d = 20,
/// 0.3438/sqrt(2^p) for d = 24) is at most `relative_error`, with `t = 2`
/// and the given `d`. A sketch that only sees its own stream reports the
/// martingale estimate, about 12% more accurate.
///
/// Errors: `SKETCH_NULL_POINTER` (out), `SKETCH_INVALID_PARAMETER` when `d`
/// is not 20 or 24, or `relative_error` is not in (0, 1) (NaN included) or
/// below what precision 24 reaches (0.3438/4096, about 8.393e-5, for
/// d = 24; 0.3622/4096, about 8.843e-5, for d = 20).
///
/// # Safety
/// `out` must be valid for writing one `sketch_ell_params`.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_plan(
    relative_error: f64,
    d: u32,
    out: *mut sketch_ell_params,
) -> sketch_status {
    run(|| {
        boundary::require(out)?;
        let (config, p) = plan(relative_error, d)?;
        // SAFETY: non-NULL checked; caller contract.
        unsafe { boundary::write_out(out, params_of(config, p)) }
    })
}

fn plan(relative_error: f64, d: u32) -> Result<(EllConfig, u8), Error> {
    let config =
        u8::try_from(d).ok().and_then(|d| EllConfig::from_td(2, d)).ok_or(Error::InvalidParameter)?;
    if !(relative_error > 0.0 && relative_error < 1.0) {
        return Err(Error::InvalidParameter);
    }
    (ell::MIN_PRECISION..=ell::MAX_PRECISION)
        .find(|p| ell::ml_standard_error(config, *p) <= relative_error)
        .map(|p| (config, p))
        .ok_or(Error::InvalidParameter)
}

/// Exact live image size in bytes for `params` (128-byte header plus
/// (6 + t + d) x 2^p / 8 register bytes, a multiple of `SKETCH_IMAGE_ALIGN`).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (also a non-zero reserved field).
///
/// # Safety
/// `params` must point to a readable `sketch_ell_params`; `bytes` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_size(params: *const sketch_ell_params, bytes: *mut u64) -> sketch_status {
    run(|| {
        boundary::require(params)?;
        boundary::require(bytes)?;
        // SAFETY: non-NULL; caller contract.
        let (config, p) = unsafe { boundary::params(params)? };
        let n = ell::image_len(config, p)?;
        // SAFETY: non-NULL; caller contract.
        unsafe { boundary::write_out(bytes, n) }
    })
}

/// Writes an empty ExaLogLog sketch with hash seed `seed` into `buf` (8-byte
/// aligned, at least `sketch_ell_size` bytes). Any previous content is
/// overwritten.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`, `SKETCH_MISALIGNED`,
/// `SKETCH_BUFFER_TOO_SMALL`. On error `buf` is untouched.
///
/// # Safety
/// `buf` must point to `len` writable bytes; `params` to a readable struct.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_init(
    buf: *mut c_void,
    len: usize,
    params: *const sketch_ell_params,
    seed: u64,
) -> sketch_status {
    run(|| {
        // SAFETY: caller contract (NULL refused).
        let (config, p) = unsafe { boundary::params(params)? };
        // SAFETY: caller contract.
        unsafe { filter::mutate(buf, len, |b| ell::init(b, config, p, seed).map(|_| ())) }
    })
}

/// Adds a byte key (hashed with XXH3-64 and the sketch's seed). When `changed`
/// is not NULL it receives true when a register changed. `key` may be NULL
/// when `key_len` is 0.
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image
/// (`SKETCH_MISALIGNED`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_BAD_MAGIC`,
/// `SKETCH_WRONG_FAMILY`, `SKETCH_CORRUPT_HEADER`, ...).
///
/// # Safety
/// `buf`: `len` writable bytes; `key`: `key_len` readable bytes; `changed`: NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_add(
    buf: *mut c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key_apart(key, key_len, buf, len)?;
        filter::update(buf, len, changed, |b| Ok(ell::wrap_mut(b)?.add(key)))
    })
}

/// Adds an integer key (hashed as its 8 little-endian bytes). See `sketch_ell_add`.
///
/// # Safety
/// As for `sketch_ell_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_add_u64(
    buf: *mut c_void,
    len: usize,
    key: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, changed, |b| Ok(ell::wrap_mut(b)?.add_u64(key))) })
}

/// Adds a precomputed 64-bit hash (for example `sketch_hash(key, len, seed)`
/// with the sketch's seed; any uniformly distributed 64-bit value works).
/// See `sketch_ell_add`.
///
/// # Safety
/// As for `sketch_ell_add`.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_add_hash(
    buf: *mut c_void,
    len: usize,
    hash: u64,
    changed: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::update(buf, len, changed, |b| Ok(ell::wrap_mut(b)?.add_hash(hash))) })
}

/// Adds `count` byte keys in one call. Every key pointer is checked before
/// anything is added: on error nothing changes.
///
/// # Safety
/// `keys`: `count` readable `sketch_slice`s, each valid.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_add_batch(
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
/// `SKETCH_INVALID_PARAMETER` before anything changes. See `sketch_ell_add_batch`.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_add_packed(
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

/// Adds `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_ell_add_batch`.
///
/// # Safety
/// `keys`: `count` readable values.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_add_u64_batch(
    buf: *mut c_void,
    len: usize,
    keys: *const u64,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { add_keys(buf, len, Keys::ints(keys, count)?) })
}

/// Shared body of `sketch_ell_add_batch`, `sketch_ell_add_packed` and `sketch_ell_add_u64_batch`.
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
                ell::wrap_mut(b).map(|s| {
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
pub unsafe extern "C" fn sketch_ell_add_hash_batch(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::add_hashes(buf, len, hashes, count, core::ptr::null_mut::<bool>(), |b, h, _| {
            ell::wrap_mut(b)?.add_hashes(h);
            Ok(())
        })
    })
}

/// Writes the distinct-count estimate to `*out`: the martingale estimate
/// (O(1)) while the sketch saw only its own stream, else the
/// maximum-likelihood estimate from the registers (O(2^p) plus a few
/// Newton steps).
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_estimate(buf: *const c_void, len: usize, out: *mut f64) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(ell::wrap(b)?.estimate())) })
}

/// Writes the maximum-likelihood estimate from the registers alone to
/// `*out` (what a merged sketch reports; O(2^p)). `INFINITY` only when no
/// update value is known unseen (about 2^64 distinct hashes).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_ml_estimate(
    buf: *const c_void,
    len: usize,
    out: *mut f64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(ell::wrap(b)?.ml_estimate())) })
}

/// Writes the martingale estimate to `*out` (O(1)) while the sketch saw only
/// its own stream; after a merge (or a downsize) there is none and `*out`
/// receives NaN (`sketch_ell_get_stats` tells which through `martingale`).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_martingale_estimate(
    buf: *const c_void,
    len: usize,
    out: *mut f64,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| Ok(ell::wrap(b)?.martingale_estimate().unwrap_or(f64::NAN)))
    })
}

/// Empties the sketch (same parameters and seed; the martingale estimate
/// restarts at 0).
///
/// # Safety
/// `buf`: `len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_reset(buf: *mut c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::mutate(buf, len, |b| {
            ell::wrap_mut(b)?.reset();
            Ok(())
        })
    })
}

/// Merges `src` into `dst`: afterwards `dst` holds exactly the registers of
/// one sketch of both streams at `dst`'s parameters. Same seed required;
/// `src`'s precision and `d` must be at least `dst`'s (a larger one is
/// reduced exactly). `dst` then reports the maximum-likelihood estimate.
///
/// Errors: `SKETCH_INCOMPATIBLE` (nothing changes), `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `dst`: `dst_len` writable bytes; `src`: `src_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_merge(
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { merge_with(|d, s| ell::wrap_mut(d)?.merge(&ell::wrap(s)?), dst, dst_len, src, src_len) })
}

/// Writes into `dst` (8-byte aligned, at least `sketch_ell_size(params)`
/// bytes) the sketch `src` reduced to `params` (same `t`, precision and `d`
/// at most `src`'s, same seed): exactly the registers the same stream gives
/// at those parameters. The result reports the maximum-likelihood estimate
/// (the martingale estimate does not carry over).
///
/// Errors: `SKETCH_INCOMPATIBLE` (params above `src`'s), `SKETCH_INVALID_PARAMETER`,
/// `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_MISALIGNED`, `SKETCH_OVERLAP`, image
/// errors. `dst` is written only on success.
///
/// # Safety
/// `src`: `src_len` readable bytes; `dst`: `dst_len` writable bytes; `params` readable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_downsize(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
    params: *const sketch_ell_params,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let target = boundary::params(params)?;
        merge_with(|d, s| downsize(s, d, target), dst, dst_len, src, src_len)
    })
}

fn downsize(src: &[u8], dst: &mut [u8], (config, p): (EllConfig, u8)) -> sketches_core::Result<()> {
    let from = ell::wrap(src)?;
    if config.t() != from.config().t() || config.d() > from.config().d() || p > from.precision() {
        return Err(Error::Incompatible);
    }
    ell::init(dst, config, p, from.seed())?.merge(&from)
}

/// Writes the statistics of the sketch to `*out`. O(2^p) (the registers are
/// counted; the estimate is O(1) while the martingale is valid).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_get_stats(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_ell_stats,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let s = ell::wrap(b)?.stats();
            Ok(sketch_ell_stats {
                params: params_of(s.config, s.precision),
                seed: s.seed,
                registers_set: s.registers_set,
                estimate: s.estimate,
                standard_error: s.standard_error,
                image_bytes: s.image_bytes,
                martingale: u32::from(s.martingale),
                reserved: 0,
            })
        })
    })
}

/// Writes in `*bytes` how many bytes `sketch_ell_export` writes for this
/// image (its length), to size the destination first.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_exported_size(
    buf: *const c_void,
    len: usize,
    bytes: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, bytes, ell::exported_len) })
}

/// Exports the image in `buf` with its checksum into `out` (no alignment
/// needed, at least the image length); `*written` receives the byte count.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `out_len` writable bytes; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_export(
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { export_with(ell::export, buf, len, out, out_len, written) })
}

/// Writes in `*size` how many bytes the live image takes that
/// `sketch_ell_import` writes for the exported ExaLogLog sketch in `src`: the `dst_len`
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
pub unsafe extern "C" fn sketch_ell_import_size(
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { crate::image::import_size_with(ell::import_len, src, src_len, size) })
}

/// Imports untrusted bytes (`src`, exactly one exported image, no alignment
/// needed): verifies headers, length, checksum, every register (a value no
/// stream can produce is `SKETCH_CORRUPT_BODY`), zero padding and the
/// martingale fields against the registers, then writes the live image
/// into `dst` (8-byte aligned, at least the image length). `dst` is
/// written only on success. O(2^p).
///
/// Errors: `SKETCH_CHECKSUM_MISMATCH`, `SKETCH_LENGTH_MISMATCH`, `SKETCH_CORRUPT_HEADER`,
/// `SKETCH_CORRUPT_BODY`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_MISALIGNED`, `SKETCH_OVERLAP`, ...
///
/// # Safety
/// `src`: `src_len` readable bytes; `dst`: `dst_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_import(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { import_with(ell::import, src, src_len, dst, dst_len) })
}

/// Verifies untrusted bytes in place (the checks of `sketch_ell_import`).
///
/// # Safety
/// `bytes`: `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_ell_verify(bytes: *const c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { Ok(ell::verify(boundary::bytes(bytes, len)?)?) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_the_core() {
        assert_eq!(SKETCH_FAMILY_EXALOGLOG, sketches_core::FamilyId::ExaLogLog as u16);
        assert_eq!(SKETCH_ELL_MIN_PRECISION, u32::from(ell::MIN_PRECISION));
        assert_eq!(SKETCH_ELL_MAX_PRECISION, u32::from(ell::MAX_PRECISION));
    }

    #[test]
    fn plan_picks_the_smallest_precision() {
        let (config, p) = plan(0.01, 20).unwrap();
        assert_eq!(config, EllConfig::T2D20);
        assert!(ell::ml_standard_error(config, p) <= 0.01);
        assert!(ell::ml_standard_error(config, p - 1) > 0.01);
        assert_eq!(plan(0.01, 21), Err(Error::InvalidParameter));
        assert_eq!(plan(f64::NAN, 24), Err(Error::InvalidParameter));
        assert_eq!(plan(1e-6, 24), Err(Error::InvalidParameter));
        assert_eq!(plan(0.9, 24), Ok((EllConfig::T2D24, 2)));
    }

    /// The limits the docs of `sketch_ell_plan` give (they said about
    /// 7.5e-5 for both configurations, which neither reaches: 7.6e-5 was
    /// refused): the smallest error each plans, at precision 24.
    #[test]
    fn plan_limits_are_the_documented_ones() {
        assert_eq!(plan(8.4e-5, 24), Ok((EllConfig::T2D24, ell::MAX_PRECISION)));
        assert_eq!(plan(8.3e-5, 24), Err(Error::InvalidParameter));
        assert_eq!(plan(8.9e-5, 20), Ok((EllConfig::T2D20, ell::MAX_PRECISION)));
        assert_eq!(plan(8.8e-5, 20), Err(Error::InvalidParameter));
        assert_eq!(plan(7.6e-5, 24), Err(Error::InvalidParameter));
        // The four-digit constants and limits the docs give: at 0.362/64
        // (the three-digit constant the docs gave before) d = 20 needs
        // precision 13, not 12.
        assert_eq!(plan(8.394e-5, 24), Ok((EllConfig::T2D24, ell::MAX_PRECISION)));
        assert_eq!(plan(8.392e-5, 24), Err(Error::InvalidParameter));
        assert_eq!(plan(8.843e-5, 20), Ok((EllConfig::T2D20, ell::MAX_PRECISION)));
        assert_eq!(plan(8.842e-5, 20), Err(Error::InvalidParameter));
        assert_eq!(plan(0.3622 / 64.0, 20), Ok((EllConfig::T2D20, 12)));
        assert_eq!(plan(0.362 / 64.0, 20), Ok((EllConfig::T2D20, 13)));
        assert_eq!(plan(0.3438 / 64.0, 24), Ok((EllConfig::T2D24, 12)));
    }
}
