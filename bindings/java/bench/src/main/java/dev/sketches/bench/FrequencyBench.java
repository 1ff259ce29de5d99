package dev.sketches.bench;

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
 * Count-Min with epsilon 0.001, delta 0.01 (stream-lib: the same epsilon and confidence 0.99) on
 * 1,000,000 "present-<i>" keys: adds and point estimates. Scores are keys per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class FrequencyBench {
    private static final int N = Keys.N;
    private String[] present;
    private com.clearspring.analytics.stream.frequency.CountMinSketch streamlib;
    private dev.sketches.CountMinSketch ours;

    @Setup
    public void setup() {
        present = Keys.strings("present-", N);
        streamlib = new com.clearspring.analytics.stream.frequency.CountMinSketch(0.001, 0.99, 1);
        ours = dev.sketches.CountMinSketch.create(0.001, 0.01);
        for (String k : present) {
            streamlib.add(k, 1);
        }
        ours.addAll(present);
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public Object streamlibAdd() {
        com.clearspring.analytics.stream.frequency.CountMinSketch s =
                new com.clearspring.analytics.stream.frequency.CountMinSketch(0.001, 0.99, 1);
        for (String k : present) {
            s.add(k, 1);
        }
        return s;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long streamlibEstimate() {
        long sum = 0;
        for (String k : present) {
            sum += streamlib.estimateCount(k);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public Object countMinAddSingle() {
        dev.sketches.CountMinSketch s = dev.sketches.CountMinSketch.create(0.001, 0.01);
        for (String k : present) {
            s.add(k);
        }
        return s;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public Object countMinAddBatch() {
        dev.sketches.CountMinSketch s = dev.sketches.CountMinSketch.create(0.001, 0.01);
        s.addAll(present);
        return s;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long countMinEstimateSingle() {
        long sum = 0;
        for (String k : present) {
            sum += ours.estimate(k);
        }
        return sum;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public long countMinEstimateBatch() {
        long sum = 0;
        for (long e : ours.estimateAll(present)) {
            sum += e;
        }
        return sum;
    }
}
