//! Pieces shared by the membership filters (Bloom, split-block Bloom,
//! counting Bloom): capacity flags, bit counting, the prefetching
//! pipeline of the Bloom filters' batch adds and their batch queries by
//! rounds.

use crate::hash;

/// Bitmask telling whether a filter is past what it was planned for.
///
/// The seeds' worst anti-pattern is silent overfill: a filter planned for
/// 100,000 items that receives 1,000,000 answers "maybe" to 99.5% of absent
/// keys. Every filter reports these flags without a scan of its body
/// (O(1); a split-block filter's sums about 12√λ + 30 Poisson terms for a
/// mean block load λ), except a split-block filter loaded from a Parquet
/// bitset, whose counters do not count its items: it scans (O(m)), see
/// [`crate::sbbf::Sbbf::capacity`].
///
/// The type is `#[must_use]`: a `filter.capacity();` whose flags are
/// dropped unread is the silent overfill again, so it does not compile
/// under `#![deny(unused_must_use)]` (a warning otherwise):
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// use sketches_core::bloom::{self, BloomParams};
/// use sketches_core::image::ImageBuf;
/// # fn main() -> Result<(), sketches_core::Error> {
/// let mut buf = ImageBuf::<1344>::new();
/// let filter = bloom::init(&mut buf, &BloomParams::for_items(1_000, 0.01)?, 0)?;
/// filter.as_ref().capacity(); // error: unused `CapacityFlags` that must be used
/// # Ok(())
/// # }
/// ```
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
#[must_use = "the flags are the over-capacity signal: check them (`is_within_plan`)"]
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

/// `dst |= src` (8 bytes at a time), returning how many bits of `dst` went
/// from 0 to 1 and how many are set afterwards, in one pass.
///
/// The unions of the Bloom and split-block filters bound their "inserted"
/// counter with the first count: each of `src`'s keys that would set a new
/// bit if it were added to `dst` sets at least one bit no other key sets
/// first, so no more of them than this count can be new.
pub(crate) fn or_into_counting(dst: &mut [u8], src: &[u8]) -> OrCounts {
    let (dst_words, dst_rest) = dst.as_chunks_mut::<8>();
    let (src_words, src_rest) = src.as_chunks::<8>();
    let mut counts = OrCounts { new_bits: 0, set_bits: 0 };
    for (d, s) in dst_words.iter_mut().zip(src_words) {
        let (old, add) = (u64::from_le_bytes(*d), u64::from_le_bytes(*s));
        counts.new_bits += u64::from((add & !old).count_ones());
        counts.set_bits += u64::from((old | add).count_ones());
        *d = (old | add).to_le_bytes();
    }
    for (d, s) in dst_rest.iter_mut().zip(src_rest) {
        counts.new_bits += u64::from((*s & !*d).count_ones());
        *d |= *s;
        counts.set_bits += u64::from(d.count_ones());
    }
    counts
}

/// The inserted count of a Bloom or split-block filter after a union:
/// the distinct keys estimated from the union's set bits
/// (`estimated_items`), kept between two bounds. The upper bound is
/// `dst + min(src, new_bits)`: each of `src`'s keys that would be new here
/// sets at least one bit no other key sets first, so no more of them than
/// the bits the union set can be new (exact, and the count unchanged, when
/// `src` is a subset: merging a filter with a copy of itself). The lower
/// bound is the larger of the two counts (the union holds every key of
/// each), capped by the upper one. Without the estimate, shards whose keys
/// partly overlap (the same users in every input partition of a Spark
/// aggregate) added nearly their whole counts: 10,000 distinct keys in 8
/// partitions counted 20,353 and raised over-planned-items against a plan
/// of 20,000. With it the count is within the estimate's error of the
/// distinct keys (a fraction of a percent near the plan), whatever the
/// partitioning; an infinite estimate (every bit set) takes the upper bound.
pub(crate) fn union_inserted(dst: u64, src: u64, new_bits: u64, estimated_items: f64) -> u64 {
    let upper = dst.saturating_add(src.min(new_bits));
    let lower = dst.max(src).min(upper);
    if estimated_items.is_nan() || estimated_items >= upper as f64 {
        return upper;
    }
    // A float in [0, upper) rounds to an integer in [0, upper]: `as`
    // saturates, negative estimates (none: the bits only grow) give 0.
    (libm::round(estimated_items) as u64).clamp(lower, upper)
}

