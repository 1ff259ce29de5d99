//! Split-block Bloom filter (Putze et al.; Parquet's SBBF design).
//!
//! The bit array is a sequence of 256-bit blocks, each eight 32-bit
//! little-endian words. A key's hash `h` picks one block, and sets one bit in
//! each of the block's eight words: bit `(lo32(h) * SALT[i]) >> 27` of word
//! `i`, with Parquet's eight published salt constants. One cache line per
//! operation makes it the fastest filter in the library; it needs more bits
//! per key than a classic Bloom filter for the same rate (about 10.5 bits for
//! 1%), and planning uses the split-block formula, not the classic one.
//!
//! Two modes, fixed at init and recorded in the flags:
//! * **Native**: XXH3-64 with the image seed; block = `fastrange64(h, blocks)`,
//!   so filters with more than 2^32 blocks keep their rate.
//! * **Parquet**: XXH64 with seed 0 over the plain-encoded value bytes, block =
//!   `((h >> 32) * blocks) >> 32`, at most 2^32 blocks. The body is then
//!   byte-identical to the bitset Parquet writers store for the same column
//!   values (integers are plain-encoded as little-endian bytes, byte arrays
//!   as their raw bytes without the length prefix).
//!
//! # Examples
//!
//! Native mode (XXH3 with the image seed), with a merge and a checked copy:
//!
//! ```
//! use sketches_core::sbbf::{self, SbbfParams};
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! let params = SbbfParams::for_items(1_000, 0.01)?;
//! assert!(params.image_len()? <= 4096);
//!
//! let (mut buf_a, mut buf_b) = (ImageBuf::<4096>::new(), ImageBuf::<4096>::new());
//! let mut a = sbbf::init(&mut buf_a, &params, 3)?;
//! let mut b = sbbf::init(&mut buf_b, &params, 3)?;
//! for i in 0..500u64 {
//!     a.add_u64(i);
//!     b.add_u64(500 + i);
//! }
//! a.union(&b.as_ref())?;
//! assert!((0..1_000u64).all(|i| a.as_ref().contains_u64(i))); // never a false negative
//! let false_positives = (1_000..101_000u64).filter(|i| a.as_ref().contains_u64(*i)).count();
//! assert!(false_positives < 1_500, "{false_positives}"); // about 1% of 100,000
//!
//! let mut wire = [0u8; 4096];
//! let n = sbbf::export(&buf_a, &mut wire)?;
//! let mut copy = ImageBuf::<4096>::new();
//! sbbf::import(&wire[..n], &mut copy)?;
//! assert!(sbbf::wrap(&copy)?.contains_u64(999));
//! # Ok(())
//! # }
//! ```
//!
//! Parquet mode: the bitset is byte for byte what a Parquet writer stores
//! after a column chunk's `BloomFilterHeader`, and a bitset read out of a file
//! becomes a filter again:
//!
//! ```
//! use sketches_core::parquet;
//! use sketches_core::sbbf::{self, SbbfParams};
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! // Sized as the parquet crate sizes it for 1,000 distinct values at 1%.
//! let params = SbbfParams::for_parquet(1_000, 0.01)?;
//! let mut buf = ImageBuf::<4096>::new();
//! let mut writer = sbbf::init(&mut buf, &params, 0)?; // the seed is unused in Parquet mode
//! for v in 0..1_000i64 {
//!     writer.add_hash(parquet::hash_i64(v)); // hashed as writers hash INT64 values
//! }
//! // Byte keys are the plain-encoded value: the same hash.
//! assert!(writer.as_ref().contains(&42i64.to_le_bytes()));
//! let folds = sbbf::fold_to_target_fpp(&mut buf, 0.01)?; // shrink as writers do before writing
//! let written = sbbf::wrap(&buf)?;
//! assert_eq!(written.bitset().len(), 2048 >> folds);
//!
//! // A reader: the bitset bytes from the file, planned for a 1% rate.
//! let bitset = written.bitset();
//! let read_params = SbbfParams::for_parquet_bitset(bitset.len(), 0.01)?;
//! let mut read_buf = ImageBuf::<4096>::new();
//! let read = sbbf::load_parquet_bitset(&mut read_buf, bitset, &read_params)?;
//! assert!((0..1_000i64).all(|v| read.as_ref().contains_hash(parquet::hash_i64(v))));
//! assert_eq!(read.as_ref().bitset(), bitset);
//! # Ok(())
//! # }
//! ```
//!
//! Image layout after the common header (little-endian):
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 48 | 8 | number of 32-byte blocks (1 ..= [`MAX_BLOCKS`]) |
//! | 56 | 8 | planned items |
//! | 64 | 8 | planned false-positive rate (f64) |
//! | 72 | 8 | add calls |
//! | 80 | 8 | inserted: add calls that set at least one new bit |
//! | 88 | 40 | reserved, 0 |
//! | 128 | blocks·32 | blocks (exactly Parquet's bitset bytes) |
//! | … | 0..63 | zero padding to a multiple of 64 bytes (every live image length is) |
//!
//! The header is 128 bytes so that, in a 64-byte aligned buffer, every block
//! sits inside one cache line (a block straddling two lines costs two cache
//! misses per operation). Live images need 8-byte alignment; 64-byte
//! alignment is recommended for speed.
//!
//! Flags: bit 0 ([`FLAG_PARQUET`]) set = Parquet mode; bit 1
//! ([`FLAG_LOADED`]) set = the body came from outside (a bitset read out of a
//! Parquet file by [`load_parquet_bitset`], or a union or intersection with
//! such an image), so the add counters do not count the items in it: they
//! count only adds made since. Such an image's capacity signal
//! ([`Sbbf::capacity`], [`SbbfStats::capacity`]) follows the bitset's fill
//! (items and false-positive rate estimated from the set bits, an O(m) scan)
//! instead of the counters. [`SbbfMut::clear`] makes the counters exact
//! again and drops the flag. Readers of format 1.0 that predate the flag
//! reject such images as corrupt. Thread-safety as for [`crate::bloom`].
//!
//! # Speed of single-key calls
//!
//! A filter larger than the L2 cache costs one cache miss per operation, and
//! a loop of single adds or queries runs as fast as the number of misses in
//! flight, which the reorder window (a few hundred instructions) divides by
//! the instructions each key costs: every instruction per key counts, not
//! just the kernel's. So `add`/`contains` inline into the caller, the block
//! rule is fixed per mode at compile time, the CPU-feature dispatch is one
//! load and test, the kernels index whole blocks (17 instructions with
//! AVX2), and the add counters are updated without a branch. Measured with
//! callgrind and `core/benches/filters.rs` against sbbf-rs-safe (README,
//! Performance).
//!
//! # Code size on firmware
//!
//! On firmware (`target_os = "none"`: the Cortex-M builds of the C ABI),
//! flash is what counts, and a core has few or no cache misses to
//! overlap: there [`SbbfMut::add`], [`SbbfMut::add_hash`],
//! [`Sbbf::contains`] and [`Sbbf::contains_hash`] are one out-of-line copy
//! each (the byte-key forms hash, then call the hash form), and so are the
//! header checks ([`wrap`], [`wrap_mut`], and those behind a token:
//! [`wrap_with`], [`wrap_trusted`] and their mutable forms), instead of a
//! copy of both modes' hashing, kernels and checks in each of the C ABI's
//! 18 single-key functions and their full paths (21.5 KB of the
//! split-block functions' 85.9 KB on a Cortex-M4F). On every other target
//! they stay in line, the code unchanged: sharing single-key bodies out of
//! line made single-key calls 2-3x slower on x86-64.
//!
//! # Parquet interop
//!
//! * Hash values with [`crate::parquet`]'s typed helpers (or add a value's
//!   bytes with [`SbbfMut::add`]: a fixed-width value's PLAIN encoding, a
//!   BYTE_ARRAY's raw bytes without the length prefix).
//! * Plan a writer's bitset with [`SbbfParams::for_parquet_sizing`] (the
//!   parquet crate, DuckDB and Arrow C++ round differently, see
//!   [`crate::parquet::ParquetSizing`]); after adding, fold as the parquet
//!   crate and Arrow C++ do with [`fold_to_target_fpp`].
//! * Read a file's bitset: [`load_parquet_bitset`] with params from
//!   [`SbbfParams::for_parquet_bitset`] (plan derived from a target rate) or
//!   [`SbbfParams::for_parquet_bitset_with_plan`].
//! * Write one: [`Sbbf::bitset`] is exactly the bytes a Parquet file stores
//!   after its `BloomFilterHeader`.

use crate::error::{Error, Result};
use crate::filter::{self, CapacityFlags};
use crate::hash::{self, HashKind, KeyHasher};
use crate::image::{self, get_f64, get_u64, put_f64, put_u64};
use crate::image::{CommonHeader, FamilyId, Fresh, ImageFamily, Token};
use crate::parquet::ParquetSizing;
#[cfg(target_has_atomic = "64")]
use crate::shared::AtomicWords;
use crate::simd;
#[cfg(target_has_atomic = "64")]
use core::sync::atomic::Ordering;

