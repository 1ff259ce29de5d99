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
SK_U32_OUT(SplitBlockBloomFilter, nCapacityConcurrent, sketch_sbbf_capacity_concurrent)
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

/* ---- Precomputed hashes and Parquet interop ------------------------------ */

JNIEXPORT jboolean JNICALL SK_JNI(SplitBlockBloomFilter, nAddHash)(JNIEnv *env, jclass cls,
                                                                   jlong buf, jlong len, jlong tok,
                                                                   jlong hash) {
    (void)cls;
    bool was_new = false;
    if (sk_check(env,
                 sketch_sbbf_add_hash_with_token(SK_BUF(buf), (size_t)len SK_TOKEN_ARG,
                                                 (uint64_t)hash, &was_new),
                 "sketch_sbbf_add_hash"))
        return JNI_FALSE;
    return was_new ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jboolean JNICALL SK_JNI(SplitBlockBloomFilter, nContainsHash)(JNIEnv *env, jclass cls,
                                                                        jlong buf, jlong len,
                                                                        jlong tok, jlong hash) {
    (void)cls;
    bool out = false;
    if (sk_check(env,
                 sketch_sbbf_contains_hash_with_token(SK_CBUF(buf), (size_t)len SK_TOKEN_ARG,
                                                      (uint64_t)hash, &out),
                 "sketch_sbbf_contains_hash"))
        return JNI_FALSE;
    return out ? JNI_TRUE : JNI_FALSE;
}

/* Hashes from..from+count of `hashes`, per-hash bool into out[out_from..] (out may be NULL when
 * adding). The Java side checks the ranges. */
JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nAddHashes)(JNIEnv *env, jclass cls,
                                                                 jlong buf, jlong len,
                                                                 jlongArray hashes, jint from,
                                                                 jint count, jbooleanArray out,
                                                                 jint out_from) {
    (void)cls;
    void *h, *r;
    if (!sk_pin(env, hashes, &h)) return;
    if (!sk_pin(env, out, &r)) {
        sk_unpin(env, hashes, h, JNI_ABORT);
        return;
    }
    int32_t st = sketch_sbbf_add_hash_batch(SK_BUF(buf), (size_t)len, (const uint64_t *)h + from,
                                            (size_t)count, r == NULL ? NULL : (bool *)r + out_from);
    sk_unpin(env, out, r, 0);
    sk_unpin(env, hashes, h, JNI_ABORT);
    sk_check(env, st, "sketch_sbbf_add_hash_batch");
}

JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nContainsHashes)(JNIEnv *env, jclass cls,
                                                                      jlong buf, jlong len,
                                                                      jlongArray hashes, jint from,
                                                                      jint count,
                                                                      jbooleanArray out,
                                                                      jint out_from) {
    (void)cls;
    void *h, *r;
    if (!sk_pin(env, hashes, &h)) return;
    if (!sk_pin(env, out, &r)) {
        sk_unpin(env, hashes, h, JNI_ABORT);
        return;
    }
    int32_t st = sketch_sbbf_contains_hash_batch(SK_CBUF(buf), (size_t)len,
                                                 (const uint64_t *)h + from, (size_t)count,
                                                 (bool *)r + out_from);
    sk_unpin(env, out, r, 0);
    sk_unpin(env, hashes, h, JNI_ABORT);
    sk_check(env, st, "sketch_sbbf_contains_hash_batch");
}

JNIEXPORT jlong JNICALL SK_JNI(SplitBlockBloomFilter, nParquetHashI32)(JNIEnv *env, jclass cls,
                                                                       jint value) {
    (void)env;
    (void)cls;
    return (jlong)sketch_parquet_hash_i32((int32_t)value);
}

JNIEXPORT jlong JNICALL SK_JNI(SplitBlockBloomFilter, nParquetHashI64)(JNIEnv *env, jclass cls,
                                                                       jlong value) {
    (void)env;
    (void)cls;
    return (jlong)sketch_parquet_hash_i64((int64_t)value);
}

/* FLOAT and DOUBLE arrive as their raw bits (Float.floatToRawIntBits,
 * Double.doubleToRawLongBits): every NaN payload reaches the C helper as it is. */
JNIEXPORT jlong JNICALL SK_JNI(SplitBlockBloomFilter, nParquetHashFloat)(JNIEnv *env, jclass cls,
                                                                         jint bits) {
    (void)env;
    (void)cls;
    float value;
    memcpy(&value, &bits, sizeof value);
    return (jlong)sketch_parquet_hash_float(value);
}

JNIEXPORT jlong JNICALL SK_JNI(SplitBlockBloomFilter, nParquetHashDouble)(JNIEnv *env, jclass cls,
                                                                          jlong bits) {
    (void)env;
    (void)cls;
    double value;
    memcpy(&value, &bits, sizeof value);
    return (jlong)sketch_parquet_hash_double(value);
}

