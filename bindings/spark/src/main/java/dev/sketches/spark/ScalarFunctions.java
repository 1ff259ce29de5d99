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
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;
import org.apache.spark.sql.api.java.UDF2;

/**
 * The Spark UDFs behind the scalar {@code sketch_*} functions. Each keeps the last image it read
 * (compared by reference: a literal or a scalar subquery's result is the same array on every row),
 * and the functions taking a filter (the binary fuse filter included) or Count-Min image also go
 * through the executor-wide {@link ImageCache}. Null images or keys give null. Keys follow the aggregates' rule: String as UTF-8,
 * integral numbers as 8 little-endian bytes, byte[] as is; except against a Parquet-mode
 * split-block Bloom filter (made by another binding, e.g. from a Parquet file's bitset), which
 * hashes a key as Parquet stores a column of its Spark type: STRING and BINARY as BYTE_ARRAY,
 * BIGINT as INT64, INT, SMALLINT and TINYINT as INT32 (4 bytes).
 *
 * <p>Thread safety: the last-image slot is one volatile reference to an immutable pair, so an
 * instance may be shared by task threads.
 */
final class ScalarFunctions {
    private ScalarFunctions() {}

    /** Last image read by one UDF instance and its sketch. */
    /** The last image a reader read, its sketch, and whether that is a Parquet-mode split-block filter. */
    private record Last(byte[] image, Object sketch, boolean parquet) {}

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
            last = new Last(image, s, s instanceof SplitBlockBloomFilter && isParquetMode(image));
            return s;
        }

        /**
         * Whether {@code image} (a split-block filter image already read by {@link #sketch}) is in
         * Parquet mode: remembered with the last image, else read from its header again.
         */
        final boolean parquetMode(byte[] image) {
            Last l = last;
            return l != null && l.image == image ? l.parquet : isParquetMode(image);
        }

        final IllegalArgumentException badKey(Object key) {
            return new IllegalArgumentException(function + ": unsupported key of class " + key.getClass().getName());
        }
    }

    /** {@code sketch_{bloom,sbbf,counting,cuckoo,fuse}_contains(image, key)}: BOOLEAN. */
    static final class Contains extends ImageReader implements UDF2<byte[], Object, Boolean> {
        private static final long serialVersionUID = 1L;

        Contains(String function, Family family) {
            super(function, family, true);
        }

        @Override
        public Boolean call(byte[] image, Object key) {
            if (image == null || key == null) {
                return null;
            }
            Object s = sketch(image);
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
                    if (!(n instanceof Long) && parquetMode(image)) {
                        // INT, SMALLINT and TINYINT columns are INT32 in Parquet: 4 bytes hashed.
                        return f.containsHash(SplitBlockBloomFilter.parquetHash(n.intValue()));
                    }
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
    }

    /** The hash id of XXH64, which Parquet-mode split-block filters use ({@link dev.sketches.Sketches.ImageInfo#hash}). */
    private static final int HASH_XXH64 = 2;

    /** Whether a split-block Bloom filter image (its header already checked) is in Parquet mode. */
    static boolean isParquetMode(byte[] image) {
        return dev.sketches.Sketches.inspect(image).hash() == HASH_XXH64;
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
