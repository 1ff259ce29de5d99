/* JNI glue shared by every family: library load, exceptions, buffer
 * addresses, version, hashing and image inspection (class dev.sketches.Native). */
#include <string.h>

#include "jni_util.h"

static jclass exception_class;      /* global ref to dev.sketches.SketchException */
static jmethodID exception_ctor;    /* SketchException(int status, String operation) */

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    jclass local = (*env)->FindClass(env, "dev/sketches/SketchException");
    if (local == NULL) return JNI_ERR;
    exception_class = (*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    if (exception_class == NULL) return JNI_ERR;
    exception_ctor = (*env)->GetMethodID(env, exception_class, "<init>", "(ILjava/lang/String;)V");
    if (exception_ctor == NULL) return JNI_ERR;
    return JNI_VERSION_1_8;
}

void sk_throw(JNIEnv *env, int32_t status, const char *op) {
    jstring name = (*env)->NewStringUTF(env, op);
    if (name == NULL) return; /* OutOfMemoryError pending */
    jobject ex = (*env)->NewObject(env, exception_class, exception_ctor, (jint)status, name);
    (*env)->DeleteLocalRef(env, name);
    if (ex == NULL) return;
    (*env)->Throw(env, (jthrowable)ex);
    (*env)->DeleteLocalRef(env, ex);
}

JNIEXPORT jlong JNICALL SK_JNI(Native, address)(JNIEnv *env, jclass cls, jobject buffer) {
    (void)cls;
    return (jlong)(intptr_t)(*env)->GetDirectBufferAddress(env, buffer);
}

JNIEXPORT jint JNICALL SK_JNI(Native, version)(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    return (jint)sketch_version();
}

JNIEXPORT jstring JNICALL SK_JNI(Native, statusText)(JNIEnv *env, jclass cls, jint status) {
    (void)cls;
    return (*env)->NewStringUTF(env, sketch_status_str(status));
}

JNIEXPORT jlong JNICALL SK_JNI(Native, hash)(JNIEnv *env, jclass cls, jbyteArray key, jint off,
                                             jint len, jlong seed) {
    (void)cls;
    sk_key k;
    if (!sk_key_get(env, key, off, len, &k)) return 0;
    uint64_t h = sketch_hash(k.ptr, (size_t)len, (uint64_t)seed);
    sk_key_release(env, key, &k);
    return (jlong)h;
}

JNIEXPORT jlong JNICALL SK_JNI(Native, hashU64)(JNIEnv *env, jclass cls, jlong key, jlong seed) {
    (void)env;
    (void)cls;
    return (jlong)sketch_hash_u64((uint64_t)key, (uint64_t)seed);
}

/* Fills out[0..6] with family, hash, format major, format minor, flags,
 * header bytes, and out[6], out[7] with seed and image bytes. */
JNIEXPORT void JNICALL SK_JNI(Native, inspect)(JNIEnv *env, jclass cls, jbyteArray bytes,
                                               jlongArray out) {
    (void)cls;
    void *b;
    size_t bytes_len = sk_array_len(env, bytes);
    if (!sk_pin(env, bytes, &b)) return;
    struct sketch_image_info info;
    memset(&info, 0, sizeof info);
    int32_t st = sketch_image_inspect(b, bytes_len, &info);
    sk_unpin(env, bytes, b, JNI_ABORT);
    if (sk_check(env, st, "sketch_image_inspect")) return;
    jlong v[8] = {info.family,       info.hash, info.format_major,      info.format_minor,
                  (jlong)info.flags, info.header_bytes, (jlong)info.seed, (jlong)info.image_bytes};
    (*env)->SetLongArrayRegion(env, out, 0, 8, v);
}

/* sketch_image_inspect_header over the first 48 bytes of `bytes` (an
 * array of at least 48: the caller checks), copied out, not pinned. Returns
 * the status without throwing (the stream reader words its own errors);
 * fills out[0..8] as inspect does on SKETCH_OK only. */
JNIEXPORT jint JNICALL SK_JNI(Native, inspectHeader)(JNIEnv *env, jclass cls, jbyteArray bytes,
                                                     jlongArray out) {
    (void)cls;
    jbyte head[SKETCH_COMMON_HEADER_BYTES];
    (*env)->GetByteArrayRegion(env, bytes, 0, SKETCH_COMMON_HEADER_BYTES, head);
    if ((*env)->ExceptionCheck(env)) return SKETCH_BUFFER_TOO_SMALL;
    struct sketch_image_info info;
    memset(&info, 0, sizeof info);
    int32_t st = sketch_image_inspect_header(head, sizeof head, &info);
    if (st != SKETCH_OK) return st;
    jlong v[8] = {info.family,       info.hash, info.format_major,      info.format_minor,
                  (jlong)info.flags, info.header_bytes, (jlong)info.seed, (jlong)info.image_bytes};
    (*env)->SetLongArrayRegion(env, out, 0, 8, v);
    return SKETCH_OK;
}

