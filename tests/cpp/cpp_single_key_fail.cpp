// Must NOT compile (tests/tests/cpp.rs): a character, bool or floating-point
// argument to a single-key member (add, contains, remove, count, estimate,
// their try_ and concurrent forms) or to sketches::hash converted silently
// to the std::uint64_t overload and was hashed as that integer: f.add('x')
// added the integer 120, not the one-byte key "x" (contains("x") stayed
// false), and f.add(2.5) the integer 2. Batches already refuse such
// elements. Built with -DWRITE_THE_KEY (the byte key and the integer spelled
// out, checked for every family below), it compiles.
#include "sketches.hpp"

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#define CAN(NAME, SKETCH)                                                                                      \
    template <class S, class K, class = void>                                                                  \
    struct can_##NAME : std::false_type {};                                                                    \
    template <class S, class K>                                                                                \
    struct can_##NAME<S, K, std::void_t<decltype(std::declval<SKETCH>().NAME(std::declval<K>()))>>        \
        : std::true_type {};

CAN(add, S &)
CAN(try_add, S &)
CAN(contains, const S &)
CAN(try_contains, const S &)
CAN(add_concurrent, S &)
CAN(contains_concurrent, const S &)
CAN(remove, S &)
CAN(try_remove, S &)
CAN(count, const S &)
CAN(estimate, const S &)
CAN(try_estimate, const S &)

/* Integers and byte keys are keys; characters, bool and floating point are not. */
template <template <class, class, class> class Can, class S>
constexpr bool keys_only =
    Can<S, std::uint64_t, void>::value && Can<S, int, void>::value && Can<S, unsigned, void>::value &&
    Can<S, std::int64_t, void>::value && Can<S, std::string_view, void>::value && Can<S, const char *, void>::value &&
    !Can<S, char, void>::value && !Can<S, unsigned char, void>::value && !Can<S, signed char, void>::value &&
    !Can<S, bool, void>::value && !Can<S, double, void>::value && !Can<S, float, void>::value &&
    !Can<S, char32_t, void>::value && !Can<S, wchar_t, void>::value;

using namespace sketches;
static_assert(keys_only<can_add, bloom_filter> && keys_only<can_try_add, bloom_view>);
static_assert(keys_only<can_contains, bloom_const_view> && keys_only<can_try_contains, bloom_filter>);
static_assert(keys_only<can_add_concurrent, sbbf_filter> && keys_only<can_contains_concurrent, sbbf_filter>);
static_assert(keys_only<can_add, sbbf_view> && keys_only<can_contains, sbbf_const_view>);
static_assert(keys_only<can_add, counting_filter> && keys_only<can_remove, counting_filter>);
static_assert(keys_only<can_try_remove, counting_view> && keys_only<can_contains, counting_filter>);
static_assert(keys_only<can_add, cuckoo_filter> && keys_only<can_try_add, cuckoo_filter>);
static_assert(keys_only<can_remove, cuckoo_filter> && keys_only<can_try_remove, cuckoo_filter>);
static_assert(keys_only<can_count, cuckoo_filter> && keys_only<can_contains, cuckoo_const_view>);
static_assert(keys_only<can_add, hll_sketch> && keys_only<can_add_concurrent, hll_sketch>);
static_assert(keys_only<can_add, ull_sketch> && keys_only<can_try_add, ull_view>);
static_assert(keys_only<can_add, countmin_sketch> && keys_only<can_estimate, countmin_sketch>);
static_assert(keys_only<can_try_estimate, countmin_const_view>);
static_assert(keys_only<can_add, topk_sketch> && keys_only<can_estimate, topk_sketch>);
static_assert(keys_only<can_try_estimate, topk_const_view>);
static_assert(keys_only<can_add, minhash_sketch> && keys_only<can_add, ell_sketch>);
static_assert(keys_only<can_contains, fuse_filter> && keys_only<can_try_contains, fuse_const_view>);

/* With a weight too. */
template <class S, class K, class = void>
struct can_add_weighted : std::false_type {};
template <class S, class K>
struct can_add_weighted<S, K, std::void_t<decltype(std::declval<S &>().add(std::declval<K>(), std::uint64_t{3}))>>
    : std::true_type {};
/* (A C string variable followed by a number is C's (key, key_len), refused
   with a weight since cpp_pointer_and_length_fail.cpp; string_view passes.) */
template <class S>
constexpr bool weighted_keys_only =
    can_add_weighted<S, std::uint64_t>::value && can_add_weighted<S, int>::value &&
    can_add_weighted<S, std::string_view>::value && !can_add_weighted<S, const char *>::value &&
    !can_add_weighted<S, char>::value && !can_add_weighted<S, unsigned char>::value &&
    !can_add_weighted<S, bool>::value && !can_add_weighted<S, double>::value && !can_add_weighted<S, float>::value;
static_assert(weighted_keys_only<countmin_sketch> && weighted_keys_only<topk_sketch>);

/* The free hash. */
template <class K, class = void>
struct can_hash : std::false_type {};
template <class K>
struct can_hash<K, std::void_t<decltype(sketches::hash(std::declval<K>()))>> : std::true_type {};
static_assert(can_hash<std::uint64_t>::value && can_hash<int>::value && can_hash<std::string_view>::value);
static_assert(!can_hash<char>::value && !can_hash<bool>::value && !can_hash<double>::value);

bool added(bloom_filter &f, char c) {
#ifdef WRITE_THE_KEY
    return f.add(std::string_view(&c, 1)) && f.add(static_cast<std::uint64_t>(c));
#else
    return f.add(c);
#endif
}
