package dev.sketches.spark;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sketches.BloomFilter;
import dev.sketches.HyperLogLog;
import dev.sketches.UltraLogLog;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** The scalar functions, the key rule and the DataFrame helpers. */
class FunctionsTest {
    private final SparkSession spark = Session.get();

    @Test
    void integralKeysHashAsEightBytes() {
        Row r = spark.sql("SELECT sketch_bloom_agg(id, 1000, 0.01), sketch_bloom_agg(CAST(id AS INT), 1000, 0.01),"
                + " sketch_bloom_agg(CAST(id AS SMALLINT), 1000, 0.01) FROM range(0, 500, 1, 1)").first();
        BloomFilter f = BloomFilter.create(1000, 0.01);
        for (long i = 0; i < 500; i++) {
            f.add(i);
        }
        assertArrayEquals(f.toByteArray(), r.getAs(0));
        assertArrayEquals(f.toByteArray(), r.getAs(1));
        assertArrayEquals(f.toByteArray(), r.getAs(2));
    }

    @Test
    void binaryKeysAsTheirBytes() {
        Row r = spark.sql("SELECT sketch_sbbf_agg(CAST(k AS BINARY), 100, 0.01), sketch_sbbf_agg(k, 100, 0.01)"
                + " FROM (SELECT concat('b', id) AS k FROM range(0, 50, 1, 1))").first();
        assertArrayEquals((byte[]) r.getAs(1), (byte[]) r.getAs(0));
    }

    /** A STRING key with a collation (Spark 4) hashes as its UTF-8 bytes, as a plain STRING does. */
    @Test
    void collatedStringKeys() {
        Row r = spark.sql("SELECT sketch_hll_agg(k COLLATE UTF8_LCASE, 12), sketch_hll_agg(k, 12),"
                + " sketch_fuse_agg(k COLLATE UNICODE_CI, 8), sketch_fuse_agg(k, 8)"
                + " FROM (SELECT concat('Key', id) AS k FROM range(0, 100, 1, 1))").first();
        assertArrayEquals((byte[]) r.getAs(1), (byte[]) r.getAs(0));
        assertArrayEquals((byte[]) r.getAs(3), (byte[]) r.getAs(2));
    }

    /**
     * A STRING key hashes as the bytes Spark holds, also when they are not valid UTF-8 (a column
     * read from a file or cast from BINARY): the functions took it as a Java String, which turns
     * each invalid sequence into U+FFFD, so three such distinct keys counted as one and a STRING
     * key did not find its own bytes added as BINARY (or in a Parquet file's filter).
     */
    @Test
    void stringKeysAreTheBytesSparkHolds() {
        spark.sql("SELECT CAST(unhex(h) AS STRING) AS k FROM VALUES ('FF'), ('FE'), ('C0'), ('6B31') AS t(h)")
                .createOrReplaceTempView("raw_string_keys");
        Row r = spark.sql("SELECT sketch_hll_agg(k, 12), sketch_hll_agg(CAST(k AS BINARY), 12),"
                + " sketch_hll_estimate(sketch_hll_agg(k, 12)), count(DISTINCT k) FROM raw_string_keys").first();
        HyperLogLog expected = HyperLogLog.create(12);
        for (byte[] k : new byte[][] {{(byte) 0xff}, {(byte) 0xfe}, {(byte) 0xc0}, {'k', '1'}}) {
            expected.add(k);
        }
        assertArrayEquals(expected.toByteArray(), r.getAs(0));
        assertArrayEquals(expected.toByteArray(), r.getAs(1));
        assertEquals(4L, r.getLong(2));
        assertEquals(4L, r.getLong(3));
        Row c = spark.sql("WITH img AS (SELECT sketch_bloom_agg(CAST(k AS BINARY), 10, 0.01) AS b,"
                + " sketch_cms_agg(CAST(k AS BINARY), 0.01, 0.01) AS c, sketch_fuse_agg(CAST(k AS BINARY), 16) AS f"
                + " FROM raw_string_keys)"
                + " SELECT count_if(sketch_bloom_contains(b, k)), sum(sketch_cms_estimate(c, k)),"
                + " count_if(sketch_fuse_contains(f, k)) FROM raw_string_keys CROSS JOIN img").first();
        assertEquals(4L, c.getLong(0));
        assertEquals(4L, c.getLong(1));
        assertEquals(4L, c.getLong(2));
        // Plain strings keep their column names and images.
        assertEquals("sketch_hll_agg(k)", spark.sql("SELECT sketch_hll_agg(k, 12) FROM raw_string_keys").columns()[0]);
    }

