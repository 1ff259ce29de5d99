/*
 * The documentation's behavioural promises, one check per sentence: the
 * limits (largest sizes, key lengths, precisions), "nothing changes" on a
 * refused call (the image compared byte for byte), "outputs written only on
 * success" (an output pre-filled with a sentinel stays so), merge
 * compatibility rules, saturation, and what the README's family table
 * promises. Each group names where the promise is written. Built with
 * -Wall -Wextra -Werror and run under ASan/UBSan by tests/tests/c_abi.rs.
 * Prints "N passed, N failed".
 */
#include "sketches.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* A zeroed 64-byte aligned buffer of at least `bytes` bytes. */
static unsigned char *alloc_image(uint64_t bytes) {
    size_t rounded = ((size_t)bytes + 64 + 63) / 64 * 64;
    void *p = aligned_alloc(64, rounded);
    if (p == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memset(p, 0, rounded);
    return p;
}

/* A copy of `len` bytes, to compare the image with after a refused call. */
static unsigned char *snapshot(const unsigned char *buf, size_t len) {
    unsigned char *copy = malloc(len);
    if (copy == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    memcpy(copy, buf, len);
    return copy;
}

#define SENTINEL_U64 0xA5A5A5A5A5A5A5A5ULL

/* README "Top-k": capacity and maximum key length fixed at init (1 ..= 2^20
 * counters, keys 1 ..= 4096 bytes); a longer key is refused with
 * SKETCH_KEY_TOO_LONG (never truncated) and nothing changes; merge needs the
 * same capacity, maximum key length and seed, and changes nothing when
 * refused. */
static void test_topk_claims(void) {
    uint64_t size = SENTINEL_U64;
    EXPECT(sketch_topk_size(1u << 20, 16, &size), SKETCH_OK);
    size = SENTINEL_U64;
    EXPECT(sketch_topk_size((1u << 20) + 1, 16, &size), SKETCH_INVALID_PARAMETER);
    CHECK(size == SENTINEL_U64); /* outputs only on success */
    EXPECT(sketch_topk_size(4, 4096, &size), SKETCH_OK);
    size = SENTINEL_U64;
    EXPECT(sketch_topk_size(4, 4097, &size), SKETCH_INVALID_PARAMETER);
    CHECK(size == SENTINEL_U64);

    EXPECT(sketch_topk_size(4, 8, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *a = alloc_image(size), *b = alloc_image(size);
    EXPECT(sketch_topk_init(a, len, 4, 8, 1), SKETCH_OK);
    EXPECT(sketch_topk_add(a, len, "one", 3, 5), SKETCH_OK);
    EXPECT(sketch_topk_add(a, len, "two", 3, 2), SKETCH_OK);
    unsigned char *before = snapshot(a, len);

    /* the longest key is kept whole, one byte more is refused */
    EXPECT(sketch_topk_add(a, len, "12345678", 8, 1), SKETCH_OK);
    struct sketch_topk_key_estimate est;
    EXPECT(sketch_topk_estimate(a, len, "12345678", 8, &est), SKETCH_OK);
    CHECK(est.count == 1 && est.listed);
    EXPECT(sketch_topk_estimate(a, len, "1234567", 7, &est), SKETCH_OK);
    CHECK(est.count == 0 && !est.listed); /* not stored as a truncated prefix */
    memcpy(before, a, len);
    EXPECT(sketch_topk_add(a, len, "123456789", 9, 1), SKETCH_KEY_TOO_LONG);
    CHECK(memcmp(before, a, len) == 0);
    est.count = SENTINEL_U64;
    EXPECT(sketch_topk_estimate(a, len, "123456789", 9, &est), SKETCH_KEY_TOO_LONG);
    CHECK(est.count == SENTINEL_U64);

    /* packed and integer batches: a too-long key refuses the whole batch */
    const char data[] = "okfar-too-long-key";
    const uint32_t offsets[3] = {0, 2, 18};
    EXPECT(sketch_topk_add_packed(a, len, data, 18, offsets, 2, NULL), SKETCH_KEY_TOO_LONG);
    CHECK(memcmp(before, a, len) == 0);
    unsigned char *small = alloc_image(size);
    uint64_t small_size = 0;
    EXPECT(sketch_topk_size(4, 7, &small_size), SKETCH_OK);
    EXPECT(sketch_topk_init(small, (size_t)small_size, 4, 7, 1), SKETCH_OK);
    unsigned char *small_before = snapshot(small, (size_t)small_size);
    const uint64_t ints[2] = {1, 2};
    EXPECT(sketch_topk_add_u64_batch(small, (size_t)small_size, ints, 2, NULL), SKETCH_KEY_TOO_LONG);
    CHECK(memcmp(small_before, small, (size_t)small_size) == 0);
    free(small_before);
    free(small);

    /* a weight of 0 in a full sketch takes no counter and evicts no key */
    EXPECT(sketch_topk_add(a, len, "three", 5, 1), SKETCH_OK);
    struct sketch_topk_stats st;
    EXPECT(sketch_topk_get_stats(a, len, &st), SKETCH_OK);
    CHECK(st.used == 4);
    memcpy(before, a, len);
    EXPECT(sketch_topk_add(a, len, "newcomer", 8, 0), SKETCH_OK);
    CHECK(memcmp(before, a, len) == 0);

    /* list: at most `capacity` items written, the rest untouched; on error
     * `*written` untouched */
    struct sketch_topk_item items[3];
    memset(items, 0xA5, sizeof items);
    size_t written = 99;
    EXPECT(sketch_topk_list(a, len, items, 2, &written), SKETCH_OK);
    CHECK(written == 2 && items[0].count >= items[1].count);
    unsigned char sentinel_item[sizeof items[2]];
    memset(sentinel_item, 0xA5, sizeof sentinel_item);
    CHECK(memcmp(&items[2], sentinel_item, sizeof sentinel_item) == 0);
    written = 99;
    EXPECT(sketch_topk_list(a, 7, items, 2, &written), SKETCH_BUFFER_TOO_SMALL);
    CHECK(written == 99);

    /* merge compatibility: capacity, maximum key length and seed */
    memcpy(before, a, len);
    uint64_t other_size = 0;
    EXPECT(sketch_topk_size(5, 8, &other_size), SKETCH_OK);
    unsigned char *other = alloc_image(other_size);
    EXPECT(sketch_topk_init(other, (size_t)other_size, 5, 8, 1), SKETCH_OK);
    EXPECT(sketch_topk_add(other, (size_t)other_size, "one", 3, 1), SKETCH_OK);
    EXPECT(sketch_topk_merge(a, len, other, (size_t)other_size), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    free(other);
    EXPECT(sketch_topk_size(4, 9, &other_size), SKETCH_OK);
    other = alloc_image(other_size);
    EXPECT(sketch_topk_init(other, (size_t)other_size, 4, 9, 1), SKETCH_OK);
    EXPECT(sketch_topk_add(other, (size_t)other_size, "one", 3, 1), SKETCH_OK);
    EXPECT(sketch_topk_merge(a, len, other, (size_t)other_size), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    free(other);
    EXPECT(sketch_topk_init(b, len, 4, 8, 2), SKETCH_OK);
    EXPECT(sketch_topk_add(b, len, "one", 3, 1), SKETCH_OK);
    EXPECT(sketch_topk_merge(a, len, b, len), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);

    /* mergeable keeping both guarantees: a key above N/c stays listed and
     * its count overestimates by at most N/c */
    EXPECT(sketch_topk_init(b, len, 4, 8, 1), SKETCH_OK);
    EXPECT(sketch_topk_add(b, len, "one", 3, 100), SKETCH_OK);
    EXPECT(sketch_topk_merge(a, len, b, len), SKETCH_OK);
    EXPECT(sketch_topk_get_stats(a, len, &st), SKETCH_OK);
    EXPECT(sketch_topk_estimate(a, len, "one", 3, &est), SKETCH_OK);
    CHECK(est.listed && est.count >= 105 && est.count - 105 <= st.total / 4);
    free(before);
    free(a);
    free(b);
}

/* README "Binary fuse": up to 2^31 keys; "params.keys" counts keys passed,
 * duplicates included; duplicates stored once; a plan out of range writes
 * nothing. */
static void test_fuse_claims(void) {
    struct sketch_fuse_params p;
    EXPECT(sketch_fuse_plan(SKETCH_FUSE_MAX_KEYS, 0.01, &p), SKETCH_OK);
    CHECK(p.keys == SKETCH_FUSE_MAX_KEYS);
    memset(&p, 0xA5, sizeof p);
    EXPECT(sketch_fuse_plan(SKETCH_FUSE_MAX_KEYS + 1, 0.01, &p), SKETCH_INVALID_PARAMETER);
    CHECK(p.keys == SENTINEL_U64);
    EXPECT(sketch_fuse_plan_bits(SKETCH_FUSE_MAX_KEYS + 1, 8, &p), SKETCH_INVALID_PARAMETER);
    CHECK(p.keys == SENTINEL_U64);

    /* 3 distinct keys passed 6 times against a plan for 4: refused (the
     * plan counts keys passed, duplicates included), and buf untouched */
    EXPECT(sketch_fuse_plan_bits(4, 8, &p), SKETCH_OK);
    uint64_t size = 0, scratch_size = 0;
    EXPECT(sketch_fuse_size(&p, &size), SKETCH_OK);
    EXPECT(sketch_fuse_scratch_size(&p, &scratch_size), SKETCH_OK);
    unsigned char *buf = alloc_image(size), *scratch = alloc_image(scratch_size);
    memset(buf, 0xEE, (size_t)size);
    const uint64_t six[6] = {11, 22, 33, 11, 22, 33};
    EXPECT(sketch_fuse_build_u64_batch(buf, (size_t)size, &p, 1, six, 6, scratch, (size_t)scratch_size),
           SKETCH_INVALID_ARGUMENT);
    CHECK(buf[0] == 0xEE && buf[size - 1] == 0xEE);
    EXPECT(sketch_fuse_build_u64_batch(buf, (size_t)size, &p, 1, six, 4, scratch, (size_t)scratch_size), SKETCH_OK);
    struct sketch_fuse_stats st;
    EXPECT(sketch_fuse_get_stats(buf, (size_t)size, &st), SKETCH_OK);
    CHECK(st.keys == 3); /* duplicates stored once */
    bool out = false;
    for (int i = 0; i < 3; i++) {
        EXPECT(sketch_fuse_contains_u64(buf, (size_t)size, six[i], &out), SKETCH_OK);
        CHECK(out);
    }
    free(buf);
    free(scratch);
}

/* README "Cuckoo": a full insert returns SKETCH_FULL and leaves the image
 * byte-identical; a key's 9th copy is SKETCH_FULL even in an almost empty
 * filter; count is 0..=8; remove of an absent key is SKETCH_NOT_PRESENT and
 * changes nothing; merge is all or nothing (SKETCH_FULL: dst unchanged;
 * SKETCH_INCOMPATIBLE: nothing changes). */
static void test_cuckoo_claims(void) {
    struct sketch_cuckoo_params p;
    EXPECT(sketch_cuckoo_plan_buckets(1024, 16, &p), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_cuckoo_size(&p, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *a = alloc_image(size), *b = alloc_image(size), *scratch = alloc_image(size);
    EXPECT(sketch_cuckoo_init(a, len, &p, 3), SKETCH_OK);
    EXPECT(sketch_cuckoo_init(b, len, &p, 3), SKETCH_OK);
    for (int i = 0; i < 8; i++) EXPECT(sketch_cuckoo_add(a, len, "dup", 3), SKETCH_OK);
    uint32_t copies = 0;
    EXPECT(sketch_cuckoo_count(a, len, "dup", 3, &copies), SKETCH_OK);
    CHECK(copies == 8);
    unsigned char *before = snapshot(a, len);
    EXPECT(sketch_cuckoo_add(a, len, "dup", 3), SKETCH_FULL);
    CHECK(memcmp(before, a, len) == 0);

    EXPECT(sketch_cuckoo_remove(a, len, "never added", 11), SKETCH_NOT_PRESENT);
    CHECK(memcmp(before, a, len) == 0);

    /* merge: src's one copy of "dup" has no slot left in dst */
    EXPECT(sketch_cuckoo_add(b, len, "dup", 3), SKETCH_OK);
    EXPECT(sketch_cuckoo_add(b, len, "other", 5), SKETCH_OK);
    EXPECT(sketch_cuckoo_merge(a, len, b, len, scratch, len), SKETCH_FULL);
    CHECK(memcmp(before, a, len) == 0);
    /* a different seed is incompatible */
    EXPECT(sketch_cuckoo_init(b, len, &p, 4), SKETCH_OK);
    EXPECT(sketch_cuckoo_merge(a, len, b, len, scratch, len), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    /* a merge that fits takes every fingerprint */
    EXPECT(sketch_cuckoo_init(b, len, &p, 3), SKETCH_OK);
    EXPECT(sketch_cuckoo_add(b, len, "other", 5), SKETCH_OK);
    EXPECT(sketch_cuckoo_merge(a, len, b, len, scratch, len), SKETCH_OK);
    bool found = false;
    EXPECT(sketch_cuckoo_contains(a, len, "other", 5, &found), SKETCH_OK);
    CHECK(found);
    free(before);
    free(a);
    free(b);
    free(scratch);
}

/* README "Counting Bloom": 4-bit saturating counters, a counter at 15 is
 * never decremented (saturation causes no false negatives); remove of a
 * certainly absent key reports SKETCH_NOT_PRESENT and changes nothing; merge
 * by saturating addition; an incompatible merge changes nothing. */
static void test_counting_claims(void) {
    struct sketch_bloom_params p;
    EXPECT(sketch_bloom_plan_bits(4096, 3, &p), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_counting_size(&p, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *a = alloc_image(size), *b = alloc_image(size);
    EXPECT(sketch_counting_init(a, len, &p, 9), SKETCH_OK);
    for (int i = 0; i < 20; i++) EXPECT(sketch_counting_add(a, len, "hot", 3, NULL), SKETCH_OK);
    struct sketch_counting_stats st;
    EXPECT(sketch_counting_get_stats(a, len, &st), SKETCH_OK);
    CHECK(st.saturated_counters >= 1);
    for (int i = 0; i < 20; i++) EXPECT(sketch_counting_remove(a, len, "hot", 3), SKETCH_OK);
    bool present = false;
    EXPECT(sketch_counting_contains(a, len, "hot", 3, &present), SKETCH_OK);
    CHECK(present); /* saturated counters stayed at 15 */

    unsigned char *before = snapshot(a, len);
    EXPECT(sketch_counting_remove(a, len, "certainly absent key", 20), SKETCH_NOT_PRESENT);
    CHECK(memcmp(before, a, len) == 0);

    /* merge by saturating addition: 10 + 10 adds of one key give 15 */
    EXPECT(sketch_counting_init(a, len, &p, 9), SKETCH_OK);
    EXPECT(sketch_counting_init(b, len, &p, 9), SKETCH_OK);
    for (int i = 0; i < 10; i++) {
        EXPECT(sketch_counting_add(a, len, "warm", 4, NULL), SKETCH_OK);
        EXPECT(sketch_counting_add(b, len, "warm", 4, NULL), SKETCH_OK);
    }
    EXPECT(sketch_counting_merge(a, len, b, len), SKETCH_OK);
    EXPECT(sketch_counting_get_stats(a, len, &st), SKETCH_OK);
    CHECK(st.saturated_counters >= 1 && st.saturated_counters <= 3);

    memcpy(before, a, len);
    EXPECT(sketch_counting_init(b, len, &p, 10), SKETCH_OK);
    EXPECT(sketch_counting_merge(a, len, b, len), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    free(before);
    free(a);
    free(b);
}

/* README "Count-Min": 32/64-bit counters that saturate, never wrap; merge by
 * saturating addition; header: estimate never below the truth while no
 * counter saturated; an incompatible merge changes nothing. */
static void test_countmin_claims(void) {
    struct sketch_countmin_params p;
    EXPECT(sketch_countmin_plan_size(64, 3, &p), SKETCH_OK);
    CHECK(p.counter_bits == 32);
    uint64_t size = 0;
    EXPECT(sketch_countmin_size(&p, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *a = alloc_image(size), *b = alloc_image(size);
    EXPECT(sketch_countmin_init(a, len, &p, 1), SKETCH_OK);
    EXPECT(sketch_countmin_init(b, len, &p, 1), SKETCH_OK);
    EXPECT(sketch_countmin_add_u64(a, len, 7, 0xFFFFFFF0u), SKETCH_OK);
    EXPECT(sketch_countmin_add_u64(a, len, 7, 0x100), SKETCH_OK);
    uint64_t est = 0;
    EXPECT(sketch_countmin_estimate_u64(a, len, 7, &est), SKETCH_OK);
    CHECK(est == 0xFFFFFFFFu); /* saturated, not wrapped to 0xF0 */
    EXPECT(sketch_countmin_add_u64(b, len, 7, 0xFFFFFFF0u), SKETCH_OK);
    EXPECT(sketch_countmin_merge(a, len, b, len), SKETCH_OK);
    EXPECT(sketch_countmin_estimate_u64(a, len, 7, &est), SKETCH_OK);
    CHECK(est == 0xFFFFFFFFu);

    /* 64-bit counters */
    struct sketch_countmin_params wide = p;
    wide.counter_bits = 64;
    uint64_t wide_size = 0;
    EXPECT(sketch_countmin_size(&wide, &wide_size), SKETCH_OK);
    unsigned char *w = alloc_image(wide_size);
    EXPECT(sketch_countmin_init(w, (size_t)wide_size, &wide, 1), SKETCH_OK);
    EXPECT(sketch_countmin_add_u64(w, (size_t)wide_size, 7, UINT64_MAX - 1), SKETCH_OK);
    EXPECT(sketch_countmin_add_u64(w, (size_t)wide_size, 7, 5), SKETCH_OK);
    EXPECT(sketch_countmin_estimate_u64(w, (size_t)wide_size, 7, &est), SKETCH_OK);
    CHECK(est == UINT64_MAX);

    /* never below the truth */
    EXPECT(sketch_countmin_init(a, len, &p, 1), SKETCH_OK);
    int never_below = 1;
    for (uint64_t k = 0; k < 500; k++) EXPECT(sketch_countmin_add_u64(a, len, k, k % 7 + 1), SKETCH_OK);
    for (uint64_t k = 0; k < 500; k++) {
        EXPECT(sketch_countmin_estimate_u64(a, len, k, &est), SKETCH_OK);
        never_below &= est >= k % 7 + 1;
    }
    CHECK(never_below);

    /* incompatible: another seed, or another width */
    unsigned char *before = snapshot(a, len);
    EXPECT(sketch_countmin_init(b, len, &p, 2), SKETCH_OK);
    EXPECT(sketch_countmin_merge(a, len, b, len), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    EXPECT(sketch_countmin_merge(a, len, w, (size_t)wide_size), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    free(before);
    free(a);
    free(b);
    free(w);
}

/* README "HyperLogLog": p = 4..18; exact small mode (p = 14: exact to
 * 1,024 distinct) converting in place; merge needs the same seed and a
 * dense src of at least dst's precision; a small-mode src merges into any
 * precision; a refused merge changes nothing. */
static void test_hll_claims(void) {
    uint64_t size = SENTINEL_U64;
    EXPECT(sketch_hll_size(3, &size), SKETCH_INVALID_PARAMETER);
    CHECK(size == SENTINEL_U64);
    EXPECT(sketch_hll_size(19, &size), SKETCH_INVALID_PARAMETER);
    CHECK(size == SENTINEL_U64);
    EXPECT(sketch_hll_size(4, &size), SKETCH_OK);
    EXPECT(sketch_hll_size(18, &size), SKETCH_OK);

    EXPECT(sketch_hll_size(14, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *a = alloc_image(size), *b = alloc_image(size);
    EXPECT(sketch_hll_init(a, len, 14, 1), SKETCH_OK);
    for (uint64_t k = 0; k < 1024; k++) EXPECT(sketch_hll_add_u64(a, len, k, NULL), SKETCH_OK);
    struct sketch_hll_stats st;
    double est = 0;
    EXPECT(sketch_hll_get_stats(a, len, &st), SKETCH_OK);
    CHECK(st.mode == SKETCH_HLL_MODE_SMALL && st.small_capacity == 1024 && st.small_count == 1024);
    EXPECT(sketch_hll_estimate(a, len, &est), SKETCH_OK);
    CHECK(est == 1024.0); /* exact */
    EXPECT(sketch_hll_add_u64(a, len, 1024, NULL), SKETCH_OK);
    EXPECT(sketch_hll_get_stats(a, len, &st), SKETCH_OK);
    CHECK(st.mode == SKETCH_HLL_MODE_DENSE); /* converted in place */

    /* a dense src of lower precision is refused, nothing changes */
    uint64_t low_size = 0;
    EXPECT(sketch_hll_size(10, &low_size), SKETCH_OK);
    unsigned char *low = alloc_image(low_size);
    EXPECT(sketch_hll_init(low, (size_t)low_size, 10, 1), SKETCH_OK);
    EXPECT(sketch_hll_densify(low, (size_t)low_size), SKETCH_OK);
    EXPECT(sketch_hll_add_u64(low, (size_t)low_size, 5000, NULL), SKETCH_OK);
    unsigned char *before = snapshot(a, len);
    EXPECT(sketch_hll_merge(a, len, low, (size_t)low_size), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    /* a small-mode src of lower precision merges */
    EXPECT(sketch_hll_init(low, (size_t)low_size, 10, 1), SKETCH_OK);
    EXPECT(sketch_hll_add_u64(low, (size_t)low_size, 5000, NULL), SKETCH_OK);
    EXPECT(sketch_hll_merge(a, len, low, (size_t)low_size), SKETCH_OK);
    /* another seed is refused */
    memcpy(before, a, len);
    EXPECT(sketch_hll_init(b, len, 14, 2), SKETCH_OK);
    EXPECT(sketch_hll_merge(a, len, b, len), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    /* a higher precision folds down into a lower one */
    EXPECT(sketch_hll_init(b, len, 14, 1), SKETCH_OK);
    EXPECT(sketch_hll_densify(b, len), SKETCH_OK);
    EXPECT(sketch_hll_add_u64(b, len, 77, NULL), SKETCH_OK);
    EXPECT(sketch_hll_init(low, (size_t)low_size, 10, 1), SKETCH_OK);
    EXPECT(sketch_hll_densify(low, (size_t)low_size), SKETCH_OK);
    EXPECT(sketch_hll_merge(low, (size_t)low_size, b, len), SKETCH_OK);
    free(before);
    free(low);
    free(a);
    free(b);
}

/* README "UltraLogLog": p = 4..18; merge across precisions (src at least
 * dst's), same seed; a refused merge changes nothing. */
static void test_ull_claims(void) {
    uint64_t size = SENTINEL_U64;
    EXPECT(sketch_ull_size(3, &size), SKETCH_INVALID_PARAMETER);
    CHECK(size == SENTINEL_U64);
    EXPECT(sketch_ull_size(19, &size), SKETCH_INVALID_PARAMETER);
    CHECK(size == SENTINEL_U64);
    EXPECT(sketch_ull_size(4, &size), SKETCH_OK);
    uint64_t high_size = 0, low_size = 0;
    EXPECT(sketch_ull_size(18, &high_size), SKETCH_OK);
    EXPECT(sketch_ull_size(8, &low_size), SKETCH_OK);
    unsigned char *high = alloc_image(high_size), *low = alloc_image(low_size);
    EXPECT(sketch_ull_init(high, (size_t)high_size, 18, 1), SKETCH_OK);
    EXPECT(sketch_ull_init(low, (size_t)low_size, 8, 1), SKETCH_OK);
    for (uint64_t k = 0; k < 100; k++) {
        EXPECT(sketch_ull_add_u64(high, (size_t)high_size, k, NULL), SKETCH_OK);
        EXPECT(sketch_ull_add_u64(low, (size_t)low_size, k + 1000, NULL), SKETCH_OK);
    }
    unsigned char *before = snapshot(high, (size_t)high_size);
    EXPECT(sketch_ull_merge(high, (size_t)high_size, low, (size_t)low_size), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, high, (size_t)high_size) == 0);
    EXPECT(sketch_ull_merge(low, (size_t)low_size, high, (size_t)high_size), SKETCH_OK);
    double est = 0;
    EXPECT(sketch_ull_estimate(low, (size_t)low_size, &est), SKETCH_OK);
    CHECK(est > 150 && est < 250);
    unsigned char *other = alloc_image(low_size);
    EXPECT(sketch_ull_init(other, (size_t)low_size, 8, 2), SKETCH_OK);
    unsigned char *low_before = snapshot(low, (size_t)low_size);
    EXPECT(sketch_ull_merge(low, (size_t)low_size, other, (size_t)low_size), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(low_before, low, (size_t)low_size) == 0);
    free(low_before);
    free(other);
    free(before);
    free(high);
    free(low);
}

/* README "ExaLogLog": d = 20 or 24, p = 2..24; exact merge and reduction
 * to a lower p or d (src's at least dst's); a refused merge changes
 * nothing. */
static void test_ell_claims(void) {
    struct sketch_ell_params p = {2, 20, 2, 0};
    uint64_t size = 0;
    EXPECT(sketch_ell_size(&p, &size), SKETCH_OK);
    p.precision = 24;
    EXPECT(sketch_ell_size(&p, &size), SKETCH_OK);
    size = SENTINEL_U64;
    p.precision = 1;
    EXPECT(sketch_ell_size(&p, &size), SKETCH_INVALID_PARAMETER);
    p.precision = 25;
    EXPECT(sketch_ell_size(&p, &size), SKETCH_INVALID_PARAMETER);
    p.precision = 10;
    p.d = 22;
    EXPECT(sketch_ell_size(&p, &size), SKETCH_INVALID_PARAMETER);
    CHECK(size == SENTINEL_U64);

    struct sketch_ell_params big = {2, 24, 10, 0}, small = {2, 20, 8, 0};
    uint64_t big_size = 0, small_size = 0;
    EXPECT(sketch_ell_size(&big, &big_size), SKETCH_OK);
    EXPECT(sketch_ell_size(&small, &small_size), SKETCH_OK);
    unsigned char *b = alloc_image(big_size), *s = alloc_image(small_size);
    EXPECT(sketch_ell_init(b, (size_t)big_size, &big, 1), SKETCH_OK);
    EXPECT(sketch_ell_init(s, (size_t)small_size, &small, 1), SKETCH_OK);
    for (uint64_t k = 0; k < 100; k++) EXPECT(sketch_ell_add_u64(s, (size_t)small_size, k, NULL), SKETCH_OK);
    unsigned char *before = snapshot(b, (size_t)big_size);
    EXPECT(sketch_ell_merge(b, (size_t)big_size, s, (size_t)small_size), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, b, (size_t)big_size) == 0);
    EXPECT(sketch_ell_merge(s, (size_t)small_size, b, (size_t)big_size), SKETCH_OK);
    /* d = 24 at p = 8 into d = 20 at p = 10: p too low, nothing changes */
    struct sketch_ell_params mixed = {2, 24, 8, 0};
    uint64_t mixed_size = 0;
    EXPECT(sketch_ell_size(&mixed, &mixed_size), SKETCH_OK);
    unsigned char *m = alloc_image(mixed_size);
    EXPECT(sketch_ell_init(m, (size_t)mixed_size, &mixed, 1), SKETCH_OK);
    struct sketch_ell_params mid = {2, 20, 10, 0};
    uint64_t mid_size = 0;
    EXPECT(sketch_ell_size(&mid, &mid_size), SKETCH_OK);
    unsigned char *d = alloc_image(mid_size);
    EXPECT(sketch_ell_init(d, (size_t)mid_size, &mid, 1), SKETCH_OK);
    unsigned char *d_before = snapshot(d, (size_t)mid_size);
    EXPECT(sketch_ell_merge(d, (size_t)mid_size, m, (size_t)mixed_size), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(d_before, d, (size_t)mid_size) == 0);
    free(d_before);
    free(d);
    free(m);
    free(before);
    free(b);
    free(s);
}

/* MinHash: k = 1 ..= 2^20; two empty sketches give Jaccard 1; Jaccard and
 * merge need the same k and seed (merge changes nothing when refused); a
 * signature needs count == k and writes nothing otherwise. */
static void test_minhash_claims(void) {
    uint64_t size = SENTINEL_U64;
    EXPECT(sketch_minhash_size(0, &size), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_minhash_size((1u << 20) + 1, &size), SKETCH_INVALID_PARAMETER);
    CHECK(size == SENTINEL_U64);
    EXPECT(sketch_minhash_size(1u << 20, &size), SKETCH_OK);
    EXPECT(sketch_minhash_size(64, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *a = alloc_image(size), *b = alloc_image(size);
    EXPECT(sketch_minhash_init(a, len, 64, 1), SKETCH_OK);
    EXPECT(sketch_minhash_init(b, len, 64, 1), SKETCH_OK);
    double j = -1;
    EXPECT(sketch_minhash_jaccard(a, len, b, len, &j), SKETCH_OK);
    CHECK(j == 1.0);
    for (uint64_t k = 0; k < 200; k++) EXPECT(sketch_minhash_add_u64(a, len, k, NULL), SKETCH_OK);
    uint64_t sig[65];
    for (int i = 0; i < 65; i++) sig[i] = SENTINEL_U64;
    EXPECT(sketch_minhash_signature(a, len, sig, 63), SKETCH_INVALID_ARGUMENT);
    EXPECT(sketch_minhash_signature(a, len, sig, 65), SKETCH_INVALID_ARGUMENT);
    CHECK(sig[0] == SENTINEL_U64 && sig[62] == SENTINEL_U64);
    EXPECT(sketch_minhash_signature(a, len, sig, 64), SKETCH_OK);
    CHECK(sig[64] == SENTINEL_U64);

    EXPECT(sketch_minhash_init(b, len, 64, 2), SKETCH_OK);
    j = -1;
    EXPECT(sketch_minhash_jaccard(a, len, b, len, &j), SKETCH_INCOMPATIBLE);
    CHECK(j == -1);
    unsigned char *before = snapshot(a, len);
    EXPECT(sketch_minhash_merge(a, len, b, len), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    uint64_t other_size = 0;
    EXPECT(sketch_minhash_size(32, &other_size), SKETCH_OK);
    unsigned char *c = alloc_image(other_size);
    EXPECT(sketch_minhash_init(c, (size_t)other_size, 32, 1), SKETCH_OK);
    EXPECT(sketch_minhash_jaccard(a, len, c, (size_t)other_size, &j), SKETCH_INCOMPATIBLE);
    EXPECT(sketch_minhash_merge(a, len, c, (size_t)other_size), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    free(c);
    free(before);
    free(a);
    free(b);
}

/* Bloom: bits up to 2^56 (README "m up to 2^56 bits"; header: bits 0 or
 * above 2^56, hashes 0 or above 64 are invalid); a plan refused writes
 * nothing; union/intersection need equal bits, hashes and seed and change
 * nothing when refused. Shared conventions: NULL only with length 0; an
 * empty batch still validates the image; an all-zero token behaves like the
 * plain call; exported images need no alignment. */
static void test_bloom_and_shared_claims(void) {
    struct sketch_bloom_params p;
    EXPECT(sketch_bloom_plan_bits((uint64_t)1 << 56, 64, &p), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_bloom_size(&p, &size), SKETCH_OK);
    CHECK(size >= ((uint64_t)1 << 53) && size % SKETCH_IMAGE_ALIGN == 0);
    memset(&p, 0xA5, sizeof p);
    EXPECT(sketch_bloom_plan_bits(((uint64_t)1 << 56) + 1, 7, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_bloom_plan_bits(1024, 65, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_bloom_plan_bits(0, 7, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_bloom_plan_bits(1024, 0, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_bloom_plan(1000, 1.5, &p), SKETCH_INVALID_PARAMETER);
    CHECK(p.bits == SENTINEL_U64);

    EXPECT(sketch_bloom_plan(1000, 0.01, &p), SKETCH_OK);
    EXPECT(sketch_bloom_size(&p, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *a = alloc_image(size), *b = alloc_image(size);
    EXPECT(sketch_bloom_init(a, len, &p, 1), SKETCH_OK);
    EXPECT(sketch_bloom_add(a, len, "x", 1, NULL), SKETCH_OK);
    EXPECT(sketch_bloom_add(a, len, NULL, 0, NULL), SKETCH_OK); /* NULL with length 0 */
    EXPECT(sketch_bloom_add(a, len, NULL, 1, NULL), SKETCH_NULL_POINTER);
    unsigned char *before = snapshot(a, len);
    EXPECT(sketch_bloom_init(b, len, &p, 2), SKETCH_OK);
    EXPECT(sketch_bloom_union(a, len, b, len), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    EXPECT(sketch_bloom_intersect(a, len, b, len), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    struct sketch_bloom_params q;
    EXPECT(sketch_bloom_plan_bits(p.bits, p.hashes + 1, &q), SKETCH_OK);
    uint64_t q_size = 0;
    EXPECT(sketch_bloom_size(&q, &q_size), SKETCH_OK);
    unsigned char *c = alloc_image(q_size);
    EXPECT(sketch_bloom_init(c, (size_t)q_size, &q, 1), SKETCH_OK);
    EXPECT(sketch_bloom_union(a, len, c, (size_t)q_size), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);

    /* an empty batch still validates the image */
    unsigned char *junk = alloc_image(size);
    EXPECT(sketch_bloom_add_batch(junk, len, NULL, 0, NULL), SKETCH_BAD_MAGIC);
    EXPECT(sketch_bloom_add_batch(a, len, NULL, 0, NULL), SKETCH_OK);

    /* an all-zero token: the call validates in full, same results */
    sketch_token zero;
    memset(&zero, 0, sizeof zero);
    bool is_new = true;
    EXPECT(sketch_bloom_add_with_token(a, len, &zero, "x", 1, &is_new), SKETCH_OK);
    CHECK(!is_new);
    EXPECT(sketch_bloom_add_with_token(junk, len, &zero, "x", 1, &is_new), SKETCH_BAD_MAGIC);
    /* a token of another image of the same shape: still the right answer */
    sketch_token other_token;
    EXPECT(sketch_bloom_token(b, len, &other_token), SKETCH_OK);
    bool maybe = true;
    EXPECT(sketch_bloom_contains_with_token(a, len, &other_token, "never", 5, &maybe), SKETCH_OK);
    bool plain = true;
    EXPECT(sketch_bloom_contains(a, len, "never", 5, &plain), SKETCH_OK);
    CHECK(maybe == plain);
    is_new = false;
    EXPECT(sketch_bloom_add_with_token(a, len, &other_token, "y", 1, &is_new), SKETCH_OK);
    CHECK(is_new);
    EXPECT(sketch_bloom_contains(a, len, "y", 1, &maybe), SKETCH_OK);
    CHECK(maybe);

    /* exported images need no alignment: verify and import at an odd address */
    size_t exported = 0;
    EXPECT(sketch_bloom_exported_size(a, len, &exported), SKETCH_OK);
    unsigned char *raw = malloc(exported + 1);
    if (raw == NULL) exit(2);
    size_t written = 0;
    EXPECT(sketch_bloom_export(a, len, raw + 1, exported, &written), SKETCH_OK);
    CHECK(written == exported);
    EXPECT(sketch_bloom_verify(raw + 1, written), SKETCH_OK);
    struct sketch_image_info info;
    EXPECT(sketch_image_inspect(raw + 1, written, &info), SKETCH_OK);
    CHECK(info.family == SKETCH_FAMILY_BLOOM);
    EXPECT(sketch_bloom_import(raw + 1, written, b, len), SKETCH_OK);
    EXPECT(sketch_bloom_contains(b, len, "y", 1, &maybe), SKETCH_OK);
    CHECK(maybe);
    /* a damaged import leaves the destination untouched */
    unsigned char *dst_before = snapshot(b, len);
    raw[1 + written / 2] ^= 0x10;
    EXPECT(sketch_bloom_import(raw + 1, written, b, len), SKETCH_CHECKSUM_MISMATCH);
    CHECK(memcmp(dst_before, b, len) == 0);
    free(dst_before);
    free(raw);
    free(junk);
    free(c);
    free(before);
    free(a);
    free(b);
}

/* The planners' documented formulas and bounds (header: sketch_bloom_plan
 * m = ceil(-n ln p / ln^2 2), k = round(m/n ln 2), m up to 2^56;
 * sketch_cuckoo_plan: narrowest of 8/12/16 bits meeting fpr, ceil(n / 3.8)
 * buckets, items 0 and fpr below about 1.2e-4 refused, any bucket count;
 * sketch_countmin_plan: width ceil(e / epsilon), depth ceil(ln(1 / delta)),
 * 32-bit plain counters, epsilon >= e / 2^32, delta >= e^-64;
 * sketch_fuse_plan: 8 bits when fpr >= 2^-8, 16 bits down to 2^-16;
 * sketch_ell_plan: smallest p with 0.3622/sqrt(2^p) (d = 20) or
 * 0.3438/sqrt(2^p) (d = 24) at most the target, d only 20 or 24). */
static void test_planner_claims(void) {
    struct sketch_bloom_params bp;
    EXPECT(sketch_bloom_plan(1000, 0.01, &bp), SKETCH_OK);
    double ln2 = log(2.0);
    uint64_t m = (uint64_t)ceil(-1000.0 * log(0.01) / (ln2 * ln2));
    CHECK(bp.bits == m && bp.hashes == (uint32_t)lround((double)m / 1000.0 * ln2));
    /* The cast drops x87 excess precision (i386): the literal would compare as long double. */
    CHECK(bp.planned_items == 1000 && bp.planned_fpr == (double)0.01);
    EXPECT(sketch_bloom_plan(0, 0.01, &bp), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_bloom_plan(1000, NAN, &bp), SKETCH_INVALID_PARAMETER);
    /* m just past 2^56: 2^56 * ln^2 2 / -ln p items */
    double per_item = -log(0.5) / (ln2 * ln2);
    uint64_t too_many = (uint64_t)((double)((uint64_t)1 << 56) / per_item) + 1000;
    memset(&bp, 0xA5, sizeof bp);
    EXPECT(sketch_bloom_plan(too_many, 0.5, &bp), SKETCH_INVALID_PARAMETER);
    CHECK(bp.bits == SENTINEL_U64);

    struct sketch_cuckoo_params cp;
    EXPECT(sketch_cuckoo_plan(1000, 0.04, &cp), SKETCH_OK);
    CHECK(cp.fingerprint_bits == 8 && cp.buckets == 264); /* ceil(1000 / 3.8) */
    EXPECT(sketch_cuckoo_plan(1000, 0.01, &cp), SKETCH_OK);
    CHECK(cp.fingerprint_bits == 12);
    EXPECT(sketch_cuckoo_plan(1000, 1.3e-4, &cp), SKETCH_OK);
    CHECK(cp.fingerprint_bits == 16);
    memset(&cp, 0xA5, sizeof cp);
    EXPECT(sketch_cuckoo_plan(1000, 1.1e-4, &cp), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_cuckoo_plan(0, 0.01, &cp), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_cuckoo_plan(1000, 1.0, &cp), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_cuckoo_plan_buckets(1000, 10, &cp), SKETCH_INVALID_PARAMETER);
    CHECK(cp.buckets == SENTINEL_U64);
    const uint64_t any_buckets[3] = {1, 3, 1000003};
    for (int i = 0; i < 3; i++) {
        EXPECT(sketch_cuckoo_plan_buckets(any_buckets[i], 12, &cp), SKETCH_OK);
        CHECK(cp.buckets == any_buckets[i]);
        uint64_t size = 0;
        EXPECT(sketch_cuckoo_size(&cp, &size), SKETCH_OK);
        CHECK(size % SKETCH_IMAGE_ALIGN == 0);
    }

    struct sketch_countmin_params mp;
    EXPECT(sketch_countmin_plan(0.01, 0.01, &mp), SKETCH_OK);
    CHECK(mp.width == (uint64_t)ceil(exp(1.0) / 0.01) && mp.depth == (uint32_t)ceil(log(100.0)));
    CHECK(mp.counter_bits == 32 && mp.conservative == 0 && mp.reserved == 0);
    EXPECT(sketch_countmin_plan(exp(1.0) / 4294967296.0 * 1.001, 0.5, &mp), SKETCH_OK);
    CHECK(mp.width <= ((uint64_t)1 << 32));
    EXPECT(sketch_countmin_plan(exp(1.0) / 4294967296.0 * 0.99, 0.5, &mp), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_countmin_plan(0.5, exp(-64.0) * 1.001, &mp), SKETCH_OK);
    CHECK(mp.depth == 64);
    memset(&mp, 0xA5, sizeof mp);
    EXPECT(sketch_countmin_plan(0.5, exp(-64.0) * 0.99, &mp), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_countmin_plan(0.0, 0.5, &mp), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_countmin_plan(0.5, 1.0, &mp), SKETCH_INVALID_PARAMETER);
    CHECK(mp.width == SENTINEL_U64);

    struct sketch_fuse_params fp;
    EXPECT(sketch_fuse_plan(1000, 1.0 / 65536, &fp), SKETCH_OK);
    CHECK(fp.fingerprint_bits == 16);
    EXPECT(sketch_fuse_plan(1000, 0.99 / 65536, &fp), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_fuse_plan(1000, 0.99 / 256, &fp), SKETCH_OK);
    CHECK(fp.fingerprint_bits == 16);

    struct sketch_ell_params ep;
    EXPECT(sketch_ell_plan(0.3622 / 64.0, 20, &ep), SKETCH_OK); /* 2^12 registers */
    CHECK(ep.precision == 12 && ep.t == 2 && ep.d == 20 && ep.reserved == 0);
    EXPECT(sketch_ell_plan(0.3621 / 64.0, 20, &ep), SKETCH_OK);
    CHECK(ep.precision == 13);
    EXPECT(sketch_ell_plan(0.3438 / 64.0, 24, &ep), SKETCH_OK);
    CHECK(ep.precision == 12 && ep.d == 24);
    EXPECT(sketch_ell_plan(8.843e-5, 20, &ep), SKETCH_OK);
    CHECK(ep.precision == 24);
    EXPECT(sketch_ell_plan(8.394e-5, 24, &ep), SKETCH_OK);
    CHECK(ep.precision == 24);
    memset(&ep, 0xA5, sizeof ep);
    EXPECT(sketch_ell_plan(8.842e-5, 20, &ep), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_ell_plan(8.392e-5, 24, &ep), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_ell_plan(0.01, 22, &ep), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_ell_plan(NAN, 20, &ep), SKETCH_INVALID_PARAMETER);
    CHECK(ep.precision == 0xA5A5A5A5u);
}

/* Statements about what calls report: the Bloom over-planned-items flag
 * ("more items were inserted than planned"), the counting add's `was_new`
 * ("true when some counter was 0"), Top-k integer keys ("stored as its 8
 * little-endian bytes"), HyperLogLog's compact export of a small sketch
 * that imports into the full image of its precision, and outputs of
 * refused calls left as they were (`changed`, `written`, `out`). */
static void test_reporting_claims(void) {
    struct sketch_bloom_params bp;
    EXPECT(sketch_bloom_plan(100, 0.01, &bp), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_bloom_size(&bp, &size), SKETCH_OK);
    unsigned char *bloom = alloc_image(size);
    EXPECT(sketch_bloom_init(bloom, (size_t)size, &bp, 1), SKETCH_OK);
    uint32_t flags = 99;
    for (uint64_t k = 0; k < 100; k++) EXPECT(sketch_bloom_add_u64(bloom, (size_t)size, k, NULL), SKETCH_OK);
    struct sketch_bloom_stats bs;
    EXPECT(sketch_bloom_get_stats(bloom, (size_t)size, &bs), SKETCH_OK);
    EXPECT(sketch_bloom_capacity(bloom, (size_t)size, &flags), SKETCH_OK);
    CHECK((flags & SKETCH_CAPACITY_OVER_PLANNED_ITEMS) == (bs.inserted > 100 ? 1u : 0u));
    for (uint64_t k = 100; k < 130; k++) EXPECT(sketch_bloom_add_u64(bloom, (size_t)size, k, NULL), SKETCH_OK);
    EXPECT(sketch_bloom_capacity(bloom, (size_t)size, &flags), SKETCH_OK);
    CHECK(flags & SKETCH_CAPACITY_OVER_PLANNED_ITEMS);
    flags = 99;
    EXPECT(sketch_bloom_capacity(bloom, 7, &flags), SKETCH_BUFFER_TOO_SMALL);
    CHECK(flags == 99);
    bool changed = true;
    EXPECT(sketch_bloom_add(bloom, 7, "k", 1, &changed), SKETCH_BUFFER_TOO_SMALL);
    CHECK(changed);
    changed = false;
    EXPECT(sketch_bloom_add(bloom, 7, "k", 1, &changed), SKETCH_BUFFER_TOO_SMALL);
    CHECK(!changed);
    /* export into a short buffer: nothing written, `written` untouched */
    size_t exported = 0, written = 77;
    EXPECT(sketch_bloom_exported_size(bloom, (size_t)size, &exported), SKETCH_OK);
    unsigned char *out = alloc_image(exported);
    memset(out, 0xEE, exported);
    EXPECT(sketch_bloom_export(bloom, (size_t)size, out, exported - 1, &written), SKETCH_BUFFER_TOO_SMALL);
    CHECK(written == 77 && out[0] == 0xEE && out[exported - 2] == 0xEE);
    free(out);
    free(bloom);

    struct sketch_bloom_params cp;
    EXPECT(sketch_bloom_plan_bits(1u << 16, 3, &cp), SKETCH_OK);
    EXPECT(sketch_counting_size(&cp, &size), SKETCH_OK);
    unsigned char *counting = alloc_image(size);
    EXPECT(sketch_counting_init(counting, (size_t)size, &cp, 1), SKETCH_OK);
    bool was_new = false;
    EXPECT(sketch_counting_add(counting, (size_t)size, "k", 1, &was_new), SKETCH_OK);
    CHECK(was_new);
    EXPECT(sketch_counting_add(counting, (size_t)size, "k", 1, &was_new), SKETCH_OK);
    CHECK(!was_new);
    free(counting);

    EXPECT(sketch_topk_size(4, 8, &size), SKETCH_OK);
    unsigned char *topk = alloc_image(size);
    EXPECT(sketch_topk_init(topk, (size_t)size, 4, 8, 1), SKETCH_OK);
    EXPECT(sketch_topk_add_u64(topk, (size_t)size, 0x0102030405060708ULL, 3), SKETCH_OK);
    const unsigned char le[8] = {8, 7, 6, 5, 4, 3, 2, 1};
    struct sketch_topk_key_estimate est;
    EXPECT(sketch_topk_estimate(topk, (size_t)size, le, 8, &est), SKETCH_OK);
    CHECK(est.count == 3 && est.listed);
    free(topk);

    uint64_t hll_size = 0;
    EXPECT(sketch_hll_size(14, &hll_size), SKETCH_OK);
    unsigned char *hll = alloc_image(hll_size), *back = alloc_image(hll_size);
    EXPECT(sketch_hll_init(hll, (size_t)hll_size, 14, 1), SKETCH_OK);
    for (uint64_t k = 0; k < 10; k++) EXPECT(sketch_hll_add_u64(hll, (size_t)hll_size, k, NULL), SKETCH_OK);
    EXPECT(sketch_hll_exported_size(hll, (size_t)hll_size, &exported), SKETCH_OK);
    CHECK(exported < hll_size / 8); /* compact: ten hashes, not 2^14 registers */
    out = alloc_image(exported);
    EXPECT(sketch_hll_export(hll, (size_t)hll_size, out, exported, &written), SKETCH_OK);
    CHECK(written == exported);
    size_t import_size = 0;
    EXPECT(sketch_hll_import_size(out, written, &import_size), SKETCH_OK);
    CHECK(import_size == hll_size);
    import_size = 55;
    EXPECT(sketch_hll_import_size(out, written - 1, &import_size), SKETCH_LENGTH_MISMATCH);
    CHECK(import_size == 55);
    EXPECT(sketch_hll_import(out, written, back, (size_t)hll_size), SKETCH_OK);
    double a = 0, b = 0;
    EXPECT(sketch_hll_estimate(hll, (size_t)hll_size, &a), SKETCH_OK);
    EXPECT(sketch_hll_estimate(back, (size_t)hll_size, &b), SKETCH_OK);
    CHECK(a == 10.0 && b == 10.0);
    free(out);
    free(hll);
    free(back);
}

/* Conversions and batches keep what their docs promise: sketch_hll_downsize
 * ("holding what src holds", registers folded down; a higher precision only
 * while src is in small mode; dst written only on success), sketch_ull_to_hll
 * ("the HyperLogLog the same hashes give"), sketch_sbbf_fold (a block count
 * not divisible by 2^folds: SKETCH_INVALID_ARGUMENT, nothing changes; every
 * key stays present), sketch_cuckoo_add_u64_batch (a key that does not fit
 * reports false, changes nothing for it, and the batch goes on). */
static double hll_register_estimate(const unsigned char *src, size_t src_len, uint8_t p) {
    /* a fresh dense sketch merged with src reports the estimate from the
     * registers alone, a function of the registers */
    uint64_t size = 0;
    EXPECT(sketch_hll_size(p, &size), SKETCH_OK);
    unsigned char *fresh = alloc_image(size);
    EXPECT(sketch_hll_init(fresh, (size_t)size, p, 1), SKETCH_OK);
    EXPECT(sketch_hll_densify(fresh, (size_t)size), SKETCH_OK);
    EXPECT(sketch_hll_merge(fresh, (size_t)size, src, src_len), SKETCH_OK);
    double est = -1;
    EXPECT(sketch_hll_estimate(fresh, (size_t)size, &est), SKETCH_OK);
    free(fresh);
    return est;
}

static void test_conversion_claims(void) {
    uint64_t s14 = 0, s12 = 0;
    EXPECT(sketch_hll_size(14, &s14), SKETCH_OK);
    EXPECT(sketch_hll_size(12, &s12), SKETCH_OK);
    unsigned char *big = alloc_image(s14), *direct = alloc_image(s12), *down = alloc_image(s12);
    EXPECT(sketch_hll_init(big, (size_t)s14, 14, 1), SKETCH_OK);
    EXPECT(sketch_hll_init(direct, (size_t)s12, 12, 1), SKETCH_OK);
    for (uint64_t k = 0; k < 20000; k++) {
        EXPECT(sketch_hll_add_u64(big, (size_t)s14, k, NULL), SKETCH_OK);
        EXPECT(sketch_hll_add_u64(direct, (size_t)s12, k, NULL), SKETCH_OK);
    }
    EXPECT(sketch_hll_downsize(big, (size_t)s14, down, (size_t)s12, 12), SKETCH_OK);
    double from_down = hll_register_estimate(down, (size_t)s12, 12);
    double from_direct = hll_register_estimate(direct, (size_t)s12, 12);
    CHECK(from_down == from_direct && from_down > 18000 && from_down < 22000);
    /* dense src to a higher precision: refused, dst untouched */
    memset(big, 0xEE, (size_t)s14);
    EXPECT(sketch_hll_downsize(down, (size_t)s12, big, (size_t)s14, 14), SKETCH_INCOMPATIBLE);
    CHECK(big[0] == 0xEE && big[s14 - 1] == 0xEE);
    /* small-mode src to a higher precision: the stored hashes */
    EXPECT(sketch_hll_init(direct, (size_t)s12, 12, 1), SKETCH_OK);
    for (uint64_t k = 0; k < 50; k++) EXPECT(sketch_hll_add_u64(direct, (size_t)s12, k, NULL), SKETCH_OK);
    EXPECT(sketch_hll_downsize(direct, (size_t)s12, big, (size_t)s14, 14), SKETCH_OK);
    double est = 0;
    EXPECT(sketch_hll_estimate(big, (size_t)s14, &est), SKETCH_OK);
    CHECK(est == 50.0);

    /* ULL -> HLL: the registers of the HLL of the same hashes */
    uint64_t us = 0;
    EXPECT(sketch_ull_size(12, &us), SKETCH_OK);
    unsigned char *ull = alloc_image(us);
    EXPECT(sketch_ull_init(ull, (size_t)us, 12, 1), SKETCH_OK);
    EXPECT(sketch_hll_init(direct, (size_t)s12, 12, 1), SKETCH_OK);
    for (uint64_t k = 0; k < 20000; k++) {
        EXPECT(sketch_ull_add_u64(ull, (size_t)us, k, NULL), SKETCH_OK);
        EXPECT(sketch_hll_add_u64(direct, (size_t)s12, k, NULL), SKETCH_OK);
    }
    EXPECT(sketch_ull_to_hll(ull, (size_t)us, down, (size_t)s12), SKETCH_OK);
    CHECK(hll_register_estimate(down, (size_t)s12, 12) == hll_register_estimate(direct, (size_t)s12, 12));
    free(ull);
    free(big);
    free(direct);
    free(down);

    /* split-block fold */
    struct sketch_sbbf_params sp;
    EXPECT(sketch_sbbf_plan_blocks(12, SKETCH_SBBF_NATIVE, &sp), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_sbbf_size(&sp, &size), SKETCH_OK);
    unsigned char *sbbf = alloc_image(size);
    EXPECT(sketch_sbbf_init(sbbf, (size_t)size, &sp, 1), SKETCH_OK);
    for (uint64_t k = 0; k < 40; k++) EXPECT(sketch_sbbf_add_u64(sbbf, (size_t)size, k, NULL), SKETCH_OK);
    unsigned char *before = snapshot(sbbf, (size_t)size);
    size_t new_len = 12345;
    EXPECT(sketch_sbbf_fold(sbbf, (size_t)size, 3, &new_len), SKETCH_INVALID_ARGUMENT); /* 12 / 8 */
    CHECK(new_len == 12345 && memcmp(before, sbbf, (size_t)size) == 0);
    EXPECT(sketch_sbbf_fold(sbbf, (size_t)size, 2, &new_len), SKETCH_OK);
    CHECK(new_len < (size_t)size && new_len % SKETCH_IMAGE_ALIGN == 0);
    int all = 1;
    for (uint64_t k = 0; k < 40; k++) {
        bool in = false;
        EXPECT(sketch_sbbf_contains_u64(sbbf, new_len, k, &in), SKETCH_OK);
        all &= in;
    }
    CHECK(all);
    free(before);
    free(sbbf);

    /* cuckoo batch: the 9th and 10th copies do not fit, the next key does */
    struct sketch_cuckoo_params cp;
    EXPECT(sketch_cuckoo_plan_buckets(64, 16, &cp), SKETCH_OK);
    EXPECT(sketch_cuckoo_size(&cp, &size), SKETCH_OK);
    unsigned char *cuckoo = alloc_image(size);
    EXPECT(sketch_cuckoo_init(cuckoo, (size_t)size, &cp, 1), SKETCH_OK);
    const uint64_t keys[11] = {7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8};
    bool added[11];
    memset(added, 0, sizeof added);
    EXPECT(sketch_cuckoo_add_u64_batch(cuckoo, (size_t)size, keys, 11, added), SKETCH_OK);
    int first_eight = 1;
    for (int i = 0; i < 8; i++) first_eight &= added[i];
    CHECK(first_eight && !added[8] && !added[9] && added[10]);
    struct sketch_cuckoo_stats cs;
    EXPECT(sketch_cuckoo_get_stats(cuckoo, (size_t)size, &cs), SKETCH_OK);
    CHECK(cs.items == 9);
    free(cuckoo);
}

/* Count-Min merge: width, depth, counter width and seed must be equal, the
 * update modes may differ (dst keeps its mode, estimates stay upper
 * bounds); the stats' total is the sum of the weights and the error bound
 * epsilon * N; import_size equals src_len for every family but HLL.
 * Top-k list: key pointers point into buf; estimate's count - error is a
 * lower bound of the truth. */
static void test_countmin_topk_more_claims(void) {
    struct sketch_countmin_params plain, cons;
    EXPECT(sketch_countmin_plan_size(128, 4, &plain), SKETCH_OK);
    cons = plain;
    cons.conservative = 1;
    uint64_t size = 0;
    EXPECT(sketch_countmin_size(&plain, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *a = alloc_image(size), *b = alloc_image(size);
    EXPECT(sketch_countmin_init(a, len, &cons, 1), SKETCH_OK);
    EXPECT(sketch_countmin_init(b, len, &plain, 1), SKETCH_OK);
    static uint64_t keys[1000], weights[1000];
    uint64_t sum = 0;
    for (int i = 0; i < 1000; i++) {
        keys[i] = (uint64_t)i;
        weights[i] = (uint64_t)(i % 5 + 1);
        sum += weights[i];
    }
    EXPECT(sketch_countmin_add_u64_batch(a, len, keys, 500, weights), SKETCH_OK);
    EXPECT(sketch_countmin_add_u64_batch(b, len, keys + 500, 500, weights + 500), SKETCH_OK);
    EXPECT(sketch_countmin_merge(a, len, b, len), SKETCH_OK);
    struct sketch_countmin_stats st;
    EXPECT(sketch_countmin_get_stats(a, len, &st), SKETCH_OK);
    CHECK(st.params.conservative == 1 && st.total == sum);
    CHECK(fabs(st.error_bound - st.epsilon * (double)sum) <= 1e-9 * (double)sum);
    static uint64_t est[1000];
    EXPECT(sketch_countmin_estimate_u64_batch(a, len, keys, 1000, est), SKETCH_OK);
    int upper = 1;
    for (int i = 0; i < 1000; i++) upper &= est[i] >= weights[i];
    CHECK(upper);
    struct sketch_countmin_params deeper = plain;
    deeper.depth = 5;
    uint64_t deeper_size = 0;
    EXPECT(sketch_countmin_size(&deeper, &deeper_size), SKETCH_OK);
    unsigned char *c = alloc_image(deeper_size);
    EXPECT(sketch_countmin_init(c, (size_t)deeper_size, &deeper, 1), SKETCH_OK);
    unsigned char *before = snapshot(a, len);
    EXPECT(sketch_countmin_merge(a, len, c, (size_t)deeper_size), SKETCH_INCOMPATIBLE);
    CHECK(memcmp(before, a, len) == 0);
    size_t exported = 0, written = 0, import_size = 0;
    EXPECT(sketch_countmin_exported_size(a, len, &exported), SKETCH_OK);
    unsigned char *out = alloc_image(exported);
    EXPECT(sketch_countmin_export(a, len, out, exported, &written), SKETCH_OK);
    EXPECT(sketch_countmin_import_size(out, written, &import_size), SKETCH_OK);
    CHECK(import_size == written && written == len);
    free(out);
    free(before);
    free(c);
    free(a);
    free(b);

    uint64_t tsize = 0;
    EXPECT(sketch_topk_size(8, 16, &tsize), SKETCH_OK);
    unsigned char *t = alloc_image(tsize);
    EXPECT(sketch_topk_init(t, (size_t)tsize, 8, 16, 1), SKETCH_OK);
    /* 40 distinct keys, key i added i + 1 times */
    for (uint64_t i = 0; i < 40; i++) EXPECT(sketch_topk_add_u64(t, (size_t)tsize, i, i + 1), SKETCH_OK);
    struct sketch_topk_item items[8];
    size_t n = 0;
    EXPECT(sketch_topk_list(t, (size_t)tsize, items, 8, &n), SKETCH_OK);
    int inside = 1, bounds = 1;
    for (size_t i = 0; i < n; i++) {
        inside &= items[i].key >= t && items[i].key + items[i].key_len <= t + tsize;
        uint64_t key = 0;
        for (int j = 7; j >= 0; j--) key = key << 8 | items[i].key[j];
        bounds &= items[i].count - items[i].error <= key + 1 && items[i].count >= key + 1;
    }
    CHECK(n == 8 && inside && bounds);
    free(t);
}

/* Split-block planning: Parquet-mode plans are power-of-two bytes from 32 B
 * to 128 MiB ("the way Parquet writers size a column's bitset"); blocks of
 * SKETCH_SBBF_BLOCK_BYTES; plan_blocks refuses 0 blocks and unknown modes;
 * sketch_sbbf_plan refuses items 0 and fpr outside (0, 1). */
static void test_sbbf_plan_claims(void) {
    struct sketch_sbbf_params p;
    const uint64_t ndv[5] = {1, 10, 1000, 1000000, 1000000000};
    int pow2 = 1;
    uint64_t smallest = UINT64_MAX, largest = 0;
    for (int i = 0; i < 5; i++) {
        EXPECT(sketch_sbbf_plan_parquet(ndv[i], 0.01, &p), SKETCH_OK);
        uint64_t bytes = p.blocks * SKETCH_SBBF_BLOCK_BYTES;
        pow2 &= (bytes & (bytes - 1)) == 0 && p.mode == SKETCH_SBBF_PARQUET;
        if (bytes < smallest) smallest = bytes;
        if (bytes > largest) largest = bytes;
    }
    CHECK(pow2 && smallest == 32 && largest == (uint64_t)128 << 20);
    memset(&p, 0xA5, sizeof p);
    EXPECT(sketch_sbbf_plan_blocks(0, SKETCH_SBBF_NATIVE, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan_blocks(4, 2, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan(0, 0.01, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan(10, 1.0, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan(10, 0.0, &p), SKETCH_INVALID_PARAMETER);
    EXPECT(sketch_sbbf_plan_parquet(10, NAN, &p), SKETCH_INVALID_PARAMETER);
    CHECK(p.blocks == SENTINEL_U64);
    EXPECT(sketch_sbbf_plan(1000000, 0.01, &p), SKETCH_OK);
    double bits_per_key = (double)(p.blocks * 256) / 1e6;
    CHECK(p.mode == SKETCH_SBBF_NATIVE && bits_per_key > 9.5 && bits_per_key < 11.5); /* about 10.5 */
}

/* Counting batch removal: `removed` is required (NULL with count > 0:
 * SKETCH_NULL_POINTER, nothing changes); keys are removed in order, so a
 * key added once and listed twice is removed by the first entry and
 * reported absent by the second; SKETCH_OK even when some were absent.
 * MinHash batches: every pointer checked before anything is added. */
static void test_batch_removal_claims(void) {
    struct sketch_bloom_params p;
    EXPECT(sketch_bloom_plan_bits(1u << 14, 3, &p), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_counting_size(&p, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *c = alloc_image(size);
    EXPECT(sketch_counting_init(c, len, &p, 1), SKETCH_OK);
    EXPECT(sketch_counting_add_u64(c, len, 5, NULL), SKETCH_OK);
    EXPECT(sketch_counting_add_u64(c, len, 6, NULL), SKETCH_OK);
    unsigned char *before = snapshot(c, len);
    const uint64_t keys[3] = {5, 5, 6};
    EXPECT(sketch_counting_remove_u64_batch(c, len, keys, 3, NULL), SKETCH_NULL_POINTER);
    CHECK(memcmp(before, c, len) == 0);
    bool removed[3] = {false, true, false};
    EXPECT(sketch_counting_remove_u64_batch(c, len, keys, 3, removed), SKETCH_OK);
    CHECK(removed[0] && !removed[1] && removed[2]);
    struct sketch_counting_stats st;
    EXPECT(sketch_counting_get_stats(c, len, &st), SKETCH_OK);
    CHECK(st.nonzero_counters == 0);
    free(before);
    free(c);

    uint64_t msize = 0;
    EXPECT(sketch_minhash_size(16, &msize), SKETCH_OK);
    unsigned char *m = alloc_image(msize);
    EXPECT(sketch_minhash_init(m, (size_t)msize, 16, 1), SKETCH_OK);
    before = snapshot(m, (size_t)msize);
    struct sketch_slice bad[2] = {{"a", 1}, {NULL, 3}};
    EXPECT(sketch_minhash_add_batch(m, (size_t)msize, bad, 2), SKETCH_NULL_POINTER);
    CHECK(memcmp(before, m, (size_t)msize) == 0);
    const uint32_t offsets[3] = {0, 2, 1};
    EXPECT(sketch_minhash_add_packed(m, (size_t)msize, "abc", 3, offsets, 2), SKETCH_INVALID_PARAMETER);
    CHECK(memcmp(before, m, (size_t)msize) == 0);
    free(before);
    free(m);
}

/* README: "The buffer *is* the serialized image ... shipped by copying its
 * bytes" once export has sealed them; header: "The checksum is written by
 * sketch_*_export only": a copy of live bytes, never exported, is refused by
 * import and verify (SKETCH_CHECKSUM_MISMATCH), the exported copy is taken,
 * and the live bytes copied within one trusting program work as they are. */
static void test_shipping_claims(void) {
    struct sketch_bloom_params p;
    EXPECT(sketch_bloom_plan(1000, 0.01, &p), SKETCH_OK);
    uint64_t size = 0;
    EXPECT(sketch_bloom_size(&p, &size), SKETCH_OK);
    size_t len = (size_t)size;
    unsigned char *live = alloc_image(size), *copy = alloc_image(size), *dst = alloc_image(size);
    EXPECT(sketch_bloom_init(live, len, &p, 1), SKETCH_OK);
    EXPECT(sketch_bloom_verify(live, len), SKETCH_CHECKSUM_MISMATCH); /* none after init */
    EXPECT(sketch_bloom_add(live, len, "k", 1, NULL), SKETCH_OK);
    memcpy(copy, live, len);
    EXPECT(sketch_bloom_import(copy, len, dst, len), SKETCH_CHECKSUM_MISMATCH);
    bool in = false;
    EXPECT(sketch_bloom_contains(copy, len, "k", 1, &in), SKETCH_OK); /* trusted use */
    CHECK(in);
    size_t written = 0;
    EXPECT(sketch_bloom_export(live, len, copy, len, &written), SKETCH_OK);
    EXPECT(sketch_bloom_import(copy, written, dst, len), SKETCH_OK);
    in = false;
    EXPECT(sketch_bloom_contains(dst, len, "k", 1, &in), SKETCH_OK);
    CHECK(in);
    /* changed in place after the export: the old checksum no longer holds */
    EXPECT(sketch_bloom_add(dst, len, "other", 5, NULL), SKETCH_OK);
    EXPECT(sketch_bloom_verify(dst, len), SKETCH_CHECKSUM_MISMATCH);
    free(live);
    free(copy);
    free(dst);
}

/* Header: "SKETCH_INVALID_ARGUMENT (count elements beyond the address
 * space)", checked before anything is read or changed, for every batch
 * shape of every family (a count whose array would not fit in memory, with
 * a real two-element array behind it). */
#define HUGE_U64 (SIZE_MAX / 8)
#define HUGE_SLICES (SIZE_MAX / sizeof(struct sketch_slice)) /* 16 bytes each, 8 on 32-bit targets */
#define HUGE_OFFSETS (SIZE_MAX / 4)
static void test_huge_count_claims(void) {
    static uint64_t ints[2] = {1, 2}, out64[2];
    static bool res[2];
    static struct sketch_slice slices[2] = {{"a", 1}, {"b", 1}};
    static const uint32_t offs[3] = {0, 1, 2};
    const char *data = "ab";
    uint64_t size = 0;
    unsigned char *img, *before;
    size_t n;

#define SWEEP_BEGIN(init_call)                  \
    n = (size_t)size;                           \
    img = alloc_image(size);                    \
    EXPECT(init_call, SKETCH_OK);               \
    before = snapshot(img, n)
#define SWEEP_END()                             \
    CHECK(memcmp(before, img, n) == 0);         \
    free(before);                               \
    free(img)
#define HUGE(call) EXPECT(call, SKETCH_INVALID_ARGUMENT)

    struct sketch_bloom_params bp;
    EXPECT(sketch_bloom_plan(100, 0.01, &bp), SKETCH_OK);
    EXPECT(sketch_bloom_size(&bp, &size), SKETCH_OK);
    SWEEP_BEGIN(sketch_bloom_init(img, n, &bp, 1));
    HUGE(sketch_bloom_add_batch(img, n, slices, HUGE_SLICES, NULL));
    HUGE(sketch_bloom_add_packed(img, n, data, 2, offs, HUGE_OFFSETS, NULL));
    HUGE(sketch_bloom_add_u64_batch(img, n, ints, HUGE_U64, NULL));
    HUGE(sketch_bloom_add_hash_batch(img, n, ints, HUGE_U64, NULL));
    HUGE(sketch_bloom_contains_batch(img, n, slices, HUGE_SLICES, res));
    HUGE(sketch_bloom_contains_packed(img, n, data, 2, offs, HUGE_OFFSETS, res));
    HUGE(sketch_bloom_contains_u64_batch(img, n, ints, HUGE_U64, res));
    HUGE(sketch_bloom_contains_hash_batch(img, n, ints, HUGE_U64, res));
    SWEEP_END();

    EXPECT(sketch_counting_size(&bp, &size), SKETCH_OK);
    SWEEP_BEGIN(sketch_counting_init(img, n, &bp, 1));
    HUGE(sketch_counting_add_batch(img, n, slices, HUGE_SLICES, NULL));
    HUGE(sketch_counting_add_packed(img, n, data, 2, offs, HUGE_OFFSETS, NULL));
    HUGE(sketch_counting_add_u64_batch(img, n, ints, HUGE_U64, NULL));
    HUGE(sketch_counting_add_hash_batch(img, n, ints, HUGE_U64, NULL));
    HUGE(sketch_counting_contains_batch(img, n, slices, HUGE_SLICES, res));
    HUGE(sketch_counting_contains_packed(img, n, data, 2, offs, HUGE_OFFSETS, res));
    HUGE(sketch_counting_contains_u64_batch(img, n, ints, HUGE_U64, res));
    HUGE(sketch_counting_contains_hash_batch(img, n, ints, HUGE_U64, res));
    HUGE(sketch_counting_remove_batch(img, n, slices, HUGE_SLICES, res));
    HUGE(sketch_counting_remove_packed(img, n, data, 2, offs, HUGE_OFFSETS, res));
    HUGE(sketch_counting_remove_u64_batch(img, n, ints, HUGE_U64, res));
    HUGE(sketch_counting_remove_hash_batch(img, n, ints, HUGE_U64, res));
    SWEEP_END();

    struct sketch_sbbf_params sp;
    EXPECT(sketch_sbbf_plan(100, 0.01, &sp), SKETCH_OK);
    EXPECT(sketch_sbbf_size(&sp, &size), SKETCH_OK);
    SWEEP_BEGIN(sketch_sbbf_init(img, n, &sp, 1));
    HUGE(sketch_sbbf_add_batch(img, n, slices, HUGE_SLICES, NULL));
    HUGE(sketch_sbbf_add_packed(img, n, data, 2, offs, HUGE_OFFSETS, NULL));
    HUGE(sketch_sbbf_add_u64_batch(img, n, ints, HUGE_U64, NULL));
    HUGE(sketch_sbbf_add_hash_batch(img, n, ints, HUGE_U64, NULL));
    HUGE(sketch_sbbf_contains_batch(img, n, slices, HUGE_SLICES, res));
    HUGE(sketch_sbbf_contains_packed(img, n, data, 2, offs, HUGE_OFFSETS, res));
    HUGE(sketch_sbbf_contains_u64_batch(img, n, ints, HUGE_U64, res));
    HUGE(sketch_sbbf_contains_hash_batch(img, n, ints, HUGE_U64, res));
    SWEEP_END();

    struct sketch_cuckoo_params cp;
    EXPECT(sketch_cuckoo_plan(100, 0.01, &cp), SKETCH_OK);
    EXPECT(sketch_cuckoo_size(&cp, &size), SKETCH_OK);
    SWEEP_BEGIN(sketch_cuckoo_init(img, n, &cp, 1));
    HUGE(sketch_cuckoo_add_batch(img, n, slices, HUGE_SLICES, NULL));
    HUGE(sketch_cuckoo_add_packed(img, n, data, 2, offs, HUGE_OFFSETS, NULL));
    HUGE(sketch_cuckoo_add_u64_batch(img, n, ints, HUGE_U64, NULL));
    HUGE(sketch_cuckoo_add_hash_batch(img, n, ints, HUGE_U64, NULL));
    HUGE(sketch_cuckoo_contains_batch(img, n, slices, HUGE_SLICES, res));
    HUGE(sketch_cuckoo_contains_packed(img, n, data, 2, offs, HUGE_OFFSETS, res));
    HUGE(sketch_cuckoo_contains_u64_batch(img, n, ints, HUGE_U64, res));
    HUGE(sketch_cuckoo_contains_hash_batch(img, n, ints, HUGE_U64, res));
    HUGE(sketch_cuckoo_remove_batch(img, n, slices, HUGE_SLICES, NULL));
    HUGE(sketch_cuckoo_remove_packed(img, n, data, 2, offs, HUGE_OFFSETS, NULL));
    HUGE(sketch_cuckoo_remove_u64_batch(img, n, ints, HUGE_U64, NULL));
    HUGE(sketch_cuckoo_remove_hash_batch(img, n, ints, HUGE_U64, NULL));
    SWEEP_END();

    struct sketch_countmin_params mp;
    EXPECT(sketch_countmin_plan_size(64, 2, &mp), SKETCH_OK);
    EXPECT(sketch_countmin_size(&mp, &size), SKETCH_OK);
    SWEEP_BEGIN(sketch_countmin_init(img, n, &mp, 1));
    HUGE(sketch_countmin_add_batch(img, n, slices, HUGE_SLICES, NULL));
    HUGE(sketch_countmin_add_packed(img, n, data, 2, offs, HUGE_OFFSETS, NULL));
    HUGE(sketch_countmin_add_u64_batch(img, n, ints, HUGE_U64, NULL));
    HUGE(sketch_countmin_add_hash_batch(img, n, ints, HUGE_U64, NULL));
    HUGE(sketch_countmin_estimate_batch(img, n, slices, HUGE_SLICES, out64));
    HUGE(sketch_countmin_estimate_packed(img, n, data, 2, offs, HUGE_OFFSETS, out64));
    HUGE(sketch_countmin_estimate_u64_batch(img, n, ints, HUGE_U64, out64));
    HUGE(sketch_countmin_estimate_hash_batch(img, n, ints, HUGE_U64, out64));
    SWEEP_END();

    EXPECT(sketch_topk_size(4, 8, &size), SKETCH_OK);
    SWEEP_BEGIN(sketch_topk_init(img, n, 4, 8, 1));
    HUGE(sketch_topk_add_batch(img, n, slices, HUGE_SLICES, NULL));
    HUGE(sketch_topk_add_packed(img, n, data, 2, offs, HUGE_OFFSETS, NULL));
    HUGE(sketch_topk_add_u64_batch(img, n, ints, HUGE_U64, NULL));
    SWEEP_END();

    EXPECT(sketch_hll_size(8, &size), SKETCH_OK);
    SWEEP_BEGIN(sketch_hll_init(img, n, 8, 1));
    HUGE(sketch_hll_add_batch(img, n, slices, HUGE_SLICES));
    HUGE(sketch_hll_add_packed(img, n, data, 2, offs, HUGE_OFFSETS));
    HUGE(sketch_hll_add_u64_batch(img, n, ints, HUGE_U64));
    HUGE(sketch_hll_add_hash_batch(img, n, ints, HUGE_U64));
    SWEEP_END();

    EXPECT(sketch_ull_size(8, &size), SKETCH_OK);
    SWEEP_BEGIN(sketch_ull_init(img, n, 8, 1));
    HUGE(sketch_ull_add_batch(img, n, slices, HUGE_SLICES));
    HUGE(sketch_ull_add_packed(img, n, data, 2, offs, HUGE_OFFSETS));
    HUGE(sketch_ull_add_u64_batch(img, n, ints, HUGE_U64));
    HUGE(sketch_ull_add_hash_batch(img, n, ints, HUGE_U64));
    SWEEP_END();

    struct sketch_ell_params ep = {2, 20, 6, 0};
    EXPECT(sketch_ell_size(&ep, &size), SKETCH_OK);
    SWEEP_BEGIN(sketch_ell_init(img, n, &ep, 1));
    HUGE(sketch_ell_add_batch(img, n, slices, HUGE_SLICES));
    HUGE(sketch_ell_add_packed(img, n, data, 2, offs, HUGE_OFFSETS));
    HUGE(sketch_ell_add_u64_batch(img, n, ints, HUGE_U64));
    HUGE(sketch_ell_add_hash_batch(img, n, ints, HUGE_U64));
    SWEEP_END();

    EXPECT(sketch_minhash_size(16, &size), SKETCH_OK);
    SWEEP_BEGIN(sketch_minhash_init(img, n, 16, 1));
    HUGE(sketch_minhash_add_batch(img, n, slices, HUGE_SLICES));
    HUGE(sketch_minhash_add_packed(img, n, data, 2, offs, HUGE_OFFSETS));
    HUGE(sketch_minhash_add_u64_batch(img, n, ints, HUGE_U64));
    HUGE(sketch_minhash_add_hash_batch(img, n, ints, HUGE_U64));
    SWEEP_END();

    struct sketch_fuse_params fp;
    EXPECT(sketch_fuse_plan_bits(4, 8, &fp), SKETCH_OK);
    uint64_t scratch_size = 0;
    EXPECT(sketch_fuse_size(&fp, &size), SKETCH_OK);
    EXPECT(sketch_fuse_scratch_size(&fp, &scratch_size), SKETCH_OK);
    unsigned char *scratch = alloc_image(scratch_size);
    SWEEP_BEGIN(sketch_fuse_build_u64_batch(img, n, &fp, 1, ints, 2, scratch, (size_t)scratch_size));
    HUGE(sketch_fuse_contains_batch(img, n, slices, HUGE_SLICES, res));
    HUGE(sketch_fuse_contains_packed(img, n, data, 2, offs, HUGE_OFFSETS, res));
    HUGE(sketch_fuse_contains_u64_batch(img, n, ints, HUGE_U64, res));
    HUGE(sketch_fuse_contains_hash_batch(img, n, ints, HUGE_U64, res));
    /* a build with a huge count: refused by the count check or the plan
     * (more keys than params.keys), never read */
    sketch_status s = sketch_fuse_build_u64_batch(img, n, &fp, 1, ints, HUGE_U64, scratch, (size_t)scratch_size);
    CHECK(s == SKETCH_INVALID_ARGUMENT);
    s = sketch_fuse_build_batch(img, n, &fp, 1, slices, HUGE_SLICES, scratch, (size_t)scratch_size);
    CHECK(s == SKETCH_INVALID_ARGUMENT);
    s = sketch_fuse_build_packed(img, n, &fp, 1, data, 2, offs, HUGE_OFFSETS, scratch, (size_t)scratch_size);
    CHECK(s == SKETCH_INVALID_ARGUMENT);
    SWEEP_END();
    free(scratch);

    HUGE(sketch_hash_batch(slices, HUGE_SLICES, 0, out64));
    HUGE(sketch_hash_packed(data, 2, offs, HUGE_OFFSETS, 0, out64));
    HUGE(sketch_hash_u64_batch(ints, HUGE_U64, 0, out64));
#undef SWEEP_BEGIN
#undef SWEEP_END
#undef HUGE
}

int main(void) {
    test_topk_claims();
    test_fuse_claims();
    test_cuckoo_claims();
    test_counting_claims();
    test_countmin_claims();
    test_hll_claims();
    test_ull_claims();
    test_ell_claims();
    test_minhash_claims();
    test_bloom_and_shared_claims();
    test_planner_claims();
    test_reporting_claims();
    test_conversion_claims();
    test_countmin_topk_more_claims();
    test_sbbf_plan_claims();
    test_batch_removal_claims();
    test_shipping_claims();
    test_huge_count_claims();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
