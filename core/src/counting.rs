//! Counting Bloom filter: `m` 4-bit saturating counters, `k` probes per key,
//! with removal.
//!
//! A counter that reaches 15 stays at 15 forever (it is never decremented),
//! so no sequence of adds and removes of present items can produce a false
//! negative. Removing an item that is not in (some probed counter is 0)
//! returns [`Error::NotPresent`] and changes nothing.
//!
//! Probes are the same as the classic Bloom filter's ([`crate::hash::probes`]
//! over `m` counters). Planning uses [`BloomParams`] (m = counters).
//!
//! # Example
//!
//! ```
//! use sketches_core::bloom::BloomParams;
//! use sketches_core::{counting, Error};
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), Error> {
//! let params = BloomParams::for_items(1_000, 0.01)?; // m counters, k probes
//! assert!(counting::image_len(&params)? <= 8192); // 4,928 bytes: 4 bits per counter
//!
//! let (mut buf_a, mut buf_b) = (ImageBuf::<8192>::new(), ImageBuf::<8192>::new());
//! let mut a = counting::init(&mut buf_a, &params, 1)?;
//! a.add(b"apple");
//! a.add(b"pear");
//! a.remove(b"pear")?;
//! assert!(a.as_ref().contains(b"apple") && !a.as_ref().contains(b"pear"));
//! assert_eq!(a.remove(b"plum"), Err(Error::NotPresent)); // never added: nothing changes
//!
//! let mut b = counting::init(&mut buf_b, &params, 1)?;
//! b.add(b"fig");
//! a.merge(&b.as_ref())?; // adds the counters (saturating at 15)
//! assert_eq!(a.as_ref().items(), 2);
//!
//! let mut wire = [0u8; 8192];
//! let n = counting::export(&buf_a, &mut wire)?;
//! let mut copy = ImageBuf::<8192>::new();
//! counting::import(&wire[..n], &mut copy)?;
//! let copy = counting::wrap(&copy)?;
//! assert!(copy.contains(b"fig") && copy.contains(b"apple"));
//! # Ok(())
//! # }
//! ```
//!
//! Image layout after the common header (little-endian):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 48  | 8 | `m`, number of counters (1 ..= [`MAX_COUNTERS`]) |
//! | 56  | 4 | `k`, probes per key (1 ..= 64) |
//! | 60  | 4 | reserved, 0 |
//! | 64  | 8 | planned items |
//! | 72  | 8 | planned false-positive rate (f64) |
//! | 80  | 8 | add calls |
//! | 88  | 8 | successful removals |
//! | 96  | 8 | non-zero counters |
//! | 104 | 8 | saturated counters (value 15) |
//! | 112 | 16 | reserved, 0 |
//! | 128 | ⌈m/16⌉·8 | counters: counter `i` is the low nibble of byte `i/2` when `i` is even, the high nibble when odd |
//! | … | 0..63 | zero padding to a multiple of 64 bytes (every live image length is) |
//!
//! Thread-safety as for [`crate::bloom`].

use crate::bloom::BloomParams;
use crate::error::{Error, Result};
use crate::filter::CapacityFlags;
use crate::hash::{self, HashKind, KeyHasher};
use crate::image::{self, get_f64, get_u32, get_u64, put_f64, put_u32, put_u64};
use crate::image::{CommonHeader, FamilyId, Fresh, ImageFamily};

/// Byte length of the counting Bloom header.
pub const HEADER_LEN: usize = 128;
/// Largest number of counters.
pub const MAX_COUNTERS: u64 = 1 << 56;
/// The saturation value of a counter.
pub const SATURATED: u8 = 15;

const OFF_COUNTERS: usize = 48;
const OFF_HASHES: usize = 56;
const OFF_PLANNED_ITEMS: usize = 64;
const OFF_PLANNED_FPR: usize = 72;
const OFF_ADD_CALLS: usize = 80;
const OFF_REMOVES: usize = 88;
const OFF_NONZERO: usize = 96;
const OFF_SATURATED: usize = 104;

/// Exact image size in bytes for `params` (`params.bits` = counters).
pub fn image_len(params: &BloomParams) -> Result<u64> {
    params.validate()?;
    Ok(image::padded_len(HEADER_LEN as u64 + body_len(params.bits)))
}

/// Bytes of counters for `counters` counters (two per byte, whole words).
fn body_len(counters: u64) -> u64 {
    counters.div_ceil(16) * 8
}

/// Statistics of a counting Bloom filter.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CountingStats {
    /// Parameters (`bits` = counters).
    pub params: BloomParams,
    /// Hash seed.
    pub seed: u64,
    /// Add calls.
    pub add_calls: u64,
    /// Successful removals.
    pub removes: u64,
    /// Items currently stored: add calls minus successful removals.
    pub items: u64,
    /// Counters above zero.
    pub nonzero_counters: u64,
    /// Counters stuck at 15 (never decremented again).
    pub saturated_counters: u64,
    /// Current false-positive rate estimated from the non-zero counters, `(nz/m)^k`.
    pub estimated_fpr: f64,
    /// Over-capacity signal (items against the plan, FPR against twice the plan).
    pub capacity: CapacityFlags,
}

