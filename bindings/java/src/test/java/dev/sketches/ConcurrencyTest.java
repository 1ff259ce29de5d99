package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Queries from many threads on shared sketches (the documented safe case): every thread sees the
 * same answers as a single thread, with single calls, batches, statistics and exports mixed, while
 * the garbage collector runs (batches allocate).
 */
class ConcurrencyTest {
    private static final int THREADS = 16;
    private static final int ROUNDS = 40;

    @Test
    void queriesFromManyThreads() throws Exception {
        String[] keys = TestKeys.strings("present-", 0, 20_000);
        String[] probes = TestKeys.strings("absent-", 0, 20_000);
        BloomFilter bloom = BloomFilter.create(keys.length, 0.01, 1);
        bloom.addAll(keys);
        SplitBlockBloomFilter sbbf = SplitBlockBloomFilter.create(keys.length, 0.01, 1);
        sbbf.addAll(keys);
        CuckooFilter cuckoo = CuckooFilter.create(keys.length, 0.01, 1);
        cuckoo.addAll(keys);
        CountingBloomFilter counting = CountingBloomFilter.create(keys.length, 0.01, 1);
        counting.addAll(keys);
        HyperLogLog hll = HyperLogLog.create(14, 1);
        hll.addAll(keys);
        UltraLogLog ull = UltraLogLog.create(12, 1);
        ull.addAll(keys);
        CountMinSketch cms = CountMinSketch.create(0.001, 0.01, 1);
        cms.addAll(keys);
        TopK topk = TopK.create(100, 16, 1);
        topk.addAll(keys);
        MinHash mh = MinHash.create(256, 1);
        mh.addAll(keys);
        BinaryFuseFilter fuse = BinaryFuseFilter.build(keys, 8, 1);
        ExaLogLog ell = ExaLogLog.create(12, ExaLogLog.D24, 1);
        ell.addAll(keys);

        boolean[] bloomExpected = bloom.containsAll(probes);
        boolean[] cuckooExpected = cuckoo.containsAll(probes);
        long[] cmsExpected = cms.estimateAll(probes);
        double hllExpected = hll.estimate();
        double ullExpected = ull.mlEstimate();
        byte[] sbbfImage = sbbf.toByteArray();
        List<TopK.Item> topExpected = topk.top();
        long[] sigExpected = mh.signature();
        boolean[] fuseExpected = fuse.containsAll(probes);
        byte[] fuseImage = fuse.toByteArray();
        double ellExpected = ell.mlEstimate();
        ExaLogLog.Stats ellStats = ell.stats();

        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            futures.add(pool.submit(() -> {
                for (int r = 0; r < ROUNDS; r++) {
                    int i = (id * 7919 + r * 104729) % keys.length;
                    assertTrue(bloom.contains(keys[i]));
                    assertTrue(sbbf.contains(keys[i]));
                    assertTrue(cuckoo.contains(keys[i]));
                    assertTrue(counting.contains(keys[i]));
                    assertTrue(fuse.contains(keys[i]));
                    assertEquals(fuseExpected[i], fuse.contains(probes[i]));
                    assertEquals(bloomExpected[i], bloom.contains(probes[i]));
                    assertEquals(cmsExpected[i], cms.estimate(probes[i]));
                    switch ((id + r) % 9) {
                        case 0 -> assertArrayEquals(bloomExpected, bloom.containsAll(probes));
                        case 1 -> assertArrayEquals(cuckooExpected, cuckoo.containsAll(TestKeys.bytes(probes)));
                        case 2 -> assertArrayEquals(cmsExpected, cms.estimateAll(probes));
                        case 3 -> assertArrayEquals(sbbfImage, sbbf.toByteArray());
                        case 4 -> assertEquals(topExpected, topk.top());
                        case 5 -> assertArrayEquals(fuseExpected, fuse.containsAll(probes));
                        case 6 -> assertArrayEquals(fuseImage, fuse.toByteArray());
                        case 7 -> assertEquals(ellStats, ell.stats());
                        default -> assertArrayEquals(sigExpected, mh.signature());
                    }
                    assertEquals(hllExpected, hll.estimate());
                    assertEquals(ullExpected, ull.mlEstimate());
                    assertEquals(ellExpected, ell.mlEstimate());
                    assertEquals(ellStats.estimate(), ell.estimate());
                    assertEquals(0, bloom.capacityFlags());
                    assertEquals(keys.length, counting.stats().items());
                }
                return null;
            }));
        }
        pool.shutdown();
        for (Future<?> f : futures) {
            f.get(); // rethrows any assertion failure of a worker
        }
        assertTrue(pool.awaitTermination(1, TimeUnit.MINUTES));
    }
}
