package dev.sketches.spark;

import org.apache.spark.sql.SparkSession;

/** The one local[2] SparkSession every test class shares (made on first use, stopped at JVM exit). */
final class Session {
    private static SparkSession spark;

    private Session() {}

    static synchronized SparkSession get() {
        if (spark == null) {
            spark = SparkSession.builder()
                    .master("local[2]")
                    .appName("sketches-spark-tests")
                    .config("spark.ui.enabled", "false")
                    .config("spark.sql.shuffle.partitions", "4")
                    .config("spark.default.parallelism", "4")
                    .config("spark.driver.host", "127.0.0.1")
                    .config("spark.driver.bindAddress", "127.0.0.1")
                    .config("spark.sql.debug.maxToStringFields", "500")
                    .getOrCreate();
            spark.sparkContext().setLogLevel("WARN");
            Sketches.register(spark);
            Runtime.getRuntime().addShutdownHook(new Thread(spark::stop));
        }
        return spark;
    }
}
