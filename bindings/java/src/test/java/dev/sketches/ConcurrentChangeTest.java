package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.Test;

/**
 * Two threads changing one sketch at once with the exclusive (non-concurrent) methods: a caller's
 * race, as when Spark tasks of one executor add to the one broadcast value they share, or request
 * threads to a service's singleton. Before, native code ran both changes on the same memory: adds
 * were lost (the filters' bits and the header counters are read, changed and written back), so a
 * filter could answer "certainly absent" for a key whose add returned, and the counts drifted
 * silently. Now one of two overlapping changes throws ConcurrentModificationException and changes
 * nothing, so every change that returned is in the sketch: the exact counters equal the number of
 * adds that returned. Each thread makes a fixed number of calls (no clock).
 */
class ConcurrentChangeTest {
    private static final int THREADS = 4;
    private static final int CALLS = 200_000;

    /** Runs THREADS threads of CALLS adds each; returns the adds that returned (the rest threw CME). */
    private static long race(LongConsumer add) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<long[]>> runs = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                long base = (long) t * CALLS;
                runs.add(pool.submit(() -> {
                    long accepted = 0;
                    long refused = 0;
                    for (long i = 0; i < CALLS; i++) {
                        try {
                            add.accept(base + i);
                            accepted++;
                        } catch (ConcurrentModificationException e) {
                            refused++;
                        }
                    }
                    return new long[] {accepted, refused};
                }));
            }
            long accepted = 0;
            for (Future<long[]> run : runs) {
                accepted += run.get()[0];
            }
            return accepted;
        } finally {
            pool.shutdown();
        }
    }

    private static void check(String family, LongConsumer add, LongSupplier counted) throws Exception {
        long accepted = race(add);
        assertEquals(accepted, counted.getAsLong(), family + ": the adds that returned and the sketch's count");
    }

    @Test
    void bloomCountsEveryAddThatReturned() throws Exception {
        BloomFilter f = BloomFilter.create(1_000_000, 0.01);
        check("BloomFilter", f::add, () -> f.stats().addCalls());
        // No add that returned was lost: each accepted key answers present (refused ones may not).
        BloomFilter g = BloomFilter.withBits(1 << 16, 3, 0);
        java.util.Set<Long> refused = new java.util.HashSet<>();
        race(k -> {
            try {
                g.add(k);
            } catch (ConcurrentModificationException e) {
                synchronized (refused) {
                    refused.add(k);
                }
                throw e;
            }
        });
        long missing = 0;
        for (long k = 0; k < (long) THREADS * CALLS; k++) {
            if (!g.contains(k) && !refused.contains(k)) {
                missing++;
            }
        }
        assertEquals(0, missing, "keys whose add returned but that the filter calls absent");
    }

    @Test
    void splitBlockCountsEveryAddThatReturned() throws Exception {
        SplitBlockBloomFilter f = SplitBlockBloomFilter.create(1_000_000, 0.01);
        check("SplitBlockBloomFilter", f::add, () -> f.stats().addCalls());
    }

    @Test
    void countingCountsEveryAddThatReturned() throws Exception {
        CountingBloomFilter f = CountingBloomFilter.create(1_000_000, 0.01);
        check("CountingBloomFilter", f::add, () -> f.stats().addCalls());
    }

    @Test
    void countMinAndTopKCountEveryAddThatReturned() throws Exception {
        CountMinSketch c = CountMinSketch.create(0.001, 0.01);
        check("CountMinSketch", c::add, c::total);
        TopK t = TopK.create(64, 8);
        check("TopK", t::add, () -> t.stats().total());
    }

    /**
     * A fold shortens the image in place and replaces the filter's image object while it still
     * holds the change of the one it started on (it fills the token of the shorter image before it
     * ends). A thread that reads the new image meanwhile must be refused as during any change:
     * before, the shorter image had a guard of its own, so such an add ran beside the end of the
     * fold (and its token being filled). Here the fold's change is held open through the image it
     * started on.
     */
    @Test
    void aFoldAndTheShortenedImageTakeTurns() throws Exception {
        SplitBlockBloomFilter s = SplitBlockBloomFilter.withBlocks(8, false, 0);
        java.lang.reflect.Field field = SplitBlockBloomFilter.class.getDeclaredField("img");
        field.setAccessible(true);
        Native.Image before = (Native.Image) field.get(s);
        s.fold(1);
        assertTrue(before != field.get(s), "the fold replaced the image object");
        before.beginChange();
        try {
            assertThrows(ConcurrentModificationException.class, () -> s.add("x"));
            assertThrows(ConcurrentModificationException.class, s::toByteArray);
        } finally {
            before.endChange();
        }
        assertTrue(s.add("x"));
    }

    @Test
    void aRefusedChangeLeavesTheSketchUsable() throws Exception {
        HyperLogLog h = HyperLogLog.create(12);
        race(h::add);
        // The guard is released after every call, refused or not: changes and queries work again.
        h.add(-1L);
        h.merge(HyperLogLog.create(12));
        h.clear();
        assertEquals(0.0, h.estimate());
        // A change that throws for its own reason releases the guard too.
        assertThrows(SketchException.class, () -> h.merge(HyperLogLog.create(10, 7)));
        h.add(1L);
        BloomFilter f = BloomFilter.create(100, 0.01);
        assertThrows(IllegalArgumentException.class, () -> f.addPacked(new byte[1], new int[] {0, 2}, null));
        assertThrows(SketchException.class, () -> f.merge(BloomFilter.create(1000, 0.01)));
        assertTrue(f.add("x"));
        SplitBlockBloomFilter s = SplitBlockBloomFilter.withBlocks(6, false, 0);
        assertThrows(IllegalArgumentException.class, () -> s.fold(2)); // 6 blocks halve once
        s.fold(1);
        assertTrue(s.add("x"));
        s.foldToTargetFpp(0.5);
        assertTrue(s.contains("x"));
    }
}
