package dev.sketches;

import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * A split-block Bloom filter ({@code sketch_sbbf_*}): 256-bit blocks, eight bits per key set in
 * one block, so every operation touches one cache line (AVX2 when available): the fastest filter
 * of the library, at about 10.5 bits per key for 1%. In Parquet mode ({@link #forParquet}) the
 * bitset ({@link #bitset()}) is byte-identical to what Parquet writers produce (XXH64 seed 0 of
 * the value's PLAIN encoding: a BYTE_ARRAY value's bytes, an INT64 value's 8 little-endian bytes).
 *
 * <p>Parquet interop: {@link #parquetHash(long)} and its overloads give the hash a Parquet writer
 * inserts for a typed value (to pass to {@link #addHash} and {@link #containsHash}); {@link
 * #forParquet(long, double, ParquetSizing)} sizes a filter as a given writer (parquet-rs, DuckDB,
 * Arrow C++) does, and {@link #foldToTargetFpp(double)} shrinks it as the folding writers do, so
 * that {@link #bitset()} equals their bytes; {@link #fromParquetBitset(byte[], double)} loads the
 * bitset read out of a Parquet file into a filter that answers exactly as that file's filter:
 * <pre>{@code
 * byte[] bitset = ...; // the bytes after a column chunk's BloomFilterHeader
 * SplitBlockBloomFilter f = SplitBlockBloomFilter.fromParquetBitset(bitset, 0.01);
 * boolean maybe = f.containsHash(SplitBlockBloomFilter.parquetHash(42L)); // an INT64 column
 * }</pre>
 *
 * <p>The filter lives in one 64-byte-aligned direct {@link ByteBuffer} (its image) that this
 * object owns: there is no native memory to free, the garbage collector reclaims it. {@link
 * #toByteArray()} exports it with a checksum; {@link #fromByteArray(byte[])} reads untrusted
 * bytes back; {@link #wrap(ByteBuffer)} and {@link #wrapVerified(ByteBuffer)} use a caller's
 * buffer (for example a memory-mapped file) without copying.
 *
 * <p>Keys: {@code byte[]} as they are, {@code String} as its UTF-8 bytes, {@code long} as its 8
 * little-endian bytes, {@code ByteBuffer} as its remaining bytes (position unchanged), each hashed
 * with XXH3-64 and the filter's seed in native mode, with XXH64 seed 0 in Parquet mode (so there
 * {@code add(String)}, {@code add(byte[])}, {@code add(long)} and {@code add(int)} insert what
 * {@link #parquetHash(String)}, {@link #parquetHash(byte[])}, {@link #parquetHash(long)} and
 * {@link #parquetHash(int)} give: a BYTE_ARRAY, INT64 or INT32 value, chosen by the Java type of
 * the key, so pass a {@code long} for an INT64 column and an {@code int} for an INT32 one; FLOAT
 * and DOUBLE values need {@link #addHash} with their {@code parquetHash}; an {@code int} in native
 * mode hashes as the {@code long} of the same value): a filter built here answers C, C++ and Go
 * queries for the same keys.
 * Batches ({@code addAll}, {@code containsAll}, {@code *Packed}) cross into native code once per
 * 16,384 keys.
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
 * isOverCapacity}, {@code isParquetMode}, {@code bitset}, {@code toByteArray}, {@code writeTo}, {@code imageBytes},
 * {@code image}) may run concurrently from any number of threads; a call that changes the filter
 * ({@code add*}, {@code merge}, {@code intersect}, {@code clear}, {@code fold}, {@code
 * foldToTargetFpp}) needs exclusive access (no concurrent query or change of the same filter).
 *
 * <p>The concurrent methods are the exception: {@code addConcurrent}, {@code addAllConcurrent},
 * {@code addPackedConcurrent}, {@code containsConcurrent}, {@code containsAllConcurrent}, {@code
 * containsPackedConcurrent}, {@code capacityFlagsConcurrent} and {@code isOverCapacityConcurrent}
 * (the C ABI's {@code sketch_sbbf_*_concurrent}, atomic operations on the image's 64-bit words;
 * both modes). Any number of threads may call them on one filter at once; while any of them runs,
 * no other method may be called on it (not even {@code contains}, {@code stats}, {@code bitset} or
 * {@code toByteArray}). Such a call (through this object or another over the same memory) is not
 * refused, as the concurrent methods take no change guard: it races them, with the effects the
 * {@linkplain dev.sketches package documentation} lists (adds lost, counters off, SketchException
 * {@link Status#CORRUPT_HEADER} for a header left inconsistent, until the sketch is made anew),
 * never a JVM crash. A concurrent query sees every concurrent add that returned before it (on its
 * thread, or on a thread it synchronized with since); an add still running may or may not be seen.
 * Once the adding threads are done (joined), the blocks and the {@code addCalls} counter (and what
 * {@code stats} measures from the blocks: {@code setBits}, {@code fill}, {@code estimatedItems},
 * {@code estimatedFpr}) equal those of the same adds made one at a time, in any order. {@code
 * inserted} (adds that set a new bit) depends on how the threads' adds interleaved: it may differ
 * from a sequential run's, and so may the capacity flags computed from it. Two threads adding the
 * same key at once may both be told it was new.
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
public final class SplitBlockBloomFilter implements Serializable {
    static {
        Native.load();
    }

    /**
     * The image; replaced (same memory, shorter) only by {@link #fold} and {@link
     * #foldToTargetFpp}, which need exclusive access like every change. Transient: Java
     * serialization writes the proxy; Kryo's field copier must skip native memory.
     */
    private transient Native.Image img;

    /**
     * Whether the image is in Parquet mode (its header's hash is XXH64), read once when the filter
     * is made (a fold keeps the mode): the {@code int} key forms hash by it.
     */
    private final transient boolean parquet;

    /**
     * A sketch without an image, made only by a framework that instantiates a class through its
     * no-argument constructor and copies its fields (Kryo without the sketch classes registered
     * with its JavaSerializer): every use throws IllegalStateException saying so ({@link
     * Native.Image#detached}).
     */
    private SplitBlockBloomFilter() {
        this.img = Native.Image.detached("SplitBlockBloomFilter");
        this.parquet = false;
    }

    /** Takes an image with a token (initialized, imported or checked) and fills the token from it. */
    private SplitBlockBloomFilter(Native.Image img) {
        this.img = img;
        img.fillToken(SplitBlockBloomFilter::nToken);
        this.parquet = parquetMode(img);
    }

    /** The hash id of XXH64 in an image header ({@link Sketches.ImageInfo#hash}): Parquet mode. */
    private static final int HASH_XXH64 = 2;

    /** Whether a checked split-block image is in Parquet mode (its common header's hash id). */
    private static boolean parquetMode(Native.Image img) {
        long[] v = new long[8];
        try {
            Native.inspectAt(img.addr(), img.len, v);
        } finally {
            Reference.reachabilityFence(img);
        }
        return v[1] == HASH_XXH64;
    }

    /** An {@code int} key as a Parquet INT32 value's PLAIN encoding: 4 little-endian bytes. */
    private static byte[] int32(int key) {
        return new byte[] {(byte) key, (byte) (key >>> 8), (byte) (key >>> 16), (byte) (key >>> 24)};
    }

    /**
     * A native-mode filter planned for {@code expectedItems} distinct items at false-positive rate
     * {@code fpr}, seed 0.
     *
     * @param expectedItems items the filter is planned for (at least 1)
     * @param fpr false-positive rate at that count, in (0, 1)
     * @return an empty filter
     * @throws IllegalArgumentException when a parameter is out of range or the filter would not
     *     fit in one ByteBuffer (2 GiB)
     */
    public static SplitBlockBloomFilter create(long expectedItems, double fpr) {
        return create(expectedItems, fpr, 0);
    }

    /**
     * A native-mode filter (XXH3-64 with {@code seed}, 64-bit block selection) planned for {@code
     * expectedItems} distinct items at rate {@code fpr}.
     *
     * @param expectedItems items the filter is planned for (at least 1)
     * @param fpr false-positive rate at that count, in (0, 1)
     * @param seed hash seed (filters combine only with the same seed)
     * @return an empty filter
     * @throws IllegalArgumentException when a parameter is out of range or the filter would not
     *     fit in one ByteBuffer (2 GiB)
     */
    public static SplitBlockBloomFilter create(long expectedItems, double fpr, long seed) {
        return init(plan(expectedItems, fpr, false), seed);
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
        return plan(expectedItems, fpr, false)[4];
    }

    /**
     * A Parquet-mode filter sized the way Parquet writers size a column's bitset from its
     * distinct-value count and fpp (a power of two bytes, 32 B to 128 MiB: the parquet crate's
     * rule, {@link ParquetSizing#PARQUET_RS}); seed 0, XXH64. parquet-java (the writer of Spark
     * and Hive) sizes the same way but clamps at its {@code parquet.bloom.filter.max.bytes}, 1 MiB
     * by default, and does not fold: where this plans more than that, rebuild its bitset with
     * {@link #withBlocks(long, boolean, long) withBlocks(maxBytes / 32, true, 0)}.
     *
     * @param distinctValues the column's distinct values (at least 1)
     * @param fpp false-positive probability, in (0, 1)
     * @return an empty filter
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static SplitBlockBloomFilter forParquet(long distinctValues, double fpp) {
        return init(plan(distinctValues, fpp, true), 0);
    }

    /**
     * The image size in bytes of {@link #forParquet(long, double)}'s filter (its bitset and the
     * header), without allocating it (as {@link #imageBytes(long, double)}).
     *
     * @param distinctValues the column's distinct values (at least 1)
     * @param fpp false-positive probability, in (0, 1)
     * @return the size in bytes
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static long imageBytesForParquet(long distinctValues, double fpp) {
        return plan(distinctValues, fpp, true)[4];
    }

    /**
     * A Parquet-mode filter sized as the writer {@code sizing} sizes a column chunk's bitset for
     * {@code distinctValues} at rate {@code fpp} (seed 0, XXH64). To reproduce the bytes of a
     * writer that folds before writing ({@link ParquetSizing#PARQUET_RS}, {@link
     * ParquetSizing#ARROW_CPP}), add the values, then call {@link #foldToTargetFpp(double)} with
     * the same {@code fpp}. Example: 1693 values at 0.01 plan a 4096-byte bitset with Arrow C++
     * sizing, 2048 with the others.
     *
     * @param distinctValues the column's distinct values as the writer counts them (at least 1):
     *     DuckDB the chunk's dictionary size, pyarrow its {@code ndv} option
     * @param fpp false-positive probability, in (0, 1)
     * @param sizing the writer's rule
     * @return an empty filter
     * @throws IllegalArgumentException when a parameter is out of range or the filter would not
     *     fit in one ByteBuffer (2 GiB; DuckDB's rule has no upper clamp)
     * @throws NullPointerException when {@code sizing} is null
     */
    public static SplitBlockBloomFilter forParquet(long distinctValues, double fpp, ParquetSizing sizing) {
        Objects.requireNonNull(sizing, "sizing");
        return init(planParquet(distinctValues, fpp, sizing), 0);
    }

    /**
     * The image size in bytes of {@link #forParquet(long, double, ParquetSizing)}'s filter (its
     * bitset and the header; before any fold), without allocating it (as {@link
     * #imageBytes(long, double)}).
     *
     * @param distinctValues the column's distinct values (at least 1)
     * @param fpp false-positive probability, in (0, 1)
     * @param sizing the writer's rule
     * @return the size in bytes
     * @throws IllegalArgumentException when a parameter is out of range
     * @throws NullPointerException when {@code sizing} is null
     */
    public static long imageBytesForParquet(long distinctValues, double fpp, ParquetSizing sizing) {
        Objects.requireNonNull(sizing, "sizing");
        return planParquet(distinctValues, fpp, sizing)[4];
    }

    private static long[] planParquet(long items, double fpp, ParquetSizing sizing) {
        if (items < 1) {
            throw new IllegalArgumentException("the item count must be at least 1: " + items);
        }
        if (!(fpp > 0 && fpp < 1)) {
            throw new IllegalArgumentException("the rate must be in (0, 1): " + fpp);
        }
        long[] plan = new long[5];
        try {
            nPlanParquetSizing(items, fpp, sizing.id(), plan);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
        return plan;
    }

    private static long[] plan(long items, double fpr, boolean parquet) {
        if (items < 1) {
            throw new IllegalArgumentException("the item count must be at least 1: " + items);
        }
        if (!(fpr > 0 && fpr < 1)) {
            throw new IllegalArgumentException("the rate must be in (0, 1): " + fpr);
        }
        long[] plan = new long[5];
        try {
            nPlan(items, fpr, parquet, plan);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
        return plan;
    }

    /**
     * A filter of exactly {@code blocks} 32-byte blocks, for example to rebuild a Parquet bitset of
     * {@code blocks * 32} bytes.
     *
     * @param blocks number of blocks (at least 1)
     * @param parquet true for Parquet mode (XXH64 seed 0, the seed argument must be 0), false for native
     * @param seed hash seed in native mode
     * @return an empty filter
     * @throws IllegalArgumentException when a parameter is out of range
     */
    public static SplitBlockBloomFilter withBlocks(long blocks, boolean parquet, long seed) {
        return init(planBlocks(blocks, parquet), seed);
    }

    /**
     * The image size in bytes of {@link #withBlocks(long, boolean, long)}'s filter (the same in
     * both modes), without allocating it (as {@link #imageBytes(long, double)}).
     *
     * @param blocks number of blocks (at least 1)
     * @return the size in bytes
     * @throws IllegalArgumentException when the block count is out of range
     */
    public static long imageBytesWithBlocks(long blocks) {
        return planBlocks(blocks, false)[4];
    }

    private static long[] planBlocks(long blocks, boolean parquet) {
        if (blocks < 1) {
            throw new IllegalArgumentException("blocks must be at least 1: " + blocks);
        }
        long[] plan = new long[5];
        try {
            nPlanBlocks(blocks, parquet ? MODE_PARQUET : MODE_NATIVE, plan);
        } catch (SketchException e) {
            throw Native.parameter(e);
        }
        return plan;
    }

    /** Mode of a native filter (SKETCH_SBBF_NATIVE). */
    public static final int MODE_NATIVE = 0;

    /** Mode of a Parquet-compatible filter (SKETCH_SBBF_PARQUET). */
    public static final int MODE_PARQUET = 1;

    private static SplitBlockBloomFilter init(long[] plan, long seed) {
        Native.Image img = Native.freshWithToken(plan[4]);
        try {
            try {
                nInit(img.addr(), img.len, plan[0], plan[1], Double.longBitsToDouble(plan[2]), (int) plan[3], seed);
            } catch (SketchException e) {
                throw Native.parameter(e);
            }
        } finally {
            Reference.reachabilityFence(img);
        }
        return new SplitBlockBloomFilter(img);
    }

    /**
     * Reads an exported image (untrusted bytes: headers, exact length and checksum are checked)
     * into a new filter.
     *
     * @param bytes the bytes {@link #toByteArray()} (or any binding's export) produced
     * @return the filter
     * @throws NullPointerException when {@code bytes} is null
     * @throws SketchException when the bytes are damaged or not a split-block Bloom filter ({@link
     *     Status#CHECKSUM_MISMATCH}, {@link Status#LENGTH_MISMATCH}, {@link Status#WRONG_FAMILY},
     *     {@link Status#BAD_MAGIC}, ...); nothing is kept
     */
    public static SplitBlockBloomFilter fromByteArray(byte[] bytes) {
        Objects.requireNonNull(bytes, "bytes");
        return new SplitBlockBloomFilter(
                Native.importedWithToken(bytes, SplitBlockBloomFilter::nImportSize, SplitBlockBloomFilter::nImport));
    }

    /**
     * Uses a caller's buffer as the filter's image without copying, after checking its headers
     * against its length (through {@link #capacityFlags()}: cheap, but a scan of the blocks for
     * the image of a filter loaded from a Parquet bitset; the body is not checked: any body bytes
     * are memory-safe to query,
     * damaged ones only give wrong answers). Use {@link #wrapVerified(ByteBuffer)} for bytes from
     * elsewhere. The image is the buffer's bytes from its position to its limit; changes through
     * this filter write to the buffer. A read-only buffer gives a filter whose changes throw
     * {@link java.nio.ReadOnlyBufferException}.
     *
     * @param buffer a direct buffer starting on an 8-byte boundary (a mapped file qualifies)
     * @return a filter over the buffer
     * @throws NullPointerException when {@code buffer} is null
     * @throws IllegalArgumentException when the buffer is not direct or not 8-byte aligned
     * @throws SketchException when the headers are not those of a split-block Bloom filter of that length
     */
    public static SplitBlockBloomFilter wrap(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new SplitBlockBloomFilter(Native.wrappedWithToken(buffer, SplitBlockBloomFilter::nCapacity));
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
     * @throws SketchException when the bytes are damaged or not a split-block Bloom filter
     */
    public static SplitBlockBloomFilter wrapVerified(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        return new SplitBlockBloomFilter(Native.wrappedWithToken(buffer, SplitBlockBloomFilter::nVerifyAt));
    }

    /**
     * A new Parquet-mode filter whose blocks are a copy of {@code bitset}, the bitset of a column
     * chunk's bloom filter read out of a Parquet file (the {@code numBytes} bytes after its
     * Thrift {@code BloomFilterHeader}). It answers exactly as that file's filter does: test
     * values with {@link #containsHash} and the {@link #parquetHash(long)} overloads. It can be
     * added to, merged with filters of the same block count, folded and exported; {@link
     * #bitset()} gives the bytes back. Its add counters start at 0: its capacity signal and
     * statistics follow the fill of the blocks instead (an all-ones bitset is over capacity).
     * Planned ({@link Stats#plannedItems()}) for the most items at which a bitset of that size
     * still meets {@code fpr}.
     *
     * <p>Thread safety: reads {@code bitset} once; the caller must not change it during the call.
     *
     * @param bitset the bitset bytes (a multiple of 32 bytes, at least 32); not kept
     * @param fpr the writer's false-positive rate (the plan's rate), in (0, 1)
     * @return the filter, in its own image of {@code bitset.length} bytes plus the header
     * @throws IllegalArgumentException when the bitset is empty or not a multiple of 32 bytes (its
     *     cause a {@link SketchException} with {@link Status#INVALID_ARGUMENT}), too large for one
     *     ByteBuffer, or {@code fpr} is not in (0, 1); nothing is allocated
     * @throws NullPointerException when {@code bitset} is null
     */
    public static SplitBlockBloomFilter fromParquetBitset(byte[] bitset, double fpr) {
        Objects.requireNonNull(bitset, "bitset");
        return loadParquet(bitset, null, 0, bitset.length, fpr);
    }

    /**
     * As {@link #fromParquetBitset(byte[], double)}, from the remaining bytes of a buffer (its
     * position does not move): for a bitset in a memory-mapped Parquet file, read without an
     * intermediate array.
     *
     * <p>Thread safety: as {@link #fromParquetBitset(byte[], double)}.
     *
     * @param bitset the bitset bytes from position to limit (a multiple of 32, at least 32); not kept
     * @param fpr the writer's false-positive rate, in (0, 1)
     * @return the filter, in its own image
     * @throws IllegalArgumentException as {@link #fromParquetBitset(byte[], double)}; nothing is
     *     allocated
     * @throws NullPointerException when {@code bitset} is null
     */
    public static SplitBlockBloomFilter fromParquetBitset(ByteBuffer bitset, double fpr) {
        Objects.requireNonNull(bitset, "bitset");
        int pos = bitset.position();
        int n = bitset.remaining();
        if (Native.direct(bitset, pos, n)) {
            return loadParquet(null, bitset, pos, n, fpr);
        }
        if (bitset.hasArray()) {
            return loadParquet(bitset.array(), null, bitset.arrayOffset() + pos, n, fpr);
        }
        byte[] copy = new byte[n];
        bitset.duplicate().get(copy);
        return loadParquet(copy, null, 0, n, fpr);
    }

    /** Plans for {@code n} bitset bytes (refusing bad lengths before allocating), then loads them. */
    private static SplitBlockBloomFilter loadParquet(byte[] array, ByteBuffer direct, int off, int n, double fpr) {
        if (!(fpr > 0 && fpr < 1)) {
            throw new IllegalArgumentException("the rate must be in (0, 1): " + fpr);
        }
        long[] plan = new long[5];
        try {
            nPlanParquetBitset(n, fpr, plan);
        } catch (SketchException e) {
            if (e.status() == Status.INVALID_ARGUMENT) {
                throw new IllegalArgumentException("a Parquet bitset is a positive multiple of 32 bytes (one per"
                        + " 256-bit block), not " + n + " bytes (" + e.getMessage() + ")", e);
            }
            throw badArgument(e);
        }
        Native.Image img = Native.freshWithToken(plan[4]);
        try {
            if (array != null) {
                nLoadParquetBitset(img.addr(), img.len, array, off, n,
                        plan[0], plan[1], Double.longBitsToDouble(plan[2]), (int) plan[3]);
            } else {
                nLoadParquetBitsetBuf(img.addr(), img.len, direct, off, n,
                        plan[0], plan[1], Double.longBitsToDouble(plan[2]), (int) plan[3]);
            }
        } catch (SketchException e) {
            throw badArgument(e);
        } finally {
            Reference.reachabilityFence(img);
            Reference.reachabilityFence(direct);
        }
        return new SplitBlockBloomFilter(img);
    }

    /** A refusal of the caller's arguments (a parameter or a count) becomes an IllegalArgumentException. */
    private static RuntimeException badArgument(SketchException e) {
        if (e.status() == Status.INVALID_ARGUMENT || e.status() == Status.INVALID_PARAMETER) {
            return new IllegalArgumentException(e.getMessage(), e);
        }
        return e;
    }

    // ---- Parquet hashes ----

    /**
     * Parquet's bloom filter hash of an INT32 value ({@code sketch_parquet_hash_i32}): XXH64 seed
     * 0 of its PLAIN encoding, 4 little-endian bytes. Pass it to {@link #addHash} or {@link
     * #containsHash} of a Parquet-mode filter. Also the hash of the INT32 physical type's logical
     * types (INT(8), INT(16), DATE, ...): widen to {@code int} first. Note that an {@code int}
     * argument chooses this overload: for an INT64 column pass a {@code long}.
     *
     * <p>Thread safety: a pure function, callable from any thread.
     *
     * @param value the value
     * @return the 64-bit hash
     */
    public static long parquetHash(int value) {
        return nParquetHashI32(value);
    }

    /**
     * Parquet's bloom filter hash of an INT64 value ({@code sketch_parquet_hash_i64}): XXH64 seed
     * 0 of its 8 little-endian bytes.
     *
     * <p>Thread safety: a pure function, callable from any thread.
     *
     * @param value the value
     * @return the 64-bit hash
     */
    public static long parquetHash(long value) {
        return nParquetHashI64(value);
    }

    /**
     * Parquet's bloom filter hash of a FLOAT value ({@code sketch_parquet_hash_float}): XXH64 seed
     * 0 of its raw IEEE-754 bits ({@link Float#floatToRawIntBits}), 4 little-endian bytes, as
     * writers hash it: -0.0 and +0.0 differ and each NaN bit pattern is its own value (DuckDB's
     * reader answers "maybe" for +0.0 when only -0.0 was written: probe both zeros to answer as
     * it does). A {@code float} holding a signaling NaN may be quieted by the JVM on some
     * platforms before it arrives here; to hash exact bits, pass them to {@link #parquetHash(int)}
     * (the same 4 bytes, the same hash).
     *
     * <p>Thread safety: a pure function, callable from any thread.
     *
     * @param value the value
     * @return the 64-bit hash
     */
    public static long parquetHash(float value) {
        return nParquetHashFloat(Float.floatToRawIntBits(value));
    }

    /**
     * Parquet's bloom filter hash of a DOUBLE value ({@code sketch_parquet_hash_double}): XXH64
     * seed 0 of its raw IEEE-754 bits ({@link Double#doubleToRawLongBits}), 8 little-endian bytes;
     * zeros and NaNs as for {@link #parquetHash(float)} (exact bits: {@link #parquetHash(long)} of
     * the raw bits gives the same hash).
     *
     * <p>Thread safety: a pure function, callable from any thread.
     *
     * @param value the value
     * @return the 64-bit hash
     */
    public static long parquetHash(double value) {
        return nParquetHashDouble(Double.doubleToRawLongBits(value));
    }

    /**
     * Parquet's bloom filter hash of a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY value ({@code
     * sketch_parquet_hash_bytes}): XXH64 seed 0 of the raw bytes, without the 4-byte length prefix
     * of the PLAIN encoding.
     *
     * <p>Thread safety: a pure function, callable from any thread (the caller must not change the
     * array during the call).
     *
     * @param value the value's bytes
     * @return the 64-bit hash
     * @throws NullPointerException when {@code value} is null
     */
    public static long parquetHash(byte[] value) {
        Objects.requireNonNull(value, "value");
        return nParquetHashBytes(value, 0, value.length);
    }

    /**
     * Parquet's bloom filter hash of a STRING value (a BYTE_ARRAY column with the STRING logical
     * type): XXH64 seed 0 of its UTF-8 bytes, as {@link #parquetHash(byte[])}. The bytes are
     * those of {@code value.getBytes(StandardCharsets.UTF_8)}: an unpaired surrogate (no valid
     * UTF-8) becomes {@code '?'}, as in every String key of this class, so such a string hashes
     * as the same string with {@code '?'} in its place.
     *
     * <p>Thread safety: a pure function, callable from any thread.
     *
     * @param value the string
     * @return the 64-bit hash
     * @throws NullPointerException when {@code value} is null
     */
    public static long parquetHash(String value) {
        Objects.requireNonNull(value, "value");
        return parquetHash(Native.utf8(Objects.requireNonNull(value, "value")));
    }

    /**
     * Parquet's bloom filter hash of the remaining bytes of a buffer as one BYTE_ARRAY value (as
     * {@link #parquetHash(byte[])}; the buffer's position does not move).
     *
     * <p>Thread safety: a pure function, callable from any thread (the caller must not change the
     * bytes during the call).
     *
     * @param value the value's bytes, position to limit
     * @return the 64-bit hash
     * @throws NullPointerException when {@code value} is null
     */
    public static long parquetHash(ByteBuffer value) {
        Objects.requireNonNull(value, "value");
        int pos = value.position();
        int n = value.remaining();
        try {
            if (Native.direct(value, pos, n)) {
                return nParquetHashBuf(value, pos, n);
            }
            if (value.hasArray()) {
                return nParquetHashBytes(value.array(), value.arrayOffset() + pos, n);
            }
            byte[] copy = new byte[n];
            value.duplicate().get(copy);
            return nParquetHashBytes(copy, 0, n);
        } finally {
            Reference.reachabilityFence(value);
        }
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
     * Adds a long key (its 8 little-endian bytes; in Parquet mode an INT64 value, see {@link
     * #add(int)} for INT32).
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
     * Adds an {@code int} key. In native mode as {@code (long) key}
     * (its 8 little-endian bytes, as every family hashes an integer key); in Parquet mode as an
     * INT32 value (Parquet's hash of its 4 little-endian bytes, {@link #parquetHash(int)}), as a
     * Parquet writer hashes an INT32 column (INT, SMALLINT, TINYINT, DATE): for an INT64 column
     * pass a {@code long}. (Without this overload an {@code int} widened to the {@code long} form
     * and, in Parquet mode, silently missed every INT32 value.)
     *
     * @param key the key
     * @return true when the key was new to the filter
     * @throws java.nio.ReadOnlyBufferException when the filter wraps a read-only buffer
     */
    public boolean add(int key) {
        return parquet ? add(int32(key)) : add((long) key);
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
     * Tests a long key (its 8 little-endian bytes; in Parquet mode an INT64 value, see {@link
     * #contains(int)} for INT32).
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
     * Tests an {@code int} key, hashed as {@link #add(int)} hashes it. In native mode as {@code (long) key}
     * (its 8 little-endian bytes, as every family hashes an integer key); in Parquet mode as an
     * INT32 value (Parquet's hash of its 4 little-endian bytes, {@link #parquetHash(int)}), as a
     * Parquet writer hashes an INT32 column (INT, SMALLINT, TINYINT, DATE): for an INT64 column
     * pass a {@code long}. (Without this overload an {@code int} widened to the {@code long} form
     * and, in Parquet mode, silently missed every INT32 value.)
     *
     * @param key the key
     * @return false when the key was certainly never added, true when it may have been
     */
    public boolean contains(int key) {
        return parquet ? contains(int32(key)) : contains((long) key);
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

    /**
     * Adds a precomputed hash ({@code sketch_sbbf_add_hash}): in Parquet mode a {@link
     * #parquetHash(long)} value (XXH64 seed 0 of the value's PLAIN encoding), in native mode
     * {@link Sketches#hash(byte[], long)} with the filter's seed.
     *
     * <p>Thread safety: a change (exclusive access; see the class notes).
     *
     * @param hash the 64-bit hash
     * @return true when the hash was new to the filter (some probed bit was unset)
     * @throws java.nio.ReadOnlyBufferException when the filter wraps a read-only buffer
     */
    public boolean addHash(long hash) {
        img.checkWritable();
        img.beginChange();
        try {
            return nAddHash(img.addr(), img.len, img.token, hash);
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests a precomputed hash ({@code sketch_sbbf_contains_hash}), as {@link #addHash(long)}
     * takes it.
     *
     * <p>Thread safety: a query (concurrent queries allowed; see the class notes).
     *
     * @param hash the 64-bit hash
     * @return false when the hash was certainly never added, true when it may have been
     */
    public boolean containsHash(long hash) {
        try {
            return nContainsHash(img.addr(), img.len, img.token, hash);
        } finally {
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Adds every precomputed hash (see {@link #addHash(long)}), one native call per 16,384.
     *
     * <p>Thread safety: a change (exclusive access).
     *
     * @param hashes the hashes
     * @throws NullPointerException when {@code hashes} is null
     * @throws java.nio.ReadOnlyBufferException when the filter wraps a read-only buffer
     */
    public void addAllHashes(long[] hashes) {
        Objects.requireNonNull(hashes, "hashes");
        addAllHashes(hashes, null);
    }

    /**
     * Adds every precomputed hash, reporting per hash whether it was new (see {@link
     * #addHash(long)}).
     *
     * <p>Thread safety: a change (exclusive access).
     *
     * @param hashes the hashes
     * @param wasNew null, or at least {@code hashes.length} slots; slot i receives whether hash i
     *     set a new bit
     * @throws NullPointerException when {@code hashes} is null
     * @throws IllegalArgumentException when {@code wasNew} is too short (nothing is added)
     * @throws java.nio.ReadOnlyBufferException when the filter wraps a read-only buffer
     */
    public void addAllHashes(long[] hashes, boolean[] wasNew) {
        Objects.requireNonNull(hashes, "hashes");
        Native.checkOut(wasNew, hashes.length);
        img.checkWritable();
        img.beginChange();
        try {
            for (int from = 0; from < hashes.length; from += Native.CHUNK) {
                nAddHashes(img.addr(), img.len, hashes, from, Math.min(Native.CHUNK, hashes.length - from), wasNew, from);
            }
        } finally {
            img.endChange();
            Reference.reachabilityFence(img);
        }
    }

    /**
     * Tests every precomputed hash (see {@link #containsHash(long)}).
     *
     * <p>Thread safety: a query.
     *
     * @param hashes the hashes
     * @return per hash: false when certainly never added
     * @throws NullPointerException when {@code hashes} is null
     */
    public boolean[] containsAllHashes(long[] hashes) {
        Objects.requireNonNull(hashes, "hashes");
        boolean[] out = new boolean[hashes.length];
        containsAllHashes(hashes, out);
        return out;
    }

    /**
     * Tests every precomputed hash into a caller's array (no allocation).
     *
     * <p>Thread safety: a query.
     *
     * @param hashes the hashes
     * @param results at least {@code hashes.length} slots; slot i receives hash i's answer
     * @throws NullPointerException when {@code hashes} or {@code results} is null
     * @throws IllegalArgumentException when {@code results} is too short
     */
    public void containsAllHashes(long[] hashes, boolean[] results) {
        Objects.requireNonNull(hashes, "hashes");
        Objects.requireNonNull(results, "results");
        Native.checkOut(results, hashes.length);
        try {
            for (int from = 0; from < hashes.length; from += Native.CHUNK) {
                nContainsHashes(
                        img.addr(), img.len, hashes, from, Math.min(Native.CHUNK, hashes.length - from), results, from);
            }
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
     * threads are done (joined), the blocks and the {@code addCalls} counter equal those of the
     * same adds made one at a time; {@code inserted} depends on how the adds interleaved (see the
     * class documentation).
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
     * Adds an {@code int} key, hashed as {@link #add(int)} hashes it; one of the concurrent methods.
     *
     * <p>Thread safety: as {@link #addConcurrent(byte[])}.
     *
     * @param key the key
     * @return true when this call set a new bit
     */
    public boolean addConcurrent(int key) {
        return parquet ? addConcurrent(int32(key)) : addConcurrent((long) key);
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
     * Tests an {@code int} key, hashed as {@link #add(int)} hashes it, with atomic loads; one of
     * the concurrent methods.
     *
     * <p>Thread safety: as {@link #containsConcurrent(byte[])}.
     *
     * @param key the key
     * @return false when the key was certainly never added, true when it may have been
     */
    public boolean containsConcurrent(int key) {
        return parquet ? containsConcurrent(int32(key)) : containsConcurrent((long) key);
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
     * @param other a filter with equal blocks, mode and seed
     * @throws NullPointerException when {@code other} is null
     * @throws SketchException {@link Status#INCOMPATIBLE} when the parameters differ (nothing
     *     changes); {@code other} may be this filter itself (a copy of it
     *     is merged, as an equal filter would be)
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch or
     *     {@code other} meanwhile (against the thread-safety rules; see the class notes)
     */
    public void merge(SplitBlockBloomFilter other) {
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
     * @param other a filter with equal blocks, mode and seed
     * @throws NullPointerException when {@code other} is null
     * @throws SketchException {@link Status#INCOMPATIBLE} when the parameters differ
     * @throws java.util.ConcurrentModificationException when another thread changes this sketch or
     *     {@code other} meanwhile (against the thread-safety rules; see the class notes)
     */
    public void intersect(SplitBlockBloomFilter other) {
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

    /**
     * Folds the filter {@code folds} times in place ({@code sketch_sbbf_fold}): each fold halves
     * the block count, OR-ing adjacent blocks, as Parquet writers shrink an under-filled filter.
     * Every key stays present; the rate rises. Afterwards {@link #imageBytes()}, {@link
     * #image()}, {@link #bitset()}, {@link #stats()} and {@link #toByteArray()} describe the
     * shorter image (views taken before keep their old length: take them again). A filter over a
     * wrapped buffer ({@link #wrap}) is folded in place too: its image is then the first {@link
     * #imageBytes()} bytes of the wrapped region (the rest is no longer part of it; wrap that
     * prefix to use the buffer again later). 0 folds change nothing.
     *
     * <p>Thread safety: a change (exclusive access; see the class notes).
     *
     * @param folds the number of halvings (at least 0)
     * @throws IllegalArgumentException when {@code folds} is negative or the block count is not
     *     divisible by {@code 2^folds} (the cause a {@link SketchException} with {@link
     *     Status#INVALID_ARGUMENT}); nothing changes
     * @throws java.nio.ReadOnlyBufferException when the filter wraps a read-only buffer
     */
    public void fold(int folds) {
        if (folds < 0) {
            throw new IllegalArgumentException("the fold count must be at least 0: " + folds);
        }
        img.checkWritable();
        // The image this change holds: shrinkTo replaces the field with a shorter view of it.
        Native.Image folding = img;
        folding.beginChange();
        try {
            long newLen;
            try {
                newLen = nFold(folding.addr(), folding.len, folds);
            } catch (SketchException e) {
                if (e.status() == Status.INVALID_ARGUMENT) {
                    long[] v = new long[2];
                    nBitset(folding.addr(), folding.len, v);
                    throw new IllegalArgumentException("cannot fold " + v[1] / 32 + " blocks " + folds
                            + " times: the block count must be divisible by 2^" + folds + " (" + e.getMessage() + ")",
                            e);
                }
                throw badArgument(e);
            }
            shrinkTo(newLen);
        } finally {
            folding.endChange();
            Reference.reachabilityFence(folding);
        }
    }

    /**
     * Folds as far as the parquet crate and Arrow C++ (pyarrow) fold a filter before writing it
     * with target rate {@code fpp} ({@code sketch_sbbf_fold_to_target_fpp}): the most halvings
     * whose estimated rate {@code (1 - (1 - fill)^(2^k))^8} stays within {@code fpp}, at most as
     * many as the block count halves evenly (a power of two folds down to one block, 6 blocks at
     * most once, to 3). An empty filter (no bit set) folds that far whatever {@code fpp} is, as
     * those writers fold an empty bitset. A rate outside (0, 1) is refused, as the planners
     * and the writers' settings refuse it (1 meant as 1% would fold any filter that far, to an
     * all-ones block answering true for every value). On a filter from {@link #forParquet(long, double,
     * ParquetSizing)} holding a column's distinct values, {@link #bitset()} then equals those
     * writers' bitset. The image shrinks in place as with {@link #fold(int)}.
     *
     * <p>Thread safety: a change (exclusive access; see the class notes).
     *
     * @param fpp the target rate
     * @return the number of folds made (0 when none)
     * @throws IllegalArgumentException when {@code fpp} is not in (0, 1), NaN included (the cause
     *     a {@link SketchException} with {@link Status#INVALID_PARAMETER}); nothing changes
     * @throws java.nio.ReadOnlyBufferException when the filter wraps a read-only buffer
     */
    public int foldToTargetFpp(double fpp) {
        img.checkWritable();
        long[] out = new long[2];
        // The image this change holds: shrinkTo replaces the field with a shorter view of it.
        Native.Image folding = img;
        folding.beginChange();
        try {
            try {
                nFoldToTargetFpp(folding.addr(), folding.len, fpp, out);
            } catch (SketchException e) {
                throw badArgument(e);
            }
            shrinkTo(out[1]);
        } finally {
            folding.endChange();
            Reference.reachabilityFence(folding);
        }
        return (int) out[0];
    }

    /** After a fold: the image is its first {@code newLen} bytes; the token follows it. */
    private void shrinkTo(long newLen) {
        if (newLen != img.len) {
            img = img.prefix(newLen);
        }
        img.fillToken(SplitBlockBloomFilter::nToken);
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
     * The over-capacity signal: {@link Sketches#CAPACITY_OVER_PLANNED_ITEMS} and {@link
     * Sketches#CAPACITY_FPR_ABOVE_TWICE_PLANNED} bits, 0 while the filter is within its plan.
     * Without a scan of the blocks (the add counters against the plan; a Poisson sum of about
     * 12 sqrt(load) + 30 terms, a few microseconds, whatever the size): cheap enough to call after
     * every batch. Except for a filter loaded from a Parquet bitset ({@link #fromParquetBitset},
     * also after an export and import or wrap of its image): its counters do not count the
     * bitset's items, so this scans the blocks (O(image size)), as {@link #stats()} does.
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
     * Whether the filter is past its plan ({@link #capacityFlags()} is not 0; as cheap as it).
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
     * Whether the filter is in Parquet mode (XXH64 seed 0, Parquet's block rule: a filter from
     * {@link #forParquet} or a Parquet file's bitset), where keys hash as the Parquet values they
     * are ({@code int} as INT32, {@code long} as INT64, strings and bytes as BYTE_ARRAY). O(1): read
     * once when the filter got its image.
     *
     * <p>Thread safety: any thread, at any time.
     *
     * @return true in Parquet mode, false in native mode
     * @throws IllegalStateException for a copy made without its image (Kryo without the
     *     registrator; see the package notes)
     */
    public boolean isParquetMode() {
        img.present();
        return parquet;
    }

    /**
     * Every statistic (the set bits are counted: O(image size)).
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
        return new Stats(l[0], l[1], d[0], (int) l[2], l[3], l[4], l[5], l[6], d[1], d[2], d[3], (int) l[7]);
    }

    /**
     * Statistics of a split-block Bloom filter.
     *
     * @param blocks number of 32-byte blocks
     * @param plannedItems items the filter was planned for
     * @param plannedFpr false-positive rate planned at that count
     * @param mode {@link #MODE_NATIVE} or {@link #MODE_PARQUET}
     * @param seed hash seed (0 in Parquet mode)
     * @param addCalls add calls, duplicates included
     * @param inserted add calls that set at least one new bit (about the distinct items)
     * @param setBits bits set
     * @param fill fraction of bits set, 0..1
     * @param estimatedItems distinct items estimated from the set bits
     * @param estimatedFpr current false-positive rate measured from the blocks
     * @param capacityFlags {@code CAPACITY_*} bits, 0 while within the plan
     */
    public record Stats(long blocks, long plannedItems, double plannedFpr, int mode, long seed, long addCalls,
            long inserted, long setBits, double fill, double estimatedItems, double estimatedFpr, int capacityFlags) {}

    /**
     * The blocks of the filter, without copying: in Parquet mode exactly the bitset a Parquet
     * writer stores in a column chunk's bloom filter. A read-only view into the live image,
     * little-endian (as {@link #image()}: the blocks' 32-bit words are little-endian).
     *
     * @return a read-only little-endian buffer over the bitset
     */
    public ByteBuffer bitset() {
        long[] v = new long[2];
        try {
            nBitset(img.addr(), img.len, v);
        } finally {
            Reference.reachabilityFence(img);
        }
        ByteBuffer b = img.view();
        b.position((int) v[0]).limit((int) (v[0] + v[1]));
        return b.slice().order(ByteOrder.LITTLE_ENDIAN); // slice() resets the order to big-endian
    }

    /**
     * Exports the image with its checksum: the bytes every binding reads back.
     *
     * @return a new array of {@link #imageBytes()} bytes
     * @throws java.util.ConcurrentModificationException when a change of this sketch ran during the
     *     export (against the thread-safety rules; nothing is returned)
     */
    public byte[] toByteArray() {
        return Native.exported(img, img.len, SplitBlockBloomFilter::nExport);
    }

    /**
     * Writes the export to {@code out}: exactly the bytes {@link #toByteArray()} returns (the
     * stream is neither flushed nor closed), without a copy of the image: the export's checksum is
     * computed on the live image in place, then the sealed 48-byte header and the image follow in
     * chunks of at most 64 KiB through one array, so the extra heap is 64 KiB whatever the image's
     * size (toByteArray's is the image's size). A folded filter
     * writes its recorded (folded) length.
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
        return ImageStream.write(img, Sketches.FAMILY_SPLIT_BLOCK_BLOOM, this::toByteArray, out);
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
    public static SplitBlockBloomFilter readFrom(InputStream in) throws IOException {
        byte[] image = ImageStream.read(in, Sketches.FAMILY_SPLIT_BLOCK_BLOOM, "SplitBlockBloomFilter.readFrom");
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
        return "SplitBlockBloomFilter[" + img.size() + "]";
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
        return new SerializedSketch(Sketches.FAMILY_SPLIT_BLOCK_BLOOM, toByteArray());
    }

    /**
     * Refuses a stream naming this class instead of the proxy (made by hand to skip the import).
     *
     * @param in the stream (not read)
     * @throws InvalidObjectException always
     */
    private void readObject(ObjectInputStream in) throws InvalidObjectException {
        throw Native.proxyRequired("SplitBlockBloomFilter");
    }

    // ---- natives (sbbf.c) ----

    private static native void nPlan(long items, double fpr, boolean parquet, long[] out);

    private static native void nPlanBlocks(long blocks, int mode, long[] out);

    private static native void nInit(long buf, long len, long blocks, long items, double fpr, int mode, long seed);

    private static native void nBitset(long buf, long len, long[] out);

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

    private static native boolean nAddHash(long buf, long len, long tok, long hash);

    private static native boolean nContainsHash(long buf, long len, long tok, long hash);

    private static native void nAddHashes(long buf, long len, long[] hashes, int from, int count, boolean[] out, int outFrom);

    private static native void nContainsHashes(
            long buf, long len, long[] hashes, int from, int count, boolean[] out, int outFrom);

    private static native long nParquetHashI32(int value);

    private static native long nParquetHashI64(long value);

    private static native long nParquetHashFloat(int bits);

    private static native long nParquetHashDouble(long bits);

    private static native long nParquetHashBytes(byte[] value, int off, int len);

    private static native long nParquetHashBuf(ByteBuffer value, int pos, int len);

    private static native void nPlanParquetSizing(long ndv, double fpp, int sizing, long[] out);

    private static native void nPlanParquetBitset(long bitsetLen, double fpr, long[] out);

    private static native void nLoadParquetBitset(long buf, long len, byte[] bitset, int off, int blen,
            long blocks, long items, double fpr, int mode);

    private static native void nLoadParquetBitsetBuf(long buf, long len, ByteBuffer bitset, int pos, int blen,
            long blocks, long items, double fpr, int mode);

    private static native long nFold(long buf, long len, int folds);

    private static native void nFoldToTargetFpp(long buf, long len, double fpp, long[] out);
}
