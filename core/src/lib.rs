//! # sketches-core
//!
//! Probabilistic sketches that live entirely inside caller-provided byte
//! buffers: `#![no_std]`, no allocation, no panics, no pointers kept after a
//! call returns. The buffer *is* the serialized image (see [`image`]), so a
//! sketch can sit on the stack, in a `malloc`ed block, in an `mmap`ed file, a
//! Go slice or a Java direct buffer, and be shipped by copying bytes.
//!
//! Every family module has the same shape:
//! * sizing: `XxxParams::for_items` / `with_*` plan parameters, `image_len`
//!   returns the exact byte count;
//! * `init` writes a fresh image into a buffer; `wrap` / `wrap_mut` validate
//!   an existing one (zero-copy);
//! * update and query calls on the views, with `_u64`, `_hash` and batch forms;
//! * merge (union, ...) of compatible images;
//! * `export` (copy + checksum) and `import` / `verify` (checked path for
//!   untrusted bytes);
//! * statistics that tell how the sketch is doing.
//!
//! Families: [`bloom`] (classic Bloom filter), [`sbbf`] (split-block Bloom
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
