//! Count-Min sketch (Cormode and Muthukrishnan, 2005): frequency estimates
//! that never underestimate.
//!
//! `depth` rows of `width` counters. A key adds its weight to one counter
//! per row; its estimate is the minimum of those counters. With
//! `width = ceil(e / epsilon)` and `depth = ceil(ln(1 / delta))`, an
//! estimate exceeds the true count by more than `epsilon * N` (N = total
//! weight added) with probability at most `delta`.
//!
//! * Counters are 32-bit or 64-bit (chosen at init) and **saturate** at their
//!   maximum instead of wrapping, so an estimate never drops below the truth
//!   while the truth is below that maximum. An estimate equal to the maximum
//!   (`u32::MAX` for 32-bit counters, the default of [`CountMinParams::for_error`]
//!   and [`CountMinParams::with_size`]) means "at least this much": weights
//!   such as byte counts pass 2^32 soon, so set `counter_bits: 64` for them.
//! * **Conservative update** (chosen at init): a key raises each of its
//!   counters only to `min + weight`. Estimates stay upper bounds and are
//!   usually much tighter. Merging adds counters, which keeps every estimate
//!   an upper bound whichever mode either side used (each side's counter is
//!   at least that side's true count); the merged sketch keeps the
//!   destination's mode.
//! * Column of row `r`: probe `r` of [`crate::hash::probes`] (enhanced double
//!   hashing of the 64-bit key hash, fastrange onto `width`).
//!
//! # Example
//!
//! ```
//! use sketches_core::countmin::{self, CountMinParams};
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! // Error at most 1% of the total weight, except with probability 1%;
//! // conservative update for tighter estimates.
//! let params = CountMinParams { conservative: true, ..CountMinParams::for_error(0.01, 0.01)? };
//! assert_eq!((params.width, params.depth), (272, 5));
//! assert!(params.image_len()? <= 8192); // 5,568 bytes
//!
//! let (mut buf_a, mut buf_b) = (ImageBuf::<8192>::new(), ImageBuf::<8192>::new());
//! let mut a = countmin::init(&mut buf_a, &params, 9)?;
//! let mut b = countmin::init(&mut buf_b, &params, 9)?;
//! a.add(b"hot", 700);
//! b.add(b"hot", 300);
//! for i in 0..1_000u64 {
//!     a.add_u64(i, 1);
//! }
//! a.merge(&b.as_ref())?; // adds the counters
//! let sketch = a.as_ref();
//! assert_eq!(sketch.total(), 2_000);
//! let hot = sketch.estimate(b"hot");
//! assert!(hot >= 1_000 && hot as f64 <= 1_000.0 + sketch.error_bound(), "{hot}"); // never below the truth
//!
//! let mut wire = [0u8; 8192];
//! let n = countmin::export(&buf_a, &mut wire)?;
//! let mut copy = ImageBuf::<8192>::new();
//! countmin::import(&wire[..n], &mut copy)?;
//! assert_eq!(countmin::wrap(&copy)?.estimate(b"hot"), hot);
//! # Ok(())
//! # }
//! ```
//!
//! Image layout after the common header (little-endian):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 48 | 8 | `width` (1 ..= 2^32) |
//! | 56 | 4 | `depth` (1 ..= 64) |
//! | 60 | 1 | counter bits: 32 or 64 |
//! | 61 | 1 | 1 = conservative update, 0 = plain |
//! | 62 | 2 | reserved, 0 |
//! | 64 | 8 | total weight `N` added (saturating) |
//! | 72 | 56 | reserved, 0 |
//! | 128 | `width*depth*bits/8`, rounded up to 8 | counters, row-major: counter `(r, c)` at index `r * width + c` |
//! | … | 0..63 | zero padding to a multiple of 64 bytes (every live image length is) |
//!
//! Thread-safety: [`CountMin`] is a shared view; [`CountMinMut`] is exclusive.

use crate::error::{Error, Result};
use crate::hash::{self, HashKind, KeyHasher};
use crate::image::{self, get_u32, get_u64, put_u32, put_u64};
use crate::image::{CommonHeader, FamilyId, Fresh, ImageFamily};

