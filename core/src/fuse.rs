//! Static binary fuse filter (Graf and Lemire, "Binary Fuse Filters: Fast
//! and Smaller Than Xor Filters", ACM JEA 2022), 3-wise, with 8- or 16-bit
//! fingerprints.
//!
//! Built once from a set of keys, then read-only: the image *is* the filter
//! (zero-copy over an `mmap`ed file like every family). There is no add:
//! a different set needs a new build. False-positive rate `2^-8` (8-bit,
//! about 9.0 bits per key at 1M keys) or `2^-16` (16-bit, about 18.1 bits
//! per key); never a false negative for a key of the set.
//!
//! **Sizing first.** [`FuseParams::image_len`] is the exact image size and
//! [`FuseParams::scratch_len`] the temporary memory a build needs (about 32
//! bytes per key); the caller provides both buffers, nothing is allocated.
//! The shape is the paper's (and its reference code's) for `n` planned keys:
//! segment length `L = 2^⌊ln n / ln 3.33 + 2.25⌋` (4 ..= 2^18), capacity
//! `round(n · max(1.125, 0.875 + 0.25 ln 10^6 / ln n))`, `c = ⌈capacity /
//! L⌉`, segment count `s = max(c - 2, 1)`, array length `(s + 2) L`
//! fingerprints.
//!
//! # Example
//!
//! Size the image and the build's scratch first; both are caller memory (here
//! a stack array for the image, a `Vec` for the scratch):
//!
//! ```
//! use sketches_core::fuse::{self, FuseParams};
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! let keys: Vec<u64> = (0..1_000u64).map(|i| i * 7_919).collect();
//! let params = FuseParams::for_fpr(keys.len() as u64, 0.01)?; // 8-bit fingerprints: 2^-8
//! assert!(params.image_len()? <= 4096);
//! let mut scratch = vec![0u8; params.scratch_len()? as usize]; // about 32 bytes per key, any alignment
//!
//! let mut buf = ImageBuf::<4096>::new();
//! let filter = fuse::build_u64s(&mut buf, &params, 0, &keys, &mut scratch)?;
//! assert!(keys.iter().all(|k| filter.contains_u64(*k))); // never a false negative
//! let false_positives = (0..100_000u64).map(|i| i * 7_919 + 1).filter(|k| filter.contains_u64(*k)).count();
//! assert!(false_positives < 600, "{false_positives}"); // 2^-8 of 100,000 is 391
//!
//! // Static: no adds. Ship it as any image (not mergeable).
//! let mut wire = [0u8; 4096];
//! let n = fuse::export(&buf, &mut wire)?;
//! let mut copy = ImageBuf::<4096>::new();
//! fuse::import(&wire[..n], &mut copy)?;
//! assert!(fuse::wrap(&copy)?.contains_u64(7_919));
//! # Ok(())
//! # }
//! ```
//!
//! **Hashing.** A key's hash is XXH3-64 with the image seed (integers as
//! their 8 little-endian bytes), `h`. The build tries to peel the 3-uniform
//! hypergraph with fuse seed 0 first, where `x = h`; a failed attempt
//! retries with a new fuse seed `s != 0` and `x = fmix64(h + s)` (wrapping),
//! at most [`MAX_BUILD_ATTEMPTS`] times; duplicate keys are removed (an
//! in-scratch radix sort) after a failed attempt, so duplicates never make
//! a build fail. From `x`: positions `h0 = (x · s L) >> 64`,
//! `h1 = (h0 + L) ^ ((x >> 18) & (L - 1))`, `h2 = (h0 + 2L) ^ (x & (L - 1))`,
//! fingerprint `x ^ (x >> 32)` truncated to 8 or 16 bits; a key is reported
//! present when its fingerprint equals the XOR of the three array entries.
//!
//! Image layout after the 48-byte common header (little-endian):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 48 | 1 | fingerprint bits: 8 or 16 |
//! | 49 | 1 | arity: 3 |
//! | 50 | 1 | `log2` of the segment length `L` (2 ..= 18) |
//! | 51 | 1 | build attempts used (1 ..= [`MAX_BUILD_ATTEMPTS`]) |
//! | 52 | 4 | segment count `s` (the shape planned for the planned keys) |
//! | 56 | 8 | planned keys `n` (the sizing input, ≤ [`MAX_KEYS`]) |
//! | 64 | 8 | stored keys: distinct keys in the filter (≤ `n`) |
//! | 72 | 8 | fuse seed (0: the key hashes as they are) |
//! | 80 | 48 | reserved, 0 |
//! | 128 | `(s + 2) L · bits / 8` | fingerprints (16-bit ones little-endian), then zero padding to a multiple of 64 bytes |
//!
//! Thread-safety: a [`Fuse`] view is read-only, `Copy` and `Sync`: any
//! number of threads may query one image at once.

use crate::error::{Error, Result};
use crate::hash::{self, HashKind, KeyHasher};
use crate::image::{self, get_u32, get_u64, put_u32, put_u64, CommonHeader, FamilyId, Fresh, ImageFamily};
use core::hint::select_unpredictable;

/// Hashes per group of a batch query (their 48 loads overlap).
const CONTAINS_GROUP: usize = 16;

/// Byte length of the binary fuse header (common + family header).
pub const HEADER_LEN: usize = 128;
/// Largest number of planned keys (the fingerprint array stays below 2^32 entries).
pub const MAX_KEYS: u64 = 1 << 31;
/// Builds try at most this many fuse seeds before giving up with
/// [`Error::BuildFailed`] (the reference code's bound; with distinct,
/// uniformly distributed hashes most builds need one attempt).
pub const MAX_BUILD_ATTEMPTS: u32 = 100;
/// Images are padded with zeros to a multiple of this many bytes.
pub const IMAGE_GRANULE: u64 = 64;

const OFF_BITS: usize = 48;
const OFF_ARITY: usize = 49;
const OFF_SEGMENT_LOG: usize = 50;
const OFF_ATTEMPTS: usize = 51;
const OFF_SEGMENT_COUNT: usize = 52;
const OFF_PLANNED: usize = 56;
const OFF_STORED: usize = 64;
const OFF_FUSE_SEED: usize = 72;
const OFF_RESERVED: usize = 80;
const MAX_SEGMENT_LOG: u32 = 18;

/// The shape of the fingerprint array for a number of planned keys.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Shape {
    /// `log2` of the segment length.
    segment_log: u32,
    /// Segment count `s` (the first position lies in `0 .. s L`).
    segments: u32,
}

