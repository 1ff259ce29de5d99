package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Parquet interop of {@link SplitBlockBloomFilter} against bloom filters written by real Parquet
 * writers (tests/parquet: DuckDB 2.0.1 and pyarrow 26.0.1 files, described by writers.manifest;
 * the Java mirror of tests/tests/parquet.rs): every writer's bitset rebuilt byte for byte with the
 * typed hashes, the writer's sizing rule and its fold; every bitset loaded and answering every
 * written value and every absent probe as DuckDB's reader did; bad bitsets, bad folds and bad
 * rates refused with nothing changed.
 */
class ParquetTest {
    /** The repository's tests/parquet folder (set by the pom; found from the working directory otherwise). */
    static Path parquetDir() {
        String p = System.getProperty("sketches.parquet");
        return p != null ? Paths.get(p) : Paths.get("../../tests/parquet");
    }

    /** One "filter" line: where a column chunk's bloom filter is in a file, and what was written. */
    record Filter(String file, String writer, double fpp, String table, String column, String kind, int offset,
            int length, Long ndvOption, int distinct) {
        String key() {
            return file + "/" + column;
        }
    }

    /** writers.manifest, parsed (its format is in its header comments). */
    static final class Manifest {
        final List<Filter> filters = new ArrayList<>();
        /** "TABLE COLUMN" (TABLE "*" for both tables, or the fpp text) -> the distinct PLAIN values. */
        final Map<String, List<byte[]>> values = new HashMap<>();
        /** "FILE/COLUMN" -> {maybe count, probed}. */
        final Map<String, int[]> present = new HashMap<>();
        /** "FILE/COLUMN" -> probed. */
        final Map<String, Integer> absentProbed = new HashMap<>();
        /** "FILE/COLUMN" -> the absent probes the reader answered maybe for (hex). */
        final Map<String, Set<String>> absentMaybe = new HashMap<>();
        /** "FILE/COLUMN" -> [(hex value, maybe)]. */
        final Map<String, List<Map.Entry<String, Boolean>>> special = new HashMap<>();

        List<byte[]> valuesOf(Filter f) {
            List<byte[]> v = values.get("* " + f.column());
            if (v == null) {
                v = values.get(f.table() + " " + f.column());
            }
            assertTrue(v != null, "no values for " + f.key());
            return v;
        }
    }

    static Manifest manifest() {
        List<String> lines;
        try {
            lines = Files.readAllLines(parquetDir().resolve("writers.manifest"), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Manifest m = new Manifest();
        Map<String, String[]> files = new HashMap<>(); // name -> {writer, fpp text}
        for (String line : lines) {
            if (line.startsWith("#") || line.isEmpty()) {
                continue;
            }
            String[] f = line.split(" ", -1);
            String key = f.length > 2 ? f[1] + "/" + f[2] : null;
            switch (f[0]) {
                case "file" -> files.put(f[1], new String[] {f[2], f[3]});
                case "filter" -> {
                    String[] file = files.get(f[1]);
                    m.filters.add(new Filter(f[1], file[0], Double.parseDouble(file[1]), file[1], f[2], f[3],
                            Integer.parseInt(f[4]), Integer.parseInt(f[5]),
                            f[6].equals("-") ? null : Long.valueOf(f[6]), Integer.parseInt(f[7])));
                }
                case "values" -> m.values.put(f[1] + " " + f[2], hexList(f.length > 3 ? f[3] : ""));
                case "present" -> m.present.put(key, new int[] {Integer.parseInt(f[3]), Integer.parseInt(f[4])});
                case "absent" -> {
                    m.absentProbed.put(key, Integer.parseInt(f[3]));
                    Set<String> maybe = new HashSet<>();
                    for (byte[] v : hexList(f.length > 4 ? f[4] : "")) {
                        maybe.add(hex(v));
                    }
                    m.absentMaybe.put(key, maybe);
                }
                case "special" -> m.special.computeIfAbsent(key, k -> new ArrayList<>())
                        .add(Map.entry(f[3], f[4].equals("1")));
                default -> throw new AssertionError("unknown manifest line " + line);
            }
        }
        assertFalse(m.filters.isEmpty(), "no filter lines");
        return m;
    }

    static byte[] unhex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }

    static String hex(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            sb.append(String.format("%02x", x & 0xff));
        }
        return sb.toString();
    }

    static List<byte[]> hexList(String s) {
        List<byte[]> out = new ArrayList<>();
        for (String x : s.split(",")) {
            if (!x.isEmpty()) {
                out.add(unhex(x));
            }
        }
        return out;
    }

