"""Sketches as Spark SQL functions from PySpark.

The functions live in the JVM (the ``dev.sketches:sketches-spark_2.13`` jar and the Java
binding ``dev.sketches:sketches``, both on the driver's and executors' class path, e.g. with
``--jars`` or ``spark.jars``). :func:`register` calls ``dev.sketches.spark.Sketches.register``
through the Py4J gateway, after which ``spark.sql`` and the helpers below can use them.

Images are BINARY columns holding the bytes every sketches binding reads (C, C++, Go, Java,
Python). Keys: strings hash as UTF-8, integers as 8 little-endian bytes, binaries as is (against a
Parquet-mode split-block filter image, as Spark's Parquet writer stores the column: INT, SMALLINT,
TINYINT and DATE as INT32, FLOAT and DOUBLE as their IEEE-754 bits, DECIMAL as its unscaled value;
FLOAT, DOUBLE, DATE and DECIMAL keys are taken only there); null keys are skipped.
"""

import math
import numbers

from py4j.java_gateway import JavaPackage
from pyspark.sql import Column, SparkSession
from pyspark.sql import functions as F

__all__ = [
    "register",
    "bloom_agg",
    "sbbf_agg",
    "counting_agg",
    "cuckoo_agg",
    "hll_agg",
    "ull_agg",
    "ell_agg",
    "cms_agg",
    "topk_agg",
    "minhash_agg",
    "fuse_agg",
    "union_agg",
    "bloom_contains",
    "sbbf_contains",
    "counting_contains",
    "cuckoo_contains",
    "fuse_contains",
    "hll_estimate",
    "ull_estimate",
    "ell_estimate",
    "cms_estimate",
    "topk_items",
    "jaccard",
    "stats",
    "over_capacity",
]


def register(spark: SparkSession) -> None:
    """Registers every ``sketch_*`` function in ``spark`` (a classic, non-Connect session).

    Raises ``RuntimeError`` when the sketches jars are not on the driver's class path (add both
    with ``spark-submit --jars`` or ``--packages``, or ``spark.jars``, before the session starts).
    """
    sketches = spark._jvm.dev.sketches.spark.Sketches
    if isinstance(sketches, JavaPackage):
        # Py4J's placeholder for a name it found no class for: calling it raised the cryptic
        # "TypeError: 'JavaPackage' object is not callable".
        raise RuntimeError(
            "sketches_spark.register: the class dev.sketches.spark.Sketches is not on the Spark driver's"
            " class path: add the jars dev.sketches:sketches-spark_2.13 and dev.sketches:sketches"
            " (spark-submit --jars or --packages, or spark.jars) before the session starts"
        )
    sketches.register(spark._jsparkSession)


def _col(c):
    return F.col(c) if isinstance(c, str) else c


def _whole(function: str, name: str, value) -> int:
    """``value`` as an int for a whole-number parameter of ``function`` (as the SQL function checks).

    Accepts ints (NumPy's too) and whole floats (``1e6``); raises ``TypeError`` for booleans,
    strings and other non-numbers and ``ValueError`` for a float that is not whole (``12.5``:
    ``int()`` silently made it 12), both naming the function and parameter.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s: %s must be a whole number, not %r" % (function, name, value))
    if isinstance(value, numbers.Integral):
        return int(value)
    v = float(value)
    if not math.isfinite(v) or not v.is_integer():
        raise ValueError("%s: %s must be a whole number, not %r" % (function, name, value))
    return int(v)


def _real(function: str, name: str, value) -> float:
    """``value`` as a float for a real parameter of ``function``.

    Raises ``TypeError`` naming the function for booleans, strings and other non-numbers (the SQL
    function checks the range).
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s: %s must be a number, not %r" % (function, name, value))
    return float(value)


def bloom_agg(key, items: int, fpp: float) -> Column:
    """``sketch_bloom_agg(key, items, fpp)``: Bloom filter image of the keys (BINARY)."""
    return F.call_function(
        "sketch_bloom_agg", _col(key),
        F.lit(_whole("sketch_bloom_agg", "items", items)),
        F.lit(_real("sketch_bloom_agg", "fpp", fpp)),
    )


