//! Top-k heavy hitters: Space-Saving (Metwally, Agrawal and El Abbadi, 2005)
//! with weights, mergeable as in Agarwal et al., "Mergeable Summaries" (2012).
//!
//! `capacity` counters, each holding a key **inline** (at most
//! `max_key_len` bytes: a longer key is rejected with
//! [`Error::KeyTooLong`], never truncated), its count and its maximum
//! overestimation. A key that is monitored gets its weight added; a new key
//! takes a free counter, or replaces the counter with the smallest count `m`
//! and starts from `m + weight` with overestimation `m`.
//!
//! Guarantees, for a stream (or merge of streams) of total weight `N`:
//! * every key's estimate is at least its true count and at most
//!   `true + N / capacity` (`count - error <= true <= count`);
//! * every key whose true count exceeds `N / capacity` is listed.
//!
//! # Example
//!
//! ```
//! use sketches_core::topk::{self, TopKItem, TopKParams};
//! use sketches_core::Error;
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), Error> {
//! let params = TopKParams { capacity: 16, max_key_len: 32 };
//! assert!(params.image_len()? <= 2048); // 1,472 bytes
//!
//! let (mut buf_a, mut buf_b) = (ImageBuf::<2048>::new(), ImageBuf::<2048>::new());
//! let mut a = topk::init(&mut buf_a, &params, 0)?;
//! let mut b = topk::init(&mut buf_b, &params, 0)?;
//! for i in 1..=100u64 {
//!     a.add_u64(i, 1_000 / i)?; // key i seen 1000/i times (integer keys: 8 bytes)
//!     b.add_u64(i, 1_000 / i)?;
//! }
//! a.add(b"orange", 5)?;
//! assert_eq!(a.add(&[0u8; 33], 1), Err(Error::KeyTooLong)); // never truncated
//! a.merge(&b.as_ref())?;
//!
//! let sketch = a.as_ref();
//! let mut top = [TopKItem::default(); 3];
//! assert_eq!(sketch.top(&mut top), 3); // largest count first
//! assert_eq!(top[0].key, 1u64.to_le_bytes());
//! assert!(top[0].count - top[0].error <= 2_000 && 2_000 <= top[0].count); // true count within the bounds
//! assert!(sketch.estimate_u64(2)?.listed);
//! let top_count = top[0].count;
//!
//! let mut wire = [0u8; 2048];
//! let n = topk::export(&buf_a, &mut wire)?;
//! let mut copy = ImageBuf::<2048>::new();
//! topk::import(&wire[..n], &mut copy)?;
//! assert_eq!(topk::wrap(&copy)?.estimate_u64(1)?.count, top_count);
//! # Ok(())
//! # }
//! ```
//!
//! Inside the buffer: the counters, a hash index (linear probing over
//! `2^ceil(log2(2 capacity))` slots, backward-shift deletion, no tombstones)
//! so a key is found in O(1) expected time, and a 4-ary min-heap of
//! (count, counter) pairs so the smallest count is found in O(1) and
//! re-ordered in O(log capacity) after a weighted update. The counts live
//! in the heap itself (the four children of a node are 64 contiguous bytes;
//! a sift touches only the heap and the position array), ordered by count,
//! then counter number, so every operation is deterministic. Node `p`'s
//! children are `4p + 1 ..= 4p + 4`.
//!
//! Merge (same capacity, key length and seed): every key of either side gets
//! `estimate_a + estimate_b` (an absent key's estimate on a full side is that
//! side's smallest count), errors add the same way, and the `capacity`
//! largest are kept; both guarantees hold for `N = N_a + N_b`.
//!
//! Image layout after the common header (little-endian):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 48 | 4 | capacity `c` (1 ..= 2^20) |
//! | 52 | 4 | maximum key length `L` (1 ..= 4096) |
//! | 56 | 4 | counters in use |
//! | 60 | 4 | reserved, 0 |
//! | 64 | 8 | total weight `N` (saturating) |
//! | 72 | 56 | reserved, 0 |
//! | 128 | `c * (24 + L8)` | counters (`L8` = `L` rounded up to 8): error u64, key hash u64, key length u32, reserved u32 (0), key bytes (zero-padded) |
//! | ... | `4 * slots` | index: `u32` slot = counter number + 1, 0 empty; home slot = top bits of the key hash |
//! | ... | `16 * c` | heap: count u64, counter number u32, reserved u32 (0); smallest (count, counter) first; zero past the counters in use |
//! | ... | `4 * c`, rounded up to 8 | heap position of each counter (`u32`; 0 for unused counters) |
//! | … | 0..63 | zero padding to a multiple of 64 bytes (every live image length is) |
//!
//! Thread-safety: [`TopK`] is a shared view; [`TopKMut`] is exclusive.

use crate::error::{Error, Result};
use crate::hash::{self, HashKind};
use crate::image::{self, get_u32, get_u64, put_u32, put_u64};
use crate::image::{CommonHeader, FamilyId, Fresh, ImageFamily};

/// Byte length of the Top-k header.
pub const HEADER_LEN: usize = 128;
/// Largest capacity.
pub const MAX_CAPACITY: u32 = 1 << 20;
/// Largest maximum key length.
pub const MAX_KEY_LEN: u32 = 4096;
const ENTRY_FIXED: usize = 24;
const HEAP_ELEM: usize = 16;
/// Children per heap node.
const ARITY: usize = 4;
const OFF_CAPACITY: usize = 48;
const OFF_MAX_KEY: usize = 52;
const OFF_USED: usize = 56;
const OFF_TOTAL: usize = 64;

/// Parameters: number of counters and the longest key they store.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TopKParams {
    /// Counters `c`; keys with true count above `N / c` are always listed.
    pub capacity: u32,
    /// Longest key in bytes.
    pub max_key_len: u32,
}

