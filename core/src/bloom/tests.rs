extern crate std;
use super::*;
use crate::test_util::{assert_batch_queries_match_single, exercise_filter, fuzz_images, ring_test_batches};
use crate::test_util::{
    assert_binomial, check_corruption, check_merge_laws, make_key, AlignedBuf, SplitMix64, KEY_SHAPES,
};
use std::vec::Vec;

fn new_filter(params: &BloomParams, seed: u64) -> AlignedBuf {
    let mut buf = AlignedBuf::new(params.image_len().unwrap() as usize);
    init(buf.as_mut(), params, seed).unwrap();
    buf
}

#[test]
fn planning_matches_the_standard_formulas() {
    let p = BloomParams::for_items(1_000_000, 0.01).unwrap();
    // m = ceil(-n ln p / ln^2 2) = 9,585,059 bits (1170 KiB), k = 7.
    assert_eq!(p.bits, 9_585_059);
    assert_eq!(p.hashes, 7);
    assert_eq!(image_len(&p).unwrap(), (112 + 9_585_059u64.div_ceil(64) * 8).next_multiple_of(64));
    let q = BloomParams::with_bits(1 << 20, 5).unwrap();
    assert_eq!(q.planned_items, 145_363);
    assert!(q.planned_fpr > 0.0 && q.planned_fpr < 0.05);
}

#[test]
fn hostile_parameters_are_rejected() {
    for (n, p) in
        [(0, 0.01), (10, 0.0), (10, 1.0), (10, 1.5), (10, -0.1), (10, f64::NAN), (10, f64::INFINITY)]
    {
        assert_eq!(BloomParams::for_items(n, p), Err(Error::InvalidParameter), "n={n} p={p}");
    }
    assert_eq!(BloomParams::for_items(u64::MAX, 1e-300), Err(Error::InvalidParameter));
    assert_eq!(BloomParams::with_bits(0, 3), Err(Error::InvalidParameter));
    assert_eq!(BloomParams::with_bits(64, 0), Err(Error::InvalidParameter));
    assert_eq!(BloomParams::with_bits(64, MAX_HASHES + 1), Err(Error::InvalidParameter));
    assert_eq!(BloomParams::with_bits(MAX_BITS + 1, 3), Err(Error::InvalidParameter));
}

#[test]
fn sizes_up_to_2_pow_40_bits_and_beyond_are_plannable() {
    let p = BloomParams::with_bits(1 << 40, 7).unwrap();
    assert_eq!(image_len(&p).unwrap(), (112 + (1u64 << 37)).next_multiple_of(64));
    let p = BloomParams::for_items(100_000_000_000, 0.001).unwrap();
    assert!(p.bits > 1 << 40);
}

/// A plan beyond a 32-bit address space (10^10 keys at 1%: 11.2 GiB) keeps
/// its exact 64-bit size, and `init` refuses every buffer for it with
/// `BufferTooSmall`, writing nothing: on 32-bit targets (`make test-32`),
/// where the size is no `usize`, as on 64-bit ones. Never a wrapped size.
#[test]
fn plans_beyond_a_32_bit_address_space_keep_their_size_and_init_refuses_them() {
    let p = BloomParams::for_items(10_000_000_000, 0.01).unwrap();
    let len = p.image_len().unwrap();
    assert_eq!(len, image_len_for_bits(p.bits));
    assert!(len > 11 << 30 && len < 12 << 30, "{len}");
    assert_eq!(usize::try_from(len).is_ok(), cfg!(target_pointer_width = "64"));
    let mut buf = AlignedBuf::new(4096);
    assert_eq!(init(buf.as_mut(), &p, 0).err(), Some(Error::BufferTooSmall));
    assert!(buf.as_mut().iter().all(|b| *b == 0));
}

#[test]
fn init_checks_alignment_and_size_without_writing() {
    let params = BloomParams::for_items(1000, 0.01).unwrap();
    let len = params.image_len().unwrap() as usize;
    let mut buf = AlignedBuf::new(len + 8);
    buf.as_mut().fill(0xAB);
    assert_eq!(init(&mut buf.as_mut()[1..], &params, 0).unwrap_err(), Error::Misaligned);
    assert_eq!(init(&mut buf.as_mut()[..len - 1], &params, 0).unwrap_err(), Error::BufferTooSmall);
    assert!(buf.as_ref().iter().all(|b| *b == 0xAB));
    assert!(init(buf.as_mut(), &params, 0).is_ok());
}