/// What [`or_into_counting`] counted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct OrCounts {
    /// Bits that went from 0 to 1.
    pub(crate) new_bits: u64,
    /// Bits set after the OR, over the whole of `dst`.
    pub(crate) set_bits: u64,
}

/// `dst &= src`, byte-wise (vectorized by the compiler).
pub(crate) fn and_into(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d &= *s;
    }
}

/// How many keys ahead of the one being worked on the batch adds of the
/// Bloom and counting Bloom filters with more probes than
/// [`ProbeLayout::ringed`] holds prefetch: the probes of key
/// `i + PREFETCH_DISTANCE` are requested while key `i` is set, so the
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

/// Keys per group of the Bloom and counting Bloom filters' batch queries
/// (`contains_hashes`, which test a group's first two probes in rounds):
/// each round's loop ends once per group (a mispredicted exit), and the
/// group's lists take 288 bytes of stack. Callers that hash keys in chunks
/// before a batch query (the C ABI does) pass chunks of this many keys;
/// smaller chunks make smaller groups (16 keys measured 1.35x against
/// 1.7x the single-key loop for 32).
pub const ROUND_KEYS: usize = 32;

/// Batch membership test of the Bloom and counting Bloom filters, by
/// rounds: `results[i]` is true when `is_set` holds at all `k` probe
/// positions of `hashes[i]` ([`hash::probes`] over `0..range`), the answer
/// of a single-key test. `hashes` and `results` have the same length.
///
/// A single-key test stops at the first probe that is not set, and for an
/// absent key whether a probe is set is a coin toss (half the bits of a
/// filter at its design fill are set), so a single-key loop over absent
/// keys mispredicts about once per key, and each misprediction discards
/// the loads issued for the keys after it. Here each group of
/// [`ROUND_KEYS`] keys runs its first two probes in rounds: round 0 reads
/// probe 0 of every key, round 1 probe 1 of the keys whose probe 0 is set,
/// and each round keeps a list of the keys still in the running (the list
/// slot is written for every key; the count grows by one when the probe is
/// set). No branch depends on those probes, the loads of a round are
/// independent of each other, and three absent keys in four are decided.
/// The keys left (every present key) then read their other probes as a
/// single-key test does, up to the first that is not set: for present keys
/// those branches all go the same way. A group where three keys in four or
/// more pass round 0 (present keys, or an overfilled filter) skips round 1,
/// which would decide few of them: its keys go on from probe 1 as
/// single-key tests. Each key reads exactly the probes a single-key test
/// reads.
#[inline(always)]
pub(crate) fn contains_by_rounds(
    hashes: &[u64],
    results: &mut [bool],
    k: u32,
    range: u64,
    is_set: impl Fn(u64) -> bool,
) {
    // One call site of the group (each inlined copy would have its own
    // lists on the stack); `split_at_checked` has no panic path.
    let (mut hashes, mut results) = (hashes, results);
    while let (Some((hs, hashes_rest)), Some((rs, results_rest))) = (
        hashes.split_at_checked(hashes.len().min(ROUND_KEYS)),
        results.split_at_mut_checked(results.len().min(ROUND_KEYS)),
    ) {
        if hs.is_empty() {
            break;
        }
        group_by_rounds(hs, rs, k, range, &is_set);
        (hashes, results) = (hashes_rest, results_rest);
    }
}

