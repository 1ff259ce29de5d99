/*
 * dedup: print each input line the first time it is seen.
 *
 *   dedup [-n expected_lines] [-p false_positive_rate] [file]
 *
 * One pass, fixed memory: a Bloom filter planned from -n and -p (default
 * 10,000,000 lines at 0.1%), plus a 1 MiB line batch. Reads stdin when no
 * file is given. A line is judged new by one call that tests and inserts
 * (sketch_bloom_add_batch with per-line results). A false positive drops a
 * line that was in fact new, at the planned rate; nothing is ever printed
 * twice. At the end it reports to stderr the lines read and emitted, the
 * estimated false-positive rate and whether the filter went over capacity.
 */
#define _POSIX_C_SOURCE 200809L
#include "sketches.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BATCH_LINES = 4096, ARENA_BYTES = 1 << 20 };

struct batch {
    struct sketch_slice keys[BATCH_LINES];
    bool is_new[BATCH_LINES];
    unsigned char arena[ARENA_BYTES];
    size_t lines, used;
};

static int fail(const char *what, sketch_status s) {
    fprintf(stderr, "dedup: %s: %s\n", what, sketch_status_str((int)s));
    return 2;
}

/* Adds the batched lines to the filter and prints the new ones in order. */
static int flush(struct batch *b, void *filter, size_t filter_len, unsigned long long *emitted) {
    sketch_status s = sketch_bloom_add_batch(filter, filter_len, b->keys, b->lines, b->is_new);
    if (s != SKETCH_OK) return fail("add", s);
    for (size_t i = 0; i < b->lines; i++) {
        if (!b->is_new[i]) continue;
        if (fwrite(b->keys[i].ptr, 1, b->keys[i].len, stdout) != b->keys[i].len || putchar('\n') == EOF) {
            perror("dedup: write");
            return 2;
        }
        (*emitted)++;
    }
    b->lines = 0;
    b->used = 0;
    return 0;
}

int main(int argc, char **argv) {
    unsigned long long expected = 10000000ULL;
    double fpr = 0.001;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            expected = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc) {
            fpr = strtod(argv[++i], NULL);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "usage: %s [-n expected_lines] [-p false_positive_rate] [file]\n", argv[0]);
            return 2;
        } else {
            path = argv[i];
        }
    }
    struct sketch_bloom_params params;
    sketch_status s = sketch_bloom_plan(expected, fpr, &params);
    if (s != SKETCH_OK) return fail("plan (check -n and -p)", s);
    uint64_t size = 0;
    s = sketch_bloom_size(&params, &size);
    if (s != SKETCH_OK) return fail("size", s);
    size_t rounded = ((size_t)size + 63) / 64 * 64;
    void *filter = aligned_alloc(64, rounded); /* 8 is required; 64 is cache-friendly */
    struct batch *b = malloc(sizeof *b);
    if (filter == NULL || b == NULL) {
        fprintf(stderr, "dedup: cannot allocate %llu bytes for the filter\n", (unsigned long long)size);
        return 2;
    }
    s = sketch_bloom_init(filter, (size_t)size, &params, 0);
    if (s != SKETCH_OK) return fail("init", s);
    b->lines = b->used = 0;

    FILE *in = stdin;
    if (path != NULL && (in = fopen(path, "rb")) == NULL) {
        fprintf(stderr, "dedup: %s: %s\n", path, strerror(errno));
        return 2;
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    unsigned long long read_lines = 0, emitted = 0;
    while ((n = getline(&line, &cap, in)) >= 0) {
        read_lines++;
        size_t len = (size_t)n;
        if (len > 0 && line[len - 1] == '\n') len--;
        if (len > ARENA_BYTES) { /* a huge line: flush, then handle it alone */
            if (flush(b, filter, (size_t)size, &emitted)) return 2;
            bool is_new = false;
            s = sketch_bloom_add(filter, (size_t)size, line, len, &is_new);
            if (s != SKETCH_OK) return fail("add", s);
            if (is_new) {
                fwrite(line, 1, len, stdout);
                putchar('\n');
                emitted++;
            }
            continue;
        }
        if (b->lines == BATCH_LINES || b->used + len > ARENA_BYTES) {
            if (flush(b, filter, (size_t)size, &emitted)) return 2;
        }
        memcpy(b->arena + b->used, line, len);
        b->keys[b->lines].ptr = b->arena + b->used;
        b->keys[b->lines].len = len;
        b->lines++;
        b->used += len;
    }
    if (ferror(in)) {
        perror("dedup: read");
        return 2;
    }
    if (flush(b, filter, (size_t)size, &emitted)) return 2;
    fflush(stdout);

    struct sketch_bloom_stats st;
    s = sketch_bloom_get_stats(filter, (size_t)size, &st);
    if (s != SKETCH_OK) return fail("stats", s);
    fprintf(stderr, "dedup: lines read %llu, emitted %llu, filter %llu bytes (%llu bits, k=%u)\n", read_lines,
            emitted, (unsigned long long)size, (unsigned long long)st.params.bits, st.params.hashes);
    fprintf(stderr, "dedup: estimated FPR %.6f%% (planned %.6f%% at %llu lines), estimated distinct %.0f\n",
            100.0 * st.estimated_fpr, 100.0 * st.params.planned_fpr,
            (unsigned long long)st.params.planned_items, st.estimated_items);
    if (st.capacity_flags == 0) {
        fprintf(stderr, "dedup: capacity: ok\n");
    } else {
        fprintf(stderr, "dedup: capacity: OVER CAPACITY%s%s - rerun with a larger -n\n",
                (st.capacity_flags & SKETCH_CAPACITY_OVER_PLANNED_ITEMS) ? " [more lines than planned]" : "",
                (st.capacity_flags & SKETCH_CAPACITY_FPR_ABOVE_TWICE_PLANNED) ? " [FPR above twice the plan]"
                                                                              : "");
    }
    free(line);
    free(b);
    free(filter);
    if (in != stdin) fclose(in);
    return 0;
}
