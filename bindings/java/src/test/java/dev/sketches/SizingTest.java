package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * The static {@code imageBytes} forms: the size of the image the factory with the same arguments
 * makes, without making it; sizes past one ByteBuffer; bad parameters.
 */
class SizingTest {
    /** The planned size equals the made sketch's, and is a multiple of the image alignment. */
    private static void same(long planned, long made) {
        assertEquals(made, planned);
        assertEquals(0, planned % 64, "a multiple of 64: " + planned);
    }

    @Test
    void plannedSizesAreTheSizesOfTheSketchesMade() {
        for (long n : new long[] {1, 1000, 123_457, 2_000_000}) {
            for (double p : new double[] {0.5, 0.01, 1e-5}) {
                same(BloomFilter.imageBytes(n, p), BloomFilter.create(n, p, 3).imageBytes());
                same(SplitBlockBloomFilter.imageBytes(n, p), SplitBlockBloomFilter.create(n, p, 3).imageBytes());
                same(SplitBlockBloomFilter.imageBytesForParquet(n, p), SplitBlockBloomFilter.forParquet(n, p).imageBytes());
                same(CountingBloomFilter.imageBytes(n, p), CountingBloomFilter.create(n, p, 3).imageBytes());
            }
            // The rates 8-, 12- and 16-bit fingerprints give.
            for (double p : new double[] {0.03, 0.002, 0.0002}) {
                same(CuckooFilter.imageBytes(n, p), CuckooFilter.create(n, p, 3).imageBytes());
            }
        }
        same(BloomFilter.imageBytesWithBits(1, 1), BloomFilter.withBits(1, 1, 0).imageBytes());
        same(BloomFilter.imageBytesWithBits(1 << 20, 7), BloomFilter.withBits(1 << 20, 7, 0).imageBytes());
        for (long blocks : new long[] {1, 3, 4096}) {
            same(SplitBlockBloomFilter.imageBytesWithBlocks(blocks),
                    SplitBlockBloomFilter.withBlocks(blocks, false, 9).imageBytes());
            same(SplitBlockBloomFilter.imageBytesWithBlocks(blocks),
                    SplitBlockBloomFilter.withBlocks(blocks, true, 0).imageBytes());
        }
        same(CountingBloomFilter.imageBytesWithCounters(1001, 5), CountingBloomFilter.withCounters(1001, 5, 0).imageBytes());
        for (int bits : new int[] {8, 12, 16}) {
            same(CuckooFilter.imageBytesWithBuckets(333, bits), CuckooFilter.withBuckets(333, bits, 0).imageBytes());
        }
        same(CountMinSketch.imageBytes(0.001, 0.01), CountMinSketch.create(0.001, 0.01).imageBytes());
        same(CountMinSketch.imageBytesWithSize(1000, 4), CountMinSketch.withSize(1000, 4, 1).imageBytes());
        CountMinSketch.Builder wide = CountMinSketch.builder().size(777, 3).counterBits(64).conservative(true);
        same(wide.imageBytes(), wide.build().imageBytes());
        assertTrue(wide.imageBytes() > CountMinSketch.imageBytesWithSize(777, 3), "64-bit counters take more");
        same(TopK.imageBytes(100, 16), TopK.create(100, 16).imageBytes());
        same(TopK.imageBytes(1, 4096), TopK.create(1, 4096).imageBytes());
        same(MinHash.imageBytes(1), MinHash.create(1).imageBytes());
        same(MinHash.imageBytes(1024), MinHash.create(1024).imageBytes());
    }

    /** A size one ByteBuffer cannot hold is still reported, so a caller can refuse it first. */
    @Test
    void sizesPastOneByteBufferAreReportedNotMade() {
        long items = 10_000_000_000L;
        long[] sizes = {
            BloomFilter.imageBytes(items, 0.01),
            SplitBlockBloomFilter.imageBytes(items, 0.01),
            CountingBloomFilter.imageBytes(items, 0.01),
            CuckooFilter.imageBytes(items, 0.01),
            CountMinSketch.imageBytes(1e-9, 0.01),
            BloomFilter.imageBytesWithBits(1L << 40, 3),
        };
        for (long size : sizes) {
            assertTrue(size > Integer.MAX_VALUE, "past 2 GiB: " + size);
        }
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(items, 0.01));
        assertThrows(IllegalArgumentException.class, () -> CountMinSketch.create(1e-9, 0.01));
        // Monotone in the item count: a budget check can search for the largest plan that fits.
        assertTrue(BloomFilter.imageBytes(2_000_000, 0.01) > BloomFilter.imageBytes(1_000_000, 0.01));
    }

    @Test
    void badParametersAreRefusedAsByTheFactories() {
        LongSupplier[] bad = {
            () -> BloomFilter.imageBytes(0, 0.01),
            () -> BloomFilter.imageBytes(10, 1.0),
            () -> BloomFilter.imageBytes(10, Double.NaN),
            () -> BloomFilter.imageBytesWithBits(0, 3),
            () -> BloomFilter.imageBytesWithBits(64, 65),
            () -> SplitBlockBloomFilter.imageBytes(0, 0.01),
            () -> SplitBlockBloomFilter.imageBytesForParquet(10, 0),
            () -> SplitBlockBloomFilter.imageBytesWithBlocks(0),
            () -> CountingBloomFilter.imageBytes(10, -1),
            () -> CountingBloomFilter.imageBytesWithCounters(10, 0),
            () -> CuckooFilter.imageBytes(-5, 0.01),
            () -> CuckooFilter.imageBytesWithBuckets(10, 10),
            () -> CuckooFilter.imageBytes(10, 1e-9),
            () -> CountMinSketch.imageBytes(0, 0.01),
            () -> CountMinSketch.imageBytesWithSize(10, 65),
            () -> TopK.imageBytes(0, 8),
            () -> TopK.imageBytes(10, 4097),
            () -> MinHash.imageBytes(0),
            () -> MinHash.imageBytes((1 << 20) + 1),
        };
        for (LongSupplier s : bad) {
            assertThrows(IllegalArgumentException.class, s::getAsLong);
        }
    }
}
