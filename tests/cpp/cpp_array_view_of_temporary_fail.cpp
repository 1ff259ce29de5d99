// Must NOT compile (tests/tests/cpp.rs): an array_view made of a temporary
// container that owns its elements (`array_view<const std::uint64_t> w =
// make_weights();`) or of a braced list (`= {3, 4}`) pointed into elements
// freed at the end of the statement: a later add_batch(keys, w) read freed
// memory as the weights (stack or heap use-after-free; wrong counts).
// Built with -DNAMED_ARRAY (array_views of named containers, and
// temporaries and braced lists passed straight to the members taking
// weights, hashes or outputs, which outlive the call), it compiles.
#include "sketches.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

std::vector<std::uint64_t> make_weights() { return std::vector<std::uint64_t>{3, 4}; }

void use(sketches::countmin_sketch &cm, sketches::bloom_filter &f) {
    std::vector<std::string_view> keys{"a", "b"};
#ifdef NAMED_ARRAY
    std::vector<std::uint64_t> weights = make_weights();
    sketches::array_view<const std::uint64_t> w = weights;
    static_cast<void>(cm.try_add_batch(keys, w));
    static_cast<void>(cm.try_add_batch(keys, make_weights()));
    static_cast<void>(cm.try_add_batch(keys, {3, 4}));
    static_cast<void>(f.try_add_hash_batch({sketches::hash("a"), sketches::hash("b")}));
    static_cast<void>(f.try_add_hash_batch(make_weights()));
#else
    sketches::array_view<const std::uint64_t> w = make_weights();
    sketches::array_view<const std::uint64_t> v = {3, 4};
    static_cast<void>(cm.try_add_batch(keys, w));
    static_cast<void>(cm.try_add_batch(keys, v));
    static_cast<void>(f.try_add_hash_batch(w));
#endif
}
