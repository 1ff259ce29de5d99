package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The tokens of Bloom, split-block and HyperLogLog objects (sketch_*_token, the _with_token
 * single-key calls): single keys in every form answer and change the image exactly as batches do;
 * every way of making an object (create, import, wrap, downsize, conversion) leaves its token equal
 * to the one its image gives; zero and stale tokens change nothing but the time; errors are those
 * of the plain calls.
 */
class TokenTest {
    private static final int N = 5_000;
    private static final int CHUNK = 250;

    /**
     * Key i in one of the forms a single-key call takes (String, long String, non-ASCII String,
     * byte[], direct ByteBuffer, heap ByteBuffer slice, read-only ByteBuffer, long); {@link #raw}
     * gives the bytes each hashes as.
     */
    private static Object[] keys(String prefix, int count) {
        Object[] out = new Object[count];
        for (int i = 0; i < count; i++) {
            String s = prefix + i;
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            switch (i % 8) {
                case 0 -> out[i] = s;
                case 1 -> out[i] = s + "-" + "x".repeat(Native.STR_MAX); // longer than the native String path
                case 2 -> out[i] = s + "-\u00e9\u4e2d\ud83d\ude00"; // 2-, 3- and 4-byte UTF-8
                case 3 -> out[i] = b;
                case 4 -> out[i] = TestKeys.direct(b);
                case 5 -> {
                    byte[] padded = new byte[b.length + 4];
                    System.arraycopy(b, 0, padded, 2, b.length);
                    out[i] = ByteBuffer.wrap(padded, 2, b.length).slice();
                }
                case 6 -> out[i] = ByteBuffer.wrap(b).asReadOnlyBuffer();
                default -> out[i] = (prefix.hashCode() * 0x9E3779B97F4A7C15L) ^ i;
            }
        }
        return out;
    }

    /** The bytes each key hashes as: UTF-8, the bytes themselves, a long's 8 little-endian bytes. */
    private static byte[][] raw(Object[] keys) {
        byte[][] out = new byte[keys.length][];
        for (int i = 0; i < keys.length; i++) {
            Object k = keys[i];
            if (k instanceof String s) {
                out[i] = s.getBytes(StandardCharsets.UTF_8);
            } else if (k instanceof byte[] b) {
                out[i] = b;
            } else if (k instanceof ByteBuffer bb) {
                out[i] = new byte[bb.remaining()];
                bb.duplicate().get(out[i]);
            } else {
                out[i] = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong((Long) k).array();
            }
        }
        return out;
    }

    /** One single-key call of a sketch in its four forms, taking any key of {@link #keys}. */
    private record KeyCall(Predicate<String> string, Predicate<byte[]> bytes, Predicate<ByteBuffer> buffer,
            LongPredicate u64) {
        boolean of(Object k) {
            if (k instanceof String s) {
                return string.test(s);
            }
            if (k instanceof byte[] b) {
                return bytes.test(b);
            }
            if (k instanceof ByteBuffer b) {
                int pos = b.position();
                boolean r = buffer.test(b);
                assertEquals(pos, b.position(), "the key buffer's position moved");
                return r;
            }
            return u64.test((Long) k);
        }
    }

    private static KeyCall adds(BloomFilter f) {
        return new KeyCall(f::add, f::add, f::add, f::add);
    }

    private static KeyCall queries(BloomFilter f) {
        return new KeyCall(f::contains, f::contains, f::contains, f::contains);
    }

    private static KeyCall adds(SplitBlockBloomFilter f) {
        return new KeyCall(f::add, f::add, f::add, f::add);
    }

    private static KeyCall queries(SplitBlockBloomFilter f) {
        return new KeyCall(f::contains, f::contains, f::contains, f::contains);
    }

