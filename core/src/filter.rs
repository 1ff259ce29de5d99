//! Pieces shared by the membership filters (Bloom, split-block Bloom,
//! counting Bloom): capacity flags, bit counting, and the prefetching
//! pipeline of the Bloom filters' batch calls.

use crate::hash;

/// Bitmask telling whether a filter is past what it was planned for.
///
/// The seeds' worst anti-pattern is silent overfill: a filter planned for
/// 100,000 items that receives 1,000,000 answers "maybe" to 99.5% of absent
/// keys. Every filter reports these flags from a cheap (O(1)) call.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CapacityFlags(pub u32);

impl CapacityFlags {
    /// More items were inserted (adds that changed the filter) than planned.
    pub const OVER_PLANNED_ITEMS: u32 = 1;
    /// The estimated current false-positive rate exceeds twice the planned one.
    pub const FPR_ABOVE_TWICE_PLANNED: u32 = 2;

    /// Builds the flags from the inserted count and the estimated FPR.
    pub fn evaluate(inserted: u64, planned_items: u64, estimated_fpr: f64, planned_fpr: f64) -> Self {
        let mut bits = 0;
        if inserted > planned_items {
            bits |= Self::OVER_PLANNED_ITEMS;
        }
        if estimated_fpr > 2.0 * planned_fpr {
            bits |= Self::FPR_ABOVE_TWICE_PLANNED;
        }
        CapacityFlags(bits)
    }

    /// True when no flag is set: the filter is within its plan.
    pub const fn is_within_plan(self) -> bool {
        self.0 == 0
    }

    /// True when the inserted count exceeds the planned item count.
    pub const fn over_planned_items(self) -> bool {
        self.0 & Self::OVER_PLANNED_ITEMS != 0
    }

    /// True when the estimated FPR exceeds twice the planned FPR.
    pub const fn fpr_above_twice_planned(self) -> bool {
        self.0 & Self::FPR_ABOVE_TWICE_PLANNED != 0
    }
}

/// Checks a target false-positive rate: finite and strictly between 0 and 1.
pub(crate) fn valid_fpr(p: f64) -> bool {
    p > 0.0 && p < 1.0
}

/// Counts the set bits of `bytes`, 8 bytes at a time.
pub(crate) fn count_ones(bytes: &[u8]) -> u64 {
    let (words, rest) = bytes.as_chunks::<8>();
    let mut total: u64 = 0;
    for word in words {
        total += u64::from(u64::from_le_bytes(*word).count_ones());
    }
    for b in rest {
        total += u64::from(b.count_ones());
    }
    total
}

/// `dst |= src`, byte-wise (vectorized by the compiler).
pub(crate) fn or_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d |= *s;
    }
}

/// `dst &= src`, byte-wise (vectorized by the compiler).
pub(crate) fn and_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d &= *s;
    }
}

/// How many keys ahead of the one being worked on the batch calls of the
/// Bloom and counting Bloom filters prefetch: the probes of key
/// `i + PREFETCH_DISTANCE` are requested while key `i` is tested (or set,
/// for adds with more probes than [`ProbeLayout::ringed`] holds), so the
/// cache misses of that many keys overlap instead of following each other
/// (a single-key loop waits for each key's misses in turn).
pub(crate) const PREFETCH_DISTANCE: usize = 8;

/// Probe positions per key the ring of [`ProbeLayout::ringed`] holds:
/// filters with at most this many probes (Bloom rates down to about 0.4%)
/// compute each position once in a batch add.
pub(crate) const RING_PROBES: usize = 8;

/// Keys the ring of [`ProbeLayout::ringed`] holds: the positions of key
/// `i + RING_KEYS` are computed, and their cache lines requested, while key
/// `i` is written. Four keys of up to eight probes are 32 lines in flight,
/// and the ring's 256 bytes keep the C ABI's batch calls within their stack
/// bound (eight keys measured no faster).
pub(crate) const RING_KEYS: usize = 4;

/// Where a filter keeps probe `i`: byte `i >> shift` of its body (3 for
/// one bit per probe, 1 for 4-bit counters).
#[derive(Copy, Clone, Debug)]
pub(crate) struct ProbeLayout {
    /// Probes per key.
    pub hashes: u32,
    /// Probe positions, `0..range`.
    pub range: u64,
    /// log2 of the probes per byte.
    pub shift: u32,
}

impl ProbeLayout {
    /// Requests the cache lines of the first `probes` probes of `hash`.
    #[inline(always)]
    fn prefetch(self, body: &[u8], hash: u64, probes: u32) {
        for i in hash::probes(hash, self.hashes.min(probes), self.range) {
            crate::simd::prefetch(body, (i >> self.shift) as usize);
        }
    }

    /// Runs `work(i, hashes[i])` for every hash in order, with the first
    /// `probes` probes of each key requested [`PREFETCH_DISTANCE`] keys
    /// ahead (the first keys' together, before the first `work`). `work`
    /// gets the body back so it may write it.
    #[inline(always)]
    pub(crate) fn pipelined<B: AsRef<[u8]>>(
        self,
        body: &mut B,
        hashes: &[u64],
        probes: u32,
        mut work: impl FnMut(&mut B, usize, u64),
    ) {
        for h in hashes.iter().take(PREFETCH_DISTANCE) {
            self.prefetch(body.as_ref(), *h, probes);
        }
        for (i, h) in hashes.iter().enumerate() {
            if let Some(ahead) = hashes.get(i + PREFETCH_DISTANCE) {
                self.prefetch(body.as_ref(), *ahead, probes);
            }
            work(body, i, *h);
        }
    }

    /// Like [`ProbeLayout::pipelined`] for batch adds, which write every
    /// probe: runs `work(body, i, positions of hashes[i])` for every hash in
    /// order, each position computed once, [`RING_KEYS`] keys ahead, when
    /// its cache line is requested (the pipelined form computes it twice,
    /// for the request and for the work). Only for at most [`RING_PROBES`]
    /// probes per key: returns false, having done nothing, for more.
    #[inline(always)]
    pub(crate) fn ringed<B: AsRef<[u8]>>(
        self,
        body: &mut B,
        hashes: &[u64],
        mut work: impl FnMut(&mut B, usize, &[u64]),
    ) -> bool {
        let k = self.hashes as usize;
        if k > RING_PROBES {
            return false;
        }
        let locate = |slot: &mut [u64; RING_PROBES], body: &[u8], h: u64| {
            for (position, probe) in slot.iter_mut().zip(hash::probes(h, self.hashes, self.range)) {
                *position = probe;
                crate::simd::prefetch(body, (probe >> self.shift) as usize);
            }
        };
        let mut ring = [[0u64; RING_PROBES]; RING_KEYS];
        for (slot, h) in ring.iter_mut().zip(hashes) {
            locate(slot, body.as_ref(), *h);
        }
        for i in 0..hashes.len() {
            let Some(slot) = ring.get_mut(i % RING_KEYS) else {
                continue;
            };
            work(body, i, slot.get(..k).unwrap_or(&[]));
            if let Some(ahead) = hashes.get(i + RING_KEYS) {
                locate(slot, body.as_ref(), *ahead);
            }
        }
        true
    }
}
