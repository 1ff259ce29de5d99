//! Golden images: the exact bytes of exported images, committed under
//! tests/golden/. Every binding must read them and write the same bytes for
//! the same inputs; a change of format shows up here first.
//! Regenerate deliberately with `SKETCHES_BLESS_GOLDEN=1 cargo test -p sketches-tests --test golden`.

use sketches_core::bloom::{self, BloomParams};
use sketches_core::counting;
use sketches_core::cuckoo::{self, CuckooParams};
use sketches_core::sbbf::{self, SbbfParams};
use sketches_tests::workspace;

const KEYS: u64 = 1000;

fn key(i: u64) -> String {
    format!("golden-{i}")
}

fn aligned(len: usize) -> (Vec<u8>, usize) {
    let v = vec![0u8; len + 64];
    let off = v.as_ptr().align_offset(64);
    (v, off)
}

/// Writes a fresh image into a buffer of the planned length.
type Fill = Box<dyn Fn(&mut [u8])>;

/// Builds one golden image: `init` + add every key + export.
fn build(kind: &str) -> Vec<u8> {
    let (len, init): (usize, Fill) = match kind {
        "bloom" => {
            let p = BloomParams::for_items(KEYS, 0.01).unwrap();
            (
                p.image_len().unwrap() as usize,
                Box::new(move |b: &mut [u8]| {
                    let mut f = bloom::init(b, &p, 42).unwrap();
                    (0..KEYS).for_each(|i| {
                        f.add(key(i).as_bytes());
                    });
                    f.add_u64(7);
                }),
            )
        }
        "counting" => {
            let p = BloomParams::for_items(KEYS, 0.01).unwrap();
            (
                counting::image_len(&p).unwrap() as usize,
                Box::new(move |b: &mut [u8]| {
                    let mut f = counting::init(b, &p, 42).unwrap();
                    (0..KEYS).for_each(|i| {
                        f.add(key(i).as_bytes());
                    });
                    f.add_u64(7);
                    f.add_u64(7);
                    f.remove(key(0).as_bytes()).unwrap();
                }),
            )
        }
        "cuckoo" => {
            let p = CuckooParams::for_items(KEYS, 0.01).unwrap();
            (
                p.image_len().unwrap() as usize,
                Box::new(move |b: &mut [u8]| {
                    let mut f = cuckoo::init(b, &p, 42).unwrap();
                    (0..KEYS).for_each(|i| f.add(key(i).as_bytes()).unwrap());
                    f.add_u64(7).unwrap();
                    f.remove(key(0).as_bytes()).unwrap();
                }),
            )
        }
        "sbbf" | "sbbf_parquet" => {
            let parquet = kind == "sbbf_parquet";
            let p =
                if parquet { SbbfParams::for_parquet(KEYS, 0.01) } else { SbbfParams::for_items(KEYS, 0.01) };
            let p = p.unwrap();
            (
                p.image_len().unwrap() as usize,
                Box::new(move |b: &mut [u8]| {
                    let mut f = sbbf::init(b, &p, if parquet { 0 } else { 42 }).unwrap();
                    (0..KEYS).for_each(|i| {
                        f.add(key(i).as_bytes());
                    });
                    f.add_u64(7);
                }),
            )
        }
        _ => unreachable!(),
    };
    let (mut storage, off) = aligned(len);
    init(&mut storage[off..off + len]);
    let mut out = vec![0u8; len];
    match kind {
        "bloom" => bloom::export(&storage[off..off + len], &mut out).unwrap(),
        "counting" => counting::export(&storage[off..off + len], &mut out).unwrap(),
        "cuckoo" => cuckoo::export(&storage[off..off + len], &mut out).unwrap(),
        _ => sbbf::export(&storage[off..off + len], &mut out).unwrap(),
    };
    out
}

