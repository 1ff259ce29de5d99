//! Parquet bloom filter interop: value hashing, writers' sizing rules and
//! folding, over plain byte slices.
//!
//! A Parquet bloom filter is a split-block bitset ([`crate::sbbf`] in
//! Parquet mode, whose body is exactly these bytes) over the XXH64 (seed 0)
//! hashes of each value: a fixed-width value's PLAIN encoding, a
//! BYTE_ARRAY's raw bytes without the PLAIN length prefix. To reproduce or query a writer's
//! filter:
//!
//! 1. **Hash** values as the writers do: [`hash_i32`], [`hash_i64`],
//!    [`hash_f32`], [`hash_f64`], [`hash_bytes`] (checked against DuckDB,
//!    pyarrow and the parquet crate by `tests/tests/parquet.rs` and the
//!    fixtures in `tests/parquet/`).
//! 2. **Size** the bitset from the writer's settings (`ndv`, `fpp`) with the
//!    writer's rule, [`ParquetSizing::bitset_bytes`] (used by
//!    [`crate::sbbf::SbbfParams::for_parquet_sizing`]).
//! 3. **Fold** after inserting, as the parquet crate (since 58/60) and Arrow
//!    C++ (pyarrow 26) do before writing: [`folds_for_target_fpp`] and
//!    [`fold_bitset`], or [`crate::sbbf::SbbfMut::fold`] on a live image.
//!    DuckDB sizes its filter from the exact dictionary size and does not fold.
//!
//! To query a bitset read out of a file, load it into a live image with
//! [`crate::sbbf::load_parquet_bitset`].
//!
//! Every function here is pure, allocation-free and panic-free.

use crate::error::{Error, Result};
use crate::filter;
use crate::hash;

/// Smallest bitset the writers produce (one 32-byte block).
pub const BITSET_MIN_BYTES: u64 = 32;
/// Largest bitset the parquet crate and Arrow C++ produce (128 MiB). DuckDB
/// has no upper clamp.
pub const BITSET_MAX_BYTES: u64 = 128 * 1024 * 1024;

/// Hash of an INT32 value: XXH64 (seed 0) of its 4 little-endian bytes, the
/// PLAIN encoding. Also for DATE, TIME_MILLIS and the narrower integer logical
/// types, which Parquet stores as INT32 (writers sign- or zero-extend first,
/// as their physical encoding does).
#[inline]
pub fn hash_i32(value: i32) -> u64 {
    hash::xxh64(&value.to_le_bytes(), 0)
}

/// Hash of an INT64 value: XXH64 (seed 0) of its 8 little-endian bytes.
/// Also for TIMESTAMP and TIME_MICROS/NANOS values stored as INT64.
#[inline]
pub fn hash_i64(value: i64) -> u64 {
    hash::xxh64(&value.to_le_bytes(), 0)
}

/// Hash of a FLOAT value: XXH64 (seed 0) of its IEEE-754 bits, 4 bytes
/// little-endian, exactly as stored (no normalization: `-0.0` and `0.0`
/// hash differently, and each NaN bit pattern hashes as itself). This is
/// what Arrow C++, the parquet crate and DuckDB write; a reader looking up
/// `0.0` must also look up `-0.0` if it wants both (see
/// `tests/parquet/README.md` for what the fixtures showed).
#[inline]
pub fn hash_f32(value: f32) -> u64 {
    hash::xxh64(&value.to_bits().to_le_bytes(), 0)
}

/// Hash of a DOUBLE value: XXH64 (seed 0) of its IEEE-754 bits, 8 bytes
/// little-endian, exactly as stored (see [`hash_f32`] for `-0.0` and NaN).
#[inline]
pub fn hash_f64(value: f64) -> u64 {
    hash::xxh64(&value.to_bits().to_le_bytes(), 0)
}

/// Hash of a BYTE_ARRAY (string, binary) or FIXED_LEN_BYTE_ARRAY value:
/// XXH64 (seed 0) of its raw bytes, without the 4-byte length prefix that
/// the PLAIN encoding of BYTE_ARRAY carries.
#[inline]
pub fn hash_bytes(value: &[u8]) -> u64 {
    hash::xxh64(value, 0)
}

