use super::*;
use crate::cardinality::split_hash;
use crate::test_util::{
    bias_bound, log_checkpoints, reseal, rmse_bound_factor, trials, Simulated, SplitMix64,
};
use crate::test_util::{check_corruption, check_merge_laws, fuzz_images, trajectories, AlignedBuf};
extern crate std;
use std::vec::Vec;

fn fresh(p: u8, seed: u64) -> AlignedBuf {
    let mut buf = AlignedBuf::new(image_len(p).unwrap() as usize);
    init(buf.as_mut(), p, seed).unwrap();
    buf
}

/// Register values computed directly from a list of hashes.
fn reference_registers(hashes: &[u64], p: u8) -> Vec<u8> {
    let mut regs = std::vec![0u8; registers(p)];
    for h in hashes {
        let (i, k) = split_hash(*h, p);
        regs[i] = regs[i].max(k);
    }
    regs
}

fn values(buf: &[u8]) -> Vec<u8> {
    let view = wrap(buf).unwrap();
    let mut out = std::vec![0u8; registers(view.precision())];
    view.register_values(&mut out).unwrap();
    out
}

fn random_hashes(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix64(seed);
    (0..n).map(|_| rng.next_u64()).collect()
}

#[test]
fn sizes_follow_precision() {
    assert_eq!(image_len(14).unwrap(), 384 + (12_288 + 8u64).next_multiple_of(64));
    assert_eq!(image_len(10).unwrap(), 384 + 1024);
    assert_eq!(image_len(4).unwrap(), 384 + 1024);
    assert_eq!(image_len(18).unwrap(), 384 + (196_608 + 8u64).next_multiple_of(64));
    assert_eq!(small_capacity(10), 128);
    assert_eq!(small_capacity(12), 392);
    assert_eq!(small_capacity(14), 1024);
    assert_eq!(image_len(3), Err(Error::InvalidParameter));
    assert_eq!(image_len(19), Err(Error::InvalidParameter));
    let mut small = AlignedBuf::new(100);
    assert_eq!(init(small.as_mut(), 12, 0).err(), Some(Error::BufferTooSmall));
}

#[test]
fn small_mode_is_exact_then_converts_to_the_same_registers() {
    for p in [4u8, 10, 12, 14, 18] {
        let cap = small_capacity(p);
        let hashes = random_hashes(cap + 50, u64::from(p));
        let mut buf = fresh(p, 3);
        for (n, h) in hashes.iter().enumerate() {
            let mut s = wrap_mut(buf.as_mut()).unwrap();
            let changed = s.add_hash(*h);
            assert!(changed || n >= cap, "a new hash changes a small-mode sketch");
            assert!(!s.add_hash(*h), "a repeated hash changes nothing");
            let view = s.as_ref();
            if n < cap {
                assert_eq!(view.mode(), HllMode::Small);
                assert_eq!(view.estimate(), (n + 1) as f64, "p={p}: small mode is exact");
            } else {
                assert_eq!(view.mode(), HllMode::Dense, "p={p} converts after {cap}");
            }
            if n == cap - 1 || n == cap || n == cap + 49 {
                assert_eq!(values(buf.as_ref()), reference_registers(&hashes[..=n], p), "p={p} n={n}");
            }
        }
        let view = wrap(buf.as_ref()).unwrap();
        let hist = view.histogram();
        let mut expected = [0u32; HISTOGRAM_LEN];
        for v in reference_registers(&hashes, p) {
            expected[v as usize] += 1;
        }
        assert_eq!(hist, expected);
        assert_eq!(view.registers_set(), registers(p) as u32 - expected[0]);
    }
}

/// A hash whose register index is `i` and whose rank is `rank` at precision `p`.
fn hash_at(i: usize, rank: u8, p: u8, low: u64) -> u64 {
    let tail = (1u64 << (64 - p)) >> rank; // rank leading zeros after the index, then a 1
    ((i as u64) << (64 - p)) | tail | (low & (tail.wrapping_sub(1)))
}

#[test]
fn crafted_dense_low_indexes_convert_early_and_lose_nothing() {
    // Hashes crowding the lowest register indexes (more than 1 in 4 past the
    // first 64) cannot be converted in place with bounded stack; the sketch
    // converts before such an insert instead. Registers stay exact.
    for p in [12u8, 14, 18] {
        let mut buf = fresh(p, 1);
        let mut hashes = Vec::new();
        for i in 0..small_capacity(p) + 20 {
            let h = hash_at(i % registers(p), 1 + (i % 7) as u8, p, i as u64 * 7919);
            hashes.push(h);
            wrap_mut(buf.as_mut()).unwrap().add_hash(h);
        }
        let view = wrap(buf.as_ref()).unwrap();
        assert_eq!(view.mode(), HllMode::Dense, "p={p}");
        assert_eq!(values(buf.as_ref()), reference_registers(&hashes, p), "p={p}");
        let hist = view.histogram();
        assert_eq!(hist.iter().map(|c| u64::from(*c)).sum::<u64>(), registers(p) as u64);
        // Up to the rule's limit the list stayed exact: 64 + some, well above 64.
        check_body_of(buf.as_ref());
    }
    // Spread-out hashes are never converted early: exact to the capacity.
    let p = 14;
    let mut buf = fresh(p, 1);
    for (n, h) in random_hashes(small_capacity(p), 5).iter().enumerate() {
        wrap_mut(buf.as_mut()).unwrap().add_hash(*h);
        assert_eq!(wrap(buf.as_ref()).unwrap().mode(), HllMode::Small, "converted early at {n}");
    }
}

/// The image exports and re-imports (the body rules hold).
fn check_body_of(buf: &[u8]) {
    let exported = export_vec(buf);
    verify(&exported).unwrap();
}

