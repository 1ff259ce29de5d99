package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Java constants mirror include/sketches.h number for number. */
class StatusTest {
    private static Map<String, Long> defines() {
        Map<String, Long> out = new HashMap<>();
        Matcher m = Pattern.compile("#define (SKETCH_\\w+) (\\d+)").matcher(TestKeys.header());
        while (m.find()) {
            out.put(m.group(1), Long.parseLong(m.group(2)));
        }
        return out;
    }

    @Test
    void statusNumbersMatchTheHeader() throws ReflectiveOperationException {
        Map<String, Long> h = defines();
        int checked = 0;
        for (Field f : Status.class.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class) {
                Long expected = h.get("SKETCH_" + f.getName());
                assertEquals(expected, Long.valueOf(f.getInt(null)), f.getName());
                checked++;
            }
        }
        // Every status of the header (the block from SKETCH_OK to the function declarations) has a constant.
        String hdr = TestKeys.header();
        String block = hdr.substring(hdr.indexOf("#define SKETCH_OK 0"), hdr.indexOf("#ifdef __cplusplus"));
        Matcher m = Pattern.compile("#define SKETCH_(\\w+) (\\d+)").matcher(block);
        int inHeader = 0;
        while (m.find()) {
            assertEquals(Integer.parseInt(m.group(2)), Status.class.getField(m.group(1)).getInt(null), m.group(1));
            inHeader++;
        }
        assertEquals(inHeader, checked);
    }

    @Test
    void familiesCapacityFlagsAndVersionMatchTheHeader() {
        Map<String, Long> h = defines();
        assertEquals(h.get("SKETCH_FAMILY_BLOOM"), (long) Sketches.FAMILY_BLOOM);
        assertEquals(h.get("SKETCH_FAMILY_SPLIT_BLOCK_BLOOM"), (long) Sketches.FAMILY_SPLIT_BLOCK_BLOOM);
        assertEquals(h.get("SKETCH_FAMILY_COUNTING_BLOOM"), (long) Sketches.FAMILY_COUNTING_BLOOM);
        assertEquals(h.get("SKETCH_FAMILY_CUCKOO"), (long) Sketches.FAMILY_CUCKOO);
        assertEquals(h.get("SKETCH_FAMILY_HYPERLOGLOG"), (long) Sketches.FAMILY_HYPERLOGLOG);
        assertEquals(h.get("SKETCH_FAMILY_ULTRALOGLOG"), (long) Sketches.FAMILY_ULTRALOGLOG);
        assertEquals(h.get("SKETCH_FAMILY_COUNT_MIN"), (long) Sketches.FAMILY_COUNT_MIN);
        assertEquals(h.get("SKETCH_FAMILY_TOPK"), (long) Sketches.FAMILY_TOPK);
        assertEquals(h.get("SKETCH_FAMILY_MINHASH"), (long) Sketches.FAMILY_MINHASH);
        assertEquals(h.get("SKETCH_FAMILY_BINARY_FUSE"), (long) Sketches.FAMILY_BINARY_FUSE);
        assertEquals(h.get("SKETCH_FAMILY_EXALOGLOG"), (long) Sketches.FAMILY_EXALOGLOG);
        assertEquals(h.get("SKETCH_ELL_MIN_PRECISION"), (long) ExaLogLog.MIN_PRECISION);
        assertEquals(h.get("SKETCH_ELL_MAX_PRECISION"), (long) ExaLogLog.MAX_PRECISION);
        assertEquals(h.get("SKETCH_CAPACITY_OVER_PLANNED_ITEMS"), (long) Sketches.CAPACITY_OVER_PLANNED_ITEMS);
        assertEquals(h.get("SKETCH_CAPACITY_FPR_ABOVE_TWICE_PLANNED"),
                (long) Sketches.CAPACITY_FPR_ABOVE_TWICE_PLANNED);
        assertEquals(h.get("SKETCH_SBBF_NATIVE"), (long) SplitBlockBloomFilter.MODE_NATIVE);
        assertEquals(h.get("SKETCH_SBBF_PARQUET"), (long) SplitBlockBloomFilter.MODE_PARQUET);
        assertEquals(h.get("SKETCH_CARDINALITY_MIN_PRECISION"), (long) HyperLogLog.MIN_PRECISION);
        assertEquals(h.get("SKETCH_CARDINALITY_MAX_PRECISION"), (long) HyperLogLog.MAX_PRECISION);
        assertEquals(h.get("SKETCH_IMAGE_ALIGN"), (long) Native.IMAGE_ALIGN);
        assertEquals(h.get("SKETCH_IMAGE_MIN_ALIGN"), (long) Native.IMAGE_MIN_ALIGN);
        assertEquals(h.get("SKETCH_VERSION_MAJOR"), (long) Sketches.VERSION_MAJOR);
        assertEquals(h.get("SKETCH_VERSION_MINOR"), (long) Sketches.VERSION_MINOR);
        assertEquals(h.get("SKETCH_VERSION_PATCH"), (long) Sketches.VERSION_PATCH);
        assertEquals(h.get("SKETCH_FORMAT_MAJOR"), (long) Sketches.FORMAT_MAJOR);
        assertTrue(TestKeys.header().contains("#define SKETCH_VERSION_STRING \"" + Sketches.VERSION + "\""));
        assertEquals(Sketches.VERSION_MAJOR * 10000 + Sketches.VERSION_MINOR * 100 + Sketches.VERSION_PATCH,
                Sketches.nativeVersion());
    }

    @Test
    void statusTextAndException() {
        assertEquals("unknown status code", Status.text(12345));
        for (int s = 0; s <= Status.SMALL_MODE; s++) {
            assertFalse(Status.text(s).isEmpty());
        }
        SketchException e = new SketchException(Status.CHECKSUM_MISMATCH, "op");
        assertEquals(Status.CHECKSUM_MISMATCH, e.status());
        assertEquals(Status.text(Status.CHECKSUM_MISMATCH), e.statusText());
        assertTrue(e.getMessage().startsWith("op: "), e.getMessage());
        assertTrue(e.getMessage().contains("(status 10)"), e.getMessage());
    }

    @Test
    void hashesFollowTheOneRule() {
        byte[] k = "present-1".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(Sketches.hash(k, 42), Sketches.hash("present-1", 42));
        byte[] le = java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(7).array();
        assertEquals(Sketches.hash(le, 42), Sketches.hash(7L, 42));
        assertFalse(Sketches.hash(k, 42) == Sketches.hash(k, 43));
    }

    @Test
    void inspectDispatchesOnTheFamily() {
        Sketches.ImageInfo info = Sketches.inspect(TestKeys.goldenImage("topk"));
        assertEquals(Sketches.FAMILY_TOPK, info.family());
        assertEquals(42, info.seed());
        assertEquals(TestKeys.goldenImage("topk").length, info.imageBytes());
        assertEquals(Sketches.FAMILY_BINARY_FUSE, Sketches.inspect(TestKeys.goldenImage("fuse8")).family());
        assertEquals(Sketches.FAMILY_EXALOGLOG, Sketches.inspect(TestKeys.goldenImage("ell_d24")).family());
        SketchException e = org.junit.jupiter.api.Assertions.assertThrows(
                SketchException.class, () -> Sketches.inspect(new byte[64]));
        assertEquals(Status.BAD_MAGIC, e.status());
    }

    /**
     * inspect reads the common header but checks the image length it records against the bytes
     * given: the whole image is needed (the Javadoc promised any prefix of at least 48 bytes).
     */
    @Test
    void inspectNeedsTheWholeImage() {
        byte[] image = TestKeys.goldenImage("topk");
        for (int n : new int[] {48, 64, image.length - 8}) {
            SketchException e = org.junit.jupiter.api.Assertions.assertThrows(
                    SketchException.class, () -> Sketches.inspect(java.util.Arrays.copyOf(image, n)));
            assertEquals(Status.BUFFER_TOO_SMALL, e.status(), n + " bytes");
        }
        // Longer is fine (the image and what follows it, e.g. the rest of a file).
        assertEquals(Sketches.FAMILY_TOPK, Sketches.inspect(java.util.Arrays.copyOf(image, image.length + 64)).family());
    }
}
