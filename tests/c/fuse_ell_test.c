/*
 * Exercises every function of the binary fuse filter (sketch_fuse_*) and
 * ExaLogLog (sketch_ell_*) C ABI through include/sketches.h: documented
 * statuses for NULL, short, misaligned and overlapping buffers, wrong
 * family, hostile parameters and reserved fields, and the functional
 * contract (no false negatives, measured false-positive rate, batch ==
 * single, the three batch shapes agree, retried builds and duplicates,
 * export/import round trip, damaged bytes refused with the destination
 * untouched, ELL estimates within a few standard errors, merge == one
 * sketch of both streams). Built with -Wall -Wextra -Werror and run under
 * ASan/UBSan and valgrind by tests/tests/c_abi.rs. Prints "N passed, N failed".
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

static int all_bytes(const unsigned char *p, size_t n, unsigned char v) {
    for (size_t i = 0; i < n; i++) {
        if (p[i] != v) return 0;
    }
    return 1;
}

/* N keys "k-<i>" in three shapes: sketch_slice array, packed (Arrow
   layout, with a non-zero first offset as in a sliced array) and integers. */
enum { N = 20000 };
static char storage[N][16];
static struct sketch_slice keys[N];
static unsigned char packed[N * 16 + 8];
static uint32_t offsets[N + 1];
static uint64_t ints[N];
static uint64_t hashes[N];
static bool results[N];

static void make_keys(uint64_t seed) {
    size_t used = 3;
    memcpy(packed, "pre", 3);
    offsets[0] = (uint32_t)used;
    for (int i = 0; i < N; i++) {
        int n = snprintf(storage[i], sizeof storage[i], "k-%d", i);
        keys[i].ptr = (const uint8_t *)storage[i];
        keys[i].len = (size_t)n;
        memcpy(packed + used, storage[i], (size_t)n);
        used += (size_t)n;
        offsets[i + 1] = (uint32_t)used;
        ints[i] = (uint64_t)i * 0x9E3779B97F4A7C15ULL;
        hashes[i] = sketch_hash(storage[i], (size_t)n, seed);
    }
}

static size_t count_true(const bool *r, size_t n) {
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += r[i];
    return c;
}

/* ------------------------------------------------------------------ */
/* Binary fuse filter                                                   */
/* ------------------------------------------------------------------ */