#[test]
fn add_reports_new_and_there_are_no_false_negatives() {
    let params = BloomParams::for_items(10_000, 0.01).unwrap();
    let mut buf = new_filter(&params, 42);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    let mut key = Vec::new();
    let mut newly = 0;
    for i in 0..10_000 {
        make_key(crate::test_util::KeyShape::PresentString, true, i, 10_000, &mut key);
        newly += u64::from(f.add(&key));
        assert!(!f.add(&key), "second add of the same key must report not-new");
    }
    assert!(newly > 9_800, "almost all distinct keys are new: {newly}");
    let f = wrap(buf.as_ref()).unwrap();
    for i in 0..10_000 {
        make_key(crate::test_util::KeyShape::PresentString, true, i, 10_000, &mut key);
        assert!(f.contains(&key));
    }
    assert_eq!(f.add_calls(), 20_000);
    assert_eq!(f.inserted(), newly);
    assert_eq!(f.set_bits(), f.recount_set_bits());
}

#[test]
fn u64_and_hash_forms_agree_with_bytes() {
    let params = BloomParams::for_items(1000, 0.01).unwrap();
    let mut buf = new_filter(&params, 7);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    f.add_u64(12345);
    let r = f.as_ref();
    assert!(r.contains(&12345u64.to_le_bytes()));
    assert!(r.contains_hash(r.hash_key(&12345u64.to_le_bytes())));
    assert!(r.contains_u64(12345));
}

/// Batch adds through the probe ring (k <= 8) and through the pipelined
/// form (more probes) give the bits, flags and counts of single adds, for
/// batches shorter and longer than the ring and keys repeated inside and
/// past it.
#[test]
fn batch_adds_match_single_adds_on_both_paths() {
    for (fpr, ring) in [(0.02, true), (0.004, true), (0.0001, false)] {
        let params = BloomParams::for_items(3000, fpr).unwrap();
        assert_eq!(params.hashes as usize <= filter::RING_PROBES, ring, "k = {}", params.hashes);
        for (len, hashes) in ring_test_batches(7) {
            let what = std::format!("fpr {fpr}, {len} keys");
            crate::test_util::assert_batch_adds_match_single!(bloom, new_filter(&params, 5), &hashes, what);
        }
    }
}

#[test]
fn batch_forms_match_single_calls() {
    let params = BloomParams::for_items(5000, 0.02).unwrap();
    let mut a = new_filter(&params, 1);
    let mut b = new_filter(&params, 1);
    let mut rng = SplitMix64(3);
    let mut hashes: Vec<u64> = (0..5000).map(|_| rng.next_u64()).collect();
    hashes.extend_from_slice(&hashes.clone()[..100]);
    let mut fa = wrap_mut(a.as_mut()).unwrap();
    let single: Vec<bool> = hashes.iter().map(|h| fa.add_hash(*h)).collect();
    let mut fb = wrap_mut(b.as_mut()).unwrap();
    let mut batch = std::vec![false; hashes.len()];
    fb.add_hashes(&hashes, Some(&mut batch)).unwrap();
    assert_eq!(single, batch);
    assert_eq!(a.as_ref(), b.as_ref());
    let mut short = std::vec![false; 3];
    let mut fb = wrap_mut(b.as_mut()).unwrap();
    assert_eq!(fb.add_hashes(&hashes, Some(&mut short)), Err(Error::InvalidArgument));
    let f = wrap(b.as_ref()).unwrap();
    let mut found = std::vec![false; hashes.len()];
    f.contains_hashes(&hashes, &mut found).unwrap();
    assert!(found.iter().all(|x| *x));
    assert_eq!(f.contains_hashes(&hashes, &mut short), Err(Error::InvalidArgument));
}

/// Batch queries answer as single queries on absent and present keys
/// mixed, for 1, 2, 7 and 14 probes per key, on filters filled to their
/// plan and to three times it (absent keys then pass many probes).
#[test]
fn batch_queries_match_single_queries_on_mixed_keys() {
    for fpr in [0.5, 0.25, 0.01, 0.0001] {
        let params = BloomParams::for_items(2000, fpr).unwrap();
        for items in [2000u64, 6000] {
            let buf = filled(&params, 4, 0..items);
            let f = wrap(buf.as_ref()).unwrap();
            let what = std::format!("k = {}, {items} items", params.hashes);
            let single = assert_batch_queries_match_single(
                &what,
                |h| f.contains_hash(h),
                |hs, out| f.contains_hashes(hs, out),
            );
            assert!(single.iter().step_by(3).all(|x| *x), "{what}: false negative");
        }
    }
}

