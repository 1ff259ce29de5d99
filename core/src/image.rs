//! The image layout shared by every family: the buffer *is* the serialized form.
//!
//! An image is one contiguous byte buffer, 8-byte aligned when live, made of a
//! 48-byte common header, a family header, and the body. All fields are
//! little-endian, whatever the host. Common header:
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0  | 4 | magic `"SKCH"` |
//! | 4  | 1 | format major version ([`FORMAT_MAJOR`]) |
//! | 5  | 1 | format minor version ([`FORMAT_MINOR`]) |
//! | 6  | 2 | family id ([`FamilyId`]) |
//! | 8  | 2 | hash id ([`HashKind`]) |
//! | 10 | 2 | header length in bytes (common + family header; the body starts here) |
//! | 12 | 4 | flags (family specific) |
//! | 16 | 8 | hash seed |
//! | 24 | 8 | image length in bytes (header + body) |
//! | 32 | 8 | checksum, written by export, verified by import (see [`checksum`]) |
//! | 40 | 8 | reserved, must be 0 |
//!
//! Readers reject a newer major version ([`Error::UnsupportedVersion`]) and
//! accept any minor version of their major (minor versions only add meaning to
//! fields that older readers require to be zero).
//!
//! Two ways in:
//! * `wrap` / `wrap_mut` (zero-copy) validate the headers against the buffer
//!   once; afterwards every operation is memory-safe whatever the body bytes
//!   are, but a damaged body gives wrong answers. Use it for buffers you wrote.
//! * `import` (checked) additionally requires the exact length and verifies the
//!   checksum over the whole image, so damaged bytes from disk or network are
//!   reported as [`Error::ChecksumMismatch`]. Use it for untrusted bytes.

use crate::error::{Error, Result};
use crate::hash::HashKind;

/// The four magic bytes every image starts with.
pub const MAGIC: [u8; 4] = *b"SKCH";
/// The format major version this library writes and reads.
pub const FORMAT_MAJOR: u8 = 1;
/// The format minor version this library writes.
pub const FORMAT_MINOR: u8 = 0;
/// Byte length of the common header.
pub const COMMON_HEADER_LEN: usize = 48;
/// Alignment to allocate live images with, in bytes (a cache line). Every
/// live image length is a multiple of it (the body is followed by zero
/// padding, see [`padded_len`]), so `aligned_alloc(IMAGE_ALIGN, len)` takes
/// the size functions' results as they are, and split-block blocks then sit
/// in one cache line each.
pub const IMAGE_ALIGN: usize = 64;

/// The live image length for `unpadded` bytes of header and body: rounded
/// up to a multiple of [`IMAGE_ALIGN`]. The padding after the body is zero
/// (checked by `verify`/`import`, never read by the sketch).
#[inline]
pub const fn padded_len(unpadded: u64) -> u64 {
    unpadded.div_ceil(IMAGE_ALIGN as u64).saturating_mul(IMAGE_ALIGN as u64)
}
/// Alignment live images must have, in bytes (checked by `init`, `wrap` and
/// `import`; exported images need none).
pub const MIN_IMAGE_ALIGN: usize = 8;

/// `N` zeroed bytes starting on an [`IMAGE_ALIGN`] (64-byte) boundary: a
/// buffer for one image on the stack, in a `static` or in a `Box`, without
/// a hand-written aligned wrapper or pointer arithmetic. It dereferences to
/// `[u8]`, so `&mut buf` and `&buf` go wherever a family takes the image
/// (`init`, `wrap_mut`, `import`, `wrap`, `export`). Pick `N` of at least the
/// family's `image_len` (a longer buffer is fine: the image is its prefix);
/// `new` is `const`, so a firmware image can live in a `static` behind the
/// lock of your choice.
///
/// ```
/// use sketches_core::bloom::{self, BloomParams};
/// use sketches_core::image::ImageBuf;
///
/// # fn main() -> Result<(), sketches_core::Error> {
/// let params = BloomParams::for_items(1_000, 0.01)?;
/// let mut buf = ImageBuf::<2048>::new();
/// assert!(params.image_len()? <= buf.len() as u64);
/// bloom::init(&mut buf, &params, 0)?.add(b"alice");
/// assert!(bloom::wrap(&buf)?.contains(b"alice"));
/// # Ok(())
/// # }
/// ```
///
/// Plain data (`Send`, `Sync`); the views borrow it. `Debug` prints its
/// length, not its bytes.
#[derive(Clone, PartialEq, Eq, Hash)]
#[repr(C, align(64))]
pub struct ImageBuf<const N: usize>(pub [u8; N]);

// The type's alignment is the one this module asks callers for.
const _: () = assert!(core::mem::align_of::<ImageBuf<0>>() == IMAGE_ALIGN);

impl<const N: usize> ImageBuf<N> {
    /// `N` zero bytes, 64-byte aligned.
    pub const fn new() -> Self {
        ImageBuf([0; N])
    }
}

impl<const N: usize> Default for ImageBuf<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> core::fmt::Debug for ImageBuf<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ImageBuf").field("len", &N).finish_non_exhaustive()
    }
}

