//! Every batch operation in its three key shapes: `_batch` (sketch_slice
//! array), `_packed` (Arrow Binary layout: data + count+1 u32 offsets) and
//! `_u64_batch` (integer keys). For every family and operation:
//! * the packed form leaves the same image bytes and per-key outputs as the
//!   slice form over the same keys (including empty keys and a non-zero
//!   first offset, as in a sliced Arrow array);
//! * the u64 batch equals the same keys added or queried one call at a time;
//! * bad packed offsets (decreasing, past the data, NULL, misaligned) and
//!   NULL data fail with the documented status before anything changes.

use core::ffi::c_void;
use sketches_ffi::bloom::*;
use sketches_ffi::counting::*;
use sketches_ffi::countmin::*;
use sketches_ffi::cuckoo::*;
use sketches_ffi::ell::*;
use sketches_ffi::fuse::*;
use sketches_ffi::hash::*;
use sketches_ffi::hll::*;
use sketches_ffi::minhash::*;
use sketches_ffi::sbbf::*;
use sketches_ffi::topk::*;
use sketches_ffi::ull::*;
use sketches_ffi::*;

mod common;
use common::*;

const N: usize = 700;

/// The same keys in every shape. Key 0 is empty; string keys are "key-<i>".
struct KeySet {
    strings: Vec<Vec<u8>>,
    slices: Vec<sketch_slice>,
    data: Vec<u8>,
    offsets: Vec<u32>,
    ints: Vec<u64>,
}