/// How a Parquet writer turns its `ndv` and `fpp` settings into the initial
/// bitset size. All start from the same bit count
/// `m = -8·ndv / ln(1 - fpp^(1/8))` (the split-block approximation
/// `fpp = (1 - e^(-8·ndv/m))^8` solved for `m`) and differ in rounding.
///
/// Worked out from each writer's source and confirmed on files they wrote
/// (`tests/parquet/generate.py`, `tests/tests/parquet.rs`). Example where
/// they differ: `ndv = 1693`, `fpp = 0.01` gives `m = 16390.8`; the parquet
/// crate and DuckDB plan 2048 bytes, Arrow C++ 4096.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ParquetSizing {
    /// The parquet crate (arrow-rs): `bytes = next_pow2(clamp(floor(m) / 8,
    /// 32, 128 MiB))` (integer division). What [`crate::sbbf::SbbfParams::for_parquet`]
    /// has always planned.
    ParquetRs,
    /// DuckDB (`ParquetBloomFilter`, `ndv` = the column chunk's dictionary
    /// size): `bytes = max(next_pow2(floor(m / 8)), 32)` rounded down to whole
    /// blocks, with no upper clamp. Equal to [`ParquetSizing::ParquetRs`] up to 128 MiB.
    DuckDb,
    /// Arrow C++ (`BlockSplitBloomFilter::OptimalNumOfBits`, used by pyarrow's
    /// `bloom_filter_options`): the *bit* count is rounded up to a power of
    /// two first, `bits = min(next_pow2(clamp(floor(m), 256, 2^30)), 2^30)`,
    /// then `bytes = bits / 8`. Up to twice the parquet crate's size when
    /// `floor(m) / 8` is exactly a power of two and `m` is not a multiple of 8.
    ArrowCpp,
}

impl ParquetSizing {
    /// Initial bitset size in bytes (a power of two, whole 32-byte blocks)
    /// this writer picks for `ndv` distinct values at false-positive rate `fpp`.
    ///
    /// Errors: [`Error::InvalidParameter`] when `ndv` is 0, `fpp` is not in
    /// (0, 1) or so small (below about 1e-128) that `1 - fpp^(1/8)` rounds
    /// to 1 (writers reject these or fall back to an extreme size), or when
    /// the DuckDB rule exceeds 2^32 blocks.
    pub fn bitset_bytes(self, ndv: u64, fpp: f64) -> Result<u64> {
        if ndv == 0 || !filter::valid_fpr(fpp) {
            return Err(Error::InvalidParameter);
        }
        let m = -8.0 * ndv as f64 / libm::log(1.0 - libm::pow(fpp, 1.0 / 8.0));
        // A tiny `fpp` makes `1 - fpp^(1/8)` round to 1 and `m` -inf: refused.
        // An `fpp` within a few ulps of 1 makes it round to 0 and `m` +0: a
        // valid rate, which every writer sizes at its minimum (32 bytes).
        if m.is_nan() || m < 0.0 {
            return Err(Error::InvalidParameter);
        }
        let max_bits = BITSET_MAX_BYTES * 8;
        let bytes = match self {
            // `as` saturates: an infinite or huge m clamps to the maximum.
            ParquetSizing::ParquetRs => {
                ((m as u64) / 8).clamp(BITSET_MIN_BYTES, BITSET_MAX_BYTES).next_power_of_two()
            }
            ParquetSizing::DuckDb => {
                let bytes = ((m / 8.0) as u64).checked_next_power_of_two().ok_or(Error::InvalidParameter)?;
                (bytes / 32).max(1) * 32
            }
            ParquetSizing::ArrowCpp => {
                let bits = if m > max_bits as f64 { max_bits } else { m as u64 };
                bits.max(BITSET_MIN_BYTES * 8).next_power_of_two().min(max_bits) / 8
            }
        };
        if bytes / 32 > crate::sbbf::MAX_PARQUET_BLOCKS {
            return Err(Error::InvalidParameter);
        }
        Ok(bytes)
    }
}

