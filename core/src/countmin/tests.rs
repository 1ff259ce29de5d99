use super::*;
use crate::test_util::{check_corruption, fuzz_images, AlignedBuf, SplitMix64};
extern crate std;
use std::collections::HashMap;
use std::vec::Vec;

fn fresh(params: &CountMinParams, seed: u64) -> AlignedBuf {
    let mut buf = AlignedBuf::new(params.image_len().unwrap() as usize);
    init(buf.as_mut(), params, seed).unwrap();
    buf
}

/// A skewed (log-uniform, Zipf-like) stream of keys below `keys`.
fn skewed_stream(n: usize, keys: u64, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix64(seed);
    let ln = (keys as f64).ln();
    (0..n)
        .map(|_| {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            ((u * ln).exp() as u64).saturating_sub(1).min(keys - 1)
        })
        .collect()
}

fn exact(stream: &[u64]) -> HashMap<u64, u64> {
    let mut m = HashMap::new();
    for k in stream {
        *m.entry(*k).or_insert(0) += 1;
    }
    m
}

#[test]
fn planning_follows_the_formulas() {
    let p = CountMinParams::for_error(0.001, 0.01).unwrap();
    assert_eq!((p.width, p.depth, p.counter_bits, p.conservative), (2719, 5, 32, false));
    assert!((p.epsilon() - 0.001).abs() < 1e-6);
    assert!(p.delta() <= 0.01);
    assert_eq!(p.image_len().unwrap(), (128 + 2719 * 5 * 4 + 4u64).next_multiple_of(64));
    for (e, d) in [(0.0, 0.1), (1.0, 0.1), (0.1, 0.0), (0.1, 1.0), (f64::NAN, 0.1), (1e-12, 0.1)] {
        assert_eq!(CountMinParams::for_error(e, d), Err(Error::InvalidParameter), "{e} {d}");
    }
    assert!(CountMinParams::with_size(0, 3).is_err());
    assert!(CountMinParams::with_size(10, 65).is_err());
    let bad = CountMinParams { counter_bits: 16, ..CountMinParams::with_size(10, 3).unwrap() };
    assert!(bad.validate().is_err());
}

#[test]
fn never_underestimates() {
    for bits in [32u32, 64] {
        for conservative in [false, true] {
            let params = CountMinParams {
                counter_bits: bits,
                conservative,
                ..CountMinParams::with_size(200, 4).unwrap()
            };
            let stream = skewed_stream(50_000, 5000, u64::from(bits) + u64::from(conservative));
            let mut buf = fresh(&params, 1);
            let mut s = wrap_mut(buf.as_mut()).unwrap();
            for k in &stream {
                s.add_u64(*k, 1);
            }
            let truth = exact(&stream);
            let view = s.as_ref();
            assert_eq!(view.total(), stream.len() as u64);
            for (k, c) in &truth {
                assert!(view.estimate_u64(*k) >= *c, "bits {bits} conservative {conservative} key {k}");
            }
            for k in 5000..6000u64 {
                let _ = view.estimate_u64(k); // absent keys: any value >= 0
            }
        }
    }
}

#[test]
fn error_above_epsilon_n_is_rarer_than_delta() {
    // width = ceil(e/epsilon), depth = ceil(ln 1/delta); over 20 trials and all keys.
    let (epsilon, delta) = (0.01, 0.05);
    let params = CountMinParams::for_error(epsilon, delta).unwrap();
    let (mut over, mut keys) = (0u64, 0u64);
    for trial in 0..20u64 {
        let stream = skewed_stream(20_000, 20_000, 100 + trial);
        let mut buf = fresh(&params, trial);
        let mut s = wrap_mut(buf.as_mut()).unwrap();
        stream.iter().for_each(|k| s.add_u64(*k, 1));
        let bound = epsilon * stream.len() as f64;
        for (k, c) in exact(&stream) {
            keys += 1;
            over += u64::from((s.as_ref().estimate_u64(k) - c) as f64 > bound);
        }
    }
    let fraction = over as f64 / keys as f64;
    assert!(fraction < delta, "{over} of {keys} keys above epsilon N");
}

