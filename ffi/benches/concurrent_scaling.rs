//! Scaling of the concurrent adds (`sketch_*_add_concurrent_u64_batch`) from
//! one thread to two on one image, beside the exclusive batch add of the same
//! family (what the atomic words cost on one thread). Bloom and split-block
//! filters planned for 1,000,000 keys at 1%, HyperLogLog p = 14 (dense),
//! UltraLogLog p = 13; 2,000,000 distinct u64 keys added in batches of 4,096,
//! split in two halves for two threads. Best of 7 rounds per figure (the
//! steadiest on a shared machine). Run: `cargo bench -p sketches-ffi --bench
//! concurrent_scaling`. Reports Mkeys/s and ratios; asserts nothing.

use core::ffi::c_void;
use sketches_ffi::bloom::*;
use sketches_ffi::hll::*;
use sketches_ffi::sbbf::*;
use sketches_ffi::ull::*;
use sketches_ffi::*;
use std::time::Instant;

const KEYS: usize = 2_000_000;
const CHUNK: usize = 4_096;
const ROUNDS: usize = 7;

/// A batch add over u64 keys; the bool output (filters) is ignored.
type AddFn = unsafe fn(*mut c_void, usize, &[u64]) -> sketch_status;

struct Family {
    name: &'static str,
    image: Vec<u64>,
    exclusive: AddFn,
    concurrent: AddFn,
}

unsafe fn bloom_exclusive(buf: *mut c_void, len: usize, keys: &[u64]) -> sketch_status {
    unsafe { sketch_bloom_add_u64_batch(buf, len, keys.as_ptr(), keys.len(), core::ptr::null_mut()) }
}
unsafe fn bloom_concurrent(buf: *mut c_void, len: usize, keys: &[u64]) -> sketch_status {
    unsafe {
        sketch_bloom_add_concurrent_u64_batch(buf, len, keys.as_ptr(), keys.len(), core::ptr::null_mut())
    }
}
unsafe fn sbbf_exclusive(buf: *mut c_void, len: usize, keys: &[u64]) -> sketch_status {
    unsafe { sketch_sbbf_add_u64_batch(buf, len, keys.as_ptr(), keys.len(), core::ptr::null_mut()) }
}
unsafe fn sbbf_concurrent(buf: *mut c_void, len: usize, keys: &[u64]) -> sketch_status {
    unsafe {
        sketch_sbbf_add_concurrent_u64_batch(buf, len, keys.as_ptr(), keys.len(), core::ptr::null_mut())
    }
}
unsafe fn hll_exclusive(buf: *mut c_void, len: usize, keys: &[u64]) -> sketch_status {
    unsafe { sketch_hll_add_u64_batch(buf, len, keys.as_ptr(), keys.len()) }
}
unsafe fn hll_concurrent(buf: *mut c_void, len: usize, keys: &[u64]) -> sketch_status {
    unsafe { sketch_hll_add_concurrent_u64_batch(buf, len, keys.as_ptr(), keys.len()) }
}
unsafe fn ull_exclusive(buf: *mut c_void, len: usize, keys: &[u64]) -> sketch_status {
    unsafe { sketch_ull_add_u64_batch(buf, len, keys.as_ptr(), keys.len()) }
}
unsafe fn ull_concurrent(buf: *mut c_void, len: usize, keys: &[u64]) -> sketch_status {
    unsafe { sketch_ull_add_concurrent_u64_batch(buf, len, keys.as_ptr(), keys.len()) }
}

fn image(bytes: u64) -> Vec<u64> {
    vec![0; bytes as usize / 8]
}

