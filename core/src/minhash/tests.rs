use super::*;
use crate::test_util::{check_corruption, check_merge_laws, fuzz_images, AlignedBuf};
extern crate std;
use std::vec::Vec;

fn fresh(k: u32, seed: u64) -> AlignedBuf {
    let mut buf = AlignedBuf::new(image_len(k).unwrap() as usize);
    init(buf.as_mut(), k, seed).unwrap();
    buf
}

fn sketch_of(k: u32, seed: u64, items: impl Iterator<Item = u64>) -> AlignedBuf {
    let mut buf = fresh(k, seed);
    let mut s = wrap_mut(buf.as_mut()).unwrap();
    items.for_each(|x| {
        s.add_u64(x);
    });
    buf
}

/// Two sets with union `union` and Jaccard `j`: A = [0, a), B = [a - i, a - i + b).
fn pair(union: u64, j: f64, offset: u64) -> (std::ops::Range<u64>, std::ops::Range<u64>) {
    let inter = (j * union as f64).round() as u64;
    let a = (union + inter) / 2;
    let b = union + inter - a;
    (offset..offset + a, offset + a - inter..offset + a - inter + b)
}

fn jaccard_stats(k: u32, union: u64, j: f64, trials: u64) -> (f64, f64, f64) {
    let (mut sum, mut sum_sq) = (0.0, 0.0);
    let (ra, rb) = pair(union, j, 0);
    let truth = (ra.end.min(rb.end) - rb.start) as f64 / (rb.end - ra.start) as f64;
    for t in 0..trials {
        let a = sketch_of(k, t, ra.clone());
        let b = sketch_of(k, t, rb.clone());
        let est = wrap(a.as_ref()).unwrap().jaccard(&wrap(b.as_ref()).unwrap()).unwrap();
        sum += est - truth;
        sum_sq += (est - truth) * (est - truth);
    }
    let mean = sum / trials as f64;
    let sd = (sum_sq / trials as f64 - mean * mean).max(0.0).sqrt();
    (truth, mean, sd)
}

#[test]
fn jaccard_is_unbiased_with_the_minhash_deviation() {
    let (k, trials) = (256u32, 400u64);
    for j in [0.01, 0.1, 0.5, 0.9] {
        let (truth, mean, sd) = jaccard_stats(k, 20_000, j, trials);
        let expected_sd = (truth * (1.0 - truth) / f64::from(k)).sqrt();
        std::eprintln!("J={truth:.3}: mean error {mean:+.5}, sd {sd:.5} (sqrt(J(1-J)/k) = {expected_sd:.5})");
        assert!(
            mean.abs() <= 4.0 * expected_sd / (trials as f64).sqrt() + 1e-3,
            "J={truth}: mean error {mean}"
        );
        assert!(sd <= 1.2 * expected_sd, "J={truth}: sd {sd} above 1.2 x {expected_sd}");
    }
}

#[test]
fn densification_keeps_small_sets_unbiased() {
    // 150 items in 512 bins: most bins are empty and borrow a neighbour's value.
    let (k, trials) = (512u32, 400u64);
    for j in [0.2, 0.6] {
        let (truth, mean, sd) = jaccard_stats(k, 150, j, trials);
        std::eprintln!("small sets J={truth:.3}: mean error {mean:+.5}, sd {sd:.5}");
        assert!(mean.abs() <= 4.0 * sd / (trials as f64).sqrt() + 1e-3, "J={truth}: mean error {mean}");
    }
}

#[test]
fn identical_disjoint_and_empty_sets() {
    let a = sketch_of(128, 1, 0..1000);
    let same = sketch_of(128, 1, (0..1000).rev());
    let other = sketch_of(128, 1, 5000..6000);
    let empty = fresh(128, 1);
    let (va, vs, vo, ve) = (
        wrap(a.as_ref()).unwrap(),
        wrap(same.as_ref()).unwrap(),
        wrap(other.as_ref()).unwrap(),
        wrap(empty.as_ref()).unwrap(),
    );
    assert_eq!(va.jaccard(&vs), Ok(1.0));
    assert!(va.jaccard(&vo).unwrap() < 0.05);
    assert_eq!(ve.jaccard(&ve), Ok(1.0));
    assert_eq!(va.jaccard(&ve), Ok(0.0));
    assert_eq!(va.filled(), 128);
    assert!(ve.is_empty());
    let mut sig = std::vec![0u64; 128];
    va.signature(&mut sig).unwrap();
    assert!(sig.iter().all(|v| *v != EMPTY));
    assert_eq!(va.signature(&mut sig[1..]), Err(Error::InvalidArgument));
    let other_k = fresh(64, 1);
    let other_seed = fresh(128, 2);
    assert_eq!(va.jaccard(&wrap(other_k.as_ref()).unwrap()), Err(Error::Incompatible));
    assert_eq!(va.jaccard(&wrap(other_seed.as_ref()).unwrap()), Err(Error::Incompatible));
    // One item: every bin borrows it.
    let one = sketch_of(64, 3, 7..8);
    let v = wrap(one.as_ref()).unwrap();
    assert_eq!(v.filled(), 1);
    assert!((0..64).all(|i| v.densified(i) != EMPTY));
}

fn merge_bufs(dst: &mut [u8], src: &[u8]) {
    wrap_mut(dst).unwrap().merge(&wrap(src).unwrap()).unwrap();
}

fn raw(buf: &[u8]) -> Vec<u8> {
    buf[HEADER_LEN..].to_vec()
}

