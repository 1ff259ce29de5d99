// Built by tests/tests/cpp.rs with -fno-exceptions and linked FIRST into
// the program of cpp_mixed_main.cpp, which is built with exceptions: a
// module of a service (or a firmware library) compiled without exceptions.
// It reads and writes images through the wrapper, so its object file
// defines the wrapper's out-of-line inline functions (read_image, the
// stream writes) in their -fno-exceptions form, which catches nothing.
// Before the wrapper put each mode in its own inline namespace, the linker
// kept these definitions for the whole program (the first of equal names
// wins), and the main program's try_read_from / try_write_to, documented
// never to throw, let a throwing stream's exception escape a noexcept
// function: std::terminate.
#include "sketches.hpp"

#include <istream>
#include <ostream>

/// Reads one Bloom filter image; true when it read one.
bool module_read_bloom(std::istream &in) {
    sketches::read_result<sketches::bloom_filter> r = sketches::bloom_filter::try_read_from(in);
    return r.ok() && r.value.has_value();
}

/// Writes a fresh HyperLogLog image; true when it was written.
bool module_write_hll(std::ostream &out) {
    sketches::result<sketches::hll_sketch> h = sketches::hll_sketch::try_create(10);
    return h.ok() && h.value.try_write_to(out).ok();
}

/// Reads any image; true when it read one.
bool module_read_any(std::istream &in) {
    sketches::read_result<sketches::any_sketch> r = sketches::try_read_sketch(in);
    return r.ok() && r.value.has_value();
}