    @Test
    void filterContains() {
        spark.range(0, 4000).selectExpr("concat('x', id) AS k").createOrReplaceTempView("filter_keys");
        for (String f : new String[] {"bloom", "sbbf", "counting", "cuckoo"}) {
            Row r = spark.sql("WITH img AS (SELECT sketch_" + f + "_agg(k, 2000, 0.01) AS i FROM filter_keys"
                    + " WHERE CAST(substring(k, 2) AS INT) < 2000)"
                    + " SELECT count_if(sketch_" + f + "_contains(i, k) AND CAST(substring(k, 2) AS INT) < 2000),"
                    + " count_if(sketch_" + f + "_contains(i, k) AND CAST(substring(k, 2) AS INT) >= 2000)"
                    + " FROM filter_keys CROSS JOIN img").first();
            assertEquals(2000L, r.getLong(0), f);
            assertTrue(r.getLong(1) < 60, f + ": " + r.getLong(1) + " false positives of 2000");
        }
    }

    @Test
    void countMinAndTopK() {
        // Key i occurs i + 1 times (i < 60), plus 5,000 keys once.
        spark.sql("SELECT CAST(k AS BIGINT) AS k FROM (SELECT explode(sequence(0, CAST(id AS INT))) AS j, id AS k"
                + " FROM range(0, 60)) UNION ALL SELECT id + 1000 FROM range(0, 5000)").createOrReplaceTempView("freq");
        List<Row> est = spark.sql("WITH s AS (SELECT sketch_cms_agg(k, 0.001, 0.01) AS c FROM freq)"
                + " SELECT id, sketch_cms_estimate(c, id) FROM range(0, 60) CROSS JOIN s ORDER BY id").collectAsList();
        long total = 60 * 61 / 2 + 5000;
        for (Row r : est) {
            long truth = r.getLong(0) + 1;
            assertTrue(r.getLong(1) >= truth && r.getLong(1) <= truth + 0.001 * total * 3, r.toString());
        }
        List<Row> items = spark.sql("SELECT inline(sketch_topk_items(sketch_topk_agg(k, 32, 8), 'long')) FROM freq")
                .collectAsList();
        assertEquals(59L, items.get(0).getLong(0));
        assertTrue(items.get(0).getLong(1) >= 60);
        for (int i = 0; i < 10; i++) {
            assertEquals(59L - i, items.get(i).getLong(0), "rank " + i);
        }
        Row named = spark.sql("SELECT sketch_topk_items(sketch_topk_agg(concat('w', id % 3), 4, 8))[0].item"
                + " FROM range(0, 100)").first();
        assertTrue(named.getString(0).startsWith("w"));
    }

    @Test
    void jaccardAndEstimates() {
        Row r = spark.sql("SELECT sketch_jaccard(sketch_minhash_agg(IF(id < 6000, id, NULL), 256),"
                + " sketch_minhash_agg(IF(id >= 2000, id, NULL), 256)), sketch_ull_estimate(sketch_ull_agg(id, 12)),"
                + " sketch_hll_estimate(sketch_hll_agg(id, 12)) FROM range(0, 8000)").first();
        // True Jaccard: 4000 / 8000.
        assertEquals(0.5, r.getDouble(0), 0.1);
        assertEquals(8000, r.getLong(1), 8000 * 0.065);
        assertEquals(8000, r.getLong(2), 8000 * 0.065);
    }

    /**
     * HyperLogLog and UltraLogLog union aggregates over images of different precisions give the
     * lowest precision's merge whatever order the images arrive in (the binding only folds a higher
     * precision into a lower one: with the higher one first the query used to fail).
     */
    @Test
    void hllAndUllUnionsFoldPrecisionsInAnyOrder() {
        HyperLogLog h10 = HyperLogLog.create(10);
        HyperLogLog h12 = HyperLogLog.create(12);
        UltraLogLog u10 = UltraLogLog.create(10);
        UltraLogLog u12 = UltraLogLog.create(12);
        for (long i = 0; i < 10_000; i++) {
            if (i < 5000) {
                h10.add(i);
                u10.add(i);
            }
            if (i >= 2500) {
                h12.add(i);
                u12.add(i);
            }
        }
        h10.merge(h12);
        u10.merge(u12);
        for (String order : new String[] {"ASC", "DESC"}) {
            Row r = spark.sql("SELECT sketch_hll_union_agg(h), sketch_ull_union_agg(u) FROM (SELECT h, u FROM ("
                    + " SELECT 10 AS p, sketch_hll_agg(id, 10) AS h, sketch_ull_agg(id, 10) AS u FROM range(0, 5000)"
                    + " UNION ALL SELECT 12, sketch_hll_agg(id, 12), sketch_ull_agg(id, 12) FROM range(2500, 10000))"
                    + " ORDER BY p " + order + " LIMIT 2)").first();
            assertArrayEquals(h10.toByteArray(), (byte[]) r.getAs(0), order);
            assertArrayEquals(u10.toByteArray(), (byte[]) r.getAs(1), order);
        }
    }

