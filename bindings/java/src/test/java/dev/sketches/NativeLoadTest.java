package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The native library comes from the jar's resources (os-arch path), is extracted under a name
 * carrying its content hash, and can be replaced with -Ddev.sketches.native.path (checked in
 * child JVMs, since a JVM loads it once).
 */
class NativeLoadTest {
    /**
     * Entry point of the child JVMs: prints the native version, then the file the library was
     * mapped from (/proc/self/maps) and its permissions as this process sees them.
     */
    public static void main(String[] args) throws IOException {
        System.out.println("native " + Sketches.nativeVersion());
        for (String line : Files.readAllLines(Paths.get("/proc/self/maps"))) {
            int at = line.indexOf('/');
            if (at >= 0 && line.contains("sketches")) {
                Path lib = Paths.get(line.substring(at));
                System.out.println("loaded " + lib + " " + PosixFilePermissions.toString(Files.getPosixFilePermissions(lib)));
                break;
            }
        }
    }

    /** The name the loader gives the jar's library in the temporary directory. */
    private static String extractedName() throws IOException, NoSuchAlgorithmException {
        String resource = "native/" + Native.platform() + "/libsketches_jni.so";
        byte[] bytes;
        try (InputStream in = Native.class.getResourceAsStream(resource)) {
            bytes = in.readAllBytes();
        }
        StringBuilder hex = new StringBuilder();
        for (byte b : MessageDigest.getInstance("SHA-256").digest(bytes)) {
            hex.append(String.format("%02x", b));
        }
        return "dev.sketches-" + Sketches.VERSION + "-" + hex.substring(0, 16) + "-libsketches_jni.so";
    }

    /** The path and permissions the child printed on its "loaded" line. */
    private static String[] loaded(String out) {
        for (String line : out.split("\n")) {
            if (line.startsWith("loaded ")) {
                return line.substring(7).trim().split(" ");
            }
        }
        throw new AssertionError("no loaded line in: " + out);
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

    /**
     * The binding's classes loaded again by other class loaders in the same JVM (an application
     * server's redeploy, a Spark session's or plugin's loader): the JVM binds a library file to the
     * class loader that loaded it first, and System.load of the same extracted file threw
     * UnsatisfiedLinkError ("already loaded in another classloader"), so the second loader's
     * classes could not initialize. Each further loader now loads a private copy, removed once
     * loaded.
     */
    @Test
    void otherClassLoadersLoadTheLibraryToo() throws Exception {
        Native.load();
        java.net.URL classes = Native.class.getProtectionDomain().getCodeSource().getLocation();
        Path tmp = Paths.get(System.getProperty("java.io.tmpdir"));
        for (int i = 0; i < 2; i++) {
            try (java.net.URLClassLoader other =
                    new java.net.URLClassLoader(new java.net.URL[] {classes}, ClassLoader.getPlatformClassLoader())) {
                Class<?> bloom = Class.forName(BloomFilter.class.getName(), true, other);
                assertNotEquals(BloomFilter.class, bloom);
                Object f = bloom.getMethod("create", long.class, double.class).invoke(null, 1000L, 0.01);
                bloom.getMethod("add", String.class).invoke(f, "in another loader " + i);
                assertEquals(true, bloom.getMethod("contains", String.class).invoke(f, "in another loader " + i));
                assertEquals(false, bloom.getMethod("contains", String.class).invoke(f, "absent"));
            }
        }
        // The copies are gone from the temporary directory.
        String copySuffix = "-" + extractedName();
        try (Stream<Path> files = Files.list(tmp)) {
            assertEquals(List.of(), files.filter(f -> f.getFileName().toString().endsWith(copySuffix)).toList());
        }
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

    /**
     * The library cannot be loaded: the first use of any class throws UnsatisfiedLinkError saying
     * why and what to set. A temporary directory that does not exist (or may not be written) gave
     * an ExceptionInInitializerError without a message, its cause an UncheckedIOException naming
     * neither the reason nor a remedy; a platform the jar has no library for names the property.
     */
    @Test
    void aLibraryThatCannotBeLoadedSaysWhyAndWhatToSet(@TempDir Path tmp) throws Exception {
        String out = run("-Djava.io.tmpdir=" + tmp.resolve("missing"));
        assertTrue(out.contains("java.lang.UnsatisfiedLinkError: cannot extract the native library to "), out);
        assertTrue(out.contains("NoSuchFileException") && out.contains("-Djava.io.tmpdir")
                && out.contains("-D" + Native.PATH_PROPERTY), out);
        assertTrue(!out.contains("ExceptionInInitializerError"), out);
        out = run("-Dos.arch=riscv64");
        assertTrue(out.contains("java.lang.UnsatisfiedLinkError: no native library for linux-riscv64 in the jar"), out);
        assertTrue(out.contains("-D" + Native.PATH_PROPERTY), out);
    }

    /**
     * In a shared temporary directory the library's name may be taken by something this user
     * cannot replace (another user's file; here a directory): the load falls back to a private copy.
     */
    @Test
    void aNameTakenByAnotherFileFallsBackToAPrivateCopy(@TempDir Path tmp) throws Exception {
        Path taken = Files.createDirectory(tmp.resolve(extractedName()));
        Files.writeString(taken.resolve("other"), "not ours");
        String out = run("-Djava.io.tmpdir=" + tmp);
        assertTrue(out.contains("native " + Sketches.nativeVersion()), out);
        assertTrue(Files.isDirectory(taken), "the other file stays");
    }

    /**
     * A file under the library's name with the right bytes is not loaded when other users may write
     * it (they could swap its bytes between the check and the load) or when it is a link; it is
     * replaced by a private file.
     */
    @Test
    void aFileOthersCanWriteOrALinkIsNotLoaded(@TempDir Path tmp) throws Exception {
        String name = extractedName();
        Path lib;
        try (InputStream in = Native.class.getResourceAsStream("native/" + Native.platform() + "/libsketches_jni.so")) {
            lib = Files.write(tmp.resolve(name), in.readAllBytes());
        }
        Files.setPosixFilePermissions(lib, PosixFilePermissions.fromString("rw-rw-rw-"));
        String out = run("-Djava.io.tmpdir=" + tmp);
        assertTrue(out.contains("native " + Sketches.nativeVersion()), out);
        String perms = loaded(out)[1];
        assertTrue(perms.charAt(4) != 'w' && perms.charAt(7) != 'w', out);

        Path elsewhere = Files.createDirectory(tmp.resolve("elsewhere"));
        Path real = Files.move(lib, elsewhere.resolve(name));
        Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rw-------"));
        Files.createSymbolicLink(lib, real);
        out = run("-Djava.io.tmpdir=" + tmp);
        assertTrue(out.contains("native " + Sketches.nativeVersion()), out);
        assertNotEquals(real.toString(), loaded(out)[0], out);
        assertTrue(!Files.isSymbolicLink(lib), "the link is replaced by a private file");
    }
}
