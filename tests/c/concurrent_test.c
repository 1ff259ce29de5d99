/*
 * Concurrent adds through the C ABI: 8 threads add disjoint and overlapping
 * keys to one image of Bloom, split-block Bloom, HyperLogLog and UltraLogLog with the
 * _concurrent functions (single, u64, hash, batch, packed and u64-batch
 * forms), while other threads query it; the final image must equal the
 * image of the same adds made one at a time, except the fields each family
 * documents as order-dependent (the filters' "inserted" counts; the martingale
 * estimate fields of HLL and ULL, which concurrent adds end). The filters'
 * over-capacity signal is read with sketch_*_capacity_concurrent while the
 * adds run, and must raise on overfilled filters as the plain call does. Built with
 * -Wall -Wextra -Werror, run plain and under ThreadSanitizer by
 * tests/tests/concurrent.rs. Prints "N passed, N failed".
 */
#include "sketches.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { THREADS = 8, OWN = 6000, COMMON = 2000 };

/* Key j of thread t: its own range, then a range every thread adds. */
static uint64_t key_of(int t, int j) {
    return j < OWN ? (uint64_t)t * OWN + (uint64_t)j : 1000000u + (uint64_t)(j - OWN);
}

enum family { BLOOM, SBBF, HLL, ULL };

struct job {
    enum family family;
    void *buf;
    size_t len;
    int thread;
    int errors;
};

static sketch_status bloom_or_sbbf_packed(const struct job *job, const char *data, const uint32_t *offsets, bool *found) {
    return job->family == BLOOM ? sketch_bloom_contains_concurrent_packed(job->buf, job->len, data, 8, offsets, 2, found)
                                : sketch_sbbf_contains_concurrent_packed(job->buf, job->len, data, 8, offsets, 2, found);
}

