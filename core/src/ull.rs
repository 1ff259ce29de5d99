//! UltraLogLog (Ertl, "UltraLogLog: A Practical and More Space-Efficient
//! Alternative to HyperLogLog for Approximate Distinct Counting", PVLDB 2024).
//!
//! Precision `p` in 4..=18 gives `m = 2^p` one-byte registers and, with the
//! paper's FGRA estimator, a relative standard error of about
//! `0.782 / sqrt(m)`: for the same error it needs about 24% less memory than
//! a HyperLogLog with 6-bit registers.
//!
//! # Example
//!
//! ```
//! use sketches_core::ull;
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! let p = 10; // 1,024 one-byte registers
//! assert!(ull::image_len(p)? <= 2048); // 1,152 bytes
//! let sigma = ull::standard_error(p); // about 2.4%
//!
//! let (mut buf_a, mut buf_b) = (ImageBuf::<2048>::new(), ImageBuf::<2048>::new());
//! let mut a = ull::init(&mut buf_a, p, 0)?;
//! let mut b = ull::init(&mut buf_b, p, 0)?;
//! for i in 0..20_000u64 {
//!     a.add_u64(i);
//!     b.add_u64(i + 10_000); // half of b overlaps a
//! }
//! a.merge(&b.as_ref())?; // the union: 30,000 distinct
//! let estimate = a.as_ref().estimate();
//! assert!((estimate / 30_000.0 - 1.0).abs() < 4.0 * sigma, "{estimate}");
//!
//! let mut wire = [0u8; 2048];
//! let n = ull::export(&buf_a, &mut wire)?;
//! let mut copy = ImageBuf::<2048>::new();
//! ull::import(&wire[..n], &mut copy)?;
//! assert_eq!(ull::wrap(&copy)?.estimate(), estimate);
//! # Ok(())
//! # }
//! ```
//!
//! **Registers.** The hash is split as in [`crate::cardinality`] (index =
//! top `p` bits, update value `k` in `1..=65-p`). A register remembers the
//! largest update value `u` it has seen and whether `u - 1` and `u - 2` were
//! seen: byte `4(u + p - 2) + 2·[u-1 seen] + [u-2 seen]`, 0 when empty (the
//! encoding of the paper and of hash4j, so register bytes are interchangeable
//! with hash4j's for the same hashes). Legal bytes: 0, `4p-4`, `4p`, `4p+2`,
//! and everything from `4p+4` to 255.
//!
//! **Estimator.** FGRA (the paper's algorithm 6) with its published optimal
//! constants (`tau` = 0.81949..., `eta_0..3`), including the small- and
//! large-range corrections; `lambda_p = m^(1+1/tau) / (1 + (1+tau) v / (2m))`.
//! It scans the registers once (O(m)). [`Ull::ml_estimate`] gives the
//! maximum-likelihood estimate (about `0.761 / sqrt(m)`; Newton's method on
//! the Poisson likelihood of the register histogram).
//!
//! **Martingale estimate.** While a sketch sees only its own stream (no
//! merge), each register change adds `1 / P`, `P` being the probability that
//! a new distinct hash changes some register, kept exactly as a fixed-point
//! sum in the header. Relative standard error about `0.658 / sqrt(m)` (the
//! paper's figure), read in one load. A merge clears it; the estimate then
//! comes from the registers (FGRA).
//!
//! Image layout after the common header (little-endian):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 48 | 1 | precision `p` (4..=18) |
//! | 49 | 1 | 1 while the martingale estimate is valid, else 0 |
//! | 50 | 6 | reserved, 0 |
//! | 56 | 8 | martingale estimate (f64); 0 when not valid |
//! | 64 | 16 | `u128` sum over registers of their change probability in units of 2^-64 (valid only with the flag; else 0) |
//! | 80 | 48 | reserved, 0 |
//! | 128 | `m` | registers |
//! | … | 0..63 | zero padding to a multiple of 64 bytes (every live image length is) |
//!
//! Merging: [`UllMut::merge`] takes a sketch of the same seed and a
//! precision at least this one's (higher precisions fold down).
//! [`to_hll`] writes the HyperLogLog of the same precision that the same
//! hashes give.
//!
//! Thread-safety: [`Ull`] is a shared view; [`UllMut`] is exclusive.

use crate::cardinality::{check_precision, split_hash};
use crate::error::{Error, Result};
use crate::hash::{self, HashKind, KeyHasher};
use crate::hll::{self, HllMut};
use crate::image::{self, CommonHeader, FamilyId, Fresh, ImageFamily};
#[cfg(target_has_atomic = "64")]
use crate::shared::AtomicWords;
use crate::simd;
#[cfg(target_has_atomic = "64")]
use core::sync::atomic::Ordering;

/// Byte length of the UltraLogLog header.
pub const HEADER_LEN: usize = 128;
const OFF_PRECISION: usize = 48;
const OFF_MARTINGALE_VALID: usize = 49;
const OFF_MARTINGALE: usize = 56;
const OFF_CHANGE_WEIGHT: usize = 64;

// The paper's optimal FGRA constants (also in hash4j's OptimalFGRAEstimator).
const ETA: [f64; 4] =
    [4.663_135_749_698_441, 2.137_850_286_535_751, 2.781_144_794_145_462_6, 0.982_408_243_922_076_4];
