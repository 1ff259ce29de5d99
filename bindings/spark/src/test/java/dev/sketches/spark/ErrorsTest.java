package dev.sketches.spark;

import static dev.sketches.spark.Checks.failsNaming;
import static org.apache.spark.sql.functions.call_function;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.sketches.HyperLogLog;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** Bad input fails the query with an error naming the function; nulls are skipped. */
class ErrorsTest {
    private final SparkSession spark = Session.get();

    @Test
    void imageOfAnotherFamily() {
        byte[] hll = Checks.golden("hll_dense");
        failsNaming("sketch_bloom_contains", "different sketch family", () -> spark.range(3)
                .select(call_function("sketch_bloom_contains", lit(hll), col("id"))).collectAsList());
        // The message says which family the image holds (an HLL image given where an ELL one was meant).
        failsNaming("sketch_ell_estimate", "(it is a HyperLogLog sketch image)", () -> spark.range(1)
                .select(call_function("sketch_ell_estimate", lit(hll))).collectAsList());
        spark.range(1).select(lit(hll).alias("img")).createOrReplaceTempView("hll_images");
        failsNaming("sketch_cms_union_agg", "(it is a HyperLogLog sketch image)",
                () -> spark.sql("SELECT sketch_cms_union_agg(img) FROM hll_images").collectAsList());
        failsNaming("sketch_cms_union_agg", "different sketch family",
                () -> spark.sql("SELECT sketch_cms_union_agg(img) FROM hll_images").collectAsList());
    }

    @Test
    void damagedImage() {
        byte[] bloom = Checks.golden("bloom").clone();
        bloom[bloom.length / 2] ^= 0x10;
        failsNaming("sketch_bloom_contains", "checksum", () -> spark.range(3)
                .select(call_function("sketch_bloom_contains", lit(bloom), col("id"))).collectAsList());
        byte[] truncated = java.util.Arrays.copyOf(Checks.golden("hll_dense"), 100);
        failsNaming("sketch_hll_estimate", "not a valid HyperLogLog",
                () -> spark.range(1).select(call_function("sketch_hll_estimate", lit(truncated))).collectAsList());
    }

    /**
     * Every function that reads an image column, for every family and mode: a damaged image (one
     * flipped body byte, the header intact, so the image cache's lookup finds the good copy's entry)
     * and another family's image fail the query naming the function.
     */
    @Test
    void damagedImagesOfEveryFamily() {
        String[][] cases = {
            {"sketch_bloom_contains", "(img, 'k')", "bloom"},
            {"sketch_sbbf_contains", "(img, 'k')", "sbbf"},
            {"sketch_sbbf_contains", "(img, 'k')", "sbbf_parquet"},
            {"sketch_counting_contains", "(img, 'k')", "counting"},
            {"sketch_cuckoo_contains", "(img, 'k')", "cuckoo"},
            {"sketch_fuse_contains", "(img, 'k')", "fuse8"},
            {"sketch_fuse_contains", "(img, 'k')", "fuse16"},
            {"sketch_hll_estimate", "(img)", "hll_small"},
            {"sketch_hll_estimate", "(img)", "hll_dense"},
            {"sketch_ull_estimate", "(img)", "ull"},
            {"sketch_ell_estimate", "(img)", "ell"},
            {"sketch_ell_estimate", "(img)", "ell_d24"},
            {"sketch_cms_estimate", "(img, 'k')", "countmin"},
            {"sketch_topk_items", "(img)", "topk"},
            {"sketch_jaccard", "(img, img)", "minhash"},
            {"sketch_bloom_union_agg", "(img)", "bloom"},
            {"sketch_sbbf_union_agg", "(img)", "sbbf_parquet"},
            {"sketch_counting_union_agg", "(img)", "counting"},
            {"sketch_cuckoo_union_agg", "(img)", "cuckoo"},
            {"sketch_hll_union_agg", "(img)", "hll_small"},
            {"sketch_ull_union_agg", "(img)", "ull"},
            {"sketch_ell_union_agg", "(img)", "ell_d24"},
            {"sketch_cms_union_agg", "(img)", "countmin"},
            {"sketch_topk_union_agg", "(img)", "topk"},
            {"sketch_minhash_union_agg", "(img)", "minhash"},
        };
        for (String[] c : cases) {
            String function = c[0];
            byte[] good = Checks.golden(c[2]);
            byte[] damaged = good.clone();
            damaged[damaged.length / 2] ^= 0x10;
            byte[] foreign = Checks.golden(c[2].equals("minhash") ? "bloom" : "minhash");
            // The good image first, so that the damaged one meets its cache entry (scalar
            // functions; the union aggregates read each image once, uncached).
            if (!function.endsWith("_union_agg")) {
                spark.range(1).select(lit(good).alias("img")).createOrReplaceTempView("good_images");
                spark.sql("SELECT " + function + c[1] + " FROM good_images").collectAsList();
            }
            spark.range(1).select(lit(damaged).alias("img")).createOrReplaceTempView("damaged_images");
            failsNaming(function, "checksum",
                    () -> spark.sql("SELECT " + function + c[1] + " FROM damaged_images").collectAsList());
            spark.range(1).select(lit(foreign).alias("img")).createOrReplaceTempView("foreign_images");
            failsNaming(function, "different sketch family",
                    () -> spark.sql("SELECT " + function + c[1] + " FROM foreign_images").collectAsList());
        }
    }

