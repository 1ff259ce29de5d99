//! Cuckoo filter (Fan et al., "Cuckoo Filter: Practically Better Than Bloom",
//! 2014): buckets of 4 fingerprint slots, with removal and counting.
//!
//! * Fingerprints are 8, 12 or 16 bits (0 marks an empty slot, so a
//!   fingerprint is the hash's low bits mapped into `1 ..= 2^f - 1`).
//! * Bucket count is any number ≥ 1, so memory follows `n`: the first bucket
//!   is `fastrange(h, B)` and the alternate bucket is
//!   `alt(i, fp) = (H(fp) + B - i) mod B` with `H(fp) = fastrange(fmix64(fp), B)`,
//!   an involution (`alt(alt(i)) = i`) for every `B`, not only powers of two.
//! * Insert relocates at most [`MAX_KICKS`] fingerprints. When that fails,
//!   every relocation is undone (the path is recorded on the stack) and the
//!   insert reports [`Error::Full`]: the filter is exactly as before, so
//!   nothing already stored is lost (the bug of seiflotfy/cuckoofilter issue
//!   42) and the caller knows the new key was not stored.
//!
//! # Example
//!
//! ```
//! use sketches_core::cuckoo::{self, CuckooParams};
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! let params = CuckooParams::for_items(1_000, 0.01)?;
//! assert_eq!(params.fingerprint_bits, 12); // the narrowest width meeting 1%
//! assert!(params.image_len()? <= 2048);
//!
//! let (mut buf_a, mut buf_b) = (ImageBuf::<2048>::new(), ImageBuf::<2048>::new());
//! let mut a = cuckoo::init(&mut buf_a, &params, 5)?;
//! for i in 0..400u64 {
//!     a.add_u64(i)?; // Err(Error::Full) when it cannot be placed; nothing is lost then
//! }
//! a.add(b"twice")?;
//! a.add(b"twice")?;
//! assert_eq!(a.as_ref().count(b"twice"), 2);
//! a.remove(b"twice")?;
//! assert!(a.as_ref().contains(b"twice")); // one copy left
//!
//! let mut b = cuckoo::init(&mut buf_b, &params, 5)?;
//! b.add(b"other")?;
//! let mut scratch = ImageBuf::<2048>::new(); // the merge is all or nothing: it works on a copy
//! a.merge(&b.as_ref(), &mut scratch)?;
//! assert_eq!(a.as_ref().items(), 402);
//!
//! let mut wire = [0u8; 2048];
//! let n = cuckoo::export(&buf_a, &mut wire)?;
//! let mut copy = ImageBuf::<2048>::new();
//! cuckoo::import(&wire[..n], &mut copy)?;
//! let copy = cuckoo::wrap(&copy)?;
//! assert!(copy.contains(b"other") && (0..400u64).all(|i| copy.contains_u64(i)));
//! # Ok(())
//! # }
//! ```
//!
//! Image layout after the common header (little-endian):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 48 | 8 | buckets `B` (1 ..= 2^48) |
//! | 56 | 4 | fingerprint bits (8, 12 or 16) |
//! | 60 | 4 | reserved, 0 |
//! | 64 | 8 | planned items |
//! | 72 | 8 | planned false-positive rate (f64) |
//! | 80 | 8 | stored items |
//! | 88 | 8 | relocation generator state (makes relocations deterministic) |
//! | 96 | 32 | reserved, 0 |
//! | 128 | ⌈B·4·f/64⌉·8 | slots: slot `s` of bucket `i` is the `f`-bit little-endian field at bit `(4i + s)·f` |
//! | … | 0..63 | zero padding to a multiple of 64 bytes (every live image length is) |

use crate::error::{Error, Result};
use crate::filter;
use crate::hash::{self, HashKind};
use crate::image::{self, copy_bytes, get_f64, get_u32, get_u64, put_f64, put_u32, put_u64};
use crate::image::{CommonHeader, FamilyId, Fresh, ImageFamily};

/// Items per group of a batch query (their 16 bucket loads overlap).
const CONTAINS_GROUP: usize = 8;

/// Byte length of the cuckoo header.
pub const HEADER_LEN: usize = 128;
/// Slots per bucket.
pub const SLOTS: u64 = 4;
/// Largest bucket count.
pub const MAX_BUCKETS: u64 = 1 << 48;
/// Most relocations per insert.
pub const MAX_KICKS: u32 = 500;
/// Increment of the counter-based relocation generator (the golden ratio in 64 bits).
const KICK_STEP: u64 = 0x9e37_79b9_7f4a_7c15;
/// Load the planner sizes for (items / slots).
pub const PLANNED_LOAD: f64 = 0.95;

