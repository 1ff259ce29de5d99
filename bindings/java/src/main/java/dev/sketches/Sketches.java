package dev.sketches;

import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;

/**
 * Library-wide facts and helpers: versions, the canonical hash every family uses, and inspection
 * of an unknown image (to dispatch on its family).
 *
 * <p>Families: {@link BloomFilter}, {@link SplitBlockBloomFilter}, {@link CountingBloomFilter},
 * {@link CuckooFilter}, {@link BinaryFuseFilter}, {@link HyperLogLog}, {@link UltraLogLog}, {@link
 * ExaLogLog}, {@link CountMinSketch}, {@link TopK}, {@link MinHash}. Every sketch lives in one 64-byte-aligned direct {@link
 * java.nio.ByteBuffer}, its image: the same bytes C, C++ and Go programs read and write. Keys hash
 * by one rule in every language: byte strings (Strings as UTF-8) with XXH3-64 and the image's
 * seed, longs as their 8 little-endian bytes.
 *
 * <p>Streams: {@link #readSketch(InputStream)} reads one image of any family from a stream (each
 * family's {@code writeTo(OutputStream)} writes one); it returns null at the clean end of the
 * stream, so a loop reads every image of a file of images written one after another (after an
 * exception the stream stands inside the refused bytes: read no further images):
 *
 * <pre>{@code
 * try (InputStream in = new BufferedInputStream(Files.newInputStream(path))) {
 *     for (Object s; (s = Sketches.readSketch(in)) != null; ) {
 *         if (s instanceof HyperLogLog hll) { ... }
 *     }
 * }
 * }</pre>
 *
 * <p>Thread safety: every method here is thread-safe.
 */
public final class Sketches {
    private Sketches() {}

    /** Version of these classes (the Cargo version of the library they are built with). */
    public static final String VERSION = "0.1.0";
    /** Major version. */
    public static final int VERSION_MAJOR = 0;
    /** Minor version. */
    public static final int VERSION_MINOR = 1;
    /** Patch version. */
    public static final int VERSION_PATCH = 0;

    /**
     * The newest image format major version this library reads ({@code SKETCH_FORMAT_MAJOR}); an
     * image of a newer major is refused with {@link Status#UNSUPPORTED_VERSION}.
     */
    public static final int FORMAT_MAJOR = 1;

    /** Family id of {@link BloomFilter}. */
    public static final int FAMILY_BLOOM = 1;
    /** Family id of {@link SplitBlockBloomFilter}. */
    public static final int FAMILY_SPLIT_BLOCK_BLOOM = 2;
    /** Family id of {@link CountingBloomFilter}. */
    public static final int FAMILY_COUNTING_BLOOM = 3;
    /** Family id of {@link CuckooFilter}. */
    public static final int FAMILY_CUCKOO = 4;
    /** Family id of {@link HyperLogLog}. */
    public static final int FAMILY_HYPERLOGLOG = 5;
    /** Family id of {@link UltraLogLog}. */
    public static final int FAMILY_ULTRALOGLOG = 6;
    /** Family id of {@link CountMinSketch}. */
    public static final int FAMILY_COUNT_MIN = 7;
    /** Family id of {@link TopK}. */
    public static final int FAMILY_TOPK = 8;
    /** Family id of {@link MinHash}. */
    public static final int FAMILY_MINHASH = 9;
    /** Family id of {@link BinaryFuseFilter}. */
    public static final int FAMILY_BINARY_FUSE = 10;
    /** Family id of {@link ExaLogLog}. */
    public static final int FAMILY_EXALOGLOG = 11;

    /** Capacity flag of the filters: more items were inserted than planned. */
    public static final int CAPACITY_OVER_PLANNED_ITEMS = 1;
    /** Capacity flag of the filters: the estimated false-positive rate exceeds twice the planned rate. */
    public static final int CAPACITY_FPR_ABOVE_TWICE_PLANNED = 2;

    /**
     * The version of the loaded native library as {@code major * 10000 + minor * 100 + patch}.
     *
     * @return the native version number
     */
    public static int nativeVersion() {
        Native.load();
        return Native.version();
    }