/* Each thread uses every form on its keys, in slices. */
static void *adder(void *arg) {
    struct job *job = arg;
    enum { N = OWN + COMMON };
    uint64_t ints[N];
    char strings[N][24];
    struct sketch_slice slices[N];
    char packed[N * 24];
    uint32_t offsets[N + 1];
    size_t at = 0;
    for (int j = 0; j < N; j++) {
        ints[j] = key_of(job->thread, j);
        int n = snprintf(strings[j], sizeof strings[j], "key-%llu", (unsigned long long)ints[j]);
        slices[j].ptr = strings[j];
        slices[j].len = (size_t)n;
        offsets[j] = (uint32_t)at;
        memcpy(packed + at, strings[j], (size_t)n);
        at += (size_t)n;
    }
    offsets[N] = (uint32_t)at;
    /* The string keys in 4 ranges, one form each; the integer keys in 2. */
    const int q = N / 4;
    for (int part = 0; part < 4; part++) {
        int lo = part * q, hi = part == 3 ? N : lo + q;
        for (int j = lo; j < hi; j++) {
            sketch_status s = SKETCH_OK;
            switch (part) {
                case 0:
                    if (job->family == BLOOM) s = sketch_bloom_add_concurrent(job->buf, job->len, strings[j], slices[j].len, NULL);
                    if (job->family == SBBF) s = sketch_sbbf_add_concurrent(job->buf, job->len, strings[j], slices[j].len, NULL);
                    if (job->family == HLL) s = sketch_hll_add_concurrent(job->buf, job->len, strings[j], slices[j].len, NULL);
                    if (job->family == ULL) s = sketch_ull_add_concurrent(job->buf, job->len, strings[j], slices[j].len, NULL);
                    break;
                case 1: {
                    uint64_t h = sketch_hash(strings[j], slices[j].len, 7);
                    if (job->family == BLOOM) s = sketch_bloom_add_concurrent_hash(job->buf, job->len, h, NULL);
                    if (job->family == SBBF) s = sketch_sbbf_add_concurrent_hash(job->buf, job->len, h, NULL);
                    if (job->family == HLL) s = sketch_hll_add_concurrent_hash(job->buf, job->len, h, NULL);
                    if (job->family == ULL) s = sketch_ull_add_concurrent_hash(job->buf, job->len, h, NULL);
                    break;
                }
                default:
                    break;
            }
            if (s != SKETCH_OK) job->errors++;
            /* The HyperLogLog estimate read while every thread adds (most
             * registers still rising from 0, when two threads raising one
             * register in turn may book their histogram changes out of
             * order): at least half this thread's j + 1 distinct keys, at
             * most half again every key of every thread. */
            if (job->family == HLL && j % 16 == 0) {
                double e = -1;
                s = sketch_hll_estimate_concurrent(job->buf, job->len, &e);
                if (s != SKETCH_OK || !(e >= (j + 1) / 2.0 && e <= 3.0 * THREADS * N)) job->errors++;
            }
        }
        if (part >= 2) {
            sketch_status s = SKETCH_OK;
            size_t count = (size_t)(hi - lo);
            if (part == 2) {
                if (job->family == BLOOM) s = sketch_bloom_add_concurrent_batch(job->buf, job->len, slices + lo, count, NULL);
                if (job->family == SBBF) s = sketch_sbbf_add_concurrent_batch(job->buf, job->len, slices + lo, count, NULL);
                if (job->family == HLL) s = sketch_hll_add_concurrent_batch(job->buf, job->len, slices + lo, count);
                if (job->family == ULL) s = sketch_ull_add_concurrent_batch(job->buf, job->len, slices + lo, count);
            } else {
                if (job->family == BLOOM) s = sketch_bloom_add_concurrent_packed(job->buf, job->len, packed, at, offsets + lo, count, NULL);
                if (job->family == SBBF) s = sketch_sbbf_add_concurrent_packed(job->buf, job->len, packed, at, offsets + lo, count, NULL);
                if (job->family == HLL) s = sketch_hll_add_concurrent_packed(job->buf, job->len, packed, at, offsets + lo, count);
                if (job->family == ULL) s = sketch_ull_add_concurrent_packed(job->buf, job->len, packed, at, offsets + lo, count);
            }
            if (s != SKETCH_OK) job->errors++;
        }
        /* The over-capacity signal, read while the other threads add. */
        if (job->family == BLOOM || job->family == SBBF) {
            uint32_t flags = 99;
            sketch_status s = job->family == BLOOM ? sketch_bloom_capacity_concurrent(job->buf, job->len, &flags)
                                                   : sketch_sbbf_capacity_concurrent(job->buf, job->len, &flags);
            if (s != SKETCH_OK || flags != 0) job->errors++; /* planned for 200,000: within plan */
        }
    }
    sketch_status s = SKETCH_OK;
    if (job->family == BLOOM) {
        s = sketch_bloom_add_concurrent_u64_batch(job->buf, job->len, ints, N / 2, NULL);
        for (int j = N / 2; j < N && s == SKETCH_OK; j++) s = sketch_bloom_add_concurrent_u64(job->buf, job->len, ints[j], NULL);
        bool in = false;
        if (s == SKETCH_OK) s = sketch_bloom_contains_concurrent_u64(job->buf, job->len, ints[0], &in);
        if (s == SKETCH_OK && !in) job->errors++;
    } else if (job->family == SBBF) {
        s = sketch_sbbf_add_concurrent_u64_batch(job->buf, job->len, ints, N / 2, NULL);
        for (int j = N / 2; j < N && s == SKETCH_OK; j++) s = sketch_sbbf_add_concurrent_u64(job->buf, job->len, ints[j], NULL);
        bool in = false;
        if (s == SKETCH_OK) s = sketch_sbbf_contains_concurrent(job->buf, job->len, strings[0], slices[0].len, &in);
        if (s == SKETCH_OK && !in) job->errors++;
    } else if (job->family == HLL) {
        s = sketch_hll_add_concurrent_u64_batch(job->buf, job->len, ints, N / 2);
        for (int j = N / 2; j < N && s == SKETCH_OK; j++) s = sketch_hll_add_concurrent_u64(job->buf, job->len, ints[j], NULL);
        double e = 0;
        if (s == SKETCH_OK) s = sketch_hll_estimate_concurrent(job->buf, job->len, &e);
    } else {
        s = sketch_ull_add_concurrent_u64_batch(job->buf, job->len, ints, N / 2);
        for (int j = N / 2; j < N && s == SKETCH_OK; j++) s = sketch_ull_add_concurrent_u64(job->buf, job->len, ints[j], NULL);
        double e = 0;
        if (s == SKETCH_OK) s = sketch_ull_estimate_concurrent(job->buf, job->len, &e);
    }
    if (s != SKETCH_OK) job->errors++;
    /* This thread's adds have returned: every batch query form, run while
     * the other threads still add, finds all of its keys. */
    if (job->family == BLOOM || job->family == SBBF) {
        static _Thread_local bool found[N];
        static _Thread_local uint64_t hashes[N];
        for (int form = 0; form < 4; form++) {
            memset(found, 0, sizeof found);
            bool bloom = job->family == BLOOM;
            switch (form) {
                case 0:
                    s = bloom ? sketch_bloom_contains_concurrent_batch(job->buf, job->len, slices, N, found)
                              : sketch_sbbf_contains_concurrent_batch(job->buf, job->len, slices, N, found);
                    break;
                case 1:
                    s = bloom ? sketch_bloom_contains_concurrent_packed(job->buf, job->len, packed, at, offsets, N, found)
                              : sketch_sbbf_contains_concurrent_packed(job->buf, job->len, packed, at, offsets, N, found);
                    break;
                case 2:
                    s = bloom ? sketch_bloom_contains_concurrent_u64_batch(job->buf, job->len, ints, N, found)
                              : sketch_sbbf_contains_concurrent_u64_batch(job->buf, job->len, ints, N, found);
                    break;
                default:
                    for (int j = 0; j < N; j++) hashes[j] = sketch_hash(strings[j], slices[j].len, 7);
                    s = bloom ? sketch_bloom_contains_concurrent_hash_batch(job->buf, job->len, hashes, N, found)
                              : sketch_sbbf_contains_concurrent_hash_batch(job->buf, job->len, hashes, N, found);
                    bool one = false;
                    sketch_status s1 = bloom ? sketch_bloom_contains_concurrent_hash(job->buf, job->len, hashes[N - 1], &one)
                                             : sketch_sbbf_contains_concurrent_hash(job->buf, job->len, hashes[N - 1], &one);
                    if (s1 != SKETCH_OK || !one) job->errors++;
                    break;
            }
            if (s != SKETCH_OK) job->errors++;
            for (int j = 0; j < N; j++)
                if (!found[j]) job->errors++;
        }
        /* Results are required; bad offsets are refused. */
        if (sketch_bloom_contains_concurrent_u64_batch(job->buf, job->len, ints, 1, NULL) != SKETCH_NULL_POINTER) job->errors++;
        uint32_t bad[3] = {0, 5, 2};
        s = bloom_or_sbbf_packed(job, packed, bad, found);
        if (s != SKETCH_INVALID_PARAMETER) job->errors++;
    }
    return NULL;
}

