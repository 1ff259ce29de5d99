//! Single-key operations against their peers, alternating in one process:
//! `cargo bench -p sketches-core --bench alternating -- [ROUNDS] [GROUP]`.
//!
//! On the shared 2-core VM the machine's speed changes between criterion's
//! benchmark blocks (the same row has moved by 1.5x between runs), so a ratio
//! of two criterion rows carries that swing. Here each round times every
//! contender once, back to back, over the same 1,000,000 keys, and the
//! report is the best round of each with their ratio (peer time / ours:
//! above 1.0 means ours is faster) and the median of the per-round ratios.
//! Slow phases of the machine then hit both sides of a ratio alike.
//! Groups (all by default; a word among the arguments picks one):
//!
//! * `sbbf`: split-block Bloom single-key add and contains (present and
//!   absent keys) against sbbf-rs-safe at the same byte size fed the same
//!   hash function, in native mode (XXH3) and Parquet mode (XXH64 seed 0),
//!   as the criterion bench `filters -- sbbf` sets them up.
//! * `ell`: ExaLogLog (t = 2, d = 20 and d = 24) against our UltraLogLog at
//!   p = 14: single `add_u64` calls (keys hashed inside) and batch adds of
//!   precomputed hashes, with ExaLogLog at the same precision and at the
//!   smallest precision of at most the same error.
//! * `fuse`: binary fuse 8-bit contains of u64 keys (present and absent)
//!   against xorf's BinaryFuse8 built from the same keys.
//!
//! Not part of any test: it only reports.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
use sketches_core::ell::{self, EllConfig};
use sketches_core::fuse::{self, FuseParams};
use sketches_core::sbbf::{self, SbbfParams};
use sketches_core::{hash, ull};
use std::hint::black_box;
use std::time::Instant;
use xorf::{BinaryFuse8, Filter};

mod common;
use common::{aligned, byte_keys, u64_keys};

const N: usize = 1_000_000;

/// Times `op` once, in milliseconds.
fn time(op: impl FnOnce()) -> f64 {
    let start = Instant::now();
    op();
    start.elapsed().as_secs_f64() * 1e3
}

/// Per-contender times of every round, by operation.
struct Rounds {
    names: Vec<&'static str>,
    ours: Vec<Vec<f64>>,
    peer: Vec<Vec<f64>>,
}

