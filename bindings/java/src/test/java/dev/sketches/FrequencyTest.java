package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Count-Min and Top-k: every public method, errors, bounds, and MinHash similarity. */
class FrequencyTest {
    /** A skewed stream of 200,000 items over 20,000 distinct keys, with exact counts. */
    private static String[] stream(Map<String, Long> exact) {
        SplittableRandom r = new SplittableRandom(5);
        String[] out = new String[200_000];
        for (int i = 0; i < out.length; i++) {
            // Squaring a uniform value skews towards small ids (a Zipf-like head).
            double u = r.nextDouble();
            out[i] = "item-" + (int) (u * u * u * 20_000);
            exact.merge(out[i], 1L, Long::sum);
        }
        return out;
    }

    @Test
    void countMinNeverUnderestimatesAndKeepsItsBound() {
        Map<String, Long> exact = new HashMap<>();
        String[] items = stream(exact);
        for (boolean conservative : new boolean[] {false, true}) {
            CountMinSketch s = CountMinSketch.builder().epsilon(0.001).delta(0.01).conservative(conservative).seed(3)
                    .build();
            s.addAll(items);
            CountMinSketch.Stats st = s.stats();
            assertEquals(items.length, st.total());
            assertEquals(items.length, s.total());
            assertEquals(2719, st.width());
            assertEquals(5, st.depth());
            assertEquals(conservative, st.conservative());
            String[] keys = exact.keySet().toArray(new String[0]);
            long[] est = s.estimateAll(keys);
            int over = 0;
            for (int i = 0; i < keys.length; i++) {
                long truth = exact.get(keys[i]);
                assertTrue(est[i] >= truth, "underestimate of " + keys[i]);
                assertEquals(est[i], s.estimate(keys[i]));
                if (est[i] - truth > st.errorBound()) {
                    over++;
                }
            }
            // At most delta of the keys exceed epsilon * N (with a margin for the sample).
            assertTrue(over <= 0.01 * keys.length + 4 * Math.sqrt(0.01 * keys.length), "over the bound: " + over);
        }
    }