impl<const N: usize> core::ops::Deref for ImageBuf<N> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl<const N: usize> core::ops::DerefMut for ImageBuf<N> {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

impl<const N: usize> AsRef<[u8]> for ImageBuf<N> {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl<const N: usize> AsMut<[u8]> for ImageBuf<N> {
    fn as_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

const OFF_MAJOR: usize = 4;
const OFF_MINOR: usize = 5;
const OFF_FAMILY: usize = 6;
const OFF_HASH: usize = 8;
const OFF_HEADER_LEN: usize = 10;
pub(crate) const OFF_FLAGS: usize = 12;
const OFF_SEED: usize = 16;
pub(crate) const OFF_IMAGE_LEN: usize = 24;
const OFF_CHECKSUM: usize = 32;
const OFF_RESERVED: usize = 40;

/// Sketch families and their stable ids in the image header.
///
/// Ids of families not yet implemented are reserved so that images stay
/// unambiguous as families are added.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum FamilyId {
    /// Classic Bloom filter ([`crate::bloom`]).
    Bloom = 1,
    /// Split-block Bloom filter ([`crate::sbbf`]).
    SplitBlockBloom = 2,
    /// Counting Bloom filter ([`crate::counting`]).
    CountingBloom = 3,
    /// Cuckoo filter ([`crate::cuckoo`]).
    Cuckoo = 4,
    /// HyperLogLog ([`crate::hll`]).
    HyperLogLog = 5,
    /// UltraLogLog ([`crate::ull`]).
    UltraLogLog = 6,
    /// Count-Min sketch ([`crate::countmin`]).
    CountMin = 7,
    /// Top-k heavy hitters ([`crate::topk`]).
    TopK = 8,
    /// MinHash ([`crate::minhash`]).
    MinHash = 9,
    /// Static binary fuse filter ([`crate::fuse`]).
    BinaryFuse = 10,
    /// ExaLogLog ([`crate::ell`]).
    ExaLogLog = 11,
}

impl FamilyId {
    /// Decodes a header value; `None` for unknown ids.
    pub const fn from_id(id: u16) -> Option<FamilyId> {
        Some(match id {
            1 => FamilyId::Bloom,
            2 => FamilyId::SplitBlockBloom,
            3 => FamilyId::CountingBloom,
            4 => FamilyId::Cuckoo,
            5 => FamilyId::HyperLogLog,
            6 => FamilyId::UltraLogLog,
            7 => FamilyId::CountMin,
            8 => FamilyId::TopK,
            9 => FamilyId::MinHash,
            10 => FamilyId::BinaryFuse,
            11 => FamilyId::ExaLogLog,
            _ => return None,
        })
    }
}

/// The decoded common header of an image.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CommonHeader {
    /// Sketch family.
    pub family: FamilyId,
    /// Hash function of the image.
    pub hash: HashKind,
    /// Format minor version that wrote the image.
    pub minor: u8,
    /// Header length in bytes (the body starts at this offset).
    pub header_len: usize,
    /// Family-specific flags.
    pub flags: u32,
    /// Hash seed.
    pub seed: u64,
    /// Total image length in bytes.
    pub image_len: usize,
    /// Stored checksum (meaningful on exported images).
    pub checksum: u64,
}

/// Reads a little-endian `u16` at `off`; `None` when out of bounds.
#[inline]
pub fn get_u16(buf: &[u8], off: usize) -> Option<u16> {
    let bytes = buf.get(off..off.checked_add(2)?)?;
    Some(u16::from_le_bytes(bytes.try_into().ok()?))
}

/// Reads a little-endian `u32` at `off`; `None` when out of bounds.
#[inline]
pub fn get_u32(buf: &[u8], off: usize) -> Option<u32> {
    let bytes = buf.get(off..off.checked_add(4)?)?;
    Some(u32::from_le_bytes(bytes.try_into().ok()?))
}

/// Reads a little-endian `u64` at `off`; `None` when out of bounds.
#[inline]
pub fn get_u64(buf: &[u8], off: usize) -> Option<u64> {
    let bytes = buf.get(off..off.checked_add(8)?)?;
    Some(u64::from_le_bytes(bytes.try_into().ok()?))
}

/// Reads a little-endian IEEE-754 `f64` at `off`; `None` when out of bounds.
#[inline]
pub fn get_f64(buf: &[u8], off: usize) -> Option<f64> {
    get_u64(buf, off).map(f64::from_bits)
}

/// Writes a little-endian `u16` at `off`; does nothing when out of bounds
/// (callers write only inside headers whose length they validated).
#[inline]
pub fn put_u16(buf: &mut [u8], off: usize, value: u16) {
    if let Some(dst) = buf.get_mut(off..).and_then(|tail| tail.first_chunk_mut::<2>()) {
        *dst = value.to_le_bytes();
    }
}

/// Writes a little-endian `u32` at `off`; does nothing when out of bounds.
#[inline]
pub fn put_u32(buf: &mut [u8], off: usize, value: u32) {
    if let Some(dst) = buf.get_mut(off..).and_then(|tail| tail.first_chunk_mut::<4>()) {
        *dst = value.to_le_bytes();
    }
}

/// Writes a little-endian `u64` at `off`; does nothing when out of bounds.
#[inline]
pub fn put_u64(buf: &mut [u8], off: usize, value: u64) {
    if let Some(dst) = buf.get_mut(off..).and_then(|tail| tail.first_chunk_mut::<8>()) {
        *dst = value.to_le_bytes();
    }
}

/// Writes a little-endian `f64` at `off`; does nothing when out of bounds.
#[inline]
pub fn put_f64(buf: &mut [u8], off: usize, value: f64) {
    put_u64(buf, off, value.to_bits());
}

/// Copies `min(dst.len(), src.len())` bytes from `src` to the start of `dst`
/// (a `memcpy` without the length check that `copy_from_slice` can fail:
/// the compiler turns the loop into `memcpy`, and no panic path remains at
/// any optimization level, where an out-of-line `copy_from_slice` keeps one
/// at `opt-level = "s"` or `"z"`).
#[inline]
pub fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d = *s;
    }
}

/// True when `buf[range]` exists and is all zero (reserved header fields).
#[inline]
pub fn zeroed(buf: &[u8], range: core::ops::Range<usize>) -> bool {
    buf.get(range).is_some_and(|bytes| bytes.iter().fold(0u8, |acc, b| acc | b) == 0)
}

/// True when `buf` starts on a [`MIN_IMAGE_ALIGN`]-byte boundary.
#[inline]
pub fn is_aligned(buf: &[u8]) -> bool {
    (buf.as_ptr() as usize).is_multiple_of(MIN_IMAGE_ALIGN)
}

/// Converts a 64-bit byte count to `usize`, failing on hosts where it cannot
/// be addressed.
#[inline]
pub fn to_usize(bytes: u64) -> Result<usize> {
    usize::try_from(bytes).map_err(|_| Error::BufferTooSmall)
}

/// Decodes and checks the common header at the start of `buf`.
///
/// Checks: length, magic, major version, known family and hash ids, reserved
/// field, header length within the image, image length a multiple of 8 and
/// not longer than `buf`. Does not check alignment or the checksum.
#[inline]
pub fn read_common(buf: &[u8]) -> Result<CommonHeader> {
    read_common_in(buf, buf.len())
}