/// The derived byte layout of a Top-k body.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TopKLayout {
    params: TopKParams,
    // Byte counts and offsets as u32 (the layout is refused above 4 GiB),
    // so every view of the image stays small.
    entry_len: u32,
    slots: u32,
    index_off: u32,
    heap_off: u32,
    pos_off: u32,
    body_len: u32,
}

impl TopKLayout {
    fn entry_len(&self) -> usize {
        self.entry_len as usize
    }
    fn slots(&self) -> usize {
        self.slots as usize
    }
    fn index_off(&self) -> usize {
        self.index_off as usize
    }
    fn heap_off(&self) -> usize {
        self.heap_off as usize
    }
    fn pos_off(&self) -> usize {
        self.pos_off as usize
    }
    /// Bytes of the body (without the padding to 64).
    pub fn body_len(&self) -> usize {
        self.body_len as usize
    }
}

impl TopKParams {
    /// Checks the limits: capacity 1..=2^20, key length 1..=4096, and an
    /// image of less than 4 GiB, which the largest capacity with keys of
    /// more than about 4,040 bytes exceeds. Parameters that pass are the
    /// ones [`TopKParams::image_len`] and [`init`] accept.
    /// Errors: [`Error::InvalidParameter`].
    pub fn validate(&self) -> Result<()> {
        self.layout().map(|_| ())
    }

    /// The per-field limits of [`TopKParams::validate`].
    fn check_ranges(&self) -> Result<()> {
        if self.capacity == 0
            || self.capacity > MAX_CAPACITY
            || self.max_key_len == 0
            || self.max_key_len > MAX_KEY_LEN
        {
            return Err(Error::InvalidParameter);
        }
        Ok(())
    }

    fn layout(&self) -> Result<TopKLayout> {
        self.check_ranges()?;
        // In 64 bits whatever the target; images above 4 GiB are refused (a
        // Top-k that large has no use), so every offset then fits a u32.
        let c = u64::from(self.capacity);
        let entry_len = ENTRY_FIXED as u64 + u64::from(self.max_key_len).div_ceil(8) * 8;
        let slots = (2 * c).next_power_of_two();
        let index_off = c * entry_len;
        let heap_off = index_off + 4 * slots;
        let pos_off = heap_off + HEAP_ELEM as u64 * c;
        let body_len = pos_off + (4 * c).div_ceil(8) * 8;
        let narrow = |v: u64| u32::try_from(v).map_err(|_| Error::InvalidParameter);
        narrow(HEADER_LEN as u64 + body_len + image::IMAGE_ALIGN as u64)?;
        Ok(TopKLayout {
            params: *self,
            entry_len: narrow(entry_len)?,
            slots: narrow(slots)?,
            index_off: narrow(index_off)?,
            heap_off: narrow(heap_off)?,
            pos_off: narrow(pos_off)?,
            body_len: narrow(body_len)?,
        })
    }

    /// Exact image size in bytes. Errors: as [`TopKParams::validate`].
    pub fn image_len(&self) -> Result<u64> {
        Ok(image::padded_len((HEADER_LEN + self.layout()?.body_len()) as u64))
    }
}

/// Exact image size in bytes for `params` (see [`TopKParams::image_len`]).
pub fn image_len(params: &TopKParams) -> Result<u64> {
    params.image_len()
}