/// Byte length of the split-block header (common + family header).
pub const HEADER_LEN: usize = 128;
/// Bytes per block.
pub const BLOCK_BYTES: usize = 32;
/// Largest block count accepted in native mode (2^51 blocks = 2^59 bits).
pub const MAX_BLOCKS: u64 = 1 << 51;
/// Largest block count in Parquet mode.
pub const MAX_PARQUET_BLOCKS: u64 = 1 << 32;
/// Items located ahead of their memory access in batch calls (8 cache
/// misses in flight; 16 cost over 1 KiB of stack in the AVX2 kernels).
const LANES: usize = 8;
/// Whether this is a firmware build (`target_os = "none"`, the Cortex-M
/// targets): see "Code size on firmware" in the module docs.
const FIRMWARE: bool = cfg!(target_os = "none");

/// The hash of `key` in `mode`: `native_hash` with the filter's seed, or
/// Parquet's XXH64 with seed 0 (the firmware shape of the byte-key forms,
/// which then call the hash forms).
#[inline(always)]
fn mode_hash(mode: SbbfMode, seed: u64, key: &[u8], native_hash: impl FnOnce(&[u8], u64) -> u64) -> u64 {
    match mode {
        SbbfMode::Native => native_hash(key, seed),
        SbbfMode::Parquet => hash::xxh64(key, 0),
    }
}

/// Flag bit: Parquet-compatible hashing and block selection.
pub const FLAG_PARQUET: u32 = 1;
/// Flag bit: the body was loaded from outside; the add counters do not count
/// its items, and the capacity signal follows the fill (see the module docs).
pub const FLAG_LOADED: u32 = 2;

/// Parquet's salt constants (Parquet format specification, BloomFilter.md).
pub const SALT: [u32; 8] =
    [0x47b6_137b, 0x4497_4d91, 0x8824_ad5b, 0xa2b7_289d, 0x7054_95c7, 0x2df1_424b, 0x9efc_4947, 0x5c6b_fb31];

/// Hashing and block-selection mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SbbfMode {
    /// XXH3-64 with the image seed, 64-bit block selection.
    Native,
    /// Parquet-compatible: XXH64 seed 0, 32-bit block selection.
    Parquet,
}

/// Parameters of a split-block Bloom filter.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SbbfParams {
    /// Number of 256-bit blocks.
    pub blocks: u64,
    /// Items the filter is planned for (drives the over-capacity signal).
    pub planned_items: u64,
    /// False-positive rate planned at `planned_items`.
    pub planned_fpr: f64,
    /// Hashing mode.
    pub mode: SbbfMode,
}

/// Theoretical false-positive rate of a split-block filter with `blocks`
/// blocks after `items` distinct insertions: the block load is
/// Poisson(λ = items/blocks) and a block holding `j` items answers a random
/// absent key "maybe" with probability `(1 - (31/32)^j)^8`.
pub fn theoretical_fpr(items: f64, blocks: u64) -> f64 {
    if blocks == 0 {
        return 1.0;
    }
    let lambda = items / blocks as f64;
    let word_fill = |j: f64| -libm::expm1(j * libm::log(31.0 / 32.0));
    if lambda <= 0.0 {
        return 0.0;
    }
    if lambda > 4096.0 {
        return libm::pow(word_fill(lambda), 8.0);
    }
    let spread = 12.0 * crate::simd::sqrt(lambda) + 30.0;
    let lo = libm::floor((lambda - spread).max(0.0)) as u64;
    let hi = libm::ceil(lambda + spread) as u64;
    let ln_lambda = libm::log(lambda);
    let mut total = 0.0;
    for j in lo..=hi {
        let jf = j as f64;
        let log_pmf = -lambda + jf * ln_lambda - libm::lgamma(jf + 1.0);
        total += libm::exp(log_pmf) * libm::pow(word_fill(jf), 8.0);
    }
    total.min(1.0)
}