/// [`read_common`] of a header copied out of a buffer of `total_len` bytes
/// (the image length must fit `total_len`; `buf` holds at least the common
/// header). Used by the shared (atomic) views, which copy the header first.
/// A stated image length past the address space (32-bit targets) reads as
/// `usize::MAX`, which no buffer has: with `total_len` = `usize::MAX` the
/// caller's comparison with the real length then fails.
#[inline]
pub fn read_common_in(buf: &[u8], total_len: usize) -> Result<CommonHeader> {
    if buf.len() < COMMON_HEADER_LEN {
        return Err(Error::BufferTooSmall);
    }
    if buf.get(0..4) != Some(&MAGIC[..]) {
        return Err(Error::BadMagic);
    }
    let major = *buf.get(OFF_MAJOR).ok_or(Error::BufferTooSmall)?;
    if major > FORMAT_MAJOR {
        return Err(Error::UnsupportedVersion);
    }
    if major == 0 {
        return Err(Error::CorruptHeader);
    }
    let minor = *buf.get(OFF_MINOR).ok_or(Error::BufferTooSmall)?;
    let field = |v: Option<u64>| v.ok_or(Error::BufferTooSmall);
    let family_id = field(get_u16(buf, OFF_FAMILY).map(u64::from))? as u16;
    let family = FamilyId::from_id(family_id).ok_or(Error::CorruptHeader)?;
    let hash_id = field(get_u16(buf, OFF_HASH).map(u64::from))? as u16;
    let hash = HashKind::from_id(hash_id).ok_or(Error::UnsupportedHash)?;
    let header_len = field(get_u16(buf, OFF_HEADER_LEN).map(u64::from))? as usize;
    let flags = field(get_u32(buf, OFF_FLAGS).map(u64::from))? as u32;
    let seed = field(get_u64(buf, OFF_SEED))?;
    let image_len_raw = field(get_u64(buf, OFF_IMAGE_LEN))?;
    let checksum = field(get_u64(buf, OFF_CHECKSUM))?;
    if field(get_u64(buf, OFF_RESERVED))? != 0 {
        return Err(Error::CorruptHeader);
    }
    if header_len < COMMON_HEADER_LEN || !header_len.is_multiple_of(MIN_IMAGE_ALIGN) {
        return Err(Error::CorruptHeader);
    }
    if image_len_raw % MIN_IMAGE_ALIGN as u64 != 0 || image_len_raw < header_len as u64 {
        return Err(Error::CorruptHeader);
    }
    // A length past the address space (possible only where usize is 32
    // bits) saturates: it exceeds every `total_len` of a real buffer
    // (`BufferTooSmall`, as before), and `verify` / `import_len`, which pass
    // `usize::MAX`, report it as any length the bytes do not have:
    // `LengthMismatch`, as on 64-bit targets.
    let image_len = usize::try_from(image_len_raw).unwrap_or(usize::MAX);
    if image_len > total_len {
        return Err(Error::BufferTooSmall);
    }
    Ok(CommonHeader { family, hash, minor, header_len, flags, seed, image_len, checksum })
}

/// Writes a fresh common header (checksum 0) at the start of `buf`.
/// `buf` must be at least [`COMMON_HEADER_LEN`] long (callers check sizes first).
pub fn write_common(
    buf: &mut [u8],
    family: FamilyId,
    hash: HashKind,
    header_len: usize,
    flags: u32,
    seed: u64,
    image_len: u64,
) {
    if let Some(magic) = buf.first_chunk_mut::<4>() {
        *magic = MAGIC;
    }
    if let Some(v) = buf.get_mut(OFF_MAJOR) {
        *v = FORMAT_MAJOR;
    }
    if let Some(v) = buf.get_mut(OFF_MINOR) {
        *v = FORMAT_MINOR;
    }
    put_u16(buf, OFF_FAMILY, family as u16);
    put_u16(buf, OFF_HASH, hash.id());
    put_u16(buf, OFF_HEADER_LEN, header_len as u16);
    put_u32(buf, OFF_FLAGS, flags);
    put_u64(buf, OFF_SEED, seed);
    put_u64(buf, OFF_IMAGE_LEN, image_len);
    put_u64(buf, OFF_CHECKSUM, 0);
    put_u64(buf, OFF_RESERVED, 0);
}

/// The checksum of an image: XXH3-64 of bytes `40..len` seeded with the
/// XXH3-64 (seed 0) of bytes `0..32`, so the checksum field itself (bytes
/// 32..40) is excluded. `image` must be exactly the image bytes.
pub fn checksum(image: &[u8]) -> u64 {
    let head = image.get(..OFF_CHECKSUM).unwrap_or(image);
    let tail = image.get(OFF_RESERVED..).unwrap_or(&[]);
    crate::hash::hash_bytes(tail, crate::hash::hash_bytes(head, 0))
}

/// A sketch family's view of the image format: how to validate its header.
pub trait ImageFamily {
    /// The family id images of this family carry.
    const FAMILY: FamilyId;
    /// The validated, decoded family parameters.
    type Layout: Copy;
    /// Validates the family header of an image whose common header is `common`;
    /// `image` is exactly the image bytes. Returns the decoded layout.
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<Self::Layout>;

    /// Bytes of the body that hold the sketch (the body starts at the header
    /// length; the rest of the image up to its length is zero padding). The
    /// default: everything after the header.
    #[inline]
    fn body_len(common: &CommonHeader, _layout: &Self::Layout) -> usize {
        common.image_len.saturating_sub(common.header_len)
    }

    /// Checks the body of untrusted bytes whose headers, length and checksum
    /// verified (run by [`verify`] and [`import`] only, never by `wrap`; may
    /// be O(body)). Families whose every body is legal keep the default.
    /// Errors: [`Error::CorruptBody`].
    fn check_body(_common: &CommonHeader, _layout: &Self::Layout, _image: &[u8]) -> Result<()> {
        Ok(())
    }

    /// Bytes a live image takes once an exported image with these headers
    /// is imported. The default: the exported length (only compact exports,
    /// such as a small-mode HyperLogLog's, grow back on import).
    #[inline]
    fn live_len(common: &CommonHeader, _layout: &Self::Layout) -> usize {
        common.image_len
    }

    /// The family-header words, as (byte offset, mask) pairs, that together
    /// with the common header fix the layout [`ImageFamily::validate`]
    /// returns: the immutable parameters, never a counter or a mode that
    /// updates change. A [`Token`] holds them (at most
    /// [`TOKEN_FAMILY_WORDS`]); families without tokens keep the default.
    const IDENTITY: &'static [(usize, u64)] = &[];
}

/// Validates a live image for zero-copy use: alignment, common header, family
/// and family header. Returns the header, the layout, and the image length
/// (the buffer may be longer than the image; the rest is ignored).
#[inline]
pub fn open<F: ImageFamily>(buf: &[u8]) -> Result<(CommonHeader, F::Layout)> {
    if buf.len() < COMMON_HEADER_LEN {
        return Err(Error::BufferTooSmall);
    }
    if !is_aligned(buf) {
        return Err(Error::Misaligned);
    }
    open_unaligned::<F>(buf)
}

