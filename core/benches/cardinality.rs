//! HyperLogLog / UltraLogLog against the Rust crates people use, in one run:
//! `cargo bench -p sketches-core --bench cardinality`.
//!
//! * add: 1M distinct u64 keys into a p = 14 sketch, each library hashing
//!   with its own default hash (ours: XXH3), and the same with hashes
//!   computed beforehand (register update cost only);
//! * estimate of a p = 14 sketch holding 1M keys (for the ULL also from the
//!   registers alone: FGRA and maximum likelihood);
//! * merge of two p = 14 sketches of 500k keys each, next to a `memcpy` of
//!   the same register bytes;
//! * ExaLogLog (t = 2, d = 20 and d = 24) beside our UltraLogLog: add, the
//!   martingale and ML estimates, merge (`-- ell`).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use datasketches::hll::{HllSketch, HllType, HllUnion};
use sketches_core::ell::{self, EllConfig};
use sketches_core::{hash, hll, ull};
use std::collections::hash_map::RandomState;

const N: u64 = 1_000_000;
const P: u8 = 14;

/// A byte buffer whose usable part starts on a 64-byte boundary.
struct Aligned {
    storage: Vec<u8>,
    offset: usize,
    len: usize,
}

mod common;

impl Aligned {
    fn new(bytes: u64) -> Self {
        let (storage, offset) = common::aligned(bytes);
        Aligned { storage, offset, len: bytes as usize }
    }
    fn bytes(&mut self) -> &mut [u8] {
        &mut self.storage[self.offset..self.offset + self.len]
    }
}

fn hll_with(keys: std::ops::Range<u64>) -> Aligned {
    let mut buf = Aligned::new(hll::image_len(P).unwrap());
    let mut s = hll::init(buf.bytes(), P, 0).unwrap();
    keys.for_each(|k| {
        s.add_u64(k);
    });
    buf
}

fn ull_with(keys: std::ops::Range<u64>) -> Aligned {
    let mut buf = Aligned::new(ull::image_len(P).unwrap());
    let mut s = ull::init(buf.bytes(), P, 0).unwrap();
    keys.for_each(|k| {
        s.add_u64(k);
    });
    buf
}

fn add(c: &mut Criterion) {
    let mut g = c.benchmark_group("cardinality_add_1M_p14");
    g.throughput(Throughput::Elements(N));
    g.sample_size(20);
    let hashes: Vec<u64> = (0..N).map(|k| hash::hash_u64(k, 0)).collect();
    let mut hbuf = Aligned::new(hll::image_len(P).unwrap());
    hll::init(hbuf.bytes(), P, 0).unwrap();
    g.bench_function(BenchmarkId::new("sketches_hll", "u64"), |b| {
        b.iter(|| {
            let mut s = hll::wrap_mut(hbuf.bytes()).unwrap();
            s.reset();
            (0..N).for_each(|k| {
                s.add_u64(k);
            });
            black_box(s.as_ref().estimate())
        })
    });
    g.bench_function(BenchmarkId::new("sketches_hll", "hash"), |b| {
        b.iter(|| {
            let mut s = hll::wrap_mut(hbuf.bytes()).unwrap();
            s.reset();
            s.add_hashes(&hashes);
            black_box(s.as_ref().estimate())
        })
    });
    let mut ubuf = Aligned::new(ull::image_len(P).unwrap());
    ull::init(ubuf.bytes(), P, 0).unwrap();
    g.bench_function(BenchmarkId::new("sketches_ull", "u64"), |b| {
        b.iter(|| {
            let mut s = ull::wrap_mut(ubuf.bytes()).unwrap();
            s.reset();
            (0..N).for_each(|k| {
                s.add_u64(k);
            });
            black_box(s.as_ref().register(5))
        })
    });
    g.bench_function(BenchmarkId::new("sketches_ull", "hash"), |b| {
        b.iter(|| {
            let mut s = ull::wrap_mut(ubuf.bytes()).unwrap();
            s.reset();
            s.add_hashes(&hashes);
            black_box(s.as_ref().register(5))
        })
    });
    g.bench_function(BenchmarkId::new("hyperloglockless", "u64"), |b| {
        b.iter(|| {
            let mut h = hyperloglockless::HyperLogLog::seeded(P, 7);
            (0..N).for_each(|k| h.insert(&k));
            black_box(h.raw_count())
        })
    });
    g.bench_function(BenchmarkId::new("hyperloglockless", "hash"), |b| {
        b.iter(|| {
            let mut h = hyperloglockless::HyperLogLog::seeded(P, 7);
            hashes.iter().for_each(|x| h.insert_hash(*x));
            black_box(h.raw_count())
        })
    });
    g.bench_function(BenchmarkId::new("hyperloglogplus", "u64"), |b| {
        b.iter(|| {
            use hyperloglogplus::HyperLogLog as _;
            let mut h = hyperloglogplus::HyperLogLogPlus::<u64, _>::new(P, RandomState::new()).unwrap();
            (0..N).for_each(|k| h.insert(&k));
            black_box(h.count())
        })
    });
    g.bench_function(BenchmarkId::new("datasketches_hll6", "u64"), |b| {
        b.iter(|| {
            let mut h = HllSketch::new(P, HllType::Hll6).unwrap();
            (0..N).for_each(|k| h.update(k));
            black_box(h.estimate())
        })
    });
    g.finish();
}

