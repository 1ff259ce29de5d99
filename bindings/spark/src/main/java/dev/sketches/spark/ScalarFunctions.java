package dev.sketches.spark;

import dev.sketches.BinaryFuseFilter;
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
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.api.java.UDF2;
import org.apache.spark.sql.catalyst.util.DateTimeUtils;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;

/**
 * The Spark UDFs behind the scalar {@code sketch_*} functions. Each keeps the last image it read
 * (compared by reference: a literal or a scalar subquery's result is the same array on every row),
 * and the functions taking a filter (the binary fuse filter included) or Count-Min image also go
 * through the executor-wide {@link ImageCache}. Null images or keys give null. Keys follow the aggregates' rule: a STRING
 * arrives as its bytes (cast to BINARY at analysis, so bytes that are not valid UTF-8 are kept),
 * integral numbers as 8 little-endian bytes, byte[] as is; except against a Parquet-mode
 * split-block Bloom filter (made by another binding, e.g. from a Parquet file's bitset), which
 * hashes a key as Spark's Parquet writer stores a column of its Spark type: STRING and BINARY as
 * BYTE_ARRAY, BIGINT as INT64, INT, SMALLINT, TINYINT and DATE (days since 1970-01-01) as INT32,
 * FLOAT and DOUBLE as their IEEE-754 bits, DECIMAL(p, s) as its unscaled value in INT32 (p up to
 * 9), INT64 (p up to 18) or a big-endian FIXED_LEN_BYTE_ARRAY of the fewest bytes that hold p
 * digits; FLOAT, DOUBLE, DATE and DECIMAL keys are refused against any other image.
 *
 * <p>Thread safety: the last-image slot is one volatile reference to an immutable pair, so an
 * instance may be shared by task threads.
 */
final class ScalarFunctions {
    private ScalarFunctions() {}

    /** The last image a reader read, and its sketch (or the answer computed from it). */
    private record Last(byte[] image, Object sketch) {}

    /** Reads images for one function, remembering the last one. */
    abstract static class ImageReader implements java.io.Serializable {
        private static final long serialVersionUID = 1L;

        final String function;
        final Family family;
        private final boolean shared;
        private transient volatile Last last;

        ImageReader(String function, Family family, boolean shared) {
            this.function = function;
            this.family = family;
            this.shared = shared;
        }

        final Object sketch(byte[] image) {
            Last l = last;
            if (l != null && l.image == image) {
                return l.sketch;
            }
            Object s = shared ? ImageCache.get(function, family, image) : SketchBuffer.read(function, family, image);
            last = new Last(image, s);
            return s;
        }

        final IllegalArgumentException badKey(Object key) {
            return new IllegalArgumentException(function + ": unsupported key of class " + key.getClass().getName());
        }
    }

    /** {@code sketch_{bloom,sbbf,counting,cuckoo,fuse}_contains(image, key)}: BOOLEAN. */
    static final class Contains extends ImageReader implements UDF2<byte[], Object, Boolean> {
        private static final long serialVersionUID = 1L;

        /** The key's SQL type, for messages. */
        private final String keyTypeSql;
        /** The precision and scale of a DECIMAL key type; 0 for other types. */
        private final int decimalPrecision;
        private final int decimalScale;

        Contains(String function, Family family, DataType keyType) {
            super(function, family, true);
            this.keyTypeSql = keyType.sql();
            this.decimalPrecision = keyType instanceof DecimalType d ? d.precision() : 0;
            this.decimalScale = keyType instanceof DecimalType d ? d.scale() : 0;
        }

        @Override
        public Boolean call(byte[] image, Object key) {
            if (image == null || key == null) {
                return null;
            }
            Object s = sketch(image);
            if (s instanceof SplitBlockBloomFilter f && f.isParquetMode()) {
                // One native call where the filter hashes the key as Parquet stores it itself (a
                // String or byte[] as BYTE_ARRAY, a long as INT64, an int as INT32); else the
                // writer's hash of the typed value.
                if (key instanceof String k) {
                    return f.contains(k);
                } else if (key instanceof byte[] k) {
                    return f.contains(k);
                } else if (key instanceof Long k) {
                    return f.contains(k.longValue());
                } else if (key instanceof Integer || key instanceof Short || key instanceof Byte) {
                    // INT, SMALLINT and TINYINT columns are INT32 in Parquet: 4 bytes hashed.
                    return f.contains(((Number) key).intValue());
                }
                return f.containsHash(parquetHash(key));
            }
            if (key instanceof Float || key instanceof Double || key instanceof BigDecimal
                    || key instanceof java.sql.Date || key instanceof LocalDate) {
                throw new IllegalArgumentException(function + ": a " + keyTypeSql + " key is hashed only"
                        + " against a Parquet-mode split-block filter (one loaded from a Parquet file's"
                        + " bitset), as the column stores it; this image is not one: cast the key to the"
                        + " type its keys were added as");
            }
            if (key instanceof String k) {
                if (s instanceof BloomFilter f) {
                    return f.contains(k);
                } else if (s instanceof SplitBlockBloomFilter f) {
                    return f.contains(k);
                } else if (s instanceof CountingBloomFilter f) {
                    return f.contains(k);
                } else if (s instanceof BinaryFuseFilter f) {
                    return f.contains(k);
                }
                return ((CuckooFilter) s).contains(k);
            } else if (key instanceof Number n) {
                long k = n.longValue();
                if (s instanceof BloomFilter f) {
                    return f.contains(k);
                } else if (s instanceof SplitBlockBloomFilter f) {
                    return f.contains(k);
                } else if (s instanceof CountingBloomFilter f) {
                    return f.contains(k);
                } else if (s instanceof BinaryFuseFilter f) {
                    return f.contains(k);
                }
                return ((CuckooFilter) s).contains(k);
            } else if (key instanceof byte[] k) {
                if (s instanceof BloomFilter f) {
                    return f.contains(k);
                } else if (s instanceof SplitBlockBloomFilter f) {
                    return f.contains(k);
                } else if (s instanceof CountingBloomFilter f) {
                    return f.contains(k);
                } else if (s instanceof BinaryFuseFilter f) {
                    return f.contains(k);
                }
                return ((CuckooFilter) s).contains(k);
            }
            throw badKey(key);
        }

