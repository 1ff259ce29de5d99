//! C ABI of the static binary fuse filter (`sketches_core::fuse`).
//!
//! A binary fuse filter is built once from a set of keys and then only
//! queried: there is **no add** (a different set needs a new build, for
//! example into a second buffer that then replaces the first). In exchange
//! it needs about 9.0 bits per key at a false-positive rate of 2^-8 (8-bit
//! fingerprints) or 18.1 bits per key at 2^-16 (16-bit), against about 11.5
//! and 23.1 bits for a Bloom filter at the same rates, and a query reads three
//! array entries. Never a false negative for a key of the set.
//!
//! Sizing first: `sketch_fuse_size` gives the exact image bytes and
//! `sketch_fuse_scratch_size` the temporary bytes a build needs (about 32
//! per planned key, any alignment); the caller owns both buffers and may
//! free or reuse the scratch as soon as the build returns. The build takes
//! the keys in the four shapes of the C ABI (`_batch`, `_packed`,
//! `_u64_batch`, `_hash_batch`); duplicates are allowed and stored once.
//!
//! Thread-safety: the build needs exclusive access to its image and scratch
//! buffers; every other call only reads (`const void *buf`) and may run
//! concurrently on one image, for example an `mmap`ed file shared by many
//! threads or processes.

use crate::boundary::{self, reserved_zero, run, sketch_slice, CParams, Fail, Keys, Span, Status};
use crate::filter;
use crate::image::{export_with, import_with};
use crate::status::{sketch_status, SKETCH_INVALID_PARAMETER, SKETCH_OVERLAP};
use core::ffi::c_void;
use sketches_core::fuse::{self, FuseParams};
use sketches_core::hash;

/// Family id of the binary fuse filter.
pub const SKETCH_FAMILY_BINARY_FUSE: u16 = 10;
/// Largest number of keys a binary fuse filter can be planned for (2^31).
/// (A literal: cbindgen copies expressions, and `1 << 31` overflows a C `int`.)
pub const SKETCH_FUSE_MAX_KEYS: u64 = 2_147_483_648;
/// Fuse seeds a build tries before it gives up with `SKETCH_BUILD_FAILED`.
pub const SKETCH_FUSE_MAX_BUILD_ATTEMPTS: u32 = 100;

/// Parameters of a binary fuse filter (`sketch_fuse_plan` fills them).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_fuse_params {
    /// Keys the filter is sized for, 0 ..= `SKETCH_FUSE_MAX_KEYS`: a build
    /// takes at most this many (duplicates included).
    pub keys: u64,
    /// Fingerprint width in bits: 8 (false-positive rate 2^-8, about 0.39%)
    /// or 16 (2^-16, about 0.0015%).
    pub fingerprint_bits: u32,
    /// Reserved, set to 0.
    pub reserved: u32,
}

impl From<FuseParams> for sketch_fuse_params {
    fn from(p: FuseParams) -> Self {
        sketch_fuse_params { keys: p.keys, fingerprint_bits: u32::from(p.fingerprint_bits), reserved: 0 }
    }
}

impl CParams for sketch_fuse_params {
    type Core = FuseParams;
    fn to_core(&self) -> Result<FuseParams, Fail> {
        reserved_zero(u64::from(self.reserved))?;
        let bits = u8::try_from(self.fingerprint_bits).map_err(|_| Fail(SKETCH_INVALID_PARAMETER))?;
        Ok(FuseParams::new(self.keys, bits)?)
    }
}

/// Statistics of a built binary fuse filter (`sketch_fuse_get_stats`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_fuse_stats {
    /// The parameters the image was built with (`keys` is the planned count).
    pub params: sketch_fuse_params,
    /// Hash seed (XXH3-64 of the keys).
    pub seed: u64,
    /// Distinct keys stored (duplicates counted once; at most `params.keys`).
    pub keys: u64,
    /// The fuse seed the successful build attempt used (0: the key hashes as they are).
    pub fuse_seed: u64,
    /// Fingerprint array bits per stored key (infinity for an empty filter).
    pub bits_per_key: f64,
    /// Image bytes per stored key, header and padding included (infinity when empty).
    pub image_bytes_per_key: f64,
    /// Image length in bytes.
    pub image_bytes: u64,
    /// The false-positive rate of an absent key, 2^-fingerprint_bits.
    pub fpr: f64,
    /// Build attempts used (1 when the first fuse seed worked).
    pub attempts: u32,
    /// Reserved, 0.
    pub reserved: u32,
}

