// Must NOT compile (tests/tests/cpp.rs): a char pointer and a length, as C
// passes a key (sketch_hash(key, key_len, seed)), went to the (key, seed) and
// (key, weight) forms: sketches::hash(s.data(), s.size()) hashed the C string
// with seed s.size() (contains_hash of it answered false for a key that was
// added), countmin add(s.data(), s.size()) counted the key s.size() times,
// and hash_xxh64(buf, 4) over a char buffer without a NUL read past its end
// (strlen; ASan: stack-buffer-overflow). Built with -DSPELL_THE_BYTES (the
// key as a byte_view or string_view, and string literals with a seed or
// weight, which still pass), it compiles.
#include "sketches.hpp"

#include <cstdint>
#include <string>
#include <string_view>

std::uint64_t keys(const std::string &s, std::string &w, std::uint64_t seed) {
    sketches::countmin_sketch cm = sketches::countmin_sketch::create(0.01, 0.01);
    sketches::topk_sketch top = sketches::topk_sketch::create(10, 16);
    char buf[8] = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
#ifdef SPELL_THE_BYTES
    cm.add(sketches::byte_view(s.data(), s.size()));
    cm.add(std::string_view(w), 3);
    cm.add("page", 3);
    static_cast<void>(cm.try_add(s, 2));
    top.add(std::string_view(w.data(), w.size()), 2);
    top.add("user", 2);
    static_cast<void>(top.try_add(std::string_view(s)));
    return sketches::hash(sketches::byte_view(s.data(), s.size())) + sketches::hash("literal", seed) +
           sketches::hash_xxh64(sketches::byte_view(buf, 4)) + sketches::hash(s, seed) + cm.estimate(s);
#else
    cm.add(s.data(), s.size());
    static_cast<void>(cm.try_add(w.data(), w.size()));
    top.add(w.data(), 2);
    static_cast<void>(top.try_add(s.c_str(), s.size()));
    return sketches::hash(s.data(), s.size()) + sketches::hash(w.data(), seed) + sketches::hash_xxh64(buf, 4);
#endif
}
