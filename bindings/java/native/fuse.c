/* JNI glue of dev.sketches.BinaryFuseFilter (sketch_fuse_*). */
#include "jni_util.h"

/* out[0..4]: planned keys, fingerprint bits, image bytes, scratch bytes. */
JNIEXPORT void JNICALL SK_JNI(BinaryFuseFilter, nPlan)(JNIEnv *env, jclass cls, jlong keys,
                                                       jint fingerprint_bits, jlongArray out) {
    (void)cls;
    struct sketch_fuse_params p;
    if (sk_check(env, sketch_fuse_plan_bits((uint64_t)keys, (uint32_t)fingerprint_bits, &p),
                 "sketch_fuse_plan_bits"))
        return;
    uint64_t bytes = 0, scratch = 0;
    if (sk_check(env, sketch_fuse_size(&p, &bytes), "sketch_fuse_size")) return;
    if (sk_check(env, sketch_fuse_scratch_size(&p, &scratch), "sketch_fuse_scratch_size")) return;
    jlong v[4] = {(jlong)p.keys, p.fingerprint_bits, (jlong)bytes, (jlong)scratch};
    (*env)->SetLongArrayRegion(env, out, 0, 4, v);
}

/*
 * The builds take every key in one call, which can run for seconds on large
 * sets: the key arrays are read with Get<Type>ArrayElements (a copy, or a pin
 * that does not stop the garbage collector) instead of the critical-region pin
 * the chunked batches use, so other threads' allocations never wait for a build.
 * As with sk_pin, NULL without a pending exception (an empty array on some
 * JVMs) is passed on as NULL: the C ABI accepts it with length 0.
 */
#define SK_ELEMENTS_FAILED(env, p) ((p) == NULL && (*(env))->ExceptionCheck(env))
#define SK_RELEASE(env, KIND, arr, p)                                                  \
    do {                                                                               \
        if ((p) != NULL) (*(env))->Release##KIND##ArrayElements(env, arr, p, JNI_ABORT); \
    } while (0)

JNIEXPORT void JNICALL SK_JNI(BinaryFuseFilter, nBuildPacked)(
    JNIEnv *env, jclass cls, jlong buf, jlong len, jlong planned, jint fingerprint_bits, jlong seed,
    jbyteArray data, jintArray offsets, jint count, jlong scratch, jlong scratch_len) {
    (void)cls;
    jbyte *d = (*env)->GetByteArrayElements(env, data, NULL);
    if (SK_ELEMENTS_FAILED(env, d)) return; /* OutOfMemoryError pending */
    jint *o = (*env)->GetIntArrayElements(env, offsets, NULL);
    if (SK_ELEMENTS_FAILED(env, o)) {
        SK_RELEASE(env, Byte, data, d);
        return;
    }
    struct sketch_fuse_params p = {(uint64_t)planned, (uint32_t)fingerprint_bits, 0};
    int32_t st = sketch_fuse_build_packed(SK_BUF(buf), (size_t)len, &p, (uint64_t)seed, d,
                                          sk_array_len(env, data),
                                          (const uint32_t *)o, (size_t)count, SK_BUF(scratch),
                                          (size_t)scratch_len);
    SK_RELEASE(env, Int, offsets, o);
    SK_RELEASE(env, Byte, data, d);
    sk_check(env, st, "sketch_fuse_build_packed");
}

JNIEXPORT void JNICALL SK_JNI(BinaryFuseFilter, nBuildU64s)(JNIEnv *env, jclass cls, jlong buf,
                                                            jlong len, jlong planned,
                                                            jint fingerprint_bits, jlong seed,
                                                            jlongArray keys, jlong scratch,
                                                            jlong scratch_len) {
    (void)cls;
    jlong *k = (*env)->GetLongArrayElements(env, keys, NULL);
    if (SK_ELEMENTS_FAILED(env, k)) return; /* OutOfMemoryError pending */
    struct sketch_fuse_params p = {(uint64_t)planned, (uint32_t)fingerprint_bits, 0};
    int32_t st = sketch_fuse_build_u64_batch(
        SK_BUF(buf), (size_t)len, &p, (uint64_t)seed, (const uint64_t *)k,
        sk_array_len(env, keys), SK_BUF(scratch), (size_t)scratch_len);
    SK_RELEASE(env, Long, keys, k);
    sk_check(env, st, "sketch_fuse_build_u64_batch");
}

SK_KEY_BOOL(BinaryFuseFilter, nContains, sketch_fuse_contains, sketch_fuse_contains_u64, const)
SK_BATCH_BOOL(BinaryFuseFilter, nContains, sketch_fuse_contains_packed,
              sketch_fuse_contains_u64_batch, const)
SK_IMAGE_OPS(BinaryFuseFilter, sketch_fuse)

/* The O(1) header check of wrap: the statistics, discarded. */
JNIEXPORT void JNICALL SK_JNI(BinaryFuseFilter, nCheck)(JNIEnv *env, jclass cls, jlong buf,
                                                        jlong len) {
    (void)cls;
    struct sketch_fuse_stats s;
    sk_check(env, sketch_fuse_get_stats(SK_CBUF(buf), (size_t)len, &s), "sketch_fuse_get_stats");
}

/* l[0..7]: planned keys, fingerprint bits, seed, keys, fuse seed, image bytes, attempts;
 * d[0..3]: bits per key, image bytes per key, fpr. */
JNIEXPORT void JNICALL SK_JNI(BinaryFuseFilter, nStats)(JNIEnv *env, jclass cls, jlong buf,
                                                        jlong len, jlongArray l, jdoubleArray d) {
    (void)cls;
    struct sketch_fuse_stats s;
    if (sk_check(env, sketch_fuse_get_stats(SK_CBUF(buf), (size_t)len, &s),
                 "sketch_fuse_get_stats"))
        return;
    jlong lv[7] = {(jlong)s.params.keys, s.params.fingerprint_bits, (jlong)s.seed,
                   (jlong)s.keys,        (jlong)s.fuse_seed,        (jlong)s.image_bytes,
                   s.attempts};
    jdouble dv[3] = {s.bits_per_key, s.image_bytes_per_key, s.fpr};
    (*env)->SetLongArrayRegion(env, l, 0, 7, lv);
    (*env)->SetDoubleArrayRegion(env, d, 0, 3, dv);
}
