/*
 * The C test programs' checks (abi_test.c, fuse_ell_test.c, claims_test.c,
 * concurrent_test.c): each program is one translation unit that includes this
 * file once, counts its checks in `passed` and `failed`, and prints
 * "N passed, N failed" at the end (the Rust runners read that line).
 */
#ifndef SKETCHES_TEST_CHECK_H
#define SKETCHES_TEST_CHECK_H

#include "sketches.h"

#include <stdio.h>

static int passed, failed;

/* Counts `cond`; a false one is printed with its file and line. */
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (cond) {                                                                  \
            passed++;                                                                \
        } else {                                                                     \
            failed++;                                                                \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                            \
    } while (0)

/* Counts whether `call` returned `status`; a mismatch prints both statuses. */
#define EXPECT(call, status)                                                                  \
    do {                                                                                      \
        sketch_status got_ = (call);                                                          \
        if (got_ == (status)) {                                                               \
            passed++;                                                                         \
        } else {                                                                              \
            failed++;                                                                         \
            fprintf(stderr, "%s:%d: %s returned %d (%s), expected %d\n", __FILE__, __LINE__, \
                    #call, (int)got_, sketch_status_str((int)got_), (int)(status));           \
        }                                                                                     \
    } while (0)

#endif
