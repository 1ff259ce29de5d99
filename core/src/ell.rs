//! ExaLogLog (Ertl, "ExaLogLog: Space-Efficient and Practical Approximate
//! Distinct Counting up to the Exa-Scale", 2024, arXiv 2402.13726).
//!
//! A register remembers the largest update value `u` its hashes gave and,
//! in `d` history bits, which of the `d` values below `u` were seen. Update
//! values follow a geometric distribution refined by `t` extra hash bits
//! (base `2^(2^-t)`), so a register carries more information per bit than
//! HyperLogLog's (6 bits) or UltraLogLog's (8 bits). Two of the paper's
//! recommended configurations ([`EllConfig`]): `t = 2, d = 20` (28-bit
//! registers, memory-variance product 3.67 with the maximum-likelihood
//! estimator, against 6.45 for HyperLogLog) and `t = 2, d = 24` (32-bit
//! registers, 3.78). Precision `p` in 2..=24 gives `m = 2^p` registers.
//!
//! # Example
//!
//! ```
//! use sketches_core::ell::{self, EllConfig};
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! let (config, p) = (EllConfig::T2D20, 10); // 1,024 registers of 28 bits
//! assert!(ell::image_len(config, p)? <= 4096); // 3,712 bytes
//! let sigma = ell::ml_standard_error(config, p); // about 1.1%
//!
//! let (mut buf_a, mut buf_b) = (ImageBuf::<4096>::new(), ImageBuf::<4096>::new());
//! let mut a = ell::init(&mut buf_a, config, p, 0)?;
//! let mut b = ell::init(&mut buf_b, config, p, 0)?;
//! for i in 0..20_000u64 {
//!     a.add_u64(i);
//!     b.add_u64(i + 20_000);
//! }
//! a.merge(&b.as_ref())?; // the union; the estimate is now the ML one
//! let estimate = a.as_ref().estimate();
//! assert!((estimate / 40_000.0 - 1.0).abs() < 4.0 * sigma, "{estimate}");
//!
//! let mut wire = [0u8; 4096];
//! let n = ell::export(&buf_a, &mut wire)?;
//! let mut copy = ImageBuf::<4096>::new();
//! ell::import(&wire[..n], &mut copy)?;
//! assert_eq!(ell::wrap(&copy)?.estimate(), estimate);
//! # Ok(())
//! # }
//! ```
//!
//! **Hashing and registers** (the paper's, and its reference code's, bit
//! layout, so register values are those of hash4j's ExaLogLog for the same
//! 64-bit hashes): `sub` = the low `t` bits of the hash, register index `i`
//! = the next `p` bits, `nlz` = the number of leading zeros of the hash
//! with its low `p + t` bits set (`0 ..= 64 - p - t`); update value
//! `k = (nlz << t) + sub + 1`. Register `r = (u << d) | h`: bit `d - j` of
//! `h` tells whether value `u - j` was seen (`j = 1..=d`); value 0 counts
//! as seen (a non-empty register with `u <= d` has bit `d - u` set and the
//! bits below it clear); the empty register is 0. Update with `k > u`:
//! `r = (k << d) | ((h | 2^d) >> (k - u))` (no history when `k - u > d`);
//! with `u - d <= k < u`: set bit `d - (u - k)`.
//!
//! **Estimators.** [`Ell::ml_estimate`] solves the maximum-likelihood
//! equation of the paper (Poisson model: each register knows, per update
//! value, seen / not seen / unknown) with Newton's method, divided by the
//! paper's first-order bias correction `1 + c_(t,d) / m`; relative standard
//! error about `0.3622 / sqrt(m)` (d = 20) and `0.3438 / sqrt(m)` (d = 24).
//! While a sketch saw only its own stream, the martingale estimate (each
//! state change adds `1 / P`, `P` the probability that a new distinct hash
//! changes some register, kept exactly as a `u128` fixed-point sum in the
//! header) is read in O(1): about `0.3177 / sqrt(m)` and `0.3063 / sqrt(m)`.
//! A merge clears it.
//!
//! **Merging and reduction.** [`EllMut::merge`] takes a sketch of the same
//! seed and `t` whose `p` and `d` are at least this one's. Because the
//! index bits sit below the leading-zero bits, a lower precision changes
//! only the update values of the top level (`nlz = 64 - p - t`), which the
//! reduction shifts exactly as the paper describes; a smaller `d` drops the
//! oldest history bits. Merging disjoint parts gives exactly the registers
//! of one sketch of everything, at any reachable `(p, d)`.
//!
//! **No exact conversion to [`crate::ull`] / [`crate::hll`].** Those take
//! the register index from the top `p` hash bits; ExaLogLog (as published,
//! and reducible only that way) takes it from bits `t..t+p`. The same hashes
//! therefore land in different registers, and no register-level conversion
//! is exact. (With the top-bits index, ULL conversion would be exact but
//! the reduction to a lower `p` would not.)
//!
//! Image layout after the common header (little-endian):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 48 | 1 | `t` (2) |
//! | 49 | 1 | `d` (20 or 24) |
//! | 50 | 1 | precision `p` (2..=24) |
//! | 51 | 1 | 1 while the martingale estimate is valid, else 0 |
//! | 52 | 4 | reserved, 0 |
//! | 56 | 8 | martingale estimate (f64); 0 when not valid |
//! | 64 | 16 | `u128` sum over registers of their change probability in units of 2^-64 (valid only with the flag; else 0) |
//! | 80 | 48 | reserved, 0 |
//! | 128 | `(6 + t + d) m / 8` | registers: register `i` is bits `(6+t+d) i ..` of the area, least significant bit first; then zero padding to a multiple of 64 bytes |
//!
//! Thread-safety: [`Ell`] is a shared view (any number of readers);
//! [`EllMut`] is exclusive.

use crate::error::{Error, Result};
use crate::hash::{self, HashKind, KeyHasher};
use crate::image::{self, CommonHeader, FamilyId, Fresh, ImageFamily};
use crate::simd;

/// Byte length of the ExaLogLog header.
pub const HEADER_LEN: usize = 128;
/// Smallest precision `p` (4 registers).
pub const MIN_PRECISION: u8 = 2;
/// Largest precision `p` (2^24 registers; `p + t <= 26` as in the paper).
pub const MAX_PRECISION: u8 = 24;
/// Images are padded with zeros to a multiple of this many bytes.
pub const IMAGE_GRANULE: u64 = 64;

const OFF_T: usize = 48;
const OFF_D: usize = 49;
const OFF_PRECISION: usize = 50;
const OFF_MARTINGALE_VALID: usize = 51;
const OFF_MARTINGALE: usize = 56;
const OFF_CHANGE_WEIGHT: usize = 64;
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;

/// The paper's recommended register configurations.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EllConfig {
    /// `t = 2, d = 20`: 28-bit registers (the paper's most space-efficient
    /// practical choice with the ML estimator: MVP 3.67).
    T2D20,
    /// `t = 2, d = 24`: 32-bit registers (MVP 3.78; word-aligned registers).
    T2D24,
}

