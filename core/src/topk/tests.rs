use super::*;
use crate::test_util::{check_corruption, fuzz_images, reseal, AlignedBuf, SplitMix64};
extern crate std;
use std::collections::HashMap;
use std::vec::Vec;

fn fresh(capacity: u32, max_key_len: u32, seed: u64) -> AlignedBuf {
    let params = TopKParams { capacity, max_key_len };
    let mut buf = AlignedBuf::new(params.image_len().unwrap() as usize);
    init(buf.as_mut(), &params, seed).unwrap();
    buf
}

/// A Zipf(s) stream over `keys` ranks (inverse CDF by binary search).
fn zipf_stream(n: usize, keys: usize, s: f64, seed: u64) -> Vec<u64> {
    let mut cdf = Vec::with_capacity(keys);
    let mut acc = 0.0;
    for r in 1..=keys {
        acc += 1.0 / (r as f64).powf(s);
        cdf.push(acc);
    }
    let mut rng = SplitMix64(seed);
    (0..n)
        .map(|_| {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * acc;
            cdf.partition_point(|c| *c < u) as u64
        })
        .collect()
}

fn key_of(k: u64) -> std::string::String {
    std::format!("item-{k}")
}

/// Checks both guarantees for every key of `truth` (and absent keys) and
/// that the true top `k` are all in the sketch's top `k`-list... returns recall.
fn check_guarantees(buf: &[u8], truth: &HashMap<u64, u64>, top_k: usize) -> f64 {
    let s = wrap(buf).unwrap();
    let n = s.total();
    let bound = n / u64::from(s.params().capacity);
    for (k, c) in truth {
        let e = s.estimate(key_of(*k).as_bytes()).unwrap();
        assert!(e.count >= *c, "key {k}: estimate {} below true {c}", e.count);
        assert!(e.count - c <= bound, "key {k}: overestimate {} above N/c = {bound}", e.count - c);
        assert!(e.count - e.error <= *c, "key {k}: count - error above the true count");
        if *c > bound {
            assert!(e.listed, "key {k} with {c} > N/c = {bound} is not listed");
        }
    }
    let mut items = std::vec![TopKItem { key: &[], count: 0, error: 0 }; top_k];
    let got = s.top(&mut items);
    assert_eq!(got, top_k.min(s.used()));
    assert!(items.windows(2).all(|w| w[0].count >= w[1].count), "sorted by count");
    let mut exact: Vec<(u64, u64)> = truth.iter().map(|(k, c)| (*c, *k)).collect();
    exact.sort_unstable_by(|a, b| b.cmp(a));
    let listed: std::collections::HashSet<Vec<u8>> = items[..got].iter().map(|i| i.key.to_vec()).collect();
    let hits = exact.iter().take(top_k).filter(|(_, k)| listed.contains(key_of(*k).as_bytes())).count();
    hits as f64 / top_k as f64
}

#[test]
fn zipf_streams_keep_both_guarantees_and_find_the_top() {
    for (s_exp, capacity, seed) in [(1.1, 100u32, 1u64), (0.8, 200, 2), (1.5, 50, 3)] {
        let stream = zipf_stream(200_000, 10_000, s_exp, seed);
        let mut buf = fresh(capacity, 16, seed);
        let mut sk = wrap_mut(buf.as_mut()).unwrap();
        let mut truth = HashMap::new();
        for k in &stream {
            sk.add(key_of(*k).as_bytes(), 1).unwrap();
            *truth.entry(*k).or_insert(0) += 1;
        }
        let recall = check_guarantees(buf.as_ref(), &truth, 10);
        std::eprintln!("zipf s={s_exp} capacity={capacity}: recall of the top 10 = {recall}");
        assert_eq!(recall, 1.0, "s={s_exp}");
        verify_live(buf.as_ref());
    }
}

fn verify_live(buf: &[u8]) {
    let mut out = std::vec![0u8; buf.len()];
    export(buf, &mut out).unwrap();
    assert_eq!(verify(&out), Ok(()), "deep invariants hold");
}

