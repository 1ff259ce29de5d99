package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A sketch object copied by Kryo without the sketch classes registered with Kryo's JavaSerializer:
 * Kryo (as Spark configures it) makes the copy through the class's no-argument constructor and
 * then copies the fields, and the image field is transient, so the copy has no image. Every
 * public method of every family then throws IllegalStateException naming the registrator, where
 * it threw NullPointerException ('this.img is null'); the copy never holds a native address.
 */
class DetachedTest {
    /** Each family with a real sketch of it (for the methods that take another sketch). */
    private static final Map<Class<?>, Supplier<Object>> FAMILIES = Map.ofEntries(
            Map.entry(BloomFilter.class, () -> BloomFilter.create(100, 0.01)),
            Map.entry(SplitBlockBloomFilter.class, () -> SplitBlockBloomFilter.create(100, 0.01)),
            Map.entry(CountingBloomFilter.class, () -> CountingBloomFilter.create(100, 0.01)),
            Map.entry(CuckooFilter.class, () -> CuckooFilter.create(100, 0.01)),
            Map.entry(BinaryFuseFilter.class, () -> BinaryFuseFilter.build(new long[] {1, 2, 3}, 8, 0)),
            Map.entry(HyperLogLog.class, () -> HyperLogLog.create(12)),
            Map.entry(UltraLogLog.class, () -> UltraLogLog.create(12)),
            Map.entry(ExaLogLog.class, () -> ExaLogLog.create(12)),
            Map.entry(CountMinSketch.class, () -> CountMinSketch.create(0.01, 0.01)),
            Map.entry(TopK.class, () -> TopK.create(16, 16)),
            Map.entry(MinHash.class, () -> MinHash.create(64)));

    /** Methods that describe the object without its image. */
    private static final Set<String> ALLOWED = Set.of("toString", "hashCode", "equals", "getClass", "notify",
            "notifyAll", "wait");

    @Test
    void everyMethodOfACopyWithoutImageNamesTheRegistrator() throws Exception {
        assertEquals(11, FAMILIES.size());
        List<String> wrong = new ArrayList<>();
        int calls = 0;
        for (Map.Entry<Class<?>, Supplier<Object>> e : FAMILIES.entrySet()) {
            Class<?> cls = e.getKey();
            Object copy = asKryoMakesIt(cls);
            for (Method m : cls.getMethods()) {
                if (Modifier.isStatic(m.getModifiers()) || ALLOWED.contains(m.getName())) {
                    continue;
                }
                if (List.of(m.getParameterTypes()).contains(char.class)) {
                    continue; // a char key is refused by its type, before the image (CharKeyTest)
                }
                Object[] args = new Object[m.getParameterCount()];
                Class<?>[] types = m.getParameterTypes();
                for (int i = 0; i < args.length; i++) {
                    args[i] = sample(types[i], cls, e.getValue());
                }
                if (cls == ExaLogLog.class && m.getName().equals("downsize")) {
                    args[1] = 20; // a valid d
                }
                calls++;
                try {
                    m.invoke(copy, args);
                    wrong.add(m + " returned");
                } catch (InvocationTargetException ite) {
                    Throwable t = ite.getCause();
                    if (!(t instanceof IllegalStateException)
                            || !t.getMessage().contains("dev.sketches.spark.SketchesKryoRegistrator")
                            || !t.getMessage().contains("JavaSerializer")
                            || !t.getMessage().contains(cls.getSimpleName())) {
                        wrong.add(m + " threw " + t);
                    }
                }
            }
            // toString does not throw (debuggers, logs) and does not pass for an empty sketch.
            assertEquals(cls.getSimpleName() + "[no image]", copy.toString());
        }
        assertTrue(calls > 300, calls + " calls");
        if (!wrong.isEmpty()) {
            fail(wrong.size() + " methods did not throw the clear IllegalStateException:\n" + String.join("\n", wrong));
        }
    }

    /** A copy made as Spark's Kryo makes one: the no-argument constructor, no field copied. */
    private static Object asKryoMakesIt(Class<?> cls) throws Exception {
        Constructor<?> c = cls.getDeclaredConstructor();
        c.setAccessible(true);
        return c.newInstance();
    }

    /** An argument of a type that reaches the image (valid keys, sizes and outputs). */
    private static Object sample(Class<?> type, Class<?> family, Supplier<Object> real) {
        if (type == byte[].class) {
            return new byte[] {1};
        } else if (type == String.class) {
            return "k";
        } else if (type == ByteBuffer.class) {
            return ByteBuffer.wrap(new byte[] {1});
        } else if (type == long[].class) {
            return new long[] {1};
        } else if (type == byte[][].class) {
            return new byte[][] {{1}};
        } else if (type == String[].class) {
            return new String[] {"k"};
        } else if (type == int[].class) {
            return new int[] {0, 1};
        } else if (type == boolean[].class) {
            return new boolean[1];
        } else if (type == java.io.OutputStream.class) {
            return new java.io.ByteArrayOutputStream();
        } else if (type == long.class) {
            return 1L;
        } else if (type == int.class) {
            return 10; // a valid precision, d, fold count or count

        } else if (type == double.class) {
            return 0.01;
        } else if (type == boolean.class) {
            return false;
        } else if (type == family) {
            return real.get();
        }
        throw new AssertionError("no sample for " + type);
    }
}
