extern crate std;
use super::*;
use crate::test_util::{
    assert_batch_queries_match_single, assert_binomial, check_corruption, fuzz_images, ring_test_batches,
    AlignedBuf, SplitMix64,
};
use std::vec::Vec;

fn new_filter(params: &BloomParams, seed: u64) -> AlignedBuf {
    let mut buf = AlignedBuf::new(image_len(params).unwrap() as usize);
    init(buf.as_mut(), params, seed).unwrap();
    buf
}

fn exercise(bytes: &mut [u8]) {
    let copy = AlignedBuf::from_bytes(bytes);
    let mut dst = AlignedBuf::new(bytes.len());
    let _ = import(bytes, dst.as_mut());
    let _ = verify(bytes);
    if let Ok(mut f) = wrap_mut(bytes) {
        f.add_u64(1);
        let _ = f.remove_u64(1);
        let _ = f.remove(b"absent");
        let mut out = [false; 3];
        let _ = f.add_hashes(&[1, 2, 3], Some(&mut out));
        let _ = f.remove_hashes(&[1, 2, 3], &mut out);
        if let Ok(other) = wrap(copy.as_ref()) {
            let _ = f.merge(&other);
        }
        let view = f.as_ref();
        let _ = view.stats();
        let _ = view.contains_u64(9);
        let _ = view.counter(u64::MAX);
        f.clear();
    }
}

#[test]
fn sizing_and_hostile_parameters() {
    let p = BloomParams::for_items(1000, 0.01).unwrap();
    assert_eq!(image_len(&p).unwrap(), 128 + p.bits.div_ceil(16) * 8);
    let bad = BloomParams { bits: 0, hashes: 3, planned_items: 1, planned_fpr: 0.1 };
    assert_eq!(image_len(&bad), Err(Error::InvalidParameter));
    let mut buf = AlignedBuf::new(image_len(&p).unwrap() as usize + 8);
    assert_eq!(init(&mut buf.as_mut()[1..], &p, 0).unwrap_err(), Error::Misaligned);
    assert_eq!(init(&mut buf.as_mut()[..100], &p, 0).unwrap_err(), Error::BufferTooSmall);
}

/// Random interleavings of adds and removes of present items never produce a
/// false negative, and removing an absent item changes nothing.
#[test]
fn no_false_negatives_under_add_remove_interleavings() {
    let params = BloomParams::for_items(2000, 0.02).unwrap();
    let mut buf = new_filter(&params, 5);
    let mut rng = SplitMix64(77);
    let mut stored: Vec<u64> = Vec::new();
    for step in 0..200_000u64 {
        let mut f = wrap_mut(buf.as_mut()).unwrap();
        if stored.is_empty() || !rng.next_u64().is_multiple_of(3) {
            // Keys repeat (multiset), from a small space so counters climb.
            let key = rng.next_u64() % 3000;
            f.add_u64(key);
            stored.push(key);
        } else {
            let at = (rng.next_u64() as usize) % stored.len();
            let key = stored.swap_remove(at);
            assert_eq!(f.remove_u64(key), Ok(()), "removing a present item at step {step}");
        }
        if step % 1000 == 0 {
            let view = f.as_ref();
            assert!(stored.iter().all(|k| view.contains_u64(*k)), "false negative at step {step}");
            let stats = view.stats();
            assert_eq!(stats.items, stored.len() as u64);
            let (nonzero, saturated) = scan(view.body(), params.bits);
            assert_eq!((stats.nonzero_counters, stats.saturated_counters), (nonzero, saturated));
        }
    }
}

#[test]
fn removing_an_absent_item_reports_not_present_and_changes_nothing() {
    let params = BloomParams::for_items(1000, 0.01).unwrap();
    let mut buf = new_filter(&params, 1);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    for k in 0..500 {
        f.add_u64(k);
    }
    let before = buf.as_ref().to_vec();
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    let mut refused = 0;
    for k in 10_000..11_000 {
        if f.remove_u64(k) == Err(Error::NotPresent) {
            refused += 1;
        }
    }
    // Almost all absent keys have a zero counter; the rest are false positives
    // whose removal is indistinguishable from a present item's.
    assert!(refused > 980, "{refused}");
    if refused == 1000 {
        assert_eq!(buf.as_ref(), &before[..]);
    }
}

