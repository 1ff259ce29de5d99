/* JNI glue of dev.sketches.SplitBlockBloomFilter (sketch_sbbf_*). */
#include <string.h>

#include "jni_util.h"

/* params -> out[0..5]: blocks, planned items, planned fpr (raw bits), mode, image bytes. */
static void put_plan(JNIEnv *env, const struct sketch_sbbf_params *p, jlongArray out) {
    uint64_t bytes = 0;
    if (sk_check(env, sketch_sbbf_size(p, &bytes), "sketch_sbbf_size")) return;
    double fpr = p->planned_fpr;
    jlong fpr_bits;
    memcpy(&fpr_bits, &fpr, sizeof fpr_bits);
    jlong v[5] = {(jlong)p->blocks, (jlong)p->planned_items, fpr_bits, p->mode, (jlong)bytes};
    (*env)->SetLongArrayRegion(env, out, 0, 5, v);
}

JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nPlan)(JNIEnv *env, jclass cls, jlong items,
                                                            jdouble fpr, jboolean parquet,
                                                            jlongArray out) {
    (void)cls;
    struct sketch_sbbf_params p;
    int32_t st = parquet ? sketch_sbbf_plan_parquet((uint64_t)items, fpr, &p)
                         : sketch_sbbf_plan((uint64_t)items, fpr, &p);
    if (sk_check(env, st, parquet ? "sketch_sbbf_plan_parquet" : "sketch_sbbf_plan")) return;
    put_plan(env, &p, out);
}

JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nPlanBlocks)(JNIEnv *env, jclass cls,
                                                                  jlong blocks, jint mode,
                                                                  jlongArray out) {
    (void)cls;
    struct sketch_sbbf_params p;
    if (sk_check(env, sketch_sbbf_plan_blocks((uint64_t)blocks, (uint32_t)mode, &p),
                 "sketch_sbbf_plan_blocks"))
        return;
    put_plan(env, &p, out);
}

JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nInit)(JNIEnv *env, jclass cls, jlong buf,
                                                            jlong len, jlong blocks, jlong items,
                                                            jdouble fpr, jint mode, jlong seed) {
    (void)cls;
    struct sketch_sbbf_params p = {(uint64_t)blocks, (uint64_t)items, fpr, (uint32_t)mode, 0};
    sk_check(env, sketch_sbbf_init(SK_BUF(buf), (size_t)len, &p, (uint64_t)seed),
             "sketch_sbbf_init");
}

SK_KEY_BOOL_TOKEN(SplitBlockBloomFilter, nAdd, sketch_sbbf_add, sketch_sbbf_add_u64, )
SK_KEY_BOOL_TOKEN(SplitBlockBloomFilter, nContains, sketch_sbbf_contains,
                  sketch_sbbf_contains_u64, const)
SK_BATCH_BOOL(SplitBlockBloomFilter, nAdd, sketch_sbbf_add_packed, sketch_sbbf_add_u64_batch, )
SK_BATCH_BOOL(SplitBlockBloomFilter, nContains, sketch_sbbf_contains_packed,
              sketch_sbbf_contains_u64_batch, const)
SK_MERGE(SplitBlockBloomFilter, nUnion, sketch_sbbf_union)
SK_MERGE(SplitBlockBloomFilter, nIntersect, sketch_sbbf_intersect)
SK_VOID_OP(SplitBlockBloomFilter, nClear, sketch_sbbf_clear)
SK_U32_OUT(SplitBlockBloomFilter, nCapacity, sketch_sbbf_capacity)
SK_IMAGE_OPS(SplitBlockBloomFilter, sketch_sbbf)
SK_TOKEN_FILL(SplitBlockBloomFilter, sketch_sbbf)

/* The concurrent forms (sketches.h, thread-safety notes): any number of threads may run them on
 * one image at once. They take no token and write nothing but the image (atomically, in the C
 * library) and the call's own outputs. */
SK_KEY_BOOL(SplitBlockBloomFilter, nAddConcurrent, sketch_sbbf_add_concurrent,
            sketch_sbbf_add_concurrent_u64, )
SK_KEY_BOOL(SplitBlockBloomFilter, nContainsConcurrent, sketch_sbbf_contains_concurrent,
            sketch_sbbf_contains_concurrent_u64, const)
SK_BATCH_BOOL(SplitBlockBloomFilter, nAddConcurrent, sketch_sbbf_add_concurrent_packed,
              sketch_sbbf_add_concurrent_u64_batch, )
SK_BATCH_BOOL(SplitBlockBloomFilter, nContainsConcurrent, sketch_sbbf_contains_concurrent_packed,
              sketch_sbbf_contains_concurrent_u64_batch, const)

/* out[0] = offset of the bitset in the image, out[1] = its length. */
JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nBitset)(JNIEnv *env, jclass cls, jlong buf,
                                                              jlong len, jlongArray out) {
    (void)cls;
    const uint8_t *bits = NULL;
    size_t bits_len = 0;
    if (sk_check(env, sketch_sbbf_bitset(SK_CBUF(buf), (size_t)len, &bits, &bits_len),
                 "sketch_sbbf_bitset"))
        return;
    jlong v[2] = {(jlong)(bits - (const uint8_t *)SK_CBUF(buf)), (jlong)bits_len};
    (*env)->SetLongArrayRegion(env, out, 0, 2, v);
}

/* l[0..8]: blocks, planned items, mode, seed, add calls, inserted, set bits,
 * capacity flags; d[0..4]: planned fpr, fill, estimated items, estimated fpr. */
JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nStats)(JNIEnv *env, jclass cls, jlong buf,
                                                             jlong len, jlongArray l,
                                                             jdoubleArray d) {
    (void)cls;
    struct sketch_sbbf_stats s;
    if (sk_check(env, sketch_sbbf_get_stats(SK_CBUF(buf), (size_t)len, &s),
                 "sketch_sbbf_get_stats"))
        return;
    jlong lv[8] = {(jlong)s.params.blocks, (jlong)s.params.planned_items, s.params.mode,
                   (jlong)s.seed,          (jlong)s.add_calls,           (jlong)s.inserted,
                   (jlong)s.set_bits,      s.capacity_flags};
    jdouble dv[4] = {s.params.planned_fpr, s.fill, s.estimated_items, s.estimated_fpr};
    (*env)->SetLongArrayRegion(env, l, 0, 8, lv);
    (*env)->SetDoubleArrayRegion(env, d, 0, 4, dv);
}
