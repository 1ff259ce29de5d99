package dev.sketches.spark;

import static dev.sketches.spark.Checks.failsNaming;
import static org.apache.spark.sql.functions.call_function;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sketches.BinaryFuseFilter;
import dev.sketches.ExaLogLog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** ExaLogLog ({@code sketch_ell_*}) and binary fuse filter ({@code sketch_fuse_*}) functions. */
class EllFuseTest {
    private final SparkSession spark = Session.get();

    /**
     * Per-group ExaLogLog estimates within four standard errors of the exact distinct counts (known
     * by construction; the groups' partial sketches merge, so these are maximum-likelihood estimates).
     */
    @Test
    void ellDistinctCounts() {
        // Group g (0..5) holds (g + 1) * 1,500 distinct keys, each twice, over four partitions.
        spark.sql("SELECT g, concat('u', g, '-', j) AS k FROM (SELECT id % 6 AS g, (id DIV 12) AS j FROM range(0, 108000))"
                + " WHERE j < (g + 1) * 1500").createOrReplaceTempView("ell_keys");
        List<Row> rows = spark.sql("SELECT g, sketch_ell_estimate(sketch_ell_agg(k, 12)),"
                + " sketch_ell_estimate(sketch_ell_agg(k, 10, 24)) FROM ell_keys GROUP BY g").collectAsList();
        assertEquals(6, rows.size());
        for (Row r : rows) {
            double exact = (r.getLong(0) + 1) * 1500;
            assertEquals(exact, r.getLong(1), 4 * 0.362 / Math.sqrt(1 << 12) * exact, r.toString());
            assertEquals(exact, r.getLong(2), 4 * 0.344 / Math.sqrt(1 << 10) * exact, r.toString());
        }
    }

    /** One partition, keys in order: the image and estimate the Java binding gives for the same stream. */
    @Test
    void ellImagesMatchTheJavaBinding() {
        Row r = spark.sql("SELECT sketch_ell_agg(concat('e', id), 11), sketch_ell_agg(id, 9, 24),"
                + " sketch_ell_estimate(sketch_ell_agg(concat('e', id), 11)) FROM range(0, 6000, 1, 1)").first();
        ExaLogLog strings = ExaLogLog.create(11, 20, 0);
        ExaLogLog longs = ExaLogLog.create(9, 24, 0);
        for (long i = 0; i < 6000; i++) {
            strings.add("e" + i);
            longs.add(i);
        }
        assertArrayEquals(strings.toByteArray(), r.getAs(0));
        assertArrayEquals(longs.toByteArray(), r.getAs(1));
        assertEquals(Math.round(strings.estimate()), r.getLong(2));
        // A C-made golden image (precision 10, 1,001 keys) read by the estimate function.
        Row g = spark.sql("SELECT 1").select(call_function("sketch_ell_estimate", lit(Checks.golden("ell"))),
                Sketches.ellEstimate(lit(Checks.golden("ell_d24")))).first();
        assertEquals(Math.round(ExaLogLog.fromByteArray(Checks.golden("ell")).estimate()), g.getLong(0));
        assertEquals(1001, g.getLong(1), 100);
    }

    /** The merge of per-group images is the sketch of all rows, byte for byte, also across precisions. */
    @Test
    void ellUnionEqualsOneSketch() {
        spark.range(0, 30000).selectExpr("id % 5 AS g", "pmod(xxhash64(id), 9000) AS k").createOrReplaceTempView("ell_rows");
        Row r = spark.sql("WITH parts AS (SELECT g, sketch_ell_agg(k, 12) AS s12, sketch_ell_agg(k, 11, 24) AS s11"
                + " FROM ell_rows GROUP BY g)"
                + " SELECT sketch_ell_union_agg(s12), sketch_ell_union_agg(IF(g % 2 = 0, s12, s11)),"
                + " sketch_ell_union_agg(IF(g = 3, NULL, s12)) FROM parts").first();
        Row all = spark.sql("SELECT sketch_ell_agg(k, 12), sketch_ell_agg(k, 11) FROM ell_rows").first();
        assertArrayEquals((byte[]) all.getAs(0), r.getAs(0));
        // p 12 / d 20 merged with p 11 / d 24: p 11, d 20.
        assertArrayEquals((byte[]) all.getAs(1), r.getAs(1));
        assertFalse(java.util.Arrays.equals((byte[]) all.getAs(0), r.getAs(2)));
        ExaLogLog merged = ExaLogLog.fromByteArray(r.getAs(1));
        assertEquals(11, merged.stats().precision());
        assertEquals(20, merged.stats().d());
        assertEquals(9000, merged.estimate(), 9000 * 4 * 0.362 / Math.sqrt(1 << 11));
    }