/// Measured FPR over 10^6 disjoint keys is within ±4σ of the filter's
/// theoretical rate `(X/m)^k`, for several plans and four key shapes, and
/// the planned rate itself is met.
#[test]
fn false_positive_rate_is_as_designed_for_every_key_shape() {
    let queries = 1_000_000u64;
    for (n, p) in [(10_000u64, 0.05), (200_000, 0.01), (1_000_000, 0.001)] {
        let params = BloomParams::for_items(n, p).unwrap();
        for shape in KEY_SHAPES {
            let mut buf = new_filter(&params, 0x5eed);
            let mut f = wrap_mut(buf.as_mut()).unwrap();
            let mut key = Vec::new();
            for i in 0..n {
                make_key(shape, true, i, n, &mut key);
                f.add(&key);
            }
            let f = wrap(buf.as_ref()).unwrap();
            let mut hits = 0;
            for i in 0..queries {
                make_key(shape, false, i, n, &mut key);
                hits += u64::from(f.contains(&key));
            }
            let theory = f.estimated_fpr();
            assert_binomial(hits, queries, theory, &std::format!("n={n} p={p} {shape:?}"));
            assert!(theory < p * 1.05, "theoretical {theory} above plan {p}");
            assert!(f.capacity().is_within_plan());
            let est = f.estimated_items();
            assert!((est - n as f64).abs() < 0.02 * n as f64, "estimated items {est} vs {n}");
        }
    }
}

#[test]
fn overfill_is_signalled() {
    let params = BloomParams::for_items(100_000, 0.01).unwrap();
    let mut buf = new_filter(&params, 0);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    let mut key = Vec::new();
    for i in 0..100_000 {
        make_key(crate::test_util::KeyShape::PresentString, true, i, 0, &mut key);
        f.add(&key);
    }
    assert!(f.as_ref().capacity().is_within_plan());
    for i in 100_000..1_000_000 {
        make_key(crate::test_util::KeyShape::PresentString, true, i, 0, &mut key);
        f.add(&key);
    }
    let s = f.as_ref().stats();
    assert!(s.capacity.over_planned_items() && s.capacity.fpr_above_twice_planned());
    assert!(s.estimated_fpr > 0.99, "10x overfill drives the FPR near 1: {}", s.estimated_fpr);
}

#[test]
fn rates_beyond_64_probes_plan_more_bits_and_an_achievable_rate() {
    // p = 1e-25 would need k = 83 probes; k is capped at 64, so the plan
    // adds bits instead and records the rate it really reaches at n.
    for p in [1e-20, 1e-25, 1e-40, 1e-300] {
        let params = BloomParams::for_items(1_000, p).unwrap();
        assert_eq!(params.hashes, MAX_HASHES, "{p}");
        assert!(params.planned_fpr <= p && params.planned_fpr > 0.0, "{p}: {}", params.planned_fpr);
        assert!(params.fpr_at(1_000.0) <= p * (1.0 + 1e-9), "{p}: {}", params.fpr_at(1_000.0));
        let mut buf = new_filter(&params, 0);
        let mut f = wrap_mut(buf.as_mut()).unwrap();
        for i in 0..1_000u64 {
            f.add_u64(i);
            // The issue this guards against: the flag used to fire after 687 of 1,000 adds.
            assert!(f.as_ref().capacity().is_within_plan(), "{p}: flagged after {} adds", i + 1);
        }
    }
    // Ordinary rates keep the classic plan and record the target as given.
    let params = BloomParams::for_items(1_000, 1e-15).unwrap();
    assert_eq!((params.hashes, params.planned_fpr), (50, 1e-15));
}

fn filled(params: &BloomParams, seed: u64, keys: core::ops::Range<u64>) -> AlignedBuf {
    let mut buf = new_filter(params, seed);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    for k in keys {
        f.add_u64(k);
    }
    buf
}