/* The same adds, one thread, plain functions. */
static void sequential(enum family f, void *buf, size_t len) {
    for (int t = 0; t < THREADS; t++) {
        for (int j = 0; j < OWN + COMMON; j++) {
            uint64_t k = key_of(t, j);
            char s[24];
            int n = snprintf(s, sizeof s, "key-%llu", (unsigned long long)k);
            if (f == BLOOM) {
                sketch_bloom_add(buf, len, s, (size_t)n, NULL);
                sketch_bloom_add_u64(buf, len, k, NULL);
            } else if (f == SBBF) {
                sketch_sbbf_add(buf, len, s, (size_t)n, NULL);
                sketch_sbbf_add_u64(buf, len, k, NULL);
            } else if (f == HLL) {
                sketch_hll_add(buf, len, s, (size_t)n, NULL);
                sketch_hll_add_u64(buf, len, k, NULL);
            } else {
                sketch_ull_add(buf, len, s, (size_t)n, NULL);
                sketch_ull_add_u64(buf, len, k, NULL);
            }
        }
    }
}

/* Equal except the byte ranges [skip[i], skip[i+1]). */
static int equal_except(const unsigned char *a, const unsigned char *b, size_t len, const size_t *skip, int nskip) {
    for (size_t i = 0; i < len; i++) {
        int skipped = 0;
        for (int s = 0; s < nskip; s += 2) skipped |= i >= skip[s] && i < skip[s + 1];
        if (!skipped && a[i] != b[i]) {
            fprintf(stderr, "byte %zu differs: %u vs %u\n", i, a[i], b[i]);
            return 0;
        }
    }
    return 1;
}

