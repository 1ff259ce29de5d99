//! Fuzz target: operation sequences against exact models.
//!
//! Input: a family selector byte, a parameter byte (sizes are kept small so
//! filters fill, counters evict and sketches change mode), then operations of
//! two bytes each: an opcode (which of two sketches `a` and `b`, add or
//! remove, a weight) and a key number (keys are 1 to 9 bytes, so lengths
//! vary and repeat). Every operation also goes to a third sketch `all`. The
//! target checks each family's promises against the exact model:
//!
//! * filters: no false negatives, also after `a` absorbs `b`; for Bloom and
//!   split-block filters the union is bit-identical to `all`;
//! * HyperLogLog / UltraLogLog: exact counts in small mode; `a` merged with
//!   `b` has exactly the registers of `all`;
//! * Count-Min: never underestimates; plain update merges to exactly `all`;
//! * Top-k: every estimate is an upper bound, within its error, and every key
//!   above `N / capacity` is listed, also after a merge;
//! * MinHash: the merge equals `all`, and a sketch is identical to itself;
//! * binary fuse: a filter built from every key (duplicates included, any
//!   key shape) reports each of them present and stores each distinct key
//!   once; the slice, packed and hash builds give the same bytes; a build
//!   that is refused (too many keys, short scratch) writes nothing;
//! * ExaLogLog: `a` merged with `b` has exactly the registers of `all`, also
//!   when reduced to a lower precision and fewer history bits.
//!
//! Each live image must also survive export and import unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sketches_core::{
    bloom, counting, countmin, cuckoo, ell, fuse, hash, hll, minhash, sbbf, topk, ull, Error,
};
use std::collections::HashMap;

#[path = "common.rs"]
#[allow(dead_code)] // the raw-pointer accessors serve the C ABI target
mod common;
use common::Aligned;

/// One decoded operation.
#[derive(Copy, Clone)]
struct Op {
    /// Goes to `b` (else `a`).
    to_b: bool,
    /// A removal (families that support it), else an add.
    remove: bool,
    /// Weight 1..=8 (weighted families).
    weight: u64,
    /// The key's bytes.
    key: [u8; 9],
    key_len: usize,
}

impl Op {
    fn key(&self) -> &[u8] {
        &self.key[..self.key_len]
    }
}

fn decode(ops: &[u8]) -> Vec<Op> {
    ops.chunks_exact(2)
        .take(2048)
        .map(|pair| {
            let (code, number) = (pair[0], pair[1]);
            let key_len = 1 + usize::from(number % 9);
            Op {
                to_b: code & 1 != 0,
                remove: code & 6 == 6,
                weight: 1 + u64::from(code >> 5),
                key: [number; 9],
                key_len,
            }
        })
        .collect()
}

/// Exports the live image and imports it again: the bytes come back unchanged.
fn round_trip(
    bytes: &[u8],
    export: fn(&[u8], &mut [u8]) -> Result<usize, Error>,
    import: fn(&[u8], &mut [u8]) -> Result<usize, Error>,
) {
    let mut out = vec![0u8; bytes.len()];
    let written = export(bytes, &mut out).expect("export of a live image");
    let mut back = Aligned::zeroed(bytes.len());
    let read = import(&out[..written], back.bytes_mut()).expect("import of an export");
    assert_eq!(read, bytes.len());
    // Everything but the checksum field (bytes 32..40, written by export).
    let (x, y) = (back.bytes(), bytes);
    assert!(x[..32] == y[..32] && x[40..] == y[40..], "export/import changed the image");
}

/// The body of a live image (after the common and family headers).
fn body(bytes: &[u8]) -> &[u8] {
    let header_len = sketches_core::image::read_common(bytes).expect("header").header_len;
    &bytes[header_len..]
}

/// Three empty images made by `init`.
fn three(len: u64, init: impl Fn(&mut [u8])) -> [Aligned; 3] {
    core::array::from_fn(|_| {
        let mut buf = Aligned::zeroed(len as usize);
        init(buf.bytes_mut());
        buf
    })
}