#[test]
fn golden_images_are_stable_and_readable() {
    for kind in ["bloom", "sbbf", "sbbf_parquet", "counting", "cuckoo"] {
        let path = workspace().join(format!("tests/golden/{kind}_v1.img"));
        let built = build(kind);
        if std::env::var_os("SKETCHES_BLESS_GOLDEN").is_some() {
            std::fs::write(&path, &built).unwrap();
        }
        let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(golden == built, "{kind}: the image bytes changed (format break?)");
        let (mut storage, off) = aligned(golden.len());
        let dst = &mut storage[off..off + golden.len()];
        match kind {
            "bloom" => {
                bloom::import(&golden, dst).unwrap();
                let f = bloom::wrap(dst).unwrap();
                assert!((0..KEYS).all(|i| f.contains(key(i).as_bytes())) && f.contains_u64(7));
                assert_eq!(f.add_calls(), KEYS + 1);
            }
            "counting" => {
                counting::import(&golden, dst).unwrap();
                let f = counting::wrap(dst).unwrap();
                assert!((1..KEYS).all(|i| f.contains(key(i).as_bytes())) && f.contains_u64(7));
                assert_eq!(f.stats().items, KEYS + 1);
            }
            "cuckoo" => {
                cuckoo::import(&golden, dst).unwrap();
                let f = cuckoo::wrap(dst).unwrap();
                assert!((1..KEYS).all(|i| f.contains(key(i).as_bytes())) && f.contains_u64(7));
                assert_eq!(f.items(), KEYS);
            }
            _ => {
                sbbf::import(&golden, dst).unwrap();
                let f = sbbf::wrap(dst).unwrap();
                assert!((0..KEYS).all(|i| f.contains(key(i).as_bytes())) && f.contains_u64(7));
                assert_eq!(f.add_calls(), KEYS + 1);
            }
        }
    }
}

/// Cardinality golden images: HyperLogLog p = 12 in small mode (compact
/// export, 200 keys) and dense (1000 keys), UltraLogLog p = 10 (1000 keys).
fn build_cardinality(kind: &str) -> Vec<u8> {
    use sketches_core::{hll, ull};
    let p = if kind == "ull" { 10 } else { 12 };
    let count = if kind == "hll_small" { 200 } else { KEYS };
    let len = if kind == "ull" { ull::image_len(p) } else { hll::image_len(p) }.unwrap() as usize;
    let (mut storage, off) = aligned(len);
    let buf = &mut storage[off..off + len];
    let mut out = vec![0u8; len];
    if kind == "ull" {
        let mut s = ull::init(buf, p, 42).unwrap();
        (0..count).for_each(|i| {
            s.add(key(i).as_bytes());
        });
        s.add_u64(7);
        let n = ull::export(buf, &mut out).unwrap();
        out.truncate(n);
    } else {
        let mut s = hll::init(buf, p, 42).unwrap();
        (0..count).for_each(|i| {
            s.add(key(i).as_bytes());
        });
        s.add_u64(7);
        let n = hll::export(buf, &mut out).unwrap();
        out.truncate(n);
    }
    out
}

#[test]
fn cardinality_golden_images_are_stable_and_readable() {
    use sketches_core::{hll, ull};
    for kind in ["hll_small", "hll_dense", "ull"] {
        let path = workspace().join(format!("tests/golden/{kind}_v1.img"));
        let built = build_cardinality(kind);
        if std::env::var_os("SKETCHES_BLESS_GOLDEN").is_some() {
            std::fs::write(&path, &built).unwrap();
        }
        let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(golden == built, "{kind}: the image bytes changed (format break?)");
        let full = if kind == "ull" { ull::image_len(10) } else { hll::image_len(12) }.unwrap() as usize;
        let (mut storage, off) = aligned(full);
        let dst = &mut storage[off..off + full];
        if kind == "ull" {
            ull::import(&golden, dst).unwrap();
            let e = ull::wrap(dst).unwrap().estimate();
            assert!((e - 1001.0).abs() < 0.1 * 1001.0, "{e}");
        } else {
            assert_eq!(hll::import(&golden, dst), Ok(full));
            let s = hll::wrap(dst).unwrap();
            if kind == "hll_small" {
                assert_eq!(golden.len(), hll::HEADER_LEN + 201 * 8);
                assert_eq!(s.estimate(), 201.0);
            } else {
                assert!((s.estimate() - 1001.0).abs() < 0.1 * 1001.0);
            }
        }
    }
}