const TAU: f64 = 0.819_491_185_037_638_7;
const V: f64 = 0.611_893_149_697_842_6;
const POW_2_MINUS_TAU: f64 = 0.566_641_752_696_274_9;
const POW_4_MINUS_TAU: f64 = 0.321_082_875_898_706_43;
const POW_2_TAU: f64 = 1.764_783_472_523_262_7;
const ETA_X: f64 = ETA[0] - ETA[1] - ETA[2] + ETA[3];
/// The ML estimate's asymptotic relative standard error times `sqrt(m)`:
/// the inverse square root of the Fisher information per register (paper).
const ML_ERROR: f64 = 0.760_862_100_272_518_2;
/// First-order relative bias of the ML estimate times `m`:
/// `3/2 ln 2 zeta(3, 5/4) / zeta(2, 5/4)^2` (Hurwitz zeta; hash4j's value).
const ML_BIAS_CORRECTION: f64 = 0.481_473_765_277_200_66;

/// Exact image size in bytes for precision `p`.
/// Errors: [`Error::InvalidParameter`] unless `4 <= p <= 18`.
pub fn image_len(p: u8) -> Result<u64> {
    check_precision(p)?;
    Ok(image::padded_len((HEADER_LEN + (1usize << p)) as u64))
}

/// The theoretical relative standard error of the FGRA estimate, `sqrt(v/m)`.
pub fn standard_error(p: u8) -> f64 {
    crate::simd::sqrt(V / libm::ldexp(1.0, i32::from(p)))
}

/// The asymptotic relative standard error of the maximum-likelihood
/// estimate ([`Ull::ml_estimate`]), `0.7609 / sqrt(m)`.
pub fn ml_standard_error(p: u8) -> f64 {
    ML_ERROR / crate::simd::sqrt(libm::ldexp(1.0, i32::from(p)))
}

/// Statistics of an UltraLogLog sketch.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct UllStats {
    /// Precision `p`.
    pub precision: u8,
    /// Hash seed.
    pub seed: u64,
    /// Registers above zero.
    pub registers_set: u32,
    /// Distinct-count estimate (martingale while valid, else FGRA).
    pub estimate: f64,
    /// True when `estimate` is the martingale estimate.
    pub martingale: bool,
    /// Image length in bytes.
    pub image_bytes: u64,
}

/// Marker type tying the UltraLogLog layout to the image format.
pub struct UllImage;

impl ImageFamily for UllImage {
    const FAMILY: FamilyId = FamilyId::UltraLogLog;
    type Layout = u8;

    #[inline]
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<u8> {
        if common.hash != HashKind::Xxh3 {
            return Err(Error::UnsupportedHash);
        }
        let reserved = image::zeroed(image, 50..56) && image::zeroed(image, 80..HEADER_LEN);
        let flag_ok = image.get(OFF_MARTINGALE_VALID).is_some_and(|v| *v <= 1);
        if common.header_len != HEADER_LEN || common.flags != 0 || !reserved || !flag_ok {
            return Err(Error::CorruptHeader);
        }
        let p = image.get(OFF_PRECISION).copied().ok_or(Error::BufferTooSmall)?;
        check_precision(p).map_err(|_| Error::CorruptHeader)?;
        if image.len() as u64 != image::padded_len((HEADER_LEN + (1usize << p)) as u64) {
            return Err(Error::CorruptHeader);
        }
        Ok(p)
    }

    #[inline]
    fn body_len(_common: &CommonHeader, p: &u8) -> usize {
        1usize << *p
    }

    fn check_body(_common: &CommonHeader, p: &u8, image: &[u8]) -> Result<()> {
        check_registers(image, *p)
    }
}

/// Writes an empty sketch of precision `p` into `buf` (8-byte aligned, at
/// least [`image_len`] bytes). Errors: [`Error::InvalidParameter`],
/// [`Error::BufferTooSmall`], [`Error::Misaligned`]; `buf` unchanged then.
pub fn init(buf: &mut [u8], p: u8, seed: u64) -> Result<UllMut<'_>> {
    let image_len = image_len(p)?;
    let family = FamilyId::UltraLogLog;
    let fresh = Fresh { family, hash: HashKind::Xxh3, header_len: HEADER_LEN, flags: 0, seed, image_len };
    let image = image::start_image(buf, fresh)?;
    if let Some(v) = image.get_mut(OFF_PRECISION) {
        *v = p;
    }
    let mut sketch = wrap_mut(image)?;
    sketch.reset();
    Ok(sketch)
}

/// Validates a live image and returns a read-only view (zero-copy, O(1)).
#[inline]
pub fn wrap(buf: &[u8]) -> Result<Ull<'_>> {
    let parts = image::split::<UllImage>(buf)?;
    Ok(Ull { header: parts.header, registers: parts.body, p: parts.layout, seed: parts.common.seed })
}

/// Validates a live image and returns a mutable view (zero-copy, O(1)).
#[inline]
pub fn wrap_mut(buf: &mut [u8]) -> Result<UllMut<'_>> {
    let parts = image::split_mut::<UllImage>(buf)?;
    Ok(UllMut { header: parts.header, registers: parts.body, p: parts.layout, seed: parts.common.seed })
}
/// The number of bytes [`export`] writes for the live image in `src` (its
/// image length), so a destination can be sized first. Errors: image errors.
pub fn exported_len(src: &[u8]) -> Result<usize> {
    image::exported_len::<UllImage>(src)
}

