//! Side-by-side filter benchmarks (one run, same keys, hashing included):
//! classic Bloom vs the crates fastbloom and bloomfilter; split-block Bloom
//! vs sbbf-rs-safe; cuckoo vs cuckoofilter; binary fuse vs xorf's
//! BinaryFuse8/16 (`-- fuse`); and XXH3 hashing alone as the floor.
//!
//! 1,000,000 16-byte keys at 1%; every iteration processes all keys, so
//! criterion's throughput is elements per second. Run with `make bench`.
// Benchmark harness code, not library code: panicking on setup errors is fine.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sketches_core::bloom::{self, BloomParams};
use sketches_core::sbbf::{self, SbbfParams};

const N: usize = 1_000_000;
const FPR: f64 = 0.01;

fn keys(tag: u64) -> Vec<[u8; 16]> {
    common::byte_keys(tag, N)
}

mod common;
use common::aligned;

fn bench_bloom(c: &mut Criterion) {
    let present = keys(1);
    let absent = keys(2);
    let params = BloomParams::for_items(N as u64, FPR).unwrap();
    let (mut buf, off) = aligned(params.image_len().unwrap());
    let len = params.image_len().unwrap() as usize;
    let image = &mut buf[off..off + len];

    let mut g = c.benchmark_group("bloom_1M_1pct");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);

    g.bench_function("hash_only_xxh3", |b| {
        b.iter(|| present.iter().fold(0u64, |acc, k| acc ^ sketches_core::hash::hash_bytes(k, 0)))
    });
    g.bench_function("sketches_add", |b| {
        b.iter(|| {
            let mut f = bloom::init(image, &params, 0).unwrap();
            for k in &present {
                f.add(k);
            }
        })
    });
    let mut fast = fastbloom::BloomFilter::with_false_pos(FPR).expected_items(N);
    g.bench_function("fastbloom_add", |b| {
        b.iter(|| {
            fast.clear();
            for k in &present {
                fast.insert(k);
            }
        })
    });
    let mut other = bloomfilter::Bloom::new_for_fp_rate(N, FPR).unwrap();
    g.bench_function("bloomfilter_add", |b| {
        b.iter(|| {
            other.clear();
            for k in &present {
                other.set(k);
            }
        })
    });

    {
        let mut f = bloom::init(image, &params, 0).unwrap();
        for k in &present {
            f.add(k);
        }
    }
    let view = bloom::wrap(image).unwrap();
    for (name, set) in [("present", &present), ("absent", &absent)] {
        g.bench_function(format!("sketches_contains_{name}"), |b| {
            b.iter(|| set.iter().filter(|k| view.contains(black_box(*k))).count())
        });
        g.bench_function(format!("fastbloom_contains_{name}"), |b| {
            b.iter(|| set.iter().filter(|k| fast.contains(black_box(*k))).count())
        });
        g.bench_function(format!("bloomfilter_contains_{name}"), |b| {
            b.iter(|| set.iter().filter(|k| other.check(black_box(*k))).count())
        });
    }
    g.finish();
}

/// Split-block Bloom vs sbbf-rs-safe at the same byte size, each fed the
/// same hash function (the same code: ours, which sbbf-rs-safe does not
/// have): in native mode (XXH3, our planner's size) and in Parquet mode
/// (XXH64 seed 0, the size a Parquet writer picks for 1M values at 1%).
/// sbbf-rs-safe selects blocks as Parquet does; the peer's filter is reset
/// (zero-filled) where ours is re-initialized (also a zero fill).
fn bench_sbbf(c: &mut Criterion) {
    let present = keys(3);
    let absent = keys(4);
    let mut g = c.benchmark_group("sbbf_1M_1pct");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);
    g.bench_function("hash_only_xxh3", |b| {
        b.iter(|| present.iter().fold(0u64, |acc, k| acc ^ sketches_core::hash::hash_bytes(k, 0)))
    });
    g.bench_function("hash_only_xxh64", |b| {
        b.iter(|| present.iter().fold(0u64, |acc, k| acc ^ sketches_core::hash::xxh64(k, 0)))
    });
    g.bench_function("hash_only_xxh64_xxhash_rust", |b| {
        b.iter(|| present.iter().fold(0u64, |acc, k| acc ^ xxhash_rust::xxh64::xxh64(k, 0)))
    });
    let native = SbbfParams::for_items(N as u64, FPR).unwrap();
    let parquet = SbbfParams::for_parquet(N as u64, FPR).unwrap();
    sbbf_mode(&mut g, "", native, |k| sketches_core::hash::hash_bytes(k, 0), &present, &absent);
    sbbf_mode(&mut g, "parquet_", parquet, |k| sketches_core::hash::xxh64(k, 0), &present, &absent);
    g.finish();
}