const OFF_BUCKETS: usize = 48;
const OFF_BITS: usize = 56;
const OFF_PLANNED_ITEMS: usize = 64;
const OFF_PLANNED_FPR: usize = 72;
const OFF_ITEMS: usize = 80;
const OFF_KICK_STATE: usize = 88;

/// Parameters of a cuckoo filter.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CuckooParams {
    /// Number of 4-slot buckets.
    pub buckets: u64,
    /// Fingerprint width in bits: 8, 12 or 16.
    pub fingerprint_bits: u32,
    /// Items the filter is planned for.
    pub planned_items: u64,
    /// False-positive rate planned at full load.
    pub planned_fpr: f64,
}

/// Upper bound of the false-positive rate with `f`-bit fingerprints at full
/// load: two buckets of 4 slots, each matching with probability `1/(2^f - 1)`.
/// Defined for every `f` (the filter stores 8, 12 or 16): 1 for `f` = 0,
/// and widths of 64 bits or more count as 64.
pub fn fpr_bound(fingerprint_bits: u32) -> f64 {
    let values = 1u64.checked_shl(fingerprint_bits).map_or(u64::MAX, |v| v - 1).max(1);
    1.0 - libm::pow(1.0 - 1.0 / values as f64, 2.0 * SLOTS as f64)
}

impl CuckooParams {
    /// Plans from expected items `n` and target rate `p`: the narrowest
    /// fingerprint (8, 12, 16 bits) whose [`fpr_bound`] is ≤ `p`, and
    /// `⌈n / (4 · 0.95)⌉` buckets.
    ///
    /// Errors: [`Error::InvalidParameter`] when `n = 0`, `p` is not in (0, 1),
    /// `p` is below the 16-bit bound (≈ 1.2e-4), or too many buckets.
    pub fn for_items(items: u64, fpr: f64) -> Result<Self> {
        if items == 0 || !filter::valid_fpr(fpr) {
            return Err(Error::InvalidParameter);
        }
        let bits =
            [8u32, 12, 16].into_iter().find(|b| fpr_bound(*b) <= fpr).ok_or(Error::InvalidParameter)?;
        let buckets = libm::ceil(items as f64 / (SLOTS as f64 * PLANNED_LOAD));
        if buckets > MAX_BUCKETS as f64 {
            return Err(Error::InvalidParameter);
        }
        Ok(CuckooParams {
            buckets: (buckets as u64).max(1),
            fingerprint_bits: bits,
            planned_items: items,
            planned_fpr: fpr,
        })
    }

    /// Explicit bucket count and fingerprint width; planned for 95% load.
    ///
    /// Errors: [`Error::InvalidParameter`] for 0 or too many buckets, or a
    /// width other than 8, 12, 16.
    pub fn with_buckets(buckets: u64, fingerprint_bits: u32) -> Result<Self> {
        let items = libm::floor(buckets as f64 * SLOTS as f64 * PLANNED_LOAD).max(1.0) as u64;
        let params = CuckooParams { buckets, fingerprint_bits, planned_items: items, planned_fpr: 0.5 };
        let params = CuckooParams { planned_fpr: fpr_bound(fingerprint_bits).min(0.5), ..params };
        params.validate()?;
        Ok(params)
    }

    /// Checks every field.
    pub fn validate(&self) -> Result<()> {
        let ok = (1..=MAX_BUCKETS).contains(&self.buckets)
            && matches!(self.fingerprint_bits, 8 | 12 | 16)
            && self.planned_items >= 1
            && filter::valid_fpr(self.planned_fpr);
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidParameter)
        }
    }

    /// Exact image size in bytes (a multiple of 64).
    pub fn image_len(&self) -> Result<u64> {
        self.validate()?;
        Ok(image::padded_len(HEADER_LEN as u64 + self.body_len()))
    }

    /// Bytes of slots.
    fn body_len(&self) -> u64 {
        let bits = self.buckets.saturating_mul(SLOTS).saturating_mul(u64::from(self.fingerprint_bits));
        bits.div_ceil(64) * 8
    }
}

/// Statistics of a cuckoo filter.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CuckooStats {
    /// Parameters.
    pub params: CuckooParams,
    /// Hash seed.
    pub seed: u64,
    /// Stored items (fingerprints).
    pub items: u64,
    /// Load: items / (buckets · 4).
    pub load: f64,
    /// Current false-positive rate bound at this load: `1 - (1 - 1/(2^f-1))^(8·load)`.
    pub estimated_fpr: f64,
    /// Over-capacity signal.
    pub capacity: filter::CapacityFlags,
}

/// Marker type tying the cuckoo layout to the image format.
pub struct CuckooImage;

/// Validated cuckoo layout.
#[derive(Copy, Clone, Debug)]
pub struct CuckooLayout {
    params: CuckooParams,
}