/* As inspect, over an image in place (an Image's address and length). */
JNIEXPORT void JNICALL SK_JNI(Native, inspectAt)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                 jlongArray out) {
    (void)cls;
    struct sketch_image_info info;
    memset(&info, 0, sizeof info);
    int32_t st = sketch_image_inspect(SK_CBUF(buf), (size_t)len, &info);
    if (sk_check(env, st, "sketch_image_inspect")) return;
    jlong v[8] = {info.family,       info.hash, info.format_major,      info.format_minor,
                  (jlong)info.flags, info.header_bytes, (jlong)info.seed, (jlong)info.image_bytes};
    (*env)->SetLongArrayRegion(env, out, 0, 8, v);
}

/* sketch_<family>_exported_size over an image in place: the bytes its
 * export takes now, or 0 with a SketchException pending (image errors, or
 * CORRUPT_HEADER for an unknown family id, which the Java side never passes). */
static size_t exported_size(JNIEnv *env, jint family, const void *buf, size_t len) {
    size_t bytes = 0;
    int32_t st;
    const char *op;
    switch (family) {
    case SKETCH_FAMILY_BLOOM: st = sketch_bloom_exported_size(buf, len, &bytes); op = "sketch_bloom_exported_size"; break;
    case SKETCH_FAMILY_SPLIT_BLOCK_BLOOM: st = sketch_sbbf_exported_size(buf, len, &bytes); op = "sketch_sbbf_exported_size"; break;
    case SKETCH_FAMILY_COUNTING_BLOOM: st = sketch_counting_exported_size(buf, len, &bytes); op = "sketch_counting_exported_size"; break;
    case SKETCH_FAMILY_CUCKOO: st = sketch_cuckoo_exported_size(buf, len, &bytes); op = "sketch_cuckoo_exported_size"; break;
    case SKETCH_FAMILY_HYPERLOGLOG: st = sketch_hll_exported_size(buf, len, &bytes); op = "sketch_hll_exported_size"; break;
    case SKETCH_FAMILY_ULTRALOGLOG: st = sketch_ull_exported_size(buf, len, &bytes); op = "sketch_ull_exported_size"; break;
    case SKETCH_FAMILY_COUNT_MIN: st = sketch_countmin_exported_size(buf, len, &bytes); op = "sketch_countmin_exported_size"; break;
    case SKETCH_FAMILY_TOPK: st = sketch_topk_exported_size(buf, len, &bytes); op = "sketch_topk_exported_size"; break;
    case SKETCH_FAMILY_MINHASH: st = sketch_minhash_exported_size(buf, len, &bytes); op = "sketch_minhash_exported_size"; break;
    case SKETCH_FAMILY_BINARY_FUSE: st = sketch_fuse_exported_size(buf, len, &bytes); op = "sketch_fuse_exported_size"; break;
    case SKETCH_FAMILY_EXALOGLOG: st = sketch_ell_exported_size(buf, len, &bytes); op = "sketch_ell_exported_size"; break;
    default: st = SKETCH_CORRUPT_HEADER; op = "exported_size"; break;
    }
    if (sk_check(env, st, op)) return 0;
    return bytes;
}

/* The sealed header of a zero-copy stream write (ImageStream.write): checks
 * the image in place as its export does (the family's exported_size), then,
 * when the export is the live image itself (its length is the one the
 * header records: all but a small HyperLogLog's compact export), copies the
 * 48-byte common header into `head` with the export's checksum at offset 32:
 * XXH3-64 of the image's bytes after the checksum field, seeded with XXH3-64
 * (seed 0) of the bytes before it, computed on the live image in place.
 * Returns the export's length; 0 with `head` unwritten when the export is
 * not the live image (the caller exports instead); nothing useful with a
 * SketchException pending. */
JNIEXPORT jlong JNICALL SK_JNI(Native, sealedHeader)(JNIEnv *env, jclass cls, jint family, jlong buf,
                                                     jlong len, jbyteArray head) {
    (void)cls;
    const uint8_t *b = (const uint8_t *)SK_CBUF(buf);
    size_t bytes = exported_size(env, family, b, (size_t)len);
    if ((*env)->ExceptionCheck(env)) return 0;
    if (bytes < SKETCH_COMMON_HEADER_BYTES + 8 || bytes > (size_t)len) return 0;
    uint64_t recorded = 0;
    for (int i = 7; i >= 0; i--) recorded = recorded << 8 | b[24 + i];
    if (recorded != (uint64_t)bytes) return 0;
    uint64_t sum = sketch_hash(b + 40, bytes - 40, sketch_hash(b, 32, 0));
    jbyte h[SKETCH_COMMON_HEADER_BYTES];
    memcpy(h, b, sizeof h);
    for (int i = 0; i < 8; i++) h[32 + i] = (jbyte)(uint8_t)(sum >> (8 * i));
    (*env)->SetByteArrayRegion(env, head, 0, SKETCH_COMMON_HEADER_BYTES, h);
    return (jlong)bytes;
}