/// Plans a filter for `keys` keys at false-positive rate `fpr`: 8-bit
/// fingerprints when `fpr >= 2^-8` (about 0.0039), else 16-bit.
///
/// Errors: `SKETCH_NULL_POINTER` (out), `SKETCH_INVALID_PARAMETER` when
/// `fpr` is not in (0, 1) (NaN included) or below 2^-16, or `keys` exceeds
/// `SKETCH_FUSE_MAX_KEYS`. Zero keys are allowed (an empty filter).
///
/// # Safety
/// `out` must be valid for writing one `sketch_fuse_params`.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_plan(
    keys: u64,
    fpr: f64,
    out: *mut sketch_fuse_params,
) -> sketch_status {
    run(|| {
        boundary::require(out)?;
        let p = FuseParams::for_fpr(keys, fpr)?;
        // SAFETY: caller contract.
        unsafe { boundary::write_out(out, p.into()) }
    })
}

/// Explicit key count and fingerprint width (8 or 16 bits).
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (another
/// width, or `keys` above `SKETCH_FUSE_MAX_KEYS`).
///
/// # Safety
/// `out` must be valid for writing one `sketch_fuse_params`.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_plan_bits(
    keys: u64,
    fingerprint_bits: u32,
    out: *mut sketch_fuse_params,
) -> sketch_status {
    run(|| {
        boundary::require(out)?;
        let raw = sketch_fuse_params { keys, fingerprint_bits, reserved: 0 };
        let p = raw.to_core()?;
        // SAFETY: caller contract.
        unsafe { boundary::write_out(out, p.into()) }
    })
}

/// Exact image size in bytes for `params` (header plus fingerprint array,
/// a multiple of `SKETCH_IMAGE_ALIGN`): about 1.13 x keys x bits / 8 at
/// a million keys, a little more for small sets.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER` (also a non-zero reserved field).
///
/// # Safety
/// `params` must point to a readable `sketch_fuse_params`; `bytes` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_size(
    params: *const sketch_fuse_params,
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

/// Bytes of scratch memory a build with `params` needs (about 32 per
/// planned key; any alignment). The scratch is only used during the build
/// call: free or reuse it afterwards.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_INVALID_PARAMETER`.
///
/// # Safety
/// `params` must point to a readable `sketch_fuse_params`; `bytes` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_scratch_size(
    params: *const sketch_fuse_params,
    bytes: *mut u64,
) -> sketch_status {
    run(|| {
        boundary::require(params)?;
        boundary::require(bytes)?;
        // SAFETY: non-NULL; caller contract.
        let p = unsafe { boundary::params(params)? };
        let n = p.scratch_len()?;
        // SAFETY: non-NULL; caller contract.
        unsafe { boundary::write_out(bytes, n) }
    })
}

