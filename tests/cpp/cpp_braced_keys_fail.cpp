// Must NOT compile (tests/tests/cpp.rs): a braced list of keys passed to a
// batch (`f.add_batch({"alice"})`, contains_batch, hash_batch, fuse build)
// initialized the packed_view overload's argument as an aggregate (data =
// "alice", count = 0): nothing was added, contains_batch answered an empty
// vector, and a binary fuse filter "built" of {"alice"} did not contain it,
// all silently. Built with -DA_CONTAINER (the keys in a container, and a
// packed_view of all four parts or empty), it compiles.
#include "sketches.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

std::size_t batch(sketches::bloom_filter &f) {
#ifdef A_CONTAINER
    f.add_batch(std::vector<std::string_view>{"alice"});
    const char data[] = "alicebob";
    const std::uint32_t offsets[] = {0, 5, 8};
    f.add_batch(sketches::packed_view{data, 8, offsets, 2});
    f.add_batch(sketches::packed_view{});
    f.add_batch({}); // an empty batch
    sketches::fuse_filter fuse = sketches::fuse_filter::build(std::vector<std::string_view>{"alice"}, 0.01);
    return f.contains_batch(std::vector<std::string_view>{"alice"}).size() +
           sketches::hash_batch(std::vector<std::string_view>{"alice"}).size() + fuse.size();
#else
    f.add_batch({"alice"});
    sketches::fuse_filter fuse = sketches::fuse_filter::build({"alice"}, 0.01);
    return f.contains_batch({"alice"}).size() + sketches::hash_batch({"alice"}).size() + fuse.size();
#endif
}
