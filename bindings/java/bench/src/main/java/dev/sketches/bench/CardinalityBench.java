package dev.sketches.bench;

import com.clearspring.analytics.stream.cardinality.HyperLogLogPlus;
import java.util.concurrent.TimeUnit;
import org.apache.datasketches.hll.HllSketch;
import org.apache.datasketches.hll.TgtHllType;
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
 * Distinct counting of 1,000,000 "present-<i>" keys at p = 14 (lgK 14): stream-lib's
 * HyperLogLogPlus, Apache DataSketches HLL_6 and HLL_8, our HyperLogLog (single calls and
 * batches) and UltraLogLog. Scores are keys per second; a fresh sketch per invocation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class CardinalityBench {
    private static final int N = Keys.N;
    private static final int P = 14;
    private String[] present;
    private long[] longs;

    @Setup
    public void setup() {
        present = Keys.strings("present-", N);
        longs = new long[N];
        for (int i = 0; i < N; i++) {
            longs[i] = i;
        }
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public double streamlibHllPlus() {
        HyperLogLogPlus h = new HyperLogLogPlus(P);
        for (String k : present) {
            h.offer(k);
        }
        return h.cardinality();
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public double datasketchesHll6() {
        HllSketch h = new HllSketch(P, TgtHllType.HLL_6);
        for (String k : present) {
            h.update(k);
        }
        return h.getEstimate();
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public double datasketchesHll8() {
        HllSketch h = new HllSketch(P, TgtHllType.HLL_8);
        for (String k : present) {
            h.update(k);
        }
        return h.getEstimate();
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public double hllAddSingle() {
        dev.sketches.HyperLogLog h = dev.sketches.HyperLogLog.create(P);
        for (String k : present) {
            h.add(k);
        }
        return h.estimate();
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public double hllAddBatch() {
        dev.sketches.HyperLogLog h = dev.sketches.HyperLogLog.create(P);
        h.addAll(present);
        return h.estimate();
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public double hllAddLongBatch() {
        dev.sketches.HyperLogLog h = dev.sketches.HyperLogLog.create(P);
        h.addAll(longs);
        return h.estimate();
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public double datasketchesHll6Long() {
        HllSketch h = new HllSketch(P, TgtHllType.HLL_6);
        for (long k : longs) {
            h.update(k);
        }
        return h.getEstimate();
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public double ullAddBatch() {
        dev.sketches.UltraLogLog h = dev.sketches.UltraLogLog.create(P - 1);
        h.addAll(present);
        return h.estimate();
    }
}