impl Shape {
    fn for_keys(keys: u64) -> Shape {
        let n = keys as f64;
        let segment_log = if keys == 0 {
            2
        } else {
            (libm::floor(libm::log(n) / libm::log(3.33) + 2.25) as u32).clamp(2, MAX_SEGMENT_LOG)
        };
        let factor =
            if keys <= 1 { 0.0 } else { (0.875 + 0.25 * libm::log(1_000_000.0) / libm::log(n)).max(1.125) };
        let capacity = libm::round(n * factor) as u64;
        let chunks = capacity.div_ceil(1u64 << segment_log);
        Shape { segment_log, segments: chunks.saturating_sub(2).max(1) as u32 }
    }

    fn segment_len(self) -> u64 {
        1u64 << self.segment_log
    }

    /// Fingerprints in the array, `(s + 2) L`.
    fn array_len(self) -> u64 {
        (u64::from(self.segments) + 2) << self.segment_log
    }

    /// `2^b >= s`, `b >= 1`: the buckets of the build's first, cache-friendly pass.
    fn block_bits(self) -> u32 {
        let mut bits = 1;
        while (1u64 << bits) < u64::from(self.segments) {
            bits += 1;
        }
        bits
    }
}

/// Parameters of a binary fuse filter: planned keys and fingerprint width.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuseParams {
    /// Keys the filter is sized for (a build takes at most this many).
    pub keys: u64,
    /// Fingerprint bits: 8 (FPR 2^-8) or 16 (FPR 2^-16).
    pub fingerprint_bits: u8,
}

impl FuseParams {
    /// Parameters for `keys` keys and `fingerprint_bits`-bit fingerprints.
    ///
    /// Errors: [`Error::InvalidParameter`] when `keys > MAX_KEYS` or the
    /// width is not 8 or 16. Zero keys are accepted (every query answers
    /// from an all-zero array: the nominal FPR).
    pub fn new(keys: u64, fingerprint_bits: u8) -> Result<Self> {
        let params = FuseParams { keys, fingerprint_bits };
        params.validate()?;
        Ok(params)
    }

    /// Picks the width for a target false-positive rate: 8 bits when
    /// `fpr >= 2^-8`, else 16 bits. Errors: [`Error::InvalidParameter`] when
    /// `fpr` is not in (0, 1), is below 2^-16, or `keys > MAX_KEYS`.
    pub fn for_fpr(keys: u64, fpr: f64) -> Result<Self> {
        if !(fpr > 0.0 && fpr < 1.0) || fpr < 1.0 / 65_536.0 {
            return Err(Error::InvalidParameter);
        }
        Self::new(keys, if fpr >= 1.0 / 256.0 { 8 } else { 16 })
    }

    /// Checks every field. Errors: [`Error::InvalidParameter`].
    pub fn validate(&self) -> Result<()> {
        if self.keys > MAX_KEYS || !(self.fingerprint_bits == 8 || self.fingerprint_bits == 16) {
            return Err(Error::InvalidParameter);
        }
        Ok(())
    }

    fn shape(&self) -> Shape {
        Shape::for_keys(self.keys)
    }

    /// Exact image size in bytes: header plus fingerprints, rounded up to a
    /// multiple of 64. Errors: [`Error::InvalidParameter`].
    pub fn image_len(&self) -> Result<u64> {
        self.validate()?;
        Ok(image_len_for(self.shape(), self.fingerprint_bits))
    }

    /// Bytes of caller scratch a build of up to `keys` keys needs (about
    /// 32 per key): the key hashes, the peeling order and the per-position
    /// counters, XORs and queue. Errors: [`Error::InvalidParameter`].
    pub fn scratch_len(&self) -> Result<u64> {
        self.validate()?;
        Ok(Scratch::len(self.keys, self.shape()))
    }

    /// The theoretical false-positive rate, `2^-bits`.
    pub fn fpr(&self) -> f64 {
        libm::ldexp(1.0, -i32::from(self.fingerprint_bits))
    }
}

fn image_len_for(shape: Shape, bits: u8) -> u64 {
    let body = shape.array_len() * u64::from(bits / 8);
    (HEADER_LEN as u64 + body).div_ceil(IMAGE_GRANULE) * IMAGE_GRANULE
}

/// Exact image size in bytes for `params` (see [`FuseParams::image_len`]).
pub fn image_len(params: &FuseParams) -> Result<u64> {
    params.image_len()
}

/// Scratch bytes a build with `params` needs (see [`FuseParams::scratch_len`]).
pub fn scratch_len(params: &FuseParams) -> Result<u64> {
    params.scratch_len()
}

/// Statistics of a built filter.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct FuseStats {
    /// The parameters the image was built with.
    pub params: FuseParams,
    /// Distinct keys stored.
    pub keys: u64,
    /// Fingerprint bits (8 or 16).
    pub fingerprint_bits: u8,
    /// Fingerprint array bits per stored key (infinite for an empty filter).
    pub bits_per_key: f64,
    /// Image bytes per stored key, header and padding included.
    pub image_bytes_per_key: f64,
    /// Image length in bytes.
    pub image_bytes: u64,
    /// The XXH3 seed of the keys (the image seed).
    pub seed: u64,
    /// The fuse seed the successful build attempt used (0: hashes as they are).
    pub fuse_seed: u64,
    /// Build attempts used.
    pub attempts: u32,
    /// Theoretical false-positive rate, `2^-bits`.
    pub fpr: f64,
}

/// Marker type tying the binary fuse layout to the image format.
pub struct FuseImage;

/// Validated binary fuse layout.
#[derive(Copy, Clone, Debug)]
pub struct FuseLayout {
    params: FuseParams,
    shape: Shape,
}

impl ImageFamily for FuseImage {
    const FAMILY: FamilyId = FamilyId::BinaryFuse;
    type Layout = FuseLayout;

    #[inline]
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<FuseLayout> {
        if common.hash != HashKind::Xxh3 {
            return Err(Error::UnsupportedHash);
        }
        if common.header_len != HEADER_LEN
            || common.flags != 0
            || !image::zeroed(image, OFF_RESERVED..HEADER_LEN)
        {
            return Err(Error::CorruptHeader);
        }
        let byte = |off: usize| image.get(off).copied().ok_or(Error::BufferTooSmall);
        let field = |v: Option<u64>| v.ok_or(Error::BufferTooSmall);
        let params =
            FuseParams { keys: field(get_u64(image, OFF_PLANNED))?, fingerprint_bits: byte(OFF_BITS)? };
        params.validate().map_err(|_| Error::CorruptHeader)?;
        let shape = Shape {
            segment_log: u32::from(byte(OFF_SEGMENT_LOG)?),
            segments: field(get_u32(image, OFF_SEGMENT_COUNT).map(u64::from))? as u32,
        };
        let attempts = u32::from(byte(OFF_ATTEMPTS)?);
        let stored = field(get_u64(image, OFF_STORED))?;
        // Structural checks only (every query wraps the image): a power-of-two
        // segment length, an array below 2^32 entries that the image holds.
        // That the shape is the one planned for the key count (two
        // logarithms, about as long as a query) is a body rule of `verify`.
        let ok = byte(OFF_ARITY)? == 3
            && (2..=MAX_SEGMENT_LOG).contains(&shape.segment_log)
            && shape.segments >= 1
            && shape.array_len() <= u64::from(u32::MAX)
            && (1..=MAX_BUILD_ATTEMPTS).contains(&attempts)
            && stored <= params.keys
            && image.len() as u64 == image_len_for(shape, params.fingerprint_bits);
        if !ok {
            return Err(Error::CorruptHeader);
        }
        Ok(FuseLayout { params, shape })
    }