/// Byte length of the Count-Min header.
pub const HEADER_LEN: usize = 128;
/// Largest width.
pub const MAX_WIDTH: u64 = 1 << 32;
/// Largest depth.
pub const MAX_DEPTH: u32 = 64;
/// Largest counter area in bytes (2^40).
pub const MAX_BODY_BYTES: u64 = 1 << 40;

const OFF_WIDTH: usize = 48;
const OFF_DEPTH: usize = 56;
const OFF_COUNTER_BITS: usize = 60;
const OFF_CONSERVATIVE: usize = 61;
const OFF_TOTAL: usize = 64;

/// Parameters of a Count-Min sketch.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct CountMinParams {
    /// Counters per row.
    pub width: u64,
    /// Rows.
    pub depth: u32,
    /// Counter width: 32 or 64 bits.
    pub counter_bits: u32,
    /// Conservative update.
    pub conservative: bool,
}

impl CountMinParams {
    /// Plans from the error guarantee: `width = ceil(e / epsilon)`,
    /// `depth = ceil(ln(1 / delta))`, 32-bit counters, plain update.
    /// Errors: [`Error::InvalidParameter`] unless `0 < epsilon < 1` and
    /// `0 < delta < 1` (and the sizes fit the limits).
    pub fn for_error(epsilon: f64, delta: f64) -> Result<Self> {
        let valid = |x: f64| x.is_finite() && x > 0.0 && x < 1.0;
        if !valid(epsilon) || !valid(delta) {
            return Err(Error::InvalidParameter);
        }
        let width = libm::ceil(core::f64::consts::E / epsilon);
        let depth = libm::ceil(libm::log(1.0 / delta)).max(1.0);
        if width > MAX_WIDTH as f64 || depth > f64::from(MAX_DEPTH) {
            return Err(Error::InvalidParameter);
        }
        Self::with_size(width as u64, depth as u32)
    }

    /// Explicit `width x depth`, 32-bit counters, plain update.
    /// Errors: [`Error::InvalidParameter`] outside the limits.
    pub fn with_size(width: u64, depth: u32) -> Result<Self> {
        let p = CountMinParams { width, depth, counter_bits: 32, conservative: false };
        p.validate()?;
        Ok(p)
    }

    /// Checks the limits: width 1..=2^32, depth 1..=64, counter bits 32 or
    /// 64, counter area at most 2^40 bytes.
    pub fn validate(&self) -> Result<()> {
        let bits_ok = self.counter_bits == 32 || self.counter_bits == 64;
        if self.width == 0 || self.width > MAX_WIDTH || self.depth == 0 || self.depth > MAX_DEPTH || !bits_ok
        {
            return Err(Error::InvalidParameter);
        }
        if self.body_len() > MAX_BODY_BYTES {
            return Err(Error::InvalidParameter);
        }
        Ok(())
    }

    fn body_len(&self) -> u64 {
        let counters = self.width.saturating_mul(u64::from(self.depth));
        counters.saturating_mul(u64::from(self.counter_bits / 8)).div_ceil(8).saturating_mul(8)
    }

    /// Exact image size in bytes. Errors: as [`CountMinParams::validate`].
    pub fn image_len(&self) -> Result<u64> {
        self.validate()?;
        Ok(image::padded_len(HEADER_LEN as u64 + self.body_len()))
    }

    /// The guarantee's `epsilon = e / width`.
    pub fn epsilon(&self) -> f64 {
        core::f64::consts::E / self.width as f64
    }

    /// The guarantee's `delta = e^-depth`.
    pub fn delta(&self) -> f64 {
        libm::exp(-f64::from(self.depth))
    }

    fn counter_max(&self) -> u64 {
        if self.counter_bits == 32 {
            u64::from(u32::MAX)
        } else {
            u64::MAX
        }
    }
}

/// Statistics of a Count-Min sketch.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CountMinStats {
    /// Parameters.
    pub params: CountMinParams,
    /// Hash seed.
    pub seed: u64,
    /// Total weight added, `N` (saturating).
    pub total: u64,
    /// `epsilon = e / width`.
    pub epsilon: f64,
    /// `delta = e^-depth`.
    pub delta: f64,
    /// `epsilon * N`: an estimate exceeds the truth by more than this with
    /// probability at most `delta` (plain update; conservative is tighter).
    pub error_bound: f64,
}

