// The status-returning forms of include/sketches.hpp, built with
// -fno-exceptions (as proxies and firmware build): SKETCHES_EXCEPTIONS is 0,
// the throwing forms are not declared, and every family works through its
// try_ forms, reporting the C statuses (and out_of_memory) by value.
// Built and run by tests/tests/cpp.rs. Prints "N passed, N failed".
#include "sketches.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#error "build this test with -fno-exceptions"
#endif
static_assert(SKETCHES_EXCEPTIONS == 0, "no exceptions: only the try_ forms");

namespace {

int passed = 0;
int failed = 0;

void check(bool ok, const char *what, int line) {
    if (ok) {
        passed++;
    } else {
        failed++;
        std::fprintf(stderr, "cpp_noexcept_test.cpp:%d: check failed: %s\n", line, what);
    }
}
#define CHECK(cond) check(static_cast<bool>(cond), #cond, __LINE__)

using sketches::status;
using u64 = std::uint64_t;

/* The throwing forms do not exist in this build. */
template <class T, class = void>
struct has_throwing_add : std::false_type {};
template <class T>
struct has_throwing_add<T, std::void_t<decltype(std::declval<T &>().add(std::string_view()))>> : std::true_type {};
template <class T, class = void>
struct has_throwing_create : std::false_type {};
template <class T>
struct has_throwing_create<T, std::void_t<decltype(T::create(std::uint64_t{1}, 0.1))>> : std::true_type {};
template <class T, class = void>
struct has_try_add : std::false_type {};
template <class T>
struct has_try_add<T, std::void_t<decltype(std::declval<T &>().try_add(std::string_view()))>> : std::true_type {};
static_assert(!has_throwing_add<sketches::bloom_filter>::value && !has_throwing_add<sketches::hll_sketch>::value);
static_assert(!has_throwing_create<sketches::bloom_filter>::value);
static_assert(has_try_add<sketches::bloom_filter>::value && has_try_add<sketches::topk_view>::value);
// The try_ forms are noexcept.
static_assert(noexcept(std::declval<sketches::bloom_filter &>().try_add(std::string_view())));
static_assert(noexcept(sketches::bloom_filter::try_create(std::uint64_t{1}, 0.1)));
static_assert(noexcept(sketches::cuckoo_filter::try_from_bytes(sketches::byte_view())));

std::vector<std::string> make_keys(const char *prefix, int n) {
    std::vector<std::string> keys;
    for (int i = 0; i < n; i++) keys.push_back(prefix + std::to_string(i));
    return keys;
}

template <class A, class B>
bool same_image(const A &a, const B &b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size()) == 0;
}

/* The round trip every family shares, through try_ forms only. */
template <class Sketch>
void check_round_trip(const Sketch &s) {
    sketches::result<std::vector<std::uint8_t>> bytes = s.try_to_bytes();
    CHECK(bytes.ok() && !bytes.value.empty());
    CHECK(Sketch::try_verify(bytes.value) == status::ok);
    sketches::result<typename Sketch::owned_type> back = Sketch::try_from_bytes(bytes.value);
    CHECK(back.ok() && back->try_to_bytes().value == bytes.value);
    sketches::result<typename Sketch::owned_type> copy = s.try_clone();
    CHECK(copy.ok() && same_image(*copy, s));
    std::vector<std::uint8_t> damaged = bytes.value;
    damaged[damaged.size() - 1] ^= 0x10;
    CHECK(Sketch::try_from_bytes(damaged).status == status::checksum_mismatch);
    CHECK(Sketch::try_verify(std::string_view("short")) != status::ok);
    std::vector<std::uint8_t> out(bytes.value.size());
    sketches::result<std::size_t> w = s.try_export_to(out.data(), out.size());
    CHECK(w.ok() && w.value == bytes.value.size() && out == bytes.value);
    CHECK(s.try_export_to(out.data(), 3).status == status::buffer_too_small);
    CHECK(s.try_stats().ok());
    // Into caller memory.
    sketches::result<std::uint64_t> need = Sketch::try_import_size(bytes.value);
    CHECK(need.ok() && need.value == back->size());
    CHECK(Sketch::try_import_size(damaged).status == status::checksum_mismatch);
    std::size_t len = back->size();
    void *mem = std::aligned_alloc(64, (len + 63) / 64 * 64);
    sketches::result<typename Sketch::view_type> view = Sketch::try_from_bytes(bytes.value, mem, len);
    CHECK(view.ok() && view->data() == mem);
    typename Sketch::const_view_type cv = *view;
    CHECK(cv.try_stats().ok());
    if constexpr (Sketch::has_clear) {
        CHECK(view->try_clear() == status::ok);
    }
    std::free(mem);
    // What a move leaves behind.
    typename Sketch::owned_type moved = std::move(back.value);
    CHECK(back.value.size() == 0 && back.value.try_stats().status == status::buffer_too_small);
    CHECK(moved.try_stats().ok());
}

