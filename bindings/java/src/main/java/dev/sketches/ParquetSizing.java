package dev.sketches;

/**
 * How a Parquet writer sizes a column chunk's bloom filter bitset from the column's distinct-value
 * count {@code ndv} and false-positive probability {@code fpp} ({@code SKETCH_PARQUET_SIZING_*}),
 * with {@code m = -8 ndv / ln(1 - fpp^(1/8))} bits. Used by {@link
 * SplitBlockBloomFilter#forParquet(long, double, ParquetSizing)} to plan a filter whose bitset is
 * the size that writer would write; writers that fold before writing (the parquet crate, Arrow
 * C++) shrink it afterwards, which {@link SplitBlockBloomFilter#foldToTargetFpp(double)} with the
 * same {@code fpp} reproduces.
 *
 * <p>Thread safety: an immutable enum.
 */
public enum ParquetSizing {
    /**
     * The parquet crate (arrow-rs), the rule of {@link SplitBlockBloomFilter#forParquet(long,
     * double)}: {@code next_pow2(clamp(floor(m) / 8, 32, 128 MiB))} bytes; the crate folds before
     * writing. Also parquet-java's (Spark, Hive) below its upper clamp ({@code
     * parquet.bloom.filter.max.bytes}, 1 MiB by default; it does not fold).
     */
    PARQUET_RS(0),
    /**
     * DuckDB: {@code max(next_pow2(floor(m / 8)), 32)} bytes with {@code ndv} the chunk's
     * dictionary size, no upper clamp; DuckDB does not fold.
     */
    DUCKDB(1),
    /**
     * Arrow C++ (pyarrow): rounds the bit count up first, {@code min(next_pow2(clamp(floor(m), 256,
     * 2^30)), 2^30) / 8} bytes (twice the others when {@code floor(m) / 8} is a power of two); it
     * folds before writing.
     */
    ARROW_CPP(2);

    private final int id;

    ParquetSizing(int id) {
        this.id = id;
    }

    /**
     * The C ABI's number of this rule ({@code SKETCH_PARQUET_SIZING_PARQUET_RS} 0, {@code _DUCKDB}
     * 1, {@code _ARROW_CPP} 2).
     *
     * @return the number
     */
    public int id() {
        return id;
    }
}