/// Sends each operation to `a` or `b` (by its opcode) and to `all`.
fn feed(ops: &[Op], sketches: &mut [Aligned; 3], add: impl Fn(&mut [u8], &Op)) {
    let [a, b, all] = sketches;
    for op in ops {
        add(if op.to_b { b.bytes_mut() } else { a.bytes_mut() }, op);
        add(all.bytes_mut(), op);
    }
}

/// Merges a copy of `b` into `a`.
fn merge_b_into_a(sketches: &mut [Aligned; 3], merge: impl Fn(&mut [u8], &[u8])) {
    let [a, b, _] = sketches;
    let b_copy = Aligned::copy_of(b.bytes());
    merge(a.bytes_mut(), b_copy.bytes());
}

/// Multiset of keys added (minus removals) per sketch: a, b, all.
#[derive(Default)]
struct Model {
    a: HashMap<Vec<u8>, u64>,
    b: HashMap<Vec<u8>, u64>,
    all: HashMap<Vec<u8>, u64>,
}

impl Model {
    /// The model of every operation taken as an add of `weight(op)`.
    fn of(ops: &[Op], weight: impl Fn(&Op) -> u64) -> Self {
        let mut model = Model::default();
        ops.iter().for_each(|op| model.add(op, weight(op)));
        model
    }
    fn side(&mut self, to_b: bool) -> &mut HashMap<Vec<u8>, u64> {
        if to_b {
            &mut self.b
        } else {
            &mut self.a
        }
    }
    fn add(&mut self, op: &Op, weight: u64) {
        *self.side(op.to_b).entry(op.key().to_vec()).or_default() += weight;
        *self.all.entry(op.key().to_vec()).or_default() += weight;
    }
    /// Removes one occurrence where the model has one; false when absent.
    fn remove(&mut self, op: &Op) -> bool {
        let side = self.side(op.to_b);
        match side.get_mut(op.key()) {
            Some(n) if *n > 0 => {
                *n -= 1;
                if let Some(n) = self.all.get_mut(op.key()) {
                    *n -= 1;
                }
                true
            }
            _ => false,
        }
    }
}

/// A batch query over the model's keys (hashed as the image hashes them)
/// and 64 other hashes answers as single queries do.
fn batch_queries_match_single(
    what: &str,
    model: &Model,
    single: impl Fn(u64) -> bool,
    batch: impl Fn(&[u64], &mut [bool]),
) {
    let hashes: Vec<u64> = model
        .all
        .keys()
        .map(|k| hash::hash_bytes(k, 7))
        .chain((0..64u64).map(|i| hash::hash_u64(i, 99)))
        .collect();
    let mut out: Vec<bool> = hashes.iter().map(|h| !single(*h)).collect();
    batch(&hashes, &mut out);
    assert!(hashes.iter().zip(&out).all(|(h, o)| single(*h) == *o), "{what}: batch != single");
}

/// Bloom and split-block filters: the same checks through the same API.
macro_rules! union_filter_family {
    ($name:ident, $module:ident, $params:expr) => {
        fn $name(param: u8, ops: &[Op]) {
            use $module as family;
            let params = $params(param).expect("params");
            let mut sketches = three(family::image_len(&params).expect("len"), |buf| {
                family::init(buf, &params, 7).expect("init");
            });
            feed(ops, &mut sketches, |buf, op| {
                family::wrap_mut(buf).expect("wrap").add(op.key());
            });
            merge_b_into_a(&mut sketches, |dst, src| {
                family::wrap_mut(dst).expect("wrap").union(&family::wrap(src).expect("wrap")).expect("union");
            });
            let [a, _, all] = &sketches;
            let model = Model::of(ops, |_| 1);
            let merged = family::wrap(a.bytes()).expect("wrap");
            let what = stringify!($module);
            assert!(model.all.keys().all(|k| merged.contains(k)), "{what}: false negative after union");
            assert_eq!(body(a.bytes()), body(all.bytes()), "{what}: union differs from one filter of both");
            batch_queries_match_single(
                what,
                &model,
                |h| merged.contains_hash(h),
                |hs, out| merged.contains_hashes(hs, out).expect("batch"),
            );
            round_trip(a.bytes(), family::export, family::import);
        }
    };
}

