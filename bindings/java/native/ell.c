/* JNI glue of dev.sketches.ExaLogLog (sketch_ell_*). */
#include "jni_util.h"

/* The precision sketch_ell_plan picks for the relative error at this d. */
JNIEXPORT jint JNICALL SK_JNI(ExaLogLog, nPlan)(JNIEnv *env, jclass cls, jdouble relative_error,
                                                jint d) {
    (void)cls;
    struct sketch_ell_params p;
    if (sk_check(env, sketch_ell_plan(relative_error, (uint32_t)d, &p), "sketch_ell_plan")) return 0;
    return (jint)p.precision;
}

JNIEXPORT jlong JNICALL SK_JNI(ExaLogLog, nSize)(JNIEnv *env, jclass cls, jint precision, jint d) {
    (void)cls;
    struct sketch_ell_params p = {2, (uint32_t)d, (uint32_t)precision, 0};
    uint64_t bytes = 0;
    if (sk_check(env, sketch_ell_size(&p, &bytes), "sketch_ell_size")) return 0;
    return (jlong)bytes;
}

JNIEXPORT void JNICALL SK_JNI(ExaLogLog, nInit)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                jint precision, jint d, jlong seed) {
    (void)cls;
    struct sketch_ell_params p = {2, (uint32_t)d, (uint32_t)precision, 0};
    sk_check(env, sketch_ell_init(SK_BUF(buf), (size_t)len, &p, (uint64_t)seed), "sketch_ell_init");
}

SK_KEY_BOOL(ExaLogLog, nAdd, sketch_ell_add, sketch_ell_add_u64, )
SK_BATCH_VOID(ExaLogLog, nAdd, sketch_ell_add_packed, sketch_ell_add_u64_batch)
SK_DOUBLE_OUT(ExaLogLog, nEstimate, sketch_ell_estimate)
SK_DOUBLE_OUT(ExaLogLog, nMlEstimate, sketch_ell_ml_estimate)
SK_DOUBLE_OUT(ExaLogLog, nMartingaleEstimate, sketch_ell_martingale_estimate)
SK_VOID_OP(ExaLogLog, nReset, sketch_ell_reset)
SK_MERGE(ExaLogLog, nMerge, sketch_ell_merge)
SK_IMAGE_OPS(ExaLogLog, sketch_ell)

JNIEXPORT void JNICALL SK_JNI(ExaLogLog, nDownsize)(JNIEnv *env, jclass cls, jlong src,
                                                    jlong src_len, jlong dst, jlong dst_len,
                                                    jint precision, jint d) {
    (void)cls;
    struct sketch_ell_params p = {2, (uint32_t)d, (uint32_t)precision, 0};
    sk_check(env,
             sketch_ell_downsize(SK_CBUF(src), (size_t)src_len, SK_BUF(dst), (size_t)dst_len, &p),
             "sketch_ell_downsize");
}

/* l[0..7]: t, d, precision, seed, registers set, image bytes, martingale;
 * d[0..2]: estimate, standard error. */
JNIEXPORT void JNICALL SK_JNI(ExaLogLog, nStats)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                 jlongArray l, jdoubleArray d) {
    (void)cls;
    struct sketch_ell_stats s;
    if (sk_check(env, sketch_ell_get_stats(SK_CBUF(buf), (size_t)len, &s), "sketch_ell_get_stats"))
        return;
    jlong lv[7] = {s.params.t,          s.params.d,           s.params.precision, (jlong)s.seed,
                   (jlong)s.registers_set, (jlong)s.image_bytes, s.martingale};
    jdouble dv[2] = {s.estimate, s.standard_error};
    (*env)->SetLongArrayRegion(env, l, 0, 7, lv);
    (*env)->SetDoubleArrayRegion(env, d, 0, 2, dv);
}
