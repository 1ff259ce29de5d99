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
 * ExaLogLog distinct counting ({@code sketch_ell_*}, Ertl 2024): precision p = 2..24, m = 2^p
 * registers of 6 + t + d bits with t = 2 and one of two configurations, {@link #D20} (28-bit
 * registers) or {@link #D24} (32-bit registers). Relative standard error by maximum likelihood
 * about 0.362/sqrt(m) for d = 20 and 0.344/sqrt(m) for d = 24 (what a merged sketch reports); a
 * sketch that has seen only its own stream reports the martingale estimate, about 12% more
 * accurate. Merges work across precisions and configurations (the larger one is reduced exactly);
 * {@link #downsize(int, int)} gives the sketch the same stream yields at a lower precision or d.
 * The C library offers no conversion to {@link UltraLogLog} or {@link HyperLogLog}.
 *
 * <p>The sketch lives in one 64-byte-aligned direct {@link ByteBuffer} (its image) that this
 * object owns: there is no native memory to free. {@link #toByteArray()} exports it with a
 * checksum; {@link #fromByteArray(byte[])} reads untrusted bytes back (headers, length, checksum,
 * register values and the martingale fields are checked); {@link #wrap(ByteBuffer)} and {@link
 * #wrapVerified(ByteBuffer)} use a caller's buffer without copying.
 *
 * <p>Keys: {@code byte[]} as they are, {@code String} as UTF-8, {@code long} as its 8
 * little-endian bytes, {@code ByteBuffer} as its remaining bytes, hashed with XXH3-64 and the
 * sketch's seed (the same hash in every language). Batches cross into native code once per 16,384
 * keys.
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
 * <p>Thread safety: queries ({@code estimate}, {@code mlEstimate}, {@code martingaleEstimate},
 * {@code stats}, {@code toByteArray}, {@code writeTo}, {@code imageBytes}, {@code image}, {@code downsize}) may run
 * concurrently; {@code add*}, {@code merge} and {@code clear} need exclusive access (no concurrent
 * query or change of the same sketch).
 *
 * <p>A sketch passed as the argument of {@code merge} is only read: for it the call is a query, and
 * a change of it by another thread while the merge reads it makes the merge throw {@link
 * java.util.ConcurrentModificationException} (this sketch may then hold part of that change: it was
 * read half-made). Two changes that overlap on one sketch (two threads adding to a shared filter,
 * say) are detected: the one that starts second throws {@link
 * java.util.ConcurrentModificationException} before native code runs and changes nothing, so every
 * change that returned is in the sketch (one compare-and-set per change call; the concurrent
 * methods take none). Objects over overlapping memory of this process (one buffer wrapped twice,
 * overlapping slices of one buffer, a wrap of another sketch's {@code image()}) take turns as one
 * object: the same refusals apply between them (see the {@linkplain dev.sketches package
 * documentation}). An export ({@code toByteArray}, Java serialization) or a conversion ({@code
 * downsize}) that overlaps a change throws ConcurrentModificationException too, rather than return
 * an image or sketch mixing bytes from before and after the change under a valid checksum. Other
 * queries that overlap a change are not detected: they may answer from a half-made change. Native
 * code reads and writes only within the image, so no such race crashes the JVM.
 */
public final class ExaLogLog implements Serializable {
    static {
        Native.load();
    }

    /** Smallest precision. */
    public static final int MIN_PRECISION = 2;
    /** Largest precision. */
    public static final int MAX_PRECISION = 24;
    /** The configuration t = 2, d = 20: 28-bit registers, ML error about 0.362/sqrt(m). */
    public static final int D20 = 20;
    /** The configuration t = 2, d = 24: 32-bit registers, ML error about 0.344/sqrt(m). */
    public static final int D24 = 24;

    // transient: Java serialization writes the proxy; Kryo's field copier must skip native memory.
    private final transient Native.Image img;

    /**
     * A sketch without an image, made only by a framework that instantiates a class through its
     * no-argument constructor and copies its fields (Kryo without the sketch classes registered
     * with its JavaSerializer): every use throws IllegalStateException saying so ({@link
     * Native.Image#detached}).
     */
    private ExaLogLog() {
        this.img = Native.Image.detached("ExaLogLog");
    }

    private ExaLogLog(Native.Image img) {
        this.img = img;
    }

    /**
     * An empty sketch of precision {@code precision} with d = 20, seed 0.
     *
     * @param precision p in 2..24 (m = 2^p registers)
     * @return an empty sketch
     * @throws IllegalArgumentException when the precision is out of range
     */
    public static ExaLogLog create(int precision) {
        return create(precision, D20, 0);
    }

    /**
     * An empty sketch of precision {@code precision} and configuration {@code d} hashing with
     * {@code seed}.
     *
     * @param precision p in 2..24 (m = 2^p registers)
     * @param d {@link #D20} or {@link #D24}
     * @param seed hash seed (sketches merge only with the same seed)
     * @return an empty sketch
     * @throws IllegalArgumentException when the precision or d is out of range, or the image would
     *     not fit in one ByteBuffer (2 GiB)
     */
    public static ExaLogLog create(int precision, int d, long seed) {
        Native.Image img = Native.fresh(imageBytes(precision, d));
        try {
            nInit(img.addr(), img.len, precision, d, seed);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new ExaLogLog(img);
    }

    /**
     * An empty sketch of the smallest precision whose maximum-likelihood relative standard error is
     * at most {@code relativeError} ({@code sketch_ell_plan}).
     *
     * @param relativeError the target relative standard error, in (0, 1) and at least what
     *     precision 24 reaches (about 8.393e-5 for d = 24, 8.843e-5 for d = 20)
     * @param d {@link #D20} or {@link #D24}
     * @param seed hash seed
     * @return an empty sketch
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static ExaLogLog forError(double relativeError, int d, long seed) {
        checkD(d);
        int p;
        try {
            p = nPlan(relativeError, d);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
        return create(p, d, seed);
    }

    /**
     * The live image size of a sketch of this precision and configuration, in bytes (a multiple of
     * 64).
     *
     * @param precision p in 2..24
     * @param d {@link #D20} or {@link #D24}
     * @return the size in bytes
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static long imageBytes(int precision, int d) {
        if (precision < MIN_PRECISION || precision > MAX_PRECISION) {
            throw new IllegalArgumentException("precision must be in 2..24: " + precision);
        }
        checkD(d);
        return nSize(precision, d);
    }

    private static void checkD(int d) {
        if (d != D20 && d != D24) {
            throw new IllegalArgumentException("d must be 20 or 24: " + d);
        }
    }

    /**
     * Reads an exported image (untrusted bytes: headers, exact length, checksum, registers and
     * martingale fields are checked) into a new sketch.
     *
     * @param bytes the bytes {@link #toByteArray()} (or any binding's export) produced
     * @return the sketch
     * @throws NullPointerException when {@code bytes} is null
     * @throws SketchException when the bytes are damaged or not an ExaLogLog ({@link
     *     Status#CHECKSUM_MISMATCH}, {@link Status#CORRUPT_BODY}, {@link Status#WRONG_FAMILY}, ...);
     *     nothing is kept
     */
    public static ExaLogLog fromByteArray(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        return new ExaLogLog(Native.imported(bytes, ExaLogLog::nImportSize, ExaLogLog::nImport));
    }

    /**
     * Uses a caller's buffer holding a live image without copying, after checking its headers
     * (O(1); any body bytes are memory-safe, damaged ones only give wrong answers). A read-only
     * buffer gives a sketch whose changes throw {@link java.nio.ReadOnlyBufferException}.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary (a mapped file qualifies)
     * @return a sketch over the buffer's bytes from its position to its limit
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the headers are not those of an ExaLogLog of that length
     */
    public static ExaLogLog wrap(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new ExaLogLog(Native.wrapped(buffer, ExaLogLog::nMartingaleEstimate));
    }

    /**
     * As {@link #wrap(ByteBuffer)}, but first verifies the bytes as {@link #fromByteArray} does
     * (headers, exact length, checksum, registers; O(m)): for an exported image in a mapped file.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary holding exactly one exported image
     * @return a sketch over the buffer
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the bytes are damaged or not an ExaLogLog
     */
    public static ExaLogLog wrapVerified(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new ExaLogLog(Native.wrapped(buffer, ExaLogLog::nVerifyAt));
    }

    // ---- single keys ----

    /**
     * Adds a key.
     *
     * @param key the key bytes
     * @return true when the sketch changed (a register changed)
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
     * @return true when the sketch changed
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
     * @return true when the sketch changed
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
     * @return true when the sketch changed
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
        int count = Native.checkPacked(data, offsets);
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

    // ---- estimates, combining, image ----

    /**
     * The distinct-count estimate: the martingale estimate (O(1)) while the sketch has seen only
     * its own stream, else the maximum-likelihood estimate from the registers (O(m) plus a few
     * Newton steps).
     *
     * @return the estimate
     */
    public double estimate() {
        try {
            return nEstimate(img.addr(), img.len);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * The maximum-likelihood estimate from the registers alone (what a merged sketch reports;
     * O(m)).
     *
     * @return the estimate ({@code Infinity} only when no update value is known unseen, about
     *     2^64 distinct hashes)
     */
    public double mlEstimate() {
        try {
            return nMlEstimate(img.addr(), img.len);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * The martingale estimate (O(1)), kept while the sketch has seen only its own stream.
     *
     * @return the estimate, or {@code NaN} after a merge or for a downsized sketch ({@link
     *     Stats#martingale()} tells which)
     */
    public double martingaleEstimate() {
        try {
            return nMartingaleEstimate(img.addr(), img.len);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Merges {@code other} into this sketch: afterwards it holds exactly the registers of one
     * sketch of both streams at this sketch's parameters, and reports the maximum-likelihood
     * estimate.
     *
     * @param other a sketch with the same seed and a precision and d at least this one's (larger
     *     ones are reduced exactly)
     * @throws NullPointerException when {@code other} is null
     * @throws SketchException {@link Status#INCOMPATIBLE} when the seeds differ or {@code other}'s
     *     precision or d is lower (nothing changes); {@code other} may be this sketch itself (a
     *     copy of it is merged, as an equal sketch would be)
     * @throws java.nio.ReadOnlyBufferException when the sketch wraps a read-only buffer
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch or
     *     {@code other} meanwhile (against the thread-safety rules; see the class notes)
     */
    public void merge(ExaLogLog other) {
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

    /**
     * The sketch the same stream gives at a lower precision or d (same seed): exactly its
     * registers. The result reports the maximum-likelihood estimate (the martingale estimate does
     * not carry over).
     *
     * @param precision p in 2..24, at most this sketch's
     * @param d {@link #D20} or {@link #D24}, at most this sketch's
     * @return a new sketch
     * @throws IllegalArgumentException when a parameter is out of range
     * @throws SketchException {@link Status#INCOMPATIBLE} when the precision or d is above this
     *     sketch's
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch
     *     meanwhile (against the thread-safety rules; nothing is returned)
     */
    public ExaLogLog downsize(int precision, int d) {
        Native.Image dst = Native.fresh(imageBytes(precision, d));
        int changes = img.beginWholeRead(); // the source is read whole: a change meanwhile is refused
        try {
            nDownsize(img.addr(), img.len, dst.addr(), dst.len, precision, d);
        } catch (SketchException e) {
            img.endWholeRead(changes); // a change ran meanwhile: that is the cause
            throw e;
        } finally {
            Reference.reachabilityFence(img);
            Reference.reachabilityFence(dst);
        }
        img.endWholeRead(changes);
        return new ExaLogLog(dst);
    }

    /**
     * Empties the sketch (same parameters and seed; the martingale estimate restarts at 0).
     *
     * @throws java.nio.ReadOnlyBufferException when the sketch wraps a read-only buffer
     */
    public void clear() {
        img.checkWritable();
        img.beginChange();
        try {
            nReset(img.addr(), img.len);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * The statistics of the sketch, O(m) (the registers are counted).
     *
     * @return the statistics
     */
    public Stats stats() {
        long[] l = new long[7];
        double[] d = new double[2];
        try {
            nStats(img.addr(), img.len, l, d);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new Stats((int) l[0], (int) l[1], (int) l[2], l[3], l[4], d[0], d[1], l[5], l[6] != 0);
    }

    /**
     * Statistics of an ExaLogLog sketch.
     *
     * @param t extra hash bits per update value (2)
     * @param d history bits per register: 20 or 24
     * @param precision precision p
     * @param seed hash seed
     * @param registersSet registers above zero
     * @param estimate distinct-count estimate (as {@link #estimate()})
     * @param standardError the theoretical relative standard error of {@code estimate}
     * @param imageBytes image length in bytes
     * @param martingale true when {@code estimate} is the martingale estimate (no merge so far)
     */
    public record Stats(int t, int d, int precision, long seed, long registersSet, double estimate,
            double standardError, long imageBytes, boolean martingale) {}

    /**
     * Exports the image with its checksum.
     *
     * @return a new array of {@link #imageBytes()} bytes
     * @throws java.util.ConcurrentModificationException when a change of this sketch ran during the
     *     export (against the thread-safety rules; nothing is returned)
     */
    public byte[] toByteArray() {
        return Native.exported(img, img.len, ExaLogLog::nExport);
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
        return ImageStream.write(img, Sketches.FAMILY_EXALOGLOG, this::toByteArray, out);
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
    public static ExaLogLog readFrom(InputStream in) throws IOException {
        byte[] image = ImageStream.read(in, Sketches.FAMILY_EXALOGLOG, "ExaLogLog.readFrom");
        return image == null ? null : fromByteArray(image);
    }

    /**
     * The live image length in bytes (a multiple of 64).
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
        return "ExaLogLog[" + img.size() + "]";
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
        return new SerializedSketch(Sketches.FAMILY_EXALOGLOG, toByteArray());
    }

    /**
     * Refuses a stream naming this class instead of the proxy (made by hand to skip the import).
     *
     * @param in the stream (not read)
     * @throws InvalidObjectException always
     */
    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw Native.proxyRequired("ExaLogLog");
    }

    // ---- natives (ell.c) ----

    private static native int nPlan(double relativeError, int d);

    private static native long nSize(int p, int d);

    private static native void nInit(long buf, long len, int p, int d, long seed);

    private static native boolean nAdd(long buf, long len, byte[] key, int off, int klen);

    private static native boolean nAddBuf(long buf, long len, ByteBuffer key, int pos, int klen);

    private static native boolean nAddU64(long buf, long len, long key);

    private static native boolean nAddStr(long buf, long len, String key, int n);

    private static native void nAddPacked(long buf, long len, byte[] data, int[] offsets, int from, int count);

    private static native void nAddU64s(long buf, long len, long[] keys, int from, int count);

    private static native double nEstimate(long buf, long len);

    private static native double nMlEstimate(long buf, long len);

    private static native double nMartingaleEstimate(long buf, long len);

    private static native void nReset(long buf, long len);

    private static native void nMerge(long dst, long dstLen, long src, long srcLen);

    private static native void nDownsize(long src, long srcLen, long dst, long dstLen, int p, int d);

    private static native void nStats(long buf, long len, long[] l, double[] d);

    private static native int nExport(long buf, long len, byte[] out);

    private static native long nImportSize(byte[] src);

    private static native void nImport(byte[] src, long dst, long dstLen);

    private static native void nVerifyAt(long buf, long len);
}