fn estimate(c: &mut Criterion) {
    let mut g = c.benchmark_group("cardinality_estimate_p14");
    let mut h = hll_with(0..N);
    let mut u = ull_with(0..N);
    g.bench_function("sketches_hll", |b| {
        let view = hll::wrap(h.bytes()).unwrap();
        b.iter(|| black_box(view.estimate()))
    });
    g.bench_function("sketches_ull", |b| {
        let view = ull::wrap(u.bytes()).unwrap();
        b.iter(|| black_box(view.estimate()))
    });
    g.bench_function("sketches_ull_registers_fgra", |b| {
        let view = ull::wrap(u.bytes()).unwrap();
        b.iter(|| black_box(view.register_estimate()))
    });
    g.bench_function("sketches_ull_registers_ml", |b| {
        let view = ull::wrap(u.bytes()).unwrap();
        b.iter(|| black_box(view.ml_estimate()))
    });
    let mut ds = HllSketch::new(P, HllType::Hll6).unwrap();
    (0..N).for_each(|k| ds.update(k));
    g.bench_function("datasketches_hll6", |b| b.iter(|| black_box(ds.estimate())));
    let mut hl = hyperloglockless::HyperLogLog::seeded(P, 7);
    (0..N).for_each(|k| hl.insert(&k));
    g.bench_function("hyperloglockless", |b| b.iter(|| black_box(hl.count())));
    use hyperloglogplus::HyperLogLog as _;
    let mut hp = hyperloglogplus::HyperLogLogPlus::<u64, _>::new(P, RandomState::new()).unwrap();
    (0..N).for_each(|k| hp.insert(&k));
    g.bench_function("hyperloglogplus", |b| b.iter(|| black_box(hp.count())));
    g.finish();
}

