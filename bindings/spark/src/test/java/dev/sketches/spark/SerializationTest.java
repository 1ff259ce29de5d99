package dev.sketches.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import dev.sketches.BinaryFuseFilter;
import dev.sketches.BloomFilter;
import dev.sketches.CountMinSketch;
import dev.sketches.CountingBloomFilter;
import dev.sketches.CuckooFilter;
import dev.sketches.ExaLogLog;
import dev.sketches.HyperLogLog;
import dev.sketches.MinHash;
import dev.sketches.SplitBlockBloomFilter;
import dev.sketches.TopK;
import dev.sketches.UltraLogLog;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.api.java.function.MapFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.serializer.KryoRegistrator;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Sketch objects of the Java binding (java.io.Serializable through their exported image) built on
 * the driver and used in Spark closures, broadcast variables and task results, through Spark's
 * default JavaSerializer; and through Kryo, with {@link SketchesKryoRegistrator} and without it.
 */
class SerializationTest {
    private final SparkSession spark = Session.get();

    private static List<Long> keys(long from, long to) {
        return LongStream.range(from, to).boxed().toList();
    }

    /** The keys of {@code [0, to)} the filter holds, counted on the driver. */
    private static long held(BloomFilter bloom, long to) {
        return LongStream.range(0, to).filter(bloom::contains).count();
    }

    @Test
    void aDriverBloomFilterInAClosureAndABroadcast() {
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        BloomFilter bloom = BloomFilter.create(10_000, 0.01);
        for (long k = 0; k < 10_000; k += 2) {
            bloom.add(k);
        }
        long expected = held(bloom, 20_000);
        assertTrue(expected >= 5_000 && expected < 5_000 + 400, "held " + expected);

        // Captured in an RDD closure: the task (and the filter in it) is serialized with the
        // closure serializer (always Java serialization) and read back in each task.
        JavaRDD<Long> rdd = jsc.parallelize(keys(0, 20_000), 4);
        assertEquals(expected, rdd.filter(k -> bloom.contains(k)).count());

        // Captured in a typed Dataset filter.
        assertEquals(expected,
                spark.range(0, 20_000).as(Encoders.LONG()).filter((FilterFunction<Long>) k -> bloom.contains(k)).count());

        // A broadcast variable (written with spark.serializer, here the default JavaSerializer).
        Broadcast<BloomFilter> shared = jsc.broadcast(bloom);
        assertEquals(expected, rdd.filter(k -> shared.value().contains(k)).count());
        shared.destroy();

        // As a task result: written by the executor, read back on the driver as a new object.
        BloomFilter back = jsc.parallelize(List.of(1), 1).map(i -> bloom).collect().get(0);
        assertNotSame(bloom, back);
        assertArrayEquals(bloom.toByteArray(), back.toByteArray());
    }

    @Test
    void sketchesBuiltInTasksComeBackToTheDriver() {
        JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
        // One HyperLogLog per partition, each a task result, merged on the driver.
        List<HyperLogLog> parts = jsc.parallelize(keys(0, 50_000), 4).mapPartitions(it -> {
            HyperLogLog h = HyperLogLog.create(12);
            it.forEachRemaining(k -> h.add(k.longValue()));
            return Collections.singletonList(h).iterator();
        }).collect();
        assertEquals(4, parts.size());
        HyperLogLog merged = HyperLogLog.create(12);
        for (HyperLogLog p : new ArrayList<>(parts)) {
            merged.merge(p);
        }
        HyperLogLog all = HyperLogLog.create(12);
        for (long k = 0; k < 50_000; k++) {
            all.add(k);
        }
        assertEquals(all.registerEstimate(), merged.registerEstimate());
    }

    /** One sketch of a family and the answers compared across a round trip. */
    private record Made(Object sketch, Function<Object, byte[]> export, Function<Object, List<Object>> answers) {}

    @SuppressWarnings("unchecked")
    private static <T> Made made(T sketch, Function<T, byte[]> export, Function<T, List<Object>> answers) {
        return new Made(sketch, o -> export.apply((T) o), o -> answers.apply((T) o));
    }

