//! Classic Bloom filter: `m` bits, `k` probes per key.
//!
//! # Example
//!
//! Plan, initialize in a caller buffer, add, query, merge, and ship the
//! image through the checked export / import path:
//!
//! ```
//! use sketches_core::bloom::{self, BloomParams};
//! use sketches_core::Error;
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), Error> {
//! let params = BloomParams::for_items(1_000, 0.01)?; // 1,000 items at 1%
//! assert!(params.image_len()? <= 2048); // 1,344 bytes
//!
//! let (mut buf_a, mut buf_b) = (ImageBuf::<2048>::new(), ImageBuf::<2048>::new());
//! let mut a = bloom::init(&mut buf_a, &params, 7)?;
//! for user in ["alice", "bob", "carol"] {
//!     assert!(a.add(user.as_bytes())); // true: new to the filter
//! }
//! let mut b = bloom::init(&mut buf_b, &params, 7)?; // same parameters and seed: mergeable
//! b.add(b"dave");
//! a.union(&b.as_ref())?;
//!
//! let stats = a.as_ref().stats();
//! assert!(a.as_ref().contains(b"dave") && a.as_ref().contains(b"alice"));
//! assert_eq!(stats.add_calls, 4);
//! assert!(stats.capacity.is_within_plan()); // the over-capacity signal is quiet
//!
//! // export seals a copy with a checksum; import checks it into an aligned buffer.
//! let mut wire = [0u8; 2048];
//! let n = bloom::export(&buf_a, &mut wire)?;
//! let mut copy = ImageBuf::<2048>::new();
//! bloom::import(&wire[..n], &mut copy)?;
//! assert!(bloom::wrap(&copy)?.contains(b"carol"));
//!
//! wire[200] ^= 1; // one damaged bit in transit
//! assert_eq!(bloom::verify(&wire[..n]), Err(Error::ChecksumMismatch));
//! # Ok(())
//! # }
//! ```
//!
//! Image layout (after the 48-byte common header, all little-endian):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 48  | 8 | `m`, number of bits (1 ..= [`MAX_BITS`]) |
//! | 56  | 4 | `k`, probes per key (1 ..= [`MAX_HASHES`]) |
//! | 60  | 4 | reserved, 0 |
//! | 64  | 8 | planned items `n` |
//! | 72  | 8 | planned false-positive rate `p` (f64) |
//! | 80  | 8 | add calls |
//! | 88  | 8 | inserted: add calls that set at least one new bit |
//! | 96  | 8 | set bits |
//! | 104 | 8 | reserved, 0 |
//! | 112 | ⌈m/64⌉·8 | bit array: bit `i` is bit `i % 8` of byte `i / 8` (that is, bit `i % 64` of little-endian word `i / 64`) |
//! | … | 0..63 | zero padding to a multiple of 64 bytes (every live image length is) |
//!
//! Hashing: XXH3-64 of the key with the image seed gives `h`. Probe `i` is
//! bit `fastrange(x_i, m)` with enhanced double hashing in 64 bits:
//! `x_0 = h`, `y_0 = fmix64(h)`, `x_{i+1} = x_i + y_i`, `y_{i+1} = y_i + i`
//! (wrapping). Every probe uses all 64 bits, so filters above 2^32 bits keep
//! their designed false-positive rate.
//!
//! Thread-safety: [`Bloom`] is a shared view (any number of readers);
//! [`BloomMut`] is exclusive. The C ABI inherits the same rule: concurrent
//! readers are fine, a writer needs exclusive access to the buffer.
//!
//! # Code size on firmware
//!
//! On firmware (`target_os = "none"`: the Cortex-M builds of the C ABI),
//! flash is what counts: there the single-key calls ([`BloomMut::add`],
//! [`BloomMut::add_u64`], [`BloomMut::add_hash`], [`Bloom::contains`],
//! [`Bloom::contains_u64`], [`Bloom::contains_hash`]) are one out-of-line
//! copy each, and so are the header checks ([`wrap`], [`wrap_mut`], and
//! those behind a token or a kept view: [`wrap_with`], [`wrap_trusted`],
//! the token's decoding behind them and behind [`with_view_mut`]),
//! instead of a copy of the hashing, probing, counting and checks in each
//! of the C ABI's 18 single-key functions and their full paths (18.3 KB of
//! the Bloom functions' 72.7 KB on a Cortex-M4F, 33 KB of 98.8 KB on a
//! Cortex-M0+). The code is the same on every target (the C ABI's
//! `_inline` fast paths are not compiled for 32-bit targets); only where
//! it is placed differs. On every other target these stay in line, as
//! before (the host libraries' bytes did not change).

use crate::error::{Error, Result};
use crate::filter::{self, CapacityFlags};
use crate::hash::{self, HashKind, KeyHasher};
use crate::image::{self, get_f64, get_u32, get_u64, put_f64, put_u32, put_u64};
use crate::image::{CommonHeader, FamilyId, Fresh, ImageFamily, Token};
#[cfg(target_has_atomic = "64")]
use crate::shared::AtomicWords;
#[cfg(target_has_atomic = "64")]
use core::sync::atomic::Ordering;

/// Byte length of the Bloom header (common + family header).
pub const HEADER_LEN: usize = 112;
/// Largest bit count accepted.
pub const MAX_BITS: u64 = 1 << 56;
/// Largest number of probes per key.
pub const MAX_HASHES: u32 = 64;

const OFF_BITS: usize = 48;
const OFF_HASHES: usize = 56;
const OFF_RESERVED_A: usize = 60;
const OFF_PLANNED_ITEMS: usize = 64;
const OFF_PLANNED_FPR: usize = 72;
const OFF_ADD_CALLS: usize = 80;
const OFF_INSERTED: usize = 88;
const OFF_SET_BITS: usize = 96;
const OFF_RESERVED_B: usize = 104;

/// Parameters of a Bloom filter: bits, probes, and what it was planned for.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BloomParams {
    /// Number of bits `m`.
    pub bits: u64,
    /// Probes per key `k`.
    pub hashes: u32,
    /// Items the filter is planned for (drives the over-capacity signal).
    pub planned_items: u64,
    /// False-positive rate planned at `planned_items` (drives the over-capacity signal).
    pub planned_fpr: f64,
}

