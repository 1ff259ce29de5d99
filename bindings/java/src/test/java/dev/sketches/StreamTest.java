package dev.sketches;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Images on streams: every family's {@code writeTo} and {@code readFrom}, and {@link
 * Sketches#readSketch}: exact byte consumption of concatenated images, the clean end, truncation,
 * forged lengths (bounded allocation), damaged bytes, wrong families, one byte per read.
 */
class StreamTest {
    /** A family's stream reader. */
    private interface Reader {
        Object read(InputStream in) throws IOException;
    }

    /** A family's stream writer. */
    private interface Writer {
        long write(Object sketch, OutputStream out) throws IOException;
    }

    /** A golden image, the class it reads as, and that class's reader and writer. */
    private record Golden(String name, Class<?> type, Reader reader, Writer writer) {
        byte[] bytes() {
            return TestKeys.goldenImage(name);
        }
    }

    /** Every golden image: every family (and both HyperLogLog modes, both fuse widths, ...). */
    private static final List<Golden> GOLDEN = List.of(
            new Golden("bloom", BloomFilter.class, BloomFilter::readFrom, (s, o) -> ((BloomFilter) s).writeTo(o)),
            new Golden("sbbf", SplitBlockBloomFilter.class, SplitBlockBloomFilter::readFrom,
                    (s, o) -> ((SplitBlockBloomFilter) s).writeTo(o)),
            new Golden("sbbf_parquet", SplitBlockBloomFilter.class, SplitBlockBloomFilter::readFrom,
                    (s, o) -> ((SplitBlockBloomFilter) s).writeTo(o)),
            new Golden("counting", CountingBloomFilter.class, CountingBloomFilter::readFrom,
                    (s, o) -> ((CountingBloomFilter) s).writeTo(o)),
            new Golden("cuckoo", CuckooFilter.class, CuckooFilter::readFrom, (s, o) -> ((CuckooFilter) s).writeTo(o)),
            new Golden("fuse8", BinaryFuseFilter.class, BinaryFuseFilter::readFrom,
                    (s, o) -> ((BinaryFuseFilter) s).writeTo(o)),
            new Golden("fuse16", BinaryFuseFilter.class, BinaryFuseFilter::readFrom,
                    (s, o) -> ((BinaryFuseFilter) s).writeTo(o)),
            new Golden("hll_small", HyperLogLog.class, HyperLogLog::readFrom, (s, o) -> ((HyperLogLog) s).writeTo(o)),
            new Golden("hll_dense", HyperLogLog.class, HyperLogLog::readFrom, (s, o) -> ((HyperLogLog) s).writeTo(o)),
            new Golden("ull", UltraLogLog.class, UltraLogLog::readFrom, (s, o) -> ((UltraLogLog) s).writeTo(o)),
            new Golden("ell", ExaLogLog.class, ExaLogLog::readFrom, (s, o) -> ((ExaLogLog) s).writeTo(o)),
            new Golden("ell_d24", ExaLogLog.class, ExaLogLog::readFrom, (s, o) -> ((ExaLogLog) s).writeTo(o)),
            new Golden("countmin", CountMinSketch.class, CountMinSketch::readFrom,
                    (s, o) -> ((CountMinSketch) s).writeTo(o)),
            new Golden("topk", TopK.class, TopK::readFrom, (s, o) -> ((TopK) s).writeTo(o)),
            new Golden("minhash", MinHash.class, MinHash::readFrom, (s, o) -> ((MinHash) s).writeTo(o)));

    /**
     * A stream over {@code bytes} that hands out at most {@code perRead} bytes a call and records
     * the largest array a read was given (what the reader allocated) and the bytes handed out.
     */
    private static final class MeteredStream extends InputStream {
        private final byte[] bytes;
        private final int perRead;
        private int pos;
        int largestArray;

        MeteredStream(byte[] bytes, int perRead) {
            this.bytes = bytes;
            this.perRead = perRead;
        }

        @Override
        public int read() {
            return pos < bytes.length ? bytes[pos++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            largestArray = Math.max(largestArray, b.length);
            if (len == 0) {
                return 0;
            }
            if (pos == bytes.length) {
                return -1;
            }
            int n = Math.min(Math.min(len, perRead), bytes.length - pos);
            System.arraycopy(bytes, pos, b, off, n);
            pos += n;
            return n;
        }

        int consumed() {
            return pos;
        }
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    /** Every family written one after another into one stream, each read back exactly. */
    private static byte[] everyImageInOneStream() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Golden g : GOLDEN) {
            Object sketch = Sketches.readSketch(new ByteArrayInputStream(g.bytes()));
            int before = out.size();
            long written = g.writer().write(sketch, out);
            assertEquals(out.size() - before, written, g.name());
            assertArrayEquals(g.bytes(), Arrays.copyOfRange(out.toByteArray(), before, out.size()), g.name());
        }
        return out.toByteArray();
    }