/// The most distinct items (at least 1) at which a filter of `blocks` blocks
/// still has [`theoretical_fpr`] ≤ `fpr`: the plan of a filter whose size is
/// given. Returns 1 when `blocks` is 0 or even one item exceeds `fpr`.
pub fn capacity_at_fpr(blocks: u64, fpr: f64) -> u64 {
    // `fpr` may be NaN: only a rate met by one item proceeds.
    let one_fits = theoretical_fpr(1.0, blocks) <= fpr;
    if blocks == 0 || !one_fits {
        return 1;
    }
    // fpr(n) grows with n; at 2^12 items per block every bit is set.
    let (mut lo, mut hi) = (1u64, blocks.saturating_mul(1 << 12));
    if theoretical_fpr(hi as f64, blocks) <= fpr {
        return hi;
    }
    // Invariant: fpr(lo) <= target < fpr(hi).
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if theoretical_fpr(mid as f64, blocks) <= fpr {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Block count of a Parquet bitset of `len` bytes.
fn parquet_blocks(len: usize) -> Result<u64> {
    let blocks = (len / BLOCK_BYTES) as u64;
    if len == 0 || !len.is_multiple_of(BLOCK_BYTES) || blocks > MAX_PARQUET_BLOCKS {
        return Err(Error::InvalidArgument);
    }
    Ok(blocks)
}

impl SbbfParams {
    /// Plans a native filter from expected distinct items `n` and target
    /// rate `p`: the fewest blocks whose [`theoretical_fpr`] at `n` is ≤ `p`.
    ///
    /// Errors: [`Error::InvalidParameter`] when `n = 0`, `p` is not in (0, 1)
    /// or more than [`MAX_BLOCKS`] would be needed.
    pub fn for_items(items: u64, fpr: f64) -> Result<Self> {
        if items == 0 || !filter::valid_fpr(fpr) {
            return Err(Error::InvalidParameter);
        }
        let n = items as f64;
        let (mut lo, mut hi) = (1u64, 1u64);
        while theoretical_fpr(n, hi) > fpr {
            if hi >= MAX_BLOCKS {
                return Err(Error::InvalidParameter);
            }
            lo = hi;
            hi = hi.saturating_mul(2).min(MAX_BLOCKS);
        }
        // Invariant: fpr(hi) <= p; fpr(lo) > p unless lo == hi == 1.
        while lo + 1 < hi {
            let mid = lo + (hi - lo) / 2;
            if theoretical_fpr(n, mid) > fpr {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        Ok(SbbfParams { blocks: hi, planned_items: items, planned_fpr: fpr, mode: SbbfMode::Native })
    }

    /// Explicit block count (native mode). The planned items are
    /// `round(blocks·256·ln 2 / 8)` (≈ 11.5 bits per key) and the planned
    /// rate is [`theoretical_fpr`] at that count.
    ///
    /// Errors: [`Error::InvalidParameter`] when `blocks` is 0 or above [`MAX_BLOCKS`].
    pub fn with_blocks(blocks: u64) -> Result<Self> {
        Self::explicit(blocks, SbbfMode::Native)
    }

    /// Plans a Parquet-mode filter as the parquet crate (and DuckDB, below
    /// 128 MiB) sizes its bitset from the distinct-value count `ndv` and
    /// `fpp`: `bits = -8·ndv / ln(1 - fpp^(1/8))`, bytes = floor(bits) / 8
    /// clamped to 32 ..= 128 MiB and rounded up to a power of two. Same as
    /// [`SbbfParams::for_parquet_sizing`] with [`ParquetSizing::ParquetRs`].
    ///
    /// Errors: [`Error::InvalidParameter`] when `ndv = 0` or `fpp` is not in (0, 1).
    pub fn for_parquet(ndv: u64, fpp: f64) -> Result<Self> {
        Self::for_parquet_sizing(ndv, fpp, ParquetSizing::ParquetRs)
    }

    /// Plans a Parquet-mode filter sized as the given writer sizes its bitset
    /// for `ndv` distinct values at rate `fpp` (see [`ParquetSizing`] for each
    /// rule). The plan records `ndv` and `fpp`. Writers that fold (the
    /// parquet crate, Arrow C++) shrink the bitset after inserting: apply
    /// [`fold_to_target_fpp`] with the same `fpp` to reproduce their bytes.
    ///
    /// Errors: [`Error::InvalidParameter`] when `ndv = 0`, `fpp` is not in
    /// (0, 1), or the rule gives more than [`MAX_PARQUET_BLOCKS`] blocks.
    pub fn for_parquet_sizing(ndv: u64, fpp: f64, sizing: ParquetSizing) -> Result<Self> {
        let bytes = sizing.bitset_bytes(ndv, fpp)?;
        let params = SbbfParams {
            blocks: bytes / BLOCK_BYTES as u64,
            planned_items: ndv,
            planned_fpr: fpp,
            mode: SbbfMode::Parquet,
        };
        params.validate()?;
        Ok(params)
    }

    /// Parquet-mode parameters for a bitset of `bitset_len` bytes read out of
    /// a file (see [`load_parquet_bitset`]), planned for the most items at
    /// which a filter of this size still meets `fpr` ([`capacity_at_fpr`]).
    /// The Parquet specification stores whole 32-byte blocks; writers write a
    /// power of two between 32 bytes and 128 MiB (DuckDB may exceed that).
    /// Any whole number of blocks up to [`MAX_PARQUET_BLOCKS`] is accepted.
    ///
    /// Errors: [`Error::InvalidArgument`] when `bitset_len` is 0, not a
    /// multiple of 32 or above `MAX_PARQUET_BLOCKS·32`;
    /// [`Error::InvalidParameter`] when `fpr` is not in (0, 1).
    ///
    /// A rate that not even one item meets (below about 1e-12 for the
    /// smallest bitsets) plans one item at the rate one item gives: the
    /// requested rate would raise the capacity signal at the first key.
    pub fn for_parquet_bitset(bitset_len: usize, fpr: f64) -> Result<Self> {
        let blocks = parquet_blocks(bitset_len)?;
        if !filter::valid_fpr(fpr) {
            return Err(Error::InvalidParameter);
        }
        let items = capacity_at_fpr(blocks, fpr);
        // Equal to `fpr` whenever `items` meet it (every reachable rate).
        let planned_fpr = fpr.max(theoretical_fpr(items as f64, blocks));
        Self::for_parquet_bitset_with_plan(bitset_len, items, planned_fpr)
    }

    /// Parquet-mode parameters for a bitset of `bitset_len` bytes with a plan
    /// given by the caller (e.g. the writer's `ndv` and `fpp` settings).
    ///
    /// Errors: [`Error::InvalidArgument`] for a bad length (as in
    /// [`SbbfParams::for_parquet_bitset`]); [`Error::InvalidParameter`] when
    /// `planned_items` is 0 or `planned_fpr` is not in (0, 1).
    pub fn for_parquet_bitset_with_plan(
        bitset_len: usize,
        planned_items: u64,
        planned_fpr: f64,
    ) -> Result<Self> {
        let params = SbbfParams {
            blocks: parquet_blocks(bitset_len)?,
            planned_items,
            planned_fpr,
            mode: SbbfMode::Parquet,
        };
        params.validate()?;
        Ok(params)
    }

    /// Explicit block count in Parquet mode (for reproducing an existing
    /// bitset of `blocks·32` bytes).
    ///
    /// Errors: [`Error::InvalidParameter`] when `blocks` is 0 or above [`MAX_PARQUET_BLOCKS`].
    pub fn parquet_with_blocks(blocks: u64) -> Result<Self> {
        Self::explicit(blocks, SbbfMode::Parquet)
    }

    fn explicit(blocks: u64, mode: SbbfMode) -> Result<Self> {
        let items = libm::round(blocks as f64 * 256.0 * core::f64::consts::LN_2 / 8.0).max(1.0);
        let params = SbbfParams {
            blocks,
            planned_items: items as u64,
            planned_fpr: theoretical_fpr(items, blocks).clamp(f64::MIN_POSITIVE, 0.999_999),
            mode,
        };
        params.validate()?;
        Ok(params)
    }

    /// Checks every field (as stored in an image).
    pub fn validate(&self) -> Result<()> {
        let max = match self.mode {
            SbbfMode::Native => MAX_BLOCKS,
            SbbfMode::Parquet => MAX_PARQUET_BLOCKS,
        };
        if self.blocks >= 1
            && self.blocks <= max
            && self.planned_items >= 1
            && filter::valid_fpr(self.planned_fpr)
        {
            Ok(())
        } else {
            Err(Error::InvalidParameter)
        }
    }

    /// Exact image size in bytes (header + blocks).
    pub fn image_len(&self) -> Result<u64> {
        self.validate()?;
        Ok(image::padded_len(HEADER_LEN as u64 + self.blocks * BLOCK_BYTES as u64))
    }

    /// Number of bits in the filter (`blocks·256`).
    pub fn bits(&self) -> u64 {
        self.blocks.saturating_mul(256)
    }

    /// Theoretical false-positive rate after `items` distinct insertions.
    pub fn fpr_at(&self, items: f64) -> f64 {
        theoretical_fpr(items, self.blocks)
    }
}

/// Statistics of a split-block filter (see [`Sbbf::stats`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SbbfStats {
    /// The filter's parameters.
    pub params: SbbfParams,
    /// Hash seed.
    pub seed: u64,
    /// Number of add calls (duplicates included).
    pub add_calls: u64,
    /// Add calls that set at least one new bit (≈ distinct items inserted).
    pub inserted: u64,
    /// Number of bits set (scanned).
    pub set_bits: u64,
    /// Fraction of bits set.
    pub fill: f64,
    /// Distinct items estimated from the set bits.
    pub estimated_items: f64,
    /// Current false-positive rate measured from the blocks: the mean over
    /// blocks of the product of the eight words' fill fractions.
    pub estimated_fpr: f64,
    /// Over-capacity signal (as from [`Sbbf::capacity`]).
    pub capacity: CapacityFlags,
}

/// Marker type tying the split-block layout to the image format.
pub struct SbbfImage;

/// Validated split-block layout.
#[derive(Copy, Clone, Debug)]
pub struct SbbfLayout {
    params: SbbfParams,
}

impl ImageFamily for SbbfImage {
    const FAMILY: FamilyId = FamilyId::SplitBlockBloom;
    type Layout = SbbfLayout;

    #[inline]
    fn validate(common: &CommonHeader, image: &[u8]) -> Result<SbbfLayout> {
        let params = shape(common, image)?;
        let field = |off: usize| get_u64(image, off).ok_or(Error::BufferTooSmall);
        if field(OFF_INSERTED)? > field(OFF_ADD_CALLS)? {
            return Err(Error::CorruptHeader);
        }
        Ok(SbbfLayout { params })
    }

    #[inline]
    fn body_len(_common: &CommonHeader, layout: &SbbfLayout) -> usize {
        (layout.params.blocks as usize).saturating_mul(BLOCK_BYTES)
    }

    /// Blocks, planned items, planned rate (the mode is in the flags).
    const IDENTITY: &'static [(usize, u64)] =
        &[(OFF_BLOCKS, u64::MAX), (OFF_PLANNED_ITEMS, u64::MAX), (OFF_PLANNED_FPR, u64::MAX)];
}

/// The immutable part of the header checks (flags, hash, seed, parameters,
/// reserved bytes, image length); the counters are checked by `validate`
/// only, as they change under concurrent adds.
#[inline]
fn shape(common: &CommonHeader, header: &[u8]) -> Result<SbbfParams> {
    if common.header_len != HEADER_LEN || common.flags & !(FLAG_PARQUET | FLAG_LOADED) != 0 {
        return Err(Error::CorruptHeader);
    }
    let mode = if common.flags & FLAG_PARQUET != 0 { SbbfMode::Parquet } else { SbbfMode::Native };
    let expected_hash = match mode {
        SbbfMode::Native => HashKind::Xxh3,
        SbbfMode::Parquet => HashKind::Xxh64,
    };
    if common.hash != expected_hash {
        return Err(Error::UnsupportedHash);
    }
    if mode == SbbfMode::Parquet && common.seed != 0 {
        return Err(Error::CorruptHeader);
    }
    let field = |off: usize| get_u64(header, off).ok_or(Error::BufferTooSmall);
    let params = SbbfParams {
        blocks: field(OFF_BLOCKS)?,
        planned_items: field(OFF_PLANNED_ITEMS)?,
        planned_fpr: get_f64(header, OFF_PLANNED_FPR).ok_or(Error::BufferTooSmall)?,
        mode,
    };
    let expected_len = params.image_len().map_err(|_| Error::CorruptHeader)?;
    if common.image_len as u64 != expected_len || !image::zeroed(header, OFF_RESERVED..HEADER_LEN) {
        return Err(Error::CorruptHeader);
    }
    Ok(params)
}

const OFF_BLOCKS: usize = 48;
const OFF_PLANNED_ITEMS: usize = 56;
const OFF_PLANNED_FPR: usize = 64;
const OFF_ADD_CALLS: usize = 72;
const OFF_INSERTED: usize = 80;
const OFF_RESERVED: usize = 88;

/// Exact image size in bytes for `params`.
pub fn image_len(params: &SbbfParams) -> Result<u64> {
    params.image_len()
}

/// Writes a fresh, empty filter into `buf`. Parquet mode requires `seed = 0`.
///
/// Errors: [`Error::InvalidParameter`] (bad params, or a non-zero seed in
/// Parquet mode), [`Error::Misaligned`], [`Error::BufferTooSmall`].
/// On error `buf` is not written.
pub fn init<'a>(buf: &'a mut [u8], params: &SbbfParams, seed: u64) -> Result<SbbfMut<'a>> {
    let image_len = params.image_len()?;
    let (hash, flags) = match params.mode {
        SbbfMode::Native => (HashKind::Xxh3, 0),
        SbbfMode::Parquet if seed == 0 => (HashKind::Xxh64, FLAG_PARQUET),
        SbbfMode::Parquet => return Err(Error::InvalidParameter),
    };
    let family = FamilyId::SplitBlockBloom;
    let image =
        image::start_image(buf, Fresh { family, hash, header_len: HEADER_LEN, flags, seed, image_len })?;
    put_u64(image, OFF_BLOCKS, params.blocks);
    put_u64(image, OFF_PLANNED_ITEMS, params.planned_items);
    put_f64(image, OFF_PLANNED_FPR, params.planned_fpr);
    wrap_mut(image)
}

/// Validates the live image at the start of `buf` and returns a read-only
/// view (zero-copy; the body is not checksummed). Errors as for
/// [`crate::bloom::wrap`].
// In line on every target but firmware (see "Code size on firmware").
#[cfg_attr(not(target_os = "none"), inline)]
#[cfg_attr(target_os = "none", inline(never))]
pub fn wrap(buf: &[u8]) -> Result<Sbbf<'_>> {
    let p = image::split::<SbbfImage>(buf)?;
    let header = p.header.try_into().map_err(|_| Error::CorruptHeader)?;
    Ok(Sbbf { header, body: p.body, params: p.layout.params, seed: p.common.seed })
}

