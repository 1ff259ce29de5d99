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
 * A cuckoo filter ({@code sketch_cuckoo_*}): buckets of 4 fingerprints of 8, 12 or 16 bits
 * chosen from the target rate, any bucket count, loads of 95% and more. Keys can be removed and
 * counted. An insert that cannot place a key within 500 relocations reports it ({@link
 * #add(byte[])} returns false) and loses nothing already stored: the image is byte-identical to
 * before. Merge inserts every fingerprint of the other filter, all or nothing.
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
 * same keys. Batches ({@code addAll}, {@code containsAll}, {@code removeAll}, {@code *Packed})
 * cross into native code once per 16,384 keys.
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
 * <p>Thread safety: queries ({@code contains*}, {@code count}, {@code stats}, {@code
 * capacityFlags}, {@code isOverCapacity}, {@code toByteArray}, {@code writeTo}, {@code imageBytes}, {@code image})
 * may run concurrently from any number of threads; a call that changes the filter ({@code add*},
 * {@code remove*}, {@code merge}, {@code clear}) needs exclusive access (no concurrent query or
 * change of the same filter).
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
 * documentation}). An export ({@code toByteArray}, Java serialization) that overlaps a change
 * throws ConcurrentModificationException too, rather than return an image mixing bytes from before
 * and after the change under a valid checksum. Other queries that overlap a change are not
 * detected: they may answer from a half-made change. Native code reads and writes only within the
 * image, so no such race crashes the JVM.
 */
public final class CuckooFilter implements Serializable {
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
    private CuckooFilter() {
        this.img = Native.Image.detached("CuckooFilter");
    }

    private CuckooFilter(Native.Image img) {
        this.img = img;
    }

    /**
     * A filter planned for {@code expectedItems} items at false-positive rate {@code fpr}, seed 0.
     *
     * @param expectedItems items the filter is planned for (at least 1)
     * @param fpr false-positive rate at full load, in (0, 1)
     * @return an empty filter
     * @throws IllegalArgumentException when a parameter is out of range or the filter would not
     *     fit in one ByteBuffer (2 GiB)
     */
    public static CuckooFilter create(long expectedItems, double fpr) {
        return create(expectedItems, fpr, 0);
    }

    /**
     * A filter planned for {@code expectedItems} items at rate {@code fpr}: the fingerprint width
     * (8, 12 or 16 bits) from the rate, the bucket count from the items (about 95% load at the plan).
     *
     * @param expectedItems items the filter is planned for (at least 1)
     * @param fpr false-positive rate at full load, in (0, 1)
     * @param seed hash seed (filters merge only with the same seed)
     * @return an empty filter
     * @throws IllegalArgumentException when a parameter is out of range or the filter would not
     *     fit in one ByteBuffer (2 GiB)
     */
    public static CuckooFilter create(long expectedItems, double fpr, long seed) {
        return init(plan(expectedItems, fpr), seed);
    }