    /**
     * The canonical hash of a byte key: XXH3-64 with {@code seed} ({@code sketch_hash}).
     *
     * @param key the key bytes
     * @param seed the seed (an image's seed to match its hashing)
     * @return the 64-bit hash
     * @throws NullPointerException when {@code key} is null
     */
    public static long hash(byte[] key, long seed) {
        Objects.requireNonNull(key, "key");
        Native.load();
        return Native.hash(key, 0, key.length, seed);
    }

    /**
     * The canonical hash of a String key: XXH3-64 of its UTF-8 bytes with {@code seed}.
     *
     * @param key the key
     * @param seed the seed
     * @return the 64-bit hash
     * @throws NullPointerException when {@code key} is null
     */
    public static long hash(String key, long seed) {
        Objects.requireNonNull(key, "key");
        return hash(Native.utf8(Objects.requireNonNull(key, "key")), seed);
    }

    /**
     * The canonical hash of a long key: XXH3-64 of its 8 little-endian bytes with {@code seed}
     * ({@code sketch_hash_u64}).
     *
     * @param key the key
     * @param seed the seed
     * @return the 64-bit hash
     */
    public static long hash(long key, long seed) {
        Native.load();
        return Native.hashU64(key, seed);
    }

    /**
     * Refused: a {@code char} is not a key. Without this overload Java widens it to the {@code long}
     * one, so {@code 'x'} would hash as the integer 120, not as the key "x" that the other bindings
     * (and {@link #hash(String, long)}) hash; the C++ binding refuses a char key at compile time.
     * Pass {@code String.valueOf(c)} for the character, or {@code (long) c} for its code.
     *
     * @param key the character
     * @param seed the seed
     * @return never returns
     * @throws IllegalArgumentException always
     * @deprecated a char is not a key: use {@code String.valueOf(c)} or {@code (long) c}
     */
    @Deprecated
    public static long hash(char key, long seed) {
        throw Native.charKey();
    }

    /**
     * What the common header of an image says ({@code sketch_image_inspect}): magic, version,
     * ids and lengths are checked, not the family header or the checksum.
     *
     * @param image the image bytes, exported or live: all of them (a prefix shorter than the image
     *     length its header records throws {@link Status#BUFFER_TOO_SMALL}; bytes after the image
     *     are ignored)
     * @return the header fields
     * @throws NullPointerException when {@code image} is null
     * @throws SketchException when the bytes are no image ({@link Status#BAD_MAGIC}, {@link
     *     Status#BUFFER_TOO_SMALL}, {@link Status#UNSUPPORTED_VERSION}, ...)
     */
    public static ImageInfo inspect(byte[] image) {
        Objects.requireNonNull(image, "image");
        Native.load();
        long[] v = new long[8];
        Native.inspect(image, v);
        return new ImageInfo((int) v[0], (int) v[1], (int) v[2], (int) v[3], (int) v[4], (int) v[5], v[6], v[7]);
    }

