package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several sketch objects over overlapping memory of one process: {@code wrap} called twice on one
 * buffer (a MappedByteBuffer shared by two request handlers, a slice of one direct buffer), or on
 * the view {@code image()} of another sketch. They take turns as one object: a change through one
 * while a change through another runs throws ConcurrentModificationException before native code
 * runs and changes nothing, and so does an export or a merge that reads one of them. Before, each
 * object had a guard of its own: two threads adding through two wraps of one buffer lost adds
 * (Count-Min totals below the adds that returned), and an export through one object returned an
 * image torn by a change through the other under a valid checksum.
 *
 * <p>The deterministic cases hold an object's change open through its package-private image
 * ({@code beginChange}, as a running add would), then call the other object.
 */
class OverlappingWrapTest {
    @TempDir
    Path dir;

    /** The image (with its change guard) a sketch object holds. */
    static Native.Image imageOf(Object sketch) {
        try {
            Field f = sketch.getClass().getDeclaredField("img");
            f.setAccessible(true);
            return (Native.Image) f.get(sketch);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    /** A family's calls, on objects of its class. */
    record Family(String name, Supplier<Object> create, Function<ByteBuffer, Object> wrap,
            BiConsumer<Object, Long> add, Function<Object, byte[]> export, Function<byte[], Object> read,
            BiConsumer<Object, Object> merge) {}

    static List<Family> families() {
        List<Family> all = new ArrayList<>();
        all.add(new Family("BloomFilter", () -> BloomFilter.create(1000, 0.01), BloomFilter::wrap,
                (s, k) -> ((BloomFilter) s).add((long) k), s -> ((BloomFilter) s).toByteArray(),
                BloomFilter::fromByteArray, (d, s) -> ((BloomFilter) d).merge((BloomFilter) s)));
        all.add(new Family("SplitBlockBloomFilter", () -> SplitBlockBloomFilter.create(1000, 0.01),
                SplitBlockBloomFilter::wrap, (s, k) -> ((SplitBlockBloomFilter) s).add((long) k),
                s -> ((SplitBlockBloomFilter) s).toByteArray(), SplitBlockBloomFilter::fromByteArray,
                (d, s) -> ((SplitBlockBloomFilter) d).merge((SplitBlockBloomFilter) s)));
        all.add(new Family("CountingBloomFilter", () -> CountingBloomFilter.create(1000, 0.01),
                CountingBloomFilter::wrap, (s, k) -> ((CountingBloomFilter) s).add((long) k),
                s -> ((CountingBloomFilter) s).toByteArray(), CountingBloomFilter::fromByteArray,
                (d, s) -> ((CountingBloomFilter) d).merge((CountingBloomFilter) s)));
        all.add(new Family("CuckooFilter", () -> CuckooFilter.create(1000, 0.01), CuckooFilter::wrap,
                (s, k) -> ((CuckooFilter) s).add((long) k), s -> ((CuckooFilter) s).toByteArray(),
                CuckooFilter::fromByteArray, (d, s) -> ((CuckooFilter) d).merge((CuckooFilter) s)));
        all.add(new Family("HyperLogLog", () -> HyperLogLog.create(10), HyperLogLog::wrap,
                (s, k) -> ((HyperLogLog) s).add((long) k), s -> ((HyperLogLog) s).toByteArray(),
                HyperLogLog::fromByteArray, (d, s) -> ((HyperLogLog) d).merge((HyperLogLog) s)));
        all.add(new Family("UltraLogLog", () -> UltraLogLog.create(10), UltraLogLog::wrap,
                (s, k) -> ((UltraLogLog) s).add((long) k), s -> ((UltraLogLog) s).toByteArray(),
                UltraLogLog::fromByteArray, (d, s) -> ((UltraLogLog) d).merge((UltraLogLog) s)));
        all.add(new Family("ExaLogLog", () -> ExaLogLog.create(10, ExaLogLog.D20, 0), ExaLogLog::wrap,
                (s, k) -> ((ExaLogLog) s).add((long) k), s -> ((ExaLogLog) s).toByteArray(),
                ExaLogLog::fromByteArray, (d, s) -> ((ExaLogLog) d).merge((ExaLogLog) s)));
        all.add(new Family("CountMinSketch", () -> CountMinSketch.create(0.01, 0.01),
                CountMinSketch::wrap, (s, k) -> ((CountMinSketch) s).add((long) k),
                s -> ((CountMinSketch) s).toByteArray(), CountMinSketch::fromByteArray,
                (d, s) -> ((CountMinSketch) d).merge((CountMinSketch) s)));
        all.add(new Family("TopK", () -> TopK.create(16, 8), TopK::wrap,
                (s, k) -> ((TopK) s).add((long) k), s -> ((TopK) s).toByteArray(), TopK::fromByteArray,
                (d, s) -> ((TopK) d).merge((TopK) s)));
        all.add(new Family("MinHash", () -> MinHash.create(64), MinHash::wrap,
                (s, k) -> ((MinHash) s).add((long) k), s -> ((MinHash) s).toByteArray(), MinHash::fromByteArray,
                (d, s) -> ((MinHash) d).merge((MinHash) s)));
        return all;
    }

    /** The live image bytes of a new sketch of the family: what {@code wrap} takes. */
    private static byte[] liveImage(Family f) {
        return bytes(imageOf(f.create().get()).view());
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.capacity()];
        b.duplicate().clear().get(out);
        return out;
    }

    /**
     * With a change of {@code holder} held open: a change, an export and a merge-read through
     * {@code other} throw ConcurrentModificationException and change nothing in {@code memory};
     * afterwards both work again.
     */
    private static void takeTurns(Family f, Object holder, Object other, ByteBuffer memory) {
        Native.Image held = imageOf(holder);
        held.beginChange();
        try {
            byte[] before = bytes(memory);
            assertThrows(ConcurrentModificationException.class, () -> f.add().accept(other, 7L),
                    f.name() + ": a change through the other object");
            assertArrayEquals(before, bytes(memory), f.name() + ": the refused change changed the memory");
            assertThrows(ConcurrentModificationException.class, () -> f.export().apply(other),
                    f.name() + ": an export through the other object");
            Object dst = f.create().get();
            byte[] dstBefore = f.export().apply(dst);
            assertThrows(ConcurrentModificationException.class, () -> f.merge().accept(dst, other),
                    f.name() + ": a merge reading the other object");
            assertArrayEquals(dstBefore, f.export().apply(dst), f.name() + ": the refused merge changed its destination");
        } finally {
            held.endChange();
        }
        f.add().accept(other, 8L);
        f.add().accept(holder, 9L);
        f.read().apply(f.export().apply(other));
    }

    @Test
    void twoWrapsOfOneBufferTakeTurnsInEveryFamily() {
        for (Family f : families()) {
            ByteBuffer memory = TestKeys.direct(liveImage(f));
            Object a = f.wrap().apply(memory);
            Object b = f.wrap().apply(memory.duplicate());
            takeTurns(f, a, b, memory);
            takeTurns(f, b, a, memory);
        }
    }

    @Test
    void aMappedFileWrappedTwiceTakesTurns() throws IOException {
        Path file = dir.resolve("cms.img");
        Files.write(file, CountMinSketch.create(0.01, 0.01).toByteArray());
        Family cms = families().stream().filter(f -> f.name().equals("CountMinSketch")).findFirst().orElseThrow();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size());
            CountMinSketch a = CountMinSketch.wrap(map);
            CountMinSketch b = CountMinSketch.wrap(map.slice()); // one mapping: the same addresses
            takeTurns(cms, a, b, map);
            // Two mappings of the file are two address ranges: not the same memory to this process.
            MappedByteBuffer second = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size());
            CountMinSketch c = CountMinSketch.wrap(second);
            Native.Image held = imageOf(a);
            held.beginChange();
            try {
                assertDoesNotThrow(() -> c.add(1L), "a second mapping is not seen (documented)");
            } finally {
                held.endChange();
            }
        }
    }

    @Test
    void aWrapOfAnotherSketchsViewTakesTurnsWithIt() {
        for (Family f : families()) {
            Object owner = f.create().get();
            ByteBuffer view = imageOf(owner).view(); // what image() returns
            Object reader = f.wrap().apply(view); // read-only: its changes throw ReadOnlyBufferException
            Native.Image held = imageOf(owner);
            held.beginChange();
            try {
                assertThrows(ConcurrentModificationException.class, () -> f.export().apply(reader),
                        f.name() + ": an export of the wrapped view during a change of its owner");
                Object dst = f.create().get();
                assertThrows(ConcurrentModificationException.class, () -> f.merge().accept(dst, reader),
                        f.name() + ": a merge reading the wrapped view during a change of its owner");
            } finally {
                held.endChange();
            }
            f.read().apply(f.export().apply(reader));
        }
    }

    /** MinHash images of k registers written at {@code offset} of {@code memory}; returns its length. */
    private static int putMinHash(ByteBuffer memory, int offset, int k) {
        byte[] image = MinHash.create(k).toByteArray();
        memory.put(offset, image);
        return image.length;
    }

    @Test
    void partlyOverlappingImagesTakeTurns() {
        int len = (int) MinHash.imageBytes(1024);
        ByteBuffer memory = Native.allocate(3L * len);
        putMinHash(memory, 0, 1024);
        MinHash a = MinHash.wrap(memory.slice(0, len));
        int at = len / 2 / 64 * 64; // inside a's registers, past its header
        putMinHash(memory, at, 1024);
        MinHash b = MinHash.wrap(memory.slice(at, len));
        Family mh = families().stream().filter(f -> f.name().equals("MinHash")).findFirst().orElseThrow();
        takeTurns(mh, a, b, memory);
        takeTurns(mh, b, a, memory);
        // Memory of the same buffer that overlaps neither: a separate object, no turns.
        int n = putMinHash(memory, 2 * len, 64);
        MinHash beside = MinHash.wrap(memory.slice(2 * len, n));
        Native.Image held = imageOf(a);
        held.beginChange();
        try {
            assertDoesNotThrow(() -> beside.add(1L));
            assertDoesNotThrow(() -> beside.toByteArray());
        } finally {
            held.endChange();
        }
    }

    @Test
    void aWrapBridgingTwoSeparateObjectsExcludesBoth() {
        // a and c do not overlap; b, wrapped after them, overlaps the end of a and the start of c.
        int small = (int) MinHash.imageBytes(64);
        int large = (int) MinHash.imageBytes(256);
        int atB = small / 2 / 64 * 64;
        int atC = small + 64;
        ByteBuffer memory = Native.allocate(atB + large + small);
        putMinHash(memory, 0, 64);
        MinHash a = MinHash.wrap(memory.slice(0, small));
        putMinHash(memory, atC, 64);
        MinHash c = MinHash.wrap(memory.slice(atC, small));
        putMinHash(memory, atB, 256);
        MinHash b = MinHash.wrap(memory.slice(atB, large));
        putMinHash(memory, atC, 64); // c's header again (b's image covered it)
        assertEquals(true, atB + large > atC && atB < small, "the layout bridges a and c");

        Native.Image heldA = imageOf(a);
        heldA.beginChange();
        try {
            assertThrows(ConcurrentModificationException.class, () -> b.add(1L));
            assertDoesNotThrow(() -> c.add(1L), "a and c do not overlap: they need not take turns");
        } finally {
            heldA.endChange();
        }
        Native.Image heldC = imageOf(c);
        heldC.beginChange();
        try {
            assertThrows(ConcurrentModificationException.class, () -> b.add(2L));
            assertDoesNotThrow(() -> a.add(2L));
        } finally {
            heldC.endChange();
        }
        byte[] before = bytes(memory);
        Native.Image heldB = imageOf(b);
        heldB.beginChange();
        try {
            assertThrows(ConcurrentModificationException.class, () -> a.add(3L));
            assertThrows(ConcurrentModificationException.class, () -> c.add(3L));
            assertThrows(ConcurrentModificationException.class, () -> a.toByteArray());
            assertThrows(ConcurrentModificationException.class, () -> c.toByteArray());
        } finally {
            heldB.endChange();
        }
        assertArrayEquals(before, bytes(memory), "the refused changes changed nothing");
        // A refused change of b gives a's guard back untouched: an export of a is not disturbed.
        heldC.beginChange();
        try {
            int changes = imageOf(a).beginWholeRead();
            assertThrows(ConcurrentModificationException.class, () -> b.add(4L));
            imageOf(a).endWholeRead(changes);
        } finally {
            heldC.endChange();
        }
        b.add(5L);
        a.merge(c);
        c.merge(a);
    }

    @Test
    void objectsLinkedThroughAnOverlapMergeWithEachOther() {
        // b overlaps a; d, wrapped last, overlaps b only: d joins the turns of a and b, and a merge
        // between a and d (which share that guard without overlapping) is not refused.
        int small = (int) MinHash.imageBytes(64);
        int large = (int) MinHash.imageBytes(256);
        int atB = small / 2 / 64 * 64;
        int atD = atB + large - small / 2 / 64 * 64;
        ByteBuffer memory = Native.allocate(atD + small);
        putMinHash(memory, 0, 64);
        MinHash a = MinHash.wrap(memory.slice(0, small));
        putMinHash(memory, atB, 256);
        MinHash b = MinHash.wrap(memory.slice(atB, large));
        putMinHash(memory, atD, 64);
        MinHash d = MinHash.wrap(memory.slice(atD, small));
        assertEquals(true, atD >= small && atD < atB + large, "the layout: d overlaps b, not a");
        a.add(1L);
        d.add(2L);
        d.merge(a);
        a.merge(d);
        assertEquals(1.0, a.jaccard(d));
        Native.Image heldB = imageOf(b);
        heldB.beginChange();
        try {
            assertThrows(ConcurrentModificationException.class, () -> d.add(3L));
            assertThrows(ConcurrentModificationException.class, () -> a.add(3L));
        } finally {
            heldB.endChange();
        }
    }

    @Test
    void wrapsOfOneBufferKeepOneRegionAndGoneObjectsReleaseTheirs() throws InterruptedException {
        ByteBuffer memory = TestKeys.direct(liveImage(families().get(0)));
        BloomFilter kept = BloomFilter.wrap(memory);
        int regions = Native.Regions.size();
        // A wrap per request over one long-lived buffer: the region of the group does not grow.
        for (int i = 0; i < 10_000; i++) {
            BloomFilter.wrap(memory.duplicate()).contains(i);
        }
        // (at most as many: regions of other tests' objects may go meanwhile)
        assertTrue(Native.Regions.size() <= regions, "regions after 10,000 wraps of the same memory");
        kept.add(1L);
        // Once no object over it is reachable, its region goes (its guard is held weakly).
        ByteBuffer other = TestKeys.direct(liveImage(families().get(0)));
        long at = Native.address(other);
        BloomFilter.wrap(other).add(2L);
        assertTrue(Native.Regions.covers(at));
        for (int i = 0; i < 100 && Native.Regions.covers(at); i++) {
            System.gc();
            Thread.sleep(10); // the reference handler thread enqueues cleared references
        }
        assertFalse(Native.Regions.covers(at), "the region of an unreachable wrap");
        assertTrue(Native.Regions.covers(Native.address(memory)), "the region of a reachable wrap");
        java.lang.ref.Reference.reachabilityFence(kept);
        java.lang.ref.Reference.reachabilityFence(other);
    }

    /**
     * Runs 2 threads of CALLS adds, each through its own object over one memory; returns the adds
     * that returned (the others threw ConcurrentModificationException).
     */
    private static long race(LongConsumer first, LongConsumer second) throws Exception {
        final int calls = 200_000;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<Long>> runs = new ArrayList<>();
            for (LongConsumer add : List.of(first, second)) {
                long base = runs.size() * (long) calls;
                runs.add(pool.submit(() -> {
                    long accepted = 0;
                    for (long i = 0; i < calls; i++) {
                        try {
                            add.accept(base + i);
                            accepted++;
                        } catch (ConcurrentModificationException e) {
                            // refused: not in the sketch
                        }
                    }
                    return accepted;
                }));
            }
            long accepted = 0;
            for (Future<Long> run : runs) {
                accepted += run.get();
            }
            return accepted;
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void twoThreadsAddingThroughTwoWrapsLoseNoAdd() throws Exception {
        ByteBuffer cmsMemory = TestKeys.direct(CountMinSketch.create(0.001, 0.01).toByteArray());
        CountMinSketch c1 = CountMinSketch.wrap(cmsMemory);
        CountMinSketch c2 = CountMinSketch.wrap(cmsMemory.duplicate());
        assertEquals(race(c1::add, c2::add), c1.total(), "CountMinSketch: the adds that returned and the total");
        ByteBuffer bloomMemory = TestKeys.direct(BloomFilter.create(1_000_000, 0.01).toByteArray());
        BloomFilter b1 = BloomFilter.wrap(bloomMemory);
        BloomFilter b2 = BloomFilter.wrap(bloomMemory.duplicate());
        assertEquals(race(b1::add, b2::add), b2.stats().addCalls(), "BloomFilter: the adds that returned and addCalls");
    }
}