    /**
     * The image size in bytes of {@link #create(long, double, long)}'s filter (a multiple of 64), without
     * allocating it: for checking a memory budget first. Any size the library plans is returned,
     * also one above the 2 GiB one ByteBuffer holds (which the factory refuses).
     *
     * @param expectedItems items the filter is planned for (at least 1)
     * @param fpr false-positive rate, in (0, 1)
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
            nPlan(expectedItems, fpr, 0, false, plan);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
        return plan;
    }

    /**
     * A filter of exactly {@code buckets} buckets of 4 fingerprints of {@code fingerprintBits} bits.
     *
     * @param buckets number of buckets (at least 1)
     * @param fingerprintBits 8, 12 or 16
     * @param seed hash seed
     * @return an empty filter
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static CuckooFilter withBuckets(long buckets, int fingerprintBits, long seed) {
        return init(planBuckets(buckets, fingerprintBits), seed);
    }

    /**
     * The image size in bytes of {@link #withBuckets(long, int, long)}'s filter, without
     * allocating it (as {@link #imageBytes(long, double)}).
     *
     * @param buckets number of buckets (at least 1)
     * @param fingerprintBits 8, 12 or 16
     * @return the size in bytes
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static long imageBytesWithBuckets(long buckets, int fingerprintBits) {
        return planBuckets(buckets, fingerprintBits)[4];
    }

    private static long[] planBuckets(long buckets, int fingerprintBits) {
        if (buckets < 1 || (fingerprintBits != 8 && fingerprintBits != 12 && fingerprintBits != 16)) {
            throw new IllegalArgumentException(
                    "buckets must be positive and fingerprintBits 8, 12 or 16: " + buckets + ", " + fingerprintBits);
        }
        long[] plan = new long[5];
        try {
            nPlan(buckets, 0, fingerprintBits, true, plan);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
        return plan;
    }

    private static CuckooFilter init(long[] plan, long seed) {
        Native.Image img = Native.fresh(plan[4]);
        try {
            nInit(img.addr(), img.len, plan[0], (int) plan[1], plan[2], Double.longBitsToDouble(plan[3]), seed);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new CuckooFilter(img);
    }

    /**
     * Reads an exported image (untrusted bytes: headers, exact length and checksum are checked)
     * into a new filter.
     *
     * @param bytes the bytes {@link #toByteArray()} (or any binding's export) produced
     * @return the filter
     * @throws NullPointerException when {@code bytes} is null
     * @throws SketchException when the bytes are damaged or not a cuckoo filter ({@link
     *     Status#CHECKSUM_MISMATCH}, {@link Status#LENGTH_MISMATCH}, {@link Status#WRONG_FAMILY},
     *     {@link Status#BAD_MAGIC}, ...); nothing is kept
     */
    public static CuckooFilter fromByteArray(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        return new CuckooFilter(Native.imported(bytes, CuckooFilter::nImportSize, CuckooFilter::nImport));
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
     * @throws SketchException when the headers are not those of a cuckoo filter of that length
     */
    public static CuckooFilter wrap(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new CuckooFilter(Native.wrapped(buffer, CuckooFilter::nCapacity));
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
     * @throws SketchException when the bytes are damaged or not a cuckoo filter
     */
    public static CuckooFilter wrapVerified(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new CuckooFilter(Native.wrapped(buffer, CuckooFilter::nVerifyAt));
    }

    // ---- single keys ----

    /**
     * Adds a key.
     *
     * @param key the key bytes
     * @return true when stored, false when the filter is full (no room within 500 relocations;
     *     nothing changed)
     * @throws NullPointerException when {@code key} is null
     * @throws java.nio.ReadOnlyBufferException when the filter wraps a read-only buffer
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
     * @return true when stored, false when the filter is full (nothing changed)
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
     * @return true when stored, false when the filter is full (nothing changed)
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
     * @return true when stored, false when the filter is full (nothing changed)
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
            return nContains(img.addr(), img.len, key, 0, key.length);
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
            return nContainsStr(img.addr(), img.len, key, n);
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
     * @return false when the key was certainly never added, true when it may have been
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

    /**
     * Removes one copy of a key's fingerprint. Only remove keys that were added: removing a false
     * positive deletes another key's fingerprint.
     *
     * @param key the key bytes
     * @return true when removed, false when the fingerprint is not stored (nothing changed)
     * @throws NullPointerException when {@code key} is null
     */
    public boolean remove(byte[] key) {
        Objects.requireNonNull(key, "key");
        img.checkWritable();
        img.beginChange();
        try {
            return nRemove(img.addr(), img.len, key, 0, key.length);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Removes a String key (its UTF-8 bytes).
     *
     * @param key the key
     * @return true when removed, false when certainly absent (nothing changed)
     * @throws NullPointerException when {@code key} is null
     */
    public boolean remove(String key) {
        Objects.requireNonNull(key, "key");
        int n = key.length();
        if (n > Native.STR_MAX) {
            return remove(Native.utf8(key));
        }
        img.checkWritable();
        img.beginChange();
        try {
            return nRemoveStr(img.addr(), img.len, key, n);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Removes a long key (its 8 little-endian bytes).
     *
     * @param key the key
     * @return true when removed, false when certainly absent (nothing changed)
     */
    public boolean remove(long key) {
        img.checkWritable();
        img.beginChange();
        try {
            return nRemoveU64(img.addr(), img.len, key);
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
    public boolean remove(char key) {
        throw Native.charKey();
    }

    /**
     * Removes the remaining bytes of a buffer as one key (the buffer's position does not move).
     *
     * @param key the key bytes
     * @return true when removed, false when certainly absent (nothing changed)
     * @throws NullPointerException when {@code key} is null
     */
    public boolean remove(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        img.checkWritable();
        int pos = key.position();
        int n = key.remaining();
        img.beginChange();
        try {
            if (Native.direct(key, pos, n)) {
                return nRemoveBuf(img.addr(), img.len, key, pos, n);
            }
            if (key.hasArray()) {
                return nRemove(img.addr(), img.len, key.array(), key.arrayOffset() + pos, n);
            }
            byte[] copy = new byte[n];
            key.duplicate().get(copy);
            return nRemove(img.addr(), img.len, copy, 0, n);
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
     * @return how many were stored (fewer than {@code keys.length} only when the filter filled up)
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public int addAll(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        return addAllChunked(keys, null);
    }

    /**
     * Adds every key; {@code added[i]} receives false for a key that did not fit (nothing changed
     * for it).
     *
     * @param keys the keys
     * @param added null, or at least {@code keys.length} slots
     * @return how many were stored
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public int addAll(byte[][] keys, boolean[] added) {
        Objects.requireNonNull(keys, "keys");
        return addAllChunked(keys, added);
    }

    /**
     * Adds every String key (UTF-8).
     *
     * @param keys the keys
     * @return how many were stored
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public int addAll(String[] keys) {
        Objects.requireNonNull(keys, "keys");
        return addAllChunked(keys, null);
    }

    /**
     * Adds every String key (UTF-8), reporting per key whether it was stored.
     *
     * @param keys the keys
     * @param added null, or at least {@code keys.length} slots
     * @return how many were stored
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public int addAll(String[] keys, boolean[] added) {
        Objects.requireNonNull(keys, "keys");
        return addAllChunked(keys, added);
    }

    /**
     * Adds every long key.
     *
     * @param keys the keys
     * @return how many were stored
     * @throws NullPointerException when {@code keys} is null
     */
    public int addAll(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        return addAll(keys, null);
    }

    /**
     * Adds every long key, reporting per key whether it was stored.
     *
     * @param keys the keys
     * @param added null, or at least {@code keys.length} slots
     * @return how many were stored
     * @throws NullPointerException when {@code keys} is null
     */
    public int addAll(long[] keys, boolean[] added) {
        Objects.requireNonNull(keys, "keys");
        Native.checkOut(added, keys.length);
        img.checkWritable();
        boolean[] out = added != null ? added : new boolean[Math.min(keys.length, Native.CHUNK)];
        int stored = 0;
        img.beginChange();
        try {
            for (int from = 0; from < keys.length; from += Native.CHUNK) {
                int n = Math.min(Native.CHUNK, keys.length - from);
                int at = added != null ? from : 0;
                nAddU64s(img.addr(), img.len, keys, from, n, out, at);
                stored += count(out, at, n);
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
        return stored;
    }

    /**
     * Adds keys packed in the Arrow Binary layout: key i is {@code data[offsets[i] ..
     * offsets[i + 1])}.
     *
     * @param data the key bytes
     * @param offsets count + 1 non-decreasing offsets into {@code data}
     * @param added null, or at least count slots receiving whether each key was stored
     * @return how many were stored
     * @throws NullPointerException when {@code data} or {@code offsets} is null
     * @throws IllegalArgumentException when the offsets are not count + 1 non-decreasing
     *     offsets within {@code data} (nothing is added)
     */
    public int addPacked(byte[] data, int[] offsets, boolean[] added) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        return addPacked0(data, offsets, Native.checkPacked(data, offsets), added);
    }

    private int addPacked0(byte[] data, int[] offsets, int count, boolean[] added) {
        Native.checkOut(added, count);
        img.checkWritable();
        boolean[] out = added != null ? added : new boolean[Math.min(count, Native.CHUNK)];
        int stored = 0;
        img.beginChange();
        try {
            for (int from = 0; from < count; from += Native.CHUNK) {
                int n = Math.min(Native.CHUNK, count - from);
                int at = added != null ? from : 0;
                nAddPacked(img.addr(), img.len, data, offsets, from, n, out, at);
                stored += count(out, at, n);
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
        return stored;
    }

    private int addAllChunked(Object keys, boolean[] added) {
        int count = keys instanceof String[] s ? s.length : ((byte[][]) keys).length;
        Native.checkOut(added, count);
        img.checkWritable();
        boolean[] out = added != null ? added : new boolean[count];
        Native.PackedCall call = (d, o, from, n) -> nAddPacked(img.addr(), img.len, d, o, 0, n, out, from);
        img.beginChange();
        try {
            if (keys instanceof String[] s) {
                Native.forChunks(s, call);
            } else {
                Native.forChunks((byte[][]) keys, call);
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
        return count(out, 0, count);
    }

    private static int count(boolean[] flags, int from, int n) {
        int c = 0;
        for (int i = from; i < from + n; i++) {
            if (flags[i]) {
                c++;
            }
        }
        return c;
    }

    /**
     * Tests every key.
     *
     * @param keys the keys
     * @return per key: false when certainly not present
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

    /**
     * Removes one stored copy of every key's fingerprint (as {@link #remove(byte[])} per key; a
     * key with no stored copy changes nothing and the batch goes on). Only remove keys that were
     * added.
     *
     * @param keys the keys
     * @return per key whether it was removed
     * @throws NullPointerException when {@code keys} or one of its keys is null
     * @throws java.nio.ReadOnlyBufferException when the filter wraps a read-only buffer
     */
    public boolean[] removeAll(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        img.checkWritable();
        boolean[] out = new boolean[keys.length];
        img.beginChange();
        try {
            Native.forChunks(keys, (d, o, from, n) -> nRemovePacked(img.addr(), img.len, d, o, 0, n, out, from));
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * Removes every String key (UTF-8).
     *
     * @param keys the keys
     * @return per key whether it was removed
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public boolean[] removeAll(String[] keys) {
        Objects.requireNonNull(keys, "keys");
        img.checkWritable();
        boolean[] out = new boolean[keys.length];
        img.beginChange();
        try {
            Native.forChunks(keys, (d, o, from, n) -> nRemovePacked(img.addr(), img.len, d, o, 0, n, out, from));
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * Removes every long key.
     *
     * @param keys the keys
     * @return per key whether it was removed
     * @throws NullPointerException when {@code keys} is null
     */
    public boolean[] removeAll(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        img.checkWritable();
        boolean[] out = new boolean[keys.length];
        img.beginChange();
        try {
            for (int from = 0; from < keys.length; from += Native.CHUNK) {
                nRemoveU64s(img.addr(), img.len, keys, from, Math.min(Native.CHUNK, keys.length - from), out, from);
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * Removes keys packed in the Arrow Binary layout (see {@link #addPacked}).
     *
     * @param data the key bytes
     * @param offsets count + 1 non-decreasing offsets into {@code data}
     * @return per key whether it was removed
     * @throws NullPointerException when {@code data} or {@code offsets} is null
     * @throws IllegalArgumentException when the offsets are invalid (nothing is removed)
     */
    public boolean[] removePacked(byte[] data, int[] offsets) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        return removePacked0(data, offsets, Native.checkPacked(data, offsets));
    }

    private boolean[] removePacked0(byte[] data, int[] offsets, int count) {
        img.checkWritable();
        boolean[] out = new boolean[count];
        img.beginChange();
        try {
            for (int from = 0; from < count; from += Native.CHUNK) {
                nRemovePacked(img.addr(), img.len, data, offsets, from, Math.min(Native.CHUNK, count - from), out, from);
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * How many copies of a key's fingerprint are stored (0 to 8; a false positive counts the
     * fingerprint of another key).
     *
     * @param key the key bytes
     * @return the count
     * @throws NullPointerException when {@code key} is null
     */
    public int count(byte[] key) {
        Objects.requireNonNull(key, "key");
        try {
            return nCount(img.addr(), img.len, key, 0, key.length);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * How many copies of a String key's fingerprint are stored (UTF-8).
     *
     * @param key the key
     * @return the count
     * @throws NullPointerException when {@code key} is null
     */
    public int count(String key) {
        Objects.requireNonNull(key, "key");
        return count(Native.utf8(key));
    }

    /**
     * How many copies of a long key's fingerprint are stored (its 8 little-endian bytes).
     *
     * @param key the key
     * @return the count
     */
    public int count(long key) {
        try {
            return nCountU64(img.addr(), img.len, key);
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
    public int count(char key) {
        throw Native.charKey();
    }

    /**
     * How many copies of the fingerprint of a buffer's remaining bytes are stored (position
     * unchanged).
     *
     * @param key the key bytes
     * @return the count
     * @throws NullPointerException when {@code key} is null
     */
    public int count(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        int pos = key.position();
        int n = key.remaining();
        try {
            if (key.hasArray()) {
                return nCount(img.addr(), img.len, key.array(), key.arrayOffset() + pos, n);
            }
            byte[] copy = new byte[n];
            key.duplicate().get(copy);
            return nCount(img.addr(), img.len, copy, 0, n);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    // ---- combining, statistics, image ----

    /**
     * Merge: inserts every fingerprint of {@code other} into this filter, all or nothing (a
     * temporary buffer of this filter's size is the workspace).
     *
     * @param other a filter with equal buckets, fingerprint width and seed
     * @throws NullPointerException when {@code other} is null
     * @throws SketchException {@link Status#FULL} when not everything fits (nothing changes),
     *     {@link Status#INCOMPATIBLE} when the parameters differ; {@code other} may be this
     *     filter itself (a copy of it is merged, as an equal filter would be: every fingerprint
     *     twice)
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch or
     *     {@code other} meanwhile (against the thread-safety rules; see the class notes)
     */
    public void merge(CuckooFilter other) {
        Objects.requireNonNull(other, "other");
        img.checkWritable();
        Native.Image scratch = Native.fresh(img.len);
        // The source is only read: a change of it meanwhile (another thread's) is refused.
        int otherChanges = other.img.beginWholeRead();
        Native.Image src = other.img.mergeSourceFor(img);
        if (src != other.img) {
            other.img.endSourceRead(otherChanges, null); // a private copy, read whole already
        }
        img.beginChange();
        try {
            nMerge(img.addr(), img.len, src.addr(), src.len, scratch.addr(), scratch.len);
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
            Reference.reachabilityFence(scratch);
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
     * Every statistic, O(1).
     *
     * @return the statistics
     */
    public Stats stats() {
        long[] l = new long[6];
        double[] d = new double[3];
        try {
            nStats(img.addr(), img.len, l, d);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new Stats(l[0], (int) l[1], l[2], d[0], l[3], l[4], d[1], d[2], (int) l[5]);
    }

    /**
     * Statistics of a cuckoo filter.
     *
     * @param buckets number of 4-slot buckets
     * @param fingerprintBits fingerprint width: 8, 12 or 16
     * @param plannedItems items the filter was planned for
     * @param plannedFpr false-positive rate planned at full load
     * @param seed hash seed
     * @param items stored fingerprints
     * @param load items / (buckets * 4)
     * @param estimatedFpr false-positive rate bound at this load
     * @param capacityFlags {@code CAPACITY_*} bits, 0 while within the plan
     */
    public record Stats(long buckets, int fingerprintBits, long plannedItems, double plannedFpr, long seed,
            long items, double load, double estimatedFpr, int capacityFlags) {}

    /**
     * Exports the image with its checksum: the bytes every binding reads back.
     *
     * @return a new array of {@link #imageBytes()} bytes
     * @throws java.util.ConcurrentModificationException when a change of this sketch ran during the
     *     export (against the thread-safety rules; nothing is returned)
     */
    public byte[] toByteArray() {
        return Native.exported(img, img.len, CuckooFilter::nExport);
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
        return ImageStream.write(img, Sketches.FAMILY_CUCKOO, this::toByteArray, out);
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
    public static CuckooFilter readFrom(InputStream in) throws IOException {
        byte[] image = ImageStream.read(in, Sketches.FAMILY_CUCKOO, "CuckooFilter.readFrom");
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
        return "CuckooFilter[" + img.size() + "]";
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
        return new SerializedSketch(Sketches.FAMILY_CUCKOO, toByteArray());
    }

    /**
     * Refuses a stream naming this class instead of the proxy (made by hand to skip the import).
     *
     * @param in the stream (not read)
     * @throws InvalidObjectException always
     */
    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw Native.proxyRequired("CuckooFilter");
    }

    // ---- natives (cuckoo.c) ----

    private static native void nPlan(long items, double fpr, int fingerprintBits, boolean explicitSize, long[] out);

    private static native void nInit(
            long buf, long len, long buckets, int fingerprintBits, long items, double fpr, long seed);

    private static native int nCount(long buf, long len, byte[] key, int off, int klen);

    private static native int nCountU64(long buf, long len, long key);

    private static native boolean nRemove(long buf, long len, byte[] key, int off, int klen);

    private static native boolean nRemoveBuf(long buf, long len, ByteBuffer key, int pos, int klen);

    private static native boolean nRemoveU64(long buf, long len, long key);

    private static native void nRemovePacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count, boolean[] out, int outFrom);

    private static native void nRemoveU64s(
            long buf, long len, long[] keys, int from, int count, boolean[] out, int outFrom);

    private static native boolean nAdd(long buf, long len, byte[] key, int off, int klen);

    private static native boolean nAddBuf(long buf, long len, ByteBuffer key, int pos, int klen);

    private static native boolean nAddU64(long buf, long len, long key);

    private static native boolean nAddStr(long buf, long len, String key, int n);

    private static native boolean nContainsStr(long buf, long len, String key, int n);

    private static native boolean nRemoveStr(long buf, long len, String key, int n);

    private static native boolean nContains(long buf, long len, byte[] key, int off, int klen);

    private static native boolean nContainsBuf(long buf, long len, ByteBuffer key, int pos, int klen);

    private static native boolean nContainsU64(long buf, long len, long key);

    private static native void nAddPacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count, boolean[] out, int outFrom);

    private static native void nAddU64s(long buf, long len, long[] keys, int from, int count, boolean[] out, int outFrom);

    private static native void nContainsPacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count, boolean[] out, int outFrom);

    private static native void nContainsU64s(
            long buf, long len, long[] keys, int from, int count, boolean[] out, int outFrom);

    private static native void nMerge(long dst, long dstLen, long src, long srcLen, long scratch, long scratchLen);

    private static native void nClear(long buf, long len);

    private static native int nCapacity(long buf, long len);

    private static native void nStats(long buf, long len, long[] l, double[] d);

    private static native int nExport(long buf, long len, byte[] out);

    private static native long nImportSize(byte[] src);

    private static native void nImport(byte[] src, long dst, long dstLen);

    private static native void nVerifyAt(long buf, long len);
}
