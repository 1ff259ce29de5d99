//! MinHash with one-permutation hashing and optimal densification
//! (Li, Owen and Zhang, 2012; Shrivastava, "Optimal Densification for Fast
//! and Accurate Minwise Hashing", ICML 2017): Jaccard similarity of sets
//! from `k` registers, at the cost of **one hash per item**.
//!
//! * An item's 64-bit key hash `h` picks its bin `fastrange(h, k)`; the bin
//!   keeps the minimum of `fmix64(h)` over the items it received
//!   (`u64::MAX` marks an empty bin; an item whose mixed value is exactly
//!   `u64::MAX`, probability 2^-64, is indistinguishable from none).
//! * Registers are stored raw, so merging is a register-wise minimum (the
//!   sketch of the union) whatever the order.
//! * Densification happens when a signature is read: an empty bin `i` takes
//!   the value of the first non-empty bin in its own probe sequence
//!   `fastrange(fmix64(seed + i * C1 + t * C2), k)`, `t = 0, 1, ...`. Two
//!   sketches of the same `k` and seed use the same sequences, which is what
//!   keeps the collision probability of a bin equal to the Jaccard
//!   similarity. After `64 k` probes (rare) the next non-empty bin in index
//!   order is taken.
//! * Jaccard estimate: the fraction of the `k` densified bins that are equal;
//!   its standard deviation is about `sqrt(J (1 - J) / k)`.
//!
//! # Example
//!
//! ```
//! use sketches_core::minhash;
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! let k = 256; // registers: standard deviation about sqrt(J (1 - J) / k)
//! assert!(minhash::image_len(k)? <= 4096); // 2,112 bytes
//!
//! let (mut buf_a, mut buf_b) = (ImageBuf::<4096>::new(), ImageBuf::<4096>::new());
//! let mut a = minhash::init(&mut buf_a, k, 0)?;
//! let mut b = minhash::init(&mut buf_b, k, 0)?;
//! (0..1_000u64).for_each(|i| { a.add_u64(i); });
//! (500..1_500u64).for_each(|i| { b.add_u64(i); });
//! let j = a.as_ref().jaccard(&b.as_ref())?; // true value 500 / 1500
//! assert!((j - 1.0 / 3.0).abs() < 0.12, "{j}"); // 4 standard deviations
//!
//! let mut wire = [0u8; 4096];
//! let n = minhash::export(&buf_b, &mut wire)?;
//! let mut copy = ImageBuf::<4096>::new();
//! minhash::import(&wire[..n], &mut copy)?;
//! let b_copy = minhash::wrap(&copy)?;
//!
//! a.merge(&b_copy)?; // the union A ∪ B, 1,500 items
//! let j = a.as_ref().jaccard(&b_copy)?; // true value 1000 / 1500
//! assert!((j - 2.0 / 3.0).abs() < 0.12, "{j}");
//! # Ok(())
//! # }
//! ```
//!
//! Image layout after the common header: bytes 48..52 `k` (1 ..= 2^20),
//! 52..64 reserved (0), then `k` little-endian `u64` registers.
//!
//! Thread-safety: [`MinHash`] is a shared view; [`MinHashMut`] is exclusive.

use crate::error::{Error, Result};
use crate::hash::{self, HashKind, KeyHasher};
use crate::image::{self, get_u32, get_u64, put_u32, put_u64};
use crate::image::{CommonHeader, FamilyId, Fresh, ImageFamily};

/// Byte length of the MinHash header.
pub const HEADER_LEN: usize = 64;
/// Largest number of registers.
pub const MAX_REGISTERS: u32 = 1 << 20;
/// The value of an empty register.
pub const EMPTY: u64 = u64::MAX;
const OFF_K: usize = 48;
const PROBE_STEP_BIN: u64 = 0x9e37_79b9_7f4a_7c15;
const PROBE_STEP_TRY: u64 = 0xc2b2_ae3d_27d4_eb4f;

/// Exact image size in bytes for `k` registers.
/// Errors: [`Error::InvalidParameter`] unless `1 <= k <= 2^20`.
pub fn image_len(k: u32) -> Result<u64> {
    if k == 0 || k > MAX_REGISTERS {
        return Err(Error::InvalidParameter);
    }
    Ok(image::padded_len(HEADER_LEN as u64 + 8 * u64::from(k)))
}

/// Statistics of a MinHash sketch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MinHashStats {
    /// Registers `k`.
    pub registers: u32,
    /// Registers that received at least one item.
    pub filled: u32,
    /// Hash seed.
    pub seed: u64,
}

/// Marker type tying the MinHash layout to the image format.
pub struct MinHashImage;

impl ImageFamily for MinHashImage {
    const FAMILY: FamilyId = FamilyId::MinHash;
    type Layout = u32;

    #[inline]
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<u32> {
        if common.hash != HashKind::Xxh3 {
            return Err(Error::UnsupportedHash);
        }
        if common.header_len != HEADER_LEN || common.flags != 0 || !image::zeroed(image, 52..HEADER_LEN) {
            return Err(Error::CorruptHeader);
        }
        let k = get_u32(image, OFF_K).ok_or(Error::BufferTooSmall)?;
        let expected = image_len(k).map_err(|_| Error::CorruptHeader)?;
        if image.len() as u64 != expected {
            return Err(Error::CorruptHeader);
        }
        Ok(k)
    }