    static byte[] file(String name) {
        try {
            return Files.readAllBytes(parquetDir().resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The bitset of the filter stored at {@code offset .. offset + length}: the last {@code
     * numBytes} bytes of the region, numBytes the first field of its Thrift-compact
     * BloomFilterHeader (field 1, i32, zigzag varint).
     */
    static byte[] bitset(byte[] file, Filter f) {
        byte[] region = Arrays.copyOfRange(file, f.offset(), f.offset() + f.length());
        assertEquals(0x15, region[0] & 0xff, "field 1 of type i32 expected");
        long value = 0;
        int shift = 0;
        int at = 1;
        while (true) {
            int b = region[at++] & 0xff;
            value |= (long) (b & 0x7f) << shift;
            if ((b & 0x80) == 0) {
                break;
            }
            shift += 7;
        }
        int numBytes = (int) ((value >>> 1) ^ -(value & 1));
        return Arrays.copyOfRange(region, region.length - numBytes, region.length);
    }

    /**
     * The hash of a PLAIN-encoded value of Parquet type {@code kind}, through the typed hashes
     * (decoding first), as a user holding typed values calls them.
     */
    static long typedHash(String kind, byte[] plain) {
        ByteBuffer b = ByteBuffer.wrap(plain).order(ByteOrder.LITTLE_ENDIAN);
        return switch (kind) {
            case "int32" -> {
                assertEquals(4, plain.length);
                yield SplitBlockBloomFilter.parquetHash(b.getInt());
            }
            case "int64" -> {
                assertEquals(8, plain.length);
                yield SplitBlockBloomFilter.parquetHash(b.getLong());
            }
            case "float" -> {
                assertEquals(4, plain.length);
                yield SplitBlockBloomFilter.parquetHash(Float.intBitsToFloat(b.getInt()));
            }
            case "double" -> {
                assertEquals(8, plain.length);
                yield SplitBlockBloomFilter.parquetHash(Double.longBitsToDouble(b.getLong()));
            }
            case "string" -> SplitBlockBloomFilter.parquetHash(new String(plain, StandardCharsets.UTF_8));
            case "binary" -> SplitBlockBloomFilter.parquetHash(plain);
            default -> throw new AssertionError("type " + kind);
        };
    }

    static long[] typedHashes(String kind, List<byte[]> values) {
        long[] out = new long[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = typedHash(kind, values.get(i));
        }
        return out;
    }

    /** The probes generate.py sent for absent values (its absent_probes; parquet.rs's). */
    static List<byte[]> absentProbes(String kind, int count) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            switch (kind) {
                case "int32" -> out.add(Arrays.copyOf(b.putInt(2_000_000 + 13 * i).array(), 4));
                case "int64" -> out.add(b.putLong(9_000_000_000_000L + 13L * i).array());
                case "float" -> out.add(Arrays.copyOf(b.putFloat(1.0e6f + 0.5f * (float) i).array(), 4));
                case "double" -> out.add(b.putDouble(1.0e9 + 0.25 * (double) i).array());
                case "string" -> out.add(("absent-" + i).getBytes(StandardCharsets.UTF_8));
                default -> {
                    b.put((byte) 0xfe).put((byte) 0xed).putInt(i);
                    out.add(Arrays.copyOf(b.array(), 6));
                }
            }
        }
        return out;
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    /** Our rebuild of a writer's filter: plan with its sizing rule, add the values, fold as it folds. */
    static SplitBlockBloomFilter rebuild(Filter f, List<byte[]> values) {
        boolean duckdb = f.writer().equals("duckdb");
        SplitBlockBloomFilter sb = duckdb
                // DuckDB sizes from the chunk's dictionary (the exact distinct count) and does not fold.
                ? SplitBlockBloomFilter.forParquet(f.distinct(), f.fpp(), ParquetSizing.DUCKDB)
                // pyarrow sizes from its ndv option with Arrow C++'s rule, then folds.
                : SplitBlockBloomFilter.forParquet(f.ndvOption(), f.fpp(), ParquetSizing.ARROW_CPP);
        for (byte[] v : values) {
            sb.addHash(typedHash(f.kind(), v));
        }
        int folds = sb.foldToTargetFpp(f.fpp());
        if (duckdb) {
            assertEquals(0, folds, f.key() + ": sized from the exact count, the rule does not fold");
        }
        return sb;
    }

    /**
     * (a) Every writer's bitset (but the s_ columns: {@link #floatSpecialValues}) rebuilt byte
     * for byte, for every writer, type and rate; the folded filter's image, export and views all
     * have the folded length, and the batch path gives the same bytes.
     */
    @Test
    void duckdbAndPyarrowBitsetsAreRebuiltByteForByte() {
        Manifest m = manifest();
        Set<String> seen = new HashSet<>();
        int folded = 0;
        for (Filter f : m.filters) {
            byte[] theirs = bitset(file(f.file()), f);
            List<byte[]> values = m.valuesOf(f);
            assertEquals(f.distinct(), values.size(), f.key());
            if (f.column().startsWith("s_")) {
                continue;
            }
            SplitBlockBloomFilter ours = rebuild(f, values);
            assertEquals(theirs.length, ours.bitset().remaining(), f.key() + ": size");
            assertArrayEquals(theirs, bytes(ours.bitset()), f.key() + ": bitset differs");

            long planned = f.writer().equals("duckdb")
                    ? SplitBlockBloomFilter.imageBytesForParquet(f.distinct(), f.fpp(), ParquetSizing.DUCKDB)
                    : SplitBlockBloomFilter.imageBytesForParquet(f.ndvOption(), f.fpp(), ParquetSizing.ARROW_CPP);
            if (ours.imageBytes() < planned) {
                folded++;
            }
            // Everything follows the folded length.
            assertEquals(ours.imageBytes(), ours.image().remaining(), f.key());
            byte[] exported = ours.toByteArray();
            assertEquals(ours.imageBytes(), exported.length, f.key());
            assertEquals(theirs.length / 32, ours.stats().blocks(), f.key());
            SplitBlockBloomFilter back = SplitBlockBloomFilter.fromByteArray(exported);
            assertArrayEquals(theirs, bytes(back.bitset()), f.key());
            for (byte[] v : values) {
                assertTrue(ours.containsHash(typedHash(f.kind(), v)), f.key());
            }

            // The batch path: the same bytes, and every hash reported new at least once.
            SplitBlockBloomFilter batch = f.writer().equals("duckdb")
                    ? SplitBlockBloomFilter.forParquet(f.distinct(), f.fpp(), ParquetSizing.DUCKDB)
                    : SplitBlockBloomFilter.forParquet(f.ndvOption(), f.fpp(), ParquetSizing.ARROW_CPP);
            long[] hashes = typedHashes(f.kind(), values);
            boolean[] wasNew = new boolean[hashes.length];
            batch.addAllHashes(hashes, wasNew);
            batch.foldToTargetFpp(f.fpp());
            assertArrayEquals(theirs, bytes(batch.bitset()), f.key() + ": batch");
            boolean[] all = batch.containsAllHashes(hashes);
            for (int i = 0; i < all.length; i++) {
                assertTrue(all[i], f.key());
            }
            seen.add(f.writer() + " " + f.kind() + " " + f.table());
        }
        for (String writer : new String[] {"duckdb", "pyarrow"}) {
            for (String kind : new String[] {"int32", "int64", "float", "double", "string", "binary"}) {
                for (String table : new String[] {"0.01", "0.05"}) {
                    assertTrue(seen.contains(writer + " " + kind + " " + table), writer + " " + kind + " " + table + " not covered");
                }
            }
        }
        assertTrue(folded >= 2, "the pyarrow c_i64 filters are folded: " + folded);
    }

    /**
     * The sizing rules differ on these files and the options follow them: b_i64 (pyarrow told ndv
     * 53 at 1%) is Arrow C++'s size, twice the parquet crate's; c_i64 (told ndv 8192) is planned
     * at least 32 times larger and folded (at least 5 times) down to the bytes DuckDB wrote from
     * the exact count.
     */
    @Test
    void writersSizeDifferentlyAndOurOptionsFollow() {
        Manifest m = manifest();
        for (String[] t : new String[][] {{"01", "0.01"}, {"05", "0.05"}}) {
            double fpp = Double.parseDouble(t[1]);
            Filter b = find(m, "pyarrow_fpp" + t[0] + ".parquet", "b_i64");
            long ndv = b.ndvOption();
            int bytes = bitset(file(b.file()), b).length;
            assertEquals(bytes, SplitBlockBloomFilter.forParquet(ndv, fpp, ParquetSizing.ARROW_CPP).bitset().remaining());
            assertEquals(bytes, 2 * SplitBlockBloomFilter.forParquet(ndv, fpp, ParquetSizing.PARQUET_RS).bitset().remaining());

            Filter c = find(m, "pyarrow_fpp" + t[0] + ".parquet", "c_i64");
            Filter d = find(m, "duckdb_fpp" + t[0] + ".parquet", "c_i64");
            SplitBlockBloomFilter planned = SplitBlockBloomFilter.forParquet(c.ndvOption(), fpp, ParquetSizing.ARROW_CPP);
            byte[] cBits = bitset(file(c.file()), c);
            byte[] dBits = bitset(file(d.file()), d);
            assertTrue(planned.bitset().remaining() >= 32 * cBits.length, "folded at least 5 times");
            assertArrayEquals(dBits, cBits, "folding equals sizing for the exact count");
            for (byte[] v : m.valuesOf(c)) {
                planned.addHash(typedHash(c.kind(), v));
            }
            assertTrue(planned.foldToTargetFpp(fpp) >= 5);
            assertArrayEquals(cBits, bytes(planned.bitset()));
        }
        // The static sizes are those of the filters; PARQUET_RS is forParquet's default rule.
        for (ParquetSizing s : ParquetSizing.values()) {
            for (long ndv : new long[] {1, 53, 129, 1693, 8192, 1_000_000}) {
                assertEquals(SplitBlockBloomFilter.forParquet(ndv, 0.01, s).imageBytes(),
                        SplitBlockBloomFilter.imageBytesForParquet(ndv, 0.01, s), s + " " + ndv);
            }
        }
        assertEquals(SplitBlockBloomFilter.imageBytesForParquet(1693, 0.01),
                SplitBlockBloomFilter.imageBytesForParquet(1693, 0.01, ParquetSizing.PARQUET_RS));
        // The header's example: 1693 values at 1% plan 4096 bytes with Arrow C++'s rule, 2048 with the others.
        assertEquals(4096, SplitBlockBloomFilter.forParquet(1693, 0.01, ParquetSizing.ARROW_CPP).bitset().remaining());
        assertEquals(2048, SplitBlockBloomFilter.forParquet(1693, 0.01, ParquetSizing.DUCKDB).bitset().remaining());
        assertEquals(2048, SplitBlockBloomFilter.forParquet(1693, 0.01, ParquetSizing.PARQUET_RS).bitset().remaining());
        assertEquals(0, ParquetSizing.PARQUET_RS.id());
        assertEquals(1, ParquetSizing.DUCKDB.id());
        assertEquals(2, ParquetSizing.ARROW_CPP.id());
        assertEquals(SplitBlockBloomFilter.MODE_PARQUET,
                SplitBlockBloomFilter.forParquet(10, 0.01, ParquetSizing.DUCKDB).stats().mode());
    }

    static Filter find(Manifest m, String file, String column) {
        return m.filters.stream().filter(f -> f.file().equals(file) && f.column().equals(column)).findFirst()
                .orElseThrow();
    }

    /**
     * (b) Each writer's bitset loaded (byte[], direct and heap ByteBuffer) gives back its bytes,
     * answers every written value present and every absent probe exactly as DuckDB's reader did
     * (its false positives reproduced one by one), and is within its plan when holding what it
     * was sized for.
     */
    @Test
    void loadedBitsetsAnswerAsTheReaders() {
        Manifest m = manifest();
        int falsePositives = 0;
        for (Filter f : m.filters) {
            byte[] theirs = bitset(file(f.file()), f);
            SplitBlockBloomFilter view = SplitBlockBloomFilter.fromParquetBitset(theirs, f.fpp());
            assertArrayEquals(theirs, bytes(view.bitset()), f.key());
            assertEquals(SplitBlockBloomFilter.MODE_PARQUET, view.stats().mode());
            assertEquals(theirs.length / 32, view.stats().blocks());
            // The ByteBuffer forms: a direct buffer at a position, a heap slice, a read-only buffer.
            ByteBuffer direct = ByteBuffer.allocateDirect(theirs.length + 3);
            direct.position(3);
            direct.put(theirs).position(3);
            byte[] padded = new byte[theirs.length + 5];
            System.arraycopy(theirs, 0, padded, 5, theirs.length);
            for (ByteBuffer src : new ByteBuffer[] {direct, ByteBuffer.wrap(padded, 5, theirs.length).slice(),
                    ByteBuffer.wrap(theirs).asReadOnlyBuffer()}) {
                int pos = src.position();
                SplitBlockBloomFilter other = SplitBlockBloomFilter.fromParquetBitset(src, f.fpp());
                assertEquals(pos, src.position(), "the position does not move");
                assertArrayEquals(view.toByteArray(), other.toByteArray(), f.key());
            }

            List<byte[]> values = m.valuesOf(f);
            if (!f.column().startsWith("s_")) {
                for (byte[] v : values) {
                    assertTrue(view.containsHash(typedHash(f.kind(), v)), f.key() + " " + hex(v));
                }
            }
            assertArrayEquals(new int[] {values.size(), values.size()}, m.present.get(f.key()),
                    f.key() + ": the reader finds every value");
            Set<String> maybe = m.absentMaybe.get(f.key());
            List<byte[]> probes = absentProbes(f.kind(), m.absentProbed.get(f.key()));
            boolean[] batch = view.containsAllHashes(typedHashes(f.kind(), probes));
            for (int i = 0; i < probes.size(); i++) {
                byte[] v = probes.get(i);
                boolean expected = maybe.contains(hex(v));
                assertEquals(expected, view.containsHash(typedHash(f.kind(), v)), f.key() + " " + hex(v));
                assertEquals(expected, batch[i], f.key() + " " + hex(v));
            }
            falsePositives += maybe.size();
            // A filter holding what it was sized for is within a plan derived from its size and
            // the writer's rate (the b_i64 columns, holding twice pyarrow's ndv, may not be).
            if (f.column().startsWith("a_")) {
                assertEquals(0, view.capacityFlags(), f.key() + ": " + view.stats());
            }
        }
        assertTrue(falsePositives > 50, "the reader's false positives are reproduced: " + falsePositives);
    }

    /**
     * The s_ columns (-0.0, NaNs of three bit patterns, 1.5, both infinities, no +0.0): writers
     * hash the raw bits; pyarrow stores every pattern, DuckDB one NaN (the first). The typed
     * float and double hashes, which do not normalize, rebuild both byte for byte (so a NaN's
     * payload crosses into native code unchanged); a loaded filter answers +0.0 absent.
     */
    @Test
    void floatSpecialValues() {
        Manifest m = manifest();
        int checked = 0;
        for (Filter f : m.filters) {
            if (!f.column().startsWith("s_")) {
                continue;
            }
            byte[] theirs = bitset(file(f.file()), f);
            List<byte[]> values = m.values.get("* " + f.column());
            boolean dbl = f.kind().equals("double");
            List<byte[]> stored = new ArrayList<>();
            boolean nanSeen = false;
            for (byte[] v : values) {
                ByteBuffer b = ByteBuffer.wrap(v).order(ByteOrder.LITTLE_ENDIAN);
                boolean nan = dbl ? Double.isNaN(b.getDouble()) : Float.isNaN(b.getFloat());
                if (f.writer().equals("pyarrow") || !nan || !nanSeen) {
                    stored.add(v);
                }
                nanSeen |= nan;
            }
            assertEquals(f.distinct() - (f.writer().equals("duckdb") ? 2 : 0), stored.size(), f.key());
            SplitBlockBloomFilter sb = SplitBlockBloomFilter.forParquet(stored.size(), f.fpp(), ParquetSizing.DUCKDB);
            assertEquals(1, sb.stats().blocks(), "one block: no folding question");
            for (byte[] v : stored) {
                sb.addHash(typedHash(f.kind(), v));
            }
            assertArrayEquals(theirs, bytes(sb.bitset()), f.key() + ": raw-bits rebuild differs");

            SplitBlockBloomFilter view = SplitBlockBloomFilter.fromParquetBitset(theirs, f.fpp());
            byte[] zero = new byte[dbl ? 8 : 4];
            assertFalse(view.containsHash(typedHash(f.kind(), zero)), "+0.0 was never written");
            List<Map.Entry<String, Boolean>> duckdbSays = m.special.get(f.key());
            assertTrue(duckdbSays.stream().allMatch(Map.Entry::getValue), "DuckDB's reader: maybe for every special probe");
            assertTrue(duckdbSays.stream().anyMatch(e -> e.getKey().equals(hex(zero))));
            checked++;
        }
        assertEquals(8, checked);
    }

    /**
     * The typed hashes are XXH64 seed 0 of the PLAIN bytes: each overload equals the bytes form
     * of the same encoding, raw float bits (no normalization), and the known XXH64 of nothing.
     */
    @Test
    void typedHashesAreThePlainEncodingsHash() {
        assertEquals(0xEF46DB3751D8E999L, SplitBlockBloomFilter.parquetHash(new byte[0]), "XXH64 of nothing, seed 0");
        // Strings hash as their getBytes(UTF_8): an unpaired surrogate is '?', a pair 4 bytes.
        for (String v : new String[] {"a\uD800b", "\uDC00", "x\uD83D\uDE00y", "\u00e9"}) {
            assertEquals(SplitBlockBloomFilter.parquetHash(v.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                    SplitBlockBloomFilter.parquetHash(v), v);
        }
        assertEquals(SplitBlockBloomFilter.parquetHash("a?b"), SplitBlockBloomFilter.parquetHash("a\uD800b"));
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        for (int i : new int[] {0, 1, -1, 42, Integer.MIN_VALUE, Integer.MAX_VALUE}) {
            assertEquals(SplitBlockBloomFilter.parquetHash(Arrays.copyOf(b.clear().putInt(i).array(), 4)),
                    SplitBlockBloomFilter.parquetHash(i));
        }
        for (long l : new long[] {0, 1, -1, 42, Long.MIN_VALUE, Long.MAX_VALUE}) {
            assertEquals(SplitBlockBloomFilter.parquetHash(b.clear().putLong(l).array().clone()),
                    SplitBlockBloomFilter.parquetHash(l));
        }
        assertNotEquals(SplitBlockBloomFilter.parquetHash(42), SplitBlockBloomFilter.parquetHash(42L), "INT32 is 4 bytes");
        for (float x : new float[] {0f, -0f, 1.5f, Float.NaN, Float.POSITIVE_INFINITY, Float.intBitsToFloat(0xffc00000)}) {
            assertEquals(SplitBlockBloomFilter.parquetHash(Float.floatToRawIntBits(x)), SplitBlockBloomFilter.parquetHash(x));
        }
        for (double x : new double[] {0d, -0d, 1.5, Double.NaN, Double.NEGATIVE_INFINITY,
                Double.longBitsToDouble(0x7ff0000000000001L)}) {
            assertEquals(SplitBlockBloomFilter.parquetHash(Double.doubleToRawLongBits(x)), SplitBlockBloomFilter.parquetHash(x));
        }
        assertNotEquals(SplitBlockBloomFilter.parquetHash(0f), SplitBlockBloomFilter.parquetHash(-0f));
        assertNotEquals(SplitBlockBloomFilter.parquetHash(0d), SplitBlockBloomFilter.parquetHash(-0d));
        String s = "user-\u00e9\u4e2d\ud83d\ude00";
        byte[] u = s.getBytes(StandardCharsets.UTF_8);
        long h = SplitBlockBloomFilter.parquetHash(u);
        assertEquals(h, SplitBlockBloomFilter.parquetHash(s));
        assertEquals(h, SplitBlockBloomFilter.parquetHash(TestKeys.direct(u)));
        assertEquals(h, SplitBlockBloomFilter.parquetHash(ByteBuffer.wrap(u).asReadOnlyBuffer()));
        byte[] padded = new byte[u.length + 7];
        System.arraycopy(u, 0, padded, 3, u.length);
        ByteBuffer heap = ByteBuffer.wrap(padded, 3, u.length);
        assertEquals(h, SplitBlockBloomFilter.parquetHash(heap));
        assertEquals(3, heap.position(), "the position does not move");
        byte[] big = new byte[5000]; // longer than the native stack copy
        Arrays.fill(big, (byte) 7);
        assertEquals(SplitBlockBloomFilter.parquetHash(big), SplitBlockBloomFilter.parquetHash(TestKeys.direct(big)));
        assertThrows(NullPointerException.class, () -> SplitBlockBloomFilter.parquetHash((byte[]) null));
        assertThrows(NullPointerException.class, () -> SplitBlockBloomFilter.parquetHash((String) null));
    }

    /**
     * Folding ORs runs of 2^k adjacent blocks in place: every key stays, the image, its export,
     * its views and its token follow the new length; a filter over a wrapped buffer folds into
     * the buffer's prefix.
     */
    @Test
    void foldOrsAdjacentBlocksInPlace() {
        SplitBlockBloomFilter f = SplitBlockBloomFilter.withBlocks(16, true, 0);
        long[] hashes = new long[200];
        for (int i = 0; i < hashes.length; i++) {
            hashes[i] = SplitBlockBloomFilter.parquetHash((long) i * 7919);
            assertTrue(f.addHash(hashes[i]) || f.containsHash(hashes[i]));
        }
        byte[] before = bytes(f.bitset());
        long lenBefore = f.imageBytes();
        f.fold(2);
        byte[] after = bytes(f.bitset());
        assertEquals(before.length / 4, after.length);
        byte[] expected = new byte[before.length / 4];
        for (int i = 0; i < before.length; i++) {
            int block = i / 32;
            expected[(block / 4) * 32 + i % 32] |= before[i];
        }
        assertArrayEquals(expected, after, "runs of 4 adjacent blocks OR-ed");
        assertEquals(4, f.stats().blocks());
        assertEquals(lenBefore - (before.length - after.length), f.imageBytes());
        assertEquals(f.imageBytes(), f.image().remaining());
        assertEquals(f.imageBytes(), f.toByteArray().length);
        for (long h : hashes) {
            assertTrue(f.containsHash(h));
        }
        assertTrue(f.addHash(SplitBlockBloomFilter.parquetHash("after the fold")));
        assertTrue(f.containsHash(SplitBlockBloomFilter.parquetHash("after the fold")));
        // The token is the one the folded image gives (as an independent wrap of its bytes).
        byte[] image = bytes(f.image());
        SplitBlockBloomFilter rewrapped = SplitBlockBloomFilter.wrap(TestKeys.direct(image));
        assertArrayEquals(bytes(rewrapped.img().tokenBytes()), bytes(f.img().tokenBytes()));
        assertFalse(Arrays.equals(new byte[Native.TOKEN_BYTES], bytes(f.img().tokenBytes())), "token filled");
        // 0 folds change nothing; a fold to one block works.
        f.fold(0);
        assertArrayEquals(image, bytes(f.image()));
        f.fold(2);
        assertEquals(1, f.stats().blocks());
        assertEquals(32, f.bitset().remaining());

        // A wrapped buffer: folded in place, the filter then uses the buffer's prefix.
        SplitBlockBloomFilter src = SplitBlockBloomFilter.withBlocks(8, true, 0);
        src.addAllHashes(hashes);
        ByteBuffer buffer = TestKeys.direct(src.toByteArray());
        int capacity = buffer.capacity();
        SplitBlockBloomFilter w = SplitBlockBloomFilter.wrap(buffer);
        src.fold(1);
        w.fold(1);
        assertEquals(src.imageBytes(), w.imageBytes());
        assertEquals(capacity, buffer.capacity(), "the caller's buffer keeps its length");
        assertArrayEquals(bytes(src.bitset()), bytes(w.bitset()));
        byte[] prefix = new byte[(int) w.imageBytes()];
        buffer.duplicate().get(prefix);
        assertArrayEquals(bytes(w.image()), prefix, "the image is the buffer's prefix");
        SplitBlockBloomFilter again = SplitBlockBloomFilter.wrap(buffer.slice(0, (int) w.imageBytes()));
        assertArrayEquals(bytes(src.bitset()), bytes(again.bitset()));
        assertEquals(2 * w.bitset().remaining(), 8 * 32, "8 blocks folded once");

        // foldToTargetFpp on an oversized filter holding few values folds, and keeps them.
        SplitBlockBloomFilter big = SplitBlockBloomFilter.forParquet(100_000, 0.01, ParquetSizing.PARQUET_RS);
        big.addAllHashes(hashes);
        long bigLen = big.imageBytes();
        int folds = big.foldToTargetFpp(0.01);
        assertTrue(folds > 0, "an oversized filter folds");
        assertTrue(big.imageBytes() < bigLen);
        assertEquals(big.imageBytes(), big.toByteArray().length);
        for (boolean c : big.containsAllHashes(hashes)) {
            assertTrue(c);
        }
        assertEquals(0, big.foldToTargetFpp(0.01), "already as far as the rule goes");
    }

    /** Asserts that {@code call} throws an IllegalArgumentException whose cause has {@code status}. */
    static void assertRefused(int status, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getCause() instanceof SketchException, "cause: " + e.getCause());
        assertEquals(status, ((SketchException) e.getCause()).status());
    }

    /** Asserts that {@code call} fails with {@code type} and leaves the filter's image as it was. */
    static void assertUnchanged(SplitBlockBloomFilter f, Supplier<Executable> call, Class<? extends Throwable> type) {
        byte[] image = f.toByteArray();
        byte[] bits = bytes(f.bitset());
        long len = f.imageBytes();
        assertThrows(type, call.get());
        assertEquals(len, f.imageBytes());
        assertArrayEquals(image, f.toByteArray());
        assertArrayEquals(bits, bytes(f.bitset()));
    }

    /** (c) Bad bitsets, bad folds and bad rates are refused; nothing changes. */
    @Test
    void badInputIsRefused() {
        // Bitsets: empty, not a multiple of 32 (before anything is allocated).
        for (int n : new int[] {0, 1, 31, 33, 48, 100}) {
            assertRefused(Status.INVALID_ARGUMENT, () -> SplitBlockBloomFilter.fromParquetBitset(new byte[n], 0.01));
            assertRefused(Status.INVALID_ARGUMENT,
                    () -> SplitBlockBloomFilter.fromParquetBitset(ByteBuffer.allocateDirect(n), 0.01));
            assertRefused(Status.INVALID_ARGUMENT,
                    () -> SplitBlockBloomFilter.fromParquetBitset(ByteBuffer.allocate(n), 0.01));
            // The message says what is wrong (it said only "invalid call argument").
            String m = assertThrows(IllegalArgumentException.class,
                    () -> SplitBlockBloomFilter.fromParquetBitset(new byte[n], 0.01)).getMessage();
            assertTrue(m.contains("multiple of 32 bytes") && m.contains("not " + n + " bytes"), m);
        }
        for (double fpr : new double[] {Double.NaN, 0, 1, -0.5, 2}) {
            assertThrows(IllegalArgumentException.class, () -> SplitBlockBloomFilter.fromParquetBitset(new byte[32], fpr));
        }
        assertThrows(NullPointerException.class, () -> SplitBlockBloomFilter.fromParquetBitset((byte[]) null, 0.01));
        assertThrows(NullPointerException.class, () -> SplitBlockBloomFilter.fromParquetBitset((ByteBuffer) null, 0.01));
        // Planning.
        assertThrows(IllegalArgumentException.class, () -> SplitBlockBloomFilter.forParquet(0, 0.01, ParquetSizing.DUCKDB));
        assertThrows(IllegalArgumentException.class,
                () -> SplitBlockBloomFilter.forParquet(10, Double.NaN, ParquetSizing.DUCKDB));
        assertThrows(IllegalArgumentException.class, () -> SplitBlockBloomFilter.imageBytesForParquet(10, 1, ParquetSizing.ARROW_CPP));
        assertThrows(NullPointerException.class, () -> SplitBlockBloomFilter.forParquet(10, 0.01, null));

        // Folds that do not divide the block count: refused, nothing changes.
        SplitBlockBloomFilter f = SplitBlockBloomFilter.withBlocks(6, true, 0);
        f.addAllHashes(new long[] {1, 2, 3, 0x123456789abcdefL, -1});
        assertUnchanged(f, () -> () -> f.fold(2), IllegalArgumentException.class);
        assertRefused(Status.INVALID_ARGUMENT, () -> f.fold(2));
        String m = assertThrows(IllegalArgumentException.class, () -> f.fold(2)).getMessage();
        assertTrue(m.contains("cannot fold 6 blocks 2 times") && m.contains("divisible by 2^2"), m);
        assertUnchanged(f, () -> () -> f.fold(40), IllegalArgumentException.class);
        assertUnchanged(f, () -> () -> f.fold(-1), IllegalArgumentException.class);
        // NaN target rate: refused, nothing changes.
        assertUnchanged(f, () -> () -> f.foldToTargetFpp(Double.NaN), IllegalArgumentException.class);
        assertRefused(Status.INVALID_PARAMETER, () -> f.foldToTargetFpp(Double.NaN));
        // A rate outside (0, 1) too (1 meant as 1% folded any filter to one all-ones block).
        for (double fpp : new double[] {1.0, 5.0, Double.POSITIVE_INFINITY, 0.0, -0.01}) {
            assertUnchanged(f, () -> () -> f.foldToTargetFpp(fpp), IllegalArgumentException.class);
        }
        // One fold divides 6: 3 blocks.
        f.fold(1);
        assertEquals(3, f.stats().blocks());
        for (long h : new long[] {1, 2, 3, 0x123456789abcdefL, -1}) {
            assertTrue(f.containsHash(h));
        }
        assertUnchanged(f, () -> () -> f.fold(1), IllegalArgumentException.class);
        // A read-only wrapped filter is not folded.
        SplitBlockBloomFilter ro = SplitBlockBloomFilter.wrap(TestKeys.direct(f.toByteArray()).asReadOnlyBuffer());
        assertUnchanged(ro, () -> () -> ro.fold(0), ReadOnlyBufferException.class);
        assertUnchanged(ro, () -> () -> ro.foldToTargetFpp(0.5), ReadOnlyBufferException.class);
        assertThrows(ReadOnlyBufferException.class, () -> ro.addHash(1));
        // Batches check their output arrays first.
        assertThrows(IllegalArgumentException.class, () -> f.addAllHashes(new long[3], new boolean[2]));
        assertThrows(IllegalArgumentException.class, () -> f.containsAllHashes(new long[3], new boolean[2]));
    }

    /**
     * Keys in Parquet mode hash with XXH64 seed 0 (the class Javadoc once said XXH3-64 and the
     * seed for every mode): add(String/byte[]/ByteBuffer/long) and their batches insert exactly
     * what addHash of the matching parquetHash inserts; in native mode addHash takes
     * Sketches.hash with the filter's seed.
     */
    @Test
    void keysInParquetModeAreTheirParquetHashes() {
        String[] strings = {"", "a", "hello", "\u00e9t\u00e9", "x".repeat(300)};
        long[] longs = {0, 1, -1, 42, Long.MIN_VALUE};
        SplitBlockBloomFilter byKey = SplitBlockBloomFilter.withBlocks(8, true, 0);
        SplitBlockBloomFilter byBatch = SplitBlockBloomFilter.withBlocks(8, true, 0);
        SplitBlockBloomFilter byHash = SplitBlockBloomFilter.withBlocks(8, true, 0);
        for (String v : strings) {
            byKey.add(v);
            byHash.addHash(SplitBlockBloomFilter.parquetHash(v));
        }
        byBatch.addAll(strings);
        for (long v : longs) {
            byKey.add(v);
            byHash.addHash(SplitBlockBloomFilter.parquetHash(v));
        }
        byBatch.addAll(longs);
        byte[] raw = {1, 2, 3};
        byKey.add(raw);
        byKey.add(ByteBuffer.wrap(new byte[] {4, 5}));
        byHash.addHash(SplitBlockBloomFilter.parquetHash(raw));
        byHash.addHash(SplitBlockBloomFilter.parquetHash(new byte[] {4, 5}));
        byBatch.addAll(new byte[][] {raw, {4, 5}});
        assertArrayEquals(bytes(byHash.bitset()), bytes(byKey.bitset()));
        assertArrayEquals(bytes(byHash.bitset()), bytes(byBatch.bitset()));

        SplitBlockBloomFilter nativeKey = SplitBlockBloomFilter.withBlocks(8, false, 7);
        SplitBlockBloomFilter nativeHash = SplitBlockBloomFilter.withBlocks(8, false, 7);
        nativeKey.add("hello");
        nativeKey.add(42L);
        nativeHash.addHash(Sketches.hash("hello", 7));
        nativeHash.addHash(Sketches.hash(42L, 7));
        assertArrayEquals(bytes(nativeHash.bitset()), bytes(nativeKey.bitset()));
    }

    /**
     * foldToTargetFpp's limits as documented: at most as many folds as the block count halves
     * evenly; an empty filter folds that far at any rate in (0, 1); a rate outside (0, 1) is
     * refused with nothing changed (a rate of 1, meant as 1%, folded any filter to one block).
     */
    @Test
    void foldToTargetFppLimits() {
        for (double fpp : new double[] {1e-9, 0.01, 0.5, 0.999}) {
            SplitBlockBloomFilter empty = SplitBlockBloomFilter.withBlocks(64, true, 0);
            assertEquals(6, empty.foldToTargetFpp(fpp), "an empty filter folds to one block at " + fpp);
            assertEquals(32, empty.bitset().remaining());
            SplitBlockBloomFilter six = SplitBlockBloomFilter.withBlocks(6, true, 0);
            assertEquals(1, six.foldToTargetFpp(fpp), "6 blocks halve evenly once, at " + fpp);
            assertEquals(3, six.stats().blocks());
        }
        for (double fpp : new double[] {1, 2, Double.POSITIVE_INFINITY, 0, -1, Double.NEGATIVE_INFINITY}) {
            SplitBlockBloomFilter full = SplitBlockBloomFilter.withBlocks(64, true, 0);
            full.addAllHashes(new long[] {1, 2, 3});
            assertUnchanged(full, () -> () -> full.foldToTargetFpp(fpp), IllegalArgumentException.class);
            assertEquals(64, full.stats().blocks(), "refused at " + fpp);
        }
    }
}
