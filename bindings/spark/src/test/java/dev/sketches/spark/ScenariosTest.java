package dev.sketches.spark;

import static org.apache.spark.sql.functions.call_function;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sketches.BloomFilter;
import dev.sketches.CountMinSketch;
import dev.sketches.HyperLogLog;
import dev.sketches.MinHash;
import dev.sketches.UltraLogLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seed's Spark scenarios, in local[2] mode. */
class ScenariosTest {
    private final SparkSession spark = Session.get();

    /**
     * (1) Order de-duplication over five micro-batches: a batch's rows whose id the Bloom filter of
     * the earlier batches holds are dropped, the batch keeps each id's first row, and the filter
     * grows by the batch's union. Every emitted row is a true first occurrence, no id is emitted
     * twice, and the ids lost to false positives stay within the plan.
     */
    @Test
    void orderDeduplication() {
        int batches = 5;
        long distinct = 40_000;
        double fpp = 0.01;
        byte[] seen = null;
        Set<Long> earlier = new HashSet<>();
        Set<Long> emitted = new HashSet<>();
        long firstOccurrences = 0;
        for (int b = 0; b < batches; b++) {
            // 12,000 rows per batch; ids repeat within and across batches.
            spark.range(b * 12_000L, (b + 1) * 12_000L)
                    .selectExpr("id AS seq", "pmod(xxhash64(id), " + distinct + ") AS order_id")
                    .createOrReplaceTempView("batch");
            Dataset<Row> firsts = spark.sql("SELECT order_id, min(seq) AS seq FROM batch GROUP BY order_id");
            Dataset<Row> out = seen == null
                    ? firsts
                    : firsts.where(not(call_function("sketch_bloom_contains", lit(seen), col("order_id"))));
            List<Long> batchIds = firsts.select("order_id").as(Encoders.LONG()).collectAsList();
            Set<Long> trulyNew = new HashSet<>();
            for (long id : batchIds) {
                if (!earlier.contains(id)) {
                    trulyNew.add(id);
                }
            }
            for (long id : out.select("order_id").as(Encoders.LONG()).collectAsList()) {
                assertTrue(trulyNew.contains(id), "order " + id + " emitted but seen in an earlier batch");
                assertTrue(emitted.add(id), "order " + id + " emitted twice");
            }
            firstOccurrences += trulyNew.size();
            earlier.addAll(batchIds);
            // Roll the filter: this batch's filter merged into the running one.
            Dataset<Row> images = spark.sql("SELECT sketch_bloom_agg(order_id, " + distinct + ", " + fpp + ") AS f FROM batch");
            if (seen != null) {
                images = images.union(spark.range(1).select(lit(seen).alias("f")));
            }
            seen = images.agg(call_function("sketch_bloom_union_agg", col("f"))).first().getAs(0);
        }
        long lost = firstOccurrences - emitted.size();
        assertTrue(firstOccurrences > 20_000, "the stream has " + firstOccurrences + " first occurrences");
        // Lost ids are false positives of a filter planned for `distinct` ids at fpp: within 3x plus slack.
        assertTrue(lost <= 3 * fpp * firstOccurrences + 20, lost + " ids lost of " + firstOccurrences);
        System.out.printf("order dedup: %d first occurrences, %d emitted, %d lost to false positives (%.3f%%)%n",
                firstOccurrences, emitted.size(), lost, 100.0 * lost / firstOccurrences);
    }

