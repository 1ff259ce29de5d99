//! The cost of one C call against the per-key cost of a batch call, and the
//! batch calls against the core's single-key loop, on the stand's workload
//! (1,000,000 16-byte keys, filters planned for 1,000,000 at 1%).
//!
//! * `calls_1M_1pct`: for Bloom, split-block and HyperLogLog, the exported
//!   single-key function called once per key (through a function pointer,
//!   so nothing is inlined across the boundary, as from C, Go or Java)
//!   against the packed batch form over the same keys, and the single-key
//!   `_with_token` form (headers validated once, see `sketch_token`), and
//!   the core's single-key loop (one wrap, then one call per key: what the
//!   boundary can at best reach). Target: single calls at most 1.3x the
//!   batch's time per key.
//! * `overlap_1M_1pct`: the batch forms of Bloom, counting Bloom and cuckoo
//!   (which locate a group of keys before touching memory) against the
//!   core's own single-key loop over the same keys. Target: at least 1.5x.
//!
//! Run with `cargo bench -p sketches-ffi --bench single_calls`.
#![allow(missing_docs, clippy::unwrap_used)]

use core::ffi::c_void;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use sketches_core::{bloom, counting, cuckoo, hll, sbbf};
use sketches_ffi::image::sketch_token;
use sketches_ffi::SKETCH_OK;
use std::hint::black_box;

const N: usize = 1_000_000;
/// Keys per batch call (what a binding passes per crossing).
const BATCH: usize = 4096;

struct Keys {
    data: Vec<u8>,
    offsets: Vec<u32>,
}

fn keys(tag: u64) -> Keys {
    let mut data = Vec::with_capacity(16 * N);
    let mut offsets = vec![0u32];
    for i in 0..N as u64 {
        data.extend_from_slice(&sketches_core::hash::hash_u64(i, tag).to_le_bytes());
        data.extend_from_slice(&i.to_le_bytes());
        offsets.push(data.len() as u32);
    }
    Keys { data, offsets }
}

impl Keys {
    fn key(&self, i: usize) -> &[u8] {
        &self.data[16 * i..16 * i + 16]
    }
}

/// A 64-byte aligned image.
struct Img(Vec<u64>);

impl Img {
    fn new(len: u64) -> Img {
        let mut v = Vec::with_capacity(len as usize / 8 + 8);
        v.resize(len as usize / 8, 0u64);
        Img(v)
    }
    fn bytes(&mut self) -> &mut [u8] {
        let len = self.0.len() * 8;
        // SAFETY: a Vec<u64> viewed as bytes, same length in bytes.
        unsafe { std::slice::from_raw_parts_mut(self.0.as_mut_ptr().cast::<u8>(), len) }
    }
    fn ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr().cast()
    }
    fn len(&self) -> usize {
        self.0.len() * 8
    }
}

type AddOne = unsafe extern "C" fn(*mut c_void, usize, *const c_void, usize, *mut bool) -> i32;
type QueryOne = unsafe extern "C" fn(*const c_void, usize, *const c_void, usize, *mut bool) -> i32;
type AddOneWithToken =
    unsafe extern "C" fn(*mut c_void, usize, *const sketch_token, *const c_void, usize, *mut bool) -> i32;
type QueryOneWithToken =
    unsafe extern "C" fn(*const c_void, usize, *const sketch_token, *const c_void, usize, *mut bool) -> i32;
type MakeToken = unsafe extern "C" fn(*const c_void, usize, *mut sketch_token) -> i32;
type AddPacked =
    unsafe extern "C" fn(*mut c_void, usize, *const c_void, usize, *const u32, usize, *mut bool) -> i32;
type QueryPacked =
    unsafe extern "C" fn(*const c_void, usize, *const c_void, usize, *const u32, usize, *mut bool) -> i32;

