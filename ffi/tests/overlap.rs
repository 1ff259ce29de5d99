//! Arguments that share memory with what a call writes get `SKETCH_OVERLAP`
//! and change nothing: keys inside the image a single-key update writes
//! (plain, token, kept-view and concurrent forms), batch keys, weights, hashes and
//! outputs inside the image or over each other, for every family and key
//! shape, and the other calls that fill output arrays. Arguments that only
//! touch (one ends where the next begins) still work, and so do read-only
//! calls whose keys lie inside the image.
//!
//! Rust may hold no other view of bytes it writes through a mutable one:
//! before these checks, a key stored inside the image it was added to was
//! undefined behaviour. `make miri` runs this file under Miri, which reports
//! any remaining case as undefined behaviour rather than as a wrong status.

use core::ffi::c_void;
use sketches_ffi::bloom::*;
use sketches_ffi::counting::*;
use sketches_ffi::countmin::*;
use sketches_ffi::cuckoo::*;
use sketches_ffi::ell::*;
use sketches_ffi::hash::*;
use sketches_ffi::hll::*;
use sketches_ffi::image::{sketch_token, sketch_view};
use sketches_ffi::minhash::*;
use sketches_ffi::sbbf::*;
use sketches_ffi::topk::*;
use sketches_ffi::ull::*;
use sketches_ffi::*;

mod common;
use common::*;

/// A single-key update: image, its length, key, key length.
type KeyCall = Box<dyn Fn(*mut c_void, usize, *const c_void, usize) -> sketch_status>;

/// A packed batch update: image, length, data, data length, offsets, count,
/// per-key output (NULL allowed).
type PackedCall =
    Box<dyn Fn(*mut c_void, usize, *const c_void, usize, *const u32, usize, *mut u8) -> sketch_status>;

/// Bytes a test key takes; two keys of 8 bytes each in the packed cases.
const KEY: usize = 16;
const PAIR: [u32; 3] = [0, 8, 16];

/// A key inside the image, or over its last byte, is refused and changes
/// nothing; the same key right after the image, in the same allocation, is
/// added.
fn check_single(name: &str, fresh: &Img, call: &KeyCall) {
    let words = fresh.0.len();
    let n = words * 8;
    // The image followed by 32 more bytes, in one allocation.
    let mut joined = fresh.0.clone();
    joined.extend([0x5a5a_5a5a_5a5a_5a5au64; 4]);
    let q = joined.as_mut_ptr().cast::<u8>();
    for at in [0, n / 2, n - KEY, n - 1] {
        // `at < n`: the key starts inside the image.
        let key = q.wrapping_add(at);
        assert_eq!(
            call(q.cast(), n, key.cast(), KEY),
            SKETCH_OVERLAP,
            "{name}: key at byte {at} of the image"
        );
        assert_eq!(joined[..words], fresh.0[..], "{name}: a refused call changed the image");
    }
    let after = q.wrapping_add(n);
    assert_eq!(call(q.cast(), n, after.cast(), KEY), SKETCH_OK, "{name}: a key right after the image");
    assert_ne!(joined[..words], fresh.0[..], "{name}: the key right after the image was not added");
}

/// The packed batch refuses data inside the image, an output inside the
/// image and an output over the data, changing nothing; with the output
/// right after the data, or the data apart, it adds.
fn check_packed(name: &str, fresh: &Img, with_out: bool, call: &PackedCall) {
    let mut img = fresh.clone();
    let (p, n) = (img.ptr(), img.len());
    let null = std::ptr::null_mut();
    let inside = p.cast::<u8>().wrapping_add(n - KEY);
    let mut data = vec![0x11u8; KEY + 2];
    let d = data.as_mut_ptr();
    assert_eq!(
        call(p, n, inside.cast(), KEY, PAIR.as_ptr(), 2, null),
        SKETCH_OVERLAP,
        "{name}: data in the image"
    );
    if with_out {
        assert_eq!(
            call(p, n, d.cast(), KEY, PAIR.as_ptr(), 2, inside),
            SKETCH_OVERLAP,
            "{name}: output in the image"
        );
        let over_data = d.wrapping_add(KEY);
        assert_eq!(
            call(p, n, d.cast(), KEY + 2, PAIR.as_ptr(), 2, over_data),
            SKETCH_OVERLAP,
            "{name}: output over the data"
        );
    }
    assert_eq!(img, *fresh, "{name}: a refused call changed the image");
    let (p, n) = (img.ptr(), img.len());
    let out = if with_out { d.wrapping_add(KEY) } else { null };
    assert_eq!(
        call(p, n, d.cast(), KEY, PAIR.as_ptr(), 2, out),
        SKETCH_OK,
        "{name}: output right after the data"
    );
    assert_ne!(img, *fresh, "{name}: the disjoint call added nothing");
}

