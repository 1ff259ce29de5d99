// Must NOT compile (tests/tests/cpp.rs): a key range whose iterator yields
// std::array keys by value (as a transform returning a fixed-size key does)
// would hand the batch call pointers into temporaries that die at the end of
// each iteration, so every key but the last would be lost. The wrapper
// refuses it with its "owning temporaries" static_assert. Built with
// -DYIELD_REFERENCES (the same range yielding references), it compiles.
#include "sketches.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

using key = std::array<std::uint8_t, 16>;

struct keys_by_value {
    const std::vector<key> *keys;
    struct iterator {
        using iterator_category = std::forward_iterator_tag;
        using value_type = key;
        using difference_type = std::ptrdiff_t;
        using pointer = const key *;
#ifdef YIELD_REFERENCES
        using reference = const key &;
#else
        using reference = key;
#endif
        const key *at;
        reference operator*() const { return *at; }
        iterator &operator++() {
            ++at;
            return *this;
        }
        iterator operator++(int) {
            iterator old = *this;
            ++at;
            return old;
        }
        bool operator==(const iterator &o) const { return at == o.at; }
        bool operator!=(const iterator &o) const { return at != o.at; }
    };
    iterator begin() const { return iterator{keys->data()}; }
    iterator end() const { return iterator{keys->data() + keys->size()}; }
};

int main() {
    std::vector<key> keys(100);
    sketches::bloom_filter f = sketches::bloom_filter::create(1000, 0.01);
    f.add_batch(keys_by_value{&keys});
    return f.contains(keys[0]) ? 0 : 1;
}
