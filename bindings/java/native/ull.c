/* JNI glue of dev.sketches.UltraLogLog (sketch_ull_*). */
#include "jni_util.h"

JNIEXPORT jlong JNICALL SK_JNI(UltraLogLog, nSize)(JNIEnv *env, jclass cls, jint p) {
    (void)cls;
    uint64_t bytes = 0;
    if (sk_check(env, sketch_ull_size((uint8_t)p, &bytes), "sketch_ull_size")) return 0;
    return (jlong)bytes;
}

JNIEXPORT void JNICALL SK_JNI(UltraLogLog, nInit)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                  jint p, jlong seed) {
    (void)cls;
    sk_check(env, sketch_ull_init(SK_BUF(buf), (size_t)len, (uint8_t)p, (uint64_t)seed),
             "sketch_ull_init");
}

SK_KEY_BOOL(UltraLogLog, nAdd, sketch_ull_add, sketch_ull_add_u64, )
SK_BATCH_VOID(UltraLogLog, nAdd, sketch_ull_add_packed, sketch_ull_add_u64_batch)
SK_DOUBLE_OUT(UltraLogLog, nEstimate, sketch_ull_estimate)
SK_DOUBLE_OUT(UltraLogLog, nRegisterEstimate, sketch_ull_register_estimate)
SK_DOUBLE_OUT(UltraLogLog, nMlEstimate, sketch_ull_ml_estimate)
SK_VOID_OP(UltraLogLog, nReset, sketch_ull_reset)
SK_MERGE(UltraLogLog, nMerge, sketch_ull_merge)
SK_IMAGE_OPS(UltraLogLog, sketch_ull)

/* The concurrent forms (sketches.h, thread-safety notes): any number of threads may run them on
 * one image at once; they write nothing but the image (atomically, in the C library). */
SK_KEY_BOOL(UltraLogLog, nAddConcurrent, sketch_ull_add_concurrent, sketch_ull_add_concurrent_u64, )
SK_BATCH_VOID(UltraLogLog, nAddConcurrent, sketch_ull_add_concurrent_packed,
              sketch_ull_add_concurrent_u64_batch)
SK_DOUBLE_OUT(UltraLogLog, nEstimateConcurrent, sketch_ull_estimate_concurrent)

JNIEXPORT void JNICALL SK_JNI(UltraLogLog, nToHll)(JNIEnv *env, jclass cls, jlong src,
                                                   jlong src_len, jlong dst, jlong dst_len) {
    (void)cls;
    sk_check(env, sketch_ull_to_hll(SK_CBUF(src), (size_t)src_len, SK_BUF(dst), (size_t)dst_len),
             "sketch_ull_to_hll");
}

/* l[0..5]: precision, martingale, registers set, seed, image bytes; returns the estimate. */
JNIEXPORT jdouble JNICALL SK_JNI(UltraLogLog, nStats)(JNIEnv *env, jclass cls, jlong buf,
                                                      jlong len, jlongArray l) {
    (void)cls;
    struct sketch_ull_stats s;
    if (sk_check(env, sketch_ull_get_stats(SK_CBUF(buf), (size_t)len, &s), "sketch_ull_get_stats"))
        return 0;
    jlong lv[5] = {s.precision, s.martingale, s.registers_set, (jlong)s.seed, (jlong)s.image_bytes};
    (*env)->SetLongArrayRegion(env, l, 0, 5, lv);
    return s.estimate;
}