    @Test
    void everyFamilyReadsBackInOrderConsumingExactlyItsImage() throws IOException {
        byte[] all = everyImageInOneStream();
        MeteredStream in = new MeteredStream(all, Integer.MAX_VALUE);
        int end = 0;
        for (Golden g : GOLDEN) {
            byte[] expected = g.bytes();
            Object sketch = g.reader().read(in);
            assertInstanceOf(g.type(), sketch, g.name());
            end += expected.length;
            assertEquals(end, in.consumed(), g.name() + ": bytes consumed");
            ByteArrayOutputStream again = new ByteArrayOutputStream();
            g.writer().write(sketch, again);
            assertArrayEquals(expected, again.toByteArray(), g.name());
        }
        assertNull(BloomFilter.readFrom(in), "clean end");
        assertNull(Sketches.readSketch(in), "clean end");
    }

    @Test
    void readSketchTypesEveryGoldenImageByItsFamily() throws IOException {
        ByteArrayInputStream in = new ByteArrayInputStream(everyImageInOneStream());
        for (Golden g : GOLDEN) {
            Object sketch = Sketches.readSketch(in);
            assertInstanceOf(g.type(), sketch, g.name());
            ByteArrayOutputStream again = new ByteArrayOutputStream();
            g.writer().write(sketch, again);
            assertArrayEquals(g.bytes(), again.toByteArray(), g.name());
        }
        assertEquals(0, in.available());
        assertNull(Sketches.readSketch(in));
        // The answers are those of the checked import.
        HyperLogLog dense = (HyperLogLog) Sketches.readSketch(new ByteArrayInputStream(TestKeys.goldenImage("hll_dense")));
        assertEquals(HyperLogLog.fromByteArray(TestKeys.goldenImage("hll_dense")).estimate(), dense.estimate());
        TopK topk = TopK.readFrom(new ByteArrayInputStream(TestKeys.goldenImage("topk")));
        assertEquals(5000, topk.estimate(7L).count());
    }

    @Test
    void oneBytePerReadCallReadsEveryImage() throws IOException {
        byte[] all = everyImageInOneStream();
        MeteredStream in = new MeteredStream(all, 1);
        int end = 0;
        for (Golden g : GOLDEN) {
            assertInstanceOf(g.type(), Sketches.readSketch(in), g.name());
            end += g.bytes().length;
            assertEquals(end, in.consumed(), g.name());
        }
        assertNull(Sketches.readSketch(in));
    }

    @Test
    void freshSketchesWriteWhatToByteArrayGives() throws IOException {
        HyperLogLog hll = HyperLogLog.create(12, 3);
        hll.addAll(TestKeys.strings("stream-", 0, 50)); // small mode: a compact export
        BloomFilter bloom = BloomFilter.create(1_000, 0.01, 3);
        bloom.addAll(TestKeys.strings("stream-", 0, 50));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(hll.toByteArray().length, hll.writeTo(out));
        assertEquals(bloom.toByteArray().length, bloom.writeTo(out));
        assertArrayEquals(concat(hll.toByteArray(), bloom.toByteArray()), out.toByteArray());
        ByteArrayInputStream in = new ByteArrayInputStream(out.toByteArray());
        assertEquals(hll.estimate(), HyperLogLog.readFrom(in).estimate());
        assertTrue(BloomFilter.readFrom(in).contains("stream-7"));
        assertNull(BloomFilter.readFrom(in));
    }

    @Test
    void truncationAtEveryOffsetThrowsEofNamingTheCounts() throws IOException {
        byte[] img = TestKeys.goldenImage("minhash");
        byte[] after = TestKeys.goldenImage("bloom");
        for (int cut = 1; cut < img.length; cut++) {
            byte[] part = Arrays.copyOf(img, cut);
            EOFException e = assertThrows(EOFException.class, () -> MinHash.readFrom(new ByteArrayInputStream(part)));
            assertTrue(e.getMessage().contains("after " + cut + " bytes of "), e.getMessage());
            String of = cut < 48 ? "the 48-byte header" : img.length + " image bytes";
            assertTrue(e.getMessage().contains(of), e.getMessage());
            assertThrows(EOFException.class, () -> Sketches.readSketch(new MeteredStream(part, 7)));
        }
        assertNull(MinHash.readFrom(new ByteArrayInputStream(new byte[0])));
        // A truncated image followed by no more bytes differs from a clean end after a whole image.
        ByteArrayInputStream two = new ByteArrayInputStream(concat(img, Arrays.copyOf(after, 100)));
        assertInstanceOf(MinHash.class, Sketches.readSketch(two));
        assertThrows(EOFException.class, () -> Sketches.readSketch(two));
    }

