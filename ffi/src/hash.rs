//! The canonical hash, exported so every binding hashes keys identically.

use crate::boundary::{self, guard, sketch_slice};
use crate::status::sketch_status;
use core::ffi::c_void;

/// Hash id of XXH3-64 with the image seed (the canonical hash).
pub const SKETCH_HASH_XXH3: u16 = 1;
/// Hash id of XXH64 (Parquet split-block filters, seed 0).
pub const SKETCH_HASH_XXH64: u16 = 2;

/// The canonical hash of a byte key: XXH3-64 with `seed`. The `_hash`
/// functions of every family take this value (with the image's seed).
/// `key` may be NULL when `len` is 0; a NULL key with `len > 0` hashes as
/// the empty key (this function has no status to report it). Thread-safe.
///
/// # Safety
/// Unless NULL, `key` must point to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_hash(key: *const c_void, len: usize, seed: u64) -> u64 {
    boundary::guard_value(0, || {
        // SAFETY: caller contract above.
        let bytes = unsafe { boundary::bytes(key, len) }.unwrap_or(&[]);
        sketches_core::hash::hash_bytes(bytes, seed)
    })
}

/// The canonical hash of an integer key: XXH3-64 of its 8 little-endian
/// bytes with `seed`. Thread-safe.
#[no_mangle]
pub extern "C" fn sketch_hash_u64(key: u64, seed: u64) -> u64 {
    sketches_core::hash::hash_u64(key, seed)
}

/// Hashes `count` keys with the canonical hash into `out[0..count]`.
///
/// Errors: `SKETCH_NULL_POINTER` when `keys` or `out` is NULL with
/// `count > 0`, or a key pointer is NULL with a non-zero length (nothing is
/// written then).
///
/// # Safety
/// `keys` must point to `count` valid `sketch_slice`s, `out` to `count` writable `uint64_t`s.
#[no_mangle]
pub unsafe extern "C" fn sketch_hash_batch(
    keys: *const sketch_slice,
    count: usize,
    seed: u64,
    out: *mut u64,
) -> sketch_status {
    guard(|| {
        // SAFETY: caller contract above.
        let (keys, out) = unsafe { (boundary::array(keys, count)?, boundary::array_mut(out, count)?) };
        // SAFETY: caller contract on every key.
        unsafe { boundary::key_slices(keys)? };
        for (o, k) in out.iter_mut().zip(keys) {
            // SAFETY: checked by key_slices.
            *o = sketches_core::hash::hash_bytes(unsafe { boundary::key_bytes(k) }, seed);
        }
        Ok(())
    })
}