/// The seed stand's experiment: 1000 control keys once each plus one hot key
/// of frequency 80,000. Returns (control keys overestimated, max overestimate
/// in percent, hot key estimate).
pub(crate) fn stand_experiment(width: u64, depth: u32, conservative: bool) -> (u32, f64, u64) {
    let params = CountMinParams { conservative, ..CountMinParams::with_size(width, depth).unwrap() };
    let mut buf = fresh(&params, 0);
    let mut s = wrap_mut(buf.as_mut()).unwrap();
    let mut rng = SplitMix64(7);
    // Interleave: the hot key's 80,000 occurrences spread through the stream.
    let mut order: Vec<u64> = (0..1000u64).map(|i| 1 + i).chain(core::iter::repeat_n(0, 80_000)).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    for k in &order {
        let key = if *k == 0 { std::string::String::from("hot") } else { std::format!("control-{k}") };
        s.add(key.as_bytes(), 1);
    }
    let view = s.as_ref();
    let mut over = 0;
    let mut worst: f64 = 0.0;
    for k in 1..=1000u64 {
        let e = view.estimate(std::format!("control-{k}").as_bytes());
        assert!(e >= 1);
        over += u32::from(e > 1);
        worst = worst.max((e - 1) as f64 * 100.0);
    }
    (over, worst, view.estimate(b"hot"))
}

#[test]
fn the_stands_experiment() {
    let (over, _, hot) = stand_experiment(500, 3, false);
    assert!(over > 400, "tight matrix: most control keys overestimated ({over})");
    assert!(hot >= 80_000);
    let (wide, _, hot) = stand_experiment(8000, 7, false);
    assert_eq!(wide, 0);
    assert_eq!(hot, 80_000);
    let (conservative, _, hot) = stand_experiment(500, 3, true);
    assert!(conservative < over, "conservative update overestimates fewer keys ({conservative} vs {over})");
    assert!(hot >= 80_000);
}

#[test]
fn counters_saturate_instead_of_wrapping() {
    for conservative in [false, true] {
        let params = CountMinParams { conservative, ..CountMinParams::with_size(16, 2).unwrap() };
        let mut buf = fresh(&params, 0);
        let mut s = wrap_mut(buf.as_mut()).unwrap();
        s.add(b"k", u64::from(u32::MAX) - 1);
        s.add(b"k", 10);
        assert_eq!(s.as_ref().estimate(b"k"), u64::from(u32::MAX));
        s.add(b"k", u64::MAX);
        assert_eq!(s.as_ref().estimate(b"k"), u64::from(u32::MAX));
        assert_eq!(s.as_ref().total(), u64::MAX);
        let params64 = CountMinParams { counter_bits: 64, ..params };
        let mut buf = fresh(&params64, 0);
        let mut s = wrap_mut(buf.as_mut()).unwrap();
        s.add(b"k", u64::MAX - 1);
        s.add(b"k", 5);
        assert_eq!(s.as_ref().estimate(b"k"), u64::MAX);
    }
}

#[test]
fn batch_forms_match_single_calls() {
    let params = CountMinParams::with_size(300, 4).unwrap();
    let stream = skewed_stream(5000, 800, 3);
    let hashes: Vec<u64> = stream.iter().map(|k| hash::hash_u64(*k, 9)).collect();
    let weights: Vec<u64> = (0..stream.len() as u64).map(|i| 1 + i % 5).collect();
    let mut a = fresh(&params, 9);
    let mut b = fresh(&params, 9);
    wrap_mut(a.as_mut()).unwrap().add_hashes(&hashes, Some(&weights)).unwrap();
    let mut sb = wrap_mut(b.as_mut()).unwrap();
    for (k, w) in stream.iter().zip(&weights) {
        sb.add_u64(*k, *w);
    }
    assert_eq!(a.as_ref(), b.as_ref());
    let mut out = std::vec![0u64; hashes.len()];
    wrap(a.as_ref()).unwrap().estimate_hashes(&hashes, &mut out).unwrap();
    assert!(out.iter().zip(&stream).all(|(e, k)| *e == wrap(b.as_ref()).unwrap().estimate_u64(*k)));
    assert_eq!(
        wrap_mut(a.as_mut()).unwrap().add_hashes(&hashes, Some(&weights[1..])),
        Err(Error::InvalidArgument)
    );
    assert_eq!(
        wrap(a.as_ref()).unwrap().estimate_hashes(&hashes, &mut out[1..]),
        Err(Error::InvalidArgument)
    );
}

fn merge_bufs(dst: &mut [u8], src: &[u8]) {
    wrap_mut(dst).unwrap().merge(&wrap(src).unwrap()).unwrap();
}

fn body(buf: &[u8]) -> Vec<u8> {
    wrap(buf).unwrap().body().to_vec()
}

