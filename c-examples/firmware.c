/*
 * A microcontroller-style caller: every image lives in a static buffer sized
 * at compile time, nothing is allocated, nothing is printed by the library.
 * A device remembers which sensor ids it has already reported (a Bloom
 * filter in 2 KiB) and counts distinct ids (a HyperLogLog at precision 10,
 * 1 KiB of registers), then ships the HLL image upstream as it is.
 *
 * Built for Cortex-M4F (thumbv7em-none-eabihf) and Cortex-M0+
 * (thumbv6m-none-eabi) with arm-none-eabi-gcc by tests/tests/embedded.rs,
 * which reports the linked text size; built for the host with
 * -DFIRMWARE_HOST_DEMO it prints what the device would do.
 *
 * The buffers' sizes are checked against the library's own sizing calls at
 * start-up: a library whose image layout grew would be refused, not overrun.
 */
#include "sketches.h"

#include <stddef.h>
#include <stdint.h>

/* Images: 64-byte aligned (8 is required), sizes in bytes. */
#define SEEN_FILTER_BYTES 2048u
#define DISTINCT_HLL_BYTES 1536u
#define HLL_PRECISION 10u
#define FILTER_SEED 0x5eedu

static _Alignas(SKETCH_IMAGE_ALIGN) uint8_t seen_filter[SEEN_FILTER_BYTES];
static _Alignas(SKETCH_IMAGE_ALIGN) uint8_t distinct_hll[DISTINCT_HLL_BYTES];

/* The images' lengths (what the sizing calls said), set by firmware_setup. */
static size_t seen_filter_len, distinct_hll_len;

/* Status of the last failing call, for a debugger or a fault log. */
volatile int32_t firmware_last_status;

static int failed(sketch_status s) {
    if (s != SKETCH_OK) {
        firmware_last_status = s;
        return 1;
    }
    return 0;
}

/* Plans the filter from the bytes the firmware can spare (not from an item
   count) and sets both images up in place. Returns 0 or a status. */
int32_t firmware_setup(void) {
    struct sketch_bloom_params params;
    uint64_t need = 0;
    /* What the buffer holds after the image header: 7 probes give about 1%
       false positives at 1,500 ids in 15,360 bits. */
    if (failed(sketch_bloom_plan_bits(SEEN_FILTER_BYTES * 8u - 1024u, 7, &params))) return firmware_last_status;
    if (failed(sketch_bloom_size(&params, &need))) return firmware_last_status;
    if (need > sizeof seen_filter) return SKETCH_BUFFER_TOO_SMALL;
    if (failed(sketch_bloom_init(seen_filter, (size_t)need, &params, FILTER_SEED))) return firmware_last_status;
    seen_filter_len = (size_t)need;
    if (failed(sketch_hll_size(HLL_PRECISION, &need))) return firmware_last_status;
    if (need > sizeof distinct_hll) return SKETCH_BUFFER_TOO_SMALL;
    if (failed(sketch_hll_init(distinct_hll, (size_t)need, HLL_PRECISION, FILTER_SEED))) return firmware_last_status;
    distinct_hll_len = (size_t)need;
    return SKETCH_OK;
}

/* Called per reading: returns 1 when the id is reported for the first time
   (probably: a false positive suppresses about 1% of first reports), 0 for a
   repeat, a negative status on error. */
int32_t firmware_on_reading(uint64_t sensor_id) {
    bool first = false;
    if (failed(sketch_bloom_add_u64(seen_filter, seen_filter_len, sensor_id, &first))) return -firmware_last_status;
    if (failed(sketch_hll_add_u64(distinct_hll, distinct_hll_len, sensor_id, NULL))) return -firmware_last_status;
    return first ? 1 : 0;
}

/* Distinct ids seen so far (estimate), or a negative value on error. */
double firmware_distinct(void) {
    double est = -1.0;
    if (failed(sketch_hll_estimate(distinct_hll, distinct_hll_len, &est))) return -1.0;
    return est;
}

/* Writes the HLL image for upstream (a checksummed, compact export) into
   `out`; returns the byte count, or 0 if `out` is too small. */
size_t firmware_export(uint8_t *out, size_t out_len) {
    size_t written = 0;
    if (failed(sketch_hll_export(distinct_hll, distinct_hll_len, out, out_len, &written))) return 0;
    return written;
}

#ifdef FIRMWARE_HOST_DEMO
#include <stdio.h>

int main(void) {
    if (firmware_setup() != SKETCH_OK) {
        printf("setup failed: %s\n", sketch_status_str(firmware_last_status));
        return 1;
    }
    unsigned firsts = 0, repeats = 0;
    for (uint64_t round = 0; round < 3; round++) {
        for (uint64_t id = 0; id < 1500; id++) {
            int32_t r = firmware_on_reading(0xA5000000u + id);
            if (r < 0) return 1;
            if (r == 1) firsts++;
            else repeats++;
        }
    }
    static _Alignas(8) uint8_t upstream[DISTINCT_HLL_BYTES];
    size_t n = firmware_export(upstream, sizeof upstream);
    printf("first reports: %u, repeats: %u, distinct estimate: %.0f, export: %zu bytes\n", firsts, repeats,
           firmware_distinct(), n);
    return n > 0 ? 0 : 1;
}
#else
/* Bare-metal entry point for the size check: the reset handler of a real
   firmware calls these from its main loop. */
void firmware_entry(void) {
    if (firmware_setup() != SKETCH_OK) return;
    for (uint64_t id = 0; id < 64; id++) (void)firmware_on_reading(id);
    static uint8_t upstream[DISTINCT_HLL_BYTES];
    (void)firmware_export(upstream, sizeof upstream);
    (void)firmware_distinct();
}
#endif
