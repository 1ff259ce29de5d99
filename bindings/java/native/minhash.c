/* JNI glue of dev.sketches.MinHash (sketch_minhash_*). */
#include "jni_util.h"

JNIEXPORT jlong JNICALL SK_JNI(MinHash, nSize)(JNIEnv *env, jclass cls, jint k) {
    (void)cls;
    uint64_t bytes = 0;
    if (sk_check(env, sketch_minhash_size((uint32_t)k, &bytes), "sketch_minhash_size")) return 0;
    return (jlong)bytes;
}

JNIEXPORT void JNICALL SK_JNI(MinHash, nInit)(JNIEnv *env, jclass cls, jlong buf, jlong len, jint k,
                                              jlong seed) {
    (void)cls;
    sk_check(env, sketch_minhash_init(SK_BUF(buf), (size_t)len, (uint32_t)k, (uint64_t)seed),
             "sketch_minhash_init");
}

SK_KEY_BOOL(MinHash, nAdd, sketch_minhash_add, sketch_minhash_add_u64, )
SK_BATCH_VOID(MinHash, nAdd, sketch_minhash_add_packed, sketch_minhash_add_u64_batch)
SK_MERGE(MinHash, nMerge, sketch_minhash_merge)
SK_VOID_OP(MinHash, nClear, sketch_minhash_clear)
SK_IMAGE_OPS(MinHash, sketch_minhash)

JNIEXPORT jdouble JNICALL SK_JNI(MinHash, nJaccard)(JNIEnv *env, jclass cls, jlong a, jlong a_len,
                                                    jlong b, jlong b_len) {
    (void)cls;
    double out = 0;
    if (sk_check(env, sketch_minhash_jaccard(SK_CBUF(a), (size_t)a_len, SK_CBUF(b), (size_t)b_len,
                                             &out),
                 "sketch_minhash_jaccard"))
        return 0;
    return out;
}

JNIEXPORT void JNICALL SK_JNI(MinHash, nSignature)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                   jlongArray out) {
    (void)cls;
    void *o;
    size_t out_len = sk_array_len(env, out);
    if (!sk_pin(env, out, &o)) return;
    int32_t st = sketch_minhash_signature(SK_CBUF(buf), (size_t)len, o, out_len);
    sk_unpin(env, out, o, 0);
    sk_check(env, st, "sketch_minhash_signature");
}

/* l[0..3]: registers, filled, seed. */
JNIEXPORT void JNICALL SK_JNI(MinHash, nStats)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                               jlongArray l) {
    (void)cls;
    struct sketch_minhash_stats s;
    if (sk_check(env, sketch_minhash_get_stats(SK_CBUF(buf), (size_t)len, &s),
                 "sketch_minhash_get_stats"))
        return;
    jlong lv[3] = {s.registers, s.filled, (jlong)s.seed};
    (*env)->SetLongArrayRegion(env, l, 0, 3, lv);
}
