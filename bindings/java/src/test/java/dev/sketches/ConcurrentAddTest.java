package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * The concurrent methods ({@code addConcurrent}, {@code addAllConcurrent}, {@code
 * addPackedConcurrent}, {@code containsConcurrent*}, {@code estimateConcurrent}): eight threads add
 * their own keys and keys every thread adds, through every key form, into one sketch at once, and
 * query it while the others still add. Once they are joined the image must equal that of the same
 * adds made one at a time through the plain methods: the bits or registers, and the counters the C
 * ABI says are exact.
 */
class ConcurrentAddTest {
    private static final int THREADS = 8;
    /** Keys per step (small, so that the threads alternate often). */
    private static final int STEP = 40;
    /** Steps of keys only one thread adds, per thread. */
    private static final int OWN_STEPS = 40;
    /** Steps of keys every thread adds (the same keys, each thread through another form). */
    private static final int SHARED_STEPS = 20;
    /** Keys of the long-key form: past SK_STACK_CHARS chars and SK_STACK_KEY bytes (pinned in JNI). */
    private static final String PAD = "x".repeat(1100);

    /** How a step's keys go in. */
    enum Form {
        BYTES, STRING, LONG_KEY, DIRECT_BUFFER, HEAP_BUFFER, ALL_BYTES, ALL_STRINGS, PACKED, LONG, ALL_LONGS;

        boolean longs() {
            return this == LONG || this == ALL_LONGS;
        }
    }

    private static final Form[] STRING_FORMS = {
        Form.BYTES, Form.STRING, Form.LONG_KEY, Form.DIRECT_BUFFER, Form.HEAP_BUFFER, Form.ALL_BYTES,
        Form.ALL_STRINGS, Form.PACKED
    };
    private static final Form[] LONG_FORMS = {Form.LONG, Form.ALL_LONGS};

    /** One call pattern: {@code form} over either string keys or long keys. */
    record Step(Form form, String[] strings, long[] longs) {
        int size() {
            return form.longs() ? longs.length : strings.length;
        }
    }

    /** Every 4th step holds long keys; the others strings (some with non-ASCII characters). */
    private static boolean longStep(int j) {
        return j % 4 == 3;
    }

    private static String[] stringKeys(String prefix, boolean padded) {
        String[] out = new String[STEP];
        for (int i = 0; i < STEP; i++) {
            out[i] = prefix + i + (i % 5 == 0 ? "-\u00e9\u20ac" : "") + (padded ? PAD : "");
        }
        return out;
    }

    private static long[] longKeys(long prefix) {
        long[] out = new long[STEP];
        for (int i = 0; i < STEP; i++) {
            out[i] = ((prefix << 20) + i) * 0x9E3779B97F4A7C15L; // a bijection: distinct keys stay distinct
        }
        return out;
    }

    /** Thread t's steps: its own keys (every form in turn) interleaved with the shared ones. */
    private static List<Step> steps(int t) {
        List<Step> own = new ArrayList<>();
        int longSteps = 0;
        int stringSteps = 0;
        for (int j = 0; j < OWN_STEPS; j++) {
            if (longStep(j)) {
                Form f = LONG_FORMS[longSteps++ % LONG_FORMS.length];
                own.add(new Step(f, null, longKeys(((long) t + 1) << 16 | j)));
            } else {
                Form f = STRING_FORMS[stringSteps++ % STRING_FORMS.length];
                own.add(new Step(f, stringKeys("own-" + t + "-" + j + "-", f == Form.LONG_KEY), null));
            }
        }
        List<Step> shared = new ArrayList<>();
        for (int j = 0; j < SHARED_STEPS; j++) {
            // The same keys on every thread; the form depends on the thread.
            if (longStep(j)) {
                shared.add(new Step(LONG_FORMS[(j / 4 + t) % LONG_FORMS.length], null, longKeys(j)));
            } else {
                Form f = STRING_FORMS[(j + t) % STRING_FORMS.length];
                // Long keys are the same keys whatever form adds them: pad every thread's or none.
                shared.add(new Step(f, stringKeys("shared-" + j + "-", j % 8 == 2), null));
            }
        }
        List<Step> out = new ArrayList<>();
        for (int i = 0, s = 0; i < own.size(); i++) {
            out.add(own.get(i));
            if (i % 2 == 1 && s < shared.size()) {
                out.add(shared.get(s++));
            }
        }
        return out;
    }

