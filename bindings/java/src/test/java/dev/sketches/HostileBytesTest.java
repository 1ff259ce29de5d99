package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Golden images mutated thousands of ways (bit flips anywhere and in the header, truncations,
 * extensions, header fields overwritten) go through fromByteArray, wrap and wrapVerified; each
 * either works or throws SketchException, and the sketches that wrap accepts (the header is fine,
 * the body may be garbage) answer every query without crashing the JVM.
 */
class HostileBytesTest {
    private static final int MUTATIONS = 3000;

    /** One family: how to read bytes three ways and what to ask a sketch. */
    private record Family<T>(String golden, Function<byte[], T> fromBytes, Function<ByteBuffer, T> wrap,
            Function<ByteBuffer, T> wrapVerified, Consumer<T> exercise) {}

    private static byte[] mutate(byte[] g, SplittableRandom r) {
        byte[] m;
        switch (r.nextInt(6)) {
            case 0 -> { // a few bit flips anywhere
                m = g.clone();
                for (int i = 0, n = 1 + r.nextInt(4); i < n; i++) {
                    int at = r.nextInt(m.length);
                    m[at] ^= (byte) (1 << r.nextInt(8));
                }
            }
            case 1 -> { // a bit flip in the headers
                m = g.clone();
                int at = r.nextInt(Math.min(m.length, 384));
                m[at] ^= (byte) (1 << r.nextInt(8));
            }
            case 2 -> m = Arrays.copyOf(g, r.nextInt(g.length)); // truncation
            case 3 -> { // extension with random bytes
                m = Arrays.copyOf(g, g.length + 1 + r.nextInt(128));
                for (int i = g.length; i < m.length; i++) {
                    m[i] = (byte) r.nextInt();
                }
            }
            case 4 -> { // a header word overwritten with an extreme or random value
                m = g.clone();
                int at = r.nextInt(Math.min(m.length, 384) / 4) * 4;
                int v = switch (r.nextInt(4)) {
                    case 0 -> 0;
                    case 1 -> -1;
                    case 2 -> Integer.MAX_VALUE;
                    default -> r.nextInt();
                };
                ByteBuffer.wrap(m).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(at, v);
            }
            default -> { // random bytes in the body
                m = g.clone();
                for (int i = 0, n = 1 + r.nextInt(64); i < n; i++) {
                    m[r.nextInt(m.length)] = (byte) r.nextInt();
                }
            }
        }
        return m;
    }

    private static <T> void hammer(Family<T> f, long seed) {
        byte[] g = TestKeys.goldenImage(f.golden());
        SplittableRandom r = new SplittableRandom(seed);
        int accepted = 0;
        for (int i = 0; i < MUTATIONS; i++) {
            byte[] m = mutate(g, r);
            accepted += attempt(f, () -> f.fromBytes().apply(m));
            accepted += attempt(f, () -> f.wrapVerified().apply(TestKeys.direct(m)));
            accepted += attempt(f, () -> f.wrap().apply(TestKeys.direct(m)));
        }
        // The untouched image passes every way in.
        attempt(f, () -> f.fromBytes().apply(g));
        // An image of a newer format major version (the byte after the magic) is refused every way
        // in, with that status.
        byte[] newer = g.clone();
        newer[4]++;
        for (java.util.function.Supplier<T> read : java.util.List.<java.util.function.Supplier<T>>of(
                () -> f.fromBytes().apply(newer), () -> f.wrapVerified().apply(TestKeys.direct(newer)),
                () -> f.wrap().apply(TestKeys.direct(newer)))) {
            try {
                read.get();
                fail(f.golden() + ": a newer format version was read");
            } catch (SketchException e) {
                assertEquals(Status.UNSUPPORTED_VERSION, e.status(), f.golden() + ": " + e);
            }
        }
        assertTrue(accepted > 0, f.golden() + ": some mutated images should still wrap");
    }

    private static <T> int attempt(Family<T> f, java.util.function.Supplier<T> make) {
        T sketch;
        try {
            sketch = make.get();
        } catch (SketchException e) {
            return 0;
        } catch (RuntimeException e) {
            fail(f.golden() + ": unexpected " + e, e);
            return 0;
        }
        try {
            f.exercise().accept(sketch);
        } catch (SketchException e) {
            // a damaged body may refuse an operation; it must not crash
        } catch (RuntimeException e) {
            fail(f.golden() + ": unexpected " + e, e);
        }
        return 1;
    }

    private static final String[] PROBES = TestKeys.strings("golden-", 0, 64);
    private static final long[] LONG_PROBES = TestKeys.longs(0, 64);

    @Test
    void bloom() {
        hammer(new Family<>("bloom", BloomFilter::fromByteArray, BloomFilter::wrap, BloomFilter::wrapVerified, s -> {
            s.contains("golden-1");
            s.containsAll(PROBES);
            s.containsAll(LONG_PROBES);
            s.stats();
            s.capacityFlags();
            s.toByteArray();
            s.add("x");
            s.addAll(LONG_PROBES);
            s.merge(BloomFilter.fromByteArray(s.toByteArray()));
        }), 1);
    }