#[test]
fn weighted_adds_and_exact_counts_below_capacity() {
    let mut buf = fresh(50, 16, 0);
    let mut s = wrap_mut(buf.as_mut()).unwrap();
    for k in 0..40u64 {
        s.add(key_of(k).as_bytes(), k + 1).unwrap();
        s.add(key_of(k).as_bytes(), 2).unwrap();
    }
    let view = s.as_ref();
    for k in 0..40u64 {
        assert_eq!(
            view.estimate(key_of(k).as_bytes()).unwrap(),
            TopKEstimate { count: k + 3, error: 0, listed: true }
        );
    }
    assert_eq!(view.estimate(b"absent").unwrap(), TopKEstimate { count: 0, error: 0, listed: false });
    let mut top = [TopKItem { key: &[], count: 0, error: 0 }; 3];
    assert_eq!(view.top(&mut top), 3);
    assert_eq!((top[0].key, top[0].count), (key_of(39).as_bytes(), 42));
    assert_eq!(top[2].count, 40);
    assert_eq!(view.stats().total, (1..=40).sum::<u64>() + 80);
    assert_eq!(view.min_count(), 0);
}

#[test]
fn zero_weight_adds_change_nothing() {
    // A weight of 0 is no occurrence: it must not take a counter, let alone
    // evict a listed key from a full summary (the bytes of an empty response
    // added as a weight would push out a heavy hitter).
    let mut buf = fresh(4, 16, 0);
    let mut s = wrap_mut(buf.as_mut()).unwrap();
    s.add(b"absent-first", 0).unwrap();
    assert_eq!(s.as_ref().used(), 0);
    for k in 0..4u64 {
        s.add(key_of(k).as_bytes(), 10 + k).unwrap();
    }
    let before = buf.as_ref().to_vec();
    let mut s = wrap_mut(buf.as_mut()).unwrap();
    s.add(b"newcomer", 0).unwrap();
    s.add_u64(7, 0).unwrap();
    s.add(key_of(0).as_bytes(), 0).unwrap();
    assert_eq!(buf.as_ref(), &before[..]);
    let view = wrap(buf.as_ref()).unwrap();
    assert_eq!(
        view.estimate(key_of(0).as_bytes()).unwrap(),
        TopKEstimate { count: 10, error: 0, listed: true }
    );
    assert!(!view.estimate(b"newcomer").unwrap().listed);
    // A too-long key is still refused, whatever its weight.
    let mut s = wrap_mut(buf.as_mut()).unwrap();
    assert_eq!(s.add(&[0u8; 17], 0), Err(Error::KeyTooLong));
}

#[test]
fn heavy_churn_keeps_the_index_and_heap_consistent() {
    // Tiny capacity, many distinct keys: constant evictions and index deletions.
    let mut buf = fresh(8, 12, 5);
    let mut rng = SplitMix64(9);
    for round in 0..20_000u64 {
        let k = rng.next_u64() % 300;
        let w = 1 + rng.next_u64() % 4;
        wrap_mut(buf.as_mut()).unwrap().add(key_of(k).as_bytes(), w).unwrap();
        if round % 997 == 0 {
            verify_live(buf.as_ref());
        }
    }
    verify_live(buf.as_ref());
    assert_eq!(wrap(buf.as_ref()).unwrap().used(), 8);
}

#[test]
fn long_keys_are_refused_not_truncated() {
    let mut buf = fresh(10, 8, 0);
    let before = buf.as_ref().to_vec();
    let mut s = wrap_mut(buf.as_mut()).unwrap();
    assert_eq!(s.add(b"123456789", 1), Err(Error::KeyTooLong));
    assert_eq!(buf.as_ref(), &before[..]);
    let mut s = wrap_mut(buf.as_mut()).unwrap();
    s.add(b"12345678", 1).unwrap();
    s.add_u64(77, 2).unwrap();
    assert_eq!(s.as_ref().estimate_u64(77).unwrap().count, 2);
    assert_eq!(s.add(b"", 1), Ok(()));
    let mut small = fresh(10, 4, 0);
    assert_eq!(wrap_mut(small.as_mut()).unwrap().add_u64(1, 1), Err(Error::KeyTooLong));
    for bad in [TopKParams { capacity: 0, max_key_len: 8 }, TopKParams { capacity: 8, max_key_len: 0 }] {
        assert_eq!(bad.image_len(), Err(Error::InvalidParameter));
    }
}