    /**
     * (2) A fact table joined with a filtered dimension table, the fact side pre-filtered by the
     * Bloom filter of the dimension's keys (a scalar subquery: one image for the whole query):
     * the join equals the plain join row for row and fewer fact rows reach it.
     */
    @Test
    void bloomPrefilteredJoin() {
        spark.range(0, 20_000).selectExpr("id AS product_id", "CAST(id % 50 AS INT) AS category",
                "concat('product-', id) AS name").createOrReplaceTempView("products");
        spark.range(0, 200_000).selectExpr("id AS sale_id", "pmod(xxhash64(id), 20000) AS product_id",
                "id % 97 AS amount").createOrReplaceTempView("sales");
        String dims = "SELECT product_id, name FROM products WHERE category = 7";
        Dataset<Row> plain = spark.sql("SELECT s.sale_id, s.amount, d.name FROM sales s JOIN (" + dims
                + ") d ON s.product_id = d.product_id");
        Dataset<Row> prefiltered = spark.sql("SELECT * FROM sales WHERE sketch_bloom_contains((SELECT"
                + " sketch_bloom_agg(product_id, 400, 0.01) FROM (" + dims + ")), product_id)");
        prefiltered.createOrReplaceTempView("sales_prefiltered");
        Dataset<Row> filtered = spark.sql("SELECT s.sale_id, s.amount, d.name FROM sales_prefiltered s JOIN ("
                + dims + ") d ON s.product_id = d.product_id");
        List<Row> a = plain.orderBy("sale_id").collectAsList();
        List<Row> b = filtered.orderBy("sale_id").collectAsList();
        assertEquals(a, b);
        long reaching = prefiltered.count();
        long matching = a.size();
        assertTrue(matching > 3_000, "matching sales " + matching);
        assertTrue(reaching >= matching, "a Bloom filter has no false negatives");
        // 196,000 non-matching sales at about 1%: far fewer than 200,000 reach the join.
        assertTrue(reaching - matching < 0.03 * (200_000 - matching), reaching + " rows reached the join");
    }

    /**
     * (3) Distinct counts per group: HyperLogLog (p = 12, relative standard error 1.04/64 = 1.6%)
     * against the exact counts and against Spark's approx_count_distinct at rsd 0.02 (Spark's
     * HLL++ then also uses 2^12 registers).
     */
    @Test
    void distinctCountsPerGroup() {
        // Group g has about 2,000 * (g + 1) distinct users among 3x as many rows.
        spark.range(0, 216_000).selectExpr("CAST(id % 8 AS INT) AS g",
                "pmod(xxhash64(id), 6000 * (CAST(id % 8 AS INT) + 1)) DIV 3 AS user_id").createOrReplaceTempView("visits");
        List<Row> exact = spark.sql("SELECT g, count(*) FROM (SELECT DISTINCT g, user_id FROM visits) GROUP BY g"
                + " ORDER BY g").collectAsList();
        List<Row> rows = spark.sql("SELECT g, sketch_hll_estimate(sketch_hll_agg(user_id, 12)),"
                + " approx_count_distinct(user_id, 0.02), sketch_ull_estimate(sketch_ull_agg(CAST(user_id AS STRING), 12))"
                + " FROM visits GROUP BY g ORDER BY g").collectAsList();
        assertEquals(8, rows.size());
        double ours = 0;
        double sparks = 0;
        double ull = 0;
        for (int i = 0; i < 8; i++) {
            Row r = rows.get(i);
            assertEquals(exact.get(i).getInt(0), r.getInt(0));
            double n = exact.get(i).getLong(1);
            double e1 = (r.getLong(1) - n) / n;
            double e2 = (r.getLong(2) - n) / n;
            double e3 = (r.getLong(3) - n) / n;
            // Four standard errors of p = 12.
            assertTrue(Math.abs(e1) < 0.065, "group " + r.get(0) + ": HLL error " + e1);
            assertTrue(Math.abs(e3) < 0.065, "group " + r.get(0) + ": ULL error " + e3);
            ours += e1 * e1;
            sparks += e2 * e2;
            ull += e3 * e3;
        }
        System.out.printf("distinct counts, RMS relative error over 8 groups: sketch_hll_agg(p=12) %.4f,"
                + " sketch_ull_agg(p=12) %.4f, approx_count_distinct(rsd=0.02) %.4f%n",
                Math.sqrt(ours / 8), Math.sqrt(ull / 8), Math.sqrt(sparks / 8));
        assertTrue(Math.sqrt(ours / 8) < 0.04);
    }

