//! Pieces shared by the fuzz targets.

use core::ffi::c_void;

/// An 8-byte aligned, zeroed byte buffer (the alignment images need).
pub struct Aligned {
    words: Vec<u64>,
    pub len: usize,
}

impl Aligned {
    pub fn zeroed(len: usize) -> Self {
        Aligned { words: vec![0u64; len.div_ceil(8).max(1)], len }
    }

    pub fn copy_of(bytes: &[u8]) -> Self {
        let mut a = Aligned::zeroed(bytes.len());
        a.bytes_mut().copy_from_slice(bytes);
        a
    }

    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `words` holds at least `len` initialized bytes; u8 has no
        // alignment or validity requirements.
        unsafe { core::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.len) }
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as `bytes`, with exclusive access through `&mut self`.
        unsafe { core::slice::from_raw_parts_mut(self.words.as_mut_ptr() as *mut u8, self.len) }
    }

    pub fn ptr(&self) -> *const c_void {
        self.words.as_ptr() as *const c_void
    }

    pub fn ptr_mut(&mut self) -> *mut c_void {
        self.words.as_mut_ptr() as *mut c_void
    }
}
