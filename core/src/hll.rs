//! HyperLogLog: distinct counting in a fixed buffer, with an exact small mode.
//!
//! Precision `p` in 4..=18 gives `m = 2^p` registers of 6 bits and a
//! relative standard error of about `1.04 / sqrt(m)` (p = 14: 0.81%).
//!
//! # Example
//!
//! ```
//! use sketches_core::hll;
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! let p = 12; // 4,096 registers: about 1.6% standard error
//! assert!(hll::image_len(p)? <= 4096);
//!
//! let (mut buf_a, mut buf_b) = (ImageBuf::<4096>::new(), ImageBuf::<4096>::new());
//! let mut a = hll::init(&mut buf_a, p, 0)?;
//! let mut b = hll::init(&mut buf_b, p, 0)?;
//! a.add(b"only a few");
//! assert_eq!(a.as_ref().estimate(), 1.0); // exact while small
//! for i in 0..50_000u64 {
//!     a.add_u64(i);
//!     b.add_u64(i + 50_000); // another stream, same seed
//! }
//! assert_eq!(a.as_ref().mode(), hll::HllMode::Dense);
//! a.merge(&b.as_ref())?; // the union
//! let estimate = a.as_ref().estimate();
//! assert!((estimate - 100_001.0).abs() < 6_500.0, "{estimate}"); // 4 standard errors
//!
//! let mut wire = [0u8; 4096];
//! let n = hll::export(&buf_a, &mut wire)?;
//! let mut copy = ImageBuf::<4096>::new();
//! hll::import(&wire[..n], &mut copy)?;
//! assert_eq!(hll::wrap(&copy)?.estimate(), estimate);
//! # Ok(())
//! # }
//! ```
//!
//! **Hashing.** The key's XXH3-64 hash (image seed) is split as in
//! [`crate::cardinality`]: register index = top `p` bits, value `k` = 1 + the
//! leading zeros of the other `q = 64 - p` bits (at most `q + 1`, which is
//! also the largest legal register value).
//!
//! **Small mode.** A fresh sketch keeps the distinct 64-bit hashes it has
//! seen, sorted, in the register area, and its estimate is their count: exact
//! (up to 64-bit hash collisions) while at most [`small_capacity`] distinct
//! hashes have arrived (p = 10: 128, p = 12: 384, p = 14..18: 1024). The
//! first distinct hash beyond that converts the image to dense registers in
//! place (with a few hundred bytes of stack, see [`HllMut::densify_now`]),
//! giving exactly the registers that adding
//! the same hashes to a dense sketch gives. An exported small-mode image
//! holds only the hashes in use (flag [`FLAG_COMPACT`]) and imports back to a
//! full live image.
//!
//! **Dense registers** use the packing of Redis's dense encoding: register
//! `i` occupies bits `6i .. 6i+6` of the register area, least significant
//! bits first, so register `i` starts at bit `6i mod 8` of byte `6i / 8`.
//! (A Redis `p = 14` dense string's 12,288 register bytes are that layout;
//! Redis derives register values from its own hash, so only the packing
//! carries over, not the values of a given key.)
//!
//! **Estimators.** While a dense sketch has only seen its own stream (adds,
//! and merges of small-mode sketches, which replay their hashes), it keeps
//! the martingale ("historic inverse probability", Ting 2014; Cohen 2015)
//! estimate: each register change adds `1 / P`, `P` being the probability
//! that a new distinct hash changes some register (kept exactly from the
//! header's histogram and register sum). It is unbiased with a relative
//! standard error of about `0.83 / sqrt(m)`, and reading it is one load.
//! After a merge of registers from another dense sketch (or a conversion
//! from UltraLogLog) the history is gone: the flag is cleared and the
//! estimate comes from the registers, with Ertl's improved estimator ("New cardinality estimation
//! algorithms for HyperLogLog sketches", 2017, algorithm 6) from the register
//! histogram and fixed-point register sum, which the header keeps up to
//! date, so an estimate is O(1) while no register is 0 or at its maximum
//! (O(q) series otherwise) whatever `m` is. The constant is Flajolet's finite-m `alpha_m =
//! alpha_inf / (1 + 1.079/m)` instead of `alpha_inf`. No empirical bias
//! tables. An image whose registers are all at their maximum (unreachable
//! with fewer than ~2^64 distinct hashes) estimates +infinity.
//!
//! Image layout after the common header (little-endian):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 48 | 1 | precision `p` (4..=18) |
//! | 49 | 1 | mode: 0 small, 1 dense |
//! | 50 | 2 | reserved, 0 |
//! | 52 | 4 | small mode: number of hashes stored; dense: 0 |
//! | 56 | 8 | reserved, 0 |
//! | 64 | 256 | dense: 64 `u32` counters, entry `v` = registers whose value is `v` (they sum to `m`); small: all 0 |
//! | 320 | 16 | dense: `u128` fixed-point register sum `sum of 2^(64-v)` over registers with `1 <= v <= q`; small: 0 |
//! | 336 | 8 | martingale (HIP) estimate, f64; 0 in small mode |
//! | 344 | 1 | 1 while the martingale estimate is valid (the sketch saw only its own stream), else 0 |
//! | 345 | 39 | reserved, 0 |
//! | 384 | [`body_len`] | dense: the `6m/8` register bytes, then zero padding (at least 8 bytes); small: the sorted distinct `u64` hashes, then zeros |
//!
//! Common-header flag bit 0 ([`FLAG_COMPACT`]) marks an exported small-mode
//! image cut after its last hash; only [`import`] and [`verify`] take those.
//!
//! Merging: [`HllMut::merge`] takes a sketch of the same seed whose
//! precision is at least the destination's (higher precisions fold down, so
//! mixed-precision fleets merge at the lowest one; [`downsize`] writes a
//! lower-precision copy); a small-mode source merges into any precision.
//!
//! Thread-safety: [`Hll`] is a shared view (any number of readers); [`HllMut`]
//! is exclusive. The C ABI inherits the same rule.

use crate::cardinality::{self, check_precision, folded_value, split_hash};
use crate::error::{Error, Result};
use crate::hash::{self, HashKind, KeyHasher};
use crate::image::{self, get_f64, get_u32, get_u64, put_f64, put_u32, put_u64};
use crate::image::{CommonHeader, FamilyId, Fresh, ImageFamily, Token};
#[cfg(target_has_atomic = "64")]
use crate::shared::AtomicWords;
use crate::simd;
#[cfg(target_has_atomic = "64")]
use core::marker::PhantomData;
#[cfg(target_has_atomic = "64")]
use core::sync::atomic::Ordering;

/// Byte length of the HyperLogLog header (common + family header).
pub const HEADER_LEN: usize = 384;
/// Common-header flag of an exported, compact small-mode image.
pub const FLAG_COMPACT: u32 = 1;
/// Most hashes small mode keeps (an insert into its sorted list moves at most this many).
pub const SMALL_MAX: usize = 1024;
/// Smallest register area in bytes: lets p <= 10 keep 128 exact hashes.
pub const MIN_BODY_LEN: usize = 1024;
/// Number of histogram entries (register values are 6 bits).
pub const HISTOGRAM_LEN: usize = 64;

const OFF_PRECISION: usize = 48;
const OFF_MODE: usize = 49;
const OFF_SMALL_COUNT: usize = 52;
const OFF_HISTOGRAM: usize = 64;
const OFF_REGISTER_SUM: usize = 320;
const OFF_MARTINGALE: usize = 336;
const OFF_MARTINGALE_VALID: usize = 344;
const ALPHA_INF: f64 = 0.721_347_520_444_481_7; // 1 / (2 ln 2)

/// Whether a sketch still keeps exact hashes or has registers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum HllMode {
    /// Sorted distinct hashes; the estimate is their count.
    Small = 0,
    /// 6-bit registers.
    Dense = 1,
}

// The sizing helpers below take any `u8` (sketches use 4..=18): beyond the
// address space they saturate at `usize::MAX` instead of overflowing.

/// Number of registers `m = 2^p` (`usize::MAX` when `2^p` does not fit).
pub const fn registers(p: u8) -> usize {
    match 1usize.checked_shl(p as u32) {
        Some(m) => m,
        None => usize::MAX,
    }
}

/// Bytes of packed 6-bit registers: `6m/8` (saturating).
pub const fn register_bytes(p: u8) -> usize {
    match registers(p).checked_mul(6) {
        Some(bits) => bits / 8,
        None => usize::MAX,
    }
}

/// Bytes of the body (register area): `max(6m/8 + 8, MIN_BODY_LEN)` rounded
/// up to a multiple of 64 (the padding lets every register be read with one
/// two-byte load, and makes the live image length a multiple of 64).
pub const fn body_len(p: u8) -> usize {
    let bytes = register_bytes(p).saturating_add(8);
    let bytes = if bytes < MIN_BODY_LEN { MIN_BODY_LEN } else { bytes };
    bytes.div_ceil(64).saturating_mul(64)
}

/// Distinct hashes small mode holds before converting to registers.
pub const fn small_capacity(p: u8) -> usize {
    let slots = body_len(p) / 8;
    if slots < SMALL_MAX {
        slots
    } else {
        SMALL_MAX
    }
}

/// Largest legal register value, `q + 1 = 65 - p` (0 above p = 65).
pub const fn max_register(p: u8) -> u8 {
    65u8.saturating_sub(p)
}

/// Exact live image size in bytes for precision `p`.
/// Errors: [`Error::InvalidParameter`] unless `4 <= p <= 18`.
pub fn image_len(p: u8) -> Result<u64> {
    check_precision(p)?;
    Ok((HEADER_LEN + body_len(p)) as u64)
}

