extern crate std;
use super::*;
use crate::test_util::{
    assert_binomial, check_corruption, check_merge_laws, make_key, AlignedBuf, KeyShape, SplitMix64,
    KEY_SHAPES,
};
use crate::test_util::{exercise_filter, fuzz_images};
use std::vec::Vec;

fn new_filter(params: &SbbfParams, seed: u64) -> AlignedBuf {
    let mut buf = AlignedBuf::new(params.image_len().unwrap() as usize);
    init(buf.as_mut(), params, seed).unwrap();
    buf
}

fn filled(params: &SbbfParams, seed: u64, keys: core::ops::Range<u64>) -> AlignedBuf {
    let mut buf = new_filter(params, seed);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    for k in keys {
        f.add_u64(k);
    }
    buf
}

#[test]
fn planning_uses_the_split_block_rate() {
    let p = SbbfParams::for_items(1_000_000, 0.01).unwrap();
    let bits_per_key = p.bits() as f64 / 1e6;
    // Parquet's spec table: about 10.5 bits per key for 1%.
    assert!((10.0..11.0).contains(&bits_per_key), "{bits_per_key} bits per key");
    assert!(p.fpr_at(1e6) <= 0.01);
    assert!(theoretical_fpr(1e6, p.blocks - 1) > 0.01, "the fewest blocks that meet the target");
    // More bits per key than the classic formula needs.
    let classic = crate::bloom::BloomParams::for_items(1_000_000, 0.01).unwrap();
    assert!(p.bits() > classic.bits);
    assert_eq!(image_len(&p).unwrap(), 128 + p.blocks * 32);
}

#[test]
fn parquet_sizing_follows_the_writers() {
    // bits = -8 ndv / ln(1 - fpp^(1/8)); bytes rounded up to a power of two.
    let p = SbbfParams::for_parquet(1000, 0.05).unwrap();
    assert_eq!(p.blocks * 32, 1024);
    assert_eq!(p.mode, SbbfMode::Parquet);
    assert_eq!(SbbfParams::for_parquet(1, 0.5).unwrap().blocks, 1);
    assert_eq!(SbbfParams::for_parquet(u64::MAX / 4, 0.001).unwrap().blocks * 32, 128 << 20);
}

#[test]
fn hostile_parameters_are_rejected() {
    for (n, p) in [(0, 0.01), (10, 0.0), (10, 1.0), (10, f64::NAN), (10, -1.0)] {
        assert_eq!(SbbfParams::for_items(n, p), Err(Error::InvalidParameter));
        assert_eq!(SbbfParams::for_parquet(n, p), Err(Error::InvalidParameter));
    }
    assert_eq!(SbbfParams::with_blocks(0), Err(Error::InvalidParameter));
    assert_eq!(SbbfParams::with_blocks(MAX_BLOCKS + 1), Err(Error::InvalidParameter));
    assert_eq!(SbbfParams::parquet_with_blocks(MAX_PARQUET_BLOCKS + 1), Err(Error::InvalidParameter));
    let pq = SbbfParams::parquet_with_blocks(4).unwrap();
    let mut buf = AlignedBuf::new(pq.image_len().unwrap() as usize);
    assert_eq!(init(buf.as_mut(), &pq, 1).unwrap_err(), Error::InvalidParameter);
}

#[test]
fn no_false_negatives_and_batch_matches_single() {
    for params in
        [SbbfParams::for_items(20_000, 0.01).unwrap(), SbbfParams::for_parquet(20_000, 0.01).unwrap()]
    {
        let mut a = new_filter(&params, 0);
        let mut b = new_filter(&params, 0);
        let mut rng = SplitMix64(5);
        let hashes: Vec<u64> = (0..20_000).map(|_| rng.next_u64()).collect();
        let mut fa = wrap_mut(a.as_mut()).unwrap();
        let single: Vec<bool> = hashes.iter().map(|h| fa.add_hash(*h)).collect();
        let mut fb = wrap_mut(b.as_mut()).unwrap();
        let mut batch = std::vec![false; hashes.len()];
        fb.add_hashes(&hashes, Some(&mut batch)).unwrap();
        assert_eq!(single, batch);
        assert_eq!(a.as_ref(), b.as_ref());
        let f = wrap(a.as_ref()).unwrap();
        let mut found = std::vec![false; hashes.len()];
        f.contains_hashes(&hashes, &mut found).unwrap();
        assert!(found.iter().all(|x| *x));
        assert!(hashes.iter().all(|h| f.contains_hash(*h)));
        let mut fa = wrap_mut(a.as_mut()).unwrap();
        assert!(!fa.add_hash(hashes[0]), "re-adding reports not-new");
        assert_eq!(fa.add_hashes(&hashes, Some(&mut found[..1])), Err(Error::InvalidArgument));
    }
}