/// One listed key with its estimate. `TopKItem::default()` (an empty key,
/// count 0) fills the array [`TopK::top`] writes into.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TopKItem<'a> {
    /// The key bytes (inside the image).
    pub key: &'a [u8],
    /// Estimated count: at least the true count.
    pub count: u64,
    /// Maximum overestimation: the true count is at least `count - error`.
    pub error: u64,
}

/// The estimate for one key.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TopKEstimate {
    /// Upper bound of the true count (the smallest count for unlisted keys
    /// of a full sketch, 0 otherwise).
    pub count: u64,
    /// Maximum overestimation.
    pub error: u64,
    /// True when the key has a counter.
    pub listed: bool,
}

/// Statistics of a Top-k sketch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TopKStats {
    /// Parameters.
    pub params: TopKParams,
    /// Hash seed.
    pub seed: u64,
    /// Counters in use.
    pub used: u32,
    /// Total weight `N`.
    pub total: u64,
    /// Smallest count when full (the overestimation bound of every key), else 0.
    pub min_count: u64,
}

/// Marker type tying the Top-k layout to the image format.
pub struct TopKImage;

impl ImageFamily for TopKImage {
    const FAMILY: FamilyId = FamilyId::TopK;
    type Layout = TopKLayout;

    #[inline]
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<TopKLayout> {
        if common.hash != HashKind::Xxh3 {
            return Err(Error::UnsupportedHash);
        }
        if common.header_len != HEADER_LEN || common.flags != 0 {
            return Err(Error::CorruptHeader);
        }
        let field = |off: usize| get_u32(image, off).ok_or(Error::BufferTooSmall);
        let params = TopKParams { capacity: field(OFF_CAPACITY)?, max_key_len: field(OFF_MAX_KEY)? };
        let layout = params.layout().map_err(|_| Error::CorruptHeader)?;
        let reserved = image::zeroed(image, 60..64) && image::zeroed(image, 72..HEADER_LEN);
        let expected = image::padded_len((HEADER_LEN + layout.body_len()) as u64);
        if field(OFF_USED)? > params.capacity || !reserved || image.len() as u64 != expected {
            return Err(Error::CorruptHeader);
        }
        Ok(layout)
    }

    #[inline]
    fn body_len(_common: &CommonHeader, layout: &TopKLayout) -> usize {
        layout.body_len()
    }

    fn check_body(common: &CommonHeader, layout: &TopKLayout, image: &[u8]) -> Result<()> {
        check_topk_body(image, layout, common.seed)
    }
}

/// Writes an empty sketch into `buf` (8-byte aligned, at least
/// `params.image_len()` bytes). Errors: [`Error::InvalidParameter`],
/// [`Error::BufferTooSmall`], [`Error::Misaligned`]; `buf` unchanged then.
pub fn init<'a>(buf: &'a mut [u8], params: &TopKParams, seed: u64) -> Result<TopKMut<'a>> {
    let image_len = params.image_len()?;
    let family = FamilyId::TopK;
    let fresh = Fresh { family, hash: HashKind::Xxh3, header_len: HEADER_LEN, flags: 0, seed, image_len };
    let image = image::start_image(buf, fresh)?;
    put_u32(image, OFF_CAPACITY, params.capacity);
    put_u32(image, OFF_MAX_KEY, params.max_key_len);
    wrap_mut(image)
}

/// Validates a live image and returns a read-only view (zero-copy, O(1)).
/// (Out of line: the validation's temporaries stay out of callers' frames.)
#[inline(never)]
pub fn wrap(buf: &[u8]) -> Result<TopK<'_>> {
    let p = image::split::<TopKImage>(buf)?;
    Ok(TopK { header: p.header, body: p.body, layout: p.layout, seed: p.common.seed })
}

/// Validates a live image and returns a mutable view (zero-copy, O(1)).
/// (Out of line, as [`wrap`].)
#[inline(never)]
pub fn wrap_mut(buf: &mut [u8]) -> Result<TopKMut<'_>> {
    let p = image::split_mut::<TopKImage>(buf)?;
    Ok(TopKMut { header: p.header, body: p.body, layout: p.layout, seed: p.common.seed })
}
/// The number of bytes [`export`] writes for the live image in `src` (its
/// image length), so a destination can be sized first. Errors: image errors.
pub fn exported_len(src: &[u8]) -> Result<usize> {
    image::exported_len::<TopKImage>(src)
}

/// Copies the live image to `dst` with its checksum. Returns the bytes written.
///
/// Errors: as [`crate::image::export`].
pub fn export(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::export::<TopKImage>(src, dst)
}