impl BloomParams {
    /// Where the probes of a Bloom filter with these parameters live (`shift`:
    /// log2 of the probes per byte, 3 for bits, 1 for the counting filter's
    /// 4-bit counters).
    #[inline(always)]
    pub(crate) fn layout(&self, shift: u32) -> filter::ProbeLayout {
        filter::ProbeLayout { hashes: self.hashes, range: self.bits, shift }
    }

    /// Plans from expected distinct items `n` and target false-positive rate
    /// `p` with the standard formulas `m = ⌈-n·ln p / ln²2⌉`,
    /// `k = round(m/n · ln 2)` (at least 1).
    ///
    /// Rates below about 2^-64 would need more than [`MAX_HASHES`] probes:
    /// then `k` = [`MAX_HASHES`] and `m` grows until `(1 - e^{-kn/m})^k <= p`
    /// (`m = ⌈-k·n / ln(1 - p^{1/k})⌉`), and the recorded planned rate is
    /// that achievable rate at `n` (at most `p`), so the over-capacity signal
    /// stays quiet until the filter really is past its plan.
    ///
    /// Errors: [`Error::InvalidParameter`] when `n = 0`, `p` is not in (0, 1)
    /// (NaN included) or `m` would exceed [`MAX_BITS`].
    pub fn for_items(items: u64, fpr: f64) -> Result<Self> {
        if items == 0 || !filter::valid_fpr(fpr) {
            return Err(Error::InvalidParameter);
        }
        let ln2 = core::f64::consts::LN_2;
        let n = items as f64;
        let mut bits = libm::ceil(-n * libm::log(fpr) / (ln2 * ln2));
        let ideal_hashes = libm::round(bits / n * ln2);
        let mut planned_fpr = fpr;
        if ideal_hashes > MAX_HASHES as f64 {
            let k = MAX_HASHES as f64;
            // (1 - e^{-kn/m})^k = p  <=>  m = -k n / ln(1 - p^{1/k})
            bits = libm::ceil(-k * n / libm::log1p(-libm::pow(fpr, 1.0 / k)));
            planned_fpr = classic_fpr(bits as u64, MAX_HASHES, n).min(fpr);
        }
        if !(bits >= 1.0 && bits <= MAX_BITS as f64 && filter::valid_fpr(planned_fpr)) {
            return Err(Error::InvalidParameter);
        }
        let hashes = ideal_hashes.clamp(1.0, MAX_HASHES as f64);
        Ok(BloomParams { bits: bits as u64, hashes: hashes as u32, planned_items: items, planned_fpr })
    }

    /// Explicit `m` bits and `k` probes. The planned items are the count at
    /// which `k` is optimal, `⌊m·ln 2 / k⌋` (at least 1), and the planned
    /// FPR is the classic `(1 - e^{-kn/m})^k` at that count.
    ///
    /// Errors: [`Error::InvalidParameter`] when `m` is 0 or above
    /// [`MAX_BITS`], or `k` is 0 or above [`MAX_HASHES`].
    pub fn with_bits(bits: u64, hashes: u32) -> Result<Self> {
        if bits == 0 || bits > MAX_BITS || hashes == 0 || hashes > MAX_HASHES {
            return Err(Error::InvalidParameter);
        }
        let items = libm::floor(bits as f64 * core::f64::consts::LN_2 / f64::from(hashes)).max(1.0);
        let fpr = classic_fpr(bits, hashes, items);
        Ok(BloomParams {
            bits,
            hashes,
            planned_items: items as u64,
            planned_fpr: fpr.clamp(f64::MIN_POSITIVE, 0.999_999),
        })
    }

    /// Checks every field (as stored in an image).
    pub fn validate(&self) -> Result<()> {
        let ok = self.bits >= 1
            && self.bits <= MAX_BITS
            && self.hashes >= 1
            && self.hashes <= MAX_HASHES
            && self.planned_items >= 1
            && filter::valid_fpr(self.planned_fpr);
        if ok {
            Ok(())
        } else {
            Err(Error::InvalidParameter)
        }
    }

    /// Exact image size in bytes for these parameters (header + body).
    pub fn image_len(&self) -> Result<u64> {
        self.validate()?;
        Ok(image_len_for_bits(self.bits))
    }

    /// Theoretical false-positive rate after `items` distinct insertions:
    /// `(1 - e^{-k·items/m})^k`, in `[0, 1]`. A negative count gives 0 (as
    /// [`crate::sbbf::theoretical_fpr`]; the formula alone gave a negative
    /// or huge "rate"), an infinite one 1, NaN NaN.
    pub fn fpr_at(&self, items: f64) -> f64 {
        if items < 0.0 {
            return 0.0;
        }
        classic_fpr(self.bits, self.hashes, items)
    }
}

fn body_len_for_bits(bits: u64) -> u64 {
    bits.div_ceil(64) * 8
}

fn image_len_for_bits(bits: u64) -> u64 {
    image::padded_len(HEADER_LEN as u64 + body_len_for_bits(bits))
}

/// Distinct items estimated from `set` set bits (Swamidass & Baldi):
/// `-m/k · ln(1 - X/m)`; infinite when every bit is set.
fn items_from_set_bits(params: &BloomParams, set: u64) -> f64 {
    let m = params.bits as f64;
    let x = set as f64;
    if x >= m {
        return f64::INFINITY;
    }
    -m / f64::from(params.hashes) * libm::log1p(-x / m)
}

/// The false-positive rate `(X/m)^k` of `set_bits` = X set bits.
fn fill_fpr(params: &BloomParams, set_bits: u64) -> f64 {
    let fill = set_bits.min(params.bits) as f64 / params.bits as f64;
    libm::pow(fill, f64::from(params.hashes))
}

/// The over-capacity flags of a filter with these counters.
fn capacity_of(params: &BloomParams, inserted: u64, set_bits: u64) -> CapacityFlags {
    CapacityFlags::evaluate(inserted, params.planned_items, fill_fpr(params, set_bits), params.planned_fpr)
}

