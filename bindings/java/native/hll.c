/* JNI glue of dev.sketches.HyperLogLog (sketch_hll_*). */
#include "jni_util.h"

JNIEXPORT jlong JNICALL SK_JNI(HyperLogLog, nSize)(JNIEnv *env, jclass cls, jint p) {
    (void)cls;
    uint64_t bytes = 0;
    if (sk_check(env, sketch_hll_size((uint8_t)p, &bytes), "sketch_hll_size")) return 0;
    return (jlong)bytes;
}

JNIEXPORT void JNICALL SK_JNI(HyperLogLog, nInit)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                  jint p, jlong seed) {
    (void)cls;
    sk_check(env, sketch_hll_init(SK_BUF(buf), (size_t)len, (uint8_t)p, (uint64_t)seed),
             "sketch_hll_init");
}

SK_KEY_BOOL_TOKEN(HyperLogLog, nAdd, sketch_hll_add, sketch_hll_add_u64, )
SK_BATCH_VOID(HyperLogLog, nAdd, sketch_hll_add_packed, sketch_hll_add_u64_batch)
SK_DOUBLE_OUT(HyperLogLog, nEstimate, sketch_hll_estimate)
SK_DOUBLE_OUT(HyperLogLog, nRegisterEstimate, sketch_hll_register_estimate)
SK_VOID_OP(HyperLogLog, nReset, sketch_hll_reset)
SK_MERGE(HyperLogLog, nMerge, sketch_hll_merge)
SK_IMAGE_OPS(HyperLogLog, sketch_hll)
SK_TOKEN_FILL(HyperLogLog, sketch_hll)

/* The concurrent forms (sketches.h, thread-safety notes): any number of threads may run them on
 * one dense image at once (SKETCH_SMALL_MODE, nothing changed, before nDensify). They take no
 * token and write nothing but the image (atomically, in the C library) and the call's own
 * outputs. nDensify is exclusive, as every call that is not _concurrent. */
SK_KEY_BOOL(HyperLogLog, nAddConcurrent, sketch_hll_add_concurrent, sketch_hll_add_concurrent_u64, )
SK_BATCH_VOID(HyperLogLog, nAddConcurrent, sketch_hll_add_concurrent_packed,
              sketch_hll_add_concurrent_u64_batch)
SK_DOUBLE_OUT(HyperLogLog, nEstimateConcurrent, sketch_hll_estimate_concurrent)
SK_VOID_OP(HyperLogLog, nDensify, sketch_hll_densify)

JNIEXPORT jlong JNICALL SK_JNI(HyperLogLog, nExportedSize)(JNIEnv *env, jclass cls, jlong buf,
                                                           jlong len) {
    (void)cls;
    size_t bytes = 0;
    if (sk_check(env, sketch_hll_exported_size(SK_CBUF(buf), (size_t)len, &bytes),
                 "sketch_hll_exported_size"))
        return 0;
    return (jlong)bytes;
}

JNIEXPORT void JNICALL SK_JNI(HyperLogLog, nDownsize)(JNIEnv *env, jclass cls, jlong src,
                                                      jlong src_len, jlong dst, jlong dst_len,
                                                      jint p) {
    (void)cls;
    sk_check(env,
             sketch_hll_downsize(SK_CBUF(src), (size_t)src_len, SK_BUF(dst), (size_t)dst_len,
                                 (uint8_t)p),
             "sketch_hll_downsize");
}

/* l[0..8]: precision, mode, martingale, small count, small capacity,
 * registers set, seed, image bytes; returns the estimate. */
JNIEXPORT jdouble JNICALL SK_JNI(HyperLogLog, nStats)(JNIEnv *env, jclass cls, jlong buf,
                                                      jlong len, jlongArray l) {
    (void)cls;
    struct sketch_hll_stats s;
    if (sk_check(env, sketch_hll_get_stats(SK_CBUF(buf), (size_t)len, &s), "sketch_hll_get_stats"))
        return 0;
    jlong lv[8] = {s.precision,     s.mode,          s.martingale,  s.small_count,
                   s.small_capacity, s.registers_set, (jlong)s.seed, (jlong)s.image_bytes};
    (*env)->SetLongArrayRegion(env, l, 0, 8, lv);
    return s.estimate;
}
