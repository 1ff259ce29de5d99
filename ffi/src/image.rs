//! Inspecting unknown images, and the export/import plumbing shared by families.

use crate::boundary::{self, run, Fail, Span, Status};
use crate::status::{sketch_status, SKETCH_OVERLAP};
use core::ffi::c_void;
use sketches_core::Result;

/// Family id of the classic Bloom filter.
pub const SKETCH_FAMILY_BLOOM: u16 = 1;
/// Family id of the split-block Bloom filter.
pub const SKETCH_FAMILY_SPLIT_BLOCK_BLOOM: u16 = 2;
/// Size in bytes of the common image header.
pub const SKETCH_COMMON_HEADER_BYTES: u32 = 48;
/// Alignment to allocate live images with, in bytes (a cache line). Every
/// `sketch_*_size` result is a multiple of it, so it can be passed to
/// `aligned_alloc(SKETCH_IMAGE_ALIGN, size)` as it is.
pub const SKETCH_IMAGE_ALIGN: u32 = 64;
/// Alignment a live image must have, in bytes (`SKETCH_MISALIGNED`
/// otherwise); exported images need none. A Go `[]uint64` satisfies it.
pub const SKETCH_IMAGE_MIN_ALIGN: u32 = 8;

/// Words in a `sketch_token`.
pub const SKETCH_TOKEN_WORDS: u32 = 8;

/// What validating an image's headers established, kept by the caller so
/// that single-key calls on the same image skip that validation (the
/// `_with_token` functions). Fill it with `sketch_<family>_token` after
/// init or import; keep it next to the image.
///
/// It holds the image's identity: the first four words of the common
/// header (magic, versions, family, hash, header length, flags, seed, image
/// length) and the family's parameter words. A `_with_token` call compares
/// those words of the buffer with the token (a few loads). When they match
/// and the buffer is aligned and long enough, the headers are not checked
/// again: the same bytes already passed. When anything differs (another
/// image, one re-initialized with other parameters, a token of another
/// family, or a token never filled: an all-zero token matches nothing), the
/// call validates in full and behaves exactly as the call without a token.
/// A stale token costs time, never correctness. Counters and modes that
/// updates change are not part of the identity: with a token they are
/// trusted as the body is (damage there gives wrong answers, never
/// undefined behavior). A token filled by hand instead of by
/// `sketch_<family>_token` skips the same checks; the calls stay
/// memory-safe and finite whatever it holds.
///
/// Plain data without pointers: copy it freely, store it in Go or Java
/// memory. A token is only read by the calls; its thread-safety is that of
/// the image it belongs to.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_token {
    /// The identity words (little-endian values of the header's words).
    pub words: [u64; 8],
}

/// Reads the token a `_with_token` call was given.
///
/// # Safety
/// Unless NULL, `token` must point to a readable `sketch_token` (any
/// alignment).
#[inline(always)]
pub(crate) unsafe fn read_token(
    token: *const sketch_token,
) -> core::result::Result<sketches_core::image::Token, Fail> {
    boundary::require(token)?;
    // SAFETY: non-NULL (checked); readability is the caller's contract.
    let words = unsafe { token.read_unaligned() }.words;
    Ok(sketches_core::image::Token { words })
}

/// Validates the live image and writes its token (`*out` only on success).
///
/// # Safety
/// `buf`/`len` and `out` as documented on the exported functions.
#[inline]
pub(crate) unsafe fn write_token(
    buf: *const c_void,
    len: usize,
    out: *mut sketch_token,
    token: impl FnOnce(&[u8]) -> Result<sketches_core::image::Token>,
) -> Status {
    boundary::require(out)?;
    boundary::out_apart(out, buf, len)?;
    // SAFETY: caller contract.
    let image = unsafe { boundary::bytes(buf, len)? };
    let words = token(image)?.words;
    // SAFETY: non-NULL (checked); writability is the caller's contract.
    unsafe { boundary::write_out(out, sketch_token { words }) }
}