fn single_add(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    img: &mut Img,
    keys: &Keys,
    f: AddOne,
) {
    let f = black_box(f);
    g.bench_function(name, |b| {
        b.iter(|| {
            for i in 0..N {
                let k = keys.key(i);
                // SAFETY: valid image and key for the call.
                let st = unsafe { f(img.ptr(), img.len(), k.as_ptr().cast(), k.len(), std::ptr::null_mut()) };
                debug_assert_eq!(st, SKETCH_OK);
            }
        })
    });
}

fn single_query(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    img: &mut Img,
    keys: &Keys,
    f: QueryOne,
) {
    let f = black_box(f);
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut hits = 0usize;
            for i in 0..N {
                let k = keys.key(i);
                let mut found = false;
                // SAFETY: valid image, key and output for the call.
                let st = unsafe { f(img.ptr(), img.len(), k.as_ptr().cast(), k.len(), &mut found) };
                debug_assert_eq!(st, SKETCH_OK);
                hits += usize::from(found);
            }
            black_box(hits)
        })
    });
}

fn token_of(img: &mut Img, make: MakeToken) -> sketch_token {
    let mut token = sketch_token::default();
    // SAFETY: valid image and output.
    assert_eq!(unsafe { make(img.ptr(), img.len(), &mut token) }, SKETCH_OK);
    token
}

fn single_add_with_token(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    img: &mut Img,
    keys: &Keys,
    make: MakeToken,
    f: AddOneWithToken,
) {
    let token = token_of(img, make);
    let f = black_box(f);
    g.bench_function(name, |b| {
        b.iter(|| {
            for i in 0..N {
                let k = keys.key(i);
                // SAFETY: valid image, token and key for the call.
                let st = unsafe {
                    f(img.ptr(), img.len(), &token, k.as_ptr().cast(), k.len(), std::ptr::null_mut())
                };
                debug_assert_eq!(st, SKETCH_OK);
            }
        })
    });
}

fn single_query_with_token(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    img: &mut Img,
    keys: &Keys,
    make: MakeToken,
    f: QueryOneWithToken,
) {
    let token = token_of(img, make);
    let f = black_box(f);
    g.bench_function(name, |b| {
        b.iter(|| {
            let mut hits = 0usize;
            for i in 0..N {
                let k = keys.key(i);
                let mut found = false;
                // SAFETY: valid image, token, key and output for the call.
                let st = unsafe { f(img.ptr(), img.len(), &token, k.as_ptr().cast(), k.len(), &mut found) };
                debug_assert_eq!(st, SKETCH_OK);
                hits += usize::from(found);
            }
            black_box(hits)
        })
    });
}

fn packed_add(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    img: &mut Img,
    keys: &Keys,
    f: AddPacked,
) {
    let f = black_box(f);
    g.bench_function(name, |b| {
        b.iter(|| {
            for start in (0..N).step_by(BATCH) {
                let n = BATCH.min(N - start);
                // SAFETY: valid image; offsets[start..=start+n] index into data.
                let st = unsafe {
                    f(
                        img.ptr(),
                        img.len(),
                        keys.data.as_ptr().cast(),
                        keys.data.len(),
                        keys.offsets.as_ptr().add(start),
                        n,
                        std::ptr::null_mut(),
                    )
                };
                debug_assert_eq!(st, SKETCH_OK);
            }
        })
    });
}

fn packed_query(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    img: &mut Img,
    keys: &Keys,
    f: QueryPacked,
) {
    let f = black_box(f);
    let mut out = vec![false; BATCH];
    g.bench_function(name, |b| {
        b.iter(|| {
            for start in (0..N).step_by(BATCH) {
                let n = BATCH.min(N - start);
                // SAFETY: valid image, offsets and output.
                let st = unsafe {
                    f(
                        img.ptr(),
                        img.len(),
                        keys.data.as_ptr().cast(),
                        keys.data.len(),
                        keys.offsets.as_ptr().add(start),
                        n,
                        out.as_mut_ptr(),
                    )
                };
                debug_assert_eq!(st, SKETCH_OK);
                black_box(&out);
            }
        })
    });
}