#[inline]
fn open_unaligned<F: ImageFamily>(buf: &[u8]) -> Result<(CommonHeader, F::Layout)> {
    let common = read_common(buf)?;
    if common.family != F::FAMILY {
        return Err(Error::WrongFamily);
    }
    let image = buf.get(..common.image_len).ok_or(Error::BufferTooSmall)?;
    let layout = F::validate(&common, image)?;
    Ok((common, layout))
}

/// A validated live image split into its header and body.
pub struct Parts<'a, F: ImageFamily> {
    /// The common header.
    pub common: CommonHeader,
    /// The family's validated layout.
    pub layout: F::Layout,
    /// Header bytes (common + family header).
    pub header: &'a [u8],
    /// Body bytes.
    pub body: &'a [u8],
}

/// Like [`Parts`], mutable.
pub struct PartsMut<'a, F: ImageFamily> {
    /// The common header.
    pub common: CommonHeader,
    /// The family's validated layout.
    pub layout: F::Layout,
    /// Header bytes (common + family header).
    pub header: &'a mut [u8],
    /// Body bytes.
    pub body: &'a mut [u8],
}

/// The end of the body of a validated image (header length + body length).
#[inline]
fn body_end<F: ImageFamily>(common: &CommonHeader, layout: &F::Layout) -> Result<usize> {
    let end = common.header_len.checked_add(F::body_len(common, layout)).ok_or(Error::CorruptHeader)?;
    if end > common.image_len {
        return Err(Error::CorruptHeader);
    }
    Ok(end)
}

/// [`open`], then splits the image (not its padding, nor the rest of `buf`)
/// into header and body.
#[inline]
pub fn split<F: ImageFamily>(buf: &[u8]) -> Result<Parts<'_, F>> {
    let (common, layout) = open::<F>(buf)?;
    let image = buf.get(..body_end::<F>(&common, &layout)?).ok_or(Error::BufferTooSmall)?;
    let (header, body) = image.split_at_checked(common.header_len).ok_or(Error::BufferTooSmall)?;
    Ok(Parts { common, layout, header, body })
}

/// [`open`], then splits the image mutably into header and body.
#[inline]
pub fn split_mut<F: ImageFamily>(buf: &mut [u8]) -> Result<PartsMut<'_, F>> {
    let (common, layout) = open::<F>(buf)?;
    let image = buf.get_mut(..body_end::<F>(&common, &layout)?).ok_or(Error::BufferTooSmall)?;
    let (header, body) = image.split_at_mut_checked(common.header_len).ok_or(Error::BufferTooSmall)?;
    Ok(PartsMut { common, layout, header, body })
}

/// Words in a [`Token`]: the first four words of the common header, then
/// up to [`TOKEN_FAMILY_WORDS`] family words.
pub const TOKEN_WORDS: usize = 8;
/// Family-header words a [`Token`] can hold ([`ImageFamily::IDENTITY`]).
pub const TOKEN_FAMILY_WORDS: usize = 4;
/// Common-header words a [`Token`] holds (offsets 0, 8, 16 and 24).
const TOKEN_COMMON_WORDS: usize = TOKEN_WORDS - TOKEN_FAMILY_WORDS;

/// What validating an image's headers established, kept by the caller so
/// that later single-key calls on the same image skip the validation (the
/// C ABI's `sketch_token`).
///
/// It holds the image's identity: the first four words of the common header
/// (magic, versions, family, hash, header length, flags, seed, image length)
/// and the family's parameter words ([`ImageFamily::IDENTITY`]). A call
/// given a token compares those words of the buffer with it, a handful of
/// loads; when all match and the buffer is aligned and at least the image
/// length, the layout is decoded without the checks, because the same bytes
/// already passed them. When anything differs (another image, one
/// re-initialized with other parameters, a token never filled, which is all
/// zero and matches nothing), the call validates in full as it does without
/// a token: a stale token costs time, never correctness.
///
/// Counters and modes that updates change are not part of the identity: with
/// a token they are trusted as a view's body is (damaged ones give wrong
/// answers, never unsafety or a panic), exactly as for a view kept by a
/// Rust caller between calls. A token filled by hand rather than by a
/// family's `token` skips the same checks; the families still bound what
/// keeps calls finite and in range (probe counts, block counts, precision).
///
/// Plain data without pointers: copy it freely. Thread-safety is that of
/// the image it was made from.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Token {
    /// Identity words, little-endian values of the image's header words.
    pub words: [u64; TOKEN_WORDS],
}

/// The identity words of `buf` for family `F` (see [`Token`]); `None` when
/// `buf` is too short to hold them.
#[inline(always)]
fn identity<F: ImageFamily>(buf: &[u8]) -> Option<[u64; TOKEN_WORDS]> {
    let mut words = [0u64; TOKEN_WORDS];
    for (i, word) in words.iter_mut().take(TOKEN_COMMON_WORDS).enumerate() {
        *word = get_u64(buf, 8 * i)?;
    }
    for (word, &(off, mask)) in words.iter_mut().skip(TOKEN_COMMON_WORDS).zip(F::IDENTITY) {
        *word = get_u64(buf, off)? & mask;
    }
    Some(words)
}

/// True when the identity words of `buf` differ from `token`'s (an OR of
/// XORs: no early exit, no call to `memcmp`); `None` when `buf` is too
/// short to hold them.
#[inline(always)]
fn identity_differs<F: ImageFamily>(buf: &[u8], token: &Token) -> Option<bool> {
    let (common, family) = token.words.split_at(TOKEN_COMMON_WORDS);
    let mut diff = 0u64;
    for (i, word) in common.iter().enumerate() {
        diff |= get_u64(buf, 8 * i)? ^ word;
    }
    for (i, word) in family.iter().enumerate() {
        diff |= match F::IDENTITY.get(i) {
            Some(&(off, mask)) => (get_u64(buf, off)? & mask) ^ word,
            None => *word,
        };
    }
    Some(diff != 0)
}

/// A token copied from `buf`'s identity words without validating them, as
/// a caller filling one by hand would (tests of that misuse).
#[cfg(test)]
pub(crate) fn forged_token<F: ImageFamily>(buf: &[u8]) -> Token {
    Token { words: identity::<F>(buf).unwrap_or_default() }
}