fn single_calls() -> Vec<(&'static str, Img, KeyCall)> {
    let bool_out = |f: unsafe extern "C" fn(
        *mut c_void,
        usize,
        *const c_void,
        usize,
        *mut bool,
    ) -> sketch_status|
     -> KeyCall {
        Box::new(move |b, n, k, kl| {
            let mut out = false;
            // SAFETY: the arguments are valid or deliberately overlapping (refused).
            unsafe { f(b, n, k, kl, &mut out) }
        })
    };
    let weighted = |f: unsafe extern "C" fn(
        *mut c_void,
        usize,
        *const c_void,
        usize,
        u64,
    ) -> sketch_status|
     -> KeyCall {
        // SAFETY: as above.
        Box::new(move |b, n, k, kl| unsafe { f(b, n, k, kl, 3) })
    };
    let plain =
        |f: unsafe extern "C" fn(*mut c_void, usize, *const c_void, usize) -> sketch_status| -> KeyCall {
            // SAFETY: as above.
            Box::new(move |b, n, k, kl| unsafe { f(b, n, k, kl) })
        };
    type TokenAdd = unsafe extern "C" fn(
        *mut c_void,
        usize,
        *const sketch_token,
        *const c_void,
        usize,
        *mut bool,
    ) -> sketch_status;
    type TokenOf = unsafe extern "C" fn(*const c_void, usize, *mut sketch_token) -> sketch_status;
    let with_token = |token_of: TokenOf, add: TokenAdd| -> KeyCall {
        Box::new(move |b, n, k, kl| {
            let mut token = sketch_token { words: [0; 8] };
            let mut out = false;
            // SAFETY: as above; the token is made of the same image first.
            unsafe {
                assert_eq!(token_of(b, n, &mut token), SKETCH_OK);
                add(b, n, &token, k, kl, &mut out)
            }
        })
    };
    type ViewAdd = unsafe extern "C" fn(*const sketch_view, *const c_void, usize, *mut bool) -> sketch_status;
    type ViewOf = unsafe extern "C" fn(*mut c_void, usize, *mut sketch_view) -> sketch_status;
    // A view of the image, then its add: the views' fast paths (keys of at
    // most 16 bytes) check overlaps apart from the full paths.
    let with_view = |view_of: ViewOf, add: ViewAdd| -> KeyCall {
        Box::new(move |b, n, k, kl| {
            let mut view =
                sketch_view { image: std::ptr::null_mut(), len: 0, token: sketch_token { words: [0; 8] } };
            let mut out = false;
            // SAFETY: as above; the view is made of the same image first.
            unsafe {
                assert_eq!(view_of(b, n, &mut view), SKETCH_OK);
                add(&view, k, kl, &mut out)
            }
        })
    };
    let dense_hll = {
        let mut img = hll_fresh();
        // SAFETY: a valid image.
        assert_eq!(unsafe { sketch_hll_densify(img.ptr(), img.len()) }, SKETCH_OK);
        img
    };
    vec![
        ("bloom_add", bloom_fresh(), bool_out(sketch_bloom_add)),
        ("bloom_add_with_token", bloom_fresh(), with_token(sketch_bloom_token, sketch_bloom_add_with_token)),
        ("bloom_view_add", bloom_fresh(), with_view(sketch_bloom_view, sketch_bloom_view_add)),
        ("bloom_add_concurrent", bloom_fresh(), bool_out(sketch_bloom_add_concurrent)),
        ("sbbf_add", sbbf_fresh(SKETCH_SBBF_NATIVE), bool_out(sketch_sbbf_add)),
        (
            "sbbf_add_with_token",
            sbbf_fresh(SKETCH_SBBF_NATIVE),
            with_token(sketch_sbbf_token, sketch_sbbf_add_with_token),
        ),
        ("sbbf_view_add", sbbf_fresh(SKETCH_SBBF_NATIVE), with_view(sketch_sbbf_view, sketch_sbbf_view_add)),
        (
            "sbbf_view_add_parquet",
            sbbf_fresh(SKETCH_SBBF_PARQUET),
            with_view(sketch_sbbf_view, sketch_sbbf_view_add),
        ),
        ("sbbf_add_concurrent", sbbf_fresh(SKETCH_SBBF_NATIVE), bool_out(sketch_sbbf_add_concurrent)),
        ("counting_add", counting_fresh(), bool_out(sketch_counting_add)),
        ("cuckoo_add", cuckoo_fresh(), plain(sketch_cuckoo_add)),
        ("hll_add", hll_fresh(), bool_out(sketch_hll_add)),
        ("hll_add_with_token", hll_fresh(), with_token(sketch_hll_token, sketch_hll_add_with_token)),
        ("hll_view_add", hll_fresh(), with_view(sketch_hll_view, sketch_hll_view_add)),
        ("hll_view_add_dense", dense_hll.clone(), with_view(sketch_hll_view, sketch_hll_view_add)),
        ("hll_add_concurrent", dense_hll, bool_out(sketch_hll_add_concurrent)),
        ("ull_add", ull_fresh(), bool_out(sketch_ull_add)),
        ("ull_add_concurrent", ull_fresh(), bool_out(sketch_ull_add_concurrent)),
        ("ell_add", ell_fresh(20), bool_out(sketch_ell_add)),
        ("minhash_add", minhash_fresh(), bool_out(sketch_minhash_add)),
        ("countmin_add", countmin_fresh(), weighted(sketch_countmin_add)),
        ("topk_add", topk_fresh(), weighted(sketch_topk_add)),
    ]
}