    /**
     * The filter built from a group's keys (duplicates, several partitions, any order) is the Java
     * binding's build from the same distinct keys with seed 0.
     */
    @Test
    void fuseImagesMatchTheJavaBinding() {
        Row r = spark.sql("SELECT sketch_fuse_agg(concat('f', id % 3000), 8), sketch_fuse_agg(id % 3000, 16),"
                + " sketch_fuse_agg(CAST(concat('f', id % 3000) AS BINARY), 8) FROM range(0, 9000)").first();
        List<String> keys = new ArrayList<>();
        long[] longs = new long[3000];
        for (int i = 0; i < 3000; i++) {
            keys.add("f" + i);
            longs[2999 - i] = i;
        }
        Collections.shuffle(keys, new java.util.Random(7));
        byte[] strings = BinaryFuseFilter.build(keys.toArray(new String[0]), 8, 0).toByteArray();
        assertArrayEquals(strings, r.getAs(0));
        assertArrayEquals(BinaryFuseFilter.build(longs, 16, 0).toByteArray(), r.getAs(1));
        assertArrayEquals(strings, r.getAs(2));
    }

    /** No false negatives; false positives near 2^-8 (8 bits) and 2^-16 (16 bits) on absent keys. */
    @Test
    void fuseContains() {
        spark.range(0, 42000).selectExpr("id", "concat('c', id) AS k").createOrReplaceTempView("fuse_keys");
        for (int bits : new int[] {8, 16}) {
            Row r = spark.sql("WITH img AS (SELECT sketch_fuse_agg(k, " + bits + ") AS i FROM fuse_keys WHERE id < 2000)"
                    + " SELECT count_if(sketch_fuse_contains(i, k) AND id < 2000),"
                    + " count_if(sketch_fuse_contains(i, k) AND id >= 2000) FROM fuse_keys CROSS JOIN img").first();
            assertEquals(2000L, r.getLong(0), "bits " + bits);
            // 40,000 absent keys: 156 expected at 2^-8 (standard deviation 12.5), 0.6 at 2^-16.
            long fp = r.getLong(1);
            if (bits == 8) {
                assertTrue(fp > 100 && fp < 215, fp + " false positives of 40000");
            } else {
                assertTrue(fp <= 5, fp + " false positives of 40000");
            }
        }
        // A C-made golden filter (1,000 keys "golden-<i>", 8 bits) queried from Spark.
        Row g = spark.range(0, 1000).selectExpr("concat('golden-', id) AS k")
                .agg(org.apache.spark.sql.functions.count_if(Sketches.fuseContains(lit(Checks.golden("fuse8")), col("k"))))
                .first();
        assertEquals(1000L, g.getLong(0));
    }

    /**
     * Hundreds of groups: past the sort-based fallback threshold (128) the buffers spill and
     * travel as their key sets, and every group's filter still holds its keys.
     */
    @Test
    void fuseManyGroups() {
        List<Row> rows = spark.sql("SELECT g, sketch_fuse_contains(f, g * 1000 + 7), sketch_fuse_contains(f, g * 1000 + 29),"
                + " sketch_fuse_contains(f, g * 1000), length(f) FROM (SELECT g, sketch_fuse_agg(k, 8) AS f"
                + " FROM (SELECT id % 300 AS g, (id % 300) * 1000 + (id DIV 300) % 30 AS k FROM range(0, 18000))"
                + " GROUP BY g)").collectAsList();
        assertEquals(300, rows.size());
        long expected = BinaryFuseFilter.imageBytes(30, 8);
        for (Row r : rows) {
            assertTrue(r.getBoolean(1) && r.getBoolean(2) && r.getBoolean(3), "group " + r.get(0));
            assertEquals(expected, r.getInt(4), "group " + r.get(0) + ": 30 distinct keys");
        }
    }

    @Test
    void dataFrameHelpers() {
        Row r = spark.range(0, 2000).agg(Sketches.ellAgg(col("id"), 12).alias("e"), Sketches.ellAgg(col("id"), 12, 24),
                Sketches.fuseAgg(col("id"), 16).alias("f"))
                .select(Sketches.ellEstimate(col("e")), Sketches.fuseContains(col("f"), lit(1999L)),
                        Sketches.fuseContains(col("f"), lit(123456789L)), col("sketch_ell_agg(id)"))
                .first();
        assertEquals(2000, r.getLong(0), 2000 * 4 * 0.362 / 64);
        assertTrue(r.getBoolean(1));
        assertFalse(r.getBoolean(2));
        assertEquals(24, ExaLogLog.fromByteArray(r.getAs(3)).stats().d());
        assertTrue(Sketches.usage("sketch_ell_agg").startsWith("sketch_ell_agg(key, p [, d])"));
        assertTrue(Sketches.usage("sketch_fuse_agg").contains("no union aggregate"));
        assertFalse(Sketches.functionNames().contains("sketch_fuse_union_agg"));
        assertThrows(IllegalArgumentException.class, () -> Sketches.unionAgg("fuse", col("f")));
        assertThrows(AnalysisException.class,
                () -> spark.sql("SELECT sketch_fuse_union_agg(sketch_fuse_agg(id, 8)) FROM range(3)").collectAsList());
    }