    fn check_body(_common: &CommonHeader, layout: &FuseLayout, image: &[u8]) -> Result<()> {
        if layout.shape != layout.params.shape() {
            return Err(Error::CorruptHeader);
        }
        let used =
            HEADER_LEN as u64 + layout.shape.array_len() * u64::from(layout.params.fingerprint_bits / 8);
        let used = usize::try_from(used).map_err(|_| Error::CorruptBody)?;
        if image::zeroed(image, used..image.len()) {
            Ok(())
        } else {
            Err(Error::CorruptBody)
        }
    }
}

/// The 3 positions of a (mixed) hash `x`; all below `(s + 2) L`.
#[inline(always)]
fn positions(x: u64, segment_log: u32, first_range: u64) -> [usize; 3] {
    Geometry::new(segment_log, first_range).positions(x)
}

/// What a query needs of the shape, precomputed.
#[derive(Copy, Clone, Debug)]
struct Geometry {
    /// `s L`: the first position is `fastrange(x, s L)`.
    first_range: u64,
    /// `L`.
    len: u64,
    /// `L - 1`.
    mask: u64,
}

impl Geometry {
    #[inline(always)]
    const fn new(segment_log: u32, first_range: u64) -> Self {
        let len = 1u64 << segment_log;
        Geometry { first_range, len, mask: len - 1 }
    }

    #[inline(always)]
    fn positions(self, x: u64) -> [usize; 3] {
        let h0 = hash::reduce(x, self.first_range);
        let h1 = (h0 + self.len) ^ ((x >> 18) & self.mask);
        let h2 = (h0 + 2 * self.len) ^ (x & self.mask);
        [h0 as usize, h1 as usize, h2 as usize]
    }
}

#[inline(always)]
fn mix(h: u64, fuse_seed: u64) -> u64 {
    if fuse_seed == 0 {
        h
    } else {
        hash::remix(h.wrapping_add(fuse_seed))
    }
}

#[inline(always)]
fn fingerprint(x: u64) -> u64 {
    x ^ (x >> 32)
}

/// The fingerprint array of a view, by width.
#[derive(Copy, Clone)]
enum Fingerprints<'a> {
    B8(&'a [u8]),
    B16(&'a [[u8; 2]]),
}

/// A read-only view of a validated binary fuse image. Cheap to copy; `Sync`.
#[derive(Copy, Clone)]
pub struct Fuse<'a> {
    header: &'a [u8],
    fingerprints: Fingerprints<'a>,
    params: FuseParams,
    shape: Shape,
    geometry: Geometry,
    seed: u64,
    fuse_seed: u64,
}

crate::image::debug_view!(Fuse [params, shape, seed, fuse_seed]);

/// Validates the live image at the start of `buf` (8-byte aligned; it may
/// be longer than the image) and returns a read-only view. O(1), a few
/// nanoseconds: the header is checked for consistency with the image length
/// (every position a query computes lies in the array), not for being the
/// shape planned for its key count ([`verify`] checks that too).
///
/// Errors: [`Error::Misaligned`], [`Error::BufferTooSmall`],
/// [`Error::BadMagic`], [`Error::UnsupportedVersion`],
/// [`Error::WrongFamily`], [`Error::UnsupportedHash`],
/// [`Error::CorruptHeader`]. The body is not checksummed (zero-copy path):
/// damaged fingerprints or shape fields give wrong answers (false negatives
/// included), never a panic or an out-of-bounds read.
#[inline]
pub fn wrap(buf: &[u8]) -> Result<Fuse<'_>> {
    let parts = image::split::<FuseImage>(buf)?;
    let FuseLayout { params, shape } = parts.layout;
    let bytes = usize::try_from(shape.array_len() * u64::from(params.fingerprint_bits / 8))
        .map_err(|_| Error::BufferTooSmall)?;
    let array = parts.body.get(..bytes).ok_or(Error::BufferTooSmall)?;
    let fingerprints = if params.fingerprint_bits == 8 {
        Fingerprints::B8(array)
    } else {
        Fingerprints::B16(array.as_chunks::<2>().0)
    };
    let fuse_seed = get_u64(parts.header, OFF_FUSE_SEED).unwrap_or(0);
    let geometry = Geometry::new(shape.segment_log, u64::from(shape.segments) << shape.segment_log);
    Ok(Fuse {
        header: parts.header,
        fingerprints,
        params,
        shape,
        geometry,
        seed: parts.common.seed,
        fuse_seed,
    })
}

/// Copies the live image in `src` to `dst` with its checksum (the checked
/// serialized form). Returns the bytes written (the image length).
/// Errors: as [`wrap`], and [`Error::BufferTooSmall`] for a short `dst`.
pub fn export(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::export::<FuseImage>(src, dst)
}

/// The number of bytes [`export`] writes for the live image in `src` (its
/// length). Errors: as [`wrap`].
pub fn exported_len(src: &[u8]) -> Result<usize> {
    image::exported_len::<FuseImage>(src)
}

/// Bytes of the live image that importing the exported image `src` writes
/// (allocate this much, 64-byte aligned, before [`import`]). Checks the
/// headers and the length, not the checksum.
///
/// Errors: as [`crate::image::import_len`].
pub fn import_len(src: &[u8]) -> Result<usize> {
    image::import_len::<FuseImage>(src)
}

/// Verifies untrusted bytes (exact length, headers, checksum, zero padding)
/// and copies them into the 8-byte aligned `dst`, written only on success.
/// Returns the image length. Errors: as [`verify`], [`Error::Misaligned`],
/// [`Error::BufferTooSmall`].
pub fn import(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::import::<FuseImage>(src, dst)
}

/// Verifies untrusted bytes in place (an `mmap`ed file): exact length,
/// headers (the shape must be the one planned for the header's key count),
/// checksum, zero padding. Errors: the header errors of [`wrap`],
/// [`Error::LengthMismatch`], [`Error::ChecksumMismatch`],
/// [`Error::CorruptBody`].
pub fn verify(bytes: &[u8]) -> Result<()> {
    image::verify::<FuseImage>(bytes).map(|_| ())
}