fn classic_fpr(bits: u64, hashes: u32, items: f64) -> f64 {
    let k = f64::from(hashes);
    libm::pow(-libm::expm1(-k * items / bits as f64), k)
}

/// Statistics of a Bloom filter (see [`Bloom::stats`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct BloomStats {
    /// The filter's parameters.
    pub params: BloomParams,
    /// Hash seed.
    pub seed: u64,
    /// Number of add calls (duplicates included).
    pub add_calls: u64,
    /// Add calls that set at least one new bit (≈ distinct items inserted).
    pub inserted: u64,
    /// Number of bits set.
    pub set_bits: u64,
    /// Fraction of bits set, 0..=1.
    pub fill: f64,
    /// Distinct items estimated from the set bits, `-m/k · ln(1 - X/m)`
    /// (infinite when every bit is set).
    pub estimated_items: f64,
    /// Current false-positive rate estimated from the set bits, `(X/m)^k`.
    pub estimated_fpr: f64,
    /// Over-capacity signal.
    pub capacity: CapacityFlags,
}

/// Marker type tying the Bloom layout to the image format.
pub struct BloomImage;

/// Validated Bloom layout.
#[derive(Copy, Clone, Debug)]
pub struct BloomLayout {
    params: BloomParams,
}

impl ImageFamily for BloomImage {
    const FAMILY: FamilyId = FamilyId::Bloom;
    type Layout = BloomLayout;

    #[inline]
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<BloomLayout> {
        let params = shape(common, image)?;
        let field = |v: Option<u64>| v.ok_or(Error::BufferTooSmall);
        let add_calls = field(get_u64(image, OFF_ADD_CALLS))?;
        let inserted = field(get_u64(image, OFF_INSERTED))?;
        let set_bits = field(get_u64(image, OFF_SET_BITS))?;
        if inserted > add_calls || set_bits > params.bits {
            return Err(Error::CorruptHeader);
        }
        Ok(BloomLayout { params })
    }

    #[inline]
    fn body_len(_common: &CommonHeader, layout: &BloomLayout) -> usize {
        body_len_for_bits(layout.params.bits) as usize
    }

    /// Bits; hashes with the reserved half word; planned items; planned rate.
    const IDENTITY: &'static [(usize, u64)] = &[
        (OFF_BITS, u64::MAX),
        (OFF_HASHES, u64::MAX),
        (OFF_PLANNED_ITEMS, u64::MAX),
        (OFF_PLANNED_FPR, u64::MAX),
    ];
}

/// The immutable part of the header checks: hash, header length, flags,
/// parameters, reserved fields and the image length they imply (`header`
/// holds at least the family header). The counters are checked by
/// `validate` only: they change under concurrent adds.
#[inline]
fn shape(common: &CommonHeader, header: &[u8]) -> Result<BloomParams> {
    if common.hash != HashKind::Xxh3 {
        return Err(Error::UnsupportedHash);
    }
    if common.header_len != HEADER_LEN || common.flags != 0 {
        return Err(Error::CorruptHeader);
    }
    let field = |v: Option<u64>| v.ok_or(Error::BufferTooSmall);
    let params = BloomParams {
        bits: field(get_u64(header, OFF_BITS))?,
        hashes: field(get_u32(header, OFF_HASHES).map(u64::from))? as u32,
        planned_items: field(get_u64(header, OFF_PLANNED_ITEMS))?,
        planned_fpr: get_f64(header, OFF_PLANNED_FPR).ok_or(Error::BufferTooSmall)?,
    };
    params.validate().map_err(|_| Error::CorruptHeader)?;
    let reserved =
        field(get_u32(header, OFF_RESERVED_A).map(u64::from))? | field(get_u64(header, OFF_RESERVED_B))?;
    if reserved != 0 || common.image_len as u64 != image_len_for_bits(params.bits) {
        return Err(Error::CorruptHeader);
    }
    Ok(params)
}

/// Exact image size in bytes for `params` (the zstd-style "size first" call).
pub fn image_len(params: &BloomParams) -> Result<u64> {
    params.image_len()
}

/// Writes a fresh, empty filter into `buf` and returns a mutable view of it.
///
/// Errors: [`Error::InvalidParameter`] for bad `params`;
/// [`Error::Misaligned`] when `buf` is not 8-byte aligned;
/// [`Error::BufferTooSmall`] when `buf` is shorter than [`image_len`].
/// On error `buf` is not written.
pub fn init<'a>(buf: &'a mut [u8], params: &BloomParams, seed: u64) -> Result<BloomMut<'a>> {
    let image_len = params.image_len()?;
    let fresh = Fresh {
        family: FamilyId::Bloom,
        hash: HashKind::Xxh3,
        header_len: HEADER_LEN,
        flags: 0,
        seed,
        image_len,
    };
    let image = image::start_image(buf, fresh)?;
    put_u64(image, OFF_BITS, params.bits);
    put_u32(image, OFF_HASHES, params.hashes);
    put_u64(image, OFF_PLANNED_ITEMS, params.planned_items);
    put_f64(image, OFF_PLANNED_FPR, params.planned_fpr);
    wrap_mut(image)
}

/// Validates the live image at the start of `buf` (8-byte aligned) and returns
/// a read-only view. `buf` may be longer than the image.
///
/// Errors: [`Error::Misaligned`], [`Error::BufferTooSmall`], [`Error::BadMagic`],
/// [`Error::UnsupportedVersion`], [`Error::WrongFamily`], [`Error::UnsupportedHash`],
/// [`Error::CorruptHeader`]. The body is not checksummed (zero-copy path).
// In line on every target but firmware (see "Code size on firmware").
#[cfg_attr(not(target_os = "none"), inline)]
#[cfg_attr(target_os = "none", inline(never))]
pub fn wrap(buf: &[u8]) -> Result<Bloom<'_>> {
    let p = image::split::<BloomImage>(buf)?;
    Ok(Bloom { header: p.header, body: p.body, params: p.layout.params, seed: p.common.seed })
}

