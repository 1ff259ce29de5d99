// Exercises every member of include/sketches.hpp for every family: the
// owning types, views over caller memory and read-only views; keys as
// string_view, C strings, std::string, byte containers, integers and
// hashes; batches == single adds (whole images compared byte for byte) in
// the slice, packed, integer and hash forms; move and clone; export/import
// round trips; streams (write_to, read_from, read_sketch: images of every
// family back to back, truncated, damaged, forged, failing streams); error
// paths throwing sketches::error with the right status.
// Built by tests/tests/cpp.rs as C++17 and C++20 with -Wall -Wextra -Werror
// (and conversion warnings), and under ASan/UBSan. Prints "N passed, N failed".
#include "sketches.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <limits>
#include <list>
#include <map>
#include <set>
#include <sstream>
#include <memory>
#include <new>
#include <optional>
#include <streambuf>
#include <variant>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>
#if __cplusplus >= 202002L
#include <ranges>
#include <span>
#endif

namespace {

int passed = 0;
int failed = 0;

void check(bool ok, const char *what, int line) {
    if (ok) {
        passed++;
    } else {
        failed++;
        std::fprintf(stderr, "cpp_test.cpp:%d: check failed: %s\n", line, what);
    }
}
#define CHECK(cond) check(static_cast<bool>(cond), #cond, __LINE__)

/* What a sketches::error's what() says: "<family>: <status text>", or the
   status text alone for an error without a family. */
std::string error_text(const sketches::error &e) {
    std::string text = sketches::status_text(e.status());
    return *e.family() == '\0' ? text : std::string(e.family()) + ": " + text;
}

/* The expression throws sketches::error with status `expected`, whose what()
   is sketch_status_str of it, after the family's name. */
#define EXPECT_ERROR(expr, expected)                                                                       \
    do {                                                                                                   \
        try {                                                                                              \
            static_cast<void>(expr);                                                                       \
            check(false, #expr " did not throw", __LINE__);                                                \
        } catch (const sketches::error &e_) {                                                              \
            check(e_.status() == (expected) && error_text(e_) == e_.what(),                                \
                  #expr " threw another status", __LINE__);                                                \
            if (e_.status() != (expected)) std::fprintf(stderr, "  got: %s\n", e_.what());                \
        }                                                                                                  \
    } while (0)

/* The expression throws sketches::error with status `expected` (a stream
   error: what() may carry a detail after the status text). */
#define EXPECT_STREAM_ERROR(expr, expected)                                                                \
    do {                                                                                                   \
        try {                                                                                              \
            static_cast<void>(expr);                                                                       \
            check(false, #expr " did not throw", __LINE__);                                                \
        } catch (const sketches::error &e_) {                                                              \
            check(e_.status() == (expected) && std::string(e_.what()).find(error_text(e_)) == 0,           \
                  #expr " threw another status", __LINE__);                                                \
            if (e_.status() != (expected)) std::fprintf(stderr, "  got: %s\n", e_.what());                \
        }                                                                                                  \
    } while (0)

using sketches::status;
using u64 = std::uint64_t;

/* Aligned caller memory for the views. */
struct aligned_buffer {
    /* Takes the uint64_t the image_size functions return; a size past the
       address space (a 32-bit size_t) ends the test rather than wrapping. */
    explicit aligned_buffer(std::uint64_t n)
        : size(checked_size(n)), ptr(std::aligned_alloc(64, (size + 64) / 64 * 64)) {
        if (ptr == nullptr) std::abort();
        std::memset(ptr, 0, (size + 64) / 64 * 64);
    }
    static std::size_t checked_size(std::uint64_t n) {
        if (n > std::numeric_limits<std::size_t>::max() - 64) std::abort();
        return static_cast<std::size_t>(n);
    }
    ~aligned_buffer() { std::free(ptr); }
    aligned_buffer(const aligned_buffer &) = delete;
    aligned_buffer &operator=(const aligned_buffer &) = delete;
    std::size_t size;
    void *ptr;
    unsigned char *bytes() { return static_cast<unsigned char *>(ptr); }
};

std::vector<std::string> make_keys(const char *prefix, int n) {
    std::vector<std::string> keys;
    for (int i = 0; i < n; i++) keys.push_back(prefix + std::to_string(i));
    return keys;
}

/* A forward range of keys whose length changes at each pass (a view of a
   container that changes meanwhile): the first pass yields `first` of
   `keys`, each later one `step` more (or fewer). A batch counts its keys in
   one pass and reads them in another. */
template <class K>
struct shifting_keys {
    std::vector<K> keys;
    std::size_t first;
    std::ptrdiff_t step;
    mutable std::size_t passes = 0;
    typename std::vector<K>::const_iterator begin() const {
        passes++;
        return keys.begin();
    }
    typename std::vector<K>::const_iterator end() const {
        std::ptrdiff_t len = static_cast<std::ptrdiff_t>(first) + step * static_cast<std::ptrdiff_t>(passes - 1);
        return keys.begin() + len;
    }
};

/* Allocation failure on demand: while fail_allocations is set, the global
   operator new throws std::bad_alloc (the wrapper's own aligned buffers use
   the nothrow aligned form, which this does not replace). */
std::atomic<bool> fail_allocations{false};

template <class A, class B>
bool same_image(const A &a, const B &b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

/* ------------------------------------------------------------------ */

void test_basics() {
    CHECK(sketches::version() == SKETCH_VERSION_MAJOR * 10000u + SKETCH_VERSION_MINOR * 100u + SKETCH_VERSION_PATCH);
    CHECK(std::string(sketches::version_string()) == SKETCH_VERSION_STRING);
    CHECK(std::string(sketches::status_text(status::ok)) == "ok");
    CHECK(std::string(sketches::status_text(status::full)) == sketch_status_str(SKETCH_FULL));
    CHECK(std::string(sketches::status_text(status::out_of_memory)) == "out of memory");
    sketches::error e(status::checksum_mismatch);
    CHECK(e.status() == status::checksum_mismatch);
    CHECK(std::string(e.what()) == sketch_status_str(SKETCH_CHECKSUM_MISMATCH));
    const std::runtime_error &base = e;
    CHECK(std::string(base.what()) == e.what());
    CHECK(sketches::image_align == 64);

    // result<T>
    sketches::result<int> r{status::ok, 5};
    CHECK(r.ok() && static_cast<bool>(r) && *r == 5);
    sketches::result<int> bad{status::invalid_parameter, 0};
    CHECK(!bad.ok() && !bad);

    // Hashing: one rule for every form.
    u64 x = 0x0123456789abcdefULL;
    unsigned char le[8];
    for (int i = 0; i < 8; i++) le[i] = static_cast<unsigned char>(x >> (8 * i));
    CHECK(sketches::hash(x, 5) == sketch_hash(le, 8, 5));
    CHECK(sketches::hash(sketches::byte_view(le, 8), 5) == sketches::hash(x, 5));
    CHECK(sketches::hash("") == 0x2D06800538D394C2ULL);
    CHECK(sketches::hash("alpha", 9) == sketch_hash("alpha", 5, 9));
    CHECK(sketches::hash(std::string("alpha"), 9) == sketches::hash(std::string_view("alpha"), 9));
    CHECK(sketches::hash_xxh64("alpha") == sketch_hash_xxh64("alpha", 5, 0));
    std::vector<std::string> keys{"alpha", "", "b"};
    std::vector<u64> h = sketches::hash_batch(keys, 9);
    CHECK(h.size() == 3 && h[0] == sketches::hash("alpha", 9) && h[1] == sketches::hash("", 9));
    std::vector<u64> ints{1, 2, 3};
    std::vector<u64> hi = sketches::hash_batch(ints, 9);
    CHECK(hi[2] == sketches::hash(u64{3}, 9));
    std::vector<int> small_ints{1, 2, 3};
    CHECK(sketches::hash_batch(small_ints, 9) == hi); // converted to uint64 first
    sketches::packed_keys packed(keys);
    CHECK(sketches::hash_batch(packed, 9) == h);
    std::array<u64, 2> too_small{};
    CHECK(sketches::try_hash_batch(keys, 9, too_small) == status::buffer_too_small);
    std::array<u64, 3> out3{};
    CHECK(sketches::try_hash_batch(packed.view(), 9, out3) == status::ok && out3[2] == h[2]);
}

void test_keys() {
    // Every byte_view source names the same bytes.
    u64 ref = sketches::hash("key");
    std::string s = "key";
    std::string_view sv = s;
    const char *cstr = "key";
    std::vector<std::uint8_t> vu{'k', 'e', 'y'};
    std::vector<char> vc{'k', 'e', 'y'};
    std::array<unsigned char, 3> arr{{'k', 'e', 'y'}};
    std::array<std::byte, 3> barr{{std::byte{'k'}, std::byte{'e'}, std::byte{'y'}}};
    CHECK(sketches::hash(s) == ref && sketches::hash(sv) == ref && sketches::hash(cstr) == ref);
    CHECK(sketches::hash(vu) == ref && sketches::hash(vc) == ref && sketches::hash(arr) == ref);
    CHECK(sketches::hash(barr) == ref && sketches::hash(sketches::byte_view(s.data(), 3)) == ref);
    sketches::byte_view b = s;
    CHECK(b.size() == 3 && !b.empty() && b.as_string_view() == "key");
    CHECK(sketches::byte_view().empty() && sketches::byte_view().as_string_view().empty());
    const char *null_str = nullptr;
    CHECK(sketches::byte_view(null_str).empty());
    char chars[8] = "key";           // a char array is a C string
    CHECK(sketches::hash(chars) == ref);
#if __cplusplus >= 202002L
    std::span<const std::byte> sp(barr);
    CHECK(sketches::hash(sp) == ref);
    std::span<const unsigned char> spu(arr);
    CHECK(sketches::hash(spu) == ref);
    std::u8string u8 = u8"key";
    CHECK(sketches::hash(u8) == ref);
#endif
    // Integers of any width hash as their 64-bit value.
    CHECK(sketches::hash(7) == sketches::hash(u64{7}));
    CHECK(sketches::hash(static_cast<u64>(std::int64_t{-1})) == sketches::hash(~u64{0}));
    std::vector<std::int64_t> signed_keys{-1, 5};
    CHECK(sketches::hash_batch(signed_keys)[0] == sketches::hash(~u64{0})); // int64 containers pass as they are
#if __cplusplus >= 202002L && !(defined(__clang__) && __clang_major__ < 15) // clang 14 cannot use libstdc++'s views
    // C++20 ranges as batches: std::views::iota (its iterators are not
    // classic iterators: std::distance did not compile) and a range ending
    // in a sentinel (an unbounded iota cut by take).
    std::vector<u64> ids{0, 1, 2, 3, 4};
    CHECK(sketches::hash_batch(std::views::iota(u64{0}, u64{5})) == sketches::hash_batch(ids));
    CHECK(sketches::hash_batch(std::views::iota(u64{0}) | std::views::take(5)) == sketches::hash_batch(ids));
    std::vector<std::string> words{"a", "bb", "ccc"};
    auto short_words = words | std::views::take_while([](const std::string &w) { return w.size() < 3; });
    CHECK(sketches::hash_batch(short_words) == sketches::hash_batch(std::vector<std::string>{"a", "bb"}));
#endif

    // A range yielding another number of keys on the batch's second pass
    // than on its first (the count): status::invalid_argument, nothing
    // added. More keys were written past the scratch (a heap overflow past
    // 64 keys); fewer left slices uninitialized for the C call to read.
    {
        sketches::bloom_filter f = sketches::bloom_filter::create(1000, 0.01);
        std::vector<std::uint8_t> before = f.to_bytes();
        for (std::ptrdiff_t step : {std::ptrdiff_t{50}, std::ptrdiff_t{-50}}) {
            shifting_keys<std::string> shifting{make_keys("shift-", 200), 100, step};
            CHECK(f.try_add_batch(shifting) == status::invalid_argument);
            shifting.passes = 0;
            std::array<bool, 200> found{};
            CHECK(f.try_contains_batch(shifting, found) == status::invalid_argument);
            std::vector<u64> ints(200);
            for (std::size_t i = 0; i < ints.size(); i++) ints[i] = i;
            shifting_keys<std::uint32_t> narrow{std::vector<std::uint32_t>(ints.begin(), ints.end()), 100, step};
            CHECK(f.try_add_batch(narrow) == status::invalid_argument);
            shifting_keys<std::string> few{make_keys("few-", 20), 10, step > 0 ? 5 : -5};
            CHECK(f.try_add_batch(few) == status::invalid_argument); // stack scratch
        }
        CHECK(f.to_bytes() == before);
        shifting_keys<std::string> steady{make_keys("steady-", 200), 100, 0};
        CHECK(f.try_add_batch(steady) == status::ok && f.contains("steady-99") && !f.contains("steady-100"));
    }

    // array_view sources.
    std::vector<u64> v{1, 2, 3};
    u64 c_arr[3] = {1, 2, 3};
    std::array<u64, 3> std_arr{{1, 2, 3}};
    sketches::array_view<const u64> a1 = v, a2 = c_arr, a3 = std_arr, a4(v.data(), 2);
    CHECK(a1.size() == 3 && a2.size() == 3 && a3.size() == 3 && a4.size() == 2 && a2[1] == 2);
    u64 sum = 0;
    for (u64 e : a1) sum += e;
    CHECK(sum == 6 && a1.begin() + 3 == a1.end() && !a1.empty() && sketches::array_view<u64>().empty());
    sketches::array_view<u64> mut = v;
    mut[0] = 9;
    CHECK(v[0] == 9);
#if __cplusplus >= 202002L
    std::span<u64> spv(v);
    sketches::array_view<const u64> a5 = spv;
    CHECK(a5.size() == 3 && a5[0] == 9);
#endif

    // packed_keys
    sketches::packed_keys pk;
    CHECK(pk.empty() && pk.size() == 0 && pk.view().count == 0 && pk.view().offsets != nullptr);
    pk.push_back("ab");
    CHECK(pk.try_push_back(std::string("")) == status::ok);
    pk.push_back(std::vector<std::uint8_t>{'c'});
    CHECK(pk.size() == 3 && pk[0] == "ab" && pk[1].empty() && pk[2] == "c");
    sketches::packed_view pv = pk;
    CHECK(pv.count == 3 && pv.data_len == 3 && pv.offsets[0] == 0 && pv.offsets[3] == 3);
    sketches::packed_keys from_list{"x", "yz"};
    CHECK(from_list.size() == 2 && from_list[1] == "yz");
    // Past 4 GiB of key bytes (the limit of Arrow's 32-bit offsets) a key
    // is refused with invalid_argument before a byte of it is read, never
    // cut: a key reaching one byte past the limit (a byte_view that claims
    // the length; its bytes are never read), and a container with such a
    // key after a good one (all or nothing).
    if constexpr (sizeof(std::size_t) > sizeof(std::uint32_t)) {
        static const char tiny[1] = {0};
        std::size_t past = std::size_t{std::numeric_limits<std::uint32_t>::max()} - pk.view().data_len + 1;
        CHECK(pk.try_push_back(sketches::byte_view(tiny, past)) == status::invalid_argument);
        CHECK(pk.size() == 3 && pk.view().data_len == 3 && pk[2] == "c");
        std::vector<sketches::byte_view> batch{sketches::byte_view("fits", 4), sketches::byte_view(tiny, past)};
        CHECK(pk.try_append(batch) == status::invalid_argument);
        CHECK(pk.size() == 3 && pk.view().data_len == 3 && pk.view().offsets[3] == 3);
        EXPECT_ERROR(pk.push_back(sketches::byte_view(tiny, past)), status::invalid_argument);
        CHECK(pk.size() == 3);
    }
    pk.clear();
    CHECK(pk.empty());

    // A push_back whose allocation throws appends nothing: the next key
    // still has exactly its own bytes. "a" leaves the offsets' capacity
    // full and the bytes in the string's inline buffer, so "b" needs one
    // allocation, for the offsets.
    sketches::packed_keys oom;
    oom.push_back("a");
    bool threw = false;
    fail_allocations = true;
    try {
        oom.push_back("b");
    } catch (const std::bad_alloc &) {
        threw = true;
    }
    fail_allocations = false;
    CHECK(threw && oom.size() == 1 && oom.view().data_len == 1 && oom[0] == "a");
    oom.push_back("c");
    CHECK(oom.size() == 2 && oom[1] == "c");
}

/* ------------------------------------------------------------------ */
/* Membership filters share most of their surface; each family also gets */
/* its own test below.                                                   */

/* Adds keys singly, in every batch form, by hash; the images must be equal. */
template <class Filter, class Make>
void check_filter_batches(Make make, u64 seed) {
    std::vector<std::string> keys = make_keys("key-", 300);
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::list<std::string> linked(keys.begin(), keys.end()); // not contiguous
    std::vector<u64> ints;
    for (u64 i = 0; i < 300; i++) ints.push_back(i * 1000003);
    std::vector<std::uint32_t> narrow;
    for (u64 i : ints) narrow.push_back(static_cast<std::uint32_t>(i));

    Filter single = make(), by_strings = make(), by_views = make(), by_list = make(), by_packed = make(),
           by_hash = make(), by_hash_batch = make();
    for (const auto &k : keys) static_cast<void>(single.add(k));
    for (u64 i : ints) static_cast<void>(single.add(i));
    by_strings.add_batch(keys);
    by_strings.add_batch(ints);
    by_views.add_batch(views);
    by_views.add_batch(sketches::array_view<const u64>(ints));
    by_list.add_batch(linked);
    by_list.add_batch(ints);
    sketches::packed_keys packed(keys);
    by_packed.add_batch(packed);
    by_packed.add_batch(ints);
    for (const auto &k : keys) static_cast<void>(by_hash.add_hash(sketches::hash(k, seed)));
    for (u64 i : ints) static_cast<void>(by_hash.add_hash(sketches::hash(i, seed)));
    by_hash_batch.add_hash_batch(sketches::hash_batch(keys, seed));
    by_hash_batch.add_hash_batch(sketches::hash_batch(ints, seed));
    CHECK(same_image(single, by_strings));
    CHECK(same_image(single, by_views));
    CHECK(same_image(single, by_list));
    CHECK(same_image(single, by_packed));
    CHECK(same_image(single, by_hash));
    CHECK(same_image(single, by_hash_batch));

    // Queries: single == every batch form; no false negatives.
    std::vector<bool> r1 = single.contains_batch(keys);
    std::vector<bool> r2 = single.contains_batch(packed);
    std::vector<bool> r3 = single.contains_hash_batch(sketches::hash_batch(keys, seed));
    std::vector<bool> r4 = single.contains_batch(ints);
    bool all = true;
    for (std::size_t i = 0; i < keys.size(); i++) {
        all = all && r1[i] && r2[i] && r3[i] && r4[i] && single.contains(keys[i]) &&
              single.contains_hash(sketches::hash(keys[i], seed)) && single.contains(ints[i]);
    }
    CHECK(all);
    std::unique_ptr<bool[]> out(new bool[keys.size()]);
    single.contains_batch(views, sketches::array_view<bool>(out.get(), keys.size()));
    CHECK(out[0] && out[299]);
    single.contains_batch(packed, sketches::array_view<bool>(out.get(), keys.size()));
    single.contains_hash_batch(sketches::hash_batch(ints, seed), sketches::array_view<bool>(out.get(), keys.size()));
    CHECK(out[0] && out[299]);
    std::array<bool, 2> two{};
    EXPECT_ERROR(single.contains_batch(keys, two), status::buffer_too_small);
    EXPECT_ERROR(single.contains_batch(packed, two), status::buffer_too_small);
    CHECK(single.try_contains_batch(keys, two) == status::buffer_too_small);
    // Integer containers of other widths convert.
    CHECK(single.contains_batch(narrow).size() == narrow.size());
    // Absent keys: mostly absent.
    std::vector<std::string> absent = make_keys("absent-", 200);
    std::vector<bool> ra = single.contains_batch(absent);
    std::size_t hits = 0;
    for (bool x : ra) hits += x ? 1u : 0u;
    CHECK(hits < 40);
    // An empty batch is fine.
    std::vector<std::string> none;
    Filter empty = make();
    empty.add_batch(none);
    CHECK(empty.contains_batch(none).empty());
}

/* Views over caller memory, const views, move, clone, bytes. */
template <class Filter, class View, class ConstView, class Init>
void check_storage(Filter &f, Init init_view) {
    static_assert(!std::is_copy_constructible_v<Filter> && std::is_nothrow_move_constructible_v<Filter>);
    static_assert(std::is_copy_constructible_v<View> && std::is_copy_constructible_v<ConstView>);
    static_assert(Filter::is_owning && !View::is_owning && View::is_mutable && !ConstView::is_mutable);
    static_assert(std::is_same_v<typename Filter::owned_type, Filter>);
    static_assert(std::is_same_v<typename View::owned_type, Filter>);
    static_assert(std::is_same_v<typename Filter::const_view_type, ConstView>);

    // Views of the owning filter.
    static_cast<void>(f.add("via-owner"));
    View v = f;
    CHECK(v.data() == f.data() && v.size() == f.size());
    static_cast<void>(v.add("via-view"));
    ConstView cv = f;
    ConstView cv2 = v;
    CHECK(cv.contains("via-view") && cv2.contains("via-owner"));
    CHECK(f.view().data() == f.data() && f.const_view().size() == f.size());
    CHECK(f.bytes().data() == f.data() && f.bytes().size() == f.size());
    const Filter &cf = f;
    const void *cdata = cf.data();
    CHECK(cdata == f.data());

    // clone: an independent equal copy.
    Filter c = f.clone();
    CHECK(same_image(c, f) && c.data() != f.data());
    static_cast<void>(c.add("only-in-clone"));
    CHECK(!same_image(c, f));
    Filter from_view = cv.clone();
    CHECK(same_image(from_view, f));
    // A view over more memory than the image (a fixed-size shared-memory
    // slot): the clone holds the image, not the slot (it copied the whole
    // buffer, so size() and bytes() were not the image's).
    aligned_buffer slot(f.size() + 4096);
    std::memcpy(slot.ptr, f.data(), f.size());
    Filter from_slot = ConstView(slot.ptr, slot.size).clone();
    CHECK(from_slot.size() == f.size() && same_image(from_slot, f) && from_slot.contains("via-view"));

    // Move: the source is left empty (an empty buffer to the C ABI).
    Filter moved = std::move(c);
    CHECK(moved.contains("only-in-clone"));
    CHECK(c.size() == 0 && c.data() == nullptr); // NOLINT(bugprone-use-after-move)
    EXPECT_ERROR(c.contains("x"), status::buffer_too_small);
    EXPECT_ERROR(c.stats(), status::buffer_too_small);
    EXPECT_ERROR(c.to_bytes(), status::buffer_too_small);
    CHECK(c.try_contains("x").status == status::buffer_too_small);
    // It keeps no token nor hash either (they stayed the image's, so a
    // Parquet-mode filter's int key reported invalid_argument; see test_parquet).
    const sketch_token no_token{};
    CHECK(std::memcmp(&c.token(), &no_token, sizeof no_token) == 0 && c.hash_kind() == 0);
    Filter empty_clone = c.clone();
    CHECK(empty_clone.size() == 0);
    c = std::move(moved);
    CHECK(c.contains("only-in-clone") && moved.size() == 0);
    c = std::move(c); // self-move keeps it
    CHECK(c.contains("only-in-clone"));
    Filter def;
    CHECK(def.size() == 0);

    // Export / import: owning and into caller memory; zero-copy const view.
    std::vector<std::uint8_t> bytes = f.to_bytes();
    CHECK(bytes.size() == f.size());
    // The live bytes are not sealed: only the export carries the checksum.
    CHECK(Filter::try_verify(f.bytes()) == status::checksum_mismatch);
    Filter::verify(bytes);
    CHECK(Filter::try_verify(bytes) == status::ok);
    CHECK(Filter::import_size(bytes) == bytes.size());
    Filter back = Filter::from_bytes(bytes);
    CHECK(back.size() == f.size() && back.to_bytes() == bytes);
    aligned_buffer mem(f.size());
    View imported = Filter::from_bytes(bytes, mem.ptr, mem.size);
    CHECK(imported.data() == mem.ptr && imported.to_bytes() == bytes);
    ConstView zero_copy(mem.ptr, mem.size);
    CHECK(zero_copy.contains("via-view"));
    std::vector<std::uint8_t> out(f.size());
    CHECK(f.export_to(out.data(), out.size()) == f.size() && out == bytes);
    EXPECT_ERROR(f.export_to(out.data(), 10), status::buffer_too_small);
    // Damage is refused; the destination is untouched.
    bytes[bytes.size() - 1] ^= 1;
    EXPECT_ERROR(Filter::verify(bytes), status::checksum_mismatch);
    EXPECT_ERROR(Filter::from_bytes(bytes), status::checksum_mismatch);
    std::vector<unsigned char> before(mem.bytes(), mem.bytes() + mem.size);
    EXPECT_ERROR(Filter::from_bytes(bytes, mem.ptr, mem.size), status::checksum_mismatch);
    CHECK(std::memcmp(before.data(), mem.ptr, mem.size) == 0);
    bytes[bytes.size() - 1] ^= 1;
    bytes.pop_back(); // truncated: fewer bytes than the header records
    EXPECT_ERROR(Filter::from_bytes(bytes), status::length_mismatch);
    bytes = f.to_bytes();
    bytes.push_back(0); // extended
    EXPECT_ERROR(Filter::from_bytes(bytes), status::length_mismatch);
    EXPECT_ERROR(Filter::from_bytes(std::string_view("not an image at all, just some text padding it out to length")),
                 status::bad_magic);
    // Misaligned caller memory.
    std::vector<std::uint8_t> good = f.to_bytes();
    aligned_buffer mis(f.size() + 8);
    EXPECT_ERROR(Filter::from_bytes(good, mis.bytes() + 1, f.size()), status::misaligned);
    std::memcpy(mis.bytes() + 1, f.data(), f.size());
    ConstView misaligned(mis.bytes() + 1, f.size());
    EXPECT_ERROR(misaligned.contains("x"), status::misaligned);
    // A view too short for the image.
    ConstView cut(f.data(), 7);
    EXPECT_ERROR(cut.contains("x"), status::buffer_too_small);

    // init into caller memory.
    aligned_buffer fresh(f.size());
    View iv = init_view(fresh.ptr, fresh.size);
    CHECK(iv.data() == fresh.ptr && !iv.contains("via-view"));
    EXPECT_ERROR(init_view(fresh.bytes() + 1, fresh.size), status::misaligned);
    EXPECT_ERROR(init_view(fresh.ptr, 64), status::buffer_too_small);

    // stats/clear through the view change the owner.
    View cleared = f;
    cleared.clear();
    CHECK(!f.contains("via-view"));
    CHECK(sketches::inspect(f.to_bytes()).image_bytes == f.size());
}

void test_bloom() {
    using sketches::bloom_filter;
    sketches::bloom_params p = bloom_filter::plan(1000000, 0.01);
    CHECK(p.bits == 9585059 && p.hashes == 7 && p.planned_items == 1000000);
    CHECK(bloom_filter::image_size(p) == (112 + (9585059 + 63) / 64 * 8 + 63) / 64 * 64);
    sketches::bloom_params pb = bloom_filter::plan_bits(1024, 3);
    CHECK(pb.bits == 1024 && pb.hashes == 3);
    EXPECT_ERROR(bloom_filter::plan(0, 0.01), status::invalid_parameter);
    EXPECT_ERROR(bloom_filter::plan(1000, 1.5), status::invalid_parameter);
    EXPECT_ERROR(bloom_filter::plan(1000, std::nan("")), status::invalid_parameter);
    EXPECT_ERROR(bloom_filter::plan_bits(1024, 65), status::invalid_parameter);
    EXPECT_ERROR(bloom_filter::create(0, 0.01), status::invalid_parameter);
    sketches::bloom_params hostile = p;
    hostile.reserved = 1;
    EXPECT_ERROR(bloom_filter::image_size(hostile), status::invalid_parameter);
    CHECK(bloom_filter::try_plan(0, 0.01).status == status::invalid_parameter);
    CHECK(bloom_filter::try_create(0, 0.01).status == status::invalid_parameter);

    bloom_filter f = bloom_filter::create(1000, 0.01, 7);
    CHECK(f.add("alice") == true);
    CHECK(f.add("alice") == false);
    CHECK(f.contains("alice") && !f.contains("bob"));
    CHECK(f.add(std::uint64_t{42}) && f.contains(42) && !f.contains(43));
    CHECK(f.add_hash(sketches::hash("carol", 7)) && f.contains("carol"));
    CHECK(f.contains_hash(sketches::hash("alice", 7)));
    bloom_filter g = bloom_filter::create(bloom_filter::plan(1000, 0.01), 7);
    CHECK(g.stats().seed == 7 && g.stats().params.bits == f.stats().params.bits);

    // was_new per key from the batch.
    std::vector<std::string> keys{"alice", "dave", "dave"};
    std::array<bool, 3> was_new{};
    f.add_batch(keys, was_new);
    CHECK(!was_new[0] && was_new[1] && !was_new[2]);
    sketches::packed_keys packed(std::vector<std::string>{"erin", "alice"});
    f.add_batch(packed, sketches::array_view<bool>(was_new.data(), 2));
    CHECK(was_new[0] && !was_new[1]);
    std::array<u64, 2> hs{{sketches::hash("frank", 7), sketches::hash("erin", 7)}};
    f.add_hash_batch(hs, sketches::array_view<bool>(was_new.data(), 2));
    CHECK(was_new[0] && !was_new[1]);
    std::array<bool, 1> one{};
    EXPECT_ERROR(f.add_batch(keys, one), status::buffer_too_small);
    EXPECT_ERROR(f.add_batch(packed, one), status::buffer_too_small);
    EXPECT_ERROR(f.add_hash_batch(hs, one), status::buffer_too_small);

    // stats, capacity flags, over-capacity signal
    sketches::bloom_stats st = f.stats();
    CHECK(st.add_calls == 11 && st.seed == 7 && st.capacity_flags == 0);
    CHECK(f.capacity_flags() == 0 && !f.over_capacity());
    bloom_filter tiny = bloom_filter::create(10, 0.01);
    std::vector<u64> many;
    for (u64 i = 0; i < 200; i++) many.push_back(i);
    tiny.add_batch(many);
    CHECK(tiny.over_capacity() && (tiny.capacity_flags() & SKETCH_CAPACITY_OVER_PLANNED_ITEMS) != 0);
    CHECK(tiny.try_capacity_flags().value != 0);

    // union / intersection, incompatibility, overlap
    bloom_filter a = bloom_filter::create(1000, 0.01, 7), b = bloom_filter::create(1000, 0.01, 7);
    static_cast<void>(a.add("only-a"));
    static_cast<void>(a.add("both"));
    static_cast<void>(b.add("only-b"));
    static_cast<void>(b.add("both"));
    bloom_filter u = a.clone();
    u.merge(b);
    CHECK(u.contains("only-a") && u.contains("only-b"));
    bloom_filter in = a.clone();
    in.intersect(b);
    CHECK(in.contains("both") && !in.contains("only-a"));
    bloom_filter other_seed = bloom_filter::create(1000, 0.01, 8);
    std::vector<std::uint8_t> before = u.to_bytes();
    EXPECT_ERROR(u.merge(other_seed), status::incompatible);
    EXPECT_ERROR(u.intersect(other_seed), status::incompatible);
    CHECK(u.to_bytes() == before);
    sketches::bloom_filter u2 = u.clone();
    u.merge(u); // merges a copy (see test_merge_with_itself)
    u2.merge(u2.clone());
    CHECK(same_image(u, u2) && u.contains("only-b"));
    CHECK(u.try_merge(other_seed) == status::incompatible && u.try_intersect(b) == status::ok);
    sketches::bloom_const_view bv = b;
    u.merge(bv); // any storage of the family
    // wrong family
    sketches::hll_sketch h = sketches::hll_sketch::create(10);
    sketches::bloom_const_view wrong(h.data(), h.size());
    EXPECT_ERROR(wrong.contains("x"), status::wrong_family);
    EXPECT_ERROR(bloom_filter::from_bytes(h.to_bytes()), status::wrong_family);
    CHECK(sketches::inspect(f.to_bytes()).family == SKETCH_FAMILY_BLOOM);
    CHECK(sketches::try_inspect(std::string_view("xy")).status == status::buffer_too_small);
    EXPECT_ERROR(sketches::inspect(std::string_view("xy")), status::buffer_too_small);
    {
        // The header alone: inspect needs the whole image, inspect_header reads its length.
        std::vector<unsigned char> image = f.to_bytes();
        sketches::byte_view head(image.data(), SKETCH_COMMON_HEADER_BYTES);
        CHECK(sketches::try_inspect(head).status == status::buffer_too_small);
        sketches::image_info info = sketches::inspect_header(head);
        CHECK(info.family == SKETCH_FAMILY_BLOOM && info.image_bytes == image.size());
        CHECK(sketches::try_inspect_header(image).value.image_bytes == image.size());
        EXPECT_ERROR(sketches::inspect_header(std::string_view("xy")), status::buffer_too_small);
        image[0] = 'X';
        CHECK(sketches::try_inspect_header(image).status == status::bad_magic);
    }

    check_filter_batches<bloom_filter>([] { return bloom_filter::create(5000, 0.01, 3); }, 3);
    check_storage<bloom_filter, sketches::bloom_view, sketches::bloom_const_view>(
        f, [&](void *buf, std::size_t len) { return bloom_filter::init(buf, len, bloom_filter::plan(1000, 0.01), 7); });

    // A filter on the stack: the image is the buffer.
    alignas(64) unsigned char stack[1024];
    sketches::bloom_params small = bloom_filter::plan_bits(4096, 3);
    CHECK(bloom_filter::image_size(small) <= sizeof stack);
    sketches::bloom_view sv = sketches::bloom_view::init(stack, sizeof stack, small, 1);
    CHECK(sv.add("on the stack") && sv.contains("on the stack"));
    CHECK(sketches::bloom_view::try_init(stack, 10, small, 1).status == status::buffer_too_small);

    // Huge plans: allocation fails cleanly.
    sketches::bloom_params huge = bloom_filter::plan_bits(u64{1} << 56, 7);
    try {
        bloom_filter never = bloom_filter::create(huge);
        check(false, "8 PiB allocation succeeded", __LINE__);
    } catch (const std::bad_alloc &) {
        passed++;
    }
    CHECK(bloom_filter::try_create(huge).status == status::out_of_memory);
}

void test_sbbf() {
    using sketches::sbbf_filter;
    sketches::sbbf_params p = sbbf_filter::plan(10000, 0.01);
    CHECK(p.mode == SKETCH_SBBF_NATIVE && p.blocks > 0);
    CHECK(sbbf_filter::image_size(p) % 64 == 0);
    sketches::sbbf_params pq = sbbf_filter::plan_parquet(10000, 0.01);
    CHECK(pq.mode == SKETCH_SBBF_PARQUET);
    sketches::sbbf_params pbk = sbbf_filter::plan_blocks(16, SKETCH_SBBF_NATIVE);
    CHECK(pbk.blocks == 16);
    EXPECT_ERROR(sbbf_filter::plan_blocks(16, 7), status::invalid_parameter);
    EXPECT_ERROR(sbbf_filter::plan(0, 0.01), status::invalid_parameter);
    EXPECT_ERROR(sbbf_filter::plan_parquet(100, 2.0), status::invalid_parameter);

    sbbf_filter f = sbbf_filter::create(10000, 0.01, 5);
    CHECK(f.add("x") && !f.add("x") && f.contains("x") && !f.contains("y"));
    CHECK(f.add(std::uint64_t{1}) && f.contains(std::uint64_t{1}));
    CHECK(f.add_hash(sketches::hash("z", 5)) && f.contains_hash(sketches::hash("z", 5)));
    CHECK(f.bitset().size() == p.blocks * SKETCH_SBBF_BLOCK_BYTES);
    CHECK(f.try_bitset().ok());
    CHECK(f.stats().inserted == 3 && !f.over_capacity() && f.capacity_flags() == 0);

    // Parquet mode: seed 0, the hash is XXH64 of the PLAIN bytes.
    sbbf_filter parquet = sbbf_filter::create(pq);
    sbbf_filter parquet_by_hash = sbbf_filter::create(pq);
    static_cast<void>(parquet.add("value"));
    static_cast<void>(parquet_by_hash.add_hash(sketches::hash_xxh64("value")));
    CHECK(same_image(parquet, parquet_by_hash));
    const unsigned char *bits = static_cast<const unsigned char *>(parquet.bitset().data());
    CHECK(bits > static_cast<const unsigned char *>(parquet.data()));
    EXPECT_ERROR(sbbf_filter::create(pq, 1), status::invalid_parameter);

    sbbf_filter a = sbbf_filter::create(p, 5), b = sbbf_filter::create(p, 5);
    static_cast<void>(a.add("a"));
    static_cast<void>(b.add("b"));
    a.merge(b);
    CHECK(a.contains("a") && a.contains("b"));
    a.intersect(b);
    CHECK(a.contains("b"));
    EXPECT_ERROR(a.merge(parquet), status::incompatible);
    CHECK(a.try_merge(b) == status::ok && a.try_intersect(b) == status::ok);

    std::vector<std::string> keys{"a", "b"};
    std::array<bool, 2> was_new{};
    sbbf_filter c = sbbf_filter::create(p, 5);
    c.add_batch(keys, was_new);
    CHECK(was_new[0] && was_new[1]);

    check_filter_batches<sbbf_filter>([&] { return sbbf_filter::create(p, 9); }, 9);
    check_storage<sbbf_filter, sketches::sbbf_view, sketches::sbbf_const_view>(
        f, [&](void *buf, std::size_t len) { return sbbf_filter::init(buf, len, p, 5); });
}

/* ---- Parquet interop, against the writers' files in tests/parquet ---- */

std::vector<std::uint8_t> read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::vector<std::uint8_t> unhex(const std::string &s) {
    std::vector<std::uint8_t> out;
    for (std::size_t i = 0; i + 1 < s.size(); i += 2) {
        out.push_back(static_cast<std::uint8_t>(std::stoul(s.substr(i, 2), nullptr, 16)));
    }
    return out;
}

std::vector<std::vector<std::uint8_t>> unhex_list(const std::string &s) {
    std::vector<std::vector<std::uint8_t>> out;
    std::stringstream in(s);
    std::string item;
    while (std::getline(in, item, ',')) {
        if (!item.empty()) out.push_back(unhex(item));
    }
    return out;
}

/* The bitset of the filter stored at file[offset .. offset + length): a
   Thrift-compact BloomFilterHeader whose field 1 (i32 numBytes, a zigzag
   varint) gives the bitset's length, then the bitset (the last numBytes). */
sketches::byte_view parquet_bitset(const std::vector<std::uint8_t> &file, std::size_t offset, std::size_t length) {
    if (offset + length > file.size() || length < 2 || file[offset] != 0x15) return {};
    std::uint64_t value = 0;
    unsigned shift = 0;
    for (std::size_t at = offset + 1; at < offset + length && shift < 64; at++, shift += 7) {
        value |= std::uint64_t{file[at] & 0x7fu} << shift;
        if ((file[at] & 0x80) == 0) break;
    }
    std::uint64_t num_bytes = (value >> 1) ^ (~(value & 1) + 1);
    if (num_bytes > length) return {};
    return sketches::byte_view(file.data() + offset + length - num_bytes, static_cast<std::size_t>(num_bytes));
}

template <class T>
T from_le(const std::vector<std::uint8_t> &plain) {
    T v{};
    if (plain.size() == sizeof v) std::memcpy(&v, plain.data(), sizeof v); // the test host is little-endian
    return v;
}

/* A PLAIN-encoded value of Parquet type `kind` through the typed helpers,
   as a user holding typed values calls them. */
u64 typed_parquet_hash(const std::string &kind, const std::vector<std::uint8_t> &plain) {
    if (kind == "int32") return sketches::parquet_hash_i32(from_le<std::int32_t>(plain));
    if (kind == "int64") return sketches::parquet_hash_i64(from_le<std::int64_t>(plain));
    if (kind == "float") return sketches::parquet_hash_float(from_le<float>(plain));
    if (kind == "double") return sketches::parquet_hash_double(from_le<double>(plain));
    return sketches::parquet_hash_bytes(sketches::byte_view(plain.data(), plain.size()));
}

template <class T>
std::vector<std::uint8_t> le_bytes(T v) {
    std::vector<std::uint8_t> out(sizeof v);
    std::memcpy(out.data(), &v, sizeof v);
    return out;
}

/* The probes tests/parquet/generate.py sent for absent values. */
std::vector<std::uint8_t> absent_probe(const std::string &kind, int i) {
    if (kind == "int32") return le_bytes<std::int32_t>(2000000 + 13 * i);
    if (kind == "int64") return le_bytes<std::int64_t>(9000000000000LL + 13 * i);
    if (kind == "float") return le_bytes<float>(1.0e6f + 0.5f * static_cast<float>(i));
    if (kind == "double") return le_bytes<double>(1.0e9 + 0.25 * i);
    if (kind == "string") {
        std::string s = "absent-" + std::to_string(i);
        return std::vector<std::uint8_t>(s.begin(), s.end());
    }
    std::vector<std::uint8_t> out{0xfe, 0xed};
    std::vector<std::uint8_t> n = le_bytes<std::uint32_t>(static_cast<std::uint32_t>(i));
    out.insert(out.end(), n.begin(), n.end());
    return out;
}

/* Every filter DuckDB 2.0.1 and pyarrow 26.0.1 wrote (tests/parquet/writers.manifest):
   rebuilt byte for byte with the writer's sizing and fold, and loaded from
   the file to answer every value and absent probe as DuckDB's reader did. */
void test_parquet_files() {
    const char *dir = std::getenv("SKETCHES_PARQUET_DIR");
    CHECK(dir != nullptr);
    if (dir == nullptr) return;
    std::ifstream manifest(std::string(dir) + "/writers.manifest");
    CHECK(manifest.good());
    struct filter_line {
        std::string file, writer, column, kind, ndv_option;
        double fpp;
        std::size_t offset, length, distinct;
    };
    std::map<std::string, std::pair<std::string, double>> files;
    std::vector<filter_line> filters;
    std::map<std::pair<std::string, std::string>, std::vector<std::vector<std::uint8_t>>> values;
    std::map<std::pair<std::string, std::string>, std::pair<int, std::set<std::vector<std::uint8_t>>>> absent;
    std::string line;
    while (std::getline(manifest, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::stringstream in(line);
        std::vector<std::string> f;
        std::string word;
        while (in >> word) f.push_back(word);
        if (f[0] == "file") {
            files[f[1]] = {f[2], std::stod(f[3])};
        } else if (f[0] == "filter") {
            filters.push_back({f[1], files[f[1]].first, f[2], f[3], f[6], files[f[1]].second,
                               std::stoul(f[4]), std::stoul(f[5]), std::stoul(f[7])});
        } else if (f[0] == "values") {
            values[{f[1], f[2]}] = unhex_list(f.size() > 3 ? f[3] : "");
        } else if (f[0] == "absent") {
            auto list = unhex_list(f.size() > 4 ? f[4] : "");
            absent[{f[1], f[2]}] = {std::stoi(f[3]), std::set<std::vector<std::uint8_t>>(list.begin(), list.end())};
        }
    }
    int rebuilt = 0, loaded = 0, false_positives = 0;
    for (const filter_line &f : filters) {
        std::vector<std::uint8_t> file = read_file(std::string(dir) + "/" + f.file);
        sketches::byte_view theirs = parquet_bitset(file, f.offset, f.length);
        CHECK(theirs.size() >= 32);
        if (theirs.size() < 32) continue;
        auto v = values.find({"*", f.column});
        if (v == values.end()) v = values.find({f.fpp == 0.01 ? "0.01" : "0.05", f.column});
        CHECK(v != values.end() && v->second.size() == f.distinct);
        if (v == values.end()) continue;
        bool special = f.column.rfind("s_", 0) == 0; // -0.0 and NaNs: the Rust test covers them
        if (!special) {
            // DuckDB sizes from the exact distinct count and does not fold;
            // pyarrow sizes from its ndv option with Arrow C++'s rule, then folds.
            sketches::sbbf_params p =
                f.writer == "duckdb"
                    ? sketches::sbbf_filter::plan_parquet(f.distinct, f.fpp, sketches::parquet_sizing::duckdb)
                    : sketches::sbbf_filter::plan_parquet(std::stoull(f.ndv_option), f.fpp,
                                                          sketches::parquet_sizing::arrow_cpp);
            sketches::sbbf_filter ours = sketches::sbbf_filter::create(p);
            for (const auto &value : v->second) static_cast<void>(ours.add_hash(typed_parquet_hash(f.kind, value)));
            std::uint32_t folds = ours.fold_to_target_fpp(f.fpp);
            if (f.writer == "duckdb") CHECK(folds == 0);
            sketches::byte_view bits = ours.bitset();
            bool same = bits.size() == theirs.size() && std::memcmp(bits.data(), theirs.data(), bits.size()) == 0;
            CHECK(same);
            if (!same) std::fprintf(stderr, "  %s/%s: bitset differs\n", f.file.c_str(), f.column.c_str());
            CHECK(sketches::sbbf_filter::try_verify(ours.to_bytes()) == status::ok);
            rebuilt++;
        }
        sketches::sbbf_filter read = sketches::sbbf_filter::from_parquet_bitset(theirs, f.fpp);
        CHECK(read.bitset().size() == theirs.size() &&
              std::memcmp(read.bitset().data(), theirs.data(), theirs.size()) == 0);
        if (!special) {
            bool all = true;
            for (const auto &value : v->second) all = all && read.contains_hash(typed_parquet_hash(f.kind, value));
            CHECK(all);
        }
        auto a = absent.find({f.file, f.column});
        CHECK(a != absent.end());
        if (a == absent.end()) continue;
        int mismatches = 0;
        for (int i = 0; i < a->second.first; i++) {
            std::vector<std::uint8_t> probe = absent_probe(f.kind, i);
            bool maybe = a->second.second.count(probe) > 0;
            if (read.contains_hash(typed_parquet_hash(f.kind, probe)) != maybe) mismatches++;
        }
        CHECK(mismatches == 0);
        false_positives += static_cast<int>(a->second.second.size());
        loaded++;
    }
    CHECK(rebuilt >= 20 && loaded == static_cast<int>(filters.size()));
    CHECK(false_positives > 50); // the reader's false positives are reproduced one by one
}

/* fold, fold_to_target_fpp, from_parquet_bitset and the typed hashes on
   constructed filters: shapes, errors that change nothing, views. */
void test_parquet() {
    using sketches::sbbf_filter;
    // The typed hashes are XXH64 seed 0 of the PLAIN bytes.
    CHECK(sketches::parquet_hash_i32(-7) == sketches::hash_xxh64(le_bytes<std::int32_t>(-7)));
    CHECK(sketches::parquet_hash_i64(1LL << 40) == sketches::hash_xxh64(le_bytes<std::int64_t>(1LL << 40)));
    CHECK(sketches::parquet_hash_float(-0.0f) == sketches::hash_xxh64(le_bytes<float>(-0.0f)));
    CHECK(sketches::parquet_hash_float(-0.0f) != sketches::parquet_hash_float(0.0f));
    CHECK(sketches::parquet_hash_double(2.5) == sketches::hash_xxh64(le_bytes<double>(2.5)));
    CHECK(sketches::parquet_hash_bytes("user-1") == sketches::hash_xxh64("user-1"));
    // Sizing rules: Arrow C++ rounds the bit count up first (ndv 1693 at 1%).
    CHECK(sbbf_filter::plan_parquet(1693, 0.01, sketches::parquet_sizing::arrow_cpp).blocks * 32 == 4096);
    CHECK(sbbf_filter::plan_parquet(1693, 0.01, sketches::parquet_sizing::duckdb).blocks * 32 == 2048);
    CHECK(sbbf_filter::plan_parquet(1693, 0.01, sketches::parquet_sizing::parquet_rs).blocks ==
          sbbf_filter::plan_parquet(1693, 0.01).blocks);
    EXPECT_ERROR(sbbf_filter::plan_parquet(1693, 0.01, static_cast<sketches::parquet_sizing>(9)),
                 status::invalid_parameter);

    // A filter sized for 8192 holding 100 values folds as writers fold it; every value stays.
    sbbf_filter f = sbbf_filter::create(sbbf_filter::plan_parquet(8192, 0.01, sketches::parquet_sizing::arrow_cpp));
    for (std::int64_t i = 0; i < 100; i++) static_cast<void>(f.add_hash(sketches::parquet_hash_i64(i)));
    std::size_t before = f.bitset().size();
    sbbf_filter g = f.clone();
    std::uint32_t folds = f.fold_to_target_fpp(0.01);
    CHECK(folds >= 3 && f.bitset().size() == before >> folds);
    CHECK(f.size() < g.size() && f.stats().inserted == 100);
    bool all = true;
    for (std::int64_t i = 0; i < 100; i++) all = all && f.contains_hash(sketches::parquet_hash_i64(i));
    CHECK(all);
    CHECK(sbbf_filter::from_bytes(f.to_bytes()).to_bytes() == f.to_bytes()); // the shorter image round-trips
    g.fold(folds); // the same folds one by one give the same bytes
    CHECK(same_image(f, g));
    CHECK(f.fold_to_target_fpp(0.01) == 0); // nothing left to fold
    // Errors change nothing.
    sbbf_filter three = sbbf_filter::create(sbbf_filter::plan_blocks(3, SKETCH_SBBF_PARQUET));
    static_cast<void>(three.add_hash(sketches::parquet_hash_i32(1)));
    std::vector<std::uint8_t> image3(static_cast<const std::uint8_t *>(three.data()),
                                     static_cast<const std::uint8_t *>(three.data()) + three.size());
    EXPECT_ERROR(three.fold(1), status::invalid_argument);
    CHECK(three.try_fold_to_target_fpp(std::nan("")).status == status::invalid_parameter);
    for (double fpp : {1.0, 5.0, 0.0, -0.01}) { // 1 meant as 1% folded any filter to one block
        CHECK(three.try_fold_to_target_fpp(fpp).status == status::invalid_parameter);
    }
    CHECK(three.size() == image3.size() && std::memcmp(three.data(), image3.data(), image3.size()) == 0);
    EXPECT_ERROR(sketches::sbbf_filter().fold(1), status::buffer_too_small);
    // A view over caller memory covers the folded image afterwards.
    sketches::sbbf_params p4 = sbbf_filter::plan_blocks(4, SKETCH_SBBF_PARQUET);
    aligned_buffer mem(sbbf_filter::image_size(p4));
    sketches::sbbf_view view = sbbf_filter::init(mem.ptr, mem.size, p4);
    static_cast<void>(view.add_hash(sketches::parquet_hash_bytes("k")));
    view.fold(2);
    CHECK(view.size() < mem.size && view.size() == sbbf_filter::image_size(sbbf_filter::plan_blocks(1, SKETCH_SBBF_PARQUET)));
    CHECK(view.bitset().size() == 32 && view.contains_hash(sketches::parquet_hash_bytes("k")));
    CHECK(sbbf_filter::try_verify(view.to_bytes()) == status::ok);

    // A bitset from a file: the filter answers as it; bad lengths are refused.
    sketches::byte_view bits = g.bitset();
    sbbf_filter read = sbbf_filter::from_parquet_bitset(bits, 0.01);
    CHECK(read.bitset().size() == bits.size() && std::memcmp(read.bitset().data(), bits.data(), bits.size()) == 0);
    CHECK(read.contains_hash(sketches::parquet_hash_i64(7)));
    CHECK(read.stats().params.mode == SKETCH_SBBF_PARQUET && read.stats().seed == 0);
    std::vector<std::uint8_t> ones(64, 0xff);
    CHECK(sbbf_filter::from_parquet_bitset(ones, 0.01).over_capacity()); // the fill, not an insert count
    EXPECT_ERROR(sbbf_filter::from_parquet_bitset(sketches::byte_view(), 0.01), status::invalid_argument);
    EXPECT_ERROR(sbbf_filter::from_parquet_bitset(sketches::byte_view(ones.data(), 33), 0.01), status::invalid_argument);
    EXPECT_ERROR(sbbf_filter::from_parquet_bitset(ones, 1.5), status::invalid_parameter);
    sketches::sbbf_params pb = sbbf_filter::plan_parquet_bitset(ones.size(), 0.01);
    aligned_buffer into(sbbf_filter::image_size(pb));
    sketches::sbbf_view loaded = sbbf_filter::load_parquet_bitset(into.ptr, into.size, ones, pb);
    CHECK(loaded.contains("anything") && loaded.bitset().size() == 64);
    EXPECT_ERROR(sbbf_filter::load_parquet_bitset(into.ptr, 8, ones, pb), status::buffer_too_small);

    // A batch of integers narrower than 64 bits on a Parquet-mode filter is
    // refused: integers hash as their 8 bytes (INT64), and the filter of an
    // INT32 column holds the hashes of 4 bytes, so contains_batch of that
    // column answered false for every value. Nothing is added; 64-bit
    // integers (INT64) and native-mode filters take them as before.
    sbbf_filter column = sbbf_filter::create(sbbf_filter::plan_parquet(100, 0.01));
    std::vector<std::int32_t> int32s{1, 2, 3, 42};
    for (std::int32_t v : int32s) static_cast<void>(column.add_hash(sketches::parquet_hash_i32(v)));
    std::vector<std::uint8_t> column_image = column.to_bytes();
    bool answers[4] = {};
    EXPECT_ERROR(column.contains_batch(int32s), status::invalid_argument);
    EXPECT_ERROR(column.contains_batch(int32s, answers), status::invalid_argument);
    EXPECT_ERROR(column.add_batch(int32s), status::invalid_argument);
    EXPECT_ERROR(column.add_batch(std::list<std::uint16_t>{7}), status::invalid_argument);
    EXPECT_ERROR(column.add_concurrent_batch(int32s), status::invalid_argument);
    EXPECT_ERROR(column.const_view().contains_concurrent_batch(int32s), status::invalid_argument);
    // And so is a single one (f.contains(42) hashed INT64 42 and answered
    // false for a value of the INT32 column), by every member taking a key.
    EXPECT_ERROR(column.contains(42), status::invalid_argument);
    EXPECT_ERROR(column.contains(std::int32_t{42}), status::invalid_argument);
    {
        // A moved-from Parquet-mode filter reports its empty buffer, as
        // every moved-from sketch does, for an int key too (it kept the
        // image's hash and said invalid_argument).
        sketches::sbbf_filter donor = column.clone();
        sketches::sbbf_filter taken = std::move(donor);
        CHECK(donor.hash_kind() == 0 && taken.hash_kind() == SKETCH_HASH_XXH64); // NOLINT(bugprone-use-after-move)
        CHECK(donor.try_contains(std::int32_t{42}).status == status::buffer_too_small);
        CHECK(donor.try_add(std::int32_t{42}).status == status::buffer_too_small);
        CHECK(taken.try_add(std::int32_t{42}).status == status::invalid_argument);
        donor = std::move(taken);
        CHECK(donor.hash_kind() == SKETCH_HASH_XXH64 && taken.hash_kind() == 0); // NOLINT(bugprone-use-after-move)
    }
    EXPECT_ERROR(column.const_view().contains(std::uint16_t{7}), status::invalid_argument);
    EXPECT_ERROR(column.add(42), status::invalid_argument);
    EXPECT_ERROR(column.view().add(std::int16_t{-3}), status::invalid_argument);
    EXPECT_ERROR(column.add_concurrent(42u), status::invalid_argument);
    EXPECT_ERROR(column.const_view().contains_concurrent(42), status::invalid_argument);
    CHECK(column.try_contains(42).status == status::invalid_argument);
    CHECK(column.try_add(42).status == status::invalid_argument);
    CHECK(column.to_bytes() == column_image);
    CHECK(column.contains(std::int64_t{42}) == column.contains_hash(sketches::parquet_hash_i64(42)));
    // The mode comes with the token (no header read per int key), and views
    // take it along; a view made before its memory held an image has no
    // token and reads the mode from the image.
    CHECK(column.hash_kind() == SKETCH_HASH_XXH64 && column.view().hash_kind() == SKETCH_HASH_XXH64);
    CHECK(sketches::sbbf_const_view(column).hash_kind() == SKETCH_HASH_XXH64);
    std::vector<std::uint64_t> slot(column.size() / 8 + 8);
    sketches::sbbf_view early(slot.data(), slot.size() * 8);
    CHECK(early.hash_kind() == 0);
    CHECK(sketch_sbbf_import(column_image.data(), column_image.size(), slot.data(), slot.size() * 8) == SKETCH_OK);
    EXPECT_ERROR(early.contains(42), status::invalid_argument);
    CHECK(early.refresh_token() == status::ok && early.hash_kind() == SKETCH_HASH_XXH64);
    EXPECT_ERROR(early.add(42), status::invalid_argument);
    std::vector<std::uint64_t> hashed(int32s.size());
    for (std::size_t i = 0; i < int32s.size(); i++) hashed[i] = sketches::parquet_hash_i32(int32s[i]);
    CHECK(column.contains_hash_batch(hashed) == std::vector<bool>(4, true)); // the way to query an INT32 column
    column.add_batch(std::vector<std::int64_t>{5});
    CHECK(column.contains_hash(sketches::parquet_hash_i64(5)));
    sbbf_filter native = sbbf_filter::create(100, 0.01);
    native.add_batch(int32s);
    CHECK(native.contains_batch(int32s) == std::vector<bool>(4, true));
    CHECK(native.hash_kind() == SKETCH_HASH_XXH3);
    // Native mode: a narrower integer is its 64-bit value, as in every family.
    CHECK(native.contains(42) && native.contains(std::uint64_t{42}) && native.contains_concurrent(42));
    CHECK(native.add(-1));
    CHECK(!native.add(std::uint64_t{0} - 1) && native.contains(-1)); // the same key

    test_parquet_files();
}

void test_counting() {
    using sketches::counting_filter;
    sketches::bloom_params p = counting_filter::plan(1000, 0.01);
    CHECK(counting_filter::image_size(p) % 64 == 0);
    CHECK(counting_filter::plan_bits(4096, 4).bits == 4096);
    EXPECT_ERROR(counting_filter::plan(0, 0.1), status::invalid_parameter);
    counting_filter f = counting_filter::create(p, 3);
    CHECK(counting_filter::create(1000, 0.01, 3).size() == f.size());
    CHECK(f.add("apple") && !f.add("apple"));
    CHECK(f.add(std::uint64_t{5}) && f.add_hash(sketches::hash("pear", 3)));
    CHECK(f.contains("apple") && f.contains(std::uint64_t{5}) && f.contains_hash(sketches::hash("pear", 3)));
    CHECK(f.remove("apple") && f.contains("apple")); // added twice
    CHECK(f.remove("apple") && !f.contains("apple"));
    CHECK(!f.remove("apple")); // absent: false, nothing changed
    CHECK(f.try_remove("apple") == status::not_present);
    CHECK(f.remove(std::uint64_t{5}) && !f.remove(std::uint64_t{5}));
    CHECK(f.remove_hash(sketches::hash("pear", 3)) && !f.remove_hash(sketches::hash("pear", 3)));
    sketches::counting_stats st = f.stats();
    CHECK(st.items == 0 && st.removes == 4 && st.seed == 3);
    CHECK(f.capacity_flags() == 0 && !f.over_capacity());

    // Removal batches: removed[i] false for absent keys.
    std::vector<std::string> keys{"k1", "k2", "k3"};
    f.add_batch(keys);
    std::vector<std::string> to_remove{"k1", "nope", "k3"};
    std::array<bool, 3> removed{};
    f.remove_batch(to_remove, removed);
    CHECK(removed[0] && !removed[1] && removed[2]);
    CHECK(f.contains("k2") && !f.contains("k1"));
    f.remove_batch(std::vector<std::string>{"k2"}); // output optional
    CHECK(!f.contains("k2"));
    std::vector<u64> ints{10, 20, 30};
    f.add_batch(ints);
    f.remove_batch(ints, removed);
    CHECK(removed[0] && removed[1] && removed[2] && !f.contains(std::uint64_t{10}));
    sketches::packed_keys packed(keys);
    f.add_batch(packed);
    f.remove_batch(packed, removed);
    CHECK(removed[0] && removed[1] && removed[2]);
    std::vector<u64> hs = sketches::hash_batch(keys, 3);
    f.add_hash_batch(hs);
    f.remove_hash_batch(hs, removed);
    CHECK(removed[0] && removed[1] && removed[2] && f.stats().items == 0);
    f.remove_hash_batch(hs);
    std::array<bool, 1> one{};
    EXPECT_ERROR(f.remove_batch(keys, one), status::buffer_too_small);

    counting_filter a = counting_filter::create(p, 3), b = counting_filter::create(p, 3);
    static_cast<void>(a.add("x"));
    static_cast<void>(b.add("x"));
    a.merge(b);
    CHECK(a.remove("x") && a.remove("x") && !a.contains("x"));
    EXPECT_ERROR(a.merge(counting_filter::create(p, 4)), status::incompatible);
    CHECK(a.try_merge(b) == status::ok);

    check_filter_batches<counting_filter>([&] { return counting_filter::create(5000, 0.01, 2); }, 2);
    check_storage<counting_filter, sketches::counting_view, sketches::counting_const_view>(
        f, [&](void *buf, std::size_t len) { return counting_filter::init(buf, len, p, 3); });
}

void test_cuckoo() {
    using sketches::cuckoo_filter;
    sketches::cuckoo_params p = cuckoo_filter::plan(1000, 0.01);
    CHECK(p.fingerprint_bits == 8 || p.fingerprint_bits == 12);
    CHECK(cuckoo_filter::image_size(p) % 64 == 0);
    EXPECT_ERROR(cuckoo_filter::plan(1000, 1e-9), status::invalid_parameter);
    EXPECT_ERROR(cuckoo_filter::plan_buckets(16, 9), status::invalid_parameter);

    cuckoo_filter f = cuckoo_filter::create(p, 8);
    CHECK(f.add("lime") && f.add("lime") && f.count("lime") == 2);
    CHECK(f.add(std::uint64_t{77}) && f.contains(std::uint64_t{77}) && f.count(std::uint64_t{77}) == 1);
    CHECK(f.add_hash(sketches::hash("kiwi", 8)) && f.contains_hash(sketches::hash("kiwi", 8)));
    CHECK(f.try_add("fig") == status::ok && f.try_count("fig").value == 1);
    CHECK(f.remove("lime") && f.count("lime") == 1);
    CHECK(f.remove(std::uint64_t{77}) && !f.remove(std::uint64_t{77}));
    CHECK(f.remove_hash(sketches::hash("kiwi", 8)) && !f.remove_hash(sketches::hash("kiwi", 8)));
    CHECK(f.try_remove("never") == status::not_present && !f.remove("never"));
    CHECK(f.stats().items == 2 && f.capacity_flags() == 0 && !f.over_capacity());

    // Batches report how many keys were placed.
    std::vector<std::string> keys = make_keys("q-", 200);
    std::vector<bool> added_flags;
    std::unique_ptr<bool[]> added(new bool[keys.size()]);
    CHECK(f.add_batch(keys, sketches::array_view<bool>(added.get(), keys.size())) == keys.size());
    CHECK(added[0] && added[199]);
    CHECK(f.add_batch(sketches::packed_keys(keys)) == keys.size());
    std::vector<u64> ints{1, 2, 3};
    CHECK(f.add_batch(ints) == 3);
    CHECK(f.add_hash_batch(sketches::hash_batch(keys, 8)) == keys.size());
    CHECK(f.contains_batch(keys)[5]);
    // Batch removes report how many keys had a copy; without an output the
    // C call gets NULL. Each key was added four times above.
    std::unique_ptr<bool[]> removed(new bool[keys.size()]);
    CHECK(f.remove_batch(keys, sketches::array_view<bool>(removed.get(), keys.size())) == keys.size());
    CHECK(removed[0] && removed[199]);
    CHECK(f.remove_batch(sketches::packed_keys(keys)) == keys.size());
    CHECK(f.remove_hash_batch(sketches::hash_batch(keys, 8)) == keys.size());
    CHECK(f.try_add_batch(ints) == status::ok && f.count(std::uint64_t{2}) == 2);
    CHECK(f.remove_batch(ints) == 3 && f.count(std::uint64_t{2}) == 1);
    CHECK(f.try_remove_batch(keys) == status::ok && !f.contains("q-7"));
    CHECK(f.remove_batch(keys) == 0);

    // A tiny filter fills: add returns false and changes nothing.
    sketches::cuckoo_params tiny = cuckoo_filter::plan_buckets(2, 8);
    cuckoo_filter t = cuckoo_filter::create(tiny, 1);
    std::size_t placed = 0;
    bool refused = false;
    std::vector<std::uint8_t> snapshot;
    for (u64 i = 0; i < 64 && !refused; i++) {
        snapshot = t.to_bytes();
        if (t.add(i)) {
            placed++;
        } else {
            refused = true;
            CHECK(t.to_bytes() == snapshot);
        }
    }
    CHECK(refused && placed >= 4 && placed <= 8);
    CHECK(t.try_add(std::uint64_t{1000}) == status::full);
    std::vector<u64> more{100, 101, 102, 103, 104, 105, 106, 107, 108};
    CHECK(t.add_batch(more) < more.size());

    // Merge: all or nothing; scratch allocated or the caller's.
    cuckoo_filter a = cuckoo_filter::create(p, 8), b = cuckoo_filter::create(p, 8);
    static_cast<void>(a.add("a"));
    static_cast<void>(b.add("b"));
    a.merge(b);
    CHECK(a.contains("a") && a.contains("b"));
    aligned_buffer scratch(a.size());
    a.merge(b, scratch.ptr, scratch.size);
    CHECK(a.count("b") == 2);
    EXPECT_ERROR(a.merge(b, scratch.ptr, 8), status::buffer_too_small);
    CHECK(a.try_merge(b) == status::ok);
    cuckoo_filter full = cuckoo_filter::create(tiny, 1), donor = cuckoo_filter::create(tiny, 1);
    for (u64 i = 0; i < 5; i++) static_cast<void>(full.add(i));
    for (u64 i = 50; i < 56; i++) static_cast<void>(donor.add(i));
    std::vector<std::uint8_t> before = full.to_bytes();
    EXPECT_ERROR(full.merge(donor), status::full);
    CHECK(full.to_bytes() == before);
    EXPECT_ERROR(a.merge(cuckoo_filter::create(p, 9)), status::incompatible);

    // Batches == single (no removals).
    check_filter_batches<cuckoo_filter>([&] { return cuckoo_filter::create(2000, 0.01, 4); }, 4);
    check_storage<cuckoo_filter, sketches::cuckoo_view, sketches::cuckoo_const_view>(
        f, [&](void *buf, std::size_t len) { return cuckoo_filter::init(buf, len, p, 8); });
}

void test_hll() {
    using sketches::hll_sketch;
    CHECK(hll_sketch::image_size(14) == 384 + (12288 + 8 + 63) / 64 * 64);
    EXPECT_ERROR(hll_sketch::image_size(3), status::invalid_parameter);
    EXPECT_ERROR(hll_sketch::image_size(300), status::invalid_parameter);
    EXPECT_ERROR(hll_sketch::create(19), status::invalid_parameter);
    EXPECT_ERROR(hll_sketch::create(-1), status::invalid_parameter);

    hll_sketch h = hll_sketch::create(14, 3);
    CHECK(h.add("apple") && !h.add("apple"));
    CHECK(h.add(std::uint64_t{42}) && h.add_hash(sketches::hash("pear", 3)));
    CHECK(h.estimate() == 3.0 && h.register_estimate() == 3.0);
    sketches::hll_stats st = h.stats();
    CHECK(st.mode == SKETCH_HLL_MODE_SMALL && st.small_count == 3 && st.precision == 14 && st.seed == 3);

    // Small mode exports compactly; from_bytes sizes the live image itself.
    CHECK(h.exported_size() == 384 + 3 * 8);
    std::vector<std::uint8_t> compact = h.to_bytes();
    CHECK(compact.size() == h.exported_size() && compact.size() < h.size());
    hll_sketch back = hll_sketch::from_bytes(compact);
    CHECK(back.size() == h.size() && back.estimate() == 3.0);
    sketches::hll_const_view compact_view(compact.data(), compact.size());
    EXPECT_ERROR(compact_view.estimate(), status::compact_image);
    CHECK(hll_sketch::import_size(compact) == h.size()); // what caller memory needs
    aligned_buffer mem(h.size());
    sketches::hll_view into = hll_sketch::from_bytes(compact, mem.ptr, mem.size);
    CHECK(into.estimate() == 3.0);
    EXPECT_ERROR(hll_sketch::from_bytes(compact, mem.ptr, compact.size()), status::buffer_too_small);
    std::vector<std::uint8_t> damaged = compact;
    damaged[damaged.size() - 3] ^= 1;
    EXPECT_ERROR(hll_sketch::from_bytes(damaged), status::checksum_mismatch);
    damaged = compact;
    damaged[SKETCH_COMMON_HEADER_BYTES] = 4; // a lie about the precision
    CHECK(hll_sketch::try_from_bytes(damaged).status != status::ok);

    // Batches == single (both end dense).
    std::vector<std::string> keys = make_keys("k-", 3000);
    std::vector<u64> ints;
    for (u64 i = 0; i < 3000; i++) ints.push_back(i);
    hll_sketch single = hll_sketch::create(12, 3), batch = hll_sketch::create(12, 3), packed = hll_sketch::create(12, 3),
               hashed = hll_sketch::create(12, 3);
    for (const auto &k : keys) static_cast<void>(single.add(k));
    for (u64 i : ints) static_cast<void>(single.add(i));
    batch.add_batch(keys);
    batch.add_batch(ints);
    packed.add_batch(sketches::packed_keys(keys));
    packed.add_batch(sketches::array_view<const u64>(ints));
    hashed.add_hash_batch(sketches::hash_batch(keys, 3));
    hashed.add_hash_batch(sketches::hash_batch(ints, 3));
    CHECK(same_image(single, batch) && same_image(single, packed) && same_image(single, hashed));
    CHECK(std::fabs(single.estimate() - 6000) / 6000 < 0.05);
    CHECK(single.stats().mode == SKETCH_HLL_MODE_DENSE && single.exported_size() == single.size());
    CHECK(single.to_bytes().size() == single.size());

    // Merge across precisions, downsize.
    hll_sketch low = hll_sketch::create(10, 3);
    low.merge(single);
    CHECK(std::fabs(low.estimate() - 6000) / 6000 < 0.1);
    EXPECT_ERROR(single.merge(low), status::incompatible);
    EXPECT_ERROR(single.merge(hll_sketch::create(12, 4)), status::incompatible);
    CHECK(single.try_merge(batch) == status::ok);
    hll_sketch down = single.downsize(10);
    CHECK(down.stats().precision == 10 && down.size() == hll_sketch::image_size(10));
    aligned_buffer dmem(hll_sketch::image_size(8));
    sketches::hll_view dv = single.downsize_into(8, dmem.ptr, dmem.size);
    CHECK(dv.stats().precision == 8);
    EXPECT_ERROR(down.downsize(12), status::incompatible);
    EXPECT_ERROR(single.downsize_into(-3, dmem.ptr, dmem.size), status::invalid_parameter);
    CHECK(single.try_downsize(4).ok());

    hll_sketch for_storage = hll_sketch::create(10, 3);
    // check_storage uses add/contains: cardinality sketches have no contains,
    // so their storage checks are written out here.
    sketches::hll_view v = for_storage;
    static_cast<void>(v.add("x"));
    sketches::hll_const_view cv = for_storage;
    CHECK(cv.estimate() == 1.0);
    hll_sketch c = for_storage.clone();
    hll_sketch m = std::move(c);
    CHECK(c.size() == 0 && m.estimate() == 1.0); // NOLINT(bugprone-use-after-move)
    EXPECT_ERROR(c.estimate(), status::buffer_too_small);
    m.clear();
    CHECK(m.estimate() == 0.0);
    aligned_buffer im(hll_sketch::image_size(10));
    sketches::hll_view iv = hll_sketch::init(im.ptr, im.size, 10, 3);
    CHECK(iv.add("y") && iv.estimate() == 1.0);
    EXPECT_ERROR(hll_sketch::init(im.ptr, im.size, 99, 3), status::invalid_parameter);
    hll_sketch::verify(for_storage.to_bytes());
    CHECK(sketches::inspect(for_storage.to_bytes()).family == SKETCH_FAMILY_HYPERLOGLOG);
}

void test_ull() {
    using sketches::ull_sketch;
    CHECK(ull_sketch::image_size(13) == 128 + 8192);
    EXPECT_ERROR(ull_sketch::image_size(20), status::invalid_parameter);
    ull_sketch u = ull_sketch::create(13, 5);
    CHECK(u.add("kiwi") && !u.add("kiwi"));
    CHECK(u.add(std::uint64_t{7}) && u.add_hash(0x123456789abcdefULL));
    std::vector<std::string> keys = make_keys("u-", 20000);
    u.add_batch(keys);
    double e = u.estimate(), r = u.register_estimate(), ml = u.ml_estimate();
    CHECK(std::fabs(e - 20003) / 20003 < 0.04 && std::fabs(r - 20003) / 20003 < 0.04);
    CHECK(std::fabs(ml - r) / r < 0.02);
    sketches::ull_stats st = u.stats();
    CHECK(st.precision == 13 && st.seed == 5 && st.martingale == 1 && st.image_bytes == u.size());

    sketches::hll_sketch h = u.to_hll();
    CHECK(h.stats().precision == 13 && std::fabs(h.estimate() - 20003) / 20003 < 0.05);
    aligned_buffer hm(sketches::hll_sketch::image_size(13));
    sketches::hll_view hv = u.to_hll_into(hm.ptr, hm.size);
    CHECK(same_image(hv, h));
    EXPECT_ERROR(u.to_hll_into(hm.ptr, hm.size - 8), status::buffer_too_small);

    std::vector<u64> ints{1, 2, 3, 4};
    ull_sketch single = ull_sketch::create(10, 5), batch = ull_sketch::create(10, 5), packed = ull_sketch::create(10, 5),
               hashed = ull_sketch::create(10, 5);
    std::vector<std::string> few = make_keys("f-", 500);
    for (const auto &k : few) static_cast<void>(single.add(k));
    for (u64 i : ints) static_cast<void>(single.add(i));
    batch.add_batch(few);
    batch.add_batch(ints);
    packed.add_batch(sketches::packed_keys(few));
    packed.add_batch(ints);
    hashed.add_hash_batch(sketches::hash_batch(few, 5));
    hashed.add_hash_batch(sketches::hash_batch(ints, 5));
    CHECK(same_image(single, batch) && same_image(single, packed) && same_image(single, hashed));

    ull_sketch low = ull_sketch::create(10, 5);
    low.merge(u);
    CHECK(low.stats().martingale == 0);
    EXPECT_ERROR(u.merge(low), status::incompatible);
    CHECK(u.try_merge(ull_sketch::create(13, 6)) == status::incompatible);

    std::vector<std::uint8_t> bytes = u.to_bytes();
    ull_sketch::verify(bytes);
    ull_sketch back = ull_sketch::from_bytes(bytes);
    CHECK(back.to_bytes() == bytes && back.estimate() == e);
    EXPECT_ERROR(sketches::hll_sketch::from_bytes(bytes), status::wrong_family);
    ull_sketch c = back.clone();
    c.clear();
    CHECK(c.estimate() == 0.0 && back.estimate() == e);
    aligned_buffer mem(u.size());
    sketches::ull_view iv = ull_sketch::init(mem.ptr, mem.size, 13, 5);
    CHECK(iv.add("z"));
    sketches::ull_const_view cv = iv;
    CHECK(cv.estimate() > 0.5);
}

void test_countmin() {
    using sketches::countmin_sketch;
    sketches::countmin_params p = countmin_sketch::plan(0.001, 0.01);
    CHECK(p.width == 2719 && p.depth == 5 && p.counter_bits == 32);
    sketches::countmin_params ps = countmin_sketch::plan_size(500, 3);
    CHECK(ps.width == 500 && ps.depth == 3);
    CHECK(countmin_sketch::image_size(ps) % 64 == 0);
    EXPECT_ERROR(countmin_sketch::plan(0, 0.01), status::invalid_parameter);
    EXPECT_ERROR(countmin_sketch::plan_size(0, 3), status::invalid_parameter);

    countmin_sketch c = countmin_sketch::create(ps, 11);
    CHECK(countmin_sketch::create(0.001, 0.01, 11).size() == countmin_sketch::image_size(p));
    c.add("apple");
    c.add("apple", 4);
    c.add(std::uint64_t{9}, 2);
    c.add_hash(sketches::hash("pear", 11), 3);
    CHECK(c.estimate("apple") >= 5 && c.estimate(std::uint64_t{9}) >= 2);
    CHECK(c.estimate_hash(sketches::hash("pear", 11)) >= 3);
    CHECK(c.stats().total == 10 && c.stats().seed == 11);

    // Weighted batches == single adds.
    std::vector<std::string> keys = make_keys("c-", 400);
    std::vector<u64> weights, ints;
    for (u64 i = 0; i < 400; i++) {
        weights.push_back(i % 7 + 1);
        ints.push_back(i * 31);
    }
    countmin_sketch single = countmin_sketch::create(ps, 1), batch = countmin_sketch::create(ps, 1),
                    packed = countmin_sketch::create(ps, 1), hashed = countmin_sketch::create(ps, 1);
    for (std::size_t i = 0; i < keys.size(); i++) {
        single.add(keys[i], weights[i]);
        single.add(ints[i]);
    }
    batch.add_batch(keys, weights);
    batch.add_batch(ints);
    packed.add_batch(sketches::packed_keys(keys), weights);
    packed.add_batch(ints, {});
    hashed.add_hash_batch(sketches::hash_batch(keys, 1), weights);
    hashed.add_hash_batch(sketches::hash_batch(ints, 1));
    CHECK(same_image(single, batch) && same_image(single, packed) && same_image(single, hashed));
    std::vector<u64> est = single.estimate_batch(keys);
    std::vector<u64> est_packed = single.estimate_batch(sketches::packed_keys(keys));
    std::vector<u64> est_hash = single.estimate_hash_batch(sketches::hash_batch(keys, 1));
    std::vector<u64> est_ints = single.estimate_batch(ints);
    bool same = true, never_under = true;
    for (std::size_t i = 0; i < keys.size(); i++) {
        same = same && est[i] == single.estimate(keys[i]) && est_packed[i] == est[i] && est_hash[i] == est[i] &&
               est_ints[i] == single.estimate(ints[i]);
        never_under = never_under && est[i] >= weights[i];
    }
    CHECK(same && never_under);
    std::vector<u64> out(keys.size());
    single.estimate_batch(keys, out);
    CHECK(out == est);
    single.estimate_batch(sketches::packed_keys(keys), out);
    single.estimate_hash_batch(sketches::hash_batch(keys, 1), out);
    CHECK(out == est);
    std::array<u64, 1> one{};
    EXPECT_ERROR(single.estimate_batch(keys, one), status::buffer_too_small);
    countmin_sketch braced = countmin_sketch::create(ps, 1);
    braced.add_batch(std::vector<std::string>{"x", "y", "z"}, {1, 2, 3}); // weights from a braced list
    CHECK(braced.estimate("z") >= 3 && braced.stats().total == 6);
    std::array<u64, 2> two_weights{{1, 2}};
    EXPECT_ERROR(batch.add_batch(keys, two_weights), status::invalid_argument);
    EXPECT_ERROR(batch.add_hash_batch(sketches::hash_batch(keys, 1), two_weights), status::invalid_argument);
    CHECK(batch.try_add_batch(sketches::packed_keys(keys), two_weights) == status::invalid_argument);

    countmin_sketch m = single.clone();
    m.merge(batch);
    CHECK(m.estimate(keys[0]) >= 2 * weights[0]);
    EXPECT_ERROR(m.merge(countmin_sketch::create(ps, 2)), status::incompatible);
    std::vector<std::uint8_t> bytes = m.to_bytes();
    countmin_sketch back = countmin_sketch::from_bytes(bytes);
    CHECK(back.to_bytes() == bytes);
    back.clear();
    CHECK(back.stats().total == 0);
    aligned_buffer mem(countmin_sketch::image_size(ps));
    sketches::countmin_view v = countmin_sketch::init(mem.ptr, mem.size, ps, 1);
    v.add("q", 5);
    sketches::countmin_const_view cv = v;
    CHECK(cv.estimate("q") == 5);
    EXPECT_ERROR(countmin_sketch::init(mem.ptr, 64, ps, 1), status::buffer_too_small);
}

void test_topk() {
    using sketches::topk_sketch;
    CHECK(topk_sketch::image_size(64, 16) % 64 == 0);
    EXPECT_ERROR(topk_sketch::image_size(0, 16), status::invalid_parameter);
    EXPECT_ERROR(topk_sketch::create(64, 0), status::invalid_parameter);
    topk_sketch t = topk_sketch::create(64, 16, 4);
    t.add("apple", 10);
    t.add("pear");
    t.add(std::uint64_t{0x0807060504030201ULL}, 3);
    sketches::topk_estimate e = t.estimate("apple");
    CHECK(e.count == 10 && e.error == 0 && e.listed);
    CHECK(!t.estimate("plum").listed);
    CHECK(t.estimate(std::uint64_t{0x0807060504030201ULL}).count == 3);
    const unsigned char le[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(t.estimate(sketches::byte_view(le, 8)).count == 3); // stored as 8 LE bytes
    EXPECT_ERROR(t.add("this key is far too long"), status::key_too_long);
    std::vector<std::string> bad{"ok", "this key is far too long"};
    std::vector<std::uint8_t> before = t.to_bytes();
    EXPECT_ERROR(t.add_batch(bad), status::key_too_long);
    CHECK(t.to_bytes() == before); // all or nothing
    CHECK(t.try_add("this key is far too long") == status::key_too_long);

    std::vector<sketches::topk_entry> list = t.list();
    CHECK(list.size() == 3 && list[0].key == "apple" && list[0].count == 10 && list[1].count == 3);
    CHECK(list[1].key == std::string(reinterpret_cast<const char *>(le), 8));
    std::array<sketches::topk_item, 2> items{};
    CHECK(t.list_into(items) == 2 && items[0].key_len == 5 && std::memcmp(items[0].key, "apple", 5) == 0);
    const unsigned char *base = static_cast<const unsigned char *>(t.data());
    CHECK(items[0].key >= base && items[0].key < base + t.size()); // into the buffer

    // A skewed stream: batches (slices, packed, integers, weights) == single.
    std::vector<std::string> keys;
    for (int i = 0; i < 3000; i++) keys.push_back("k" + std::to_string((i * i) % 500 < 250 ? i % 5 : i % 500));
    std::vector<u64> ints, weights;
    for (u64 i = 0; i < 3000; i++) {
        ints.push_back(i % 7);
        weights.push_back(i % 3 + 1);
    }
    topk_sketch single = topk_sketch::create(32, 8, 1), batch = topk_sketch::create(32, 8, 1),
                packed = topk_sketch::create(32, 8, 1);
    for (std::size_t i = 0; i < keys.size(); i++) single.add(keys[i], weights[i]);
    for (u64 i : ints) single.add(i);
    batch.add_batch(keys, weights);
    batch.add_batch(ints);
    packed.add_batch(sketches::packed_keys(keys), weights);
    packed.add_batch(ints, {});
    CHECK(same_image(single, batch) && same_image(single, packed));
    std::vector<sketches::topk_entry> top = single.list();
    CHECK(top.size() == 32);
    bool sorted = true;
    for (std::size_t i = 1; i < top.size(); i++) sorted = sorted && top[i - 1].count >= top[i].count;
    CHECK(sorted);
    sketches::topk_stats st = single.stats();
    CHECK(st.capacity == 32 && st.max_key_len == 8 && st.used == 32 && st.seed == 1);
    EXPECT_ERROR(batch.add_batch(keys, sketches::array_view<const u64>(weights.data(), 5)), status::invalid_argument);

    topk_sketch other = topk_sketch::create(32, 8, 1);
    other.add("k0", 100000);
    single.merge(other);
    CHECK(single.list()[0].key == "k0");
    EXPECT_ERROR(single.merge(topk_sketch::create(32, 8, 2)), status::incompatible);
    topk_sketch doubled = single.clone();
    doubled.merge(doubled); // merges a copy (see test_merge_with_itself)
    CHECK(doubled.list()[0].key == "k0" && doubled.list()[0].count == 2 * single.list()[0].count);

    std::vector<std::uint8_t> bytes = single.to_bytes();
    topk_sketch::verify(bytes);
    topk_sketch back = topk_sketch::from_bytes(bytes);
    CHECK(back.to_bytes() == bytes && back.list()[0].key == "k0");
    bytes[150] ^= 1;
    EXPECT_ERROR(topk_sketch::from_bytes(bytes), status::checksum_mismatch);
    back.clear();
    CHECK(back.list().empty() && back.stats().total == 0);
    aligned_buffer mem(topk_sketch::image_size(8, 8));
    sketches::topk_view v = topk_sketch::init(mem.ptr, mem.size, 8, 8, 0);
    v.add("x", 2);
    sketches::topk_const_view cv = v;
    CHECK(cv.list().size() == 1 && cv.estimate("x").count == 2);
    topk_sketch moved = std::move(back);
    CHECK(back.size() == 0 && moved.size() > 0); // NOLINT(bugprone-use-after-move)
    EXPECT_ERROR(back.list(), status::buffer_too_small);
}

void test_minhash() {
    using sketches::minhash_sketch;
    CHECK(minhash_sketch::image_size(128) % 64 == 0);
    EXPECT_ERROR(minhash_sketch::image_size(0), status::invalid_parameter);
    minhash_sketch a = minhash_sketch::create(256, 6), b = minhash_sketch::create(256, 6);
    CHECK(a.jaccard(b) == 1.0); // both empty
    CHECK(a.add("first"));
    static_cast<void>(a.add(std::uint64_t{1}));
    static_cast<void>(a.add_hash(sketches::hash("h", 6)));
    std::vector<std::string> common = make_keys("common-", 600), only_a = make_keys("a-", 200),
                             only_b = make_keys("b-", 200);
    a.add_batch(common);
    a.add_batch(only_a);
    b.add_batch(sketches::packed_keys(common));
    b.add_hash_batch(sketches::hash_batch(only_b, 6));
    double j = a.jaccard(b);
    CHECK(std::fabs(j - 600.0 / 1003.0) < 0.12);
    sketches::minhash_const_view bv = b;
    CHECK(a.jaccard(bv) == j);
    EXPECT_ERROR(a.jaccard(minhash_sketch::create(128, 6)), status::incompatible);
    std::vector<u64> sig = a.signature();
    CHECK(sig.size() == 256);
    std::vector<u64> sig2(256);
    a.signature_into(sig2);
    CHECK(sig == sig2);
    std::vector<u64> wrong(10);
    EXPECT_ERROR(a.signature_into(wrong), status::invalid_argument);
    sketches::minhash_stats st = a.stats();
    CHECK(st.registers == 256 && st.filled > 200 && st.seed == 6);

    std::vector<u64> ints{5, 6, 7};
    minhash_sketch single = minhash_sketch::create(64, 2), batch = minhash_sketch::create(64, 2);
    for (const auto &k : only_a) static_cast<void>(single.add(k));
    for (u64 i : ints) static_cast<void>(single.add(i));
    batch.add_batch(only_a);
    batch.add_batch(ints);
    CHECK(same_image(single, batch));

    minhash_sketch u = a.clone();
    u.merge(b);
    CHECK(u.jaccard(a) < 1.0 && u.jaccard(u.clone()) == 1.0);
    EXPECT_ERROR(u.merge(minhash_sketch::create(256, 7)), status::incompatible);
    std::vector<std::uint8_t> bytes = u.to_bytes();
    minhash_sketch back = minhash_sketch::from_bytes(bytes);
    CHECK(back.jaccard(u) == 1.0);
    back.clear();
    CHECK(back.stats().filled == 0);
    aligned_buffer mem(minhash_sketch::image_size(64));
    sketches::minhash_view v = minhash_sketch::init(mem.ptr, mem.size, 64, 2);
    v.add_batch(only_a);
    v.add_batch(ints);
    CHECK(same_image(v, single));
}


void test_fuse() {
    using sketches::fuse_filter;
    sketches::fuse_params p = fuse_filter::plan(1000, 0.01);
    CHECK(p.keys == 1000 && p.fingerprint_bits == 8);
    CHECK(fuse_filter::plan(1000, 1e-4).fingerprint_bits == 16);
    CHECK(fuse_filter::plan_bits(1000, 16).fingerprint_bits == 16);
    EXPECT_ERROR(fuse_filter::plan_bits(1000, 12), status::invalid_parameter);
    EXPECT_ERROR(fuse_filter::plan(1000, 1e-9), status::invalid_parameter);
    CHECK(fuse_filter::image_size(p) % 64 == 0 && fuse_filter::scratch_size(p) > 25 * 1000);
    sketches::fuse_params bad = p;
    bad.reserved = 1;
    EXPECT_ERROR(fuse_filter::image_size(bad), status::invalid_parameter);
    static_assert(!fuse_filter::has_clear && sketches::ell_sketch::has_clear && sketches::bloom_filter::has_clear);

    // Every key shape builds the same filter; integers as the _u64 form.
    std::vector<std::string> keys = make_keys("fuse-", 3000);
    std::vector<std::string_view> views(keys.begin(), keys.end());
    std::list<std::string> linked(keys.begin(), keys.end());
    sketches::packed_keys packed(keys);
    sketches::fuse_params p8 = fuse_filter::plan_bits(keys.size(), 8);
    fuse_filter a = fuse_filter::build(keys, p8, 4), b = fuse_filter::build(views, p8, 4),
                c = fuse_filter::build(linked, p8, 4), d = fuse_filter::build(packed, p8, 4),
                e = fuse_filter::build_hashes(sketches::hash_batch(keys, 4), p8, 4);
    CHECK(same_image(a, b) && same_image(a, c) && same_image(a, d) && same_image(a, e));
    fuse_filter planned = fuse_filter::build(keys, 0.01, 4); // planned for the keys at 1%: 8-bit
    CHECK(same_image(a, planned));
    std::vector<u64> ints;
    for (u64 i = 0; i < 3000; i++) ints.push_back(i * 7919);
    fuse_filter fi = fuse_filter::build(ints, 1e-4, 4);
    CHECK(same_image(fi, fuse_filter::build_hashes(sketches::hash_batch(ints, 4), 1e-4, 4)));
    CHECK(fi.stats().params.fingerprint_bits == 16 && fi.stats().keys == 3000);

    // No false negatives, in every query form; batch == single.
    std::vector<bool> r1 = a.contains_batch(keys), r2 = a.contains_batch(packed),
                      r3 = a.contains_hash_batch(sketches::hash_batch(keys, 4)), r4 = fi.contains_batch(ints);
    bool all = true;
    for (std::size_t i = 0; i < keys.size(); i++) {
        all = all && r1[i] && r2[i] && r3[i] && r4[i] && a.contains(keys[i]) &&
              a.contains_hash(sketches::hash(keys[i], 4)) && fi.contains(ints[i]);
    }
    CHECK(all);
    std::vector<std::string> absent = make_keys("absent-", 20000);
    std::vector<bool> ra = a.contains_batch(absent);
    std::size_t hits = 0;
    for (std::size_t i = 0; i < ra.size(); i++) {
        hits += ra[i] ? 1u : 0u;
        if (ra[i] != a.contains(absent[i])) all = false;
    }
    CHECK(all && hits < 200); // 2^-8 of 20,000 is 78
    // Duplicates are stored once.
    std::vector<std::string> twice(keys);
    twice.insert(twice.end(), keys.begin(), keys.end());
    fuse_filter dup = fuse_filter::build(twice, fuse_filter::plan_bits(twice.size(), 8), 4);
    CHECK(dup.stats().keys == keys.size() && dup.contains(keys[17]));
    // More keys than planned: refused.
    EXPECT_ERROR(fuse_filter::build(keys, fuse_filter::plan_bits(10, 8), 4), status::invalid_argument);
    std::vector<std::string> none;
    fuse_filter empty = fuse_filter::build(none, 0.01);
    CHECK(empty.stats().keys == 0);

    sketches::fuse_stats st = a.stats();
    CHECK(st.keys == 3000 && st.seed == 4 && st.image_bytes == a.size() && st.attempts >= 1);
    CHECK(st.bits_per_key > 8 && st.bits_per_key < 12 && st.fpr == 1.0 / 256);

    // Into caller memory: image and scratch owned by the caller.
    aligned_buffer mem(fuse_filter::image_size(p8)), work(fuse_filter::scratch_size(p8));
    sketches::fuse_view v = fuse_filter::build_into(mem.ptr, mem.size, work.ptr, work.size, keys, p8, 4);
    CHECK(v.data() == mem.ptr && same_image(v, a));
    sketches::fuse_view vp = fuse_filter::build_into(mem.ptr, mem.size, work.ptr, work.size, packed.view(), p8, 4);
    CHECK(same_image(vp, a));
    sketches::fuse_view vh = fuse_filter::build_hashes_into(mem.ptr, mem.size, work.ptr, work.size,
                                                            sketches::hash_batch(keys, 4), p8, 4);
    CHECK(same_image(vh, a));
    std::vector<unsigned char> before(mem.bytes(), mem.bytes() + mem.size);
    EXPECT_ERROR(fuse_filter::build_into(mem.ptr, mem.size, work.ptr, work.size - 1, ints, p8, 4),
                 status::buffer_too_small);
    aligned_buffer wide(mem.size + 8);
    EXPECT_ERROR(fuse_filter::build_into(wide.bytes() + 1, mem.size, work.ptr, work.size, ints, p8, 4),
                 status::misaligned);
    EXPECT_ERROR(fuse_filter::build_into(mem.ptr, mem.size, mem.ptr, mem.size, ints, p8, 4), status::overlap);
    CHECK(std::memcmp(before.data(), mem.ptr, mem.size) == 0);
    CHECK(fuse_filter::try_build_into(mem.ptr, mem.size, work.ptr, work.size, keys, p8, 4).ok());

    // Views, clone, move, export/import (what check_storage does, minus adds and clear).
    sketches::fuse_const_view cv = a;
    CHECK(cv.contains(keys[5]) && cv.stats().keys == 3000);
    fuse_filter cl = cv.clone();
    CHECK(same_image(cl, a) && cl.data() != a.data());
    fuse_filter moved = std::move(cl);
    CHECK(cl.size() == 0 && moved.contains(keys[9])); // NOLINT(bugprone-use-after-move)
    EXPECT_ERROR(cl.contains("x"), status::buffer_too_small);
    std::vector<std::uint8_t> bytes = a.to_bytes();
    fuse_filter::verify(bytes);
    CHECK(fuse_filter::import_size(bytes) == a.size());
    fuse_filter back = fuse_filter::from_bytes(bytes);
    CHECK(back.to_bytes() == bytes && back.contains(keys[0]));
    sketches::fuse_view into = fuse_filter::from_bytes(bytes, mem.ptr, mem.size);
    CHECK(into.contains(keys[1]));
    bytes[bytes.size() / 2] ^= 1;
    EXPECT_ERROR(fuse_filter::verify(bytes), status::checksum_mismatch);
    before.assign(mem.bytes(), mem.bytes() + mem.size);
    EXPECT_ERROR(fuse_filter::from_bytes(bytes, mem.ptr, mem.size), status::checksum_mismatch);
    CHECK(std::memcmp(before.data(), mem.ptr, mem.size) == 0);
    EXPECT_ERROR(sketches::bloom_filter::from_bytes(a.to_bytes()), status::wrong_family);
    EXPECT_ERROR(sketches::fuse_const_view(sketches::ell_sketch::create({2, 20, 8, 0}).data(), 1024).contains("x"),
                 status::wrong_family);
    CHECK(sketches::inspect(a.to_bytes()).family == SKETCH_FAMILY_BINARY_FUSE);
    CHECK(std::string(sketches::status_text(status::build_failed)) == sketch_status_str(SKETCH_BUILD_FAILED));
}

void test_ell() {
    using sketches::ell_sketch;
    constexpr sketches::ell_params p12 = ell_sketch::make_params(12);
    CHECK(p12.t == 2 && p12.d == 20 && p12.precision == 12 && p12.reserved == 0);
    CHECK(ell_sketch::image_size(p12) == 128 + 28 * 4096 / 8);
    CHECK(ell_sketch::image_size(ell_sketch::make_params(12, 24)) == 128 + 4 * 4096);
    EXPECT_ERROR(ell_sketch::image_size(ell_sketch::make_params(25)), status::invalid_parameter);
    EXPECT_ERROR(ell_sketch::image_size(ell_sketch::make_params(12, 22)), status::invalid_parameter);
    sketches::ell_params planned = ell_sketch::plan(0.01);
    CHECK(planned.precision == 11 && planned.d == 20);
    CHECK(ell_sketch::plan(0.01, 24).d == 24);
    EXPECT_ERROR(ell_sketch::plan(0.0), status::invalid_parameter);

    ell_sketch s = ell_sketch::create(p12, 5);
    CHECK(s.add("kiwi") && !s.add("kiwi"));
    CHECK(s.add(std::uint64_t{7}) && s.add_hash(0x123456789abcdefULL));
    CHECK(!s.add_hash(sketches::hash("kiwi", 5)));
    std::vector<std::string> keys = make_keys("e-", 20000);
    s.add_batch(keys);
    double e = s.estimate(), ml = s.ml_estimate(), mart = s.martingale_estimate();
    CHECK(e == mart && std::fabs(e - 20003) / 20003 < 4 * 0.3177 / 64);
    CHECK(std::fabs(ml - 20003) / 20003 < 4 * 0.3622 / 64);
    sketches::ell_stats st = s.stats();
    CHECK(st.params.precision == 12 && st.params.d == 20 && st.seed == 5 && st.martingale == 1);
    CHECK(st.image_bytes == s.size() && st.estimate == e);

    // Batches in every form equal single adds.
    std::vector<u64> ints{1, 2, 3, 4};
    sketches::ell_params p10 = ell_sketch::make_params(10, 24);
    ell_sketch single = ell_sketch::create(p10, 5), batch = ell_sketch::create(p10, 5),
               packed = ell_sketch::create(p10, 5), hashed = ell_sketch::create(p10, 5);
    std::vector<std::string> few = make_keys("f-", 500);
    for (const auto &k : few) static_cast<void>(single.add(k));
    for (u64 i : ints) static_cast<void>(single.add(i));
    batch.add_batch(few);
    batch.add_batch(ints);
    packed.add_batch(sketches::packed_keys(few));
    packed.add_batch(ints);
    hashed.add_hash_batch(sketches::hash_batch(few, 5));
    hashed.add_hash_batch(sketches::hash_batch(ints, 5));
    CHECK(same_image(single, batch) && same_image(single, packed) && same_image(single, hashed));

    // Merge == one sketch of both streams; across parameters; downsize.
    std::vector<std::string> first(keys.begin(), keys.begin() + 12000), second(keys.begin() + 8000, keys.end());
    ell_sketch x = ell_sketch::create(p12, 5), y = ell_sketch::create(p12, 5), both = ell_sketch::create(p12, 5);
    x.add_batch(first);
    y.add_batch(second);
    both.add_batch(keys);
    x.merge(y);
    CHECK(std::memcmp(static_cast<const unsigned char *>(x.data()) + 128,
                      static_cast<const unsigned char *>(both.data()) + 128, x.size() - 128) == 0);
    CHECK(std::isnan(x.martingale_estimate()) && x.estimate() == both.ml_estimate() && x.stats().martingale == 0);
    ell_sketch same = x.clone();
    x.merge(x); // merges a copy (see test_merge_with_itself)
    CHECK(x.estimate() == same.estimate());
    EXPECT_ERROR(x.merge(ell_sketch::create(p12, 6)), status::incompatible);
    ell_sketch low = ell_sketch::create(p10, 5);
    EXPECT_ERROR(low.merge(both), status::incompatible); // d = 20 cannot give d = 24
    sketches::ell_params p10d20 = ell_sketch::make_params(10);
    ell_sketch reduced = both.downsize(p10d20), direct = ell_sketch::create(p10d20, 5);
    direct.add_batch(keys);
    CHECK(std::memcmp(static_cast<const unsigned char *>(reduced.data()) + 128,
                      static_cast<const unsigned char *>(direct.data()) + 128, reduced.size() - 128) == 0);
    aligned_buffer dm(ell_sketch::image_size(p10d20));
    sketches::ell_view dv = both.downsize_into(p10d20, dm.ptr, dm.size);
    CHECK(same_image(dv, reduced));
    EXPECT_ERROR(both.downsize(ell_sketch::make_params(13)), status::incompatible);
    EXPECT_ERROR(both.downsize_into(p10d20, dm.ptr, dm.size - 64), status::buffer_too_small);

    // Export / import, views, clone, clear (reset), init into caller memory.
    std::vector<std::uint8_t> bytes = s.to_bytes();
    ell_sketch::verify(bytes);
    ell_sketch back = ell_sketch::from_bytes(bytes);
    CHECK(back.to_bytes() == bytes && back.estimate() == e);
    EXPECT_ERROR(sketches::ull_sketch::from_bytes(bytes), status::wrong_family);
    bytes[bytes.size() - 3] ^= 4;
    EXPECT_ERROR(ell_sketch::from_bytes(bytes), status::checksum_mismatch);
    ell_sketch c = back.clone();
    c.clear();
    CHECK(c.estimate() == 0.0 && back.estimate() == e && c.stats().martingale == 1);
    aligned_buffer mem(s.size());
    sketches::ell_view iv = ell_sketch::init(mem.ptr, mem.size, p12, 5);
    CHECK(iv.add("z"));
    aligned_buffer wide(mem.size + 8);
    EXPECT_ERROR(ell_sketch::init(wide.bytes() + 1, mem.size, p12, 5), status::misaligned);
    sketches::ell_const_view cv = iv;
    CHECK(cv.estimate() > 0.5 && cv.stats().registers_set == 1);
    sketches::ell_view sv = s;
    static_cast<void>(sv.add("via-view"));
    CHECK(s.stats().estimate > e);
}
} // namespace

/* Tokens (Bloom, split-block, HLL): an object holds its image's token from
   creation, import and view construction; views made from an object copy
   it; single adds and queries through it equal the batch forms; a stale
   token (the viewed memory re-initialized with other parameters behind the
   view's back) or a zero one (a view made before init) still gives the
   plain calls' answers; refresh_token takes it again. */
template <class Filter, class Make, class CToken>
void check_filter_tokens(Make make, CToken c_token) {
    Filter f = make(0);
    sketch_token t{};
    CHECK(c_token(f.data(), f.size(), &t) == SKETCH_OK);
    CHECK(std::memcmp(&t, &f.token(), sizeof t) == 0);
    CHECK(std::memcmp(&f.view().token(), &t, sizeof t) == 0);
    CHECK(std::memcmp(&f.const_view().token(), &t, sizeof t) == 0);
    Filter g = make(0);
    std::vector<std::string> keys = make_keys("tok-", 3000);
    std::vector<u64> ints;
    for (u64 i = 0; i < 3000; i++) ints.push_back(i * 7919);
    for (const auto &k : keys) static_cast<void>(f.add(k));
    for (u64 i : ints) static_cast<void>(f.add(i));
    g.add_batch(keys);
    g.add_batch(ints);
    CHECK(same_image(f, g));
    Filter back = Filter::from_bytes(f.to_bytes());
    CHECK(std::memcmp(&back.token(), &t, sizeof t) == 0);
    CHECK(back.to_bytes() == f.to_bytes());

    // Stale and zero tokens: memory re-initialized behind a view's back.
    Filter small = make(1);
    aligned_buffer mem(f.size());
    std::memcpy(mem.ptr, f.data(), f.size());
    typename Filter::view_type v(mem.ptr, mem.size);
    CHECK(std::memcmp(&v.token(), &t, sizeof t) == 0);
    std::memset(mem.ptr, 0, mem.size);
    std::memcpy(mem.ptr, small.data(), small.size());
    for (int i = 0; i < 500; i++) {
        static_cast<void>(v.add(keys[static_cast<std::size_t>(i)]));
        static_cast<void>(small.add(keys[static_cast<std::size_t>(i)]));
    }
    CHECK(std::memcmp(mem.ptr, small.data(), small.size()) == 0);
    CHECK(v.refresh_token() == status::ok);
    CHECK(std::memcmp(&v.token(), &small.token(), sizeof t) == 0);
    aligned_buffer blank(f.size());
    typename Filter::view_type z(blank.ptr, blank.size);
    const sketch_token zero{};
    CHECK(std::memcmp(&z.token(), &zero, sizeof zero) == 0);
    std::memcpy(blank.ptr, g.data(), g.size());
    static_cast<void>(z.add("after"));
    static_cast<void>(g.add("after"));
    CHECK(std::memcmp(blank.ptr, g.data(), g.size()) == 0);
    aligned_buffer other(64);
    typename Filter::view_type wrong(other.ptr, other.size);
    CHECK(wrong.refresh_token() != status::ok);
}

void test_tokens() {
    check_filter_tokens<sketches::bloom_filter>(
        [](int variant) { return sketches::bloom_filter::create(4000, variant ? 0.05 : 0.01, 3); }, sketch_bloom_token);
    check_filter_tokens<sketches::sbbf_filter>(
        [](int variant) { return sketches::sbbf_filter::create(4000, variant ? 0.05 : 0.01, 3); }, sketch_sbbf_token);
    check_filter_tokens<sketches::hll_sketch>(
        [](int variant) { return sketches::hll_sketch::create(variant ? 10 : 12, 3); }, sketch_hll_token);
    // The with-token contains answers as the plain C call does.
    auto f = sketches::sbbf_filter::create(4000, 0.01, 3);
    for (u64 i = 0; i < 3000; i++) static_cast<void>(f.add(i));
    bool agree = true;
    for (u64 i = 0; i < 6000; i++) {
        bool plain = false;
        agree = agree && sketch_sbbf_contains_u64(f.data(), f.size(), i, &plain) == SKETCH_OK;
        agree = agree && plain == f.contains(i) && (i >= 3000 || plain);
    }
    CHECK(agree);
    // A family without tokens keeps a zero one.
    auto c = sketches::counting_filter::create(1000, 0.01);
    const sketch_token zero{};
    CHECK(std::memcmp(&c.token(), &zero, sizeof zero) == 0 && c.refresh_token() == status::ok);
}

/* The image bytes after the header (bits or registers). */
std::vector<unsigned char> body_of(sketches::byte_view image) {
    sketches::image_info info = sketches::inspect(image);
    const auto *p = static_cast<const unsigned char *>(image.data());
    return std::vector<unsigned char>(p + info.header_bytes, p + image.size());
}

/* Thread t of 8 adds keys t*400 .. t*400+599 (neighbours overlap by 200),
   each thread through one form: byte keys, integers, hashes, a container
   batch of strings, of integers, packed keys. The same adds are made one at
   a time into `seq`. Returns true when every concurrent call succeeded. */
template <class Sketch, class SeqAdd, class ConcAdd>
bool add_from_threads(Sketch &conc, SeqAdd &&seq_add, ConcAdd &&conc_add) {
    constexpr int threads = 8;
    std::vector<std::thread> pool;
    std::array<bool, threads> ok{};
    for (int t = 0; t < threads; t++) {
        std::vector<std::string> keys = make_keys("conc-", 0);
        std::vector<u64> ints;
        for (int i = t * 400; i < t * 400 + 600; i++) {
            keys.push_back("conc-" + std::to_string(i));
            ints.push_back(static_cast<u64>(i) * 7919u);
        }
        seq_add(t % 6, keys, ints);
        pool.emplace_back([&conc, &conc_add, &ok, t, keys = std::move(keys), ints = std::move(ints)] {
            ok[static_cast<std::size_t>(t)] = conc_add(conc, t % 6, keys, ints);
        });
    }
    for (auto &th : pool) th.join();
    bool all = true;
    for (bool b : ok) all = all && b;
    return all;
}

template <class Filter>
void check_concurrent_filter(Filter conc, Filter seq) {
    std::uint64_t seed = conc.stats().seed;
    auto seq_add = [&](int form, const std::vector<std::string> &keys, const std::vector<u64> &ints) {
        for (std::size_t i = 0; i < keys.size(); i++) {
            if (form == 1 || form == 4) {
                static_cast<void>(seq.add(ints[i]));
            } else if (form == 2) {
                static_cast<void>(seq.add_hash(sketches::hash(keys[i], seed)));
            } else {
                static_cast<void>(seq.add(keys[i]));
            }
        }
    };
    // While the adders run, readers query keys added before they started.
    for (u64 i = 0; i < 100; i++) static_cast<void>(conc.add_concurrent(u64{1000000} + i));
    for (u64 i = 0; i < 100; i++) static_cast<void>(seq.add(u64{1000000} + i));
    std::atomic<bool> done{false};
    std::atomic<int> misses{0};
    std::thread reader([&] {
        std::array<bool, 100> hits{};
        std::vector<u64> early;
        for (u64 i = 0; i < 100; i++) early.push_back(u64{1000000} + i);
        while (!done.load()) {
            for (u64 k : early) misses += conc.contains_concurrent(k) ? 0 : 1;
            if (conc.try_contains_concurrent_batch(early, hits) != status::ok) misses++;
            for (bool h : hits) misses += h ? 0 : 1;
            // The over-capacity signal, read while the adders run.
            if (conc.try_capacity_flags_concurrent().status != status::ok) misses++;
        }
    });
    bool ok = add_from_threads(conc, seq_add, [seed](Filter &f, int form, const std::vector<std::string> &keys,
                                                     const std::vector<u64> &ints) {
        // No stats() here: only the concurrent members may run meanwhile.
        std::uint64_t s = seed;
        switch (form) {
        case 0:
            for (const auto &k : keys) static_cast<void>(f.add_concurrent(k));
            return true;
        case 1:
            for (u64 k : ints) static_cast<void>(f.add_concurrent(k));
            return true;
        case 2:
            for (const auto &k : keys) static_cast<void>(f.add_concurrent_hash(sketches::hash(k, s)));
            return true;
        case 3: {
            std::unique_ptr<bool[]> was_new(new bool[keys.size()]());
            return f.try_add_concurrent_batch(keys, sketches::array_view<bool>(was_new.get(), keys.size())) ==
                   status::ok;
        }
        case 4:
            return f.try_add_concurrent_batch(ints) == status::ok;
        default:
            return f.try_add_concurrent_batch(sketches::packed_keys(keys)) == status::ok;
        }
    });
    done.store(true);
    reader.join();
    CHECK(ok);
    CHECK(misses.load() == 0);
    CHECK(body_of(conc.bytes()) == body_of(seq.bytes()));
    CHECK(conc.stats().add_calls == seq.stats().add_calls);
    // Queries after the join: every added key, in every form.
    // (Thread 0 added the strings conc-0 .. conc-599, thread 1 the integers
    // 400 * 7919 .. 999 * 7919.)
    std::vector<std::string> all = make_keys("conc-", 600);
    std::vector<bool> found = conc.contains_concurrent_batch(all);
    bool every = found.size() == 600;
    for (bool b : found) every = every && b;
    for (u64 i = 400; i < 1000; i++) every = every && conc.contains_concurrent(i * 7919u);
    CHECK(every && conc.contains_concurrent(std::string_view("conc-599")));
    CHECK(conc.contains_concurrent_hash(sketches::hash("conc-0", seed)));
    std::array<bool, 2> two{};
    CHECK(conc.try_contains_concurrent_batch(sketches::packed_keys(std::vector<std::string>{"conc-5", "conc-6"}), two) ==
              status::ok &&
          two[0] && two[1]);
    std::array<u64, 1> h1{sketches::hash("conc-7", seed)};
    std::array<bool, 1> r1{};
    CHECK(conc.try_contains_concurrent_hash_batch(h1, r1) == status::ok && r1[0]);
    std::array<bool, 1> short_out{};
    CHECK(conc.try_contains_concurrent_batch(all, short_out) == status::buffer_too_small);
    // A misaligned view is refused by the concurrent calls, unchanged.
    aligned_buffer raw(conc.size() + 8);
    std::memcpy(raw.bytes() + 4, conc.data(), conc.size());
    typename Filter::view_type shifted(raw.bytes() + 4, conc.size());
    CHECK(shifted.try_add_concurrent("x").status == status::misaligned);
    CHECK(shifted.try_capacity_flags_concurrent().status == status::misaligned);
    CHECK(std::memcmp(raw.bytes() + 4, conc.data(), conc.size()) == 0);
    // After the join the concurrent signal equals the plain one; overfilled
    // through the concurrent adds, both flags rise in both.
    CHECK(conc.capacity_flags_concurrent() == conc.capacity_flags());
    for (u64 i = 0; i < 40000; i++) static_cast<void>(conc.add_concurrent(u64{5000000} + i));
    CHECK(conc.capacity_flags_concurrent() == (SKETCH_CAPACITY_OVER_PLANNED_ITEMS | SKETCH_CAPACITY_FPR_ABOVE_TWICE_PLANNED));
    CHECK(conc.capacity_flags_concurrent() == conc.capacity_flags() && conc.over_capacity_concurrent());
    CHECK(conc.const_view().over_capacity_concurrent());
}

template <class Counter>
void check_concurrent_counter(Counter conc, Counter seq) {
    std::uint64_t seed = conc.stats().seed;
    auto seq_add = [&](int form, const std::vector<std::string> &keys, const std::vector<u64> &ints) {
        for (std::size_t i = 0; i < keys.size(); i++) {
            if (form == 1 || form == 4) {
                static_cast<void>(seq.add(ints[i]));
            } else if (form == 2) {
                static_cast<void>(seq.add_hash(sketches::hash(keys[i], seed)));
            } else {
                static_cast<void>(seq.add(keys[i]));
            }
        }
    };
    std::atomic<bool> done{false};
    std::atomic<int> bad{0};
    std::thread reader([&] {
        // Registers only grow, but the estimate need not be monotone in
        // them: each read is checked for a status and a plausible value.
        while (!done.load()) {
            sketches::result<double> e = conc.try_estimate_concurrent();
            if (!e.ok() || !std::isfinite(e.value) || e.value < 0 || e.value > 1e5) bad++;
        }
    });
    bool ok = add_from_threads(conc, seq_add, [seed](Counter &c, int form, const std::vector<std::string> &keys,
                                                     const std::vector<u64> &ints) {
        // No stats() here: only the concurrent members may run meanwhile.
        std::uint64_t s = seed;
        switch (form) {
        case 0:
            for (const auto &k : keys) static_cast<void>(c.add_concurrent(k));
            return true;
        case 1:
            for (u64 k : ints) static_cast<void>(c.add_concurrent(k));
            return true;
        case 2:
            for (const auto &k : keys) static_cast<void>(c.add_concurrent_hash(sketches::hash(k, s)));
            return true;
        case 3:
            return c.try_add_concurrent_batch(keys) == status::ok;
        case 4:
            return c.try_add_concurrent_batch(ints) == status::ok;
        default:
            return c.try_add_concurrent_batch(sketches::packed_keys(keys)) == status::ok;
        }
    });
    done.store(true);
    reader.join();
    CHECK(ok);
    CHECK(bad.load() == 0);
    CHECK(body_of(conc.bytes()) == body_of(seq.bytes()));
    CHECK(std::fabs(conc.estimate_concurrent() - seq.register_estimate()) < 1e-9 * seq.register_estimate());
}

void test_concurrent() {
    check_concurrent_filter(sketches::bloom_filter::create(4000, 0.01, 5),
                            sketches::bloom_filter::create(4000, 0.01, 5));
    check_concurrent_filter(sketches::sbbf_filter::create(4000, 0.01, 5), sketches::sbbf_filter::create(4000, 0.01, 5));
    // A HyperLogLog starts in its exact small mode: concurrent adds refuse it
    // (nothing changes) until densify().
    auto h = sketches::hll_sketch::create(12, 5);
    const auto *hb = static_cast<const unsigned char *>(h.data());
    std::vector<unsigned char> before(hb, hb + h.size());
    EXPECT_ERROR(h.add_concurrent("x"), status::small_mode);
    CHECK(h.try_add_concurrent_batch(std::vector<u64>{1, 2}) == status::small_mode);
    CHECK(std::equal(before.begin(), before.end(), hb));
    auto hs = sketches::hll_sketch::create(12, 5);
    h.densify();
    hs.densify();
    h.densify(); // dense already: unchanged
    check_concurrent_counter(std::move(h), std::move(hs));
    check_concurrent_counter(sketches::ull_sketch::create(12, 5), sketches::ull_sketch::create(12, 5));
    // A const view cannot add, but reads concurrently.
    auto u = sketches::ull_sketch::create(10);
    CHECK(u.add_concurrent(u64{42}));
    sketches::ull_const_view cu = u;
    CHECK(cu.estimate_concurrent() > 0.5);
}

void *operator new(std::size_t size) {
    if (fail_allocations) throw std::bad_alloc();
    if (void *p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
/* Out of line, so that GCC does not pair an inlined free with operator new
   (-Wmismatched-new-delete). */
[[gnu::noinline]] void operator delete(void *p) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void *p, std::size_t) noexcept { std::free(p); }

/* The wrapper's aligned buffers (the aligned, nothrow operator new): the
   largest size asked for is recorded, so a test can tell that a stream read
   allocated only about what arrived, never the length a header announced. */
std::atomic<std::size_t> largest_aligned{0};

void *aligned_new(std::size_t size, std::align_val_t align) noexcept {
    std::size_t seen = largest_aligned.load();
    while (size > seen && !largest_aligned.compare_exchange_weak(seen, size)) {
    }
    void *p = nullptr;
    std::size_t a = static_cast<std::size_t>(align) < sizeof(void *) ? sizeof(void *) : static_cast<std::size_t>(align);
    return posix_memalign(&p, a, size == 0 ? 1 : size) == 0 ? p : nullptr;
}
void *operator new(std::size_t size, std::align_val_t align, const std::nothrow_t &) noexcept {
    return aligned_new(size, align);
}
void *operator new(std::size_t size, std::align_val_t align) {
    if (void *p = aligned_new(size, align)) return p;
    throw std::bad_alloc();
}
[[gnu::noinline]] void operator delete(void *p, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
[[gnu::noinline]] void operator delete(void *p, std::align_val_t, const std::nothrow_t &) noexcept { std::free(p); }

/* ---- Golden images (tests/golden, beside SKETCHES_PARQUET_DIR): every family and mode ---- */

/* One golden image through the family's checked entry points: verify,
   import_size, from_bytes (owning and into caller memory), the export gives
   the same bytes; a flipped byte, a truncation, another family's image and
   a newer format version are refused with their status, and caller memory
   stays untouched. */
template <class Family, class Other>
void golden_case(const std::string &dir, const char *name) {
    std::vector<std::uint8_t> golden = read_file(dir + "/" + name + "_v1.img");
    if (golden.size() <= 48) {
        check(false, name, __LINE__);
        return;
    }
    Family::verify(golden);
    std::uint64_t live = Family::import_size(golden);
    CHECK(live >= golden.size() && live % 64 == 0);
    Family back = Family::from_bytes(golden);
    CHECK(back.size() == live && back.to_bytes() == golden);
    aligned_buffer mem(static_cast<std::size_t>(live));
    std::memset(mem.ptr, 0xEE, mem.size);
    std::vector<unsigned char> before(mem.bytes(), mem.bytes() + mem.size);
    std::vector<std::uint8_t> bad = golden;
    bad[bad.size() / 2] ^= 0x10;
    EXPECT_ERROR(Family::verify(bad), status::checksum_mismatch);
    EXPECT_ERROR(Family::from_bytes(bad), status::checksum_mismatch);
    EXPECT_ERROR(Family::from_bytes(bad, mem.ptr, mem.size), status::checksum_mismatch);
    bad = golden;
    bad[4] = 9; /* a newer major version */
    EXPECT_ERROR(Family::verify(bad), status::unsupported_version);
    EXPECT_ERROR(Family::import_size(bad), status::unsupported_version);
    EXPECT_ERROR(Family::from_bytes(bad, mem.ptr, mem.size), status::unsupported_version);
    bad.assign(golden.begin(), golden.end() - 8);
    EXPECT_ERROR(Family::from_bytes(bad), status::length_mismatch);
    EXPECT_ERROR(Family::import_size(bad), status::length_mismatch);
    EXPECT_ERROR(Family::from_bytes(bad, mem.ptr, mem.size), status::length_mismatch);
    EXPECT_ERROR(Other::from_bytes(golden), status::wrong_family);
    EXPECT_ERROR(Other::import_size(golden), status::wrong_family);
    CHECK(std::memcmp(before.data(), mem.ptr, mem.size) == 0);
    CHECK(Family::from_bytes(golden, mem.ptr, mem.size).to_bytes() == golden);
}

/* Signed and other non-uint64 integer keys, held in variables, on every
   family's single-key members: they compile under -Wsign-conversion -Werror
   (this file's flags; clang's -Wconversion includes it) and mean the key's
   64-bit value. Each call converted the key implicitly to the std::uint64_t
   overload, a sign-conversion warning at every call with an int or a
   std::int64_t (the int64_t the docs show). */
template <class K>
void signed_keys_of_width(K key) {
    const u64 wide = static_cast<u64>(key);
    sketches::bloom_filter b = sketches::bloom_filter::create(1000, 0.01);
    CHECK(b.add(key) && !b.add(wide) && b.contains(key) && b.try_contains(key).value);
    CHECK(b.try_add(key).ok() && !b.add_concurrent(key) && b.contains_concurrent(key));
    CHECK(b.try_add_concurrent(key).ok() && b.try_contains_concurrent(key).value);
    sketches::sbbf_filter sb = sketches::sbbf_filter::create(1000, 0.01);
    CHECK(sb.add(key) && sb.contains(wide) && sb.contains(key) && !sb.add_concurrent(key));
    sketches::counting_filter cf = sketches::counting_filter::create(1000, 0.01);
    CHECK(cf.add(key) && cf.contains(wide) && cf.remove(key) && !cf.contains(key));
    CHECK(cf.try_add(key).ok() && cf.try_remove(key) == status::ok && !cf.try_contains(key).value);
    sketches::cuckoo_filter ck = sketches::cuckoo_filter::create(1000, 0.01);
    CHECK(ck.add(key) && ck.try_add(key) == status::ok && ck.count(key) == 2 && ck.try_count(key).value == 2);
    CHECK(ck.remove(key) && ck.try_remove(key) == status::ok && !ck.contains(wide));
    sketches::hll_sketch h = sketches::hll_sketch::create(12);
    CHECK(h.add(key) && !h.add(wide) && !h.try_add(key).value);
    h.densify();
    CHECK(!h.add_concurrent(key) && !h.try_add_concurrent(key).value);
    sketches::ull_sketch u = sketches::ull_sketch::create(12);
    CHECK(u.add(key) && !u.add(wide) && !u.try_add(key).value);
    sketches::ell_sketch e = sketches::ell_sketch::create(sketches::ell_sketch::make_params(12));
    CHECK(e.add(key) && !e.add(wide) && !e.try_add(key).value);
    sketches::minhash_sketch m = sketches::minhash_sketch::create(64);
    CHECK(m.add(key) && !m.add(wide) && !m.try_add(key).value);
    sketches::countmin_sketch cm = sketches::countmin_sketch::create(0.01, 0.01);
    cm.add(key);
    cm.add(key, 2);
    CHECK(cm.try_add(key) == status::ok && cm.try_add(key, 3) == status::ok);
    CHECK(cm.estimate(key) == 7 && cm.estimate(wide) == 7 && cm.try_estimate(key).value == 7);
    sketches::topk_sketch t = sketches::topk_sketch::create(8, 16);
    t.add(key);
    t.add(key, 2);
    CHECK(t.try_add(key) == status::ok && t.try_add(key, 3) == status::ok);
    CHECK(t.estimate(key).count == 7 && t.estimate(wide).count == 7 && t.try_estimate(key).value.listed);
    sketches::fuse_filter fu = sketches::fuse_filter::build(std::vector<u64>{wide}, 0.01);
    CHECK(fu.contains(key) && fu.try_contains(key).value);
    CHECK(sketches::hash(key) == sketches::hash(wide) && sketches::hash(key, 9) == sketches::hash(wide, 9));
}

void test_signed_keys() {
    int i = -3;
    std::int64_t l = -(std::int64_t{1} << 40);
    long long ll = -5;
    short sh = -7;
    unsigned int ui = 4000000000u;
    signed_keys_of_width(i);
    signed_keys_of_width(l);
    signed_keys_of_width(ll);
    signed_keys_of_width(sh);
    signed_keys_of_width(ui);
    // A Parquet-mode split-block filter still refuses keys narrower than 64
    // bits, and takes a std::int64_t as an INT64 value.
    sketches::sbbf_filter column = sketches::sbbf_filter::create(sketches::sbbf_filter::plan_parquet(100, 0.01));
    EXPECT_ERROR(column.add(i), status::invalid_argument);
    CHECK(column.add(l) && column.contains_hash(sketches::parquet_hash_i64(l)));
}

/* Merging a sketch with itself (a.merge(a), as a loop over shards that
   starts with the total does, or with a view of its own memory) gives what
   merging an equal copy gives, in every family with a merge, as in the Go,
   Java and Python bindings: it threw sketches::error(overlap), the C call's
   refusal of overlapping buffers. */
template <class S>
void merge_with_itself(const S &original) {
    S a = original.clone(), b = original.clone();
    a.merge(a);
    b.merge(b.clone());
    CHECK(same_image(a, b));
    S c = original.clone(), d = original.clone();
    typename S::view_type v = c;
    CHECK(c.try_merge(v) == status::ok && d.try_merge(d.clone()) == status::ok && same_image(c, d));
    S e = original.clone();
    typename S::const_view_type cv = e;
    v = e;
    v.merge(cv);
    CHECK(same_image(e, d));
}

/* A negative weight (a signed integer below 0) is refused with
   status::invalid_argument and nothing changes, as Java and Python refuse
   it: it converted to std::uint64_t, so add(key, -1) added 2^64 - 1
   occurrences (the key's counts and the total saturated). Non-negative
   signed weights of any width are their value. */
u64 count_of(u64 estimate) { return estimate; }
u64 count_of(const sketches::topk_estimate &estimate) { return estimate.count; }

template <class S>
void negative_weights_refused(S s) {
    s.add("kept", 3);
    const std::vector<std::uint8_t> before = s.to_bytes();
    const int minus_one = -1;
    const long long big_negative = -(1LL << 40);
    CHECK(s.try_add("x", minus_one) == status::invalid_argument);
    CHECK(s.try_add("x", big_negative) == status::invalid_argument);
    CHECK(s.try_add(std::string_view("x"), -1) == status::invalid_argument);
    CHECK(s.try_add(u64{7}, -2) == status::invalid_argument);
    CHECK(s.try_add(7, static_cast<short>(-3)) == status::invalid_argument);
    EXPECT_ERROR(s.add("x", -1), status::invalid_argument);
    EXPECT_ERROR(s.add(u64{7}, -1), status::invalid_argument);
    CHECK(s.to_bytes() == before);
    CHECK(s.try_add("x", 5) == status::ok);
    CHECK(s.try_add("x", std::int8_t{2}) == status::ok);
    CHECK(count_of(s.estimate("x")) == 7);
}

void test_negative_weights() {
    negative_weights_refused(sketches::countmin_sketch::create(0.01, 0.01));
    negative_weights_refused(sketches::topk_sketch::create(8, 16));
    auto c = sketches::countmin_sketch::create(0.01, 0.01);
    CHECK(c.try_add_hash(42, -1) == status::invalid_argument);
    EXPECT_ERROR(c.add_hash(42, -1), status::invalid_argument);
    CHECK(c.stats().total == 0);
}

void test_merge_with_itself() {
    std::vector<std::string> keys = make_keys("self-", 50);
    auto bloom = sketches::bloom_filter::create(1000, 0.01);
    bloom.add_batch(keys);
    merge_with_itself(bloom);
    sketches::bloom_filter inter = bloom.clone();
    inter.intersect(inter);
    CHECK(same_image(inter, bloom));
    auto sbbf = sketches::sbbf_filter::create(1000, 0.01);
    sbbf.add_batch(keys);
    merge_with_itself(sbbf);
    sketches::sbbf_filter sinter = sbbf.clone();
    CHECK(sinter.try_intersect(sinter) == status::ok && same_image(sinter, sbbf));
    auto counting = sketches::counting_filter::create(1000, 0.01);
    counting.add_batch(keys);
    merge_with_itself(counting);
    auto cuckoo = sketches::cuckoo_filter::create(1000, 0.01);
    cuckoo.add_batch(keys);
    merge_with_itself(cuckoo);
    sketches::cuckoo_filter ck = cuckoo.clone(), ck2 = cuckoo.clone();
    aligned_buffer scratch(ck.size());
    ck.merge(ck, scratch.ptr, scratch.size);
    ck2.merge(ck2.clone(), scratch.ptr, scratch.size);
    CHECK(same_image(ck, ck2));
    auto hll = sketches::hll_sketch::create(10);
    hll.add_batch(keys);
    merge_with_itself(hll);
    auto ull = sketches::ull_sketch::create(10);
    ull.add_batch(keys);
    merge_with_itself(ull);
    auto ell = sketches::ell_sketch::create(sketches::ell_sketch::make_params(10));
    ell.add_batch(keys);
    merge_with_itself(ell);
    auto cm = sketches::countmin_sketch::create(0.01, 0.01);
    cm.add_batch(keys);
    merge_with_itself(cm);
    sketches::countmin_sketch cm2 = cm.clone();
    cm2.merge(cm2);
    CHECK(cm2.estimate(keys[0]) == 2 * cm.estimate(keys[0]));
    auto topk = sketches::topk_sketch::create(64, 16);
    topk.add_batch(keys);
    merge_with_itself(topk);
    auto mh = sketches::minhash_sketch::create(64);
    mh.add_batch(keys);
    merge_with_itself(mh);
}

void test_golden() {
    const char *dir = std::getenv("SKETCHES_PARQUET_DIR");
    if (dir == nullptr) {
        check(false, "SKETCHES_PARQUET_DIR is set", __LINE__);
        return;
    }
    const std::string golden = std::string(dir) + "/../golden";
    using namespace sketches;
    golden_case<bloom_filter, minhash_sketch>(golden, "bloom");
    golden_case<sbbf_filter, bloom_filter>(golden, "sbbf");
    golden_case<sbbf_filter, bloom_filter>(golden, "sbbf_parquet");
    golden_case<counting_filter, bloom_filter>(golden, "counting");
    golden_case<cuckoo_filter, bloom_filter>(golden, "cuckoo");
    golden_case<hll_sketch, ull_sketch>(golden, "hll_small");
    golden_case<hll_sketch, ull_sketch>(golden, "hll_dense");
    golden_case<ull_sketch, hll_sketch>(golden, "ull");
    golden_case<countmin_sketch, bloom_filter>(golden, "countmin");
    golden_case<topk_sketch, bloom_filter>(golden, "topk");
    golden_case<minhash_sketch, bloom_filter>(golden, "minhash");
    golden_case<fuse_filter, bloom_filter>(golden, "fuse8");
    golden_case<fuse_filter, bloom_filter>(golden, "fuse16");
    golden_case<ell_sketch, ull_sketch>(golden, "ell");
    golden_case<ell_sketch, ull_sketch>(golden, "ell_d24");
}

/* The try_ forms that fill standard containers (to_bytes, Top-k list,
   MinHash signature, packed_keys::try_push_back) report an allocation
   failure as status::out_of_memory and never throw: they threw
   std::bad_alloc, out of a try_ form the header promises noexcept and
   status-returning (a service's try_to_bytes of a snapshot escaped its
   status handling). Nothing changes. */
void test_allocation_failures() {
    static_assert(noexcept(std::declval<const sketches::bloom_filter &>().try_to_bytes()));
    static_assert(noexcept(std::declval<const sketches::topk_const_view &>().try_list()));
    static_assert(noexcept(std::declval<const sketches::minhash_sketch &>().try_signature()));
    static_assert(noexcept(std::declval<sketches::packed_keys &>().try_push_back("k")));
    auto f = sketches::bloom_filter::create(1000, 0.01);
    static_cast<void>(f.add("alice"));
    auto t = sketches::topk_sketch::create(8, 16);
    t.add("alice", 3);
    auto m = sketches::minhash_sketch::create(64);
    static_cast<void>(m.add("alice"));
    sketches::packed_keys keys;
    keys.push_back("a");
    std::vector<std::string> many = make_keys("many-", 100);

    fail_allocations = true;
    sketches::result<std::vector<std::uint8_t>> bytes{status::ok, {}};
    sketches::result<std::vector<sketches::topk_entry>> list{status::ok, {}};
    sketches::result<std::vector<u64>> sig{status::ok, {}};
    status pushed = status::ok;
    status appended = status::ok;
    bool threw = false;
    try {
        bytes = f.try_to_bytes();
        list = t.try_list();
        sig = m.try_signature();
        pushed = keys.try_push_back("b");
        appended = keys.try_append(many);
    } catch (const std::bad_alloc &) {
        threw = true;
    }
    fail_allocations = false;
    CHECK(!threw);
    CHECK(bytes.status == status::out_of_memory && bytes.value.empty());
    CHECK(list.status == status::out_of_memory && list.value.empty());
    CHECK(sig.status == status::out_of_memory && sig.value.empty());
    CHECK(pushed == status::out_of_memory && keys.size() == 1 && keys[0] == "a");
    CHECK(appended == status::out_of_memory && keys.size() == 1 && keys.view().data_len == 1); // all or nothing
    // Nothing changed: the same calls succeed once memory is back.
    CHECK(f.try_to_bytes().value == f.to_bytes() && f.contains("alice"));
    CHECK(t.try_list().value.size() == 1 && t.list()[0].key == "alice" && t.list()[0].count == 3);
    CHECK(m.try_signature().value == m.signature());
    CHECK(keys.try_push_back("b") == status::ok && keys.size() == 2 && keys[1] == "b");
    CHECK(keys.try_append(many) == status::ok && keys.size() == 102 && keys[101] == many[99]);
    // The throwing forms still throw std::bad_alloc.
    fail_allocations = true;
    bool to_bytes_threw = false;
    try {
        static_cast<void>(f.to_bytes());
    } catch (const std::bad_alloc &) {
        to_bytes_threw = true;
    }
    fail_allocations = false;
    CHECK(to_bytes_threw);
}

/* A sketches::error names the family whose operation failed, so a service
   logging what() can tell a damaged Bloom snapshot from a damaged HLL one:
   what() was the bare status text ("checksum mismatch") for every family. */
void test_error_names_the_family() {
    auto f = sketches::bloom_filter::create(1000, 0.01);
    std::vector<std::uint8_t> bad = f.to_bytes();
    bad.back() ^= 1;
    auto family_of = [](auto &&call) -> std::string {
        try {
            call();
        } catch (const sketches::error &e) {
            return std::string(e.family()) + "|" + e.what();
        }
        return "no error";
    };
    CHECK(family_of([&] { sketches::bloom_filter::verify(bad); }) ==
          "bloom|bloom: " + std::string(sketch_status_str(SKETCH_CHECKSUM_MISMATCH)));
    CHECK(family_of([&] { static_cast<void>(sketches::hll_sketch::from_bytes(bad)); }) ==
          "hll|hll: " + std::string(sketch_status_str(SKETCH_WRONG_FAMILY)));
    CHECK(family_of([&] { static_cast<void>(sketches::sbbf_filter::create(0, 0.01)); }).rfind("sbbf|sbbf: ", 0) == 0);
    CHECK(family_of([&] { static_cast<void>(sketches::countmin_sketch::create(0.0, 0.01)); }).rfind("countmin|countmin: ", 0) == 0);
    sketches::topk_const_view empty_topk;
    CHECK(family_of([&] { static_cast<void>(empty_topk.list()); }).rfind("topk|topk: ", 0) == 0);
    CHECK(family_of([&] { static_cast<void>(sketches::fuse_filter::from_bytes(bad)); }).rfind("fuse|fuse: ", 0) == 0);
    // The free functions have no family: the status text alone.
    CHECK(family_of([&] { static_cast<void>(sketches::inspect(sketches::byte_view(bad.data(), 3))); }) ==
          "|" + std::string(sketch_status_str(SKETCH_BUFFER_TOO_SMALL)));
    sketches::error plain(status::full);
    CHECK(std::string(plain.family()).empty() && std::string(plain.what()) == sketch_status_str(SKETCH_FULL));
}

/* ---- Streams: write_to, read_from, read_sketch ---- */

/* One sketch of every family (and mode) with some keys in it, by family id
   order: the images a stream test writes back to back. */
struct stream_fixture {
    std::vector<std::string> keys = make_keys("stream-", 300);
    sketches::bloom_filter bloom = sketches::bloom_filter::create(1000, 0.01, 7);
    sketches::sbbf_filter sbbf = sketches::sbbf_filter::create(1000, 0.01);
    sketches::counting_filter counting = sketches::counting_filter::create(1000, 0.01);
    sketches::cuckoo_filter cuckoo = sketches::cuckoo_filter::create(1000, 0.01);
    sketches::hll_sketch hll_small = sketches::hll_sketch::create(12);
    sketches::hll_sketch hll_dense = sketches::hll_sketch::create(10);
    sketches::ull_sketch ull = sketches::ull_sketch::create(10);
    sketches::countmin_sketch countmin = sketches::countmin_sketch::create(0.01, 0.01);
    sketches::topk_sketch topk = sketches::topk_sketch::create(8, 16);
    sketches::minhash_sketch minhash = sketches::minhash_sketch::create(64);
    sketches::fuse_filter fuse = sketches::fuse_filter::build(keys, 0.01);
    sketches::ell_sketch ell = sketches::ell_sketch::create(sketches::ell_sketch::make_params(10));

    stream_fixture() {
        bloom.add_batch(keys);
        sbbf.add_batch(keys);
        counting.add_batch(keys);
        cuckoo.add_batch(keys);
        static_cast<void>(hll_small.add("only"));
        hll_dense.add_batch(keys);
        hll_dense.densify();
        ull.add_batch(keys);
        countmin.add_batch(keys);
        topk.add_batch(keys);
        minhash.add_batch(keys);
        ell.add_batch(keys);
    }
    /* Every image, as to_bytes gives it, with its family id. */
    std::vector<std::pair<std::uint16_t, std::vector<std::uint8_t>>> images() const {
        return {{SKETCH_FAMILY_BLOOM, bloom.to_bytes()},          {SKETCH_FAMILY_SPLIT_BLOCK_BLOOM, sbbf.to_bytes()},
                {SKETCH_FAMILY_COUNTING_BLOOM, counting.to_bytes()}, {SKETCH_FAMILY_CUCKOO, cuckoo.to_bytes()},
                {SKETCH_FAMILY_HYPERLOGLOG, hll_small.to_bytes()}, {SKETCH_FAMILY_HYPERLOGLOG, hll_dense.to_bytes()},
                {SKETCH_FAMILY_ULTRALOGLOG, ull.to_bytes()},      {SKETCH_FAMILY_COUNT_MIN, countmin.to_bytes()},
                {SKETCH_FAMILY_TOPK, topk.to_bytes()},            {SKETCH_FAMILY_MINHASH, minhash.to_bytes()},
                {SKETCH_FAMILY_BINARY_FUSE, fuse.to_bytes()},     {SKETCH_FAMILY_EXALOGLOG, ell.to_bytes()}};
    }
};

std::string as_string(const std::vector<std::uint8_t> &b) { return std::string(b.begin(), b.end()); }

/* write_to on the owning sketch, a view and a const view writes exactly
   to_bytes() and returns its length; the family's read_from reads it back
   (the same image), consuming exactly its bytes. */
template <class S>
void stream_round_trip(const S &original) {
    S s = original.clone();
    const std::vector<std::uint8_t> bytes = s.to_bytes();
    typename S::view_type v = s;
    typename S::const_view_type cv = s;
    std::stringstream io;
    CHECK(s.write_to(io) == bytes.size());
    CHECK(v.write_to(io) == bytes.size());
    sketches::result<std::size_t> w = cv.try_write_to(io);
    CHECK(w.ok() && w.value == bytes.size());
    CHECK(io.str() == as_string(bytes) + as_string(bytes) + as_string(bytes));
    for (int i = 0; i < 3; i++) {
        std::optional<S> back = S::read_from(io);
        CHECK(back && back->to_bytes() == bytes && back->size() == s.size());
        CHECK(back && reinterpret_cast<std::uintptr_t>(back->data()) % sketches::image_align == 0);
        CHECK(io.tellg() == static_cast<std::streamoff>((static_cast<std::size_t>(i) + 1) * bytes.size()));
    }
    CHECK(!S::read_from(io));
    sketches::read_result<S> end = S::try_read_from(io);
    CHECK(end.ok() && !end.value && end.bytes_read == 0);
}

/* A stream error of the image `bytes` (of family Family) cut at `cut` bytes:
   the truncated-stream length mismatch, with the bytes received of those
   announced (48 while inside the header). */
template <class Family>
void truncated_at(const std::vector<std::uint8_t> &bytes, std::size_t cut) {
    std::uint64_t of = cut < 48 ? 48 : bytes.size();
    std::string expected = "truncated stream: " + std::to_string(cut) + " of " + std::to_string(of) + " image bytes";
    std::istringstream in(std::string(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(cut)));
    sketches::read_result<Family> r = Family::try_read_from(in);
    CHECK(r.status == status::length_mismatch && !r.value && r.bytes_read == cut && r.image_bytes == of);
    CHECK(r.message() == std::string(sketches::status_text(status::length_mismatch)) + ": " + expected);
    std::istringstream again(in.str());
    sketches::read_result<sketches::any_sketch> any = sketches::try_read_sketch(again);
    CHECK(any.status == status::length_mismatch && any.message() == r.message());
    std::istringstream thrown(in.str());
    try {
        static_cast<void>(Family::read_from(thrown));
        CHECK(false);
    } catch (const sketches::error &e) {
        CHECK(e.status() == status::length_mismatch && std::string(e.what()).find(expected) != std::string::npos);
        CHECK(std::string(e.what()).rfind(e.family(), 0) == 0 && *e.family() != '\0');
    }
}

/* The damaged-image cases of one family's image: every truncation point
   of interest, a flipped body byte, a flipped hash id, a newer major
   version, another family's reader, an unknown family id and a bad magic,
   each with the status from_bytes gives the same bytes (or the header's). */
template <class Family, class Other>
void stream_refusals(const std::vector<std::uint8_t> &bytes) {
    for (std::size_t cut : {std::size_t{1}, std::size_t{8}, std::size_t{47}, std::size_t{48}, std::size_t{56},
                            bytes.size() / 2, bytes.size() - 8, bytes.size() - 1}) {
        if (cut < bytes.size()) truncated_at<Family>(bytes, cut);
    }
    auto read_status = [](const std::vector<std::uint8_t> &b) {
        std::istringstream in(as_string(b));
        sketches::read_result<Family> r = Family::try_read_from(in);
        std::istringstream in2(as_string(b));
        sketches::read_result<sketches::any_sketch> any = sketches::try_read_sketch(in2);
        check(r.status == any.status, "the family reader and read_sketch agree", __LINE__);
        return r.status;
    };
    std::vector<std::uint8_t> bad = bytes;
    bad[bad.size() - 9] ^= 0x10; // near the end (a compact HLL's hash count in its header refuses it first)
    CHECK(read_status(bad) == Family::try_from_bytes(bad).status && read_status(bad) != status::ok);
    bad = bytes;
    bad[bad.size() - 1] ^= 0x01; // the last byte: covered by the checksum in every family
    CHECK(read_status(bad) == Family::try_from_bytes(bad).status && read_status(bad) == status::checksum_mismatch);
    bad = bytes;
    bad[8] ^= 0x40; // the hash id: damage, not a newer writer, as from_bytes says
    CHECK(read_status(bad) == Family::try_from_bytes(bad).status && read_status(bad) != status::ok);
    bad = bytes;
    bad[4] = 9; // a newer major version
    CHECK(read_status(bad) == status::unsupported_version && Family::try_from_bytes(bad).status == status::unsupported_version);
    bad = bytes;
    bad[0] = 'X';
    CHECK(read_status(bad) == status::bad_magic);
    bad = bytes;
    bad[6] = 99; // an unknown family id
    bad[7] = 0;
    CHECK(read_status(bad) == status::corrupt_header);
    std::istringstream unknown(as_string(bad));
    sketches::read_result<sketches::any_sketch> u = sketches::try_read_sketch(unknown);
    CHECK(u.status == status::corrupt_header && u.bytes_read == 48 && u.family_id == 99);
    CHECK(u.message() == std::string(sketches::status_text(status::corrupt_header)) + ": unknown family id 99");
    std::istringstream unknown2(as_string(bad));
    try {
        static_cast<void>(sketches::read_sketch(unknown2));
        CHECK(false);
    } catch (const sketches::error &e) {
        CHECK(e.status() == status::corrupt_header && *e.family() == '\0' &&
              std::string(e.what()).find("unknown family id 99") != std::string::npos);
    }
    // Another family's reader refuses the header before the body is read.
    std::istringstream other(as_string(bytes));
    sketches::read_result<Other> o = Other::try_read_from(other);
    CHECK(o.status == status::wrong_family && o.bytes_read == 48 && other.tellg() == 48);
    std::istringstream other2(as_string(bytes));
    try {
        static_cast<void>(Other::read_from(other2));
        CHECK(false);
    } catch (const sketches::error &e) {
        CHECK(e.status() == status::wrong_family &&
              std::string(e.what()).find(std::string("the stream holds a ")) != std::string::npos);
    }
}

/* An output stream buffer that takes `room` bytes, then refuses. */
class limited_buf : public std::streambuf {
  public:
    explicit limited_buf(std::size_t room) : room_(room) {}
    std::string taken;

  protected:
    int_type overflow(int_type c) override {
        if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
        if (room_ == 0) return traits_type::eof();
        room_--;
        taken.push_back(traits_type::to_char_type(c));
        return c;
    }
    std::streamsize xsputn(const char *s, std::streamsize n) override {
        std::size_t k = std::min(static_cast<std::size_t>(n), room_);
        taken.append(s, k);
        room_ -= k;
        return static_cast<std::streamsize>(k);
    }

  private:
    std::size_t room_;
};

/* An input stream buffer over `data` whose device fails (throws) once
   `fail_at` bytes have been read. */
class failing_buf : public std::streambuf {
  public:
    failing_buf(std::string data, std::size_t fail_at) : data_(std::move(data)), fail_at_(fail_at) {}

  protected:
    int_type underflow() override {
        if (pos_ >= fail_at_) throw std::runtime_error("device error");
        if (pos_ >= data_.size()) return traits_type::eof();
        std::size_t end = std::min(data_.size(), fail_at_);
        setg(&data_[pos_], &data_[pos_], &data_[0] + end);
        pos_ = end;
        return traits_type::to_int_type(*gptr());
    }

  private:
    std::string data_;
    std::size_t fail_at_;
    std::size_t pos_ = 0;
};

void test_streams() {
    using namespace sketches;
    stream_fixture fx;
    // Every family back to back in one stream; read_sketch gives each as
    // its family's type, in order, then "no image" at the clean end.
    std::stringstream io;
    std::size_t total = 0;
    total += fx.bloom.write_to(io);
    total += sbbf_view(fx.sbbf).write_to(io);
    total += counting_const_view(fx.counting).write_to(io);
    total += fx.cuckoo.write_to(io);
    total += fx.hll_small.write_to(io);
    total += fx.hll_dense.write_to(io);
    total += fx.ull.write_to(io);
    total += fx.countmin.write_to(io);
    total += fx.topk.write_to(io);
    total += fx.minhash.write_to(io);
    total += fx.fuse.write_to(io);
    total += fx.ell.write_to(io);
    std::string expected;
    for (const auto &image : fx.images()) expected += as_string(image.second);
    CHECK(io.str() == expected && total == expected.size());
    // A small HyperLogLog's export is compact: shorter than its live image.
    CHECK(fx.hll_small.to_bytes().size() < fx.hll_small.size());
    std::size_t at = 0;
    for (const auto &image : fx.images()) {
        std::optional<any_sketch> s = read_sketch(io);
        at += image.second.size();
        CHECK(s && s->index() + 1 == image.first && io.tellg() == static_cast<std::streamoff>(at));
        if (s) CHECK(std::visit([](const auto &sk) { return sk.to_bytes(); }, *s) == image.second);
    }
    CHECK(!read_sketch(io));
    read_result<any_sketch> end = try_read_sketch(io);
    CHECK(end.ok() && !end.value && end.bytes_read == 0 && end.message() == status_text(status::ok));
    // The read HyperLogLogs are their live images again.
    {
        std::stringstream hs;
        fx.hll_small.write_to(hs);
        std::optional<hll_sketch> h = hll_sketch::read_from(hs);
        hll_sketch imported = hll_sketch::from_bytes(fx.hll_small.to_bytes());
        CHECK(h && same_image(*h, imported) && h->size() == fx.hll_small.size());
        CHECK(h && h->estimate() == fx.hll_small.estimate() && h->to_bytes() == fx.hll_small.to_bytes());
    }
    stream_round_trip(fx.bloom);
    stream_round_trip(fx.sbbf);
    stream_round_trip(fx.counting);
    stream_round_trip(fx.cuckoo);
    stream_round_trip(fx.hll_small);
    stream_round_trip(fx.hll_dense);
    stream_round_trip(fx.ull);
    stream_round_trip(fx.countmin);
    stream_round_trip(fx.topk);
    stream_round_trip(fx.minhash);
    stream_round_trip(fx.fuse);
    stream_round_trip(fx.ell);
    // A split-block view folded in place writes the folded image (the
    // header's length), not the rest of its buffer, as to_bytes does.
    {
        sbbf_filter big = sbbf_filter::create(sbbf_filter::plan_parquet(100000, 0.01, parquet_sizing::arrow_cpp));
        big.add_batch(fx.keys);
        sbbf_view folded = big;
        folded.fold(2);
        std::stringstream fs;
        CHECK(folded.write_to(fs) == folded.to_bytes().size() && fs.str() == as_string(folded.to_bytes()));
        // The owner keeps its longer buffer and writes the folded image too.
        CHECK(folded.to_bytes().size() < big.size() && big.to_bytes() == folded.to_bytes());
        CHECK(big.write_to(fs) == folded.to_bytes().size());
        CHECK(fs.str() == as_string(folded.to_bytes()) + as_string(folded.to_bytes()));
    }

    stream_refusals<bloom_filter, minhash_sketch>(fx.bloom.to_bytes());
    stream_refusals<sbbf_filter, bloom_filter>(fx.sbbf.to_bytes());
    stream_refusals<counting_filter, bloom_filter>(fx.counting.to_bytes());
    stream_refusals<cuckoo_filter, bloom_filter>(fx.cuckoo.to_bytes());
    stream_refusals<hll_sketch, ull_sketch>(fx.hll_small.to_bytes());
    stream_refusals<hll_sketch, ull_sketch>(fx.hll_dense.to_bytes());
    stream_refusals<ull_sketch, hll_sketch>(fx.ull.to_bytes());
    stream_refusals<countmin_sketch, bloom_filter>(fx.countmin.to_bytes());
    stream_refusals<topk_sketch, bloom_filter>(fx.topk.to_bytes());
    stream_refusals<minhash_sketch, bloom_filter>(fx.minhash.to_bytes());
    stream_refusals<fuse_filter, bloom_filter>(fx.fuse.to_bytes());
    stream_refusals<ell_sketch, ull_sketch>(fx.ell.to_bytes());

    // A header announcing 1 TiB on a short stream: a truncated-stream error
    // once the stream ends, after buffers of about what arrived (no
    // std::bad_alloc, no allocation of the announced length).
    {
        std::vector<std::uint8_t> forged = fx.bloom.to_bytes();
        const std::uint64_t huge = std::uint64_t{1} << 40;
        for (std::size_t i = 0; i < 8; i++) forged[24 + i] = static_cast<std::uint8_t>(huge >> (8 * i));
        std::string short_stream = as_string(forged) + std::string(200000, '\0');
        std::istringstream in(short_stream);
        largest_aligned = 0;
        bool bad_alloc = false;
        read_result<any_sketch> r;
        try {
            r = try_read_sketch(in);
        } catch (const std::bad_alloc &) {
            bad_alloc = true;
        }
        CHECK(!bad_alloc && r.status == status::length_mismatch && r.bytes_read == short_stream.size());
        CHECK(r.image_bytes == huge);
        CHECK(r.message().find("truncated stream: " + std::to_string(short_stream.size()) + " of " +
                               std::to_string(huge) + " image bytes") != std::string::npos);
        CHECK(largest_aligned.load() <= 4 * short_stream.size());
        std::istringstream again(short_stream);
        EXPECT_STREAM_ERROR(bloom_filter::read_from(again), status::length_mismatch);
    }

    // Output streams: one in a failed state writes nothing and reports
    // stream_error; one whose device refuses bytes part way reports it too
    // (not success); with exceptions() enabled the stream's own exception
    // reaches the throwing form's caller.
    {
        std::ostringstream failed_state;
        failed_state.setstate(std::ios::failbit);
        result<std::size_t> w = fx.bloom.try_write_to(failed_state);
        CHECK(w.status == status::stream_error && w.value == 0 && failed_state.str().empty());
        EXPECT_STREAM_ERROR(fx.bloom.write_to(failed_state), status::stream_error);
        for (std::size_t room : {std::size_t{0}, std::size_t{10}, std::size_t{48}, std::size_t{100}}) {
            limited_buf device(room);
            std::ostream out(&device);
            CHECK(fx.hll_dense.try_write_to(out).status == status::stream_error && out.bad());
            limited_buf compact(room);
            std::ostream out2(&compact);
            CHECK(fx.hll_small.try_write_to(out2).status == status::stream_error && out2.bad());
        }
        limited_buf device(10);
        std::ostream out(&device);
        out.exceptions(std::ios::badbit);
        bool stream_threw = false;
        try {
            fx.bloom.write_to(out);
        } catch (const sketches::error &) {
        } catch (const std::ios_base::failure &) {
            stream_threw = true;
        }
        CHECK(stream_threw);
        limited_buf device2(10);
        std::ostream out2(&device2);
        out2.exceptions(std::ios::badbit);
        CHECK(fx.bloom.try_write_to(out2).status == status::stream_error);
        // The live image's errors come first: an empty owning sketch.
        bloom_filter empty;
        std::ostringstream nothing;
        CHECK(empty.try_write_to(nothing).status == status::buffer_too_small && nothing.str().empty());
    }

    // Input streams: a failed state that is not the end is stream_error; a
    // device that fails inside an image is stream_error (the throwing form
    // passes the device's exception on when the stream's exceptions() mask
    // asks for it); an exceptions() mask on eof/fail changes nothing.
    {
        const std::string image = as_string(fx.bloom.to_bytes());
        std::istringstream failed_state(image);
        failed_state.setstate(std::ios::failbit);
        read_result<bloom_filter> r = bloom_filter::try_read_from(failed_state);
        CHECK(r.status == status::stream_error && !r.value);
        CHECK(r.message() == std::string(status_text(status::stream_error)) +
                                 ": the stream failed before an image's first byte");
        for (std::size_t fail_at : {std::size_t{0}, std::size_t{20}, std::size_t{48}, image.size() / 2}) {
            failing_buf device(image + image, fail_at);
            std::istream in(&device);
            read_result<any_sketch> f = try_read_sketch(in);
            CHECK(f.status == status::stream_error && !f.value && f.bytes_read <= fail_at);
            failing_buf device2(image, fail_at);
            std::istream in2(&device2);
            EXPECT_STREAM_ERROR(bloom_filter::read_from(in2), status::stream_error);
            failing_buf device3(image, fail_at);
            std::istream in3(&device3);
            in3.exceptions(std::ios::badbit);
            bool device_error = false;
            try {
                static_cast<void>(read_sketch(in3));
            } catch (const sketches::error &) {
            } catch (const std::ios_base::failure &) {
                device_error = true; // a library that wraps the device's exception
            } catch (const std::runtime_error &e) {
                device_error = std::string(e.what()) == "device error";
            }
            CHECK(device_error);
        }
        std::istringstream masked(image + image.substr(0, 100));
        masked.exceptions(std::ios::eofbit | std::ios::failbit | std::ios::badbit);
        CHECK(bloom_filter::try_read_from(masked).ok());
        CHECK(bloom_filter::try_read_from(masked).status == status::length_mismatch);
        std::istringstream masked_end(image);
        masked_end.exceptions(std::ios::eofbit | std::ios::failbit);
        CHECK(bloom_filter::read_from(masked_end).has_value() && !bloom_filter::read_from(masked_end));
        std::istringstream empty_stream;
        CHECK(!read_sketch(empty_stream) && !bloom_filter::read_from(empty_stream));
    }
}

int main() {
    struct {
        const char *name;
        void (*run)();
    } const tests[] = {{"basics", test_basics},     {"keys", test_keys},   {"bloom", test_bloom},
                       {"sbbf", test_sbbf},         {"counting", test_counting}, {"cuckoo", test_cuckoo},
                       {"hll", test_hll},           {"ull", test_ull},     {"countmin", test_countmin},
                       {"topk", test_topk},         {"minhash", test_minhash}, {"fuse", test_fuse},
                       {"ell", test_ell},           {"tokens", test_tokens}, {"parquet", test_parquet},
                       {"concurrent", test_concurrent}, {"golden", test_golden},
                       {"signed keys", test_signed_keys}, {"merge with itself", test_merge_with_itself},
                       {"negative weights", test_negative_weights},
                       {"allocation failures", test_allocation_failures},
                       {"error names the family", test_error_names_the_family},
                       {"streams", test_streams}};
    for (const auto &t : tests) {
        try {
            t.run();
        } catch (const std::exception &e) {
            failed++;
            std::fprintf(stderr, "test_%s: unexpected exception: %s\n", t.name, e.what());
        }
    }
    std::printf("cpp_test (C++%ld): %d passed, %d failed\n", (__cplusplus / 100) % 100, passed, failed);
    return failed == 0 ? 0 : 1;
}
