//! Fuzz target: untrusted bytes through every family's C ABI.
//!
//! Input: one selector byte (the family), then the bytes of an image. For the
//! selected family the target checks, through the C functions a C, Go or
//! Java caller uses:
//!
//! * `verify` and `import` agree, and never report an internal error (a
//!   caught panic);
//! * an accepted image exports back to exactly the input bytes;
//! * any sequence of operations on the imported image (keys cut from the
//!   input) leaves an image that still exports and verifies, and merging a
//!   sketch with its own copy leaves the body of idempotent families unchanged;
//! * the same operations on the raw bytes (the zero-copy path, no checksum)
//!   return a status, never crash.
//!
//! The selector's low bits pick the family; its top bit re-seals the input
//! with a valid checksum first, so that mutations reach the body checks.
//! Seeds: the golden images of `tests/golden/`, prefixed with their family
//! selector, with and without the top bit (see `fuzz/run.sh`).
#![no_main]

use core::ffi::c_void;
use libfuzzer_sys::fuzz_target;
use sketches_ffi::*;
use sketches_ffi::{sketch_status, SKETCH_INTERNAL_ERROR, SKETCH_OK};

#[path = "common.rs"]
mod common;
use common::Aligned;

/// The largest image worth fuzzing (bigger inputs only slow the fuzzer).
const MAX_IMAGE: usize = 1 << 20;
/// Room for any import: a compact HyperLogLog expands up to p = 18.
const IMPORT_ROOM: usize = 200 * 1024;

/// True on success; a caught panic (internal error) is a bug.
fn ok(status: sketch_status) -> bool {
    assert_ne!(status, SKETCH_INTERNAL_ERROR, "status 15 is reserved and never produced");
    status == SKETCH_OK
}

/// Keys cut from the input: lengths 0..=23, so short, integer-sized and
/// longer keys all occur.
fn keys(data: &[u8]) -> impl Iterator<Item = &[u8]> {
    let mut rest = data;
    core::iter::from_fn(move || {
        let (&n, tail) = rest.split_first()?;
        let n = usize::from(n % 24).min(tail.len());
        let (key, after) = tail.split_at(n);
        rest = after;
        Some(key)
    })
    .take(64)
}

/// The C functions of one family that share a signature across families.
struct Family {
    verify: unsafe extern "C" fn(*const c_void, usize) -> sketch_status,
    import: unsafe extern "C" fn(*const c_void, usize, *mut c_void, usize) -> sketch_status,
    export: unsafe extern "C" fn(*const c_void, usize, *mut c_void, usize, *mut usize) -> sketch_status,
    /// Merge (or union) of `src` into `dst`; cuckoo gets a scratch buffer.
    merge: fn(&mut Aligned, &Aligned) -> sketch_status,
    /// True when merging a sketch with its own copy changes nothing.
    idempotent: bool,
    /// Adds and queries the keys, reads statistics and estimates; checks
    /// the results when the image was imported (`true`), only statuses on
    /// raw bytes.
    exercise: fn(&mut Aligned, &[u8], bool),
}

macro_rules! merge2 {
    ($f:path) => {
        // SAFETY: both buffers are live, aligned allocations of the given lengths.
        |d: &mut Aligned, s: &Aligned| unsafe { $f(d.ptr_mut(), d.len, s.ptr(), s.len) }
    };
}

/// Bloom and split-block filters: the same C functions under two prefixes.
macro_rules! bit_filter {
    ($m:ident, [$verify:ident, $import:ident, $export:ident, $union:ident], [$add:ident, $contains:ident, $get_stats:ident, $stats:ident]) => {
        Family {
            verify: $m::$verify,
            import: $m::$import,
            export: $m::$export,
            merge: merge2!($m::$union),
            idempotent: true,
            exercise: |b, data, _trusted| {
                for key in keys(data) {
                    let (mut was_new, mut present) = (false, false);
                    let (k, n) = (key.as_ptr().cast(), key.len());
                    // SAFETY: live buffer and key of the given lengths; outputs are locals.
                    unsafe {
                        ok($m::$add(b.ptr_mut(), b.len, k, n, &mut was_new));
                        if ok($m::$contains(b.ptr(), b.len, k, n, &mut present)) {
                            assert!(present, "{}: an added key is absent", stringify!($m));
                        }
                    }
                }
                let mut stats = $m::$stats::default();
                // SAFETY: as above.
                ok(unsafe { $m::$get_stats(b.ptr(), b.len, &mut stats) });
            },
        }
    };
}

