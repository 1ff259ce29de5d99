package dev.sketches.spark;

import static dev.sketches.spark.Checks.failsNaming;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** sketch_stats and sketch_over_capacity: one struct for every family, the over-plan signal in SQL. */
class StatsTest {
    private final SparkSession spark = Session.get();

    private static final String[] GOLDEN = {
        "bloom", "sbbf", "sbbf_parquet", "counting", "cuckoo", "fuse8", "fuse16", "hll_small", "hll_dense", "ull",
        "ell", "ell_d24", "countmin", "topk", "minhash",
    };

    /** The fields every family fills. */
    private static final List<String> COMMON = List.of("family", "size_bytes", "seed");

    /** The golden images in one BINARY column {@code img}, named by {@code name}, in view {@code golden}. */
    private void goldenView() {
        List<Row> rows = new ArrayList<>();
        for (String g : GOLDEN) {
            rows.add(RowFactory.create(g, Checks.golden(g)));
        }
        StructType schema = new StructType().add("name", DataTypes.StringType).add("img", DataTypes.BinaryType);
        spark.createDataFrame(rows, schema).repartition(3).createOrReplaceTempView("golden");
    }

    /** The names of the non-null fields of a stats row. */
    private static Set<String> filled(Row s) {
        Set<String> names = new TreeSet<>();
        for (String f : s.schema().fieldNames()) {
            if (!s.isNullAt(s.fieldIndex(f))) {
                names.add(f);
            }
        }
        return names;
    }

    private static Set<String> fields(String... familyFields) {
        Set<String> names = new TreeSet<>(COMMON);
        names.addAll(List.of(familyFields));
        return names;
    }

    private static final String[] FILTER = {
        "planned_items", "planned_fpp", "items", "fill_ratio", "expected_fpp", "capacity_flags", "over_capacity",
    };

    private static String[] filterAnd(String... more) {
        List<String> l = new ArrayList<>(List.of(FILTER));
        l.addAll(List.of(more));
        return l.toArray(new String[0]);
    }

    private static final String[] DISTINCT = {
        "precision", "registers", "registers_set", "estimate", "standard_error", "martingale",
    };

    private static String[] distinctAnd(String... more) {
        List<String> l = new ArrayList<>(List.of(DISTINCT));
        l.addAll(List.of(more));
        return l.toArray(new String[0]);
    }

