//! Helpers shared by the core benches.

/// A byte buffer whose slice at the returned offset is 64-byte aligned
/// (the recommended alignment: split-block blocks then sit in one cache line).
pub fn aligned(len: u64) -> (Vec<u8>, usize) {
    let v = vec![0u8; len as usize + 64];
    let off = v.as_ptr().align_offset(64);
    (v, off)
}
