/* JNI glue of dev.sketches.BloomFilter (sketch_bloom_*). */
#include <string.h>

#include "jni_util.h"

/* params -> out[0..5]: bits, hashes, planned items, planned fpr (raw bits), image bytes. */
static void put_plan(JNIEnv *env, const struct sketch_bloom_params *p, jlongArray out) {
    uint64_t bytes = 0;
    if (sk_check(env, sketch_bloom_size(p, &bytes), "sketch_bloom_size")) return;
    double fpr = p->planned_fpr;
    jlong fpr_bits;
    memcpy(&fpr_bits, &fpr, sizeof fpr_bits);
    jlong v[5] = {(jlong)p->bits, p->hashes, (jlong)p->planned_items, fpr_bits, (jlong)bytes};
    (*env)->SetLongArrayRegion(env, out, 0, 5, v);
}

JNIEXPORT void JNICALL SK_JNI(BloomFilter, nPlan)(JNIEnv *env, jclass cls, jlong items, jdouble fpr,
                                                  jlongArray out) {
    (void)cls;
    struct sketch_bloom_params p;
    if (sk_check(env, sketch_bloom_plan((uint64_t)items, fpr, &p), "sketch_bloom_plan")) return;
    put_plan(env, &p, out);
}

JNIEXPORT void JNICALL SK_JNI(BloomFilter, nPlanBits)(JNIEnv *env, jclass cls, jlong bits,
                                                      jint hashes, jlongArray out) {
    (void)cls;
    struct sketch_bloom_params p;
    if (sk_check(env, sketch_bloom_plan_bits((uint64_t)bits, (uint32_t)hashes, &p),
                 "sketch_bloom_plan_bits"))
        return;
    put_plan(env, &p, out);
}

JNIEXPORT void JNICALL SK_JNI(BloomFilter, nInit)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                  jlong bits, jint hashes, jlong items,
                                                  jdouble fpr, jlong seed) {
    (void)cls;
    struct sketch_bloom_params p = {(uint64_t)bits, (uint32_t)hashes, 0, (uint64_t)items, fpr};
    sk_check(env, sketch_bloom_init(SK_BUF(buf), (size_t)len, &p, (uint64_t)seed),
             "sketch_bloom_init");
}

SK_KEY_BOOL_TOKEN(BloomFilter, nAdd, sketch_bloom_add, sketch_bloom_add_u64, )
SK_KEY_BOOL_TOKEN(BloomFilter, nContains, sketch_bloom_contains, sketch_bloom_contains_u64,
                  const)
SK_BATCH_BOOL(BloomFilter, nAdd, sketch_bloom_add_packed, sketch_bloom_add_u64_batch, )
SK_BATCH_BOOL(BloomFilter, nContains, sketch_bloom_contains_packed,
              sketch_bloom_contains_u64_batch, const)
SK_MERGE(BloomFilter, nUnion, sketch_bloom_union)
SK_MERGE(BloomFilter, nIntersect, sketch_bloom_intersect)
SK_VOID_OP(BloomFilter, nClear, sketch_bloom_clear)
SK_U32_OUT(BloomFilter, nCapacity, sketch_bloom_capacity)
SK_U32_OUT(BloomFilter, nCapacityConcurrent, sketch_bloom_capacity_concurrent)
SK_IMAGE_OPS(BloomFilter, sketch_bloom)
SK_TOKEN_FILL(BloomFilter, sketch_bloom)

/* The concurrent forms (sketches.h, thread-safety notes): any number of threads may run them on
 * one image at once. They take no token (the C calls have none) and write nothing but the image,
 * through the C library's atomic operations, and the call's own outputs: no native state of the
 * filter is shared between calls. */
SK_KEY_BOOL(BloomFilter, nAddConcurrent, sketch_bloom_add_concurrent,
            sketch_bloom_add_concurrent_u64, )
SK_KEY_BOOL(BloomFilter, nContainsConcurrent, sketch_bloom_contains_concurrent,
            sketch_bloom_contains_concurrent_u64, const)
SK_BATCH_BOOL(BloomFilter, nAddConcurrent, sketch_bloom_add_concurrent_packed,
              sketch_bloom_add_concurrent_u64_batch, )
SK_BATCH_BOOL(BloomFilter, nContainsConcurrent, sketch_bloom_contains_concurrent_packed,
              sketch_bloom_contains_concurrent_u64_batch, const)

/* l[0..8]: bits, hashes, planned items, seed, add calls, inserted, set bits,
 * capacity flags; d[0..5]: planned fpr, fill, estimated items, estimated fpr. */
JNIEXPORT void JNICALL SK_JNI(BloomFilter, nStats)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                   jlongArray l, jdoubleArray d) {
    (void)cls;
    struct sketch_bloom_stats s;
    if (sk_check(env, sketch_bloom_get_stats(SK_CBUF(buf), (size_t)len, &s),
                 "sketch_bloom_get_stats"))
        return;
    jlong lv[8] = {(jlong)s.params.bits, s.params.hashes, (jlong)s.params.planned_items,
                   (jlong)s.seed,        (jlong)s.add_calls, (jlong)s.inserted,
                   (jlong)s.set_bits,    s.capacity_flags};
    jdouble dv[4] = {s.params.planned_fpr, s.fill, s.estimated_items, s.estimated_fpr};
    (*env)->SetLongArrayRegion(env, l, 0, 8, lv);
    (*env)->SetDoubleArrayRegion(env, d, 0, 4, dv);
}