#[test]
fn an_imported_small_list_breaking_the_conversion_rule_is_refused() {
    let p = 14;
    let mut buf = fresh(p, 1);
    // 100 distinct hashes at indexes 0..100: past 64 entries, i_j < 4j.
    let mut hashes: Vec<u64> = (0..100).map(|i| hash_at(i, 3, p, 0)).collect();
    hashes.sort_unstable();
    {
        // Written directly (as a hostile image would hold them), resealed.
        let n = hashes.len();
        for (j, h) in hashes.iter().enumerate() {
            crate::image::put_u64(&mut buf.as_mut()[HEADER_LEN..], 8 * j, *h);
        }
        crate::image::put_u32(buf.as_mut(), OFF_SMALL_COUNT, n as u32);
    }
    let mut bytes = buf.as_ref().to_vec();
    let len = exported_len(&bytes).unwrap();
    bytes.truncate(len);
    let flags = crate::image::get_u32(&bytes, 12).unwrap() | FLAG_COMPACT;
    crate::image::put_u32(&mut bytes, 12, flags);
    crate::image::put_u64(&mut bytes, 24, len as u64);
    reseal(&mut bytes);
    assert_eq!(verify(&bytes), Err(Error::CorruptBody));
    // The zero-copy path stays memory-safe on it and converts something.
    let mut live = AlignedBuf::from_bytes(buf.as_ref());
    for h in random_hashes(2000, 9) {
        wrap_mut(live.as_mut()).unwrap().add_hash(h);
    }
    assert_eq!(wrap(live.as_ref()).unwrap().mode(), HllMode::Dense);
}

#[test]
fn keys_hash_with_the_image_seed() {
    let mut a = fresh(12, 7);
    let mut b = fresh(12, 7);
    let mut sa = wrap_mut(a.as_mut()).unwrap();
    let mut sb = wrap_mut(b.as_mut()).unwrap();
    for i in 0..5000u64 {
        sa.add_u64(i);
        sb.add_hash(hash::hash_u64(i, 7));
        // The martingale depends on the order of first occurrences: keep it equal.
        sa.add(b"same key");
        sb.add_hash(hash::hash_bytes(b"same key", 7));
    }
    assert_eq!(a.as_ref(), b.as_ref());
    let est = wrap(a.as_ref()).unwrap().estimate();
    assert!((est - 5001.0).abs() / 5001.0 < 0.05, "{est}");
}

#[test]
fn estimate_edges() {
    let buf = fresh(12, 0);
    assert_eq!(wrap(buf.as_ref()).unwrap().estimate(), 0.0);
    // Every register at its maximum: beyond what 64-bit hashes can count.
    let mut buf = fresh(12, 0);
    let mut s = wrap_mut(buf.as_mut()).unwrap();
    s.set_register_values(core::iter::repeat_n(max_register(12), 4096)).unwrap();
    assert!(s.as_ref().estimate() > 1e18);
}

#[test]
fn merging_disjoint_parts_gives_the_registers_of_the_whole() {
    // Sizes cover small+small (staying small and overflowing), small+dense, dense+dense.
    for (na, nb) in [(100usize, 200usize), (300, 900), (50, 20_000), (30_000, 40_000)] {
        let hashes = random_hashes(na + nb, (na * 31 + nb) as u64);
        let mut whole = fresh(14, 1);
        let mut a = fresh(14, 1);
        let mut b = fresh(14, 1);
        wrap_mut(whole.as_mut()).unwrap().add_hashes(&hashes);
        wrap_mut(a.as_mut()).unwrap().add_hashes(&hashes[..na]);
        wrap_mut(b.as_mut()).unwrap().add_hashes(&hashes[na..]);
        let mut ab = AlignedBuf::from_bytes(a.as_ref());
        wrap_mut(ab.as_mut()).unwrap().merge(&wrap(b.as_ref()).unwrap()).unwrap();
        let mut ba = AlignedBuf::from_bytes(b.as_ref());
        wrap_mut(ba.as_mut()).unwrap().merge(&wrap(a.as_ref()).unwrap()).unwrap();
        assert_eq!(values(ab.as_ref()), values(whole.as_ref()), "{na}+{nb}");
        assert_eq!(values(ba.as_ref()), values(whole.as_ref()), "{na}+{nb}");
        let (wv, mv) = (wrap(whole.as_ref()).unwrap(), wrap(ab.as_ref()).unwrap());
        assert_eq!(wv.mode(), mv.mode(), "{na}+{nb}");
        assert_eq!(wv.register_estimate(), mv.register_estimate(), "{na}+{nb}");
        // The merged sketch reports the register estimate once dense registers
        // came from another sketch; the whole one keeps its martingale.
        if mv.mode() == HllMode::Dense && nb > small_capacity(14) {
            assert!(!mv.martingale_valid());
            assert_eq!(mv.estimate(), mv.register_estimate());
        }
        assert_eq!(wv.histogram(), mv.histogram());
    }
}

#[test]
fn merge_folds_higher_precision_down() {
    let hashes = random_hashes(50_000, 99);
    for (high, low) in [(14u8, 12u8), (18, 10), (12, 4)] {
        let mut big = fresh(high, 5);
        wrap_mut(big.as_mut()).unwrap().add_hashes(&hashes[..30_000]);
        let mut small = fresh(low, 5);
        wrap_mut(small.as_mut()).unwrap().add_hashes(&hashes[30_000..]);
        let mut whole = fresh(low, 5);
        wrap_mut(whole.as_mut()).unwrap().add_hashes(&hashes);
        wrap_mut(small.as_mut()).unwrap().merge(&wrap(big.as_ref()).unwrap()).unwrap();
        assert_eq!(values(small.as_ref()), values(whole.as_ref()), "{high}->{low}");
        assert_eq!(wrap(small.as_ref()).unwrap().histogram(), wrap(whole.as_ref()).unwrap().histogram());
        // The other way round is refused and changes nothing.
        let before = big.as_ref().to_vec();
        let err = wrap_mut(big.as_mut()).unwrap().merge(&wrap(whole.as_ref()).unwrap());
        assert_eq!(err, Err(Error::Incompatible));
        assert_eq!(big.as_ref(), &before[..]);
        // downsize writes the folded copy.
        let mut out = AlignedBuf::new(image_len(low).unwrap() as usize);
        let mut down_whole = fresh(low, 5);
        wrap_mut(down_whole.as_mut()).unwrap().add_hashes(&hashes[..30_000]);
        downsize(&wrap(big.as_ref()).unwrap(), out.as_mut(), low).unwrap();
        assert_eq!(values(out.as_ref()), values(down_whole.as_ref()));
    }
    // A small-mode sketch merges into any precision, exactly.
    let mut low_small = fresh(10, 5);
    wrap_mut(low_small.as_mut()).unwrap().add_hashes(&hashes[..100]);
    let mut high = fresh(16, 5);
    wrap_mut(high.as_mut()).unwrap().merge(&wrap(low_small.as_ref()).unwrap()).unwrap();
    assert_eq!(wrap(high.as_ref()).unwrap().estimate(), 100.0);
    // Different seeds never merge.
    let other_seed = fresh(16, 6);
    let err = wrap_mut(high.as_mut()).unwrap().merge(&wrap(other_seed.as_ref()).unwrap());
    assert_eq!(err, Err(Error::Incompatible));
}