/// Number of set bits and of 32-byte blocks of `bitset`.
///
/// Errors: [`Error::InvalidArgument`] when the length is 0 or not a
/// multiple of 32.
fn census(bitset: &[u8]) -> Result<(u64, u64)> {
    if bitset.is_empty() || !bitset.len().is_multiple_of(32) {
        return Err(Error::InvalidArgument);
    }
    Ok((filter::count_ones(bitset), (bitset.len() / 32) as u64))
}

/// `x^8` by three squarings: the rounding of Rust's `f64::powi(x, 8)`,
/// which the parquet crate uses (Arrow C++ calls `std::pow(x, 8)`, which can
/// differ in the last bit; only an exact tie with `fpp` could tell them apart).
#[inline]
fn pow8(x: f64) -> f64 {
    let x2 = x * x;
    let x4 = x2 * x2;
    x4 * x4
}

/// The writers' estimate of a bitset's false-positive rate: `fill^8`, where
/// `fill` is the fraction of set bits (the parquet crate's
/// `Sbbf::estimated_fpp`). [`crate::sbbf::Sbbf::stats`] gives a finer
/// per-block estimate.
///
/// Errors: [`Error::InvalidArgument`] when the length is 0 or not a multiple of 32.
pub fn estimated_fpp(bitset: &[u8]) -> Result<f64> {
    let (ones, blocks) = census(bitset)?;
    Ok(pow8(ones as f64 / (blocks as f64 * 256.0)))
}

/// How many times the parquet crate (58+) and Arrow C++ (pyarrow 26) fold
/// this bitset before writing it, for target `fpp`: the largest `k` (at most
/// the number of times the block count halves evenly) such that
/// `(1 - (1 - fill)^(2^k))^8 <= fpp`, where `fill` is the fraction of set
/// bits; an all-zero bitset folds down to one block.
///
/// Errors: [`Error::InvalidArgument`] when the length is 0 or not a
/// multiple of 32; [`Error::InvalidParameter`] when `fpp` is not in
/// `(0, 1)` (NaN included), as the planners and Parquet writers refuse it:
/// a rate of 1 (meant as 1%) would fold any filter down to one block.
pub fn folds_for_target_fpp(bitset: &[u8], fpp: f64) -> Result<u32> {
    if !(fpp > 0.0 && fpp < 1.0) {
        return Err(Error::InvalidParameter);
    }
    let (ones, blocks) = census(bitset)?;
    let max_folds = blocks.trailing_zeros();
    if blocks < 2 {
        return Ok(0);
    }
    if ones == 0 {
        return Ok(max_folds);
    }
    let fill = ones as f64 / (blocks as f64 * 256.0);
    let mut unset = 1.0 - fill;
    let mut folds = 0;
    for _ in 0..max_folds {
        unset *= unset;
        if pow8(1.0 - unset) > fpp {
            break;
        }
        folds += 1;
    }
    Ok(folds)
}

/// Folds `bitset` in place `folds` times: block `i` of the result is the OR
/// of blocks `i·2^folds .. (i+1)·2^folds`. Parquet's block rule
/// `((h >> 32)·z) >> 32` sends every hash of old block `j` to new block
/// `j >> folds`, so the result equals the filter built directly at the
/// smaller size (no false negatives). The result occupies the first
/// returned number of bytes; the rest of `bitset` is left as it was.
///
/// Errors: [`Error::InvalidArgument`] when the length is 0 or not a
/// multiple of 32, or the block count is not divisible by `2^folds`.
pub fn fold_bitset(bitset: &mut [u8], folds: u32) -> Result<usize> {
    let (_, blocks) = census(bitset)?;
    let group = 1u64
        .checked_shl(folds)
        .filter(|g| *g <= blocks && blocks.is_multiple_of(*g))
        .ok_or(Error::InvalidArgument)?;
    fold_blocks(bitset, group as usize);
    Ok(bitset.len() / group as usize)
}

