/* JNI glue of dev.sketches.CuckooFilter (sketch_cuckoo_*). */
#include <string.h>

#include "jni_util.h"

/* out[0..5]: buckets, fingerprint bits, planned items, planned fpr (raw bits), image bytes. */
JNIEXPORT void JNICALL SK_JNI(CuckooFilter, nPlan)(JNIEnv *env, jclass cls, jlong a, jdouble fpr,
                                                   jint fingerprint_bits, jboolean explicit_size,
                                                   jlongArray out) {
    (void)cls;
    struct sketch_cuckoo_params p;
    int32_t st = explicit_size
                     ? sketch_cuckoo_plan_buckets((uint64_t)a, (uint32_t)fingerprint_bits, &p)
                     : sketch_cuckoo_plan((uint64_t)a, fpr, &p);
    if (sk_check(env, st, explicit_size ? "sketch_cuckoo_plan_buckets" : "sketch_cuckoo_plan"))
        return;
    uint64_t bytes = 0;
    if (sk_check(env, sketch_cuckoo_size(&p, &bytes), "sketch_cuckoo_size")) return;
    double f = p.planned_fpr;
    jlong fpr_bits;
    memcpy(&fpr_bits, &f, sizeof fpr_bits);
    jlong v[5] = {(jlong)p.buckets, p.fingerprint_bits, (jlong)p.planned_items, fpr_bits,
                  (jlong)bytes};
    (*env)->SetLongArrayRegion(env, out, 0, 5, v);
}

JNIEXPORT void JNICALL SK_JNI(CuckooFilter, nInit)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                   jlong buckets, jint fingerprint_bits,
                                                   jlong items, jdouble fpr, jlong seed) {
    (void)cls;
    struct sketch_cuckoo_params p = {(uint64_t)buckets, (uint32_t)fingerprint_bits, 0,
                                     (uint64_t)items, fpr};
    sk_check(env, sketch_cuckoo_init(SK_BUF(buf), (size_t)len, &p, (uint64_t)seed),
             "sketch_cuckoo_init");
}

SK_KEY_SOFT(CuckooFilter, nAdd, sketch_cuckoo_add, sketch_cuckoo_add_u64, SKETCH_FULL)
SK_KEY_SOFT(CuckooFilter, nRemove, sketch_cuckoo_remove, sketch_cuckoo_remove_u64,
            SKETCH_NOT_PRESENT)
SK_KEY_BOOL(CuckooFilter, nContains, sketch_cuckoo_contains, sketch_cuckoo_contains_u64, const)
SK_BATCH_BOOL(CuckooFilter, nAdd, sketch_cuckoo_add_packed, sketch_cuckoo_add_u64_batch, )
SK_BATCH_BOOL(CuckooFilter, nRemove, sketch_cuckoo_remove_packed,
              sketch_cuckoo_remove_u64_batch, )
SK_BATCH_BOOL(CuckooFilter, nContains, sketch_cuckoo_contains_packed,
              sketch_cuckoo_contains_u64_batch, const)
SK_VOID_OP(CuckooFilter, nClear, sketch_cuckoo_clear)
SK_U32_OUT(CuckooFilter, nCapacity, sketch_cuckoo_capacity)
SK_IMAGE_OPS(CuckooFilter, sketch_cuckoo)

/* How many copies of the key's fingerprint are stored (0..8). */
JNIEXPORT jint JNICALL SK_JNI(CuckooFilter, nCount)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                    jbyteArray key, jint off, jint klen) {
    (void)cls;
    sk_key k;
    if (!sk_key_get(env, key, off, klen, &k)) return 0;
    uint32_t out = 0;
    int32_t st = sketch_cuckoo_count(SK_CBUF(buf), (size_t)len, k.ptr, (size_t)klen, &out);
    sk_key_release(env, key, &k);
    if (sk_check(env, st, "sketch_cuckoo_count")) return 0;
    return (jint)out;
}

/* The C ABI has no count_u64: count the key's 8 little-endian bytes. */
JNIEXPORT jint JNICALL SK_JNI(CuckooFilter, nCountU64)(JNIEnv *env, jclass cls, jlong buf,
                                                       jlong len, jlong key) {
    (void)cls;
    uint8_t bytes[8];
    for (int i = 0; i < 8; i++) bytes[i] = (uint8_t)((uint64_t)key >> (8 * i));
    uint32_t out = 0;
    int32_t st = sketch_cuckoo_count(SK_CBUF(buf), (size_t)len, bytes, 8, &out);
    if (sk_check(env, st, "sketch_cuckoo_count")) return 0;
    return (jint)out;
}

JNIEXPORT void JNICALL SK_JNI(CuckooFilter, nMerge)(JNIEnv *env, jclass cls, jlong dst,
                                                    jlong dst_len, jlong src, jlong src_len,
                                                    jlong scratch, jlong scratch_len) {
    (void)cls;
    sk_check(env,
             sketch_cuckoo_merge(SK_BUF(dst), (size_t)dst_len, SK_CBUF(src), (size_t)src_len,
                                 SK_BUF(scratch), (size_t)scratch_len),
             "sketch_cuckoo_merge");
}

/* l[0..6]: buckets, fingerprint bits, planned items, seed, items, capacity flags;
 * d[0..3]: planned fpr, load, estimated fpr. */
JNIEXPORT void JNICALL SK_JNI(CuckooFilter, nStats)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                    jlongArray l, jdoubleArray d) {
    (void)cls;
    struct sketch_cuckoo_stats s;
    if (sk_check(env, sketch_cuckoo_get_stats(SK_CBUF(buf), (size_t)len, &s),
                 "sketch_cuckoo_get_stats"))
        return;
    jlong lv[6] = {(jlong)s.params.buckets, s.params.fingerprint_bits, (jlong)s.params.planned_items,
                   (jlong)s.seed,           (jlong)s.items,            s.capacity_flags};
    jdouble dv[3] = {s.params.planned_fpr, s.load, s.estimated_fpr};
    (*env)->SetLongArrayRegion(env, l, 0, 6, lv);
    (*env)->SetDoubleArrayRegion(env, d, 0, 3, dv);
}
