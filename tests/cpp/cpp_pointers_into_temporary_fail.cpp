// Must NOT compile (tests/tests/cpp.rs): what points into the buffer of a
// temporary owning sketch dangles once the statement ends, as a view of it
// does (cpp_view_of_temporary_fail.cpp): the Top-k items of
// `topk_sketch::from_bytes(b).list_into(items)` (their keys point into the
// freed image: a heap use-after-free under ASan), the bitset of
// `make_filter().bitset()` and `make_filter().bytes()`. Built with
// -DNAMED_OWNER (the same calls on named sketches, and on temporary views,
// which own nothing), it compiles.
#include "sketches.hpp"

#include <array>
#include <cstddef>

sketches::topk_sketch received() { return sketches::topk_sketch::create(10, 16); }
sketches::sbbf_filter column_filter() { return sketches::sbbf_filter::create(1000, 0.01); }

std::size_t probe() {
    std::array<sketches::topk_item, 10> top{};
#ifdef NAMED_OWNER
    sketches::topk_sketch t = received();
    sketches::sbbf_filter f = column_filter();
    std::size_t n = t.list_into(top) + t.try_list_into(top).value + t.const_view().list_into(top);
    n += t.view().try_list_into(top).value; // a temporary view owns nothing
    sketches::byte_view bits = f.bitset();
    sketches::byte_view all = f.bytes();
    sketches::byte_view from_view = f.const_view().bitset();
    return n + bits.size() + all.size() + from_view.size() + f.try_bitset().value.size() + f.view().bytes().size();
#else
    std::size_t n = received().list_into(top);
    n += received().try_list_into(top).value;
    sketches::byte_view bits = column_filter().bitset();
    sketches::byte_view tried = column_filter().try_bitset().value;
    sketches::byte_view all = column_filter().bytes();
    return n + bits.size() + tried.size() + all.size();
#endif
}