/// A validated view of one live image, kept by the caller so that
/// single-key calls skip every per-call check of the image (the
/// `sketch_<family>_view_*` functions, for Bloom, split-block and
/// HyperLogLog): the image's address and length as given to
/// `sketch_<family>_view`, which validated the image in full, and its token
/// (see `sketch_token`). A call on a view reads its parameters from the
/// token without reading the header or comparing identities, so it costs
/// about what the operation itself costs. On 64-bit targets, split-block
/// adds and queries of byte keys of at most 16 bytes, and HyperLogLog adds
/// that raise no register, take a shorter path that hashes in line.
///
/// Contract: a view stays valid while its memory holds that image at that
/// address. Make a new one after `sketch_<family>_init` or `_import` into
/// the buffer, after `sketch_hll_downsize` and `sketch_sbbf_fold` (which
/// change the parameters), and after moving the image. A view kept across
/// such a change answers for the old parameters (wrong answers, changed
/// bits) but reads and writes only the `len` bytes at `image`, as long as
/// those bytes are still the caller's; a token word out of range (a zero
/// token, for one), or a view of another family's image (a split-block
/// view given to `sketch_hll_view_add`), makes the call validate the image
/// in full (`SKETCH_WRONG_FAMILY` for the latter). Filled by hand, `image`
/// and `len` must describe readable (and, for adds, writable) memory, as
/// `buf` and `len` must for every other call.
///
/// Holds a pointer into the caller's memory: Go and Java bindings whose
/// images live in garbage-collected memory keep using tokens (see
/// `sketch_token`). A view is only read by the calls; its thread-safety is
/// that of the image (concurrent queries, one writer at a time).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sketch_view {
    /// The image's first byte.
    pub image: *mut c_void,
    /// The image's length in bytes.
    pub len: usize,
    /// The image's token.
    pub token: sketch_token,
}

/// The fields of a view a `_view_*` call was given.
pub(crate) struct KeptView {
    /// The image (as `buf`).
    pub image: *mut c_void,
    /// Its length (as `len`).
    pub len: usize,
    /// Its token in the core's form.
    pub token: sketches_core::image::Token,
}

impl KeptView {
    /// The view's image, read-only. Only NULL is refused: the length is
    /// the view's, checked when it was made.
    ///
    /// # Safety
    /// The view's contract: `len` readable bytes at `image`.
    #[inline(always)]
    unsafe fn bytes<'a>(&self) -> core::result::Result<&'a [u8], Fail> {
        boundary::require(self.image)?;
        // SAFETY: non-NULL (checked); `len` readable bytes by the view's contract.
        Ok(unsafe { core::slice::from_raw_parts(self.image.cast::<u8>(), self.len) })
    }

    /// The view's image, writable (see [`KeptView::bytes`]).
    ///
    /// # Safety
    /// The view's contract: `len` writable bytes at `image` that nothing
    /// else reads or writes during the call.
    #[inline(always)]
    unsafe fn bytes_mut<'a>(&self) -> core::result::Result<&'a mut [u8], Fail> {
        boundary::require(self.image)?;
        // SAFETY: non-NULL (checked); exclusive, writable bytes by the contract.
        Ok(unsafe { core::slice::from_raw_parts_mut(self.image.cast::<u8>(), self.len) })
    }

    /// One update through the view: `op` on the image, its value written
    /// to `out` unless NULL.
    ///
    /// # Safety
    /// The view's contract; `out` NULL or writable.
    #[inline(always)]
    pub(crate) unsafe fn update<T>(&self, out: *mut T, op: impl FnOnce(&mut [u8]) -> Result<T>) -> Status {
        boundary::out_apart(out, self.image, self.len)?;
        // SAFETY: caller contract.
        let value = op(unsafe { self.bytes_mut()? })?;
        // SAFETY: caller contract (NULL allowed).
        unsafe { boundary::write_optional(out, value) };
        Ok(())
    }

    /// One query through the view: `op` on the image, its value written to
    /// `out` (required).
    ///
    /// # Safety
    /// The view's contract; `out` writable.
    #[inline(always)]
    pub(crate) unsafe fn query<T>(&self, out: *mut T, op: impl FnOnce(&[u8]) -> Result<T>) -> Status {
        boundary::require(out)?;
        boundary::out_apart(out, self.image, self.len)?;
        // SAFETY: caller contract.
        let value = op(unsafe { self.bytes()? })?;
        // SAFETY: non-NULL checked.
        unsafe { boundary::write_out(out, value) }
    }
}

/// Whether the single-key fast paths ([`fast_read`], [`fast_write`]) are
/// compiled: on 64-bit targets. On 32-bit ones (firmware, where flash is
/// what counts) each call keeps its one full path: the same results,
/// without a second, inlined copy of the hash and the block kernel (5 KB
/// of split-block code on a Cortex-M4F).
const FAST_PATHS: bool = cfg!(target_pointer_width = "64");

