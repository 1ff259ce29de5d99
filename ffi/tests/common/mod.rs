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

pub fn bloom_fresh() -> Img {
    let mut p = sketch_bloom_params::default();
    let mut size = 0;
    unsafe {
        assert_eq!(sketch_bloom_plan(500, 0.01, &mut p), SKETCH_OK);
        assert_eq!(sketch_bloom_size(&p, &mut size), SKETCH_OK);
        let mut img = Img::new(size);
        assert_eq!(sketch_bloom_init(img.ptr(), img.len(), &p, 7), SKETCH_OK);
        img
    }
}

pub fn sbbf_fresh(mode: u32) -> Img {
    let mut p = sketch_sbbf_params::default();
    let mut size = 0;
    unsafe {
        if mode == SKETCH_SBBF_PARQUET {
            assert_eq!(sketch_sbbf_plan_parquet(500, 0.01, &mut p), SKETCH_OK);
        } else {
            assert_eq!(sketch_sbbf_plan(500, 0.01, &mut p), SKETCH_OK);
        }
        assert_eq!(sketch_sbbf_size(&p, &mut size), SKETCH_OK);
        let mut img = Img::new(size);
        let seed = if mode == SKETCH_SBBF_PARQUET { 0 } else { 7 }; // Parquet mode hashes with seed 0
        assert_eq!(sketch_sbbf_init(img.ptr(), img.len(), &p, seed), SKETCH_OK);
        img
    }
}

pub fn counting_fresh() -> Img {
    let mut p = sketch_bloom_params::default();
    let mut size = 0;
    unsafe {
        assert_eq!(sketch_bloom_plan(500, 0.01, &mut p), SKETCH_OK);
        assert_eq!(sketch_counting_size(&p, &mut size), SKETCH_OK);
        let mut img = Img::new(size);
        assert_eq!(sketch_counting_init(img.ptr(), img.len(), &p, 7), SKETCH_OK);
        img
    }
}

pub fn cuckoo_fresh() -> Img {
    let mut p = sketch_cuckoo_params::default();
    let mut size = 0;
    unsafe {
        assert_eq!(sketch_cuckoo_plan(2000, 0.01, &mut p), SKETCH_OK);
        assert_eq!(sketch_cuckoo_size(&p, &mut size), SKETCH_OK);
        let mut img = Img::new(size);
        assert_eq!(sketch_cuckoo_init(img.ptr(), img.len(), &p, 7), SKETCH_OK);
        img
    }
}

pub fn hll_fresh() -> Img {
    let mut size = 0;
    unsafe {
        assert_eq!(sketch_hll_size(10, &mut size), SKETCH_OK);
        let mut img = Img::new(size);
        assert_eq!(sketch_hll_init(img.ptr(), img.len(), 10, 7), SKETCH_OK);
        img
    }
}

pub fn ull_fresh() -> Img {
    let mut size = 0;
    unsafe {
        assert_eq!(sketch_ull_size(10, &mut size), SKETCH_OK);
        let mut img = Img::new(size);
        assert_eq!(sketch_ull_init(img.ptr(), img.len(), 10, 7), SKETCH_OK);
        img
    }
}

pub fn ell_fresh(d: u32) -> Img {
    let p = sketch_ell_params { t: 2, d, precision: 8, reserved: 0 };
    let mut size = 0;
    unsafe {
        assert_eq!(sketch_ell_size(&p, &mut size), SKETCH_OK);
        let mut img = Img::new(size);
        assert_eq!(sketch_ell_init(img.ptr(), img.len(), &p, 7), SKETCH_OK);
        img
    }
}

pub fn minhash_fresh() -> Img {
    let mut size = 0;
    unsafe {
        assert_eq!(sketch_minhash_size(128, &mut size), SKETCH_OK);
        let mut img = Img::new(size);
        assert_eq!(sketch_minhash_init(img.ptr(), img.len(), 128, 7), SKETCH_OK);
        img
    }
}

pub fn countmin_fresh() -> Img {
    let mut p = sketch_countmin_params::default();
    let mut size = 0;
    unsafe {
        assert_eq!(sketch_countmin_plan_size(64, 4, &mut p), SKETCH_OK);
        assert_eq!(sketch_countmin_size(&p, &mut size), SKETCH_OK);
        let mut img = Img::new(size);
        assert_eq!(sketch_countmin_init(img.ptr(), img.len(), &p, 7), SKETCH_OK);
        img
    }
}

pub fn topk_fresh() -> Img {
    let mut size = 0;
    unsafe {
        assert_eq!(sketch_topk_size(64, 16, &mut size), SKETCH_OK);
        let mut img = Img::new(size);
        assert_eq!(sketch_topk_init(img.ptr(), img.len(), 64, 16, 7), SKETCH_OK);
        img
    }
}