#[test]
fn union_and_intersection_laws() {
    let params = BloomParams::for_items(3000, 0.01).unwrap();
    let a = filled(&params, 9, 0..1000);
    let b = filled(&params, 9, 500..2000);
    let c = filled(&params, 9, 1800..3000);
    let body = |x: &[u8]| wrap(x).unwrap().body().to_vec();
    let union = |d: &mut [u8], s: &[u8]| wrap_mut(d).unwrap().union(&wrap(s).unwrap()).unwrap();
    let intersect = |d: &mut [u8], s: &[u8]| wrap_mut(d).unwrap().intersect(&wrap(s).unwrap()).unwrap();
    check_merge_laws(a.as_ref(), b.as_ref(), c.as_ref(), &union, body);
    check_merge_laws(a.as_ref(), b.as_ref(), c.as_ref(), &intersect, body);

    let mut u = AlignedBuf::from_bytes(a.as_ref());
    union(u.as_mut(), b.as_ref());
    let uf = wrap(u.as_ref()).unwrap();
    assert!((0..2000).all(|k| uf.contains_u64(k)));
    assert_eq!(uf.set_bits(), uf.recount_set_bits());
    assert_eq!(uf.add_calls(), 2500);
    let mut i = AlignedBuf::from_bytes(a.as_ref());
    intersect(i.as_mut(), b.as_ref());
    let inf = wrap(i.as_ref()).unwrap();
    assert!((500..1000).all(|k| inf.contains_u64(k)));
    assert_eq!(inf.set_bits(), inf.recount_set_bits());
    // The union of disjoint halves equals the filter of everything.
    let whole = filled(&params, 9, 0..2000);
    let mut halves = filled(&params, 9, 0..1000);
    union(halves.as_mut(), filled(&params, 9, 1000..2000).as_ref());
    assert_eq!(body(whole.as_ref()), body(halves.as_ref()));
}

#[test]
fn unions_of_the_same_keys_do_not_count_them_again() {
    let params = BloomParams::for_items(2000, 0.01).unwrap();
    crate::test_util::check_union_counts(
        &|keys| filled(&params, 9, keys),
        &|d, s| wrap_mut(d).unwrap().union(&wrap(s).unwrap()).unwrap(),
        |image| {
            let f = wrap(image).unwrap();
            crate::test_util::UnionCounters {
                inserted: f.inserted(),
                add_calls: f.add_calls(),
                within_plan: f.capacity().is_within_plan(),
            }
        },
    );
}

#[test]
fn union_counts_set_bits_within_the_filter_only() {
    // The union counts bits as it ORs; bits past `m` in the last word (set
    // only in a damaged body) stay out of the set-bit counter, as a recount
    // leaves them out.
    for items in [1000, 1001, 1003, 3000] {
        let params = BloomParams::for_items(items, 0.01).unwrap();
        let mut a = filled(&params, 3, 0..500);
        let mut b = filled(&params, 3, 400..900);
        let bits = params.bits;
        for buf in [&mut a, &mut b] {
            let f = wrap_mut(buf.as_mut()).unwrap();
            let last = f.body.len() - 1;
            if !bits.is_multiple_of(64) {
                f.body[last] |= 0x80; // the top bit of the last word lies past `m`
            }
        }
        wrap_mut(a.as_mut()).unwrap().union(&wrap(b.as_ref()).unwrap()).unwrap();
        let f = wrap(a.as_ref()).unwrap();
        assert_eq!(f.set_bits(), f.recount_set_bits(), "m = {bits}");
        assert_eq!(set_bits_past_end(f.body(), bits), u64::from(!bits.is_multiple_of(64)), "m = {bits}");
    }
}

#[test]
fn incompatible_filters_do_not_merge() {
    let p1 = BloomParams::for_items(1000, 0.01).unwrap();
    let p2 = BloomParams::for_items(1000, 0.02).unwrap();
    let mut a = filled(&p1, 1, 0..10);
    let before = a.as_ref().to_vec();
    for other in [filled(&p2, 1, 0..10), filled(&p1, 2, 0..10)] {
        let mut m = wrap_mut(a.as_mut()).unwrap();
        let o = wrap(other.as_ref()).unwrap();
        assert_eq!(m.union(&o), Err(Error::Incompatible));
        assert_eq!(m.intersect(&o), Err(Error::Incompatible));
    }
    assert_eq!(a.as_ref(), &before[..]);
}