/// Count-Min golden image: 500 x 3, conservative, 64-bit counters; keys with weights.
fn build_countmin() -> Vec<u8> {
    use sketches_core::countmin::{self, CountMinParams};
    let params =
        CountMinParams { conservative: true, counter_bits: 64, ..CountMinParams::with_size(500, 3).unwrap() };
    let len = params.image_len().unwrap() as usize;
    let (mut storage, off) = aligned(len);
    let buf = &mut storage[off..off + len];
    let mut s = countmin::init(buf, &params, 42).unwrap();
    (0..KEYS).for_each(|i| s.add(key(i).as_bytes(), 1 + i % 3));
    s.add_u64(7, 80_000);
    let mut out = vec![0u8; len];
    countmin::export(buf, &mut out).unwrap();
    out
}

#[test]
fn countmin_golden_image_is_stable_and_readable() {
    use sketches_core::countmin;
    let path = workspace().join("tests/golden/countmin_v1.img");
    let built = build_countmin();
    if std::env::var_os("SKETCHES_BLESS_GOLDEN").is_some() {
        std::fs::write(&path, &built).unwrap();
    }
    let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(golden == built, "countmin: the image bytes changed (format break?)");
    let (mut storage, off) = aligned(golden.len());
    let dst = &mut storage[off..off + golden.len()];
    countmin::import(&golden, dst).unwrap();
    let s = countmin::wrap(dst).unwrap();
    assert!((0..KEYS).all(|i| s.estimate(key(i).as_bytes()) > i % 3));
    assert_eq!(s.estimate_u64(7), 80_000);
}

/// MinHash golden image: k = 128, seed 42, the golden keys.
fn build_minhash() -> Vec<u8> {
    use sketches_core::minhash;
    let len = minhash::image_len(128).unwrap() as usize;
    let (mut storage, off) = aligned(len);
    let buf = &mut storage[off..off + len];
    let mut s = minhash::init(buf, 128, 42).unwrap();
    (0..KEYS).for_each(|i| {
        s.add(key(i).as_bytes());
    });
    let mut out = vec![0u8; len];
    minhash::export(buf, &mut out).unwrap();
    out
}

#[test]
fn minhash_golden_image_is_stable_and_readable() {
    use sketches_core::minhash;
    let path = workspace().join("tests/golden/minhash_v1.img");
    let built = build_minhash();
    if std::env::var_os("SKETCHES_BLESS_GOLDEN").is_some() {
        std::fs::write(&path, &built).unwrap();
    }
    let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(golden == built, "minhash: the image bytes changed (format break?)");
    let (mut storage, off) = aligned(golden.len());
    let dst = &mut storage[off..off + golden.len()];
    minhash::import(&golden, dst).unwrap();
    let s = minhash::wrap(dst).unwrap();
    assert_eq!(s.jaccard(&s), Ok(1.0));
    assert_eq!(s.filled(), 128);
}

/// Top-k golden image: 64 counters, keys up to 16 bytes, a skewed stream.
fn build_topk() -> Vec<u8> {
    use sketches_core::topk::{self, TopKParams};
    let params = TopKParams { capacity: 64, max_key_len: 16 };
    let len = params.image_len().unwrap() as usize;
    let (mut storage, off) = aligned(len);
    let buf = &mut storage[off..off + len];
    let mut s = topk::init(buf, &params, 42).unwrap();
    (0..KEYS).for_each(|i| s.add(key(i % 97 % (1 + i % 13)).as_bytes(), 1 + i % 4).unwrap());
    s.add_u64(7, 5000).unwrap();
    let mut out = vec![0u8; len];
    topk::export(buf, &mut out).unwrap();
    out
}

#[test]
fn topk_golden_image_is_stable_and_readable() {
    use sketches_core::topk::{self, TopKItem};
    let path = workspace().join("tests/golden/topk_v1.img");
    let built = build_topk();
    if std::env::var_os("SKETCHES_BLESS_GOLDEN").is_some() {
        std::fs::write(&path, &built).unwrap();
    }
    let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(golden == built, "topk: the image bytes changed (format break?)");
    let (mut storage, off) = aligned(golden.len());
    let dst = &mut storage[off..off + golden.len()];
    topk::import(&golden, dst).unwrap();
    let s = topk::wrap(dst).unwrap();
    let mut top = [TopKItem { key: &[], count: 0, error: 0 }; 1];
    assert_eq!(s.top(&mut top), 1);
    assert_eq!((top[0].key, top[0].count), (&7u64.to_le_bytes()[..], 5000));
}