/// Statistics of a HyperLogLog sketch.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct HllStats {
    /// Precision `p`.
    pub precision: u8,
    /// Current mode.
    pub mode: HllMode,
    /// Hash seed.
    pub seed: u64,
    /// Hashes stored (small mode), 0 when dense.
    pub small_count: u32,
    /// Hashes small mode can hold at this precision.
    pub small_capacity: u32,
    /// Registers above zero (small mode: those the stored hashes would set).
    pub registers_set: u32,
    /// Distinct-count estimate.
    pub estimate: f64,
    /// True when `estimate` is the martingale estimate (dense, own stream only).
    pub martingale: bool,
    /// Live image length in bytes.
    pub image_bytes: u64,
}

/// Marker type tying the HyperLogLog layout to the image format.
pub struct HllImage;

/// Validated HyperLogLog layout.
#[derive(Copy, Clone, Debug)]
pub struct HllLayout {
    p: u8,
    mode: HllMode,
    small_count: usize,
    compact: bool,
}

impl ImageFamily for HllImage {
    const FAMILY: FamilyId = FamilyId::HyperLogLog;
    type Layout = HllLayout;

    /// A compact (small-mode) export imports into the full image of its
    /// precision.
    #[inline]
    fn live_len(common: &CommonHeader, layout: &HllLayout) -> usize {
        if layout.compact {
            HEADER_LEN + body_len(layout.p)
        } else {
            common.image_len
        }
    }

    #[inline]
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<HllLayout> {
        if common.hash != HashKind::Xxh3 {
            return Err(Error::UnsupportedHash);
        }
        if common.header_len != HEADER_LEN || common.flags & !FLAG_COMPACT != 0 {
            return Err(Error::CorruptHeader);
        }
        let byte = |off: usize| image.get(off).copied().ok_or(Error::BufferTooSmall);
        let p = byte(OFF_PRECISION)?;
        check_precision(p).map_err(|_| Error::CorruptHeader)?;
        let mode = match byte(OFF_MODE)? {
            0 => HllMode::Small,
            1 => HllMode::Dense,
            _ => return Err(Error::CorruptHeader),
        };
        let small_count = get_u32(image, OFF_SMALL_COUNT).ok_or(Error::BufferTooSmall)? as usize;
        if !image::zeroed(image, 50..52)
            || !image::zeroed(image, 56..64)
            || !image::zeroed(image, 345..HEADER_LEN)
            || image.get(OFF_MARTINGALE_VALID).is_some_and(|v| *v > 1)
        {
            return Err(Error::CorruptHeader);
        }
        let compact = common.flags & FLAG_COMPACT != 0;
        let histogram_total = (0..HISTOGRAM_LEN)
            .map(|v| u64::from(get_u32(image, OFF_HISTOGRAM + 4 * v).unwrap_or(u32::MAX)))
            .sum::<u64>();
        let expected_len = match (mode, compact) {
            // Saturating: the count is any u32 until checked below, and 8
            // times it need not fit a 32-bit usize.
            (HllMode::Small, true) => HEADER_LEN.saturating_add(small_count.saturating_mul(8)),
            (HllMode::Small, false) => HEADER_LEN + body_len(p),
            (HllMode::Dense, true) => return Err(Error::CorruptHeader),
            (HllMode::Dense, false) => HEADER_LEN + body_len(p),
        };
        let consistent = match mode {
            HllMode::Small => {
                small_count <= small_capacity(p)
                    && histogram_total == 0
                    && image::zeroed(image, OFF_REGISTER_SUM..OFF_MARTINGALE + 8)
            }
            HllMode::Dense => small_count == 0 && histogram_total == registers(p) as u64,
        };
        if !consistent || image.len() != expected_len {
            return Err(Error::CorruptHeader);
        }
        Ok(HllLayout { p, mode, small_count, compact })
    }

    fn check_body(_common: &CommonHeader, layout: &HllLayout, image: &[u8]) -> Result<()> {
        check_hll_body(layout, image)
    }

    /// The precision byte (the mode and small count beside it change).
    const IDENTITY: &'static [(usize, u64)] = &[(OFF_PRECISION, 0xff)];
}

/// Writes an empty sketch (small mode) of precision `p` into `buf` (8-byte
/// aligned, at least [`image_len`] bytes).
///
/// Errors: [`Error::InvalidParameter`] (p out of range),
/// [`Error::BufferTooSmall`], [`Error::Misaligned`]; `buf` is unchanged then.
pub fn init(buf: &mut [u8], p: u8, seed: u64) -> Result<HllMut<'_>> {
    let image_len = image_len(p)?;
    let family = FamilyId::HyperLogLog;
    let fresh = Fresh { family, hash: HashKind::Xxh3, header_len: HEADER_LEN, flags: 0, seed, image_len };
    let image = image::start_image(buf, fresh)?;
    if let Some(v) = image.get_mut(OFF_PRECISION) {
        *v = p;
    }
    if let Some(v) = image.get_mut(OFF_MARTINGALE_VALID) {
        *v = 1;
    }
    wrap_mut(image)
}

fn live_layout(buf: &[u8]) -> Result<(CommonHeader, HllLayout)> {
    let (common, layout) = image::open::<HllImage>(buf)?;
    if layout.compact {
        return Err(Error::CompactImage);
    }
    Ok((common, layout))
}

/// Validates a live image and returns a read-only view (zero-copy, O(1)).
/// Errors: header errors as for every family; [`Error::CompactImage`] for an
/// exported small-mode image (import it first).
#[inline]
pub fn wrap(buf: &[u8]) -> Result<Hll<'_>> {
    let (common, layout) = live_layout(buf)?;
    let image = buf.get(..common.image_len).ok_or(Error::BufferTooSmall)?;
    let (header, body) = image.split_at_checked(HEADER_LEN).ok_or(Error::BufferTooSmall)?;
    Ok(Hll { header, body, p: layout.p, seed: common.seed })
}

/// Validates a live image and returns a mutable view (zero-copy, O(1)).
/// Errors as for [`wrap`].
#[inline]
pub fn wrap_mut(buf: &mut [u8]) -> Result<HllMut<'_>> {
    let (common, layout) = live_layout(buf)?;
    let image = buf.get_mut(..common.image_len).ok_or(Error::BufferTooSmall)?;
    let (header, body) = image.split_at_mut_checked(HEADER_LEN).ok_or(Error::BufferTooSmall)?;
    Ok(HllMut { header, body, p: layout.p, seed: common.seed })
}

/// Validates the live image in `buf` as [`wrap`] does and returns its
/// [`Token`], which [`wrap_with`] and [`wrap_mut_with`] take to skip the
/// header checks on later calls. Errors: as [`wrap`].
pub fn token(buf: &[u8]) -> Result<Token> {
    let token = image::token::<HllImage>(buf)?;
    // The flags are in the second word: an exported small-mode image is not live.
    if (token.words[1] >> 32) as u32 & FLAG_COMPACT != 0 {
        return Err(Error::CompactImage);
    }
    Ok(token)
}

/// The precision, seed and image length from `token`'s words: with
/// `COMPARE`, only when `buf`'s identity matches the token (see [`Token`]),
/// the words then being the image's; without, from the token alone (a
/// kept view, see [`wrap_trusted`]). `None` when the identity differs, the
/// token is another family's or a word is out of range. Tokens are made of
/// live images only (the compact flag is part of the identity).
#[inline(always)]
fn trusted<const COMPARE: bool>(buf: &[u8], token: &Token) -> Option<(u8, u64, usize)> {
    // Without `COMPARE` only the token is read: it must be one of this
    // family (a view of another family's image decodes to garbage).
    let ours = if COMPARE {
        image::token_matches::<HllImage>(buf, token)
    } else {
        image::token_is::<HllImage>(token)
    };
    if !ours {
        return None;
    }
    let [_, _, seed, image_len, p, ..] = token.words;
    // Equal to validated words unless the token was filled by hand: keep
    // the precision in range (register indexes and shifts depend on it).
    let p = u8::try_from(p).ok()?;
    check_precision(p).ok()?;
    let image_len = usize::try_from(image_len).ok()?;
    (image_len <= buf.len()).then_some((p, seed, image_len))
}

/// [`wrap`], skipping the header checks when `buf`'s identity equals
/// `token`'s (see [`Token`]: a stale or zero token only costs the full
/// validation; the mode, small-mode count, histogram and martingale state
/// are then trusted as the registers are). Errors: as [`wrap`].
#[inline(always)]
pub fn wrap_with<'a>(buf: &'a [u8], token: &Token) -> Result<Hll<'a>> {
    wrap_by::<true>(buf, token)
}

/// [`wrap_mut`], skipping the header checks as [`wrap_with`] does.
#[inline(always)]
pub fn wrap_mut_with<'a>(buf: &'a mut [u8], token: &Token) -> Result<HllMut<'a>> {
    with_view_mut(buf, token, |view| view)
}

/// Runs `f` on the view [`wrap_mut_with`] gives and returns its result
/// (the C ABI's single adds with a token). Only the token path is inlined:
/// a stale token runs the full validation and `f` out of line, so the view
/// of the token path stays in registers. Merged with the other path's view
/// into one result first, it went through the stack in byte-sized pieces
/// that wider loads read back, the pattern of a store-forwarding stall
/// (`sketch_hll_add_with_token` 25.9 -> 18.8 ms per 1M calls).
/// Errors: as [`wrap_mut`].
#[inline(always)]
pub fn with_view_mut<'a, R>(buf: &'a mut [u8], token: &Token, f: impl FnOnce(HllMut<'a>) -> R) -> Result<R> {
    with_view_mut_by::<true, R>(buf, token, f)
}

