//! Pieces shared by the cardinality sketches ([`crate::hll`], [`crate::ull`]).
//!
//! Both split a 64-bit hash the same way, so a HyperLogLog and an
//! UltraLogLog fed the same keys see the same register index and update
//! value, and a ULL converts exactly into the HLL of the same stream:
//!
//! * register index `i` = the top `p` bits of the hash;
//! * update value `k` = 1 + the number of leading zeros of the remaining
//!   `q = 64 - p` bits, or `q + 1` when they are all zero; so `k` is in
//!   `1 ..= q + 1` and `P(k) = 2^-k` (`2^-q` for `k = q + 1`).

use crate::error::{Error, Result};

/// Smallest precision `p` (16 registers).
pub const MIN_PRECISION: u8 = 4;
/// Largest precision `p` (262,144 registers).
pub const MAX_PRECISION: u8 = 18;

/// Checks `MIN_PRECISION <= p <= MAX_PRECISION`.
/// Errors: [`Error::InvalidParameter`] otherwise.
pub const fn check_precision(p: u8) -> Result<()> {
    if p < MIN_PRECISION || p > MAX_PRECISION {
        return Err(Error::InvalidParameter);
    }
    Ok(())
}

/// The register index (top `p` bits) and update value `k` (see the module
/// docs) of `hash` for precision `p` (`MIN_PRECISION ..= MAX_PRECISION`).
///
/// Never panics: for a `p` outside that range (which no sketch accepts) the
/// pair is unspecified, in debug builds as in release builds.
#[inline(always)]
pub const fn split_hash(hash: u64, p: u8) -> (usize, u8) {
    let p = p as u32;
    // Wrapping shifts are the plain shift instructions; they only make an
    // out-of-range `p` unspecified instead of a debug-build panic.
    let index = hash.wrapping_shr(64u32.wrapping_sub(p)) as usize;
    // The remaining q bits moved to the top, with a sentinel bit at p - 1 so
    // that all-zero remaining bits count q leading zeros (k = q + 1).
    let rest = hash.wrapping_shl(p) | 1u64.wrapping_shl(p.wrapping_sub(1));
    (index, rest.leading_zeros() as u8 + 1)
}

/// The update value a hash of register `j` (precision `p_high`) has in the
/// register `j >> d` at precision `p_high - d`, given its value `k` at
/// `p_high` (`k > 0`). The `d` index bits dropped become the leading bits of
/// the remaining part: if they are all zero the value grows by `d`, else it
/// is set by the position of their highest one bit.
///
/// Never panics: for arguments no fold produces (`d` of 64 or more, a sum
/// past 255) the value is unspecified, in debug builds as in release builds.
#[inline(always)]
pub const fn folded_value(j: usize, d: u32, k: u8) -> u8 {
    let dropped = j & 1usize.wrapping_shl(d).wrapping_sub(1);
    if dropped == 0 {
        k.wrapping_add(d as u8)
    } else {
        d.wrapping_sub(usize::BITS - 1 - dropped.leading_zeros()) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_hash_takes_index_from_the_top_and_counts_zeros_after_it() {
        // p = 4: index = top 4 bits; the next bit set -> k = 1.
        assert_eq!(split_hash(0xA800_0000_0000_0000, 4), (0xA, 1));
        // Next bits 001 -> k = 3.
        assert_eq!(split_hash(0x3200_0000_0000_0000, 4), (0x3, 3));
        // All remaining bits zero -> k = q + 1 = 61.
        assert_eq!(split_hash(0xF000_0000_0000_0000, 4), (0xF, 61));
        // Lowest bit only -> k = q = 60.
        assert_eq!(split_hash(0xF000_0000_0000_0001, 4), (0xF, 60));
        assert_eq!(split_hash(u64::MAX, 18), ((1 << 18) - 1, 1));
        assert_eq!(split_hash(0, 18), (0, 47));
    }

    #[test]
    fn folding_matches_splitting_at_the_lower_precision() {
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..10_000 {
            x = crate::hash::remix(x.wrapping_add(0x9e37_79b9_7f4a_7c15));
            for (high, low) in [(14u8, 12u8), (18, 4), (10, 9), (5, 4)] {
                let (j, k) = split_hash(x, high);
                let expected = split_hash(x, low);
                let d = u32::from(high - low);
                assert_eq!((j >> d, folded_value(j, d, k)), expected, "hash {x:#x} {high}->{low}");
            }
        }
    }

    #[test]
    fn out_of_range_arguments_do_not_panic_in_debug_builds() {
        // Public helpers on the add path: arguments no sketch passes give an
        // unspecified pair, never an overflow panic (tests build with
        // overflow checks on).
        for p in [0u8, 1, 3, 19, 63, 64, 65, 200, 255] {
            for hash in [0u64, 1, u64::MAX, 0x8000_0000_0000_0000] {
                let (_, k) = core::hint::black_box(split_hash(hash, p));
                assert!((1..=65).contains(&k), "p {p} hash {hash:#x}: k {k}");
            }
        }
        for d in [0u32, 17, 63, 64, 65, 200, u32::MAX] {
            for (j, k) in [(0usize, 255u8), (1, 1), (usize::MAX, 65), (12345, 0)] {
                core::hint::black_box(folded_value(j, d, k));
            }
        }
        // In range, nothing changed.
        assert_eq!(split_hash(0x3200_0000_0000_0000, 4), (0x3, 3));
        assert_eq!(folded_value(0b100, 3, 5), 1);
        assert_eq!(folded_value(0b1000, 3, 5), 8);
    }

    #[test]
    fn precision_bounds() {
        assert!(check_precision(3).is_err());
        assert!(check_precision(4).is_ok());
        assert!(check_precision(18).is_ok());
        assert!(check_precision(19).is_err());
    }
}
