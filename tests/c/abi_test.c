/*
 * Exercises every function of the C ABI through include/sketches.h:
 * documented statuses for NULL, zero length, misaligned and too-small
 * buffers, wrong family, hostile parameters, and the functional contract
 * (no false negatives, batch == single, union/intersection, export/import,
 * corruption). Built with -Wall -Wextra -Werror and run under ASan/UBSan
 * and valgrind by tests/tests/c_abi.rs. Prints "N passed, N failed".
 */
#include "sketches.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* Every live image length is a multiple of SKETCH_IMAGE_ALIGN (64). */
#define PAD64(x) (((x) + 63) / 64 * 64)

/* An 8-byte aligned heap buffer; +1 gives a misaligned view of it. */
static unsigned char *alloc_image(uint64_t bytes) {
    size_t rounded = ((size_t)bytes + 16 + 7) / 8 * 8;
    void *p = aligned_alloc(8, rounded);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(p, 0, (size_t)bytes + 16);
    return p;
}

static void test_status_and_version(void) {
    for (int s = 0; s <= 22; s++) {
        const char *text = sketch_status_str(s);
        CHECK(text != NULL && strlen(text) > 0);
        CHECK(strcmp(text, "unknown status code") != 0);
    }
    CHECK(strcmp(sketch_status_str(-1), "unknown status code") == 0);
    CHECK(strcmp(sketch_status_str(9999), "unknown status code") == 0);
    CHECK(strcmp(sketch_status_str(SKETCH_OK), "ok") == 0);
    CHECK(sketch_version() ==
          SKETCH_VERSION_MAJOR * 10000u + SKETCH_VERSION_MINOR * 100u + SKETCH_VERSION_PATCH);
    CHECK(strcmp(sketch_version_string(), SKETCH_VERSION_STRING) == 0);
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", SKETCH_VERSION_MAJOR, SKETCH_VERSION_MINOR,
             SKETCH_VERSION_PATCH);
    CHECK(strcmp(sketch_version_string(), expected) == 0);
}

