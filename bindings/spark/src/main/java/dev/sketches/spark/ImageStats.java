package dev.sketches.spark;

import dev.sketches.BinaryFuseFilter;
import dev.sketches.BloomFilter;
import dev.sketches.CountMinSketch;
import dev.sketches.CountingBloomFilter;
import dev.sketches.CuckooFilter;
import dev.sketches.ExaLogLog;
import dev.sketches.HyperLogLog;
import dev.sketches.MinHash;
import dev.sketches.SketchException;
import dev.sketches.SplitBlockBloomFilter;
import dev.sketches.TopK;
import dev.sketches.UltraLogLog;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * What {@code sketch_stats(image)} and {@code sketch_over_capacity(image)} report about an image of
 * any family: one {@link #SCHEMA} for every family (a field a family does not have is null), so
 * a column mixing families has one struct type. The figures are the Java binding's {@code
 * stats()} of the image's sketch, read through its checked import.
 *
 * <p>Thread safety: stateless; every method may run on any number of threads.
 */
final class ImageStats {
    private ImageStats() {}

    /** The short family names: the same words as in the function names ({@code sketch_<family>_...}). */
    static String shortName(Family family) {
        return switch (family) {
            case BLOOM -> "bloom";
            case SPLIT_BLOCK_BLOOM -> "sbbf";
            case COUNTING_BLOOM -> "counting";
            case CUCKOO -> "cuckoo";
            case BINARY_FUSE -> "fuse";
            case HYPERLOGLOG -> "hll";
            case ULTRALOGLOG -> "ull";
            case EXALOGLOG -> "ell";
            case COUNT_MIN -> "cms";
            case TOPK -> "topk";
            case MINHASH -> "minhash";
        };
    }

    /** Capacity flag name of {@link dev.sketches.Sketches#CAPACITY_OVER_PLANNED_ITEMS}. */
    static final String OVER_PLANNED_ITEMS = "over_planned_items";

    /** Capacity flag name of {@link dev.sketches.Sketches#CAPACITY_FPR_ABOVE_TWICE_PLANNED}. */
    static final String FPP_ABOVE_TWICE_PLANNED = "fpp_above_twice_planned";

    /** One field: name, type, the families that fill it and what it holds (for the usage text). */
    private record Field(String name, DataType type, boolean nullable, String doc) {}

