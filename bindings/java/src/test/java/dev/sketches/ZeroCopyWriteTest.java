package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@code writeTo(OutputStream)} without a copy of the image: the same bytes as {@code
 * toByteArray()} for every family (owned and wrapped, HyperLogLog small and dense, a folded
 * split-block filter, a Parquet bitset, merged sketches), extra heap bounded by the 64 KiB chunk
 * whatever the image's size, and a change during the write never giving a torn image under a
 * valid checksum.
 */
class ZeroCopyWriteTest {
    /** The most writeTo copies at once (ImageStream.WRITE_CHUNK_BYTES): 64 KiB. */
    private static final int CHUNK = 64 << 10;
    private static final List<String> GOLDEN = List.of("bloom", "sbbf", "sbbf_parquet", "counting", "cuckoo", "fuse8",
            "fuse16", "hll_small", "hll_dense", "ull", "ell", "ell_d24", "countmin", "topk", "minhash");

    private static Object call(Object target, String name) throws Exception {
        try {
            return target.getClass().getMethod(name).invoke(target);
        } catch (InvocationTargetException e) {
            throw (Exception) e.getCause();
        }
    }

    /** What {@code sketch.writeTo} writes, checked against the count it returns. */
    private static byte[] written(Object sketch) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        long n;
        try {
            n = (long) sketch.getClass().getMethod("writeTo", OutputStream.class).invoke(sketch, out);
        } catch (InvocationTargetException e) {
            throw (Exception) e.getCause();
        }
        assertEquals(out.size(), n, sketch.getClass().getSimpleName() + ".writeTo's count");
        return out.toByteArray();
    }

    /**
     * A wrap (the class's {@code wrap(ByteBuffer)}) of a copy of {@code sketch}'s live image (a
     * small HyperLogLog's is longer than its compact export).
     */
    private static Object wrapped(Object sketch) throws Exception {
        ByteBuffer live = ((ByteBuffer) call(sketch, "image")).duplicate();
        byte[] bytes = new byte[live.remaining()];
        live.get(bytes);
        Method wrap = sketch.getClass().getMethod("wrap", ByteBuffer.class);
        return wrap.invoke(null, TestKeys.direct(bytes));
    }

    private static void assertSameBytes(Object sketch, String what) throws Exception {
        byte[] expected = (byte[]) call(sketch, "toByteArray");
        assertArrayEquals(expected, written(sketch), what + ": writeTo differs from toByteArray");
    }

    @Test
    void everyGoldenImageOwnedAndWrappedWritesItsExport() throws Exception {
        for (String name : GOLDEN) {
            byte[] golden = TestKeys.goldenImage(name);
            Object owned = Sketches.readSketch(new ByteArrayInputStream(golden));
            assertSameBytes(owned, name + " (owned)");
            assertArrayEquals(golden, written(owned), name + ": writeTo differs from the golden image");
            assertSameBytes(wrapped(owned), name + " (wrapped)");
        }
    }

    @Test
    void imagesOfManyChunksFoldedParquetAndMergedWriteTheirExport() throws Exception {
        BloomFilter a = BloomFilter.create(400_000, 0.01);
        BloomFilter b = BloomFilter.create(400_000, 0.01);
        for (String k : TestKeys.strings("a", 0, 20_000)) {
            a.add(k);
        }
        for (String k : TestKeys.strings("b", 0, 20_000)) {
            b.add(k);
        }
        assertTrue(a.imageBytes() > 4 * CHUNK, "the image spans several chunks");
        a.merge(b);
        assertSameBytes(a, "merged Bloom filter of several chunks");
        assertSameBytes(wrapped(a), "wrapped merged Bloom filter");

        HyperLogLog small = HyperLogLog.create(14);
        small.add("one");
        small.add("two");
        HyperLogLog dense = HyperLogLog.create(14);
        for (String k : TestKeys.strings("h", 0, 50_000)) {
            dense.add(k);
        }
        assertTrue(small.toByteArray().length < small.imageBytes(), "small mode exports compact");
        assertSameBytes(small, "small HyperLogLog");
        assertSameBytes(wrapped(small), "wrapped small HyperLogLog");
        HyperLogLog merged = HyperLogLog.create(14);
        merged.merge(small);
        merged.merge(dense);
        assertSameBytes(merged, "merged HyperLogLog");

        SplitBlockBloomFilter s = SplitBlockBloomFilter.forParquet(200_000, 0.01);
        for (String k : TestKeys.strings("s", 0, 10_000)) {
            s.add(k);
        }
        SplitBlockBloomFilter w = (SplitBlockBloomFilter) wrapped(s);
        long before = s.imageBytes();
        s.fold(2);
        w.fold(2);
        assertTrue(s.imageBytes() < before, "the fold shortened the image");
        assertSameBytes(s, "folded split-block filter");
        assertSameBytes(w, "folded wrapped split-block filter (its buffer longer than the image)");
        assertEquals(s.toByteArray().length, written(w).length, "the recorded length is what is written");

        byte[] bitset = new byte[256 << 10];
        new Random(7).nextBytes(bitset);
        SplitBlockBloomFilter parquet = SplitBlockBloomFilter.fromParquetBitset(bitset, 0.01);
        assertSameBytes(parquet, "Parquet-loaded bitset");
        assertSameBytes(SplitBlockBloomFilter.fromParquetBitset(TestKeys.direct(bitset), 0.01),
                "Parquet bitset from a direct buffer");
    }

    /** A sink that counts the bytes and keeps none. */
    private static final class CountingSink extends OutputStream {
        long bytes;

        @Override
        public void write(int b) {
            bytes++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            bytes += len;
        }
    }

    @Test
    void extraHeapDoesNotScaleWithTheImage() throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long self = Thread.currentThread().getId();
        BloomFilter big = BloomFilter.create(56_000_000, 0.01);
        big.add("x");
        assertTrue(big.imageBytes() >= 60L << 20, "a 64 MiB filter: " + big.imageBytes());
        BloomFilter smallOne = BloomFilter.create(10, 0.01);
        smallOne.writeTo(new CountingSink()); // loads the classes the write uses
        big.writeTo(new CountingSink());
        CountingSink sink = new CountingSink();
        long from = threads.getThreadAllocatedBytes(self);
        long n = big.writeTo(sink);
        long allocated = threads.getThreadAllocatedBytes(self) - from;
        assertEquals(big.imageBytes(), n);
        assertEquals(n, sink.bytes);
        assertTrue(allocated < 1L << 20, "writeTo of a " + n + "-byte image allocated " + allocated
                + " bytes of heap; the chunk is " + CHUNK);
    }

    /** A stream that runs {@code hook} once, after its first write (the header's chunk). */
    private static final class HookedStream extends ByteArrayOutputStream {
        private final Runnable hook;
        private boolean ran;

        HookedStream(Runnable hook) {
            this.hook = hook;
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            super.write(b, off, len);
            if (!ran) {
                ran = true;
                hook.run();
            }
        }
    }

    private static BloomFilter filterOfManyChunks() {
        BloomFilter f = BloomFilter.create(400_000, 0.01);
        for (String k : TestKeys.strings("k", 0, 10_000)) {
            f.add(k);
        }
        return f;
    }

    @Test
    void aGuardedChangeDuringTheWriteStopsItBeforeATornImageIsWritten() throws Exception {
        BloomFilter f = filterOfManyChunks();
        HookedStream out = new HookedStream(() -> {
            for (String k : TestKeys.strings("late", 0, 1_000)) {
                f.add(k);
            }
        });
        ConcurrentModificationException e = assertThrows(ConcurrentModificationException.class, () -> f.writeTo(out));
        assertTrue(e.getMessage().contains("stopped after " + CHUNK + " of"), e.getMessage());
        assertEquals(CHUNK, out.size(), "only the chunk copied before the change");
        assertThrows(EOFException.class, () -> BloomFilter.readFrom(new ByteArrayInputStream(out.toByteArray())));

        // A change through another object over the same memory (a wrap of image()) alike.
        BloomFilter g = filterOfManyChunks();
        ByteBuffer shared = TestKeys.direct(g.toByteArray());
        BloomFilter one = BloomFilter.wrap(shared);
        BloomFilter two = BloomFilter.wrap(shared.duplicate());
        HookedStream out2 = new HookedStream(() -> {
            for (String k : TestKeys.strings("late", 0, 1_000)) {
                two.add(k);
            }
        });
        assertThrows(ConcurrentModificationException.class, () -> one.writeTo(out2));
        assertEquals(CHUNK, out2.size());
    }

    @Test
    void aConcurrentAddDuringTheWriteFailsTheChecksumNeverTears() throws Exception {
        BloomFilter f = filterOfManyChunks();
        HookedStream out = new HookedStream(() -> {
            for (String k : TestKeys.strings("late", 0, 1_000)) {
                f.addConcurrent(k);
            }
        });
        // Concurrent adds move no stamp: every byte goes out, then the checksum taken again has
        // moved and the writer is told (before, the bytes failed only when read).
        java.util.ConcurrentModificationException told =
                assertThrows(java.util.ConcurrentModificationException.class, () -> f.writeTo(out));
        assertTrue(told.getMessage().contains("all " + f.imageBytes() + " bytes were written"), told.getMessage());
        assertEquals(f.imageBytes(), out.toByteArray().length);
        SketchException e = assertThrows(SketchException.class,
                () -> BloomFilter.readFrom(new ByteArrayInputStream(out.toByteArray())));
        assertEquals(Status.CHECKSUM_MISMATCH, e.status());
        // Written again with no add running, the image reads back with every key.
        ByteArrayOutputStream again = new ByteArrayOutputStream();
        f.writeTo(again);
        BloomFilter back = BloomFilter.readFrom(new ByteArrayInputStream(again.toByteArray()));
        assertTrue(back.contains("late999") && back.contains("k0"));
    }
}
