package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A null argument to any public method or constructor of the package (every family, their
 * nested types, Sketches, Status) throws NullPointerException whose message is the parameter's
 * name, before anything changes; a null element of a batch array throws NullPointerException
 * naming the array and the index ({@code keys[1]}), before any key of the batch is added. Only
 * the parameters documented as nullable (per-key output slots) accept null. Parameter names come
 * from the class files (the main classes are compiled with {@code -parameters}).
 */
class NullArgumentTest {
    /** Each family with a sketch holding some keys. */
    private static Map<Class<?>, Supplier<Object>> families() {
        Map<Class<?>, Supplier<Object>> m = new LinkedHashMap<>();
        m.put(BloomFilter.class, () -> {
            BloomFilter f = BloomFilter.create(1000, 0.01);
            f.addAll(TestKeys.longs(0, 100));
            return f;
        });
        m.put(SplitBlockBloomFilter.class, () -> {
            SplitBlockBloomFilter f = SplitBlockBloomFilter.create(1000, 0.01);
            f.addAll(TestKeys.longs(0, 100));
            return f;
        });
        m.put(CountingBloomFilter.class, () -> {
            CountingBloomFilter f = CountingBloomFilter.create(1000, 0.01);
            f.addAll(TestKeys.longs(0, 100));
            return f;
        });
        m.put(CuckooFilter.class, () -> {
            CuckooFilter f = CuckooFilter.create(1000, 0.01);
            f.addAll(TestKeys.longs(0, 100));
            return f;
        });
        m.put(BinaryFuseFilter.class, () -> BinaryFuseFilter.build(TestKeys.longs(0, 100), 8, 0));
        m.put(HyperLogLog.class, () -> {
            HyperLogLog h = HyperLogLog.create(10);
            h.addAll(TestKeys.longs(0, 100));
            return h;
        });
        m.put(UltraLogLog.class, () -> {
            UltraLogLog u = UltraLogLog.create(10);
            u.addAll(TestKeys.longs(0, 100));
            return u;
        });
        m.put(ExaLogLog.class, () -> {
            ExaLogLog e = ExaLogLog.create(10);
            e.addAll(TestKeys.longs(0, 100));
            return e;
        });
        m.put(CountMinSketch.class, () -> {
            CountMinSketch c = CountMinSketch.create(0.01, 0.01);
            c.addAll(TestKeys.longs(0, 100));
            return c;
        });
        m.put(TopK.class, () -> {
            TopK t = TopK.create(32, 16);
            t.addAll(TestKeys.longs(0, 100));
            return t;
        });
        m.put(MinHash.class, () -> {
            MinHash h = MinHash.create(64);
            h.addAll(TestKeys.longs(0, 100));
            return h;
        });
        return m;
    }

    /** Parameters documented as "null, or ...": per-key output slots a caller may not want, weights (1 each). */
    private static final Set<String> NULLABLE = Set.of("wasNew", "added", "weights");

    private static final Set<String> SKIP = Set.of("equals", "hashCode", "getClass", "notify", "notifyAll", "wait",
            "toString", "valueOf");

