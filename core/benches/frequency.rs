//! Count-Min against the `pdatastructs` crate and Top-k against an exact
//! `HashMap` counter, in one run:
//! `cargo bench -p sketches-core --bench frequency`.
//!
//! epsilon = 0.001, delta = 0.01 (2719 x 5, 32-bit counters), 1,000,000 u64
//! keys drawn log-uniformly from 100,000 distinct; each library hashes with
//! its default hash (ours: XXH3 once per key; pdatastructs: SipHash).
//! pdatastructs is a dev-dependency on 64-bit targets only (it does not build
//! where usize is 32 bits): elsewhere the bench measures this crate alone.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
#[cfg(target_pointer_width = "64")]
use pdatastructs::countminsketch::CountMinSketch;
use sketches_core::countmin::{self, CountMinParams};

const N: usize = 1_000_000;

fn stream() -> Vec<u64> {
    let mut x = 0x1234_5678u64;
    (0..N)
        .map(|_| {
            x = sketches_core::hash::remix(x.wrapping_add(0x9e37_79b9_7f4a_7c15));
            let u = (x >> 11) as f64 / (1u64 << 53) as f64;
            ((u * (100_000f64).ln()).exp() as u64).saturating_sub(1)
        })
        .collect()
}

mod common;
use common::aligned;

fn countmin_bench(c: &mut Criterion) {
    let keys = stream();
    let mut g = c.benchmark_group("countmin_1M_eps0.001_delta0.01");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(20);
    for conservative in [false, true] {
        let params = CountMinParams { conservative, ..CountMinParams::for_error(0.001, 0.01).unwrap() };
        let len = params.image_len().unwrap();
        let (mut buf, off) = aligned(len);
        let image = &mut buf[off..off + len as usize];
        countmin::init(image, &params, 0).unwrap();
        let name = if conservative { "sketches_conservative" } else { "sketches" };
        g.bench_function(format!("{name}/add"), |b| {
            b.iter(|| {
                let mut s = countmin::wrap_mut(image).unwrap();
                s.clear();
                keys.iter().for_each(|k| s.add_u64(*k, 1));
            })
        });
        g.bench_function(format!("{name}/estimate"), |b| {
            let s = countmin::wrap(image).unwrap();
            b.iter(|| keys.iter().map(|k| s.estimate_u64(*k)).fold(0u64, u64::wrapping_add))
        });
    }
    #[cfg(target_pointer_width = "64")]
    pdatastructs_bench(&mut g, &keys);
    g.finish();
}

/// The pdatastructs Count-Min on the same keys, in the same group.
#[cfg(target_pointer_width = "64")]
fn pdatastructs_bench(g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, keys: &[u64]) {
    let mut cms = CountMinSketch::<u64, u32>::with_point_query_properties(0.001, 0.01);
    g.bench_function("pdatastructs/add", |b| {
        b.iter(|| {
            cms.clear();
            keys.iter().for_each(|k| {
                black_box(cms.add(k));
            });
        })
    });
    g.bench_function("pdatastructs/estimate", |b| {
        b.iter(|| keys.iter().map(|k| cms.query_point(k)).fold(0u32, u32::wrapping_add))
    });
}

/// Top-k (1000 counters, 8-byte keys) against an exact HashMap counter on the
/// same skewed stream.
fn topk_bench(c: &mut Criterion) {
    use sketches_core::topk::{self, TopKParams};
    let keys = stream();
    let mut g = c.benchmark_group("topk_1M_1000_counters");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(20);
    let params = TopKParams { capacity: 1000, max_key_len: 8 };
    let len = params.image_len().unwrap();
    let (mut buf, off) = aligned(len);
    let image = &mut buf[off..off + len as usize];
    topk::init(image, &params, 0).unwrap();
    g.bench_function("sketches/add", |b| {
        b.iter(|| {
            let mut s = topk::wrap_mut(image).unwrap();
            s.clear();
            keys.iter().for_each(|k| s.add_u64(*k, 1).unwrap());
        })
    });
    g.bench_function("std_hashmap_exact/add", |b| {
        b.iter(|| {
            let mut m = std::collections::HashMap::<u64, u64>::new();
            keys.iter().for_each(|k| *m.entry(*k).or_insert(0) += 1);
            black_box(m.len())
        })
    });
    g.finish();
}

criterion_group!(benches, countmin_bench, topk_bench);
criterion_main!(benches);
