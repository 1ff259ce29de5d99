//! The canonical hash, exported so every binding hashes keys identically.

use crate::boundary::{self, run, sketch_slice, Keys, Span, Status};
use crate::status::sketch_status;
use core::ffi::c_void;
use sketches_core::hash::{HashKind, KeyHasher};

/// Hash id of XXH3-64 with the image seed (the canonical hash).
pub const SKETCH_HASH_XXH3: u16 = 1;
/// Hash id of XXH64 (Parquet split-block filters, seed 0).
pub const SKETCH_HASH_XXH64: u16 = 2;

/// The canonical hash of a byte key: XXH3-64 with `seed`. The `_hash`
/// functions of every family take this value (with the image's seed), except
/// split-block filters in Parquet mode, which take `sketch_hash_xxh64` with
/// seed 0 of the bytes Parquet hashes (a fixed-width value's PLAIN encoding,
/// a BYTE_ARRAY's raw bytes without the PLAIN length prefix; see the
/// `sketch_parquet_hash_*` helpers). `key` may be NULL when
/// `len` is 0; a NULL key with `len > 0` hashes as the empty key (this
/// function has no status to report it). Thread-safe.
///
/// # Safety
/// Unless NULL, `key` must point to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_hash(key: *const c_void, len: usize, seed: u64) -> u64 {
    // SAFETY: caller contract above.
    let bytes = unsafe { boundary::bytes(key, len) }.unwrap_or(&[]);
    sketches_core::hash::hash_bytes(bytes, seed)
}

/// The canonical hash of an integer key: XXH3-64 of its 8 little-endian
/// bytes with `seed`. Thread-safe.
#[no_mangle]
pub extern "C" fn sketch_hash_u64(key: u64, seed: u64) -> u64 {
    sketches_core::hash::hash_u64(key, seed)
}

/// XXH64 of a byte key with `seed`: the hash of split-block filters in
/// Parquet mode (seed 0, over a fixed-width value's PLAIN encoding or a
/// BYTE_ARRAY's raw bytes without the length prefix; see the
/// `sketch_parquet_hash_*` helpers). NULL handling as for `sketch_hash`. Thread-safe.
///
/// # Safety
/// Unless NULL, `key` must point to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_hash_xxh64(key: *const c_void, len: usize, seed: u64) -> u64 {
    // SAFETY: caller contract above.
    let bytes = unsafe { boundary::bytes(key, len) }.unwrap_or(&[]);
    sketches_core::hash::HashKind::Xxh64.hash(bytes, seed)
}

/// Parquet's bloom filter hash of an INT32 value: XXH64 seed 0 of its PLAIN
/// encoding (4 little-endian bytes). Pass it to the `_hash` functions of a
/// split-block filter in Parquet mode. Thread-safe.
#[no_mangle]
pub extern "C" fn sketch_parquet_hash_i32(value: i32) -> u64 {
    sketches_core::parquet::hash_i32(value)
}

/// Parquet's bloom filter hash of an INT64 value (8 little-endian bytes). Thread-safe.
#[no_mangle]
pub extern "C" fn sketch_parquet_hash_i64(value: i64) -> u64 {
    sketches_core::parquet::hash_i64(value)
}

/// Parquet's bloom filter hash of a FLOAT value: its raw IEEE-754 bits (4
/// little-endian bytes), as writers hash it: -0.0 and +0.0 differ, and each
/// NaN bit pattern is its own value (DuckDB's reader also answers "maybe"
/// for +0.0 when only -0.0 was written: probe both zeros to match it). Thread-safe.
#[no_mangle]
pub extern "C" fn sketch_parquet_hash_float(value: f32) -> u64 {
    sketches_core::parquet::hash_f32(value)
}

/// Parquet's bloom filter hash of a DOUBLE value (raw IEEE-754 bits, 8
/// little-endian bytes; zeros and NaNs as for `sketch_parquet_hash_float`). Thread-safe.
#[no_mangle]
pub extern "C" fn sketch_parquet_hash_double(value: f64) -> u64 {
    sketches_core::parquet::hash_f64(value)
}