fn sbbf_mode(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    mode: &str,
    params: SbbfParams,
    peer_hash: impl Fn(&[u8]) -> u64 + Copy,
    present: &[[u8; 16]],
    absent: &[[u8; 16]],
) {
    let len = params.image_len().unwrap() as usize;
    let (mut buf, off) = aligned(len as u64);
    let image = &mut buf[off..off + len];
    let bytes = params.blocks as usize * sbbf::BLOCK_BYTES;
    g.bench_function(format!("{mode}sketches_add"), |b| {
        b.iter(|| {
            let mut f = sbbf::init(image, &params, 0).unwrap();
            for k in present {
                f.add(black_box(k));
            }
        })
    });
    // The same byte size: `new(8, bytes)` allocates exactly `bytes`.
    let mut peer = sbbf_rs_safe::Filter::new(8, bytes);
    assert_eq!(peer.as_bytes().len(), bytes);
    g.bench_function(format!("{mode}sbbf_rs_safe_add"), |b| {
        b.iter(|| {
            peer.reset();
            for k in present {
                peer.insert_hash(peer_hash(black_box(k)));
            }
        })
    });
    g.bench_function(format!("{mode}sketches_add_batch"), |b| {
        b.iter(|| {
            let mut f = sbbf::init(image, &params, 0).unwrap();
            let hasher = f.as_ref().key_hasher();
            let mut hashes = [0u64; 256];
            for chunk in present.chunks(256) {
                for (h, k) in hashes.iter_mut().zip(chunk) {
                    *h = hasher.hash(black_box(k));
                }
                f.add_hashes(&hashes[..chunk.len()], None).unwrap();
            }
        })
    });
    {
        let mut f = sbbf::init(image, &params, 0).unwrap();
        peer.reset();
        for k in present {
            f.add(k);
            peer.insert_hash(peer_hash(k));
        }
    }
    let view = sbbf::wrap(image).unwrap();
    if mode == "parquet_" {
        // Same hash and block selection: the two bitsets are identical.
        assert!(view.body() == peer.as_bytes(), "sbbf-rs-safe and Parquet mode disagree");
    }
    for (name, set) in [("present", present), ("absent", absent)] {
        g.bench_function(format!("{mode}sketches_contains_{name}"), |b| {
            b.iter(|| set.iter().filter(|k| view.contains(black_box(*k))).count())
        });
        g.bench_function(format!("{mode}sketches_contains_batch_{name}"), |b| {
            b.iter(|| {
                let hasher = view.key_hasher();
                let (mut hashes, mut found) = ([0u64; 256], [false; 256]);
                let mut hits = 0;
                for chunk in set.chunks(256) {
                    for (h, k) in hashes.iter_mut().zip(chunk) {
                        *h = hasher.hash(black_box(k));
                    }
                    view.contains_hashes(&hashes[..chunk.len()], &mut found[..chunk.len()]).unwrap();
                    hits += found[..chunk.len()].iter().filter(|x| **x).count();
                }
                hits
            })
        });
        g.bench_function(format!("{mode}sbbf_rs_safe_contains_{name}"), |b| {
            b.iter(|| set.iter().filter(|k| peer.contains_hash(peer_hash(black_box(*k)))).count())
        });
    }
}

