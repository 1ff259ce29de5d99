package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import org.junit.jupiter.api.Test;

/** HyperLogLog, UltraLogLog and ExaLogLog: every public method, errors, error envelopes. */
class CardinalityTest {
    private static double rmse(double[] estimates, double n) {
        return Math.sqrt(java.util.Arrays.stream(estimates).map(v -> (v / n - 1) * (v / n - 1)).sum()
                / estimates.length);
    }

    @Test
    void hyperLogLogErrorFollowsItsEnvelope() {
        int p = 12;
        int n = 50_000;
        int trials = 60;
        double m = 1 << p;
        double[] reg = new double[trials];
        double[] mart = new double[trials];
        for (int t = 0; t < trials; t++) {
            HyperLogLog h = HyperLogLog.create(p, t);
            h.addAll(TestKeys.longs((long) t * n, n));
            mart[t] = h.estimate();
            reg[t] = h.registerEstimate();
            assertTrue(h.stats().martingale());
        }
        double rm = rmse(mart, n);
        double rr = rmse(reg, n);
        // 60 trials: the RMSE estimate itself has ~9% relative spread; allow 1.5x the theory.
        assertTrue(rm < 1.5 * 0.83 / Math.sqrt(m), "martingale RMSE " + rm);
        assertTrue(rr < 1.5 * 1.04 / Math.sqrt(m), "register RMSE " + rr);
    }

    @Test
    void hyperLogLogEveryMethod() {
        HyperLogLog h = HyperLogLog.create(14, 9);
        assertEquals(HyperLogLog.imageBytes(14), h.imageBytes());
        assertTrue(h.add("a"));
        assertFalse(h.add("a"));
        assertTrue(h.add(1L));
        assertTrue(h.add(new byte[] {1, 2}));
        assertTrue(h.add(ByteBuffer.wrap(new byte[] {3})));
        ByteBuffer d = ByteBuffer.allocateDirect(2);
        d.put((byte) 4).flip();
        assertTrue(h.add(d));
        assertEquals(5.0, h.estimate());
        HyperLogLog.Stats s = h.stats();
        assertTrue(s.small());
        assertEquals(5, s.smallCount());
        assertEquals(1024, s.smallCapacity());
        assertEquals(14, s.precision());
        assertEquals(9, s.seed());
        assertEquals(h.imageBytes(), s.imageBytes());
        // Small mode exports compactly and reads back whole.
        byte[] compact = h.toByteArray();
        assertTrue(compact.length < h.imageBytes());
        HyperLogLog back = HyperLogLog.fromByteArray(compact);
        assertEquals(5.0, back.estimate());
        assertEquals(h.imageBytes(), back.imageBytes());
        // Batches equal single calls (image bytes), for every key form.
        String[] keys = TestKeys.strings("k-", 0, 20_000);
        HyperLogLog one = HyperLogLog.create(12, 1);
        for (String k : keys) {
            one.add(k);
        }
        HyperLogLog batch = HyperLogLog.create(12, 1);
        batch.addAll(keys);
        assertArrayEquals(one.toByteArray(), batch.toByteArray());
        HyperLogLog packed = HyperLogLog.create(12, 1);
        Native.Packed pk = Native.pack(keys);
        packed.addPacked(pk.data(), pk.offsets());
        assertArrayEquals(one.toByteArray(), packed.toByteArray());
        HyperLogLog byteKeys = HyperLogLog.create(12, 1);
        byteKeys.addAll(TestKeys.bytes(keys));
        assertArrayEquals(one.toByteArray(), byteKeys.toByteArray());
        long[] longs = TestKeys.longs(0, 20_000);
        HyperLogLog ls = HyperLogLog.create(12, 1);
        for (long k : longs) {
            ls.add(k);
        }
        HyperLogLog lb = HyperLogLog.create(12, 1);
        lb.addAll(longs);
        assertArrayEquals(ls.toByteArray(), lb.toByteArray());
        assertFalse(lb.stats().small());
        // Merge equals one sketch of both streams (registers); merged sketches answer from registers.
        HyperLogLog a = HyperLogLog.create(12, 1);
        HyperLogLog b = HyperLogLog.create(12, 1);
        a.addAll(java.util.Arrays.copyOf(longs, 10_000));
        b.addAll(java.util.Arrays.copyOfRange(longs, 10_000, 20_000));
        a.merge(b);
        assertEquals(lb.registerEstimate(), a.registerEstimate());
        assertEquals(a.registerEstimate(), a.estimate());
        assertFalse(a.stats().martingale());
        // Across precisions: the higher folds down; the reverse is refused.
        HyperLogLog low = HyperLogLog.create(10, 1);
        low.merge(lb);
        assertEquals(lb.downsize(10).registerEstimate(), low.registerEstimate());
        assertEquals(Status.INCOMPATIBLE, assertThrows(SketchException.class, () -> lb.merge(low)).status());
        assertEquals(Status.INCOMPATIBLE,
                assertThrows(SketchException.class, () -> lb.merge(HyperLogLog.create(12, 2))).status());
        assertEquals(Status.INCOMPATIBLE, assertThrows(SketchException.class, () -> lb.downsize(14)).status());
        assertEquals(16, h.downsize(16).stats().precision()); // small mode may grow
        assertEquals(5.0, h.downsize(16).estimate());
        lb.clear();
        assertEquals(0.0, lb.estimate());
        assertTrue(lb.stats().small());
        assertThrows(IllegalArgumentException.class, () -> HyperLogLog.create(3));
        assertThrows(IllegalArgumentException.class, () -> HyperLogLog.create(19));
        assertTrue(h.image().isReadOnly());
        HyperLogLog dense = HyperLogLog.fromByteArray(one.toByteArray());
        assertEquals(one.estimate(), HyperLogLog.wrapVerified(TestKeys.direct(one.toByteArray())).estimate());
        ByteBuffer view = dense.image();
        byte[] live = new byte[view.remaining()];
        view.get(live);
        assertEquals(dense.estimate(), HyperLogLog.wrap(TestKeys.direct(live)).estimate());
        assertThrows(ReadOnlyBufferException.class, () -> HyperLogLog.wrap(TestKeys.direct(live).asReadOnlyBuffer()).add(1L));
    }

