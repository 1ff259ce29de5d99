package dev.sketches.spark;

import dev.sketches.BinaryFuseFilter;
import dev.sketches.BloomFilter;
import dev.sketches.CountMinSketch;
import dev.sketches.CountingBloomFilter;
import dev.sketches.CuckooFilter;
import dev.sketches.ExaLogLog;
import dev.sketches.HyperLogLog;
import dev.sketches.MinHash;
import dev.sketches.SplitBlockBloomFilter;
import dev.sketches.TopK;
import dev.sketches.UltraLogLog;
import java.nio.ByteBuffer;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The sketch families the Spark functions build and read, with the operations the aggregates need
 * on a live sketch of the Java binding (held as {@code Object}: one enum constant per class).
 *
 * <p>Every add method returns how many keys were not stored (only a full cuckoo filter rejects
 * keys; a full key set of the binary fuse filter throws {@link IllegalStateException}). Thread safety: the constants are stateless; the sketches passed in follow the Java
 * binding's rules (adds and merges need exclusive access).
 */
enum Family {
    BLOOM("Bloom filter") {
        @Override
        Object read(byte[] image) {
            return BloomFilter.fromByteArray(image);
        }

        @Override
        Object merge(Object into, Object other) {
            ((BloomFilter) into).merge((BloomFilter) other);
            return into;
        }

        @Override
        byte[] export(Object sketch) {
            return ((BloomFilter) sketch).toByteArray();
        }

        @Override
        long addPacked(Object sketch, byte[] data, int[] offsets) {
            ((BloomFilter) sketch).addPacked(data, offsets, null);
            return 0;
        }

        @Override
        long addLongs(Object sketch, long[] keys) {
            ((BloomFilter) sketch).addAll(keys);
            return 0;
        }
    },
    SPLIT_BLOCK_BLOOM("split-block Bloom filter") {
        @Override
        Object read(byte[] image) {
            return SplitBlockBloomFilter.fromByteArray(image);
        }

        @Override
        Object merge(Object into, Object other) {
            ((SplitBlockBloomFilter) into).merge((SplitBlockBloomFilter) other);
            return into;
        }

        @Override
        byte[] export(Object sketch) {
            return ((SplitBlockBloomFilter) sketch).toByteArray();
        }

        @Override
        long addPacked(Object sketch, byte[] data, int[] offsets) {
            ((SplitBlockBloomFilter) sketch).addPacked(data, offsets, null);
            return 0;
        }

        @Override
        long addLongs(Object sketch, long[] keys) {
            ((SplitBlockBloomFilter) sketch).addAll(keys);
            return 0;
        }
    },
    COUNTING_BLOOM("counting Bloom filter") {
        @Override
        Object read(byte[] image) {
            return CountingBloomFilter.fromByteArray(image);
        }

        @Override
        Object merge(Object into, Object other) {
            ((CountingBloomFilter) into).merge((CountingBloomFilter) other);
            return into;
        }

        @Override
        byte[] export(Object sketch) {
            return ((CountingBloomFilter) sketch).toByteArray();
        }

        @Override
        long addPacked(Object sketch, byte[] data, int[] offsets) {
            ((CountingBloomFilter) sketch).addPacked(data, offsets, null);
            return 0;
        }

        @Override
        long addLongs(Object sketch, long[] keys) {
            ((CountingBloomFilter) sketch).addAll(keys);
            return 0;
        }
    },
    CUCKOO("cuckoo filter") {
        @Override
        Object read(byte[] image) {
            return CuckooFilter.fromByteArray(image);
        }

        @Override
        Object merge(Object into, Object other) {
            ((CuckooFilter) into).merge((CuckooFilter) other);
            return into;
        }

        @Override
        byte[] export(Object sketch) {
            return ((CuckooFilter) sketch).toByteArray();
        }

        /**
         * Adds every key given: a cuckoo filter stores repeated adds of one key as copies, so the
         * caller passes each distinct key once ({@link SketchBuffer} filters them through its
         * {@link StoredKeys}).
         */
        @Override
        long addPacked(Object sketch, byte[] data, int[] offsets) {
            return (offsets.length - 1) - (long) ((CuckooFilter) sketch).addPacked(data, offsets, null);
        }

        /** As {@link #addPacked}: every key given is added. */
        @Override
        long addLongs(Object sketch, long[] keys) {
            return keys.length - (long) ((CuckooFilter) sketch).addAll(keys);
        }
    },
    HYPERLOGLOG("HyperLogLog sketch") {
        @Override
        Object read(byte[] image) {
            return HyperLogLog.fromByteArray(image);
        }

        /**
         * Merges across precisions: the result has the lower precision of the two (the binding
         * folds a higher precision into a lower one, not the other way round, so the lower one
         * receives the merge; either sketch may be changed, as for {@link #EXALOGLOG}).
         */
        @Override
        Object merge(Object into, Object other) {
            return atLowerPrecision((HyperLogLog) into, (HyperLogLog) other, HyperLogLog::image, HyperLogLog::merge);
        }

        @Override
        byte[] export(Object sketch) {
            return ((HyperLogLog) sketch).toByteArray();
        }

        @Override
        long addPacked(Object sketch, byte[] data, int[] offsets) {
            ((HyperLogLog) sketch).addPacked(data, offsets);
            return 0;
        }

        @Override
        long addLongs(Object sketch, long[] keys) {
            ((HyperLogLog) sketch).addAll(keys);
            return 0;
        }
    },
    ULTRALOGLOG("UltraLogLog sketch") {
        @Override
        Object read(byte[] image) {
            return UltraLogLog.fromByteArray(image);
        }

        /** Merges across precisions into the lower one, as {@link #HYPERLOGLOG} does. */
        @Override
        Object merge(Object into, Object other) {
            return atLowerPrecision((UltraLogLog) into, (UltraLogLog) other, UltraLogLog::image, UltraLogLog::merge);
        }

        @Override
        byte[] export(Object sketch) {
            return ((UltraLogLog) sketch).toByteArray();
        }

        @Override
        long addPacked(Object sketch, byte[] data, int[] offsets) {
            ((UltraLogLog) sketch).addPacked(data, offsets);
            return 0;
        }

        @Override
        long addLongs(Object sketch, long[] keys) {
            ((UltraLogLog) sketch).addAll(keys);
            return 0;
        }
    },
    COUNT_MIN("Count-Min sketch") {
        @Override
        Object read(byte[] image) {
            return CountMinSketch.fromByteArray(image);
        }

        @Override
        Object merge(Object into, Object other) {
            ((CountMinSketch) into).merge((CountMinSketch) other);
            return into;
        }

        @Override
        byte[] export(Object sketch) {
            return ((CountMinSketch) sketch).toByteArray();
        }

        @Override
        long addPacked(Object sketch, byte[] data, int[] offsets) {
            ((CountMinSketch) sketch).addPacked(data, offsets, null);
            return 0;
        }

        @Override
        long addLongs(Object sketch, long[] keys) {
            ((CountMinSketch) sketch).addAll(keys);
            return 0;
        }
    },
    TOPK("Top-k sketch") {
        @Override
        Object read(byte[] image) {
            return TopK.fromByteArray(image);
        }

        @Override
        Object merge(Object into, Object other) {
            ((TopK) into).merge((TopK) other);
            return into;
        }

        @Override
        byte[] export(Object sketch) {
            return ((TopK) sketch).toByteArray();
        }

        @Override
        long addPacked(Object sketch, byte[] data, int[] offsets) {
            ((TopK) sketch).addPacked(data, offsets, null);
            return 0;
        }

        @Override
        long addLongs(Object sketch, long[] keys) {
            ((TopK) sketch).addAll(keys);
            return 0;
        }
    },
    MINHASH("MinHash sketch") {
        @Override
        Object read(byte[] image) {
            return MinHash.fromByteArray(image);
        }

        @Override
        Object merge(Object into, Object other) {
            ((MinHash) into).merge((MinHash) other);
            return into;
        }

        @Override
        byte[] export(Object sketch) {
            return ((MinHash) sketch).toByteArray();
        }

        @Override
        long addPacked(Object sketch, byte[] data, int[] offsets) {
            ((MinHash) sketch).addPacked(data, offsets);
            return 0;
        }

        @Override
        long addLongs(Object sketch, long[] keys) {
            ((MinHash) sketch).addAll(keys);
            return 0;
        }
    },
    EXALOGLOG("ExaLogLog sketch") {
        @Override
        Object read(byte[] image) {
            return ExaLogLog.fromByteArray(image);
        }

        /**
         * Merges across precisions and configurations: the result has the lower precision and the
         * lower d of the two ({@code into} is first reduced exactly when its own are higher).
         */
        @Override
        Object merge(Object into, Object other) {
            ExaLogLog a = (ExaLogLog) into;
            ExaLogLog b = (ExaLogLog) other;
            ByteBuffer ia = a.image();
            ByteBuffer ib = b.image();
            int p = Math.min(ia.get(ELL_PRECISION), ib.get(ELL_PRECISION));
            int d = Math.min(ia.get(ELL_D), ib.get(ELL_D));
            if (ia.get(ELL_PRECISION) != p || ia.get(ELL_D) != d) {
                a = a.downsize(p, d);
            }
            a.merge(b);
            return a;
        }

        @Override
        byte[] export(Object sketch) {
            return ((ExaLogLog) sketch).toByteArray();
        }

        @Override
        long addPacked(Object sketch, byte[] data, int[] offsets) {
            ((ExaLogLog) sketch).addPacked(data, offsets);
            return 0;
        }

        @Override
        long addLongs(Object sketch, long[] keys) {
            ((ExaLogLog) sketch).addAll(keys);
            return 0;
        }
    },
    /**
     * Binary fuse filter. Static, so the aggregation buffer's live object is not a filter but the
     * group's {@link KeySet}: adds and merges collect distinct keys, {@link #export} builds the
     * filter from them, and between stages the buffer travels as the key set ({@link #save},
     * {@link #load}). {@link #read} reads a filter image (for the contains function).
     */
    BINARY_FUSE("binary fuse filter") {
        @Override
        Object read(byte[] image) {
            return BinaryFuseFilter.fromByteArray(image);
        }

        @Override
        Object merge(Object into, Object other) {
            ((KeySet) into).addAll((KeySet) other);
            return into;
        }

        @Override
        byte[] export(Object sketch) {
            return ((KeySet) sketch).build().toByteArray();
        }

        @Override
        byte[] save(Object sketch) {
            return ((KeySet) sketch).toBytes();
        }

        @Override
        Object load(byte[] bytes) {
            return KeySet.fromBytes(bytes);
        }

        @Override
        long addPacked(Object sketch, byte[] data, int[] offsets) {
            KeySet s = (KeySet) sketch;
            for (int i = 0; i + 1 < offsets.length; i++) {
                s.add(data, offsets[i], offsets[i + 1]);
            }
            return 0;
        }

        @Override
        long addLongs(Object sketch, long[] keys) {
            KeySet s = (KeySet) sketch;
            for (long k : keys) {
                s.add(k);
            }
            return 0;
        }
    };

