/* JNI glue of dev.sketches.CountMinSketch (sketch_countmin_*). */
#include "jni_util.h"

/* out[0..5]: width, depth, counter bits, conservative, image bytes. With
 * explicit_size, (a, b) are width and depth, else epsilon and delta. Counter
 * bits and conservative update are then applied (counter_bits 0 keeps the plan's). */
JNIEXPORT void JNICALL SK_JNI(CountMinSketch, nPlan)(JNIEnv *env, jclass cls, jdouble epsilon,
                                                     jdouble delta, jlong width, jint depth,
                                                     jboolean explicit_size, jint counter_bits,
                                                     jboolean conservative, jlongArray out) {
    (void)cls;
    struct sketch_countmin_params p;
    int32_t st = explicit_size ? sketch_countmin_plan_size((uint64_t)width, (uint32_t)depth, &p)
                               : sketch_countmin_plan(epsilon, delta, &p);
    if (sk_check(env, st, explicit_size ? "sketch_countmin_plan_size" : "sketch_countmin_plan"))
        return;
    if (counter_bits != 0) p.counter_bits = (uint32_t)counter_bits;
    p.conservative = conservative ? 1 : 0;
    uint64_t bytes = 0;
    if (sk_check(env, sketch_countmin_size(&p, &bytes), "sketch_countmin_size")) return;
    jlong v[5] = {(jlong)p.width, p.depth, p.counter_bits, p.conservative, (jlong)bytes};
    (*env)->SetLongArrayRegion(env, out, 0, 5, v);
}

JNIEXPORT void JNICALL SK_JNI(CountMinSketch, nInit)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                     jlong width, jint depth, jint counter_bits,
                                                     jboolean conservative, jlong seed) {
    (void)cls;
    struct sketch_countmin_params p = {(uint64_t)width, (uint32_t)depth, (uint32_t)counter_bits,
                                       conservative ? 1u : 0u, 0};
    sk_check(env, sketch_countmin_init(SK_BUF(buf), (size_t)len, &p, (uint64_t)seed),
             "sketch_countmin_init");
}

SK_KEY_WEIGHT(CountMinSketch, nAdd, sketch_countmin_add, sketch_countmin_add_u64)
SK_KEY_U64OUT(CountMinSketch, nEstimate, sketch_countmin_estimate, sketch_countmin_estimate_u64)
SK_BATCH_WEIGHTS(CountMinSketch, nAdd, sketch_countmin_add_packed, sketch_countmin_add_u64_batch)
SK_MERGE(CountMinSketch, nMerge, sketch_countmin_merge)
SK_VOID_OP(CountMinSketch, nClear, sketch_countmin_clear)
SK_IMAGE_OPS(CountMinSketch, sketch_countmin)

JNIEXPORT void JNICALL SK_JNI(CountMinSketch, nEstimatePacked)(JNIEnv *env, jclass cls, jlong buf,
                                                               jlong len, jbyteArray data,
                                                               jintArray offsets, jint from,
                                                               jint count, jlongArray out,
                                                               jint out_from) {
    (void)cls;
    void *d, *o, *r;
    size_t data_len = sk_array_len(env, data);
    if (!sk_pin(env, data, &d)) return;
    if (!sk_pin(env, offsets, &o)) {
        sk_unpin(env, data, d, JNI_ABORT);
        return;
    }
    if (!sk_pin(env, out, &r)) {
        sk_unpin(env, offsets, o, JNI_ABORT);
        sk_unpin(env, data, d, JNI_ABORT);
        return;
    }
    int32_t st = sketch_countmin_estimate_packed(
        SK_CBUF(buf), (size_t)len, d, data_len,
        (const uint32_t *)o + from, (size_t)count, (uint64_t *)r + out_from);
    sk_unpin(env, out, r, 0);
    sk_unpin(env, offsets, o, JNI_ABORT);
    sk_unpin(env, data, d, JNI_ABORT);
    sk_check(env, st, "sketch_countmin_estimate_packed");
}

JNIEXPORT void JNICALL SK_JNI(CountMinSketch, nEstimateU64s)(JNIEnv *env, jclass cls, jlong buf,
                                                             jlong len, jlongArray keys, jint from,
                                                             jint count, jlongArray out,
                                                             jint out_from) {
    (void)cls;
    void *k, *r;
    if (!sk_pin(env, keys, &k)) return;
    if (!sk_pin(env, out, &r)) {
        sk_unpin(env, keys, k, JNI_ABORT);
        return;
    }
    int32_t st = sketch_countmin_estimate_u64_batch(SK_CBUF(buf), (size_t)len,
                                                    (const uint64_t *)k + from, (size_t)count,
                                                    (uint64_t *)r + out_from);
    sk_unpin(env, out, r, 0);
    sk_unpin(env, keys, k, JNI_ABORT);
    sk_check(env, st, "sketch_countmin_estimate_u64_batch");
}

/* l[0..6]: width, depth, counter bits, conservative, seed, total;
 * d[0..3]: epsilon, delta, error bound. */
JNIEXPORT void JNICALL SK_JNI(CountMinSketch, nStats)(JNIEnv *env, jclass cls, jlong buf,
                                                      jlong len, jlongArray l, jdoubleArray d) {
    (void)cls;
    struct sketch_countmin_stats s;
    if (sk_check(env, sketch_countmin_get_stats(SK_CBUF(buf), (size_t)len, &s),
                 "sketch_countmin_get_stats"))
        return;
    jlong lv[6] = {(jlong)s.params.width, s.params.depth, s.params.counter_bits,
                   s.params.conservative, (jlong)s.seed,  (jlong)s.total};
    jdouble dv[3] = {s.epsilon, s.delta, s.error_bound};
    (*env)->SetLongArrayRegion(env, l, 0, 6, lv);
    (*env)->SetDoubleArrayRegion(env, d, 0, 3, dv);
}