#[test]
fn single_key_updates_refuse_keys_inside_the_image() {
    for (name, fresh, call) in single_calls() {
        check_single(name, &fresh, &call);
    }
}

/// The removes: a key right after the image is removed only if present, so
/// `check_single`'s last step adds nothing there; these check the refusal
/// and that a disjoint copy of the key is removed.
#[test]
fn removes_refuse_keys_inside_the_image_and_remove_disjoint_ones() {
    let key = [0x5au8; KEY];
    for (name, remove) in [
        ("counting", sketch_counting_remove as unsafe extern "C" fn(_, _, _, _) -> _),
        ("cuckoo", sketch_cuckoo_remove),
    ] {
        let mut img = if name == "counting" { counting_fresh() } else { cuckoo_fresh() };
        let (p, n) = (img.ptr(), img.len());
        // SAFETY: valid image, key inside it (refused) or apart from it.
        unsafe {
            if name == "counting" {
                assert_eq!(
                    sketch_counting_add(p, n, key.as_ptr().cast(), KEY, std::ptr::null_mut()),
                    SKETCH_OK
                );
            } else {
                assert_eq!(sketch_cuckoo_add(p, n, key.as_ptr().cast(), KEY), SKETCH_OK);
            }
            let before = img.clone();
            let (p, n) = (img.ptr(), img.len());
            let inside = p.cast::<u8>().add(n - KEY);
            assert_eq!(remove(p, n, inside.cast(), KEY), SKETCH_OVERLAP, "{name}");
            assert_eq!(img, before, "{name}: a refused remove changed the image");
            let (p, n) = (img.ptr(), img.len());
            assert_eq!(remove(p, n, key.as_ptr().cast(), KEY), SKETCH_OK, "{name}");
            assert_ne!(img, before, "{name}: the disjoint remove did nothing");
        }
    }
}

