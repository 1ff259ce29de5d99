package dev.sketches;

/**
 * The status numbers of the C ABI ({@code SKETCH_*} in {@code sketches.h}), stable and never
 * reused; {@link SketchException#status()} returns one of them. A test checks them against the
 * header.
 */
public final class Status {
    private Status() {}

    /** Success. */
    public static final int OK = 0;
    /** A required pointer was NULL. */
    public static final int NULL_POINTER = 1;
    /** The buffer is shorter than the image (or the output) needs. */
    public static final int BUFFER_TOO_SMALL = 2;
    /** The buffer does not start on an 8-byte boundary. */
    public static final int MISALIGNED = 3;
    /** A sketch parameter is out of range, or packed key offsets are invalid. */
    public static final int INVALID_PARAMETER = 4;
    /** A call argument is inconsistent (lengths, counts, unknown mode). */
    public static final int INVALID_ARGUMENT = 5;
    /** The bytes are not a sketch image (bad magic). */
    public static final int BAD_MAGIC = 6;
    /** The image was written by a newer, incompatible format version. */
    public static final int UNSUPPORTED_VERSION = 7;
    /** The image holds a different sketch family. */
    public static final int WRONG_FAMILY = 8;
    /** The image header is inconsistent. */
    public static final int CORRUPT_HEADER = 9;
    /** The checksum does not match: the bytes were damaged. */
    public static final int CHECKSUM_MISMATCH = 10;
    /** The byte count differs from the image length recorded in the header. */
    public static final int LENGTH_MISMATCH = 11;
    /** The sketches differ in parameters, seed or hash and cannot be combined. */
    public static final int INCOMPATIBLE = 12;
    /** The image names a hash function this family cannot use. */
    public static final int UNSUPPORTED_HASH = 13;
    /**
     * Memory the call writes overlaps its other arguments (for example keys read out of the image
     * they are added to); nothing changed. Merges never report it: a sketch merged with itself, or
     * with a sketch wrapping the same memory, merges a copy.
     */
    public static final int OVERLAP = 14;
    /** Reserved (no longer produced). */
    public static final int INTERNAL_ERROR = 15;
    /** A removal found the item absent; nothing changed. */
    public static final int NOT_PRESENT = 16;
    /** The filter has no room for the item; nothing changed. */
    public static final int FULL = 17;
    /** The image body holds values its format forbids. */
    public static final int CORRUPT_BODY = 18;
    /** The image is an exported compact image: import it with fromByteArray first. */
    public static final int COMPACT_IMAGE = 19;
    /** The key is longer than the sketch's maximum key length; nothing changed. */
    public static final int KEY_TOO_LONG = 20;
    /** A static filter could not be built within its bound on attempts; nothing was written. */
    public static final int BUILD_FAILED = 21;
    /** A HyperLogLog in its exact small mode was given to a concurrent add: densify it first. */
    public static final int SMALL_MODE = 22;

    /**
     * The English text of a status ({@code sketch_status_str}); unknown numbers give "unknown
     * status code".
     *
     * @param status any status number
     * @return its text, never null
     */
    public static String text(int status) {
        Native.load();
        return Native.statusText(status);
    }
}
