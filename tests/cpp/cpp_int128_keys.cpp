// Built by tests/tests/cpp.rs in the GNU dialects (g++'s default), where
// __int128 is an integral type: a container of 128-bit integers is not a key
// range. The batch forms hash integer keys as 64-bit values, so taking it
// would cut every key to its low 64 bits and make keys that differ only in
// their high half (IPv6 addresses sharing an interface ID) one key. Nor is
// a 128-bit integer a Count-Min or Top-k weight: cut to 64 bits, the weight
// 2^64 + 5 was added as 5.
#include "sketches.hpp"

#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

template <class Sketch, class Keys, class = void>
struct can_add_batch : std::false_type {};
template <class Sketch, class Keys>
struct can_add_batch<Sketch, Keys,
                     std::void_t<decltype(std::declval<Sketch &>().try_add_batch(std::declval<const Keys &>()))>>
    : std::true_type {};

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;
static_assert(!can_add_batch<sketches::hll_sketch, std::vector<u128>>::value, "128-bit keys would be cut to 64 bits");
static_assert(!can_add_batch<sketches::bloom_filter, std::vector<i128>>::value, "128-bit keys would be cut to 64 bits");
template <class Sketch, class W, class = void>
struct can_add_weighted : std::false_type {};
template <class Sketch, class W>
struct can_add_weighted<Sketch, W,
                        std::void_t<decltype(std::declval<Sketch &>().try_add("key", std::declval<W>()))>>
    : std::true_type {};
static_assert(!std::is_constructible_v<sketches::weight_value, u128>, "128-bit weights would be cut to 64 bits");
static_assert(!std::is_constructible_v<sketches::weight_value, i128>, "128-bit weights would be cut to 64 bits");
static_assert(!can_add_weighted<sketches::countmin_sketch, u128>::value, "128-bit weights would be cut to 64 bits");
static_assert(!can_add_weighted<sketches::topk_sketch, i128>::value, "128-bit weights would be cut to 64 bits");
#endif
// The 64-bit and narrower integers stay keys and weights.
static_assert(std::is_constructible_v<sketches::weight_value, std::uint64_t>);
static_assert(std::is_constructible_v<sketches::weight_value, std::int8_t>);
static_assert(can_add_weighted<sketches::countmin_sketch, std::int64_t>::value);
static_assert(can_add_weighted<sketches::topk_sketch, unsigned>::value);
static_assert(can_add_batch<sketches::hll_sketch, std::vector<std::uint64_t>>::value);
static_assert(can_add_batch<sketches::bloom_filter, std::vector<std::int32_t>>::value);

int main() { return 0; }
