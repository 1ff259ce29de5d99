extern crate std;
use super::*;
use crate::test_util::{assert_binomial, check_corruption, fuzz_images, AlignedBuf, SplitMix64};
use std::vec::Vec;

fn new_filter(params: &CuckooParams, seed: u64) -> AlignedBuf {
    let mut buf = AlignedBuf::new(params.image_len().unwrap() as usize);
    init(buf.as_mut(), params, seed).unwrap();
    buf
}

fn exercise(bytes: &mut [u8]) {
    let copy = AlignedBuf::from_bytes(bytes);
    let mut scratch = AlignedBuf::new(bytes.len());
    let mut dst = AlignedBuf::new(bytes.len());
    let _ = import(bytes, dst.as_mut());
    let _ = verify(bytes);
    if let Ok(mut f) = wrap_mut(bytes) {
        let _ = f.add_u64(1);
        let _ = f.remove_u64(1);
        let _ = f.remove(b"absent");
        let mut out = [false; 3];
        let _ = f.add_hashes(&[1, 2, 3], Some(&mut out));
        let _ = f.remove_hashes(&[1, 2, 3], None);
        if let Ok(other) = wrap(copy.as_ref()) {
            let _ = f.merge(&other, scratch.as_mut());
        }
        let view = f.as_ref();
        let _ = view.stats();
        let _ = view.count(b"x");
        let _ = view.contains_hashes(&[4, 5, 6], &mut out);
        f.clear();
    }
}

#[test]
fn planning_picks_the_fingerprint_width_and_follows_n() {
    let p = CuckooParams::for_items(1_000_000, 0.01).unwrap();
    assert_eq!(p.fingerprint_bits, 12);
    assert_eq!(p.buckets, 263_158); // ceil(1e6 / 3.8): not rounded to a power of two
    assert_eq!(CuckooParams::for_items(1000, 0.05).unwrap().fingerprint_bits, 8);
    assert_eq!(CuckooParams::for_items(1000, 0.001).unwrap().fingerprint_bits, 16);
    assert_eq!(CuckooParams::for_items(1000, 1e-6), Err(Error::InvalidParameter));
    for (n, q) in [(0, 0.01), (10, 0.0), (10, 1.0), (10, f64::NAN)] {
        assert_eq!(CuckooParams::for_items(n, q), Err(Error::InvalidParameter));
    }
    assert_eq!(CuckooParams::with_buckets(0, 8), Err(Error::InvalidParameter));
    assert_eq!(CuckooParams::with_buckets(10, 10), Err(Error::InvalidParameter));
    let p = CuckooParams::with_buckets(1000, 12).unwrap();
    assert_eq!(p.image_len().unwrap(), (128 + (1000u64 * 4 * 12).div_ceil(64) * 8).next_multiple_of(64));
}

/// A width of 64 bits or more shifted `1u64` out of range: a panic with
/// overflow checks (the test profile, a Rust user's debug build), and a
/// bound of -inf without them. Any width gives a rate in [0, 1] now, and
/// `with_buckets` refuses the widths it cannot store.
#[test]
fn any_fingerprint_width_gives_a_rate_or_an_error_never_a_panic() {
    for bits in [0u32, 1, 7, 8, 12, 16, 31, 32, 63, 64, 65, 100, u32::MAX] {
        let bound = fpr_bound(bits);
        assert!((0.0..=1.0).contains(&bound), "fpr_bound({bits}) = {bound}");
        let params = CuckooParams::with_buckets(10, bits);
        assert_eq!(params.is_ok(), matches!(bits, 8 | 12 | 16), "width {bits}: {params:?}");
    }
    assert!(fpr_bound(8) > fpr_bound(12) && fpr_bound(12) > fpr_bound(16));
}

#[test]
fn alternate_bucket_is_an_involution_for_any_bucket_count() {
    for buckets in [1u64, 2, 3, 7, 1000, 263_158] {
        let g = Geometry { buckets, bits: 12 };
        let mut rng = SplitMix64(buckets);
        for _ in 0..1000 {
            let (i, fp) = g.locate(rng.next_u64());
            let j = g.alt(i, fp);
            assert!(j < buckets && g.alt(j, fp) == i);
        }
    }
}

