package dev.sketches;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class SmokeTest {
    @Test
    void bloomBasics() {
        BloomFilter f = BloomFilter.create(1000, 0.01, 42);
        assertTrue(f.add("alice"));
        assertFalse(f.add("alice"));
        assertTrue(f.contains("alice"));
        assertTrue(f.contains("alice".getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        byte[] img = f.toByteArray();
        BloomFilter g = BloomFilter.fromByteArray(img);
        assertTrue(g.contains("alice"));
        img[img.length - 1] ^= 1;
        SketchException e = assertThrows(SketchException.class, () -> BloomFilter.fromByteArray(img));
        assertEquals(Status.CHECKSUM_MISMATCH, e.status());
    }
}