    /**
     * Every family's golden image in one mixed column: sketch_stats gives one struct type whose
     * fields equal the Java binding's stats of the same image, the fields the family lacks null,
     * and sketch_over_capacity agrees with the struct's over_capacity (null for families with no
     * plan).
     */
    @Test
    void everyFamilyMatchesTheJavaBindingsStats() {
        goldenView();
        List<Row> rows = spark.sql("SELECT name, img, sketch_stats(img) AS s, sketch_over_capacity(img) AS o"
                + " FROM golden").collectAsList();
        assertEquals(GOLDEN.length, rows.size());
        for (Row r : rows) {
            String name = r.getString(0);
            byte[] img = r.getAs(1);
            Row s = r.getStruct(2);
            assertEquals(img.length, s.<Long>getAs("size_bytes"), name);
            Object over = r.isNullAt(3) ? null : r.getBoolean(3);
            assertEquals(s.isNullAt(s.fieldIndex("over_capacity")) ? null : s.getAs("over_capacity"), over, name);
            switch (name) {
                case "bloom" -> {
                    BloomFilter.Stats j = BloomFilter.fromByteArray(img).stats();
                    assertEquals(fields(filterAnd("add_calls", "estimated_items", "bits", "hashes", "bits_set")),
                            filled(s), name);
                    assertEquals("bloom", s.getAs("family"));
                    filter(s, j.seed(), j.plannedItems(), j.plannedFpr(), j.inserted(), j.fill(), j.estimatedFpr(),
                            j.capacityFlags());
                    assertEquals(pastPlanByBits(j.estimatedItems(), j.plannedItems(), j.estimatedFpr(),
                            j.plannedFpr()), s.<Boolean>getAs("over_capacity"), name);
                    assertEquals(j.addCalls(), s.<Long>getAs("add_calls"));
                    assertEquals(j.estimatedItems(), s.<Double>getAs("estimated_items"));
                    assertEquals(j.bits(), s.<Long>getAs("bits"));
                    assertEquals(j.hashes(), s.<Integer>getAs("hashes"));
                    assertEquals(j.setBits(), s.<Long>getAs("bits_set"));
                }
                case "sbbf", "sbbf_parquet" -> {
                    SplitBlockBloomFilter f = SplitBlockBloomFilter.fromByteArray(img);
                    SplitBlockBloomFilter.Stats j = f.stats();
                    assertEquals(fields(filterAnd("add_calls", "estimated_items", "bits", "bits_set", "parquet_mode",
                            "blocks")), filled(s), name);
                    assertEquals("sbbf", s.getAs("family"));
                    filter(s, j.seed(), j.plannedItems(), j.plannedFpr(), j.inserted(), j.fill(), j.estimatedFpr(),
                            j.capacityFlags());
                    assertEquals(pastPlanByBits(j.estimatedItems(), j.plannedItems(), j.estimatedFpr(),
                            j.plannedFpr()), s.<Boolean>getAs("over_capacity"), name);
                    assertEquals(name.equals("sbbf_parquet"), s.<Boolean>getAs("parquet_mode"), name);
                    assertEquals(f.isParquetMode(), s.<Boolean>getAs("parquet_mode"), name);
                    assertEquals(j.blocks(), s.<Long>getAs("blocks"));
                    assertEquals(j.blocks() * 256, s.<Long>getAs("bits"));
                    assertEquals(j.setBits(), s.<Long>getAs("bits_set"));
                    assertEquals(j.addCalls(), s.<Long>getAs("add_calls"));
                }
                case "counting" -> {
                    CountingBloomFilter.Stats j = CountingBloomFilter.fromByteArray(img).stats();
                    assertEquals(fields(filterAnd("add_calls", "hashes", "counters", "nonzero_counters",
                            "saturated_counters", "removes")), filled(s), name);
                    assertEquals("counting", s.getAs("family"));
                    filter(s, j.seed(), j.plannedItems(), j.plannedFpr(), j.items(),
                            (double) j.nonzeroCounters() / j.counters(), j.estimatedFpr(), j.capacityFlags());
                    assertEquals(j.counters(), s.<Long>getAs("counters"));
                    assertEquals(j.nonzeroCounters(), s.<Long>getAs("nonzero_counters"));
                    assertEquals(j.saturatedCounters(), s.<Long>getAs("saturated_counters"));
                    assertEquals(j.removes(), s.<Long>getAs("removes"));
                    assertEquals(j.hashes(), s.<Integer>getAs("hashes"));
                }
                case "cuckoo" -> {
                    CuckooFilter.Stats j = CuckooFilter.fromByteArray(img).stats();
                    assertEquals(fields(filterAnd("buckets", "fingerprint_bits")), filled(s), name);
                    assertEquals("cuckoo", s.getAs("family"));
                    filter(s, j.seed(), j.plannedItems(), j.plannedFpr(), j.items(), j.load(), j.estimatedFpr(),
                            j.capacityFlags());
                    assertEquals(j.buckets(), s.<Long>getAs("buckets"));
                    assertEquals(j.fingerprintBits(), s.<Integer>getAs("fingerprint_bits"));
                }
                case "fuse8", "fuse16" -> {
                    BinaryFuseFilter.Stats j = BinaryFuseFilter.fromByteArray(img).stats();
                    assertEquals(fields("planned_items", "planned_fpp", "items", "expected_fpp", "over_capacity",
                            "fingerprint_bits"), filled(s), name);
                    assertEquals("fuse", s.getAs("family"));
                    assertEquals(j.seed(), s.<Long>getAs("seed"));
                    assertEquals(j.plannedKeys(), s.<Long>getAs("planned_items"));
                    assertEquals(j.keys(), s.<Long>getAs("items"));
                    assertEquals(j.fpr(), s.<Double>getAs("expected_fpp"));
                    assertEquals(Math.scalb(1.0, -j.fingerprintBits()), s.<Double>getAs("planned_fpp"));
                    assertEquals(name.equals("fuse8") ? 8 : 16, s.<Integer>getAs("fingerprint_bits"));
                    assertFalse(s.<Boolean>getAs("over_capacity"));
                }
                case "hll_small", "hll_dense" -> {
                    HyperLogLog.Stats j = HyperLogLog.fromByteArray(img).stats();
                    assertEquals(fields(distinctAnd("exact")), filled(s), name);
                    assertEquals("hll", s.getAs("family"));
                    distinct(s, j.seed(), j.precision(), j.registersSet(), j.estimate(), j.martingale());
                    assertEquals(name.equals("hll_small"), s.<Boolean>getAs("exact"), name);
                    double m = Math.scalb(1.0, j.precision());
                    double se = j.small() ? 0.0 : (j.martingale() ? 0.83 : 1.04) / Math.sqrt(m);
                    assertEquals(se, s.<Double>getAs("standard_error"), 1e-12, name);
                }
                case "ull" -> {
                    UltraLogLog.Stats j = UltraLogLog.fromByteArray(img).stats();
                    assertEquals(fields(DISTINCT), filled(s), name);
                    assertEquals("ull", s.getAs("family"));
                    distinct(s, j.seed(), j.precision(), j.registersSet(), j.estimate(), j.martingale());
                    double m = Math.scalb(1.0, j.precision());
                    assertEquals((j.martingale() ? 0.658 : 0.782) / Math.sqrt(m), s.<Double>getAs("standard_error"),
                            0.001 / Math.sqrt(m), name);
                }
                case "ell", "ell_d24" -> {
                    ExaLogLog.Stats j = ExaLogLog.fromByteArray(img).stats();
                    assertEquals(fields(distinctAnd("d")), filled(s), name);
                    assertEquals("ell", s.getAs("family"));
                    distinct(s, j.seed(), j.precision(), j.registersSet(), j.estimate(), j.martingale());
                    assertEquals(j.standardError(), s.<Double>getAs("standard_error"));
                    assertEquals(name.equals("ell") ? 20 : 24, s.<Integer>getAs("d"));
                }
                case "countmin" -> {
                    CountMinSketch.Stats j = CountMinSketch.fromByteArray(img).stats();
                    assertEquals(fields("width", "depth", "counter_bits", "conservative", "total", "epsilon", "delta",
                            "error_bound"), filled(s), name);
                    assertEquals("cms", s.getAs("family"));
                    assertEquals(j.seed(), s.<Long>getAs("seed"));
                    assertEquals(j.width(), s.<Long>getAs("width"));
                    assertEquals(j.depth(), s.<Integer>getAs("depth"));
                    assertEquals(j.counterBits(), s.<Integer>getAs("counter_bits"));
                    assertEquals(j.conservative(), s.<Boolean>getAs("conservative"));
                    assertEquals(j.total(), s.<Long>getAs("total"));
                    assertEquals(j.epsilon(), s.<Double>getAs("epsilon"));
                    assertEquals(j.delta(), s.<Double>getAs("delta"));
                    assertEquals(j.errorBound(), s.<Double>getAs("error_bound"));
                }
                case "topk" -> {
                    TopK t = TopK.fromByteArray(img);
                    TopK.Stats j = t.stats();
                    assertEquals(fields("over_capacity", "exact", "total", "error_bound", "capacity", "used",
                            "max_key_length"), filled(s), name);
                    assertEquals("topk", s.getAs("family"));
                    assertEquals(j.seed(), s.<Long>getAs("seed"));
                    assertEquals(j.capacity(), s.<Integer>getAs("capacity"));
                    assertEquals(j.used(), s.<Integer>getAs("used"));
                    assertEquals(j.maxKeyLength(), s.<Integer>getAs("max_key_length"));
                    assertEquals(j.total(), s.<Long>getAs("total"));
                    assertEquals((double) j.minCount(), s.<Double>getAs("error_bound"));
                    boolean evicted = t.top().stream().anyMatch(i -> i.error() > 0);
                    assertEquals(evicted, s.<Boolean>getAs("over_capacity"));
                    assertEquals(!evicted, s.<Boolean>getAs("exact"));
                }
                case "minhash" -> {
                    MinHash.Stats j = MinHash.fromByteArray(img).stats();
                    assertEquals(fields("registers", "registers_set"), filled(s), name);
                    assertEquals("minhash", s.getAs("family"));
                    assertEquals(j.seed(), s.<Long>getAs("seed"));
                    assertEquals((long) j.registers(), s.<Long>getAs("registers"));
                    assertEquals((long) j.filled(), s.<Long>getAs("registers_set"));
                }
                default -> throw new AssertionError("no case for " + name);
            }
        }
        // The query of the brief across the mixed column: null where the family has no such figure.
        List<Row> fpp = spark.sql("SELECT s.family, s.expected_fpp FROM (SELECT sketch_stats(img) AS s FROM golden)"
                + " WHERE s.expected_fpp IS NOT NULL ORDER BY s.family").collectAsList();
        Set<String> withFpp = new TreeSet<>();
        fpp.forEach(r -> withFpp.add(r.getString(0)));
        assertEquals(new TreeSet<>(List.of("bloom", "counting", "cuckoo", "fuse", "sbbf")), withFpp);
    }