static void test_fuse_params(void) {
    struct sketch_fuse_params p;
    EXPECT(sketch_fuse_plan(1000, 0.01, &p), SKETCH_OK);
    CHECK(p.keys == 1000 && p.fingerprint_bits == 8 && p.reserved == 0);
    EXPECT(sketch_fuse_plan(1000, 0.001, &p), SKETCH_OK);
    CHECK(p.fingerprint_bits == 16);
    EXPECT(sketch_fuse_plan(1000, 1.0 / 256, &p), SKETCH_OK);
    CHECK(p.fingerprint_bits == 8);
    EXPECT(sketch_fuse_plan(0, 0.01, &p), SKETCH_OK); /* an empty set is a valid filter */
    const double bad_p[] = {0.0, 1.0, 1.5, -0.5, 1e-6, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad_p / sizeof bad_p[0]; i++) {
        EXPECT(sketch_fuse_plan(1000, bad_p[i], &p), SKETCH_INVALID_PARAMETER);
    }
    EXPECT(sketch_fuse_plan(SKETCH_FUSE_MAX_KEYS + 1, 0.01, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_fuse_plan(1000, 0.01, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_plan_bits(1000, 12, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_fuse_plan_bits(1000, 8 + 256, &p), SKETCH_INVALID_PARAMETER); /* no truncation to 8 */
    EXPECT(sketch_fuse_plan_bits(1000, 0, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_fuse_plan_bits(1000, 16, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_plan_bits(SKETCH_FUSE_MAX_KEYS, 16, &p), SKETCH_OK);
    uint64_t size = 0, scratch = 0;
    EXPECT(sketch_fuse_size(&p, &size), SKETCH_OK); /* the largest plan: about 4.8 GB */
    CHECK(size % 64 == 0 && size > (uint64_t)2 * SKETCH_FUSE_MAX_KEYS && size < (uint64_t)5 << 30);
    EXPECT(sketch_fuse_scratch_size(&p, &scratch), SKETCH_OK);
    CHECK(scratch > 16 * SKETCH_FUSE_MAX_KEYS);

    EXPECT(sketch_fuse_plan_bits(100000, 8, &p), SKETCH_OK);
    EXPECT(sketch_fuse_size(&p, &size), SKETCH_OK);
    CHECK(size % 64 == 0 && size > 100000 && size < 120000); /* ~9 bits per key */
    EXPECT(sketch_fuse_scratch_size(&p, &scratch), SKETCH_OK);
    CHECK(scratch > 25 * 100000 && scratch < 40 * 100000); /* ~32 bytes per key */
    EXPECT(sketch_fuse_size(NULL, &size), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_size(&p, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_scratch_size(NULL, &scratch), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_scratch_size(&p, NULL), SKETCH_NULL_POINTER);
    /* hostile and reserved fields */
    struct sketch_fuse_params bad = p;
    bad.reserved = 1;
    EXPECT(sketch_fuse_size(&bad, &size), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_fuse_scratch_size(&bad, &scratch), SKETCH_INVALID_PARAMETER);
    bad = p;
    bad.fingerprint_bits = 32;
    EXPECT(sketch_fuse_size(&bad, &size), SKETCH_INVALID_PARAMETER);
    bad = p;
    bad.keys = UINT64_MAX;
    EXPECT(sketch_fuse_size(&bad, &size), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_fuse_scratch_size(&bad, &scratch), SKETCH_INVALID_PARAMETER);
}

/* Builds `p` from the first n keys by slice batch; returns the image. */
static unsigned char *fuse_built(const struct sketch_fuse_params *p, uint64_t seed, size_t n, size_t *len) {
    uint64_t size = 0, scratch_size = 0;
    EXPECT(sketch_fuse_size(p, &size), SKETCH_OK);
    EXPECT(sketch_fuse_scratch_size(p, &scratch_size), SKETCH_OK);
    unsigned char *buf = alloc_image(size), *scratch = alloc_image(scratch_size);
    EXPECT(sketch_fuse_build_batch(buf, (size_t)size, p, seed, keys, n, scratch, (size_t)scratch_size), SKETCH_OK);
    free(scratch);
    *len = (size_t)size;
    return buf;
}

static void test_fuse_build(void) {
    struct sketch_fuse_params p;
    EXPECT(sketch_fuse_plan_bits(N, 8, &p), SKETCH_OK);
    uint64_t size = 0, scratch_size = 0;
    EXPECT(sketch_fuse_size(&p, &size), SKETCH_OK);
    EXPECT(sketch_fuse_scratch_size(&p, &scratch_size), SKETCH_OK);
    size_t len = (size_t)size, wl = (size_t)scratch_size;
    unsigned char *buf = alloc_image(size), *scratch = alloc_image(scratch_size);
    unsigned char *other = alloc_image(size), *third = alloc_image(size);

    /* NULL, short, misaligned, overlapping, too many keys: nothing written. */
    memset(buf, 0xEE, len);
    EXPECT(sketch_fuse_build_batch(NULL, len, &p, 1, keys, N, scratch, wl), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_build_batch(buf, len, NULL, 1, keys, N, scratch, wl), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_build_batch(buf, len, &p, 1, NULL, N, scratch, wl), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_build_batch(buf, len, &p, 1, keys, N, NULL, wl), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_build_batch(buf, len - 1, &p, 1, keys, N, scratch, wl), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_fuse_build_batch(buf, len, &p, 1, keys, N, scratch, wl - 1), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_fuse_build_batch(buf + 1, len, &p, 1, keys, N, scratch, wl), SKETCH_MISALIGNED);
    EXPECT(sketch_fuse_build_batch(buf, len, &p, 1, keys, N, buf + 64, wl), SKETCH_OVERLAP);
    struct sketch_fuse_params small;
    EXPECT(sketch_fuse_plan_bits(N - 1, 8, &small), SKETCH_OK);
    EXPECT(sketch_fuse_build_batch(buf, len, &small, 1, keys, N, scratch, wl), SKETCH_INVALID_ARGUMENT);
    struct sketch_fuse_params bad = p;
    bad.reserved = 7;
    EXPECT(sketch_fuse_build_batch(buf, len, &bad, 1, keys, N, scratch, wl), SKETCH_INVALID_PARAMETER);
    bad = p;
    bad.fingerprint_bits = 9;
    EXPECT(sketch_fuse_build_batch(buf, len, &bad, 1, keys, N, scratch, wl), SKETCH_INVALID_PARAMETER);
    struct sketch_slice bad_keys[3] = {{(const uint8_t *)"a", 1}, {NULL, 2}, {(const uint8_t *)"c", 1}};
    EXPECT(sketch_fuse_build_batch(buf, len, &p, 1, bad_keys, 3, scratch, wl), SKETCH_NULL_POINTER);
    /* a key whose bytes lie in the scratch */
    struct sketch_slice in_scratch[2] = {{(const uint8_t *)"a", 1}, {scratch + 100, 4}};
    EXPECT(sketch_fuse_build_batch(buf, len, &p, 1, in_scratch, 2, scratch, wl), SKETCH_OVERLAP);
    EXPECT(sketch_fuse_build_hash_batch(buf, len, &p, 1, (const uint64_t *)(void *)scratch, 10, scratch, wl),
           SKETCH_OVERLAP);
    EXPECT(sketch_fuse_build_hash_batch(buf, len, &p, 1, NULL, 5, scratch, wl), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_build_u64_batch(buf, len, &p, 1, NULL, 5, scratch, wl), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_build_u64_batch(buf, len, &p, 1, (const uint64_t *)(void *)(storage[0] + 1), 2, scratch, wl),
           SKETCH_MISALIGNED);
    EXPECT(sketch_fuse_build_packed(buf, len, &p, 1, packed, 10, offsets, N, scratch, wl), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_fuse_build_packed(buf, len, &p, 1, packed, sizeof packed, NULL, N, scratch, wl), SKETCH_NULL_POINTER);
    CHECK(all_bytes(buf, len, 0xEE)); /* every refused build wrote nothing */
    bool b = false;
    EXPECT(sketch_fuse_contains(buf, len, "k-1", 3, &b), SKETCH_BAD_MAGIC);

    /* The scratch needs no alignment. */
    EXPECT(sketch_fuse_build_batch(other, len, &p, 1, keys, N, scratch + 1, wl), SKETCH_OK);

    /* The four shapes: slices == packed; u64 == hashes of the integers. */
    EXPECT(sketch_fuse_build_batch(buf, len, &p, 1, keys, N, scratch, wl), SKETCH_OK);
    EXPECT(sketch_fuse_build_packed(other, len, &p, 1, packed, offsets[N], offsets, N, scratch, wl), SKETCH_OK);
    CHECK(memcmp(buf, other, len) == 0);
    EXPECT(sketch_fuse_build_packed(other, len, &p, 1, packed + 3, offsets[N] - 3, offsets, N, scratch, wl),
           SKETCH_INVALID_PARAMETER); /* offsets are relative to data */
    EXPECT(sketch_fuse_build_hash_batch(third, len, &p, 1, hashes, N, scratch, wl), SKETCH_OK);
    CHECK(memcmp(buf, third, len) == 0);
    static uint64_t int_hashes[N];
    for (int i = 0; i < N; i++) int_hashes[i] = sketch_hash_u64(ints[i], 1);
    EXPECT(sketch_fuse_build_u64_batch(other, len, &p, 1, ints, N, scratch, wl), SKETCH_OK);
    EXPECT(sketch_fuse_build_hash_batch(third, len, &p, 1, int_hashes, N, scratch, wl), SKETCH_OK);
    CHECK(memcmp(other, third, len) == 0);
    /* zero keys: NULL arrays with count 0 build an empty filter */
    EXPECT(sketch_fuse_build_batch(third, len, &p, 1, NULL, 0, scratch, wl), SKETCH_OK);
    EXPECT(sketch_fuse_build_packed(third, len, &p, 1, NULL, 0, NULL, 0, scratch, wl), SKETCH_OK);
    struct sketch_fuse_stats st;
    EXPECT(sketch_fuse_get_stats(third, len, &st), SKETCH_OK);
    CHECK(st.keys == 0 && isinf(st.bits_per_key));

    /* no false negatives, in every query shape; batch == single */
    EXPECT(sketch_fuse_contains_batch(buf, len, keys, N, results), SKETCH_OK);
    CHECK(count_true(results, N) == N);
    memset(results, 0, sizeof results);
    EXPECT(sketch_fuse_contains_packed(buf, len, packed, offsets[N], offsets, N, results), SKETCH_OK);
    CHECK(count_true(results, N) == N);
    memset(results, 0, sizeof results);
    EXPECT(sketch_fuse_contains_hash_batch(buf, len, hashes, N, results), SKETCH_OK);
    CHECK(count_true(results, N) == N);
    memset(results, 0, sizeof results);
    EXPECT(sketch_fuse_contains_u64_batch(other, len, ints, N, results), SKETCH_OK);
    CHECK(count_true(results, N) == N);
    int agree = 1;
    for (int i = 0; i < N; i += 7) {
        bool one = false, two = false, three = false;
        EXPECT(sketch_fuse_contains(buf, len, keys[i].ptr, keys[i].len, &one), SKETCH_OK);
        EXPECT(sketch_fuse_contains_hash(buf, len, hashes[i], &two), SKETCH_OK);
        EXPECT(sketch_fuse_contains_u64(other, len, ints[i], &three), SKETCH_OK);
        agree &= one && two && three;
    }
    CHECK(agree);
    /* absent keys: batch answers equal single answers, in every shape */
    for (int i = 0; i < N; i++) ints[i] += 1; /* now absent from `other` */
    EXPECT(sketch_fuse_contains_u64_batch(other, len, ints, N, results), SKETCH_OK);
    agree = 1;
    for (int i = 0; i < N; i++) {
        bool one = true;
        sketch_fuse_contains_u64(other, len, ints[i], &one);
        agree &= one == results[i];
    }
    CHECK(agree);
    CHECK(count_true(results, N) < N / 100); /* about N / 256 */
    for (int i = 0; i < N; i++) ints[i] -= 1;

    /* query statuses */
    EXPECT(sketch_fuse_contains(buf, len, "k-1", 3, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_contains(buf, len, NULL, 3, &b), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_contains(buf, len, NULL, 0, &b), SKETCH_OK); /* the empty key */
    EXPECT(sketch_fuse_contains(NULL, len, "k", 1, &b), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_contains(NULL, 0, "k", 1, &b), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_fuse_contains(buf + 1, len - 1, "k", 1, &b), SKETCH_MISALIGNED);
    EXPECT(sketch_fuse_contains(buf, len - 64, "k", 1, &b), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_fuse_contains(buf, 100, "k", 1, &b), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_fuse_contains_u64(buf, len, 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_contains_hash(buf, len, 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_contains_batch(buf, len, keys, N, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_contains_batch(buf, len, NULL, N, results), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_contains_batch(buf, len, NULL, 0, NULL), SKETCH_OK);
    EXPECT(sketch_fuse_contains_packed(buf, len, packed, offsets[N], offsets, N, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_contains_packed(buf, len, packed, offsets[N] - 1, offsets, N, results), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_fuse_contains_u64_batch(buf, len, NULL, 2, results), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_contains_hash_batch(buf, len, hashes, 2, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_get_stats(buf, len, NULL), SKETCH_NULL_POINTER);
    /* a seeded build hashes queries with its own seed */
    EXPECT(sketch_fuse_build_batch(other, len, &p, 2, keys, N, scratch, wl), SKETCH_OK);
    CHECK(memcmp(buf, other, len) != 0);
    EXPECT(sketch_fuse_contains(other, len, "k-5", 3, &b), SKETCH_OK);
    CHECK(b);

    /* stats */
    EXPECT(sketch_fuse_get_stats(buf, len, &st), SKETCH_OK);
    CHECK(st.params.keys == N && st.params.fingerprint_bits == 8 && st.params.reserved == 0);
    CHECK(st.keys == N && st.seed == 1 && st.image_bytes == len && st.reserved == 0);
    CHECK(st.attempts >= 1 && st.attempts <= SKETCH_FUSE_MAX_BUILD_ATTEMPTS);
    CHECK(st.bits_per_key > 8.0 && st.bits_per_key < 11.0 && st.image_bytes_per_key * 8 >= st.bits_per_key);
    CHECK(st.fpr == 1.0 / 256);

    /* duplicates are stored once; poorly spread hashes build through reseeding */
    static uint64_t dup[3 * 1000];
    for (int i = 0; i < 3000; i++) dup[i] = hashes[(i * 7) % 1000];
    EXPECT(sketch_fuse_build_hash_batch(third, len, &p, 1, dup, 3000, scratch, wl), SKETCH_OK);
    EXPECT(sketch_fuse_get_stats(third, len, &st), SKETCH_OK);
    CHECK(st.keys == 1000);
    EXPECT(sketch_fuse_contains_hash_batch(third, len, hashes, 1000, results), SKETCH_OK);
    CHECK(count_true(results, 1000) == 1000);
    static uint64_t sequential[N];
    for (int i = 0; i < N; i++) sequential[i] = (uint64_t)i; /* not uniformly distributed */
    EXPECT(sketch_fuse_build_hash_batch(third, len, &p, 1, sequential, N, scratch, wl), SKETCH_OK);
    EXPECT(sketch_fuse_get_stats(third, len, &st), SKETCH_OK);
    CHECK(st.attempts > 1 && st.fuse_seed != 0 && st.keys == N);
    EXPECT(sketch_fuse_contains_hash_batch(third, len, sequential, N, results), SKETCH_OK);
    CHECK(count_true(results, N) == N);

    /* wrong family both ways */
    uint64_t hll_size = 0;
    EXPECT(sketch_hll_size(10, &hll_size), SKETCH_OK);
    unsigned char *hll = alloc_image(hll_size);
    EXPECT(sketch_hll_init(hll, (size_t)hll_size, 10, 1), SKETCH_OK);
    EXPECT(sketch_fuse_contains(hll, (size_t)hll_size, "k", 1, &b), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_fuse_get_stats(hll, (size_t)hll_size, &st), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_bloom_contains(buf, len, "k", 1, &b), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_ell_add(buf, len, "k", 1, NULL), SKETCH_WRONG_FAMILY);
    struct sketch_image_info info;
    EXPECT(sketch_image_inspect(buf, len, &info), SKETCH_OK);
    CHECK(info.family == SKETCH_FAMILY_BINARY_FUSE && info.hash == SKETCH_HASH_XXH3 && info.seed == 1);
    CHECK(info.image_bytes == len);
    free(hll);
    free(buf);
    free(scratch);
    free(other);
    free(third);
}

/* Measured false-positive rates on absent keys against 2^-bits. */
static void test_fuse_fpr(void) {
    static uint64_t absent[1000000];
    static bool hits[1000000];
    const size_t queries = sizeof absent / sizeof absent[0];
    for (size_t i = 0; i < queries; i++) absent[i] = sketch_hash_u64(i + 12345678901ULL, 3);
    for (uint32_t bits = 8; bits <= 16; bits += 8) {
        struct sketch_fuse_params p;
        EXPECT(sketch_fuse_plan_bits(N, bits, &p), SKETCH_OK);
        size_t len = 0;
        unsigned char *buf = fuse_built(&p, 3, N, &len);
        EXPECT(sketch_fuse_contains_hash_batch(buf, len, absent, queries, hits), SKETCH_OK);
        double rate = (double)count_true(hits, queries) / (double)queries;
        double expected = ldexp(1.0, -(int)bits), sigma = sqrt(expected / (double)queries);
        CHECK(fabs(rate - expected) < 5 * sigma + 1e-6); /* 8 bits: 0.39% +- 0.03% */
        free(buf);
    }
}

static void test_fuse_export(void) {
    struct sketch_fuse_params p;
    EXPECT(sketch_fuse_plan_bits(5000, 16, &p), SKETCH_OK);
    size_t len = 0;
    unsigned char *buf = fuse_built(&p, 4, 5000, &len);
    unsigned char *out = alloc_image(len), *back = alloc_image(len);
    size_t need = 0, written = 0;
    EXPECT(sketch_fuse_exported_size(buf, len, &need), SKETCH_OK);
    CHECK(need == len);
    EXPECT(sketch_fuse_exported_size(buf, len, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_export(buf, len, out, len - 1, &written), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_fuse_export(buf, len, out, len, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_export(buf, len, buf + 8, len - 8, &written), SKETCH_OVERLAP);
    EXPECT(sketch_fuse_export(buf, len, out + 1, len, &written), SKETCH_OK); /* any alignment */
    EXPECT(sketch_fuse_verify(out + 1, written), SKETCH_OK);
    EXPECT(sketch_fuse_export(buf, len, out, len, &written), SKETCH_OK);
    CHECK(written == len);
    EXPECT(sketch_fuse_verify(out, written), SKETCH_OK);
    EXPECT(sketch_fuse_verify(NULL, written), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_verify(out, written - 64), SKETCH_LENGTH_MISMATCH);
    EXPECT(sketch_fuse_verify(out, written + 8), SKETCH_LENGTH_MISMATCH);
    EXPECT(sketch_ell_verify(out, written), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_cuckoo_verify(out, written), SKETCH_WRONG_FAMILY);
    /* an exported image is queried where it lies (8-byte aligned, as from mmap) */
    bool b = false;
    EXPECT(sketch_fuse_contains(out, written, "k-77", 4, &b), SKETCH_OK);
    CHECK(b);

    memset(back, 0xEE, len);
    out[len / 2] ^= 0x10; /* body damage */
    EXPECT(sketch_fuse_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    EXPECT(sketch_fuse_verify(out, written), SKETCH_CHECKSUM_MISMATCH);
    out[len / 2] ^= 0x10;
    out[60] ^= 1; /* family header: the planned key count no longer fits the shape */
    EXPECT(sketch_fuse_import(out, written, back, len), SKETCH_CORRUPT_HEADER);
    out[60] ^= 1;
    out[51] ^= 2; /* build attempts 1 -> 3: a consistent header, caught by the checksum */
    EXPECT(sketch_fuse_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    out[51] ^= 2;
    CHECK(all_bytes(back, len, 0xEE)); /* untouched */
    EXPECT(sketch_fuse_import(out, written - 8, back, len), SKETCH_LENGTH_MISMATCH);
    EXPECT(sketch_fuse_import(out, written, back + 1, len), SKETCH_MISALIGNED);
    EXPECT(sketch_fuse_import(out, written, back, len - 1), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_fuse_import(NULL, written, back, len), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_import(out, written, out, written), SKETCH_OVERLAP);
    CHECK(all_bytes(back, len, 0xEE));
    EXPECT(sketch_fuse_import(out, written, back, len), SKETCH_OK);
    CHECK(memcmp(out, back, len) == 0);
    EXPECT(sketch_fuse_contains_batch(back, len, keys, 5000, results), SKETCH_OK);
    CHECK(count_true(results, 5000) == 5000);
    out[4] = 9; /* newer major version */
    EXPECT(sketch_fuse_verify(out, written), SKETCH_UNSUPPORTED_VERSION);

    /* every truncation and every header bit flip is refused; dst untouched */
    out[4] = back[4];
    memset(back, 0xA5, len);
    int rejected = 0, total = 0;
    for (size_t cut = 0; cut < written; cut += 13, total++) {
        rejected += sketch_fuse_import(out, cut, back, len) != SKETCH_OK;
    }
    for (size_t bit = 0; bit < 128 * 8; bit++, total++) {
        out[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        rejected += sketch_fuse_import(out, written, back, len) != SKETCH_OK;
        (void)sketch_fuse_contains_u64(out, written, bit, &b); /* the zero-copy path must not crash */
        out[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    }
    CHECK(rejected == total);
    CHECK(all_bytes(back, len, 0xA5));
    free(buf);
    free(out);
    free(back);
}

/* ------------------------------------------------------------------ */
/* ExaLogLog                                                            */
/* ------------------------------------------------------------------ */

static void test_ell_params(void) {
    struct sketch_ell_params p;
    EXPECT(sketch_ell_plan(0.01, 20, &p), SKETCH_OK);
    CHECK(p.t == 2 && p.d == 20 && p.precision == 11 && p.reserved == 0); /* 0.362 / sqrt(2048) = 0.8% */
    EXPECT(sketch_ell_plan(0.01, 24, &p), SKETCH_OK);
    CHECK(p.d == 24 && p.precision == 11);
    EXPECT(sketch_ell_plan(0.01, 22, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_ell_plan(NAN, 20, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_ell_plan(0.0, 20, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_ell_plan(1.0, 20, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_ell_plan(1e-5, 20, &p), SKETCH_INVALID_PARAMETER); /* beyond p = 24 */
    EXPECT(sketch_ell_plan(0.01, 20, NULL), SKETCH_NULL_POINTER);

    uint64_t size = 0;
    struct sketch_ell_params d20 = {2, 20, 12, 0}, d24 = {2, 24, 12, 0};
    EXPECT(sketch_ell_size(&d20, &size), SKETCH_OK);
    CHECK(size == PAD64(128 + 28 * 4096 / 8));
    EXPECT(sketch_ell_size(&d24, &size), SKETCH_OK);
    CHECK(size == 128 + 4 * 4096);
    struct sketch_ell_params lo = {2, 20, SKETCH_ELL_MIN_PRECISION, 0}, hi = {2, 24, SKETCH_ELL_MAX_PRECISION, 0};
    EXPECT(sketch_ell_size(&lo, &size), SKETCH_OK);
    CHECK(size == 192);
    EXPECT(sketch_ell_size(&hi, &size), SKETCH_OK);
    CHECK(size == 128 + ((uint64_t)4 << 24));
    EXPECT(sketch_ell_size(NULL, &size), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_size(&d20, NULL), SKETCH_NULL_POINTER);
    const struct sketch_ell_params hostile[] = {
        {2, 20, 1, 0}, {2, 20, 25, 0}, {2, 20, 12 + 256, 0}, {1, 20, 12, 0}, {3, 24, 12, 0},
        {2, 21, 12, 0}, {2, 20 + 256, 12, 0}, {2 + 256, 20, 12, 0}, {2, 20, 12, 1}, {0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
        EXPECT(sketch_ell_size(&hostile[i], &size), SKETCH_INVALID_PARAMETER);
    }
}

static unsigned char *ell_new(const struct sketch_ell_params *p, uint64_t seed, size_t *len) {
    uint64_t size = 0;
    EXPECT(sketch_ell_size(p, &size), SKETCH_OK);
    unsigned char *buf = alloc_image(size);
    EXPECT(sketch_ell_init(buf, (size_t)size, p, seed), SKETCH_OK);
    *len = (size_t)size;
    return buf;
}

static void test_ell(void) {
    struct sketch_ell_params p = {2, 20, 12, 0};
    uint64_t size = 0;
    EXPECT(sketch_ell_size(&p, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *buf = alloc_image(size);
    memset(buf, 0xEE, len);
    EXPECT(sketch_ell_init(NULL, len, &p, 1), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_init(buf, len, NULL, 1), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_init(NULL, 0, &p, 1), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_ell_init(buf + 1, len, &p, 1), SKETCH_MISALIGNED);
    EXPECT(sketch_ell_init(buf, len - 1, &p, 1), SKETCH_BUFFER_TOO_SMALL);
    struct sketch_ell_params bad = p;
    bad.reserved = 3;
    EXPECT(sketch_ell_init(buf, len, &bad, 1), SKETCH_INVALID_PARAMETER);
    bad = p;
    bad.d = 22;
    EXPECT(sketch_ell_init(buf, len, &bad, 1), SKETCH_INVALID_PARAMETER);
    CHECK(all_bytes(buf, len, 0xEE));
    double est = -1;
    EXPECT(sketch_ell_estimate(buf, len, &est), SKETCH_BAD_MAGIC);
    EXPECT(sketch_ell_init(buf, len, &p, 1), SKETCH_OK);
    EXPECT(sketch_ell_estimate(buf, len, &est), SKETCH_OK);
    CHECK(est == 0.0);

    /* single adds */
    bool changed = false;
    EXPECT(sketch_ell_add(buf, len, "apple", 5, &changed), SKETCH_OK);
    CHECK(changed);
    EXPECT(sketch_ell_add(buf, len, "apple", 5, &changed), SKETCH_OK);
    CHECK(!changed);
    EXPECT(sketch_ell_add(buf, len, NULL, 0, NULL), SKETCH_OK); /* the empty key */
    EXPECT(sketch_ell_add(buf, len, NULL, 3, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_add(NULL, len, "x", 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_add(buf + 1, len - 1, "x", 1, NULL), SKETCH_MISALIGNED);
    EXPECT(sketch_ell_add(buf, 100, "x", 1, NULL), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_ell_add(buf, len - 64, "x", 1, NULL), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_ell_add_u64(buf, len, 42, &changed), SKETCH_OK);
    CHECK(changed);
    EXPECT(sketch_ell_add_u64(buf, len, 42, &changed), SKETCH_OK);
    CHECK(!changed);
    EXPECT(sketch_ell_add_hash(buf, len, sketch_hash("apple", 5, 1), &changed), SKETCH_OK);
    CHECK(!changed); /* the same hash as the key "apple" */
    EXPECT(sketch_ell_add_hash(NULL, 8, 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_add_u64(NULL, 8, 1, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_estimate(buf, len, &est), SKETCH_OK);
    CHECK(fabs(est - 3.0) < 0.1);
    EXPECT(sketch_ell_estimate(buf, len, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_ml_estimate(buf, len, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_martingale_estimate(buf, len, NULL), SKETCH_NULL_POINTER);

    /* the three batch shapes agree, and equal single adds */
    unsigned char *a = ell_new(&p, 1, &len), *b = ell_new(&p, 1, &len), *c = ell_new(&p, 1, &len);
    EXPECT(sketch_ell_add_batch(a, len, keys, N), SKETCH_OK);
    EXPECT(sketch_ell_add_packed(b, len, packed, offsets[N], offsets, N), SKETCH_OK);
    CHECK(memcmp(a, b, len) == 0);
    EXPECT(sketch_ell_add_hash_batch(c, len, hashes, N), SKETCH_OK);
    CHECK(memcmp(a, c, len) == 0);
    EXPECT(sketch_ell_init(b, len, &p, 1), SKETCH_OK);
    for (int i = 0; i < N; i++) EXPECT(sketch_ell_add(b, len, keys[i].ptr, keys[i].len, NULL), SKETCH_OK);
    CHECK(memcmp(a, b, len) == 0);
    EXPECT(sketch_ell_init(b, len, &p, 1), SKETCH_OK);
    EXPECT(sketch_ell_init(c, len, &p, 1), SKETCH_OK);
    EXPECT(sketch_ell_add_u64_batch(b, len, ints, N), SKETCH_OK);
    for (int i = 0; i < N; i++) EXPECT(sketch_ell_add_u64(c, len, ints[i], NULL), SKETCH_OK);
    CHECK(memcmp(b, c, len) == 0);
    /* bad batches change nothing */
    memcpy(c, a, len);
    struct sketch_slice bad_keys[3] = {{(const uint8_t *)"x", 1}, {NULL, 4}, {(const uint8_t *)"y", 1}};
    EXPECT(sketch_ell_add_batch(a, len, bad_keys, 3), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_add_batch(a, len, NULL, 3), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_add_packed(a, len, packed, offsets[N] - 1, offsets, N), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_ell_add_packed(a, len, packed, offsets[N], NULL, N), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_add_u64_batch(a, len, NULL, 2), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_add_hash_batch(a, len, NULL, 2), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_add_batch(a, len, NULL, 0), SKETCH_OK);
    EXPECT(sketch_ell_add_packed(a, len, NULL, 0, NULL, 0), SKETCH_OK);
    CHECK(memcmp(a, c, len) == 0);

    /* estimates within a few standard errors (20,000 distinct at p = 12) */
    struct sketch_ell_stats st;
    EXPECT(sketch_ell_get_stats(a, len, &st), SKETCH_OK);
    CHECK(st.params.t == 2 && st.params.d == 20 && st.params.precision == 12 && st.seed == 1);
    CHECK(st.martingale == 1 && st.image_bytes == len && st.reserved == 0);
    CHECK(st.registers_set > 4000 && st.registers_set <= 4096);
    CHECK(fabs(st.standard_error - 0.3177 / 64) < 1e-4);
    double mart = 0, ml = 0;
    EXPECT(sketch_ell_estimate(a, len, &est), SKETCH_OK);
    EXPECT(sketch_ell_martingale_estimate(a, len, &mart), SKETCH_OK);
    EXPECT(sketch_ell_ml_estimate(a, len, &ml), SKETCH_OK);
    CHECK(est == mart && est == st.estimate);
    CHECK(fabs(mart / N - 1) < 4 * 0.3177 / 64);
    CHECK(fabs(ml / N - 1) < 4 * 0.3622 / 64);
    EXPECT(sketch_ell_get_stats(a, len, NULL), SKETCH_NULL_POINTER);

    /* merge == one sketch of both streams; the merged sketch reports ML */
    unsigned char *all = ell_new(&p, 1, &len);
    EXPECT(sketch_ell_init(a, len, &p, 1), SKETCH_OK);
    EXPECT(sketch_ell_init(b, len, &p, 1), SKETCH_OK);
    EXPECT(sketch_ell_add_batch(a, len, keys, N / 2), SKETCH_OK);
    EXPECT(sketch_ell_add_batch(b, len, keys + N / 3, N - N / 3), SKETCH_OK); /* overlapping streams */
    EXPECT(sketch_ell_add_batch(all, len, keys, N), SKETCH_OK);
    EXPECT(sketch_ell_merge(a, len, b, len), SKETCH_OK);
    CHECK(memcmp(a + 128, all + 128, len - 128) == 0);
    EXPECT(sketch_ell_get_stats(a, len, &st), SKETCH_OK);
    CHECK(st.martingale == 0 && fabs(st.standard_error - 0.3622 / 64) < 1e-4);
    EXPECT(sketch_ell_martingale_estimate(a, len, &mart), SKETCH_OK);
    CHECK(isnan(mart));
    EXPECT(sketch_ell_estimate(a, len, &est), SKETCH_OK);
    EXPECT(sketch_ell_ml_estimate(all, len, &ml), SKETCH_OK);
    CHECK(est == ml);
    EXPECT(sketch_ell_merge(a, len, a, len), SKETCH_OVERLAP);
    EXPECT(sketch_ell_merge(a, len, NULL, len), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_merge(a, len, b, len - 64), SKETCH_BUFFER_TOO_SMALL);
    memcpy(c, a, len);
    unsigned char *seed2 = ell_new(&p, 2, &len);
    EXPECT(sketch_ell_merge(a, len, seed2, len), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(a, c, len) == 0);
    free(seed2);

    /* across parameters: d = 24, p = 12 into d = 20, p = 10 equals the direct
       sketch; the reverse is refused; downsize gives the same registers */
    struct sketch_ell_params big = {2, 24, 12, 0}, low = {2, 20, 10, 0};
    size_t big_len = 0, low_len = 0;
    unsigned char *src = ell_new(&big, 1, &big_len), *dst = ell_new(&low, 1, &low_len);
    unsigned char *direct = ell_new(&low, 1, &low_len), *down = alloc_image(low_len);
    EXPECT(sketch_ell_add_batch(src, big_len, keys, N), SKETCH_OK);
    EXPECT(sketch_ell_add_batch(direct, low_len, keys, N), SKETCH_OK);
    EXPECT(sketch_ell_merge(dst, low_len, src, big_len), SKETCH_OK);
    CHECK(memcmp(dst + 128, direct + 128, low_len - 128) == 0);
    EXPECT(sketch_ell_merge(src, big_len, dst, low_len), SKETCH_INCOMPATIBLE);
    memset(down, 0xEE, low_len);
    EXPECT(sketch_ell_downsize(src, big_len, down, low_len, &big), SKETCH_BUFFER_TOO_SMALL); /* a copy: too big */
    CHECK(all_bytes(down, low_len, 0xEE));
    EXPECT(sketch_ell_downsize(dst, low_len, down, low_len, &big), SKETCH_INCOMPATIBLE); /* above src */
    EXPECT(sketch_ell_downsize(src, big_len, down, low_len - 64, &low), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_ell_downsize(src, big_len, down + 1, low_len, &low), SKETCH_MISALIGNED);
    EXPECT(sketch_ell_downsize(src, big_len, down, low_len, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_downsize(src, big_len, src, big_len, &low), SKETCH_OVERLAP);
    struct sketch_ell_params bad_low = low;
    bad_low.reserved = 1;
    EXPECT(sketch_ell_downsize(src, big_len, down, low_len, &bad_low), SKETCH_INVALID_PARAMETER);
    CHECK(all_bytes(down, low_len, 0xEE));
    EXPECT(sketch_ell_downsize(src, big_len, down, low_len, &low), SKETCH_OK);
    CHECK(memcmp(down + 128, direct + 128, low_len - 128) == 0);
    EXPECT(sketch_ell_get_stats(down, low_len, &st), SKETCH_OK);
    CHECK(st.params.d == 20 && st.params.precision == 10 && st.seed == 1 && st.martingale == 0);
    EXPECT(sketch_ell_estimate(down, low_len, &est), SKETCH_OK);
    CHECK(fabs(est / N - 1) < 4 * 0.3622 / 32);

    /* reset, wrong family */
    EXPECT(sketch_ell_reset(down, low_len), SKETCH_OK);
    EXPECT(sketch_ell_get_stats(down, low_len, &st), SKETCH_OK);
    CHECK(st.estimate == 0.0 && st.martingale == 1 && st.registers_set == 0);
    EXPECT(sketch_ell_reset(NULL, 8), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_reset(down, 8), SKETCH_BUFFER_TOO_SMALL);
    bool present = false;
    EXPECT(sketch_hll_add(down, low_len, "x", 1, NULL), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_fuse_contains(down, low_len, "x", 1, &present), SKETCH_WRONG_FAMILY);
    uint64_t ull_size = 0;
    EXPECT(sketch_ull_size(10, &ull_size), SKETCH_OK);
    unsigned char *ull = alloc_image(ull_size);
    EXPECT(sketch_ull_init(ull, (size_t)ull_size, 10, 1), SKETCH_OK);
    EXPECT(sketch_ell_merge(down, low_len, ull, (size_t)ull_size), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_ell_estimate(ull, (size_t)ull_size, &est), SKETCH_WRONG_FAMILY);
    struct sketch_image_info info;
    EXPECT(sketch_image_inspect(src, big_len, &info), SKETCH_OK);
    CHECK(info.family == SKETCH_FAMILY_EXALOGLOG && info.seed == 1 && info.image_bytes == big_len);
    free(ull);
    free(src);
    free(dst);
    free(direct);
    free(down);
    free(all);
    free(a);
    free(b);
    free(c);
    free(buf);
}

static void test_ell_export(void) {
    struct sketch_ell_params p = {2, 24, 10, 0};
    size_t len = 0;
    unsigned char *buf = ell_new(&p, 5, &len), *out = alloc_image(len), *back = alloc_image(len);
    EXPECT(sketch_ell_add_batch(buf, len, keys, 5000), SKETCH_OK);
    size_t need = 0, written = 0;
    EXPECT(sketch_ell_exported_size(buf, len, &need), SKETCH_OK);
    CHECK(need == len);
    EXPECT(sketch_ell_exported_size(buf, len, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_export(buf, len, out, len - 1, &written), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_ell_export(buf, len, out, len, NULL), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_export(buf, len, buf + 8, len - 8, &written), SKETCH_OVERLAP);
    EXPECT(sketch_ell_export(buf, len, out, len, &written), SKETCH_OK);
    CHECK(written == len);
    EXPECT(sketch_ell_verify(out, written), SKETCH_OK);
    EXPECT(sketch_ell_verify(out, written - 1), SKETCH_LENGTH_MISMATCH);
    EXPECT(sketch_ell_verify(out, written + 8), SKETCH_LENGTH_MISMATCH);
    EXPECT(sketch_ell_verify(NULL, 4), SKETCH_NULL_POINTER);
    EXPECT(sketch_fuse_verify(out, written), SKETCH_WRONG_FAMILY);
    EXPECT(sketch_ull_verify(out, written), SKETCH_WRONG_FAMILY);
    memset(back, 0xEE, len);
    out[len - 100] ^= 0x40; /* register damage */
    EXPECT(sketch_ell_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    EXPECT(sketch_ell_verify(out, written), SKETCH_CHECKSUM_MISMATCH);
    out[len - 100] ^= 0x40;
    out[51] ^= 1; /* the martingale flag */
    EXPECT(sketch_ell_import(out, written, back, len), SKETCH_CHECKSUM_MISMATCH);
    out[51] ^= 1;
    EXPECT(sketch_ell_import(out, written, back + 1, len), SKETCH_MISALIGNED);
    EXPECT(sketch_ell_import(out, written, back, len - 1), SKETCH_BUFFER_TOO_SMALL);
    EXPECT(sketch_ell_import(NULL, written, back, len), SKETCH_NULL_POINTER);
    EXPECT(sketch_ell_import(out, written, out, written), SKETCH_OVERLAP);
    CHECK(all_bytes(back, len, 0xEE));
    EXPECT(sketch_ell_import(out, written, back, len), SKETCH_OK);
    CHECK(memcmp(out, back, len) == 0);
    double e1 = 0, e2 = 0;
    EXPECT(sketch_ell_estimate(buf, len, &e1), SKETCH_OK);
    EXPECT(sketch_ell_estimate(back, len, &e2), SKETCH_OK);
    CHECK(e1 == e2); /* the martingale state travels with the image */
    /* the imported sketch keeps counting exactly like the original */
    EXPECT(sketch_ell_add_batch(buf, len, keys + 5000, 1000), SKETCH_OK);
    EXPECT(sketch_ell_add_batch(back, len, keys + 5000, 1000), SKETCH_OK);
    CHECK(memcmp(buf + 40, back + 40, len - 40) == 0); /* all but the checksum field */
    out[4] = 9;
    EXPECT(sketch_ell_verify(out, written), SKETCH_UNSUPPORTED_VERSION);
    out[4] = back[4];

    memset(back, 0xA5, len);
    int rejected = 0, total = 0;
    for (size_t cut = 0; cut < written; cut += 7, total++) {
        rejected += sketch_ell_import(out, cut, back, len) != SKETCH_OK;
    }
    for (size_t bit = 0; bit < 128 * 8; bit++, total++) {
        out[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        rejected += sketch_ell_import(out, written, back, len) != SKETCH_OK;
        double e;
        (void)sketch_ell_estimate(out, written, &e); /* the zero-copy path must not crash */
        out[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    }
    CHECK(rejected == total);
    CHECK(all_bytes(back, len, 0xA5));
    free(buf);
    free(out);
    free(back);
}

int main(void) {
    make_keys(1);
    test_fuse_params();
    test_fuse_build();
    test_fuse_fpr();
    test_fuse_export();
    test_ell_params();
    test_ell();
    test_ell_export();
    printf("fuse_ell_test: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
