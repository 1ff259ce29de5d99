package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.ObjectStreamConstants;
import java.io.Serializable;
import java.io.StreamCorruptedException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Java serialization of every family: the serialized form is the checked export, read back
 * through the checked import (a serialization proxy), so damaged or forged streams are refused.
 */
class SerializationTest {
    /** Keys added to each sketch, and keys asked about (half of them added). */
    private static final String[] ADDED = TestKeys.strings("ser-", 0, 2_000);
    private static final String[] ASKED = TestKeys.strings("ser-", 1_000, 2_000);

    /**
     * One family: a sketch with content, its export, the answers compared across a round trip, and
     * its wrap factory.
     */
    private record Family(String name, Supplier<Object> make, Function<Object, byte[]> export,
            Function<Object, List<Object>> answers, Function<ByteBuffer, Object> wrap) {}

    @SuppressWarnings("unchecked")
    private static <T> Family family(String name, Supplier<T> make, Function<T, byte[]> export,
            Function<T, List<Object>> answers, Function<ByteBuffer, T> wrap) {
        return new Family(name, (Supplier<Object>) make, o -> export.apply((T) o), o -> answers.apply((T) o),
                b -> wrap.apply(b));
    }

    private static List<Family> families() {
        return List.of(
                family("BloomFilter", () -> {
                    BloomFilter f = BloomFilter.create(5_000, 0.01, 7);
                    f.addAll(ADDED);
                    return f;
                }, BloomFilter::toByteArray, f -> List.of(Arrays.toString(f.containsAll(ASKED)), f.stats()),
                        BloomFilter::wrap),
                family("SplitBlockBloomFilter", () -> {
                    SplitBlockBloomFilter f = SplitBlockBloomFilter.create(5_000, 0.01, 7);
                    f.addAll(ADDED);
                    return f;
                }, SplitBlockBloomFilter::toByteArray,
                        f -> List.of(Arrays.toString(f.containsAll(ASKED)), f.stats()), SplitBlockBloomFilter::wrap),
                family("CountingBloomFilter", () -> {
                    CountingBloomFilter f = CountingBloomFilter.create(5_000, 0.01, 7);
                    f.addAll(ADDED);
                    f.remove(ADDED[0]);
                    return f;
                }, CountingBloomFilter::toByteArray,
                        f -> List.of(Arrays.toString(f.containsAll(ASKED)), f.stats()), CountingBloomFilter::wrap),
                family("CuckooFilter", () -> {
                    CuckooFilter f = CuckooFilter.create(5_000, 0.01, 7);
                    f.addAll(ADDED);
                    f.remove(ADDED[0]);
                    return f;
                }, CuckooFilter::toByteArray, f -> List.of(Arrays.toString(f.containsAll(ASKED)), f.stats()),
                        CuckooFilter::wrap),
                family("BinaryFuseFilter", () -> BinaryFuseFilter.build(ADDED, 8, 7), BinaryFuseFilter::toByteArray,
                        f -> List.of(Arrays.toString(f.containsAll(ASKED)), f.stats()), BinaryFuseFilter::wrap),
                family("HyperLogLog", () -> {
                    HyperLogLog h = HyperLogLog.create(12, 7);
                    h.addAll(ADDED);
                    return h;
                }, HyperLogLog::toByteArray, h -> List.of(h.estimate(), h.registerEstimate(), h.stats()),
                        HyperLogLog::wrap),
                family("HyperLogLog(small)", () -> {
                    HyperLogLog h = HyperLogLog.create(14, 7);
                    h.addAll(TestKeys.strings("few-", 0, 20));
                    assertTrue(h.stats().small());
                    return h;
                }, HyperLogLog::toByteArray, h -> List.of(h.estimate(), h.stats()), HyperLogLog::wrap),
                family("UltraLogLog", () -> {
                    UltraLogLog u = UltraLogLog.create(12, 7);
                    u.addAll(ADDED);
                    return u;
                }, UltraLogLog::toByteArray, u -> List.of(u.estimate(), u.mlEstimate(), u.stats()),
                        UltraLogLog::wrap),
                family("ExaLogLog", () -> {
                    ExaLogLog e = ExaLogLog.create(10, ExaLogLog.D20, 7);
                    e.addAll(ADDED);
                    return e;
                }, ExaLogLog::toByteArray, e -> List.of(e.estimate(), e.mlEstimate(), e.stats()), ExaLogLog::wrap),
                family("CountMinSketch", () -> {
                    CountMinSketch c = CountMinSketch.create(0.001, 0.01, 7);
                    c.addAll(ADDED);
                    c.add("heavy", 1_000);
                    return c;
                }, CountMinSketch::toByteArray,
                        c -> List.of(Arrays.toString(c.estimateAll(ASKED)), c.estimate("heavy"), c.stats()),
                        CountMinSketch::wrap),
                family("TopK", () -> {
                    TopK t = TopK.create(64, 32, 7);
                    t.addAll(ADDED);
                    t.add("heavy", 1_000);
                    t.add("medium", 100);
                    return t;
                }, TopK::toByteArray, t -> List.of(t.top(10).toString(), t.estimate("heavy"), t.stats()),
                        TopK::wrap),
                family("MinHash", () -> {
                    MinHash m = MinHash.create(128, 7);
                    m.addAll(ADDED);
                    return m;
                }, MinHash::toByteArray, m -> List.of(Arrays.toString(m.signature()), m.stats()), MinHash::wrap));
    }