    private static void filter(Row s, long seed, long plannedItems, double plannedFpr, long items, double fill,
            double expectedFpp, int flags) {
        assertEquals(seed, s.<Long>getAs("seed"));
        assertEquals(plannedItems, s.<Long>getAs("planned_items"));
        assertEquals(plannedFpr, s.<Double>getAs("planned_fpp"));
        assertEquals(items, s.<Long>getAs("items"));
        assertEquals(fill, s.<Double>getAs("fill_ratio"));
        assertEquals(expectedFpp, s.<Double>getAs("expected_fpp"));
        List<String> names = new ArrayList<>();
        if ((flags & dev.sketches.Sketches.CAPACITY_OVER_PLANNED_ITEMS) != 0) {
            names.add("over_planned_items");
        }
        if ((flags & dev.sketches.Sketches.CAPACITY_FPR_ABOVE_TWICE_PLANNED) != 0) {
            names.add("fpp_above_twice_planned");
        }
        assertEquals(names, s.getList(s.fieldIndex("capacity_flags")));
        if (!s.<String>getAs("family").equals("bloom") && !s.<String>getAs("family").equals("sbbf")) {
            assertEquals(flags != 0, s.<Boolean>getAs("over_capacity"));
        }
    }

    /** The capacity rule of the core on the figures of the bits (Bloom and split-block filters). */
    private static boolean pastPlanByBits(double estimatedItems, long plannedItems, double fpr, double plannedFpr) {
        return (long) estimatedItems > plannedItems || fpr > 2 * plannedFpr;
    }

