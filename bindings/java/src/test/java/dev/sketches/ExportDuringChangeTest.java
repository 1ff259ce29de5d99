package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ConcurrentModificationException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * An export ({@code toByteArray}, and with it Java serialization) overlapping a change of the same
 * sketch, against the thread-safety rules (a Spark task serializing a sketch that another thread
 * still adds to). Before, the export checksummed whatever bytes it read, half of them from before
 * an add and half from after, so the torn image passed every later verification as a valid sketch
 * (or was refused only where it was read back, far from the race). Now an export that overlaps a
 * change throws ConcurrentModificationException; every export that returns is a whole image,
 * which reads back. Fixed numbers of calls (no clock).
 */
class ExportDuringChangeTest {
    private static final int ADDS = 300_000;

    private static <T> void exportsWhileAdding(String family, T sketch, Consumer<Long> add,
            Function<T, byte[]> export, Function<byte[], ?> read) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            AtomicBoolean done = new AtomicBoolean();
            Future<?> writer = pool.submit(() -> {
                for (long i = 0; i < ADDS; i++) {
                    add.accept(i);
                }
                done.set(true);
            });
            Future<long[]> reader = pool.submit(() -> {
                long whole = 0;
                long refused = 0;
                long torn = 0;
                while (!done.get()) {
                    byte[] image;
                    try {
                        image = export.apply(sketch);
                    } catch (ConcurrentModificationException e) {
                        refused++;
                        continue;
                    }
                    try {
                        read.apply(image);
                        whole++;
                    } catch (SketchException e) {
                        torn++;
                    }
                }
                return new long[] {whole, refused, torn};
            });
            writer.get();
            long[] r = reader.get();
            assertEquals(0, r[2], family + ": exports that returned but do not read back (" + r[0] + " whole, "
                    + r[1] + " refused)");
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void everyExportThatReturnsReadsBack() throws Exception {
        CountMinSketch c = CountMinSketch.create(0.01, 0.01);
        exportsWhileAdding("CountMinSketch", c, c::add, CountMinSketch::toByteArray, CountMinSketch::fromByteArray);
        BloomFilter b = BloomFilter.create(ADDS, 0.01);
        exportsWhileAdding("BloomFilter", b, b::add, BloomFilter::toByteArray, BloomFilter::fromByteArray);
        TopK t = TopK.create(64, 8);
        exportsWhileAdding("TopK", t, t::add, TopK::toByteArray, TopK::fromByteArray);
        CuckooFilter f = CuckooFilter.create(ADDS, 0.01);
        exportsWhileAdding("CuckooFilter", f, f::add, CuckooFilter::toByteArray, CuckooFilter::fromByteArray);
        HyperLogLog h = HyperLogLog.create(12);
        exportsWhileAdding("HyperLogLog", h, h::add, HyperLogLog::toByteArray, HyperLogLog::fromByteArray);
    }
}
