//! Fuzz target: untrusted bytes through every family's C ABI.
//!
//! Input: one selector byte (the family), then the bytes of an image. For the
//! selected family the target checks, through the C functions a C, Go or
//! Java caller uses:
//!
//! * `verify` and `import` agree, and never report an internal error (a
//!   caught panic); `import_size` accepts whatever imports, gives the length
//!   the import writes, and writes nothing when it refuses; `sketch_image_inspect`
//!   returns a status on any bytes, and `sketch_image_inspect_header` of the
//!   first 48 agrees with it (the same fields, or the same error, or a
//!   recorded length longer than the bytes);
//! * an accepted image exports back to exactly the input bytes;
//! * any sequence of operations on the imported image (keys cut from the
//!   input) leaves an image that still exports and verifies, and merging a
//!   sketch with its own copy leaves the body of idempotent families unchanged;
//! * the same operations on the raw bytes (the zero-copy path, no checksum)
//!   return a status, never crash;
//! * the concurrent forms (Bloom, split-block, HLL, ULL: `_add_concurrent`,
//!   `_contains_concurrent`, `_estimate_concurrent`) take every other key and
//!   agree with the exclusive forms; an imported image they changed still
//!   exports and verifies;
//! * the token forms (Bloom, split-block, HLL: `_with_token`) with the
//!   image's own token answer as the plain calls, and with a forged token
//!   (the buffer's identity words copied without validation, so the checks
//!   are skipped on whatever the header holds) return a status, never crash;
//! * the view forms (`_view_add`, `_view_contains`) with the image's own view
//!   answer as the plain calls, and with a forged view (the buffer with the
//!   forged token: parameters decoded from whatever the header holds) return
//!   a status, never crash;
//! * split-block filters: the input's whole 32-byte blocks loaded as a
//!   Parquet bitset (`sketch_sbbf_plan_parquet_bitset`,
//!   `sketch_sbbf_load_parquet_bitset`) make a live image that takes keys,
//!   folds (`sketch_sbbf_fold_to_target_fpp`), exports and verifies; the folds
//!   on the raw input return a status.
//!
//! The selector's low 7 bits pick the family (modulo the family count); its top bit re-seals the input
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
    /// The live size `import` needs (checks headers and length only).
    import_size: unsafe extern "C" fn(*const c_void, usize, *mut usize) -> sketch_status,
    export: unsafe extern "C" fn(*const c_void, usize, *mut c_void, usize, *mut usize) -> sketch_status,
    /// Merge (or union) of `src` into `dst`; cuckoo gets a scratch buffer.
    /// None for static filters (binary fuse), which have no merge.
    merge: Option<fn(&mut Aligned, &Aligned) -> sketch_status>,
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
        Some(|d: &mut Aligned, s: &Aligned| unsafe { $f(d.ptr_mut(), d.len, s.ptr(), s.len) })
    };
}

/// Families: the selector's low 7 bits modulo this (the top bit re-seals).
const FAMILIES: u8 = 11;

/// A token copied from the buffer's words without validating them: the
/// common header's first four words and the family's identity words
/// (`(offset, mask)`), as a caller forging one would. With it, the
/// `_with_token` calls skip every header check.
fn forged_token(b: &Aligned, identity: &[(usize, u64)]) -> image::sketch_token {
    let word = |off: usize| {
        b.bytes().get(off..off + 8).map_or(0, |w| u64::from_le_bytes(w.try_into().unwrap_or([0; 8])))
    };
    let mut token = image::sketch_token::default();
    for (i, w) in token.words.iter_mut().take(4).enumerate() {
        *w = word(8 * i);
    }
    for (w, &(off, mask)) in token.words.iter_mut().skip(4).zip(identity) {
        *w = word(off) & mask;
    }
    token
}

/// The image's own token (all zero when the buffer does not validate).
fn own_token(
    b: &Aligned,
    make: unsafe extern "C" fn(*const c_void, usize, *mut image::sketch_token) -> sketch_status,
) -> image::sketch_token {
    let mut token = image::sketch_token::default();
    // SAFETY: live buffer of the given length; output is a local.
    ok(unsafe { make(b.ptr(), b.len, &mut token) });
    token
}