fn packed_calls() -> Vec<(&'static str, Img, bool, PackedCall)> {
    type WithOut = unsafe extern "C" fn(
        *mut c_void,
        usize,
        *const c_void,
        usize,
        *const u32,
        usize,
        *mut bool,
    ) -> sketch_status;
    type NoOut =
        unsafe extern "C" fn(*mut c_void, usize, *const c_void, usize, *const u32, usize) -> sketch_status;
    type Weighted = unsafe extern "C" fn(
        *mut c_void,
        usize,
        *const c_void,
        usize,
        *const u32,
        usize,
        *const u64,
    ) -> sketch_status;
    let with_out = |f: WithOut| -> PackedCall {
        // SAFETY: valid or deliberately overlapping arguments (refused).
        Box::new(move |b, n, d, dl, o, c, out| unsafe { f(b, n, d, dl, o, c, out.cast()) })
    };
    let no_out = |f: NoOut| -> PackedCall {
        // SAFETY: as above.
        Box::new(move |b, n, d, dl, o, c, _| unsafe { f(b, n, d, dl, o, c) })
    };
    // The weights take the output's place: a weight array inside the image
    // is refused like an output there.
    let weighted = |f: Weighted| -> PackedCall {
        Box::new(move |b, n, d, dl, o, c, w| {
            let ones = [1u64; 2];
            let weights = if w.is_null() { ones.as_ptr() } else { w.cast::<u64>().cast_const() };
            // SAFETY: as above; `w`, when given, points to 16 bytes.
            unsafe { f(b, n, d, dl, o, c, weights) }
        })
    };
    vec![
        ("bloom_add_packed", bloom_fresh(), true, with_out(sketch_bloom_add_packed)),
        ("bloom_add_concurrent_packed", bloom_fresh(), true, with_out(sketch_bloom_add_concurrent_packed)),
        ("sbbf_add_packed", sbbf_fresh(SKETCH_SBBF_NATIVE), true, with_out(sketch_sbbf_add_packed)),
        ("counting_add_packed", counting_fresh(), true, with_out(sketch_counting_add_packed)),
        ("cuckoo_add_packed", cuckoo_fresh(), true, with_out(sketch_cuckoo_add_packed)),
        ("hll_add_packed", hll_fresh(), false, no_out(sketch_hll_add_packed)),
        ("ull_add_packed", ull_fresh(), false, no_out(sketch_ull_add_packed)),
        ("ell_add_packed", ell_fresh(24), false, no_out(sketch_ell_add_packed)),
        ("minhash_add_packed", minhash_fresh(), false, no_out(sketch_minhash_add_packed)),
        ("countmin_add_packed", countmin_fresh(), false, weighted(sketch_countmin_add_packed)),
        ("topk_add_packed", topk_fresh(), false, weighted(sketch_topk_add_packed)),
    ]
}

#[test]
fn packed_updates_refuse_data_and_outputs_over_the_image_or_each_other() {
    for (name, fresh, with_out, call) in packed_calls() {
        check_packed(name, &fresh, with_out, &call);
    }
}

#[test]
fn weights_inside_the_image_are_refused() {
    for (name, fresh, call) in [
        (
            "countmin",
            countmin_fresh(),
            sketch_countmin_add_packed as unsafe extern "C" fn(_, _, _, _, _, _, _) -> _,
        ),
        ("topk", topk_fresh(), sketch_topk_add_packed),
    ] {
        let mut img = fresh.clone();
        let (p, n) = (img.ptr(), img.len());
        let data = [0x22u8; KEY];
        // SAFETY: 16 bytes inside the image as the two weights (refused).
        let weights = unsafe { p.cast::<u8>().add(n - KEY) }.cast::<u64>();
        let st = unsafe { call(p, n, data.as_ptr().cast(), KEY, PAIR.as_ptr(), 2, weights) };
        assert_eq!(st, SKETCH_OVERLAP, "{name}");
        assert_eq!(img, fresh, "{name}: a refused call changed the image");
    }
}

