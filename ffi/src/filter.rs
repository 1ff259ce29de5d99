//! Pointer plumbing shared by the families' exported functions, so each
//! exported function is a one-line delegation: single updates and queries,
//! and the batch drivers over every key shape (`Keys`: `sketch_slice`
//! arrays, packed Arrow-layout keys, integer keys) and over precomputed hashes.

use crate::boundary::{self, run, Fail, Keys, Span, Status};
use crate::image::{self, sketch_token, sketch_view, KeptView};
use crate::status::{sketch_status, SKETCH_OK};
use core::ffi::c_void;
use sketches_core::hash::{self, KeyHasher};
use sketches_core::image::Token;
use sketches_core::Result;

/// Capacity flag: more items were inserted than planned.
pub const SKETCH_CAPACITY_OVER_PLANNED_ITEMS: u32 = 1;
/// Capacity flag: the estimated false-positive rate exceeds twice the planned rate.
pub const SKETCH_CAPACITY_FPR_ABOVE_TWICE_PLANNED: u32 = 2;

/// One update on a mutable image; the optional `out` gets its result.
///
/// # Safety
/// `buf`/`len` and `out` as documented on the exported functions.
#[inline(always)]
pub(crate) unsafe fn update<T>(
    buf: *mut c_void,
    len: usize,
    out: *mut T,
    op: impl FnOnce(&mut [u8]) -> Result<T>,
) -> Status {
    boundary::out_apart(out, buf, len)?;
    // SAFETY: caller contract.
    let image = unsafe { boundary::bytes_mut(buf, len)? };
    let value = op(image)?;
    // SAFETY: caller contract (NULL allowed).
    unsafe { boundary::write_optional(out, value) };
    Ok(())
}

/// One query on a read-only image; `out` is required.
///
/// # Safety
/// `buf`/`len` and `out` as documented on the exported functions.
#[inline(always)]
pub(crate) unsafe fn query<T>(
    buf: *const c_void,
    len: usize,
    out: *mut T,
    op: impl FnOnce(&[u8]) -> Result<T>,
) -> Status {
    boundary::require(out)?;
    boundary::out_apart(out, buf, len)?;
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
#[inline(always)]
pub(crate) unsafe fn key<'a>(key: *const c_void, key_len: usize) -> core::result::Result<&'a [u8], Fail> {
    // SAFETY: caller contract.
    unsafe { boundary::bytes(key, key_len) }
}

/// A key argument of a call that writes the image `buf`/`len` (or shares
/// it with concurrent writers): [`key`], after `SKETCH_OVERLAP` when the
/// key's bytes lie inside the image (see [`boundary::apart`]).
///
/// # Safety
/// Unless NULL, `key` must point to `key_len` readable bytes.
#[inline(always)]
pub(crate) unsafe fn key_apart<'a>(
    key: *const c_void,
    key_len: usize,
    buf: *const c_void,
    len: usize,
) -> core::result::Result<&'a [u8], Fail> {
    // The overlap test alone, without `Span`'s NULL handling: a NULL key
    // lies below any image, and `bytes` refuses it afterwards.
    if boundary::overlaps(key, key_len, buf, len) {
        return Err(Fail(crate::status::SKETCH_OVERLAP));
    }
    // SAFETY: caller contract.
    unsafe { boundary::bytes(key, key_len) }
}

/// The key of a kept view's fast path: `key_len` bytes, at most
/// [`hash::SHORT_KEY`], at a non-NULL `key` sharing no byte with the
/// view's image; None for any other key (NULL, longer, empty inside the
/// image or overlapping it), which the caller hands to its full path to be
/// refused or served there. Branch free: the checks of [`key_apart`] for
/// the keys that pass.
///
/// # Safety
/// Unless NULL, `key` must point to `key_len` readable bytes.
#[inline(always)]
pub(crate) unsafe fn plain_key<'a>(key: *const c_void, key_len: usize, view: &KeptView) -> Option<&'a [u8]> {
    let (at, start) = (key as usize, view.image as usize);
    // Wrapping differences: the key starts in the image, or the image in the key.
    let clear = !key.is_null()
        & (key_len <= hash::SHORT_KEY)
        & (at.wrapping_sub(start) >= view.len)
        & (start.wrapping_sub(at) >= key_len);
    // SAFETY: non-NULL and at most `SHORT_KEY` bytes, readable by the
    // caller's contract, apart from the image.
    clear.then(|| unsafe { core::slice::from_raw_parts(key.cast::<u8>(), key_len) })
}