fn merge_bufs(dst: &mut [u8], src: &[u8]) {
    wrap_mut(dst).unwrap().merge(&wrap(src).unwrap()).unwrap();
}

#[test]
fn merge_is_commutative_associative_idempotent() {
    for sizes in [[10usize, 20, 30], [200, 700, 5], [3000, 20_000, 100]] {
        let bufs: Vec<AlignedBuf> = sizes
            .iter()
            .enumerate()
            .map(|(j, n)| {
                let mut b = fresh(12, 0);
                wrap_mut(b.as_mut()).unwrap().add_hashes(&random_hashes(*n, j as u64 + 40));
                b
            })
            .collect();
        check_merge_laws(bufs[0].as_ref(), bufs[1].as_ref(), bufs[2].as_ref(), &merge_bufs, values);
    }
}

#[test]
fn reset_empties() {
    let mut buf = fresh(12, 0);
    let mut s = wrap_mut(buf.as_mut()).unwrap();
    s.add_hashes(&random_hashes(10_000, 1));
    s.reset();
    assert_eq!(buf.as_ref(), fresh(12, 0).as_ref());
}

fn export_vec(buf: &[u8]) -> Vec<u8> {
    let mut out = std::vec![0u8; exported_len(buf).unwrap()];
    assert_eq!(export(buf, &mut out), Ok(out.len()));
    out
}

#[test]
fn small_mode_exports_compactly_and_imports_back() {
    let mut buf = fresh(14, 9);
    wrap_mut(buf.as_mut()).unwrap().add_hashes(&random_hashes(37, 2));
    let exported = export_vec(buf.as_ref());
    assert_eq!(exported.len(), HEADER_LEN + 37 * 8);
    assert_eq!(verify(&exported), Ok(()));
    // A compact image is not a live image.
    let compact = AlignedBuf::from_bytes(&exported);
    assert_eq!(wrap(compact.as_ref()).err(), Some(Error::CompactImage));
    // import_len says how much the import writes: the full image.
    assert_eq!(import_len(&exported), Ok(image_len(14).unwrap() as usize));
    assert_eq!(import_len(&exported[..exported.len() - 8]), Err(Error::LengthMismatch));
    assert_eq!(verify(&exported[..exported.len() - 8]), Err(Error::LengthMismatch));
    assert_eq!(crate::bloom::import_len(&exported), Err(Error::WrongFamily));
    let mut back = AlignedBuf::new(image_len(14).unwrap() as usize);
    back.as_mut().fill(0xAB);
    assert_eq!(import(&exported, back.as_mut()), Ok(image_len(14).unwrap() as usize));
    // Same bytes as the live image except the checksum field.
    let (mut x, mut y) = (back.as_ref().to_vec(), buf.as_ref().to_vec());
    x[32..40].fill(0);
    y[32..40].fill(0);
    assert_eq!(x, y);
    // Too small a destination: nothing written.
    let mut short = AlignedBuf::new(HEADER_LEN + 37 * 8);
    assert_eq!(import(&exported, short.as_mut()), Err(Error::BufferTooSmall));
    assert!(short.as_ref().iter().all(|b| *b == 0));
    // Dense images export whole.
    wrap_mut(buf.as_mut()).unwrap().add_hashes(&random_hashes(5000, 3));
    let exported = export_vec(buf.as_ref());
    assert_eq!(exported.len(), image_len(14).unwrap() as usize);
    assert_eq!(import_len(&exported), Ok(exported.len()));
    let mut back = AlignedBuf::new(exported.len());
    import(&exported, back.as_mut()).unwrap();
    assert_eq!(values(back.as_ref()), values(buf.as_ref()));
}