unsafe extern "C" fn hll_add_packed(
    buf: *mut c_void,
    len: usize,
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    _: *mut bool,
) -> i32 {
    // SAFETY: forwarded.
    unsafe { sketches_ffi::hll::sketch_hll_add_packed(buf, len, data, data_len, offsets, count) }
}

fn calls(c: &mut Criterion) {
    use sketches_ffi::bloom::*;
    use sketches_ffi::sbbf::*;
    let present = keys(1);
    let mut g = c.benchmark_group("calls_1M_1pct");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);

    let bp = bloom::BloomParams::for_items(N as u64, 0.01).unwrap();
    let mut img = Img::new(bp.image_len().unwrap());
    bloom::init(img.bytes(), &bp, 0).unwrap();
    single_add(&mut g, "bloom_add_single_call", &mut img, &present, sketch_bloom_add);
    let (token, add) = (sketch_bloom_token as MakeToken, sketch_bloom_add_with_token as AddOneWithToken);
    single_add_with_token(&mut g, "bloom_add_single_call_with_token", &mut img, &present, token, add);
    packed_add(&mut g, "bloom_add_packed_batch", &mut img, &present, sketch_bloom_add_packed);
    single_query(&mut g, "bloom_contains_single_call", &mut img, &present, sketch_bloom_contains);
    let query = sketch_bloom_contains_with_token as QueryOneWithToken;
    single_query_with_token(
        &mut g,
        "bloom_contains_single_call_with_token",
        &mut img,
        &present,
        token,
        query,
    );
    g.bench_function("bloom_add_core_single", |b| {
        b.iter(|| {
            let mut f = bloom::wrap_mut(img.bytes()).unwrap();
            core_loop(&present, |k| f.add(k))
        })
    });
    g.bench_function("bloom_contains_core_single", |b| {
        b.iter(|| {
            let f = bloom::wrap(img.bytes()).unwrap();
            core_loop(&present, |k| f.contains(k))
        })
    });
    packed_query(&mut g, "bloom_contains_packed_batch", &mut img, &present, sketch_bloom_contains_packed);

    let sp = sbbf::SbbfParams::for_items(N as u64, 0.01).unwrap();
    let mut img = Img::new(sp.image_len().unwrap());
    sbbf::init(img.bytes(), &sp, 0).unwrap();
    single_add(&mut g, "sbbf_add_single_call", &mut img, &present, sketch_sbbf_add);
    let (token, add) = (sketch_sbbf_token as MakeToken, sketch_sbbf_add_with_token as AddOneWithToken);
    single_add_with_token(&mut g, "sbbf_add_single_call_with_token", &mut img, &present, token, add);
    packed_add(&mut g, "sbbf_add_packed_batch", &mut img, &present, sketch_sbbf_add_packed);
    single_query(&mut g, "sbbf_contains_single_call", &mut img, &present, sketch_sbbf_contains);
    let query = sketch_sbbf_contains_with_token as QueryOneWithToken;
    single_query_with_token(&mut g, "sbbf_contains_single_call_with_token", &mut img, &present, token, query);
    g.bench_function("sbbf_add_core_single", |b| {
        b.iter(|| {
            let mut f = sbbf::wrap_mut(img.bytes()).unwrap();
            core_loop(&present, |k| f.add(k))
        })
    });
    g.bench_function("sbbf_contains_core_single", |b| {
        b.iter(|| {
            let f = sbbf::wrap(img.bytes()).unwrap();
            core_loop(&present, |k| f.contains(k))
        })
    });
    packed_query(&mut g, "sbbf_contains_packed_batch", &mut img, &present, sketch_sbbf_contains_packed);

    let mut img = Img::new(hll::image_len(14).unwrap());
    hll::init(img.bytes(), 14, 0).unwrap();
    single_add(&mut g, "hll_add_single_call", &mut img, &present, sketches_ffi::hll::sketch_hll_add);
    let (token, add) = (
        sketches_ffi::hll::sketch_hll_token as MakeToken,
        sketches_ffi::hll::sketch_hll_add_with_token as AddOneWithToken,
    );
    single_add_with_token(&mut g, "hll_add_single_call_with_token", &mut img, &present, token, add);
    g.bench_function("hll_add_core_single", |b| {
        b.iter(|| {
            let mut h = hll::wrap_mut(img.bytes()).unwrap();
            core_loop(&present, |k| h.add(k))
        })
    });
    packed_add(&mut g, "hll_add_packed_batch", &mut img, &present, hll_add_packed);
    g.finish();
}

