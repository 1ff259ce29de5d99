package dev.sketches.bench;

import java.nio.charset.StandardCharsets;

/** The stand workload: 1,000,000 "present-<i>" keys added, 1,000,000 "absent-<i>" keys queried. */
final class Keys {
    static final int N = 1_000_000;

    private Keys() {}

    static String[] strings(String prefix, int n) {
        String[] out = new String[n];
        for (int i = 0; i < n; i++) {
            out[i] = prefix + i;
        }
        return out;
    }

    /** Keys packed in the Arrow Binary layout: data, then count + 1 offsets. */
    static Object[] packed(String[] keys) {
        int total = 0;
        for (String k : keys) {
            total += k.length();
        }
        byte[] data = new byte[total];
        int[] offsets = new int[keys.length + 1];
        int pos = 0;
        for (int i = 0; i < keys.length; i++) {
            byte[] b = keys[i].getBytes(StandardCharsets.UTF_8);
            System.arraycopy(b, 0, data, pos, b.length);
            pos += b.length;
            offsets[i + 1] = pos;
        }
        return new Object[] {data, offsets};
    }
}
