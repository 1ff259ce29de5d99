//! # sketches-core
//!
//! Probabilistic sketches that live entirely inside caller-provided byte
//! buffers: `#![no_std]`, no allocation, no panics, no pointers kept after a
//! call returns. The buffer *is* the serialized image (see [`image`]), so a
//! sketch can sit on the stack, in a `malloc`ed block, in an `mmap`ed file, a
//! Go slice or a Java direct buffer, and be shipped by copying bytes.
//!
//! # Quick start
//!
//! Size first, then give the core a buffer of at least that many bytes,
//! starting on an 8-byte boundary (64 is best: every live image length is a
//! multiple of 64, see [`image::IMAGE_ALIGN`]). A fixed array inside a
//! `#[repr(align(64))]` struct works on the stack or in a `static`, with no
//! allocator at all:
//!
//! ```
//! use sketches_core::bloom::{self, BloomParams};
//! use sketches_core::image::ImageBuf;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! let params = BloomParams::for_items(1_000, 0.01)?; // n items at a 1% false-positive rate
//! assert_eq!(params.image_len()?, 1344); // exact bytes: 112 of header, 9,586 bits, padding
//!
//! let mut buf = ImageBuf::<1344>::new();
//! let mut filter = bloom::init(&mut buf, &params, 42)?; // 42: the hash seed, kept in the image
//! assert!(filter.add(b"alice")); // true: the key was new
//! assert!(!filter.add(b"alice")); // false: already (maybe) present
//! assert!(filter.as_ref().contains(b"alice"));
//! assert!(!filter.as_ref().contains(b"bob"));
//!
//! // The buffer is the image: any holder of the bytes can query it.
//! let view = bloom::wrap(&buf)?;
//! assert!(view.contains(b"alice"));
//! # Ok(())
//! # }
//! ```
//!
//! With an allocator, a `Vec<u8>` a little longer than the image gives an
//! aligned window in safe code (the core itself never allocates):
//!
//! ```
//! use sketches_core::hll;
//!
//! # fn main() -> Result<(), sketches_core::Error> {
//! let len = usize::try_from(hll::image_len(14)?).map_err(|_| sketches_core::Error::BufferTooSmall)?;
//! let mut storage = vec![0u8; len + 63];
//! let start = (storage.as_ptr() as usize).wrapping_neg() % 64; // bytes up to a 64-byte boundary
//! let buf = &mut storage[start..start + len];
//!
//! let mut sketch = hll::init(buf, 14, 0)?; // p = 14: 16,384 registers, about 0.8% error
//! for i in 0..100_000u64 {
//!     sketch.add_u64(i);
//! }
//! let estimate = sketch.as_ref().estimate();
//! assert!((estimate - 100_000.0).abs() < 4_000.0, "{estimate}"); // 5 standard errors: 4,050
//! # Ok(())
//! # }
//! ```
//!
//! # The shape every family shares
//!
//! Each family module ([`bloom`], [`sbbf`], ...) offers the same calls:
//! * sizing: `XxxParams::for_items` / `with_*` plan the parameters
//!   (`CountMinParams::for_error`, `FuseParams::for_fpr`; a precision `p`
//!   for the distinct counters, `k` for MinHash); `image_len` returns the
//!   exact byte count of the image;
//! * `init(buf, &params, seed)` (`init(buf, p, seed)` for HyperLogLog and
//!   UltraLogLog, `init(buf, config, p, seed)` for ExaLogLog, `init(buf, k,
//!   seed)` for MinHash) writes a fresh image into `buf` and returns a mutable view
//!   (`BloomMut`, ...); `wrap(&buf)` and `wrap_mut(&mut buf)` validate an
//!   existing image (its header, once) and return a view over it,
//!   zero-copy. `buf` may be longer than the image. The static [`fuse`]
//!   filter is built once with `fuse::build_*` instead;
//! * updates on the mutable view (`add`, `add_u64` for integers hashed as 8
//!   little-endian bytes, `add_hash` for a precomputed hash, and most
//!   families have a batch `add_hashes`), queries on the read-only view
//!   (`as_ref()` of a mutable one): `contains`, `estimate`, `stats`, ...;
//!   `clear()` empties a sketch (`reset()` for HyperLogLog, UltraLogLog
//!   and ExaLogLog);
//! * `merge` (`union` for the Bloom filters) of compatible images: same
//!   parameters and seed, see each family for the rule;
//! * `export(src, dst)` copies the image and seals it with a checksum;
//!   `import(src, dst)` (copy) and `verify(bytes)` (in place) check untrusted
//!   bytes, checksum included, before they are used. `exported_len` /
//!   `import_len` size the destinations. `wrap` skips the checksum: use it
//!   for images you wrote yourself.
//!
//! Images carry their parameters, hash and seed, so a reader needs no side
//! information, and they are byte-identical across hosts and across the C,
//! C++, Go, Java and Python bindings.
//!
//! # Errors
//!
//! Every fallible call returns [`Result<T>`], `Result<T, Error>`; [`Error`]
//! is `Copy`, implements `Display` and `core::error::Error` (so `?` into
//! `Box<dyn Error>` or `anyhow` works), and each variant documents when it
//! happens. A call that fails changes nothing: no half-written image. Calls
//! that cannot fail return plain values: most adds and queries on a
//! validated view (`add` of a Bloom filter returns whether the key was new,
//! `contains` a `bool`); a cuckoo filter's `add` returns `Result` (it can be
//! full), as does a Top-k `add` (the key can be too long).
//!
//! # Threads
//!
//! Read-only views (`Bloom<'_>`, `Hll<'_>`, ...) are `Copy` and hold a
//! `&[u8]`: any number of threads may query one image at once. Mutable
//! views hold the `&mut [u8]`, so the borrow checker gives one writer
//! exclusive access. For many writers at once, [`shared`] (targets with
//! 64-bit atomics) has views over the image as `&[AtomicU64]` whose `add`
//! takes `&self`: Bloom, split-block Bloom, HyperLogLog (in dense mode) and
//! UltraLogLog.
//!
//! # Firmware
//!
//! The crate is `#![no_std]`, uses no allocator and keeps no global state
//! beyond a cached CPU-feature flag ([`simd`]). Every call works on the
//! buffers it is given and keeps no pointer to them once it returns, so an
//! image can sit in a `static` array, on the stack, or in flash (read-only
//! queries through `wrap`). The repository checks, for the C ABI built on
//! these calls, that no exported function can reach a panic and that none
//! needs more than 1 KiB of stack (x86-64), and it builds the library for
//! `thumbv7em-none-eabihf` (Cortex-M4F) and `thumbv6m-none-eabi`
//! (Cortex-M0+). Without 64-bit atomics (as on both targets) the [`shared`]
//! module is absent; everything else is the same.
//!
//! # Families
//!
//! [`bloom`] (classic Bloom filter), [`sbbf`] (split-block Bloom
//! filter, with a Parquet-compatible mode), [`counting`] (counting Bloom
//! filter with removal), [`cuckoo`] (cuckoo filter), [`hll`] (HyperLogLog
//! with an exact small mode), [`ull`] (UltraLogLog), [`countmin`] (Count-Min
//! sketch), [`minhash`] (MinHash with one-permutation hashing),
//! [`topk`] (Space-Saving heavy hitters), [`fuse`] (static binary fuse
//! filter), [`ell`] (ExaLogLog); [`parquet`] has the Parquet bloom filter
//! interop helpers (value hashing, writers' sizing, folding).
#![no_std]
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod bloom;
pub mod cardinality;
pub mod counting;
pub mod countmin;
pub mod cuckoo;
pub mod ell;
pub mod error;
pub mod filter;
pub mod fuse;
pub mod hash;
pub mod hll;
pub mod image;
pub mod minhash;
pub mod parquet;
pub mod sbbf;
#[cfg(target_has_atomic = "64")]
pub mod shared;
pub mod simd;
pub mod topk;
pub mod ull;