/// Like [`wrap`], returning a mutable view.
// In line on every target but firmware (see "Code size on firmware").
#[cfg_attr(not(target_os = "none"), inline)]
#[cfg_attr(target_os = "none", inline(never))]
pub fn wrap_mut(buf: &mut [u8]) -> Result<SbbfMut<'_>> {
    let p = image::split_mut::<SbbfImage>(buf)?;
    let header = p.header.try_into().map_err(|_| Error::CorruptHeader)?;
    Ok(SbbfMut { header, body: p.body, params: p.layout.params, seed: p.common.seed })
}

/// Validates the live image in `buf` as [`wrap`] does and returns its
/// [`Token`], which [`wrap_with`] and [`wrap_mut_with`] take to skip the
/// header checks on later calls. Errors: as [`wrap`].
pub fn token(buf: &[u8]) -> Result<Token> {
    image::token::<SbbfImage>(buf)
}

/// The parameters, seed and body end decoded from `token`'s words: with
/// `COMPARE`, only when `buf`'s identity matches the token (see [`Token`]),
/// the words then being the image's; without, from the token alone (a
/// kept view, see [`wrap_trusted`]). `None` when the identity differs, the
/// token is another family's or a word is out of range.
#[inline(always)]
fn trusted<const COMPARE: bool>(buf: &[u8], token: &Token) -> Option<Trusted> {
    // Without `COMPARE` only the token is read: it must be one of this
    // family (a view of another family's image decodes to garbage).
    let ours = if COMPARE {
        image::token_matches::<SbbfImage>(buf, token)
    } else {
        image::token_is::<SbbfImage>(token)
    };
    if !ours {
        return None;
    }
    let [_, word1, seed, _, blocks, planned_items, planned_fpr, _] = token.words;
    // Equal to validated words unless the token was filled by hand: at
    // least one block, and a body end within `buf` (a forged count that
    // wraps the end around gives wrong answers, never an access outside
    // `buf`: every block access is checked).
    let end = HEADER_LEN.wrapping_add((blocks as usize).wrapping_mul(BLOCK_BYTES));
    if blocks == 0 || end > buf.len() {
        return None;
    }
    let flags = (word1 >> 32) as u32;
    let mode = if flags & FLAG_PARQUET != 0 { SbbfMode::Parquet } else { SbbfMode::Native };
    let params = SbbfParams { blocks, planned_items, planned_fpr: f64::from_bits(planned_fpr), mode };
    Some((params, seed, end))
}

/// [`wrap`], skipping the header checks when `buf`'s identity equals
/// `token`'s (see [`Token`]: a stale or zero token only costs the full
/// validation). Errors: as [`wrap`].
#[inline(always)]
pub fn wrap_with<'a>(buf: &'a [u8], token: &Token) -> Result<Sbbf<'a>> {
    wrap_by::<true>(buf, token)
}

/// [`wrap_mut`], skipping the header checks as [`wrap_with`] does.
#[inline(always)]
pub fn wrap_mut_with<'a>(buf: &'a mut [u8], token: &Token) -> Result<SbbfMut<'a>> {
    wrap_mut_by::<true>(buf, token)
}

/// [`wrap`] of the image a kept view describes (the C ABI's
/// `sketch_view`): the parameters come from `token` alone, made by
/// [`token`] from this image, without reading the header or comparing
/// identities. A token of another image of this family, or of this
/// buffer before a re-init with other parameters, gives wrong answers but
/// never a panic or an access outside `buf`; one of another family
/// ([`image::token_is`]) or whose words are out of range (blocks 0, a body
/// past `buf`) gets the full validation. Errors: as [`wrap`], only after
/// that fallback.
#[inline(always)]
pub fn wrap_trusted<'a>(buf: &'a [u8], token: &Token) -> Result<Sbbf<'a>> {
    wrap_by::<false>(buf, token)
}

/// [`wrap_mut`] of the image a kept view describes, as [`wrap_trusted`].
#[inline(always)]
pub fn wrap_mut_trusted<'a>(buf: &'a mut [u8], token: &Token) -> Result<SbbfMut<'a>> {
    wrap_mut_by::<false>(buf, token)
}

/// [`wrap_trusted`] without its fallback: None when the token's words are
/// out of range, for a fast path that hands such calls to its full path.
#[inline(always)]
pub fn try_wrap_trusted<'a>(buf: &'a [u8], token: &Token) -> Option<Sbbf<'a>> {
    try_wrap_by::<false>(buf, token)
}

/// [`wrap_mut_trusted`] without its fallback, as [`try_wrap_trusted`].
#[inline(always)]
pub fn try_wrap_mut_trusted<'a>(buf: &'a mut [u8], token: &Token) -> Option<SbbfMut<'a>> {
    try_wrap_mut_by::<false>(buf, token)
}

/// [`wrap_with`] without its fallback: None when `buf`'s identity differs
/// from `token`'s, for the fast path of a `_with_token` call.
#[inline(always)]
pub fn try_wrap_with<'a>(buf: &'a [u8], token: &Token) -> Option<Sbbf<'a>> {
    try_wrap_by::<true>(buf, token)
}

/// [`wrap_mut_with`] without its fallback, as [`try_wrap_with`].
#[inline(always)]
pub fn try_wrap_mut_with<'a>(buf: &'a mut [u8], token: &Token) -> Option<SbbfMut<'a>> {
    try_wrap_mut_by::<true>(buf, token)
}

/// The parameters a token decodes to (see `trusted`).
type Trusted = (SbbfParams, u64, usize);

#[inline(always)]
fn try_wrap_by<'a, const COMPARE: bool>(buf: &'a [u8], token: &Token) -> Option<Sbbf<'a>> {
    open_trusted(buf, trusted::<COMPARE>(buf, token)?)
}

#[inline(always)]
fn try_wrap_mut_by<'a, const COMPARE: bool>(buf: &'a mut [u8], token: &Token) -> Option<SbbfMut<'a>> {
    let decoded = trusted::<COMPARE>(buf, token)?;
    open_trusted_mut(buf, decoded)
}

#[inline(always)]
fn open_trusted(buf: &[u8], (params, seed, end): Trusted) -> Option<Sbbf<'_>> {
    let (header, body) = buf.get(..end)?.split_first_chunk::<HEADER_LEN>()?;
    Some(Sbbf { header, body, params, seed })
}

#[inline(always)]
fn open_trusted_mut(buf: &mut [u8], (params, seed, end): Trusted) -> Option<SbbfMut<'_>> {
    let (header, body) = buf.get_mut(..end)?.split_first_chunk_mut::<HEADER_LEN>()?;
    Some(SbbfMut { header, body, params, seed })
}

// In line on every target but firmware (see "Code size on firmware").
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
fn wrap_by<'a, const COMPARE: bool>(buf: &'a [u8], token: &Token) -> Result<Sbbf<'a>> {
    match trusted::<COMPARE>(buf, token) {
        Some(decoded) => open_trusted(buf, decoded).ok_or(Error::CorruptHeader),
        None => wrap_cold(buf),
    }
}

// In line on every target but firmware (see "Code size on firmware").
#[cfg_attr(not(target_os = "none"), inline(always))]
#[cfg_attr(target_os = "none", inline(never))]
fn wrap_mut_by<'a, const COMPARE: bool>(buf: &'a mut [u8], token: &Token) -> Result<SbbfMut<'a>> {
    match trusted::<COMPARE>(buf, token) {
        Some(decoded) => open_trusted_mut(buf, decoded).ok_or(Error::CorruptHeader),
        None => wrap_mut_cold(buf),
    }
}

#[cold]
#[inline(never)]
fn wrap_cold(buf: &[u8]) -> Result<Sbbf<'_>> {
    wrap(buf)
}

#[cold]
#[inline(never)]
fn wrap_mut_cold(buf: &mut [u8]) -> Result<SbbfMut<'_>> {
    wrap_mut(buf)
}

/// The number of bytes [`export`] writes for the live image in `src` (its
/// image length), so a destination can be sized first. Errors: image errors.
pub fn exported_len(src: &[u8]) -> Result<usize> {
    image::exported_len::<SbbfImage>(src)
}

/// Copies the live image in `src` to `dst` with its checksum. Returns the bytes written.
///
/// Errors: as [`crate::image::export`].
pub fn export(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::export::<SbbfImage>(src, dst)
}

/// Bytes of the live image that importing the exported image `src` writes
/// (allocate this much, 64-byte aligned, before [`import`]). Checks the
/// headers and the length, not the checksum.
///
/// Errors: as [`crate::image::import_len`].
pub fn import_len(src: &[u8]) -> Result<usize> {
    image::import_len::<SbbfImage>(src)
}

/// Verifies untrusted bytes and copies them into the 8-byte aligned `dst`
/// (written only on success). Returns the image length.
///
/// Errors: as [`crate::image::import`].
pub fn import(src: &[u8], dst: &mut [u8]) -> Result<usize> {
    image::import::<SbbfImage>(src, dst)
}