/// The other key shapes: a `sketch_slice` pointing into the image, and
/// integer keys stored inside it.
#[test]
fn slice_and_integer_keys_inside_the_image_are_refused() {
    let fresh = bloom_fresh();
    let mut img = fresh.clone();
    let (p, n) = (img.ptr(), img.len());
    // SAFETY: pointers into the image (refused) or to the local key.
    unsafe {
        let inside = p.cast::<u8>().add(n - KEY);
        let outside = [0x33u8; KEY];
        let slices = [
            sketch_slice { ptr: outside.as_ptr().cast(), len: KEY },
            sketch_slice { ptr: inside.cast(), len: KEY },
        ];
        assert_eq!(sketch_bloom_add_batch(p, n, slices.as_ptr(), 2, std::ptr::null_mut()), SKETCH_OVERLAP);
        let ints = inside.cast::<u64>();
        assert_eq!(sketch_bloom_add_u64_batch(p, n, ints, 2, std::ptr::null_mut()), SKETCH_OVERLAP);
        assert_eq!(sketch_hll_add_hash_batch(p, n, ints, 2), SKETCH_OVERLAP, "hashes inside the image");
        assert_eq!(img, fresh);
        assert_eq!(sketch_bloom_add_batch(p, n, slices.as_ptr(), 1, std::ptr::null_mut()), SKETCH_OK);
    }
}

/// Queries read the image and may share memory with their keys; only the
/// results array may not overlap anything.
#[test]
fn queries_refuse_results_over_their_inputs_and_accept_keys_in_the_image() {
    let mut img = bloom_fresh();
    let (p, n) = (img.ptr(), img.len());
    // SAFETY: valid images; pointers inside the image or the local buffers.
    unsafe {
        let data = [0x44u8; KEY];
        assert_eq!(
            sketch_bloom_add_packed(p, n, data.as_ptr().cast(), KEY, PAIR.as_ptr(), 2, std::ptr::null_mut()),
            SKETCH_OK
        );
        let before = img.clone();
        let (p, n) = (img.cptr(), img.len());
        let inside = p.cast::<u8>().add(n - KEY);
        let mut results = [false; 2];
        // Keys read out of the image itself: a read-only call may do that.
        assert_eq!(
            sketch_bloom_contains_packed(p, n, inside.cast(), KEY, PAIR.as_ptr(), 2, results.as_mut_ptr()),
            SKETCH_OK
        );
        let mut copied = [0u8; KEY];
        copied.copy_from_slice(std::slice::from_raw_parts(inside, KEY));
        let mut want = [false; 2];
        assert_eq!(
            sketch_bloom_contains_packed(
                p,
                n,
                copied.as_ptr().cast(),
                KEY,
                PAIR.as_ptr(),
                2,
                want.as_mut_ptr()
            ),
            SKETCH_OK
        );
        assert_eq!(results, want);
        assert_eq!(sketch_bloom_contains_u64_batch(p, n, inside.cast(), 2, results.as_mut_ptr()), SKETCH_OK);
        // Results inside the image, or over the keys, are refused.
        let results_in_image = inside.cast_mut().cast::<bool>();
        assert_eq!(
            sketch_bloom_contains_packed(p, n, data.as_ptr().cast(), KEY, PAIR.as_ptr(), 2, results_in_image),
            SKETCH_OVERLAP
        );
        let mut keys_and_results = [7u64, 9, 0];
        let k = keys_and_results.as_mut_ptr();
        assert_eq!(sketch_bloom_contains_u64_batch(p, n, k.cast_const(), 2, k.add(1).cast()), SKETCH_OVERLAP);
        assert_eq!(sketch_bloom_contains_u64_batch(p, n, k.cast_const(), 2, k.add(2).cast()), SKETCH_OK);
        assert_eq!(img, before, "a query changed the image");
        // The concurrent query: other threads may write the image, so its
        // keys may not lie inside it.
        let mut one = false;
        assert_eq!(sketch_bloom_contains_concurrent(p, n, inside.cast(), KEY, &mut one), SKETCH_OVERLAP);
        assert_eq!(sketch_bloom_contains_concurrent(p, n, data.as_ptr().cast(), KEY, &mut one), SKETCH_OK);
    }
}

