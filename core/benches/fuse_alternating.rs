//! Binary fuse builds against xorf's, alternating in one process:
//! `cargo bench -p sketches-core --bench fuse_alternating [-- ROUNDS]`.
//!
//! The criterion rows (`--bench filters -- fuse`) time each library's builds
//! back to back, or each right after the other's, in a process that has run
//! many other benches. Here a fresh process alternates the two builds of
//! 1,000,000 u64 keys (the criterion bench's keys) for ROUNDS rounds (21 by
//! default), each timed alone, and prints the medians and minimums with
//! their ratio (xorf time / ours: above 1.0 means ours is faster), and the
//! median of the per-round ratios (a slow phase of the machine then hits
//! both builds of a round alike; it moved the ratio of medians by up to
//! 0.1 between runs of the same code on the 2-core VM). xorf
//! allocates its arrays in every build: in the first (8-bit) phase the
//! allocator still grows its heap and xorf's builds fault in fresh pages;
//! by the 16-bit phase the heap is warm, as in a long-running process. Ours
//! builds in caller memory. Not part of any test: it only reports.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
use sketches_core::fuse::{self, FuseParams};
use std::hint::black_box;
use std::time::Instant;
use xorf::{BinaryFuse16, BinaryFuse8, Filter};

mod common;
use common::aligned;

const N: usize = 1_000_000;

fn median_and_min(mut ms: Vec<f64>) -> (f64, f64) {
    ms.sort_by(|a, b| a.total_cmp(b));
    (ms[ms.len() / 2], ms[0])
}

fn main() {
    // Criterion passes `--bench`; a number among the arguments is the round count.
    let rounds = std::env::args().skip(1).find_map(|a| a.parse::<usize>().ok()).unwrap_or(21).max(1);
    // SplitMix64, as in the criterion bench.
    let keys = common::u64_keys(&mut 0x00f0_05e5u64, N);
    for bits in [8u8, 16] {
        let params = FuseParams::new(N as u64, bits).unwrap();
        let len = params.image_len().unwrap() as usize;
        let (mut buf, off) = aligned(len as u64);
        let image = &mut buf[off..off + len];
        let mut scratch = vec![0u8; params.scratch_len().unwrap() as usize];
        let (mut ours, mut peer) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            let start = Instant::now();
            let stored = fuse::build_u64s(image, &params, 0, &keys, &mut scratch).unwrap().keys();
            ours.push(start.elapsed().as_secs_f64() * 1e3);
            assert_eq!(stored, N as u64);
            let start = Instant::now();
            let len = if bits == 8 {
                BinaryFuse8::try_from(black_box(&keys[..])).unwrap().len()
            } else {
                BinaryFuse16::try_from(black_box(&keys[..])).unwrap().len()
            };
            peer.push(start.elapsed().as_secs_f64() * 1e3);
            black_box(len);
        }
        let round_ratios = peer.iter().zip(&ours).map(|(p, o)| p / o).collect();
        let (median_round, _) = median_and_min(round_ratios);
        let ((om, omin), (pm, pmin)) = (median_and_min(ours), median_and_min(peer));
        println!(
            "fuse{bits} build of {N} u64 keys, {rounds} alternating rounds (ms): sketches median {om:.1} min {omin:.1}, \
             xorf median {pm:.1} min {pmin:.1}; xorf/sketches {:.2}x (medians) {:.2}x (minimums) \
             {median_round:.2}x (median round)",
            pm / om,
            pmin / omin
        );
    }
}