#[test]
fn export_import_is_the_identity() {
    let params = BloomParams::for_items(2000, 0.01).unwrap();
    let a = filled(&params, 77, 0..1500);
    let mut exported = std::vec![0u8; a.as_ref().len()];
    assert_eq!(export(a.as_ref(), &mut exported).unwrap(), a.as_ref().len());
    verify(&exported).unwrap();
    let mut back = AlignedBuf::new(exported.len());
    assert_eq!(import(&exported, back.as_mut()).unwrap(), exported.len());
    assert_eq!(back.as_ref(), &exported[..]);
    let f = wrap(back.as_ref()).unwrap();
    assert_eq!(f.stats(), wrap(a.as_ref()).unwrap().stats());
    assert!((0..1500).all(|k| f.contains_u64(k)));
}

#[test]
fn corrupted_images_give_errors_never_panics() {
    let params = BloomParams::for_items(500, 0.01).unwrap();
    let a = filled(&params, 5, 0..400);
    let mut exported = std::vec![0u8; a.as_ref().len()];
    export(a.as_ref(), &mut exported).unwrap();
    check_corruption(&exported, HEADER_LEN, 2000, import, verify, exercise_filter!(bloom));
    // Wrong family.
    let sb = crate::sbbf::SbbfParams::for_items(100, 0.01).unwrap();
    let mut other = AlignedBuf::new(sb.image_len().unwrap() as usize);
    crate::sbbf::init(other.as_mut(), &sb, 0).unwrap();
    assert_eq!(wrap(other.as_ref()).unwrap_err(), Error::WrongFamily);
    let mut exported_other = std::vec![0u8; other.as_ref().len()];
    crate::sbbf::export(other.as_ref(), &mut exported_other).unwrap();
    let mut dst = AlignedBuf::new(exported_other.len());
    assert_eq!(import(&exported_other, dst.as_mut()), Err(Error::WrongFamily));
}

/// A hash id this build does not know (or this family does not use) is
/// "unsupported" only in an intact image: with a failing checksum (a
/// flipped bit in the id) verify, import and import_len report damage.
#[test]
fn a_damaged_hash_id_is_a_checksum_mismatch_an_intact_one_unsupported() {
    let params = BloomParams::for_items(500, 0.01).unwrap();
    let a = filled(&params, 5, 0..400);
    let mut exported = std::vec![0u8; a.as_ref().len()];
    export(a.as_ref(), &mut exported).unwrap();
    let mut dst = AlignedBuf::new(exported.len());
    // Bytes 8..10: the hash id (1 = XXH3; 2 = XXH64, which Bloom does not use; 0x4001 unknown).
    for id in [2u16, 0x4001, 0] {
        let mut bad = exported.clone();
        bad[8..10].copy_from_slice(&id.to_le_bytes());
        assert_eq!(verify(&bad).unwrap_err(), Error::ChecksumMismatch, "id {id}");
        assert_eq!(import(&bad, dst.as_mut()).unwrap_err(), Error::ChecksumMismatch, "id {id}");
        assert_eq!(import_len(&bad).unwrap_err(), Error::ChecksumMismatch, "id {id}");
        // The same id written by a writer (checksum recomputed): unsupported.
        let sum = crate::image::checksum(&bad);
        bad[32..40].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(verify(&bad).unwrap_err(), Error::UnsupportedHash, "id {id}");
        assert_eq!(import(&bad, dst.as_mut()).unwrap_err(), Error::UnsupportedHash, "id {id}");
        assert_eq!(import_len(&bad).unwrap_err(), Error::UnsupportedHash, "id {id}");
    }
    // Other header damage keeps its own error (a family id no build knows is corrupt).
    let mut bad = exported.clone();
    bad[6..8].copy_from_slice(&0x7fffu16.to_le_bytes());
    assert_eq!(verify(&bad).unwrap_err(), Error::CorruptHeader);
}

#[test]
fn garbage_bodies_are_memory_safe() {
    let params = BloomParams::with_bits(1001, 3).unwrap();
    let mut buf = new_filter(&params, 0);
    let mut rng = SplitMix64(99);
    let len = buf.as_ref().len();
    rng.fill(&mut buf.as_mut()[HEADER_LEN..len]);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    for k in 0..1000 {
        f.add_u64(k);
    }
    assert!(f.as_ref().recount_set_bits() <= 1001);
}