    #[inline]
    fn body_len(_common: &CommonHeader, k: &u32) -> usize {
        8 * *k as usize
    }
}

/// Writes an empty sketch of `k` registers into `buf` (8-byte aligned, at
/// least [`image_len`] bytes). Errors: [`Error::InvalidParameter`],
/// [`Error::BufferTooSmall`], [`Error::Misaligned`]; `buf` unchanged then.
pub fn init(buf: &mut [u8], k: u32, seed: u64) -> Result<MinHashMut<'_>> {
    let image_len = image_len(k)?;
    let family = FamilyId::MinHash;
    let fresh = Fresh { family, hash: HashKind::Xxh3, header_len: HEADER_LEN, flags: 0, seed, image_len };
    let image = image::start_image(buf, fresh)?;
    put_u32(image, OFF_K, k);
    if let Some(body) = image.get_mut(HEADER_LEN..HEADER_LEN + 8 * k as usize) {
        body.fill(0xff);
    }
    wrap_mut(image)
}

/// Validates a live image and returns a read-only view (zero-copy).
#[inline]
pub fn wrap(buf: &[u8]) -> Result<MinHash<'_>> {
    let p = image::split::<MinHashImage>(buf)?;
    Ok(MinHash { registers: p.body, k: p.layout, seed: p.common.seed })
}

/// Validates a live image and returns a mutable view (zero-copy).
#[inline]
pub fn wrap_mut(buf: &mut [u8]) -> Result<MinHashMut<'_>> {
    let p = image::split_mut::<MinHashImage>(buf)?;
    Ok(MinHashMut { registers: p.body, k: p.layout, seed: p.common.seed })
}
/// The number of bytes [`export`] writes for the live image in `src` (its
/// image length), so a destination can be sized first. Errors: image errors.
pub fn exported_len(src: &[u8]) -> Result<usize> {
    image::exported_len::<MinHashImage>(src)
}

/// Copies the live image to `dst` with its checksum. Returns the bytes written.
///
/// Errors: as [`crate::image::export`].
pub fn export(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::export::<MinHashImage>(src, dst)
}

/// Bytes of the live image that importing the exported image `src` writes
/// (allocate this much, 64-byte aligned, before [`import`]). Checks the
/// headers and the length, not the checksum.
///
/// Errors: as [`crate::image::import_len`].
pub fn import_len(src: &[u8]) -> Result<usize> {
    image::import_len::<MinHashImage>(src)
}

/// Verifies untrusted bytes and copies them into the aligned `dst` (written
/// only on success). Returns the image length.
///
/// Errors: as [`crate::image::import`].
pub fn import(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::import::<MinHashImage>(src, dst)
}

/// Verifies untrusted bytes in place (exact length, headers, checksum).
///
/// Errors: as [`crate::image::verify`].
pub fn verify(bytes: &[u8]) -> Result<()> {
    image::verify::<MinHashImage>(bytes).map(|_| ())
}

/// The bin and value of a key hash.
#[inline(always)]
fn bin_and_value(hash: u64, k: u32) -> (usize, u64) {
    (hash::reduce(hash, u64::from(k)) as usize, hash::remix(hash))
}

/// A read-only view of a validated MinHash image.
#[derive(Copy, Clone)]
pub struct MinHash<'a> {
    registers: &'a [u8],
    k: u32,
    seed: u64,
}

crate::image::debug_view!(MinHash [k, seed] |v| image_len(v.k).unwrap_or(0));

impl<'a> MinHash<'a> {
    /// Registers `k`.
    pub fn registers(&self) -> u32 {
        self.k
    }

    /// Hash seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash function and seed of this image.
    pub fn key_hasher(&self) -> KeyHasher {
        KeyHasher { kind: HashKind::Xxh3, seed: self.seed }
    }

    /// Raw register `i` ([`EMPTY`] when the bin received nothing or `i` is out of range).
    pub fn register(&self, i: usize) -> u64 {
        i.checked_mul(8).and_then(|off| get_u64(self.registers, off)).unwrap_or(EMPTY)
    }

    /// Registers that received at least one item. O(k).
    pub fn filled(&self) -> u32 {
        self.registers.chunks_exact(8).filter(|c| get_u64(c, 0) != Some(EMPTY)).count() as u32
    }

    /// True when no item was added. O(k), as [`MinHash::filled`].
    pub fn is_empty(&self) -> bool {
        self.filled() == 0
    }