/// [`wrap`] of the image a kept view describes (the C ABI's
/// `sketch_view`): the parameters come from `token` alone, made by
/// [`token`] from this image, without reading the header or comparing
/// identities. A token of another image of this family, or of this
/// buffer before a re-init with other parameters, gives wrong answers but
/// never a panic or an access outside `buf`; one of another family
/// ([`image::token_is`]) or whose words are out of range gets the full
/// validation. Errors: as [`wrap`], only after that fallback.
#[inline(always)]
pub fn wrap_trusted<'a>(buf: &'a [u8], token: &Token) -> Result<Hll<'a>> {
    wrap_by::<false>(buf, token)
}

/// [`wrap_mut`] of the image a kept view describes, as [`wrap_trusted`].
#[inline(always)]
pub fn wrap_mut_trusted<'a>(buf: &'a mut [u8], token: &Token) -> Result<HllMut<'a>> {
    with_trusted_view_mut(buf, token, |view| view)
}

/// Whether adding the hash `hash_with(seed)` (`seed`: the image's) to the
/// image a kept view describes would change nothing ([`Hll::holds_hash`]),
/// with the parameters decoded from `token` as [`wrap_trusted`] does but
/// without its fallback: false when the token's words are out of range or
/// in small mode; the caller then adds through [`with_trusted_view_mut`].
/// Reads only; a stale token reads within `buf`.
#[inline(always)]
pub fn holds_trusted(buf: &[u8], token: &Token, hash_with: impl FnOnce(u64) -> u64) -> bool {
    holds_by::<false>(buf, token, hash_with)
}

/// [`holds_trusted`] with the token of a `_with_token` call: false also
/// when `buf`'s identity differs from `token`'s (see [`wrap_with`]).
#[inline(always)]
pub fn holds_with(buf: &[u8], token: &Token, hash_with: impl FnOnce(u64) -> u64) -> bool {
    holds_by::<true>(buf, token, hash_with)
}

#[inline(always)]
fn holds_by<const COMPARE: bool>(buf: &[u8], token: &Token, hash_with: impl FnOnce(u64) -> u64) -> bool {
    let Some((p, seed, image_len)) = trusted::<COMPARE>(buf, token) else {
        return false;
    };
    let Some((header, body)) = buf.get(..image_len).and_then(|image| image.split_at_checked(HEADER_LEN))
    else {
        return false;
    };
    Hll { header, body, p, seed }.holds_hash(hash_with(seed))
}

/// [`with_view_mut`] for a kept view: the view of [`wrap_mut_trusted`].
/// Errors: as [`wrap_mut`], only after the fallback.
#[inline(always)]
pub fn with_trusted_view_mut<'a, R>(
    buf: &'a mut [u8],
    token: &Token,
    f: impl FnOnce(HllMut<'a>) -> R,
) -> Result<R> {
    with_view_mut_by::<false, R>(buf, token, f)
}

#[inline(always)]
fn wrap_by<'a, const COMPARE: bool>(buf: &'a [u8], token: &Token) -> Result<Hll<'a>> {
    let Some((p, seed, image_len)) = trusted::<COMPARE>(buf, token) else {
        return wrap_cold(buf);
    };
    let image = buf.get(..image_len).ok_or(Error::CorruptHeader)?;
    let (header, body) = image.split_at_checked(HEADER_LEN).ok_or(Error::CorruptHeader)?;
    Ok(Hll { header, body, p, seed })
}

#[inline(always)]
fn with_view_mut_by<'a, const COMPARE: bool, R>(
    buf: &'a mut [u8],
    token: &Token,
    f: impl FnOnce(HllMut<'a>) -> R,
) -> Result<R> {
    let Some((p, seed, image_len)) = trusted::<COMPARE>(buf, token) else {
        return with_full_validation_mut(buf, f);
    };
    let image = buf.get_mut(..image_len).ok_or(Error::CorruptHeader)?;
    let (header, body) = image.split_at_mut_checked(HEADER_LEN).ok_or(Error::CorruptHeader)?;
    Ok(f(HllMut { header, body, p, seed }))
}

/// The bytes of the two-byte window holding register `i` (6 bits from
/// bit `6 i` of the body; the body is padded so every window exists).
#[inline(always)]
fn window_range(i: usize) -> core::ops::Range<usize> {
    let at = (i * 6) >> 3;
    at..at + 2
}

/// Register `i`'s window as a little-endian word and the register's shift
/// in it; None only past the body (not for a validated image).
#[inline(always)]
fn register_window(body: &[u8], i: usize) -> Option<(u16, u32)> {
    let [lo, hi] = body.get(window_range(i))? else {
        return None;
    };
    Some((u16::from(*lo) | (u16::from(*hi) << 8), ((i * 6) & 7) as u32))
}

/// The register at `shift` in its window.
#[inline(always)]
const fn register_in(word: u16, shift: u32) -> u8 {
    ((word >> shift) & 63) as u8
}

#[cold]
#[inline(never)]
fn wrap_cold(buf: &[u8]) -> Result<Hll<'_>> {
    wrap(buf)
}

#[cold]
#[inline(never)]
fn with_full_validation_mut<'a, R>(buf: &'a mut [u8], f: impl FnOnce(HllMut<'a>) -> R) -> Result<R> {
    wrap_mut(buf).map(f)
}

/// Bytes [`export`] writes for the live image in `src`: the full image when
/// dense, the header plus 8 bytes per stored hash in small mode.
///
/// Errors: as [`wrap`].
pub fn exported_len(src: &[u8]) -> Result<usize> {
    let view = wrap(src)?;
    Ok(match view.mode() {
        HllMode::Small => HEADER_LEN + 8 * view.small_count(),
        HllMode::Dense => HEADER_LEN + view.body.len(),
    })
}

/// Exports the live image in `src` with its checksum into `dst` (no
/// alignment needed, at least [`exported_len`] bytes): compact in small
/// mode, the full image when dense. `dst` is written only on success.
/// Returns the bytes written.
///
/// Errors: as [`wrap`] for `src`; [`Error::BufferTooSmall`] when `dst` is
/// shorter than [`exported_len`] (nothing written).
pub fn export(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    let view = wrap(src)?;
    let len = exported_len(src)?;
    let out = dst.get_mut(..len).ok_or(Error::BufferTooSmall)?;
    let used = src.get(..len).ok_or(Error::BufferTooSmall)?;
    image::copy_bytes(out, used);
    if view.mode() == HllMode::Small {
        let flags = get_u32(out, 12).unwrap_or(0) | FLAG_COMPACT;
        put_u32(out, 12, flags);
        put_u64(out, 24, len as u64);
    }
    let sum = image::checksum(out);
    put_u64(out, 32, sum);
    Ok(len)
}

/// Checks the body of a verified image: small-mode hashes strictly
/// ascending and zeros after them; dense registers at most [`max_register`],
/// zero padding, and a histogram that matches the registers.
fn check_hll_body(layout: &HllLayout, image: &[u8]) -> Result<()> {
    let body = image.get(HEADER_LEN..).ok_or(Error::BufferTooSmall)?;
    match layout.mode {
        HllMode::Small => {
            let (used, rest) = body.split_at_checked(8 * layout.small_count).ok_or(Error::CorruptBody)?;
            let mut previous: Option<u64> = None;
            // Also the in-place conversion rule that our own adds keep
            // (see HllMut::stays_convertible): i_j >= 4j past the stack part.
            let (mut distinct, mut last) = (0usize, usize::MAX);
            let stack_covers_all = small_capacity(layout.p) <= DENSIFY_STACK;
            for chunk in used.chunks_exact(8) {
                let h = get_u64(chunk, 0).unwrap_or(0);
                if previous.is_some_and(|prev| prev >= h) {
                    return Err(Error::CorruptBody);
                }
                previous = Some(h);
                let (i, _) = split_hash(h, layout.p);
                if i != last {
                    if !stack_covers_all && distinct >= DENSIFY_STACK && i < 4 * distinct {
                        return Err(Error::CorruptBody);
                    }
                    distinct += 1;
                    last = i;
                }
            }
            if rest.iter().any(|b| *b != 0) {
                return Err(Error::CorruptBody);
            }
        }
        HllMode::Dense => {
            let (regs, padding) =
                body.split_at_checked(register_bytes(layout.p)).ok_or(Error::CorruptBody)?;
            let histogram = histogram_of(regs);
            let legal = max_register(layout.p) as usize;
            let illegal = histogram.iter().skip(legal + 1).any(|c| *c != 0);
            let stored = (0..HISTOGRAM_LEN)
                .all(|v| get_u32(image, OFF_HISTOGRAM + 4 * v) == histogram.get(v).copied());
            let sum_ok = read_register_sum(image) == register_sum_of(&histogram, layout.p);
            let martingale = get_f64(image, OFF_MARTINGALE).unwrap_or(f64::NAN);
            let martingale_ok = if image.get(OFF_MARTINGALE_VALID) == Some(&1) {
                martingale.is_finite() && martingale >= 0.0
            } else {
                martingale.to_bits() == 0
            };
            if illegal || !stored || !sum_ok || !martingale_ok || padding.iter().any(|b| *b != 0) {
                return Err(Error::CorruptBody);
            }
        }
    }
    Ok(())
}

/// Verifies untrusted bytes holding one exported image (compact or full):
/// headers, exact length, checksum and body rules. Needs no alignment.
/// Errors: header/checksum errors, [`Error::CorruptBody`].
pub fn verify(bytes: &[u8]) -> Result<()> {
    image::verify::<HllImage>(bytes).map(|_| ())
}