/// m > 2^32 bits: planned for 5·10^8 items at 1%, filled with 5·10^8 hashes,
/// 10^6 absent queries stay at plan.
#[test]
fn filters_above_2_pow_32_bits_keep_their_rate() {
    // Full characterization: 5e8 items at 1% (4.79e9 bits, 600 MB, minutes).
    // Quick run: one probe per key in 6.4e9 bits, 10^7 keys: the rate is
    // n/m = 0.156%, where indexes taken from 32 bits would reach only 2^32
    // positions and give 0.233%, far outside the binomial bounds below.
    if !crate::test_util::full_accuracy() {
        let params = BloomParams::with_bits(3 << 31, 1).unwrap();
        let mut buf = new_filter(&params, 1);
        let mut f = wrap_mut(buf.as_mut()).unwrap();
        let mut rng = SplitMix64(12345);
        let mut chunk = [0u64; 4096];
        for _ in 0..10_000_000 / chunk.len() {
            for h in chunk.iter_mut() {
                *h = rng.next_u64();
            }
            f.add_hashes(&chunk, None).unwrap();
        }
        let f = wrap(buf.as_ref()).unwrap();
        let mut absent = SplitMix64(999_999);
        let queries = 1_000_000u64;
        let hits = (0..queries).filter(|_| f.contains_hash(absent.next_u64())).count() as u64;
        assert_binomial(hits, queries, f.estimated_fpr(), "m > 2^32, one probe");
        let expected = 10_000_000.0 / params.bits as f64;
        assert!((f.estimated_fpr() - expected).abs() < 0.02 * expected, "{}", f.estimated_fpr());
        return;
    }
    let n = 500_000_000u64;
    let params = BloomParams::for_items(n, 0.01).unwrap();
    assert!(params.bits > 1u64 << 32);
    let mut buf = new_filter(&params, 1);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    let mut rng = SplitMix64(12345);
    let mut chunk = [0u64; 4096];
    let mut left = n;
    while left > 0 {
        let take = left.min(chunk.len() as u64) as usize;
        for h in chunk[..take].iter_mut() {
            *h = rng.next_u64();
        }
        f.add_hashes(&chunk[..take], None).unwrap();
        left -= take as u64;
    }
    let f = wrap(buf.as_ref()).unwrap();
    let mut absent = SplitMix64(999_999);
    let queries = 1_000_000u64;
    let hits = (0..queries).filter(|_| f.contains_hash(absent.next_u64())).count() as u64;
    assert_binomial(hits, queries, f.estimated_fpr(), "m > 2^32");
    assert!(f.estimated_fpr() < 0.0101, "estimated {}", f.estimated_fpr());
    assert!(f.capacity().is_within_plan());
}

/// Deterministic fuzzing of every entry point with mutated images: errors
/// are fine, panics, hangs and out-of-bounds accesses are not.
#[test]
fn mutated_images_never_panic() {
    let params = BloomParams::for_items(300, 0.01).unwrap();
    let a = filled(&params, 3, 0..200);
    let mut exported = std::vec![0u8; a.as_ref().len()];
    export(a.as_ref(), &mut exported).unwrap();
    fuzz_images(&exported, HEADER_LEN, 20_000, exercise_filter!(bloom));
}

