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
 * MinHash similarity ({@code sketch_minhash_*}): k registers filled by one-permutation hashing
 * with optimal densification (one hash per item); the Jaccard similarity of two sets is estimated
 * with standard error about sqrt(J(1 - J) / k). Merge takes the register-wise minimum (the sketch
 * of the union); {@link #signature()} gives the densified values for LSH banding.
 *
 * <p>The sketch lives in one 64-byte-aligned direct {@link ByteBuffer} (its image) that this
 * object owns: there is no native memory to free. {@link #toByteArray()} exports it with a
 * checksum; {@link #fromByteArray(byte[])} reads untrusted bytes back; {@link #wrap(ByteBuffer)}
 * and {@link #wrapVerified(ByteBuffer)} use a caller's buffer without copying.
 *
 * <p>Keys: {@code byte[]} as they are, {@code String} as UTF-8, {@code long} as its 8
 * little-endian bytes, {@code ByteBuffer} as its remaining bytes, hashed with XXH3-64 and the
 * sketch's seed.
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
 * <p>Thread safety: queries ({@code jaccard}, {@code signature}, {@code stats}, {@code
 * toByteArray}, {@code writeTo}, {@code imageBytes}, {@code image}) may run concurrently; {@code add*}, {@code
 * merge} and {@code clear} need exclusive access.
 *
 * <p>A sketch passed as the argument of {@code merge} or {@code jaccard} is only read: for it the
 * call is a query, and a change of it by another thread while the call reads it makes the call
 * throw {@link java.util.ConcurrentModificationException} (after a merge this sketch may then hold
 * part of that change: it was read half-made; {@code jaccard} returns nothing). Two changes that overlap on one sketch (two threads adding to a
 * shared filter, say) are detected: the one that starts second throws {@link
 * java.util.ConcurrentModificationException} before native code runs and changes nothing, so every
 * change that returned is in the sketch (one compare-and-set per change call; the concurrent
 * methods take none). Objects over overlapping memory of this process (one buffer wrapped twice,
 * overlapping slices of one buffer, a wrap of another sketch's {@code image()}) take turns as one
 * object: the same refusals apply between them (see the {@linkplain dev.sketches package
 * documentation}). An export ({@code toByteArray}, Java serialization) that overlaps a change
 * throws ConcurrentModificationException too, rather than return an image mixing bytes from before
 * and after the change under a valid checksum, and so does a {@code jaccard} that overlaps a change
 * of this sketch (it reads both whole). Other queries that overlap a change are not
 * detected: they may answer from a half-made change. Native code reads and writes only within the
 * image, so no such race crashes the JVM.
 */
public final class MinHash implements Serializable {
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
    private MinHash() {
        this.img = Native.Image.detached("MinHash");
    }

    private MinHash(Native.Image img) {
        this.img = img;
    }

    /**
     * An empty sketch of {@code k} registers, seed 0.
     *
     * @param k registers, 1 to 2^20
     * @return an empty sketch
     * @throws IllegalArgumentException when k is out of range
     */
    public static MinHash create(int k) {
        return create(k, 0);
    }

    /**
     * An empty sketch of {@code k} registers hashing with {@code seed}.
     *
     * @param k registers, 1 to 2^20
     * @param seed hash seed (sketches compare and merge only with the same k and seed)
     * @return an empty sketch
     * @throws IllegalArgumentException when k is out of range
     */
    public static MinHash create(int k, long seed) {
        Native.Image img = Native.fresh(imageBytes(k));
        try {
            nInit(img.addr(), img.len, k, seed);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new MinHash(img);
    }

    /**
     * The image size in bytes of a sketch of {@code k} registers (a multiple of 64), without
     * allocating it: for checking a memory budget first.
     *
     * @param k registers, 1 to 2^20
     * @return the size in bytes
     * @throws IllegalArgumentException when k is out of range
     */
    public static long imageBytes(int k) {
        if (k < 1) {
            throw new IllegalArgumentException("k must be positive: " + k);
        }
        try {
            return nSize(k);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
    }

    /**
     * Reads an exported image (untrusted bytes: headers, exact length and checksum are checked).
     *
     * @param bytes the bytes {@link #toByteArray()} (or any binding's export) produced
     * @return the sketch
     * @throws NullPointerException when {@code bytes} is null
     * @throws SketchException when the bytes are damaged or not a MinHash sketch; nothing is kept
     */
    public static MinHash fromByteArray(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        return new MinHash(Native.imported(bytes, MinHash::nImportSize, MinHash::nImport));
    }

    /**
     * Uses a caller's buffer as the image without copying, after checking its headers (O(1); any
     * body bytes are memory-safe, damaged ones only give wrong answers). A read-only buffer gives
     * a sketch whose changes throw {@link java.nio.ReadOnlyBufferException}.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary (a mapped file qualifies)
     * @return a sketch over the buffer's bytes from its position to its limit
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the headers are not those of a MinHash sketch of that length
     */
    public static MinHash wrap(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new MinHash(Native.wrapped(buffer, (a, n) -> nStats(a, n, new long[3])));
    }

    /**
     * As {@link #wrap(ByteBuffer)}, but first verifies the bytes as {@link #fromByteArray} does.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary holding exactly one exported image
     * @return a sketch over the buffer
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the bytes are damaged or not a MinHash sketch
     */
    public static MinHash wrapVerified(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new MinHash(Native.wrapped(buffer, MinHash::nVerifyAt));
    }

    // ---- single keys ----

    /**
     * Adds a key.
     *
     * @param key the key bytes
     * @return true when its bin's minimum dropped
     * @throws NullPointerException when {@code key} is null
     * @throws java.nio.ReadOnlyBufferException when the sketch wraps a read-only buffer
     */
    public boolean add(byte[] key) {
        Objects.requireNonNull(key, "key");
        img.checkWritable();
        img.beginChange();
        try {
            return nAdd(img.addr(), img.len, key, 0, key.length);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds a String key (its UTF-8 bytes).
     *
     * @param key the key
     * @return true when its bin's minimum dropped
     * @throws NullPointerException when {@code key} is null
     */
    public boolean add(String key) {
        Objects.requireNonNull(key, "key");
        int n = key.length();
        if (n > Native.STR_MAX) {
            return add(Native.utf8(key));
        }
        img.checkWritable();
        img.beginChange();
        try {
            return nAddStr(img.addr(), img.len, key, n);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds a long key (its 8 little-endian bytes).
     *
     * @param key the key
     * @return true when its bin's minimum dropped
     */
    public boolean add(long key) {
        img.checkWritable();
        img.beginChange();
        try {
            return nAddU64(img.addr(), img.len, key);
        } finally {
            img.endChange();
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
    public boolean add(char key) {
        throw Native.charKey();
    }

    /**
     * Adds the remaining bytes of a buffer as one key (the buffer's position does not move).
     *
     * @param key the key bytes
     * @return true when its bin's minimum dropped
     * @throws NullPointerException when {@code key} is null
     */
    public boolean add(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        img.checkWritable();
        int pos = key.position();
        int n = key.remaining();
        img.beginChange();
        try {
            if (Native.direct(key, pos, n)) {
                return nAddBuf(img.addr(), img.len, key, pos, n);
            }
            if (key.hasArray()) {
                return nAdd(img.addr(), img.len, key.array(), key.arrayOffset() + pos, n);
            }
            byte[] copy = new byte[n];
            key.duplicate().get(copy);
            return nAdd(img.addr(), img.len, copy, 0, n);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    // ---- batches ----

    /**
     * Adds every key.
     *
     * @param keys the keys
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAll(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        img.checkWritable();
        img.beginChange();
        try {
            Native.forChunks(keys, (d, o, from, n) -> nAddPacked(img.addr(), img.len, d, o, 0, n));
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds every String key (UTF-8).
     *
     * @param keys the keys
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAll(String[] keys) {
        Objects.requireNonNull(keys, "keys");
        img.checkWritable();
        img.beginChange();
        try {
            Native.forChunks(keys, (d, o, from, n) -> nAddPacked(img.addr(), img.len, d, o, 0, n));
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds every long key.
     *
     * @param keys the keys
     * @throws NullPointerException when {@code keys} is null
     */
    public void addAll(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        img.checkWritable();
        img.beginChange();
        try {
            for (int from = 0; from < keys.length; from += Native.CHUNK) {
                nAddU64s(img.addr(), img.len, keys, from, Math.min(Native.CHUNK, keys.length - from));
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds keys packed in the Arrow Binary layout: key i is {@code data[offsets[i] ..
     * offsets[i + 1])}.
     *
     * @param data the key bytes
     * @param offsets count + 1 non-decreasing offsets into {@code data}
     * @throws NullPointerException when {@code data} or {@code offsets} is null
     * @throws IllegalArgumentException when the offsets are invalid (nothing is added)
     */
    public void addPacked(byte[] data, int[] offsets) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        addPacked0(data, offsets, Native.checkPacked(data, offsets));
    }

    private void addPacked0(byte[] data, int[] offsets, int count) {
        img.checkWritable();
        img.beginChange();
        try {
            for (int from = 0; from < count; from += Native.CHUNK) {
                nAddPacked(img.addr(), img.len, data, offsets, from, Math.min(Native.CHUNK, count - from));
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    // ---- similarity, combining, image ----

    /**
     * The estimated Jaccard similarity of the two sets (0..1; two empty sketches give 1).
     *
     * <p>Both sketches are read whole, as a merge reads its argument: a change of either (by
     * another thread, or through another object over the same memory) while this reads them is
     * refused with ConcurrentModificationException rather than answered from a half-made change.
     * {@code other} may be this sketch (1.0).
     *
     * @param other a sketch with the same k and seed
     * @return the estimate
     * @throws NullPointerException when {@code other} is null
     * @throws SketchException {@link Status#INCOMPATIBLE} when k or the seed differ
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch or
     *     {@code other} meanwhile (against the thread-safety rules; nothing is returned)
     */
    public double jaccard(MinHash other) {
        Objects.requireNonNull(other, "other");
        int changes = img.beginWholeRead();
        int otherChanges = other.img.beginWholeRead();
        double similarity;
        try {
            similarity = nJaccard(img.addr(), img.len, other.img.addr(), other.img.len);
        } catch (SketchException e) {
            img.endWholeRead(changes); // a change ran meanwhile: that, not the refusal, is the cause
            other.img.endWholeRead(otherChanges);
            throw Native.incompatible(e, img, other.img);
        } finally {
            Reference.reachabilityFence(img);
            Reference.reachabilityFence(other.img);
        }
        img.endWholeRead(changes);
        other.img.endWholeRead(otherChanges);
        return similarity;
    }

    /**
     * The k densified signature values (for LSH banding).
     *
     * @return a new array of k values
     */
    public long[] signature() {
        long[] out = new long[stats().registers()];
        try {
            nSignature(img.addr(), img.len, out);
        } finally {
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * Merge: register-wise minimum of {@code other} (the sketch of the union).
     *
     * @param other a sketch with the same k and seed
     * @throws NullPointerException when {@code other} is null
     * @throws SketchException {@link Status#INCOMPATIBLE} when k or the seed differ (nothing
     *     changes); {@code other} may be this sketch itself (a copy of it
     *     is merged, as an equal sketch would be)
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch or
     *     {@code other} meanwhile (against the thread-safety rules; see the class notes)
     */
    public void merge(MinHash other) {
        Objects.requireNonNull(other, "other");
        img.checkWritable();
        // The source is only read: a change of it meanwhile (another thread's) is refused.
        int otherChanges = other.img.beginWholeRead();
        Native.Image src = other.img.mergeSourceFor(img);
        if (src != other.img) {
            other.img.endSourceRead(otherChanges, null); // a private copy, read whole already
        }
        img.beginChange();
        try {
            nMerge(img.addr(), img.len, src.addr(), src.len);
            if (src == other.img) {
                other.img.endSourceRead(otherChanges, img);
            }
        } catch (SketchException e) {
            if (src == other.img) {
                other.img.endSourceRead(otherChanges, img);
            }
            throw Native.incompatible(e, img, other.img);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
            Reference.reachabilityFence(other.img);
            Reference.reachabilityFence(src);
        }
    }

    /** Empties the sketch (same k and seed). */
    public void clear() {
        img.checkWritable();
        img.beginChange();
        try {
            nClear(img.addr(), img.len);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * The statistics of the sketch.
     *
     * @return the statistics
     */
    public Stats stats() {
        long[] l = new long[3];
        try {
            nStats(img.addr(), img.len, l);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new Stats((int) l[0], (int) l[1], l[2]);
    }

    /**
     * Statistics of a MinHash sketch.
     *
     * @param registers registers k
     * @param filled registers that received at least one item
     * @param seed hash seed
     */
    public record Stats(int registers, int filled, long seed) {}

    /**
     * Exports the image with its checksum.
     *
     * @return a new array of {@link #imageBytes()} bytes
     * @throws java.util.ConcurrentModificationException when a change of this sketch ran during the
     *     export (against the thread-safety rules; nothing is returned)
     */
    public byte[] toByteArray() {
        return Native.exported(img, img.len, MinHash::nExport);
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
        return ImageStream.write(img, Sketches.FAMILY_MINHASH, this::toByteArray, out);
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
    public static MinHash readFrom(InputStream in) throws IOException {
        byte[] image = ImageStream.read(in, Sketches.FAMILY_MINHASH, "MinHash.readFrom");
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
     * A read-only view of the live image (no copy).
     *
     * @return a read-only buffer over the image
     */
    public ByteBuffer image() {
        return img.view();
    }

    @Override
    public String toString() {
        return "MinHash[" + img.size() + "]";
    }

    // ---- Java serialization (through SerializedSketch, the package's one serialization proxy) ----

    /** Unused by streams ({@code writeReplace} writes the proxy); kept as Serializable requires. */
    private static final long serialVersionUID = 1L;

    /**
     * Serialization writes the proxy holding {@link #toByteArray()}'s export (a query).
     *
     * @return the serialization proxy
     * @throws java.util.ConcurrentModificationException when a change of this sketch ran during the
     *     export
     */
    private Object writeReplace() {
        return new SerializedSketch(Sketches.FAMILY_MINHASH, toByteArray());
    }

    /**
     * Refuses a stream naming this class instead of the proxy (made by hand to skip the import).
     *
     * @param in the stream (not read)
     * @throws InvalidObjectException always
     */
    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw Native.proxyRequired("MinHash");
    }

    // ---- natives (minhash.c) ----

    private static native long nSize(int k);

    private static native void nInit(long buf, long len, int k, long seed);

    private static native boolean nAdd(long buf, long len, byte[] key, int off, int klen);

    private static native boolean nAddBuf(long buf, long len, ByteBuffer key, int pos, int klen);

    private static native boolean nAddU64(long buf, long len, long key);

    private static native boolean nAddStr(long buf, long len, String key, int n);

    private static native void nAddPacked(long buf, long len, byte[] data, int[] offsets, int from, int count);

    private static native void nAddU64s(long buf, long len, long[] keys, int from, int count);

    private static native double nJaccard(long a, long aLen, long b, long bLen);

    private static native void nSignature(long buf, long len, long[] out);

    private static native void nMerge(long dst, long dstLen, long src, long srcLen);

    private static native void nClear(long buf, long len);

    private static native void nStats(long buf, long len, long[] l);

    private static native int nExport(long buf, long len, byte[] out);

    private static native long nImportSize(byte[] src);

    private static native void nImport(byte[] src, long dst, long dstLen);

    private static native void nVerifyAt(long buf, long len);
}