/// Bytes of the live image that importing the exported image `src` writes
/// (allocate this much, 64-byte aligned, before [`import`]). Checks the
/// headers and the length, not the checksum.
///
/// Errors: as [`crate::image::import_len`].
pub fn import_len(src: &[u8]) -> Result<usize> {
    image::import_len::<HllImage>(src)
}

/// Verifies untrusted bytes (as [`verify`]) and writes the live image into
/// `dst` (8-byte aligned, at least [`image_len`] of its precision; a compact
/// image expands to the full length). `dst` is written only on success.
/// Returns the live image length.
///
/// Errors: as [`verify`]; [`Error::BufferTooSmall`] when `dst` is shorter
/// than the live image ([`import_len`]), [`Error::Misaligned`].
pub fn import(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    let (_, layout) = image::verify::<HllImage>(src)?;
    let full = HEADER_LEN + body_len(layout.p);
    // Length first, then alignment, as `image::import`.
    let out = dst.get_mut(..full).ok_or(Error::BufferTooSmall)?;
    if !image::is_aligned(out) {
        return Err(Error::Misaligned);
    }
    let (head, tail) = out.split_at_mut_checked(src.len()).ok_or(Error::BufferTooSmall)?;
    for (d, s) in head.iter_mut().zip(src) {
        *d = *s;
    }
    tail.fill(0);
    let flags = get_u32(out, 12).unwrap_or(0) & !FLAG_COMPACT;
    put_u32(out, 12, flags);
    put_u64(out, 24, full as u64);
    Ok(full)
}

/// Writes into `buf` a sketch of precision `p` holding what `src` holds:
/// `src`'s registers folded down (`p` at most `src`'s), or, while `src` is
/// in small mode, its hashes replayed (any `p`, higher ones included: the
/// hashes hold every bit a register needs). Same seed.
/// Errors: as [`init`], and [`Error::Incompatible`] when `p` is above `src`'s
/// precision while `src` is dense.
pub fn downsize<'a>(src: &Hll<'_>, buf: &'a mut [u8], p: u8) -> Result<HllMut<'a>> {
    check_precision(p)?;
    if src.mode() == HllMode::Dense && p > src.p {
        return Err(Error::Incompatible);
    }
    let mut out = init(buf, p, src.seed)?;
    out.merge(src)?;
    Ok(out)
}

/// Small-mode entries kept on the stack at the end of a conversion to
/// registers (4 bytes each); see [`HllMut::densify`].
const DENSIFY_STACK: usize = 64;

/// Writes the 3-byte conversion entry `j` (`index << 6 | value`, little-endian).
#[inline]
fn put_entry(body: &mut [u8], j: usize, (i, k): (usize, u8)) {
    let word = ((i as u32) << 6) | u32::from(k & 63);
    if let Some(bytes) = body.get_mut(3 * j..3 * j + 3) {
        for (b, v) in bytes.iter_mut().zip(word.to_le_bytes()) {
            *b = v;
        }
    }
}

/// Reads the 3-byte conversion entry `j` as (index, value).
#[inline]
fn get_entry(body: &[u8], j: usize) -> (usize, u8) {
    let mut word = [0u8; 4];
    if let Some(bytes) = body.get(3 * j..3 * j + 3) {
        for (w, b) in word.iter_mut().zip(bytes) {
            *w = *b;
        }
    }
    let word = u32::from_le_bytes(word);
    ((word >> 6) as usize, (word & 63) as u8)
}

#[inline(always)]
fn get_register(regs: &[u8], i: usize) -> u8 {
    let bit = i * 6;
    let byte = bit >> 3;
    let lo = u16::from(regs.get(byte).copied().unwrap_or(0));
    let hi = u16::from(regs.get(byte + 1).copied().unwrap_or(0));
    (((lo | (hi << 8)) >> (bit & 7)) & 63) as u8
}

#[inline(always)]
fn set_register(regs: &mut [u8], i: usize, value: u8) {
    let bit = i * 6;
    let (byte, shift) = (bit >> 3, bit & 7);
    let mut word = u16::from(regs.get(byte).copied().unwrap_or(0));
    word |= u16::from(regs.get(byte + 1).copied().unwrap_or(0)) << 8;
    word = (word & !(63 << shift)) | (u16::from(value & 63) << shift);
    if let Some(b) = regs.get_mut(byte) {
        *b = word as u8;
    }
    if shift > 2 {
        if let Some(b) = regs.get_mut(byte + 1) {
            *b = (word >> 8) as u8;
        }
    }
}

/// Histogram of the packed registers in `regs` (a multiple of 3 bytes).
#[inline(always)]
fn histogram_of(regs: &[u8]) -> [u32; HISTOGRAM_LEN] {
    let mut histogram = [0u32; HISTOGRAM_LEN];
    for group in regs.chunks_exact(3) {
        let word = unpack_group(group);
        for lane in 0..4 {
            if let Some(c) = histogram.get_mut(((word >> (6 * lane)) & 63) as usize) {
                *c += 1;
            }
        }
    }
    histogram
}

/// The fixed-point weight `2^(64-v)` of a register value in the register
/// sum (0 for empty and maximal registers, which the estimator treats apart).
#[inline(always)]
const fn register_weight(v: u8, p: u8) -> u128 {
    if v == 0 || v > 64 - p {
        0
    } else {
        1u128 << (64 - v)
    }
}

/// The register sum a histogram implies.
fn register_sum_of(histogram: &[u32; HISTOGRAM_LEN], p: u8) -> u128 {
    histogram.iter().enumerate().map(|(v, c)| u128::from(*c) * register_weight(v as u8, p)).sum()
}

fn read_register_sum(header: &[u8]) -> u128 {
    let lo = get_u64(header, OFF_REGISTER_SUM).unwrap_or(0);
    let hi = get_u64(header, OFF_REGISTER_SUM + 8).unwrap_or(0);
    (u128::from(hi) << 64) | u128::from(lo)
}

fn write_register_sum(header: &mut [u8], sum: u128) {
    put_u64(header, OFF_REGISTER_SUM, sum as u64);
    put_u64(header, OFF_REGISTER_SUM + 8, (sum >> 64) as u64);
}

/// Four 6-bit registers from three bytes.
#[inline(always)]
fn unpack_group(group: &[u8]) -> u32 {
    group.iter().rev().fold(0u32, |acc, b| (acc << 8) | u32::from(*b))
}

/// Ertl's sigma function: `x + sum_k x^(2^k) 2^(k-1)`; infinite at 1.
fn sigma(x: f64) -> f64 {
    if x >= 1.0 {
        return f64::INFINITY;
    }
    let (mut x, mut y, mut z) = (x, 1.0, x);
    for _ in 0..128 {
        x *= x;
        let previous = z;
        z += x * y;
        y += y;
        if z == previous {
            break;
        }
    }
    z
}

/// Ertl's tau function: `(1 - x - sum_k (1 - x^(2^-k))^2 2^-k) / 3`.
fn tau(x: f64) -> f64 {
    if x <= 0.0 || x >= 1.0 {
        return 0.0;
    }
    let (mut x, mut y, mut z) = (x, 1.0, 1.0 - x);
    for _ in 0..128 {
        x = crate::simd::sqrt(x);
        let previous = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
        if z == previous {
            break;
        }
    }
    z / 3.0
}

/// Ertl's improved estimator at precision `p` from the number of empty
/// registers, of registers at the maximum `q + 1`, and the register sum
/// `sum of 2^(64-v)` over the others. Ertl's recursion
/// `z = m tau(1 - C_(q+1)/m); z = (z + C_k)/2 for k = q..1; z += m sigma(C_0/m)`
/// unrolls to `m tau 2^-q + sum_k C_k 2^-k + m sigma`, which is what this computes.
pub(crate) fn improved_estimate(empty: u32, maximal: u32, register_sum: u128, p: u8) -> f64 {
    let m = registers(p) as f64;
    let q = 64 - i32::from(p);
    let hi = (register_sum >> 64) as u64 as f64;
    let lo = register_sum as u64 as f64;
    let mut z = hi + lo * (1.0 / 18_446_744_073_709_551_616.0);
    if maximal > 0 {
        z += m * tau(1.0 - f64::from(maximal) / m) * libm::exp2(-f64::from(q));
    }
    if empty > 0 {
        z += m * sigma(f64::from(empty) / m);
    }
    // alpha_m = alpha_inf / (1 + 1.079 / m): the finite-m constant of
    // Flajolet et al. (2007), which removes the +1.08/m relative bias the
    // harmonic mean has at every cardinality (measured +0.1..0.2% at p = 10).
    ALPHA_INF * m * m / (z * (1.0 + 1.079 / m))
}

/// A read-only view of a validated live HyperLogLog image.
#[derive(Copy, Clone)]
pub struct Hll<'a> {
    header: &'a [u8],
    body: &'a [u8],
    p: u8,
    seed: u64,
}

crate::image::debug_view!(Hll [p, seed]);

impl<'a> Hll<'a> {
    /// Precision `p`.
    pub fn precision(&self) -> u8 {
        self.p
    }

    /// Hash seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash function and seed of this image.
    pub fn key_hasher(&self) -> KeyHasher {
        KeyHasher { kind: HashKind::Xxh3, seed: self.seed }
    }

    /// Current mode.
    pub fn mode(&self) -> HllMode {
        if self.header.get(OFF_MODE) == Some(&1) {
            HllMode::Dense
        } else {
            HllMode::Small
        }
    }

