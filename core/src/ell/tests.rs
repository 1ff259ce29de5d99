use super::*;
use crate::test_util::{bias_bound, rmse_bound_factor, trajectories, Simulated, SplitMix64};
use crate::test_util::{
    check_corruption, check_merge_laws, fuzz_images, log_checkpoints, reseal, AlignedBuf,
};
extern crate std;
use std::vec::Vec;

const CONFIGS: [EllConfig; 2] = [EllConfig::T2D20, EllConfig::T2D24];

fn fresh(config: EllConfig, p: u8, seed: u64) -> AlignedBuf {
    let mut buf = AlignedBuf::new(image_len(config, p).unwrap() as usize);
    init(buf.as_mut(), config, p, seed).unwrap();
    buf
}

fn random_hashes(n: usize, seed: u64) -> Vec<u64> {
    let mut rng = SplitMix64(seed);
    (0..n).map(|_| rng.next_u64()).collect()
}

fn regs(buf: &[u8]) -> Vec<u32> {
    let v = wrap(buf).unwrap();
    (0..v.registers()).map(|i| v.register(i)).collect()
}

fn layout(config: EllConfig, p: u8) -> EllLayout {
    EllLayout { config, p }
}

/// Reference model from the definition: per register, the set of update
/// values seen (value 0 counts as seen).
fn reference_registers(hashes: &[u64], config: EllConfig, p: u8) -> Vec<u32> {
    let (t, d) = (u32::from(config.t()), u32::from(config.d()));
    let mut seen = std::vec![[0u128; 2]; 1 << p];
    for h in hashes {
        let index = ((h >> t) & ((1 << p) - 1)) as usize;
        let nlz = (h | ((1u64 << (u32::from(p) + t)) - 1)).leading_zeros();
        let k = (nlz << t) + (h & 3) as u32 + 1;
        seen[index][(k / 128) as usize] |= 1u128 << (k % 128);
    }
    let has = |s: &[u128; 2], v: u32| v == 0 || s[(v / 128) as usize] & (1u128 << (v % 128)) != 0;
    seen.iter()
        .map(|s| {
            let u = if s[1] != 0 {
                255 - s[1].leading_zeros()
            } else {
                127u32.saturating_sub(s[0].leading_zeros())
            };
            if s[0] == 0 && s[1] == 0 {
                return 0;
            }
            let mut r = u << d;
            for j in 1..=d.min(u) {
                if has(s, u - j) {
                    r |= 1 << (d - j);
                }
            }
            r
        })
        .collect()
}

#[test]
fn sizes_and_constants() {
    assert_eq!(image_len(EllConfig::T2D20, 10).unwrap(), 128 + 3584);
    assert_eq!(image_len(EllConfig::T2D24, 10).unwrap(), 128 + 4096);
    assert_eq!(image_len(EllConfig::T2D20, 2).unwrap(), 192);
    assert_eq!(image_len(EllConfig::T2D20, 1), Err(Error::InvalidParameter));
    assert_eq!(image_len(EllConfig::T2D20, 25), Err(Error::InvalidParameter));
    for p in MIN_PRECISION..=MAX_PRECISION {
        for c in CONFIGS {
            assert_eq!(image_len(c, p).unwrap() % 64, 0);
        }
    }
    // The error constants from their closed forms (Hurwitz zeta by
    // Euler-Maclaurin), and the MVPs the paper reports.
    for (c, mvp_ml) in [(EllConfig::T2D20, 3.67), (EllConfig::T2D24, 3.78)] {
        let b = 2f64.powf(0.25);
        let x = b.powi(-i32::from(c.d())) / (b - 1.0);
        let a = 1.0 + x;
        let n = 1000;
        let mut zeta: f64 = (0..n).map(|k| 1.0 / (a + k as f64).powi(2)).sum();
        let z = a + n as f64;
        zeta += 1.0 / z + 1.0 / (2.0 * z * z) + 1.0 / (6.0 * z * z * z);
        let ml = (b.ln() / zeta).sqrt();
        let mart = (b.ln() / 2.0 * (1.0 + x)).sqrt();
        assert!((ml - c.ml_error_constant()).abs() < 1e-9, "{ml}");
        assert!((mart - c.martingale_error_constant()).abs() < 1e-12, "{mart}");
        let mvp = f64::from(c.register_bits()) * ml * ml;
        assert!((mvp - mvp_ml).abs() < 0.01, "{mvp}");
    }
}

#[test]
fn registers_follow_the_reference_model() {
    for config in CONFIGS {
        for p in [2u8, 4, 9, 14, 24] {
            let n = if p == 24 { 3000 } else { 40_000 };
            let mut hashes = random_hashes(n, u64::from(p));
            // Hashes with long runs of leading zeros reach the top levels.
            hashes.extend(random_hashes(500, 7).iter().enumerate().map(|(j, h)| h >> (j % 64)));
            let mut buf = fresh(config, p, 0);
            let mut s = wrap_mut(buf.as_mut()).unwrap();
            for h in &hashes {
                s.add_hash(*h);
                assert!(!s.add_hash(*h), "adding a hash twice changes nothing");
            }
            if p == 24 {
                // Only check the registers touched (2^24 of them otherwise).
                let reference = reference_registers(&hashes, config, p);
                let view = wrap(buf.as_ref()).unwrap();
                for h in &hashes {
                    let i = ((h >> 2) & ((1 << 24) - 1)) as usize;
                    assert_eq!(view.register(i), reference[i]);
                }
                continue;
            }
            let got = regs(buf.as_ref());
            assert_eq!(got, reference_registers(&hashes, config, p), "{config:?} p={p}");
            assert!(got.iter().all(|r| is_legal_register(*r, config, p)));
        }
    }
}

