package dev.sketches.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void smoke() {
        SparkSession spark = Session.get();
        spark.range(0, 1000).createOrReplaceTempView("t");
        Row r = spark.sql("SELECT sketch_hll_estimate(sketch_hll_agg(id, 12)) AS e, sketch_bloom_contains(sketch_bloom_agg(CAST(id AS STRING), 1000, 0.01), '5') AS c FROM t").first();
        System.out.println(r);
        spark.sql("SELECT id % 3 AS g, sketch_hll_agg(id, 12) AS h FROM t GROUP BY 1").createOrReplaceTempView("d");
        System.out.println(spark.sql("SELECT h FROM d").schema().treeString());
        System.out.println(spark.sql("SELECT sketch_hll_union_agg(h) AS u FROM d").schema().treeString());
        System.out.println(spark.sql("SELECT sketch_hll_estimate(sketch_hll_union_agg(h)) FROM d").first());
        System.out.println(spark.sql("SELECT sketch_topk_items(sketch_topk_agg(CAST(id % 7 AS STRING), 16, 8)) FROM t").first());
        spark.sql("SELECT sketch_bloom_agg(id, 1000, 0.01) FROM t").explain(true);
        assertEquals(1000L, r.getLong(0), 30);
    }
}