union_filter_family!(bloom_family, bloom, |param: u8| bloom::BloomParams::for_items(
    1 + u64::from(param % 32),
    0.01
));
union_filter_family!(sbbf_family, sbbf, |param: u8| sbbf::SbbfParams::for_items(
    1 + u64::from(param % 64),
    0.01
));

fn counting_family(param: u8, ops: &[Op]) {
    let params = bloom::BloomParams::for_items(1 + u64::from(param % 32), 0.05).expect("params");
    let [mut a, mut b, _] = three(counting::image_len(&params).expect("len"), |buf| {
        counting::init(buf, &params, 7).expect("init");
    });
    let mut model = Model::default();
    for op in ops {
        let side = if op.to_b { &mut b } else { &mut a };
        let mut f = counting::wrap_mut(side.bytes_mut()).expect("wrap");
        // Only keys the model holds are removed: removing a false positive
        // would break other keys in any counting Bloom filter.
        if op.remove && model.remove(op) {
            f.remove(op.key()).expect("counting: a held key could not be removed");
        } else if !op.remove {
            f.add(op.key());
            model.add(op, 1);
        }
        let view = f.as_ref();
        let side_model = if op.to_b { &model.b } else { &model.a };
        assert!(side_model.iter().all(|(k, n)| *n == 0 || view.contains(k)), "counting: false negative");
    }
    let b_view = Aligned::copy_of(b.bytes());
    counting::wrap_mut(a.bytes_mut())
        .expect("wrap")
        .merge(&counting::wrap(b_view.bytes()).expect("wrap"))
        .expect("merge");
    let merged = counting::wrap(a.bytes()).expect("wrap");
    assert!(
        model.all.iter().all(|(k, n)| *n == 0 || merged.contains(k)),
        "counting: false negative after merge"
    );
    batch_queries_match_single(
        "counting",
        &model,
        |h| merged.contains_hash(h),
        |hs, out| merged.contains_hashes(hs, out).expect("batch"),
    );
    round_trip(a.bytes(), counting::export, counting::import);
}

fn cuckoo_family(param: u8, ops: &[Op]) {
    let params = cuckoo::CuckooParams::for_items(1 + u64::from(param % 48), 0.01).expect("params");
    let len = cuckoo::image_len(&params).expect("len");
    let [mut a, mut b, _] = three(len, |buf| {
        cuckoo::init(buf, &params, 7).expect("init");
    });
    let mut model = Model::default();
    for op in ops {
        let side = if op.to_b { &mut b } else { &mut a };
        if op.remove && model.remove(op) {
            let mut f = cuckoo::wrap_mut(side.bytes_mut()).expect("wrap");
            f.remove(op.key()).expect("cuckoo: a held key could not be removed");
        } else if !op.remove {
            let before = Aligned::copy_of(side.bytes());
            match cuckoo::wrap_mut(side.bytes_mut()).expect("wrap").add(op.key()) {
                Ok(()) => model.add(op, 1),
                Err(Error::Full) => {
                    assert_eq!(side.bytes(), before.bytes(), "cuckoo: a full add changed the filter")
                }
                Err(e) => panic!("cuckoo add: {e:?}"),
            }
        }
        let view = cuckoo::wrap(side.bytes()).expect("wrap");
        let side_model = if op.to_b { &model.b } else { &model.a };
        for (k, n) in side_model {
            assert!(u64::from(view.count(k)) >= *n, "cuckoo: count below the copies held");
        }
    }
    let b_view = Aligned::copy_of(b.bytes());
    let before = Aligned::copy_of(a.bytes());
    let mut scratch = Aligned::zeroed(len as usize);
    let result = cuckoo::wrap_mut(a.bytes_mut())
        .expect("wrap")
        .merge(&cuckoo::wrap(b_view.bytes()).expect("wrap"), scratch.bytes_mut());
    match result {
        Ok(()) => {
            let merged = cuckoo::wrap(a.bytes()).expect("wrap");
            assert!(
                model.all.iter().all(|(k, n)| *n == 0 || merged.contains(k)),
                "cuckoo: false negative after merge"
            );
        }
        Err(Error::Full) => {
            assert_eq!(a.bytes(), before.bytes(), "cuckoo: a failed merge changed the filter")
        }
        Err(e) => panic!("cuckoo merge: {e:?}"),
    }
    round_trip(a.bytes(), cuckoo::export, cuckoo::import);
}

