// Must NOT compile (tests/tests/cpp.rs): a packed_view of a temporary
// packed_keys (`sketches::packed_view v = load_keys();`, or
// `load_keys().view()`) pointed into the packed_keys' buffers, freed at the
// end of the statement: the batch then read freed memory (heap
// use-after-free; keys added or found that were never given). Built with
// -DNAMED_KEYS (views of a named packed_keys, and temporaries passed
// straight to the batch members, hash_batch and the fuse build, which
// outlive the call), it compiles.
#include "sketches.hpp"

#include <string>
#include <vector>

sketches::packed_keys load_keys() {
    sketches::packed_keys keys;
    static_cast<void>(keys.try_push_back("alice"));
    static_cast<void>(keys.try_push_back("bob"));
    return keys;
}

std::size_t batch(sketches::bloom_filter &f) {
#ifdef NAMED_KEYS
    sketches::packed_keys keys = load_keys();
    const sketches::packed_keys &named = keys;
    sketches::packed_view v = keys;
    sketches::packed_view w = named.view();
    static_cast<void>(f.try_add_batch(v));
    static_cast<void>(f.try_add_batch(w));
    static_cast<void>(f.try_add_batch(keys));
    static_cast<void>(f.try_add_batch(load_keys()));
    std::uint64_t hashes[2];
    static_cast<void>(sketches::try_hash_batch(load_keys(), 0, hashes));
    sketches::result<sketches::fuse_filter> fuse = sketches::fuse_filter::try_build(load_keys(), 0.01);
    sketches::result<bool> found = f.try_contains("alice");
    return fuse.value.size() + (found.value ? 1u : 0u);
#else
    sketches::packed_view v = load_keys();
    sketches::packed_view w = load_keys().view();
    static_cast<void>(f.try_add_batch(v));
    static_cast<void>(f.try_add_batch(w));
    return 0;
#endif
}