/// The image's own view (`None` when the buffer does not validate), and a
/// view of the buffer with `token` forged from its words.
fn views(
    b: &mut Aligned,
    make: unsafe extern "C" fn(*mut c_void, usize, *mut image::sketch_view) -> sketch_status,
    token: image::sketch_token,
) -> (Option<image::sketch_view>, image::sketch_view) {
    let mut view = core::mem::MaybeUninit::<image::sketch_view>::uninit();
    // SAFETY: live buffer of the given length; output is a local, read only when written.
    let own = (unsafe { make(b.ptr_mut(), b.len, view.as_mut_ptr()) } == SKETCH_OK)
        .then(|| unsafe { view.assume_init() });
    (own, image::sketch_view { image: b.ptr_mut(), len: b.len, token })
}

/// Bloom and split-block filters: the same C functions under two prefixes.
macro_rules! bit_filter {
    ($m:ident, [$verify:ident, $import:ident, $import_size:ident, $export:ident, $union:ident], [$add:ident, $contains:ident, $get_stats:ident, $stats:ident], [$add_c:ident, $contains_c:ident], [$token:ident, $add_t:ident, $contains_t:ident, $identity:expr], [$view:ident, $add_v:ident, $contains_v:ident]) => {
        Family {
            verify: $m::$verify,
            import: $m::$import,
            import_size: $m::$import_size,
            export: $m::$export,
            merge: merge2!($m::$union),
            idempotent: true,
            exercise: |b, data, _trusted| {
                let token = own_token(b, $m::$token);
                let forged = forged_token(b, $identity);
                let (view, forged_view) = views(b, $m::$view, forged);
                for (i, key) in keys(data).enumerate() {
                    let (mut was_new, mut present, mut shared) = (false, false, false);
                    let (k, n) = (key.as_ptr().cast(), key.len());
                    // SAFETY: live buffer and key of the given lengths; outputs are locals.
                    unsafe {
                        match i % 4 {
                            0 => ok($m::$add(b.ptr_mut(), b.len, k, n, &mut was_new)),
                            1 => ok($m::$add_t(b.ptr_mut(), b.len, &token, k, n, &mut was_new)),
                            2 => ok($m::$add_c(b.ptr_mut(), b.len, k, n, &mut was_new)),
                            _ => ok($m::$add_t(b.ptr_mut(), b.len, &forged, k, n, &mut was_new)),
                        };
                        let exclusive = $m::$contains(b.ptr(), b.len, k, n, &mut present);
                        let mut with_token = false;
                        if ok($m::$contains_t(b.ptr(), b.len, &token, k, n, &mut with_token))
                            && exclusive == SKETCH_OK
                        {
                            assert_eq!(
                                with_token,
                                present,
                                "{}: token and plain answers differ",
                                stringify!($m)
                            );
                        }
                        if exclusive == SKETCH_OK {
                            assert!(ok($m::$contains_t(b.ptr(), b.len, &token, k, n, &mut with_token)));
                        }
                        ok($m::$contains_t(b.ptr(), b.len, &forged, k, n, &mut with_token));
                        if let Some(view) = view.as_ref() {
                            let mut with_view = false;
                            if i % 8 == 5 {
                                ok($m::$add_v(view, k, n, &mut was_new));
                            }
                            if ok($m::$contains_v(view, k, n, &mut with_view)) && exclusive == SKETCH_OK {
                                assert_eq!(
                                    with_view,
                                    present,
                                    "{}: view and plain answers differ",
                                    stringify!($m)
                                );
                            }
                        }
                        if i % 8 == 7 {
                            ok($m::$add_v(&forged_view, k, n, &mut was_new));
                        }
                        ok($m::$contains_v(&forged_view, k, n, &mut with_token));
                        if ok(exclusive) {
                            assert!(present, "{}: an added key is absent", stringify!($m));
                        }
                        // The concurrent forms check the immutable header only (the
                        // counters move under concurrent adds): they refuse a subset
                        // of what the exclusive forms refuse, and answer alike.
                        let concurrent = $m::$contains_c(b.ptr(), b.len, k, n, &mut shared);
                        if ok(concurrent) && exclusive == SKETCH_OK {
                            assert_eq!(
                                shared,
                                present,
                                "{}: concurrent and exclusive answers differ",
                                stringify!($m)
                            );
                        }
                        if concurrent != SKETCH_OK {
                            assert_ne!(
                                exclusive,
                                SKETCH_OK,
                                "{}: only the concurrent query refused",
                                stringify!($m)
                            );
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
    match (selector & 0x7f) % FAMILIES {
        0 => bit_filter!(
            bloom,
            [
                sketch_bloom_verify,
                sketch_bloom_import,
                sketch_bloom_import_size,
                sketch_bloom_export,
                sketch_bloom_union
            ],
            [sketch_bloom_add, sketch_bloom_contains, sketch_bloom_get_stats, sketch_bloom_stats],
            [sketch_bloom_add_concurrent, sketch_bloom_contains_concurrent],
            [
                sketch_bloom_token,
                sketch_bloom_add_with_token,
                sketch_bloom_contains_with_token,
                &[(48, u64::MAX), (56, u64::MAX), (64, u64::MAX), (72, u64::MAX)]
            ],
            [sketch_bloom_view, sketch_bloom_view_add, sketch_bloom_view_contains]
        ),
        1 => bit_filter!(
            sbbf,
            [
                sketch_sbbf_verify,
                sketch_sbbf_import,
                sketch_sbbf_import_size,
                sketch_sbbf_export,
                sketch_sbbf_union
            ],
            [sketch_sbbf_add, sketch_sbbf_contains, sketch_sbbf_get_stats, sketch_sbbf_stats],
            [sketch_sbbf_add_concurrent, sketch_sbbf_contains_concurrent],
            [
                sketch_sbbf_token,
                sketch_sbbf_add_with_token,
                sketch_sbbf_contains_with_token,
                &[(48, u64::MAX), (56, u64::MAX), (64, u64::MAX)]
            ],
            [sketch_sbbf_view, sketch_sbbf_view_add, sketch_sbbf_view_contains]
        ),
        2 => Family {
            verify: counting::sketch_counting_verify,
            import: counting::sketch_counting_import,
            import_size: counting::sketch_counting_import_size,
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
            import_size: cuckoo::sketch_cuckoo_import_size,
            export: cuckoo::sketch_cuckoo_export,
            merge: Some(|d, s| {
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
            }),
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
            import_size: hll::sketch_hll_import_size,
            export: hll::sketch_hll_export,
            merge: merge2!(hll::sketch_hll_merge),
            idempotent: true,
            exercise: |b, data, trusted| {
                let token = own_token(b, hll::sketch_hll_token);
                let forged = forged_token(b, &[(48, 0xff)]);
                let (view, forged_view) = views(b, hll::sketch_hll_view, forged);
                for (i, key) in keys(data).enumerate() {
                    let mut changed = false;
                    let (k, n) = (key.as_ptr().cast(), key.len());
                    // SAFETY: live buffer and key of the given lengths; output is a local.
                    // A small-mode sketch refuses concurrent adds (SKETCH_SMALL_MODE);
                    // the third key densifies it so that later ones reach the registers.
                    // Raw bytes may hold a set straddle lock word, on which a
                    // concurrent add spins for about a second before it fails:
                    // only imported images (reserved words zero) take them.
                    unsafe {
                        if i % 4 == 1 {
                            ok(hll::sketch_hll_add_with_token(
                                b.ptr_mut(),
                                b.len,
                                &token,
                                k,
                                n,
                                &mut changed,
                            ));
                        } else if i % 4 == 3 {
                            ok(hll::sketch_hll_add_with_token(
                                b.ptr_mut(),
                                b.len,
                                &forged,
                                k,
                                n,
                                &mut changed,
                            ));
                        } else if i % 2 == 0 || !trusted {
                            ok(hll::sketch_hll_add(b.ptr_mut(), b.len, k, n, &mut changed));
                        } else {
                            ok(hll::sketch_hll_add_concurrent(b.ptr_mut(), b.len, k, n, &mut changed));
                        }
                        if i % 8 == 5 {
                            if let Some(view) = view.as_ref() {
                                ok(hll::sketch_hll_view_add(view, k, n, &mut changed));
                            }
                        } else if i % 8 == 7 {
                            ok(hll::sketch_hll_view_add(&forged_view, k, n, &mut changed));
                        }
                        if i == 2 {
                            ok(hll::sketch_hll_densify(b.ptr_mut(), b.len));
                        }
                    }
                }
                let mut shared = 0f64;
                // SAFETY: live buffer of the given length; output is a local.
                ok(unsafe { hll::sketch_hll_estimate_concurrent(b.ptr(), b.len, &mut shared) });
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
            import_size: ull::sketch_ull_import_size,
            export: ull::sketch_ull_export,
            merge: merge2!(ull::sketch_ull_merge),
            idempotent: true,
            exercise: |b, data, trusted| {
                for (i, key) in keys(data).enumerate() {
                    let mut changed = false;
                    let (k, n) = (key.as_ptr().cast(), key.len());
                    // SAFETY: live buffer and key of the given lengths; output is a local.
                    unsafe {
                        if i % 2 == 0 {
                            ok(ull::sketch_ull_add(b.ptr_mut(), b.len, k, n, &mut changed));
                        } else {
                            ok(ull::sketch_ull_add_concurrent(b.ptr_mut(), b.len, k, n, &mut changed));
                        }
                    }
                }
                let mut shared = 0f64;
                // SAFETY: live buffer of the given length; output is a local.
                ok(unsafe { ull::sketch_ull_estimate_concurrent(b.ptr(), b.len, &mut shared) });
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
            import_size: countmin::sketch_countmin_import_size,
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
            import_size: topk::sketch_topk_import_size,
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
        9 => Family {
            verify: fuse::sketch_fuse_verify,
            import: fuse::sketch_fuse_import,
            import_size: fuse::sketch_fuse_import_size,
            export: fuse::sketch_fuse_export,
            merge: None,
            idempotent: true,
            exercise: |b, data, trusted| {
                // Queries only (a static filter): every shape agrees with the
                // single calls; stats stay within the plan.
                let ks: Vec<&[u8]> = keys(data).collect();
                let slices: Vec<sketch_slice> =
                    ks.iter().map(|k| sketch_slice { ptr: k.as_ptr().cast(), len: k.len() }).collect();
                let (mut packed, mut offsets) = (Vec::new(), vec![0u32]);
                for k in &ks {
                    packed.extend_from_slice(k);
                    offsets.push(packed.len() as u32);
                }
                let ints: Vec<u64> =
                    ks.iter().map(|k| k.iter().fold(0u64, |h, b| h << 8 | u64::from(*b))).collect();
                let n = ks.len();
                let (mut by_slice, mut by_packed, mut by_int) =
                    (vec![false; n], vec![false; n], vec![false; n]);
                let mut stats = fuse::sketch_fuse_stats::default();
                // SAFETY: live buffers and arrays of the given lengths; outputs are locals.
                unsafe {
                    let a = ok(fuse::sketch_fuse_contains_batch(
                        b.ptr(),
                        b.len,
                        slices.as_ptr(),
                        n,
                        by_slice.as_mut_ptr(),
                    ));
                    let p = ok(fuse::sketch_fuse_contains_packed(
                        b.ptr(),
                        b.len,
                        packed.as_ptr().cast(),
                        packed.len(),
                        offsets.as_ptr(),
                        n,
                        by_packed.as_mut_ptr(),
                    ));
                    let u = ok(fuse::sketch_fuse_contains_u64_batch(
                        b.ptr(),
                        b.len,
                        ints.as_ptr(),
                        n,
                        by_int.as_mut_ptr(),
                    ));
                    assert_eq!((a, a), (p, u), "fuse: batch shapes disagree on the status");
                    if a {
                        assert_eq!(by_slice, by_packed, "fuse: packed and slice queries differ");
                    }
                    for (i, k) in ks.iter().enumerate() {
                        let (mut one, mut two, mut three) = (false, false, false);
                        if ok(fuse::sketch_fuse_contains(
                            b.ptr(),
                            b.len,
                            k.as_ptr().cast(),
                            k.len(),
                            &mut one,
                        )) {
                            assert_eq!(one, by_slice[i], "fuse: batch differs from a single query");
                            let h = hash::sketch_hash(k.as_ptr().cast(), k.len(), stats_seed(b));
                            assert!(ok(fuse::sketch_fuse_contains_hash(b.ptr(), b.len, h, &mut two)));
                            assert_eq!(one, two, "fuse: hash query differs from the key query");
                            assert!(ok(fuse::sketch_fuse_contains_u64(b.ptr(), b.len, ints[i], &mut three)));
                            assert_eq!(three, by_int[i], "fuse: u64 batch differs from a single query");
                        }
                    }
                    if ok(fuse::sketch_fuse_get_stats(b.ptr(), b.len, &mut stats)) && trusted {
                        assert!(stats.keys <= stats.params.keys, "fuse: more keys stored than planned");
                        assert!(stats.attempts >= 1, "fuse: zero build attempts");
                    }
                }
            },
        },
        10 => Family {
            verify: ell::sketch_ell_verify,
            import: ell::sketch_ell_import,
            import_size: ell::sketch_ell_import_size,
            export: ell::sketch_ell_export,
            merge: merge2!(ell::sketch_ell_merge),
            idempotent: true,
            exercise: |b, data, trusted| {
                for key in keys(data) {
                    let mut changed = false;
                    // SAFETY: live buffer and key of the given lengths; output is a local.
                    ok(unsafe {
                        ell::sketch_ell_add(b.ptr_mut(), b.len, key.as_ptr().cast(), key.len(), &mut changed)
                    });
                }
                let (mut e, mut ml, mut mart) = (0f64, 0f64, 0f64);
                let mut stats = ell::sketch_ell_stats::default();
                let mut down = Aligned::zeroed(IMPORT_ROOM);
                let target = ell::sketch_ell_params {
                    t: 2,
                    d: if data.len() % 2 == 0 { 20 } else { 24 },
                    precision: 2 + data.len() as u32 % 9,
                    reserved: 0,
                };
                // SAFETY: live buffers of the given lengths; outputs are locals.
                unsafe {
                    let estimated = ok(ell::sketch_ell_estimate(b.ptr(), b.len, &mut e));
                    if ok(ell::sketch_ell_ml_estimate(b.ptr(), b.len, &mut ml)) && trusted {
                        assert!(ml >= 0.0, "ell: ML estimate {ml}");
                    }
                    if ok(ell::sketch_ell_martingale_estimate(b.ptr(), b.len, &mut mart)) && trusted {
                        assert!(mart.is_nan() || mart >= 0.0, "ell: martingale estimate {mart}");
                        assert!(estimated && (e == mart || (mart.is_nan() && e == ml)), "ell: estimate {e}");
                    }
                    ok(ell::sketch_ell_get_stats(b.ptr(), b.len, &mut stats));
                    ok(ell::sketch_ell_downsize(b.ptr(), b.len, down.ptr_mut(), down.len, &target));
                }
            },
        },
        _ => Family {
            verify: minhash::sketch_minhash_verify,
            import: minhash::sketch_minhash_import,
            import_size: minhash::sketch_minhash_import_size,
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

/// The seed in the common header of `b` (0 when it has none).
fn stats_seed(b: &Aligned) -> u64 {
    let mut info = image::sketch_image_info::default();
    // SAFETY: live buffer; `info` is a local.
    if ok(unsafe { image::sketch_image_inspect(b.ptr(), b.len, &mut info) }) {
        info.seed
    } else {
        0
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
    // The size a caller allocates before importing: written only on success,
    // and when the import succeeds, exactly the live image's length.
    let mut size = usize::MAX;
    // SAFETY: `image` is a live slice; `size` is a local.
    let sized = ok(unsafe { (f.import_size)(image.as_ptr().cast(), image.len(), &mut size) });
    if !sized {
        assert_eq!(size, usize::MAX, "a failed import_size wrote its output");
        assert!(!imported, "imported, but import_size refused");
    }
    let mut raw_info = image::sketch_image_info::default();
    // SAFETY: `image` is a live slice; `raw_info` is a local.
    let inspected = unsafe { image::sketch_image_inspect(image.as_ptr().cast(), image.len(), &mut raw_info) };
    // What a stream reader learns from the first 48 bytes alone: the image's
    // length and the same fields where inspect accepts the whole, the same
    // error where the common header is bad.
    let mut head_info = image::sketch_image_info::default();
    let head_len = image.len().min(48);
    // SAFETY: `image` holds at least `head_len` bytes; `head_info` is a local.
    let by_header =
        unsafe { image::sketch_image_inspect_header(image.as_ptr().cast(), head_len, &mut head_info) };
    if ok(inspected) {
        assert!(ok(by_header), "inspect accepted an image whose header inspect_header refuses");
        assert_eq!(format!("{head_info:?}"), format!("{raw_info:?}"), "inspect_header and inspect differ");
    } else if ok(by_header) {
        assert!(head_info.image_bytes > image.len() as u64, "inspect refused a header whose image fits");
    } else {
        assert_eq!(by_header, inspected, "inspect_header and inspect give different errors");
    }
    if imported {
        assert!(ok(by_header), "imported an image whose header inspect_header refuses");
    }
    if !imported {
        assert!(live.bytes().iter().all(|b| *b == 0), "a failed import wrote to its destination");
    } else {
        // 2. The live image's own length, then the round trip to the same bytes.
        let mut info = image::sketch_image_info::default();
        // SAFETY: live buffer; `info` is a local.
        assert!(ok(unsafe { image::sketch_image_inspect(live.ptr(), live.len, &mut info) }));
        assert_eq!(
            Ok(size),
            usize::try_from(info.image_bytes),
            "import_size differs from the imported length"
        );
        live.len = usize::try_from(info.image_bytes).unwrap_or(usize::MAX).min(live.len);
        assert_eq!(export_verified(&f, &live), image, "export does not give back the imported bytes");

        // 3. Merging with its own copy.
        let copy = Aligned::copy_of(live.bytes());
        if let Some(merge) = f.merge {
            ok(merge(&mut live, &copy));
        }
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
        if let Some(merge) = f.merge {
            ok(merge(&mut live, &snapshot));
        }
        export_verified(&f, &live);
    }

    // 5. The zero-copy path on the raw bytes: statuses only, never a crash.
    let mut raw = Aligned::copy_of(image);
    (f.exercise)(&mut raw, key_bytes, false);
    let raw_copy = Aligned::copy_of(image);
    if let Some(merge) = f.merge {
        ok(merge(&mut raw, &raw_copy));
    }

    // 6. Split-block filters: the input's bytes as a Parquet bitset.
    if (selector & 0x7f) % FAMILIES == 1 {
        parquet_bitset(image, key_bytes);
    }
});

/// Loads `data` (cut to whole 32-byte blocks) as the bitset of a Parquet
/// column chunk, as `sketch_sbbf_plan_parquet_bitset` and
/// `sketch_sbbf_load_parquet_bitset` do for bytes read out of a file: any
/// bytes make a live image that answers, exports and verifies, folds, and
/// still exports and verifies; the folds on the raw input return a status.
fn parquet_bitset(data: &[u8], keys_from: &[u8]) {
    let bitset = &data[..data.len() / 32 * 32];
    let fpr = [0.01, 1e-6, 0.5, 1e-300][data.len() % 4];
    let mut params = sbbf::sketch_sbbf_params::default();
    let mut size = 0u64;
    // SAFETY: outputs are locals.
    let planned = ok(unsafe { sbbf::sketch_sbbf_plan_parquet_bitset(bitset.len(), fpr, &mut params) });
    assert_eq!(planned, !bitset.is_empty(), "plan of a {}-byte bitset", bitset.len());
    if planned && ok(unsafe { sbbf::sketch_sbbf_size(&params, &mut size) }) {
        let mut live = Aligned::zeroed(usize::try_from(size).unwrap_or(0));
        // SAFETY: live buffers of the given lengths; `params` is a local.
        let loaded = ok(unsafe {
            sbbf::sketch_sbbf_load_parquet_bitset(
                live.ptr_mut(),
                live.len,
                bitset.as_ptr().cast(),
                bitset.len(),
                &params,
            )
        });
        assert!(loaded, "a planned bitset did not load");
        let f = family(1);
        export_verified(&f, &live);
        for key in keys(keys_from) {
            let mut present = false;
            // SAFETY: live buffer and key of the given lengths; output is a local.
            unsafe {
                let (k, n) = (key.as_ptr().cast(), key.len());
                assert!(ok(sbbf::sketch_sbbf_add(live.ptr_mut(), live.len, k, n, core::ptr::null_mut())));
                assert!(ok(sbbf::sketch_sbbf_contains(live.ptr(), live.len, k, n, &mut present)));
            }
            assert!(present, "sbbf: a key added to a loaded bitset is absent");
        }
        let (mut folds, mut new_len) = (0u32, 0usize);
        // SAFETY: live buffer; outputs are locals.
        assert!(ok(unsafe {
            sbbf::sketch_sbbf_fold_to_target_fpp(live.ptr_mut(), live.len, fpr, &mut folds, &mut new_len)
        }));
        live.len = new_len;
        export_verified(&f, &live);
    }
    let mut raw = Aligned::copy_of(data);
    let (mut folds, mut new_len) = (0u32, 0usize);
    // SAFETY: live buffer; outputs are locals.
    unsafe {
        ok(sbbf::sketch_sbbf_fold(raw.ptr_mut(), raw.len, u32::from(data.len() as u8 % 4), &mut new_len));
        ok(sbbf::sketch_sbbf_fold_to_target_fpp(raw.ptr_mut(), raw.len, fpr, &mut folds, &mut new_len));
    }
}
