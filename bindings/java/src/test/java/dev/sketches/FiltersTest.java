package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Bloom, split-block, counting and cuckoo filters: every public method, errors, rates. */
class FiltersTest {
    private static final int N = 100_000;
    private static final String[] PRESENT = TestKeys.strings("present-", 0, N);
    private static final String[] ABSENT = TestKeys.strings("absent-", 0, 2 * N);

    /** Measured false positives are within 4 sigma of the binomial with the filter's own rate. */
    private static void assertRate(boolean[] answers, double p, String what) {
        int fp = 0;
        for (boolean b : answers) {
            if (b) {
                fp++;
            }
        }
        double mean = answers.length * p;
        double sigma = Math.sqrt(answers.length * p * (1 - p));
        assertTrue(Math.abs(fp - mean) <= 4 * sigma + 1,
                what + ": " + fp + " false positives, expected " + mean + " +- " + 4 * sigma);
    }

    private static void assertAll(boolean[] answers) {
        for (int i = 0; i < answers.length; i++) {
            assertTrue(answers[i], "false negative at " + i);
        }
    }

    @Test
    void bloomEveryMethod() {
        BloomFilter f = BloomFilter.create(N, 0.01, 7);
        boolean[] wasNew = new boolean[N];
        f.addAll(PRESENT, wasNew);
        int fresh = 0;
        for (boolean b : wasNew) {
            fresh += b ? 1 : 0;
        }
        assertTrue(fresh > N * 0.98, "new keys " + fresh);
        assertAll(f.containsAll(PRESENT));
        BloomFilter.Stats s = f.stats();
        assertEquals(N, s.addCalls());
        assertEquals(N, s.plannedItems());
        assertEquals(0.01, s.plannedFpr(), 1e-12);
        assertEquals(7, s.seed());
        assertEquals(0, s.capacityFlags());
        assertFalse(f.isOverCapacity());
        assertTrue(Math.abs(s.estimatedFpr() - 0.01) < 0.002, "estimated fpr " + s.estimatedFpr());
        assertTrue(Math.abs(s.estimatedItems() - N) < N * 0.02);
        assertRate(f.containsAll(ABSENT), s.estimatedFpr(), "bloom strings");
        // Integer keys and random byte keys, disjoint from the inserted ones.
        BloomFilter g = BloomFilter.create(N, 0.01);
        g.addAll(TestKeys.longs(0, N));
        assertAll(g.containsAll(TestKeys.longs(0, N)));
        assertRate(g.containsAll(TestKeys.longs(N, 2 * N)), g.stats().estimatedFpr(), "bloom longs");
        byte[][] random = new byte[3 * N][];
        SplittableRandom r = new SplittableRandom(3);
        for (int i = 0; i < random.length; i++) {
            random[i] = new byte[16 + r.nextInt(25)]; // long enough to be distinct
            r.nextBytes(random[i]);
        }
        BloomFilter h = BloomFilter.create(N, 0.01);
        h.addAll(java.util.Arrays.copyOf(random, N));
        assertRate(h.containsAll(java.util.Arrays.copyOfRange(random, N, 3 * N)), h.stats().estimatedFpr(),
                "bloom random bytes");

        // Single calls answer as batches do, for every key form.
        BloomFilter one = BloomFilter.create(1000, 0.01, 7);
        assertTrue(one.add("k"));
        assertFalse(one.add("k"));
        assertTrue(one.add("kb".getBytes(StandardCharsets.UTF_8)));
        assertTrue(one.add(42L));
        ByteBuffer direct = ByteBuffer.allocateDirect(8);
        direct.put("dir".getBytes(StandardCharsets.UTF_8)).flip();
        assertTrue(one.add(direct));
        assertEquals(0, direct.position());
        assertTrue(one.contains("dir"));
        assertTrue(one.contains(ByteBuffer.wrap("xkbx".getBytes(StandardCharsets.UTF_8), 1, 2)));
        assertTrue(one.contains(ByteBuffer.wrap("kb".getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer()));
        assertTrue(one.contains(direct));
        assertTrue(one.contains(42L));
        assertArrayEquals(new boolean[] {true, true, one.contains(43L)}, one.containsAll(new long[] {42, 42, 43}));
        byte[] data = "xxkkbdir".getBytes(StandardCharsets.UTF_8);
        boolean[] res = new boolean[3];
        one.containsPacked(data, new int[] {2, 3, 5, 8}, res);
        assertArrayEquals(new boolean[] {true, true, true}, res);
        assertThrows(IllegalArgumentException.class, () -> one.containsPacked(data, new int[] {3, 2}, new boolean[1]));
        assertThrows(IllegalArgumentException.class, () -> one.containsPacked(data, new int[] {0, 9}, new boolean[1]));
        assertThrows(IllegalArgumentException.class, () -> one.addPacked(data, new int[] {}, null));
        assertThrows(IllegalArgumentException.class, () -> one.addAll(new long[] {1, 2}, new boolean[1]));
        boolean[] packedNew = new boolean[2];
        one.addPacked(data, new int[] {0, 1, 2}, packedNew);
        assertArrayEquals(new boolean[] {true, false}, packedNew); // "x" twice

        // Merge equals one filter of both streams; intersect; incompatible and self merges.
        BloomFilter a = BloomFilter.create(N, 0.01, 1);
        BloomFilter b = BloomFilter.create(N, 0.01, 1);
        BloomFilter both = BloomFilter.create(N, 0.01, 1);
        a.addAll(java.util.Arrays.copyOf(PRESENT, N / 2));
        b.addAll(java.util.Arrays.copyOfRange(PRESENT, N / 2, N));
        both.addAll(PRESENT);
        a.merge(b);
        assertEquals(both.stats().setBits(), a.stats().setBits());
        assertArrayEquals(both.containsAll(ABSENT), a.containsAll(ABSENT));
        BloomFilter c = BloomFilter.create(N, 0.01, 1);
        c.addAll(java.util.Arrays.copyOf(PRESENT, 10));
        c.intersect(both);
        assertAll(c.containsAll(java.util.Arrays.copyOf(PRESENT, 10)));
        assertEquals(Status.INCOMPATIBLE,
                assertThrows(SketchException.class, () -> a.merge(BloomFilter.create(N, 0.01, 2))).status());
        assertEquals(Status.INCOMPATIBLE,
                assertThrows(SketchException.class, () -> a.intersect(BloomFilter.create(10, 0.01, 1))).status());

        // Over capacity: planned for 1000, given 10,000.
        BloomFilter small = BloomFilter.create(1000, 0.01);
        small.addAll(TestKeys.longs(0, 10_000));
        assertTrue(small.isOverCapacity());
        assertEquals(Sketches.CAPACITY_OVER_PLANNED_ITEMS | Sketches.CAPACITY_FPR_ABOVE_TWICE_PLANNED,
                small.capacityFlags());
        small.clear();
        assertEquals(0, small.capacityFlags());
        assertEquals(0, small.stats().setBits());

        // Explicit size, image accessors, parameters refused at the boundary.
        BloomFilter w = BloomFilter.withBits(1 << 20, 5, 9);
        assertEquals(1 << 20, w.stats().bits());
        assertEquals(5, w.stats().hashes());
        assertEquals(0, w.imageBytes() % 64);
        assertEquals(w.imageBytes(), w.image().capacity());
        assertTrue(w.image().isReadOnly());
        assertTrue(w.toString().contains("bytes"));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(0, 0.01));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(10, 1.0));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(10, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.withBits(0, 3, 0));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.withBits(100, 65, 0));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.withBits(1L << 57, 3, 0));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(1L << 40, 0.01)); // > 2 GiB
        assertThrows(NullPointerException.class, () -> one.add((String) null));
    }

    @Test
    void splitBlockEveryMethod() {
        SplitBlockBloomFilter f = SplitBlockBloomFilter.create(N, 0.01, 5);
        f.addAll(PRESENT);
        assertAll(f.containsAll(TestKeys.bytes(PRESENT)));
        SplitBlockBloomFilter.Stats s = f.stats();
        assertEquals(SplitBlockBloomFilter.MODE_NATIVE, s.mode());
        assertEquals(N, s.addCalls());
        assertEquals(5, s.seed());
        assertRate(f.containsAll(ABSENT), s.estimatedFpr(), "split-block");
        assertTrue(s.estimatedFpr() < 0.02, "rate " + s.estimatedFpr());
        assertEquals(s.blocks() * 32, f.bitset().remaining());
        assertTrue(f.bitset().isReadOnly());
        for (int i = 0; i < 1000; i++) {
            assertEquals(f.contains(ABSENT[i]), f.contains(ABSENT[i].getBytes(StandardCharsets.UTF_8)));
        }
        boolean[] wasNew = new boolean[3];
        SplitBlockBloomFilter g = SplitBlockBloomFilter.withBlocks(1024, false, 5);
        g.addAll(new long[] {1, 2, 1}, wasNew);
        assertArrayEquals(new boolean[] {true, true, false}, wasNew);
        assertTrue(g.add(ByteBuffer.wrap(new byte[] {1, 2, 3})));
        assertFalse(g.add(ByteBuffer.wrap(new byte[] {1, 2, 3})));
        assertTrue(g.contains(ByteBuffer.wrap(new byte[] {1, 2, 3})));
        assertEquals(Status.INCOMPATIBLE, assertThrows(SketchException.class, () -> f.merge(g)).status());
        SplitBlockBloomFilter a = SplitBlockBloomFilter.withBlocks(1024, false, 5);
        a.add(99L);
        g.merge(a);
        assertTrue(g.contains(99L));
        g.intersect(a);
        assertTrue(g.contains(99L));
        g.clear();
        assertFalse(g.contains(99L));
        SplitBlockBloomFilter p = SplitBlockBloomFilter.forParquet(1000, 0.01);
        assertEquals(SplitBlockBloomFilter.MODE_PARQUET, p.stats().mode());
        assertEquals(Integer.bitCount(p.bitset().remaining()), 1, "Parquet bitsets are powers of two");
        assertThrows(IllegalArgumentException.class, () -> SplitBlockBloomFilter.withBlocks(4, true, 42));
        assertThrows(IllegalArgumentException.class, () -> SplitBlockBloomFilter.create(10, 0));
        SplitBlockBloomFilter over = SplitBlockBloomFilter.create(100, 0.01);
        over.addAll(TestKeys.longs(0, 5000));
        assertTrue(over.isOverCapacity());
    }

    /** The bitset view reads its words little-endian, as the image view and the Parquet format do. */
    @Test
    void splitBlockBitsetIsLittleEndianAsTheImage() {
        SplitBlockBloomFilter p = SplitBlockBloomFilter.forParquet(1000, 0.01);
        p.addAll(TestKeys.longs(0, 500));
        ByteBuffer bits = p.bitset();
        assertEquals(p.image().order(), bits.order());
        for (int i = 0; i < bits.remaining(); i += 4) {
            int word = (bits.get(i) & 0xFF) | (bits.get(i + 1) & 0xFF) << 8 | (bits.get(i + 2) & 0xFF) << 16
                    | (bits.get(i + 3) & 0xFF) << 24;
            assertEquals(word, bits.getInt(i), "word at " + i);
        }
    }

    @Test
    void countingEveryMethod() {
        CountingBloomFilter f = CountingBloomFilter.create(N, 0.01, 3);
        f.addAll(PRESENT);
        assertAll(f.containsAll(PRESENT));
        CountingBloomFilter.Stats s = f.stats();
        assertEquals(N, s.items());
        assertRate(f.containsAll(ABSENT), s.estimatedFpr(), "counting");
        // Remove half: no false negative for the other half, and removed keys mostly gone.
        boolean[] removed = f.removeAll(java.util.Arrays.copyOf(PRESENT, N / 2));
        assertAll(removed);
        assertAll(f.containsAll(java.util.Arrays.copyOfRange(PRESENT, N / 2, N)));
        assertEquals(N / 2, f.stats().items());
        assertEquals(N / 2, f.stats().removes());
        assertFalse(f.remove("never-added-key-xyz") && f.contains("never-added-key-xyz"));
        // Single-key forms.
        CountingBloomFilter g = CountingBloomFilter.withCounters(4096, 4, 3);
        assertTrue(g.add(5L));
        assertTrue(g.contains(5L));
        assertTrue(g.remove(5L));
        assertFalse(g.remove(5L));
        assertTrue(g.add(ByteBuffer.wrap(new byte[] {9})));
        assertTrue(g.remove(ByteBuffer.wrap(new byte[] {9})));
        assertTrue(g.add(new byte[] {8}));
        assertTrue(g.remove(new byte[] {8}));
        g.addAll(new long[] {1, 2, 3});
        assertArrayEquals(new boolean[] {true, true, true}, g.removeAll(new long[] {1, 2, 3}));
        g.addPacked(new byte[] {1, 2}, new int[] {0, 1, 2}, null);
        assertArrayEquals(new boolean[] {true, true}, g.removePacked(new byte[] {1, 2}, new int[] {0, 1, 2}));
        assertArrayEquals(new boolean[] {false}, g.removeAll(TestKeys.bytes(new String[] {"z"})));
        // Merge adds counters: equals one filter of both streams.
        CountingBloomFilter a = CountingBloomFilter.create(10_000, 0.01, 1);
        CountingBloomFilter b = CountingBloomFilter.create(10_000, 0.01, 1);
        CountingBloomFilter both = CountingBloomFilter.create(10_000, 0.01, 1);
        a.addAll(TestKeys.strings("k", 0, 5000));
        b.addAll(TestKeys.strings("k", 5000, 5000));
        both.addAll(TestKeys.strings("k", 0, 10_000));
        a.merge(b);
        assertEquals(both.stats().nonzeroCounters(), a.stats().nonzeroCounters());
        assertArrayEquals(both.containsAll(ABSENT), a.containsAll(ABSENT));
        assertEquals(Status.INCOMPATIBLE, assertThrows(SketchException.class, () -> a.merge(g)).status());
        a.clear();
        assertEquals(0, a.stats().nonzeroCounters());
        assertEquals(0, a.capacityFlags());
        assertThrows(IllegalArgumentException.class, () -> CountingBloomFilter.withCounters(0, 3, 0));
    }

    @Test
    void cuckooEveryMethod() {
        CuckooFilter f = CuckooFilter.create(N, 0.01, 11);
        assertEquals(N, f.addAll(PRESENT));
        assertAll(f.containsAll(PRESENT));
        CuckooFilter.Stats s = f.stats();
        assertEquals(N, s.items());
        assertEquals(11, s.seed());
        boolean[] absent = f.containsAll(ABSENT);
        int fp = 0;
        for (boolean b : absent) {
            fp += b ? 1 : 0;
        }
        double bound = s.estimatedFpr();
        assertTrue(fp <= absent.length * bound + 4 * Math.sqrt(absent.length * bound) + 1,
                "cuckoo: " + fp + " false positives over a bound of " + bound);
        assertTrue(f.count(PRESENT[0]) >= 1);
        assertTrue(f.remove(PRESENT[0]));
        assertEquals(N - 1, f.stats().items());
        // Fill a small filter until it refuses: refused keys change nothing.
        CuckooFilter small = CuckooFilter.withBuckets(64, 8, 1);
        long[] keys = TestKeys.longs(0, 400);
        boolean[] added = new boolean[keys.length];
        int stored = small.addAll(keys, added);
        assertTrue(stored >= 243 && stored < 400, "stored " + stored); // >= 95% of 256 slots
        byte[] before = small.toByteArray();
        assertFalse(small.add(keys[399]) && !added[399]);
        for (int i = 0; i < keys.length; i++) {
            if (added[i]) {
                assertTrue(small.contains(keys[i]));
            }
        }
        boolean full = false;
        for (long k = 1_000_000; k < 1_000_100 && !full; k++) {
            byte[] b = small.toByteArray();
            if (!small.add(k)) {
                assertArrayEquals(b, small.toByteArray(), "a refused add changes nothing");
                full = true;
            }
        }
        assertTrue(full);
        assertTrue(before.length > 0);
        assertTrue(small.stats().load() > 0.9);
        // Key forms, count, remove.
        CuckooFilter g = CuckooFilter.withBuckets(1024, 16, 2);
        assertTrue(g.add(5L));
        assertTrue(g.add(5L));
        assertEquals(2, g.count(5L));
        assertTrue(g.remove(5L));
        assertEquals(1, g.count(5L));
        assertTrue(g.add(ByteBuffer.wrap(new byte[] {4})));
        assertTrue(g.contains(new byte[] {4}));
        assertEquals(1, g.count(new byte[] {4}));
        assertEquals(1, g.count(ByteBuffer.wrap(new byte[] {3, 4}, 1, 1)));
        assertEquals(1, g.count(ByteBuffer.wrap(new byte[] {4}).asReadOnlyBuffer()));
        ByteBuffer directKey = ByteBuffer.allocateDirect(1).put((byte) 4).flip();
        assertEquals(1, g.count(directKey));
        assertEquals(0, directKey.position(), "the key buffer's position does not move");
        assertEquals(g.count(5L), g.count(ByteBuffer.wrap(new byte[] {5, 0, 0, 0, 0, 0, 0, 0}).asReadOnlyBuffer()),
                "a long key is its 8 little-endian bytes");
        assertTrue(g.remove(ByteBuffer.wrap(new byte[] {4})));
        assertFalse(g.remove(new byte[] {4}));
        assertEquals(2, g.addPacked(new byte[] {1, 2}, new int[] {0, 1, 2}, null));
        assertEquals(1, g.addAll(new String[] {"s"}, new boolean[1]));
        assertEquals(1, g.count("s"));
        // Merge: all or nothing.
        CuckooFilter a = CuckooFilter.withBuckets(1024, 16, 2);
        a.add("from-a");
        g.merge(a);
        assertTrue(g.contains("from-a"));
        assertEquals(Status.INCOMPATIBLE, assertThrows(SketchException.class, () -> g.merge(small)).status());
        CuckooFilter tiny = CuckooFilter.withBuckets(64, 8, 1);
        tiny.addAll(TestKeys.longs(5000, 240));
        byte[] tinyBefore = small.toByteArray();
        assertEquals(Status.FULL, assertThrows(SketchException.class, () -> small.merge(tiny)).status());
        assertArrayEquals(tinyBefore, small.toByteArray());
        g.clear();
        assertEquals(0, g.stats().items());
        assertEquals(0, g.capacityFlags());
        assertFalse(g.isOverCapacity());
        // Batch removals, every key form: one stored copy per key removed, absent keys reported.
        CuckooFilter r = CuckooFilter.withBuckets(1024, 16, 4);
        String[] strs = TestKeys.strings("r-", 0, 100);
        long[] longs = TestKeys.longs(0, 100);
        assertEquals(100, r.addAll(strs));
        assertEquals(100, r.addAll(longs));
        assertEquals(100, r.addAll(TestKeys.bytes(TestKeys.strings("b-", 0, 100))));
        assertEquals(2, r.addPacked(new byte[] {1, 2}, new int[] {0, 1, 2}, null));
        assertAll(r.removeAll(strs));
        assertEquals(202, r.stats().items());
        assertAll(r.removeAll(longs));
        assertAll(r.removeAll(TestKeys.bytes(TestKeys.strings("b-", 0, 100))));
        assertArrayEquals(new boolean[] {true, true}, r.removePacked(new byte[] {9, 1, 2}, new int[] {1, 2, 3}));
        assertEquals(0, r.stats().items());
        assertArrayEquals(new boolean[] {false, false}, r.removeAll(new long[] {longs[0], 5}));
        assertArrayEquals(new boolean[] {false}, r.removeAll(new String[] {"r-1"}));
        assertThrows(IllegalArgumentException.class, () -> r.removePacked(new byte[] {1}, new int[] {0, 2}));
        CuckooFilter ro = CuckooFilter.wrap(TestKeys.direct(r.toByteArray()).asReadOnlyBuffer());
        assertThrows(ReadOnlyBufferException.class, () -> ro.removeAll(new long[] {1}));
        assertThrows(ReadOnlyBufferException.class, () -> ro.removeAll(new String[] {"x"}));
        assertThrows(IllegalArgumentException.class, () -> CuckooFilter.withBuckets(10, 9, 0));
        assertThrows(IllegalArgumentException.class, () -> CuckooFilter.create(10, -1));
    }

    @Test
    void binaryFuseEveryMethod() {
        for (int bits : new int[] {8, 16}) {
            BinaryFuseFilter f = BinaryFuseFilter.build(PRESENT, bits, 13);
            assertAll(f.containsAll(PRESENT));
            assertAll(f.containsAll(TestKeys.bytes(PRESENT)));
            BinaryFuseFilter.Stats s = f.stats();
            assertEquals(bits, s.fingerprintBits());
            assertEquals(N, s.keys());
            assertEquals(N, s.plannedKeys());
            assertEquals(13, s.seed());
            assertEquals(Math.scalb(1.0, -bits), s.fpr());
            assertEquals(f.imageBytes(), s.imageBytes());
            assertEquals(BinaryFuseFilter.imageBytes(N, bits), f.imageBytes());
            assertTrue(s.attempts() >= 1);
            assertTrue(s.bitsPerKey() > bits && s.bitsPerKey() < 1.3 * bits, "bits per key " + s.bitsPerKey());
            assertTrue(s.imageBytesPerKey() * 8 >= s.bitsPerKey());
            // The rate: within 4 sigma of the binomial at 2^-bits (2^22 integer probes for 16 bits).
            assertRate(f.containsAll(ABSENT), s.fpr(), "fuse" + bits + " strings");
            BinaryFuseFilter g = BinaryFuseFilter.build(TestKeys.longs(0, N), bits, 13);
            assertAll(g.containsAll(TestKeys.longs(0, N)));
            int probes = bits == 8 ? 2 * N : 1 << 22;
            assertRate(g.containsAll(TestKeys.longs(N, probes)), Math.scalb(1.0, -bits), "fuse" + bits + " longs");

            // Every build form gives the same bytes for the same keys; duplicates are stored once.
            byte[] image = f.toByteArray();
            assertArrayEquals(image, BinaryFuseFilter.build(TestKeys.bytes(PRESENT), bits, 13).toByteArray());
            Native.Packed p = Native.pack(PRESENT);
            assertArrayEquals(image, BinaryFuseFilter.buildPacked(p.data(), p.offsets(), bits, 13).toByteArray());
            BinaryFuseFilter dup = BinaryFuseFilter.build(new String[] {"a", "b", "a", "a"}, bits, 13);
            assertEquals(2, dup.stats().keys());
            assertEquals(4, dup.stats().plannedKeys());
            assertTrue(dup.contains("a") && dup.contains("b"));
            assertArrayEquals(image, BinaryFuseFilter.fromByteArray(image).toByteArray());
            assertTrue(BinaryFuseFilter.wrap(TestKeys.direct(image)).contains(PRESENT[7]));
        }

        // Single calls answer as batches do, for every key form.
        byte[] le5 = ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(5).array();
        BinaryFuseFilter one = BinaryFuseFilter.build(
                new byte[][] {"k".getBytes(StandardCharsets.UTF_8), "kb".getBytes(StandardCharsets.UTF_8), le5, {}}, 16, 1);
        assertTrue(one.contains("k"));
        assertTrue(one.contains(5L));
        assertTrue(one.contains(new byte[0]));
        assertTrue(one.contains(ByteBuffer.wrap("xkbx".getBytes(StandardCharsets.UTF_8), 1, 2)));
        ByteBuffer direct = ByteBuffer.allocateDirect(8);
        direct.put("kb".getBytes(StandardCharsets.UTF_8)).flip();
        assertTrue(one.contains(direct));
        assertEquals(0, direct.position());
        assertTrue(one.contains(ByteBuffer.wrap("kb".getBytes(StandardCharsets.UTF_8)).asReadOnlyBuffer()));
        String longKey = "k".repeat(Native.STR_MAX + 1);
        assertEquals(one.contains(longKey.getBytes(StandardCharsets.UTF_8)), one.contains(longKey));
        assertArrayEquals(new boolean[] {true, one.contains(6L)}, one.containsAll(new long[] {5, 6}));
        boolean[] res = new boolean[2];
        one.containsPacked("xxkkb".getBytes(StandardCharsets.UTF_8), new int[] {2, 3, 5}, res);
        assertArrayEquals(new boolean[] {true, true}, res);
        assertThrows(IllegalArgumentException.class, () -> one.containsPacked(new byte[1], new int[] {1, 0}, new boolean[1]));
        assertThrows(IllegalArgumentException.class, () -> one.containsAll(new long[] {1, 2}, new boolean[1]));

        // An empty set builds a filter of zero fingerprints: absent keys pass at the same rate.
        BinaryFuseFilter empty = BinaryFuseFilter.build(new long[0], 8, 0);
        assertEquals(0, empty.stats().keys());
        assertEquals(Double.POSITIVE_INFINITY, empty.stats().bitsPerKey());
        assertRate(empty.containsAll(TestKeys.longs(0, 2 * N)), empty.stats().fpr(), "empty fuse8");
        assertArrayEquals(empty.toByteArray(), BinaryFuseFilter.build(new String[0], 8, 0).toByteArray());

        // Parameters refused at the boundary; accessors.
        assertThrows(IllegalArgumentException.class, () -> BinaryFuseFilter.build(PRESENT, 12, 0));
        assertThrows(IllegalArgumentException.class, () -> BinaryFuseFilter.imageBytes(-1, 8));
        assertThrows(IllegalArgumentException.class, () -> BinaryFuseFilter.buildPacked(new byte[1], new int[] {0, 2}, 8, 0));
        assertThrows(NullPointerException.class, () -> BinaryFuseFilter.build(new String[] {"a", null}, 8, 0));
        assertThrows(NullPointerException.class, () -> one.contains((String) null));
        assertEquals(0, one.imageBytes() % 64);
        assertTrue(one.image().isReadOnly());
        assertEquals(one.imageBytes(), one.image().capacity());
        assertTrue(one.toString().startsWith("BinaryFuseFilter"));
        assertEquals(Status.WRONG_FAMILY, assertThrows(SketchException.class,
                () -> BinaryFuseFilter.fromByteArray(CuckooFilter.create(10, 0.01).toByteArray())).status());
        byte[] damaged = one.toByteArray();
        damaged[damaged.length - 1] ^= 1;
        assertThrows(SketchException.class, () -> BinaryFuseFilter.fromByteArray(damaged));
    }

    @Test
    void readOnlyImagesRefuseChanges() {
        BloomFilter f = BloomFilter.create(1000, 0.01);
        f.add("a");
        ByteBuffer ro = TestKeys.direct(f.toByteArray()).asReadOnlyBuffer();
        BloomFilter w = BloomFilter.wrapVerified(ro);
        assertTrue(w.contains("a"));
        assertThrows(ReadOnlyBufferException.class, () -> w.add("b"));
        assertThrows(ReadOnlyBufferException.class, () -> w.addAll(new long[] {1}));
        assertThrows(ReadOnlyBufferException.class, w::clear);
        assertThrows(ReadOnlyBufferException.class, () -> w.merge(f));
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.wrap(ByteBuffer.wrap(f.toByteArray())));
        ByteBuffer big = ByteBuffer.allocateDirect((int) f.imageBytes() + 64);
        big.position(1);
        assertThrows(IllegalArgumentException.class, () -> BloomFilter.wrap(big));
        ByteBuffer heapless = TestKeys.direct(f.toByteArray());
        heapless.limit(100);
        assertEquals(Status.BUFFER_TOO_SMALL, assertThrows(SketchException.class, () -> BloomFilter.wrap(heapless)).status());
        assertEquals(Status.WRONG_FAMILY,
                assertThrows(SketchException.class, () -> CuckooFilter.fromByteArray(f.toByteArray())).status());
    }

    /**
     * A counting filter's class Javadoc said there is never a false negative and that removing a
     * key not present changes nothing; removing a never-added key that answers as a false positive
     * succeeds and decrements added keys' counters, so an added key can then answer false.
     */
    @Test
    void countingRemoveOfAFalsePositiveCanCauseFalseNegatives() {
        CountingBloomFilter f = CountingBloomFilter.withCounters(64, 2, 0);
        long[] added = new long[16];
        for (int i = 0; i < added.length; i++) {
            added[i] = i;
            f.add((long) i);
        }
        long fp = -1;
        for (long k = 1000; k < 100_000 && fp < 0; k++) {
            if (f.contains(k)) {
                fp = k;
            }
        }
        assertTrue(fp >= 0, "a false positive among 99,000 absent keys of a full 64-counter filter");
        byte[] before = f.toByteArray();
        assertTrue(f.remove(fp), "a false positive is removed");
        assertFalse(java.util.Arrays.equals(before, f.toByteArray()));
        // Removing every false positive found in turn takes counters that added keys need.
        boolean lost = false;
        for (long k = 1000; k < 1_000_000 && !lost; k++) {
            if (f.contains(k)) {
                f.remove(k);
            }
            for (long a : added) {
                lost |= !f.contains(a);
            }
        }
        assertTrue(lost, "an added key answers false after false positives were removed");
        // A certainly absent key (some counter 0) changes nothing.
        CountingBloomFilter empty = CountingBloomFilter.withCounters(64, 2, 0);
        assertFalse(empty.remove(5L));
    }
}