    /// Whether adding the precomputed `hash` would change nothing: true
    /// only in dense mode with the hash's register already at or above its
    /// rank. False also means "unknown" (small mode keeps the hashes, and
    /// this view does not search them). Lets a caller answer the common
    /// add of a dense sketch without a writable view.
    #[inline(always)]
    pub fn holds_hash(&self, hash: u64) -> bool {
        if self.header.get(OFF_MODE) != Some(&1) {
            return false;
        }
        let (i, k) = split_hash(hash, self.p);
        register_window(self.body, i).is_some_and(|(word, shift)| k <= register_in(word, shift))
    }

    /// Hashes stored in small mode (0 when dense).
    pub fn small_count(&self) -> usize {
        (get_u32(self.header, OFF_SMALL_COUNT).unwrap_or(0) as usize).min(small_capacity(self.p))
    }

    /// The stored small-mode hashes, ascending.
    pub fn small_hashes(&self) -> impl Iterator<Item = u64> + 'a {
        let used = self.body.get(..8 * self.small_count()).unwrap_or(&[]);
        used.chunks_exact(8).map(|c| get_u64(c, 0).unwrap_or(0))
    }

    /// The register histogram (dense mode; all zero in small mode).
    pub fn histogram(&self) -> [u32; HISTOGRAM_LEN] {
        let mut out = [0u32; HISTOGRAM_LEN];
        for (v, slot) in out.iter_mut().enumerate() {
            *slot = get_u32(self.header, OFF_HISTOGRAM + 4 * v).unwrap_or(0);
        }
        out
    }

    /// Writes the `m` register values into `out` (`out.len()` must be `m`),
    /// in either mode (small mode: the registers its hashes give).
    /// Errors: [`Error::InvalidArgument`] on a length mismatch.
    pub fn register_values(&self, out: &mut [u8]) -> Result<()> {
        if out.len() != registers(self.p) {
            return Err(Error::InvalidArgument);
        }
        match self.mode() {
            HllMode::Dense => {
                for (i, v) in out.iter_mut().enumerate() {
                    *v = get_register(self.body, i);
                }
            }
            HllMode::Small => {
                out.fill(0);
                for h in self.small_hashes() {
                    let (i, k) = split_hash(h, self.p);
                    if let Some(v) = out.get_mut(i) {
                        *v = (*v).max(k);
                    }
                }
            }
        }
        Ok(())
    }

    /// Registers above zero. Dense: O(1) from the histogram; small mode: one
    /// pass over the stored hashes (sorted, so equal indexes are adjacent).
    pub fn registers_set(&self) -> u32 {
        match self.mode() {
            HllMode::Dense => {
                let zero = get_u32(self.header, OFF_HISTOGRAM).unwrap_or(0);
                (registers(self.p) as u32).saturating_sub(zero)
            }
            HllMode::Small => {
                let mut last = None;
                let mut set = 0u32;
                for h in self.small_hashes() {
                    let i = split_hash(h, self.p).0;
                    set += u32::from(last != Some(i));
                    last = Some(i);
                }
                set
            }
        }
    }

    /// Distinct-count estimate: the exact count of stored hashes in small
    /// mode; when dense, the martingale estimate while it is valid, else
    /// [`Hll::register_estimate`]. O(1) (the series of the register estimate
    /// run only while some register is 0 or at its maximum).
    pub fn estimate(&self) -> f64 {
        match self.mode() {
            HllMode::Small => self.small_count() as f64,
            HllMode::Dense if self.martingale_valid() => get_f64(self.header, OFF_MARTINGALE).unwrap_or(0.0),
            HllMode::Dense => self.register_estimate(),
        }
    }

    /// True when a dense sketch's estimate is the martingale estimate.
    pub fn martingale_valid(&self) -> bool {
        self.header.get(OFF_MARTINGALE_VALID) == Some(&1)
    }

    /// The estimate from the registers alone (Ertl's improved estimator;
    /// the exact count in small mode): what any merged sketch reports.
    pub fn register_estimate(&self) -> f64 {
        match self.mode() {
            HllMode::Small => self.small_count() as f64,
            HllMode::Dense => {
                let count = |v: usize| get_u32(self.header, OFF_HISTOGRAM + 4 * v).unwrap_or(0);
                let maximal = count(usize::from(max_register(self.p)));
                improved_estimate(count(0), maximal, read_register_sum(self.header), self.p)
            }
        }
    }

    /// Probability that a new distinct hash changes a register:
    /// `(C_0 + sum over 1 <= v <= q of C_v 2^-v) / m`.
    fn change_probability(&self) -> f64 {
        let empty = f64::from(get_u32(self.header, OFF_HISTOGRAM).unwrap_or(0));
        let sum = read_register_sum(self.header);
        let weighted = (sum >> 64) as u64 as f64 + (sum as u64) as f64 * (1.0 / 18_446_744_073_709_551_616.0);
        (empty + weighted) / registers(self.p) as f64
    }

    /// All statistics.
    pub fn stats(&self) -> HllStats {
        HllStats {
            precision: self.p,
            mode: self.mode(),
            seed: self.seed,
            small_count: self.small_count() as u32,
            small_capacity: small_capacity(self.p) as u32,
            registers_set: self.registers_set(),
            estimate: self.estimate(),
            martingale: self.mode() == HllMode::Dense && self.martingale_valid(),
            image_bytes: (HEADER_LEN + self.body.len()) as u64,
        }
    }

    /// Register `i` in dense mode (0 when out of range or in small mode).
    pub fn register(&self, i: usize) -> u8 {
        if self.mode() == HllMode::Dense && i < registers(self.p) {
            get_register(self.body, i)
        } else {
            0
        }
    }
}

/// An exclusive, mutable view of a validated live HyperLogLog image.
pub struct HllMut<'a> {
    header: &'a mut [u8],
    body: &'a mut [u8],
    p: u8,
    seed: u64,
}

crate::image::debug_view!(HllMut [p, seed]);