/// The keys of a build, in the shapes of the C ABI.
#[derive(Copy, Clone)]
enum Source<'a> {
    /// `sketch_slice` arrays or packed keys, hashed with the seed.
    Keys(Keys<'a>),
    /// Integer keys, hashed as their 8 little-endian bytes.
    Ints(&'a [u64]),
    /// Precomputed hashes.
    Hashes(&'a [u64]),
}

impl Source<'_> {
    /// True when any memory of the keys overlaps any of `spans`.
    fn overlaps_any(&self, spans: &[Span]) -> bool {
        match self {
            Source::Keys(keys) => keys.overlaps_any(spans),
            Source::Ints(v) | Source::Hashes(v) => {
                spans.iter().any(|s| s.overlaps(Span::of(v.as_ptr(), v.len())))
            }
        }
    }
}

/// Shared body of the build functions: reads the parameters, refuses
/// overlapping image, scratch and key memory, then builds.
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
unsafe fn build(
    buf: *mut c_void,
    len: usize,
    params: *const sketch_fuse_params,
    seed: u64,
    source: Source<'_>,
    scratch: *mut c_void,
    scratch_len: usize,
) -> Status {
    // SAFETY: caller contract (NULL is refused).
    let p = unsafe { boundary::params(params)? };
    let written = [Span::of(buf.cast::<u8>(), len), Span::of(scratch.cast::<u8>(), scratch_len)];
    if source.overlaps_any(&written) || written[0].overlaps(written[1]) {
        return Err(Fail(SKETCH_OVERLAP));
    }
    // SAFETY: caller contract; the ranges do not overlap (checked).
    let (image, work) =
        unsafe { (boundary::bytes_mut(buf, len)?, boundary::bytes_mut(scratch, scratch_len)?) };
    match source {
        Source::Keys(keys) => {
            let hash_at = |i: usize| keys.with_key(i, |k| hash::hash_bytes(k, seed)).unwrap_or(0);
            fuse::build_hashed_by(image, &p, seed, keys.len(), work, hash_at)?;
        }
        Source::Ints(keys) => {
            fuse::build_u64s(image, &p, seed, keys, work)?;
        }
        Source::Hashes(hashes) => {
            fuse::build_hashes(image, &p, seed, hashes, work)?;
        }
    }
    Ok(())
}

/// Builds a filter of the `count` byte keys into `buf` (8-byte aligned, at
/// least `sketch_fuse_size(params)` bytes), hashing them with XXH3-64 and
/// `seed`, using `scratch` (at least `sketch_fuse_scratch_size(params)`
/// bytes, any alignment) as working memory. Duplicate keys are allowed and
/// stored once. `buf` is written only on success; the scratch contents
/// afterwards are unspecified. Takes O(count) time (tens of nanoseconds per
/// key); a failed attempt retries with another fuse seed.
///
/// Errors: `SKETCH_NULL_POINTER` (params, keys, a key with non-zero length,
/// buf or scratch), `SKETCH_INVALID_PARAMETER` (params, a non-zero reserved
/// field), `SKETCH_INVALID_ARGUMENT` (more keys than `params.keys`),
/// `SKETCH_BUFFER_TOO_SMALL` (buf or scratch), `SKETCH_MISALIGNED` (buf or
/// the keys array), `SKETCH_OVERLAP` (buf, scratch and the key memory must
/// not overlap), `SKETCH_BUILD_FAILED` (no fuse seed within
/// `SKETCH_FUSE_MAX_BUILD_ATTEMPTS` worked: practically only for hashes that
/// are not uniformly distributed).
///
/// # Safety
/// `buf`: `len` writable bytes; `params` readable; `keys`: `count` valid
/// `sketch_slice`s; `scratch`: `scratch_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_build_batch(
    buf: *mut c_void,
    len: usize,
    params: *const sketch_fuse_params,
    seed: u64,
    keys: *const sketch_slice,
    count: usize,
    scratch: *mut c_void,
    scratch_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        build(buf, len, params, seed, Source::Keys(Keys::slices(keys, count)?), scratch, scratch_len)
    })
}

/// Builds a filter of `count` keys packed in the Arrow Binary layout: key
/// `i` is bytes `offsets[i] .. offsets[i+1]` of `data` (`data_len` bytes;
/// `offsets` has `count + 1` entries). Decreasing offsets or offsets past
/// `data_len` give `SKETCH_INVALID_PARAMETER` before anything is written.
/// See `sketch_fuse_build_batch` for the rest.
///
/// # Safety
/// `buf`: `len` writable bytes; `params` readable; `data`: `data_len`
/// readable bytes; `offsets`: `count + 1` readable values; `scratch`:
/// `scratch_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_build_packed(
    buf: *mut c_void,
    len: usize,
    params: *const sketch_fuse_params,
    seed: u64,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    scratch: *mut c_void,
    scratch_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let keys = Keys::packed(data, data_len, offsets, count)?;
        build(buf, len, params, seed, Source::Keys(keys), scratch, scratch_len)
    })
}

