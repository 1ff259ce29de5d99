package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every public method of every family over a file mapped READ_ONLY (pages the process may not
 * write: a native write there is SIGSEGV, a JVM crash): a change throws ReadOnlyBufferException
 * before native code runs, every query answers as on the owned sketch it was exported from, and a
 * method taking another sketch reads a mapped one as any other.
 */
class ReadOnlyMappedTest {
    @TempDir
    Path dir;

    private record Family(Supplier<Object> filled, Function<ByteBuffer, Object> wrap, Function<byte[], Object> read) {}

    private static final Set<String> SKIP = Set.of("hashCode", "equals", "getClass", "notify", "notifyAll", "wait",
            "toString", "image", "bitset");

    private static Map<Class<?>, Family> families() {
        Map<Class<?>, Family> m = new LinkedHashMap<>();
        m.put(BloomFilter.class, new Family(() -> {
            BloomFilter f = BloomFilter.create(1000, 0.01);
            f.addAll(TestKeys.longs(0, 500));
            return f;
        }, BloomFilter::wrap, BloomFilter::fromByteArray));
        m.put(SplitBlockBloomFilter.class, new Family(() -> {
            SplitBlockBloomFilter f = SplitBlockBloomFilter.forParquet(1000, 0.01);
            f.addAll(TestKeys.longs(0, 500));
            return f;
        }, SplitBlockBloomFilter::wrap, SplitBlockBloomFilter::fromByteArray));
        m.put(CountingBloomFilter.class, new Family(() -> {
            CountingBloomFilter f = CountingBloomFilter.create(1000, 0.01);
            f.addAll(TestKeys.longs(0, 500));
            return f;
        }, CountingBloomFilter::wrap, CountingBloomFilter::fromByteArray));
        m.put(CuckooFilter.class, new Family(() -> {
            CuckooFilter f = CuckooFilter.create(1000, 0.01);
            f.addAll(TestKeys.longs(0, 500));
            return f;
        }, CuckooFilter::wrap, CuckooFilter::fromByteArray));
        m.put(BinaryFuseFilter.class, new Family(() -> BinaryFuseFilter.build(TestKeys.longs(0, 500), 8, 0),
                BinaryFuseFilter::wrap, BinaryFuseFilter::fromByteArray));
        m.put(HyperLogLog.class, new Family(() -> {
            HyperLogLog h = HyperLogLog.create(10);
            h.addAll(TestKeys.longs(0, 5000)); // dense: a compact small-mode export cannot be wrapped
            return h;
        }, HyperLogLog::wrap, HyperLogLog::fromByteArray));
        m.put(UltraLogLog.class, new Family(() -> {
            UltraLogLog u = UltraLogLog.create(10);
            u.addAll(TestKeys.longs(0, 5000));
            return u;
        }, UltraLogLog::wrap, UltraLogLog::fromByteArray));
        m.put(ExaLogLog.class, new Family(() -> {
            ExaLogLog e = ExaLogLog.create(10);
            e.addAll(TestKeys.longs(0, 5000));
            return e;
        }, ExaLogLog::wrap, ExaLogLog::fromByteArray));
        m.put(CountMinSketch.class, new Family(() -> {
            CountMinSketch c = CountMinSketch.create(0.01, 0.01);
            c.addAll(TestKeys.longs(0, 500));
            return c;
        }, CountMinSketch::wrap, CountMinSketch::fromByteArray));
        m.put(TopK.class, new Family(() -> {
            TopK t = TopK.create(32, 16);
            t.addAll(TestKeys.longs(0, 500));
            return t;
        }, TopK::wrap, TopK::fromByteArray));
        m.put(MinHash.class, new Family(() -> {
            MinHash h = MinHash.create(64);
            h.addAll(TestKeys.longs(0, 500));
            return h;
        }, MinHash::wrap, MinHash::fromByteArray));
        return m;
    }