impl<'a> Fuse<'a> {
    /// The parameters the filter was built with.
    pub fn params(&self) -> FuseParams {
        self.params
    }

    /// The XXH3 seed keys are hashed with.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash of `key` this filter uses (XXH3-64 with the image seed).
    #[inline]
    pub fn hash_key(&self, key: &[u8]) -> u64 {
        hash::hash_bytes(key, self.seed)
    }

    /// The hash function and seed of this image, as a copyable value.
    pub fn key_hasher(&self) -> KeyHasher {
        KeyHasher { kind: HashKind::Xxh3, seed: self.seed }
    }

    /// True when `key` may be in the set; false means it certainly is not.
    #[inline]
    pub fn contains(&self, key: &[u8]) -> bool {
        self.contains_hash(self.hash_key(key))
    }

    /// [`Fuse::contains`] for an integer key (hashed as 8 little-endian bytes).
    #[inline]
    pub fn contains_u64(&self, key: u64) -> bool {
        self.contains_hash(hash::hash_u64(key, self.seed))
    }

    /// [`Fuse::contains`] for a precomputed hash ([`Fuse::hash_key`]).
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        let x = mix(hash, self.fuse_seed);
        let [a, b, c] = self.geometry.positions(x);
        let f = fingerprint(x);
        // In the entries' width: the loads fold into the XORs.
        match self.fingerprints {
            Fingerprints::B8(array) => {
                let at = |i: usize| array.get(i).copied().unwrap_or(0);
                f as u8 ^ at(a) ^ at(b) ^ at(c) == 0
            }
            Fingerprints::B16(array) => {
                let at = |i: usize| u16::from_le_bytes(array.get(i).copied().unwrap_or([0; 2]));
                f as u16 ^ at(a) ^ at(b) ^ at(c) == 0
            }
        }
    }

    /// Batch query: `results[i] = contains_hash(hashes[i])`. Hashes are
    /// processed in groups of 16: all 48 positions are computed first, then
    /// loaded, so the memory accesses of a group overlap.
    ///
    /// Errors: [`Error::InvalidArgument`] when the slices differ in length
    /// (nothing is written then).
    pub fn contains_hashes(&self, hashes: &[u64], results: &mut [bool]) -> Result<()> {
        if hashes.len() != results.len() {
            return Err(Error::InvalidArgument);
        }
        // Whole groups as arrays, then the remainder (no `chunks` zip: its
        // length division keeps a panic path when not inlined).
        let (groups, hashes_rest) = hashes.as_chunks::<CONTAINS_GROUP>();
        let (result_groups, results_rest) = results.as_chunks_mut::<CONTAINS_GROUP>();
        for (hs, rs) in groups.iter().zip(result_groups) {
            self.contains_group(hs, rs);
        }
        self.contains_group(hashes_rest, results_rest);
        Ok(())
    }

    /// [`Fuse::contains_hashes`] of one group of at most [`CONTAINS_GROUP`]
    /// hashes: all positions first, then the loads.
    #[inline(always)]
    fn contains_group(&self, hs: &[u64], rs: &mut [bool]) {
        // Positions are below the array length, which stays below 2^32
        // (`MAX_KEYS`): 32 bits each keep the group small on the stack.
        let mut pos = [[0u32; 3]; CONTAINS_GROUP];
        let mut fps = [0u64; CONTAINS_GROUP];
        for ((h, p), f) in hs.iter().zip(pos.iter_mut()).zip(fps.iter_mut()) {
            let x = mix(*h, self.fuse_seed);
            *p = self.geometry.positions(x).map(|i| i as u32);
            *f = fingerprint(x);
        }
        match self.fingerprints {
            // By reference: moving the arrays into the iterators made
            // copies of them (over 1.5 KiB of stack in the C ABI's batch calls).
            Fingerprints::B8(array) => {
                let at = |i: u32| u64::from(array.get(i as usize).copied().unwrap_or(0));
                for ((r, [a, b, c]), f) in rs.iter_mut().zip(&pos).zip(&fps) {
                    *r = (f ^ at(*a) ^ at(*b) ^ at(*c)) as u8 == 0;
                }
            }
            Fingerprints::B16(array) => {
                let at =
                    |i: u32| u64::from(u16::from_le_bytes(array.get(i as usize).copied().unwrap_or([0; 2])));
                for ((r, [a, b, c]), f) in rs.iter_mut().zip(&pos).zip(&fps) {
                    *r = (f ^ at(*a) ^ at(*b) ^ at(*c)) as u16 == 0;
                }
            }
        }
    }

    /// Distinct keys stored.
    pub fn keys(&self) -> u64 {
        get_u64(self.header, OFF_STORED).unwrap_or(0)
    }

    /// The fuse seed of the successful build attempt (0: the key hashes as they are).
    pub fn fuse_seed(&self) -> u64 {
        self.fuse_seed
    }

    /// Build attempts used (1 when the first succeeded).
    pub fn attempts(&self) -> u32 {
        u32::from(self.header.get(OFF_ATTEMPTS).copied().unwrap_or(0))
    }

    /// Number of fingerprints in the array, `(s + 2) L`.
    pub fn array_len(&self) -> u64 {
        self.shape.array_len()
    }

    /// Segment length `L`.
    pub fn segment_len(&self) -> u64 {
        self.shape.segment_len()
    }

    /// All statistics. O(1).
    pub fn stats(&self) -> FuseStats {
        let keys = self.keys();
        let bits = self.params.fingerprint_bits;
        let image_bytes = image_len_for(self.shape, bits);
        let per_key = |total: f64| if keys == 0 { f64::INFINITY } else { total / keys as f64 };
        FuseStats {
            params: self.params,
            keys,
            fingerprint_bits: bits,
            bits_per_key: per_key(self.shape.array_len() as f64 * f64::from(bits)),
            image_bytes_per_key: per_key(image_bytes as f64),
            image_bytes,
            seed: self.seed,
            fuse_seed: self.fuse_seed,
            attempts: self.attempts(),
            fpr: self.params.fpr(),
        }
    }
}

// ---- construction -----------------------------------------------------------

