//! Every family's untrusted-bytes entry points in the C ABI (`_verify`,
//! `_import`, `_import_size`, `sketch_image_inspect` and, on the first 48
//! bytes as a stream reader has them, `sketch_image_inspect_header`) over damaged
//! copies of every golden image: another family's image, a newer major
//! version, every truncation, every header bit flip, flips in the body,
//! forged lengths (re-sealed with a valid checksum, as a hostile writer
//! would). Each is a clear error (never the reserved internal error), and a
//! failed call writes nothing: the import destination and the size output
//! keep their bytes. The core's own corruption tests (`check_corruption`)
//! drive the same checks per family; this table holds the C boundary.

use core::ffi::c_void;
use sketches_ffi::*;
use sketches_tests::workspace;

type Verify = unsafe extern "C" fn(*const c_void, usize) -> sketch_status;
type Import = unsafe extern "C" fn(*const c_void, usize, *mut c_void, usize) -> sketch_status;
type ImportSize = unsafe extern "C" fn(*const c_void, usize, *mut usize) -> sketch_status;

struct Family {
    name: &'static str,
    verify: Verify,
    import: Import,
    import_size: ImportSize,
}

macro_rules! family {
    ($name:literal, $m:ident, $verify:ident, $import:ident, $size:ident) => {
        Family { name: $name, verify: $m::$verify, import: $m::$import, import_size: $m::$size }
    };
}

fn families() -> [Family; 11] {
    [
        family!("bloom", bloom, sketch_bloom_verify, sketch_bloom_import, sketch_bloom_import_size),
        family!("sbbf", sbbf, sketch_sbbf_verify, sketch_sbbf_import, sketch_sbbf_import_size),
        family!(
            "counting",
            counting,
            sketch_counting_verify,
            sketch_counting_import,
            sketch_counting_import_size
        ),
        family!("cuckoo", cuckoo, sketch_cuckoo_verify, sketch_cuckoo_import, sketch_cuckoo_import_size),
        family!("hll", hll, sketch_hll_verify, sketch_hll_import, sketch_hll_import_size),
        family!("ull", ull, sketch_ull_verify, sketch_ull_import, sketch_ull_import_size),
        family!(
            "countmin",
            countmin,
            sketch_countmin_verify,
            sketch_countmin_import,
            sketch_countmin_import_size
        ),
        family!("topk", topk, sketch_topk_verify, sketch_topk_import, sketch_topk_import_size),
        family!("minhash", minhash, sketch_minhash_verify, sketch_minhash_import, sketch_minhash_import_size),
        family!("fuse", fuse, sketch_fuse_verify, sketch_fuse_import, sketch_fuse_import_size),
        family!("ell", ell, sketch_ell_verify, sketch_ell_import, sketch_ell_import_size),
    ]
}

/// Every golden image (file stem) and the family that reads it.
const GOLDEN: [(&str, &str); 15] = [
    ("bloom_v1", "bloom"),
    ("sbbf_v1", "sbbf"),
    ("sbbf_parquet_v1", "sbbf"),
    ("counting_v1", "counting"),
    ("cuckoo_v1", "cuckoo"),
    ("hll_small_v1", "hll"),
    ("hll_dense_v1", "hll"),
    ("ull_v1", "ull"),
    ("countmin_v1", "countmin"),
    ("topk_v1", "topk"),
    ("minhash_v1", "minhash"),
    ("fuse8_v1", "fuse"),
    ("fuse16_v1", "fuse"),
    ("ell_v1", "ell"),
    ("ell_d24_v1", "ell"),
];

/// An import destination (8-byte aligned) with room for any image made
/// from `len` bytes: a compact HyperLogLog grows on import.
struct Dst {
    storage: Vec<u64>,
}

impl Dst {
    fn new(len: usize) -> Self {
        Dst { storage: vec![0xEEEE_EEEE_EEEE_EEEE; len / 2 + 1024] }
    }
    fn len(&self) -> usize {
        self.storage.len() * 8
    }
    fn ptr(&mut self) -> *mut c_void {
        self.storage.as_mut_ptr().cast()
    }
    fn untouched(&self) -> bool {
        self.storage.iter().all(|w| *w == 0xEEEE_EEEE_EEEE_EEEE)
    }
}

const UNTOUCHED: usize = 0x5A5A_5A5A;

/// The three calls of `f` on `bytes`: (verify, import, import_size) statuses
/// and the size; checks that nothing is written on failure and that the
/// reserved internal error never appears.
fn run(f: &Family, bytes: &[u8], what: &str) -> (sketch_status, sketch_status, sketch_status, usize) {
    let mut dst = Dst::new(bytes.len());
    let room = dst.len();
    let mut size = UNTOUCHED;
    // SAFETY: live buffers of the given lengths; `size` is a local.
    let (v, i, s) = unsafe {
        let (p, n) = (bytes.as_ptr().cast(), bytes.len());
        ((f.verify)(p, n), (f.import)(p, n, dst.ptr(), room), (f.import_size)(p, n, &mut size))
    };
    for status in [v, i, s] {
        assert_ne!(status, SKETCH_INTERNAL_ERROR, "{what}: internal error");
    }
    assert_eq!(v, i, "{what}: verify and import disagree");
    if i != SKETCH_OK {
        assert!(dst.untouched(), "{what}: a failed import wrote to its destination");
    }
    if s != SKETCH_OK {
        assert_eq!(size, UNTOUCHED, "{what}: a failed import_size wrote its output");
    }
    // An accepted image passes import_size's header checks too.
    if i == SKETCH_OK {
        assert_eq!(s, SKETCH_OK, "{what}: imported but import_size refused");
    }
    (v, i, s, size)
}