    /** A sketch with content of every family. */
    private static List<Made> everyFamily() {
        List<Long> added = keys(0, 2_000);
        long[] asked = LongStream.range(1_000, 3_000).toArray();
        BloomFilter bloom = BloomFilter.create(5_000, 0.01);
        SplitBlockBloomFilter sbbf = SplitBlockBloomFilter.create(5_000, 0.01);
        CountingBloomFilter counting = CountingBloomFilter.create(5_000, 0.01);
        CuckooFilter cuckoo = CuckooFilter.create(5_000, 0.01);
        HyperLogLog hll = HyperLogLog.create(12);
        UltraLogLog ull = UltraLogLog.create(12);
        ExaLogLog ell = ExaLogLog.create(10, ExaLogLog.D20, 7);
        CountMinSketch cms = CountMinSketch.create(0.001, 0.01);
        TopK top = TopK.create(64, 32);
        MinHash minHash = MinHash.create(128);
        for (long k : added) {
            bloom.add(k);
            sbbf.add(k);
            counting.add(k);
            cuckoo.add(k);
            hll.add(k);
            ull.add(k);
            ell.add(k);
            cms.add(k);
            top.add(k);
            minHash.add(k);
        }
        top.add("heavy", 1_000);
        BinaryFuseFilter fuse = BinaryFuseFilter.build(added.stream().mapToLong(Long::longValue).toArray(), 8, 7);
        return List.of(
                made(bloom, BloomFilter::toByteArray, f -> List.of(Arrays.toString(f.containsAll(asked)), f.stats())),
                made(sbbf, SplitBlockBloomFilter::toByteArray,
                        f -> List.of(Arrays.toString(f.containsAll(asked)), f.stats())),
                made(counting, CountingBloomFilter::toByteArray,
                        f -> List.of(Arrays.toString(f.containsAll(asked)), f.stats())),
                made(cuckoo, CuckooFilter::toByteArray, f -> List.of(Arrays.toString(f.containsAll(asked)), f.stats())),
                made(fuse, BinaryFuseFilter::toByteArray,
                        f -> List.of(Arrays.toString(f.containsAll(asked)), f.stats())),
                made(hll, HyperLogLog::toByteArray, h -> List.of(h.estimate(), h.registerEstimate(), h.stats())),
                made(ull, UltraLogLog::toByteArray, u -> List.of(u.estimate(), u.mlEstimate(), u.stats())),
                made(ell, ExaLogLog::toByteArray, e -> List.of(e.estimate(), e.mlEstimate(), e.stats())),
                made(cms, CountMinSketch::toByteArray,
                        c -> List.of(Arrays.toString(c.estimateAll(asked)), c.stats())),
                made(top, TopK::toByteArray, t -> List.of(t.top(10).toString(), t.estimate("heavy"), t.stats())),
                made(minHash, MinHash::toByteArray, m -> List.of(Arrays.toString(m.signature()), m.stats())));
    }

    @Test
    void kryoWithTheRegistratorWritesTheImageOfEveryFamily() {
        SparkConf conf = new SparkConf()
                .set("spark.serializer", KryoSerializer.class.getName())
                .set("spark.kryo.registrator", SketchesKryoRegistrator.class.getName());
        SerializerInstance kryo = new KryoSerializer(conf).newInstance();
        List<Made> all = everyFamily();
        assertEquals(SketchesKryoRegistrator.SKETCH_CLASSES.size(), all.size());
        for (Made m : all) {
            Object sketch = m.sketch();
            assertTrue(SketchesKryoRegistrator.SKETCH_CLASSES.contains(sketch.getClass()), sketch.getClass().getName());
            @SuppressWarnings("unchecked")
            ClassTag<Object> tag = (ClassTag<Object>) (ClassTag<?>) ClassTag$.MODULE$.apply(sketch.getClass());
            byte[] image = m.export().apply(sketch);
            ByteBuffer bytes = kryo.serialize(sketch, tag);
            // The stream is the export plus the Java serialization framing.
            assertTrue(bytes.remaining() < image.length + 300, bytes.remaining() + " bytes for " + image.length);
            Object back = kryo.deserialize(bytes, tag);
            assertSame(sketch.getClass(), back.getClass());
            assertNotSame(sketch, back);
            assertArrayEquals(image, m.export().apply(back), sketch.getClass().getName());
            assertEquals(m.answers().apply(sketch), m.answers().apply(back), sketch.getClass().getName());
        }
        // A class name in a comma-separated list, as Spark accepts it, works as well.
        SerializerInstance listed = new KryoSerializer(new SparkConf().set("spark.kryo.registrator",
                OtherRegistrator.class.getName() + "," + SketchesKryoRegistrator.class.getName()))
                .newInstance();
        BloomFilter bloom = (BloomFilter) all.get(0).sketch();
        ClassTag<BloomFilter> tag = ClassTag$.MODULE$.apply(BloomFilter.class);
        assertArrayEquals(bloom.toByteArray(), listed.deserialize(listed.serialize(bloom, tag), tag).toByteArray());
    }