#[test]
fn hostile_bodies_are_refused_with_a_clear_error() {
    // Dense: a register above its maximum, with the histogram made consistent.
    let mut buf = fresh(12, 0);
    wrap_mut(buf.as_mut()).unwrap().add_hashes(&random_hashes(5000, 4));
    let good = export_vec(buf.as_ref());
    let mut bad = good.clone();
    let regs = &mut bad[HEADER_LEN..];
    let old = get_register(regs, 7);
    set_register(regs, 7, 63);
    let hist_old = OFF_HISTOGRAM + 4 * old as usize;
    let c = get_u32(&bad, hist_old).unwrap();
    put_u32(&mut bad, hist_old, c - 1);
    let c = get_u32(&bad, OFF_HISTOGRAM + 4 * 63).unwrap();
    put_u32(&mut bad, OFF_HISTOGRAM + 4 * 63, c + 1);
    reseal(&mut bad);
    let mut dst = AlignedBuf::new(good.len());
    assert_eq!(import(&bad, dst.as_mut()), Err(Error::CorruptBody));
    assert_eq!(verify(&bad), Err(Error::CorruptBody));
    // Dense: a histogram that does not match the registers.
    let mut bad = good.clone();
    let c1 = get_u32(&bad, OFF_HISTOGRAM + 4).unwrap();
    let c2 = get_u32(&bad, OFF_HISTOGRAM + 8).unwrap();
    put_u32(&mut bad, OFF_HISTOGRAM + 4, c1 + 1);
    put_u32(&mut bad, OFF_HISTOGRAM + 8, c2 - 1);
    reseal(&mut bad);
    assert_eq!(import(&bad, dst.as_mut()), Err(Error::CorruptBody));
    // Small mode: unsorted, repeated entries; bad counts.
    let mut small = fresh(12, 0);
    wrap_mut(small.as_mut()).unwrap().add_hashes(&random_hashes(20, 5));
    let good = export_vec(small.as_ref());
    let mut unsorted = good.clone();
    unsorted.swap(HEADER_LEN + 7, HEADER_LEN + 15);
    let (a, b) = (get_u64(&unsorted, HEADER_LEN).unwrap(), get_u64(&unsorted, HEADER_LEN + 8).unwrap());
    put_u64(&mut unsorted, HEADER_LEN, b.max(a));
    put_u64(&mut unsorted, HEADER_LEN + 8, b.min(a));
    reseal(&mut unsorted);
    assert_eq!(import(&unsorted, dst.as_mut()), Err(Error::CorruptBody));
    let mut repeated = good.clone();
    let first = get_u64(&repeated, HEADER_LEN).unwrap();
    put_u64(&mut repeated, HEADER_LEN + 8, first);
    reseal(&mut repeated);
    assert_eq!(import(&repeated, dst.as_mut()), Err(Error::CorruptBody));
    let mut count = good.clone();
    put_u32(&mut count, OFF_SMALL_COUNT, 21);
    reseal(&mut count);
    assert_eq!(import(&count, dst.as_mut()), Err(Error::CorruptHeader));
    let mut over = good.clone();
    put_u32(&mut over, OFF_SMALL_COUNT, small_capacity(12) as u32 + 1);
    reseal(&mut over);
    assert_eq!(import(&over, dst.as_mut()), Err(Error::CorruptHeader));
    // A count whose byte length (8 per hash, the length a compact image
    // must have) does not fit a 32-bit usize: the largest, and 2^29.
    for huge in [u32::MAX, 1 << 29] {
        let mut bad = good.clone();
        put_u32(&mut bad, OFF_SMALL_COUNT, huge);
        reseal(&mut bad);
        assert_eq!(import(&bad, dst.as_mut()), Err(Error::CorruptHeader));
        assert_eq!(import_len(&bad), Err(Error::CorruptHeader));
        assert_eq!(verify(&bad), Err(Error::CorruptHeader));
        let mut live = AlignedBuf::from_bytes(&bad);
        assert_eq!(wrap(live.as_ref()).err(), Some(Error::CorruptHeader));
        exercise(live.as_mut());
    }
    assert!(dst.as_ref().iter().all(|b| *b == 0), "failed imports wrote nothing");
}

fn exercise(bytes: &mut [u8]) {
    let copy = AlignedBuf::from_bytes(bytes);
    let mut dst = AlignedBuf::new(image_len(18).unwrap() as usize);
    let _ = import(bytes, dst.as_mut());
    let _ = verify(bytes);
    let _ = exported_len(bytes);
    let mut out = std::vec![0u8; bytes.len() + 8];
    let _ = export(bytes, &mut out);
    if let Ok(mut s) = wrap_mut(bytes) {
        for h in random_hashes(64, 8) {
            s.add_hash(h);
        }
        s.add(b"key");
        if let Ok(other) = wrap(copy.as_ref()) {
            let _ = s.merge(&other);
            let mut down = AlignedBuf::new(image_len(4).unwrap() as usize);
            let _ = downsize(&other, down.as_mut(), 4);
        }
        let view = s.as_ref();
        let _ = view.stats();
        let _ = view.estimate();
        let mut regs = std::vec![0u8; registers(view.precision())];
        let _ = view.register_values(&mut regs);
        s.reset();
    }
}

#[test]
fn corrupted_images_are_rejected() {
    let mut small = fresh(10, 0);
    wrap_mut(small.as_mut()).unwrap().add_hashes(&random_hashes(40, 6));
    let compact = export_vec(small.as_ref());
    check_corruption(&compact, HEADER_LEN, 500, import, verify, exercise);
    let mut dense = fresh(10, 0);
    wrap_mut(dense.as_mut()).unwrap().add_hashes(&random_hashes(4000, 6));
    let full = export_vec(dense.as_ref());
    check_corruption(&full, HEADER_LEN, 500, import, verify, exercise);
}

#[test]
fn fuzzed_images_never_panic() {
    let mut small = fresh(10, 0);
    wrap_mut(small.as_mut()).unwrap().add_hashes(&random_hashes(40, 6));
    fuzz_images(small.as_ref(), HEADER_LEN, 10_000, exercise);
    fuzz_images(&export_vec(small.as_ref()), HEADER_LEN, 5_000, exercise);
    let mut dense = fresh(10, 0);
    wrap_mut(dense.as_mut()).unwrap().add_hashes(&random_hashes(4000, 6));
    fuzz_images(dense.as_ref(), HEADER_LEN, 10_000, exercise);
}

// ---- statistical accuracy -------------------------------------------------

struct SimHll {
    buf: AlignedBuf,
    p: u8,
    /// Measure the martingale estimate (own stream) instead of the register
    /// estimate (what merged sketches report).
    martingale: bool,
}

/// The HyperLogLog stream simulator, for comparisons in other families' tests.
pub(crate) struct SimHllHandle(SimHll);

impl SimHllHandle {
    pub(crate) fn new(p: u8) -> Self {
        SimHllHandle(SimHll { buf: fresh(p, 0), p, martingale: false })
    }
}