#[test]
fn merged_summaries_keep_the_guarantees() {
    let stream = zipf_stream(200_000, 20_000, 1.1, 11);
    let mut truth = HashMap::new();
    let parts: Vec<AlignedBuf> = stream
        .chunks(50_000)
        .map(|part| {
            let mut b = fresh(100, 16, 3);
            let mut s = wrap_mut(b.as_mut()).unwrap();
            for k in part {
                s.add(key_of(*k).as_bytes(), 1).unwrap();
                *truth.entry(*k).or_insert(0u64) += 1;
            }
            b
        })
        .collect();
    let mut merged = AlignedBuf::from_bytes(parts[0].as_ref());
    for p in &parts[1..] {
        wrap_mut(merged.as_mut()).unwrap().merge(&wrap(p.as_ref()).unwrap()).unwrap();
        verify_live(merged.as_ref());
    }
    assert_eq!(wrap(merged.as_ref()).unwrap().total(), 200_000);
    let recall = check_guarantees(merged.as_ref(), &truth, 10);
    assert_eq!(recall, 1.0);
    // Merging sketches that are not full is exact.
    let (mut a, mut b) = (fresh(100, 16, 3), fresh(100, 16, 3));
    for k in 0..30u64 {
        wrap_mut(a.as_mut()).unwrap().add(key_of(k).as_bytes(), 2).unwrap();
        wrap_mut(b.as_mut()).unwrap().add(key_of(k + 20).as_bytes(), 3).unwrap();
    }
    wrap_mut(a.as_mut()).unwrap().merge(&wrap(b.as_ref()).unwrap()).unwrap();
    let v = wrap(a.as_ref()).unwrap();
    assert_eq!(v.estimate(key_of(25).as_bytes()).unwrap().count, 5);
    assert_eq!(v.estimate(key_of(5).as_bytes()).unwrap().count, 2);
    assert_eq!(v.estimate(key_of(45).as_bytes()).unwrap().count, 3);
    assert_eq!(v.used(), 50);
    // Incompatible sketches change nothing.
    for other in [fresh(99, 16, 3), fresh(100, 15, 3), fresh(100, 16, 4)] {
        let before = a.as_ref().to_vec();
        assert_eq!(
            wrap_mut(a.as_mut()).unwrap().merge(&wrap(other.as_ref()).unwrap()),
            Err(Error::Incompatible)
        );
        assert_eq!(a.as_ref(), &before[..]);
    }
}

fn exercise(bytes: &mut [u8]) {
    let copy = AlignedBuf::from_bytes(bytes);
    let mut dst = AlignedBuf::new(bytes.len());
    let _ = import(bytes, dst.as_mut());
    let _ = verify(bytes);
    let mut out = std::vec![0u8; bytes.len()];
    let _ = export(bytes, &mut out);
    if let Ok(mut s) = wrap_mut(bytes) {
        for k in 0..40u64 {
            let _ = s.add(key_of(k).as_bytes(), k);
        }
        if let Ok(other) = wrap(copy.as_ref()) {
            let _ = s.merge(&other);
        }
        let view = s.as_ref();
        let _ = view.stats();
        let _ = view.estimate(b"item-3");
        let mut items = [TopKItem { key: &[], count: 0, error: 0 }; 5];
        let _ = view.top(&mut items);
        s.clear();
    }
}

#[test]
fn corrupted_images_are_rejected() {
    let mut buf = fresh(16, 12, 0);
    for k in zipf_stream(2000, 100, 1.0, 4) {
        wrap_mut(buf.as_mut()).unwrap().add(key_of(k).as_bytes(), 1).unwrap();
    }
    let mut exported = std::vec![0u8; buf.as_ref().len()];
    export(buf.as_ref(), &mut exported).unwrap();
    check_corruption(&exported, HEADER_LEN, 500, import, verify, exercise);
    fuzz_images(buf.as_ref(), HEADER_LEN, 10_000, exercise);
}

