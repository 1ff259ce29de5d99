package dev.sketches;

import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * A binary fuse filter ({@code sketch_fuse_*}, Graf and Lemire 2022): a static set membership
 * filter built once from all its keys, then read-only. Fingerprints of 8 bits (false-positive rate
 * 2^-8, about 0.39%) or 16 bits (2^-16, about 0.0015%), stored in about 1.13 times the
 * fingerprint width per key at a million keys (a little more for small sets). No false negatives
 * for the keys it was built from; keys cannot be added or removed afterwards (build a new filter).
 *
 * <p>The width is a parameter of the factories ({@code fingerprintBits}, 8 or 16) rather than a
 * factory per width: it is a property of the image, so {@link #fromByteArray(byte[])} and {@link
 * #wrap(ByteBuffer)} return one class for both, and the methods are the same for both.
 *
 * <p>A build ({@link #build(String[], int, long)} and its overloads) takes every key in one native
 * call: duplicates are stored once; the working memory it needs (about 32 bytes per key, sized by
 * {@code sketch_fuse_scratch_size}) is a direct buffer dropped when the build returns. A build
 * fails with {@link Status#BUILD_FAILED} only when no fuse seed within 100 attempts works, which
 * practically does not happen with the XXH3 hashes of distinct keys.
 *
 * <p>The filter lives in one 64-byte-aligned direct {@link ByteBuffer} (its image) that this
 * object owns: there is no native memory to free, the garbage collector reclaims it. {@link
 * #toByteArray()} exports it with a checksum; {@link #fromByteArray(byte[])} reads untrusted
 * bytes back; {@link #wrap(ByteBuffer)} and {@link #wrapVerified(ByteBuffer)} use a caller's
 * buffer (for example a memory-mapped file) without copying.
 *
 * <p>Keys: {@code byte[]} as they are, {@code String} as its UTF-8 bytes, {@code long} as its 8
 * little-endian bytes, {@code ByteBuffer} as its remaining bytes (position unchanged), each hashed
 * with XXH3-64 and the filter's seed: a filter built here answers C, C++ and Go queries for the
 * same keys. Query batches ({@code containsAll}, {@code containsPacked}) cross into native code
 * once per 16,384 keys.
 *
 * <p>{@link java.io.Serializable}: the stream holds the exported image, read back through the
 * checked import (see the {@linkplain dev.sketches package documentation}).
 *
 * <p>Streams: {@link #writeTo(OutputStream)} writes the export to a file or socket; {@link
 * #readFrom(InputStream)} reads exactly one image back (the header, then exactly the bytes it
 * announces, no byte more), so images written one after another read back in order; it returns
 * null at the end of the stream. {@link Sketches#readSketch(InputStream)} reads an image of any
 * family. After an exception the stream stands inside the refused bytes: read no further images.
 *
 * <p>Thread safety: a built filter is never changed, so every method may run concurrently from
 * any number of threads. A filter made by {@link #wrap(ByteBuffer)} reads the caller's buffer: it
 * is as safe as long as nobody writes to that buffer meanwhile.
 */
public final class BinaryFuseFilter implements Serializable {
    static {
        Native.load();
    }

    // transient: Java serialization writes the proxy; Kryo's field copier must skip native memory.
    private final transient Native.Image img;

    /**
     * A sketch without an image, made only by a framework that instantiates a class through its
     * no-argument constructor and copies its fields (Kryo without the sketch classes registered
     * with its JavaSerializer): every use throws IllegalStateException saying so ({@link
     * Native.Image#detached}).
     */
    private BinaryFuseFilter() {
        this.img = Native.Image.detached("BinaryFuseFilter");
    }

    private BinaryFuseFilter(Native.Image img) {
        this.img = img;
    }

    /** One native build call: into (buf, len) with the planned parameters, using (scratch, scratchLen). */
    @FunctionalInterface
    private interface Build {
        void run(long buf, long len, long planned, int fingerprintBits, long scratch, long scratchLen);
    }

    /**
     * Builds a filter of byte keys.
     *
     * @param keys the keys (duplicates allowed, stored once)
     * @param fingerprintBits 8 (rate 2^-8) or 16 (rate 2^-16)
     * @param seed hash seed
     * @return the filter
     * @throws NullPointerException when {@code keys} or one of its keys is null
     * @throws IllegalArgumentException when the width is not 8 or 16, or the filter or its build
     *     memory would not fit in one ByteBuffer (2 GiB; more than about 60 million keys), or the
     *     keys total more than 2 GiB
     * @throws SketchException {@link Status#BUILD_FAILED} when no fuse seed worked (nothing is kept)
     */
    public static BinaryFuseFilter build(byte[][] keys, int fingerprintBits, long seed) {
        Objects.requireNonNull(keys, "keys");
        Native.Packed p = Native.pack(keys);
        return buildPacked0(p.data(), p.offsets(), p.count(), fingerprintBits, seed);
    }

    /**
     * Builds a filter of String keys (their UTF-8 bytes).
     *
     * @param keys the keys (duplicates allowed, stored once)
     * @param fingerprintBits 8 (rate 2^-8) or 16 (rate 2^-16)
     * @param seed hash seed
     * @return the filter
     * @throws NullPointerException when {@code keys} or one of its keys is null
     * @throws IllegalArgumentException as {@link #build(byte[][], int, long)}
     * @throws SketchException {@link Status#BUILD_FAILED} when no fuse seed worked
     */
    public static BinaryFuseFilter build(String[] keys, int fingerprintBits, long seed) {
        Objects.requireNonNull(keys, "keys");
        Native.Packed p = Native.pack(keys);
        return buildPacked0(p.data(), p.offsets(), p.count(), fingerprintBits, seed);
    }

    /**
     * Builds a filter of long keys (each its 8 little-endian bytes).
     *
     * @param keys the keys (duplicates allowed, stored once)
     * @param fingerprintBits 8 (rate 2^-8) or 16 (rate 2^-16)
     * @param seed hash seed
     * @return the filter
     * @throws NullPointerException when {@code keys} is null
     * @throws IllegalArgumentException as {@link #build(byte[][], int, long)}
     * @throws SketchException {@link Status#BUILD_FAILED} when no fuse seed worked
     */
    public static BinaryFuseFilter build(long[] keys, int fingerprintBits, long seed) {
        Objects.requireNonNull(keys, "keys");
        return build0(keys.length, fingerprintBits, seed,
                (buf, len, planned, bits, scratch, scratchLen) ->
                        nBuildU64s(buf, len, planned, bits, seed, keys, scratch, scratchLen));
    }

    /**
     * Builds a filter of keys packed in the Arrow Binary layout: key i is {@code data[offsets[i] ..
     * offsets[i + 1])}.
     *
     * @param data the key bytes
     * @param offsets count + 1 non-decreasing offsets into {@code data}
     * @param fingerprintBits 8 (rate 2^-8) or 16 (rate 2^-16)
     * @param seed hash seed
     * @return the filter
     * @throws NullPointerException when {@code data} or {@code offsets} is null
     * @throws IllegalArgumentException when the offsets are not count + 1 non-decreasing offsets
     *     within {@code data}, or as {@link #build(byte[][], int, long)}
     * @throws SketchException {@link Status#BUILD_FAILED} when no fuse seed worked
     */
    public static BinaryFuseFilter buildPacked(byte[] data, int[] offsets, int fingerprintBits, long seed) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        return buildPacked0(data, offsets, Native.checkPacked(data, offsets), fingerprintBits, seed);
    }

    private static BinaryFuseFilter buildPacked0(
            byte[] data, int[] offsets, int count, int fingerprintBits, long seed) {
        return build0(count, fingerprintBits, seed,
                (buf, len, planned, bits, scratch, scratchLen) ->
                        nBuildPacked(buf, len, planned, bits, seed, data, offsets, count, scratch, scratchLen));
    }

    private static BinaryFuseFilter build0(int count, int fingerprintBits, long seed, Build build) {
        if (fingerprintBits != 8 && fingerprintBits != 16) {
            throw new IllegalArgumentException("fingerprintBits must be 8 or 16: " + fingerprintBits);
        }
        long[] plan = new long[4];
        try {
            nPlan(count, fingerprintBits, plan);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
        Native.Image img = Native.fresh(plan[2]);
        Native.Image scratch;
        try {
            scratch = Native.fresh(plan[3]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("building a filter of " + count + " keys needs " + plan[3]
                    + " bytes of working memory, more than one ByteBuffer holds: split the set", e);
        }
        try {
            build.run(img.addr(), img.len, plan[0], (int) plan[1], scratch.addr(), scratch.len);
        } finally {
            Reference.reachabilityFence(img);
            Reference.reachabilityFence(scratch);
        }
        return new BinaryFuseFilter(img);
    }

    /**
     * The image size in bytes of a filter of {@code keys} keys (a multiple of 64).
     *
     * @param keys the key count the filter is built from (duplicates included)
     * @param fingerprintBits 8 or 16
     * @return the size in bytes
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static long imageBytes(long keys, int fingerprintBits) {
        if (keys < 0 || (fingerprintBits != 8 && fingerprintBits != 16)) {
            throw new IllegalArgumentException(
                    "keys must be >= 0 and fingerprintBits 8 or 16: " + keys + ", " + fingerprintBits);
        }
        long[] plan = new long[4];
        try {
            nPlan(keys, fingerprintBits, plan);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
        return plan[2];
    }

    /**
     * Reads an exported image (untrusted bytes: headers, exact length, array shape, checksum and
     * padding are checked) into a new filter.
     *
     * @param bytes the bytes {@link #toByteArray()} (or any binding's export) produced
     * @return the filter
     * @throws NullPointerException when {@code bytes} is null
     * @throws SketchException when the bytes are damaged or not a binary fuse filter ({@link
     *     Status#CHECKSUM_MISMATCH}, {@link Status#LENGTH_MISMATCH}, {@link Status#WRONG_FAMILY},
     *     {@link Status#CORRUPT_HEADER}, ...); nothing is kept
     */
    public static BinaryFuseFilter fromByteArray(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        return new BinaryFuseFilter(Native.imported(bytes, BinaryFuseFilter::nImportSize, BinaryFuseFilter::nImport));
    }

    /**
     * Uses a caller's buffer as the filter's image without copying, after checking its headers
     * against its length (O(1); the body is not checked: any body bytes are memory-safe to query,
     * damaged ones only give wrong answers). Use {@link #wrapVerified(ByteBuffer)} for bytes from
     * elsewhere. The image is the buffer's bytes from its position to its limit.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary (a mapped file qualifies)
     * @return a filter over the buffer
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the headers are not those of a binary fuse filter of that length
     */
    public static BinaryFuseFilter wrap(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new BinaryFuseFilter(Native.wrapped(buffer, BinaryFuseFilter::nCheck));
    }

    /**
     * As {@link #wrap(ByteBuffer)}, but first verifies the bytes as {@link #fromByteArray} does
     * (headers, exact length, checksum; O(n)): for an exported image in a mapped file.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary holding exactly one exported image
     * @return a filter over the buffer
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the bytes are damaged or not a binary fuse filter
     */
    public static BinaryFuseFilter wrapVerified(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new BinaryFuseFilter(Native.wrapped(buffer, BinaryFuseFilter::nVerifyAt));
    }

    // ---- single keys ----

    /**
     * Tests a key.
     *
     * @param key the key bytes
     * @return false when the key is certainly not in the set, true when it is (always) or for a
     *     false positive (rate 2^-fingerprintBits)
     * @throws NullPointerException when {@code key} is null
     */
    public boolean contains(byte[] key) {
        Objects.requireNonNull(key, "key");
        try {
            return nContains(img.addr(), img.len, key, 0, key.length);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests a String key (its UTF-8 bytes).
     *
     * @param key the key
     * @return false when the key is certainly not in the set
     * @throws NullPointerException when {@code key} is null
     */
    public boolean contains(String key) {
        Objects.requireNonNull(key, "key");
        int n = key.length();
        if (n > Native.STR_MAX) {
            return contains(Native.utf8(key));
        }
        try {
            return nContainsStr(img.addr(), img.len, key, n);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests a long key (its 8 little-endian bytes).
     *
     * @param key the key
     * @return false when the key is certainly not in the set
     */
    public boolean contains(long key) {
        try {
            return nContainsU64(img.addr(), img.len, key);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Refused: a {@code char} is not a key. Without this overload Java widens it to the {@code long}
     * one, so {@code 'x'} would be the integer 120, not the key "x" that the other bindings (and
     * this class's String overload) use; the C++ binding refuses a char key at compile time.
     * Pass {@code String.valueOf(c)} for the character, or {@code (long) c} for its code.
     *
     * @param key the character
     * @return never returns
     * @throws IllegalArgumentException always (nothing changes)
     * @deprecated a char is not a key: use {@code String.valueOf(c)} or {@code (long) c}
     */
    @Deprecated
    public boolean contains(char key) {
        throw Native.charKey();
    }

    /**
     * Tests the remaining bytes of a buffer as one key (the buffer's position does not move).
     *
     * @param key the key bytes
     * @return false when the key is certainly not in the set
     * @throws NullPointerException when {@code key} is null
     */
    public boolean contains(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        int pos = key.position();
        int n = key.remaining();
        try {
            if (Native.direct(key, pos, n)) {
                return nContainsBuf(img.addr(), img.len, key, pos, n);
            }
            if (key.hasArray()) {
                return nContains(img.addr(), img.len, key.array(), key.arrayOffset() + pos, n);
            }
            byte[] copy = new byte[n];
            key.duplicate().get(copy);
            return nContains(img.addr(), img.len, copy, 0, n);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    // ---- batches ----

    /**
     * Tests every key.
     *
     * @param keys the keys
     * @return per key: false when certainly not in the set
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public boolean[] containsAll(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        boolean[] out = new boolean[keys.length];
        try {
            Native.forChunks(keys, (d, o, from, n) -> nContainsPacked(img.addr(), img.len, d, o, 0, n, out, from));
        } finally {
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * Tests every String key (UTF-8).
     *
     * @param keys the keys
     * @return per key: false when certainly not in the set
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public boolean[] containsAll(String[] keys) {
        Objects.requireNonNull(keys, "keys");
        boolean[] out = new boolean[keys.length];
        try {
            Native.forChunks(keys, (d, o, from, n) -> nContainsPacked(img.addr(), img.len, d, o, 0, n, out, from));
        } finally {
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * Tests every long key.
     *
     * @param keys the keys
     * @return per key: false when certainly not in the set
     * @throws NullPointerException when {@code keys} is null
     */
    public boolean[] containsAll(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        boolean[] out = new boolean[keys.length];
        containsAll(keys, out);
        return out;
    }

    /**
     * Tests every long key into a caller's array (no allocation).
     *
     * @param keys the keys
     * @param results at least {@code keys.length} slots; slot i receives key i's answer
     * @throws NullPointerException when {@code keys} or {@code results} is null
     */
    public void containsAll(long[] keys, boolean[] results) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(results, "results");
        Native.checkOut(results, keys.length);
        try {
            for (int from = 0; from < keys.length; from += Native.CHUNK) {
                nContainsU64s(img.addr(), img.len, keys, from, Math.min(Native.CHUNK, keys.length - from), results, from);
            }
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests keys packed in the Arrow Binary layout (see {@link #buildPacked}) into a caller's array.
     *
     * @param data the key bytes
     * @param offsets count + 1 non-decreasing offsets into {@code data}
     * @param results at least count slots; slot i receives key i's answer
     * @throws NullPointerException when {@code data}, {@code offsets} or {@code results} is null
     * @throws IllegalArgumentException when the offsets are invalid
     */
    public void containsPacked(byte[] data, int[] offsets, boolean[] results) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        Objects.requireNonNull(results, "results");
        int count = Native.checkPacked(data, offsets);
        Native.checkOut(results, count);
        try {
            for (int from = 0; from < count; from += Native.CHUNK) {
                nContainsPacked(
                        img.addr(), img.len, data, offsets, from, Math.min(Native.CHUNK, count - from), results, from);
            }
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    // ---- statistics, image ----

    /**
     * Every statistic, O(1).
     *
     * @return the statistics
     */
    public Stats stats() {
        long[] l = new long[7];
        double[] d = new double[3];
        try {
            nStats(img.addr(), img.len, l, d);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new Stats((int) l[1], l[0], l[2], l[3], l[4], d[0], d[1], l[5], d[2], (int) l[6]);
    }

    /**
     * Statistics of a binary fuse filter.
     *
     * @param fingerprintBits fingerprint width: 8 or 16
     * @param plannedKeys the key count the filter was sized for (duplicates included)
     * @param seed hash seed
     * @param keys distinct keys stored
     * @param fuseSeed the fuse seed of the successful build attempt (0: the key hashes as they are)
     * @param bitsPerKey fingerprint array bits per stored key (infinity when empty)
     * @param imageBytesPerKey image bytes per stored key, header and padding included (infinity
     *     when empty)
     * @param imageBytes image length in bytes
     * @param fpr false-positive rate of an absent key, 2^-fingerprintBits
     * @param attempts build attempts used (1 when the first fuse seed worked)
     */
    public record Stats(int fingerprintBits, long plannedKeys, long seed, long keys, long fuseSeed,
            double bitsPerKey, double imageBytesPerKey, long imageBytes, double fpr, int attempts) {}

    /**
     * Exports the image with its checksum: the bytes every binding reads back.
     *
     * @return a new array of {@link #imageBytes()} bytes
     */
    public byte[] toByteArray() {
        return Native.exported(img, img.len, BinaryFuseFilter::nExport);
    }

    /**
     * Writes the export to {@code out}: exactly the bytes {@link #toByteArray()} returns (the
     * stream is neither flushed nor closed), without a copy of the image: the export's checksum is
     * computed on the live image in place, then the sealed 48-byte header and the image follow in
     * chunks of at most 64 KiB through one array, so the extra heap is 64 KiB whatever the image's
     * size (toByteArray's is the image's size).
     *
     * <p>A query: thread-safe as {@code toByteArray} is (writes of one sketch may run side by side
     * with each other and with other queries); it holds no change guard, so a change is not
     * refused during it. A change of this sketch, through this or another object over the same
     * memory (another thread, or {@code out} itself), while the write runs makes it throw
     * ConcurrentModificationException before a byte copied after the change reaches {@code out}:
     * every byte written is the image the checksum was computed on, so a reader of the stream
     * finds it truncated ({@code readFrom} throws EOFException, or CHECKSUM_MISMATCH when other
     * bytes follow), never a torn image under a valid checksum.
     *
     * @param out the stream
     * @return the bytes written (the export's length)
     * @throws NullPointerException when {@code out} is null
     * @throws IOException what {@code out} throws, unchanged (part of the image may have been written)
     * @throws java.util.ConcurrentModificationException when a change of this sketch ran before or
     *     during the write (part of the image may have been written; the message says how much)
     * @throws IllegalStateException when this sketch has no image or wraps memory the JDK released
     */
    public long writeTo(OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        return ImageStream.write(img, Sketches.FAMILY_BINARY_FUSE, this::toByteArray, out);
    }

    /**
     * Reads exactly one exported image from {@code in} (the 48-byte common header, then exactly the
     * rest of the length it announces, never a byte more) and checks it as {@link
     * #fromByteArray(byte[])} does. The announced length is not trusted for allocation: the buffer
     * grows as bytes arrive (from 64 KiB, doubling), so a forged header costs at most about twice
     * the bytes received. Thread-safe (for distinct streams).
     *
     * @param in the stream, read by as many calls as it needs (not closed)
     * @return the sketch, or null when the stream was at its end before the image's first byte (a
     *     clean end: for loops reading images until the end)
     * @throws NullPointerException when {@code in} is null
     * @throws java.io.EOFException when the stream ends inside the image (the message says how many
     *     bytes of how many arrived)
     * @throws SketchException {@link Status#WRONG_FAMILY} for another family's image (found in the
     *     header; the body is then not read), {@link Status#BAD_MAGIC}, {@link
     *     Status#UNSUPPORTED_VERSION} or {@link Status#CORRUPT_HEADER} for a header that is no
     *     image's (the body is not read), and what {@link #fromByteArray(byte[])} throws for a
     *     damaged image ({@link Status#CHECKSUM_MISMATCH}, ...)
     * @throws IOException what {@code in} throws, unchanged
     */
    public static BinaryFuseFilter readFrom(InputStream in) throws IOException {
        byte[] image = ImageStream.read(in, Sketches.FAMILY_BINARY_FUSE, "BinaryFuseFilter.readFrom");
        return image == null ? null : fromByteArray(image);
    }

    /**
     * The image length in bytes (a multiple of 64).
     *
     * @return the length
     */
    public long imageBytes() {
        return img.length();
    }

    /**
     * A read-only view of the live image (no copy; the checksum field is written only by {@link
     * #toByteArray()}).
     *
     * @return a read-only buffer over the image
     */
    public ByteBuffer image() {
        return img.view();
    }

    @Override
    public String toString() {
        return "BinaryFuseFilter[" + img.size() + "]";
    }

    // ---- Java serialization (through SerializedSketch, the package's one serialization proxy) ----

    /** Unused by streams ({@code writeReplace} writes the proxy); kept as Serializable requires. */
    private static final long serialVersionUID = 1L;

    /**
     * Serialization writes the proxy holding {@link #toByteArray()}'s export (a query).
     *
     * @return the serialization proxy
     */
    private Object writeReplace() {
        return new SerializedSketch(Sketches.FAMILY_BINARY_FUSE, toByteArray());
    }

    /**
     * Refuses a stream naming this class instead of the proxy (made by hand to skip the import).
     *
     * @param in the stream (not read)
     * @throws InvalidObjectException always
     */
    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw Native.proxyRequired("BinaryFuseFilter");
    }

    // ---- natives (fuse.c) ----

    private static native void nPlan(long keys, int fingerprintBits, long[] out);

    private static native void nBuildPacked(long buf, long len, long planned, int fingerprintBits, long seed,
            byte[] data, int[] offsets, int count, long scratch, long scratchLen);

    private static native void nBuildU64s(long buf, long len, long planned, int fingerprintBits, long seed,
            long[] keys, long scratch, long scratchLen);

    private static native boolean nContains(long buf, long len, byte[] key, int off, int klen);

    private static native boolean nContainsStr(long buf, long len, String key, int n);

    private static native boolean nContainsBuf(long buf, long len, ByteBuffer key, int pos, int klen);

    private static native boolean nContainsU64(long buf, long len, long key);

    private static native void nContainsPacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count, boolean[] out, int outFrom);

    private static native void nContainsU64s(
            long buf, long len, long[] keys, int from, int count, boolean[] out, int outFrom);

    private static native void nCheck(long buf, long len);

    private static native void nStats(long buf, long len, long[] l, double[] d);

    private static native int nExport(long buf, long len, byte[] out);

    private static native long nImportSize(byte[] src);

    private static native void nImport(byte[] src, long dst, long dstLen);

    private static native void nVerifyAt(long buf, long len);
}