#[test]
fn concurrent_adds_equal_the_sequential_image() {
    use crate::shared::AtomicWords;
    use crate::test_util::{from_atomic, in_threads, to_atomic};
    let params = BloomParams::for_items(50_000, 0.01).unwrap();
    let fresh = new_filter(&params, 3);
    // 8 threads: each adds its own range and a range every thread adds.
    let keys = |t: usize| (t as u64 * 5_000..t as u64 * 5_000 + 5_000).chain(1_000_000..1_002_000);
    let words = to_atomic(fresh.as_ref());
    in_threads(8, |t| {
        let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
        let mut hashes = Vec::new();
        for (n, k) in keys(t).enumerate() {
            if n % 2 == 0 {
                shared.add_u64(k);
            } else {
                hashes.push(crate::hash::hash_u64(k, 3));
            }
        }
        shared.add_hashes(&hashes, None).unwrap();
        assert!(shared.contains_hash(hashes[0]));
    });
    let concurrent = AlignedBuf::from_bytes(&from_atomic(&words));
    let mut sequential = new_filter(&params, 3);
    {
        let mut f = wrap_mut(sequential.as_mut()).unwrap();
        for t in 0..8 {
            for k in keys(t) {
                f.add_u64(k);
            }
        }
    }
    let (c, s) = (wrap(concurrent.as_ref()).unwrap(), wrap(sequential.as_ref()).unwrap());
    assert_eq!(c.body(), s.body(), "bits differ from the sequential run");
    assert_eq!((c.add_calls(), c.set_bits()), (s.add_calls(), s.set_bits()));
    // Which add first sets a bit depends on the order, so the count of adds
    // that set a new bit differs between interleavings: threads adding the
    // same key at once may each set some of its bits (more than the
    // sequential count), and a key whose bits others set first in this order
    // sets none (fewer: about the false-positive rate of the distinct keys).
    // Every set bit was set by exactly one add.
    let distinct = 8 * 5_000 + 2_000;
    let (inserted, k) = (c.inserted(), u64::from(params.hashes));
    assert!(inserted <= c.add_calls().min(c.set_bits()), "{inserted} adds set bits");
    assert!(inserted >= c.set_bits().div_ceil(k), "{inserted} adds set {} bits", c.set_bits());
    let sequential = s.inserted();
    assert!(
        inserted + distinct / 50 >= sequential && inserted <= sequential + 7 * 2_000 + distinct / 50,
        "{inserted} vs {sequential} sequential"
    );
    // Every key reads back through both views.
    let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
    for t in 0..8 {
        for k in keys(t) {
            assert!(shared.contains_u64(k) && shared.contains(&k.to_le_bytes()) && c.contains_u64(k));
        }
    }
    // A wrong family or a damaged header is refused.
    let mut other = AlignedBuf::from_bytes(fresh.as_ref());
    other.as_mut()[0] = b'X';
    assert_eq!(wrap_shared(AtomicWords::new(&to_atomic(other.as_ref()))).err(), Some(Error::BadMagic));
    assert_eq!(
        wrap_shared(AtomicWords::new(&to_atomic(&fresh.as_ref()[..64]))).err(),
        Some(Error::BufferTooSmall)
    );
}

#[test]
fn forged_set_bit_count_does_not_brick_the_filter() {
    // A header claiming nearly every bit set over an empty body (a forged
    // image with a valid checksum) passes validation; adds must keep the
    // count within it, or every later call would fail.
    let params = BloomParams::for_items(100, 0.01).unwrap();
    let mut buf = new_filter(&params, 1);
    put_u64(buf.as_mut(), OFF_SET_BITS, params.bits - 1);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    for k in 0..50 {
        f.add_u64(k);
    }
    f.add_hashes(&[1, 2, 3, 4], None).unwrap();
    let view = wrap(buf.as_ref()).unwrap();
    assert_eq!(view.stats().set_bits, params.bits);
}

fn token_ops() -> crate::test_util::TokenOps {
    crate::test_util::token_ops!(crate::bloom, |f, k| u64::from(f.contains_u64(k)))
}

#[test]
fn tokens_skip_only_checks_already_passed() {
    let image = new_filter(&BloomParams::for_items(3000, 0.01).unwrap(), 5);
    let other = new_filter(&BloomParams::for_items(3000, 0.02).unwrap(), 5);
    let mut foreign = AlignedBuf::new(crate::hll::image_len(8).unwrap() as usize);
    crate::hll::init(foreign.as_mut(), 8, 5).unwrap();
    crate::test_util::check_tokens::<BloomImage>(
        image.as_ref(),
        other.as_ref(),
        foreign.as_ref(),
        &token_ops(),
    );
    crate::test_util::check_trusted(image.as_ref(), other.as_ref(), &token_ops());
}