fn hll_family(param: u8, ops: &[Op]) {
    let p = 4 + param % 15;
    let mut sketches = three(hll::image_len(p).expect("len"), |buf| {
        hll::init(buf, p, 7).expect("init");
    });
    feed(ops, &mut sketches, |buf, op| {
        hll::wrap_mut(buf).expect("wrap").add(op.key());
    });
    let model = Model::of(ops, |_| 1);
    let [a, b, all] = &sketches;
    for (buf, keys) in [(&a, &model.a), (&b, &model.b), (&all, &model.all)] {
        let view = hll::wrap(buf.bytes()).expect("wrap");
        if view.mode() == hll::HllMode::Small {
            assert_eq!(view.estimate(), keys.len() as f64, "hll: small mode is not exact");
        }
        round_trip(buf.bytes(), hll::export, hll::import);
    }
    merge_b_into_a(&mut sketches, |dst, src| {
        hll::wrap_mut(dst).expect("wrap").merge(&hll::wrap(src).expect("wrap")).expect("merge");
    });
    let [a, _, all] = &sketches;
    let registers = 1usize << p;
    let (mut merged, mut direct) = (vec![0u8; registers], vec![0u8; registers]);
    let (x, y) = (hll::wrap(a.bytes()).expect("wrap"), hll::wrap(all.bytes()).expect("wrap"));
    x.register_values(&mut merged).expect("registers");
    y.register_values(&mut direct).expect("registers");
    assert_eq!(merged, direct, "hll: merged registers differ from one sketch of both");
    if x.mode() == hll::HllMode::Small && y.mode() == hll::HllMode::Small {
        assert_eq!(x.estimate(), y.estimate(), "hll: small merge is not exact");
    }
}

fn ull_family(param: u8, ops: &[Op]) {
    let p = 4 + param % 15;
    let mut sketches = three(ull::image_len(p).expect("len"), |buf| {
        ull::init(buf, p, 7).expect("init");
    });
    feed(ops, &mut sketches, |buf, op| {
        ull::wrap_mut(buf).expect("wrap").add(op.key());
    });
    merge_b_into_a(&mut sketches, |dst, src| {
        ull::wrap_mut(dst).expect("wrap").merge(&ull::wrap(src).expect("wrap")).expect("merge");
    });
    let [a, _, all] = &sketches;
    let (x, y) = (ull::wrap(a.bytes()).expect("wrap"), ull::wrap(all.bytes()).expect("wrap"));
    assert_eq!(x.registers(), y.registers(), "ull: merged registers differ from one sketch of both");
    for estimate in [x.register_estimate(), x.ml_estimate(), y.estimate()] {
        assert!(estimate.is_finite() && estimate >= 0.0, "ull: estimate {estimate}");
    }
    round_trip(a.bytes(), ull::export, ull::import);
}

fn countmin_family(param: u8, ops: &[Op]) {
    let params = countmin::CountMinParams {
        width: 1 + u64::from(param % 16),
        depth: 1 + u32::from((param >> 4) % 4),
        counter_bits: if param & 0x40 != 0 { 64 } else { 32 },
        conservative: param & 0x80 != 0,
    };
    let mut sketches = three(params.image_len().expect("len"), |buf| {
        countmin::init(buf, &params, 7).expect("init");
    });
    feed(ops, &mut sketches, |buf, op| countmin::wrap_mut(buf).expect("wrap").add(op.key(), op.weight));
    merge_b_into_a(&mut sketches, |dst, src| {
        countmin::wrap_mut(dst).expect("wrap").merge(&countmin::wrap(src).expect("wrap")).expect("merge");
    });
    let model = Model::of(ops, |op| op.weight);
    let [a, _, all] = &sketches;
    let merged = countmin::wrap(a.bytes()).expect("wrap");
    for (k, n) in &model.all {
        assert!(merged.estimate(k) >= *n, "count-min: underestimate after merge");
    }
    if !params.conservative {
        assert_eq!(body(a.bytes()), body(all.bytes()), "count-min: merge differs from one sketch of both");
    }
    round_trip(a.bytes(), countmin::export, countmin::import);
}

