package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Each family's class documentation says, for every public instance method, whether it may run
 * concurrently: its "Thread safety" paragraphs name it ({@code {@code name}}, or a prefix as
 * {@code {@code add*}}), or say that every method may. A method missing there leaves a service
 * author guessing whether a call such as {@code isOverCapacity()} from a monitoring thread is
 * safe beside the request threads' queries. Reads the sources (Maven runs tests in the project
 * directory).
 */
class ThreadSafetyDocsTest {
    private static final List<Class<?>> FAMILIES = List.of(BloomFilter.class, SplitBlockBloomFilter.class,
            CountingBloomFilter.class, CuckooFilter.class, BinaryFuseFilter.class, HyperLogLog.class,
            UltraLogLog.class, ExaLogLog.class, CountMinSketch.class, TopK.class, MinHash.class);

    /** Object's methods, whose thread safety is Object's. */
    private static final Set<String> OBJECT = Set.of("toString", "equals", "hashCode", "getClass", "notify",
            "notifyAll", "wait");

    @Test
    void everyInstanceMethodIsNamedInItsClassThreadSafetyNotes() throws IOException {
        List<String> missing = new ArrayList<>();
        for (Class<?> cls : FAMILIES) {
            Path src = Path.of("src/main/java/dev/sketches", cls.getSimpleName() + ".java");
            String text = Files.readString(src);
            String classDoc = text.substring(0, text.indexOf("public final class " + cls.getSimpleName()));
            // One line of text: the comment's leading asterisks and line breaks removed.
            String doc = classDoc.replaceAll("\\s*\\n\\s*\\*\\s?", " ");
            int at = doc.indexOf("Thread safety");
            assertTrue(at >= 0, cls.getSimpleName() + " has no thread-safety notes");
            String notes = doc.substring(at);
            if (notes.contains("every method may run concurrently")) {
                continue;
            }
            List<String> named = new ArrayList<>();
            Matcher m = Pattern.compile("\\{@code (\\w+)(\\*?)\\}").matcher(notes);
            while (m.find()) {
                named.add(m.group(1) + m.group(2));
            }
            Set<String> methods = new TreeSet<>();
            for (Method method : cls.getMethods()) {
                if (!Modifier.isStatic(method.getModifiers()) && !OBJECT.contains(method.getName())) {
                    methods.add(method.getName());
                }
            }
            for (String name : methods) {
                boolean ok = named.stream().anyMatch(n -> n.endsWith("*")
                        ? name.startsWith(n.substring(0, n.length() - 1)) : n.equals(name));
                if (!ok) {
                    missing.add(cls.getSimpleName() + "." + name);
                }
            }
        }
        assertEquals(List.of(), missing, "methods whose thread safety the class notes do not state");
    }
}