#[test]
fn change_weights_match_the_update_rule() {
    for config in CONFIGS {
        for p in [2u8, 10, 24] {
            let l = layout(config, p);
            let (t, d, w) = (l.t(), l.d(), l.w());
            let rho = |k: u32| 1u128 << (63 - t - ((k - 1) >> t).min(w - 1));
            let mut rng = SplitMix64(u64::from(p));
            let mut samples: Vec<u32> = std::vec![0];
            for _ in 0..3000 {
                let u = 1 + (rng.next_u64() % u64::from(l.max_value())) as u32;
                let mut r = (u << d) | (rng.next_u64() as u32 & ((1 << d) - 1));
                if u <= d {
                    r = (r & !((2 << (d - u)) - 1)) | (1 << (d - u));
                }
                assert!(is_legal_register(r, config, p));
                samples.push(r);
            }
            for r in samples {
                let expected: u128 = (1..=l.max_value()).filter(|k| updated(r, *k, d) != r).map(rho).sum();
                assert_eq!(register_stats(r, l, |_, _| {}), expected, "{config:?} p={p} r={r:#x}");
                // Seen values: the top one and the set history bits of values >= 1.
                let u = r >> d;
                let expected_seen = if u == 0 {
                    0
                } else {
                    1 + (1..=d.min(u - 1)).filter(|j| r & (1 << (d - j)) != 0).count() as u32
                };
                let mut seen = 0;
                register_stats(r, l, |_, c| seen += c);
                assert_eq!(seen, expected_seen);
            }
            assert_eq!(
                (0..=l.max_value()).map(|k| if k == 0 { 0 } else { rho(k) }).sum::<u128>(),
                1u128 << 64
            );
        }
    }
}

/// `updated` (branch-free) against the definition on sets: the values a
/// register knows it has seen (its top value `u`, value 0 when `u <= d`, and
/// `u - j` for each set history bit `d - j`), plus `k`, encoded again. Every
/// update value, on legal registers with every distance between `u` and `k`
/// (shifts of 32 and more included).
#[test]
fn updated_encodes_the_union_of_seen_values() {
    for config in CONFIGS {
        let l = layout(config, 14);
        let d = l.d();
        let encode = |seen: &dyn Fn(u32) -> bool, u: u32| {
            let mut r = u << d;
            for j in 1..=d.min(u) {
                if seen(u - j) {
                    r |= 1 << (d - j);
                }
            }
            r
        };
        let mut rng = SplitMix64(0x5e7);
        let mut samples: Vec<u32> = std::vec![0];
        for u in 1..=l.max_value() {
            for _ in 0..8 {
                let mut r = (u << d) | (rng.next_u64() as u32 & ((1 << d) - 1));
                if u <= d {
                    r = (r & !((2 << (d - u)) - 1)) | (1 << (d - u));
                }
                samples.push(r);
            }
        }
        for r in samples {
            assert!(is_legal_register(r, config, 14));
            let u = r >> d;
            let known = |v: u32| v == u || v == 0 || (v < u && u - v <= d && r & (1 << (d - (u - v))) != 0);
            for k in 1..=l.max_value() {
                let expected = encode(&|v| v == k || known(v), u.max(k));
                assert_eq!(updated(r, k, d), expected, "{config:?} r={r:#x} k={k}");
            }
        }
    }
}

/// `changes` (the single add's early test) says exactly when `updated`
/// changes a register: for every update value, on every register word of
/// both widths that random draws and the edge values give (legal or not:
/// a damaged image through a token must not make the two disagree either).
#[test]
fn changes_agrees_with_updated() {
    let mut rng = SplitMix64(0xc4a6);
    for config in CONFIGS {
        let l = layout(config, 14);
        let d = l.d();
        let width_mask = u32::MAX >> (32 - (6 + l.t() + d));
        let mut words: Vec<u32> = std::vec![0, 1, (1 << d) - 1, 1 << d, width_mask, width_mask - 1];
        for u in 0..=(width_mask >> d) {
            words.push(u << d);
            words.push((u << d) | ((1 << d) - 1));
            for _ in 0..4 {
                words.push((u << d) | (rng.next_u64() as u32 & ((1 << d) - 1)));
            }
        }
        for r in words {
            for k in 1..=l.max_value() {
                assert_eq!(changes(r, k, d), updated(r, k, d) != r, "{config:?} r={r:#x} k={k}");
            }
        }
    }
}

#[test]
fn illegal_register_values_are_recognized() {
    let c = EllConfig::T2D20;
    assert!(is_legal_register(0, c, 10));
    assert!(!is_legal_register(1, c, 10), "history without a value");
    assert!(is_legal_register((3 << 20) | (1 << 17), c, 10));
    assert!(!is_legal_register(3 << 20, c, 10), "value 0 always counts as seen");
    assert!(!is_legal_register((3 << 20) | (1 << 17) | 1, c, 10), "a value below 0");
    let max = layout(c, 10).max_value();
    assert!(is_legal_register(max << 20, c, 10));
    assert!(!is_legal_register((max + 1) << 20, c, 10));
}

