package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ConcurrentModificationException;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Calls that read a whole sketch while another thread changes it, against the thread-safety rules:
 * an export ({@code toByteArray}, and with it Java serialization: a Spark task serializing a sketch
 * another thread still adds to), a merge whose argument changes meanwhile, and a conversion
 * ({@code HyperLogLog.downsize}) of a changing source. Before, each read the bytes half from before
 * and half from after an add: an export checksummed the torn image, so it passed every later
 * verification as a valid sketch (or was refused only where it was read back, far from the race); a
 * merge kept the half-made argument in its destination (a Top-k destination so merged no longer
 * read back); a downsize of a source leaving its small mode gave a sketch holding that state. Now
 * each throws ConcurrentModificationException, and every result that returns is a whole image,
 * which reads back. Fixed numbers of calls (no clock); the downsize race is a timing race that an
 * unfixed build can also pass.
 */
class WholeReadDuringChangeTest {
    private static final int ADDS = 300_000;

    /**
     * Runs {@code writer} on one thread while another calls {@code attempt} (which returns an
     * image) until the writer is done, and checks that every image an attempt returned reads back
     * through {@code read}; an attempt may be refused with ConcurrentModificationException.
     */
    private static void attemptsWhileChanging(String what, Runnable writer, Callable<byte[]> attempt,
            Function<byte[], ?> read) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            AtomicBoolean done = new AtomicBoolean();
            Future<?> changes = pool.submit(() -> {
                writer.run();
                done.set(true);
            });
            Future<long[]> attempts = pool.submit(() -> {
                long whole = 0;
                long refused = 0;
                long torn = 0;
                while (!done.get()) {
                    byte[] image;
                    try {
                        image = attempt.call();
                    } catch (ConcurrentModificationException e) {
                        refused++;
                        continue;
                    } catch (SketchException e) {
                        torn++; // the call itself refused a half-made source
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
            changes.get();
            long[] r = attempts.get();
            assertEquals(0, r[2], what + " that returned but do not read back (" + r[0] + " whole, " + r[1]
                    + " refused)");
        } finally {
            pool.shutdown();
        }
    }

    private static Runnable adds(Consumer<Long> add) {
        return adds(add, ADDS);
    }

    private static Runnable adds(Consumer<Long> add, long count) {
        return () -> {
            for (long i = 0; i < count; i++) {
                add.accept(i);
            }
        };
    }

    @Test
    void everyExportThatReturnsReadsBack() throws Exception {
        CountMinSketch c = CountMinSketch.create(0.01, 0.01);
        attemptsWhileChanging("CountMinSketch exports", adds(c::add), c::toByteArray, CountMinSketch::fromByteArray);
        BloomFilter b = BloomFilter.create(ADDS, 0.01);
        attemptsWhileChanging("BloomFilter exports", adds(b::add), b::toByteArray, BloomFilter::fromByteArray);
        TopK t = TopK.create(64, 8);
        attemptsWhileChanging("TopK exports", adds(t::add), t::toByteArray, TopK::fromByteArray);
        CuckooFilter f = CuckooFilter.create(ADDS, 0.01);
        attemptsWhileChanging("CuckooFilter exports", adds(f::add), f::toByteArray, CuckooFilter::fromByteArray);
        HyperLogLog h = HyperLogLog.create(12);
        attemptsWhileChanging("HyperLogLog exports", adds(h::add), h::toByteArray, HyperLogLog::fromByteArray);
    }

    @Test
    void aMergeOverlappingAChangeOfItsArgumentIsRefused() throws Exception {
        TopK source = TopK.create(64, 8);
        attemptsWhileChanging("TopK merges", adds(source::add, 1_000_000), () -> {
            TopK dst = TopK.create(64, 8);
            dst.merge(source);
            return dst.toByteArray();
        }, TopK::fromByteArray);
    }

    /**
     * {@code MinHash.jaccard} reads its argument (and this sketch) whole, as a merge reads its
     * argument: before, it took no part in the change guard, so a change of either sketch while it
     * ran gave an estimate from a half-made change, without a word. A change of either is held
     * open here through its image (as a running add would); a second object over the argument's
     * memory counts as the argument.
     */
    @Test
    void aJaccardOverlappingAChangeOfEitherSketchIsRefused() {
        MinHash a = MinHash.create(256);
        MinHash b = MinHash.create(256);
        a.addAll(new long[] {1, 2, 3});
        b.addAll(new long[] {2, 3, 4});
        double expected = a.jaccard(b);
        for (MinHash changing : new MinHash[] {a, b}) {
            Native.Image held = OverlappingWrapTest.imageOf(changing);
            held.beginChange();
            try {
                assertThrows(ConcurrentModificationException.class, () -> a.jaccard(b));
                assertThrows(ConcurrentModificationException.class, () -> b.jaccard(a));
            } finally {
                held.endChange();
            }
        }
        assertEquals(expected, a.jaccard(b));
        assertEquals(1.0, a.jaccard(a));

        java.nio.ByteBuffer memory = TestKeys.direct(b.toByteArray());
        MinHash w1 = MinHash.wrap(memory);
        MinHash w2 = MinHash.wrap(memory.duplicate());
        Native.Image held = OverlappingWrapTest.imageOf(w1);
        held.beginChange();
        try {
            assertThrows(ConcurrentModificationException.class, () -> a.jaccard(w2));
        } finally {
            held.endChange();
        }
        assertEquals(expected, a.jaccard(w2));
        assertEquals(1.0, w1.jaccard(w2));
    }

    @Test
    void aDownsizeOverlappingAChangeIsRefused() throws Exception {
        AtomicReference<HyperLogLog> current = new AtomicReference<>(HyperLogLog.create(12));
        attemptsWhileChanging("downsized sketches", () -> {
            for (int round = 0; round < 1000; round++) {
                HyperLogLog h = HyperLogLog.create(12);
                current.set(h);
                for (long i = 0; i < 3000; i++) {
                    h.add(round * 1_000_000L + i);
                }
            }
        }, () -> current.get().downsize(10).toByteArray(), HyperLogLog::fromByteArray);
    }
}