#[cfg(test)]
pub(crate) mod test_util;

pub use error::{Error, Result};
pub use filter::CapacityFlags;
pub use hash::HashKind;
pub use image::FamilyId;

#[cfg(test)]
mod tests {
    /// Compiles only when `T` has the traits a user keys a map or set with.
    fn map_key<T: Copy + Eq + core::hash::Hash + core::fmt::Debug>() {}

    /// Every public value type with `Eq` is also `Hash` (the Rust API
    /// guidelines' common traits): parameters, modes and Top-k results can
    /// key a `HashMap`/`HashSet`. Before, `TopKParams`, `FuseParams`,
    /// `CountMinParams`, `SbbfMode`, `HllMode`, `KeyHasher`, `TopKItem` and
    /// `TopKEstimate` were `Eq` without `Hash`, while `EllConfig`,
    /// `HashKind`, `FamilyId`, `ParquetSizing` and `Error` had both.
    #[test]
    fn eq_value_types_are_hash() {
        map_key::<crate::Error>();
        map_key::<crate::HashKind>();
        map_key::<crate::FamilyId>();
        map_key::<crate::CapacityFlags>();
        map_key::<crate::hash::KeyHasher>();
        map_key::<crate::sbbf::SbbfMode>();
        map_key::<crate::hll::HllMode>();
        map_key::<crate::ell::EllConfig>();
        map_key::<crate::parquet::ParquetSizing>();
        map_key::<crate::countmin::CountMinParams>();
        map_key::<crate::topk::TopKParams>();
        map_key::<crate::topk::TopKItem<'static>>();
        map_key::<crate::topk::TopKEstimate>();
        map_key::<crate::fuse::FuseParams>();
    }
}