    private static void distinct(Row s, long seed, int precision, long registersSet, double estimate,
            boolean martingale) {
        assertEquals(seed, s.<Long>getAs("seed"));
        assertEquals(precision, s.<Integer>getAs("precision"));
        assertEquals(1L << precision, s.<Long>getAs("registers"));
        assertEquals(registersSet, s.<Long>getAs("registers_set"));
        assertEquals(estimate, s.<Double>getAs("estimate"));
        assertEquals(martingale, s.<Boolean>getAs("martingale"));
    }

    /**
     * The pipeline of the brief, scaled down: a filter planned for N keys a day, built per day
     * over 8 input partitions and the days unioned. Fed 5N distinct keys, sketch_over_capacity is
     * true, both flags are raised and the expected rate is far above the planned 1% (a Bloom filter
     * at 5 times its plan answers true for most absent keys: measured here too); fed N/2 keys
     * (each in one day and one partition) it is false and the rate is below plan.
     */
    @Test
    void overPlanFilterAcrossPartitionsAndDays() {
        long n = 20_000;
        for (String family : List.of("bloom", "sbbf", "counting")) {
            for (long fed : new long[] {5 * n, n / 2}) {
                String days = "SELECT id % 5 AS day, id AS k FROM range(0, " + fed + ", 1, 8)";
                spark.sql("SELECT day, sketch_" + family + "_agg(k, " + n + ", 0.01) AS f FROM (" + days
                        + ") GROUP BY day").createOrReplaceTempView("daily_filters");
                Row r = spark.sql("SELECT sketch_over_capacity(u), s.expected_fpp, s.capacity_flags, s.items,"
                        + " s.planned_items, s.planned_fpp, u FROM (SELECT sketch_" + family + "_union_agg(f) AS u,"
                        + " sketch_stats(sketch_" + family + "_union_agg(f)) AS s FROM daily_filters)").first();
                String what = family + " fed " + fed + ": " + r;
                assertEquals(n, r.getLong(4), what);
                assertEquals(0.01, r.getDouble(5), 1e-12, what);
                // The measured rate of absent keys agrees with the reported one.
                long absent = 20_000;
                byte[] union = r.getAs(6);
                long hits = spark.range(1L << 40, (1L << 40) + absent)
                        .where(org.apache.spark.sql.functions.call_function("sketch_" + family + "_contains",
                                lit(union), col("id")))
                        .count();
                double measured = (double) hits / absent;
                if (fed > n) {
                    assertTrue(r.getBoolean(0), what);
                    assertEquals(List.of("over_planned_items", "fpp_above_twice_planned"), r.getList(2), what);
                    assertTrue(r.getDouble(1) > 0.3, what);
                    assertTrue(measured > 0.3, what + " measured " + measured);
                    assertTrue(r.getLong(3) > n, what);
                } else {
                    assertFalse(r.getBoolean(0), what);
                    assertEquals(List.of(), r.getList(2), what);
                    assertTrue(r.getDouble(1) < 0.01, what);
                    assertTrue(measured < 0.02, what + " measured " + measured);
                    assertTrue(r.getLong(3) <= n / 2, what);
                }
                assertEquals(r.getDouble(1), measured, Math.max(0.01, r.getDouble(1) * 0.1), what);
            }
        }
    }