/// Top-k guarantees against exact counts `truth` of total weight `total`.
fn check_topk(view: &topk::TopK<'_>, truth: &HashMap<Vec<u8>, u64>, what: &str) {
    let (total, capacity) = (view.total(), u64::from(view.params().capacity));
    assert_eq!(total, truth.values().sum::<u64>(), "top-k {what}: total");
    for (k, n) in truth {
        let e = view.estimate(k).expect("keys in the model fit");
        assert!(e.count >= *n, "top-k {what}: estimate below the true count");
        if e.listed {
            assert!(e.count - e.error <= *n, "top-k {what}: error bound does not hold");
        }
        if *n * capacity > total {
            assert!(e.listed, "top-k {what}: a key above N/c is not listed");
        }
    }
}

fn topk_family(param: u8, ops: &[Op]) {
    let params = topk::TopKParams {
        capacity: 1 + u32::from(param % 16),
        max_key_len: 1 + u32::from((param >> 4) % 12),
    };
    let [mut a, mut b, _] = three(params.image_len().expect("len"), |buf| {
        topk::init(buf, &params, 7).expect("init");
    });
    let mut model = Model::default();
    for op in ops {
        let side = if op.to_b { &mut b } else { &mut a };
        let before = Aligned::copy_of(side.bytes());
        match topk::wrap_mut(side.bytes_mut()).expect("wrap").add(op.key(), op.weight) {
            Ok(()) => model.add(op, op.weight),
            Err(Error::KeyTooLong) => {
                assert!(op.key_len > params.max_key_len as usize);
                assert_eq!(side.bytes(), before.bytes(), "top-k: a refused key changed the sketch");
            }
            Err(e) => panic!("top-k add: {e:?}"),
        }
    }
    check_topk(&topk::wrap(a.bytes()).expect("wrap"), &model.a, "a");
    check_topk(&topk::wrap(b.bytes()).expect("wrap"), &model.b, "b");
    round_trip(a.bytes(), topk::export, topk::import);
    let b_view = Aligned::copy_of(b.bytes());
    topk::wrap_mut(a.bytes_mut())
        .expect("wrap")
        .merge(&topk::wrap(b_view.bytes()).expect("wrap"))
        .expect("merge");
    check_topk(&topk::wrap(a.bytes()).expect("wrap"), &model.all, "merged");
    round_trip(a.bytes(), topk::export, topk::import);
}

fn minhash_family(param: u8, ops: &[Op]) {
    let k = 1 + u32::from(param);
    let mut sketches = three(minhash::image_len(k).expect("len"), |buf| {
        minhash::init(buf, k, 7).expect("init");
    });
    feed(ops, &mut sketches, |buf, op| {
        minhash::wrap_mut(buf).expect("wrap").add(op.key());
    });
    merge_b_into_a(&mut sketches, |dst, src| {
        minhash::wrap_mut(dst).expect("wrap").merge(&minhash::wrap(src).expect("wrap")).expect("merge");
    });
    let [a, _, all] = &sketches;
    assert_eq!(body(a.bytes()), body(all.bytes()), "minhash: merge differs from one sketch of both");
    let x = minhash::wrap(a.bytes()).expect("wrap");
    if x.stats().filled > 0 {
        assert_eq!(x.jaccard(&x), Ok(1.0), "minhash: J(a, a) of a non-empty sketch");
    }
    round_trip(a.bytes(), minhash::export, minhash::import);
}