    private static KeyCall adds(HyperLogLog h) {
        return new KeyCall(h::add, h::add, h::add, h::add);
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static byte[] token(Native.Image img) {
        return bytes(img.tokenBytes());
    }

    private static void setToken(Native.Image img, byte[] token) {
        img.tokenBytes().put(token);
    }

    /**
     * The object's token is the one its image gives now: equal to the token of an independent wrap
     * of the same bytes ({@code rewrapped}), not zero, and holding the common header's first four
     * words (SKETCH_TOKEN_WORDS = 8 words in all).
     */
    private static void assertTokenCurrent(Native.Image img, Native.Image rewrapped) {
        byte[] t = token(img);
        assertEquals(Native.TOKEN_BYTES, t.length);
        assertEquals(0, img.token % 8, "token alignment");
        assertFalse(Arrays.equals(new byte[t.length], t), "the token was never filled");
        assertArrayEquals(Arrays.copyOf(bytes(img.view()), 32), Arrays.copyOf(t, 32));
        assertArrayEquals(token(rewrapped), t);
    }

    /**
     * Adds the keys in chunks: to {@code single} one by one through {@code add}, to {@code batch}
     * with {@code batchAdd} (which returns the per-key "new" answers, or null when the family has
     * none); after each chunk both images are byte-equal.
     */
    private static void addBoth(Object[] keys, KeyCall add, Function<byte[][], boolean[]> batchAdd,
            ByteBuffer single, ByteBuffer batch) {
        byte[][] raw = raw(keys);
        for (int from = 0; from < keys.length; from += CHUNK) {
            int to = Math.min(keys.length, from + CHUNK);
            boolean[] wasNew = batchAdd.apply(Arrays.copyOfRange(raw, from, to));
            for (int i = from; i < to; i++) {
                boolean r = add.of(keys[i]);
                if (wasNew != null) {
                    assertEquals(wasNew[i - from], r, "add of key " + i);
                }
            }
            assertArrayEquals(bytes(batch), bytes(single), "images after key " + to);
        }
    }

    /** Single queries answer as the batch query does: all of {@code present}, and {@code absent}. */
    private static void assertQueries(KeyCall contains, Object[] present, Object[] absent, boolean[] absentBatch) {
        for (int i = 0; i < present.length; i++) {
            assertTrue(contains.of(present[i]), "false negative at " + i);
        }
        for (int i = 0; i < absent.length; i++) {
            assertEquals(absentBatch[i], contains.of(absent[i]), "absent key " + i);
        }
    }

    @Test
    void bloomSingleKeysMatchBatches() {
        Object[] keys = keys("bloom-", N);
        Object[] absent = keys("absent-", N);
        BloomFilter single = BloomFilter.create(N, 0.01, 11);
        BloomFilter batch = BloomFilter.create(N, 0.01, 11);
        assertTokenCurrent(single.img(), BloomFilter.wrap(single.image()).img());
        addBoth(keys, adds(single), k -> {
            boolean[] wasNew = new boolean[k.length];
            batch.addAll(k, wasNew);
            return wasNew;
        }, single.image(), batch.image());
        assertEquals(batch.stats(), single.stats());
        assertQueries(queries(single), keys, absent, batch.containsAll(raw(absent)));
    }

    @Test
    void splitBlockSingleKeysMatchBatches() {
        for (boolean parquet : new boolean[] {false, true}) {
            Object[] keys = keys("sbbf-", N);
            Object[] absent = keys("absent-", N);
            SplitBlockBloomFilter single = SplitBlockBloomFilter.withBlocks(256, parquet, 0);
            SplitBlockBloomFilter batch = SplitBlockBloomFilter.withBlocks(256, parquet, 0);
            assertTokenCurrent(single.img(), SplitBlockBloomFilter.wrap(single.image()).img());
            addBoth(keys, adds(single), k -> {
                boolean[] wasNew = new boolean[k.length];
                batch.addAll(k, wasNew);
                return wasNew;
            }, single.image(), batch.image());
            assertEquals(batch.stats(), single.stats());
            assertQueries(queries(single), keys, absent, batch.containsAll(raw(absent)));
        }
    }

    @Test
    void hyperLogLogSingleKeysMatchBatches() {
        // Precision 10: the small (exact) mode converts to registers within the first chunks.
        for (int p : new int[] {10, 14}) {
            Object[] keys = keys("hll-", N);
            HyperLogLog single = HyperLogLog.create(p, 3);
            HyperLogLog batch = HyperLogLog.create(p, 3);
            assertTokenCurrent(single.img(), HyperLogLog.wrap(single.image()).img());
            addBoth(keys, adds(single), k -> {
                batch.addAll(k);
                return null;
            }, single.image(), batch.image());
            assertEquals(batch.stats(), single.stats());
            assertEquals(batch.estimate(), single.estimate());
            // A repeated key changes nothing.
            assertFalse(adds(single).of(keys[0]));
            assertArrayEquals(bytes(batch.image()), bytes(single.image()));
        }
    }

    @Test
    void everyWayOfMakingAnObjectFillsItsToken() {
        Object[] keys = keys("made-", N);
        Object[] more = keys("more-", 1000);
        byte[][] raw = raw(keys);

        BloomFilter bloom = BloomFilter.withBits(1 << 16, 4, 5);
        bloom.addAll(raw);
        byte[] bloomBytes = bloom.toByteArray();
        for (BloomFilter f : new BloomFilter[] {BloomFilter.fromByteArray(bloomBytes),
                BloomFilter.wrap(TestKeys.direct(bloomBytes)), BloomFilter.wrapVerified(TestKeys.direct(bloomBytes)),
                BloomFilter.wrap(bloom.image())}) {
            assertTokenCurrent(f.img(), BloomFilter.wrap(f.image()).img());
            assertQueries(queries(f), keys, more, bloom.containsAll(raw(more)));
        }
        BloomFilter imported = BloomFilter.fromByteArray(bloomBytes);
        for (Object k : more) {
            assertEquals(adds(bloom).of(k), adds(imported).of(k));
        }
        assertArrayEquals(bloom.toByteArray(), imported.toByteArray());

        SplitBlockBloomFilter sbbf = SplitBlockBloomFilter.forParquet(N, 0.01);
        sbbf.addAll(raw);
        byte[] sbbfBytes = sbbf.toByteArray();
        for (SplitBlockBloomFilter f : new SplitBlockBloomFilter[] {SplitBlockBloomFilter.fromByteArray(sbbfBytes),
                SplitBlockBloomFilter.wrap(TestKeys.direct(sbbfBytes)),
                SplitBlockBloomFilter.wrapVerified(TestKeys.direct(sbbfBytes))}) {
            assertTokenCurrent(f.img(), SplitBlockBloomFilter.wrap(f.image()).img());
            assertQueries(queries(f), keys, more, sbbf.containsAll(raw(more)));
        }
        SplitBlockBloomFilter sbbfImported = SplitBlockBloomFilter.fromByteArray(sbbfBytes);
        for (Object k : more) {
            assertEquals(adds(sbbf).of(k), adds(sbbfImported).of(k));
        }
        assertArrayEquals(sbbf.toByteArray(), sbbfImported.toByteArray());

        // HyperLogLog: a compact small-mode export and a dense one, downsizing, conversion.
        for (int count : new int[] {50, N}) {
            HyperLogLog h = HyperLogLog.create(12, 9);
            h.addAll(Arrays.copyOf(raw, count));
            byte[] hllBytes = h.toByteArray();
            HyperLogLog read = HyperLogLog.fromByteArray(hllBytes);
            assertTokenCurrent(read.img(), HyperLogLog.wrap(read.image()).img());
            if (!h.stats().small()) {
                HyperLogLog verified = HyperLogLog.wrapVerified(TestKeys.direct(hllBytes));
                assertTokenCurrent(verified.img(), HyperLogLog.wrap(verified.image()).img());
            }
            HyperLogLog down = h.downsize(10);
            assertTokenCurrent(down.img(), HyperLogLog.wrap(down.image()).img());
            for (Object k : more) {
                assertEquals(adds(h).of(k), adds(read).of(k));
            }
            assertArrayEquals(h.toByteArray(), read.toByteArray());
            assertEquals(h.estimate(), read.estimate());
        }
        UltraLogLog ull = UltraLogLog.create(12, 9);
        ull.addAll(raw);
        HyperLogLog converted = ull.toHyperLogLog();
        assertTokenCurrent(converted.img(), HyperLogLog.wrap(converted.image()).img());
        HyperLogLog direct = HyperLogLog.create(12, 9);
        direct.addAll(raw);
        for (Object k : more) {
            assertEquals(adds(direct).of(k), adds(converted).of(k));
        }
        assertEquals(direct.registerEstimate(), converted.registerEstimate());
    }

    @Test
    void zeroAndStaleTokensChangeNothingButTime() {
        Object[] keys = keys("stale-", N);
        Object[] absent = keys("absent-", 2000);
        byte[] zero = new byte[Native.TOKEN_BYTES];
        // Tokens of other images: another seed, other parameters, another family.
        byte[] otherSeed = token(BloomFilter.create(N, 0.01, 12).img());
        byte[] otherSize = token(BloomFilter.create(2 * N, 0.01, 11).img());
        byte[] otherFamily = token(SplitBlockBloomFilter.create(N, 0.01, 12).img());
        byte[] hllOther = token(HyperLogLog.create(12, 4).img());
        for (byte[] bad : new byte[][] {zero, otherSeed, otherSize, otherFamily, hllOther}) {
            BloomFilter single = BloomFilter.create(N, 0.01, 11);
            BloomFilter batch = BloomFilter.create(N, 0.01, 11);
            setToken(single.img(), bad);
            addBoth(keys, adds(single), k -> {
                boolean[] wasNew = new boolean[k.length];
                batch.addAll(k, wasNew);
                return wasNew;
            }, single.image(), batch.image());
            assertQueries(queries(single), keys, absent, batch.containsAll(raw(absent)));
            assertArrayEquals(bad, token(single.img()), "a call wrote the token");

            SplitBlockBloomFilter sSingle = SplitBlockBloomFilter.create(N, 0.01, 11);
            SplitBlockBloomFilter sBatch = SplitBlockBloomFilter.create(N, 0.01, 11);
            setToken(sSingle.img(), bad);
            addBoth(keys, adds(sSingle), k -> {
                boolean[] wasNew = new boolean[k.length];
                sBatch.addAll(k, wasNew);
                return wasNew;
            }, sSingle.image(), sBatch.image());
            assertQueries(queries(sSingle), keys, absent, sBatch.containsAll(raw(absent)));

            HyperLogLog hSingle = HyperLogLog.create(11, 11);
            HyperLogLog hBatch = HyperLogLog.create(11, 11);
            setToken(hSingle.img(), bad);
            addBoth(keys, adds(hSingle), k -> {
                hBatch.addAll(k);
                return null;
            }, hSingle.image(), hBatch.image());
            assertEquals(hBatch.estimate(), hSingle.estimate());
        }
    }

    @Test
    void aWrappedBufferRewrittenByOtherCodeIsValidatedAgain() {
        BloomFilter a = BloomFilter.create(1000, 0.01, 1);
        BloomFilter b = BloomFilter.create(1000, 0.01, 2); // same size, another seed
        a.addAll(TestKeys.strings("a-", 0, 1000));
        b.addAll(TestKeys.strings("b-", 0, 1000));
        ByteBuffer buffer = TestKeys.direct(a.toByteArray());
        BloomFilter wrapped = BloomFilter.wrap(buffer);
        assertTrue(wrapped.contains("a-1"));
        buffer.duplicate().put(b.toByteArray()); // the token is now stale
        for (String k : TestKeys.strings("b-", 0, 1000)) {
            assertTrue(wrapped.contains(k));
        }
        boolean[] expect = b.containsAll(TestKeys.strings("a-", 0, 1000));
        for (int i = 0; i < 1000; i++) {
            assertEquals(expect[i], wrapped.contains("a-" + i));
        }
        assertEquals(b.add("new"), wrapped.add("new"));
        assertArrayEquals(b.toByteArray(), wrapped.toByteArray());
    }

    @Test
    void errorsAreThoseOfThePlainCalls() {
        // A wrapped buffer damaged after wrapping (its magic: an identity word) misses the token; the
        // full validation reports it under the plain call's name.
        ByteBuffer bloom = TestKeys.direct(BloomFilter.create(1000, 0.01).toByteArray());
        BloomFilter f = BloomFilter.wrap(bloom);
        bloom.put(0, (byte) (bloom.get(0) ^ 1));
        assertError(Status.BAD_MAGIC, "sketch_bloom_add", () -> f.add("k"));
        assertError(Status.BAD_MAGIC, "sketch_bloom_add", () -> f.add(new byte[3]));
        assertError(Status.BAD_MAGIC, "sketch_bloom_add", () -> f.add(TestKeys.direct(new byte[3])));
        assertError(Status.BAD_MAGIC, "sketch_bloom_add_u64", () -> f.add(7L));
        assertError(Status.BAD_MAGIC, "sketch_bloom_contains", () -> f.contains("k"));
        assertError(Status.BAD_MAGIC, "sketch_bloom_contains_u64", () -> f.contains(7L));

        ByteBuffer sbbf = TestKeys.direct(SplitBlockBloomFilter.create(1000, 0.01).toByteArray());
        SplitBlockBloomFilter s = SplitBlockBloomFilter.wrap(sbbf);
        sbbf.put(0, (byte) (sbbf.get(0) ^ 1));
        assertError(Status.BAD_MAGIC, "sketch_sbbf_add", () -> s.add("k"));
        assertError(Status.BAD_MAGIC, "sketch_sbbf_add_u64", () -> s.add(7L));
        assertError(Status.BAD_MAGIC, "sketch_sbbf_contains", () -> s.contains(new byte[1]));
        assertError(Status.BAD_MAGIC, "sketch_sbbf_contains_u64", () -> s.contains(7L));

        HyperLogLog dense = HyperLogLog.create(10);
        dense.addAll(TestKeys.longs(0, 10_000));
        ByteBuffer hll = TestKeys.direct(dense.toByteArray());
        HyperLogLog h = HyperLogLog.wrap(hll);
        hll.put(0, (byte) (hll.get(0) ^ 1));
        assertError(Status.BAD_MAGIC, "sketch_hll_add", () -> h.add("k"));
        assertError(Status.BAD_MAGIC, "sketch_hll_add_u64", () -> h.add(7L));
        hll.put(0, (byte) (hll.get(0) ^ 1)); // repaired: the token matches again
        assertEquals(dense.add(7L), h.add(7L));
        bloom.put(0, (byte) (bloom.get(0) ^ 1));
        assertTrue(f.add("k"));
        assertTrue(f.contains("k"));

        // A filter over a read-only buffer refuses changes before any native call, as before.
        BloomFilter ro = BloomFilter.wrap(bloom.asReadOnlyBuffer());
        assertThrows(ReadOnlyBufferException.class, () -> ro.add("x"));
        assertTrue(ro.contains("k"));
    }

    private static void assertError(int status, String op, Executable call) {
        SketchException e = assertThrows(SketchException.class, call);
        assertEquals(status, e.status());
        assertTrue(e.getMessage().startsWith(op + ": "), e.getMessage());
    }
}
