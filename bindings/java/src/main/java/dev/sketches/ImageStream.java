package dev.sketches;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.ConcurrentModificationException;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Images on byte streams, shared by every family's {@code writeTo} and {@code readFrom} and by
 * {@link Sketches#readSketch(java.io.InputStream)}.
 *
 * <p>A read takes exactly one image: the 48-byte common header, then exactly the remaining bytes
 * its image-length field announces, never a byte more, so several images written one after
 * another read back one by one. The announced length is untrusted: the buffer starts at {@link
 * #FIRST_READ_BYTES} (or the image's length, when smaller) and doubles as bytes arrive, so a
 * forged header announcing a huge image from a short stream costs at most about twice the bytes
 * that arrived. The common header fields named here (little-endian, SPEC.md section 2): the magic
 * at 0, the format major at 4, the family id at 6, the hash id at 8, the header length at 10, the
 * image length at 24; the library checks them, this class words the errors.
 *
 * <p>Thread safety: the methods keep no state; a stream must not be read or written by two threads
 * at once.
 */
final class ImageStream {
    private ImageStream() {}

    /** Length of the common header every image starts with, in bytes. */
    static final int COMMON_HEADER_BYTES = 48;
    /** The most a read allocates before the bytes it announces arrive: 64 KiB. */
    static final int FIRST_READ_BYTES = 64 << 10;
    /** The longest image a Java array holds (a few bytes below {@code Integer.MAX_VALUE}). */
    static final int MAX_IMAGE_BYTES = Integer.MAX_VALUE - 8;

    private static final int OFF_MAJOR = 4;
    private static final int OFF_FAMILY = 6;
    private static final int OFF_HASH = 8;
    private static final int OFF_CHECKSUM = 32;
    private static final int OFF_HEADER_LEN = 10;
    private static final int OFF_IMAGE_LEN = 24;
    /** The hash id the header check reads in the header's copy (SKETCH_HASH_XXH3). */
    private static final byte HASH_XXH3 = 1;

    /** The most a write copies of an image into the Java heap at once: 64 KiB. */
    static final int WRITE_CHUNK_BYTES = 64 << 10;

    /**
     * Writes an exported image to {@code out} (not flushed, not closed).
     *
     * @return the bytes written: {@code image.length}
     * @throws IOException what {@code out} throws, unchanged
     */
    static long write(byte[] image, OutputStream out) throws IOException {
        Objects.requireNonNull(out, "out");
        out.write(image);
        return image.length;
    }

    /**
     * Writes the export of the live image {@code img} (family id {@code family}) to {@code out}
     * (not flushed, not closed) without a copy of the image: exactly the bytes the export
     * returns. The export's checksum is computed on the live image in place, the 48-byte header is
     * copied and sealed with it ({@link Native#sealedHeader}), then the image follows in chunks of
     * at most {@link #WRITE_CHUNK_BYTES}, each copied from the live memory into one reusable array
     * just before it is written: the extra heap is that array, whatever the image's size. When
     * the export is not the live image (a small HyperLogLog's compact export, at most about 8
     * KiB) it is made by {@code export} and written whole.
     *
     * <p>The write is one whole read of the image ({@link Native.Image#beginWholeRead}) that holds
     * no change guard: a change through any object over the same memory (from another thread, or
     * from {@code out} itself) is not refused, but the stamp is compared after each chunk is
     * copied and before it is written, so the write stops with ConcurrentModificationException
     * before a byte copied after the change reaches {@code out}. Every byte written is then the
     * image the checksum was computed on, so a reader sees a truncated image (EOFException from
     * {@code readFrom}; CHECKSUM_MISMATCH when other bytes follow on the stream), never a torn
     * image under a valid checksum. Concurrent adds ({@code *Concurrent}) take no guard and move
     * no stamp: an add landing in a part not yet copied makes the written image fail its checksum
     * (CHECKSUM_MISMATCH on read), never a torn image under a valid one; for the families that
     * have them the checksum is taken again after the last chunk, and when it moved the write
     * throws ConcurrentModificationException
     * (after every byte was written; the output may still be valid, when the adds landed only in
     * parts already written), so the caller learns it rather than a reader.
     *
     * @return the bytes written (the export's length)
     * @throws IOException what {@code out} throws, unchanged (part of the image may have been written)
     * @throws java.util.ConcurrentModificationException when a change ran before or during the
     *     write (the message says how many bytes were written)
     * @throws SketchException for an image its export refuses (nothing written)
     */
    static long write(Native.Image img, int family, Supplier<byte[]> export, OutputStream out)
            throws IOException {
        Objects.requireNonNull(out, "out");
        byte[] head = new byte[COMMON_HEADER_BYTES];
        int changes = img.beginWholeRead();
        long size;
        try {
            size = Native.sealedHeader(family, img.addr(), img.len, head);
        } catch (SketchException e) {
            img.endWholeRead(changes); // a change ran meanwhile: that, not the refusal, is the cause
            throw e;
        } finally {
            Reference.reachabilityFence(img);
        }
        if (size == 0) {
            return write(export.get(), out);
        }
        ByteBuffer live = img.buffer;
        byte[] chunk = new byte[(int) Math.min(WRITE_CHUNK_BYTES, size)];
        long written = 0;
        while (written < size) {
            int n = (int) Math.min(chunk.length, size - written);
            if (written == 0) {
                System.arraycopy(head, 0, chunk, 0, COMMON_HEADER_BYTES);
                live.get(COMMON_HEADER_BYTES, chunk, COMMON_HEADER_BYTES, n - COMMON_HEADER_BYTES);
            } else {
                live.get((int) written, chunk, 0, n);
            }
            try {
                img.endWholeRead(changes);
            } catch (ConcurrentModificationException e) {
                throw new ConcurrentModificationException("another thread (or the stream itself) changed the"
                        + " sketch while writeTo wrote it: the write stopped after " + written + " of " + size
                        + " bytes, all of them the image the checksum was computed on (a reader of the stream"
                        + " finds it truncated, never a torn image under a valid checksum)");
            }
            out.write(chunk, 0, n);
            written += n;
        }
        // Concurrent adds move no stamp: an add that landed in a part not yet copied makes the
        // bytes written fail their checksum. The checksum of the live image, taken again, tells
        // the caller now instead of the reader later (it also differs after adds that landed only
        // in parts already written, whose output is valid: the exception then says "may"). Only
        // the families with *Concurrent methods can change without moving the stamp; the others'
        // writes skip this second pass over the image.
        if (!hasConcurrentAdds(family)) {
            return size;
        }
        byte[] after = new byte[COMMON_HEADER_BYTES];
        long again;
        try {
            again = Native.sealedHeader(family, img.addr(), img.len, after);
        } finally {
            Reference.reachabilityFence(img);
        }
        if (again != size || !Arrays.equals(head, OFF_CHECKSUM, OFF_CHECKSUM + 8, after, OFF_CHECKSUM,
                OFF_CHECKSUM + 8)) {
            throw new ConcurrentModificationException("the sketch changed while writeTo wrote it (concurrent adds,"
                    + " which take no guard): all " + size + " bytes were written, but they may fail their checksum"
                    + " when read (CHECKSUM_MISMATCH); write again when no add runs, or use toByteArray(), which"
                    + " copies the image in one pass");
        }
        return size;
    }

    /**
     * Whether sketches of family id {@code family} have {@code *Concurrent} adds, which take no
     * change guard (Bloom, split-block, HyperLogLog, UltraLogLog).
     */
    private static boolean hasConcurrentAdds(int family) {
        return family == Sketches.FAMILY_BLOOM || family == Sketches.FAMILY_SPLIT_BLOCK_BLOOM
                || family == Sketches.FAMILY_HYPERLOGLOG || family == Sketches.FAMILY_ULTRALOGLOG;
    }

    /**
     * Reads exactly one image from {@code in}, checking the common header alone (magic, format
     * major, family, reserved field, lengths: {@code sketch_image_inspect_header}) before the body is
     * read (the rest, the hash id included, is for the family's {@code fromByteArray}).
     *
     * @param in the stream
     * @param family the family id the caller expects, or 0 for any known family
     * @param op the caller's name for messages (for example "BloomFilter.readFrom")
     * @return the image's bytes, exactly its length; null when the stream ended before its first byte
     * @throws EOFException when the stream ends inside the image (the message names how many bytes
     *     of how many arrived)
     * @throws SketchException for a header that is no image's ({@link Status#BAD_MAGIC}, {@link
     *     Status#UNSUPPORTED_VERSION}, {@link Status#CORRUPT_HEADER}) or another family's ({@link
     *     Status#WRONG_FAMILY}); the body is then not read
     * @throws IOException what {@code in} throws, unchanged
     */
    static byte[] read(InputStream in, int family, String op) throws IOException {
        Objects.requireNonNull(in, "in");
        byte[] head = new byte[COMMON_HEADER_BYTES];
        int got = in.readNBytes(head, 0, head.length);
        if (got == 0) {
            return null;
        }
        if (got < head.length) {
            throw truncated(op, got, "the " + COMMON_HEADER_BYTES + "-byte header");
        }
        // The library checks the header alone (magic, version, ids, reserved field, lengths:
        // sketch_image_inspect_header), so a bad one fails before its body is read. The hash id is
        // left to fromByteArray, as for bytes (an unknown one is UNSUPPORTED_HASH when the checksum
        // holds, CHECKSUM_MISMATCH when it fails): the check reads a copy naming XXH3.
        byte[] probe = head.clone();
        probe[OFF_HASH] = HASH_XXH3;
        probe[OFF_HASH + 1] = 0;
        Native.load();
        long[] info = new long[8];
        int status = Native.inspectHeader(probe, info);
        if (status != Status.OK) {
            throw headerError(status, head, op);
        }
        int found = (int) info[0];
        String name = familyName(found);
        if (family != 0 && found != family) {
            throw new SketchException(Status.WRONG_FAMILY, op, "the stream holds a " + name + " image");
        }
        long size = info[7];
        if (Long.compareUnsigned(size, MAX_IMAGE_BYTES) > 0) {
            throw new SketchException(Status.CORRUPT_HEADER, op, "the header records an image of "
                    + Long.toUnsignedString(size) + " bytes, more than a Java array holds");
        }
        int total = (int) size;
        byte[] buf = new byte[Math.min(total, FIRST_READ_BYTES)];
        System.arraycopy(head, 0, buf, 0, head.length);
        int have = head.length;
        while (have < total) {
            if (have == buf.length) {
                byte[] grown = new byte[(int) Math.min(total, 2L * buf.length)];
                System.arraycopy(buf, 0, grown, 0, have);
                buf = grown;
            }
            int want = buf.length - have;
            int n = in.readNBytes(buf, have, want);
            have += n;
            if (n < want) {
                throw truncated(op, have, total + " image bytes");
            }
        }
        return buf;
    }

    /**
     * The exception for a common header the library refused with {@code status}, naming what the
     * header holds where that is the reason (no image magic, another format major, an unknown family
     * id, impossible lengths).
     */
    private static SketchException headerError(int status, byte[] head, String op) {
        int major = head[OFF_MAJOR] & 0xff;
        int found = u16(head, OFF_FAMILY);
        long size = u64(head, OFF_IMAGE_LEN);
        int headerBytes = u16(head, OFF_HEADER_LEN);
        String detail;
        if (status == Status.BAD_MAGIC) {
            detail = "the stream does not continue with an image";
        } else if (major != Sketches.FORMAT_MAJOR) {
            detail = "the image is of format major " + major + "; this library reads up to " + Sketches.FORMAT_MAJOR;
        } else if (status == Status.CORRUPT_HEADER && familyName(found) == null) {
            detail = "the header names an unknown family " + found;
        } else if (status == Status.CORRUPT_HEADER && (headerBytes < COMMON_HEADER_BYTES || headerBytes % 8 != 0
                || size % 8 != 0 || Long.compareUnsigned(size, headerBytes) < 0)) {
            detail = "the header records an image of " + Long.toUnsignedString(size) + " bytes and a header of "
                    + headerBytes;
        } else {
            detail = "the image's common header is damaged";
        }
        return new SketchException(status, op, detail);
    }

    /** The exception of a stream that ended after {@code have} bytes of {@code of}. */
    private static EOFException truncated(String op, int have, String of) {
        return new EOFException(op + ": the stream ended inside an image, after " + have + " bytes of " + of);
    }

    /** The class name of family id {@code family}, or null for an unknown id. */
    static String familyName(int family) {
        return switch (family) {
            case Sketches.FAMILY_BLOOM -> "BloomFilter";
            case Sketches.FAMILY_SPLIT_BLOCK_BLOOM -> "SplitBlockBloomFilter";
            case Sketches.FAMILY_COUNTING_BLOOM -> "CountingBloomFilter";
            case Sketches.FAMILY_CUCKOO -> "CuckooFilter";
            case Sketches.FAMILY_HYPERLOGLOG -> "HyperLogLog";
            case Sketches.FAMILY_ULTRALOGLOG -> "UltraLogLog";
            case Sketches.FAMILY_COUNT_MIN -> "CountMinSketch";
            case Sketches.FAMILY_TOPK -> "TopK";
            case Sketches.FAMILY_MINHASH -> "MinHash";
            case Sketches.FAMILY_BINARY_FUSE -> "BinaryFuseFilter";
            case Sketches.FAMILY_EXALOGLOG -> "ExaLogLog";
            default -> null;
        };
    }

    private static int u16(byte[] b, int off) {
        return (b[off] & 0xff) | (b[off + 1] & 0xff) << 8;
    }

    private static long u64(byte[] b, int off) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = v << 8 | (b[off + i] & 0xff);
        }
        return v;
    }
}