    @Test
    void ultraLogLogErrorFollowsItsEnvelope() {
        int p = 11;
        int n = 50_000;
        int trials = 60;
        double[] mart = new double[trials];
        double[] fgra = new double[trials];
        double[] ml = new double[trials];
        for (int t = 0; t < trials; t++) {
            UltraLogLog u = UltraLogLog.create(p, t);
            u.addAll(TestKeys.longs((long) t * n, n));
            mart[t] = u.estimate();
            fgra[t] = u.registerEstimate();
            ml[t] = u.mlEstimate();
        }
        double m = 1 << p;
        assertTrue(rmse(mart, n) < 1.5 * 0.658 / Math.sqrt(m), "martingale RMSE " + rmse(mart, n));
        assertTrue(rmse(fgra, n) < 1.5 * 0.782 / Math.sqrt(m), "FGRA RMSE " + rmse(fgra, n));
        assertTrue(rmse(ml, n) < 1.5 * 0.761 / Math.sqrt(m), "ML RMSE " + rmse(ml, n));
    }

    @Test
    void ultraLogLogEveryMethod() {
        UltraLogLog u = UltraLogLog.create(12, 3);
        assertEquals(UltraLogLog.imageBytes(12), u.imageBytes());
        assertTrue(u.add("a"));
        assertFalse(u.add("a"));
        assertTrue(u.add(2L));
        assertTrue(u.add(new byte[] {5}));
        assertTrue(u.add(ByteBuffer.wrap(new byte[] {6})));
        UltraLogLog.Stats s = u.stats();
        assertEquals(12, s.precision());
        assertEquals(3, s.seed());
        assertTrue(s.martingale());
        assertEquals(4, s.registersSet());
        assertEquals(4.0, u.estimate(), 0.1);
        String[] keys = TestKeys.strings("u-", 0, 30_000);
        UltraLogLog one = UltraLogLog.create(12, 3);
        for (String k : keys) {
            one.add(k);
        }
        UltraLogLog batch = UltraLogLog.create(12, 3);
        batch.addAll(keys);
        assertArrayEquals(one.toByteArray(), batch.toByteArray());
        UltraLogLog bytes = UltraLogLog.create(12, 3);
        bytes.addAll(TestKeys.bytes(keys));
        assertArrayEquals(one.toByteArray(), bytes.toByteArray());
        Native.Packed pk = Native.pack(keys);
        UltraLogLog packed = UltraLogLog.create(12, 3);
        packed.addPacked(pk.data(), pk.offsets());
        assertArrayEquals(one.toByteArray(), packed.toByteArray());
        // Merge equals one sketch of both streams.
        UltraLogLog a = UltraLogLog.create(12, 3);
        UltraLogLog b = UltraLogLog.create(12, 3);
        a.addAll(java.util.Arrays.copyOf(keys, 15_000));
        b.addAll(java.util.Arrays.copyOfRange(keys, 15_000, 30_000));
        a.merge(b);
        assertEquals(one.registerEstimate(), a.registerEstimate());
        assertEquals(one.mlEstimate(), a.mlEstimate());
        assertFalse(a.stats().martingale());
        assertEquals(Status.INCOMPATIBLE,
                assertThrows(SketchException.class, () -> a.merge(UltraLogLog.create(12, 4))).status());
        UltraLogLog low = UltraLogLog.create(10, 3);
        low.merge(one);
        assertTrue(Math.abs(low.estimate() / 30_000 - 1) < 0.1);
        // The HyperLogLog of the same hashes.
        HyperLogLog h = one.toHyperLogLog();
        HyperLogLog direct = HyperLogLog.create(12, 3);
        direct.addAll(keys);
        assertEquals(direct.registerEstimate(), h.registerEstimate());
        UltraLogLog back = UltraLogLog.fromByteArray(one.toByteArray());
        assertEquals(one.estimate(), back.estimate());
        assertEquals(one.estimate(), UltraLogLog.wrapVerified(TestKeys.direct(one.toByteArray())).estimate());
        back.clear();
        assertEquals(0.0, back.estimate());
        assertThrows(IllegalArgumentException.class, () -> UltraLogLog.create(2));
        assertTrue(u.toString().startsWith("UltraLogLog"));
        assertTrue(u.image().isReadOnly());
    }

