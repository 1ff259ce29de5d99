package dev.sketches.spark;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
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
import java.util.List;
import org.apache.spark.serializer.KryoRegistrator;

/**
 * Registers the Java binding's sketch classes with Kryo for {@code
 * spark.serializer=org.apache.spark.serializer.KryoSerializer}: set {@code
 * spark.kryo.registrator=dev.sketches.spark.SketchesKryoRegistrator} (or add it to a
 * comma-separated list). Each class is written with Kryo's {@link JavaSerializer}, so a sketch
 * travels as its checksummed exported image and is read back through the checked import, as under
 * Java serialization. Without it Kryo copies a sketch's fields, and the image field is transient:
 * the copy arrives without its image and throws {@link IllegalStateException} naming this
 * registrator when used (Spark's Kryo makes the copy through the class's no-argument constructor;
 * a Kryo that skips constructors leaves the field null: {@link NullPointerException}).
 */
public final class SketchesKryoRegistrator implements KryoRegistrator {
    /** The sketch classes of the Java binding, every family. */
    static final List<Class<?>> SKETCH_CLASSES = List.of(BloomFilter.class, SplitBlockBloomFilter.class,
            CountingBloomFilter.class, CuckooFilter.class, BinaryFuseFilter.class, HyperLogLog.class,
            UltraLogLog.class, ExaLogLog.class, CountMinSketch.class, TopK.class, MinHash.class);

    /** Made by Spark from the class name in {@code spark.kryo.registrator}. */
    public SketchesKryoRegistrator() {}

    /**
     * Registers every sketch class with Kryo's {@link JavaSerializer}.
     *
     * @param kryo the Kryo instance Spark is configuring
     */
    @Override
    public void registerClasses(Kryo kryo) {
        for (Class<?> c : SKETCH_CLASSES) {
            kryo.register(c, new JavaSerializer());
        }
    }
}