#[test]
fn keys_hash_with_the_image_seed() {
    for config in CONFIGS {
        let mut a = fresh(config, 12, 7);
        let mut b = fresh(config, 12, 7);
        let mut sa = wrap_mut(a.as_mut()).unwrap();
        let mut sb = wrap_mut(b.as_mut()).unwrap();
        for i in 0..5000u64 {
            sa.add_u64(i);
            sb.add_hash(hash::hash_u64(i, 7));
        }
        sa.add(b"k");
        sb.add_hash(hash::hash_bytes(b"k", 7));
        assert_eq!(a.as_ref(), b.as_ref());
        let view = wrap(a.as_ref()).unwrap();
        for e in [view.estimate(), view.ml_estimate()] {
            assert!((e - 5001.0).abs() / 5001.0 < 0.03, "{e}");
        }
        let empty = fresh(config, 12, 0);
        let e = wrap(empty.as_ref()).unwrap();
        assert_eq!((e.estimate(), e.ml_estimate(), e.change_probability()), (0.0, 0.0, 1.0));
    }
}

#[test]
fn merging_disjoint_parts_gives_the_registers_of_the_whole_at_any_reduction() {
    let mut hashes = random_hashes(60_000, 5);
    hashes.extend(random_hashes(2000, 6).iter().enumerate().map(|(j, h)| h >> (20 + j % 44)));
    let cases = [
        (EllConfig::T2D20, 12u8, EllConfig::T2D20, 12u8),
        (EllConfig::T2D24, 12, EllConfig::T2D24, 12),
        (EllConfig::T2D24, 12, EllConfig::T2D20, 12),
        (EllConfig::T2D20, 14, EllConfig::T2D20, 12),
        (EllConfig::T2D24, 18, EllConfig::T2D20, 10),
        (EllConfig::T2D24, 8, EllConfig::T2D24, 2),
    ];
    for (from_c, from_p, to_c, to_p) in cases {
        let mut a = fresh(to_c, to_p, 1);
        let mut b = fresh(from_c, from_p, 1);
        let mut whole = fresh(to_c, to_p, 1);
        wrap_mut(a.as_mut()).unwrap().add_hashes(&hashes[..25_000]);
        wrap_mut(b.as_mut()).unwrap().add_hashes(&hashes[25_000..]);
        wrap_mut(whole.as_mut()).unwrap().add_hashes(&hashes);
        wrap_mut(a.as_mut()).unwrap().merge(&wrap(b.as_ref()).unwrap()).unwrap();
        assert_eq!(regs(a.as_ref()), regs(whole.as_ref()), "{from_c:?}/{from_p} -> {to_c:?}/{to_p}");
        let merged = wrap(a.as_ref()).unwrap();
        assert!(!merged.martingale_valid() && merged.martingale_estimate().is_none());
        // The other direction is refused and changes nothing.
        if (from_c, from_p) != (to_c, to_p) {
            let before = b.as_ref().to_vec();
            let err = wrap_mut(b.as_mut()).unwrap().merge(&wrap(whole.as_ref()).unwrap());
            assert_eq!(err, Err(Error::Incompatible));
            assert_eq!(b.as_ref(), &before[..]);
        }
    }
    let mut a = fresh(EllConfig::T2D20, 12, 1);
    let other_seed = fresh(EllConfig::T2D20, 12, 2);
    assert_eq!(
        wrap_mut(a.as_mut()).unwrap().merge(&wrap(other_seed.as_ref()).unwrap()),
        Err(Error::Incompatible)
    );
}

#[test]
fn merge_is_commutative_associative_idempotent() {
    for config in CONFIGS {
        for sizes in [[10usize, 20, 30], [3000, 20_000, 100]] {
            let bufs: Vec<AlignedBuf> = sizes
                .iter()
                .enumerate()
                .map(|(j, n)| {
                    let mut b = fresh(config, 9, 0);
                    wrap_mut(b.as_mut()).unwrap().add_hashes(&random_hashes(*n, j as u64 + 40));
                    b
                })
                .collect();
            let merge =
                |dst: &mut [u8], src: &[u8]| wrap_mut(dst).unwrap().merge(&wrap(src).unwrap()).unwrap();
            check_merge_laws(bufs[0].as_ref(), bufs[1].as_ref(), bufs[2].as_ref(), &merge, |b| {
                regs(b).iter().flat_map(|r| r.to_le_bytes()).collect()
            });
        }
    }
}

/// A register a sketch with history width `d` can hold: top value `u` at
/// bit `d` and above, history bits only for values `u - d ..= u - 1` that
/// exist (values of at least 1); `u = 0` is the empty register.
fn legal_register(rng: &mut SplitMix64, d: u32, max_top: u64) -> u32 {
    let u = (rng.next_u64() % (max_top + 1)) as u32;
    if u == 0 {
        return 0;
    }
    let mut r = (u << d) | (rng.next_u64() as u32 & ((1 << d) - 1));
    if u <= d {
        r = (r & !((2 << (d - u)) - 1)) | (1 << (d - u));
    }
    r
}

/// The register merge as first written (branches on which top value is
/// higher), the reference for the branch-free [`merge_register`].
fn merge_register_reference(a: u32, b: u32, d: u32) -> u32 {
    let (ua, ub) = (a >> d, b >> d);
    let below = |hi: u32, lo: u32, delta: u32| {
        let shifted = if delta < 32 { ((lo & ((1 << d) - 1)) | (1 << d)) >> delta } else { 0 };
        hi | shifted
    };
    if ua > ub && ub > 0 {
        below(a, b, ua - ub)
    } else if ub > ua && ua > 0 {
        below(b, a, ub - ua)
    } else {
        a | b
    }
}

