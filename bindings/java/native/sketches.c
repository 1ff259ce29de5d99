/* JNI glue shared by every family: library load, exceptions, buffer
 * addresses, version, hashing and image inspection (class dev.sketches.Native). */
#include <string.h>

#include "jni_util.h"

static jclass exception_class;      /* global ref to dev.sketches.SketchException */
static jmethodID exception_ctor;    /* SketchException(int status, String operation) */

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void)reserved;
    JNIEnv *env;
    if ((*vm)->GetEnv(vm, (void **)&env, JNI_VERSION_1_8) != JNI_OK) return JNI_ERR;
    jclass local = (*env)->FindClass(env, "dev/sketches/SketchException");
    if (local == NULL) return JNI_ERR;
    exception_class = (*env)->NewGlobalRef(env, local);
    (*env)->DeleteLocalRef(env, local);
    if (exception_class == NULL) return JNI_ERR;
    exception_ctor = (*env)->GetMethodID(env, exception_class, "<init>", "(ILjava/lang/String;)V");
    if (exception_ctor == NULL) return JNI_ERR;
    return JNI_VERSION_1_8;
}

void sk_throw(JNIEnv *env, int32_t status, const char *op) {
    jstring name = (*env)->NewStringUTF(env, op);
    if (name == NULL) return; /* OutOfMemoryError pending */
    jobject ex = (*env)->NewObject(env, exception_class, exception_ctor, (jint)status, name);
    (*env)->DeleteLocalRef(env, name);
    if (ex == NULL) return;
    (*env)->Throw(env, (jthrowable)ex);
    (*env)->DeleteLocalRef(env, ex);
}

JNIEXPORT jlong JNICALL SK_JNI(Native, address)(JNIEnv *env, jclass cls, jobject buffer) {
    (void)cls;
    return (jlong)(intptr_t)(*env)->GetDirectBufferAddress(env, buffer);
}

JNIEXPORT jint JNICALL SK_JNI(Native, version)(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    return (jint)sketch_version();
}

JNIEXPORT jstring JNICALL SK_JNI(Native, statusText)(JNIEnv *env, jclass cls, jint status) {
    (void)cls;
    return (*env)->NewStringUTF(env, sketch_status_str(status));
}

JNIEXPORT jlong JNICALL SK_JNI(Native, hash)(JNIEnv *env, jclass cls, jbyteArray key, jint off,
                                             jint len, jlong seed) {
    (void)cls;
    sk_key k;
    if (!sk_key_get(env, key, off, len, &k)) return 0;
    uint64_t h = sketch_hash(k.ptr, (size_t)len, (uint64_t)seed);
    sk_key_release(env, key, &k);
    return (jlong)h;
}

JNIEXPORT jlong JNICALL SK_JNI(Native, hashU64)(JNIEnv *env, jclass cls, jlong key, jlong seed) {
    (void)env;
    (void)cls;
    return (jlong)sketch_hash_u64((uint64_t)key, (uint64_t)seed);
}

/* Fills out[0..6] with family, hash, format major, format minor, flags,
 * header bytes, and out[6], out[7] with seed and image bytes. */
JNIEXPORT void JNICALL SK_JNI(Native, inspect)(JNIEnv *env, jclass cls, jbyteArray bytes,
                                               jlongArray out) {
    (void)cls;
    void *b;
    size_t bytes_len = sk_array_len(env, bytes);
    if (!sk_pin(env, bytes, &b)) return;
    struct sketch_image_info info;
    memset(&info, 0, sizeof info);
    int32_t st = sketch_image_inspect(b, bytes_len, &info);
    sk_unpin(env, bytes, b, JNI_ABORT);
    if (sk_check(env, st, "sketch_image_inspect")) return;
    jlong v[8] = {info.family,       info.hash, info.format_major,      info.format_minor,
                  (jlong)info.flags, info.header_bytes, (jlong)info.seed, (jlong)info.image_bytes};
    (*env)->SetLongArrayRegion(env, out, 0, 8, v);
}

/* sketch_image_inspect_header over the first 48 bytes of `bytes` (an
 * array of at least 48: the caller checks), copied out, not pinned. Returns
 * the status without throwing (the stream reader words its own errors);
 * fills out[0..8] as inspect does on SKETCH_OK only. */
JNIEXPORT jint JNICALL SK_JNI(Native, inspectHeader)(JNIEnv *env, jclass cls, jbyteArray bytes,
                                                     jlongArray out) {
    (void)cls;
    jbyte head[SKETCH_COMMON_HEADER_BYTES];
    (*env)->GetByteArrayRegion(env, bytes, 0, SKETCH_COMMON_HEADER_BYTES, head);
    if ((*env)->ExceptionCheck(env)) return SKETCH_BUFFER_TOO_SMALL;
    struct sketch_image_info info;
    memset(&info, 0, sizeof info);
    int32_t st = sketch_image_inspect_header(head, sizeof head, &info);
    if (st != SKETCH_OK) return st;
    jlong v[8] = {info.family,       info.hash, info.format_major,      info.format_minor,
                  (jlong)info.flags, info.header_bytes, (jlong)info.seed, (jlong)info.image_bytes};
    (*env)->SetLongArrayRegion(env, out, 0, 8, v);
    return SKETCH_OK;
}

/* As inspect, over an image in place (an Image's address and length). */
JNIEXPORT void JNICALL SK_JNI(Native, inspectAt)(JNIEnv *env, jclass cls, jlong buf, jlong len,
                                                 jlongArray out) {
    (void)cls;
    struct sketch_image_info info;
    memset(&info, 0, sizeof info);
    int32_t st = sketch_image_inspect(SK_CBUF(buf), (size_t)len, &info);
    if (sk_check(env, st, "sketch_image_inspect")) return;
    jlong v[8] = {info.family,       info.hash, info.format_major,      info.format_minor,
                  (jlong)info.flags, info.header_bytes, (jlong)info.seed, (jlong)info.image_bytes};
    (*env)->SetLongArrayRegion(env, out, 0, 8, v);
}