/// Marker type tying the Count-Min layout to the image format.
pub struct CountMinImage;

impl ImageFamily for CountMinImage {
    const FAMILY: FamilyId = FamilyId::CountMin;
    type Layout = CountMinParams;

    #[inline]
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<CountMinParams> {
        if common.hash != HashKind::Xxh3 {
            return Err(Error::UnsupportedHash);
        }
        if common.header_len != HEADER_LEN || common.flags != 0 {
            return Err(Error::CorruptHeader);
        }
        let byte = |off: usize| image.get(off).copied().ok_or(Error::BufferTooSmall);
        let conservative = match byte(OFF_CONSERVATIVE)? {
            0 => false,
            1 => true,
            _ => return Err(Error::CorruptHeader),
        };
        let params = CountMinParams {
            width: get_u64(image, OFF_WIDTH).ok_or(Error::BufferTooSmall)?,
            depth: get_u32(image, OFF_DEPTH).ok_or(Error::BufferTooSmall)?,
            counter_bits: u32::from(byte(OFF_COUNTER_BITS)?),
            conservative,
        };
        let expected = params.image_len().map_err(|_| Error::CorruptHeader)?;
        let reserved = image::zeroed(image, 62..64) && image::zeroed(image, 72..HEADER_LEN);
        if image.len() as u64 != expected || !reserved {
            return Err(Error::CorruptHeader);
        }
        Ok(params)
    }

    #[inline]
    fn body_len(_common: &CommonHeader, params: &CountMinParams) -> usize {
        params.body_len() as usize
    }
}

/// Exact image size in bytes for `params` (see [`CountMinParams::image_len`]).
pub fn image_len(params: &CountMinParams) -> Result<u64> {
    params.image_len()
}

/// Writes an empty sketch into `buf` (8-byte aligned, at least
/// `params.image_len()` bytes).
/// Errors: [`Error::InvalidParameter`], [`Error::BufferTooSmall`],
/// [`Error::Misaligned`]; `buf` is unchanged then.
pub fn init<'a>(buf: &'a mut [u8], params: &CountMinParams, seed: u64) -> Result<CountMinMut<'a>> {
    let image_len = params.image_len()?;
    let family = FamilyId::CountMin;
    let fresh = Fresh { family, hash: HashKind::Xxh3, header_len: HEADER_LEN, flags: 0, seed, image_len };
    let image = image::start_image(buf, fresh)?;
    put_u64(image, OFF_WIDTH, params.width);
    put_u32(image, OFF_DEPTH, params.depth);
    if let Some(b) = image.get_mut(OFF_COUNTER_BITS) {
        *b = params.counter_bits as u8;
    }
    if let Some(b) = image.get_mut(OFF_CONSERVATIVE) {
        *b = u8::from(params.conservative);
    }
    wrap_mut(image)
}

/// Validates a live image and returns a read-only view (zero-copy).
#[inline]
pub fn wrap(buf: &[u8]) -> Result<CountMin<'_>> {
    let p = image::split::<CountMinImage>(buf)?;
    Ok(CountMin { header: p.header, body: p.body, params: p.layout, seed: p.common.seed })
}

/// Validates a live image and returns a mutable view (zero-copy).
#[inline]
pub fn wrap_mut(buf: &mut [u8]) -> Result<CountMinMut<'_>> {
    let p = image::split_mut::<CountMinImage>(buf)?;
    Ok(CountMinMut { header: p.header, body: p.body, params: p.layout, seed: p.common.seed })
}
/// The number of bytes [`export`] writes for the live image in `src` (its
/// image length), so a destination can be sized first. Errors: image errors.
pub fn exported_len(src: &[u8]) -> Result<usize> {
    image::exported_len::<CountMinImage>(src)
}

/// Copies the live image to `dst` with its checksum. Returns the bytes written.
///
/// Errors: as [`crate::image::export`].
pub fn export(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::export::<CountMinImage>(src, dst)
}