def sbbf_agg(key, items: int, fpp: float) -> Column:
    """``sketch_sbbf_agg(key, items, fpp)``: split-block Bloom filter image of the keys."""
    return F.call_function(
        "sketch_sbbf_agg", _col(key),
        F.lit(_whole("sketch_sbbf_agg", "items", items)),
        F.lit(_real("sketch_sbbf_agg", "fpp", fpp)),
    )


def counting_agg(key, items: int, fpp: float) -> Column:
    """``sketch_counting_agg(key, items, fpp)``: counting Bloom filter image of the keys."""
    return F.call_function(
        "sketch_counting_agg", _col(key),
        F.lit(_whole("sketch_counting_agg", "items", items)),
        F.lit(_real("sketch_counting_agg", "fpp", fpp)),
    )


def cuckoo_agg(key, items: int, fpp: float) -> Column:
    """``sketch_cuckoo_agg(key, items, fpp)``: cuckoo filter image of the keys.

    A key is stored once per input partition that holds it, so when keys repeat across partitions
    de-duplicate them first (``df.select(k).distinct().agg(cuckoo_agg(k, ...))``, or SQL
    ``sketch_cuckoo_agg(DISTINCT key, ...)``), else the filter fills up and the query fails.
    """
    return F.call_function(
        "sketch_cuckoo_agg", _col(key),
        F.lit(_whole("sketch_cuckoo_agg", "items", items)),
        F.lit(_real("sketch_cuckoo_agg", "fpp", fpp)),
    )


def hll_agg(key, p: int) -> Column:
    """``sketch_hll_agg(key, p)``: HyperLogLog image with 2^p registers (p in 4..18)."""
    return F.call_function("sketch_hll_agg", _col(key), F.lit(_whole("sketch_hll_agg", "p", p)))


def ull_agg(key, p: int) -> Column:
    """``sketch_ull_agg(key, p)``: UltraLogLog image with 2^p registers (p in 4..18)."""
    return F.call_function("sketch_ull_agg", _col(key), F.lit(_whole("sketch_ull_agg", "p", p)))


def ell_agg(key, p: int, d: int = 20) -> Column:
    """``sketch_ell_agg(key, p, d)``: ExaLogLog image with 2^p registers (p in 2..24, d 20 or 24)."""
    return F.call_function(
        "sketch_ell_agg", _col(key),
        F.lit(_whole("sketch_ell_agg", "p", p)),
        F.lit(_whole("sketch_ell_agg", "d", d)),
    )


def cms_agg(key, eps: float, delta: float) -> Column:
    """``sketch_cms_agg(key, eps, delta)``: Count-Min image of the keys."""
    return F.call_function(
        "sketch_cms_agg", _col(key),
        F.lit(_real("sketch_cms_agg", "eps", eps)),
        F.lit(_real("sketch_cms_agg", "delta", delta)),
    )


def topk_agg(key, capacity: int, max_key_len: int) -> Column:
    """``sketch_topk_agg(key, capacity, max_key_len)``: Top-k image of the keys."""
    return F.call_function(
        "sketch_topk_agg", _col(key),
        F.lit(_whole("sketch_topk_agg", "capacity", capacity)),
        F.lit(_whole("sketch_topk_agg", "max_key_len", max_key_len)),
    )


def minhash_agg(key, k: int) -> Column:
    """``sketch_minhash_agg(key, k)``: MinHash image with k registers."""
    return F.call_function(
        "sketch_minhash_agg", _col(key),
        F.lit(_whole("sketch_minhash_agg", "k", k)),
    )


def fuse_agg(key, bits: int) -> Column:
    """``sketch_fuse_agg(key, bits)``: binary fuse filter image (bits 8 or 16) of the distinct keys.

    The filter is static: there is no union aggregate (build it from the union of the keys).
    """
    return F.call_function(
        "sketch_fuse_agg", _col(key),
        F.lit(_whole("sketch_fuse_agg", "bits", bits)),
    )


def union_agg(family: str, images) -> Column:
    """``sketch_<family>_union_agg(images)``: merge of a BINARY column of one family's images.

    ``family`` is one of bloom, sbbf, counting, cuckoo, hll, ull, ell, cms, topk, minhash (not
    fuse: binary fuse filters do not merge). Raises ``ValueError`` for fuse or an unknown family.
    """
    f = family.lower()
    if f == "fuse":
        raise ValueError(
            "no union aggregate for family fuse: binary fuse filters are static and do not merge"
            " (build one filter from the union of the keys with fuse_agg)"
        )
    if f not in _UNION_FAMILIES:
        raise ValueError("no union aggregate for family %s" % family)
    return F.call_function("sketch_%s_union_agg" % f, _col(images))