#[test]
fn branch_free_merge_equals_the_reference() {
    // 28-bit registers (d = 20) have 8-bit top values, 32-bit ones (d = 24)
    // 8-bit ones too: every pair of top values, with random history bits,
    // and the rises past 31 (the shift then moves everything out).
    for (d, max_top) in [(20u32, 255u64), (24, 255)] {
        let mut rng = SplitMix64(u64::from(d));
        for _ in 0..200_000 {
            let (a, b) = (legal_register(&mut rng, d, max_top), legal_register(&mut rng, d, max_top));
            assert_eq!(merge_register(a, b, d), merge_register_reference(a, b, d), "d={d} a={a:#x} b={b:#x}");
            assert_eq!(merge_register(a, a, d), a);
            assert_eq!(merge_register(a, 0, d), a);
        }
        for ua in 0..=max_top as u32 {
            for ub in 0..=max_top as u32 {
                let (a, b) = (ua << d | (ua.min(1) * 0x5), ub << d | (ub.min(1) * 0x3));
                assert_eq!(
                    merge_register(a, b, d),
                    merge_register_reference(a, b, d),
                    "d={d} ua={ua} ub={ub}"
                );
            }
        }
    }
}

#[test]
fn vector_merge_matches_the_register_formula() {
    let mut rng = SplitMix64(3);
    // 32-bit registers (d = 24).
    let d = 24;
    let a: Vec<u32> = (0..4099).map(|_| legal_register(&mut rng, d, 199)).collect();
    let b: Vec<u32> =
        (0..4099).map(|i| if i % 7 == 0 { a[i] } else { legal_register(&mut rng, d, 199) }).collect();
    let bytes = |v: &[u32]| v.iter().flat_map(|r| r.to_le_bytes()).collect::<Vec<u8>>();
    let mut dst = bytes(&a);
    crate::simd::ell32_merge(&mut dst, &bytes(&b), d);
    let expected: Vec<u8> =
        bytes(&a.iter().zip(&b).map(|(x, y)| merge_register_reference(*x, *y, d)).collect::<Vec<_>>());
    assert_eq!(dst, expected);
    // 28-bit registers (d = 20), two per 7 bytes: register counts around
    // the kernel's groups of 16 (whole groups, a partial group, none).
    let d = 20;
    let packed = |v: &[u32]| {
        v.chunks(2)
            .flat_map(|p| {
                let x = u64::from(p[0]) | (u64::from(p[1]) << 28);
                x.to_le_bytes().into_iter().take(7)
            })
            .collect::<Vec<u8>>()
    };
    for count in [0usize, 2, 14, 16, 18, 32, 34, 4098, 16_384] {
        let a: Vec<u32> = (0..count).map(|_| legal_register(&mut rng, d, 255)).collect();
        let b: Vec<u32> =
            (0..count).map(|i| if i % 5 == 0 { a[i] } else { legal_register(&mut rng, d, 255) }).collect();
        let expected: Vec<u32> = a.iter().zip(&b).map(|(x, y)| merge_register_reference(*x, *y, d)).collect();
        let mut dst = packed(&a);
        crate::simd::ell28_merge(&mut dst, &packed(&b), d);
        assert_eq!(dst, packed(&expected), "{count} registers");
        // The portable kernel (no AVX2) gives the same bytes.
        let mut dst = packed(&a);
        super::kernels::merge28(&mut dst, &packed(&b), d);
        assert_eq!(dst, packed(&expected), "{count} registers, portable");
    }
}

fn export_vec(buf: &[u8]) -> Vec<u8> {
    let mut out = std::vec![0u8; buf.len()];
    export(buf, &mut out).unwrap();
    out
}

fn exercise(bytes: &mut [u8]) {
    let copy = AlignedBuf::from_bytes(bytes);
    let mut dst = AlignedBuf::new(bytes.len());
    let _ = import(bytes, dst.as_mut());
    let _ = verify(bytes);
    let mut out = std::vec![0u8; bytes.len()];
    let _ = export(bytes, &mut out);
    if let Ok(mut s) = wrap_mut(bytes) {
        s.add_hashes(&random_hashes(64, 3));
        s.add(b"key");
        if let Ok(other) = wrap(copy.as_ref()) {
            let _ = s.merge(&other);
        }
        let v = s.as_ref();
        let _ = (v.stats(), v.ml_estimate(), v.change_probability(), v.register(1 << 30));
        s.reset();
    }
}

#[test]
fn corrupted_images_are_rejected() {
    for config in CONFIGS {
        let mut buf = fresh(config, 6, 0);
        wrap_mut(buf.as_mut()).unwrap().add_hashes(&random_hashes(500, 6));
        let exported = export_vec(buf.as_ref());
        verify(&exported).unwrap();
        check_corruption(&exported, HEADER_LEN, 500, import, verify, exercise);
        fuzz_images(buf.as_ref(), HEADER_LEN, 5000, exercise);
    }
}