    /**
     * The pipeline's usual input: each user in many rows, spread over the input partitions, so
     * Spark merges partial filters of overlapping but different key sets. A Bloom or split-block
     * image's inserted counter then counts a key again in each partial filter where it sets a new
     * bit of the merge, and the image's capacity flags (from that counter) say "over plan" for a
     * filter holding half its planned keys at a rate below plan. sketch_over_capacity judged the
     * filter by those flags and raised this false alarm; it now judges Bloom and split-block
     * filters by their bits (items and rate estimated from the set bits, the rule the core applies
     * to a loaded image whose counters do not count its keys), which do not depend on the
     * partitioning: false here, true at 5 times the plan.
     */
    @Test
    void keysRepeatedAcrossPartitionsAreNotAFalseAlarm() {
        long n = 20_000;
        for (String family : List.of("bloom", "sbbf")) {
            for (long users : new long[] {n / 2, 5 * n}) {
                String rows = "SELECT pmod(xxhash64(id), " + users + ") AS user_id FROM range(0, " + (8 * users)
                        + ", 1, 8)";
                Row r = spark.sql("SELECT sketch_over_capacity(f), sketch_stats(f), (SELECT count(DISTINCT user_id)"
                        + " FROM (" + rows + ")), f FROM (SELECT sketch_" + family + "_agg(user_id, " + n
                        + ", 0.01) AS f FROM (" + rows + "))").first();
                Row s = r.getStruct(1);
                long distinct = r.getLong(2);
                byte[] image = r.getAs(3);
                long hits = spark.range(1L << 40, (1L << 40) + 20_000)
                        .where(org.apache.spark.sql.functions.call_function("sketch_" + family + "_contains",
                                lit(image), col("id")))
                        .count();
                double measured = hits / 20_000.0;
                String what = family + " with " + distinct + " distinct users: " + s + ", measured " + measured;
                if (users < n) {
                    assertFalse(r.getBoolean(0), what);
                    assertFalse(s.<Boolean>getAs("over_capacity"), what);
                    assertTrue(measured < 0.01, what);
                    assertTrue(s.<Double>getAs("expected_fpp") < 0.01, what);
                    assertTrue(s.<Double>getAs("estimated_items") < n, what);
                } else {
                    assertTrue(r.getBoolean(0), what);
                    assertTrue(s.<Boolean>getAs("over_capacity"), what);
                    assertTrue(measured > 0.3, what);
                }
            }
        }
    }

    /**
     * A cuckoo filter planned for N is over capacity (its flags) only past its plan, and a
     * Top-k sketch reports an eviction once more distinct keys came than it has counters.
     */
    @Test
    void cuckooAndTopkOverCapacity() {
        Row r = spark.sql("SELECT sketch_over_capacity(sketch_cuckoo_agg(id, 1000, 0.01)),"
                + " sketch_over_capacity(sketch_topk_agg(id % 10, 10, 8)),"
                + " sketch_over_capacity(sketch_topk_agg(id % 11, 10, 8)),"
                + " sketch_stats(sketch_topk_agg(id % 11, 10, 8)).exact,"
                + " sketch_over_capacity(sketch_hll_agg(id, 12)), sketch_over_capacity(sketch_cms_agg(id, 0.01, 0.01)),"
                + " sketch_over_capacity(sketch_minhash_agg(id, 16)), sketch_over_capacity(sketch_fuse_agg(id, 8))"
                + " FROM range(0, 500, 1, 1)").first();
        assertFalse(r.getBoolean(0));
        assertFalse(r.getBoolean(1));
        assertTrue(r.getBoolean(2));
        assertFalse(r.getBoolean(3));
        assertTrue(r.isNullAt(4));
        assertTrue(r.isNullAt(5));
        assertTrue(r.isNullAt(6));
        assertFalse(r.getBoolean(7));
        // Filled past its plan directly (the aggregate would fail on a full filter): the flags say so.
        CuckooFilter over = CuckooFilter.create(1000, 0.01);
        for (long i = 0; i < 1200; i++) {
            over.add(i);
        }
        assertTrue(over.isOverCapacity(), over.stats().toString());
        Row o = spark.range(1).select(Sketches.overCapacity(lit(over.toByteArray())),
                Sketches.stats(lit(over.toByteArray())).getField("capacity_flags")).first();
        assertTrue(o.getBoolean(0));
        assertTrue(o.getList(1).contains("over_planned_items"), o.toString());
    }