        /**
         * Parquet's bloom filter hash of a FLOAT, DOUBLE, DATE or DECIMAL key as Spark's Parquet
         * writer (parquet-java, not the legacy format) stores a column of the key's type,
         * PLAIN-encoded.
         */
        private long parquetHash(Object key) {
            if (key instanceof Float k) {
                return SplitBlockBloomFilter.parquetHash(k.floatValue());
            } else if (key instanceof Double k) {
                return SplitBlockBloomFilter.parquetHash(k.doubleValue());
            } else if (key instanceof java.sql.Date d) {
                // The exact inverse of how Spark made this Date from the column's days.
                return SplitBlockBloomFilter.parquetHash(DateTimeUtils.fromJavaDate(d));
            } else if (key instanceof LocalDate d) {
                return SplitBlockBloomFilter.parquetHash(DateTimeUtils.localDateToDays(d));
            } else if (key instanceof BigDecimal d) {
                return decimalHash(d);
            }
            throw badKey(key);
        }

        /** A DECIMAL(p, s) value as Spark writes it: INT32 for p up to 9, INT64 up to 18, else bytes. */
        private long decimalHash(BigDecimal value) {
            BigInteger unscaled;
            try {
                unscaled = value.setScale(decimalScale, RoundingMode.UNNECESSARY).unscaledValue();
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException(function + ": " + value + " is not a " + keyTypeSql, e);
            }
            if (decimalPrecision <= 9) {
                return SplitBlockBloomFilter.parquetHash(unscaled.intValueExact());
            } else if (decimalPrecision <= 18) {
                return SplitBlockBloomFilter.parquetHash(unscaled.longValueExact());
            }
            byte[] minimal = unscaled.toByteArray();
            byte[] fixed = new byte[decimalBytes(decimalPrecision)];
            if (minimal.length > fixed.length) {
                throw new IllegalArgumentException(function + ": " + value + " does not fit " + keyTypeSql);
            }
            // Big-endian two's complement, sign-extended to the column's fixed length.
            java.util.Arrays.fill(fixed, 0, fixed.length - minimal.length, (byte) (unscaled.signum() < 0 ? -1 : 0));
            System.arraycopy(minimal, 0, fixed, fixed.length - minimal.length, minimal.length);
            return SplitBlockBloomFilter.parquetHash(fixed);
        }
    }

    /** The fewest bytes whose two's complement holds every unscaled value of {@code precision} digits. */
    static int decimalBytes(int precision) {
        BigInteger limit = BigInteger.TEN.pow(precision);
        int n = 1;
        while (BigInteger.ONE.shiftLeft(8 * n - 1).compareTo(limit) < 0) {
            n++;
        }
        return n;
    }

    /**
     * Whether {@code sketch_sbbf_contains} takes a key of this type only against a Parquet-mode
     * filter (a type Parquet stores but the native key rule has no bytes for).
     */
    static boolean isParquetOnlyKey(DataType type) {
        return type instanceof FloatType || type instanceof DoubleType || type instanceof DateType
                || type instanceof DecimalType;
    }

    /** {@code sketch_cms_estimate(image, key)}: BIGINT, at least the key's true count. */
    static final class CmsEstimate extends ImageReader implements UDF2<byte[], Object, Long> {
        private static final long serialVersionUID = 1L;

        CmsEstimate(String function) {
            super(function, Family.COUNT_MIN, true);
        }

        @Override
        public Long call(byte[] image, Object key) {
            if (image == null || key == null) {
                return null;
            }
            CountMinSketch s = (CountMinSketch) sketch(image);
            if (key instanceof String k) {
                return s.estimate(k);
            } else if (key instanceof Number n) {
                return s.estimate(n.longValue());
            } else if (key instanceof byte[] k) {
                return s.estimate(k);
            }
            throw badKey(key);
        }
    }