#[test]
fn merge_adds_streams() {
    for conservative in [false, true] {
        let params = CountMinParams { conservative, ..CountMinParams::with_size(100, 3).unwrap() };
        let (sa, sb) = (skewed_stream(4000, 900, 1), skewed_stream(3000, 900, 2));
        let (mut a, mut b, mut whole) = (fresh(&params, 4), fresh(&params, 4), fresh(&params, 4));
        sa.iter().for_each(|k| wrap_mut(a.as_mut()).unwrap().add_u64(*k, 1));
        sb.iter().for_each(|k| wrap_mut(b.as_mut()).unwrap().add_u64(*k, 1));
        sa.iter().chain(&sb).for_each(|k| wrap_mut(whole.as_mut()).unwrap().add_u64(*k, 1));
        wrap_mut(a.as_mut()).unwrap().merge(&wrap(b.as_ref()).unwrap()).unwrap();
        let merged = wrap(a.as_ref()).unwrap();
        assert_eq!(merged.total(), 7000);
        if !conservative {
            assert_eq!(body(a.as_ref()), body(whole.as_ref()), "plain merge = sketch of both streams");
        }
        let both: Vec<u64> = sa.iter().chain(&sb).copied().collect();
        for (k, c) in exact(&both) {
            assert!(merged.estimate_u64(k) >= c);
        }
        // Addition is commutative and associative (not idempotent: merging a
        // sketch into itself counts its stream twice, by design).
        let mut c = fresh(&params, 4);
        wrap_mut(c.as_mut()).unwrap().add(b"third", 5);
        let combine = |x: &[u8], y: &[u8]| {
            let mut out = AlignedBuf::from_bytes(x);
            merge_bufs(out.as_mut(), y);
            out
        };
        assert_eq!(
            body(combine(a.as_ref(), b.as_ref()).as_ref()),
            body(combine(b.as_ref(), a.as_ref()).as_ref())
        );
        let left = combine(combine(a.as_ref(), b.as_ref()).as_ref(), c.as_ref());
        let right = combine(a.as_ref(), combine(b.as_ref(), c.as_ref()).as_ref());
        assert_eq!(body(left.as_ref()), body(right.as_ref()));
    }
    let a = fresh(&CountMinParams::with_size(100, 3).unwrap(), 1);
    for other in [
        CountMinParams::with_size(101, 3).unwrap(),
        CountMinParams::with_size(100, 4).unwrap(),
        CountMinParams { counter_bits: 64, ..CountMinParams::with_size(100, 3).unwrap() },
    ] {
        let mut o = fresh(&other, 1);
        assert_eq!(wrap_mut(o.as_mut()).unwrap().merge(&wrap(a.as_ref()).unwrap()), Err(Error::Incompatible));
    }
    let mut seed2 = fresh(&CountMinParams::with_size(100, 3).unwrap(), 2);
    assert_eq!(wrap_mut(seed2.as_mut()).unwrap().merge(&wrap(a.as_ref()).unwrap()), Err(Error::Incompatible));
}

fn exercise(bytes: &mut [u8]) {
    let copy = AlignedBuf::from_bytes(bytes);
    let mut dst = AlignedBuf::new(bytes.len());
    let _ = import(bytes, dst.as_mut());
    let _ = verify(bytes);
    let mut out = std::vec![0u8; bytes.len()];
    let _ = export(bytes, &mut out);
    if let Ok(mut s) = wrap_mut(bytes) {
        s.add(b"key", 3);
        s.add_u64(5, u64::MAX);
        let _ = s.add_hashes(&[1, 2, 3], None);
        if let Ok(other) = wrap(copy.as_ref()) {
            let _ = s.merge(&other);
        }
        let view = s.as_ref();
        let _ = view.stats();
        let mut est = [0u64; 2];
        let _ = view.estimate_hashes(&[7, 8], &mut est);
        s.clear();
    }
}

#[test]
fn corrupted_images_are_rejected() {
    let params = CountMinParams { conservative: true, ..CountMinParams::with_size(64, 3).unwrap() };
    let mut buf = fresh(&params, 0);
    skewed_stream(500, 100, 5).iter().for_each(|k| wrap_mut(buf.as_mut()).unwrap().add_u64(*k, 2));
    let mut exported = std::vec![0u8; buf.as_ref().len()];
    export(buf.as_ref(), &mut exported).unwrap();
    check_corruption(&exported, HEADER_LEN, 500, import, verify, exercise);
    fuzz_images(buf.as_ref(), HEADER_LEN, 10_000, exercise);
}

/// `countmin::image_len(&params)` and `seed()`, as the filters have them.
#[test]
fn free_image_len_and_seed_as_the_other_families() {
    let params = CountMinParams::with_size(100, 3).unwrap();
    assert_eq!(image_len(&params), params.image_len());
    let bad = CountMinParams { counter_bits: 16, ..params };
    assert_eq!(image_len(&bad), Err(Error::InvalidParameter));
    let buf = fresh(&params, 5);
    let v = wrap(buf.as_ref()).unwrap();
    assert_eq!(v.seed(), 5);
    assert_eq!(v.seed(), v.stats().seed);
}