fn fuse_family(param: u8, ops: &[Op]) {
    let bits = if param & 1 != 0 { 16 } else { 8 };
    let keys: Vec<&[u8]> = ops.iter().map(|op| op.key()).collect();
    let model = Model::of(ops, |_| 1);
    // Planned for the keys plus some slack (0..=7).
    let params =
        fuse::FuseParams::new(keys.len() as u64 + u64::from((param >> 1) % 8), bits).expect("params");
    let len = params.image_len().expect("len") as usize;
    let mut scratch = vec![0u8; params.scratch_len().expect("scratch") as usize];
    let [mut a, mut b, mut c] = core::array::from_fn(|_| Aligned::zeroed(len));
    let f = fuse::build_keys(a.bytes_mut(), &params, 7, &keys, &mut scratch).expect("build");
    assert!(model.all.keys().all(|k| f.contains(k)), "fuse: false negative");
    assert_eq!(f.keys(), model.all.len() as u64, "fuse: distinct keys not stored once");
    let (mut data, mut offsets) = (Vec::new(), vec![0u32]);
    for k in &keys {
        data.extend_from_slice(k);
        offsets.push(data.len() as u32);
    }
    fuse::build_packed(b.bytes_mut(), &params, 7, &data, &offsets, &mut scratch).expect("build packed");
    assert_eq!(a.bytes(), b.bytes(), "fuse: packed and slice builds differ");
    let hashes: Vec<u64> = keys.iter().map(|k| hash::hash_bytes(k, 7)).collect();
    fuse::build_hashes(c.bytes_mut(), &params, 7, &hashes, &mut scratch).expect("build hashes");
    assert_eq!(a.bytes(), c.bytes(), "fuse: hash and key builds differ");
    // A source called once per key (filled into the scratch up front) and
    // the slices (read directly by the first attempt) build the same image.
    let mut calls = 0usize;
    fuse::build_hashed_by(c.bytes_mut(), &params, 7, hashes.len(), &mut scratch, |i| {
        calls += 1;
        hashes.get(i).copied().unwrap_or(0)
    })
    .expect("build hashed by");
    assert_eq!(calls, hashes.len(), "fuse: the once-per-key source was called more than once per key");
    assert_eq!(a.bytes(), c.bytes(), "fuse: once-per-key and slice builds differ");
    // Batch queries agree with single ones (present and absent keys).
    let probes: Vec<u64> = (0..64u64).map(|i| hash::hash_u64(i, 7)).chain(hashes.iter().copied()).collect();
    let mut out = vec![false; probes.len()];
    let view = fuse::wrap(a.bytes()).expect("wrap");
    view.contains_hashes(&probes, &mut out).expect("batch");
    assert!(probes.iter().zip(&out).all(|(h, o)| view.contains_hash(*h) == *o), "fuse: batch != single");
    // Refused builds write nothing.
    if !keys.is_empty() {
        let tight = fuse::FuseParams::new(keys.len() as u64 - 1, bits).expect("params");
        let before = Aligned::copy_of(b.bytes());
        let refused = fuse::build_keys(b.bytes_mut(), &tight, 7, &keys, &mut scratch).map(|_| ());
        assert_eq!(refused, Err(Error::InvalidArgument));
        // The scratch a build needs follows the keys given (planned for
        // exactly these keys: scratch_len, one byte less is refused).
        let exact = fuse::FuseParams::new(keys.len() as u64, bits).expect("params");
        let short = exact.scratch_len().expect("scratch") as usize - 1;
        let refused = fuse::build_keys(b.bytes_mut(), &params, 7, &keys, &mut scratch[..short]).map(|_| ());
        assert_eq!(refused, Err(Error::BufferTooSmall));
        assert_eq!(b.bytes(), before.bytes(), "fuse: a refused build wrote to the image");
    }
    round_trip(a.bytes(), fuse::export, fuse::import);
}

