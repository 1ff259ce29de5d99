/*
 * Shared pieces of the JNI glue of the Java binding (package dev.sketches).
 *
 * Conventions of every native method:
 * - Images are passed as (jlong address, jlong length): the address of a
 *   direct ByteBuffer, taken once when the Java object is made (the Java side
 *   keeps the buffer reachable across the call).
 * - byte[] / int[] / long[] / boolean[] arguments are pinned with
 *   GetPrimitiveArrayCritical for the duration of one C call and released
 *   right after: the C ABI never keeps a pointer, calls back, blocks or
 *   allocates, so no JNI call happens inside a critical region (array lengths
 *   are read before the pins). Batches arrive in chunks (the Java side splits
 *   them) so a critical region stays short.
 * - A status other than SKETCH_OK becomes a thrown dev.sketches.SketchException
 *   (sk_throw) after every array is released; the return value is then
 *   ignored by the JVM.
 */
#ifndef SKETCHES_JNI_UTIL_H
#define SKETCHES_JNI_UTIL_H

#include <jni.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sketches.h"

/* An image address passed from Java as a jlong. */
#define SK_BUF(a) ((void *)(intptr_t)(a))
#define SK_CBUF(a) ((const void *)(intptr_t)(a))

/* JNI name of a native method of class dev.sketches.CLS. */
#define SK_JNI(CLS, NAME) Java_dev_sketches_##CLS##_##NAME

/* Throws dev.sketches.SketchException(status, op). */
void sk_throw(JNIEnv *env, int32_t status, const char *op);

/* Pins a primitive array (NULL stays NULL). Returns false only when the JVM
 * could not pin it and an exception (OutOfMemoryError) is pending; a NULL
 * pointer without a pending exception is passed on as NULL (the C ABI accepts
 * NULL with length 0). */
/* Length of an array argument (0 for NULL); read before any pin, as no JNI
   call may run inside a critical region. */
static inline size_t sk_array_len(JNIEnv *env, jarray a) {
    return a == NULL ? 0 : (size_t)(*env)->GetArrayLength(env, a);
}

static inline bool sk_pin(JNIEnv *env, jarray a, void **out) {
    if (a == NULL) {
        *out = NULL;
        return true;
    }
    *out = (*env)->GetPrimitiveArrayCritical(env, a, NULL);
    return *out != NULL || !(*env)->ExceptionCheck(env);
}

/* `p + off` for a pinned array that may be NULL (an empty array). */
static inline const uint8_t *sk_at(const void *p, jint off) {
    return p == NULL ? NULL : (const uint8_t *)p + off;
}

/* Releases a pinned array; `mode` JNI_ABORT for inputs (nothing to copy back). */
static inline void sk_unpin(JNIEnv *env, jarray a, void *p, jint mode) {
    if (p != NULL) {
        (*env)->ReleasePrimitiveArrayCritical(env, a, p, mode);
    }
}

/* Throws when `st` is not SKETCH_OK; returns true when it threw. */
static inline bool sk_check(JNIEnv *env, int32_t st, const char *op) {
    if (st != SKETCH_OK) {
        sk_throw(env, st, op);
        return true;
    }
    return false;
}

/* The address of a direct ByteBuffer plus an offset. */
static inline const uint8_t *sk_direct(JNIEnv *env, jobject buffer, jint pos) {
    const uint8_t *p = (*env)->GetDirectBufferAddress(env, buffer);
    return p == NULL ? NULL : p + pos;
}

/* ---- Single keys -------------------------------------------------------- */

/* Keys up to this many bytes are copied to the stack (GetByteArrayRegion: one
 * JNI call); longer ones are pinned (two calls, no copy). */
#define SK_STACK_KEY 1024

/* Strings up to this many chars are read with GetStringRegion and encoded to
 * UTF-8 here; the Java side passes longer ones as byte[] (String.getBytes). */
#define SK_STACK_CHARS 256

/* The bytes of one byte[] key. */
typedef struct {
    const uint8_t *ptr;
    void *pinned;
    uint8_t stack[SK_STACK_KEY];
} sk_key;