impl EllConfig {
    /// The configuration of `(t, d)`, if it is one of ours.
    pub const fn from_td(t: u8, d: u8) -> Option<EllConfig> {
        match (t, d) {
            (2, 20) => Some(EllConfig::T2D20),
            (2, 24) => Some(EllConfig::T2D24),
            _ => None,
        }
    }

    /// `t`: extra hash bits per update value.
    pub const fn t(self) -> u8 {
        2
    }

    /// `d`: history bits per register.
    pub const fn d(self) -> u8 {
        match self {
            EllConfig::T2D20 => 20,
            EllConfig::T2D24 => 24,
        }
    }

    /// Bits per register, `6 + t + d`.
    pub const fn register_bits(self) -> u32 {
        6 + self.t() as u32 + self.d() as u32
    }

    /// Relative standard error of the ML estimate times `sqrt(m)`:
    /// `sqrt(ln b / zeta(2, 1 + b^-d / (b - 1)))`, `b = 2^(2^-t)` (paper).
    pub const fn ml_error_constant(self) -> f64 {
        match self {
            EllConfig::T2D20 => 0.362_197_874_934_418_7,
            EllConfig::T2D24 => 0.343_758_386_774_550_6,
        }
    }

    /// Relative standard error of the martingale estimate times `sqrt(m)`:
    /// `sqrt(ln b / 2 · (1 + b^-d / (b - 1)))` (paper).
    pub const fn martingale_error_constant(self) -> f64 {
        match self {
            EllConfig::T2D20 => 0.317_732_079_424_119_9,
            EllConfig::T2D24 => 0.306_265_466_438_160_8,
        }
    }

    /// First-order relative bias of the ML estimate times `m` (the paper's
    /// published constants for `t = 2` and this `d`).
    const fn ml_bias_correction(self) -> f64 {
        match self {
            EllConfig::T2D20 => 0.105_538_243_071_734_4,
            EllConfig::T2D24 => 0.091_193_602_059_522_69,
        }
    }
}

/// The validated shape of a sketch.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EllLayout {
    config: EllConfig,
    p: u8,
}

impl EllLayout {
    const fn t(self) -> u32 {
        self.config.t() as u32
    }
    const fn d(self) -> u32 {
        self.config.d() as u32
    }
    const fn width(self) -> u32 {
        self.config.register_bits()
    }
    /// `w = 64 - p - t`: the largest `nlz`.
    const fn w(self) -> u32 {
        64 - self.p as u32 - self.t()
    }
    /// The largest update value, `(w << t) + 2^t`.
    const fn max_value(self) -> u32 {
        (self.w() << self.t()) + (1 << self.t())
    }
    const fn registers(self) -> usize {
        1usize << self.p
    }
    const fn register_bytes(self) -> usize {
        (self.width() as usize) << self.p >> 3
    }
}

fn check(config: EllConfig, p: u8) -> Result<EllLayout> {
    if !(MIN_PRECISION..=MAX_PRECISION).contains(&p) {
        return Err(Error::InvalidParameter);
    }
    Ok(EllLayout { config, p })
}

fn image_len_of(layout: EllLayout) -> u64 {
    (HEADER_LEN as u64 + layout.register_bytes() as u64).div_ceil(IMAGE_GRANULE) * IMAGE_GRANULE
}

/// Exact image size in bytes for `config` and precision `p` (header plus
/// registers, rounded up to a multiple of 64).
/// Errors: [`Error::InvalidParameter`] unless `2 <= p <= 24`.
pub fn image_len(config: EllConfig, p: u8) -> Result<u64> {
    check(config, p).map(image_len_of)
}

/// Asymptotic relative standard error of the ML estimate at precision `p`.
pub fn ml_standard_error(config: EllConfig, p: u8) -> f64 {
    config.ml_error_constant() / crate::simd::sqrt(libm::ldexp(1.0, i32::from(p)))
}

/// Asymptotic relative standard error of the martingale estimate at precision `p`.
pub fn martingale_standard_error(config: EllConfig, p: u8) -> f64 {
    config.martingale_error_constant() / crate::simd::sqrt(libm::ldexp(1.0, i32::from(p)))
}

/// Statistics of an ExaLogLog sketch.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EllStats {
    /// Register configuration.
    pub config: EllConfig,
    /// Precision `p`.
    pub precision: u8,
    /// Hash seed.
    pub seed: u64,
    /// Registers above zero.
    pub registers_set: u64,
    /// Distinct-count estimate (martingale while valid, else ML).
    pub estimate: f64,
    /// True when `estimate` is the martingale estimate.
    pub martingale: bool,
    /// The estimate's theoretical relative standard error.
    pub standard_error: f64,
    /// Image length in bytes.
    pub image_bytes: u64,
}

/// Marker type tying the ExaLogLog layout to the image format.
pub struct EllImage;

impl ImageFamily for EllImage {
    const FAMILY: FamilyId = FamilyId::ExaLogLog;
    type Layout = EllLayout;

    #[inline]
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<EllLayout> {
        if common.hash != HashKind::Xxh3 {
            return Err(Error::UnsupportedHash);
        }
        let byte = |off: usize| image.get(off).copied().ok_or(Error::BufferTooSmall);
        let reserved = image::zeroed(image, 52..56) && image::zeroed(image, 80..HEADER_LEN);
        if common.header_len != HEADER_LEN
            || common.flags != 0
            || !reserved
            || byte(OFF_MARTINGALE_VALID)? > 1
        {
            return Err(Error::CorruptHeader);
        }
        let config = EllConfig::from_td(byte(OFF_T)?, byte(OFF_D)?).ok_or(Error::CorruptHeader)?;
        let layout = check(config, byte(OFF_PRECISION)?).map_err(|_| Error::CorruptHeader)?;
        if image.len() as u64 != image_len_of(layout) {
            return Err(Error::CorruptHeader);
        }
        Ok(layout)
    }

    fn check_body(_common: &CommonHeader, layout: &EllLayout, image: &[u8]) -> Result<()> {
        check_body(image, *layout)
    }
}

fn check_body(image: &[u8], layout: EllLayout) -> Result<()> {
    let (header, body) = image.split_first_chunk::<HEADER_LEN>().ok_or(Error::BufferTooSmall)?;
    let (registers, padding) = body.split_at_checked(layout.register_bytes()).ok_or(Error::CorruptBody)?;
    if !padding.iter().all(|b| *b == 0) {
        return Err(Error::CorruptBody);
    }
    let mut total: u128 = 0;
    for i in 0..layout.registers() {
        let r = get_register(registers, layout.width(), i);
        if !is_legal_register(r, layout.config, layout.p) {
            return Err(Error::CorruptBody);
        }
        total += register_stats(r, layout, |_, _| {});
    }
    let estimate = image::get_f64(header, OFF_MARTINGALE).unwrap_or(f64::NAN);
    let stored = read_u128(header, OFF_CHANGE_WEIGHT);
    let consistent = if header.get(OFF_MARTINGALE_VALID) == Some(&1) {
        estimate.is_finite() && estimate >= 0.0 && stored == total
    } else {
        estimate.to_bits() == 0 && stored == 0
    };
    if consistent {
        Ok(())
    } else {
        Err(Error::CorruptBody)
    }
}

