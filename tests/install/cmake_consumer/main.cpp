// Consumer of an installed libsketches, found through its CMake package.
#include <sketches.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main() {
    sketch_bloom_params params;
    uint64_t size = 0;
    if (sketch_bloom_plan(10000, 0.01, &params) != SKETCH_OK || sketch_bloom_size(&params, &size) != SKETCH_OK) {
        return 1;
    }
    void *buf = std::aligned_alloc(SKETCH_IMAGE_ALIGN, size);
    if (buf == nullptr || sketch_bloom_init(buf, size, &params, 0) != SKETCH_OK) return 1;
    std::string data;
    std::vector<uint32_t> offsets{0};
    for (int i = 0; i < 1000; i++) {
        data += "key-" + std::to_string(i);
        offsets.push_back(static_cast<uint32_t>(data.size()));
    }
    if (sketch_bloom_add_packed(buf, size, data.data(), data.size(), offsets.data(), 1000, nullptr) != SKETCH_OK) {
        return 1;
    }
    bool maybe = false;
    if (sketch_bloom_contains(buf, size, "key-999", 7, &maybe) != SKETCH_OK || !maybe) return 1;
    std::printf("consumer: version %s, key-999 present: %d\n", sketch_version_string(), maybe);
    std::free(buf);
    return 0;
}