    /**
     * What the README says of partitioning: counting Bloom, Count-Min, MinHash and binary fuse
     * images are the same bytes from 1 or 7 input partitions; HyperLogLog's estimate is the
     * martingale one from one task and the register estimate after merges.
     */
    @Test
    void partitioning() {
        String aggs = "sketch_counting_agg(k, 1000, 0.01), sketch_cms_agg(k, 0.01, 0.01), sketch_minhash_agg(k, 64),"
                + " sketch_fuse_agg(k, 8), sketch_hll_agg(k, 12)";
        Row one = spark.sql("SELECT " + aggs + " FROM (SELECT id % 5000 AS k FROM range(0, 20000, 1, 1))").first();
        Row seven = spark.sql("SELECT " + aggs + " FROM (SELECT id % 5000 AS k FROM range(0, 20000, 1, 7))").first();
        for (int i = 0; i < 4; i++) {
            assertArrayEquals((byte[]) one.getAs(i), (byte[]) seven.getAs(i), "aggregate " + i);
        }
        HyperLogLog single = HyperLogLog.create(12);
        for (long k = 0; k < 5000; k++) {
            single.add(k);
        }
        assertArrayEquals(single.toByteArray(), (byte[]) one.getAs(4));
        HyperLogLog merged = HyperLogLog.fromByteArray(seven.getAs(4));
        assertEquals(single.registerEstimate(), merged.estimate());
    }

    /**
     * Thousands of groups: past spark.sql.objectHashAggregate.sortBased.fallbackThreshold (128)
     * the aggregation sorts and spills buffers, which travel as their images.
     */
    @Test
    void manyGroups() {
        List<Row> rows = spark.sql("SELECT g, sketch_hll_estimate(sketch_hll_agg(k, 10)),"
                + " sketch_bloom_contains(sketch_bloom_agg(k, 50, 0.01), g * 1000 + 7)"
                + " FROM (SELECT id % 2000 AS g, (id % 2000) * 1000 + (id DIV 2000) % 40 AS k FROM range(0, 160000))"
                + " GROUP BY g").collectAsList();
        // Group g holds the 40 keys g * 1000 + 0 .. 39, each twice.
        assertEquals(2000, rows.size());
        for (Row r : rows) {
            assertEquals(40L, r.getLong(1), 2, "group " + r.get(0));
            assertTrue(r.getBoolean(2), "group " + r.get(0));
        }
    }

    @Test
    void dataFrameHelpers() {
        Row r = spark.range(0, 3000).agg(Sketches.hllAgg(col("id"), 12).alias("h"), Sketches.bloomAgg(col("id"), 3000, 0.01))
                .select(Sketches.hllEstimate(col("h")), Sketches.bloomContains(col("sketch_bloom_agg(id)"), lit(17L)))
                .first();
        assertEquals(3000, r.getLong(0), 3000 * 0.065);
        assertTrue(r.getBoolean(1));
        assertTrue(Sketches.functionNames().contains("sketch_jaccard"));
        assertTrue(Sketches.usage("sketch_hll_agg").startsWith("sketch_hll_agg(key, p)"));
    }

    /**
     * The aggregates work as window functions (running, sliding and partitioned frames), as the
     * README says: small HyperLogLog sketches count exactly, so the estimates are the frames' counts.
     */
    @Test
    void windowFunctions() {
        List<Row> rows = spark.sql("SELECT id,"
                + " sketch_hll_estimate(sketch_hll_agg(id % 7, 12) OVER (ORDER BY id)),"
                + " sketch_hll_estimate(sketch_hll_agg(id, 12) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW)),"
                + " sketch_hll_estimate(sketch_hll_agg(id, 12) OVER (PARTITION BY id % 3)),"
                + " sketch_fuse_contains(sketch_fuse_agg(id, 16) OVER (ORDER BY id), 5),"
                + " sketch_hll_estimate(sketch_hll_union_agg(h) OVER (ORDER BY id))"
                + " FROM (SELECT id, sketch_hll_agg(id, 10) AS h FROM range(0, 30, 1, 3) GROUP BY id) ORDER BY id")
                .collectAsList();
        for (Row r : rows) {
            long id = r.getLong(0);
            assertEquals(Math.min(id + 1, 7), r.getLong(1), "running " + id);
            assertEquals(Math.min(id + 1, 3), r.getLong(2), "sliding " + id);
            assertEquals(10L, r.getLong(3), "partitioned " + id);
            assertEquals(id >= 5, r.getBoolean(4), "fuse " + id);
            assertEquals(id + 1, r.getLong(5), "union " + id);
        }
    }

