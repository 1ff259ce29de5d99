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
 * HyperLogLog distinct counting ({@code sketch_hll_*}): precision p = 4..18, m = 2^p registers of
 * 6 bits (Redis's dense packing), relative standard error about 1.04/sqrt(m) from the registers
 * (p = 14: 0.81%, 12 KiB of registers) and about 0.83/sqrt(m) from the martingale estimate a sketch
 * keeps while it has seen only its own stream. A fresh sketch counts exactly while small (it keeps
 * the distinct hashes, up to 1,024 at p = 14) and converts to registers in place; such a sketch
 * exports compactly. Merges work across precisions (the higher folds down).
 *
 * <p>The sketch lives in one 64-byte-aligned direct {@link ByteBuffer} (its image) that this
 * object owns: there is no native memory to free. {@link #toByteArray()} exports it with a
 * checksum; {@link #fromByteArray(byte[])} reads untrusted bytes back (headers, length, checksum
 * and register values are checked); {@link #wrap(ByteBuffer)} and {@link
 * #wrapVerified(ByteBuffer)} use a caller's buffer without copying.
 *
 * <p>Keys: {@code byte[]} as they are, {@code String} as UTF-8, {@code long} as its 8
 * little-endian bytes, {@code ByteBuffer} as its remaining bytes, hashed with XXH3-64 and the
 * sketch's seed (the same hash in every language). Batches cross into native code once per 16,384
 * keys.
 *
 * <p>Single-key calls do not check the image's headers again: the sketch keeps, in native memory
 * owned with its image, a token of what checking them established when it was made (created, read,
 * wrapped, downsized or converted), and each call compares the headers' identity words (format,
 * family, seed, length, parameters) with it. When they differ (a wrapped buffer that other code
 * re-wrote) the call checks in full and answers or throws as it would without the token. The
 * headers' counters and modes are trusted as the body is: damaged ones give wrong answers, never
 * unsafe memory access.
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
 * <p>Thread safety: queries ({@code estimate}, {@code registerEstimate}, {@code stats}, {@code
 * toByteArray}, {@code writeTo}, {@code imageBytes}, {@code image}, {@code downsize}) may run concurrently; {@code
 * add*}, {@code merge}, {@code clear} and {@code densify} need exclusive access.
 *
 * <p>The concurrent methods are the exception: {@code addConcurrent}, {@code addAllConcurrent},
 * {@code addPackedConcurrent} and {@code estimateConcurrent} (the C ABI's {@code
 * sketch_hll_*_concurrent}, atomic operations on the image's 64-bit words). Any number of threads
 * may call them on one sketch at once; while any of them runs, no other method may be called on it
 * (not even {@code estimate}, {@code stats} or {@code toByteArray}). Such a call (through this
 * object or another over the same memory) is not refused, as the concurrent methods take no change
 * guard: it races them, with the effects the {@linkplain dev.sketches package documentation} lists
 * (adds lost, counters off, SketchException {@link Status#CORRUPT_HEADER} for a header left
 * inconsistent, until the sketch is made anew), never a JVM crash. They need dense registers: on a
 * sketch still in its exact small mode they throw {@link SketchException} with {@link
 * Status#SMALL_MODE} and change nothing, so call {@link #densify()} (exclusive) before sharing the
 * sketch. Once the adding threads are done (joined), the registers, and with them {@code
 * registersSet} and {@link #registerEstimate()}, equal those of the same adds made one at a time,
 * in any order. The martingale estimate does not survive concurrent adds: the first one that raises
 * a register ends it (as a merge does), after which {@link #estimate()} is the register estimate
 * and {@code stats().martingale()} is false. {@link #estimateConcurrent()} reads the register
 * estimate while adds run (a few adds behind or ahead; exact once they are done). One register in
 * 16 straddles two words and is raised under a lock word in the image's header: a concurrent add
 * that finds it held by another adding thread spins briefly, then yields, then sleeps 1 ms at a
 * time (so a holder descheduled among many more threads than cores gets to finish); one that finds
 * it held for about five seconds (a damaged image, or a process that died inside a concurrent add
 * on a shared mapped file) throws {@link SketchException} with {@link Status#CORRUPT_HEADER}; a
 * batch then stops at that key, the keys before it are added.
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
public final class HyperLogLog implements Serializable {
    static {
        Native.load();
    }

    /** Smallest precision. */
    public static final int MIN_PRECISION = 4;
    /** Largest precision. */
    public static final int MAX_PRECISION = 18;

    // transient: Java serialization writes the proxy; Kryo's field copier must skip native memory.
    private final transient Native.Image img;

    /**
     * A sketch without an image, made only by a framework that instantiates a class through its
     * no-argument constructor and copies its fields (Kryo without the sketch classes registered
     * with its JavaSerializer): every use throws IllegalStateException saying so ({@link
     * Native.Image#detached}).
     */
    private HyperLogLog() {
        this.img = Native.Image.detached("HyperLogLog");
    }

    /** Takes an image with a token (initialized, imported or checked) and fills the token from it. */
    private HyperLogLog(Native.Image img) {
        this.img = img;
        img.fillToken(HyperLogLog::nToken);
    }

    /**
     * An empty sketch of precision {@code precision}, seed 0.
     *
     * @param precision p in 4..18 (m = 2^p registers)
     * @return an empty sketch
     * @throws IllegalArgumentException when the precision is out of range
     */
    public static HyperLogLog create(int precision) {
        return create(precision, 0);
    }

    /**
     * An empty sketch of precision {@code precision} hashing with {@code seed}.
     *
     * @param precision p in 4..18 (m = 2^p registers)
     * @param seed hash seed (sketches merge only with the same seed)
     * @return an empty sketch
     * @throws IllegalArgumentException when the precision is out of range
     */
    public static HyperLogLog create(int precision, long seed) {
        Native.Image img = Native.freshWithToken(imageBytes(precision));
        try {
            nInit(img.addr(), img.len, precision, seed);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new HyperLogLog(img);
    }

    /**
     * The live image size of a sketch of this precision, in bytes (a multiple of 64).
     *
     * @param precision p in 4..18
     * @return the size in bytes
     * @throws IllegalArgumentException when the precision is out of range
     */
    public static long imageBytes(int precision) {
        if (precision < MIN_PRECISION || precision > MAX_PRECISION) {
            throw new IllegalArgumentException("precision must be in 4..18: " + precision);
        }
        return nSize(precision);
    }

    /**
     * Reads an exported image (untrusted bytes: headers, exact length, checksum and body are
     * checked) into a new sketch; a compact small-mode export becomes a full live image.
     *
     * @param bytes the bytes {@link #toByteArray()} (or any binding's export) produced
     * @return the sketch
     * @throws NullPointerException when {@code bytes} is null
     * @throws SketchException when the bytes are damaged or not a HyperLogLog ({@link
     *     Status#CHECKSUM_MISMATCH}, {@link Status#CORRUPT_BODY}, {@link Status#WRONG_FAMILY}, ...);
     *     nothing is kept
     */
    public static HyperLogLog fromByteArray(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        // sketch_hll_import_size gives the live size: a compact small-mode export is shorter.
        return new HyperLogLog(Native.importedWithToken(bytes, HyperLogLog::nImportSize, HyperLogLog::nImport));
    }

    /**
     * Uses a caller's buffer holding a live image without copying, after checking its headers
     * (O(1); any body bytes are memory-safe, damaged ones only give wrong answers). A compact
     * small-mode export cannot be wrapped ({@link Status#COMPACT_IMAGE}): read it with {@link
     * #fromByteArray}. A read-only buffer gives a sketch whose changes throw {@link
     * java.nio.ReadOnlyBufferException}.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary (a mapped file qualifies)
     * @return a sketch over the buffer's bytes from its position to its limit
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the headers are not those of a live HyperLogLog of that length
     */
    public static HyperLogLog wrap(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new HyperLogLog(Native.wrappedWithToken(buffer, HyperLogLog::nEstimate));
    }

    /**
     * As {@link #wrap(ByteBuffer)}, but first verifies the bytes as {@link #fromByteArray} does
     * (headers, exact length, checksum, register values; O(n)): for an exported dense image in a
     * mapped file.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary holding exactly one exported image
     * @return a sketch over the buffer
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the bytes are damaged, compact or not a HyperLogLog
     */
    public static HyperLogLog wrapVerified(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new HyperLogLog(Native.wrappedWithToken(buffer, (addr, len) -> {
            nVerifyAt(addr, len);
            nEstimate(addr, len);
        }));
    }

    // ---- single keys ----

    /**
     * Adds a key.
     *
     * @param key the key bytes
     * @return true when the sketch changed (a new hash in small mode, a raised register when dense)
     * @throws NullPointerException when {@code key} is null
     * @throws java.nio.ReadOnlyBufferException when the sketch wraps a read-only buffer
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
     * @return true when the sketch changed
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

    // ---- concurrent adds and estimate ----

    /**
     * Adds a key; one of the concurrent methods (see the class documentation).
     *
     * <p>Thread safety: any number of threads may call the {@code *Concurrent} methods on this
     * sketch at once; while any of them runs, no other method may be called on it. Once the adding
     * threads are done (joined), the registers equal those of the same adds made one at a time (and
     * so do {@link #registerEstimate()} and {@code registersSet}); the first concurrent add that
     * changes a register ends the martingale estimate (see the class documentation).
     *
     * @param key the key bytes
     * @return true when this call raised a register
     * @throws NullPointerException when {@code key} is null
     * @throws SketchException {@link Status#SMALL_MODE} when the sketch is still in its exact small
     *     mode (nothing changes): call {@link #densify()} first
     * @throws java.nio.ReadOnlyBufferException when the sketch wraps a read-only buffer
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
     * @return true when this call raised a register
     * @throws NullPointerException when {@code key} is null
     * @throws SketchException {@link Status#SMALL_MODE} when the sketch is still in its exact small
     *     mode (nothing changes): call {@link #densify()} first
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
     * @return true when this call raised a register
     * @throws SketchException {@link Status#SMALL_MODE} when the sketch is still in its exact small
     *     mode (nothing changes): call {@link #densify()} first
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
     * @return true when this call raised a register
     * @throws NullPointerException when {@code key} is null
     * @throws SketchException {@link Status#SMALL_MODE} when the sketch is still in its exact small
     *     mode (nothing changes): call {@link #densify()} first
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
     * Adds every key; one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param keys the keys
     * @throws NullPointerException when {@code keys} or one of its keys is null
     * @throws SketchException {@link Status#SMALL_MODE} when the sketch is still in its exact small
     *     mode (nothing changes): call {@link #densify()} first
     */
    public void addAllConcurrent(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        img.checkWritable();
        try {
            Native.forChunks(keys, (d, o, from, n) -> nAddConcurrentPacked(img.addr(), img.len, d, o, 0, n));
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
     * @throws SketchException {@link Status#SMALL_MODE} when the sketch is still in its exact small
     *     mode (nothing changes): call {@link #densify()} first
     */
    public void addAllConcurrent(String[] keys) {
        Objects.requireNonNull(keys, "keys");
        img.checkWritable();
        try {
            Native.forChunks(keys, (d, o, from, n) -> nAddConcurrentPacked(img.addr(), img.len, d, o, 0, n));
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
     * @throws SketchException {@link Status#SMALL_MODE} when the sketch is still in its exact small
     *     mode (nothing changes): call {@link #densify()} first
     */
    public void addAllConcurrent(long[] keys) {
        Objects.requireNonNull(keys, "keys");
        img.checkWritable();
        try {
            for (int from = 0; from < keys.length; from += Native.CHUNK) {
                nAddConcurrentU64s(img.addr(), img.len, keys, from, Math.min(Native.CHUNK, keys.length - from));
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
     * @throws NullPointerException when {@code data} or {@code offsets} is null
     * @throws IllegalArgumentException when the offsets are invalid (nothing is added)
     * @throws SketchException {@link Status#SMALL_MODE} when the sketch is still in its exact small
     *     mode (nothing changes): call {@link #densify()} first
     */
    public void addPackedConcurrent(byte[] data, int[] offsets) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        int count = Native.checkPacked(data, offsets);
        img.checkWritable();
        try {
            for (int from = 0; from < count; from += Native.CHUNK) {
                nAddConcurrentPacked(img.addr(), img.len, data, offsets, from, Math.min(Native.CHUNK, count - from));
            }
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * The register estimate (Ertl's improved estimator, about 1.04/sqrt(m)) read with atomic loads;
     * one of the concurrent methods. While other threads add it may be a few adds behind or ahead;
     * once they are done (joined) it equals {@link #registerEstimate()}.
     *
     * <p>Thread safety: any number of threads may call the {@code *Concurrent} methods on this
     * sketch at once; while any of them runs, no other method may be called on it. Once the adding
     * threads are done (joined), the registers equal those of the same adds made one at a time (and
     * so do {@link #registerEstimate()} and {@code registersSet}); the first concurrent add that
     * changes a register ends the martingale estimate (see the class documentation).
     *
     * @return the estimate
     * @throws SketchException {@link Status#SMALL_MODE} while the sketch is in its exact small
     *     mode: call {@link #densify()} first
     */
    public double estimateConcurrent() {
        try {
            return nEstimateConcurrent(img.addr(), img.len);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Converts a sketch in its exact small mode to dense registers (a no-op when already dense), as
     * the concurrent adds need. {@link #estimate()} does not change (the martingale estimate goes on
     * from the exact count); {@link #registerEstimate()}, exact in small mode, is the registers'
     * estimate from then on. A small-mode sketch counts exactly up to {@link Stats#smallCapacity()}
     * distinct hashes and exports compactly; after this call it keeps registers (and exports at full
     * size).
     *
     * <p>Thread safety: needs exclusive access, like every method that is not {@code *Concurrent}:
     * call it before the sketch is shared between threads that add concurrently (no other method may
     * run on the sketch meanwhile).
     *
     * @throws java.nio.ReadOnlyBufferException when the sketch wraps a read-only buffer
     */
    public void densify() {
        img.checkWritable();
        img.beginChange();
        try {
            nDensify(img.addr(), img.len);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
        refreshToken();
    }

    // ---- estimates, combining, image ----

    /**
     * The distinct-count estimate, O(1): exact in small mode; the martingale estimate (about
     * 0.83/sqrt(m)) while the sketch has seen only its own stream; after a merge of registers,
     * Ertl's improved estimate from the registers (about 1.04/sqrt(m)).
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
     * The estimate from the registers alone (Ertl's improved estimator; exact in small mode):
     * what a merged sketch reports.
     *
     * @return the register estimate
     */
    public double registerEstimate() {
        try {
            return nRegisterEstimate(img.addr(), img.len);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Merges {@code other} into this sketch: afterwards it estimates the union.
     *
     * <p>Precisions: a dense {@code other} of a lower precision is refused, but one still in its
     * exact small mode merges at any precision (it holds its hashes, not registers). So merging
     * sketches of mixed precisions can succeed while the inputs are small (in a test) and fail once
     * one is dense (in production): merge into a sketch of the lowest precision, or {@link
     * #downsize} the others to it first.
     *
     * @param other a sketch with the same seed and a precision at least this one's (a higher
     *     precision folds down), or any precision while it is in small mode
     * @throws NullPointerException when {@code other} is null
     * @throws SketchException {@link Status#INCOMPATIBLE} when the seeds differ or {@code other}'s
     *     precision is lower and it is dense (nothing changes); {@code other} may be this sketch
     *     itself (a copy of it is merged, as an equal sketch would be)
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch or
     *     {@code other} meanwhile (against the thread-safety rules; see the class notes)
     */
    public void merge(HyperLogLog other) {
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
     * A new sketch of precision {@code precision} holding what this one holds (registers folded
     * down, or the stored hashes).
     *
     * @param precision at most this sketch's precision, or any precision while it is in small mode
     * @return the new sketch
     * @throws IllegalArgumentException when the precision is out of range
     * @throws SketchException {@link Status#INCOMPATIBLE} when the precision is above this
     *     sketch's and it is dense
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch
     *     meanwhile (against the thread-safety rules; nothing is returned)
     */
    public HyperLogLog downsize(int precision) {
        Native.Image dst = Native.freshWithToken(imageBytes(precision));
        int changes = img.beginWholeRead(); // the source is read whole: a change meanwhile is refused
        try {
            nDownsize(img.addr(), img.len, dst.addr(), dst.len, precision);
        } catch (SketchException e) {
            img.endWholeRead(changes); // a change ran meanwhile: that is the cause
            throw e;
        } finally {
            Reference.reachabilityFence(img);
            Reference.reachabilityFence(dst);
        }
        img.endWholeRead(changes);
        return new HyperLogLog(dst);
    }

    /**
     * Empties the sketch (same precision and seed). It starts again in its exact small mode, as a
     * new sketch does: call {@link #densify()} again before sharing it with concurrent adds (they
     * throw {@link SketchException} with {@link Status#SMALL_MODE} on a small-mode sketch).
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
     * The statistics of the sketch, O(1).
     *
     * @return the statistics
     */
    public Stats stats() {
        long[] l = new long[8];
        double e;
        try {
            e = nStats(img.addr(), img.len, l);
        } finally {
            Reference.reachabilityFence(img);
        }
        return new Stats((int) l[0], l[1] == 0, l[2] != 0, (int) l[3], (int) l[4], (int) l[5], l[6], e, l[7]);
    }

    /**
     * Statistics of a HyperLogLog sketch.
     *
     * @param precision precision p
     * @param small true in exact small mode, false with dense registers
     * @param martingale true when {@code estimate} is the martingale estimate
     * @param smallCount hashes stored in small mode (0 when dense)
     * @param smallCapacity hashes small mode holds at this precision before converting
     * @param registersSet registers above zero
     * @param seed hash seed
     * @param estimate distinct-count estimate
     * @param imageBytes live image length in bytes
     */
    public record Stats(int precision, boolean small, boolean martingale, int smallCount, int smallCapacity,
            int registersSet, long seed, double estimate, long imageBytes) {}

    /**
     * Exports the image with its checksum; a small-mode sketch exports compactly (the header plus
     * 8 bytes per stored hash).
     *
     * @return a new array with the exported image
     * @throws java.util.ConcurrentModificationException when a change of this sketch ran during the
     *     export (against the thread-safety rules; nothing is returned)
     */
    public byte[] toByteArray() {
        return Native.exported(img, HyperLogLog::nExportedSize, HyperLogLog::nExport);
    }

    /**
     * Writes the export to {@code out}: exactly the bytes {@link #toByteArray()} returns (the
     * stream is neither flushed nor closed), without a copy of the image: the export's checksum is
     * computed on the live image in place, then the sealed 48-byte header and the image follow in
     * chunks of at most 64 KiB through one array, so the extra heap is 64 KiB whatever the image's
     * size (toByteArray's is the image's size). A small-mode sketch
     * (whose compact export is shorter than its image, at most about 8 KiB) is exported and written
     * whole.
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
        return ImageStream.write(img, Sketches.FAMILY_HYPERLOGLOG, this::toByteArray, out);
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
    public static HyperLogLog readFrom(InputStream in) throws IOException {
        byte[] image = ImageStream.read(in, Sketches.FAMILY_HYPERLOGLOG, "HyperLogLog.readFrom");
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

    /** The image (for {@link UltraLogLog#toHyperLogLog()} and tests). */
    Native.Image img() {
        return img;
    }

    /**
     * Fills the token again after other code re-wrote the image in place ({@link
     * UltraLogLog#toHyperLogLog()}); needs exclusive access, as that writing did.
     */
    void refreshToken() {
        img.fillToken(HyperLogLog::nToken);
    }

    @Override
    public String toString() {
        return "HyperLogLog[" + img.size() + "]";
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
        return new SerializedSketch(Sketches.FAMILY_HYPERLOGLOG, toByteArray());
    }

    /**
     * Refuses a stream naming this class instead of the proxy (made by hand to skip the import).
     *
     * @param in the stream (not read)
     * @throws InvalidObjectException always
     */
    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw Native.proxyRequired("HyperLogLog");
    }

    // ---- natives (hll.c) ----

    private static native long nSize(int p);

    private static native void nInit(long buf, long len, int p, long seed);

    private static native boolean nAdd(long buf, long len, long tok, byte[] key, int off, int klen);

    private static native boolean nAddBuf(long buf, long len, long tok, ByteBuffer key, int pos, int klen);

    private static native boolean nAddU64(long buf, long len, long tok, long key);

    private static native boolean nAddStr(long buf, long len, long tok, String key, int n);

    private static native void nAddPacked(long buf, long len, byte[] data, int[] offsets, int from, int count);

    private static native void nAddU64s(long buf, long len, long[] keys, int from, int count);

    private static native boolean nAddConcurrent(long buf, long len, byte[] key, int off, int klen);

    private static native boolean nAddConcurrentBuf(long buf, long len, ByteBuffer key, int pos, int klen);

    private static native boolean nAddConcurrentU64(long buf, long len, long key);

    private static native boolean nAddConcurrentStr(long buf, long len, String key, int n);

    private static native void nAddConcurrentPacked(
            long buf, long len, byte[] data, int[] offsets, int from, int count);

    private static native void nAddConcurrentU64s(long buf, long len, long[] keys, int from, int count);

    private static native double nEstimateConcurrent(long buf, long len);

    private static native void nDensify(long buf, long len);

    private static native double nEstimate(long buf, long len);

    private static native double nRegisterEstimate(long buf, long len);

    private static native void nReset(long buf, long len);

    private static native void nMerge(long dst, long dstLen, long src, long srcLen);

    private static native long nExportedSize(long buf, long len);

    private static native void nDownsize(long src, long srcLen, long dst, long dstLen, int p);

    private static native double nStats(long buf, long len, long[] l);

    private static native int nExport(long buf, long len, byte[] out);

    private static native long nImportSize(byte[] src);

    private static native void nImport(byte[] src, long dst, long dstLen);

    private static native void nVerifyAt(long buf, long len);

    private static native boolean nToken(long buf, long len, long token);
}
