//! Helpers for the core's unit tests (compiled only under `cfg(test)`).

extern crate std;
use std::vec::Vec;

/// A heap buffer whose usable part starts on an 8-byte boundary.
pub struct AlignedBuf {
    storage: Vec<u8>,
    offset: usize,
    len: usize,
}

impl AlignedBuf {
    pub fn new(len: usize) -> Self {
        let storage = std::vec![0u8; len + 8];
        let offset = storage.as_ptr().align_offset(8);
        AlignedBuf { storage, offset, len }
    }

    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut b = Self::new(bytes.len());
        b.as_mut().copy_from_slice(bytes);
        b
    }

    pub fn as_ref(&self) -> &[u8] {
        &self.storage[self.offset..self.offset + self.len]
    }

    pub fn as_mut(&mut self) -> &mut [u8] {
        &mut self.storage[self.offset..self.offset + self.len]
    }
}

/// The batches the probe-ring tests of the Bloom and counting Bloom filters
/// add (see `filter::ProbeLayout::ringed`): for lengths around the ring's
/// size and a long one, random hashes followed by copies of the hashes 1,
/// 3 and 9 places back (repeats inside and past the ring). Returns each
/// batch with its random length.
pub fn ring_test_batches(seed: u64) -> impl Iterator<Item = (usize, Vec<u64>)> {
    [0usize, 1, 3, 4, 5, 8, 9, 17, 3000].into_iter().map(move |len| {
        let mut rng = SplitMix64(seed ^ len as u64);
        let mut hashes: Vec<u64> = (0..len).map(|_| rng.next_u64()).collect();
        for gap in [1usize, 3, 9] {
            if let Some(h) = hashes.len().checked_sub(gap + 1).and_then(|i| hashes.get(i).copied()) {
                hashes.push(h);
            }
        }
        (len, hashes)
    })
}

/// Compares a filter's batch query with its single queries over the
/// hashes (seed 4) of 3001 integer keys: every third key is `i / 3` (keys
/// `0..1000`, present in a filter that holds `0..items` for `items >=
/// 1000`), the others random. Every batch result starts wrong, so each must
/// be written. Returns the single answers, in key order.
pub fn assert_batch_queries_match_single(
    what: &str,
    single: impl Fn(u64) -> bool,
    batch: impl Fn(&[u64], &mut [bool]) -> crate::Result<()>,
) -> Vec<bool> {
    let mut rng = SplitMix64(crate::hash::hash_bytes(what.as_bytes(), 0));
    let hashes: Vec<u64> = (0..3001u64)
        .map(|i| if i % 3 == 0 { i / 3 } else { rng.next_u64() })
        .map(|k| crate::hash::hash_u64(k, 4))
        .collect();
    let answers: Vec<bool> = hashes.iter().map(|h| single(*h)).collect();
    let mut batched: Vec<bool> = answers.iter().map(|x| !x).collect();
    batch(&hashes, &mut batched).unwrap();
    assert_eq!(batched, answers, "{what}: batch != single");
    answers
}