/// Validates the live image in `buf` as [`open`] does and returns its
/// [`Token`]. Errors: as [`open`].
pub fn token<F: ImageFamily>(buf: &[u8]) -> Result<Token> {
    let (common, layout) = open::<F>(buf)?;
    body_end::<F>(&common, &layout)?;
    identity::<F>(buf).map(|words| Token { words }).ok_or(Error::BufferTooSmall)
}

/// True when `buf` is aligned, at least the token's image length, and its
/// identity words equal `token`'s, a token of family `F` ([`token_is`]):
/// its headers then hold the values that passed the validation when the
/// token was made, and the family may build its view from them (or from
/// the token's words, which are equal) without checking them again (see
/// [`Token`]).
#[inline(always)]
pub fn token_matches<F: ImageFamily>(buf: &[u8], token: &Token) -> bool {
    let image_len = token.words[TOKEN_COMMON_WORDS - 1];
    token_is::<F>(token)
        && (buf.len() as u64) >= image_len
        && is_aligned(buf)
        && identity_differs::<F>(buf, token) == Some(false)
}

/// The bytes of the first header word a [`Token`] of family `F` holds
/// whatever the image: the magic and the family id (not the versions).
const TOKEN_KIND_MASK: u64 = 0xffff_0000_ffff_ffff;

/// True when `token`'s first word holds the magic and family `F`'s id, as
/// every token made from an image of `F` does: a token (or a kept view) of
/// another family's image, a zero token and most hand-filled ones do not.
/// The family's parameter words of a token of another family can be in
/// range for `F` (a split-block filter's block count read as a
/// HyperLogLog precision): families check this before decoding them.
#[inline(always)]
pub fn token_is<F: ImageFamily>(token: &Token) -> bool {
    let kind = u64::from(u32::from_le_bytes(MAGIC)) | (u64::from(F::FAMILY as u16) << 48);
    token.words[0] & TOKEN_KIND_MASK == kind
}

/// What `init` writes in the common header of a fresh image.
#[derive(Copy, Clone, Debug)]
pub struct Fresh {
    /// Family id.
    pub family: FamilyId,
    /// Hash function.
    pub hash: HashKind,
    /// Header length (common + family header).
    pub header_len: usize,
    /// Family flags.
    pub flags: u32,
    /// Hash seed.
    pub seed: u64,
    /// Exact image length.
    pub image_len: u64,
}

/// The shared first half of every family's `init`: checks the buffer
/// (length first, then alignment), zeroes the image and writes the common
/// header. Returns the image bytes for the family header. `buf` is not
/// written on error.
pub fn start_image(buf: &mut [u8], fresh: Fresh) -> Result<&mut [u8]> {
    let len = to_usize(fresh.image_len)?;
    if buf.len() < len {
        return Err(Error::BufferTooSmall);
    }
    if !is_aligned(buf) {
        return Err(Error::Misaligned);
    }
    let image = buf.get_mut(..len).ok_or(Error::BufferTooSmall)?;
    image.fill(0);
    write_common(image, fresh.family, fresh.hash, fresh.header_len, fresh.flags, fresh.seed, fresh.image_len);
    Ok(image)
}

/// How many bytes the live image needs that importing `src` (an exported
/// image of family `F`) writes: the destination length to allocate before
/// the family's `import`. Checks the common and family headers and the
/// exact length, not the checksum or the body (`import` does), except to
/// tell a damaged hash id from an unsupported one.
///
/// Errors: as [`inspect`]; [`Error::WrongFamily`]; [`Error::LengthMismatch`]
/// (bytes missing or extra); the family header's errors;
/// [`Error::UnsupportedHash`] only when the checksum holds, else
/// [`Error::ChecksumMismatch`].
pub fn import_len<F: ImageFamily>(src: &[u8]) -> Result<usize> {
    let common = read_common_in(src, usize::MAX).map_err(|e| unsupported_or_damaged(src, e))?;
    if common.family != F::FAMILY {
        return Err(Error::WrongFamily);
    }
    if src.len() != common.image_len {
        return Err(Error::LengthMismatch);
    }
    let layout = F::validate(&common, src).map_err(|e| unsupported_or_damaged(src, e))?;
    Ok(F::live_len(&common, &layout))
}

/// An exported image naming a hash this build does not know, or one its
/// family does not use ([`Error::UnsupportedHash`]), is unsupported only
/// when its checksum holds: bytes whose checksum fails are damaged (a
/// flipped bit in the hash id is corruption, not a newer writer), so that
/// error becomes [`Error::ChecksumMismatch`]. Every other error is kept.
/// The checksum's definition belongs to the format's major version, which
/// [`read_common_in`] has already accepted when it reports a hash.
#[cold]
#[inline(never)]
fn unsupported_or_damaged(bytes: &[u8], error: Error) -> Error {
    let intact = get_u64(bytes, OFF_IMAGE_LEN) == Some(bytes.len() as u64)
        && get_u64(bytes, OFF_CHECKSUM) == Some(checksum(bytes));
    if error == Error::UnsupportedHash && !intact {
        Error::ChecksumMismatch
    } else {
        error
    }
}

/// Checks untrusted bytes that should hold exactly one exported image of
/// family `F`: headers, exact length, checksum, zero padding after the body
/// and the family's body rules ([`ImageFamily::check_body`]). Alignment is
/// not required. A hash id this build or family does not use is
/// [`Error::UnsupportedHash`] when the checksum holds and
/// [`Error::ChecksumMismatch`] when it fails.
///
/// Errors: the common header's ([`Error::BufferTooSmall`] for fewer bytes
/// than a header, [`Error::BadMagic`], [`Error::UnsupportedVersion`],
/// [`Error::CorruptHeader`], [`Error::UnsupportedHash`]);
/// [`Error::WrongFamily`]; [`Error::LengthMismatch`] when `bytes` is shorter
/// or longer than the image its header states (trailing bytes included);
/// the family header's errors; [`Error::ChecksumMismatch`];
/// [`Error::CorruptBody`] for non-zero padding or a body its family rejects.
pub fn verify<F: ImageFamily>(bytes: &[u8]) -> Result<(CommonHeader, F::Layout)> {
    // Received bytes are checked against the length their header states
    // first: a truncated image is a length mismatch, not a short buffer.
    let common = read_common_in(bytes, usize::MAX).map_err(|e| unsupported_or_damaged(bytes, e))?;
    if common.family == F::FAMILY && bytes.len() != common.image_len {
        return Err(Error::LengthMismatch);
    }
    let (common, layout) = open_unaligned::<F>(bytes).map_err(|e| unsupported_or_damaged(bytes, e))?;
    if bytes.len() != common.image_len {
        return Err(Error::LengthMismatch);
    }
    if checksum(bytes) != common.checksum {
        return Err(Error::ChecksumMismatch);
    }
    if !zeroed(bytes, body_end::<F>(&common, &layout)?..common.image_len) {
        return Err(Error::CorruptBody);
    }
    check_body::<F>(&common, &layout, bytes)?;
    Ok((common, layout))
}