impl Simulated for SimHllHandle {
    fn reset(&mut self) {
        self.0.reset()
    }
    fn add_hash(&mut self, hash: u64) {
        self.0.add_hash(hash)
    }
    fn is_dense(&self) -> bool {
        self.0.is_dense()
    }
    fn state(&self, i: usize) -> u8 {
        self.0.state(i)
    }
    fn estimate(&self) -> f64 {
        self.0.estimate()
    }
}

impl Simulated for SimHll {
    fn reset(&mut self) {
        wrap_mut(self.buf.as_mut()).unwrap().reset();
    }
    fn add_hash(&mut self, hash: u64) {
        wrap_mut(self.buf.as_mut()).unwrap().add_hash(hash);
    }
    fn is_dense(&self) -> bool {
        wrap(self.buf.as_ref()).unwrap().mode() == HllMode::Dense
    }
    fn state(&self, i: usize) -> u8 {
        wrap(self.buf.as_ref()).unwrap().register(i)
    }
    fn estimate(&self) -> f64 {
        let view = wrap(self.buf.as_ref()).unwrap();
        if self.martingale {
            assert!(view.mode() == HllMode::Small || view.martingale_valid());
            view.estimate()
        } else {
            view.register_estimate()
        }
    }
}

/// An HLL register in state `s` changes with update value `k` when `k > s`.
pub(crate) fn hll_changes(s: u8, k: u8, _p: u8) -> bool {
    k > s
}

fn check_accuracy(p: u8, trials: u64) {
    check_estimator(p, trials, false, 1.04);
}

/// The martingale estimate's relative standard error is about 0.83/sqrt(m).
#[test]
fn martingale_accuracy_p12() {
    check_estimator(12, trials(250, 1000), true, 0.833);
}

fn check_estimator(p: u8, trials: u64, martingale: bool, constant: f64) {
    let checkpoints = log_checkpoints(1_000_000_000, 8);
    let make = || SimHll { buf: fresh(p, 0), p, martingale };
    let _ = make().p;
    let seed = 0xacc0 + u64::from(p) + u64::from(martingale);
    let stats = trajectories(&make, p, hll_changes, &checkpoints, trials, seed, 0);
    let rse = constant / (registers(p) as f64).sqrt();
    let bound = rmse_bound_factor(trials) * rse;
    let max_bias = bias_bound(rse, trials);
    let cap = small_capacity(p) as u64;
    let mut worst_rmse: f64 = 0.0;
    let mut worst_bias: f64 = 0.0;
    for (j, n) in checkpoints.iter().enumerate() {
        let (bias, rmse) = (stats.bias(j), stats.rmse(j));
        std::eprintln!(
            "p={p} martingale={martingale} n={n}: bias {:+.4}% rmse {:.4}% (bound {:.4}%)",
            bias * 100.0,
            rmse * 100.0,
            bound * 100.0
        );
        if *n < 100 {
            assert_eq!(stats.max_abs[j], 0.0, "p={p} n={n}: below 100 the count is exact");
        }
        assert!(rmse <= bound, "p={p} n={n}: rmse {rmse} above {bound}");
        if *n > cap {
            assert!(bias.abs() <= max_bias, "p={p} n={n}: bias {bias}");
        }
        worst_rmse = worst_rmse.max(rmse / rse);
        worst_bias = worst_bias.max(bias.abs());
    }
    std::eprintln!(
        "p={p} martingale={martingale}: {trials} trials, worst rmse {worst_rmse:.3} x {constant}/sqrt(m), worst |bias| {:.4}%",
        worst_bias * 100.0
    );
}

#[test]
fn accuracy_p10() {
    // 4000 trials (full): the standard error of the mean bias is 0.05% at p = 10.
    check_accuracy(10, trials(1000, 4000));
}

#[test]
fn accuracy_p12() {
    check_accuracy(12, trials(250, 1000));
}

#[test]
fn accuracy_p14() {
    check_accuracy(14, trials(100, 1000));
}

#[test]
fn concurrent_adds_equal_the_sequential_registers() {
    use crate::shared::AtomicWords;
    use crate::test_util::{from_atomic, in_threads, to_atomic};
    for p in [4u8, 10, 14] {
        let mut fresh = fresh(p, 5);
        // Small mode is not concurrent: refused until densified.
        let small = to_atomic(fresh.as_ref());
        assert_eq!(wrap_shared(AtomicWords::new(&small)).err(), Some(Error::SmallMode));
        wrap_mut(fresh.as_mut()).unwrap().densify_now();
        let keys = |t: usize| (t as u64 * 20_000..t as u64 * 20_000 + 20_000).chain(7_000_000..7_005_000);
        let words = to_atomic(fresh.as_ref());
        in_threads(8, |t| {
            let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
            let hashes: Vec<u64> = keys(t).map(|k| crate::hash::hash_u64(k, 5)).collect();
            let (a, b) = hashes.split_at(hashes.len() / 2);
            for h in a {
                shared.add_hash(*h).unwrap();
            }
            shared.add_hashes(b).unwrap();
            let _ = shared.estimate();
        });
        let concurrent = AlignedBuf::from_bytes(&from_atomic(&words));
        let mut sequential = AlignedBuf::from_bytes(fresh.as_ref());
        {
            let mut s = wrap_mut(sequential.as_mut()).unwrap();
            for t in 0..8 {
                for k in keys(t) {
                    s.add_u64(k);
                }
            }
        }
        assert_eq!(values(concurrent.as_ref()), values(sequential.as_ref()), "p={p}: registers differ");
        let (c, s) = (wrap(concurrent.as_ref()).unwrap(), wrap(sequential.as_ref()).unwrap());
        assert_eq!(c.histogram(), s.histogram(), "p={p}");
        assert_eq!(c.register_estimate(), s.register_estimate(), "p={p}: the register sum differs");
        assert!(!c.martingale_valid() && s.martingale_valid());
        assert_eq!(c.estimate(), c.register_estimate());
        let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
        assert_eq!(shared.estimate(), s.register_estimate());
        // The image is a valid image again once the adds are done.
        check_body_of(concurrent.as_ref());
    }
}