fn merge(c: &mut Criterion) {
    let mut g = c.benchmark_group("cardinality_merge_p14");
    let mut a = hll_with(0..N / 2);
    let mut b_img = hll_with(N / 2..N);
    let mut dst = hll_with(0..0);
    let a_bytes = a.bytes().to_vec();
    g.bench_function("sketches_hll_copy_and_merge", |bch| {
        let src = b_img.bytes().to_vec();
        bch.iter(|| {
            let d = dst.bytes();
            d.copy_from_slice(&a_bytes);
            let mut s = hll::wrap_mut(d).unwrap();
            s.merge(&hll::wrap(&src).unwrap()).unwrap();
            black_box(d[400])
        })
    });
    let mut ua = ull_with(0..N / 2);
    let mut ub = ull_with(N / 2..N);
    let ua_bytes = ua.bytes().to_vec();
    let mut udst = ull_with(0..0);
    g.bench_function("sketches_ull_copy_and_merge", |bch| {
        let src = ub.bytes().to_vec();
        bch.iter(|| {
            let d = udst.bytes();
            d.copy_from_slice(&ua_bytes);
            let mut s = ull::wrap_mut(d).unwrap();
            s.merge(&ull::wrap(&src).unwrap()).unwrap();
            black_box(d[400])
        })
    });
    // Merge and memcpy both read and write 64-byte aligned register arrays
    // (an image's registers start 128 bytes into its aligned buffer).
    g.bench_function("sketches_ull_merge_only", |bch| {
        let src = ub.bytes();
        bch.iter(|| {
            let mut s = ull::wrap_mut(udst.bytes()).unwrap();
            s.merge(&ull::wrap(src).unwrap()).unwrap();
        })
    });
    let registers = 1u64 << P;
    let mut copy_src = Aligned::new(registers);
    copy_src.bytes().copy_from_slice(&ub.bytes()[ull::HEADER_LEN..ull::HEADER_LEN + registers as usize]);
    let mut copy_dst = Aligned::new(registers);
    g.bench_function("memcpy_ull_register_bytes", |bch| {
        let src = copy_src.bytes();
        bch.iter(|| {
            let d = copy_dst.bytes();
            d.copy_from_slice(black_box(&*src));
            black_box(d[400])
        })
    });
    // The same at p = 18 (256 KiB of registers: beyond L1, like most merges of large sketches).
    {
        let big = |keys: std::ops::Range<u64>| {
            let mut buf = Aligned::new(ull::image_len(18).unwrap());
            let mut s = ull::init(buf.bytes(), 18, 0).unwrap();
            keys.for_each(|k| {
                s.add_u64(k);
            });
            buf
        };
        let (mut x, mut y) = (big(0..N), big(N..2 * N));
        g.bench_function("sketches_ull_merge_only_p18", |bch| {
            let src = y.bytes();
            bch.iter(|| {
                let mut s = ull::wrap_mut(x.bytes()).unwrap();
                s.merge(&ull::wrap(src).unwrap()).unwrap();
            })
        });
        let len = 1u64 << 18;
        let (mut regs, mut out) = (Aligned::new(len), Aligned::new(len));
        regs.bytes().copy_from_slice(&y.bytes()[ull::HEADER_LEN..]);
        g.bench_function("memcpy_ull_register_bytes_p18", |bch| {
            let src = regs.bytes();
            bch.iter(|| {
                let d = out.bytes();
                d.copy_from_slice(black_box(&*src));
                black_box(d[400])
            })
        });
    }
    let (mut dsa, mut dsb) =
        (HllSketch::new(P, HllType::Hll6).unwrap(), HllSketch::new(P, HllType::Hll6).unwrap());
    (0..N / 2).for_each(|k| dsa.update(k));
    (N / 2..N).for_each(|k| dsb.update(k));
    g.bench_function("datasketches_hll6_union", |bch| {
        bch.iter(|| {
            let mut u = HllUnion::new(P).unwrap();
            u.update(&dsa);
            u.update(&dsb);
            black_box(u.estimate())
        })
    });
    let mut la = hyperloglockless::HyperLogLog::seeded(P, 7);
    let mut lb = hyperloglockless::HyperLogLog::seeded(P, 7);
    (0..N / 2).for_each(|k| la.insert(&k));
    (N / 2..N).for_each(|k| lb.insert(&k));
    g.bench_function("hyperloglockless_copy_and_union", |bch| {
        bch.iter(|| {
            let mut d = la.clone();
            d.union(&lb).unwrap();
            black_box(d.raw_count())
        })
    });
    let _ = (&mut a, &mut b_img);
    g.finish();
}

fn ell_with(config: EllConfig, p: u8, keys: std::ops::Range<u64>) -> Aligned {
    let mut buf = Aligned::new(ell::image_len(config, p).unwrap());
    let mut s = ell::init(buf.bytes(), config, p, 0).unwrap();
    keys.for_each(|k| {
        s.add_u64(k);
    });
    buf
}

