package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Buffers whose memory the JDK can release while the buffer object lives: a MemorySegment's
 * ByteBuffer (Java 22+) after its Arena is closed. Java code reading such a buffer gets an
 * IllegalStateException; native code reading its address would read unmapped memory and crash the
 * JVM (SIGSEGV), so every call must throw as Java access does. Skipped before Java 22 (the tests
 * are compiled for Java 17, so the java.lang.foreign API is reached by reflection).
 */
class ReleasedMemoryTest {
    @TempDir
    Path dir;

    /** An Arena (java.lang.foreign, Java 22+) with the calls the test needs. */
    private static final class Arena implements AutoCloseable {
        final Object arena;
        final Class<?> arenaClass;

        Arena(Object arena, Class<?> arenaClass) {
            this.arena = arena;
            this.arenaClass = arenaClass;
        }

        static Arena ofShared() throws ReflectiveOperationException {
            Class<?> c = Class.forName("java.lang.foreign.Arena");
            return new Arena(c.getMethod("ofShared").invoke(null), c);
        }

        /** {@code channel.map(READ_WRITE, 0, size, arena).asByteBuffer()}. */
        ByteBuffer map(FileChannel channel, long size) throws ReflectiveOperationException {
            Method map = FileChannel.class.getMethod(
                    "map", FileChannel.MapMode.class, long.class, long.class, arenaClass);
            return asByteBuffer(map.invoke(channel, FileChannel.MapMode.READ_WRITE, 0L, size, arena));
        }

        /** {@code arena.allocate(size, 8).asByteBuffer()}. */
        ByteBuffer allocate(long size) throws ReflectiveOperationException {
            Method allocate = arenaClass.getMethod("allocate", long.class, long.class);
            return asByteBuffer(allocate.invoke(arena, size, 8L));
        }

        private static ByteBuffer asByteBuffer(Object segment) throws ReflectiveOperationException {
            return (ByteBuffer) Class.forName("java.lang.foreign.MemorySegment").getMethod("asByteBuffer").invoke(segment);
        }

        @Override
        public void close() throws ReflectiveOperationException {
            try {
                arenaClass.getMethod("close").invoke(arena);
            } catch (InvocationTargetException e) {
                throw new IllegalStateException(e.getCause());
            }
        }
    }

    private static void assumeForeignMemory() {
        Assumptions.assumeTrue(Runtime.version().feature() >= 22, "java.lang.foreign is final from Java 22");
    }

