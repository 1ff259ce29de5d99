package dev.sketches;

import static dev.sketches.TestKeys.golden;
import static dev.sketches.TestKeys.goldenImage;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The golden images of tests/golden (written by the Rust core, the C ABI's implementation; their
 * inputs are documented in tests/tests/golden.rs): read from Java, answered, re-exported byte for
 * byte, and built again from Java from the same inputs, with single calls and with batches, giving
 * the same bytes.
 */
class GoldenTest {
    private static final int KEYS = 1000;
    private static final String[] GOLDEN_KEYS = TestKeys.strings("golden-", 0, KEYS);

    @Test
    void bloom() {
        byte[] g = goldenImage("bloom");
        for (BloomFilter f : new BloomFilter[] {BloomFilter.fromByteArray(g), BloomFilter.wrapVerified(TestKeys.direct(g))}) {
            for (int i = 0; i < KEYS; i++) {
                assertTrue(f.contains(golden(i)));
            }
            assertTrue(f.contains(7L));
            assertEquals(KEYS + 1, f.stats().addCalls());
            assertArrayEquals(g, f.toByteArray());
        }
        BloomFilter single = BloomFilter.create(KEYS, 0.01, 42);
        for (String k : GOLDEN_KEYS) {
            single.add(k);
        }
        single.add(7L);
        assertArrayEquals(g, single.toByteArray());
        BloomFilter batch = BloomFilter.create(KEYS, 0.01, 42);
        batch.addAll(GOLDEN_KEYS);
        batch.addAll(new long[] {7});
        assertArrayEquals(g, batch.toByteArray());
    }

    @Test
    void splitBlock() {
        for (boolean parquet : new boolean[] {false, true}) {
            byte[] g = goldenImage(parquet ? "sbbf_parquet" : "sbbf");
            SplitBlockBloomFilter f = SplitBlockBloomFilter.fromByteArray(g);
            for (int i = 0; i < KEYS; i++) {
                assertTrue(f.contains(golden(i)));
            }
            assertTrue(f.contains(7L));
            assertEquals(KEYS + 1, f.stats().addCalls());
            assertArrayEquals(g, f.toByteArray());
            SplitBlockBloomFilter single =
                    parquet ? SplitBlockBloomFilter.forParquet(KEYS, 0.01) : SplitBlockBloomFilter.create(KEYS, 0.01, 42);
            for (String k : GOLDEN_KEYS) {
                single.add(k);
            }
            single.add(7L);
            assertArrayEquals(g, single.toByteArray());
            SplitBlockBloomFilter batch =
                    parquet ? SplitBlockBloomFilter.forParquet(KEYS, 0.01) : SplitBlockBloomFilter.create(KEYS, 0.01, 42);
            batch.addAll(TestKeys.bytes(GOLDEN_KEYS));
            batch.addAll(new long[] {7});
            assertArrayEquals(g, batch.toByteArray());
        }
    }

    @Test
    void counting() {
        byte[] g = goldenImage("counting");
        CountingBloomFilter f = CountingBloomFilter.fromByteArray(g);
        for (int i = 1; i < KEYS; i++) {
            assertTrue(f.contains(golden(i)));
        }
        assertTrue(f.contains(7L));
        assertEquals(KEYS + 1, f.stats().items());
        assertArrayEquals(g, f.toByteArray());
        CountingBloomFilter single = CountingBloomFilter.create(KEYS, 0.01, 42);
        for (String k : GOLDEN_KEYS) {
            single.add(k);
        }
        single.add(7L);
        single.add(7L);
        assertTrue(single.remove(golden(0)));
        assertArrayEquals(g, single.toByteArray());
        CountingBloomFilter batch = CountingBloomFilter.create(KEYS, 0.01, 42);
        batch.addAll(GOLDEN_KEYS);
        batch.addAll(new long[] {7, 7});
        assertArrayEquals(new boolean[] {true}, batch.removeAll(new String[] {golden(0)}));
        assertArrayEquals(g, batch.toByteArray());
    }

