// Must NOT compile (tests/tests/cpp.rs): a byte_view made of a temporary
// container that owns its bytes (`sketches::byte_view k = make_key();` of a
// returned std::string, std::vector or std::array) pointed into bytes freed
// at the end of the statement: a later f.add(k) hashed freed memory (heap
// use-after-free; another key added than the one meant). Built with
// -DNAMED_KEY (byte_views of named containers and of temporary views, and
// temporaries passed straight to the members and functions taking a key or
// image bytes, which outlive the call), it compiles.
#include "sketches.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

std::string make_key() { return std::string(40, 'k'); }
std::vector<std::uint8_t> make_bytes() { return std::vector<std::uint8_t>(40, 7); }
std::array<std::uint8_t, 16> make_id() { return std::array<std::uint8_t, 16>{}; }

std::size_t use(sketches::bloom_filter &f, sketches::countmin_sketch &cm) {
#ifdef NAMED_KEY
    std::string key = make_key();
    std::vector<std::uint8_t> bytes = make_bytes();
    std::array<std::uint8_t, 16> id = make_id();
    sketches::byte_view a = key;
    sketches::byte_view b = bytes;
    sketches::byte_view c = id;
    sketches::byte_view d = std::string_view(key);
    static_cast<void>(f.try_add(a));
    static_cast<void>(f.try_add(b));
    static_cast<void>(f.try_add(c));
    static_cast<void>(f.try_add(d));
    static_cast<void>(f.try_add(make_key()));
    static_cast<void>(f.try_add(make_bytes()));
    static_cast<void>(f.try_add(make_id()));
    static_cast<void>(cm.try_add(make_key(), 2));
    static_cast<void>(sketches::bloom_filter::try_verify(make_bytes()));
    sketches::packed_keys packed;
    static_cast<void>(packed.try_push_back(make_key()));
    return static_cast<std::size_t>(sketches::hash(make_key()) & 1u) + packed.size();
#else
    sketches::byte_view a = make_key();
    sketches::byte_view b = make_bytes();
    sketches::byte_view c = make_id();
    static_cast<void>(f.try_add(a));
    static_cast<void>(f.try_add(b));
    static_cast<void>(cm.try_add(c, 2));
    return 0;
#endif
}