/// Parquet's bloom filter hash of a BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY value
/// (strings as their UTF-8 bytes): XXH64 seed 0 of the raw bytes, without
/// the length prefix of the PLAIN encoding. NULL handling as for
/// `sketch_hash`. Thread-safe.
///
/// # Safety
/// Unless NULL, `value` must point to `len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn sketch_parquet_hash_bytes(value: *const c_void, len: usize) -> u64 {
    // SAFETY: caller contract above.
    let bytes = unsafe { boundary::bytes(value, len) }.unwrap_or(&[]);
    sketches_core::parquet::hash_bytes(bytes)
}

/// Hashes `count` keys with the canonical hash into `out[0..count]`.
///
/// Errors: `SKETCH_NULL_POINTER` when `keys` or `out` is NULL with
/// `count > 0`, or a key pointer is NULL with a non-zero length;
/// `SKETCH_MISALIGNED` (`keys` or `out`); `SKETCH_INVALID_ARGUMENT` when
/// `count` elements do not fit in the address space; `SKETCH_OVERLAP` when
/// `out` shares a byte with the slices or a key. Nothing is written on error.
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
    // SAFETY: caller contract above.
    run(|| unsafe { hash_keys(Keys::slices(keys, count)?, seed, out) })
}

/// Hashes `count` keys packed in the Arrow Binary layout (key `i` is bytes
/// `offsets[i] .. offsets[i+1]` of `data`, `offsets` has `count + 1`
/// entries) with the canonical hash into `out[0..count]`.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_MISALIGNED` (offsets or out),
/// `SKETCH_INVALID_PARAMETER` (offsets decreasing or past `data_len`);
/// nothing is written on error.
///
/// # Safety
/// `data`: `data_len` readable bytes; `offsets`: `count + 1` values; `out`: `count` writable values.
#[no_mangle]
pub unsafe extern "C" fn sketch_hash_packed(
    data: *const c_void,
    data_len: usize,
    offsets: *const u32,
    count: usize,
    seed: u64,
    out: *mut u64,
) -> sketch_status {
    // SAFETY: caller contract above.
    run(|| unsafe { hash_keys(Keys::packed(data, data_len, offsets, count)?, seed, out) })
}

/// Hashes `count` integer keys (8 little-endian bytes each) with the
/// canonical hash into `out[0..count]` (`out` may not be `keys` itself:
/// hash into another array).
///
/// Errors: `SKETCH_NULL_POINTER` (`keys` or `out` NULL with `count > 0`),
/// `SKETCH_MISALIGNED` (`keys` or `out`), `SKETCH_INVALID_ARGUMENT` (`count`
/// values do not fit in the address space), `SKETCH_OVERLAP` (`out` shares
/// a byte with `keys`). Nothing is written on error.
///
/// # Safety
/// `keys`: `count` values; `out`: `count` writable values.
#[no_mangle]
pub unsafe extern "C" fn sketch_hash_u64_batch(
    keys: *const u64,
    count: usize,
    seed: u64,
    out: *mut u64,
) -> sketch_status {
    // SAFETY: caller contract above.
    run(|| unsafe { hash_keys(Keys::ints(keys, count)?, seed, out) })
}

/// Shared body of the batch hashes.
///
/// # Safety
/// `out`: `keys.len()` writable values.
unsafe fn hash_keys(keys: Keys<'_>, seed: u64, out: *mut u64) -> Status {
    boundary::apart(&[Span::of(out, keys.len())], Some(&keys), &[])?;
    // SAFETY: caller contract; the output overlaps no key (checked).
    let out = unsafe { boundary::required_array_mut(out, keys.len())? };
    let hasher = KeyHasher { kind: HashKind::Xxh3, seed };
    keys.for_hashed_chunks(hasher, |start, hashes| {
        for (o, h) in boundary::part_of(out, start, hashes.len())?.iter_mut().zip(hashes) {
            *o = *h;
        }
        Ok(())
    })
}
