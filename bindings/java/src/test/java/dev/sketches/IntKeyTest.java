package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * {@code int} keys of {@link SplitBlockBloomFilter}: a Parquet-mode filter holding an INT32
 * column's values (as a Parquet writer inserts them, {@code parquetHash(int)}) answers an {@code
 * int} key as that INT32 value, instead of the {@code int} widening to the {@code long} (INT64)
 * form and missing every value; a native-mode filter hashes an {@code int} as the {@code long} of
 * the same value, as every other family does.
 */
class IntKeyTest {
    @Test
    void parquetModeIntKeysAreInt32Values() {
        // An INT32 column's filter, as read from a Parquet file: the writer inserted parquetHash(int).
        SplitBlockBloomFilter column = SplitBlockBloomFilter.forParquet(1000, 0.01);
        for (int v = -500; v < 500; v++) {
            column.addHash(SplitBlockBloomFilter.parquetHash(v));
        }
        SplitBlockBloomFilter loaded = SplitBlockBloomFilter.fromParquetBitset(bytes(column.bitset()), 0.01);
        SplitBlockBloomFilter wrapped = SplitBlockBloomFilter.wrap(direct(column.toByteArray()));
        for (SplitBlockBloomFilter f : new SplitBlockBloomFilter[] {column, loaded, wrapped}) {
            assertTrue(f.isParquetMode());
            assertEquals(SplitBlockBloomFilter.MODE_PARQUET, f.stats().mode());
            for (int v = -500; v < 500; v++) {
                assertTrue(f.contains(v), "INT32 value " + v);
                assertTrue(f.containsConcurrent(v), "INT32 value " + v);
            }
            int absent = 0;
            for (int v = 1_000_000; v < 1_010_000; v++) {
                absent += f.contains(v) ? 0 : 1;
            }
            assertTrue(absent > 9_000, absent + " of 10000 absent INT32 values answered absent");
        }

        // add(int) inserts what a writer inserts for the INT32 value: the same bitset.
        SplitBlockBloomFilter byInt = SplitBlockBloomFilter.forParquet(1000, 0.01);
        SplitBlockBloomFilter byIntConcurrent = SplitBlockBloomFilter.forParquet(1000, 0.01);
        for (int v = -500; v < 500; v++) {
            byInt.add(v);
            byIntConcurrent.addConcurrent(v);
        }
        assertArrayEquals(bytes(column.bitset()), bytes(byInt.bitset()));
        assertArrayEquals(bytes(column.bitset()), bytes(byIntConcurrent.bitset()));

        // A long stays an INT64 value.
        SplitBlockBloomFilter int64 = SplitBlockBloomFilter.forParquet(1000, 0.01);
        int64.add(7L);
        assertTrue(int64.containsHash(SplitBlockBloomFilter.parquetHash(7L)));
        assertFalse(int64.containsHash(SplitBlockBloomFilter.parquetHash(7)));
    }

    @Test
    void nativeModeIntKeysAreTheirLong() {
        SplitBlockBloomFilter byInt = SplitBlockBloomFilter.create(1000, 0.01, 42);
        SplitBlockBloomFilter byLong = SplitBlockBloomFilter.create(1000, 0.01, 42);
        SplitBlockBloomFilter byConcurrent = SplitBlockBloomFilter.create(1000, 0.01, 42);
        assertFalse(byInt.isParquetMode());
        for (int v = -500; v < 500; v++) {
            assertEquals(byLong.add((long) v), byInt.add(v));
            byConcurrent.addConcurrent(v);
        }
        assertArrayEquals(byLong.toByteArray(), byInt.toByteArray());
        assertArrayEquals(bytes(byLong.bitset()), bytes(byConcurrent.bitset()));
        for (int v = -500; v < 500; v++) {
            assertTrue(byLong.contains(v));
            assertTrue(byLong.containsConcurrent(v));
        }
        // The same keys in a Bloom filter (no int overload: the long form) answer alike.
        BloomFilter bloom = BloomFilter.create(1000, 0.01, 42);
        bloom.add(-3);
        assertTrue(bloom.contains(-3L));
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static ByteBuffer direct(byte[] image) {
        ByteBuffer b = ByteBuffer.allocateDirect(image.length + 64);
        b = b.alignedSlice(64).limit(image.length);
        b.put(image).flip();
        return b;
    }
}
