//! Live images that many threads update at once.
//!
//! Every other view of an image takes `&mut [u8]` for updates: one writer
//! at a time. The families that support concurrent adds (Bloom, split-block
//! Bloom, HyperLogLog, UltraLogLog) also offer a *shared* view over the same
//! bytes seen as atomic 64-bit words (`&[AtomicU64]`, which the C ABI builds
//! from the caller's 8-byte aligned buffer), whose adds use atomic
//! read-modify-write operations only:
//!
//! * bits are set with `fetch_or` (filters), registers raised with a
//!   compare-and-swap loop that only ever increases them;
//! * counters in the header are updated with `fetch_add` (exact once every
//!   add has returned; a reader during the adds sees each counter at some
//!   value it passed through, not a snapshot of all of them at one instant);
//! * the header is read with atomic loads and only its immutable fields
//!   are validated (the counters change under the reader's feet).
//!
//! After all adding threads are done (joined), the image equals, bit for
//! bit and register for register, the image of the same adds made one at a
//! time in any order; family docs say which header statistics differ (for
//! example "inserted" counts of Bloom filters depend on the order, and the
//! martingale estimates of HyperLogLog and UltraLogLog stop applying).
//!
//! The shared views also answer queries in place, concurrently with the
//! adds: `contains` (filters), `capacity` (the over-capacity signal of the
//! Bloom and split-block filters) and `estimate` (HyperLogLog,
//! UltraLogLog). Everything else (`stats`, `merge`, `export`, ...) takes
//! the bytes, after the adds.
//!
//! Mixing with plain writers: a shared view borrows the words (`&[AtomicU64]`)
//! for its whole life, so safe Rust cannot hold a `&mut [u8]` view (`wrap_mut`,
//! `merge`, `clear`, `fold`, ...) over the same memory at the same time; copy
//! the words back into bytes once the adding threads are done, as the example
//! does. (Through the C ABI nothing stops it: a plain write concurrent with
//! the concurrent adds is a data race, see the header's thread-safety notes.)
//!
//! Ordering: relaxed everywhere except where a family says otherwise
//! (HyperLogLog registers that straddle two words). The results become
//! visible to other threads no later than the synchronization that ends
//! the adds (joining the threads, a mutex, ...).
//!
//! # Example
//!
//! Safe Rust cannot view a `&mut [u8]` as atomics, so the image is written
//! into bytes, moved into `AtomicU64` words (little-endian) for the threads,
//! and copied back for the byte-level calls (`wrap`, `export`):
//!
//! ```
//! use core::sync::atomic::{AtomicU64, Ordering};
//! use sketches_core::bloom::{self, BloomParams};
//! use sketches_core::shared::AtomicWords;
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! let params = BloomParams::for_items(10_000, 0.01)?;
//! let len = params.image_len()? as usize;
//! let mut buf = ImageBuf::<16384>::new();
//! bloom::init(&mut buf, &params, 0)?;
//! let words: Vec<AtomicU64> = buf[..len]
//!     .chunks_exact(8)
//!     .map(|c| AtomicU64::new(u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]])))
//!     .collect();
//!
//! let filter = bloom::wrap_shared(AtomicWords::new(&words))?; // Copy + Sync: `add` takes &self
//! std::thread::scope(|s| {
//!     for t in 0..4u64 {
//!         s.spawn(move || (t..10_000).step_by(4).for_each(|i| { filter.add_u64(i); }));
//!     }
//! });
//! assert!((0..10_000u64).all(|i| filter.contains_u64(i)));
//!
//! for (bytes, word) in buf.chunks_exact_mut(8).zip(&words) {
//!     bytes.copy_from_slice(&word.load(Ordering::Relaxed).to_le_bytes());
//! }
//! assert_eq!(bloom::wrap(&buf)?.add_calls(), 10_000); // counters are exact once the threads are joined
//! # Ok(())
//! # }
//! ```

use crate::error::{Error, Result};
use crate::image::{self, CommonHeader, FamilyId, COMMON_HEADER_LEN};
use core::sync::atomic::{AtomicU64, Ordering};

/// A live image seen as atomic 64-bit words: word `i` holds bytes
/// `8i .. 8i + 8` (little-endian, as every image field).
#[derive(Copy, Clone)]
pub struct AtomicWords<'a> {
    words: &'a [AtomicU64],
}

crate::image::debug_view!(AtomicWords [] |v| v.byte_len() as u64);

impl<'a> AtomicWords<'a> {
    /// Wraps the words of a buffer (the buffer's length is `8 * words.len()`).
    pub fn new(words: &'a [AtomicU64]) -> Self {
        AtomicWords { words }
    }

    /// Length in bytes.
    pub fn byte_len(&self) -> usize {
        self.words.len() * 8
    }