    private static final Field[] FIELDS = {
        new Field("family", DataTypes.StringType, false,
                "bloom, sbbf, counting, cuckoo, fuse, hll, ull, ell, cms, topk or minhash"),
        new Field("size_bytes", DataTypes.LongType, false, "length of the image in bytes"),
        new Field("seed", DataTypes.LongType, false, "hash seed"),
        new Field("planned_items", DataTypes.LongType, true,
                "filters: distinct keys planned for (fuse: keys it was sized for)"),
        new Field("planned_fpp", DataTypes.DoubleType, true,
                "filters: false-positive rate planned at that count (cuckoo: at full load; fuse: 2^-bits)"),
        new Field("items", DataTypes.LongType, true,
                "filters: keys held (bloom, sbbf: adds that set a new bit; after merges of partial"
                        + " filters the distinct keys estimated from the bits; counting: adds minus removals; cuckoo: stored fingerprints; fuse: distinct keys)"),
        new Field("add_calls", DataTypes.LongType, true, "bloom, sbbf, counting: adds, duplicates included"),
        new Field("estimated_items", DataTypes.DoubleType, true,
                "bloom, sbbf: distinct keys estimated from the set bits (Infinity when all are set)"),
        new Field("bits", DataTypes.LongType, true, "bloom, sbbf: bits of the bit array"),
        new Field("hashes", DataTypes.IntegerType, true, "bloom, counting: probes per key"),
        new Field("bits_set", DataTypes.LongType, true, "bloom, sbbf: bits set"),
        new Field("fill_ratio", DataTypes.DoubleType, true,
                "filters: bloom, sbbf: bits set / bits; counting: non-zero counters / counters; cuckoo: load"),
        new Field("expected_fpp", DataTypes.DoubleType, true,
                "filters: false-positive rate expected at the current fill (fuse: 2^-bits)"),
        new Field("capacity_flags", DataTypes.createArrayType(DataTypes.StringType, false), true,
                "bloom, sbbf, counting, cuckoo: the flags the image carries (what every binding's"
                        + " capacity flags report), '" + OVER_PLANNED_ITEMS + "' and '" + FPP_ABOVE_TWICE_PLANNED
                        + "', empty within the plan; bloom and sbbf take them from the items counter"
                        + " (over_capacity judges those two by their bits)"),
        new Field("over_capacity", DataTypes.BooleanType, true, "as sketch_over_capacity(image)"),
        new Field("parquet_mode", DataTypes.BooleanType, true, "sbbf: hashes as Parquet does"),
        new Field("blocks", DataTypes.LongType, true, "sbbf: 32-byte blocks"),
        new Field("counters", DataTypes.LongType, true, "counting: 4-bit counters"),
        new Field("nonzero_counters", DataTypes.LongType, true, "counting: counters above zero"),
        new Field("saturated_counters", DataTypes.LongType, true, "counting: counters stuck at 15"),
        new Field("removes", DataTypes.LongType, true, "counting: successful removals"),
        new Field("buckets", DataTypes.LongType, true, "cuckoo: 4-slot buckets"),
        new Field("fingerprint_bits", DataTypes.IntegerType, true, "cuckoo, fuse: fingerprint width"),
        new Field("precision", DataTypes.IntegerType, true, "hll, ull, ell: p"),
        new Field("registers", DataTypes.LongType, true, "hll, ull, ell: 2^p; minhash: k"),
        new Field("registers_set", DataTypes.LongType, true,
                "hll, ull, ell: registers above zero (hll in exact mode: 0); minhash: registers filled"),
        new Field("estimate", DataTypes.DoubleType, true, "hll, ull, ell: distinct-count estimate, unrounded"),
        new Field("standard_error", DataTypes.DoubleType, true,
                "hll, ull, ell: relative standard error of that estimate (theoretical; hll in exact"
                        + " mode: 0)"),
        new Field("martingale", DataTypes.BooleanType, true,
                "hll, ull, ell: the estimate is the martingale one (one stream, no merge)"),
        new Field("exact", DataTypes.BooleanType, true,
                "hll: in exact small mode; topk: every count exact (no key was evicted or dropped by a merge)"),
        new Field("d", DataTypes.IntegerType, true, "ell: 20 or 24"),
        new Field("width", DataTypes.LongType, true, "cms: counters per row"),
        new Field("depth", DataTypes.IntegerType, true, "cms: rows"),
        new Field("counter_bits", DataTypes.IntegerType, true, "cms: 32 or 64"),
        new Field("conservative", DataTypes.BooleanType, true, "cms: conservative update"),
        new Field("total", DataTypes.LongType, true, "cms, topk: total weight of the keys added (unsigned, saturating at 2^64 - 1, which"
                + " reads -1)"),
        new Field("epsilon", DataTypes.DoubleType, true, "cms: e / width"),
        new Field("delta", DataTypes.DoubleType, true, "cms: e^-depth"),
        new Field("error_bound", DataTypes.DoubleType, true,
                "cms: epsilon * total (an estimate exceeds the true count by more with probability at"
                        + " most delta); topk: the smallest count when full (no count overestimates by more), else 0"),
        new Field("capacity", DataTypes.IntegerType, true, "topk: counters"),
        new Field("used", DataTypes.IntegerType, true, "topk: counters in use"),
        new Field("max_key_length", DataTypes.IntegerType, true, "topk: longest key in bytes"),
    };

    /** The struct {@code sketch_stats} returns: {@link #FIELDS} in order. */
    static final StructType SCHEMA;

    static {
        StructField[] fields = new StructField[FIELDS.length];
        for (int i = 0; i < FIELDS.length; i++) {
            fields[i] = DataTypes.createStructField(FIELDS[i].name, FIELDS[i].type, FIELDS[i].nullable);
        }
        SCHEMA = DataTypes.createStructType(fields);
    }

    /** The fields for a usage text: "name TYPE (doc); ...". */
    static String fieldsDoc() {
        StringBuilder b = new StringBuilder();
        for (Field f : FIELDS) {
            if (b.length() > 0) {
                b.append("; ");
            }
            b.append(f.name).append(' ').append(f.type.sql()).append(" (").append(f.doc).append(')');
        }
        return b.toString();
    }