/// Binary fuse golden images: the golden keys plus the integer key 7, seed
/// 42, 8- and 16-bit fingerprints (built from the keys' hashes; the C ABI
/// and the core's key builds give the same bytes).
fn build_fuse(bits: u8) -> Vec<u8> {
    use sketches_core::fuse::{self, FuseParams};
    use sketches_core::hash;
    let params = FuseParams::new(KEYS + 1, bits).unwrap();
    let len = params.image_len().unwrap() as usize;
    let mut hashes: Vec<u64> = (0..KEYS).map(|i| hash::hash_bytes(key(i).as_bytes(), 42)).collect();
    hashes.push(hash::hash_u64(7, 42));
    let mut scratch = vec![0u8; params.scratch_len().unwrap() as usize];
    let (mut storage, off) = aligned(len);
    let buf = &mut storage[off..off + len];
    fuse::build_hashes(buf, &params, 42, &hashes, &mut scratch).unwrap();
    let mut out = vec![0u8; len];
    fuse::export(buf, &mut out).unwrap();
    out
}

#[test]
fn fuse_golden_images_are_stable_and_readable() {
    use sketches_core::fuse;
    for bits in [8u8, 16] {
        let path = workspace().join(format!("tests/golden/fuse{bits}_v1.img"));
        let built = build_fuse(bits);
        if std::env::var_os("SKETCHES_BLESS_GOLDEN").is_some() {
            std::fs::write(&path, &built).unwrap();
        }
        let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(golden == built, "fuse{bits}: the image bytes changed (format break?)");
        let (mut storage, off) = aligned(golden.len());
        let dst = &mut storage[off..off + golden.len()];
        fuse::import(&golden, dst).unwrap();
        let f = fuse::wrap(dst).unwrap();
        assert!((0..KEYS).all(|i| f.contains(key(i).as_bytes())) && f.contains_u64(7));
        let stats = f.stats();
        assert_eq!((stats.keys, stats.seed, stats.fingerprint_bits), (KEYS + 1, 42, bits));
        // About 2^-bits of absent keys pass.
        let passed = (0..100_000u64).filter(|i| f.contains(format!("absent-{i}").as_bytes())).count();
        assert!(passed < 100_000 >> (bits - 2), "fuse{bits}: {passed} false positives");
    }
}

/// ExaLogLog golden images: t = 2, d = 20 (`ell_v1.img`) and d = 24
/// (`ell_d24_v1.img`), p = 10, seed 42, the golden keys plus the integer
/// key 7 (martingale estimate included in the header).
fn build_ell(d: u8) -> Vec<u8> {
    use sketches_core::ell::{self, EllConfig};
    let config = EllConfig::from_td(2, d).unwrap();
    let len = ell::image_len(config, 10).unwrap() as usize;
    let (mut storage, off) = aligned(len);
    let buf = &mut storage[off..off + len];
    let mut s = ell::init(buf, config, 10, 42).unwrap();
    (0..KEYS).for_each(|i| {
        s.add(key(i).as_bytes());
    });
    s.add_u64(7);
    let mut out = vec![0u8; len];
    ell::export(buf, &mut out).unwrap();
    out
}

#[test]
fn ell_golden_images_are_stable_and_readable() {
    use sketches_core::ell;
    for (d, name) in [(20u8, "ell_v1"), (24, "ell_d24_v1")] {
        let path = workspace().join(format!("tests/golden/{name}.img"));
        let built = build_ell(d);
        if std::env::var_os("SKETCHES_BLESS_GOLDEN").is_some() {
            std::fs::write(&path, &built).unwrap();
        }
        let golden = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(golden == built, "{name}: the image bytes changed (format break?)");
        let (mut storage, off) = aligned(golden.len());
        let dst = &mut storage[off..off + golden.len()];
        ell::import(&golden, dst).unwrap();
        let s = ell::wrap(dst).unwrap();
        assert_eq!((s.config().d(), s.precision(), s.seed()), (d, 10, 42));
        let martingale = s.martingale_estimate().expect("an unmerged golden sketch keeps its martingale");
        for e in [martingale, s.ml_estimate()] {
            assert!((e - 1001.0).abs() < 0.1 * 1001.0, "{name}: {e}");
        }
        // Adding the same keys again changes nothing.
        let mut again = ell::wrap_mut(dst).unwrap();
        assert!(!(0..KEYS).any(|i| again.add(key(i).as_bytes())) && !again.add_u64(7));
    }
}

