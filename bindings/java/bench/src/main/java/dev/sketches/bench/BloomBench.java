package dev.sketches.bench;

import com.google.common.hash.Funnels;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Membership filters on the stand workload (1,000,000 "present-<i>" keys at 1%, 1,000,000
 * "absent-<i>" queries): Guava's BloomFilter (Funnels.stringFunnel(UTF_8)) against our Bloom and
 * split-block filters, single-key calls and batches, and our binary fuse filter with 8-bit
 * fingerprints (static: built once from all the keys; rate 2^-8, about 0.39%, in about 9 bits per
 * key, where a 1% Bloom filter takes 9.6). Scores are keys per second.
 *
 * <p>Concurrent adds ({@code bloomAddConcurrentU64}, two threads) have their own workload: both
 * threads add fresh {@code long} keys, {@link #CHUNK} per call, into one filter planned for {@link
 * #SHARED_ITEMS} keys and made anew each iteration; {@code bloomAddExclusiveU64} is the same
 * workload on one thread through the exclusive {@code addAll}. The score of the two-thread run is
 * the keys per second of both threads together.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class BloomBench {
    private static final int N = Keys.N;
    /** Keys per call of the concurrent-add workload. */
    static final int CHUNK = 1 << 14;
    /** Keys the filter of the concurrent-add workload is planned for (about 77 MiB at 1%). */
    static final long SHARED_ITEMS = 1L << 26;
    private String[] present;
    private String[] absent;
    private byte[] presentData;
    private int[] presentOffsets;
    private byte[] absentData;
    private int[] absentOffsets;
    private boolean[] results;
    private com.google.common.hash.BloomFilter<CharSequence> guava;
    private dev.sketches.BloomFilter bloom;
    private dev.sketches.SplitBlockBloomFilter sbbf;
    private dev.sketches.BinaryFuseFilter fuse;

    @Setup
    public void setup() {
        present = Keys.strings("present-", N);
        absent = Keys.strings("absent-", N);
        Object[] p = Keys.packed(present);
        presentData = (byte[]) p[0];
        presentOffsets = (int[]) p[1];
        Object[] a = Keys.packed(absent);
        absentData = (byte[]) a[0];
        absentOffsets = (int[]) a[1];
        results = new boolean[N];
        guava = newGuava();
        bloom = dev.sketches.BloomFilter.create(N, 0.01);
        sbbf = dev.sketches.SplitBlockBloomFilter.create(N, 0.01);
        for (String k : present) {
            guava.put(k);
        }
        bloom.addAll(present);
        sbbf.addAll(present);
        fuse = dev.sketches.BinaryFuseFilter.build(present, 8, 0);
    }

    private static com.google.common.hash.BloomFilter<CharSequence> newGuava() {
        return com.google.common.hash.BloomFilter.create(Funnels.stringFunnel(StandardCharsets.UTF_8), N, 0.01);
    }

    private static int count(boolean[] r) {
        int c = 0;
        for (boolean b : r) {
            c += b ? 1 : 0;
        }
        return c;
    }

    // ---- Guava ----

    @Benchmark
    @OperationsPerInvocation(N)
    public Object guavaPut() {
        com.google.common.hash.BloomFilter<CharSequence> f = newGuava();
        for (String k : present) {
            f.put(k);
        }
        return f;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int guavaContainsPresent() {
        int c = 0;
        for (String k : present) {
            c += guava.mightContain(k) ? 1 : 0;
        }
        return c;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int guavaContainsAbsent() {
        int c = 0;
        for (String k : absent) {
            c += guava.mightContain(k) ? 1 : 0;
        }
        return c;
    }

    // ---- our Bloom filter ----

    @Benchmark
    @OperationsPerInvocation(N)
    public Object bloomAddSingle() {
        dev.sketches.BloomFilter f = dev.sketches.BloomFilter.create(N, 0.01);
        for (String k : present) {
            f.add(k);
        }
        return f;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public Object bloomAddBatch() {
        dev.sketches.BloomFilter f = dev.sketches.BloomFilter.create(N, 0.01);
        f.addAll(present);
        return f;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public Object bloomAddPacked() {
        dev.sketches.BloomFilter f = dev.sketches.BloomFilter.create(N, 0.01);
        f.addPacked(presentData, presentOffsets, null);
        return f;
    }

    /** A filter the threads of a benchmark share, made anew before each iteration. */
    @State(Scope.Benchmark)
    public static class SharedFilter {
        dev.sketches.BloomFilter filter;

        @Setup(Level.Iteration)
        public void fresh() {
            filter = dev.sketches.BloomFilter.create(SHARED_ITEMS, 0.01);
        }
    }

    /** Per thread: fresh long keys, {@link #CHUNK} per call, from a range no other thread uses. */
    @State(Scope.Thread)
    public static class KeyStream {
        private static final AtomicLong RANGES = new AtomicLong();
        private final long[] keys = new long[CHUNK];
        private long next;

        @Setup(Level.Trial)
        public void range() {
            next = RANGES.getAndIncrement() << 40;
        }

        long[] nextChunk() {
            for (int i = 0; i < CHUNK; i++) {
                keys[i] = next++;
            }
            return keys;
        }
    }

    @Benchmark
    @Threads(2)
    @OperationsPerInvocation(CHUNK)
    public Object bloomAddConcurrentU64(SharedFilter shared, KeyStream stream) {
        shared.filter.addAllConcurrent(stream.nextChunk());
        return shared.filter;
    }

    @Benchmark
    @Threads(1)
    @OperationsPerInvocation(CHUNK)
    public Object bloomAddExclusiveU64(SharedFilter shared, KeyStream stream) {
        shared.filter.addAll(stream.nextChunk());
        return shared.filter;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int bloomContainsSinglePresent() {
        int c = 0;
        for (String k : present) {
            c += bloom.contains(k) ? 1 : 0;
        }
        return c;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int bloomContainsSingleAbsent() {
        int c = 0;
        for (String k : absent) {
            c += bloom.contains(k) ? 1 : 0;
        }
        return c;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int bloomContainsBatchPresent() {
        return count(bloom.containsAll(present));
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int bloomContainsBatchAbsent() {
        return count(bloom.containsAll(absent));
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int bloomContainsPackedAbsent() {
        bloom.containsPacked(absentData, absentOffsets, results);
        return count(results);
    }

    // ---- our split-block filter ----

    @Benchmark
    @OperationsPerInvocation(N)
    public Object sbbfAddBatch() {
        dev.sketches.SplitBlockBloomFilter f = dev.sketches.SplitBlockBloomFilter.create(N, 0.01);
        f.addAll(present);
        return f;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int sbbfContainsSingleAbsent() {
        int c = 0;
        for (String k : absent) {
            c += sbbf.contains(k) ? 1 : 0;
        }
        return c;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int sbbfContainsBatchAbsent() {
        return count(sbbf.containsAll(absent));
    }

    // ---- our binary fuse filter (8-bit fingerprints) ----

    @Benchmark
    @OperationsPerInvocation(N)
    public Object fuseBuild() {
        return dev.sketches.BinaryFuseFilter.build(present, 8, 0);
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public Object fuseBuildPacked() {
        return dev.sketches.BinaryFuseFilter.buildPacked(presentData, presentOffsets, 8, 0);
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int fuseContainsSingleAbsent() {
        int c = 0;
        for (String k : absent) {
            c += fuse.contains(k) ? 1 : 0;
        }
        return c;
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int fuseContainsBatchAbsent() {
        return count(fuse.containsAll(absent));
    }

    @Benchmark
    @OperationsPerInvocation(N)
    public int fuseContainsPackedAbsent() {
        fuse.containsPacked(absentData, absentOffsets, results);
        return count(results);
    }
}