/// Measured FPR over 10^6 disjoint keys within ±4σ of the rate measured from
/// the blocks, for several plans and four key shapes, and at most the plan.
#[test]
fn false_positive_rate_is_as_designed_for_every_key_shape() {
    let queries = 1_000_000u64;
    for (n, p) in [(10_000u64, 0.05), (200_000, 0.01), (1_000_000, 0.001)] {
        let params = SbbfParams::for_items(n, p).unwrap();
        for shape in KEY_SHAPES {
            let mut buf = new_filter(&params, 0xfeed);
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
            let stats = f.stats();
            assert_binomial(hits, queries, stats.estimated_fpr, &std::format!("n={n} p={p} {shape:?}"));
            // The formula and the measured state agree, and the plan is met.
            assert!((stats.estimated_fpr - params.fpr_at(n as f64)).abs() < 0.1 * p, "{stats:?}");
            assert!(stats.estimated_fpr < 1.1 * p);
            assert!(stats.capacity.is_within_plan());
            assert!((stats.estimated_items - n as f64).abs() < 0.03 * n as f64, "{stats:?}");
        }
    }
}

#[test]
fn overfill_is_signalled() {
    let params = SbbfParams::for_items(100_000, 0.01).unwrap();
    let mut buf = new_filter(&params, 0);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    let mut key = Vec::new();
    for i in 0..1_000_000 {
        make_key(KeyShape::PresentString, true, i, 0, &mut key);
        f.add(&key);
        if i == 99_999 {
            assert!(f.as_ref().capacity().is_within_plan());
        }
    }
    let s = f.as_ref().stats();
    assert!(s.capacity.over_planned_items() && s.capacity.fpr_above_twice_planned());
    assert!(s.estimated_fpr > 0.5, "{s:?}");
}

#[test]
fn union_and_intersection_laws() {
    let params = SbbfParams::for_items(3000, 0.01).unwrap();
    let a = filled(&params, 9, 0..1000);
    let b = filled(&params, 9, 500..2000);
    let c = filled(&params, 9, 1800..3000);
    let body = |x: &[u8]| wrap(x).unwrap().body().to_vec();
    let union = |d: &mut [u8], s: &[u8]| wrap_mut(d).unwrap().union(&wrap(s).unwrap()).unwrap();
    let intersect = |d: &mut [u8], s: &[u8]| wrap_mut(d).unwrap().intersect(&wrap(s).unwrap()).unwrap();
    check_merge_laws(a.as_ref(), b.as_ref(), c.as_ref(), &union, body);
    check_merge_laws(a.as_ref(), b.as_ref(), c.as_ref(), &intersect, body);
    let mut halves = filled(&params, 9, 0..1000);
    union(halves.as_mut(), filled(&params, 9, 1000..2000).as_ref());
    assert_eq!(body(halves.as_ref()), body(filled(&params, 9, 0..2000).as_ref()));
    let mut i = AlignedBuf::from_bytes(a.as_ref());
    intersect(i.as_mut(), b.as_ref());
    let f = wrap(i.as_ref()).unwrap();
    assert!((500..1000).all(|k| f.contains_u64(k)));
    // Different seed, size or mode: a clear error and no change.
    let mut d = AlignedBuf::from_bytes(a.as_ref());
    for other in
        [filled(&params, 8, 0..5), filled(&SbbfParams::with_blocks(params.blocks + 1).unwrap(), 9, 0..5)]
    {
        let mut m = wrap_mut(d.as_mut()).unwrap();
        assert_eq!(m.union(&wrap(other.as_ref()).unwrap()), Err(Error::Incompatible));
        assert_eq!(m.intersect(&wrap(other.as_ref()).unwrap()), Err(Error::Incompatible));
    }
    let pq = filled(&SbbfParams::parquet_with_blocks(params.blocks).unwrap(), 0, 0..5);
    let mut zero_seed = filled(&params, 0, 0..5);
    let mut m = wrap_mut(zero_seed.as_mut()).unwrap();
    assert_eq!(m.union(&wrap(pq.as_ref()).unwrap()), Err(Error::Incompatible));
    assert_eq!(d.as_ref(), a.as_ref());
}

