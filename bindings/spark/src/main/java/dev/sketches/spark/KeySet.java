package dev.sketches.spark;

import dev.sketches.BinaryFuseFilter;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The distinct keys of one group of {@code sketch_fuse_agg}: a binary fuse filter is static (built
 * once from its whole key set), so the aggregation buffer collects the keys and {@link #build()}
 * makes the filter in one native call when the group is finished.
 *
 * <p>Keys are byte strings (an integer key is its 8 little-endian bytes, as the hash sees it),
 * stored once each in the Arrow Binary layout (one byte array and an offsets array) with an
 * open-addressing index of key numbers (load at most 1/2): the key's bytes plus 12 to 20 bytes
 * per key, and up to twice that while an array grows. At most {@link #MAX_KEYS} distinct keys and {@link #MAX_BYTES}
 * bytes of keys per set; past either an add fails with {@link IllegalStateException} (nothing is
 * lost from the set). Between stages the set travels as {@link #toBytes()}.
 *
 * <p>Not thread-safe: one task thread uses a set.
 */
final class KeySet {
    /** Most distinct keys per set (a filter of them takes about 19 MiB at 8 bits, 38 at 16). */
    static final int MAX_KEYS = 1 << 24;

    /** Most bytes of keys per set. */
    static final int MAX_BYTES = 1 << 30;

    /** First bytes of {@link #toBytes()}: "FKS1". */
    private static final int MAGIC = 0x31534b46;

    /** Fingerprint bits of the filter the set becomes: 8 or 16. */
    final int fingerprintBits;

    private byte[] data = new byte[64];
    private int dataLength;
    /** Key i is {@code data[offsets[i] .. offsets[i + 1])}; {@code count + 1} entries in use. */
    private int[] offsets = new int[9];
    private int count;
    /** Open addressing, linear probing: key number + 1, 0 for an empty slot; a power of two long. */
    private int[] table = new int[16];

    KeySet(int fingerprintBits) {
        this.fingerprintBits = fingerprintBits;
    }

    /** Distinct keys held. */
    int size() {
        return count;
    }

    /**
     * Adds the key {@code src[from .. to)} unless the set holds it.
     *
     * @throws IllegalStateException when the set is full ({@link #MAX_KEYS}, {@link #MAX_BYTES});
     *     the set is unchanged
     */
    void add(byte[] src, int from, int to) {
        int length = to - from;
        int h = hash(src, from, to);
        int mask = table.length - 1;
        int slot = h & mask;
        for (int k; (k = table[slot]) != 0; slot = (slot + 1) & mask) {
            int at = offsets[k - 1];
            if (offsets[k] - at == length && Arrays.equals(data, at, at + length, src, from, to)) {
                return;
            }
        }
        if (count == MAX_KEYS || (long) dataLength + length > MAX_BYTES) {
            throw new IllegalStateException("a binary fuse filter aggregate holds at most " + MAX_KEYS
                    + " distinct keys and " + MAX_BYTES + " bytes of keys per group; split the group's keys");
        }
        if (dataLength + length > data.length) {
            long grown = Math.max(2L * data.length, (long) dataLength + length);
            data = Arrays.copyOf(data, (int) Math.min(grown, MAX_BYTES));
        }
        if (count + 2 > offsets.length) {
            offsets = Arrays.copyOf(offsets, 2 * offsets.length);
        }
        System.arraycopy(src, from, data, dataLength, length);
        dataLength += length;
        offsets[++count] = dataLength;
        table[slot] = count;
        if (2 * count > table.length) {
            rehash(2 * table.length);
        }
    }

    /** Adds the key's 8 little-endian bytes. */
    void add(long key) {
        byte[] b = new byte[8];
        ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).putLong(key);
        add(b, 0, 8);
    }

    /** Adds every key of {@code other} (which is not changed). */
    void addAll(KeySet other) {
        for (int i = 0; i < other.count; i++) {
            add(other.data, other.offsets[i], other.offsets[i + 1]);
        }
    }

    private void rehash(int slots) {
        int[] t = new int[slots];
        int mask = slots - 1;
        for (int i = 0; i < count; i++) {
            int slot = hash(data, offsets[i], offsets[i + 1]) & mask;
            while (t[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            t[slot] = i + 1;
        }
        table = t;
    }

    /** FNV-1a over the bytes, then a 32-bit finalizer (the low bits pick the slot). */
    private static int hash(byte[] b, int from, int to) {
        int h = 0x811c9dc5;
        for (int i = from; i < to; i++) {
            h = (h ^ (b[i] & 0xff)) * 0x01000193;
        }
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        return h ^ (h >>> 16);
    }

    /**
     * The binary fuse filter of the keys (seed 0; the build's result does not depend on the keys'
     * order, so it equals any binding's build from the same distinct keys).
     *
     * @throws dev.sketches.SketchException {@code BUILD_FAILED} when no fuse seed worked
     * @throws IllegalArgumentException when the build memory does not fit in one ByteBuffer
     */
    BinaryFuseFilter build() {
        return BinaryFuseFilter.buildPacked(data, Arrays.copyOf(offsets, count + 1), fingerprintBits, 0);
    }

    /** The set as bytes for {@link #fromBytes}: magic, bits, count, data length, offsets, data. */
    byte[] toBytes() {
        ByteBuffer b = ByteBuffer.allocate(16 + 4 * count + dataLength).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC).putInt(fingerprintBits).putInt(count).putInt(dataLength);
        for (int i = 1; i <= count; i++) {
            b.putInt(offsets[i]);
        }
        b.put(data, 0, dataLength);
        return b.array();
    }

    /**
     * Reads {@link #toBytes()}'s output.
     *
     * @throws IllegalArgumentException when the bytes are not a key set
     */
    static KeySet fromBytes(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes.length < 16 || b.getInt() != MAGIC) {
            throw new IllegalArgumentException("not a serialized key set");
        }
        int bits = b.getInt();
        int n = b.getInt();
        int length = b.getInt();
        if ((bits != 8 && bits != 16) || n < 0 || n > MAX_KEYS || length < 0
                || bytes.length != 16 + 4L * n + length) {
            throw new IllegalArgumentException("damaged serialized key set (" + bytes.length + " bytes)");
        }
        int[] ends = new int[n + 1];
        for (int i = 1; i <= n; i++) {
            ends[i] = b.getInt();
            if (ends[i] < ends[i - 1] || ends[i] > length) {
                throw new IllegalArgumentException("damaged serialized key set: bad offsets");
            }
        }
        if (ends[n] != length) {
            throw new IllegalArgumentException("damaged serialized key set: bad offsets");
        }
        KeySet s = new KeySet(bits);
        s.data = Arrays.copyOfRange(bytes, 16 + 4 * n, bytes.length);
        s.dataLength = length;
        s.offsets = ends.length >= 9 ? ends : Arrays.copyOf(ends, 9);
        s.count = n;
        s.rehash(Math.max(16, Integer.highestOneBit(Math.max(1, 2 * n)) << 1));
        return s;
    }
}
