package dev.sketches.spark.bench;

import static org.apache.spark.sql.functions.call_function;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;

import dev.sketches.BloomFilter;
import dev.sketches.spark.Sketches;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * One-run benchmark (not a test), local mode: building a Bloom filter over N rows with {@code
 * sketch_bloom_agg} against Spark's {@code DataFrame.stat().bloomFilter} at the same items and fpp
 * (time, bytes, measured false-positive rate over 10^6 absent keys), and the distinct count with
 * {@code sketch_hll_agg}/{@code sketch_ull_agg} (p = 12) against {@code approx_count_distinct} at
 * rsd 0.02 (Spark's HLL++ then also uses 2^12 registers): time and relative error.
 *
 * <p>Run with {@code make spark-bench} (N = SPARK_BENCH_ROWS, 10^7 by default; SPARK_BENCH_RUNS
 * runs per measurement, the best reported) after one warm-up run on a tenth of the rows.
 */
public final class SparkBench {
    private SparkBench() {}

    /**
     * Runs the benchmark.
     *
     * @param args the row count N (default 10^7), optionally the runs per measurement (default
     *     3, the best is reported) and the master (default local[2])
     */
    public static void main(String[] args) {
        long n = args.length > 0 ? Long.parseLong(args[0]) : 10_000_000L;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        String master = args.length > 2 ? args[2] : "local[2]";
        SparkSession spark = SparkSession.builder().master(master).appName("sketches-spark-bench")
                .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
                .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate();
        spark.sparkContext().setLogLevel("WARN");
        Sketches.register(spark);
        double fpp = 0.01;
        System.out.printf("rows %,d, master %s, fpp %.2f%n", n, master, fpp);

        // Warm-up on a tenth of the rows.
        bloomOurs(spark, n / 10, fpp);
        bloomSpark(spark, n / 10, fpp);
        distinct(spark, n / 10, 1, false);

        long[] absent = new long[1_000_000];
        for (int i = 0; i < absent.length; i++) {
            absent[i] = n + 1 + i * 7L;
        }
        byte[] ours = null;
        double tOurs = Double.MAX_VALUE;
        double tSpark = Double.MAX_VALUE;
        org.apache.spark.util.sketch.BloomFilter theirs = null;
        for (int r = 0; r < runs; r++) {
            long t0 = System.nanoTime();
            ours = bloomOurs(spark, n, fpp);
            tOurs = Math.min(tOurs, (System.nanoTime() - t0) / 1e9);
            t0 = System.nanoTime();
            theirs = bloomSpark(spark, n, fpp);
            tSpark = Math.min(tSpark, (System.nanoTime() - t0) / 1e9);
        }
        BloomFilter f = BloomFilter.fromByteArray(ours);
        long fpOurs = 0;
        for (boolean b : f.containsAll(absent)) {
            fpOurs += b ? 1 : 0;
        }
        long fpSpark = 0;
        for (long k : absent) {
            fpSpark += theirs.mightContainLong(k) ? 1 : 0;
        }
        System.out.printf("bloom build  sketch_bloom_agg        %6.2f s  %,12d bytes  measured FPR %.4f%n",
                tOurs, ours.length, fpOurs / (double) absent.length);
        System.out.printf("bloom build  stat.bloomFilter        %6.2f s  %,12d bytes  measured FPR %.4f%n",
                tSpark, theirs.bitSize() / 8, fpSpark / (double) absent.length);
        System.out.printf("bloom build  speed-up %.2fx%n", tSpark / tOurs);

        distinct(spark, n, runs, true);
        spark.stop();
    }

    private static byte[] bloomOurs(SparkSession spark, long n, double fpp) {
        return spark.range(n).agg(Sketches.bloomAgg(col("id"), n, fpp)).first().getAs(0);
    }

    private static org.apache.spark.util.sketch.BloomFilter bloomSpark(SparkSession spark, long n, double fpp) {
        return spark.range(n).stat().bloomFilter("id", n, fpp);
    }

    private static void distinct(SparkSession spark, long n, int runs, boolean print) {
        // n rows over n / 2 distinct keys.
        String[] names = {"sketch_hll_agg(p=12)", "sketch_ull_agg(p=12)", "approx_count_distinct(rsd=0.02)"};
        double exact = n / 2.0;
        for (int which = 0; which < 3; which++) {
            double best = Double.MAX_VALUE;
            long estimate = 0;
            for (int r = 0; r < runs; r++) {
                long t0 = System.nanoTime();
                Row row = spark.range(n).select(col("id").mod(lit(n / 2)).alias("k")).agg(distinctColumn(which)).first();
                best = Math.min(best, (System.nanoTime() - t0) / 1e9);
                estimate = row.getLong(0);
            }
            if (print) {
                System.out.printf("distinct     %-31s %6.2f s  estimate %,d of %,.0f (error %+.4f)%n",
                        names[which], best, estimate, exact, (estimate - exact) / exact);
            }
        }
    }

    private static org.apache.spark.sql.Column distinctColumn(int which) {
        switch (which) {
            case 0:
                return call_function("sketch_hll_estimate", Sketches.hllAgg(col("k"), 12));
            case 1:
                return call_function("sketch_ull_estimate", Sketches.ullAgg(col("k"), 12));
            default:
                return org.apache.spark.sql.functions.approx_count_distinct(col("k"), 0.02);
        }
    }
}