    @Test
    void exaLogLogErrorFollowsItsEnvelope() {
        int p = 10;
        int n = 50_000;
        int trials = 60;
        double m = 1 << p;
        for (int d : new int[] {ExaLogLog.D20, ExaLogLog.D24}) {
            double[] mart = new double[trials];
            double[] ml = new double[trials];
            for (int t = 0; t < trials; t++) {
                ExaLogLog e = ExaLogLog.create(p, d, t);
                e.addAll(TestKeys.longs((long) t * n, n));
                mart[t] = e.martingaleEstimate();
                ml[t] = e.mlEstimate();
                assertEquals(mart[t], e.estimate());
            }
            // The maximum-likelihood error is 0.362/sqrt(m) (d = 20) or 0.344/sqrt(m) (d = 24); the
            // martingale's about 12% less. 60 trials: allow 1.5x the theory.
            double theory = (d == ExaLogLog.D20 ? 0.362 : 0.344) / Math.sqrt(m);
            assertTrue(rmse(mart, n) < 1.5 * theory / 1.12, "d=" + d + " martingale RMSE " + rmse(mart, n));
            assertTrue(rmse(ml, n) < 1.5 * theory, "d=" + d + " ML RMSE " + rmse(ml, n));
            ExaLogLog.Stats s = ExaLogLog.create(p, d, 0).stats();
            assertTrue(Math.abs(s.standardError() - theory / 1.12) < 0.05 * theory, "standard error " + s.standardError());
        }
    }