/// The family's body rules, kept out of line so that their locals and the
/// checksum's never share one stack frame (every exported function stays
/// within 1 KiB of stack).
#[inline(never)]
fn check_body<F: ImageFamily>(common: &CommonHeader, layout: &F::Layout, bytes: &[u8]) -> Result<()> {
    F::check_body(common, layout, bytes)
}

/// Checked import: verifies `src` as in [`verify`] and copies it into `dst`,
/// which must be 8-byte aligned and at least as long as the image. `dst` is
/// written only on success. Returns the image length.
///
/// Errors: as [`verify`]; then [`Error::BufferTooSmall`] when `dst` is
/// shorter than the image ([`import_len`] sizes it) and [`Error::Misaligned`]
/// when it does not start on an 8-byte boundary.
pub fn import<F: ImageFamily>(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    let (common, _) = verify::<F>(src)?;
    // Length first, then alignment (as `start_image`): an empty or NULL
    // destination is too small, whatever address stands for it.
    let out = dst.get_mut(..common.image_len).ok_or(Error::BufferTooSmall)?;
    if !is_aligned(out) {
        return Err(Error::Misaligned);
    }
    copy_bytes(out, src);
    Ok(common.image_len)
}

/// The number of bytes [`export`] writes for the live image at the start of
/// `src` (validated as family `F`): its image length.
///
/// Errors: as [`open`] (the family's `wrap`): [`Error::BufferTooSmall`],
/// [`Error::Misaligned`], the header errors, [`Error::WrongFamily`].
pub fn exported_len<F: ImageFamily>(src: &[u8]) -> Result<usize> {
    Ok(open::<F>(src)?.0.image_len)
}

/// Export: copies the live image at the start of `src` (validated as family
/// `F`) into `dst` and writes its checksum there. `src` is not modified; `dst`
/// needs no alignment and is written only on success. Returns the bytes written.
///
/// Errors: as [`exported_len`] for `src`; [`Error::BufferTooSmall`] when
/// `dst` is shorter than [`exported_len`] (nothing written: size `dst` with
/// it and call again).
pub fn export<F: ImageFamily>(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    let (common, _) = open::<F>(src)?;
    let image = src.get(..common.image_len).ok_or(Error::BufferTooSmall)?;
    let out = dst.get_mut(..common.image_len).ok_or(Error::BufferTooSmall)?;
    copy_bytes(out, image);
    let sum = checksum(out);
    put_u64(out, OFF_CHECKSUM, sum);
    Ok(common.image_len)
}

/// Decodes the common header of any image (for tools that inspect unknown
/// bytes). Does not validate the family header or checksum.
pub fn inspect(bytes: &[u8]) -> Result<CommonHeader> {
    read_common(bytes)
}

/// Decodes the common header at the start of `bytes` without the rest of
/// the image: the first step of a stream reader, which reads
/// [`COMMON_HEADER_LEN`] bytes, learns the image's length here, then reads
/// exactly that many bytes in all and imports them. Only the first
/// [`COMMON_HEADER_LEN`] bytes are read; a longer `bytes` is not checked
/// against the recorded length (that is [`inspect`]).
///
/// Returns the header and the image length it records in bytes, as stored:
/// on a target whose `usize` is narrower than 64 bits a recorded length
/// past the address space is returned as is, while the header's
/// `image_len` reads `usize::MAX` (no buffer has that many bytes; check the
/// `u64` before allocating). Checks what [`inspect`] checks of the common
/// header (magic, major version, known family and hash ids, reserved field,
/// header length at least [`COMMON_HEADER_LEN`] and a multiple of 8, image
/// length a multiple of 8 and at least the header length), not the family
/// header, the body or the checksum, which the import checks.
///
/// Errors: [`Error::BufferTooSmall`] (fewer than [`COMMON_HEADER_LEN`]
/// bytes), [`Error::BadMagic`], [`Error::UnsupportedVersion`] (a newer
/// major), [`Error::UnsupportedHash`], [`Error::CorruptHeader`].
pub fn inspect_header(bytes: &[u8]) -> Result<(CommonHeader, u64)> {
    let header = bytes.get(..COMMON_HEADER_LEN).ok_or(Error::BufferTooSmall)?;
    let common = read_common_in(header, usize::MAX)?;
    let recorded = get_u64(header, OFF_IMAGE_LEN).ok_or(Error::BufferTooSmall)?;
    Ok((common, recorded))
}

/// `Debug` for a family's view: its name, the listed fields (parameters,
/// seed) and the image's length in bytes, never the image's bytes, so that
/// `{:?}` of a view over a megabyte filter prints one line.
///
/// - `debug_view!(Bloom [params, seed])`: a view holding its validated
///   `header`; the length is the header's image-length field.
/// - `debug_view!(SharedBloom [params, seed] shared)`: a shared view over
///   `words` (`AtomicWords`); the length is the header word's field.
/// - `debug_view!(MinHash [k, seed] |v| image_len(v.k).unwrap_or(0))`: the
///   closure gives the image length of view `v`.
macro_rules! debug_view {
    ($ty:ident [$($field:ident),*]) => {
        $crate::image::debug_view!($ty [$($field),*] |v| $crate::image::header_image_len(v.header));
    };
    ($ty:ident [$($field:ident),*] shared) => {
        $crate::image::debug_view!(
            $ty [$($field),*] |v| v.words.load($crate::image::OFF_IMAGE_LEN / 8)
        );
    };
    ($ty:ident [$($field:ident),*] |$v:ident| $image_len:expr) => {
        impl core::fmt::Debug for $ty<'_> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let image_len = |$v: &Self| -> u64 { $image_len };
                f.debug_struct(stringify!($ty))
                    $(.field(stringify!($field), &self.$field))*
                    .field("image_len", &image_len(self))
                    .finish()
            }
        }
    };
}
pub(crate) use debug_view;