    static byte[] serialize(Object o) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static Object deserialize(byte[] stream) throws IOException, ClassNotFoundException {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(stream))) {
            return in.readObject();
        }
    }

    /** Where {@code part} starts in {@code whole} (exactly once), for finding the image in a stream. */
    static int indexOf(byte[] whole, byte[] part) {
        int found = -1;
        for (int i = 0; i + part.length <= whole.length; i++) {
            if (Arrays.equals(whole, i, i + part.length, part, 0, part.length)) {
                assertEquals(-1, found, "the image appears twice in the stream");
                found = i;
            }
        }
        assertTrue(found >= 0, "the exported image is not in the stream");
        return found;
    }

    @Test
    void everyFamilyRoundTripsWithItsContent() throws Exception {
        for (Family f : families()) {
            Object sketch = f.make().get();
            byte[] image = f.export().apply(sketch);
            byte[] stream = serialize(sketch);
            // What is written is the export (checksum included), plus the stream's framing.
            indexOf(stream, image);
            assertTrue(stream.length < image.length + 200, f.name() + ": " + stream.length + " for " + image.length);
            Object copy = deserialize(stream);
            assertSame(sketch.getClass(), copy.getClass(), f.name());
            assertNotSame(sketch, copy, f.name());
            assertArrayEquals(image, f.export().apply(copy), f.name());
            assertEquals(f.answers().apply(sketch), f.answers().apply(copy), f.name());
            assertFalse(f.answers().apply(copy).isEmpty());
        }
    }

    @Test
    void theCopyIsIndependentAndUsesItsToken() throws Exception {
        BloomFilter f = BloomFilter.create(1_000, 0.01);
        f.add("a");
        BloomFilter copy = (BloomFilter) deserialize(serialize(f));
        assertTrue(copy.add("b"));
        assertTrue(copy.contains("b"));
        assertFalse(f.contains("b"));
        // The import factory filled the token as fromByteArray's filter has it.
        assertEquals(BloomFilter.fromByteArray(f.toByteArray()).img().tokenBytes(), copy.img().tokenBytes());
        assertTrue(copy.img().tokenBytes().getLong(0) != 0 || copy.img().tokenBytes().getLong(8) != 0);

        HyperLogLog h = HyperLogLog.create(14);
        h.add("x");
        HyperLogLog hc = (HyperLogLog) deserialize(serialize(h));
        assertEquals(HyperLogLog.fromByteArray(h.toByteArray()).img().tokenBytes(), hc.img().tokenBytes());
        hc.addAll(TestKeys.longs(0, 50_000)); // leaves small mode in the copy only
        assertTrue(h.stats().small());
        assertFalse(hc.stats().small());

        SplitBlockBloomFilter s = SplitBlockBloomFilter.forParquet(10_000, 0.01);
        s.addAll(ADDED);
        s.foldToTargetFpp(0.05); // a folded filter's shorter image is what is written
        SplitBlockBloomFilter sc = (SplitBlockBloomFilter) deserialize(serialize(s));
        assertEquals(s.imageBytes(), sc.imageBytes());
        assertEquals(SplitBlockBloomFilter.fromByteArray(s.toByteArray()).img().tokenBytes(), sc.img().tokenBytes());
        assertEquals(s.bitset(), sc.bitset());
    }

    /** A serializable object with sketch fields, as a Spark closure or a broadcast value is. */
    private record Holder(String name, BloomFilter bloom, HyperLogLog users, TopK top, List<MinHash> signatures)
            implements Serializable {}

    @Test
    void sketchFieldsOfASerializableObjectRoundTrip() throws Exception {
        BloomFilter bloom = BloomFilter.create(10_000, 0.01);
        bloom.addAll(ADDED);
        HyperLogLog users = HyperLogLog.create(14);
        users.addAll(TestKeys.longs(0, 100_000));
        TopK top = TopK.create(16, 16);
        top.add("k", 5);
        MinHash m = MinHash.create(64);
        m.addAll(ADDED);
        Holder h = new Holder("h", bloom, users, top, List.of(m, m));
        Holder copy = (Holder) deserialize(serialize(h));
        assertEquals("h", copy.name());
        assertArrayEquals(bloom.toByteArray(), copy.bloom().toByteArray());
        assertArrayEquals(bloom.containsAll(ASKED), copy.bloom().containsAll(ASKED));
        assertEquals(users.estimate(), copy.users().estimate());
        assertEquals(top.top(), copy.top().top());
        // One object written twice is read back as one object (the stream's back reference).
        assertSame(copy.signatures().get(0), copy.signatures().get(1));
        assertEquals(1.0, copy.signatures().get(0).jaccard(m));
    }

    @Test
    void wrappedSketchesRoundTripAsOwned() throws Exception {
        for (Family f : families()) {
            Object sketch = f.make().get();
            byte[] image = f.export().apply(sketch);
            // The live image (a small-mode HyperLogLog's export is compact and cannot be wrapped).
            ByteBuffer live = (ByteBuffer) sketch.getClass().getMethod("image").invoke(sketch);
            byte[] liveBytes = new byte[live.remaining()];
            live.get(liveBytes);
            for (boolean readOnly : new boolean[] {false, true}) {
                ByteBuffer buffer = TestKeys.direct(liveBytes);
                Object wrapped = f.wrap().apply(readOnly ? buffer.asReadOnlyBuffer() : buffer);
                Object copy = deserialize(serialize(wrapped));
                assertArrayEquals(image, f.export().apply(copy), f.name());
                assertEquals(f.answers().apply(wrapped), f.answers().apply(copy), f.name());
                // Owned: the copy's image is not the caller's buffer (not even the same address).
                ByteBuffer copyImage = (ByteBuffer) copy.getClass().getMethod("image").invoke(copy);
                assertTrue(Native.address(copyImage) != Native.address(buffer), f.name());
            }
        }
        // A read-only wrapped filter becomes a writable owned one; the caller's bytes stay as they were.
        BloomFilter f = BloomFilter.create(1_000, 0.01);
        byte[] image = f.toByteArray();
        ByteBuffer buffer = TestKeys.direct(image);
        BloomFilter ro = BloomFilter.wrap(buffer.asReadOnlyBuffer());
        BloomFilter copy = (BloomFilter) deserialize(serialize(ro));
        assertTrue(copy.add("new"));
        byte[] after = new byte[image.length];
        buffer.duplicate().get(after);
        assertArrayEquals(image, after);
        assertFalse(ro.contains("new"));
    }

    @Test
    void aFlippedImageByteIsRefused() throws Exception {
        for (Family f : families()) {
            Object sketch = f.make().get();
            byte[] image = f.export().apply(sketch);
            byte[] stream = serialize(sketch);
            int at = indexOf(stream, image);
            // Every 64th byte of the image and its last one: headers, checksum and body.
            int[] flips = java.util.stream.IntStream.concat(
                    java.util.stream.IntStream.iterate(0, i -> i < image.length, i -> i + 64),
                    java.util.stream.IntStream.of(image.length - 1)).toArray();
            for (int i : flips) {
                byte[] bad = stream.clone();
                bad[at + i] ^= 0x10;
                Throwable t = assertThrows(InvalidObjectException.class, () -> deserialize(bad), f.name() + " byte " + i);
                assertInstanceOf(SketchException.class, t.getCause(), f.name() + " byte " + i);
            }
        }
    }

    @Test
    void aTruncatedStreamIsRefused() throws Exception {
        for (Family f : families()) {
            Object sketch = f.make().get();
            byte[] image = f.export().apply(sketch);
            byte[] stream = serialize(sketch);
            int at = indexOf(stream, image);
            int[] cuts = {0, 2, 4, 10, at - 4, at - 1, at, at + 1, at + 63, at + image.length / 2,
                    at + image.length - 1, stream.length - 1};
            for (int cut : cuts) {
                byte[] bad = Arrays.copyOf(stream, cut);
                try {
                    Object o = deserialize(bad);
                    fail(f.name() + " cut at " + cut + " of " + stream.length + " gave " + o);
                } catch (InvalidObjectException | StreamCorruptedException | EOFException e) {
                    // expected
                }
            }
        }
    }

    /**
     * The flags and serialVersionUID of a serializable class, as a stream names it, with an int
     * field {@code intField} and a byte[] field {@code byteArrayField} (each null: absent).
     */
    private static void classDesc(DataOutputStream out, String name, long suid, String intField,
            String byteArrayField) throws IOException {
        out.writeByte(ObjectStreamConstants.TC_CLASSDESC);
        out.writeUTF(name);
        out.writeLong(suid);
        out.writeByte(ObjectStreamConstants.SC_SERIALIZABLE);
        out.writeShort((intField == null ? 0 : 1) + (byteArrayField == null ? 0 : 1));
        // Primitive fields come first, then object fields (each group sorted by name).
        if (intField != null) {
            out.writeByte('I');
            out.writeUTF(intField);
        }
        if (byteArrayField != null) {
            out.writeByte('[');
            out.writeUTF(byteArrayField);
            out.writeByte(ObjectStreamConstants.TC_STRING);
            out.writeUTF("[B");
        }
        out.writeByte(ObjectStreamConstants.TC_ENDBLOCKDATA); // no class annotation
        out.writeByte(ObjectStreamConstants.TC_NULL); // no serializable superclass
    }

    /**
     * A hand-made stream of one object of class {@code name} with no fields, or with an int field
     * {@code intField} holding {@code intValue} (null name: none) and a byte[] field {@code field}
     * holding {@code value} (null: a null field).
     */
    private static byte[] forged(String name, long suid, String intField, int intValue, String field, byte[] value)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeShort(ObjectStreamConstants.STREAM_MAGIC);
        out.writeShort(ObjectStreamConstants.STREAM_VERSION);
        out.writeByte(ObjectStreamConstants.TC_OBJECT);
        classDesc(out, name, suid, intField, field);
        if (intField != null) {
            out.writeInt(intValue);
        }
        if (field != null) {
            if (value == null) {
                out.writeByte(ObjectStreamConstants.TC_NULL);
            } else {
                out.writeByte(ObjectStreamConstants.TC_ARRAY);
                classDesc(out, "[B", ObjectStreamClass.lookup(byte[].class).getSerialVersionUID(), null, null);
                out.writeInt(value.length);
                out.write(value);
            }
        }
        out.flush();
        return bytes.toByteArray();
    }

    /** A hand-made stream of one object of class {@code name} without fields. */
    private static byte[] forged(String name, long suid) throws IOException {
        return forged(name, suid, null, 0, null, null);
    }

    @Test
    void aStreamNamingTheSketchClassItselfIsRefused() throws Exception {
        for (Family f : families()) {
            Class<?> c = f.make().get().getClass();
            ObjectStreamClass desc = ObjectStreamClass.lookup(c);
            assertTrue(desc != null, c + " is not Serializable");
            // The hand-made stream is well formed: the same bytes name a harmless class fine.
            byte[] stream = forged(c.getName(), desc.getSerialVersionUID());
            InvalidObjectException e = assertThrows(InvalidObjectException.class, () -> deserialize(stream), f.name());
            assertTrue(e.getMessage().contains("proxy required"), e.getMessage());
        }
        assertInstanceOf(Plain.class,
                deserialize(forged(Plain.class.getName(), ObjectStreamClass.lookup(Plain.class).getSerialVersionUID())));
    }

    /** A serializable class without fields, to check that the hand-made streams are well formed. */
    static final class Plain implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    @Test
    void aForgedProxyIsReadThroughTheCheckedImport() throws Exception {
        BloomFilter bloom = BloomFilter.create(1_000, 0.01);
        bloom.add("a");
        String proxy = serializedClassName(bloom);
        ObjectStreamClass desc = ObjectStreamClass.lookup(Class.forName(proxy));
        long suid = desc.getSerialVersionUID();
        // The int family first, then the byte[] image (a stream's field order).
        assertEquals(2, desc.getFields().length);
        String familyField = desc.getFields()[0].getName();
        String field = desc.getFields()[1].getName();
        assertEquals(int.class, desc.getFields()[0].getType());
        assertEquals(byte[].class, desc.getFields()[1].getType());
        int bloomFamily = Sketches.FAMILY_BLOOM;
        // The hand-made stream with the real image reads back the filter.
        BloomFilter back = (BloomFilter) deserialize(
                forged(proxy, suid, familyField, bloomFamily, field, bloom.toByteArray()));
        assertTrue(back.contains("a"));
        // No image, an empty one, another family's image: refused with the reason as the cause.
        assertThrows(InvalidObjectException.class,
                () -> deserialize(forged(proxy, suid, familyField, bloomFamily, field, null)));
        InvalidObjectException empty = assertThrows(InvalidObjectException.class,
                () -> deserialize(forged(proxy, suid, familyField, bloomFamily, field, new byte[0])));
        assertInstanceOf(SketchException.class, empty.getCause());
        HyperLogLog h = HyperLogLog.create(10);
        InvalidObjectException wrong = assertThrows(InvalidObjectException.class,
                () -> deserialize(forged(proxy, suid, familyField, bloomFamily, field, h.toByteArray())));
        assertEquals(Status.WRONG_FAMILY, ((SketchException) wrong.getCause()).status());
        // The same forgery built through the real proxy class: the family says Bloom, the image is an HLL.
        InvalidObjectException wrongReal = assertThrows(InvalidObjectException.class,
                () -> deserialize(serialize(new SerializedSketch(Sketches.FAMILY_BLOOM, h.toByteArray()))));
        assertEquals(Status.WRONG_FAMILY, ((SketchException) wrongReal.getCause()).status());
        // The HLL image under its own family reads back.
        assertInstanceOf(HyperLogLog.class,
                deserialize(forged(proxy, suid, familyField, Sketches.FAMILY_HYPERLOGLOG, field, h.toByteArray())));
        // An unknown family code: refused, whatever the image.
        for (int unknown : new int[] {0, -1, 12, Integer.MAX_VALUE}) {
            InvalidObjectException e = assertThrows(InvalidObjectException.class,
                    () -> deserialize(forged(proxy, suid, familyField, unknown, field, bloom.toByteArray())));
            assertTrue(e.getMessage().contains("unknown family"), e.getMessage());
            assertThrows(InvalidObjectException.class,
                    () -> deserialize(serialize(new SerializedSketch(unknown, bloom.toByteArray()))));
        }
    }

    /** The class name the stream of {@code sketch} names (the package's serialization proxy). */
    private static String serializedClassName(Object sketch) {
        byte[] stream = serialize(sketch);
        // TC_OBJECT TC_CLASSDESC, then the class name in modified UTF-8 (a 2-byte length first).
        assertEquals(ObjectStreamConstants.TC_OBJECT, stream[4]);
        assertEquals(ObjectStreamConstants.TC_CLASSDESC, stream[5]);
        int len = ((stream[6] & 0xff) << 8) | (stream[7] & 0xff);
        String name = new String(stream, 8, len, java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(SerializedSketch.class.getName(), name);
        return name;
    }

    @Test
    void everyFamilyIsWrittenThroughTheOneProxyWithItsHeaderFamily() throws Exception {
        for (Family f : families()) {
            Object sketch = f.make().get();
            assertEquals(SerializedSketch.class.getName(), serializedClassName(sketch), f.name());
            // The family written is the one the image header carries.
            java.lang.reflect.Method replace = sketch.getClass().getDeclaredMethod("writeReplace");
            replace.setAccessible(true);
            SerializedSketch proxy = (SerializedSketch) replace.invoke(sketch);
            java.lang.reflect.Field family = SerializedSketch.class.getDeclaredField("family");
            family.setAccessible(true);
            assertEquals(Sketches.inspect(f.export().apply(sketch)).family(), family.getInt(proxy), f.name());
        }
    }
}
