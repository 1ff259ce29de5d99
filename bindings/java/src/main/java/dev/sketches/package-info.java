/**
 * Probabilistic sketches in aligned direct ByteBuffers, through JNI over the sketches C ABI.
 *
 * <p>One class per family: {@link dev.sketches.BloomFilter}, {@link
 * dev.sketches.SplitBlockBloomFilter}, {@link dev.sketches.CountingBloomFilter}, {@link
 * dev.sketches.CuckooFilter}, {@link dev.sketches.BinaryFuseFilter}, {@link
 * dev.sketches.HyperLogLog}, {@link dev.sketches.UltraLogLog}, {@link dev.sketches.ExaLogLog},
 * {@link dev.sketches.CountMinSketch}, {@link dev.sketches.TopK}, {@link dev.sketches.MinHash}.
 * Each object owns its image (the serialized form is the live memory: exporting adds a checksum),
 * so there is nothing to close or free. Images are byte-identical to those C, C++ and Go programs
 * make for the same keys.
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
 * <p>Errors: {@link dev.sketches.SketchException} carries the C status ({@link
 * dev.sketches.Status}); bad arguments at the Java boundary throw {@link
 * IllegalArgumentException}. The native library is loaded from the jar on first use (override:
 * {@code -Ddev.sketches.native.path=/path/to/libsketches_jni.so}).
 */
package dev.sketches;