/// The image and token of a kept view's call, for the fast paths; None
/// for a NULL view (the full path reports it).
///
/// # Safety
/// Unless NULL, `view` must point to a readable `sketch_view`.
#[inline(always)]
pub(crate) unsafe fn kept(view: *const sketch_view) -> Option<KeptView> {
    // SAFETY: caller contract.
    unsafe { read_view(view) }.ok()
}

/// The image and token of a `_with_token` call, for the fast paths: None
/// for a NULL token or a length past `isize::MAX` (the full path reports
/// them; the image pointer is checked by the fast path itself).
///
/// # Safety
/// Unless NULL, `token` must point to a readable `sketch_token`.
#[inline(always)]
pub(crate) unsafe fn with_token(
    buf: *const c_void,
    len: usize,
    token: *const sketch_token,
) -> Option<KeptView> {
    // SAFETY: caller contract.
    let token = unsafe { read_token(token) }.ok()?;
    (len <= isize::MAX as usize).then_some(KeptView { image: buf.cast_mut(), len, token })
}

/// The fast path of a single-key call that only reads the image (a query,
/// or an add that `op` finds changes nothing), on the image and token of
/// `source` ([`kept`] or [`with_token`]): `key` accepts the call's key
/// against the image (None: not on this path), then `op` answers from the
/// image and the token, or gives None. None, also for a missing source or
/// a NULL image, means nothing was written: the caller takes its full
/// path, which serves the call or reports its status. It calls nothing out
/// of line unless `op` does.
///
/// # Safety
/// `source` describes `len` readable bytes at `image` (a view's contract,
/// or a call's `buf` and `len`).
#[inline(always)]
pub(crate) unsafe fn fast_read<K, T, O>(
    source: Option<KeptView>,
    out: *const O,
    key: impl FnOnce(&KeptView) -> Option<K>,
    op: impl FnOnce(&[u8], &sketches_core::image::Token, K) -> Option<T>,
) -> Option<T> {
    if !FAST_PATHS {
        return None;
    }
    let source = source?;
    // An output inside the image: the full path refuses it.
    boundary::out_apart(out, source.image, source.len).ok()?;
    let key = key(&source)?;
    // SAFETY: caller contract.
    let image = unsafe { source.bytes() }.ok()?;
    op(image, &source.token, key)
}

/// [`fast_read`] for an update: `op` gets the image writable, and must
/// give None only before changing it. `key` runs first, while the image is
/// not borrowed: the key it accepts must share no byte with the image.
///
/// # Safety
/// `source` describes `len` writable bytes at `image` that nothing else
/// reads or writes during the call.
#[inline(always)]
pub(crate) unsafe fn fast_write<K, T, O>(
    source: Option<KeptView>,
    out: *const O,
    key: impl FnOnce(&KeptView) -> Option<K>,
    op: impl FnOnce(&mut [u8], &sketches_core::image::Token, K) -> Option<T>,
) -> Option<T> {
    if !FAST_PATHS {
        return None;
    }
    let source = source?;
    // An output inside the image: the full path refuses it.
    boundary::out_apart(out, source.image, source.len).ok()?;
    let key = key(&source)?;
    // SAFETY: caller contract; the key is apart from the image.
    let image = unsafe { source.bytes_mut() }.ok()?;
    op(image, &source.token, key)
}

/// Reads the view a `_view_*` call was given.
///
/// # Safety
/// Unless NULL, `view` must point to a readable `sketch_view` (any
/// alignment).
#[inline(always)]
pub(crate) unsafe fn read_view(view: *const sketch_view) -> core::result::Result<KeptView, Fail> {
    boundary::require(view)?;
    // SAFETY: non-NULL (checked); readability is the caller's contract.
    let view = unsafe { view.read_unaligned() };
    Ok(KeptView {
        image: view.image,
        len: view.len,
        token: sketches_core::image::Token { words: view.token.words },
    })
}

/// Validates the live image and writes its view (`*out` only on success).
///
/// # Safety
/// `buf`/`len` and `out` as documented on the exported functions.
#[inline]
pub(crate) unsafe fn write_view(
    buf: *mut c_void,
    len: usize,
    out: *mut sketch_view,
    token: impl FnOnce(&[u8]) -> Result<sketches_core::image::Token>,
) -> Status {
    boundary::require(out)?;
    boundary::out_apart(out, buf, len)?;
    // SAFETY: caller contract.
    let image = unsafe { boundary::bytes(buf, len)? };
    let words = token(image)?.words;
    let view = sketch_view { image: buf, len, token: sketch_token { words } };
    // SAFETY: non-NULL (checked); writability is the caller's contract.
    unsafe { boundary::write_out(out, view) }
}