/// Load reached before the first failed insert, averaged over 20 seeds, is
/// at least 95%; a failed insert leaves the image byte-identical; nothing
/// stored is ever lost.
/// The four-slots-at-once tests (which slots equal a value, whether any
/// does, the first empty one) equal the slot-by-slot reading, for every
/// width, on buckets with empty slots, repeated fingerprints, neighbours of
/// `fp` (one bit off, +-1) and all-ones slots, where a borrow between slots
/// would show.
#[test]
fn bucket_tests_at_once_equal_the_slot_by_slot_reading() {
    let mut rng = SplitMix64(0xb0c4);
    for bits in [8u32, 12, 16] {
        let g = Geometry { buckets: 1, bits };
        let mask = (1u64 << bits) - 1;
        for _ in 0..200_000 {
            let fp = (rng.next_u64() & mask).max(1) as u32;
            let mut word = 0u64;
            for s in 0..SLOTS as u32 {
                let slot = match rng.next_u64() % 6 {
                    0 => 0,
                    1 => u64::from(fp),
                    2 => u64::from(fp) ^ (1 << (rng.next_u64() % u64::from(bits))),
                    3 => u64::from(fp).wrapping_add(1) & mask,
                    4 => mask,
                    _ => rng.next_u64() & mask,
                };
                word |= slot << (s * bits);
            }
            let slot_by_slot: Vec<u32> =
                (0..SLOTS as u32).filter(|s| (word >> (s * bits)) & mask == u64::from(fp)).collect();
            let at_once = g.slots_equal(word, fp);
            let found: Vec<u32> =
                (0..SLOTS as u32).filter(|s| at_once >> (s * bits + bits - 1) & 1 == 1).collect();
            assert_eq!(found, slot_by_slot, "bits={bits} word={word:#x} fp={fp:#x}");
            assert_eq!(
                at_once.count_ones(),
                slot_by_slot.len() as u32,
                "nothing outside the slots' top bits"
            );
            assert_eq!(g.holds(word, fp), !slot_by_slot.is_empty(), "bits={bits} word={word:#x} fp={fp:#x}");
            // The empty slots, by the same test (value 0), as `first_slot` reads them.
            let empty = g.slots_equal(word, 0);
            let first_empty = (0..SLOTS as u32).find(|s| (word >> (s * bits)) & mask == 0);
            assert_eq!((empty != 0).then(|| empty.trailing_zeros() / bits), first_empty);
        }
    }
}

#[test]
fn loads_reach_95_percent_and_full_loses_nothing() {
    let params = CuckooParams::with_buckets(5003, 12).unwrap();
    let mut loads = Vec::new();
    for seed in 0..20u64 {
        let mut buf = new_filter(&params, seed);
        let mut stored = Vec::new();
        let mut rng = SplitMix64(seed * 31 + 7);
        loop {
            let h = rng.next_u64();
            let before = buf.as_ref().to_vec();
            let mut f = wrap_mut(buf.as_mut()).unwrap();
            match f.add_hash(h) {
                Ok(()) => stored.push(h),
                Err(e) => {
                    assert_eq!(e, Error::Full);
                    assert_eq!(buf.as_ref(), &before[..], "a failed insert changed the image");
                    break;
                }
            }
        }
        let f = wrap(buf.as_ref()).unwrap();
        assert!(stored.iter().all(|h| f.contains_hash(*h)), "an item was lost");
        assert_eq!(f.items(), stored.len() as u64);
        loads.push(f.stats().load);
    }
    let mean = loads.iter().sum::<f64>() / loads.len() as f64;
    assert!(mean >= 0.95, "mean load before first failure {mean}");
}

