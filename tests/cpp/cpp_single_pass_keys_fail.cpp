// Must NOT compile (tests/tests/cpp.rs): a single-pass range of keys (words
// read with std::istream_iterator) passed to a batch. A batch reads its keys
// twice, counting them first: the count consumed the stream, the second
// pass saw one cached word, and the C call got uninitialized key slices
// (status::null_pointer by luck, or wild reads). The wrapper refuses it
// with its "single-pass" static_assert. Built with -DA_CONTAINER (the
// words copied into a std::vector first), it compiles.
#include "sketches.hpp"

#include <iterator>
#include <sstream>
#include <string>
#include <vector>
#if __cplusplus >= 202002L
#include <ranges>
#endif

/// The words of a stream as a range (what a C++17 program writes for
/// std::ranges::subrange of two istream_iterators).
struct words_of {
    std::istream *in;
    std::istream_iterator<std::string> begin() const { return std::istream_iterator<std::string>(*in); }
    std::istream_iterator<std::string> end() const { return {}; }
};

int main() {
    std::istringstream text("alpha beta gamma delta");
    sketches::bloom_filter f = sketches::bloom_filter::create(1000, 0.01);
#ifdef A_CONTAINER
    std::vector<std::string> words{std::istream_iterator<std::string>(text), std::istream_iterator<std::string>()};
    f.add_batch(words);
    static_cast<void>(f.try_contains_batch(words, {}));
#if __cplusplus >= 202002L
    // A multi-pass C++20 view stays a key range.
    f.add_batch(std::views::iota(0, 10));
#endif
#else
    f.add_batch(words_of{&text});
#if __cplusplus >= 202002L
    static_cast<void>(f.try_add_batch(std::ranges::subrange(std::istream_iterator<std::string>(text),
                                                            std::istream_iterator<std::string>())));
#endif
#endif
    return f.contains("beta") ? 0 : 1;
}