    /// Word `i`, if it exists.
    #[inline(always)]
    pub fn word(&self, i: usize) -> Option<&'a AtomicU64> {
        self.words.get(i)
    }

    /// Requests the cache line of word `i` (a hint; nothing past the end).
    #[inline(always)]
    pub fn prefetch(&self, i: usize) {
        if let Some(w) = self.word(i) {
            crate::simd::prefetch_word(w);
        }
    }

    /// Relaxed load of word `i` (0 past the end).
    #[inline(always)]
    pub fn load(&self, i: usize) -> u64 {
        self.word(i).map_or(0, |w| w.load(Ordering::Relaxed))
    }

    /// `fetch_or` of `mask` into word `i`; returns the previous value. Past
    /// the end nothing is written and the result is `mask` (as if every bit
    /// were already set: the filters' adds then report nothing new).
    #[inline(always)]
    pub fn fetch_or(&self, i: usize, mask: u64) -> u64 {
        self.word(i).map_or(mask, |w| w.fetch_or(mask, Ordering::Relaxed))
    }

    /// Wrapping `fetch_add` of `value` to word `i` (nothing past the end).
    #[inline(always)]
    pub fn add(&self, i: usize, value: u64) {
        if let Some(w) = self.word(i) {
            w.fetch_add(value, Ordering::Relaxed);
        }
    }

    /// Adds `value` to the `u128` stored little-endian in words `i` and
    /// `i + 1`, as two atomic additions with the carry from the first: the
    /// final value is exact once every addition has returned (an addition
    /// mod 2^128 split this way commutes with any other), though a reader in
    /// between may see the low word before its carry.
    #[inline]
    pub fn add_u128(&self, i: usize, value: u128) {
        let (lo, hi) = (value as u64, (value >> 64) as u64);
        let Some(low) = self.word(i) else { return };
        let before = low.fetch_add(lo, Ordering::Relaxed);
        let carry = u64::from(before.checked_add(lo).is_none());
        self.add(i + 1, hi.wrapping_add(carry));
    }

    /// Replaces word `i` by `f(current)` with a compare-and-swap loop while
    /// `f` returns `Some`; returns the value `f` accepted (the word before
    /// the change), or `None` when `f` declined (nothing changed).
    #[inline(always)]
    pub fn update(&self, i: usize, order: Ordering, mut f: impl FnMut(u64) -> Option<u64>) -> Option<u64> {
        let word = self.word(i)?;
        let mut current = word.load(Ordering::Relaxed);
        loop {
            let next = f(current)?;
            match word.compare_exchange_weak(current, next, order, Ordering::Relaxed) {
                Ok(previous) => return Some(previous),
                Err(actual) => current = actual,
            }
        }
    }

    /// Copies the first `N` bytes (a header) with relaxed loads.
    pub fn snapshot<const N: usize>(&self) -> [u8; N] {
        let mut out = [0u8; N];
        for (i, chunk) in out.chunks_mut(8).enumerate() {
            for (b, v) in chunk.iter_mut().zip(self.load(i).to_le_bytes()) {
                *b = v;
            }
        }
        out
    }

    /// Reads and checks the common header of a family-`F` image whose
    /// header (at least the common part) was copied into `header`: magic,
    /// version, ids, lengths (the image must fit the words).
    pub fn common(&self, header: &[u8], family: FamilyId) -> Result<CommonHeader> {
        if header.len() < COMMON_HEADER_LEN {
            return Err(Error::BufferTooSmall);
        }
        let common = image::read_common_in(header, self.byte_len())?;
        if common.family != family {
            return Err(Error::WrongFamily);
        }
        Ok(common)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    extern crate std;

    #[test]
    fn u128_additions_with_carries_commute() {
        let words: std::vec::Vec<AtomicU64> = (0..2).map(|_| AtomicU64::new(0)).collect();
        let w = AtomicWords::new(&words);
        let values = [u128::MAX - 5, 7, 1 << 64, (1 << 64) - 1, 12345, u128::MAX];
        let mut expected = 0u128;
        for v in values {
            w.add_u128(0, v);
            expected = expected.wrapping_add(v);
        }
        let got = u128::from(w.load(0)) | (u128::from(w.load(1)) << 64);
        assert_eq!(got, expected);
    }

    #[test]
    fn fetch_or_past_the_end_writes_nothing_and_returns_the_mask() {
        let words = [AtomicU64::new(0b01)];
        let w = AtomicWords::new(&words);
        assert_eq!(w.fetch_or(0, 0b10), 0b01);
        assert_eq!(w.fetch_or(1, 0b10), 0b10, "past the end: as documented, the mask");
        assert_eq!(w.load(0), 0b11);
    }

    #[test]
    fn update_stops_when_declined() {
        let words = [AtomicU64::new(5)];
        let w = AtomicWords::new(&words);
        assert_eq!(w.update(0, Ordering::Relaxed, |v| (v < 3).then_some(v + 1)), None);
        assert_eq!(w.update(0, Ordering::Relaxed, |v| (v < 9).then_some(9)), Some(5));
        assert_eq!(w.load(0), 9);
        assert_eq!(w.update(1, Ordering::Relaxed, Some), None, "past the end");
    }
}