#[test]
fn hostile_bodies_are_refused_with_a_clear_error() {
    let params = TopKParams { capacity: 16, max_key_len: 12 };
    let layout = params.layout().unwrap();
    let (heap, pos) = (HEADER_LEN + layout.heap_off(), HEADER_LEN + layout.pos_off());
    let entry = |e: usize| HEADER_LEN + e * layout.entry_len();
    let build = |distinct: u64| {
        let mut buf = fresh(16, 12, 0);
        for k in zipf_stream(2000, distinct as usize, 1.0, 4) {
            wrap_mut(buf.as_mut()).unwrap().add(key_of(k).as_bytes(), 1).unwrap();
        }
        let mut exported = std::vec![0u8; buf.as_ref().len()];
        export(buf.as_ref(), &mut exported).unwrap();
        exported
    };
    let (full, partial) = (build(100), build(10));
    let used_partial = get_u32(&partial, OFF_USED).unwrap() as usize;
    assert_eq!(get_u32(&full, OFF_USED), Some(16));
    assert!(used_partial < 16);
    let counter_at = |img: &[u8], p: usize| get_u32(img, heap + HEAP_ELEM * p + 8).unwrap() as usize;
    let count_at = |img: &[u8], p: usize| get_u64(img, heap + HEAP_ELEM * p).unwrap();
    let mut cases: Vec<(&str, Vec<u8>)> = Vec::new();
    // Root and last element swapped, positions kept consistent: heap order broken.
    let mut b = full.clone();
    let (root, last) = (b[heap..heap + 16].to_vec(), b[heap + 15 * 16..heap + 16 * 16].to_vec());
    b[heap..heap + 16].copy_from_slice(&last);
    b[heap + 15 * 16..heap + 16 * 16].copy_from_slice(&root);
    let (e_root, e_last) = (counter_at(&b, 0), counter_at(&b, 15));
    put_u32(&mut b, pos + 4 * e_root, 0);
    put_u32(&mut b, pos + 4 * e_last, 15);
    cases.push(("heap order", b));
    // A position pointing at another counter's element.
    let mut b = full.clone();
    let e = counter_at(&b, 3);
    put_u32(&mut b, pos + 4 * e, 4);
    cases.push(("position", b));
    // Error above the count.
    let mut b = full.clone();
    let e = counter_at(&b, 5);
    let count = count_at(&b, 5);
    put_u64(&mut b, entry(e), count + 1);
    cases.push(("error > count", b));
    // A count above the total weight, on a leaf (heap order still holds).
    let mut b = full.clone();
    put_u64(&mut b, heap + HEAP_ELEM * 15, 2001);
    cases.push(("count > N", b));
    // A nonzero reserved word in a heap element and in a counter.
    let mut b = full.clone();
    put_u32(&mut b, heap + HEAP_ELEM * 2 + 12, 1);
    cases.push(("heap reserved", b));
    let mut b = full.clone();
    put_u32(&mut b, entry(0) + 20, 1);
    cases.push(("counter reserved", b));
    // A byte after the key (keys "key-N" are shorter than 16 bytes).
    let mut b = full.clone();
    b[entry(1) + ENTRY_FIXED + 15] = 0x55;
    cases.push(("key padding", b));
    // A key byte changed: its stored hash no longer matches.
    let mut b = full.clone();
    b[entry(2) + ENTRY_FIXED] ^= 1;
    cases.push(("key hash", b));
    // The smallest element's counter number out of range (the next new key
    // replaces that counter): the largest and the first past the end.
    for bad_counter in [u32::MAX, 16] {
        let mut b = full.clone();
        put_u32(&mut b, heap + 8, bad_counter);
        cases.push(("counter number", b));
    }
    // The counter of "item-0" (added again by `exercise`) damaged in the
    // index and in the position array; on 32-bit hosts the offsets these
    // numbers lead to overflowed `usize`.
    let live = AlignedBuf::from_bytes(&full);
    let view = wrap(live.as_ref()).unwrap();
    let e0 = view.find(key_of(0).as_bytes()).unwrap();
    let slot0 = (0..layout.slots()).find(|s| view.slot(*s) as usize == e0 + 1).unwrap();
    // Its heap position: the largest, and the first past the end.
    for bad_position in [u32::MAX, 16] {
        let mut b = full.clone();
        put_u32(&mut b, pos + 4 * e0, bad_position);
        cases.push(("heap position", b));
    }
    // Its index slot naming a counter far past the end: the largest number,
    // and the one whose entry starts just below 4 GiB (its end does not fit 32 bits).
    let far = (u32::MAX as usize / layout.entry_len()) as u32;
    for bad_slot in [u32::MAX, far + 1, 17] {
        let mut b = full.clone();
        put_u32(&mut b, HEADER_LEN + layout.index_off() + 4 * slot0, bad_slot);
        cases.push(("index slot", b));
    }
    // Unused heap elements, positions and counters must be zero.
    let mut b = partial.clone();
    put_u64(&mut b, heap + HEAP_ELEM * 15, 1);
    cases.push(("heap tail", b));
    let mut b = partial.clone();
    put_u32(&mut b, pos + 4 * 15, 3);
    cases.push(("unused position", b));
    let mut b = partial.clone();
    b[entry(15) + 3] = 1;
    cases.push(("unused counter", b));
    for (what, mut bad) in cases {
        reseal(&mut bad);
        let mut dst = AlignedBuf::new(bad.len());
        assert_eq!(import(&bad, dst.as_mut()), Err(Error::CorruptBody), "{what}");
        assert_eq!(verify(&bad), Err(Error::CorruptBody), "{what}");
        assert!(dst.as_ref().iter().all(|b| *b == 0), "{what}: nothing written");
        // Zero-copy use of such bytes is memory-safe and does not panic.
        let mut live = AlignedBuf::from_bytes(&bad);
        exercise(live.as_mut());
    }
}