void test_filters() {
    // Bloom
    sketches::result<sketches::bloom_params> p = sketches::bloom_filter::try_plan(1000, 0.01);
    CHECK(p.ok() && p->hashes == 7);
    CHECK(sketches::bloom_filter::try_plan(0, 0.01).status == status::invalid_parameter);
    CHECK(sketches::bloom_filter::try_plan_bits(64, 0).status == status::invalid_parameter);
    CHECK(sketches::bloom_filter::try_create(1000, 2.0).status == status::invalid_parameter);
    sketches::result<sketches::bloom_filter> bf = sketches::bloom_filter::try_create(*p, 3);
    CHECK(bf.ok());
    sketches::bloom_filter f = std::move(bf.value);
    sketches::result<bool> added = f.try_add("alice");
    CHECK(added.ok() && added.value);
    CHECK(f.try_add("alice").value == false);
    CHECK(f.try_add(u64{7}).ok() && f.try_add_hash(sketches::hash("h", 3)).ok());
    CHECK(f.try_contains("alice").value && !f.try_contains("bob").value && f.try_contains(u64{7}).value);
    CHECK(f.try_contains_hash(sketches::hash("h", 3)).value);
    std::vector<std::string> keys = make_keys("k", 100);
    std::array<bool, 100> out{};
    CHECK(f.try_add_batch(keys) == status::ok);
    CHECK(f.try_contains_batch(keys, out) == status::ok && out[0] && out[99]);
    std::array<bool, 3> small{};
    CHECK(f.try_contains_batch(keys, small) == status::buffer_too_small);
    CHECK(f.try_add_concurrent("carol").value && !f.try_add_concurrent("carol").value);
    CHECK(f.try_contains_concurrent_batch(keys, out) == status::ok && out[0] && out[99]);
    CHECK(f.try_contains_concurrent_batch(keys, small) == status::buffer_too_small);
    sketches::packed_keys packed;
    for (const auto &k : keys) CHECK(packed.try_push_back(k) == status::ok);
    CHECK(f.try_contains_batch(packed.view(), out) == status::ok && out[50]);
    // Packed from a container without the exception-only constructor:
    // try_append (which did not exist, so a -fno-exceptions build packed a
    // container key by key), the same keys as try_push_back one by one.
    sketches::packed_keys appended;
    CHECK(appended.try_append(keys) == status::ok && appended.size() == packed.size());
    CHECK(appended.view().data_len == packed.view().data_len && appended[50] == packed[50]);
    CHECK(appended.try_append(std::vector<std::string_view>{"x", "yz"}) == status::ok && appended.size() == packed.size() + 2);
    CHECK(appended[packed.size() + 1] == "yz");
    std::vector<u64> ints{1, 2, 3};
    CHECK(f.try_add_batch(ints) == status::ok && f.try_add_hash_batch(ints) == status::ok);
    CHECK(f.try_contains_hash_batch(ints, small) == status::ok && small[0]);
    CHECK(f.try_capacity_flags().ok() && f.try_capacity_flags().value == 0);
    sketches::bloom_filter g = std::move(sketches::bloom_filter::try_create(*p, 3).value);
    CHECK(g.try_merge(f) == status::ok && g.try_contains("alice").value);
    CHECK(g.try_intersect(f) == status::ok);
    CHECK(g.try_merge(g) == status::ok); // merges a copy of itself
    CHECK(g.try_merge(sketches::bloom_filter::try_create(*p, 4).value) == status::incompatible);
    check_round_trip(f);
    // Allocation failure is a status here (std::bad_alloc in the throwing form).
    sketches::result<sketches::bloom_params> huge = sketches::bloom_filter::try_plan_bits(u64{1} << 56, 7);
    CHECK(huge.ok() && sketches::bloom_filter::try_create(*huge).status == status::out_of_memory);
    // A filter in caller memory on the stack.
    alignas(64) unsigned char stack[1024];
    sketches::bloom_params sp = sketches::bloom_filter::try_plan_bits(2048, 3).value;
    sketches::result<sketches::bloom_view> sv = sketches::bloom_view::try_init(stack, sizeof stack, sp, 1);
    CHECK(sv.ok() && sv->try_add("x").value && sv->try_contains("x").value);
    CHECK(sketches::bloom_view::try_init(stack + 1, sizeof stack - 8, sp, 1).status == status::misaligned);

    // Split-block
    sketches::result<sketches::sbbf_filter> sb = sketches::sbbf_filter::try_create(1000, 0.01, 2);
    CHECK(sb.ok() && sb->try_add("x").value && sb->try_contains("x").value && sb->try_bitset().ok());
    CHECK(sketches::sbbf_filter::try_plan_parquet(1000, 0.01).ok());
    CHECK(sketches::sbbf_filter::try_plan_blocks(4, 9).status == status::invalid_parameter);
    CHECK(sb->try_add_batch(keys) == status::ok);
    check_round_trip(*sb);
    // Parquet interop: sizing rules, folds, bitsets read out of files.
    sketches::result<sketches::sbbf_params> pq =
        sketches::sbbf_filter::try_plan_parquet(8192, 0.01, sketches::parquet_sizing::arrow_cpp);
    sketches::result<sketches::sbbf_filter> wide = sketches::sbbf_filter::try_create(pq.value);
    CHECK(pq.ok() && wide.ok() && wide->try_add_hash(sketches::parquet_hash_i32(5)).value);
    std::size_t wide_before = wide->size();
    sketches::result<std::uint32_t> folds = wide->try_fold_to_target_fpp(0.01);
    CHECK(folds.ok() && folds.value > 0 && wide->size() < wide_before && wide->try_contains_hash(sketches::parquet_hash_i32(5)).value);
    CHECK(wide->try_fold(40) == status::invalid_argument);
    sketches::result<sketches::sbbf_filter> read = sketches::sbbf_filter::try_from_parquet_bitset(wide->try_bitset().value, 0.01);
    CHECK(read.ok() && read->try_contains_hash(sketches::parquet_hash_i32(5)).value);
    CHECK(sketches::sbbf_filter::try_from_parquet_bitset(sketches::byte_view("abc", 3), 0.01).status == status::invalid_argument);
    // Narrow integer batches on a Parquet-mode filter hashed as INT64: refused.
    const std::int32_t int32s[2] = {5, 6};
    bool present[2] = {};
    CHECK(read->try_contains_batch(int32s, present) == status::invalid_argument);
    CHECK(read->try_add_batch(int32s) == status::invalid_argument);
    CHECK(read->try_contains_batch(std::array<std::int64_t, 2>{5, 6}, present) == status::ok);

    // Counting
    sketches::result<sketches::counting_filter> cf = sketches::counting_filter::try_create(1000, 0.01, 2);
    CHECK(cf.ok() && cf->try_add("x").ok() && cf->try_remove("x") == status::ok);
    CHECK(cf->try_remove("x") == status::not_present);
    std::array<bool, 100> removed{};
    CHECK(cf->try_add_batch(keys) == status::ok && cf->try_remove_batch(keys, removed) == status::ok && removed[7]);
    CHECK(cf->try_remove_batch(keys, removed) == status::ok && !removed[7]);
    CHECK(cf->try_merge(*cf) == status::ok); // merges a copy of itself
    check_round_trip(*cf);

    // Cuckoo: full is a status.
    sketches::result<sketches::cuckoo_params> cp = sketches::cuckoo_filter::try_plan_buckets(2, 8);
    sketches::result<sketches::cuckoo_filter> cu = sketches::cuckoo_filter::try_create(*cp, 1);
    CHECK(cu.ok());
    status last = status::ok;
    for (u64 i = 0; i < 64 && last == status::ok; i++) last = cu->try_add(i);
    CHECK(last == status::full);
    std::array<bool, 3> placed{};
    CHECK(cu->try_add_batch(ints, placed) == status::ok);
    CHECK(cu->try_add_batch(ints) == status::ok); // the wrapper supplies the required output
    sketches::cuckoo_filter big = std::move(sketches::cuckoo_filter::try_create(1000, 0.01, 1).value);
    CHECK(big.try_add("a") == status::ok && big.try_count("a").value == 1 && big.try_remove("a") == status::ok);
    CHECK(big.try_remove("a") == status::not_present);
    CHECK(cu->try_merge(big) == status::incompatible);
    sketches::cuckoo_filter donor = std::move(sketches::cuckoo_filter::try_create(*cp, 1).value);
    for (u64 i = 100; i < 106; i++) (void)donor.try_add(i);
    CHECK(cu->try_merge(donor) == status::full);
    check_round_trip(big);
}

