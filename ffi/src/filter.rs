//! Pointer plumbing shared by the membership-filter families (Bloom,
//! split-block Bloom), so each exported function is a one-line delegation.

use crate::boundary::{self, sketch_slice, Status};
use core::ffi::c_void;
use sketches_core::hash::KeyHasher;
use sketches_core::Result;

/// Capacity flag: more items were inserted than planned.
pub const SKETCH_CAPACITY_OVER_PLANNED_ITEMS: u32 = 1;
/// Capacity flag: the estimated false-positive rate exceeds twice the planned rate.
pub const SKETCH_CAPACITY_FPR_ABOVE_TWICE_PLANNED: u32 = 2;

/// One update on a mutable image; the optional `was_new` gets its result.
///
/// # Safety
/// `buf`/`len` and `was_new` as documented on the exported functions.
pub(crate) unsafe fn update(
    buf: *mut c_void,
    len: usize,
    was_new: *mut bool,
    op: impl FnOnce(&mut [u8]) -> Result<bool>,
) -> Status {
    // SAFETY: caller contract.
    let image = unsafe { boundary::bytes_mut(buf, len)? };
    let new = op(image)?;
    // SAFETY: caller contract (NULL allowed).
    unsafe { boundary::write_optional(was_new, new) };
    Ok(())
}

/// One query on a read-only image; `out` is required.
///
/// # Safety
/// `buf`/`len` and `out` as documented on the exported functions.
pub(crate) unsafe fn query<T>(
    buf: *const c_void,
    len: usize,
    out: *mut T,
    op: impl FnOnce(&[u8]) -> Result<T>,
) -> Status {
    boundary::require(out)?;
    // SAFETY: caller contract.
    let image = unsafe { boundary::bytes(buf, len)? };
    let value = op(image)?;
    // SAFETY: non-NULL checked.
    unsafe { boundary::write_out(out, value) }
}

/// A key argument: NULL allowed with length 0.
///
/// # Safety
/// Unless NULL, `key` must point to `key_len` readable bytes.
pub(crate) unsafe fn key<'a>(
    key: *const c_void,
    key_len: usize,
) -> core::result::Result<&'a [u8], crate::status::sketch_status> {
    // SAFETY: caller contract.
    unsafe { boundary::bytes(key, key_len) }
}

/// Batch add of byte keys: `open` wraps the image and returns its hasher
/// and an add-hashes function over the view.
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
pub(crate) unsafe fn add_keys<'a, V>(
    buf: *mut c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
    was_new: *mut bool,
    open: impl FnOnce(&'a mut [u8]) -> Result<(V, KeyHasher)>,
    add: impl Fn(&mut V, &[u64], Option<&mut [bool]>) -> Result<()>,
) -> Status {
    // SAFETY: caller contract.
    let (image, keys) = unsafe { (boundary::bytes_mut(buf, len)?, boundary::array(keys, count)?) };
    // SAFETY: caller contract (NULL means "not wanted").
    let out = if was_new.is_null() { None } else { Some(unsafe { boundary::array_mut(was_new, count)? }) };
    let (mut view, hasher) = open(image)?;
    // SAFETY: caller contract on every key (checked before any change).
    unsafe { boundary::for_hashed_chunks(keys, out, |k| hasher.hash(k), |h, o| Ok(add(&mut view, h, o)?)) }
}

/// Batch add of precomputed hashes.
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
pub(crate) unsafe fn add_hashes(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    was_new: *mut bool,
    op: impl FnOnce(&mut [u8], &[u64], Option<&mut [bool]>) -> Result<()>,
) -> Status {
    // SAFETY: caller contract.
    let (image, hashes) = unsafe { (boundary::bytes_mut(buf, len)?, boundary::array(hashes, count)?) };
    // SAFETY: caller contract (NULL means "not wanted").
    let out = if was_new.is_null() { None } else { Some(unsafe { boundary::array_mut(was_new, count)? }) };
    Ok(op(image, hashes, out)?)
}

/// Batch query of byte keys; `results` is required.
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
pub(crate) unsafe fn contains_keys<'a, V>(
    buf: *const c_void,
    len: usize,
    keys: *const sketch_slice,
    count: usize,
    results: *mut bool,
    open: impl FnOnce(&'a [u8]) -> Result<(V, KeyHasher)>,
    query: impl Fn(&V, &[u64], &mut [bool]) -> Result<()>,
) -> Status {
    if count > 0 {
        boundary::require(results)?;
    }
    // SAFETY: caller contract.
    let (image, keys, out) = unsafe {
        (boundary::bytes(buf, len)?, boundary::array(keys, count)?, boundary::array_mut(results, count)?)
    };
    let (view, hasher) = open(image)?;
    // SAFETY: caller contract on every key.
    unsafe {
        boundary::for_hashed_chunks(
            keys,
            Some(out),
            |k| hasher.hash(k),
            |h, o| match o {
                Some(o) => Ok(query(&view, h, o)?),
                None => Ok(()),
            },
        )
    }
}

/// Batch query of precomputed hashes; `results` is required.
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
pub(crate) unsafe fn contains_hashes(
    buf: *const c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    results: *mut bool,
    op: impl FnOnce(&[u8], &[u64], &mut [bool]) -> Result<()>,
) -> Status {
    if count > 0 {
        boundary::require(results)?;
    }
    // SAFETY: caller contract.
    let (image, hashes, out) = unsafe {
        (boundary::bytes(buf, len)?, boundary::array(hashes, count)?, boundary::array_mut(results, count)?)
    };
    Ok(op(image, hashes, out)?)
}

/// A clear (reset) of a mutable image.
///
/// # Safety
/// `buf`/`len` as documented on the exported functions.
pub(crate) unsafe fn mutate(
    buf: *mut c_void,
    len: usize,
    op: impl FnOnce(&mut [u8]) -> Result<()>,
) -> Status {
    // SAFETY: caller contract.
    let image = unsafe { boundary::bytes_mut(buf, len)? };
    Ok(op(image)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sketches_core::filter::CapacityFlags;

    #[test]
    fn capacity_flag_macros_match_the_core() {
        assert_eq!(SKETCH_CAPACITY_OVER_PLANNED_ITEMS, CapacityFlags::OVER_PLANNED_ITEMS);
        assert_eq!(SKETCH_CAPACITY_FPR_ABOVE_TWICE_PLANNED, CapacityFlags::FPR_ABOVE_TWICE_PLANNED);
    }
}