/// Like [`wrap`], returning a mutable view.
// In line on every target but firmware (see "Code size on firmware").
#[cfg_attr(not(target_os = "none"), inline)]
#[cfg_attr(target_os = "none", inline(never))]
pub fn wrap_mut(buf: &mut [u8]) -> Result<BloomMut<'_>> {
    let p = image::split_mut::<BloomImage>(buf)?;
    Ok(BloomMut { header: p.header, body: p.body, params: p.layout.params, seed: p.common.seed })
}

/// Validates the live image in `buf` as [`wrap`] does and returns its
/// [`Token`], which [`wrap_with`] and [`wrap_mut_with`] take to skip the
/// header checks on later calls. Errors: as [`wrap`].
pub fn token(buf: &[u8]) -> Result<Token> {
    image::token::<BloomImage>(buf)
}

/// The parameters, seed and body end decoded from `token`'s words: with
/// `COMPARE`, only when `buf`'s identity matches the token (see [`Token`]),
/// the words then being the image's; without, from the token alone (a
/// kept view, see [`wrap_trusted`]). `None` when the identity differs, the
/// token is another family's or a word is out of range.
// In line on every target but firmware (see "Code size on firmware").
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
fn trusted<const COMPARE: bool>(buf: &[u8], token: &Token) -> Option<(BloomParams, u64, usize)> {
    // Without `COMPARE` only the token is read: it must be one of this
    // family (a view of another family's image decodes to garbage).
    let ours = if COMPARE {
        image::token_matches::<BloomImage>(buf, token)
    } else {
        image::token_is::<BloomImage>(token)
    };
    if !ours {
        return None;
    }
    let [_, _, seed, _, bits, hashes, planned_items, planned_fpr] = token.words;
    // Equal to validated words unless the token was filled by hand: keep
    // the bounds that make every call finite (probes) and in range.
    if !(1..=MAX_BITS).contains(&bits) || !(1..=u64::from(MAX_HASHES)).contains(&hashes) {
        return None;
    }
    let params =
        BloomParams { bits, hashes: hashes as u32, planned_items, planned_fpr: f64::from_bits(planned_fpr) };
    let end = HEADER_LEN.checked_add(usize::try_from(body_len_for_bits(bits)).ok()?)?;
    (end <= buf.len()).then_some((params, seed, end))
}

/// [`wrap`], skipping the header checks when `buf`'s identity equals
/// `token`'s (see [`Token`]: a stale or zero token only costs the full
/// validation). Errors: as [`wrap`].
#[inline(always)]
pub fn wrap_with<'a>(buf: &'a [u8], token: &Token) -> Result<Bloom<'a>> {
    wrap_by::<true>(buf, token)
}

/// [`wrap_mut`], skipping the header checks as [`wrap_with`] does.
#[inline(always)]
pub fn wrap_mut_with<'a>(buf: &'a mut [u8], token: &Token) -> Result<BloomMut<'a>> {
    with_view_mut(buf, token, |view| view)
}

/// Runs `f` on the view [`wrap_mut_with`] gives and returns its result
/// (the C ABI's single adds with a token). Only the token path is inlined:
/// a stale token runs the full validation and `f` out of line, so the view
/// of the token path stays in registers. (Merging the two paths' views
/// into one `Result` first sent it through the stack in pieces that wider
/// loads read back, the pattern of a store-forwarding stall.)
/// Errors: as [`wrap_mut`].
#[inline(always)]
pub fn with_view_mut<'a, R>(
    buf: &'a mut [u8],
    token: &Token,
    f: impl FnOnce(BloomMut<'a>) -> R,
) -> Result<R> {
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
pub fn wrap_trusted<'a>(buf: &'a [u8], token: &Token) -> Result<Bloom<'a>> {
    wrap_by::<false>(buf, token)
}

/// [`wrap_mut`] of the image a kept view describes, as [`wrap_trusted`].
#[inline(always)]
pub fn wrap_mut_trusted<'a>(buf: &'a mut [u8], token: &Token) -> Result<BloomMut<'a>> {
    with_trusted_view_mut(buf, token, |view| view)
}

/// [`with_view_mut`] for a kept view: the view of [`wrap_mut_trusted`].
/// Errors: as [`wrap_mut`], only after the fallback.
#[inline(always)]
pub fn with_trusted_view_mut<'a, R>(
    buf: &'a mut [u8],
    token: &Token,
    f: impl FnOnce(BloomMut<'a>) -> R,
) -> Result<R> {
    with_view_mut_by::<false, R>(buf, token, f)
}

/// [`wrap_trusted`] without its fallback: None when the token's words are
/// out of range, for a fast path that hands such calls to its full path.
#[inline(always)]
pub fn try_wrap_trusted<'a>(buf: &'a [u8], token: &Token) -> Option<Bloom<'a>> {
    try_wrap_by::<false>(buf, token)
}

/// [`wrap_mut_trusted`] without its fallback, as [`try_wrap_trusted`].
#[inline(always)]
pub fn try_wrap_mut_trusted<'a>(buf: &'a mut [u8], token: &Token) -> Option<BloomMut<'a>> {
    try_wrap_mut_by::<false>(buf, token)
}

/// [`wrap_with`] without its fallback: None when `buf`'s identity differs
/// from `token`'s, for the fast path of a `_with_token` call.
#[inline(always)]
pub fn try_wrap_with<'a>(buf: &'a [u8], token: &Token) -> Option<Bloom<'a>> {
    try_wrap_by::<true>(buf, token)
}

/// [`wrap_mut_with`] without its fallback, as [`try_wrap_with`].
#[inline(always)]
pub fn try_wrap_mut_with<'a>(buf: &'a mut [u8], token: &Token) -> Option<BloomMut<'a>> {
    try_wrap_mut_by::<true>(buf, token)
}

#[inline(always)]
fn try_wrap_by<'a, const COMPARE: bool>(buf: &'a [u8], token: &Token) -> Option<Bloom<'a>> {
    let (params, seed, end) = trusted::<COMPARE>(buf, token)?;
    let (header, body) = buf.get(..end)?.split_at_checked(HEADER_LEN)?;
    Some(Bloom { header, body, params, seed })
}

#[inline(always)]
fn try_wrap_mut_by<'a, const COMPARE: bool>(buf: &'a mut [u8], token: &Token) -> Option<BloomMut<'a>> {
    let (params, seed, end) = trusted::<COMPARE>(buf, token)?;
    let (header, body) = buf.get_mut(..end)?.split_at_mut_checked(HEADER_LEN)?;
    Some(BloomMut { header, body, params, seed })
}