void test_counters() {
    // HyperLogLog, with the compact small-mode round trip.
    sketches::result<sketches::hll_sketch> h = sketches::hll_sketch::try_create(12, 5);
    CHECK(h.ok() && h->try_add("a").value && !h->try_add("a").value);
    CHECK(sketches::hll_sketch::try_create(2).status == status::invalid_parameter);
    CHECK(h->try_estimate().value == 1.0 && h->try_register_estimate().ok());
    sketches::result<std::size_t> compact = h->try_exported_size();
    CHECK(compact.ok() && compact.value < h->size());
    check_round_trip(*h);
    std::vector<std::string> keys = make_keys("h", 5000);
    CHECK(h->try_add_batch(keys) == status::ok);
    sketches::result<sketches::hll_sketch> low = h->try_downsize(10);
    CHECK(low.ok() && low->try_stats().value.precision == 10);
    CHECK(h->try_merge(*low) == status::incompatible && low->try_merge(*h) == status::ok);
    // Concurrent adds: a small-mode sketch is refused until densified.
    sketches::result<sketches::hll_sketch> hc = sketches::hll_sketch::try_create(12, 5);
    CHECK(hc.ok() && hc->try_add_concurrent("a").status == status::small_mode);
    CHECK(hc->try_densify() == status::ok && hc->try_add_concurrent("a").value);
    CHECK(hc->try_add_concurrent_batch(keys) == status::ok && hc->try_estimate_concurrent().value > 4000);

    // UltraLogLog
    sketches::result<sketches::ull_sketch> u = sketches::ull_sketch::try_create(12, 5);
    CHECK(u.ok() && u->try_add_batch(keys) == status::ok);
    CHECK(u->try_estimate().ok() && u->try_ml_estimate().ok() && u->try_register_estimate().ok());
    CHECK(u->try_add_concurrent_batch(keys) == status::ok && !u->try_add_concurrent("h7").value);
    CHECK(u->try_estimate_concurrent().value == u->try_register_estimate().value);
    sketches::result<sketches::hll_sketch> converted = u->try_to_hll();
    CHECK(converted.ok() && converted->try_estimate().value > 4000);
    check_round_trip(*u);

    // Count-Min
    sketches::result<sketches::countmin_sketch> c = sketches::countmin_sketch::try_create(0.01, 0.01, 1);
    CHECK(c.ok() && c->try_add("a", 3) == status::ok && c->try_estimate("a").value >= 3);
    std::array<u64, 2> w{{1, 2}};
    CHECK(c->try_add_batch(keys, w) == status::invalid_argument);
    std::vector<u64> est(keys.size());
    CHECK(c->try_add_batch(keys) == status::ok && c->try_estimate_batch(keys, est) == status::ok && est[0] >= 1);
    check_round_trip(*c);

    // Top-k
    sketches::result<sketches::topk_sketch> t = sketches::topk_sketch::try_create(16, 8, 1);
    CHECK(t.ok() && t->try_add("apple", 5) == status::ok);
    CHECK(t->try_add("much too long") == status::key_too_long);
    sketches::result<std::vector<sketches::topk_entry>> list = t->try_list();
    CHECK(list.ok() && list->size() == 1 && (*list)[0].key == "apple" && (*list)[0].count == 5);
    std::array<sketches::topk_item, 4> items{};
    sketches::result<std::size_t> n = t->try_list_into(items);
    CHECK(n.ok() && n.value == 1 && items[0].key_len == 5);
    CHECK(t->try_estimate("apple").value.listed);
    check_round_trip(*t);

    // MinHash
    sketches::result<sketches::minhash_sketch> m = sketches::minhash_sketch::try_create(64, 1);
    CHECK(m.ok() && m->try_add_batch(keys) == status::ok);
    sketches::result<sketches::minhash_sketch> m2 = m->try_clone();
    CHECK(m->try_jaccard(*m2).value == 1.0);
    std::vector<u64> sig(64), wrong(3);
    CHECK(m->try_signature_into(sig) == status::ok && m->try_signature_into(wrong) == status::invalid_argument);
    CHECK(m->try_signature().value == sig);
    check_round_trip(*m);
}