/// The build's working arrays, carved out of the caller's scratch bytes.
/// Words are native-endian (the scratch never leaves the call).
struct Scratch<'s> {
    /// Mixed hashes bucketed by their first position; then the peeling order.
    order: &'s mut [[u8; 8]],
    /// Per position: XOR of the mixed hashes that hit it.
    xors: &'s mut [[u8; 8]],
    /// Queue of positions hit by a single key.
    queue: &'s mut [[u8; 4]],
    /// Bucket starts of the first pass; radix-sort counts.
    starts: &'s mut [[u8; 4]],
    /// Per position: 4 x keys hitting it, plus the XOR of which of their
    /// three positions it is (0, 1, 2) in the low two bits.
    counts: &'s mut [u8],
    /// Per peeled key: which of its positions was free (0, 1, 2).
    slots: &'s mut [u8],
}

/// Radix-sort digit buckets (8-bit digits).
const RADIX: usize = 256;

impl<'s> Scratch<'s> {
    fn starts_len(shape: Shape) -> u64 {
        (1u64 << shape.block_bits()).max(RADIX as u64)
    }

    fn len(keys: u64, shape: Shape) -> u64 {
        let array = shape.array_len();
        8 * keys + 8 * (keys + 1) + 8 * array + 4 * array + 4 * Self::starts_len(shape) + array + keys
    }

    /// Splits the scratch into the key-hash array (`keys` words: the
    /// hashes, deduplicated after a failed attempt) and the working arrays.
    fn carve(bytes: &'s mut [u8], keys: usize, shape: Shape) -> Result<(&'s mut [[u8; 8]], Self)> {
        let array = usize::try_from(shape.array_len()).map_err(|_| Error::BufferTooSmall)?;
        let starts = usize::try_from(Self::starts_len(shape)).map_err(|_| Error::BufferTooSmall)?;
        fn take(bytes: &mut [u8], items: Option<usize>, size: usize) -> Result<(&mut [u8], &mut [u8])> {
            let len = items.and_then(|n| n.checked_mul(size)).ok_or(Error::BufferTooSmall)?;
            bytes.split_at_mut_checked(len).ok_or(Error::BufferTooSmall)
        }
        let (k, rest) = take(bytes, Some(keys), 8)?;
        let (o, rest) = take(rest, keys.checked_add(1), 8)?;
        let (x, rest) = take(rest, Some(array), 8)?;
        let (q, rest) = take(rest, Some(array), 4)?;
        let (s, rest) = take(rest, Some(starts), 4)?;
        let (c, rest) = take(rest, Some(array), 1)?;
        let (slots, _) = take(rest, Some(keys), 1)?;
        let work = Scratch {
            order: o.as_chunks_mut::<8>().0,
            xors: x.as_chunks_mut::<8>().0,
            queue: q.as_chunks_mut::<4>().0,
            starts: s.as_chunks_mut::<4>().0,
            counts: c,
            slots,
        };
        Ok((k.as_chunks_mut::<8>().0, work))
    }
}

#[inline(always)]
fn ld64(words: &[[u8; 8]], i: usize) -> u64 {
    words.get(i).map_or(0, |w| u64::from_ne_bytes(*w))
}

#[inline(always)]
fn st64(words: &mut [[u8; 8]], i: usize, v: u64) {
    if let Some(w) = words.get_mut(i) {
        *w = v.to_ne_bytes();
    }
}

#[inline(always)]
fn xor64(words: &mut [[u8; 8]], i: usize, v: u64) {
    if let Some(w) = words.get_mut(i) {
        *w = (u64::from_ne_bytes(*w) ^ v).to_ne_bytes();
    }
}

#[inline(always)]
fn ld32(words: &[[u8; 4]], i: usize) -> u32 {
    words.get(i).map_or(0, |w| u32::from_ne_bytes(*w))
}

#[inline(always)]
fn st32(words: &mut [[u8; 4]], i: usize, v: u32) {
    if let Some(w) = words.get_mut(i) {
        *w = v.to_ne_bytes();
    }
}

#[inline(always)]
fn ld8(bytes: &[u8], i: usize) -> u8 {
    bytes.get(i).copied().unwrap_or(0)
}

/// Adds (`add` true) or removes key `x` at position `at`, which is its
/// position number `which` (0, 1, 2), in the per-position counts and XORs.
#[inline(always)]
fn touch(counts: &mut [u8], xors: &mut [[u8; 8]], at: usize, x: u64, which: u8, add: bool) {
    if let Some(c) = counts.get_mut(at) {
        let moved = if add { c.wrapping_add(4) } else { c.wrapping_sub(4) };
        *c = moved ^ which;
    }
    xor64(xors, at, x);
}