/// Copies the live image to `dst` with its checksum. Returns the bytes written.
///
/// Errors: as [`crate::image::export`].
pub fn export(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::export::<UllImage>(src, dst)
}

/// True when `r` is a register byte some stream of hashes can produce at `p`.
pub const fn is_legal_register(r: u8, p: u8) -> bool {
    let low = 4 * p - 4;
    r == 0 || r == low || r == low + 4 || r == low + 6 || r >= low + 8
}

fn check_registers(bytes: &[u8], p: u8) -> Result<()> {
    let registers = bytes.get(HEADER_LEN..HEADER_LEN + (1usize << p)).ok_or(Error::BufferTooSmall)?;
    if !registers.iter().all(|r| is_legal_register(*r, p)) {
        return Err(Error::CorruptBody);
    }
    let estimate = image::get_f64(bytes, OFF_MARTINGALE).unwrap_or(f64::NAN);
    let stored = read_u128(bytes, OFF_CHANGE_WEIGHT);
    let consistent = if bytes.get(OFF_MARTINGALE_VALID) == Some(&1) {
        estimate.is_finite() && estimate >= 0.0 && stored == total_change_weight(registers, p)
    } else {
        estimate.to_bits() == 0 && stored == 0
    };
    if consistent {
        Ok(())
    } else {
        Err(Error::CorruptBody)
    }
}

fn read_u128(bytes: &[u8], off: usize) -> u128 {
    let lo = image::get_u64(bytes, off).unwrap_or(0);
    let hi = image::get_u64(bytes, off + 8).unwrap_or(0);
    (u128::from(hi) << 64) | u128::from(lo)
}

fn write_u128(bytes: &mut [u8], off: usize, value: u128) {
    image::put_u64(bytes, off, value as u64);
    image::put_u64(bytes, off + 8, (value >> 64) as u64);
}

/// The probability, in units of 2^-64, that a hash landing in a register in
/// state `r` changes it: update values above the top one (`2^-u`, none at
/// the top value `q + 1`), plus the two below it when not yet seen.
pub(crate) const fn change_weight(r: u8, p: u8) -> u128 {
    if r == 0 {
        return 1u128 << 64;
    }
    let u = (r >> 2) as i32 - p as i32 + 2;
    if u < 1 || u > 65 - p as i32 {
        return 0;
    }
    let q = 64 - p as i32;
    let mut w = if u <= q { 1u128 << (64 - u) } else { 0 };
    if u >= 2 && r & 2 == 0 {
        w += 1u128 << (65 - u);
    }
    if u >= 3 && r & 1 == 0 {
        w += 1u128 << (66 - u);
    }
    w
}

fn total_change_weight(registers: &[u8], p: u8) -> u128 {
    registers.iter().map(|r| change_weight(*r, p)).sum()
}

/// Verifies untrusted bytes (exact length, headers, checksum, every register
/// legal). Errors: header/checksum errors, [`Error::CorruptBody`].
pub fn verify(bytes: &[u8]) -> Result<()> {
    image::verify::<UllImage>(bytes).map(|_| ())
}

/// Bytes of the live image that importing the exported image `src` writes
/// (allocate this much, 64-byte aligned, before [`import`]). Checks the
/// headers and the length, not the checksum.
///
/// Errors: as [`crate::image::import_len`].
pub fn import_len(src: &[u8]) -> Result<usize> {
    image::import_len::<UllImage>(src)
}

/// Verifies untrusted bytes as [`verify`] and copies them into the aligned
/// `dst` (written only on success). Returns the image length.
///
/// Errors: as [`crate::image::import`].
pub fn import(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::import::<UllImage>(src, dst)
}

/// The set of update values a register has seen, as bits at positions
/// `u + p - 2` (zero for an empty register).
#[inline(always)]
pub(crate) const fn unpack(r: u8) -> u64 {
    if r < 8 {
        return 0;
    }
    (4 | (r as u64 & 3)) << ((r >> 2) - 2)
}

/// The register byte of a non-empty seen-set.
#[inline(always)]
pub(crate) const fn pack(seen: u64) -> u8 {
    if seen == 0 {
        return 0;
    }
    let top = 63 - seen.leading_zeros();
    let below = if top >= 2 { (seen >> (top - 2)) & 3 } else { 0 };
    ((top << 2) as u8) | below as u8
}

/// The register byte after merging registers `a` and `b` of the same
/// precision (the union of what both have seen), without unpacking: the
/// larger byte keeps its top value, and the smaller one's top value and
/// history bits, shifted down by the difference `d` of the top values, land
/// on its history bits: `((4 | (lo & 3)) >> min(d, 3)) & 3`. An empty
/// smaller register has `d >= 3` against any legal non-empty one, so it
/// adds nothing without a special case. The vector kernels in [`crate::simd`]
/// compute the same formula 32 or 64 bytes at a time (a table lookup for the shift).
#[inline(always)]
pub(crate) fn merge_register(a: u8, b: u8) -> u8 {
    let (hi, lo) = (a.max(b), a.min(b));
    let d = hi.wrapping_sub(lo & 0xfc) >> 2;
    hi | (((4 | (lo & 3)) >> d.min(3)) & 3)
}