// In line on every target but firmware (see "Code size on firmware").
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
fn wrap_by<'a, const COMPARE: bool>(buf: &'a [u8], token: &Token) -> Result<Bloom<'a>> {
    let Some((params, seed, end)) = trusted::<COMPARE>(buf, token) else {
        return wrap_cold(buf);
    };
    let image = buf.get(..end).ok_or(Error::CorruptHeader)?;
    let (header, body) = image.split_at_checked(HEADER_LEN).ok_or(Error::CorruptHeader)?;
    Ok(Bloom { header, body, params, seed })
}

#[inline(always)]
fn with_view_mut_by<'a, const COMPARE: bool, R>(
    buf: &'a mut [u8],
    token: &Token,
    f: impl FnOnce(BloomMut<'a>) -> R,
) -> Result<R> {
    let Some((params, seed, end)) = trusted::<COMPARE>(buf, token) else {
        return with_full_validation_mut(buf, f);
    };
    let image = buf.get_mut(..end).ok_or(Error::CorruptHeader)?;
    let (header, body) = image.split_at_mut_checked(HEADER_LEN).ok_or(Error::CorruptHeader)?;
    Ok(f(BloomMut { header, body, params, seed }))
}

#[cold]
#[inline(never)]
fn with_full_validation_mut<'a, R>(buf: &'a mut [u8], f: impl FnOnce(BloomMut<'a>) -> R) -> Result<R> {
    wrap_mut(buf).map(f)
}

#[cold]
#[inline(never)]
fn wrap_cold(buf: &[u8]) -> Result<Bloom<'_>> {
    wrap(buf)
}

/// The number of bytes [`export`] writes for the live image in `src` (its
/// image length), so a destination can be sized first. Errors: image errors.
pub fn exported_len(src: &[u8]) -> Result<usize> {
    image::exported_len::<BloomImage>(src)
}

/// Copies the live image in `src` to `dst` with its checksum (the checked
/// serialized form). Returns the bytes written (the image length).
///
/// Errors: as [`crate::image::export`].
pub fn export(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::export::<BloomImage>(src, dst)
}

/// Bytes of the live image that importing the exported image `src` writes
/// (allocate this much, 64-byte aligned, before [`import`]). Checks the
/// headers and the length, not the checksum.
///
/// Errors: as [`crate::image::import_len`].
pub fn import_len(src: &[u8]) -> Result<usize> {
    image::import_len::<BloomImage>(src)
}

/// Verifies untrusted bytes (exact length, headers, checksum) and copies them
/// into the 8-byte aligned `dst`. `dst` is written only on success.
/// Returns the image length.
///
/// Errors: as [`crate::image::import`].
pub fn import(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::import::<BloomImage>(src, dst)
}

/// Verifies untrusted bytes in place (exact length, headers, checksum)
/// without copying, for example an `mmap`ed file.
///
/// Errors: as [`crate::image::verify`].
pub fn verify(bytes: &[u8]) -> Result<()> {
    image::verify::<BloomImage>(bytes).map(|_| ())
}

#[inline(always)]
fn test_bits(body: &[u8], bits: u64, hashes: u32, h: u64) -> bool {
    for bit in hash::probes(h, hashes, bits) {
        let byte = body.get((bit >> 3) as usize).copied().unwrap_or(0);
        if byte & (1u8 << (bit & 7)) == 0 {
            return false;
        }
    }
    true
}

/// Sets the probes of `h`; returns how many bits were newly set.
#[inline(always)]
fn set_bits(body: &mut [u8], bits: u64, hashes: u32, h: u64) -> u64 {
    set_bits_at(body, hash::probes(h, hashes, bits))
}

/// Sets the bits at `positions` (bit indexes into `body`); returns how
/// many were newly set.
#[inline(always)]
fn set_bits_at(body: &mut [u8], positions: impl Iterator<Item = u64>) -> u64 {
    let mut new = 0u64;
    for bit in positions {
        if let Some(byte) = body.get_mut((bit >> 3) as usize) {
            let mask = 1u8 << (bit & 7);
            new += u64::from(*byte & mask == 0);
            *byte |= mask;
        }
    }
    new
}

fn count_set_bits(body: &[u8], bits: u64) -> u64 {
    // Bits past `m` in the last word are never probed; a damaged image may
    // have them set, so they are excluded from the count.
    let full = (bits / 8) as usize;
    let head = body.get(..full).unwrap_or(body);
    let mut total = filter::count_ones(head);
    if !bits.is_multiple_of(8) {
        let mask = (1u8 << (bits % 8)) - 1;
        total += u64::from((body.get(full).copied().unwrap_or(0) & mask).count_ones());
    }
    total
}

/// The set bits of `body` at or past bit `bits` (never probed; set only in a
/// damaged image), which [`count_set_bits`] leaves out. Reads at most the
/// last 8 bytes.
fn set_bits_past_end(body: &[u8], bits: u64) -> u64 {
    let full = (bits / 8) as usize;
    let tail = filter::count_ones(body.get(full..).unwrap_or(&[]));
    let kept = (1u8 << (bits % 8)) - 1;
    tail.saturating_sub(u64::from((body.get(full).copied().unwrap_or(0) & kept).count_ones()))
}

/// A read-only view of a validated Bloom image. Cheap to copy; `Sync`.
#[derive(Copy, Clone)]
pub struct Bloom<'a> {
    header: &'a [u8],
    body: &'a [u8],
    params: BloomParams,
    seed: u64,
}

crate::image::debug_view!(Bloom [params, seed]);

impl<'a> Bloom<'a> {
    /// The filter's parameters.
    pub fn params(&self) -> BloomParams {
        self.params
    }

    /// The hash seed stored in the image.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash of `key` this filter uses (XXH3-64 with the image seed).
    #[inline]
    pub fn hash_key(&self, key: &[u8]) -> u64 {
        hash::hash_bytes(key, self.seed)
    }

