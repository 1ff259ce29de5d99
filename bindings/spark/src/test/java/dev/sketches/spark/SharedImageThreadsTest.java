package dev.sketches.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.sketches.BloomFilter;
import dev.sketches.CountMinSketch;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/**
 * Task threads of one executor querying one filter image: each task has its own function object
 * (Spark deserializes the plan per task) and its own copy of the image bytes (a broadcast-joined
 * column), and all of them get the one sketch object the executor-wide cache read. Only queries
 * reach that shared object, so none throws ConcurrentModificationException and every thread sees
 * every added key.
 */
class SharedImageThreadsTest {
    private static final int THREADS = 8;
    private static final long KEYS = 20_000;

    @Test
    void tasksShareOneCachedSketchAndOnlyQueryIt() throws Exception {
        BloomFilter bloom = BloomFilter.create(KEYS, 0.01);
        CountMinSketch cms = CountMinSketch.create(0.001, 0.01);
        for (long k = 0; k < KEYS; k++) {
            bloom.add(k);
            cms.add(k);
        }
        byte[] bloomImage = bloom.toByteArray();
        byte[] cmsImage = cms.toByteArray();
        Object cached = ImageCache.get("sketch_bloom_contains", Family.BLOOM, bloomImage.clone());
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Callable<long[]> task = () -> {
                    ScalarFunctions.Contains contains = new ScalarFunctions.Contains(
                            "sketch_bloom_contains", Family.BLOOM, DataTypes.LongType);
                    ScalarFunctions.CmsEstimate estimate = new ScalarFunctions.CmsEstimate("sketch_cms_estimate");
                    long found = 0;
                    long falsePositives = 0;
                    long underestimates = 0;
                    for (long k = 0; k < 2 * KEYS; k++) {
                        // A fresh copy per row, as a joined column's bytes arrive.
                        boolean hit = contains.call(bloomImage.clone(), k);
                        if (k < KEYS) {
                            found += hit ? 1 : 0;
                            underestimates += estimate.call(cmsImage.clone(), k) < 1 ? 1 : 0;
                        } else {
                            falsePositives += hit ? 1 : 0;
                        }
                    }
                    return new long[] {found, falsePositives, underestimates};
                };
                results.add(pool.submit(task));
            }
            long[] first = results.get(0).get();
            assertEquals(KEYS, first[0], "every added key found");
            assertEquals(0, first[2], "no Count-Min estimate below an added key's count");
            for (Future<long[]> f : results) {
                long[] r = f.get();
                assertEquals(first[0], r[0]);
                assertEquals(first[1], r[1], "every thread sees the same false positives");
                assertEquals(0, r[2]);
            }
        } finally {
            pool.shutdown();
        }
        assertSame(cached, ImageCache.get("sketch_bloom_contains", Family.BLOOM, bloomImage.clone()),
                "the threads queried the one cached sketch");
    }
}