/// True when `r` is a register value some stream of hashes can produce for
/// `config` at precision `p`: 0, or `1 <= u <=` the largest update value
/// with, when `u <= d`, bit `d - u` (value 0) set and the bits below clear.
pub const fn is_legal_register(r: u32, config: EllConfig, p: u8) -> bool {
    let layout = EllLayout { config, p };
    let d = layout.d();
    let u = r >> d;
    if u == 0 {
        return r == 0;
    }
    if u > layout.max_value() {
        return false;
    }
    u > d || r & ((2 << (d - u)) - 1) == 1 << (d - u)
}

#[inline(always)]
fn read_u128(bytes: &[u8; HEADER_LEN], off: usize) -> u128 {
    let lo = image::get_u64(bytes, off).unwrap_or(0);
    let hi = image::get_u64(bytes, off + 8).unwrap_or(0);
    (u128::from(hi) << 64) | u128::from(lo)
}

#[inline(always)]
fn write_u128(bytes: &mut [u8; HEADER_LEN], off: usize, value: u128) {
    image::put_u64(bytes, off, value as u64);
    image::put_u64(bytes, off + 8, (value >> 64) as u64);
}

/// The register index and update value of `hash` (see the module docs).
#[inline(always)]
fn split(hash: u64, layout: EllLayout) -> (usize, u32) {
    let (t, p) = (layout.t(), u32::from(layout.p));
    let index = ((hash >> t) & ((1u64 << p) - 1)) as usize;
    let sub = (hash & ((1u64 << t) - 1)) as u32;
    let nlz = (hash | ((1u64 << (p + t)) - 1)).leading_zeros();
    (index, (nlz << t) + sub + 1)
}

/// The register after seeing update value `k` (see the module docs).
///
/// The register's values `u - d ..= u` as the bits `0 ..= d` of a 64-bit
/// word (`u` at bit `d`, always set) take `k` at bit `d + k - u` (no bit when
/// `k < u - d`: the shift wraps past 63); the new top value is `max(u, k)`,
/// and the word moves down by the rise `max(u, k) - u` (everything leaves
/// the window when the rise exceeds `d`). Selects rather than branches:
/// whether `k` raises the top value, sets a history bit or falls below the
/// window is a coin toss per add, and mispredicted branches cost more than
/// the few extra instructions.
#[inline(always)]
fn updated(r: u32, k: u32, d: u32) -> u32 {
    let u = r >> d;
    let window = u64::from((r & ((1 << d) - 1)) | (1 << d));
    let marked = window | 1u64.checked_shl((d + k).wrapping_sub(u)).unwrap_or(0);
    let top = u.max(k);
    let moved = (marked >> (top - u).min(63)) as u32;
    (top << d) | (moved & ((1 << d) - 1))
}

/// The union of what registers `a` and `b` (same `d`) have seen: the
/// higher top value, with the other register's window (its history bits and
/// its top value's own bit) moved down by the difference of the top values
/// and or-ed in; the plain OR when the top values are equal or the lower
/// register is empty (top value 0). Selects rather than branches: which of
/// two merged registers is higher is a coin toss per register, and
/// mispredicted branches made the 28-bit merge 8x slower than the 32-bit
/// one, which the compiler vectorized.
#[inline(always)]
pub(crate) fn merge_register(a: u32, b: u32, d: u32) -> u32 {
    let (ua, ub) = (a >> d, b >> d);
    let a_higher = ua >= ub;
    let (high, low) = if a_higher { (a, b) } else { (b, a) };
    let (rise, low_top) = if a_higher { (ua - ub, ub) } else { (ub - ua, ua) };
    let window = (low & ((1 << d) - 1)) | (1 << d);
    let moved = high | window.checked_shr(rise).unwrap_or(0);
    if rise == 0 || low_top == 0 {
        a | b
    } else {
        moved
    }
}

/// A register of a sketch `(p_from, d_from)` as it would be at `(p_to,
/// d_to)` (`p_to <= p_from`, `d_to <= d_from`, same `t`), for the source
/// register whose index bits dropped by the reduction are `sub_index`.
/// Values of the top level at `p_from` gain `(p_from - p_to -
/// bitlen(sub_index))` levels (the dropped index bits continue the leading
/// zeros); all others keep their value; history bits beyond `d_to` go.
#[inline]
fn reduce_register(r: u32, from: EllLayout, to: EllLayout, sub_index: usize) -> u32 {
    let (t, d_to) = (from.t(), to.d());
    let u = r >> from.d();
    let mut out = r >> (from.d() - d_to);
    let threshold = (from.w() << t) + 1;
    if u >= threshold {
        let levels = u32::from(from.p - to.p) - (usize::BITS - sub_index.leading_zeros());
        let shift = levels << t;
        if shift > 0 {
            // History bits of values below the threshold keep their values:
            // relative to the raised top value they move down by `shift`.
            if threshold + d_to > u {
                let kept = u32::MAX.checked_shl(threshold + d_to - u).unwrap_or(0);
                let moved = (out & !kept).checked_shr(shift).unwrap_or(0);
                out = (out & kept) | moved;
            }
            out = out.wrapping_add(shift << d_to);
        }
    }
    out
}

/// Walks the values register `r` knows about: returns its change
/// probability in units of 2^-64 (the probability mass of the update values
/// that would change it: every value above `u`, and the unseen ones of its
/// window), and reports `seen(level, count)` for the values it knows were
/// seen, by probability level (`min((k - 1) >> t, w - 1)`; level `l` has
/// probability `2^-(t + 1 + l)` per value).
#[inline]
fn register_stats(r: u32, layout: EllLayout, mut seen: impl FnMut(usize, u32)) -> u128 {
    let (t, d, w) = (layout.t(), layout.d(), layout.w());
    let u = r >> d;
    if u == 0 {
        return 1u128 << 64;
    }
    let rho = |level: u32| 1u128 << (63 - t - level.min(w - 1));
    let top = (u - 1) >> t;
    let mut mass = u128::from(((top + 1) << t).saturating_sub(u)) * rho(top);
    if top < w {
        mass += 1u128 << (63 - top);
    }
    seen(top.min(w - 1) as usize, 1);
    let lowest = if u > d { u - d } else { 1 };
    let mut hi = u - 1;
    while hi >= lowest {
        let level = (hi - 1) >> t;
        let lo = ((level << t) + 1).max(lowest);
        let count = hi - lo + 1;
        let bits = (r >> (lo + d - u)) & ((1 << count) - 1);
        let s = bits.count_ones();
        seen(level.min(w - 1) as usize, s);
        mass += u128::from(count - s) * rho(level);
        hi = lo - 1;
    }
    mass
}