fn family(selector: u8) -> Family {
    match selector % 9 {
        0 => bit_filter!(
            bloom,
            [sketch_bloom_verify, sketch_bloom_import, sketch_bloom_export, sketch_bloom_union],
            [sketch_bloom_add, sketch_bloom_contains, sketch_bloom_get_stats, sketch_bloom_stats]
        ),
        1 => bit_filter!(
            sbbf,
            [sketch_sbbf_verify, sketch_sbbf_import, sketch_sbbf_export, sketch_sbbf_union],
            [sketch_sbbf_add, sketch_sbbf_contains, sketch_sbbf_get_stats, sketch_sbbf_stats]
        ),
        2 => Family {
            verify: counting::sketch_counting_verify,
            import: counting::sketch_counting_import,
            export: counting::sketch_counting_export,
            merge: merge2!(counting::sketch_counting_merge),
            idempotent: false,
            exercise: |b, data, _trusted| {
                for (i, key) in keys(data).enumerate() {
                    let (mut was_new, mut present) = (false, false);
                    // SAFETY: live buffer and key of the given lengths; outputs are locals.
                    unsafe {
                        let (k, n) = (key.as_ptr().cast(), key.len());
                        ok(counting::sketch_counting_add(b.ptr_mut(), b.len, k, n, &mut was_new));
                        if ok(counting::sketch_counting_contains(b.ptr(), b.len, k, n, &mut present)) {
                            assert!(present, "counting: an added key is absent");
                        }
                        if i % 3 == 0 {
                            ok(counting::sketch_counting_remove(b.ptr_mut(), b.len, k, n));
                        }
                    }
                }
                let mut stats = counting::sketch_counting_stats::default();
                // SAFETY: as above.
                ok(unsafe { counting::sketch_counting_get_stats(b.ptr(), b.len, &mut stats) });
            },
        },
        3 => Family {
            verify: cuckoo::sketch_cuckoo_verify,
            import: cuckoo::sketch_cuckoo_import,
            export: cuckoo::sketch_cuckoo_export,
            merge: |d, s| {
                let mut scratch = Aligned::zeroed(d.len);
                // SAFETY: three live, aligned allocations of the given lengths.
                unsafe {
                    cuckoo::sketch_cuckoo_merge(
                        d.ptr_mut(),
                        d.len,
                        s.ptr(),
                        s.len,
                        scratch.ptr_mut(),
                        scratch.len,
                    )
                }
            },
            idempotent: false,
            exercise: |b, data, _trusted| {
                for (i, key) in keys(data).enumerate() {
                    let (mut present, mut count) = (false, 0u32);
                    // SAFETY: live buffer and key of the given lengths; outputs are locals.
                    unsafe {
                        let (k, n) = (key.as_ptr().cast(), key.len());
                        let added = ok(cuckoo::sketch_cuckoo_add(b.ptr_mut(), b.len, k, n));
                        if ok(cuckoo::sketch_cuckoo_contains(b.ptr(), b.len, k, n, &mut present)) && added {
                            assert!(present, "cuckoo: an added key is absent");
                        }
                        ok(cuckoo::sketch_cuckoo_count(b.ptr(), b.len, k, n, &mut count));
                        if i % 3 == 0 {
                            ok(cuckoo::sketch_cuckoo_remove(b.ptr_mut(), b.len, k, n));
                        }
                    }
                }
                let mut stats = cuckoo::sketch_cuckoo_stats::default();
                // SAFETY: as above.
                ok(unsafe { cuckoo::sketch_cuckoo_get_stats(b.ptr(), b.len, &mut stats) });
            },
        },
        4 => Family {
            verify: hll::sketch_hll_verify,
            import: hll::sketch_hll_import,
            export: hll::sketch_hll_export,
            merge: merge2!(hll::sketch_hll_merge),
            idempotent: true,
            exercise: |b, data, trusted| {
                for key in keys(data) {
                    let mut changed = false;
                    // SAFETY: live buffer and key of the given lengths; output is a local.
                    ok(unsafe {
                        hll::sketch_hll_add(b.ptr_mut(), b.len, key.as_ptr().cast(), key.len(), &mut changed)
                    });
                }
                let (mut e, mut r) = (0f64, 0f64);
                let mut stats = hll::sketch_hll_stats::default();
                let mut down = Aligned::zeroed(IMPORT_ROOM);
                // SAFETY: live buffers of the given lengths; outputs are locals.
                unsafe {
                    if ok(hll::sketch_hll_estimate(b.ptr(), b.len, &mut e)) && trusted {
                        assert!(e >= 0.0, "hll: estimate {e}");
                    }
                    ok(hll::sketch_hll_register_estimate(b.ptr(), b.len, &mut r));
                    ok(hll::sketch_hll_get_stats(b.ptr(), b.len, &mut stats));
                    ok(hll::sketch_hll_downsize(
                        b.ptr(),
                        b.len,
                        down.ptr_mut(),
                        down.len,
                        4 + data.len() as u8 % 15,
                    ));
                }
            },
        },
        5 => Family {
            verify: ull::sketch_ull_verify,
            import: ull::sketch_ull_import,
            export: ull::sketch_ull_export,
            merge: merge2!(ull::sketch_ull_merge),
            idempotent: true,
            exercise: |b, data, trusted| {
                for key in keys(data) {
                    let mut changed = false;
                    // SAFETY: live buffer and key of the given lengths; output is a local.
                    ok(unsafe {
                        ull::sketch_ull_add(b.ptr_mut(), b.len, key.as_ptr().cast(), key.len(), &mut changed)
                    });
                }
                let (mut e, mut r, mut ml) = (0f64, 0f64, 0f64);
                let mut stats = ull::sketch_ull_stats::default();
                let mut as_hll = Aligned::zeroed(IMPORT_ROOM);
                // SAFETY: live buffers of the given lengths; outputs are locals.
                unsafe {
                    ok(ull::sketch_ull_estimate(b.ptr(), b.len, &mut e));
                    ok(ull::sketch_ull_register_estimate(b.ptr(), b.len, &mut r));
                    if ok(ull::sketch_ull_ml_estimate(b.ptr(), b.len, &mut ml)) && trusted {
                        assert!(ml >= 0.0, "ull: ML estimate {ml}");
                    }
                    ok(ull::sketch_ull_get_stats(b.ptr(), b.len, &mut stats));
                    ok(ull::sketch_ull_to_hll(b.ptr(), b.len, as_hll.ptr_mut(), as_hll.len));
                }
            },
        },
        6 => Family {
            verify: countmin::sketch_countmin_verify,
            import: countmin::sketch_countmin_import,
            export: countmin::sketch_countmin_export,
            merge: merge2!(countmin::sketch_countmin_merge),
            idempotent: false,
            exercise: |b, data, _trusted| {
                for (i, key) in keys(data).enumerate() {
                    let mut estimate = 0u64;
                    let weight = if i % 7 == 6 { u64::MAX } else { i as u64 };
                    // SAFETY: live buffer and key of the given lengths; output is a local.
                    unsafe {
                        let (k, n) = (key.as_ptr().cast(), key.len());
                        ok(countmin::sketch_countmin_add(b.ptr_mut(), b.len, k, n, weight));
                        if ok(countmin::sketch_countmin_estimate(b.ptr(), b.len, k, n, &mut estimate)) {
                            assert!(estimate >= weight.min(u32::MAX as u64), "count-min: underestimate");
                        }
                    }
                }
                let mut stats = countmin::sketch_countmin_stats::default();
                // SAFETY: as above.
                ok(unsafe { countmin::sketch_countmin_get_stats(b.ptr(), b.len, &mut stats) });
            },
        },
        7 => Family {
            verify: topk::sketch_topk_verify,
            import: topk::sketch_topk_import,
            export: topk::sketch_topk_export,
            merge: merge2!(topk::sketch_topk_merge),
            idempotent: false,
            exercise: |b, data, trusted| {
                for (i, key) in keys(data).enumerate() {
                    let mut estimate = topk::sketch_topk_key_estimate::default();
                    // SAFETY: live buffer and key of the given lengths; output is a local.
                    unsafe {
                        let (k, n) = (key.as_ptr().cast(), key.len());
                        ok(topk::sketch_topk_add(b.ptr_mut(), b.len, k, n, 1 + i as u64));
                        if ok(topk::sketch_topk_estimate(b.ptr(), b.len, k, n, &mut estimate)) && trusted {
                            assert!(estimate.error <= estimate.count, "top-k: error above count");
                        }
                    }
                }
                let empty = topk::sketch_topk_item { key: core::ptr::null(), key_len: 0, count: 0, error: 0 };
                let mut items = [empty; 16];
                let mut written = 0usize;
                let mut stats = topk::sketch_topk_stats::default();
                // SAFETY: live buffer; `items` holds 16 entries; outputs are locals.
                unsafe {
                    ok(topk::sketch_topk_list(b.ptr(), b.len, items.as_mut_ptr(), items.len(), &mut written));
                    ok(topk::sketch_topk_get_stats(b.ptr(), b.len, &mut stats));
                }
                assert!(written <= items.len());
            },
        },
        _ => Family {
            verify: minhash::sketch_minhash_verify,
            import: minhash::sketch_minhash_import,
            export: minhash::sketch_minhash_export,
            merge: merge2!(minhash::sketch_minhash_merge),
            idempotent: true,
            exercise: |b, data, trusted| {
                for key in keys(data) {
                    let mut changed = false;
                    // SAFETY: live buffer and key of the given lengths; output is a local.
                    ok(unsafe {
                        minhash::sketch_minhash_add(
                            b.ptr_mut(),
                            b.len,
                            key.as_ptr().cast(),
                            key.len(),
                            &mut changed,
                        )
                    });
                }
                let mut j = 0f64;
                let mut signature = [0u64; 64];
                let mut stats = minhash::sketch_minhash_stats::default();
                // SAFETY: live buffer; `signature` holds 64 values; outputs are locals.
                unsafe {
                    if ok(minhash::sketch_minhash_jaccard(b.ptr(), b.len, b.ptr(), b.len, &mut j)) && trusted
                    {
                        assert!((0.0..=1.0).contains(&j), "minhash: jaccard {j}");
                    }
                    ok(minhash::sketch_minhash_signature(
                        b.ptr(),
                        b.len,
                        signature.as_mut_ptr(),
                        signature.len(),
                    ));
                    ok(minhash::sketch_minhash_get_stats(b.ptr(), b.len, &mut stats));
                }
            },
        },
    }
}