/// ORs each run of `group` blocks into the block at the run's index.
pub(crate) fn fold_blocks(body: &mut [u8], group: usize) {
    if group <= 1 {
        return;
    }
    let out_blocks = body.len() / 32 / group;
    for i in 0..out_blocks {
        let mut merged = [0u8; 32];
        if let Some(run) = body.get(i * group * 32..(i + 1) * group * 32) {
            for block in run.as_chunks::<32>().0 {
                for (m, b) in merged.iter_mut().zip(block) {
                    *m |= *b;
                }
            }
        }
        if let Some(dst) = body.get_mut(i * 32..).and_then(|b| b.first_chunk_mut::<32>()) {
            *dst = merged;
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    #[test]
    fn typed_hashes_are_xxh64_of_the_plain_encoding() {
        assert_eq!(hash_i32(-7), xxhash_rust::xxh64::xxh64(&(-7i32).to_le_bytes(), 0));
        assert_eq!(hash_i64(1 << 40), xxhash_rust::xxh64::xxh64(&(1i64 << 40).to_le_bytes(), 0));
        assert_eq!(hash_f32(1.5), xxhash_rust::xxh64::xxh64(&1.5f32.to_le_bytes(), 0));
        assert_eq!(hash_f64(-2.25), xxhash_rust::xxh64::xxh64(&(-2.25f64).to_le_bytes(), 0));
        assert_ne!(hash_f64(0.0), hash_f64(-0.0), "no normalization");
        assert_eq!(hash_bytes(b"user-1"), xxhash_rust::xxh64::xxh64(b"user-1", 0));
        // The parquet crate's own test vector: the empty byte array.
        assert_eq!(hash_bytes(b""), 17_241_709_254_077_376_921);
    }

    #[test]
    fn sizing_rules_differ_where_the_writers_do() {
        // m = 16390.8: floor(m)/8 = 2048 exactly, so only Arrow C++ doubles.
        assert_eq!(ParquetSizing::ParquetRs.bitset_bytes(1693, 0.01), Ok(2048));
        assert_eq!(ParquetSizing::DuckDb.bitset_bytes(1693, 0.01), Ok(2048));
        assert_eq!(ParquetSizing::ArrowCpp.bitset_bytes(1693, 0.01), Ok(4096));
        // Just below and above: all agree.
        for s in [ParquetSizing::ParquetRs, ParquetSizing::DuckDb, ParquetSizing::ArrowCpp] {
            assert_eq!(s.bitset_bytes(1692, 0.01), Ok(2048), "{s:?}");
            assert_eq!(s.bitset_bytes(1694, 0.01), Ok(4096), "{s:?}");
            assert_eq!(s.bitset_bytes(1, 0.5), Ok(32), "{s:?}");
            assert_eq!(s.bitset_bytes(0, 0.5), Err(Error::InvalidParameter));
            assert_eq!(s.bitset_bytes(10, 1.0), Err(Error::InvalidParameter));
            assert_eq!(s.bitset_bytes(10, f64::NAN), Err(Error::InvalidParameter));
        }
        // The 128 MiB clamp, which DuckDB does not have.
        assert_eq!(ParquetSizing::ParquetRs.bitset_bytes(1 << 30, 0.01), Ok(BITSET_MAX_BYTES));
        assert_eq!(ParquetSizing::ArrowCpp.bitset_bytes(1 << 30, 0.01), Ok(BITSET_MAX_BYTES));
        assert_eq!(ParquetSizing::DuckDb.bitset_bytes(1 << 30, 0.01), Ok(2 << 30));
        assert_eq!(ParquetSizing::DuckDb.bitset_bytes(u64::MAX, 0.01), Err(Error::InvalidParameter));
        assert_eq!(ParquetSizing::ArrowCpp.bitset_bytes(u64::MAX, 0.01), Ok(BITSET_MAX_BYTES));
        assert_eq!(ParquetSizing::ArrowCpp.bitset_bytes(5, 1e-300), Err(Error::InvalidParameter));
    }

    /// A rate just below 1 (where `fpp^(1/8)` rounds to 1) is a valid rate:
    /// every writer sizes it at its minimum, one block; it was refused.
    #[test]
    fn rates_just_below_one_plan_one_block() {
        let just_below_one = f64::from_bits(1.0f64.to_bits() - 1);
        for s in [ParquetSizing::ParquetRs, ParquetSizing::DuckDb, ParquetSizing::ArrowCpp] {
            for fpp in [just_below_one, 1.0 - 1e-15] {
                assert_eq!(s.bitset_bytes(1000, fpp), Ok(BITSET_MIN_BYTES), "{s:?} {fpp}");
            }
            // There `m` is 0 whatever the count.
            assert_eq!(s.bitset_bytes(u64::MAX, just_below_one), Ok(BITSET_MIN_BYTES), "{s:?}");
        }
        let params = crate::sbbf::SbbfParams::for_parquet_sizing(1000, just_below_one, ParquetSizing::DuckDb);
        assert_eq!(params.map(|p| p.blocks), Ok(1));
    }

    /// Arrow C++'s rule differs from the parquet crate's exactly when
    /// `floor(m)/8` is a power of two and `m` is not a multiple of 8.
    #[test]
    fn arrow_doubles_only_at_exact_powers_of_two() {
        for fpp in [0.001, 0.01, 0.05, 0.1, 0.3] {
            for ndv in 1..20_000u64 {
                let m = -8.0 * ndv as f64 / libm::log(1.0 - libm::pow(fpp, 1.0 / 8.0));
                let (rs, arrow) = (
                    ParquetSizing::ParquetRs.bitset_bytes(ndv, fpp).unwrap(),
                    ParquetSizing::ArrowCpp.bitset_bytes(ndv, fpp).unwrap(),
                );
                let floor_bytes = (m as u64) / 8;
                let special =
                    floor_bytes >= 32 && floor_bytes.is_power_of_two() && !(m as u64).is_multiple_of(8);
                assert_eq!(arrow, if special { 2 * rs } else { rs }, "ndv {ndv} fpp {fpp}");
            }
        }
    }

    #[test]
    fn folding_merges_runs_of_adjacent_blocks() {
        let mut bits: Vec<u8> = (0..8 * 32).map(|i| if i % 32 == 0 { 1 << (i / 32) } else { 0 }).collect();
        assert_eq!(fold_bitset(&mut bits, 2), Ok(64));
        assert_eq!(bits[0], 0b1111);
        assert_eq!(bits[32], 0b1111_0000);
        assert_eq!(fold_bitset(&mut bits[..64], 1), Ok(32));
        assert_eq!(bits[0], 0xff);
        assert_eq!(fold_bitset(&mut bits[..96], 1), Err(Error::InvalidArgument));
        assert_eq!(fold_bitset(&mut bits[..64], 2), Err(Error::InvalidArgument));
        assert_eq!(fold_bitset(&mut bits[..64], 64), Err(Error::InvalidArgument));
        assert_eq!(fold_bitset(&mut [], 0), Err(Error::InvalidArgument));
        assert_eq!(fold_bitset(&mut bits[..33], 0), Err(Error::InvalidArgument));
    }

    #[test]
    fn fold_count_follows_the_fill() {
        let empty = [0u8; 1024];
        assert_eq!(folds_for_target_fpp(&empty, 0.01), Ok(5));
        assert_eq!(folds_for_target_fpp(&empty[..32], 0.01), Ok(0));
        let full = [0xffu8; 1024];
        assert_eq!(folds_for_target_fpp(&full, 0.99), Ok(0));
        assert_eq!(estimated_fpp(&full), Ok(1.0));
        // Fill 1/32: (1 - (31/32)^2)^8 = 2.0e-10 ... each fold doubles roughly.
        let sparse: Vec<u8> = (0..1024).map(|i| if i % 4 == 0 { 1 } else { 0 }).collect();
        let f = 1.0 / 32.0;
        let expected =
            (1..=5).take_while(|k| pow8(1.0 - libm::pow(1.0 - f, f64::from(1u32 << k))) <= 0.01).count();
        assert_eq!(folds_for_target_fpp(&sparse, 0.01), Ok(expected as u32));
        assert_eq!(folds_for_target_fpp(&sparse, f64::NAN), Err(Error::InvalidParameter));
        // A rate outside (0, 1), 1 meant as 1% among them, would fold any
        // filter to one block (rate 1 or more) or keep it (0 or less).
        for fpp in [1.0, 5.0, 100.0, f64::INFINITY, 0.0, -0.0, -0.01, f64::NEG_INFINITY] {
            assert_eq!(folds_for_target_fpp(&sparse, fpp), Err(Error::InvalidParameter), "{fpp}");
        }
        assert_eq!(folds_for_target_fpp(&sparse[..100], 0.01), Err(Error::InvalidArgument));
    }
}