    /**
     * The family of an image's header family id ({@code dev.sketches.Sketches.FAMILY_*}), or null
     * for an id no family has.
     */
    static Family byId(int id) {
        return switch (id) {
            case dev.sketches.Sketches.FAMILY_BLOOM -> BLOOM;
            case dev.sketches.Sketches.FAMILY_SPLIT_BLOCK_BLOOM -> SPLIT_BLOCK_BLOOM;
            case dev.sketches.Sketches.FAMILY_COUNTING_BLOOM -> COUNTING_BLOOM;
            case dev.sketches.Sketches.FAMILY_CUCKOO -> CUCKOO;
            case dev.sketches.Sketches.FAMILY_HYPERLOGLOG -> HYPERLOGLOG;
            case dev.sketches.Sketches.FAMILY_ULTRALOGLOG -> ULTRALOGLOG;
            case dev.sketches.Sketches.FAMILY_COUNT_MIN -> COUNT_MIN;
            case dev.sketches.Sketches.FAMILY_TOPK -> TOPK;
            case dev.sketches.Sketches.FAMILY_MINHASH -> MINHASH;
            case dev.sketches.Sketches.FAMILY_BINARY_FUSE -> BINARY_FUSE;
            case dev.sketches.Sketches.FAMILY_EXALOGLOG -> EXALOGLOG;
            default -> null;
        };
    }

