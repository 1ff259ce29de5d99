package dev.sketches.spark;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.function.Executable;

/** Shared helpers of the tests: golden images and error checks. */
final class Checks {
    private Checks() {}

    /** The repository's tests/golden folder (set by the pom). */
    static Path goldenDir() {
        String p = System.getProperty("sketches.golden");
        return p != null ? Paths.get(p) : Paths.get("../../tests/golden");
    }

    static byte[] golden(String name) {
        try {
            return Files.readAllBytes(goldenDir().resolve(name + "_v1.img"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs {@code action}, which must fail with an error whose message (or a cause's) starts a
     * sentence with {@code function + ":"} and contains {@code detail}.
     */
    static void failsNaming(String function, String detail, Executable action) {
        Throwable t = assertThrows(Throwable.class, action);
        for (Throwable c = t; c != null; c = c.getCause()) {
            String m = c.getMessage();
            if (m != null && m.contains(function + ":") && m.contains(detail)) {
                return;
            }
        }
        fail("no error naming " + function + " with '" + detail + "' in " + t, t);
    }
}