    @Test
    void badParameters() {
        failsNaming("sketch_bloom_agg", "fpp must be in (0, 1)",
                () -> spark.sql("SELECT sketch_bloom_agg(id, 100, 2.5) FROM range(10)").collectAsList());
        failsNaming("sketch_bloom_agg", "items must be at least 1",
                () -> spark.sql("SELECT sketch_bloom_agg(id, 0, 0.01) FROM range(10)").collectAsList());
        failsNaming("sketch_hll_agg", "bad parameters",
                () -> spark.sql("SELECT sketch_hll_agg(id, 30) FROM range(10)").collectAsList());
        failsNaming("sketch_hll_agg", "must be a constant",
                () -> spark.sql("SELECT sketch_hll_agg(id, id) FROM range(10)").collectAsList());
        failsNaming("sketch_cms_agg", "eps and delta",
                () -> spark.sql("SELECT sketch_cms_agg(id, 0, 0.1) FROM range(10)").collectAsList());
        failsNaming("sketch_topk_agg", "bad parameters",
                () -> spark.sql("SELECT sketch_topk_agg(id, 0, 8) FROM range(10)").collectAsList());
        failsNaming("sketch_minhash_agg", "takes 2 arguments",
                () -> spark.sql("SELECT sketch_minhash_agg(id) FROM range(10)").collectAsList());
        failsNaming("sketch_hll_agg", "keys must be STRING",
                () -> spark.sql("SELECT sketch_hll_agg(CAST(id AS DOUBLE), 12) FROM range(10)").collectAsList());
        failsNaming("sketch_hll_estimate", "must be BINARY",
                () -> spark.sql("SELECT sketch_hll_estimate('abc')").collectAsList());
        failsNaming("sketch_topk_items", "key_type",
                () -> spark.sql("SELECT sketch_topk_items(sketch_topk_agg(id, 8, 8), 'int') FROM range(10)").collectAsList());
        // Integer keys take 8 bytes: a smaller max_key_len fails at analysis, not on every task's first row.
        failsNaming("sketch_topk_agg", "max_key_len must be at least 8 for INT keys",
                () -> spark.sql("SELECT sketch_topk_agg(CAST(id AS INT), 8, 4) FROM range(10)"));
        failsNaming("sketch_topk_agg", "longer than max_key_len",
                () -> spark.sql("SELECT sketch_topk_agg(concat('key-', id), 8, 4) FROM range(10)").collectAsList());
    }

