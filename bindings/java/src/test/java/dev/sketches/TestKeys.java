package dev.sketches;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Shared helpers of the tests: key sets, golden images, aligned buffers. */
final class TestKeys {
    private TestKeys() {}

    /** The golden images' keys ("golden-<i>", as tests/tests/golden.rs). */
    static String golden(long i) {
        return "golden-" + i;
    }

    static String[] strings(String prefix, int from, int count) {
        String[] out = new String[count];
        for (int i = 0; i < count; i++) {
            out[i] = prefix + (from + i);
        }
        return out;
    }

    static byte[][] bytes(String[] keys) {
        byte[][] out = new byte[keys.length][];
        for (int i = 0; i < keys.length; i++) {
            out[i] = keys[i].getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    static long[] longs(long from, int count) {
        long[] out = new long[count];
        for (int i = 0; i < count; i++) {
            out[i] = (from + i) * 0x9E3779B97F4A7C15L;
        }
        return out;
    }

    /** The repository's tests/golden folder (set by the pom; found from the working directory otherwise). */
    static Path goldenDir() {
        String p = System.getProperty("sketches.golden");
        return p != null ? Paths.get(p) : Paths.get("../../tests/golden");
    }

    static byte[] goldenImage(String name) {
        try {
            return Files.readAllBytes(goldenDir().resolve(name + "_v1.img"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The repository's include/sketches.h. */
    static String header() {
        try {
            return Files.readString(goldenDir().resolve("../../include/sketches.h").normalize());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A 64-byte-aligned direct buffer holding exactly {@code bytes}. */
    static ByteBuffer direct(byte[] bytes) {
        ByteBuffer b = Native.allocate(bytes.length);
        b.put(bytes).clear();
        return b;
    }

    /**
     * A valid argument of {@code type} for the reflective tests that call every public method
     * (NullArgumentTest, ReadOnlyMappedTest): small keys, batches, parameters.
     *
     * @throws AssertionError for a type without a sample
     */
    static Object sampleArgument(Class<?> type) {
        if (type == byte[].class) {
            return new byte[] {1, 0, 0, 0, 0, 0, 0, 0};
        } else if (type == String.class) {
            return "k";
        } else if (type == ByteBuffer.class) {
            return ByteBuffer.wrap(new byte[] {1, 0, 0, 0, 0, 0, 0, 0});
        } else if (type == java.io.OutputStream.class) {
            return new java.io.ByteArrayOutputStream();
        } else if (type == java.io.InputStream.class) {
            return new java.io.ByteArrayInputStream(new byte[0]);
        } else if (type == long[].class) {
            return new long[] {1, 2, 1000};
        } else if (type == byte[][].class) {
            return new byte[][] {{1}, {2}};
        } else if (type == String[].class) {
            return new String[] {"k", "j"};
        } else if (type == int[].class) {
            return new int[] {0, 1};
        } else if (type == boolean[].class) {
            return new boolean[3];
        } else if (type == ParquetSizing.class) {
            return ParquetSizing.DUCKDB;
        } else if (type == long.class) {
            return 1L;
        } else if (type == int.class) {
            return 4;
        } else if (type == char.class) {
            return 'x';
        } else if (type == short.class) {
            return (short) 1;
        } else if (type == byte.class) {
            return (byte) 1;
        } else if (type == float.class) {
            return 1f;
        } else if (type == double.class) {
            return 0.5;
        } else if (type == boolean.class) {
            return false;
        } else if (type == Object.class) {
            return "k";
        }
        throw new AssertionError("no sample for " + type);
    }
}