/// The fuse seed of attempt `attempt` (0-based): 0 first, then SplitMix64 outputs (never 0).
fn fuse_seed_for(attempt: u32) -> u64 {
    if attempt == 0 {
        return 0;
    }
    let mut z = 0x726b_2b9d_438b_9d4du64.wrapping_add(u64::from(attempt).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (z ^ (z >> 31)).max(1)
}

/// What one peeling attempt gave.
enum Attempt {
    /// Every key peeled: `order[..peeled]` / `slots[..peeled]` hold them.
    Peeled(usize),
    /// Failed; the count of duplicates detected on the way.
    Failed(usize),
}

/// The first half of an attempt with fuse seed `fuse_seed`: resets the
/// working arrays and buckets the `n` key hashes that `key_at(i)` returns
/// (`i < n`, each called once, in order) into `order`. False when a bucket
/// overflowed (the attempt failed). Never inlined, like [`peel`]: the
/// builders' frames stay small (the stack bound test).
#[inline(never)]
fn bucket(
    s: &mut Scratch<'_>,
    n: usize,
    shape: Shape,
    fuse_seed: u64,
    mut key_at: impl FnMut(usize) -> u64,
) -> bool {
    // Reset the arrays this attempt uses.
    s.order.iter_mut().for_each(|w| *w = [0; 8]);
    st64(s.order, n, 1); // sentinel: never an empty slot
    s.xors.iter_mut().for_each(|w| *w = [0; 8]);
    s.counts.fill(0);
    // Pass 1: bucket the mixed hashes by their top bits (which order their
    // first positions), so that pass 2 walks the arrays nearly in order.
    let bits = shape.block_bits();
    let buckets = 1usize << bits;
    for i in 0..buckets {
        st32(s.starts, i, ((i as u64 * n as u64) >> bits) as u32);
    }
    for i in 0..n {
        let x = mix(key_at(i), fuse_seed);
        let mut bucket = (x >> (64 - bits)) as usize;
        let mut placed = false;
        for _ in 0..buckets {
            let at = ld32(s.starts, bucket) as usize;
            if s.order.get(at).is_some_and(|w| u64::from_ne_bytes(*w) == 0) {
                st64(s.order, at, x);
                st32(s.starts, bucket, at as u32 + 1);
                placed = true;
                break;
            }
            bucket = (bucket + 1) & (buckets - 1);
        }
        if !placed {
            return false;
        }
    }
    true
}

/// The second half of an attempt over the `n` hashes [`bucket`] left in
/// `order`: counts and peels. Never inlined: one copy for every key source,
/// and its frame stays out of the builders' (the stack bound test).
#[inline(never)]
fn peel(s: &mut Scratch<'_>, n: usize, shape: Shape) -> Attempt {
    let log = shape.segment_log;
    let range = u64::from(shape.segments) << log;
    let array = s.counts.len().min(s.xors.len());
    let Scratch { order, xors, queue, counts, slots, .. } = s;
    let (Some(counts), Some(xors), Some(last)) =
        (counts.get_mut(..array), xors.get_mut(..array), array.checked_sub(1))
    else {
        return if n == 0 { Attempt::Peeled(0) } else { Attempt::Failed(0) };
    };
    // Every position is below the array length by construction; clamping
    // to `last` (a conditional move each) shows the compiler that too, and
    // it drops the bounds checks of the dozen accesses per key below.
    let at = |x: u64| positions(x, log, range).map(|p| p.min(last));
    // Pass 2: count and XOR every key into its three positions.
    let mut duplicates = 0usize;
    let mut error = false;
    for x in order.iter().take(n).map(|w| u64::from_ne_bytes(*w)) {
        let [a, b, c] = at(x);
        touch(counts, xors, a, x, 0, true);
        touch(counts, xors, b, x, 1, true);
        touch(counts, xors, c, x, 2, true);
        let (xa, xb, xc) = (ld64(xors, a), ld64(xors, b), ld64(xors, c));
        let (ca, cb, cc) = (ld8(counts, a), ld8(counts, b), ld8(counts, c));
        if xa & xb & xc == 0 && ((xa == 0 && ca == 8) || (xb == 0 && cb == 8) || (xc == 0 && cc == 8)) {
            // The same hash twice at an otherwise unshared position: drop the copy.
            duplicates += 1;
            touch(counts, xors, a, x, 0, false);
            touch(counts, xors, b, x, 1, false);
            touch(counts, xors, c, x, 2, false);
        }
        error |= ld8(counts, a) < 4 || ld8(counts, b) < 4 || ld8(counts, c) < 4;
    }
    if error {
        return Attempt::Failed(duplicates);
    }
    // Pass 3: peel. Queue every position hit by exactly one key, in
    // ascending order (the order fixes the image's bytes).
    let mut queued = queue_singles(counts, queue);
    let mut peeled = 0usize;
    // Each position enters the queue at most twice: the loop is bounded.
    let mut budget = 3 * array + 3;
    while queued > 0 && budget > 0 {
        budget -= 1;
        queued -= 1;
        let position = (ld32(queue, queued) as usize).min(last);
        let count = ld8(counts, position);
        if count >> 2 != 1 {
            continue;
        }
        let x = ld64(xors, position);
        let found = count & 3;
        if let Some(slot) = slots.get_mut(peeled) {
            *slot = found;
        }
        st64(order, peeled, x);
        peeled += 1;
        // The key leaves its other two positions, (found + 1) mod 3 and
        // then (found + 2) mod 3. `found` is a coin toss per key: the
        // positions are picked by conditional moves, not by branches (or
        // by an indexed array, which went through the stack).
        let [a, b, c] = positions(x, log, range);
        let first = select_unpredictable(found == 0, b, select_unpredictable(found == 1, c, a));
        let second = select_unpredictable(found == 0, c, select_unpredictable(found == 1, a, b));
        // `found + 1` and `found + 2` mod 3, from two-bit fields.
        let shift = 2 * u32::from(found & 3);
        let whiches = [(0b01_00_10_01u8 >> shift) & 3, (0b10_01_00_10u8 >> shift) & 3];
        for (other, which) in [first, second].into_iter().zip(whiches) {
            let other = other.min(last);
            st32(queue, queued, other as u32);
            queued += usize::from(ld8(counts, other) >> 2 == 2);
            touch(counts, xors, other, x, which, false);
        }
    }
    if peeled + duplicates == n {
        Attempt::Peeled(peeled)
    } else {
        Attempt::Failed(duplicates)
    }
}

/// Writes into `queue`, in ascending order, every position whose count
/// says exactly one key hits it, and returns how many there are. Eight
/// counts at a time: about one in six positions qualifies, so a word of
/// eight rarely needs more than a store or two.
fn queue_singles(counts: &[u8], queue: &mut [[u8; 4]]) -> usize {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut queued = 0usize;
    let (words, tail) = counts.as_chunks::<8>();
    for (w, word) in words.iter().enumerate() {
        // Zero bytes where the count (the top six bits) is 1.
        let v = (u64::from_le_bytes(*word) & 0xfcfc_fcfc_fcfc_fcfc) ^ 0x0404_0404_0404_0404;
        // The high bit of each zero byte (exact: no carry crosses bytes).
        let mut zeros = !(((v & LOW7) + LOW7) | v | LOW7);
        while zeros != 0 {
            let i = w * 8 + (zeros.trailing_zeros() / 8) as usize;
            st32(queue, queued, i as u32);
            queued += 1;
            zeros &= zeros - 1;
        }
    }
    let base = words.len() * 8;
    for (i, count) in tail.iter().enumerate() {
        st32(queue, queued, (base + i) as u32);
        queued += usize::from(count >> 2 == 1);
    }
    queued
}

/// Sorts `keys[..n]` (LSD radix, 8 passes of 8 bits, through `temp`) and
/// removes repeated values; returns the distinct count.
fn sort_dedup(keys: &mut [[u8; 8]], temp: &mut [[u8; 8]], counts: &mut [[u8; 4]], n: usize) -> usize {
    let (Some(src), Some(dst)) = (keys.get_mut(..n), temp.get_mut(..n)) else {
        return n;
    };
    let (mut from, mut to) = (src, dst);
    for pass in 0..8u32 {
        let shift = 8 * pass;
        counts.iter_mut().take(RADIX).for_each(|c| *c = [0; 4]);
        for w in from.iter() {
            let digit = ((u64::from_ne_bytes(*w) >> shift) & 0xff) as usize;
            st32(counts, digit, ld32(counts, digit).wrapping_add(1));
        }
        let mut total = 0u32;
        for d in 0..RADIX {
            let c = ld32(counts, d);
            st32(counts, d, total);
            total = total.wrapping_add(c);
        }
        for w in from.iter() {
            let digit = ((u64::from_ne_bytes(*w) >> shift) & 0xff) as usize;
            let at = ld32(counts, digit);
            st32(counts, digit, at.wrapping_add(1));
            if let Some(slot) = to.get_mut(at as usize) {
                *slot = *w;
            }
        }
        core::mem::swap(&mut from, &mut to);
    }
    // Eight passes: the sorted keys are back in `keys`.
    let mut distinct = 0usize;
    for i in 0..n {
        let v = ld64(from, i);
        if distinct == 0 || ld64(from, distinct - 1) != v {
            st64(from, distinct, v);
            distinct += 1;
        }
    }
    distinct
}

/// Builds a filter of `params` into `buf` from the `count` key hashes that
/// `hash_at(i)` returns. A `replayable` source (computed from caller memory,
/// the same value on every call) may be called twice per key: it feeds the
/// first attempt directly, so the usual build never writes or reads the
/// scratch's key array (8 bytes per key less to stream through the caches),
/// and it fills that array only when an attempt fails. Otherwise `hash_at`
/// is called exactly once per key, in order, into the key array.
#[inline(always)]
fn build_with<'a>(
    buf: &'a mut [u8],
    params: &FuseParams,
    seed: u64,
    count: usize,
    scratch: &mut [u8],
    hash_at: impl FnMut(usize) -> u64,
    replayable: bool,
) -> Result<Fuse<'a>> {
    build_into(buf, params, seed, count, scratch, hash_at, replayable)?;
    open_built(buf)
}