/// Whether update value `k` changes register `r` (`updated(r, k, d) != r`,
/// without computing the new register): `k` raises the top value `u`, or
/// falls in the window (`u - d <= k < u`) on a history bit not yet set (bit
/// `d + k - u`).
#[inline(always)]
fn changes(r: u32, k: u32, d: u32) -> bool {
    let u = r >> d;
    let at = (d + k).wrapping_sub(u);
    // `at < d` keeps the shift below 32; the mask only spares a check.
    (k > u) | ((at < d) & (r & (1u32 << (at & 31)) == 0))
}

/// The bit offset of `hash`'s register in the registers of a sketch of
/// `layout` whose `d` is `D` (a constant, so that the register width
/// `6 + t + d`, its masks and shifts are immediates: `layout` only supplies
/// `p`), and the update value.
#[inline(always)]
fn locate<const D: u32>(layout: EllLayout, hash: u64) -> (usize, u32) {
    debug_assert_eq!(layout.d(), D);
    let (i, k) = split(hash, layout);
    let width = 6 + layout.t() + D;
    let bit = if width.is_power_of_two() || !width.is_multiple_of(1 << layout.t()) {
        i * width as usize
    } else {
        // 28 bits: `i * 28` as `(i << t) * 7`, where `i << t` is `hash`
        // masked (no shift) and 7 a cheaper multiplier than 28 (one fewer
        // instruction each). Both conditions fold to constants.
        let index_bits = (((1u64 << layout.p) - 1) << layout.t()) & hash;
        index_bits as usize * (width >> layout.t()) as usize
    };
    (bit, k)
}

/// The register at bit offset `bit` of `registers` (width `6 + t + D`);
/// `None` only when, unreachable for a validated view, it lies outside
/// `registers`.
#[inline(always)]
fn slot_at<const D: u32>(registers: &mut [u8], layout: EllLayout, bit: usize) -> Option<RegisterSlot<'_>> {
    let width = 6 + layout.t() + D;
    let (off, shift) = (bit >> 3, (bit & 7) as u32);
    let bytes = registers.get_mut(off..off + 4).and_then(|b| <&mut [u8; 4]>::try_from(b).ok())?;
    let window = u32::from_le_bytes(*bytes);
    Some(RegisterSlot { bytes, window, shift, mask: u32::MAX >> (32 - width) })
}

/// Where `hash`'s register lies ([`locate`], [`slot_at`]), and the update
/// value.
#[inline(always)]
fn register_of<const D: u32>(
    registers: &mut [u8],
    layout: EllLayout,
    hash: u64,
) -> Option<(RegisterSlot<'_>, u32)> {
    let (bit, k) = locate::<D>(layout, hash);
    Some((slot_at::<D>(registers, layout, bit)?, k))
}

/// Where a register lies: the four bytes holding it, their value, and the
/// register's bit offset and mask in them.
struct RegisterSlot<'r> {
    bytes: &'r mut [u8; 4],
    window: u32,
    shift: u32,
    mask: u32,
}

impl RegisterSlot<'_> {
    #[inline(always)]
    fn read(&self) -> u32 {
        (self.window >> self.shift) & self.mask
    }

    /// Writes `new` over `old` (the register [`RegisterSlot::read`] gave).
    /// Flipping the bits that differ leaves the neighbours' bits as they
    /// are (fewer instructions than clearing the field and or-ing `new` in).
    #[inline(always)]
    fn write(self, old: u32, new: u32) {
        *self.bytes = (self.window ^ (((old ^ new) & self.mask) << self.shift)).to_le_bytes();
    }
}

/// Applies `hash` to its register (see [`register_of`]) in a single add:
/// the old register and the update value when the register changed,
/// `None` when it did not. The add branches on that, so [`changes`] decides
/// it first, in fewer steps than computing the new register (which three
/// adds in four at the stand's workload then skip), and only a changed
/// register is written: at p = 14 the registers (57 or 64 KiB) outgrow the
/// L1 cache, and writing every one back dirtied lines that then had to be
/// written out.
#[inline(always)]
fn change_register<const D: u32>(registers: &mut [u8], layout: EllLayout, hash: u64) -> Option<(u32, u32)> {
    let (slot, k) = register_of::<D>(registers, layout, hash)?;
    let old = slot.read();
    if !changes(old, k, D) {
        return None;
    }
    slot.write(old, updated(old, k, D));
    Some((old, k))
}

#[inline(always)]
fn get_register(registers: &[u8], width: u32, i: usize) -> u32 {
    let bit = i * width as usize;
    let (off, shift) = (bit >> 3, bit & 7);
    let window =
        registers.get(off..off + 4).and_then(|b| <[u8; 4]>::try_from(b).ok()).map_or(0, u32::from_le_bytes);
    (window >> shift) & (u32::MAX >> (32 - width))
}

#[inline(always)]
fn set_register(registers: &mut [u8], width: u32, i: usize, value: u32) {
    let bit = i * width as usize;
    let (off, shift) = (bit >> 3, bit & 7);
    if let Some(bytes) = registers.get_mut(off..off + 4).and_then(|b| <&mut [u8; 4]>::try_from(b).ok()) {
        let mask = (u32::MAX >> (32 - width)) << shift;
        let window = u32::from_le_bytes(*bytes);
        *bytes = ((window & !mask) | ((value << shift) & mask)).to_le_bytes();
    }
}

/// Writes an empty sketch into `buf` (8-byte aligned, at least
/// [`image_len`] bytes). Errors: [`Error::InvalidParameter`],
/// [`Error::BufferTooSmall`], [`Error::Misaligned`]; `buf` unchanged then.
pub fn init(buf: &mut [u8], config: EllConfig, p: u8, seed: u64) -> Result<EllMut<'_>> {
    let layout = check(config, p)?;
    let fresh = Fresh {
        family: FamilyId::ExaLogLog,
        hash: HashKind::Xxh3,
        header_len: HEADER_LEN,
        flags: 0,
        seed,
        image_len: image_len_of(layout),
    };
    let image = image::start_image(buf, fresh)?;
    for (off, v) in [(OFF_T, config.t()), (OFF_D, config.d()), (OFF_PRECISION, p)] {
        if let Some(b) = image.get_mut(off) {
            *b = v;
        }
    }
    let mut sketch = wrap_mut(image)?;
    sketch.reset();
    Ok(sketch)
}

fn registers_of(body: &[u8], layout: EllLayout) -> &[u8] {
    body.get(..layout.register_bytes()).unwrap_or(body)
}