/// The other calls that fill arrays: hashes over their keys, Count-Min
/// estimates over the hashes or the image, MinHash signatures and Top-k
/// lists inside the image, hash batches inside the image they update.
#[test]
fn other_output_arrays_refuse_overlaps() {
    // SAFETY: valid images; pointers inside them or the local buffers.
    unsafe {
        // One raw pointer for the keys and the outputs of each buffer, as C has.
        let mut buf = [0u64; 4];
        let base = buf.as_mut_ptr();
        let data = base.cast_const().cast::<c_void>();
        assert_eq!(sketch_hash_packed(data, KEY, PAIR.as_ptr(), 2, 7, base.add(1)), SKETCH_OVERLAP);
        assert_eq!(sketch_hash_packed(data, KEY, PAIR.as_ptr(), 2, 7, base.add(2)), SKETCH_OK);

        let fresh = countmin_fresh();
        let mut cm = fresh.clone();
        let (p, n) = (cm.ptr(), cm.len());
        let inside = p.cast::<u8>().add(n - KEY).cast::<u64>();
        assert_eq!(sketch_countmin_add_hash_batch(p, n, inside, 2, std::ptr::null()), SKETCH_OVERLAP);
        let hashes = [1u64, 2, 3, 4];
        assert_eq!(
            sketch_countmin_add_hash_batch(p, n, hashes.as_ptr(), 2, inside),
            SKETCH_OVERLAP,
            "weights"
        );
        assert_eq!(cm, fresh);
        let (p, n) = (cm.ptr(), cm.len());
        let mut est = [0u64; 4];
        let e = est.as_mut_ptr();
        assert_eq!(sketch_countmin_estimate_hash_batch(p, n, e.cast_const(), 2, e.add(1)), SKETCH_OVERLAP);
        assert_eq!(sketch_countmin_estimate_hash_batch(p, n, hashes.as_ptr(), 2, inside), SKETCH_OVERLAP);
        assert_eq!(
            sketch_countmin_estimate_hash_batch(p, n, hashes.as_ptr(), 2, est.as_mut_ptr()),
            SKETCH_OK
        );

        let fresh = minhash_fresh();
        let mut mh = fresh.clone();
        let (p, n) = (mh.ptr(), mh.len());
        let inside = p.cast::<u8>().add(n - KEY).cast::<u64>();
        assert_eq!(sketch_minhash_add_hash_batch(p, n, inside, 2), SKETCH_OVERLAP);
        assert_eq!(sketch_minhash_signature(p, n, inside, 2), SKETCH_OVERLAP);
        assert_eq!(mh, fresh);

        let mut tk = topk_fresh();
        let (p, n) = (tk.ptr(), tk.len());
        assert_eq!(sketch_topk_add(p, n, hashes.as_ptr().cast(), 8, 5), SKETCH_OK);
        let item = core::mem::size_of::<sketch_topk_item>();
        let inside = p.cast::<u8>().add(n - item).cast::<sketch_topk_item>();
        let mut written = 0usize;
        assert_eq!(sketch_topk_list(p, n, inside, 1, &mut written), SKETCH_OVERLAP);
        let mut items = [sketch_topk_item { key: std::ptr::null(), key_len: 0, count: 0, error: 0 }; 2];
        assert_eq!(sketch_topk_list(p, n, items.as_mut_ptr(), 2, &mut written), SKETCH_OK);
        assert_eq!((written, items[0].key_len, items[0].count), (1, 8, 5));
    }
}