#[test]
fn hostile_resealed_bodies_are_refused() {
    for config in CONFIGS {
        let p = 5;
        let mut buf = fresh(config, p, 0);
        wrap_mut(buf.as_mut()).unwrap().add_hashes(&random_hashes(3000, 1));
        let good = export_vec(buf.as_ref());
        let l = layout(config, p);
        let d = l.d();
        let set =
            |bytes: &mut Vec<u8>, i: usize, r: u32| set_register(&mut bytes[HEADER_LEN..], l.width(), i, r);
        for bad_register in [1u32, 3 << d, ((l.max_value() + 1) << d), (2 << d) | (1 << (d - 2)) | 1] {
            let mut bad = good.clone();
            set(&mut bad, 3, bad_register);
            reseal(&mut bad);
            assert_eq!(verify(&bad), Err(Error::CorruptBody), "{bad_register:#x}");
            let mut live = AlignedBuf::from_bytes(&bad);
            exercise(live.as_mut());
        }
        // A legal register change without the matching martingale sum.
        let mut bad = good.clone();
        set(&mut bad, 3, 0);
        reseal(&mut bad);
        assert_eq!(verify(&bad), Err(Error::CorruptBody));
        // The same change after a merge (no martingale state): accepted.
        let mut merged = buf.as_ref().to_vec();
        {
            let mut m = AlignedBuf::from_bytes(&merged);
            let other = fresh(config, p, 0);
            wrap_mut(m.as_mut()).unwrap().merge(&wrap(other.as_ref()).unwrap()).unwrap();
            merged = export_vec(m.as_ref());
        }
        set(&mut merged, 3, 0);
        reseal(&mut merged);
        assert_eq!(verify(&merged), Ok(()));
        // Martingale fields: negative estimate, flag 2, a stale sum.
        for (off, bytes) in
            [(OFF_MARTINGALE, (-1.0f64).to_le_bytes().to_vec()), (OFF_CHANGE_WEIGHT, std::vec![1u8])]
        {
            let mut bad = good.clone();
            bad[off..off + bytes.len()].copy_from_slice(&bytes);
            reseal(&mut bad);
            assert_eq!(verify(&bad), Err(Error::CorruptBody), "field at {off}");
        }
        let mut bad = good.clone();
        bad[OFF_MARTINGALE_VALID] = 2;
        reseal(&mut bad);
        assert_eq!(verify(&bad), Err(Error::CorruptHeader));
        // Padding (p = 2 has 50 bytes of it).
        let small = fresh(config, 2, 0);
        let mut bad = export_vec(small.as_ref());
        let last = bad.len() - 1;
        bad[last] = 1;
        reseal(&mut bad);
        assert_eq!(verify(&bad), Err(Error::CorruptBody));
    }
}

#[test]
fn extreme_registers_estimate_without_panicking() {
    for config in CONFIGS {
        let l = layout(config, 6);
        let mut buf = fresh(config, 6, 0);
        let full = (l.max_value() << l.d()) | ((1 << l.d()) - 1);
        for i in 0..64 {
            set_register(&mut buf.as_mut()[HEADER_LEN..], l.width(), i, full);
        }
        assert_eq!(wrap(buf.as_ref()).unwrap().ml_estimate(), f64::INFINITY);
        set_register(&mut buf.as_mut()[HEADER_LEN..], l.width(), 5, full - 1);
        let e = wrap(buf.as_ref()).unwrap().ml_estimate();
        assert!(e.is_finite() && e > 1e17, "{e}");
    }
}

// ---- statistical accuracy -------------------------------------------------

/// Per checkpoint, sums of relative errors and their squares, for the ML
/// (index 0) and martingale (index 1) estimates of the same streams.
struct Errors {
    sum: [Vec<f64>; 2],
    sum_sq: [Vec<f64>; 2],
    trials: u64,
}

impl Errors {
    fn new(len: usize) -> Self {
        Errors {
            sum: [std::vec![0.0; len], std::vec![0.0; len]],
            sum_sq: [std::vec![0.0; len], std::vec![0.0; len]],
            trials: 0,
        }
    }
    fn record(&mut self, j: usize, n: u64, view: &Ell<'_>) {
        for (e, estimate) in [view.ml_estimate(), view.martingale_estimate().unwrap()].into_iter().enumerate()
        {
            let err = (estimate - n as f64) / n as f64;
            self.sum[e][j] += err;
            self.sum_sq[e][j] += err * err;
        }
    }
    fn bias(&self, e: usize, j: usize) -> f64 {
        self.sum[e][j] / self.trials as f64
    }
    fn rmse(&self, e: usize, j: usize) -> f64 {
        (self.sum_sq[e][j] / self.trials as f64).sqrt()
    }
}

/// A Fenwick tree of register change probabilities.
struct Fenwick(Vec<f64>);

impl Fenwick {
    fn add(&mut self, mut i: usize, delta: f64) {
        i += 1;
        while i < self.0.len() {
            self.0[i] += delta;
            i += i & i.wrapping_neg();
        }
    }
    /// The index whose prefix range contains `target`.
    fn find(&self, mut target: f64) -> usize {
        let (mut pos, mut step) = (0usize, (self.0.len() - 1).next_power_of_two());
        while step > 0 {
            if pos + step < self.0.len() && self.0[pos + step] <= target {
                pos += step;
                target -= self.0[pos];
            }
            step >>= 1;
        }
        pos
    }
}