/// Validates a live image and returns a read-only view (zero-copy, O(1)).
/// Errors: [`Error::Misaligned`], [`Error::BufferTooSmall`],
/// [`Error::BadMagic`], [`Error::UnsupportedVersion`],
/// [`Error::WrongFamily`], [`Error::UnsupportedHash`],
/// [`Error::CorruptHeader`]. Register values are not checked: illegal ones
/// give wrong estimates, never a panic.
#[inline]
pub fn wrap(buf: &[u8]) -> Result<Ell<'_>> {
    let parts = image::split::<EllImage>(buf)?;
    let layout = parts.layout;
    Ok(Ell {
        header: parts.header.first_chunk::<HEADER_LEN>().ok_or(Error::CorruptHeader)?,
        registers: registers_of(parts.body, layout),
        layout,
        seed: parts.common.seed,
    })
}

/// Validates a live image and returns a mutable view (zero-copy, O(1)).
/// Errors: as [`wrap`].
#[inline]
pub fn wrap_mut(buf: &mut [u8]) -> Result<EllMut<'_>> {
    let parts = image::split_mut::<EllImage>(buf)?;
    let layout = parts.layout;
    let len = layout.register_bytes().min(parts.body.len());
    let registers = parts.body.get_mut(..len).ok_or(Error::BufferTooSmall)?;
    let header = parts.header.first_chunk_mut::<HEADER_LEN>().ok_or(Error::CorruptHeader)?;
    Ok(EllMut { header, registers, layout, seed: parts.common.seed })
}

/// The number of bytes [`export`] writes for the live image in `src` (its
/// length). Errors: as [`wrap`].
pub fn exported_len(src: &[u8]) -> Result<usize> {
    image::exported_len::<EllImage>(src)
}

/// Copies the live image to `dst` with its checksum. Returns the bytes written.
///
/// Errors: as [`crate::image::export`].
pub fn export(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::export::<EllImage>(src, dst)
}

/// Verifies untrusted bytes (exact length, headers, checksum, every register
/// legal, zero padding, martingale fields consistent with the registers).
/// Errors: header/checksum errors, [`Error::CorruptBody`].
pub fn verify(bytes: &[u8]) -> Result<()> {
    image::verify::<EllImage>(bytes).map(|_| ())
}

/// Bytes of the live image that importing the exported image `src` writes
/// (allocate this much, 64-byte aligned, before [`import`]). Checks the
/// headers and the length, not the checksum.
///
/// Errors: as [`crate::image::import_len`].
pub fn import_len(src: &[u8]) -> Result<usize> {
    image::import_len::<EllImage>(src)
}

/// Verifies untrusted bytes as [`verify`] and copies them into the aligned
/// `dst` (written only on success). Returns the image length.
///
/// Errors: as [`crate::image::import`].
pub fn import(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::import::<EllImage>(src, dst)
}

/// Maximum-likelihood estimate from the registers (see the module docs).
///
/// With `lambda` distinct hashes per register, update value `k` occurs in a
/// register with Poisson rate `lambda rho_k` independently of the others;
/// a register knows of each value whether it was seen, not seen (above `u`,
/// or a clear history bit) or nothing (below its window). The
/// log-likelihood `-lambda A + sum_l s_l ln(1 - exp(-lambda rho_l))` (`A`:
/// probability mass of the values known unseen, summed over registers;
/// `s_l`: values known seen at level `l`) is concave; its maximum solves
/// `F(lambda) = sum_l s_l rho_l / (exp(lambda rho_l) - 1) = A`, with `F`
/// convex and decreasing, so Newton's method started below the root rises
/// monotonically to it.
fn ml_estimate(registers: &[u8], layout: EllLayout) -> f64 {
    // Per level at most d + 1 known-seen values per register, so 32 bits
    // hold the sum over 2^24 registers (and keep the C ABI's estimate
    // calls within 1 KiB of stack).
    let mut seen = [0u32; 64];
    let mut unseen: u128 = 0;
    for i in 0..layout.registers() {
        let r = get_register(registers, layout.width(), i);
        unseen += register_stats(r, layout, |level, count| {
            if let Some(s) = seen.get_mut(level) {
                *s = s.saturating_add(count);
            }
        });
    }
    let total_seen: f64 = seen.iter().map(|s| *s as f64).sum();
    if total_seen == 0.0 {
        return 0.0;
    }
    if unseen == 0 {
        return f64::INFINITY;
    }
    let a = (unseen >> 64) as u64 as f64 + (unseen as u64) as f64 / TWO_POW_64;
    let levels = layout.w() as usize; // levels 0 ..= w - 1 (the top level shares w - 1's rate)
    let t = layout.t() as i32;
    // F and -F' at x, from the smallest rate up: e^(x rho) - 1 for the
    // doubled rate is expm1(y) (expm1(y) + 2), so one `expm1` per evaluation.
    let eval = |x: f64| {
        let (mut f, mut slope) = (0.0, 0.0);
        let mut rho = libm::ldexp(1.0, -(t + levels as i32));
        let mut up = libm::expm1(x * rho);
        for s in seen.iter().take(levels).rev() {
            if !up.is_finite() {
                break; // this and every faster level contribute nothing
            }
            if *s > 0 {
                let s = *s as f64;
                f += s * rho / up;
                slope += s * rho * rho * (up + 1.0) / (up * up);
            }
            up *= up + 2.0;
            rho *= 2.0;
        }
        (f, slope)
    };
    // F(x) <= total_seen / x: the root is at most total_seen / A; halve from
    // there until F(x) >= A (below the root).
    let mut x = total_seen / a;
    for _ in 0..2100 {
        if eval(x).0 >= a {
            break;
        }
        x *= 0.5;
    }
    for _ in 0..200 {
        let (f, slope) = eval(x);
        let step = (f - a) / slope;
        if step.is_nan() || step.is_infinite() || step <= x * 1e-12 {
            break;
        }
        x += step;
    }
    let m = layout.registers() as f64;
    m * x / (1.0 + layout.config.ml_bias_correction() / m)
}

/// A read-only view of a validated ExaLogLog image.
#[derive(Copy, Clone)]
pub struct Ell<'a> {
    header: &'a [u8; HEADER_LEN],
    registers: &'a [u8],
    layout: EllLayout,
    seed: u64,
}

crate::image::debug_view!(Ell [layout, seed]);

impl<'a> Ell<'a> {
    /// Register configuration.
    pub fn config(&self) -> EllConfig {
        self.layout.config
    }

    /// Precision `p`.
    pub fn precision(&self) -> u8 {
        self.layout.p
    }

    /// Hash seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash function and seed of this image.
    pub fn key_hasher(&self) -> KeyHasher {
        KeyHasher { kind: HashKind::Xxh3, seed: self.seed }
    }

    /// Number of registers, `2^p`.
    pub fn registers(&self) -> usize {
        self.layout.registers()
    }

    /// Register `i` (`(u << d) | history`; 0 when out of range).
    pub fn register(&self, i: usize) -> u32 {
        if i >= self.layout.registers() {
            return 0;
        }
        get_register(self.registers, self.layout.width(), i)
    }

    /// Registers above zero. O(m).
    pub fn registers_set(&self) -> u64 {
        (0..self.layout.registers()).filter(|i| self.register(*i) != 0).count() as u64
    }