impl Rounds {
    fn new(names: &[&'static str]) -> Self {
        Rounds {
            names: names.to_vec(),
            ours: vec![Vec::new(); names.len()],
            peer: vec![Vec::new(); names.len()],
        }
    }

    fn record(&mut self, op: usize, ours: f64, peer: f64) {
        self.ours[op].push(ours);
        self.peer[op].push(peer);
    }

    fn report(&self, what: &str, peer: &str) {
        for (i, name) in self.names.iter().enumerate() {
            let best = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
            let (o, p) = (best(&self.ours[i]), best(&self.peer[i]));
            let mut ratios: Vec<f64> = self.peer[i].iter().zip(&self.ours[i]).map(|(p, o)| p / o).collect();
            ratios.sort_by(|a, b| a.total_cmp(b));
            println!(
                "{what} {name}: best of {} rounds (ms per 1M) sketches {o:.2}, {peer} {p:.2}; \
                 {peer}/sketches {:.3}x (bests), {:.3}x (median round)",
                ratios.len(),
                p / o,
                ratios[ratios.len() / 2]
            );
        }
    }
}

fn sbbf(rounds: usize) {
    let present = byte_keys(3, N);
    let absent = byte_keys(4, N);
    type Mode = (&'static str, SbbfParams, fn(&[u8]) -> u64);
    let modes: [Mode; 2] = [
        ("native", SbbfParams::for_items(N as u64, 0.01).unwrap(), |k| hash::hash_bytes(k, 0)),
        ("parquet", SbbfParams::for_parquet(N as u64, 0.01).unwrap(), |k| hash::xxh64(k, 0)),
    ];
    for (mode, params, peer_hash) in modes {
        let len = params.image_len().unwrap() as usize;
        let (mut buf, off) = aligned(len as u64);
        let image = &mut buf[off..off + len];
        let mut peer = sbbf_rs_safe::Filter::new(8, params.blocks as usize * sbbf::BLOCK_BYTES);
        let mut r = Rounds::new(&["add", "contains present", "contains absent"]);
        for _ in 0..rounds {
            let ours = time(|| {
                let mut f = sbbf::init(image, &params, 0).unwrap();
                for k in &present {
                    f.add(black_box(k));
                }
            });
            let theirs = time(|| {
                peer.reset();
                for k in &present {
                    peer.insert_hash(peer_hash(black_box(k)));
                }
            });
            r.record(0, ours, theirs);
            let view = sbbf::wrap(image).unwrap();
            if mode == "parquet" {
                assert!(view.body() == peer.as_bytes(), "sbbf-rs-safe and Parquet mode disagree");
            }
            for (op, set) in [(1, &present), (2, &absent)] {
                let ours = time(|| {
                    black_box(set.iter().filter(|k| view.contains(black_box(*k))).count());
                });
                let theirs = time(|| {
                    black_box(set.iter().filter(|k| peer.contains_hash(peer_hash(black_box(*k)))).count());
                });
                r.record(op, ours, theirs);
            }
        }
        r.report(&format!("sbbf {mode}"), "sbbf-rs-safe");
    }
}

fn ell(rounds: usize) {
    let hashes: Vec<u64> = (0..N as u64).map(|k| hash::hash_u64(k, 0)).collect();
    let p = 14;
    let ull_len = ull::image_len(p).unwrap();
    let (mut ull_buf, ull_off) = aligned(ull_len);
    let ull_image = &mut ull_buf[ull_off..ull_off + ull_len as usize];
    for config in [EllConfig::T2D20, EllConfig::T2D24] {
        // The same precision, and the same error: the smallest precision
        // whose maximum-likelihood standard error is at most the ULL's (the
        // memory ExaLogLog saves, and the size a user would pick).
        let target = ull::ml_standard_error(p);
        let same_error =
            (ell::MIN_PRECISION..=p).find(|q| ell::ml_standard_error(config, *q) <= target).unwrap_or(p);
        for ell_p in [p, same_error] {
            let len = ell::image_len(config, ell_p).unwrap();
            let (mut buf, off) = aligned(len);
            let image = &mut buf[off..off + len as usize];
            let mut r = Rounds::new(&["add_u64 (keys hashed inside)", "add_hashes (precomputed)"]);
            for _ in 0..rounds {
                let ours = time(|| {
                    let mut s = ell::init(image, config, ell_p, 0).unwrap();
                    (0..N as u64).for_each(|k| {
                        s.add_u64(black_box(k));
                    });
                });
                let theirs = time(|| {
                    let mut s = ull::init(ull_image, p, 0).unwrap();
                    (0..N as u64).for_each(|k| {
                        s.add_u64(black_box(k));
                    });
                });
                r.record(0, ours, theirs);
                let ours =
                    time(|| ell::init(image, config, ell_p, 0).unwrap().add_hashes(black_box(&hashes)));
                let theirs = time(|| ull::init(ull_image, p, 0).unwrap().add_hashes(black_box(&hashes)));
                r.record(1, ours, theirs);
            }
            let what = format!(
                "ell {config:?} p={ell_p} ({} register bytes, ML error {:.5}) vs ull p={p} ({} bytes, {target:.5})",
                len - ell::HEADER_LEN as u64,
                ell::ml_standard_error(config, ell_p),
                ull_len - ull::HEADER_LEN as u64,
            );
            r.report(&what, "ull");
        }
    }
}

fn fuse_contains(rounds: usize) {
    let mut state = 0x00f0_05e5u64;
    let present = u64_keys(&mut state, N);
    let absent = u64_keys(&mut state, N);
    let params = FuseParams::new(N as u64, 8).unwrap();
    let len = params.image_len().unwrap() as usize;
    let (mut buf, off) = aligned(len as u64);
    let image = &mut buf[off..off + len];
    let mut scratch = vec![0u8; params.scratch_len().unwrap() as usize];
    fuse::build_u64s(image, &params, 0, &present, &mut scratch).unwrap();
    let view = fuse::wrap(image).unwrap();
    let peer = BinaryFuse8::try_from(&present[..]).unwrap();
    let mut r = Rounds::new(&["contains_u64 present", "contains_u64 absent"]);
    for _ in 0..rounds {
        for (op, set) in [(0, &present), (1, &absent)] {
            let ours = time(|| {
                black_box(set.iter().filter(|k| view.contains_u64(black_box(**k))).count());
            });
            let theirs = time(|| {
                black_box(set.iter().filter(|k| peer.contains(black_box(*k))).count());
            });
            r.record(op, ours, theirs);
        }
    }
    r.report("fuse8", "xorf");
}

fn main() {
    // Criterion passes `--bench`; a number is the round count, a word a group.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds = args.iter().find_map(|a| a.parse::<usize>().ok()).unwrap_or(15).max(1);
    let only = args.iter().find(|a| ["sbbf", "ell", "fuse"].contains(&a.as_str()));
    let run = |group: &str| only.is_none_or(|o| o == group);
    if run("sbbf") {
        sbbf(rounds);
    }
    if run("ell") {
        ell(rounds);
    }
    if run("fuse") {
        fuse_contains(rounds);
    }
}