/// Marker type tying the counting layout to the image format.
pub struct CountingImage;

/// Validated counting layout.
#[derive(Copy, Clone, Debug)]
pub struct CountingLayout {
    params: BloomParams,
}

impl ImageFamily for CountingImage {
    const FAMILY: FamilyId = FamilyId::CountingBloom;
    type Layout = CountingLayout;

    #[inline]
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<CountingLayout> {
        if common.hash != HashKind::Xxh3 {
            return Err(Error::UnsupportedHash);
        }
        if common.header_len != HEADER_LEN || common.flags != 0 {
            return Err(Error::CorruptHeader);
        }
        let field = |off: usize| get_u64(image, off).ok_or(Error::BufferTooSmall);
        let params = BloomParams {
            bits: field(OFF_COUNTERS)?,
            hashes: get_u32(image, OFF_HASHES).ok_or(Error::BufferTooSmall)?,
            planned_items: field(OFF_PLANNED_ITEMS)?,
            planned_fpr: get_f64(image, OFF_PLANNED_FPR).ok_or(Error::BufferTooSmall)?,
        };
        let expected = image_len(&params).map_err(|_| Error::CorruptHeader)?;
        let reserved_zero = image::zeroed(image, 60..64) && image::zeroed(image, 112..HEADER_LEN);
        if image.len() as u64 != expected || params.bits > MAX_COUNTERS || !reserved_zero {
            return Err(Error::CorruptHeader);
        }
        let (nonzero, saturated) = (field(OFF_NONZERO)?, field(OFF_SATURATED)?);
        if field(OFF_REMOVES)? > field(OFF_ADD_CALLS)? || nonzero > params.bits || saturated > nonzero {
            return Err(Error::CorruptHeader);
        }
        Ok(CountingLayout { params })
    }

    #[inline]
    fn body_len(_common: &CommonHeader, layout: &CountingLayout) -> usize {
        body_len(layout.params.bits) as usize
    }
}

/// Writes an empty counting filter into `buf` (8-byte aligned, at least
/// [`image_len`] bytes). Errors as for [`crate::bloom::init`].
pub fn init<'a>(buf: &'a mut [u8], params: &BloomParams, seed: u64) -> Result<CountingMut<'a>> {
    let image_len = image_len(params)?;
    if params.bits > MAX_COUNTERS {
        return Err(Error::InvalidParameter);
    }
    let family = FamilyId::CountingBloom;
    let fresh = Fresh { family, hash: HashKind::Xxh3, header_len: HEADER_LEN, flags: 0, seed, image_len };
    let image = image::start_image(buf, fresh)?;
    put_u64(image, OFF_COUNTERS, params.bits);
    put_u32(image, OFF_HASHES, params.hashes);
    put_u64(image, OFF_PLANNED_ITEMS, params.planned_items);
    put_f64(image, OFF_PLANNED_FPR, params.planned_fpr);
    wrap_mut(image)
}