/// What the common header of an image says (see `sketch_image_inspect`).
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, Default)]
pub struct sketch_image_info {
    /// Family id (`SKETCH_FAMILY_*`).
    pub family: u16,
    /// Hash id (`SKETCH_HASH_*`).
    pub hash: u16,
    /// Format major version.
    pub format_major: u8,
    /// Format minor version.
    pub format_minor: u8,
    /// Reserved, 0.
    pub reserved: u16,
    /// Family-specific flags.
    pub flags: u32,
    /// Header length in bytes.
    pub header_bytes: u32,
    /// Hash seed.
    pub seed: u64,
    /// Total image length in bytes.
    pub image_bytes: u64,
}

/// Reads the common header of any image (for example to dispatch on the
/// family of bytes received from elsewhere). Checks magic, version, ids and
/// lengths, not the family header or checksum. Needs no alignment.
///
/// Errors: `SKETCH_NULL_POINTER`, `SKETCH_BUFFER_TOO_SMALL`, `SKETCH_BAD_MAGIC`,
/// `SKETCH_UNSUPPORTED_VERSION`, `SKETCH_UNSUPPORTED_HASH`, `SKETCH_CORRUPT_HEADER`.
///
/// # Safety
/// Unless NULL, `bytes` must point to `len` readable bytes; `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_image_inspect(
    bytes: *const c_void,
    len: usize,
    out: *mut sketch_image_info,
) -> sketch_status {
    // SAFETY: the caller's contract, as documented above.
    unsafe {
        inspect_with(bytes, len, out, |b| sketches_core::image::inspect(b).map(|h| (h, h.image_len as u64)))
    }
}

/// Reads the common header at the start of `bytes` on its own, without the
/// rest of the image: the first step of reading images from a file, socket
/// or pipe. Read `SKETCH_COMMON_HEADER_BYTES` (48) bytes, call this, then
/// read until `out->image_bytes` bytes in all have arrived (the 48 included)
/// and pass them to the family's `_import` (or `_verify`), which checks
/// the family header, the body and the checksum. Only the first 48 bytes
/// are read; `len` may be larger (they are not checked against
/// `image_bytes`: that is `sketch_image_inspect`, which refuses a header
/// whose image is longer than `len` with `SKETCH_BUFFER_TOO_SMALL`).
///
/// Checks what `sketch_image_inspect` checks of the common header: magic,
/// a major version this library reads, known family and hash ids, the
/// reserved field, the header length (at least 48, a multiple of 8) and the
/// image length (a multiple of 8, at least the header length).
/// `out->image_bytes` is the length as recorded, which a damaged or hostile
/// header may make huge: bound it before allocating (on a 32-bit target it
/// may exceed `SIZE_MAX`). Needs no alignment; `*out` is written only on
/// success.
///
/// Errors: `SKETCH_NULL_POINTER` (`out`, or `bytes` with a nonzero `len`),
/// `SKETCH_BUFFER_TOO_SMALL` (`len` < 48, NULL `bytes` with `len` 0 too),
/// `SKETCH_BAD_MAGIC`,
/// `SKETCH_UNSUPPORTED_VERSION` (a newer major), `SKETCH_UNSUPPORTED_HASH`,
/// `SKETCH_CORRUPT_HEADER`, `SKETCH_OVERLAP` (`out` inside the bytes).
/// Thread-safety: only reads `bytes`; safe to call concurrently.
///
/// # Safety
/// Unless NULL, `bytes` must point to `len` readable bytes; `out` must be writable.
#[no_mangle]
pub unsafe extern "C" fn sketch_image_inspect_header(
    bytes: *const c_void,
    len: usize,
    out: *mut sketch_image_info,
) -> sketch_status {
    // SAFETY: the caller's contract, as documented above.
    unsafe { inspect_with(bytes, len, out, sketches_core::image::inspect_header) }
}

