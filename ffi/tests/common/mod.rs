//! Helpers shared by the C ABI tests of this directory: an aligned image
//! buffer and a fresh, small image of every family made through the C ABI.
#![allow(dead_code)] // each test file uses its own subset

use core::ffi::c_void;
use sketches_ffi::bloom::*;
use sketches_ffi::counting::*;
use sketches_ffi::countmin::*;
use sketches_ffi::cuckoo::*;
use sketches_ffi::ell::*;
use sketches_ffi::hll::*;
use sketches_ffi::minhash::*;
use sketches_ffi::sbbf::*;
use sketches_ffi::topk::*;
use sketches_ffi::ull::*;
use sketches_ffi::*;

/// An 8-byte aligned image buffer.
#[derive(Clone, PartialEq, Debug)]
pub struct Img(pub Vec<u64>);

impl Img {
    pub fn new(bytes: u64) -> Img {
        assert_eq!(bytes % 64, 0, "sizes are multiples of SKETCH_IMAGE_ALIGN");
        Img(vec![0; bytes as usize / 8])
    }
    pub fn len(&self) -> usize {
        self.0.len() * 8
    }
    pub fn ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr().cast()
    }
    pub fn cptr(&self) -> *const c_void {
        self.0.as_ptr().cast()
    }
}

/// A fresh image: `size` writes its byte count, `init` makes the image in
/// a buffer of that size (both must succeed).
fn made(
    size: impl FnOnce(&mut u64) -> sketch_status,
    init: impl FnOnce(*mut c_void, usize) -> sketch_status,
) -> Img {
    let mut bytes = 0;
    assert_eq!(size(&mut bytes), SKETCH_OK);
    let mut img = Img::new(bytes);
    assert_eq!(init(img.ptr(), img.len()), SKETCH_OK);
    img
}

/// Parameters a `sketch_*_plan*` call writes (it must succeed).
fn planned<P: Default>(plan: impl FnOnce(&mut P) -> sketch_status) -> P {
    let mut p = P::default();
    assert_eq!(plan(&mut p), SKETCH_OK);
    p
}

// SAFETY (every call below): valid parameter and output pointers, and
// buffers of the size the family's `_size` gave.

pub fn bloom_fresh() -> Img {
    let p = planned(|p| unsafe { sketch_bloom_plan(500, 0.01, p) });
    made(|s| unsafe { sketch_bloom_size(&p, s) }, |b, n| unsafe { sketch_bloom_init(b, n, &p, 7) })
}

pub fn sbbf_fresh(mode: u32) -> Img {
    let p = if mode == SKETCH_SBBF_PARQUET {
        planned(|p| unsafe { sketch_sbbf_plan_parquet(500, 0.01, p) })
    } else {
        planned(|p| unsafe { sketch_sbbf_plan(500, 0.01, p) })
    };
    let seed = if mode == SKETCH_SBBF_PARQUET { 0 } else { 7 }; // Parquet mode hashes with seed 0
    made(|s| unsafe { sketch_sbbf_size(&p, s) }, |b, n| unsafe { sketch_sbbf_init(b, n, &p, seed) })
}

pub fn counting_fresh() -> Img {
    let p = planned(|p| unsafe { sketch_bloom_plan(500, 0.01, p) });
    made(|s| unsafe { sketch_counting_size(&p, s) }, |b, n| unsafe { sketch_counting_init(b, n, &p, 7) })
}

pub fn cuckoo_fresh() -> Img {
    let p = planned(|p| unsafe { sketch_cuckoo_plan(2000, 0.01, p) });
    made(|s| unsafe { sketch_cuckoo_size(&p, s) }, |b, n| unsafe { sketch_cuckoo_init(b, n, &p, 7) })
}

pub fn hll_fresh() -> Img {
    made(|s| unsafe { sketch_hll_size(10, s) }, |b, n| unsafe { sketch_hll_init(b, n, 10, 7) })
}

pub fn ull_fresh() -> Img {
    made(|s| unsafe { sketch_ull_size(10, s) }, |b, n| unsafe { sketch_ull_init(b, n, 10, 7) })
}

pub fn ell_fresh(d: u32) -> Img {
    let p = sketch_ell_params { t: 2, d, precision: 8, reserved: 0 };
    made(|s| unsafe { sketch_ell_size(&p, s) }, |b, n| unsafe { sketch_ell_init(b, n, &p, 7) })
}

pub fn minhash_fresh() -> Img {
    made(|s| unsafe { sketch_minhash_size(128, s) }, |b, n| unsafe { sketch_minhash_init(b, n, 128, 7) })
}

pub fn countmin_fresh() -> Img {
    let p = planned(|p| unsafe { sketch_countmin_plan_size(64, 4, p) });
    made(|s| unsafe { sketch_countmin_size(&p, s) }, |b, n| unsafe { sketch_countmin_init(b, n, &p, 7) })
}

pub fn topk_fresh() -> Img {
    made(|s| unsafe { sketch_topk_size(64, 16, s) }, |b, n| unsafe { sketch_topk_init(b, n, 64, 16, 7) })
}