    /** {@code image} with its image-length field (offset 24) set to {@code length}. */
    private static byte[] withImageLength(byte[] image, long length) {
        byte[] forged = image.clone();
        ByteBuffer.wrap(forged).order(ByteOrder.LITTLE_ENDIAN).putLong(24, length);
        return forged;
    }

    @Test
    void forgedHugeLengthAllocatesOnlyAsBytesArrive() {
        byte[] img = TestKeys.goldenImage("bloom");
        // One GiB announced (a length a Java array could hold), 1344 bytes delivered.
        MeteredStream shortStream = new MeteredStream(withImageLength(img, 1L << 30), Integer.MAX_VALUE);
        EOFException e = assertThrows(EOFException.class, () -> BloomFilter.readFrom(shortStream));
        assertTrue(e.getMessage().contains("after " + img.length + " bytes of " + (1L << 30)), e.getMessage());
        assertTrue(shortStream.largestArray <= ImageStream.FIRST_READ_BYTES, "allocated " + shortStream.largestArray);

        // 300 KiB delivered: the buffer doubles with the bytes, never to the announced length.
        byte[] longer = concat(withImageLength(img, 1L << 30), new byte[300 << 10]);
        MeteredStream growing = new MeteredStream(longer, 4096);
        assertThrows(EOFException.class, () -> Sketches.readSketch(growing));
        assertEquals(longer.length, growing.consumed());
        assertTrue(growing.largestArray <= 2 * longer.length, "allocated " + growing.largestArray);

        // 2^40 bytes and a length with the top bit set: refused from the header, the body unread.
        for (long forged : new long[] {1L << 40, -64L}) {
            MeteredStream in = new MeteredStream(withImageLength(img, forged), Integer.MAX_VALUE);
            SketchException refused = assertThrows(SketchException.class, () -> Sketches.readSketch(in));
            assertEquals(Status.CORRUPT_HEADER, refused.status());
            assertEquals(48, in.consumed());
            assertTrue(in.largestArray <= 48, "allocated " + in.largestArray);
        }
    }

    @Test
    void damagedBytesThrowWhatFromByteArrayThrows() {
        byte[] img = TestKeys.goldenImage("countmin");
        byte[] body = img.clone();
        body[img.length - 3] ^= 0x10;
        SketchException viaArray = assertThrows(SketchException.class, () -> CountMinSketch.fromByteArray(body));
        SketchException viaStream = assertThrows(SketchException.class,
                () -> CountMinSketch.readFrom(new ByteArrayInputStream(body)));
        assertEquals(Status.CHECKSUM_MISMATCH, viaStream.status());
        assertEquals(viaArray.status(), viaStream.status());
        assertEquals(Status.CHECKSUM_MISMATCH,
                assertThrows(SketchException.class, () -> Sketches.readSketch(new ByteArrayInputStream(body))).status());

        byte[] magic = img.clone();
        magic[0] = 'X';
        assertEquals(Status.BAD_MAGIC, assertThrows(SketchException.class,
                () -> CountMinSketch.readFrom(new ByteArrayInputStream(magic))).status());
        assertEquals(Status.BAD_MAGIC,
                assertThrows(SketchException.class, () -> CountMinSketch.fromByteArray(magic)).status());

        byte[] newer = img.clone();
        newer[4] = (byte) (Sketches.FORMAT_MAJOR + 1);
        assertEquals(Status.UNSUPPORTED_VERSION, assertThrows(SketchException.class,
                () -> Sketches.readSketch(new ByteArrayInputStream(newer))).status());
        assertEquals(Status.UNSUPPORTED_VERSION,
                assertThrows(SketchException.class, () -> CountMinSketch.fromByteArray(newer)).status());

        byte[] unknown = img.clone();
        unknown[6] = 99;
        assertEquals(Status.CORRUPT_HEADER, assertThrows(SketchException.class,
                () -> Sketches.readSketch(new ByteArrayInputStream(unknown))).status());

        byte[] shortHeader = img.clone();
        ByteBuffer.wrap(shortHeader).order(ByteOrder.LITTLE_ENDIAN).putShort(10, (short) 8);
        assertEquals(Status.CORRUPT_HEADER, assertThrows(SketchException.class,
                () -> CountMinSketch.readFrom(new ByteArrayInputStream(shortHeader))).status());
    }