    /** Maps {@code image} from a file into a shared Arena; returns the Arena and the buffer. */
    private Object[] mapped(byte[] image) throws Exception {
        Path file = Files.createTempFile(dir, "image", ".bin");
        Files.write(file, image);
        Arena arena = Arena.ofShared();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return new Object[] {arena, arena.map(ch, image.length)};
        }
    }

    /**
     * A sketch wrapped over a mapped segment, used after its Arena is closed: every call throws
     * IllegalStateException (as the buffer's own get does) instead of crashing the JVM, and wrapping
     * the closed buffer does too.
     */
    @Test
    void wrappedImagesOfAClosedArenaThrowInsteadOfCrashing() throws Exception {
        assumeForeignMemory();
        check(BloomFilter.create(1000, 0.01).toByteArray(), BloomFilter::wrap, b -> {
            BloomFilter f = BloomFilter.wrap(b);
            assertTrue(f.add(5L));
            return new Runnable[] {() -> f.contains(5L), () -> f.add(6L), () -> f.contains("k"),
                    () -> f.containsAll(new long[] {1, 2}), f::toByteArray, f::stats,
                    () -> SerializationTest.serialize(f)}; // Java serialization exports, so it throws too
        });
        SplitBlockBloomFilter parquet = SplitBlockBloomFilter.forParquet(1000, 0.01);
        check(parquet.toByteArray(), SplitBlockBloomFilter::wrap, b -> {
            SplitBlockBloomFilter f = SplitBlockBloomFilter.wrap(b);
            assertTrue(f.addHash(SplitBlockBloomFilter.parquetHash(5L)));
            return new Runnable[] {() -> f.containsHash(1), () -> f.addHash(2), () -> f.fold(1),
                    () -> f.foldToTargetFpp(0.01), f::bitset, () -> f.merge(parquet)};
        });
        check(denseHll(), HyperLogLog::wrap, b -> {
            HyperLogLog h = HyperLogLog.wrap(b);
            h.add(1L);
            return new Runnable[] {h::estimate, () -> h.add(2L), h::stats, () -> h.downsize(10)};
        });
        check(CountMinSketch.create(0.01, 0.01).toByteArray(), CountMinSketch::wrap, b -> {
            CountMinSketch c = CountMinSketch.wrap(b);
            c.add("k", 3);
            return new Runnable[] {() -> c.estimate("k"), () -> c.add(7L), c::total};
        });
        check(TopK.create(8, 16).toByteArray(), TopK::wrap, b -> {
            TopK t = TopK.wrap(b);
            t.add("k");
            return new Runnable[] {() -> t.estimate("k"), () -> t.add("j"), t::top, () -> SerializationTest.serialize(t)};
        });
    }

    /** A dense HyperLogLog's export (a small-mode one is compact and cannot be wrapped). */
    private static byte[] denseHll() {
        HyperLogLog h = HyperLogLog.create(12);
        h.densify();
        return h.toByteArray();
    }

    /**
     * Maps {@code image}, makes a sketch over it with {@code use} (which returns the calls to try),
     * closes the Arena, then expects every call and a new wrap to throw IllegalStateException.
     */
    private void check(byte[] image, Consumer<ByteBuffer> wrap,
            java.util.function.Function<ByteBuffer, Runnable[]> use) throws Exception {
        Object[] m = mapped(image);
        Arena arena = (Arena) m[0];
        ByteBuffer buffer = (ByteBuffer) m[1];
        Runnable[] calls = use.apply(buffer);
        arena.close();
        assertThrows(IllegalStateException.class, () -> buffer.get(0), "the JDK refuses the closed buffer");
        for (Runnable call : calls) {
            assertThrows(IllegalStateException.class, call::run);
        }
        assertThrows(IllegalStateException.class, () -> wrap.accept(buffer));
    }

    /**
     * A direct key buffer (or Parquet bitset) of a closed Arena: refused with IllegalStateException
     * before native code reads it; an empty one is not read at all.
     */
    @Test
    void keyBuffersOfAClosedArenaThrowInsteadOfBeingRead() throws Exception {
        assumeForeignMemory();
        BloomFilter bloom = BloomFilter.create(1000, 0.01);
        SplitBlockBloomFilter sbbf = SplitBlockBloomFilter.create(1000, 0.01);
        HyperLogLog hll = HyperLogLog.create(12);
        CountMinSketch cm = CountMinSketch.create(0.01, 0.01);
        TopK topk = TopK.create(8, 64);
        ByteBuffer key;
        ByteBuffer empty;
        Arena arena = Arena.ofShared();
        key = arena.allocate(64);
        empty = key.slice(0, 0);
        bloom.add(key);
        arena.close();
        Runnable[] calls = {() -> bloom.add(key), () -> bloom.contains(key), () -> bloom.addConcurrent(key),
                () -> sbbf.add(key), () -> sbbf.contains(key), () -> sbbf.containsConcurrent(key),
                () -> SplitBlockBloomFilter.parquetHash(key), () -> SplitBlockBloomFilter.fromParquetBitset(key, 0.01),
                () -> hll.add(key), () -> cm.add(key), () -> cm.estimate(key), () -> topk.add(key),
                () -> topk.estimate(key), () -> CuckooFilter.create(100, 0.01).count(key),
                () -> CountingBloomFilter.create(100, 0.01).remove(key), () -> UltraLogLog.create(10).add(key),
                () -> MinHash.create(16).add(key), () -> ExaLogLog.create(10).add(key),
                () -> BinaryFuseFilter.build(new long[] {1}, 8, 0).contains(key)};
        for (Runnable call : calls) {
            assertThrows(IllegalStateException.class, call::run);
        }
        // Zero bytes are never read: the empty key is hashed as any empty key.
        assertEquals(bloom.contains(new byte[0]), bloom.contains(empty));
    }
}