#[test]
fn saturated_counters_are_never_decremented() {
    let params = BloomParams::with_bits(64, 3).unwrap();
    let mut buf = new_filter(&params, 0);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    for _ in 0..20 {
        f.add(b"hot");
    }
    let s = f.as_ref().stats();
    assert!(s.saturated_counters >= 1, "{s:?}");
    for _ in 0..20 {
        f.remove(b"hot").unwrap();
    }
    // The counters stuck at 15: still present, and removable again.
    assert!(f.as_ref().contains(b"hot"));
    assert_eq!(f.remove(b"hot"), Ok(()));
    // Inserting the same key more than 8 times behaves as documented: the
    // key stays present until it has been removed as often as it was added,
    // and (saturated) afterwards too.
    let mut g = new_filter(&BloomParams::for_items(1000, 0.01).unwrap(), 0);
    let mut g = wrap_mut(g.as_mut()).unwrap();
    for _ in 0..10 {
        g.add(b"k");
    }
    for _ in 0..9 {
        g.remove(b"k").unwrap();
        assert!(g.as_ref().contains(b"k"));
    }
}

#[test]
fn false_positive_rate_is_as_designed() {
    for (n, p) in [(10_000u64, 0.01), (100_000, 0.001)] {
        let params = BloomParams::for_items(n, p).unwrap();
        let mut buf = new_filter(&params, 9);
        let mut f = wrap_mut(buf.as_mut()).unwrap();
        for k in 0..n {
            f.add_u64(k);
        }
        let view = wrap(buf.as_ref()).unwrap();
        let queries = 1_000_000u64;
        let hits = (n..n + queries).filter(|k| view.contains_u64(*k)).count() as u64;
        assert_binomial(hits, queries, view.estimated_fpr(), "counting");
        assert!(view.estimated_fpr() < 1.05 * p && view.capacity().is_within_plan());
    }
}

#[test]
fn merge_adds_counters_and_is_commutative_and_associative() {
    let params = BloomParams::for_items(3000, 0.01).unwrap();
    let filled = |keys: core::ops::Range<u64>| {
        let mut buf = new_filter(&params, 4);
        let mut f = wrap_mut(buf.as_mut()).unwrap();
        keys.for_each(|k| {
            f.add_u64(k);
        });
        buf
    };
    let merged = |a: &AlignedBuf, b: &AlignedBuf| {
        let mut out = AlignedBuf::from_bytes(a.as_ref());
        wrap_mut(out.as_mut()).unwrap().merge(&wrap(b.as_ref()).unwrap()).unwrap();
        out
    };
    let (a, b, c) = (filled(0..1000), filled(500..1500), filled(1400..2500));
    assert_eq!(merged(&a, &b).as_ref(), merged(&b, &a).as_ref());
    assert_eq!(merged(&merged(&a, &b), &c).as_ref(), merged(&a, &merged(&b, &c)).as_ref());
    // Merging disjoint parts equals adding everything (no counter saturates here).
    let whole = filled(0..2000);
    let parts = merged(&filled(0..1000), &filled(1000..2000));
    assert_eq!(wrap(whole.as_ref()).unwrap().body(), wrap(parts.as_ref()).unwrap().body());
    let m = merged(&a, &b);
    let view = wrap(m.as_ref()).unwrap();
    assert!((0..1500).all(|k| view.contains_u64(k)));
    assert_eq!(view.stats().items, 2000);
    let mut other_seed = filled(0..10);
    let mut d = wrap_mut(other_seed.as_mut()).unwrap();
    let different = new_filter(&params, 99);
    assert_eq!(d.merge(&wrap(different.as_ref()).unwrap()), Err(Error::Incompatible));
}

#[test]
fn export_import_identity_and_corruption() {
    let params = BloomParams::for_items(300, 0.01).unwrap();
    let mut buf = new_filter(&params, 2);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    for k in 0..250 {
        f.add_u64(k);
    }
    let mut exported = std::vec![0u8; buf.as_ref().len()];
    export(buf.as_ref(), &mut exported).unwrap();
    let mut back = AlignedBuf::new(exported.len());
    import(&exported, back.as_mut()).unwrap();
    assert_eq!(back.as_ref(), &exported[..]);
    assert_eq!(wrap(back.as_ref()).unwrap().stats(), wrap(buf.as_ref()).unwrap().stats());
    check_corruption(&exported, HEADER_LEN, 2000, import, verify, exercise);
    fuzz_images(&exported, HEADER_LEN, 20_000, exercise);
}

