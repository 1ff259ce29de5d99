package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ConcurrentModificationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A conversion that reads a whole sketch into a new one ({@code HyperLogLog.downsize}) while
 * another thread changes the source, against the thread-safety rules. Before, a source read
 * half-made (in the middle of leaving its exact small mode) gave a new sketch holding that state.
 * Now the conversion throws ConcurrentModificationException; every one that returns reads a whole
 * image. Fixed numbers of calls (no clock).
 */
class DownsizeDuringChangeTest {
    @Test
    void aDownsizeOverlappingAChangeIsRefused() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            AtomicReference<HyperLogLog> current = new AtomicReference<>(HyperLogLog.create(12));
            AtomicBoolean done = new AtomicBoolean();
            Future<?> writer = pool.submit(() -> {
                for (int round = 0; round < 1000; round++) {
                    HyperLogLog h = HyperLogLog.create(12);
                    current.set(h);
                    for (long i = 0; i < 3000; i++) {
                        h.add(round * 1_000_000L + i);
                    }
                }
                done.set(true);
            });
            Future<long[]> reader = pool.submit(() -> {
                long whole = 0;
                long refused = 0;
                long torn = 0;
                while (!done.get()) {
                    HyperLogLog src = current.get();
                    HyperLogLog small;
                    try {
                        small = src.downsize(10);
                    } catch (ConcurrentModificationException e) {
                        refused++;
                        continue;
                    } catch (SketchException e) {
                        torn++;
                        continue;
                    }
                    try {
                        HyperLogLog.fromByteArray(small.toByteArray());
                        whole++;
                    } catch (SketchException e) {
                        torn++;
                    }
                }
                return new long[] {whole, refused, torn};
            });
            writer.get();
            long[] r = reader.get();
            assertEquals(0, r[2], "downsized sketches that do not read back (" + r[0] + " whole, " + r[1] + " refused)");
        } finally {
            pool.shutdown();
        }
    }
}