    @Test
    void cuckoo() {
        byte[] g = goldenImage("cuckoo");
        CuckooFilter f = CuckooFilter.fromByteArray(g);
        for (int i = 1; i < KEYS; i++) {
            assertTrue(f.contains(golden(i)));
        }
        assertTrue(f.contains(7L));
        assertEquals(KEYS, f.stats().items());
        assertArrayEquals(g, f.toByteArray());
        CuckooFilter single = CuckooFilter.create(KEYS, 0.01, 42);
        for (String k : GOLDEN_KEYS) {
            assertTrue(single.add(k));
        }
        assertTrue(single.add(7L));
        assertTrue(single.remove(golden(0)));
        assertArrayEquals(g, single.toByteArray());
        CuckooFilter batch = CuckooFilter.create(KEYS, 0.01, 42);
        assertEquals(KEYS, batch.addAll(GOLDEN_KEYS));
        assertEquals(1, batch.addAll(new long[] {7}));
        assertTrue(batch.remove(golden(0).getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        assertArrayEquals(g, batch.toByteArray());
        CuckooFilter removals = CuckooFilter.create(KEYS, 0.01, 42);
        assertEquals(KEYS, removals.addAll(TestKeys.bytes(GOLDEN_KEYS)));
        assertEquals(1, removals.addAll(new long[] {7}));
        assertArrayEquals(new boolean[] {true}, removals.removeAll(new String[] {golden(0)}));
        assertArrayEquals(g, removals.toByteArray());
    }

    /** The golden keys as bytes plus the integer key 7 as its 8 little-endian bytes (one build). */
    private static byte[][] goldenKeysAndSeven() {
        byte[][] keys = Arrays.copyOf(TestKeys.bytes(GOLDEN_KEYS), KEYS + 1);
        keys[KEYS] = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(7).array();
        return keys;
    }

    @Test
    void binaryFuse() {
        for (int bits : new int[] {8, 16}) {
            byte[] g = goldenImage("fuse" + bits);
            BinaryFuseFilter[] read = {BinaryFuseFilter.fromByteArray(g), BinaryFuseFilter.wrapVerified(TestKeys.direct(g))};
            for (BinaryFuseFilter f : read) {
                for (int i = 0; i < KEYS; i++) {
                    assertTrue(f.contains(golden(i)));
                }
                assertTrue(f.contains(7L));
                BinaryFuseFilter.Stats s = f.stats();
                assertEquals(bits, s.fingerprintBits());
                assertEquals(KEYS + 1, s.keys());
                assertEquals(KEYS + 1, s.plannedKeys());
                assertEquals(42, s.seed());
                assertEquals(g.length, s.imageBytes());
                assertArrayEquals(g, f.toByteArray());
            }
            // Built from Java, one native call, the same bytes as the C ABI's build of the hashes.
            byte[][] keys = goldenKeysAndSeven();
            assertArrayEquals(g, BinaryFuseFilter.build(keys, bits, 42).toByteArray());
            Native.Packed p = Native.pack(keys);
            assertArrayEquals(g, BinaryFuseFilter.buildPacked(p.data(), p.offsets(), bits, 42).toByteArray());
            assertEquals(g.length, BinaryFuseFilter.imageBytes(KEYS + 1, bits));
        }
    }

    @Test
    void exaLogLog() {
        for (int d : new int[] {ExaLogLog.D20, ExaLogLog.D24}) {
            byte[] g = goldenImage(d == 20 ? "ell" : "ell_d24");
            ExaLogLog s = ExaLogLog.fromByteArray(g);
            ExaLogLog.Stats st = s.stats();
            assertEquals(2, st.t());
            assertEquals(d, st.d());
            assertEquals(10, st.precision());
            assertEquals(42, st.seed());
            assertTrue(st.martingale());
            assertEquals(1001.0, s.martingaleEstimate(), 0.1 * 1001);
            assertEquals(1001.0, s.mlEstimate(), 0.1 * 1001);
            assertEquals(s.martingaleEstimate(), s.estimate());
            assertArrayEquals(g, s.toByteArray());
            ExaLogLog single = ExaLogLog.create(10, d, 42);
            for (String k : GOLDEN_KEYS) {
                single.add(k);
            }
            single.add(7L);
            assertArrayEquals(g, single.toByteArray());
            ExaLogLog batch = ExaLogLog.create(10, d, 42);
            batch.addAll(GOLDEN_KEYS);
            batch.addAll(new long[] {7});
            assertArrayEquals(g, batch.toByteArray());
            ExaLogLog bytes = ExaLogLog.create(10, d, 42);
            bytes.addAll(goldenKeysAndSeven());
            assertArrayEquals(g, bytes.toByteArray());
            // The same keys again change nothing.
            for (String k : GOLDEN_KEYS) {
                assertFalse(s.add(k));
            }
            assertFalse(s.add(7L));
            assertArrayEquals(g, s.toByteArray());
        }
    }

    /**
     * fromByteArray sizes its buffer with sketch_*_import_size: one byte missing or extra is
     * refused as LENGTH_MISMATCH before anything is allocated, for every family.
     */
    @Test
    void importSizeRefusesTruncatedAndExtendedImages() {
        Map<String, Function<byte[], ?>> readers = new LinkedHashMap<>();
        readers.put("bloom", BloomFilter::fromByteArray);
        readers.put("sbbf", SplitBlockBloomFilter::fromByteArray);
        readers.put("counting", CountingBloomFilter::fromByteArray);
        readers.put("cuckoo", CuckooFilter::fromByteArray);
        readers.put("fuse8", BinaryFuseFilter::fromByteArray);
        readers.put("fuse16", BinaryFuseFilter::fromByteArray);
        readers.put("hll_small", HyperLogLog::fromByteArray);
        readers.put("hll_dense", HyperLogLog::fromByteArray);
        readers.put("ull", UltraLogLog::fromByteArray);
        readers.put("ell", ExaLogLog::fromByteArray);
        readers.put("ell_d24", ExaLogLog::fromByteArray);
        readers.put("countmin", CountMinSketch::fromByteArray);
        readers.put("topk", TopK::fromByteArray);
        readers.put("minhash", MinHash::fromByteArray);
        readers.forEach((name, read) -> {
            byte[] g = goldenImage(name);
            for (byte[] bad : new byte[][] {Arrays.copyOf(g, g.length - 1), Arrays.copyOf(g, g.length + 8)}) {
                SketchException e = assertThrows(SketchException.class, () -> read.apply(bad));
                assertEquals(Status.LENGTH_MISMATCH, e.status(), name + " of " + bad.length + " bytes");
            }
            Function<byte[], ?> other = readers.get(name.equals("minhash") ? "bloom" : "minhash");
            assertEquals(Status.WRONG_FAMILY, assertThrows(SketchException.class, () -> other.apply(g)).status(), name);
        });
    }

    @Test
    void hyperLogLog() {
        for (String kind : new String[] {"hll_small", "hll_dense"}) {
            byte[] g = goldenImage(kind);
            int count = kind.equals("hll_small") ? 200 : KEYS;
            HyperLogLog s = HyperLogLog.fromByteArray(g);
            assertEquals(HyperLogLog.imageBytes(12), s.imageBytes());
            if (count == 200) {
                assertEquals(48 + 336 + 201 * 8, g.length); // compact: header + 8 bytes per hash
                assertEquals(201.0, s.estimate());
                assertTrue(s.stats().small());
            } else {
                assertEquals(1001.0, s.estimate(), 0.1 * 1001);
            }
            assertArrayEquals(g, s.toByteArray());
            HyperLogLog single = HyperLogLog.create(12, 42);
            for (int i = 0; i < count; i++) {
                single.add(golden(i));
            }
            single.add(7L);
            assertArrayEquals(g, single.toByteArray());
            HyperLogLog batch = HyperLogLog.create(12, 42);
            batch.addAll(TestKeys.strings("golden-", 0, count));
            batch.addAll(new long[] {7});
            assertArrayEquals(g, batch.toByteArray());
        }
    }

    @Test
    void ultraLogLog() {
        byte[] g = goldenImage("ull");
        UltraLogLog s = UltraLogLog.fromByteArray(g);
        assertEquals(1001.0, s.estimate(), 0.1 * 1001);
        assertArrayEquals(g, s.toByteArray());
        UltraLogLog single = UltraLogLog.create(10, 42);
        for (String k : GOLDEN_KEYS) {
            single.add(k);
        }
        single.add(7L);
        assertArrayEquals(g, single.toByteArray());
        UltraLogLog batch = UltraLogLog.create(10, 42);
        batch.addAll(TestKeys.bytes(GOLDEN_KEYS));
        batch.addAll(new long[] {7});
        assertArrayEquals(g, batch.toByteArray());
    }

    private static CountMinSketch.Builder goldenCountMin() {
        return CountMinSketch.builder().size(500, 3).conservative(true).counterBits(64).seed(42);
    }

    @Test
    void countMin() {
        byte[] g = goldenImage("countmin");
        CountMinSketch s = CountMinSketch.fromByteArray(g);
        for (int i = 0; i < KEYS; i++) {
            assertTrue(s.estimate(golden(i)) > i % 3);
        }
        assertEquals(80_000, s.estimate(7L));
        assertArrayEquals(g, s.toByteArray());
        CountMinSketch single = goldenCountMin().build();
        long[] weights = new long[KEYS];
        for (int i = 0; i < KEYS; i++) {
            weights[i] = 1 + i % 3;
            single.add(golden(i), weights[i]);
        }
        single.add(7L, 80_000);
        assertArrayEquals(g, single.toByteArray());
        CountMinSketch batch = goldenCountMin().build();
        batch.addAll(GOLDEN_KEYS, weights);
        batch.addAll(new long[] {7}, new long[] {80_000});
        assertArrayEquals(g, batch.toByteArray());
    }

    @Test
    void minHash() {
        byte[] g = goldenImage("minhash");
        MinHash s = MinHash.fromByteArray(g);
        assertEquals(1.0, s.jaccard(MinHash.fromByteArray(g)));
        assertEquals(128, s.stats().filled());
        assertArrayEquals(g, s.toByteArray());
        MinHash single = MinHash.create(128, 42);
        for (String k : GOLDEN_KEYS) {
            single.add(k);
        }
        assertArrayEquals(g, single.toByteArray());
        MinHash batch = MinHash.create(128, 42);
        batch.addAll(GOLDEN_KEYS);
        assertArrayEquals(g, batch.toByteArray());
    }

    @Test
    void topK() {
        byte[] g = goldenImage("topk");
        TopK s = TopK.fromByteArray(g);
        List<TopK.Item> top = s.top(1);
        assertEquals(1, top.size());
        assertEquals(7L, top.get(0).keyLong());
        assertEquals(5000, top.get(0).count());
        assertArrayEquals(g, s.toByteArray());
        String[] keys = new String[KEYS];
        long[] weights = new long[KEYS];
        TopK single = TopK.create(64, 16, 42);
        for (int i = 0; i < KEYS; i++) {
            keys[i] = golden(i % 97 % (1 + i % 13));
            weights[i] = 1 + i % 4;
            single.add(keys[i], weights[i]);
        }
        single.add(7L, 5000);
        assertArrayEquals(g, single.toByteArray());
        TopK batch = TopK.create(64, 16, 42);
        batch.addAll(keys, weights);
        batch.addAll(new long[] {7}, new long[] {5000});
        assertArrayEquals(g, batch.toByteArray());
    }

    @Test
    void wrappedGoldenImagesAnswerInPlace() {
        ByteBuffer b = TestKeys.direct(goldenImage("hll_dense"));
        assertEquals(1001.0, HyperLogLog.wrapVerified(b).estimate(), 0.1 * 1001);
        SketchException e = org.junit.jupiter.api.Assertions.assertThrows(
                SketchException.class, () -> HyperLogLog.wrap(TestKeys.direct(goldenImage("hll_small"))));
        assertEquals(Status.COMPACT_IMAGE, e.status());
        assertEquals(5000, TopK.wrapVerified(TestKeys.direct(goldenImage("topk"))).estimate(7L).count());
        assertEquals(80_000, CountMinSketch.wrap(TestKeys.direct(goldenImage("countmin"))).estimate(7L));
        assertTrue(CuckooFilter.wrap(TestKeys.direct(goldenImage("cuckoo"))).contains(7L));
        assertTrue(CountingBloomFilter.wrapVerified(TestKeys.direct(goldenImage("counting"))).contains(7L));
        assertTrue(SplitBlockBloomFilter.wrap(TestKeys.direct(goldenImage("sbbf"))).contains(7L));
        assertEquals(128, MinHash.wrap(TestKeys.direct(goldenImage("minhash"))).stats().filled());
        assertEquals(1001.0, UltraLogLog.wrap(TestKeys.direct(goldenImage("ull"))).estimate(), 0.1 * 1001);
        assertTrue(BinaryFuseFilter.wrap(TestKeys.direct(goldenImage("fuse8"))).contains(7L));
        assertEquals(1001.0, ExaLogLog.wrap(TestKeys.direct(goldenImage("ell"))).estimate(), 0.1 * 1001);
    }
}
