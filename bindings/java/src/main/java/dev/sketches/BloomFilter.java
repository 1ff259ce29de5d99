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
 * A classic Bloom filter ({@code sketch_bloom_*}): m bits, k probes per key from enhanced double
 * hashing with 64-bit multiply-shift, so filters above 2^32 bits keep their rate. No false
 * negatives; false positives at about the planned rate while within the plan, and an O(1)
 * over-capacity signal ({@link #capacityFlags()}) when more items arrive than planned.
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
 * same keys. Batches ({@code addAll}, {@code containsAll}, {@code *Packed}) cross into native
 * code once per 16,384 keys.
 *
 * <p>Single-key calls do not check the image's headers again: the filter keeps, in native memory
 * owned with its image, a token of what checking them established when it was made (created, read
 * or wrapped), and each call compares the headers' identity words (format, family, seed, length,
 * parameters) with it. When they differ (a wrapped buffer that other code re-wrote) the call
 * checks in full and answers or throws as it would without the token. The headers' counters are
 * trusted as the body is: damaged ones give wrong answers, never unsafe memory access.
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
 * <p>Thread safety: queries ({@code contains*}, {@code stats}, {@code capacityFlags}, {@code
 * isOverCapacity}, {@code toByteArray}, {@code writeTo}, {@code imageBytes}, {@code image}) may run concurrently
 * from any number of threads; a call that changes the filter ({@code add*}, {@code merge}, {@code
 * intersect}, {@code clear}) needs exclusive access (no concurrent query or change of the same
 * filter).
 *
 * <p>The concurrent methods are the exception: {@code addConcurrent}, {@code addAllConcurrent},
 * {@code addPackedConcurrent}, {@code containsConcurrent}, {@code containsAllConcurrent}, {@code
 * containsPackedConcurrent}, {@code capacityFlagsConcurrent} and {@code isOverCapacityConcurrent}
 * (the C ABI's {@code sketch_bloom_*_concurrent}, atomic operations on the image's 64-bit words).
 * Any number of threads may call them on one filter at once; while any of them runs, no other
 * method may be called on it (not even {@code contains}, {@code stats} or {@code toByteArray}).
 * Such a call (through this object or another over the same memory) is not refused, as the
 * concurrent methods take no change guard: it races them, with the effects the {@linkplain
 * dev.sketches package documentation} lists (adds lost, counters off, SketchException {@link
 * Status#CORRUPT_HEADER} for a header left inconsistent, until the sketch is made anew), never a
 * JVM crash. A concurrent query sees every concurrent add that returned before it (on its thread,
 * or on a thread it synchronized with since); an add still running may or may not be seen. Once the
 * adding threads are done (joined), the bits and the {@code addCalls} and {@code setBits} counters
 * (so {@code fill}, {@code estimatedItems} and {@code estimatedFpr}) equal those of the same adds
 * made one at a time, in any order. {@code inserted} (adds that set a new bit) depends on how the
 * threads' adds interleaved: it may differ from a sequential run's (it still counts every add that
 * set a bit, and never exceeds {@code addCalls}), and so may the {@link
 * Sketches#CAPACITY_OVER_PLANNED_ITEMS} flag computed from it. Two threads adding the same key at
 * once may both be told it was new.
 *
 * <p>A sketch passed as the argument of {@code merge} or {@code intersect} is only read: for it the
 * call is a query, and a change of it by another thread while the merge reads it makes the merge
 * throw {@link java.util.ConcurrentModificationException} (this sketch may then hold part of that
 * change: it was read half-made). Two changes that overlap on one sketch (two threads adding to a
 * shared filter, say) are detected: the one that starts second throws {@link
 * java.util.ConcurrentModificationException} before native code runs and changes nothing, so every
 * change that returned is in the sketch (one compare-and-set per change call; the concurrent
 * methods take none). Objects over overlapping memory of this process (one buffer wrapped twice,
 * overlapping slices of one buffer, a wrap of another sketch's {@code image()}) take turns as one
 * object: the same refusals apply between them (see the {@linkplain dev.sketches package
 * documentation}). An export ({@code toByteArray}, Java serialization) that overlaps a change
 * throws ConcurrentModificationException too, rather than return an image mixing bytes from before
 * and after the change under a valid checksum. Other queries that overlap a change are not
 * detected: they may answer from a half-made change. Native code reads and writes only within the
 * image, so no such race crashes the JVM.
 */
public final class BloomFilter implements Serializable {
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
    private BloomFilter() {
        this.img = Native.Image.detached("BloomFilter");
    }

    /** Takes an image with a token (initialized, imported or checked) and fills the token from it. */
    private BloomFilter(Native.Image img) {
        this.img = img;
        img.fillToken(BloomFilter::nToken);
    }

    /**
     * A filter planned for {@code expectedItems} distinct items at false-positive rate {@code
     * fpr}, seed 0.
     *
     * @param expectedItems items the filter is planned for (at least 1)
     * @param fpr false-positive rate at that count, in (0, 1)
     * @return an empty filter
     * @throws IllegalArgumentException when a parameter is out of range or the filter would not
     *     fit in one ByteBuffer (2 GiB)
     */
    public static BloomFilter create(long expectedItems, double fpr) {
        return create(expectedItems, fpr, 0);
    }

    /**
     * A filter planned for {@code expectedItems} distinct items at rate {@code fpr}: m = ceil(-n
     * ln p / ln^2 2) bits, k = round(m/n ln 2) probes.
     *
     * @param expectedItems items the filter is planned for (at least 1)
     * @param fpr false-positive rate at that count, in (0, 1)
     * @param seed hash seed (filters combine only with the same seed)
     * @return an empty filter
     * @throws IllegalArgumentException when a parameter is out of range or the filter would not
     *     fit in one ByteBuffer (2 GiB)
     */
    public static BloomFilter create(long expectedItems, double fpr, long seed) {
        return init(plan(expectedItems, fpr), seed);
    }

    /**
     * The image size in bytes of {@link #create(long, double, long)}'s filter (a multiple of 64),
     * without allocating it: for checking a memory budget first. Any size the library plans is
     * returned, also one above the 2 GiB one ByteBuffer holds (which {@code create} refuses).
     *
     * @param expectedItems items the filter is planned for (at least 1)
     * @param fpr false-positive rate at that count, in (0, 1)
     * @return the size in bytes
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static long imageBytes(long expectedItems, double fpr) {
        return plan(expectedItems, fpr)[4];
    }

    private static long[] plan(long expectedItems, double fpr) {
        if (expectedItems < 1) {
            throw new IllegalArgumentException("expectedItems must be at least 1: " + expectedItems);
        }
        if (!(fpr > 0 && fpr < 1)) {
            throw new IllegalArgumentException("fpr must be in (0, 1): " + fpr);
        }
        long[] plan = new long[5];
        try {
            nPlan(expectedItems, fpr, plan);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
        return plan;
    }

    /**
     * A filter of exactly {@code bits} bits and {@code hashes} probes per key.
     *
     * @param bits number of bits, 1 to 2^56 (and at most what one ByteBuffer holds)
     * @param hashes probes per key, 1 to 64
     * @param seed hash seed
     * @return an empty filter
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static BloomFilter withBits(long bits, int hashes, long seed) {
        return init(planBits(bits, hashes), seed);
    }

    /**
     * The image size in bytes of {@link #withBits(long, int, long)}'s filter, without allocating
     * it (as {@link #imageBytes(long, double)}).
     *
     * @param bits number of bits, 1 to 2^56
     * @param hashes probes per key, 1 to 64
     * @return the size in bytes
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static long imageBytesWithBits(long bits, int hashes) {
        return planBits(bits, hashes)[4];
    }

    private static long[] planBits(long bits, int hashes) {
        if (bits < 1 || hashes < 1 || hashes > 64) {
            throw new IllegalArgumentException("bits must be positive and hashes in 1..64: " + bits + ", " + hashes);
        }
        long[] plan = new long[5];
        try {
            nPlanBits(bits, hashes, plan);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
        return plan;
    }

    private static BloomFilter init(long[] plan, long seed) {
        Native.Image img = Native.freshWithToken(plan[4]);
        try {
            nInit(img.addr(), img.len, plan[0], (int) plan[1], plan[2], Double.longBitsToDouble(plan[3]), seed);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new BloomFilter(img);
    }

    /**
     * Reads an exported image (untrusted bytes: headers, exact length and checksum are checked)
     * into a new filter.
     *
     * @param bytes the bytes {@link #toByteArray()} (or any binding's export) produced
     * @return the filter
     * @throws NullPointerException when {@code bytes} is null
     * @throws SketchException when the bytes are damaged or not a Bloom filter ({@link
     *     Status#CHECKSUM_MISMATCH}, {@link Status#LENGTH_MISMATCH}, {@link Status#WRONG_FAMILY},
     *     {@link Status#BAD_MAGIC}, ...); nothing is kept
     */
    public static BloomFilter fromByteArray(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        return new BloomFilter(Native.importedWithToken(bytes, BloomFilter::nImportSize, BloomFilter::nImport));
    }

    /**
     * Uses a caller's buffer as the filter's image without copying, after checking its headers
     * against its length (O(1); the body is not checked: any body bytes are memory-safe to query,
     * damaged ones only give wrong answers). Use {@link #wrapVerified(ByteBuffer)} for bytes from
     * elsewhere. The image is the buffer's bytes from its position to its limit; changes through
     * this filter write to the buffer. A read-only buffer gives a filter whose changes throw
     * {@link java.nio.ReadOnlyBufferException}.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary (a mapped file qualifies)
     * @return a filter over the buffer
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the headers are not those of a Bloom filter of that length
     */
    public static BloomFilter wrap(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new BloomFilter(Native.wrappedWithToken(buffer, BloomFilter::nCapacity));
    }

    /**
     * As {@link #wrap(ByteBuffer)}, but first verifies the bytes as {@link #fromByteArray} does
     * (headers, exact length, checksum; O(n)): for an exported image in a mapped file. A live
     * image changed since its export fails the checksum.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary holding exactly one exported image
     * @return a filter over the buffer
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the bytes are damaged or not a Bloom filter
     */
    public static BloomFilter wrapVerified(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new BloomFilter(Native.wrappedWithToken(buffer, BloomFilter::nVerifyAt));
    }

    // ---- single keys ----

    /**
     * Adds a key.
     *
     * @param key the key bytes
     * @return true when the key was new to the filter (some probed bit was unset): test-and-insert
     *     for deduplication in one call
     * @throws NullPointerException when {@code key} is null
     * @throws java.nio.ReadOnlyBufferException when the filter wraps a read-only buffer
     */
    public boolean add(byte[] key) {
        Objects.requireNonNull(key, "key");
        img.checkWritable();
        img.beginChange();
        try {
            return nAdd(img.addr(), img.len, img.token, key, 0, key.length);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds a String key (its UTF-8 bytes).
     *
     * @param key the key
     * @return true when the key was new to the filter
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
            return nAddStr(img.addr(), img.len, img.token, key, n);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds a long key (its 8 little-endian bytes).
     *
     * @param key the key
     * @return true when the key was new to the filter
     */
    public boolean add(long key) {
        img.checkWritable();
        img.beginChange();
        try {
            return nAddU64(img.addr(), img.len, img.token, key);
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
     * @return true when the key was new to the filter
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
                return nAddBuf(img.addr(), img.len, img.token, key, pos, n);
            }
            if (key.hasArray()) {
                return nAdd(img.addr(), img.len, img.token, key.array(), key.arrayOffset() + pos, n);
            }
            byte[] copy = new byte[n];
            key.duplicate().get(copy);
            return nAdd(img.addr(), img.len, img.token, copy, 0, n);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests a key.
     *
     * @param key the key bytes
     * @return false when the key was certainly never added, true when it may have been
     * @throws NullPointerException when {@code key} is null
     */
    public boolean contains(byte[] key) {
        Objects.requireNonNull(key, "key");
        try {
            return nContains(img.addr(), img.len, img.token, key, 0, key.length);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests a String key (its UTF-8 bytes).
     *
     * @param key the key
     * @return false when the key was certainly never added, true when it may have been
     * @throws NullPointerException when {@code key} is null
     */
    public boolean contains(String key) {
        Objects.requireNonNull(key, "key");
        int n = key.length();
        if (n > Native.STR_MAX) {
            return contains(Native.utf8(key));
        }
        try {
            return nContainsStr(img.addr(), img.len, img.token, key, n);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests a long key (its 8 little-endian bytes).
     *
     * @param key the key
     * @return false when the key was certainly never added, true when it may have been
     */
    public boolean contains(long key) {
        try {
            return nContainsU64(img.addr(), img.len, img.token, key);
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
     * @return false when the key was certainly never added, true when it may have been
     * @throws NullPointerException when {@code key} is null
     */
    public boolean contains(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        int pos = key.position();
        int n = key.remaining();
        try {
            if (Native.direct(key, pos, n)) {
                return nContainsBuf(img.addr(), img.len, img.token, key, pos, n);
            }
            if (key.hasArray()) {
                return nContains(img.addr(), img.len, img.token, key.array(), key.arrayOffset() + pos, n);
            }
            byte[] copy = new byte[n];
            key.duplicate().get(copy);
            return nContains(img.addr(), img.len, img.token, copy, 0, n);
        } finally {
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
        addAll(keys, null);
    }

    /**
     * Adds every key; {@code wasNew[i]} receives whether key i was new (keys earlier in the batch
     * count: a repeated key is new only the first time).
     *
     * @param keys the keys
     * @param wasNew null, or at least {@code keys.length} slots
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAll(byte[][] keys, boolean[] wasNew) {
        Objects.requireNonNull(keys, "keys");
        Native.checkOut(wasNew, keys.length);
        img.checkWritable();
        img.beginChange();
        try {
            Native.forChunks(keys, (d, o, from, n) -> nAddPacked(img.addr(), img.len, d, o, 0, n, wasNew, from));
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
        addAll(keys, null);
    }

    /**
     * Adds every String key (UTF-8), reporting per key whether it was new.
     *
     * @param keys the keys
     * @param wasNew null, or at least {@code keys.length} slots
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAll(String[] keys, boolean[] wasNew) {
        Objects.requireNonNull(keys, "keys");
        Native.checkOut(wasNew, keys.length);
        img.checkWritable();
        img.beginChange();
        try {
            Native.forChunks(keys, (d, o, from, n) -> nAddPacked(img.addr(), img.len, d, o, 0, n, wasNew, from));
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
        addAll(keys, null);
    }

    /**
     * Adds every long key, reporting per key whether it was new.
     *
     * @param keys the keys
     * @param wasNew null, or at least {@code keys.length} slots
     * @throws NullPointerException when {@code keys} is null
     */
    public void addAll(long[] keys, boolean[] wasNew) {
        Objects.requireNonNull(keys, "keys");
        Native.checkOut(wasNew, keys.length);
        img.checkWritable();
        img.beginChange();
        try {
            for (int from = 0; from < keys.length; from += Native.CHUNK) {
                nAddU64s(img.addr(), img.len, keys, from, Math.min(Native.CHUNK, keys.length - from), wasNew, from);
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
     * @param wasNew null, or at least count slots receiving whether each key was new
     * @throws NullPointerException when {@code data} or {@code offsets} is null
     * @throws IllegalArgumentException when the offsets are not count + 1 non-decreasing
     *     offsets within {@code data} (nothing is added)
     */
    public void addPacked(byte[] data, int[] offsets, boolean[] wasNew) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        addPacked0(data, offsets, Native.checkPacked(data, offsets), wasNew);
    }

    private void addPacked0(byte[] data, int[] offsets, int count, boolean[] wasNew) {
        Native.checkOut(wasNew, count);
        img.checkWritable();
        img.beginChange();
        try {
            for (int from = 0; from < count; from += Native.CHUNK) {
                nAddPacked(img.addr(), img.len, data, offsets, from, Math.min(Native.CHUNK, count - from), wasNew, from);
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests every key.
     *
     * @param keys the keys
     * @return per key: false when certainly never added
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
     * @return per key: false when certainly never added
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
     * @return per key: false when certainly never added
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
     * Tests keys packed in the Arrow Binary layout (see {@link #addPacked}) into a caller's array.
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
        containsPacked0(data, offsets, Native.checkPacked(data, offsets), results);
    }

    private void containsPacked0(byte[] data, int[] offsets, int count, boolean[] results) {
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

    // ---- concurrent adds and queries ----

    /**
     * Adds a key; one of the concurrent methods (see the class documentation).
     *
     * <p>Thread safety: any number of threads may call the {@code *Concurrent} methods on this
     * filter at once; while any of them runs, no other method may be called on it. Once the adding
     * threads are done (joined), the bits and the {@code addCalls} and {@code setBits} counters
     * equal those of the same adds made one at a time; {@code inserted} depends on how the adds
     * interleaved (see the class documentation).
     *
     * @param key the key bytes
     * @return true when this call set a new bit (as {@link #add(byte[])}; when several threads add
     *     the same key at once, more than one of them may get true)
     * @throws NullPointerException when {@code key} is null
     * @throws java.nio.ReadOnlyBufferException when the filter wraps a read-only buffer
     */
    public boolean addConcurrent(byte[] key) {
        Objects.requireNonNull(key, "key");
        img.checkWritable();
        try {
            return nAddConcurrent(img.addr(), img.len, key, 0, key.length);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds a String key (its UTF-8 bytes); one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param key the key
     * @return true when this call set a new bit
     * @throws NullPointerException when {@code key} is null
     */
    public boolean addConcurrent(String key) {
        Objects.requireNonNull(key, "key");
        int n = key.length();
        if (n > Native.STR_MAX) {
            return addConcurrent(Native.utf8(key));
        }
        img.checkWritable();
        try {
            return nAddConcurrentStr(img.addr(), img.len, key, n);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds a long key (its 8 little-endian bytes); one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param key the key
     * @return true when this call set a new bit
     */
    public boolean addConcurrent(long key) {
        img.checkWritable();
        try {
            return nAddConcurrentU64(img.addr(), img.len, key);
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
    public boolean addConcurrent(char key) {
        throw Native.charKey();
    }

    /**
     * Adds the remaining bytes of a buffer as one key (the buffer's position does not move); one of
     * the concurrent methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param key the key bytes
     * @return true when this call set a new bit
     * @throws NullPointerException when {@code key} is null
     */
    public boolean addConcurrent(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        img.checkWritable();
        int pos = key.position();
        int n = key.remaining();
        try {
            if (Native.direct(key, pos, n)) {
                return nAddConcurrentBuf(img.addr(), img.len, key, pos, n);
            }
            if (key.hasArray()) {
                return nAddConcurrent(img.addr(), img.len, key.array(), key.arrayOffset() + pos, n);
            }
            byte[] copy = new byte[n];
            key.duplicate().get(copy);
            return nAddConcurrent(img.addr(), img.len, copy, 0, n);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests a key with atomic loads; one of the concurrent methods.
     *
     * <p>Thread safety: any number of threads may call the {@code *Concurrent} methods on this
     * filter at once; while any of them runs, no other method may be called on it. The answer sees
     * every concurrent add that returned before this call (on this thread, or on a thread this one
     * synchronized with since, for example by a join or a volatile variable); an add still running
     * may or may not be seen.
     *
     * @param key the key bytes
     * @return false when the key was certainly never added, true when it may have been
     * @throws NullPointerException when {@code key} is null
     */
    public boolean containsConcurrent(byte[] key) {
        Objects.requireNonNull(key, "key");
        try {
            return nContainsConcurrent(img.addr(), img.len, key, 0, key.length);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests a String key (its UTF-8 bytes) with atomic loads; one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #containsConcurrent(byte[])}.
     *
     * @param key the key
     * @return false when the key was certainly never added, true when it may have been
     * @throws NullPointerException when {@code key} is null
     */
    public boolean containsConcurrent(String key) {
        Objects.requireNonNull(key, "key");
        int n = key.length();
        if (n > Native.STR_MAX) {
            return containsConcurrent(Native.utf8(key));
        }
        try {
            return nContainsConcurrentStr(img.addr(), img.len, key, n);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests a long key (its 8 little-endian bytes) with atomic loads; one of the concurrent
     * methods.
     *
     * <p>Thread safety: as {@link #containsConcurrent(byte[])}.
     *
     * @param key the key
     * @return false when the key was certainly never added, true when it may have been
     */
    public boolean containsConcurrent(long key) {
        try {
            return nContainsConcurrentU64(img.addr(), img.len, key);
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
    public boolean containsConcurrent(char key) {
        throw Native.charKey();
    }

    /**
     * Tests the remaining bytes of a buffer as one key (the buffer's position does not move) with
     * atomic loads; one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #containsConcurrent(byte[])}.
     *
     * @param key the key bytes
     * @return false when the key was certainly never added, true when it may have been
     * @throws NullPointerException when {@code key} is null
     */
    public boolean containsConcurrent(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        int pos = key.position();
        int n = key.remaining();
        try {
            if (Native.direct(key, pos, n)) {
                return nContainsConcurrentBuf(img.addr(), img.len, key, pos, n);
            }
            if (key.hasArray()) {
                return nContainsConcurrent(img.addr(), img.len, key.array(), key.arrayOffset() + pos, n);
            }
            byte[] copy = new byte[n];
            key.duplicate().get(copy);
            return nContainsConcurrent(img.addr(), img.len, copy, 0, n);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds every key; one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param keys the keys
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAllConcurrent(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        addAllConcurrent(keys, null);
    }

    /**
     * Adds every key; {@code wasNew[i]} receives whether key i's add set a new bit (a key repeated
     * in the batch is new at most the first time; when other threads add the same key at the same
     * time, more than one of them may report it new). One of the concurrent methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param keys the keys
     * @param wasNew null, or at least {@code keys.length} slots
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAllConcurrent(byte[][] keys, boolean[] wasNew) {
        Objects.requireNonNull(keys, "keys");
        Native.checkOut(wasNew, keys.length);
        img.checkWritable();
        try {
            Native.forChunks(keys,
                    (d, o, from, n) -> nAddConcurrentPacked(img.addr(), img.len, d, o, 0, n, wasNew, from));
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds every String key (UTF-8); one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param keys the keys
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAllConcurrent(String[] keys) {
        Objects.requireNonNull(keys, "keys");
        addAllConcurrent(keys, null);
    }

    /**
     * Adds every String key (UTF-8), reporting per key whether its add set a new bit (as {@link
     * #addAllConcurrent(byte[][], boolean[])}). One of the concurrent methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param keys the keys
     * @param wasNew null, or at least {@code keys.length} slots
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAllConcurrent(String[] keys, boolean[] wasNew) {
        Objects.requireNonNull(keys, "keys");
        Native.checkOut(wasNew, keys.length);
        img.checkWritable();
        try {
            Native.forChunks(keys,
                    (d, o, from, n) -> nAddConcurrentPacked(img.addr(), img.len, d, o, 0, n, wasNew, from));
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds every long key; one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param keys the keys
     * @throws NullPointerException when {@code keys} is null
     */
    public void addAllConcurrent(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        addAllConcurrent(keys, null);
    }

    /**
     * Adds every long key, reporting per key whether its add set a new bit (as {@link
     * #addAllConcurrent(byte[][], boolean[])}). One of the concurrent methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param keys the keys
     * @param wasNew null, or at least {@code keys.length} slots
     * @throws NullPointerException when {@code keys} is null
     */
    public void addAllConcurrent(long[] keys, boolean[] wasNew) {
        Objects.requireNonNull(keys, "keys");
        Native.checkOut(wasNew, keys.length);
        img.checkWritable();
        try {
            for (int from = 0; from < keys.length; from += Native.CHUNK) {
                nAddConcurrentU64s(
                        img.addr(), img.len, keys, from, Math.min(Native.CHUNK, keys.length - from), wasNew, from);
            }
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds keys packed in the Arrow Binary layout (see {@link #addPacked}); one of the concurrent
     * methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param data the key bytes
     * @param offsets count + 1 non-decreasing offsets into {@code data}
     * @param wasNew null, or at least count slots receiving whether each key's add set a new bit
     *     (as {@link #addAllConcurrent(byte[][], boolean[])})
     * @throws NullPointerException when {@code data} or {@code offsets} is null
     * @throws IllegalArgumentException when the offsets are not count + 1 non-decreasing offsets
     *     within {@code data} (nothing is added)
     */
    public void addPackedConcurrent(byte[] data, int[] offsets, boolean[] wasNew) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        int count = Native.checkPacked(data, offsets);
        Native.checkOut(wasNew, count);
        img.checkWritable();
        try {
            for (int from = 0; from < count; from += Native.CHUNK) {
                nAddConcurrentPacked(
                        img.addr(), img.len, data, offsets, from, Math.min(Native.CHUNK, count - from), wasNew, from);
            }
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests every key with atomic loads; one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #containsConcurrent(byte[])}.
     *
     * @param keys the keys
     * @return per key: false when certainly never added
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public boolean[] containsAllConcurrent(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        boolean[] out = new boolean[keys.length];
        try {
            Native.forChunks(keys,
                    (d, o, from, n) -> nContainsConcurrentPacked(img.addr(), img.len, d, o, 0, n, out, from));
        } finally {
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * Tests every String key (UTF-8) with atomic loads; one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #containsConcurrent(byte[])}.
     *
     * @param keys the keys
     * @return per key: false when certainly never added
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public boolean[] containsAllConcurrent(String[] keys) {
        Objects.requireNonNull(keys, "keys");
        boolean[] out = new boolean[keys.length];
        try {
            Native.forChunks(keys,
                    (d, o, from, n) -> nContainsConcurrentPacked(img.addr(), img.len, d, o, 0, n, out, from));
        } finally {
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * Tests every long key with atomic loads; one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #containsConcurrent(byte[])}.
     *
     * @param keys the keys
     * @return per key: false when certainly never added
     * @throws NullPointerException when {@code keys} is null
     */
    public boolean[] containsAllConcurrent(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        boolean[] out = new boolean[keys.length];
        containsAllConcurrent(keys, out);
        return out;
    }

    /**
     * Tests every long key with atomic loads into a caller's array (no allocation); one of the
     * concurrent methods.
     *
     * <p>Thread safety: as {@link #containsConcurrent(byte[])}.
     *
     * @param keys the keys
     * @param results at least {@code keys.length} slots; slot i receives key i's answer
     * @throws NullPointerException when {@code keys} or {@code results} is null
     */
    public void containsAllConcurrent(long[] keys, boolean[] results) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(results, "results");
        Native.checkOut(results, keys.length);
        try {
            for (int from = 0; from < keys.length; from += Native.CHUNK) {
                nContainsConcurrentU64s(
                        img.addr(), img.len, keys, from, Math.min(Native.CHUNK, keys.length - from), results, from);
            }
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests keys packed in the Arrow Binary layout (see {@link #addPacked}) with atomic loads into
     * a caller's array; one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #containsConcurrent(byte[])}.
     *
     * @param data the key bytes
     * @param offsets count + 1 non-decreasing offsets into {@code data}
     * @param results at least count slots; slot i receives key i's answer
     * @throws NullPointerException when {@code data}, {@code offsets} or {@code results} is null
     * @throws IllegalArgumentException when the offsets are invalid
     */
    public void containsPackedConcurrent(byte[] data, int[] offsets, boolean[] results) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        Objects.requireNonNull(results, "results");
        int count = Native.checkPacked(data, offsets);
        Native.checkOut(results, count);
        try {
            for (int from = 0; from < count; from += Native.CHUNK) {
                nContainsConcurrentPacked(
                        img.addr(), img.len, data, offsets, from, Math.min(Native.CHUNK, count - from), results, from);
            }
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    // ---- combining, statistics, image ----

    /**
     * Union: afterwards this filter holds both filters' keys ({@code this |= other}).
     *
     * @param other a filter with equal bits, probes and seed
     * @throws NullPointerException when {@code other} is null
     * @throws SketchException {@link Status#INCOMPATIBLE} when the parameters differ (nothing
     *     changes); {@code other} may be this filter itself (a copy of it
     *     is merged, as an equal filter would be)
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch or
     *     {@code other} meanwhile (against the thread-safety rules; see the class notes)
     */
    public void merge(BloomFilter other) {
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
            nUnion(img.addr(), img.len, src.addr(), src.len);
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
     * Intersection: {@code this &= other} (may answer true for keys in only one of the two, at
     * about the rate of the union).
     *
     * @param other a filter with equal bits, probes and seed
     * @throws NullPointerException when {@code other} is null
     * @throws SketchException {@link Status#INCOMPATIBLE} when the parameters differ
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch or
     *     {@code other} meanwhile (against the thread-safety rules; see the class notes)
     */
    public void intersect(BloomFilter other) {
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
            nIntersect(img.addr(), img.len, src.addr(), src.len);
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

    /** Removes every key (parameters and seed stay). */
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
     * The over-capacity signal, O(1): {@link Sketches#CAPACITY_OVER_PLANNED_ITEMS} and {@link
     * Sketches#CAPACITY_FPR_ABOVE_TWICE_PLANNED} bits, 0 while the filter is within its plan.
     * Cheap enough to call after every batch.
     *
     * @return the capacity flags
     */
    public int capacityFlags() {
        try {
            return nCapacity(img.addr(), img.len);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Whether the filter is past its plan ({@link #capacityFlags()} is not 0), O(1).
     *
     * @return true when more items arrived than planned or the rate is above twice the plan
     */
    public boolean isOverCapacity() {
        return capacityFlags() != 0;
    }

    /**
     * {@link #capacityFlags()} read with atomic loads; one of the concurrent methods: any number of
     * threads may call it while others add through the concurrent methods, so a service can watch
     * for "planned for 100k, got 1M" and rotate the filter without stopping its writers. Same cost
     * as {@code capacityFlags()}. Exact once the adding threads are done; while they run, each
     * counter reads as a value it passed through, so a flag can show an add or two late.
     *
     * <p>Thread safety: as {@link #containsConcurrent(byte[])}.
     *
     * @return the capacity flags
     * @throws SketchException {@link Status#MISALIGNED} for a wrapped buffer whose address is not a
     *     multiple of 8 (as every concurrent method)
     */
    public int capacityFlagsConcurrent() {
        try {
            return nCapacityConcurrent(img.addr(), img.len);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * {@link #isOverCapacity()} read with atomic loads ({@link #capacityFlagsConcurrent()} is not
     * 0); one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #containsConcurrent(byte[])}.
     *
     * @return true when more items arrived than planned or the rate is above twice the plan
     */
    public boolean isOverCapacityConcurrent() {
        return capacityFlagsConcurrent() != 0;
    }

    /**
     * Every statistic, O(1).
     *
     * @return the statistics
     */
    public Stats stats() {
        long[] l = new long[8];
        double[] d = new double[4];
        try {
            nStats(img.addr(), img.len, l, d);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new Stats(l[0], (int) l[1], l[2], d[0], l[3], l[4], l[5], l[6], d[1], d[2], d[3], (int) l[7]);
    }

    /**
     * Statistics of a Bloom filter.
     *
     * @param bits number of bits m
     * @param hashes probes per key k
     * @param plannedItems items the filter was planned for
     * @param plannedFpr false-positive rate planned at that count
     * @param seed hash seed
     * @param addCalls add calls, duplicates included
     * @param inserted add calls that set at least one new bit (about the distinct items)
     * @param setBits bits set
     * @param fill fraction of bits set, 0..1
     * @param estimatedItems distinct items estimated from the set bits (infinity when all are set)
     * @param estimatedFpr current false-positive rate estimated from the set bits
     * @param capacityFlags {@code CAPACITY_*} bits, 0 while within the plan
     */
    public record Stats(long bits, int hashes, long plannedItems, double plannedFpr, long seed, long addCalls,
            long inserted, long setBits, double fill, double estimatedItems, double estimatedFpr, int capacityFlags) {}

    /**
     * Exports the image with its checksum: the bytes every binding reads back.
     *
     * @return a new array of {@link #imageBytes()} bytes
     * @throws java.util.ConcurrentModificationException when a change of this sketch ran during the
     *     export (against the thread-safety rules; nothing is returned)
     */
    public byte[] toByteArray() {
        return Native.exported(img, img.len, BloomFilter::nExport);
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
     * bytes follow), never a torn image under a valid checksum. Concurrent adds ({@code
     * *Concurrent}) take no guard and are not seen while it runs: one landing in a part not yet
     * written makes the written image fail its checksum (CHECKSUM_MISMATCH when read), so after the
     * last byte the checksum is taken again and, when it moved, the write throws
     * ConcurrentModificationException (the output may still be valid, if the adds landed only in
     * parts already written); while concurrent adds run, use {@code toByteArray}, which copies the
     * image in one pass.
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
        return ImageStream.write(img, Sketches.FAMILY_BLOOM, this::toByteArray, out);
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
    public static BloomFilter readFrom(InputStream in) throws IOException {
        byte[] image = ImageStream.read(in, Sketches.FAMILY_BLOOM, "BloomFilter.readFrom");
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

    /** The image (for tests of its token). */
    Native.Image img() {
        return img;
    }

    @Override
    public String toString() {
        return "BloomFilter[" + img.size() + "]";
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
        return new SerializedSketch(Sketches.FAMILY_BLOOM, toByteArray());
    }

    /**
     * Refuses a stream naming this class instead of the proxy (made by hand to skip the import).
     *
     * @param in the stream (not read)
     * @throws InvalidObjectException always
     */
    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw Native.proxyRequired("BloomFilter");
    }

    // ---- natives (bloom.c) ----

    private static native void nPlan(long items, double fpr, long[] out);

    private static native void nPlanBits(long bits, int hashes, long[] out);

    private static native void nInit(long buf, long len, long bits, int hashes, long items, double fpr, long seed);

    private static native boolean nAdd(long buf, long len, long tok, byte[] key, int off, int klen);

    private static native boolean nAddBuf(long buf, long len, long tok, ByteBuffer key, int pos, int klen);

    private static native boolean nAddU64(long buf, long len, long tok, long key);

    private static native boolean nAddStr(long buf, long len, long tok, String key, int n);

    private static native boolean nContainsStr(long buf, long len, long tok, String key, int n);

    private static native boolean nContains(long buf, long len, long tok, byte[] key, int off, int klen);

    private static native boolean nContainsBuf(long buf, long len, long tok, ByteBuffer key, int pos, int klen);

    private static native boolean nContainsU64(long buf, long len, long tok, long key);

    private static native void nAddPacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count, boolean[] out, int outFrom);

    private static native void nAddU64s(long buf, long len, long[] keys, int from, int count, boolean[] out, int outFrom);

    private static native void nContainsPacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count, boolean[] out, int outFrom);

    private static native void nContainsU64s(
            long buf, long len, long[] keys, int from, int count, boolean[] out, int outFrom);

    private static native boolean nAddConcurrent(long buf, long len, byte[] key, int off, int klen);

    private static native boolean nAddConcurrentBuf(long buf, long len, ByteBuffer key, int pos, int klen);

    private static native boolean nAddConcurrentU64(long buf, long len, long key);

    private static native boolean nAddConcurrentStr(long buf, long len, String key, int n);

    private static native boolean nContainsConcurrent(long buf, long len, byte[] key, int off, int klen);

    private static native boolean nContainsConcurrentBuf(long buf, long len, ByteBuffer key, int pos, int klen);

    private static native boolean nContainsConcurrentU64(long buf, long len, long key);

    private static native boolean nContainsConcurrentStr(long buf, long len, String key, int n);

    private static native void nAddConcurrentPacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count, boolean[] out, int outFrom);

    private static native void nAddConcurrentU64s(
            long buf, long len, long[] keys, int from, int count, boolean[] out, int outFrom);

    private static native void nContainsConcurrentPacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count, boolean[] out, int outFrom);

    private static native void nContainsConcurrentU64s(
            long buf, long len, long[] keys, int from, int count, boolean[] out, int outFrom);

    private static native void nUnion(long dst, long dstLen, long src, long srcLen);

    private static native void nIntersect(long dst, long dstLen, long src, long srcLen);

    private static native void nClear(long buf, long len);

    private static native int nCapacity(long buf, long len);

    private static native int nCapacityConcurrent(long buf, long len);

    private static native void nStats(long buf, long len, long[] l, double[] d);

    private static native int nExport(long buf, long len, byte[] out);

    private static native long nImportSize(byte[] src);

    private static native void nImport(byte[] src, long dst, long dstLen);

    private static native void nVerifyAt(long buf, long len);

    private static native boolean nToken(long buf, long len, long token);
}