    /**
     * Filters and Count-Min sketches too large to make fail at analysis (spark.sql, before any
     * task runs), naming the function: sized without being made.
     */
    @Test
    void oversizedSketches() {
        failsNaming("sketch_bloom_agg", "more than one Java ByteBuffer holds",
                () -> spark.sql("SELECT sketch_bloom_agg(id, 100000000000000, 0.01) FROM range(10)"));
        failsNaming("sketch_sbbf_agg", "more than one Java ByteBuffer holds",
                () -> spark.sql("SELECT sketch_sbbf_agg(id, 10000000000, 0.01) FROM range(10)"));
        failsNaming("sketch_counting_agg", "more than one Java ByteBuffer holds",
                () -> spark.sql("SELECT sketch_counting_agg(id, 10000000000, 0.01) FROM range(10)"));
        failsNaming("sketch_cuckoo_agg", "more than one Java ByteBuffer holds",
                () -> spark.sql("SELECT sketch_cuckoo_agg(id, 100000000000000, 0.01) FROM range(10)"));
        failsNaming("sketch_cuckoo_agg", "bad parameters",
                () -> spark.sql("SELECT sketch_cuckoo_agg(id, 1000, 1e-9) FROM range(10)"));
        failsNaming("sketch_cms_agg", "more than one Java ByteBuffer holds",
                () -> spark.sql("SELECT sketch_cms_agg(id, 1e-9, 0.01) FROM range(10)"));
        failsNaming("sketch_cms_agg", "bad parameters",
                () -> spark.sql("SELECT sketch_cms_agg(id, 1e-12, 0.01) FROM range(10)"));
        // A large plan that fits is accepted at analysis (nothing is made until the query runs).
        spark.sql("SELECT sketch_bloom_agg(id, 100000000, 0.01) FROM range(10)");
        failsNaming("sketch_topk_agg", "more than one Java ByteBuffer holds",
                () -> spark.sql("SELECT sketch_topk_agg(id, 1048576, 2000) FROM range(10)"));
    }

    /**
     * A large Top-k plan is sized at analysis, not made on the driver: it made a 1.1 GB sketch there
     * (2.6 s, and an OutOfMemoryError "Cannot reserve ... direct buffer memory" with the default 1 GB
     * driver) only to check the parameters. The direct memory the JVM reserved must not grow by it.
     */
    @Test
    void largeTopKIsNotMadeAtAnalysis() {
        java.lang.management.BufferPoolMXBean direct = java.lang.management.ManagementFactory
                .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
        long before = direct.getTotalCapacity();
        spark.sql("SELECT sketch_topk_agg(id, 1048576, 1000) FROM range(10)");
        long grown = direct.getTotalCapacity() - before;
        org.junit.jupiter.api.Assertions.assertTrue(grown < 100_000_000L, grown + " bytes of direct memory at analysis");
    }