#[test]
fn forged_statistics_do_not_brick_the_filter() {
    // A header whose statistics disagree with the counters (what a forged
    // image with a valid checksum can hold) passes validation; adds and
    // removes must keep it valid, or every later call would fail.
    let params = BloomParams::for_items(100, 0.01).unwrap();
    let mut buf = new_filter(&params, 1);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    (0..60).for_each(|k| {
        f.add_u64(k);
    });
    let bits = params.bits;
    for (calls, removes, nonzero, saturated) in
        [(1, 1, 1, 1), (0, 0, 0, 0), (60, 0, bits, bits), (60, 0, 3, 3)]
    {
        let mut forged = AlignedBuf::from_bytes(buf.as_ref());
        put_u64(forged.as_mut(), OFF_ADD_CALLS, calls);
        put_u64(forged.as_mut(), OFF_REMOVES, removes);
        put_u64(forged.as_mut(), OFF_NONZERO, nonzero);
        put_u64(forged.as_mut(), OFF_SATURATED, saturated);
        let mut f = wrap_mut(forged.as_mut()).unwrap();
        for k in 0..60 {
            assert_eq!(f.remove_u64(k), Ok(()));
        }
        for k in 0..200 {
            f.add_u64(k);
            f.add_u64(k % 3);
        }
        for k in 0..60 {
            let _ = f.remove_u64(k);
        }
        assert!(wrap(forged.as_ref()).is_ok(), "bricked by ({calls}, {removes}, {nonzero}, {saturated})");
    }
}

/// Batch adds through the probe ring (k <= 8) and through the pipelined
/// form (more probes) give the counters, flags and header counts of single
/// adds, for batches shorter and longer than the ring, keys repeated inside
/// and past it, and one key added until its counters saturate.
#[test]
fn batch_adds_match_single_adds_on_both_paths() {
    for (fpr, ring) in [(0.02, true), (0.004, true), (0.0001, false)] {
        let params = BloomParams::for_items(2000, fpr).unwrap();
        assert_eq!(params.hashes as usize <= crate::filter::RING_PROBES, ring, "k = {}", params.hashes);
        for (len, mut hashes) in ring_test_batches(11) {
            hashes.extend(core::iter::repeat_n(0x5eed, 20));
            let what = std::format!("fpr {fpr}, {len} keys");
            crate::test_util::assert_batch_adds_match_single!(
                counting,
                new_filter(&params, 3),
                &hashes,
                what
            );
        }
    }
}

/// Batch queries answer as single queries on absent and present keys
/// mixed, for 1, 2, 7 and 14 probes per key, on filters filled to their
/// plan and to three times it, with some keys removed again.
#[test]
fn batch_queries_match_single_queries_on_mixed_keys() {
    for fpr in [0.5, 0.25, 0.01, 0.0001] {
        let params = BloomParams::for_items(2000, fpr).unwrap();
        for items in [2000u64, 6000] {
            let mut buf = new_filter(&params, 4);
            let mut f = wrap_mut(buf.as_mut()).unwrap();
            for k in 0..items {
                f.add_u64(k);
            }
            for k in (0..items).step_by(7) {
                f.remove_u64(k).unwrap();
            }
            let f = wrap(buf.as_ref()).unwrap();
            let what = std::format!("k = {}, {items} items", params.hashes);
            assert_batch_queries_match_single(
                &what,
                |h| f.contains_hash(h),
                |hs, out| f.contains_hashes(hs, out),
            );
        }
    }
}

/// `seed()`, as the Bloom and split-block views have it.
#[test]
fn the_view_tells_its_seed() {
    let params = BloomParams::for_items(100, 0.01).unwrap();
    let buf = new_filter(&params, 91);
    let v = wrap(buf.as_ref()).unwrap();
    assert_eq!(v.seed(), 91);
    assert_eq!(v.seed(), v.key_hasher().seed);
}
