// Built by tests/tests/cpp.rs with exceptions and linked after the
// -fno-exceptions module cpp_mixed_module.cpp (see there): the try_ stream
// forms of this program must still report status::stream_error for a
// stream that throws (its exceptions() mask), never let the exception
// escape, whatever the module's object file defines. Both translation units
// include sketches.hpp, so the link also checks that the header defines
// nothing twice.
#include "sketches.hpp"

#include <cstdio>
#include <ios>
#include <istream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <streambuf>

bool module_read_bloom(std::istream &in);
bool module_write_hll(std::ostream &out);
bool module_read_any(std::istream &in);

namespace {

int passed = 0;
int failed = 0;

void check(bool ok, const char *what) {
    if (ok) {
        passed++;
    } else {
        failed++;
        std::printf("FAILED: %s\n", what);
    }
}

/// A device that fails on every read and write.
struct failing_device : std::streambuf {
    int_type underflow() override { throw std::runtime_error("device read error"); }
    int_type overflow(int_type) override { throw std::runtime_error("device write error"); }
    std::streamsize xsputn(const char *, std::streamsize) override { throw std::runtime_error("device write error"); }
};

} // namespace

int main() {
    // The module works on its own streams.
    std::stringstream images;
    check(module_write_hll(images), "the module writes an image");
    check(module_read_any(images), "the module reads it back");
    std::stringstream blooms;
    sketches::bloom_filter f = sketches::bloom_filter::create(1000, 0.01);
    f.add("alice");
    f.write_to(blooms);
    check(module_read_bloom(blooms), "the module reads this program's image");

    // This program's try_ forms on a stream that throws: stream_error.
    failing_device device;
    std::istream in(&device);
    in.exceptions(std::ios::badbit);
    check(sketches::bloom_filter::try_read_from(in).status == sketches::status::stream_error,
          "try_read_from reports a throwing stream as stream_error");
    std::istream in_any(&device);
    in_any.exceptions(std::ios::badbit);
    check(sketches::try_read_sketch(in_any).status == sketches::status::stream_error,
          "try_read_sketch reports a throwing stream as stream_error");
    std::ostream out(&device);
    out.exceptions(std::ios::badbit);
    check(f.try_write_to(out).status == sketches::status::stream_error,
          "try_write_to reports a throwing stream as stream_error");
    // The throwing form passes the stream's own exception on.
    std::istream in_throwing(&device);
    in_throwing.exceptions(std::ios::badbit);
    bool rethrown = false;
    try {
        static_cast<void>(sketches::bloom_filter::read_from(in_throwing));
    } catch (const std::runtime_error &e) {
        rethrown = std::string(e.what()) == "device read error";
    }
    check(rethrown, "read_from passes the stream's exception on");

    std::printf("cpp_mixed: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