    /** A read image: its family and its sketch of the Java binding. */
    record Read(Family family, Object sketch) {}

    /**
     * Reads an image of any family: the header's family id picks the family, whose checked
     * import then reads the whole image.
     *
     * @throws IllegalArgumentException naming {@code function} when the bytes are no image (bad
     *     magic, too short, newer version, unknown family) or a damaged one (checksum, family
     *     header)
     */
    static Read read(String function, byte[] image) {
        dev.sketches.Sketches.ImageInfo info;
        try {
            info = dev.sketches.Sketches.inspect(image);
        } catch (SketchException e) {
            throw new IllegalArgumentException(function + ": not a valid sketch image (" + image.length + " bytes): "
                    + e.statusText(), e);
        }
        Family family = Family.byId(info.family());
        if (family == null) {
            throw new IllegalArgumentException(function + ": not a valid sketch image (" + image.length
                    + " bytes): unknown family id " + info.family());
        }
        return new Read(family, SketchBuffer.read(function, family, image));
    }

    /**
     * Whether the sketch is past its plan: for the Bloom and split-block filters whether the keys
     * estimated from the set bits exceed the planned keys or the rate expected at the current fill
     * exceeds twice the planned one (the core's capacity rule, applied to the bits, which do not
     * depend on the partitioning; the image's own flags come from its inserted counter, which a
     * merge sets to the distinct keys estimated from the same bits, kept between two bounds); for the
     * counting Bloom and cuckoo filters whether a capacity flag is raised (their counters are
     * what the filter holds); for the binary fuse filter false (built for exactly its keys, its
     * rate is 2^-bits whatever their count); for Top-k whether a key was ever evicted (more
     * distinct keys than counters: some counts are upper bounds, or a merge dropped keys); null
     * for the other families,
     * which have no plan to exceed.
     */
    static Boolean overCapacity(Object sketch) {
        if (sketch instanceof BloomFilter f) {
            BloomFilter.Stats st = f.stats();
            return pastPlanByBits(st.estimatedItems(), st.plannedItems(), st.estimatedFpr(), st.plannedFpr());
        } else if (sketch instanceof SplitBlockBloomFilter f) {
            SplitBlockBloomFilter.Stats st = f.stats();
            return pastPlanByBits(st.estimatedItems(), st.plannedItems(), st.estimatedFpr(), st.plannedFpr());
        } else if (sketch instanceof CountingBloomFilter f) {
            return f.capacityFlags() != 0;
        } else if (sketch instanceof CuckooFilter f) {
            return f.capacityFlags() != 0;
        } else if (sketch instanceof BinaryFuseFilter) {
            return false;
        } else if (sketch instanceof TopK t) {
            return evicted(t);
        }
        return null;
    }

    /**
     * The core's capacity rule ({@code CapacityFlags::evaluate}, as it judges a loaded split-block
     * image whose counters do not count its keys) on the figures of the bits: keys estimated from
     * them (rounded down; infinity when every bit is set) above the planned keys, or the expected
     * rate above twice the planned one.
     */
    private static boolean pastPlanByBits(double estimatedItems, long plannedItems, double expectedFpp,
            double plannedFpp) {
        return (long) estimatedItems > plannedItems || expectedFpp > 2.0 * plannedFpp;
    }

    /**
     * Whether a Top-k sketch lost a key: a key that took an evicted key's counter carries the
     * evicted count as its error (at least 1: weights are positive), and a merge that keeps only
     * the largest of more keys than counters drops the rest, so their counts are missing from the
     * listed ones: a key was evicted exactly when some listed key has a non-zero error or the
     * listed counts sum to less than the total added (unsigned, both saturating at 2^64 - 1).
     * Before the sum was checked, a merge of partial sketches that each had free counters
     * (Spark's partial aggregates of several input partitions) dropped keys unreported.
     */
    private static boolean evicted(TopK t) {
        long sum = 0;
        for (TopK.Item item : t.top()) {
            if (item.error() != 0) {
                return true;
            }
            long next = sum + item.count();
            sum = Long.compareUnsigned(next, sum) < 0 ? -1L : next;
        }
        return sum != t.stats().total();
    }