    @Test
    void countMinEveryMethod() {
        CountMinSketch s = CountMinSketch.create(0.01, 0.01, 4);
        s.add("a");
        s.add("a", 4);
        s.add(new byte[] {1}, 2);
        s.add(new byte[] {1});
        s.add(7L);
        s.add(7L, 9);
        s.add(ByteBuffer.wrap(new byte[] {2}), 3);
        ByteBuffer d = ByteBuffer.allocateDirect(1);
        d.put((byte) 2).flip();
        s.add(d, 1);
        s.add(ByteBuffer.wrap(new byte[] {0, 2}, 1, 1).asReadOnlyBuffer());
        assertEquals(5, s.estimate("a"));
        assertEquals(3, s.estimate(new byte[] {1}));
        assertEquals(10, s.estimate(7L));
        assertEquals(5, s.estimate(ByteBuffer.wrap(new byte[] {2})));
        assertEquals(5, s.estimate(d));
        assertEquals(0, d.position(), "the key buffer's position does not move");
        assertEquals(23, s.total());
        // Batches equal single calls, with and without weights, for every key form.
        long[] longs = TestKeys.longs(0, 5000);
        long[] weights = new long[longs.length];
        CountMinSketch one = CountMinSketch.withSize(1000, 4, 1);
        for (int i = 0; i < longs.length; i++) {
            weights[i] = i % 7;
            one.add(longs[i], weights[i]);
        }
        CountMinSketch batch = CountMinSketch.withSize(1000, 4, 1);
        batch.addAll(longs, weights);
        assertArrayEquals(one.toByteArray(), batch.toByteArray());
        long[] est = batch.estimateAll(longs);
        for (int i = 0; i < longs.length; i += 97) {
            assertEquals(one.estimate(longs[i]), est[i]);
        }
        String[] keys = TestKeys.strings("w-", 0, 3000);
        CountMinSketch sk = CountMinSketch.withSize(1000, 4, 1);
        for (String k : keys) {
            sk.add(k);
        }
        CountMinSketch bk = CountMinSketch.withSize(1000, 4, 1);
        bk.addAll(TestKeys.bytes(keys));
        assertArrayEquals(sk.toByteArray(), bk.toByteArray());
        CountMinSketch pk = CountMinSketch.withSize(1000, 4, 1);
        Native.Packed p = Native.pack(keys);
        pk.addPacked(p.data(), p.offsets(), null);
        assertArrayEquals(sk.toByteArray(), pk.toByteArray());
        assertArrayEquals(sk.estimateAll(keys), pk.estimatePacked(p.data(), p.offsets()));
        assertArrayEquals(sk.estimateAll(keys), pk.estimateAll(TestKeys.bytes(keys)));
        // Merge adds: equals one sketch of both streams.
        CountMinSketch a = CountMinSketch.withSize(1000, 4, 1);
        CountMinSketch b = CountMinSketch.withSize(1000, 4, 1);
        a.addAll(java.util.Arrays.copyOf(longs, 2500), java.util.Arrays.copyOf(weights, 2500));
        b.addAll(java.util.Arrays.copyOfRange(longs, 2500, 5000), java.util.Arrays.copyOfRange(weights, 2500, 5000));
        a.merge(b);
        assertArrayEquals(one.estimateAll(longs), a.estimateAll(longs));
        assertEquals(one.total(), a.total());
        assertEquals(Status.INCOMPATIBLE, assertThrows(SketchException.class, () -> a.merge(s)).status());
        // 32-bit counters saturate instead of wrapping; 64-bit ones hold more.
        CountMinSketch c32 = CountMinSketch.withSize(16, 2, 0);
        c32.add(1L, 3_000_000_000L);
        c32.add(1L, 3_000_000_000L);
        assertEquals(0xFFFF_FFFFL, c32.estimate(1L));
        CountMinSketch c64 = CountMinSketch.builder().size(16, 2).counterBits(64).build();
        c64.add(1L, 3_000_000_000L);
        c64.add(1L, 3_000_000_000L);
        assertEquals(6_000_000_000L, c64.estimate(1L));
        assertEquals(64, c64.stats().counterBits());
        a.clear();
        assertEquals(0, a.total());
        assertEquals(0, a.estimate(longs[0]));
        assertEquals(one.estimate(7L), CountMinSketch.fromByteArray(one.toByteArray()).estimate(7L));
        assertEquals(one.estimate(7L), CountMinSketch.wrapVerified(TestKeys.direct(one.toByteArray())).estimate(7L));
        assertThrows(IllegalArgumentException.class, () -> s.add("x", -1));
        assertThrows(IllegalArgumentException.class, () -> s.addAll(new long[] {1}, new long[] {-1}));
        assertThrows(IllegalArgumentException.class, () -> s.addAll(new long[] {1}, new long[] {1, 2}));
        assertThrows(IllegalArgumentException.class, () -> CountMinSketch.create(0, 0.1));
        assertThrows(IllegalArgumentException.class, () -> CountMinSketch.withSize(10, 65, 0));
        assertThrows(IllegalArgumentException.class, () -> CountMinSketch.builder().counterBits(16));
        assertTrue(s.image().isReadOnly());
        assertEquals(s.imageBytes(), s.toByteArray().length);
    }

    @Test
    void topKListsEveryHeavyHitter() {
        Map<String, Long> exact = new HashMap<>();
        String[] items = stream(exact);
        int capacity = 200;
        TopK t = TopK.create(capacity, 16, 8);
        t.addAll(items);
        TopK.Stats st = t.stats();
        assertEquals(items.length, st.total());
        assertEquals(capacity, st.used());
        List<TopK.Item> top = t.top();
        assertEquals(capacity, top.size());
        for (int i = 1; i < top.size(); i++) {
            assertTrue(top.get(i - 1).count() >= top.get(i).count());
        }
        Map<String, TopK.Item> listed = new HashMap<>();
        for (TopK.Item it : top) {
            listed.put(it.keyString(), it);
            long truth = exact.getOrDefault(it.keyString(), 0L);
            assertTrue(it.count() >= truth && it.count() - it.error() <= truth, it.toString());
            assertTrue(it.error() <= items.length / capacity);
        }
        for (Map.Entry<String, Long> e : exact.entrySet()) {
            if (e.getValue() > items.length / capacity) {
                assertTrue(listed.containsKey(e.getKey()), "heavy hitter missing: " + e);
            }
        }
        TopK.Estimate first = t.estimate(top.get(0).keyString());
        assertTrue(first.listed());
        assertEquals(top.get(0).count(), first.count());
        TopK.Estimate none = t.estimate("never-seen");
        assertFalse(none.listed());
        assertEquals(st.minCount(), none.count());
        assertEquals(3, t.top(3).size());
        assertEquals(top.subList(0, 3), t.top(3));
        assertEquals(0, t.top(0).size());
        // Merge keeps the guarantees for both streams.
        TopK a = TopK.create(capacity, 16, 8);
        TopK b = TopK.create(capacity, 16, 8);
        a.addAll(java.util.Arrays.copyOf(items, 100_000));
        b.addAll(java.util.Arrays.copyOfRange(items, 100_000, items.length));
        a.merge(b);
        assertEquals(items.length, a.stats().total());
        Map<String, Long> merged = new HashMap<>();
        for (TopK.Item it : a.top()) {
            merged.put(it.keyString(), it.count());
        }
        for (Map.Entry<String, Long> e : exact.entrySet()) {
            if (e.getValue() > items.length / capacity) {
                assertTrue(merged.containsKey(e.getKey()), "heavy hitter missing after merge: " + e);
                assertTrue(merged.get(e.getKey()) >= e.getValue());
            }
        }
    }

