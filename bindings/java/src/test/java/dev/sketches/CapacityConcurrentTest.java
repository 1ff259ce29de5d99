package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * The concurrent over-capacity signal ({@code capacityFlagsConcurrent}, {@code
 * isOverCapacityConcurrent}) of the Bloom and split-block filters: read by a watcher thread while 8
 * threads overfill a filter planned for 1,000 keys through the concurrent adds, and after the join
 * equal to the plain signal with both flags up.
 */
class CapacityConcurrentTest {
    private static final int THREADS = 8;
    private static final int PER_THREAD = 2500;
    private static final int BOTH =
            Sketches.CAPACITY_OVER_PLANNED_ITEMS | Sketches.CAPACITY_FPR_ABOVE_TWICE_PLANNED;

    /** Adds every thread's keys through {@code add} while a watcher reads {@code flags}. */
    private static void overfill(LongConsumer addBatchOf500, IntSupplier flags) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS + 1);
        try {
            CyclicBarrier start = new CyclicBarrier(THREADS + 1);
            AtomicBoolean done = new AtomicBoolean();
            AtomicInteger unknown = new AtomicInteger();
            Future<?> watcher = pool.submit(() -> {
                start.await();
                while (!done.get()) {
                    if ((flags.getAsInt() & ~BOTH) != 0) {
                        unknown.incrementAndGet();
                    }
                }
                return null;
            });
            List<Future<?>> adders = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long first = (long) t * PER_THREAD;
                adders.add(pool.submit(() -> {
                    start.await();
                    for (long k = first; k < first + PER_THREAD; k += 500) {
                        addBatchOf500.accept(k);
                    }
                    return null;
                }));
            }
            for (Future<?> f : adders) {
                f.get(60, TimeUnit.SECONDS);
            }
            done.set(true);
            watcher.get(60, TimeUnit.SECONDS);
            assertEquals(0, unknown.get(), "flags outside the CAPACITY_* bits");
        } finally {
            pool.shutdownNow();
        }
    }

    private static long[] batch(long first) {
        long[] keys = new long[500];
        Arrays.setAll(keys, i -> first + i);
        return keys;
    }

    @Test
    void bloomSignalIsReadDuringAddsAndRises() throws Exception {
        BloomFilter f = BloomFilter.create(1000, 0.01, 3);
        assertEquals(0, f.capacityFlagsConcurrent());
        assertFalse(f.isOverCapacityConcurrent());
        overfill(k -> f.addAllConcurrent(batch(k)), f::capacityFlagsConcurrent);
        assertEquals(BOTH, f.capacityFlagsConcurrent());
        assertEquals(f.capacityFlags(), f.capacityFlagsConcurrent());
        assertTrue(f.isOverCapacityConcurrent());
    }

    @Test
    void splitBlockSignalIsReadDuringAddsAndRisesInBothModes() throws Exception {
        for (SplitBlockBloomFilter f :
                List.of(SplitBlockBloomFilter.create(1000, 0.01, 3), SplitBlockBloomFilter.forParquet(1000, 0.01))) {
            assertEquals(0, f.capacityFlagsConcurrent());
            overfill(k -> f.addAllConcurrent(batch(k)), f::capacityFlagsConcurrent);
            assertEquals(BOTH, f.capacityFlagsConcurrent());
            assertEquals(f.capacityFlags(), f.capacityFlagsConcurrent());
            assertTrue(f.isOverCapacityConcurrent());
        }
    }

    @Test
    void aLoadedParquetBitsetIsJudgedByItsFill() {
        byte[] ones = new byte[4096];
        Arrays.fill(ones, (byte) 0xff);
        SplitBlockBloomFilter f = SplitBlockBloomFilter.fromParquetBitset(ones, 0.01);
        assertEquals(f.capacityFlags(), f.capacityFlagsConcurrent());
        assertNotEquals(0, f.capacityFlagsConcurrent() & Sketches.CAPACITY_FPR_ABOVE_TWICE_PLANNED);
    }
}