/// The core's single-key loop (one wrap, then one add or query per key).
fn core_loop<F: FnMut(&[u8]) -> bool>(keys: &Keys, mut op: F) -> usize {
    let mut n = 0;
    for i in 0..N {
        n += usize::from(op(keys.key(i)));
    }
    n
}

/// For each key set, the core's single-key queries (`core`: one wrap,
/// then [`core_loop`]) and the packed batch over the same keys.
fn contains_rows(
    g: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    family: &str,
    img: &mut Img,
    sets: [(&str, &Keys); 2],
    packed: QueryPacked,
    core: impl Fn(&mut Img, &Keys) -> usize,
) {
    for (set, keys) in sets {
        g.bench_function(format!("{family}_contains_{set}_core_single"), |b| b.iter(|| core(img, keys)));
        packed_query(g, &format!("{family}_contains_{set}_batch"), img, keys, packed);
    }
}

fn overlap(c: &mut Criterion) {
    use sketches_ffi::bloom::*;
    use sketches_ffi::counting::*;
    use sketches_ffi::cuckoo::*;
    let present = keys(1);
    let absent = keys(2);
    let mut g = c.benchmark_group("overlap_1M_1pct");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);

    let bp = bloom::BloomParams::for_items(N as u64, 0.01).unwrap();
    let mut img = Img::new(bp.image_len().unwrap());
    bloom::init(img.bytes(), &bp, 0).unwrap();
    g.bench_function("bloom_add_core_single", |b| {
        b.iter(|| {
            let mut f = bloom::wrap_mut(img.bytes()).unwrap();
            core_loop(&present, |k| f.add(k))
        })
    });
    packed_add(&mut g, "bloom_add_batch", &mut img, &present, sketch_bloom_add_packed);
    contains_rows(
        &mut g,
        "bloom",
        &mut img,
        [("absent", &absent), ("present", &present)],
        sketch_bloom_contains_packed,
        |img, keys| {
            let f = bloom::wrap(img.bytes()).unwrap();
            core_loop(keys, |k| f.contains(k))
        },
    );

    let mut img = Img::new(counting::image_len(&bp).unwrap());
    counting::init(img.bytes(), &bp, 0).unwrap();
    g.bench_function("counting_add_core_single", |b| {
        b.iter(|| {
            let mut f = counting::wrap_mut(img.bytes()).unwrap();
            core_loop(&present, |k| f.add(k))
        })
    });
    packed_add(&mut g, "counting_add_batch", &mut img, &present, sketch_counting_add_packed);
    contains_rows(
        &mut g,
        "counting",
        &mut img,
        [("absent", &absent), ("present", &present)],
        sketch_counting_contains_packed,
        |img, keys| {
            let f = counting::wrap(img.bytes()).unwrap();
            core_loop(keys, |k| f.contains(k))
        },
    );

    let cp = cuckoo::CuckooParams::for_items(N as u64, 0.01).unwrap();
    let mut img = Img::new(cp.image_len().unwrap());
    cuckoo::init(img.bytes(), &cp, 0).unwrap();
    {
        let mut f = cuckoo::wrap_mut(img.bytes()).unwrap();
        for i in 0..N {
            let _ = f.add(present.key(i));
        }
    }
    contains_rows(
        &mut g,
        "cuckoo",
        &mut img,
        [("absent", &absent), ("present", &present)],
        sketch_cuckoo_contains_packed,
        |img, keys| {
            let f = cuckoo::wrap(img.bytes()).unwrap();
            core_loop(keys, |k| f.contains(k))
        },
    );
    g.finish();
}

criterion_group!(benches, calls, overlap);
criterion_main!(benches);