/// [`wrap`] over a freshly built image, kept out of line: neither the
/// builder's frame nor the view's validation then sits on the public
/// build functions' frames (the stack bound test: stacked, they left no
/// margin under its 1 KiB).
#[inline(never)]
fn open_built(buf: &[u8]) -> Result<Fuse<'_>> {
    wrap(buf)
}

/// The build of [`build_with`], which then opens the view over the image.
/// Never inlined, for the same reason as [`open_built`].
#[inline(never)]
fn build_into(
    buf: &mut [u8],
    params: &FuseParams,
    seed: u64,
    count: usize,
    scratch: &mut [u8],
    mut hash_at: impl FnMut(usize) -> u64,
    replayable: bool,
) -> Result<()> {
    let image_len = params.image_len()?;
    if count as u64 > params.keys {
        return Err(Error::InvalidArgument);
    }
    let len = image::to_usize(image_len)?;
    if buf.len() < len {
        return Err(Error::BufferTooSmall);
    }
    if !image::is_aligned(buf) {
        return Err(Error::Misaligned);
    }
    let shape = params.shape();
    let (keys, mut s) = Scratch::carve(scratch, count, shape)?;
    fn fill(keys: &mut [[u8; 8]], hash_at: &mut impl FnMut(usize) -> u64) {
        for (i, k) in keys.iter_mut().enumerate() {
            *k = hash_at(i).to_ne_bytes();
        }
    }
    let mut filled = !replayable;
    if filled {
        fill(keys, &mut hash_at);
    }
    let mut n = count;
    let mut deduplicated = false;
    let mut outcome = None;
    for attempt_no in 0..MAX_BUILD_ATTEMPTS {
        let fuse_seed = fuse_seed_for(attempt_no);
        let bucketed = if filled {
            bucket(&mut s, n, shape, fuse_seed, |i| ld64(keys, i))
        } else {
            bucket(&mut s, n, shape, fuse_seed, &mut hash_at)
        };
        match if bucketed { peel(&mut s, n, shape) } else { Attempt::Failed(0) } {
            Attempt::Peeled(peeled) => {
                outcome = Some((peeled, fuse_seed, attempt_no + 1));
                break;
            }
            Attempt::Failed(duplicates) => {
                if !filled {
                    fill(keys, &mut hash_at);
                    filled = true;
                }
                // Duplicates seen, or a failure that repeated keys may have
                // caused: sort them out once, in the scratch.
                if !deduplicated && (duplicates > 0 || attempt_no >= 1) {
                    n = sort_dedup(keys, s.order, s.starts, n);
                    deduplicated = true;
                }
            }
        }
    }
    let (peeled, fuse_seed, attempts) = outcome.ok_or(Error::BuildFailed)?;
    write_image(buf, params, seed, &s, Built { peeled, fuse_seed, attempts })
}

/// What a successful build found.
struct Built {
    /// Keys peeled (the distinct keys).
    peeled: usize,
    /// The fuse seed that peeled them.
    fuse_seed: u64,
    /// Attempts used (1-based).
    attempts: u32,
}

/// Writes the image of a successful build (its peeling order is in `s`).
/// Not generic and never inlined: one copy for every key source, and the
/// view over the result is opened by the caller, so neither frame stacks
/// on the other (the stack bound test).
#[inline(never)]
fn write_image(buf: &mut [u8], params: &FuseParams, seed: u64, s: &Scratch<'_>, built: Built) -> Result<()> {
    let Built { peeled, fuse_seed, attempts } = built;
    let image_len = params.image_len()?;
    let shape = params.shape();
    let fresh = Fresh {
        family: FamilyId::BinaryFuse,
        hash: HashKind::Xxh3,
        header_len: HEADER_LEN,
        flags: 0,
        seed,
        image_len,
    };
    let image = image::start_image(buf, fresh)?;
    for (off, v) in [
        (OFF_BITS, params.fingerprint_bits),
        (OFF_ARITY, 3),
        (OFF_SEGMENT_LOG, shape.segment_log as u8),
        (OFF_ATTEMPTS, attempts as u8),
    ] {
        if let Some(b) = image.get_mut(off) {
            *b = v;
        }
    }
    put_u32(image, OFF_SEGMENT_COUNT, shape.segments);
    put_u64(image, OFF_PLANNED, params.keys);
    put_u64(image, OFF_STORED, peeled as u64);
    put_u64(image, OFF_FUSE_SEED, fuse_seed);
    let log = shape.segment_log;
    let range = u64::from(shape.segments) << log;
    let array = usize::try_from(shape.array_len()).map_err(|_| Error::BufferTooSmall)?;
    let body = image.get_mut(HEADER_LEN..).ok_or(Error::BufferTooSmall)?;
    let order = s.order.get(..peeled).ok_or(Error::BufferTooSmall)?;
    let slots = s.slots.get(..peeled).ok_or(Error::BufferTooSmall)?;
    if params.fingerprint_bits == 8 {
        assign(body.get_mut(..array).ok_or(Error::BufferTooSmall)?, order, slots, log, range);
    } else {
        assign(
            body.as_chunks_mut::<2>().0.get_mut(..array).ok_or(Error::BufferTooSmall)?,
            order,
            slots,
            log,
            range,
        );
    }
    Ok(())
}

/// A fingerprint array entry: one byte, or two little-endian bytes.
trait Entry: Copy {
    /// Entry `i` (0 past the end).
    fn load(entries: &[Self], i: usize) -> u16;
    /// Writes the low bits of `v` into entry `i` (nothing past the end).
    fn store(entries: &mut [Self], i: usize, v: u16);
}