static void test_hash(void) {
    uint64_t x = 0x0123456789abcdefULL;
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(x >> (8 * i));
    CHECK(sketch_hash_u64(x, 5) == sketch_hash(le, 8, 5));
    CHECK(sketch_hash(NULL, 0, 0) == 0x2D06800538D394C2ULL); /* XXH3-64 of "" */
    CHECK(sketch_hash("a", 1, 0) != sketch_hash("a", 1, 1));
    struct sketch_slice keys[3] = {{(const uint8_t *)"alpha", 5}, {NULL, 0}, {(const uint8_t *)"b", 1}};
    uint64_t out[3] = {0, 0, 0};
    EXPECT(sketch_hash_batch(keys, 3, 9, out), SKETCH_OK);
    CHECK(out[0] == sketch_hash("alpha", 5, 9) && out[1] == sketch_hash(NULL, 0, 9));
    EXPECT(sketch_hash_batch(NULL, 3, 9, out), SKETCH_NULL_POINTER);
    EXPECT(sketch_hash_batch(keys, 3, 9, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_hash_batch(NULL, 0, 9, NULL), SKETCH_OK);
    struct sketch_slice bad[2] = {{(const uint8_t *)"x", 1}, {NULL, 4}};
    uint64_t keep[2] = {7, 7};
    EXPECT(sketch_hash_batch(bad, 2, 9, keep), SKETCH_NULL_POINTER);
    CHECK(keep[0] == 7 && keep[1] == 7);
}

static void test_bloom_params(void) {
    struct sketch_bloom_params p;
    EXPECT(sketch_bloom_plan(1000000, 0.01, &p), SKETCH_OK);
    CHECK(p.bits == 9585059 && p.hashes == 7 && p.planned_items == 1000000);
    uint64_t bytes = 0;
    EXPECT(sketch_bloom_size(&p, &bytes), SKETCH_OK);
    CHECK(bytes == PAD64(112 + (9585059 + 63) / 64 * 8));
    const double bad_p[] = {0.0, 1.0, 1.5, -0.5, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad_p / sizeof bad_p[0]; i++) {
        EXPECT(sketch_bloom_plan(1000, bad_p[i], &p), SKETCH_INVALID_PARAMETER);
    }
    EXPECT(sketch_bloom_plan(0, 0.01, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_bloom_plan(1000, 0.01, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_plan_bits(0, 3, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_bloom_plan_bits(1024, 0, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_bloom_plan_bits(1024, 65, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_bloom_plan_bits(1024, 3, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_plan_bits((uint64_t)1 << 40, 7, &p), SKETCH_OK);
    EXPECT(sketch_bloom_size(&p, &bytes), SKETCH_OK);
    CHECK(bytes == PAD64(112 + ((uint64_t)1 << 37)));
    EXPECT(sketch_bloom_size(NULL, &bytes), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_size(&p, NULL), SKETCH_NULL_POINTER);
    struct sketch_bloom_params hostile = {0, 7, 0, 100, 0.01};
    EXPECT(sketch_bloom_size(&hostile, &bytes), SKETCH_INVALID_PARAMETER);
    hostile.bits = 1000;
    hostile.planned_fpr = NAN;
    EXPECT(sketch_bloom_size(&hostile, &bytes), SKETCH_INVALID_PARAMETER);
}

static void test_bloom(void) {
    struct sketch_bloom_params p;
    EXPECT(sketch_bloom_plan(20000, 0.01, &p), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_bloom_size(&p, &size), SKETCH_OK);
    unsigned char *buf = alloc_image(size);
    size_t len = (size_t)size;

    /* init: NULL, empty, misaligned, too small, bad params */
    EXPECT(sketch_bloom_init(NULL, len, &p, 1), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_init(NULL, 0, &p, 1), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_bloom_init(buf + 1, len, &p, 1), SKETCH_MISALIGNED);
    EXPECT(sketch_bloom_init(buf, len - 1, &p, 1), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_bloom_init(buf, len, NULL, 1), SKETCH_NULL_POINTER);
    struct sketch_bloom_params bad = p;
    bad.hashes = 0;
    EXPECT(sketch_bloom_init(buf, len, &bad, 1), SKETCH_INVALID_PARAMETER);
    bool b = false;
    /* Not initialized yet: zero bytes are not an image. */
    EXPECT(sketch_bloom_contains(buf, len, "k", 1, &b), SKETCH_BAD_MAGIC);
    EXPECT(sketch_bloom_init(buf, len, &p, 1), SKETCH_OK);

    /* single calls */
    EXPECT(sketch_bloom_add(buf, len, "hello", 5, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_bloom_add(buf, len, "hello", 5, &b), SKETCH_OK);
    CHECK(b == false);
    EXPECT(sketch_bloom_add(buf, len, "again", 5, NULL), SKETCH_OK);
    EXPECT(sketch_bloom_add(buf, len, NULL, 0, &b), SKETCH_OK);
    EXPECT(sketch_bloom_add(buf, len, NULL, 3, &b), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_add(NULL, len, "x", 1, &b), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_add(NULL, 0, "x", 1, &b), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_bloom_add(buf + 1, len - 1, "x", 1, &b), SKETCH_MISALIGNED);
    EXPECT(sketch_bloom_add(buf, 100, "x", 1, &b), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_bloom_contains(buf, len, "hello", 5, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_bloom_contains(buf, len, NULL, 0, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_bloom_contains(buf, len, "hello", 5, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_add_u64(buf, len, 42, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_bloom_contains_u64(buf, len, 42, &b), SKETCH_OK);
    CHECK(b == true);
    uint64_t h = sketch_hash_u64(43, 1);
    EXPECT(sketch_bloom_add_hash(buf, len, h, &b), SKETCH_OK);
    EXPECT(sketch_bloom_contains_u64(buf, len, 43, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_bloom_contains_hash(buf, len, sketch_hash("hello", 5, 1), &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_bloom_contains_hash(buf, len, h, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_contains_u64(buf, len, 42, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_add_u64(NULL, 8, 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_add_hash(NULL, 8, 1, NULL), SKETCH_NULL_POINTER);

    /* batch: results agree with single calls; no false negatives */
    enum { N = 5000 };
    static char storage[N][16];
    static struct sketch_slice keys[N];
    static uint64_t hashes[N];
    static bool results[N];
    for (int i = 0; i < N; i++) {
        int n = snprintf(storage[i], sizeof storage[i], "key-%d", i);
        keys[i].ptr = (const uint8_t *)storage[i];
        keys[i].len = (size_t)n;
        hashes[i] = sketch_hash(storage[i], (size_t)n, 1);
    }
    EXPECT(sketch_bloom_add_batch(buf, len, keys, N, results), SKETCH_OK);
    int news = 0;
    for (int i = 0; i < N; i++) news += results[i];
    CHECK(news > N - 20);
    EXPECT(sketch_bloom_add_batch(buf, len, keys, N, NULL), SKETCH_OK);
    EXPECT(sketch_bloom_add_hash_batch(buf, len, hashes, N, results), SKETCH_OK);
    for (int i = 0; i < N; i++) CHECK(results[i] == false);
    memset(results, 0, sizeof results);
    EXPECT(sketch_bloom_contains_batch(buf, len, keys, N, results), SKETCH_OK);
    int all = 1;
    for (int i = 0; i < N; i++) all &= results[i];
    CHECK(all);
    memset(results, 0, sizeof results);
    EXPECT(sketch_bloom_contains_hash_batch(buf, len, hashes, N, results), SKETCH_OK);
    all = 1;
    for (int i = 0; i < N; i++) all &= results[i];
    CHECK(all);
    EXPECT(sketch_bloom_contains_batch(buf, len, keys, N, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_contains_batch(buf, len, NULL, N, results), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_contains_batch(buf, len, NULL, 0, NULL), SKETCH_OK);
    EXPECT(sketch_bloom_add_batch(buf, len, NULL, 0, NULL), SKETCH_OK);
    EXPECT(sketch_bloom_add_hash_batch(buf, len, NULL, 2, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_contains_hash_batch(buf, len, hashes, 2, NULL), SKETCH_NULL_POINTER);
    /* A bad key pointer anywhere fails the whole batch before any change. */
    struct sketch_bloom_stats before, after;
    EXPECT(sketch_bloom_get_stats(buf, len, &before), SKETCH_OK);
    struct sketch_slice bad_keys[3] = {{(const uint8_t *)"fresh-1", 7}, {NULL, 5}, {(const uint8_t *)"fresh-2", 7}};
    EXPECT(sketch_bloom_add_batch(buf, len, bad_keys, 3, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_get_stats(buf, len, &after), SKETCH_OK);
    CHECK(before.add_calls == after.add_calls && before.set_bits == after.set_bits);

    /* stats and capacity */
    CHECK(after.params.bits == p.bits && after.seed == 1 && after.inserted <= after.add_calls);
    CHECK(after.estimated_fpr > 0 && after.estimated_fpr < 0.01);
    CHECK(fabs(after.estimated_items - (N + 4)) < 0.05 * N);
    uint32_t flags = 99;
    EXPECT(sketch_bloom_capacity(buf, len, &flags), SKETCH_OK);
    CHECK(flags == 0);
    EXPECT(sketch_bloom_capacity(buf, len, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_get_stats(buf, len, NULL), SKETCH_NULL_POINTER);

    /* export / import / verify */
    unsigned char *out = alloc_image(size);
    size_t written = 0;
    EXPECT(sketch_bloom_export(buf, len, out, len - 1, &written), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_bloom_export(buf, len, out, len, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_export(buf, len, buf + 8, len - 8, &written), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_export(buf, len, out + 1, len, &written), SKETCH_OK); /* any alignment */
    EXPECT(sketch_bloom_verify(out + 1, written), SKETCH_OK);
    EXPECT(sketch_bloom_export(buf, len, out, len, &written), SKETCH_OK);
    CHECK(written == len);
    EXPECT(sketch_bloom_verify(out, written), SKETCH_OK);
    unsigned char *back = alloc_image(size);
    memset(back, 0xEE, len);
    out[len / 2] ^= 0x10; /* body damage */
    EXPECT(sketch_bloom_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    EXPECT(sketch_bloom_verify(out, written), SKETCH_CHECKSUM_MISMATCH);
    CHECK(back[0] == 0xEE && back[len - 1] == 0xEE); /* untouched */
    out[len / 2] ^= 0x10;
    EXPECT(sketch_bloom_import(out, written - 8, back, len), SKETCH_LENGTH_MISMATCH);
    EXPECT(sketch_bloom_import(out, written, back + 1, len), SKETCH_MISALIGNED);
    EXPECT(sketch_bloom_import(out, written, back, len - 1), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_bloom_import(NULL, written, back, len), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_import(out, written, out, written), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_import(out, written, back, len), SKETCH_OK);
    CHECK(memcmp(out, back, len) == 0);
    EXPECT(sketch_bloom_contains(back, len, "hello", 5, &b), SKETCH_OK);
    CHECK(b == true);
    out[4] = 9; /* newer major version */
    EXPECT(sketch_bloom_verify(out, written), SKETCH_UNSUPPORTED_VERSION);

    /* union / intersection */
    unsigned char *other = alloc_image(size);
    EXPECT(sketch_bloom_init(other, len, &p, 1), SKETCH_OK);
    EXPECT(sketch_bloom_add(other, len, "only-in-other", 13, NULL), SKETCH_OK);
    EXPECT(sketch_bloom_union(buf, len, other, len), SKETCH_OK);
    EXPECT(sketch_bloom_contains(buf, len, "only-in-other", 13, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_bloom_union(buf, len, buf, len), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_intersect(buf, len, buf, len), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_union(buf, len, NULL, len), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_intersect(other, len, buf, len), SKETCH_OK);
    EXPECT(sketch_bloom_contains(other, len, "only-in-other", 13, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_bloom_init(other, len, &p, 2), SKETCH_OK); /* other seed */
    EXPECT(sketch_bloom_union(buf, len, other, len), SKETCH_INCOMPATIBLE);
    EXPECT(sketch_bloom_intersect(buf, len, other, len), SKETCH_INCOMPATIBLE);

    /* clear */
    EXPECT(sketch_bloom_clear(buf, len), SKETCH_OK);
    EXPECT(sketch_bloom_contains(buf, len, "hello", 5, &b), SKETCH_OK);
    CHECK(b == false);
    EXPECT(sketch_bloom_clear(NULL, 4), SKETCH_NULL_POINTER);

    /* image inspection */
    struct sketch_image_info info;
    EXPECT(sketch_image_inspect(buf, len, &info), SKETCH_OK);
    CHECK(info.family == SKETCH_FAMILY_BLOOM && info.hash == SKETCH_HASH_XXH3 && info.seed == 1);
    CHECK(info.image_bytes == len && info.format_major == SKETCH_FORMAT_MAJOR);
    EXPECT(sketch_image_inspect(buf, 10, &info), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_image_inspect(buf, len, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_image_inspect("garbage-garbage-garbage-garbage-garbage-garbage-garbage", 48, &info),
           SKETCH_BAD_MAGIC);

    free(buf);
    free(out);
    free(back);
    free(other);
}

static void test_sbbf(void) {
    struct sketch_sbbf_params p;
    EXPECT(sketch_sbbf_plan(20000, 0.01, &p), SKETCH_OK);
    CHECK(p.mode == SKETCH_SBBF_NATIVE && p.blocks * 256.0 / 20000 > 10.0);
    EXPECT(sketch_sbbf_plan(0, 0.01, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan(100, NAN, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan(100, 1.0, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan(100, 0.0, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan(100, 0.01, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_sbbf_plan_parquet(0, 0.01, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan_parquet(1000, 0.05, &p), SKETCH_OK);
    CHECK(p.mode == SKETCH_SBBF_PARQUET && p.blocks * SKETCH_SBBF_BLOCK_BYTES == 1024);
    EXPECT(sketch_sbbf_plan_blocks(0, SKETCH_SBBF_NATIVE, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan_blocks(8, 7, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan_blocks(8, SKETCH_SBBF_NATIVE, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_sbbf_plan(20000, 0.01, &p), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_sbbf_size(&p, &size), SKETCH_OK);
    CHECK(size == PAD64(128 + p.blocks * 32));
    EXPECT(sketch_sbbf_size(NULL, &size), SKETCH_NULL_POINTER);
    struct sketch_sbbf_params bad = p;
    bad.mode = 3;
    EXPECT(sketch_sbbf_size(&bad, &size), SKETCH_INVALID_PARAMETER);
    size_t len = (size_t)size;
    unsigned char *buf = alloc_image(size);
    EXPECT(sketch_sbbf_init(buf + 1, len, &p, 3), SKETCH_MISALIGNED);
    EXPECT(sketch_sbbf_init(buf, len - 1, &p, 3), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_sbbf_init(NULL, len, &p, 3), SKETCH_NULL_POINTER);
    EXPECT(sketch_sbbf_init(buf, len, &bad, 3), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_init(buf, len, &p, 3), SKETCH_OK);

    /* A Bloom call on a split-block image is the wrong family, and back. */
    bool b = false;
    EXPECT(sketch_bloom_contains(buf, len, "k", 1, &b), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_bloom_add(buf, len, "k", 1, NULL), SKETCH_WRONG_FAMILY);

    EXPECT(sketch_sbbf_add(buf, len, "hello", 5, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_sbbf_add(buf, len, "hello", 5, &b), SKETCH_OK);
    CHECK(b == false);
    EXPECT(sketch_sbbf_add(buf, len, NULL, 2, &b), SKETCH_NULL_POINTER);
    EXPECT(sketch_sbbf_contains(buf, len, "hello", 5, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_sbbf_contains(buf, len, "hello", 5, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_sbbf_add_u64(buf, len, 77, NULL), SKETCH_OK);
    EXPECT(sketch_sbbf_contains_u64(buf, len, 77, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_sbbf_add_hash(buf, len, sketch_hash("h", 1, 3), NULL), SKETCH_OK);
    EXPECT(sketch_sbbf_contains(buf, len, "h", 1, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_sbbf_contains_hash(buf, len, sketch_hash("hello", 5, 3), &b), SKETCH_OK);
    CHECK(b == true);

    enum { N = 3000 };
    static uint64_t hashes[N];
    static bool results[N];
    static char storage[N][16];
    static struct sketch_slice keys[N];
    for (int i = 0; i < N; i++) {
        hashes[i] = sketch_hash_u64((uint64_t)i * 7919u, 3);
        int n = snprintf(storage[i], sizeof storage[i], "s-%d", i);
        keys[i].ptr = (const uint8_t *)storage[i];
        keys[i].len = (size_t)n;
    }
    EXPECT(sketch_sbbf_add_hash_batch(buf, len, hashes, N, results), SKETCH_OK);
    EXPECT(sketch_sbbf_add_batch(buf, len, keys, N, NULL), SKETCH_OK);
    memset(results, 0, sizeof results);
    EXPECT(sketch_sbbf_contains_hash_batch(buf, len, hashes, N, results), SKETCH_OK);
    int all = 1;
    for (int i = 0; i < N; i++) all &= results[i];
    CHECK(all);
    memset(results, 0, sizeof results);
    EXPECT(sketch_sbbf_contains_batch(buf, len, keys, N, results), SKETCH_OK);
    all = 1;
    for (int i = 0; i < N; i++) all &= results[i];
    CHECK(all);
    EXPECT(sketch_sbbf_contains_batch(buf, len, keys, N, NULL), SKETCH_NULL_POINTER);

    struct sketch_sbbf_stats st;
    EXPECT(sketch_sbbf_get_stats(buf, len, &st), SKETCH_OK);
    CHECK(st.add_calls == 2 * N + 4 && st.set_bits > 0 && st.estimated_fpr < 0.01);
    uint32_t flags = 7;
    EXPECT(sketch_sbbf_capacity(buf, len, &flags), SKETCH_OK);
    CHECK(flags == 0);

    const uint8_t *bits = NULL;
    size_t bits_len = 0;
    EXPECT(sketch_sbbf_bitset(buf, len, &bits, &bits_len), SKETCH_OK);
    CHECK(bits == buf + 128 && bits_len == p.blocks * 32);
    EXPECT(sketch_sbbf_bitset(buf, len, NULL, &bits_len), SKETCH_NULL_POINTER);

    unsigned char *out = alloc_image(size);
    size_t written = 0;
    EXPECT(sketch_sbbf_export(buf, len, out, len, &written), SKETCH_OK);
    EXPECT(sketch_sbbf_verify(out, written), SKETCH_OK);
    EXPECT(sketch_bloom_verify(out, written), SKETCH_WRONG_FAMILY);
    unsigned char *back = alloc_image(size);
    EXPECT(sketch_bloom_import(out, written, back, len), SKETCH_WRONG_FAMILY);
    out[len - 5] ^= 1; /* body damage */
    EXPECT(sketch_sbbf_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    out[len - 5] ^= 1;
    out[100] ^= 1; /* reserved header byte */
    EXPECT(sketch_sbbf_import(out, written, back, len), SKETCH_CORRUPT_HEADER);
    out[100] ^= 1;
    EXPECT(sketch_sbbf_import(out, written, back, len), SKETCH_OK);
    CHECK(memcmp(out, back, len) == 0);

    EXPECT(sketch_sbbf_union(back, len, buf, len), SKETCH_OK);
    EXPECT(sketch_sbbf_intersect(back, len, buf, len), SKETCH_OK);
    EXPECT(sketch_sbbf_union(buf, len, buf, len), SKETCH_OVERLAP);
    struct sketch_sbbf_params pq;
    EXPECT(sketch_sbbf_plan_blocks(p.blocks, SKETCH_SBBF_PARQUET, &pq), SKETCH_OK);
    EXPECT(sketch_sbbf_init(back, len, &pq, 3), SKETCH_INVALID_PARAMETER); /* parquet needs seed 0 */
    EXPECT(sketch_sbbf_init(back, len, &pq, 0), SKETCH_OK);
    EXPECT(sketch_sbbf_union(buf, len, back, len), SKETCH_INCOMPATIBLE);
    EXPECT(sketch_sbbf_clear(buf, len), SKETCH_OK);
    EXPECT(sketch_sbbf_contains(buf, len, "hello", 5, &b), SKETCH_OK);
    CHECK(b == false);

    free(buf);
    free(out);
    free(back);
}

static void test_counting(void) {
    struct sketch_bloom_params p;
    EXPECT(sketch_bloom_plan(5000, 0.01, &p), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_counting_size(&p, &size), SKETCH_OK);
    CHECK(size == PAD64(128 + (p.bits + 15) / 16 * 8));
    EXPECT(sketch_counting_size(NULL, &size), SKETCH_NULL_POINTER);
    EXPECT(sketch_counting_size(&p, NULL), SKETCH_NULL_POINTER);
    struct sketch_bloom_params bad = p;
    bad.planned_fpr = 2.0;
    EXPECT(sketch_counting_size(&bad, &size), SKETCH_INVALID_PARAMETER);
    size_t len = (size_t)size;
    unsigned char *buf = alloc_image(size);
    EXPECT(sketch_counting_init(buf + 1, len, &p, 4), SKETCH_MISALIGNED);
    EXPECT(sketch_counting_init(buf, len - 1, &p, 4), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_counting_init(NULL, len, &p, 4), SKETCH_NULL_POINTER);
    EXPECT(sketch_counting_init(buf, len, &bad, 4), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_counting_init(buf, len, &p, 4), SKETCH_OK);

    bool b = false;
    EXPECT(sketch_bloom_contains(buf, len, "x", 1, &b), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_counting_add(buf, len, "apple", 5, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_counting_add(buf, len, "apple", 5, &b), SKETCH_OK);
    CHECK(b == false);
    EXPECT(sketch_counting_contains(buf, len, "apple", 5, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_counting_remove(buf, len, "apple", 5), SKETCH_OK);
    EXPECT(sketch_counting_contains(buf, len, "apple", 5, &b), SKETCH_OK);
    CHECK(b == true); /* added twice, removed once */
    EXPECT(sketch_counting_remove(buf, len, "apple", 5), SKETCH_OK);
    EXPECT(sketch_counting_contains(buf, len, "apple", 5, &b), SKETCH_OK);
    CHECK(b == false);
    EXPECT(sketch_counting_remove(buf, len, "apple", 5), SKETCH_NOT_PRESENT);
    EXPECT(sketch_counting_remove(buf, len, NULL, 5), SKETCH_NULL_POINTER);
    EXPECT(sketch_counting_remove(NULL, 8, "a", 1), SKETCH_NULL_POINTER);
    EXPECT(sketch_counting_add_u64(buf, len, 99, NULL), SKETCH_OK);
    EXPECT(sketch_counting_contains_u64(buf, len, 99, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_counting_remove_u64(buf, len, 99), SKETCH_OK);
    EXPECT(sketch_counting_remove_u64(buf, len, 99), SKETCH_NOT_PRESENT);
    uint64_t h = sketch_hash("pear", 4, 4);
    EXPECT(sketch_counting_add_hash(buf, len, h, NULL), SKETCH_OK);
    EXPECT(sketch_counting_contains_hash(buf, len, h, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_counting_remove_hash(buf, len, h), SKETCH_OK);

    enum { N = 2000 };
    static uint64_t hashes[N];
    static bool flags[N];
    static char storage[N][16];
    static struct sketch_slice keys[N];
    for (int i = 0; i < N; i++) {
        hashes[i] = sketch_hash_u64((uint64_t)i, 4);
        int n = snprintf(storage[i], sizeof storage[i], "c-%d", i);
        keys[i].ptr = (const uint8_t *)storage[i];
        keys[i].len = (size_t)n;
    }
    EXPECT(sketch_counting_add_hash_batch(buf, len, hashes, N, flags), SKETCH_OK);
    EXPECT(sketch_counting_add_batch(buf, len, keys, N, NULL), SKETCH_OK);
    memset(flags, 0, sizeof flags);
    EXPECT(sketch_counting_contains_batch(buf, len, keys, N, flags), SKETCH_OK);
    int all = 1;
    for (int i = 0; i < N; i++) all &= flags[i];
    CHECK(all);
    EXPECT(sketch_counting_remove_batch(buf, len, keys, N, flags), SKETCH_OK);
    all = 1;
    for (int i = 0; i < N; i++) all &= flags[i];
    CHECK(all);
    EXPECT(sketch_counting_remove_hash_batch(buf, len, hashes, N, flags), SKETCH_OK);
    all = 1;
    for (int i = 0; i < N; i++) all &= flags[i];
    CHECK(all);
    EXPECT(sketch_counting_remove_hash_batch(buf, len, hashes, N, flags), SKETCH_OK);
    int still = 0;
    for (int i = 0; i < N; i++) still += flags[i];
    CHECK(still < N / 20); /* removed twice already: almost all now report absent */
    EXPECT(sketch_counting_remove_hash_batch(buf, len, hashes, N, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_counting_remove_batch(buf, len, keys, N, NULL), SKETCH_NULL_POINTER);

    struct sketch_counting_stats st;
    EXPECT(sketch_counting_get_stats(buf, len, &st), SKETCH_OK);
    CHECK(st.params.bits == p.bits && st.seed == 4 && st.items == st.add_calls - st.removes);
    uint32_t cap = 9;
    EXPECT(sketch_counting_capacity(buf, len, &cap), SKETCH_OK);
    CHECK(cap == 0);

    unsigned char *other = alloc_image(size), *out = alloc_image(size), *back = alloc_image(size);
    EXPECT(sketch_counting_init(other, len, &p, 4), SKETCH_OK);
    EXPECT(sketch_counting_add(other, len, "kiwi", 4, NULL), SKETCH_OK);
    EXPECT(sketch_counting_merge(buf, len, other, len), SKETCH_OK);
    EXPECT(sketch_counting_contains(buf, len, "kiwi", 4, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_counting_merge(buf, len, buf, len), SKETCH_OVERLAP);
    EXPECT(sketch_counting_init(other, len, &p, 5), SKETCH_OK);
    EXPECT(sketch_counting_merge(buf, len, other, len), SKETCH_INCOMPATIBLE);

    size_t written = 0;
    EXPECT(sketch_counting_export(buf, len, out, len, &written), SKETCH_OK);
    EXPECT(sketch_counting_verify(out, written), SKETCH_OK);
    EXPECT(sketch_bloom_verify(out, written), SKETCH_WRONG_FAMILY);
    out[len - 3] ^= 4;
    EXPECT(sketch_counting_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    out[len - 3] ^= 4;
    EXPECT(sketch_counting_import(out, written, back, len), SKETCH_OK);
    CHECK(memcmp(out, back, len) == 0);
    EXPECT(sketch_counting_clear(buf, len), SKETCH_OK);
    EXPECT(sketch_counting_contains(buf, len, "kiwi", 4, &b), SKETCH_OK);
    CHECK(b == false);
    struct sketch_image_info info;
    EXPECT(sketch_image_inspect(buf, len, &info), SKETCH_OK);
    CHECK(info.family == SKETCH_FAMILY_COUNTING_BLOOM);
    free(buf);
    free(other);
    free(out);
    free(back);
}

static void test_cuckoo(void) {
    struct sketch_cuckoo_params p;
    EXPECT(sketch_cuckoo_plan(4000, 0.01, &p), SKETCH_OK);
    CHECK(p.fingerprint_bits == 12 && p.buckets == 1053);
    EXPECT(sketch_cuckoo_plan(0, 0.01, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_cuckoo_plan(10, NAN, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_cuckoo_plan(10, 1e-9, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_cuckoo_plan(10, 0.01, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_cuckoo_plan_buckets(100, 10, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_cuckoo_plan_buckets(0, 8, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_cuckoo_plan_buckets(1000, 12, &p), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_cuckoo_size(&p, &size), SKETCH_OK);
    CHECK(size == PAD64(128 + (1000 * 4 * 12 + 63) / 64 * 8));
    EXPECT(sketch_cuckoo_size(NULL, &size), SKETCH_NULL_POINTER);
    size_t len = (size_t)size;
    unsigned char *buf = alloc_image(size), *other = alloc_image(size), *scratch = alloc_image(size);
    unsigned char *out = alloc_image(size), *back = alloc_image(size);
    EXPECT(sketch_cuckoo_init(buf + 1, len, &p, 8), SKETCH_MISALIGNED);
    EXPECT(sketch_cuckoo_init(buf, len - 1, &p, 8), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_cuckoo_init(NULL, len, &p, 8), SKETCH_NULL_POINTER);
    EXPECT(sketch_cuckoo_init(buf, len, NULL, 8), SKETCH_NULL_POINTER);
    EXPECT(sketch_cuckoo_init(buf, len, &p, 8), SKETCH_OK);
    bool b = false;
    EXPECT(sketch_bloom_contains(buf, len, "x", 1, &b), SKETCH_WRONG_FAMILY);

    EXPECT(sketch_cuckoo_add(buf, len, "fig", 3), SKETCH_OK);
    EXPECT(sketch_cuckoo_contains(buf, len, "fig", 3, &b), SKETCH_OK);
    CHECK(b == true);
    uint32_t count = 0;
    EXPECT(sketch_cuckoo_count(buf, len, "fig", 3, &count), SKETCH_OK);
    CHECK(count == 1);
    EXPECT(sketch_cuckoo_count(buf, len, "fig", 3, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_cuckoo_remove(buf, len, "fig", 3), SKETCH_OK);
    EXPECT(sketch_cuckoo_remove(buf, len, "fig", 3), SKETCH_NOT_PRESENT);
    EXPECT(sketch_cuckoo_add(buf, len, NULL, 3), SKETCH_NULL_POINTER);
    for (int i = 0; i < 8; i++) EXPECT(sketch_cuckoo_add(buf, len, "dup", 3), SKETCH_OK);
    EXPECT(sketch_cuckoo_add(buf, len, "dup", 3), SKETCH_FULL); /* 2 buckets x 4 slots */
    EXPECT(sketch_cuckoo_count(buf, len, "dup", 3, &count), SKETCH_OK);
    CHECK(count == 8);
    EXPECT(sketch_cuckoo_add_u64(buf, len, 5), SKETCH_OK);
    EXPECT(sketch_cuckoo_contains_u64(buf, len, 5, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_cuckoo_remove_u64(buf, len, 5), SKETCH_OK);
    uint64_t h = sketch_hash("plum", 4, 8);
    EXPECT(sketch_cuckoo_add_hash(buf, len, h), SKETCH_OK);
    EXPECT(sketch_cuckoo_contains_hash(buf, len, h, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_cuckoo_remove_hash(buf, len, h), SKETCH_OK);

    enum { N = 1500 };
    static uint64_t hashes[N];
    static bool flags[N];
    static char storage[N][16];
    static struct sketch_slice keys[N];
    for (int i = 0; i < N; i++) {
        hashes[i] = sketch_hash_u64((uint64_t)i, 8);
        int n = snprintf(storage[i], sizeof storage[i], "q-%d", i);
        keys[i].ptr = (const uint8_t *)storage[i];
        keys[i].len = (size_t)n;
    }
    EXPECT(sketch_cuckoo_add_hash_batch(buf, len, hashes, N, flags), SKETCH_OK);
    int all = 1;
    for (int i = 0; i < N; i++) all &= flags[i];
    CHECK(all);
    EXPECT(sketch_cuckoo_add_batch(buf, len, keys, N, flags), SKETCH_OK);
    all = 1;
    for (int i = 0; i < N; i++) all &= flags[i];
    CHECK(all);
    EXPECT(sketch_cuckoo_add_batch(buf, len, NULL, N, flags), SKETCH_NULL_POINTER);
    memset(flags, 0, sizeof flags);
    EXPECT(sketch_cuckoo_contains_batch(buf, len, keys, N, flags), SKETCH_OK);
    all = 1;
    for (int i = 0; i < N; i++) all &= flags[i];
    CHECK(all);
    memset(flags, 0, sizeof flags);
    EXPECT(sketch_cuckoo_contains_hash_batch(buf, len, hashes, N, flags), SKETCH_OK);
    all = 1;
    for (int i = 0; i < N; i++) all &= flags[i];
    CHECK(all);

    struct sketch_cuckoo_stats st;
    EXPECT(sketch_cuckoo_get_stats(buf, len, &st), SKETCH_OK);
    CHECK(st.items == 2 * N + 8 && st.load > 0.7 && st.seed == 8);
    uint32_t cap = 0;
    EXPECT(sketch_cuckoo_capacity(buf, len, &cap), SKETCH_OK);

    /* merge: all or nothing, with caller scratch */
    EXPECT(sketch_cuckoo_init(other, len, &p, 8), SKETCH_OK);
    EXPECT(sketch_cuckoo_add(other, len, "lime", 4), SKETCH_OK);
    EXPECT(sketch_cuckoo_merge(buf, len, other, len, scratch, len), SKETCH_OK);
    EXPECT(sketch_cuckoo_contains(buf, len, "lime", 4, &b), SKETCH_OK);
    CHECK(b == true);
    EXPECT(sketch_cuckoo_merge(buf, len, other, len, scratch, len - 8), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_cuckoo_merge(buf, len, other, len, buf, len), SKETCH_OVERLAP);
    EXPECT(sketch_cuckoo_merge(buf, len, buf, len, scratch, len), SKETCH_OVERLAP);
    EXPECT(sketch_cuckoo_add_hash_batch(other, len, hashes, N, flags), SKETCH_OK);
    memcpy(back, buf, len);
    EXPECT(sketch_cuckoo_merge(buf, len, other, len, scratch, len), SKETCH_FULL);
    CHECK(memcmp(back, buf, len) == 0); /* unchanged */
    EXPECT(sketch_cuckoo_init(other, len, &p, 9), SKETCH_OK);
    EXPECT(sketch_cuckoo_merge(buf, len, other, len, scratch, len), SKETCH_INCOMPATIBLE);

    size_t written = 0;
    EXPECT(sketch_cuckoo_export(buf, len, out, len, &written), SKETCH_OK);
    EXPECT(sketch_cuckoo_verify(out, written), SKETCH_OK);
    EXPECT(sketch_counting_verify(out, written), SKETCH_WRONG_FAMILY);
    out[len - 2] ^= 2;
    EXPECT(sketch_cuckoo_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    out[len - 2] ^= 2;
    EXPECT(sketch_cuckoo_import(out, written, back, len), SKETCH_OK);
    CHECK(memcmp(out, back, len) == 0);
    EXPECT(sketch_cuckoo_clear(buf, len), SKETCH_OK);
    EXPECT(sketch_cuckoo_contains(buf, len, "lime", 4, &b), SKETCH_OK);
    CHECK(b == false);
    /* a batch add may skip its per-key output; a batch removal reports each key */
    EXPECT(sketch_cuckoo_add_batch(buf, len, keys, 100, NULL), SKETCH_OK);
    EXPECT(sketch_cuckoo_get_stats(buf, len, &st), SKETCH_OK);
    CHECK(st.items == 100);
    memset(flags, 0, sizeof flags);
    EXPECT(sketch_cuckoo_remove_batch(buf, len, keys, 200, flags), SKETCH_OK);
    all = 1;
    for (int i = 0; i < 100; i++) all &= flags[i];
    for (int i = 100; i < 200; i++) all &= !flags[i];
    CHECK(all);
    EXPECT(sketch_cuckoo_get_stats(buf, len, &st), SKETCH_OK);
    CHECK(st.items == 0);
    EXPECT(sketch_cuckoo_remove_batch(buf, len, keys, 1, NULL), SKETCH_OK);
    EXPECT(sketch_cuckoo_remove_batch(buf, len, NULL, 1, flags), SKETCH_NULL_POINTER);
    free(buf);
    free(other);
    free(scratch);
    free(out);
    free(back);
}

static void test_hll(void) {
    uint64_t size = 0;
    EXPECT(sketch_hll_size(14, &size), SKETCH_OK);
    CHECK(size == 384 + PAD64(12288 + 8));
    EXPECT(sketch_hll_size(3, &size), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_hll_size(19, &size), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_hll_size(14, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_hll_size(14, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *buf = alloc_image(size), *other = alloc_image(size), *out = alloc_image(size);
    unsigned char *back = alloc_image(size);
    EXPECT(sketch_hll_init(buf + 1, len, 14, 3), SKETCH_MISALIGNED);
    EXPECT(sketch_hll_init(buf, len - 1, 14, 3), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_hll_init(NULL, len, 14, 3), SKETCH_NULL_POINTER);
    EXPECT(sketch_hll_init(buf, len, 2, 3), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_hll_init(buf, len, 14, 3), SKETCH_OK);
    bool changed = false, b = false;
    EXPECT(sketch_bloom_contains(buf, len, "x", 1, &b), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_hll_add(buf, len, "apple", 5, &changed), SKETCH_OK);
    CHECK(changed == true);
    EXPECT(sketch_hll_add(buf, len, "apple", 5, &changed), SKETCH_OK);
    CHECK(changed == false);
    EXPECT(sketch_hll_add(buf, len, NULL, 0, NULL), SKETCH_OK); /* the empty key */
    EXPECT(sketch_hll_add(buf, len, NULL, 3, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_hll_add_u64(buf, len, 42, NULL), SKETCH_OK);
    EXPECT(sketch_hll_add_hash(buf, len, sketch_hash("pear", 4, 3), NULL), SKETCH_OK);
    double est = 0;
    EXPECT(sketch_hll_estimate(buf, len, &est), SKETCH_OK);
    CHECK(est == 4.0); /* small mode counts exactly */
    EXPECT(sketch_hll_estimate(buf, len, NULL), SKETCH_NULL_POINTER);

    /* small-mode export is compact and imports back */
    size_t exported = 0, written = 0;
    EXPECT(sketch_hll_exported_size(buf, len, &exported), SKETCH_OK);
    CHECK(exported == 384 + 4 * 8);
    EXPECT(sketch_hll_export(buf, len, out, exported - 1, &written), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_hll_export(buf, len, out, len, &written), SKETCH_OK);
    CHECK(written == exported);
    EXPECT(sketch_hll_verify(out, written), SKETCH_OK);
    EXPECT(sketch_hll_estimate(out, written, &est), SKETCH_COMPACT_IMAGE);
    EXPECT(sketch_hll_import(out, written, back, written), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_hll_import(out, written, back, len), SKETCH_OK);
    EXPECT(sketch_hll_estimate(back, len, &est), SKETCH_OK);
    CHECK(est == 4.0);

    /* batches, dense mode, stats */
    enum { N = 20000 };
    static uint64_t hashes[N];
    static char storage[N][16];
    static struct sketch_slice keys[N];
    for (int i = 0; i < N; i++) {
        hashes[i] = sketch_hash_u64((uint64_t)i, 3);
        int n = snprintf(storage[i], sizeof storage[i], "k-%d", i);
        keys[i].ptr = (const uint8_t *)storage[i];
        keys[i].len = (size_t)n;
    }
    EXPECT(sketch_hll_add_hash_batch(buf, len, hashes, N), SKETCH_OK);
    EXPECT(sketch_hll_add_batch(buf, len, keys, N), SKETCH_OK);
    EXPECT(sketch_hll_add_batch(buf, len, NULL, 5), SKETCH_NULL_POINTER);
    EXPECT(sketch_hll_add_hash_batch(buf, len, NULL, 0), SKETCH_OK);
    EXPECT(sketch_hll_estimate(buf, len, &est), SKETCH_OK);
    CHECK(fabs(est - 2.0 * N) / (2.0 * N) < 0.04);
    struct sketch_hll_stats st;
    EXPECT(sketch_hll_get_stats(buf, len, &st), SKETCH_OK);
    CHECK(st.precision == 14 && st.mode == SKETCH_HLL_MODE_DENSE && st.seed == 3 && st.small_count == 0);
    CHECK(st.small_capacity == 1024 && st.registers_set > 10000 && st.image_bytes == size);
    CHECK(st.martingale == 1);
    double reg_est = 0;
    EXPECT(sketch_hll_register_estimate(buf, len, &reg_est), SKETCH_OK);
    CHECK(fabs(reg_est - 2.0 * N) / (2.0 * N) < 0.04 && reg_est != est);

    /* merge: union, across precisions, refusals change nothing */
    uint64_t size12 = 0;
    EXPECT(sketch_hll_size(12, &size12), SKETCH_OK);
    unsigned char *low = alloc_image(size12);
    EXPECT(sketch_hll_init(low, (size_t)size12, 12, 3), SKETCH_OK);
    EXPECT(sketch_hll_add(low, (size_t)size12, "other", 5, NULL), SKETCH_OK);
    EXPECT(sketch_hll_merge(low, (size_t)size12, buf, len), SKETCH_OK);
    EXPECT(sketch_hll_estimate(low, (size_t)size12, &est), SKETCH_OK);
    CHECK(fabs(est - 2.0 * N) / (2.0 * N) < 0.06);
    memcpy(back, buf, len);
    EXPECT(sketch_hll_merge(buf, len, low, (size_t)size12), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(back, buf, len) == 0);
    EXPECT(sketch_hll_merge(buf, len, buf, len), SKETCH_OVERLAP);
    EXPECT(sketch_hll_init(other, len, 14, 4), SKETCH_OK);
    EXPECT(sketch_hll_merge(buf, len, other, len), SKETCH_INCOMPATIBLE);
    EXPECT(sketch_hll_downsize(buf, len, low, (size_t)size12, 12), SKETCH_OK);
    EXPECT(sketch_hll_get_stats(low, (size_t)size12, &st), SKETCH_OK);
    CHECK(st.precision == 12 && st.mode == SKETCH_HLL_MODE_DENSE && st.martingale == 0);
    EXPECT(sketch_hll_downsize(low, (size_t)size12, buf, len, 14), SKETCH_INCOMPATIBLE);

    /* dense export, corruption, reset */
    EXPECT(sketch_hll_export(buf, len, out, len, &written), SKETCH_OK);
    CHECK(written == len);
    out[400] ^= 4;
    EXPECT(sketch_hll_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    out[400] ^= 4;
    EXPECT(sketch_hll_import(out, written, back, len), SKETCH_OK);
    EXPECT(sketch_ull_verify(out, written), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_hll_reset(buf, len), SKETCH_OK);
    EXPECT(sketch_hll_estimate(buf, len, &est), SKETCH_OK);
    CHECK(est == 0.0);
    free(buf);
    free(other);
    free(out);
    free(back);
    free(low);
}

static void test_ull(void) {
    uint64_t size = 0, hll_size = 0;
    EXPECT(sketch_ull_size(13, &size), SKETCH_OK);
    CHECK(size == 128 + 8192);
    EXPECT(sketch_ull_size(20, &size), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_ull_size(13, &size), SKETCH_OK);
    EXPECT(sketch_hll_size(13, &hll_size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *buf = alloc_image(size), *other = alloc_image(size), *out = alloc_image(size);
    unsigned char *back = alloc_image(size), *hll = alloc_image(hll_size);
    EXPECT(sketch_ull_init(buf + 1, len, 13, 5), SKETCH_MISALIGNED);
    EXPECT(sketch_ull_init(buf, len - 8, 13, 5), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_ull_init(buf, len, 13, 5), SKETCH_OK);
    EXPECT(sketch_hll_estimate(buf, len, NULL), SKETCH_NULL_POINTER);
    double est = -1;
    EXPECT(sketch_hll_estimate(buf, len, &est), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_ull_estimate(buf, len, &est), SKETCH_OK);
    CHECK(est == 0.0);
    bool changed = false;
    EXPECT(sketch_ull_add(buf, len, "kiwi", 4, &changed), SKETCH_OK);
    CHECK(changed);
    EXPECT(sketch_ull_add(buf, len, "kiwi", 4, &changed), SKETCH_OK);
    CHECK(!changed);
    EXPECT(sketch_ull_add_u64(buf, len, 7, NULL), SKETCH_OK);
    EXPECT(sketch_ull_add_hash(buf, len, 0x123456789abcdefULL, NULL), SKETCH_OK);
    enum { N = 30000 };
    static uint64_t hashes[N];
    static char storage[N][16];
    static struct sketch_slice keys[N];
    for (int i = 0; i < N; i++) {
        hashes[i] = sketch_hash_u64((uint64_t)i + 1000000, 5);
        int n = snprintf(storage[i], sizeof storage[i], "u-%d", i);
        keys[i].ptr = (const uint8_t *)storage[i];
        keys[i].len = (size_t)n;
    }
    EXPECT(sketch_ull_add_hash_batch(buf, len, hashes, N), SKETCH_OK);
    EXPECT(sketch_ull_add_batch(buf, len, keys, N), SKETCH_OK);
    EXPECT(sketch_ull_estimate(buf, len, &est), SKETCH_OK);
    CHECK(fabs(est - 2.0 * N) / (2.0 * N) < 0.04);
    struct sketch_ull_stats st;
    EXPECT(sketch_ull_get_stats(buf, len, &st), SKETCH_OK);
    CHECK(st.precision == 13 && st.seed == 5 && st.registers_set > 7000 && st.image_bytes == size);
    CHECK(st.martingale == 1);
    double reg_est = 0;
    EXPECT(sketch_ull_register_estimate(buf, len, &reg_est), SKETCH_OK);
    CHECK(fabs(reg_est - 2.0 * N) / (2.0 * N) < 0.04);
    double ml_est = 0;
    EXPECT(sketch_ull_ml_estimate(buf, len, &ml_est), SKETCH_OK);
    CHECK(fabs(ml_est - 2.0 * N) / (2.0 * N) < 0.04);
    CHECK(fabs(ml_est - reg_est) / reg_est < 0.02);
    EXPECT(sketch_ull_ml_estimate(buf, len, NULL), SKETCH_NULL_POINTER);
    double untouched = -7.0;
    EXPECT(sketch_ull_ml_estimate(buf, 100, &untouched), SKETCH_BUFFER_TOO_SMALL);
    CHECK(untouched == -7.0);

    /* conversion to HLL of the same precision */
    EXPECT(sketch_ull_to_hll(buf, len, hll, (size_t)hll_size - 8), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_ull_to_hll(buf, len, hll, (size_t)hll_size), SKETCH_OK);
    double hll_est = 0;
    EXPECT(sketch_hll_estimate(hll, (size_t)hll_size, &hll_est), SKETCH_OK);
    CHECK(fabs(hll_est - 2.0 * N) / (2.0 * N) < 0.05);

    /* merge */
    EXPECT(sketch_ull_init(other, len, 13, 5), SKETCH_OK);
    EXPECT(sketch_ull_add(other, len, "fresh", 5, NULL), SKETCH_OK);
    EXPECT(sketch_ull_merge(buf, len, other, len), SKETCH_OK);
    EXPECT(sketch_ull_merge(buf, len, buf, len), SKETCH_OVERLAP);
    EXPECT(sketch_ull_init(other, len, 13, 6), SKETCH_OK);
    memcpy(back, buf, len);
    EXPECT(sketch_ull_merge(buf, len, other, len), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(back, buf, len) == 0);

    /* export/import; damaged bytes are refused (resealed illegal registers: Rust tests) */
    size_t written = 0;
    EXPECT(sketch_ull_export(buf, len, out, len, &written), SKETCH_OK);
    CHECK(written == len);
    EXPECT(sketch_ull_verify(out, written), SKETCH_OK);
    EXPECT(sketch_ull_import(out, written, back, len), SKETCH_OK);
    EXPECT(sketch_ull_import(out, written - 8, back, len), SKETCH_LENGTH_MISMATCH);
    out[128 + 10] = 1; /* below 4p - 4: no stream of hashes gives it */
    EXPECT(sketch_ull_verify(out, written), SKETCH_CHECKSUM_MISMATCH);
    EXPECT(sketch_ull_reset(buf, len), SKETCH_OK);
    EXPECT(sketch_ull_estimate(buf, len, &est), SKETCH_OK);
    CHECK(est == 0.0);
    free(buf);
    free(other);
    free(out);
    free(back);
    free(hll);
}

static void test_countmin(void) {
    struct sketch_countmin_params p;
    EXPECT(sketch_countmin_plan(0.001, 0.01, &p), SKETCH_OK);
    CHECK(p.width == 2719 && p.depth == 5 && p.counter_bits == 32 && p.conservative == 0);
    EXPECT(sketch_countmin_plan(0.0, 0.01, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_countmin_plan(0.01, 1.0, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_countmin_plan(NAN, 0.1, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_countmin_plan(0.01, 0.1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_countmin_plan_size(0, 3, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_countmin_plan_size(500, 3, &p), SKETCH_OK);
    p.counter_bits = 16;
    uint64_t size = 0;
    EXPECT(sketch_countmin_size(&p, &size), SKETCH_INVALID_PARAMETER);
    p.counter_bits = 64;
    p.conservative = 1;
    EXPECT(sketch_countmin_size(&p, &size), SKETCH_OK);
    CHECK(size == PAD64(128 + 500 * 3 * 8));
    EXPECT(sketch_countmin_size(NULL, &size), SKETCH_NULL_POINTER);
    size_t len = (size_t)size;
    unsigned char *buf = alloc_image(size), *other = alloc_image(size), *out = alloc_image(size);
    unsigned char *back = alloc_image(size);
    EXPECT(sketch_countmin_init(buf + 1, len, &p, 2), SKETCH_MISALIGNED);
    EXPECT(sketch_countmin_init(buf, len - 8, &p, 2), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_countmin_init(buf, len, NULL, 2), SKETCH_NULL_POINTER);
    EXPECT(sketch_countmin_init(buf, len, &p, 2), SKETCH_OK);
    double est_d = 0;
    EXPECT(sketch_hll_estimate(buf, len, &est_d), SKETCH_WRONG_FAMILY);

    uint64_t est = 0;
    EXPECT(sketch_countmin_add(buf, len, "apple", 5, 3), SKETCH_OK);
    EXPECT(sketch_countmin_add(buf, len, NULL, 5, 3), SKETCH_NULL_POINTER);
    EXPECT(sketch_countmin_estimate(buf, len, "apple", 5, &est), SKETCH_OK);
    CHECK(est == 3);
    EXPECT(sketch_countmin_estimate(buf, len, "apple", 5, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_countmin_add_u64(buf, len, 77, 2), SKETCH_OK);
    EXPECT(sketch_countmin_estimate_u64(buf, len, 77, &est), SKETCH_OK);
    CHECK(est == 2);
    uint64_t h = sketch_hash("pear", 4, 2);
    EXPECT(sketch_countmin_add_hash(buf, len, h, 5), SKETCH_OK);
    EXPECT(sketch_countmin_estimate_hash(buf, len, h, &est), SKETCH_OK);
    CHECK(est == 5);

    enum { N = 3000 };
    static uint64_t hashes[N], weights[N], ests[N];
    static char storage[N][16];
    static struct sketch_slice keys[N];
    for (int i = 0; i < N; i++) {
        hashes[i] = sketch_hash_u64((uint64_t)i, 2);
        weights[i] = (uint64_t)(1 + i % 7);
        int n = snprintf(storage[i], sizeof storage[i], "c-%d", i);
        keys[i].ptr = (const uint8_t *)storage[i];
        keys[i].len = (size_t)n;
    }
    EXPECT(sketch_countmin_add_batch(buf, len, keys, N, weights), SKETCH_OK);
    EXPECT(sketch_countmin_add_batch(buf, len, keys, N, NULL), SKETCH_OK);
    EXPECT(sketch_countmin_add_hash_batch(buf, len, hashes, N, weights), SKETCH_OK);
    EXPECT(sketch_countmin_add_batch(buf, len, NULL, 3, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_countmin_estimate_batch(buf, len, keys, N, ests), SKETCH_OK);
    int never_under = 1;
    for (int i = 0; i < N; i++) never_under &= ests[i] >= weights[i] + 1;
    CHECK(never_under);
    EXPECT(sketch_countmin_estimate_hash_batch(buf, len, hashes, N, ests), SKETCH_OK);
    never_under = 1;
    for (int i = 0; i < N; i++) never_under &= ests[i] >= weights[i];
    CHECK(never_under);
    EXPECT(sketch_countmin_estimate_batch(buf, len, keys, N, NULL), SKETCH_NULL_POINTER);

    struct sketch_countmin_stats st;
    EXPECT(sketch_countmin_get_stats(buf, len, &st), SKETCH_OK);
    uint64_t wsum = 0;
    for (int i = 0; i < N; i++) wsum += weights[i];
    CHECK(st.total == 3 + 2 + 5 + 2 * wsum + N && st.seed == 2 && st.params.width == 500);
    CHECK(st.params.conservative == 1 && st.params.counter_bits == 64);
    CHECK(fabs(st.error_bound - st.epsilon * (double)st.total) < 1e-6);

    /* merge */
    EXPECT(sketch_countmin_init(other, len, &p, 2), SKETCH_OK);
    EXPECT(sketch_countmin_add(other, len, "apple", 5, 10), SKETCH_OK);
    EXPECT(sketch_countmin_merge(buf, len, other, len), SKETCH_OK);
    EXPECT(sketch_countmin_estimate(buf, len, "apple", 5, &est), SKETCH_OK);
    CHECK(est >= 13);
    EXPECT(sketch_countmin_merge(buf, len, buf, len), SKETCH_OVERLAP);
    EXPECT(sketch_countmin_init(other, len, &p, 3), SKETCH_OK);
    memcpy(back, buf, len);
    EXPECT(sketch_countmin_merge(buf, len, other, len), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(back, buf, len) == 0);

    size_t written = 0;
    EXPECT(sketch_countmin_export(buf, len, out, len, &written), SKETCH_OK);
    EXPECT(sketch_countmin_verify(out, written), SKETCH_OK);
    out[200] ^= 1;
    EXPECT(sketch_countmin_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    out[200] ^= 1;
    EXPECT(sketch_countmin_import(out, written, back, len), SKETCH_OK);
    EXPECT(sketch_countmin_clear(buf, len), SKETCH_OK);
    EXPECT(sketch_countmin_estimate(buf, len, "apple", 5, &est), SKETCH_OK);
    CHECK(est == 0);
    free(buf);
    free(other);
    free(out);
    free(back);
}

static void test_minhash(void) {
    uint64_t size = 0;
    EXPECT(sketch_minhash_size(0, &size), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_minhash_size(256, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_minhash_size(256, &size), SKETCH_OK);
    CHECK(size == 64 + 256 * 8);
    size_t len = (size_t)size;
    unsigned char *a = alloc_image(size), *b = alloc_image(size), *out = alloc_image(size);
    unsigned char *back = alloc_image(size);
    EXPECT(sketch_minhash_init(a + 1, len, 256, 1), SKETCH_MISALIGNED);
    EXPECT(sketch_minhash_init(a, len - 8, 256, 1), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_minhash_init(a, len, 256, 1), SKETCH_OK);
    EXPECT(sketch_minhash_init(b, len, 256, 1), SKETCH_OK);
    double j = -1;
    EXPECT(sketch_minhash_jaccard(a, len, b, len, &j), SKETCH_OK);
    CHECK(j == 1.0); /* two empty sets */
    bool changed = false;
    EXPECT(sketch_minhash_add(a, len, "w", 1, &changed), SKETCH_OK);
    CHECK(changed);
    EXPECT(sketch_minhash_add(a, len, "w", 1, &changed), SKETCH_OK);
    CHECK(!changed);
    EXPECT(sketch_minhash_add(a, len, NULL, 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_minhash_add_u64(a, len, 5, NULL), SKETCH_OK);
    EXPECT(sketch_minhash_add_hash(a, len, sketch_hash("x", 1, 1), NULL), SKETCH_OK);
    EXPECT(sketch_minhash_jaccard(a, len, b, len, &j), SKETCH_OK);
    CHECK(j == 0.0);

    /* A = 0..3000, B = 1000..4000: J = 2000 / 4000 = 0.5 */
    enum { N = 4000 };
    static uint64_t hashes[N];
    static char storage[N][16];
    static struct sketch_slice keys[N];
    for (int i = 0; i < N; i++) {
        hashes[i] = sketch_hash_u64((uint64_t)i, 1);
        int n = snprintf(storage[i], sizeof storage[i], "m-%d", i);
        keys[i].ptr = (const uint8_t *)storage[i];
        keys[i].len = (size_t)n;
    }
    EXPECT(sketch_minhash_clear(a, len), SKETCH_OK);
    EXPECT(sketch_minhash_add_batch(a, len, keys, 3000), SKETCH_OK);
    EXPECT(sketch_minhash_add_batch(b, len, keys + 1000, 3000), SKETCH_OK);
    EXPECT(sketch_minhash_add_batch(b, len, NULL, 2), SKETCH_NULL_POINTER);
    EXPECT(sketch_minhash_jaccard(a, len, b, len, &j), SKETCH_OK);
    CHECK(fabs(j - 0.5) < 0.15);
    EXPECT(sketch_minhash_jaccard(a, len, b, len, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_minhash_add_hash_batch(b, len, hashes, N), SKETCH_OK);
    struct sketch_minhash_stats st;
    EXPECT(sketch_minhash_get_stats(a, len, &st), SKETCH_OK);
    CHECK(st.registers == 256 && st.filled == 256 && st.seed == 1);
    static uint64_t sig[256];
    EXPECT(sketch_minhash_signature(a, len, sig, 255), SKETCH_INVALID_ARGUMENT);
    EXPECT(sketch_minhash_signature(a, len, sig, 256), SKETCH_OK);

    /* merge = sketch of the union */
    EXPECT(sketch_minhash_merge(a, len, b, len), SKETCH_OK);
    EXPECT(sketch_minhash_merge(a, len, a, len), SKETCH_OVERLAP);
    EXPECT(sketch_minhash_init(out, len, 256, 2), SKETCH_OK);
    EXPECT(sketch_minhash_merge(a, len, out, len), SKETCH_INCOMPATIBLE);
    EXPECT(sketch_minhash_jaccard(a, len, out, len, &j), SKETCH_INCOMPATIBLE);

    size_t written = 0;
    EXPECT(sketch_minhash_export(a, len, out, len, &written), SKETCH_OK);
    EXPECT(sketch_minhash_verify(out, written), SKETCH_OK);
    out[100] ^= 1;
    EXPECT(sketch_minhash_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    out[100] ^= 1;
    EXPECT(sketch_minhash_import(out, written, back, len), SKETCH_OK);
    CHECK(memcmp(out, back, len) == 0);
    free(a);
    free(b);
    free(out);
    free(back);
}

static void test_topk(void) {
    uint64_t size = 0;
    EXPECT(sketch_topk_size(0, 16, &size), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_topk_size(16, 0, &size), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_topk_size(16, 16, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_topk_size(64, 16, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *buf = alloc_image(size), *other = alloc_image(size), *out = alloc_image(size);
    unsigned char *back = alloc_image(size);
    EXPECT(sketch_topk_init(buf + 1, len, 64, 16, 4), SKETCH_MISALIGNED);
    EXPECT(sketch_topk_init(buf, len - 8, 64, 16, 4), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_topk_init(buf, len, 64, 16, 4), SKETCH_OK);
    EXPECT(sketch_topk_add(buf, len, "apple", 5, 10), SKETCH_OK);
    EXPECT(sketch_topk_add(buf, len, "pear", 4, 3), SKETCH_OK);
    EXPECT(sketch_topk_add(buf, len, NULL, 2, 1), SKETCH_NULL_POINTER);
    memcpy(back, buf, len);
    EXPECT(sketch_topk_add(buf, len, "a key longer than 16", 20, 1), SKETCH_KEY_TOO_LONG);
    CHECK(memcmp(back, buf, len) == 0);
    EXPECT(sketch_topk_add_u64(buf, len, 99, 7), SKETCH_OK);
    struct sketch_topk_key_estimate e;
    EXPECT(sketch_topk_estimate(buf, len, "apple", 5, &e), SKETCH_OK);
    CHECK(e.count == 10 && e.error == 0 && e.listed);
    EXPECT(sketch_topk_estimate(buf, len, "plum", 4, &e), SKETCH_OK);
    CHECK(e.count == 0 && !e.listed);
    EXPECT(sketch_topk_estimate(buf, len, "plum", 4, NULL), SKETCH_NULL_POINTER);

    /* a skewed stream of 5000 keys over 500 distinct */
    enum { N = 5000 };
    static char storage[N][16];
    static struct sketch_slice keys[N];
    static uint64_t weights[N];
    for (int i = 0; i < N; i++) {
        int rank = (i * i) % 500 < 250 ? i % 5 : i % 500; /* keys 0..4 are heavy */
        int n = snprintf(storage[i], sizeof storage[i], "k%d", rank);
        keys[i].ptr = (const uint8_t *)storage[i];
        keys[i].len = (size_t)n;
        weights[i] = 1;
    }
    EXPECT(sketch_topk_add_batch(buf, len, keys, N, weights), SKETCH_OK);
    EXPECT(sketch_topk_add_batch(buf, len, keys, N, NULL), SKETCH_OK);
    struct sketch_slice bad[2] = {{(const uint8_t *)"ok", 2}, {(const uint8_t *)"this key is far too long", 24}};
    memcpy(back, buf, len);
    EXPECT(sketch_topk_add_batch(buf, len, bad, 2, NULL), SKETCH_KEY_TOO_LONG);
    CHECK(memcmp(back, buf, len) == 0); /* nothing added */
    struct sketch_topk_item items[8];
    size_t written = 0;
    EXPECT(sketch_topk_list(buf, len, items, 8, &written), SKETCH_OK);
    CHECK(written == 8);
    int sorted = 1;
    for (size_t i = 1; i < written; i++) sorted &= items[i - 1].count >= items[i].count;
    CHECK(sorted);
    int heavy_first = 1;
    for (size_t i = 0; i < 5; i++) heavy_first &= items[i].key_len == 2 && items[i].key[0] == 'k';
    CHECK(heavy_first);
    EXPECT(sketch_topk_list(buf, len, NULL, 8, &written), SKETCH_NULL_POINTER);
    EXPECT(sketch_topk_list(buf, len, items, 8, NULL), SKETCH_NULL_POINTER);
    struct sketch_topk_stats st;
    EXPECT(sketch_topk_get_stats(buf, len, &st), SKETCH_OK);
    CHECK(st.capacity == 64 && st.max_key_len == 16 && st.used == 64 && st.seed == 4);
    CHECK(st.total == 10 + 3 + 7 + 2 * N && st.min_count <= st.total / 64);

    /* merge */
    EXPECT(sketch_topk_init(other, len, 64, 16, 4), SKETCH_OK);
    EXPECT(sketch_topk_add(other, len, "k0", 2, 100000), SKETCH_OK);
    EXPECT(sketch_topk_merge(buf, len, other, len), SKETCH_OK);
    EXPECT(sketch_topk_list(buf, len, items, 1, &written), SKETCH_OK);
    CHECK(written == 1 && items[0].key_len == 2 && memcmp(items[0].key, "k0", 2) == 0);
    EXPECT(sketch_topk_merge(buf, len, buf, len), SKETCH_OVERLAP);
    EXPECT(sketch_topk_init(other, len, 64, 16, 5), SKETCH_OK);
    EXPECT(sketch_topk_merge(buf, len, other, len), SKETCH_INCOMPATIBLE);

    EXPECT(sketch_topk_export(buf, len, out, len, &written), SKETCH_OK);
    EXPECT(sketch_topk_verify(out, written), SKETCH_OK);
    out[150] ^= 1;
    EXPECT(sketch_topk_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    out[150] ^= 1;
    EXPECT(sketch_topk_import(out, written, back, len), SKETCH_OK);
    EXPECT(sketch_topk_clear(buf, len), SKETCH_OK);
    EXPECT(sketch_topk_get_stats(buf, len, &st), SKETCH_OK);
    CHECK(st.used == 0 && st.total == 0);
    free(buf);
    free(other);
    free(out);
    free(back);
}

/* Every truncation and every header bit flip of an exported image is
   rejected by import, and the destination keeps its bytes. */
static void test_corruption(void) {
    struct sketch_bloom_params p;
    EXPECT(sketch_bloom_plan(200, 0.01, &p), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_bloom_size(&p, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *buf = alloc_image(size), *out = alloc_image(size), *dst = alloc_image(size);
    EXPECT(sketch_bloom_init(buf, len, &p, 11), SKETCH_OK);
    for (uint64_t i = 0; i < 150; i++) sketch_bloom_add_u64(buf, len, i, NULL);
    size_t written = 0;
    EXPECT(sketch_bloom_export(buf, len, out, len, &written), SKETCH_OK);
    memset(dst, 0xA5, len);
    int rejected = 0, total = 0;
    for (size_t cut = 0; cut < written; cut++, total++) {
        rejected += sketch_bloom_import(out, cut, dst, len) != SKETCH_OK;
    }
    for (size_t bit = 0; bit < 112 * 8; bit++, total++) {
        out[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        rejected += sketch_bloom_import(out, written, dst, len) != SKETCH_OK;
        bool b;
        (void)sketch_bloom_contains_u64(out, written, 3, &b); /* must not crash */
        out[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    }
    CHECK(rejected == total);
    int untouched = 1;
    for (size_t i = 0; i < len; i++) untouched &= dst[i] == 0xA5;
    CHECK(untouched);
    free(buf);
    free(out);
    free(dst);
}

/* The misuse gaps found in review: each refused or reported clearly. */
static void test_misuse_gaps(void) {
    /* Top-k estimate with a claimed length far beyond the key (PTRDIFF_MAX,
     * the largest length any call accepts, on 32- and 64-bit targets alike):
     * refused with KEY_TOO_LONG before any byte is read (ASan would flag a read). */
    uint64_t size = 0;
    EXPECT(sketch_topk_size(8, 16, &size), SKETCH_OK);
    unsigned char *topk = alloc_image(size);
    EXPECT(sketch_topk_init(topk, (size_t)size, 8, 16, 1), SKETCH_OK);
    char key16[16] = "0123456789abcdef";
    struct sketch_topk_key_estimate est;
    EXPECT(sketch_topk_estimate(topk, (size_t)size, key16, (size_t)PTRDIFF_MAX, &est), SKETCH_KEY_TOO_LONG);
    EXPECT(sketch_topk_estimate(topk, (size_t)size, key16, 17, &est), SKETCH_KEY_TOO_LONG);
    EXPECT(sketch_topk_add(topk, (size_t)size, key16, 17, 1), SKETCH_KEY_TOO_LONG);
    EXPECT(sketch_topk_estimate(topk, (size_t)size, key16, 16, &est), SKETCH_OK);
    free(topk);

    /* A rate beyond 64 probes: more bits, an achievable recorded rate, and
     * no over-capacity flag while within the planned items. */
    struct sketch_bloom_params p;
    EXPECT(sketch_bloom_plan(1000, 1e-25, &p), SKETCH_OK);
    CHECK(p.hashes == 64 && p.planned_fpr <= 1e-25 && p.planned_fpr > 0.0);
    EXPECT(sketch_bloom_size(&p, &size), SKETCH_OK);
    unsigned char *bloom = alloc_image(size);
    EXPECT(sketch_bloom_init(bloom, (size_t)size, &p, 0), SKETCH_OK);
    uint32_t flags = 99;
    for (uint64_t i = 0; i < 1000; i++) EXPECT(sketch_bloom_add_u64(bloom, (size_t)size, i, NULL), SKETCH_OK);
    EXPECT(sketch_bloom_capacity(bloom, (size_t)size, &flags), SKETCH_OK);
    CHECK(flags == 0);

    /* Reserved fields of parameter structs must be 0. */
    struct sketch_bloom_params bad = p;
    bad.reserved = 99;
    EXPECT(sketch_bloom_init(bloom, (size_t)size, &bad, 0), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_bloom_size(&bad, &size), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_counting_size(&bad, &size), SKETCH_INVALID_PARAMETER);
    struct sketch_sbbf_params sp;
    EXPECT(sketch_sbbf_plan(1000, 0.01, &sp), SKETCH_OK);
    sp.reserved = 1;
    EXPECT(sketch_sbbf_size(&sp, &size), SKETCH_INVALID_PARAMETER);
    struct sketch_cuckoo_params cp;
    EXPECT(sketch_cuckoo_plan(1000, 0.01, &cp), SKETCH_OK);
    cp.reserved = 1;
    EXPECT(sketch_cuckoo_size(&cp, &size), SKETCH_INVALID_PARAMETER);
    struct sketch_countmin_params mp;
    EXPECT(sketch_countmin_plan(0.01, 0.01, &mp), SKETCH_OK);
    mp.reserved = 1;
    EXPECT(sketch_countmin_size(&mp, &size), SKETCH_INVALID_PARAMETER);

    /* Export into a too-small destination: the needed size is available up front. */
    size_t need = 0, written = 0;
    EXPECT(sketch_bloom_size(&p, &size), SKETCH_OK);
    EXPECT(sketch_bloom_exported_size(bloom, (size_t)size, &need), SKETCH_OK);
    CHECK(need == size);
    unsigned char *out = alloc_image(size);
    EXPECT(sketch_bloom_export(bloom, (size_t)size, out, need - 1, &written), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_bloom_export(bloom, (size_t)size, out, need, &written), SKETCH_OK);
    CHECK(written == need);
    free(out);
    free(bloom);
}

/* An export's byte count written into the destination or into the live
 * image: refused with SKETCH_OVERLAP before anything changes. It used to
 * return SKETCH_OK with the count stored over the exported magic, or in the
 * live image the export promises not to modify. */
static void test_export_output_overlaps(void) {
    uint64_t size = 0;
    struct sketch_bloom_params p;
    EXPECT(sketch_bloom_plan(100, 0.01, &p), SKETCH_OK);
    EXPECT(sketch_bloom_size(&p, &size), SKETCH_OK);
    unsigned char *bloom = alloc_image(size);
    EXPECT(sketch_bloom_init(bloom, (size_t)size, &p, 3), SKETCH_OK);
    EXPECT(sketch_bloom_add_u64(bloom, (size_t)size, 42, NULL), SKETCH_OK);
    unsigned char *before = alloc_image(size);
    memcpy(before, bloom, (size_t)size);
    unsigned char *out = alloc_image(size);
    memset(out, 0xAB, (size_t)size);
    size_t *in_out = (size_t *)(void *)out;
    size_t *in_image = (size_t *)(void *)(bloom + 8);
    EXPECT(sketch_bloom_export(bloom, (size_t)size, out, (size_t)size, in_out), SKETCH_OVERLAP);
    CHECK(out[0] == 0xAB && out[size - 1] == 0xAB);
    EXPECT(sketch_bloom_export(bloom, (size_t)size, out, (size_t)size, in_image), SKETCH_OVERLAP);
    CHECK(memcmp(before, bloom, (size_t)size) == 0);
    CHECK(out[0] == 0xAB);
    size_t written = 0;
    EXPECT(sketch_bloom_export(bloom, (size_t)size, out, (size_t)size, &written), SKETCH_OK);
    CHECK(written == size);
    EXPECT(sketch_bloom_verify(out, written), SKETCH_OK);

    uint64_t hsize = 0;
    EXPECT(sketch_hll_size(8, &hsize), SKETCH_OK);
    unsigned char *hll = alloc_image(hsize);
    EXPECT(sketch_hll_init(hll, (size_t)hsize, 8, 1), SKETCH_OK);
    EXPECT(sketch_hll_add_u64(hll, (size_t)hsize, 1, NULL), SKETCH_OK);
    unsigned char *hout = alloc_image(hsize);
    EXPECT(sketch_hll_export(hll, (size_t)hsize, hout, (size_t)hsize, (size_t *)(void *)(hout + 8)), SKETCH_OVERLAP);
    free(hout);
    free(hll);
    free(out);
    free(before);
    free(bloom);
}

/* A fold's outputs (new length, fold count) stored inside the image being
 * folded, or on each other: refused with SKETCH_OVERLAP before anything
 * changes. They used to return SKETCH_OK with the length written over the
 * folded image's header (every later call failed). */
static void test_fold_output_overlaps(void) {
    uint64_t size = 0;
    struct sketch_sbbf_params sp;
    EXPECT(sketch_sbbf_plan_blocks(64, SKETCH_SBBF_NATIVE, &sp), SKETCH_OK);
    EXPECT(sketch_sbbf_size(&sp, &size), SKETCH_OK);
    unsigned char *sbbf = alloc_image(size);
    EXPECT(sketch_sbbf_init(sbbf, (size_t)size, &sp, 5), SKETCH_OK);
    EXPECT(sketch_sbbf_add_u64(sbbf, (size_t)size, 7, NULL), SKETCH_OK);
    unsigned char *sbefore = alloc_image(size);
    memcpy(sbefore, sbbf, (size_t)size);
    EXPECT(sketch_sbbf_fold(sbbf, (size_t)size, 1, (size_t *)(void *)(sbbf + 8)), SKETCH_OVERLAP);
    CHECK(memcmp(sbefore, sbbf, (size_t)size) == 0);
    size_t new_len = 0;
    uint32_t folds = 0;
    EXPECT(sketch_sbbf_fold_to_target_fpp(sbbf, (size_t)size, 0.5, (uint32_t *)(void *)(sbbf + 16), &new_len),
           SKETCH_OVERLAP);
    EXPECT(sketch_sbbf_fold_to_target_fpp(sbbf, (size_t)size, 0.5, &folds, (size_t *)(void *)(sbbf + 16)),
           SKETCH_OVERLAP);
    EXPECT(sketch_sbbf_fold_to_target_fpp(sbbf, (size_t)size, 0.5, (uint32_t *)(void *)&new_len, &new_len),
           SKETCH_OVERLAP);
    CHECK(memcmp(sbefore, sbbf, (size_t)size) == 0);
    EXPECT(sketch_sbbf_fold(sbbf, (size_t)size, 1, &new_len), SKETCH_OK);
    CHECK(new_len == size - 32 * 32);
    bool maybe = false;
    EXPECT(sketch_sbbf_contains_u64(sbbf, new_len, 7, &maybe), SKETCH_OK);
    CHECK(maybe);
    free(sbefore);
    free(sbbf);
}

/* Top-k's listed count stored in the item array or in the image: refused
 * with SKETCH_OVERLAP. It used to return SKETCH_OK with the count written
 * over the first item, or into the image (a corrupted header). */
static void test_topk_list_output_overlaps(void) {
    uint64_t size = 0;
    EXPECT(sketch_topk_size(4, 8, &size), SKETCH_OK);
    unsigned char *topk = alloc_image(size);
    EXPECT(sketch_topk_init(topk, (size_t)size, 4, 8, 1), SKETCH_OK);
    EXPECT(sketch_topk_add(topk, (size_t)size, "ab", 2, 3), SKETCH_OK);
    struct sketch_topk_item items[4];
    memset(items, 0xAB, sizeof items);
    EXPECT(sketch_topk_list(topk, (size_t)size, items, 4, (size_t *)(void *)&items[1]), SKETCH_OVERLAP);
    CHECK(((unsigned char *)items)[0] == 0xAB);
    unsigned char *before = alloc_image(size);
    memcpy(before, topk, (size_t)size);
    EXPECT(sketch_topk_list(topk, (size_t)size, items, 4, (size_t *)(void *)(topk + 8)), SKETCH_OVERLAP);
    CHECK(memcmp(before, topk, (size_t)size) == 0);
    size_t written = 0;
    EXPECT(sketch_topk_list(topk, (size_t)size, items, 4, &written), SKETCH_OK);
    CHECK(written == 1 && items[0].count == 3);
    free(before);
    free(topk);
}

/* A single-value output (was_new, changed, an estimate, stats, a token, a
 * view, a size) stored inside the image of the call: refused with
 * SKETCH_OVERLAP and the image unchanged, on the plain, token, view and
 * concurrent paths alike. Such calls used to return SKETCH_OK and write the
 * value into the image (for the read-only ones, into an image other threads
 * may be reading): a corrupted header or a changed body. */
static void test_single_output_overlaps(void) {
    uint64_t size = 0;
    struct sketch_bloom_params p;
    EXPECT(sketch_bloom_plan(100, 0.01, &p), SKETCH_OK);
    EXPECT(sketch_bloom_size(&p, &size), SKETCH_OK);
    unsigned char *bloom = alloc_image(size);
    EXPECT(sketch_bloom_init(bloom, (size_t)size, &p, 3), SKETCH_OK);
    EXPECT(sketch_bloom_add_u64(bloom, (size_t)size, 42, NULL), SKETCH_OK);
    unsigned char *before = alloc_image(size);
    memcpy(before, bloom, (size_t)size);
    bool *in_header = (bool *)(void *)(bloom + 9);
    bool *in_body = (bool *)(void *)(bloom + size - 1);
    size_t n = (size_t)size;
    sketch_token token;
    sketch_view view;
    EXPECT(sketch_bloom_token(bloom, n, &token), SKETCH_OK);
    EXPECT(sketch_bloom_view(bloom, n, &view), SKETCH_OK);
    EXPECT(sketch_bloom_add(bloom, n, "k", 1, in_body), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_add_u64(bloom, n, 7, in_header), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_add_hash(bloom, n, 7, in_body), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_add_with_token(bloom, n, &token, "k", 1, in_body), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_add_u64_with_token(bloom, n, &token, 7, in_body), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_view_add(&view, "k", 1, in_body), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_view_add_u64(&view, 7, in_body), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_add_concurrent_u64(bloom, n, 7, in_body), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_contains(bloom, n, "k", 1, in_header), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_contains_u64_with_token(bloom, n, &token, 42, in_header), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_view_contains_u64(&view, 42, in_header), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_contains_concurrent_u64(bloom, n, 42, in_header), SKETCH_OVERLAP);
    /* Keys read out of the image: answered by a plain query, refused by a
     * concurrent one (other threads may be writing those bytes), as the
     * header's conventions say. */
    {
        bool plain = false, shared = false;
        struct sketch_slice in_image = {bloom + size - 16, 8};
        const uint64_t *hashes_in_image = (const uint64_t *)(const void *)(bloom + size - 16);
        EXPECT(sketch_bloom_contains(bloom, n, bloom + size - 16, 8, &plain), SKETCH_OK);
        EXPECT(sketch_bloom_contains_concurrent(bloom, n, bloom + size - 16, 8, &shared), SKETCH_OVERLAP);
        EXPECT(sketch_bloom_contains_concurrent_batch(bloom, n, &in_image, 1, &shared), SKETCH_OVERLAP);
        EXPECT(sketch_bloom_contains_concurrent_hash_batch(bloom, n, hashes_in_image, 2, &shared), SKETCH_OVERLAP);
        EXPECT(sketch_bloom_contains_hash_batch(bloom, n, hashes_in_image, 1, &plain), SKETCH_OK);
    }
    EXPECT(sketch_bloom_get_stats(bloom, n, (struct sketch_bloom_stats *)(void *)(bloom + 64)), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_capacity(bloom, n, (uint32_t *)(void *)(bloom + 8)), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_token(bloom, n, (sketch_token *)(void *)(bloom + 64)), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_view(bloom, n, (sketch_view *)(void *)(bloom + 64)), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_exported_size(bloom, n, (size_t *)(void *)(bloom + 8)), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_import_size(bloom, n, (size_t *)(void *)(bloom + 8)), SKETCH_OVERLAP);
    struct sketch_image_info *info_in = (struct sketch_image_info *)(void *)(bloom + 8);
    EXPECT(sketch_image_inspect(bloom, n, info_in), SKETCH_OVERLAP);
    CHECK(memcmp(before, bloom, n) == 0);
    bool was_new = false, maybe = false;
    EXPECT(sketch_bloom_view_add_u64(&view, 7, &was_new), SKETCH_OK);
    CHECK(was_new);
    EXPECT(sketch_bloom_contains_u64(bloom, n, 7, &maybe), SKETCH_OK);
    CHECK(maybe);

    uint64_t hsize = 0;
    EXPECT(sketch_hll_size(8, &hsize), SKETCH_OK);
    unsigned char *hll = alloc_image(hsize);
    EXPECT(sketch_hll_init(hll, (size_t)hsize, 8, 1), SKETCH_OK);
    EXPECT(sketch_hll_add_u64(hll, (size_t)hsize, 1, NULL), SKETCH_OK);
    EXPECT(sketch_hll_densify(hll, (size_t)hsize), SKETCH_OK);
    unsigned char *hbefore = alloc_image(hsize);
    memcpy(hbefore, hll, (size_t)hsize);
    bool *h_in = (bool *)(void *)(hll + hsize - 1);
    double *d_in = (double *)(void *)(hll + 8);
    EXPECT(sketch_hll_token(hll, (size_t)hsize, &token), SKETCH_OK);
    EXPECT(sketch_hll_view(hll, (size_t)hsize, &view), SKETCH_OK);
    EXPECT(sketch_hll_add_u64(hll, (size_t)hsize, 2, h_in), SKETCH_OVERLAP);
    /* Key 1 is already counted: the token and view fast paths change nothing. */
    EXPECT(sketch_hll_add_u64_with_token(hll, (size_t)hsize, &token, 1, h_in), SKETCH_OVERLAP);
    EXPECT(sketch_hll_view_add_u64(&view, 1, h_in), SKETCH_OVERLAP);
    EXPECT(sketch_hll_add_concurrent_u64(hll, (size_t)hsize, 2, h_in), SKETCH_OVERLAP);
    EXPECT(sketch_hll_estimate(hll, (size_t)hsize, d_in), SKETCH_OVERLAP);
    EXPECT(sketch_hll_estimate_concurrent(hll, (size_t)hsize, d_in), SKETCH_OVERLAP);
    CHECK(memcmp(hbefore, hll, (size_t)hsize) == 0);

    uint64_t msize = 0;
    EXPECT(sketch_minhash_size(8, &msize), SKETCH_OK);
    unsigned char *mh = alloc_image(msize);
    EXPECT(sketch_minhash_init(mh, (size_t)msize, 8, 1), SKETCH_OK);
    EXPECT(sketch_minhash_add_u64(mh, (size_t)msize, 5, (bool *)(void *)(mh + msize - 1)), SKETCH_OVERLAP);
    unsigned char *mh2 = alloc_image(msize);
    EXPECT(sketch_minhash_init(mh2, (size_t)msize, 8, 1), SKETCH_OK);
    EXPECT(sketch_minhash_jaccard(mh, (size_t)msize, mh2, (size_t)msize, (double *)(void *)(mh + 16)), SKETCH_OVERLAP);
    EXPECT(sketch_minhash_jaccard(mh, (size_t)msize, mh2, (size_t)msize, (double *)(void *)(mh2 + 16)), SKETCH_OVERLAP);

    struct sketch_sbbf_params sp;
    EXPECT(sketch_sbbf_plan_blocks(4, SKETCH_SBBF_PARQUET, &sp), SKETCH_OK);
    EXPECT(sketch_sbbf_size(&sp, &size), SKETCH_OK);
    unsigned char *sbbf = alloc_image(size);
    EXPECT(sketch_sbbf_init(sbbf, (size_t)size, &sp, 0), SKETCH_OK);
    const uint8_t *bitset = NULL;
    size_t bitset_len = 0;
    EXPECT(sketch_sbbf_bitset(sbbf, (size_t)size, &bitset, (size_t *)(void *)(sbbf + 8)), SKETCH_OVERLAP);
    EXPECT(sketch_sbbf_bitset(sbbf, (size_t)size, (const uint8_t **)(void *)(sbbf + 8), &bitset_len), SKETCH_OVERLAP);
    EXPECT(sketch_sbbf_bitset(sbbf, (size_t)size, &bitset, &bitset_len), SKETCH_OK);
    CHECK(bitset_len == 128 && bitset != NULL);

    free(sbbf);
    free(mh2);
    free(mh);
    free(hbefore);
    free(hll);
    free(before);
    free(bloom);
}

/* Parquet interop: typed hashes, writers' sizing, loading a bitset read
 * out of a file, folding. */
static void test_parquet_interop(void) {
    int64_t v = -123456789012345LL;
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)((uint64_t)v >> (8 * i));
    CHECK(sketch_parquet_hash_i64(v) == sketch_hash_xxh64(le, 8, 0));
    int32_t w = -42;
    unsigned char le4[4];
    for (int i = 0; i < 4; i++) le4[i] = (unsigned char)((uint32_t)w >> (8 * i));
    CHECK(sketch_parquet_hash_i32(w) == sketch_hash_xxh64(le4, 4, 0));
    double d = -0.0;
    uint64_t bits;
    memcpy(&bits, &d, 8);
    for (int i = 0; i < 8; i++) le[i] = (unsigned char)(bits >> (8 * i));
    CHECK(sketch_parquet_hash_double(d) == sketch_hash_xxh64(le, 8, 0));
    CHECK(sketch_parquet_hash_double(-0.0) != sketch_parquet_hash_double(0.0));
    CHECK(sketch_parquet_hash_bytes("abc", 3) == 0x44BC2CF5AD770999ULL); /* XXH64("abc", 0) */

    /* Sizing: the example of the issue, ndv 1693 at 1%. */
    struct sketch_sbbf_params p;
    EXPECT(sketch_sbbf_plan_parquet_sizing(1693, 0.01, SKETCH_PARQUET_SIZING_ARROW_CPP, &p), SKETCH_OK);
    CHECK(p.blocks * 32 == 4096 && p.mode == SKETCH_SBBF_PARQUET);
    EXPECT(sketch_sbbf_plan_parquet_sizing(1693, 0.01, SKETCH_PARQUET_SIZING_PARQUET_RS, &p), SKETCH_OK);
    CHECK(p.blocks * 32 == 2048);
    EXPECT(sketch_sbbf_plan_parquet_sizing(1693, 0.01, 9, &p), SKETCH_INVALID_PARAMETER);

    /* A filter written in Parquet mode, its bitset loaded into a new image. */
    uint64_t size = 0;
    EXPECT(sketch_sbbf_size(&p, &size), SKETCH_OK);
    unsigned char *src = aligned_alloc(SKETCH_IMAGE_ALIGN, size), *dst = aligned_alloc(SKETCH_IMAGE_ALIGN, size);
    if (src == NULL || dst == NULL) exit(2);
    EXPECT(sketch_sbbf_init(src, (size_t)size, &p, 0), SKETCH_OK);
    for (int64_t i = 0; i < 1693; i++) EXPECT(sketch_sbbf_add_hash(src, (size_t)size, sketch_parquet_hash_i64(i), NULL), SKETCH_OK);
    const uint8_t *bitset = NULL;
    size_t bitset_len = 0;
    EXPECT(sketch_sbbf_bitset(src, (size_t)size, &bitset, &bitset_len), SKETCH_OK);
    struct sketch_sbbf_params lp;
    EXPECT(sketch_sbbf_plan_parquet_bitset(bitset_len, 0.01, &lp), SKETCH_OK);
    EXPECT(sketch_sbbf_plan_parquet_bitset(bitset_len + 1, 0.01, &lp), SKETCH_INVALID_ARGUMENT);
    EXPECT(sketch_sbbf_plan_parquet_bitset(bitset_len, 0.01, &lp), SKETCH_OK);
    EXPECT(sketch_sbbf_load_parquet_bitset(dst, (size_t)size, bitset, bitset_len - 32, &lp), SKETCH_INVALID_ARGUMENT);
    EXPECT(sketch_sbbf_load_parquet_bitset(dst, (size_t)size, bitset, bitset_len, &lp), SKETCH_OK);
    int all = 1;
    for (int64_t i = 0; i < 1693; i++) {
        bool maybe = false;
        EXPECT(sketch_sbbf_contains_hash(dst, (size_t)size, sketch_parquet_hash_i64(i), &maybe), SKETCH_OK);
        all &= maybe;
    }
    CHECK(all);
    /* An all-ones bitset: the capacity signal follows the fill. */
    unsigned char *ones = malloc(bitset_len);
    if (ones == NULL) exit(2);
    memset(ones, 0xff, bitset_len);
    uint32_t flags = 0;
    EXPECT(sketch_sbbf_load_parquet_bitset(dst, (size_t)size, ones, bitset_len, &lp), SKETCH_OK);
    EXPECT(sketch_sbbf_capacity(dst, (size_t)size, &flags), SKETCH_OK);
    CHECK(flags == (SKETCH_CAPACITY_OVER_PLANNED_ITEMS | SKETCH_CAPACITY_FPR_ABOVE_TWICE_PLANNED));
    /* Folding: keys stay, the image shrinks to a valid image. */
    uint32_t folds = 99;
    size_t new_len = 0;
    EXPECT(sketch_sbbf_fold_to_target_fpp(src, (size_t)size, 0.5, &folds, &new_len), SKETCH_OK);
    CHECK(folds >= 1 && new_len < size && new_len % SKETCH_IMAGE_ALIGN == 0);
    bool maybe = false;
    EXPECT(sketch_sbbf_contains_hash(src, new_len, sketch_parquet_hash_i64(7), &maybe), SKETCH_OK);
    CHECK(maybe);
    EXPECT(sketch_sbbf_fold(src, new_len, 60, &new_len), SKETCH_INVALID_ARGUMENT);
    free(ones);
    free(src);
    free(dst);
}

/* Tokens: the _with_token calls answer and change the image exactly as the
 * plain calls do, with the token of the image, a zero token and a stale one
 * (another image's); NULL tokens and outputs are refused; the token of one
 * family on another family's image gives that image's plain error. */
static void test_tokens(void) {
    struct sketch_bloom_params bp;
    EXPECT(sketch_bloom_plan(20000, 0.01, &bp), SKETCH_OK);
    uint64_t bloom_size = 0, sbbf_size = 0, hll_size = 0;
    EXPECT(sketch_bloom_size(&bp, &bloom_size), SKETCH_OK);
    struct sketch_sbbf_params sp;
    EXPECT(sketch_sbbf_plan(20000, 0.01, &sp), SKETCH_OK);
    EXPECT(sketch_sbbf_size(&sp, &sbbf_size), SKETCH_OK);
    EXPECT(sketch_hll_size(12, &hll_size), SKETCH_OK);
    size_t bl = (size_t)bloom_size, sl = (size_t)sbbf_size, hl = (size_t)hll_size;
    unsigned char *bloom_a = alloc_image(bloom_size), *bloom_b = alloc_image(bloom_size);
    unsigned char *sbbf_a = alloc_image(sbbf_size), *sbbf_b = alloc_image(sbbf_size);
    unsigned char *hll_a = alloc_image(hll_size), *hll_b = alloc_image(hll_size);
    EXPECT(sketch_bloom_init(bloom_a, bl, &bp, 4), SKETCH_OK);
    EXPECT(sketch_sbbf_init(sbbf_a, sl, &sp, 4), SKETCH_OK);
    EXPECT(sketch_hll_init(hll_a, hl, 12, 4), SKETCH_OK);
    sketch_token bloom_token, sbbf_token, hll_token, stale, zero;
    memset(&zero, 0, sizeof zero);
    CHECK(sizeof(sketch_token) == 8 * SKETCH_TOKEN_WORDS);
    EXPECT(sketch_bloom_token(bloom_a, bl, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_token(sbbf_a, sl, &bloom_token), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_bloom_token(bloom_a + 1, bl, &bloom_token), SKETCH_MISALIGNED);
    EXPECT(sketch_bloom_token(bloom_a, bl, &bloom_token), SKETCH_OK);
    EXPECT(sketch_sbbf_token(sbbf_a, sl, &sbbf_token), SKETCH_OK);
    EXPECT(sketch_hll_token(hll_a, hl, &hll_token), SKETCH_OK);
    EXPECT(sketch_hll_token(hll_a, hl - 8, &stale), SKETCH_BUFFER_TOO_SMALL);
    stale = sbbf_token; /* another family's: never matches a Bloom or HLL image */
    const sketch_token *bloom_tokens[3] = {&bloom_token, &zero, &stale};
    for (int t = 0; t < 3; t++) {
        memcpy(bloom_b, bloom_a, bl);
        for (uint64_t i = 0; i < 3000; i++) {
            char key[24];
            int n = snprintf(key, sizeof key, "key-%llu", (unsigned long long)i);
            bool new_plain = false, new_token = false;
            EXPECT(sketch_bloom_add(bloom_a, bl, key, (size_t)n, &new_plain), SKETCH_OK);
            EXPECT(sketch_bloom_add_with_token(bloom_b, bl, bloom_tokens[t], key, (size_t)n, &new_token), SKETCH_OK);
            CHECK(new_plain == new_token);
            EXPECT(sketch_bloom_add_u64_with_token(bloom_b, bl, bloom_tokens[t], i, NULL), SKETCH_OK);
            EXPECT(sketch_bloom_add_u64(bloom_a, bl, i, NULL), SKETCH_OK);
            uint64_t h = sketch_hash(key, (size_t)n, 4) ^ 1;
            EXPECT(sketch_bloom_add_hash_with_token(bloom_b, bl, bloom_tokens[t], h, NULL), SKETCH_OK);
            EXPECT(sketch_bloom_add_hash(bloom_a, bl, h, NULL), SKETCH_OK);
        }
        CHECK(memcmp(bloom_a, bloom_b, bl) == 0);
        memcpy(bloom_a, bloom_b, bl);
        EXPECT(sketch_bloom_init(bloom_a, bl, &bp, 4), SKETCH_OK);
        int agree = 1;
        for (uint64_t i = 0; i < 6000; i++) {
            bool plain = false, with = false;
            char key[24];
            int n = snprintf(key, sizeof key, "key-%llu", (unsigned long long)i);
            agree &= sketch_bloom_contains(bloom_b, bl, key, (size_t)n, &plain) == SKETCH_OK;
            agree &= sketch_bloom_contains_with_token(bloom_b, bl, bloom_tokens[t], key, (size_t)n, &with) == SKETCH_OK;
            agree &= plain == with;
            agree &= sketch_bloom_contains_u64(bloom_b, bl, i, &plain) == SKETCH_OK;
            agree &= sketch_bloom_contains_u64_with_token(bloom_b, bl, bloom_tokens[t], i, &with) == SKETCH_OK;
            agree &= plain == with && (i >= 3000 || with);
            agree &= sketch_bloom_contains_hash(bloom_b, bl, i, &plain) == SKETCH_OK;
            agree &= sketch_bloom_contains_hash_with_token(bloom_b, bl, bloom_tokens[t], i, &with) == SKETCH_OK;
            agree &= plain == with;
        }
        CHECK(agree);
    }
    bool b = false;
    EXPECT(sketch_bloom_add_with_token(bloom_b, bl, NULL, "k", 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_contains_with_token(bloom_b, bl, &bloom_token, "k", 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_contains_with_token(bloom_b, bl, &bloom_token, NULL, 1, &b), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_contains_with_token(bloom_b + 1, bl, &bloom_token, "k", 1, &b), SKETCH_MISALIGNED);
    EXPECT(sketch_bloom_contains_with_token(bloom_b, bl - 64, &bloom_token, "k", 1, &b), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_bloom_contains_with_token(sbbf_a, sl, &bloom_token, "k", 1, &b), SKETCH_WRONG_FAMILY);
    /* Damaged images miss the token: the token adds give the plain call's
     * status and, like it, change nothing (misaligned, a short buffer, then
     * a damaged identity word: 0 hash functions). */
    {
        unsigned char *before = malloc(bl);
        CHECK(before != NULL);
        memcpy(before, bloom_b, bl);
        EXPECT(sketch_bloom_add_with_token(bloom_b + 1, bl - 1, &bloom_token, "k", 1, NULL),
               sketch_bloom_add(bloom_b + 1, bl - 1, "k", 1, NULL));
        int32_t plain = sketch_bloom_add(bloom_b, bl - 64, "k", 1, NULL);
        CHECK(plain != SKETCH_OK);
        EXPECT(sketch_bloom_add_with_token(bloom_b, bl - 64, &bloom_token, "k", 1, NULL), plain);
        EXPECT(sketch_bloom_add_u64_with_token(bloom_b, bl - 64, &bloom_token, 7, NULL), plain);
        CHECK(memcmp(before, bloom_b, bl) == 0);
        free(before);
    }
    memset(bloom_b + 56, 0, 4);
    EXPECT(sketch_bloom_add_with_token(bloom_b, bl, &bloom_token, "k", 1, NULL), SKETCH_CORRUPT_HEADER);
    EXPECT(sketch_bloom_add_hash_with_token(bloom_b, bl, &bloom_token, 7, NULL), SKETCH_CORRUPT_HEADER);
    EXPECT(sketch_bloom_contains_with_token(bloom_b, bl, &bloom_token, "k", 1, &b), SKETCH_CORRUPT_HEADER);

    const sketch_token *sbbf_tokens[3] = {&sbbf_token, &zero, &bloom_token};
    for (int t = 0; t < 3; t++) {
        EXPECT(sketch_sbbf_init(sbbf_a, sl, &sp, 4), SKETCH_OK);
        memcpy(sbbf_b, sbbf_a, sl);
        int agree = 1;
        for (uint64_t i = 0; i < 3000; i++) {
            bool new_plain = false, new_token = false;
            agree &= sketch_sbbf_add(sbbf_a, sl, &i, sizeof i, &new_plain) == SKETCH_OK;
            agree &= sketch_sbbf_add_with_token(sbbf_b, sl, sbbf_tokens[t], &i, sizeof i, &new_token) == SKETCH_OK;
            agree &= new_plain == new_token;
            agree &= sketch_sbbf_add_u64(sbbf_a, sl, i, NULL) == SKETCH_OK;
            agree &= sketch_sbbf_add_u64_with_token(sbbf_b, sl, sbbf_tokens[t], i, NULL) == SKETCH_OK;
            agree &= sketch_sbbf_add_hash(sbbf_a, sl, i * 0x9E3779B97F4A7C15ULL, NULL) == SKETCH_OK;
            agree &= sketch_sbbf_add_hash_with_token(sbbf_b, sl, sbbf_tokens[t], i * 0x9E3779B97F4A7C15ULL, NULL) == SKETCH_OK;
        }
        CHECK(agree);
        CHECK(memcmp(sbbf_a, sbbf_b, sl) == 0);
        for (uint64_t i = 0; i < 6000; i++) {
            bool plain = false, with = false;
            agree &= sketch_sbbf_contains(sbbf_b, sl, &i, sizeof i, &plain) == SKETCH_OK;
            agree &= sketch_sbbf_contains_with_token(sbbf_b, sl, sbbf_tokens[t], &i, sizeof i, &with) == SKETCH_OK;
            agree &= plain == with && (i >= 3000 || with);
            agree &= sketch_sbbf_contains_u64(sbbf_b, sl, i, &plain) == SKETCH_OK;
            agree &= sketch_sbbf_contains_u64_with_token(sbbf_b, sl, sbbf_tokens[t], i, &with) == SKETCH_OK;
            agree &= plain == with;
            agree &= sketch_sbbf_contains_hash(sbbf_b, sl, i, &plain) == SKETCH_OK;
            agree &= sketch_sbbf_contains_hash_with_token(sbbf_b, sl, sbbf_tokens[t], i, &with) == SKETCH_OK;
            agree &= plain == with;
        }
        CHECK(agree);
    }
    EXPECT(sketch_sbbf_add_u64_with_token(sbbf_b, sl, NULL, 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_sbbf_contains_u64_with_token(bloom_a, bl, &sbbf_token, 1, &b), SKETCH_WRONG_FAMILY);

    const sketch_token *hll_tokens[3] = {&hll_token, &zero, &sbbf_token};
    for (int t = 0; t < 3; t++) {
        EXPECT(sketch_hll_init(hll_a, hl, 12, 4), SKETCH_OK);
        memcpy(hll_b, hll_a, hl);
        int agree = 1;
        /* Through small mode into dense mode: the token holds across the switch. */
        for (uint64_t i = 0; i < 20000; i++) {
            bool changed_plain = false, changed_token = false;
            agree &= sketch_hll_add(hll_a, hl, &i, sizeof i, &changed_plain) == SKETCH_OK;
            agree &= sketch_hll_add_with_token(hll_b, hl, hll_tokens[t], &i, sizeof i, &changed_token) == SKETCH_OK;
            agree &= changed_plain == changed_token;
            agree &= sketch_hll_add_u64(hll_a, hl, i, NULL) == SKETCH_OK;
            agree &= sketch_hll_add_u64_with_token(hll_b, hl, hll_tokens[t], i, NULL) == SKETCH_OK;
            agree &= sketch_hll_add_hash(hll_a, hl, i * 0x9E3779B97F4A7C15ULL, NULL) == SKETCH_OK;
            agree &= sketch_hll_add_hash_with_token(hll_b, hl, hll_tokens[t], i * 0x9E3779B97F4A7C15ULL, NULL) == SKETCH_OK;
        }
        CHECK(agree);
        CHECK(memcmp(hll_a, hll_b, hl) == 0);
    }
    EXPECT(sketch_hll_add_with_token(hll_b, hl, NULL, "k", 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_hll_add_with_token(bloom_a, bl, &hll_token, "k", 1, NULL), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_hll_add_with_token(hll_b + 1, hl, &hll_token, "k", 1, NULL), SKETCH_MISALIGNED);
    /* Damaged images miss the token: the token call gives the plain call's
     * status and, like it, changes nothing (a short buffer, then a
     * precision byte out of range). */
    {
        unsigned char *before = malloc(hl);
        CHECK(before != NULL);
        memcpy(before, hll_b, hl);
        int32_t plain = sketch_hll_add(hll_b, hl - 64, "k", 1, NULL);
        CHECK(plain != SKETCH_OK);
        EXPECT(sketch_hll_add_with_token(hll_b, hl - 64, &hll_token, "k", 1, NULL), plain);
        hll_b[48] = 99;
        plain = sketch_hll_add(hll_b, hl, "k", 1, NULL);
        CHECK(plain != SKETCH_OK);
        EXPECT(sketch_hll_add_with_token(hll_b, hl, &hll_token, "k", 1, NULL), plain);
        EXPECT(sketch_hll_add_u64_with_token(hll_b, hl, &hll_token, 7, NULL), plain);
        hll_b[48] = before[48];
        CHECK(memcmp(before, hll_b, hl) == 0);
        free(before);
    }
    free(bloom_a);
    free(bloom_b);
    free(sbbf_a);
    free(sbbf_b);
    free(hll_a);
    free(hll_b);
}

/* Views: the sketch_<family>_view_* calls answer and change the image exactly
 * as the plain calls do, with the view of the image and with a view whose
 * token is zero (full validation); NULL views, outputs and images are
 * refused, keys inside the image too; a view kept across a re-init with other
 * parameters stays inside its bytes (the ASan and valgrind runs check it). */
static void test_views(void) {
    struct sketch_bloom_params bp;
    struct sketch_sbbf_params sp;
    uint64_t bloom_size = 0, sbbf_size = 0, hll_size = 0;
    EXPECT(sketch_bloom_plan(20000, 0.01, &bp), SKETCH_OK);
    EXPECT(sketch_bloom_size(&bp, &bloom_size), SKETCH_OK);
    EXPECT(sketch_sbbf_plan(20000, 0.01, &sp), SKETCH_OK);
    EXPECT(sketch_sbbf_size(&sp, &sbbf_size), SKETCH_OK);
    EXPECT(sketch_hll_size(12, &hll_size), SKETCH_OK);
    size_t bl = (size_t)bloom_size, sl = (size_t)sbbf_size, hl = (size_t)hll_size;
    unsigned char *bloom_a = alloc_image(bloom_size), *bloom_b = alloc_image(bloom_size);
    unsigned char *sbbf_a = alloc_image(sbbf_size), *sbbf_b = alloc_image(sbbf_size);
    unsigned char *hll_a = alloc_image(hll_size), *hll_b = alloc_image(hll_size);
    sketch_view view, zeroed;
    bool b = false;

    EXPECT(sketch_bloom_init(bloom_a, bl, &bp, 4), SKETCH_OK);
    EXPECT(sketch_bloom_view(bloom_a, bl, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_view(bloom_a + 1, bl, &view), SKETCH_MISALIGNED);
    EXPECT(sketch_sbbf_view(bloom_a, bl, &view), SKETCH_WRONG_FAMILY);
    for (int zero = 0; zero < 2; zero++) {
        EXPECT(sketch_bloom_init(bloom_a, bl, &bp, 4), SKETCH_OK);
        memcpy(bloom_b, bloom_a, bl);
        EXPECT(sketch_bloom_view(bloom_b, bl, &view), SKETCH_OK);
        CHECK(view.image == bloom_b && view.len == bl);
        if (zero) memset(&view.token, 0, sizeof view.token);
        int agree = 1;
        for (uint64_t i = 0; i < 3000; i++) {
            char key[24];
            int n = snprintf(key, sizeof key, "key-%llu", (unsigned long long)i);
            bool new_plain = false, new_view = false;
            agree &= sketch_bloom_add(bloom_a, bl, key, (size_t)n, &new_plain) == SKETCH_OK;
            agree &= sketch_bloom_view_add(&view, key, (size_t)n, &new_view) == SKETCH_OK;
            agree &= new_plain == new_view;
            agree &= sketch_bloom_add_u64(bloom_a, bl, i, NULL) == SKETCH_OK;
            agree &= sketch_bloom_view_add_u64(&view, i, NULL) == SKETCH_OK;
            agree &= sketch_bloom_add_hash(bloom_a, bl, i * 0x9E3779B97F4A7C15ULL, NULL) == SKETCH_OK;
            agree &= sketch_bloom_view_add_hash(&view, i * 0x9E3779B97F4A7C15ULL, NULL) == SKETCH_OK;
        }
        CHECK(agree);
        CHECK(memcmp(bloom_a, bloom_b, bl) == 0);
        for (uint64_t i = 0; i < 6000; i++) {
            char key[24];
            int n = snprintf(key, sizeof key, "key-%llu", (unsigned long long)i);
            bool plain = false, with = false;
            agree &= sketch_bloom_contains(bloom_b, bl, key, (size_t)n, &plain) == SKETCH_OK;
            agree &= sketch_bloom_view_contains(&view, key, (size_t)n, &with) == SKETCH_OK;
            agree &= plain == with && (i >= 3000 || with);
            agree &= sketch_bloom_contains_u64(bloom_b, bl, i, &plain) == SKETCH_OK;
            agree &= sketch_bloom_view_contains_u64(&view, i, &with) == SKETCH_OK;
            agree &= plain == with;
            agree &= sketch_bloom_contains_hash(bloom_b, bl, i, &plain) == SKETCH_OK;
            agree &= sketch_bloom_view_contains_hash(&view, i, &with) == SKETCH_OK;
            agree &= plain == with;
        }
        CHECK(agree);
    }
    EXPECT(sketch_bloom_view(bloom_b, bl, &view), SKETCH_OK);
    EXPECT(sketch_bloom_view_add(NULL, "k", 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_view_add(&view, NULL, 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_view_contains(&view, "k", 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_view_contains_u64(NULL, 1, &b), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_view_add(&view, bloom_b + 200, 8, NULL), SKETCH_OVERLAP);
    zeroed = view;
    zeroed.image = NULL;
    EXPECT(sketch_bloom_view_add_u64(&zeroed, 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_view_contains_u64(&zeroed, 1, &b), SKETCH_NULL_POINTER);
    /* A zero token on another family's image: the full validation says so. */
    zeroed = view;
    memset(&zeroed.token, 0, sizeof zeroed.token);
    EXPECT(sketch_sbbf_init(sbbf_a, sl, &sp, 4), SKETCH_OK);
    zeroed.image = sbbf_a;
    zeroed.len = sl;
    EXPECT(sketch_bloom_view_add_u64(&zeroed, 1, NULL), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_bloom_view_contains_u64(&zeroed, 1, &b), SKETCH_WRONG_FAMILY);
    /* Kept across a re-init with a third of the bits: calls stay in bounds. */
    {
        struct sketch_bloom_params small;
        EXPECT(sketch_bloom_plan(6000, 0.01, &small), SKETCH_OK);
        EXPECT(sketch_bloom_init(bloom_b, bl, &small, 9), SKETCH_OK);
        for (uint64_t i = 0; i < 2000; i++) {
            EXPECT(sketch_bloom_view_add_u64(&view, i, NULL), SKETCH_OK);
            EXPECT(sketch_bloom_view_contains_u64(&view, i, &b), SKETCH_OK);
        }
    }

    for (int zero = 0; zero < 2; zero++) {
        EXPECT(sketch_sbbf_init(sbbf_a, sl, &sp, 4), SKETCH_OK);
        memcpy(sbbf_b, sbbf_a, sl);
        EXPECT(sketch_sbbf_view(sbbf_b, sl, &view), SKETCH_OK);
        if (zero) memset(&view.token, 0, sizeof view.token);
        int agree = 1;
        for (uint64_t i = 0; i < 3000; i++) {
            bool new_plain = false, new_view = false;
            agree &= sketch_sbbf_add(sbbf_a, sl, &i, sizeof i, &new_plain) == SKETCH_OK;
            agree &= sketch_sbbf_view_add(&view, &i, sizeof i, &new_view) == SKETCH_OK;
            agree &= new_plain == new_view;
            agree &= sketch_sbbf_add_u64(sbbf_a, sl, i, NULL) == SKETCH_OK;
            agree &= sketch_sbbf_view_add_u64(&view, i, NULL) == SKETCH_OK;
            agree &= sketch_sbbf_add_hash(sbbf_a, sl, i * 0x9E3779B97F4A7C15ULL, NULL) == SKETCH_OK;
            agree &= sketch_sbbf_view_add_hash(&view, i * 0x9E3779B97F4A7C15ULL, NULL) == SKETCH_OK;
        }
        CHECK(agree);
        CHECK(memcmp(sbbf_a, sbbf_b, sl) == 0);
        for (uint64_t i = 0; i < 6000; i++) {
            bool plain = false, with = false;
            agree &= sketch_sbbf_contains(sbbf_b, sl, &i, sizeof i, &plain) == SKETCH_OK;
            agree &= sketch_sbbf_view_contains(&view, &i, sizeof i, &with) == SKETCH_OK;
            agree &= plain == with && (i >= 3000 || with);
            agree &= sketch_sbbf_contains_u64(sbbf_b, sl, i, &plain) == SKETCH_OK;
            agree &= sketch_sbbf_view_contains_u64(&view, i, &with) == SKETCH_OK;
            agree &= plain == with;
            agree &= sketch_sbbf_contains_hash(sbbf_b, sl, i, &plain) == SKETCH_OK;
            agree &= sketch_sbbf_view_contains_hash(&view, i, &with) == SKETCH_OK;
            agree &= plain == with;
        }
        CHECK(agree);
    }
    EXPECT(sketch_sbbf_view(sbbf_b, sl, &view), SKETCH_OK);
    EXPECT(sketch_sbbf_view_add_u64(NULL, 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_sbbf_view_contains_hash(&view, 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_sbbf_view_add(&view, sbbf_b + 300, 8, NULL), SKETCH_OVERLAP);
    {
        struct sketch_sbbf_params small;
        EXPECT(sketch_sbbf_plan(2000, 0.01, &small), SKETCH_OK);
        EXPECT(sketch_sbbf_init(sbbf_b, sl, &small, 9), SKETCH_OK);
        for (uint64_t i = 0; i < 2000; i++) {
            EXPECT(sketch_sbbf_view_add_u64(&view, i, NULL), SKETCH_OK);
            EXPECT(sketch_sbbf_view_contains_u64(&view, i, &b), SKETCH_OK);
        }
    }

    for (int zero = 0; zero < 2; zero++) {
        EXPECT(sketch_hll_init(hll_a, hl, 12, 4), SKETCH_OK);
        memcpy(hll_b, hll_a, hl);
        EXPECT(sketch_hll_view(hll_b, hl, &view), SKETCH_OK);
        if (zero) memset(&view.token, 0, sizeof view.token);
        int agree = 1;
        /* Through small mode into dense mode: the view holds across the switch. */
        for (uint64_t i = 0; i < 20000; i++) {
            bool changed_plain = false, changed_view = false;
            agree &= sketch_hll_add(hll_a, hl, &i, sizeof i, &changed_plain) == SKETCH_OK;
            agree &= sketch_hll_view_add(&view, &i, sizeof i, &changed_view) == SKETCH_OK;
            agree &= changed_plain == changed_view;
            agree &= sketch_hll_add_u64(hll_a, hl, i, NULL) == SKETCH_OK;
            agree &= sketch_hll_view_add_u64(&view, i, NULL) == SKETCH_OK;
            agree &= sketch_hll_add_hash(hll_a, hl, i * 0x9E3779B97F4A7C15ULL, NULL) == SKETCH_OK;
            agree &= sketch_hll_view_add_hash(&view, i * 0x9E3779B97F4A7C15ULL, NULL) == SKETCH_OK;
        }
        CHECK(agree);
        CHECK(memcmp(hll_a, hll_b, hl) == 0);
    }
    EXPECT(sketch_hll_view(hll_b, hl, &view), SKETCH_OK);
    EXPECT(sketch_hll_view(bloom_a, bl, &view), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_hll_view(hll_b, hl, &view), SKETCH_OK);
    EXPECT(sketch_hll_view_add(NULL, "k", 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_hll_view_add(&view, hll_b + 100, 8, NULL), SKETCH_OVERLAP);
    EXPECT(sketch_hll_init(hll_b, hl, 8, 9), SKETCH_OK);
    for (uint64_t i = 0; i < 5000; i++) {
        EXPECT(sketch_hll_view_add_u64(&view, i, NULL), SKETCH_OK);
    }
    free(bloom_a);
    free(bloom_b);
    free(sbbf_a);
    free(sbbf_b);
    free(hll_a);
    free(hll_b);
}

/* The byte-key C forms of a Bloom-like filter (Bloom, split-block), for
 * check_filter_fast_paths. */
struct filter_calls {
    sketch_status (*add)(void *, size_t, const void *, size_t, bool *);
    sketch_status (*contains)(const void *, size_t, const void *, size_t, bool *);
    sketch_status (*view)(void *, size_t, struct sketch_view *);
    sketch_status (*token)(const void *, size_t, struct sketch_token *);
    sketch_status (*view_add)(const struct sketch_view *, const void *, size_t, bool *);
    sketch_status (*view_contains)(const struct sketch_view *, const void *, size_t, bool *);
    sketch_status (*add_with_token)(void *, size_t, const struct sketch_token *, const void *, size_t, bool *);
    sketch_status (*contains_with_token)(const void *, size_t, const struct sketch_token *, const void *,
                                         size_t, bool *);
};

static const struct filter_calls bloom_calls = {
    sketch_bloom_add,      sketch_bloom_contains,      sketch_bloom_view,           sketch_bloom_token,
    sketch_bloom_view_add, sketch_bloom_view_contains, sketch_bloom_add_with_token, sketch_bloom_contains_with_token,
};

static const struct filter_calls sbbf_calls = {
    sketch_sbbf_add,      sketch_sbbf_contains,      sketch_sbbf_view,           sketch_sbbf_token,
    sketch_sbbf_view_add, sketch_sbbf_view_contains, sketch_sbbf_add_with_token, sketch_sbbf_contains_with_token,
};

/* On the fresh filter image `fresh` (len bytes; copied three times: plain
 * calls, a view, a token) and another image `other` of the same family:
 * views and tokens give the plain calls' bytes and answers with keys of
 * 0-40 bytes (fast path up to 16, full path above), another image's token
 * validates in full, and NULL, empty and overlapping keys get the plain
 * calls' statuses. `bytes`: 64 bytes of key material. */
static void check_filter_fast_paths(const struct filter_calls *f, const unsigned char *fresh, size_t len,
                                    unsigned char *other, size_t other_len, unsigned char *bytes) {
    unsigned char *a = alloc_image(len), *b = alloc_image(len), *c = alloc_image(len);
    memcpy(a, fresh, len);
    memcpy(b, fresh, len);
    memcpy(c, fresh, len);
    sketch_view view;
    sketch_token token, other_token;
    EXPECT(f->view(b, len, &view), SKETCH_OK);
    EXPECT(f->token(c, len, &token), SKETCH_OK);
    EXPECT(f->token(other, other_len, &other_token), SKETCH_OK);
    int agree = 1;
    for (uint64_t i = 0; i < 4000; i++) {
        size_t n = (size_t)(i % 41), at = (size_t)(i % 23);
        bytes[at] ^= (unsigned char)i;
        bool new_plain = true, new_view = false, new_token = false;
        agree &= f->add(a, len, bytes + at, n, &new_plain) == SKETCH_OK;
        agree &= f->view_add(&view, bytes + at, n, &new_view) == SKETCH_OK;
        agree &= f->add_with_token(c, len, &token, bytes + at, n, &new_token) == SKETCH_OK;
        agree &= new_plain == new_view && new_plain == new_token;
    }
    CHECK(agree);
    CHECK(memcmp(a, b, len) == 0);
    CHECK(memcmp(a, c, len) == 0);
    for (uint64_t i = 0; i < 8000; i++) {
        size_t n = (size_t)(i % 41), at = (size_t)(i % 23);
        bytes[at] ^= (unsigned char)i;
        bool plain = false, with = true, tokened = true;
        agree &= f->contains(a, len, bytes + at, n, &plain) == SKETCH_OK;
        agree &= f->view_contains(&view, bytes + at, n, &with) == SKETCH_OK;
        agree &= f->contains_with_token(c, len, &token, bytes + at, n, &tokened) == SKETCH_OK;
        agree &= plain == with && plain == tokened;
    }
    CHECK(agree);
    /* Another image's token: its identity differs, the calls validate in
     * full and give the plain results. */
    for (uint64_t i = 0; i < 500; i++) {
        bool plain = false, tokened = true;
        agree &= f->add(a, len, &i, sizeof i, &plain) == SKETCH_OK;
        agree &= f->add_with_token(c, len, &other_token, &i, sizeof i, &tokened) == SKETCH_OK;
        agree &= plain == tokened;
        agree &= f->contains_with_token(c, len, &other_token, &i, sizeof i, &tokened) == SKETCH_OK;
        agree &= tokened;
    }
    CHECK(agree);
    CHECK(memcmp(a, c, len) == 0);
    EXPECT(f->add_with_token(c, len, NULL, "k", 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(f->add_with_token(NULL, len, &token, "k", 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(f->add_with_token(c, len, &token, NULL, 2, NULL), SKETCH_NULL_POINTER);
    bool found = false, was_new = true;
    EXPECT(f->contains_with_token(NULL, len, &token, "k", 1, &found), SKETCH_NULL_POINTER);
    EXPECT(f->contains_with_token(c, len, &token, "k", 1, NULL), SKETCH_NULL_POINTER);
    /* An empty key: NULL, or a pointer into the image (no byte shared). */
    EXPECT(f->view_add(&view, NULL, 0, &was_new), SKETCH_OK);
    EXPECT(f->view_contains(&view, NULL, 0, &found), SKETCH_OK);
    CHECK(found);
    EXPECT(f->view_add(&view, b + 100, 0, &was_new), SKETCH_OK);
    CHECK(!was_new);
    EXPECT(f->view_contains(&view, NULL, 1, &found), SKETCH_NULL_POINTER);
    EXPECT(f->view_add(&view, NULL, 1, NULL), SKETCH_NULL_POINTER);
    /* A key inside the image: refused for an add, nothing changed ... */
    memcpy(a, b, len);
    EXPECT(f->view_add(&view, b + len - 8, 8, NULL), SKETCH_OVERLAP);
    EXPECT(f->view_add(&view, b + len - 40, 30, NULL), SKETCH_OVERLAP);
    CHECK(memcmp(a, b, len) == 0);
    memcpy(a, c, len);
    EXPECT(f->add_with_token(c, len, &token, c + 64, 8, NULL), SKETCH_OVERLAP);
    EXPECT(f->add_with_token(c, len, &token, c + 72, 16, NULL), SKETCH_OVERLAP);
    CHECK(memcmp(a, c, len) == 0);
    memcpy(a, b, len);
    /* ... and answered for a query. */
    bool plain = false;
    EXPECT(f->contains(a, len, a + 200, 12, &plain), SKETCH_OK);
    EXPECT(f->view_contains(&view, b + 200, 12, &found), SKETCH_OK);
    CHECK(plain == found);
    EXPECT(f->contains_with_token(c, len, &token, c + 200, 12, &found), SKETCH_OK);
    CHECK(plain == found);
    /* A key that starts before the image and ends inside it. */
    unsigned char *wide = alloc_image(len + 64);
    memcpy(wide + 64, b, len);
    sketch_view at64;
    EXPECT(f->view(wide + 64, len, &at64), SKETCH_OK);
    EXPECT(f->view_add(&at64, wide + 56, 16, NULL), SKETCH_OVERLAP);
    EXPECT(f->view_add(&at64, wide + 63, 2, NULL), SKETCH_OVERLAP);
    CHECK(memcmp(wide + 64, b, len) == 0);
    EXPECT(f->view_add(&at64, wide + 48, 16, NULL), SKETCH_OK);
    free(wide);
    free(a);
    free(b);
    free(c);
}

/* The fast paths of the kept views and of the _with_token calls (keys of
 * at most 16 bytes, dense HLL adds that change nothing) and their full
 * paths (longer keys, small mode, NULL, empty and overlapping keys, tokens
 * of other images) give the plain calls' bytes, answers and statuses, for
 * Bloom, split-block filters in both modes and HyperLogLog. */
static void test_view_fast_paths(void) {
    unsigned char bytes[64];
    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)(i * 37 + 11);
    {
        struct sketch_bloom_params bp, op;
        uint64_t size = 0, osize = 0;
        EXPECT(sketch_bloom_plan(4000, 0.01, &bp), SKETCH_OK);
        EXPECT(sketch_bloom_size(&bp, &size), SKETCH_OK);
        EXPECT(sketch_bloom_plan(300, 0.01, &op), SKETCH_OK);
        EXPECT(sketch_bloom_size(&op, &osize), SKETCH_OK);
        unsigned char *a = alloc_image(size), *o = alloc_image(osize);
        EXPECT(sketch_bloom_init(a, (size_t)size, &bp, 6), SKETCH_OK);
        EXPECT(sketch_bloom_init(o, (size_t)osize, &op, 6), SKETCH_OK);
        check_filter_fast_paths(&bloom_calls, a, (size_t)size, o, (size_t)osize, bytes);
        free(a);
        free(o);
    }
    for (int parquet = 0; parquet < 2; parquet++) {
        struct sketch_sbbf_params sp, op;
        uint64_t size = 0, osize = 0;
        EXPECT(parquet ? sketch_sbbf_plan_parquet(4000, 0.01, &sp) : sketch_sbbf_plan(4000, 0.01, &sp), SKETCH_OK);
        EXPECT(sketch_sbbf_size(&sp, &size), SKETCH_OK);
        EXPECT(sketch_sbbf_plan(500, 0.01, &op), SKETCH_OK);
        EXPECT(sketch_sbbf_size(&op, &osize), SKETCH_OK);
        unsigned char *a = alloc_image(size), *o = alloc_image(osize);
        EXPECT(sketch_sbbf_init(a, (size_t)size, &sp, 0), SKETCH_OK);
        EXPECT(sketch_sbbf_init(o, (size_t)osize, &op, 0), SKETCH_OK);
        check_filter_fast_paths(&sbbf_calls, a, (size_t)size, o, (size_t)osize, bytes);
        free(a);
        free(o);
    }

    uint64_t size = 0;
    EXPECT(sketch_hll_size(10, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *a = alloc_image(size), *b = alloc_image(size), *c = alloc_image(size);
    EXPECT(sketch_hll_init(a, len, 10, 3), SKETCH_OK);
    memcpy(b, a, len);
    memcpy(c, a, len);
    sketch_view view;
    sketch_token token;
    EXPECT(sketch_hll_view(b, len, &view), SKETCH_OK);
    EXPECT(sketch_hll_token(c, len, &token), SKETCH_OK);
    int agree = 1, unchanged = 0;
    /* Small mode, then dense: most late adds change nothing. */
    for (uint64_t i = 0; i < 30000; i++) {
        size_t n = (size_t)(i % 41), at = (size_t)(i % 23);
        bytes[at] ^= (unsigned char)(i >> 3);
        bool changed_plain = false, changed_view = true;
        agree &= sketch_hll_add(a, len, bytes + at, n, &changed_plain) == SKETCH_OK;
        agree &= sketch_hll_view_add(&view, bytes + at, n, &changed_view) == SKETCH_OK;
        bool changed_token = true;
        agree &= sketch_hll_add_with_token(c, len, &token, bytes + at, n, &changed_token) == SKETCH_OK;
        agree &= changed_plain == changed_view && changed_plain == changed_token;
        unchanged += !changed_view;
        uint64_t k = i % 5000, h = (i % 7000) * 0x9E3779B97F4A7C15ULL;
        agree &= sketch_hll_add_u64(a, len, k, &changed_plain) == SKETCH_OK;
        agree &= sketch_hll_view_add_u64(&view, k, &changed_view) == SKETCH_OK;
        agree &= sketch_hll_add_u64_with_token(c, len, &token, k, &changed_token) == SKETCH_OK;
        agree &= changed_plain == changed_view && changed_plain == changed_token;
        agree &= sketch_hll_add_hash(a, len, h, &changed_plain) == SKETCH_OK;
        agree &= sketch_hll_view_add_hash(&view, h, &changed_view) == SKETCH_OK;
        agree &= sketch_hll_add_hash_with_token(c, len, &token, h, &changed_token) == SKETCH_OK;
        agree &= changed_plain == changed_view && changed_plain == changed_token;
    }
    CHECK(agree);
    CHECK(unchanged > 15000);
    CHECK(memcmp(a, b, len) == 0);
    CHECK(memcmp(a, c, len) == 0);
    /* A token of another precision: validated in full, the plain result. */
    {
        uint64_t osize = 0;
        sketch_token other;
        EXPECT(sketch_hll_size(12, &osize), SKETCH_OK);
        unsigned char *o = alloc_image(osize);
        EXPECT(sketch_hll_init(o, (size_t)osize, 12, 3), SKETCH_OK);
        EXPECT(sketch_hll_token(o, (size_t)osize, &other), SKETCH_OK);
        for (uint64_t i = 0; i < 3000; i++) {
            bool changed_plain = false, changed_token = true;
            agree &= sketch_hll_add_u64(a, len, i, &changed_plain) == SKETCH_OK;
            agree &= sketch_hll_add_u64_with_token(c, len, &other, i, &changed_token) == SKETCH_OK;
            agree &= changed_plain == changed_token;
        }
        CHECK(agree);
        CHECK(memcmp(a, c, len) == 0);
        EXPECT(sketch_hll_add_with_token(c, len, &token, c + 64, 8, NULL), SKETCH_OVERLAP);
        EXPECT(sketch_hll_add_with_token(c, len, NULL, "k", 1, NULL), SKETCH_NULL_POINTER);
        EXPECT(sketch_hll_add_u64_with_token(NULL, len, &token, 1, NULL), SKETCH_NULL_POINTER);
        free(o);
    }
    bool changed = true;
    EXPECT(sketch_hll_view_add(&view, NULL, 0, &changed), SKETCH_OK);
    EXPECT(sketch_hll_view_add(&view, NULL, 0, NULL), SKETCH_OK);
    EXPECT(sketch_hll_view_add(&view, b + 64, 0, &changed), SKETCH_OK);
    EXPECT(sketch_hll_view_add(&view, NULL, 3, &changed), SKETCH_NULL_POINTER);
    /* A key inside the image: refused, nothing changed, even when the add
     * would change nothing. */
    memcpy(a, b, len);
    for (size_t at = 0; at + 16 <= len; at += len / 7) {
        EXPECT(sketch_hll_view_add(&view, b + at, 16, &changed), SKETCH_OVERLAP);
    }
    CHECK(memcmp(a, b, len) == 0);
    /* A key that starts before the image and ends inside it. */
    unsigned char *wide = alloc_image(size + 64);
    memcpy(wide + 64, b, len);
    EXPECT(sketch_hll_view(wide + 64, len, &view), SKETCH_OK);
    EXPECT(sketch_hll_view_add(&view, wide + 56, 16, &changed), SKETCH_OVERLAP);
    EXPECT(sketch_hll_view_add(&view, wide + 63, 2, &changed), SKETCH_OVERLAP);
    EXPECT(sketch_hll_view_add(&view, wide + 48, 16, &changed), SKETCH_OK);
    free(wide);
    free(a);
    free(b);
    free(c);
}

/* An import destination (or a cuckoo merge scratch) that is NULL with
 * length 0, or empty or short at an aligned address, is too small: it was
 * reported SKETCH_MISALIGNED (the alignment of an empty buffer was checked
 * before its length), sending the caller after the wrong problem. A long
 * enough, misaligned one is still SKETCH_MISALIGNED; nothing is written. */
static void test_short_destinations(void) {
    static _Alignas(64) unsigned char dst[4096], out[4096], src[4096], work[4096];
    size_t written = 0;
    uint64_t size = 0;

    struct sketch_bloom_params bp;
    EXPECT(sketch_bloom_plan(100, 0.01, &bp), SKETCH_OK);
    EXPECT(sketch_bloom_size(&bp, &size), SKETCH_OK);
    CHECK(size + 8 <= sizeof dst);
    EXPECT(sketch_bloom_init(src, (size_t)size, &bp, 1), SKETCH_OK);
    EXPECT(sketch_bloom_export(src, (size_t)size, out, sizeof out, &written), SKETCH_OK);
    memset(dst, 0xA5, sizeof dst);
    EXPECT(sketch_bloom_import(out, written, NULL, 0), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_bloom_import(out, written, dst, 0), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_bloom_import(out, written, dst, written - 1), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_bloom_import(out, written, dst + 1, written), SKETCH_MISALIGNED);
    CHECK(dst[0] == 0xA5 && dst[1] == 0xA5);

    /* A HyperLogLog's compact export grows on import: the full length is needed. */
    EXPECT(sketch_hll_size(12, &size), SKETCH_OK);
    CHECK(size + 8 <= sizeof dst);
    EXPECT(sketch_hll_init(src, (size_t)size, 12, 1), SKETCH_OK);
    EXPECT(sketch_hll_add_u64(src, (size_t)size, 7, NULL), SKETCH_OK);
    EXPECT(sketch_hll_export(src, (size_t)size, out, sizeof out, &written), SKETCH_OK);
    CHECK(written < size);
    EXPECT(sketch_hll_import(out, written, NULL, 0), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_hll_import(out, written, dst, written), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_hll_import(out, written, dst + 1, (size_t)size), SKETCH_MISALIGNED);
    CHECK(dst[0] == 0xA5 && dst[1] == 0xA5);
    EXPECT(sketch_hll_import(out, written, dst, (size_t)size), SKETCH_OK);

    struct sketch_ell_params ep;
    EXPECT(sketch_ell_plan(0.1, 20, &ep), SKETCH_OK);
    EXPECT(sketch_ell_size(&ep, &size), SKETCH_OK);
    CHECK(size + 8 <= sizeof dst);
    EXPECT(sketch_ell_init(src, (size_t)size, &ep, 1), SKETCH_OK);
    EXPECT(sketch_ell_export(src, (size_t)size, out, sizeof out, &written), SKETCH_OK);
    EXPECT(sketch_ell_import(out, written, NULL, 0), SKETCH_BUFFER_TOO_SMALL);

    /* Cuckoo merge: the scratch must hold a whole image. */
    struct sketch_cuckoo_params cp;
    EXPECT(sketch_cuckoo_plan(50, 0.01, &cp), SKETCH_OK);
    EXPECT(sketch_cuckoo_size(&cp, &size), SKETCH_OK);
    CHECK(size + 8 <= sizeof work);
    EXPECT(sketch_cuckoo_init(dst, (size_t)size, &cp, 1), SKETCH_OK);
    EXPECT(sketch_cuckoo_init(src, (size_t)size, &cp, 1), SKETCH_OK);
    EXPECT(sketch_cuckoo_add_u64(src, (size_t)size, 1), SKETCH_OK);
    EXPECT(sketch_cuckoo_merge(dst, (size_t)size, src, (size_t)size, NULL, 0), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_cuckoo_merge(dst, (size_t)size, src, (size_t)size, work, 0), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_cuckoo_merge(dst, (size_t)size, src, (size_t)size, work, (size_t)size - 8), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_cuckoo_merge(dst, (size_t)size, src, (size_t)size, work + 1, (size_t)size), SKETCH_MISALIGNED);
    EXPECT(sketch_cuckoo_merge(dst, (size_t)size, src, (size_t)size, work, (size_t)size), SKETCH_OK);
}

/* A Parquet bitset planned for a rate not even one item meets (the
 * writer's fpp can be that small for a tiny column): the plan recorded the
 * requested rate with one planned item, so the loaded filter reported
 * SKETCH_CAPACITY_FPR_ABOVE_TWICE_PLANNED as soon as it held one key. It
 * now records the rate one item gives; reachable rates are unchanged. */
static void test_parquet_bitset_unreachable_rate(void) {
    static _Alignas(64) unsigned char image[4096];
    static unsigned char bitset[32];
    struct sketch_sbbf_params p;
    uint64_t size = 0;
    uint32_t flags = 99;
    EXPECT(sketch_sbbf_plan_parquet_bitset(sizeof bitset, 1e-300, &p), SKETCH_OK);
    CHECK(p.blocks == 1 && p.planned_items == 1);
    CHECK(p.planned_fpr > 1e-300 && p.planned_fpr < 1e-6);
    EXPECT(sketch_sbbf_size(&p, &size), SKETCH_OK);
    CHECK(size <= sizeof image);
    EXPECT(sketch_sbbf_load_parquet_bitset(image, (size_t)size, bitset, sizeof bitset, &p), SKETCH_OK);
    EXPECT(sketch_sbbf_add_hash(image, (size_t)size, sketch_parquet_hash_i64(1), NULL), SKETCH_OK);
    EXPECT(sketch_sbbf_capacity(image, (size_t)size, &flags), SKETCH_OK);
    CHECK(flags == 0);
    /* A reachable rate keeps the requested value. (The cast rounds the
     * literal to double: with -m32, x87 math evaluates 0.01 in long double
     * precision, FLT_EVAL_METHOD 2, and the exact value would never equal.) */
    EXPECT(sketch_sbbf_plan_parquet_bitset(sizeof bitset, 0.01, &p), SKETCH_OK);
    CHECK(p.planned_fpr == (double)0.01 && p.planned_items > 1);
}

/* A view of one family's image passed to another family's _view_ calls:
 * the calls read the parameters from the view's token without checking
 * the family, so a split-block call on a HyperLogLog view set bits in its
 * registers (and a Bloom or HyperLogLog call on a split-block view, whose
 * words happened to be in range, wrote into it), returning SKETCH_OK. The
 * family in the token is now checked: such a call validates the image in
 * full and returns SKETCH_WRONG_FAMILY, the image unchanged. Parameters
 * are chosen so that every other token word is in range. */
static void test_views_of_another_family(void) {
    static _Alignas(64) unsigned char bloom[4096], sbbf[4096], hll[8192], before[8192];
    struct sketch_bloom_params bp;
    struct sketch_sbbf_params sp;
    uint64_t bloom_size = 0, sbbf_size = 0, hll_size = 0;
    sketch_view bloom_view, sbbf_view, hll_view;
    bool b = false;

    EXPECT(sketch_bloom_plan_bits(16, 1, &bp), SKETCH_OK); /* bits in HyperLogLog's precision range */
    EXPECT(sketch_bloom_size(&bp, &bloom_size), SKETCH_OK);
    EXPECT(sketch_sbbf_plan_blocks(8, SKETCH_SBBF_NATIVE, &sp), SKETCH_OK);
    sp.planned_items = 40; /* at most 64: in range as Bloom probes */
    EXPECT(sketch_sbbf_size(&sp, &sbbf_size), SKETCH_OK);
    EXPECT(sketch_hll_size(12, &hll_size), SKETCH_OK);
    CHECK(bloom_size <= sizeof bloom && sbbf_size <= sizeof sbbf && hll_size <= sizeof hll);
    size_t bl = (size_t)bloom_size, sl = (size_t)sbbf_size, hl = (size_t)hll_size;
    EXPECT(sketch_bloom_init(bloom, bl, &bp, 1), SKETCH_OK);
    EXPECT(sketch_sbbf_init(sbbf, sl, &sp, 1), SKETCH_OK);
    EXPECT(sketch_hll_init(hll, hl, 12, 1), SKETCH_OK);
    EXPECT(sketch_hll_densify(hll, hl), SKETCH_OK);
    EXPECT(sketch_bloom_view(bloom, bl, &bloom_view), SKETCH_OK);
    EXPECT(sketch_sbbf_view(sbbf, sl, &sbbf_view), SKETCH_OK);
    EXPECT(sketch_hll_view(hll, hl, &hll_view), SKETCH_OK);

    const sketch_view *views[3] = {&bloom_view, &sbbf_view, &hll_view};
    const unsigned char *images[3] = {bloom, sbbf, hll};
    const size_t lens[3] = {bl, sl, hl};
    for (int v = 0; v < 3; v++) {
        const sketch_view *view = views[v];
        memcpy(before, images[v], lens[v]);
        if (v != 0) {
            EXPECT(sketch_bloom_view_add(view, "k", 1, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_bloom_view_add_u64(view, 7, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_bloom_view_add_hash(view, 7, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_bloom_view_contains(view, "k", 1, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_bloom_view_contains_u64(view, 7, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_bloom_view_contains_hash(view, 7, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_bloom_add_with_token((void *)images[v], lens[v],
                                               &view->token, "k", 1, &b),
                   SKETCH_WRONG_FAMILY);
        }
        if (v != 1) {
            EXPECT(sketch_sbbf_view_add(view, "k", 1, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_sbbf_view_add_u64(view, 7, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_sbbf_view_add_hash(view, 7, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_sbbf_view_contains(view, "k", 1, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_sbbf_view_contains_u64(view, 7, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_sbbf_view_contains_hash(view, 7, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_sbbf_add_with_token((void *)images[v], lens[v], &view->token, "k", 1, &b),
                   SKETCH_WRONG_FAMILY);
        }
        if (v != 2) {
            EXPECT(sketch_hll_view_add(view, "k", 1, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_hll_view_add_u64(view, 7, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_hll_view_add_hash(view, 7, &b), SKETCH_WRONG_FAMILY);
            EXPECT(sketch_hll_add_with_token((void *)images[v], lens[v], &view->token, "k", 1, &b),
                   SKETCH_WRONG_FAMILY);
        }
        CHECK(memcmp(before, images[v], lens[v]) == 0);
    }
    /* Each family's own calls on its view still work. */
    EXPECT(sketch_bloom_view_add_u64(&bloom_view, 7, &b), SKETCH_OK);
    EXPECT(sketch_sbbf_view_add_u64(&sbbf_view, 7, &b), SKETCH_OK);
    EXPECT(sketch_hll_view_add_u64(&hll_view, 7, &b), SKETCH_OK);
}

/* The packed (Arrow layout) and integer-array forms of every family, which
 * no C test called: each gives the image, answers and per-key outputs of
 * the same keys added and queried one at a time; exported_size and
 * import_size agree with what export and import write. */
#define SHAPES_N 200
static struct {
    char data[SHAPES_N * 12];
    uint32_t offsets[SHAPES_N + 1];
    uint64_t ints[SHAPES_N];
} shapes;

static void shapes_fill(void) {
    uint32_t at = 0;
    for (int i = 0; i < SHAPES_N; i++) {
        shapes.offsets[i] = at;
        at += (uint32_t)snprintf(shapes.data + at, sizeof shapes.data - at, "key-%d", i);
        shapes.ints[i] = (uint64_t)i * 0x9E3779B97F4A7C15ULL;
    }
    shapes.offsets[SHAPES_N] = at;
}
#define SHAPE_KEY(i) (shapes.data + shapes.offsets[i]), (size_t)(shapes.offsets[(i) + 1] - shapes.offsets[i])
#define SHAPE_DATA shapes.data, (size_t)shapes.offsets[SHAPES_N], shapes.offsets, (size_t)SHAPES_N

/* exported_size, export, import_size and import of a live image of `len` bytes. */
#define CHECK_EXPORT_SIZES(fam, img, len, live_len)                                          \
    do {                                                                                     \
        static unsigned char out_[1 << 16];                                                  \
        static _Alignas(64) unsigned char back_[1 << 16];                                    \
        size_t expected_ = 0, written_ = 0, size_ = 0;                                       \
        EXPECT(sketch_##fam##_exported_size(img, len, &expected_), SKETCH_OK);               \
        EXPECT(sketch_##fam##_export(img, len, out_, sizeof out_, &written_), SKETCH_OK);    \
        CHECK(written_ == expected_ && written_ > 0);                                        \
        EXPECT(sketch_##fam##_import_size(out_, written_, &size_), SKETCH_OK);               \
        CHECK(size_ == (live_len));                                                          \
        EXPECT(sketch_##fam##_import(out_, written_, back_, size_), SKETCH_OK);              \
        CHECK(memcmp(back_ + 40, (const unsigned char *)(img) + 40, size_ - 40) == 0 ||      \
              written_ != size_);                                                            \
    } while (0)

static void test_packed_and_u64_shapes(void) {
    static _Alignas(64) unsigned char one[1 << 16], many[1 << 16];
    static bool out_one[SHAPES_N], out_many[SHAPES_N];
    static uint64_t est_one[SHAPES_N], est_many[SHAPES_N];
    uint64_t size = 0;
    size_t n = 0;
    shapes_fill();

    /* Filters with a per-key "new" output: Bloom, split-block, counting. */
#define FILTER_SHAPES(fam, ...)                                                            \
    do {                                                                                         \
        n = (size_t)size;                                                                        \
        CHECK(n <= sizeof one);                                                                  \
        EXPECT(sketch_##fam##_init(one, n, __VA_ARGS__), SKETCH_OK);                             \
        EXPECT(sketch_##fam##_init(many, n, __VA_ARGS__), SKETCH_OK);                            \
        int same_ = 1;                                                                           \
        for (int i = 0; i < SHAPES_N; i++) {                                                     \
            same_ &= sketch_##fam##_add(one, n, SHAPE_KEY(i), &out_one[i]) == SKETCH_OK;         \
        }                                                                                        \
        EXPECT(sketch_##fam##_add_packed(many, n, SHAPE_DATA, out_many), SKETCH_OK);             \
        CHECK(memcmp(out_one, out_many, sizeof out_one) == 0);                                   \
        for (int i = 0; i < SHAPES_N; i++) {                                                     \
            same_ &= sketch_##fam##_add_u64(one, n, shapes.ints[i], &out_one[i]) == SKETCH_OK;   \
        }                                                                                        \
        EXPECT(sketch_##fam##_add_u64_batch(many, n, shapes.ints, SHAPES_N, out_many), SKETCH_OK); \
        CHECK(memcmp(out_one, out_many, sizeof out_one) == 0);                                   \
        CHECK(same_ && memcmp(one, many, n) == 0);                                               \
        for (int i = 0; i < SHAPES_N; i++) {                                                     \
            same_ &= sketch_##fam##_contains(one, n, SHAPE_KEY(i), &out_one[i]) == SKETCH_OK;    \
            same_ &= out_one[i];                                                                 \
        }                                                                                        \
        memset(out_many, 0, sizeof out_many);                                                    \
        EXPECT(sketch_##fam##_contains_packed(many, n, SHAPE_DATA, out_many), SKETCH_OK);        \
        CHECK(memcmp(out_one, out_many, sizeof out_one) == 0);                                   \
        memset(out_many, 0, sizeof out_many);                                                    \
        EXPECT(sketch_##fam##_contains_u64_batch(many, n, shapes.ints, SHAPES_N, out_many), SKETCH_OK); \
        CHECK(memcmp(out_one, out_many, sizeof out_one) == 0);                                   \
        CHECK(same_);                                                                            \
        CHECK_EXPORT_SIZES(fam, many, n, n);                                                     \
    } while (0)

    struct sketch_bloom_params bp;
    EXPECT(sketch_bloom_plan(1000, 0.01, &bp), SKETCH_OK);
    EXPECT(sketch_bloom_size(&bp, &size), SKETCH_OK);
    FILTER_SHAPES(bloom, &bp, 3);
    struct sketch_sbbf_params sp;
    EXPECT(sketch_sbbf_plan(1000, 0.01, &sp), SKETCH_OK);
    EXPECT(sketch_sbbf_size(&sp, &size), SKETCH_OK);
    FILTER_SHAPES(sbbf, &sp, 3);
    EXPECT(sketch_counting_size(&bp, &size), SKETCH_OK);
    FILTER_SHAPES(counting, &bp, 3);
    /* Counting removals: the same per-key results and counters. */
    {
        int same = 1;
        for (int i = 0; i < SHAPES_N; i += 2) {
            same &= sketch_counting_remove(one, n, SHAPE_KEY(i)) == SKETCH_OK;
        }
        for (int i = 0; i < SHAPES_N; i++) {
            sketch_status s = sketch_counting_remove_u64(one, n, shapes.ints[i]);
            same &= s == SKETCH_OK || s == SKETCH_NOT_PRESENT;
            out_one[i] = s == SKETCH_OK;
        }
        CHECK(same);
        static bool removed[SHAPES_N];
        static uint32_t half_offsets[SHAPES_N / 2 + 1];
        static char half_data[SHAPES_N * 12];
        uint32_t at = 0;
        for (int i = 0, j = 0; i < SHAPES_N; i += 2, j++) {
            half_offsets[j] = at;
            uint32_t l = shapes.offsets[i + 1] - shapes.offsets[i];
            memcpy(half_data + at, shapes.data + shapes.offsets[i], l);
            at += l;
        }
        half_offsets[SHAPES_N / 2] = at;
        EXPECT(sketch_counting_remove_packed(many, n, half_data, at, half_offsets, SHAPES_N / 2, removed), SKETCH_OK);
        for (int j = 0; j < SHAPES_N / 2; j++) same &= removed[j];
        EXPECT(sketch_counting_remove_u64_batch(many, n, shapes.ints, SHAPES_N, out_many), SKETCH_OK);
        CHECK(same && memcmp(out_one, out_many, sizeof out_one) == 0);
        CHECK(memcmp(one, many, n) == 0);
    }

    /* Cuckoo: per-key "added", then removals. */
    struct sketch_cuckoo_params cp;
    EXPECT(sketch_cuckoo_plan(1000, 0.01, &cp), SKETCH_OK);
    EXPECT(sketch_cuckoo_size(&cp, &size), SKETCH_OK);
    n = (size_t)size;
    CHECK(n <= sizeof one);
    EXPECT(sketch_cuckoo_init(one, n, &cp, 3), SKETCH_OK);
    EXPECT(sketch_cuckoo_init(many, n, &cp, 3), SKETCH_OK);
    {
        int same = 1;
        for (int i = 0; i < SHAPES_N; i++) same &= sketch_cuckoo_add(one, n, SHAPE_KEY(i)) == SKETCH_OK;
        for (int i = 0; i < SHAPES_N; i++) same &= sketch_cuckoo_add_u64(one, n, shapes.ints[i]) == SKETCH_OK;
        EXPECT(sketch_cuckoo_add_packed(many, n, SHAPE_DATA, out_many), SKETCH_OK);
        for (int i = 0; i < SHAPES_N; i++) same &= out_many[i];
        EXPECT(sketch_cuckoo_add_u64_batch(many, n, shapes.ints, SHAPES_N, out_many), SKETCH_OK);
        for (int i = 0; i < SHAPES_N; i++) same &= out_many[i];
        CHECK(same && memcmp(one, many, n) == 0);
        memset(out_many, 0, sizeof out_many);
        EXPECT(sketch_cuckoo_contains_packed(many, n, SHAPE_DATA, out_many), SKETCH_OK);
        for (int i = 0; i < SHAPES_N; i++) same &= out_many[i];
        memset(out_many, 0, sizeof out_many);
        EXPECT(sketch_cuckoo_contains_u64_batch(many, n, shapes.ints, SHAPES_N, out_many), SKETCH_OK);
        for (int i = 0; i < SHAPES_N; i++) same &= out_many[i];
        CHECK(same);
        CHECK_EXPORT_SIZES(cuckoo, many, n, n);
        for (int i = 0; i < SHAPES_N; i++) same &= sketch_cuckoo_remove(one, n, SHAPE_KEY(i)) == SKETCH_OK;
        EXPECT(sketch_cuckoo_remove_packed(many, n, SHAPE_DATA, out_many), SKETCH_OK);
        for (int i = 0; i < SHAPES_N; i++) same &= out_many[i];
        for (int i = 0; i < SHAPES_N; i++) same &= sketch_cuckoo_remove_u64(one, n, shapes.ints[i]) == SKETCH_OK;
        EXPECT(sketch_cuckoo_remove_u64_batch(many, n, shapes.ints, SHAPES_N, out_many), SKETCH_OK);
        for (int i = 0; i < SHAPES_N; i++) same &= out_many[i];
        /* Now absent: every removal reports false, nothing changes. */
        EXPECT(sketch_cuckoo_remove_hash_batch(many, n, shapes.ints, SHAPES_N, out_many), SKETCH_OK);
        for (int i = 0; i < SHAPES_N; i++) same &= !out_many[i];
        CHECK(same && memcmp(one, many, n) == 0);
    }

    /* Cardinality sketches and MinHash: no per-key output. */
#define COUNT_SHAPES(fam, single_tail, batch_tail, ...)                                                \
    do {                                                                                         \
        n = (size_t)size;                                                                        \
        CHECK(n <= sizeof one);                                                                  \
        EXPECT(sketch_##fam##_init(one, n, __VA_ARGS__), SKETCH_OK);                             \
        EXPECT(sketch_##fam##_init(many, n, __VA_ARGS__), SKETCH_OK);                            \
        int same_ = 1;                                                                           \
        for (int i = 0; i < SHAPES_N; i++) {                                                     \
            same_ &= sketch_##fam##_add(one, n, SHAPE_KEY(i) single_tail) == SKETCH_OK;          \
        }                                                                                        \
        for (int i = 0; i < SHAPES_N; i++) {                                                     \
            same_ &= sketch_##fam##_add_u64(one, n, shapes.ints[i] single_tail) == SKETCH_OK;    \
        }                                                                                        \
        EXPECT(sketch_##fam##_add_packed(many, n, SHAPE_DATA batch_tail), SKETCH_OK);            \
        EXPECT(sketch_##fam##_add_u64_batch(many, n, shapes.ints, SHAPES_N batch_tail), SKETCH_OK); \
        CHECK(same_ && memcmp(one, many, n) == 0);                                               \
    } while (0)
#define NO_TAIL
#define NULL_TAIL , NULL
#define ONE_TAIL , 1
    EXPECT(sketch_hll_size(10, &size), SKETCH_OK);
    COUNT_SHAPES(hll, NULL_TAIL, NO_TAIL, 10, 3);
    /* Still in small mode at 400 keys: the export is compact and grows on import. */
    CHECK_EXPORT_SIZES(hll, many, n, n);
    EXPECT(sketch_ull_size(10, &size), SKETCH_OK);
    COUNT_SHAPES(ull, NULL_TAIL, NO_TAIL, 10, 3);
    CHECK_EXPORT_SIZES(ull, many, n, n);
    struct sketch_ell_params ep = {2, 24, 8, 0};
    EXPECT(sketch_ell_size(&ep, &size), SKETCH_OK);
    COUNT_SHAPES(ell, NULL_TAIL, NO_TAIL, &ep, 3);
    CHECK_EXPORT_SIZES(ell, many, n, n);
    EXPECT(sketch_minhash_size(128, &size), SKETCH_OK);
    COUNT_SHAPES(minhash, NULL_TAIL, NO_TAIL, 128, 3);
    CHECK_EXPORT_SIZES(minhash, many, n, n);

    /* Weighted sketches: NULL weights are 1 each. */
    struct sketch_countmin_params mp;
    EXPECT(sketch_countmin_plan_size(256, 4, &mp), SKETCH_OK);
    EXPECT(sketch_countmin_size(&mp, &size), SKETCH_OK);
    COUNT_SHAPES(countmin, ONE_TAIL, NULL_TAIL, &mp, 3);
    memset(est_many, 0, sizeof est_many);
    EXPECT(sketch_countmin_estimate_packed(many, n, SHAPE_DATA, est_many), SKETCH_OK);
    {
        int same = 1;
        for (int i = 0; i < SHAPES_N; i++) {
            same &= sketch_countmin_estimate(one, n, SHAPE_KEY(i), &est_one[i]) == SKETCH_OK;
            same &= est_one[i] >= 1;
        }
        CHECK(same && memcmp(est_one, est_many, sizeof est_one) == 0);
        memset(est_many, 0, sizeof est_many);
        EXPECT(sketch_countmin_estimate_u64_batch(many, n, shapes.ints, SHAPES_N, est_many), SKETCH_OK);
        for (int i = 0; i < SHAPES_N; i++) {
            same &= sketch_countmin_estimate_u64(one, n, shapes.ints[i], &est_one[i]) == SKETCH_OK;
        }
        CHECK(same && memcmp(est_one, est_many, sizeof est_one) == 0);
    }
    CHECK_EXPORT_SIZES(countmin, many, n, n);
    EXPECT(sketch_topk_size(64, 16, &size), SKETCH_OK);
    COUNT_SHAPES(topk, ONE_TAIL, NULL_TAIL, 64, 16, 3);
    CHECK_EXPORT_SIZES(topk, many, n, n);

    /* Binary fuse: built from packed or integer keys, it answers as the batch queries. */
    {
        struct sketch_fuse_params fp;
        uint64_t scratch_size = 0;
        static unsigned char scratch[1 << 16];
        EXPECT(sketch_fuse_plan(SHAPES_N, 0.01, &fp), SKETCH_OK);
        EXPECT(sketch_fuse_size(&fp, &size), SKETCH_OK);
        EXPECT(sketch_fuse_scratch_size(&fp, &scratch_size), SKETCH_OK);
        n = (size_t)size;
        CHECK(n <= sizeof one && scratch_size <= sizeof scratch);
        EXPECT(sketch_fuse_build_packed(one, n, &fp, 3, SHAPE_DATA, scratch, sizeof scratch), SKETCH_OK);
        EXPECT(sketch_fuse_build_u64_batch(many, n, &fp, 3, shapes.ints, SHAPES_N, scratch, sizeof scratch), SKETCH_OK);
        int same = 1;
        memset(out_many, 0, sizeof out_many);
        EXPECT(sketch_fuse_contains_packed(one, n, SHAPE_DATA, out_many), SKETCH_OK);
        for (int i = 0; i < SHAPES_N; i++) same &= out_many[i];
        memset(out_many, 0, sizeof out_many);
        EXPECT(sketch_fuse_contains_u64_batch(many, n, shapes.ints, SHAPES_N, out_many), SKETCH_OK);
        for (int i = 0; i < SHAPES_N; i++) same &= out_many[i];
        CHECK(same);
        CHECK_EXPORT_SIZES(fuse, many, n, n);
    }

    /* The hash forms agree with the single hash. */
    {
        static uint64_t h_packed[SHAPES_N], h_ints[SHAPES_N];
        EXPECT(sketch_hash_packed(SHAPE_DATA, 5, h_packed), SKETCH_OK);
        EXPECT(sketch_hash_u64_batch(shapes.ints, SHAPES_N, 5, h_ints), SKETCH_OK);
        int same = 1;
        for (int i = 0; i < SHAPES_N; i++) {
            same &= h_packed[i] == sketch_hash(SHAPE_KEY(i), 5);
            same &= h_ints[i] == sketch_hash_u64(shapes.ints[i], 5);
        }
        CHECK(same);
    }
}

/* Limits and statuses the header now documents (they were undocumented):
 * a Parquet-mode filter needs seed 0; a bitset loaded from the image's own
 * blocks overlaps it; a Top-k image stays below 4 GiB; Count-Min keeps at
 * most 2^40 bytes of counters and plans within its width and depth; a
 * small-mode HyperLogLog merges into any precision; a concurrent estimate
 * of a small-mode HyperLogLog is SKETCH_SMALL_MODE, nothing written. */
static void test_documented_limits(void) {
    static _Alignas(64) unsigned char image[8192], other[8192];
    struct sketch_sbbf_params sp;
    struct sketch_countmin_params mp = {(uint64_t)1 << 32, 64, 32, 0, 0};
    uint64_t size = 0, small_size = 0;
    size_t len = 0;
    double estimate = -1.0;

    EXPECT(sketch_sbbf_plan_blocks(4, SKETCH_SBBF_PARQUET, &sp), SKETCH_OK);
    EXPECT(sketch_sbbf_size(&sp, &size), SKETCH_OK);
    CHECK(size <= sizeof image);
    len = (size_t)size;
    EXPECT(sketch_sbbf_init(image, len, &sp, 7), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_init(image, len, &sp, 0), SKETCH_OK);
    {
        const uint8_t *bits = NULL;
        size_t bits_len = 0;
        EXPECT(sketch_sbbf_bitset(image, len, &bits, &bits_len), SKETCH_OK);
        EXPECT(sketch_sbbf_load_parquet_bitset(image, len, bits, bits_len, &sp), SKETCH_OVERLAP);
        memcpy(other, bits, bits_len);
        EXPECT(sketch_sbbf_load_parquet_bitset(image, len, other, bits_len, &sp), SKETCH_OK);
    }

    EXPECT(sketch_topk_size(1u << 20, 4040, &size), SKETCH_OK);
    CHECK(size < ((uint64_t)1 << 32));
    EXPECT(sketch_topk_size(1u << 20, 4041, &size), SKETCH_INVALID_PARAMETER);

    EXPECT(sketch_countmin_size(&mp, &size), SKETCH_OK);
    mp.counter_bits = 64;
    EXPECT(sketch_countmin_size(&mp, &size), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_countmin_plan(6.4e-10, 0.01, &mp), SKETCH_OK);
    EXPECT(sketch_countmin_plan(6.2e-10, 0.01, &mp), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_countmin_plan(0.01, 1.7e-28, &mp), SKETCH_OK);
    CHECK(mp.depth == 64);
    EXPECT(sketch_countmin_plan(0.01, 1.5e-28, &mp), SKETCH_INVALID_PARAMETER);

    EXPECT(sketch_hll_size(12, &size), SKETCH_OK);
    EXPECT(sketch_hll_size(10, &small_size), SKETCH_OK);
    CHECK(size <= sizeof image && small_size <= sizeof other);
    EXPECT(sketch_hll_init(image, (size_t)size, 12, 1), SKETCH_OK);
    EXPECT(sketch_hll_init(other, (size_t)small_size, 10, 1), SKETCH_OK);
    for (uint64_t i = 0; i < 50; i++) EXPECT(sketch_hll_add_u64(other, (size_t)small_size, i, NULL), SKETCH_OK);
    EXPECT(sketch_hll_estimate_concurrent(other, (size_t)small_size, &estimate), SKETCH_SMALL_MODE);
    CHECK(estimate == -1.0);
    EXPECT(sketch_hll_merge(image, (size_t)size, other, (size_t)small_size), SKETCH_OK);
    EXPECT(sketch_hll_estimate(image, (size_t)size, &estimate), SKETCH_OK);
    CHECK(estimate > 49.0 && estimate < 51.0);
    EXPECT(sketch_hll_densify(other, (size_t)small_size), SKETCH_OK);
    EXPECT(sketch_hll_merge(image, (size_t)size, other, (size_t)small_size), SKETCH_INCOMPATIBLE);
}

/* Behaviours the header now documents, which Go's docs had found (the C
 * header was silent or said otherwise): a cuckoo key's 9th copy is full in
 * an empty filter; 32-bit Count-Min counters saturate below the truth; a
 * Top-k weight of 0 changes nothing, not even in a full sketch (it evicted
 * the smallest counter's key before), and integer keys need a maximum key
 * length of 8; a Parquet-mode filter's u64 forms are INT64
 * values; an image changed in place keeps its old checksum until sealed. */
static void test_documented_behaviours(void) {
    static _Alignas(64) unsigned char image[1 << 16], copy[1 << 16];
    uint64_t size = 0;
    size_t n = 0, written = 0;

    struct sketch_cuckoo_params cp;
    EXPECT(sketch_cuckoo_plan(5000, 0.01, &cp), SKETCH_OK);
    EXPECT(sketch_cuckoo_size(&cp, &size), SKETCH_OK);
    n = (size_t)size;
    CHECK(n <= sizeof image);
    EXPECT(sketch_cuckoo_init(image, n, &cp, 1), SKETCH_OK);
    for (int i = 0; i < 8; i++) EXPECT(sketch_cuckoo_add(image, n, "x", 1), SKETCH_OK);
    memcpy(copy, image, n);
    EXPECT(sketch_cuckoo_add(image, n, "x", 1), SKETCH_FULL);
    CHECK(memcmp(copy, image, n) == 0);

    struct sketch_countmin_params mp;
    uint64_t estimate = 0;
    EXPECT(sketch_countmin_plan_size(64, 2, &mp), SKETCH_OK);
    EXPECT(sketch_countmin_size(&mp, &size), SKETCH_OK);
    n = (size_t)size;
    EXPECT(sketch_countmin_init(image, n, &mp, 1), SKETCH_OK);
    EXPECT(sketch_countmin_add_u64(image, n, 5, (uint64_t)1 << 32), SKETCH_OK);
    EXPECT(sketch_countmin_estimate_u64(image, n, 5, &estimate), SKETCH_OK);
    CHECK(estimate == UINT32_MAX); /* below the true 2^32 */
    mp.counter_bits = 64;
    EXPECT(sketch_countmin_size(&mp, &size), SKETCH_OK);
    n = (size_t)size;
    EXPECT(sketch_countmin_init(image, n, &mp, 1), SKETCH_OK);
    EXPECT(sketch_countmin_add_u64(image, n, 5, (uint64_t)1 << 32), SKETCH_OK);
    EXPECT(sketch_countmin_estimate_u64(image, n, 5, &estimate), SKETCH_OK);
    CHECK(estimate == (uint64_t)1 << 32);

    struct sketch_topk_item items[4];
    EXPECT(sketch_topk_size(2, 8, &size), SKETCH_OK);
    n = (size_t)size;
    EXPECT(sketch_topk_init(image, n, 2, 8, 1), SKETCH_OK);
    EXPECT(sketch_topk_add(image, n, "a", 1, 5), SKETCH_OK);
    EXPECT(sketch_topk_add(image, n, "b", 1, 3), SKETCH_OK);
    memcpy(copy, image, n);
    EXPECT(sketch_topk_add(image, n, "c", 1, 0), SKETCH_OK);
    EXPECT(sketch_topk_add_u64(image, n, 9, 0), SKETCH_OK);
    CHECK(memcmp(copy, image, n) == 0);
    EXPECT(sketch_topk_list(image, n, items, 4, &written), SKETCH_OK);
    CHECK(written == 2 && items[1].key_len == 1 && items[1].key[0] == 'b' && items[1].count == 3);
    EXPECT(sketch_topk_size(2, 4, &size), SKETCH_OK);
    n = (size_t)size;
    EXPECT(sketch_topk_init(image, n, 2, 4, 1), SKETCH_OK);
    EXPECT(sketch_topk_add_u64(image, n, 7, 1), SKETCH_KEY_TOO_LONG);

    struct sketch_sbbf_params sp;
    bool found = true;
    EXPECT(sketch_sbbf_plan_parquet(1000, 0.01, &sp), SKETCH_OK);
    EXPECT(sketch_sbbf_size(&sp, &size), SKETCH_OK);
    n = (size_t)size;
    CHECK(n <= sizeof image);
    EXPECT(sketch_sbbf_init(image, n, &sp, 0), SKETCH_OK);
    EXPECT(sketch_sbbf_add_hash(image, n, sketch_parquet_hash_i32(42), NULL), SKETCH_OK); /* an INT32 writer */
    EXPECT(sketch_sbbf_contains_u64(image, n, 42, &found), SKETCH_OK);
    CHECK(!found);
    EXPECT(sketch_sbbf_contains_hash(image, n, sketch_parquet_hash_i32(42), &found), SKETCH_OK);
    CHECK(found);

    struct sketch_bloom_params bp;
    EXPECT(sketch_bloom_plan(100, 0.01, &bp), SKETCH_OK);
    EXPECT(sketch_bloom_size(&bp, &size), SKETCH_OK);
    n = (size_t)size;
    EXPECT(sketch_bloom_init(copy, n, &bp, 1), SKETCH_OK);
    EXPECT(sketch_bloom_export(copy, n, image, sizeof image, &written), SKETCH_OK);
    EXPECT(sketch_bloom_verify(image, written), SKETCH_OK);
    EXPECT(sketch_bloom_add(image, written, "k", 1, NULL), SKETCH_OK); /* in place */
    EXPECT(sketch_bloom_verify(image, written), SKETCH_CHECKSUM_MISMATCH);
    EXPECT(sketch_bloom_export(image, written, copy, sizeof copy, &written), SKETCH_OK);
    memcpy(image, copy, written);
    EXPECT(sketch_bloom_verify(image, written), SKETCH_OK);
}

/* The argument errors every batch form shares (the header's conventions
 * list them): misaligned arrays, NULL arrays with a count, counts beyond
 * the address space, bad packed offsets, outputs inside the image; the
 * image is unchanged after each. An empty batch still validates the image. */
static void test_batch_argument_errors(void) {
    static _Alignas(64) unsigned char image[4096], before[4096];
    static _Alignas(8) unsigned char raw[256];
    struct sketch_bloom_params bp;
    struct sketch_countmin_params mp;
    uint64_t size = 0;
    bool out[8];
    const uint32_t bad[3] = {0, 4, 2};

    EXPECT(sketch_bloom_plan(100, 0.01, &bp), SKETCH_OK);
    EXPECT(sketch_bloom_size(&bp, &size), SKETCH_OK);
    size_t n = (size_t)size;
    EXPECT(sketch_bloom_init(image, n, &bp, 1), SKETCH_OK);
    memcpy(before, image, n);
    EXPECT(sketch_bloom_add_u64_batch(image, n, (const uint64_t *)(void *)(raw + 1), 2, NULL), SKETCH_MISALIGNED);
    EXPECT(sketch_bloom_add_packed(image, n, raw, 8, (const uint32_t *)(void *)(raw + 1), 2, NULL), SKETCH_MISALIGNED);
    EXPECT(sketch_bloom_add_batch(image, n, (const sketch_slice *)(void *)(raw + 1), 2, NULL), SKETCH_MISALIGNED);
    EXPECT(sketch_bloom_add_u64_batch(image, n, NULL, 2, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_add_packed(image, n, NULL, 0, NULL, 1, out), SKETCH_NULL_POINTER);
    EXPECT(sketch_bloom_add_u64_batch(image, n, (const uint64_t *)(void *)raw, SIZE_MAX / 4, NULL), SKETCH_INVALID_ARGUMENT);
    EXPECT(sketch_bloom_add_packed(image, n, raw, 8, bad, SIZE_MAX, out), SKETCH_INVALID_ARGUMENT);
    EXPECT(sketch_bloom_add_packed(image, n, raw, 8, bad, 2, out), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_bloom_add_u64_batch(image, n, (const uint64_t *)(void *)raw, 2, (bool *)image + 100), SKETCH_OVERLAP);
    EXPECT(sketch_bloom_contains_u64_batch(image, n, (const uint64_t *)(void *)raw, 2, NULL), SKETCH_NULL_POINTER);
    CHECK(memcmp(before, image, n) == 0);
    EXPECT(sketch_bloom_add_u64_batch(NULL, 0, NULL, 0, NULL), SKETCH_BUFFER_TOO_SMALL);

    EXPECT(sketch_countmin_plan_size(64, 2, &mp), SKETCH_OK);
    EXPECT(sketch_countmin_size(&mp, &size), SKETCH_OK);
    n = (size_t)size;
    EXPECT(sketch_countmin_init(image, n, &mp, 1), SKETCH_OK);
    memcpy(before, image, n);
    /* Weights and results half their type's alignment off: 4 bytes where
     * uint64_t is 8-aligned (x86-64, ARM), 2 where it is 4-aligned (i386,
     * whose ABI makes a 4-aligned uint64_t array a valid one). */
    const size_t half = _Alignof(uint64_t) / 2;
    EXPECT(sketch_countmin_add_u64_batch(image, n, (const uint64_t *)(void *)raw, 2, (const uint64_t *)(void *)(raw + half)),
           SKETCH_MISALIGNED);
    EXPECT(sketch_countmin_estimate_u64_batch(image, n, (const uint64_t *)(void *)raw, 2,
                                              (uint64_t *)(void *)(raw + 64 + half)),
           SKETCH_MISALIGNED);
    CHECK(memcmp(before, image, n) == 0);
    EXPECT(sketch_countmin_add_u64_batch(NULL, 0, NULL, 0, NULL), SKETCH_BUFFER_TOO_SMALL);
}

/* A byte stream (file, socket) in memory: reads hand out what is left. */
struct byte_stream {
    const unsigned char *bytes;
    size_t len, at;
};

static size_t stream_take(struct byte_stream *s, void *into, size_t want) {
    size_t n = s->len - s->at < want ? s->len - s->at : want;
    memcpy(into, s->bytes + s->at, n);
    s->at += n;
    return n;
}

/* Reads one image the way the header tells a C reader to: 48 bytes,
 * sketch_image_inspect_header, then exactly the rest of image_bytes, bounded
 * by `limit`. Returns the status; on SKETCH_OK *image (malloc'ed, 64-byte
 * aligned) holds *len bytes and *family the family id. */
static sketch_status read_one_image(struct byte_stream *s, uint64_t limit, unsigned char **image, size_t *len,
                                    uint16_t *family) {
    unsigned char head[SKETCH_COMMON_HEADER_BYTES];
    if (stream_take(s, head, sizeof head) != sizeof head) return SKETCH_LENGTH_MISMATCH;
    struct sketch_image_info info;
    sketch_status st = sketch_image_inspect_header(head, sizeof head, &info);
    if (st != SKETCH_OK) return st;
    if (info.image_bytes > limit) return SKETCH_BUFFER_TOO_SMALL;
    size_t total = (size_t)info.image_bytes;
    unsigned char *buf = aligned_alloc(SKETCH_IMAGE_ALIGN, PAD64(total));
    if (buf == NULL) exit(2);
    memcpy(buf, head, sizeof head);
    if (stream_take(s, buf + sizeof head, total - sizeof head) != total - sizeof head) {
        free(buf);
        return SKETCH_LENGTH_MISMATCH;
    }
    *image = buf;
    *len = total;
    *family = info.family;
    return SKETCH_OK;
}

/* sketch_image_inspect_header: a stream reader learns an image's length and
 * family from its 48 header bytes alone (sketch_image_inspect refuses them:
 * the image is longer), reads exactly the rest and imports it; two images
 * back to back, one a compact small-mode HyperLogLog whose live image is
 * larger than its export. Damaged headers give inspect's errors. */
static void test_stream_reading(void) {
    struct sketch_bloom_params bp;
    uint64_t bloom_size = 0, hll_size = 0;
    EXPECT(sketch_bloom_plan(1000, 0.01, &bp), SKETCH_OK);
    EXPECT(sketch_bloom_size(&bp, &bloom_size), SKETCH_OK);
    EXPECT(sketch_hll_size(12, &hll_size), SKETCH_OK);
    unsigned char *bloom = alloc_image(bloom_size), *hll = alloc_image(hll_size);
    size_t bl = (size_t)bloom_size, hl = (size_t)hll_size;
    EXPECT(sketch_bloom_init(bloom, bl, &bp, 7), SKETCH_OK);
    EXPECT(sketch_hll_init(hll, hl, 12, 7), SKETCH_OK);
    bool was_new = false;
    for (uint64_t k = 0; k < 100; k++) {
        EXPECT(sketch_bloom_add_u64(bloom, bl, k, &was_new), SKETCH_OK);
        EXPECT(sketch_hll_add_u64(hll, hl, k, &was_new), SKETCH_OK);
    }
    size_t bloom_out = 0, hll_out = 0, written = 0;
    EXPECT(sketch_bloom_exported_size(bloom, bl, &bloom_out), SKETCH_OK);
    EXPECT(sketch_hll_exported_size(hll, hl, &hll_out), SKETCH_OK);
    CHECK(hll_out < hl); /* a small-mode export is compact */
    unsigned char *wire = malloc(bloom_out + hll_out + 1);
    if (wire == NULL) exit(2);
    EXPECT(sketch_bloom_export(bloom, bl, wire + 1, bloom_out, &written), SKETCH_OK);
    EXPECT(sketch_hll_export(hll, hl, wire + 1 + bloom_out, hll_out, &written), SKETCH_OK);

    /* The header alone: inspect refuses it, inspect_header reads it, even at
     * an odd address and from a longer buffer (only 48 bytes are read). */
    struct sketch_image_info info, whole;
    EXPECT(sketch_image_inspect(wire + 1, SKETCH_COMMON_HEADER_BYTES, &info), SKETCH_BUFFER_TOO_SMALL);
    memset(&info, 0xAB, sizeof info);
    EXPECT(sketch_image_inspect_header(wire + 1, SKETCH_COMMON_HEADER_BYTES, &info), SKETCH_OK);
    EXPECT(sketch_image_inspect(wire + 1, bloom_out, &whole), SKETCH_OK);
    CHECK(memcmp(&info, &whole, sizeof info) == 0);
    CHECK(info.family == SKETCH_FAMILY_BLOOM && info.image_bytes == bloom_out && info.seed == 7);
    EXPECT(sketch_image_inspect_header(wire + 1, bloom_out + hll_out, &info), SKETCH_OK);
    CHECK(info.image_bytes == bloom_out);

    /* Read both back in order, import each, and find the stream's end. */
    struct byte_stream s = {wire + 1, bloom_out + hll_out, 0};
    unsigned char *image = NULL;
    size_t len = 0, live = 0;
    uint16_t family = 0;
    bool maybe = false;
    EXPECT(read_one_image(&s, 1u << 20, &image, &len, &family), SKETCH_OK);
    CHECK(family == SKETCH_FAMILY_BLOOM && len == bloom_out);
    EXPECT(sketch_bloom_import_size(image, len, &live), SKETCH_OK);
    unsigned char *back = alloc_image(live);
    EXPECT(sketch_bloom_import(image, len, back, live), SKETCH_OK);
    EXPECT(sketch_bloom_contains_u64(back, live, 42, &maybe), SKETCH_OK);
    CHECK(maybe);
    free(back);
    free(image);
    EXPECT(read_one_image(&s, 1u << 20, &image, &len, &family), SKETCH_OK);
    CHECK(family == SKETCH_FAMILY_HYPERLOGLOG && len == hll_out);
    EXPECT(sketch_hll_import_size(image, len, &live), SKETCH_OK);
    CHECK(live == hl);
    back = alloc_image(live);
    EXPECT(sketch_hll_import(image, len, back, live), SKETCH_OK);
    double estimate = 0;
    EXPECT(sketch_hll_estimate(back, live, &estimate), SKETCH_OK);
    CHECK(estimate > 95 && estimate < 105);
    free(back);
    free(image);
    CHECK(s.at == s.len);
    EXPECT(read_one_image(&s, 1u << 20, &image, &len, &family), SKETCH_LENGTH_MISMATCH);

    /* A stream cut inside the second image, and a forged length a reader
     * bounds before allocating. */
    struct byte_stream cut = {wire + 1, bloom_out + hll_out - 8, 0};
    EXPECT(read_one_image(&cut, 1u << 20, &image, &len, &family), SKETCH_OK);
    free(image);
    EXPECT(read_one_image(&cut, 1u << 20, &image, &len, &family), SKETCH_LENGTH_MISMATCH);
    unsigned char head[SKETCH_COMMON_HEADER_BYTES];
    memcpy(head, wire + 1, sizeof head);
    uint64_t huge = UINT64_MAX - 7; /* a multiple of 8: a valid-looking length */
    memcpy(head + 24, &huge, sizeof huge); /* little-endian machines */
    EXPECT(sketch_image_inspect_header(head, sizeof head, &info), SKETCH_OK);
    CHECK(info.image_bytes == huge);
    struct byte_stream forged = {head, sizeof head, 0};
    EXPECT(read_one_image(&forged, 1u << 20, &image, &len, &family), SKETCH_BUFFER_TOO_SMALL);

    /* Damaged headers: the errors sketch_image_inspect gives, *out untouched. */
    struct {
        size_t at;
        unsigned char value;
        sketch_status want;
    } damage[] = {
        {0, 'X', SKETCH_BAD_MAGIC},
        {4, SKETCH_FORMAT_MAJOR + 1, SKETCH_UNSUPPORTED_VERSION},
        {6, 0xEE, SKETCH_CORRUPT_HEADER},  /* unknown family id */
        {8, 0xEE, SKETCH_UNSUPPORTED_HASH},
        {10, 52, SKETCH_CORRUPT_HEADER},   /* header length not a multiple of 8 */
        {24, 0x03, SKETCH_CORRUPT_HEADER}, /* image length not a multiple of 8 */
        {47, 1, SKETCH_CORRUPT_HEADER},    /* reserved */
    };
    for (size_t i = 0; i < sizeof damage / sizeof damage[0]; i++) {
        memcpy(head, wire + 1, sizeof head);
        head[damage[i].at] = damage[i].value;
        memset(&info, 0x5A, sizeof info);
        struct sketch_image_info untouched;
        memcpy(&untouched, &info, sizeof info);
        EXPECT(sketch_image_inspect_header(head, sizeof head, &info), damage[i].want);
        CHECK(memcmp(&info, &untouched, sizeof info) == 0);
    }
    EXPECT(sketch_image_inspect_header(wire + 1, SKETCH_COMMON_HEADER_BYTES - 1, &info), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_image_inspect_header(NULL, 0, &info), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_image_inspect_header(NULL, 48, &info), SKETCH_NULL_POINTER);
    EXPECT(sketch_image_inspect_header(wire + 1, 48, NULL), SKETCH_NULL_POINTER);
    unsigned char *aligned_wire = alloc_image(bloom_out);
    memcpy(aligned_wire, wire + 1, bloom_out);
    EXPECT(sketch_image_inspect_header(aligned_wire, bloom_out, (struct sketch_image_info *)(void *)(aligned_wire + 8)),
           SKETCH_OVERLAP);
    CHECK(memcmp(aligned_wire, wire + 1, bloom_out) == 0);
    free(aligned_wire);
    free(wire);
    free(bloom);
    free(hll);
}

int main(void) {
    test_status_and_version();
    test_hash();
    test_bloom_params();
    test_bloom();
    test_sbbf();
    test_counting();
    test_cuckoo();
    test_hll();
    test_ull();
    test_countmin();
    test_minhash();
    test_topk();
    test_corruption();
    test_misuse_gaps();
    test_export_output_overlaps();
    test_fold_output_overlaps();
    test_topk_list_output_overlaps();
    test_single_output_overlaps();
    test_parquet_interop();
    test_tokens();
    test_views();
    test_view_fast_paths();
    test_short_destinations();
    test_parquet_bitset_unreachable_rate();
    test_views_of_another_family();
    test_packed_and_u64_shapes();
    test_documented_limits();
    test_documented_behaviours();
    test_batch_argument_errors();
    test_stream_reading();
    printf("abi_test: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