#[test]
fn unions_of_the_same_keys_do_not_count_them_again() {
    let params = SbbfParams::for_items(2000, 0.01).unwrap();
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
fn export_import_is_the_identity_and_corruption_is_caught() {
    for params in [SbbfParams::for_items(300, 0.01).unwrap(), SbbfParams::for_parquet(300, 0.01).unwrap()] {
        let a = filled(&params, 0, 0..300);
        let mut exported = std::vec![0u8; a.as_ref().len()];
        assert_eq!(export(a.as_ref(), &mut exported).unwrap(), exported.len());
        let mut back = AlignedBuf::new(exported.len());
        import(&exported, back.as_mut()).unwrap();
        assert_eq!(back.as_ref(), &exported[..]);
        let f = wrap(back.as_ref()).unwrap();
        assert_eq!(f.stats(), wrap(a.as_ref()).unwrap().stats());
        assert!((0..300).all(|k| f.contains_u64(k)));
        check_corruption(&exported, HEADER_LEN, 2000, import, verify, exercise_filter!(sbbf));
    }
}

#[test]
fn parquet_mode_hashes_plain_encoded_values_with_xxh64_seed_0() {
    let params = SbbfParams::parquet_with_blocks(32).unwrap();
    let mut buf = new_filter(&params, 0);
    let mut f = wrap_mut(buf.as_mut()).unwrap();
    f.add_u64(42);
    let h = xxhash_rust::xxh64::xxh64(&42u64.to_le_bytes(), 0);
    assert_eq!(f.as_ref().hash_key(&42u64.to_le_bytes()), h);
    // Parquet's block index: ((h >> 32) * blocks) >> 32.
    let block = ((h >> 32) * 32) >> 32;
    let body = f.as_ref().body();
    let touched: Vec<usize> = (0..32).filter(|b| body[b * 32..b * 32 + 32].iter().any(|x| *x != 0)).collect();
    assert_eq!(touched, std::vec![block as usize]);
    for (i, salt) in SALT.iter().enumerate() {
        let bit = ((h as u32).wrapping_mul(*salt) >> 27) as usize;
        let word = u32::from_le_bytes(body[block as usize * 32 + 4 * i..][..4].try_into().unwrap());
        assert_eq!(word, 1 << bit);
    }
}

/// Deterministic fuzzing of every entry point with mutated images: errors
/// are fine, panics, hangs and out-of-bounds accesses are not.
#[test]
fn mutated_images_never_panic() {
    let params = SbbfParams::for_items(300, 0.01).unwrap();
    let a = filled(&params, 3, 0..200);
    let mut exported = std::vec![0u8; a.as_ref().len()];
    export(a.as_ref(), &mut exported).unwrap();
    fuzz_images(&exported, HEADER_LEN, 20_000, exercise_filter!(sbbf));
}

#[test]
fn a_loaded_bitset_answers_as_the_original_and_signals_by_fill() {
    let params = SbbfParams::for_parquet(2000, 0.01).unwrap();
    let src = filled(&params, 0, 0..2000);
    let bitset = wrap(src.as_ref()).unwrap().bitset().to_vec();
    assert_eq!(bitset, wrap(src.as_ref()).unwrap().body());

    let loaded_params = SbbfParams::for_parquet_bitset(bitset.len(), 0.01).unwrap();
    assert_eq!(loaded_params.blocks, params.blocks);
    // The derived plan: the most items at which this size meets 1%.
    assert!(loaded_params.fpr_at(loaded_params.planned_items as f64) <= 0.01);
    assert!(loaded_params.fpr_at(loaded_params.planned_items as f64 + 1.0) > 0.01);
    let mut buf = AlignedBuf::new(loaded_params.image_len().unwrap() as usize);
    let f = load_parquet_bitset(buf.as_mut(), &bitset, &loaded_params).unwrap();
    let v = f.as_ref();
    assert!(v.is_loaded() && v.add_calls() == 0 && v.inserted() == 0);
    assert!((0..2000).all(|k| v.contains_u64(k)));
    assert!(v.capacity().is_within_plan());
    let s = v.stats();
    assert!((s.estimated_items - 2000.0).abs() < 100.0, "{s:?}");

    // All ones: over capacity by both measures, though no add was counted.
    let ones = std::vec![0xffu8; bitset.len()];
    let f = load_parquet_bitset(buf.as_mut(), &ones, &loaded_params).unwrap();
    let c = f.as_ref().capacity();
    assert!(c.over_planned_items() && c.fpr_above_twice_planned(), "{c:?}");
    assert_eq!(f.as_ref().stats().capacity, c);
    assert_eq!(f.as_ref().stats().estimated_fpr, 1.0);

    // A plan given by the caller; half the bits: within a plan of 10^5.
    let p = SbbfParams::for_parquet_bitset_with_plan(bitset.len(), 100_000, 0.5).unwrap();
    assert_eq!((p.planned_items, p.planned_fpr), (100_000, 0.5));
    let half: Vec<u8> = (0..bitset.len()).map(|i| if i % 2 == 0 { 0xff } else { 0 }).collect();
    let f = load_parquet_bitset(buf.as_mut(), &half, &p).unwrap();
    assert!(f.as_ref().capacity().is_within_plan());

    // The flag travels with unions and intersections, and clear drops it.
    let mut other = filled(&params, 0, 5000..5100);
    let mut m = wrap_mut(other.as_mut()).unwrap();
    assert!(!m.as_ref().is_loaded());
    m.union(&wrap(buf.as_ref()).unwrap()).unwrap();
    assert!(m.as_ref().is_loaded());
    m.clear();
    assert!(!m.as_ref().is_loaded());
    m.intersect(&wrap(buf.as_ref()).unwrap()).unwrap();
    assert!(m.as_ref().is_loaded());

    // Export/import keep it.
    let mut exported = std::vec![0u8; buf.as_ref().len()];
    export(buf.as_ref(), &mut exported).unwrap();
    let mut back = AlignedBuf::new(exported.len());
    import(&exported, back.as_mut()).unwrap();
    assert!(wrap(back.as_ref()).unwrap().is_loaded());
}

#[test]
fn loading_rejects_what_it_cannot_represent() {
    for len in [0usize, 31, 33, 100] {
        assert_eq!(SbbfParams::for_parquet_bitset(len, 0.01), Err(Error::InvalidArgument));
        assert_eq!(SbbfParams::for_parquet_bitset_with_plan(len, 10, 0.01), Err(Error::InvalidArgument));
    }
    assert_eq!(SbbfParams::for_parquet_bitset(64, 1.0), Err(Error::InvalidParameter));
    assert_eq!(SbbfParams::for_parquet_bitset_with_plan(64, 0, 0.01), Err(Error::InvalidParameter));
    let p = SbbfParams::for_parquet_bitset(64, 0.01).unwrap();
    assert_eq!(p.blocks, 2);
    let mut buf = AlignedBuf::new(p.image_len().unwrap() as usize);
    buf.as_mut().fill(0xAB);
    assert_eq!(load_parquet_bitset(buf.as_mut(), &[0u8; 32], &p).unwrap_err(), Error::InvalidArgument);
    let native = SbbfParams::with_blocks(2).unwrap();
    assert_eq!(load_parquet_bitset(buf.as_mut(), &[0u8; 64], &native).unwrap_err(), Error::InvalidParameter);
    assert_eq!(
        load_parquet_bitset(&mut buf.as_mut()[..100], &[0u8; 64], &p).unwrap_err(),
        Error::BufferTooSmall
    );
    assert!(buf.as_ref().iter().all(|b| *b == 0xAB), "failed loads write nothing");
    // Tiny plans: at least one item.
    assert_eq!(capacity_at_fpr(0, 0.5), 1);
    assert_eq!(capacity_at_fpr(1, 1e-12), 1);
    assert!((400..600).contains(&capacity_at_fpr(1, 0.999_999)));
}

/// Folding keeps every key, equals the filter built at the smaller size in
/// both modes, and follows the writers' rule for how far to fold.
#[test]
fn folding_equals_building_smaller() {
    for (big, small) in [
        (SbbfParams::parquet_with_blocks(256).unwrap(), SbbfParams::parquet_with_blocks(32).unwrap()),
        (SbbfParams::with_blocks(256).unwrap(), SbbfParams::with_blocks(32).unwrap()),
        (SbbfParams::with_blocks(96).unwrap(), SbbfParams::with_blocks(12).unwrap()),
    ] {
        let mut a = filled(&big, 0, 0..700);
        let b = filled(&small, 0, 0..700);
        let len = fold(a.as_mut(), 3).unwrap();
        assert_eq!(len as u64, small.image_len().unwrap());
        let folded = wrap(&a.as_ref()[..len]).unwrap();
        assert_eq!(folded.bitset(), wrap(b.as_ref()).unwrap().bitset());
        assert_eq!(folded.params().blocks, small.blocks);
        assert_eq!((folded.add_calls(), folded.inserted()), (700, wrap(a.as_ref()).unwrap().inserted()));
        assert!((0..700).all(|k| folded.contains_u64(k)));
        // The shrunk image is a complete image: export/import work on it.
        let mut out = std::vec![0u8; len];
        export(&a.as_ref()[..len], &mut out).unwrap();
        verify(&out).unwrap();
    }
    // An odd block count after folding: the image ends in zero padding.
    let mut a = filled(&SbbfParams::with_blocks(96).unwrap(), 0, 0..300);
    let len = fold(a.as_mut(), 5).unwrap();
    assert_eq!(len as u64, SbbfParams::with_blocks(3).unwrap().image_len().unwrap());
    assert_eq!(len, 256, "128 + 3 * 32 padded to 64");
    assert!((0..300).all(|k| wrap(&a.as_ref()[..len]).unwrap().contains_u64(k)));
    let mut out = std::vec![0u8; len];
    export(&a.as_ref()[..len], &mut out).unwrap();
    verify(&out).unwrap();
    let mut a = filled(&SbbfParams::with_blocks(96).unwrap(), 0, 0..10);
    let before = a.as_ref().to_vec();
    assert_eq!(fold(a.as_mut(), 6), Err(Error::InvalidArgument));
    assert_eq!(fold(a.as_mut(), 64), Err(Error::InvalidArgument));
    assert_eq!(a.as_ref(), &before[..]);
    assert_eq!(fold(a.as_mut(), 0), Ok(before.len()));

    // The writers' rule: as far as (1 - (1 - fill)^(2^k))^8 <= fpp allows.
    let params = SbbfParams::for_parquet(100_000, 0.01).unwrap();
    let mut f = filled(&params, 0, 0..3000);
    let expected = crate::parquet::folds_for_target_fpp(wrap(f.as_ref()).unwrap().bitset(), 0.01).unwrap();
    assert!(expected >= 4, "{expected}");
    assert_eq!(fold_to_target_fpp(f.as_mut(), 0.01), Ok(expected));
    let v = wrap(f.as_ref()).unwrap();
    assert_eq!(v.params().blocks, params.blocks >> expected);
    assert!(crate::parquet::estimated_fpp(v.bitset()).unwrap() <= 0.01);
    assert!((0..3000).all(|k| v.contains_u64(k)));
    assert_eq!(fold_to_target_fpp(f.as_mut(), f64::NAN), Err(Error::InvalidParameter));
}

#[test]
fn parquet_sizing_options_plan_each_writers_size() {
    use crate::parquet::ParquetSizing;
    let rs = SbbfParams::for_parquet_sizing(1693, 0.01, ParquetSizing::ParquetRs).unwrap();
    assert_eq!(rs, SbbfParams::for_parquet(1693, 0.01).unwrap());
    assert_eq!(rs.blocks * 32, 2048);
    let arrow = SbbfParams::for_parquet_sizing(1693, 0.01, ParquetSizing::ArrowCpp).unwrap();
    assert_eq!((arrow.blocks * 32, arrow.planned_items, arrow.planned_fpr), (4096, 1693, 0.01));
    assert_eq!(arrow.mode, SbbfMode::Parquet);
    assert_eq!(SbbfParams::for_parquet_sizing(0, 0.01, ParquetSizing::DuckDb), Err(Error::InvalidParameter));
}

#[test]
fn concurrent_adds_equal_the_sequential_image() {
    use crate::shared::AtomicWords;
    use crate::test_util::{from_atomic, in_threads, to_atomic};
    for params in
        [SbbfParams::for_items(40_000, 0.01).unwrap(), SbbfParams::for_parquet(40_000, 0.01).unwrap()]
    {
        let seed = if params.mode == SbbfMode::Parquet { 0 } else { 4 };
        let mut fresh = AlignedBuf::new(params.image_len().unwrap() as usize);
        init(fresh.as_mut(), &params, seed).unwrap();
        let keys = |t: usize| (t as u64 * 4_000..t as u64 * 4_000 + 4_000).chain(500_000..502_000);
        let words = to_atomic(fresh.as_ref());
        in_threads(8, |t| {
            let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
            let hasher = shared.key_hasher();
            let mut hashes = Vec::new();
            for (n, k) in keys(t).enumerate() {
                if n % 2 == 0 {
                    shared.add_u64(k);
                } else {
                    hashes.push(hasher.hash(&k.to_le_bytes()));
                }
            }
            shared.add_hashes(&hashes, None).unwrap();
            assert!(shared.contains_hash(hashes[0]));
        });
        let concurrent = AlignedBuf::from_bytes(&from_atomic(&words));
        let mut sequential = AlignedBuf::from_bytes(fresh.as_ref());
        {
            let mut f = wrap_mut(sequential.as_mut()).unwrap();
            for t in 0..8 {
                for k in keys(t) {
                    f.add_u64(k);
                }
            }
        }
        let (c, s) = (wrap(concurrent.as_ref()).unwrap(), wrap(sequential.as_ref()).unwrap());
        assert_eq!(c.bitset(), s.bitset(), "{:?}: blocks differ", params.mode);
        assert_eq!(c.add_calls(), s.add_calls());
        // Which add first sets a bit depends on the order, so the count of
        // adds that changed the filter differs between interleavings. It
        // never exceeds the adds. It is lower by at most the keys that find
        // their bits already set in some order (about the false-positive
        // rate), and higher by at most that plus the repeated adds of the
        // 2,000 keys every thread adds (threads adding one key at once may
        // each set some of its bits).
        let distinct = 8 * 4_000 + 2_000;
        let (ci, si) = (c.inserted(), s.inserted());
        assert!(ci <= c.add_calls(), "{:?}: {} > {}", params.mode, ci, c.add_calls());
        assert!(
            ci + distinct / 50 >= si && ci <= si + 7 * 2_000 + distinct / 50,
            "{:?}: concurrent {ci} vs sequential {si}",
            params.mode
        );
        let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
        assert!((0..8).all(|t| keys(t).all(|k| shared.contains_u64(k) && c.contains_u64(k))));
        // The integer query hashes as the byte query and the plain view do, in both modes.
        assert!((0..2_000u64).all(|k| shared.contains_u64((k + 1) << 40) == c.contains_u64((k + 1) << 40)));
    }
}

fn token_ops() -> crate::test_util::TokenOps {
    crate::test_util::token_ops!(crate::sbbf, |f, k| u64::from(f.contains_u64(k)))
}

#[test]
fn tokens_skip_only_checks_already_passed() {
    let token_ops = token_ops();
    let image = new_filter(&SbbfParams::for_items(3000, 0.01).unwrap(), 5);
    let other = new_filter(&SbbfParams::for_items(3000, 0.001).unwrap(), 5);
    let bloom = crate::bloom::BloomParams::for_items(100, 0.01).unwrap();
    let mut foreign = AlignedBuf::new(bloom.image_len().unwrap() as usize);
    crate::bloom::init(foreign.as_mut(), &bloom, 5).unwrap();
    crate::test_util::check_tokens::<SbbfImage>(image.as_ref(), other.as_ref(), foreign.as_ref(), &token_ops);
    let parquet = SbbfParams::for_parquet(3000, 0.01).unwrap();
    let mut parquet_image = AlignedBuf::new(parquet.image_len().unwrap() as usize);
    init(parquet_image.as_mut(), &parquet, 0).unwrap();
    crate::test_util::check_tokens::<SbbfImage>(
        parquet_image.as_ref(),
        image.as_ref(),
        foreign.as_ref(),
        &token_ops,
    );
    crate::test_util::check_trusted(image.as_ref(), other.as_ref(), &token_ops);
    crate::test_util::check_trusted(parquet_image.as_ref(), image.as_ref(), &token_ops);
}

/// The add counters saturate at `u64::MAX` calls (neither moves then), and
/// below it an add keeps `inserted <= add_calls`, which validation checks:
/// the image stays valid and the key is stored either way.
#[test]
fn add_counters_saturate_and_keep_the_image_valid() {
    let params = SbbfParams::for_items(1_000, 0.01).unwrap();
    for (calls, inserted) in
        [(u64::MAX, u64::MAX), (u64::MAX, 7), (u64::MAX - 1, u64::MAX - 1), (5, 5), (5, 0)]
    {
        let mut buf = new_filter(&params, 3);
        put_u64(&mut buf.as_mut()[..HEADER_LEN], OFF_ADD_CALLS, calls);
        put_u64(&mut buf.as_mut()[..HEADER_LEN], OFF_INSERTED, inserted);
        let mut f = wrap_mut(buf.as_mut()).unwrap();
        assert!(f.add_u64(42), "a new key sets a bit");
        assert!(!f.add_u64(42), "the same key again sets none");
        let f = wrap(buf.as_ref()).unwrap();
        assert!(f.contains_u64(42));
        let expected =
            if calls == u64::MAX { (calls, inserted) } else { (calls.saturating_add(2), inserted + 1) };
        assert_eq!((f.add_calls(), f.inserted()), expected, "start {calls}/{inserted}");
        assert!(f.inserted() <= f.add_calls());
    }
}

/// Keys of every length from 0 to 40 bytes: the fast paths hash those up to
/// `hash::SHORT_KEY` in line and call for longer ones.
fn keys_of_every_length(count: u64) -> impl Iterator<Item = Vec<u8>> {
    (0..count).map(|k| {
        let bytes = crate::hash::hash_u64(k, 99).to_le_bytes();
        bytes.iter().cycle().take((k % 41) as usize).copied().collect()
    })
}

#[test]
fn the_fast_paths_give_the_plain_calls_bytes_and_answers() {
    for params in [SbbfParams::for_items(3000, 0.01).unwrap(), SbbfParams::for_parquet(3000, 0.01).unwrap()] {
        let seed = if params.mode == SbbfMode::Parquet { 0 } else { 5 };
        let (mut plain, mut fast) = (new_filter(&params, seed), new_filter(&params, seed));
        let kept = token(fast.as_ref()).unwrap();
        for key in keys_of_every_length(3000) {
            let expected = wrap_mut(plain.as_mut()).unwrap().add(&key);
            assert_eq!(try_wrap_mut_trusted(fast.as_mut(), &kept).unwrap().add_inline(&key), expected);
        }
        assert_eq!(plain.as_ref(), fast.as_ref(), "{:?}", params.mode);
        let view = try_wrap_trusted(fast.as_ref(), &kept).unwrap();
        let reference = wrap(plain.as_ref()).unwrap();
        assert!(keys_of_every_length(6000).all(|key| view.contains_inline(&key) == reference.contains(&key)));
        // Compared, as a `_with_token` call does: the same view for the
        // image's own token, none for another image's.
        let with = try_wrap_with(fast.as_ref(), &kept).unwrap();
        assert!(keys_of_every_length(2000).all(|key| with.contains_inline(&key) == reference.contains(&key)));
        let other = token(new_filter(&SbbfParams::for_items(100, 0.01).unwrap(), seed).as_ref()).unwrap();
        assert!(try_wrap_with(fast.as_ref(), &other).is_none());
        assert!(try_wrap_mut_with(fast.as_mut(), &other).is_none());
        assert!(try_wrap_mut_with(fast.as_mut(), &kept).is_some());
        // Words out of range: no view (the full path then validates).
        assert!(try_wrap_trusted(fast.as_ref(), &crate::image::Token::default()).is_none());
        assert!(try_wrap_mut_trusted(fast.as_mut(), &crate::image::Token::default()).is_none());
        let half = fast.as_ref().len() / 2;
        assert!(try_wrap_trusted(&fast.as_ref()[..half], &kept).is_none());
    }
}

/// The firmware shape of the single-key calls (`SHARED`: the key's hash,
/// then the out-of-line hash form, compiled only for `target_os = "none"`,
/// where no test runs) gives the in-line shape's results, counters and
/// bytes in both modes, for keys of every length and both native hashes.
#[test]
fn the_firmware_single_key_shape_gives_the_in_line_results_and_bytes() {
    for params in [SbbfParams::for_items(3000, 0.01).unwrap(), SbbfParams::for_parquet(3000, 0.01).unwrap()] {
        let seed = if params.mode == SbbfMode::Parquet { 0 } else { 5 };
        let (mut in_line, mut shared) = (new_filter(&params, seed), new_filter(&params, seed));
        for (i, key) in keys_of_every_length(3000).enumerate() {
            let expected = wrap_mut(in_line.as_mut()).unwrap().add_by::<false>(&key, hash::hash_bytes);
            let mut f = wrap_mut(shared.as_mut()).unwrap();
            let got = if i % 2 == 0 {
                f.add_by::<true>(&key, hash::hash_bytes)
            } else {
                f.add_by::<true>(&key, hash::hash_bytes_inline)
            };
            assert_eq!(got, expected, "{:?}", params.mode);
        }
        assert_eq!(in_line.as_ref(), shared.as_ref(), "{:?}", params.mode);
        let f = wrap(shared.as_ref()).unwrap();
        assert!(f.inserted() > 2500 && f.add_calls() == 3000);
        for key in keys_of_every_length(6000) {
            let expected = f.contains_by::<false>(&key, hash::hash_bytes);
            assert_eq!(f.contains_by::<true>(&key, hash::hash_bytes), expected);
            assert_eq!(f.contains_by::<true>(&key, hash::hash_bytes_inline), expected);
        }
    }
}

/// The shared view had no over-capacity signal (as the Bloom filter's):
/// `SharedSbbf::capacity` reads it in place and equals `Sbbf::capacity` of
/// the same image, counted (native and Parquet mode) and loaded (a scan).
#[test]
fn the_shared_view_reports_over_capacity() {
    use crate::shared::AtomicWords;
    use crate::test_util::{from_atomic, to_atomic};
    let native = SbbfParams::for_items(1_000, 0.01).unwrap();
    let parquet = SbbfParams::for_parquet(1_000, 0.01).unwrap();
    let mut rng = SplitMix64(9);
    let bitset: Vec<u8> = (0..parquet.blocks * 32).map(|_| (rng.next_u64() | rng.next_u64()) as u8).collect();
    let mut loaded = AlignedBuf::new(parquet.image_len().unwrap() as usize);
    load_parquet_bitset(loaded.as_mut(), &bitset, &parquet).unwrap();
    for image in [new_filter(&native, 4), new_filter(&parquet, 0), loaded] {
        let words = to_atomic(image.as_ref());
        let shared = wrap_shared(AtomicWords::new(&words)).unwrap();
        let plain = || AlignedBuf::from_bytes(&from_atomic(&words));
        let is_loaded = wrap(image.as_ref()).unwrap().is_loaded();
        assert_eq!(shared.capacity(), wrap(plain().as_ref()).unwrap().capacity());
        assert_eq!(
            shared.capacity().is_within_plan(),
            !is_loaded,
            "a bitset three quarters full is over its plan"
        );
        for (n, k) in (0..20_000u64).enumerate() {
            shared.add_u64(k);
            if n == 500 || n == 19_999 {
                assert_eq!(shared.capacity(), wrap(plain().as_ref()).unwrap().capacity(), "after {n} adds");
            }
        }
        let flags = shared.capacity();
        assert!(flags.over_planned_items() && flags.fpr_above_twice_planned(), "{flags:?}");
    }
}
