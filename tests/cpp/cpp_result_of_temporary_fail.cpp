// Must NOT compile (tests/tests/cpp.rs): a view, or the bytes, of the owning
// sketch inside a temporary result (`bloom_const_view v =
// *bloom_filter::try_from_bytes(b);`, `bloom_filter::try_create(p)->view()`)
// pointed into a buffer freed at the end of the statement, while the same
// views of a temporary sketch itself were already refused; so did a view of
// the sketch in a temporary stream read's result
// (`bloom_filter::try_read_from(in)->value()`). Built with
// -DNAMED_RESULT (views of a named result, the sketch moved out of a
// temporary result with `*`, and `->` on temporary results of other
// values), it compiles.
#include "sketches.hpp"

#include <cstdint>
#include <istream>
#include <vector>

std::size_t use(const std::vector<std::uint8_t> &image, std::istream &in) {
    sketches::result<sketches::bloom_params> p = sketches::bloom_filter::try_plan(1000, 0.01);
#ifdef NAMED_RESULT
    sketches::result<sketches::bloom_filter> r = sketches::bloom_filter::try_from_bytes(image);
    sketches::bloom_const_view a = *r;
    sketches::bloom_const_view b = r->const_view();
    sketches::bloom_view c = r->view();
    sketches::byte_view d = r->bytes();
    sketches::bloom_filter moved = *sketches::bloom_filter::try_create(*p);
    std::uint64_t bits = sketches::bloom_filter::try_plan(1000, 0.01)->bits;
    sketches::read_result<sketches::bloom_filter> read = sketches::bloom_filter::try_read_from(in);
    sketches::bloom_const_view e = read->value();
    sketches::bloom_filter read_moved = **sketches::bloom_filter::try_read_from(in);
    return a.size() + b.size() + c.size() + d.size() + moved.size() + static_cast<std::size_t>(bits) + e.size() +
           read_moved.size();
#else
    sketches::bloom_const_view a = *sketches::bloom_filter::try_from_bytes(image);
    sketches::bloom_const_view b = sketches::bloom_filter::try_create(*p)->const_view();
    sketches::bloom_view c = sketches::bloom_filter::try_create(*p)->view();
    sketches::byte_view d = sketches::bloom_filter::try_create(*p)->bytes();
    sketches::bloom_const_view e = sketches::bloom_filter::try_read_from(in)->value();
    return a.size() + b.size() + c.size() + d.size() + e.size();
#endif
}