/// Builds a filter of `count` integer keys, each hashed as its 8
/// little-endian bytes (query them with `sketch_fuse_contains_u64`). See
/// `sketch_fuse_build_batch`.
///
/// # Safety
/// `buf`: `len` writable bytes; `params` readable; `keys`: `count` readable
/// values; `scratch`: `scratch_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_build_u64_batch(
    buf: *mut c_void,
    len: usize,
    params: *const sketch_fuse_params,
    seed: u64,
    keys: *const u64,
    count: usize,
    scratch: *mut c_void,
    scratch_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        build(buf, len, params, seed, Source::Ints(boundary::array(keys, count)?), scratch, scratch_len)
    })
}

/// Builds a filter of `count` precomputed hashes: `sketch_hash(key, len,
/// seed)` (or `sketch_hash_u64`) of each key with the same `seed`, which
/// the image records so that `sketch_fuse_contains` hashes queries the same
/// way. The hashes must be uniformly distributed (XXH3 ones are); repeated
/// values are stored once. See `sketch_fuse_build_batch`.
///
/// # Safety
/// `buf`: `len` writable bytes; `params` readable; `hashes`: `count`
/// readable values; `scratch`: `scratch_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_build_hash_batch(
    buf: *mut c_void,
    len: usize,
    params: *const sketch_fuse_params,
    seed: u64,
    hashes: *const u64,
    count: usize,
    scratch: *mut c_void,
    scratch_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        build(buf, len, params, seed, Source::Hashes(boundary::array(hashes, count)?), scratch, scratch_len)
    })
}

/// Tests a byte key: `*out` is false when it is certainly not in the set the
/// filter was built from, true when it is (always) or for a false positive
/// (rate 2^-fingerprint_bits). `key` may be NULL when `key_len` is 0.
///
/// Errors: `SKETCH_NULL_POINTER`, and every error of wrapping the image
/// (`SKETCH_MISALIGNED`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_BAD_MAGIC`,
/// `SKETCH_WRONG_FAMILY`, `SKETCH_CORRUPT_HEADER`, ...).
///
/// # Safety
/// `buf`: `len` readable bytes; `key`: `key_len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_contains(
    buf: *const c_void,
    len: usize,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let key = filter::key(key, key_len)?;
        filter::query(buf, len, out, |b| Ok(fuse::wrap(b)?.contains(key)))
    })
}

/// Tests an integer key (hashed as its 8 little-endian bytes). See `sketch_fuse_contains`.
///
/// # Safety
/// As for `sketch_fuse_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_contains_u64(
    buf: *const c_void,
    len: usize,
    key: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(fuse::wrap(b)?.contains_u64(key))) })
}

/// Tests a precomputed hash (`sketch_hash` with the image's seed). See `sketch_fuse_contains`.
///
/// # Safety
/// As for `sketch_fuse_contains`.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_contains_hash(
    buf: *const c_void,
    len: usize,
    hash: u64,
    out: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, out, |b| Ok(fuse::wrap(b)?.contains_hash(hash))) })
}

/// Tests `count` byte keys; `results[i]` (required) answers key `i`. Keys
/// are hashed and looked up in groups of 16 whose memory accesses overlap.
///
/// # Safety
/// `keys`: `count` valid `sketch_slice`s; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_contains_batch(
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
/// `SKETCH_INVALID_PARAMETER` before anything is written. See `sketch_fuse_contains_batch` for the per-key outputs and errors.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_contains_packed(
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

/// Tests `count` integer keys, each hashed as its 8 little-endian bytes. See `sketch_fuse_contains_batch` for the per-key outputs and errors.
///
/// # Safety
/// `keys`: `count` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_contains_u64_batch(
    buf: *const c_void,
    len: usize,
    keys: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { contains_keys(buf, len, Keys::ints(keys, count)?, results) })
}