pub(crate) mod kernels {
    /// Same-precision merge of register arrays (see `merge_register`).
    #[inline(always)]
    pub fn merge(dst: &mut [u8], src: &[u8]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = super::merge_register(*d, *s);
        }
    }

    /// `merge_register`'s shift `((4 | j) >> d) & 3` of a smaller register
    /// with history bits `j`, at index `4d + 3 - j` (d < 4), for the vector
    /// kernels in [`crate::simd`] (x86-64 only; other targets merge with
    /// [`merge`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub const REVERSED_HISTORY: [u8; 16] = [3, 2, 1, 0, 3, 3, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0];
}

/// Writes into `buf` the HyperLogLog of the same precision and seed that
/// the hashes `src` has seen give (each register keeps its largest update
/// value). Errors: as [`crate::hll::init`].
pub fn to_hll<'a>(src: &Ull<'_>, buf: &'a mut [u8]) -> Result<HllMut<'a>> {
    let mut out = hll::init(buf, src.p, src.seed)?;
    let p = src.p;
    let values = src.registers.iter().map(|r| if *r == 0 { 0 } else { ((r >> 2) + 2).saturating_sub(p) });
    out.set_register_values(values)?;
    Ok(out)
}

/// psi(z) = eta_X z^3 + (eta_2 - eta_3) z^2 + (eta_1 - eta_3) z + eta_3.
fn psi(z: f64) -> f64 {
    ((ETA_X * z + (ETA[2] - ETA[3])) * z + (ETA[1] - ETA[3])) * z + ETA[3]
}

/// sigma(z) = (1/z) sum_j 2^(tau j) (z^(2^j) - z^(2^(j+1))) psi(z^(2^(j+1))).
fn sigma(z: f64) -> f64 {
    if z <= 0.0 {
        return ETA[3];
    }
    if z >= 1.0 {
        return f64::INFINITY;
    }
    let (mut pow_z, mut weight, mut sum) = (z, 1.0, 0.0);
    for _ in 0..128 {
        let next = pow_z * pow_z;
        let previous = sum;
        sum += weight * (pow_z - next) * psi(next);
        if sum <= previous {
            break;
        }
        pow_z = next;
        weight *= POW_2_TAU;
    }
    sum / z
}

/// The large-range series phi of the paper at `z`.
fn phi(z: f64) -> f64 {
    if z <= 0.0 {
        return 0.0;
    }
    if z >= 1.0 {
        return ETA[0] / (POW_2_TAU * (2.0 * POW_2_TAU - 1.0));
    }
    let mut pow_z = z;
    let mut next_pow = crate::simd::sqrt(pow_z);
    let mut factor = ETA_X * POW_4_MINUS_TAU / (2.0 - POW_2_MINUS_TAU) / (1.0 + next_pow);
    let mut ps = psi(pow_z) / ETA_X;
    let mut sum = next_pow * 2.0 * ps * factor;
    for _ in 0..128 {
        pow_z = next_pow;
        next_pow = crate::simd::sqrt(pow_z);
        let next_ps = psi(pow_z) / ETA_X;
        factor *= POW_2_MINUS_TAU / (1.0 + next_pow);
        let previous = sum;
        sum += next_pow * (2.0 * next_ps - (pow_z + next_pow) * ps) * factor;
        if sum <= previous {
            break;
        }
        ps = next_ps;
    }
    sum
}

