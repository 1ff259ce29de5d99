// Must NOT compile (tests/tests/cpp.rs): `if (f.try_contains(key))` would
// test whether the call succeeded, not whether the key is present, so a
// result<bool> has no conversion to bool. Built with -DTEST_THE_VALUE (the
// status and the answer read explicitly, and other results still testable
// with `if (r)`), it compiles.
#include "sketches.hpp"

#include <cstdint>

bool present(const sketches::bloom_filter &f) {
#ifdef TEST_THE_VALUE
    sketches::result<bool> r = f.try_contains("carol");
    sketches::result<std::uint64_t> size = sketches::bloom_filter::try_import_size("not an image");
    return r.ok() && r.value && *r && !size;
#else
    if (f.try_contains("carol")) return true;
    return false;
#endif
}