#[test]
fn the_fast_paths_give_the_plain_calls_bytes_and_answers() {
    // Keys of every length from 0 to 40 bytes: in line up to 16, by call above.
    let keys = |count: u64| {
        (0..count).map(|k| {
            let bytes = crate::hash::hash_u64(k, 99).to_le_bytes();
            bytes.iter().cycle().take((k % 41) as usize).copied().collect::<Vec<u8>>()
        })
    };
    let params = BloomParams::for_items(3000, 0.01).unwrap();
    let (mut plain, mut fast) = (new_filter(&params, 5), new_filter(&params, 5));
    let kept = token(fast.as_ref()).unwrap();
    for (i, key) in keys(3000).enumerate() {
        let expected = wrap_mut(plain.as_mut()).unwrap().add(&key);
        let added = if i % 2 == 0 {
            try_wrap_mut_trusted(fast.as_mut(), &kept).unwrap().add_inline(&key)
        } else {
            try_wrap_mut_with(fast.as_mut(), &kept).unwrap().add_inline(&key)
        };
        assert_eq!(added, expected, "key {i}");
    }
    assert_eq!(plain.as_ref(), fast.as_ref());
    let reference = wrap(plain.as_ref()).unwrap();
    let (trusted, with) =
        (try_wrap_trusted(fast.as_ref(), &kept).unwrap(), try_wrap_with(fast.as_ref(), &kept).unwrap());
    assert!(keys(6000).all(|key| {
        let expected = reference.contains(&key);
        trusted.contains_inline(&key) == expected && with.contains_inline(&key) == expected
    }));
    // Another image's token: trusted (a view) it reads within the buffer,
    // compared (a token call) it gives no view; words out of range give none.
    let other = token(new_filter(&BloomParams::for_items(100, 0.01).unwrap(), 5).as_ref()).unwrap();
    assert!(try_wrap_with(fast.as_ref(), &other).is_none());
    assert!(try_wrap_mut_with(fast.as_mut(), &other).is_none());
    assert!(keys(500).all(|key| try_wrap_trusted(fast.as_ref(), &other).is_some_and(|v| {
        let _ = v.contains_inline(&key);
        true
    })));
    assert!(try_wrap_trusted(fast.as_ref(), &crate::image::Token::default()).is_none());
    assert!(try_wrap_mut_trusted(fast.as_mut(), &crate::image::Token::default()).is_none());
}

/// The shared view had no over-capacity signal: writers adding through it
/// could not see the overfill the flags exist for without copying the whole
/// image out. `SharedBloom::capacity` reads the counters in place and
/// equals `Bloom::capacity` of the same image.
#[test]
fn the_shared_view_reports_over_capacity() {
    use crate::shared::AtomicWords;
    use crate::test_util::{from_atomic, in_threads, to_atomic};
    let params = BloomParams::for_items(1_000, 0.01).unwrap();
    let words = to_atomic(new_filter(&params, 4).as_ref());
    let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
    let same_as_plain = |shared: &SharedBloom<'_>| {
        let copy = AlignedBuf::from_bytes(&from_atomic(&words));
        assert_eq!(shared.capacity(), wrap(copy.as_ref()).unwrap().capacity());
    };
    assert!(shared.capacity().is_within_plan());
    in_threads(4, |t| {
        let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
        (t as u64 * 200..t as u64 * 200 + 200).for_each(|k| {
            shared.add_u64(k);
        });
    });
    assert!(shared.capacity().is_within_plan(), "800 of 1,000 items");
    same_as_plain(&shared);
    in_threads(4, |t| {
        let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
        (10_000 + t as u64 * 2_500..10_000 + t as u64 * 2_500 + 2_500).for_each(|k| {
            shared.add_u64(k);
        });
    });
    let flags = shared.capacity();
    assert!(flags.over_planned_items() && flags.fpr_above_twice_planned(), "{flags:?}");
    same_as_plain(&shared);
}

/// `fpr_at` of a negative count was the formula's value: negative for an
/// odd `k` (-3.5e10 for m = 100, k = 7 at -50 items), above 1 for an even
/// one. It is 0 now, as the split-block filter's `theoretical_fpr` gives.
#[test]
fn fpr_at_stays_a_rate_for_any_count() {
    for (bits, hashes) in [(100, 7), (100, 6), (9_586, 7), (MAX_BITS, MAX_HASHES)] {
        let p = BloomParams::with_bits(bits, hashes).unwrap();
        for items in [-50.0, -1.0, -0.0, 0.0, f64::NEG_INFINITY, -1e300] {
            assert_eq!(p.fpr_at(items), 0.0, "m {bits} k {hashes} at {items}");
        }
        for items in [1.0, 50.0, 1e6, 1e300, f64::INFINITY] {
            let f = p.fpr_at(items);
            assert!((0.0..=1.0).contains(&f), "m {bits} k {hashes} at {items}: {f}");
        }
        assert_eq!(p.fpr_at(f64::INFINITY), 1.0);
        assert!(p.fpr_at(f64::NAN).is_nan());
    }
}