#[test]
fn remove_and_count_semantics() {
    let params = CuckooParams::for_items(10_000, 0.01).unwrap();
    let mut buf = new_filter(&params, 1);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    for k in 0..9000u64 {
        f.add_u64(k).unwrap();
    }
    for k in (0..9000u64).step_by(2) {
        assert_eq!(f.remove_u64(k), Ok(()));
    }
    let view = f.as_ref();
    assert!((1..9000u64).step_by(2).all(|k| view.contains_u64(k)), "false negative after removals");
    assert_eq!(view.items(), 4500);
    let mut refused = 0;
    for k in 100_000..101_000u64 {
        refused += u32::from(f.remove_u64(k) == Err(Error::NotPresent));
    }
    assert!(refused > 980, "{refused}");
    // The same key more than 8 times: two buckets of 4 slots hold 8 copies;
    // the 9th add reports Full and changes nothing.
    let mut g = new_filter(&params, 2);
    let mut g = wrap_mut(g.as_mut()).unwrap();
    for _ in 0..8 {
        g.add(b"dup").unwrap();
    }
    assert_eq!(g.as_ref().count(b"dup"), 8);
    assert_eq!(g.add(b"dup"), Err(Error::Full));
    assert_eq!(g.as_ref().count(b"dup"), 8);
    for left in (0..8).rev() {
        g.remove(b"dup").unwrap();
        assert_eq!(g.as_ref().count(b"dup"), left);
    }
    assert_eq!(g.remove(b"dup"), Err(Error::NotPresent));
}

#[test]
fn batch_adds_and_removes_equal_single_calls() {
    let params = CuckooParams::for_items(2_000, 0.01).unwrap();
    let (mut single, mut batch) = (new_filter(&params, 3), new_filter(&params, 3));
    // Past capacity, with repeats: some adds fail, some removes find nothing.
    let mut rng = SplitMix64(11);
    let hashes: Vec<u64> = (0..4_000).map(|_| rng.next_u64() % 3_000).map(|k| hash::hash_u64(k, 3)).collect();
    let removals: Vec<u64> =
        (0..3_000).map(|_| rng.next_u64() % 6_000).map(|k| hash::hash_u64(k, 3)).collect();
    let (mut expect_added, mut expect_removed) = (Vec::new(), Vec::new());
    {
        let mut f = wrap_mut(single.as_mut()).unwrap();
        expect_added.extend(hashes.iter().map(|h| f.add_hash(*h).is_ok()));
        expect_removed.extend(removals.iter().map(|h| f.remove_hash(*h).is_ok()));
    }
    let mut f = wrap_mut(batch.as_mut()).unwrap();
    let (mut added, mut removed) = (std::vec![false; hashes.len()], std::vec![false; removals.len()]);
    for (h, a) in hashes.chunks(7).zip(added.chunks_mut(7)) {
        f.add_hashes(h, Some(a)).unwrap();
    }
    for (h, r) in removals.chunks(5).zip(removed.chunks_mut(5)) {
        f.remove_hashes(h, Some(r)).unwrap();
    }
    assert!(
        expect_added.contains(&false) && expect_removed.contains(&false) && expect_removed.contains(&true)
    );
    assert_eq!((added, removed), (expect_added, expect_removed));
    assert_eq!(batch.as_ref(), single.as_ref());
    // Without outputs: the same image; a wrong output length changes nothing.
    let mut quiet = new_filter(&params, 3);
    let mut q = wrap_mut(quiet.as_mut()).unwrap();
    assert_eq!(q.add_hashes(&hashes, Some(&mut [false; 3])), Err(Error::InvalidArgument));
    assert_eq!(q.remove_hashes(&hashes, Some(&mut [false; 3])), Err(Error::InvalidArgument));
    q.add_hashes(&hashes, None).unwrap();
    q.remove_hashes(&removals, None).unwrap();
    assert_eq!(quiet.as_ref(), single.as_ref());
}

/// A cleared filter equals a fresh one, relocation generator included: the
/// same adds after a clear give the same bytes.
#[test]
fn clear_restores_the_fresh_image() {
    let params = CuckooParams::for_items(1_000, 0.01).unwrap();
    let fresh = new_filter(&params, 5);
    let mut used = new_filter(&params, 5);
    let hashes: Vec<u64> = (0..1_000u64).map(|k| hash::hash_u64(k, 5)).collect();
    let mut f = wrap_mut(used.as_mut()).unwrap();
    f.add_hashes(&hashes, None).unwrap();
    let filled = AlignedBuf::from_bytes(used.as_ref());
    let mut f = wrap_mut(used.as_mut()).unwrap();
    f.clear();
    assert_eq!(used.as_ref(), fresh.as_ref());
    let mut f = wrap_mut(used.as_mut()).unwrap();
    f.add_hashes(&hashes, None).unwrap();
    assert_eq!(used.as_ref(), filled.as_ref());
}