    /**
     * A Dataset of sketch objects: {@code Encoders.javaSerialization} carries the image whatever
     * the configuration; {@code Encoders.kryo} uses Kryo even under the default spark.serializer,
     * so it needs the registrator too (read from the conf when the encoder runs), as the README says.
     */
    @Test
    void datasetsOfSketchObjects() {
        BloomFilter bloom = BloomFilter.create(100, 0.01);
        bloom.add(5L);
        MapFunction<BloomFilter, Boolean> has5 = f -> f.contains(5L);
        assertEquals(List.of(true), spark.createDataset(List.of(bloom), Encoders.javaSerialization(BloomFilter.class))
                .map(has5, Encoders.BOOLEAN()).collectAsList());
        org.apache.spark.SparkConf conf = org.apache.spark.SparkEnv.get().conf();
        conf.set("spark.kryo.registrator", SketchesKryoRegistrator.class.getName());
        try {
            assertEquals(List.of(true), spark.createDataset(List.of(bloom), Encoders.kryo(BloomFilter.class))
                    .map(has5, Encoders.BOOLEAN()).collectAsList());
        } finally {
            conf.remove("spark.kryo.registrator");
        }
        Throwable t = assertThrows(Throwable.class, () -> spark.createDataset(List.of(bloom),
                Encoders.kryo(BloomFilter.class)).map(has5, Encoders.BOOLEAN()).collectAsList());
        assertTrue(String.valueOf(t.getMessage()).contains("IllegalStateException"), t.toString());
        assertTrue(String.valueOf(t.getMessage()).contains(SketchesKryoRegistrator.class.getName()), t.toString());
    }

    /** An application's own registrator, listed before ours in {@code spark.kryo.registrator}. */
    public static final class OtherRegistrator implements KryoRegistrator {
        @Override
        public void registerClasses(Kryo kryo) {
            kryo.register(int[].class);
        }
    }

    /**
     * Without the registrator Kryo ignores Java serialization and copies the fields; the image
     * field is transient, so the copy has no image (never a native address from this JVM) and
     * throws IllegalStateException naming the registrator when used instead of reading freed or
     * foreign memory.
     */
    @Test
    void kryoWithoutTheRegistratorCopiesNoImage() {
        SerializerInstance kryo = new KryoSerializer(new SparkConf()).newInstance();
        BloomFilter bloom = BloomFilter.create(100_000, 0.01);
        bloom.add("k");
        ClassTag<BloomFilter> tag = ClassTag$.MODULE$.apply(BloomFilter.class);
        ByteBuffer bytes = kryo.serialize(bloom, tag);
        // Only the class name: neither the image nor its address.
        assertTrue(bytes.remaining() < 100, bytes.remaining() + " bytes");
        BloomFilter back = kryo.deserialize(bytes, tag);
        assertNotSame(bloom, back);
        // Kryo makes the copy through the no-argument constructor, which gives it a stand-in
        // image whose every use names the registrator.
        for (Executable use : List.<Executable>of(() -> back.contains("k"), back::toByteArray, () -> back.add("x"))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, use);
            assertTrue(e.getMessage().contains(SketchesKryoRegistrator.class.getName()), e.getMessage());
        }
        assertTrue(bloom.contains("k"));
    }
}
