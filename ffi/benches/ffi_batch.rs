//! Batch calls through the C ABI against the Rust core doing the same work
//! (hash 1,000,000 16-byte keys, then add / test them), in one run. The
//! target is a C ABI within 1.1x of the core. Run with `make bench`.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use sketches_core::{bloom, sbbf};
use sketches_ffi::bloom::{sketch_bloom_add_batch, sketch_bloom_contains_batch, sketch_bloom_params};
use sketches_ffi::sbbf::{sketch_sbbf_add_batch, sketch_sbbf_contains_batch, sketch_sbbf_params};
use sketches_ffi::sketch_slice;

const N: usize = 1_000_000;
const CHUNK: usize = 4096;

fn keys() -> Vec<[u8; 16]> {
    (0..N as u64)
        .map(|i| {
            let mut k = [0u8; 16];
            k[..8].copy_from_slice(&sketches_core::hash::hash_u64(i, 1).to_le_bytes());
            k[8..].copy_from_slice(&i.to_le_bytes());
            k
        })
        .collect()
}

struct Aligned(Vec<u8>, usize, usize);

impl Aligned {
    fn new(len: u64) -> Self {
        let v = vec![0u8; len as usize + 64];
        let off = v.as_ptr().align_offset(64);
        Aligned(v, off, len as usize)
    }
    fn bytes(&mut self) -> &mut [u8] {
        let (off, len) = (self.1, self.2);
        &mut self.0[off..off + len]
    }
}

fn bench(c: &mut Criterion) {
    let keys = keys();
    // The same input both ways: pointer+length pairs (`sketch_slice` for C,
    // `&[u8]` for Rust) over the same key bytes.
    let slices: Vec<sketch_slice> =
        keys.iter().map(|k| sketch_slice { ptr: k.as_ptr().cast(), len: k.len() }).collect();
    let refs: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
    let mut results = vec![false; CHUNK];

    let bp = bloom::BloomParams::for_items(N as u64, 0.01).unwrap();
    let mut bloom_img = Aligned::new(bp.image_len().unwrap());
    let sp = sbbf::SbbfParams::for_items(N as u64, 0.01).unwrap();
    let mut sbbf_img = Aligned::new(sp.image_len().unwrap());

    let mut g = c.benchmark_group("batch_1M_1pct");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(10);

    // Core: hash a chunk, then the batch call, exactly what the C ABI does.
    g.bench_function("bloom_add_core", |b| {
        b.iter(|| {
            let mut f = bloom::init(bloom_img.bytes(), &bp, 0).unwrap();
            let hasher = f.as_ref().key_hasher();
            hashed_chunks(&refs, hasher, |hashes| f.add_hashes(hashes, None).unwrap());
        })
    });
    let c_params = sketch_bloom_params::from(bp);
    g.bench_function("bloom_add_c_abi", |b| {
        b.iter(|| {
            let img = bloom_img.bytes();
            // SAFETY: valid buffer, params and key slices for the whole call.
            unsafe {
                let st =
                    sketches_ffi::bloom::sketch_bloom_init(img.as_mut_ptr().cast(), img.len(), &c_params, 0);
                assert_eq!(st, sketches_ffi::SKETCH_OK);
                for chunk in slices.chunks(CHUNK) {
                    let st = sketch_bloom_add_batch(
                        img.as_mut_ptr().cast(),
                        img.len(),
                        chunk.as_ptr(),
                        chunk.len(),
                        std::ptr::null_mut(),
                    );
                    assert_eq!(st, sketches_ffi::SKETCH_OK);
                }
            }
        })
    });
    g.bench_function("bloom_contains_core", |b| {
        b.iter(|| {
            let f = bloom::wrap(bloom_img.bytes()).unwrap();
            let mut found = [false; 256];
            hashed_chunks(&refs, f.key_hasher(), |hashes| {
                f.contains_hashes(hashes, &mut found[..hashes.len()]).unwrap();
                std::hint::black_box(&found);
            });
        })
    });
    g.bench_function("bloom_contains_c_abi", |b| {
        b.iter(|| {
            let img = bloom_img.bytes();
            for chunk in slices.chunks(CHUNK) {
                // SAFETY: valid buffer, key slices and result array.
                let st = unsafe {
                    sketch_bloom_contains_batch(
                        img.as_ptr().cast(),
                        img.len(),
                        chunk.as_ptr(),
                        chunk.len(),
                        results.as_mut_ptr(),
                    )
                };
                assert_eq!(st, sketches_ffi::SKETCH_OK);
                std::hint::black_box(&results);
            }
        })
    });

    g.bench_function("sbbf_add_core", |b| {
        b.iter(|| {
            let mut f = sbbf::init(sbbf_img.bytes(), &sp, 0).unwrap();
            let hasher = f.as_ref().key_hasher();
            hashed_chunks(&refs, hasher, |hashes| f.add_hashes(hashes, None).unwrap());
        })
    });
    let c_sparams = sketch_sbbf_params::from(sp);
    g.bench_function("sbbf_add_c_abi", |b| {
        b.iter(|| {
            let img = sbbf_img.bytes();
            // SAFETY: valid buffer, params and key slices for the whole call.
            unsafe {
                let st =
                    sketches_ffi::sbbf::sketch_sbbf_init(img.as_mut_ptr().cast(), img.len(), &c_sparams, 0);
                assert_eq!(st, sketches_ffi::SKETCH_OK);
                for chunk in slices.chunks(CHUNK) {
                    let st = sketch_sbbf_add_batch(
                        img.as_mut_ptr().cast(),
                        img.len(),
                        chunk.as_ptr(),
                        chunk.len(),
                        std::ptr::null_mut(),
                    );
                    assert_eq!(st, sketches_ffi::SKETCH_OK);
                }
            }
        })
    });
    g.bench_function("sbbf_contains_core", |b| {
        b.iter(|| {
            let f = sbbf::wrap(sbbf_img.bytes()).unwrap();
            let mut found = [false; 256];
            hashed_chunks(&refs, f.key_hasher(), |hashes| {
                f.contains_hashes(hashes, &mut found[..hashes.len()]).unwrap();
                std::hint::black_box(&found);
            });
        })
    });
    g.bench_function("sbbf_contains_c_abi", |b| {
        b.iter(|| {
            let img = sbbf_img.bytes();
            for chunk in slices.chunks(CHUNK) {
                // SAFETY: valid buffer, key slices and result array.
                let st = unsafe {
                    sketch_sbbf_contains_batch(
                        img.as_ptr().cast(),
                        img.len(),
                        chunk.as_ptr(),
                        chunk.len(),
                        results.as_mut_ptr(),
                    )
                };
                assert_eq!(st, sketches_ffi::SKETCH_OK);
            }
        })
    });
    g.finish();
}

/// Hashes the keys 256 at a time (what the C ABI's batch calls do) and hands
/// each chunk of hashes to `sink`.
fn hashed_chunks(keys: &[&[u8]], hasher: sketches_core::hash::KeyHasher, mut sink: impl FnMut(&[u64])) {
    let mut hashes = [0u64; 256];
    for chunk in keys.chunks(256) {
        for (h, k) in hashes.iter_mut().zip(chunk) {
            *h = hasher.hash(k);
        }
        sink(&hashes[..chunk.len()]);
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