/// Shared body of `sketch_fuse_contains_batch`, `sketch_fuse_contains_packed` and `sketch_fuse_contains_u64_batch`.
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
            |b| fuse::wrap(b).map(|f| (f, f.key_hasher())),
            |f, h, o| f.contains_hashes(h, o),
        )
    }
}

/// Tests `count` precomputed hashes.
///
/// # Safety
/// `hashes`: `count` readable values; `results`: `count` writable bools.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_contains_hash_batch(
    buf: *const c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    results: *mut bool,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query_hashes(buf, len, hashes, count, results, |b, h, o| fuse::wrap(b)?.contains_hashes(h, o))
    })
}

/// All statistics, O(1).
///
/// # Safety
/// `buf`: `len` readable bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_get_stats(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_fuse_stats,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        filter::query(buf, len, out, |b| {
            let s = fuse::wrap(b)?.stats();
            Ok(sketch_fuse_stats {
                params: s.params.into(),
                seed: s.seed,
                keys: s.keys,
                fuse_seed: s.fuse_seed,
                bits_per_key: s.bits_per_key,
                image_bytes_per_key: s.image_bytes_per_key,
                image_bytes: s.image_bytes,
                fpr: s.fpr,
                attempts: s.attempts,
                reserved: 0,
            })
        })
    })
}

/// Writes in `*bytes` how many bytes `sketch_fuse_export` writes for this
/// image (its length), to size the destination first.
///
/// Errors: `SKETCH_NULL_POINTER`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `bytes` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_exported_size(
    buf: *const c_void,
    len: usize,
    bytes: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { filter::query(buf, len, bytes, fuse::exported_len) })
}

/// Exports the image in `buf` with its checksum into `out` (no alignment
/// needed, at least the image length); `*written` receives the byte count.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_OVERLAP`, image errors.
///
/// # Safety
/// `buf`: `len` readable bytes; `out`: `out_len` writable bytes; `written` writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_export(
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { export_with(fuse::export, buf, len, out, out_len, written) })
}

/// Writes in `*size` how many bytes the live image takes that
/// `sketch_fuse_import` writes for the exported binary fuse filter in `src`: the `dst_len`
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
pub unsafe extern "C" fn sketch_fuse_import_size(
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { crate::image::import_size_with(fuse::import_len, src, src_len, size) })
}

/// Imports untrusted bytes (`src`, exactly one exported image, no alignment
/// needed): verifies headers (the array shape must be the one planned for
/// the recorded key count), length, checksum and zero padding, then writes
/// the live image into `dst` (8-byte aligned, at least the image length).
/// `dst` is written only on success.
///
/// Errors: `SKETCH_CHECKSUM_MISMATCH`, `SKETCH_LENGTH_MISMATCH`, `SKETCH_CORRUPT_HEADER`,
/// `SKETCH_CORRUPT_BODY`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_MISALIGNED`, `SKETCH_OVERLAP`, ...
///
/// # Safety
/// `src`: `src_len` readable bytes; `dst`: `dst_len` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_import(
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { import_with(fuse::import, src, src_len, dst, dst_len) })
}

/// Verifies untrusted bytes in place (an `mmap`ed file): the checks of
/// `sketch_fuse_import`. A verified image can then be queried where it lies
/// (8-byte aligned).
///
/// # Safety
/// `bytes`: `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_fuse_verify(bytes: *const c_void, len: usize) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe { Ok(fuse::verify(boundary::bytes(bytes, len)?)?) })
}

#[cfg(test)]
mod tests {
    #[test]
    fn constants_match_the_core() {
        assert_eq!(super::SKETCH_FAMILY_BINARY_FUSE, sketches_core::FamilyId::BinaryFuse as u16);
        assert_eq!(super::SKETCH_FUSE_MAX_KEYS, sketches_core::fuse::MAX_KEYS);
        assert_eq!(super::SKETCH_FUSE_MAX_BUILD_ATTEMPTS, sketches_core::fuse::MAX_BUILD_ATTEMPTS);
    }
}