/// Cuckoo filter vs the cuckoofilter crate at the same load (1M keys into
/// 2^18 buckets of 4, i.e. 95% load; the crate sizes to a power of two with
/// 8-bit fingerprints, so ours uses 8-bit fingerprints too).
fn bench_cuckoo(c: &mut Criterion) {
    use sketches_core::cuckoo::{self, CuckooParams};
    let n = 996_000usize; // 95% of 2^20 slots
    let present = &keys(5)[..n];
    let absent = keys(6);
    let params = CuckooParams::with_buckets(1 << 18, 8).unwrap();
    let len = params.image_len().unwrap() as usize;
    let (mut buf, off) = aligned(len as u64);
    let image = &mut buf[off..off + len];
    let mut g = c.benchmark_group("cuckoo_95pct_load");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    g.bench_function("sketches_add", |b| {
        b.iter(|| {
            let mut f = cuckoo::init(image, &params, 0).unwrap();
            present.iter().filter(|k| f.add(*k).is_ok()).count()
        })
    });
    let mut peer = cuckoofilter::CuckooFilter::<std::collections::hash_map::DefaultHasher>::with_capacity(n);
    g.bench_function("cuckoofilter_add", |b| {
        b.iter(|| {
            peer = cuckoofilter::CuckooFilter::with_capacity(n);
            present.iter().filter(|k| peer.add(*k).is_ok()).count()
        })
    });
    {
        let mut f = cuckoo::init(image, &params, 0).unwrap();
        for k in present {
            let _ = f.add(k);
        }
    }
    let view = cuckoo::wrap(image).unwrap();
    for (name, set) in [("present", present), ("absent", &absent[..n])] {
        g.bench_function(format!("sketches_contains_{name}"), |b| {
            b.iter(|| set.iter().filter(|k| view.contains(black_box(*k))).count())
        });
        g.bench_function(format!("cuckoofilter_contains_{name}"), |b| {
            b.iter(|| set.iter().filter(|k| peer.contains(black_box(*k))).count())
        });
        // The batch path (what the C ABI's batch calls run): keys hashed in
        // chunks of 256, then `contains_hashes`.
        g.bench_function(format!("sketches_contains_batch_{name}"), |b| {
            let hasher = view.key_hasher();
            let mut hashes = [0u64; 256];
            let mut found = [false; 256];
            b.iter(|| {
                let mut hits = 0;
                for chunk in set.chunks(256) {
                    for (h, k) in hashes.iter_mut().zip(chunk) {
                        *h = hasher.hash(black_box(k));
                    }
                    view.contains_hashes(&hashes[..chunk.len()], &mut found[..chunk.len()]).unwrap();
                    hits += found[..chunk.len()].iter().filter(|x| **x).count();
                }
                hits
            })
        });
    }
    g.finish();
}