static void run_family(enum family f) {
    uint64_t size = 0;
    struct sketch_bloom_params bp;
    struct sketch_sbbf_params sp;
    if (f == BLOOM) {
        sketch_bloom_plan(200000, 0.01, &bp);
        sketch_bloom_size(&bp, &size);
    } else if (f == SBBF) {
        sketch_sbbf_plan(200000, 0.01, &sp);
        sketch_sbbf_size(&sp, &size);
    } else if (f == HLL) {
        sketch_hll_size(10, &size);
    } else {
        sketch_ull_size(10, &size);
    }
    unsigned char *conc = aligned_alloc(SKETCH_IMAGE_ALIGN, size), *seq = aligned_alloc(SKETCH_IMAGE_ALIGN, size);
    if (conc == NULL || seq == NULL) exit(2);
    size_t len = (size_t)size;
    if (f == BLOOM) {
        CHECK(sketch_bloom_init(conc, len, &bp, 7) == SKETCH_OK);
    } else if (f == SBBF) {
        CHECK(sketch_sbbf_init(conc, len, &sp, 7) == SKETCH_OK);
    } else if (f == HLL) {
        CHECK(sketch_hll_init(conc, len, 10, 7) == SKETCH_OK);
        /* Concurrent adds need a dense HyperLogLog. */
        CHECK(sketch_hll_add_concurrent_u64(conc, len, 1, NULL) == SKETCH_SMALL_MODE);
        CHECK(sketch_hll_densify(conc, len) == SKETCH_OK);
    } else {
        CHECK(sketch_ull_init(conc, len, 10, 7) == SKETCH_OK);
    }
    memcpy(seq, conc, len);
    pthread_t threads[THREADS];
    struct job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (struct job){f, conc, len, t, 0};
        CHECK(pthread_create(&threads[t], NULL, adder, &jobs[t]) == 0);
    }
    for (int t = 0; t < THREADS; t++) {
        CHECK(pthread_join(threads[t], NULL) == 0);
        CHECK(jobs[t].errors == 0);
    }
    sequential(f, seq, len);
    if (f == BLOOM) {
        const size_t skip[] = {88, 96}; /* inserted: order-dependent */
        CHECK(equal_except(conc, seq, len, skip, 2));
    } else if (f == SBBF) {
        const size_t skip[] = {80, 88}; /* inserted: order-dependent */
        CHECK(equal_except(conc, seq, len, skip, 2));
    } else if (f == HLL) {
        const size_t skip[] = {336, 345}; /* martingale estimate and flag */
        CHECK(equal_except(conc, seq, len, skip, 2));
        double a = 0, b = 0;
        CHECK(sketch_hll_register_estimate(conc, len, &a) == SKETCH_OK && sketch_hll_register_estimate(seq, len, &b) == SKETCH_OK);
        CHECK(a == b);
    } else {
        const size_t skip[] = {49, 50, 56, 80}; /* martingale flag, estimate, change weight */
        CHECK(equal_except(conc, seq, len, skip, 4));
    }
    /* After the adds, the plain functions accept the image again. */
    size_t written = 0;
    unsigned char *out = malloc(len);
    if (out == NULL) exit(2);
    sketch_status s = f == BLOOM ? sketch_bloom_export(conc, len, out, len, &written)
                    : f == SBBF  ? sketch_sbbf_export(conc, len, out, len, &written)
                    : f == HLL   ? sketch_hll_export(conc, len, out, len, &written)
                                 : sketch_ull_export(conc, len, out, len, &written);
    CHECK(s == SKETCH_OK && written == len);
    if (f == BLOOM || f == SBBF) {
        uint32_t plain = 99, shared = 99;
        CHECK((f == BLOOM ? sketch_bloom_capacity(conc, len, &plain) : sketch_sbbf_capacity(conc, len, &plain)) == SKETCH_OK);
        CHECK((f == BLOOM ? sketch_bloom_capacity_concurrent(conc, len, &shared)
                          : sketch_sbbf_capacity_concurrent(conc, len, &shared)) == SKETCH_OK);
        CHECK(plain == shared && plain == 0);
        uint32_t untouched = 99;
        CHECK(sketch_bloom_capacity_concurrent(conc, len, NULL) == SKETCH_NULL_POINTER);
        CHECK(sketch_sbbf_capacity_concurrent(NULL, len, &untouched) == SKETCH_NULL_POINTER);
        CHECK(sketch_sbbf_capacity_concurrent(conc + 8, len - 8, &untouched) != SKETCH_OK);
        CHECK(sketch_bloom_capacity_concurrent(conc + 1, len - 1, &untouched) == SKETCH_MISALIGNED);
        CHECK((f == BLOOM ? sketch_sbbf_capacity_concurrent(conc, len, &untouched)
                          : sketch_bloom_capacity_concurrent(conc, len, &untouched)) == SKETCH_WRONG_FAMILY);
        CHECK(untouched == 99);
    }
    /* Misuse: NULL, misaligned, wrong family. */
    CHECK(sketch_bloom_add_concurrent_u64(NULL, len, 1, NULL) == SKETCH_NULL_POINTER);
    CHECK(sketch_bloom_add_concurrent_u64(conc + 1, len - 1, 1, NULL) == SKETCH_MISALIGNED);
    CHECK(sketch_bloom_add_concurrent_u64(conc, 10, 1, NULL) == SKETCH_BUFFER_TOO_SMALL);
    if (f != BLOOM) CHECK(sketch_bloom_add_concurrent_u64(conc, len, 1, NULL) == SKETCH_WRONG_FAMILY);
    free(out);
    free(conc);
    free(seq);
}