    @Test
    void exaLogLogEveryMethod() {
        ExaLogLog u = ExaLogLog.create(12, ExaLogLog.D24, 3);
        assertEquals(ExaLogLog.imageBytes(12, ExaLogLog.D24), u.imageBytes());
        assertTrue(ExaLogLog.imageBytes(12, ExaLogLog.D24) > ExaLogLog.imageBytes(12, ExaLogLog.D20));
        assertTrue(u.add("a"));
        assertFalse(u.add("a"));
        assertTrue(u.add(2L));
        assertTrue(u.add(new byte[] {5}));
        assertTrue(u.add(ByteBuffer.wrap(new byte[] {6})));
        ByteBuffer direct = ByteBuffer.allocateDirect(4);
        direct.put((byte) 7).flip();
        assertTrue(u.add(direct));
        assertEquals(0, direct.position());
        ExaLogLog.Stats s = u.stats();
        assertEquals(2, s.t());
        assertEquals(24, s.d());
        assertEquals(12, s.precision());
        assertEquals(3, s.seed());
        assertTrue(s.martingale());
        assertEquals(5, s.registersSet());
        assertEquals(5.0, u.estimate(), 0.1);
        assertEquals(u.imageBytes(), s.imageBytes());
        String[] keys = TestKeys.strings("e-", 0, 30_000);
        ExaLogLog one = ExaLogLog.create(12, ExaLogLog.D24, 3);
        for (String k : keys) {
            one.add(k);
        }
        ExaLogLog batch = ExaLogLog.create(12, ExaLogLog.D24, 3);
        batch.addAll(keys);
        assertArrayEquals(one.toByteArray(), batch.toByteArray());
        ExaLogLog bytes = ExaLogLog.create(12, ExaLogLog.D24, 3);
        bytes.addAll(TestKeys.bytes(keys));
        assertArrayEquals(one.toByteArray(), bytes.toByteArray());
        Native.Packed pk = Native.pack(keys);
        ExaLogLog packed = ExaLogLog.create(12, ExaLogLog.D24, 3);
        packed.addPacked(pk.data(), pk.offsets());
        assertArrayEquals(one.toByteArray(), packed.toByteArray());
        assertThrows(IllegalArgumentException.class, () -> packed.addPacked(pk.data(), new int[] {0, -1}));
        long[] longs = TestKeys.longs(0, 20_000);
        ExaLogLog l1 = ExaLogLog.create(11, ExaLogLog.D20, 3);
        ExaLogLog l2 = ExaLogLog.create(11, ExaLogLog.D20, 3);
        l1.addAll(longs);
        for (long k : longs) {
            l2.add(k);
        }
        assertArrayEquals(l1.toByteArray(), l2.toByteArray());
        // Merge equals one sketch of both streams (registers); the martingale ends.
        ExaLogLog a = ExaLogLog.create(12, ExaLogLog.D24, 3);
        ExaLogLog b = ExaLogLog.create(12, ExaLogLog.D24, 3);
        a.addAll(java.util.Arrays.copyOf(keys, 15_000));
        b.addAll(java.util.Arrays.copyOfRange(keys, 15_000, 30_000));
        a.merge(b);
        assertEquals(one.mlEstimate(), a.mlEstimate());
        assertEquals(one.stats().registersSet(), a.stats().registersSet());
        assertFalse(a.stats().martingale());
        assertTrue(Double.isNaN(a.martingaleEstimate()));
        assertEquals(a.mlEstimate(), a.estimate());
        assertEquals(Status.INCOMPATIBLE,
                assertThrows(SketchException.class, () -> a.merge(ExaLogLog.create(12, ExaLogLog.D24, 4))).status());
        // Across precisions and configurations: the larger is reduced exactly, as downsize does.
        ExaLogLog low = ExaLogLog.create(10, ExaLogLog.D20, 3);
        low.merge(one);
        ExaLogLog down = one.downsize(10, ExaLogLog.D20);
        assertArrayEquals(low.toByteArray(), down.toByteArray());
        assertFalse(down.stats().martingale());
        assertEquals(10, down.stats().precision());
        assertEquals(20, down.stats().d());
        assertTrue(Math.abs(low.estimate() / 30_000 - 1) < 0.1, "merged estimate " + low.estimate());
        ExaLogLog direct10 = ExaLogLog.create(10, ExaLogLog.D20, 3);
        direct10.addAll(keys);
        assertEquals(direct10.mlEstimate(), down.mlEstimate());
        assertEquals(Status.INCOMPATIBLE,
                assertThrows(SketchException.class, () -> one.merge(ExaLogLog.create(10, ExaLogLog.D24, 3))).status());
        assertEquals(Status.INCOMPATIBLE,
                assertThrows(SketchException.class, () -> low.downsize(12, ExaLogLog.D20)).status());
        // Planning from an error.
        ExaLogLog planned = ExaLogLog.forError(0.01, ExaLogLog.D20, 0);
        int pp = planned.stats().precision();
        assertTrue(0.362 / Math.sqrt(1 << pp) <= 0.01 && 0.362 / Math.sqrt(1 << (pp - 1)) > 0.01, "precision " + pp);
        assertThrows(IllegalArgumentException.class, () -> ExaLogLog.forError(0, ExaLogLog.D20, 0));
        assertThrows(IllegalArgumentException.class, () -> ExaLogLog.forError(1e-6, ExaLogLog.D20, 0));
        assertThrows(IllegalArgumentException.class, () -> ExaLogLog.forError(0.01, 22, 0));
        // Images: round trips, wraps, read-only buffers.
        ExaLogLog back = ExaLogLog.fromByteArray(one.toByteArray());
        assertEquals(one.estimate(), back.estimate());
        assertTrue(back.stats().martingale());
        assertEquals(one.estimate(), ExaLogLog.wrapVerified(TestKeys.direct(one.toByteArray())).estimate());
        ExaLogLog ro = ExaLogLog.wrap(TestKeys.direct(one.toByteArray()).asReadOnlyBuffer());
        assertEquals(one.estimate(), ro.estimate());
        assertThrows(ReadOnlyBufferException.class, () -> ro.add(1L));
        assertThrows(ReadOnlyBufferException.class, () -> ro.merge(one));
        assertThrows(ReadOnlyBufferException.class, ro::clear);
        back.clear();
        assertEquals(0.0, back.estimate());
        assertEquals(0, back.stats().registersSet());
        assertTrue(back.stats().martingale());
        assertThrows(IllegalArgumentException.class, () -> ExaLogLog.create(1));
        assertThrows(IllegalArgumentException.class, () -> ExaLogLog.create(25));
        assertThrows(IllegalArgumentException.class, () -> ExaLogLog.create(10, 21, 0));
        assertEquals(ExaLogLog.imageBytes(4, ExaLogLog.D20), ExaLogLog.create(4).imageBytes());
        assertTrue(u.toString().startsWith("ExaLogLog"));
        assertTrue(u.image().isReadOnly());
    }

    /**
     * HyperLogLog.merge of a lower precision: a small-mode sketch (its hashes) merges, a dense one
     * is refused with nothing changed, as the Javadoc now says (it said every lower precision is
     * refused).
     */
    @Test
    void hllMergeOfALowerPrecisionDependsOnSmallMode() {
        HyperLogLog into = HyperLogLog.create(12);
        HyperLogLog small = HyperLogLog.create(10);
        small.addAll(new long[] {1, 2, 3});
        into.merge(small);
        assertEquals(3.0, into.estimate());
        HyperLogLog dense = HyperLogLog.create(10);
        dense.addAll(TestKeys.longs(0, 100_000));
        assertFalse(dense.stats().small());
        byte[] before = into.toByteArray();
        assertEquals(Status.INCOMPATIBLE, assertThrows(SketchException.class, () -> into.merge(dense)).status());
        assertArrayEquals(before, into.toByteArray());
        // Downsized to the lower precision first, it merges.
        HyperLogLog low = into.downsize(10);
        low.merge(dense);
        assertTrue(low.estimate() > 90_000);
    }
}
