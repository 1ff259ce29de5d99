// Must NOT compile (tests/tests/cpp.rs): a view taken of a temporary owning
// sketch (`bloom_filter::create(...).view()`) would point into a buffer freed
// at the end of the statement. Built with -DNAMED_OWNER (views of a named
// filter, and a view taken of a temporary view, which owns nothing), it
// compiles.
#include "sketches.hpp"

#include <utility>

bool probe() {
#ifdef NAMED_OWNER
    sketches::bloom_filter f = sketches::bloom_filter::create(1000, 0.01);
    sketches::bloom_const_view r = f.const_view();
    sketches::bloom_view w = f.view();
    sketches::bloom_view again = std::move(w).view();
    sketches::bloom_const_view read = std::move(again).const_view();
    return r.size() == read.size();
#else
    sketches::bloom_const_view r = sketches::bloom_filter::create(1000, 0.01).const_view();
    sketches::bloom_view w = sketches::bloom_filter::create(1000, 0.01).view();
    return r.size() == w.size();
#endif
}
