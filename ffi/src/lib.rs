//! # sketches-ffi: the C ABI of `sketches-core`
//!
//! The exported functions, as an rlib (Rust tests, benches and fuzz
//! targets call them directly); the `clib/` crate packages them as
//! `libsketches.so` and `libsketches.a` with the panic handler.
//! `include/sketches.h` is generated from this crate by cbindgen (pinned
//! in `scripts/install-test-tools.sh`). One module per core module (each
//! family, `filter`, `hash`, `image`, `shared`; the core's `parquet`
//! helpers are in `sbbf`), plus the C boundary's own: `boundary` (pointer
//! and overlap checks, the panic guard) and `status`.
//!
//! Conventions (every function):
//! * Names start with `sketch_`; types with `sketch_`; constants with `SKETCH_`.
//! * No hidden state, no handles to free: calls take the caller's buffer and
//!   its length. The same call works on a stack array, a `malloc`ed block,
//!   an `mmap`ed file, a Go slice or a Java direct `ByteBuffer`.
//! * Fallible calls return `sketch_status`, a fixed-width `int32_t`
//!   (`SKETCH_OK` = 0); outputs are written only on success;
//!   `sketch_status_str` gives static text.
//! * NULL with length 0 is a valid empty input; any other NULL is
//!   `SKETCH_NULL_POINTER`, never a crash.
//! * Memory a call writes (the image it updates or builds, an output array
//!   or value, a destination) may not overlap other memory of the same call
//!   (keys, hashes, weights, other outputs, a source image, the image a
//!   query reads): `SKETCH_OVERLAP`, nothing changed. Rust may hold no
//!   other view of bytes it writes through a mutable one, so these calls
//!   are refused rather than left undefined; read-only calls may read
//!   their keys out of the image.
//! * No function keeps a pointer after it returns, calls back, blocks or
//!   allocates: bindings may pass memory they only pin for the call (cgo,
//!   JNI critical regions, FFM, the buffer protocol with the GIL released).
//!   The one exception to "blocks": a concurrent HyperLogLog add that finds
//!   a straddling register's lock word held by another thread spins, then
//!   on Unix yields and sleeps 1 ms at a time, and gives up after about
//!   five seconds (`SKETCH_CORRUPT_HEADER`; see `sketch_hll_add_concurrent`).
//! * No exported function can reach a panic: the crate is `no_std` (no
//!   std, no unwinder, no allocator), and the `panic_free` test links the
//!   library with a panic handler that references an undefined symbol, so
//!   any reachable panic path fails the build.
//! * Thread-safety: no global state but a once-written atomic cache of the
//!   CPU's SIMD features (x86-64). Calls taking `const void *buf` only
//!   read and may run concurrently; calls taking `void *buf` need exclusive
//!   access to that buffer.
#![cfg_attr(not(test), no_std)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

pub mod bloom;
mod boundary;
pub mod counting;
pub mod countmin;
pub mod cuckoo;
pub mod ell;
pub mod filter;
pub mod fuse;
pub mod hash;
pub mod hll;
pub mod image;
pub mod minhash;
pub mod sbbf;
#[cfg(target_has_atomic = "64")]
mod shared;
pub mod status;
pub mod topk;
pub mod ull;

pub use boundary::sketch_slice;
pub use status::*;

/// Major version of the library (from Cargo.toml; tested to agree).
pub const SKETCH_VERSION_MAJOR: u32 = 0;
/// Minor version of the library.
pub const SKETCH_VERSION_MINOR: u32 = 1;
/// Patch version of the library.
pub const SKETCH_VERSION_PATCH: u32 = 0;
/// Format major version of the images this library reads and writes.
pub const SKETCH_FORMAT_MAJOR: u32 = 1;

/// The run-time library version as `major * 10000 + minor * 100 + patch`,
/// to compare with the `SKETCH_VERSION_*` macros the caller compiled against.
#[no_mangle]
pub extern "C" fn sketch_version() -> u32 {
    SKETCH_VERSION_MAJOR * 10000 + SKETCH_VERSION_MINOR * 100 + SKETCH_VERSION_PATCH
}

/// The run-time library version as static text, for example "0.1.0".
#[no_mangle]
pub extern "C" fn sketch_version_string() -> *const core::ffi::c_char {
    const TEXT: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    TEXT.as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn family_and_hash_ids_agree_with_the_core() {
        use sketches_core::{FamilyId, HashKind};
        assert_eq!(image::SKETCH_FAMILY_BLOOM, FamilyId::Bloom as u16);
        assert_eq!(image::SKETCH_FAMILY_SPLIT_BLOCK_BLOOM, FamilyId::SplitBlockBloom as u16);
        assert_eq!(counting::SKETCH_FAMILY_COUNTING_BLOOM, FamilyId::CountingBloom as u16);
        assert_eq!(cuckoo::SKETCH_FAMILY_CUCKOO, FamilyId::Cuckoo as u16);
        assert_eq!(fuse::SKETCH_FAMILY_BINARY_FUSE, FamilyId::BinaryFuse as u16);
        assert_eq!(ell::SKETCH_FAMILY_EXALOGLOG, FamilyId::ExaLogLog as u16);
        assert_eq!(hash::SKETCH_HASH_XXH3, HashKind::Xxh3.id());
        assert_eq!(hash::SKETCH_HASH_XXH64, HashKind::Xxh64.id());
        assert_eq!(image::SKETCH_COMMON_HEADER_BYTES as usize, sketches_core::image::COMMON_HEADER_LEN);
        assert_eq!(image::SKETCH_IMAGE_ALIGN as usize, sketches_core::image::IMAGE_ALIGN);
        assert_eq!(image::SKETCH_IMAGE_MIN_ALIGN as usize, sketches_core::image::MIN_IMAGE_ALIGN);
        assert_eq!(sbbf::SKETCH_SBBF_BLOCK_BYTES as usize, sketches_core::sbbf::BLOCK_BYTES);
    }

    #[test]
    fn version_constants_agree_with_cargo_toml() {
        assert_eq!(SKETCH_VERSION_MAJOR.to_string(), env!("CARGO_PKG_VERSION_MAJOR"));
        assert_eq!(SKETCH_VERSION_MINOR.to_string(), env!("CARGO_PKG_VERSION_MINOR"));
        assert_eq!(SKETCH_VERSION_PATCH.to_string(), env!("CARGO_PKG_VERSION_PATCH"));
        assert_eq!(SKETCH_FORMAT_MAJOR, u32::from(sketches_core::image::FORMAT_MAJOR));
        // SAFETY: the function returns a static NUL-terminated string.
        let text = unsafe { std::ffi::CStr::from_ptr(sketch_version_string()) };
        assert_eq!(text.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }
}