    /**
     * (4) Images cross bindings: a Bloom filter and a HyperLogLog built by Spark equal byte for
     * byte those the Java binding builds from the same keys, and, written to a file, the C ABI
     * (build/spark-image-check) gives Spark's answers; a C-made image (tests/golden/bloom_v1.img)
     * answers in sketch_bloom_contains.
     */
    @Test
    void imagesCrossBindings(@TempDir Path dir) throws IOException, InterruptedException {
        int n = 5_000;
        Dataset<Row> keys = spark.range(0, n).selectExpr("concat('order-', id) AS k").coalesce(1);
        byte[] bloom = keys.selectExpr("sketch_bloom_agg(k, 5000, 0.01)").first().getAs(0);
        byte[] hll = keys.selectExpr("sketch_hll_agg(k, 14)").first().getAs(0);
        BloomFilter jb = BloomFilter.create(n, 0.01);
        HyperLogLog jh = HyperLogLog.create(14);
        String[] ks = new String[n];
        for (int i = 0; i < n; i++) {
            ks[i] = "order-" + i;
        }
        jb.addAll(ks);
        jh.addAll(ks);
        assertArrayEquals(jb.toByteArray(), bloom);
        assertArrayEquals(jh.toByteArray(), hll);

        // Spark's answers for present and absent keys.
        Dataset<Row> probes = spark.range(0, 2 * n).selectExpr("concat('order-', id) AS k");
        List<Row> answers = probes.select(col("k"), call_function("sketch_bloom_contains", lit(bloom), col("k")))
                .orderBy(org.apache.spark.sql.functions.expr("CAST(substring(k, 7) AS BIGINT)")).collectAsList();
        long hllSpark = spark.range(1).select(call_function("sketch_hll_estimate", lit(hll))).first().getLong(0);

        String checker = System.getProperty("sketches.imageCheck");
        if (checker != null && !checker.isEmpty()) {
            Path img = dir.resolve("bloom.img");
            Path hllImg = dir.resolve("hll.img");
            Path keyFile = dir.resolve("keys.txt");
            Files.write(img, bloom);
            Files.write(hllImg, hll);
            List<String> lines = new ArrayList<>();
            for (Row r : answers) {
                lines.add(r.getString(0));
            }
            Files.write(keyFile, lines, StandardCharsets.UTF_8);
            List<String> c = run(checker, "bloom", img.toString(), keyFile.toString());
            assertEquals(answers.size(), c.size());
            for (int i = 0; i < c.size(); i++) {
                assertEquals(answers.get(i).getBoolean(1) ? "1" : "0", c.get(i), "key " + lines.get(i));
            }
            assertEquals(List.of(Long.toString(hllSpark)), run(checker, "hll", hllImg.toString()));
        } else {
            System.out.println("imagesCrossBindings: sketches.imageCheck not set, C side skipped (make spark-test sets it)");
        }
        for (int i = 0; i < n; i++) {
            assertTrue(answers.get(i).getBoolean(1));
        }
        long fp = answers.subList(n, 2 * n).stream().filter(r -> r.getBoolean(1)).count();
        assertTrue(fp < 3 * 0.01 * n, fp + " false positives");
        assertEquals(n, hllSpark, n * 0.04);

        // The C-made golden image (keys golden-0 .. golden-999 and the integer 7, seed 42).
        byte[] golden = Checks.golden("bloom");
        spark.range(0, 2000).selectExpr("concat('golden-', id) AS k").createOrReplaceTempView("golden_keys");
        Row r = spark.range(1).select(lit(golden).alias("img")).crossJoin(spark.table("golden_keys"))
                .selectExpr("count_if(sketch_bloom_contains(img, k) AND CAST(substring(k, 8) AS INT) < 1000)",
                        "count_if(sketch_bloom_contains(img, k) AND CAST(substring(k, 8) AS INT) >= 1000)",
                        "first(sketch_bloom_contains(img, 7))", "first(sketch_bloom_contains(img, CAST(7 AS INT)))")
                .first();
        assertEquals(1000L, r.getLong(0));
        assertTrue(r.getLong(1) < 30, r.getLong(1) + " false positives");
        assertTrue(r.getBoolean(2));
        assertTrue(r.getBoolean(3));
    }

