package dev.sketches.spark;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
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
import java.util.Collections;
import java.util.List;
import java.util.stream.LongStream;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.api.java.function.FilterFunction;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.serializer.KryoRegistrator;
import org.apache.spark.serializer.KryoSerializer;
import org.apache.spark.serializer.SerializerInstance;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Sketch objects of the Java binding (java.io.Serializable through their exported image) built on
 * the driver and used in Spark closures, broadcast variables and task results, through Spark's
 * default JavaSerializer; and through Kryo with the registration the README gives.
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

    /**
     * The registration the README gives for {@code spark.serializer=KryoSerializer}: Kryo's
     * default field serializer must not copy a sketch (it would copy the image buffer's native
     * address), so each sketch class is written with Kryo's JavaSerializer, which uses the classes'
     * own serialization (the exported image).
     */
    public static final class Registrator implements KryoRegistrator {
        @Override
        public void registerClasses(Kryo kryo) {
            for (Class<?> c : List.of(BloomFilter.class, SplitBlockBloomFilter.class, CountingBloomFilter.class,
                    CuckooFilter.class, BinaryFuseFilter.class, HyperLogLog.class, UltraLogLog.class,
                    ExaLogLog.class, CountMinSketch.class, TopK.class, MinHash.class)) {
                kryo.register(c, new com.esotericsoftware.kryo.serializers.JavaSerializer());
            }
        }
    }

    @Test
    void kryoWithTheRegistrationWritesTheImage() {
        SparkConf conf = new SparkConf()
                .set("spark.serializer", KryoSerializer.class.getName())
                .set("spark.kryo.registrator", Registrator.class.getName());
        SerializerInstance kryo = new KryoSerializer(conf).newInstance();
        BloomFilter bloom = BloomFilter.create(1_000, 0.01);
        bloom.add("k");
        ClassTag<BloomFilter> tag = ClassTag$.MODULE$.apply(BloomFilter.class);
        ByteBuffer bytes = kryo.serialize(bloom, tag);
        assertTrue(bytes.remaining() < bloom.imageBytes() + 300, bytes.remaining() + " bytes");
        BloomFilter back = kryo.deserialize(bytes, tag);
        assertNotSame(bloom, back);
        assertArrayEquals(bloom.toByteArray(), back.toByteArray());
        assertTrue(back.contains("k"));

        HyperLogLog h = HyperLogLog.create(12);
        h.add(7L);
        ClassTag<HyperLogLog> htag = ClassTag$.MODULE$.apply(HyperLogLog.class);
        HyperLogLog hb = kryo.deserialize(kryo.serialize(h, htag), htag);
        assertEquals(h.estimate(), hb.estimate());
    }
}
