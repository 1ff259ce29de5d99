package dev.sketches.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sketches.CuckooFilter;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * sketch_cuckoo_agg stores each distinct key of a partial filter once, found by the key itself
 * (not by asking the filter, which answers true for a key that is only a false positive and so
 * left about fpp / 2 of the keys unstored: 37 of 100,000 at 0.01). Its image is then the one the
 * Java binding builds by adding the distinct keys in order, and removing keys from it never makes
 * another key answer false.
 */
class CuckooAggregateTest {
    private final SparkSession spark = Session.get();

    private static final int KEYS = 100_000;

    /** Each of the 100,000 keys three times in one partition, in batches of their own. */
    @Test
    void onePartitionEqualsTheJavaBuildOfTheDistinctKeys() {
        byte[] longs = spark.sql("SELECT sketch_cuckoo_agg(id % " + KEYS + ", 200000, 0.01)"
                + " FROM range(0, " + 3 * KEYS + ", 1, 1)").first().getAs(0);
        byte[] strings = spark.sql("SELECT sketch_cuckoo_agg(CAST(id % " + KEYS + " AS STRING), 200000, 0.01)"
                + " FROM range(0, " + 3 * KEYS + ", 1, 1)").first().getAs(0);
        CuckooFilter javaLongs = CuckooFilter.create(200000, 0.01);
        CuckooFilter javaStrings = CuckooFilter.create(200000, 0.01);
        for (long k = 0; k < KEYS; k++) {
            javaLongs.add(k);
            javaStrings.add(Long.toString(k));
        }
        assertEquals(KEYS, CuckooFilter.fromByteArray(longs).stats().items());
        assertEquals(KEYS, CuckooFilter.fromByteArray(strings).stats().items());
        assertArrayEquals(javaLongs.toByteArray(), longs);
        assertArrayEquals(javaStrings.toByteArray(), strings);
    }

    /**
     * DISTINCT over 4 partitions (the README's form when keys repeat across partitions): every
     * key stored once, and after removing half of them the other half all still answer true.
     */
    @Test
    void distinctKeysSurviveRemovals() {
        byte[] image = spark.sql("SELECT sketch_cuckoo_agg(DISTINCT id % " + KEYS + ", 200000, 0.01)"
                + " FROM range(0, " + 3 * KEYS + ", 1, 4)").first().getAs(0);
        CuckooFilter f = CuckooFilter.fromByteArray(image);
        assertEquals(KEYS, f.stats().items());
        for (long k = 0; k < KEYS / 2; k++) {
            f.remove(k);
        }
        int falseNegatives = 0;
        for (long k = KEYS / 2; k < KEYS; k++) {
            if (!f.contains(k)) {
                falseNegatives++;
            }
        }
        assertEquals(0, falseNegatives, "kept keys answering false after removing the others");
    }

    /**
     * A filter too small for its keys in one partition fails naming the function once (the first
     * message that says so, as Spark shows it, read "sketch_cuckoo_agg: sketch_cuckoo_agg: ...").
     */
    @Test
    void fullFilterInOnePartition() {
        Throwable t = org.junit.jupiter.api.Assertions.assertThrows(Throwable.class, () -> spark.sql(
                "SELECT sketch_cuckoo_agg(id, 100, 0.01) FROM range(0, 1000, 1, 1)").collectAsList());
        String message = null;
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c.getMessage() != null && c.getMessage().contains("keys could not be stored")) {
                message = c.getMessage();
                break;
            }
        }
        org.junit.jupiter.api.Assertions.assertNotNull(message, t.toString());
        org.junit.jupiter.api.Assertions.assertTrue(message.startsWith("sketch_cuckoo_agg: the cuckoo filter is full: "),
                message);
        org.junit.jupiter.api.Assertions.assertFalse(message.contains("sketch_cuckoo_agg: sketch_cuckoo_agg:"), message);
    }
}