    @Test
    void topKEveryMethod() {
        TopK t = TopK.create(8, 8, 2);
        t.add("a");
        t.add("a", 2);
        t.add(new byte[] {1});
        t.add(new byte[] {1}, 3);
        t.add(5L);
        t.add(5L, 4);
        t.add(ByteBuffer.wrap(new byte[] {9}), 6);
        ByteBuffer direct = ByteBuffer.allocateDirect(3);
        direct.put(new byte[] {0, 9, 0}).position(1).limit(2);
        t.add(direct);
        t.add(ByteBuffer.wrap(new byte[] {9}).asReadOnlyBuffer());
        assertEquals(1, direct.position(), "the key buffer's position does not move");
        assertEquals(new TopK.Estimate(8, 0, true), t.estimate(direct));
        assertEquals(t.estimate(new byte[] {9}), t.estimate(ByteBuffer.wrap(new byte[] {7, 9}, 1, 1)));
        assertEquals(t.estimate(new byte[] {9}), t.estimate(ByteBuffer.wrap(new byte[] {9}).asReadOnlyBuffer()));
        assertEquals(new TopK.Estimate(0, 0, false), t.estimate(ByteBuffer.wrap(new byte[] {8})));
        assertEquals(3, t.estimate("a").count());
        assertEquals(4, t.estimate(new byte[] {1}).count());
        assertEquals(5, t.estimate(5L).count());
        assertEquals(8, t.top().get(0).count());
        assertEquals(5L, t.top(2).get(1).keyLong());
        assertThrows(IllegalStateException.class, () -> t.top(1).get(0).keyLong());
        // Items are immutable values: their key bytes are copied in and out.
        TopK.Item first = t.top(1).get(0);
        java.util.Set<TopK.Item> set = new java.util.HashSet<>(t.top());
        first.key()[0] ^= 1;
        assertEquals(t.top(1).get(0), first, "changing key()'s array does not change the item");
        assertTrue(set.contains(first), "an item stays findable in a HashSet");
        byte[] source = {1, 2, 3};
        TopK.Item made = new TopK.Item(source, 5, 1);
        source[0] = 9;
        assertArrayEquals(new byte[] {1, 2, 3}, made.key(), "the constructor copies the key");
        assertEquals(new TopK.Item(new byte[] {1, 2, 3}, 5, 1).hashCode(), made.hashCode());
        byte[] before = t.toByteArray();
        assertEquals(Status.KEY_TOO_LONG, assertThrows(SketchException.class, () -> t.add("longer than 8")).status());
        assertEquals(Status.KEY_TOO_LONG,
                assertThrows(SketchException.class, () -> t.addAll(new String[] {"ok", "longer than 8"})).status());
        assertArrayEquals(before, t.toByteArray(), "refused keys change nothing");
        TopK tiny = TopK.create(4, 4);
        assertEquals(Status.KEY_TOO_LONG, assertThrows(SketchException.class, () -> tiny.add(1L)).status());
        assertEquals(Status.KEY_TOO_LONG,
                assertThrows(SketchException.class, () -> tiny.addAll(new long[] {1})).status());
        // Estimates of keys longer than the sketch stores throw too (as their Javadoc says).
        assertEquals(Status.KEY_TOO_LONG, assertThrows(SketchException.class, () -> t.estimate("longer than 8")).status());
        assertEquals(Status.KEY_TOO_LONG, assertThrows(SketchException.class, () -> t.estimate(new byte[9])).status());
        assertEquals(Status.KEY_TOO_LONG,
                assertThrows(SketchException.class, () -> t.estimate(ByteBuffer.allocateDirect(9))).status());
        assertEquals(Status.KEY_TOO_LONG, assertThrows(SketchException.class, () -> tiny.estimate(1L)).status());
        // Batches equal single calls.
        String[] keys = new String[3000];
        long[] weights = new long[keys.length];
        TopK one = TopK.create(50, 12, 1);
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "k" + (i * 7 % 113);
            weights[i] = 1 + i % 5;
            one.add(keys[i], weights[i]);
        }
        TopK batch = TopK.create(50, 12, 1);
        batch.addAll(TestKeys.bytes(keys), weights);
        assertArrayEquals(one.toByteArray(), batch.toByteArray());
        TopK packed = TopK.create(50, 12, 1);
        Native.Packed p = Native.pack(keys);
        packed.addPacked(p.data(), p.offsets(), weights);
        assertArrayEquals(one.toByteArray(), packed.toByteArray());
        long[] longs = TestKeys.longs(0, 300);
        TopK ls = TopK.create(50, 12, 1);
        for (long k : longs) {
            ls.add(k);
        }
        TopK lb = TopK.create(50, 12, 1);
        lb.addAll(longs);
        assertArrayEquals(ls.toByteArray(), lb.toByteArray());
        assertEquals(one.top(), TopK.fromByteArray(one.toByteArray()).top());
        assertEquals(one.top(), TopK.wrapVerified(TestKeys.direct(one.toByteArray())).top());
        assertEquals(Status.INCOMPATIBLE, assertThrows(SketchException.class, () -> one.merge(t)).status());
        one.clear();
        assertEquals(0, one.top().size());
        assertEquals(0, one.stats().total());
        assertThrows(IllegalArgumentException.class, () -> TopK.create(0, 8));
        assertThrows(IllegalArgumentException.class, () -> TopK.create(1 << 21, 8));
        assertThrows(IllegalArgumentException.class, () -> t.top(-1));
        assertThrows(IllegalArgumentException.class, () -> t.add("a", -5));
        TopK.Item i1 = new TopK.Item(new byte[] {1}, 2, 0);
        assertEquals(i1, new TopK.Item(new byte[] {1}, 2, 0));
        assertEquals(i1.hashCode(), new TopK.Item(new byte[] {1}, 2, 0).hashCode());
        assertTrue(i1.toString().contains("count=2"));
    }

    @Test
    void minHashEstimatesJaccard() {
        // Sets A = 0..15000, B = 5000..20000: J = 10000 / 20000 = 0.5.
        MinHash a = MinHash.create(1024, 6);
        MinHash b = MinHash.create(1024, 6);
        a.addAll(TestKeys.longs(0, 15_000));
        b.addAll(TestKeys.longs(5000, 15_000));
        double j = a.jaccard(b);
        double se = Math.sqrt(0.5 * 0.5 / 1024);
        assertEquals(0.5, j, 4 * se);
        assertEquals(j, b.jaccard(a));
        // Merge is the sketch of the union.
        MinHash u = MinHash.create(1024, 6);
        u.addAll(TestKeys.longs(0, 20_000));
        a.merge(b);
        assertArrayEquals(u.signature(), a.signature());
        assertEquals(1.0, a.jaccard(u));
        assertEquals(1024, a.signature().length);
        MinHash.Stats s = a.stats();
        assertEquals(1024, s.registers());
        assertEquals(1024, s.filled());
        assertEquals(6, s.seed());
        // Every key form; batches equal single calls.
        MinHash one = MinHash.create(64, 1);
        assertTrue(one.add("x"));
        assertFalse(one.add("x"));
        one.add(new byte[] {1});
        one.add(3L);
        one.add(ByteBuffer.wrap(new byte[] {2}));
        MinHash batch = MinHash.create(64, 1);
        batch.addAll(new String[] {"x"});
        batch.addAll(new byte[][] {{1}});
        batch.addAll(new long[] {3});
        batch.addPacked(new byte[] {2}, new int[] {0, 1});
        assertArrayEquals(one.toByteArray(), batch.toByteArray());
        assertArrayEquals(one.signature(), MinHash.fromByteArray(one.toByteArray()).signature());
        assertArrayEquals(one.signature(), MinHash.wrapVerified(TestKeys.direct(one.toByteArray())).signature());
        assertEquals(Status.INCOMPATIBLE, assertThrows(SketchException.class, () -> one.jaccard(a)).status());
        assertEquals(Status.INCOMPATIBLE, assertThrows(SketchException.class, () -> one.merge(MinHash.create(64, 2))).status());
        one.clear();
        assertEquals(0, one.stats().filled());
        assertThrows(IllegalArgumentException.class, () -> MinHash.create(0));
        assertThrows(IllegalArgumentException.class, () -> MinHash.create((1 << 20) + 1));
        assertTrue(one.image().isReadOnly());
    }
}
