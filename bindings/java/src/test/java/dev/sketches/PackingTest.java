package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Batches of String keys are packed as exactly their UTF-8 bytes, whatever the characters. */
class PackingTest {
    private static void assertPacksLikeGetBytes(String[] keys) {
        Native.Packed p = Native.pack(keys);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (int i = 0; i < keys.length; i++) {
            byte[] b = keys[i].getBytes(StandardCharsets.UTF_8);
            assertEquals(all.size(), p.offsets()[i], "offset " + i);
            all.write(b, 0, b.length);
        }
        assertEquals(all.size(), p.offsets()[keys.length]);
        byte[] packed = java.util.Arrays.copyOf(p.data(), all.size());
        assertArrayEquals(all.toByteArray(), packed);
        // And the sketches agree: String keys hash as their UTF-8 bytes in batches and single calls.
        BloomFilter f = BloomFilter.create(1000, 0.01, 3);
        BloomFilter g = BloomFilter.create(1000, 0.01, 3);
        f.addAll(keys);
        for (String k : keys) {
            g.add(k.getBytes(StandardCharsets.UTF_8));
        }
        assertArrayEquals(g.toByteArray(), f.toByteArray());
        // Single String calls (UTF-8 encoded in native code for short keys) agree too.
        BloomFilter s = BloomFilter.create(1000, 0.01, 3);
        CountMinSketch c = CountMinSketch.withSize(256, 2, 3);
        CountMinSketch cb = CountMinSketch.withSize(256, 2, 3);
        for (String k : keys) {
            s.add(k);
            c.add(k, 2);
            cb.add(k.getBytes(StandardCharsets.UTF_8), 2);
        }
        assertArrayEquals(g.toByteArray(), s.toByteArray());
        assertArrayEquals(cb.toByteArray(), c.toByteArray());
        for (String k : keys) {
            assertEquals(cb.estimate(k.getBytes(StandardCharsets.UTF_8)), c.estimate(k));
            assertEquals(Sketches.hash(k.getBytes(StandardCharsets.UTF_8), 0), Sketches.hash(k, 0));
        }
    }

    @Test
    void asciiNonAsciiSurrogatesAndEmpty() {
        assertPacksLikeGetBytes(new String[] {});
        assertPacksLikeGetBytes(new String[] {""});
        assertPacksLikeGetBytes(new String[] {"", "a", ""});
        assertPacksLikeGetBytes(new String[] {"plain", "é", "日本語", "a😀b", "x\u0000y", "\uD800", "z\uDC00", "tail"});
        assertPacksLikeGetBytes(new String[] {"日本語日本語日本語日本語日本語", "a", "ü", "😀😀😀😀😀😀😀😀"});
        // Around the length where single String keys switch from native encoding to getBytes.
        String[] edges = new String[8];
        for (int i = 0; i < edges.length; i++) {
            int n = Native.STR_MAX - 4 + i;
            edges[i] = "é".repeat(n - 2) + (i % 2 == 0 ? "😀" : "\uD800x"); // n chars
        }
        assertEquals(Native.STR_MAX - 4, edges[0].length());
        assertPacksLikeGetBytes(edges);
        assertPacksLikeGetBytes(new String[] {"x".repeat(Native.STR_MAX), "x".repeat(Native.STR_MAX + 1), "\uDBFF\uDFFF"});
        SplittableRandom r = new SplittableRandom(1);
        String[] random = new String[500];
        for (int i = 0; i < random.length; i++) {
            StringBuilder sb = new StringBuilder();
            for (int j = 0, n = r.nextInt(20); j < n; j++) {
                sb.append((char) (r.nextBoolean() ? r.nextInt(0x80) : r.nextInt(0x10000)));
            }
            random[i] = sb.toString();
        }
        assertPacksLikeGetBytes(random);
    }

    @Test
    void byteKeysAndBadBatches() {
        byte[][] keys = {{}, {1, 2}, {3}};
        Native.Packed p = Native.pack(keys);
        assertArrayEquals(new int[] {0, 0, 2, 3}, p.offsets());
        assertThrows(NullPointerException.class, () -> Native.pack(new byte[][] {null}));
        assertThrows(NullPointerException.class, () -> Native.pack(new String[] {"a", null}));
        assertThrows(IllegalArgumentException.class, () -> Native.checkPacked(new byte[2], new int[] {-1, 1}));
        assertEquals(2, Native.checkPacked(new byte[2], new int[] {1, 1, 2}));
    }

    @Test
    void batchesLargerThanOneChunk() {
        // Two and a half chunks: every chunk boundary keeps its keys and outputs in place.
        int n = Native.CHUNK * 5 / 2;
        String[] keys = TestKeys.strings("c-", 0, n);
        BloomFilter f = BloomFilter.create(n, 0.01);
        boolean[] fresh = new boolean[n];
        f.addAll(keys, fresh);
        BloomFilter g = BloomFilter.create(n, 0.01);
        for (int i = 0; i < n; i++) {
            assertEquals(g.add(keys[i]), fresh[i], "key " + i);
        }
        long[] longs = TestKeys.longs(0, n);
        CountMinSketch c = CountMinSketch.withSize(4096, 3, 0);
        long[] w = new long[n];
        java.util.Arrays.fill(w, 2);
        c.addAll(longs, w);
        long[] est = c.estimateAll(longs);
        for (int i = 0; i < n; i += 1001) {
            assertEquals(c.estimate(longs[i]), est[i]);
        }
        assertEquals(2L * n, c.total());
    }
}
