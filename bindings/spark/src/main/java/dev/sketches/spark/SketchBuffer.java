package dev.sketches.spark;

import dev.sketches.SketchException;
import dev.sketches.Status;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The aggregation buffer of one group in one partition: the live sketch (made on first use, so an
 * empty group allocates nothing) and the keys not yet handed to it. Keys are buffered and cross
 * into native code in batches of up to {@link #BATCH} keys (integers through the 8-byte batch,
 * strings and binaries packed in the Arrow Binary layout), not one call per row. The arrays grow
 * from a few slots, so many small groups stay small.
 *
 * <p>Spark moves buffers between stages with Java serialization: {@code writeObject} flushes the
 * pending keys and writes only the exported image (not the spec, which the aggregator holds; for
 * the binary fuse filter, the group's distinct keys, see {@link Family#save}), {@code readObject}
 * reads the bytes, and {@link #with} imports them through the binding's checked import once the
 * aggregator hands the spec back. Not thread-safe: Spark uses one buffer from one
 * task thread.
 *
 * <p>Public only because Spark's serialization encoder requires it; it has no public members and
 * is not part of the API.
 */
public final class SketchBuffer implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Keys per native batch. */
    static final int BATCH = 8192;

    /** Bytes of packed keys that also trigger a flush. */
    private static final int DATA_LIMIT = 1 << 20;

    /** The call's spec: set at creation, or by {@link #with} after deserialization. */
    private transient AggSpec spec;
    /** An image read from the stream, not yet imported (needs the spec's family). */
    private transient byte[] received;
    private transient Object sketch;
    private transient long[] longs;
    private transient int longCount;
    private transient byte[] data;
    private transient int dataLength;
    private transient int[] offsets;
    private transient int keyCount;
    /**
     * Cuckoo filter only: the keys this buffer stored, so that each distinct key is stored once
     * (made on first use; not serialized: a buffer read back stores keys it may hold again, as
     * copies, which only take slots).
     */
    private transient StoredKeys stored;

    SketchBuffer(AggSpec spec) {
        this.spec = spec;
    }

    /**
     * Attaches the call's spec to a buffer that came through serialization (which carries only
     * the image, not the spec) and imports its image; a no-op on a buffer that has them.
     */
    SketchBuffer with(AggSpec spec) {
        if (this.spec == null) {
            this.spec = spec;
        }
        if (received != null) {
            byte[] image = received;
            received = null;
            sketch = load(spec, image);
        }
        return this;
    }

    /** Buffers a key: String (UTF-8), Number (its long value, 8 bytes LE) or byte[]; null is skipped. */
    void addKey(Object key) {
        if (key == null) {
            return;
        }
        if (key instanceof String s) {
            addBytes(s.getBytes(StandardCharsets.UTF_8));
        } else if (key instanceof byte[] b) {
            addBytes(b);
        } else if (key instanceof Number n) {
            addLong(n.longValue());
        } else {
            throw new IllegalArgumentException(spec.function + ": unsupported key of class " + key.getClass().getName());
        }
    }

    private void addLong(long key) {
        checkLength(8);
        if (longs == null) {
            longs = new long[16];
        } else if (longCount == longs.length) {
            longs = Arrays.copyOf(longs, longs.length * 2);
        }
        longs[longCount++] = key;
        if (longCount == BATCH) {
            flushLongs();
        }
    }

    private void addBytes(byte[] key) {
        checkLength(key.length);
        if (offsets == null) {
            offsets = new int[17];
            data = new byte[Math.max(256, key.length)];
        }
        if (keyCount + 1 == offsets.length) {
            offsets = Arrays.copyOf(offsets, (offsets.length - 1) * 2 + 1);
        }
        if (dataLength + key.length > data.length) {
            data = Arrays.copyOf(data, Math.max(data.length * 2, dataLength + key.length));
        }
        System.arraycopy(key, 0, data, dataLength, key.length);
        dataLength += key.length;
        offsets[++keyCount] = dataLength;
        if (keyCount == BATCH || dataLength >= DATA_LIMIT) {
            flushPacked();
        }
    }

    private void checkLength(int length) {
        if (spec.maxKeyLength > 0 && length > spec.maxKeyLength) {
            throw new IllegalArgumentException(spec.function + ": a key of " + length
                    + " bytes is longer than max_key_len (" + spec.maxKeyLength + " bytes)");
        }
    }

    /** Merges an exported image of the buffer's family into it (union aggregates); null is skipped. */
    void addImage(byte[] image) {
        if (image == null) {
            return;
        }
        Object other = read(spec, image);
        if (sketch == null) {
            sketch = other;
        } else {
            merge(other);
        }
    }

    /** Merges another buffer of the same call into this one (both flushed first). */
    SketchBuffer mergeFrom(SketchBuffer other) {
        flush();
        other.flush();
        if (other.sketch == null) {
            return this;
        }
        if (sketch == null) {
            return other;
        }
        merge(other.sketch);
        return this;
    }

    private void merge(Object other) {
        try {
            sketch = spec.family.merge(sketch, other);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(spec.function + ": " + e.getMessage(), e);
        } catch (SketchException e) {
            if (e.status() == Status.FULL && spec.factory != null) {
                throw new IllegalStateException(spec.function + ": the " + spec.family.title + " is full after"
                        + " merging the partial filters of several input partitions: a key that several"
                        + " partitions hold takes a slot in each; aggregate distinct keys ("
                        + spec.function + "(DISTINCT key, ...), which Spark groups by key first) or plan"
                        + " for more items", e);
            } else if (e.status() == Status.FULL) {
                throw new IllegalStateException(spec.function + ": the merged " + spec.family.title + " is full: "
                        + e.statusText() + " (a merge copies entries, so a key in several images takes several"
                        + " slots; merge filters of disjoint keys or plan them for the sum)", e);
            }
            throw new IllegalArgumentException(spec.function + ": cannot merge " + spec.family.title
                    + " images: " + e.statusText() + " (images merge only with equal parameters and seed)", e);
        }
    }

    /**
     * The exported image: of the keys' sketch (an empty one made from the parameters when no key
     * arrived), or null for a union aggregate that saw no image.
     */
    byte[] result() {
        flush();
        if (sketch == null) {
            if (spec.factory == null) {
                return null;
            }
            sketch = create();
        }
        try {
            return spec.family.export(sketch);
        } catch (SketchException e) {
            throw new IllegalStateException(spec.function + ": cannot build the " + spec.family.title + ": "
                    + e.statusText(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(spec.function + ": cannot build the " + spec.family.title + ": "
                    + e.getMessage(), e);
        }
    }

    private void flush() {
        flushLongs();
        flushPacked();
    }

    private void flushLongs() {
        if (longCount == 0) {
            return;
        }
        long[] keys = longCount == longs.length ? longs : Arrays.copyOf(longs, longCount);
        longCount = 0;
        long notStored;
        try {
            if (spec.family == Family.CUCKOO) {
                keys = storedKeys().fresh(keys);
                if (keys.length == 0) {
                    return;
                }
            }
            notStored = spec.family.addLongs(sketch(), keys);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(spec.function + ": " + e.getMessage(), e);
        }
        rejected(notStored);
    }

    private void flushPacked() {
        if (keyCount == 0) {
            return;
        }
        int[] offs = keyCount + 1 == offsets.length ? offsets : Arrays.copyOf(offsets, keyCount + 1);
        byte[] bytes = data;
        keyCount = 0;
        dataLength = 0;
        long notStored;
        try {
            if (spec.family == Family.CUCKOO) {
                Object[] fresh = storedKeys().fresh(bytes, offs);
                if (fresh == null) {
                    return;
                }
                bytes = (byte[]) fresh[0];
                offs = (int[]) fresh[1];
            }
            notStored = spec.family.addPacked(sketch(), bytes, offs);
        } catch (SketchException e) {
            throw new IllegalArgumentException(spec.function + ": " + e.statusText(), e);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(spec.function + ": " + e.getMessage(), e);
        }
        rejected(notStored);
    }

    /** The cuckoo filter's set of stored keys, made on first use. */
    private StoredKeys storedKeys() {
        if (stored == null) {
            stored = new StoredKeys();
        }
        return stored;
    }

    private void rejected(long count) {
        if (count > 0) {
            throw new IllegalStateException(spec.function + ": the " + spec.family.title + " is full: " + count
                    + " keys could not be stored; plan it for more items");
        }
    }

    private Object sketch() {
        if (sketch == null) {
            sketch = create();
        }
        return sketch;
    }

    private Object create() {
        try {
            return spec.factory.create();
        } catch (IllegalArgumentException | SketchException e) {
            throw new IllegalArgumentException(spec.function + ": bad parameters: " + e.getMessage(), e);
        }
    }

    /** Reads a buffer's saved bytes ({@link Family#save}) for {@code spec}'s function. */
    private static Object load(AggSpec spec, byte[] bytes) {
        try {
            return spec.family.load(bytes);
        } catch (SketchException e) {
            throw new IllegalArgumentException(spec.function + ": not a valid " + spec.family.title + " image ("
                    + bytes.length + " bytes): " + e.statusText(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(spec.function + ": " + e.getMessage(), e);
        }
    }

    /** Reads an image for {@code spec}'s function, turning a binding error into one naming it. */
    static Object read(AggSpec spec, byte[] image) {
        return read(spec.function, spec.family, image);
    }

    /** Reads an image of {@code family} for {@code function}, with an error naming the function. */
    static Object read(String function, Family family, byte[] image) {
        try {
            return family.read(image);
        } catch (SketchException e) {
            throw new IllegalArgumentException(function + ": not a valid " + family.title + " image ("
                    + image.length + " bytes): " + e.statusText() + otherFamily(e, image), e);
        }
    }

    /** For an image of another family, which one it holds (" (it is a HyperLogLog sketch image)"); else "". */
    private static String otherFamily(SketchException e, byte[] image) {
        if (e.status() != Status.WRONG_FAMILY) {
            return "";
        }
        try {
            Family other = Family.byId(dev.sketches.Sketches.inspect(image).family());
            return other == null ? "" : " (it is a " + other.title + " image)";
        } catch (SketchException | IllegalArgumentException ignored) {
            return "";
        }
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
        out.defaultWriteObject();
        byte[] image = received;
        if (image == null) {
            flush();
            image = sketch == null ? null : spec.family.save(sketch);
        }
        out.writeObject(image);
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        received = (byte[]) in.readObject();
    }
}