impl Entry for u8 {
    #[inline(always)]
    fn load(entries: &[u8], i: usize) -> u16 {
        u16::from(ld8(entries, i))
    }
    #[inline(always)]
    fn store(entries: &mut [u8], i: usize, v: u16) {
        if let Some(e) = entries.get_mut(i) {
            *e = v as u8;
        }
    }
}

impl Entry for [u8; 2] {
    #[inline(always)]
    fn load(entries: &[[u8; 2]], i: usize) -> u16 {
        entries.get(i).map_or(0, |e| u16::from_le_bytes(*e))
    }
    #[inline(always)]
    fn store(entries: &mut [[u8; 2]], i: usize, v: u16) {
        if let Some(e) = entries.get_mut(i) {
            *e = v.to_le_bytes();
        }
    }
}

/// Assigns the fingerprints of the peeled keys (`order`, with their free
/// positions in `slots`) in reverse peeling order: each key's free position
/// makes its three entries XOR to its fingerprint. Positions are below the
/// array length by construction (each access still checks it: clamping
/// them first, so that the compiler could drop the checks, cost more
/// instructions than the checks themselves).
fn assign<E: Entry>(entries: &mut [E], order: &[[u8; 8]], slots: &[u8], log: u32, range: u64) {
    for (w, found) in order.iter().zip(slots).rev() {
        let x = u64::from_ne_bytes(*w);
        let [a, b, c] = positions(x, log, range);
        let cycle = [a, b, c, a, b];
        // Picked with the slot clamped to 2: no bounds check on `cycle`.
        let found = usize::from(*found).min(2);
        let pick = |k: usize| cycle.get(found + k).copied().unwrap_or(usize::MAX);
        let (mine, o1, o2) = (pick(0), pick(1), pick(2));
        let v = fingerprint(x) as u16 ^ E::load(entries, o1) ^ E::load(entries, o2);
        E::store(entries, mine, v);
    }
}

/// Builds a filter from precomputed key hashes ([`Fuse::hash_key`] with
/// `seed`: XXH3-64, uniformly distributed) into `buf`, using `scratch`
/// (at least [`FuseParams::scratch_len`] bytes, any alignment) for the
/// construction. Duplicates are allowed (stored once). `buf` is written
/// only on success; the scratch contents afterwards are unspecified.
///
/// Errors: [`Error::InvalidParameter`] for bad `params`;
/// [`Error::InvalidArgument`] when more hashes than `params.keys` are given;
/// [`Error::BufferTooSmall`] when `buf` or `scratch` is too short;
/// [`Error::Misaligned`] when `buf` is not 8-byte aligned;
/// [`Error::BuildFailed`] when no attempt succeeded (in practice only with
/// hashes that are not uniformly distributed).
pub fn build_hashes<'a>(
    buf: &'a mut [u8],
    params: &FuseParams,
    seed: u64,
    hashes: &[u64],
    scratch: &mut [u8],
) -> Result<Fuse<'a>> {
    build_with(buf, params, seed, hashes.len(), scratch, |i| hashes.get(i).copied().unwrap_or(0), true)
}

/// [`build_hashes`] for keys that are neither in one slice nor packed (the
/// C ABI's `sketch_slice` arrays): `hash_at(i)` returns the hash of key `i`
/// (`i < count`), for example [`Fuse::hash_key`]'s value with `seed`. It is
/// called once per key, in order, after the parameters and buffers were
/// checked. Errors: as [`build_hashes`] (`count` plays the role of the
/// number of hashes).
pub fn build_hashed_by<'a>(
    buf: &'a mut [u8],
    params: &FuseParams,
    seed: u64,
    count: usize,
    scratch: &mut [u8],
    hash_at: impl FnMut(usize) -> u64,
) -> Result<Fuse<'a>> {
    build_with(buf, params, seed, count, scratch, hash_at, false)
}

/// [`build_hashes`] for integer keys, each hashed as its 8 little-endian
/// bytes with XXH3-64 and `seed` (query with [`Fuse::contains_u64`]).
pub fn build_u64s<'a>(
    buf: &'a mut [u8],
    params: &FuseParams,
    seed: u64,
    keys: &[u64],
    scratch: &mut [u8],
) -> Result<Fuse<'a>> {
    build_with(
        buf,
        params,
        seed,
        keys.len(),
        scratch,
        {
            let hasher = hash::U64Hasher::new(seed);
            move |i| hasher.hash(keys.get(i).copied().unwrap_or(0))
        },
        true,
    )
}

/// [`build_hashes`] for byte keys, each hashed with XXH3-64 and `seed`.
pub fn build_keys<'a>(
    buf: &'a mut [u8],
    params: &FuseParams,
    seed: u64,
    keys: &[&[u8]],
    scratch: &mut [u8],
) -> Result<Fuse<'a>> {
    build_with(
        buf,
        params,
        seed,
        keys.len(),
        scratch,
        |i| hash::hash_bytes(keys.get(i).copied().unwrap_or(&[]), seed),
        true,
    )
}

/// [`build_keys`] for keys packed in one buffer (the Arrow Binary layout):
/// `offsets` holds `count + 1` non-decreasing byte offsets into `data`, key
/// `i` is `data[offsets[i]..offsets[i + 1]]`.
///
/// Errors: as [`build_hashes`]; [`Error::InvalidArgument`] when `offsets`
/// is empty, decreases, or points past `data` (checked before anything is
/// written, scratch included).
pub fn build_packed<'a>(
    buf: &'a mut [u8],
    params: &FuseParams,
    seed: u64,
    data: &[u8],
    offsets: &[u32],
    scratch: &mut [u8],
) -> Result<Fuse<'a>> {
    let count = check_offsets(data, offsets)?;
    let key_at = |i: usize| match (offsets.get(i), offsets.get(i + 1)) {
        (Some(a), Some(b)) => data.get(*a as usize..*b as usize).unwrap_or(&[]),
        _ => &[],
    };
    build_with(buf, params, seed, count, scratch, |i| hash::hash_bytes(key_at(i), seed), true)
}

/// Checks Arrow-style offsets; returns the key count.
fn check_offsets(data: &[u8], offsets: &[u32]) -> Result<usize> {
    let count = offsets.len().checked_sub(1).ok_or(Error::InvalidArgument)?;
    let sorted = offsets.windows(2).all(|w| matches!(w, [a, b] if a <= b));
    let in_bounds = offsets.last().is_some_and(|last| (*last as usize) <= data.len());
    if !(sorted && in_bounds) {
        return Err(Error::InvalidArgument);
    }
    Ok(count)
}

#[cfg(test)]
mod tests;