/// A byte-key add of a filter (Bloom, split-block) through a kept view:
/// the fast path ([`plain_key`], then `fast` on the writable image, the
/// view's token and the key; it gives None only before changing anything),
/// else the full path out of line (`full`, the previous code: every key,
/// every status). `out` receives whether the key was new.
///
/// # Safety
/// As documented on the `sketch_<family>_view_add` functions.
#[inline(always)]
pub(crate) unsafe fn view_add_bytes(
    view: *const sketch_view,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
    fast: impl FnOnce(&mut [u8], &Token, &[u8]) -> Option<bool>,
    full: impl FnOnce(&mut [u8], &Token, &[u8]) -> Result<bool>,
) -> sketch_status {
    // SAFETY: caller contract (the key is checked before it is read).
    let key_of = |v: &_| unsafe { plain_key(key, key_len, v) };
    // SAFETY: caller contract; a key the fast path takes is apart from the image.
    if let Some(new) = unsafe { image::fast_write(image::kept(view), out, key_of, fast) } {
        // SAFETY: caller contract (NULL allowed).
        unsafe { boundary::write_optional(out, new) };
        return SKETCH_OK;
    }
    // SAFETY: caller contract.
    unsafe { view_add_full(view, key, key_len, out, full) }
}

#[inline(never)]
unsafe fn view_add_full(
    view: *const sketch_view,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
    full: impl FnOnce(&mut [u8], &Token, &[u8]) -> Result<bool>,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let v = image::read_view(view)?;
        let key = key_apart(key, key_len, v.image, v.len)?;
        v.update(out, |b| full(b, &v.token, key))
    })
}

/// [`view_add_bytes`] for a query: `fast` and `full` answer from the
/// read-only image; `out` is required (a NULL one goes to the full path,
/// which reports it). A key inside the image is answered, by the full path.
///
/// # Safety
/// As documented on the `sketch_<family>_view_contains` functions.
#[inline(always)]
pub(crate) unsafe fn view_contains_bytes(
    view: *const sketch_view,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
    fast: impl FnOnce(&[u8], &Token, &[u8]) -> Option<bool>,
    full: impl FnOnce(&[u8], &Token, &[u8]) -> Result<bool>,
) -> sketch_status {
    if !out.is_null() {
        // SAFETY: caller contract (the key is checked before it is read).
        let key_of = |v: &_| unsafe { plain_key(key, key_len, v) };
        // SAFETY: caller contract.
        if let Some(found) = unsafe { image::fast_read(image::kept(view), out, key_of, fast) } {
            // SAFETY: non-NULL (checked); writable by the caller's contract.
            unsafe { out.write_unaligned(found) };
            return SKETCH_OK;
        }
    }
    // SAFETY: caller contract.
    unsafe { view_contains_full(view, key, key_len, out, full) }
}

#[inline(never)]
unsafe fn view_contains_full(
    view: *const sketch_view,
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
    full: impl FnOnce(&[u8], &Token, &[u8]) -> Result<bool>,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let v = image::read_view(view)?;
        let key = self::key(key, key_len)?;
        v.query(out, |b| full(b, &v.token, key))
    })
}

/// [`view_add_bytes`] for a `_with_token` call on `buf`/`len`: `fast` and
/// `full` get the call's token, which they compare with the image.
///
/// # Safety
/// As documented on the `sketch_<family>_add_with_token` functions.
#[inline(always)]
pub(crate) unsafe fn token_add_bytes(
    (buf, len, token): (*mut c_void, usize, *const sketch_token),
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
    fast: impl FnOnce(&mut [u8], &Token, &[u8]) -> Option<bool>,
    full: impl FnOnce(&mut [u8], &Token, &[u8]) -> Result<bool>,
) -> sketch_status {
    // SAFETY: caller contract (the key is checked before it is read).
    let key_of = |v: &_| unsafe { plain_key(key, key_len, v) };
    // SAFETY: caller contract; a key the fast path takes is apart from the image.
    if let Some(new) = unsafe { image::fast_write(image::with_token(buf, len, token), out, key_of, fast) } {
        // SAFETY: caller contract (NULL allowed).
        unsafe { boundary::write_optional(out, new) };
        return SKETCH_OK;
    }
    // SAFETY: caller contract.
    unsafe { token_add_full((buf, len, token), key, key_len, out, full) }
}

#[inline(never)]
unsafe fn token_add_full(
    (buf, len, token): (*mut c_void, usize, *const sketch_token),
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
    full: impl FnOnce(&mut [u8], &Token, &[u8]) -> Result<bool>,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let token = image::read_token(token)?;
        let key = key_apart(key, key_len, buf, len)?;
        update(buf, len, out, |b| full(b, &token, key))
    })
}

/// [`view_contains_bytes`] for a `_with_token` call on `buf`/`len`.
///
/// # Safety
/// As documented on the `sketch_<family>_contains_with_token` functions.
#[inline(always)]
pub(crate) unsafe fn token_contains_bytes(
    (buf, len, token): (*const c_void, usize, *const sketch_token),
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
    fast: impl FnOnce(&[u8], &Token, &[u8]) -> Option<bool>,
    full: impl FnOnce(&[u8], &Token, &[u8]) -> Result<bool>,
) -> sketch_status {
    if !out.is_null() {
        // SAFETY: caller contract (the key is checked before it is read).
        let key_of = |v: &_| unsafe { plain_key(key, key_len, v) };
        // SAFETY: caller contract.
        if let Some(found) =
            unsafe { image::fast_read(image::with_token(buf, len, token), out, key_of, fast) }
        {
            // SAFETY: non-NULL (checked); writable by the caller's contract.
            unsafe { out.write_unaligned(found) };
            return SKETCH_OK;
        }
    }
    // SAFETY: caller contract.
    unsafe { token_contains_full((buf, len, token), key, key_len, out, full) }
}

