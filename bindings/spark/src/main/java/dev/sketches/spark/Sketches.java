package dev.sketches.spark;

import dev.sketches.BloomFilter;
import dev.sketches.CountMinSketch;
import dev.sketches.CountingBloomFilter;
import dev.sketches.CuckooFilter;
import dev.sketches.ExaLogLog;
import dev.sketches.HyperLogLog;
import dev.sketches.MinHash;
import dev.sketches.SplitBlockBloomFilter;
import dev.sketches.TopK;
import dev.sketches.UltraLogLog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Encoder;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.analysis.FunctionRegistry;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.ExpressionInfo;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.classic.ExpressionUtils;
import org.apache.spark.sql.expressions.UserDefinedFunction;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.IntegralType;
import org.apache.spark.sql.types.NullType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Sketches as Spark SQL functions: {@link #register(SparkSession)} makes them callable from SQL
 * ({@code spark.sql}) and the DataFrame API ({@code functions.call_function} or the helpers of
 * this class) in that session.
 *
 * <p>Aggregates (each returns the exported image as BINARY, the bytes the C, C++, Go, Java and
 * Python bindings read): {@code sketch_bloom_agg(key, items, fpp)}, {@code sketch_sbbf_agg},
 * {@code sketch_counting_agg}, {@code sketch_cuckoo_agg} (same arguments), {@code
 * sketch_hll_agg(key, p)}, {@code sketch_ull_agg(key, p)}, {@code sketch_ell_agg(key, p [, d])},
 * {@code sketch_cms_agg(key, eps, delta)}, {@code sketch_topk_agg(key, capacity, max_key_len)},
 * {@code sketch_minhash_agg(key, k)}, {@code sketch_fuse_agg(key, bits)} (a static binary fuse
 * filter built from the group's distinct keys); and for every mergeable family a union aggregate
 * over a BINARY column of its images: {@code sketch_<family>_union_agg(image)} (bloom, sbbf,
 * counting, cuckoo, hll, ull, ell, cms, topk, minhash; not fuse). Parameters must be constants;
 * every sketch uses seed 0, as the other bindings do by default.
 *
 * <p>Scalar functions: {@code sketch_<bloom|sbbf|counting|cuckoo|fuse>_contains(image, key)}
 * (BOOLEAN), {@code sketch_<hll|ull|ell>_estimate(image)} (BIGINT), {@code
 * sketch_cms_estimate(image, key)} (BIGINT), {@code sketch_topk_items(image [, key_type])} (ARRAY
 * of STRUCT(item, count, error), key_type 'string' (default), 'long' or 'binary'), {@code
 * sketch_jaccard(a, b)} (DOUBLE), and over an image of any family {@code sketch_stats(image)} (a
 * STRUCT of the family's figures, one type for every family) and {@code
 * sketch_over_capacity(image)} (BOOLEAN, null for families without a plan).
 *
 * <p>Keys: STRING hashes as its UTF-8 bytes (the bytes Spark holds, also when not valid UTF-8), TINYINT/SMALLINT/INT/BIGINT as the value's 8
 * little-endian bytes, BINARY as is: the rule of every binding, so a Spark-built image answers C
 * and Go queries for the same keys (against a Parquet-mode split-block filter image, {@code
 * sketch_sbbf_contains} hashes as Spark's Parquet writer stores a column of the key's type: INT,
 * SMALLINT, TINYINT and DATE as INT32, FLOAT and DOUBLE as their IEEE-754 bits, DECIMAL as its
 * unscaled value in INT32, INT64 or a fixed-length byte array by precision; FLOAT, DOUBLE, DATE
 * and DECIMAL keys are taken only there). Other key types are rejected (cast them first). Null keys are
 * skipped (they are not added, and a null key or image gives a null answer); an aggregate over no
 * key returns the empty sketch, a union aggregate over no image returns null.
 *
 * <p>Errors: a bad parameter or key type fails the query at analysis (also a filter, Count-Min,
 * Top-k, ExaLogLog or MinHash sketch too large to make, sized without allocating it); a damaged image, an image of another family or
 * images that do not merge fail it when it runs; every message starts with the function's name.
 *
 * <p>Thread safety: {@link #register(SparkSession)} may be called from any thread, again at will;
 * the functions run in Spark tasks like built-in ones.
 */
public final class Sketches {
    private Sketches() {}

    /** Builds the expression of one call from its checked arguments. */
    @FunctionalInterface
    private interface Builder {
        Expression build(String function, List<Expression> args, org.apache.spark.sql.classic.SparkSession session);
    }

    /** One function: name, usage text ({@link #usage}), argument counts and builder. */
    private record Definition(String name, String usage, int minArgs, int maxArgs, Builder builder) {}

    private static final Map<String, Definition> FUNCTIONS = new LinkedHashMap<>();

    static {
        filterAgg("sketch_bloom_agg", Family.BLOOM, "Bloom filter");
        filterAgg("sketch_sbbf_agg", Family.SPLIT_BLOCK_BLOOM, "split-block Bloom filter");
        filterAgg("sketch_counting_agg", Family.COUNTING_BLOOM, "counting Bloom filter");
        filterAgg("sketch_cuckoo_agg", Family.CUCKOO, "cuckoo filter");
        define("sketch_hll_agg", "_FUNC_(key, p) - HyperLogLog sketch of the non-null keys with 2^p registers"
                + " (p in 4..18), as its image (BINARY).", 2, 2, (fn, a, s) -> {
                    int p = intParam(fn, "p", a.get(1));
                    return aggregate(s, fn, a.get(0), new AggSpec(fn, Family.HYPERLOGLOG,
                            checked(fn, () -> HyperLogLog.create(p)), 0));
                });
        define("sketch_ull_agg", "_FUNC_(key, p) - UltraLogLog sketch of the non-null keys with 2^p registers"
                + " (p in 4..18), as its image (BINARY).", 2, 2, (fn, a, s) -> {
                    int p = intParam(fn, "p", a.get(1));
                    return aggregate(s, fn, a.get(0), new AggSpec(fn, Family.ULTRALOGLOG,
                            checked(fn, () -> UltraLogLog.create(p)), 0));
                });
        define("sketch_ell_agg", "_FUNC_(key, p [, d]) - ExaLogLog sketch of the non-null keys with 2^p registers"
                + " (p in 2..24) of configuration d (20, the default, or 24), seed 0, as its image (BINARY).",
                2, 3, (fn, a, s) -> {
                    int p = intParam(fn, "p", a.get(1));
                    int d = a.size() > 2 ? intParam(fn, "d", a.get(2)) : ExaLogLog.D20;
                    if (d != ExaLogLog.D20 && d != ExaLogLog.D24) {
                        throw new IllegalArgumentException(fn + ": d must be 20 or 24, not " + d);
                    }
                    // Sized, not made: a p = 24 sketch takes 64 MiB, too much to allocate on the driver.
                    sized(fn, Family.EXALOGLOG, () -> ExaLogLog.imageBytes(p, d));
                    return aggregate(s, fn, a.get(0), new AggSpec(fn, Family.EXALOGLOG,
                            () -> ExaLogLog.create(p, d, 0), 0));
                });
        define("sketch_fuse_agg", "_FUNC_(key, bits) - binary fuse filter (static, bits 8 or 16: false-positive"
                + " rate 2^-bits) built from the group's distinct non-null keys (at most " + KeySet.MAX_KEYS
                + " per group), as its image (BINARY). There is no union aggregate: filters do not merge.",
                2, 2, (fn, a, s) -> {
                    int bits = intParam(fn, "bits", a.get(1));
                    if (bits != 8 && bits != 16) {
                        throw new IllegalArgumentException(fn + ": bits must be 8 or 16, not " + bits);
                    }
                    return aggregate(s, fn, a.get(0), new AggSpec(fn, Family.BINARY_FUSE, () -> new KeySet(bits), 0));
                });
        define("sketch_cms_agg", "_FUNC_(key, eps, delta) - Count-Min sketch of the non-null keys: estimates"
                + " exceed true counts by at most eps times the total with probability 1 - delta (both in"
                + " (0, 1)); as its image (BINARY).", 3, 3, (fn, a, s) -> {
                    double eps = doubleParam(fn, "eps", a.get(1));
                    double delta = doubleParam(fn, "delta", a.get(2));
                    if (!(eps > 0 && eps < 1) || !(delta > 0 && delta < 1)) {
                        throw new IllegalArgumentException(
                                fn + ": eps and delta must be in (0, 1), not " + eps + " and " + delta);
                    }
                    sized(fn, Family.COUNT_MIN, () -> CountMinSketch.imageBytes(eps, delta));
                    AggSpec.Factory f = () -> CountMinSketch.create(eps, delta);
                    return aggregate(s, fn, a.get(0), new AggSpec(fn, Family.COUNT_MIN, f, 0));
                });
        define("sketch_topk_agg", "_FUNC_(key, capacity, max_key_len) - Top-k sketch (capacity counters,"
                + " 1..2^20; keys of at most max_key_len bytes, 1..4096; integer keys take 8) of the"
                + " non-null keys, as its image (BINARY).", 3, 3, (fn, a, s) -> {
                    int capacity = intParam(fn, "capacity", a.get(1));
                    int maxKeyLength = intParam(fn, "max_key_len", a.get(2));
                    if (a.get(0).dataType() instanceof IntegralType && maxKeyLength < 8) {
                        // Else every row's key fails the task: an integer key is its 8 bytes.
                        throw new IllegalArgumentException(fn + ": max_key_len must be at least 8 for "
                                + a.get(0).dataType().sql() + " keys (an integer key takes 8 bytes), not " + maxKeyLength);
                    }
                    // Sized, not made: a Top-k sketch takes up to 2 GiB, too much to allocate on the driver.
                    sized(fn, Family.TOPK, () -> TopK.imageBytes(capacity, maxKeyLength));
                    AggSpec.Factory f = () -> TopK.create(capacity, maxKeyLength);
                    return aggregate(s, fn, a.get(0), new AggSpec(fn, Family.TOPK, f, maxKeyLength));
                });
        define("sketch_minhash_agg", "_FUNC_(key, k) - MinHash sketch with k registers (1..2^20) of the"
                + " non-null keys, as its image (BINARY).", 2, 2, (fn, a, s) -> {
                    int k = intParam(fn, "k", a.get(1));
                    sized(fn, Family.MINHASH, () -> MinHash.imageBytes(k));
                    return aggregate(s, fn, a.get(0), new AggSpec(fn, Family.MINHASH, () -> MinHash.create(k), 0));
                });

        union("bloom", Family.BLOOM);
        union("sbbf", Family.SPLIT_BLOCK_BLOOM);
        union("counting", Family.COUNTING_BLOOM);
        union("cuckoo", Family.CUCKOO);
        union("hll", Family.HYPERLOGLOG, "any precisions: the result has the lowest");
        union("ull", Family.ULTRALOGLOG, "any precisions: the result has the lowest");
        union("cms", Family.COUNT_MIN);
        union("topk", Family.TOPK);
        union("minhash", Family.MINHASH);
        union("ell", Family.EXALOGLOG, "any precisions and d: the result has the lowest of each");

        contains("bloom", Family.BLOOM);
        contains("sbbf", Family.SPLIT_BLOCK_BLOOM);
        contains("counting", Family.COUNTING_BLOOM);
        contains("cuckoo", Family.CUCKOO);
        contains("fuse", Family.BINARY_FUSE);
        estimate("hll", Family.HYPERLOGLOG);
        estimate("ull", Family.ULTRALOGLOG);
        estimate("ell", Family.EXALOGLOG);
        define("sketch_cms_estimate", "_FUNC_(image, key) - Count-Min estimate of the key's count (BIGINT, at"
                + " least the true count); null when either is null.", 2, 2, (fn, a, s) -> {
                    image(fn, a.get(0));
                    key(fn, a.get(1));
                    return udf(s, fn, functions.udf(new ScalarFunctions.CmsEstimate(fn), DataTypes.LongType),
                            List.of(a.get(0), stringBytes(a.get(1))));
                });
        define("sketch_topk_items", "_FUNC_(image [, key_type]) - the Top-k sketch's listed keys, largest"
                + " count first, as ARRAY<STRUCT<item, count: BIGINT, error: BIGINT>>; key_type 'string'"
                + " (default, UTF-8), 'long' (8-byte integers) or 'binary' gives the item's type.", 1, 2, (fn, a, s) -> {
                    image(fn, a.get(0));
                    ScalarFunctions.KeyDecoding d = a.size() > 1
                            ? keyDecoding(fn, a.get(1))
                            : ScalarFunctions.KeyDecoding.STRING;
                    DataType item = d == ScalarFunctions.KeyDecoding.STRING
                            ? DataTypes.StringType
                            : d == ScalarFunctions.KeyDecoding.LONG ? DataTypes.LongType : DataTypes.BinaryType;
                    StructType struct = new StructType()
                            .add("item", item, false)
                            .add("count", DataTypes.LongType, false)
                            .add("error", DataTypes.LongType, false);
                    ArrayType type = DataTypes.createArrayType(struct, false);
                    return udf(s, fn, functions.udf(new ScalarFunctions.TopKItems(fn, d), type), a.subList(0, 1));
                });
        define("sketch_jaccard", "_FUNC_(a, b) - Jaccard similarity (DOUBLE) of the key sets of two MinHash"
                + " images of equal k; null when either is null.", 2, 2, (fn, a, s) -> {
                    image(fn, a.get(0));
                    image(fn, a.get(1));
                    return udf(s, fn, functions.udf(new ScalarFunctions.Jaccard(fn), DataTypes.DoubleType), a);
                });
        define("sketch_stats", "_FUNC_(image) - what an image of any family holds, as one STRUCT for every"
                + " family (a field the image's family does not have is null, so a column mixing families"
                + " has one type: SELECT s.family, s.expected_fpp FROM (SELECT _FUNC_(img) AS s ...)); null"
                + " when the image is null; an image that is damaged or no sketch image fails the query."
                + " Fields: " + ImageStats.fieldsDoc() + ".", 1, 1, (fn, a, s) -> {
                    image(fn, a.get(0));
                    return udf(s, fn, functions.udf(new ScalarFunctions.Stats(fn), ImageStats.SCHEMA), a);
                });
        define("sketch_over_capacity", "_FUNC_(image) - BOOLEAN, whether the sketch is past its plan: for"
                + " Bloom and split-block filters true when the keys estimated from the set bits exceed the"
                + " planned keys or the false-positive rate expected at the current fill exceeds twice the"
                + " planned one (judged by the bits, which do not depend on Spark's partitioning, not by the"
                + " image's capacity flags, whose items counter counts keys repeated across input partitions"
                + " again); for counting Bloom and cuckoo filters true when a capacity flag is raised (more"
                + " keys than planned, or the expected rate above twice the planned one); false for a binary"
                + " fuse filter (static: built for exactly its keys,"
                + " rate 2^-bits); for Top-k true when a key was evicted (more distinct keys than counters:"
                + " some counts are upper bounds, or a merge of partial sketches dropped keys); null for HyperLogLog, UltraLogLog, ExaLogLog, Count-Min and"
                + " MinHash (no plan to exceed) and for a null image; a damaged image fails the query.", 1, 1,
                (fn, a, s) -> {
                    image(fn, a.get(0));
                    return udf(s, fn, functions.udf(new ScalarFunctions.OverCapacity(fn), DataTypes.BooleanType), a);
                });
    }

    /**
     * Registers every {@code sketch_*} function as a temporary function of the session (replacing
     * earlier registrations of the same names).
     *
     * @param spark a session of Spark's classic (non-Connect) implementation, whose driver has the
     *     sketches jars on its class path
     * @throws IllegalArgumentException when {@code spark} is a Spark Connect session
     */
    public static void register(SparkSession spark) {
        if (!(spark instanceof org.apache.spark.sql.classic.SparkSession classic)) {
            throw new IllegalArgumentException("Sketches.register needs a classic SparkSession, not "
                    + spark.getClass().getName() + " (Spark Connect clients cannot register JVM functions)");
        }
        FunctionRegistry registry = classic.sessionState().functionRegistry();
        for (Definition d : FUNCTIONS.values()) {
            scala.Function1<Seq<Expression>, Expression> builder = args -> build(d, args, classic);
            registry.createOrReplaceTempFunction(d.name(), builder, "java_udf");
        }
        // Again under the identifiers Spark gave them (Spark 4.2 qualifies temporary functions by
        // the session namespace), now with the usage texts, so DESCRIBE FUNCTION shows the
        // arguments: createOrReplaceTempFunction registers none ("Usage: N/A.").
        for (FunctionIdentifier id : CollectionConverters.asJava(registry.listFunction())) {
            Definition d = FUNCTIONS.get(id.funcName());
            scala.Option<scala.Tuple2<ExpressionInfo, scala.Function1<Seq<Expression>, Expression>>> entry =
                    d == null ? scala.Option.empty() : registry.lookupFunctionEntry(id);
            if (entry.isDefined() && "java_udf".equals(entry.get()._1().getSource())) {
                ExpressionInfo info = new ExpressionInfo(Sketches.class.getName(), id.database().getOrElse(() -> null),
                        d.name(), d.usage(), "", "", "", "", "", "", "java_udf");
                registry.registerFunction(id, info, entry.get()._2());
            }
        }
    }

    /**
     * The names of the functions {@link #register(SparkSession)} registers, in a stable order.
     *
     * @return the names
     */
    public static List<String> functionNames() {
        return Collections.unmodifiableList(new ArrayList<>(FUNCTIONS.keySet()));
    }

    /**
     * The usage text of one function (arguments, result, null handling).
     *
     * @param name a name from {@link #functionNames()}
     * @return the text, starting with the call's shape
     * @throws IllegalArgumentException when no function has that name
     */
    public static String usage(String name) {
        Definition d = FUNCTIONS.get(name);
        if (d == null) {
            throw new IllegalArgumentException("no sketches function named " + name);
        }
        return d.usage().replace("_FUNC_", name);
    }

    // ---- DataFrame helpers (the session must have the functions registered) ----

    /**
     * {@code sketch_bloom_agg(key, items, fpp)}: a Bloom filter image of the column's keys.
     *
     * @param key a STRING, integral or BINARY column
     * @param items distinct keys the filter is planned for (at least 1)
     * @param fpp false-positive rate at that count, in (0, 1)
     * @return the aggregate column (BINARY)
     */
    public static Column bloomAgg(Column key, long items, double fpp) {
        return functions.call_function("sketch_bloom_agg", key, functions.lit(items), functions.lit(fpp));
    }

    /**
     * {@code sketch_sbbf_agg(key, items, fpp)}: a split-block Bloom filter image of the keys.
     *
     * @param key a STRING, integral or BINARY column
     * @param items distinct keys the filter is planned for (at least 1)
     * @param fpp false-positive rate at that count, in (0, 1)
     * @return the aggregate column (BINARY)
     */
    public static Column sbbfAgg(Column key, long items, double fpp) {
        return functions.call_function("sketch_sbbf_agg", key, functions.lit(items), functions.lit(fpp));
    }

    /**
     * {@code sketch_counting_agg(key, items, fpp)}: a counting Bloom filter image of the keys.
     *
     * @param key a STRING, integral or BINARY column
     * @param items distinct keys the filter is planned for (at least 1)
     * @param fpp false-positive rate at that count, in (0, 1)
     * @return the aggregate column (BINARY)
     */
    public static Column countingAgg(Column key, long items, double fpp) {
        return functions.call_function("sketch_counting_agg", key, functions.lit(items), functions.lit(fpp));
    }

    /**
     * {@code sketch_cuckoo_agg(key, items, fpp)}: a cuckoo filter image of the keys. A key is stored
     * once per input partition that holds it: de-duplicate keys that repeat across partitions first
     * ({@code df.select(k).distinct()}, or SQL {@code sketch_cuckoo_agg(DISTINCT key, ...)}).
     *
     * @param key a STRING, integral or BINARY column
     * @param items distinct keys the filter is planned for (at least 1)
     * @param fpp false-positive rate at that count, in (0, 1)
     * @return the aggregate column (BINARY)
     */
    public static Column cuckooAgg(Column key, long items, double fpp) {
        return functions.call_function("sketch_cuckoo_agg", key, functions.lit(items), functions.lit(fpp));
    }

    /**
     * {@code sketch_hll_agg(key, p)}: a HyperLogLog image of the keys.
     *
     * @param key a STRING, integral or BINARY column
     * @param p precision, 4 to 18 (2^p registers; relative standard error about 1.04/sqrt(2^p))
     * @return the aggregate column (BINARY)
     */
    public static Column hllAgg(Column key, int p) {
        return functions.call_function("sketch_hll_agg", key, functions.lit(p));
    }

    /**
     * {@code sketch_ull_agg(key, p)}: an UltraLogLog image of the keys.
     *
     * @param key a STRING, integral or BINARY column
     * @param p precision, 4 to 18
     * @return the aggregate column (BINARY)
     */
    public static Column ullAgg(Column key, int p) {
        return functions.call_function("sketch_ull_agg", key, functions.lit(p));
    }

    /**
     * {@code sketch_ell_agg(key, p)}: an ExaLogLog image of the keys with d = 20.
     *
     * @param key a STRING, integral or BINARY column
     * @param p precision, 2 to 24 (2^p registers of 28 bits; relative standard error about
     *     0.362/sqrt(2^p) merged, about 12% less for one stream)
     * @return the aggregate column (BINARY)
     */
    public static Column ellAgg(Column key, int p) {
        return functions.call_function("sketch_ell_agg", key, functions.lit(p));
    }

    /**
     * {@code sketch_ell_agg(key, p, d)}: an ExaLogLog image of the keys.
     *
     * @param key a STRING, integral or BINARY column
     * @param p precision, 2 to 24
     * @param d 20 (28-bit registers) or 24 (32-bit registers, error about 0.344/sqrt(2^p) merged)
     * @return the aggregate column (BINARY)
     */
    public static Column ellAgg(Column key, int p, int d) {
        return functions.call_function("sketch_ell_agg", key, functions.lit(p), functions.lit(d));
    }

    /**
     * {@code sketch_fuse_agg(key, bits)}: a binary fuse filter image built from the group's
     * distinct keys (at most 16,777,216 per group, held in the aggregation buffer until the group
     * is finished).
     *
     * @param key a STRING, integral or BINARY column
     * @param bits fingerprint bits, 8 (false-positive rate 2^-8) or 16 (2^-16)
     * @return the aggregate column (BINARY)
     */
    public static Column fuseAgg(Column key, int bits) {
        return functions.call_function("sketch_fuse_agg", key, functions.lit(bits));
    }

    /**
     * {@code sketch_cms_agg(key, eps, delta)}: a Count-Min image of the keys.
     *
     * @param key a STRING, integral or BINARY column
     * @param eps relative error bound, in (0, 1)
     * @param delta probability of exceeding it, in (0, 1)
     * @return the aggregate column (BINARY)
     */
    public static Column cmsAgg(Column key, double eps, double delta) {
        return functions.call_function("sketch_cms_agg", key, functions.lit(eps), functions.lit(delta));
    }

    /**
     * {@code sketch_topk_agg(key, capacity, max_key_len)}: a Top-k image of the keys.
     *
     * @param key a STRING, integral or BINARY column
     * @param capacity counters, 1 to 2^20
     * @param maxKeyLength longest key in bytes, 1 to 4096 (a longer key fails the query)
     * @return the aggregate column (BINARY)
     */
    public static Column topkAgg(Column key, int capacity, int maxKeyLength) {
        return functions.call_function("sketch_topk_agg", key, functions.lit(capacity), functions.lit(maxKeyLength));
    }

    /**
     * {@code sketch_minhash_agg(key, k)}: a MinHash image of the keys.
     *
     * @param key a STRING, integral or BINARY column
     * @param k registers, 1 to 2^20
     * @return the aggregate column (BINARY)
     */
    public static Column minhashAgg(Column key, int k) {
        return functions.call_function("sketch_minhash_agg", key, functions.lit(k));
    }

    /**
     * {@code sketch_<family>_union_agg(images)}: the merge of a column of images of one family.
     *
     * @param family bloom, sbbf, counting, cuckoo, hll, ull, ell, cms, topk or minhash
     * @param images a BINARY column of images of that family with equal parameters (HyperLogLog and
     *     UltraLogLog: any precisions, ExaLogLog: any precisions and d, merged at the lowest)
     * @return the aggregate column (BINARY; null when every image is null)
     * @throws IllegalArgumentException when the family is unknown, or is fuse (binary fuse filters
     *     are static and do not merge)
     */
    public static Column unionAgg(String family, Column images) {
        String f = family.toLowerCase(Locale.ROOT);
        String name = "sketch_" + f + "_union_agg";
        if (f.equals("fuse")) {
            throw new IllegalArgumentException("no union aggregate for family fuse: binary fuse filters are static"
                    + " and do not merge (build one filter from the union of the keys with sketch_fuse_agg)");
        }
        if (!FUNCTIONS.containsKey(name)) {
            throw new IllegalArgumentException("no union aggregate for family " + family);
        }
        return functions.call_function(name, images);
    }

    /**
     * {@code sketch_bloom_contains(image, key)}: whether the Bloom filter may hold the key.
     *
     * @param image a Bloom filter image (a literal, {@code functions.lit(bytes)}, is read once per executor)
     * @param key a STRING, integral or BINARY column
     * @return the BOOLEAN column
     */
    public static Column bloomContains(Column image, Column key) {
        return functions.call_function("sketch_bloom_contains", image, key);
    }

    /**
     * {@code sketch_sbbf_contains(image, key)}: whether the split-block Bloom filter may hold the key
     * (against a Parquet-mode image, the key hashes as the file stores a column of its Spark type).
     *
     * @param image a split-block Bloom filter image (a literal is read once per executor)
     * @param key a STRING, integral or BINARY column (Parquet mode: also FLOAT, DOUBLE, DATE, DECIMAL)
     * @return the BOOLEAN column
     */
    public static Column sbbfContains(Column image, Column key) {
        return functions.call_function("sketch_sbbf_contains", image, key);
    }

    /**
     * {@code sketch_counting_contains(image, key)}: whether the counting Bloom filter may hold the key.
     *
     * @param image a counting Bloom filter image (a literal is read once per executor)
     * @param key a STRING, integral or BINARY column
     * @return the BOOLEAN column
     */
    public static Column countingContains(Column image, Column key) {
        return functions.call_function("sketch_counting_contains", image, key);
    }

    /**
     * {@code sketch_cuckoo_contains(image, key)}: whether the cuckoo filter may hold the key.
     *
     * @param image a cuckoo filter image (a literal is read once per executor)
     * @param key a STRING, integral or BINARY column
     * @return the BOOLEAN column
     */
    public static Column cuckooContains(Column image, Column key) {
        return functions.call_function("sketch_cuckoo_contains", image, key);
    }

    /**
     * {@code sketch_fuse_contains(image, key)}: whether the binary fuse filter may hold the key (no
     * false negatives for the keys it was built from; false positives at rate 2^-bits).
     *
     * @param image a binary fuse filter image (a literal is read once per executor)
     * @param key a STRING, integral or BINARY column
     * @return the BOOLEAN column
     */
    public static Column fuseContains(Column image, Column key) {
        return functions.call_function("sketch_fuse_contains", image, key);
    }

    /**
     * {@code sketch_ell_estimate(image)}: the distinct-count estimate of an ExaLogLog image (the
     * martingale estimate while the image saw one stream, else maximum likelihood), rounded.
     *
     * @param image an ExaLogLog image column
     * @return the BIGINT column
     */
    public static Column ellEstimate(Column image) {
        return functions.call_function("sketch_ell_estimate", image);
    }

    /**
     * {@code sketch_hll_estimate(image)}: the distinct-count estimate of a HyperLogLog image.
     *
     * @param image a HyperLogLog image column
     * @return the BIGINT column
     */
    public static Column hllEstimate(Column image) {
        return functions.call_function("sketch_hll_estimate", image);
    }

    /**
     * {@code sketch_ull_estimate(image)}: the distinct-count estimate of an UltraLogLog image.
     *
     * @param image an UltraLogLog image column
     * @return the BIGINT column
     */
    public static Column ullEstimate(Column image) {
        return functions.call_function("sketch_ull_estimate", image);
    }

    /**
     * {@code sketch_cms_estimate(image, key)}: the Count-Min estimate of the key's count.
     *
     * @param image a Count-Min image column (a literal is read once per executor)
     * @param key a STRING, integral or BINARY column
     * @return the BIGINT column (at least the key's true count)
     */
    public static Column cmsEstimate(Column image, Column key) {
        return functions.call_function("sketch_cms_estimate", image, key);
    }

    /**
     * {@code sketch_topk_items(image)}: the Top-k sketch's listed keys as strings, largest count first.
     *
     * @param image a Top-k image column
     * @return the ARRAY&lt;STRUCT&lt;item: STRING, count: BIGINT, error: BIGINT&gt;&gt; column
     */
    public static Column topkItems(Column image) {
        return functions.call_function("sketch_topk_items", image);
    }

    /**
     * {@code sketch_topk_items(image, key_type)}: the Top-k sketch's listed keys, largest count first.
     *
     * @param image a Top-k image column
     * @param keyType "string" (UTF-8), "long" (keys added as integers) or "binary"
     * @return the ARRAY&lt;STRUCT&lt;item, count: BIGINT, error: BIGINT&gt;&gt; column
     */
    public static Column topkItems(Column image, String keyType) {
        return functions.call_function("sketch_topk_items", image, functions.lit(keyType));
    }

    /**
     * {@code sketch_jaccard(a, b)}: the Jaccard similarity of two MinHash images of equal k.
     *
     * @param a a MinHash image column
     * @param b a MinHash image column
     * @return the DOUBLE column
     */
    public static Column jaccard(Column a, Column b) {
        return functions.call_function("sketch_jaccard", a, b);
    }

    /**
     * {@code sketch_stats(image)}: what an image of any family holds (family, size, plan, fill,
     * expected false-positive rate, capacity flags, estimate and standard error, ...; see {@link
     * #usage usage("sketch_stats")} for every field), one struct type for every family, with null
     * for the fields a family does not have.
     *
     * @param image a BINARY column of images of any families
     * @return the STRUCT column (null where the image is null)
     */
    public static Column stats(Column image) {
        return functions.call_function("sketch_stats", image);
    }

    /**
     * {@code sketch_over_capacity(image)}: whether the sketch is past its plan (Bloom and split-block
     * filters: items or rate estimated from the bits above the plan; counting Bloom and cuckoo
     * filters: a capacity flag raised; binary fuse filter: false; Top-k: a key was evicted; other
     * families: null).
     *
     * @param image a BINARY column of images of any families
     * @return the BOOLEAN column
     */
    public static Column overCapacity(Column image) {
        return functions.call_function("sketch_over_capacity", image);
    }

    // ---- builders ----

    private static void define(String name, String usage, int minArgs, int maxArgs, Builder builder) {
        FUNCTIONS.put(name, new Definition(name, usage, minArgs, maxArgs, builder));
    }

    private static void filterAgg(String name, Family family, String title) {
        String cuckoo = family != Family.CUCKOO ? "" : " Each distinct key is stored once per input partition"
                + " that holds it (a merge copies entries): when keys repeat across partitions use"
                + " _FUNC_(DISTINCT key, items, fpp), else the filter fills up and the query fails.";
        define(name, "_FUNC_(key, items, fpp) - " + title + " of the non-null keys, planned for `items`"
                + " distinct keys (items at least 1) at false-positive rate `fpp` (fpp in (0, 1)), as its"
                + " image (BINARY)." + cuckoo, 3, 3, (fn, a, s) -> {
                    long items = longParam(fn, "items", a.get(1));
                    double fpp = doubleParam(fn, "fpp", a.get(2));
                    if (items < 1) {
                        throw new IllegalArgumentException(fn + ": items must be at least 1, not " + items);
                    }
                    if (!(fpp > 0 && fpp < 1)) {
                        throw new IllegalArgumentException(fn + ": fpp must be in (0, 1), not " + fpp);
                    }
                    sized(fn, family, () -> switch (family) {
                        case BLOOM -> BloomFilter.imageBytes(items, fpp);
                        case SPLIT_BLOCK_BLOOM -> SplitBlockBloomFilter.imageBytes(items, fpp);
                        case COUNTING_BLOOM -> CountingBloomFilter.imageBytes(items, fpp);
                        default -> CuckooFilter.imageBytes(items, fpp);
                    });
                    AggSpec.Factory f = switch (family) {
                        case BLOOM -> () -> BloomFilter.create(items, fpp);
                        case SPLIT_BLOCK_BLOOM -> () -> SplitBlockBloomFilter.create(items, fpp);
                        case COUNTING_BLOOM -> () -> CountingBloomFilter.create(items, fpp);
                        default -> () -> CuckooFilter.create(items, fpp);
                    };
                    return aggregate(s, fn, a.get(0), new AggSpec(fn, family, f, 0));
                });
    }

    private static void union(String prefix, Family family) {
        union(prefix, family, "equal parameters");
    }

    private static void union(String prefix, Family family, String which) {
        String name = "sketch_" + prefix + "_union_agg";
        define(name, "_FUNC_(image) - merge of the non-null " + family.title + " images of the group (" + which
                + "), as an image (BINARY); null when there is none.", 1, 1, (fn, a, s) -> {
                    image(fn, a.get(0));
                    SketchAggregator agg = new SketchAggregator(new AggSpec(fn, family, null, 0), true);
                    UserDefinedFunction f = functions.udaf(agg, anyEncoder(Encoders.BINARY())).withName(fn);
                    return aggregateExpression(s, f, a.get(0));
                });
    }

    private static void contains(String prefix, Family family) {
        define("sketch_" + prefix + "_contains", "_FUNC_(image, key) - false when the key was certainly never"
                + " added to the " + family.title + " image, true when it may have been; null when either is"
                + " null.", 2, 2, (fn, a, s) -> {
                    image(fn, a.get(0));
                    DataType keyType = a.get(1).dataType();
                    if (family != Family.SPLIT_BLOCK_BLOOM || !ScalarFunctions.isParquetOnlyKey(keyType)) {
                        key(fn, keyType);
                    }
                    UserDefinedFunction f = functions.udf(
                            new ScalarFunctions.Contains(fn, family, keyType), DataTypes.BooleanType);
                    return udf(s, fn, f, List.of(a.get(0), stringBytes(a.get(1))));
                });
    }

    private static void estimate(String prefix, Family family) {
        define("sketch_" + prefix + "_estimate", "_FUNC_(image) - distinct-count estimate (BIGINT, rounded) of"
                + " a " + family.title + " image; null when it is null.", 1, 1, (fn, a, s) -> {
                    image(fn, a.get(0));
                    return udf(s, fn, functions.udf(new ScalarFunctions.Estimate(fn, family), DataTypes.LongType), a);
                });
    }

    private static Expression build(
            Definition d, Seq<Expression> args, org.apache.spark.sql.classic.SparkSession session) {
        List<Expression> a = CollectionConverters.asJava(args);
        if (a.size() < d.minArgs() || a.size() > d.maxArgs()) {
            String want = d.minArgs() == d.maxArgs() ? "" + d.minArgs() : d.minArgs() + " or " + d.maxArgs();
            throw new IllegalArgumentException(d.name() + ": takes " + want + " arguments, not " + a.size());
        }
        return d.builder().build(d.name(), a, session);
    }

    /** A key-adding aggregate over {@code key} with the input encoder its type needs. */
    private static Expression aggregate(
            org.apache.spark.sql.classic.SparkSession session, String fn, Expression key, AggSpec spec) {
        key(fn, key.dataType());
        key = stringBytes(key);
        Encoder<Object> encoder = anyEncoder(keyEncoder(fn, key.dataType()));
        UserDefinedFunction f = functions.udaf(new SketchAggregator(spec, false), encoder).withName(fn).asNonNullable();
        return aggregateExpression(session, f, key);
    }

    /**
     * A STRING key (of any collation) as its bytes, CAST to BINARY: the UTF-8 bytes Spark holds,
     * also when they are not valid UTF-8 (a column read from a file or cast from BINARY), which a
     * Java String would have turned into U+FFFD, making such keys one key and unequal to the
     * same BINARY key or the Parquet file's BYTE_ARRAY value. Other keys are returned as they are.
     */
    private static Expression stringBytes(Expression key) {
        if (!(key.dataType() instanceof StringType)) {
            return key;
        }
        // A Cast the user did not write: column names keep showing the key as written ("sketch_hll_agg(k)").
        return new Cast(key, DataTypes.BinaryType, scala.Option.empty());
    }

    private static Expression aggregateExpression(
            org.apache.spark.sql.classic.SparkSession session, UserDefinedFunction f, Expression arg) {
        Expression e = session.expression(f.apply(ExpressionUtils.column(arg)));
        // The analyzer wraps aggregate functions itself (with DISTINCT and FILTER when given).
        return e instanceof AggregateExpression ae ? ae.aggregateFunction() : e;
    }

    private static Expression udf(
            org.apache.spark.sql.classic.SparkSession session, String fn, UserDefinedFunction f, List<Expression> args) {
        Column[] cols = new Column[args.size()];
        for (int i = 0; i < cols.length; i++) {
            cols[i] = ExpressionUtils.column(args.get(i));
        }
        return session.expression(f.withName(fn).apply(cols));
    }

    @SuppressWarnings("unchecked")
    private static Encoder<Object> anyEncoder(Encoder<?> encoder) {
        return (Encoder<Object>) encoder;
    }

    private static Encoder<?> keyEncoder(String fn, DataType type) {
        key(fn, type);
        if (type instanceof StringType) {
            return Encoders.STRING();
        }
        if (type instanceof BinaryType) {
            return Encoders.BINARY();
        }
        return Encoders.LONG();
    }

    private static void key(String fn, Expression e) {
        key(fn, e.dataType());
    }

    private static void key(String fn, DataType type) {
        if (!(type instanceof StringType || type instanceof BinaryType || type instanceof IntegralType
                || type instanceof NullType)) {
            String parquetOnly = fn.equals("sketch_sbbf_contains")
                    ? " (or, against a Parquet-mode filter, FLOAT, DOUBLE, DATE or DECIMAL)" : "";
            throw new IllegalArgumentException(fn + ": keys must be STRING, TINYINT, SMALLINT, INT, BIGINT or"
                    + " BINARY" + parquetOnly + ", not " + type.sql() + " (cast the column first)");
        }
    }

    private static void image(String fn, Expression e) {
        if (!(e.dataType() instanceof BinaryType || e.dataType() instanceof NullType)) {
            throw new IllegalArgumentException(fn + ": the image argument must be BINARY, not " + e.dataType().sql());
        }
    }

    private static Object constant(String fn, String name, Expression e) {
        if (!e.foldable()) {
            throw new IllegalArgumentException(fn + ": " + name + " must be a constant, not " + e.sql());
        }
        Object v = e.eval(null);
        if (v == null) {
            throw new IllegalArgumentException(fn + ": " + name + " must not be null");
        }
        if (v instanceof Decimal d) {
            return d.toJavaBigDecimal();
        }
        if (!(v instanceof Number)) {
            throw new IllegalArgumentException(fn + ": " + name + " must be a number, not " + e.dataType().sql());
        }
        return v;
    }

    private static double doubleParam(String fn, String name, Expression e) {
        return ((Number) constant(fn, name, e)).doubleValue();
    }

    private static long longParam(String fn, String name, Expression e) {
        Number n = (Number) constant(fn, name, e);
        double d = n.doubleValue();
        if (n instanceof Long || n instanceof Integer || n instanceof Short || n instanceof Byte) {
            return n.longValue();
        }
        if (d != Math.rint(d) || Math.abs(d) > 9.0e15) {
            throw new IllegalArgumentException(fn + ": " + name + " must be a whole number, not " + n);
        }
        return (long) d;
    }

    private static int intParam(String fn, String name, Expression e) {
        long v = longParam(fn, name, e);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(fn + ": " + name + " is out of range: " + v);
        }
        return (int) v;
    }

    private static ScalarFunctions.KeyDecoding keyDecoding(String fn, Expression e) {
        if (!e.foldable() || !(e.dataType() instanceof StringType)) {
            throw new IllegalArgumentException(
                    fn + ": key_type must be a constant string: 'string', 'long' or 'binary'");
        }
        Object v = e.eval(null);
        String s = v == null ? "" : v.toString().toLowerCase(Locale.ROOT);
        switch (s) {
            case "string":
                return ScalarFunctions.KeyDecoding.STRING;
            case "long":
                return ScalarFunctions.KeyDecoding.LONG;
            case "binary":
                return ScalarFunctions.KeyDecoding.BINARY;
            default:
                throw new IllegalArgumentException(
                        fn + ": key_type must be 'string', 'long' or 'binary', not '" + v + "'");
        }
    }

    /** The largest image a Java sketch holds: one direct ByteBuffer, 64-byte aligned. */
    private static final long MAX_IMAGE_BYTES = Integer.MAX_VALUE - 128;

    /**
     * Checks at analysis that the sketch the parameters plan can be made: the library accepts
     * them, and its image fits in one ByteBuffer (sized without allocating it).
     */
    private static void sized(String fn, Family family, java.util.function.LongSupplier imageBytes) {
        long bytes;
        try {
            bytes = imageBytes.getAsLong();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(fn + ": bad parameters: " + e.getMessage(), e);
        }
        if (bytes > MAX_IMAGE_BYTES) {
            throw new IllegalArgumentException(fn + ": the planned " + family.title + " takes " + bytes
                    + " bytes, more than one Java ByteBuffer holds (" + MAX_IMAGE_BYTES + "): plan fewer items or a"
                    + " higher rate");
        }
    }

    /**
     * Makes one sketch on the driver to check the parameters, then returns the factory.
     *
     * @throws IllegalArgumentException naming {@code fn} when the library refuses the parameters
     */
    private static AggSpec.Factory checked(String fn, AggSpec.Factory factory) {
        try {
            factory.create();
        } catch (IllegalArgumentException | dev.sketches.SketchException e) {
            throw new IllegalArgumentException(fn + ": bad parameters: " + e.getMessage(), e);
        }
        return factory;
    }
}