/// Two threads raising one register in turn (A: 0 -> a, then B: a -> a + 1)
/// can book B's histogram change before A's: for a moment the count of `a`
/// is one below its value, -1 when A's register was its only one, and an
/// even entry borrows from the odd entry sharing its word. The concurrent
/// estimate read in that moment stays within an add or two of the true one
/// (it read 2^32 - 1 registers at `a`, an estimate near 0, before).
#[test]
fn concurrent_estimate_survives_histogram_changes_booked_out_of_order() {
    use crate::shared::AtomicWords;
    use crate::test_util::to_atomic;
    for a in [1u8, 2, 3, 4] {
        let mut image = fresh(10, 5);
        wrap_mut(image.as_mut()).unwrap().densify_now();
        let words = to_atomic(image.as_ref());
        let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
        // A few keys, none of whose registers is at `a` or `a + 1`.
        let mut added = 0;
        for k in 0u64.. {
            let h = crate::hash::hash_u64(k, 5);
            let k_of = split_hash(h, 10).1;
            if k_of != a && k_of != a + 1 {
                shared.add_hash(h).unwrap();
                added += 1;
            }
            if added == 20 {
                break;
            }
        }
        let before = shared.estimate();
        // B's bookkeeping first (a -> a + 1), A's (0 -> a) still pending.
        shared.registered(a, a + 1);
        let between = shared.estimate();
        assert!(
            between >= before - 2.0 && between <= before + 3.0,
            "a={a}: estimate {between} while the adds run, {before} before them"
        );
        shared.registered(0, a);
        let after = shared.estimate();
        assert!(after > before && after <= before + 3.0, "a={a}: {after} after both adds, {before} before");
    }
}

/// A straddle lock word left set (a damaged image, or a process that died
/// inside a concurrent add on a shared mapping) fails the adds that need it
/// with CorruptHeader after a bounded spin, instead of hanging; adds to
/// registers inside one word still work, and exclusive calls refuse the image.
#[test]
fn a_stuck_straddle_lock_fails_instead_of_hanging() {
    use crate::shared::AtomicWords;
    use crate::test_util::to_atomic;
    let mut image = fresh(10, 5);
    wrap_mut(image.as_mut()).unwrap().densify_now();
    let mut stuck = AlignedBuf::from_bytes(image.as_ref());
    put_u64(stuck.as_mut(), OFF_STRADDLE_LOCK, 1);
    assert_eq!(wrap(stuck.as_ref()).err(), Some(Error::CorruptHeader), "exclusive views refuse it");
    let words = to_atomic(stuck.as_ref());
    let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
    // A hash whose register straddles two words (bits 62..67: register 10
    // of the body's first word pair), and one whose register does not.
    let (straddling, inside) = straddling_and_inside_hashes();
    assert_eq!(shared.add_hash(straddling), Err(Error::CorruptHeader));
    assert_eq!(shared.add_hash(inside), Ok(true));
    assert_eq!(shared.add_hashes(&[inside, straddling]), Err(Error::CorruptHeader));
}

/// A hash whose register straddles two 64-bit words at p = 10 (bits
/// 62..67 of a word pair, value above 0), and one whose register sits
/// inside one word (seed 5).
fn straddling_and_inside_hashes() -> (u64, u64) {
    let hashes = || (0..u64::MAX).map(|k| crate::hash::hash_u64(k, 5));
    let bit = |h: u64| (HEADER_LEN * 8 + 6 * split_hash(h, 10).0) % 64;
    let straddling = hashes().find(|h| bit(*h) > 58 && split_hash(*h, 10).1 > 0).unwrap();
    let inside = hashes().find(|h| bit(*h) <= 58).unwrap();
    (straddling, inside)
}

