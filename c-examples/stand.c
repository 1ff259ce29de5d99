/*
 * The stand: reproduces, through the C ABI, the measured table of the
 * article "Probabilistic structures: Bloom filters and company - when they
 * pay off and when they do not" (in Russian; its stand is a Go program with
 * bits-and-blooms/bloom, axiomhq/hyperloglog and seiflotfy/cuckoofilter on
 * 1,000,000 keys: Bloom 1170 KB vs an exact set 62500 KB, HLL about 16 KB
 * at -0.08% / -0.858% error, cuckoo 1.86x / 2.17x Bloom's insert / query
 * speed), and prints our figures beside the article's.
 *
 *   stand            full run (1,000,000 keys)
 *   stand --keys N   another key count (the article's rows assume 1,000,000)
 *
 * Every family has rows: Bloom, split-block, cuckoo, binary fuse,
 * HyperLogLog/UltraLogLog/ExaLogLog, Count-Min, MinHash, Top-k.
 */
#define _POSIX_C_SOURCE 200809L
#include "sketches.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(sketch_status s, const char *what) {
    if (s != SKETCH_OK) {
        fprintf(stderr, "stand: %s: %s\n", what, sketch_status_str((int)s));
        exit(1);
    }
}

static void *alloc_aligned(uint64_t bytes) {
    /* 64-byte alignment (8 is required) keeps split-block blocks in one cache line. */
    void *p = aligned_alloc(64, ((size_t)bytes + 63) / 64 * 64);
    if (p == NULL) {
        fprintf(stderr, "stand: out of memory\n");
        exit(1);
    }
    return p;
}

/* Keys "<prefix>-<i>" stored back to back in one arena. */
struct keyset {
    struct sketch_slice *keys;
    char *arena;
    size_t count, arena_used;
};

