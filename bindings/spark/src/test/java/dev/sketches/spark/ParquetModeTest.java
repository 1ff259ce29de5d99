package dev.sketches.spark;

import static org.apache.spark.sql.functions.call_function;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.not;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sketches.SplitBlockBloomFilter;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.DataFrameWriter;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Parquet-mode split-block Bloom filters (made by the Java binding from the bitset of a Parquet
 * file's column chunk) queried with {@code sketch_sbbf_contains} over the column itself: the key
 * hashes as Parquet stores a column of its Spark type, so every value of the file is found.
 */
class ParquetModeTest {
    private final SparkSession spark = Session.get();

    /** The bloom filter bitsets of every column of one Parquet file (one row group), by column name. */
    private static Map<String, byte[]> bitsets(Path file) throws IOException {
        Map<String, byte[]> out = new LinkedHashMap<>();
        try (ParquetFileReader r = ParquetFileReader.open(HadoopInputFile.fromPath(
                new org.apache.hadoop.fs.Path(file.toString()), new Configuration()))) {
            assertEquals(1, r.getFooter().getBlocks().size());
            for (ColumnChunkMetaData c : r.getFooter().getBlocks().get(0).getColumns()) {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                r.readBloomFilter(c).writeTo(bytes);
                out.put(c.getPath().toDotString(), bytes.toByteArray());
            }
        }
        return out;
    }

    private static byte[] bitset(SplitBlockBloomFilter f) {
        java.nio.ByteBuffer b = f.bitset();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    /**
     * parquet-java (Spark's writer) sizes as forParquet(ndv, fpp) up to its 1 MiB default clamp,
     * where the Java binding's documentation points to withBlocks (forParquet plans 2 MiB there).
     */
    @Test
    void sparkWriterSizingAsDocumented(@TempDir Path dir) throws IOException {
        for (long ndv : new long[] {100_000, 1_000_000}) {
            Path out = dir.resolve("ndv" + ndv);
            spark.range(0, 2000, 1, 1).toDF("l").write().option("parquet.enable.dictionary", "false")
                    .option("parquet.bloom.filter.enabled#l", "true")
                    .option("parquet.bloom.filter.expected.ndv#l", Long.toString(ndv)).parquet(out.toString());
            File[] files = out.toFile().listFiles((d, n) -> n.endsWith(".parquet"));
            byte[] written = bitsets(files[0].toPath()).get("l");
            SplitBlockBloomFilter f = ndv == 100_000 ? SplitBlockBloomFilter.forParquet(ndv, 0.01)
                    : SplitBlockBloomFilter.withBlocks((1 << 20) / 32, true, 0);
            for (long v = 0; v < 2000; v++) {
                f.add(v);
            }
            assertArrayEquals(written, bitset(f), "ndv " + ndv);
        }
        assertEquals(2 << 20, bitset(SplitBlockBloomFilter.forParquet(1_000_000, 0.01)).length);
    }

    @Test
    void filtersOfASparkWrittenParquetFileFindEveryValueOfTheirColumn(@TempDir Path dir) throws IOException {
        String[] columns = {"i", "sh", "ti", "l", "s", "b", "f", "d", "dt", "dec9", "dec18", "dec30"};
        Dataset<Row> values = spark.sql("SELECT CAST(id - 500 AS INT) AS i, CAST(id - 500 AS SMALLINT) AS sh,"
                + " CAST(id % 200 - 100 AS TINYINT) AS ti, id * 1000003 - 7 AS l, concat('v', id) AS s,"
                + " CAST(concat('b', id) AS BINARY) AS b, CAST(id * 0.5 - 3 AS FLOAT) AS f,"
                + " CAST(id AS DOUBLE) / 7 - 100 AS d, date_add(DATE'1969-12-01', CAST(id AS INT)) AS dt,"
                + " CAST((id - 1000) / 8 AS DECIMAL(9, 3)) AS dec9,"
                + " CAST(id * 1000003 - 7000 AS DECIMAL(18, 2)) AS dec18,"
                + " CAST(id * 1000003 - 7000 AS DECIMAL(30, 4)) AS dec30 FROM range(0, 2000, 1, 1)");
        // Without dictionaries: parquet-java writes no bloom filter for a dictionary-encoded chunk.
        DataFrameWriter<Row> w = values.write().option("parquet.enable.dictionary", "false");
        for (String c : columns) {
            w = w.option("parquet.bloom.filter.enabled#" + c, "true")
                    .option("parquet.bloom.filter.expected.ndv#" + c, "2000");
        }
        w.parquet(dir.resolve("t").toString());
        File[] files = dir.resolve("t").toFile().listFiles((d, n) -> n.endsWith(".parquet"));
        assertEquals(1, files.length, Arrays.toString(files));
        Map<String, byte[]> bitsets = bitsets(files[0].toPath());
        Dataset<Row> table = spark.read().parquet(dir.resolve("t").toString());
        for (String c : columns) {
            byte[] image = SplitBlockBloomFilter.fromParquetBitset(bitsets.get(c), 0.01).toByteArray();
            // Every value of the column is found (INT, SMALLINT, TINYINT and DATE hashed as INT32,
            // DECIMAL as its unscaled value in INT32, INT64 or 13 bytes by precision).
            assertEquals(2000, table.where(call_function("sketch_sbbf_contains", lit(image), col(c))).count(), c);
            // Values the column does not hold are mostly not (TINYINT: the 28 values above 99).
            Dataset<Long> others = c.equals("ti") ? spark.range(100, 128) : spark.range(10_000, 12_000);
            String type = table.schema().apply(c).dataType().sql();
            String other = c.equals("dt") ? "date_add(DATE'1969-12-01', CAST(id AS INT))"
                    : "CAST(CAST(id AS STRING) AS " + type + ")";
            long absent = others.selectExpr(other + " AS v")
                    .where(call_function("sketch_sbbf_contains", lit(image), col("v"))).count();
            assertTrue(absent <= others.count() / 10, c + ": " + absent + " false positives");
        }
        // DATE keys arrive as java.time.LocalDate under the Java 8 time API: the same days.
        byte[] dates = SplitBlockBloomFilter.fromParquetBitset(bitsets.get("dt"), 0.01).toByteArray();
        spark.conf().set("spark.sql.datetime.java8API.enabled", "true");
        try {
            assertEquals(2000, table.where(call_function("sketch_sbbf_contains", lit(dates), col("dt"))).count());
        } finally {
            spark.conf().unset("spark.sql.datetime.java8API.enabled");
        }
        // The same values added to forParquet(ndv, fpp) give the file's bitset (no fold: parquet-java).
        SplitBlockBloomFilter same = SplitBlockBloomFilter.forParquet(2000, 0.01);
        for (long id = 0; id < 2000; id++) {
            same.add(id * 1000003 - 7);
        }
        assertArrayEquals(bitsets.get("l"), bitset(same));
        // A native-mode image still hashes an INT as its 8 bytes, as BIGINT: one key.
        byte[] nativeImage = spark.sql("SELECT sketch_sbbf_agg(id, 100, 0.01) FROM range(10)").first().getAs(0);
        assertEquals(0, spark.range(10).selectExpr("CAST(id AS INT) AS v")
                .where(not(call_function("sketch_sbbf_contains", lit(nativeImage), col("v")))).count());
        // Keys only Parquet gives bytes to are refused against it, naming the type.
        for (String key : new String[] {"CAST(id AS DOUBLE)", "CAST(id AS FLOAT)", "CAST(id AS DECIMAL(9, 2))",
                "date_add(DATE'2020-01-01', CAST(id AS INT))"}) {
            Checks.failsNaming("sketch_sbbf_contains", "only against a Parquet-mode split-block filter",
                    () -> spark.range(3).selectExpr(key + " AS v")
                            .where(call_function("sketch_sbbf_contains", lit(nativeImage), col("v"))).count());
        }
    }

    /**
     * DECIMAL keys hash as Spark writes the column: INT32 up to 9 digits, INT64 up to 18, else a
     * sign-extended big-endian array of the fewest bytes that hold the precision.
     */
    @Test
    void decimalWidthsFollowSparksParquetWriter() {
        assertEquals(4, ScalarFunctions.decimalBytes(9));
        assertEquals(8, ScalarFunctions.decimalBytes(18));
        assertEquals(9, ScalarFunctions.decimalBytes(19));
        assertEquals(13, ScalarFunctions.decimalBytes(30));
        assertEquals(16, ScalarFunctions.decimalBytes(38));
        // Other filters refuse the Parquet-only types at analysis.
        Checks.failsNaming("sketch_bloom_contains", "keys must be STRING",
                () -> spark.sql("SELECT sketch_bloom_contains(sketch_bloom_agg(id, 10, 0.01), 1.5D) FROM range(3)")
                        .collectAsList());
    }
}