/* Filters planned for 1,000 keys and given 20,000 through the concurrent
 * adds: the concurrent over-capacity signal raises both flags, as the plain
 * one does; a split-block filter loaded from a full Parquet bitset (no
 * counted adds) raises them from its fill. */
static void overfill(void) {
    struct sketch_bloom_params bp;
    struct sketch_sbbf_params sp;
    uint64_t bsize = 0, ssize = 0;
    CHECK(sketch_bloom_plan(1000, 0.01, &bp) == SKETCH_OK && sketch_bloom_size(&bp, &bsize) == SKETCH_OK);
    CHECK(sketch_sbbf_plan(1000, 0.01, &sp) == SKETCH_OK && sketch_sbbf_size(&sp, &ssize) == SKETCH_OK);
    unsigned char *b = aligned_alloc(SKETCH_IMAGE_ALIGN, (size_t)bsize), *sb = aligned_alloc(SKETCH_IMAGE_ALIGN, (size_t)ssize);
    if (b == NULL || sb == NULL) exit(2);
    CHECK(sketch_bloom_init(b, (size_t)bsize, &bp, 7) == SKETCH_OK);
    CHECK(sketch_sbbf_init(sb, (size_t)ssize, &sp, 7) == SKETCH_OK);
    uint32_t flags = 99;
    CHECK(sketch_bloom_capacity_concurrent(b, (size_t)bsize, &flags) == SKETCH_OK && flags == 0);
    CHECK(sketch_sbbf_capacity_concurrent(sb, (size_t)ssize, &flags) == SKETCH_OK && flags == 0);
    for (uint64_t k = 0; k < 20000; k++) {
        CHECK(sketch_bloom_add_concurrent_u64(b, (size_t)bsize, k, NULL) == SKETCH_OK);
        CHECK(sketch_sbbf_add_concurrent_u64(sb, (size_t)ssize, k, NULL) == SKETCH_OK);
    }
    const uint32_t both = SKETCH_CAPACITY_OVER_PLANNED_ITEMS | SKETCH_CAPACITY_FPR_ABOVE_TWICE_PLANNED;
    uint32_t plain = 0;
    CHECK(sketch_bloom_capacity_concurrent(b, (size_t)bsize, &flags) == SKETCH_OK && flags == both);
    CHECK(sketch_bloom_capacity(b, (size_t)bsize, &plain) == SKETCH_OK && plain == flags);
    CHECK(sketch_sbbf_capacity_concurrent(sb, (size_t)ssize, &flags) == SKETCH_OK && flags == both);
    CHECK(sketch_sbbf_capacity(sb, (size_t)ssize, &plain) == SKETCH_OK && plain == flags);
    /* Loaded from an all-ones bitset: no adds counted, the fill decides. */
    enum { BITSET = 4096 };
    static unsigned char ones[BITSET];
    memset(ones, 0xff, sizeof ones);
    struct sketch_sbbf_params pp;
    uint64_t psize = 0;
    CHECK(sketch_sbbf_plan_parquet_bitset(BITSET, 0.01, &pp) == SKETCH_OK && sketch_sbbf_size(&pp, &psize) == SKETCH_OK);
    unsigned char *loaded = aligned_alloc(SKETCH_IMAGE_ALIGN, (size_t)psize);
    if (loaded == NULL) exit(2);
    CHECK(sketch_sbbf_load_parquet_bitset(loaded, (size_t)psize, ones, BITSET, &pp) == SKETCH_OK);
    flags = 0;
    CHECK(sketch_sbbf_capacity_concurrent(loaded, (size_t)psize, &flags) == SKETCH_OK);
    CHECK(sketch_sbbf_capacity(loaded, (size_t)psize, &plain) == SKETCH_OK && plain == flags);
    CHECK((flags & SKETCH_CAPACITY_FPR_ABOVE_TWICE_PLANNED) != 0);
    free(loaded);
    free(b);
    free(sb);
}

int main(void) {
    overfill();
    run_family(BLOOM);
    run_family(SBBF);
    run_family(HLL);
    run_family(ULL);
    printf("concurrent_test: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
