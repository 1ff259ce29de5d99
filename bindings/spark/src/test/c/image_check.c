/*
 * Reads an image a Spark job wrote and answers through the C ABI, for the Spark tests
 * (ImagesTest): the same answers from C as from Spark show that the bytes are the same format.
 *
 *   image_check bloom IMAGE KEYS   one line per key of KEYS (one UTF-8 key per line): 1 or 0
 *   image_check hll IMAGE          the distinct-count estimate, rounded
 *
 * Exit status 0 on success, 2 with a message on stderr when the image is rejected or a file
 * cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sketches.h"

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf != NULL) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap) {
            break;
        }
        unsigned char *bigger = realloc(buf, cap * 2);
        if (bigger == NULL) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int fail(const char *what, sketch_status s) {
    fprintf(stderr, "image_check: %s: %s\n", what, sketch_status_str(s));
    return 2;
}

/* Imports `src` into a fresh 64-byte-aligned live image through `import_size` and `import`. */
static void *import_image(const unsigned char *src, size_t len, size_t *live, sketch_status *status,
                          sketch_status (*size_fn)(const void *, size_t, size_t *),
                          sketch_status (*import_fn)(const void *, size_t, void *, size_t)) {
    *status = size_fn(src, len, live);
    if (*status != SKETCH_OK) {
        return NULL;
    }
    size_t alloc = (*live + 63) / 64 * 64;
    void *dst = aligned_alloc(64, alloc);
    if (dst == NULL) {
        *status = SKETCH_BUFFER_TOO_SMALL;
        return NULL;
    }
    *status = import_fn(src, len, dst, *live);
    if (*status != SKETCH_OK) {
        free(dst);
        return NULL;
    }
    return dst;
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "bloom") == 0 && argc != 4) || (strcmp(argv[1], "hll") == 0 && argc != 3)) {
        fprintf(stderr, "usage: image_check bloom IMAGE KEYS | image_check hll IMAGE\n");
        return 2;
    }
    size_t len = 0, live = 0;
    unsigned char *bytes = read_file(argv[2], &len);
    if (bytes == NULL) {
        fprintf(stderr, "image_check: cannot read %s\n", argv[2]);
        return 2;
    }
    sketch_status s;
    if (strcmp(argv[1], "hll") == 0) {
        void *img = import_image(bytes, len, &live, &s, sketch_hll_import_size, sketch_hll_import);
        free(bytes);
        if (img == NULL) {
            return fail("sketch_hll_import", s);
        }
        double e = 0;
        s = sketch_hll_estimate(img, live, &e);
        free(img);
        if (s != SKETCH_OK) {
            return fail("sketch_hll_estimate", s);
        }
        printf("%.0f\n", e);
        return 0;
    }
    if (strcmp(argv[1], "bloom") != 0) {
        fprintf(stderr, "image_check: unknown family %s\n", argv[1]);
        free(bytes);
        return 2;
    }
    void *img = import_image(bytes, len, &live, &s, sketch_bloom_import_size, sketch_bloom_import);
    free(bytes);
    if (img == NULL) {
        return fail("sketch_bloom_import", s);
    }
    FILE *keys = fopen(argv[3], "r");
    if (keys == NULL) {
        free(img);
        fprintf(stderr, "image_check: cannot read %s\n", argv[3]);
        return 2;
    }
    char line[4096];
    int rc = 0;
    while (fgets(line, sizeof line, keys) != NULL) {
        size_t n = strcspn(line, "\n");
        bool in = false;
        s = sketch_bloom_contains(img, live, line, n, &in);
        if (s != SKETCH_OK) {
            rc = fail("sketch_bloom_contains", s);
            break;
        }
        puts(in ? "1" : "0");
    }
    fclose(keys);
    free(img);
    return rc;
}