/// Shared body of `sketch_image_inspect` and `sketch_image_inspect_header`:
/// `out` required and apart from the bytes, then `read` (which decodes the
/// header and gives the image length to report) on the bytes, `*out`
/// written only on success. A type parameter, not a function pointer, so
/// the stack bound test follows the call.
///
/// # Safety
/// Unless NULL, `bytes` must point to `len` readable bytes; `out` must be writable.
unsafe fn inspect_with(
    bytes: *const c_void,
    len: usize,
    out: *mut sketch_image_info,
    read: impl FnOnce(&[u8]) -> sketches_core::Result<(sketches_core::image::CommonHeader, u64)>,
) -> sketch_status {
    run(|| {
        boundary::require(out)?;
        boundary::out_apart(out, bytes, len)?;
        // SAFETY: caller contract above.
        let bytes = unsafe { boundary::bytes(bytes, len)? };
        let (h, image_bytes) = read(bytes)?;
        let info = sketch_image_info {
            family: h.family as u16,
            hash: h.hash.id(),
            format_major: sketches_core::image::FORMAT_MAJOR,
            format_minor: h.minor,
            reserved: 0,
            flags: h.flags,
            header_bytes: h.header_len as u32,
            seed: h.seed,
            image_bytes,
        };
        // SAFETY: non-NULL checked; caller contract.
        unsafe { boundary::write_out(out, info) }
    })
}

/// Shared body of every family's `export`.
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
// Inlined into each family's export, so that `export` is a direct call
// there (the stack bound of `tests/tests/stack_bound.rs` follows no
// indirect call).
#[inline(always)]
pub(crate) unsafe fn export_with(
    export: fn(&[u8], &mut [u8]) -> Result<usize>,
    buf: *const c_void,
    len: usize,
    out: *mut c_void,
    out_len: usize,
    written: *mut usize,
) -> Status {
    boundary::require(written)?;
    // The destination and the byte count are both written: neither may
    // share a byte with the other or with the image read (a count stored
    // over the exported magic, or into the live image, would be lost or
    // would damage it).
    let image = Span::of(buf.cast::<u8>(), len);
    boundary::apart(&[Span::of(out.cast::<u8>(), out_len), Span::of(written, 1)], None, &[image])?;
    // SAFETY: caller contract; the ranges do not overlap (checked).
    let (src, dst) = unsafe { (boundary::bytes(buf, len)?, boundary::bytes_mut(out, out_len)?) };
    let n = export(src, dst)?;
    // SAFETY: non-NULL checked.
    unsafe { boundary::write_out(written, n) }
}

/// Shared body of every family's `import`.
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
pub(crate) unsafe fn import_with(
    import: fn(&[u8], &mut [u8]) -> Result<usize>,
    src: *const c_void,
    src_len: usize,
    dst: *mut c_void,
    dst_len: usize,
) -> Status {
    if boundary::overlaps(src, src_len, dst, dst_len) {
        return Err(Fail(SKETCH_OVERLAP));
    }
    // SAFETY: caller contract; the ranges do not overlap (checked).
    let (s, d) = unsafe { (boundary::bytes(src, src_len)?, boundary::bytes_mut(dst, dst_len)?) };
    import(s, d)?;
    Ok(())
}

/// Shared body of every family's `import_size`.
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
pub(crate) unsafe fn import_size_with(
    import_len: fn(&[u8]) -> Result<usize>,
    src: *const c_void,
    src_len: usize,
    size: *mut usize,
) -> Status {
    boundary::require(size)?;
    boundary::out_apart(size, src, src_len)?;
    // SAFETY: caller contract.
    let n = import_len(unsafe { boundary::bytes(src, src_len)? })?;
    // SAFETY: non-NULL checked; caller contract.
    unsafe { boundary::write_out(size, n) }
}

/// Shared body of every family's binary merge (union, intersection).
///
/// # Safety
/// Pointer contracts as documented on the exported functions.
pub(crate) unsafe fn merge_with(
    merge: impl FnOnce(&mut [u8], &[u8]) -> Result<()>,
    dst: *mut c_void,
    dst_len: usize,
    src: *const c_void,
    src_len: usize,
) -> Status {
    if boundary::overlaps(src, src_len, dst, dst_len) {
        return Err(Fail(SKETCH_OVERLAP));
    }
    // SAFETY: caller contract; the ranges do not overlap (checked).
    let (d, s) = unsafe { (boundary::bytes_mut(dst, dst_len)?, boundary::bytes(src, src_len)?) };
    merge(d, s)?;
    Ok(())
}