/// Verifies untrusted bytes in place (exact length, headers, checksum).
///
/// Errors: as [`crate::image::verify`].
pub fn verify(bytes: &[u8]) -> Result<()> {
    image::verify::<SbbfImage>(bytes).map(|_| ())
}

/// Writes a live Parquet-mode image into `buf` whose body is a copy of
/// `bitset`, the bytes a Parquet file stores after a column chunk's
/// `BloomFilterHeader`, and marks it [`FLAG_LOADED`]: the counters start at
/// 0 and count only later adds, and the capacity signal follows the fill.
/// `params` gives the size and plan: [`SbbfParams::for_parquet_bitset`]
/// (plan from a target rate) or [`SbbfParams::for_parquet_bitset_with_plan`].
/// The image then answers exactly as the file's filter does, and can be
/// added to, merged with Parquet-mode images of the same size, folded and
/// exported. Image size: [`SbbfParams::image_len`].
///
/// Errors: [`Error::InvalidParameter`] when `params` is invalid or not in
/// Parquet mode; [`Error::InvalidArgument`] when `bitset` is not
/// `params.blocks·32` bytes; [`Error::BufferTooSmall`],
/// [`Error::Misaligned`] as for [`init`]. `buf` is not written on error.
pub fn load_parquet_bitset<'a>(buf: &'a mut [u8], bitset: &[u8], params: &SbbfParams) -> Result<SbbfMut<'a>> {
    params.validate()?;
    if params.mode != SbbfMode::Parquet {
        return Err(Error::InvalidParameter);
    }
    if bitset.len() as u64 != params.blocks.saturating_mul(BLOCK_BYTES as u64) {
        return Err(Error::InvalidArgument);
    }
    let mut f = init(buf, params, 0)?;
    if f.body.len() != bitset.len() {
        return Err(Error::InvalidArgument);
    }
    image::copy_bytes(f.body, bitset);
    f.set_loaded(true);
    Ok(f)
}

/// Folds the live image at the start of `buf` `folds` times in place (see
/// [`SbbfMut::fold`]). Returns the new image length.
///
/// Errors: as for [`wrap_mut`], and [`Error::InvalidArgument`] when the
/// block count is not divisible by `2^folds` (the image is then unchanged).
pub fn fold(buf: &mut [u8], folds: u32) -> Result<usize> {
    let f = wrap_mut(buf)?.fold(folds)?;
    image::to_usize(image::padded_len((HEADER_LEN + f.body.len()) as u64))
}

/// Folds the live image at the start of `buf` as far as the parquet crate
/// (58+) and Arrow C++ (pyarrow 26) fold a bloom filter before writing it
/// with target rate `fpp` ([`crate::parquet::folds_for_target_fpp`]: the
/// most halvings whose estimate `(1 - (1 - fill)^(2^k))^8` stays within
/// `fpp`). Returns the number of folds; the new image length is
/// [`SbbfParams::image_len`] of the folded view's params.
///
/// Errors: as for [`wrap_mut`]; [`Error::InvalidParameter`] when `fpp` is
/// not in `(0, 1)` (NaN included); the image is then unchanged.
pub fn fold_to_target_fpp(buf: &mut [u8], fpp: f64) -> Result<u32> {
    let f = wrap_mut(buf)?;
    let folds = crate::parquet::folds_for_target_fpp(f.body, fpp)?;
    f.fold(folds)?;
    Ok(folds)
}

/// The split-block kernels: safe, `#[inline(always)]`, so that
/// [`crate::simd`] can compile them a second time with AVX2. `PARQUET`
/// selects the block-selection rule at compile time (no mode branch per key).
pub mod kernels {
    use super::{BLOCK_BYTES, LANES, SALT};
    use crate::hash;

    /// Index of the block for `h` among `blocks` blocks: fastrange64 in
    /// native mode, `((h >> 32) * blocks) >> 32` in Parquet mode. Below
    /// `blocks` (on 32-bit hosts a truncated index at worst fails the
    /// bounds check of the caller).
    #[inline(always)]
    fn index<const PARQUET: bool>(h: u64, blocks: u64) -> usize {
        let block =
            if PARQUET { ((h >> 32) * (blocks & 0x1_ffff_ffff)) >> 32 } else { hash::reduce(h, blocks) };
        block as usize
    }

    /// The eight word masks of a hash: bit `(lo32(h) * SALT[i]) >> 27` of word `i`.
    #[inline(always)]
    fn masks(h: u64) -> [u32; 8] {
        let key = h as u32;
        SALT.map(|salt| 1u32 << (key.wrapping_mul(salt) >> 27))
    }

    /// The eight little-endian words of a 32-byte block.
    #[inline(always)]
    fn words(block: &[u8; BLOCK_BYTES]) -> [u32; 8] {
        let mut w = [0u32; 8];
        for (word, bytes) in w.iter_mut().zip(block.as_chunks::<4>().0) {
            *word = u32::from_le_bytes(*bytes);
        }
        w
    }

    #[inline(always)]
    fn block_at(body: &[u8], block: usize) -> Option<&[u8; BLOCK_BYTES]> {
        body.as_chunks::<BLOCK_BYTES>().0.get(block)
    }

    #[inline(always)]
    fn probe(body: &[u8], block: usize, masks: [u32; 8]) -> bool {
        let Some(block) = block_at(body, block) else {
            return false;
        };
        let mut missing = 0u32;
        for (word, mask) in words(block).iter().zip(masks) {
            missing |= !word & mask;
        }
        missing == 0
    }

    #[inline(always)]
    fn set(body: &mut [u8], block: usize, masks: [u32; 8]) -> bool {
        let Some(block) = body.as_chunks_mut::<BLOCK_BYTES>().0.get_mut(block) else {
            return false;
        };
        let mut w = words(block);
        let mut new = 0u32;
        for (word, mask) in w.iter_mut().zip(masks) {
            new |= !*word & mask;
            *word |= mask;
        }
        for (bytes, word) in block.as_chunks_mut::<4>().0.iter_mut().zip(w) {
            *bytes = word.to_le_bytes();
        }
        new != 0
    }

    /// Inserts one hash into a body of `blocks` blocks; true when a bit was new.
    #[inline(always)]
    pub fn insert<const PARQUET: bool>(body: &mut [u8], blocks: u64, hash: u64) -> bool {
        set(body, index::<PARQUET>(hash, blocks), masks(hash))
    }

    /// Tests one hash.
    #[inline(always)]
    pub fn contains<const PARQUET: bool>(body: &[u8], blocks: u64, hash: u64) -> bool {
        probe(body, index::<PARQUET>(hash, blocks), masks(hash))
    }

    /// Inserts many hashes; `newly[i]` (when given) tells whether item `i`
    /// set a new bit. Locates a chunk of items before touching memory so
    /// several cache misses are in flight. Returns the count of new items.
    #[inline(always)]
    pub fn insert_batch<const PARQUET: bool>(
        body: &mut [u8],
        blocks: u64,
        hashes: &[u64],
        mut newly: Option<&mut [bool]>,
    ) -> u64 {
        let mut inserted = 0u64;
        for (c, hs) in hashes.chunks(LANES).enumerate() {
            let mut at = [0usize; LANES];
            for (slot, h) in at.iter_mut().zip(hs) {
                *slot = index::<PARQUET>(*h, blocks);
            }
            for (i, (block, h)) in at.iter().zip(hs).enumerate() {
                let new = set(body, *block, masks(*h));
                inserted += u64::from(new);
                if let Some(slot) = newly.as_deref_mut().and_then(|n| n.get_mut(c * LANES + i)) {
                    *slot = new;
                }
            }
        }
        inserted
    }

    /// Tests many hashes into `results` (same length, checked by the caller).
    #[inline(always)]
    pub fn contains_batch<const PARQUET: bool>(
        body: &[u8],
        blocks: u64,
        hashes: &[u64],
        results: &mut [bool],
    ) {
        // Whole groups as arrays, then the remainder (no `chunks` zip: its
        // length division keeps a panic path when not inlined).
        let (groups, hashes_rest) = hashes.as_chunks::<LANES>();
        let (result_groups, results_rest) = results.as_chunks_mut::<LANES>();
        for (hs, rs) in groups.iter().zip(result_groups) {
            contains_group::<PARQUET>(body, blocks, hs, rs);
        }
        contains_group::<PARQUET>(body, blocks, hashes_rest, results_rest);
    }

    /// [`contains_batch`] of one group of at most `LANES` hashes: locates
    /// all of them first, so their cache misses overlap.
    #[inline(always)]
    fn contains_group<const PARQUET: bool>(body: &[u8], blocks: u64, hs: &[u64], rs: &mut [bool]) {
        let mut at = [0usize; LANES];
        for (slot, h) in at.iter_mut().zip(hs) {
            *slot = index::<PARQUET>(*h, blocks);
        }
        for ((r, block), h) in rs.iter_mut().zip(at).zip(hs) {
            *r = probe(body, block, masks(*h));
        }
    }
}