/// SplitMix64: a small deterministic generator for test data.
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn fill(&mut self, out: &mut [u8]) {
        for chunk in out.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// The key shapes the statistical tests use; `present` selects disjoint
/// key spaces for inserted and queried keys.
#[derive(Copy, Clone, Debug)]
pub enum KeyShape {
    SequentialInt,
    PresentString,
    RandomBytes,
    Url,
}

pub const KEY_SHAPES: [KeyShape; 4] =
    [KeyShape::SequentialInt, KeyShape::PresentString, KeyShape::RandomBytes, KeyShape::Url];

/// Generates key `i` of a shape into `out` (cleared first).
pub fn make_key(shape: KeyShape, present: bool, i: u64, n_present: u64, out: &mut Vec<u8>) {
    use std::io::Write;
    out.clear();
    match shape {
        KeyShape::SequentialInt => {
            let v = if present { i } else { n_present + i };
            out.extend_from_slice(&v.to_le_bytes());
        }
        KeyShape::PresentString => {
            let _ = write!(out, "{}-{}", if present { "present" } else { "absent" }, i);
        }
        KeyShape::RandomBytes => {
            let mut rng = SplitMix64(i.wrapping_mul(2).wrapping_add(u64::from(present)) ^ 0x5eed);
            out.resize(16, 0);
            rng.fill(out);
        }
        KeyShape::Url => {
            let host = if present { "example.com" } else { "example.org" };
            let _ = write!(out, "https://{}/catalog/item/{}?ref=campaign-{}", host, i, i % 97);
        }
    }
}

/// Asserts that `hits` out of `trials` Bernoulli(`p`) draws is within ±4σ
/// (with a floor of 4 counts so tiny p does not make the test flaky).
pub fn assert_binomial(hits: u64, trials: u64, p: f64, what: &str) {
    let mean = trials as f64 * p;
    let sigma = (trials as f64 * p * (1.0 - p)).sqrt();
    let tol = (4.0 * sigma).max(4.0);
    assert!(
        (hits as f64 - mean).abs() <= tol,
        "{what}: {hits} hits in {trials} trials, expected {mean:.1} ± {tol:.1} (p = {p:.6})"
    );
}

/// Drives the checked import path of one family with damaged copies of a
/// valid exported image: every single-bit flip in the header, `body_flips`
/// random bit flips in the body, truncation at every length, and extension.
/// Each must be rejected by `import` and `verify`, the destination must stay
/// untouched, and zero-copy `exercise` on the damaged bytes (when its own
/// wrap accepts them) must not panic.
pub fn check_corruption(
    exported: &[u8],
    header_len: usize,
    body_flips: usize,
    import: fn(&[u8], &mut [u8]) -> crate::Result<usize>,
    verify: fn(&[u8]) -> crate::Result<()>,
    exercise: fn(&mut [u8]),
) {
    let mut dst = AlignedBuf::new(exported.len() + 64);
    dst.as_mut().fill(0xEE);
    let mut rng = SplitMix64(11);
    let mut positions: Vec<usize> = (0..header_len * 8).collect();
    let body_bits = (exported.len() - header_len) * 8;
    if body_bits > 0 {
        positions.extend((0..body_flips).map(|_| header_len * 8 + (rng.next_u64() as usize) % body_bits));
    }
    for bit in positions {
        let mut bad = exported.to_vec();
        bad[bit / 8] ^= 1 << (bit % 8);
        assert!(import(&bad, dst.as_mut()).is_err(), "bit flip {bit} accepted by import");
        assert!(verify(&bad).is_err(), "bit flip {bit} accepted by verify");
        let mut live = AlignedBuf::from_bytes(&bad);
        exercise(live.as_mut());
    }
    for len in 0..exported.len() {
        assert!(import(&exported[..len], dst.as_mut()).is_err(), "truncated to {len} accepted");
    }
    let mut longer = exported.to_vec();
    longer.extend_from_slice(&[0; 8]);
    assert_eq!(import(&longer, dst.as_mut()), Err(crate::Error::LengthMismatch));
    assert!(dst.as_ref().iter().all(|b| *b == 0xEE), "a failed import wrote to its destination");
    // Room for images that expand on import (compact small-mode exports).
    let mut ok = AlignedBuf::new(exported.len() * 4 + 4096);
    assert!(import(exported, ok.as_mut()).is_ok());
}

/// Checks that a merge operation on images is commutative, associative and
/// idempotent (compared on the bytes `body` extracts), given three images.
pub fn check_merge_laws(
    a: &[u8],
    b: &[u8],
    c: &[u8],
    merge: &dyn Fn(&mut [u8], &[u8]),
    body: fn(&[u8]) -> Vec<u8>,
) {
    let combine = |x: &[u8], y: &[u8]| {
        let mut out = AlignedBuf::from_bytes(x);
        merge(out.as_mut(), y);
        out
    };
    assert_eq!(body(combine(a, b).as_ref()), body(combine(b, a).as_ref()), "commutative");
    let left = combine(combine(a, b).as_ref(), c);
    let right = combine(a, combine(b, c).as_ref());
    assert_eq!(body(left.as_ref()), body(right.as_ref()), "associative");
    assert_eq!(body(combine(a, a).as_ref()), body(a), "idempotent");
}

/// What [`check_union_counts`] reads of a filter image: its inserted and
/// add-call counters, and whether its capacity flags are clear.
pub struct UnionCounters {
    pub inserted: u64,
    pub add_calls: u64,
    pub within_plan: bool,
}

/// Checks the union's "inserted" counter of a set filter (Bloom,
/// split-block) planned for 2,000 keys: a filter merged with a copy of
/// itself, or with shards that hold the same keys (a Spark aggregate over
/// partitions that all saw the hot keys), must not look over its plan
/// (before, every union added the other's inserted count, so 1,000 keys
/// merged with themselves 4 times counted 16,000); a subset adds nothing;
/// disjoint and partly overlapping shards, and 8 overlapping shards merged
/// in a tree, count within 3% of the same keys added in one stream (the
/// bound alone counted overlapping keys again). `filled(keys)` makes a
/// filter of the integer keys, `union` merges the second image into the
/// first.
pub fn check_union_counts(
    filled: &dyn Fn(core::ops::Range<u64>) -> AlignedBuf,
    union: &dyn Fn(&mut [u8], &[u8]),
    counters: fn(&[u8]) -> UnionCounters,
) {
    let merged = |base: core::ops::Range<u64>, other: core::ops::Range<u64>| {
        let mut dst = filled(base);
        union(dst.as_mut(), filled(other).as_ref());
        counters(dst.as_ref()).inserted
    };
    let mut total = filled(0..1000);
    for _ in 0..4 {
        let copy = AlignedBuf::from_bytes(total.as_ref());
        union(total.as_mut(), copy.as_ref());
    }
    let single = counters(filled(0..1000).as_ref()).inserted;
    let t = counters(total.as_ref());
    assert_eq!((t.inserted, t.add_calls), (single, 16_000));
    assert!(t.within_plan, "self-unions raised the capacity flags");
    assert_eq!(merged(0..1000, 200..700), single, "a subset added to the count");
    let one_stream = |keys: core::ops::Range<u64>| counters(filled(keys).as_ref()).inserted;
    let near = |count: u64, keys: core::ops::Range<u64>, what: &str| {
        let sequential = one_stream(keys);
        let error = count.abs_diff(sequential) as f64 / sequential as f64;
        assert!(error < 0.03, "{what}: {count} against {sequential} added in one stream");
    };
    let disjoint = merged(0..1000, 1000..1900);
    assert!(disjoint <= single + one_stream(1000..1900), "{disjoint} above the bound");
    near(disjoint, 0..1900, "disjoint shards");
    // Partly overlapping shards: the bound alone counted nearly 1,000 + 900
    // and 1,400 + 1,400.
    near(merged(0..1000, 900..1900), 0..1900, "shards sharing 100 keys");
    near(merged(0..1400, 500..1900), 0..1900, "shards sharing 900 keys");
    // 1,825 keys over 8 shards, each key in 3 or 4 of them (users seen in
    // several input partitions), merged in a tree as Spark merges partial
    // aggregates: the count stays the distinct keys' and within the plan.
    let mut level: Vec<AlignedBuf> = (0..8).map(|s| filled(s * 175..s * 175 + 600)).collect();
    while level.len() > 1 {
        level = level
            .chunks_mut(2)
            .map(|pair| {
                let (first, second) = pair.split_at_mut(1);
                union(first[0].as_mut(), second[0].as_ref());
                AlignedBuf::from_bytes(first[0].as_ref())
            })
            .collect();
    }
    let tree = counters(level[0].as_ref());
    near(tree.inserted, 0..1825, "8 overlapping shards merged in a tree");
    assert!(tree.within_plan, "8 overlapping shards raised the capacity flags: {}", tree.inserted);
}

/// Re-seals a damaged exported image with a valid checksum, as a hostile
/// writer would, so that only the family's body checks stand in the way.
pub fn reseal(bytes: &mut [u8]) {
    let sum = crate::image::checksum(bytes);
    crate::image::put_u64(bytes, 32, sum);
}

/// Deterministic fuzzing of one family's entry points: `rounds` mutated
/// copies of a valid image (random byte writes, random 64-bit header fields,
/// random truncation) are handed to `exercise`, which must not panic
/// whatever it is given (it calls wrap/wrap_mut/import/merge and the
/// operations on whatever is accepted).
pub fn fuzz_images(image: &[u8], header_len: usize, rounds: usize, exercise: fn(&mut [u8])) {
    let mut rng = SplitMix64(0xf022);
    for _ in 0..rounds {
        let mut bytes = image.to_vec();
        for _ in 0..1 + rng.next_u64() % 4 {
            match rng.next_u64() % 4 {
                0 => {
                    let at = (rng.next_u64() as usize) % bytes.len();
                    bytes[at] = rng.next_u64() as u8;
                }
                1 if bytes.len() >= header_len => {
                    let at = (rng.next_u64() as usize) % (header_len / 8) * 8;
                    let value = match rng.next_u64() % 3 {
                        0 => rng.next_u64(),
                        1 => rng.next_u64() % 4096,
                        _ => u64::MAX - rng.next_u64() % 16,
                    };
                    bytes[at..at + 8].copy_from_slice(&value.to_le_bytes());
                }
                2 if bytes.len() >= header_len => {
                    let at = (rng.next_u64() as usize) % header_len;
                    bytes[at] ^= 1 << (rng.next_u64() % 8);
                }
                1 | 2 => {}
                _ => {
                    let keep = (rng.next_u64() as usize) % (bytes.len() + 1);
                    bytes.truncate(keep.max(1));
                }
            }
        }
        let mut live = AlignedBuf::from_bytes(&bytes);
        exercise(live.as_mut());
    }
}

/// A non-capturing closure (usable as `fn(&mut [u8])`) that drives every
/// entry point of a membership-filter module (`bloom`, `sbbf`) on whatever
/// bytes it is given: import, verify, inspect, and, when `wrap_mut`
/// accepts them, updates, merges with a copy, queries, stats and clear.
macro_rules! exercise_filter {
    ($family:ident) => {
        |bytes: &mut [u8]| {
            use crate::$family::{import, verify, wrap, wrap_mut};
            let copy = crate::test_util::AlignedBuf::from_bytes(bytes);
            let mut dst = crate::test_util::AlignedBuf::new(bytes.len());
            let _ = import(bytes, dst.as_mut());
            let _ = verify(bytes);
            let _ = crate::image::inspect(bytes);
            if let Ok(mut f) = wrap_mut(bytes) {
                f.add_u64(1);
                f.add(b"key");
                let mut newly = [false; 3];
                let _ = f.add_hashes(&[1, 2, 3], Some(&mut newly));
                if let Ok(other) = wrap(copy.as_ref()) {
                    let _ = f.union(&other);
                    let _ = f.intersect(&other);
                }
                let view = f.as_ref();
                let _ = view.stats();
                let _ = view.capacity();
                let _ = view.contains_u64(1);
                let mut found = [false; 2];
                let _ = view.contains_hashes(&[5, 6], &mut found);
                f.clear();
            }
        }
    };
}
pub(crate) use exercise_filter;

/// Asserts that the adds of a distinct-counting module (`hll`, `ull`,
/// `ell`) leave byte-identical images on their three paths: the portable
/// code (`add_one` called directly, as compiled for baseline x86-64), and
/// the single and batch adds (`add_hash`, `add_hashes`), which run in the
/// copy compiled with LZCNT when the CPU has it (`simd::with_lzcnt`).
/// `$fresh` makes a fresh image buffer; `$what` names the case.
macro_rules! assert_add_paths_agree {
    ($family:ident, $fresh:expr, $hashes:expr, $what:expr) => {{
        use crate::$family::wrap_mut;
        let hashes: &[u64] = $hashes;
        let (mut portable, mut single, mut batch) = ($fresh, $fresh, $fresh);
        let mut s = wrap_mut(portable.as_mut()).unwrap();
        hashes.iter().for_each(|h| {
            s.add_one(*h);
        });
        let mut s = wrap_mut(single.as_mut()).unwrap();
        hashes.iter().for_each(|h| {
            s.add_hash(*h);
        });
        wrap_mut(batch.as_mut()).unwrap().add_hashes(hashes);
        assert!(portable.as_ref() == single.as_ref(), "{}: single adds", $what);
        assert!(portable.as_ref() == batch.as_ref(), "{}: batch adds", $what);
    }};
}
pub(crate) use assert_add_paths_agree;

/// Asserts that a batch add of `$hashes` (`add_hashes` with per-key
/// output) leaves the same image and outputs as one `add_hash` per hash,
/// for a filter module (`bloom`, `counting`); `$fresh` makes a fresh image
/// buffer, `$what` names the case.
macro_rules! assert_batch_adds_match_single {
    ($family:ident, $fresh:expr, $hashes:expr, $what:expr) => {{
        use crate::$family::wrap_mut;
        let hashes: &[u64] = $hashes;
        let (mut a, mut b) = ($fresh, $fresh);
        let mut fa = wrap_mut(a.as_mut()).unwrap();
        let single: std::vec::Vec<bool> = hashes.iter().map(|h| fa.add_hash(*h)).collect();
        let mut batch = std::vec![true; hashes.len()];
        wrap_mut(b.as_mut()).unwrap().add_hashes(hashes, Some(&mut batch)).unwrap();
        assert_eq!(single, batch, "{}", $what);
        assert_eq!(a.as_ref(), b.as_ref(), "{}", $what);
    }};
}
pub(crate) use assert_batch_adds_match_single;

/// A sketch whose accuracy [`trajectories`] measures: register-state
/// sketches (HyperLogLog, UltraLogLog) driven through their real `add_hash`.
pub trait Simulated {
    /// Empties the sketch.
    fn reset(&mut self);
    /// Adds one hash.
    fn add_hash(&mut self, hash: u64);
    /// True once the state is registers only (so hashes that change no
    /// register can be skipped without changing the sketch).
    fn is_dense(&self) -> bool;
    /// The state byte of register `i`.
    fn state(&self, i: usize) -> u8;
    /// The distinct-count estimate.
    fn estimate(&self) -> f64;
}

/// Per-checkpoint error statistics over many trials.
pub struct ErrorStats {
    /// Sum of relative errors per checkpoint.
    pub sum: Vec<f64>,
    /// Sum of squared relative errors per checkpoint.
    pub sum_sq: Vec<f64>,
    /// Largest absolute error (in items) per checkpoint.
    pub max_abs: Vec<f64>,
    pub trials: u64,
}

impl ErrorStats {
    pub fn bias(&self, j: usize) -> f64 {
        self.sum[j] / self.trials as f64
    }
    pub fn rmse(&self, j: usize) -> f64 {
        (self.sum_sq[j] / self.trials as f64).sqrt()
    }
}

/// Checkpoints spread log-uniformly from 1 to `max` (`per_decade` per power of ten).
pub fn log_checkpoints(max: u64, per_decade: u32) -> Vec<u64> {
    let mut out: Vec<u64> = Vec::new();
    let mut j = 0u32;
    loop {
        let n = 10f64.powf(f64::from(j) / f64::from(per_decade)).round() as u64;
        if n > max {
            break;
        }
        if out.last() != Some(&n) {
            out.push(n);
        }
        j += 1;
    }
    out
}

/// Runs `trials` independent streams of distinct random 64-bit hashes
/// through sketches made by `make`, recording the relative error of the
/// estimate at every checkpoint. Streams are simulated exactly but cheaply:
/// hashes are added one by one until the sketch is dense; from then on
/// only hashes that change a register are generated (with the geometric
/// number of skipped, state-preserving hashes in between), which is the
/// same distribution of states at every count, so 10^9 is cheap. `changes`
/// tells whether update value `k` changes register state `s` at precision
/// `p`. The first `direct_until` hashes are always added one by one. Work
/// is split over two threads.
pub fn trajectories<S: Simulated>(
    make: &(dyn Fn() -> S + Sync),
    p: u8,
    changes: fn(u8, u8, u8) -> bool,
    checkpoints: &[u64],
    trials: u64,
    seed: u64,
    direct_until: u64,
) -> ErrorStats {
    let run = |first: u64, step: u64| {
        let mut stats = ErrorStats {
            sum: std::vec![0.0; checkpoints.len()],
            sum_sq: std::vec![0.0; checkpoints.len()],
            max_abs: std::vec![0.0; checkpoints.len()],
            trials: 0,
        };
        let mut sketch = make();
        let mut trial = first;
        while trial < trials {
            // Unrelated starting states: consecutive SplitMix64 seeds would give
            // streams that are shifted copies of each other.
            let mut rng = SplitMix64(crate::hash::remix(crate::hash::remix(seed) ^ trial));
            sketch.reset();
            one_trajectory(&mut sketch, p, changes, checkpoints, direct_until, &mut rng, &mut stats);
            stats.trials += 1;
            trial += step;
        }
        stats
    };
    let (a, b) = std::thread::scope(|s| {
        let h = s.spawn(|| run(1, 2));
        (run(0, 2), h.join().unwrap())
    });
    let mut total = a;
    for j in 0..checkpoints.len() {
        total.sum[j] += b.sum[j];
        total.sum_sq[j] += b.sum_sq[j];
        total.max_abs[j] = total.max_abs[j].max(b.max_abs[j]);
    }
    total.trials += b.trials;
    total
}

fn record(stats: &mut ErrorStats, j: usize, n: u64, estimate: f64) {
    let err = (estimate - n as f64) / n as f64;
    stats.sum[j] += err;
    stats.sum_sq[j] += err * err;
    stats.max_abs[j] = stats.max_abs[j].max((estimate - n as f64).abs());
}

fn update_probability(k: u8, q: u8) -> f64 {
    if k > q {
        2f64.powi(-i32::from(q))
    } else {
        2f64.powi(-i32::from(k))
    }
}

/// A hash of register `i` with update value `k` at precision `p`.
fn hash_for(i: usize, k: u8, p: u8, rng: &mut SplitMix64) -> u64 {
    let q = 64 - u32::from(p);
    let k = u32::from(k);
    let rest = if k > q { 0 } else { (1u64 << (q - k)) | (rng.next_u64() & ((1u64 << (q - k)) - 1)) };
    ((i as u64) << q) | rest
}

fn one_trajectory<S: Simulated>(
    sketch: &mut S,
    p: u8,
    changes: fn(u8, u8, u8) -> bool,
    checkpoints: &[u64],
    direct_until: u64,
    rng: &mut SplitMix64,
    stats: &mut ErrorStats,
) {
    let last = *checkpoints.last().unwrap();
    let mut next = 0usize;
    let mut n = 0u64;
    // Direct phase: real random hashes until the sketch is registers only.
    while n < last && (n < direct_until || !sketch.is_dense()) {
        sketch.add_hash(rng.next_u64());
        n += 1;
        while next < checkpoints.len() && checkpoints[next] == n {
            record(stats, next, n, sketch.estimate());
            next += 1;
        }
    }
    if n >= last {
        return;
    }
    // Jump phase: registers grouped by state; weight[s] = P(change | hit).
    let q = 64 - p;
    let m = 1usize << p;
    let mut weight = [0f64; 256];
    for (s, w) in weight.iter_mut().enumerate() {
        *w = (1..=q + 1).filter(|k| changes(s as u8, *k, p)).map(|k| update_probability(k, q)).sum();
    }
    let mut members: Vec<Vec<u32>> = std::vec![Vec::new(); 256];
    let mut position = std::vec![0u32; m];
    for (i, slot) in position.iter_mut().enumerate() {
        let s = sketch.state(i) as usize;
        *slot = members[s].len() as u32;
        members[s].push(i as u32);
    }
    let total_weight =
        |members: &Vec<Vec<u32>>| (0..256).map(|s| members[s].len() as f64 * weight[s]).sum::<f64>();
    let mut total = total_weight(&members);
    let mut changes_done = 0u64;
    // States only grow, so the occupied range [lo, hi] only moves up.
    let mut lo = (0..256).find(|s| !members[*s].is_empty()).unwrap_or(0);
    let mut hi = (0..256).rev().find(|s| !members[*s].is_empty()).unwrap_or(255);
    while n < last {
        let p_change = total / m as f64;
        if p_change <= 0.0 {
            break;
        }
        // Hashes that change nothing before the next change: geometric.
        let u = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        let skip = if p_change >= 1.0 { 0.0 } else { ((1.0 - u).ln() / (-p_change).ln_1p()).floor() };
        let changed_at = if skip >= (last - n) as f64 { last + 1 } else { n + skip as u64 + 1 };
        if next < checkpoints.len() && checkpoints[next] < changed_at {
            let estimate = sketch.estimate();
            while next < checkpoints.len() && checkpoints[next] < changed_at {
                record(stats, next, checkpoints[next], estimate);
                next += 1;
            }
        }
        if changed_at > last {
            break;
        }
        n = changed_at;
        // Pick the changing register (by state weight, then uniformly) and its update value.
        let mut target = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) * total;
        let mut state = hi;
        for s in lo..=hi {
            let w = members[s].len() as f64 * weight[s];
            if w > 0.0 {
                state = s;
                if target < w {
                    break;
                }
                target -= w;
            }
        }
        let list = &members[state];
        let i = list[(rng.next_u64() % list.len() as u64) as usize] as usize;
        let mut target = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) * weight[state];
        let mut k = q + 1;
        for candidate in 1..=q + 1 {
            if changes(state as u8, candidate, p) {
                k = candidate;
                let w = update_probability(candidate, q);
                if target < w {
                    break;
                }
                target -= w;
            }
        }
        sketch.add_hash(hash_for(i, k, p, rng));
        let new_state = sketch.state(i) as usize;
        assert_ne!(new_state, state, "register {i} in state {state} did not change with k = {k}");
        // Move register i between groups.
        let at = position[i] as usize;
        members[state].swap_remove(at);
        if let Some(moved) = members[state].get(at) {
            position[*moved as usize] = at as u32;
        }
        position[i] = members[new_state].len() as u32;
        members[new_state].push(i as u32);
        total += weight[new_state] - weight[state];
        assert!(new_state > state, "register states must only grow");
        hi = hi.max(new_state);
        while members[lo].is_empty() {
            lo += 1;
        }
        changes_done += 1;
        if changes_done.is_multiple_of(4096) {
            total = total_weight(&members);
        }
        while next < checkpoints.len() && checkpoints[next] == n {
            record(stats, next, n, sketch.estimate());
            next += 1;
        }
    }
}