impl ImageFamily for CuckooImage {
    const FAMILY: FamilyId = FamilyId::Cuckoo;
    type Layout = CuckooLayout;

    #[inline]
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<CuckooLayout> {
        if common.hash != HashKind::Xxh3 {
            return Err(Error::UnsupportedHash);
        }
        if common.header_len != HEADER_LEN || common.flags != 0 {
            return Err(Error::CorruptHeader);
        }
        let field = |off: usize| get_u64(image, off).ok_or(Error::BufferTooSmall);
        let params = CuckooParams {
            buckets: field(OFF_BUCKETS)?,
            fingerprint_bits: get_u32(image, OFF_BITS).ok_or(Error::BufferTooSmall)?,
            planned_items: field(OFF_PLANNED_ITEMS)?,
            planned_fpr: get_f64(image, OFF_PLANNED_FPR).ok_or(Error::BufferTooSmall)?,
        };
        let expected = params.image_len().map_err(|_| Error::CorruptHeader)?;
        let reserved_zero = image::zeroed(image, 60..64) && image::zeroed(image, 96..HEADER_LEN);
        if image.len() as u64 != expected || !reserved_zero {
            return Err(Error::CorruptHeader);
        }
        if field(OFF_ITEMS)? > params.buckets * SLOTS {
            return Err(Error::CorruptHeader);
        }
        Ok(CuckooLayout { params })
    }

    #[inline]
    fn body_len(_common: &CommonHeader, layout: &CuckooLayout) -> usize {
        layout.params.body_len() as usize
    }
}

/// Exact image size in bytes for `params`.
pub fn image_len(params: &CuckooParams) -> Result<u64> {
    params.image_len()
}

/// Writes an empty cuckoo filter into `buf`. Errors as for [`crate::bloom::init`].
pub fn init<'a>(buf: &'a mut [u8], params: &CuckooParams, seed: u64) -> Result<CuckooMut<'a>> {
    let image_len = params.image_len()?;
    let fresh = Fresh {
        family: FamilyId::Cuckoo,
        hash: HashKind::Xxh3,
        header_len: HEADER_LEN,
        flags: 0,
        seed,
        image_len,
    };
    let image = image::start_image(buf, fresh)?;
    put_u64(image, OFF_BUCKETS, params.buckets);
    put_u32(image, OFF_BITS, params.fingerprint_bits);
    put_u64(image, OFF_PLANNED_ITEMS, params.planned_items);
    put_f64(image, OFF_PLANNED_FPR, params.planned_fpr);
    put_u64(image, OFF_KICK_STATE, initial_kick_state(seed));
    wrap_mut(image)
}

/// Validates a live image and returns a read-only view (zero-copy).
#[inline]
pub fn wrap(buf: &[u8]) -> Result<Cuckoo<'_>> {
    let p = image::split::<CuckooImage>(buf)?;
    Ok(Cuckoo { header: p.header, body: p.body, params: p.layout.params, seed: p.common.seed })
}

/// Validates a live image and returns a mutable view (zero-copy).
#[inline]
pub fn wrap_mut(buf: &mut [u8]) -> Result<CuckooMut<'_>> {
    let p = image::split_mut::<CuckooImage>(buf)?;
    Ok(CuckooMut { header: p.header, body: p.body, params: p.layout.params, seed: p.common.seed })
}
/// The number of bytes [`export`] writes for the live image in `src` (its
/// image length), so a destination can be sized first. Errors: image errors.
pub fn exported_len(src: &[u8]) -> Result<usize> {
    image::exported_len::<CuckooImage>(src)
}

/// Copies the live image to `dst` with its checksum. Returns the bytes written.
///
/// Errors: as [`crate::image::export`].
pub fn export(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::export::<CuckooImage>(src, dst)
}

/// Bytes of the live image that importing the exported image `src` writes
/// (allocate this much, 64-byte aligned, before [`import`]). Checks the
/// headers and the length, not the checksum.
///
/// Errors: as [`crate::image::import_len`].
pub fn import_len(src: &[u8]) -> Result<usize> {
    image::import_len::<CuckooImage>(src)
}

/// Verifies untrusted bytes and copies them into the aligned `dst`.
///
/// Errors: as [`crate::image::import`].
pub fn import(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::import::<CuckooImage>(src, dst)
}

/// Verifies untrusted bytes in place.
///
/// Errors: as [`crate::image::verify`].
pub fn verify(bytes: &[u8]) -> Result<()> {
    image::verify::<CuckooImage>(bytes).map(|_| ())
}

#[inline(always)]
fn slot_get(body: &[u8], bits: u32, slot: u64) -> u32 {
    let pos = slot * u64::from(bits);
    let (byte, shift) = ((pos >> 3) as usize, (pos & 7) as u32);
    let mut word = 0u32;
    for k in 0..3 {
        word |= u32::from(body.get(byte + k).copied().unwrap_or(0)) << (8 * k);
    }
    (word >> shift) & ((1u32 << bits) - 1)
}