/// Validates a live image and returns a read-only view (zero-copy).
#[inline]
pub fn wrap(buf: &[u8]) -> Result<Counting<'_>> {
    let p = image::split::<CountingImage>(buf)?;
    Ok(Counting { header: p.header, body: p.body, params: p.layout.params, seed: p.common.seed })
}

/// Validates a live image and returns a mutable view (zero-copy).
#[inline]
pub fn wrap_mut(buf: &mut [u8]) -> Result<CountingMut<'_>> {
    let p = image::split_mut::<CountingImage>(buf)?;
    Ok(CountingMut { header: p.header, body: p.body, params: p.layout.params, seed: p.common.seed })
}
/// The number of bytes [`export`] writes for the live image in `src` (its
/// image length), so a destination can be sized first. Errors: image errors.
pub fn exported_len(src: &[u8]) -> Result<usize> {
    image::exported_len::<CountingImage>(src)
}

/// Copies the live image to `dst` with its checksum. Returns the bytes written.
///
/// Errors: as [`crate::image::export`].
pub fn export(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::export::<CountingImage>(src, dst)
}

/// Bytes of the live image that importing the exported image `src` writes
/// (allocate this much, 64-byte aligned, before [`import`]). Checks the
/// headers and the length, not the checksum.
///
/// Errors: as [`crate::image::import_len`].
pub fn import_len(src: &[u8]) -> Result<usize> {
    image::import_len::<CountingImage>(src)
}

/// Verifies untrusted bytes and copies them into the aligned `dst` (written
/// only on success). Returns the image length.
///
/// Errors: as [`crate::image::import`].
pub fn import(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::import::<CountingImage>(src, dst)
}

/// Verifies untrusted bytes in place (exact length, headers, checksum).
///
/// Errors: as [`crate::image::verify`].
pub fn verify(bytes: &[u8]) -> Result<()> {
    image::verify::<CountingImage>(bytes).map(|_| ())
}

#[inline(always)]
fn counter(body: &[u8], i: u64) -> u8 {
    let byte = body.get((i >> 1) as usize).copied().unwrap_or(0);
    (byte >> ((i & 1) * 4)) & 0x0f
}

/// Increments the counters of `hash` (saturating at 15); returns how many
/// became non-zero and how many became saturated.
#[inline(always)]
fn increment(body: &mut [u8], params: BloomParams, hash: u64) -> (i64, i64) {
    increment_at(body, hash::probes(hash, params.hashes, params.bits))
}

/// [`increment`] of the counters at `positions`.
#[inline(always)]
fn increment_at(body: &mut [u8], positions: impl Iterator<Item = u64>) -> (i64, i64) {
    let (mut became_nonzero, mut became_saturated) = (0i64, 0i64);
    for i in positions {
        let c = counter(body, i);
        if c < SATURATED {
            set_counter(body, i, c + 1);
            became_nonzero += i64::from(c == 0);
            became_saturated += i64::from(c + 1 == SATURATED);
        }
    }
    (became_nonzero, became_saturated)
}

#[inline(always)]
fn set_counter(body: &mut [u8], i: u64, value: u8) {
    if let Some(byte) = body.get_mut((i >> 1) as usize) {
        let shift = (i & 1) * 4;
        *byte = (*byte & !(0x0f << shift)) | ((value & 0x0f) << shift);
    }
}

/// Counts (non-zero, saturated) counters by scanning the body.
fn scan(body: &[u8], counters: u64) -> (u64, u64) {
    let (mut nonzero, mut saturated) = (0u64, 0u64);
    for i in 0..counters {
        let c = counter(body, i);
        nonzero += u64::from(c != 0);
        saturated += u64::from(c == SATURATED);
    }
    (nonzero, saturated)
}

