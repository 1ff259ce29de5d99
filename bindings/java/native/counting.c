/* JNI glue of dev.sketches.CountingBloomFilter (sketch_counting_*). */
#include <string.h>

#include "jni_util.h"

/* Plans with sketch_bloom_plan / sketch_bloom_plan_bits (bits = counters):
 * out[0..5]: counters, hashes, planned items, planned fpr (raw bits), image bytes. */
JNIEXPORT void JNICALL SK_JNI(CountingBloomFilter, nPlan)(JNIEnv *env, jclass cls, jlong a,
                                                          jdouble fpr, jint hashes,
                                                          jboolean explicit_size, jlongArray out) {
    (void)cls;
    struct sketch_bloom_params p;
    int32_t st = explicit_size ? sketch_bloom_plan_bits((uint64_t)a, (uint32_t)hashes, &p)
                               : sketch_bloom_plan((uint64_t)a, fpr, &p);
    if (sk_check(env, st, explicit_size ? "sketch_bloom_plan_bits" : "sketch_bloom_plan")) return;
    uint64_t bytes = 0;
    if (sk_check(env, sketch_counting_size(&p, &bytes), "sketch_counting_size")) return;
    double f = p.planned_fpr;
    jlong fpr_bits;
    memcpy(&fpr_bits, &f, sizeof fpr_bits);
    jlong v[5] = {(jlong)p.bits, p.hashes, (jlong)p.planned_items, fpr_bits, (jlong)bytes};
    (*env)->SetLongArrayRegion(env, out, 0, 5, v);
}

JNIEXPORT void JNICALL SK_JNI(CountingBloomFilter, nInit)(JNIEnv *env, jclass cls, jlong buf,
                                                          jlong len, jlong counters, jint hashes,
                                                          jlong items, jdouble fpr, jlong seed) {
    (void)cls;
    struct sketch_bloom_params p = {(uint64_t)counters, (uint32_t)hashes, 0, (uint64_t)items, fpr};
    sk_check(env, sketch_counting_init(SK_BUF(buf), (size_t)len, &p, (uint64_t)seed),
             "sketch_counting_init");
}

SK_KEY_BOOL(CountingBloomFilter, nAdd, sketch_counting_add, sketch_counting_add_u64, )
SK_KEY_BOOL(CountingBloomFilter, nContains, sketch_counting_contains,
            sketch_counting_contains_u64, const)
SK_KEY_SOFT(CountingBloomFilter, nRemove, sketch_counting_remove, sketch_counting_remove_u64,
            SKETCH_NOT_PRESENT)
SK_BATCH_BOOL(CountingBloomFilter, nAdd, sketch_counting_add_packed,
              sketch_counting_add_u64_batch, )
SK_BATCH_BOOL(CountingBloomFilter, nContains, sketch_counting_contains_packed,
              sketch_counting_contains_u64_batch, const)
SK_BATCH_BOOL(CountingBloomFilter, nRemove, sketch_counting_remove_packed,
              sketch_counting_remove_u64_batch, )
SK_MERGE(CountingBloomFilter, nMerge, sketch_counting_merge)
SK_VOID_OP(CountingBloomFilter, nClear, sketch_counting_clear)
SK_U32_OUT(CountingBloomFilter, nCapacity, sketch_counting_capacity)
SK_IMAGE_OPS(CountingBloomFilter, sketch_counting)

/* l[0..9]: counters, hashes, planned items, seed, add calls, removes, items,
 * nonzero counters, saturated counters, capacity flags (10);
 * d[0..2]: planned fpr, estimated fpr. */
JNIEXPORT void JNICALL SK_JNI(CountingBloomFilter, nStats)(JNIEnv *env, jclass cls, jlong buf,
                                                           jlong len, jlongArray l,
                                                           jdoubleArray d) {
    (void)cls;
    struct sketch_counting_stats s;
    if (sk_check(env, sketch_counting_get_stats(SK_CBUF(buf), (size_t)len, &s),
                 "sketch_counting_get_stats"))
        return;
    jlong lv[10] = {(jlong)s.params.bits,       s.params.hashes,     (jlong)s.params.planned_items,
                    (jlong)s.seed,              (jlong)s.add_calls,  (jlong)s.removes,
                    (jlong)s.items,             (jlong)s.nonzero_counters,
                    (jlong)s.saturated_counters, s.capacity_flags};
    jdouble dv[2] = {s.params.planned_fpr, s.estimated_fpr};
    (*env)->SetLongArrayRegion(env, l, 0, 10, lv);
    (*env)->SetDoubleArrayRegion(env, d, 0, 2, dv);
}