#[test]
fn merge_gives_the_sketch_of_the_union() {
    let a = sketch_of(200, 4, 0..3000);
    let b = sketch_of(200, 4, 2000..9000);
    let whole = sketch_of(200, 4, 0..9000);
    let mut m = AlignedBuf::from_bytes(a.as_ref());
    merge_bufs(m.as_mut(), b.as_ref());
    assert_eq!(raw(m.as_ref()), raw(whole.as_ref()));
    let c = sketch_of(200, 4, 50..70);
    check_merge_laws(a.as_ref(), b.as_ref(), c.as_ref(), &merge_bufs, raw);
    let mut x = AlignedBuf::from_bytes(a.as_ref());
    let other = fresh(200, 5);
    assert_eq!(wrap_mut(x.as_mut()).unwrap().merge(&wrap(other.as_ref()).unwrap()), Err(Error::Incompatible));
    wrap_mut(x.as_mut()).unwrap().clear();
    assert_eq!(x.as_ref(), fresh(200, 4).as_ref());
}

#[test]
fn keys_hash_with_the_image_seed() {
    let mut a = fresh(64, 9);
    let mut b = fresh(64, 9);
    wrap_mut(a.as_mut()).unwrap().add(b"word");
    wrap_mut(b.as_mut()).unwrap().add_hashes(&[hash::hash_bytes(b"word", 9)]);
    assert_eq!(a.as_ref(), b.as_ref());
    assert_eq!(image_len(0), Err(Error::InvalidParameter));
    assert_eq!(image_len(MAX_REGISTERS + 1), Err(Error::InvalidParameter));
}

fn exercise(bytes: &mut [u8]) {
    let copy = AlignedBuf::from_bytes(bytes);
    let mut dst = AlignedBuf::new(bytes.len());
    let _ = import(bytes, dst.as_mut());
    let _ = verify(bytes);
    let mut out = std::vec![0u8; bytes.len()];
    let _ = export(bytes, &mut out);
    if let Ok(mut s) = wrap_mut(bytes) {
        s.add(b"key");
        s.add_hashes(&[1, 2, 3]);
        if let Ok(other) = wrap(copy.as_ref()) {
            let _ = s.merge(&other);
            let _ = s.as_ref().jaccard(&other);
        }
        let view = s.as_ref();
        let _ = view.stats();
        let mut sig = std::vec![0u64; view.registers() as usize];
        let _ = view.signature(&mut sig);
        s.clear();
    }
}

#[test]
fn corrupted_images_are_rejected() {
    let buf = sketch_of(32, 0, 0..100);
    let mut exported = std::vec![0u8; buf.as_ref().len()];
    export(buf.as_ref(), &mut exported).unwrap();
    check_corruption(&exported, HEADER_LEN, 300, import, verify, exercise);
    fuzz_images(buf.as_ref(), HEADER_LEN, 10_000, exercise);
}

#[test]
fn string_keys_are_unbiased_across_seeds() {
    let n = 100_000u64;
    for (shift, k) in [(n / 10, 1024u32), (n / 2, 1024)] {
        let exact = (n - shift) as f64 / (n + shift) as f64;
        let mut errs = Vec::new();
        for seed in 0..20u64 {
            let mut a = fresh(k, seed);
            let mut b = fresh(k, seed);
            for i in 0..n {
                wrap_mut(a.as_mut()).unwrap().add(std::format!("present-{i}").as_bytes());
                wrap_mut(b.as_mut()).unwrap().add(std::format!("present-{}", i + shift).as_bytes());
            }
            errs.push(wrap(a.as_ref()).unwrap().jaccard(&wrap(b.as_ref()).unwrap()).unwrap() - exact);
        }
        let mean = errs.iter().sum::<f64>() / 20.0;
        let sd = (errs.iter().map(|e| (e - mean) * (e - mean)).sum::<f64>() / 20.0).sqrt();
        let expected = (exact * (1.0 - exact) / f64::from(k)).sqrt();
        assert!(mean.abs() <= 4.0 * expected / 20f64.sqrt(), "J={exact}: mean error {mean}");
        assert!(sd <= 1.2 * expected, "J={exact}: sd {sd}");
    }
}

#[test]
fn out_of_range_bins_read_empty_and_never_overflow() {
    let (empty, filled) = (fresh(8, 1), sketch_of(8, 1, 0..100));
    for (buf, is_empty) in [(&empty, true), (&filled, false)] {
        let s = wrap(buf.as_ref()).unwrap();
        for i in [8, usize::MAX / 8 + 1, usize::MAX] {
            assert_eq!(s.register(i), EMPTY, "bin {i}");
            assert_eq!(s.densified(i) == EMPTY, is_empty, "bin {i}");
        }
    }
}

/// `is_compatible`, as every other family with a merge has it: the rule of
/// `jaccard` and `merge` (same `k` and seed).
#[test]
fn is_compatible_is_the_merge_rule() {
    let (a, b) = (sketch_of(16, 1, 0..10), sketch_of(16, 1, 5..20));
    let (other_k, other_seed) = (fresh(32, 1), fresh(16, 2));
    let va = wrap(a.as_ref()).unwrap();
    assert!(va.is_compatible(&wrap(b.as_ref()).unwrap()));
    for other in [&other_k, &other_seed] {
        let vo = wrap(other.as_ref()).unwrap();
        assert!(!va.is_compatible(&vo));
        assert_eq!(va.jaccard(&vo), Err(Error::Incompatible));
        let mut copy = AlignedBuf::from_bytes(a.as_ref());
        assert_eq!(wrap_mut(copy.as_mut()).unwrap().merge(&vo), Err(Error::Incompatible));
        assert_eq!(copy.as_ref(), a.as_ref());
    }
}