fn uniform(rng: &mut SplitMix64) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// One stream of distinct random hashes to the last checkpoint, simulated
/// exactly but cheaply: hashes are added one by one up to `direct_until`;
/// from then on only hashes that change a register are generated (the
/// number of state-preserving hashes in between is geometric with the
/// exact change probability), so 10^9 costs about as much as the number of
/// register changes.
fn trajectory(
    buf: &mut AlignedBuf,
    checkpoints: &[u64],
    direct_until: u64,
    rng: &mut SplitMix64,
    errors: &mut Errors,
) {
    wrap_mut(buf.as_mut()).unwrap().reset();
    let last = *checkpoints.last().unwrap();
    let l = wrap(buf.as_ref()).unwrap().layout;
    let (t, d, w, p) = (l.t(), l.d(), l.w(), u32::from(l.p));
    let (mut n, mut next) = (0u64, 0usize);
    while n < last && n < direct_until {
        wrap_mut(buf.as_mut()).unwrap().add_hash(rng.next_u64());
        n += 1;
        while next < checkpoints.len() && checkpoints[next] == n {
            errors.record(next, n, &wrap(buf.as_ref()).unwrap());
            next += 1;
        }
    }
    if n >= last {
        return;
    }
    let m = l.registers();
    let mass = |r: u32| register_stats(r, l, |_, _| {}) as f64 / TWO_POW_64;
    let mut tree = Fenwick(std::vec![0.0; m + 1]);
    let mut current: Vec<f64> = (0..m).map(|i| mass(wrap(buf.as_ref()).unwrap().register(i))).collect();
    for (i, x) in current.iter().enumerate() {
        tree.add(i, *x);
    }
    let mut total: f64 = current.iter().sum();
    let mut changes = 0u64;
    while n < last {
        let p_change = total / m as f64;
        let u = uniform(rng);
        let skip = if p_change >= 1.0 { 0.0 } else { ((1.0 - u).ln() / (-p_change).ln_1p()).floor() };
        let changed_at = if skip >= (last - n) as f64 { last + 1 } else { n + skip as u64 + 1 };
        while next < checkpoints.len() && checkpoints[next] < changed_at {
            errors.record(next, checkpoints[next], &wrap(buf.as_ref()).unwrap());
            next += 1;
        }
        if changed_at > last {
            break;
        }
        n = changed_at;
        let i = tree.find(uniform(rng) * total).min(m - 1);
        let r = wrap(buf.as_ref()).unwrap().register(i);
        // The changing update value, by probability.
        let rho = |k: u32| libm::ldexp(1.0, -((t + 1 + ((k - 1) >> t).min(w - 1)) as i32));
        let mut target = uniform(rng) * current[i];
        let mut k = l.max_value();
        for candidate in 1..=l.max_value() {
            if updated(r, candidate, d) != r {
                k = candidate;
                if target < rho(candidate) {
                    break;
                }
                target -= rho(candidate);
            }
        }
        // A hash of register i with update value k.
        let (nlz, sub) = ((k - 1) >> t, u64::from((k - 1) & ((1 << t) - 1)));
        let top = if nlz >= w {
            0
        } else {
            let low = 63 - nlz; // the first one bit
            (1u64 << low) | (rng.next_u64() & ((1u64 << low) - 1) & !((1u64 << (p + t)) - 1))
        };
        let hash = top | ((i as u64) << t) | sub;
        assert!(
            wrap_mut(buf.as_mut()).unwrap().add_hash(hash),
            "register {i} {r:#x} with k = {k} did not change"
        );
        let fresh_mass = mass(wrap(buf.as_ref()).unwrap().register(i));
        tree.add(i, fresh_mass - current[i]);
        total += fresh_mass - current[i];
        current[i] = fresh_mass;
        changes += 1;
        if changes.is_multiple_of(4096) {
            total = current.iter().sum();
        }
        while next < checkpoints.len() && checkpoints[next] == n {
            errors.record(next, n, &wrap(buf.as_ref()).unwrap());
            next += 1;
        }
    }
}

/// `trials` trajectories on two threads.
fn simulate(
    config: EllConfig,
    p: u8,
    checkpoints: &[u64],
    trials: u64,
    seed: u64,
    direct_until: u64,
) -> Errors {
    let run = |first: u64| {
        let mut errors = Errors::new(checkpoints.len());
        let mut buf = fresh(config, p, 0);
        let mut trial = first;
        while trial < trials {
            let mut rng = SplitMix64(crate::hash::remix(crate::hash::remix(seed) ^ trial));
            trajectory(&mut buf, checkpoints, direct_until, &mut rng, &mut errors);
            errors.trials += 1;
            trial += 2;
        }
        errors
    };
    let (mut a, b) = std::thread::scope(|s| {
        let h = s.spawn(|| run(1));
        (run(0), h.join().unwrap())
    });
    for e in 0..2 {
        for j in 0..checkpoints.len() {
            a.sum[e][j] += b.sum[e][j];
            a.sum_sq[e][j] += b.sum_sq[e][j];
        }
    }
    a.trials += b.trials;
    a
}

/// Checks both estimators at every checkpoint: RMSE within 1.10 x the
/// paper's constant / sqrt(m), |bias| within 0.2%. Small counts (< 1000,
/// where errors are tiny and need more trials to measure) get 20 x the
/// trials. Returns the checkpoints and the rmse of both estimators.
fn check_accuracy(config: EllConfig, p: u8, trials: u64) -> (Vec<u64>, [Vec<f64>; 2]) {
    let all = log_checkpoints(1_000_000_000, 8);
    let (small, large): (Vec<u64>, Vec<u64>) = all.iter().partition(|n| **n < 1000);
    let seed = 0xe11 + u64::from(p) + 31 * u64::from(config.d());
    let a = simulate(config, p, &small, 20 * trials, seed, 1000);
    let b = simulate(config, p, &large, trials, seed + 1, 1000);
    let bounds = [ml_standard_error(config, p), martingale_standard_error(config, p)];
    let mut rmse = [Vec::new(), Vec::new()];
    for (e, name) in ["ML", "martingale"].iter().enumerate() {
        let mut worst: f64 = 0.0;
        for (part, errors) in [(&small, &a), (&large, &b)] {
            for (j, n) in part.iter().enumerate() {
                let (bias, r) = (errors.bias(e, j), errors.rmse(e, j));
                std::eprintln!(
                    "ell {config:?} p={p} {name} n={n}: bias {:+.4}% rmse {:.4}% (bound {:.4}%)",
                    bias * 100.0,
                    r * 100.0,
                    110.0 * bounds[e]
                );
                let (rmse_max, bias_max) = if *n < 1000 {
                    (rmse_bound_factor(20 * trials), bias_bound(bounds[e], 20 * trials))
                } else {
                    (rmse_bound_factor(trials), bias_bound(bounds[e], trials))
                };
                assert!(r <= rmse_max * bounds[e], "{config:?} p={p} {name} n={n}: rmse {r}");
                assert!(bias.abs() <= bias_max, "{config:?} p={p} {name} n={n}: bias {bias}");
                worst = worst.max(r / bounds[e]);
                rmse[e].push(r);
            }
        }
        std::eprintln!(
            "ell {config:?} p={p} {name}: {trials} trials, worst rmse {worst:.3} x the paper's constant"
        );
    }
    (all, rmse)
}