#[inline(always)]
fn slot_set(body: &mut [u8], bits: u32, slot: u64, value: u32) {
    let pos = slot * u64::from(bits);
    let (byte, shift) = ((pos >> 3) as usize, (pos & 7) as u32);
    let mask = ((1u32 << bits) - 1) << shift;
    let mut word = 0u32;
    for k in 0..3 {
        word |= u32::from(body.get(byte + k).copied().unwrap_or(0)) << (8 * k);
    }
    word = (word & !mask) | ((value << shift) & mask);
    for k in 0..3 {
        if let Some(b) = body.get_mut(byte + k) {
            *b = (word >> (8 * k)) as u8;
        }
    }
}

/// Bucket geometry and fingerprint derivation of one filter.
#[derive(Copy, Clone, Debug)]
struct Geometry {
    buckets: u64,
    bits: u32,
}

impl Geometry {
    fn of(p: &CuckooParams) -> Self {
        Geometry { buckets: p.buckets, bits: p.fingerprint_bits }
    }

    /// First bucket and fingerprint (1 ..= 2^f - 1) of a hash.
    #[inline(always)]
    fn locate(self, h: u64) -> (u64, u32) {
        let mask = (1u64 << self.bits) - 1;
        let fp = (h & mask) as u32;
        (hash::reduce(h, self.buckets), if fp == 0 { 1 } else { fp })
    }

    /// The other bucket of `fp` (an involution for any bucket count).
    #[inline(always)]
    fn alt(self, bucket: u64, fp: u32) -> u64 {
        let h = hash::reduce(hash::remix(u64::from(fp)), self.buckets);
        // h, bucket < B, so h + B - bucket lies in (0, 2B): one conditional
        // subtraction replaces a 64-bit division.
        let sum = h + self.buckets - bucket.min(self.buckets - 1);
        if sum >= self.buckets {
            sum - self.buckets
        } else {
            sum
        }
    }

    /// The whole bucket as one little-endian word: buckets start on byte
    /// boundaries (4·f bits = 4, 6 or 8 bytes), so one load reads all slots.
    #[inline(always)]
    fn bucket_word(self, body: &[u8], bucket: u64) -> u64 {
        // Constant-size reads per width (a variable-length copy would be a
        // memcpy call on the hot path).
        let b = bucket as usize;
        match self.bits {
            8 => body
                .get(b.saturating_mul(4)..)
                .and_then(|r| r.first_chunk::<4>())
                .map_or(0, |w| u64::from(u32::from_le_bytes(*w))),
            16 => body
                .get(b.saturating_mul(8)..)
                .and_then(|r| r.first_chunk::<8>())
                .map_or(0, |w| u64::from_le_bytes(*w)),
            // Six bytes: one 8-byte load with the two bytes past the
            // bucket masked off, except for a last bucket that ends the body.
            _ => match body.get(b.saturating_mul(6)..) {
                Some(r) => match r.first_chunk::<8>() {
                    Some(w) => u64::from_le_bytes(*w) & 0xFFFF_FFFF_FFFF,
                    None => r.first_chunk::<6>().map_or(0, |&[b0, b1, b2, b3, b4, b5]| {
                        u64::from_le_bytes([b0, b1, b2, b3, b4, b5, 0, 0])
                    }),
                },
                None => 0,
            },
        }
    }

    /// Requests both buckets of `h` into the cache (a hint: batch adds and
    /// removals call it a few keys ahead so their cache misses overlap).
    #[inline(always)]
    fn prefetch(self, body: &[u8], h: u64) {
        let (i1, fp) = self.locate(h);
        let bytes_per_bucket = u64::from(self.bits) / 2; // 4 slots of `bits` bits
        for bucket in [i1, self.alt(i1, fp)] {
            crate::simd::prefetch(body, bucket.saturating_mul(bytes_per_bucket) as usize);
        }
    }

    /// Slots of `bucket` holding `fp`.
    #[inline(always)]
    fn matches(self, body: &[u8], bucket: u64, fp: u32) -> u32 {
        self.matches_in(self.bucket_word(body, bucket), fp)
    }

    /// The lowest and the highest bit of each of a bucket word's four
    /// slots, as two masks.
    #[inline(always)]
    fn slot_bits(self) -> (u64, u64) {
        let ones = (1u64 | 1 << self.bits | 1 << (2 * self.bits)) | 1 << (3 * self.bits);
        (ones, ones << (self.bits - 1))
    }

