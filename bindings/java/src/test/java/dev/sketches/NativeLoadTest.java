package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The native library comes from the jar's resources (os-arch path), is extracted under a name
 * carrying its content hash, and can be replaced with -Ddev.sketches.native.path (checked in
 * child JVMs, since a JVM loads it once).
 */
class NativeLoadTest {
    /** Entry point of the child JVMs: prints the native version. */
    public static void main(String[] args) {
        System.out.println("native " + Sketches.nativeVersion());
    }

    private static String run(String... props) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        if (Runtime.version().feature() >= 22) {
            cmd.add("--enable-native-access=ALL-UNNAMED");
        }
        cmd.addAll(List.of(props));
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(NativeLoadTest.class.getName());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return out;
    }

    @Test
    void loadsFromTheJarResourcesUnderAContentHashName() throws IOException {
        String resource = "native/" + Native.platform() + "/libsketches_jni.so";
        assertNotNull(Native.class.getResource(resource), resource);
        Native.load();
        Path tmp = Paths.get(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> files = Files.list(tmp)) {
            assertTrue(files.anyMatch(f -> f.getFileName().toString()
                    .matches("dev\\.sketches-" + Sketches.VERSION.replace(".", "\\.") + "-[0-9a-f]{16}-libsketches_jni\\.so")));
        }
    }

    @Test
    void thePathPropertyOverridesTheJar() throws Exception {
        Path lib;
        try (Stream<Path> files = Files.list(Paths.get(System.getProperty("java.io.tmpdir")))) {
            lib = files.filter(f -> f.getFileName().toString().startsWith("dev.sketches-" + Sketches.VERSION))
                    .filter(f -> f.getFileName().toString().endsWith(".so")).findFirst().orElseThrow();
        }
        String ok = run("-D" + Native.PATH_PROPERTY + "=" + lib);
        assertTrue(ok.contains("native " + Sketches.nativeVersion()), ok);
        String bad = run("-D" + Native.PATH_PROPERTY + "=/nonexistent/libsketches_jni.so");
        assertTrue(bad.contains("UnsatisfiedLinkError") && bad.contains("/nonexistent/"), bad);
        assertEquals(-1, ok.indexOf("WARNING"), ok);
    }
}