_UNION_FAMILIES = ("bloom", "sbbf", "counting", "cuckoo", "hll", "ull", "ell", "cms", "topk", "minhash")


def _image(image) -> Column:
    """A column from bytes (a literal: read once per executor) or a column name/Column."""
    if isinstance(image, (bytes, bytearray)):
        return F.lit(bytes(image))
    return _col(image)


def bloom_contains(image, key) -> Column:
    """``sketch_bloom_contains(image, key)``: false when the key was certainly never added."""
    return F.call_function("sketch_bloom_contains", _image(image), _col(key))


def sbbf_contains(image, key) -> Column:
    """``sketch_sbbf_contains(image, key)``: false when the key was certainly never added.

    Against a Parquet-mode image (a Parquet file's bitset) the key hashes as the file stores a
    column of its Spark type, so cast it to the column's type.
    """
    return F.call_function("sketch_sbbf_contains", _image(image), _col(key))


def counting_contains(image, key) -> Column:
    """``sketch_counting_contains(image, key)``: false when the key is certainly not held."""
    return F.call_function("sketch_counting_contains", _image(image), _col(key))


def cuckoo_contains(image, key) -> Column:
    """``sketch_cuckoo_contains(image, key)``: false when the key is certainly not held."""
    return F.call_function("sketch_cuckoo_contains", _image(image), _col(key))


def fuse_contains(image, key) -> Column:
    """``sketch_fuse_contains(image, key)``: false when the key was certainly not built in."""
    return F.call_function("sketch_fuse_contains", _image(image), _col(key))


def hll_estimate(image) -> Column:
    """``sketch_hll_estimate(image)``: distinct-count estimate (BIGINT)."""
    return F.call_function("sketch_hll_estimate", _image(image))


def ull_estimate(image) -> Column:
    """``sketch_ull_estimate(image)``: distinct-count estimate (BIGINT)."""
    return F.call_function("sketch_ull_estimate", _image(image))


def ell_estimate(image) -> Column:
    """``sketch_ell_estimate(image)``: distinct-count estimate (BIGINT) of an ExaLogLog image."""
    return F.call_function("sketch_ell_estimate", _image(image))


def cms_estimate(image, key) -> Column:
    """``sketch_cms_estimate(image, key)``: Count-Min estimate of the key's count (BIGINT)."""
    return F.call_function("sketch_cms_estimate", _image(image), _col(key))


def topk_items(image, key_type: str = "string") -> Column:
    """``sketch_topk_items(image, key_type)``: ARRAY<STRUCT<item, count, error>>, largest first."""
    return F.call_function("sketch_topk_items", _image(image), F.lit(key_type))


def jaccard(a, b) -> Column:
    """``sketch_jaccard(a, b)``: Jaccard similarity of two MinHash images (DOUBLE)."""
    return F.call_function("sketch_jaccard", _image(a), _image(b))


def stats(image) -> Column:
    """``sketch_stats(image)``: STRUCT describing an image of any family (null for a null image).

    One struct type for every family (``family``, ``size_bytes``, ``seed``, the filters'
    ``planned_items``, ``planned_fpp``, ``items``, ``fill_ratio``, ``expected_fpp``,
    ``capacity_flags``, ``over_capacity``, the distinct counters' ``estimate`` and
    ``standard_error``, Count-Min's ``width``, ``depth``, ``total``, ``error_bound``, Top-k's
    ``capacity``, ``used``, MinHash's ``registers``, ...); a field the family does not have is null.
    ``spark.sql("DESCRIBE FUNCTION sketch_stats")`` lists every field.
    """
    return F.call_function("sketch_stats", _image(image))


def over_capacity(image) -> Column:
    """``sketch_over_capacity(image)``: BOOLEAN, whether the sketch is past its plan.

    Bloom and split-block filters: the keys estimated from the set bits above the plan, or the
    false-positive rate expected at the current fill above twice the planned one; counting and
    cuckoo filters: a capacity flag is raised; fuse: false; Top-k: a key was evicted (or dropped
    by a merge); null for hll, ull, ell, cms and minhash images (no plan) and for a null image.
    """
    return F.call_function("sketch_over_capacity", _image(image))
