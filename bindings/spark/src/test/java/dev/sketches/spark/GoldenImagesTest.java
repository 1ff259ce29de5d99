package dev.sketches.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.List;
import java.util.function.Predicate;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * Every golden image of tests/golden (made by the core, read by every binding; seed 42, keys
 * "golden-0" .. "golden-999" and, for most, the integer key 7) read by the Spark query functions,
 * each answer equal to the Java binding's for the same image. The golden images carry seed 42,
 * which Spark's aggregates do not take (they write seed 0), so Spark reads them here and writes
 * the same bytes as the other bindings in {@code ScenariosTest.imagesCrossBindings}. Before, only
 * the Bloom, dense HyperLogLog, ExaLogLog and fuse images were read from Spark.
 */
class GoldenImagesTest {
    private static final int KEYS = 1000;
    private final SparkSession spark = Session.get();

    /** The golden keys and three absent ones, as a one-column view "k". */
    private void keys() {
        spark.sql("SELECT concat('golden-', id) AS k FROM range(0, " + (KEYS + 3) + ")")
                .createOrReplaceTempView("golden_keys");
    }

    /** How many golden keys {@code fn(image, k)} finds, and whether it finds the integer key 7. */
    private Row contains(String fn, byte[] image) {
        spark.sql("SELECT 1").selectExpr("X'" + hex(image) + "' AS img").createOrReplaceTempView("golden_img");
        return spark.sql("SELECT count_if(" + fn + "(img, k)), first(" + fn + "(img, CAST(7 AS BIGINT)))"
                + " FROM golden_img CROSS JOIN golden_keys").first();
    }

    private static long count(Predicate<String> contains) {
        long n = 0;
        for (int i = 0; i < KEYS + 3; i++) {
            n += contains.test("golden-" + i) ? 1 : 0;
        }
        return n;
    }

    @Test
    void filtersAnswerAsTheJavaBinding() {
        keys();
        byte[] bloom = Checks.golden("bloom");
        BloomFilter b = BloomFilter.fromByteArray(bloom);
        checkFilter("sketch_bloom_contains", bloom, count(b::contains), b.contains(7L));
        for (String name : List.of("sbbf", "sbbf_parquet")) {
            byte[] img = Checks.golden(name);
            SplitBlockBloomFilter f = SplitBlockBloomFilter.fromByteArray(img);
            checkFilter("sketch_sbbf_contains", img, count(f::contains), f.contains(7L));
        }
        byte[] counting = Checks.golden("counting");
        CountingBloomFilter c = CountingBloomFilter.fromByteArray(counting);
        checkFilter("sketch_counting_contains", counting, count(c::contains), c.contains(7L));
        byte[] cuckoo = Checks.golden("cuckoo");
        CuckooFilter u = CuckooFilter.fromByteArray(cuckoo);
        checkFilter("sketch_cuckoo_contains", cuckoo, count(u::contains), u.contains(7L));
        for (String name : List.of("fuse8", "fuse16")) {
            byte[] img = Checks.golden(name);
            BinaryFuseFilter f = BinaryFuseFilter.fromByteArray(img);
            checkFilter("sketch_fuse_contains", img, count(f::contains), f.contains(7L));
        }
    }

    private void checkFilter(String fn, byte[] image, long javaFound, boolean javaSeven) {
        Row r = contains(fn, image);
        assertEquals(javaFound, r.getLong(0), fn);
        // The golden keys are in every filter but the counting and cuckoo ones (golden-0 removed).
        assertTrue(javaFound >= KEYS - 1, fn + ": " + javaFound);
        assertEquals(javaSeven, r.getBoolean(1), fn + " of the integer key 7");
        assertTrue(javaSeven, fn + " of the integer key 7");
    }