/// FGRA estimate from a histogram of register bytes at precision `p`.
fn fgra_estimate<R: RegisterBlocks + ?Sized>(registers: &R, p: u8) -> f64 {
    let m = (1u64 << p) as f64;
    let low = 4 * usize::from(p) - 4;
    // Regular registers: eta[history bits] * 2^(-tau u), summed per block;
    // the edge values (0, low, low + 4, low + 6 and 252..=255) are counted.
    let mut sum = 0.0;
    let mut edge = [0u64; 8];
    registers.for_each_histogram(|histogram| {
        let count = |r: usize| u64::from(histogram.get(r).copied().unwrap_or(0));
        // 2^(-tau u) for u = 3 (the first regular value, r = low + 8) by
        // repeated multiplication from 1, then one factor per step of u.
        let mut weight = 1.0;
        for _ in 0..3 {
            weight *= POW_2_MINUS_TAU;
        }
        for r in low + 8..252 {
            let eta = ETA.get(r & 3).copied().unwrap_or(0.0);
            sum += count(r) as f64 * eta * weight;
            if r & 3 == 3 {
                weight *= POW_2_MINUS_TAU;
            }
        }
        for (e, r) in edge.iter_mut().zip([0, low, low + 4, low + 6, 252, 253, 254, 255]) {
            *e += count(r);
        }
    });
    let count = |i: usize| edge.get(i).copied().unwrap_or(0) as f64;
    let (c0, c4, c8, c10) = (count(0), count(1), count(2), count(3));
    if c0 + c4 + c8 + c10 > 0.0 {
        let alpha = m + 3.0 * (c0 + c4 + c8 + c10);
        let beta = m - c0 - c4;
        let gamma = 4.0 * c0 + 2.0 * c4 + 3.0 * c8 + c10;
        let root = (crate::simd::sqrt(beta * beta + 4.0 * alpha * gamma) - beta) / (2.0 * alpha);
        let z = root * root * root * root;
        if c0 > 0.0 {
            sum += c0 * sigma(z);
        }
        sum += c4 * POW_2_MINUS_TAU * psi(z);
        sum += c8 * POW_4_MINUS_TAU * (z * (ETA[0] - ETA[1]) + ETA[1]);
        sum += c10 * POW_4_MINUS_TAU * (z * (ETA[2] - ETA[3]) + ETA[3]);
    }
    // Large range: registers at the largest update value 65 - p.
    let big = [count(4), count(5), count(6), count(7)];
    let big_total = big.iter().sum::<f64>();
    if big_total > 0.0 {
        let [b0, b1, b2, b3] = big;
        let alpha = m + 3.0 * big_total;
        let beta = b0 + b1 + 2.0 * (b2 + b3);
        let gamma = m + 2.0 * b0 + b2 - b3;
        let z =
            crate::simd::sqrt((crate::simd::sqrt(beta * beta + 4.0 * alpha * gamma) - beta) / (2.0 * alpha));
        let root_z = crate::simd::sqrt(z);
        let mut s = phi(root_z) * big_total;
        s += z * (1.0 + root_z) * (b0 * ETA[0] + b1 * ETA[1] + b2 * ETA[2] + b3 * ETA[3]);
        s += root_z
            * ((b0 + b1) * POW_2_MINUS_TAU * (z * (ETA[0] - ETA[2]) + ETA[2])
                + (b2 + b3) * POW_2_MINUS_TAU * (z * (ETA[1] - ETA[3]) + ETA[3]));
        let mut top = 1.0; // 2^(-tau (65 - p)), multiplied up as the regular weights are
        for _ in 0..65 - usize::from(p) {
            top *= POW_2_MINUS_TAU;
        }
        sum += s * top / ((1.0 + root_z) * (1.0 + z));
    }
    let lambda = libm::pow(m, 1.0 + 1.0 / TAU) / (1.0 + (1.0 + TAU) * V / (2.0 * m));
    lambda * libm::pow(sum, -1.0 / TAU)
}

/// Where the estimators read the registers from: a byte slice, or the
/// atomic words of a shared image.
trait RegisterBlocks {
    /// Calls `f` with the histogram of each block of [`BLOCK_REGISTERS`].
    fn for_each_histogram(&self, f: impl FnMut(&[u8; 256]));
}

impl RegisterBlocks for [u8] {
    #[inline]
    fn for_each_histogram(&self, f: impl FnMut(&[u8; 256])) {
        block_histograms(self, f)
    }
}

/// Registers per histogram block: at most 255 (u8 counts) and a whole
/// number of 64-bit words (the shared view reads words), the same for both
/// so that both sum the blocks in the same order (bit-identical estimates).
const BLOCK_REGISTERS: usize = 248;

/// Calls `f` with the histogram of register bytes of each block of
/// [`BLOCK_REGISTERS`]: `u8` counts keep it at 256 bytes of stack (every
/// exported function stays within 1 KiB), and the estimators need only
/// sums over the counts, which add up across blocks.
#[inline]
fn block_histograms(registers: &[u8], mut f: impl FnMut(&[u8; 256])) {
    for block in registers.chunks(BLOCK_REGISTERS) {
        let mut histogram = [0u8; 256];
        for r in block {
            if let Some(c) = histogram.get_mut(usize::from(*r)) {
                *c = c.wrapping_add(1);
            }
        }
        f(&histogram);
    }
}