    /// The hash function and seed of this image, as a copyable value.
    pub fn key_hasher(&self) -> KeyHasher {
        KeyHasher { kind: HashKind::Xxh3, seed: self.seed }
    }

    /// True when `key` may have been added; false means it certainly was not.
    // In line on every target but firmware (see "Code size on firmware").
    #[cfg_attr(not(target_os = "none"), inline)]
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn contains(&self, key: &[u8]) -> bool {
        self.contains_hash(self.hash_key(key))
    }

    /// [`Bloom::contains`] with a key of at most [`hash::SHORT_KEY`] bytes
    /// hashed in line ([`hash::hash_bytes_inline`]): the same answer, for
    /// single-key fast paths.
    #[inline(always)]
    pub fn contains_inline(&self, key: &[u8]) -> bool {
        self.contains_hash(hash::hash_bytes_inline(key, self.seed))
    }

    /// [`Bloom::contains`] for an integer key (hashed as 8 little-endian bytes).
    // In line on every target but firmware (see "Code size on firmware").
    #[cfg_attr(not(target_os = "none"), inline)]
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn contains_u64(&self, key: u64) -> bool {
        self.contains_hash(hash::hash_u64(key, self.seed))
    }

    /// [`Bloom::contains`] for a precomputed hash ([`Bloom::hash_key`]).
    // In line on every target but firmware (see "Code size on firmware").
    #[cfg_attr(not(target_os = "none"), inline)]
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn contains_hash(&self, hash: u64) -> bool {
        test_bits(self.body, self.params.bits, self.params.hashes, hash)
    }

    /// Batch query: `results[i] = contains_hash(hashes[i])`. The first two
    /// probes of each key are read in rounds over groups of keys, without
    /// branching on them, which decides three absent keys in four at the
    /// design fill (see `filter::contains_by_rounds`).
    ///
    /// Errors: [`Error::InvalidArgument`] when the slices differ in length
    /// (nothing is written then).
    pub fn contains_hashes(&self, hashes: &[u64], results: &mut [bool]) -> Result<()> {
        if hashes.len() != results.len() {
            return Err(Error::InvalidArgument);
        }
        let body = self.body;
        filter::contains_by_rounds(hashes, results, self.params.hashes, self.params.bits, |bit| {
            (body.get((bit >> 3) as usize).copied().unwrap_or(0) >> (bit & 7)) & 1 != 0
        });
        Ok(())
    }

    fn counter(&self, off: usize) -> u64 {
        get_u64(self.header, off).unwrap_or(0)
    }

    /// Number of add calls so far.
    pub fn add_calls(&self) -> u64 {
        self.counter(OFF_ADD_CALLS)
    }

    /// Add calls that set at least one new bit.
    pub fn inserted(&self) -> u64 {
        self.counter(OFF_INSERTED)
    }

    /// Number of set bits (maintained on every update: O(1)).
    pub fn set_bits(&self) -> u64 {
        self.counter(OFF_SET_BITS).min(self.params.bits)
    }

    /// Current false-positive rate estimated from the set bits, `(X/m)^k`. O(1).
    pub fn estimated_fpr(&self) -> f64 {
        fill_fpr(&self.params, self.set_bits())
    }

    /// Distinct items estimated from the set bits (Swamidass & Baldi):
    /// `-m/k · ln(1 - X/m)`; infinite when every bit is set. O(1).
    pub fn estimated_items(&self) -> f64 {
        items_from_set_bits(&self.params, self.set_bits())
    }

    /// The over-capacity signal, O(1): see [`CapacityFlags`].
    pub fn capacity(&self) -> CapacityFlags {
        capacity_of(&self.params, self.inserted(), self.set_bits())
    }

    /// All statistics at once. O(1).
    pub fn stats(&self) -> BloomStats {
        let set_bits = self.set_bits();
        BloomStats {
            params: self.params,
            seed: self.seed,
            add_calls: self.add_calls(),
            inserted: self.inserted(),
            set_bits,
            fill: set_bits as f64 / self.params.bits as f64,
            estimated_items: self.estimated_items(),
            estimated_fpr: self.estimated_fpr(),
            capacity: self.capacity(),
        }
    }

    /// Counts the set bits by scanning the body (O(m)); equals
    /// [`Bloom::set_bits`] on an intact image.
    pub fn recount_set_bits(&self) -> u64 {
        count_set_bits(self.body, self.params.bits)
    }

    /// True when `other` can be merged with this filter: same `m`, `k` and seed.
    pub fn is_compatible(&self, other: &Bloom<'_>) -> bool {
        self.params.bits == other.params.bits
            && self.params.hashes == other.params.hashes
            && self.seed == other.seed
    }

    /// The bit array (the body of the image).
    pub fn body(&self) -> &'a [u8] {
        self.body
    }
}

/// An exclusive, mutable view of a validated Bloom image.
pub struct BloomMut<'a> {
    header: &'a mut [u8],
    body: &'a mut [u8],
    params: BloomParams,
    seed: u64,
}

crate::image::debug_view!(BloomMut [params, seed]);

