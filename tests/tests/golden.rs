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