/// Maximum-likelihood estimate from the register bytes at precision `p`.
///
/// Poisson model: with `lambda = n / m` distinct hashes per register, update
/// value `k` occurs in a register with rate `lambda rho_k` (`rho_k = 2^-k`,
/// and `rho_(65-p) = 2^-(64-p)`, the same as `rho_(64-p)`), independently
/// for every `k`. A register's byte says which values were seen (its top
/// value and the two history bits) and which were not (everything above the
/// top, and the history bits that are 0), so the log-likelihood of all
/// registers is `-lambda A + sum_k s_k ln(1 - exp(-lambda rho_k))`, where
/// `A` sums `rho` over the values known unseen and `s_k` counts registers
/// known to have seen `k`. It is concave; its maximum solves
/// `F(lambda) = sum_k s_k rho_k / (exp(lambda rho_k) - 1) = A`, with `F`
/// convex and decreasing, so Newton's method started below the root rises
/// monotonically to it. The estimate `m lambda` is divided by
/// `1 + ML_BIAS_CORRECTION / m`, its first-order bias.
fn ml_estimate<R: RegisterBlocks + ?Sized>(registers: &R, p: u8) -> f64 {
    let p = usize::from(p);
    let top = 65 - p; // the largest update value
                      // `unseen` is A in units of 2^-64 (exact: at most 2^18 registers of at most 1).
    let mut unseen: u128 = 0;
    // Registers known to have seen each value (at most 3 per register: u32).
    let mut seen = [0u32; 64];
    let mass = |k: usize| 1u128 << (64 - k.min(64));
    registers.for_each_histogram(|histogram| {
        let mut add_seen = |k: usize, count: u32| {
            if let Some(s) = seen.get_mut(k.min(top - 1)) {
                *s = s.saturating_add(count);
            }
        };
        for (r, c) in histogram.iter().enumerate() {
            let (count, count_u32) = (u128::from(*c), u32::from(*c));
            if *c == 0 {
                continue;
            }
            if r == 0 {
                unseen += count << 64;
                continue;
            }
            let Some(u) = ((r >> 2) + 2).checked_sub(p).filter(|u| *u >= 1) else {
                continue; // illegal byte (refused when the image was opened)
            };
            if u < top {
                unseen += count * mass(u); // every value above u: 2^-u in all
            }
            add_seen(u, count_u32);
            for (j, bit) in [(u - 1, 2), (u.saturating_sub(2), 1)] {
                if j == 0 {
                    continue;
                }
                if r & bit != 0 {
                    add_seen(j, count_u32);
                } else {
                    unseen += count * mass(j);
                }
            }
        }
    });
    let total_seen: f64 = seen.iter().map(|s| f64::from(*s)).sum();
    if total_seen == 0.0 {
        return 0.0;
    }
    if unseen == 0 {
        // Every register holds the largest value with both history bits.
        return f64::INFINITY;
    }
    let a = (unseen >> 64) as u64 as f64 + (unseen as u64) as f64 * (1.0 / 18_446_744_073_709_551_616.0);
    // F and -F' at x: from the largest value down, e^(x rho_k) - 1 comes from
    // the previous one by doubling the exponent, expm1(2y) = expm1(y) (expm1(y) + 2),
    // so one `expm1` per evaluation. -d/dx of rho / (e^(x rho) - 1) is
    // rho^2 e^(x rho) / (e^(x rho) - 1)^2.
    let eval = |x: f64| {
        let (mut f, mut slope) = (0.0, 0.0);
        let mut rho = libm::ldexp(1.0, 1 - top as i32);
        let mut up = libm::expm1(x * rho);
        for s in seen.iter().take(top).skip(1).rev() {
            let s = f64::from(*s);
            if !up.is_finite() {
                break; // this and every smaller value contribute nothing
            }
            if s > 0.0 {
                f += s * rho / up;
                slope += s * rho * rho * (up + 1.0) / (up * up);
            }
            up *= up + 2.0;
            rho *= 2.0;
        }
        (f, slope)
    };
    // F(x) <= total_seen / x, so the root is at most total_seen / A; halve
    // from there until F(x) >= A (below the root).
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
        // Stops at convergence, and on a zero slope (step infinite or NaN).
        if step.is_nan() || step.is_infinite() || step <= x * 1e-10 {
            break;
        }
        x += step;
    }
    let m = (1u64 << p) as f64;
    m * x / (1.0 + ML_BIAS_CORRECTION / m)
}

/// A read-only view of a validated UltraLogLog image.
#[derive(Copy, Clone)]
pub struct Ull<'a> {
    header: &'a [u8],
    registers: &'a [u8],
    p: u8,
    seed: u64,
}

crate::image::debug_view!(Ull [p, seed]);

impl<'a> Ull<'a> {
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

    /// The register bytes (`m` of them).
    pub fn registers(&self) -> &'a [u8] {
        self.registers
    }

    /// Register byte `i` (0 when out of range).
    pub fn register(&self, i: usize) -> u8 {
        self.registers.get(i).copied().unwrap_or(0)
    }

    /// Registers above zero. O(m).
    pub fn registers_set(&self) -> u32 {
        self.registers.iter().filter(|r| **r != 0).count() as u32
    }

    /// Distinct-count estimate: the martingale estimate while valid (O(1)),
    /// else [`Ull::register_estimate`].
    pub fn estimate(&self) -> f64 {
        if self.martingale_valid() {
            image::get_f64(self.header, OFF_MARTINGALE).unwrap_or(0.0)
        } else {
            self.register_estimate()
        }
    }

    /// True while the sketch saw only its own stream (no merge).
    pub fn martingale_valid(&self) -> bool {
        self.header.get(OFF_MARTINGALE_VALID) == Some(&1)
    }

    /// The estimate from the registers alone (FGRA): what a merged sketch
    /// reports. O(m).
    pub fn register_estimate(&self) -> f64 {
        fgra_estimate(self.registers, self.p)
    }

    /// The maximum-likelihood estimate from the registers alone: relative
    /// standard error about `0.761 / sqrt(m)` (FGRA: 0.782), at the cost of
    /// a few dozen `exp` evaluations per Newton step on top of the O(m)
    /// register scan. Infinite only when every register holds the largest
    /// value with both history bits (about 2^64 distinct hashes).
    pub fn ml_estimate(&self) -> f64 {
        ml_estimate(self.registers, self.p)
    }

    /// All statistics. O(m).
    pub fn stats(&self) -> UllStats {
        UllStats {
            precision: self.p,
            seed: self.seed,
            registers_set: self.registers_set(),
            estimate: self.estimate(),
            martingale: self.martingale_valid(),
            image_bytes: image::padded_len((HEADER_LEN + self.registers.len()) as u64),
        }
    }
}

/// An exclusive, mutable view of a validated UltraLogLog image.
pub struct UllMut<'a> {
    header: &'a mut [u8],
    registers: &'a mut [u8],
    p: u8,
    seed: u64,
}

crate::image::debug_view!(UllMut [p, seed]);

