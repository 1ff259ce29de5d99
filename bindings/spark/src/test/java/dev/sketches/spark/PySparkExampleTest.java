package dev.sketches.spark;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs examples/seed_examples.py (the seed's PySpark examples with the sketches functions) when
 * the Python found ({@code sketches.python}, default python3) can import pyspark; skipped
 * otherwise. The example starts its own Spark JVM with this module's classes and the Java
 * binding's jar on the driver class path.
 */
class PySparkExampleTest {
    @Test
    void seedExamples() throws Exception {
        String python = pythonWithPyspark();
        String classes = location(Sketches.class);
        String binding = location(dev.sketches.BloomFilter.class);
        Path base = Paths.get(System.getProperty("basedir", "."));
        ProcessBuilder pb = new ProcessBuilder(python, base.resolve("examples/seed_examples.py").toString())
                .redirectErrorStream(true);
        pb.environment().put("SKETCHES_SPARK_CLASSPATH", classes + File.pathSeparator + binding);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), "the example did not finish");
        System.out.print(out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("all examples passed"), out);
    }

    /**
     * The Python union_agg refuses fuse (and unknown families) with a ValueError as the Java
     * helper does, before Spark reports an unresolved routine.
     */
    @Test
    void pythonUnionAggRejectsFuse() throws Exception {
        String script = "import sketches_spark as sk\n"
                + "for fam in ('fuse', 'bogus'):\n"
                + "    try:\n"
                + "        sk.union_agg(fam, 'img')\n"
                + "    except ValueError as e:\n"
                + "        assert 'no union aggregate for family ' + fam in str(e), e\n"
                + "    else:\n"
                + "        raise SystemExit('no ValueError for ' + fam)\n"
                + "print('ok')\n";
        String out = runScript(script, Map.of());
        assertTrue(out.contains("ok"), out);
    }

    /**
     * Every SQL function (but the union aggregates, one union_agg) has a Python wrapper named after
     * it that calls it, with the SQL arguments in the same order and names, the optional ones with
     * defaults: counting_agg, cuckoo_agg and the sbbf, counting and cuckoo contains had none.
     */
    @Test
    void pythonWrapsEveryFunction() throws Exception {
        StringBuilder usages = new StringBuilder();
        for (String name : Sketches.functionNames()) {
            usages.append(Sketches.usage(name)).append('\n');
        }
        String script = "import inspect, os, re, sketches_spark as sk\n"
                + "bad = []\n"
                + "for usage in os.environ['SKETCHES_USAGES'].splitlines():\n"
                + "    m = re.match(r'sketch_(\\w+)\\(([^)]*)\\)', usage)\n"
                + "    name, args = m.group(1), m.group(2)\n"
                + "    if name.endswith('_union_agg'):\n"
                + "        continue\n"
                + "    fn = getattr(sk, name, None)\n"
                + "    if fn is None or name not in sk.__all__:\n"
                + "        bad.append('no wrapper ' + name); continue\n"
                + "    required, _, optional = args.partition('[')\n"
                + "    req = [a.strip() for a in required.split(',') if a.strip()]\n"
                + "    opt = [a.strip() for a in optional.replace(']', '').split(',') if a.strip()]\n"
                + "    params = inspect.signature(fn).parameters\n"
                + "    if list(params) != req + opt:\n"
                + "        bad.append('%s%s is not sketch_%s(%s)' % (name, list(params), name, args))\n"
                + "    elif any(params[a].default is inspect.Parameter.empty for a in opt):\n"
                + "        bad.append(name + ': optional arguments without defaults')\n"
                + "    elif '\"sketch_%s\"' % name not in inspect.getsource(fn):\n"
                + "        bad.append(name + ' does not call sketch_' + name)\n"
                + "print(bad or 'ok')\n";
        String out = runScript(script, Map.of("SKETCHES_USAGES", usages.toString()));
        assertEquals("ok", out.strip(), out);
    }

    /**
     * The Python helpers pass whole-number parameters on only when they are whole numbers, as the
     * SQL functions check them ("p must be a whole number"): int(p) made hll_agg(k, 12.5) a
     * p = 12 sketch, bloom_agg(k, 1000.9, ...) one planned for 1000 keys and True a 1, silently.
     * Whole floats (1e6) pass as integers; booleans and strings are refused for every number.
     */
    @Test
    void pythonHelpersRefuseNonWholeParameters() throws Exception {
        String script = "import sketches_spark as sk\n"
                + "calls = []\n"
                + "sk.F.lit = lambda v: ('lit', v)\n"
                + "sk.F.col = lambda c: ('col', c)\n"
                + "sk.F.call_function = lambda name, *a: calls.append((name, a)) or name\n"
                + "bad = [lambda: sk.hll_agg('k', 12.5), lambda: sk.bloom_agg('k', 1000.9, 0.01),\n"
                + "       lambda: sk.topk_agg('k', True, 8), lambda: sk.ell_agg('k', 12, 20.5),\n"
                + "       lambda: sk.minhash_agg('k', '64'), lambda: sk.cms_agg('k', '0.01', 0.01),\n"
                + "       lambda: sk.bloom_agg('k', 100, True), lambda: sk.fuse_agg('k', float('nan'))]\n"
                + "for i, f in enumerate(bad):\n"
                + "    try:\n"
                + "        f()\n"
                + "    except (ValueError, TypeError) as e:\n"
                + "        assert str(e).startswith('sketch_'), e\n"
                + "    else:\n"
                + "        raise SystemExit('no error for case %d: %r' % (i, calls[-1]))\n"
                + "sk.bloom_agg('k', 1e6, 0.01); sk.hll_agg('k', 12.0); sk.cms_agg('k', 1, 0.5)\n"
                + "assert calls == [('sketch_bloom_agg', (('col', 'k'), ('lit', 1000000), ('lit', 0.01))),\n"
                + "                 ('sketch_hll_agg', (('col', 'k'), ('lit', 12))),\n"
                + "                 ('sketch_cms_agg', (('col', 'k'), ('lit', 1.0), ('lit', 0.5)))], calls\n"
                + "assert all(type(a[1]) is int for a in calls[0][1][1:2] + calls[1][1][1:]), calls\n"
                + "print('ok')\n";
        String out = runScript(script, Map.of());
        assertEquals("ok", out.strip(), out);
    }

    /**
     * register in a session whose driver lacks the jars says so, naming the class and how to add
     * them: it raised Py4J's "TypeError: 'JavaPackage' object is not callable" (py4j gives a
     * package placeholder for a class it cannot find).
     */
    @Test
    void pythonRegisterWithoutTheJars() throws Exception {
        String script = "from py4j.java_gateway import JavaPackage\n"
                + "import sketches_spark as sk\n"
                + "class O: pass\n"
                + "spark = O(); spark._jsparkSession = None; spark._jvm = O(); spark._jvm.dev = O()\n"
                + "spark._jvm.dev.sketches = O(); spark._jvm.dev.sketches.spark = O()\n"
                + "spark._jvm.dev.sketches.spark.Sketches = JavaPackage('dev.sketches.spark.Sketches', None)\n"
                + "try:\n"
                + "    sk.register(spark)\n"
                + "except RuntimeError as e:\n"
                + "    assert 'dev.sketches.spark.Sketches is not on the Spark driver' in str(e), e\n"
                + "    assert '--jars' in str(e), e\n"
                + "    print('ok')\n";
        String out = runScript(script, Map.of());
        assertEquals("ok", out.strip(), out);
    }

    /** The Python of {@code sketches.python} (default python3); the test is skipped without pyspark. */
    private static String pythonWithPyspark() {
        String python = System.getProperty("sketches.python", "python3");
        assumeTrue(run(python, "-c", "import pyspark") == 0, "pyspark is not installed for " + python);
        return python;
    }

    /**
     * Runs {@code python -c script} with this module's Python package on PYTHONPATH and {@code
     * env} added; returns its output once it exited with 0 (skipped without pyspark).
     */
    private static String runScript(String script, Map<String, String> env) throws Exception {
        String python = pythonWithPyspark();
        Path base = Paths.get(System.getProperty("basedir", "."));
        ProcessBuilder pb = new ProcessBuilder(python, "-c", script).redirectErrorStream(true);
        pb.environment().put("PYTHONPATH", base.resolve("python").toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(2, TimeUnit.MINUTES), "python did not finish");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static String location(Class<?> c) throws Exception {
        return Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }

    private static int run(String... cmd) {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor();
        } catch (java.io.IOException | InterruptedException e) {
            return -1;
        }
    }
}