/// Binary fuse filters vs xorf's BinaryFuse8/BinaryFuse16 at the same n
/// (1,000,000 keys), each library hashing its own way:
/// * u64 keys: ours hash them with XXH3 (the library's canonical hash),
///   xorf mixes them with its murmur finalizer;
/// * string keys `present-<i>`: both get XXH3 of the bytes, computed inside
///   the timed loop (xorf has no byte-key build; its `HashProxy` would add
///   SipHash), ours through the packed (Arrow-layout) build.
///
/// Build times include everything each library does (ours: hashing and the
/// whole construction in caller memory; xorf: allocation and construction).
fn bench_fuse(c: &mut Criterion) {
    use sketches_core::fuse::{self, FuseParams};
    use xorf::{BinaryFuse16, BinaryFuse8, Filter};
    let n = N as u64;
    let mut rng = 0x00f0_05e5u64;
    let present = common::u64_keys(&mut rng, N);
    let absent = common::u64_keys(&mut rng, N);
    let strings: Vec<String> = (0..N).map(|i| format!("present-{i}")).collect();
    let absent_strings: Vec<String> = (0..N).map(|i| format!("absent-{i}")).collect();
    let mut data = Vec::new();
    let mut offsets = vec![0u32];
    for k in &strings {
        data.extend_from_slice(k.as_bytes());
        offsets.push(data.len() as u32);
    }
    let xxh = |k: &str| sketches_core::hash::hash_bytes(k.as_bytes(), 0);
    for bits in [8u8, 16] {
        let params = FuseParams::new(n, bits).unwrap();
        let len = params.image_len().unwrap() as usize;
        let (mut buf, off) = aligned(len as u64);
        let image = &mut buf[off..off + len];
        let mut scratch = vec![0u8; params.scratch_len().unwrap() as usize];
        let mut g = c.benchmark_group(format!("fuse{bits}_1M"));
        g.throughput(Throughput::Elements(n));
        g.sample_size(10);
        g.bench_function("sketches_build_u64", |b| {
            b.iter(|| fuse::build_u64s(image, &params, 0, &present, &mut scratch).unwrap().keys())
        });
        let peer_build = || {
            if bits == 8 {
                BinaryFuse8::try_from(&present[..]).unwrap().len()
            } else {
                BinaryFuse16::try_from(&present[..]).unwrap().len()
            }
        };
        g.bench_function("xorf_build_u64", |b| b.iter(peer_build));
        // Each build timed right after the other library's (untimed): both
        // start from the caches the other left, as in a process that builds
        // filters between other work. Back to back (above), each build finds
        // its own arrays of the previous iteration still cached.
        g.bench_function("sketches_build_u64_after_xorf", |b| {
            b.iter_custom(|iters| {
                let mut total = std::time::Duration::ZERO;
                for _ in 0..iters {
                    black_box(peer_build());
                    let start = std::time::Instant::now();
                    black_box(fuse::build_u64s(image, &params, 0, &present, &mut scratch).unwrap().keys());
                    total += start.elapsed();
                }
                total
            })
        });
        g.bench_function("xorf_build_u64_after_sketches", |b| {
            b.iter_custom(|iters| {
                let mut total = std::time::Duration::ZERO;
                for _ in 0..iters {
                    black_box(fuse::build_u64s(image, &params, 0, &present, &mut scratch).unwrap().keys());
                    let start = std::time::Instant::now();
                    black_box(peer_build());
                    total += start.elapsed();
                }
                total
            })
        });
        g.bench_function("sketches_build_string", |b| {
            b.iter(|| fuse::build_packed(image, &params, 0, &data, &offsets, &mut scratch).unwrap().keys())
        });
        g.bench_function("xorf_build_string_xxh3", |b| {
            b.iter(|| {
                let hashes: Vec<u64> = strings.iter().map(|k| xxh(k)).collect();
                if bits == 8 {
                    BinaryFuse8::try_from(&hashes[..]).unwrap().len()
                } else {
                    BinaryFuse16::try_from(&hashes[..]).unwrap().len()
                }
            })
        });
        let ours_u64 = {
            fuse::build_u64s(image, &params, 0, &present, &mut scratch).unwrap();
            image.to_vec()
        };
        let (mut ubuf, uoff) = aligned(len as u64);
        ubuf[uoff..uoff + len].copy_from_slice(&ours_u64);
        let view = fuse::wrap(&ubuf[uoff..uoff + len]).unwrap();
        fuse::build_packed(image, &params, 0, &data, &offsets, &mut scratch).unwrap();
        let sview = fuse::wrap(image).unwrap();
        let string_hashes: Vec<u64> = strings.iter().map(|k| xxh(k)).collect();
        let (x8, x16) = if bits == 8 {
            (
                Some((
                    BinaryFuse8::try_from(&present[..]).unwrap(),
                    BinaryFuse8::try_from(&string_hashes[..]).unwrap(),
                )),
                None,
            )
        } else {
            (
                None,
                Some((
                    BinaryFuse16::try_from(&present[..]).unwrap(),
                    BinaryFuse16::try_from(&string_hashes[..]).unwrap(),
                )),
            )
        };
        let peer_contains = |key: u64, strings: bool| match (&x8, &x16) {
            (Some((u, s)), _) => {
                if strings {
                    s.contains(&key)
                } else {
                    u.contains(&key)
                }
            }
            (_, Some((u, s))) => {
                if strings {
                    s.contains(&key)
                } else {
                    u.contains(&key)
                }
            }
            _ => false,
        };
        let peer_len = match (&x8, &x16) {
            (Some((u, _)), _) => u.len() * 8,
            (_, Some((u, _))) => u.len() * 16,
            _ => 0,
        };
        let st = view.stats();
        eprintln!(
            "fuse{bits} n={n}: sketches {:.4} bits/key ({:.4} with header and padding), xorf {:.4} bits/key (fingerprints only); ratio {:.4}",
            st.bits_per_key,
            st.image_bytes_per_key * 8.0,
            peer_len as f64 / n as f64,
            st.image_bytes_per_key * 8.0 / (peer_len as f64 / n as f64)
        );
        for (name, set, strs) in [("present", &present, &strings), ("absent", &absent, &absent_strings)] {
            g.bench_function(format!("sketches_contains_u64_{name}"), |b| {
                b.iter(|| set.iter().filter(|k| view.contains_u64(black_box(**k))).count())
            });
            g.bench_function(format!("sketches_contains_u64_batch_{name}"), |b| {
                let (mut hashes, mut found) = ([0u64; 256], [false; 256]);
                b.iter(|| {
                    let mut hits = 0;
                    for chunk in set.chunks(256) {
                        for (h, k) in hashes.iter_mut().zip(chunk) {
                            *h = sketches_core::hash::hash_u64(black_box(*k), 0);
                        }
                        view.contains_hashes(&hashes[..chunk.len()], &mut found[..chunk.len()]).unwrap();
                        hits += found[..chunk.len()].iter().filter(|x| **x).count();
                    }
                    hits
                })
            });
            g.bench_function(format!("xorf_contains_u64_{name}"), |b| {
                b.iter(|| set.iter().filter(|k| peer_contains(black_box(**k), false)).count())
            });
            g.bench_function(format!("sketches_contains_string_{name}"), |b| {
                b.iter(|| strs.iter().filter(|k| sview.contains(black_box(k.as_bytes()))).count())
            });
            g.bench_function(format!("xorf_contains_string_xxh3_{name}"), |b| {
                b.iter(|| strs.iter().filter(|k| peer_contains(xxh(black_box(k)), true)).count())
            });
        }
        g.finish();
    }
}

criterion_group!(benches, bench_bloom, bench_sbbf, bench_cuckoo, bench_fuse);
criterion_main!(benches);