#[test]
fn estimate_refuses_keys_longer_than_the_maximum_like_add() {
    let params = TopKParams { capacity: 4, max_key_len: 8 };
    let mut buf = AlignedBuf::new(params.image_len().unwrap() as usize);
    let mut s = init(buf.as_mut(), &params, 1).unwrap();
    s.add(b"12345678", 3).unwrap();
    assert_eq!(s.add(b"123456789", 1), Err(Error::KeyTooLong));
    assert_eq!(s.as_ref().estimate(b"123456789"), Err(Error::KeyTooLong));
    assert_eq!(s.as_ref().estimate(b"12345678").unwrap().count, 3);
}

/// `top` writes into a caller array, and without an allocator that array is
/// filled with placeholders first: `TopKItem` derives `Default` for them
/// (it did not, so every caller spelled out an empty item).
#[test]
fn top_writes_into_default_items() {
    let mut buf = fresh(4, 8, 1);
    let mut s = wrap_mut(buf.as_mut()).unwrap();
    s.add(b"a", 3).unwrap();
    s.add(b"b", 5).unwrap();
    let mut top = [TopKItem::default(); 4];
    assert_eq!(top[0], TopKItem { key: &[], count: 0, error: 0 });
    let view = s.as_ref();
    assert_eq!(view.top(&mut top), 2);
    assert_eq!((top[0].key, top[0].count, top[1].key, top[1].count), (&b"b"[..], 5, &b"a"[..], 3));
    assert_eq!(top[2], TopKItem::default(), "slots past the listed keys are left as they were");
}

/// `validate` accepts exactly the parameters `image_len` (and so `init`)
/// accept. Before, the largest capacity with keys of more than about 4,040
/// bytes passed `validate` (each field in range) while `image_len` refused
/// it (an image of 4 GiB or more), so a caller who checked first still
/// failed at init.
#[test]
fn validate_agrees_with_image_len_at_the_limits() {
    let cases = [
        (MAX_CAPACITY, MAX_KEY_LEN),
        (MAX_CAPACITY, 4_000),
        (MAX_CAPACITY, 4_048),
        (MAX_CAPACITY / 2, MAX_KEY_LEN),
        (1, MAX_KEY_LEN),
        (MAX_CAPACITY, 1),
        (0, 8),
        (8, 0),
        (MAX_CAPACITY + 1, 8),
        (8, MAX_KEY_LEN + 1),
    ];
    for (capacity, max_key_len) in cases {
        let params = TopKParams { capacity, max_key_len };
        assert_eq!(params.validate(), params.image_len().map(|_| ()), "{params:?}");
    }
    let largest = TopKParams { capacity: MAX_CAPACITY, max_key_len: MAX_KEY_LEN };
    assert_eq!(largest.validate(), Err(Error::InvalidParameter));
    assert!(TopKParams { capacity: MAX_CAPACITY, max_key_len: 4_000 }.validate().is_ok());
}

/// `topk::image_len(&params)` and `seed()`, as the other families have them.
#[test]
fn free_image_len_and_seed_as_the_other_families() {
    let params = TopKParams { capacity: 8, max_key_len: 16 };
    assert_eq!(image_len(&params), params.image_len());
    assert_eq!(image_len(&TopKParams { capacity: 0, max_key_len: 16 }), Err(Error::InvalidParameter));
    let mut buf = AlignedBuf::new(params.image_len().unwrap() as usize);
    init(buf.as_mut(), &params, 13).unwrap();
    let v = wrap(buf.as_ref()).unwrap();
    assert_eq!(v.seed(), 13);
    assert_eq!(v.seed(), v.stats().seed);
}