    private static List<List<Step>> work() {
        List<List<Step>> out = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            out.add(steps(t));
        }
        return out;
    }

    private static long addCalls(List<List<Step>> work) {
        long n = 0;
        for (List<Step> steps : work) {
            for (Step s : steps) {
                n += s.size();
            }
        }
        return n;
    }

    private static long distinctKeys() {
        return (long) THREADS * OWN_STEPS * STEP + (long) SHARED_STEPS * STEP;
    }

    // ---- the add and query forms of a sketch ----

    /** The add forms of one sketch: its concurrent methods, or (the reference) its plain ones. */
    interface Adds {
        boolean one(byte[] key);

        boolean one(String key);

        boolean one(long key);

        boolean one(ByteBuffer key);

        /** {@code wasNew}: null, or per-key reports (ignored by sketches without them). */
        void all(byte[][] keys, boolean[] wasNew);

        void all(String[] keys, boolean[] wasNew);

        void all(long[] keys, boolean[] wasNew);

        void packed(byte[] data, int[] offsets, boolean[] wasNew);
    }

    /** The query forms of a filter (its concurrent ones). */
    interface Queries {
        boolean one(byte[] key);

        boolean one(String key);

        boolean one(long key);

        boolean one(ByteBuffer key);

        boolean[] all(byte[][] keys);

        boolean[] all(String[] keys);

        boolean[] all(long[] keys);

        void allInto(long[] keys, boolean[] results);

        void packed(byte[] data, int[] offsets, boolean[] results);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static int count(boolean[] b) {
        int c = 0;
        for (boolean x : b) {
            c += x ? 1 : 0;
        }
        return c;
    }

    /**
     * Buffer keys three ways in turn: a direct buffer at a position past 0, a heap buffer with an
     * array offset, a read-only heap buffer (no accessible array). Checks the position is kept.
     */
    private static int viaBuffers(String[] keys, boolean direct, java.util.function.Predicate<ByteBuffer> call) {
        int trues = 0;
        for (int i = 0; i < keys.length; i++) {
            byte[] k = utf8(keys[i]);
            ByteBuffer b;
            if (direct) {
                b = ByteBuffer.allocateDirect(k.length + 5);
                b.position(5);
                b.put(k).position(5);
            } else {
                byte[] arr = new byte[k.length + 7];
                System.arraycopy(k, 0, arr, 7, k.length);
                b = ByteBuffer.wrap(arr, 3, k.length + 4).slice(); // array offset 3
                b.position(4);
                if (i % 2 == 1) {
                    b = b.asReadOnlyBuffer();
                }
            }
            int pos = b.position();
            trues += call.test(b) ? 1 : 0;
            assertEquals(pos, b.position(), "the key buffer's position moved");
        }
        return trues;
    }

    /**
     * Adds a step's keys through {@code adds}; returns how many adds reported a new bit (a raised
     * register): every single add, and the batches when {@code report}.
     */
    private static int add(Step s, Adds adds, boolean report) {
        boolean[] out = report ? new boolean[s.size()] : null;
        int trues = 0;
        switch (s.form) {
            case BYTES -> {
                for (String k : s.strings) {
                    trues += adds.one(utf8(k)) ? 1 : 0;
                }
            }
            case STRING, LONG_KEY -> {
                for (String k : s.strings) {
                    trues += adds.one(k) ? 1 : 0;
                }
            }
            case DIRECT_BUFFER -> trues += viaBuffers(s.strings, true, adds::one);
            case HEAP_BUFFER -> trues += viaBuffers(s.strings, false, adds::one);
            case ALL_BYTES -> adds.all(TestKeys.bytes(s.strings), out);
            case ALL_STRINGS -> adds.all(s.strings, out);
            case PACKED -> {
                Native.Packed p = Native.pack(s.strings);
                adds.packed(p.data(), p.offsets(), out);
            }
            case LONG -> {
                for (long k : s.longs) {
                    trues += adds.one(k) ? 1 : 0;
                }
            }
            case ALL_LONGS -> adds.all(s.longs, out);
            default -> throw new AssertionError(s.form);
        }
        return out == null ? trues : trues + count(out);
    }

    /** Every key of a step is present, asked through the query form {@code variant} selects. */
    private static void assertPresent(Step s, Queries q, int variant) {
        if (s.form.longs()) {
            boolean[] r;
            switch (variant % 3) {
                case 0 -> {
                    r = new boolean[s.longs.length];
                    for (int i = 0; i < r.length; i++) {
                        r[i] = q.one(s.longs[i]);
                    }
                }
                case 1 -> r = q.all(s.longs);
                default -> {
                    r = new boolean[s.longs.length + 2];
                    q.allInto(s.longs, r);
                    r = java.util.Arrays.copyOf(r, s.longs.length);
                }
            }
            assertEquals(r.length, count(r), "a long key added before the query is missing");
            return;
        }
        boolean[] r;
        switch (variant % 6) {
            case 0 -> {
                r = new boolean[s.strings.length];
                for (int i = 0; i < r.length; i++) {
                    r[i] = q.one(s.strings[i]);
                }
            }
            case 1 -> {
                r = new boolean[s.strings.length];
                for (int i = 0; i < r.length; i++) {
                    r[i] = q.one(utf8(s.strings[i]));
                }
            }
            case 2 -> r = new boolean[] {viaBuffers(s.strings, variant % 4 == 2, q::one) == s.strings.length};
            case 3 -> r = q.all(TestKeys.bytes(s.strings));
            case 4 -> r = q.all(s.strings);
            default -> {
                Native.Packed p = Native.pack(s.strings);
                r = new boolean[s.strings.length];
                q.packed(p.data(), p.offsets(), r);
            }
        }
        assertEquals(r.length, count(r), "a key added before the query is missing");
    }

    /** Called by a thread after each of its steps: its own step, and another thread's last finished step (or null). */
    @FunctionalInterface
    interface AfterStep {
        void run(int thread, int stepIndex, Step own, Step other);
    }

    /**
     * Runs every thread's steps at once (they start together at a barrier) through {@code adds};
     * thread t reports batch results when {@code reports} says so. After each step a thread
     * publishes its progress (a volatile write after the add returned) and runs {@code after} with
     * a step another thread has finished. Returns the sum of the reported new-bit answers.
     */
    private static long runThreads(List<List<Step>> work, Adds adds, IntPredicate reports, AfterStep after)
            throws Exception {
        AtomicIntegerArray done = new AtomicIntegerArray(THREADS);
        CyclicBarrier start = new CyclicBarrier(THREADS);
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<Long>> futures = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                int id = t;
                futures.add(pool.submit(() -> {
                    start.await();
                    long trues = 0;
                    List<Step> mine = work.get(id);
                    for (int s = 0; s < mine.size(); s++) {
                        trues += add(mine.get(s), adds, reports.test(id));
                        done.set(id, s + 1);
                        int u = (id + 1 + s % (THREADS - 1)) % THREADS; // never id
                        int du = done.get(u);
                        after.run(id, s, mine.get(s), du > 0 ? work.get(u).get(du - 1) : null);
                    }
                    return trues;
                }));
            }
            long trues = 0;
            for (Future<Long> f : futures) {
                trues += f.get(2, TimeUnit.MINUTES); // rethrows a worker's assertion failure
            }
            return trues;
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(1, TimeUnit.MINUTES));
        }
    }

    /** The same adds one at a time (thread 0's steps, then thread 1's, ...) through the plain methods. */
    private static void runSequentially(List<List<Step>> work, Adds adds) {
        for (List<Step> steps : work) {
            for (Step s : steps) {
                add(s, adds, false);
            }
        }
    }

    private static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    /** The image bytes after the header (the bits or registers). */
    private static byte[] body(ByteBuffer image, byte[] exported) {
        int header = Sketches.inspect(exported).headerBytes();
        ByteBuffer b = image.duplicate();
        b.position(header);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    // ---- Bloom ----

    private static Adds concurrent(BloomFilter f) {
        return new Adds() {
            public boolean one(byte[] k) {
                return f.addConcurrent(k);
            }

            public boolean one(String k) {
                return f.addConcurrent(k);
            }

            public boolean one(long k) {
                return f.addConcurrent(k);
            }

            public boolean one(ByteBuffer k) {
                return f.addConcurrent(k);
            }

            public void all(byte[][] k, boolean[] w) {
                if (w == null) {
                    f.addAllConcurrent(k);
                } else {
                    f.addAllConcurrent(k, w);
                }
            }

            public void all(String[] k, boolean[] w) {
                if (w == null) {
                    f.addAllConcurrent(k);
                } else {
                    f.addAllConcurrent(k, w);
                }
            }

            public void all(long[] k, boolean[] w) {
                if (w == null) {
                    f.addAllConcurrent(k);
                } else {
                    f.addAllConcurrent(k, w);
                }
            }

            public void packed(byte[] d, int[] o, boolean[] w) {
                f.addPackedConcurrent(d, o, w);
            }
        };
    }

    private static Adds plain(BloomFilter f) {
        return new Adds() {
            public boolean one(byte[] k) {
                return f.add(k);
            }

            public boolean one(String k) {
                return f.add(k);
            }

            public boolean one(long k) {
                return f.add(k);
            }

            public boolean one(ByteBuffer k) {
                return f.add(k);
            }

            public void all(byte[][] k, boolean[] w) {
                f.addAll(k, w);
            }

            public void all(String[] k, boolean[] w) {
                f.addAll(k, w);
            }

            public void all(long[] k, boolean[] w) {
                f.addAll(k, w);
            }

            public void packed(byte[] d, int[] o, boolean[] w) {
                f.addPacked(d, o, w);
            }
        };
    }

    private static Queries queries(BloomFilter f) {
        return new Queries() {
            public boolean one(byte[] k) {
                return f.containsConcurrent(k);
            }

            public boolean one(String k) {
                return f.containsConcurrent(k);
            }

            public boolean one(long k) {
                return f.containsConcurrent(k);
            }

            public boolean one(ByteBuffer k) {
                return f.containsConcurrent(k);
            }

            public boolean[] all(byte[][] k) {
                return f.containsAllConcurrent(k);
            }

            public boolean[] all(String[] k) {
                return f.containsAllConcurrent(k);
            }

            public boolean[] all(long[] k) {
                return f.containsAllConcurrent(k);
            }

            public void allInto(long[] k, boolean[] r) {
                f.containsAllConcurrent(k, r);
            }

            public void packed(byte[] d, int[] o, boolean[] r) {
                f.containsPackedConcurrent(d, o, r);
            }
        };
    }

    /**
     * Eight threads add through every concurrent form and query while the others add; afterwards
     * the bits, add calls and set bits equal a sequential run's. {@code allReport}: every thread
     * asks for per-key reports, so their sum must be the "inserted" count exactly (else some
     * batches pass null and the sum is a lower bound).
     */
    private static void bloomRun(boolean allReport) throws Exception {
        List<List<Step>> work = work();
        int planned = (int) distinctKeys();
        BloomFilter conc = BloomFilter.create(planned, 0.01, 11);
        BloomFilter seq = BloomFilter.create(planned, 0.01, 11);
        Queries q = queries(conc);
        long trues = runThreads(work, concurrent(conc), t -> allReport || t % 2 == 0, (t, s, own, other) -> {
            assertPresent(own, q, t + s);
            if (other != null) {
                assertPresent(other, q, t + s + 1);
            }
        });
        runSequentially(work, plain(seq));

        assertArrayEquals(body(seq.image(), seq.toByteArray()), body(conc.image(), conc.toByteArray()));
        BloomFilter.Stats c = conc.stats();
        BloomFilter.Stats s = seq.stats();
        assertEquals(addCalls(work), c.addCalls());
        assertEquals(s.addCalls(), c.addCalls());
        assertEquals(s.setBits(), c.setBits());
        assertEquals(s.fill(), c.fill());
        assertEquals(s.estimatedItems(), c.estimatedItems());
        assertEquals(s.estimatedFpr(), c.estimatedFpr());
        assertTrue(c.inserted() <= c.addCalls(), c.toString());
        if (allReport) {
            assertEquals(trues, c.inserted(), "reported new adds against the inserted counter");
        } else {
            assertTrue(trues <= c.inserted(), trues + " reported new adds, inserted " + c.inserted());
        }
        // Every key answers present, through the concurrent queries and the plain ones.
        for (List<Step> steps : work) {
            for (int i = 0; i < steps.size(); i++) {
                assertPresent(steps.get(i), q, i);
                Step st = steps.get(i);
                if (st.form.longs()) {
                    assertEquals(st.size(), count(conc.containsAll(st.longs)));
                } else {
                    assertEquals(st.size(), count(conc.containsAll(st.strings)));
                }
            }
        }
        String[] absent = TestKeys.strings("absent-", 0, 20_000);
        assertArrayEquals(seq.containsAll(absent), conc.containsAllConcurrent(absent));
    }

    @Test
    void bloomConcurrentAddsEqualSequentialAdds() throws Exception {
        bloomRun(false);
    }

    @Test
    void bloomConcurrentReportsSumToInserted() throws Exception {
        bloomRun(true);
    }

    // ---- split-block Bloom ----

    private static Adds concurrent(SplitBlockBloomFilter f) {
        return new Adds() {
            public boolean one(byte[] k) {
                return f.addConcurrent(k);
            }

            public boolean one(String k) {
                return f.addConcurrent(k);
            }

            public boolean one(long k) {
                return f.addConcurrent(k);
            }

            public boolean one(ByteBuffer k) {
                return f.addConcurrent(k);
            }

            public void all(byte[][] k, boolean[] w) {
                if (w == null) {
                    f.addAllConcurrent(k);
                } else {
                    f.addAllConcurrent(k, w);
                }
            }

            public void all(String[] k, boolean[] w) {
                if (w == null) {
                    f.addAllConcurrent(k);
                } else {
                    f.addAllConcurrent(k, w);
                }
            }

            public void all(long[] k, boolean[] w) {
                if (w == null) {
                    f.addAllConcurrent(k);
                } else {
                    f.addAllConcurrent(k, w);
                }
            }

            public void packed(byte[] d, int[] o, boolean[] w) {
                f.addPackedConcurrent(d, o, w);
            }
        };
    }

    private static Adds plain(SplitBlockBloomFilter f) {
        return new Adds() {
            public boolean one(byte[] k) {
                return f.add(k);
            }

            public boolean one(String k) {
                return f.add(k);
            }

            public boolean one(long k) {
                return f.add(k);
            }

            public boolean one(ByteBuffer k) {
                return f.add(k);
            }

            public void all(byte[][] k, boolean[] w) {
                f.addAll(k, w);
            }

            public void all(String[] k, boolean[] w) {
                f.addAll(k, w);
            }

            public void all(long[] k, boolean[] w) {
                f.addAll(k, w);
            }

            public void packed(byte[] d, int[] o, boolean[] w) {
                f.addPacked(d, o, w);
            }
        };
    }

    private static Queries queries(SplitBlockBloomFilter f) {
        return new Queries() {
            public boolean one(byte[] k) {
                return f.containsConcurrent(k);
            }

            public boolean one(String k) {
                return f.containsConcurrent(k);
            }

            public boolean one(long k) {
                return f.containsConcurrent(k);
            }

            public boolean one(ByteBuffer k) {
                return f.containsConcurrent(k);
            }

            public boolean[] all(byte[][] k) {
                return f.containsAllConcurrent(k);
            }

            public boolean[] all(String[] k) {
                return f.containsAllConcurrent(k);
            }

            public boolean[] all(long[] k) {
                return f.containsAllConcurrent(k);
            }

            public void allInto(long[] k, boolean[] r) {
                f.containsAllConcurrent(k, r);
            }

            public void packed(byte[] d, int[] o, boolean[] r) {
                f.containsPackedConcurrent(d, o, r);
            }
        };
    }

    private static void splitBlockRun(boolean parquet, boolean allReport) throws Exception {
        List<List<Step>> work = work();
        long planned = distinctKeys();
        SplitBlockBloomFilter conc = parquet ? SplitBlockBloomFilter.forParquet(planned, 0.01)
                : SplitBlockBloomFilter.create(planned, 0.01, 11);
        SplitBlockBloomFilter seq = parquet ? SplitBlockBloomFilter.forParquet(planned, 0.01)
                : SplitBlockBloomFilter.create(planned, 0.01, 11);
        Queries q = queries(conc);
        long trues = runThreads(work, concurrent(conc), t -> allReport || t % 2 == 1, (t, s, own, other) -> {
            assertPresent(own, q, t + s);
            if (other != null) {
                assertPresent(other, q, t + s + 1);
            }
        });
        runSequentially(work, plain(seq));

        ByteBuffer cb = conc.bitset();
        ByteBuffer sb = seq.bitset();
        assertEquals(sb, cb, "the blocks differ from the sequential run's");
        assertArrayEquals(body(seq.image(), seq.toByteArray()), body(conc.image(), conc.toByteArray()));
        SplitBlockBloomFilter.Stats c = conc.stats();
        SplitBlockBloomFilter.Stats s = seq.stats();
        assertEquals(addCalls(work), c.addCalls());
        assertEquals(s.addCalls(), c.addCalls());
        assertEquals(s.setBits(), c.setBits());
        assertEquals(s.fill(), c.fill());
        assertEquals(s.estimatedItems(), c.estimatedItems());
        assertEquals(s.estimatedFpr(), c.estimatedFpr());
        assertTrue(c.inserted() <= c.addCalls(), c.toString());
        if (allReport) {
            assertEquals(trues, c.inserted(), "reported new adds against the inserted counter");
        } else {
            assertTrue(trues <= c.inserted(), trues + " reported new adds, inserted " + c.inserted());
        }
        for (List<Step> steps : work) {
            for (int i = 0; i < steps.size(); i++) {
                assertPresent(steps.get(i), q, i + 1);
            }
        }
        String[] absent = TestKeys.strings("absent-", 0, 20_000);
        assertArrayEquals(seq.containsAll(absent), conc.containsAllConcurrent(absent));
    }

    @Test
    void splitBlockConcurrentAddsEqualSequentialAdds() throws Exception {
        splitBlockRun(false, false);
        splitBlockRun(false, true);
    }

    @Test
    void splitBlockParquetConcurrentAddsEqualSequentialAdds() throws Exception {
        splitBlockRun(true, true);
    }

    // ---- HyperLogLog ----

    private static Adds concurrent(HyperLogLog h) {
        return new Adds() {
            public boolean one(byte[] k) {
                return h.addConcurrent(k);
            }

            public boolean one(String k) {
                return h.addConcurrent(k);
            }

            public boolean one(long k) {
                return h.addConcurrent(k);
            }

            public boolean one(ByteBuffer k) {
                return h.addConcurrent(k);
            }

            public void all(byte[][] k, boolean[] w) {
                h.addAllConcurrent(k);
            }

            public void all(String[] k, boolean[] w) {
                h.addAllConcurrent(k);
            }

            public void all(long[] k, boolean[] w) {
                h.addAllConcurrent(k);
            }

            public void packed(byte[] d, int[] o, boolean[] w) {
                h.addPackedConcurrent(d, o);
            }
        };
    }

    private static Adds plain(HyperLogLog h) {
        return new Adds() {
            public boolean one(byte[] k) {
                return h.add(k);
            }

            public boolean one(String k) {
                return h.add(k);
            }

            public boolean one(long k) {
                return h.add(k);
            }

            public boolean one(ByteBuffer k) {
                return h.add(k);
            }

            public void all(byte[][] k, boolean[] w) {
                h.addAll(k);
            }

            public void all(String[] k, boolean[] w) {
                h.addAll(k);
            }

            public void all(long[] k, boolean[] w) {
                h.addAll(k);
            }

            public void packed(byte[] d, int[] o, boolean[] w) {
                h.addPacked(d, o);
            }
        };
    }

    /** An estimate read while threads add: finite, and within a factor of the keys that exist. */
    private static void assertPlausible(double e) {
        assertTrue(e >= 0 && e <= 2.0 * distinctKeys(), "estimate while adding: " + e);
    }

    @Test
    void hyperLogLogConcurrentAddsEqualSequentialAdds() throws Exception {
        List<List<Step>> work = work();
        HyperLogLog conc = HyperLogLog.create(12, 11);
        conc.densify();
        HyperLogLog seq = HyperLogLog.create(12, 11);
        seq.densify();
        runThreads(work, concurrent(conc), t -> false,
                (t, s, own, other) -> assertPlausible(conc.estimateConcurrent()));
        runSequentially(work, plain(seq));

        assertArrayEquals(body(seq.image(), seq.toByteArray()), body(conc.image(), conc.toByteArray()));
        HyperLogLog.Stats c = conc.stats();
        HyperLogLog.Stats s = seq.stats();
        assertFalse(c.small());
        assertEquals(s.registersSet(), c.registersSet());
        assertEquals(seq.registerEstimate(), conc.registerEstimate());
        assertEquals(seq.registerEstimate(), conc.estimateConcurrent());
        // Concurrent adds end the martingale estimate; the sequential sketch kept its own.
        assertTrue(s.martingale());
        assertFalse(c.martingale());
        assertEquals(conc.registerEstimate(), conc.estimate());
        double n = distinctKeys();
        assertTrue(Math.abs(conc.estimate() - n) < 0.1 * n, "estimate " + conc.estimate() + " of " + n);
        // The images are interchangeable: merged into a fresh sketch, either gives the same registers.
        HyperLogLog a = HyperLogLog.create(12, 11);
        a.merge(conc);
        HyperLogLog b = HyperLogLog.create(12, 11);
        b.merge(seq);
        assertArrayEquals(b.toByteArray(), a.toByteArray());
    }

    @Test
    void hyperLogLogSmallModeRefusesConcurrentAddsUntilDensified() {
        HyperLogLog h = HyperLogLog.create(12, 5);
        h.addAll(TestKeys.strings("small-", 0, 100));
        assertTrue(h.stats().small());
        byte[] exported = h.toByteArray();
        byte[] live = bytes(h.image());
        double estimate = h.estimate();
        assertEquals(100.0, estimate);
        Native.Packed p = Native.pack(new String[] {"a", "b"});
        List<Executable> calls = List.of(
                () -> h.addConcurrent(utf8("new")),
                () -> h.addConcurrent("new"),
                () -> h.addConcurrent("new" + PAD),
                () -> h.addConcurrent(42L),
                () -> h.addConcurrent(ByteBuffer.wrap(utf8("new"))),
                () -> h.addConcurrent(ByteBuffer.allocateDirect(3).put(utf8("new")).flip()),
                () -> h.addAllConcurrent(new byte[][] {utf8("new")}),
                () -> h.addAllConcurrent(new String[] {"new", "other"}),
                () -> h.addAllConcurrent(new long[] {1, 2, 3}),
                () -> h.addPackedConcurrent(p.data(), p.offsets()),
                () -> h.estimateConcurrent());
        for (Executable call : calls) {
            SketchException e = assertThrows(SketchException.class, call);
            assertEquals(Status.SMALL_MODE, e.status());
            assertTrue(e.getMessage().startsWith("sketch_hll_"), e.getMessage());
            assertTrue(e.getMessage().contains("_concurrent"), e.getMessage());
            // Nothing changed.
            assertArrayEquals(exported, h.toByteArray());
            assertArrayEquals(live, bytes(h.image()));
        }

        h.densify();
        assertFalse(h.stats().small());
        assertEquals(estimate, h.estimate()); // the martingale estimate goes on from the exact count
        assertTrue(h.stats().martingale());
        assertEquals(h.registerEstimate(), h.estimateConcurrent()); // now the registers' estimate
        assertTrue(Math.abs(h.estimateConcurrent() - 100) < 10, "register estimate " + h.estimateConcurrent());
        byte[] dense = h.toByteArray();
        assertNotEquals(exported.length, dense.length); // dense images export at full size
        h.densify(); // a no-op when dense
        assertArrayEquals(dense, h.toByteArray());

        // Now the concurrent adds work, and give what plain adds give on a densified copy.
        HyperLogLog ref = HyperLogLog.fromByteArray(dense);
        for (Executable call : calls) {
            assertDoesNotThrow(call);
        }
        ref.add(utf8("new"));
        ref.add("new");
        ref.add("new" + PAD);
        ref.add(42L);
        ref.addAll(new String[] {"new", "other", "a", "b"});
        ref.addAll(new long[] {1, 2, 3});
        assertEquals(ref.registerEstimate(), h.estimateConcurrent());
        assertArrayEquals(body(ref.image(), ref.toByteArray()), body(h.image(), h.toByteArray()));
        assertFalse(h.stats().martingale());

        // A read-only sketch refuses the adds and densify before reaching native code.
        HyperLogLog ro = HyperLogLog.wrap(TestKeys.direct(h.toByteArray()).asReadOnlyBuffer());
        assertThrows(ReadOnlyBufferException.class, () -> ro.addConcurrent("k"));
        assertThrows(ReadOnlyBufferException.class, () -> ro.addAllConcurrent(new long[] {1}));
        assertThrows(ReadOnlyBufferException.class, ro::densify);
        assertEquals(h.estimateConcurrent(), ro.estimateConcurrent());
    }

    // ---- UltraLogLog ----

    private static Adds concurrent(UltraLogLog u) {
        return new Adds() {
            public boolean one(byte[] k) {
                return u.addConcurrent(k);
            }

            public boolean one(String k) {
                return u.addConcurrent(k);
            }

            public boolean one(long k) {
                return u.addConcurrent(k);
            }

            public boolean one(ByteBuffer k) {
                return u.addConcurrent(k);
            }

            public void all(byte[][] k, boolean[] w) {
                u.addAllConcurrent(k);
            }

            public void all(String[] k, boolean[] w) {
                u.addAllConcurrent(k);
            }

            public void all(long[] k, boolean[] w) {
                u.addAllConcurrent(k);
            }

            public void packed(byte[] d, int[] o, boolean[] w) {
                u.addPackedConcurrent(d, o);
            }
        };
    }

    private static Adds plain(UltraLogLog u) {
        return new Adds() {
            public boolean one(byte[] k) {
                return u.add(k);
            }

            public boolean one(String k) {
                return u.add(k);
            }

            public boolean one(long k) {
                return u.add(k);
            }

            public boolean one(ByteBuffer k) {
                return u.add(k);
            }

            public void all(byte[][] k, boolean[] w) {
                u.addAll(k);
            }

            public void all(String[] k, boolean[] w) {
                u.addAll(k);
            }

            public void all(long[] k, boolean[] w) {
                u.addAll(k);
            }

            public void packed(byte[] d, int[] o, boolean[] w) {
                u.addPacked(d, o);
            }
        };
    }

    @Test
    void ultraLogLogConcurrentAddsEqualSequentialAdds() throws Exception {
        List<List<Step>> work = work();
        UltraLogLog conc = UltraLogLog.create(11, 11);
        UltraLogLog seq = UltraLogLog.create(11, 11);
        runThreads(work, concurrent(conc), t -> false,
                (t, s, own, other) -> assertPlausible(conc.estimateConcurrent()));
        runSequentially(work, plain(seq));

        assertArrayEquals(body(seq.image(), seq.toByteArray()), body(conc.image(), conc.toByteArray()));
        UltraLogLog.Stats c = conc.stats();
        UltraLogLog.Stats s = seq.stats();
        assertEquals(s.registersSet(), c.registersSet());
        assertEquals(seq.registerEstimate(), conc.registerEstimate());
        assertEquals(seq.registerEstimate(), conc.estimateConcurrent());
        assertEquals(seq.mlEstimate(), conc.mlEstimate());
        assertTrue(s.martingale());
        assertFalse(c.martingale());
        assertEquals(conc.registerEstimate(), conc.estimate());
        double n = distinctKeys();
        assertTrue(Math.abs(conc.estimate() - n) < 0.1 * n, "estimate " + conc.estimate() + " of " + n);
        UltraLogLog a = UltraLogLog.create(11, 11);
        a.merge(conc);
        UltraLogLog b = UltraLogLog.create(11, 11);
        b.merge(seq);
        assertArrayEquals(b.toByteArray(), a.toByteArray());
    }

    // ---- arguments ----

    @Test
    void concurrentFormsCheckTheirArgumentsAndReadOnlyBuffers() {
        BloomFilter f = BloomFilter.create(1000, 0.01, 3);
        byte[] empty = f.toByteArray();
        assertThrows(IllegalArgumentException.class, () -> f.addPackedConcurrent(new byte[4], new int[] {0, 5}, null));
        assertThrows(IllegalArgumentException.class, () -> f.addPackedConcurrent(new byte[4], new int[] {2, 1}, null));
        assertThrows(IllegalArgumentException.class, () -> f.addAllConcurrent(new long[] {1, 2}, new boolean[1]));
        assertThrows(IllegalArgumentException.class,
                () -> f.containsPackedConcurrent(new byte[4], new int[] {0, 5}, new boolean[1]));
        assertThrows(IllegalArgumentException.class, () -> f.containsAllConcurrent(new long[] {1, 2}, new boolean[1]));
        assertThrows(NullPointerException.class, () -> f.addAllConcurrent(new String[] {"a", null}));
        assertArrayEquals(empty, f.toByteArray(), "a refused batch added something");

        // On a wrapped buffer (no token) the concurrent forms work as on an owned image.
        f.addConcurrent("k");
        BloomFilter w = BloomFilter.wrap(TestKeys.direct(f.toByteArray()));
        assertTrue(w.containsConcurrent("k"));
        assertTrue(w.addConcurrent("other"));
        assertFalse(w.addConcurrent("other"));
        BloomFilter ro = BloomFilter.wrap(TestKeys.direct(f.toByteArray()).asReadOnlyBuffer());
        assertTrue(ro.containsConcurrent("k"));
        assertThrows(ReadOnlyBufferException.class, () -> ro.addConcurrent("k"));
        assertThrows(ReadOnlyBufferException.class, () -> ro.addAllConcurrent(new String[] {"k"}));
        assertThrows(ReadOnlyBufferException.class, () -> ro.addPackedConcurrent(new byte[0], new int[] {0}, null));
        SplitBlockBloomFilter sro = SplitBlockBloomFilter.wrap(
                TestKeys.direct(SplitBlockBloomFilter.create(100, 0.01).toByteArray()).asReadOnlyBuffer());
        assertThrows(ReadOnlyBufferException.class, () -> sro.addConcurrent(1L));
        assertFalse(sro.containsConcurrent(1L));
        UltraLogLog uro = UltraLogLog.wrap(TestKeys.direct(UltraLogLog.create(8).toByteArray()).asReadOnlyBuffer());
        assertThrows(ReadOnlyBufferException.class, () -> uro.addConcurrent(1L));
        assertEquals(0.0, uro.estimateConcurrent());
    }
}