/// The C ABI writes the same golden bytes: a fuse build of the keys' hashes
/// (`sketch_hash`, `sketch_hash_u64`) and ELL adds through `sketch_ell_*`.
#[test]
fn c_abi_writes_the_fuse_and_ell_golden_bytes() {
    use sketches_ffi::ell::*;
    use sketches_ffi::fuse::*;
    use sketches_ffi::hash::*;
    use sketches_ffi::*;
    let names: Vec<String> = (0..KEYS).map(key).collect();
    let slices: Vec<sketch_slice> =
        names.iter().map(|k| sketch_slice { ptr: k.as_ptr().cast(), len: k.len() }).collect();
    for bits in [8u32, 16] {
        let golden = std::fs::read(workspace().join(format!("tests/golden/fuse{bits}_v1.img"))).unwrap();
        let mut hashes: Vec<u64> =
            names.iter().map(|k| unsafe { sketch_hash(k.as_ptr().cast(), k.len(), 42) }).collect();
        hashes.push(sketch_hash_u64(7, 42));
        let (mut p, mut size, mut scratch_len) = (sketch_fuse_params::default(), 0u64, 0u64);
        let (mut storage, off) = aligned(golden.len());
        let buf = &mut storage[off..off + golden.len()];
        let mut out = vec![0u8; golden.len()];
        let mut written = 0usize;
        unsafe {
            assert_eq!(sketch_fuse_plan_bits(KEYS + 1, bits, &mut p), SKETCH_OK);
            assert_eq!(sketch_fuse_size(&p, &mut size), SKETCH_OK);
            assert_eq!(sketch_fuse_scratch_size(&p, &mut scratch_len), SKETCH_OK);
            let mut scratch = vec![0u8; scratch_len as usize];
            let (w, wl) = (scratch.as_mut_ptr().cast(), scratch.len());
            let status = sketch_fuse_build_hash_batch(
                buf.as_mut_ptr().cast(),
                buf.len(),
                &p,
                42,
                hashes.as_ptr(),
                hashes.len(),
                w,
                wl,
            );
            assert_eq!(status, SKETCH_OK);
            let status = sketch_fuse_export(
                buf.as_ptr().cast(),
                buf.len(),
                out.as_mut_ptr().cast(),
                out.len(),
                &mut written,
            );
            assert_eq!(status, SKETCH_OK);
        }
        assert_eq!(size as usize, golden.len());
        assert!(out == golden, "fuse{bits}: the C ABI build differs from the golden image");
    }
    for (d, name) in [(20u32, "ell_v1"), (24, "ell_d24_v1")] {
        let golden = std::fs::read(workspace().join(format!("tests/golden/{name}.img"))).unwrap();
        let p = sketch_ell_params { t: 2, d, precision: 10, reserved: 0 };
        let (mut storage, off) = aligned(golden.len());
        let buf = &mut storage[off..off + golden.len()];
        let mut out = vec![0u8; golden.len()];
        let mut written = 0usize;
        unsafe {
            let (b, l) = (buf.as_mut_ptr().cast(), buf.len());
            assert_eq!(sketch_ell_init(b, l, &p, 42), SKETCH_OK);
            assert_eq!(sketch_ell_add_batch(b, l, slices.as_ptr(), slices.len()), SKETCH_OK);
            assert_eq!(sketch_ell_add_u64(b, l, 7, std::ptr::null_mut()), SKETCH_OK);
            assert_eq!(sketch_ell_export(b, l, out.as_mut_ptr().cast(), out.len(), &mut written), SKETCH_OK);
        }
        assert!(out == golden, "{name}: the C ABI sketch differs from the golden image");
    }
}