#[test]
fn accuracy_t2d20_to_a_billion() {
    check_accuracy(EllConfig::T2D20, 9, crate::test_util::trials(250, 4000));
}

#[test]
fn accuracy_t2d24_to_a_billion() {
    check_accuracy(EllConfig::T2D24, 9, crate::test_util::trials(250, 4000));
}

#[test]
#[ignore = "full characterization, minutes: cargo test -p sketches-core --lib ell:: -- --ignored"]
fn accuracy_at_larger_precisions() {
    for p in [10u8, 12] {
        for config in CONFIGS {
            check_accuracy(config, p, 1000);
        }
    }
}

/// The UltraLogLog under simulation, reporting its ML estimate.
struct SimUll(AlignedBuf);

impl Simulated for SimUll {
    fn reset(&mut self) {
        crate::ull::wrap_mut(self.0.as_mut()).unwrap().reset();
    }
    fn add_hash(&mut self, hash: u64) {
        crate::ull::wrap_mut(self.0.as_mut()).unwrap().add_hash(hash);
    }
    fn is_dense(&self) -> bool {
        true
    }
    fn state(&self, i: usize) -> u8 {
        crate::ull::wrap(self.0.as_ref()).unwrap().register(i)
    }
    fn estimate(&self) -> f64 {
        crate::ull::wrap(self.0.as_ref()).unwrap().ml_estimate()
    }
}

fn ull_changes(s: u8, k: u8, p: u8) -> bool {
    use crate::ull::{pack, unpack};
    pack(unpack(s) | (1u64 << (u32::from(k) + u32::from(p) - 2))) != s
}

/// Memory-variance product (register bits x m x relative variance) of ELL
/// (both configurations, ML and martingale), UltraLogLog (ML) and
/// HyperLogLog (its register estimator), all measured on simulated streams
/// at p = 8 for counts from 10^5 to 10^9, where the asymptotic constants
/// apply.
#[test]
fn memory_variance_product_against_hll_and_ull() {
    let p = 8u8;
    let trials = crate::test_util::trials(300, 4000);
    let checkpoints: Vec<u64> =
        log_checkpoints(1_000_000_000, 4).into_iter().filter(|n| *n >= 100_000).collect();
    let m = f64::from(1u32 << p);
    let mvp = |bits: f64, rmse: &mut dyn Iterator<Item = f64>| {
        let (sum, count) = rmse.fold((0.0, 0), |(s, c), r| (s + r * r, c + 1));
        bits * m * sum / f64::from(count)
    };
    let hll_stats = {
        let make = || crate::hll::tests::SimHllHandle::new(p);
        trajectories(&make, p, crate::hll::tests::hll_changes, &checkpoints, trials, 0x3b5 + 1, 0)
    };
    let ull_stats = {
        let make = || {
            SimUll({
                let mut b = AlignedBuf::new(crate::ull::image_len(p).unwrap() as usize);
                crate::ull::init(b.as_mut(), p, 0).unwrap();
                b
            })
        };
        trajectories(&make, p, ull_changes, &checkpoints, trials, 0x3b5 + 2, 0)
    };
    let hll_mvp = mvp(6.0, &mut (0..checkpoints.len()).map(|j| hll_stats.rmse(j)));
    let ull_mvp = mvp(8.0, &mut (0..checkpoints.len()).map(|j| ull_stats.rmse(j)));
    std::eprintln!("MVP at p={p}, n in 10^5..10^9, {trials} trials: HLL (6-bit, register estimator) {hll_mvp:.3}, ULL (8-bit, ML) {ull_mvp:.3}");
    for config in CONFIGS {
        let errors = simulate(config, p, &checkpoints, trials, 0x3b5 + u64::from(config.d()), 1000);
        let bits = f64::from(config.register_bits());
        let ml = mvp(bits, &mut (0..checkpoints.len()).map(|j| errors.rmse(0, j)));
        let mart = mvp(bits, &mut (0..checkpoints.len()).map(|j| errors.rmse(1, j)));
        let (ml_theory, mart_theory) =
            (bits * config.ml_error_constant().powi(2), bits * config.martingale_error_constant().powi(2));
        std::eprintln!(
            "MVP {config:?}: ML {ml:.3} (paper {ml_theory:.3}), martingale {mart:.3} (paper {mart_theory:.3}); ML vs HLL {:.3}, vs ULL {:.3}",
            ml / hll_mvp,
            ml / ull_mvp
        );
        assert!(ml < 1.21 * ml_theory && mart < 1.21 * mart_theory);
        assert!(
            ml < 0.7 * hll_mvp && ml < 0.9 * ull_mvp,
            "{config:?}: ELL needs less memory for the same error"
        );
    }
}