    /**
     * What the common header at the start of {@code bytes} says, read from its first 48 bytes alone
     * ({@code sketch_image_inspect_header}): what a reader of a file or socket holds before the rest
     * of the image has arrived. Checks what {@link #inspect(byte[])} checks of the header (magic,
     * version, ids, reserved field, lengths) but not that the image fits {@code bytes}: {@link
     * ImageInfo#imageBytes()} is the length the header records, unsigned (compare it with {@link
     * Long#compareUnsigned}), which a damaged or hostile header may make huge: bound it before
     * reading that much.
     *
     * @param bytes at least the 48 header bytes (more are ignored)
     * @return the header fields
     * @throws NullPointerException when {@code bytes} is null
     * @throws SketchException {@link Status#BUFFER_TOO_SMALL} for fewer than 48 bytes; {@link
     *     Status#BAD_MAGIC}, {@link Status#UNSUPPORTED_VERSION}, {@link Status#UNSUPPORTED_HASH},
     *     {@link Status#CORRUPT_HEADER} for a header that is no image's
     */
    public static ImageInfo inspectHeader(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length < ImageStream.COMMON_HEADER_BYTES) {
            throw new SketchException(Status.BUFFER_TOO_SMALL, "Sketches.inspectHeader",
                    bytes.length + " bytes, fewer than the " + ImageStream.COMMON_HEADER_BYTES + "-byte header");
        }
        Native.load();
        long[] v = new long[8];
        int status = Native.inspectHeader(bytes, v);
        if (status != Status.OK) {
            throw new SketchException(status, "Sketches.inspectHeader");
        }
        return new ImageInfo((int) v[0], (int) v[1], (int) v[2], (int) v[3], (int) v[4], (int) v[5], v[6], v[7]);
    }

    /**
     * Reads exactly one exported image of any family from {@code in} (the 48-byte common header,
     * then exactly the rest of the length it announces, never a byte more) and checks it with the
     * {@code fromByteArray} of the family its header names. The announced length is not trusted
     * for allocation: the buffer grows as bytes arrive (from 64 KiB, doubling), so a forged header
     * costs at most about twice the bytes received.
     *
     * @param in the stream, read by as many calls as it needs (not closed)
     * @return a new sketch of the image's family ({@link BloomFilter}, {@link
     *     SplitBlockBloomFilter}, {@link CountingBloomFilter}, {@link CuckooFilter}, {@link
     *     BinaryFuseFilter}, {@link HyperLogLog}, {@link UltraLogLog}, {@link ExaLogLog}, {@link
     *     CountMinSketch}, {@link TopK} or {@link MinHash}: use {@code instanceof} or a type
     *     switch), or null when the stream was at its end before the image's first byte (a clean
     *     end)
     * @throws NullPointerException when {@code in} is null
     * @throws java.io.EOFException when the stream ends inside the image (the message says how many
     *     bytes of how many arrived)
     * @throws SketchException {@link Status#BAD_MAGIC}, {@link Status#UNSUPPORTED_VERSION} or
     *     {@link Status#CORRUPT_HEADER} (also for an unknown family id) for a header that is no
     *     image's (the body is then not read), and what the family's {@code fromByteArray} throws for
     *     a damaged image ({@link Status#CHECKSUM_MISMATCH}, ...)
     * @throws IOException what {@code in} throws, unchanged
     */
    public static Object readSketch(InputStream in) throws IOException {
        byte[] image = ImageStream.read(in, 0, "Sketches.readSketch");
        if (image == null) {
            return null;
        }
        // ImageStream.read accepted the family id, so it is one of these.
        int family = (image[6] & 0xff) | (image[7] & 0xff) << 8;
        return switch (family) {
            case FAMILY_BLOOM -> BloomFilter.fromByteArray(image);
            case FAMILY_SPLIT_BLOCK_BLOOM -> SplitBlockBloomFilter.fromByteArray(image);
            case FAMILY_COUNTING_BLOOM -> CountingBloomFilter.fromByteArray(image);
            case FAMILY_CUCKOO -> CuckooFilter.fromByteArray(image);
            case FAMILY_HYPERLOGLOG -> HyperLogLog.fromByteArray(image);
            case FAMILY_ULTRALOGLOG -> UltraLogLog.fromByteArray(image);
            case FAMILY_COUNT_MIN -> CountMinSketch.fromByteArray(image);
            case FAMILY_TOPK -> TopK.fromByteArray(image);
            case FAMILY_MINHASH -> MinHash.fromByteArray(image);
            case FAMILY_BINARY_FUSE -> BinaryFuseFilter.fromByteArray(image);
            case FAMILY_EXALOGLOG -> ExaLogLog.fromByteArray(image);
            default -> throw new SketchException(Status.CORRUPT_HEADER, "Sketches.readSketch",
                    "the header names an unknown family " + family);
        };
    }

    /**
     * The common header of an image.
     *
     * @param family family id ({@code FAMILY_*})
     * @param hash hash id (1: XXH3-64 with the seed; 2: XXH64, Parquet split-block filters)
     * @param formatMajor format major version
     * @param formatMinor format minor version
     * @param flags family-specific flags
     * @param headerBytes header length in bytes
     * @param seed hash seed
     * @param imageBytes image length in bytes recorded in the header
     */
    public record ImageInfo(int family, int hash, int formatMajor, int formatMinor, int flags, int headerBytes,
            long seed, long imageBytes) {}
}