    /// The densified value of bin `i` (see the module docs); [`EMPTY`] only
    /// when the whole sketch is empty. An `i` at or above `k` names no bin
    /// and reads like an empty one (a filled bin's value found by probing),
    /// not [`EMPTY`] as [`MinHash::register`] does: check `i < k` first.
    ///
    /// Cost: O(1) for a filled bin; an empty bin probes about `k / filled`
    /// bins (at most `64 k`, then O(k) more when the sketch is empty).
    pub fn densified(&self, i: usize) -> u64 {
        let own = self.register(i);
        if own != EMPTY {
            return own;
        }
        let k = u64::from(self.k);
        let base = self.seed.wrapping_add((i as u64).wrapping_mul(PROBE_STEP_BIN));
        for t in 0..64 * k {
            let j = hash::reduce(hash::remix(base.wrapping_add(t.wrapping_mul(PROBE_STEP_TRY))), k) as usize;
            let v = self.register(j);
            if v != EMPTY {
                return v;
            }
        }
        (1..self.k as usize)
            .map(|d| self.register(i.wrapping_add(d) % self.k as usize))
            .find(|v| *v != EMPTY)
            .unwrap_or(EMPTY)
    }

    /// Writes the `k` densified values (the signature, e.g. for LSH banding).
    ///
    /// Cost: O(k) when most bins are filled, but about `k · (k - filled) /
    /// filled` probes in general ([`MinHash::densified`]): quadratic in `k`
    /// for a sketch that saw few items. One item at `k = 16384` takes most of
    /// a second, at the largest `k` (2^20) most of an hour; pick `k` well
    /// below the number of distinct items a sketch will see.
    ///
    /// Errors: [`Error::InvalidArgument`] unless `out.len() == k`.
    pub fn signature(&self, out: &mut [u64]) -> Result<()> {
        if out.len() != self.k as usize {
            return Err(Error::InvalidArgument);
        }
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.densified(i);
        }
        Ok(())
    }

    /// True when `other` has the same `k` and seed: the rule of
    /// [`MinHash::jaccard`] and [`MinHashMut::merge`].
    pub fn is_compatible(&self, other: &MinHash<'_>) -> bool {
        self.k == other.k && self.seed == other.seed
    }

    /// Estimated Jaccard similarity `|A ∩ B| / |A ∪ B|` of the two sets: the
    /// fraction of equal densified bins. Two empty sketches give 1, one
    /// empty and one not give 0. Cost: as [`MinHash::signature`] of both
    /// sketches (quadratic in `k` when they saw few items).
    ///
    /// Errors: [`Error::Incompatible`] unless `k` and the seed are equal.
    pub fn jaccard(&self, other: &MinHash<'_>) -> Result<f64> {
        if !self.is_compatible(other) {
            return Err(Error::Incompatible);
        }
        let (a_empty, b_empty) = (self.is_empty(), other.is_empty());
        if a_empty || b_empty {
            return Ok(if a_empty && b_empty { 1.0 } else { 0.0 });
        }
        let equal = (0..self.k as usize).filter(|i| self.densified(*i) == other.densified(*i)).count();
        Ok(equal as f64 / f64::from(self.k))
    }

    /// All statistics. O(k).
    pub fn stats(&self) -> MinHashStats {
        MinHashStats { registers: self.k, filled: self.filled(), seed: self.seed }
    }
}

/// An exclusive, mutable view of a validated MinHash image.
pub struct MinHashMut<'a> {
    registers: &'a mut [u8],
    k: u32,
    seed: u64,
}

crate::image::debug_view!(MinHashMut [k, seed] |v| image_len(v.k).unwrap_or(0));

impl<'a> MinHashMut<'a> {
    /// A read-only view of the same image.
    pub fn as_ref(&self) -> MinHash<'_> {
        MinHash { registers: self.registers, k: self.k, seed: self.seed }
    }

    /// Adds a key (one XXH3 hash); true when its bin's minimum dropped.
    #[inline]
    pub fn add(&mut self, key: &[u8]) -> bool {
        self.add_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`MinHashMut::add`] for an integer key.
    #[inline]
    pub fn add_u64(&mut self, key: u64) -> bool {
        self.add_hash(hash::hash_u64(key, self.seed))
    }

    /// [`MinHashMut::add`] for a precomputed hash.
    #[inline]
    pub fn add_hash(&mut self, hash: u64) -> bool {
        let (bin, value) = bin_and_value(hash, self.k);
        let current = get_u64(self.registers, 8 * bin).unwrap_or(0);
        if value < current {
            put_u64(self.registers, 8 * bin, value);
            return true;
        }
        false
    }

    /// Batch add of precomputed hashes.
    pub fn add_hashes(&mut self, hashes: &[u64]) {
        for h in hashes {
            self.add_hash(*h);
        }
    }

    /// Merge: register-wise minimum; afterwards the sketch is that of the union.
    /// Errors: [`Error::Incompatible`] unless `k` and the seed are equal.
    pub fn merge(&mut self, other: &MinHash<'_>) -> Result<()> {
        if !self.as_ref().is_compatible(other) {
            return Err(Error::Incompatible);
        }
        for (d, s) in self.registers.as_chunks_mut::<8>().0.iter_mut().zip(other.registers.as_chunks::<8>().0)
        {
            *d = u64::from_le_bytes(*d).min(u64::from_le_bytes(*s)).to_le_bytes();
        }
        Ok(())
    }

    /// Empties the sketch.
    pub fn clear(&mut self) {
        self.registers.fill(0xff);
    }
}

#[cfg(test)]
mod tests;