    /** Offset of the precision in a HyperLogLog or UltraLogLog image (the layout every binding shares). */
    private static final int PRECISION = 48;

    /**
     * Merges two HyperLogLog or UltraLogLog sketches into the one of lower precision (the other's
     * registers fold down) and returns it.
     */
    private static <T> T atLowerPrecision(T into, T other, Function<T, ByteBuffer> image, BiConsumer<T, T> merge) {
        boolean otherLower = image.apply(other).get(PRECISION) < image.apply(into).get(PRECISION);
        T target = otherLower ? other : into;
        merge.accept(target, otherLower ? into : other);
        return target;
    }

    /** Offset of d in an ExaLogLog image (the layout every binding shares). */
    private static final int ELL_D = 49;

    /** Offset of the precision in an ExaLogLog image. */
    private static final int ELL_PRECISION = 50;

    /** The family's name in error messages ("HyperLogLog sketch"). */
    final String title;

    Family(String title) {
        this.title = title;
    }

    /**
     * Reads an exported image (untrusted bytes: fully checked by the Java binding).
     *
     * @throws dev.sketches.SketchException when the bytes are damaged or of another family
     */
    abstract Object read(byte[] image);

    /**
     * Merges {@code other} into {@code into} (both of this family) and returns the merged sketch:
     * {@code into} itself, or another sketch when the merge needs other parameters (HyperLogLog,
     * UltraLogLog and ExaLogLog across precisions: a new sketch, or {@code other} with {@code into}
     * merged in).
     *
     * @throws dev.sketches.SketchException when their parameters differ (nothing changes)
     */
    abstract Object merge(Object into, Object other);

    /** Exports the image with its checksum: the bytes every binding reads. */
    abstract byte[] export(Object sketch);

    /**
     * The bytes a buffer's live object travels as between stages: its exported image, except for
     * the binary fuse filter (its key set).
     */
    byte[] save(Object sketch) {
        return export(sketch);
    }

    /**
     * Reads {@link #save}'s bytes back into a live object.
     *
     * @throws dev.sketches.SketchException when an image is damaged or of another family
     * @throws IllegalArgumentException when a saved key set is damaged
     */
    Object load(byte[] bytes) {
        return read(bytes);
    }

    /** Adds keys in the Arrow Binary layout ({@code offsets.length - 1} keys); returns those not stored. */
    abstract long addPacked(Object sketch, byte[] data, int[] offsets);

    /** Adds every 8-byte little-endian integer key; returns those not stored. */
    abstract long addLongs(Object sketch, long[] keys);
}