    /** The {@link #SCHEMA} row of a read image of {@code sizeBytes} bytes. */
    static Row row(Read read, long sizeBytes) {
        Object[] v = new Object[FIELDS.length];
        set(v, "family", shortName(read.family));
        set(v, "size_bytes", sizeBytes);
        Object s = read.sketch;
        if (s instanceof BloomFilter f) {
            BloomFilter.Stats st = f.stats();
            set(v, "seed", st.seed());
            filter(v, st.plannedItems(), st.plannedFpr(), st.inserted(), st.fill(), st.estimatedFpr(), st.capacityFlags());
            set(v, "over_capacity", pastPlanByBits(st.estimatedItems(), st.plannedItems(), st.estimatedFpr(),
                    st.plannedFpr()));
            set(v, "add_calls", st.addCalls());
            set(v, "estimated_items", st.estimatedItems());
            set(v, "bits", st.bits());
            set(v, "hashes", st.hashes());
            set(v, "bits_set", st.setBits());
        } else if (s instanceof SplitBlockBloomFilter f) {
            SplitBlockBloomFilter.Stats st = f.stats();
            set(v, "seed", st.seed());
            filter(v, st.plannedItems(), st.plannedFpr(), st.inserted(), st.fill(), st.estimatedFpr(), st.capacityFlags());
            set(v, "over_capacity", pastPlanByBits(st.estimatedItems(), st.plannedItems(), st.estimatedFpr(),
                    st.plannedFpr()));
            set(v, "add_calls", st.addCalls());
            set(v, "estimated_items", st.estimatedItems());
            set(v, "bits", st.blocks() * 256);
            set(v, "bits_set", st.setBits());
            set(v, "parquet_mode", f.isParquetMode());
            set(v, "blocks", st.blocks());
        } else if (s instanceof CountingBloomFilter f) {
            CountingBloomFilter.Stats st = f.stats();
            set(v, "seed", st.seed());
            double fill = st.counters() == 0 ? 0.0 : (double) st.nonzeroCounters() / st.counters();
            filter(v, st.plannedItems(), st.plannedFpr(), st.items(), fill, st.estimatedFpr(), st.capacityFlags());
            set(v, "add_calls", st.addCalls());
            set(v, "hashes", st.hashes());
            set(v, "counters", st.counters());
            set(v, "nonzero_counters", st.nonzeroCounters());
            set(v, "saturated_counters", st.saturatedCounters());
            set(v, "removes", st.removes());
        } else if (s instanceof CuckooFilter f) {
            CuckooFilter.Stats st = f.stats();
            set(v, "seed", st.seed());
            filter(v, st.plannedItems(), st.plannedFpr(), st.items(), st.load(), st.estimatedFpr(), st.capacityFlags());
            set(v, "buckets", st.buckets());
            set(v, "fingerprint_bits", st.fingerprintBits());
        } else if (s instanceof BinaryFuseFilter f) {
            BinaryFuseFilter.Stats st = f.stats();
            set(v, "seed", st.seed());
            set(v, "planned_items", st.plannedKeys());
            set(v, "planned_fpp", st.fpr());
            set(v, "items", st.keys());
            set(v, "expected_fpp", st.fpr());
            set(v, "over_capacity", false);
            set(v, "fingerprint_bits", st.fingerprintBits());
        } else if (s instanceof HyperLogLog h) {
            HyperLogLog.Stats st = h.stats();
            set(v, "seed", st.seed());
            double m = Math.scalb(1.0, st.precision());
            // The core's figures: exact small mode; martingale 0.83/sqrt(m); Ertl's improved
            // estimator from the registers 1.04/sqrt(m).
            double se = st.small() ? 0.0 : (st.martingale() ? 0.83 : 1.04) / Math.sqrt(m);
            distinct(v, st.precision(), st.registersSet(), st.estimate(), se, st.martingale());
            set(v, "exact", st.small());
        } else if (s instanceof UltraLogLog u) {
            UltraLogLog.Stats st = u.stats();
            set(v, "seed", st.seed());
            double m = Math.scalb(1.0, st.precision());
            // The core's figures: martingale 0.658/sqrt(m); FGRA sqrt(0.6118931496978426/m) (0.782/sqrt(m)).
            double se = st.martingale() ? 0.658 / Math.sqrt(m) : Math.sqrt(ULL_FGRA_VARIANCE / m);
            distinct(v, st.precision(), st.registersSet(), st.estimate(), se, st.martingale());
        } else if (s instanceof ExaLogLog e) {
            ExaLogLog.Stats st = e.stats();
            set(v, "seed", st.seed());
            distinct(v, st.precision(), st.registersSet(), st.estimate(), st.standardError(), st.martingale());
            set(v, "d", st.d());
        } else if (s instanceof CountMinSketch c) {
            CountMinSketch.Stats st = c.stats();
            set(v, "seed", st.seed());
            set(v, "width", st.width());
            set(v, "depth", st.depth());
            set(v, "counter_bits", st.counterBits());
            set(v, "conservative", st.conservative());
            set(v, "total", st.total());
            set(v, "epsilon", st.epsilon());
            set(v, "delta", st.delta());
            set(v, "error_bound", st.errorBound());
        } else if (s instanceof TopK t) {
            TopK.Stats st = t.stats();
            boolean evicted = evicted(t);
            set(v, "seed", st.seed());
            set(v, "over_capacity", evicted);
            set(v, "exact", !evicted);
            set(v, "total", st.total());
            set(v, "error_bound", unsigned(st.minCount()));
            set(v, "capacity", st.capacity());
            set(v, "used", st.used());
            set(v, "max_key_length", st.maxKeyLength());
        } else {
            MinHash.Stats st = ((MinHash) s).stats();
            set(v, "seed", st.seed());
            set(v, "registers", (long) st.registers());
            set(v, "registers_set", (long) st.filled());
        }
        return RowFactory.create(v);
    }