static inline bool sk_key_get(JNIEnv *env, jbyteArray arr, jint off, jint len, sk_key *k) {
    k->pinned = NULL;
    if (len <= SK_STACK_KEY) {
        if (len > 0) (*env)->GetByteArrayRegion(env, arr, off, len, (jbyte *)k->stack);
        k->ptr = k->stack;
        return true;
    }
    if (!sk_pin(env, arr, &k->pinned)) return false;
    k->ptr = sk_at(k->pinned, off);
    return true;
}

static inline void sk_key_release(JNIEnv *env, jbyteArray arr, sk_key *k) {
    sk_unpin(env, arr, k->pinned, JNI_ABORT);
}

/* A String key of at most SK_STACK_CHARS chars as exactly the bytes of
 * String.getBytes(UTF_8): surrogate pairs become 4 bytes, an unpaired
 * surrogate becomes '?' (as the JDK's encoder replaces it). */
typedef struct {
    size_t len;
    uint8_t bytes[3 * SK_STACK_CHARS];
} sk_str;

static inline void sk_str_get(JNIEnv *env, jstring s, jint n, sk_str *out) {
    jchar c16[SK_STACK_CHARS];
    (*env)->GetStringRegion(env, s, 0, n, c16);
    uint8_t *o = out->bytes;
    for (jint i = 0; i < n; i++) {
        uint32_t c = c16[i];
        if (c < 0x80) {
            *o++ = (uint8_t)c;
        } else if (c < 0x800) {
            *o++ = (uint8_t)(0xC0 | (c >> 6));
            *o++ = (uint8_t)(0x80 | (c & 0x3F));
        } else if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && c16[i + 1] >= 0xDC00 &&
                   c16[i + 1] <= 0xDFFF) {
            uint32_t cp = 0x10000 + ((c - 0xD800) << 10) + (c16[i + 1] - 0xDC00u);
            i++;
            *o++ = (uint8_t)(0xF0 | (cp >> 18));
            *o++ = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
            *o++ = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
            *o++ = (uint8_t)(0x80 | (cp & 0x3F));
        } else if (c >= 0xD800 && c <= 0xDFFF) {
            *o++ = '?';
        } else {
            *o++ = (uint8_t)(0xE0 | (c >> 12));
            *o++ = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            *o++ = (uint8_t)(0x80 | (c & 0x3F));
        }
    }
    out->len = (size_t)(o - out->bytes);
}

/* ---- Tokens ------------------------------------------------------------
 *
 * Bloom, split-block and HyperLogLog objects keep a sketch_token beside their
 * image (Native.Image.token: the address of SKETCH_TOKEN_WORDS * 8 bytes of
 * native memory, 8-byte aligned, owned with the image). nToken fills it
 * wherever the Java side gets a new or re-written image; the single-key
 * natives pass it to the _with_token calls, which skip the header validation
 * while the token matches the image and validate in full otherwise (a zero
 * or stale token costs time, never a different result). It is read and
 * written here, never through a JNI array (no per-call JNI access).
 */

/* The token parameter and argument the SK_KEY_BOOL_TOKEN natives insert. */
#define SK_TOKEN_PARAM , jlong tok
#define SK_TOKEN_ARG , (const sketch_token *)(intptr_t)tok

/* nToken(buf, len, tok): writes the image's token (PREFIX##_token) to the
 * memory at `tok`, or zeroes it when the image is refused, so that the calls
 * validate in full and report the refusal as they did without a token.
 * Never throws: making a token is not allowed to fail an operation that
 * succeeded without one. Returns whether the token was filled (false, and
 * nothing written, for an image without token memory: tok 0). */