impl<'a> HllMut<'a> {
    /// A read-only view of the same image.
    pub fn as_ref(&self) -> Hll<'_> {
        Hll { header: self.header, body: self.body, p: self.p, seed: self.seed }
    }

    /// Adds a key; true when the sketch changed (a new hash in small mode,
    /// a raised register when dense).
    #[inline]
    pub fn add(&mut self, key: &[u8]) -> bool {
        self.add_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`HllMut::add`] for an integer key (hashed as 8 little-endian bytes).
    #[inline]
    pub fn add_u64(&mut self, key: u64) -> bool {
        self.add_hash(hash::hash_u64(key, self.seed))
    }

    /// [`HllMut::add`] for a precomputed 64-bit hash (it must be uniformly
    /// distributed, e.g. XXH3 with this image's seed). One add takes no
    /// LZCNT dispatch: a dispatched copy costs a call, more than the
    /// portable leading-zero count it would save (the batch takes it once).
    #[inline]
    pub fn add_hash(&mut self, hash: u64) -> bool {
        if self.is_dense() {
            self.add_dense(hash)
        } else {
            self.add_small(hash)
        }
    }

    /// Batch add of precomputed hashes: the small-mode adds one by one
    /// until the sketch turns dense (it never turns back), then the rest in
    /// one loop compiled with LZCNT when the CPU has it. The small mode
    /// stays outside that copy: its conversion to registers needs stack of
    /// its own, and every exported function stays within 1 KiB.
    pub fn add_hashes(&mut self, hashes: &[u64]) {
        let mut rest = hashes;
        while let Some((h, tail)) = rest.split_first() {
            if self.is_dense() {
                break;
            }
            self.add_small(*h);
            rest = tail;
        }
        simd::with_lzcnt(
            #[inline(always)]
            || {
                for h in rest {
                    self.add_dense(*h);
                }
            },
        )
    }

    /// True once the registers are in use (dense mode).
    #[inline(always)]
    fn is_dense(&self) -> bool {
        self.header.get(OFF_MODE) == Some(&1)
    }

    /// The portable single add, for `assert_add_paths_agree` (single adds
    /// take no LZCNT dispatch, so it compares them with the batch's LZCNT
    /// copy).
    #[cfg(test)]
    fn add_one(&mut self, hash: u64) -> bool {
        self.add_hash(hash)
    }

    #[inline(always)]
    fn add_dense(&mut self, hash: u64) -> bool {
        let (i, k) = split_hash(hash, self.p);
        let Some((word, shift)) = register_window(self.body, i) else {
            return false;
        };
        let old = register_in(word, shift);
        if k <= old {
            return false;
        }
        let Some([lo, hi]) = self.body.get_mut(window_range(i)) else {
            return false;
        };
        let word = (word & !(63 << shift)) | (u16::from(k) << shift);
        *lo = word as u8;
        *hi = (word >> 8) as u8;
        self.count_change();
        self.register_changed(old, k);
        true
    }

    /// Martingale step of one register change in the own stream: adds
    /// `1 / P` with `P` taken before the change.
    #[inline(never)]
    fn count_change(&mut self) {
        let view = self.as_ref();
        if view.martingale_valid() {
            let p = view.change_probability();
            let estimate =
                get_f64(self.header, OFF_MARTINGALE).unwrap_or(0.0) + if p > 0.0 { 1.0 / p } else { 0.0 };
            put_f64(self.header, OFF_MARTINGALE, estimate);
        }
    }

    fn set_martingale(&mut self, valid: bool, estimate: f64) {
        put_f64(self.header, OFF_MARTINGALE, estimate);
        if let Some(v) = self.header.get_mut(OFF_MARTINGALE_VALID) {
            *v = u8::from(valid);
        }
    }

    /// Histogram and register-sum bookkeeping of one raised register.
    #[inline(never)]
    fn register_changed(&mut self, old: u8, new: u8) {
        self.bump_histogram(old, new);
        let sum = read_register_sum(self.header);
        let sum = sum.wrapping_add(register_weight(new, self.p)).wrapping_sub(register_weight(old, self.p));
        write_register_sum(self.header, sum);
    }

    #[inline(always)]
    fn bump_histogram(&mut self, old: u8, new: u8) {
        let off_old = OFF_HISTOGRAM + 4 * usize::from(old);
        let off_new = OFF_HISTOGRAM + 4 * usize::from(new);
        let old_count = get_u32(self.header, off_old).unwrap_or(0);
        put_u32(self.header, off_old, old_count.saturating_sub(1));
        let new_count = get_u32(self.header, off_new).unwrap_or(0);
        put_u32(self.header, off_new, new_count.saturating_add(1));
    }

    fn small_count(&self) -> usize {
        self.as_ref().small_count()
    }

    #[cold]
    #[inline(never)]
    fn add_small(&mut self, hash: u64) -> bool {
        let n = self.small_count();
        let used = self.body.get(..8 * n).unwrap_or(&[]);
        // Binary search over the sorted little-endian u64 entries.
        let (mut lo, mut hi) = (0usize, n);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let v = get_u64(used, 8 * mid).unwrap_or(u64::MAX);
            match v.cmp(&hash) {
                core::cmp::Ordering::Equal => return false,
                core::cmp::Ordering::Less => lo = mid + 1,
                core::cmp::Ordering::Greater => hi = mid,
            }
        }
        if n < small_capacity(self.p) && self.stays_convertible(n, lo, hash) {
            // Shift entries lo..n up by one slot (8 bytes).
            if let Some(area) = self.body.get_mut(8 * lo..8 * n + 8) {
                if let Some(count) = area.len().checked_sub(8) {
                    area.copy_within(0..count, 8);
                }
            }
            put_u64(self.body, 8 * lo, hash);
            put_u32(self.header, OFF_SMALL_COUNT, (n + 1) as u32);
            return true;
        }
        self.densify();
        self.add_dense(hash)
    }

    /// Whether the small list with `hash` inserted at position `at` can
    /// still be converted to registers in place with [`DENSIFY_STACK`]
    /// entries of stack (see [`HllMut::densify`]): after merging equal
    /// register indexes, the `j`-th smallest index must be at least `4j`
    /// for every `j >= DENSIFY_STACK`. Random hashes put about `4j·n/m`
    /// indexes below `4j` (at most `j/2` at full small capacity), so only
    /// a crafted key set fails it; the list is then converted before the
    /// insert instead (exact counting ends early, nothing is lost).
    fn stays_convertible(&self, n: usize, at: usize, hash: u64) -> bool {
        if small_capacity(self.p) <= DENSIFY_STACK {
            return true;
        }
        let used = self.body.get(..8 * n).unwrap_or(&[]);
        let limit = 4 * (n + 1); // an index at or above it cannot fail the rule
        let mut distinct = 0usize;
        let mut last = usize::MAX;
        for j in 0..=n {
            let h = match j.cmp(&at) {
                core::cmp::Ordering::Less => get_u64(used, 8 * j),
                core::cmp::Ordering::Equal => Some(hash),
                core::cmp::Ordering::Greater => get_u64(used, 8 * (j - 1)),
            };
            let (i, _) = split_hash(h.unwrap_or(u64::MAX), self.p);
            if i >= limit {
                break;
            }
            if i != last {
                if distinct >= DENSIFY_STACK && i < 4 * distinct {
                    return false;
                }
                distinct += 1;
                last = i;
            }
        }
        true
    }

    /// Converts an image in its exact small mode to dense registers now (a
    /// no-op when dense), for example before sharing it between threads
    /// for concurrent adds ([`wrap_shared`]). The estimate is unchanged.
    pub fn densify_now(&mut self) {
        if self.as_ref().mode() == HllMode::Small {
            self.densify();
        }
    }

    /// Converts small mode to dense registers in place, with O(1) stack.
    ///
    /// 1. The sorted hashes shrink in place to 3-byte entries
    ///    `index << 6 | value` (equal indexes merged, keeping the larger
    ///    value); entry `j` lands at byte `3j`, behind the hash being read.
    /// 2. The rest of the body is zeroed and the entries are written as
    ///    registers from the largest index down. Register `i` starts at
    ///    byte `6i/8`; the entries still unread lie below byte `3j`, and
    ///    [`HllMut::stays_convertible`] keeps `i_j >= 4j` for every
    ///    `j >= DENSIFY_STACK`, so no write reaches an unread entry.
    /// 3. The last [`DENSIFY_STACK`] entries are copied to the stack (256
    ///    bytes) before their area is zeroed and written.
    ///
    /// A hostile wrapped image breaking the rule gives wrong registers
    /// (never an out-of-bounds access); `import` refuses such lists.
    fn densify(&mut self) {
        let n = self.small_count();
        let p = self.p;
        // 1. Compress.
        let mut entries = 0usize;
        let mut pending: Option<(usize, u8)> = None;
        for j in 0..n {
            let (i, k) = split_hash(get_u64(self.body, 8 * j).unwrap_or(0), p);
            match pending {
                Some((pi, pk)) if pi == i => pending = Some((pi, pk.max(k))),
                Some(entry) => {
                    put_entry(self.body, entries, entry);
                    entries += 1;
                    pending = Some((i, k));
                }
                None => pending = Some((i, k)),
            }
        }
        if let Some(entry) = pending {
            put_entry(self.body, entries, entry);
            entries += 1;
        }
        // 2. Zero what follows the entries; write the upper entries in place.
        if let Some(rest) = self.body.get_mut(3 * entries..) {
            rest.fill(0);
        }
        let mut e = entries;
        while e > DENSIFY_STACK {
            e -= 1;
            let (i, k) = get_entry(self.body, e);
            if let Some(bytes) = self.body.get_mut(3 * e..3 * e + 3) {
                bytes.fill(0);
            }
            set_register(self.body, i, k);
        }
        // 3. The lowest entries from the stack.
        self.densify_lowest(e);
        self.recount_histogram();
        self.set_mode(HllMode::Dense);
        // The martingale continues from the exact count of the hashes so far.
        let valid = self.as_ref().martingale_valid();
        self.set_martingale(valid, if valid { n as f64 } else { 0.0 });
    }

    /// Switches the mode; the small-mode count restarts at 0 either way.
    fn set_mode(&mut self, mode: HllMode) {
        put_u32(self.header, OFF_SMALL_COUNT, 0);
        if let Some(m) = self.header.get_mut(OFF_MODE) {
            *m = mode as u8;
        }
    }

    /// The last step of [`HllMut::densify`]: the lowest `e` entries (at most
    /// [`DENSIFY_STACK`]) go to the stack, their area is zeroed, and they are
    /// written as registers. Out of line: the array stays out of densify's frame.
    #[inline(never)]
    fn densify_lowest(&mut self, e: usize) {
        let mut low = [0u32; DENSIFY_STACK];
        for (j, slot) in low.iter_mut().enumerate().take(e) {
            let (i, k) = get_entry(self.body, j);
            *slot = ((i as u32) << 6) | u32::from(k);
        }
        if let Some(area) = self.body.get_mut(..3 * e) {
            area.fill(0);
        }
        for entry in low.iter().take(e) {
            set_register(self.body, (entry >> 6) as usize, (entry & 63) as u8);
        }
    }

    /// Recomputes the histogram and register sum from the registers (out of
    /// line: its 256-byte array never shares a frame with a caller's).
    #[inline(never)]
    fn recount_histogram(&mut self) {
        let histogram = histogram_of(self.body.get(..register_bytes(self.p)).unwrap_or(&[]));
        self.write_histogram(&histogram);
    }

    /// Writes the histogram and the register sum it implies.
    fn write_histogram(&mut self, histogram: &[u32; HISTOGRAM_LEN]) {
        for (v, c) in histogram.iter().enumerate() {
            put_u32(self.header, OFF_HISTOGRAM + 4 * v, *c);
        }
        let sum = register_sum_of(histogram, self.p);
        write_register_sum(self.header, sum);
    }

    /// Merges `other` into this sketch: afterwards it holds the union.
    ///
    /// `other` must have the same seed. A dense `other` must have a
    /// precision at least this sketch's (a higher one folds down); a
    /// small-mode `other` merges into any precision. Merging disjoint parts
    /// gives exactly the registers of adding everything to one sketch.
    /// Errors: [`Error::Incompatible`] (nothing changes then).
    pub fn merge(&mut self, other: &Hll<'_>) -> Result<()> {
        if other.seed != self.seed {
            return Err(Error::Incompatible);
        }
        if other.mode() == HllMode::Small {
            for h in other.small_hashes() {
                self.add_hash(h);
            }
            return Ok(());
        }
        if other.p < self.p {
            return Err(Error::Incompatible);
        }
        if self.as_ref().mode() == HllMode::Small {
            self.densify();
        }
        if other.p == self.p {
            self.merge_same_precision(other.body);
        } else {
            self.merge_folding(other);
        }
        // Registers from another stream: the martingale no longer applies.
        self.set_martingale(false, 0.0);
        Ok(())
    }

    #[inline(never)] // its 256-byte histogram stays out of merge's frame
    fn merge_same_precision(&mut self, other: &[u8]) {
        let bytes = register_bytes(self.p);
        let mut histogram = [0u32; HISTOGRAM_LEN];
        let dst = self.body.get_mut(..bytes).unwrap_or(&mut []);
        let src = other.get(..bytes).unwrap_or(&[]);
        // Damaged source registers (zero-copy bytes) count as the maximum.
        let max = u32::from(max_register(self.p));
        for (d, s) in dst.as_chunks_mut::<3>().0.iter_mut().zip(src.as_chunks::<3>().0) {
            let (a, b) = (unpack_group(d), unpack_group(s));
            let mut out = 0u32;
            for lane in 0..4 {
                let shift = 6 * lane;
                let v = ((a >> shift) & 63).max((b >> shift) & 63).min(max);
                out |= v << shift;
                if let Some(c) = histogram.get_mut(v as usize) {
                    *c += 1;
                }
            }
            for (byte, value) in d.iter_mut().zip(out.to_le_bytes()) {
                *byte = value;
            }
        }
        self.write_histogram(&histogram);
    }

    fn merge_folding(&mut self, other: &Hll<'_>) {
        let d = u32::from(other.p - self.p);
        // A damaged source register (zero-copy bytes) counts as the source's
        // maximum: the folded value then stays within this precision's range.
        let max = max_register(other.p);
        for j in 0..registers(other.p) {
            let k = get_register(other.body, j).min(max);
            if k == 0 {
                continue;
            }
            let (i, value) = (j >> d, folded_value(j, d, k));
            let old = get_register(self.body, i);
            if value > old {
                set_register(self.body, i, value);
                self.register_changed(old, value);
            }
        }
    }

    /// Writes dense registers given as one value per register, register 0
    /// first; replaces the contents (the sketch becomes dense). A value
    /// above [`max_register`] counts as that maximum. Only the first `m`
    /// values are read, and registers an iterator whose `len` overstated
    /// its items left unwritten are 0. Used by the UltraLogLog-to-HyperLogLog
    /// conversion.
    ///
    /// Errors: [`Error::InvalidArgument`] when `values.len()` is not `m`
    /// (nothing changes then).
    pub fn set_register_values(&mut self, values: impl ExactSizeIterator<Item = u8>) -> Result<()> {
        let m = registers(self.p);
        if values.len() != m {
            return Err(Error::InvalidArgument);
        }
        self.body.fill(0);
        let mut histogram = [0u32; HISTOGRAM_LEN];
        let max = max_register(self.p);
        // `len` is a promise a safe iterator may break: never more than m
        // registers (past them lies the zero padding), and every register
        // left unwritten counts as 0, so the histogram always sums to m.
        let mut written = 0;
        for (i, v) in values.take(m).enumerate() {
            let v = v.min(max);
            set_register(self.body, i, v);
            if let Some(c) = histogram.get_mut(usize::from(v)) {
                *c += 1;
            }
            written += 1;
        }
        if let Some(zeros) = histogram.first_mut() {
            *zeros += (m - written) as u32;
        }
        self.write_histogram(&histogram);
        self.set_mode(HllMode::Dense);
        self.set_martingale(false, 0.0);
        Ok(())
    }

    /// Empties the sketch (back to small mode).
    pub fn reset(&mut self) {
        self.body.fill(0);
        self.write_histogram(&[0; HISTOGRAM_LEN]);
        self.set_mode(HllMode::Small);
        self.set_martingale(true, 0.0);
    }
}