    @Test
    void everyMethodOverAReadOnlyMappingThrowsOrAnswers() throws Exception {
        List<String> wrong = new ArrayList<>();
        int calls = 0;
        for (Map.Entry<Class<?>, Family> e : families().entrySet()) {
            Class<?> cls = e.getKey();
            Family fam = e.getValue();
            Object owned = fam.filled().get();
            byte[] image = (byte[]) cls.getMethod("toByteArray").invoke(owned);
            Path file = dir.resolve(cls.getSimpleName() + ".img");
            Files.write(file, image);
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_ONLY, 0, ch.size());
                Object mapped = fam.wrap().apply(map);
                for (Method m : cls.getMethods()) {
                    if (Modifier.isStatic(m.getModifiers()) || SKIP.contains(m.getName())) {
                        continue;
                    }
                    calls++;
                    // On the mapped sketch, and (for methods taking a sketch) with the mapped one as argument.
                    String mine = outcome(m, mapped, fam, cls, null);
                    String ref = outcome(m, fam.read().apply(image), fam, cls, null);
                    if (mine.startsWith("threw java.nio.ReadOnlyBufferException")) {
                        if (!ref.startsWith("returned") && !ref.startsWith("threw")) {
                            wrong.add(m + ": " + ref);
                        }
                    } else if (!mine.equals(ref)) {
                        wrong.add(m + ": mapped " + mine + ", owned " + ref);
                    }
                    if (List.of(m.getParameterTypes()).contains(cls)) {
                        String arg = outcome(m, fam.read().apply(image), fam, cls, mapped);
                        String argRef = outcome(m, fam.read().apply(image), fam, cls, fam.read().apply(image));
                        if (!arg.equals(argRef)) {
                            wrong.add(m + " with a mapped argument: " + arg + ", owned " + argRef);
                        }
                    }
                }
                // Nothing was written to the file.
                assertTrue(java.util.Arrays.equals(image, Files.readAllBytes(file)), cls.getSimpleName());
            }
        }
        assertTrue(calls > 300, calls + " calls");
        if (!wrong.isEmpty()) {
            fail(String.join("\n", wrong));
        }
        assertEquals(List.of(), wrong);
    }

    /** What a call did: its result (arrays by content) or the class of what it threw. */
    private static String outcome(Method m, Object target, Family fam, Class<?> cls, Object sketchArg) {
        Object[] args = new Object[m.getParameterCount()];
        Class<?>[] types = m.getParameterTypes();
        for (int i = 0; i < args.length; i++) {
            args[i] = types[i] == cls ? (sketchArg != null ? sketchArg : fam.filled().get()) : TestKeys.sampleArgument(types[i]);
        }
        if (cls == ExaLogLog.class && m.getName().equals("downsize")) {
            args[1] = 20;
        }
        try {
            Object r = m.invoke(target, args);
            if (r instanceof ReadOnlyBufferException) {
                return "returned?";
            }
            return "returned " + describe(r) + " args " + describe(args);
        } catch (InvocationTargetException ite) {
            return "threw " + ite.getCause().getClass().getName();
        } catch (IllegalAccessException iae) {
            throw new AssertionError(iae);
        }
    }

    private static String describe(Object r) {
        if (r == null) {
            return "null";
        }
        if (r instanceof Object[] a) {
            StringBuilder sb = new StringBuilder("[");
            for (Object o : a) {
                sb.append(describe(o)).append(',');
            }
            return sb.append(']').toString();
        }
        if (r instanceof boolean[] b) {
            return java.util.Arrays.toString(b);
        }
        if (r instanceof long[] l) {
            return java.util.Arrays.toString(l);
        }
        if (r instanceof int[] i) {
            return java.util.Arrays.toString(i);
        }
        if (r instanceof byte[] b) {
            return java.util.Arrays.toString(b);
        }
        if (r instanceof ByteBuffer || r.getClass().getPackageName().equals("dev.sketches")
                && !r.getClass().isRecord() && !(r instanceof java.util.List)) {
            return r.getClass().getSimpleName(); // another sketch (downsize, toHyperLogLog)
        }
        return String.valueOf(r);
    }
}