/// Random interleavings of adds and removes of present items: no false negatives.
#[test]
fn no_false_negatives_under_interleavings() {
    let params = CuckooParams::for_items(4000, 0.01).unwrap();
    let mut buf = new_filter(&params, 3);
    let mut rng = SplitMix64(5);
    let mut stored: Vec<u64> = Vec::new();
    for step in 0..100_000 {
        let mut f = wrap_mut(buf.as_mut()).unwrap();
        if stored.len() < 3500 && (stored.is_empty() || !rng.next_u64().is_multiple_of(3)) {
            let key = rng.next_u64() % 5000;
            if f.add_u64(key).is_ok() {
                stored.push(key);
            }
        } else {
            let at = (rng.next_u64() as usize) % stored.len();
            assert_eq!(f.remove_u64(stored.swap_remove(at)), Ok(()));
        }
        if step % 1000 == 0 {
            let v = f.as_ref();
            assert!(stored.iter().all(|k| v.contains_u64(*k)), "false negative at {step}");
        }
    }
}

#[test]
fn false_positive_rate_matches_the_fingerprint_width() {
    for bits in [8u32, 12, 16] {
        let params = CuckooParams::with_buckets(25_000, bits).unwrap();
        let mut buf = new_filter(&params, 11);
        let mut f = wrap_mut(buf.as_mut()).unwrap();
        let n = 90_000u64; // 90% load
        for k in 0..n {
            f.add_u64(k).unwrap();
        }
        let view = f.as_ref();
        let queries = 1_000_000u64;
        let hits = (n..n + queries).filter(|k| view.contains_u64(*k)).count() as u64;
        assert_binomial(hits, queries, view.stats().estimated_fpr, "cuckoo");
    }
}

#[test]
fn merge_is_all_or_nothing() {
    let params = CuckooParams::with_buckets(1000, 12).unwrap();
    let filled = |keys: core::ops::Range<u64>| {
        let mut buf = new_filter(&params, 4);
        let mut f = wrap_mut(buf.as_mut()).unwrap();
        keys.for_each(|k| f.add_u64(k).unwrap());
        buf
    };
    let mut a = filled(0..1500);
    let b = filled(1500..3000);
    let mut scratch = AlignedBuf::new(a.as_ref().len());
    wrap_mut(a.as_mut()).unwrap().merge(&wrap(b.as_ref()).unwrap(), scratch.as_mut()).unwrap();
    let v = wrap(a.as_ref()).unwrap();
    assert!((0..3000).all(|k| v.contains_u64(k)));
    assert_eq!(v.items(), 3000);
    // Too much: 3000 + 1500 > 4000 slots. Full, and the destination is unchanged.
    let before = a.as_ref().to_vec();
    let c = filled(3000..4500);
    let r = wrap_mut(a.as_mut()).unwrap().merge(&wrap(c.as_ref()).unwrap(), scratch.as_mut());
    assert_eq!(r, Err(Error::Full));
    assert_eq!(a.as_ref(), &before[..]);
    let other = new_filter(&params, 5);
    let r = wrap_mut(a.as_mut()).unwrap().merge(&wrap(other.as_ref()).unwrap(), scratch.as_mut());
    assert_eq!(r, Err(Error::Incompatible));
    let mut small = AlignedBuf::new(64);
    let r = wrap_mut(a.as_mut()).unwrap().merge(&wrap(b.as_ref()).unwrap(), small.as_mut());
    assert_eq!(r, Err(Error::BufferTooSmall));
}