/// Re-exported precision bounds.
pub use cardinality::{MAX_PRECISION, MIN_PRECISION};

#[cfg(target_has_atomic = "64")]
/// Byte offset of the word that serializes updates of the registers that
/// straddle two 64-bit words under concurrent adds (inside the reserved
/// header area: 0 whenever no shared add is running).
const OFF_STRADDLE_LOCK: usize = 352;

#[cfg(target_has_atomic = "64")]
/// How many times [`SpinLockWait`] lets a concurrent add retry a held
/// straddle lock before it gives up with [`Error::CorruptHeader`] (0.05 to
/// 1 second, depending on how long the CPU's spin-wait hint pauses: far
/// longer than a running holder needs, and finite, so a lock word left set
/// by a damaged image or a process that died inside an add cannot hang the
/// caller).
pub const STRADDLE_SPIN_LIMIT: u32 = 1 << 24;

#[cfg(target_has_atomic = "64")]
/// What a concurrent add does each time it finds the straddle lock held
/// (see [`SharedHll`]): [`LockWait::wait`] is called with the number of
/// failed tries so far (1, 2, ...); it waits a little and returns true to
/// try again, or returns false to give up, failing the add with
/// [`Error::CorruptHeader`] with nothing changed. It must return false
/// after a bounded number of tries (or a bounded time) so that a lock word
/// left set forever cannot hang the caller. Called only under contention,
/// never on the uncontended path. Chosen with
/// [`SharedHll::with_lock_wait`] (a type, so the call is direct and its
/// stack use known); the default is [`SpinLockWait`].
pub trait LockWait {
    /// Waits after failed try number `tries`; false gives up.
    fn wait(tries: u32) -> bool;
}

#[cfg(target_has_atomic = "64")]
/// The default [`LockWait`], for targets without threads to yield to or a
/// clock (firmware): one spin-wait hint per try, giving up after
/// [`STRADDLE_SPIN_LIMIT`] tries. A holder that is descheduled for longer
/// than that (far more adding threads than cores) makes the add fail; an
/// operating-system caller should use a wait that yields and sleeps
/// ([`lock_wait_step`]; the C ABI and the bindings do).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SpinLockWait;

#[cfg(target_has_atomic = "64")]
impl LockWait for SpinLockWait {
    fn wait(tries: u32) -> bool {
        if tries >= STRADDLE_SPIN_LIMIT {
            return false;
        }
        core::hint::spin_loop();
        true
    }
}

#[cfg(target_has_atomic = "64")]
/// What a [`LockWait`] of a caller with an operating system does at a
/// given try (see [`lock_wait_step`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum LockWaitStep {
    /// One spin-wait hint (`core::hint::spin_loop`): a running holder
    /// releases the lock within nanoseconds.
    Spin,
    /// Yield the thread to the scheduler (`sched_yield`).
    Yield,
    /// Sleep for 1 ms, so that a descheduled holder gets a core even when
    /// every other thread is busy.
    Sleep,
    /// Give up: the add fails with [`Error::CorruptHeader`].
    GiveUp,
}

#[cfg(target_has_atomic = "64")]
/// How many tries of [`lock_wait_step`] spin (the first ones).
pub const LOCK_WAIT_SPINS: u32 = 1 << 10;
#[cfg(target_has_atomic = "64")]
/// How many tries of [`lock_wait_step`] yield the thread, after the spins.
pub const LOCK_WAIT_YIELDS: u32 = 1 << 12;
#[cfg(target_has_atomic = "64")]
/// How many tries of [`lock_wait_step`] sleep 1 ms, after the yields
/// (about five seconds), before it gives up.
pub const LOCK_WAIT_SLEEPS: u32 = 5000;

#[cfg(target_has_atomic = "64")]
/// The wait schedule for callers with an operating system (the C ABI and
/// the bindings use it in their [`LockWait`]): [`LOCK_WAIT_SPINS`] spins,
/// then [`LOCK_WAIT_YIELDS`] thread yields, then [`LOCK_WAIT_SLEEPS`]
/// sleeps of 1 ms, then give up. A holder descheduled among many more
/// adding threads than cores thus gets to run and finish, however many
/// threads add, and a lock word that stays set (a damaged image, or a
/// process that died inside an add on a shared mapping) fails the add
/// after about five seconds. `tries` counts from 1.
pub const fn lock_wait_step(tries: u32) -> LockWaitStep {
    if tries <= LOCK_WAIT_SPINS {
        LockWaitStep::Spin
    } else if tries <= LOCK_WAIT_SPINS + LOCK_WAIT_YIELDS {
        LockWaitStep::Yield
    } else if tries <= LOCK_WAIT_SPINS + LOCK_WAIT_YIELDS + LOCK_WAIT_SLEEPS {
        LockWaitStep::Sleep
    } else {
        LockWaitStep::GiveUp
    }
}

#[cfg(target_has_atomic = "64")]
/// A shared view of a dense live HyperLogLog that many threads may add to
/// at once (see [`crate::shared`]).
///
/// Registers only grow: each is raised with a compare-and-swap loop on the
/// 64-bit word holding it. One register in 16 straddles two words (6-bit
/// registers); those are raised under a tiny lock word in the reserved
/// header area, held for two compare-and-swaps (an add may spin briefly
/// while another thread raises a straddling register; the check that
/// finds nothing to raise takes no lock). The wait is bounded: a lock word
/// that stays set longer than the view's [`LockWait`] allows (a damaged
/// image, or a process that died inside an add on a shared mapping; the
/// default [`SpinLockWait`] spins up to [`STRADDLE_SPIN_LIMIT`] times)
/// fails the add with [`Error::CorruptHeader`] instead of hanging; exclusive calls refuse such
/// an image too (the word is reserved and must be 0 outside shared adds). The histogram and the register
/// sum are kept with atomic additions, so once every add has returned the
/// registers, histogram, sum and register estimate equal those of the same
/// adds made one at a time. The martingale (HIP) estimate does not survive
/// concurrent adds: the first one marks it invalid, as a merge does, and
/// [`SharedHll::estimate`] / [`Hll::estimate`] then use the registers
/// (Ertl's improved estimator, `1.04/sqrt(m)`).
///
/// The exact small mode is not concurrent: the image must be dense
/// ([`HllMut::densify_now`]), else [`Error::SmallMode`].
///
/// `W` is how an add waits for a held lock (see [`LockWait`]).
pub struct SharedHll<'a, W = SpinLockWait> {
    words: AtomicWords<'a>,
    p: u8,
    seed: u64,
    lock_wait: PhantomData<fn() -> W>,
}