    /**
     * The largest ExaLogLog (p = 24, d = 24: 64 MiB) and MinHash (k = 2^20: 8 MiB) sketches are
     * sized at analysis, not made: the builder made one on the driver to check the parameters, for
     * every analysis of a query.
     */
    @Test
    void largeExaLogLogAndMinHashAreNotMadeAtAnalysis() {
        java.lang.management.BufferPoolMXBean direct = java.lang.management.ManagementFactory
                .getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class).stream()
                .filter(b -> b.getName().equals("direct")).findFirst().orElseThrow();
        long before = direct.getTotalCapacity();
        spark.sql("SELECT sketch_ell_agg(id, 24, 24) FROM range(10)");
        long ell = direct.getTotalCapacity() - before;
        before = direct.getTotalCapacity();
        spark.sql("SELECT sketch_minhash_agg(id, 1048576) FROM range(10)");
        long minhash = direct.getTotalCapacity() - before;
        org.junit.jupiter.api.Assertions.assertTrue(ell < 8_000_000L, ell + " bytes of direct memory at analysis");
        org.junit.jupiter.api.Assertions.assertTrue(minhash < 4_000_000L, minhash + " bytes of direct memory at analysis");
        // The parameters are still checked at analysis.
        failsNaming("sketch_ell_agg", "precision must be in 2..24", () -> spark.sql("SELECT sketch_ell_agg(id, 25) FROM range(10)"));
        failsNaming("sketch_minhash_agg", "bad parameters", () -> spark.sql("SELECT sketch_minhash_agg(id, 2000000) FROM range(10)"));
        failsNaming("sketch_minhash_agg", "k must be positive", () -> spark.sql("SELECT sketch_minhash_agg(id, 0) FROM range(10)"));
    }

    @Test
    void imagesThatDoNotMerge() {
        spark.sql("SELECT sketch_bloom_agg(id, 100, 0.01) AS f FROM range(100) UNION ALL"
                + " SELECT sketch_bloom_agg(id, 1000, 0.01) FROM range(100)").createOrReplaceTempView("mixed_bloom");
        failsNaming("sketch_bloom_union_agg", "cannot merge",
                () -> spark.sql("SELECT sketch_bloom_union_agg(f) FROM mixed_bloom").collectAsList());
    }

    /**
     * A cuckoo aggregate over keys that several input partitions hold: the partial filters' merge
     * copies their entries, so it fills up; the error says so (it used to blame the parameters)
     * and its remedy, DISTINCT, stores each key once.
     */
    @Test
    void cuckooKeysInSeveralPartitions() {
        failsNaming("sketch_cuckoo_agg", "DISTINCT key", () -> spark.sql("SELECT sketch_cuckoo_agg(k, 1000, 0.01)"
                + " FROM (SELECT id % 500 AS k FROM range(0, 20000, 1, 7))").collectAsList());
        byte[] image = spark.sql("SELECT sketch_cuckoo_agg(DISTINCT k, 1000, 0.01)"
                + " FROM (SELECT id % 500 AS k FROM range(0, 20000, 1, 7))").first().getAs(0);
        dev.sketches.CuckooFilter f = dev.sketches.CuckooFilter.fromByteArray(image);
        for (long k = 0; k < 500; k++) {
            org.junit.jupiter.api.Assertions.assertEquals(1, f.count(k), "key " + k);
        }
        spark.sql("SELECT sketch_cuckoo_agg(id, 100, 0.01) AS f FROM range(0, 90) UNION ALL"
                + " SELECT sketch_cuckoo_agg(id, 100, 0.01) FROM range(0, 90)").createOrReplaceTempView("overfull_cuckoo");
        failsNaming("sketch_cuckoo_union_agg", "disjoint keys",
                () -> spark.sql("SELECT sketch_cuckoo_union_agg(f) FROM overfull_cuckoo").collectAsList());
    }

    @Test
    void nullsAreSkipped() {
        Row r = spark.sql("SELECT sketch_hll_agg(k, 12), sketch_hll_agg(CASE WHEN k IS NOT NULL THEN k END, 12),"
                + " sketch_bloom_contains(sketch_bloom_agg(k, 10, 0.01), CAST(NULL AS STRING))"
                + " FROM (SELECT IF(id % 3 = 0, NULL, concat('k', id)) AS k FROM range(0, 300, 1, 1))").first();
        HyperLogLog expected = HyperLogLog.create(12);
        for (int i = 0; i < 300; i++) {
            if (i % 3 != 0) {
                expected.add("k" + i);
            }
        }
        assertArrayEquals(expected.toByteArray(), r.getAs(0));
        assertArrayEquals(expected.toByteArray(), r.getAs(1));
        assertNull(r.get(2));
        // No key: the empty sketch; no image: null.
        Row e = spark.sql("SELECT sketch_hll_agg(CAST(NULL AS STRING), 12), sketch_hll_union_agg(CAST(NULL AS BINARY))"
                + " FROM range(5)").first();
        assertArrayEquals(HyperLogLog.create(12).toByteArray(), e.getAs(0));
        assertNull(e.get(1));
    }

    /**
     * Every aggregate over no row, or only null keys, returns the empty sketch of its parameters
     * (the image the Java binding makes; the binary fuse filter of no key), globally and for a
     * group whose keys are all null, as the README says; estimates of it are 0.
     */
    @Test
    void emptyGroupsGiveEmptySketches() {
        Object[][] cases = {
            {"sketch_bloom_agg(k, 100, 0.01)", dev.sketches.BloomFilter.create(100, 0.01).toByteArray()},
            {"sketch_sbbf_agg(k, 100, 0.01)", dev.sketches.SplitBlockBloomFilter.create(100, 0.01).toByteArray()},
            {"sketch_counting_agg(k, 100, 0.01)", dev.sketches.CountingBloomFilter.create(100, 0.01).toByteArray()},
            {"sketch_cuckoo_agg(k, 100, 0.01)", dev.sketches.CuckooFilter.create(100, 0.01).toByteArray()},
            {"sketch_hll_agg(k, 12)", HyperLogLog.create(12).toByteArray()},
            {"sketch_ull_agg(k, 12)", dev.sketches.UltraLogLog.create(12).toByteArray()},
            {"sketch_ell_agg(k, 12, 24)", dev.sketches.ExaLogLog.create(12, 24, 0).toByteArray()},
            {"sketch_cms_agg(k, 0.01, 0.01)", dev.sketches.CountMinSketch.create(0.01, 0.01).toByteArray()},
            {"sketch_topk_agg(k, 8, 16)", dev.sketches.TopK.create(8, 16).toByteArray()},
            {"sketch_minhash_agg(k, 16)", dev.sketches.MinHash.create(16).toByteArray()},
            {"sketch_fuse_agg(k, 8)", dev.sketches.BinaryFuseFilter.build(new byte[0][], 8, 0).toByteArray()},
        };
        for (Object[] c : cases) {
            Row global = spark.sql("SELECT " + c[0] + " FROM (SELECT CAST(id AS STRING) AS k FROM range(10) WHERE id < 0)")
                    .first();
            assertArrayEquals((byte[]) c[1], global.getAs(0), c[0] + " over no row");
            Row nulls = spark.sql("SELECT g, " + c[0] + " FROM (SELECT id % 2 AS g, CAST(NULL AS STRING) AS k"
                    + " FROM range(0, 10, 1, 3)) GROUP BY g").first();
            assertArrayEquals((byte[]) c[1], nulls.getAs(1), c[0] + " over null keys");
        }
        Row e = spark.sql("SELECT sketch_hll_estimate(sketch_hll_agg(id, 12)), sketch_ull_estimate(sketch_ull_agg(id, 12)),"
                + " sketch_ell_estimate(sketch_ell_agg(id, 12)), size(sketch_topk_items(sketch_topk_agg(id, 4, 8)))"
                + " FROM range(0)").first();
        for (int i = 0; i < 4; i++) {
            org.junit.jupiter.api.Assertions.assertEquals(0L, ((Number) e.get(i)).longValue(), "column " + i);
        }
    }

    /** An untyped NULL (type VOID) as an image or key is a null like any other: null answers, no key. */
    @Test
    void untypedNulls() {
        Row r = spark.sql("SELECT sketch_hll_estimate(NULL), sketch_bloom_contains(NULL, 1),"
                + " sketch_bloom_contains(sketch_bloom_agg(id, 10, 0.01), NULL), sketch_cms_estimate(NULL, NULL),"
                + " sketch_jaccard(NULL, sketch_minhash_agg(id, 8)), sketch_topk_items(NULL),"
                + " sketch_hll_union_agg(NULL), sketch_hll_agg(NULL, 12) FROM range(3)").first();
        for (int i = 0; i < 7; i++) {
            assertNull(r.get(i), "column " + i);
        }
        assertArrayEquals(HyperLogLog.create(12).toByteArray(), r.getAs(7));
    }
}