/// ExaLogLog against our UltraLogLog in one run: add 1M distinct u64 keys
/// (hashed inside, and precomputed hashes) at p = 14, the estimates, and
/// the merge of two sketches of 500k keys each.
fn ell_vs_ull(c: &mut Criterion) {
    let hashes: Vec<u64> = (0..N).map(|k| hash::hash_u64(k, 0)).collect();
    let mut g = c.benchmark_group("ell_add_1M_p14");
    g.throughput(Throughput::Elements(N));
    g.sample_size(20);
    let mut ubuf = Aligned::new(ull::image_len(P).unwrap());
    ull::init(ubuf.bytes(), P, 0).unwrap();
    g.bench_function(BenchmarkId::new("sketches_ull", "u64"), |b| {
        b.iter(|| {
            let mut s = ull::wrap_mut(ubuf.bytes()).unwrap();
            s.reset();
            (0..N).for_each(|k| {
                s.add_u64(k);
            });
            black_box(s.as_ref().register(5))
        })
    });
    g.bench_function(BenchmarkId::new("sketches_ull", "hash"), |b| {
        b.iter(|| {
            let mut s = ull::wrap_mut(ubuf.bytes()).unwrap();
            s.reset();
            s.add_hashes(&hashes);
            black_box(s.as_ref().register(5))
        })
    });
    for config in [EllConfig::T2D20, EllConfig::T2D24] {
        let name = format!("sketches_ell_t2d{}", config.d());
        let mut ebuf = Aligned::new(ell::image_len(config, P).unwrap());
        ell::init(ebuf.bytes(), config, P, 0).unwrap();
        g.bench_function(BenchmarkId::new(&name, "u64"), |b| {
            b.iter(|| {
                let mut s = ell::wrap_mut(ebuf.bytes()).unwrap();
                s.reset();
                (0..N).for_each(|k| {
                    s.add_u64(k);
                });
                black_box(s.as_ref().register(5))
            })
        });
        g.bench_function(BenchmarkId::new(&name, "hash"), |b| {
            b.iter(|| {
                let mut s = ell::wrap_mut(ebuf.bytes()).unwrap();
                s.reset();
                s.add_hashes(&hashes);
                black_box(s.as_ref().register(5))
            })
        });
        // The same error instead of the same precision: the smallest p whose
        // maximum-likelihood standard error is at most the ULL's at p = 14
        // (ELL's smaller memory-variance product buys precision steps).
        let target = ull::ml_standard_error(P);
        let p = (ell::MIN_PRECISION..=P).find(|p| ell::ml_standard_error(config, *p) <= target).unwrap_or(P);
        let mut small = Aligned::new(ell::image_len(config, p).unwrap());
        ell::init(small.bytes(), config, p, 0).unwrap();
        eprintln!(
            "ell t2d{} at p={p}: ML error {:.5} (ULL p={P}: {target:.5}), {} register bytes (ULL: {})",
            config.d(),
            ell::ml_standard_error(config, p),
            ell::image_len(config, p).unwrap() - ell::HEADER_LEN as u64,
            ull::image_len(P).unwrap() - ull::HEADER_LEN as u64,
        );
        g.bench_function(BenchmarkId::new(&name, format!("u64_same_error_p{p}")), |b| {
            b.iter(|| {
                let mut s = ell::wrap_mut(small.bytes()).unwrap();
                s.reset();
                (0..N).for_each(|k| {
                    s.add_u64(k);
                });
                black_box(s.as_ref().register(5))
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("ell_estimate_p14");
    let mut u = ull_with(0..N);
    g.bench_function("sketches_ull_martingale", |b| {
        let view = ull::wrap(u.bytes()).unwrap();
        b.iter(|| black_box(view.estimate()))
    });
    g.bench_function("sketches_ull_ml", |b| {
        let view = ull::wrap(u.bytes()).unwrap();
        b.iter(|| black_box(view.ml_estimate()))
    });
    for config in [EllConfig::T2D20, EllConfig::T2D24] {
        let mut e = ell_with(config, P, 0..N);
        let view = ell::wrap(e.bytes()).unwrap();
        g.bench_function(format!("sketches_ell_t2d{}_martingale", config.d()), |b| {
            b.iter(|| black_box(view.estimate()))
        });
        g.bench_function(format!("sketches_ell_t2d{}_ml", config.d()), |b| {
            b.iter(|| black_box(view.ml_estimate()))
        });
    }
    g.finish();

    let mut g = c.benchmark_group("ell_merge_p14");
    let (mut ua, mut ub) = (ull_with(0..N / 2), ull_with(N / 2..N));
    g.bench_function("sketches_ull_merge_only", |bch| {
        let src = ub.bytes();
        bch.iter(|| {
            let mut s = ull::wrap_mut(ua.bytes()).unwrap();
            s.merge(&ull::wrap(src).unwrap()).unwrap();
        })
    });
    for config in [EllConfig::T2D20, EllConfig::T2D24] {
        let (mut a, mut b) = (ell_with(config, P, 0..N / 2), ell_with(config, P, N / 2..N));
        g.bench_function(format!("sketches_ell_t2d{}_merge_only", config.d()), |bch| {
            let src = b.bytes();
            bch.iter(|| {
                let mut s = ell::wrap_mut(a.bytes()).unwrap();
                s.merge(&ell::wrap(src).unwrap()).unwrap();
            })
        });
        let len = ell::image_len(config, P).unwrap();
        let (mut from, mut to) = (Aligned::new(len), Aligned::new(len));
        from.bytes().copy_from_slice(b.bytes());
        g.bench_function(format!("memcpy_ell_t2d{}_image", config.d()), |bch| {
            let src = from.bytes();
            bch.iter(|| {
                let d = to.bytes();
                d.copy_from_slice(black_box(&*src));
                black_box(d[400])
            })
        });
    }
    g.finish();
}

criterion_group!(benches, add, estimate, merge, ell_vs_ull);
criterion_main!(benches);