/// Checks the body of a verified image: every counter in use has a legal
/// key length, the hash of its key, zero padding, `error <= count <= N`, a
/// heap position holding it and an index slot; the heap is ordered by
/// (count, counter); the index holds exactly the counters in use; unused
/// counters, heap elements and positions are zero.
fn check_topk_body(bytes: &[u8], layout: &TopKLayout, seed: u64) -> Result<()> {
    let (header, body) = bytes.split_at_checked(HEADER_LEN).ok_or(Error::BufferTooSmall)?;
    let body = body.get(..layout.body_len()).ok_or(Error::BufferTooSmall)?;
    let view = TopK { header, body, layout: *layout, seed };
    let used = view.used();
    let total = view.total();
    for e in 0..layout.params.capacity as usize {
        let entry = view.entry_bytes(e).ok_or(Error::CorruptBody)?;
        let pos = view.pos(e).ok_or(Error::CorruptBody)?;
        if e >= used {
            if pos != 0 || entry.iter().any(|b| *b != 0) {
                return Err(Error::CorruptBody);
            }
            continue;
        }
        let key = view.key(e).ok_or(Error::CorruptBody)?;
        let padding_zero =
            entry.get(ENTRY_FIXED + key.len()..).is_some_and(|pad| pad.iter().all(|b| *b == 0));
        let fixed_ok = get_u32(entry, 20) == Some(0);
        let Some((count, counter)) = view.heap_elem(pos).filter(|_| pos < used) else {
            return Err(Error::CorruptBody);
        };
        let error = view.error(e);
        if counter != e || error > count || count > total || !fixed_ok || !padding_zero {
            return Err(Error::CorruptBody);
        }
    }
    check_topk_keys(&view, used)?;
    for p in 0..layout.params.capacity as usize {
        let off = layout.heap_off() + HEAP_ELEM * p;
        let elem = body.get(off..off + HEAP_ELEM).ok_or(Error::CorruptBody)?;
        let ordered = p == 0 || p >= used || view.heap_elem((p - 1) / ARITY) < view.heap_elem(p);
        let legal = if p < used { get_u32(elem, 12) == Some(0) } else { elem.iter().all(|b| *b == 0) };
        if !ordered || !legal {
            return Err(Error::CorruptBody);
        }
    }
    let occupied = (0..layout.slots()).filter(|s| view.slot(*s) != 0).count();
    if occupied != used {
        return Err(Error::CorruptBody);
    }
    Ok(())
}

/// Merges the image in `src` into the live image in `dst`
/// ([`TopKMut::merge`] on both wrapped). Out of line, with both views in
/// its own frame. Errors: wrap errors of either image, [`Error::Incompatible`].
#[inline(never)]
pub fn merge_images(dst: &mut [u8], src: &[u8]) -> Result<()> {
    wrap_mut(dst)?.merge(&wrap(src)?)
}

/// The key rules of [`check_topk_body`]: every counter in use stores the
/// hash of its key, and the index finds it. Out of line, so the key hash's
/// stack (XXH3 keeps a 192-byte secret for long keys) never adds to the
/// other checks' frame.
#[inline(never)]
fn check_topk_keys(view: &TopK<'_>, used: usize) -> Result<()> {
    for e in 0..used {
        let key = view.key(e).ok_or(Error::CorruptBody)?;
        if view.entry_hash(e) != hash::hash_bytes(key, view.seed) || view.find(key) != Some(e) {
            return Err(Error::CorruptBody);
        }
    }
    Ok(())
}

/// Verifies untrusted bytes (exact length, headers, checksum, body rules).
/// Errors: header/checksum errors, [`Error::CorruptBody`].
pub fn verify(bytes: &[u8]) -> Result<()> {
    image::verify::<TopKImage>(bytes).map(|_| ())
}

/// Bytes of the live image that importing the exported image `src` writes
/// (allocate this much, 64-byte aligned, before [`import`]). Checks the
/// headers and the length, not the checksum.
///
/// Errors: as [`crate::image::import_len`].
pub fn import_len(src: &[u8]) -> Result<usize> {
    image::import_len::<TopKImage>(src)
}

/// Verifies untrusted bytes as [`verify`] and copies them into the aligned
/// `dst` (written only on success). Returns the image length.
///
/// Errors: as [`crate::image::import`].
pub fn import(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::import::<TopKImage>(src, dst)
}

/// A read-only view of a validated Top-k image.
#[derive(Copy, Clone)]
pub struct TopK<'a> {
    header: &'a [u8],
    body: &'a [u8],
    layout: TopKLayout,
    seed: u64,
}

crate::image::debug_view!(TopK [layout, seed]);

impl<'a> TopK<'a> {
    /// Parameters.
    pub fn params(&self) -> TopKParams {
        self.layout.params
    }

