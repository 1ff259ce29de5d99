package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import java.util.function.LongConsumer;
import org.junit.jupiter.api.Test;

/**
 * Exclusive calls (changes, exports, queries) made while concurrent adds run on the same memory,
 * against the thread-safety rules: the concurrent methods take no change guard (a shared counter
 * there would put contention on every concurrent add), so nothing refuses the mix. What the
 * documentation promises for it is checked here: no call crashes the JVM or throws anything but
 * {@link SketchException} (header counters left inconsistent by the race are refused as
 * CORRUPT_HEADER, say), and once the adding threads are done a {@code clear()} either gives a
 * sketch that works exactly again or is refused as CORRUPT_HEADER (the documented case where the
 * sketch must be made anew). Adds lost to the race are allowed (the documentation says they may
 * be). This is a check of the documented limits, not of a fix: no code changed for it. Through the same object and through a second wrap of its memory; fixed numbers of
 * concurrent adds (no clock).
 */
class ExclusiveDuringConcurrentAddsTest {
    private static final int ADDS = 200_000;

    /**
     * Runs 2 threads of {@code ADDS} concurrent adds while a third calls {@code exclusive} with a
     * step number until they are done; returns the exceptions seen, by class and call.
     */
    private static Map<String, Integer> mix(LongConsumer concurrentAdd, IntConsumer exclusive) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        Map<String, Integer> thrown = new TreeMap<>();
        try {
            AtomicBoolean done = new AtomicBoolean();
            List<Future<?>> adders = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long base = t * (long) ADDS;
                adders.add(pool.submit(() -> {
                    for (long i = 0; i < ADDS; i++) {
                        try {
                            concurrentAdd.accept(base + i);
                        } catch (RuntimeException e) {
                            synchronized (thrown) {
                                thrown.merge("concurrent add: " + e.getClass().getSimpleName(), 1, Integer::sum);
                            }
                        }
                    }
                    return null;
                }));
            }
            Future<?> other = pool.submit(() -> {
                for (int step = 0; !done.get(); step++) {
                    try {
                        exclusive.accept(step);
                    } catch (RuntimeException e) {
                        synchronized (thrown) {
                            thrown.merge("exclusive step " + step % 8 + ": " + e.getClass().getSimpleName(), 1,
                                    Integer::sum);
                        }
                    }
                }
                return null;
            });
            for (Future<?> f : adders) {
                f.get();
            }
            done.set(true);
            other.get();
        } finally {
            pool.shutdown();
        }
        return thrown;
    }

    /** Only SketchException may come out of the race. */
    private static void onlySketchExceptions(String family, Map<String, Integer> thrown) {
        for (String what : thrown.keySet()) {
            assertTrue(what.endsWith(": SketchException"), family + ": " + what + " (" + thrown + ")");
        }
    }

    @Test
    void bloomFilter() throws Exception {
        ByteBuffer memory = TestKeys.direct(liveImage(BloomFilter.withBits(1 << 16, 3, 0).image()));
        BloomFilter f = BloomFilter.wrap(memory);
        BloomFilter alias = BloomFilter.wrap(memory.duplicate());
        BloomFilter other = BloomFilter.withBits(1 << 16, 3, 0);
        other.add("other");
        onlySketchExceptions("BloomFilter", mix(f::addConcurrent, step -> {
            BloomFilter target = step % 2 == 0 ? f : alias;
            switch (step % 8) {
                case 0, 1 -> target.add(1_000_000L + step);
                case 2 -> target.addAll(new long[] {2_000_000L + step, 3_000_000L + step});
                case 3 -> target.merge(other);
                case 4 -> BloomFilter.fromByteArray(target.toByteArray());
                case 5 -> target.stats();
                case 6 -> target.intersect(target == f ? alias : f); // the same memory: from a copy
                default -> {
                    if (step % 64 == 7) {
                        target.clear();
                    }
                }
            }
        }));
        if (!cleared(f::clear)) {
            return;
        }
        long[] keys = TestKeys.longs(0, 1000);
        f.addAll(keys);
        for (long k : keys) {
            assertTrue(alias.contains(k));
        }
        assertEquals(1000, alias.stats().addCalls());
        BloomFilter.fromByteArray(alias.toByteArray());
    }

    @Test
    void splitBlockBloomFilter() throws Exception {
        SplitBlockBloomFilter f = SplitBlockBloomFilter.withBlocks(1 << 10, false, 0);
        SplitBlockBloomFilter other = SplitBlockBloomFilter.withBlocks(1 << 10, false, 0);
        other.add("other");
        int[] folds = {0};
        onlySketchExceptions("SplitBlockBloomFilter", mix(f::addConcurrent, step -> {
            switch (step % 8) {
                case 0, 1 -> f.add(1_000_000L + step);
                case 2 -> f.addAll(new long[] {2_000_000L + step, 3_000_000L + step});
                case 3 -> {
                    if (f.imageBytes() == other.imageBytes()) {
                        f.merge(other);
                    }
                }
                case 4 -> SplitBlockBloomFilter.fromByteArray(f.toByteArray());
                case 5 -> f.stats();
                case 6 -> {
                    if (step % 4096 == 6 && folds[0] < 4) {
                        f.fold(1); // the image shrinks in place under the concurrent adds
                        folds[0]++;
                    }
                }
                default -> {
                    if (step % 64 == 7) {
                        f.clear();
                    }
                }
            }
        }));
        if (!cleared(f::clear)) {
            return;
        }
        long[] keys = TestKeys.longs(0, 1000);
        f.addAll(keys);
        for (long k : keys) {
            assertTrue(f.contains(k));
        }
        assertEquals(1000, f.stats().addCalls());
        SplitBlockBloomFilter.fromByteArray(f.toByteArray());
    }

    @Test
    void hyperLogLog() throws Exception {
        HyperLogLog h = HyperLogLog.create(10);
        h.densify();
        HyperLogLog other = HyperLogLog.create(10);
        other.add("other");
        onlySketchExceptions("HyperLogLog", mix(h::addConcurrent, step -> {
            switch (step % 8) {
                case 0, 1 -> h.add(1_000_000L + step);
                case 2 -> h.addAll(new long[] {2_000_000L + step, 3_000_000L + step});
                case 3 -> h.merge(other);
                case 4 -> HyperLogLog.fromByteArray(h.toByteArray());
                case 5 -> h.stats();
                case 6 -> h.downsize(8);
                default -> {
                    if (step % 64 == 7) {
                        h.clear(); // back to small mode: the concurrent adds throw SMALL_MODE
                        h.densify();
                    }
                }
            }
        }));
        if (!cleared(h::clear)) {
            return;
        }
        h.addAll(TestKeys.longs(0, 100));
        HyperLogLog expected = HyperLogLog.create(10);
        expected.addAll(TestKeys.longs(0, 100));
        assertEquals(expected.estimate(), h.estimate());
        h.densify();
        h.addConcurrent(-1L);
        HyperLogLog.fromByteArray(h.toByteArray());
    }

    @Test
    void ultraLogLog() throws Exception {
        UltraLogLog u = UltraLogLog.create(10);
        UltraLogLog other = UltraLogLog.create(10);
        other.add("other");
        onlySketchExceptions("UltraLogLog", mix(u::addConcurrent, step -> {
            switch (step % 8) {
                case 0, 1 -> u.add(1_000_000L + step);
                case 2 -> u.addAll(new long[] {2_000_000L + step, 3_000_000L + step});
                case 3 -> u.merge(other);
                case 4 -> UltraLogLog.fromByteArray(u.toByteArray());
                case 5 -> u.stats();
                case 6 -> u.toHyperLogLog();
                default -> {
                    if (step % 64 == 7) {
                        u.clear();
                    }
                }
            }
        }));
        if (!cleared(u::clear)) {
            return;
        }
        u.addAll(TestKeys.longs(0, 100));
        UltraLogLog expected = UltraLogLog.create(10);
        expected.addAll(TestKeys.longs(0, 100));
        assertEquals(expected.estimate(), u.estimate());
        UltraLogLog.fromByteArray(u.toByteArray());
    }

    /**
     * Clears a sketch once the race is over: true when it works, false when the race left a header
     * the library refuses (CORRUPT_HEADER, documented: the sketch must be made anew).
     */
    private static boolean cleared(Runnable clear) {
        try {
            clear.run();
            return true;
        } catch (SketchException e) {
            assertEquals(Status.CORRUPT_HEADER, e.status(), e.getMessage());
            return false;
        }
    }

    private static byte[] liveImage(ByteBuffer view) {
        byte[] out = new byte[view.remaining()];
        view.duplicate().get(out);
        return out;
    }
}