/// Sum over blocks of the product of word fills, and the set bit count.
/// Items estimated from `set_bits`, and the measured rate, of a filter
/// whose blocks' `fpr_sum` and `set_bits` a scan gave: (fill, items, rate).
fn fill_estimates(params: &SbbfParams, fpr_sum: f64, set_bits: u64) -> (f64, f64, f64) {
    let fill = set_bits as f64 / params.bits() as f64;
    (fill, items_from_set_bits(params, set_bits), fpr_sum / params.blocks as f64)
}

/// Distinct items estimated from `set_bits` set bits; infinite when every
/// bit is set. Each insert sets one bit in each word of its block: the
/// expected fill after j inserts per block is 1 - (31/32)^j.
fn items_from_set_bits(params: &SbbfParams, set_bits: u64) -> f64 {
    let fill = set_bits as f64 / params.bits() as f64;
    if fill >= 1.0 {
        return f64::INFINITY;
    }
    params.blocks as f64 * libm::log1p(-fill) / libm::log(31.0 / 32.0)
}

/// The capacity flags of a loaded filter, from a scan of its blocks.
fn fill_capacity(params: &SbbfParams, fpr_sum: f64, set_bits: u64) -> CapacityFlags {
    let (_, items, fpr) = fill_estimates(params, fpr_sum, set_bits);
    // `as` saturates: an infinite estimate is above any plan.
    CapacityFlags::evaluate(items as u64, params.planned_items, fpr, params.planned_fpr)
}

/// The capacity flags of a filter that counted its `inserted` items.
fn counted_capacity(params: &SbbfParams, inserted: u64) -> CapacityFlags {
    CapacityFlags::evaluate(
        inserted,
        params.planned_items,
        params.fpr_at(inserted as f64),
        params.planned_fpr,
    )
}

/// One block's share of [`scan`]: the product of its eight words' fills
/// (the block's false-positive rate) and its set bits.
#[inline]
fn block_census(lanes: impl Iterator<Item = u32>) -> (f64, u64) {
    let (mut product, mut set) = (1.0, 0u64);
    for lane in lanes {
        let ones = lane.count_ones();
        set += u64::from(ones);
        product *= f64::from(ones) / 32.0;
    }
    (product, set)
}

fn scan(body: &[u8]) -> (f64, u64) {
    let (mut fpr_sum, mut set) = (0.0, 0u64);
    for block in body.chunks_exact(BLOCK_BYTES) {
        let lanes = block.chunks_exact(4).map(|c| c.try_into().map(u32::from_le_bytes).unwrap_or(0));
        let (product, ones) = block_census(lanes);
        fpr_sum += product;
        set += ones;
    }
    (fpr_sum, set)
}

/// A read-only view of a validated split-block image. Cheap to copy; `Sync`.
#[derive(Copy, Clone)]
pub struct Sbbf<'a> {
    header: &'a [u8; HEADER_LEN],
    body: &'a [u8],
    params: SbbfParams,
    seed: u64,
}

crate::image::debug_view!(Sbbf [params, seed]);

impl<'a> Sbbf<'a> {
    /// The filter's parameters.
    pub fn params(&self) -> SbbfParams {
        self.params
    }

    /// The hash seed stored in the image (0 in Parquet mode).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The hash of `key` this filter uses (XXH3 with the seed in native
    /// mode, XXH64 seed 0 in Parquet mode).
    #[inline]
    pub fn hash_key(&self, key: &[u8]) -> u64 {
        hash_for(self.params.mode, key, self.seed)
    }

    /// The hash function and seed of this image, as a copyable value.
    pub fn key_hasher(&self) -> KeyHasher {
        match self.params.mode {
            SbbfMode::Native => KeyHasher { kind: HashKind::Xxh3, seed: self.seed },
            SbbfMode::Parquet => KeyHasher { kind: HashKind::Xxh64, seed: 0 },
        }
    }

    /// True when `key` may have been added; false means certainly not.
    // In line on every target but firmware (see "Code size on firmware").
    #[cfg_attr(not(target_os = "none"), inline(always))]
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn contains(&self, key: &[u8]) -> bool {
        self.contains_by::<FIRMWARE>(key, hash::hash_bytes)
    }

    /// [`Sbbf::contains`] with a native-mode key of at most
    /// [`hash::SHORT_KEY`] bytes hashed in line
    /// ([`hash::hash_bytes_inline`]): the same answer, for single-key
    /// fast paths.
    #[inline(always)]
    pub fn contains_inline(&self, key: &[u8]) -> bool {
        self.contains_by::<FIRMWARE>(key, hash::hash_bytes_inline)
    }

    /// [`Sbbf::contains`] with `native_hash` for native-mode keys. With
    /// `SHARED` (firmware builds, [`FIRMWARE`]): the key's hash, then the
    /// one out-of-line [`Sbbf::contains_hash`], instead of both modes'
    /// hashing and kernels in line (the same answer: tested on the host).
    #[inline(always)]
    fn contains_by<const SHARED: bool>(
        &self,
        key: &[u8],
        native_hash: impl FnOnce(&[u8], u64) -> u64,
    ) -> bool {
        if SHARED {
            return self.contains_hash(mode_hash(self.params.mode, self.seed, key, native_hash));
        }
        // One mode branch for both the hash and the block rule.
        match self.params.mode {
            SbbfMode::Native => {
                simd::sbbf_contains_native(self.body, self.params.blocks, native_hash(key, self.seed))
            }
            SbbfMode::Parquet => {
                simd::sbbf_contains_parquet(self.body, self.params.blocks, hash::xxh64(key, 0))
            }
        }
    }

    /// [`Sbbf::contains`] for an integer key (8 little-endian bytes; in
    /// Parquet mode this is the plain encoding of an INT64 value).
    #[inline]
    pub fn contains_u64(&self, key: u64) -> bool {
        self.contains(&key.to_le_bytes())
    }

    /// [`Sbbf::contains`] for a precomputed hash ([`Sbbf::hash_key`]).
    // In line on every target but firmware (see "Code size on firmware").
    #[cfg_attr(not(target_os = "none"), inline(always))]
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn contains_hash(&self, hash: u64) -> bool {
        match self.params.mode {
            SbbfMode::Native => simd::sbbf_contains_native(self.body, self.params.blocks, hash),
            SbbfMode::Parquet => simd::sbbf_contains_parquet(self.body, self.params.blocks, hash),
        }
    }

    /// Batch query: `results[i] = contains_hash(hashes[i])`.
    ///
    /// Errors: [`Error::InvalidArgument`] when the slices differ in length.
    pub fn contains_hashes(&self, hashes: &[u64], results: &mut [bool]) -> Result<()> {
        if hashes.len() != results.len() {
            return Err(Error::InvalidArgument);
        }
        let blocks = self.params.blocks;
        match self.params.mode {
            SbbfMode::Native => simd::sbbf_contains_batch_native(self.body, blocks, hashes, results),
            SbbfMode::Parquet => simd::sbbf_contains_batch_parquet(self.body, blocks, hashes, results),
        }
        Ok(())
    }

    /// Number of add calls.
    pub fn add_calls(&self) -> u64 {
        get_u64(self.header, OFF_ADD_CALLS).unwrap_or(0)
    }

    /// Add calls that set at least one new bit.
    pub fn inserted(&self) -> u64 {
        get_u64(self.header, OFF_INSERTED).unwrap_or(0)
    }

    /// True when the body was loaded from outside ([`FLAG_LOADED`]): the add
    /// counters then count only adds made since, and the capacity signal
    /// follows the fill.
    pub fn is_loaded(&self) -> bool {
        image::get_u32(self.header, image::OFF_FLAGS).unwrap_or(0) & FLAG_LOADED != 0
    }

    /// The over-capacity signal. Normally without scanning the blocks: the
    /// inserted count against the plan, and the [`theoretical_fpr`] at the
    /// inserted count against twice the planned rate; its cost grows with the
    /// mean block load λ (a Poisson sum of about 12√λ + 30 terms: a few
    /// microseconds at the planned load), not with the filter size. For a
    /// loaded image ([`Sbbf::is_loaded`]) the counters do not count its
    /// items, so it scans the blocks (O(m)) and compares the items and rate
    /// estimated from the set bits ([`SbbfStats::estimated_items`],
    /// [`SbbfStats::estimated_fpr`]) with the plan.
    pub fn capacity(&self) -> CapacityFlags {
        if self.is_loaded() {
            let (fpr_sum, set_bits) = scan(self.body);
            return fill_capacity(&self.params, fpr_sum, set_bits);
        }
        counted_capacity(&self.params, self.inserted())
    }

    /// Items estimated from `set_bits`, and the measured rate.
    fn fill_estimates(&self, fpr_sum: f64, set_bits: u64) -> (f64, f64, f64) {
        fill_estimates(&self.params, fpr_sum, set_bits)
    }

    /// All statistics; scans the blocks (O(m)). For a loaded image
    /// ([`Sbbf::is_loaded`]) `add_calls` and `inserted` count only adds made
    /// since loading, and `capacity` follows the fill.
    pub fn stats(&self) -> SbbfStats {
        let (fpr_sum, set_bits) = scan(self.body);
        let (fill, estimated_items, estimated_fpr) = self.fill_estimates(fpr_sum, set_bits);
        let capacity =
            if self.is_loaded() { fill_capacity(&self.params, fpr_sum, set_bits) } else { self.capacity() };
        SbbfStats {
            params: self.params,
            seed: self.seed,
            add_calls: self.add_calls(),
            inserted: self.inserted(),
            set_bits,
            fill,
            estimated_items,
            estimated_fpr,
            capacity,
        }
    }