fn families() -> Vec<Family> {
    let mut out = Vec::new();
    let mut size = 0;
    unsafe {
        let mut p = sketch_bloom_params::default();
        assert_eq!(sketch_bloom_plan(1_000_000, 0.01, &mut p), SKETCH_OK);
        assert_eq!(sketch_bloom_size(&p, &mut size), SKETCH_OK);
        let mut img = image(size);
        assert_eq!(sketch_bloom_init(img.as_mut_ptr().cast(), img.len() * 8, &p, 1), SKETCH_OK);
        out.push(Family {
            name: "Bloom",
            image: img,
            exclusive: bloom_exclusive,
            concurrent: bloom_concurrent,
        });

        let mut p = sketch_sbbf_params::default();
        assert_eq!(sketch_sbbf_plan(1_000_000, 0.01, &mut p), SKETCH_OK);
        assert_eq!(sketch_sbbf_size(&p, &mut size), SKETCH_OK);
        let mut img = image(size);
        assert_eq!(sketch_sbbf_init(img.as_mut_ptr().cast(), img.len() * 8, &p, 1), SKETCH_OK);
        out.push(Family {
            name: "split-block",
            image: img,
            exclusive: sbbf_exclusive,
            concurrent: sbbf_concurrent,
        });

        assert_eq!(sketch_hll_size(14, &mut size), SKETCH_OK);
        let mut img = image(size);
        assert_eq!(sketch_hll_init(img.as_mut_ptr().cast(), img.len() * 8, 14, 1), SKETCH_OK);
        // Concurrent adds need the dense registers (small mode is exclusive).
        assert_eq!(sketch_hll_densify(img.as_mut_ptr().cast(), img.len() * 8), SKETCH_OK);
        out.push(Family {
            name: "HLL p=14",
            image: img,
            exclusive: hll_exclusive,
            concurrent: hll_concurrent,
        });

        assert_eq!(sketch_ull_size(13, &mut size), SKETCH_OK);
        let mut img = image(size);
        assert_eq!(sketch_ull_init(img.as_mut_ptr().cast(), img.len() * 8, 13, 1), SKETCH_OK);
        out.push(Family {
            name: "ULL p=13",
            image: img,
            exclusive: ull_exclusive,
            concurrent: ull_concurrent,
        });
    }
    out
}

/// Seconds for `threads` threads to add `keys` (split evenly) to a copy of
/// `fresh`, best of ROUNDS.
fn best_time(fresh: &[u64], keys: &[u64], add: AddFn, threads: usize) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..ROUNDS {
        let mut img = fresh.to_vec();
        let len = img.len() * 8;
        let addr = img.as_mut_ptr() as usize;
        let start = Instant::now();
        std::thread::scope(|s| {
            for part in keys.chunks(keys.len().div_ceil(threads)) {
                s.spawn(move || {
                    for chunk in part.chunks(CHUNK) {
                        // SAFETY: the image outlives the scope; the concurrent
                        // functions allow simultaneous callers, and the
                        // exclusive ones run with threads == 1 only.
                        let st = unsafe { add(addr as *mut c_void, len, chunk) };
                        assert_eq!(st, SKETCH_OK);
                    }
                });
            }
        });
        best = best.min(start.elapsed().as_secs_f64());
        std::hint::black_box(&img);
    }
    best
}

fn main() {
    // `cargo bench` passes --bench; `cargo test --benches` passes nothing
    // and only needs this to run quickly.
    let quick = !std::env::args().any(|a| a == "--bench");
    let n = if quick { 20_000 } else { KEYS };
    let keys: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5bd1).collect();
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    println!("concurrent adds, {n} u64 keys in batches of {CHUNK}, best of {ROUNDS}, {cores} cores");
    println!(
        "{:<12} {:>14} {:>16} {:>16} {:>12} {:>14}",
        "family", "exclusive 1t", "concurrent 1t", "concurrent 2t", "2t / 1t", "conc / excl"
    );
    for f in families() {
        let rate = |secs: f64| n as f64 / secs / 1e6;
        let exclusive = rate(best_time(&f.image, &keys, f.exclusive, 1));
        let one = rate(best_time(&f.image, &keys, f.concurrent, 1));
        let two = rate(best_time(&f.image, &keys, f.concurrent, 2));
        println!(
            "{:<12} {:>9.1} Mk/s {:>11.1} Mk/s {:>11.1} Mk/s {:>11.2}x {:>13.2}x",
            f.name,
            exclusive,
            one,
            two,
            two / one,
            one / exclusive
        );
    }
}