/// A live image copied into atomic words (for the shared, concurrent views).
pub fn to_atomic(bytes: &[u8]) -> Vec<core::sync::atomic::AtomicU64> {
    bytes
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            core::sync::atomic::AtomicU64::new(u64::from_le_bytes(w))
        })
        .collect()
}

/// The bytes of atomic words (after the threads using them are joined).
pub fn from_atomic(words: &[core::sync::atomic::AtomicU64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.load(core::sync::atomic::Ordering::Relaxed).to_le_bytes()).collect()
}

/// Runs `threads` threads; thread `t` calls `work(t)`. Joined before returning.
pub fn in_threads(threads: usize, work: impl Fn(usize) + Sync) {
    std::thread::scope(|s| {
        for t in 0..threads {
            let work = &work;
            s.spawn(move || work(t));
        }
    });
}

/// True for the full statistical characterization
/// (`SKETCHES_FULL_ACCURACY=1`, `make characterize`): the trial counts and
/// the specification's bounds the README quotes. The default (`cargo
/// test`, `make test`, CI) runs fewer trials with bounds widened by the
/// extra sampling noise (see [`rmse_bound_factor`], [`bias_bound`]), so the
/// whole suite fits CI's time budget on a 2-core machine.
pub fn full_accuracy() -> bool {
    std::env::var_os("SKETCHES_FULL_ACCURACY").is_some()
}

