/* The README's example: plan, size, init in your own buffer, add, query. */
#include "sketches.h"

#include <stdio.h>
#include <stdlib.h>

int main(void) {
    struct sketch_bloom_params params;
    uint64_t size;
    if (sketch_bloom_plan(1000000, 0.01, &params) != SKETCH_OK) return 1; /* n, p */
    if (sketch_bloom_size(&params, &size) != SKETCH_OK) return 1;         /* exact bytes, x64 */
    void *buf = aligned_alloc(SKETCH_IMAGE_ALIGN, size);                  /* your memory */
    if (buf == NULL || sketch_bloom_init(buf, size, &params, 0) != SKETCH_OK) return 1;

    bool is_new, maybe;
    sketch_bloom_add(buf, size, "alice", 5, &is_new); /* test-and-insert */
    printf("alice new: %d\n", is_new);
    sketch_bloom_add(buf, size, "alice", 5, &is_new);
    printf("alice new again: %d\n", is_new);
    sketch_bloom_contains(buf, size, "bob", 3, &maybe);
    printf("bob maybe present: %d\n", maybe);

    uint32_t flags;
    sketch_bloom_capacity(buf, size, &flags); /* O(1) over-capacity signal */
    sketch_status s = sketch_bloom_contains(buf, 7, "bob", 3, &maybe);
    printf("capacity flags: %u; a 7-byte buffer gives: %s\n", flags, sketch_status_str(s));
    free(buf); /* the image lives in the buffer: nothing else to free */
    return 0;
}
