// The README's example in C++: plan, create, add, query, batch, export/import, streams.
#include "sketches.hpp"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

int main() {
    sketches::bloom_params params = sketches::bloom_filter::plan(1000000, 0.01); // n, p
    sketches::bloom_filter filter = sketches::bloom_filter::create(params);     // owns an aligned buffer

    std::printf("alice new: %d\n", filter.add("alice")); // test-and-insert
    std::printf("alice new again: %d\n", filter.add("alice"));
    std::printf("bob maybe present: %d\n", filter.contains("bob"));

    std::vector<std::string> users{"carol", "dave", "erin"};
    filter.add_batch(users); // one call for the whole container
    std::vector<bool> seen = filter.contains_batch(std::vector<std::string_view>{"dave", "frank"});
    std::printf("dave, frank maybe present: %d %d\n", static_cast<int>(seen[0]), static_cast<int>(seen[1]));

    std::vector<std::uint8_t> bytes = filter.to_bytes();                // the image, with its checksum
    sketches::bloom_filter copy = sketches::bloom_filter::from_bytes(bytes); // checked import
    std::printf("copy has erin: %d\n", copy.contains("erin"));

    std::stringstream file; // or a std::ofstream / std::ifstream, a socket's stream
    filter.write_to(file);  // the to_bytes() bytes, without a copy of the image
    sketches::hll_sketch visitors = sketches::hll_sketch::create(12);
    visitors.add_batch(users);
    visitors.write_to(file); // images back to back; each read takes exactly one
    while (std::optional<sketches::any_sketch> s = sketches::read_sketch(file)) { // nullopt at the end
        if (auto *bloom = std::get_if<sketches::bloom_filter>(&*s)) std::printf("read filter has dave: %d\n", bloom->contains("dave"));
        if (auto *hll = std::get_if<sketches::hll_sketch>(&*s)) std::printf("visitors: %.0f\n", hll->estimate());
    }

    // The try_ forms return the status instead of throwing (and are all a
    // -fno-exceptions build has); a view over 7 bytes of the image is too short.
    sketches::bloom_const_view truncated(filter.data(), 7);
    sketches::result<bool> r = truncated.try_contains("bob");
    std::printf("capacity flags: %u; a 7-byte view gives: %s\n", filter.capacity_flags(), sketches::status_text(r.status));

    bytes.back() ^= 1; // damage one byte: the import refuses it
    try {
        sketches::bloom_filter::verify(bytes);
    } catch (const sketches::error &e) {
        std::printf("damaged bytes give: %s\n", e.what());
    }
    return 0; // the destructors free the buffers
}