#define SK_TOKEN_FILL(CLS, PREFIX)                                                                \
    JNIEXPORT jboolean JNICALL SK_JNI(CLS, nToken)(JNIEnv * env, jclass cls, jlong buf, jlong len, \
                                                   jlong tok) {                                   \
        (void)env;                                                                                \
        (void)cls;                                                                                \
        sketch_token *t = (sketch_token *)(intptr_t)tok;                                          \
        if (t == NULL) return JNI_FALSE;                                                          \
        if (PREFIX##_token(SK_CBUF(buf), (size_t)len, t) == SKETCH_OK) return JNI_TRUE;           \
        memset(t, 0, sizeof *t);                                                                  \
        return JNI_FALSE;                                                                         \
    }

/* ---- Generators for the shapes every family repeats ---------------------
 *
 * Single keys come in four forms: byte[] with offset and length, a String of
 * at most SK_STACK_CHARS chars (NAME##Str; encoded to UTF-8 here), a direct
 * ByteBuffer with position and length, and a long (hashed as its 8
 * little-endian bytes: the C _u64 form).
 */

/* A key operation with a bool output (add reporting new, contains):
 * NAME (byte[]), NAME##Str (String), NAME##Buf (ByteBuffer), NAME##U64 (long). */
#define SK_KEY_BOOL(CLS, NAME, CFN, CFN_U64, CONST) \
    SK_KEY_BOOL_GEN(CLS, NAME, CFN, CFN_U64, #CFN, #CFN_U64, CONST, , )

/* As SK_KEY_BOOL for a family with tokens (see "Tokens" below): each native
 * takes the token's address after the image, (buf, len, tok, key...), and
 * calls CFN##_with_token; an exception names the plain call CFN, as without
 * a token (the status and the result are those of the plain call). */
#define SK_KEY_BOOL_TOKEN(CLS, NAME, CFN, CFN_U64, CONST)                                    \
    SK_KEY_BOOL_GEN(CLS, NAME, CFN##_with_token, CFN_U64##_with_token, #CFN, #CFN_U64, CONST, \
                    SK_TOKEN_PARAM, SK_TOKEN_ARG)

/* The four natives of SK_KEY_BOOL and SK_KEY_BOOL_TOKEN: CALL and CALL_U64
 * are called, OP and OP_U64 name them in exceptions; TP is inserted after
 * the (jlong buf, jlong len) parameters and TA after the (buf, len)
 * arguments of each call (both empty, or SK_TOKEN_PARAM and SK_TOKEN_ARG). */
#define SK_KEY_BOOL_GEN(CLS, NAME, CALL, CALL_U64, OP, OP_U64, CONST, TP, TA)                   \
    JNIEXPORT jboolean JNICALL SK_JNI(CLS, NAME)(JNIEnv * env, jclass cls, jlong buf, jlong len \
                                                 TP, jbyteArray key, jint off, jint klen) {     \
        (void)cls;                                                                               \
        sk_key k;                                                                                \
        if (!sk_key_get(env, key, off, klen, &k)) return JNI_FALSE;                             \
        bool out = false;                                                                        \
        int32_t st = CALL((CONST void *)(intptr_t)buf, (size_t)len TA, k.ptr, (size_t)klen,     \
                          &out);                                                                 \
        sk_key_release(env, key, &k);                                                            \
        if (sk_check(env, st, OP)) return JNI_FALSE;                                             \
        return out ? JNI_TRUE : JNI_FALSE;                                                       \
    }                                                                                            \
    JNIEXPORT jboolean JNICALL SK_JNI(CLS, NAME##Str)(JNIEnv * env, jclass cls, jlong buf,       \
                                                      jlong len TP, jstring key, jint n) {       \
        (void)cls;                                                                               \
        sk_str k;                                                                                \
        sk_str_get(env, key, n, &k);                                                             \
        bool out = false;                                                                        \
        int32_t st = CALL((CONST void *)(intptr_t)buf, (size_t)len TA, k.bytes, k.len, &out);   \
        if (sk_check(env, st, OP)) return JNI_FALSE;                                             \
        return out ? JNI_TRUE : JNI_FALSE;                                                       \
    }                                                                                            \
    JNIEXPORT jboolean JNICALL SK_JNI(CLS, NAME##Buf)(JNIEnv * env, jclass cls, jlong buf,       \
                                                      jlong len TP, jobject key, jint pos,       \
                                                      jint klen) {                               \
        (void)cls;                                                                               \
        bool out = false;                                                                        \
        int32_t st = CALL((CONST void *)(intptr_t)buf, (size_t)len TA, sk_direct(env, key, pos), \
                          (size_t)klen, &out);                                                   \
        if (sk_check(env, st, OP)) return JNI_FALSE;                                             \
        return out ? JNI_TRUE : JNI_FALSE;                                                       \
    }                                                                                            \
    JNIEXPORT jboolean JNICALL SK_JNI(CLS, NAME##U64)(JNIEnv * env, jclass cls, jlong buf,       \
                                                      jlong len TP, jlong key) {                 \
        (void)cls;                                                                               \
        bool out = false;                                                                        \
        int32_t st = CALL_U64((CONST void *)(intptr_t)buf, (size_t)len TA, (uint64_t)key, &out); \
        if (sk_check(env, st, OP_U64)) return JNI_FALSE;                                         \
        return out ? JNI_TRUE : JNI_FALSE;                                                       \
    }

/* A key operation without output whose one expected refusal (`SOFT`, e.g.
 * SKETCH_FULL or SKETCH_NOT_PRESENT) returns false instead of throwing. */
#define SK_KEY_SOFT(CLS, NAME, CFN, CFN_U64, SOFT)                                               \
    JNIEXPORT jboolean JNICALL SK_JNI(CLS, NAME)(JNIEnv * env, jclass cls, jlong buf, jlong len, \
                                                 jbyteArray key, jint off, jint klen) {          \
        (void)cls;                                                                               \
        sk_key k;                                                                                 \
        if (!sk_key_get(env, key, off, klen, &k)) return JNI_FALSE;                                             \
        int32_t st = CFN(SK_BUF(buf), (size_t)len, k.ptr, (size_t)klen);      \
        sk_key_release(env, key, &k);                                                            \
        if (st == (SOFT)) return JNI_FALSE;                                                      \
        if (sk_check(env, st, #CFN)) return JNI_FALSE;                                           \
        return JNI_TRUE;                                                                         \
    }                                                                                            \
    JNIEXPORT jboolean JNICALL SK_JNI(CLS, NAME##Str)(JNIEnv * env, jclass cls, jlong buf,       \
                                                      jlong len, jstring key, jint n) {          \
        (void)cls;                                                                               \
        sk_str k;                                                                                \
        sk_str_get(env, key, n, &k);                                                             \
        int32_t st = CFN(SK_BUF(buf), (size_t)len, k.bytes, k.len);                              \
        if (st == (SOFT)) return JNI_FALSE;                                                      \
        if (sk_check(env, st, #CFN)) return JNI_FALSE;                                           \
        return JNI_TRUE;                                                                         \
    }                                                                                            \
    JNIEXPORT jboolean JNICALL SK_JNI(CLS, NAME##Buf)(JNIEnv * env, jclass cls, jlong buf,       \
                                                      jlong len, jobject key, jint pos,          \
                                                      jint klen) {                               \
        (void)cls;                                                                               \
        int32_t st = CFN(SK_BUF(buf), (size_t)len, sk_direct(env, key, pos), (size_t)klen);      \
        if (st == (SOFT)) return JNI_FALSE;                                                      \
        if (sk_check(env, st, #CFN)) return JNI_FALSE;                                           \
        return JNI_TRUE;                                                                         \
    }                                                                                            \
    JNIEXPORT jboolean JNICALL SK_JNI(CLS, NAME##U64)(JNIEnv * env, jclass cls, jlong buf,       \
                                                      jlong len, jlong key) {                    \
        (void)cls;                                                                               \
        int32_t st = CFN_U64(SK_BUF(buf), (size_t)len, (uint64_t)key);                           \
        if (st == (SOFT)) return JNI_FALSE;                                                      \
        if (sk_check(env, st, #CFN_U64)) return JNI_FALSE;                                       \
        return JNI_TRUE;                                                                         \
    }

/* A key operation taking a weight (Count-Min and Top-k add). */
#define SK_KEY_WEIGHT(CLS, NAME, CFN, CFN_U64)                                                   \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME)(JNIEnv * env, jclass cls, jlong buf, jlong len,     \
                                             jbyteArray key, jint off, jint klen, jlong weight) { \
        (void)cls;                                                                               \
        sk_key k;                                                                                \
        if (!sk_key_get(env, key, off, klen, &k)) return;                                        \
        int32_t st = CFN(SK_BUF(buf), (size_t)len, k.ptr, (size_t)klen,       \
                         (uint64_t)weight);                                                      \
        sk_key_release(env, key, &k);                                                            \
        sk_check(env, st, #CFN);                                                                 \
    }                                                                                            \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME##Str)(JNIEnv * env, jclass cls, jlong buf,           \
                                                  jlong len, jstring key, jint n, jlong weight) { \
        (void)cls;                                                                               \
        sk_str k;                                                                                \
        sk_str_get(env, key, n, &k);                                                             \
        sk_check(env, CFN(SK_BUF(buf), (size_t)len, k.bytes, k.len, (uint64_t)weight), #CFN);    \
    }                                                                                            \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME##Buf)(JNIEnv * env, jclass cls, jlong buf,           \
                                                  jlong len, jobject key, jint pos, jint klen,   \
                                                  jlong weight) {                                \
        (void)cls;                                                                               \
        int32_t st = CFN(SK_BUF(buf), (size_t)len, sk_direct(env, key, pos), (size_t)klen,       \
                         (uint64_t)weight);                                                      \
        sk_check(env, st, #CFN);                                                                 \
    }                                                                                            \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME##U64)(JNIEnv * env, jclass cls, jlong buf,           \
                                                  jlong len, jlong key, jlong weight) {          \
        (void)cls;                                                                               \
        int32_t st = CFN_U64(SK_BUF(buf), (size_t)len, (uint64_t)key, (uint64_t)weight);         \
        sk_check(env, st, #CFN_U64);                                                             \
    }

/* A key query with a uint64_t output (Count-Min estimate). */
#define SK_KEY_U64OUT(CLS, NAME, CFN, CFN_U64)                                                   \
    JNIEXPORT jlong JNICALL SK_JNI(CLS, NAME)(JNIEnv * env, jclass cls, jlong buf, jlong len,    \
                                              jbyteArray key, jint off, jint klen) {             \
        (void)cls;                                                                               \
        sk_key k;                                                                                 \
        if (!sk_key_get(env, key, off, klen, &k)) return 0;                                                     \
        uint64_t out = 0;                                                                        \
        int32_t st = CFN(SK_CBUF(buf), (size_t)len, k.ptr, (size_t)klen,      \
                         &out);                                                                  \
        sk_key_release(env, key, &k);                                                            \
        if (sk_check(env, st, #CFN)) return 0;                                                   \
        return (jlong)out;                                                                       \
    }                                                                                            \
    JNIEXPORT jlong JNICALL SK_JNI(CLS, NAME##Str)(JNIEnv * env, jclass cls, jlong buf,          \
                                                   jlong len, jstring key, jint n) {             \
        (void)cls;                                                                               \
        sk_str k;                                                                                \
        sk_str_get(env, key, n, &k);                                                             \
        uint64_t out = 0;                                                                        \
        int32_t st = CFN(SK_CBUF(buf), (size_t)len, k.bytes, k.len, &out);                       \
        if (sk_check(env, st, #CFN)) return 0;                                                   \
        return (jlong)out;                                                                       \
    }                                                                                            \
    JNIEXPORT jlong JNICALL SK_JNI(CLS, NAME##Buf)(JNIEnv * env, jclass cls, jlong buf,          \
                                                   jlong len, jobject key, jint pos, jint klen) { \
        (void)cls;                                                                               \
        uint64_t out = 0;                                                                        \
        int32_t st = CFN(SK_CBUF(buf), (size_t)len, sk_direct(env, key, pos), (size_t)klen,      \
                         &out);                                                                  \
        if (sk_check(env, st, #CFN)) return 0;                                                   \
        return (jlong)out;                                                                       \
    }                                                                                            \
    JNIEXPORT jlong JNICALL SK_JNI(CLS, NAME##U64)(JNIEnv * env, jclass cls, jlong buf,          \
                                                   jlong len, jlong key) {                       \
        (void)cls;                                                                               \
        uint64_t out = 0;                                                                        \
        int32_t st = CFN_U64(SK_CBUF(buf), (size_t)len, (uint64_t)key, &out);                    \
        if (sk_check(env, st, #CFN_U64)) return 0;                                               \
        return (jlong)out;                                                                       \
    }

/* ---- Batches -------------------------------------------------------------
 *
 * NAME##Packed(buf, len, byte[] data, int[] offsets, int from, int count,
 *              OUT[] out, int outFrom): keys from..from+count of an Arrow
 * layout (offsets has at least from + count + 1 entries; they index `data`).
 * NAME##U64s(buf, len, long[] keys, int from, int count, OUT[] out, int outFrom).
 * The Java side checks every index range before calling.
 */

/* Batch with an optional per-key bool output (NULL allowed when OPTIONAL). */
#define SK_BATCH_BOOL(CLS, NAME, CFN_PACKED, CFN_U64S, CONST)                                    \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME##Packed)(                                            \
        JNIEnv * env, jclass cls, jlong buf, jlong len, jbyteArray data, jintArray offsets,      \
        jint from, jint count, jbooleanArray out, jint out_from) {                               \
        (void)cls;                                                                               \
        void *d, *o, *r;                                                                         \
        size_t data_len = sk_array_len(env, data);                             \
        if (!sk_pin(env, data, &d)) return;                                                      \
        if (!sk_pin(env, offsets, &o)) {                                                         \
            sk_unpin(env, data, d, JNI_ABORT);                                                   \
            return;                                                                              \
        }                                                                                        \
        if (!sk_pin(env, out, &r)) {                                                             \
            sk_unpin(env, offsets, o, JNI_ABORT);                                                \
            sk_unpin(env, data, d, JNI_ABORT);                                                   \
            return;                                                                              \
        }                                                                                        \
        int32_t st = CFN_PACKED((CONST void *)(intptr_t)buf, (size_t)len, d,                     \
                                data_len,                                                        \
                                (const uint32_t *)o + from, (size_t)count,                       \
                                r == NULL ? NULL : (bool *)r + out_from);                        \
        sk_unpin(env, out, r, 0);                                                                \
        sk_unpin(env, offsets, o, JNI_ABORT);                                                    \
        sk_unpin(env, data, d, JNI_ABORT);                                                       \
        sk_check(env, st, #CFN_PACKED);                                                          \
    }                                                                                            \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME##U64s)(JNIEnv * env, jclass cls, jlong buf,          \
                                                   jlong len, jlongArray keys, jint from,        \
                                                   jint count, jbooleanArray out,                \
                                                   jint out_from) {                              \
        (void)cls;                                                                               \
        void *k, *r;                                                                             \
        if (!sk_pin(env, keys, &k)) return;                                                      \
        if (!sk_pin(env, out, &r)) {                                                             \
            sk_unpin(env, keys, k, JNI_ABORT);                                                   \
            return;                                                                              \
        }                                                                                        \
        int32_t st = CFN_U64S((CONST void *)(intptr_t)buf, (size_t)len,                          \
                              (const uint64_t *)k + from, (size_t)count,                         \
                              r == NULL ? NULL : (bool *)r + out_from);                          \
        sk_unpin(env, out, r, 0);                                                                \
        sk_unpin(env, keys, k, JNI_ABORT);                                                       \
        sk_check(env, st, #CFN_U64S);                                                            \
    }

/* Batch add without per-key output (HyperLogLog, UltraLogLog, MinHash). */
#define SK_BATCH_VOID(CLS, NAME, CFN_PACKED, CFN_U64S)                                           \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME##Packed)(JNIEnv * env, jclass cls, jlong buf,        \
                                                     jlong len, jbyteArray data,                 \
                                                     jintArray offsets, jint from, jint count) { \
        (void)cls;                                                                               \
        void *d, *o;                                                                             \
        size_t data_len = sk_array_len(env, data);                             \
        if (!sk_pin(env, data, &d)) return;                                                      \
        if (!sk_pin(env, offsets, &o)) {                                                         \
            sk_unpin(env, data, d, JNI_ABORT);                                                   \
            return;                                                                              \
        }                                                                                        \
        int32_t st = CFN_PACKED(SK_BUF(buf), (size_t)len, d,                                     \
                                data_len,                                                        \
                                (const uint32_t *)o + from, (size_t)count);                      \
        sk_unpin(env, offsets, o, JNI_ABORT);                                                    \
        sk_unpin(env, data, d, JNI_ABORT);                                                       \
        sk_check(env, st, #CFN_PACKED);                                                          \
    }                                                                                            \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME##U64s)(JNIEnv * env, jclass cls, jlong buf,          \
                                                   jlong len, jlongArray keys, jint from,        \
                                                   jint count) {                                 \
        (void)cls;                                                                               \
        void *k;                                                                                 \
        if (!sk_pin(env, keys, &k)) return;                                                      \
        int32_t st = CFN_U64S(SK_BUF(buf), (size_t)len, (const uint64_t *)k + from,              \
                              (size_t)count);                                                    \
        sk_unpin(env, keys, k, JNI_ABORT);                                                       \
        sk_check(env, st, #CFN_U64S);                                                            \
    }

/* Batch add with optional weights (Count-Min, Top-k). */
#define SK_BATCH_WEIGHTS(CLS, NAME, CFN_PACKED, CFN_U64S)                                        \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME##Packed)(                                            \
        JNIEnv * env, jclass cls, jlong buf, jlong len, jbyteArray data, jintArray offsets,      \
        jint from, jint count, jlongArray weights, jint w_from) {                                \
        (void)cls;                                                                               \
        void *d, *o, *w;                                                                         \
        size_t data_len = sk_array_len(env, data);                             \
        if (!sk_pin(env, data, &d)) return;                                                      \
        if (!sk_pin(env, offsets, &o)) {                                                         \
            sk_unpin(env, data, d, JNI_ABORT);                                                   \
            return;                                                                              \
        }                                                                                        \
        if (!sk_pin(env, weights, &w)) {                                                         \
            sk_unpin(env, offsets, o, JNI_ABORT);                                                \
            sk_unpin(env, data, d, JNI_ABORT);                                                   \
            return;                                                                              \
        }                                                                                        \
        int32_t st = CFN_PACKED(SK_BUF(buf), (size_t)len, d,                                     \
                                data_len,                                                        \
                                (const uint32_t *)o + from, (size_t)count,                       \
                                w == NULL ? NULL : (const uint64_t *)w + w_from);                \
        sk_unpin(env, weights, w, JNI_ABORT);                                                    \
        sk_unpin(env, offsets, o, JNI_ABORT);                                                    \
        sk_unpin(env, data, d, JNI_ABORT);                                                       \
        sk_check(env, st, #CFN_PACKED);                                                          \
    }                                                                                            \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME##U64s)(JNIEnv * env, jclass cls, jlong buf,          \
                                                   jlong len, jlongArray keys, jint from,        \
                                                   jint count, jlongArray weights,               \
                                                   jint w_from) {                                \
        (void)cls;                                                                               \
        void *k, *w;                                                                             \
        if (!sk_pin(env, keys, &k)) return;                                                      \
        if (!sk_pin(env, weights, &w)) {                                                         \
            sk_unpin(env, keys, k, JNI_ABORT);                                                   \
            return;                                                                              \
        }                                                                                        \
        int32_t st = CFN_U64S(SK_BUF(buf), (size_t)len, (const uint64_t *)k + from,              \
                              (size_t)count, w == NULL ? NULL : (const uint64_t *)w + w_from);   \
        sk_unpin(env, weights, w, JNI_ABORT);                                                    \
        sk_unpin(env, keys, k, JNI_ABORT);                                                       \
        sk_check(env, st, #CFN_U64S);                                                            \
    }

/* ---- Image operations ------------------------------------------------------
 * nExport(buf, len, byte[] out) -> bytes written; nImport(byte[] src, dst, dstLen);
 * nImportSize(byte[] src) -> live bytes the import needs (sketch_*_import_size: headers
 * and exact length checked; HyperLogLog's compact exports grow);
 * nVerifyAt(addr, len) (in place, e.g. a mapped file);
 * nMerge(dst, dstLen, src, srcLen) for the families whose merge takes two images.
 */
#define SK_IMAGE_OPS(CLS, PREFIX)                                                                \
    JNIEXPORT jint JNICALL SK_JNI(CLS, nExport)(JNIEnv * env, jclass cls, jlong buf, jlong len,  \
                                                jbyteArray out) {                                \
        (void)cls;                                                                               \
        void *o;                                                                                 \
        size_t out_len = sk_array_len(env, out);                               \
        if (!sk_pin(env, out, &o)) return 0;                                                     \
        size_t written = 0;                                                                      \
        int32_t st = PREFIX##_export(SK_CBUF(buf), (size_t)len, o, out_len, &written);           \
        sk_unpin(env, out, o, 0);                                                                \
        if (sk_check(env, st, #PREFIX "_export")) return 0;                                      \
        return (jint)written;                                                                    \
    }                                                                                            \
    JNIEXPORT jlong JNICALL SK_JNI(CLS, nImportSize)(JNIEnv * env, jclass cls, jbyteArray src) { \
        (void)cls;                                                                               \
        void *s;                                                                                 \
        size_t src_len = sk_array_len(env, src);                               \
        if (!sk_pin(env, src, &s)) return 0;                                                     \
        size_t size = 0;                                                                         \
        int32_t st = PREFIX##_import_size(s, src_len, &size);                                    \
        sk_unpin(env, src, s, JNI_ABORT);                                                        \
        if (sk_check(env, st, #PREFIX "_import_size")) return 0;                                 \
        return (jlong)size;                                                                      \
    }                                                                                            \
    JNIEXPORT void JNICALL SK_JNI(CLS, nImport)(JNIEnv * env, jclass cls, jbyteArray src,        \
                                                jlong dst, jlong dst_len) {                      \
        (void)cls;                                                                               \
        void *s;                                                                                 \
        size_t src_len = sk_array_len(env, src);                               \
        if (!sk_pin(env, src, &s)) return;                                                       \
        int32_t st = PREFIX##_import(s, src_len, SK_BUF(dst), (size_t)dst_len);                  \
        sk_unpin(env, src, s, JNI_ABORT);                                                        \
        sk_check(env, st, #PREFIX "_import");                                                    \
    }                                                                                            \
    JNIEXPORT void JNICALL SK_JNI(CLS, nVerifyAt)(JNIEnv * env, jclass cls, jlong buf,           \
                                                  jlong len) {                                   \
        (void)cls;                                                                               \
        sk_check(env, PREFIX##_verify(SK_CBUF(buf), (size_t)len), #PREFIX "_verify");            \
    }

#define SK_MERGE(CLS, NAME, CFN)                                                                 \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME)(JNIEnv * env, jclass cls, jlong dst, jlong dst_len, \
                                             jlong src, jlong src_len) {                         \
        (void)cls;                                                                               \
        sk_check(env, CFN(SK_BUF(dst), (size_t)dst_len, SK_CBUF(src), (size_t)src_len), #CFN);   \
    }

/* A call on the image alone (clear, reset). */
#define SK_VOID_OP(CLS, NAME, CFN)                                                               \
    JNIEXPORT void JNICALL SK_JNI(CLS, NAME)(JNIEnv * env, jclass cls, jlong buf, jlong len) {   \
        (void)cls;                                                                               \
        sk_check(env, CFN(SK_BUF(buf), (size_t)len), #CFN);                                      \
    }

/* A read-only call with one double output (estimates). */
#define SK_DOUBLE_OUT(CLS, NAME, CFN)                                                            \
    JNIEXPORT jdouble JNICALL SK_JNI(CLS, NAME)(JNIEnv * env, jclass cls, jlong buf, jlong len) { \
        (void)cls;                                                                               \
        double out = 0;                                                                          \
        if (sk_check(env, CFN(SK_CBUF(buf), (size_t)len, &out), #CFN)) return 0;                 \
        return out;                                                                              \
    }

/* A read-only call with one uint32_t output (capacity flags). */
#define SK_U32_OUT(CLS, NAME, CFN)                                                               \
    JNIEXPORT jint JNICALL SK_JNI(CLS, NAME)(JNIEnv * env, jclass cls, jlong buf, jlong len) {   \
        (void)cls;                                                                               \
        uint32_t out = 0;                                                                        \
        if (sk_check(env, CFN(SK_CBUF(buf), (size_t)len, &out), #CFN)) return 0;                 \
        return (jint)out;                                                                        \
    }

#endif /* SKETCHES_JNI_UTIL_H */