    /// True while the sketch saw only its own stream (no merge).
    pub fn martingale_valid(&self) -> bool {
        self.header.get(OFF_MARTINGALE_VALID) == Some(&1)
    }

    /// The martingale estimate while valid (O(1)), else `None`.
    pub fn martingale_estimate(&self) -> Option<f64> {
        if self.martingale_valid() {
            image::get_f64(self.header, OFF_MARTINGALE)
        } else {
            None
        }
    }

    /// Distinct-count estimate: the martingale estimate while valid (O(1)),
    /// else [`Ell::ml_estimate`] (O(m)).
    pub fn estimate(&self) -> f64 {
        self.martingale_estimate().unwrap_or_else(|| self.ml_estimate())
    }

    /// The maximum-likelihood estimate from the registers alone (what a
    /// merged sketch reports): O(m) register scan plus a few Newton steps.
    /// Infinite only when no update value is known unseen (about 2^64
    /// distinct hashes).
    pub fn ml_estimate(&self) -> f64 {
        ml_estimate(self.registers, self.layout)
    }

    /// The probability that a new distinct hash changes the sketch.
    pub fn change_probability(&self) -> f64 {
        let total: u128 = (0..self.layout.registers())
            .map(|i| register_stats(self.register(i), self.layout, |_, _| {}))
            .sum();
        ((total >> 64) as u64 as f64 + (total as u64) as f64 / TWO_POW_64) / self.layout.registers() as f64
    }

    /// All statistics. O(m).
    pub fn stats(&self) -> EllStats {
        let martingale = self.martingale_valid();
        let (config, p) = (self.layout.config, self.layout.p);
        EllStats {
            config,
            precision: p,
            seed: self.seed,
            registers_set: self.registers_set(),
            estimate: self.estimate(),
            martingale,
            standard_error: if martingale {
                martingale_standard_error(config, p)
            } else {
                ml_standard_error(config, p)
            },
            image_bytes: image_len_of(self.layout),
        }
    }
}

/// The martingale state of a sketch that saw only its own stream: the sum
/// over registers of their change probabilities (units of 2^-64) and the
/// estimate, as stored in the header.
#[derive(Copy, Clone, Debug)]
struct Martingale {
    weight: u128,
    estimate: f64,
    /// `m = 2^p`, as a float.
    registers: f64,
}

impl Martingale {
    /// Martingale step of one register change from `old` by update value
    /// `k`: adds `1 / P` (P before the change, `weight / 2^64 / m`), then
    /// updates the weight exactly.
    ///
    /// `m / x` is `1.0 / (x / m)` bit for bit (`m` is a power of two: the
    /// scaling is exact), one division instead of two. The weight loses
    /// that of value `k` (whether `k` set a history bit or raised the top
    /// value), and when `k` raised the top value so far that the window no
    /// longer reaches value 1, that of every value the old register counted
    /// which falls below the new window ([`window_loss`]; the total equals
    /// the difference of both registers' [`register_stats`]). Only that
    /// last case, about one change in thirteen on the stand's workload,
    /// branches: whether `k` set a history bit or raised the top value is
    /// a coin toss.
    #[inline(always)]
    fn count_change(&mut self, old: u32, k: u32, l: EllLayout) {
        let weight = self.weight;
        // The high word is at most `m` (weight <= m 2^64) and converts as a
        // signed integer, one instruction (the unsigned conversion takes
        // five; a damaged header's word of 2^63 or more reads negative and
        // adds nothing, as 0 does); the low word needs all 64 bits.
        let x = (weight >> 64) as u64 as i64 as f64 + (weight as u64) as f64 / TWO_POW_64;
        // The select on the addend, not on the sum: the chain of estimates
        // through a block's changes is one addition each (adding 0.0 leaves
        // the estimate, never -0.0, as it is).
        self.estimate += if x > 0.0 { self.registers / x } else { 0.0 };
        let mut loss = value_weight(k, l);
        if (k > l.d() + 1) & (k > old >> l.d()) {
            loss += window_loss(old, k, l);
        }
        self.weight = weight.wrapping_sub(loss);
    }
}

/// The probability of update value `k` (`k >= 1`) in units of 2^-64.
#[inline(always)]
fn value_weight(k: u32, l: EllLayout) -> u128 {
    let level = (k.max(1) - 1) >> l.t();
    // At most 2^61: a 64-bit shift (cheaper than a 128-bit one).
    u128::from(1u64 << (63 - l.t() - level.min(l.w() - 1)))
}

/// The total weight of the update values above `u` (units of 2^-64; all of
/// them, 2^64, for `u = 0`): the first part of [`register_stats`].
#[inline(always)]
fn weight_above(u: u32, l: EllLayout) -> u128 {
    if u == 0 {
        return 1u128 << 64;
    }
    let (t, w) = (l.t(), l.w());
    let top = (u - 1) >> t;
    let mut mass = u128::from(((top + 1) << t).saturating_sub(u)) * (1u128 << (63 - t - top.min(w - 1)));
    if top < w {
        mass += 1u128 << (63 - top);
    }
    mass
}

/// The change weight, beyond that of `k` itself, that a register loses when
/// a value `k` above its top value `u` arrives and the new window no longer
/// reaches value 1 (`k > d + 1`; for smaller `k` it is 0): every value
/// below the new window (`v < k - d`) that `old` counted, above `u` or
/// unseen in its window. Values in both windows keep their history bit.
#[inline(never)]
fn window_loss(old: u32, k: u32, l: EllLayout) -> u128 {
    let (t, d) = (l.t(), l.d());
    let u = old >> d;
    let mut loss = 0;
    if k <= d + 1 {
        return loss;
    }
    // Values below `cut` leave the window. Above `u` and below `cut`: the
    // weight of values u+1 ..= cut-1.
    let cut = k - d;
    if cut > u + 1 {
        loss += weight_above(u, l) - weight_above(cut - 1, l);
    }
    if u == 0 {
        return loss;
    }
    // Unseen in the old window [max(1, u - d), u - 1] and below `cut`.
    let lowest = if u > d { u - d } else { 1 };
    let mut hi = (u - 1).min(cut - 1);
    while hi >= lowest {
        let level = (hi - 1) >> t;
        let lo = ((level << t) + 1).max(lowest);
        let count = hi - lo + 1;
        let seen = ((old >> (lo + d - u)) & ((1 << count) - 1)).count_ones();
        loss += u128::from(count - seen) * (1u128 << (63 - t - level.min(l.w() - 1)));
        hi = lo - 1;
    }
    loss
}

/// Hashes per block of [`EllMut::add_hashes`]: its change list (5 bytes per
/// entry) stays in L1 and the stack frame small (the stack bound test
/// allows 1 KiB per exported function), and the loop over a block's
/// changes ends (a mispredicted exit) once per block.
const CHANGE_BLOCK: usize = 32;