    /**
     * {@code sketch_{hll,ull,ell}_estimate(image)}: BIGINT, the distinct-count estimate rounded (for
     * ExaLogLog the binding's {@code estimate()}: martingale while the image saw one stream, else
     * maximum likelihood).
     */
    static final class Estimate extends ImageReader implements UDF1<byte[], Long> {
        private static final long serialVersionUID = 1L;

        Estimate(String function, Family family) {
            super(function, family, false);
        }

        @Override
        public Long call(byte[] image) {
            if (image == null) {
                return null;
            }
            Object s = sketch(image);
            double e;
            if (s instanceof HyperLogLog h) {
                e = h.estimate();
            } else if (s instanceof UltraLogLog u) {
                e = u.estimate();
            } else {
                e = ((ExaLogLog) s).estimate();
            }
            return Math.round(e);
        }
    }

    /** {@code sketch_jaccard(a, b)}: DOUBLE, the Jaccard similarity of two MinHash images. */
    static final class Jaccard extends ImageReader implements UDF2<byte[], byte[], Double> {
        private static final long serialVersionUID = 1L;

        Jaccard(String function) {
            super(function, Family.MINHASH, false);
        }

        @Override
        public Double call(byte[] a, byte[] b) {
            if (a == null || b == null) {
                return null;
            }
            MinHash x = (MinHash) sketch(a);
            MinHash y = (MinHash) SketchBuffer.read(function, family, b);
            try {
                return x.jaccard(y);
            } catch (dev.sketches.SketchException e) {
                throw new IllegalArgumentException(function + ": the MinHash images cannot be compared: "
                        + e.statusText() + " (they need equal k and seed)", e);
            }
        }
    }

    /**
     * A function of one image of any family (the family comes from its header): null for a null
     * image; remembers the last image it read and its answer (an image repeated by reference is
     * read once).
     */
    abstract static class AnyFamilyFunction<T> implements UDF1<byte[], T> {
        private static final long serialVersionUID = 1L;

        final String function;
        private transient volatile Last last;

        AnyFamilyFunction(String function) {
            this.function = function;
        }

        /** The answer for a non-null image of {@code image.length} bytes, read by {@link ImageStats#read}. */
        abstract T answer(ImageStats.Read read, int length);

        @Override
        @SuppressWarnings("unchecked")
        public final T call(byte[] image) {
            if (image == null) {
                return null;
            }
            Last l = last;
            if (l != null && l.image == image) {
                return (T) l.sketch;
            }
            T answer = answer(ImageStats.read(function, image), image.length);
            last = new Last(image, answer);
            return answer;
        }
    }

    /** {@code sketch_stats(image)}: the {@link ImageStats#SCHEMA} struct of an image of any family. */
    static final class Stats extends AnyFamilyFunction<Row> {
        private static final long serialVersionUID = 1L;

        Stats(String function) {
            super(function);
        }

        @Override
        Row answer(ImageStats.Read read, int length) {
            return ImageStats.row(read, length);
        }
    }

    /**
     * {@code sketch_over_capacity(image)}: BOOLEAN, {@link ImageStats#overCapacity} of an image of
     * any family (null for the families without a plan).
     */
    static final class OverCapacity extends AnyFamilyFunction<Boolean> {
        private static final long serialVersionUID = 1L;

        OverCapacity(String function) {
            super(function);
        }

        @Override
        Boolean answer(ImageStats.Read read, int length) {
            return ImageStats.overCapacity(read.sketch());
        }
    }

    /** How {@code sketch_topk_items} returns keys. */
    enum KeyDecoding {
        /** Keys as UTF-8 text (keys added as strings). */
        STRING,
        /** Keys as 8-byte little-endian integers (keys added as integers). */
        LONG,
        /** Keys as their bytes. */
        BINARY
    }

    /** {@code sketch_topk_items(image [, key_type])}: ARRAY of STRUCT(item, count, error), largest first. */
    static final class TopKItems extends ImageReader implements UDF1<byte[], List<Row>> {
        private static final long serialVersionUID = 1L;

        private final KeyDecoding decoding;

        TopKItems(String function, KeyDecoding decoding) {
            super(function, Family.TOPK, false);
            this.decoding = decoding;
        }

        @Override
        public List<Row> call(byte[] image) {
            if (image == null) {
                return null;
            }
            List<TopK.Item> items = ((TopK) sketch(image)).top();
            List<Row> rows = new ArrayList<>(items.size());
            for (TopK.Item item : items) {
                rows.add(RowFactory.create(decode(item.key()), item.count(), item.error()));
            }
            return rows;
        }

        private Object decode(byte[] key) {
            switch (decoding) {
                case STRING:
                    return new String(key, java.nio.charset.StandardCharsets.UTF_8);
                case LONG:
                    if (key.length != 8) {
                        throw new IllegalArgumentException(function + ": a key of " + key.length
                                + " bytes is not an 8-byte integer (use key_type 'string' or 'binary')");
                    }
                    return ByteBuffer.wrap(key).order(ByteOrder.LITTLE_ENDIAN).getLong();
                default:
                    return key;
            }
        }
    }
}
