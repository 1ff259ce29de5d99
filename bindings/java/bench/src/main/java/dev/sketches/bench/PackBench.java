package dev.sketches.bench;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetEncoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Ways to pack a String[] batch as UTF-8 into one byte[] plus offsets (what addAll(String[])
 * does before its native call): an ASCII loop writing straight into the batch array with
 * getBytes for other strings (the binding's choice), getBytes for every key plus a copy, and a
 * CharsetEncoder into one buffer. Scores are keys per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PackBench {
    private static final int N = 100_000;
    private String[] keys;

    @Setup
    public void setup() {
        keys = Keys.strings("present-", N);
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int asciiLoop() {
        long chars = 0;
        for (String k : keys) {
            chars += k.length();
        }
        byte[] data = new byte[(int) chars];
        int[] offsets = new int[keys.length + 1];
        int pos = 0;
        for (int i = 0; i < keys.length; i++) {
            String k = keys[i];
            int n = k.length();
            int j = 0;
            for (; j < n; j++) {
                char c = k.charAt(j);
                if (c >= 0x80) {
                    break;
                }
                data[pos + j] = (byte) c;
            }
            if (j < n) {
                throw new IllegalStateException("the benchmark keys are ASCII");
            }
            pos += n;
            offsets[i + 1] = pos;
        }
        return offsets[keys.length] + data.length;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int getBytesEach() {
        byte[][] parts = new byte[keys.length][];
        int total = 0;
        for (int i = 0; i < keys.length; i++) {
            parts[i] = keys[i].getBytes(StandardCharsets.UTF_8);
            total += parts[i].length;
        }
        byte[] data = new byte[total];
        int[] offsets = new int[keys.length + 1];
        int pos = 0;
        for (int i = 0; i < parts.length; i++) {
            System.arraycopy(parts[i], 0, data, pos, parts[i].length);
            pos += parts[i].length;
            offsets[i + 1] = pos;
        }
        return offsets[keys.length] + data.length;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int encoder() {
        CharsetEncoder enc = StandardCharsets.UTF_8.newEncoder();
        long chars = 0;
        for (String k : keys) {
            chars += k.length();
        }
        ByteBuffer out = ByteBuffer.allocate((int) chars * 3);
        int[] offsets = new int[keys.length + 1];
        for (int i = 0; i < keys.length; i++) {
            CoderResult r = enc.encode(CharBuffer.wrap(keys[i]), out, true);
            if (r.isError()) {
                throw new IllegalStateException(r.toString());
            }
            enc.reset();
            offsets[i + 1] = out.position();
        }
        return offsets[keys.length];
    }
}