    /// The hash seed stored in the image (it places keys in the index; a
    /// merge needs equal seeds).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Counters in use.
    pub fn used(&self) -> usize {
        (get_u32(self.header, OFF_USED).unwrap_or(0) as usize).min(self.layout.params.capacity as usize)
    }

    /// Total weight added, `N`.
    pub fn total(&self) -> u64 {
        get_u64(self.header, OFF_TOTAL).unwrap_or(0)
    }

    /// Counter `e`'s bytes; `None` for a counter number at or above the
    /// capacity (an index slot of damaged bytes used zero-copy may name any
    /// `u32`), so the offsets stay below the index even with a 32-bit `usize`.
    fn entry_bytes(&self, e: usize) -> Option<&'a [u8]> {
        if e >= self.layout.params.capacity as usize {
            return None;
        }
        let start = e * self.layout.entry_len();
        self.body.get(start..start + self.layout.entry_len())
    }

    /// Counter `e`'s count (kept in its heap element).
    fn count(&self, e: usize) -> u64 {
        self.pos(e).and_then(|p| self.heap_elem(p)).map_or(0, |(count, _)| count)
    }

    fn error(&self, e: usize) -> u64 {
        self.entry_bytes(e).and_then(|b| get_u64(b, 0)).unwrap_or(0)
    }

    fn entry_hash(&self, e: usize) -> u64 {
        self.entry_bytes(e).and_then(|b| get_u64(b, 8)).unwrap_or(0)
    }

    fn key(&self, e: usize) -> Option<&'a [u8]> {
        let entry = self.entry_bytes(e)?;
        let len = get_u32(entry, 16)? as usize;
        if len > self.layout.params.max_key_len as usize {
            return None;
        }
        entry.get(ENTRY_FIXED..ENTRY_FIXED + len)
    }

    fn slot(&self, s: usize) -> u32 {
        get_u32(self.body, self.layout.index_off() + 4 * s).unwrap_or(0)
    }

    /// Heap element `p`: (count, counter number). `None` past the heap and
    /// for a counter number at or above the capacity (damaged bytes used
    /// zero-copy), so every counter number read from the heap is in range.
    #[inline]
    fn heap_elem(&self, p: usize) -> Option<(u64, usize)> {
        let off = self.layout.heap_off() + HEAP_ELEM * p;
        let elem = self.body.get(off..off + 12)?;
        let e = get_u32(elem, 8)?;
        (e < self.layout.params.capacity).then_some((get_u64(elem, 0)?, e as usize))
    }

    /// Counter `e`'s heap position. `None` past the array and for a
    /// position at or above the capacity (damaged bytes used zero-copy), so
    /// every heap offset computed from a position fits even a 32-bit `usize`.
    #[inline]
    fn pos(&self, e: usize) -> Option<usize> {
        let p = get_u32(self.body, self.layout.pos_off() + 4 * e)?;
        (p < self.layout.params.capacity).then_some(p as usize)
    }

    fn home(&self, h: u64) -> usize {
        (h >> (64 - self.layout.slots().trailing_zeros())) as usize
    }

    /// The counter holding `key`, found through the index.
    fn find(&self, key: &[u8]) -> Option<usize> {
        let h = hash::hash_bytes(key, self.seed);
        self.find_hashed(key, h).ok()
    }

    /// `Ok(counter)` or `Err(free slot)` (a full, damaged index gives `Err(slots)`).
    fn find_hashed(&self, key: &[u8], h: u64) -> core::result::Result<usize, usize> {
        let mask = self.layout.slots() - 1;
        let mut s = self.home(h);
        for _ in 0..self.layout.slots() {
            let v = self.slot(s);
            if v == 0 {
                return Err(s);
            }
            let e = (v - 1) as usize;
            if self.entry_hash(e) == h && self.key(e) == Some(key) {
                return Ok(e);
            }
            s = (s + 1) & mask;
        }
        Err(self.layout.slots())
    }

    /// The first empty index slot from the home slot of `h`.
    fn free_slot(&self, h: u64) -> Option<usize> {
        let mask = self.layout.slots() - 1;
        let mut s = self.home(h);
        for _ in 0..self.layout.slots() {
            if self.slot(s) == 0 {
                return Some(s);
            }
            s = (s + 1) & mask;
        }
        None
    }

    /// Smallest count when all counters are in use, else 0.
    pub fn min_count(&self) -> u64 {
        if self.used() < self.layout.params.capacity as usize {
            return 0;
        }
        self.heap_elem(0).map_or(0, |(count, _)| count)
    }

    /// The estimate for `key`: its counter, or (unlisted) the smallest count
    /// as both bound and error.
    ///
    /// Errors: [`Error::KeyTooLong`] for a key longer than the maximum key
    /// length (such a key can never have been added).
    pub fn estimate(&self, key: &[u8]) -> Result<TopKEstimate> {
        if key.len() > self.layout.params.max_key_len as usize {
            return Err(Error::KeyTooLong);
        }
        Ok(match self.find(key) {
            Some(e) => TopKEstimate { count: self.count(e), error: self.error(e), listed: true },
            None => {
                let m = self.min_count();
                TopKEstimate { count: m, error: m, listed: false }
            }
        })
    }

    /// [`TopK::estimate`] for an integer key (stored as 8 little-endian bytes).
    pub fn estimate_u64(&self, key: u64) -> Result<TopKEstimate> {
        self.estimate(&key.to_le_bytes())
    }

    /// The listed keys, in counter order (unsorted).
    pub fn items(&self) -> impl Iterator<Item = TopKItem<'a>> + '_ {
        (0..self.used()).filter_map(move |e| {
            let key = self.key(e)?;
            Some(TopKItem { key, count: self.count(e), error: self.error(e) })
        })
    }

    /// Writes the listed keys, largest count first (ties: smaller error
    /// first), into `out`; returns how many were written (at most
    /// `out.len()`; pass `capacity` slots for all). No allocation: each key
    /// is inserted into the sorted prefix, so the cost is up to
    /// `used · out.len()` moves (quadratic in the capacity for all of them).
    pub fn top(&self, out: &mut [TopKItem<'a>]) -> usize {
        self.top_as(out, |item| item, |item| (item.count, item.error))
    }

    /// [`TopK::top`] into any item type: `make` converts an item, `rank`
    /// reads back its (count, error).
    pub fn top_as<T>(
        &self,
        out: &mut [T],
        make: impl Fn(TopKItem<'a>) -> T,
        rank: impl Fn(&T) -> (u64, u64),
    ) -> usize {
        let order = |(count, error): (u64, u64)| (core::cmp::Reverse(count), error);
        let mut n = 0;
        for item in self.items() {
            let key = order((item.count, item.error));
            let filled = out.get_mut(..n).unwrap_or(&mut []);
            let at = filled.partition_point(|x| order(rank(x)) <= key);
            if n < out.len() {
                n += 1;
            } else if at >= n {
                continue;
            }
            if let Some(tail) = out.get_mut(at..n) {
                // Insert at `at`: each item moves one place down, the last
                // one drops off (`rotate_right` keeps a panic path when it
                // is not inlined).
                let mut carried = make(item);
                for slot in tail.iter_mut() {
                    core::mem::swap(slot, &mut carried);
                }
            }
        }
        n
    }

    /// All statistics, O(1).
    pub fn stats(&self) -> TopKStats {
        TopKStats {
            params: self.layout.params,
            seed: self.seed,
            used: self.used() as u32,
            total: self.total(),
            min_count: self.min_count(),
        }
    }

    /// True when `other` has the same parameters and seed.
    pub fn is_compatible(&self, other: &TopK<'_>) -> bool {
        self.layout.params == other.layout.params && self.seed == other.seed
    }
}

/// An exclusive, mutable view of a validated Top-k image.
pub struct TopKMut<'a> {
    header: &'a mut [u8],
    body: &'a mut [u8],
    layout: TopKLayout,
    seed: u64,
}