/// The image words whose straddle lock [`release_at_third_try`] releases,
/// and the tries the waits below were called with (one test uses them).
static LOCK_WAIT_STATE: std::sync::Mutex<(Option<&'static [core::sync::atomic::AtomicU64]>, Vec<u32>)> =
    std::sync::Mutex::new((None, Vec::new()));

/// A wait that records its tries and, at the third, releases the lock as
/// a holder finishing its raise would.
struct ReleaseAtThirdTry;

impl LockWait for ReleaseAtThirdTry {
    fn wait(tries: u32) -> bool {
        let mut state = LOCK_WAIT_STATE.lock().unwrap();
        state.1.push(tries);
        if let (3, Some(words)) = (tries, state.0) {
            words[OFF_STRADDLE_LOCK / 8].store(0, core::sync::atomic::Ordering::Release);
        }
        true
    }
}

/// A wait that records its tries and gives up at the fourth.
struct GiveUpAtFourthTry;

impl LockWait for GiveUpAtFourthTry {
    fn wait(tries: u32) -> bool {
        LOCK_WAIT_STATE.lock().unwrap().1.push(tries);
        tries < 4
    }
}

/// An add that finds the straddle lock held calls the view's wait with
/// 1, 2, 3, ... until the lock is free, then raises the register; a wait
/// that gives up fails the add with CorruptHeader and changes nothing;
/// adds inside one word never wait.
#[test]
fn a_held_straddle_lock_is_waited_for_with_the_views_wait() {
    use crate::shared::AtomicWords;
    use crate::test_util::to_atomic;
    let mut image = fresh(10, 5);
    wrap_mut(image.as_mut()).unwrap().densify_now();
    let words: &'static [core::sync::atomic::AtomicU64] =
        std::boxed::Box::leak(to_atomic(image.as_ref()).into_boxed_slice());
    let (straddling, inside) = straddling_and_inside_hashes();
    let lock = &words[OFF_STRADDLE_LOCK / 8];
    LOCK_WAIT_STATE.lock().unwrap().0 = Some(words);

    lock.store(1, core::sync::atomic::Ordering::Release);
    let gives_up = wrap_shared(AtomicWords::new(words)).unwrap().with_lock_wait::<GiveUpAtFourthTry>();
    let before: Vec<u64> = words.iter().map(|w| w.load(core::sync::atomic::Ordering::Relaxed)).collect();
    assert_eq!(gives_up.add_hash(straddling), Err(Error::CorruptHeader));
    let after: Vec<u64> = words.iter().map(|w| w.load(core::sync::atomic::Ordering::Relaxed)).collect();
    assert_eq!(before, after, "a failed add changes nothing");
    assert_eq!(core::mem::take(&mut LOCK_WAIT_STATE.lock().unwrap().1), [1, 2, 3, 4]);

    let waits = wrap_shared(AtomicWords::new(words)).unwrap().with_lock_wait::<ReleaseAtThirdTry>();
    assert_eq!(waits.add_hash(inside), Ok(true));
    assert!(LOCK_WAIT_STATE.lock().unwrap().1.is_empty(), "an add inside one word takes no lock");
    assert_eq!(waits.add_hash(straddling), Ok(true));
    assert_eq!(core::mem::take(&mut LOCK_WAIT_STATE.lock().unwrap().1), [1, 2, 3]);
    assert_eq!(lock.load(core::sync::atomic::Ordering::Acquire), 0, "released after the raise");
    assert_eq!(waits.add_hash(straddling), Ok(false), "the register was raised");
    LOCK_WAIT_STATE.lock().unwrap().0 = None;
}

/// The operating-system wait schedule: spins, then yields, then 1 ms
/// sleeps (about five seconds of them), then gives up, at these tries.
#[test]
fn lock_wait_steps_spin_then_yield_then_sleep_then_give_up() {
    use LockWaitStep::*;
    let yields_from = LOCK_WAIT_SPINS + 1;
    let sleeps_from = LOCK_WAIT_SPINS + LOCK_WAIT_YIELDS + 1;
    let gives_up_at = LOCK_WAIT_SPINS + LOCK_WAIT_YIELDS + LOCK_WAIT_SLEEPS + 1;
    for (tries, step) in [
        (1, Spin),
        (yields_from - 1, Spin),
        (yields_from, Yield),
        (sleeps_from - 1, Yield),
        (sleeps_from, Sleep),
        (gives_up_at - 1, Sleep),
        (gives_up_at, GiveUp),
        (u32::MAX, GiveUp),
    ] {
        assert_eq!(lock_wait_step(tries), step, "try {tries}");
    }
    assert_eq!(LOCK_WAIT_SLEEPS, 5000, "the documented five seconds of 1 ms sleeps");
    assert!(SpinLockWait::wait(STRADDLE_SPIN_LIMIT - 1) && !SpinLockWait::wait(STRADDLE_SPIN_LIMIT));
}

fn token_ops() -> crate::test_util::TokenOps {
    crate::test_util::token_ops!(crate::hll, |f, k| f.estimate().to_bits() ^ k)
}

#[test]
fn tokens_skip_only_checks_already_passed() {
    // Small mode at first, dense after the switch: the token holds through both.
    let image = fresh(10, 5);
    let other = fresh(11, 5);
    let bloom = crate::bloom::BloomParams::for_items(100, 0.01).unwrap();
    let mut foreign = AlignedBuf::new(bloom.image_len().unwrap() as usize);
    crate::bloom::init(foreign.as_mut(), &bloom, 5).unwrap();
    crate::test_util::check_tokens::<HllImage>(
        image.as_ref(),
        other.as_ref(),
        foreign.as_ref(),
        &token_ops(),
    );
    // An exported small-mode image is compact, not live: no token, as no wrap.
    let mut exported = std::vec![0u8; exported_len(image.as_ref()).unwrap()];
    let n = export(image.as_ref(), &mut exported).unwrap();
    let compact = AlignedBuf::from_bytes(&exported[..n]);
    assert_eq!(token(compact.as_ref()), Err(Error::CompactImage));
    assert_eq!(wrap(compact.as_ref()).err(), Some(Error::CompactImage));
    crate::test_util::check_trusted(image.as_ref(), other.as_ref(), &token_ops());
}

/// Merging a source whose registers were damaged (zero-copy bytes, never
/// verified) keeps the destination a valid sketch: register values above the
/// source precision's maximum count as that maximum, so neither the folded
/// value nor the same-precision maximum can leave the histogram (a value of
/// 77 used to land in the header's reserved bytes) or the register range.
#[test]
fn merging_damaged_registers_keeps_the_destination_valid() {
    let hashes = random_hashes(20_000, 17);
    for (high, low) in [(18u8, 4u8), (14, 12), (14, 14), (4, 4)] {
        let mut src = fresh(high, 3);
        wrap_mut(src.as_mut()).unwrap().add_hashes(&hashes);
        for j in [0usize, 1, 2, registers(high) - 1] {
            set_register(&mut src.as_mut()[HEADER_LEN..], j, 63);
        }
        let mut dst = fresh(low, 3);
        wrap_mut(dst.as_mut()).unwrap().add_hashes(&hashes[..500]);
        wrap_mut(dst.as_mut()).unwrap().merge(&wrap(src.as_ref()).unwrap()).unwrap();
        let merged = wrap(dst.as_ref()).unwrap();
        assert!(values(dst.as_ref()).iter().all(|v| *v <= max_register(low)), "{high}->{low}");
        assert_eq!(merged.histogram().iter().map(|c| u64::from(*c)).sum::<u64>(), registers(low) as u64);
        check_body_of(dst.as_ref());
    }
}

/// The LZCNT copy and the portable code leave the same image, byte for
/// byte, from the small mode through the dense one, single and batch adds alike.
#[test]
fn lzcnt_copy_and_portable_code_leave_the_same_image() {
    let hashes = random_hashes(60_000, 0x1c);
    for p in [4u8, 10, 14] {
        crate::test_util::assert_add_paths_agree!(hll, fresh(p, 0), &hashes, std::format!("p={p}"));
    }
}

#[test]
fn holds_trusted_is_true_only_for_adds_that_change_nothing() {
    let mut image = fresh(10, 5);
    let kept = token(image.as_ref()).unwrap();
    let (mut held, mut dense_checks) = (0, 0);
    // Through small mode into dense mode, keys of every length (in line
    // up to 16 bytes).
    for k in 0..40_000u64 {
        let key: std::vec::Vec<u8> =
            k.to_le_bytes().iter().cycle().take((k % 41) as usize).copied().collect();
        let dense = wrap(image.as_ref()).unwrap().mode() == HllMode::Dense;
        let holds = holds_trusted(image.as_ref(), &kept, |seed| crate::hash::hash_bytes_inline(&key, seed));
        let hash_with = |seed| crate::hash::hash_bytes_inline(&key, seed);
        assert_eq!(
            holds_with(image.as_ref(), &kept, hash_with),
            holds,
            "the token call's fast path, key {k}"
        );
        let changed = wrap_mut(image.as_mut()).unwrap().add(&key);
        if dense {
            assert_eq!(holds, !changed, "key {k}");
            dense_checks += 1;
        } else {
            assert!(!holds, "small mode: unknown, key {k}");
        }
        held += usize::from(holds);
    }
    assert!(dense_checks > 30_000 && held > 20_000, "{dense_checks} {held}");
    // Words out of range, or a body past the buffer: unknown.
    let any = |_| 1u64;
    assert!(!holds_trusted(image.as_ref(), &crate::image::Token::default(), any));
    assert!(!holds_trusted(&image.as_ref()[..image.as_ref().len() / 2], &kept, any));
    // A token of another precision reads within the buffer; compared, as a
    // `_with_token` call does, it is never trusted.
    let other = token(fresh(16, 5).as_ref()).unwrap();
    for k in 0..1000u64 {
        let _ = holds_trusted(image.as_ref(), &other, |seed| crate::hash::hash_u64(k, seed));
        assert!(!holds_with(image.as_ref(), &other, |seed| crate::hash::hash_u64(k, seed)));
    }
}

/// The sizing helpers are public `const fn`s of any `u8`: outside 4..=18
/// they shifted `1usize` out of range or subtracted below zero (a panic
/// with overflow checks, wrapped nonsense such as `max_register(66) = 255`
/// without). They now saturate: monotone in `p`, exact inside the range.
#[test]
fn sizing_helpers_are_monotone_for_every_precision() {
    let mut last = (0usize, 0usize, 0usize, 0usize, u8::MAX);
    for p in 0..=u8::MAX {
        let now = (registers(p), register_bytes(p), body_len(p), small_capacity(p), max_register(p));
        assert!(now.0 >= last.0 && now.1 >= last.1 && now.2 >= last.2 && now.3 >= last.3, "p = {p}");
        assert!(now.4 <= last.4 && now.4 <= 65, "p = {p}");
        assert!(now.2 >= MIN_BODY_LEN && now.3 <= SMALL_MAX, "p = {p}");
        if check_precision(p).is_ok() {
            assert_eq!((now.0, now.1, now.4), (1 << p, (6 << p) / 8, 65 - p));
            assert_eq!(image_len(p), Ok((HEADER_LEN + now.2) as u64));
        }
        last = now;
    }
}

/// An `ExactSizeIterator` whose `len` is `claimed` but which yields
/// `actual` copies of `value` (a safe trait: a wrong `len` is a caller bug,
/// not undefined behaviour).
struct Miscounted {
    claimed: usize,
    actual: usize,
    value: u8,
}

impl Iterator for Miscounted {
    type Item = u8;
    fn next(&mut self) -> Option<u8> {
        self.actual = self.actual.checked_sub(1)?;
        Some(self.value)
    }
}

impl ExactSizeIterator for Miscounted {
    fn len(&self) -> usize {
        self.claimed
    }
}

/// `set_register_values` with an iterator whose `len` is `m` but which
/// yields more or fewer values still writes a legal image: `m` registers,
/// values past the `m`-th ignored, missing ones 0, the histogram matching.
/// Before, extra values were written past the registers (into the body's
/// zero padding) and counted in the histogram, missing ones left the
/// histogram short of `m`: `verify` of the export refused the sketch as
/// `CorruptBody`. Values above the maximum count as the maximum.
#[test]
fn set_register_values_writes_m_registers_whatever_the_iterator_yields() {
    for p in [4u8, 5, 10] {
        let m = registers(p);
        for (actual, value) in [(m + 7, 3u8), (m + 1, 1), (m / 2, 2), (0, 5), (m, 200)] {
            let mut buf = fresh(p, 1);
            let mut h = wrap_mut(buf.as_mut()).unwrap();
            h.set_register_values(Miscounted { claimed: m, actual, value }).unwrap();
            let value = value.min(max_register(p));
            let expected: Vec<u8> = (0..m).map(|i| if i < actual { value } else { 0 }).collect();
            assert_eq!(values(buf.as_ref()), expected, "p = {p}, {actual} values");
            check_body_of(buf.as_ref());
        }
    }
}

/// `downsize` of a small-mode sketch to a higher precision replays its
/// hashes (the docs said "at most src's" precision, yet only a dense source
/// is refused): the result equals the sketch of the same keys built at that
/// precision, byte for byte.
#[test]
fn downsize_of_a_small_sketch_may_raise_the_precision() {
    let keys = 0..100u64;
    let build = |p: u8| {
        let mut buf = AlignedBuf::new(image_len(p).unwrap() as usize);
        let mut s = init(buf.as_mut(), p, 8).unwrap();
        keys.clone().for_each(|k| {
            s.add_u64(k);
        });
        buf
    };
    let small = build(10);
    assert_eq!(wrap(small.as_ref()).unwrap().mode(), HllMode::Small);
    let mut up = AlignedBuf::new(image_len(14).unwrap() as usize);
    downsize(&wrap(small.as_ref()).unwrap(), up.as_mut(), 14).unwrap();
    assert_eq!(up.as_ref(), build(14).as_ref());
}
