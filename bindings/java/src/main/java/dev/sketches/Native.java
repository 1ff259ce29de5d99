package dev.sketches;

import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidObjectException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.UserPrincipal;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The one boundary helper of the binding: loads the native library, turns statuses into
 * exceptions, allocates aligned image buffers and packs batches of keys. Package-private; every
 * family class goes through it.
 *
 * <p>Native library: {@code libsketches_jni.so} (the JNI glue linked statically with
 * {@code libsketches.a}) is a resource of the jar under
 * {@code dev/sketches/native/<os>-<arch>/}. On first use it is copied to the temporary directory
 * under a name carrying its content hash (so several versions and several JVMs coexist, and a
 * file left by an earlier run is reused only when its bytes match, it belongs to this process's
 * user or root and no other user may write it) and loaded with {@link System#load}. When that name is
 * taken by a file this process may not replace (another user's, in a shared temporary
 * directory), a private copy (deleted on exit) is loaded instead. The system property {@value #PATH_PROPERTY} names a library file to load
 * instead. A class loader loading these classes after another one in the same JVM loads a
 * private copy of that file, as the JVM binds a library file to one class loader.
 */
final class Native {
    /** System property naming a native library file to load instead of the jar's. */
    static final String PATH_PROPERTY = "dev.sketches.native.path";

    /** Keys per native call in a batch: bounds the time arrays stay pinned (GC latency). */
    static final int CHUNK = 1 << 14;

    /**
     * String keys of at most this many chars go to native code as the String itself (read with
     * GetStringRegion and encoded to UTF-8 there, no Java allocation); longer ones as their
     * UTF-8 bytes (SK_STACK_CHARS in jni_util.h).
     */
    static final int STR_MAX = 256;

    /** The alignment of the image buffers this binding allocates (SKETCH_IMAGE_ALIGN). */
    static final int IMAGE_ALIGN = 64;

    /** The alignment a live image needs (SKETCH_IMAGE_MIN_ALIGN). */
    static final int IMAGE_MIN_ALIGN = 8;

    /** Bytes of a {@code sketch_token} (SKETCH_TOKEN_WORDS 64-bit words); it needs 8-byte alignment. */
    static final int TOKEN_BYTES = 64;

    private static volatile boolean loaded;

    private Native() {}

    /** Loads the native library once (idempotent, thread-safe). */
    static void load() {
        if (loaded) {
            return;
        }
        synchronized (Native.class) {
            if (loaded) {
                return;
            }
            String path = System.getProperty(PATH_PROPERTY);
            Path lib = path != null && !path.isEmpty() ? Paths.get(path).toAbsolutePath() : extract();
            try {
                System.load(lib.toString());
            } catch (UnsatisfiedLinkError e) {
                if (!String.valueOf(e.getMessage()).contains("already loaded in another classloader")) {
                    throw e;
                }
                // This class is loaded again by another class loader (an application server's
                // redeploy, a Spark session's or plugin's own loader) while the first one keeps the
                // file: the JVM binds a library file to one class loader, so load a copy.
                loadPrivateCopy(lib, e);
            }
            int v = version();
            if (v / 100 != (Sketches.VERSION_MAJOR * 10000 + Sketches.VERSION_MINOR * 100) / 100) {
                throw new UnsatisfiedLinkError(
                        "native library version " + v + " does not match the Java classes " + Sketches.VERSION);
            }
            loaded = true;
        }
    }

    /**
     * Loads a private copy of the library file {@code lib} (which another class loader of this JVM
     * loaded): a new owner-only temporary file, deleted once loaded (or on exit where a loaded
     * library cannot be deleted).
     */
    private static void loadPrivateCopy(Path lib, UnsatisfiedLinkError cause) {
        Path copy = null;
        try {
            copy = Files.createTempFile(
                    Paths.get(System.getProperty("java.io.tmpdir")), "dev.sketches-", "-" + lib.getFileName());
            Files.copy(lib, copy, StandardCopyOption.REPLACE_EXISTING);
            System.load(copy.toString());
        } catch (IOException e) {
            UnsatisfiedLinkError err = new UnsatisfiedLinkError(cause.getMessage()
                    + "; copying it for this class loader failed: " + e);
            err.initCause(e);
            throw err;
        } finally {
            if (copy != null) {
                try {
                    Files.deleteIfExists(copy);
                } catch (IOException e) {
                    copy.toFile().deleteOnExit();
                }
            }
        }
    }

    /** {@code <os>-<arch>} of this JVM, as used in the resource path. */
    static String platform() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (os.startsWith("linux")) {
            os = "linux";
        } else if (os.startsWith("mac") || os.startsWith("darwin")) {
            os = "darwin";
        } else if (os.startsWith("windows")) {
            os = "windows";
        }
        if (arch.equals("amd64") || arch.equals("x86_64")) {
            arch = "x86_64";
        } else if (arch.equals("arm64") || arch.equals("aarch64")) {
            arch = "aarch64";
        }
        return os + "-" + arch;
    }

    private static String libraryName(String platform) {
        if (platform.startsWith("windows")) {
            return "sketches_jni.dll";
        }
        return platform.startsWith("darwin") ? "libsketches_jni.dylib" : "libsketches_jni.so";
    }

    private static Path extract() {
        String platform = platform();
        String resource = "native/" + platform + "/" + libraryName(platform);
        byte[] bytes;
        try (InputStream in = Native.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new UnsatisfiedLinkError("no native library for " + platform + " in the jar (dev/sketches/"
                        + resource + "); build it for this platform or set -D" + PATH_PROPERTY + "=<file>");
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            throw linkError("cannot read the native library from the jar (dev/sketches/" + resource + ")", e);
        }
        String hash = sha256(bytes).substring(0, 16);
        Path dir = Paths.get(System.getProperty("java.io.tmpdir"));
        Path target = dir.resolve("dev.sketches-" + Sketches.VERSION + "-" + hash + "-" + libraryName(platform));
        try {
            // A private file (owner-only permissions where the file system has them); it also tells
            // which user this process runs as.
            Path tmp;
            try {
                tmp = Files.createTempFile(dir, "dev.sketches-", ".tmp");
            } catch (IOException e) {
                // A directory this process may not write: a library placed there beforehand still loads.
                if (trusted(target, userNamed(dir, System.getProperty("user.name"))) && holds(target, hash)) {
                    return target;
                }
                throw e;
            }
            boolean loadTmp = false;
            try {
                if (trusted(target, Files.getOwner(tmp)) && holds(target, hash)) {
                    return target;
                }
                Files.write(tmp, bytes);
                try {
                    // Moved into place atomically: concurrent JVMs never load a partial file.
                    try {
                        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    } catch (AtomicMoveNotSupportedException e) {
                        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                    return target;
                } catch (IOException e) {
                    // The name is taken by something this process may not replace (another user's
                    // file in a shared temporary directory, a directory): load the private copy.
                    loadTmp = true;
                    tmp.toFile().deleteOnExit();
                    return tmp;
                }
            } finally {
                if (!loadTmp) {
                    Files.deleteIfExists(tmp);
                }
            }
        } catch (IOException e) {
            throw linkError("cannot extract the native library to " + target + " (" + e + "): set -Djava.io.tmpdir to a"
                    + " directory this process may write, or -D" + PATH_PROPERTY + "=<file> to load a copy", e);
        }
    }

    /**
     * An UnsatisfiedLinkError (what a missing platform library throws too) with {@code cause}: an
     * Error, so a family's static initializer passes it on as it is, where an unchecked exception
     * became an ExceptionInInitializerError without a message.
     */
    private static UnsatisfiedLinkError linkError(String message, Throwable cause) {
        UnsatisfiedLinkError e = new UnsatisfiedLinkError(message);
        e.initCause(cause);
        return e;
    }

    /**
     * Whether an existing file may be loaded: a regular file (not a link) owned by {@code me} (this
     * process's user; null when unknown) or by root, that neither its group nor others may write,
     * so that no other user can change its bytes between the hash check and the load.
     */
    private static boolean trusted(Path file, UserPrincipal me) {
        try {
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
                return false;
            }
            UserPrincipal owner = Files.getOwner(file, LinkOption.NOFOLLOW_LINKS);
            if (!owner.equals(me) && !owner.getName().equals("root")) {
                return false;
            }
            PosixFileAttributeView posix =
                    Files.getFileAttributeView(file, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
            if (posix != null) {
                Set<PosixFilePermission> perms = posix.readAttributes().permissions();
                return !perms.contains(PosixFilePermission.GROUP_WRITE) && !perms.contains(PosixFilePermission.OTHERS_WRITE);
            }
            return true;
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }

    /** The user of that name on the file system of {@code dir}, or null when it cannot be looked up. */
    private static UserPrincipal userNamed(Path dir, String name) {
        try {
            return name == null ? null : dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(name);
        } catch (IOException | UnsupportedOperationException e) {
            return null;
        }
    }

    /** Whether a file's SHA-256 starts with {@code hash} (false when it cannot be read). */
    private static boolean holds(Path file, String hash) {
        try {
            return sha256(Files.readAllBytes(file)).startsWith(hash);
        } catch (IOException e) {
            return false;
        }
    }

    private static String sha256(byte[] bytes) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(bytes);
            StringBuilder sb = new StringBuilder(64);
            for (byte b : d) {
                sb.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
            }
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    // ---- natives shared by every family (sketches.c) ----

    /** The address of a direct buffer (0 for a heap buffer). */
    static native long address(ByteBuffer buffer);

    /** sketch_version(): major * 10000 + minor * 100 + patch. */
    static native int version();

    /** sketch_status_str(status). */
    static native String statusText(int status);

    /** sketch_hash over {@code len} bytes of {@code key} from {@code off}. */
    static native long hash(byte[] key, int off, int len, long seed);

    /** sketch_hash_u64. */
    static native long hashU64(long key, long seed);

    /** sketch_image_inspect into out[8] (see sketches.c). */
    static native void inspect(byte[] bytes, long[] out);

    /** As {@link #inspect}, over {@code len} bytes of an image in place at {@code addr}. */
    static native void inspectAt(long addr, long len, long[] out);

    /**
     * sketch_image_inspect_header over the first 48 bytes of {@code head} (at least 48 long): the
     * status, with out[8] filled as by {@link #inspect} only when it is {@link Status#OK}; throws
     * nothing for a refused header.
     */
    static native int inspectHeader(byte[] head, long[] out);

    /**
     * The sealed header of a zero-copy stream write of the image at {@code addr} ({@code len}
     * bytes) of family {@code family} ({@code Sketches.FAMILY_*}): checks the image in place as
     * its export does (the family's {@code sketch_*_exported_size}), then, when the export is the
     * live image itself, copies its 48-byte common header into {@code head} (at least 48 long)
     * with the export's checksum at offset 32, computed over the live image in place (XXH3-64 of
     * the bytes after the checksum field, seeded with XXH3-64 of the bytes before it).
     *
     * @return the export's length in bytes; 0 (head unwritten) when the export is not the live
     *     image (a small HyperLogLog's compact export: export instead)
     * @throws SketchException for an image its export refuses
     */
    static native long sealedHeader(int family, long addr, long len, byte[] head);

    // ---- image buffers ----

    /**
     * A fresh zeroed direct buffer of exactly {@code bytes} bytes starting on a 64-byte boundary.
     *
     * @throws IllegalArgumentException when the size exceeds what one ByteBuffer holds
     */
    static ByteBuffer allocate(long bytes) {
        return aligned(bytes, 0).slice(0, (int) bytes).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * A zeroed direct buffer starting on a 64-byte boundary holding {@code bytes} rounded up to a
     * multiple of 64, then {@code tail} bytes rounded up likewise.
     *
     * @throws IllegalArgumentException when the size exceeds what one ByteBuffer holds
     */
    private static ByteBuffer aligned(long bytes, int tail) {
        if (bytes < 0 || bytes > Integer.MAX_VALUE - 2 * IMAGE_ALIGN) {
            throw new IllegalArgumentException("an image of " + bytes
                    + " bytes does not fit in one ByteBuffer (at most " + (Integer.MAX_VALUE - 2 * IMAGE_ALIGN) + ")");
        }
        // alignedSlice rounds the end down to the alignment too: allocate whole units.
        int units = roundUp((int) bytes) + roundUp(tail);
        return ByteBuffer.allocateDirect(units + IMAGE_ALIGN - 1).alignedSlice(IMAGE_ALIGN);
    }

    /** {@code n} rounded up to a multiple of {@link #IMAGE_ALIGN}. */
    private static int roundUp(int n) {
        return (n + IMAGE_ALIGN - 1) / IMAGE_ALIGN * IMAGE_ALIGN;
    }

    /**
     * Checks a caller's buffer for {@code wrap}: direct, 8-byte aligned; returns the view from its
     * position to its limit (sharing its bytes).
     */
    static ByteBuffer wrappable(ByteBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("wrap needs a direct ByteBuffer (use fromByteArray for heap bytes)");
        }
        ByteBuffer view = buffer.slice().order(ByteOrder.LITTLE_ENDIAN);
        long addr = address(view);
        if (addr == 0) {
            throw new IllegalArgumentException("the buffer has no native address");
        }
        if (addr % IMAGE_MIN_ALIGN != 0) {
            throw new IllegalArgumentException(
                    "a live image must start on an 8-byte boundary (address " + Long.toHexString(addr) + ")");
        }
        return view;
    }

    // ---- keys ----

    /**
     * Whether a key buffer is direct, so that native code reads its {@code n} bytes from {@code
     * pos} at its address. A non-empty direct key's byte at {@code pos} is read through Java
     * first: a buffer whose memory the JDK released (the ByteBuffer of a MemorySegment whose Arena
     * was closed, Java 22+) throws IllegalStateException here, as Java access to it does, instead
     * of native code reading released memory (see {@link Image}).
     */
    static boolean direct(ByteBuffer key, int pos, int n) {
        if (!key.isDirect()) {
            return false;
        }
        if (n > 0) {
            key.get(pos);
        }
        return true;
    }

    /**
     * Key {@code i} of a batch ({@code keys}, as every batch parameter is named), checked before
     * the batch changes anything.
     *
     * @throws NullPointerException "keys[i] is null" when it is null
     */
    static <T> T nonNullKey(T key, int i) {
        if (key == null) {
            throw new NullPointerException("keys[" + i + "] is null");
        }
        return key;
    }

    /** UTF-8 bytes of a String key. */
    static byte[] utf8(String key) {
        return key.getBytes(StandardCharsets.UTF_8);
    }

    /** Keys in the Arrow Binary layout: key i is data[offsets[i] .. offsets[i + 1]). */
    record Packed(byte[] data, int[] offsets) {
        int count() {
            return offsets.length - 1;
        }
    }

    /** Packs byte-string keys into one array plus count + 1 offsets. */
    static Packed pack(byte[][] keys) {
        Objects.requireNonNull(keys, "keys");
        long total = 0;
        for (int i = 0; i < keys.length; i++) {
            total += nonNullKey(keys[i], i).length;
        }
        byte[] data = new byte[checkBatchBytes(total)];
        int[] offsets = new int[keys.length + 1];
        int pos = 0;
        for (int i = 0; i < keys.length; i++) {
            byte[] k = keys[i];
            System.arraycopy(k, 0, data, pos, k.length);
            pos += k.length;
            offsets[i + 1] = pos;
        }
        return new Packed(data, offsets);
    }

    /**
     * Packs String keys as UTF-8 into one array plus count + 1 offsets. ASCII characters are
     * written directly into a buffer sized for the all-ASCII case; a string holding any other
     * character is encoded with {@link String#getBytes} (the JDK's encoder), so the bytes are
     * exactly the UTF-8 encoding, unpaired surrogates becoming '?' as in getBytes.
     */
    static Packed pack(String[] keys) {
        Objects.requireNonNull(keys, "keys");
        long chars = 0;
        for (int i = 0; i < keys.length; i++) {
            chars += nonNullKey(keys[i], i).length();
        }
        // Invariant: data has room for pos + the chars of every key not yet packed (all-ASCII case).
        byte[] data = new byte[checkBatchBytes(chars)];
        int[] offsets = new int[keys.length + 1];
        long rest = chars;
        int pos = 0;
        for (int i = 0; i < keys.length; i++) {
            String k = keys[i];
            int n = k.length();
            rest -= n;
            int j = 0;
            for (; j < n; j++) {
                char c = k.charAt(j);
                if (c >= 0x80) {
                    break;
                }
                data[pos + j] = (byte) c;
            }
            if (j == n) {
                pos += n;
            } else {
                byte[] b = k.getBytes(StandardCharsets.UTF_8);
                long need = pos + b.length + rest;
                if (need > data.length) {
                    data = Arrays.copyOf(data, checkBatchBytes(Math.max(need, Math.min(Integer.MAX_VALUE - 8L, data.length * 3L / 2))));
                }
                System.arraycopy(b, 0, data, pos, b.length);
                pos += b.length;
            }
            offsets[i + 1] = pos;
        }
        return new Packed(data, offsets);
    }

    /** A new capacity of at least {@code need}: doubling, capped at the largest array. */
    private static int grow(int need, int have) {
        return (int) Math.max(need, Math.min(Integer.MAX_VALUE - 8L, have * 2L));
    }

    private static int checkBatchBytes(long bytes) {
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("the keys of one batch exceed 2 GiB; split the batch");
        }
        return (int) bytes;
    }

    /** One native call over a chunk of packed keys: data and offsets (from 0), keys [from, from + count). */
    @FunctionalInterface
    interface PackedCall {
        void run(byte[] data, int[] offsets, int from, int count);
    }

    /**
     * Runs a String batch chunk by chunk ({@link #CHUNK} keys), each chunk packed as UTF-8 into
     * buffers reused across chunks (they stay small and in cache, and nothing batch-sized is
     * allocated). ASCII keys (all of them, usually) are copied with {@link String#getChars} and
     * narrowed in one loop over the chunk; a chunk holding any other character is encoded key by
     * key with {@link String#getBytes}, so the bytes are exactly the UTF-8 encoding. Every key is
     * checked for null before the first call, so a batch fails before changing anything.
     */
    static void forChunks(String[] keys, PackedCall call) {
        Objects.requireNonNull(keys, "keys");
        for (int i = 0; i < keys.length; i++) {
            nonNullKey(keys[i], i);
        }
        int[] offsets = new int[Math.min(CHUNK, keys.length) + 1];
        char[] chars = new char[1024];
        byte[] data = new byte[0];
        for (int from = 0; from < keys.length; from += CHUNK) {
            int n = Math.min(CHUNK, keys.length - from);
            // One pass over the Strings (each touched once): their chars, back to back.
            int pos = 0;
            for (int i = 0; i < n; i++) {
                String k = keys[from + i];
                int kl = k.length();
                if (kl > chars.length - pos) {
                    chars = Arrays.copyOf(chars, grow(checkBatchBytes((long) pos + kl), chars.length));
                }
                k.getChars(0, kl, chars, pos);
                pos += kl;
                offsets[i + 1] = pos;
            }
            if (data.length < pos) {
                data = new byte[chars.length];
            }
            int any = 0;
            for (int j = 0; j < pos; j++) {
                char c = chars[j];
                any |= c;
                data[j] = (byte) c;
            }
            if (any >= 0x80) {
                // Some key is not ASCII: encode every key of this chunk as UTF-8.
                pos = 0;
                for (int i = 0; i < n; i++) {
                    byte[] b = utf8(keys[from + i]);
                    if (pos + b.length > data.length) {
                        data = Arrays.copyOf(data, grow(pos + b.length, data.length));
                    }
                    System.arraycopy(b, 0, data, pos, b.length);
                    pos += b.length;
                    offsets[i + 1] = pos;
                }
            }
            call.run(data, offsets, from, n);
        }
    }

    /** Runs a byte-string batch chunk by chunk, each chunk packed into buffers reused across chunks. */
    static void forChunks(byte[][] keys, PackedCall call) {
        Objects.requireNonNull(keys, "keys");
        for (int i = 0; i < keys.length; i++) {
            nonNullKey(keys[i], i);
        }
        int[] offsets = new int[Math.min(CHUNK, keys.length) + 1];
        byte[] data = new byte[0];
        for (int from = 0; from < keys.length; from += CHUNK) {
            int n = Math.min(CHUNK, keys.length - from);
            long total = 0;
            for (int i = 0; i < n; i++) {
                total += keys[from + i].length;
            }
            int len = checkBatchBytes(total);
            if (data.length < len) {
                data = new byte[grow(len, data.length)];
            }
            int pos = 0;
            for (int i = 0; i < n; i++) {
                byte[] k = keys[from + i];
                System.arraycopy(k, 0, data, pos, k.length);
                pos += k.length;
                offsets[i + 1] = pos;
            }
            call.run(data, offsets, from, n);
        }
    }

    /** Checks a caller's packed batch (Arrow layout) and returns its key count. */
    static int checkPacked(byte[] data, int[] offsets) {
        Objects.requireNonNull(data, "data");
        Objects.requireNonNull(offsets, "offsets");
        if (offsets.length == 0) {
            throw new IllegalArgumentException("offsets must have count + 1 entries (at least one)");
        }
        int prev = offsets[0];
        if (prev < 0) {
            throw new IllegalArgumentException("offsets[0] is negative");
        }
        for (int i = 1; i < offsets.length; i++) {
            int o = offsets[i];
            if (o < prev) {
                throw new IllegalArgumentException("offsets decrease at index " + i);
            }
            prev = o;
        }
        if (prev > data.length) {
            throw new IllegalArgumentException("offsets point past the data (" + prev + " > " + data.length + ")");
        }
        return offsets.length - 1;
    }

    /** Checks that {@code [off, off + len)} lies within an array of {@code length}. */
    static void checkRange(int length, int off, int len) {
        Objects.checkFromIndexSize(off, len, length);
    }

    /** Throws when a caller's output array is shorter than the batch. */
    static void checkOut(boolean[] out, int count) {
        if (out != null && out.length < count) {
            throw new IllegalArgumentException("the output array holds " + out.length + " values, the batch has " + count);
        }
    }

    /** Throws when a caller's weights array does not match the batch. */
    static void checkWeights(long[] weights, int count) {
        if (weights != null && weights.length != count) {
            throw new IllegalArgumentException("there are " + weights.length + " weights for " + count + " keys");
        }
    }

    /**
     * A refusal of two images that do not combine ({@link Status#INCOMPATIBLE}: merge, intersect,
     * jaccard) with what the common headers of both say (length, seed, hash), so the caller sees
     * which differ; any other exception as it is.
     */
    static SketchException incompatible(SketchException e, Image self, Image other) {
        if (e.status() != Status.INCOMPATIBLE) {
            return e;
        }
        return new SketchException(e, "this: " + header(self) + "; other: " + header(other));
    }

    /** Length, seed and hash of an image's common header, for a message. */
    private static String header(Image img) {
        long[] v = new long[8];
        try {
            inspectAt(img.addr(), img.len, v);
        } catch (SketchException e) {
            return "unreadable header (" + e.getMessage() + ")";
        } finally {
            Reference.reachabilityFence(img);
        }
        return v[7] + " bytes, seed " + v[6] + ", hash " + (v[1] == 2 ? "XXH64 (Parquet)" : "XXH3-64");
    }

    /** The refusal of a char key (the char overloads of the single-key methods). */
    static IllegalArgumentException charKey() {
        return new IllegalArgumentException(
                "a char is not a key (Java would widen it to its integer code): pass String.valueOf(c) for"
                        + " the character, or (long) c for the integer");
    }

    /** A bad-parameter refusal of the native planner becomes an IllegalArgumentException. */
    static RuntimeException parameter(SketchException e) {
        if (e.status() == Status.INVALID_PARAMETER) {
            return new IllegalArgumentException(e.getMessage(), e);
        }
        return e;
    }

    // ---- the image a sketch object owns or wraps ----

    /**
     * A live image: a direct buffer, its address (taken once) and length, and whether it may be
     * written. Family classes pass {@code addr(), len} to their natives and keep the Image
     * reachable across each call ({@link java.lang.ref.Reference#reachabilityFence}), so the
     * buffer's memory cannot be freed while native code uses it.
     *
     * <p>A caller's buffer ({@code wrap}) can lose its memory while the buffer object lives: the
     * ByteBuffer of a MemorySegment (Java 22+) whose Arena was closed. The JDK refuses Java access
     * to it (IllegalStateException, or WrongThreadException for a confined Arena's buffer on
     * another thread), but native code would read or write the released (possibly unmapped)
     * memory and crash the JVM. So {@link #addr()} of a wrapped image first reads the buffer's first
     * byte through Java, which throws as the JDK does; an Arena closed by another thread while a
     * call runs is beyond what a JNI library can see.
     *
     * <p>The families whose single-key calls take a {@code sketch_token} (Bloom, split-block,
     * HyperLogLog) get images with one ({@link #freshWithToken}, {@link #importedWithToken},
     * {@link #wrappedWithToken}): {@link #TOKEN_BYTES} of native memory owned with the image (after
     * the image in the same allocation, or a small buffer of its own for a wrapped image), zero
     * until {@link #fillToken} writes it. The family's constructor fills it; it is written again
     * only where the image is re-written in place under the exclusive access that needs, and read
     * by the single-key natives.
     */
    static final class Image {
        final ByteBuffer buffer;
        /** The image's address; read through {@link #addr()}. */
        private final long base;
        /** A wrapped caller's buffer, read before each use of the address (see above); else null. */
        private final ByteBuffer callerBuffer;
        final long len;
        final boolean readOnly;
        /** The token's address (8-byte aligned), or 0 when the image has no token. */
        final long token;
        /** The token's memory (keeps it reachable with the image), or null. */
        private final ByteBuffer tokenMemory;
        /** Why there is no image (a {@link #detached} stand-in), or null for a real image. */
        private final String missing;

        /**
         * The change guard ({@link #beginChange}): this image's own, or the one shared by every
         * object over memory that overlaps this image's ({@link Regions}: wrapped buffers), so
         * that they take turns as one object.
         */
        private final Guard guard;

        /**
         * Further guards a change of this image takes with {@link #guard}, or null (the common
         * case): a wrap whose memory overlapped objects of separate groups (each with its own
         * guard) takes all of theirs, so it excludes each of them while they do not exclude each
         * other ({@link Regions#join}).
         */
        private final Guard[] moreGuards;

        /** An image in memory this binding allocated, with a change guard of its own. */
        Image(ByteBuffer buffer, boolean readOnly) {
            this(buffer, readOnly, null, false, new Guard[] {new Guard()});
        }

        /**
         * An image over {@code buffer}; {@code callerMemory}: a caller's buffer ({@code wrap}),
         * whose memory is checked before each use of the address; {@code guards}: the change
         * guards it takes, the first its own ({@link Regions#join} for a caller's buffer).
         */
        Image(ByteBuffer buffer, boolean readOnly, ByteBuffer tokenMemory, boolean callerMemory, Guard[] guards) {
            this.buffer = buffer;
            this.base = address(buffer);
            this.callerBuffer = callerMemory && buffer.capacity() > 0 ? buffer : null;
            this.len = buffer.capacity();
            this.readOnly = readOnly;
            this.tokenMemory = tokenMemory;
            this.token = tokenMemory == null ? 0 : address(tokenMemory);
            this.missing = null;
            this.guard = guards[0];
            this.moreGuards = guards.length == 1 ? null : Arrays.copyOfRange(guards, 1, guards.length);
        }

        /** A stand-in without memory; every use throws IllegalStateException({@code missing}). */
        private Image(String missing) {
            this.buffer = ByteBuffer.allocate(0).order(ByteOrder.LITTLE_ENDIAN);
            this.base = 0;
            this.callerBuffer = null;
            this.len = 0;
            this.readOnly = true;
            this.tokenMemory = null;
            this.token = 0;
            this.missing = missing;
            this.guard = new Guard();
            this.moreGuards = null;
        }

        /**
         * The image of a sketch object made without one: through the family's no-argument
         * constructor, which only a framework that instantiates a class and then copies its
         * fields calls. That is Kryo's field serializer (Spark's Kryo instantiates through the
         * no-argument constructor first), which skips the transient image field: every use of
         * the copy then throws IllegalStateException naming the cure instead of
         * NullPointerException.
         */
        static Image detached(String family) {
            return new Image("this " + family + " has no image: it was made without one, as Kryo makes a copy when the"
                    + " sketch classes are not registered with Kryo's JavaSerializer (which carries the image);"
                    + " in Spark set spark.kryo.registrator=dev.sketches.spark.SketchesKryoRegistrator, elsewhere"
                    + " kryo.register(" + family + ".class, new JavaSerializer())");
        }

        /** For toString: "N bytes", or "no image" for a {@link #detached} stand-in (never throws). */
        String size() {
            return missing != null ? "no image" : len + " bytes";
        }

        /** Throws IllegalStateException when this is a {@link #detached} stand-in. */
        void present() {
            if (missing != null) {
                throw new IllegalStateException(missing);
            }
        }

        /**
         * The image length in bytes, for a method that reads nothing else of the image.
         *
         * @throws IllegalStateException for a {@link #detached} stand-in
         */
        long length() {
            present();
            return len;
        }

        /**
         * The image's address, for one native call. For a caller's buffer, first reads its first
         * byte through Java: a buffer whose memory the JDK released (a closed Arena's segment)
         * throws IllegalStateException here, as Java access to it does, instead of native code
         * reading released memory.
         */
        long addr() {
            present();
            ByteBuffer b = callerBuffer;
            if (b != null) {
                b.get(0);
            }
            return base;
        }

        /**
         * Fills the token from the image as it is now ({@code tokenizer}: the family's {@code
         * sketch_*_token}, which zeroes the token when the image is refused and never throws).
         * Call it where the image was made or re-written, before the object is shared or under the
         * exclusive access that re-writing needed.
         *
         * @return whether the token was filled (false: zeroed, the calls validate in full)
         */
        boolean fillToken(Tokenizer tokenizer) {
            try {
                return tokenizer.run(addr(), len, token);
            } finally {
                Reference.reachabilityFence(this);
            }
        }

        /**
         * The image shortened in place to its first {@code newLen} bytes (after a call that
         * re-wrote it shorter, such as a fold): the same address, writability, token memory (the
         * caller fills the token again) and change guards (it is the same memory: a thread still
         * holding this image takes turns with one holding the prefix), over a slice of this
         * buffer.
         */
        Image prefix(long newLen) {
            if (newLen < 0 || newLen > len) {
                throw new IllegalStateException("an image of " + len + " bytes cannot shrink to " + newLen);
            }
            return new Image(buffer.slice(0, (int) newLen).order(ByteOrder.LITTLE_ENDIAN), readOnly, tokenMemory,
                    callerBuffer != null, guards());
        }

        /** The change guards this image takes: {@link #guard} first, then {@link #moreGuards}. */
        private Guard[] guards() {
            Guard[] more = moreGuards;
            if (more == null) {
                return new Guard[] {guard};
            }
            Guard[] all = new Guard[more.length + 1];
            all[0] = guard;
            System.arraycopy(more, 0, all, 1, more.length);
            return all;
        }

        /** Whether a change of this image takes {@code g}. */
        private boolean takes(Guard g) {
            if (g == guard) {
                return true;
            }
            Guard[] more = moreGuards;
            if (more != null) {
                for (Guard m : more) {
                    if (m == g) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** How many of this image's guards a change of {@code changing} holds (0 when null). */
        private int heldBy(Image changing) {
            if (changing == null) {
                return 0;
            }
            int held = changing.takes(guard) ? 1 : 0;
            Guard[] more = moreGuards;
            if (more != null) {
                for (Guard g : more) {
                    if (changing.takes(g)) {
                        held++;
                    }
                }
            }
            return held;
        }

        /** A little-endian view of the token's bytes (tests); null when the image has no token. */
        ByteBuffer tokenBytes() {
            return tokenMemory == null ? null : tokenMemory.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        }

        /**
         * Starts a change of the image (an add, remove, merge, clear, fold, ...: the methods that
         * need exclusive access), which {@link #endChange} ends in a {@code finally}. A change
         * already running on the image, on another thread (or on this one: a change never calls
         * another), is a caller's race that would lose adds (bits, registers, counters written
         * from stale reads: false negatives in a filter) or leave the image half-made: it is
         * refused here before native code runs, with ConcurrentModificationException, and the
         * refused call changes nothing. The guard is shared by every object over overlapping
         * wrapped memory ({@link Regions}), so a change through another such object is refused
         * alike. Costs one compare-and-set (a few nanoseconds uncontended; one more per extra
         * guard of a wrap that bridged separate groups); the concurrent methods ({@code
         * *Concurrent}) do not take it.
         *
         * @throws java.util.ConcurrentModificationException when a change is running
         */
        void beginChange() {
            if (!guard.tryBegin()) {
                throw changeRaced();
            }
            Guard[] more = moreGuards;
            if (more != null) {
                beginMore(more);
            }
        }

        /** Takes the further guards after {@link #guard}; on a refusal gives every one back. */
        private void beginMore(Guard[] more) {
            for (int i = 0; i < more.length; i++) {
                if (!more[i].tryBegin()) {
                    for (int j = i - 1; j >= 0; j--) {
                        more[j].undo();
                    }
                    guard.undo();
                    throw changeRaced();
                }
            }
        }

        private static java.util.ConcurrentModificationException changeRaced() {
            return new java.util.ConcurrentModificationException("another thread is changing this sketch (or another"
                    + " sketch object over the same memory): a change (add, remove, merge, clear, ...) needs exclusive"
                    + " access; nothing was changed by this call (use the *Concurrent methods, or synchronize)");
        }

        /**
         * The sum of this image's guard counts (wrapping as ints do): it moves whenever a change
         * through any object sharing one of them starts or ends, as every count only grows.
         */
        private int stamp() {
            int sum = guard.count();
            Guard[] more = moreGuards;
            if (more != null) {
                for (Guard g : more) {
                    sum += g.count();
                }
            }
            return sum;
        }

        /** Whether a change holds one of this image's guards now. */
        private boolean changing() {
            if ((guard.count() & 1) != 0) {
                return true;
            }
            Guard[] more = moreGuards;
            if (more != null) {
                for (Guard g : more) {
                    if ((g.count() & 1) != 0) {
                        return true;
                    }
                }
            }
            return false;
        }

        /**
         * Starts a read that must see the image whole (an export, a conversion, the sketch a
         * merge or jaccard reads), for {@link #endWholeRead} or {@link #endSourceRead}: the
         * guards' change counts, which only grow while the image lives.
         *
         * @return the change count to compare at the end
         * @throws java.util.ConcurrentModificationException when a change is running
         */
        int beginWholeRead() {
            if (moreGuards == null) {
                int c = guard.count();
                if ((c & 1) != 0) {
                    throw wholeReadRaced();
                }
                return c;
            }
            int sum = stamp();
            if (changing()) {
                throw wholeReadRaced();
            }
            return sum;
        }

        /**
         * Ends a read {@link #beginWholeRead} started: throws when a change ran meanwhile, so what
         * was read may mix bytes from before and after it.
         *
         * @throws java.util.ConcurrentModificationException when a change ran since
         */
        void endWholeRead(int started) {
            VarHandle.acquireFence(); // the image reads above happen before the count is read again
            if (stamp() != started) {
                throw wholeReadRaced();
            }
        }

        /**
         * Ends the read of a merge's source that {@link #beginWholeRead} started: throws when a
         * change of the source ran meanwhile (the merge read a half-made source). {@code changing}:
         * the destination when its change has begun (it holds its guards, and those it shares
         * with the source, such as two objects over one wrapped buffer, count one change each,
         * which is the merge itself), or null before.
         *
         * @throws java.util.ConcurrentModificationException when a change ran since
         */
        void endSourceRead(int started, Image changing) {
            VarHandle.acquireFence(); // the source reads above happen before the count is read again
            if (stamp() != started + heldBy(changing)) {
                throw new java.util.ConcurrentModificationException("another thread changed the sketch passed in"
                        + " during the merge (it is only read, so it must not change meanwhile): this sketch may hold"
                        + " part of that change");
            }
        }

        private static java.util.ConcurrentModificationException wholeReadRaced() {
            return new java.util.ConcurrentModificationException("another thread changed a sketch while this call"
                    + " read it whole (an export, a conversion, or the argument of a merge or jaccard, which need"
                    + " exclusive access against changes: what they read would mix bytes from before and after the"
                    + " change); nothing was returned");
        }

        /** Ends the change {@link #beginChange} started (the thread that started it calls it). */
        void endChange() {
            guard.end();
            Guard[] more = moreGuards;
            if (more != null) {
                for (Guard g : more) {
                    g.end();
                }
            }
        }

        /** Throws ReadOnlyBufferException when the image was wrapped from a read-only buffer. */
        void checkWritable() {
            present();
            if (readOnly) {
                throw new java.nio.ReadOnlyBufferException();
            }
        }

        /**
         * The image a merge (union, intersection) into {@code dst} reads: this image, or a private
         * copy of it when its memory overlaps {@code dst}'s, which is what the merge writes. That
         * is a sketch merged with itself ({@code a.merge(a)}, as in a loop over shards that
         * starts with the total), or two objects wrapping overlapping memory. The library refuses
         * a source that overlaps its destination ({@link Status#OVERLAP}); merging a sketch with
         * itself means merging an equal sketch, which the copy is (as in the Go and Python
         * bindings). Costs two address compares, and a copy of this image only when they overlap.
         *
         * @throws IllegalStateException when either image is a {@link #detached} stand-in or
         *     wraps memory the JDK released
         */
        Image mergeSourceFor(Image dst) {
            long from = addr();
            long to = dst.addr();
            if (len == 0 || dst.len == 0 || from >= to + dst.len || to >= from + len) {
                return this;
            }
            ByteBuffer copy = allocate(len);
            copy.put(0, buffer, 0, (int) len);
            return new Image(copy, true);
        }

        /**
         * A read-only view of the live image bytes. The caller may wrap it (or a slice of it):
         * the first view of an image records its memory with its guard ({@link Regions#publish}),
         * so that such a wrap takes turns with this image.
         */
        ByteBuffer view() {
            present();
            if (!guard.published) {
                Regions.publish(base, len, guard);
            }
            return buffer.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    /** sketch_*_import(src, dst, dstLen). */
    @FunctionalInterface
    interface Importer {
        void run(byte[] src, long dst, long dstLen);
    }

    /** sketch_*_import_size(src): the live bytes an import of the exported image needs. */
    @FunctionalInterface
    interface ImportSizer {
        long run(byte[] src);
    }

    /** sketch_*_export(buf, len, out): bytes written. */
    @FunctionalInterface
    interface Exporter {
        int run(long buf, long len, byte[] out);
    }

    /** A check of an image in place (verify, or a cheap wrap check). */
    @FunctionalInterface
    interface Check {
        void run(long buf, long len);
    }

    /**
     * sketch_*_token(buf, len) into the token memory at {@code token}, zeroed instead when the
     * image is refused (SK_TOKEN_FILL in jni_util.h; never throws): whether it was filled.
     */
    @FunctionalInterface
    interface Tokenizer {
        boolean run(long buf, long len, long token);
    }

    /** A fresh zeroed image of {@code bytes} bytes. */
    static Image fresh(long bytes) {
        load();
        return new Image(allocate(bytes), false);
    }

    /**
     * A fresh zeroed image of {@code bytes} bytes with a zeroed token after it in the same
     * allocation (the caller initializes the image, then calls {@link Image#fillToken}).
     */
    static Image freshWithToken(long bytes) {
        load();
        ByteBuffer whole = aligned(bytes, TOKEN_BYTES);
        int tokenAt = roundUp((int) bytes);
        return new Image(whole.slice(0, (int) bytes).order(ByteOrder.LITTLE_ENDIAN), false,
                whole.slice(tokenAt, TOKEN_BYTES), false, new Guard[] {new Guard()});
    }

    /**
     * Imports untrusted bytes into a fresh image of the size {@code sizer} gives (the family's
     * {@code sketch_*_import_size}, which checks the headers and the exact length before anything
     * is allocated); the native import checks everything else first, so on error nothing is kept.
     */
    static Image imported(byte[] src, ImportSizer sizer, Importer importer) {
        Objects.requireNonNull(src, "bytes");
        load();
        Image img = fresh(sizer.run(src));
        try {
            importer.run(src, img.addr(), img.len);
        } finally {
            Reference.reachabilityFence(img);
        }
        return img;
    }

    /**
     * As {@link #imported}, into an image with a zeroed token (the family fills it, {@link
     * Image#fillToken}).
     */
    static Image importedWithToken(byte[] src, ImportSizer sizer, Importer importer) {
        Objects.requireNonNull(src, "bytes");
        load();
        Image img = freshWithToken(sizer.run(src));
        try {
            importer.run(src, img.addr(), img.len);
        } finally {
            Reference.reachabilityFence(img);
        }
        return img;
    }

    /**
     * Exports an image (with its checksum) into a new array of at most {@code bytes} bytes.
     *
     * @throws java.util.ConcurrentModificationException when a change of the image ran during the
     *     export (its bytes would mix two states under one valid checksum)
     */
    static byte[] exported(Image img, long bytes, Exporter exporter) {
        return exported(img, (buf, len) -> bytes, exporter);
    }

    /** sketch_*_exported_size(buf, len): the bytes an export of the image takes now. */
    @FunctionalInterface
    interface ExportSizer {
        long run(long buf, long len);
    }

    /**
     * Exports an image into a new array of the size {@code sizer} gives; the size and the export
     * are read as one whole read ({@link Image#beginWholeRead}), so a change between them (a
     * HyperLogLog's small mode growing) is reported as the race it is, not as a short buffer.
     *
     * @throws java.util.ConcurrentModificationException when a change of the image ran during the
     *     export (its bytes would mix two states under one valid checksum)
     */
    static byte[] exported(Image img, ExportSizer sizer, Exporter exporter) {
        int changes = img.beginWholeRead();
        byte[] out;
        int n;
        try {
            out = new byte[checkBatchBytes(sizer.run(img.addr(), img.len))];
            n = exporter.run(img.addr(), img.len, out);
        } catch (SketchException e) {
            img.endWholeRead(changes); // a change ran meanwhile: that, not the refusal, is the cause
            throw e;
        } finally {
            Reference.reachabilityFence(img);
        }
        img.endWholeRead(changes);
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    // ---- Java serialization (SerializedSketch, the families' one serialization proxy) ----

    /**
     * The sketch a serialization proxy stands for: its image read through the family's checked
     * import ({@code reader}: the family's {@code fromByteArray}, which also fills a token where
     * the family has one), so a deserialized sketch is made exactly as an imported one is. A
     * missing or refused image (damaged, truncated, another family's: the import's {@link
     * SketchException} as the cause) gives {@link InvalidObjectException}; nothing is kept.
     */
    static <T> T deserialized(byte[] image, Function<byte[], T> reader, String family)
            throws InvalidObjectException {
        if (image == null) {
            throw new InvalidObjectException("a serialized " + family + " holds no image");
        }
        try {
            return reader.apply(image);
        } catch (SketchException | IllegalArgumentException e) {
            InvalidObjectException refused =
                    new InvalidObjectException("a serialized " + family + " image was refused: " + e.getMessage());
            refused.initCause(e);
            throw refused;
        }
    }

    /**
     * What a family's {@code readObject} throws: a stream naming the family class itself, not its
     * serialization proxy, was made by hand to skip the checked import.
     */
    static InvalidObjectException proxyRequired(String family) {
        return new InvalidObjectException(
                "proxy required: a " + family + " is serialized as its exported image, through its proxy");
    }

    /**
     * Wraps a caller's direct buffer after {@code check} accepted it, with the change guard of the
     * objects over memory that overlaps it ({@link Regions#join}).
     */
    static Image wrapped(ByteBuffer buffer, Check check) {
        load();
        ByteBuffer view = checkedWrap(buffer, check);
        return new Image(view, buffer.isReadOnly(), null, true, Regions.join(address(view), view.capacity()));
    }

    /**
     * As {@link #wrapped}, with a zeroed token in memory of its own (the caller's buffer has no
     * room for one; the family fills it, {@link Image#fillToken}).
     */
    static Image wrappedWithToken(ByteBuffer buffer, Check check) {
        load();
        ByteBuffer view = checkedWrap(buffer, check);
        ByteBuffer token = ByteBuffer.allocateDirect(TOKEN_BYTES + IMAGE_MIN_ALIGN - 1).alignedSlice(IMAGE_MIN_ALIGN);
        return new Image(view, buffer.isReadOnly(), token, true, Regions.join(address(view), view.capacity()));
    }

    /**
     * The caller's buffer as an image view ({@link #wrappable}) once {@code check} accepted its
     * bytes; its first byte is read through Java first, as {@link Image#addr()} does, so memory
     * the JDK released throws IllegalStateException instead of reaching native code.
     */
    private static ByteBuffer checkedWrap(ByteBuffer buffer, Check check) {
        ByteBuffer view = wrappable(buffer);
        try {
            if (view.capacity() > 0) {
                view.get(0);
            }
            check.run(address(view), view.capacity());
        } finally {
            Reference.reachabilityFence(view);
        }
        return view;
    }

    // ---- change guards, and the memory of objects that share one ----

    /**
     * The change count of the memory of one or more sketch objects: odd while a change runs,
     * even otherwise; a change adds 1 when it starts ({@link #tryBegin}) and 1 when it ends
     * ({@link #end}), so a read that must see the memory whole compares it before and after.
     */
    static final class Guard {
        @SuppressWarnings("unused") // accessed through the VarHandle
        private volatile int changing;

        /**
         * Whether {@link Regions} holds this guard's memory: read without the lock, set (once)
         * under it.
         */
        volatile boolean published;

        private static final VarHandle CHANGING;

        static {
            try {
                CHANGING = MethodHandles.lookup().findVarHandle(Guard.class, "changing", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** Takes the guard for a change: false when a change holds it. One compare-and-set. */
        boolean tryBegin() {
            int c = (int) CHANGING.getVolatile(this);
            return (c & 1) == 0 && CHANGING.compareAndSet(this, c, c + 1);
        }

        /** Ends a change {@link #tryBegin} took: the count is even again, one change higher. */
        void end() {
            CHANGING.setRelease(this, (int) CHANGING.getVolatile(this) + 1);
        }

        /**
         * Gives back a guard {@link #tryBegin} took when no native code ran under it (another
         * guard of the same change was refused): the count is as before, so no read sees a change.
         */
        void undo() {
            CHANGING.setRelease(this, (int) CHANGING.getVolatile(this) - 1);
        }

        /** The count (acquire). */
        int count() {
            return (int) CHANGING.getAcquire(this);
        }
    }

    /**
     * The memory of live sketch objects that a caller can reach, so that two objects over
     * overlapping memory share a change guard: the buffers of {@code wrap} (a MappedByteBuffer,
     * a slice of a direct buffer, a MemorySegment's buffer), and an owned image once its {@link
     * Image#view} was handed out (it may be wrapped in turn). Looked up once per wrap, under one
     * lock; the calls on a sketch never look here.
     *
     * <p>One region per live guard: the address range that the objects joined to it covered when
     * they were made (the union of overlapping ranges is one range). A new wrap takes the guard of
     * every region its range overlaps: none, a new guard and region of its own; one, that guard
     * (its range joins the region); several (its memory bridges objects that did not overlap each
     * other, as B over the end of A and the start of C), all of them, its first region's taking
     * its range: a change of it then excludes each of them, while they still run beside each other.
     * So any two live objects whose memory overlaps share a guard, and objects linked by a chain of
     * overlaps (A, B and C above) may share one although they do not overlap. A region lives as
     * long as its guard (weakly held: gone once every object over it is unreachable), and keeps
     * the range of objects already gone until then; a later wrap overlapping that range joins
     * it, which costs turns, never a missed overlap.
     *
     * <p>Addresses are this process's: two mappings of one file at different addresses (two
     * {@code FileChannel.map} calls, or two processes) are different memory here, so objects over
     * them do not take turns.
     */
    static final class Regions {
        /** A region: an address range and (weakly) the guard of the objects over it. */
        private static final class Region extends WeakReference<Guard> {
            /** Orders by start address, then by creation, so regions with one start differ. */
            static final Comparator<Region> ORDER =
                    Comparator.comparingLong((Region r) -> r.start).thenComparingLong(r -> r.serial);

            long start;
            long end;
            final long serial;

            Region(Guard guard, long start, long end, long serial, ReferenceQueue<Guard> queue) {
                super(guard, queue);
                this.start = start;
                this.end = end;
                this.serial = serial;
            }
        }

        /** Live regions by start address (a region's fields change only while it is out of the set). */
        private static final TreeSet<Region> REGIONS = new TreeSet<>(Region.ORDER);

        /** Regions whose guard is gone, removed at the next lookup. */
        private static final ReferenceQueue<Guard> GONE = new ReferenceQueue<>();

        /** The longest region ever held: where a lookup starts looking back from. */
        private static long longest;

        private static long serials;

        private Regions() {}

        /**
         * The guards of a new wrap over {@code [start, start + len)}: those of the regions it
         * overlaps (see the class notes), or a new one; the first is its own (its range joined
         * that guard's region).
         */
        static synchronized Guard[] join(long start, long len) {
            purge();
            if (len <= 0) {
                return new Guard[] {new Guard()};
            }
            long end = start + len;
            List<Region> overlapping = overlapping(start, end);
            List<Guard> guards = new ArrayList<>();
            Region first = null;
            for (Region r : overlapping) {
                Guard g = r.get();
                if (g == null || guards.contains(g)) {
                    continue;
                }
                if (first == null) {
                    first = r;
                }
                guards.add(g);
            }
            if (first == null) {
                Guard own = new Guard();
                own.published = true;
                add(new Region(own, start, end, serials++, GONE));
                return new Guard[] {own};
            }
            widen(first, start, end);
            return guards.toArray(new Guard[0]);
        }

        /**
         * Records an owned image's memory with its guard (its first {@link Image#view}); the
         * image keeps its guard (owned memory overlaps no live object's; a wrap of the view
         * then joins this region).
         */
        static synchronized void publish(long start, long len, Guard guard) {
            if (guard.published) {
                return;
            }
            purge();
            guard.published = true;
            if (len > 0) {
                add(new Region(guard, start, start + len, serials++, GONE));
            }
        }

        /** The live regions overlapping {@code [start, end)}, by start address. */
        private static List<Region> overlapping(long start, long end) {
            Region from = new Region(null, Math.max(0, start - longest), 0, Long.MIN_VALUE, null);
            Region to = new Region(null, end, 0, Long.MIN_VALUE, null);
            List<Region> found = new ArrayList<>();
            for (Region r : REGIONS.subSet(from, true, to, false)) {
                if (r.end > start && r.get() != null) {
                    found.add(r);
                }
            }
            return found;
        }

        /** Widens a region to cover {@code [start, end)} too (the two overlap). */
        private static void widen(Region r, long start, long end) {
            REGIONS.remove(r);
            r.start = Math.min(r.start, start);
            r.end = Math.max(r.end, end);
            add(r);
        }

        private static void add(Region r) {
            REGIONS.add(r);
            longest = Math.max(longest, r.end - r.start);
        }

        /** Removes the regions whose guard is gone. */
        private static void purge() {
            for (Reference<? extends Guard> r; (r = GONE.poll()) != null; ) {
                REGIONS.remove((Region) r);
            }
        }

        /** The live regions now (tests: a region per live group, not per wrap made). */
        static synchronized int size() {
            purge();
            return REGIONS.size();
        }

        /** Whether a live region covers {@code address} (tests). */
        static synchronized boolean covers(long address) {
            purge();
            return !overlapping(address, address + 1).isEmpty();
        }
    }
}