    /// Whether any slot of a bucket word holds `fp` (never 0, the empty
    /// slot), for all four slots at once: `x = word ^ (fp in every slot)`
    /// has a zero slot exactly where `fp` is stored, and `(x - ones) & !x &
    /// highs` is non-zero exactly when some slot of `x` is zero (a borrow
    /// can only run upward from a zero slot, so it never creates the first
    /// one). Slots above the bucket's four are zero in `ones` and `highs`.
    #[inline(always)]
    fn holds(self, word: u64, fp: u32) -> bool {
        let (ones, highs) = self.slot_bits();
        let x = word ^ (ones * u64::from(fp));
        x.wrapping_sub(ones) & !x & highs != 0
    }

    /// The slots of a bucket word equal to `value`, exactly, as a mask with
    /// the top bit of each such slot set. Per slot of `x = word ^ (value in
    /// every slot)`: adding "all ones below the top bit" to its low bits
    /// carries into its top bit unless they are zero, and never out of the
    /// slot; with `x`'s own top bit, the top bit ends up clear only for a
    /// zero slot.
    #[inline(always)]
    fn slots_equal(self, word: u64, value: u32) -> u64 {
        let (ones, highs) = self.slot_bits();
        let lows = highs - ones;
        let x = word ^ (ones * u64::from(value));
        !(((x & lows) + lows) | x | lows) & highs
    }

    /// The first slot of `bucket` (its index in the body) holding `value`.
    #[inline(always)]
    fn first_slot(self, body: &[u8], bucket: u64, value: u32) -> Option<u64> {
        let found = self.slots_equal(self.bucket_word(body, bucket), value);
        (found != 0)
            .then(|| bucket * SLOTS + u64::from(found.trailing_zeros().checked_div(self.bits).unwrap_or(0)))
    }

    /// Slots of a bucket word holding `fp`.
    #[inline(always)]
    fn matches_in(self, word: u64, fp: u32) -> u32 {
        self.slots_equal(word, fp).count_ones()
    }

    fn empty_slot(self, body: &[u8], bucket: u64) -> Option<u64> {
        self.first_slot(body, bucket, 0)
    }
}

/// A read-only view of a validated cuckoo image.
#[derive(Copy, Clone)]
pub struct Cuckoo<'a> {
    header: &'a [u8],
    body: &'a [u8],
    params: CuckooParams,
    seed: u64,
}

crate::image::debug_view!(Cuckoo [params, seed]);

impl<'a> Cuckoo<'a> {
    /// Parameters.
    pub fn params(&self) -> CuckooParams {
        self.params
    }

    /// The hash seed stored in the image.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash function and seed of this image.
    pub fn key_hasher(&self) -> hash::KeyHasher {
        hash::KeyHasher { kind: HashKind::Xxh3, seed: self.seed }
    }

    /// True when `key` may be in the filter.
    pub fn contains(&self, key: &[u8]) -> bool {
        self.contains_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`Cuckoo::contains`] for an integer key.
    pub fn contains_u64(&self, key: u64) -> bool {
        self.contains_hash(hash::hash_u64(key, self.seed))
    }

    /// [`Cuckoo::contains`] for a precomputed hash.
    pub fn contains_hash(&self, hash: u64) -> bool {
        // One copy per fingerprint width, as in the batch: masks, shifts and
        // the bucket load are then constants (callgrind, 12-bit: 96 -> 76
        // instructions per query). Validated views hold 8, 12 or 16.
        let g = Geometry::of(&self.params);
        match g.bits {
            8 => self.contains_in(Geometry { bits: 8, ..g }, hash),
            12 => self.contains_in(Geometry { bits: 12, ..g }, hash),
            _ => self.contains_in(Geometry { bits: 16, ..g }, hash),
        }
    }

    /// [`Cuckoo::contains_hash`] with the geometry `g` (width a constant).
    #[inline(always)]
    fn contains_in(&self, g: Geometry, hash: u64) -> bool {
        let (i1, fp) = g.locate(hash);
        // Both buckets are read unconditionally (no short circuit): the two
        // loads are independent, so their cache misses overlap, and no
        // branch depends on the first one.
        g.holds(g.bucket_word(self.body, i1), fp) | g.holds(g.bucket_word(self.body, g.alt(i1, fp)), fp)
    }