fn reseal(bytes: &mut [u8]) {
    if bytes.len() >= 40 {
        let sum = sketches_core::image::checksum(bytes);
        bytes[32..40].copy_from_slice(&sum.to_le_bytes());
    }
}

#[test]
fn every_import_entry_point_refuses_damaged_images_of_every_family() {
    let families = families();
    for (stem, owner) in GOLDEN {
        let golden = std::fs::read(workspace().join(format!("tests/golden/{stem}.img"))).unwrap();
        let header_len = usize::from(u16::from_le_bytes([golden[10], golden[11]]));
        for f in &families {
            let what = format!("{stem} read as {}", f.name);
            let (v, _, s, size) = run(f, &golden, &what);
            if f.name != owner {
                assert_eq!(v, SKETCH_WRONG_FAMILY, "{what}");
                assert_eq!(s, SKETCH_WRONG_FAMILY, "{what}");
                continue;
            }
            assert_eq!(v, SKETCH_OK, "{what}");
            assert!(size >= golden.len() && size % 64 == 0, "{what}: import size {size}");
            assert_eq!(inspect_both(&golden, &what), SKETCH_OK);

            // A newer major version.
            let mut newer = golden.clone();
            newer[4] += 1;
            reseal(&mut newer);
            assert_eq!(run(f, &newer, &what).0, SKETCH_UNSUPPORTED_VERSION, "{what}: newer version");

            // Every truncation, and bytes after the image.
            for cut in 0..golden.len() {
                let (v, _, s, _) = run(f, &golden[..cut], &format!("{what} cut to {cut}"));
                assert_ne!(v, SKETCH_OK, "{what}: cut to {cut} verified");
                assert_ne!(s, SKETCH_OK, "{what}: cut to {cut} sized");
            }
            let mut longer = golden.clone();
            longer.extend_from_slice(&[0; 64]);
            assert_eq!(run(f, &longer, &what).0, SKETCH_LENGTH_MISMATCH, "{what}: extended");

            // Every header bit flip, and flips spread over the body.
            let body_bits = (golden.len() - header_len) * 8;
            let step = (body_bits / 500).max(1);
            for bit in (0..header_len * 8).chain((header_len * 8..golden.len() * 8).step_by(step)) {
                let mut bad = golden.clone();
                bad[bit / 8] ^= 1 << (bit % 8);
                let what = format!("{what}, bit {bit} flipped");
                assert_ne!(run(f, &bad, &what).0, SKETCH_OK, "{what}: accepted");
                // Re-sealed: only the header and body checks stand in the way.
                reseal(&mut bad);
                run(f, &bad, &format!("{what}, re-sealed"));
                inspect_both(&bad, &what);
            }

            // Forged lengths (image length, header length), re-sealed.
            for (off, width) in [(24usize, 8usize), (10, 2)] {
                for value in [0u64, 1, 48, (golden.len() - 8) as u64, (golden.len() + 64) as u64, u64::MAX] {
                    let mut bad = golden.clone();
                    bad[off..off + width].copy_from_slice(&value.to_le_bytes()[..width]);
                    reseal(&mut bad);
                    let what = format!("{what}, field at {off} forged to {value}");
                    let (v, _, _, _) = run(f, &bad, &what);
                    inspect_both(&bad, &what);
                    let original = u64::from_le_bytes({
                        let mut w = [0u8; 8];
                        w[..width].copy_from_slice(&golden[off..off + width]);
                        w
                    });
                    if value != original {
                        assert_ne!(v, SKETCH_OK, "{what}: accepted");
                    }
                }
            }
        }
    }
}

/// `sketch_image_inspect` of `bytes` and `sketch_image_inspect_header` of
/// their first 48 bytes (what a stream reader holds first) agree: the same
/// error for a bad common header, and where the whole image is there the
/// same fields; the header alone is refused by inspect only for lengths it
/// cannot check (an image longer than the bytes). Never the internal error;
/// a refused call leaves its output as it was. Returns inspect's status.
fn inspect_both(bytes: &[u8], what: &str) -> sketch_status {
    let unset = image::sketch_image_info { seed: 0x5A5A, ..Default::default() };
    let (mut whole, mut head) = (unset, unset);
    // SAFETY: live slice; `whole` is a local.
    let by_image = unsafe { image::sketch_image_inspect(bytes.as_ptr().cast(), bytes.len(), &mut whole) };
    let head_len = bytes.len().min(48);
    // SAFETY: live slice of `head_len` bytes; `head` is a local.
    let by_header = unsafe { image::sketch_image_inspect_header(bytes.as_ptr().cast(), head_len, &mut head) };
    assert_ne!(by_image, SKETCH_INTERNAL_ERROR, "{what}: inspect");
    assert_ne!(by_header, SKETCH_INTERNAL_ERROR, "{what}: inspect_header");
    if by_header != SKETCH_OK {
        assert_eq!(by_header, by_image, "{what}: inspect_header and inspect disagree");
        assert_eq!(head.seed, 0x5A5A, "{what}: a refused inspect_header wrote its output");
    } else if by_image == SKETCH_OK {
        assert_eq!(format!("{head:?}"), format!("{whole:?}"), "{what}: different fields");
    } else {
        assert_eq!(by_image, SKETCH_BUFFER_TOO_SMALL, "{what}: inspect refused a header inspect_header read");
        assert!(head.image_bytes > bytes.len() as u64, "{what}: the image fits {} bytes", bytes.len());
    }
    by_image
}