/// The image length a validated view's header records (its common header's
/// field; 0 if `header` is shorter, which no view's is).
pub(crate) fn header_image_len(header: &[u8]) -> u64 {
    get_u64(header, OFF_IMAGE_LEN).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[repr(C, align(8))]
    struct Aligned([u8; 64]);

    fn sample() -> Aligned {
        let mut a = Aligned([0; 64]);
        write_common(&mut a.0, FamilyId::Bloom, HashKind::Xxh3, 48, 0, 9, 64);
        a
    }

    #[test]
    fn image_buf_is_aligned_zeroed_and_usable_as_bytes() {
        let mut bufs = [ImageBuf::<130>::new(), ImageBuf::default(), ImageBuf::new()];
        for b in &mut bufs {
            assert!((b.as_ptr() as usize).is_multiple_of(IMAGE_ALIGN));
            assert!(is_aligned(b));
            assert_eq!(b.len(), 130);
            assert!(b.iter().all(|&x| x == 0));
            b[129] = 7;
            assert_eq!(b.as_ref()[129], 7);
        }
        assert_eq!(core::mem::size_of::<ImageBuf<130>>(), 192);
        extern crate std;
        assert_eq!(std::format!("{:?}", bufs[0]), "ImageBuf { len: 130, .. }");
    }

    /// `{:?}` of every family's views is one short line with the image's
    /// length, never the image's bytes (a 1 MB filter printed 5 MB).
    #[test]
    fn views_debug_print_parameters_and_length_not_bytes() {
        extern crate std;
        use crate::*;
        use std::{format, string::String, vec};
        let mut buf = vec![0u8; 1 << 20];
        let start = buf.as_ptr().align_offset(IMAGE_ALIGN);
        let buf = &mut buf[start..][..(1 << 20) - IMAGE_ALIGN];
        let check = |debug: String, name: &str, image_len: u64| {
            assert!(debug.starts_with(&format!("{name} {{")), "{debug}");
            assert!(debug.ends_with(&format!("image_len: {image_len} }}")), "{debug}");
            assert!(debug.len() < 400, "{} chars: {debug}", debug.len());
        };
        let bp = bloom::BloomParams::for_items(20_000, 0.01).unwrap();
        let len = bloom::image_len(&bp).unwrap();
        let mut f = bloom::init(buf, &bp, 1).unwrap();
        f.add(b"k");
        check(format!("{f:?}"), "BloomMut", len);
        check(format!("{:?}", f.as_ref()), "Bloom", len);
        let cp = bloom::BloomParams::for_items(5_000, 0.01).unwrap();
        let f = counting::init(buf, &cp, 1).unwrap();
        check(format!("{f:?}"), "CountingMut", counting::image_len(&cp).unwrap());
        check(format!("{:?}", f.as_ref()), "Counting", counting::image_len(&cp).unwrap());
        let sp = sbbf::SbbfParams::for_items(20_000, 0.01).unwrap();
        let f = sbbf::init(buf, &sp, 1).unwrap();
        check(format!("{f:?}"), "SbbfMut", sbbf::image_len(&sp).unwrap());
        check(format!("{:?}", f.as_ref()), "Sbbf", sbbf::image_len(&sp).unwrap());
        let cp = cuckoo::CuckooParams::for_items(20_000, 0.01).unwrap();
        let f = cuckoo::init(buf, &cp, 1).unwrap();
        check(format!("{f:?}"), "CuckooMut", cuckoo::image_len(&cp).unwrap());
        check(format!("{:?}", f.as_ref()), "Cuckoo", cuckoo::image_len(&cp).unwrap());
        let mp = countmin::CountMinParams::with_size(4096, 4).unwrap();
        let f = countmin::init(buf, &mp, 1).unwrap();
        check(format!("{f:?}"), "CountMinMut", mp.image_len().unwrap());
        check(format!("{:?}", f.as_ref()), "CountMin", mp.image_len().unwrap());
        let tp = topk::TopKParams { capacity: 1000, max_key_len: 64 };
        let f = topk::init(buf, &tp, 1).unwrap();
        check(format!("{f:?}"), "TopKMut", tp.image_len().unwrap());
        check(format!("{:?}", f.as_ref()), "TopK", tp.image_len().unwrap());
        let f = hll::init(buf, 14, 1).unwrap();
        check(format!("{f:?}"), "HllMut", hll::image_len(14).unwrap());
        check(format!("{:?}", f.as_ref()), "Hll", hll::image_len(14).unwrap());
        let f = ull::init(buf, 14, 1).unwrap();
        check(format!("{f:?}"), "UllMut", ull::image_len(14).unwrap());
        check(format!("{:?}", f.as_ref()), "Ull", ull::image_len(14).unwrap());
        let f = ell::init(buf, ell::EllConfig::T2D20, 12, 1).unwrap();
        check(format!("{f:?}"), "EllMut", ell::image_len(ell::EllConfig::T2D20, 12).unwrap());
        check(format!("{:?}", f.as_ref()), "Ell", ell::image_len(ell::EllConfig::T2D20, 12).unwrap());
        let f = minhash::init(buf, 1024, 1).unwrap();
        check(format!("{f:?}"), "MinHashMut", minhash::image_len(1024).unwrap());
        check(format!("{:?}", f.as_ref()), "MinHash", minhash::image_len(1024).unwrap());
        for bits in [8, 16] {
            let fp = fuse::FuseParams::new(10_000, bits).unwrap();
            let mut scratch = vec![0u8; fuse::scratch_len(&fp).unwrap() as usize];
            let keys: std::vec::Vec<u64> = (0..10_000).collect();
            let f = fuse::build_u64s(buf, &fp, 1, &keys, &mut scratch).unwrap();
            check(format!("{f:?}"), "Fuse", fuse::image_len(&fp).unwrap());
        }
        let words = crate::test_util::to_atomic(&[0u8; 4096]);
        let aw = shared::AtomicWords::new(&words);
        check(format!("{aw:?}"), "AtomicWords", 4096);
        for name in ["SharedBloom", "SharedSbbf", "SharedHll", "SharedUll"] {
            let len = match name {
                "SharedBloom" => bloom::init(buf, &bp, 1).and(bloom::image_len(&bp)),
                "SharedSbbf" => sbbf::init(buf, &sp, 1).and(sbbf::image_len(&sp)),
                "SharedHll" => hll::init(buf, 12, 1).map(|mut f| f.densify_now()).and(hll::image_len(12)),
                _ => ull::init(buf, 12, 1).and(ull::image_len(12)),
            }
            .unwrap();
            let words = crate::test_util::to_atomic(&buf[..len as usize]);
            let aw = shared::AtomicWords::new(&words);
            let debug = match name {
                "SharedBloom" => format!("{:?}", bloom::wrap_shared(aw).unwrap()),
                "SharedSbbf" => format!("{:?}", sbbf::wrap_shared(aw).unwrap()),
                "SharedHll" => format!("{:?}", hll::wrap_shared(aw).unwrap()),
                _ => format!("{:?}", ull::wrap_shared(aw).unwrap()),
            };
            check(debug, name, len);
        }
    }

    #[test]
    fn common_header_round_trips() {
        let a = sample();
        let h = read_common(&a.0).unwrap();
        assert_eq!(h.family, FamilyId::Bloom);
        assert_eq!(h.hash, HashKind::Xxh3);
        assert_eq!(h.seed, 9);
        assert_eq!(h.image_len, 64);
        assert_eq!(h.header_len, 48);
        assert_eq!(&a.0[0..4], b"SKCH");
    }

    #[test]
    fn header_errors_are_specific() {
        let a = sample();
        assert_eq!(read_common(&a.0[..47]), Err(Error::BufferTooSmall));
        assert_eq!(read_common(&a.0[..56]), Err(Error::BufferTooSmall));
        let mut b = sample();
        b.0[0] = b'X';
        assert_eq!(read_common(&b.0), Err(Error::BadMagic));
        let mut b = sample();
        b.0[OFF_MAJOR] = 2;
        assert_eq!(read_common(&b.0), Err(Error::UnsupportedVersion));
        let mut b = sample();
        b.0[OFF_HASH] = 77;
        assert_eq!(read_common(&b.0), Err(Error::UnsupportedHash));
        let mut b = sample();
        b.0[OFF_RESERVED + 3] = 1;
        assert_eq!(read_common(&b.0), Err(Error::CorruptHeader));
        let mut b = sample();
        b.0[OFF_IMAGE_LEN] = 63;
        assert_eq!(read_common(&b.0), Err(Error::CorruptHeader));
    }

    /// A stream reader holds only the 48 header bytes: `inspect` refuses
    /// them (the image is longer) while `inspect_header` reads the length
    /// they record, checking the same header fields with the same errors.
    #[test]
    fn inspect_header_reads_the_length_from_the_header_alone() {
        let mut a = sample();
        put_u64(&mut a.0, OFF_IMAGE_LEN, 1 << 40);
        let head = &a.0[..COMMON_HEADER_LEN];
        assert_eq!(inspect(head), Err(Error::BufferTooSmall));
        let (h, recorded) = inspect_header(head).unwrap();
        assert_eq!(recorded, 1 << 40);
        assert_eq!((h.family, h.hash, h.seed, h.header_len), (FamilyId::Bloom, HashKind::Xxh3, 9, 48));
        assert_eq!(h.image_len, usize::try_from(1u64 << 40).unwrap_or(usize::MAX));
        // The bytes after the header are not read: the whole sample answers
        // as its header does.
        assert_eq!(inspect_header(&a.0), inspect_header(head));
        assert_eq!(inspect_header(&a.0[..47]), Err(Error::BufferTooSmall));
        let refused = |at: usize, value: u8| {
            let mut b = sample();
            b.0[at] = value;
            let by_header = inspect_header(&b.0[..COMMON_HEADER_LEN]).map(|_| ());
            assert_eq!(by_header, read_common(&b.0).map(|_| ()), "byte {at} = {value}");
            by_header
        };
        assert_eq!(refused(0, b'X'), Err(Error::BadMagic));
        assert_eq!(refused(OFF_MAJOR, 2), Err(Error::UnsupportedVersion));
        assert_eq!(refused(OFF_MAJOR, 0), Err(Error::CorruptHeader));
        assert_eq!(refused(OFF_FAMILY, 200), Err(Error::CorruptHeader));
        assert_eq!(refused(OFF_HASH, 77), Err(Error::UnsupportedHash));
        assert_eq!(refused(OFF_RESERVED + 3, 1), Err(Error::CorruptHeader));
        assert_eq!(refused(OFF_IMAGE_LEN, 63), Err(Error::CorruptHeader));
        assert_eq!(refused(OFF_IMAGE_LEN, 40), Err(Error::CorruptHeader)); // shorter than its header
        assert_eq!(refused(OFF_HEADER_LEN, 40), Err(Error::CorruptHeader));
        assert_eq!(refused(OFF_HEADER_LEN, 52), Err(Error::CorruptHeader));
    }

    #[test]
    fn checksum_ignores_only_its_own_field() {
        let mut a = sample();
        let c = checksum(&a.0);
        put_u64(&mut a.0, OFF_CHECKSUM, 12345);
        assert_eq!(checksum(&a.0), c);
        a.0[63] ^= 1;
        assert_ne!(checksum(&a.0), c);
        a.0[63] ^= 1;
        a.0[0] ^= 1;
        assert_ne!(checksum(&a.0), c);
    }

    /// Received bytes whose header states a length past a 32-bit address
    /// space (8 GiB) are a length mismatch for `verify`, `import_len` and
    /// `import`, as the documentation says and as on 64-bit targets. On
    /// i686 (`make test-32`) they were `BufferTooSmall`, the error of a
    /// short destination, because the length was converted to `usize`
    /// before it was compared with the bytes.
    #[test]
    fn a_stated_length_past_the_address_space_is_a_length_mismatch() {
        use crate::bloom::{self, BloomImage};
        let params = bloom::BloomParams::for_items(100, 0.01).unwrap();
        let mut live = ImageBuf::<512>::new();
        bloom::init(&mut live, &params, 1).unwrap().add(b"k");
        let mut wire = [0u8; 512];
        let n = bloom::export(&live, &mut wire).unwrap();
        let wire = &mut wire[..n];
        put_u64(wire, OFF_IMAGE_LEN, 8 << 30);
        let sum = checksum(wire);
        put_u64(wire, OFF_CHECKSUM, sum);
        assert_eq!(verify::<BloomImage>(wire).err(), Some(Error::LengthMismatch));
        assert_eq!(import_len::<BloomImage>(wire), Err(Error::LengthMismatch));
        let mut dst = ImageBuf::<512>::new();
        assert_eq!(import::<BloomImage>(wire, &mut dst), Err(Error::LengthMismatch));
        assert!(dst.iter().all(|&b| b == 0));
        // A live image claiming that length is still too long for its buffer.
        put_u64(&mut live, OFF_IMAGE_LEN, 8 << 30);
        assert_eq!(read_common(&live), Err(Error::BufferTooSmall));
    }
}