    /**
     * Every SQL function has a DataFrame helper named after it (sketch_cms_estimate: cmsEstimate;
     * the union aggregates: unionAgg): the counting and cuckoo aggregates, sbbf/counting/cuckoo
     * contains, ull and cms estimates, topk_items and jaccard had none, so Java users fell back to
     * call_function for half of them. The new ones answer as their SQL functions.
     */
    @Test
    void everyFunctionHasAHelper() {
        for (String name : Sketches.functionNames()) {
            String helper = name.endsWith("_union_agg") ? "unionAgg" : camel(name.substring("sketch_".length()));
            boolean found = java.util.Arrays.stream(Sketches.class.getMethods()).anyMatch(m -> m.getName().equals(helper)
                    && java.lang.reflect.Modifier.isStatic(m.getModifiers()) && m.getReturnType() == Column.class);
            assertTrue(found, name + " has no helper " + helper);
        }
        Row r = spark.range(0, 1000).agg(Sketches.countingAgg(col("id"), 1000, 0.01).alias("c"),
                Sketches.cuckooAgg(col("id"), 1000, 0.01).alias("k"), Sketches.sbbfAgg(col("id"), 1000, 0.01).alias("s"),
                Sketches.cmsAgg(col("id"), 0.001, 0.01).alias("m"), Sketches.topkAgg(col("id"), 4, 8).alias("t"),
                Sketches.minhashAgg(col("id"), 64).alias("h"), Sketches.ullAgg(col("id"), 12).alias("u"))
                .select(Sketches.countingContains(col("c"), lit(5L)), Sketches.cuckooContains(col("k"), lit(5L)),
                        Sketches.sbbfContains(col("s"), lit(5L)), Sketches.cmsEstimate(col("m"), lit(5L)),
                        Sketches.topkItems(col("t"), "long"), Sketches.jaccard(col("h"), col("h")),
                        Sketches.ullEstimate(col("u")), Sketches.topkItems(col("t")))
                .first();
        assertTrue(r.getBoolean(0));
        assertTrue(r.getBoolean(1));
        assertTrue(r.getBoolean(2));
        assertTrue(r.getLong(3) >= 1);
        assertEquals(4, r.getList(4).size());
        assertTrue(((Row) r.getList(4).get(0)).get(0) instanceof Long);
        assertEquals(1.0, r.getDouble(5));
        assertEquals(1000, r.getLong(6), 1000 * 0.05);
        assertTrue(((Row) r.getList(7).get(0)).get(0) instanceof String);
    }

    private static String camel(String snake) {
        StringBuilder b = new StringBuilder();
        for (String part : snake.split("_")) {
            b.append(b.length() == 0 ? part : Character.toUpperCase(part.charAt(0)) + part.substring(1));
        }
        return b.toString();
    }

    /**
     * DESCRIBE FUNCTION shows each function's usage text (the arguments, their ranges, the null
     * rule): it read "Usage: N/A." for every function, the texts reaching only Sketches.usage.
     */
    /**
     * The README says DESCRIBE FUNCTION shows each function's arguments with their ranges: the
     * four filter aggregates gave none (items at least 1, fpp in (0, 1)), and the cuckoo one did
     * not say that keys repeated across partitions need DISTINCT.
     */
    @Test
    void filterAggregateUsagesGiveRanges() {
        for (String name : List.of("sketch_bloom_agg", "sketch_sbbf_agg", "sketch_counting_agg", "sketch_cuckoo_agg")) {
            String usage = Sketches.usage(name);
            assertTrue(usage.contains("items at least 1") && usage.contains("fpp in (0, 1)"), usage);
        }
        assertTrue(Sketches.usage("sketch_cuckoo_agg").contains("sketch_cuckoo_agg(DISTINCT key"),
                Sketches.usage("sketch_cuckoo_agg"));
    }

    @Test
    void describeFunctionShowsTheUsage() {
        for (String name : Sketches.functionNames()) {
            List<Row> rows = spark.sql("DESCRIBE FUNCTION " + name).collectAsList();
            String text = rows.stream().map(x -> x.getString(0)).reduce("", (x, y) -> x + "\n" + y);
            assertTrue(text.contains("Usage: " + Sketches.usage(name)), text);
        }
    }
}