/// A read-only view of a validated counting image.
#[derive(Copy, Clone)]
pub struct Counting<'a> {
    header: &'a [u8],
    body: &'a [u8],
    params: BloomParams,
    seed: u64,
}

crate::image::debug_view!(Counting [params, seed]);

impl<'a> Counting<'a> {
    /// Parameters (`bits` = counters).
    pub fn params(&self) -> BloomParams {
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

    /// True when `key` may be in the filter; false means certainly not.
    #[inline]
    pub fn contains(&self, key: &[u8]) -> bool {
        self.contains_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`Counting::contains`] for an integer key.
    #[inline]
    pub fn contains_u64(&self, key: u64) -> bool {
        self.contains_hash(hash::hash_u64(key, self.seed))
    }

    /// [`Counting::contains`] for a precomputed hash.
    #[inline]
    pub fn contains_hash(&self, hash: u64) -> bool {
        hash::probes(hash, self.params.hashes, self.params.bits).all(|i| counter(self.body, i) != 0)
    }

    /// Batch query: `results[i] = contains_hash(hashes[i])`, the first two
    /// counters of each key read in rounds over groups of keys, without
    /// branching on them (see `filter::contains_by_rounds`).
    ///
    /// Errors: [`Error::InvalidArgument`] on a length mismatch (nothing is
    /// written then).
    pub fn contains_hashes(&self, hashes: &[u64], results: &mut [bool]) -> Result<()> {
        if hashes.len() != results.len() {
            return Err(Error::InvalidArgument);
        }
        let body = self.body;
        crate::filter::contains_by_rounds(hashes, results, self.params.hashes, self.params.bits, |i| {
            counter(body, i) != 0
        });
        Ok(())
    }

    /// The value (0..=15) of counter `i`, for inspection; 0 when out of range.
    pub fn counter(&self, i: u64) -> u8 {
        if i < self.params.bits {
            counter(self.body, i)
        } else {
            0
        }
    }

    fn field(&self, off: usize) -> u64 {
        get_u64(self.header, off).unwrap_or(0)
    }

    /// Current false-positive rate from the non-zero counters, `(nz/m)^k`. O(1).
    pub fn estimated_fpr(&self) -> f64 {
        let fill = self.field(OFF_NONZERO).min(self.params.bits) as f64 / self.params.bits as f64;
        libm::pow(fill, f64::from(self.params.hashes))
    }

    /// Items currently stored (add calls minus successful removals). O(1).
    pub fn items(&self) -> u64 {
        self.field(OFF_ADD_CALLS).saturating_sub(self.field(OFF_REMOVES))
    }

    /// Over-capacity signal, O(1).
    pub fn capacity(&self) -> CapacityFlags {
        CapacityFlags::evaluate(
            self.items(),
            self.params.planned_items,
            self.estimated_fpr(),
            self.params.planned_fpr,
        )
    }

    /// All statistics, O(1).
    pub fn stats(&self) -> CountingStats {
        CountingStats {
            params: self.params,
            seed: self.seed,
            add_calls: self.field(OFF_ADD_CALLS),
            removes: self.field(OFF_REMOVES),
            items: self.items(),
            nonzero_counters: self.field(OFF_NONZERO),
            saturated_counters: self.field(OFF_SATURATED),
            estimated_fpr: self.estimated_fpr(),
            capacity: self.capacity(),
        }
    }

    /// True when `other` has the same counters, probes and seed.
    pub fn is_compatible(&self, other: &Counting<'_>) -> bool {
        self.params.bits == other.params.bits
            && self.params.hashes == other.params.hashes
            && self.seed == other.seed
    }

    /// The counter bytes.
    pub fn body(&self) -> &'a [u8] {
        self.body
    }
}

