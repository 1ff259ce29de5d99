/**
 * Probabilistic sketches in aligned direct ByteBuffers, through JNI over the sketches C ABI.
 *
 * <p>One class per family: {@link dev.sketches.BloomFilter}, {@link
 * dev.sketches.SplitBlockBloomFilter}, {@link dev.sketches.CountingBloomFilter}, {@link
 * dev.sketches.CuckooFilter}, {@link dev.sketches.BinaryFuseFilter}, {@link
 * dev.sketches.HyperLogLog}, {@link dev.sketches.UltraLogLog}, {@link dev.sketches.ExaLogLog},
 * {@link dev.sketches.CountMinSketch}, {@link dev.sketches.TopK}, {@link dev.sketches.MinHash}.
 * Each object owns its image (the exported bytes are the live memory plus a checksum),
 * so there is nothing to close or free (no class is {@link AutoCloseable}: the garbage collector
 * frees the image once the object is unreachable, never while a call runs). Sketches are mutable,
 * so {@code equals} and {@code hashCode} are Object's (identity); two sketches hold the same
 * content when their {@code toByteArray()} bytes are equal. Images are byte-identical to those C, C++ and Go programs
 * make for the same keys.
 *
 * <p>Keys: {@code byte[]} as they are, {@code String} as its UTF-8 bytes, {@code long} (and {@code
 * int}, {@code short}, {@code byte}, widened with their sign; a Parquet-mode {@link
 * dev.sketches.SplitBlockBloomFilter} takes an {@code int} as an INT32 value) as its 8
 * little-endian bytes. A {@code char} is not a key: the single-key methods refuse it with
 * IllegalArgumentException (Java would widen {@code 'x'} to the integer 120, not the key "x");
 * pass {@code String.valueOf(c)}.
 *
 * <pre>{@code
 * BloomFilter seen = BloomFilter.create(1_000_000, 0.01);
 * if (seen.add("alice")) { ... }                  // true: new to the filter
 * seen.addAll(new String[] {"bob", "carol"});     // one native call per 16,384 keys
 * boolean maybe = seen.contains("dave");
 * if (seen.isOverCapacity()) { ... }              // planned for 1M, got more
 * byte[] bytes = seen.toByteArray();              // any binding reads these
 * BloomFilter copy = BloomFilter.fromByteArray(bytes);
 *
 * BinaryFuseFilter allowed = BinaryFuseFilter.build(keys, 8, 0); // static: every key at once, rate 2^-8
 * boolean listed = allowed.contains("alice");
 * ExaLogLog users = ExaLogLog.create(12, ExaLogLog.D20, 0);     // 2^12 registers of 28 bits
 * users.addAll(userIds);
 * double distinct = users.estimate();
 * }</pre>
 *
 * <p>Streams (files, sockets): every class's {@code writeTo(OutputStream)} writes exactly its
 * {@code toByteArray()} bytes without a copy of the image (the checksum computed in place, then
 * chunks of at most 64 KiB: the extra heap does not grow with the image; a change during the write
 * throws ConcurrentModificationException before a byte copied after it is written, so a stream
 * never holds a torn image under a valid checksum; concurrent adds, which take no guard, are found
 * after the last byte, when the checksum taken again has moved: use {@code toByteArray()} while
 * they run); its static {@code readFrom(InputStream)} reads exactly one image back
 * (the header, then exactly the bytes it announces, allocating as they arrive, never the announced
 * length up front), and {@link dev.sketches.Sketches#readSketch(java.io.InputStream)} one image of
 * any family. Both return null at the end of the stream and throw {@link java.io.EOFException} for
 * a stream that ends inside an image, so images written one after another read back in order.
 *
 * <p>Java serialization: every sketch class is {@link java.io.Serializable}, so a sketch can be a
 * field of a serializable object, captured in a Spark closure or broadcast. The serialized form is
 * the exported image ({@code toByteArray()}, the checksummed bytes every binding reads; the stream
 * adds about 100 bytes of framing), written through one package-private serialization proxy with
 * the family id the image header carries; reading it back goes through that family's {@code
 * fromByteArray}, which checks the headers (the family among them), the exact length and the
 * checksum, and returns a new sketch owning its image. A damaged, truncated or forged image throws
 * {@link java.io.InvalidObjectException} (its cause the import's {@link
 * dev.sketches.SketchException}) or the stream's own {@link java.io.StreamCorruptedException} or
 * {@link java.io.EOFException}; a stream naming a sketch class itself rather than its proxy is
 * refused. A sketch made by {@code wrap} (a mapped file, a read-only buffer) is written from the
 * caller's buffer and read back as an ordinary owned, writable sketch: the buffer is not
 * serialized, and changes to the copy do not reach it. Serializing costs one export (the image
 * size in bytes, copied, plus the checksum pass) and is a query: it may run concurrently with other
 * queries, not with a change or with the concurrent methods (a change running meanwhile makes it
 * throw {@link java.util.ConcurrentModificationException}, not write a torn image; the concurrent
 * methods are not seen); a wrapped buffer whose memory the JDK
 * released throws {@link IllegalStateException} as every other call does. Kryo does not use this
 * form by itself: register each sketch class with Kryo's {@code JavaSerializer} (in Spark, {@code
 * dev.sketches.spark.SketchesKryoRegistrator}); an unregistered sketch is copied by Kryo without its
 * image (the image field is transient) and throws {@link IllegalStateException} naming the
 * registrator when used: Kryo's default instantiator, and Spark's, make the copy through the
 * class's no-argument constructor, which gives it a stand-in image that says so (a Kryo told to
 * skip constructors, {@code StdInstantiatorStrategy} alone, leaves the field null: {@link
 * NullPointerException}).
 *
 * <p>Wrapped buffers ({@code wrap}, {@code wrapVerified}): the sketch uses the caller's memory
 * for as long as it is used, and keeps the buffer object reachable. The JDK's own buffers are
 * safe: memory from {@link java.nio.ByteBuffer#allocateDirect} or {@code FileChannel.map} stays
 * while the sketch (through the buffer) is reachable, and a MemorySegment's buffer (Java 22+) is
 * checked before each call, so a closed Arena gives {@link IllegalStateException} (an Arena closed
 * by another thread while a call runs is not seen: close it only once no call can run). Memory
 * released by other means while the sketch is used is not seen either: a pooled buffer returned to
 * its pool (Netty's {@code ByteBuf.nioBuffer()}), a buffer freed with {@code
 * Unsafe.invokeCleaner}, memory of {@code JNI NewDirectByteBuffer} freed by native code, a mapped
 * file truncated by another process (SIGBUS): native code then reads and writes memory that is no
 * longer the image, which crashes the JVM or corrupts whatever uses it next, as Java code reading
 * such a buffer would. Writes to the buffer by code other than sketch objects of this binding (a
 * writable alias of a read-only buffer written through Java, another process sharing a mapped
 * file, a second mapping of the file) are changes the sketch does not see coming: made while a
 * call runs they give that call wrong answers, as a change racing a query does; a rewritten header
 * is seen (the next call checks it again), and native code stays within the buffer's bytes
 * whatever they hold. Other sketch objects over the same memory take turns with it (below).
 *
 * <p>Objects over one memory take turns as one object. That is {@code wrap} (or {@code
 * wrapVerified}) called twice on one buffer (a MappedByteBuffer shared by two request handlers, its
 * duplicate or slice), on overlapping slices of one direct buffer, or on a sketch's {@code image()}
 * (a read-only view of its memory, or a slice of it) beside that sketch. Between them the rules of
 * one object apply: a change through one while a change through another runs throws {@link
 * java.util.ConcurrentModificationException} before native code runs and changes nothing, and an
 * export or conversion of one, or a merge or {@code jaccard} reading one, that overlaps a change
 * through another throws it too (before, each object had a guard of its own: two threads adding
 * through two wraps of one buffer lost adds, and an export through one returned an image torn by an
 * add through the other under a valid checksum); other queries are not checked, as on one object.
 * The cost of a call stays that of one object (one compare-and-set per change): {@code wrap} looks
 * up, once and under one lock, the memory of the live wrapped objects (and of the sketches whose
 * {@code image()} was handed out) and gives the new object the change guard of those its memory
 * overlaps. When it overlaps objects that do not overlap each other (B wrapped over the end of A
 * and the start of C, after both), B takes the guards of all of them, one compare-and-set each: a
 * change of B excludes A and C, one of A or C excludes B, and A and C still change side by side.
 * Objects linked by a chain of overlaps may share a guard although their own memory does not
 * overlap (A, then B over part of A, then D over part of B only: A and D take turns), and a group
 * keeps the address range of its objects until all of them are unreachable, so a later wrap of
 * memory that only a gone member covered still joins the group; both cost turns (a
 * ConcurrentModificationException where no overlap is), never a missed overlap, and a merge between
 * two such objects works. What is compared is addresses of this process, as this class loader sees
 * them: two mappings of one file ({@code FileChannel.map} called twice, or two processes), and
 * objects whose classes another class loader loaded, are not seen as the same memory (map once and
 * share the buffer). The concurrent methods ({@code *Concurrent}) take no guard at all, on one
 * object as across objects (below).
 *
 * <p>The concurrent methods and the others on one memory. The concurrent methods ({@code
 * addConcurrent}, {@code containsConcurrent}, ... of {@link dev.sketches.BloomFilter}, {@link
 * dev.sketches.SplitBlockBloomFilter}, {@link dev.sketches.HyperLogLog} and {@link
 * dev.sketches.UltraLogLog}) take no change guard, on purpose: they are atomic among themselves,
 * and a counter they all updated would put contention on every concurrent add. So nothing records
 * that they run, and a call of any other method while they run on the same memory (through the
 * same object, or another over that memory), against the rules, is neither refused nor waited for:
 * it races them. A change made so (an add, merge, clear, fold, densify, ...) reads and writes the
 * image with plain loads and stores, so it can overwrite bits, registers and header counters that
 * concurrent adds wrote meanwhile, and they can write into its half-made result: adds of either
 * side may be lost (a filter may then answer false for a key whose add returned), counters may
 * disagree with the body (statistics, capacity flags and estimates off), a fold or clear may keep
 * part of a concurrent add, and a HyperLogLog cleared back to its small mode may hold registers of
 * concurrent adds read as small-mode entries. A header left inconsistent is refused by later calls
 * with {@link dev.sketches.SketchException} ({@link dev.sketches.Status#CORRUPT_HEADER}), {@code
 * clear()} included, and the sketch must then be made anew (a new sketch, or a fresh image copied
 * over the wrapped memory). A query or export made meanwhile sees a state between adds (an export
 * checksums it as it is: it is not refused), and a HyperLogLog call that reads the header while a
 * concurrent add holds the straddle lock word throws CORRUPT_HEADER. The concurrent adds may throw
 * SketchException meanwhile too: {@link dev.sketches.Status#SMALL_MODE} after a HyperLogLog went
 * back to small mode, CORRUPT_HEADER for a header they find half-written. None of this can crash
 * the JVM: the concurrent methods write only within the image (atomic operations on its 64-bit
 * words, each index checked against the length the call was given), every other native call checks
 * the headers it relies on and stays within the image whatever its bytes hold, as on a damaged
 * image, and the library has no panic path; the worst case is that of a damaged image, wrong
 * answers and SketchException.
 *
 * <p>Errors: {@link dev.sketches.SketchException} carries the C status ({@link
 * dev.sketches.Status}); bad arguments at the Java boundary throw {@link
 * IllegalArgumentException}. A null argument throws {@link NullPointerException} whose message is
 * the parameter's name ({@code "key"}, {@code "other"}, {@code "buffer"}, ...), and a null element
 * of a batch one reading {@code "keys[i] is null"}, both before anything changes (a batch adds
 * none of its keys); only the parameters documented as "null, or ..." accept null (the per-key
 * outputs {@code wasNew} and {@code added}, and {@code weights}, 1 each). The native library is loaded from the jar on first use (override:
 * {@code -Ddev.sketches.native.path=/path/to/libsketches_jni.so}).
 */
package dev.sketches;