impl<'a> UllMut<'a> {
    /// A read-only view of the same image.
    pub fn as_ref(&self) -> Ull<'_> {
        Ull { header: self.header, registers: self.registers, p: self.p, seed: self.seed }
    }

    /// Adds a key; true when a register changed.
    #[inline]
    pub fn add(&mut self, key: &[u8]) -> bool {
        self.add_hash(hash::hash_bytes(key, self.seed))
    }

    /// [`UllMut::add`] for an integer key (hashed as 8 little-endian bytes).
    #[inline]
    pub fn add_u64(&mut self, key: u64) -> bool {
        self.add_hash(hash::hash_u64(key, self.seed))
    }

    /// [`UllMut::add`] for a precomputed, uniformly distributed 64-bit hash.
    #[inline]
    pub fn add_hash(&mut self, hash: u64) -> bool {
        simd::with_lzcnt(
            #[inline(always)]
            || self.add_one(hash),
        )
    }

    /// [`UllMut::add_hash`] without the LZCNT dispatch (its callers run it
    /// inside [`simd::with_lzcnt`]).
    #[inline(always)]
    fn add_one(&mut self, hash: u64) -> bool {
        let (i, k) = split_hash(hash, self.p);
        let Some(r) = self.registers.get_mut(i) else {
            return false;
        };
        let old = *r;
        let updated = pack(unpack(old) | (1u64 << (u32::from(k) + u32::from(self.p) - 2)));
        if updated <= old {
            return false;
        }
        *r = updated;
        self.count_change(old, updated);
        true
    }

    /// Martingale step of one register change: adds `1 / P` (P before the
    /// change), then updates P.
    #[inline(never)]
    fn count_change(&mut self, old: u8, new: u8) {
        if self.header.get(OFF_MARTINGALE_VALID) != Some(&1) {
            return;
        }
        let weight = read_u128(self.header, OFF_CHANGE_WEIGHT);
        let m = (1u64 << self.p) as f64;
        let p_change = (weight >> 64) as u64 as f64 / m
            + (weight as u64) as f64 / m * (1.0 / 18_446_744_073_709_551_616.0);
        if p_change > 0.0 {
            let estimate = image::get_f64(self.header, OFF_MARTINGALE).unwrap_or(0.0) + 1.0 / p_change;
            image::put_f64(self.header, OFF_MARTINGALE, estimate);
        }
        let weight = weight.wrapping_sub(change_weight(old, self.p)).wrapping_add(change_weight(new, self.p));
        write_u128(self.header, OFF_CHANGE_WEIGHT, weight);
    }

    fn invalidate_martingale(&mut self) {
        if let Some(v) = self.header.get_mut(OFF_MARTINGALE_VALID) {
            *v = 0;
        }
        image::put_f64(self.header, OFF_MARTINGALE, 0.0);
        write_u128(self.header, OFF_CHANGE_WEIGHT, 0);
    }

    /// Batch add of precomputed hashes.
    pub fn add_hashes(&mut self, hashes: &[u64]) {
        simd::with_lzcnt(
            #[inline(always)]
            || {
                for h in hashes {
                    self.add_one(*h);
                }
            },
        )
    }

    /// Merges `other` (same seed, precision at least this one's; a higher
    /// precision folds down). Merging disjoint parts gives exactly the
    /// registers of adding everything to one sketch.
    /// Errors: [`Error::Incompatible`] (nothing changes then).
    pub fn merge(&mut self, other: &Ull<'_>) -> Result<()> {
        if other.seed != self.seed || other.p < self.p {
            return Err(Error::Incompatible);
        }
        self.invalidate_martingale();
        if other.p == self.p {
            crate::simd::ull_merge(self.registers, other.registers);
            return Ok(());
        }
        let d = u32::from(other.p - self.p);
        let group = 1usize << d;
        let high_p = u32::from(other.p);
        // Register i takes the source's registers i * group .. (i + 1) * group
        // (ranges, not `chunks_exact`: no panic path at any optimization level).
        for (i, r) in self.registers.iter_mut().enumerate() {
            let Some(block) = other.registers.get(i * group..(i + 1) * group) else { break };
            let mut seen = unpack(*r) | block.first().map_or(0, |b| unpack(*b));
            for (t, b) in block.iter().enumerate().skip(1) {
                if *b != 0 {
                    seen |= 1u64 << (high_p - 2 - (usize::BITS - 1 - t.leading_zeros()));
                }
            }
            if seen != 0 {
                *r = pack(seen);
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
        write_u128(self.header, OFF_CHANGE_WEIGHT, (1u128 << 64) * (1u128 << self.p));
    }
}

#[cfg(target_has_atomic = "64")]
/// A shared view of a live UltraLogLog that many threads may add to at
/// once (see [`crate::shared`]): each 8-bit register is raised with a
/// compare-and-swap loop on the 64-bit word holding it (the update is a
/// join: the result does not depend on the order), so once every add has
/// returned the registers equal those of the same adds made one at a time.
/// The martingale estimate does not survive concurrent adds: the first one
/// marks it invalid, as a merge does; estimates then come from the
/// registers (FGRA, `0.782/sqrt(m)`, or maximum likelihood).
#[derive(Copy, Clone)]
pub struct SharedUll<'a> {
    words: AtomicWords<'a>,
    p: u8,
    seed: u64,
}