/// The adds of one block of [`EllMut::add_hashes`] that change their
/// registers, in order: the register's bit offset and the update value of
/// each. Bit offsets fit 32 bits: at most `2^MAX_PRECISION * 32`.
struct ChangeList {
    bit: [u32; CHANGE_BLOCK],
    value: [u8; CHANGE_BLOCK],
}

// Update values fit the `u8` of a [`ChangeList`]: the largest, of either
// configuration at the smallest precision, is 252.
const _: () = assert!(
    EllLayout { config: EllConfig::T2D20, p: MIN_PRECISION }.max_value() <= u8::MAX as u32
        && EllLayout { config: EllConfig::T2D24, p: MIN_PRECISION }.max_value() <= u8::MAX as u32
);
// Bit offsets fit the `u32` of a [`ChangeList`] (registers of at most 32 bits).
const _: () = assert!((1u64 << MAX_PRECISION) * 32 <= u32::MAX as u64);

/// An exclusive, mutable view of a validated ExaLogLog image.
pub struct EllMut<'a> {
    header: &'a mut [u8; HEADER_LEN],
    registers: &'a mut [u8],
    layout: EllLayout,
    seed: u64,
}

crate::image::debug_view!(EllMut [layout, seed]);

impl<'a> EllMut<'a> {
    /// A read-only view of the same image.
    pub fn as_ref(&self) -> Ell<'_> {
        Ell { header: self.header, registers: self.registers, layout: self.layout, seed: self.seed }
    }

    /// Adds a key; true when a register changed.
    #[inline]
    pub fn add(&mut self, key: &[u8]) -> bool {
        self.add_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`EllMut::add`] for an integer key (hashed as 8 little-endian bytes).
    #[inline]
    pub fn add_u64(&mut self, key: u64) -> bool {
        self.add_hash(hash::hash_u64(key, self.seed))
    }

    /// [`EllMut::add`] for a precomputed, uniformly distributed 64-bit hash.
    ///
    /// One add runs the portable code: it counts one leading-zero run, and
    /// the LZCNT copy's dispatch (a call with the view passed through
    /// memory) costs more than the BSR it saves; batches run in that copy.
    #[inline(always)]
    pub fn add_hash(&mut self, hash: u64) -> bool {
        self.add_one(hash)
    }

    /// One add in the portable code ([`EllMut::add_hash`]; the batch
    /// adds of the LZCNT copy leave the same image).
    #[inline(always)]
    fn add_one(&mut self, hash: u64) -> bool {
        let Some((old, k)) = self.update(hash) else {
            return false;
        };
        if let Some(mut state) = self.martingale() {
            state.count_change(old, k, self.layout);
            self.store_martingale(state);
        }
        true
    }

    /// Batch add of precomputed hashes. The martingale state stays in
    /// registers for the whole batch (the same arithmetic, in the same
    /// order, as one [`EllMut::add_hash`] call per hash).
    pub fn add_hashes(&mut self, hashes: &[u64]) {
        // One change list for both copies and both register widths (each
        // would otherwise get its own on the stack).
        let mut changes = ChangeList { bit: [0; CHANGE_BLOCK], value: [0; CHANGE_BLOCK] };
        simd::with_lzcnt(
            #[inline(always)]
            || match self.layout.config {
                EllConfig::T2D20 => self.add_hashes_with::<20>(hashes, &mut changes),
                EllConfig::T2D24 => self.add_hashes_with::<24>(hashes, &mut changes),
            },
        )
    }

    /// [`EllMut::add_hashes`] for this sketch's `d` as a constant `D`.
    ///
    /// Whether an add changes its register is a coin toss (about one add
    /// in four on the stand's workload), so nothing branches on it until
    /// the adds that do are known. Each block of hashes first reads the
    /// registers and lists the adds that change them ([`changes`], judged
    /// on the registers as the block found them; the slot is written for
    /// every hash and the count grows by one for a change). Then the listed
    /// adds run in order, each on its register as the earlier ones left it:
    /// the new register, the write and the martingale step. An add that the
    /// block's earlier adds made redundant (the same value twice) finds its
    /// register unchanged there and is skipped; an add not listed changes
    /// nothing either, since a register that already knows a value, or has
    /// moved its window past it, keeps doing so. The result is bit for bit
    /// that of one [`EllMut::add_hash`] per hash, and three adds in four
    /// never compute a new register.
    #[inline(always)]
    fn add_hashes_with<const D: u32>(&mut self, hashes: &[u64], changes_list: &mut ChangeList) {
        let layout = self.layout;
        let mut martingale = self.martingale();
        let registers = &mut *self.registers;
        for block in hashes.chunks(CHANGE_BLOCK) {
            let mut count = 0;
            for h in block {
                let (bit, k) = locate::<D>(layout, *h);
                if let Some(slot) = slot_at::<D>(registers, layout, bit) {
                    if let (Some(b), Some(v)) =
                        (changes_list.bit.get_mut(count), changes_list.value.get_mut(count))
                    {
                        // `bit < 2^32` (see `ChangeList`); `k <= max_value() <= 252`
                        // (asserted there).
                        (*b, *v) = (bit as u32, k as u8);
                    }
                    count += usize::from(changes(slot.read(), k, D));
                }
            }
            let (bits, values) = (changes_list.bit.iter(), changes_list.value.iter());
            for (bit, k) in bits.zip(values).take(count) {
                let k = u32::from(*k);
                if let Some(slot) = slot_at::<D>(registers, layout, *bit as usize) {
                    let old = slot.read();
                    let new = updated(old, k, D);
                    if new != old {
                        slot.write(old, new);
                        if let Some(state) = martingale.as_mut() {
                            state.count_change(old, k, layout);
                        }
                    }
                }
            }
        }
        if let Some(state) = martingale {
            self.store_martingale(state);
        }
    }

    /// Applies `hash` to its register; returns the old register and the
    /// update value when the register changed.
    #[inline(always)]
    fn update(&mut self, hash: u64) -> Option<(u32, u32)> {
        match self.layout.config {
            EllConfig::T2D20 => change_register::<20>(self.registers, self.layout, hash),
            EllConfig::T2D24 => change_register::<24>(self.registers, self.layout, hash),
        }
    }

    /// The martingale state while it is valid.
    #[inline(always)]
    fn martingale(&self) -> Option<Martingale> {
        if self.header.get(OFF_MARTINGALE_VALID) != Some(&1) {
            return None;
        }
        Some(Martingale {
            weight: read_u128(self.header, OFF_CHANGE_WEIGHT),
            estimate: image::get_f64(self.header, OFF_MARTINGALE).unwrap_or(0.0),
            registers: self.layout.registers() as f64,
        })
    }

    #[inline(always)]
    fn store_martingale(&mut self, state: Martingale) {
        image::put_f64(self.header, OFF_MARTINGALE, state.estimate);
        write_u128(self.header, OFF_CHANGE_WEIGHT, state.weight);
    }

    fn invalidate_martingale(&mut self) {
        if let Some(v) = self.header.get_mut(OFF_MARTINGALE_VALID) {
            *v = 0;
        }
        image::put_f64(self.header, OFF_MARTINGALE, 0.0);
        write_u128(self.header, OFF_CHANGE_WEIGHT, 0);
    }

    /// Merges `other`: same seed and `t`, precision and `d` at least this
    /// one's (a larger `p` or `d` is reduced exactly, as in the paper).
    /// Merging disjoint parts gives exactly the registers of adding
    /// everything to one sketch. Clears the martingale estimate.
    /// Errors: [`Error::Incompatible`] (nothing changes then).
    pub fn merge(&mut self, other: &Ell<'_>) -> Result<()> {
        let (to, from) = (self.layout, other.layout);
        if other.seed != self.seed || from.t() != to.t() || from.d() < to.d() || from.p < to.p {
            return Err(Error::Incompatible);
        }
        self.invalidate_martingale();
        let (width, d) = (to.width(), to.d());
        if from == to {
            match to.config {
                EllConfig::T2D24 => crate::simd::ell32_merge(self.registers, other.registers, d),
                EllConfig::T2D20 => crate::simd::ell28_merge(self.registers, other.registers, d),
            }
            return Ok(());
        }
        let group = 1usize << (from.p - to.p);
        for i in 0..to.registers() {
            let mut merged = 0;
            for sub in 0..group {
                let r = other.register(i + (sub << to.p));
                if r != 0 {
                    merged = merge_register(merged, reduce_register(r, from, to, sub), d);
                }
            }
            if merged != 0 {
                let a = get_register(self.registers, width, i);
                let m = merge_register(a, merged, d);
                if m != a {
                    set_register(self.registers, width, i, m);
                }
            }
        }
        Ok(())
    }

    /// Empties the sketch (the martingale estimate restarts at 0).
    pub fn reset(&mut self) {
        self.registers.fill(0);
        if let Some(v) = self.header.get_mut(OFF_MARTINGALE_VALID) {
            *v = 1;
        }
        image::put_f64(self.header, OFF_MARTINGALE, 0.0);
        write_u128(self.header, OFF_CHANGE_WEIGHT, (1u128 << 64) << self.layout.p);
    }
}

