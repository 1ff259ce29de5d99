/* JNI glue of dev.sketches.TopK (sketch_topk_*). */
#include <stdlib.h>
#include <string.h>

#include "jni_util.h"

JNIEXPORT jlong JNICALL SK_JNI(TopK, nSize)(JNIEnv *env, jclass cls, jint capacity,
                                            jint max_key_len) {
    (void)cls;
    uint64_t bytes = 0;
    if (sk_check(env, sketch_topk_size((uint32_t)capacity, (uint32_t)max_key_len, &bytes),
                 "sketch_topk_size"))
        return 0;
    return (jlong)bytes;
}

JNIEXPORT void JNICALL SK_JNI(TopK, nInit)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                           jint capacity, jint max_key_len, jlong seed) {
    (void)cls;
    sk_check(env,
             sketch_topk_init(SK_BUF(buf), (size_t)len, (uint32_t)capacity, (uint32_t)max_key_len,
                              (uint64_t)seed),
             "sketch_topk_init");
}

SK_KEY_WEIGHT(TopK, nAdd, sketch_topk_add, sketch_topk_add_u64)
SK_BATCH_WEIGHTS(TopK, nAdd, sketch_topk_add_packed, sketch_topk_add_u64_batch)
SK_MERGE(TopK, nMerge, sketch_topk_merge)
SK_VOID_OP(TopK, nClear, sketch_topk_clear)
SK_IMAGE_OPS(TopK, sketch_topk)

/* out[0..3]: count, error, listed (0/1). */
JNIEXPORT void JNICALL SK_JNI(TopK, nEstimate)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                               jbyteArray key, jint off, jint klen,
                                               jlongArray out) {
    (void)cls;
    sk_key k;
    if (!sk_key_get(env, key, off, klen, &k)) return;
    struct sketch_topk_key_estimate e;
    memset(&e, 0, sizeof e);
    int32_t st = sketch_topk_estimate(SK_CBUF(buf), (size_t)len, k.ptr, (size_t)klen, &e);
    sk_key_release(env, key, &k);
    if (sk_check(env, st, "sketch_topk_estimate")) return;
    jlong v[3] = {(jlong)e.count, (jlong)e.error, e.listed ? 1 : 0};
    (*env)->SetLongArrayRegion(env, out, 0, 3, v);
}

/* Lists up to `capacity` keys, largest count first, into counts[i], errors[i]
 * and offsets[i] .. offsets[i + 1] (into the returned byte[] of the keys'
 * bytes); offsets has capacity + 2 slots, the last one receiving how many keys
 * were listed. The C items point into the image, so the keys are copied out
 * before returning. */
JNIEXPORT jbyteArray JNICALL SK_JNI(TopK, nList)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                 jint capacity, jlongArray counts,
                                                 jlongArray errors, jintArray offsets) {
    (void)cls;
    struct sketch_topk_item *items = NULL;
    if (capacity > 0) {
        items = malloc((size_t)capacity * sizeof *items);
        if (items == NULL) {
            sk_throw(env, SKETCH_BUFFER_TOO_SMALL, "TopK.list (out of native memory)");
            return NULL;
        }
    }
    size_t written = 0;
    int32_t st = sketch_topk_list(SK_CBUF(buf), (size_t)len, items, (size_t)capacity, &written);
    if (sk_check(env, st, "sketch_topk_list")) {
        free(items);
        return NULL;
    }
    size_t total = 0;
    for (size_t i = 0; i < written; i++) total += items[i].key_len;
    jbyteArray keys = (*env)->NewByteArray(env, (jsize)total);
    if (keys == NULL) {
        free(items);
        return NULL;
    }
    jint pos = 0;
    (*env)->SetIntArrayRegion(env, offsets, 0, 1, &pos);
    for (size_t i = 0; i < written; i++) {
        (*env)->SetByteArrayRegion(env, keys, pos, (jsize)items[i].key_len,
                                   (const jbyte *)items[i].key);
        pos += (jint)items[i].key_len;
        jlong c = (jlong)items[i].count, e = (jlong)items[i].error;
        (*env)->SetLongArrayRegion(env, counts, (jsize)i, 1, &c);
        (*env)->SetLongArrayRegion(env, errors, (jsize)i, 1, &e);
        (*env)->SetIntArrayRegion(env, offsets, (jsize)i + 1, 1, &pos);
    }
    jint n = (jint)written;
    (*env)->SetIntArrayRegion(env, offsets, capacity + 1, 1, &n);
    free(items);
    return keys;
}

/* l[0..7]: capacity, max key len, used, seed, total, min count. */
JNIEXPORT void JNICALL SK_JNI(TopK, nStats)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                            jlongArray l) {
    (void)cls;
    struct sketch_topk_stats s;
    if (sk_check(env, sketch_topk_get_stats(SK_CBUF(buf), (size_t)len, &s), "sketch_topk_get_stats"))
        return;
    jlong lv[6] = {s.capacity, s.max_key_len, s.used, (jlong)s.seed, (jlong)s.total,
                   (jlong)s.min_count};
    (*env)->SetLongArrayRegion(env, l, 0, 6, lv);
}
