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
 * Count-Min frequency sketch ({@code sketch_countmin_*}): {@code depth} rows of {@code width}
 * counters; an estimate never underestimates (while no counter saturated: 32-bit counters stop at
 * 2^32 - 1) and exceeds the true count by more than epsilon * N
 * (N the total weight added) with probability at most delta, where epsilon = e / width and delta
 * = e^-depth. Counters are 32 or 64 bits and saturate instead of wrapping. Conservative update
 * (raise counters only up to min + weight) lowers the overestimation; it cannot be undone by
 * merging, which adds counters (saturating).
 *
 * <p>The sketch lives in one 64-byte-aligned direct {@link ByteBuffer} (its image) that this
 * object owns: there is no native memory to free. {@link #toByteArray()} exports it with a
 * checksum; {@link #fromByteArray(byte[])} reads untrusted bytes back; {@link #wrap(ByteBuffer)}
 * and {@link #wrapVerified(ByteBuffer)} use a caller's buffer without copying.
 *
 * <p>Keys: {@code byte[]} as they are, {@code String} as UTF-8, {@code long} as its 8
 * little-endian bytes, {@code ByteBuffer} as its remaining bytes, hashed with XXH3-64 and the
 * sketch's seed. Weights are non-negative longs; counts are unsigned 64-bit values (they
 * saturate at 2^64 - 1, which reads as -1 in Java).
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
 * <p>Thread safety: queries ({@code estimate*}, {@code stats}, {@code total}, {@code toByteArray}, {@code writeTo},
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
public final class CountMinSketch implements Serializable {
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
    private CountMinSketch() {
        this.img = Native.Image.detached("CountMinSketch");
    }

    private CountMinSketch(Native.Image img) {
        this.img = img;
    }

    /**
     * A sketch planned from the guarantee: width = ceil(e / epsilon), depth = ceil(ln(1 /
     * delta)), 32-bit counters, plain update, seed 0.
     *
     * @param epsilon relative error bound, in (0, 1)
     * @param delta probability of exceeding it, in (0, 1)
     * @return an empty sketch
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static CountMinSketch create(double epsilon, double delta) {
        return builder().epsilon(epsilon).delta(delta).build();
    }

    /**
     * A sketch planned from the guarantee (as {@link #create(double, double)}) hashing with {@code seed}.
     *
     * @param epsilon relative error bound, in (0, 1)
     * @param delta probability of exceeding it, in (0, 1)
     * @param seed hash seed (sketches merge only with the same seed)
     * @return an empty sketch
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static CountMinSketch create(double epsilon, double delta, long seed) {
        return builder().epsilon(epsilon).delta(delta).seed(seed).build();
    }

    /**
     * A sketch of {@code width x depth} 32-bit counters, plain update.
     *
     * @param width counters per row, 1 to 2^32
     * @param depth rows, 1 to 64
     * @param seed hash seed
     * @return an empty sketch
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static CountMinSketch withSize(long width, int depth, long seed) {
        return builder().size(width, depth).seed(seed).build();
    }

    /**
     * The image size in bytes of {@link #create(double, double)}'s sketch (a multiple of 64),
     * without allocating it: for checking a memory budget first. Any size the library plans is
     * returned, also one above the 2 GiB one ByteBuffer holds (which the factory refuses). For
     * other options, {@link Builder#imageBytes()}.
     *
     * @param epsilon relative error bound, in (0, 1)
     * @param delta probability of exceeding it, in (0, 1)
     * @return the size in bytes
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static long imageBytes(double epsilon, double delta) {
        return builder().epsilon(epsilon).delta(delta).imageBytes();
    }

    /**
     * The image size in bytes of {@link #withSize(long, int, long)}'s sketch, without allocating
     * it (as {@link #imageBytes(double, double)}).
     *
     * @param width counters per row, 1 to 2^32
     * @param depth rows, 1 to 64
     * @return the size in bytes
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static long imageBytesWithSize(long width, int depth) {
        return builder().size(width, depth).imageBytes();
    }

    /**
     * A builder for the options the factories leave at their defaults (the factories make 32-bit
     * counters with plain update; the builder can choose 64-bit counters, which do not saturate
     * at 2^32 - 1, and conservative update).
     *
     * @return a new builder (epsilon 0.001, delta 0.01, 32-bit counters, plain update, seed 0)
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Parameters of a Count-Min sketch: either (epsilon, delta) or (width, depth), plus counter
     * width, update rule and seed. Not thread-safe; reusable.
     */
    public static final class Builder {
        private double epsilon = 0.001;
        private double delta = 0.01;
        private long width;
        private int depth;
        private boolean explicitSize;
        private int counterBits = 32;
        private boolean conservative;
        private long seed;

        private Builder() {}

        /**
         * Sets the relative error bound (width = ceil(e / epsilon)).
         *
         * @param epsilon in (0, 1)
         * @return this builder
         */
        public Builder epsilon(double epsilon) {
            if (!(epsilon > 0 && epsilon < 1)) {
                throw new IllegalArgumentException("epsilon must be in (0, 1): " + epsilon);
            }
            this.epsilon = epsilon;
            this.explicitSize = false;
            return this;
        }

        /**
         * Sets the probability of exceeding the bound (depth = ceil(ln(1 / delta))).
         *
         * @param delta in (0, 1)
         * @return this builder
         */
        public Builder delta(double delta) {
            if (!(delta > 0 && delta < 1)) {
                throw new IllegalArgumentException("delta must be in (0, 1): " + delta);
            }
            this.delta = delta;
            this.explicitSize = false;
            return this;
        }

        /**
         * Sets the size explicitly instead of (epsilon, delta).
         *
         * @param width counters per row, 1 to 2^32
         * @param depth rows, 1 to 64
         * @return this builder
         */
        public Builder size(long width, int depth) {
            if (width < 1 || depth < 1 || depth > 64) {
                throw new IllegalArgumentException("width must be positive and depth in 1..64: " + width + ", " + depth);
            }
            this.width = width;
            this.depth = depth;
            this.explicitSize = true;
            return this;
        }

        /**
         * Sets the counter width.
         *
         * @param bits 32 or 64 (counters saturate, never wrap)
         * @return this builder
         */
        public Builder counterBits(int bits) {
            if (bits != 32 && bits != 64) {
                throw new IllegalArgumentException("counter bits must be 32 or 64: " + bits);
            }
            this.counterBits = bits;
            return this;
        }

        /**
         * Chooses conservative update (raise counters only up to min + weight).
         *
         * @param conservative true for conservative update
         * @return this builder
         */
        public Builder conservative(boolean conservative) {
            this.conservative = conservative;
            return this;
        }

        /**
         * Sets the hash seed.
         *
         * @param seed the seed
         * @return this builder
         */
        public Builder seed(long seed) {
            this.seed = seed;
            return this;
        }

        /**
         * Builds an empty sketch.
         *
         * @return the sketch
         * @throws IllegalArgumentException when the parameters are out of range or the sketch
         *     would not fit in one ByteBuffer (2 GiB)
         */
        public CountMinSketch build() {
            long[] plan = plan();
            Native.Image img = Native.fresh(plan[4]);
            try {
                nInit(img.addr(), img.len, plan[0], (int) plan[1], (int) plan[2], plan[3] != 0, seed);
            } finally {
                Reference.reachabilityFence(img);
            }
            return new CountMinSketch(img);
        }

        /**
         * The image size in bytes of the sketch {@link #build()} would make, without allocating
         * it (any size the library plans, also one above 2 GiB, which {@code build} refuses).
         *
         * @return the size in bytes
         * @throws IllegalArgumentException when the parameters are out of range
         */
        public long imageBytes() {
            return plan()[4];
        }

        private long[] plan() {
            long[] plan = new long[5];
            try {
                nPlan(epsilon, delta, width, depth, explicitSize, counterBits, conservative, plan);
            } catch (SketchException e) {
                throw Native.parameter(e);
            }
            return plan;
        }
    }

    /**
     * Reads an exported image (untrusted bytes: headers, exact length and checksum are checked).
     *
     * @param bytes the bytes {@link #toByteArray()} (or any binding's export) produced
     * @return the sketch
     * @throws NullPointerException when {@code bytes} is null
     * @throws SketchException when the bytes are damaged or not a Count-Min sketch; nothing is kept
     */
    public static CountMinSketch fromByteArray(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        return new CountMinSketch(Native.imported(bytes, CountMinSketch::nImportSize, CountMinSketch::nImport));
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
     * @throws SketchException when the headers are not those of a Count-Min sketch of that length
     */
    public static CountMinSketch wrap(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new CountMinSketch(Native.wrapped(buffer, (a, n) -> nStats(a, n, new long[6], new double[3])));
    }

    /**
     * As {@link #wrap(ByteBuffer)}, but first verifies the bytes as {@link #fromByteArray} does
     * (headers, exact length, checksum; O(n)).
     *
     * @param buffer a direct buffer starting on an 8-byte boundary holding exactly one exported image
     * @return a sketch over the buffer
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the bytes are damaged or not a Count-Min sketch
     */
    public static CountMinSketch wrapVerified(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new CountMinSketch(Native.wrapped(buffer, CountMinSketch::nVerifyAt));
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
     * @throws java.nio.ReadOnlyBufferException when the sketch wraps a read-only buffer
     */
    public void add(byte[] key) {
        Objects.requireNonNull(key, "key");
        add(key, 1);
    }

    /**
     * Adds {@code weight} occurrences of a key.
     *
     * @param key the key bytes
     * @param weight non-negative weight
     * @throws NullPointerException when {@code key} is null
     * @throws IllegalArgumentException when the weight is negative
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
     */
    public void add(String key) {
        Objects.requireNonNull(key, "key");
        add(key, 1);
    }

    /**
     * Adds {@code weight} occurrences of a String key (UTF-8).
     *
     * @param key the key
     * @param weight non-negative weight
     * @throws NullPointerException when {@code key} is null
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
     * Adds one occurrence of a long key (its 8 little-endian bytes).
     *
     * @param key the key
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
     * Adds {@code weight} occurrences of a long key.
     *
     * @param key the key
     * @param weight non-negative weight
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
     */
    public void add(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        add(key, 1);
    }

    /**
     * Adds {@code weight} occurrences of the remaining bytes of a buffer (position unchanged).
     *
     * @param key the key bytes
     * @param weight non-negative weight
     * @throws NullPointerException when {@code key} is null
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
     * The estimated count of a key: never below the true count while no counter saturated (a
     * 32-bit counter stops at 2^32 - 1, below a larger true count).
     *
     * @param key the key bytes
     * @return the estimate (unsigned)
     * @throws NullPointerException when {@code key} is null
     */
    public long estimate(byte[] key) {
        Objects.requireNonNull(key, "key");
        try {
            return nEstimate(img.addr(), img.len, key, 0, key.length);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * The estimated count of a String key (UTF-8).
     *
     * @param key the key
     * @return the estimate (unsigned)
     * @throws NullPointerException when {@code key} is null
     */
    public long estimate(String key) {
        Objects.requireNonNull(key, "key");
        int n = key.length();
        if (n > Native.STR_MAX) {
            return estimate(Native.utf8(key));
        }
        try {
            return nEstimateStr(img.addr(), img.len, key, n);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * The estimated count of a long key.
     *
     * @param key the key
     * @return the estimate (unsigned)
     */
    public long estimate(long key) {
        try {
            return nEstimateU64(img.addr(), img.len, key);
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
    public long estimate(char key) {
        throw Native.charKey();
    }

    /**
     * The estimated count of the remaining bytes of a buffer (position unchanged).
     *
     * @param key the key bytes
     * @return the estimate (unsigned)
     * @throws NullPointerException when {@code key} is null
     */
    public long estimate(ByteBuffer key) {
        Objects.requireNonNull(key, "key");
        int pos = key.position();
        int n = key.remaining();
        try {
            if (Native.direct(key, pos, n)) {
                return nEstimateBuf(img.addr(), img.len, key, pos, n);
            }
            if (key.hasArray()) {
                return nEstimate(img.addr(), img.len, key.array(), key.arrayOffset() + pos, n);
            }
            byte[] copy = new byte[n];
            key.duplicate().get(copy);
            return nEstimate(img.addr(), img.len, copy, 0, n);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    // ---- batches ----

    /**
     * Adds one occurrence of every key.
     *
     * @param keys the keys
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAll(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        addAll(keys, null);
    }

    /**
     * Adds every key with its weight.
     *
     * @param keys the keys
     * @param weights null (1 each), or one non-negative weight per key
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAll(byte[][] keys, long[] weights) {
        Objects.requireNonNull(keys, "keys");
        checkWeights(weights, keys.length);
        img.checkWritable();
        img.beginChange();
        try {
            Native.forChunks(keys, (d, o, from, n) -> nAddPacked(img.addr(), img.len, d, o, 0, n, weights, from));
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
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
     * @param weights null (1 each), or one non-negative weight per key
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public void addAll(String[] keys, long[] weights) {
        Objects.requireNonNull(keys, "keys");
        checkWeights(weights, keys.length);
        img.checkWritable();
        img.beginChange();
        try {
            Native.forChunks(keys, (d, o, from, n) -> nAddPacked(img.addr(), img.len, d, o, 0, n, weights, from));
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
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
     * @param weights null (1 each), or one non-negative weight per key
     * @throws NullPointerException when {@code keys} is null
     */
    public void addAll(long[] keys, long[] weights) {
        Objects.requireNonNull(keys, "keys");
        checkWeights(weights, keys.length);
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
     * @param weights null (1 each), or one non-negative weight per key
     * @throws NullPointerException when {@code data} or {@code offsets} is null
     * @throws IllegalArgumentException when the offsets or weights are invalid (nothing is added)
     */
    public void addPacked(byte[] data, int[] offsets, long[] weights) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        addPacked0(data, offsets, Native.checkPacked(data, offsets), weights);
    }

    private void addPacked0(byte[] data, int[] offsets, int count, long[] weights) {
        checkWeights(weights, count);
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

    /**
     * The estimates of every key.
     *
     * @param keys the keys
     * @return per key its estimate (unsigned)
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public long[] estimateAll(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        long[] out = new long[keys.length];
        try {
            Native.forChunks(keys, (d, o, from, n) -> nEstimatePacked(img.addr(), img.len, d, o, 0, n, out, from));
        } finally {
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * The estimates of every String key (UTF-8).
     *
     * @param keys the keys
     * @return per key its estimate (unsigned)
     * @throws NullPointerException when {@code keys} or one of its keys is null
     */
    public long[] estimateAll(String[] keys) {
        Objects.requireNonNull(keys, "keys");
        long[] out = new long[keys.length];
        try {
            Native.forChunks(keys, (d, o, from, n) -> nEstimatePacked(img.addr(), img.len, d, o, 0, n, out, from));
        } finally {
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * The estimates of every long key.
     *
     * @param keys the keys
     * @return per key its estimate (unsigned)
     * @throws NullPointerException when {@code keys} is null
     */
    public long[] estimateAll(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        long[] out = new long[keys.length];
        try {
            for (int from = 0; from < keys.length; from += Native.CHUNK) {
                nEstimateU64s(img.addr(), img.len, keys, from, Math.min(Native.CHUNK, keys.length - from), out, from);
            }
        } finally {
            Reference.reachabilityFence(img);
        }
        return out;
    }

    /**
     * The estimates of keys packed in the Arrow Binary layout.
     *
     * @param data the key bytes
     * @param offsets count + 1 non-decreasing offsets into {@code data}
     * @return per key its estimate (unsigned)
     * @throws NullPointerException when {@code data} or {@code offsets} is null
     * @throws IllegalArgumentException when the offsets are invalid
     */
    public long[] estimatePacked(byte[] data, int[] offsets) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        return estimatePacked0(data, offsets, Native.checkPacked(data, offsets));
    }

    private long[] estimatePacked0(byte[] data, int[] offsets, int count) {
        long[] out = new long[count];
        try {
            for (int from = 0; from < count; from += Native.CHUNK) {
                nEstimatePacked(img.addr(), img.len, data, offsets, from, Math.min(Native.CHUNK, count - from), out, from);
            }
        } finally {
            Reference.reachabilityFence(img);
        }
        return out;
    }

    // ---- combining, statistics, image ----

    /**
     * Merge: counter-wise saturating addition of {@code other}.
     *
     * @param other a sketch with equal width, depth, counter width, update rule and seed
     * @throws NullPointerException when {@code other} is null
     * @throws SketchException {@link Status#INCOMPATIBLE} when the parameters differ (nothing
     *     changes); {@code other} may be this sketch itself (a copy of it
     *     is merged, as an equal sketch would be)
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch or
     *     {@code other} meanwhile (against the thread-safety rules; see the class notes)
     */
    public void merge(CountMinSketch other) {
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

    /** Sets every counter and the total to zero (parameters and seed stay). */
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
     * The total weight added, N (saturating; unsigned).
     *
     * @return the total
     */
    public long total() {
        return stats().total();
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
        return new Stats(l[0], (int) l[1], (int) l[2], l[3] != 0, l[4], l[5], d[0], d[1], d[2]);
    }

    /**
     * Statistics of a Count-Min sketch.
     *
     * @param width counters per row
     * @param depth rows
     * @param counterBits 32 or 64
     * @param conservative true for conservative update
     * @param seed hash seed
     * @param total total weight N (unsigned, saturating)
     * @param epsilon e / width
     * @param delta e^-depth
     * @param errorBound epsilon * N: an estimate exceeds the truth by more than this with
     *     probability at most delta
     */
    public record Stats(long width, int depth, int counterBits, boolean conservative, long seed, long total,
            double epsilon, double delta, double errorBound) {}

    /**
     * Exports the image with its checksum.
     *
     * @return a new array of {@link #imageBytes()} bytes
     * @throws java.util.ConcurrentModificationException when a change of this sketch ran during the
     *     export (against the thread-safety rules; nothing is returned)
     */
    public byte[] toByteArray() {
        return Native.exported(img, img.len, CountMinSketch::nExport);
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
        return ImageStream.write(img, Sketches.FAMILY_COUNT_MIN, this::toByteArray, out);
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
    public static CountMinSketch readFrom(InputStream in) throws IOException {
        byte[] image = ImageStream.read(in, Sketches.FAMILY_COUNT_MIN, "CountMinSketch.readFrom");
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
        return "CountMinSketch[" + img.size() + "]";
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
        return new SerializedSketch(Sketches.FAMILY_COUNT_MIN, toByteArray());
    }

    /**
     * Refuses a stream naming this class instead of the proxy (made by hand to skip the import).
     *
     * @param in the stream (not read)
     * @throws InvalidObjectException always
     */
    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw Native.proxyRequired("CountMinSketch");
    }

    // ---- natives (countmin.c) ----

    private static native void nPlan(double epsilon, double delta, long width, int depth, boolean explicitSize,
            int counterBits, boolean conservative, long[] out);

    private static native void nInit(
            long buf, long len, long width, int depth, int counterBits, boolean conservative, long seed);

    private static native void nAdd(long buf, long len, byte[] key, int off, int klen, long weight);

    private static native void nAddBuf(long buf, long len, ByteBuffer key, int pos, int klen, long weight);

    private static native void nAddU64(long buf, long len, long key, long weight);

    private static native void nAddStr(long buf, long len, String key, int n, long weight);

    private static native long nEstimateStr(long buf, long len, String key, int n);

    private static native long nEstimate(long buf, long len, byte[] key, int off, int klen);

    private static native long nEstimateBuf(long buf, long len, ByteBuffer key, int pos, int klen);

    private static native long nEstimateU64(long buf, long len, long key);

    private static native void nAddPacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count, long[] weights, int wFrom);

    private static native void nAddU64s(long buf, long len, long[] keys, int from, int count, long[] weights, int wFrom);

    private static native void nEstimatePacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count, long[] out, int outFrom);

    private static native void nEstimateU64s(long buf, long len, long[] keys, int from, int count, long[] out, int outFrom);

    private static native void nMerge(long dst, long dstLen, long src, long srcLen);

    private static native void nClear(long buf, long len);

    private static native void nStats(long buf, long len, long[] l, double[] d);

    private static native int nExport(long buf, long len, byte[] out);

    private static native long nImportSize(byte[] src);

    private static native void nImport(byte[] src, long dst, long dstLen);

    private static native void nVerifyAt(long buf, long len);
}