/// Bytes of the live image that importing the exported image `src` writes
/// (allocate this much, 64-byte aligned, before [`import`]). Checks the
/// headers and the length, not the checksum.
///
/// Errors: as [`crate::image::import_len`].
pub fn import_len(src: &[u8]) -> Result<usize> {
    image::import_len::<CountMinImage>(src)
}

/// Verifies untrusted bytes and copies them into the aligned `dst` (written
/// only on success). Returns the image length.
///
/// Errors: as [`crate::image::import`].
pub fn import(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::import::<CountMinImage>(src, dst)
}

/// Verifies untrusted bytes in place (exact length, headers, checksum).
///
/// Errors: as [`crate::image::verify`].
pub fn verify(bytes: &[u8]) -> Result<()> {
    image::verify::<CountMinImage>(bytes).map(|_| ())
}

#[inline(always)]
fn read_counter(body: &[u8], bits: u32, index: u64) -> u64 {
    let i = index as usize;
    if bits == 32 {
        u64::from(get_u32(body, i * 4).unwrap_or(0))
    } else {
        get_u64(body, i * 8).unwrap_or(0)
    }
}

#[inline(always)]
fn write_counter(body: &mut [u8], bits: u32, index: u64, value: u64) {
    let i = index as usize;
    if bits == 32 {
        put_u32(body, i * 4, value.min(u64::from(u32::MAX)) as u32);
    } else {
        put_u64(body, i * 8, value);
    }
}

/// The counter indexes (row-major) of a hash, one per row.
#[inline(always)]
fn cells(params: &CountMinParams, hash: u64) -> impl Iterator<Item = u64> {
    let width = params.width;
    hash::probes(hash, params.depth, width).enumerate().map(move |(row, col)| row as u64 * width + col)
}

/// A read-only view of a validated Count-Min image.
#[derive(Copy, Clone)]
pub struct CountMin<'a> {
    header: &'a [u8],
    body: &'a [u8],
    params: CountMinParams,
    seed: u64,
}

crate::image::debug_view!(CountMin [params, seed]);

impl<'a> CountMin<'a> {
    /// Parameters.
    pub fn params(&self) -> CountMinParams {
        self.params
    }

    /// The hash seed stored in the image.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash function and seed of this image.
    pub fn key_hasher(&self) -> KeyHasher {
        KeyHasher { kind: HashKind::Xxh3, seed: self.seed }
    }

    /// Estimated count of `key`: never below its true count, except that
    /// it stops at the counter maximum (see the module docs), which then
    /// reads as "at least this much".
    #[inline]
    pub fn estimate(&self, key: &[u8]) -> u64 {
        self.estimate_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`CountMin::estimate`] for an integer key.
    #[inline]
    pub fn estimate_u64(&self, key: u64) -> u64 {
        self.estimate_hash(hash::hash_u64(key, self.seed))
    }

    /// [`CountMin::estimate`] for a precomputed hash.
    #[inline]
    pub fn estimate_hash(&self, hash: u64) -> u64 {
        let bits = self.params.counter_bits;
        cells(&self.params, hash).map(|i| read_counter(self.body, bits, i)).min().unwrap_or(0)
    }

    /// Batch estimate. Errors: [`Error::InvalidArgument`] on a length mismatch.
    pub fn estimate_hashes(&self, hashes: &[u64], out: &mut [u64]) -> Result<()> {
        if hashes.len() != out.len() {
            return Err(Error::InvalidArgument);
        }
        for (h, o) in hashes.iter().zip(out.iter_mut()) {
            *o = self.estimate_hash(*h);
        }
        Ok(())
    }

    /// Total weight added, `N`.
    pub fn total(&self) -> u64 {
        get_u64(self.header, OFF_TOTAL).unwrap_or(0)
    }

    /// `epsilon * N`.
    pub fn error_bound(&self) -> f64 {
        self.params.epsilon() * self.total() as f64
    }

    /// All statistics, O(1).
    pub fn stats(&self) -> CountMinStats {
        CountMinStats {
            params: self.params,
            seed: self.seed,
            total: self.total(),
            epsilon: self.params.epsilon(),
            delta: self.params.delta(),
            error_bound: self.error_bound(),
        }
    }

