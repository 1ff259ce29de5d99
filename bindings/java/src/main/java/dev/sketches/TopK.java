package dev.sketches;

import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Heavy hitters by Space-Saving ({@code sketch_topk_*}): {@code capacity} counters, keys stored
 * inline up to a maximum length fixed at creation (a longer key is refused with {@link
 * Status#KEY_TOO_LONG}, never truncated). Every key whose true count exceeds N / capacity (N the
 * total weight) is listed, and every listed count overestimates by at most its reported error
 * (at most N / capacity); merging keeps both guarantees.
 *
 * <p>The sketch lives in one 64-byte-aligned direct {@link ByteBuffer} (its image) that this
 * object owns: there is no native memory to free. {@link #toByteArray()} exports it with a
 * checksum; {@link #fromByteArray(byte[])} reads untrusted bytes back (every counter, index slot
 * and heap entry is checked); {@link #wrap(ByteBuffer)} and {@link #wrapVerified(ByteBuffer)} use
 * a caller's buffer without copying.
 *
 * <p>Keys: {@code byte[]} as they are, {@code String} as UTF-8, {@code long} as its 8
 * little-endian bytes (stored and listed as those 8 bytes), {@code ByteBuffer} as its remaining
 * bytes. Weights are non-negative longs.
 *
 * <p>Counts, errors and the total are unsigned 64-bit values that saturate at 2^64 - 1 instead of
 * wrapping (as in C); past {@link Long#MAX_VALUE} a {@code long} shows them negative: read them
 * with {@link Long#toUnsignedString(long)} or {@link Long#compareUnsigned(long, long)} when the
 * weights can add up that far.
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
 * <p>Thread safety: queries ({@code estimate}, {@code top}, {@code stats}, {@code toByteArray}, {@code writeTo},
 * {@code imageBytes}, {@code image}) may run concurrently; {@code add*}, {@code merge} and {@code
 * clear} need exclusive access.
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
public final class TopK implements Serializable {
    static {
        Native.load();
    }

    // transient: Java serialization writes the proxy; Kryo's field copier must skip native memory.
    private final transient Native.Image img;
    /**
     * The longest key the image stores, read once from it (keys are checked against it first).
     * Never in a stream (the proxy is written); not transient so that a Kryo field copy keeps it.
     */
    private final int maxKeyLength;

    /**
     * A sketch without an image, made only by a framework that instantiates a class through its
     * no-argument constructor and copies its fields (Kryo without the sketch classes registered
     * with its JavaSerializer): every use throws IllegalStateException saying so ({@link
     * Native.Image#detached}).
     */
    private TopK() {
        this.img = Native.Image.detached("TopK");
        this.maxKeyLength = Integer.MAX_VALUE; // no key check before the image's (which throws)
    }

    private TopK(Native.Image img) {
        this.img = img;
        this.maxKeyLength = stats().maxKeyLength();
    }

    /**
     * An empty sketch of {@code capacity} counters holding keys of up to {@code maxKeyLength}
     * bytes, seed 0.
     *
     * @param capacity counters, 1 to 2^20
     * @param maxKeyLength longest key in bytes, 1 to 4096
     * @return an empty sketch
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static TopK create(int capacity, int maxKeyLength) {
        return create(capacity, maxKeyLength, 0);
    }

    /**
     * An empty sketch of {@code capacity} counters holding keys of up to {@code maxKeyLength}
     * bytes, hashing with {@code seed}.
     *
     * @param capacity counters, 1 to 2^20
     * @param maxKeyLength longest key in bytes, 1 to 4096
     * @param seed hash seed (sketches merge only with the same seed)
     * @return an empty sketch
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static TopK create(int capacity, int maxKeyLength, long seed) {
        Native.Image img = Native.fresh(imageBytes(capacity, maxKeyLength));
        try {
            nInit(img.addr(), img.len, capacity, maxKeyLength, seed);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new TopK(img);
    }

    /**
     * The image size in bytes of {@link #create(int, int, long)}'s sketch (a multiple of 64),
     * without allocating it: for checking a memory budget first.
     *
     * @param capacity counters, 1 to 2^20
     * @param maxKeyLength longest key in bytes, 1 to 4096
     * @return the size in bytes
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static long imageBytes(int capacity, int maxKeyLength) {
        if (capacity < 1 || maxKeyLength < 1) {
            throw new IllegalArgumentException(
                    "capacity and maxKeyLength must be positive: " + capacity + ", " + maxKeyLength);
        }
        try {
            return nSize(capacity, maxKeyLength);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
    }

    /**
     * Reads an exported image (untrusted bytes: headers, exact length, checksum, and every
     * counter, index slot and heap entry are checked).
     *
     * @param bytes the bytes {@link #toByteArray()} (or any binding's export) produced
     * @return the sketch
     * @throws NullPointerException when {@code bytes} is null
     * @throws SketchException when the bytes are damaged or not a Top-k sketch; nothing is kept
     */
    public static TopK fromByteArray(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        return new TopK(Native.imported(bytes, TopK::nImportSize, TopK::nImport));
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
     * @throws SketchException when the headers are not those of a Top-k sketch of that length
     */
    public static TopK wrap(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new TopK(Native.wrapped(buffer, (a, n) -> nStats(a, n, new long[6])));
    }

    /**
     * As {@link #wrap(ByteBuffer)}, but first verifies the bytes as {@link #fromByteArray} does.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary holding exactly one exported image
     * @return a sketch over the buffer
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the bytes are damaged or not a Top-k sketch
     */
    public static TopK wrapVerified(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new TopK(Native.wrapped(buffer, TopK::nVerifyAt));
    }

    private static long checkWeight(long weight) {
        if (weight < 0) {
            throw new IllegalArgumentException("weights must not be negative: " + weight);
        }
        return weight;
    }

    // ---- single keys ----

    /**
     * Adds one occurrence of a key.
     *
     * @param key the key bytes
     * @throws NullPointerException when {@code key} is null
     * @throws SketchException {@link Status#KEY_TOO_LONG} when the key is longer than the
     *     maximum key length (nothing changes)
     */
    public void add(byte[] key) {
        Objects.requireNonNull(key, "key");
        add(key, 1);
    }

    /**
     * Adds {@code weight} occurrences of a key.
     *
     * @param key the key bytes
     * @param weight non-negative weight (0 changes nothing: no counter is taken, no key evicted)
     * @throws NullPointerException when {@code key} is null
     * @throws SketchException {@link Status#KEY_TOO_LONG} when the key is too long (nothing changes)
     */
    public void add(byte[] key, long weight) {
        Objects.requireNonNull(key, "key");
        img.checkWritable();
        checkWeight(weight);
        img.beginChange();
        try {
            nAdd(img.addr(), img.len, key, 0, key.length, weight);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds one occurrence of a String key (UTF-8).
     *
     * @param key the key
     * @throws NullPointerException when {@code key} is null
     * @throws SketchException {@link Status#KEY_TOO_LONG} when its UTF-8 bytes are longer than the
     *     maximum key length (nothing changes)
     */
    public void add(String key) {
        Objects.requireNonNull(key, "key");
        add(key, 1);
    }

    /**
     * Adds {@code weight} occurrences of a String key (UTF-8).
     *
     * @param key the key
     * @param weight non-negative weight (0 changes nothing: no counter is taken, no key evicted)
     * @throws NullPointerException when {@code key} is null
     * @throws IllegalArgumentException when the weight is negative
     * @throws SketchException {@link Status#KEY_TOO_LONG} when its UTF-8 bytes are longer than the
     *     maximum key length (nothing changes)
     */
    public void add(String key, long weight) {
        Objects.requireNonNull(key, "key");
        int n = key.length();
        if (n > Native.STR_MAX) {
            add(Native.utf8(key), weight);
            return;
        }
        img.checkWritable();
        checkWeight(weight);
        img.beginChange();
        try {
            nAddStr(img.addr(), img.len, key, n, weight);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds one occurrence of a long key (stored as its 8 little-endian bytes).
     *
     * @param key the key
     * @throws SketchException {@link Status#KEY_TOO_LONG} when the maximum key length is below 8
     *     (nothing changes)
     */
    public void add(long key) {
        add(key, 1);
    }

    /**
     * Refused: a {@code char} is not a key. Without this overload Java widens it to the {@code long}
     * one, so {@code 'x'} would be the integer 120, not the key "x" that the other bindings (and
     * this class's String overload) use; the C++ binding refuses a char key at compile time.
     * Pass {@code String.valueOf(c)} for the character, or {@code (long) c} for its code.
     *
     * @param key the character
     * @throws IllegalArgumentException always (nothing changes)
     * @deprecated a char is not a key: use {@code String.valueOf(c)} or {@code (long) c}
     */
    @Deprecated
    public void add(char key) {
        throw Native.charKey();
    }

    /**
     * Adds {@code weight} occurrences of a long key (stored as its 8 little-endian bytes).
     *
     * @param key the key
     * @param weight non-negative weight (0 changes nothing: no counter is taken, no key evicted)
     * @throws IllegalArgumentException when the weight is negative
     * @throws SketchException {@link Status#KEY_TOO_LONG} when the maximum key length is below 8
     *     (nothing changes)
     */
    public void add(long key, long weight) {
        img.checkWritable();
        checkWeight(weight);
        img.beginChange();
        try {
            nAddU64(img.addr(), img.len, key, weight);
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
     * @param weight the weight
     * @throws IllegalArgumentException always (nothing changes)
     * @deprecated a char is not a key: use {@code String.valueOf(c)} or {@code (long) c}
     */
    @Deprecated
    public void add(char key, long weight) {
        throw Native.charKey();
    }

    /**
     * Adds one occurrence of the remaining bytes of a buffer (position unchanged).
     *
     * @param key the key bytes
     * @throws NullPointerException when {@code key} is null
     * @throws SketchException {@link Status#KEY_TOO_LONG} when the key is too long (nothing changes)
     */
    public void add(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        add(key, 1);
    }

    /**
     * Adds {@code weight} occurrences of the remaining bytes of a buffer (position unchanged).
     *
     * @param key the key bytes
     * @param weight non-negative weight (0 changes nothing: no counter is taken, no key evicted)
     * @throws NullPointerException when {@code key} is null
     * @throws IllegalArgumentException when the weight is negative
     * @throws SketchException {@link Status#KEY_TOO_LONG} when the key is too long (nothing changes)
     */
    public void add(ByteBuffer key, long weight) {
        Objects.requireNonNull(key, "key");
        img.checkWritable();
        checkWeight(weight);
        int pos = key.position();
        int n = key.remaining();
        img.beginChange();
        try {
            if (Native.direct(key, pos, n)) {
                nAddBuf(img.addr(), img.len, key, pos, n, weight);
            } else if (key.hasArray()) {
                nAdd(img.addr(), img.len, key.array(), key.arrayOffset() + pos, n, weight);
            } else {
                byte[] copy = new byte[n];
                key.duplicate().get(copy);
                nAdd(img.addr(), img.len, copy, 0, n, weight);
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * The estimate for one key.
     *
     * @param key the key bytes
     * @return its count bound, error and whether it is listed
     * @throws NullPointerException when {@code key} is null
     * @throws SketchException {@link Status#KEY_TOO_LONG} when the key is longer than the maximum
     *     key length (such a key is never listed; check its length first to avoid the exception)
     */
    public Estimate estimate(byte[] key) {
        Objects.requireNonNull(key, "key");
        long[] v = new long[3];
        try {
            nEstimate(img.addr(), img.len, key, 0, key.length, v);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new Estimate(v[0], v[1], v[2] != 0);
    }

    /**
     * The estimate for one String key (UTF-8).
     *
     * @param key the key
     * @return its count bound, error and whether it is listed
     * @throws NullPointerException when {@code key} is null
     * @throws SketchException {@link Status#KEY_TOO_LONG} when its UTF-8 bytes are longer than the
     *     maximum key length
     */
    public Estimate estimate(String key) {
        Objects.requireNonNull(key, "key");
        return estimate(Native.utf8(key));
    }

    /**
     * The estimate for one long key (its 8 little-endian bytes).
     *
     * @param key the key
     * @return its count bound, error and whether it is listed
     * @throws SketchException {@link Status#KEY_TOO_LONG} when the maximum key length is below 8
     */
    public Estimate estimate(long key) {
        return estimate(leBytes(key));
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
    public Estimate estimate(char key) {
        throw Native.charKey();
    }

    /**
     * The estimate for the remaining bytes of a buffer as one key (position unchanged).
     *
     * @param key the key bytes
     * @return its count bound, error and whether it is listed
     * @throws NullPointerException when {@code key} is null
     * @throws SketchException {@link Status#KEY_TOO_LONG} when the key is longer than the maximum
     *     key length
     */
    public Estimate estimate(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        int pos = key.position();
        int n = key.remaining();
        byte[] array;
        int off;
        if (key.hasArray()) {
            array = key.array();
            off = key.arrayOffset() + pos;
        } else {
            // Direct or read-only heap buffers: keys are short, the copy costs little.
            array = new byte[n];
            key.duplicate().get(array);
            off = 0;
        }
        long[] v = new long[3];
        try {
            nEstimate(img.addr(), img.len, array, off, n, v);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new Estimate(v[0], v[1], v[2] != 0);
    }

    /**
     * The estimate for one key.
     *
     * @param count upper bound of the true count: the key's counter, or for an unlisted key the
     *     smallest count (0 while the sketch is not full)
     * @param error maximum overestimation: the true count is at least {@code count - error}
     * @param listed true when the key has a counter
     */
    public record Estimate(long count, long error, boolean listed) {}

    // ---- batches ----

    /**
     * Adds one occurrence of every key.
     *
     * @param keys the keys
     * @throws NullPointerException when {@code keys} or one of its keys is null
     * @throws SketchException {@link Status#KEY_TOO_LONG} when some key is too long (nothing is added)
     */
    public void addAll(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        addAll(keys, null);
    }

    /**
     * Adds every key with its weight.
     *
     * @param keys the keys
     * @param weights null (1 each), or one non-negative weight per key (a key of weight 0 changes
     *     nothing)
     * @throws NullPointerException when {@code keys} or one of its keys is null
     * @throws SketchException {@link Status#KEY_TOO_LONG} when some key is too long (nothing is added)
     */
    public void addAll(byte[][] keys, long[] weights) {
        Objects.requireNonNull(keys, "keys");
        Native.Packed p = Native.pack(keys);
        addPacked0(p.data(), p.offsets(), p.count(), weights);
    }

    /**
     * Adds one occurrence of every String key (UTF-8).
     *
     * @param keys the keys
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAll(String[] keys) {
        Objects.requireNonNull(keys, "keys");
        addAll(keys, null);
    }

    /**
     * Adds every String key (UTF-8) with its weight.
     *
     * @param keys the keys
     * @param weights null (1 each), or one non-negative weight per key (a key of weight 0 changes
     *     nothing)
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAll(String[] keys, long[] weights) {
        Objects.requireNonNull(keys, "keys");
        Native.Packed p = Native.pack(keys);
        addPacked0(p.data(), p.offsets(), p.count(), weights);
    }

    /**
     * Adds one occurrence of every long key.
     *
     * @param keys the keys
     * @throws NullPointerException when {@code keys} is null
     */
    public void addAll(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        addAll(keys, null);
    }

    /**
     * Adds every long key with its weight.
     *
     * @param keys the keys
     * @param weights null (1 each), or one non-negative weight per key (a key of weight 0 changes
     *     nothing)
     * @throws NullPointerException when {@code keys} is null
     */
    public void addAll(long[] keys, long[] weights) {
        Objects.requireNonNull(keys, "keys");
        checkWeights(weights, keys.length);
        if (keys.length > 0 && maxKeyLength < 8) {
            throw new SketchException(Status.KEY_TOO_LONG, "TopK.addAll(long[])");
        }
        img.checkWritable();
        img.beginChange();
        try {
            for (int from = 0; from < keys.length; from += Native.CHUNK) {
                nAddU64s(img.addr(), img.len, keys, from, Math.min(Native.CHUNK, keys.length - from), weights, from);
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds keys packed in the Arrow Binary layout (key i is {@code data[offsets[i] .. offsets[i +
     * 1])}) with their weights.
     *
     * @param data the key bytes
     * @param offsets count + 1 non-decreasing offsets into {@code data}
     * @param weights null (1 each), or one non-negative weight per key (a key of weight 0 changes
     *     nothing)
     * @throws NullPointerException when {@code data} or {@code offsets} is null
     * @throws IllegalArgumentException when the offsets or weights are invalid (nothing is added)
     * @throws SketchException {@link Status#KEY_TOO_LONG} when some key is too long (nothing is added)
     */
    public void addPacked(byte[] data, int[] offsets, long[] weights) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        addPacked0(data, offsets, Native.checkPacked(data, offsets), weights);
    }

    private void addPacked0(byte[] data, int[] offsets, int count, long[] weights) {
        checkWeights(weights, count);
        // Checked here for the whole batch, so a batch split into chunks stays all or nothing.
        for (int i = 0; i < count; i++) {
            if (offsets[i + 1] - offsets[i] > maxKeyLength) {
                throw new SketchException(Status.KEY_TOO_LONG, "TopK.addAll (key " + i + ")");
            }
        }
        img.checkWritable();
        img.beginChange();
        try {
            for (int from = 0; from < count; from += Native.CHUNK) {
                nAddPacked(img.addr(), img.len, data, offsets, from, Math.min(Native.CHUNK, count - from), weights, from);
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    private static void checkWeights(long[] weights, int count) {
        Native.checkWeights(weights, count);
        if (weights != null) {
            for (long w : weights) {
                checkWeight(w);
            }
        }
    }

    // ---- listing ----

    /**
     * Every listed key, largest count first.
     *
     * @return an unmodifiable list (at most capacity items)
     */
    public List<Item> top() {
        return top(Integer.MAX_VALUE);
    }

    /**
     * The {@code n} listed keys with the largest counts, largest first.
     *
     * @param n how many at most (non-negative)
     * @return an unmodifiable list of at most {@code n} items
     */
    public List<Item> top(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must not be negative: " + n);
        }
        Stats s = stats();
        // Clamped: a wrapped image's header is checked, but stays caller memory.
        int cap = Math.max(0, Math.min(n, Math.min(s.used(), s.capacity())));
        long[] counts = new long[cap];
        long[] errors = new long[cap];
        int[] offsets = new int[cap + 2];
        byte[] keys;
        try {
            keys = nList(img.addr(), img.len, cap, counts, errors, offsets);
        } finally {
            Reference.reachabilityFence(img);
        }
        int listed = offsets[cap + 1];
        List<Item> items = new ArrayList<>(listed);
        for (int i = 0; i < listed; i++) {
            items.add(new Item(Arrays.copyOfRange(keys, offsets[i], offsets[i + 1]), counts[i], errors[i]));
        }
        return Collections.unmodifiableList(items);
    }

    /**
     * One listed key. Immutable: the key bytes are copied in and {@link #key()} returns a copy, so
     * items are safe to share and to keep in hash-based collections.
     *
     * @param key the key bytes (copied)
     * @param count estimated count: at least the true count
     * @param error maximum overestimation: the true count is at least {@code count - error}
     */
    public record Item(byte[] key, long count, long error) {
        /**
         * An item holding a copy of {@code key}.
         *
         * @param key the key bytes (copied)
         * @param count estimated count
         * @param error maximum overestimation
         * @throws NullPointerException when {@code key} is null
         */
        public Item {
            key = Objects.requireNonNull(key, "key").clone();
        }

        /**
         * The key bytes.
         *
         * @return a new copy of the key bytes (changing it does not change the item)
         */
        @Override
        public byte[] key() {
            return key.clone();
        }

        /**
         * The key decoded as UTF-8 (for keys added as Strings).
         *
         * @return the key text
         */
        public String keyString() {
            return new String(key, StandardCharsets.UTF_8);
        }

        /**
         * The key read as a long (for keys added as longs: 8 little-endian bytes).
         *
         * @return the key value
         * @throws IllegalStateException when the key is not 8 bytes long
         */
        public long keyLong() {
            if (key.length != 8) {
                throw new IllegalStateException("the key has " + key.length + " bytes, not 8");
            }
            return ByteBuffer.wrap(key).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
        }

        /**
         * Items are equal when their key bytes, count and error are.
         *
         * @param o another object
         * @return whether equal
         */
        @Override
        public boolean equals(Object o) {
            return o instanceof Item i && Arrays.equals(key, i.key) && count == i.count && error == i.error;
        }

        @Override
        public int hashCode() {
            return (Arrays.hashCode(key) * 31 + Long.hashCode(count)) * 31 + Long.hashCode(error);
        }

        @Override
        public String toString() {
            return "Item[key=" + Arrays.toString(key) + ", count=" + count + ", error=" + error + "]";
        }
    }

    // ---- combining, statistics, image ----

    /**
     * Merges {@code other} into this sketch: keeps the capacity keys with the largest combined
     * estimates; both guarantees hold for the combined stream.
     *
     * @param other a sketch with equal capacity, maximum key length and seed
     * @throws NullPointerException when {@code other} is null
     * @throws SketchException {@link Status#INCOMPATIBLE} when the parameters differ (nothing
     *     changes); {@code other} may be this sketch itself (a copy of it
     *     is merged, as an equal sketch would be)
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch or
     *     {@code other} meanwhile (against the thread-safety rules; see the class notes)
     */
    public void merge(TopK other) {
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
     * Every statistic, O(1).
     *
     * @return the statistics
     */
    public Stats stats() {
        long[] l = new long[6];
        try {
            nStats(img.addr(), img.len, l);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new Stats((int) l[0], (int) l[1], (int) l[2], l[3], l[4], l[5]);
    }

    /**
     * Statistics of a Top-k sketch.
     *
     * @param capacity counters
     * @param maxKeyLength longest key in bytes
     * @param used counters in use
     * @param seed hash seed
     * @param total total weight N
     * @param minCount smallest count when full (every estimate's overestimation bound), else 0
     */
    public record Stats(int capacity, int maxKeyLength, int used, long seed, long total, long minCount) {}

    /**
     * Exports the image with its checksum.
     *
     * @return a new array of {@link #imageBytes()} bytes
     * @throws java.util.ConcurrentModificationException when a change of this sketch ran during the
     *     export (against the thread-safety rules; nothing is returned)
     */
    public byte[] toByteArray() {
        return Native.exported(img, img.len, TopK::nExport);
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
        return ImageStream.write(img, Sketches.FAMILY_TOPK, this::toByteArray, out);
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
    public static TopK readFrom(InputStream in) throws IOException {
        byte[] image = ImageStream.read(in, Sketches.FAMILY_TOPK, "TopK.readFrom");
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
        return "TopK[" + img.size() + "]";
    }

    private static byte[] leBytes(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
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
        return new SerializedSketch(Sketches.FAMILY_TOPK, toByteArray());
    }

    /**
     * Refuses a stream naming this class instead of the proxy (made by hand to skip the import).
     *
     * @param in the stream (not read)
     * @throws InvalidObjectException always
     */
    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw Native.proxyRequired("TopK");
    }

    // ---- natives (topk.c) ----

    private static native long nSize(int capacity, int maxKeyLength);

    private static native void nInit(long buf, long len, int capacity, int maxKeyLength, long seed);

    private static native void nAdd(long buf, long len, byte[] key, int off, int klen, long weight);

    private static native void nAddBuf(long buf, long len, ByteBuffer key, int pos, int klen, long weight);

    private static native void nAddU64(long buf, long len, long key, long weight);

    private static native void nAddStr(long buf, long len, String key, int n, long weight);

    private static native void nAddPacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count, long[] weights, int wFrom);

    private static native void nAddU64s(long buf, long len, long[] keys, int from, int count, long[] weights, int wFrom);

    private static native void nEstimate(long buf, long len, byte[] key, int off, int klen, long[] out);

    private static native byte[] nList(long buf, long len, int capacity, long[] counts, long[] errors, int[] offsets);

    private static native void nMerge(long dst, long dstLen, long src, long srcLen);

    private static native void nClear(long buf, long len);

    private static native void nStats(long buf, long len, long[] l);

    private static native int nExport(long buf, long len, byte[] out);

    private static native long nImportSize(byte[] src);

    private static native void nImport(byte[] src, long dst, long dstLen);

    private static native void nVerifyAt(long buf, long len);
}
