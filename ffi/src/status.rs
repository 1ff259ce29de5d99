//! Status codes: the C twin of `sketches_core::Error`, with stable numbers.
//!
//! Every fallible function returns a `sketch_status`, a fixed-width
//! `int32_t`, so cgo, JNI, FFM, Python and C++ bind one known type. The
//! numbers are stable and never reused; `SKETCH_OK` is 0. Outputs are written
//! only when a call returns `SKETCH_OK`.

use core::ffi::c_char;
use sketches_core::Error;

/// Result of every fallible call: one of the `SKETCH_*` status numbers below
/// (`SKETCH_OK` = 0). A fixed-width `int32_t`; `sketch_status_str` gives its text.
#[allow(non_camel_case_types)]
pub type sketch_status = i32;

/// Success.
pub const SKETCH_OK: sketch_status = 0;
/// A required pointer was NULL (NULL is accepted only with length 0).
pub const SKETCH_NULL_POINTER: sketch_status = 1;
/// The buffer is shorter than the image (or the output) needs.
pub const SKETCH_BUFFER_TOO_SMALL: sketch_status = 2;
/// The buffer does not start on an 8-byte boundary.
pub const SKETCH_MISALIGNED: sketch_status = 3;
/// A sketch parameter is out of range (p <= 0, p >= 1, n = 0, NaN, a
/// non-zero reserved field, ...), or packed key offsets are decreasing or
/// point past the data.
pub const SKETCH_INVALID_PARAMETER: sketch_status = 4;
/// A call argument is inconsistent (lengths, counts, unknown mode).
pub const SKETCH_INVALID_ARGUMENT: sketch_status = 5;
/// The bytes are not a sketch image (bad magic).
pub const SKETCH_BAD_MAGIC: sketch_status = 6;
/// The image was written by a newer, incompatible format version.
pub const SKETCH_UNSUPPORTED_VERSION: sketch_status = 7;
/// The image holds a different sketch family.
pub const SKETCH_WRONG_FAMILY: sketch_status = 8;
/// The image header is inconsistent.
pub const SKETCH_CORRUPT_HEADER: sketch_status = 9;
/// The checksum does not match: the bytes were damaged.
pub const SKETCH_CHECKSUM_MISMATCH: sketch_status = 10;
/// The byte count differs from the image length recorded in the header.
pub const SKETCH_LENGTH_MISMATCH: sketch_status = 11;
/// The sketches differ in parameters, seed or hash and cannot be combined.
pub const SKETCH_INCOMPATIBLE: sketch_status = 12;
/// The image names a hash function this family cannot use.
pub const SKETCH_UNSUPPORTED_HASH: sketch_status = 13;
/// Memory the call writes (an image it updates or builds, an output array
/// or value, a merge destination) overlaps other memory of the same call:
/// keys, hashes, weights, another output, the source image or the image a
/// query reads (nothing changed).
pub const SKETCH_OVERLAP: sketch_status = 14;
/// Reserved: an internal error (no longer produced: no exported function can
/// reach a panic, which a build-time check proves; the number stays reserved).
pub const SKETCH_INTERNAL_ERROR: sketch_status = 15;
/// A removal found the item absent; nothing changed.
pub const SKETCH_NOT_PRESENT: sketch_status = 16;
/// The filter has no room for the item; nothing changed.
pub const SKETCH_FULL: sketch_status = 17;
/// The image body holds values its format forbids (register above its
/// maximum, unsorted or repeated small-mode entries, ...).
pub const SKETCH_CORRUPT_BODY: sketch_status = 18;
/// The image is an exported compact image: import it into a live buffer first.
pub const SKETCH_COMPACT_IMAGE: sketch_status = 19;
/// The key is longer than the sketch's maximum key length; nothing changed.
pub const SKETCH_KEY_TOO_LONG: sketch_status = 20;
/// A static filter could not be built within its bound on attempts (with
/// distinct keys this is vanishingly rare); nothing was written.
pub const SKETCH_BUILD_FAILED: sketch_status = 21;
/// A HyperLogLog in its exact small mode was given to a concurrent add or
/// estimate: densify it first (`sketch_hll_densify`, exclusive access);
/// nothing changed.
pub const SKETCH_SMALL_MODE: sketch_status = 22;

/// Converts a core error into its stable status number (the core and the
/// C ABI share the numbers, see `sketches_core::Error::code`).
#[inline]
pub(crate) fn from_error(e: Error) -> sketch_status {
    e.code()
}

fn text(status: i32) -> &'static core::ffi::CStr {
    match status {
        0 => c"ok",
        1 => c"required pointer is NULL",
        2 => c"buffer too small for the sketch image",
        3 => c"buffer is not 8-byte aligned",
        4 => c"sketch parameter out of range",
        5 => c"invalid call argument",
        6 => c"not a sketch image (bad magic)",
        7 => c"image format version is newer than this library",
        8 => c"image holds a different sketch family",
        9 => c"image header is inconsistent",
        10 => c"image checksum mismatch (corrupted bytes)",
        11 => c"byte count differs from the image length",
        12 => c"sketches have different parameters, seed or hash",
        13 => c"hash function not supported by this family",
        14 => c"source and destination buffers overlap",
        15 => c"internal error (reserved; no longer produced)",
        16 => c"item not present (nothing removed)",
        17 => c"filter full (nothing changed)",
        18 => c"image body holds values its format forbids",
        19 => c"compact exported image: import it before use",
        20 => c"key longer than the sketch's maximum key length (nothing changed)",
        21 => c"filter construction failed within its attempt bound (nothing written)",
        22 => c"sketch is in its exact small mode: densify it before concurrent adds",
        _ => c"unknown status code",
    }
}

/// Static, NUL-terminated English text for a status code (any integer; unknown
/// codes give "unknown status code"). Never NULL; never free it. Thread-safe.
#[no_mangle]
pub extern "C" fn sketch_status_str(status: i32) -> *const c_char {
    text(status).as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_errors_and_c_statuses_share_numbers_and_text() {
        let all = [
            Error::BufferTooSmall,
            Error::Misaligned,
            Error::InvalidParameter,
            Error::InvalidArgument,
            Error::BadMagic,
            Error::UnsupportedVersion,
            Error::WrongFamily,
            Error::CorruptHeader,
            Error::ChecksumMismatch,
            Error::LengthMismatch,
            Error::Incompatible,
            Error::UnsupportedHash,
            Error::NotPresent,
            Error::Full,
            Error::CorruptBody,
            Error::CompactImage,
            Error::KeyTooLong,
            Error::BuildFailed,
            Error::SmallMode,
        ];
        for e in all {
            assert_eq!(from_error(e), e.code());
            assert_eq!(text(e.code()).to_str().unwrap(), e.message());
        }
        assert_eq!(text(-1).to_str().unwrap(), "unknown status code");
    }
}
