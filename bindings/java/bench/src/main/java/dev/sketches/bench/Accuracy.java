package dev.sketches.bench;

import com.clearspring.analytics.stream.cardinality.HyperLogLogPlus;
import java.io.IOException;
import org.apache.datasketches.hll.HllSketch;
import org.apache.datasketches.hll.TgtHllType;

/**
 * Cardinality error at equal memory, beside the JMH run: TRIALS streams of 1,000,000 distinct
 * "t<trial>-present-<i>" keys into each sketch; prints the relative RMSE and the bytes each one
 * takes serialized (ours: the image, which is also the live memory).
 * Run: java -cp benchmarks.jar dev.sketches.bench.Accuracy [trials]
 */
public final class Accuracy {
    private Accuracy() {}

    public static void main(String[] args) throws IOException {
        int trials = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int n = Keys.N;
        String[] names = {"sketches HLL p=14 (martingale)", "sketches HLL p=14 (registers)", "sketches ULL p=13",
            "sketches ULL p=14", "DataSketches HLL_6 lgK=14", "DataSketches HLL_8 lgK=14", "DataSketches HLL_8 lgK=13",
            "stream-lib HLL++ p=14"};
        double[] sq = new double[names.length];
        long[] bytes = new long[names.length];
        for (int t = 0; t < trials; t++) {
            String[] keys = Keys.strings("t" + t + "-present-", n);
            dev.sketches.HyperLogLog h = dev.sketches.HyperLogLog.create(14);
            h.addAll(keys);
            dev.sketches.UltraLogLog u13 = dev.sketches.UltraLogLog.create(13);
            u13.addAll(keys);
            dev.sketches.UltraLogLog u14 = dev.sketches.UltraLogLog.create(14);
            u14.addAll(keys);
            HllSketch d6 = new HllSketch(14, TgtHllType.HLL_6);
            HllSketch d8 = new HllSketch(14, TgtHllType.HLL_8);
            HllSketch d813 = new HllSketch(13, TgtHllType.HLL_8);
            HyperLogLogPlus s = new HyperLogLogPlus(14);
            for (String k : keys) {
                d6.update(k);
                d8.update(k);
                d813.update(k);
                s.offer(k);
            }
            double[] est = {h.estimate(), h.registerEstimate(), u13.estimate(), u14.estimate(), d6.getEstimate(),
                d8.getEstimate(), d813.getEstimate(), s.cardinality()};
            for (int i = 0; i < est.length; i++) {
                double rel = est[i] / n - 1;
                sq[i] += rel * rel;
            }
            if (t == 0) {
                bytes[0] = h.toByteArray().length;
                bytes[1] = bytes[0];
                bytes[2] = u13.toByteArray().length;
                bytes[3] = u14.toByteArray().length;
                bytes[4] = d6.getCompactSerializationBytes();
                bytes[5] = d8.getCompactSerializationBytes();
                bytes[6] = d813.getCompactSerializationBytes();
                bytes[7] = s.getBytes().length;
            }
        }
        System.out.printf("%d trials of %,d distinct keys%n", trials, n);
        System.out.printf("%-34s %12s %10s%n", "sketch", "RMSE", "bytes");
        for (int i = 0; i < names.length; i++) {
            System.out.printf("%-34s %11.3f%% %10d%n", names[i], 100 * Math.sqrt(sq[i] / trials), bytes[i]);
        }
    }
}