static struct keyset make_keys(const char *prefix, size_t count) {
    struct keyset k;
    k.count = count;
    k.keys = malloc(count * sizeof *k.keys);
    k.arena = malloc(count * 24 + 64);
    k.arena_used = 0;
    if (k.keys == NULL || k.arena == NULL) {
        fprintf(stderr, "stand: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < count; i++) {
        int n = sprintf(k.arena + k.arena_used, "%s-%zu", prefix, i);
        k.keys[i].ptr = (const uint8_t *)(k.arena + k.arena_used);
        k.keys[i].len = (size_t)n;
        k.arena_used += (size_t)n;
    }
    return k;
}

static void free_keys(struct keyset *k) {
    free(k->keys);
    free(k->arena);
}

/* An exact set of the same strings: open addressing (load <= 0.5) over
   16-byte slots plus the string bytes in an arena. Its memory is what it
   allocates, measured, not assumed. */
struct exact_set {
    struct slot { uint64_t hash; uint32_t offset, len; } *slots;
    size_t capacity, size;
    char *arena;
    size_t arena_used, arena_cap;
};

static size_t exact_set_build(const struct keyset *k) {
    struct exact_set s;
    s.capacity = 1;
    while (s.capacity < 2 * k->count) s.capacity <<= 1;
    s.slots = calloc(s.capacity, sizeof *s.slots);
    s.arena_cap = k->arena_used;
    s.arena = malloc(s.arena_cap);
    s.arena_used = 0;
    s.size = 0;
    if (s.slots == NULL || s.arena == NULL) exit(1);
    for (size_t i = 0; i < k->count; i++) {
        uint64_t h = sketch_hash(k->keys[i].ptr, k->keys[i].len, 0) | 1; /* 0 marks empty */
        size_t at = (size_t)h & (s.capacity - 1);
        int found = 0;
        while (s.slots[at].hash != 0) {
            if (s.slots[at].hash == h && s.slots[at].len == k->keys[i].len &&
                memcmp(s.arena + s.slots[at].offset, k->keys[i].ptr, k->keys[i].len) == 0) {
                found = 1;
                break;
            }
            at = (at + 1) & (s.capacity - 1);
        }
        if (found) continue;
        memcpy(s.arena + s.arena_used, k->keys[i].ptr, k->keys[i].len);
        s.slots[at].hash = h;
        s.slots[at].offset = (uint32_t)s.arena_used;
        s.slots[at].len = (uint32_t)k->keys[i].len;
        s.arena_used += k->keys[i].len;
        s.size++;
    }
    size_t bytes = s.capacity * sizeof *s.slots + s.arena_used;
    free(s.slots);
    free(s.arena);
    return bytes;
}

typedef sketch_status (*add_batch_fn)(void *, size_t, const struct sketch_slice *, size_t, bool *);
typedef sketch_status (*contains_batch_fn)(const void *, size_t, const struct sketch_slice *, size_t, bool *);
typedef sketch_status (*add_fn)(void *, size_t, const void *, size_t, bool *);
typedef sketch_status (*contains_fn)(const void *, size_t, const void *, size_t, bool *);
typedef sketch_status (*view_fn)(void *, size_t, struct sketch_view *);
typedef sketch_status (*view_add_fn)(const struct sketch_view *, const void *, size_t, bool *);
typedef sketch_status (*view_contains_fn)(const struct sketch_view *, const void *, size_t, bool *);

/* A filter's C functions; the view forms are NULL for filters without
   kept views. */
struct filter_ops {
    const char *name;
    add_fn add;
    contains_fn contains;
    add_batch_fn add_batch;
    contains_batch_fn contains_batch;
    view_fn view;
    view_add_fn view_add;
    view_contains_fn view_contains;
};

static size_t count_hits(const struct filter_ops *ops, const void *f, size_t len, const struct keyset *k) {
    enum { CHUNK = 4096 };
    static bool results[CHUNK];
    size_t hits = 0;
    for (size_t i = 0; i < k->count; i += CHUNK) {
        size_t n = k->count - i < CHUNK ? k->count - i : CHUNK;
        check(ops->contains_batch(f, len, k->keys + i, n, results), "contains_batch");
        for (size_t j = 0; j < n; j++) hits += results[j];
    }
    return hits;
}

static void add_all(const struct filter_ops *ops, void *f, size_t len, const struct keyset *k) {
    enum { CHUNK = 4096 };
    for (size_t i = 0; i < k->count; i += CHUNK) {
        size_t n = k->count - i < CHUNK ? k->count - i : CHUNK;
        check(ops->add_batch(f, len, k->keys + i, n, NULL), "add_batch");
    }
}

/* Million operations per second for single calls, single calls through a
   kept view (sketch_<family>_view: the image checked once, then each call
   skips the header checks) and batch calls, with the time per key of the
   kept-view calls over the batch's (the target: at most 1.3x). */
static void throughput(const struct filter_ops *ops, void *f, size_t len, const struct keyset *present,
                       const struct keyset *absent) {
    struct sketch_view view;
    check(ops->view(f, len, &view), "view");
    double t0 = now_seconds();
    for (size_t i = 0; i < present->count; i++) {
        check(ops->add(f, len, present->keys[i].ptr, present->keys[i].len, NULL), "add");
    }
    double t1 = now_seconds();
    for (size_t i = 0; i < present->count; i++) {
        check(ops->view_add(&view, present->keys[i].ptr, present->keys[i].len, NULL), "view add");
    }
    double t2 = now_seconds();
    add_all(ops, f, len, present);
    double t3 = now_seconds();
    size_t sink = 0;
    for (size_t i = 0; i < present->count; i++) {
        bool b = false;
        check(ops->contains(f, len, present->keys[i].ptr, present->keys[i].len, &b), "contains");
        sink += b;
    }
    double t4 = now_seconds();
    for (size_t i = 0; i < present->count; i++) {
        bool b = false;
        check(ops->view_contains(&view, present->keys[i].ptr, present->keys[i].len, &b), "view contains");
        sink += b;
    }
    double t5 = now_seconds();
    sink += count_hits(ops, f, len, present);
    double t6 = now_seconds();
    sink += count_hits(ops, f, len, absent);
    double t7 = now_seconds();
    double m = (double)present->count / 1e6;
    printf("  %-18s add      %6.1f Mops/s single, %6.1f kept view, %6.1f batch (kept view / batch %.2fx)%s\n",
           ops->name, m / (t1 - t0), m / (t2 - t1), m / (t3 - t2), (t2 - t1) / (t3 - t2),
           sink == 0 ? " (?)" : "");
    printf("  %-18s contains %6.1f Mops/s single, %6.1f kept view, %6.1f batch (kept view / batch %.2fx), "
           "%.1f batch absent\n",
           "", m / (t4 - t3), m / (t5 - t4), m / (t6 - t5), (t5 - t4) / (t6 - t5),
           (double)absent->count / 1e6 / (t7 - t6));
}

/* The same for HyperLogLog (p = 14) adds of the n present keys: single
   calls, kept-view calls, batch calls (the keys are then all in). */
static void hll_throughput(const struct keyset *present) {
    enum { CHUNK = 4096 };
    uint64_t bytes;
    check(sketch_hll_size(14, &bytes), "size");
    void *hll = alloc_aligned(bytes);
    size_t len = (size_t)bytes;
    check(sketch_hll_init(hll, len, 14, 0), "init");
    struct sketch_view view;
    check(sketch_hll_view(hll, len, &view), "view");
    double t0 = now_seconds();
    for (size_t i = 0; i < present->count; i++) {
        check(sketch_hll_add(hll, len, present->keys[i].ptr, present->keys[i].len, NULL), "add");
    }
    double t1 = now_seconds();
    for (size_t i = 0; i < present->count; i++) {
        check(sketch_hll_view_add(&view, present->keys[i].ptr, present->keys[i].len, NULL), "view add");
    }
    double t2 = now_seconds();
    for (size_t i = 0; i < present->count; i += CHUNK) {
        size_t n = present->count - i < CHUNK ? present->count - i : CHUNK;
        check(sketch_hll_add_batch(hll, len, present->keys + i, n), "add_batch");
    }
    double t3 = now_seconds();
    double m = (double)present->count / 1e6;
    printf("  %-18s add      %6.1f Mops/s single, %6.1f kept view, %6.1f batch (kept view / batch %.2fx)\n",
           "HyperLogLog p=14", m / (t1 - t0), m / (t2 - t1), m / (t3 - t2), (t2 - t1) / (t3 - t2));
    free(hll);
}

/* Binary fuse filters (8- and 16-bit fingerprints) built from the n present
   keys, beside the Bloom filter and the cuckoo filters above. The 8-bit
   filter is kept for the throughput rows. */
struct fuse_result {
    void *image;
    size_t len;
    double build_seconds;
};

static const struct filter_ops fuse_ops = {
    "Binary fuse 8-bit", NULL, sketch_fuse_contains, NULL, sketch_fuse_contains_batch, NULL, NULL, NULL};
static const struct filter_ops bloom_ops = {"Bloom",
                                            sketch_bloom_add,
                                            sketch_bloom_contains,
                                            sketch_bloom_add_batch,
                                            sketch_bloom_contains_batch,
                                            sketch_bloom_view,
                                            sketch_bloom_view_add,
                                            sketch_bloom_view_contains};

static struct fuse_result fuse_rows(const struct keyset *present, const struct keyset *absent, void *bloom,
                                    size_t bloom_len, uint64_t bloom_bits, size_t bloom_fp, double bloom_query_single,
                                    const double cuckoo_bits[2], const double cuckoo_fpr[2],
                                    const double cuckoo_query[2]) {
    size_t n = present->count;
    struct fuse_result kept = {NULL, 0, 0};
    printf("\n%-52s %14s %14s\n", "Binary fuse filter vs Bloom and cuckoo (n keys)", "article", "sketches");
    double fuse_single = 0, fuse_batch = 0;
    for (uint32_t bits = 8; bits <= 16; bits += 8) {
        struct sketch_fuse_params params;
        check(sketch_fuse_plan_bits(n, bits, &params), "plan");
        uint64_t bytes, scratch_bytes;
        check(sketch_fuse_size(&params, &bytes), "size");
        check(sketch_fuse_scratch_size(&params, &scratch_bytes), "size");
        void *f = alloc_aligned(bytes), *scratch = malloc((size_t)scratch_bytes);
        size_t len = (size_t)bytes;
        if (scratch == NULL) exit(1);
        double t0 = now_seconds();
        check(sketch_fuse_build_batch(f, len, &params, 0, present->keys, n, scratch, (size_t)scratch_bytes), "build");
        double t1 = now_seconds();
        free(scratch);
        struct sketch_fuse_stats st;
        check(sketch_fuse_get_stats(f, len, &st), "stats");
        size_t fp = count_hits(&fuse_ops, f, len, absent);
        double t2 = now_seconds();
        size_t single_fp = 0;
        for (size_t i = 0; i < n; i++) {
            bool b = false;
            check(sketch_fuse_contains(f, len, absent->keys[i].ptr, absent->keys[i].len, &b), "contains");
            single_fp += b;
        }
        double t3 = now_seconds();
        size_t tp = count_hits(&fuse_ops, f, len, present);
        char label[80];
        snprintf(label, sizeof label, "  fuse, %u-bit fingerprints (built once, no adds)", bits);
        printf("%-52s %14s %11.0f KB\n", label, "-", (double)bytes / 1024.0);
        snprintf(label, sizeof label, "    fuse %u-bit: bits per key", bits);
        printf("%-52s %14s %14.2f\n", label, "-", st.bits_per_key);
        snprintf(label, sizeof label, "    fuse %u-bit: measured FPR (2^-%u = %.4f%%)", bits, bits, 100.0 * st.fpr);
        printf("%-52s %14s %13.4f%%\n", label, "-", 100.0 * (double)fp / (double)n);
        snprintf(label, sizeof label, "    fuse %u-bit: false negatives", bits);
        printf("%-52s %14s %14zu\n", label, "0", n - tp);
        snprintf(label, sizeof label, "    fuse %u-bit: build of n keys (one batch call)", bits);
        printf("%-52s %14s %11.0f ms\n", label, "-", 1000.0 * (t1 - t0));
        if (single_fp != fp) printf("    (single and batch queries disagree!)\n");
        if (bits == 8) {
            fuse_single = (double)n / (t3 - t2);
            fuse_batch = (double)n / (t2 - t1);
            kept.image = f;
            kept.len = len;
            kept.build_seconds = t1 - t0;
        } else {
            free(f);
        }
    }
    double t0 = now_seconds();
    size_t bloom_hits = count_hits(&bloom_ops, bloom, bloom_len, absent);
    double bloom_batch = (double)n / (now_seconds() - t0);
    printf("%-52s %14s %14.2f\n", "  bits per key: Bloom at 1%", "9.59", (double)bloom_bits / (double)n);
    printf("%-52s %14s %14.2f\n", "  bits per key: cuckoo 8-bit / 12-bit", "-", cuckoo_bits[0]);
    printf("%-52s %14s %14.2f\n", "", "", cuckoo_bits[1]);
    printf("%-52s %14s %13.2f%%\n", "  measured FPR: Bloom / cuckoo 8-bit / 12-bit", "-", 100.0 * (double)bloom_fp / (double)n);
    printf("%-52s %14s %13.2f%%\n", "", "", cuckoo_fpr[0]);
    printf("%-52s %14s %13.2f%%\n", "", "", cuckoo_fpr[1]);
    printf("%-52s %14s %13.2fx\n", "  query speed, fuse 8-bit / Bloom (single calls)", "-", fuse_single / bloom_query_single);
    printf("%-52s %14s %13.2fx\n", "  query speed, fuse 8-bit / Bloom (batch calls)", "-", fuse_batch / bloom_batch);
    printf("%-52s %14s %13.2fx\n", "  query speed, fuse 8-bit / cuckoo 8-bit (single)", "-", fuse_single / cuckoo_query[0]);
    if (bloom_hits == 0) printf("    (no Bloom false positive at all?)\n");
    return kept;
}

/* Build and query rates of the kept 8-bit binary fuse filter. */
static void fuse_throughput(const struct fuse_result *f, const struct keyset *present, const struct keyset *absent) {
    double t0 = now_seconds();
    size_t sink = 0;
    for (size_t i = 0; i < present->count; i++) {
        bool b = false;
        check(sketch_fuse_contains(f->image, f->len, present->keys[i].ptr, present->keys[i].len, &b), "contains");
        sink += b;
    }
    double t1 = now_seconds();
    sink += count_hits(&fuse_ops, f->image, f->len, present);
    double t2 = now_seconds();
    sink += count_hits(&fuse_ops, f->image, f->len, absent);
    double t3 = now_seconds();
    double m = (double)present->count / 1e6;
    printf("  %-18s build    %6.1f Mkeys/s (one batch call)%s\n", fuse_ops.name, m / f->build_seconds,
           sink == 0 ? " (?)" : "");
    printf("  %-18s contains %6.1f Mops/s single, %6.1f batch, %.1f batch absent\n",
           "", m / (t1 - t0), m / (t2 - t1), (double)absent->count / 1e6 / (t3 - t2));
}

/* Adds keys "<prefix>-<i>" for i in [from, to) to a cardinality sketch,
   hashing in the calls, 4096 keys per batch call. */
typedef sketch_status (*card_batch_fn)(void *, size_t, const struct sketch_slice *, size_t);
static void add_range(card_batch_fn add, void *sketch, size_t len, const char *prefix, size_t from, size_t to) {
    enum { CHUNK = 4096 };
    static struct sketch_slice keys[CHUNK];
    static char arena[CHUNK * 32];
    for (size_t start = from; start < to; start += CHUNK) {
        size_t count = to - start < CHUNK ? to - start : CHUNK, used = 0;
        for (size_t j = 0; j < count; j++) {
            int w = snprintf(arena + used, 32, "%s-%zu", prefix, start + j);
            keys[j].ptr = (const uint8_t *)(arena + used);
            keys[j].len = (size_t)w;
            used += (size_t)w;
        }
        check(add(sketch, len, keys, count), "cardinality add");
    }
}

static sketch_status bloom_add_keys(void *f, size_t len, const struct sketch_slice *keys, size_t count) {
    return sketch_bloom_add_batch(f, len, keys, count, NULL);
}

static double rel_error(double estimate, double truth) { return 100.0 * (estimate - truth) / truth; }

/* A row with an estimate's relative error (percent), followed by its
   expected standard error (one sd, percent) and how many sd this run's
   draw lies off (z): |z| above 3 is rare, smaller values are ordinary luck. */
static void error_row(const char *label, const char *article, double error_pct, double sd_pct) {
    printf("%-52s %14s %+13.3f%%   sd %.3f%%, z %+.1f\n", label, article, error_pct, sd_pct, error_pct / sd_pct);
}

static sketch_status ell_add_keys(void *e, size_t len, const struct sketch_slice *keys, size_t count) {
    return sketch_ell_add_batch(e, len, keys, count);
}

/* HyperLogLog (p = 14), UltraLogLog (p = 13, half the article's memory) and
   ExaLogLog (t = 2, d = 20, p = 11: 28-bit registers, less memory still)
   beside the article's HLL rows. */
static void cardinality_rows(size_t n, size_t exact_bytes, void *bloom, size_t bloom_len) {
    uint64_t hll_bytes, ull_bytes, hll12_bytes, ell_bytes;
    const struct sketch_ell_params ell_params = {2, 20, 11, 0};
    check(sketch_hll_size(14, &hll_bytes), "size");
    check(sketch_ull_size(13, &ull_bytes), "size");
    check(sketch_hll_size(12, &hll12_bytes), "size");
    check(sketch_ell_size(&ell_params, &ell_bytes), "size");
    size_t hl = (size_t)hll_bytes, ul = (size_t)ull_bytes, el = (size_t)ell_bytes;
    void *hll = alloc_aligned(hll_bytes), *half_a = alloc_aligned(hll_bytes), *half_b = alloc_aligned(hll_bytes);
    void *ull = alloc_aligned(ull_bytes), *ull_a = alloc_aligned(ull_bytes), *ull_b = alloc_aligned(ull_bytes);
    void *ell = alloc_aligned(ell_bytes), *ell_a = alloc_aligned(ell_bytes), *ell_b = alloc_aligned(ell_bytes);
    double est, uest, eest;

    printf("\n%-52s %14s %14s   %s\n", "HyperLogLog p=14 / UltraLogLog p=13 / ExaLogLog p=11", "article", "sketches",
           "expected error (1 sd) and z");
    /* Relative standard errors in percent: HLL 1.04 / sqrt(m) from the
       registers, 0.833 / sqrt(m) for the martingale estimate; ULL
       sqrt(0.6119 / m) from the registers, 0.658 / sqrt(m) martingale;
       ELL (t=2, d=20) 0.3622 / sqrt(m) maximum likelihood, 0.3177 / sqrt(m)
       martingale (Ertl's papers; m = 2^p registers). */
    const double hll_mart = 83.3 / 128.0, hll_regs = 104.0 / 128.0;
    const double ull_mart = 100.0 * 0.658 / sqrt(8192.0), ull_regs = 100.0 * sqrt(0.6118931496978426 / 8192.0);
    const double ell_mart = 100.0 * 0.3177 / sqrt(2048.0), ell_ml = 100.0 * 0.3622 / sqrt(2048.0);
    check(sketch_hll_init(hll, hl, 14, 0), "init");
    check(sketch_ull_init(ull, ul, 13, 0), "init");
    check(sketch_ell_init(ell, el, &ell_params, 0), "init");
    double t0 = now_seconds();
    add_range(sketch_hll_add_batch, hll, hl, "present", 0, n);
    double t1 = now_seconds();
    add_range(sketch_ull_add_batch, ull, ul, "present", 0, n);
    double t1u = now_seconds();
    add_range(ell_add_keys, ell, el, "present", 0, n);
    double t1e = now_seconds();
    check(sketch_hll_estimate(hll, hl, &est), "estimate");
    check(sketch_ull_estimate(ull, ul, &uest), "estimate");
    check(sketch_ell_estimate(ell, el, &eest), "estimate");
    double hll_reg, ull_reg, ull_ml, ell_mlest;
    check(sketch_hll_register_estimate(hll, hl, &hll_reg), "estimate");
    check(sketch_ull_register_estimate(ull, ul, &ull_reg), "estimate");
    check(sketch_ull_ml_estimate(ull, ul, &ull_ml), "estimate");
    check(sketch_ell_ml_estimate(ell, el, &ell_mlest), "estimate");
    double ull_add_rate = (double)n / (t1u - t1), ell_add_rate = (double)n / (t1e - t1u);
    double hll_add_rate = (double)n / (t1 - t0);
    check(sketch_bloom_clear(bloom, bloom_len), "clear");
    double t2 = now_seconds();
    add_range(bloom_add_keys, bloom, bloom_len, "present", 0, n);
    double bloom_add_rate = (double)n / (now_seconds() - t2);
    printf("%-52s %14s %11.0f KB\n", "  HLL memory (whole image; 12,288 register bytes)", "16 KB", (double)hll_bytes / 1024.0);
    error_row("  HLL error at n distinct (martingale estimate)", n == 1000000 ? "-0.08%" : "-", rel_error(est, (double)n),
              hll_mart);
    error_row("  ... from the registers (what merges report)", "-", rel_error(hll_reg, (double)n), hll_regs);
    printf("%-52s %14s %11.0f KB\n", "  memory: exact set of the same keys (measured)", "15625 KB", (double)exact_bytes / 1024.0);
    printf("%-52s %14s %11.0f KB\n", "  ULL memory (8,192 register bytes)", "-", (double)ull_bytes / 1024.0);
    error_row("  ULL error at n distinct (martingale estimate)", "-", rel_error(uest, (double)n), ull_mart);
    error_row("  ... from the registers (what merges report)", "-", rel_error(ull_reg, (double)n), ull_regs);
    error_row("  ... from the registers, maximum likelihood", "-", rel_error(ull_ml, (double)n), ull_regs);
    printf("%-52s %14s %11.1f KB\n", "  ELL memory (t=2, d=20: 7,168 register bytes)", "-", (double)ell_bytes / 1024.0);
    error_row("  ELL error at n distinct (martingale estimate)", "-", rel_error(eest, (double)n), ell_mart);
    error_row("  ELL ... from the registers (maximum likelihood)", "-", rel_error(ell_mlest, (double)n), ell_ml);
    printf("    (the article gives HLL's standard error as within 1%%; 1.04 / sqrt(2^14) = %.3f%%)\n", hll_regs);

    /* ten times more distinct keys: same memory */
    size_t big = 10 * n;
    add_range(sketch_hll_add_batch, hll, hl, "present", n, big);
    add_range(sketch_ull_add_batch, ull, ul, "present", n, big);
    add_range(ell_add_keys, ell, el, "present", n, big);
    check(sketch_hll_estimate(hll, hl, &est), "estimate");
    check(sketch_ull_estimate(ull, ul, &uest), "estimate");
    check(sketch_ell_estimate(ell, el, &eest), "estimate");
    check(sketch_ell_ml_estimate(ell, el, &ell_mlest), "estimate");
    printf("%-52s %14s %11.0f KB\n", "  HLL memory at 10 n distinct", "16 KB", (double)hll_bytes / 1024.0);
    error_row("  HLL error at 10 n distinct", n == 1000000 ? "-0.858%" : "-", rel_error(est, (double)big), hll_mart);
    error_row("  ULL error at 10 n distinct", "-", rel_error(uest, (double)big), ull_mart);
    error_row("  ELL error at 10 n distinct (martingale estimate)", "-", rel_error(eest, (double)big), ell_mart);
    error_row("  ELL ... at 10 n, maximum likelihood", "-", rel_error(ell_mlest, (double)big), ell_ml);

    /* merge of two halves */
    size_t half = n / 2;
    check(sketch_hll_init(half_a, hl, 14, 0), "init");
    check(sketch_hll_init(half_b, hl, 14, 0), "init");
    check(sketch_ull_init(ull_a, ul, 13, 0), "init");
    check(sketch_ull_init(ull_b, ul, 13, 0), "init");
    add_range(sketch_hll_add_batch, half_a, hl, "present", 0, half);
    add_range(sketch_hll_add_batch, half_b, hl, "present", half, n);
    add_range(sketch_ull_add_batch, ull_a, ul, "present", 0, half);
    add_range(sketch_ull_add_batch, ull_b, ul, "present", half, n);
    check(sketch_ell_init(ell_a, el, &ell_params, 0), "init");
    check(sketch_ell_init(ell_b, el, &ell_params, 0), "init");
    add_range(ell_add_keys, ell_a, el, "present", 0, half);
    add_range(ell_add_keys, ell_b, el, "present", half, n);
    check(sketch_hll_merge(half_a, hl, half_b, hl), "merge");
    check(sketch_ull_merge(ull_a, ul, ull_b, ul), "merge");
    check(sketch_ell_merge(ell_a, el, ell_b, el), "merge");
    check(sketch_hll_estimate(half_a, hl, &est), "estimate");
    check(sketch_ull_estimate(ull_a, ul, &uest), "estimate");
    check(sketch_ell_estimate(ell_a, el, &eest), "estimate");
    error_row("  HLL merge of two n/2 halves: error", n == 1000000 ? "+0.239%" : "-", rel_error(est, (double)n), hll_regs);
    error_row("  ULL merge of two n/2 halves: error", "-", rel_error(uest, (double)n), ull_regs);
    error_row("  ELL merge of two n/2 halves: error", "-", rel_error(eest, (double)n), ell_ml);

    /* the merged sketch equals the directly built one */
    check(sketch_hll_init(hll, hl, 14, 0), "init");
    add_range(sketch_hll_add_batch, hll, hl, "present", 0, n);
    printf("%-52s %14s %14d\n", "  merged registers == one sketch's (1 = identical)", "-",
           memcmp((char *)hll + 384, (char *)half_a + 384, hl - 384) == 0);
    check(sketch_ell_init(ell, el, &ell_params, 0), "init");
    add_range(ell_add_keys, ell, el, "present", 0, n);
    printf("%-52s %14s %14d\n", "  ... and for ELL (1 = identical)", "-",
           memcmp((char *)ell + 128, (char *)ell_a + 128, el - 128) == 0);

    /* small counts are exact; precisions fold down */
    void *small = alloc_aligned(hll12_bytes);
    check(sketch_hll_init(small, (size_t)hll12_bytes, 12, 0), "init");
    add_range(sketch_hll_add_batch, small, (size_t)hll12_bytes, "present", 0, 300);
    check(sketch_hll_estimate(small, (size_t)hll12_bytes, &est), "estimate");
    size_t compact = 0;
    check(sketch_hll_exported_size(small, (size_t)hll12_bytes, &compact), "exported size");
    printf("%-52s %14s %14.0f\n", "  HLL p=12 after 300 distinct keys (exact mode)", "-", est);
    printf("%-52s %14s %12zu B\n", "  ... its exported image (compact)", "-", compact);
    check(sketch_hll_downsize(half_a, hl, small, (size_t)hll12_bytes, 12), "downsize");
    check(sketch_hll_estimate(small, (size_t)hll12_bytes, &est), "estimate");
    error_row("  merged HLL p=14 folded to p=12: error", "-", rel_error(est, (double)n), 104.0 / 64.0);
    printf("%-52s %14s %13.2fx\n", "  add speed, HLL / Bloom (batch calls)", "-", hll_add_rate / bloom_add_rate);
    printf("%-52s %14s %13.2fx\n", "  add speed, ELL / ULL (batch calls)", "-", ell_add_rate / ull_add_rate);
    printf("    (keys per second of the first / of the second, same keys, one thread; the article\n"
           "     names HLL the fastest of its three structures without a figure: one register per\n"
           "     add against Bloom's 7 bits)\n");
    free(ell);
    free(ell_a);
    free(ell_b);
    free(small);
    free(hll);
    free(half_a);
    free(half_b);
    free(ull);
    free(ull_a);
    free(ull_b);
}

/* Count-Min: 1000 control keys once each, interleaved with a hot key of
   frequency 80,000, at the article's two sizes, plus conservative update. */
static void countmin_rows(void) {
    printf("\n%-52s %14s %14s\n", "Count-Min (1000 control keys + hot key x 80000)", "article", "sketches");
    struct { uint64_t width; uint32_t depth; int conservative; const char *label, *over, *worst; } configs[3] = {
        {500, 3, 0, "500 x 3", "756/1000", "500%"},
        {8000, 7, 0, "8000 x 7", "0/1000", "-"},
        {500, 3, 1, "500 x 3, conservative update", "-", "-"},
    };
    for (int c = 0; c < 3; c++) {
        struct sketch_countmin_params p;
        check(sketch_countmin_plan_size(configs[c].width, configs[c].depth, &p), "plan");
        p.conservative = (uint32_t)configs[c].conservative;
        uint64_t bytes;
        check(sketch_countmin_size(&p, &bytes), "size");
        void *cm = alloc_aligned(bytes);
        size_t len = (size_t)bytes;
        check(sketch_countmin_init(cm, len, &p, 0), "init");
        char key[32];
        for (int j = 0; j < 1000; j++) {
            int n = snprintf(key, sizeof key, "control-%d", j);
            check(sketch_countmin_add(cm, len, key, (size_t)n, 1), "add");
            for (int r = 0; r < 80; r++) check(sketch_countmin_add(cm, len, "hot", 3, 1), "add");
        }
        int over = 0;
        uint64_t worst = 0, hot = 0, e = 0;
        for (int j = 0; j < 1000; j++) {
            int n = snprintf(key, sizeof key, "control-%d", j);
            check(sketch_countmin_estimate(cm, len, key, (size_t)n, &e), "estimate");
            over += e > 1;
            if (e - 1 > worst) worst = e - 1;
        }
        check(sketch_countmin_estimate(cm, len, "hot", 3, &hot), "estimate");
        char label[80], mine[32];
        printf("  %s (%.1f KB)\n", configs[c].label, (double)bytes / 1024.0);
        snprintf(mine, sizeof mine, "%d/1000", over);
        printf("%-52s %14s %14s\n", "    control keys overestimated", configs[c].over, mine);
        snprintf(label, sizeof label, "%llu%%", (unsigned long long)(worst * 100));
        printf("%-52s %14s %14s\n", "    largest overestimate", configs[c].worst, label);
        printf("%-52s %14s %14llu\n", "    hot key estimate (true 80000)", "80000", (unsigned long long)hot);
        free(cm);
    }
}

/* MinHash: estimated Jaccard of two key sets against the exact value. */
static sketch_status minhash_add_keys(void *m, size_t len, const struct sketch_slice *keys, size_t count) {
    return sketch_minhash_add_batch(m, len, keys, count);
}

static void minhash_rows(size_t n) {
    printf("\n%-52s %14s %14s   %s\n", "MinHash (one hash per item) vs exact Jaccard", "exact", "sketches",
           "expected error (1 sd) and z");
    const uint32_t ks[2] = {256, 1024};
    /* A = [0, n), B = [s, s + n) over "present-<i>" keys: J = (n - s) / (n + s). */
    const double overlaps[2] = {0.5, 0.9};
    for (int o = 0; o < 2; o++) {
        size_t shift = (size_t)((double)n * (1.0 - overlaps[o]));
        double exact = (double)(n - shift) / (double)(n + shift);
        for (int c = 0; c < 2; c++) {
            uint64_t bytes;
            check(sketch_minhash_size(ks[c], &bytes), "size");
            void *a = alloc_aligned(bytes), *b = alloc_aligned(bytes);
            check(sketch_minhash_init(a, (size_t)bytes, ks[c], 0), "init");
            check(sketch_minhash_init(b, (size_t)bytes, ks[c], 0), "init");
            add_range(minhash_add_keys, a, (size_t)bytes, "present", 0, n);
            add_range(minhash_add_keys, b, (size_t)bytes, "present", shift, shift + n);
            double j;
            check(sketch_minhash_jaccard(a, (size_t)bytes, b, (size_t)bytes, &j), "jaccard");
            char label[80], ex[32];
            /* Each of the k minima matches with probability J: sd = sqrt(J (1 - J) / k). */
            double sd = sqrt(exact * (1.0 - exact) / (double)ks[c]);
            snprintf(label, sizeof label, "  k = %u (%.0f KB), n keys each, overlap %.0f%% of n", ks[c],
                     (double)bytes / 1024.0, 100.0 * overlaps[o]);
            snprintf(ex, sizeof ex, "%.4f", exact);
            printf("%-52s %14s %14.4f   sd %.4f, z %+.1f\n", label, ex, j, sd, (j - exact) / sd);
            free(a);
            free(b);
        }
    }
}

/* Top-k: a Zipf(1.1) stream of n keys over 100,000 distinct, against exact counts. */
static uint64_t splitmix(uint64_t *state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static const uint64_t *exact_counts;
static int by_exact_count_desc(const void *a, const void *b) {
    uint64_t x = exact_counts[*(const int *)a], y = exact_counts[*(const int *)b];
    return x < y ? 1 : x > y ? -1 : 0;
}

static void topk_rows(size_t n) {
    enum { DISTINCT = 100000, CAPACITY = 1000, SHOW = 5, RECALL = 100 };
    double *cdf = malloc(DISTINCT * sizeof *cdf);
    uint64_t *exact = calloc(DISTINCT, sizeof *exact);
    if (cdf == NULL || exact == NULL) exit(1);
    double acc = 0;
    for (int r = 0; r < DISTINCT; r++) cdf[r] = acc += 1.0 / pow((double)(r + 1), 1.1);
    uint64_t bytes;
    check(sketch_topk_size(CAPACITY, 24, &bytes), "size");
    void *tk = alloc_aligned(bytes);
    size_t len = (size_t)bytes;
    check(sketch_topk_init(tk, len, CAPACITY, 24, 0), "init");
    uint64_t state = 42;
    char key[32];
    for (size_t i = 0; i < n; i++) {
        double u = (double)(splitmix(&state) >> 11) / 9007199254740992.0 * acc;
        int lo = 0, hi = DISTINCT - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (cdf[mid] < u) lo = mid + 1; else hi = mid;
        }
        exact[lo]++;
        int w = snprintf(key, sizeof key, "present-%d", lo);
        check(sketch_topk_add(tk, len, key, (size_t)w, 1), "add");
    }
    static struct sketch_topk_item items[CAPACITY];
    size_t listed = 0;
    check(sketch_topk_list(tk, len, items, CAPACITY, &listed), "list");
    struct sketch_topk_stats st;
    check(sketch_topk_get_stats(tk, len, &st), "stats");
    printf("\n%-52s %14s %14s\n", "Top-k (Space-Saving, 1000 counters), Zipf 1.1", "exact", "sketches");
    for (int r = 0; r < SHOW; r++) {
        char label[64];
        snprintf(label, sizeof label, "  %.*s", (int)items[r].key_len, (const char *)items[r].key);
        int rank = atoi((const char *)items[r].key + 8);
        printf("%-52s %14llu %14llu\n", label, (unsigned long long)exact[rank], (unsigned long long)items[r].count);
    }
    uint64_t worst = 0;
    for (size_t i = 0; i < listed; i++) {
        int rank = atoi((const char *)items[i].key + 8);
        if (items[i].count - exact[rank] > worst) worst = items[i].count - exact[rank];
    }
    /* recall: the exact top 100 (ranks sorted by exact count) among the listed top 100 */
    int *order = malloc(DISTINCT * sizeof *order);
    if (order == NULL) exit(1);
    for (int r = 0; r < DISTINCT; r++) order[r] = r;
    exact_counts = exact;
    qsort(order, DISTINCT, sizeof *order, by_exact_count_desc);
    int hits = 0;
    for (int j = 0; j < RECALL; j++) {
        for (size_t i = 0; i < (size_t)RECALL && i < listed; i++) {
            if (atoi((const char *)items[i].key + 8) == order[j]) {
                hits++;
                break;
            }
        }
    }
    free(order);
    printf("%-52s %14d %14d\n", "  exact top 100 found in the listed top 100", RECALL, hits);
    char label[80];
    snprintf(label, sizeof label, "  largest overestimate of a listed key (N/k = %llu)",
             (unsigned long long)(st.total / CAPACITY));
    printf("%-52s %14d %14llu\n", label, 0, (unsigned long long)worst);
    printf("%-52s %14s %11.0f KB\n", "  memory (keys inline)", "-", (double)bytes / 1024.0);
    free(tk);
    free(cdf);
    free(exact);
}

int main(int argc, char **argv) {
    size_t n = 1000000;
    if (argc == 3 && strcmp(argv[1], "--keys") == 0) n = (size_t)strtoull(argv[2], NULL, 10);
    if (n < 1000) n = 1000;
    const double target = 0.01;
    printf("sketches %s stand: %zu keys \"present-<i>\", queried with %zu keys \"absent-<i>\"\n",
           sketch_version_string(), n, n);
    printf("Columns: article = the figure the article's Go stand reports for 1,000,000 keys ('-' where it\n"
           "reports none); exact = the true value; sketches = measured now, through the C ABI.\n\n");
    struct keyset present = make_keys("present", n), absent = make_keys("absent", n);
    const struct filter_ops sbbf_ops = {"Split-block Bloom",
                                        sketch_sbbf_add,
                                        sketch_sbbf_contains,
                                        sketch_sbbf_add_batch,
                                        sketch_sbbf_contains_batch,
                                        sketch_sbbf_view,
                                        sketch_sbbf_view_add,
                                        sketch_sbbf_view_contains};
    const struct filter_ops cuckoo_ops = {
        "Cuckoo", NULL, sketch_cuckoo_contains, sketch_cuckoo_add_batch, sketch_cuckoo_contains_batch, NULL, NULL, NULL};

    /* 1. Planned vs measured FPR. */
    struct sketch_bloom_params bp;
    check(sketch_bloom_plan(n, target, &bp), "plan");
    uint64_t bloom_bytes;
    check(sketch_bloom_size(&bp, &bloom_bytes), "size");
    void *bloom = alloc_aligned(bloom_bytes);
    check(sketch_bloom_init(bloom, (size_t)bloom_bytes, &bp, 0), "init");
    add_all(&bloom_ops, bloom, (size_t)bloom_bytes, &present);
    size_t fp = count_hits(&bloom_ops, bloom, (size_t)bloom_bytes, &absent);
    size_t tp = count_hits(&bloom_ops, bloom, (size_t)bloom_bytes, &present);
    struct sketch_bloom_stats bs;
    check(sketch_bloom_get_stats(bloom, (size_t)bloom_bytes, &bs), "stats");
    printf("%-52s %14s %14s\n", "Bloom filter", "article", "sketches");
    printf("%-52s %14s %13.2f%%\n", "  planned FPR (n = 1M, p = 1%)", "1.00%", 100.0 * bp.planned_fpr);
    printf("%-52s %14s %13.2f%%\n", "  measured FPR on absent keys", "1.01%", 100.0 * (double)fp / (double)n);
    printf("%-52s %14s %13.2f%%\n", "  FPR estimated by the filter itself", "-", 100.0 * bs.estimated_fpr);
    printf("%-52s %14s %14zu\n", "  false negatives", "0", n - tp);
    printf("%-52s %14s %14llu\n", "  bits (m)", "9585059", (unsigned long long)bp.bits);
    printf("%-52s %14s %14u\n", "  k", "7", bp.hashes);

    /* 2. The same keys in a filter planned for n/10. */
    struct sketch_bloom_params small;
    check(sketch_bloom_plan(n / 10, target, &small), "plan");
    uint64_t small_bytes;
    check(sketch_bloom_size(&small, &small_bytes), "size");
    void *under = alloc_aligned(small_bytes);
    check(sketch_bloom_init(under, (size_t)small_bytes, &small, 0), "init");
    struct keyset first_tenth = present;
    first_tenth.count = n / 10;
    add_all(&bloom_ops, under, (size_t)small_bytes, &first_tenth);
    uint32_t flags_at_plan = 0, flags_after = 0;
    check(sketch_bloom_capacity(under, (size_t)small_bytes, &flags_at_plan), "capacity");
    add_all(&bloom_ops, under, (size_t)small_bytes, &present);
    check(sketch_bloom_capacity(under, (size_t)small_bytes, &flags_after), "capacity");
    struct sketch_bloom_stats us;
    check(sketch_bloom_get_stats(under, (size_t)small_bytes, &us), "stats");
    size_t fp_under = count_hits(&bloom_ops, under, (size_t)small_bytes, &absent);
    printf("%-52s %14s %13.2f%%\n", "  planned for n/10, filled with n: measured FPR", "99.53%",
           100.0 * (double)fp_under / (double)n);
    printf("%-52s %14s %13.2f%%\n", "  ... FPR estimated by the filter itself", "-", 100.0 * us.estimated_fpr);
    printf("%-52s %14s %14u\n", "  ... over-capacity flags after n/10 keys", "-", flags_at_plan);
    printf("%-52s %14s %14u\n", "  ... over-capacity flags after n keys", "-", flags_after);
    printf("    (flags: 0 = within plan, 1 = more items than planned, 2 = estimated FPR above twice\n"
           "     the plan, 3 = both; no signal in the article: its filter has none)\n");

    /* 3. Memory against an exact set of the same keys. */
    size_t exact = exact_set_build(&present);
    printf("%-52s %14s %11.0f KB\n", "  memory: Bloom filter", "1170 KB", (double)bloom_bytes / 1024.0);
    printf("%-52s %14s %11.0f KB\n", "  memory: exact hash set of the same keys (measured)", "62500 KB",
           (double)exact / 1024.0);
    printf("%-52s %14s %13.1fx\n", "  saving", "53x", (double)exact / (double)bloom_bytes);

    /* 4. Split-block Bloom at the same target. */
    struct sketch_sbbf_params sp;
    check(sketch_sbbf_plan(n, target, &sp), "plan");
    uint64_t sbbf_bytes;
    check(sketch_sbbf_size(&sp, &sbbf_bytes), "size");
    void *sbbf = alloc_aligned(sbbf_bytes);
    check(sketch_sbbf_init(sbbf, (size_t)sbbf_bytes, &sp, 0), "init");
    add_all(&sbbf_ops, sbbf, (size_t)sbbf_bytes, &present);
    size_t sfp = count_hits(&sbbf_ops, sbbf, (size_t)sbbf_bytes, &absent);
    printf("\n%-52s %14s %14s\n", "Split-block Bloom filter (same n, p)", "article", "sketches");
    printf("%-52s %14s %11.0f KB\n", "  memory", "-", (double)sbbf_bytes / 1024.0);
    printf("%-52s %14s %13.2f%%\n", "  measured FPR on absent keys", "-", 100.0 * (double)sfp / (double)n);
    printf("%-52s %14s %14.2f\n", "  bits per key", "-", (double)sp.blocks * 256.0 / (double)n);

    /* 5. Cuckoo filter vs Bloom at about 1%. */
    printf("\n%-52s %14s %14s\n", "Cuckoo filter vs Bloom (n keys)", "article", "sketches");
    struct sketch_cuckoo_params cp8, cp12;
    check(sketch_cuckoo_plan_buckets((uint64_t)((double)n / 3.8) + 1, 8, &cp8), "plan");
    check(sketch_cuckoo_plan(n, target, &cp12), "plan");
    const struct sketch_cuckoo_params *configs[2] = {&cp8, &cp12};
    const char *names[2] = {"  cuckoo, 8-bit fingerprints (the article's kind)", "  cuckoo planned for 1% (12-bit fingerprints)"};
    double cuckoo_add_rate[2], cuckoo_query_rate[2], cuckoo_bits_per_key[2], cuckoo_fpr[2];
    double cuckoo_add_batch_rate[2], cuckoo_query_batch_rate[2];
    for (int c = 0; c < 2; c++) {
        uint64_t cb;
        check(sketch_cuckoo_size(configs[c], &cb), "size");
        void *cf = alloc_aligned(cb);
        check(sketch_cuckoo_init(cf, (size_t)cb, configs[c], 0), "init");
        double t0 = now_seconds();
        size_t failed = 0;
        for (size_t i = 0; i < n; i++) {
            failed += sketch_cuckoo_add(cf, (size_t)cb, present.keys[i].ptr, present.keys[i].len) != SKETCH_OK;
        }
        double t1 = now_seconds();
        size_t cfp = 0;
        for (size_t i = 0; i < n; i++) {
            bool b = false;
            check(sketch_cuckoo_contains(cf, (size_t)cb, absent.keys[i].ptr, absent.keys[i].len, &b), "contains");
            cfp += b;
        }
        double t2 = now_seconds();
        cuckoo_add_rate[c] = (double)n / (t1 - t0);
        cuckoo_query_rate[c] = (double)n / (t2 - t1);
        /* the same keys again through the batch calls, into the cleared filter */
        void *scratch = alloc_aligned(cb);
        memcpy(scratch, cf, (size_t)cb);
        check(sketch_cuckoo_clear(cf, (size_t)cb), "clear");
        double t3 = now_seconds();
        add_all(&cuckoo_ops, cf, (size_t)cb, &present);
        double t4 = now_seconds();
        size_t batch_fp = count_hits(&cuckoo_ops, cf, (size_t)cb, &absent);
        double t5 = now_seconds();
        cuckoo_add_batch_rate[c] = (double)n / (t4 - t3);
        cuckoo_query_batch_rate[c] = (double)n / (t5 - t4);
        if (batch_fp != cfp || memcmp(scratch, cf, (size_t)cb) != 0) printf("    (single and batch calls disagree!)\n");
        free(scratch);
        cuckoo_bits_per_key[c] = (double)configs[c]->buckets * 4 * configs[c]->fingerprint_bits / (double)n;
        cuckoo_fpr[c] = 100.0 * (double)cfp / (double)n;
        printf("%-52s %14s %11.0f KB\n", names[c], c == 0 ? "1024 KB" : "-", (double)cb / 1024.0);
        printf("%-52s %14s %13.2f%%\n", "    measured FPR on absent keys", "-", 100.0 * (double)cfp / (double)n);
        printf("%-52s %14s %14zu\n", "    inserts that reported full", "-", failed);
        free(cf);
    }
    printf("%-52s %14s %11.0f KB\n", "  Bloom at 1% (as above)", "1170 KB", (double)bloom_bytes / 1024.0);
    double bloom_query_single = 0;
    const char *cuckoo_names[2] = {"cuckoo 8-bit", "cuckoo 12-bit"};
    {
        check(sketch_bloom_clear(bloom, (size_t)bloom_bytes), "clear");
        double t0 = now_seconds();
        for (size_t i = 0; i < n; i++) {
            check(sketch_bloom_add(bloom, (size_t)bloom_bytes, present.keys[i].ptr, present.keys[i].len, NULL), "add");
        }
        double t1 = now_seconds();
        for (size_t i = 0; i < n; i++) {
            bool b = false;
            check(sketch_bloom_contains(bloom, (size_t)bloom_bytes, absent.keys[i].ptr, absent.keys[i].len, &b), "q");
        }
        double t2 = now_seconds();
        check(sketch_bloom_clear(bloom, (size_t)bloom_bytes), "clear");
        double t3 = now_seconds();
        add_all(&bloom_ops, bloom, (size_t)bloom_bytes, &present);
        double t4 = now_seconds();
        count_hits(&bloom_ops, bloom, (size_t)bloom_bytes, &absent);
        double t5 = now_seconds();
        double bloom_add = (double)n / (t1 - t0), bloom_query = (double)n / (t2 - t1);
        double bloom_add_batch = (double)n / (t4 - t3), bloom_query_batch = (double)n / (t5 - t4);
        bloom_query_single = bloom_query;
        for (int c = 0; c < 2; c++) {
            char label[80];
            snprintf(label, sizeof label, "  insert speed, %s / Bloom: single calls", cuckoo_names[c]);
            printf("%-52s %14s %13.2fx\n", label, c == 0 ? "1.86x" : "-", cuckoo_add_rate[c] / bloom_add);
            printf("%-52s %14s %13.2fx\n", "    ... batch calls (4096 keys per call)", "-",
                   cuckoo_add_batch_rate[c] / bloom_add_batch);
            snprintf(label, sizeof label, "  query speed, %s / Bloom: single calls", cuckoo_names[c]);
            printf("%-52s %14s %13.2fx\n", label, c == 0 ? "2.17x" : "-", cuckoo_query_rate[c] / bloom_query);
            printf("%-52s %14s %13.2fx\n", "    ... batch calls (4096 keys per call)", "-",
                   cuckoo_query_batch_rate[c] / bloom_query_batch);
        }
        printf("    (each ratio: keys per second of the cuckoo filter / of the Bloom filter, the same\n"
               "     n keys inserted and n absent keys queried, one thread; above 1 the cuckoo filter\n"
               "     is faster. The article's figures are Go libraries, seiflotfy/cuckoofilter against\n"
               "     bits-and-blooms/bloom. Here a cuckoo query reads 2 buckets against Bloom's 7 bits\n"
               "     (each costs a cache miss once the filter outgrows the cache); cuckoo inserts slow\n"
               "     down as the table fills (%.0f%% of its slots at the end) and entries relocate.\n"
               "     Single-call ratios move with the machine's load from run to run; batch ratios\n"
               "     are steadier)\n",
               100.0 * (double)n / ((double)cp8.buckets * 4.0));
    }

    /* 6. Binary fuse filter beside Bloom and cuckoo: static, built once. */
    struct fuse_result fuse8 = fuse_rows(&present, &absent, bloom, (size_t)bloom_bytes, bp.bits, fp, bloom_query_single,
                                         cuckoo_bits_per_key, cuckoo_fpr, cuckoo_query_rate);

    /* 7. Cardinality: HyperLogLog, UltraLogLog and ExaLogLog. */
    cardinality_rows(n, exact, bloom, (size_t)bloom_bytes);

    /* 8. Count-Min. */
    countmin_rows();

    /* 9. MinHash. */
    minhash_rows(n);

    /* 10. Top-k. */
    topk_rows(n);

    /* 11. Throughput (fresh filters, keys hashed inside the calls). */
    printf("\nThroughput, one thread, through the C ABI (hashing included):\n");
    check(sketch_bloom_clear(bloom, (size_t)bloom_bytes), "clear");
    throughput(&bloom_ops, bloom, (size_t)bloom_bytes, &present, &absent);
    check(sketch_sbbf_clear(sbbf, (size_t)sbbf_bytes), "clear");
    throughput(&sbbf_ops, sbbf, (size_t)sbbf_bytes, &present, &absent);
    hll_throughput(&present);
    fuse_throughput(&fuse8, &present, &absent);
    printf("    (single: each call checks the image's headers; kept view: sketch_<family>_view checked\n"
           "     them once, and keys of at most 16 bytes then take an inlined path; batch: 4096 keys\n"
           "     per call. Absolute figures vary between machines and runs; the article's Go stand\n"
           "     reported only ratios between structures, so none are printed beside these; batch\n"
           "     figures are the steadier ones)\n");

    free(bloom);
    free(under);
    free(sbbf);
    free(fuse8.image);
    free_keys(&present);
    free_keys(&absent);
    return 0;
}
