package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ConcurrentModificationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A merge whose argument another thread changes meanwhile, against the thread-safety rules (the
 * argument is only read, so it must not change during the merge). Before, the merge read the
 * argument half before and half after an add and kept that in the destination without a word:
 * a Top-k destination so merged no longer read back. Now a merge that overlaps a change of its
 * argument throws ConcurrentModificationException; every merge that returns read a whole image.
 * Fixed numbers of calls (no clock).
 */
class MergeDuringChangeTest {
    private static final int ADDS = 1_000_000;

    private static <T> void mergesWhileAdding(String family, T source, Consumer<Long> add, Supplier<T> empty,
            java.util.function.BiConsumer<T, T> merge, Function<T, byte[]> export, Function<byte[], ?> read)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            AtomicBoolean done = new AtomicBoolean();
            Future<?> writer = pool.submit(() -> {
                for (long i = 0; i < ADDS; i++) {
                    add.accept(i);
                }
                done.set(true);
            });
            Future<long[]> merger = pool.submit(() -> {
                long whole = 0;
                long refused = 0;
                long torn = 0;
                while (!done.get()) {
                    T dst = empty.get();
                    try {
                        merge.accept(dst, source);
                    } catch (ConcurrentModificationException e) {
                        refused++;
                        continue;
                    } catch (SketchException e) {
                        torn++; // the merge itself refused a half-made source
                        continue;
                    }
                    try {
                        read.apply(export.apply(dst));
                        whole++;
                    } catch (SketchException e) {
                        torn++;
                    }
                }
                return new long[] {whole, refused, torn};
            });
            writer.get();
            long[] r = merger.get();
            assertEquals(0, r[2], family + ": merges that returned a destination that does not read back (" + r[0]
                    + " whole, " + r[1] + " refused)");
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void aMergeOverlappingAChangeOfItsArgumentIsRefused() throws Exception {
        TopK t = TopK.create(64, 8);
        mergesWhileAdding("TopK", t, t::add, () -> TopK.create(64, 8), TopK::merge, TopK::toByteArray,
                TopK::fromByteArray);
    }
}