/// `full` trials in the full characterization, `quick` otherwise.
pub fn trials(quick: u64, full: u64) -> u64 {
    if full_accuracy() {
        full
    } else {
        quick
    }
}

/// The factor on a relative standard error that an RMSE measured over
/// `trials` trials must stay below: the specification's 1.10 in the full
/// characterization; in the quick run, 1.10 widened by 2.5 standard errors
/// of an RMSE estimate (`1/sqrt(2T)`).
pub fn rmse_bound_factor(trials: u64) -> f64 {
    if full_accuracy() {
        1.10
    } else {
        1.10 + 2.5 / (2.0 * trials as f64).sqrt()
    }
}

/// The bound on |mean relative bias| over `trials` trials of an estimator
/// with relative standard error `rse`: the specification's 0.2%, or four
/// standard errors of the mean when that is larger (quick runs).
pub fn bias_bound(rse: f64, trials: u64) -> f64 {
    if full_accuracy() {
        0.002
    } else {
        0.002f64.max(4.0 * rse / (trials as f64).sqrt())
    }
}

/// One family's entry points for [`check_tokens`]: `add` and `query` use the
/// token when given one and the plain `wrap`/`wrap_mut` otherwise; `query`
/// returns a number (0/1 for membership, the estimate's bits for counts).
pub struct TokenOps {
    pub token: fn(&[u8]) -> crate::Result<crate::image::Token>,
    pub add: fn(&mut [u8], Option<&crate::image::Token>, u64) -> crate::Result<()>,
    pub query: fn(&[u8], Option<&crate::image::Token>, u64) -> crate::Result<u64>,
    /// `add` and `query` through `wrap_mut_trusted` and `wrap_trusted`
    /// (a kept view's token, see [`check_trusted`]).
    pub add_trusted: fn(&mut [u8], &crate::image::Token, u64) -> crate::Result<()>,
    pub query_trusted: fn(&[u8], &crate::image::Token, u64) -> crate::Result<u64>,
}

