package dev.sketches.spark;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The keys one partial cuckoo filter of {@code sketch_cuckoo_agg} has stored, so that each
 * distinct key is stored once: a cuckoo filter stores repeated adds of a key as copies, and asking
 * the filter itself whether it holds a key answers true for a key that is only a false positive
 * (about fpp / 2 of the keys), which then went unstored and answered false once the key it
 * collided with was removed. Integer keys are held as themselves (exact); other keys (strings,
 * binaries) as a 64-bit hash of their bytes, so two distinct keys are taken for one with
 * probability about 2^-64 per pair.
 *
 * <p>An open-addressing set of longs (linear probing, at most 3/4 full): 8 bytes per slot, so
 * about 11 to 21 bytes per distinct key. At most 2^29 keys, past which {@link #add} throws
 * {@link IllegalStateException}. Not thread-safe: one task thread uses a set.
 */
final class StoredKeys {
    /** Most keys a set holds (slots stay a power of two no longer than 2^30). */
    static final int MAX_KEYS = (1 << 30) / 4 * 3;

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** Slots; 0 is an empty slot, the key 0 is {@link #hasZero}. */
    private long[] slots = new long[64];
    private boolean hasZero;
    private int size;

    /**
     * Adds an integer key; returns whether it was not held before.
     *
     * @throws IllegalStateException when the set holds {@link #MAX_KEYS} keys (it is unchanged)
     */
    boolean add(long key) {
        if (key == 0) {
            boolean fresh = !hasZero;
            hasZero = true;
            return fresh;
        }
        int mask = slots.length - 1;
        int i = (int) mix(key) & mask;
        for (long s; (s = slots[i]) != 0; i = (i + 1) & mask) {
            if (s == key) {
                return false;
            }
        }
        if (size == MAX_KEYS) {
            throw new IllegalStateException("a partial cuckoo filter aggregate stores at most " + MAX_KEYS
                    + " distinct keys per group and input partition; split the group or repartition the input");
        }
        slots[i] = key;
        size++;
        if (4L * size > 3L * slots.length) {
            grow();
        }
        return true;
    }

    /** Adds the byte key {@code data[from .. to)} (as its 64-bit hash); returns whether it was not held. */
    boolean add(byte[] data, int from, int to) {
        return add(hash(data, from, to));
    }

    private void grow() {
        long[] old = slots;
        slots = new long[old.length * 2];
        int mask = slots.length - 1;
        for (long s : old) {
            if (s != 0) {
                int i = (int) mix(s) & mask;
                while (slots[i] != 0) {
                    i = (i + 1) & mask;
                }
                slots[i] = s;
            }
        }
    }

    /** The keys of {@code keys} not held before, each once, in their order (added to the set). */
    long[] fresh(long[] keys) {
        long[] out = new long[keys.length];
        int n = 0;
        for (long k : keys) {
            if (add(k)) {
                out[n++] = k;
            }
        }
        return n == keys.length ? out : Arrays.copyOf(out, n);
    }

    /**
     * The packed keys ({@code offsets.length - 1} keys in the Arrow Binary layout) not held before,
     * each once, in their order (added to the set), packed the same way: {@code {data, offsets}}
     * as an Object pair, or null when none is fresh.
     */
    Object[] fresh(byte[] data, int[] offsets) {
        int n = offsets.length - 1;
        int[] outOffsets = new int[n + 1];
        byte[] outData = new byte[offsets[n] - offsets[0]];
        int count = 0;
        int length = 0;
        for (int i = 0; i < n; i++) {
            int from = offsets[i];
            int to = offsets[i + 1];
            if (add(data, from, to)) {
                System.arraycopy(data, from, outData, length, to - from);
                length += to - from;
                outOffsets[++count] = length;
            }
        }
        if (count == 0) {
            return null;
        }
        return new Object[] {outData, count == n ? outOffsets : Arrays.copyOf(outOffsets, count + 1)};
    }

    /** A 64-bit hash of bytes: each 8-byte word (little-endian, the tail zero-padded) mixed in, with the length. */
    static long hash(byte[] b, int from, int to) {
        long h = 0x9E3779B97F4A7C15L ^ ((long) (to - from) * 0xC2B2AE3D27D4EB4FL);
        int i = from;
        for (; i + 8 <= to; i += 8) {
            h = Long.rotateLeft(h ^ mix((long) LONGS.get(b, i)), 29) * 0x9E3779B97F4A7C15L;
        }
        long tail = 0;
        for (int shift = 0; i < to; i++, shift += 8) {
            tail |= (b[i] & 0xffL) << shift;
        }
        return mix(h ^ mix(tail ^ 0x5851F42D4C957F2DL));
    }

    /** MurmurHash3's 64-bit finalizer (a bijection). */
    private static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }
}