#[test]
fn export_import_identity_corruption_and_fuzz() {
    let params = CuckooParams::with_buckets(100, 8).unwrap();
    let mut buf = new_filter(&params, 6);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    for k in 0..300 {
        f.add_u64(k).unwrap();
    }
    let mut exported = std::vec![0u8; buf.as_ref().len()];
    export(buf.as_ref(), &mut exported).unwrap();
    let mut back = AlignedBuf::new(exported.len());
    import(&exported, back.as_mut()).unwrap();
    assert_eq!(back.as_ref(), &exported[..]);
    assert!((0..300).all(|k| wrap(back.as_ref()).unwrap().contains_u64(k)));
    check_corruption(&exported, HEADER_LEN, 2000, import, verify, exercise);
    fuzz_images(&exported, HEADER_LEN, 20_000, exercise);
}

#[test]
fn forged_item_count_does_not_brick_the_filter() {
    // A header claiming every slot used over an empty body (a forged image
    // with a valid checksum) passes validation; inserts must keep the count
    // within it, or every later call would fail.
    let params = CuckooParams::with_buckets(16, 8).unwrap();
    let mut buf = new_filter(&params, 1);
    put_u64(buf.as_mut(), OFF_ITEMS, 16 * SLOTS);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    for k in 0..20 {
        f.add_u64(k).unwrap();
    }
    assert_eq!(wrap(buf.as_ref()).unwrap().items(), 16 * SLOTS);
}

/// A bucket word holds exactly its bucket's bytes, little-endian, for
/// every width and every bucket, the last one of the body included (the
/// 12-bit read takes 8 bytes where the body has them and masks two off);
/// past the last bucket it reads 0. Batch queries, one loop per width,
/// answer as single queries do on a full filter of each width.
#[test]
fn bucket_words_and_batch_queries_for_every_width() {
    let mut rng = SplitMix64(0x5eed);
    for bits in [8u32, 12, 16] {
        let bytes = bits as usize / 2;
        for buckets in [1u64, 2, 3, 7, 64] {
            let g = Geometry { buckets, bits };
            let body: Vec<u8> = (0..buckets as usize * bytes).map(|_| rng.next_u64() as u8).collect();
            for b in 0..buckets {
                let start = b as usize * bytes;
                let expected =
                    body[start..start + bytes].iter().rev().fold(0u64, |w, byte| (w << 8) | u64::from(*byte));
                assert_eq!(g.bucket_word(&body, b), expected, "bits={bits} buckets={buckets} b={b}");
            }
            assert_eq!(g.bucket_word(&body, buckets), 0, "past the body");
        }
        let params = CuckooParams::with_buckets(1_000, bits).unwrap();
        let mut buf = new_filter(&params, 5);
        let mut f = wrap_mut(buf.as_mut()).unwrap();
        for k in 0..3_800u64 {
            f.add_u64(k).unwrap();
        }
        let view = f.as_ref();
        let hasher = view.key_hasher();
        let hashes: Vec<u64> = (0..7_603u64).map(|k| hasher.hash(&k.to_le_bytes())).collect();
        let mut batch = std::vec![false; hashes.len()];
        view.contains_hashes(&hashes, &mut batch).unwrap();
        let single: Vec<bool> = (0..7_603u64).map(|k| view.contains_u64(k)).collect();
        assert_eq!(batch, single, "bits={bits}");
        assert!(batch[..3_800].iter().all(|x| *x), "no false negatives, bits={bits}");
    }
}

/// The integer-key and seed accessors every other filter has: `count` had
/// no `_u64` form (as `contains_u64`, `add_u64`, `remove_u64` do), and the
/// view had no `seed()` (Bloom, split-block, HLL, ... do).
#[test]
fn count_u64_and_seed_as_the_other_forms() {
    let params = CuckooParams::for_items(100, 0.01).unwrap();
    let mut buf = new_filter(&params, 77);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    for _ in 0..3 {
        f.add_u64(42).unwrap();
    }
    let v = f.as_ref();
    assert_eq!(v.count_u64(42), 3);
    assert_eq!(v.count_u64(42), v.count(&42u64.to_le_bytes()));
    assert_eq!(v.count_u64(43), v.count(&43u64.to_le_bytes()));
    assert_eq!(v.seed(), 77);
    assert_eq!(v.seed(), v.key_hasher().seed);
}
