package dev.sketches.spark;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Read images shared by every task of one executor JVM, so a filter image (a literal, a scalar
 * subquery's result or a broadcast column) is read once per executor rather than per row.
 *
 * <p>Entries are found by family, length and the 48-byte common header (which holds the checksum
 * of the whole image), then confirmed by comparing every byte with the cached image's bytes, so
 * only an identical image is answered from the cache (a damaged copy is read, and rejected). The
 * callers skip even that comparison when the same array comes again ({@link ScalarFunctions}).
 * Bytes shorter than a header are read directly (and fail there). At most {@link #ENTRIES} images
 * are kept, least recently used first out.
 *
 * <p>Thread-safe: lookups synchronize on the map; the sketches handed out are only queried, which
 * the Java binding allows from any number of threads.
 */
final class ImageCache {
    /** Bytes of the common header (magic, version, family, hash, seed, length, checksum). */
    private static final int HEADER = 48;

    /** Images kept per JVM. */
    static final int ENTRIES = 16;

    /** A read image and the bytes it was read from. */
    private record Entry(byte[] bytes, Object sketch) {}

    private static final Map<Key, Entry> CACHE = new LinkedHashMap<>(32, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Entry> eldest) {
            return size() > ENTRIES;
        }
    };

    private ImageCache() {}

    /**
     * The read sketch of {@code image}, from the cache when an equal image was read before.
     *
     * @throws IllegalArgumentException naming {@code function} when the image is damaged or of
     *     another family
     */
    static Object get(String function, Family family, byte[] image) {
        if (image.length < HEADER) {
            return SketchBuffer.read(function, family, image);
        }
        Key key = new Key(family, image);
        Entry e;
        synchronized (CACHE) {
            e = CACHE.get(key);
        }
        if (e != null && Arrays.equals(e.bytes, image)) {
            return e.sketch;
        }
        Object sketch = SketchBuffer.read(function, family, image);
        synchronized (CACHE) {
            CACHE.put(key, new Entry(image.clone(), sketch));
        }
        return sketch;
    }

    /** Family, length and header bytes of an image. */
    private static final class Key {
        private final Family family;
        private final int length;
        private final byte[] header;
        private final int hash;

        Key(Family family, byte[] image) {
            this.family = family;
            this.length = image.length;
            this.header = Arrays.copyOf(image, HEADER);
            this.hash = (family.hashCode() * 31 + length) * 31 + Arrays.hashCode(header);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.family == family && k.length == length && Arrays.equals(k.header, header);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }
}