fn ell_family(param: u8, ops: &[Op]) {
    let config = if param & 1 != 0 { ell::EllConfig::T2D24 } else { ell::EllConfig::T2D20 };
    let p = 2 + (param >> 1) % 11;
    let mut sketches = three(ell::image_len(config, p).expect("len"), |buf| {
        ell::init(buf, config, p, 7).expect("init");
    });
    feed(ops, &mut sketches, |buf, op| {
        ell::wrap_mut(buf).expect("wrap").add(op.key());
    });
    // One batch of every key, in order (repeats included), leaves the image
    // (registers and martingale state) of one add per key.
    let mut batch = Aligned::zeroed(ell::image_len(config, p).expect("len") as usize);
    ell::init(batch.bytes_mut(), config, p, 7).expect("init");
    let hashes: Vec<u64> = ops.iter().map(|op| hash::hash_bytes(op.key(), 7)).collect();
    ell::wrap_mut(batch.bytes_mut()).expect("wrap").add_hashes(&hashes);
    assert!(batch.bytes() == sketches[2].bytes(), "ell: batch add != single adds");
    let registers = |bytes: &[u8]| {
        let s = ell::wrap(bytes).expect("wrap");
        (0..s.registers()).map(|i| s.register(i)).collect::<Vec<u32>>()
    };
    // Reduced copies of `all` and of `a` + `b`: one precision and, for
    // d = 24, the history bits down to d = 20.
    let low = (ell::EllConfig::T2D20, p.saturating_sub(1).max(ell::MIN_PRECISION));
    let low_len = ell::image_len(low.0, low.1).expect("len") as usize;
    let [mut low_all, mut low_ab, _] = three(low_len as u64, |buf| {
        ell::init(buf, low.0, low.1, 7).expect("init");
    });
    {
        let [a, b, all] = &sketches;
        let mut x = ell::wrap_mut(low_all.bytes_mut()).expect("wrap");
        x.merge(&ell::wrap(all.bytes()).expect("wrap")).expect("reduce");
        let mut y = ell::wrap_mut(low_ab.bytes_mut()).expect("wrap");
        y.merge(&ell::wrap(a.bytes()).expect("wrap")).expect("reduce");
        y.merge(&ell::wrap(b.bytes()).expect("wrap")).expect("reduce");
        let all_view = ell::wrap(all.bytes()).expect("wrap");
        let m = all_view.martingale_estimate().expect("an unmerged sketch has a martingale");
        assert!(m.is_finite() && m >= 0.0, "ell: martingale {m}");
        // Every register a stream produces is legal.
        assert!(
            registers(all.bytes()).iter().all(|r| ell::is_legal_register(*r, config, p)),
            "ell: illegal register"
        );
    }
    merge_b_into_a(&mut sketches, |dst, src| {
        ell::wrap_mut(dst).expect("wrap").merge(&ell::wrap(src).expect("wrap")).expect("merge");
    });
    let [a, _, all] = &sketches;
    assert_eq!(
        registers(a.bytes()),
        registers(all.bytes()),
        "ell: merged registers differ from one sketch of both"
    );
    assert_eq!(
        registers(low_ab.bytes()),
        registers(low_all.bytes()),
        "ell: reduced merge differs from one sketch"
    );
    let x = ell::wrap(a.bytes()).expect("wrap");
    assert!(x.martingale_estimate().is_none(), "ell: a merged sketch kept its martingale");
    let ml = x.ml_estimate();
    assert!(ml >= 0.0 && ml == ell::wrap(all.bytes()).expect("wrap").ml_estimate(), "ell: ML estimate {ml}");
    round_trip(a.bytes(), ell::export, ell::import);
    round_trip(all.bytes(), ell::export, ell::import);
    round_trip(low_ab.bytes(), ell::export, ell::import);
}

fuzz_target!(|data: &[u8]| {
    let [selector, param, rest @ ..] = data else { return };
    let ops = decode(rest);
    match selector % 11 {
        0 => bloom_family(*param, &ops),
        1 => sbbf_family(*param, &ops),
        2 => counting_family(*param, &ops),
        3 => cuckoo_family(*param, &ops),
        4 => hll_family(*param, &ops),
        5 => ull_family(*param, &ops),
        6 => countmin_family(*param, &ops),
        7 => topk_family(*param, &ops),
        8 => minhash_family(*param, &ops),
        9 => fuse_family(*param, &ops),
        _ => ell_family(*param, &ops),
    }
});
