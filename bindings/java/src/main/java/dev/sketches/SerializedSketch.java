package dev.sketches;

import java.io.InvalidObjectException;
import java.io.Serializable;

/**
 * The serialized form of every sketch class (the package's one serialization proxy): each class's
 * {@code writeReplace} writes one of these in its place, holding the sketch's family and its
 * exported image ({@code toByteArray()}, the checksummed cross-language format). Reading it back
 * ({@link #readResolve}) goes through that family's {@code fromByteArray}, so the headers, the
 * exact length, the checksum and the family in the header are all checked, and the new sketch owns
 * its image.
 */
final class SerializedSketch implements Serializable {
    /** The form of this class's streams; change it only with the serialized fields. */
    private static final long serialVersionUID = 1L;

    /**
     * The sketch's family: the C family id its image header carries ({@link Sketches#FAMILY_BLOOM}
     * 1 to {@link Sketches#FAMILY_EXALOGLOG} 11, fixed by the image format, so stable across
     * versions). It chooses the import; that import then refuses an image of another family.
     *
     * @serial
     */
    private final int family;

    /**
     * The image as the sketch's {@code toByteArray()} exports it (with its checksum).
     *
     * @serial
     */
    private final byte[] image;

    /** The proxy of a sketch of {@code family} ({@code Sketches.FAMILY_*}) with export {@code image}. */
    SerializedSketch(int family, byte[] image) {
        this.family = family;
        this.image = image;
    }

    /**
     * The sketch this proxy stands for, read through its family's checked import.
     *
     * @return a new sketch of the family, owning a copy of the image
     * @throws InvalidObjectException when the family is unknown, or the image is missing or refused
     *     (damaged, truncated, another family's: the import's {@link SketchException} is the cause)
     */
    private Object readResolve() throws InvalidObjectException {
        return switch (family) {
            case Sketches.FAMILY_BLOOM -> Native.deserialized(image, BloomFilter::fromByteArray, "BloomFilter");
            case Sketches.FAMILY_SPLIT_BLOCK_BLOOM ->
                Native.deserialized(image, SplitBlockBloomFilter::fromByteArray, "SplitBlockBloomFilter");
            case Sketches.FAMILY_COUNTING_BLOOM ->
                Native.deserialized(image, CountingBloomFilter::fromByteArray, "CountingBloomFilter");
            case Sketches.FAMILY_CUCKOO -> Native.deserialized(image, CuckooFilter::fromByteArray, "CuckooFilter");
            case Sketches.FAMILY_HYPERLOGLOG -> Native.deserialized(image, HyperLogLog::fromByteArray, "HyperLogLog");
            case Sketches.FAMILY_ULTRALOGLOG -> Native.deserialized(image, UltraLogLog::fromByteArray, "UltraLogLog");
            case Sketches.FAMILY_COUNT_MIN ->
                Native.deserialized(image, CountMinSketch::fromByteArray, "CountMinSketch");
            case Sketches.FAMILY_TOPK -> Native.deserialized(image, TopK::fromByteArray, "TopK");
            case Sketches.FAMILY_MINHASH -> Native.deserialized(image, MinHash::fromByteArray, "MinHash");
            case Sketches.FAMILY_BINARY_FUSE ->
                Native.deserialized(image, BinaryFuseFilter::fromByteArray, "BinaryFuseFilter");
            case Sketches.FAMILY_EXALOGLOG -> Native.deserialized(image, ExaLogLog::fromByteArray, "ExaLogLog");
            default -> throw new InvalidObjectException("a serialized sketch names an unknown family " + family);
        };
    }
}
