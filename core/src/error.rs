//! The one error type of the core.
//!
//! Every fallible core function returns [`Result<T>`]. Each variant has a
//! stable numeric twin in the C ABI (`sketch_status`), see [`Error::code`];
//! numbers are never reused.

use core::fmt;

/// Why a core operation failed. Operations that fail leave the sketch unchanged.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Error {
    /// The buffer is shorter than the image (or than the header) needs.
    BufferTooSmall,
    /// The buffer does not start on an 8-byte boundary.
    Misaligned,
    /// A sketch parameter is out of range (for example p = 0, p >= 1, n = 0, NaN, k = 0).
    InvalidParameter,
    /// A call argument is inconsistent (for example batch arrays of different lengths).
    InvalidArgument,
    /// The bytes do not start with the `SKCH` magic.
    BadMagic,
    /// The image was written by a newer, incompatible major format version.
    UnsupportedVersion,
    /// The image holds another sketch family than the one asked for.
    WrongFamily,
    /// The header fields contradict each other or the rules of the family.
    CorruptHeader,
    /// The checksum over the image does not match: the bytes were damaged.
    ChecksumMismatch,
    /// The byte count given differs from the length recorded in the image.
    LengthMismatch,
    /// Two sketches cannot be combined: different family parameters, seed or hash.
    Incompatible,
    /// The image names a hash function this family cannot use.
    UnsupportedHash,
    /// A removal found the item absent (some counter is 0); nothing changed.
    NotPresent,
    /// The filter has no room for the item; nothing changed.
    Full,
    /// The image body holds values its format forbids (a register above its
    /// maximum, small-mode entries unsorted or repeated, a histogram that
    /// does not match the registers, non-zero padding).
    CorruptBody,
    /// The image is an exported compact image: import it into a live buffer
    /// before using it.
    CompactImage,
    /// The key is longer than the sketch's maximum key length (keys are
    /// never truncated); nothing changed.
    KeyTooLong,
    /// A static filter could not be built within its bounded number of
    /// attempts (each with a new seed, duplicates removed); the output
    /// buffer was not written.
    BuildFailed,
    /// The HyperLogLog is in its exact small mode, which concurrent adds do
    /// not support: densify it first (exclusive access); nothing changed.
    SmallMode,
}

impl Error {
    /// The stable number of this error in the C ABI (`sketch_status`).
    pub const fn code(self) -> i32 {
        match self {
            Error::BufferTooSmall => 2,
            Error::Misaligned => 3,
            Error::InvalidParameter => 4,
            Error::InvalidArgument => 5,
            Error::BadMagic => 6,
            Error::UnsupportedVersion => 7,
            Error::WrongFamily => 8,
            Error::CorruptHeader => 9,
            Error::ChecksumMismatch => 10,
            Error::LengthMismatch => 11,
            Error::Incompatible => 12,
            Error::UnsupportedHash => 13,
            Error::NotPresent => 16,
            Error::Full => 17,
            Error::CorruptBody => 18,
            Error::CompactImage => 19,
            Error::KeyTooLong => 20,
            Error::BuildFailed => 21,
            Error::SmallMode => 22,
        }
    }

    /// A short static English description, the same text the C ABI returns.
    pub const fn message(self) -> &'static str {
        match self {
            Error::BufferTooSmall => "buffer too small for the sketch image",
            Error::Misaligned => "buffer is not 8-byte aligned",
            Error::InvalidParameter => "sketch parameter out of range",
            Error::InvalidArgument => "invalid call argument",
            Error::BadMagic => "not a sketch image (bad magic)",
            Error::UnsupportedVersion => "image format version is newer than this library",
            Error::WrongFamily => "image holds a different sketch family",
            Error::CorruptHeader => "image header is inconsistent",
            Error::ChecksumMismatch => "image checksum mismatch (corrupted bytes)",
            Error::LengthMismatch => "byte count differs from the image length",
            Error::Incompatible => "sketches have different parameters, seed or hash",
            Error::UnsupportedHash => "hash function not supported by this family",
            Error::NotPresent => "item not present (nothing removed)",
            Error::Full => "filter full (nothing changed)",
            Error::CorruptBody => "image body holds values its format forbids",
            Error::CompactImage => "compact exported image: import it before use",
            Error::KeyTooLong => "key longer than the sketch's maximum key length (nothing changed)",
            Error::BuildFailed => "filter construction failed within its attempt bound (nothing written)",
            Error::SmallMode => "sketch is in its exact small mode: densify it before concurrent adds",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

impl core::error::Error for Error {}

/// Result alias used throughout the core.
pub type Result<T> = core::result::Result<T, Error>;