#[inline(never)]
unsafe fn token_contains_full(
    (buf, len, token): (*const c_void, usize, *const sketch_token),
    key: *const c_void,
    key_len: usize,
    out: *mut bool,
    full: impl FnOnce(&[u8], &Token, &[u8]) -> Result<bool>,
) -> sketch_status {
    // SAFETY: caller contract.
    run(|| unsafe {
        let token = image::read_token(token)?;
        let key = self::key(key, key_len)?;
        query(buf, len, out, |b| full(b, &token, key))
    })
}

/// Batch update over keys of any shape: `open` wraps the image and returns
/// its hasher; `add` updates the view with one chunk of hashes and the
/// matching part of the optional per-key output. Keys and outputs are
/// checked before anything changes.
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
#[inline]
pub(crate) unsafe fn add_keys<'a, V, T>(
    buf: *mut c_void,
    len: usize,
    keys: Keys<'_>,
    out: *mut T,
    open: impl FnOnce(&'a mut [u8]) -> Result<(V, KeyHasher)>,
    add: impl Fn(&mut V, &[u64], Option<&mut [T]>) -> Result<()>,
) -> Status {
    let (image_span, out_span) = (Span::of(buf.cast::<u8>(), len), Span::of(out, keys.len()));
    boundary::apart(&[image_span, out_span], Some(&keys), &[])?;
    // SAFETY: caller contract; no other argument overlaps (checked).
    let image = unsafe { boundary::bytes_mut(buf, len)? };
    // SAFETY: caller contract (NULL means "not wanted").
    let mut out = unsafe { boundary::optional_array_mut(out, keys.len())? };
    let (mut view, hasher) = open(image)?;
    keys.for_hashed_chunks(hasher, |start, h| {
        Ok(add(&mut view, h, boundary::part(&mut out, start, h.len()))?)
    })
}

/// Batch update over precomputed hashes.
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
#[inline]
pub(crate) unsafe fn add_hashes<T>(
    buf: *mut c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    out: *mut T,
    op: impl FnOnce(&mut [u8], &[u64], Option<&mut [T]>) -> Result<()>,
) -> Status {
    let (image_span, hashes_span, out_span) =
        (Span::of(buf.cast::<u8>(), len), Span::of(hashes, count), Span::of(out, count));
    boundary::apart(&[image_span, out_span], None, &[hashes_span])?;
    // SAFETY: caller contract; no other argument overlaps (checked).
    let (image, hashes) = unsafe { (boundary::bytes_mut(buf, len)?, boundary::array(hashes, count)?) };
    // SAFETY: caller contract (NULL means "not wanted").
    let out = unsafe { boundary::optional_array_mut(out, count)? };
    Ok(op(image, hashes, out)?)
}

/// Batch query over keys of any shape; `results` is required. Keys are
/// hashed `N` at a time ([`boundary::CHUNK`] for most filters; the Bloom
/// and counting Bloom filters pass the group of their batch queries,
/// `sketches_core::filter::ROUND_KEYS`, so that each chunk is one whole
/// group).
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
#[inline]
pub(crate) unsafe fn query_keys<'a, V, T, const N: usize>(
    buf: *const c_void,
    len: usize,
    keys: Keys<'_>,
    results: *mut T,
    open: impl FnOnce(&'a [u8]) -> Result<(V, KeyHasher)>,
    query: impl Fn(&V, &[u64], &mut [T]) -> Result<()>,
) -> Status {
    boundary::apart(&[Span::of(results, keys.len())], Some(&keys), &[Span::of(buf.cast::<u8>(), len)])?;
    // SAFETY: caller contract; the results overlap no other argument (checked).
    let out = unsafe { boundary::required_array_mut(results, keys.len())? };
    // SAFETY: caller contract.
    let image = unsafe { boundary::bytes(buf, len)? };
    let (view, hasher) = open(image)?;
    keys.for_hashed_chunks_of::<N>(hasher, |start, h| {
        Ok(query(&view, h, boundary::part_of(out, start, h.len())?)?)
    })
}

/// Batch query over precomputed hashes; `results` is required.
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
#[inline]
pub(crate) unsafe fn query_hashes<T>(
    buf: *const c_void,
    len: usize,
    hashes: *const u64,
    count: usize,
    results: *mut T,
    op: impl FnOnce(&[u8], &[u64], &mut [T]) -> Result<()>,
) -> Status {
    boundary::apart(
        &[Span::of(results, count)],
        None,
        &[Span::of(buf.cast::<u8>(), len), Span::of(hashes, count)],
    )?;
    // SAFETY: caller contract; the results overlap no other argument (checked).
    let (image, hashes, out) = unsafe {
        (
            boundary::bytes(buf, len)?,
            boundary::array(hashes, count)?,
            boundary::required_array_mut(results, count)?,
        )
    };
    Ok(op(image, hashes, out)?)
}

/// A mutation of a mutable image without per-item output (clear, reset, init).
///
/// # Safety
/// `buf`/`len` as documented on the exported functions.
#[inline]
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