    /**
     * Top-k partials that each hold fewer keys than counters but together more: the merge drops
     * the smallest keys without giving any kept key an error, so the listed errors alone (all 0)
     * said "no key evicted, every count exact"; the counts summing to less than the total say a
     * key was dropped. Within capacity across partitions it stays false.
     */
    @Test
    void topkKeysDroppedByMergingPartialsAreEvictions() {
        Row r = spark.sql("SELECT sketch_over_capacity(sketch_topk_agg(id, 8, 8)),"
                + " sketch_stats(sketch_topk_agg(id, 8, 8)).exact,"
                + " size(sketch_topk_items(sketch_topk_agg(id, 8, 8)))"
                + " FROM range(0, 10, 1, 2)").first();
        assertEquals(8, r.getInt(2), "8 of the 10 keys listed");
        assertTrue(r.getBoolean(0), "2 keys dropped by the merge: over capacity");
        assertFalse(r.getBoolean(1), "2 keys dropped by the merge: not exact");
        Row within = spark.sql("SELECT sketch_over_capacity(sketch_topk_agg(id % 8, 8, 8)),"
                + " sketch_stats(sketch_topk_agg(id % 8, 8, 8)).exact FROM range(0, 40, 1, 4)").first();
        assertFalse(within.getBoolean(0));
        assertTrue(within.getBoolean(1));
    }

    /**
     * The distinct counters' standard error describes the estimate: a union of partial sketches
     * (register estimate, martingale false) lands within 4 standard errors of the true count.
     */
    @Test
    void standardErrorDescribesTheEstimate() {
        long n = 200_000;
        List<Row> rows = spark.sql("SELECT sketch_stats(sketch_hll_agg(id, 12)), sketch_stats(sketch_ull_agg(id, 12)),"
                + " sketch_stats(sketch_ell_agg(id, 12)) FROM range(0, " + n + ", 1, 8)").collectAsList();
        for (int i = 0; i < 3; i++) {
            Row s = rows.get(0).getStruct(i);
            double se = s.getAs("standard_error");
            assertFalse(s.<Boolean>getAs("martingale"), s.toString());
            assertTrue(se > 0.005 && se < 0.02, s.toString());
            assertEquals(n, s.<Double>getAs("estimate"), 4 * se * n, s.toString());
        }
    }