#[cfg(target_has_atomic = "64")]
crate::image::debug_view!(SharedUll [p, seed] shared);

#[cfg(target_has_atomic = "64")]
/// Word of the first register.
const REGISTER_WORD: usize = HEADER_LEN / 8;

#[cfg(target_has_atomic = "64")]
/// The immutable header checks, for the shared view.
fn shared_shape(common: &CommonHeader, header: &[u8]) -> Result<u8> {
    if common.hash != HashKind::Xxh3 {
        return Err(Error::UnsupportedHash);
    }
    let reserved = image::zeroed(header, 50..56) && image::zeroed(header, 80..HEADER_LEN);
    if common.header_len != HEADER_LEN || common.flags != 0 || !reserved {
        return Err(Error::CorruptHeader);
    }
    let p = header.get(OFF_PRECISION).copied().ok_or(Error::BufferTooSmall)?;
    check_precision(p).map_err(|_| Error::CorruptHeader)?;
    if common.image_len as u64 != image::padded_len((HEADER_LEN + (1usize << p)) as u64) {
        return Err(Error::CorruptHeader);
    }
    Ok(p)
}

#[cfg(target_has_atomic = "64")]
/// Validates the immutable header of a live image seen as atomic words and
/// returns the shared view. Errors: as [`wrap`].
pub fn wrap_shared(words: AtomicWords<'_>) -> Result<SharedUll<'_>> {
    let header: [u8; HEADER_LEN] = words.snapshot();
    let common = words.common(&header, FamilyId::UltraLogLog)?;
    let p = shared_shape(&common, &header)?;
    Ok(SharedUll { words, p, seed: common.seed })
}

#[cfg(target_has_atomic = "64")]
impl SharedUll<'_> {
    /// Precision `p`.
    pub fn precision(&self) -> u8 {
        self.p
    }

    /// The hash function of the image.
    pub fn key_hasher(&self) -> KeyHasher {
        KeyHasher { kind: HashKind::Xxh3, seed: self.seed }
    }

    /// Adds a byte key; true when a register changed. Thread-safe.
    #[inline]
    pub fn add(&self, key: &[u8]) -> bool {
        self.add_hash(hash::hash_bytes(key, self.seed))
    }

    /// Adds an integer key (8 little-endian bytes). Thread-safe.
    #[inline]
    pub fn add_u64(&self, key: u64) -> bool {
        self.add_hash(hash::hash_u64(key, self.seed))
    }

    /// Adds a batch of precomputed hashes. Thread-safe.
    pub fn add_hashes(&self, hashes: &[u64]) {
        for h in hashes {
            self.add_hash(*h);
        }
    }

    /// Adds a precomputed hash; true when a register changed. Thread-safe.
    pub fn add_hash(&self, h: u64) -> bool {
        let (i, k) = split_hash(h, self.p);
        let shift = 8 * (i % 8) as u32;
        let seen = 1u64 << (u32::from(k) + u32::from(self.p) - 2);
        let changed = self
            .words
            .update(REGISTER_WORD + i / 8, Ordering::Relaxed, |w| {
                let old = (w >> shift) as u8;
                let updated = pack(unpack(old) | seen);
                (updated > old).then_some((w & !(0xffu64 << shift)) | (u64::from(updated) << shift))
            })
            .is_some();
        if changed {
            self.end_martingale();
        }
        changed
    }

    /// The first concurrent change ends the martingale estimate.
    fn end_martingale(&self) {
        let valid_word = OFF_MARTINGALE_VALID / 8;
        let valid_shift = 8 * (OFF_MARTINGALE_VALID % 8);
        if (self.words.load(valid_word) >> valid_shift) & 0xff == 0 {
            return;
        }
        if let Some(w) = self.words.word(valid_word) {
            w.fetch_and(!(0xffu64 << valid_shift), Ordering::Relaxed);
        }
        for off in [OFF_MARTINGALE, OFF_CHANGE_WEIGHT, OFF_CHANGE_WEIGHT + 8] {
            if let Some(w) = self.words.word(off / 8) {
                w.store(0, Ordering::Relaxed);
            }
        }
    }

    /// The FGRA estimate from relaxed loads of the registers: exact once
    /// the adds are done, approximate while they run. O(m). Thread-safe.
    pub fn estimate(&self) -> f64 {
        fgra_estimate(self, self.p)
    }
}

#[cfg(target_has_atomic = "64")]
impl RegisterBlocks for SharedUll<'_> {
    /// Blocks of [`BLOCK_REGISTERS`] read with relaxed loads.
    fn for_each_histogram(&self, mut f: impl FnMut(&[u8; 256])) {
        const WORDS: usize = BLOCK_REGISTERS / 8;
        let total = (1usize << self.p) / 8;
        let mut start = 0;
        while start < total {
            let mut histogram = [0u8; 256];
            for w in start..(start + WORDS).min(total) {
                for byte in self.words.load(REGISTER_WORD + w).to_le_bytes() {
                    if let Some(c) = histogram.get_mut(usize::from(byte)) {
                        *c = c.wrapping_add(1);
                    }
                }
            }
            f(&histogram);
            start += WORDS;
        }
    }
}

#[cfg(test)]
mod tests;