JNIEXPORT jlong JNICALL SK_JNI(SplitBlockBloomFilter, nParquetHashBytes)(JNIEnv *env, jclass cls,
                                                                         jbyteArray value,
                                                                         jint off, jint len) {
    (void)cls;
    sk_key k;
    if (!sk_key_get(env, value, off, len, &k)) return 0;
    uint64_t h = sketch_parquet_hash_bytes(k.ptr, (size_t)len);
    sk_key_release(env, value, &k);
    return (jlong)h;
}

JNIEXPORT jlong JNICALL SK_JNI(SplitBlockBloomFilter, nParquetHashBuf)(JNIEnv *env, jclass cls,
                                                                       jobject value, jint pos,
                                                                       jint len) {
    (void)cls;
    return (jlong)sketch_parquet_hash_bytes(sk_direct(env, value, pos), (size_t)len);
}

JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nPlanParquetSizing)(JNIEnv *env, jclass cls,
                                                                         jlong ndv, jdouble fpp,
                                                                         jint sizing,
                                                                         jlongArray out) {
    (void)cls;
    struct sketch_sbbf_params p;
    if (sk_check(env, sketch_sbbf_plan_parquet_sizing((uint64_t)ndv, fpp, (uint32_t)sizing, &p),
                 "sketch_sbbf_plan_parquet_sizing"))
        return;
    put_plan(env, &p, out);
}

JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nPlanParquetBitset)(JNIEnv *env, jclass cls,
                                                                         jlong bitset_len,
                                                                         jdouble fpr,
                                                                         jlongArray out) {
    (void)cls;
    struct sketch_sbbf_params p;
    if (sk_check(env, sketch_sbbf_plan_parquet_bitset((size_t)bitset_len, fpr, &p),
                 "sketch_sbbf_plan_parquet_bitset"))
        return;
    put_plan(env, &p, out);
}

/* Loads bytes off..off+blen of `bitset` (pinned for the one C call, which only copies them). */
JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nLoadParquetBitset)(
    JNIEnv *env, jclass cls, jlong buf, jlong len, jbyteArray bitset, jint off, jint blen,
    jlong blocks, jlong items, jdouble fpr, jint mode) {
    (void)cls;
    struct sketch_sbbf_params p = {(uint64_t)blocks, (uint64_t)items, fpr, (uint32_t)mode, 0};
    void *b;
    if (!sk_pin(env, bitset, &b)) return;
    int32_t st = sketch_sbbf_load_parquet_bitset(SK_BUF(buf), (size_t)len, sk_at(b, off),
                                                 (size_t)blen, &p);
    sk_unpin(env, bitset, b, JNI_ABORT);
    sk_check(env, st, "sketch_sbbf_load_parquet_bitset");
}

JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nLoadParquetBitsetBuf)(
    JNIEnv *env, jclass cls, jlong buf, jlong len, jobject bitset, jint pos, jint blen,
    jlong blocks, jlong items, jdouble fpr, jint mode) {
    (void)cls;
    struct sketch_sbbf_params p = {(uint64_t)blocks, (uint64_t)items, fpr, (uint32_t)mode, 0};
    sk_check(env,
             sketch_sbbf_load_parquet_bitset(SK_BUF(buf), (size_t)len, sk_direct(env, bitset, pos),
                                             (size_t)blen, &p),
             "sketch_sbbf_load_parquet_bitset");
}

/* Returns the new image length. */
JNIEXPORT jlong JNICALL SK_JNI(SplitBlockBloomFilter, nFold)(JNIEnv *env, jclass cls, jlong buf,
                                                             jlong len, jint folds) {
    (void)cls;
    size_t new_len = 0;
    if (sk_check(env, sketch_sbbf_fold(SK_BUF(buf), (size_t)len, (uint32_t)folds, &new_len),
                 "sketch_sbbf_fold"))
        return 0;
    return (jlong)new_len;
}

/* out[0] = folds made, out[1] = the new image length. */
JNIEXPORT void JNICALL SK_JNI(SplitBlockBloomFilter, nFoldToTargetFpp)(JNIEnv *env, jclass cls,
                                                                       jlong buf, jlong len,
                                                                       jdouble fpp,
                                                                       jlongArray out) {
    (void)cls;
    uint32_t folds = 0;
    size_t new_len = 0;
    if (sk_check(env,
                 sketch_sbbf_fold_to_target_fpp(SK_BUF(buf), (size_t)len, fpp, &folds, &new_len),
                 "sketch_sbbf_fold_to_target_fpp"))
        return;
    jlong v[2] = {(jlong)folds, (jlong)new_len};
    (*env)->SetLongArrayRegion(env, out, 0, 2, v);
}
