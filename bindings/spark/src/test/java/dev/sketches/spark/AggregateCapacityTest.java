package dev.sketches.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sketches.BloomFilter;
import dev.sketches.SplitBlockBloomFilter;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * The over-capacity signal (the inserted count and capacity flags in the header) of Bloom and
 * split-block images built by the aggregates, where Spark builds one partial filter per input
 * partition and merges them: the bits never depend on the partitioning, and the inserted count
 * follows the distinct keys when a key reaches several partial filters that differ (a merge sets
 * it to the distinct keys estimated from the bits, between the larger count and the sum).
 */
class AggregateCapacityTest {
    private final SparkSession spark = Session.get();

    /** 1000 distinct keys, 16 rows each, in {@code partitions} input partitions. */
    private static String keys(int partitions) {
        return "SELECT id % 1000 AS k, id FROM range(0, 16000, 1, " + partitions + ")";
    }

    /**
     * Bloom and split-block images of the keys of {@code source} (columns 0 and 1), and of its
     * DISTINCT keys (2 and 3), each from a query of its own: a query mixing DISTINCT and plain
     * aggregates makes Spark group every aggregate's rows by key first. Planned for 1,100 keys: a
     * merged count is an estimate (within about 1% here) and may sit a few keys above the 1,000
     * distinct ones, which a plan of exactly 1,000 would flag.
     */
    private Row build(String source) {
        Row plain = spark.sql("SELECT sketch_bloom_agg(k, 1100, 0.01), sketch_sbbf_agg(k, 1100, 0.01)"
                + " FROM (" + source + ")").first();
        Row distinct = spark.sql("SELECT sketch_bloom_agg(DISTINCT k, 1100, 0.01),"
                + " sketch_sbbf_agg(DISTINCT k, 1100, 0.01) FROM (" + source + ")").first();
        return org.apache.spark.sql.RowFactory.create(plain.get(0), plain.get(1), distinct.get(0), distinct.get(1));
    }

    /**
     * Every partition holding every key (16 partial filters with the same bits): the merged
     * images of the plain aggregates equal the one-partition build byte for byte, so the inserted
     * count is the distinct keys that set a bit and the filter is within plan (the union adds
     * nothing for a partial that sets no new bit; were it to add each partial's count, 16 such
     * partials would claim 16 times the items). The DISTINCT aggregates are within plan too.
     */
    @Test
    void partialsHoldingTheSameKeysMergeToTheSingleBuild() {
        Row one = build(keys(1));
        Row many = build(keys(16));
        assertArrayEquals((byte[]) one.getAs(0), (byte[]) many.getAs(0));
        assertArrayEquals((byte[]) one.getAs(1), (byte[]) many.getAs(1));
        BloomFilter bloom = BloomFilter.fromByteArray(many.getAs(0));
        SplitBlockBloomFilter sbbf = SplitBlockBloomFilter.fromByteArray(many.getAs(1));
        assertEquals(16000, bloom.stats().addCalls());
        assertTrue(bloom.stats().inserted() <= 1000, bloom.stats().toString());
        assertEquals(0, bloom.capacityFlags(), bloom.stats().toString());
        assertEquals(0, sbbf.capacityFlags(), sbbf.stats().toString());
        assertEquals(0, BloomFilter.fromByteArray(many.getAs(2)).capacityFlags());
        assertEquals(0, SplitBlockBloomFilter.fromByteArray(many.getAs(3)).capacityFlags());
    }

    /**
     * Each partition holding a different half of the keys: the bits still equal the single
     * build's, and the merged inserted count stays within 3% of the 1000 distinct keys, so the
     * image is within plan. Before merges estimated the count from the bits, each partial's keys
     * that set a new bit in the union counted again: 1,800 to 1,900, and the image said it was over
     * plan. With DISTINCT each key reaches one partial filter and the image is within plan too.
     */
    @Test
    void keysSpreadOverPartitionsCountTheDistinctKeys() {
        String half = "SELECT k FROM (" + keys(16) + ") WHERE hash(id) % 2 = 0";
        Row one = build(keys(1));
        Row spread = build(half);
        long distinct = spark.sql("SELECT count(DISTINCT k) FROM (" + half + ")").first().getLong(0);
        assertEquals(1000, distinct, "every key is among the sampled rows");

        BloomFilter single = BloomFilter.fromByteArray(one.getAs(0));
        BloomFilter merged = BloomFilter.fromByteArray(spread.getAs(0));
        assertEquals(single.stats().setBits(), merged.stats().setBits());
        assertEquals(distinct, merged.stats().inserted(), distinct * 0.03, merged.stats().toString());
        assertFalse(merged.isOverCapacity(), merged.stats().toString());
        SplitBlockBloomFilter mergedSbbf = SplitBlockBloomFilter.fromByteArray(spread.getAs(1));
        assertEquals(distinct, mergedSbbf.stats().inserted(), distinct * 0.03, mergedSbbf.stats().toString());
        assertFalse(mergedSbbf.isOverCapacity(), mergedSbbf.stats().toString());

        BloomFilter bloomDistinct = BloomFilter.fromByteArray(spread.getAs(2));
        SplitBlockBloomFilter sbbfDistinct = SplitBlockBloomFilter.fromByteArray(spread.getAs(3));
        assertEquals(single.stats().setBits(), bloomDistinct.stats().setBits());
        assertTrue(bloomDistinct.stats().inserted() <= distinct, bloomDistinct.stats().toString());
        assertEquals(0, bloomDistinct.capacityFlags(), bloomDistinct.stats().toString());
        assertEquals(0, sbbfDistinct.capacityFlags(), sbbfDistinct.stats().toString());
        assertEquals(SplitBlockBloomFilter.fromByteArray(one.getAs(1)).stats().setBits(),
                sbbfDistinct.stats().setBits());
    }
}
