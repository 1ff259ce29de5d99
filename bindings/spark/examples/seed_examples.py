"""The seed's PySpark examples with the sketches functions: Bloom de-duplication of orders, a
Bloom-filter pre-filtered join, approximate distinct counts, and the health of unioned daily
filters (sketch_stats, sketch_over_capacity).

Run with the two jars on the class path, for example:

    spark-submit --jars sketches-spark_2.13-0.1.0.jar,sketches-0.1.0.jar examples/seed_examples.py

or, from a checkout (what the Spark tests do when pyspark is installed):

    SKETCHES_SPARK_CLASSPATH=bindings/spark/target/classes:$HOME/.m2/repository/dev/sketches/sketches/0.1.0/sketches-0.1.0.jar \
    PYTHONPATH=bindings/spark/python python3 bindings/spark/examples/seed_examples.py

Every section checks its result and the script exits non-zero when one is wrong.
"""

import os
import sys

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import sketches_spark as sk  # noqa: E402


def session():
    builder = SparkSession.builder.master(os.environ.get("SPARK_MASTER", "local[2]")).appName("sketches-seed-examples")
    builder = builder.config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "4")
    builder = builder.config("spark.ui.showConsoleProgress", "false")
    cp = os.environ.get("SKETCHES_SPARK_CLASSPATH")
    if cp:
        builder = builder.config("spark.driver.extraClassPath", cp).config("spark.executor.extraClassPath", cp)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    sk.register(spark)
    return spark


def order_dedup(spark):
    """Orders with repeats: yesterday's orders are in a Bloom filter; today keeps each order's
    first row unless the filter says it was seen before."""
    yesterday = spark.createDataFrame([("order_000",), ("order_001",)], ["order_id"])
    today = spark.createDataFrame(
        [
            ("order_001", "user_1", 100, "2024-01-01 10:00:00"),
            ("order_002", "user_2", 200, "2024-01-01 10:01:00"),
            ("order_001", "user_1", 100, "2024-01-01 10:02:00"),
            ("order_003", "user_3", 150, "2024-01-01 10:03:00"),
            ("order_002", "user_2", 200, "2024-01-01 10:04:00"),
            ("order_004", "user_4", 300, "2024-01-01 10:05:00"),
            ("order_005", "user_5", 180, "2024-01-01 10:06:00"),
        ],
        ["order_id", "user_id", "amount", "create_time"],
    )
    seen = yesterday.agg(sk.bloom_agg("order_id", 100_000, 0.01)).first()[0]
    firsts = today.groupBy("order_id").agg(F.min("create_time").alias("create_time"))
    new_orders = firsts.where(~sk.bloom_contains(seen, "order_id")).orderBy("order_id")
    new_orders.show()
    got = [r.order_id for r in new_orders.collect()]
    assert got == ["order_002", "order_003", "order_004", "order_005"], got
    # The filter rolls forward: today's orders merged into yesterday's.
    today_filter = today.agg(sk.bloom_agg("order_id", 100_000, 0.01).alias("f"))
    rolled = today_filter.union(spark.createDataFrame([(seen,)], ["f"])).agg(sk.union_agg("bloom", "f")).first()[0]
    assert spark.range(1).select(sk.bloom_contains(rolled, F.lit("order_005"))).first()[0]
    print("order dedup: %d new orders of %d rows" % (len(got), today.count()))


def bloom_join(spark):
    """A fact table pre-filtered by the Bloom filter of a filtered dimension table."""
    spark.range(0, 20_000).selectExpr("id AS product_id", "id % 50 AS category").createOrReplaceTempView("dim_product")
    spark.range(0, 500_000).selectExpr("id AS order_id", "pmod(xxhash64(id), 20000) AS product_id").createOrReplaceTempView(
        "fact_orders"
    )
    small = spark.sql("SELECT product_id FROM dim_product WHERE category = 3")
    image = small.agg(sk.bloom_agg("product_id", 400, 0.01)).first()[0]
    large = spark.table("fact_orders")
    filtered = large.where(sk.bloom_contains(image, "product_id"))
    joined = filtered.join(small, "product_id")
    plain = large.join(small, "product_id")
    assert joined.count() == plain.count()
    assert joined.exceptAll(plain).count() == 0 and plain.exceptAll(joined).count() == 0
    print("bloom join: %d of %d fact rows reach the join, %d joined" % (filtered.count(), large.count(), joined.count()))


def approx_distinct(spark):
    """Distinct users: approx_count_distinct against the HyperLogLog image (p = 12)."""
    df = spark.range(0, 100_000).selectExpr("concat('user_', id % 10000) AS user_id")
    row = df.agg(
        F.approx_count_distinct("user_id", 0.02).alias("spark"),
        sk.hll_estimate(sk.hll_agg("user_id", 12)).alias("hll"),
        sk.ull_estimate(sk.ull_agg("user_id", 12)).alias("ull"),
    ).first()
    print("approx distinct of 10000: approx_count_distinct %d, sketch_hll %d, sketch_ull %d" % (row.spark, row.hll, row.ull))
    for v in (row.spark, row.hll, row.ull):
        assert abs(v - 10000) < 650, v


def filter_health(spark):
    """Daily Bloom filters planned for 2,000 users a day, unioned over the days: with 5x the
    traffic the union is past its plan and sketch_stats shows its expected false-positive rate far
    above the planned 1%; at half the traffic it is within plan."""
    for users, over in ((10_000, True), (1_000, False)):
        daily = spark.range(0, users, 1, 4).selectExpr("id % 5 AS day", "id AS user_id")
        days = daily.groupBy("day").agg(sk.bloom_agg("user_id", 2_000, 0.01).alias("users"))
        s = days.agg(sk.union_agg("bloom", "users").alias("u")).select(
            sk.stats("u").alias("s"), sk.over_capacity("u").alias("over")
        ).first()
        print(
            "filter health, %d users: over capacity %s, expected fpp %.4f (planned %.2f), flags %s"
            % (users, s.over, s.s.expected_fpp, s.s.planned_fpp, s.s.capacity_flags)
        )
        assert s.over is over, s
        assert s.s.family == "bloom" and s.s.planned_items == 2_000, s
        assert (s.s.expected_fpp > 0.3) if over else (s.s.expected_fpp < 0.01), s
    # One struct type across families: the estimate and its standard error next to it.
    h = spark.range(0, 50_000).agg(sk.hll_agg("id", 12).alias("h")).select(sk.stats("h").alias("s")).first().s
    assert h.family == "hll" and h.expected_fpp is None and abs(h.estimate - 50_000) < 4 * h.standard_error * 50_000, h
    print("hll: estimate %.0f, relative standard error %.4f" % (h.estimate, h.standard_error))


def main():
    spark = session()
    try:
        order_dedup(spark)
        bloom_join(spark)
        approx_distinct(spark)
        filter_health(spark)
    finally:
        spark.stop()
    print("all examples passed")


if __name__ == "__main__":
    main()