crate::image::debug_view!(TopKMut [layout, seed]);

impl<'a> TopKMut<'a> {
    /// A read-only view of the same image.
    pub fn as_ref(&self) -> TopK<'_> {
        TopK { header: self.header, body: self.body, layout: self.layout, seed: self.seed }
    }

    fn entry_off(&self, e: usize) -> usize {
        e * self.layout.entry_len()
    }

    /// Sets counter `e`'s count in place (the heap order is the caller's).
    fn set_count(&mut self, e: usize, count: u64) {
        if let Some(p) = self.as_ref().pos(e) {
            put_u64(self.body, self.layout.heap_off() + HEAP_ELEM * p, count);
        }
    }

    fn set_slot(&mut self, s: usize, v: u32) {
        let off = self.layout.index_off() + 4 * s;
        put_u32(self.body, off, v);
    }

    /// Writes heap element `p` = (count, e) and records `e`'s position.
    #[inline]
    fn put_heap(&mut self, p: usize, count: u64, e: usize) {
        let off = self.layout.heap_off() + HEAP_ELEM * p;
        put_u64(self.body, off, count);
        put_u32(self.body, off + 8, e as u32);
        put_u32(self.body, self.layout.pos_off() + 4 * e, p as u32);
    }

    /// Places counter `e` with `count` at heap position `p` or below: the
    /// smallest child moves up into the hole until `(count, e)` fits. The
    /// smallest child is chosen without branches (which one it is, is a coin
    /// flip on skewed streams, where many counters share the smallest counts).
    fn sift_down(&mut self, mut p: usize, count: u64, e: usize) {
        let used = self.as_ref().used();
        let rank = |(count, e): (u64, usize)| (u128::from(count) << 64) | e as u128;
        let item = rank((count, e));
        for _ in 0..64 {
            let first = ARITY * p + 1;
            if first >= used {
                break;
            }
            let view = self.as_ref();
            let (mut child, mut child_p) = (u128::MAX, first);
            for c in first..first + ARITY {
                let r = view.heap_elem(c).filter(|_| c < used).map_or(u128::MAX, rank);
                let smaller = r < child;
                child = if smaller { r } else { child };
                child_p = if smaller { c } else { child_p };
            }
            if child >= item {
                break;
            }
            self.put_heap(p, (child >> 64) as u64, child as u64 as usize);
            p = child_p;
        }
        self.put_heap(p, count, e);
    }

    /// Places counter `e` with `count` at heap position `p` or above.
    fn sift_up(&mut self, mut p: usize, count: u64, e: usize) {
        let item = (count, e);
        for _ in 0..64 {
            if p == 0 {
                break;
            }
            let parent = (p - 1) / ARITY;
            let Some(above) = self.as_ref().heap_elem(parent) else { break };
            if above <= item {
                break;
            }
            self.put_heap(p, above.0, above.1);
            p = parent;
        }
        self.put_heap(p, count, e);
    }

    /// Removes counter `e`'s key from the index (backward-shift deletion).
    fn unindex(&mut self, e: usize) {
        let view = self.as_ref();
        let h = view.entry_hash(e);
        let mask = self.layout.slots() - 1;
        // Locate the slot holding e (a damaged index may not have it: then nothing to do).
        let mut hole = view.home(h);
        let mut found = false;
        for _ in 0..self.layout.slots() {
            if view.slot(hole) == e as u32 + 1 {
                found = true;
                break;
            }
            hole = (hole + 1) & mask;
        }
        if !found {
            return;
        }
        let mut s = (hole + 1) & mask;
        for _ in 0..self.layout.slots() {
            let view = self.as_ref();
            let v = view.slot(s);
            if v == 0 {
                break;
            }
            let home = view.home(view.entry_hash((v - 1) as usize));
            // Move v into the hole unless its home lies cyclically in (hole, s].
            let stays = if hole <= s { hole < home && home <= s } else { hole < home || home <= s };
            if !stays {
                self.set_slot(hole, v);
                hole = s;
            }
            s = (s + 1) & mask;
        }
        self.set_slot(hole, 0);
    }

    /// Writes key, hash and error into counter `e` and indexes it at `slot`
    /// (its count goes into the heap: the caller's).
    fn fill(&mut self, e: usize, slot: usize, key: &[u8], h: u64, error: u64) {
        let off = self.entry_off(e);
        let Some(entry) = self.body.get_mut(off..off + self.layout.entry_len()) else { return };
        entry.fill(0);
        put_u64(entry, 0, error);
        put_u64(entry, 8, h);
        put_u32(entry, 16, key.len() as u32);
        if let Some(dst) = entry.get_mut(ENTRY_FIXED..) {
            image::copy_bytes(dst, key);
        }
        self.set_slot(slot, e as u32 + 1);
    }

    fn add_total(&mut self, weight: u64) {
        let total = self.as_ref().total().saturating_add(weight);
        put_u64(self.header, OFF_TOTAL, total);
    }

    /// Adds `weight` occurrences of `key`. A weight of 0 is no occurrence
    /// and changes nothing: it takes no counter and evicts no key.
    /// Errors: [`Error::KeyTooLong`] when `key` exceeds the maximum key
    /// length (nothing changes), whatever the weight.
    pub fn add(&mut self, key: &[u8], weight: u64) -> Result<()> {
        if key.len() > self.layout.params.max_key_len as usize {
            return Err(Error::KeyTooLong);
        }
        if weight == 0 {
            return Ok(());
        }
        let h = hash::hash_bytes(key, self.seed);
        self.add_total(weight);
        self.offer(key, h, weight, None);
        Ok(())
    }

    /// [`TopKMut::add`] for an integer key (stored as its 8 little-endian
    /// bytes; needs a maximum key length of at least 8).
    pub fn add_u64(&mut self, key: u64, weight: u64) -> Result<()> {
        self.add(&key.to_le_bytes(), weight)
    }

    /// Space-Saving step. `merged: None` (a stream add): a monitored key
    /// grows by `weight`; a new key takes a free counter at `weight`, or
    /// replaces the smallest counter `m` with count `m + weight`, error `m`.
    /// `merged: Some((count, error))` (a key only the other side of a merge
    /// has): it takes a free counter, or replaces the smallest counter when
    /// its count is larger (keeping the largest `capacity`).
    fn offer(&mut self, key: &[u8], h: u64, weight: u64, merged: Option<(u64, u64)>) {
        let capacity = self.layout.params.capacity as usize;
        match self.as_ref().find_hashed(key, h) {
            Ok(e) => {
                let view = self.as_ref();
                let Some(p) = view.pos(e) else { return };
                let count = view.heap_elem(p).map_or(0, |(count, _)| count).saturating_add(weight);
                self.sift_down(p, count, e);
            }
            Err(slot) if slot < self.layout.slots() => {
                let used = self.as_ref().used();
                if used < capacity {
                    let (count, error) = merged.unwrap_or((weight, 0));
                    self.fill(used, slot, key, h, error);
                    put_u32(self.header, OFF_USED, used as u32 + 1);
                    self.sift_up(used, count, used);
                    return;
                }
                let Some((m, victim)) = self.as_ref().heap_elem(0) else { return };
                let (count, error) = match merged {
                    None => (m.saturating_add(weight), m),
                    Some((count, error)) if count > m => (count, error),
                    Some(_) => return,
                };
                self.unindex(victim);
                // The free slot may have moved during the deletion; the key is
                // known to be absent, so the first empty slot from its home is it.
                let Some(slot) = self.as_ref().free_slot(h) else { return };
                self.fill(victim, slot, key, h, error);
                self.sift_down(0, count, victim);
            }
            Err(_) => {}
        }
    }

    /// Merges `other` (same capacity, maximum key length and seed): keeps the
    /// `capacity` keys with the largest combined estimates; see the module
    /// docs for the guarantees.
    /// Errors: [`Error::Incompatible`] (nothing changes then).
    #[inline(never)]
    pub fn merge(&mut self, other: &TopK<'_>) -> Result<()> {
        if !self.as_ref().is_compatible(other) {
            return Err(Error::Incompatible);
        }
        let (min_self, min_other) = (self.as_ref().min_count(), other.min_count());
        self.merge_known_keys(other, min_other);
        self.merge_other_keys(other, min_self);
        self.add_total(other.total());
        Ok(())
    }

    /// Merge, step 1: keys of this side get the other side's estimate, then
    /// the heap is rebuilt. (The steps are out of line so their frames never
    /// add up: every exported function stays within 1 KiB of stack.)
    #[inline(never)]
    fn merge_known_keys(&mut self, other: &TopK<'_>, min_other: u64) {
        for e in 0..self.as_ref().used() {
            let view = self.as_ref();
            let Some(key) = view.key(e) else { continue };
            let (add_count, add_error) = match other.find_hashed(key, view.entry_hash(e)) {
                Ok(o) => (other.count(o), other.error(o)),
                Err(_) => (min_other, min_other),
            };
            let (count, error) =
                (view.count(e).saturating_add(add_count), view.error(e).saturating_add(add_error));
            self.set_count(e, count);
            let off = self.entry_off(e);
            put_u64(self.body, off, error);
        }
        // Counts changed arbitrarily: rebuild the heap bottom-up.
        let used = self.as_ref().used();
        for p in (0..used.div_ceil(ARITY)).rev() {
            if let Some((count, e)) = self.as_ref().heap_elem(p) {
                self.sift_down(p, count, e);
            }
        }
    }

    /// Merge, step 2: keys only on the other side, with their estimate plus
    /// this side's minimum, kept when among the largest.
    #[inline(never)]
    fn merge_other_keys(&mut self, other: &TopK<'_>, min_self: u64) {
        for o in 0..other.used() {
            let Some(key) = other.key(o) else { continue };
            let h = other.entry_hash(o);
            if self.as_ref().find_hashed(key, h).is_ok() {
                continue;
            }
            let count = other.count(o).saturating_add(min_self);
            let error = other.error(o).saturating_add(min_self);
            self.offer(key, h, 0, Some((count, error)));
        }
    }

    /// Removes every key.
    pub fn clear(&mut self) {
        self.body.fill(0);
        put_u32(self.header, OFF_USED, 0);
        put_u64(self.header, OFF_TOTAL, 0);
    }
}

#[cfg(test)]
mod tests;
