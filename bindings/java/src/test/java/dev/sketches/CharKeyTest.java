package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * A {@code char} single key is refused with IllegalArgumentException and nothing changes, as the
 * C++ binding refuses it at compile time: Java widened it to the {@code long} overload, so {@code
 * f.add('x')} added the integer 120, not the key "x" that {@code f.add("x")} and Go, Python, C++
 * and Spark use ({@code f.contains("x")} stayed false).
 */
@SuppressWarnings("deprecation")
class CharKeyTest {
    private static void refused(Supplier<byte[]> image, Executable call) {
        byte[] before = image.get();
        assertThrows(IllegalArgumentException.class, call);
        assertArrayEquals(before, image.get(), "a refused char key changed the sketch");
    }

    @Test
    void charSingleKeysAreRefusedEverywhere() {
        BloomFilter bloom = BloomFilter.create(100, 0.01);
        refused(bloom::toByteArray, () -> bloom.add('x'));
        refused(bloom::toByteArray, () -> bloom.contains('x'));
        refused(bloom::toByteArray, () -> bloom.addConcurrent('x'));
        refused(bloom::toByteArray, () -> bloom.containsConcurrent('x'));

        SplitBlockBloomFilter sbbf = SplitBlockBloomFilter.create(100, 0.01);
        SplitBlockBloomFilter parquet = SplitBlockBloomFilter.forParquet(100, 0.01);
        for (SplitBlockBloomFilter f : new SplitBlockBloomFilter[] {sbbf, parquet}) {
            refused(f::toByteArray, () -> f.add('x'));
            refused(f::toByteArray, () -> f.contains('x'));
            refused(f::toByteArray, () -> f.addConcurrent('x'));
            refused(f::toByteArray, () -> f.containsConcurrent('x'));
        }

        CountingBloomFilter counting = CountingBloomFilter.create(100, 0.01);
        refused(counting::toByteArray, () -> counting.add('x'));
        refused(counting::toByteArray, () -> counting.contains('x'));
        refused(counting::toByteArray, () -> counting.remove('x'));

        CuckooFilter cuckoo = CuckooFilter.create(100, 0.01);
        refused(cuckoo::toByteArray, () -> cuckoo.add('x'));
        refused(cuckoo::toByteArray, () -> cuckoo.contains('x'));
        refused(cuckoo::toByteArray, () -> cuckoo.remove('x'));
        refused(cuckoo::toByteArray, () -> cuckoo.count('x'));

        BinaryFuseFilter fuse = BinaryFuseFilter.build(new String[] {"x"}, 8, 0);
        refused(fuse::toByteArray, () -> fuse.contains('x'));

        HyperLogLog hll = HyperLogLog.create(10);
        refused(hll::toByteArray, () -> hll.add('x'));
        hll.densify();
        refused(hll::toByteArray, () -> hll.addConcurrent('x'));
        UltraLogLog ull = UltraLogLog.create(10);
        refused(ull::toByteArray, () -> ull.add('x'));
        refused(ull::toByteArray, () -> ull.addConcurrent('x'));
        ExaLogLog ell = ExaLogLog.create(10);
        refused(ell::toByteArray, () -> ell.add('x'));
        MinHash minhash = MinHash.create(16);
        refused(minhash::toByteArray, () -> minhash.add('x'));

        CountMinSketch cms = CountMinSketch.create(0.01, 0.01);
        refused(cms::toByteArray, () -> cms.add('x'));
        refused(cms::toByteArray, () -> cms.add('x', 3));
        refused(cms::toByteArray, () -> cms.estimate('x'));
        TopK topk = TopK.create(4, 16);
        refused(topk::toByteArray, () -> topk.add('x'));
        refused(topk::toByteArray, () -> topk.add('x', 3));
        refused(topk::toByteArray, () -> topk.estimate('x'));

        assertThrows(IllegalArgumentException.class, () -> Sketches.hash('x', 0));

        // The forms the message points to still work: the character, or its code.
        bloom.add(String.valueOf('x'));
        assertTrue(bloom.contains("x"));
        bloom.add((long) 'y');
        assertTrue(bloom.contains(121L));
    }
}
