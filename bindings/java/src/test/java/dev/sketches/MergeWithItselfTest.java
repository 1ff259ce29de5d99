package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Merging a sketch with itself ({@code a.merge(a)}, as a loop over shards that starts with the
 * total does) merges an equal sketch, in every family, as in the Go and Python bindings: it threw
 * SketchException(OVERLAP), the library's refusal of a source overlapping its destination. Two
 * objects wrapping the same memory merge the same way.
 */
class MergeWithItselfTest {
    /** One family: a filled sketch, its image reader and wrapper, and the merge under test. */
    private record Family<T>(
            String name,
            Supplier<T> filled,
            Function<byte[], T> fromBytes,
            Function<ByteBuffer, T> wrap,
            BiConsumer<T, T> merge,
            Function<T, byte[]> bytes) {

        /** a.merge(a), and a wrapped image merged with a second wrap of its memory. */
        void check() {
            T a = filled.get();
            T expected = fromBytes.apply(bytes.apply(a));
            merge.accept(expected, fromBytes.apply(bytes.apply(a)));
            byte[] before = bytes.apply(a);
            merge.accept(a, a);
            assertArrayEquals(bytes.apply(expected), bytes.apply(a), name + ": a.merge(a)");
            if (!idempotent()) {
                assertFalse(java.util.Arrays.equals(before, bytes.apply(a)), name + ": counts did not grow");
            }

            ByteBuffer memory = TestKeys.direct(before);
            T w1 = wrap.apply(memory);
            T w2 = wrap.apply(memory.duplicate());
            merge.accept(w1, w2);
            assertArrayEquals(bytes.apply(expected), bytes.apply(w1), name + ": two wraps of one buffer");
            assertArrayEquals(bytes.apply(expected), bytes.apply(w2), name + ": the other wrap sees it");
        }

        /** Unions of sets (filters of bits, registers, minimums) do not change when merged again. */
        private boolean idempotent() {
            return !List.of("counting", "cuckoo", "countmin", "topk").contains(name);
        }
    }

    private static final long[] KEYS = java.util.stream.LongStream.range(0, 300).toArray();

    private static <T> void check(Family<T> f) {
        f.check();
    }

    @Test
    void everyFamilyMergesItselfAsAnEqualSketch() {
        check(new Family<BloomFilter>("bloom", () -> {
            BloomFilter f = BloomFilter.create(1000, 0.01, 3);
            f.addAll(KEYS);
            return f;
        }, BloomFilter::fromByteArray, BloomFilter::wrap, BloomFilter::merge, BloomFilter::toByteArray));
        check(new Family<SplitBlockBloomFilter>("sbbf", () -> {
            SplitBlockBloomFilter f = SplitBlockBloomFilter.create(1000, 0.01, 3);
            f.addAll(KEYS);
            return f;
        }, SplitBlockBloomFilter::fromByteArray, SplitBlockBloomFilter::wrap, SplitBlockBloomFilter::merge,
                SplitBlockBloomFilter::toByteArray));
        check(new Family<CountingBloomFilter>("counting", () -> {
            CountingBloomFilter f = CountingBloomFilter.create(1000, 0.01, 3);
            f.addAll(KEYS);
            return f;
        }, CountingBloomFilter::fromByteArray, CountingBloomFilter::wrap, CountingBloomFilter::merge,
                CountingBloomFilter::toByteArray));
        check(new Family<CuckooFilter>("cuckoo", () -> {
            CuckooFilter f = CuckooFilter.create(1000, 0.01, 3);
            f.addAll(KEYS);
            return f;
        }, CuckooFilter::fromByteArray, CuckooFilter::wrap, CuckooFilter::merge, CuckooFilter::toByteArray));
        check(new Family<HyperLogLog>("hll", () -> {
            HyperLogLog s = HyperLogLog.create(10, 3);
            s.addAll(KEYS);
            return s;
        }, HyperLogLog::fromByteArray, HyperLogLog::wrap, HyperLogLog::merge, HyperLogLog::toByteArray));
        check(new Family<UltraLogLog>("ull", () -> {
            UltraLogLog s = UltraLogLog.create(10, 3);
            s.addAll(KEYS);
            return s;
        }, UltraLogLog::fromByteArray, UltraLogLog::wrap, UltraLogLog::merge, UltraLogLog::toByteArray));
        check(new Family<ExaLogLog>("ell", () -> {
            ExaLogLog s = ExaLogLog.create(10, ExaLogLog.D20, 3);
            s.addAll(KEYS);
            return s;
        }, ExaLogLog::fromByteArray, ExaLogLog::wrap, ExaLogLog::merge, ExaLogLog::toByteArray));
        check(new Family<CountMinSketch>("countmin", () -> {
            CountMinSketch s = CountMinSketch.withSize(256, 4, 3);
            s.addAll(KEYS);
            return s;
        }, CountMinSketch::fromByteArray, CountMinSketch::wrap, CountMinSketch::merge,
                CountMinSketch::toByteArray));
        check(new Family<TopK>("topk", () -> {
            TopK s = TopK.create(64, 16, 3);
            s.addAll(KEYS);
            return s;
        }, TopK::fromByteArray, TopK::wrap, TopK::merge, TopK::toByteArray));
        check(new Family<MinHash>("minhash", () -> {
            MinHash s = MinHash.create(64, 3);
            s.addAll(KEYS);
            return s;
        }, MinHash::fromByteArray, MinHash::wrap, MinHash::merge, MinHash::toByteArray));
    }

    @Test
    void filtersIntersectWithThemselves() {
        BloomFilter b = BloomFilter.create(1000, 0.01, 3);
        b.addAll(KEYS);
        byte[] bloomBefore = b.toByteArray();
        b.intersect(b);
        assertArrayEquals(bloomBefore, b.toByteArray());
        SplitBlockBloomFilter s = SplitBlockBloomFilter.create(1000, 0.01, 3);
        s.addAll(KEYS);
        byte[] sbbfBefore = s.toByteArray();
        s.intersect(s);
        assertArrayEquals(sbbfBefore, s.toByteArray());
    }

    @Test
    void countsDoubleAsWithAnEqualSketch() {
        CountMinSketch c = CountMinSketch.withSize(256, 4, 3);
        c.add(7L, 5);
        c.merge(c);
        assertEquals(10, c.estimate(7L));
        assertEquals(10, c.total());
    }
}