    /// True when `other` can be merged with this filter: same blocks, mode and seed.
    pub fn is_compatible(&self, other: &Sbbf<'_>) -> bool {
        self.params.blocks == other.params.blocks
            && self.params.mode == other.params.mode
            && self.seed == other.seed
    }

    /// The blocks (in Parquet mode: exactly Parquet's bitset bytes).
    pub fn body(&self) -> &'a [u8] {
        self.body
    }

    /// The bitset: `blocks·32` bytes, eight little-endian 32-bit words per
    /// block, in either mode (the same bytes as [`Sbbf::body`]). In Parquet
    /// mode these are exactly the bytes a Parquet file stores after the
    /// filter's `BloomFilterHeader`.
    pub fn bitset(&self) -> &'a [u8] {
        self.body
    }
}

#[inline(always)]
fn hash_for(mode: SbbfMode, key: &[u8], seed: u64) -> u64 {
    match mode {
        SbbfMode::Native => hash::hash_bytes(key, seed),
        SbbfMode::Parquet => hash::xxh64(key, 0),
    }
}

/// An exclusive, mutable view of a validated split-block image.
pub struct SbbfMut<'a> {
    header: &'a mut [u8; HEADER_LEN],
    body: &'a mut [u8],
    params: SbbfParams,
    seed: u64,
}

crate::image::debug_view!(SbbfMut [params, seed]);

impl<'a> SbbfMut<'a> {
    /// A read-only view of the same image.
    pub fn as_ref(&self) -> Sbbf<'_> {
        Sbbf { header: self.header, body: self.body, params: self.params, seed: self.seed }
    }

    /// Adds `key`; returns true when it was new (at least one bit was unset).
    // In line on every target but firmware (see "Code size on firmware").
    #[cfg_attr(not(target_os = "none"), inline(always))]
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn add(&mut self, key: &[u8]) -> bool {
        self.add_by::<FIRMWARE>(key, hash::hash_bytes)
    }

    /// [`SbbfMut::add`] with a native-mode key of at most
    /// [`hash::SHORT_KEY`] bytes hashed in line
    /// ([`hash::hash_bytes_inline`]): the same result, for single-key fast
    /// paths.
    #[inline(always)]
    pub fn add_inline(&mut self, key: &[u8]) -> bool {
        self.add_by::<FIRMWARE>(key, hash::hash_bytes_inline)
    }

    /// [`SbbfMut::add`] with `native_hash` for native-mode keys. With
    /// `SHARED` (firmware builds, [`FIRMWARE`]): the key's hash, then the
    /// one out-of-line [`SbbfMut::add_hash`], instead of both modes'
    /// hashing and kernels in line (the same result: tested on the host).
    #[inline(always)]
    fn add_by<const SHARED: bool>(
        &mut self,
        key: &[u8],
        native_hash: impl FnOnce(&[u8], u64) -> u64,
    ) -> bool {
        if SHARED {
            return self.add_hash(mode_hash(self.params.mode, self.seed, key, native_hash));
        }
        // One mode branch for both the hash and the block rule.
        let new = match self.params.mode {
            SbbfMode::Native => {
                simd::sbbf_insert_native(self.body, self.params.blocks, native_hash(key, self.seed))
            }
            SbbfMode::Parquet => {
                simd::sbbf_insert_parquet(self.body, self.params.blocks, hash::xxh64(key, 0))
            }
        };
        self.record(new);
        new
    }

    /// [`SbbfMut::add`] for an integer key (8 little-endian bytes).
    #[inline]
    pub fn add_u64(&mut self, key: u64) -> bool {
        self.add(&key.to_le_bytes())
    }

    /// [`SbbfMut::add`] for a precomputed hash ([`Sbbf::hash_key`]).
    // In line on every target but firmware (see "Code size on firmware").
    #[cfg_attr(not(target_os = "none"), inline(always))]
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn add_hash(&mut self, hash: u64) -> bool {
        let new = match self.params.mode {
            SbbfMode::Native => simd::sbbf_insert_native(self.body, self.params.blocks, hash),
            SbbfMode::Parquet => simd::sbbf_insert_parquet(self.body, self.params.blocks, hash),
        };
        self.record(new);
        new
    }

    /// Counts one add call, and one inserted item when `new`. Both counters
    /// saturate: at `u64::MAX` calls neither moves. Below it, neither can
    /// overflow, as a valid image keeps `inserted <= add_calls`; a header
    /// broken after validation only gets wrapped counts, never a panic.
    /// (One well-predicted test instead of a saturating add per counter:
    /// two instructions fewer per add, by callgrind.)
    #[inline(always)]
    fn record(&mut self, new: bool) {
        let calls = get_u64(self.header, OFF_ADD_CALLS).unwrap_or(0);
        if calls == u64::MAX {
            return;
        }
        let inserted = get_u64(self.header, OFF_INSERTED).unwrap_or(0);
        put_u64(self.header, OFF_ADD_CALLS, calls + 1);
        put_u64(self.header, OFF_INSERTED, inserted.wrapping_add(u64::from(new)));
    }

    /// Batch add; `newly[i]` (optional, same length) tells whether item `i`
    /// was new. Errors: [`Error::InvalidArgument`] on a length mismatch;
    /// nothing is added then.
    pub fn add_hashes(&mut self, hashes: &[u64], newly: Option<&mut [bool]>) -> Result<()> {
        if newly.as_ref().is_some_and(|n| n.len() != hashes.len()) {
            return Err(Error::InvalidArgument);
        }
        let blocks = self.params.blocks;
        let inserted = match self.params.mode {
            SbbfMode::Native => simd::sbbf_insert_batch_native(self.body, blocks, hashes, newly),
            SbbfMode::Parquet => simd::sbbf_insert_batch_parquet(self.body, blocks, hashes, newly),
        };
        self.bump(hashes.len() as u64, inserted);
        Ok(())
    }

    fn bump(&mut self, calls: u64, inserted: u64) {
        let c = get_u64(self.header, OFF_ADD_CALLS).unwrap_or(0).saturating_add(calls);
        let i = get_u64(self.header, OFF_INSERTED).unwrap_or(0).saturating_add(inserted);
        put_u64(self.header, OFF_ADD_CALLS, c);
        put_u64(self.header, OFF_INSERTED, i.min(c));
    }

    /// Union (bitwise OR). The add-call counter becomes the sum. The
    /// inserted counter becomes the distinct items estimated from the
    /// union's set bits ([`SbbfStats::estimated_items`]), kept between the
    /// larger of the two counts and this count plus the smaller of
    /// `other`'s count and the bits the union set: unchanged when `other`
    /// adds no bit (a copy of this filter, or a subset), the distinct keys
    /// within the estimate's error when shards of partly the same keys are
    /// merged (so the over-planned-items signal follows the keys, not the
    /// partitioning).
    ///
    /// Errors: [`Error::Incompatible`] unless blocks, mode and seed are
    /// equal; nothing changes then.
    pub fn union(&mut self, other: &Sbbf<'_>) -> Result<()> {
        if !self.as_ref().is_compatible(other) {
            return Err(Error::Incompatible);
        }
        let counts = filter::or_into_counting(self.body, other.body);
        let estimated = items_from_set_bits(&self.params, counts.set_bits);
        let before = self.as_ref().inserted();
        let inserted = filter::union_inserted(before, other.inserted(), counts.new_bits, estimated);
        self.bump(other.add_calls(), inserted - before);
        if other.is_loaded() {
            self.set_loaded(true);
        }
        Ok(())
    }

    fn set_loaded(&mut self, loaded: bool) {
        let flags = image::get_u32(self.header, image::OFF_FLAGS).unwrap_or(0);
        let flags = if loaded { flags | FLAG_LOADED } else { flags & !FLAG_LOADED };
        image::put_u32(self.header, image::OFF_FLAGS, flags);
    }

    /// Halves the block count `folds` times in place, as the parquet crate
    /// and Arrow C++ do before writing (see [`crate::parquet::fold_bitset`]):
    /// block `i` becomes the OR of blocks `i·2^folds .. (i+1)·2^folds`, so
    /// every added key is still found (no false negatives) and the result
    /// equals a filter built directly at the smaller size. Works in both
    /// modes (fastrange and Parquet's rule both map block `j` to `j >> 1`
    /// when the count halves). The image shrinks to `HEADER_LEN +
    /// blocks·32 / 2^folds` bytes at the start of the same buffer; plan and
    /// counters are kept, so the capacity signal reflects the smaller size.
    /// `folds = 0` changes nothing.
    ///
    /// Errors: [`Error::InvalidArgument`] when the block count is not
    /// divisible by `2^folds`; the image is then unchanged.
    pub fn fold(self, folds: u32) -> Result<SbbfMut<'a>> {
        let blocks = self.params.blocks;
        let group = 1u64
            .checked_shl(folds)
            .filter(|g| *g <= blocks && blocks.is_multiple_of(*g))
            .ok_or(Error::InvalidArgument)?;
        let SbbfMut { header, body, mut params, seed } = self;
        params.blocks = blocks / group.max(1); // `group` is 2^folds: never 0
        let new_len = image::to_usize(params.blocks * BLOCK_BYTES as u64)?;
        crate::parquet::fold_blocks(body, image::to_usize(group)?);
        // The new image ends at the next multiple of 64 bytes, inside the old
        // body: what lies between the new body's end and there is padding.
        let image_len = image::padded_len(HEADER_LEN as u64 + new_len as u64);
        let padded_body = image::to_usize(image_len)? - HEADER_LEN;
        if let Some(padding) = body.get_mut(new_len..padded_body) {
            padding.fill(0);
        }
        let body = body.get_mut(..new_len).ok_or(Error::InvalidArgument)?;
        put_u64(header, OFF_BLOCKS, params.blocks);
        put_u64(header, image::OFF_IMAGE_LEN, image_len);
        Ok(SbbfMut { header, body, params, seed })
    }

    /// Intersection (bitwise AND); counters become the minimum of both.
    /// Errors: [`Error::Incompatible`] unless blocks, mode and seed are equal.
    pub fn intersect(&mut self, other: &Sbbf<'_>) -> Result<()> {
        if !self.as_ref().is_compatible(other) {
            return Err(Error::Incompatible);
        }
        filter::and_into(self.body, other.body);
        let calls = self.as_ref().add_calls().min(other.add_calls());
        let inserted = self.as_ref().inserted().min(other.inserted());
        put_u64(self.header, OFF_ADD_CALLS, calls);
        put_u64(self.header, OFF_INSERTED, inserted.min(calls));
        if other.is_loaded() {
            self.set_loaded(true);
        }
        Ok(())
    }

    /// Removes every item. The counters are exact again: a loaded image
    /// loses [`FLAG_LOADED`].
    pub fn clear(&mut self) {
        self.body.fill(0);
        put_u64(self.header, OFF_ADD_CALLS, 0);
        put_u64(self.header, OFF_INSERTED, 0);
        self.set_loaded(false);
    }
}