void test_new_families() {
    // Binary fuse: built, never added to; no clear in this family.
    static_assert(!sketches::fuse_filter::has_clear);
    std::vector<std::string> keys = make_keys("z", 2000);
    sketches::result<sketches::fuse_filter> f = sketches::fuse_filter::try_build(keys, 0.01, 3);
    CHECK(f.ok() && f->try_contains(keys[7]).value && f->try_stats().value.keys == 2000);
    std::array<bool, 3> small{};
    CHECK(f->try_contains_batch(keys, small) == status::buffer_too_small);
    std::vector<u64> ints{10, 20, 30};
    sketches::result<sketches::fuse_filter> fi = sketches::fuse_filter::try_build(ints, 0.001, 3);
    CHECK(fi.ok() && fi->try_contains(u64{20}).value && fi->try_stats().value.params.fingerprint_bits == 16);
    CHECK(fi->try_contains_batch(ints, small) == status::ok && small[0] && small[1] && small[2]);
    CHECK(sketches::fuse_filter::try_build(keys, sketches::fuse_filter::try_plan_bits(5, 8).value).status ==
          status::invalid_argument);
    CHECK(sketches::fuse_filter::try_build(keys, 2.0).status == status::invalid_parameter);
    sketches::result<sketches::fuse_params> p = sketches::fuse_filter::try_plan_bits(2000, 8);
    sketches::result<std::uint64_t> bytes = sketches::fuse_filter::try_image_size(*p);
    sketches::result<std::uint64_t> work = sketches::fuse_filter::try_scratch_size(*p);
    CHECK(p.ok() && bytes.ok() && work.ok());
    // Sizes are uint64_t; these small ones fit any size_t (32-bit builds too).
    std::vector<u64> image(static_cast<std::size_t>(bytes.value / 8)),
        scratch(static_cast<std::size_t>(work.value / 8 + 1));
    sketches::result<sketches::fuse_view> v = sketches::fuse_filter::try_build_into(
        image.data(), image.size() * 8, scratch.data(), scratch.size() * 8, keys, *p, 3);
    CHECK(v.ok() && same_image(*v, *f));
    CHECK(sketches::fuse_filter::try_build_hashes_into(image.data(), image.size() * 8, scratch.data(), 64,
                                                        ints, *p, 3)
              .status == status::buffer_too_small);
    std::vector<u64> hashes(keys.size());
    CHECK(sketches::try_hash_batch(keys, 3, hashes) == status::ok);
    CHECK(sketches::fuse_filter::try_build_hashes(hashes, *p, 3).value.try_to_bytes().value == f->try_to_bytes().value);
    check_round_trip(*f);

    // ExaLogLog
    sketches::result<sketches::ell_sketch> e = sketches::ell_sketch::try_create(sketches::ell_sketch::make_params(12), 5);
    CHECK(e.ok() && e->try_add("a").value && !e->try_add("a").value);
    CHECK(sketches::ell_sketch::try_create(sketches::ell_sketch::make_params(1)).status == status::invalid_parameter);
    CHECK(e->try_add_batch(keys) == status::ok && e->try_add_hash_batch(ints) == status::ok);
    CHECK(e->try_estimate().ok() && e->try_ml_estimate().ok() && e->try_martingale_estimate().value > 1900);
    sketches::result<sketches::ell_sketch> low = e->try_downsize(sketches::ell_sketch::make_params(10));
    CHECK(low.ok() && low->try_stats().value.params.precision == 10);
    CHECK(e->try_merge(*low) == status::incompatible && low->try_merge(*e) == status::ok);
    CHECK(sketches::ell_sketch::try_plan(0.02).value.precision == 9);
    check_round_trip(*e);
}