    @Test
    void distinctCountsAnswerAsTheJavaBinding() {
        String sql = "SELECT sketch_hll_estimate(X'%s'), sketch_hll_estimate(X'%s'), sketch_ull_estimate(X'%s'),"
                + " sketch_ell_estimate(X'%s'), sketch_ell_estimate(X'%s')";
        byte[] small = Checks.golden("hll_small");
        byte[] dense = Checks.golden("hll_dense");
        byte[] ull = Checks.golden("ull");
        byte[] ell = Checks.golden("ell");
        byte[] ell24 = Checks.golden("ell_d24");
        Row r = spark.sql(String.format(sql, hex(small), hex(dense), hex(ull), hex(ell), hex(ell24))).first();
        assertEquals(Math.round(HyperLogLog.fromByteArray(small).estimate()), r.getLong(0));
        assertEquals(201, r.getLong(0)); // 200 keys and 7, in the exact small mode
        assertEquals(Math.round(HyperLogLog.fromByteArray(dense).estimate()), r.getLong(1));
        assertEquals(Math.round(UltraLogLog.fromByteArray(ull).estimate()), r.getLong(2));
        assertEquals(Math.round(ExaLogLog.fromByteArray(ell).estimate()), r.getLong(3));
        assertEquals(Math.round(ExaLogLog.fromByteArray(ell24).estimate()), r.getLong(4));
    }

    @Test
    void frequenciesAnswerAsTheJavaBinding() {
        keys();
        byte[] img = Checks.golden("countmin");
        CountMinSketch cms = CountMinSketch.fromByteArray(img);
        List<Row> rows = spark.sql("SELECT k, sketch_cms_estimate(X'" + hex(img) + "', k),"
                + " sketch_cms_estimate(X'" + hex(img) + "', CAST(7 AS BIGINT)) FROM golden_keys").collectAsList();
        assertEquals(KEYS + 3, rows.size());
        for (Row r : rows) {
            assertEquals(cms.estimate(r.getString(0)), r.getLong(1), r.getString(0));
            assertEquals(80_000L, r.getLong(2));
        }

        byte[] topk = Checks.golden("topk");
        List<TopK.Item> top = TopK.fromByteArray(topk).top();
        List<Row> items = spark.sql("SELECT inline(sketch_topk_items(X'" + hex(topk) + "', 'binary'))").collectAsList();
        assertEquals(top.size(), items.size());
        for (int i = 0; i < top.size(); i++) {
            assertArrayEquals(top.get(i).key(), (byte[]) items.get(i).getAs("item"), "item " + i);
            assertEquals(top.get(i).count(), items.get(i).<Long>getAs("count"), "count " + i);
            assertEquals(top.get(i).error(), items.get(i).<Long>getAs("error"), "error " + i);
        }
        // The heaviest item is the integer key 7 (its 8 little-endian bytes), added with weight 5000.
        assertArrayEquals(new byte[] {7, 0, 0, 0, 0, 0, 0, 0}, (byte[]) items.get(0).getAs("item"));
        assertTrue(items.get(0).<Long>getAs("count") >= 5000L);
    }

    @Test
    void minHashAnswersAsTheJavaBinding() {
        byte[] img = Checks.golden("minhash");
        MinHash golden = MinHash.fromByteArray(img);
        MinHash half = MinHash.create(128, 42);
        for (int i = 0; i < KEYS; i += 2) {
            half.add("golden-" + i);
        }
        Row r = spark.sql("SELECT sketch_jaccard(X'" + hex(img) + "', X'" + hex(img) + "'), sketch_jaccard(X'"
                + hex(img) + "', X'" + hex(half.toByteArray()) + "')").first();
        assertEquals(1.0, r.getDouble(0));
        assertEquals(golden.jaccard(half), r.getDouble(1));
        assertEquals(0.5, r.getDouble(1), 0.15);
    }

    private static String hex(byte[] bytes) {
        StringBuilder s = new StringBuilder(bytes.length * 2);
        for (byte b : bytes) {
            s.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return s.toString();
    }
}