    /// How many copies of `key`'s fingerprint are stored (an upper bound of
    /// how often it was added and not removed).
    pub fn count(&self, key: &[u8]) -> u32 {
        self.count_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`Cuckoo::count`] for an integer key (hashed as its 8 little-endian
    /// bytes, as [`CuckooMut::add_u64`] stores it).
    pub fn count_u64(&self, key: u64) -> u32 {
        self.count_hash(hash::hash_u64(key, self.seed))
    }

    /// [`Cuckoo::count`] for a precomputed hash.
    pub fn count_hash(&self, hash: u64) -> u32 {
        let g = Geometry::of(&self.params);
        let (i1, fp) = g.locate(hash);
        let i2 = g.alt(i1, fp);
        let first = g.matches(self.body, i1, fp);
        if i2 == i1 {
            first
        } else {
            first + g.matches(self.body, i2, fp)
        }
    }

    /// Batch query. Errors: [`Error::InvalidArgument`] on a length mismatch.
    pub fn contains_hashes(&self, hashes: &[u64], results: &mut [bool]) -> Result<()> {
        if hashes.len() != results.len() {
            return Err(Error::InvalidArgument);
        }
        // One copy of the loop per fingerprint width: the width is then a
        // constant (slot masks, bucket size, the load's shape) instead of
        // a test per bucket. Validated views hold 8, 12 or 16.
        let g = Geometry::of(&self.params);
        match g.bits {
            8 => self.contains_groups(Geometry { bits: 8, ..g }, hashes, results),
            12 => self.contains_groups(Geometry { bits: 12, ..g }, hashes, results),
            _ => self.contains_groups(Geometry { bits: 16, ..g }, hashes, results),
        }
        Ok(())
    }

    /// [`Cuckoo::contains_hashes`] for slices of equal length.
    #[inline(always)]
    fn contains_groups(&self, g: Geometry, hashes: &[u64], results: &mut [bool]) {
        // Whole groups as arrays, then the remainder (no `chunks` zip: its
        // length division keeps a panic path when not inlined).
        let (groups, hashes_rest) = hashes.as_chunks::<CONTAINS_GROUP>();
        let (result_groups, results_rest) = results.as_chunks_mut::<CONTAINS_GROUP>();
        for (hs, rs) in groups.iter().zip(result_groups) {
            self.contains_group(g, hs, rs);
        }
        self.contains_group(g, hashes_rest, results_rest);
    }

    /// [`Cuckoo::contains_hashes`] of one group of at most
    /// [`CONTAINS_GROUP`] hashes, in two phases: locate every item, then read
    /// all their buckets (independent loads whose cache misses overlap), then test.
    #[inline(always)]
    fn contains_group(&self, g: Geometry, hs: &[u64], rs: &mut [bool]) {
        let mut located = [(0u64, 0u64, 0u32); CONTAINS_GROUP];
        for (l, h) in located.iter_mut().zip(hs) {
            let (i1, fp) = g.locate(*h);
            *l = (i1, g.alt(i1, fp), fp);
        }
        let mut words = [(0u64, 0u64); CONTAINS_GROUP];
        for (w, l) in words.iter_mut().zip(&located) {
            *w = (g.bucket_word(self.body, l.0), g.bucket_word(self.body, l.1));
        }
        for ((r, w), l) in rs.iter_mut().zip(&words).zip(&located) {
            *r = g.holds(w.0, l.2) | g.holds(w.1, l.2);
        }
    }

    /// Stored items.
    pub fn items(&self) -> u64 {
        get_u64(self.header, OFF_ITEMS).unwrap_or(0)
    }

    /// All statistics, O(1).
    pub fn stats(&self) -> CuckooStats {
        let items = self.items();
        let load = items as f64 / (self.params.buckets * SLOTS) as f64;
        let values = ((1u64 << self.params.fingerprint_bits) - 1) as f64;
        let estimated_fpr = 1.0 - libm::pow(1.0 - 1.0 / values, 2.0 * SLOTS as f64 * load);
        CuckooStats {
            params: self.params,
            seed: self.seed,
            items,
            load,
            estimated_fpr,
            capacity: filter::CapacityFlags::evaluate(
                items,
                self.params.planned_items,
                estimated_fpr,
                self.params.planned_fpr,
            ),
        }
    }

    /// True when `other` has the same buckets, fingerprint width and seed.
    pub fn is_compatible(&self, other: &Cuckoo<'_>) -> bool {
        self.params.buckets == other.params.buckets
            && self.params.fingerprint_bits == other.params.fingerprint_bits
            && self.seed == other.seed
    }
}

/// An exclusive, mutable view of a validated cuckoo image.
pub struct CuckooMut<'a> {
    header: &'a mut [u8],
    body: &'a mut [u8],
    params: CuckooParams,
    seed: u64,
}

crate::image::debug_view!(CuckooMut [params, seed]);