    /** The FGRA estimator's variance constant of UltraLogLog (the core's {@code ull::V}). */
    private static final double ULL_FGRA_VARIANCE = 0.611_893_149_697_842_6;

    /** The figures every filter with a plan has. */
    private static void filter(Object[] v, long plannedItems, double plannedFpp, long items, double fill,
            double expectedFpp, int flags) {
        set(v, "planned_items", plannedItems);
        set(v, "planned_fpp", plannedFpp);
        set(v, "items", items);
        set(v, "fill_ratio", fill);
        set(v, "expected_fpp", expectedFpp);
        set(v, "capacity_flags", flagNames(flags));
        set(v, "over_capacity", flags != 0);
    }

    /** The figures of the distinct counters. */
    private static void distinct(Object[] v, int precision, long registersSet, double estimate, double se,
            boolean martingale) {
        set(v, "precision", precision);
        set(v, "registers", 1L << precision);
        set(v, "registers_set", registersSet);
        set(v, "estimate", estimate);
        set(v, "standard_error", se);
        set(v, "martingale", martingale);
    }

    /** The names of the raised {@code CAPACITY_*} bits (bits no name is known for: "flag_0x..."). */
    static List<String> flagNames(int flags) {
        List<String> names = new ArrayList<>(2);
        if ((flags & dev.sketches.Sketches.CAPACITY_OVER_PLANNED_ITEMS) != 0) {
            names.add(OVER_PLANNED_ITEMS);
        }
        if ((flags & dev.sketches.Sketches.CAPACITY_FPR_ABOVE_TWICE_PLANNED) != 0) {
            names.add(FPP_ABOVE_TWICE_PLANNED);
        }
        int other = flags & ~(dev.sketches.Sketches.CAPACITY_OVER_PLANNED_ITEMS
                | dev.sketches.Sketches.CAPACITY_FPR_ABOVE_TWICE_PLANNED);
        if (other != 0) {
            names.add("flag_0x" + Integer.toHexString(other));
        }
        return names;
    }

    /** An unsigned 64-bit count as a double. */
    private static double unsigned(long v) {
        return v >= 0 ? v : (double) (v >>> 1) * 2.0 + (v & 1);
    }

    private static void set(Object[] v, String name, Object value) {
        v[SCHEMA.fieldIndex(name)] = value;
    }
}