/// [`TokenOps`] of a family module whose views have `add_u64`: `query`
/// maps the view `$view` (from `wrap_with` or `wrap`) and the key `$key` to
/// a number.
macro_rules! token_ops {
    ($m:path, |$view:ident, $key:ident| $query:expr) => {{
        use $m as family;
        crate::test_util::TokenOps {
            token: family::token,
            add: |buf, t, k| {
                match t {
                    Some(t) => family::wrap_mut_with(buf, t)?.add_u64(k),
                    None => family::wrap_mut(buf)?.add_u64(k),
                };
                Ok(())
            },
            query: |buf, t, $key| {
                let $view = match t {
                    Some(t) => family::wrap_with(buf, t)?,
                    None => family::wrap(buf)?,
                };
                Ok($query)
            },
            add_trusted: |buf, t, k| {
                family::wrap_mut_trusted(buf, t)?.add_u64(k);
                Ok(())
            },
            query_trusted: |buf, t, $key| {
                let $view = family::wrap_trusted(buf, t)?;
                Ok($query)
            },
        }
    }};
}
pub(crate) use token_ops;

/// The token contract (see [`crate::image::Token`]) on the valid live image
/// `image`, given `other` (same family, other parameters) and `foreign`
/// (another family):
/// * adds and queries with the token give the bytes and answers of the
///   plain calls, and so do a zero token and `other`'s (stale) token;
/// * on `foreign`, a short or a misaligned buffer the token changes nothing:
///   the call fails as the plain call does;
/// * a flip of any bit of an identity word makes the token miss, so the call
///   answers exactly as the plain call (an error for a damaged header); a flip
///   anywhere else in the header never panics.
pub fn check_tokens<F: crate::image::ImageFamily>(
    image: &[u8],
    other: &[u8],
    foreign: &[u8],
    ops: &TokenOps,
) {
    use crate::image::{Token, COMMON_HEADER_LEN};
    let token = (ops.token)(image).unwrap();
    let stale = (ops.token)(other).unwrap();
    assert_ne!(token, stale);
    assert!((ops.token)(foreign).is_err());
    let plain = {
        let mut b = AlignedBuf::from_bytes(image);
        for k in 0..2000 {
            (ops.add)(b.as_mut(), None, k).unwrap();
        }
        b
    };
    for t in [token, Token::default(), stale] {
        let mut b = AlignedBuf::from_bytes(image);
        for k in 0..2000 {
            (ops.add)(b.as_mut(), Some(&t), k).unwrap();
        }
        assert_eq!(b.as_ref(), plain.as_ref(), "adds with token {t:?}");
        for k in 1000..3000 {
            assert_eq!((ops.query)(b.as_ref(), Some(&t), k), (ops.query)(b.as_ref(), None, k));
        }
    }
    let foreign = AlignedBuf::from_bytes(foreign);
    assert_eq!((ops.query)(foreign.as_ref(), Some(&token), 1), (ops.query)(foreign.as_ref(), None, 1));
    assert!((ops.query)(foreign.as_ref(), Some(&token), 1).is_err());
    let mut short = AlignedBuf::from_bytes(&image[..image.len() - 8]);
    assert!((ops.add)(short.as_mut(), Some(&token), 1).is_err());
    assert_eq!((ops.query)(short.as_ref(), Some(&token), 1), (ops.query)(short.as_ref(), None, 1));
    let mut shifted = AlignedBuf::new(image.len() + 1);
    shifted.as_mut()[1..].copy_from_slice(image);
    let misaligned = &shifted.as_ref()[1..];
    assert_eq!((ops.query)(misaligned, Some(&token), 1), Err(crate::Error::Misaligned));
    let identity = |byte: usize, bit: usize| {
        byte < 32
            || F::IDENTITY.iter().any(|&(off, mask)| {
                (off..off + 8).contains(&byte) && mask >> (8 * (byte - off) + bit) & 1 == 1
            })
    };
    let header_len = usize::from(u16::from_le_bytes([image[10], image[11]]));
    assert!(header_len >= COMMON_HEADER_LEN);
    let (mut identity_bits, mut trusted_skips) = (0, 0);
    for byte in 0..header_len {
        for bit in 0..8 {
            let mut bad = AlignedBuf::from_bytes(image);
            bad.as_mut()[byte] ^= 1 << bit;
            let with = (ops.query)(bad.as_ref(), Some(&token), 7);
            if identity(byte, bit) {
                identity_bits += 1;
                assert_eq!(with, (ops.query)(bad.as_ref(), None, 7), "identity bit {bit} of byte {byte}");
                let mut bad_plain = AlignedBuf::from_bytes(bad.as_ref());
                let added = (ops.add)(bad.as_mut(), Some(&token), 7);
                assert_eq!(
                    added,
                    (ops.add)(bad_plain.as_mut(), None, 7),
                    "identity bit {bit} of byte {byte}"
                );
                assert_eq!(bad.as_ref(), bad_plain.as_ref());
            } else {
                // Checked by the validation, skipped with the token: the
                // token path is taken (and stays panic-free).
                if with.is_ok() && (ops.query)(bad.as_ref(), None, 7).is_err() {
                    trusted_skips += 1;
                }
                let _ = (ops.add)(bad.as_mut(), Some(&token), 7);
            }
        }
    }
    assert!(identity_bits >= 256);
    assert!(trusted_skips > 0, "the token never skipped a check");
    // Tokens filled by hand from damaged headers skip every check: the
    // calls must still return (no panic, no endless probe loop).
    let mut rng = SplitMix64(0x70c3);
    for round in 0..2000 {
        let mut bad = AlignedBuf::from_bytes(image);
        for _ in 0..1 + round % 3 {
            let off = 8 * (rng.next_u64() as usize % (header_len / 8));
            let value = match rng.next_u64() % 4 {
                0 => 0,
                1 => u64::MAX,
                2 => rng.next_u64() % 256,
                _ => rng.next_u64(),
            };
            bad.as_mut()[off..off + 8].copy_from_slice(&value.to_le_bytes());
        }
        let forged = crate::image::forged_token::<F>(bad.as_ref());
        let _ = (ops.query)(bad.as_ref(), Some(&forged), round);
        let _ = (ops.add)(bad.as_mut(), Some(&forged), round);
    }
}