    @Test
    void splitBlock() {
        for (String g : new String[] {"sbbf", "sbbf_parquet"}) {
            hammer(new Family<>(g, SplitBlockBloomFilter::fromByteArray, SplitBlockBloomFilter::wrap,
                    SplitBlockBloomFilter::wrapVerified, s -> {
                        s.contains("golden-1");
                        s.containsAll(PROBES);
                        s.stats();
                        s.bitset();
                        s.toByteArray();
                        s.add(5L);
                        s.addAll(PROBES);
                    }), 2);
        }
    }

    @Test
    void counting() {
        hammer(new Family<>("counting", CountingBloomFilter::fromByteArray, CountingBloomFilter::wrap,
                CountingBloomFilter::wrapVerified, s -> {
                    s.contains("golden-1");
                    s.containsAll(PROBES);
                    s.stats();
                    s.remove("golden-2");
                    s.removeAll(LONG_PROBES);
                    s.add(3L);
                    s.toByteArray();
                }), 3);
    }

    @Test
    void cuckoo() {
        hammer(new Family<>("cuckoo", CuckooFilter::fromByteArray, CuckooFilter::wrap, CuckooFilter::wrapVerified,
                s -> {
                    s.contains("golden-1");
                    s.containsAll(PROBES);
                    s.count("golden-3");
                    s.stats();
                    s.remove("golden-2");
                    s.addAll(LONG_PROBES);
                    s.toByteArray();
                }), 4);
    }

    @Test
    void binaryFuse() {
        for (String g : new String[] {"fuse8", "fuse16"}) {
            hammer(new Family<>(g, BinaryFuseFilter::fromByteArray, BinaryFuseFilter::wrap,
                    BinaryFuseFilter::wrapVerified, s -> {
                        s.contains("golden-1");
                        s.contains(7L);
                        s.containsAll(PROBES);
                        s.containsAll(LONG_PROBES);
                        s.containsAll(TestKeys.bytes(PROBES));
                        s.stats();
                        s.toByteArray();
                    }), 10);
        }
    }

    @Test
    void exaLogLog() {
        for (String g : new String[] {"ell", "ell_d24"}) {
            hammer(new Family<>(g, ExaLogLog::fromByteArray, ExaLogLog::wrap, ExaLogLog::wrapVerified, s -> {
                s.estimate();
                s.mlEstimate();
                s.martingaleEstimate();
                s.stats();
                s.toByteArray();
                s.downsize(ExaLogLog.MIN_PRECISION, ExaLogLog.D20);
                s.addAll(LONG_PROBES);
                s.add("golden-1");
                s.estimate();
                ExaLogLog.create(ExaLogLog.MIN_PRECISION, ExaLogLog.D20, s.stats().seed()).merge(s);
            }), 11);
        }
    }

    @Test
    void hyperLogLog() {
        for (String g : new String[] {"hll_small", "hll_dense"}) {
            hammer(new Family<>(g, HyperLogLog::fromByteArray, HyperLogLog::wrap, HyperLogLog::wrapVerified, s -> {
                s.estimate();
                s.registerEstimate();
                s.stats();
                s.toByteArray();
                s.downsize(8);
                s.addAll(LONG_PROBES);
                s.addAll(PROBES);
                s.estimate();
                HyperLogLog.create(4, s.stats().seed()).merge(s);
            }), 5);
        }
    }

    @Test
    void ultraLogLog() {
        hammer(new Family<>("ull", UltraLogLog::fromByteArray, UltraLogLog::wrap, UltraLogLog::wrapVerified, s -> {
            s.estimate();
            s.registerEstimate();
            s.mlEstimate();
            s.stats();
            s.toHyperLogLog();
            s.toByteArray();
            s.addAll(LONG_PROBES);
            UltraLogLog.create(4, s.stats().seed()).merge(s);
        }), 6);
    }

    @Test
    void countMin() {
        hammer(new Family<>("countmin", CountMinSketch::fromByteArray, CountMinSketch::wrap,
                CountMinSketch::wrapVerified, s -> {
                    s.estimate("golden-1");
                    s.estimateAll(PROBES);
                    s.estimateAll(LONG_PROBES);
                    s.stats();
                    s.addAll(PROBES);
                    s.add(7L, 5);
                    s.toByteArray();
                }), 7);
    }

    @Test
    void minHash() {
        hammer(new Family<>("minhash", MinHash::fromByteArray, MinHash::wrap, MinHash::wrapVerified, s -> {
            s.jaccard(MinHash.fromByteArray(TestKeys.goldenImage("minhash")));
            s.signature();
            s.stats();
            s.addAll(PROBES);
            s.toByteArray();
        }), 8);
    }

    @Test
    void topK() {
        hammer(new Family<>("topk", TopK::fromByteArray, TopK::wrap, TopK::wrapVerified, s -> {
            s.top();
            s.estimate("golden-1");
            s.estimate(7L);
            s.stats();
            s.addAll(PROBES);
            s.add(7L, 3);
            s.top(5);
            s.toByteArray();
        }), 9);
    }
}