    /**
     * Null images give null; damaged, truncated, foreign and non-image bytes fail the query naming
     * the function, as the other scalar functions do; a Parquet-mode split-block image and a
     * folded one are read.
     */
    @Test
    void nullBadAndParquetImages() {
        Row nulls = spark.sql("SELECT sketch_stats(CAST(NULL AS BINARY)), sketch_over_capacity(CAST(NULL AS BINARY)),"
                + " sketch_stats(NULL), sketch_over_capacity(NULL)").first();
        for (int i = 0; i < 4; i++) {
            assertTrue(nulls.isNullAt(i));
        }
        for (String fn : List.of("sketch_stats", "sketch_over_capacity")) {
            byte[] damaged = Checks.golden("bloom").clone();
            damaged[damaged.length / 2] ^= 0x10;
            failsNaming(fn, "checksum", () -> spark.range(1).select(
                    org.apache.spark.sql.functions.call_function(fn, lit(damaged))).collectAsList());
            byte[] truncated = java.util.Arrays.copyOf(Checks.golden("hll_dense"), 100);
            failsNaming(fn, "not a valid", () -> spark.range(1).select(
                    org.apache.spark.sql.functions.call_function(fn, lit(truncated))).collectAsList());
            byte[] headerOnly = java.util.Arrays.copyOf(Checks.golden("cuckoo"), 20);
            failsNaming(fn, "not a valid sketch image (20 bytes)", () -> spark.range(1).select(
                    org.apache.spark.sql.functions.call_function(fn, lit(headerOnly))).collectAsList());
            failsNaming(fn, "not a valid sketch image", () -> spark.sql("SELECT " + fn + "(CAST(repeat('x', 200)"
                    + " AS BINARY))").collectAsList());
            failsNaming(fn, "must be BINARY", () -> spark.sql("SELECT " + fn + "('abc')").collectAsList());
            failsNaming(fn, "takes 1 arguments", () -> spark.sql("SELECT " + fn + "(X'00', 1)").collectAsList());
        }
        // One flipped body byte of every family's image (after the good image, as ErrorsTest does).
        goldenView();
        spark.sql("SELECT sketch_stats(img), sketch_over_capacity(img) FROM golden").collectAsList();
        for (String g : GOLDEN) {
            byte[] damaged = Checks.golden(g).clone();
            damaged[damaged.length / 2] ^= 0x10;
            for (String fn : List.of("sketch_stats", "sketch_over_capacity")) {
                failsNaming(fn, "checksum", () -> spark.range(1).select(
                        org.apache.spark.sql.functions.call_function(fn, lit(damaged))).collectAsList());
            }
        }
        SplitBlockBloomFilter folded = SplitBlockBloomFilter.create(10_000, 0.01);
        for (long i = 0; i < 500; i++) {
            folded.add(i);
        }
        long blocks = folded.stats().blocks();
        folded.fold(2);
        assertEquals(blocks / 4, folded.stats().blocks());
        byte[] parquet = Checks.golden("sbbf_parquet");
        List<Row> rows = spark.range(1).select(Sketches.stats(lit(folded.toByteArray())),
                Sketches.stats(lit(parquet)), Sketches.overCapacity(lit(folded.toByteArray()))).collectAsList();
        Row f = rows.get(0).getStruct(0);
        SplitBlockBloomFilter.Stats j = folded.stats();
        assertEquals(j.blocks(), f.<Long>getAs("blocks"));
        assertEquals(j.setBits(), f.<Long>getAs("bits_set"));
        assertEquals(j.estimatedFpr(), f.<Double>getAs("expected_fpp"));
        assertEquals(pastPlanByBits(j.estimatedItems(), j.plannedItems(), j.estimatedFpr(), j.plannedFpr()),
                rows.get(0).getBoolean(2));
        Row p = rows.get(0).getStruct(1);
        assertTrue(p.<Boolean>getAs("parquet_mode"));
        assertEquals(SplitBlockBloomFilter.fromByteArray(parquet).stats().estimatedFpr(), p.<Double>getAs("expected_fpp"));
    }

    /**
     * Both functions are registered, listed by functionNames, and DESCRIBE FUNCTION shows the
     * struct's fields and the over-capacity rule per family; the DataFrame helpers answer as SQL.
     */
    @Test
    void registeredWithUsageAndHelpers() {
        assertTrue(Sketches.functionNames().contains("sketch_stats"));
        assertTrue(Sketches.functionNames().contains("sketch_over_capacity"));
        String text = spark.sql("DESCRIBE FUNCTION sketch_stats").collectAsList().stream().map(x -> x.getString(0))
                .reduce("", (x, y) -> x + "\n" + y);
        for (String field : ImageStats.SCHEMA.fieldNames()) {
            assertTrue(text.contains(field + " "), field + " missing in " + text);
        }
        assertTrue(text.contains("Usage: sketch_stats(image)"), text);
        String over = spark.sql("DESCRIBE FUNCTION sketch_over_capacity").collectAsList().stream()
                .map(x -> x.getString(0)).reduce("", (x, y) -> x + "\n" + y);
        assertTrue(over.contains("null for HyperLogLog"), over);
        Row r = spark.range(0, 100).agg(Sketches.bloomAgg(col("id"), 50, 0.01).alias("b"))
                .select(Sketches.overCapacity(col("b")), Sketches.stats(col("b")).getField("items"),
                        Sketches.stats(col("b")).getField("family"))
                .first();
        assertTrue(r.getBoolean(0));
        assertTrue(r.getLong(1) > 50);
        assertEquals("bloom", r.getString(2));
        assertNull(spark.sql("SELECT sketch_stats(sketch_hll_agg(id, 12)).expected_fpp FROM range(10)").first().get(0));
    }
}