/// Exports the live image in `b`; panics unless the export verifies.
fn export_verified(f: &Family, b: &Aligned) -> Vec<u8> {
    let mut out = vec![0u8; b.len];
    let mut written = 0usize;
    // SAFETY: live buffers of the given lengths; `written` is a local.
    let status = unsafe { (f.export)(b.ptr(), b.len, out.as_mut_ptr().cast(), out.len(), &mut written) };
    assert!(ok(status), "export of a live image failed: {status:?}");
    out.truncate(written);
    // SAFETY: `out` holds `written` bytes.
    let status = unsafe { (f.verify)(out.as_ptr().cast(), out.len()) };
    assert!(ok(status), "an exported image does not verify: {status:?}");
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, image)) = data.split_first() else { return };
    if image.len() > MAX_IMAGE {
        return;
    }
    let f = family(selector);
    // With the selector's top bit set, the input gets a valid checksum (as a
    // hostile writer would give it), so mutations reach the body checks
    // instead of stopping at the checksum.
    let mut resealed;
    let image = if selector & 0x80 != 0 && image.len() >= 48 {
        resealed = image.to_vec();
        let sum = sketches_core::image::checksum(&resealed);
        resealed[32..40].copy_from_slice(&sum.to_le_bytes());
        &resealed[..]
    } else {
        image
    };
    // Keys come from the end of the input, so they change with the image.
    let key_bytes = &image[image.len().saturating_sub(256)..];

    // 1. Untrusted bytes: verify and import agree; import writes nothing on failure.
    // SAFETY: `image` is a live slice (import needs no source alignment).
    let verified = ok(unsafe { (f.verify)(image.as_ptr().cast(), image.len()) });
    let mut live = Aligned::zeroed(IMPORT_ROOM.max(image.len()));
    // SAFETY: live buffers of the given lengths.
    let imported = ok(unsafe { (f.import)(image.as_ptr().cast(), image.len(), live.ptr_mut(), live.len) });
    assert_eq!(verified, imported, "verify and import disagree");
    if !imported {
        assert!(live.bytes().iter().all(|b| *b == 0), "a failed import wrote to its destination");
    } else {
        // 2. The live image's own length, then the round trip to the same bytes.
        let mut info = image::sketch_image_info::default();
        // SAFETY: live buffer; `info` is a local.
        assert!(ok(unsafe { image::sketch_image_inspect(live.ptr(), live.len, &mut info) }));
        live.len = usize::try_from(info.image_bytes).unwrap_or(usize::MAX).min(live.len);
        assert_eq!(export_verified(&f, &live), image, "export does not give back the imported bytes");

        // 3. Merging with its own copy.
        let copy = Aligned::copy_of(live.bytes());
        ok((f.merge)(&mut live, &copy));
        if f.idempotent {
            // The body is unchanged (headers may drop a stream-only estimate).
            let body = usize::try_from(info.header_bytes).unwrap_or(usize::MAX).min(live.len);
            assert_eq!(
                live.bytes()[body..],
                copy.bytes()[body..],
                "merge with itself changed an idempotent sketch"
            );
        }

        // 4. Operations keep the image valid.
        (f.exercise)(&mut live, key_bytes, true);
        let snapshot = Aligned::copy_of(live.bytes());
        ok((f.merge)(&mut live, &snapshot));
        export_verified(&f, &live);
    }

    // 5. The zero-copy path on the raw bytes: statuses only, never a crash.
    let mut raw = Aligned::copy_of(image);
    (f.exercise)(&mut raw, key_bytes, false);
    let raw_copy = Aligned::copy_of(image);
    ok((f.merge)(&mut raw, &raw_copy));
});
