package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Sketches that do not combine: the SketchException (INCOMPATIBLE, nothing changed) says what the
 * two images' headers hold (length, seed, hash), where it said only "sketches have different
 * parameters, seed or hash" and left the caller to guess which.
 */
class IncompatibleTest {
    private static void refused(Object into, Executable call, String... expected) throws Exception {
        byte[] before = (byte[]) into.getClass().getMethod("toByteArray").invoke(into);
        SketchException e = assertThrows(SketchException.class, call);
        assertEquals(Status.INCOMPATIBLE, e.status());
        for (String s : expected) {
            assertTrue(e.getMessage().contains(s), "'" + s + "' in: " + e.getMessage());
        }
        assertArrayEquals(before, (byte[]) into.getClass().getMethod("toByteArray").invoke(into));
    }

    @Test
    void theMessageNamesWhatDiffers() throws Exception {
        BloomFilter b1 = BloomFilter.create(1000, 0.01, 1);
        BloomFilter b2 = BloomFilter.create(1000, 0.01, 2);
        refused(b1, () -> b1.merge(b2), "this: " + b1.imageBytes() + " bytes, seed 1", "other: " + b2.imageBytes() + " bytes, seed 2");
        refused(b1, () -> b1.intersect(b2), "seed 1", "seed 2");
        BloomFilter big = BloomFilter.create(100_000, 0.01, 1);
        refused(b1, () -> b1.merge(big), b1.imageBytes() + " bytes", big.imageBytes() + " bytes");

        SplitBlockBloomFilter nat = SplitBlockBloomFilter.withBlocks(32, false, 0);
        SplitBlockBloomFilter par = SplitBlockBloomFilter.withBlocks(32, true, 0);
        refused(nat, () -> nat.merge(par), "hash XXH3-64", "hash XXH64 (Parquet)");

        HyperLogLog h12 = HyperLogLog.create(12, 0);
        HyperLogLog h10 = HyperLogLog.create(10, 0);
        h10.addAll(TestKeys.longs(0, 100_000));
        refused(h12, () -> h12.merge(h10), "this: " + h12.imageBytes() + " bytes", "other: " + h10.imageBytes() + " bytes");
        UltraLogLog u1 = UltraLogLog.create(10, 1);
        refused(u1, () -> u1.merge(UltraLogLog.create(10, 2)), "seed 1", "seed 2");
        ExaLogLog e1 = ExaLogLog.create(10, ExaLogLog.D20, 1);
        refused(e1, () -> e1.merge(ExaLogLog.create(10, ExaLogLog.D20, 2)), "seed 1", "seed 2");
        CountMinSketch c1 = CountMinSketch.create(0.01, 0.01, 1);
        refused(c1, () -> c1.merge(CountMinSketch.create(0.01, 0.01, 2)), "seed 1", "seed 2");
        CountingBloomFilter k1 = CountingBloomFilter.create(100, 0.01, 1);
        refused(k1, () -> k1.merge(CountingBloomFilter.create(100, 0.01, 2)), "seed 1", "seed 2");
        CuckooFilter q1 = CuckooFilter.create(100, 0.01, 1);
        refused(q1, () -> q1.merge(CuckooFilter.create(100, 0.01, 2)), "seed 1", "seed 2");
        TopK t1 = TopK.create(8, 8, 1);
        refused(t1, () -> t1.merge(TopK.create(8, 8, 2)), "seed 1", "seed 2");
        MinHash m1 = MinHash.create(64, 1);
        refused(m1, () -> m1.merge(MinHash.create(64, 2)), "seed 1", "seed 2");
        refused(m1, () -> m1.jaccard(MinHash.create(128, 1)), "seed 1");
    }
}