/// A shared view of a live split-block image that many threads may add to
/// at once (see [`crate::shared`]): the eight bits of a key are set with
/// four atomic `fetch_or`s on the block's 64-bit words, the add-call and
/// inserted counters with atomic additions. Once every add has returned,
/// the blocks and the add-call counter equal those of the same adds made
/// one at a time; "inserted" depends on the order. Works in both modes.
#[cfg(target_has_atomic = "64")]
#[derive(Copy, Clone)]
pub struct SharedSbbf<'a> {
    words: AtomicWords<'a>,
    params: SbbfParams,
    seed: u64,
}

#[cfg(target_has_atomic = "64")]
crate::image::debug_view!(SharedSbbf [params, seed] shared);

/// Validates the immutable header of a live image seen as atomic words and
/// returns the shared view. Errors: as [`wrap`] for the header.
#[cfg(target_has_atomic = "64")]
pub fn wrap_shared(words: AtomicWords<'_>) -> Result<SharedSbbf<'_>> {
    let header: [u8; HEADER_LEN] = words.snapshot();
    let common = words.common(&header, FamilyId::SplitBlockBloom)?;
    let params = shape(&common, &header)?;
    Ok(SharedSbbf { words, params, seed: common.seed })
}

#[cfg(target_has_atomic = "64")]
impl SharedSbbf<'_> {
    /// The filter's parameters.
    pub fn params(&self) -> SbbfParams {
        self.params
    }

    /// The hash function of the image (XXH64 seed 0 in Parquet mode).
    pub fn key_hasher(&self) -> KeyHasher {
        match self.params.mode {
            SbbfMode::Native => KeyHasher { kind: HashKind::Xxh3, seed: self.seed },
            SbbfMode::Parquet => KeyHasher { kind: HashKind::Xxh64, seed: 0 },
        }
    }

    /// The first word of the block a hash selects, and the block's eight masks.
    #[inline(always)]
    fn locate(&self, h: u64) -> (usize, [u32; 8]) {
        let key = h as u32;
        (self.block_word(h), SALT.map(|salt| 1u32 << (key.wrapping_mul(salt) >> 27)))
    }

    /// The first word of the block a hash selects.
    #[inline(always)]
    fn block_word(&self, h: u64) -> usize {
        let blocks = self.params.blocks;
        let block = match self.params.mode {
            SbbfMode::Native => hash::reduce(h, blocks),
            SbbfMode::Parquet => ((h >> 32) * (blocks & 0x1_ffff_ffff)) >> 32,
        };
        HEADER_LEN / 8 + 4 * block as usize
    }

    /// The over-capacity signal, as [`Sbbf::capacity`], read in place with
    /// atomic loads, so that writers can watch for overfill without copying
    /// the image out. Thread-safe. Without a scan (the inserted counter
    /// against the plan) unless the image is loaded ([`Sbbf::is_loaded`]):
    /// then it scans the blocks (O(m)). Exact once every add has returned;
    /// while adds run, the counter and the blocks read as values they
    /// passed through, and "inserted" depends on the order of concurrent
    /// adds (see [`SharedSbbf`]).
    pub fn capacity(&self) -> CapacityFlags {
        let header: [u8; 16] = self.words.snapshot();
        let flags = image::get_u32(&header, image::OFF_FLAGS).unwrap_or(0);
        if flags & FLAG_LOADED == 0 {
            return counted_capacity(&self.params, self.words.load(OFF_INSERTED / 8));
        }
        let (mut fpr_sum, mut set_bits) = (0.0, 0u64);
        for block in 0..self.params.blocks {
            let first = HEADER_LEN / 8 + 4 * block as usize;
            let words = (first..first + 4).map(|w| self.words.load(w));
            let (product, set) = block_census(words.flat_map(|w| [w as u32, (w >> 32) as u32]));
            fpr_sum += product;
            set_bits += set;
        }
        fill_capacity(&self.params, fpr_sum, set_bits)
    }

    /// Adds a byte key; true when a bit was new. Thread-safe.
    #[inline]
    pub fn add(&self, key: &[u8]) -> bool {
        self.add_hash(hash_for(self.params.mode, key, self.seed))
    }

    /// Adds an integer key (8 little-endian bytes). Thread-safe.
    #[inline]
    pub fn add_u64(&self, key: u64) -> bool {
        self.add(&key.to_le_bytes())
    }

    /// Adds a precomputed hash (XXH3 with the seed natively, XXH64 seed 0
    /// of the value's bytes in Parquet mode, see [`crate::parquet`]). Thread-safe.
    pub fn add_hash(&self, h: u64) -> bool {
        let new = self.set_block_bits(h);
        self.count_adds(1, u64::from(new));
        new
    }

    /// Sets the eight bits of `h` in its block; true when one was new. A
    /// word whose bits are all set already is only read (bits are never
    /// cleared while the image is shared; a load keeps the cache line
    /// shared where a `fetch_or` would take it exclusively).
    #[inline(always)]
    fn set_block_bits(&self, h: u64) -> bool {
        let (word, masks) = self.locate(h);
        let mut new = 0u64;
        for (j, pair) in masks.chunks_exact(2).enumerate() {
            let mask = pair.iter().rev().fold(0u64, |acc, m| (acc << 32) | u64::from(*m));
            if self.words.load(word + j) & mask != mask {
                new |= !self.words.fetch_or(word + j, mask) & mask;
            }
        }
        new != 0
    }

    /// Adds `calls` add calls, `inserted` of them new, to the header counters.
    fn count_adds(&self, calls: u64, inserted: u64) {
        let bump = |off: usize, by: u64| {
            self.words.update(off / 8, Ordering::Relaxed, |v| Some(v.saturating_add(by)));
        };
        bump(OFF_ADD_CALLS, calls);
        if inserted > 0 {
            bump(OFF_INSERTED, inserted);
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
        let mut inserted = 0u64;
        for (i, h) in hashes.iter().enumerate() {
            // The block of the key a few places ahead loads while this one is set.
            if let Some(ahead) = hashes.get(i + crate::filter::PREFETCH_DISTANCE) {
                self.words.prefetch(self.block_word(*ahead));
            }
            let new = self.set_block_bits(*h);
            inserted += u64::from(new);
            if let Some(slot) = newly.as_deref_mut().and_then(|out| out.get_mut(i)) {
                *slot = new;
            }
        }
        self.count_adds(hashes.len() as u64, inserted);
        Ok(())
    }

    /// Tests a precomputed hash with atomic loads. Thread-safe.
    pub fn contains_hash(&self, h: u64) -> bool {
        let (word, masks) = self.locate(h);
        masks.chunks_exact(2).enumerate().all(|(j, pair)| {
            let mask = pair.iter().rev().fold(0u64, |acc, m| (acc << 32) | u64::from(*m));
            self.words.load(word + j) & mask == mask
        })
    }

    /// Tests a byte key. Thread-safe.
    #[inline]
    pub fn contains(&self, key: &[u8]) -> bool {
        self.contains_hash(hash_for(self.params.mode, key, self.seed))
    }

    /// Tests an integer key (8 little-endian bytes), the query of
    /// [`SharedSbbf::add_u64`]. Thread-safe.
    #[inline]
    pub fn contains_u64(&self, key: u64) -> bool {
        self.contains(&key.to_le_bytes())
    }
}

#[cfg(test)]
mod tests;