    @Test
    void aHeaderTheLibraryRefusesStopsTheReadAfterItsBytes() {
        // Every check of the common header is the library's, from the 48 bytes alone: a major of 0
        // and a set reserved field were read with the whole announced image first; the error still
        // names the reason, and nothing past the header is read (its length is not trusted).
        byte[] img = TestKeys.goldenImage("bloom");
        Object[][] cases = {
            {4, 0, "format major 0"}, {47, 1, "common header is damaged"}, {6, 99, "unknown family 99"},
            {10, 52, "a header of 52"}, {24, (img[24] | 3), "and a header of"},
        };
        for (Object[] c : cases) {
            byte[] bad = img.clone();
            bad[(int) c[0]] = (byte) (int) c[1];
            MeteredStream in = new MeteredStream(bad, Integer.MAX_VALUE);
            SketchException e = assertThrows(SketchException.class, () -> Sketches.readSketch(in));
            assertEquals(Status.CORRUPT_HEADER, e.status(), e.getMessage());
            assertTrue(e.getMessage().contains((String) c[2]), e.getMessage());
            assertEquals(48, in.consumed(), e.getMessage());
        }
        // An unknown hash id is fromByteArray's to judge, as for bytes.
        byte[] hash = img.clone();
        hash[8] = (byte) 0xEE;
        assertEquals(assertThrows(SketchException.class, () -> BloomFilter.fromByteArray(hash)).status(),
                assertThrows(SketchException.class, () -> BloomFilter.readFrom(new ByteArrayInputStream(hash)))
                        .status());
    }

    @Test
    void inspectHeaderReadsTheRecordedLengthFromTheHeaderAlone() {
        byte[] img = TestKeys.goldenImage("bloom");
        byte[] head = java.util.Arrays.copyOf(img, 48);
        assertEquals(Status.BUFFER_TOO_SMALL,
                assertThrows(SketchException.class, () -> Sketches.inspect(head)).status());
        assertEquals(Sketches.inspect(img), Sketches.inspectHeader(head));
        assertEquals(img.length, Sketches.inspectHeader(img).imageBytes());
        assertEquals(-64L, Sketches.inspectHeader(withImageLength(img, -64L)).imageBytes());
        assertEquals(Status.BUFFER_TOO_SMALL, assertThrows(SketchException.class,
                () -> Sketches.inspectHeader(java.util.Arrays.copyOf(img, 47))).status());
        byte[] magic = head.clone();
        magic[0] = 'X';
        assertEquals(Status.BAD_MAGIC,
                assertThrows(SketchException.class, () -> Sketches.inspectHeader(magic)).status());
        assertThrows(NullPointerException.class, () -> Sketches.inspectHeader(null));
    }

    @Test
    void wrongFamilyIsRefusedBeforeTheBodyIsRead() {
        byte[] bloom = TestKeys.goldenImage("bloom");
        MeteredStream in = new MeteredStream(bloom, Integer.MAX_VALUE);
        SketchException e = assertThrows(SketchException.class, () -> HyperLogLog.readFrom(in));
        assertEquals(Status.WRONG_FAMILY, e.status());
        assertTrue(e.getMessage().contains("BloomFilter"), e.getMessage());
        assertEquals(48, in.consumed());
        assertEquals(Status.WRONG_FAMILY, assertThrows(SketchException.class,
                () -> SplitBlockBloomFilter.readFrom(new ByteArrayInputStream(bloom))).status());
    }

    @Test
    void callerStreamExceptionsPropagateUnchanged() {
        IOException boom = new IOException("boom");
        byte[] img = TestKeys.goldenImage("ull");
        InputStream failing = new InputStream() {
            private int pos;

            @Override
            public int read() throws IOException {
                if (pos == 100) {
                    throw boom;
                }
                return img[pos++] & 0xff;
            }
        };
        assertSame(boom, assertThrows(IOException.class, () -> UltraLogLog.readFrom(failing)));
        OutputStream refusing = new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw boom;
            }
        };
        UltraLogLog ull = UltraLogLog.fromByteArray(img);
        assertSame(boom, assertThrows(IOException.class, () -> ull.writeTo(refusing)));
        assertThrows(NullPointerException.class, () -> ull.writeTo(null));
        assertThrows(NullPointerException.class, () -> UltraLogLog.readFrom(null));
        assertThrows(NullPointerException.class, () -> Sketches.readSketch(null));
    }
}