pub(crate) mod kernels {
    /// Same-layout merge of 28-bit registers, two per 7 bytes (the portable
    /// kernel: x86-64 CPUs with AVX2 run `simd::ell28_merge`'s intrinsics
    /// and this one only for the last few pairs): 32 registers (112 bytes)
    /// at a time are widened to 32-bit lanes, merged lane by lane (a loop
    /// compilers vectorize where the target has variable shifts, as in
    /// [`merge32`]) and packed back; the pairs after the last whole group
    /// one by one. Compiled with AVX2, groups of 8, 16, 32, 64 and 128
    /// registers took 40, 25, 23, 18 and 26 µs per p = 14 merge (the
    /// cardinality bench, one run each; one pair at a time with branches,
    /// 58-65 µs); 64 put the exported merge over its 1 KiB stack bound
    /// (1,784 bytes), 32 keeps it at 792.
    #[inline(always)]
    pub fn merge28(dst: &mut [u8], src: &[u8], d: u32) {
        const PAIRS: usize = 16;
        let n = dst.len().min(src.len());
        let (Some(dst), Some(src)) = (dst.get_mut(..n), src.get(..n)) else {
            return;
        };
        let (dst_groups, dst_rest) = dst.as_chunks_mut::<{ 7 * PAIRS }>();
        let (src_groups, src_rest) = src.as_chunks::<{ 7 * PAIRS }>();
        for (a, b) in dst_groups.iter_mut().zip(src_groups) {
            let (mut x, y) = (unpack28::<{ 2 * PAIRS }>(a), unpack28::<{ 2 * PAIRS }>(b));
            for (r, s) in x.iter_mut().zip(y) {
                *r = super::merge_register(*r, s, d);
            }
            pack28::<{ 2 * PAIRS }>(a, &x);
        }
        let (dst, _) = dst_rest.as_chunks_mut::<7>();
        let (src, _) = src_rest.as_chunks::<7>();
        for (a, b) in dst.iter_mut().zip(src) {
            let (x, y) = (unpack28::<2>(a), unpack28::<2>(b));
            let merged = [super::merge_register(x[0], y[0], d), super::merge_register(x[1], y[1], d)];
            pack28::<2>(a, &merged);
        }
    }

    /// The little-endian `u32` at `bytes[at..at + 4]` (0 past the end).
    #[inline(always)]
    fn le32(bytes: &[u8], at: usize) -> u32 {
        bytes.get(at..).and_then(|b| b.first_chunk::<4>()).map_or(0, |b| u32::from_le_bytes(*b))
    }

    /// Writes `v` little-endian at `bytes[at..at + 4]` (nothing past the end).
    #[inline(always)]
    fn put_le32(bytes: &mut [u8], at: usize, v: u32) {
        if let Some(b) = bytes.get_mut(at..).and_then(|b| b.first_chunk_mut::<4>()) {
            *b = v.to_le_bytes();
        }
    }

    /// The `N` 28-bit registers of the first `N / 2` 7-byte pairs of
    /// `bytes`: of pair `i`, register `2i` is the low 28 bits of the `u32`
    /// at byte `7i`, register `2i + 1` the high 28 bits of the `u32` at byte
    /// `7i + 3` (two overlapping loads instead of assembling 7 bytes).
    #[inline(always)]
    fn unpack28<const N: usize>(bytes: &[u8]) -> [u32; N] {
        let mut out = [0u32; N];
        for (i, regs) in out.as_chunks_mut::<2>().0.iter_mut().enumerate() {
            *regs = [le32(bytes, 7 * i) & ((1 << 28) - 1), le32(bytes, 7 * i + 3) >> 4];
        }
        out
    }

    /// Writes `regs` (28-bit values) back as the first `N / 2` 7-byte pairs:
    /// the `u32`s at bytes `7i` and `7i + 3` (they overlap in byte `7i + 3`,
    /// which both write alike).
    #[inline(always)]
    fn pack28<const N: usize>(bytes: &mut [u8], regs: &[u32; N]) {
        for (i, r) in regs.as_chunks::<2>().0.iter().enumerate() {
            let (lo, hi) = (r[0] & ((1 << 28) - 1), r[1] & ((1 << 28) - 1));
            put_le32(bytes, 7 * i, lo | (hi << 28));
            put_le32(bytes, 7 * i + 3, (lo >> 24) | (hi << 4));
        }
    }

    /// Same-layout merge of 32-bit little-endian register arrays.
    #[inline(always)]
    pub fn merge32(dst: &mut [u8], src: &[u8], d: u32) {
        let (dst, _) = dst.as_chunks_mut::<4>();
        let (src, _) = src.as_chunks::<4>();
        for (a, b) in dst.iter_mut().zip(src) {
            let merged = super::merge_register(u32::from_le_bytes(*a), u32::from_le_bytes(*b), d);
            *a = merged.to_le_bytes();
        }
    }
}

#[cfg(test)]
mod tests;