/* The stream members exist only as try_ forms here, noexcept, and report
   every outcome by value: the clean end (ok, no value), a truncated image
   (length_mismatch with its message), a failed stream (stream_error), a
   forged huge length (length_mismatch, not an allocation of it). */
template <class T, class = void>
struct has_throwing_read : std::false_type {};
template <class T>
struct has_throwing_read<T, std::void_t<decltype(T::read_from(std::declval<std::istream &>()))>> : std::true_type {};
template <class T, class = void>
struct has_throwing_write : std::false_type {};
template <class T>
struct has_throwing_write<T, std::void_t<decltype(std::declval<const T &>().write_to(std::declval<std::ostream &>()))>>
    : std::true_type {};
static_assert(!has_throwing_read<sketches::bloom_filter>::value && !has_throwing_write<sketches::hll_sketch>::value);
static_assert(noexcept(sketches::bloom_filter::try_read_from(std::declval<std::istream &>())));
static_assert(noexcept(std::declval<const sketches::topk_const_view &>().try_write_to(std::declval<std::ostream &>())));
static_assert(noexcept(sketches::try_read_sketch(std::declval<std::istream &>())));

void test_streams() {
    std::vector<std::string> keys = make_keys("s", 500);
    sketches::result<sketches::bloom_filter> b = sketches::bloom_filter::try_create(1000, 0.01);
    sketches::result<sketches::hll_sketch> h = sketches::hll_sketch::try_create(11);
    sketches::result<sketches::topk_sketch> t = sketches::topk_sketch::try_create(8, 16);
    CHECK(b.ok() && h.ok() && t.ok() && b->try_add_batch(keys) == status::ok && h->try_add("one").ok());
    CHECK(t->try_add_batch(keys) == status::ok);
    std::stringstream io;
    sketches::result<std::size_t> wb = b->try_write_to(io);
    sketches::result<std::size_t> wh = sketches::hll_const_view(*h).try_write_to(io);
    sketches::result<std::size_t> wt = sketches::topk_view(*t).try_write_to(io);
    CHECK(wb.ok() && wh.ok() && wt.ok());
    std::vector<std::uint8_t> bb = b->try_to_bytes().value, hb = h->try_to_bytes().value, tb = t->try_to_bytes().value;
    CHECK(wb.value == bb.size() && wh.value == hb.size() && wt.value == tb.size());
    CHECK(io.str() == std::string(bb.begin(), bb.end()) + std::string(hb.begin(), hb.end()) +
                          std::string(tb.begin(), tb.end()));
    sketches::read_result<sketches::bloom_filter> rb = sketches::bloom_filter::try_read_from(io);
    CHECK(rb.ok() && rb.value && rb.value->try_contains(keys[3]).value && rb.bytes_read == wb.value);
    sketches::read_result<sketches::any_sketch> rh = sketches::try_read_sketch(io);
    CHECK(rh.ok() && rh.value && std::holds_alternative<sketches::hll_sketch>(*rh.value));
    CHECK(rh.ok() && rh.value && std::get<sketches::hll_sketch>(*rh.value).try_estimate().value == 1.0);
    sketches::read_result<sketches::topk_sketch> rt = sketches::topk_sketch::try_read_from(io);
    CHECK(rt.ok() && rt.value && rt.value->try_to_bytes().value == t->try_to_bytes().value);
    sketches::read_result<sketches::any_sketch> end = sketches::try_read_sketch(io);
    CHECK(end.ok() && !end.value && end.bytes_read == 0);

    std::vector<std::uint8_t> image = b->try_to_bytes().value;
    std::istringstream cut(std::string(image.begin(), image.begin() + 100));
    sketches::read_result<sketches::bloom_filter> rc = sketches::bloom_filter::try_read_from(cut);
    CHECK(rc.status == status::length_mismatch && !rc.value && rc.bytes_read == 100 && rc.image_bytes == image.size());
    CHECK(rc.message() == std::string(sketches::status_text(status::length_mismatch)) + ": truncated stream: 100 of " +
                              std::to_string(image.size()) + " image bytes");
    std::istringstream other(std::string(image.begin(), image.end()));
    CHECK(sketches::hll_sketch::try_read_from(other).status == status::wrong_family);

    std::vector<std::uint8_t> forged = image;
    forged[24 + 5] = 1; // the image length: 2^40 more bytes announced
    std::istringstream lie(std::string(forged.begin(), forged.end()));
    sketches::read_result<sketches::any_sketch> rl = sketches::try_read_sketch(lie);
    CHECK(rl.status == status::length_mismatch && rl.bytes_read == image.size() && rl.image_bytes > (u64{1} << 40));

    std::ostringstream failed_state;
    failed_state.setstate(std::ios::badbit);
    CHECK(b->try_write_to(failed_state).status == status::stream_error && failed_state.str().empty());
    std::istringstream unreadable(std::string(image.begin(), image.end()));
    unreadable.setstate(std::ios::failbit);
    sketches::read_result<sketches::bloom_filter> ru = sketches::bloom_filter::try_read_from(unreadable);
    CHECK(ru.status == status::stream_error && !ru.value);
    CHECK(std::string(sketches::status_text(status::stream_error)).find("stream") != std::string::npos);
}

}  // namespace

int main() {
    test_filters();
    test_counters();
    test_new_families();
    test_streams();
    std::printf("cpp_noexcept_test: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