/// [`contains_by_rounds`] of at most [`ROUND_KEYS`] keys.
#[inline(always)]
fn group_by_rounds(hs: &[u64], rs: &mut [bool], k: u32, range: u64, is_set: &impl Fn(u64) -> bool) {
    // The keys still in the running (index in the group) and their `y_0`
    // (`hash::probes`: `x_0 = h`, `y_0 = fmix64(h)`, `x_{i+1} = x_i + y_i`,
    // `y_{i+1} = y_i + i`, so `x_1 = h + y_0`, `x_2 = h + 2 y_0`, `y_2 =
    // y_0 + 1`).
    let mut keys = [0u8; ROUND_KEYS];
    let mut ys = [0u64; ROUND_KEYS];
    // Every list slot is written, the count grows when the probe is set.
    // `running <= j < ROUND_KEYS`: the mask only spares a bounds check.
    let mut running = 0;
    // Round 0: probe 0 is the hash itself. `y_0` is computed for every
    // key: off the path of the loads, it costs less than computing it in
    // round 1, where it would lengthen each load's chain.
    for (j, (h, r)) in hs.iter().zip(rs.iter_mut()).enumerate() {
        *r = false;
        // With no probes (`k = 0`) every key passes, as in a single-key test.
        let set = (k == 0) | is_set(hash::reduce(*h, range));
        let slot = running % ROUND_KEYS;
        if let (Some(key), Some(y)) = (keys.get_mut(slot), ys.get_mut(slot)) {
            (*key, *y) = (j as u8, hash::remix(*h));
        }
        running += usize::from(set);
    }
    // Round 1 (probe 1) pays when round 0 decided keys: not when three in
    // four or more passed it (a group of present keys, whose probes all
    // pass; absent keys pass a probe about half the time at the design
    // fill), whose keys go on to probe 1 as single-key tests.
    let first = if k >= 2 && 4 * running <= 3 * hs.len() {
        // The list compacts in place (`running <= t`, and slot `t` was
        // read first).
        let before = running;
        running = 0;
        for t in 0..before {
            let (Some(&key), Some(&y)) = (keys.get(t), ys.get(t)) else {
                break;
            };
            let h = hs.get(usize::from(key)).copied().unwrap_or(0);
            let set = is_set(hash::reduce(h.wrapping_add(y), range));
            let slot = running % ROUND_KEYS;
            if let (Some(key_), Some(y_)) = (keys.get_mut(slot), ys.get_mut(slot)) {
                (*key_, *y_) = (key, y);
            }
            running += usize::from(set);
        }
        2
    } else {
        1
    };
    // The keys that passed the rounds (all present keys, a quarter of the
    // absent ones at the design fill after two rounds): the rest of their
    // probes from probe `first`, each key to its first unset probe, as a
    // single-key test (a present key's branches all go the same way).
    // `x_1 = h + y_0`, `y_1 = y_0`; `x_2 = h + 2 y_0`, `y_2 = y_0 + 1`.
    for t in 0..running {
        let (Some(&key), Some(&y0)) = (keys.get(t), ys.get(t)) else {
            break;
        };
        let h = hs.get(usize::from(key)).copied().unwrap_or(0);
        let (mut x, mut y) =
            (h.wrapping_add(y0.wrapping_mul(u64::from(first))), y0.wrapping_add(u64::from(first - 1)));
        let mut all = true;
        for i in first..k {
            if !is_set(hash::reduce(x, range)) {
                all = false;
                break;
            }
            x = x.wrapping_add(y);
            y = y.wrapping_add(u64::from(i));
        }
        if let Some(r) = rs.get_mut(usize::from(key)) {
            *r = all;
        }
    }
}

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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::test_util::SplitMix64;
    use std::vec::Vec;

    /// Batch tests by rounds answer as single-key tests, for every probe
    /// count from 0 to 12, batch lengths around the group size, and bit
    /// maps from empty to full (keys then leave in every round, or none do).
    #[test]
    fn rounds_answer_as_single_key_tests() {
        let range = 4096u64;
        let mut rng = SplitMix64(11);
        for percent_set in [0u64, 30, 50, 75, 90, 100] {
            let bits: Vec<bool> = (0..range).map(|_| rng.next_u64() % 100 < percent_set).collect();
            let is_set = |i: u64| bits.get(i as usize).copied().unwrap_or(false);
            for k in 0..=12 {
                for len in [0usize, 1, 2, 31, 32, 33, 63, 64, 65, 100, 1000] {
                    let hashes: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
                    let single: Vec<bool> =
                        hashes.iter().map(|h| hash::probes(*h, k, range).all(is_set)).collect();
                    // Every result starts wrong: each must be written.
                    let mut batch: Vec<bool> = single.iter().map(|x| !x).collect();
                    contains_by_rounds(&hashes, &mut batch, k, range, is_set);
                    assert_eq!(batch, single, "{percent_set}% set, k = {k}, {len} keys");
                }
            }
        }
    }
}