/// The martingale's O(1) weight updates equal the difference of the full
/// register weights for every change a legal register can see: a history
/// bit (the weight of the value) and a new top value ([`window_loss`]).
#[test]
fn martingale_weight_updates_equal_the_register_weights() {
    for config in CONFIGS {
        for p in [2u8, 6, 14, 24] {
            let l = layout(config, p);
            let d = l.d();
            let mut rng = SplitMix64(0xe11 + u64::from(p));
            let mut samples: Vec<u32> = std::vec![0];
            for _ in 0..2000 {
                let u = 1 + (rng.next_u64() % u64::from(l.max_value())) as u32;
                let mut r = (u << d) | (rng.next_u64() as u32 & ((1 << d) - 1));
                if u <= d {
                    r = (r & !((2 << (d - u)) - 1)) | (1 << (d - u));
                }
                samples.push(r);
            }
            for r in samples {
                let before = register_stats(r, l, |_, _| {});
                for k in 1..=l.max_value() {
                    let new = updated(r, k, d);
                    if new == r {
                        continue;
                    }
                    let after = register_stats(new, l, |_, _| {});
                    let mut state = Martingale { weight: before, estimate: 0.0, registers: 1.0 };
                    state.count_change(r, k, l);
                    assert_eq!(state.weight, after, "{config:?} p={p} r={r:#x} k={k}");
                }
            }
        }
    }
}

/// Batches of every length around the change list's block (empty, 1,
/// 31-33, 64, 1000 + 7, ...) leave the image of single adds, martingale
/// included: partial blocks, blocks where every add changes its register
/// (p = 2 and fresh sketches), and the merged sketch without a martingale.
#[test]
fn batches_of_any_length_equal_single_adds() {
    let lengths = [0usize, 1, 2, 31, 32, 33, 63, 64, 65, 100, 1007, 4096, 1];
    for config in CONFIGS {
        for p in [2u8, 8, 14] {
            let hashes = random_hashes(lengths.iter().sum(), 0x5eed + u64::from(p));
            let (mut a, mut b) = (fresh(config, p, 9), fresh(config, p, 9));
            let mut rest = &hashes[..];
            for len in lengths {
                let (batch, tail) = rest.split_at(len);
                wrap_mut(a.as_mut()).unwrap().add_hashes(batch);
                let mut s = wrap_mut(b.as_mut()).unwrap();
                for h in batch {
                    s.add_hash(*h);
                }
                assert_eq!(a.as_ref(), b.as_ref(), "{config:?} p={p} after a batch of {len}");
                rest = tail;
            }
            // The same hashes again within a block: the repeats change nothing.
            let fresh_hashes = random_hashes(7, 0xd0b1e + u64::from(p));
            let repeated: Vec<u64> = (0..200).map(|i| fresh_hashes[i % 7]).collect();
            wrap_mut(a.as_mut()).unwrap().add_hashes(&repeated);
            let mut s = wrap_mut(b.as_mut()).unwrap();
            for h in &repeated {
                s.add_hash(*h);
            }
            assert_eq!(a.as_ref(), b.as_ref(), "{config:?} p={p} after repeated hashes");
            // Merged: no martingale; the registers still match.
            let other = fresh(config, p, 9);
            wrap_mut(a.as_mut()).unwrap().merge(&wrap(other.as_ref()).unwrap()).unwrap();
            wrap_mut(b.as_mut()).unwrap().merge(&wrap(other.as_ref()).unwrap()).unwrap();
            let more = random_hashes(777, 0xfeed);
            wrap_mut(a.as_mut()).unwrap().add_hashes(&more);
            let mut s = wrap_mut(b.as_mut()).unwrap();
            for h in &more {
                s.add_hash(*h);
            }
            assert_eq!(a.as_ref(), b.as_ref(), "{config:?} p={p} merged");
        }
    }
}

/// The batch add and single adds leave the same image, martingale state
/// included, and the estimate is the sum of 1 / P over the changes.
#[test]
fn batch_and_single_adds_keep_the_same_martingale() {
    for config in CONFIGS {
        let hashes = random_hashes(200_000, 0xba7c);
        let (mut a, mut b) = (fresh(config, 10, 3), fresh(config, 10, 3));
        wrap_mut(a.as_mut()).unwrap().add_hashes(&hashes);
        let mut s = wrap_mut(b.as_mut()).unwrap();
        let mut reference = 0.0;
        for h in &hashes {
            let p_change = s.as_ref().change_probability();
            if s.add_hash(*h) {
                reference += 1.0 / p_change;
            }
        }
        assert_eq!(a.as_ref(), b.as_ref());
        let e = wrap(b.as_ref()).unwrap().martingale_estimate().unwrap();
        assert!((e - reference).abs() <= 1e-9 * reference, "{e} vs {reference}");
        let mut out = std::vec![0u8; a.as_ref().len()];
        export(a.as_ref(), &mut out).unwrap();
        verify(&out).unwrap(); // the stored weight equals the registers' weights
    }
}

/// The LZCNT copy (batch adds) and the portable code (single adds) leave
/// the same image, byte for byte (registers and martingale state).
#[test]
fn lzcnt_copy_and_portable_code_leave_the_same_image() {
    let hashes = random_hashes(60_000, 0x1c);
    for config in CONFIGS {
        for p in [4u8, 10, 14] {
            crate::test_util::assert_add_paths_agree!(
                ell,
                fresh(config, p, 0),
                &hashes,
                std::format!("{config:?} p={p}")
            );
        }
    }
}