    private static List<String> run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertEquals(0, p.waitFor(), "exit status of " + Arrays.toString(cmd));
        String s = new String(out, StandardCharsets.UTF_8);
        return s.isEmpty() ? List.of() : Arrays.asList(s.split("\n"));
    }

    /**
     * (5) Merge aggregates equal one sketch of the union: daily sketches rolled up into one
     * answer as the sketch over all days does (same bits, registers, counters, signature).
     */
    @Test
    void unionAggregatesEqualOneSketch() {
        spark.range(0, 60_000).selectExpr("id", "CAST(id % 7 AS INT) AS day", "pmod(xxhash64(id), 15000) AS k",
                "concat('u', pmod(xxhash64(id, 1), 3000)) AS s").createOrReplaceTempView("events");
        String aggs = "sketch_bloom_agg(k, 15000, 0.01) AS bloom, sketch_sbbf_agg(k, 15000, 0.01) AS sbbf,"
                + " sketch_counting_agg(s, 3000, 0.01) AS counting, sketch_cuckoo_agg(id, 60000, 0.01) AS cuckoo,"
                + " sketch_hll_agg(k, 11) AS hll, sketch_ull_agg(k, 11) AS ull, sketch_cms_agg(s, 0.001, 0.01) AS cms,"
                + " sketch_topk_agg(s, 64, 16) AS topk, sketch_minhash_agg(k, 128) AS minhash";
        spark.sql("SELECT day, " + aggs + " FROM events GROUP BY day").createOrReplaceTempView("daily");
        Row all = spark.sql("SELECT " + aggs + " FROM events").first();
        Row rolled = spark.sql("SELECT sketch_bloom_union_agg(bloom), sketch_sbbf_union_agg(sbbf),"
                + " sketch_counting_union_agg(counting), sketch_cuckoo_union_agg(cuckoo), sketch_hll_union_agg(hll),"
                + " sketch_ull_union_agg(ull), sketch_cms_union_agg(cms), sketch_topk_union_agg(topk),"
                + " sketch_minhash_union_agg(minhash) FROM daily").first();

        BloomFilter b1 = BloomFilter.fromByteArray(all.getAs(0));
        BloomFilter b2 = BloomFilter.fromByteArray(rolled.getAs(0));
        assertEquals(b1.stats().setBits(), b2.stats().setBits());
        for (long k = 0; k < 30_000; k++) {
            assertEquals(b1.contains(k), b2.contains(k));
        }
        byte[] s1 = bitset(dev.sketches.SplitBlockBloomFilter.fromByteArray(all.getAs(1)));
        assertArrayEquals(s1, bitset(dev.sketches.SplitBlockBloomFilter.fromByteArray(rolled.getAs(1))));
        dev.sketches.CountingBloomFilter c1 = dev.sketches.CountingBloomFilter.fromByteArray(all.getAs(2));
        dev.sketches.CountingBloomFilter c2 = dev.sketches.CountingBloomFilter.fromByteArray(rolled.getAs(2));
        dev.sketches.CuckooFilter k2 = dev.sketches.CuckooFilter.fromByteArray(rolled.getAs(3));
        for (int i = 0; i < 3000; i++) {
            assertTrue(c2.contains("u" + i));
            assertEquals(c1.contains("v" + i), c2.contains("v" + i));
        }
        // Cuckoo merges copy entries, so the days hold disjoint ids (each row's own id).
        for (long id = 0; id < 60_000; id++) {
            assertTrue(k2.contains(id));
        }
        HyperLogLog h1 = HyperLogLog.fromByteArray(all.getAs(4));
        HyperLogLog h2 = HyperLogLog.fromByteArray(rolled.getAs(4));
        assertEquals(h1.registerEstimate(), h2.registerEstimate());
        UltraLogLog u1 = UltraLogLog.fromByteArray(all.getAs(5));
        UltraLogLog u2 = UltraLogLog.fromByteArray(rolled.getAs(5));
        assertEquals(u1.registerEstimate(), u2.registerEstimate());
        CountMinSketch m1 = CountMinSketch.fromByteArray(all.getAs(6));
        CountMinSketch m2 = CountMinSketch.fromByteArray(rolled.getAs(6));
        assertEquals(60_000L, m2.total());
        for (int i = 0; i < 3000; i++) {
            assertEquals(m1.estimate("u" + i), m2.estimate("u" + i));
        }
        dev.sketches.TopK t2 = dev.sketches.TopK.fromByteArray(rolled.getAs(7));
        assertEquals(60_000L, t2.stats().total());
        assertFalse(t2.top().isEmpty());
        assertArrayEquals(MinHash.fromByteArray(all.getAs(8)).signature(), MinHash.fromByteArray(rolled.getAs(8)).signature());
    }

    private static byte[] bitset(dev.sketches.SplitBlockBloomFilter f) {
        java.nio.ByteBuffer b = f.bitset();
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }
}