    /// True when `other` has the same width, depth, counter width and seed.
    pub fn is_compatible(&self, other: &CountMin<'_>) -> bool {
        self.params.width == other.params.width
            && self.params.depth == other.params.depth
            && self.params.counter_bits == other.params.counter_bits
            && self.seed == other.seed
    }

    /// The counter bytes.
    pub fn body(&self) -> &'a [u8] {
        self.body
    }
}

/// An exclusive, mutable view of a validated Count-Min image.
pub struct CountMinMut<'a> {
    header: &'a mut [u8],
    body: &'a mut [u8],
    params: CountMinParams,
    seed: u64,
}

crate::image::debug_view!(CountMinMut [params, seed]);

impl<'a> CountMinMut<'a> {
    /// A read-only view of the same image.
    pub fn as_ref(&self) -> CountMin<'_> {
        CountMin { header: self.header, body: self.body, params: self.params, seed: self.seed }
    }

    /// Adds `weight` occurrences of `key`.
    #[inline]
    pub fn add(&mut self, key: &[u8], weight: u64) {
        self.add_hash(hash::hash_bytes(key, self.seed), weight)
    }

    /// [`CountMinMut::add`] for an integer key.
    #[inline]
    pub fn add_u64(&mut self, key: u64, weight: u64) {
        self.add_hash(hash::hash_u64(key, self.seed), weight)
    }

    /// [`CountMinMut::add`] for a precomputed hash. Counters saturate at
    /// their maximum; so does the total.
    pub fn add_hash(&mut self, hash: u64, weight: u64) {
        let (bits, max) = (self.params.counter_bits, self.params.counter_max());
        if self.params.conservative {
            let target = self.as_ref().estimate_hash(hash).saturating_add(weight).min(max);
            for i in cells(&self.params, hash) {
                if read_counter(self.body, bits, i) < target {
                    write_counter(self.body, bits, i, target);
                }
            }
        } else {
            for i in cells(&self.params, hash) {
                let c = read_counter(self.body, bits, i);
                write_counter(self.body, bits, i, c.saturating_add(weight).min(max));
            }
        }
        let total = self.as_ref().total().saturating_add(weight);
        put_u64(self.header, OFF_TOTAL, total);
    }

    /// Batch add; `weights` (same length) or 1 each when `None`.
    /// Errors: [`Error::InvalidArgument`] on a length mismatch (nothing added).
    pub fn add_hashes(&mut self, hashes: &[u64], weights: Option<&[u64]>) -> Result<()> {
        if weights.is_some_and(|w| w.len() != hashes.len()) {
            return Err(Error::InvalidArgument);
        }
        for (i, h) in hashes.iter().enumerate() {
            let w = weights.and_then(|w| w.get(i)).copied().unwrap_or(1);
            self.add_hash(*h, w);
        }
        Ok(())
    }

    /// Merge: counter-wise saturating addition (the sketch of both streams;
    /// estimates stay upper bounds for either update mode).
    /// Errors: [`Error::Incompatible`] unless width, depth, counter width and
    /// seed are equal (nothing changes then).
    pub fn merge(&mut self, other: &CountMin<'_>) -> Result<()> {
        if !self.as_ref().is_compatible(other) {
            return Err(Error::Incompatible);
        }
        if self.params.counter_bits == 32 {
            for (d, s) in self.body.as_chunks_mut::<4>().0.iter_mut().zip(other.body.as_chunks::<4>().0) {
                *d = u32::from_le_bytes(*d).saturating_add(u32::from_le_bytes(*s)).to_le_bytes();
            }
        } else {
            for (d, s) in self.body.as_chunks_mut::<8>().0.iter_mut().zip(other.body.as_chunks::<8>().0) {
                *d = u64::from_le_bytes(*d).saturating_add(u64::from_le_bytes(*s)).to_le_bytes();
            }
        }
        let total = self.as_ref().total().saturating_add(other.total());
        put_u64(self.header, OFF_TOTAL, total);
        Ok(())
    }

    /// Resets every counter and the total.
    pub fn clear(&mut self) {
        self.body.fill(0);
        put_u64(self.header, OFF_TOTAL, 0);
    }
}

#[cfg(test)]
mod tests;