#[cfg(target_has_atomic = "64")]
impl<W> Clone for SharedHll<'_, W> {
    fn clone(&self) -> Self {
        *self
    }
}

#[cfg(target_has_atomic = "64")]
impl<W> Copy for SharedHll<'_, W> {}

#[cfg(target_has_atomic = "64")]
crate::image::debug_view!(SharedHll [p, seed] shared);

#[cfg(target_has_atomic = "64")]
/// The immutable header checks of a live dense image, for the shared view
/// (the histogram, sum and martingale change under concurrent adds).
/// `header` holds the first 64 bytes; the reserved tail of the header is
/// read from `words`.
fn shared_shape(common: &CommonHeader, header: &[u8], words: &AtomicWords<'_>) -> Result<u8> {
    if common.hash != HashKind::Xxh3 {
        return Err(Error::UnsupportedHash);
    }
    if common.header_len != HEADER_LEN || common.flags != 0 {
        return Err(if common.flags & FLAG_COMPACT != 0 {
            Error::CompactImage
        } else {
            Error::CorruptHeader
        });
    }
    let p = header.get(OFF_PRECISION).copied().ok_or(Error::BufferTooSmall)?;
    check_precision(p).map_err(|_| Error::CorruptHeader)?;
    // Bytes 345..352 (after the martingale flag) and from the lock word's end.
    let tail = words.load(OFF_MARTINGALE_VALID / 8) >> 8;
    let after_lock = (OFF_STRADDLE_LOCK / 8 + 1..HEADER_LEN / 8).fold(0, |acc, w| acc | words.load(w));
    let reserved = image::zeroed(header, 50..52) && image::zeroed(header, 56..64) && tail | after_lock == 0;
    if !reserved || common.image_len != HEADER_LEN + body_len(p) {
        return Err(Error::CorruptHeader);
    }
    match header.get(OFF_MODE) {
        Some(1) => Ok(p),
        Some(0) => Err(Error::SmallMode),
        _ => Err(Error::CorruptHeader),
    }
}

#[cfg(target_has_atomic = "64")]
/// Validates the immutable header of a dense live image seen as atomic
/// words and returns the shared view. Errors: as [`wrap`];
/// [`Error::SmallMode`] for an image still in its exact small mode.
pub fn wrap_shared(words: AtomicWords<'_>) -> Result<SharedHll<'_>> {
    let header: [u8; 64] = words.snapshot();
    let common = words.common(&header, FamilyId::HyperLogLog)?;
    let p = shared_shape(&common, &header, &words)?;
    Ok(SharedHll { words, p, seed: common.seed, lock_wait: PhantomData })
}

#[cfg(target_has_atomic = "64")]
impl<'a, W: LockWait> SharedHll<'a, W> {
    /// The same view, waiting for a held straddle lock with `V` (see
    /// [`LockWait`]): an operating-system caller passes a wait that yields
    /// the thread and sleeps, so that a lock holder descheduled among many
    /// more threads than cores gets to run and finish instead of failing
    /// the waiting add.
    #[must_use]
    pub fn with_lock_wait<V: LockWait>(self) -> SharedHll<'a, V> {
        SharedHll { words: self.words, p: self.p, seed: self.seed, lock_wait: PhantomData }
    }

    /// Precision `p`.
    pub fn precision(&self) -> u8 {
        self.p
    }

    /// The hash function of the image.
    pub fn key_hasher(&self) -> KeyHasher {
        KeyHasher { kind: HashKind::Xxh3, seed: self.seed }
    }

    /// Adds a byte key; true when a register rose. Thread-safe.
    #[inline]
    pub fn add(&self, key: &[u8]) -> Result<bool> {
        self.add_hash(hash::hash_bytes(key, self.seed))
    }

    /// Adds an integer key (8 little-endian bytes). Thread-safe.
    #[inline]
    pub fn add_u64(&self, key: u64) -> Result<bool> {
        self.add_hash(hash::hash_u64(key, self.seed))
    }

    /// Adds a batch of precomputed hashes. Thread-safe. Errors: as
    /// [`SharedHll::add_hash`], at the first hash that fails (the hashes
    /// before it are added).
    pub fn add_hashes(&self, hashes: &[u64]) -> Result<()> {
        for h in hashes {
            self.add_hash(*h)?;
        }
        Ok(())
    }

    /// Adds a precomputed hash; true when a register rose. Thread-safe.
    /// Errors: [`Error::CorruptHeader`] when the straddle lock word stays
    /// set longer than the view's [`LockWait`] allows (see [`SharedHll`]);
    /// nothing changed.
    pub fn add_hash(&self, h: u64) -> Result<bool> {
        let (i, k) = split_hash(h, self.p);
        let bit = HEADER_LEN * 8 + 6 * i;
        let (word, shift) = (bit / 64, (bit % 64) as u32);
        let old = if shift <= 58 {
            let mask = 63u64 << shift;
            let raised = self.words.update(word, Ordering::Relaxed, |w| {
                ((w & mask) >> shift < u64::from(k)).then_some((w & !mask) | (u64::from(k) << shift))
            });
            match raised {
                Some(w) => ((w & mask) >> shift) as u8,
                None => return Ok(false),
            }
        } else {
            match self.raise_straddling(word, shift, k)? {
                Some(old) => old,
                None => return Ok(false),
            }
        };
        self.registered(old, k);
        Ok(true)
    }

    /// Raises a register whose low `64 - shift` bits end word `word` and
    /// whose high bits start word `word + 1`. The high word is written last
    /// with release ordering and read first with acquire ordering, so a
    /// reader sees the low bits at least as new as the high ones: the value
    /// it reads is never above the final one, and finding `k` not above it
    /// safely skips the lock. Returns the old value when raised.
    fn raise_straddling(&self, word: usize, shift: u32, k: u8) -> Result<Option<u8>> {
        let low_bits = 64 - shift;
        let read = |order_high: Ordering| {
            let high = self.words.word(word + 1).map_or(0, |w| w.load(order_high));
            let low = self.words.load(word) >> shift;
            (((high << low_bits) | low) & 63) as u8
        };
        if read(Ordering::Acquire) >= k {
            return Ok(None);
        }
        let Some(lock) = self.words.word(OFF_STRADDLE_LOCK / 8) else { return Ok(None) };
        let mut tries = 0u32;
        while lock.compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed).is_err() {
            tries = tries.saturating_add(1);
            if !W::wait(tries) {
                return Err(Error::CorruptHeader);
            }
        }
        let old = read(Ordering::Acquire);
        let raised = old < k;
        if raised {
            let value = u64::from(k);
            let low_mask = u64::MAX << shift;
            self.words.update(word, Ordering::Relaxed, |w| Some((w & !low_mask) | (value << shift)));
            let high_mask = (1u64 << (6 - low_bits)) - 1;
            self.words.update(word + 1, Ordering::Release, |w| Some((w & !high_mask) | (value >> low_bits)));
        }
        lock.store(0, Ordering::Release);
        Ok(raised.then_some(old))
    }

    /// Histogram and register-sum bookkeeping of one raised register; the
    /// first concurrent change ends the martingale estimate.
    fn registered(&self, old: u8, new: u8) {
        let valid_word = OFF_MARTINGALE_VALID / 8;
        if self.words.load(valid_word) & 0xff != 0 {
            if let Some(w) = self.words.word(valid_word) {
                w.fetch_and(!0xff, Ordering::Relaxed);
            }
            if let Some(w) = self.words.word(OFF_MARTINGALE / 8) {
                w.store(0, Ordering::Relaxed);
            }
        }
        let entry = |v: u8| {
            let off = OFF_HISTOGRAM + 4 * usize::from(v);
            (off / 8, 1u64 << (8 * (off % 8)))
        };
        let (w_old, one_old) = entry(old);
        let (w_new, one_new) = entry(new);
        self.words.add(w_old, one_old.wrapping_neg());
        self.words.add(w_new, one_new);
        let delta = register_weight(new, self.p).wrapping_sub(register_weight(old, self.p));
        self.words.add_u128(OFF_REGISTER_SUM / 8, delta);
    }

    /// The register estimate from a relaxed snapshot of the histogram:
    /// exact once the adds are done, approximate (each count a few adds
    /// behind or ahead) while they run. Thread-safe.
    ///
    /// While adds run, a count may be one below zero for a moment: when two
    /// threads raise one register in turn (0 -> a, then a -> b), the second
    /// may book "one fewer at a" before the first books "one more at a".
    /// The word's two 32-bit counts are read as signed values (an even
    /// entry's -1 borrowed one from the odd entry above it, which is given
    /// back) and a negative count reads as 0.
    pub fn estimate(&self) -> f64 {
        let count = |v: usize| {
            let off = OFF_HISTOGRAM + 4 * v;
            let word = self.words.load(off / 8);
            let low = word as u32 as i32;
            let value = if off.is_multiple_of(8) {
                low
            } else {
                (word.wrapping_sub(low as i64 as u64) >> 32) as u32 as i32
            };
            value.max(0) as u32
        };
        let mut sum = 0u128;
        for v in 1..=usize::from(max_register(self.p)) {
            sum = sum.wrapping_add(u128::from(count(v)) * register_weight(v as u8, self.p));
        }
        improved_estimate(count(0), count(usize::from(max_register(self.p))), sum, self.p)
    }
}

#[cfg(test)]
pub(crate) mod tests;