impl<'a> BloomMut<'a> {
    /// A read-only view of the same image.
    pub fn as_ref(&self) -> Bloom<'_> {
        Bloom { header: self.header, body: self.body, params: self.params, seed: self.seed }
    }

    /// Adds `key`; returns true when the key was new to the filter (at least
    /// one of its bits was unset): the one-call test-and-insert for dedup.
    // In line on every target but firmware (see "Code size on firmware").
    #[cfg_attr(not(target_os = "none"), inline)]
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn add(&mut self, key: &[u8]) -> bool {
        let h = hash::hash_bytes(key, self.seed);
        self.add_hash(h)
    }

    /// [`BloomMut::add`] with a key of at most [`hash::SHORT_KEY`] bytes
    /// hashed in line ([`hash::hash_bytes_inline`]): the same result, for
    /// single-key fast paths.
    #[inline(always)]
    pub fn add_inline(&mut self, key: &[u8]) -> bool {
        self.add_hash(hash::hash_bytes_inline(key, self.seed))
    }

    /// [`BloomMut::add`] for an integer key (hashed as 8 little-endian bytes).
    // In line on every target but firmware (see "Code size on firmware").
    #[cfg_attr(not(target_os = "none"), inline)]
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn add_u64(&mut self, key: u64) -> bool {
        self.add_hash(hash::hash_u64(key, self.seed))
    }

    /// [`BloomMut::add`] for a precomputed hash ([`Bloom::hash_key`]).
    // In line on every target but firmware (see "Code size on firmware").
    #[cfg_attr(not(target_os = "none"), inline)]
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn add_hash(&mut self, hash: u64) -> bool {
        let new = set_bits(self.body, self.params.bits, self.params.hashes, hash);
        self.bump(1, u64::from(new > 0), new);
        new > 0
    }

    /// Batch add. When `newly` is given (same length as `hashes`),
    /// `newly[i]` tells whether item `i` was new when it was added (a
    /// duplicate later in the same batch reports false).
    ///
    /// Errors: [`Error::InvalidArgument`] when `newly` has another length;
    /// nothing is added then.
    pub fn add_hashes(&mut self, hashes: &[u64], mut newly: Option<&mut [bool]>) -> Result<()> {
        if newly.as_ref().is_some_and(|n| n.len() != hashes.len()) {
            return Err(Error::InvalidArgument);
        }
        let (bits, k) = (self.params.bits, self.params.hashes);
        let (mut inserted, mut set) = (0u64, 0u64);
        let mut record = |i: usize, new: u64| {
            inserted += u64::from(new > 0);
            set += new;
            if let Some(slot) = newly.as_deref_mut().and_then(|n| n.get_mut(i)) {
                *slot = new > 0;
            }
        };
        // Every probe is set, so every probe is requested ahead.
        let layout = self.params.layout(3);
        let mut body = &mut *self.body;
        let ringed = layout.ringed(&mut body, hashes, |body, i, positions| {
            record(i, set_bits_at(body, positions.iter().copied()));
        });
        if !ringed {
            layout.pipelined(&mut body, hashes, k, |body, i, h| record(i, set_bits(body, bits, k, h)));
        }
        self.bump(hashes.len() as u64, inserted, set);
        Ok(())
    }

    fn bump(&mut self, calls: u64, inserted: u64, set: u64) {
        let bits = self.params.bits;
        let header = &mut *self.header;
        let add = |h: &mut [u8], off: usize, v: u64, max: u64| {
            let cur = get_u64(h, off).unwrap_or(0);
            put_u64(h, off, cur.saturating_add(v).min(max));
        };
        add(header, OFF_ADD_CALLS, calls, u64::MAX);
        add(header, OFF_INSERTED, inserted, u64::MAX);
        // An imported image whose header claims more set bits than its body
        // holds (forged, with a valid checksum) must not be pushed past what
        // validation accepts: every later call would fail.
        add(header, OFF_SET_BITS, set, bits);
    }

    /// Union: sets every bit set in `other` (bitwise OR). Afterwards the
    /// filter answers "maybe" for every key either filter did. The add-call
    /// counter becomes the sum. The inserted counter becomes the distinct
    /// items estimated from the union's set bits
    /// ([`Bloom::estimated_items`]), kept between the larger of the two
    /// counts and this count plus the smaller of `other`'s count and the
    /// bits the union set: unchanged when `other` adds no bit (a copy of
    /// this filter, or a subset), the distinct keys within the estimate's
    /// error when shards of partly the same keys are merged (so the
    /// over-planned-items signal follows the keys, not the partitioning).
    ///
    /// Errors: [`Error::Incompatible`] unless `m`, `k` and seed are equal;
    /// nothing changes then.
    pub fn union(&mut self, other: &Bloom<'_>) -> Result<()> {
        if !self.as_ref().is_compatible(other) {
            return Err(Error::Incompatible);
        }
        let counts = filter::or_into_counting(self.body, other.body);
        let set = counts.set_bits.saturating_sub(set_bits_past_end(self.body, self.params.bits));
        let calls = self.as_ref().add_calls().saturating_add(other.add_calls());
        let estimated = items_from_set_bits(&self.params, set);
        let inserted =
            filter::union_inserted(self.as_ref().inserted(), other.inserted(), counts.new_bits, estimated);
        self.set_counters(calls, inserted, set);
        Ok(())
    }

    /// Intersection: keeps only bits set in both (bitwise AND). Keys added
    /// to both filters stay "maybe"; the false-positive rate can be higher
    /// than a filter built from the intersection of the sets. The counters
    /// become the minimum of both (an upper bound).
    ///
    /// Errors: [`Error::Incompatible`] unless `m`, `k` and seed are equal.
    pub fn intersect(&mut self, other: &Bloom<'_>) -> Result<()> {
        if !self.as_ref().is_compatible(other) {
            return Err(Error::Incompatible);
        }
        filter::and_into(self.body, other.body);
        let calls = self.as_ref().add_calls().min(other.add_calls());
        let inserted = self.as_ref().inserted().min(other.inserted());
        self.set_counters(calls, inserted, count_set_bits(self.body, self.params.bits));
        Ok(())
    }

    fn set_counters(&mut self, calls: u64, inserted: u64, set: u64) {
        put_u64(self.header, OFF_ADD_CALLS, calls);
        put_u64(self.header, OFF_INSERTED, inserted.min(calls));
        put_u64(self.header, OFF_SET_BITS, set);
    }

    /// Removes every item: zeroes the bits and the counters.
    pub fn clear(&mut self) {
        self.body.fill(0);
        self.set_counters(0, 0, 0);
    }
}

#[cfg(target_has_atomic = "64")]
/// A shared view of a live Bloom image that many threads may add to at
/// once (see [`crate::shared`]): probes are set with atomic `fetch_or`, the
/// add-call, inserted and set-bit counters with atomic additions.
///
/// Once every add has returned, the bits and the add-call and set-bit
/// counters equal those of the same adds made one at a time; "inserted"
/// (adds that set a new bit) depends on the order, so it may differ from a
/// sequential run's (it still counts every add that set a bit, and never
/// exceeds the add calls). Queries through this view see every add that
/// returned before them.
#[derive(Copy, Clone)]
pub struct SharedBloom<'a> {
    words: AtomicWords<'a>,
    params: BloomParams,
    seed: u64,
}