    @Test
    void badInput() {
        byte[] hll = Checks.golden("hll_dense");
        failsNaming("sketch_fuse_contains", "different sketch family", () -> spark.range(3)
                .select(call_function("sketch_fuse_contains", lit(hll), col("id"))).collectAsList());
        failsNaming("sketch_ell_estimate", "different sketch family", () -> spark.range(1)
                .select(call_function("sketch_ell_estimate", lit(hll))).collectAsList());
        spark.range(1).select(lit(hll).alias("img")).createOrReplaceTempView("ell_bad_images");
        failsNaming("sketch_ell_union_agg", "different sketch family",
                () -> spark.sql("SELECT sketch_ell_union_agg(img) FROM ell_bad_images").collectAsList());
        byte[] ell = Checks.golden("ell").clone();
        ell[ell.length - 70] ^= 0x04;
        failsNaming("sketch_ell_estimate", "checksum", () -> spark.range(1)
                .select(call_function("sketch_ell_estimate", lit(ell))).collectAsList());
        byte[] fuse = Checks.golden("fuse16").clone();
        fuse[fuse.length / 2] ^= 0x01;
        failsNaming("sketch_fuse_contains", "checksum", () -> spark.range(3)
                .select(call_function("sketch_fuse_contains", lit(fuse), col("id"))).collectAsList());
        failsNaming("sketch_fuse_agg", "bits must be 8 or 16",
                () -> spark.sql("SELECT sketch_fuse_agg(id, 12) FROM range(10)").collectAsList());
        failsNaming("sketch_ell_agg", "bad parameters",
                () -> spark.sql("SELECT sketch_ell_agg(id, 30) FROM range(10)").collectAsList());
        failsNaming("sketch_ell_agg", "d must be 20 or 24",
                () -> spark.sql("SELECT sketch_ell_agg(id, 12, 22) FROM range(10)").collectAsList());
        failsNaming("sketch_fuse_agg", "keys must be STRING",
                () -> spark.sql("SELECT sketch_fuse_agg(CAST(id AS DOUBLE), 8) FROM range(10)").collectAsList());
    }

    @Test
    void nullsAreSkipped() {
        Row r = spark.sql("SELECT sketch_ell_agg(k, 10), sketch_ell_agg(CASE WHEN k IS NOT NULL THEN k END, 10),"
                + " sketch_fuse_agg(k, 8), sketch_fuse_contains(sketch_fuse_agg(k, 8), CAST(NULL AS STRING)),"
                + " sketch_ell_estimate(CAST(NULL AS BINARY)), sketch_fuse_contains(CAST(NULL AS BINARY), 'k1')"
                + " FROM (SELECT IF(id % 3 = 0, NULL, concat('k', id)) AS k FROM range(0, 300, 1, 1))").first();
        ExaLogLog ell = ExaLogLog.create(10);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            if (i % 3 != 0) {
                ell.add("k" + i);
                keys.add("k" + i);
            }
        }
        assertArrayEquals(ell.toByteArray(), r.getAs(0));
        assertArrayEquals(ell.toByteArray(), r.getAs(1));
        assertArrayEquals(BinaryFuseFilter.build(keys.toArray(new String[0]), 8, 0).toByteArray(), r.getAs(2));
        assertNull(r.get(3));
        assertNull(r.get(4));
        assertNull(r.get(5));
        // No key: the empty sketch and the filter of no key; no image: null.
        Row e = spark.sql("SELECT sketch_ell_agg(CAST(NULL AS STRING), 12), sketch_fuse_agg(CAST(NULL AS BIGINT), 16),"
                + " sketch_ell_union_agg(CAST(NULL AS BINARY)) FROM range(5)").first();
        assertArrayEquals(ExaLogLog.create(12).toByteArray(), e.getAs(0));
        assertArrayEquals(BinaryFuseFilter.build(new long[0], 16, 0).toByteArray(), e.getAs(1));
        assertNull(e.get(2));
    }
}
