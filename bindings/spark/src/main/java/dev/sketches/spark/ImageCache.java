package dev.sketches.spark;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Read images shared by every task of one executor JVM, so a filter image (a literal, a scalar
 * subquery's result or a broadcast column) is read once per executor rather than per row.
 *
 * <p>An image is identified by its family, its length and its 48-byte common header, which holds
 * the checksum of the whole image written at export: two exported images with equal headers are
 * the same image (a copy whose body was damaged after a good copy was read answers from the good
 * copy). Bytes shorter than a header are read directly (and fail there). At most {@link #ENTRIES}
 * images are kept, least recently used first out.
 *
 * <p>Thread-safe: lookups synchronize on the map; the sketches handed out are only queried, which
 * the Java binding allows from any number of threads.
 */
final class ImageCache {
    /** Bytes of the common header (magic, version, family, hash, seed, length, checksum). */
    private static final int HEADER = 48;

    /** Images kept per JVM. */
    static final int ENTRIES = 16;

    private static final Map<Key, Object> CACHE = new LinkedHashMap<>(32, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Object> eldest) {
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
        synchronized (CACHE) {
            Object sketch = CACHE.get(key);
            if (sketch != null) {
                return sketch;
            }
        }
        Object sketch = SketchBuffer.read(function, family, image);
        synchronized (CACHE) {
            CACHE.put(key, sketch);
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