    @Test
    void everyNullArgumentThrowsNullPointerExceptionNamingIt() throws Exception {
        Map<Class<?>, Supplier<Object>> fams = families();
        List<Class<?>> classes = new ArrayList<>(fams.keySet());
        classes.add(Sketches.class);
        classes.add(Status.class);
        classes.add(CountMinSketch.Builder.class);
        classes.add(TopK.Item.class);
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Class<?> cls : classes) {
            List<Executable> all = new ArrayList<>(List.of(cls.getMethods()));
            all.addAll(List.of(cls.getConstructors()));
            for (Executable ex : all) {
                if (ex.getDeclaringClass() != cls || SKIP.contains(ex.getName())) {
                    continue;
                }
                Parameter[] params = ex.getParameters();
                for (int i = 0; i < params.length; i++) {
                    Parameter p = params[i];
                    if (p.getType().isPrimitive()) {
                        continue;
                    }
                    assertTrue(p.isNamePresent(), "compile the main classes with -parameters: " + ex);
                    checked++;
                    Object target = target(ex, cls, fams);
                    byte[] before = image(target);
                    Object[] args = args(ex, fams);
                    args[i] = null;
                    Throwable t = call(ex, target, args);
                    if (NULLABLE.contains(p.getName())) {
                        if (t != null) {
                            wrong.add(ex + " with null " + p.getName() + " (documented nullable) threw " + t);
                        }
                        continue;
                    }
                    if (!(t instanceof NullPointerException) || !p.getName().equals(t.getMessage())) {
                        wrong.add(ex + " with null " + p.getName() + ": " + t);
                    } else if (before != null && !java.util.Arrays.equals(before, image(target))) {
                        wrong.add(ex + " with null " + p.getName() + " changed the sketch");
                    }
                }
            }
        }
        assertTrue(checked > 300, checked + " null arguments");
        if (!wrong.isEmpty()) {
            fail(wrong.size() + " null arguments not refused by name:\n" + String.join("\n", wrong));
        }
    }

    @Test
    void aNullElementOfABatchNamesItsIndexAndAddsNothing() throws Exception {
        Map<Class<?>, Supplier<Object>> fams = families();
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Class<?> cls : fams.keySet()) {
            for (Method m : cls.getMethods()) {
                Parameter[] params = m.getParameters();
                for (int i = 0; i < params.length; i++) {
                    Class<?> type = params[i].getType();
                    if (type != String[].class && type != byte[][].class) {
                        continue;
                    }
                    checked++;
                    Object target = target(m, cls, fams);
                    byte[] before = image(target);
                    Object[] args = args(m, fams);
                    // A valid key first: a batch must fail before adding it.
                    args[i] = type == String[].class ? new String[] {"first", "k", null} : new byte[][] {{9, 9}, {1}, null};
                    Throwable t = call(m, target, args);
                    String name = params[i].getName() + "[2]";
                    if (!(t instanceof NullPointerException) || t.getMessage() == null
                            || !t.getMessage().startsWith(name)) {
                        wrong.add(m + ": " + t);
                    } else if (before != null && !java.util.Arrays.equals(before, image(target))) {
                        wrong.add(m + " changed the sketch before refusing the null key");
                    }
                }
            }
        }
        assertTrue(checked > 60, checked + " batches");
        if (!wrong.isEmpty()) {
            fail(wrong.size() + " batches with a null key:\n" + String.join("\n", wrong));
        }
    }

    @Test
    void theCommonCasesReadAsDocumented() {
        BloomFilter f = BloomFilter.create(100, 0.01);
        NullPointerException e = org.junit.jupiter.api.Assertions.assertThrows(
                NullPointerException.class, () -> f.merge(null));
        assertEquals("other", e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(NullPointerException.class, () -> f.add((String) null));
        assertEquals("key", e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(
                NullPointerException.class, () -> MinHash.create(16).jaccard(null));
        assertEquals("other", e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(
                NullPointerException.class, () -> HyperLogLog.wrap(null));
        assertEquals("buffer", e.getMessage());
        assertArrayEquals(new boolean[] {false}, f.containsAll(new String[] {"x"}));
    }

    private static Object target(Executable ex, Class<?> cls, Map<Class<?>, Supplier<Object>> fams) {
        if (ex instanceof Method m && !Modifier.isStatic(m.getModifiers())) {
            if (cls == CountMinSketch.Builder.class) {
                return CountMinSketch.builder();
            }
            if (cls == TopK.Item.class) {
                return new TopK.Item(new byte[] {1}, 1, 0);
            }
            return fams.get(cls).get();
        }
        return null;
    }

    /** The exported image of a sketch target (null for anything else). */
    private static byte[] image(Object target) {
        if (target == null || target instanceof CountMinSketch.Builder || target instanceof TopK.Item) {
            return null;
        }
        try {
            return (byte[]) target.getClass().getMethod("toByteArray").invoke(target);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Throwable call(Executable ex, Object target, Object[] args) {
        try {
            if (ex instanceof Method m) {
                m.invoke(target, args);
            } else {
                ((java.lang.reflect.Constructor<?>) ex).newInstance(args);
            }
            return null;
        } catch (InvocationTargetException ite) {
            return ite.getCause();
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

    private static Object[] args(Executable ex, Map<Class<?>, Supplier<Object>> fams) {
        Class<?>[] types = ex.getParameterTypes();
        Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            args[i] = sample(types[i], fams);
        }
        if (ex.getDeclaringClass() == ExaLogLog.class && ex.getName().equals("downsize")) {
            args[1] = 20;
        }
        return args;
    }

    private static Object sample(Class<?> type, Map<Class<?>, Supplier<Object>> fams) {
        return fams.containsKey(type) ? fams.get(type).get() : TestKeys.sampleArgument(type);
    }
}
