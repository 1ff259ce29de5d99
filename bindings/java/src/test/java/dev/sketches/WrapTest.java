package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Zero-copy images in memory-mapped files. */
class WrapTest {
    @TempDir
    Path dir;

    @Test
    void mappedFilesAreQueriedAndUpdatedInPlace() throws IOException {
        BloomFilter f = BloomFilter.create(10_000, 0.01, 5);
        f.addAll(TestKeys.strings("m-", 0, 10_000));
        Path file = dir.resolve("bloom.img");
        Files.write(file, f.toByteArray());

        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
            BloomFilter ro = BloomFilter.wrapVerified(map);
            assertTrue(ro.contains("m-1"));
            assertEquals(f.stats(), ro.stats());
            assertThrows(ReadOnlyBufferException.class, () -> ro.add("x"));
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, ch.size());
            BloomFilter rw = BloomFilter.wrap(map);
            rw.add("written-through-the-map");
            map.force();
        }
        BloomFilter reread = BloomFilter.wrap(TestKeys.direct(Files.readAllBytes(file)));
        assertTrue(reread.contains("written-through-the-map"));
        assertEquals(10_001, reread.stats().addCalls());
        // The checksum belongs to the export: a live image changed since fails verification.
        assertEquals(Status.CHECKSUM_MISMATCH,
                assertThrows(SketchException.class, () -> BloomFilter.fromByteArray(Files.readAllBytes(file))).status());
    }

    @Test
    void everyFamilyWrapsItsExport() throws IOException {
        HyperLogLog h = HyperLogLog.create(14);
        h.addAll(TestKeys.longs(0, 100_000));
        Path file = dir.resolve("hll.img");
        Files.write(file, h.toByteArray());
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            HyperLogLog m = HyperLogLog.wrapVerified(ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size()));
            assertEquals(h.estimate(), m.estimate());
            HyperLogLog sum = HyperLogLog.create(14);
            sum.merge(m); // a mapped sketch merges like any other
            assertEquals(h.registerEstimate(), sum.registerEstimate());
        }
        // A static filter built once and served from a read-only map.
        BinaryFuseFilter fuse = BinaryFuseFilter.build(TestKeys.strings("f-", 0, 50_000), 16, 9);
        Path fuseFile = dir.resolve("fuse.img");
        Files.write(fuseFile, fuse.toByteArray());
        try (FileChannel ch = FileChannel.open(fuseFile, StandardOpenOption.READ)) {
            BinaryFuseFilter m = BinaryFuseFilter.wrapVerified(ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size()));
            assertEquals(fuse.stats(), m.stats());
            for (boolean b : m.containsAll(TestKeys.strings("f-", 0, 50_000))) {
                assertTrue(b);
            }
        }
        ExaLogLog ell = ExaLogLog.create(12, ExaLogLog.D20, 0);
        ell.addAll(TestKeys.longs(0, 100_000));
        Path ellFile = dir.resolve("ell.img");
        Files.write(ellFile, ell.toByteArray());
        try (FileChannel ch = FileChannel.open(ellFile, StandardOpenOption.READ)) {
            ExaLogLog m = ExaLogLog.wrapVerified(ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size()));
            assertEquals(ell.estimate(), m.estimate());
            ExaLogLog sum = ExaLogLog.create(10, ExaLogLog.D20, 0);
            sum.merge(m);
            assertEquals(ell.downsize(10, ExaLogLog.D20).mlEstimate(), sum.mlEstimate());
        }
    }
}