/// An exclusive, mutable view of a validated counting image.
pub struct CountingMut<'a> {
    header: &'a mut [u8],
    body: &'a mut [u8],
    params: BloomParams,
    seed: u64,
}

crate::image::debug_view!(CountingMut [params, seed]);

impl<'a> CountingMut<'a> {
    /// A read-only view of the same image.
    pub fn as_ref(&self) -> Counting<'_> {
        Counting { header: self.header, body: self.body, params: self.params, seed: self.seed }
    }

    fn bump(&mut self, off: usize, delta: i64) {
        let cur = get_u64(self.header, off).unwrap_or(0);
        let next = if delta >= 0 {
            cur.saturating_add(delta as u64)
        } else {
            cur.saturating_sub(delta.unsigned_abs())
        };
        put_u64(self.header, off, next);
    }

    /// Adds `key` (increments its counters, saturating at 15); true when it
    /// was new (some counter was 0).
    #[inline]
    pub fn add(&mut self, key: &[u8]) -> bool {
        self.add_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`CountingMut::add`] for an integer key.
    #[inline]
    pub fn add_u64(&mut self, key: u64) -> bool {
        self.add_hash(hash::hash_u64(key, self.seed))
    }

    /// [`CountingMut::add`] for a precomputed hash.
    pub fn add_hash(&mut self, hash: u64) -> bool {
        let (became_nonzero, became_saturated) = increment(self.body, self.params, hash);
        self.bump(OFF_ADD_CALLS, 1);
        self.bump(OFF_NONZERO, became_nonzero);
        self.bump(OFF_SATURATED, became_saturated);
        self.settle();
        became_nonzero > 0
    }

    /// Keeps the header statistics within what validation accepts
    /// (removes <= add calls, non-zero <= counters, saturated <= non-zero).
    /// They always are for images built by adds and removes; an imported
    /// image whose header disagrees with its counters (forged, with a valid
    /// checksum) would otherwise fail every call after the first update.
    fn settle(&mut self) {
        let field = |h: &[u8], off: usize| get_u64(h, off).unwrap_or(0);
        let calls = field(self.header, OFF_ADD_CALLS);
        let removes = field(self.header, OFF_REMOVES).min(calls);
        let nonzero = field(self.header, OFF_NONZERO).min(self.params.bits);
        let saturated = field(self.header, OFF_SATURATED).min(nonzero);
        put_u64(self.header, OFF_REMOVES, removes);
        put_u64(self.header, OFF_NONZERO, nonzero);
        put_u64(self.header, OFF_SATURATED, saturated);
    }

    /// Removes `key`: decrements its counters (saturated counters stay at 15).
    ///
    /// Errors: [`Error::NotPresent`] when some counter is 0 (counting a
    /// counter probed twice as needing 2): nothing changes then.
    pub fn remove(&mut self, key: &[u8]) -> Result<()> {
        self.remove_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`CountingMut::remove`] for an integer key.
    pub fn remove_u64(&mut self, key: u64) -> Result<()> {
        self.remove_hash(hash::hash_u64(key, self.seed))
    }

    /// [`CountingMut::remove`] for a precomputed hash.
    pub fn remove_hash(&mut self, hash: u64) -> Result<()> {
        let (k, m) = (self.params.hashes, self.params.bits);
        // Check first: each probe needs as many units as it appears among
        // the probes so far (a saturated counter always suffices).
        for (n, i) in hash::probes(hash, k, m).enumerate() {
            let needed = hash::probes(hash, k, m).take(n + 1).filter(|j| *j == i).count();
            let c = counter(self.body, i);
            if c != SATURATED && usize::from(c) < needed {
                return Err(Error::NotPresent);
            }
        }
        let mut became_zero = 0i64;
        for i in hash::probes(hash, k, m) {
            let c = counter(self.body, i);
            if c != SATURATED && c > 0 {
                set_counter(self.body, i, c - 1);
                became_zero += i64::from(c == 1);
            }
        }
        self.bump(OFF_REMOVES, 1);
        self.bump(OFF_NONZERO, -became_zero);
        self.settle();
        Ok(())
    }

    /// Batch add; `newly[i]` (optional, same length) tells whether item `i` was new.
    /// Errors: [`Error::InvalidArgument`] on a length mismatch (nothing added).
    pub fn add_hashes(&mut self, hashes: &[u64], mut newly: Option<&mut [bool]>) -> Result<()> {
        if newly.as_ref().is_some_and(|n| n.len() != hashes.len()) {
            return Err(Error::InvalidArgument);
        }
        // Every probe is written, so every probe is requested ahead; the
        // header counts are updated once for the batch.
        let params = self.params;
        let (mut became_nonzero, mut became_saturated) = (0i64, 0i64);
        let mut record = |i: usize, (nonzero, saturated): (i64, i64)| {
            became_nonzero += nonzero;
            became_saturated += saturated;
            if let Some(slot) = newly.as_deref_mut().and_then(|n| n.get_mut(i)) {
                *slot = nonzero > 0;
            }
        };
        let layout = params.layout(1);
        let mut body = &mut *self.body;
        let ringed = layout.ringed(&mut body, hashes, |body, i, positions| {
            record(i, increment_at(body, positions.iter().copied()));
        });
        if !ringed {
            layout.pipelined(&mut body, hashes, params.hashes, |body, i, h| {
                record(i, increment(body, params, h))
            });
        }
        self.bump(OFF_ADD_CALLS, i64::try_from(hashes.len()).unwrap_or(i64::MAX));
        self.bump(OFF_NONZERO, became_nonzero);
        self.bump(OFF_SATURATED, became_saturated);
        self.settle();
        Ok(())
    }

    /// Batch remove: `removed[i]` tells whether item `i` was removed (false:
    /// it was not present and nothing changed for it).
    /// Errors: [`Error::InvalidArgument`] on a length mismatch (nothing removed).
    pub fn remove_hashes(&mut self, hashes: &[u64], removed: &mut [bool]) -> Result<()> {
        if hashes.len() != removed.len() {
            return Err(Error::InvalidArgument);
        }
        for (h, r) in hashes.iter().zip(removed.iter_mut()) {
            *r = self.remove_hash(*h).is_ok();
        }
        Ok(())
    }

    /// Merge: counter-wise saturating addition (a saturated result stays 15).
    /// Afterwards the filter holds the items of both.
    /// Errors: [`Error::Incompatible`] unless counters, probes and seed are equal.
    pub fn merge(&mut self, other: &Counting<'_>) -> Result<()> {
        if !self.as_ref().is_compatible(other) {
            return Err(Error::Incompatible);
        }
        for (d, s) in self.body.iter_mut().zip(other.body) {
            let lo = ((*d & 0x0f) + (*s & 0x0f)).min(SATURATED);
            let hi = ((*d >> 4) + (*s >> 4)).min(SATURATED);
            *d = lo | (hi << 4);
        }
        let (nonzero, saturated) = scan(self.body, self.params.bits);
        let calls = self.as_ref().field(OFF_ADD_CALLS).saturating_add(other.field(OFF_ADD_CALLS));
        let removes = self.as_ref().field(OFF_REMOVES).saturating_add(other.field(OFF_REMOVES));
        put_u64(self.header, OFF_ADD_CALLS, calls);
        put_u64(self.header, OFF_REMOVES, removes.min(calls));
        put_u64(self.header, OFF_NONZERO, nonzero);
        put_u64(self.header, OFF_SATURATED, saturated);
        Ok(())
    }

    /// Removes everything.
    pub fn clear(&mut self) {
        self.body.fill(0);
        for off in [OFF_ADD_CALLS, OFF_REMOVES, OFF_NONZERO, OFF_SATURATED] {
            put_u64(self.header, off, 0);
        }
    }
}

#[cfg(test)]
mod tests;