impl<'a> CuckooMut<'a> {
    /// A read-only view of the same image.
    pub fn as_ref(&self) -> Cuckoo<'_> {
        Cuckoo { header: self.header, body: self.body, params: self.params, seed: self.seed }
    }

    /// Adds `key`. Errors: [`Error::Full`] when it cannot be placed within
    /// [`MAX_KICKS`] relocations; the filter is then unchanged.
    pub fn add(&mut self, key: &[u8]) -> Result<()> {
        self.add_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`CuckooMut::add`] for an integer key.
    pub fn add_u64(&mut self, key: u64) -> Result<()> {
        self.add_hash(hash::hash_u64(key, self.seed))
    }

    /// [`CuckooMut::add`] for a precomputed hash.
    pub fn add_hash(&mut self, hash: u64) -> Result<()> {
        let g = Geometry::of(&self.params);
        let (i1, fp) = g.locate(hash);
        self.place(g, i1, fp)
    }

    /// Places `fp` in bucket `i1` or its alternate, relocating if needed;
    /// undoes every relocation on failure.
    fn place(&mut self, g: Geometry, i1: u64, fp: u32) -> Result<()> {
        let i2 = g.alt(i1, fp);
        for bucket in [i1, i2] {
            if let Some(slot) = g.empty_slot(self.body, bucket) {
                slot_set(self.body, g.bits, slot, fp);
                self.bump_items(1);
                return Ok(());
            }
        }
        self.relocate(g, i1, i2, fp)
    }

    /// Cuckoo relocation, undone exactly when it fails, without a log.
    ///
    /// Step `t` puts the carried fingerprint into slot `c_t` of bucket `b_t`
    /// and carries the one it evicts, `e_t`, to `b_(t+1) = alt(b_t, e_t)`.
    /// The slot choices come from a counter-based generator (output `k` is
    /// `remix(state + k·G)`), so `c_t` can be recomputed; and `alt` is an
    /// involution, so `b_t = alt(b_(t+1), e_t)`. Walking back from the last
    /// step therefore restores every slot from the carried fingerprint
    /// alone: no undo log (the earlier one took 8 KiB of stack), O(1) stack.
    #[cold]
    #[inline(never)]
    fn relocate(&mut self, g: Geometry, i1: u64, i2: u64, fp: u32) -> Result<()> {
        let start = get_u64(self.header, OFF_KICK_STATE).unwrap_or(0);
        // Output k (k >= 1) of the generator started at `start`.
        let output = |k: u64| hash::remix(start.wrapping_add(k.wrapping_mul(KICK_STEP)));
        let choice = |step: u64| output(step + 2) % SLOTS;
        let mut bucket = if output(1) & 1 == 0 { i1 } else { i2 };
        let mut carried = fp;
        for step in 0..u64::from(MAX_KICKS) {
            let slot = bucket * SLOTS + choice(step);
            let evicted = slot_get(self.body, g.bits, slot);
            slot_set(self.body, g.bits, slot, carried);
            carried = evicted;
            bucket = g.alt(bucket, carried);
            if let Some(free) = g.empty_slot(self.body, bucket) {
                slot_set(self.body, g.bits, free, carried);
                self.bump_items(1);
                let used = step + 2; // outputs consumed: the bucket choice and step + 1 slot choices
                put_u64(self.header, OFF_KICK_STATE, start.wrapping_add(used.wrapping_mul(KICK_STEP)));
                return Ok(());
            }
        }
        // Undo, last step first: the slot of step t holds what step t put
        // there; it gets back what it held (the fingerprint carried out of
        // step t), and what it held before becomes the carried one again.
        for step in (0..u64::from(MAX_KICKS)).rev() {
            bucket = g.alt(bucket, carried);
            let slot = bucket * SLOTS + choice(step);
            let placed = slot_get(self.body, g.bits, slot);
            slot_set(self.body, g.bits, slot, carried);
            carried = placed;
        }
        debug_assert_eq!(carried, fp, "the undo walks back to the fingerprint being added");
        Err(Error::Full)
    }

    fn bump_items(&mut self, delta: i64) {
        let cur = get_u64(self.header, OFF_ITEMS).unwrap_or(0);
        let next = if delta >= 0 {
            cur.saturating_add(delta as u64)
        } else {
            cur.saturating_sub(delta.unsigned_abs())
        };
        // Within what validation accepts even when a forged header
        // undercounts the stored fingerprints (else every later call fails).
        put_u64(self.header, OFF_ITEMS, next.min(self.params.buckets.saturating_mul(SLOTS)));
    }

    /// Removes one copy of `key`'s fingerprint.
    /// Errors: [`Error::NotPresent`] when none is stored (nothing changes).
    /// Removing a key that was never added may remove another key's
    /// matching fingerprint (a false positive): only remove added keys.
    pub fn remove(&mut self, key: &[u8]) -> Result<()> {
        self.remove_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`CuckooMut::remove`] for an integer key.
    pub fn remove_u64(&mut self, key: u64) -> Result<()> {
        self.remove_hash(hash::hash_u64(key, self.seed))
    }

    /// [`CuckooMut::remove`] for a precomputed hash.
    pub fn remove_hash(&mut self, hash: u64) -> Result<()> {
        let g = Geometry::of(&self.params);
        let (i1, fp) = g.locate(hash);
        for bucket in [i1, g.alt(i1, fp)] {
            if let Some(slot) = g.first_slot(self.body, bucket, fp) {
                slot_set(self.body, g.bits, slot, 0);
                self.bump_items(-1);
                return Ok(());
            }
        }
        Err(Error::NotPresent)
    }

    /// Batch add: `added[i]` (optional, same length) tells whether item `i`
    /// was stored (false: full, nothing changed for it); a full filter does
    /// not stop the batch. Errors: [`Error::InvalidArgument`] on a length
    /// mismatch (nothing added).
    pub fn add_hashes(&mut self, hashes: &[u64], mut added: Option<&mut [bool]>) -> Result<()> {
        if added.as_ref().is_some_and(|a| a.len() != hashes.len()) {
            return Err(Error::InvalidArgument);
        }
        let g = Geometry::of(&self.params);
        for (i, h) in hashes.iter().enumerate() {
            // The buckets of a key a few places ahead load while this one is
            // placed (relocations keep the adds themselves in order).
            if let Some(ahead) = hashes.get(i + crate::filter::PREFETCH_DISTANCE) {
                g.prefetch(self.body, *ahead);
            }
            let stored = self.add_hash(*h).is_ok();
            if let Some(slot) = added.as_deref_mut().and_then(|a| a.get_mut(i)) {
                *slot = stored;
            }
        }
        Ok(())
    }

    /// Batch remove: `removed[i]` (optional, same length) tells whether one
    /// copy of item `i`'s fingerprint was removed (false: none stored,
    /// nothing changed for it). Errors: [`Error::InvalidArgument`] on a
    /// length mismatch (nothing removed).
    pub fn remove_hashes(&mut self, hashes: &[u64], mut removed: Option<&mut [bool]>) -> Result<()> {
        if removed.as_ref().is_some_and(|r| r.len() != hashes.len()) {
            return Err(Error::InvalidArgument);
        }
        let g = Geometry::of(&self.params);
        for (i, h) in hashes.iter().enumerate() {
            if let Some(ahead) = hashes.get(i + crate::filter::PREFETCH_DISTANCE) {
                g.prefetch(self.body, *ahead);
            }
            let gone = self.remove_hash(*h).is_ok();
            if let Some(slot) = removed.as_deref_mut().and_then(|r| r.get_mut(i)) {
                *slot = gone;
            }
        }
        Ok(())
    }

    /// Merge: inserts every fingerprint of `src` (same buckets, width and
    /// seed). All or nothing: `scratch` (at least this image's length,
    /// 8-byte aligned) receives a copy that is filled first; only when every
    /// fingerprint fits is it copied back.
    ///
    /// Errors: [`Error::Incompatible`]; [`Error::Full`] (this filter unchanged);
    /// [`Error::BufferTooSmall`] / [`Error::Misaligned`] for `scratch`.
    pub fn merge(&mut self, src: &Cuckoo<'_>, scratch: &mut [u8]) -> Result<()> {
        if !self.as_ref().is_compatible(src) {
            return Err(Error::Incompatible);
        }
        // The scratch must hold a whole image (padding included), as documented.
        let image_len = image::padded_len((self.header.len() + self.body.len()) as u64) as usize;
        // Length first, then alignment: an empty or NULL scratch is too small.
        let work = scratch.get_mut(..image_len).ok_or(Error::BufferTooSmall)?;
        if !image::is_aligned(work) {
            return Err(Error::Misaligned);
        }
        let (wh, rest) = work.split_at_mut_checked(self.header.len()).ok_or(Error::BufferTooSmall)?;
        let wb = rest.get_mut(..self.body.len()).ok_or(Error::BufferTooSmall)?;
        copy_bytes(wh, self.header);
        copy_bytes(wb, self.body);
        let mut target = CuckooMut { header: wh, body: wb, params: self.params, seed: self.seed };
        let g = Geometry::of(&self.params);
        for slot in 0..self.params.buckets * SLOTS {
            let fp = slot_get(src.body, g.bits, slot);
            if fp != 0 {
                target.place(g, slot / SLOTS, fp)?;
            }
        }
        copy_bytes(self.header, target.header);
        copy_bytes(self.body, target.body);
        Ok(())
    }

    /// Removes everything: the image equals a freshly initialized one
    /// (the relocation generator restarts too, so the same adds after a
    /// clear give the same bytes).
    pub fn clear(&mut self) {
        self.body.fill(0);
        put_u64(self.header, OFF_ITEMS, 0);
        put_u64(self.header, OFF_KICK_STATE, initial_kick_state(self.seed));
    }
}

/// The relocation generator's state in a fresh image.
fn initial_kick_state(seed: u64) -> u64 {
    seed ^ 0x6a09_e667_f3bc_c908
}

#[cfg(test)]
mod tests;