/// The kept-view contract (`wrap_trusted`, `wrap_mut_trusted`: the token
/// alone describes the image) on the valid live image `image`, given
/// `other` (same family, other parameters):
/// * with `image`'s token, adds and queries give the plain calls' bytes and
///   answers, and so does a zero token (out of range: full validation);
/// * with `other`'s token (a view kept across a re-init with other
///   parameters) and with tokens forged from damaged headers or random
///   words, the calls return (no panic) and touch only the buffer.
pub fn check_trusted(image: &[u8], other: &[u8], ops: &TokenOps) {
    use crate::image::Token;
    let token = (ops.token)(image).unwrap();
    let stale = (ops.token)(other).unwrap();
    let mut plain = AlignedBuf::from_bytes(image);
    for k in 0..2000 {
        (ops.add)(plain.as_mut(), None, k).unwrap();
    }
    for t in [token, Token::default()] {
        let mut b = AlignedBuf::from_bytes(image);
        for k in 0..2000 {
            (ops.add_trusted)(b.as_mut(), &t, k).unwrap();
        }
        assert_eq!(b.as_ref(), plain.as_ref(), "adds with kept token {t:?}");
        for k in 1000..3000 {
            assert_eq!((ops.query_trusted)(b.as_ref(), &t, k), (ops.query)(b.as_ref(), None, k));
        }
    }
    let mut rng = SplitMix64(0x7e57);
    for round in 0..3000u64 {
        let mut t = if round % 2 == 0 { stale } else { token };
        for _ in 0..round % 4 {
            let word = rng.next_u64() as usize % t.words.len();
            t.words[word] = match rng.next_u64() % 4 {
                0 => 0,
                1 => u64::MAX,
                2 => rng.next_u64() % 64,
                _ => rng.next_u64(),
            };
        }
        let mut b = AlignedBuf::from_bytes(image);
        let _ = (ops.query_trusted)(b.as_ref(), &t, round);
        let _ = (ops.add_trusted)(b.as_mut(), &t, round);
        let mut short = AlignedBuf::from_bytes(&image[..image.len() / 2]);
        let _ = (ops.add_trusted)(short.as_mut(), &t, round);
    }
}