impl KeySet {
    fn new(n: usize) -> KeySet {
        let strings: Vec<Vec<u8>> =
            (0..n).map(|i| if i == 0 { Vec::new() } else { format!("key-{i}").into_bytes() }).collect();
        let slices = strings.iter().map(|s| sketch_slice { ptr: s.as_ptr().cast(), len: s.len() }).collect();
        // A non-zero first offset, as in a slice of a larger Arrow array.
        let mut data = b"prefix".to_vec();
        let mut offsets = vec![data.len() as u32];
        for s in &strings {
            data.extend_from_slice(s);
            offsets.push(data.len() as u32);
        }
        let ints = (0..n as u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        KeySet { strings, slices, data, offsets, ints }
    }
}

/// How a batch is called.
#[derive(Copy, Clone, Debug)]
enum Shape {
    Slices,
    Packed,
    Ints,
}

/// Packed-offset misuse cases and the status each must give.
fn bad_packed_cases(keys: &KeySet) -> Vec<(&'static str, Vec<u32>, usize, sketch_status)> {
    let mut decreasing = keys.offsets.clone();
    decreasing.swap(3, 4);
    let mut past = keys.offsets.clone();
    *past.last_mut().unwrap() = keys.data.len() as u32 + 1;
    vec![
        ("decreasing offsets", decreasing, keys.data.len(), SKETCH_INVALID_PARAMETER),
        ("offsets past the data", past, keys.data.len(), SKETCH_INVALID_PARAMETER),
        (
            "data shorter than the offsets say",
            keys.offsets.clone(),
            keys.data.len() - 1,
            SKETCH_INVALID_PARAMETER,
        ),
    ]
}

/// Runs `call` (which receives the packed pieces) for every misuse case and
/// checks its status and that the image did not change.
fn check_packed_misuse(
    keys: &KeySet,
    fresh: &Img,
    mut call: impl FnMut(&mut Img, *const c_void, usize, *const u32, usize) -> sketch_status,
) {
    let mut img = fresh.clone();
    for (what, offsets, data_len, want) in bad_packed_cases(keys) {
        let got = call(&mut img, keys.data.as_ptr().cast(), data_len, offsets.as_ptr(), N);
        assert_eq!(got, want, "{what}");
        assert_eq!(&img, fresh, "{what} changed the image");
    }
    let n = N;
    assert_eq!(
        call(&mut img, keys.data.as_ptr().cast(), keys.data.len(), std::ptr::null(), n),
        SKETCH_NULL_POINTER
    );
    assert_eq!(call(&mut img, std::ptr::null(), 5, keys.offsets.as_ptr(), n), SKETCH_NULL_POINTER);
    let misaligned = unsafe { keys.offsets.as_ptr().cast::<u8>().add(1).cast::<u32>() };
    assert_eq!(call(&mut img, keys.data.as_ptr().cast(), keys.data.len(), misaligned, n), SKETCH_MISALIGNED);
    assert_eq!(&img, fresh, "a refused call changed the image");
    // Zero keys: NULL offsets and data are fine.
    assert_eq!(call(&mut img, std::ptr::null(), 0, std::ptr::null(), 0), SKETCH_OK);
    let zero = [7u32];
    assert_eq!(
        call(&mut img, std::ptr::null(), 0, zero.as_ptr(), 0),
        SKETCH_INVALID_PARAMETER,
        "offset past empty data"
    );
}

/// The three shapes of an update with an optional bool output leave the same
/// image and outputs; the u64 batch equals single calls.
macro_rules! update_shapes {
    ($name:ident, $fresh:expr, $batch:path, $packed:path, $u64_batch:path, $single_u64:path, out bool) => {
        #[test]
        fn $name() {
            let keys = KeySet::new(N);
            let fresh: Img = $fresh;
            let run = |shape: Shape, img: &mut Img, out: *mut bool| unsafe {
                match shape {
                    Shape::Slices => $batch(img.ptr(), img.len(), keys.slices.as_ptr(), N, out),
                    Shape::Packed => $packed(
                        img.ptr(),
                        img.len(),
                        keys.data.as_ptr().cast(),
                        keys.data.len(),
                        keys.offsets.as_ptr(),
                        N,
                        out,
                    ),
                    Shape::Ints => $u64_batch(img.ptr(), img.len(), keys.ints.as_ptr(), N, out),
                }
            };
            let (mut a, mut b) = (fresh.clone(), fresh.clone());
            let (mut oa, mut ob) = (vec![false; N], vec![false; N]);
            assert_eq!(run(Shape::Slices, &mut a, oa.as_mut_ptr()), SKETCH_OK);
            assert_eq!(run(Shape::Packed, &mut b, ob.as_mut_ptr()), SKETCH_OK);
            assert_eq!(a, b, "packed and slice batches differ");
            assert_eq!(oa, ob);
            assert_ne!(a, fresh);
            let (mut c, mut d) = (fresh.clone(), fresh.clone());
            let mut oc = vec![false; N];
            assert_eq!(run(Shape::Ints, &mut c, oc.as_mut_ptr()), SKETCH_OK);
            for (i, &k) in keys.ints.iter().enumerate() {
                let mut o = false;
                assert_eq!(unsafe { $single_u64(d.ptr(), d.len(), k, &mut o) }, SKETCH_OK);
                assert_eq!(o, oc[i], "key {i}");
            }
            assert_eq!(c, d, "u64 batch differs from single calls");
            check_packed_misuse(&keys, &fresh, |img, data, data_len, offsets, count| unsafe {
                let mut out = vec![false; count];
                $packed(img.ptr(), img.len(), data, data_len, offsets, count, out.as_mut_ptr())
            });
        }
    };
    ($name:ident, $fresh:expr, $batch:path, $packed:path, $u64_batch:path, $single_u64:path, no out) => {
        #[test]
        fn $name() {
            let keys = KeySet::new(N);
            let fresh: Img = $fresh;
            let (mut a, mut b, mut c, mut d) = (fresh.clone(), fresh.clone(), fresh.clone(), fresh.clone());
            unsafe {
                assert_eq!($batch(a.ptr(), a.len(), keys.slices.as_ptr(), N), SKETCH_OK);
                let (data, len, offs) = (keys.data.as_ptr().cast(), keys.data.len(), keys.offsets.as_ptr());
                assert_eq!($packed(b.ptr(), b.len(), data, len, offs, N), SKETCH_OK);
                assert_eq!($u64_batch(c.ptr(), c.len(), keys.ints.as_ptr(), N), SKETCH_OK);
                for &k in &keys.ints {
                    assert_eq!($single_u64(d.ptr(), d.len(), k), SKETCH_OK);
                }
            }
            assert_eq!(a, b, "packed and slice batches differ");
            assert_ne!(a, fresh);
            assert_eq!(c, d, "u64 batch differs from single calls");
            check_packed_misuse(&keys, &fresh, |img, data, data_len, offsets, count| unsafe {
                $packed(img.ptr(), img.len(), data, data_len, offsets, count)
            });
        }
    };
}

/// The three shapes of a query give the same per-key answers on a filled
/// image; the u64 batch equals single calls.
macro_rules! query_shapes {
    ($name:ident, $filled:expr, $out:ty, $batch:path, $packed:path, $u64_batch:path, $single_u64:path) => {
        #[test]
        fn $name() {
            let keys = KeySet::new(N);
            let img: Img = $filled(&keys);
            let mut want = vec![<$out>::default(); N];
            let mut got = vec![<$out>::default(); N];
            unsafe {
                assert_eq!(
                    $batch(img.cptr(), img.len(), keys.slices.as_ptr(), N, want.as_mut_ptr()),
                    SKETCH_OK
                );
                let (data, len, offs) = (keys.data.as_ptr().cast(), keys.data.len(), keys.offsets.as_ptr());
                assert_eq!($packed(img.cptr(), img.len(), data, len, offs, N, got.as_mut_ptr()), SKETCH_OK);
                assert_eq!(want, got, "packed and slice queries differ");
                assert_eq!(
                    $u64_batch(img.cptr(), img.len(), keys.ints.as_ptr(), N, got.as_mut_ptr()),
                    SKETCH_OK
                );
                for (i, &k) in keys.ints.iter().enumerate() {
                    let mut one = <$out>::default();
                    assert_eq!($single_u64(img.cptr(), img.len(), k, &mut one), SKETCH_OK);
                    assert_eq!(one, got[i], "key {i}");
                }
                // A required output missing is refused.
                assert_eq!(
                    $packed(img.cptr(), img.len(), data, len, offs, N, std::ptr::null_mut()),
                    SKETCH_NULL_POINTER
                );
            }
            check_packed_misuse(&keys, &img, |img, data, data_len, offsets, count| unsafe {
                let mut out = vec![<$out>::default(); count];
                $packed(img.cptr(), img.len(), data, data_len, offsets, count, out.as_mut_ptr())
            });
        }
    };
}

update_shapes!(bloom_add, bloom_fresh(), sketch_bloom_add_batch, sketch_bloom_add_packed, sketch_bloom_add_u64_batch, sketch_bloom_add_u64, out bool);
update_shapes!(sbbf_add, sbbf_fresh(SKETCH_SBBF_NATIVE), sketch_sbbf_add_batch, sketch_sbbf_add_packed, sketch_sbbf_add_u64_batch, sketch_sbbf_add_u64, out bool);
update_shapes!(sbbf_parquet_add, sbbf_fresh(SKETCH_SBBF_PARQUET), sketch_sbbf_add_batch, sketch_sbbf_add_packed, sketch_sbbf_add_u64_batch, sketch_sbbf_add_u64, out bool);
update_shapes!(counting_add, counting_fresh(), sketch_counting_add_batch, sketch_counting_add_packed, sketch_counting_add_u64_batch, sketch_counting_add_u64, out bool);
/// The cuckoo single add reports "full" as a status; the batch reports it per key.
unsafe fn cuckoo_add_u64_reporting(
    buf: *mut c_void,
    len: usize,
    key: u64,
    added: *mut bool,
) -> sketch_status {
    match unsafe { sketch_cuckoo_add_u64(buf, len, key) } {
        SKETCH_OK => unsafe {
            *added = true;
            SKETCH_OK
        },
        SKETCH_FULL => unsafe {
            *added = false;
            SKETCH_OK
        },
        other => other,
    }
}
update_shapes!(cuckoo_add, cuckoo_fresh(), sketch_cuckoo_add_batch, sketch_cuckoo_add_packed, sketch_cuckoo_add_u64_batch, cuckoo_add_u64_reporting, out bool);

/// The cardinality sketches' single adds report whether a register
/// changed; their batches report nothing.
unsafe fn hll_add_u64_plain(buf: *mut c_void, len: usize, key: u64) -> sketch_status {
    unsafe { sketch_hll_add_u64(buf, len, key, std::ptr::null_mut()) }
}
unsafe fn ull_add_u64_plain(buf: *mut c_void, len: usize, key: u64) -> sketch_status {
    unsafe { sketch_ull_add_u64(buf, len, key, std::ptr::null_mut()) }
}
update_shapes!(hll_add, hll_fresh(), sketch_hll_add_batch, sketch_hll_add_packed, sketch_hll_add_u64_batch, hll_add_u64_plain, no out);
update_shapes!(ull_add, ull_fresh(), sketch_ull_add_batch, sketch_ull_add_packed, sketch_ull_add_u64_batch, ull_add_u64_plain, no out);
unsafe fn ell_add_u64_plain(buf: *mut c_void, len: usize, key: u64) -> sketch_status {
    unsafe { sketch_ell_add_u64(buf, len, key, std::ptr::null_mut()) }
}
update_shapes!(ell20_add, ell_fresh(20), sketch_ell_add_batch, sketch_ell_add_packed, sketch_ell_add_u64_batch, ell_add_u64_plain, no out);
update_shapes!(ell24_add, ell_fresh(24), sketch_ell_add_batch, sketch_ell_add_packed, sketch_ell_add_u64_batch, ell_add_u64_plain, no out);

/// ELL: the hash batch equals single hash adds, and the key batches equal
/// the hash batch of the keys' hashes.
#[test]
fn ell_hash_batch_equals_single_adds() {
    let keys = KeySet::new(N);
    let hashes: Vec<u64> = keys.ints.iter().map(|&k| sketch_hash_u64(k, 7)).collect();
    let (mut a, mut b, mut c) = (ell_fresh(20), ell_fresh(20), ell_fresh(20));
    unsafe {
        assert_eq!(sketch_ell_add_hash_batch(a.ptr(), a.len(), hashes.as_ptr(), N), SKETCH_OK);
        for &h in &hashes {
            assert_eq!(sketch_ell_add_hash(b.ptr(), b.len(), h, std::ptr::null_mut()), SKETCH_OK);
        }
        assert_eq!(sketch_ell_add_u64_batch(c.ptr(), c.len(), keys.ints.as_ptr(), N), SKETCH_OK);
        assert_eq!(sketch_ell_add_hash_batch(a.ptr(), a.len(), std::ptr::null(), 3), SKETCH_NULL_POINTER);
    }
    assert_eq!(a, b);
    assert_eq!(a, c);
}

/// Binary fuse filters have no add: the build takes the keys in every
/// shape. The slice and packed builds give the same image; the u64 build
/// equals the build from the keys' hashes; refused packed offsets write
/// nothing (image and scratch checked before the build).
fn fuse_params(keys: u64, bits: u32) -> sketch_fuse_params {
    let mut p = sketch_fuse_params::default();
    assert_eq!(unsafe { sketch_fuse_plan_bits(keys, bits, &mut p) }, SKETCH_OK);
    p
}

fn fuse_buffers(p: &sketch_fuse_params) -> (Img, Vec<u8>) {
    let (mut size, mut scratch) = (0, 0);
    unsafe {
        assert_eq!(sketch_fuse_size(p, &mut size), SKETCH_OK);
        assert_eq!(sketch_fuse_scratch_size(p, &mut scratch), SKETCH_OK);
    }
    (Img::new(size), vec![0u8; scratch as usize])
}

#[test]
fn fuse_build_shapes() {
    for bits in [8, 16] {
        let keys = KeySet::new(N);
        let p = fuse_params(N as u64, bits);
        let (fresh, mut scratch) = fuse_buffers(&p);
        let (mut a, mut b, mut c, mut d) = (fresh.clone(), fresh.clone(), fresh.clone(), fresh.clone());
        let hashes: Vec<u64> = keys.ints.iter().map(|&k| sketch_hash_u64(k, 7)).collect();
        let (w, wl) = (scratch.as_mut_ptr().cast::<c_void>(), scratch.len());
        unsafe {
            assert_eq!(
                sketch_fuse_build_batch(a.ptr(), a.len(), &p, 7, keys.slices.as_ptr(), N, w, wl),
                SKETCH_OK
            );
            let (data, len, offs) = (keys.data.as_ptr().cast(), keys.data.len(), keys.offsets.as_ptr());
            assert_eq!(
                sketch_fuse_build_packed(b.ptr(), b.len(), &p, 7, data, len, offs, N, w, wl),
                SKETCH_OK
            );
            assert_eq!(
                sketch_fuse_build_u64_batch(c.ptr(), c.len(), &p, 7, keys.ints.as_ptr(), N, w, wl),
                SKETCH_OK
            );
            assert_eq!(
                sketch_fuse_build_hash_batch(d.ptr(), d.len(), &p, 7, hashes.as_ptr(), N, w, wl),
                SKETCH_OK
            );
        }
        assert_eq!(a, b, "packed and slice builds differ");
        assert_ne!(a, fresh);
        assert_eq!(c, d, "u64 build differs from the build of the hashes");
        check_packed_misuse(&keys, &fresh, |img, data, data_len, offsets, count| unsafe {
            let mut s = vec![0u8; wl];
            sketch_fuse_build_packed(
                img.ptr(),
                img.len(),
                &p,
                7,
                data,
                data_len,
                offsets,
                count,
                s.as_mut_ptr().cast(),
                wl,
            )
        });
    }
}

fn fuse_filled(k: &KeySet) -> Img {
    // Even-numbered keys as strings, odd-numbered ones as integers: one
    // build of their hashes.
    let mut hashes: Vec<u64> = Vec::new();
    for i in 0..N {
        let s = &k.strings[i];
        hashes.push(unsafe {
            if i % 2 == 0 {
                sketch_hash(s.as_ptr().cast(), s.len(), 7)
            } else {
                sketch_hash_u64(k.ints[i], 7)
            }
        });
    }
    let p = fuse_params(N as u64, 8);
    let (mut img, mut scratch) = fuse_buffers(&p);
    let status = unsafe {
        sketch_fuse_build_hash_batch(
            img.ptr(),
            img.len(),
            &p,
            7,
            hashes.as_ptr(),
            N,
            scratch.as_mut_ptr().cast(),
            scratch.len(),
        )
    };
    assert_eq!(status, SKETCH_OK);
    img
}

/// MinHash's single u64 add reports whether a register changed; wrap it to
/// the no-output shape.
unsafe fn minhash_add_u64_plain(buf: *mut c_void, len: usize, key: u64) -> sketch_status {
    unsafe { sketch_minhash_add_u64(buf, len, key, std::ptr::null_mut()) }
}
update_shapes!(minhash_add, minhash_fresh(), sketch_minhash_add_batch, sketch_minhash_add_packed, sketch_minhash_add_u64_batch, minhash_add_u64_plain, no out);

/// Count-Min and Top-k batches take per-key weights: checked with weights
/// and without (NULL = 1 each).
macro_rules! weighted_shapes {
    ($name:ident, $fresh:expr, $batch:path, $packed:path, $u64_batch:path, $single_u64:path) => {
        #[test]
        fn $name() {
            let keys = KeySet::new(N);
            let fresh: Img = $fresh;
            let weights: Vec<u64> = (0..N as u64).map(|i| 1 + i % 5).collect();
            for w in [weights.as_ptr(), std::ptr::null()] {
                let (mut a, mut b, mut c, mut d) =
                    (fresh.clone(), fresh.clone(), fresh.clone(), fresh.clone());
                unsafe {
                    assert_eq!($batch(a.ptr(), a.len(), keys.slices.as_ptr(), N, w), SKETCH_OK);
                    let (data, len, offs) =
                        (keys.data.as_ptr().cast(), keys.data.len(), keys.offsets.as_ptr());
                    assert_eq!($packed(b.ptr(), b.len(), data, len, offs, N, w), SKETCH_OK);
                    assert_eq!($u64_batch(c.ptr(), c.len(), keys.ints.as_ptr(), N, w), SKETCH_OK);
                    for (i, &k) in keys.ints.iter().enumerate() {
                        let weight = if w.is_null() { 1 } else { weights[i] };
                        assert_eq!($single_u64(d.ptr(), d.len(), k, weight), SKETCH_OK);
                    }
                }
                assert_eq!(a, b, "packed and slice batches differ");
                assert_ne!(a, fresh);
                assert_eq!(c, d, "u64 batch differs from single calls");
            }
            check_packed_misuse(&keys, &fresh, |img, data, data_len, offsets, count| unsafe {
                $packed(img.ptr(), img.len(), data, data_len, offsets, count, std::ptr::null())
            });
        }
    };
}
weighted_shapes!(
    countmin_add,
    countmin_fresh(),
    sketch_countmin_add_batch,
    sketch_countmin_add_packed,
    sketch_countmin_add_u64_batch,
    sketch_countmin_add_u64
);
weighted_shapes!(
    topk_add,
    topk_fresh(),
    sketch_topk_add_batch,
    sketch_topk_add_packed,
    sketch_topk_add_u64_batch,
    sketch_topk_add_u64
);

#[test]
fn topk_packed_refuses_a_long_key_before_any_change() {
    let fresh = topk_fresh();
    let mut img = fresh.clone();
    let data = b"shortthis-key-is-longer-than-sixteen";
    let offsets = [0u32, 5, data.len() as u32];
    let status = unsafe {
        sketch_topk_add_packed(
            img.ptr(),
            img.len(),
            data.as_ptr().cast(),
            data.len(),
            offsets.as_ptr(),
            2,
            std::ptr::null(),
        )
    };
    assert_eq!(status, SKETCH_KEY_TOO_LONG);
    assert_eq!(img, fresh);
}

/// Fills a filter-like image with the even-numbered keys in both shapes.
fn fill_half(
    img: &mut Img,
    keys: &KeySet,
    add: unsafe extern "C" fn(*mut c_void, usize, *const sketch_slice, usize, *mut bool) -> sketch_status,
    add_u64: unsafe extern "C" fn(*mut c_void, usize, *const u64, usize, *mut bool) -> sketch_status,
) {
    let half: Vec<sketch_slice> = keys.slices.iter().step_by(2).copied().collect();
    let half_ints: Vec<u64> = keys.ints.iter().step_by(2).copied().collect();
    let mut out = vec![false; half.len()];
    unsafe {
        assert_eq!(add(img.ptr(), img.len(), half.as_ptr(), half.len(), out.as_mut_ptr()), SKETCH_OK);
        assert_eq!(
            add_u64(img.ptr(), img.len(), half_ints.as_ptr(), half_ints.len(), out.as_mut_ptr()),
            SKETCH_OK
        );
    }
}

query_shapes!(
    bloom_contains,
    |k: &KeySet| {
        let mut i = bloom_fresh();
        fill_half(&mut i, k, sketch_bloom_add_batch, sketch_bloom_add_u64_batch);
        i
    },
    bool,
    sketch_bloom_contains_batch,
    sketch_bloom_contains_packed,
    sketch_bloom_contains_u64_batch,
    sketch_bloom_contains_u64
);
query_shapes!(
    sbbf_contains,
    |k: &KeySet| {
        let mut i = sbbf_fresh(SKETCH_SBBF_NATIVE);
        fill_half(&mut i, k, sketch_sbbf_add_batch, sketch_sbbf_add_u64_batch);
        i
    },
    bool,
    sketch_sbbf_contains_batch,
    sketch_sbbf_contains_packed,
    sketch_sbbf_contains_u64_batch,
    sketch_sbbf_contains_u64
);
query_shapes!(
    counting_contains,
    |k: &KeySet| {
        let mut i = counting_fresh();
        fill_half(&mut i, k, sketch_counting_add_batch, sketch_counting_add_u64_batch);
        i
    },
    bool,
    sketch_counting_contains_batch,
    sketch_counting_contains_packed,
    sketch_counting_contains_u64_batch,
    sketch_counting_contains_u64
);
query_shapes!(
    cuckoo_contains,
    |k: &KeySet| {
        let mut i = cuckoo_fresh();
        fill_half(&mut i, k, sketch_cuckoo_add_batch, sketch_cuckoo_add_u64_batch);
        i
    },
    bool,
    sketch_cuckoo_contains_batch,
    sketch_cuckoo_contains_packed,
    sketch_cuckoo_contains_u64_batch,
    sketch_cuckoo_contains_u64
);
query_shapes!(
    fuse_contains,
    fuse_filled,
    bool,
    sketch_fuse_contains_batch,
    sketch_fuse_contains_packed,
    sketch_fuse_contains_u64_batch,
    sketch_fuse_contains_u64
);

/// The fuse hash batch equals single hash queries.
#[test]
fn fuse_hash_batch_equals_single_queries() {
    let keys = KeySet::new(N);
    let img = fuse_filled(&keys);
    let hashes: Vec<u64> = (0..3 * N as u64).map(|k| sketch_hash_u64(k, 7)).collect();
    let mut batch = vec![false; hashes.len()];
    unsafe {
        assert_eq!(
            sketch_fuse_contains_hash_batch(
                img.cptr(),
                img.len(),
                hashes.as_ptr(),
                hashes.len(),
                batch.as_mut_ptr()
            ),
            SKETCH_OK
        );
        for (i, &h) in hashes.iter().enumerate() {
            let mut one = false;
            assert_eq!(sketch_fuse_contains_hash(img.cptr(), img.len(), h, &mut one), SKETCH_OK);
            assert_eq!(one, batch[i], "hash {i}");
        }
    }
    // Odd keys were built as integers: all present.
    assert!((1..N).step_by(2).all(|i| {
        let mut b = false;
        unsafe { sketch_fuse_contains_u64(img.cptr(), img.len(), keys.ints[i], &mut b) };
        b
    }));
}

query_shapes!(
    countmin_estimate,
    |k: &KeySet| {
        let mut i = countmin_fresh();
        unsafe {
            assert_eq!(
                sketch_countmin_add_u64_batch(i.ptr(), i.len(), k.ints.as_ptr(), N / 2, std::ptr::null()),
                SKETCH_OK
            );
        }
        i
    },
    u64,
    sketch_countmin_estimate_batch,
    sketch_countmin_estimate_packed,
    sketch_countmin_estimate_u64_batch,
    sketch_countmin_estimate_u64
);

type RemoveSlices = unsafe extern "C" fn(*mut c_void, usize, *const sketch_slice, usize, *mut bool) -> i32;
type RemovePacked =
    unsafe extern "C" fn(*mut c_void, usize, *const c_void, usize, *const u32, usize, *mut bool) -> i32;
type RemoveInts = unsafe extern "C" fn(*mut c_void, usize, *const u64, usize, *mut bool) -> i32;
type RemoveOne = unsafe extern "C" fn(*mut c_void, usize, u64) -> i32;

/// Removal: packed removes equal slice removes; u64 batch removes equal
/// single calls; a NULL output (where allowed) changes the same bytes.
fn remove_shapes(
    filled: &Img,
    keys: &KeySet,
    fns: (RemoveSlices, RemovePacked, RemoveInts, RemoveOne),
    null_out: bool,
) {
    let (slices, packed, ints, one) = fns;
    let (mut a, mut b, mut c, mut d, mut e) =
        (filled.clone(), filled.clone(), filled.clone(), filled.clone(), filled.clone());
    let (mut oa, mut ob, mut oc) = (vec![false; N], vec![false; N], vec![false; N]);
    unsafe {
        let sa = slices(a.ptr(), a.len(), keys.slices.as_ptr(), N, oa.as_mut_ptr());
        let (data, len, offs) = (keys.data.as_ptr().cast(), keys.data.len(), keys.offsets.as_ptr());
        let sb = packed(b.ptr(), b.len(), data, len, offs, N, ob.as_mut_ptr());
        assert_eq!((sa, sb), (SKETCH_OK, SKETCH_OK));
        assert_eq!(ints(c.ptr(), c.len(), keys.ints.as_ptr(), N, oc.as_mut_ptr()), SKETCH_OK);
        for (i, &k) in keys.ints.iter().enumerate() {
            let s = one(d.ptr(), d.len(), k);
            assert_eq!(s == SKETCH_OK, oc[i], "key {i}");
        }
        if null_out {
            assert_eq!(ints(e.ptr(), e.len(), keys.ints.as_ptr(), N, std::ptr::null_mut()), SKETCH_OK);
            assert_eq!(e, c);
        }
    }
    assert!(oc.contains(&true) && oc.contains(&false), "some keys present, some not");
    assert_eq!(a, b);
    assert_eq!(oa, ob);
    assert_eq!(c, d);
    check_packed_misuse(keys, filled, |img, data, data_len, offsets, count| unsafe {
        let mut out = vec![false; count];
        packed(img.ptr(), img.len(), data, data_len, offsets, count, out.as_mut_ptr())
    });
}

#[test]
fn counting_remove() {
    let keys = KeySet::new(N);
    let mut filled = counting_fresh();
    fill_half(&mut filled, &keys, sketch_counting_add_batch, sketch_counting_add_u64_batch);
    let fns = (
        sketch_counting_remove_batch as RemoveSlices,
        sketch_counting_remove_packed as RemovePacked,
        sketch_counting_remove_u64_batch as RemoveInts,
        sketch_counting_remove_u64 as RemoveOne,
    );
    remove_shapes(&filled, &keys, fns, false);
}

#[test]
fn cuckoo_remove() {
    let keys = KeySet::new(N);
    let mut filled = cuckoo_fresh();
    fill_half(&mut filled, &keys, sketch_cuckoo_add_batch, sketch_cuckoo_add_u64_batch);
    let fns = (
        sketch_cuckoo_remove_batch as RemoveSlices,
        sketch_cuckoo_remove_packed as RemovePacked,
        sketch_cuckoo_remove_u64_batch as RemoveInts,
        sketch_cuckoo_remove_u64 as RemoveOne,
    );
    remove_shapes(&filled, &keys, fns, true);
    // Hashes: the batch equals single removes.
    let hashes: Vec<u64> = keys.ints.iter().map(|k| sketch_hash_u64(*k, 7)).collect();
    let (mut batch, mut single) = (filled.clone(), filled.clone());
    let mut out = vec![false; N];
    unsafe {
        assert_eq!(
            sketch_cuckoo_remove_hash_batch(batch.ptr(), batch.len(), hashes.as_ptr(), N, out.as_mut_ptr()),
            SKETCH_OK
        );
        for (i, h) in hashes.iter().enumerate() {
            assert_eq!(sketch_cuckoo_remove_hash(single.ptr(), single.len(), *h) == SKETCH_OK, out[i]);
        }
    }
    assert_eq!(batch, single);
}

#[test]
fn hash_shapes_agree() {
    let keys = KeySet::new(N);
    let (mut a, mut b, mut c) = (vec![0u64; N], vec![0u64; N], vec![0u64; N]);
    unsafe {
        assert_eq!(sketch_hash_batch(keys.slices.as_ptr(), N, 3, a.as_mut_ptr()), SKETCH_OK);
        let (data, len, offs) = (keys.data.as_ptr().cast(), keys.data.len(), keys.offsets.as_ptr());
        assert_eq!(sketch_hash_packed(data, len, offs, N, 3, b.as_mut_ptr()), SKETCH_OK);
        assert_eq!(sketch_hash_u64_batch(keys.ints.as_ptr(), N, 3, c.as_mut_ptr()), SKETCH_OK);
        for i in 0..N {
            let s = &keys.strings[i];
            assert_eq!(a[i], sketch_hash(s.as_ptr().cast(), s.len(), 3));
            assert_eq!(c[i], sketch_hash_u64(keys.ints[i], 3));
        }
        // XXH64 reference vector: the empty input with seed 0.
        assert_eq!(sketch_hash_xxh64(std::ptr::null(), 0, 0), 0xEF46_DB37_51D8_E999);
    }
    assert_eq!(a, b);
    let mut decreasing = keys.offsets.clone();
    decreasing.swap(1, 2);
    let mut out = vec![9u64; N];
    let s = unsafe {
        sketch_hash_packed(
            keys.data.as_ptr().cast(),
            keys.data.len(),
            decreasing.as_ptr(),
            N,
            3,
            out.as_mut_ptr(),
        )
    };
    assert_eq!(s, SKETCH_INVALID_PARAMETER);
    assert!(out.iter().all(|&h| h == 9), "outputs written on error");
}

type ExportedSize = unsafe extern "C" fn(*const c_void, usize, *mut usize) -> i32;
type Export = unsafe extern "C" fn(*const c_void, usize, *mut c_void, usize, *mut usize) -> i32;
type ImportSize = unsafe extern "C" fn(*const c_void, usize, *mut usize) -> i32;
type Import = unsafe extern "C" fn(*const c_void, usize, *mut c_void, usize) -> i32;

/// `import_size` gives the destination an import needs, for every family:
/// the exported length, except HLL's compact small-mode export (the full
/// image); missing or extra bytes are a length mismatch; `*size` is written
/// only on success.
#[test]
fn import_size_for_every_family() {
    let keys = KeySet::new(N);
    let cases: Vec<(&str, Img, ExportedSize, Export, ImportSize, Import)> = vec![
        (
            "bloom",
            bloom_fresh(),
            sketch_bloom_exported_size,
            sketch_bloom_export,
            sketch_bloom_import_size,
            sketch_bloom_import,
        ),
        (
            "sbbf",
            sbbf_fresh(0),
            sketch_sbbf_exported_size,
            sketch_sbbf_export,
            sketch_sbbf_import_size,
            sketch_sbbf_import,
        ),
        (
            "counting",
            counting_fresh(),
            sketch_counting_exported_size,
            sketch_counting_export,
            sketch_counting_import_size,
            sketch_counting_import,
        ),
        (
            "cuckoo",
            cuckoo_fresh(),
            sketch_cuckoo_exported_size,
            sketch_cuckoo_export,
            sketch_cuckoo_import_size,
            sketch_cuckoo_import,
        ),
        (
            "fuse",
            fuse_filled(&keys),
            sketch_fuse_exported_size,
            sketch_fuse_export,
            sketch_fuse_import_size,
            sketch_fuse_import,
        ),
        (
            "hll",
            hll_fresh(),
            sketch_hll_exported_size,
            sketch_hll_export,
            sketch_hll_import_size,
            sketch_hll_import,
        ),
        (
            "ull",
            ull_fresh(),
            sketch_ull_exported_size,
            sketch_ull_export,
            sketch_ull_import_size,
            sketch_ull_import,
        ),
        (
            "ell",
            ell_fresh(20),
            sketch_ell_exported_size,
            sketch_ell_export,
            sketch_ell_import_size,
            sketch_ell_import,
        ),
        (
            "minhash",
            minhash_fresh(),
            sketch_minhash_exported_size,
            sketch_minhash_export,
            sketch_minhash_import_size,
            sketch_minhash_import,
        ),
        (
            "countmin",
            countmin_fresh(),
            sketch_countmin_exported_size,
            sketch_countmin_export,
            sketch_countmin_import_size,
            sketch_countmin_import,
        ),
        (
            "topk",
            topk_fresh(),
            sketch_topk_exported_size,
            sketch_topk_export,
            sketch_topk_import_size,
            sketch_topk_import,
        ),
    ];
    for (name, img, exported_size, export, import_size, import) in cases {
        unsafe {
            let mut n = 0usize;
            assert_eq!(exported_size(img.cptr(), img.len(), &mut n), SKETCH_OK, "{name}");
            let mut bytes = vec![0u8; n + 8];
            let mut written = 0usize;
            assert_eq!(
                export(img.cptr(), img.len(), bytes.as_mut_ptr().cast(), n, &mut written),
                SKETCH_OK,
                "{name}"
            );
            let mut size = 0usize;
            assert_eq!(import_size(bytes.as_ptr().cast(), n, &mut size), SKETCH_OK, "{name}");
            // A fresh HLL is in small mode: its export is compact.
            if name == "hll" {
                assert!(n < img.len() && size == img.len(), "hll: exported {n}, live {size}");
            } else {
                assert_eq!(size, n, "{name}");
            }
            let mut back = Img::new(size as u64);
            assert_eq!(import(bytes.as_ptr().cast(), n, back.ptr(), back.len()), SKETCH_OK, "{name}");
            for bad_len in [n - 8, n + 8] {
                let mut untouched = 77usize;
                assert_eq!(
                    import_size(bytes.as_ptr().cast(), bad_len, &mut untouched),
                    SKETCH_LENGTH_MISMATCH,
                    "{name} {bad_len}"
                );
                assert_eq!(untouched, 77);
            }
            assert_eq!(import_size(bytes.as_ptr().cast(), 16, &mut size), SKETCH_BUFFER_TOO_SMALL, "{name}");
            assert_eq!(import_size(std::ptr::null(), n, &mut size), SKETCH_NULL_POINTER, "{name}");
            assert_eq!(
                import_size(bytes.as_ptr().cast(), n, std::ptr::null_mut()),
                SKETCH_NULL_POINTER,
                "{name}"
            );
            let other: ImportSize =
                if name == "bloom" { sketch_hll_import_size } else { sketch_bloom_import_size };
            assert_eq!(other(bytes.as_ptr().cast(), n, &mut size), SKETCH_WRONG_FAMILY, "{name}");
            // Damaged headers: every byte of the first 128 flipped. A size it
            // reports is never too small for the import, which then succeeds
            // or refuses the bytes for another reason (checksum, header).
            for at in 0..128.min(n) {
                let mut damaged = bytes[..n].to_vec();
                damaged[at] ^= 0xa5;
                let mut live = 0usize;
                let st = import_size(damaged.as_ptr().cast(), n, &mut live);
                assert_ne!(st, SKETCH_INTERNAL_ERROR, "{name} byte {at}");
                if st == SKETCH_OK {
                    assert!(
                        live >= 64 && live.is_multiple_of(8) && live <= 1 << 26,
                        "{name} byte {at}: {live}"
                    );
                    let mut dst = Img::new(live.next_multiple_of(64) as u64);
                    let st = import(damaged.as_ptr().cast(), n, dst.ptr(), live);
                    assert_ne!(st, SKETCH_BUFFER_TOO_SMALL, "{name} byte {at}: import_size said {live}");
                }
            }
        }
    }
}

/// Clearing (or resetting) a used sketch gives back the bytes of a fresh
/// one, so the same adds after a clear reproduce the same image.
#[test]
fn clear_gives_the_fresh_image_for_every_family() {
    type Fill = Box<dyn Fn(&mut Img, &[u64])>;
    type Clear = unsafe extern "C" fn(*mut c_void, usize) -> sketch_status;
    let bool_out = |add: unsafe extern "C" fn(
        *mut c_void,
        usize,
        *const u64,
        usize,
        *mut bool,
    ) -> sketch_status|
     -> Fill {
        Box::new(move |img: &mut Img, keys: &[u64]| {
            let mut out = vec![false; keys.len()];
            let len = img.len();
            assert_eq!(
                unsafe { add(img.ptr(), len, keys.as_ptr(), keys.len(), out.as_mut_ptr()) },
                SKETCH_OK
            );
        })
    };
    let plain = |add: unsafe extern "C" fn(*mut c_void, usize, *const u64, usize) -> sketch_status| -> Fill {
        Box::new(move |img: &mut Img, keys: &[u64]| {
            let len = img.len();
            assert_eq!(unsafe { add(img.ptr(), len, keys.as_ptr(), keys.len()) }, SKETCH_OK);
        })
    };
    let weighted = |add: unsafe extern "C" fn(
        *mut c_void,
        usize,
        *const u64,
        usize,
        *const u64,
    ) -> sketch_status|
     -> Fill {
        Box::new(move |img: &mut Img, keys: &[u64]| {
            let len = img.len();
            assert_eq!(
                unsafe { add(img.ptr(), len, keys.as_ptr(), keys.len(), core::ptr::null()) },
                SKETCH_OK
            );
        })
    };
    let families: Vec<(&str, Img, Fill, Clear)> = vec![
        ("bloom", bloom_fresh(), bool_out(sketch_bloom_add_u64_batch), sketch_bloom_clear),
        ("sbbf", sbbf_fresh(SKETCH_SBBF_NATIVE), bool_out(sketch_sbbf_add_u64_batch), sketch_sbbf_clear),
        ("counting", counting_fresh(), bool_out(sketch_counting_add_u64_batch), sketch_counting_clear),
        ("cuckoo", cuckoo_fresh(), bool_out(sketch_cuckoo_add_u64_batch), sketch_cuckoo_clear),
        ("hll", hll_fresh(), plain(sketch_hll_add_u64_batch), sketch_hll_reset),
        ("ull", ull_fresh(), plain(sketch_ull_add_u64_batch), sketch_ull_reset),
        ("ell", ell_fresh(24), plain(sketch_ell_add_u64_batch), sketch_ell_reset),
        ("minhash", minhash_fresh(), plain(sketch_minhash_add_u64_batch), sketch_minhash_clear),
        ("countmin", countmin_fresh(), weighted(sketch_countmin_add_u64_batch), sketch_countmin_clear),
        ("topk", topk_fresh(), weighted(sketch_topk_add_u64_batch), sketch_topk_clear),
    ];
    // Enough keys to relocate cuckoo entries and to leave HLL's small mode.
    let keys: Vec<u64> = (0..1_900u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
    for (name, fresh, fill, clear) in families {
        let mut used = fresh.clone();
        fill(&mut used, &keys);
        let filled = used.clone();
        assert_ne!(used, fresh, "{name}: the adds changed nothing");
        let len = used.len();
        assert_eq!(unsafe { clear(used.ptr(), len) }, SKETCH_OK, "{name}");
        assert_eq!(used, fresh, "{name}: a cleared image differs from a fresh one");
        fill(&mut used, &keys);
        assert_eq!(used, filled, "{name}: the same adds after a clear give other bytes");
    }
}