#[cfg(target_has_atomic = "64")]
crate::image::debug_view!(SharedBloom [params, seed] shared);

#[cfg(target_has_atomic = "64")]
/// Word of the first body byte.
const BODY_WORD: usize = HEADER_LEN / 8;

#[cfg(target_has_atomic = "64")]
/// Validates the immutable header of a live image seen as atomic words and
/// returns the shared view. Errors: as [`wrap`] for the header.
pub fn wrap_shared(words: AtomicWords<'_>) -> Result<SharedBloom<'_>> {
    let header: [u8; HEADER_LEN] = words.snapshot();
    let common = words.common(&header, FamilyId::Bloom)?;
    let params = shape(&common, &header)?;
    Ok(SharedBloom { words, params, seed: common.seed })
}

#[cfg(target_has_atomic = "64")]
impl SharedBloom<'_> {
    /// The filter's parameters.
    pub fn params(&self) -> BloomParams {
        self.params
    }

    /// Adds a byte key; true when some probed bit was new. Thread-safe.
    #[inline]
    pub fn add(&self, key: &[u8]) -> bool {
        self.add_hash(hash::hash_bytes(key, self.seed))
    }

    /// Adds an integer key (8 little-endian bytes). Thread-safe.
    #[inline]
    pub fn add_u64(&self, key: u64) -> bool {
        self.add_hash(hash::hash_u64(key, self.seed))
    }

    /// Adds a precomputed hash. Thread-safe.
    #[inline]
    pub fn add_hash(&self, h: u64) -> bool {
        let new = self.set_probes(h);
        self.count_adds(1, u64::from(new > 0), new);
        new > 0
    }

    /// Sets the probed bits of `h` and returns how many this call set. A
    /// word whose bit is already set is only read: bits are never cleared
    /// while the image is shared, and a plain load keeps the cache line
    /// shared between threads where a `fetch_or` would take it exclusively.
    #[inline(always)]
    fn set_probes(&self, h: u64) -> u64 {
        let mut new = 0u64;
        for bit in hash::probes(h, self.params.hashes, self.params.bits) {
            let (word, mask) = (BODY_WORD + (bit >> 6) as usize, 1u64 << (bit & 63));
            if self.words.load(word) & mask == 0 {
                new += u64::from(self.words.fetch_or(word, mask) & mask == 0);
            }
        }
        new
    }

    /// Adds to the header counters: `calls` add calls, `inserted` of them
    /// setting a bit, `set_bits` bits set. Saturating, and the set-bit count
    /// clamped to m, as the plain adds do: a forged header must not make the
    /// image unusable.
    fn count_adds(&self, calls: u64, inserted: u64, set_bits: u64) {
        let bump = |off: usize, by: u64, max: u64| {
            self.words.update(off / 8, Ordering::Relaxed, |v| Some(v.saturating_add(by).min(max)));
        };
        bump(OFF_ADD_CALLS, calls, u64::MAX);
        if inserted > 0 {
            bump(OFF_INSERTED, inserted, u64::MAX);
            bump(OFF_SET_BITS, set_bits, self.params.bits);
        }
    }

    /// Adds a batch of hashes; `newly` (when given, the same length) gets
    /// per hash whether it set a new bit. The header counters are updated
    /// once per batch (the same totals as single adds), so threads adding
    /// batches do not contend for the header. Errors:
    /// [`Error::InvalidArgument`] on a length mismatch (nothing added).
    pub fn add_hashes(&self, hashes: &[u64], mut newly: Option<&mut [bool]>) -> Result<()> {
        if newly.as_ref().is_some_and(|out| out.len() != hashes.len()) {
            return Err(Error::InvalidArgument);
        }
        let (mut inserted, mut set_bits) = (0u64, 0u64);
        for (i, h) in hashes.iter().enumerate() {
            // The probes of the key a few places ahead load while this one is set.
            if let Some(ahead) = hashes.get(i + crate::filter::PREFETCH_DISTANCE) {
                for bit in hash::probes(*ahead, self.params.hashes, self.params.bits) {
                    self.words.prefetch(BODY_WORD + (bit >> 6) as usize);
                }
            }
            let new = self.set_probes(*h);
            inserted += u64::from(new > 0);
            set_bits += new;
            if let Some(slot) = newly.as_deref_mut().and_then(|out| out.get_mut(i)) {
                *slot = new > 0;
            }
        }
        self.count_adds(hashes.len() as u64, inserted, set_bits);
        Ok(())
    }

    /// The over-capacity signal, O(1), as [`Bloom::capacity`], from the
    /// inserted and set-bit counters (atomic loads): a writer can watch for
    /// overfill without copying the image out. Thread-safe. Exact once
    /// every add has returned; while adds run, each counter reads as some
    /// value it passed through, so a flag may show an add or two late, and
    /// "inserted" depends on the order of concurrent adds (see
    /// [`SharedBloom`]).
    pub fn capacity(&self) -> CapacityFlags {
        let counter = |off: usize| self.words.load(off / 8);
        capacity_of(&self.params, counter(OFF_INSERTED), counter(OFF_SET_BITS))
    }

    /// Tests a precomputed hash (false: certainly never added). Thread-safe.
    #[inline]
    pub fn contains_hash(&self, h: u64) -> bool {
        hash::probes(h, self.params.hashes, self.params.bits)
            .all(|bit| self.words.load(BODY_WORD + (bit >> 6) as usize) & (1u64 << (bit & 63)) != 0)
    }

    /// Tests a byte key. Thread-safe.
    #[inline]
    pub fn contains(&self, key: &[u8]) -> bool {
        self.contains_hash(hash::hash_bytes(key, self.seed))
    }

    /// Tests an integer key (8 little-endian bytes), the query of
    /// [`SharedBloom::add_u64`]. Thread-safe.
    #[inline]
    pub fn contains_u64(&self, key: u64) -> bool {
        self.contains_hash(hash::hash_u64(key, self.seed))
    }

    /// The hash function of the image.
    pub fn key_hasher(&self) -> KeyHasher {
        KeyHasher { kind: HashKind::Xxh3, seed: self.seed }
    }
}

#[cfg(test)]
mod tests;
