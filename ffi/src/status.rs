//! Status codes: the C twin of `sketches_core::Error`, with stable numbers.

use core::ffi::c_char;
use sketches_core::Error;

/// Result of every fallible call. Numbers are stable and never reused;
/// `SKETCH_OK` is 0. Outputs are written only when a call returns `SKETCH_OK`.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum sketch_status {
    /// Success.
    SKETCH_OK = 0,
    /// A required pointer was NULL (NULL is accepted only with length 0).
    SKETCH_NULL_POINTER = 1,
    /// The buffer is shorter than the image (or the output) needs.
    SKETCH_BUFFER_TOO_SMALL = 2,
    /// The buffer does not start on an 8-byte boundary.
    SKETCH_MISALIGNED = 3,
    /// A sketch parameter is out of range (p <= 0, p >= 1, n = 0, NaN, ...).
    SKETCH_INVALID_PARAMETER = 4,
    /// A call argument is inconsistent (lengths, counts, unknown mode).
    SKETCH_INVALID_ARGUMENT = 5,
    /// The bytes are not a sketch image (bad magic).
    SKETCH_BAD_MAGIC = 6,
    /// The image was written by a newer, incompatible format version.
    SKETCH_UNSUPPORTED_VERSION = 7,
    /// The image holds a different sketch family.
    SKETCH_WRONG_FAMILY = 8,
    /// The image header is inconsistent.
    SKETCH_CORRUPT_HEADER = 9,
    /// The checksum does not match: the bytes were damaged.
    SKETCH_CHECKSUM_MISMATCH = 10,
    /// The byte count differs from the image length recorded in the header.
    SKETCH_LENGTH_MISMATCH = 11,
    /// The sketches differ in parameters, seed or hash and cannot be combined.
    SKETCH_INCOMPATIBLE = 12,
    /// The image names a hash function this family cannot use.
    SKETCH_UNSUPPORTED_HASH = 13,
    /// Source and destination buffers overlap.
    SKETCH_OVERLAP = 14,
    /// An internal error was caught at the boundary (a bug: please report it).
    SKETCH_INTERNAL_ERROR = 15,
    /// A removal found the item absent; nothing changed.
    SKETCH_NOT_PRESENT = 16,
    /// The filter has no room for the item; nothing changed.
    SKETCH_FULL = 17,
    /// The image body holds values its format forbids (register above its
    /// maximum, unsorted or repeated small-mode entries, ...).
    SKETCH_CORRUPT_BODY = 18,
    /// The image is an exported compact image: import it into a live buffer first.
    SKETCH_COMPACT_IMAGE = 19,
    /// The key is longer than the sketch's maximum key length; nothing changed.
    SKETCH_KEY_TOO_LONG = 20,
}

impl From<Error> for sketch_status {
    fn from(e: Error) -> Self {
        use sketch_status::*;
        match e {
            Error::BufferTooSmall => SKETCH_BUFFER_TOO_SMALL,
            Error::Misaligned => SKETCH_MISALIGNED,
            Error::InvalidParameter => SKETCH_INVALID_PARAMETER,
            Error::InvalidArgument => SKETCH_INVALID_ARGUMENT,
            Error::BadMagic => SKETCH_BAD_MAGIC,
            Error::UnsupportedVersion => SKETCH_UNSUPPORTED_VERSION,
            Error::WrongFamily => SKETCH_WRONG_FAMILY,
            Error::CorruptHeader => SKETCH_CORRUPT_HEADER,
            Error::ChecksumMismatch => SKETCH_CHECKSUM_MISMATCH,
            Error::LengthMismatch => SKETCH_LENGTH_MISMATCH,
            Error::Incompatible => SKETCH_INCOMPATIBLE,
            Error::UnsupportedHash => SKETCH_UNSUPPORTED_HASH,
            Error::NotPresent => SKETCH_NOT_PRESENT,
            Error::Full => SKETCH_FULL,
            Error::CorruptBody => SKETCH_CORRUPT_BODY,
            Error::CompactImage => SKETCH_COMPACT_IMAGE,
            Error::KeyTooLong => SKETCH_KEY_TOO_LONG,
            // Error is non_exhaustive: a future core error without a C twin
            // yet is reported as a generic argument problem.
            _ => SKETCH_INVALID_ARGUMENT,
        }
    }
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
        15 => c"internal error caught at the C boundary",
        16 => c"item not present (nothing removed)",
        17 => c"filter full (nothing changed)",
        18 => c"image body holds values its format forbids",
        19 => c"compact exported image: import it before use",
        20 => c"key longer than the sketch's maximum key length (nothing changed)",
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
        ];
        for e in all {
            assert_eq!(sketch_status::from(e) as i32, e.code());
            assert_eq!(text(e.code()).to_str().unwrap(), e.message());
        }
        assert_eq!(text(-1).to_str().unwrap(), "unknown status code");
    }
}
